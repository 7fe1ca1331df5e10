/*
 * The teacher side of upskill (generate.h, docs/generate.md): the stages
 * of a generation, staging and validation of each version, test
 * generation, the evaluate/refine loop and saving. Its prompts are in
 * generate_prompts.c, the parsing of the teacher's answers and the files
 * written from them in generate_parse.c, traces and failures in
 * generate_trace.c.
 */
#include "common.h"
#include "diag.h"
#include "escape.h"
#include "json.h"
#include "eval/eval.h"
#include "teacher/generate.h"
#include "teacher/generate_parts.h"
#include "providers/provider.h"
#include "skills/skill.h"
#include "skills/testsuite.h"
#include "results/store.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- lifecycle -------------------------------------------------------------- */

/*
 * upskill's max_refine_attempts counts evaluations, refinements between
 * them: max(1, attempts) evaluations, so one fewer refinement.
 */
int sc_gen_refinements(int max_refine_attempts)
{
	int n = (max_refine_attempts < 1 ? 1 : max_refine_attempts) - 1;

	return n > SC_GEN_MAX_REFINE ? SC_GEN_MAX_REFINE : n;
}

void sc_gen_options_init(struct sc_gen_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->fixtures_dir = "fixtures";
	opt->max_refine = sc_gen_refinements(SC_GEN_ATTEMPTS);
	opt->runs = 1;
}

static void files_release(struct sc_gen_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].content);
	}
	free(f);
}

void sc_gen_draft_release(struct sc_gen_draft *d)
{
	free(d->name);
	free(d->description);
	free(d->body);
	files_release(d->refs, d->nrefs);
	files_release(d->scripts, d->nscripts);
	memset(d, 0, sizeof(*d));
}

void sc_gen_cases_release(struct sc_gen_cases *c)
{
	for (size_t i = 0; i < c->n; i++)
		sc_gen_case_release(&c->items[i]);
	free(c->items);
	memset(c, 0, sizeof(*c));
}

static void attempt_release(struct sc_gen_attempt *a)
{
	for (size_t i = 0; i < a->nscores; i++)
		free(a->scores[i].model);
	free(a->scores);
	memset(a, 0, sizeof(*a));
}

void sc_gen_result_init(struct sc_gen_result *r)
{
	memset(r, 0, sizeof(*r));
	sc_results_init(&r->results);
}

void sc_gen_result_release(struct sc_gen_result *r)
{
	free(r->dir);
	sc_gen_draft_release(&r->skill);
	sc_gen_cases_release(&r->cases);
	for (size_t i = 0; i < r->nattempts; i++)
		attempt_release(&r->attempts[i]);
	free(r->attempts);
	sc_results_release(&r->results);
	sc_gen_result_init(r);
}

bool sc_gen_attempt_better(const struct sc_gen_attempt *a, const struct sc_gen_attempt *b)
{
	double ar = isnan(a->target_rate) ? -1 : a->target_rate;
	double br = isnan(b->target_rate) ? -1 : b->target_rate;

	if (a->beneficial != b->beneficial)
		return a->beneficial;
	return ar > br + 1e-12;
}

static void draft_copy(struct sc_gen_draft *dst, const struct sc_gen_draft *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->name = sc_xstrdup(src->name);
	dst->description = sc_xstrdup(src->description);
	dst->body = sc_xstrdup(src->body);
	for (size_t i = 0; i < src->nrefs; i++) {
		SC_GROW(dst->refs, dst->refs_alloc, dst->nrefs + 1);
		dst->refs[dst->nrefs].name = sc_xstrdup(src->refs[i].name);
		dst->refs[dst->nrefs++].content = sc_xstrdup(src->refs[i].content);
	}
	for (size_t i = 0; i < src->nscripts; i++) {
		SC_GROW(dst->scripts, dst->scripts_alloc, dst->nscripts + 1);
		dst->scripts[dst->nscripts].name = sc_xstrdup(src->scripts[i].name);
		dst->scripts[dst->nscripts++].content = sc_xstrdup(src->scripts[i].content);
	}
}

/* ---- the teacher ------------------------------------------------------------ */

struct gen {
	const struct sc_gen_options *opt;
	struct sc_gen_result *out;
	const char *required_name;    /* basename of -o, or NULL */
	struct sc_strlist known_fixtures;
	char *stage;                  /* scratch folder for staged versions */
	unsigned stage_seq;
	const struct sc_gen_draft *base;  /* --from DIR: its references and scripts */
};

