/*
 * `skillci tests init`: the teacher writes a starter suite for a skill in
 * the repository's own format, skillci loads it back as any test file and
 * runs it once with and without the skill (testinit.h).
 */
#include "common.h"
#include "eval/eval.h"
#include "skills/skill.h"
#include "skills/testsuite.h"
#include "teacher/generate.h"
#include "teacher/testinit.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>
#include <time.h>

/* The skill's body the teacher sees, at most (bytes). */
#define TASK_BODY_MAX (24 * 1024)
/* A row's test name, at most (bytes). */
#define ROW_NAME_MAX 60

static const struct {
	const char *name, *file;
} formats[] = {
	[SC_TESTINIT_EVALS] = { "evals", "evals/evals.json" },
	[SC_TESTINIT_YAML] = { "yaml", "tests/suite.yaml" },
	[SC_TESTINIT_JSON] = { "json", "tests/suite.json" },
	[SC_TESTINIT_META] = { "skill_meta", "skill_meta.json" },
};

const char *sc_testinit_format_name(enum sc_testinit_format f)
{
	return formats[f].name;
}

const char *sc_testinit_file(enum sc_testinit_format f)
{
	return formats[f].file;
}

int sc_testinit_format_parse(enum sc_testinit_format *out, const char *name)
{
	for (size_t i = 0; i < SC_ARRAY_SIZE(formats); i++)
		if (!strcmp(name, formats[i].name)) {
			*out = (enum sc_testinit_format)i;
			return 0;
		}
	return sc_error_set(SC_EINVAL, "unknown test format '%s': evals (evals/evals.json), yaml "
			    "(tests/suite.yaml), json (tests/suite.json) or skill_meta "
			    "(skill_meta.json)", name);
}

/* ---- the repository's own format ---------------------------------------- */

int sc_testinit_detect(enum sc_testinit_format *out, const char *root, struct sc_buf *why)
{
	struct sc_skill_list list = SC_SKILL_LIST_INIT;
	struct sc_diags diags = SC_DIAGS_INIT;
	size_t count[SC_ARRAY_SIZE(formats)] = { 0 }, best = 0;
	struct sc_buf manifest = SC_BUF_INIT;
	struct stat st;
	int err;

	*out = SC_TESTINIT_EVALS;
	if ((err = sc_skill_discover(&list, root, &diags, SC_SKILL_NO_PARSE)) < 0)
		goto done;
	for (size_t i = 0; i < list.n; i++) {
		const struct sc_skill *s = &list.items[i];
		bool has[SC_ARRAY_SIZE(formats)] = { false };
		for (size_t f = 0; f < s->nfiles; f++) {
			const char *p = s->files[f];
			if (!strcmp(p, "evals/evals.json"))
				has[SC_TESTINIT_EVALS] = true;
			else if (!strcmp(p, "skill_meta.json"))
				has[SC_TESTINIT_META] = true;
			else if (!strncmp(p, "tests/", 6) && !strchr(p + 6, '/') &&
				 (sc_ends_with(p, ".yaml") || sc_ends_with(p, ".yml")))
				has[SC_TESTINIT_YAML] = true;
			else if (!strncmp(p, "tests/", 6) && !strchr(p + 6, '/') &&
				 sc_ends_with(p, ".json"))
				has[SC_TESTINIT_JSON] = true;
		}
		for (size_t f = 0; f < SC_ARRAY_SIZE(formats); f++)
			count[f] += has[f];
	}
	sc_path_join(&manifest, root, SC_TESTS_EVALS_MANIFEST);
	if (stat(manifest.ptr, &st) == 0)
		count[SC_TESTINIT_YAML]++;
	for (size_t f = 0; f < SC_ARRAY_SIZE(formats); f++)
		if (count[f] > best) {
			best = count[f];
			*out = (enum sc_testinit_format)f;
		}
	if (best)
		sc_buf_printf(why, "the repository's own format: %zu skill%s use%s %s", best,
			      best == 1 ? "" : "s", best == 1 ? "s" : "", formats[*out].file);
	else
		sc_buf_printf(why, "no skill of the repository has tests yet: skill-creator's %s, "
			      "the Agent Skills format", formats[*out].file);
done:
	sc_buf_release(&manifest);
	sc_skill_list_release(&list);
	sc_diags_release(&diags);
	return err;
}

