/*
 * Agent runs (agent.h): the prompt that lists the skills, the four
 * tools, one unit's session (its messages, its jail, its transcript),
 * trigger detection and the workspace verifiers.
 */
#include "common.h"
#include "agent/agent.h"
#include "jail/jailproto.h"
#include "json.h"
#include "providers/provider.h"
#include "sha256.h"
#include "skills/testsuite.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- options -------------------------------------------------------------- */

void sc_agent_options_init(struct sc_agent_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->mode = SC_AGENT_AUTO;
	sc_jail_limits_init(&opt->jail);
	opt->tool_output_max = SC_AGENT_TOOL_OUTPUT_MAX;
	opt->max_calls_per_turn = SC_AGENT_MAX_CALLS;
	opt->trigger_turns = SC_AGENT_TRIGGER_TURNS;
	opt->jobs = 0;
}

int sc_agent_mode_parse(enum sc_agent_mode *out, const char *s)
{
	if (!strcmp(s, "auto"))
		*out = SC_AGENT_AUTO;
	else if (!strcmp(s, "always"))
		*out = SC_AGENT_ALWAYS;
	else if (!strcmp(s, "never"))
		*out = SC_AGENT_NEVER;
	else
		return sc_error_set(SC_EINVAL, "unknown agent mode '%s' (auto, always or never)", s);
	return 0;
}

const char *sc_agent_mode_name(enum sc_agent_mode m)
{
	return m == SC_AGENT_ALWAYS ? "always" : m == SC_AGENT_NEVER ? "never" : "auto";
}

bool sc_agent_runs_test(const struct sc_test *t, enum sc_agent_mode mode)
{
	if (t->fixture || mode == SC_AGENT_NEVER)
		return false;
	if (mode == SC_AGENT_ALWAYS || t->trigger)
		return true;
	return sc_test_has_workspace_verifier(t);
}

/* ---- tools and prompt ------------------------------------------------------ */

const struct sc_tool_def sc_agent_tools[] = {
	{ "read_file",
	  "Read a text file. path is relative to the workspace (/workspace), or absolute; "
	  "the skills are under .skills/NAME/.",
	  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
	  "\"description\":\"the file to read\"}},\"required\":[\"path\"]}" },
	{ "list_files",
	  "List the entries of a folder (name, type and size). path is relative to the "
	  "workspace; \".\" is the workspace itself.",
	  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
	  "\"description\":\"the folder to list\"}},\"required\":[\"path\"]}" },
	{ "write_file",
	  "Write a text file in the workspace, replacing it if it exists; missing folders "
	  "are made.",
	  "{\"type\":\"object\",\"properties\":{\"path\":{\"type\":\"string\","
	  "\"description\":\"the file to write\"},\"content\":{\"type\":\"string\","
	  "\"description\":\"its whole content\"}},\"required\":[\"path\",\"content\"]}" },
	{ "run",
	  "Run a shell command (sh -c) in the workspace and get its exit status and output. "
	  "There is no network; each command has a time limit, and nothing it starts "
	  "outlives it.",
	  "{\"type\":\"object\",\"properties\":{\"command\":{\"type\":\"string\","
	  "\"description\":\"the command line\"}},\"required\":[\"command\"]}" },
};
const size_t sc_agent_ntools = SC_ARRAY_SIZE(sc_agent_tools);

static const char prompt_head[] =
	"You are an agent working in a workspace, the folder /workspace, through four tools: "
	"read_file, list_files, write_file and run (a shell command in the workspace). Do the "
	"task; when you are done, reply with your final answer without calling a tool.\n";

static const char prompt_skills[] =
	"\n"
	"Skills are available. A skill is a folder with a SKILL.md that holds instructions for "
	"a kind of task, and may hold references/ and scripts/ for them. When the task matches "
	"a skill's description, read its SKILL.md with read_file before you start, and follow "
	"it; skip skills that do not fit the task.\n"
	"\n"
	"<available_skills>\n";

static const char prompt_tail[] = "</available_skills>\n";

/* Appends s with &, < and > written as entities (a skill's text in the list). */
static void xml_text(struct sc_buf *out, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '&')
			sc_buf_puts(out, "&amp;");
		else if (*s == '<')
			sc_buf_puts(out, "&lt;");
		else if (*s == '>')
			sc_buf_puts(out, "&gt;");
		else
			sc_buf_putc(out, *s);
	}
}

void sc_agent_system_prompt(struct sc_buf *out, const struct sc_agent_skill *skills, size_t n)
{
	sc_buf_puts(out, prompt_head);
	if (!n)
		return;
	sc_buf_puts(out, prompt_skills);
	for (size_t i = 0; i < n; i++) {
		sc_buf_puts(out, "<skill>\n<name>");
		xml_text(out, skills[i].name);
		sc_buf_puts(out, "</name>\n<description>");
		xml_text(out, skills[i].description);
		sc_buf_puts(out, "</description>\n<location>");
		sc_buf_printf(out, "%s/", SC_JAIL_SKILLS_DIR);
		xml_text(out, skills[i].name);
		sc_buf_puts(out, "/SKILL.md</location>\n</skill>\n");
	}
	sc_buf_puts(out, prompt_tail);
}

void sc_agent_prompt_hash(char out[65])
{
	struct sc_sha256 ctx;
	unsigned char d[SC_SHA256_LEN];
	struct sc_buf hex = SC_BUF_INIT;

	sc_sha256_init(&ctx);
	sc_sha256_update(&ctx, SC_AGENT_VERSION, strlen(SC_AGENT_VERSION) + 1);
	sc_sha256_update(&ctx, prompt_head, strlen(prompt_head) + 1);
	sc_sha256_update(&ctx, prompt_skills, strlen(prompt_skills) + 1);
	for (size_t i = 0; i < sc_agent_ntools; i++) {
		sc_sha256_update(&ctx, sc_agent_tools[i].name, strlen(sc_agent_tools[i].name) + 1);
		sc_sha256_update(&ctx, sc_agent_tools[i].description,
				 strlen(sc_agent_tools[i].description) + 1);
		sc_sha256_update(&ctx, sc_agent_tools[i].schema, strlen(sc_agent_tools[i].schema) + 1);
	}
	sc_sha256_final(&ctx, d);
	sc_hex(&hex, d, sizeof(d));
	memcpy(out, hex.ptr, 65);
	sc_buf_release(&hex);
}