static void progress(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(struct gen *g, const char *fmt, ...)
{
	struct sc_buf line = SC_BUF_INIT;
	va_list ap;

	if (!g->opt->progress)
		return;
	va_start(ap, fmt);
	sc_buf_vprintf(&line, fmt, ap);
	va_end(ap);
	g->opt->progress(line.ptr, g->opt->payload);
	sc_buf_release(&line);
}

struct answer {
	char *text;
	int64_t in, out;
	enum sc_chat_error error_class;
	char *error;
	bool done;
};

static void on_answer(struct sc_chat_response *resp, void *payload)
{
	struct answer *a = payload;

	a->done = true;
	a->in = resp->input_tokens + resp->cache_read_tokens + resp->cache_creation_tokens;
	a->out = resp->output_tokens;
	a->error_class = resp->error_class;
	if (resp->text) {
		a->text = resp->text;
		resp->text = NULL;
	}
	if (resp->error) {
		a->error = resp->error;
		resp->error = NULL;
	}
}

/* One request to the teacher; *text is the answer (caller frees). */
static int ask(struct gen *g, char **text, const char *model, const char *system,
	       const struct sc_chat_message *msgs, size_t n)
{
	struct sc_chat_request req;
	struct answer a;
	int err;

	memset(&req, 0, sizeof(req));
	memset(&a, 0, sizeof(a));
	req.model = model;
	req.system = system;
	req.messages = msgs;
	req.nmessages = n;
	req.max_tokens = g->opt->max_tokens > 0 ? g->opt->max_tokens : SC_GEN_MAX_TOKENS;
	req.temperature = -1;
	req.label = "generate";
	if ((err = sc_client_submit(g->opt->client, &req, on_answer, &a)) < 0)
		return err;
	if ((err = sc_client_run(g->opt->client)) < 0)
		goto done;
	g->out->teacher_requests++;
	g->out->teacher_tokens_in += a.in;
	g->out->teacher_tokens_out += a.out;
	if (!a.done || !a.text) {
		int code = a.error_class == SC_CHAT_AUTH ? SC_EAUTH :
			   a.error_class == SC_CHAT_BAD_REQUEST || a.error_class == SC_CHAT_CONFIG ?
			   SC_EINVAL : SC_ENET;
		err = sc_error_set(code, "model '%s': %s", model,
				   a.error ? a.error : "no answer");
		goto done;
	}
	*text = a.text;
	a.text = NULL;
done:
	free(a.text);
	free(a.error);
	return err;
}

/*
 * Opens (creating it when create is set) the folder name below the folder
 * handle dfd without following a link: a symbolic link where a folder is
 * expected is refused (SC_EUNSAFE), so nothing is written through it.
 * shown names the folder in messages.
 */
static int open_dir_at(int *out, int dfd, const char *name, bool create, const char *shown)
{
	int fd;

	if (create && mkdirat(dfd, name, 0755) < 0 && errno != EEXIST)
		return sc_error_set(SC_EIO, "cannot create '%s': %s", shown, strerror(errno));
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			return sc_error_set(SC_EUNSAFE, "refusing to write through '%s': it is a "
					    "symbolic link or not a folder", shown);
		return sc_error_set(SC_EIO, "cannot open '%s': %s", shown, strerror(errno));
	}
	*out = fd;
	return 0;
}

/*
 * Writes content to rel below the folder handle root (rel passes
 * sc_gen_name_ok, else SC_EUNSAFE), creating folders with mkdirat and
 * never following a link: each folder is opened with O_NOFOLLOW from its
 * parent's handle, the file is written to a fresh temporary name
 * (O_CREAT | O_EXCL | O_NOFOLLOW) and renamed over rel, which replaces a
 * link planted there rather than writing where it points. dir names root
 * in messages.
 */
static int write_rel(int root, const char *dir, const char *rel, const char *content)
{
	struct sc_buf why = SC_BUF_INIT, comp = SC_BUF_INIT, shown = SC_BUF_INIT;
	struct sc_buf tmp = SC_BUF_INIT;
	const char *p = rel, *slash;
	size_t len = strlen(content), done_bytes = 0;
	int dfd = root, fd = -1, err = 0;

	if (!sc_gen_name_ok(rel, &why)) {
		sc_escape_log(&shown, rel);
		err = sc_error_set(SC_EUNSAFE, "refusing to write '%s' in '%s': %s", shown.ptr,
				   dir, why.ptr);
		goto done;
	}
	while ((slash = strchr(p, '/'))) {
		int next;
		sc_buf_clear(&comp);
		sc_buf_put(&comp, p, (size_t)(slash - p));
		sc_buf_clear(&shown);
		sc_buf_printf(&shown, "%s/%.*s", dir, (int)(slash - rel), rel);
		if ((err = open_dir_at(&next, dfd, comp.ptr, true, shown.ptr)) < 0)
			goto done;
		if (dfd != root)
			close(dfd);
		dfd = next;
		p = slash + 1;
	}
	sc_buf_printf(&tmp, ".%s.tmp.%ld", p, (long)getpid());
	fd = openat(dfd, tmp.ptr, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = sc_error_set(SC_EIO, "cannot write '%s/%s': %s", dir, rel, strerror(errno));
		goto done;
	}
	while (done_bytes < len) {
		ssize_t w = write(fd, content + done_bytes, len - done_bytes);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = sc_error_set(SC_EIO, "cannot write '%s/%s': %s", dir, rel,
					   w < 0 ? strerror(errno) : "short write");
			break;
		}
		done_bytes += (size_t)w;
	}
	if (!err && fsync(fd) < 0)
		err = sc_error_set(SC_EIO, "cannot write '%s/%s': %s", dir, rel, strerror(errno));
	close(fd);
	if (!err && renameat(dfd, tmp.ptr, dfd, p) < 0)
		err = sc_error_set(SC_EIO, "cannot write '%s/%s': %s", dir, rel, strerror(errno));
	if (err)
		unlinkat(dfd, tmp.ptr, 0);
done:
	if (dfd != root && dfd >= 0)
		close(dfd);
	sc_buf_release(&why);
	sc_buf_release(&comp);
	sc_buf_release(&shown);
	sc_buf_release(&tmp);
	return err;
}

/*
 * Opens the skill folder dir, creating it and its parents (the user's
 * path), the last part without following a link.
 */
static int open_skill_dir(int *out, const char *dir)
{
	int err;

	if ((err = sc_mkdir_p(dir)) < 0)
		return err;
	return open_dir_at(out, AT_FDCWD, dir, false, dir);
}

/* Writes SKILL.md, references/, scripts/ and skill_meta.json into dir. */
static int write_skill(const char *dir, const struct sc_gen_draft *d,
		       const struct sc_gen_meta *meta, const struct sc_gen_cases *cases)
{
	struct sc_buf b = SC_BUF_INIT, rel = SC_BUF_INIT;
	int root = -1, err;

	if ((err = open_skill_dir(&root, dir)) < 0)
		return err;
	sc_gen_render_skill_md(&b, d);
	if ((err = write_rel(root, dir, "SKILL.md", b.ptr)) < 0)
		goto done;
	for (size_t i = 0; i < d->nrefs; i++) {
		sc_buf_clear(&rel);
		sc_buf_printf(&rel, "references/%s", d->refs[i].name);
		if ((err = write_rel(root, dir, rel.ptr, d->refs[i].content)) < 0)
			goto done;
	}
	for (size_t i = 0; i < d->nscripts; i++) {
		sc_buf_clear(&rel);
		sc_buf_printf(&rel, "scripts/%s", d->scripts[i].name);
		if ((err = write_rel(root, dir, rel.ptr, d->scripts[i].content)) < 0)
			goto done;
	}
	sc_buf_clear(&b);
	sc_gen_meta_json(&b, meta, cases);
	err = write_rel(root, dir, "skill_meta.json", b.ptr);
done:
	close(root);
	sc_buf_release(&b);
	sc_buf_release(&rel);
	return err;
}

