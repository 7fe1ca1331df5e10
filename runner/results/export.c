/*
 * export: stored units as chat-format JSONL (export.h).
 */
#include "common.h"
#include "json.h"
#include "diag.h"
#include "results/export.h"
#include "skills/prompt.h"
#include "skills/skill.h"
#include "results/store.h"

#include <cjson/cJSON.h>
#include <math.h>

void sc_export_options_init(struct sc_export_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->min_speedup = NAN;
}

static void add_num_or_null(cJSON *o, const char *k, double v)
{
	if (isnan(v) || isinf(v))
		cJSON_AddNullToObject(o, k);
	else
		cJSON_AddNumberToObject(o, k, v);
}

static void add_str_or_null(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

void sc_export_stats_release(struct sc_export_stats *stats)
{
	sc_strlist_release(&stats->unverified_names);
}

/*
 * An agent run's first transcript entry: its prompt replaces the one
 * rebuilt from the skill (it lists every skill, as sent), and its tools
 * go on the line as the chat format's "tools" (type function).
 */
static void agent_system(cJSON *line, cJSON *msgs, const cJSON *m, const char *rebuilt)
{
	const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
	const cJSON *tools = cJSON_GetObjectItemCaseSensitive(m, "tools"), *t;
	cJSON *first = cJSON_GetArrayItem(msgs, 0), *arr;

	if (rebuilt && first)
		cJSON_DeleteItemFromArray(msgs, 0);
	if (cJSON_IsString(content) && *content->valuestring) {
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "role", "system");
		cJSON_AddStringToObject(s, "content", content->valuestring);
		cJSON_InsertItemInArray(msgs, 0, s);
	}
	if (!cJSON_IsArray(tools))
		return;
	arr = cJSON_AddArrayToObject(line, "tools");
	cJSON_ArrayForEach(t, tools) {
		cJSON *x = cJSON_CreateObject(), *fn = cJSON_AddObjectToObject(x, "function");
		cJSON_AddStringToObject(x, "type", "function");
		cJSON_AddItemToObject(fn, "name", cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(t, "name"), 1));
		cJSON_AddItemToObject(fn, "description",
				      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(t, "description"), 1));
		cJSON_AddItemToObject(fn, "parameters",
				      cJSON_Duplicate(cJSON_GetObjectItemCaseSensitive(t, "parameters"), 1));
		cJSON_AddItemToArray(arr, x);
	}
}

/* An assistant turn's tool calls (an agent run), in the chat format's form. */
static void add_tool_calls(cJSON *c, const cJSON *calls)
{
	const cJSON *call;
	cJSON *arr;

	if (!cJSON_IsArray(calls) || !cJSON_GetArraySize(calls))
		return;
	arr = cJSON_AddArrayToObject(c, "tool_calls");
	cJSON_ArrayForEach(call, calls) {
		const cJSON *id = cJSON_GetObjectItemCaseSensitive(call, "id");
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(call, "name");
		const cJSON *args = cJSON_GetObjectItemCaseSensitive(call, "arguments");
		cJSON *x = cJSON_CreateObject(), *fn;
		cJSON_AddStringToObject(x, "id", cJSON_IsString(id) ? id->valuestring : "");
		cJSON_AddStringToObject(x, "type", "function");
		fn = cJSON_AddObjectToObject(x, "function");
		cJSON_AddStringToObject(fn, "name", cJSON_IsString(name) ? name->valuestring : "");
		cJSON_AddStringToObject(fn, "arguments", cJSON_IsString(args) ? args->valuestring : "{}");
		cJSON_AddItemToArray(arr, x);
	}
}

/*
 * Appends one JSONL line (with its newline) for unit u, counting in
 * *dropped (may be NULL) the turns left out (neither user nor assistant).
 * system is the system prompt to put first, or NULL (then metadata.system
 * says why: "none" for a baseline, "unavailable" otherwise). Returns 0,
 * or SC_EPARSE when the stored transcript is not a JSON list of messages,
 * SC_ENOTFOUND when it has no assistant message.
 */
