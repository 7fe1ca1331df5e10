/* Unit tests for runner/eval/eval.c: prompts, answer checks, aggregation of
 * hand-built units, reuse through the store, and the multi-turn kernel
 * loop with a test double for the kernel harness (oracle provider, so no
 * network is involved). */
#include "unit.h"
#include "states.h"
#include "eval/eval.h"
#include "providers/provider.h"
#include "results/results.h"
#include "skills/prompt.h"
#include "skills/skill.h"
#include "stats.h"
#include "results/store.h"
#include "skills/testsuite.h"
#include "diag.h"
#include "net/http.h"
#include "sha256.h"

#include <math.h>

#define assert_close(a, b, tol) \
	do { \
		double a_ = (a), b_ = (b); \
		if (!(fabs(a_ - b_) <= (tol))) \
			fail_msg("%.17g != %.17g", a_, b_); \
	} while (0)

static const char skill_md[] =
	"---\nname: demo\ndescription: Says hello properly.\n---\n# Demo\n\nSay HELLO-WORLD.\n";

/* A scratch skill folder "demo" with the given skill_meta.json. */
static char *make_skill(const char *meta)
{
	char *dir = sc_test_mkdtemp();
	sc_test_write(dir, "demo/SKILL.md", skill_md);
	sc_test_write(dir, "demo/references/guide.md", "guide\n");
	sc_test_write(dir, "demo/skill_meta.json", meta);
	return dir;
}

struct loaded {
	struct sc_skill skill;
	struct sc_test_set tests;
	struct sc_buf path;
};

static void load(struct loaded *l, const char *dir)
{
	struct sc_diags d = SC_DIAGS_INIT;

	memset(l, 0, sizeof(*l));
	sc_buf_init(&l->path);
	sc_path_join(&l->path, dir, "demo");
	assert_int_equal(sc_skill_load(&l->skill, l->path.ptr, &d, 0), 0);
	assert_int_equal(sc_tests_load_skill(&l->tests, l->path.ptr, &d), 0);
	assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 0);
	sc_diags_release(&d);
}

static void unload(struct loaded *l)
{
	sc_skill_release(&l->skill);
	sc_test_set_release(&l->tests);
	sc_buf_release(&l->path);
}

static void test_system_prompt_has_skill_and_references(void **state)
{
	char *dir = make_skill("{\"tests\": [{\"input\": \"hi\", \"expected\": {\"contains\": [\"x\"]}}]}");
	struct loaded l;
	struct sc_buf p = SC_BUF_INIT;
	(void)state;

	load(&l, dir);
	sc_skill_system_prompt(&p, &l.skill);
	assert_non_null(strstr(p.ptr, "<skill name=\"demo\">"));
	assert_non_null(strstr(p.ptr, "<description>Says hello properly.</description>"));
	assert_non_null(strstr(p.ptr, "Say HELLO-WORLD."));
	assert_non_null(strstr(p.ptr, "<references>\n- references/guide.md\n</references>"));
	assert_null(strstr(p.ptr, "{name}"));
	sc_buf_release(&p);
	unload(&l);
	sc_rm_rf(dir);
	free(dir);
}

static void test_user_message_appends_context_files(void **state)
{
	char *dir = make_skill("{\"tests\": [{\"input\": \"Read it\", \"context\": {\"files\": "
			       "{\"a.txt\": \"AAA\", \"b.txt\": \"BBB\"}}, \"expected\": {\"contains\": [\"x\"]}}]}");
	struct loaded l;
	struct sc_buf m = SC_BUF_INIT;
	(void)state;

	load(&l, dir);
	assert_int_equal(l.tests.n, 1);
	sc_eval_user_message(&m, &l.tests.items[0]);
	assert_string_equal(m.ptr, "Read it\n\n```a.txt\nAAA\n```\n\n```b.txt\nBBB\n```");
	sc_buf_release(&m);
	unload(&l);
	sc_rm_rf(dir);
	free(dir);
}

static void test_contains_all_ignores_case(void **state)
{
	const char *need[] = { "Hello", "WORLD" };
	(void)state;

	assert_true(sc_eval_contains_all("say hello to the world", need, 2));
	assert_false(sc_eval_contains_all("say hello", need, 2));
	assert_true(sc_eval_contains_all("anything", need, 0));
	assert_false(sc_eval_contains_all("", need, 1));
}