/*
 * SC_EEXISTS when dir already holds something (a skill, a file, a link)
 * and the user did not ask to replace it (--force). An empty folder or
 * none at all is fine.
 */
static int check_free(const char *dir, bool force)
{
	struct stat st;
	DIR *d;
	const struct dirent *e;
	bool empty = true;

	if (force || lstat(dir, &st) < 0)
		return 0;
	if (S_ISDIR(st.st_mode) && (d = opendir(dir))) {
		while (empty && (e = readdir(d)))
			empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
		closedir(d);
		if (empty)
			return 0;
	}
	return sc_error_set(SC_EEXISTS, "'%s' already exists%s; --force replaces it, or choose "
			    "another folder with -o", dir,
			    S_ISDIR(st.st_mode) ? " and is not empty" : "");
}

/* A fresh staging folder named after the skill: STAGE/N/NAME. */
static void stage_dir(struct gen *g, struct sc_buf *out, const char *name)
{
	sc_buf_clear(out);
	sc_buf_printf(out, "%s/%u/%s", g->stage, ++g->stage_seq, name);
}

/*
 * Checks a draft the way `skillci validate` does, by writing it to a
 * staging folder and loading it. Returns 0, or SC_EPARSE with the
 * findings (one per line) in problem.
 */
static int validate_draft(struct gen *g, const struct sc_gen_draft *d, struct sc_buf *problem)
{
	struct sc_buf dir = SC_BUF_INIT, why = SC_BUF_INIT, line = SC_BUF_INIT;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_skill skill;
	struct sc_gen_meta meta = { 0 };
	int err;

	memset(&skill, 0, sizeof(skill));
	if (!sc_utf8_check(d->name, strlen(d->name), NULL) || !sc_skill_name_valid(d->name, &why)) {
		sc_buf_printf(problem, "the name '%s' is not valid: %s", d->name,
			      why.len ? why.ptr : "invalid UTF-8");
		err = SC_EPARSE;
		goto done;
	}
	stage_dir(g, &dir, d->name);
	if ((err = write_skill(dir.ptr, d, &meta, NULL)) < 0)
		goto done;
	if ((err = sc_skill_load(&skill, dir.ptr, &diags, 0)) < 0)
		goto done;
	for (size_t i = 0; i < diags.n; i++) {
		const struct sc_diag *f = &diags.items[i];
		if (f->sev != SC_SEV_ERROR)
			continue;
		/* the staging path means nothing to the teacher */
		sc_buf_printf(problem, "%sSKILL.md", problem->len ? "\n" : "");
		if (f->line)
			sc_buf_printf(problem, ":%zu", f->line);
		sc_buf_printf(problem, ": %s", f->message);
		err = SC_EPARSE;
	}
done:
	sc_skill_release(&skill);
	sc_diags_release(&diags);
	sc_buf_release(&dir);
	sc_buf_release(&why);
	sc_buf_release(&line);
	return err;
}

enum want { WANT_SKILL, WANT_TESTS };

/* Parses and checks one answer; 0, SC_EPARSE (problem set) or another error. */
static int accept_answer(struct gen *g, enum want w, const char *answer, void *target,
			 struct sc_buf *problem)
{
	int err;

	if (w == WANT_TESTS) {
		err = sc_gen_parse_cases(target, answer,
					 g->known_fixtures.n ? &g->known_fixtures : NULL);
		if (err == SC_EPARSE)
			sc_buf_puts(problem, sc_error_last());
		return err;
	}
	{
		struct sc_gen_draft *d = target;
		sc_gen_draft_release(d);
		if ((err = sc_gen_parse_skill(d, answer)) < 0) {
			if (err == SC_EPARSE)
				sc_buf_puts(problem, sc_error_last());
			return err;
		}
		if (g->required_name && strcmp(d->name, g->required_name)) {
			free(d->name);
			d->name = sc_xstrdup(g->required_name);
		}
		/* an improved skill keeps the files the teacher did not rewrite */
		for (size_t i = 0; g->base && i < g->base->nrefs; i++) {
			bool have = false;
			for (size_t k = 0; k < d->nrefs; k++)
				have |= !strcmp(d->refs[k].name, g->base->refs[i].name);
			if (!have && d->nrefs < SC_GEN_MAX_REFERENCES) {
				SC_GROW(d->refs, d->refs_alloc, d->nrefs + 1);
				d->refs[d->nrefs].name = sc_xstrdup(g->base->refs[i].name);
				d->refs[d->nrefs++].content = sc_xstrdup(g->base->refs[i].content);
			}
		}
		for (size_t i = 0; g->base && i < g->base->nscripts; i++) {
			SC_GROW(d->scripts, d->scripts_alloc, d->nscripts + 1);
			d->scripts[d->nscripts].name = sc_xstrdup(g->base->scripts[i].name);
			d->scripts[d->nscripts++].content = sc_xstrdup(g->base->scripts[i].content);
		}
		return validate_draft(g, d, problem);
	}
}

/*
 * Asks the teacher for structured output: the prompt, and when the answer
 * cannot be used (it does not parse, or the skill fails validation), once
 * more with the problem. Then a clear SC_EPARSE.
 */