/* ---- staging ------------------------------------------------------------------ */

/* Writes data to path (0644), its folders made 0755. */
static int write_public(const char *path, const char *data, size_t len)
{
	struct sc_buf dir = SC_BUF_INIT;
	char *slash;
	int fd, err = 0;
	size_t done = 0;

	sc_buf_puts(&dir, path);
	slash = strrchr(dir.ptr, '/');
	if (slash) {
		*slash = '\0';
		if ((err = sc_mkdir_p(dir.ptr)) < 0)
			goto done;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = sc_error_set(SC_EIO, "cannot write '%s': %s", path, strerror(errno));
		goto done;
	}
	while (done < len) {
		ssize_t w = write(fd, data + done, len - done);
		if (w <= 0) {
			err = sc_error_set(SC_EIO, "cannot write '%s': %s", path, strerror(errno));
			break;
		}
		done += (size_t)w;
	}
	if (fchmod(fd, 0644) < 0 && !err)
		err = sc_error_set(SC_EIO, "cannot chmod '%s': %s", path, strerror(errno));
	close(fd);
done:
	sc_buf_release(&dir);
	return err;
}

int sc_agent_stage_skill(const char *stage, const char *name, const char *dir,
			 char *const *files, size_t n)
{
	struct sc_buf src = SC_BUF_INIT, dst = SC_BUF_INIT, data = SC_BUF_INIT, root = SC_BUF_INIT;
	int err = 0;

	sc_path_join(&root, stage, name);
	if ((err = sc_mkdir_p(root.ptr)) < 0 || chmod(root.ptr, 0755) < 0) {
		if (!err)
			err = sc_error_set(SC_EIO, "cannot chmod '%s': %s", root.ptr, strerror(errno));
		goto done;
	}
	for (size_t i = 0; i < n && err == 0; i++) {
		if (!sc_path_is_safe_relative(files[i]))
			continue;  /* discovery lists none; never a path out of the stage */
		sc_buf_clear(&src);
		sc_buf_clear(&dst);
		sc_path_join(&src, dir, files[i]);
		sc_path_join(&dst, root.ptr, files[i]);
		sc_buf_clear(&data);
		if ((err = sc_read_file(&data, src.ptr, SC_MAX_FILE_BYTES)) < 0)
			break;
		err = write_public(dst.ptr, data.ptr, data.len);
	}
	if (err == 0) {
		/* the folders mkdir made follow the umask: open them to the jail */
		for (size_t i = 0; i < n; i++) {
			char *p = sc_xstrdup(files[i]), *slash;
			while ((slash = strrchr(p, '/'))) {
				*slash = '\0';
				sc_buf_clear(&dst);
				sc_path_join(&dst, root.ptr, p);
				chmod(dst.ptr, 0755);
			}
			free(p);
		}
	}
done:
	sc_buf_release(&src);
	sc_buf_release(&dst);
	sc_buf_release(&data);
	sc_buf_release(&root);
	return err;
}

/* ---- the session ---------------------------------------------------------------- */

struct call {
	char *id, *name, *args;
};

struct msg {
	enum sc_chat_role role;
	char *content;
	struct call *calls;
	size_t ncalls;
	char *call_id;
	bool is_error;
};

struct sc_agent_run {
	struct sc_agent_options opt;
	const struct sc_test *test;
	char *skill_name;
	struct sc_agent_skill *listed;
	size_t nlisted;
	char *system;
	char *validators_dir;
	int max_turns;
	struct sc_jail *jail;
	struct msg *msgs;
	size_t nmsgs, msgs_alloc;
	/* the views a request points at, rebuilt for each */
	struct sc_chat_message *req_msgs;
	struct sc_chat_tool_msg *req_tools;
	struct sc_tool_call *req_calls;
	/* the last answer's calls, waiting for sc_agent_run_tools */
	struct call *pending;
	size_t npending;
	cJSON *transcript;
	char *answer;
	int turns;
	bool triggered, opened_skill, at_limit;
	int trigger_turn;
	int64_t t_new, ready_ms, jail_ms;
	char *tool_error;           /* the jail failed during tools */
};

static void msg_release(struct msg *m)
{
	free(m->content);
	for (size_t i = 0; i < m->ncalls; i++) {
		free(m->calls[i].id);
		free(m->calls[i].name);
		free(m->calls[i].args);
	}
	free(m->calls);
	free(m->call_id);
}

static struct msg *add_msg(struct sc_agent_run *ar, enum sc_chat_role role, const char *content)
{
	struct msg *m;

	SC_GROW(ar->msgs, ar->msgs_alloc, ar->nmsgs + 1);
	m = &ar->msgs[ar->nmsgs++];
	memset(m, 0, sizeof(*m));
	m->role = role;
	m->content = sc_xstrdup(content ? content : "");
	return m;
}

int sc_agent_run_new(struct sc_agent_run **out, const struct sc_agent_options *opt,
		     const struct sc_test *t, const char *skill_name,
		     const struct sc_agent_skill *listed, size_t n, const char *system,
		     const char *user, const char *validators_dir, int max_turns)
{
	struct sc_agent_run *ar = sc_xcalloc(1, sizeof(*ar));
	cJSON *m;

	ar->opt = *opt;
	ar->test = t;
	ar->skill_name = skill_name ? sc_xstrdup(skill_name) : NULL;
	ar->listed = sc_xcalloc(n ? n : 1, sizeof(*ar->listed));
	for (size_t i = 0; i < n; i++) {
		ar->listed[i].name = sc_xstrdup(listed[i].name);
		ar->listed[i].description = sc_xstrdup(listed[i].description ? listed[i].description : "");
		ar->listed[i].stage_dir = sc_xstrdup(listed[i].stage_dir);
	}
	ar->nlisted = n;
	ar->system = sc_xstrdup(system ? system : "");
	ar->validators_dir = validators_dir ? sc_xstrdup(validators_dir) : NULL;
	ar->max_turns = max_turns > 0 ? max_turns : 1;
	if (t->trigger && ar->opt.trigger_turns > 0 && ar->opt.trigger_turns < ar->max_turns)
		ar->max_turns = ar->opt.trigger_turns;
	ar->transcript = cJSON_CreateArray();
	/* the prompt as sent and the tools offered, so the transcript is the
	 * whole conversation (export writes it out as it was) */
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", "system");
	cJSON_AddStringToObject(m, "content", ar->system);
	{
		cJSON *tools = cJSON_AddArrayToObject(m, "tools");
		for (size_t i = 0; i < sc_agent_ntools; i++) {
			cJSON *def = cJSON_CreateObject();
			cJSON_AddStringToObject(def, "name", sc_agent_tools[i].name);
			cJSON_AddStringToObject(def, "description", sc_agent_tools[i].description);
			cJSON_AddItemToObject(def, "parameters", cJSON_Parse(sc_agent_tools[i].schema));
			cJSON_AddItemToArray(tools, def);
		}
	}
	cJSON_AddItemToArray(ar->transcript, m);
	add_msg(ar, SC_CHAT_USER, user);
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", "user");
	cJSON_AddStringToObject(m, "content", user ? user : "");
	cJSON_AddItemToArray(ar->transcript, m);
	ar->t_new = sc_now_ms();
	*out = ar;
	return 0;
}