static void test_parse_judge_score(void **state)
{
	(void)state;
	assert_close(sc_eval_parse_score("good.\nSCORE: 0.75"), 0.75, 1e-12);
	assert_close(sc_eval_parse_score("Score: 0.2 ... final score: **0.9**"), 0.9, 1e-12);
	assert_close(sc_eval_parse_score("SCORE: 7/10"), 0.7, 1e-12);
	assert_close(sc_eval_parse_score("SCORE: 3"), 1.0, 0);
	assert_true(isnan(sc_eval_parse_score("no number here")));
	assert_true(isnan(sc_eval_parse_score("SCORE: none")));
}

/* Adds a unit to r by hand. */
static void add_unit(struct sc_results *r, size_t *alloc, const char *variant, const char *test,
		     int run, const char *verdict, int64_t tin, int64_t tout, double speedup)
{
	struct sc_results_unit *u;

	SC_GROW(r->units, *alloc, r->nunits + 1);
	u = &r->units[r->nunits++];
	sc_results_unit_init(u);
	u->skill = sc_xstrdup("skills/demo");
	u->variant = t_variant(variant);
	u->model = sc_xstrdup("m");
	u->test_id = sc_xstrdup(test);
	u->run_index = run;
	u->kind = t_unit_kind(isnan(speedup) ? "text" : "kernel");
	u->verdict = t_unit_verdict(verdict);
	u->tokens_in = tin;
	u->tokens_out = tout;
	u->turns = 1;
	if (!isnan(speedup)) {
		u->kernel = sc_xcalloc(1, sizeof(*u->kernel));
		sc_results_kernel_init(u->kernel);
		u->kernel->speedup = speedup;
	}
}

static void test_aggregate_hand_built_units(void **state)
{
	struct sc_results r;
	size_t alloc = 0;
	const struct sc_results_aggregate *b, *h;
	const struct sc_results_comparison *c;
	char id[16];
	(void)state;

	sc_results_init(&r);
	/* 10 tests: baseline passes t0-t2; head passes t0-t7 (5 head-only). */
	for (int i = 0; i < 10; i++) {
		snprintf(id, sizeof(id), "t%d", i);
		add_unit(&r, &alloc, "baseline", id, 0, i < 3 ? "pass" : "fail", 100, 50, NAN);
		add_unit(&r, &alloc, "head", id, 0, i < 8 ? "pass" : "fail", 60, 30, NAN);
	}
	/* not counted in the pass rate: an error and a skip */
	add_unit(&r, &alloc, "head", "t10", 0, "error", 0, 0, NAN);
	add_unit(&r, &alloc, "head", "t11", 0, "skipped", 60, 30, NAN);
	sc_eval_aggregate(&r, 0.05);

	b = sc_results_find_aggregate(&r, "skills/demo", SC_VARIANT_BASELINE, "m");
	h = sc_results_find_aggregate(&r, "skills/demo", SC_VARIANT_HEAD, "m");
	assert_non_null(b);
	assert_non_null(h);
	assert_int_equal(b->n, 10);
	assert_int_equal(b->passed, 3);
	assert_int_equal(h->n, 10);
	assert_int_equal(h->passed, 8);
	assert_int_equal(h->errors, 1);
	assert_int_equal(h->skipped, 1);
	assert_close(h->pass_rate, 0.8, 1e-15);
	/* Wilson 8/10, by hand: center .7357, half .2254 */
	assert_close(h->ci_low, 0.49016247153664183, 1e-12);
	assert_close(h->ci_high, 0.9433178485456247, 1e-12);
	assert_close(b->mean_tokens, 150.0, 1e-12);
	assert_close(h->mean_tokens, 90.0, 1e-12);  /* 11 non-error units of 90 */
	assert_true(isnan(h->speedup_geomean));

	c = sc_results_find_comparison(&r, "skills/demo", "m", SC_VARIANT_BASELINE, SC_VARIANT_HEAD);
	assert_non_null(c);
	assert_int_equal(c->paired_n, 10);
	assert_int_equal(c->to_only, 5);
	assert_int_equal(c->from_only, 0);
	assert_close(c->p_value, 0.0625, 1e-15);  /* 2 / 2^5 */
	assert_false(c->significant);
	assert_close(c->skill_lift, 0.5, 1e-15);
	assert_close(c->token_savings, 0.4, 1e-15);  /* 1 - 90/150 */
	assert_close(c->tokens_delta_pct, -40.0, 1e-12);
	assert_int_equal(c->is_beneficial, 1);
	assert_int_equal(r.totals.units, 22);
	assert_int_equal(r.totals.passed, 11);
	assert_int_equal(r.totals.errors, 1);
	assert_int_equal(r.totals.tokens_in, 10 * 100 + 11 * 60);
	sc_results_release(&r);
}