static int teacher_json(struct gen *g, enum want w, const char *model, const char *prompt,
			void *target)
{
	struct sc_chat_message msgs[3];
	struct sc_buf problem = SC_BUF_INIT, retry = SC_BUF_INIT;
	char *first = NULL, *second = NULL;
	const char *system = w == WANT_SKILL ? sc_gen_system_skill : sc_gen_system_tests;
	const char *what = w == WANT_SKILL ? "skill" : "test cases";
	int err;

	msgs[0].role = SC_CHAT_USER;
	msgs[0].content = prompt;
	if ((err = ask(g, &first, model, system, msgs, 1)) < 0)
		goto done;
	err = accept_answer(g, w, first, target, &problem);
	if (err != SC_EPARSE)
		goto done;
	g->out->teacher_retries++;
	progress(g, "  answer not usable (%s); asking again", problem.ptr);
	sc_gen_prompt_retry(&retry, problem.ptr);
	msgs[1].role = SC_CHAT_ASSISTANT;
	msgs[1].content = first;
	msgs[2].role = SC_CHAT_USER;
	msgs[2].content = retry.ptr;
	if ((err = ask(g, &second, model, system, msgs, 3)) < 0)
		goto done;
	sc_buf_clear(&problem);
	err = accept_answer(g, w, second, target, &problem);
	if (err == SC_EPARSE)
		err = sc_error_set(SC_EPARSE, "model '%s' did not return usable %s after one "
				   "retry: %s", model, what, problem.ptr);
done:
	free(first);
	free(second);
	sc_buf_release(&problem);
	sc_buf_release(&retry);
	return err;
}

/* ---- inputs: an existing skill, fixtures ----------------------------------- */

/* Loads the skill folder dir as a draft (references/ and scripts/ files
 * with it) and its tests as cases. */
static int load_existing(struct sc_gen_draft *d, struct sc_gen_cases *cases, const char *dir)
{
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_skill skill;
	struct sc_test_set tests = SC_TEST_SET_INIT;
	struct sc_buf path = SC_BUF_INIT, text = SC_BUF_INIT;
	int err;

	memset(&skill, 0, sizeof(skill));
	memset(d, 0, sizeof(*d));
	if ((err = sc_skill_load(&skill, dir, &diags, 0)) < 0)
		goto done;
	if (!skill.name || !skill.description || !skill.body) {
		err = sc_error_set(SC_EINVAL, "skill '%s' has no name, description or body; "
				   "run 'skillci validate %s'", dir, dir);
		goto done;
	}
	d->name = sc_xstrdup(skill.name);
	d->description = sc_xstrdup(skill.description);
	d->body = sc_xstrdup(skill.body);
	for (size_t i = 0; i < skill.nfiles; i++) {
		const char *f = skill.files[i];
		bool ref = sc_starts_with(f, "references/"), scr = sc_starts_with(f, "scripts/");
		if (!ref && !scr)
			continue;
		sc_buf_clear(&path);
		sc_buf_clear(&text);
		sc_path_join(&path, dir, f);
		if ((err = sc_read_file(&text, path.ptr, SC_GEN_MAX_FILE_BYTES)) < 0)
			goto done;
		if (ref && d->nrefs < SC_GEN_MAX_REFERENCES) {
			SC_GROW(d->refs, d->refs_alloc, d->nrefs + 1);
			d->refs[d->nrefs].name = sc_xstrdup(f + strlen("references/"));
			d->refs[d->nrefs++].content = sc_xstrdup(text.ptr);
		} else if (scr) {
			SC_GROW(d->scripts, d->scripts_alloc, d->nscripts + 1);
			d->scripts[d->nscripts].name = sc_xstrdup(f + strlen("scripts/"));
			d->scripts[d->nscripts++].content = sc_xstrdup(text.ptr);
		}
	}
	if ((err = sc_tests_load_skill(&tests, dir, &diags)) < 0)
		goto done;
	for (size_t i = 0; i < tests.n && cases->n < SC_GEN_MAX_CASES; i++) {
		const struct sc_test *t = &tests.items[i];
		struct sc_gen_case c;
		if (!t->fixture && !t->contains.n)
			continue;
		memset(&c, 0, sizeof(c));
		c.input = t->input ? sc_xstrdup(t->input) : NULL;
		c.fixture = t->fixture ? sc_xstrdup(t->fixture) : NULL;
		for (size_t k = 0; k < t->contains.n; k++)
			sc_strlist_add(&c.contains, t->contains.items[k]);
		SC_GROW(cases->items, cases->alloc, cases->n + 1);
		cases->items[cases->n++] = c;
	}
done:
	sc_test_set_release(&tests);
	sc_skill_release(&skill);
	sc_diags_release(&diags);
	sc_buf_release(&path);
	sc_buf_release(&text);
	return err;
}

/* The first non-empty line of fixtures/NAME/prompt.md without '#' marks. */
static void fixture_title(struct sc_buf *out, const char *fixtures_dir, const char *name)
{
	struct sc_buf path = SC_BUF_INIT, text = SC_BUF_INIT;

	sc_buf_printf(&path, "%s/%s/prompt.md", fixtures_dir, name);
	if (sc_read_file(&text, path.ptr, SC_MAX_FILE_BYTES) == 0) {
		const char *p = text.ptr;
		while (*p == '\n' || *p == '#' || *p == ' ')
			p++;
		sc_buf_put(out, p, strcspn(p, "\n"));
	}
	sc_error_clear();
	sc_buf_release(&path);
	sc_buf_release(&text);
}

/*
 * The fixtures the teacher may pick (every folder of fixtures_dir with a
 * spec.json), as names and "NAME: title" lines; a missing folder is none.
 */
static void list_fixtures(struct gen *g, struct sc_strlist *lines)
{
	struct sc_buf p = SC_BUF_INIT, line = SC_BUF_INIT;
	struct sc_strlist names = { 0 };
	DIR *dir;
	struct dirent *e;

	dir = opendir(g->opt->fixtures_dir);
	if (!dir)
		return;
	while ((e = readdir(dir)) != NULL) {
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		sc_buf_clear(&p);
		sc_buf_printf(&p, "%s/%s/spec.json", g->opt->fixtures_dir, e->d_name);
		if (stat(p.ptr, &st) == 0 && S_ISREG(st.st_mode))
			sc_strlist_add(&names, e->d_name);
	}
	closedir(dir);
	sc_strlist_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		sc_strlist_add(&g->known_fixtures, names.items[i]);
		sc_buf_clear(&line);
		sc_buf_printf(&line, "%s: ", names.items[i]);
		fixture_title(&line, g->opt->fixtures_dir, names.items[i]);
		sc_strlist_add(lines, line.ptr);
	}
	sc_strlist_release(&names);
	sc_buf_release(&p);
	sc_buf_release(&line);
}