/* ---- rendering ------------------------------------------------------------ */

static cJSON *contains_array(const struct sc_strlist *l)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; i < l->n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(l->items[i]));
	return a;
}

/* s as a YAML double-quoted scalar (JSON's string syntax is one). */
static void yaml_str(struct sc_buf *out, const char *s)
{
	cJSON *j = cJSON_CreateString(s);
	char *t = cJSON_PrintUnformatted(j);
	sc_buf_puts(out, t);
	free(t);
	cJSON_Delete(j);
}

static void put_json(struct sc_buf *out, cJSON *root)
{
	char *t = cJSON_Print(root);
	sc_buf_puts(out, t);
	sc_buf_putc(out, '\n');
	free(t);
}

void sc_testinit_render(struct sc_buf *out, enum sc_testinit_format f, const char *skill_name,
			const struct sc_gen_cases *cases, const char *model, const char *task)
{
	cJSON *root, *arr;

	if (f == SC_TESTINIT_META) {
		struct sc_gen_meta m;
		struct sc_buf when = SC_BUF_INIT;
		memset(&m, 0, sizeof(m));
		sc_time_iso8601(&when, (int64_t)time(NULL));
		m.generated_by = model;
		m.generated_at = when.ptr;
		m.source_task = task;
		sc_gen_meta_json(out, &m, cases);
		sc_buf_release(&when);
		return;
	}
	if (f == SC_TESTINIT_YAML) {
		sc_buf_printf(out, "# Starter tests for %s, written by `skillci tests init`%s%s.\n"
			      "# Review them: keep the ones that pass with the skill and fail\n"
			      "# without it. The format: `skillci help tests`.\ncases:\n",
			      skill_name ? skill_name : "the skill", model ? " with " : "",
			      model ? model : "");
		for (size_t i = 0; i < cases->n; i++) {
			const struct sc_gen_case *c = &cases->items[i];
			sc_buf_printf(out, "  - id: t%zu\n    input: ", i + 1);
			yaml_str(out, c->input ? c->input : "");
			sc_buf_putc(out, '\n');
			if (c->fixture) {
				sc_buf_puts(out, "    fixture: ");
				yaml_str(out, c->fixture);
				sc_buf_putc(out, '\n');
			}
			if (c->contains.n) {
				sc_buf_puts(out, "    verifiers:\n      - type: contains\n        values: [");
				for (size_t k = 0; k < c->contains.n; k++) {
					if (k)
						sc_buf_puts(out, ", ");
					yaml_str(out, c->contains.items[k]);
				}
				sc_buf_puts(out, "]\n");
			}
		}
		return;
	}
	root = cJSON_CreateObject();
	if (f == SC_TESTINIT_EVALS) {
		cJSON_AddStringToObject(root, "skill_name", skill_name ? skill_name : "");
		arr = cJSON_AddArrayToObject(root, "evals");
	} else {
		arr = cJSON_AddArrayToObject(root, "cases");
	}
	for (size_t i = 0; i < cases->n; i++) {
		const struct sc_gen_case *c = &cases->items[i];
		cJSON *o = cJSON_CreateObject();
		if (f == SC_TESTINIT_EVALS) {
			cJSON_AddNumberToObject(o, "id", (double)(i + 1));
			cJSON_AddStringToObject(o, "prompt", c->input ? c->input : "");
			if (c->contains.n) {
				cJSON *e = cJSON_AddObjectToObject(o, "expected");
				cJSON_AddItemToObject(e, "contains", contains_array(&c->contains));
			}
		} else {
			char id[32];
			snprintf(id, sizeof(id), "t%zu", i + 1);
			cJSON_AddStringToObject(o, "id", id);
			cJSON_AddStringToObject(o, "input", c->input ? c->input : "");
			if (c->contains.n) {
				cJSON *v = cJSON_AddArrayToObject(o, "verifiers"), *one = cJSON_CreateObject();
				cJSON_AddStringToObject(one, "type", "contains");
				cJSON_AddItemToObject(one, "values", contains_array(&c->contains));
				cJSON_AddItemToArray(v, one);
			}
		}
		if (c->fixture)
			cJSON_AddStringToObject(o, "fixture", c->fixture);
		cJSON_AddItemToArray(arr, o);
	}
	put_json(out, root);
	cJSON_Delete(root);
}