static void clear_pending(struct sc_agent_run *ar)
{
	for (size_t i = 0; i < ar->npending; i++) {
		free(ar->pending[i].id);
		free(ar->pending[i].name);
		free(ar->pending[i].args);
	}
	free(ar->pending);
	ar->pending = NULL;
	ar->npending = 0;
}

void sc_agent_run_free(struct sc_agent_run *ar)
{
	if (!ar)
		return;
	sc_jail_free(ar->jail);
	for (size_t i = 0; i < ar->nmsgs; i++)
		msg_release(&ar->msgs[i]);
	free(ar->msgs);
	for (size_t i = 0; i < ar->nlisted; i++) {
		free((char *)ar->listed[i].name);
		free((char *)ar->listed[i].description);
		free((char *)ar->listed[i].stage_dir);
	}
	free(ar->listed);
	free(ar->req_msgs);
	free(ar->req_tools);
	free(ar->req_calls);
	clear_pending(ar);
	cJSON_Delete(ar->transcript);
	free(ar->answer);
	free(ar->skill_name);
	free(ar->system);
	free(ar->validators_dir);
	free(ar->tool_error);
	free(ar);
}

/* The bytes of a test file to stage: its text, else the file itself. */
static int file_bytes(struct sc_buf *out, const struct sc_test_file *f, const char *dir)
{
	struct sc_buf path = SC_BUF_INIT;
	int err;

	sc_buf_clear(out);
	if (f->content) {
		sc_buf_puts(out, f->content);
		return 0;
	}
	if (!dir)
		return sc_error_set(SC_ENOTFOUND, "the binary file '%s' cannot be staged (no folder "
				    "to read it from)", f->name);
	sc_path_join(&path, dir, f->name);
	err = sc_read_file(out, path.ptr, SC_AGENT_MAX_FILE_STAGE);
	sc_buf_release(&path);
	return err;
}

int sc_agent_run_start(struct sc_agent_run *ar)
{
	struct sc_jail_mount *m = sc_xcalloc(ar->nlisted ? ar->nlisted : 1, sizeof(*m));
	struct sc_buf data = SC_BUF_INIT;
	int err;

	for (size_t i = 0; i < ar->nlisted; i++) {
		struct sc_buf d = SC_BUF_INIT;
		sc_path_join(&d, ar->listed[i].stage_dir, ar->listed[i].name);
		m[i].name = ar->listed[i].name;
		m[i].host_dir = sc_buf_detach(&d, NULL);
	}
	err = sc_jail_start(&ar->jail, &ar->opt.jail, m, ar->nlisted);
	ar->jail_ms = sc_jail_start_ms(ar->jail);
	for (size_t i = 0; err == 0 && i < ar->test->nfiles; i++) {
		const struct sc_test_file *f = &ar->test->files[i];
		if ((err = file_bytes(&data, f, ar->validators_dir)) < 0)
			break;
		if ((err = sc_jail_write(ar->jail, f->name, data.ptr, data.len)) < 0)
			err = sc_error_wrap(err == SC_EINVAL ? SC_EIO : err, "staging the test's file '%s'",
					    f->name);
	}
	for (size_t i = 0; i < ar->nlisted; i++)
		free((char *)m[i].host_dir);
	free(m);
	sc_buf_release(&data);
	return err;
}

int64_t sc_agent_run_ready_ms(const struct sc_agent_run *ar)
{
	return ar->ready_ms;
}

int64_t sc_agent_run_jail_ms(const struct sc_agent_run *ar)
{
	return ar->jail_ms;
}

void sc_agent_run_request(struct sc_agent_run *ar, struct sc_chat_request *req)
{
	size_t ncalls = 0, k = 0;

	if (!ar->ready_ms)
		ar->ready_ms = sc_now_ms() - ar->t_new;
	for (size_t i = 0; i < ar->nmsgs; i++)
		ncalls += ar->msgs[i].ncalls;
	free(ar->req_msgs);
	free(ar->req_tools);
	free(ar->req_calls);
	ar->req_msgs = sc_xcalloc(ar->nmsgs, sizeof(*ar->req_msgs));
	ar->req_tools = sc_xcalloc(ar->nmsgs, sizeof(*ar->req_tools));
	ar->req_calls = sc_xcalloc(ncalls ? ncalls : 1, sizeof(*ar->req_calls));
	for (size_t i = 0; i < ar->nmsgs; i++) {
		const struct msg *m = &ar->msgs[i];
		ar->req_msgs[i].role = m->role;
		ar->req_msgs[i].content = m->content;
		ar->req_tools[i].call_id = m->call_id;
		ar->req_tools[i].is_error = m->is_error;
		ar->req_tools[i].calls = m->ncalls ? &ar->req_calls[k] : NULL;
		ar->req_tools[i].ncalls = m->ncalls;
		for (size_t c = 0; c < m->ncalls; c++, k++) {
			ar->req_calls[k].id = m->calls[c].id;
			ar->req_calls[k].name = m->calls[c].name;
			ar->req_calls[k].arguments = m->calls[c].args;
		}
	}
	req->system = ar->system;
	req->messages = ar->req_msgs;
	req->nmessages = ar->nmsgs;
	req->tool_msgs = ar->req_tools;
	req->tools = sc_agent_tools;
	req->ntools = sc_agent_ntools;
}