static int sc_export_unit_line_counted(struct sc_buf *out, const struct sc_store_unit *u,
				       const char *system, size_t *dropped)
{
	cJSON *tr = u->transcript ? cJSON_Parse(u->transcript) : NULL;
	cJSON *line = NULL, *msgs, *meta, *tok;
	const cJSON *m;
	bool answer = false;
	int err = 0;

	if (!cJSON_IsArray(tr)) {
		err = sc_error_set(SC_EPARSE, "unit '%s' of run '%s': the stored transcript is not "
				   "a list of messages", u->test_id, u->run_id ? u->run_id : "?");
		goto done;
	}
	line = cJSON_CreateObject();
	msgs = cJSON_AddArrayToObject(line, "messages");
	if (system) {
		cJSON *s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "role", "system");
		cJSON_AddStringToObject(s, "content", system);
		cJSON_AddItemToArray(msgs, s);
	}
	cJSON_ArrayForEach(m, tr) {
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
		cJSON *c;
		if (!cJSON_IsString(role) || !cJSON_IsString(content)) {
			err = sc_error_set(SC_EPARSE, "unit '%s': a stored message lacks role or "
					   "content", u->test_id);
			goto done;
		}
		if (!strcmp(role->valuestring, "system") && m == tr->child) {
			/* an agent run's own prompt and tools, as they were sent */
			agent_system(line, msgs, m, system);
			continue;
		}
		if (!strcmp(role->valuestring, "tool")) {
			/* an agent run's tool result, in the chat format's form */
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(m, "tool_call_id");
			c = cJSON_CreateObject();
			cJSON_AddStringToObject(c, "role", "tool");
			cJSON_AddStringToObject(c, "tool_call_id", cJSON_IsString(id) ? id->valuestring : "");
			cJSON_AddStringToObject(c, "content", content->valuestring);
			cJSON_AddItemToArray(msgs, c);
			continue;
		}
		/* only the conversation: the system prompt is the one rebuilt above */
		if (strcmp(role->valuestring, "user") && strcmp(role->valuestring, "assistant")) {
			if (dropped)
				(*dropped)++;
			continue;
		}
		answer |= !strcmp(role->valuestring, "assistant");
		c = cJSON_CreateObject();
		cJSON_AddStringToObject(c, "role", role->valuestring);
		cJSON_AddStringToObject(c, "content", content->valuestring);
		add_tool_calls(c, cJSON_GetObjectItemCaseSensitive(m, "tool_calls"));
		cJSON_AddItemToArray(msgs, c);
	}
	if (!answer) {
		err = sc_error_set(SC_ENOTFOUND, "unit '%s' has no answer", u->test_id);
		goto done;
	}
	meta = cJSON_AddObjectToObject(line, "metadata");
	add_str_or_null(meta, "verdict", u->verdict);
	add_str_or_null(meta, "error_class", u->error_class);
	tok = cJSON_AddObjectToObject(meta, "tokens");
	cJSON_AddNumberToObject(tok, "input", (double)u->tokens_in);
	cJSON_AddNumberToObject(tok, "output", (double)u->tokens_out);
	cJSON_AddNumberToObject(meta, "turns", u->turns);
	add_num_or_null(meta, "speedup", u->speedup);
	add_str_or_null(meta, "fixture", u->fixture);
	add_str_or_null(meta, "fixture_hash", u->fixture_hash && *u->fixture_hash ?
			u->fixture_hash : NULL);
	add_str_or_null(meta, "kernel_verdict", u->kernel_verdict);
	add_num_or_null(meta, "max_abs_error", u->max_abs_error);
	add_str_or_null(meta, "skill", u->skill);
	add_str_or_null(meta, "skill_name", u->skill_name);
	add_str_or_null(meta, "skill_hash", u->skill_hash);
	add_str_or_null(meta, "variant", u->variant);
	add_str_or_null(meta, "system", system ? "skill" :
			u->skill_hash && !strcmp(u->skill_hash, SC_STORE_NO_SKILL) ? "none" :
			"unavailable");
	add_str_or_null(meta, "model", u->model);
	add_str_or_null(meta, "test_id", u->test_id);
	add_str_or_null(meta, "test_name", u->test_name);
	add_str_or_null(meta, "test_hash", u->test_hash);
	add_str_or_null(meta, "kind", u->kind);
	cJSON_AddNumberToObject(meta, "run_index", u->run_index);
	add_str_or_null(meta, "run_id", u->run_id);
	add_str_or_null(meta, "prompt_hash", u->prompt_hash);
	add_str_or_null(meta, "harness", u->harness);
	add_num_or_null(meta, "judge_score", u->judge_score);
	cJSON_AddNumberToObject(meta, "latency_ms", (double)u->latency_ms);
	sc_json_print(out, line, false);
	sc_buf_putc(out, '\n');
done:
	cJSON_Delete(tr);
	cJSON_Delete(line);
	return err;
}