/* ---- the whole of tests init --------------------------------------------- */

void sc_testinit_options_init(struct sc_testinit_options *opt)
{
	memset(opt, 0, sizeof(*opt));
}

void sc_testinit_result_init(struct sc_testinit_result *r)
{
	memset(r, 0, sizeof(*r));
	sc_results_init(&r->results);
}

void sc_testinit_result_release(struct sc_testinit_result *r)
{
	free(r->path);
	free(r->format_why);
	free(r->teacher);
	sc_diags_release(&r->findings);
	sc_results_release(&r->results);
	for (size_t i = 0; i < r->nrows; i++) {
		free(r->rows[i].test_id);
		free(r->rows[i].name);
		free(r->rows[i].model);
		free(r->rows[i].with_skill);
		free(r->rows[i].without_skill);
	}
	free(r->rows);
	memset(r, 0, sizeof(*r));
	sc_results_init(&r->results);
}

static void progress(const struct sc_testinit_options *opt, const char *line)
{
	if (opt->progress)
		opt->progress(line, opt->payload);
}

/* What the teacher is told about the skill: its description and its
 * instructions (capped), and what makes a test worth having. */
static void task_text(struct sc_buf *out, const struct sc_skill *s)
{
	size_t n = s->body ? strlen(s->body) : 0;

	sc_buf_printf(out, "%s\n\nThe skill's instructions (SKILL.md):\n\n",
		      s->description ? s->description : s->name ? s->name : "");
	if (n > TASK_BODY_MAX) {
		n = TASK_BODY_MAX;
		while (n && ((unsigned char)s->body[n] & 0xC0) == 0x80)
			n--;
	}
	if (s->body)
		sc_buf_put(out, s->body, n);
	sc_buf_puts(out, "\n\nWrite tests that an answer following these instructions passes and a "
			 "plausible answer from a model without them fails: check for what this skill "
			 "specifically teaches, not for what any answer says.");
}

/* The verdict of the unit of test_id, model and variant in r, or "none". */
static const struct sc_results_unit *unit_of(const struct sc_results *r, const char *test_id,
					     const char *model, enum sc_variant variant)
{
	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (sc_streq(u->test_id, test_id) && sc_streq(u->model, model) &&
		    u->variant == variant)
			return u;
	}
	return NULL;
}

static char *short_name(const char *input)
{
	size_t n = strcspn(input ? input : "", "\r\n");

	if (n > ROW_NAME_MAX) {
		n = ROW_NAME_MAX;
		while (n && ((unsigned char)input[n] & 0xC0) == 0x80)
			n--;
	}
	return sc_xstrndup(input ? input : "", n);
}

/* Runs the suite (set) once on each student with and without the skill;
 * fills out->results and one row per test and student. */
static int run_once(struct sc_testinit_result *out, const struct sc_testinit_options *opt,
		    const struct sc_skill *skill, const struct sc_test_set *set)
{
	struct sc_eval_options eo;
	struct sc_eval_skill es;
	size_t rows_alloc = 0;
	int err;

	memset(&es, 0, sizeof(es));
	es.path = opt->skill_dir;
	es.variant = SC_VARIANT_HEAD;
	es.skill = skill;
	es.tests = set;
	sc_eval_options_init(&eo);
	eo.models = opt->students;
	eo.nmodels = opt->nstudents;
	eo.runs = 1;
	eo.baseline = true;
	eo.client = opt->client;
	eo.reuse = false;
	eo.max_tokens = opt->max_tokens;
	eo.grader_model = opt->grader;
	progress(opt, "Running the starter tests once with and without the skill...");
	sc_results_release(&out->results);
	if ((err = sc_eval_run(&out->results, &es, 1, &eo)) < 0)
		return err;
	out->ran = true;
	for (size_t t = 0; t < set->n; t++) {
		bool all = true;
		for (size_t m = 0; m < out->results.run.nmodels; m++) {
			const char *model = out->results.run.models[m];
			struct sc_testinit_row *row;
			SC_GROW(out->rows, rows_alloc, out->nrows + 1);
			row = &out->rows[out->nrows++];
			memset(row, 0, sizeof(*row));
			row->test_id = sc_xstrdup(set->items[t].id);
			row->name = short_name(set->items[t].input);
			row->model = sc_xstrdup(model);
			const struct sc_results_unit *with = unit_of(&out->results, row->test_id, model,
								     SC_VARIANT_HEAD);
			const struct sc_results_unit *without = unit_of(&out->results, row->test_id,
									model, SC_VARIANT_BASELINE);
			row->with_skill = sc_xstrdup(with ? sc_unit_verdict_name(with->verdict) : "none");
			row->without_skill = sc_xstrdup(without ? sc_unit_verdict_name(without->verdict)
								: "none");
			row->discriminates = with && without && with->verdict == SC_UNIT_PASS &&
					     without->verdict == SC_UNIT_FAIL;
			all &= row->discriminates;
		}
		out->discriminating += all && out->results.run.nmodels;
	}
	return 0;
}