/* ---- answers and trigger detection ---------------------------------------------------- */

/* path as the workspace sees it: "./" and "/workspace/" taken off, "//" made "/". */
static void norm_path(struct sc_buf *out, const char *p)
{
	sc_buf_clear(out);
	while (*p == ' ')
		p++;
	if (sc_starts_with(p, SC_JAIL_WORKSPACE "/"))
		p += strlen(SC_JAIL_WORKSPACE "/");
	while (sc_starts_with(p, "./"))
		p += 2;
	for (; *p; p++) {
		if (*p == '/' && out->len && out->ptr[out->len - 1] == '/')
			continue;
		if (*p == '/' && p[1] == '.' && p[2] == '/') {
			p++;
			continue;
		}
		sc_buf_putc(out, *p);
	}
}

/* The argument key of a call as a string, or NULL. */
static const char *arg_str(const cJSON *args, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(args, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/*
 * True when the call opens the evaluated skill's SKILL.md: read_file of
 * .skills/NAME/SKILL.md (however the path is spelled), or a command that
 * names it (cat, head, sed ...).
 */
static bool opens_skill(const struct sc_agent_run *ar, const struct call *c)
{
	cJSON *args;
	struct sc_buf want = SC_BUF_INIT, p = SC_BUF_INIT;
	const char *s;
	bool hit = false;

	if (!ar->skill_name)
		return false;
	args = cJSON_Parse(c->args);
	sc_buf_printf(&want, ".skills/%s/SKILL.md", ar->skill_name);
	if (!strcmp(c->name, "read_file") && (s = arg_str(args, "path"))) {
		norm_path(&p, s);
		hit = !strcmp(p.ptr, want.ptr) || !strcasecmp(p.ptr, want.ptr);
	} else if (!strcmp(c->name, "run") && (s = arg_str(args, "command"))) {
		norm_path(&p, s);
		hit = strstr(s, want.ptr) != NULL || strstr(p.ptr, want.ptr) != NULL;
	}
	cJSON_Delete(args);
	sc_buf_release(&want);
	sc_buf_release(&p);
	return hit;
}

enum sc_agent_next sc_agent_on_answer(struct sc_agent_run *ar, const struct sc_chat_response *resp)
{
	cJSON *calls = resp->tool_calls ? cJSON_Parse(resp->tool_calls) : NULL, *c, *m, *tc = NULL;
	struct msg *am;
	size_t n = 0;

	clear_pending(ar);
	ar->turns++;
	free(ar->answer);
	ar->answer = sc_xstrdup(resp->text ? resp->text : "");
	am = add_msg(ar, SC_CHAT_ASSISTANT, ar->answer);
	if (cJSON_IsArray(calls))
		n = (size_t)cJSON_GetArraySize(calls);
	am->calls = sc_xcalloc(n ? n : 1, sizeof(*am->calls));
	ar->pending = sc_xcalloc(n ? n : 1, sizeof(*ar->pending));
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", "assistant");
	cJSON_AddStringToObject(m, "content", ar->answer);
	if (n)
		tc = cJSON_AddArrayToObject(m, "tool_calls");
	if (!n) {
		cJSON_Delete(calls);
		calls = NULL;
	}
	cJSON_ArrayForEach(c, calls) {
		const char *id = arg_str(c, "id"), *name = arg_str(c, "name"), *args = arg_str(c, "arguments");
		struct call *x = &am->calls[am->ncalls++];
		cJSON *t = cJSON_CreateObject();
		x->id = sc_xstrdup(id && *id ? id : "call");
		x->name = sc_xstrdup(name ? name : "");
		x->args = sc_xstrdup(args ? args : "{}");
		ar->pending[ar->npending].id = sc_xstrdup(x->id);
		ar->pending[ar->npending].name = sc_xstrdup(x->name);
		ar->pending[ar->npending].args = sc_xstrdup(x->args);
		ar->npending++;
		cJSON_AddStringToObject(t, "id", x->id);
		cJSON_AddStringToObject(t, "name", x->name);
		cJSON_AddStringToObject(t, "arguments", x->args);
		cJSON_AddItemToArray(tc, t);
		if (!ar->opened_skill && opens_skill(ar, x)) {
			ar->opened_skill = true;
			ar->trigger_turn = ar->turns;
		}
	}
	{
		cJSON *u = cJSON_AddObjectToObject(m, "usage");
		cJSON_AddNumberToObject(u, "input_tokens", (double)(resp->input_tokens +
				resp->cache_read_tokens + resp->cache_creation_tokens));
		cJSON_AddNumberToObject(u, "output_tokens", (double)resp->output_tokens);
		if (resp->stop_reason)
			cJSON_AddStringToObject(m, "stop_reason", resp->stop_reason);
	}
	cJSON_AddItemToArray(ar->transcript, m);
	cJSON_Delete(calls);
	if (ar->test->trigger) {
		ar->triggered = ar->opened_skill;
		if (ar->triggered || !ar->npending || ar->turns >= ar->max_turns)
			return SC_AGENT_NEXT_DECIDED;
		return SC_AGENT_NEXT_TOOLS;
	}
	if (!ar->npending)
		return SC_AGENT_NEXT_VERIFY;
	if (ar->turns >= ar->max_turns) {
		ar->at_limit = true;
		return SC_AGENT_NEXT_VERIFY;
	}
	return SC_AGENT_NEXT_TOOLS;
}

/* ---- tools ------------------------------------------------------------------------------- */

/*
 * Text as the model may see it: valid UTF-8 (each bad byte as U+FFFD),
 * no NUL. Appends to out.
 */
static void clean_text(struct sc_buf *out, const char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		uint32_t cp;
		size_t n = sc_utf8_decode(s + i, len - i, &cp);
		if (n == 0 || cp == 0) {
			if (n == 0)
				sc_buf_puts(out, "\xef\xbf\xbd");
			i += n ? n : 1;
			continue;
		}
		sc_buf_put(out, s + i, n);
		i += n;
	}
}

/* True when bytes look binary: a NUL, or mostly not UTF-8. */
static bool looks_binary(const char *s, size_t len)
{
	size_t bad = 0, i = 0;

	if (memchr(s, '\0', len))
		return true;
	while (i < len) {
		uint32_t cp;
		size_t n = sc_utf8_decode(s + i, len - i, &cp);
		if (n == 0) {
			bad++;
			n = 1;
		}
		i += n;
	}
	return len && bad * 20 > len;
}

/*
 * Appends at most max bytes of text: when longer, its head and its tail
 * with "[... N bytes cut ...]" between, so an error at the end of a long
 * output is seen.
 */
static void capped(struct sc_buf *out, const char *s, size_t len, size_t max)
{
	struct sc_buf tmp = SC_BUF_INIT;
	size_t head, tail;

	if (len <= max) {
		clean_text(out, s, len);
		return;
	}
	head = max * 2 / 3;
	tail = max - head;
	while (head > 0 && ((unsigned char)s[head] & 0xC0) == 0x80)
		head--;
	while (tail > 0 && ((unsigned char)s[len - tail] & 0xC0) == 0x80)
		tail--;
	clean_text(out, s, head);
	sc_buf_printf(&tmp, "\n[... %zu bytes cut ...]\n", len - head - tail);
	sc_buf_puts(out, tmp.ptr);
	clean_text(out, s + len - tail, tail);
	sc_buf_release(&tmp);
}

/*
 * One call: its result text into out; *is_error for a failure the model
 * should see. Returns 0, or SC_EIO when the jail itself failed.
 */
static int run_call(struct sc_agent_run *ar, const struct call *c, struct sc_buf *out, bool *is_error)
{
	cJSON *args = cJSON_Parse(c->args);
	struct sc_buf data = SC_BUF_INIT;
	const char *path = NULL, *s;
	int err = 0;

	*is_error = false;
	if (!cJSON_IsObject(args)) {
		sc_buf_printf(out, "the arguments of %s are not a JSON object", c->name);
		*is_error = true;
		goto done;
	}
	path = arg_str(args, "path");
	if (!strcmp(c->name, "read_file")) {
		int64_t size = 0;
		if (!path || !*path) {
			sc_buf_puts(out, "read_file needs a path");
			*is_error = true;
		} else if ((err = sc_jail_read(ar->jail, &data, &size, path,
					       ar->opt.tool_output_max + 1)) == 0) {
			if (looks_binary(data.ptr, data.len)) {
				sc_buf_printf(out, "'%s' is a binary file of %lld bytes; not shown", path,
					      (long long)size);
			} else {
				capped(out, data.ptr, data.len < ar->opt.tool_output_max ? data.len
				       : ar->opt.tool_output_max, ar->opt.tool_output_max);
				if (size > (int64_t)ar->opt.tool_output_max)
					sc_buf_printf(out, "\n[... the file has %lld bytes; only the first %zu "
						      "are shown]", (long long)size, ar->opt.tool_output_max);
			}
		}
	} else if (!strcmp(c->name, "list_files")) {
		if ((err = sc_jail_list(ar->jail, &data, path && *path ? path : ".")) == 0)
			capped(out, data.ptr, data.len, ar->opt.tool_output_max);
		if (err == 0 && !data.len)
			sc_buf_puts(out, "(empty)");
	} else if (!strcmp(c->name, "write_file")) {
		s = arg_str(args, "content");
		if (!path || !*path || !s) {
			sc_buf_puts(out, "write_file needs a path and a content");
			*is_error = true;
		} else if (strlen(s) > SC_AGENT_MAX_WRITE) {
			sc_buf_printf(out, "the content is larger than %d bytes; write it in parts with run",
				      SC_AGENT_MAX_WRITE);
			*is_error = true;
		} else if ((err = sc_jail_write(ar->jail, path, s, strlen(s))) == 0) {
			sc_buf_printf(out, "wrote %zu bytes to %s", strlen(s), path);
		}
	} else if (!strcmp(c->name, "run")) {
		struct sc_jail_run r;
		s = arg_str(args, "command");
		sc_jail_run_init(&r);
		if (!s || !*s) {
			sc_buf_puts(out, "run needs a command");
			*is_error = true;
		} else if ((err = sc_jail_exec(ar->jail, &r, s, 0)) == 0) {
			sc_jail_run_describe(out, &r, ar->opt.jail.command_timeout_ms);
			sc_buf_putc(out, '\n');
			capped(out, r.output.ptr, r.output.len, ar->opt.tool_output_max);
			if (r.output_total > (int64_t)r.output.len)
				sc_buf_printf(out, "\n[... %lld bytes of output in all; only the first %zu "
					      "were kept]", (long long)r.output_total, r.output.len);
			*is_error = r.exit_code != 0;
		}
		sc_jail_run_release(&r);
	} else {
		sc_buf_printf(out, "unknown tool '%s'; the tools are read_file, list_files, write_file "
			      "and run", c->name);
		*is_error = true;
	}
	if (err == SC_EINVAL) {
		/* the jail refused (a missing file, a read-only folder): the model's to see */
		sc_buf_clear(out);
		clean_text(out, sc_error_last(), strlen(sc_error_last()));
		*is_error = true;
		sc_error_clear();
		err = 0;
	}
done:
	cJSON_Delete(args);
	sc_buf_release(&data);
	return err;
}

int sc_agent_run_tools(struct sc_agent_run *ar)
{
	struct sc_buf out = SC_BUF_INIT;
	int err = 0;

	for (size_t i = 0; i < ar->npending; i++) {
		const struct call *c = &ar->pending[i];
		bool is_error = false;
		int64_t t0 = sc_now_ms();
		struct msg *m;
		cJSON *t;

		sc_buf_clear(&out);
		if (err < 0) {
			sc_buf_puts(&out, "not run: the jail failed");
			is_error = true;
		} else if ((int)i >= ar->opt.max_calls_per_turn) {
			sc_buf_printf(&out, "not run: at most %d tool calls are run per turn",
				      ar->opt.max_calls_per_turn);
			is_error = true;
		} else if ((err = run_call(ar, c, &out, &is_error)) < 0) {
			free(ar->tool_error);
			ar->tool_error = sc_xstrdup(sc_error_last());
			sc_buf_clear(&out);
			sc_buf_printf(&out, "the jail failed: %s", ar->tool_error);
			is_error = true;
		}
		m = add_msg(ar, SC_CHAT_TOOL, out.ptr);
		m->call_id = sc_xstrdup(c->id);
		m->is_error = is_error;
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "role", "tool");
		cJSON_AddStringToObject(t, "tool_call_id", c->id);
		cJSON_AddStringToObject(t, "name", c->name);
		cJSON_AddStringToObject(t, "arguments", c->args);
		cJSON_AddStringToObject(t, "content", out.ptr);
		if (is_error)
			cJSON_AddTrueToObject(t, "is_error");
		cJSON_AddNumberToObject(t, "ms", (double)(sc_now_ms() - t0));
		cJSON_AddItemToArray(ar->transcript, t);
	}
	clear_pending(ar);
	sc_buf_release(&out);
	if (err < 0)
		return sc_error_set(err, "%s", ar->tool_error);
	return 0;
}

