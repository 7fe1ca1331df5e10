/* Unit tests for runner/pipeline/evalrun.c: `skillci eval`'s stages called
 * without the command line, in a scratch folder (its skillci.yml is the
 * configuration), with the oracle provider (no network is involved). */
#include "unit.h"
#include "states.h"

#include <math.h>
#include "fake_server.h"
#include "diag.h"
#include "net/http.h"
#include "pipeline/evalrun.h"
#include "results/results.h"
#include "results/store.h"

#include <math.h>
#include <unistd.h>

static const char skill_md[] =
	"---\nname: demo\ndescription: Says hello properly.\n---\n# Demo\n\nSay HELLO-WORLD.\n";
static const char tests_json[] =
	"{\"tests\": ["
	"{\"input\": \"one\", \"expected\": {\"contains\": [\"alpha\"]}},"
	"{\"input\": \"two\", \"expected\": {\"contains\": [\"beta\", \"gamma\"]}}]}";

/* The lines handed over while preparing, joined. */
static void collect(const char *line, void *payload)
{
	struct sc_buf *b = payload;
	sc_buf_printf(b, "%s\n", line);
}

/* A scratch folder with skills/demo (two tests) and skills/bare (none);
 * the test runs inside it (the configuration is the current folder's). */
static char *enter_scratch(char *cwd, size_t n, const char *config)
{
	char *dir = sc_test_mkdtemp();

	sc_test_write(dir, "skills/demo/SKILL.md", skill_md);
	sc_test_write(dir, "skills/demo/skill_meta.json", tests_json);
	sc_test_write(dir, "skills/bare/SKILL.md",
		      "---\nname: bare\ndescription: Has no tests.\n---\n# Bare\n");
	if (config)
		sc_test_write(dir, "skillci.yml", config);
	assert_non_null(getcwd(cwd, n));
	assert_int_equal(chdir(dir), 0);
	return dir;
}

static const struct sc_results_aggregate *agg(const struct sc_results *r, const char *skill,
					      const char *variant)
{
	return sc_results_find_aggregate(r, skill, t_variant(variant), "oracle.self");
}

/* One run through the four stages; returns the units stored after it. */
static int64_t run_stages(const struct sc_evalrun_options *o, size_t want_units, size_t want_reused)
{
	struct sc_evalrun *e = sc_evalrun_new();
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_evalrun_info info;
	struct sc_store *store = NULL;
	struct sc_results *r;
	int infra = -1;
	int64_t count = -1;

	assert_int_equal(sc_evalrun_open(e, o, &d), 0);
	assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 0);
	sc_evalrun_info(e, &info);
	assert_false(info.usage);
	assert_string_equal(info.store_location, "results.db");
	assert_int_equal(sc_store_open(&store, info.store_location), 0);
	assert_int_equal(sc_evalrun_prepare(e, store), 0);
	assert_int_equal(sc_evalrun_evaluate(e), 0);
	assert_int_equal(sc_evalrun_finish(e, &infra), 0);
	assert_int_equal(infra, 0);
	r = sc_evalrun_results(e);
	assert_int_equal(r->run.kind, SC_RUN_KIND_EVAL);
	assert_true(r->run.oracle);
	assert_int_equal(r->nskills, 2);
	assert_int_equal(r->nunits, want_units);
	assert_int_equal(r->totals.reused, want_reused);
	assert_int_equal(r->totals.passed, want_units);
	assert_non_null(agg(r, "skills/demo", "head"));
	assert_null(agg(r, "skills/bare", "head"));  /* no tests: untested */
	for (size_t i = 0; i < r->nskills; i++)
		assert_int_equal(r->skills[i].untested, !strcmp(r->skills[i].path, "skills/bare"));
	assert_int_equal(sc_store_count_units(store, &count), 0);
	sc_evalrun_free(e);
	sc_store_free(store);
	sc_diags_release(&d);
	return count;
}