int sc_testinit(struct sc_testinit_result *out, const struct sc_testinit_options *opt)
{
	struct sc_skill skill;
	struct sc_diags skill_diags = SC_DIAGS_INIT;
	struct sc_gen_options go;
	struct sc_gen_result gen;
	struct sc_test_set all = SC_TEST_SET_INIT, mine = SC_TEST_SET_INIT;
	struct sc_buf why = SC_BUF_INIT, path = SC_BUF_INIT, text = SC_BUF_INIT, task = SC_BUF_INIT;
	struct sc_buf line = SC_BUF_INIT;
	const char *rel;
	struct stat st;
	int err;

	sc_gen_result_init(&gen);
	memset(&skill, 0, sizeof(skill));
	if ((err = sc_skill_load(&skill, opt->skill_dir, &skill_diags, 0)) < 0)
		goto done;
	out->format = opt->format;
	if (opt->format_set)
		sc_buf_puts(&why, "as --format asked");
	else if ((err = sc_testinit_detect(&out->format, opt->repo_root ? opt->repo_root : ".",
					   &why)) < 0)
		goto done;
	out->format_why = sc_buf_detach(&why, NULL);
	rel = sc_testinit_file(out->format);
	sc_path_join(&path, opt->skill_dir, rel);
	out->path = sc_xstrdup(path.ptr);
	if (!opt->force && lstat(path.ptr, &st) == 0) {
		err = sc_error_set(SC_EEXISTS, "'%s' exists; nothing was written (--force writes over "
				   "it)", path.ptr);
		goto done;
	}

	/* the teacher writes the cases */
	sc_gen_options_init(&go);
	go.teacher = opt->teacher;
	go.client = opt->client;
	go.progress = opt->progress;
	go.payload = opt->payload;
	task_text(&task, &skill);
	if ((err = sc_gen_ask_tests(&gen, &go, opt->skill_dir, task.ptr, &out->teacher)) < 0)
		goto done;
	out->written = gen.cases.n;
	sc_testinit_render(&text, out->format, skill.name, &gen.cases, out->teacher,
			   skill.description);
	{
		struct sc_buf parent = SC_BUF_INIT;
		const char *slash = strrchr(path.ptr, '/');
		sc_buf_put(&parent, path.ptr, slash ? (size_t)(slash - path.ptr) : 0);
		err = parent.len ? sc_mkdir_p(parent.ptr) : 0;
		sc_buf_release(&parent);
		if (err < 0)
			goto done;
	}
	if ((err = sc_write_file_atomic(path.ptr, text.ptr, text.len)) < 0)
		goto done;
	sc_buf_printf(&line, "Wrote %zu tests to %s (%s)", gen.cases.n, path.ptr, out->format_why);
	progress(opt, line.ptr);

	/* loaded back and checked as every test file is */
	if ((err = sc_tests_load_skill(&all, opt->skill_dir, &out->findings)) < 0)
		goto done;
	for (size_t i = 0; i < all.n; i++)
		if (sc_streq(all.items[i].source, rel))
			sc_test_set_add_copy(&mine, &all.items[i]);
	out->loaded = mine.n;
	if (opt->no_run || !opt->nstudents || !mine.n)
		goto done;
	err = run_once(out, opt, &skill, &mine);
done:
	sc_test_set_release(&all);
	sc_test_set_release(&mine);
	sc_gen_result_release(&gen);
	sc_skill_release(&skill);
	sc_diags_release(&skill_diags);
	sc_buf_release(&why);
	sc_buf_release(&path);
	sc_buf_release(&text);
	sc_buf_release(&task);
	sc_buf_release(&line);
	return err;
}