static void test_aggregate_kernel_speed(void **state)
{
	struct sc_results r;
	size_t alloc = 0;
	const struct sc_results_aggregate *h;
	(void)state;

	sc_results_init(&r);
	add_unit(&r, &alloc, "head", "k0", 0, "pass", 1, 1, 2.0);
	add_unit(&r, &alloc, "head", "k1", 0, "pass", 1, 1, 8.0);
	add_unit(&r, &alloc, "head", "k2", 0, "pass", 1, 1, 0.5);
	add_unit(&r, &alloc, "head", "k3", 0, "fail", 1, 1, 3.0);  /* wrong: never fast */
	/* over the strong references: k0 0.5, k1 8, k2 none, k3 (failed) 4 */
	r.units[0].kernel->strong_speedup = 0.5;
	r.units[1].kernel->strong_speedup = 8.0;
	r.units[3].kernel->strong_speedup = 4.0;
	sc_eval_aggregate(&r, 0.05);
	h = sc_results_find_aggregate(&r, "skills/demo", SC_VARIANT_HEAD, "m");
	assert_close(h->speedup_geomean, 2.0, 1e-12);  /* cbrt(2 * 8 * 0.5) */
	assert_close(h->strong_speedup_geomean, 2.0, 1e-12);  /* sqrt(0.5 * 8): passed units with one */
	assert_close(h->fast_1, 0.5, 1e-15);   /* k0, k1 of 4 */
	assert_close(h->fast_1_5, 0.5, 1e-15);
	assert_close(h->fast_2, 0.25, 1e-15);  /* strictly above 2: k1 */
	assert_int_equal(r.ncomparisons, 0);
	sc_results_release(&r);
}

/* A skill of dir evaluated by the oracle with a results store in dir:
 * runs of each test, the skill head. */
struct stored_eval {
	struct loaded l;
	struct sc_store *store;
	struct sc_client *client;
	struct sc_eval_options opt;
	struct sc_eval_skill es;
	struct sc_buf db;
};

static void stored_eval_open(struct stored_eval *f, const char *dir, int runs)
{
	static const char *models[] = { "oracle.self" };
	struct sc_client_options copt;

	memset(f, 0, sizeof(*f));
	sc_buf_init(&f->db);
	load(&f->l, dir);
	sc_path_join(&f->db, dir, "results.db");
	assert_int_equal(sc_store_open(&f->store, f->db.ptr), 0);
	sc_client_options_init(&copt);
	assert_int_equal(sc_client_new(&f->client, &copt), 0);
	sc_eval_options_init(&f->opt);
	f->opt.models = models;
	f->opt.nmodels = 1;
	f->opt.runs = runs;
	f->opt.client = f->client;
	f->opt.store = f->store;
	f->es.path = "skills/demo";
	f->es.variant = SC_VARIANT_HEAD;
	f->es.skill = &f->l.skill;
	f->es.tests = &f->l.tests;
}

static void stored_eval_close(struct stored_eval *f)
{
	sc_client_free(f->client);
	sc_store_free(f->store);
	sc_buf_release(&f->db);
	unload(&f->l);
}