/* ---- verifiers --------------------------------------------------------------------------- */

void sc_agent_outcome_release(struct sc_agent_outcome *o)
{
	free(o->message);
	memset(o, 0, sizeof(*o));
}

static bool contains_ci(const char *hay, const char *needle)
{
	size_t nl = strlen(needle);

	if (!nl)
		return true;
	for (const char *h = hay; *h; h++) {
		size_t i = 0;
		while (i < nl && h[i] && tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == nl)
			return true;
	}
	return false;
}

static void set_outcome(struct sc_agent_outcome *o, enum sc_unit_verdict verdict, const char *cls,
			const char *msg)
{
	o->verdict = verdict;
	o->error_class = cls;
	free(o->message);
	o->message = msg ? sc_xstrdup(msg) : NULL;
}

/* The last line(s) of a command's output for a failure message. */
static void output_tail(struct sc_buf *out, const struct sc_buf *output)
{
	size_t start = output->len > 300 ? output->len - 300 : 0;

	while (start > 0 && start < output->len && ((unsigned char)output->ptr[start] & 0xC0) == 0x80)
		start++;
	if (output->len)
		sc_buf_puts(out, ": ");
	if (start)
		sc_buf_puts(out, "…");
	clean_text(out, output->ptr + start, output->len - start);
	sc_buf_rtrim(out);
}