static void test_stages_evaluate_folders_then_reuse(void **state)
{
	char cwd[4096];
	char *dir = enter_scratch(cwd, sizeof(cwd), "version: 1\nstore: results.db\n");
	const char *dirs[] = { "skills/demo", "skills/bare" };
	const char *models[] = { "oracle.self" };
	struct sc_buf lines = SC_BUF_INIT;
	struct sc_evalrun_options o;
	(void)state;

	memset(&o, 0, sizeof(o));
	o.dirs = dirs;
	o.ndirs = 2;
	o.models = models;
	o.nmodels = 1;
	o.runs = 2;
	o.no_cache = true;
	o.on_line = collect;
	o.payload = &lines;
	/* 2 tests x 2 runs x (with, without the skill) */
	assert_int_equal(run_stages(&o, 8, 0), 8);
	assert_non_null(strstr(lines.ptr, "warning: skills/bare: unverified: no tests (skill_meta.json, "
				   "evals/evals.json, tests/); skillci tests init skills/bare writes a "
				   "starter suite (the format: skillci help tests), or --generate-tests has "));
	assert_null(strstr(lines.ptr, "skills/demo"));
	/* a second run reuses every unit from the store */
	assert_int_equal(run_stages(&o, 8, 8), 8);

	assert_int_equal(chdir(cwd), 0);
	sc_buf_release(&lines);
	free(dir);
}

static void test_config_gives_models_runs_and_baseline(void **state)
{
	char cwd[4096];
	char *dir = enter_scratch(cwd, sizeof(cwd),
				  "version: 1\nmodels: [oracle.self]\nruns: 3\n"
				  "store: results.db\ncache: {mode: off}\n");
	const char *dirs[] = { "skills/demo" };
	struct sc_evalrun *e = sc_evalrun_new();
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_evalrun_info info;
	struct sc_evalrun_options o;
	struct sc_store *store = NULL;
	struct sc_results *r;
	int infra = -1;
	(void)state;

	memset(&o, 0, sizeof(o));
	o.dirs = dirs;
	o.ndirs = 1;
	o.no_baseline = true;
	assert_int_equal(sc_evalrun_open(e, &o, &d), 0);
	sc_evalrun_info(e, &info);
	assert_int_equal(info.nmodels, 1);
	assert_string_equal(info.models[0], "oracle.self");
	assert_int_equal(info.runs, 3);
	assert_false(info.baseline);
	assert_int_equal(sc_store_open(&store, info.store_location), 0);
	assert_int_equal(sc_evalrun_prepare(e, store), 0);
	assert_int_equal(sc_evalrun_evaluate(e), 0);
	assert_int_equal(sc_evalrun_finish(e, &infra), 0);
	r = sc_evalrun_results(e);
	assert_int_equal(r->nunits, 6);  /* 2 tests x 3 runs, with the skill only */
	assert_null(agg(r, "skills/demo", "baseline"));
	assert_int_equal(agg(r, "skills/demo", "head")->n, 6);
	/* cache mode off and no --cache: no cache folder was made */
	assert_int_not_equal(access(".skillci/cache", F_OK), 0);

	sc_evalrun_free(e);
	sc_store_free(store);
	sc_diags_release(&d);
	assert_int_equal(chdir(cwd), 0);
	free(dir);
}

/* Opens with o; expects SC_EINVAL, the usage flag as given, and msg in the error. */
static void open_fails(const struct sc_evalrun_options *o, bool usage, bool config_errors,
		       const char *msg)
{
	struct sc_evalrun *e = sc_evalrun_new();
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_evalrun_info info;

	assert_int_equal(sc_evalrun_open(e, o, &d), SC_EINVAL);
	sc_evalrun_info(e, &info);
	assert_int_equal(info.usage, usage);
	assert_int_equal(info.config_errors, config_errors);
	if (msg && !strstr(sc_error_last(), msg))
		fail_msg("'%s' not in '%s'", msg, sc_error_last());
	if (config_errors)
		assert_true(sc_diags_count(&d, SC_SEV_ERROR) > 0);
	sc_evalrun_free(e);
	sc_diags_release(&d);
}