static void test_run_with_oracle_then_reuse(void **state)
{
	char *dir = make_skill("{\"tests\": ["
			       "{\"input\": \"one\", \"expected\": {\"contains\": [\"alpha\"]}},"
			       "{\"input\": \"two\", \"expected\": {\"contains\": [\"beta\", \"gamma\"]}}]}");
	struct stored_eval f;
	struct sc_results r;
	int64_t count = 0;
	(void)state;

	stored_eval_open(&f, dir, 3);

	assert_int_equal(sc_eval_run(&r, &f.es, 1, &f.opt), 0);
	assert_int_equal(r.nunits, 12);  /* 2 tests x 3 runs x 2 variants */
	assert_int_equal(r.totals.evaluated, 12);
	assert_int_equal(r.totals.passed, 12);
	assert_true(r.run.oracle);
	assert_string_equal(r.run.mode, "none");
	for (size_t i = 0; i < r.nunits; i++) {
		assert_false(r.units[i].reused);
		assert_int_equal(r.units[i].turns, 1);
		if (r.units[i].variant == SC_VARIANT_BASELINE)
			assert_null(r.units[i].hashes.skill);
		else
			assert_non_null(r.units[i].hashes.skill);
	}
	sc_results_release(&r);
	assert_int_equal(sc_store_count_units(f.store, &count), 0);
	assert_int_equal(count, 12);

	assert_int_equal(sc_eval_run(&r, &f.es, 1, &f.opt), 0);
	assert_int_equal(r.totals.reused, 12);
	assert_int_equal(r.totals.evaluated, 0);
	assert_int_equal(r.totals.passed, 12);
	sc_results_release(&r);
	assert_int_equal(sc_store_count_units(f.store, &count), 0);
	assert_int_equal(count, 12);  /* nothing new stored */

	/* a changed skill file changes the skill hash: head is asked again,
	 * the baseline (no skill) is still reused */
	sc_test_write(dir, "demo/references/guide.md", "guide, revised\n");
	assert_int_equal(sc_eval_run(&r, &f.es, 1, &f.opt), 0);
	assert_int_equal(r.totals.reused, 6);
	assert_int_equal(r.totals.evaluated, 6);
	sc_results_release(&r);

	stored_eval_close(&f);
	sc_rm_rf(dir);
	free(dir);
}


/* sc_eval_stored_units (the budget's look-up) names exactly the units the
 * evaluation then reuses: the same key, made by the same code. A store
 * that cannot be read is an error, never "stored". */
static void test_stored_units_are_the_ones_reused(void **state)
{
	char *dir = make_skill("{\"tests\": ["
			       "{\"input\": \"one\", \"expected\": {\"contains\": [\"alpha\"]}},"
			       "{\"input\": \"two\", \"expected\": {\"contains\": [\"beta\"]}}]}");
	struct stored_eval f;
	struct sc_eval_stats stats;
	struct sc_eval_unit_ref *refs = NULL, *refs2 = NULL;
	struct sc_results r, frame;
	struct sc_buf cmd = SC_BUF_INIT;
	bool *stored;
	size_t n = 0, nstored = 99;
	int err;
	(void)state;

	stored_eval_open(&f, dir, 2);
	/* runs 0 and 1 of 2 tests, with and without the skill: 8 units stored */
	assert_int_equal(sc_eval_run(&r, &f.es, 1, &f.opt), 0);
	assert_int_equal(r.nunits, 8);
	sc_results_release(&r);

	/* a plan of 3 runs: runs 0 and 1 are in the f.store, run 2 is not */
	f.opt.runs = 3;
	assert_int_equal(sc_eval_plan(&frame, &refs, &n, &f.es, 1, &f.opt), 0);
	assert_int_equal(n, 12);
	stored = sc_xcalloc(n, sizeof(*stored));
	assert_int_equal(sc_eval_stored_units(stored, &nstored, &f.es, 1, refs, n, &f.opt), 0);
	assert_int_equal(nstored, 8);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(stored[i], refs[i].run < 2);
	/* the evaluation reuses those and asks for the others */
	assert_int_equal(sc_eval_run_units(&frame, &stats, &f.es, 1, refs, n, &f.opt), 0);
	assert_int_equal(stats.reused, 8);
	assert_int_equal(stats.evaluated, 4);
	assert_int_equal(frame.nunits, 12);
	for (size_t i = 0; i < frame.nunits; i++)
		assert_int_equal(frame.units[i].reused, frame.units[i].run_index < 2);
	/* now every unit is stored */
	assert_int_equal(sc_eval_stored_units(stored, &nstored, &f.es, 1, refs, n, &f.opt), 0);
	assert_int_equal(nstored, 12);
	/* reuse off: the evaluation would ask for all of them */
	f.opt.reuse = false;
	assert_int_equal(sc_eval_stored_units(stored, &nstored, &f.es, 1, refs, n, &f.opt), 0);
	assert_int_equal(nstored, 0);
	for (size_t i = 0; i < n; i++)
		assert_false(stored[i]);
	f.opt.reuse = true;
	/* a f.store that cannot be read (its units table gone): an error, and
	 * the evaluation stops on it too */
	sc_buf_clear(&cmd);
	sc_buf_printf(&cmd, "sqlite3 '%s' 'ALTER TABLE units RENAME TO gone'", f.db.ptr);
	assert_int_equal(system(cmd.ptr), 0);
	err = sc_eval_stored_units(stored, &nstored, &f.es, 1, refs, n, &f.opt);
	assert_true(err < 0);
	assert_int_equal(nstored, 0);
	assert_non_null(strstr(sc_error_last(), "look up unit"));
	sc_results_release(&frame);
	assert_int_equal(sc_eval_plan(&frame, &refs2, &n, &f.es, 1, &f.opt), 0);
	assert_int_equal(sc_eval_run_units(&frame, &stats, &f.es, 1, refs2, n, &f.opt), err);
	assert_int_equal(stats.reused + stats.evaluated, 0);
	free(refs2);

	free(stored);
	free(refs);
	sc_results_release(&frame);
	sc_buf_release(&cmd);
	stored_eval_close(&f);
	sc_rm_rf(dir);
	free(dir);
}