/* A skill folder's system prompt, keyed by path and content hash. */
struct sys_entry {
	char *path;
	char *hash;      /* of the folder as it is now; "" when it does not load */
	char *system;    /* NULL when it does not load */
};

struct walk {
	struct sc_store *store;
	struct sc_buf *out;
	const struct sc_export_options *opt;
	struct sc_export_stats *st;
	struct sys_entry *sys;
	size_t nsys, sys_alloc;
};

/* The system prompt for skill path with hash, or NULL when the folder no
 * longer holds that content. Loaded once per path. */
static const char *system_for(struct walk *w, const char *path, const char *hash)
{
	struct sys_entry *e = NULL;

	for (size_t i = 0; i < w->nsys; i++)
		if (!strcmp(w->sys[i].path, path))
			e = &w->sys[i];
	if (!e) {
		struct sc_diags diags = SC_DIAGS_INIT;
		struct sc_skill skill;
		char h[65];

		memset(&skill, 0, sizeof(skill));
		SC_GROW(w->sys, w->sys_alloc, w->nsys + 1);
		e = &w->sys[w->nsys++];
		e->path = sc_xstrdup(path);
		e->hash = sc_xstrdup("");
		e->system = NULL;
		if (sc_skill_load(&skill, path, &diags, 0) == 0 && skill.loaded &&
		    sc_skill_content_hash(h, &skill) == 0) {
			struct sc_buf s = SC_BUF_INIT;
			free(e->hash);
			e->hash = sc_xstrdup(h);
			sc_skill_system_prompt(&s, &skill);
			e->system = sc_buf_detach(&s, NULL);
		}
		sc_error_clear();
		sc_skill_release(&skill);
		sc_diags_release(&diags);
	}
	return e->system && !strcmp(e->hash, hash) ? e->system : NULL;
}

static int on_unit(const struct sc_store_unit *u, void *payload)
{
	struct walk *w = payload;
	const char *system = NULL;
	int err;

	w->st->read++;
	if (sc_store_unit_verify(w->store, u) < 0) {
		/* planted, edited or another runner's: never training data */
		if (w->st->unverified_names.n < SC_EXPORT_MAX_NAMED) {
			struct sc_buf name = SC_BUF_INIT;
			sc_buf_printf(&name, "%s", sc_error_last());
			sc_strlist_add(&w->st->unverified_names, name.ptr);
			sc_buf_release(&name);
		}
		sc_error_clear();
		w->st->unverified++;
		return 0;
	}
	if (!isnan(w->opt->min_speedup) && (isnan(u->speedup) || u->speedup < w->opt->min_speedup)) {
		w->st->below_speedup++;
		return 0;
	}
	if (strcmp(u->skill_hash, SC_STORE_NO_SKILL))
		system = system_for(w, u->skill, u->skill_hash);
	{
		size_t dropped = 0;
		err = sc_export_unit_line_counted(w->out, u, system, &dropped);
		if (err == 0 && dropped) {
			w->st->dropped_turns += dropped;
			w->st->units_dropped_turns++;
		}
	}
	if (err == SC_ENOTFOUND) {
		sc_error_clear();
		w->st->no_answer++;
		return 0;
	}
	if (err < 0)
		return err;
	w->st->written++;
	if (!system && strcmp(u->skill_hash, SC_STORE_NO_SKILL))
		w->st->no_system++;
	if (w->st->read > SC_EXPORT_MAX_UNITS)
		return sc_error_set(SC_ELIMIT, "more than %d units to export; narrow it with "
				    "--skill or --model", SC_EXPORT_MAX_UNITS);
	return 0;
}

int sc_export_jsonl(struct sc_buf *out, struct sc_store *store, const struct sc_export_options *opt,
		    struct sc_export_stats *stats)
{
	struct sc_export_stats local;
	struct sc_store_unit_filter f;
	struct walk w;
	int err;

	memset(&local, 0, sizeof(local));
	memset(&w, 0, sizeof(w));
	w.store = store;
	w.out = out;
	w.opt = opt;
	w.st = stats ? stats : &local;
	memset(w.st, 0, sizeof(*w.st));
	f.skill = opt->skill;
	f.model = opt->model;
	f.run_id = opt->run_id;
	f.passing = opt->passing;
	err = sc_store_each_unit(store, &f, on_unit, &w);
	if (!stats)
		sc_export_stats_release(&local);
	for (size_t i = 0; i < w.nsys; i++) {
		free(w.sys[i].path);
		free(w.sys[i].hash);
		free(w.sys[i].system);
	}
	free(w.sys);
	return err;
}