static void test_bad_usage_and_input(void **state)
{
	char cwd[4096];
	char *dir = enter_scratch(cwd, sizeof(cwd), NULL);
	const char *dirs[] = { "skills/demo" };
	const char *models[] = { "oracle.self" }, *bad[] = { "nosuchprovider.x" };
	struct sc_evalrun_options o;
	(void)state;

	memset(&o, 0, sizeof(o));
	o.dirs = dirs;
	o.ndirs = 1;
	open_fails(&o, true, false, "name at least one model with -m");
	o.models = bad;
	o.nmodels = 1;
	open_fails(&o, true, false, "nosuchprovider");
	o.models = models;
	o.generate_tests = true;
	o.tests_file = "tests.json";
	open_fails(&o, true, false, "--generate-tests and --tests exclude each other");
	o.generate_tests = false;
	o.tests_file = NULL;
	o.offline = true;
	o.no_cache = true;
	open_fails(&o, true, false, "--offline needs the response cache");
	o.offline = o.no_cache = false;
	sc_test_write(".", "skillci.yml", "version: 1\nruns: zero\n");
	open_fails(&o, false, true, "the configuration has errors");

	/* a skill folder that is not there: bad input (exit 2), not "not found" */
	sc_test_write(".", "skillci.yml", "version: 1\nstore: results.db\n");
	{
		const char *missing[] = { "skills/nope" };
		struct sc_evalrun *e = sc_evalrun_new();
		struct sc_diags d = SC_DIAGS_INIT;
		struct sc_store *store = NULL;
		o.dirs = missing;
		o.no_cache = true;
		assert_int_equal(sc_evalrun_open(e, &o, &d), 0);
		assert_int_equal(sc_store_open(&store, "results.db"), 0);
		assert_int_equal(sc_evalrun_prepare(e, store), SC_EINVAL);
		assert_non_null(strstr(sc_error_last(), "skills/nope"));
		sc_evalrun_free(e);
		sc_store_free(store);
		sc_diags_release(&d);
	}
	assert_int_equal(chdir(cwd), 0);
	free(dir);
}

/* Every unit an infrastructure error (the fake answers 500, no retry);
 * finish says exit 3 when that share is over gate.error_share. */
static int infra_rc_at(const struct fake *f, const char *endpoint, const char *error_share)
{
	const char *dirs[] = { "skills/demo" };
	struct sc_buf model = SC_BUF_INIT;
	const char *models[1];
	struct sc_buf yml = SC_BUF_INIT;
	struct sc_evalrun *e = sc_evalrun_new();
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_evalrun_options o;
	struct sc_store *store = NULL;
	struct sc_results *r;
	int infra = -1;

	/* endpoints are named once per process: one name per call */
	sc_buf_printf(&model, "%s.m", endpoint);
	models[0] = model.ptr;
	sc_buf_printf(&yml, "version: 1\nstore: results.db\ngate: {error_share: %s}\n"
		      "providers:\n  %s: {wire: openai, base_url: \"%s/v1\"}\n", error_share,
		      endpoint, f->url);
	sc_test_write(".", "skillci.yml", yml.ptr);
	memset(&o, 0, sizeof(o));
	o.dirs = dirs;
	o.ndirs = 1;
	o.models = models;
	o.nmodels = 1;
	o.no_cache = true;
	o.no_reuse = true;
	o.retries = 0;
	if (sc_evalrun_open(e, &o, &d) != 0)
		fail_msg("open: %s", sc_error_last());
	assert_int_equal(sc_store_open(&store, "results.db"), 0);
	assert_int_equal(sc_evalrun_prepare(e, store), 0);
	assert_int_equal(sc_evalrun_evaluate(e), 0);
	assert_int_equal(sc_evalrun_finish(e, &infra), 0);
	r = sc_evalrun_results(e);
	assert_int_equal(r->totals.units, 4);
	assert_int_equal(r->totals.errors, 4);
	sc_evalrun_free(e);
	sc_store_free(store);
	sc_diags_release(&d);
	sc_buf_release(&yml);
	sc_buf_release(&model);
	return infra;
}