/* Quotes s for sh: '...' with each ' written '\''. */
static void sh_quote(struct sc_buf *out, const char *s)
{
	sc_buf_putc(out, '\'');
	for (; *s; s++) {
		if (*s == '\'')
			sc_buf_puts(out, "'\\''");
		else
			sc_buf_putc(out, *s);
	}
	sc_buf_putc(out, '\'');
}

/*
 * A validator: the program validators/NAME, NAME.py or NAME.sh beside
 * the tests (validators_dir), copied into the jail's /tmp after the
 * student's turns and run there with the output file as its argument and
 * the config as JSON in SKILLCI_VALIDATOR_CONFIG (and the file
 * /tmp/.skillci-validator/config.json). Exit 0 accepts. Returns 1
 * passed, 0 failed (msg set), or a negative code: SC_ENOTFOUND when
 * there is no such program (the unit is unverified), SC_EIO for the jail.
 */
static int run_validator(struct sc_agent_run *ar, const struct sc_test_verifier *v,
			 struct sc_buf *msg)
{
	static const char *const ext[] = { "", ".py", ".sh" };
	struct sc_buf path = SC_BUF_INIT, prog = SC_BUF_INIT, cmd = SC_BUF_INIT, dest = SC_BUF_INIT;
	struct sc_jail_run r;
	const char *use_ext = NULL;
	int err = SC_ENOTFOUND;

	sc_jail_run_init(&r);
	for (size_t i = 0; ar->validators_dir && i < SC_ARRAY_SIZE(ext) && !use_ext; i++) {
		struct stat st;
		sc_buf_clear(&path);
		sc_buf_printf(&path, "%s/validators/%s%s", ar->validators_dir, v->validator, ext[i]);
		if (lstat(path.ptr, &st) == 0 && S_ISREG(st.st_mode))
			use_ext = ext[i];
	}
	if (!use_ext || !sc_path_is_safe_relative(v->validator)) {
		sc_buf_printf(msg, "the test names the validator '%s', and there is no program "
			      "validators/%s (or .py, .sh) beside its tests: write one (it gets the "
			      "output file as its argument and exits 0 to accept), or use a command "
			      "verifier", v->validator, v->validator);
		err = SC_ENOTFOUND;
		goto done;
	}
	if ((err = sc_read_file(&prog, path.ptr, SC_AGENT_MAX_WRITE)) < 0)
		goto done;
	sc_buf_printf(&dest, "/tmp/.skillci-validator/%s%s", v->validator, use_ext);
	if ((err = sc_jail_write(ar->jail, dest.ptr, prog.ptr, prog.len)) < 0 ||
	    (err = sc_jail_write(ar->jail, "/tmp/.skillci-validator/config.json",
				 v->config ? v->config : "{}", strlen(v->config ? v->config : "{}"))) < 0)
		goto jail_failed;
	sc_buf_puts(&cmd, "SKILLCI_VALIDATOR_CONFIG=");
	sh_quote(&cmd, v->config ? v->config : "{}");
	sc_buf_puts(&cmd, " ");
	if (!strcmp(use_ext, ".py"))
		sc_buf_puts(&cmd, "python3 ");
	else if (!strcmp(use_ext, ".sh"))
		sc_buf_puts(&cmd, "sh ");
	else
		sc_buf_printf(&cmd, "chmod +x %s && ", dest.ptr);
	sc_buf_puts(&cmd, dest.ptr);
	sc_buf_putc(&cmd, ' ');
	sh_quote(&cmd, v->path ? v->path : "");
	if ((err = sc_jail_exec(ar->jail, &r, cmd.ptr, v->timeout_s > 0
				? (int64_t)(v->timeout_s * 1000) : 0)) < 0)
		goto jail_failed;
	if (r.exit_code == 0 && !r.timed_out && !r.signal) {
		err = 1;
		goto done;
	}
	sc_buf_printf(msg, "validator '%s' rejected '%s' (", v->validator, v->path ? v->path : "");
	sc_jail_run_describe(msg, &r, v->timeout_s > 0 ? (int64_t)(v->timeout_s * 1000)
			     : ar->opt.jail.command_timeout_ms);
	sc_buf_putc(msg, ')');
	output_tail(msg, &r.output);
	err = 0;
	goto done;
jail_failed:
	if (err == SC_EINVAL)
		err = sc_error_set(SC_EIO, "jail: %s", sc_error_last());
done:
	sc_jail_run_release(&r);
	sc_buf_release(&path);
	sc_buf_release(&prog);
	sc_buf_release(&cmd);
	sc_buf_release(&dest);
	return err;
}

