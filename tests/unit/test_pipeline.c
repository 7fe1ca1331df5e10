/*
 * Unit tests for runner/pipeline/pipeline.c: the PR check driven stage by
 * stage without the command line, against the fake model server
 * (tests/unit/fake_server.h) on loopback.
 *
 * The repository: skills "good" and "bad", three text tests each; the base
 * revision's skillci.yml bounds anthropic to 3 requests in flight. At head
 * "good" gains a line, "bad" loses its marker. The fake answers right only
 * when the system prompt holds the marker GOOD.
 */
#include "unit.h"
#include "states.h"
#include "fake_server.h"
#include "diag.h"
#include "git/git.h"
#include "net/http.h"
#include "pipeline/config.h"
#include "pipeline/pipeline.h"
#include "results/results.h"
#include "results/store.h"

#include <unistd.h>

static const char script[] =
	"{\"rules\": [{\"match\": {\"system\": \"GOOD\"}, \"reply\": {\"text\": \"ok-answer\", "
	"\"latency_ms\": 40}}], \"default\": {\"text\": \"no idea\", \"latency_ms\": 40}}";

/* Runs a shell script in dir (git with a fixed identity); fails the test on error. */
static void sh(const char *dir, const char *cmds)
{
	struct sc_buf cmd = SC_BUF_INIT;

	sc_buf_printf(&cmd, "cd '%s' && { export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent; "
		      "g() { git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main "
		      "\"$@\"; }; set -e; %s\n} >/dev/null 2>&1", dir, cmds);
	if (system(cmd.ptr) != 0)
		fail_msg("script failed: %s", cmds);
	sc_buf_release(&cmd);
}

static void skill(const char *repo, const char *name, const char *marker)
{
	struct sc_buf rel = SC_BUF_INIT, body = SC_BUF_INIT;

	sc_buf_printf(&rel, "skills/%s/SKILL.md", name);
	sc_buf_printf(&body, "---\nname: %s\ndescription: Answers %s questions.\n---\n%s: answer "
		      "with ok-answer.\n", name, name, marker);
	sc_test_write(repo, rel.ptr, body.ptr);
	sc_buf_clear(&rel);
	sc_buf_printf(&rel, "skills/%s/skill_meta.json", name);
	sc_buf_clear(&body);
	sc_buf_puts(&body, "{\"tests\": [");
	for (int i = 1; i <= 3; i++)
		sc_buf_printf(&body, "%s{\"input\": \"%s question %d\", \"expected\": "
			      "{\"contains\": [\"ok-answer\"]}}", i > 1 ? ", " : "", name, i);
	sc_buf_puts(&body, "]}");
	sc_test_write(repo, rel.ptr, body.ptr);
	sc_buf_release(&rel);
	sc_buf_release(&body);
}

/* A scratch folder (the pipeline's workspace, made current) with the repository. */
static char *make_repo(char *cwd, size_t cwd_size)
{
	char *dir = sc_test_mkdtemp();

	assert_non_null(getcwd(cwd, cwd_size));
	assert_int_equal(chdir(dir), 0);
	skill(dir, "good", "GOOD");
	skill(dir, "bad", "GOOD");
	sc_test_write(dir, "skillci.yml",
		      "models: [anthropic.student]\nconcurrency:\n  total: 8\n"
		      "  per_provider: {anthropic: 3}\n");
	sh(dir, "g init -q && g add -A && g commit -qm base && g tag base && "
		"echo 'Be brief.' >> skills/good/SKILL.md && "
		"sed -i s/GOOD/BROKEN/ skills/bad/SKILL.md && g commit -qam head");
	return dir;
}

struct stopper {
	size_t decided, stop_after;
};

static void count_unit(size_t done, size_t total, const char *skill, enum sc_variant variant,
		       const char *model, const char *test_name, enum sc_unit_verdict verdict, bool reused,
		       void *payload)
{
	struct stopper *s = payload;
	(void)done; (void)total; (void)skill; (void)variant; (void)model; (void)test_name;
	(void)verdict; (void)reused;
	s->decided++;
}

static bool stop_after(void *payload)
{
	struct stopper *s = payload;
	return s->stop_after && s->decided >= s->stop_after;
}

/* Open, prepare, evaluate, finish; returns the gate's code. */
static int run_pipeline(struct sc_pipeline *p, struct sc_store *store, const char *workspace,
			struct stopper *st, struct sc_pipeline_info *info)
{
	struct sc_pipeline_options o;
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_buf budget = SC_BUF_INIT;
	int gate_rc = -1;

	memset(&o, 0, sizeof(o));
	o.repo = ".";
	o.base = "base";
	o.head = "HEAD";
	o.runs = 3;
	o.retries = 1;
	o.no_cache = true;
	o.shard_k = o.shard_n = 1;
	o.run_id = "pipeline-test";
	o.workspace = workspace;
	o.on_unit = count_unit;
	o.stop = stop_after;
	o.payload = st;
	if (sc_pipeline_open(p, &o, &d) < 0)
		fail_msg("open: %s", sc_error_last());
	assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 0);
	/* the policy is the base revision's: 3 in flight for anthropic */
	assert_int_equal(sc_config_provider_limit(sc_pipeline_config(p), "anthropic"), 3);
	assert_int_equal(sc_pipeline_prepare(p, store, &budget), 0);
	assert_non_null(strstr(budget.ptr, "42 units"));
	assert_int_equal(sc_pipeline_evaluate(p), 0);
	assert_int_equal(sc_pipeline_finish(p, &gate_rc), 0);
	sc_pipeline_info(p, info);
	sc_diags_release(&d);
	sc_buf_release(&budget);
	return gate_rc;
}