/*
 * The design from the configuration: gate.first_runs 2 and gate.max_runs
 * 4 sample in rounds. The oracle answers every test right with and
 * without the skill: lift 0, and the two tests give too little
 * information for the likelihood ratio .15 (0 - .075) I to reach the
 * lower boundary by 4 runs (I = 14.4, 47.3 at the two looks, L = -0.16,
 * -0.53): the one check (bare has no tests) is unverified at the cap,
 * after 2 rounds of 2 runs per test. The decision goes through the
 * results JSON and back. --runs N, and --no-baseline without the flags,
 * are the fixed design; --no-baseline with --max-runs is bad usage.
 */
static void test_sequential_design(void **state)
{
	char cwd[4096];
	char *dir = enter_scratch(cwd, sizeof(cwd),
				  "version: 1\nmodels: [oracle.self]\nstore: results.db\n"
				  "cache: {mode: off}\ngate: {first_runs: 2, max_runs: 4}\n");
	const char *dirs[] = { "skills/demo", "skills/bare" };
	struct sc_evalrun *e = sc_evalrun_new();
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_evalrun_info info;
	struct sc_evalrun_options o;
	struct sc_store *store = NULL;
	struct sc_results *r, back;
	const struct sc_results_lift *l;
	int infra = -1;
	(void)state;

	memset(&o, 0, sizeof(o));
	o.dirs = dirs;
	o.ndirs = 2;
	assert_int_equal(sc_evalrun_open(e, &o, &d), 0);
	sc_evalrun_info(e, &info);
	assert_true(info.sequential);
	assert_int_equal(info.first_runs, 2);
	assert_int_equal(info.max_runs, 4);
	assert_int_equal(sc_store_open(&store, info.store_location), 0);
	assert_int_equal(sc_evalrun_prepare(e, store), 0);
	sc_evalrun_info(e, &info);
	/* 2 tests x 4 runs x 2 sides, one request each */
	assert_int_equal(info.max_requests, 16);
	assert_int_equal(sc_evalrun_evaluate(e), 0);
	assert_int_equal(sc_evalrun_finish(e, &infra), 0);
	r = sc_evalrun_results(e);
	assert_int_equal(r->nlifts, 1);
	l = &r->lifts[0];
	assert_string_equal(l->skill, "skills/demo");
	assert_string_equal(l->model, "oracle.self");
	assert_int_equal(l->decision, SC_LIFT_UNVERIFIED);
	assert_int_equal(l->stop, SC_STOP_MAX_RUNS);
	assert_int_equal(l->rounds, 2);
	assert_int_equal(l->max_rounds, 2);
	assert_int_equal(l->runs_per_test, 2 * l->rounds);
	assert_int_equal(l->tests, 2);
	assert_int_equal(r->nunits, (size_t)(2 * 2 * l->runs_per_test));
	assert_int_equal(l->skill_runs, 2 * l->runs_per_test);
	assert_int_equal(l->baseline_runs, 2 * l->runs_per_test);
	assert_true(l->lift == 0 && l->lo < 0 && l->hi > 0);
	assert_true(r->run.complete);
	/* through the JSON and back */
	assert_int_equal(sc_results_save(r, "r.json"), 0);
	assert_int_equal(sc_results_load(&back, "r.json"), 0);
	assert_int_equal(back.nlifts, 1);
	assert_int_equal(back.lifts[0].decision, SC_LIFT_UNVERIFIED);
	assert_int_equal(back.lifts[0].stop, l->stop);
	assert_int_equal(back.lifts[0].rounds, l->rounds);
	assert_int_equal(back.lifts[0].first_runs, 2);
	assert_int_equal(back.lifts[0].max_runs, 4);
	/* cJSON prints 15 digits when they read back within an ulp or so */
	assert_true(fabs(back.lifts[0].hi - l->hi) < 1e-12 &&
		    fabs(back.lifts[0].detectable - l->detectable) < 1e-12);
	sc_results_release(&back);
	sc_evalrun_free(e);
	sc_store_free(store);

	/* --runs 2: the fixed design */
	e = sc_evalrun_new();
	o.runs = 2;
	assert_int_equal(sc_evalrun_open(e, &o, &d), 0);
	sc_evalrun_info(e, &info);
	assert_false(info.sequential);
	assert_int_equal(info.runs, 2);
	sc_evalrun_free(e);
	/* --no-baseline with the config's design: fixed, with the skill only */
	e = sc_evalrun_new();
	o.runs = 0;
	o.no_baseline = true;
	assert_int_equal(sc_evalrun_open(e, &o, &d), 0);
	sc_evalrun_info(e, &info);
	assert_false(info.sequential);
	assert_false(info.baseline);
	sc_evalrun_free(e);
	/* --max-runs 200 in rounds of 2 would be 100 looks, over
	 * SC_SEQ_MAX_LOOKS (64): rounds of ceil(200 / 64) */
	e = sc_evalrun_new();
	o.no_baseline = false;
	o.max_runs = 200;
	assert_int_equal(sc_evalrun_open(e, &o, &d), 0);
	sc_evalrun_info(e, &info);
	assert_true(info.sequential);
	assert_int_equal(info.first_runs, 4);
	assert_int_equal(info.max_runs, 200);
	sc_evalrun_free(e);
	o.no_baseline = true;
	/* --no-baseline with --max-runs: nothing to compare */
	o.max_runs = 6;
	open_fails(&o, true, false, "--no-baseline leaves nothing to compare");
	o.no_baseline = false;
	o.runs = 3;
	open_fails(&o, true, false, "--runs N is a fixed design");
	o.runs = 0;
	o.first_runs = 8;
	open_fails(&o, true, false, "--max-runs (6) must be at least --first-runs (8)");

	sc_diags_release(&d);
	assert_int_equal(chdir(cwd), 0);
	free(dir);
}