static bool only_run_one(const char *skill, enum sc_variant variant, const char *model,
			 const char *test_id, int run_index, void *payload)
{
	(void)skill; (void)variant; (void)model; (void)test_id; (void)payload;
	return run_index == 1;
}

static void test_selected_units_share_the_plan_hash(void **state)
{
	char *dir = make_skill("{\"tests\": [{\"input\": \"one\", \"expected\": {\"contains\": [\"a\"]}}]}");
	struct loaded l;
	struct sc_client *client = NULL;
	struct sc_client_options copt;
	struct sc_eval_options opt;
	struct sc_eval_skill es;
	struct sc_results all, part;
	const char *models[] = { "oracle.self" };
	(void)state;

	load(&l, dir);
	sc_client_options_init(&copt);
	assert_int_equal(sc_client_new(&client, &copt), 0);
	sc_eval_options_init(&opt);
	opt.models = models;
	opt.nmodels = 1;
	opt.runs = 2;
	opt.client = client;
	memset(&es, 0, sizeof(es));
	es.path = "skills/demo";
	es.variant = SC_VARIANT_HEAD;
	es.skill = &l.skill;
	es.tests = &l.tests;
	assert_int_equal(sc_eval_run(&all, &es, 1, &opt), 0);
	opt.select = only_run_one;
	assert_int_equal(sc_eval_run(&part, &es, 1, &opt), 0);
	assert_int_equal(all.nunits, 4);
	assert_int_equal(part.nunits, 2);
	for (size_t i = 0; i < part.nunits; i++)
		assert_int_equal(part.units[i].run_index, 1);
	assert_string_equal(all.run.plan_hash, part.run.plan_hash);
	sc_results_release(&all);
	sc_results_release(&part);
	sc_client_free(client);
	unload(&l);
	sc_rm_rf(dir);
	free(dir);
}

/* Kernel harness double: fails to compile on the first call of each unit
 * with a compiler message, compiles (no GPU) afterwards. */
struct fake_kernel {
	int calls;
	int fail_calls;  /* how many first calls fail */
	char last_answer[64];
	bool gpu;        /* then: passed and timed, with a strong reference */
};

static int fake_check(struct sc_eval_kernel_result *out, const char *fixture, const char *answer,
		      void *payload)
{
	struct fake_kernel *fk = payload;

	assert_string_equal(fixture, "vec-add");
	snprintf(fk->last_answer, sizeof(fk->last_answer), "%s", answer);
	if (fk->calls++ < fk->fail_calls) {
		out->verdict = SC_KV_COMPILE_FAILED;
		out->compiled = false;
		out->message = sc_xstrdup("kernel.cu(3): error: identifier \"blockIdy\" is undefined");
		out->compile_log = sc_xstrdup(out->message);
		return 0;
	}
	out->verdict = t_kernel_verdict(fk->gpu ? "passed" : "compiled");
	out->compiled = true;
	out->registers = 12;
	if (fk->gpu) {
		out->speedup = 12.0;
		out->strong_reference = sc_xstrdup("fixture solution fixtures/vec-add/solution.cu");
		out->strong_speedup = 0.9;
		out->pct_of_peak = 55.0;
	}
	return 0;
}