/*
 * One workspace verifier: 1 passed, 0 failed (msg says why), or a
 * negative code (SC_ENOTFOUND: cannot be checked here, msg says why;
 * SC_EIO: the jail failed).
 */
static int check_verifier(struct sc_agent_run *ar, const struct sc_test_verifier *v,
			  struct sc_buf *msg)
{
	struct sc_buf data = SC_BUF_INIT, cmd = SC_BUF_INIT;
	struct sc_jail_run r;
	int64_t size = 0;
	int err = 1;

	sc_jail_run_init(&r);
	switch (v->type) {
	case SC_VERIFIER_CONTAINS:
		for (size_t i = 0; i < v->values.n; i++)
			if (!contains_ci(ar->answer ? ar->answer : "", v->values.items[i])) {
				sc_buf_printf(msg, "answer lacks '%s'", v->values.items[i]);
				err = 0;
				break;
			}
		break;
	case SC_VERIFIER_FILE_EXISTS:
		if ((err = sc_jail_stat(ar->jail, &data, v->path)) == SC_EINVAL) {
			sc_buf_printf(msg, "file_exists: '%s' is not in the workspace", v->path);
			sc_error_clear();
			err = 0;
		} else if (err == 0) {
			err = 1;
		}
		break;
	case SC_VERIFIER_FILE_CONTAINS:
		err = sc_jail_read(ar->jail, &data, &size, v->path, 4u * 1024 * 1024);
		if (err == SC_EINVAL) {
			sc_buf_printf(msg, "file_contains: '%s' is not in the workspace (%s)", v->path,
				      sc_error_last());
			sc_error_clear();
			err = 0;
			break;
		}
		if (err < 0)
			break;
		err = 1;
		for (size_t i = 0; i < v->values.n; i++)
			if (!memmem(data.ptr, data.len, v->values.items[i], strlen(v->values.items[i]))) {
				sc_buf_printf(msg, "file_contains: '%s' lacks '%s'", v->path,
					      v->values.items[i]);
				err = 0;
				break;
			}
		break;
	case SC_VERIFIER_COMMAND: {
		int64_t timeout = v->timeout_s > 0 ? (int64_t)(v->timeout_s * 1000)
			: ar->opt.jail.command_timeout_ms;
		if ((err = sc_jail_exec(ar->jail, &r, v->command, timeout)) < 0)
			break;
		if (!r.timed_out && !r.signal && r.exit_code == v->exit_code) {
			err = 1;
			break;
		}
		sc_buf_printf(msg, "command `%s` ", v->command);
		sc_jail_run_describe(msg, &r, timeout);
		sc_buf_printf(msg, " (expected exit %d)", v->exit_code);
		output_tail(msg, &r.output);
		err = 0;
		break;
	}
	case SC_VERIFIER_VALIDATOR:
		err = run_validator(ar, v, msg);
		break;
	}
	if (err == SC_EINVAL)
		err = sc_error_set(SC_EIO, "jail: %s", sc_error_last());
	sc_jail_run_release(&r);
	sc_buf_release(&data);
	sc_buf_release(&cmd);
	return err;
}

int sc_agent_verify(struct sc_agent_run *ar, struct sc_agent_outcome *out)
{
	const struct sc_test *t = ar->test;
	struct sc_buf msg = SC_BUF_INIT;

	memset(out, 0, sizeof(*out));
	out->verdict = SC_UNIT_ERROR;  /* until decided below */
	out->triggered = ar->opened_skill;
	if (t->trigger) {
		bool should = t->trigger > 0;
		if (ar->opened_skill)
			sc_buf_printf(&msg, "opened SKILL.md (turn %d)", ar->trigger_turn);
		else
			sc_buf_printf(&msg, "left SKILL.md closed (%d turn%s)", ar->turns,
				      ar->turns == 1 ? "" : "s");
		sc_buf_printf(&msg, "; %s", should ? "should trigger" : "should not trigger");
		if (ar->opened_skill == should)
			set_outcome(out, SC_UNIT_PASS, NULL, msg.ptr);
		else
			set_outcome(out, SC_UNIT_FAIL, should ? "not_triggered" : "false_trigger", msg.ptr);
		goto done;
	}
	if (ar->tool_error) {
		sc_buf_printf(&msg, "jail: %s", ar->tool_error);
		set_outcome(out, SC_UNIT_ERROR, "jail", msg.ptr);
		goto done;
	}
	for (size_t i = 0; i < t->contains.n; i++)
		if (!contains_ci(ar->answer ? ar->answer : "", t->contains.items[i])) {
			sc_buf_printf(&msg, "answer lacks '%s'", t->contains.items[i]);
			set_outcome(out, SC_UNIT_FAIL, "wrong_answer", msg.ptr);
			goto limit_note;
		}
	for (size_t i = 0; i < t->nverifiers; i++) {
		const struct sc_test_verifier *v = &t->verifiers[i];
		int r;
		if (v->type == SC_VERIFIER_CONTAINS)
			continue;  /* in t->contains, checked above */
		sc_buf_clear(&msg);
		r = check_verifier(ar, v, &msg);
		if (r == 1)
			continue;
		if (r == 0) {
			set_outcome(out, SC_UNIT_FAIL, "verifier_failed", msg.ptr);
			goto limit_note;
		}
		if (r == SC_ENOTFOUND && msg.len) {
			set_outcome(out, SC_UNIT_UNVERIFIED, "no_validator", msg.ptr);
			sc_error_clear();
			goto done;
		}
		sc_buf_clear(&msg);
		sc_buf_puts(&msg, sc_error_last());
		set_outcome(out, SC_UNIT_ERROR, "jail", msg.ptr);
		goto done;
	}
	set_outcome(out, SC_UNIT_PASS, NULL, NULL);
limit_note:
	if (ar->at_limit && out->verdict != SC_UNIT_PASS) {
		sc_buf_clear(&msg);
		sc_buf_printf(&msg, "%s (the agent was stopped at max_turns, %d, with tool calls "
			      "pending)", out->message ? out->message : "", ar->max_turns);
		free(out->message);
		out->message = sc_xstrdup(msg.ptr);
	}
done:
	sc_jail_free(ar->jail);
	ar->jail = NULL;
	sc_buf_release(&msg);
	return 0;
}