/*
 * The budget of the design before any request: 24 requests at most (2
 * tests x 6 runs x 2 sides) against budget.max_requests 23 is refused by
 * name.
 */
static void test_sequential_budget(void **state)
{
	char cwd[4096];
	char *dir = enter_scratch(cwd, sizeof(cwd),
				  "version: 1\nmodels: [oracle.self]\nstore: results.db\n"
				  "cache: {mode: off}\ngate: {first_runs: 2, max_runs: 6}\n"
				  "budget: {max_requests: 23}\n");
	const char *dirs[] = { "skills/demo" };
	struct sc_evalrun *e = sc_evalrun_new();
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_evalrun_info info;
	struct sc_evalrun_options o;
	struct sc_store *store = NULL;
	(void)state;

	memset(&o, 0, sizeof(o));
	o.dirs = dirs;
	o.ndirs = 1;
	assert_int_equal(sc_evalrun_open(e, &o, &d), 0);
	sc_evalrun_info(e, &info);
	assert_int_equal(sc_store_open(&store, info.store_location), 0);
	assert_int_equal(sc_evalrun_prepare(e, store), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "the design may make 24 model requests, more than "
				   "the budget's 23 (budget.max_requests)"));
	sc_evalrun_free(e);
	sc_store_free(store);
	sc_diags_release(&d);
	assert_int_equal(chdir(cwd), 0);
	free(dir);
}

static struct fake F;
static char F_cwd[4096];

static void test_error_share_decides_exit_3(void **state)
{
	char *dir;
	(void)state;

	fake_start(&F, "{\"default\":{\"status\":500}}");
	dir = enter_scratch(F_cwd, sizeof(F_cwd), NULL);
	assert_int_equal(infra_rc_at(&F, "lab1", "0.5"), 3);
	assert_int_equal(infra_rc_at(&F, "lab2", "1"), 0);  /* a share of 1 is not over 1 */
	free(dir);
}

/* The fake stops and the folder is restored even when a check failed. */
static int stop_fake(void **state)
{
	(void)state;
	if (F.pid > 0)
		fake_stop(&F);
	return chdir(F_cwd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stages_evaluate_folders_then_reuse),
		cmocka_unit_test(test_config_gives_models_runs_and_baseline),
		cmocka_unit_test(test_bad_usage_and_input),
		cmocka_unit_test(test_sequential_design),
		cmocka_unit_test(test_sequential_budget),
		cmocka_unit_test_teardown(test_error_share_decides_exit_3, stop_fake),
	};
	sc_http_global_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