static int fake_reference(struct sc_buf *out, const char *fixture, void *payload)
{
	(void)payload;
	sc_buf_printf(out, "```cuda\n// reference for %s\n```\n", fixture);
	return 0;
}

static int fake_hash(char out[65], const char *fixture, void *payload)
{
	(void)payload;
	sc_sha256_hex(out, fixture, strlen(fixture));
	return 0;
}

static void run_kernel(struct fake_kernel *fk, int max_turns, struct sc_results *r,
		       struct sc_store *store, bool with_ops)
{
	char *dir = make_skill("{\"tests\": [{\"input\": \"write vec add\", \"fixture\": \"vec-add\"}]}");
	struct loaded l;
	struct sc_client *client = NULL;
	struct sc_client_options copt;
	struct sc_eval_options opt;
	struct sc_eval_kernel_ops ops = { .check = fake_check, .reference = fake_reference,
					  .fixture_hash = fake_hash, .mode = "compile-only",
					  .payload = fk };
	struct sc_eval_skill es;
	const char *models[] = { "oracle.self" };

	load(&l, dir);
	sc_client_options_init(&copt);
	assert_int_equal(sc_client_new(&client, &copt), 0);
	sc_eval_options_init(&opt);
	opt.models = models;
	opt.nmodels = 1;
	opt.baseline = false;
	opt.max_turns = max_turns;
	opt.client = client;
	opt.store = store;
	opt.kernel = with_ops ? &ops : NULL;
	memset(&es, 0, sizeof(es));
	es.path = "skills/demo";
	es.variant = SC_VARIANT_HEAD;
	es.skill = &l.skill;
	es.tests = &l.tests;
	assert_int_equal(sc_eval_run(r, &es, 1, &opt), 0);
	sc_client_free(client);
	unload(&l);
	sc_rm_rf(dir);
	free(dir);
}

static void test_kernel_feedback_fixes_on_turn_two(void **state)
{
	struct fake_kernel fk = { 0, 1, "", false };
	char *dir = sc_test_mkdtemp();
	struct sc_buf db = SC_BUF_INIT;
	struct sc_store *store = NULL;
	struct sc_store_unit su;
	struct sc_store_key key;
	struct sc_results r;
	const struct sc_results_unit *u;
	(void)state;

	sc_path_join(&db, dir, "r.db");
	assert_int_equal(sc_store_open(&store, db.ptr), 0);
	run_kernel(&fk, 3, &r, store, true);
	assert_int_equal(r.nunits, 1);
	u = &r.units[0];
	assert_int_equal(fk.calls, 2);
	assert_int_equal(u->turns, 2);
	/* compile-only: compiled means skipped, never passed */
	assert_int_equal(u->verdict, SC_UNIT_SKIPPED);
	assert_null(u->excerpt);   /* only a failed unit keeps its answer */
	assert_int_equal(u->kernel->verdict, SC_KV_COMPILED);
	assert_int_equal(u->kernel->compile, SC_COMPILE_OK);
	assert_int_equal(u->kernel->registers, 12);
	assert_string_equal(r.run.mode, "compile-only");
	assert_non_null(strstr(fk.last_answer, "reference for vec-add"));

	/* the stored transcript shows the compiler message sent back */
	key.skill_hash = u->hashes.skill;
	key.test_hash = u->hashes.test;
	key.fixture_hash = u->hashes.fixture;
	key.model = "oracle.self";
	key.prompt_hash = u->hashes.prompt;
	key.harness = SC_EVAL_HARNESS_VERSION "+compile-only+turns3";
	key.run_index = 0;
	assert_int_equal(sc_store_lookup_unit(store, &su, &key), 0);
	assert_non_null(strstr(su.transcript, "identifier \\\"blockIdy\\\" is undefined"));
	assert_int_equal(su.turns, 2);
	sc_store_unit_release(&su);
	sc_results_release(&r);
	sc_store_free(store);
	sc_buf_release(&db);
	sc_rm_rf(dir);
	free(dir);
}