/* Reads fixtures_dir/NAME/prompt.md, the input of a kernel test. */
static int fixture_prompt(struct sc_buf *out, const char *fixtures_dir, const char *name)
{
	struct sc_buf path = SC_BUF_INIT;
	int err;

	sc_buf_printf(&path, "%s/%s/prompt.md", fixtures_dir, name);
	err = sc_read_file(out, path.ptr, SC_MAX_CONTEXT_FILE_BYTES);
	if (err == SC_ENOTFOUND)
		err = sc_error_set(SC_EINVAL, "no fixture '%s' in '%s' (no prompt.md)", name,
				   fixtures_dir);
	sc_buf_release(&path);
	return err;
}

/*
 * Kernel tests: with --fixture, exactly the forced fixtures (the
 * teacher's picks are dropped); otherwise the teacher's picks. Each gets
 * its fixture's prompt as input.
 */
static int settle_fixtures(struct gen *g, struct sc_gen_cases *cases)
{
	const struct sc_gen_options *opt = g->opt;
	struct sc_buf text = SC_BUF_INIT;
	int err = 0;

	if (opt->nfixtures) {
		size_t k = 0;
		for (size_t i = 0; i < cases->n; i++) {
			if (cases->items[i].fixture)
				sc_gen_case_release(&cases->items[i]);
			else
				cases->items[k++] = cases->items[i];
		}
		cases->n = k;
		for (size_t i = 0; i < opt->nfixtures; i++) {
			struct sc_gen_case c;
			memset(&c, 0, sizeof(c));
			c.fixture = sc_xstrdup(opt->fixtures[i]);
			SC_GROW(cases->items, cases->alloc, cases->n + 1);
			cases->items[cases->n++] = c;
		}
	}
	for (size_t i = 0; i < cases->n; i++) {
		struct sc_gen_case *c = &cases->items[i];
		if (!c->fixture || (c->input && *c->input))
			continue;
		sc_buf_clear(&text);
		if ((err = fixture_prompt(&text, opt->fixtures_dir, c->fixture)) < 0)
			break;
		free(c->input);
		c->input = sc_xstrdup(text.ptr);
	}
	sc_buf_release(&text);
	return err;
}

/* ---- evaluation ------------------------------------------------------------- */

/* Tokens of the non-error units of (variant, model). */
static int64_t tokens_of(const struct sc_results *r, enum sc_variant variant, const char *model)
{
	int64_t t = 0;

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (u->variant == variant && !strcmp(u->model, model) &&
		    u->verdict != SC_UNIT_ERROR)
			t += u->tokens_in + u->tokens_out;
	}
	return t;
}

/* The models to evaluate: the teacher, then each student not already named. */
static void eval_models(const struct sc_gen_options *opt, struct sc_strlist *out)
{
	const char *all[1 + 256];
	size_t n = 0;

	all[n++] = opt->teacher;
	for (size_t i = 0; i < opt->nstudents && n < SC_ARRAY_SIZE(all); i++)
		all[n++] = opt->students[i];
	for (size_t i = 0; i < n; i++) {
		struct sc_model m;
		if (sc_model_parse(&m, all[i]) < 0) {
			sc_error_clear();
			continue;
		}
		if (!sc_strlist_has(out, m.name))
			sc_strlist_add(out, m.name);
		sc_model_release(&m);
	}
}

/*
 * Stages version d with the tests, loads it as skillci would, and
 * evaluates it with and without the skill on every model. Fills att and
 * res (initialised here); tests receives the loaded tests.
 */
static int evaluate(struct gen *g, const struct sc_gen_draft *d, const struct sc_gen_meta *meta,
		    struct sc_gen_attempt *att, struct sc_results *res, struct sc_test_set *tests)
{
	const struct sc_gen_options *opt = g->opt;
	struct sc_buf dir = SC_BUF_INIT;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_skill skill;
	struct sc_strlist models = { 0 };
	struct sc_eval_options eo;
	struct sc_eval_skill es;
	size_t ntargets = 0;
	double sum = 0;
	int err;