static const struct sc_results_gate_failure *failure_of(const struct sc_results *r,
							 const char *skill)
{
	for (size_t i = 0; i < r->gate.nfailures; i++)
		if (!strcmp(r->gate.failures[i].skill, skill))
			return &r->gate.failures[i];
	return NULL;
}

/*
 * The whole check, a fixed design of 3 runs: 2 skills x 3 tests x (3 runs
 * at base and head, the no-skill baseline once) = 42 units, each asked
 * once through one client that keeps to the base revision's bound of 3;
 * every unit committed; "bad" regresses and fails the gate, "good" rules
 * out a drop of D (3 tests that pass 6 of 6: se .156, (.15 - 0) / .156 =
 * 0.96 > z(.8)).
 * A second pipeline over the same store reuses every unit, asking nothing.
 */
static void test_pr_check_streams_through_one_client(void **state)
{
	char cwd[4096], real[4096];
	char *dir;
	struct fake f;
	struct sc_store *store = NULL;
	struct sc_pipeline *p;
	struct sc_pipeline_info info;
	struct stopper st = { 0, 0 };
	struct sc_results *r;
	int64_t stored = 0;
	int gate;
	(void)state;

	dir = make_repo(cwd, sizeof(cwd));
	assert_non_null(realpath(dir, real));
	fake_start(&f, script);
	fake_env(&f, "sk-ant-pipeline-unit", "sk-openai-pipeline-unit");
	unsetenv("GITHUB_ACTIONS");
	assert_int_equal(sc_store_open(&store, "results.db"), 0);

	p = sc_pipeline_new();
	gate = run_pipeline(p, store, real, &st, &info);
	r = sc_pipeline_results(p);
	assert_int_equal(info.changed, 2);
	assert_int_equal(info.units, 42);
	assert_int_equal(r->nunits, 42);
	assert_false(info.stopped);
	assert_true(r->run.complete);
	assert_int_equal(r->totals.requests, 42);
	assert_int_equal(fake_stat(&f, "requests"), 42);
	/* one client for the whole run: never more than the provider's bound */
	assert_true(fake_stat(&f, "max_in_flight") <= 3);
	assert_int_equal(fake_stat(&f, "max_in_flight"), 3);
	assert_int_equal(gate, 1);
	assert_non_null(failure_of(r, "skills/bad"));
	assert_null(failure_of(r, "skills/good"));
	assert_int_equal(sc_store_count_units(store, &stored), 0);
	assert_int_equal(stored, 42);
	sc_pipeline_free(p);

	/* the same PR again: every unit from the store, no request */
	fake_script(&f, script);
	st.decided = 0;
	p = sc_pipeline_new();
	gate = run_pipeline(p, store, real, &st, &info);
	r = sc_pipeline_results(p);
	assert_int_equal(r->nunits, 42);
	assert_int_equal(r->totals.reused, 42);
	assert_int_equal(fake_stat(&f, "requests"), 0);
	assert_int_equal(gate, 1);
	sc_pipeline_free(p);

	sc_store_free(store);
	fake_stop(&f);
	assert_int_equal(chdir(cwd), 0);
	sc_rm_rf(dir);
	free(dir);
}

/*
 * A stop once 5 units are decided: no unit starts after it, the units in
 * flight finish, the results say so and hold only decided units, and the
 * store holds exactly those (committed as they finished).
 */
static void test_stop_finishes_what_is_in_flight(void **state)
{
	char cwd[4096], real[4096];
	char *dir;
	struct fake f;
	struct sc_store *store = NULL;
	struct sc_pipeline *p;
	struct sc_pipeline_info info;
	struct stopper st = { 0, 5 };
	struct sc_results *r;
	int64_t stored = 0;
	(void)state;

	dir = make_repo(cwd, sizeof(cwd));
	assert_non_null(realpath(dir, real));
	fake_start(&f, script);
	fake_env(&f, "sk-ant-pipeline-unit", "sk-openai-pipeline-unit");
	unsetenv("GITHUB_ACTIONS");
	assert_int_equal(sc_store_open(&store, "results.db"), 0);
	p = sc_pipeline_new();
	run_pipeline(p, store, real, &st, &info);
	r = sc_pipeline_results(p);
	assert_true(info.stopped);
	assert_false(r->run.complete);
	assert_non_null(strstr(r->run.incomplete_reason, "of 42 units evaluated"));
	/* 5 decided, then at most the 3 in flight */
	assert_true(r->nunits >= 5 && r->nunits <= 5 + 3);
	assert_int_equal((long)r->nunits, fake_stat(&f, "requests"));
	assert_int_equal(sc_store_count_units(store, &stored), 0);
	assert_int_equal(stored, (int64_t)r->nunits);
	sc_pipeline_free(p);
	sc_store_free(store);
	fake_stop(&f);
	assert_int_equal(chdir(cwd), 0);
	sc_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pr_check_streams_through_one_client),
		cmocka_unit_test(test_stop_finishes_what_is_in_flight),
	};
	int rc;

	sc_git_global_init();
	sc_http_global_init();
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sc_http_global_shutdown();
	return rc;
}