static void test_kernel_out_of_turns_fails(void **state)
{
	struct fake_kernel fk = { 0, 5, "", false };
	char *dir = sc_test_mkdtemp();
	struct sc_buf db = SC_BUF_INIT;
	struct sc_store *store = NULL;
	struct sc_results r;
	(void)state;

	sc_path_join(&db, dir, "r.db");
	assert_int_equal(sc_store_open(&store, db.ptr), 0);
	run_kernel(&fk, 2, &r, store, true);
	assert_int_equal(fk.calls, 2);
	assert_int_equal(r.units[0].turns, 2);
	assert_int_equal(r.units[0].verdict, SC_UNIT_FAIL);
	assert_string_equal(r.units[0].error_class, "compile_error");
	assert_non_null(strstr(r.units[0].message, "blockIdy"));
	assert_int_equal(r.units[0].kernel->compile, SC_COMPILE_FAILED);
	/* the failed unit keeps the start of the model's last answer */
	assert_non_null(r.units[0].excerpt);
	assert_string_equal(r.units[0].excerpt, "```cuda\n// reference for vec-add\n```\n");
	sc_results_release(&r);

	/* reused from the store, it keeps it too (from the stored transcript) */
	run_kernel(&fk, 2, &r, store, true);
	assert_int_equal(fk.calls, 2);
	assert_true(r.units[0].reused);
	assert_int_equal(r.units[0].verdict, SC_UNIT_FAIL);
	assert_non_null(r.units[0].excerpt);
	assert_string_equal(r.units[0].excerpt, "```cuda\n// reference for vec-add\n```\n");
	sc_results_release(&r);
	sc_store_free(store);
	sc_buf_release(&db);
	sc_rm_rf(dir);
	free(dir);
}

/* On a GPU the harness's strong reference, the speedup over it and the
 * share of the roofline reach the unit and the aggregate, and come back
 * the same when the unit is reused from the store. */
static void test_kernel_strong_reference_carried(void **state)
{
	struct fake_kernel fk = { 0, 0, "", true };
	char *dir = sc_test_mkdtemp();
	struct sc_buf db = SC_BUF_INIT;
	struct sc_store *store = NULL;
	struct sc_results r;
	(void)state;

	sc_path_join(&db, dir, "r.db");
	assert_int_equal(sc_store_open(&store, db.ptr), 0);
	for (int pass = 0; pass < 2; pass++) {
		const struct sc_results_kernel *k;
		run_kernel(&fk, 2, &r, store, true);
		assert_int_equal(fk.calls, 1);  /* the second time: reused */
		assert_true(r.units[0].reused == (pass == 1));
		assert_int_equal(r.units[0].verdict, SC_UNIT_PASS);
		k = r.units[0].kernel;
		assert_true(k->speedup == 12.0);
		assert_string_equal(k->strong_reference, "fixture solution fixtures/vec-add/solution.cu");
		assert_true(k->strong_speedup == 0.9);
		assert_true(k->pct_of_peak == 55.0);
		assert_close(r.aggregates[0].speedup_geomean, 12.0, 1e-12);
		assert_close(r.aggregates[0].strong_speedup_geomean, 0.9, 1e-12);
		sc_results_release(&r);
	}
	sc_store_free(store);
	sc_buf_release(&db);
	sc_rm_rf(dir);
	free(dir);
}

static void test_kernel_without_harness_is_skipped(void **state)
{
	struct fake_kernel fk = { 0, 0, "", false };
	struct sc_results r;
	(void)state;

	run_kernel(&fk, 3, &r, NULL, false);
	assert_int_equal(fk.calls, 0);
	assert_int_equal(r.units[0].verdict, SC_UNIT_SKIPPED);
	assert_int_equal(r.units[0].turns, 0);
	assert_int_equal(r.totals.passed, 0);
	sc_results_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_system_prompt_has_skill_and_references),
		cmocka_unit_test(test_user_message_appends_context_files),
		cmocka_unit_test(test_contains_all_ignores_case),
		cmocka_unit_test(test_parse_judge_score),
		cmocka_unit_test(test_aggregate_hand_built_units),
		cmocka_unit_test(test_aggregate_kernel_speed),
		cmocka_unit_test(test_run_with_oracle_then_reuse),
		cmocka_unit_test(test_selected_units_share_the_plan_hash),
		cmocka_unit_test(test_stored_units_are_the_ones_reused),
		cmocka_unit_test(test_kernel_feedback_fixes_on_turn_two),
		cmocka_unit_test(test_kernel_out_of_turns_fails),
		cmocka_unit_test(test_kernel_strong_reference_carried),
		cmocka_unit_test(test_kernel_without_harness_is_skipped),
	};
	sc_http_global_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