	memset(&skill, 0, sizeof(skill));
	memset(att, 0, sizeof(*att));
	sc_results_init(res);
	stage_dir(g, &dir, d->name);
	if ((err = write_skill(dir.ptr, d, meta, &g->out->cases)) < 0)
		goto done;
	if ((err = sc_skill_load(&skill, dir.ptr, &diags, 0)) < 0 ||
	    (err = sc_tests_load_skill(tests, dir.ptr, &diags)) < 0)
		goto done;
	if (sc_diags_count(&diags, SC_SEV_ERROR)) {
		struct sc_buf line = SC_BUF_INIT;
		for (size_t i = 0; i < diags.n && !line.len; i++)
			if (diags.items[i].sev == SC_SEV_ERROR)
				sc_buf_puts(&line, diags.items[i].message);
		err = sc_error_set(SC_EINVAL, "the generated skill or its tests do not load: %s",
				   line.ptr);
		sc_buf_release(&line);
		goto done;
	}
	eval_models(opt, &models);
	sc_eval_options_init(&eo);
	eo.models = (const char *const *)models.items;
	eo.nmodels = models.n;
	eo.runs = opt->runs > 0 ? opt->runs : 1;
	eo.baseline = true;
	eo.client = opt->client;
	eo.store = opt->store;
	eo.reuse = true;
	eo.kernel = opt->kernel;
	eo.kernel_jobs = opt->kernel_jobs > 0 ? opt->kernel_jobs : 1;
	eo.kind = SC_RUN_KIND_GENERATE;
	memset(&es, 0, sizeof(es));
	es.path = g->out->dir;
	es.variant = SC_VARIANT_HEAD;
	es.skill = &skill;
	es.tests = tests;
	if ((err = sc_eval_run(res, &es, 1, &eo)) < 0)
		goto done;
	att->scores = sc_xcalloc(models.n, sizeof(*att->scores));
	att->nscores = models.n;
	att->beneficial = true;
	for (size_t m = 0; m < models.n; m++) {
		struct sc_gen_score *s = &att->scores[m];
		const char *name = models.items[m];
		const struct sc_results_aggregate *b = sc_results_find_aggregate(res, es.path,
										 SC_VARIANT_BASELINE, name);
		const struct sc_results_aggregate *h = sc_results_find_aggregate(res, es.path,
										 SC_VARIANT_HEAD, name);
		const struct sc_results_comparison *c = sc_results_find_comparison(res, es.path,
						name, SC_VARIANT_BASELINE, SC_VARIANT_HEAD);
		bool target = opt->nstudents ? m > 0 || models.n == 1 : true;
		s->model = sc_xstrdup(name);
		s->baseline_rate = b ? b->pass_rate : NAN;
		s->skill_rate = h ? h->pass_rate : NAN;
		s->lift = c ? c->skill_lift : NAN;
		s->is_beneficial = c ? c->is_beneficial : -1;
		s->baseline_tokens = tokens_of(res, SC_VARIANT_BASELINE, name);
		s->skill_tokens = tokens_of(res, SC_VARIANT_HEAD, name);
		if (!target)
			continue;
		ntargets++;
		sum += isnan(s->skill_rate) ? 0 : s->skill_rate;
		if (s->is_beneficial != 1)
			att->beneficial = false;
	}
	att->target_rate = ntargets ? sum / (double)ntargets : NAN;
	if (!ntargets)
		att->beneficial = false;
done:
	sc_strlist_release(&models);
	sc_skill_release(&skill);
	sc_diags_release(&diags);
	sc_buf_release(&dir);
	return err;
}

/* "20% -> 90% (+70%)" as upskill prints an attempt. */
static void rate_line(struct sc_buf *out, const struct sc_gen_score *s)
{
	double lift = isnan(s->lift) ? 0 : s->lift;

	sc_buf_printf(out, "%.0f%% -> %.0f%% (%s%.0f%%)",
		      isnan(s->baseline_rate) ? 0 : s->baseline_rate * 100,
		      isnan(s->skill_rate) ? 0 : s->skill_rate * 100, lift > 0 ? "+" : "",
		      lift * 100);
}

/* ---- the whole command ------------------------------------------------------ */

/* The text of --from FILE for the teacher. */
static int read_trace(struct sc_buf *out, const char *path)
{
	struct sc_buf raw = SC_BUF_INIT;
	int err;

	err = sc_read_file(&raw, path, SC_GEN_MAX_TRACE_BYTES);
	if (err == SC_ELIMIT)
		err = sc_error_set(SC_EINVAL, "trace '%s' is larger than %d bytes", path,
				   SC_GEN_MAX_TRACE_BYTES);
	else if (err == SC_ENOTFOUND)
		err = sc_error_set(SC_EINVAL, "no trace or skill folder '%s'", path);
	if (err == 0)
		err = sc_gen_trace_text(out, raw.ptr, raw.len, path, SC_GEN_TRACE_PROMPT_BYTES);
	sc_buf_release(&raw);
	return err;
}

/* Last path component of p (trailing slashes ignored), into out. */
static void base_name(struct sc_buf *out, const char *p)
{
	size_t n = strlen(p);
	const char *s;

	while (n > 1 && p[n - 1] == '/')
		n--;
	s = p + n;
	while (s > p && s[-1] != '/')
		s--;
	sc_buf_put(out, s, (size_t)(p + n - s));
}