/* ---- what a unit keeps ----------------------------------------------------------------------- */

const char *sc_agent_run_answer(const struct sc_agent_run *ar)
{
	return ar->answer ? ar->answer : "";
}

char *sc_agent_run_transcript(struct sc_agent_run *ar)
{
	return cJSON_PrintUnformatted(ar->transcript);
}

int sc_agent_run_turns(const struct sc_agent_run *ar)
{
	return ar->turns;
}

void sc_agent_run_excerpt(struct sc_buf *out, const struct sc_agent_run *ar, size_t max)
{
	char *t = cJSON_PrintUnformatted(ar->transcript);
	sc_agent_trace(out, t, max);
	free(t);
}

/* Appends at most max bytes of s on one line (new lines as spaces), "…" when cut. */
static void one_line(struct sc_buf *out, const char *s, size_t max)
{
	size_t n = 0;

	for (; s && *s && n < max; s++, n++)
		sc_buf_putc(out, *s == '\n' || *s == '\r' || *s == '\t' ? ' ' : *s);
	while (n >= max && out->len && ((unsigned char)out->ptr[out->len - 1] & 0xC0) == 0x80)
		sc_buf_truncate(out, out->len - 1);
	if (s && *s) {
		if (out->len && ((unsigned char)out->ptr[out->len - 1] & 0xC0) == 0xC0)
			sc_buf_truncate(out, out->len - 1);
		sc_buf_puts(out, "…");
	}
}

/*
 * A tool's result for the trace: short ones whole, a longer one its first
 * line (a command's status) and its last characters (where an error
 * says what went wrong).
 */
static void trace_result(struct sc_buf *out, const char *res)
{
	size_t len = res ? strlen(res) : 0, nl, from;

	if (len <= 200) {
		one_line(out, res, 200);
		return;
	}
	nl = strcspn(res, "\n");
	one_line(out, res, nl < 60 ? nl : 60);
	from = len - 120;
	while (from < len && ((unsigned char)res[from] & 0xC0) == 0x80)
		from++;
	sc_buf_puts(out, " … ");
	one_line(out, res + from, 120);
}

/* A call's arguments for the trace: write_file shows its path and size. */
static void trace_args(struct sc_buf *out, const char *name, const char *args)
{
	cJSON *a = cJSON_Parse(args ? args : "");
	const char *p = arg_str(a, "path"), *content = arg_str(a, "content"), *cmd = arg_str(a, "command");

	if (!strcmp(name, "write_file") && p) {
		sc_buf_puts(out, "(");
		one_line(out, p, 80);
		sc_buf_printf(out, ", %zu bytes)", content ? strlen(content) : 0);
	} else if (!strcmp(name, "run") && cmd) {
		sc_buf_puts(out, "(`");
		one_line(out, cmd, 100);
		sc_buf_puts(out, "`)");
	} else if (p) {
		sc_buf_puts(out, "(");
		one_line(out, p, 80);
		sc_buf_puts(out, ")");
	} else {
		sc_buf_puts(out, " ");
		one_line(out, args, 80);
	}
	cJSON_Delete(a);
}

void sc_agent_trace(struct sc_buf *out, const char *transcript, size_t max)
{
	cJSON *a = transcript ? cJSON_Parse(transcript) : NULL;
	const cJSON *m;
	struct sc_buf t = SC_BUF_INIT;
	const char *last = NULL;
	bool any_call = false;
	int turn = 0;

	if (!cJSON_IsArray(a)) {
		cJSON_Delete(a);
		a = NULL;
	}
	cJSON_ArrayForEach(m, a) {
		const char *role = arg_str(m, "role");
		if (!role)
			continue;
		if (!strcmp(role, "assistant")) {
			const cJSON *u = cJSON_GetObjectItemCaseSensitive(m, "usage");
			const cJSON *calls = cJSON_GetObjectItemCaseSensitive(m, "tool_calls");
			turn++;
			last = arg_str(m, "content");
			sc_buf_printf(&t, "%sturn %d", t.len ? "\n" : "", turn);
			if (u)
				sc_buf_printf(&t, " (%lld in, %lld out)",
					      (long long)sc_json_int_or(u, "input_tokens", 0, INT64_MAX, 0),
					      (long long)sc_json_int_or(u, "output_tokens", 0, INT64_MAX, 0));
			if (!cJSON_IsArray(calls) || !cJSON_GetArraySize(calls))
				sc_buf_puts(&t, ": answered");
			else
				sc_buf_puts(&t, ":");
		} else if (!strcmp(role, "tool")) {
			const char *name = arg_str(m, "name"), *res = arg_str(m, "content");
			any_call = true;
			sc_buf_printf(&t, "\n- %s", name ? name : "?");
			trace_args(&t, name ? name : "", arg_str(m, "arguments"));
			sc_buf_puts(&t, cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(m, "is_error"))
				    ? " → error: " : " → ");
			trace_result(&t, res);
		}
	}
	if (any_call && last && *last) {
		sc_buf_puts(&t, "\nanswer: ");
		one_line(&t, last, 200);
	}
	if (any_call) {
		size_t n = t.len < max ? t.len : max;
		while (n < t.len && n > 0 && ((unsigned char)t.ptr[n] & 0xC0) == 0x80)
			n--;
		sc_buf_put(out, t.ptr, n);
		if (n < t.len)
			sc_buf_puts(out, "…");
	}
	sc_buf_release(&t);
	cJSON_Delete(a);
}