/* Writes cases as the "tests" of dir/skill_meta.json, keeping the rest of an existing file. */
static int save_tests(const char *dir, const struct sc_gen_cases *cases, const char *model,
		      const char *task)
{
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT, gen = SC_BUF_INIT, when = SC_BUF_INIT;
	cJSON *root = NULL, *fresh = NULL;
	struct sc_gen_meta meta;
	int err;

	sc_path_join(&path, dir, "skill_meta.json");
	memset(&meta, 0, sizeof(meta));
	sc_time_iso8601(&when, (int64_t)time(NULL));
	meta.generated_by = model;
	meta.generated_at = when.ptr;
	meta.source_task = task;
	sc_gen_meta_json(&gen, &meta, cases);
	err = sc_read_file(&data, path.ptr, SC_MAX_JSON_BYTES);
	if (err == SC_ENOTFOUND) {
		sc_error_clear();
		err = sc_write_file_atomic(path.ptr, gen.ptr, gen.len);
		goto done;
	}
	if (err < 0)
		goto done;
	root = cJSON_ParseWithLength(data.ptr, data.len);
	fresh = cJSON_Parse(gen.ptr);
	if (!cJSON_IsObject(root)) {
		err = sc_error_set(SC_EINVAL, "'%s' is not a JSON object; the generated tests were not "
				   "saved (fix or remove it)", path.ptr);
		goto done;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(root, "tests");
	cJSON_AddItemToObject(root, "tests", cJSON_DetachItemFromObjectCaseSensitive(fresh, "tests"));
	sc_buf_clear(&data);
	sc_gen_py_json(&data, root, 0);
	sc_buf_putc(&data, '\n');
	err = sc_write_file_atomic(path.ptr, data.ptr, data.len);
done:
	cJSON_Delete(root);
	cJSON_Delete(fresh);
	sc_buf_release(&path);
	sc_buf_release(&data);
	sc_buf_release(&gen);
	sc_buf_release(&when);
	return err;
}

int sc_gen_ask_tests(struct sc_gen_result *out, const struct sc_gen_options *opt,
		     const char *what, const char *task, char **model_name)
{
	struct gen g;
	struct sc_strlist fixture_lines = { 0 };
	struct sc_buf prompt = SC_BUF_INIT;
	struct sc_model tm;
	const char *model = opt->test_gen_model ? opt->test_gen_model : opt->teacher;
	int err;

	memset(&g, 0, sizeof(g));
	g.opt = opt;
	g.out = out;
	if (!model || (err = sc_model_parse(&tm, model)) < 0)
		return model ? err : sc_error_set(SC_EINVAL, "no model to write tests with");
	if (!task || !*task) {
		sc_model_release(&tm);
		return sc_error_set(SC_EINVAL, "skill '%s' has no description to write tests from",
				    what);
	}
	list_fixtures(&g, &fixture_lines);
	progress(&g, "Generating test cases for %s with %s...", what, tm.name);
	sc_gen_prompt_tests(&prompt, task, &fixture_lines);
	if ((err = teacher_json(&g, WANT_TESTS, model, prompt.ptr, &out->cases)) < 0)
		goto done;
	err = settle_fixtures(&g, &out->cases);
	if (err == 0 && model_name)
		*model_name = sc_xstrdup(tm.name);
done:
	sc_strlist_release(&g.known_fixtures);
	sc_strlist_release(&fixture_lines);
	sc_buf_release(&prompt);
	sc_model_release(&tm);
	return err;
}

int sc_gen_tests_for_skill(struct sc_gen_result *out, const struct sc_gen_options *opt,
			   const char *skill_dir, const char *task)
{
	char *model = NULL;
	int err;

	sc_gen_result_init(out);
	out->dir = sc_xstrdup(skill_dir);
	if ((err = sc_gen_ask_tests(out, opt, skill_dir, task, &model)) < 0)
		goto done;
	if ((err = save_tests(skill_dir, &out->cases, model, task)) < 0)
		goto done;
	if (opt->progress) {
		struct sc_buf line = SC_BUF_INIT;
		sc_buf_printf(&line, "Generated %zu test cases; saved in %s/skill_meta.json",
			      out->cases.n, skill_dir);
		opt->progress(line.ptr, opt->payload);
		sc_buf_release(&line);
	}
done:
	free(model);
	return err;
}

int sc_generate(struct sc_gen_result *out, const struct sc_gen_options *opt)
{
	struct gen g;
	struct sc_gen_draft existing, cur, next;
	struct sc_gen_cases old_cases = { 0 };
	struct sc_buf prompt = SC_BUF_INIT, trace = SC_BUF_INIT, req = SC_BUF_INIT;
	struct sc_buf when = SC_BUF_INIT, tmp = SC_BUF_INIT, src = SC_BUF_INIT;
	struct sc_strlist fixture_lines = { 0 };
	struct sc_model teacher;
	struct sc_gen_meta meta;
	bool from_dir = false;
	int err;

	sc_gen_result_init(out);
	memset(&g, 0, sizeof(g));
	memset(&existing, 0, sizeof(existing));
	memset(&cur, 0, sizeof(cur));
	memset(&next, 0, sizeof(next));
	memset(&teacher, 0, sizeof(teacher));
	g.opt = opt;
	g.out = out;
	if (!opt->task || !*opt->task)
		return sc_error_set(SC_EINVAL, "name the task to write a skill for");
	if ((err = sc_model_parse(&teacher, opt->teacher)) < 0)
		return err;
	if (!opt->no_eval && !opt->store) {
		err = sc_error_set(SC_EINVAL, "evaluation needs a results store");
		goto done;
	}
	if (opt->out_dir) {
		base_name(&req, opt->out_dir);
		if (!sc_skill_name_valid(req.ptr, &tmp)) {
			err = sc_error_set(SC_EINVAL, "output folder '%s' cannot hold a skill: its "
					   "name '%s' %s", opt->out_dir, req.ptr, tmp.ptr);
			goto done;
		}
		g.required_name = req.ptr;
		/* before anything is asked: the teacher's time is not wasted */
		if ((err = check_free(opt->out_dir, opt->force)) < 0)
			goto done;
	}
	{
		const char *tdir = getenv("TMPDIR");
		sc_buf_clear(&tmp);
		sc_buf_printf(&tmp, "%s/skillci-generate.XXXXXX", tdir && *tdir ? tdir : "/tmp");
		if (!mkdtemp(tmp.ptr)) {
			err = sc_error_set(SC_EIO, "cannot create a staging folder in '%s': %s",
					   tdir && *tdir ? tdir : "/tmp", strerror(errno));
			goto done;
		}
		g.stage = sc_xstrdup(tmp.ptr);
	}
	if (opt->from) {
		struct stat st;
		if (stat(opt->from, &st) == 0 && S_ISDIR(st.st_mode)) {
			from_dir = true;
			if ((err = load_existing(&existing, &old_cases, opt->from)) < 0) {
				if (err == SC_ENOTFOUND)
					err = sc_error_set(SC_EINVAL, "'%s' holds no SKILL.md",
							   opt->from);
				goto done;
			}
			g.base = &existing;
		} else if ((err = read_trace(&trace, opt->from)) < 0) {
			goto done;
		}
	}

	/* the skill */
	sc_buf_clear(&prompt);
	if (from_dir) {
		progress(&g, "Improving %s with %s...", existing.name, teacher.name);
		sc_gen_prompt_improve(&prompt, &existing, opt->task, g.required_name);
	} else {
		progress(&g, "Generating skill with %s...", teacher.name);
		sc_gen_prompt_skill(&prompt, opt->task, opt->examples, opt->nexamples,
				    opt->from ? trace.ptr : NULL, g.required_name);
	}
	if ((err = teacher_json(&g, WANT_SKILL, opt->teacher, prompt.ptr, &cur)) < 0)
		goto done;
	if (!opt->out_dir) {
		sc_buf_clear(&tmp);
		sc_path_join(&tmp, opt->skills_dir ? opt->skills_dir : "skills", cur.name);
		out->dir = sc_xstrdup(tmp.ptr);
		/* the teacher's name picks the folder: never over another skill */
		if ((err = check_free(out->dir, opt->force)) < 0)
			goto done;
		/* refinements keep the name, so the folder stays right */
		sc_buf_sets(&req, cur.name);
		g.required_name = req.ptr;
	} else {
		out->dir = sc_xstrdup(opt->out_dir);
	}

	/* the tests */
	if (from_dir && old_cases.n) {
		out->cases = old_cases;
		memset(&old_cases, 0, sizeof(old_cases));
		progress(&g, "Using the %zu tests of %s", out->cases.n, opt->from);
	} else if (!opt->no_eval) {
		const char *tg = opt->test_gen_model ? opt->test_gen_model : opt->teacher;
		if (!opt->nfixtures)
			list_fixtures(&g, &fixture_lines);
		progress(&g, "Generating test cases...");
		sc_buf_clear(&prompt);
		sc_gen_prompt_tests(&prompt, opt->task, &fixture_lines);
		if ((err = teacher_json(&g, WANT_TESTS, tg, prompt.ptr, &out->cases)) < 0)
			goto done;
		progress(&g, "Generated %zu test cases", out->cases.n);
	}
	if ((err = settle_fixtures(&g, &out->cases)) < 0)
		goto done;

	sc_time_iso8601(&when, opt->now ? opt->now : (int64_t)time(NULL));
	memset(&meta, 0, sizeof(meta));
	meta.generated_by = teacher.name;
	meta.generated_at = when.ptr;
	meta.source_task = opt->task;
	if (from_dir) {
		sc_buf_printf(&src, "Improved from %s: %s", existing.name, opt->task);
		meta.source_task = src.ptr;
	}

	if (!opt->no_eval && out->cases.n) {
		int limit = opt->max_refine < 0 ? 0 : opt->max_refine;
		struct sc_strlist names = { 0 };
		eval_models(opt, &names);
		for (int attempt = 0;; attempt++) {
			struct sc_gen_attempt att;
			struct sc_results res;
			struct sc_test_set tests = SC_TEST_SET_INIT;
			struct sc_buf line = SC_BUF_INIT;
			struct sc_strlist failures = { 0 };
			bool best;

			sc_buf_clear(&tmp);
			for (size_t i = 0; i < names.n; i++)
				sc_buf_printf(&tmp, "%s%s", i ? ", " : "", names.items[i]);
			progress(&g, "Evaluating on %s... (attempt %d)", tmp.ptr, attempt + 1);
			err = evaluate(&g, &cur, &meta, &att, &res, &tests);
			if (err < 0) {
				attempt_release(&att);
				sc_results_release(&res);
				sc_test_set_release(&tests);
				break;
			}
			out->evaluated = true;
			for (size_t m = 0; m < att.nscores; m++) {
				sc_buf_clear(&line);
				rate_line(&line, &att.scores[m]);
				progress(&g, "  %s: %s%s", att.scores[m].model, line.ptr,
					 att.scores[m].is_beneficial == 1 ? " OK" : " not good enough");
			}
			/* the failures, while res is still this version's */
			for (size_t m = 0; m < att.nscores; m++) {
				bool target = opt->nstudents ? m > 0 || att.nscores == 1 : true;
				if (target && att.scores[m].is_beneficial != 1)
					sc_gen_failures(&failures, &res, att.scores[m].model, &tests);
			}
			best = out->nattempts == 0 ||
			       sc_gen_attempt_better(&att, &out->attempts[out->kept]);
			out->attempts = sc_xrealloc(out->attempts,
						    (out->nattempts + 1) * sizeof(*out->attempts));
			out->attempts[out->nattempts++] = att;
			if (best) {
				out->kept = out->nattempts - 1;
				sc_gen_draft_release(&out->skill);
				draft_copy(&out->skill, &cur);
				sc_results_release(&out->results);
				out->results = res;
				sc_results_init(&res);
			}
			if (att.beneficial || attempt >= limit) {
				sc_strlist_release(&failures);
				if (!att.beneficial)
					progress(&g, "  stopping after %d refinement%s", attempt,
						 attempt == 1 ? "" : "s");
				if (out->kept != out->nattempts - 1)
					progress(&g, "  keeping version %zu, the best", out->kept + 1);
				sc_results_release(&res);
				sc_test_set_release(&tests);
				sc_buf_release(&line);
				break;
			}
			if (!failures.n)
				sc_strlist_add(&failures, "The skill gave no lift over no skill on these "
					       "tests; make it more specific and actionable.");
			progress(&g, "Refining...");
			sc_buf_clear(&prompt);
			sc_gen_prompt_refine(&prompt, &cur, &failures,
					     g.required_name ? g.required_name : cur.name);
			sc_strlist_release(&failures);
			sc_results_release(&res);
			sc_test_set_release(&tests);
			sc_buf_release(&line);
			err = teacher_json(&g, WANT_SKILL, opt->teacher, prompt.ptr, &next);
			if (err < 0)
				break;
			sc_gen_draft_release(&cur);
			cur = next;
			memset(&next, 0, sizeof(next));
		}
		sc_strlist_release(&names);
		if (err < 0)
			goto done;
		{
			const struct sc_gen_attempt *k = &out->attempts[out->kept];
			meta.has_test_pass_rate = k->nscores > 0 && !isnan(k->scores[0].skill_rate);
			meta.test_pass_rate = meta.has_test_pass_rate ? k->scores[0].skill_rate : NAN;
		}
	} else {
		draft_copy(&out->skill, &cur);
	}

	/* checked again: the folder may have appeared while the teacher worked */
	if ((err = check_free(out->dir, opt->force)) < 0 ||
	    (err = write_skill(out->dir, &out->skill, &meta, &out->cases)) < 0)
		goto done;
done:
	if (g.stage)
		sc_rm_rf(g.stage);
	free(g.stage);
	sc_strlist_release(&g.known_fixtures);
	sc_strlist_release(&fixture_lines);
	sc_gen_draft_release(&existing);
	sc_gen_draft_release(&cur);
	sc_gen_draft_release(&next);
	sc_gen_cases_release(&old_cases);
	sc_model_release(&teacher);
	sc_buf_release(&prompt);
	sc_buf_release(&trace);
	sc_buf_release(&req);
	sc_buf_release(&when);
	sc_buf_release(&tmp);
	sc_buf_release(&src);
	return err;
}
