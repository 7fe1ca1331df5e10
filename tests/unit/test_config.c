/* Unit tests for runner/pipeline/config*.c: defaults, every skillci.yml key, types
 * and ranges with file:line, unknown keys, upskill.config.yaml mapping and
 * precedence. */
#include "unit.h"
#include "pipeline/config.h"
#include "diag.h"
#include "providers/provider.h"

#include <unistd.h>

static void print_diags(const struct sc_diags *d)
{
	struct sc_buf b = SC_BUF_INIT;
	for (size_t i = 0; i < d->n; i++) {
		sc_buf_clear(&b);
		sc_diag_format(&b, &d->items[i]);
		print_message("# %s\n", b.ptr);
	}
	sc_buf_release(&b);
}

/* The formatted finding ("file:line: error: message [code]") holding text. */
static const char *find_line(const struct sc_diags *d, const char *text, struct sc_buf *out)
{
	for (size_t i = 0; i < d->n; i++) {
		sc_buf_clear(out);
		sc_diag_format(out, &d->items[i]);
		if (strstr(out->ptr, text))
			return out->ptr;
	}
	print_diags(d);
	return NULL;
}

static void expect_line(const struct sc_diags *d, const char *text)
{
	struct sc_buf b = SC_BUF_INIT;
	if (!find_line(d, text, &b))
		fail_msg("no finding contains: %s", text);
	sc_buf_release(&b);
}

/* Loads the config of a scratch repo holding the given files (NULL: none),
 * fastagent.config.yaml included. */
static int load3(struct sc_config *cfg, struct sc_diags *d, const char *skillci,
		 const char *upskill, const char *fastagent)
{
	char *dir = sc_test_mkdtemp();
	char cwd[4096];
	int err;

	if (skillci)
		sc_test_write(dir, "skillci.yml", skillci);
	if (upskill)
		sc_test_write(dir, "upskill.config.yaml", upskill);
	if (fastagent)
		sc_test_write(dir, "fastagent.config.yaml", fastagent);
	/* run from the repo so findings name "skillci.yml" as a user sees it */
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	err = sc_config_load(cfg, ".", NULL, d);
	assert_int_equal(chdir(cwd), 0);
	sc_rm_rf(dir);
	free(dir);
	return err;
}

static int load(struct sc_config *cfg, struct sc_diags *d, const char *skillci, const char *upskill)
{
	return load3(cfg, d, skillci, upskill, NULL);
}

static void test_defaults(void **state)
{
	struct sc_config cfg;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	assert_int_equal(load(&cfg, &d, NULL, NULL), 0);
	assert_int_equal(d.n, 0);
	assert_null(cfg.path);
	assert_null(cfg.upskill_path);
	assert_int_equal(cfg.models.n, 0);
	assert_int_equal(cfg.runs, 1);
	assert_int_equal(cfg.max_turns, 3);
	assert_string_equal(cfg.arch, "sm_90");
	assert_string_equal(cfg.fixtures_dir, "fixtures");
	assert_string_equal(cfg.store_path, ".skillci/results.db");
	assert_string_equal(cfg.cache_dir, ".skillci/cache");
	assert_int_equal(cfg.cache_mode, SC_CACHE_USE);
	assert_true(cfg.gate.tokens_rise_pct == 20);
	assert_true(cfg.gate.judge_drop == 0.1);
	assert_true(cfg.gate.alpha == 0.05);
	assert_true(cfg.gate.require_lift);
	assert_false(cfg.gate.accept_unverified);
	assert_true(cfg.gate.beta == 0.2);
	assert_true(cfg.gate.regression_points == 15);
	assert_true(cfg.gate.pass_rate_drop_points == 0);
	assert_int_equal(cfg.gate.first_runs, 1);
	assert_int_equal(cfg.gate.max_runs, 50);
	assert_string_equal(cfg.report_junit, ".skillci/report/junit.xml");
	assert_string_equal(cfg.report_json, ".skillci/report/results.json");
	assert_null(cfg.judge_model);
	assert_int_equal(cfg.nskills, 0);
	assert_int_equal(sc_config_provider_limit(&cfg, "openai"), SC_PROVIDER_MAX_EACH);
	sc_config_release(&cfg);
	sc_diags_release(&d);
}

static const char full_yml[] =
	"# skillci configuration\n"
	"version: 1\n"
	"models: [anthropic.claude-haiku-4-5, openai.gpt-4.1-mini]\n"
	"runs: 3\n"
	"max_turns: 2\n"
	"fixtures: kernels/fixtures\n"
	"arch: sm_80\n"
	"concurrency:\n"
	"  total: 12\n"
	"  per_provider:\n"
	"    anthropic: 4\n"
	"    openai: 20\n"
	"timeouts: {request: 90, kernel: 30.5}\n"
	"cache:\n"
	"  dir: ci/cache\n"
	"  mode: refresh\n"
	"store: ci/results.db\n"
	"judge:\n"
	"  model: sonnet\n"
	"  rubric: |\n"
	"    Score 1 when the answer is correct and concise.\n"
	"gate:\n"
	"  pass_rate_drop_points: 10\n"
	"  alpha: 0.01\n"
	"  tokens_rise_pct: 35\n"
	"  speedup_drop_ratio: 0.2\n"
	"  judge_drop: 0.15\n"
	"  error_share: 0.25\n"
	"  require_lift: false\n"
	"  regression_points: 20\n"
	"skills:\n"
	"  - skill: skills/cuda-kernels\n"
	"    fixtures: [softmax, gemm]\n"
	"  - skill: skills/commit-messages/\n"
	"    tests:\n"
	"      - tests/commit-extra.json\n"
	"reports:\n"
	"  dir: out\n"
	"  junit: junit/skillci.xml\n"
	"budget: {max_units: 500, max_requests: 900}\n";

static void test_every_key(void **state)
{
	struct sc_config cfg;
	struct sc_diags d = SC_DIAGS_INIT;
	const struct sc_config_skill *s;
	(void)state;

	assert_int_equal(load(&cfg, &d, full_yml, NULL), 0);
	if (d.n)
		print_diags(&d);
	assert_int_equal(d.n, 0);
	assert_string_equal(cfg.path, "skillci.yml");
	assert_int_equal(cfg.models.n, 2);
	assert_string_equal(cfg.models.items[1], "openai.gpt-4.1-mini");
	assert_int_equal(cfg.runs, 3);
	assert_int_equal(cfg.max_turns, 2);
	assert_string_equal(cfg.fixtures_dir, "kernels/fixtures");
	assert_string_equal(cfg.arch, "sm_80");
	assert_int_equal(cfg.concurrency, 12);
	assert_int_equal(sc_config_provider_limit(&cfg, "anthropic"), 4);
	assert_int_equal(sc_config_provider_limit(&cfg, "openai"), 12);  /* capped by total */
	assert_int_equal(sc_config_provider_limit(&cfg, "generic"), 12);
	assert_true(cfg.request_timeout_s == 90);
	assert_true(cfg.kernel_timeout_s == 30.5);
	assert_string_equal(cfg.cache_dir, "ci/cache");
	assert_int_equal(cfg.cache_mode, SC_CACHE_REFRESH);
	assert_string_equal(sc_cache_mode_name(cfg.cache_mode), "refresh");
	assert_string_equal(cfg.store_path, "ci/results.db");
	assert_string_equal(cfg.judge_model, "sonnet");
	assert_string_equal(cfg.judge_rubric, "Score 1 when the answer is correct and concise.\n");
	assert_true(cfg.gate.pass_rate_drop_points == 10);
	assert_true(cfg.gate.alpha == 0.01);
	assert_true(cfg.gate.tokens_rise_pct == 35);
	assert_true(cfg.gate.speedup_drop_ratio == 0.2);
	assert_true(cfg.gate.judge_drop == 0.15);
	assert_true(cfg.gate.error_share == 0.25);
	assert_false(cfg.gate.require_lift);
	assert_true(cfg.gate.regression_points == 20);
	assert_int_equal(cfg.nskills, 2);
	s = sc_config_find_skill(&cfg, "skills/cuda-kernels");
	assert_non_null(s);
	assert_int_equal(s->line, 32);
	assert_int_equal(s->fixtures.n, 2);
	assert_string_equal(s->fixtures.items[1], "gemm");
	s = sc_config_find_skill(&cfg, "skills/commit-messages");
	assert_non_null(s);
	assert_int_equal(s->tests.n, 1);
	assert_string_equal(s->tests.items[0], "tests/commit-extra.json");
	assert_null(sc_config_find_skill(&cfg, "skills/other"));
	assert_string_equal(cfg.report_junit, "junit/skillci.xml");
	assert_string_equal(cfg.report_markdown, "out/report.md");
	assert_string_equal(cfg.report_html, "out/report.html");
	assert_int_equal(cfg.max_units, 500);
	assert_int_equal(cfg.max_requests, 900);
	sc_config_release(&cfg);
	sc_diags_release(&d);
}

static void test_wrong_types_name_file_and_line(void **state)
{
	static const struct { const char *yml; const char *line; } cases[] = {
		{ "models: [haiku]\n\n# comment\n\nmax_turns: 2\n\nruns: \"3\"\n",
		  "skillci.yml:7: error: 'runs' must be a positive integer, found string [config-type]" },
		{ "runs: 0\n", "skillci.yml:1: error: 'runs' must be between 1 and 1000, found 0 [config-value]" },
		{ "runs: 2.5\n", "skillci.yml:1: error: 'runs' must be a positive integer, found '2.5' [config-type]" },
		{ "models: 3\n", "skillci.yml:1: error: 'models' must be a list of strings, found number [config-type]" },
		{ "models:\n  - haiku\n  - {name: x}\n", "skillci.yml:3: error: 'models[1]' must be a non-empty string, found map" },
		{ "arch: 90\n", "skillci.yml:1: error: 'arch' must be a non-empty string, found number" },
		{ "arch: ampere\n", "skillci.yml:1: error: 'arch' must be a GPU architecture such as sm_90, found 'ampere'" },
		{ "timeouts:\n  request: soon\n", "skillci.yml:2: error: 'timeouts.request' must be a number, found string" },
		{ "timeouts:\n  kernel: 0\n", "skillci.yml:2: error: 'timeouts.kernel' must be above 0, found 0" },
		{ "gate:\n  alpha: 1.5\n", "skillci.yml:2: error: 'gate.alpha' must be above 0 and at most 1, found 1.5" },
		{ "gate:\n  require_lift: sometimes\n", "skillci.yml:2: error: 'gate.require_lift' must be true or false, found string" },
		{ "gate: 5\n", "skillci.yml:1: error: 'gate' must be a map, found number" },
		{ "cache:\n  mode: sometimes\n", "skillci.yml:2: error: 'cache.mode' must be one of use, refresh, off, found 'sometimes'" },
		{ "concurrency:\n  per_provider:\n    openai: many\n", "skillci.yml:3: error: 'concurrency.per_provider.openai' must be a positive integer, found string" },
		{ "skills:\n  - skill: ../outside\n", "skillci.yml:2: error: 'skills[0].skill' must be a relative path inside the repository, found '../outside' [config-path]" },
		{ "skills:\n  - tests: [a.json]\n", "skillci.yml:2: error: 'skills[0].skill' is missing" },
		{ "skills:\n  - skill: skills/a\n    fixtures: [Soft Max]\n", "skillci.yml:3: error: 'skills[0].fixtures': 'Soft Max' is not a fixture name" },
		{ "skills:\n  - skill: skills/a\n    tests: [/etc/passwd]\n", "skillci.yml:3: error: 'skills[0].tests' must list relative paths inside the repository, found '/etc/passwd'" },
		{ "skills: {skill: a}\n", "skillci.yml:1: error: 'skills' must be a list of {skill, tests, fixtures} entries, found map" },
		{ "runs: 2\nruns: 3\n", "skillci.yml:2: error: duplicate key 'runs' [config-duplicate-key]" },
		{ "version: 2\n", "skillci.yml:1: error: 'version' 2 is not supported" },
		{ "- runs\n", "skillci.yml:1: error: 'the file's top level' must be a map, found list" },
		{ "runs: [1\n", "skillci.yml:2: error: " },
		{ "store: {path: [x]}\n", "skillci.yml:1: error: 'store.path' must be a non-empty string, found list" },
		{ "store: /var/tmp/r.db\n", "skillci.yml:1: error: 'store' must be a relative path inside the workspace (no '..', not absolute), found '/var/tmp/r.db' [config-path]" },
		{ "cache: {dir: ../c}\n", "skillci.yml:1: error: 'cache.dir' must be a relative path inside the workspace (no '..', not absolute), found '../c' [config-path]" },
		{ "reports:\n  junit: x/../../j.xml\n", "skillci.yml:2: error: 'reports.junit' must be a relative path inside the workspace (no '..', not absolute), found 'x/../../j.xml' [config-path]" },
		{ "reports: {dir: /tmp/r}\n", "skillci.yml:1: error: 'reports.dir' must be a relative path inside the workspace (no '..', not absolute), found '/tmp/r' [config-path]" },
		{ "budget: {max_units: 0}\n", "skillci.yml:1: error: 'budget.max_units' must be between 1 and 10000000, found 0 [config-value]" },
		{ "gate:\n  max_runs: 1001\n", "skillci.yml:2: error: 'gate.max_runs' must be between 0 and 1000, found 1001 [config-value]" },
		{ "gate:\n  first_runs: 0\n", "skillci.yml:2: error: 'gate.first_runs' must be between 1 and 1000, found 0 [config-value]" },
		{ "gate:\n  first_runs: 4\n  max_runs: 2\n", "skillci.yml:2: error: 'gate.max_runs' (2) must be at least 'gate.first_runs' (4): the first round runs first_runs per test [config-value]" },
	};
	(void)state;

	for (size_t i = 0; i < SC_ARRAY_SIZE(cases); i++) {
		struct sc_config cfg;
		struct sc_diags d = SC_DIAGS_INIT;

		print_message("# case %zu\n", i);
		assert_int_equal(load(&cfg, &d, cases[i].yml, NULL), 0);
		assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 1);
		expect_line(&d, cases[i].line);
		/* a wrong value leaves the default */
		assert_int_equal(cfg.runs, i == 19 ? 2 : 1);
		assert_string_equal(cfg.arch, "sm_90");
		assert_true(cfg.gate.alpha == 0.05);
		sc_config_release(&cfg);
		sc_diags_release(&d);
	}
}

/* Sequential sampling's keys: off by default (max_runs 0), rounds of 2. */
static void test_sequential_keys(void **state)
{
	struct sc_config cfg;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	assert_int_equal(load(&cfg, &d, "version: 1\n", NULL), 0);
	assert_int_equal(cfg.gate.first_runs, SC_CONFIG_FIRST_RUNS);
	assert_int_equal(cfg.gate.max_runs, SC_CONFIG_MAX_RUNS);
	sc_config_release(&cfg);
	assert_int_equal(load(&cfg, &d, "gate: {first_runs: 3, max_runs: 12, beta: 0.1, "
			      "regression_points: 20, pass_rate_drop_points: 2, accept_unverified: true}\n",
			      NULL), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(cfg.gate.first_runs, 3);
	assert_int_equal(cfg.gate.max_runs, 12);
	assert_true(cfg.gate.beta == 0.1);
	assert_true(cfg.gate.regression_points == 20);
	assert_true(cfg.gate.pass_rate_drop_points == 2);
	assert_true(cfg.gate.accept_unverified);
	sc_config_release(&cfg);
	/* out of range, or D not beyond m: errors naming the key and the line */
	assert_int_equal(load(&cfg, &d, "gate:\n  beta: 0.6\n  regression_points: 0.5\n", NULL), 0);
	expect_line(&d, "skillci.yml:2: error: 'gate.beta' must be below 0.5 (the chance a drop of "
		    "gate.regression_points passes), found 0.6 [config-value]");
	expect_line(&d, "skillci.yml:3: error: 'gate.regression_points' must be at least 1 point, "
		    "found 0.5: a design for smaller drops needs thousands of runs per test "
		    "[config-value]");
	sc_config_release(&cfg);
	sc_diags_release(&d);
	assert_int_equal(load(&cfg, &d, "gate: {pass_rate_drop_points: 20}\n", NULL), 0);
	assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 1);
	sc_config_release(&cfg);
	sc_diags_release(&d);
	/* fail_inconclusive is replaced: a warning, and false accepts unverified checks */
	assert_int_equal(load(&cfg, &d, "gate:\n  fail_inconclusive: false\n", NULL), 0);
	expect_line(&d, "skillci.yml:2: warning: 'gate.fail_inconclusive' is replaced: a check the "
		    "design could not finish is unverified and fails unless 'gate.accept_unverified: "
		    "true'; read as gate.accept_unverified: true [config-replaced]");
	assert_true(cfg.gate.accept_unverified);
	sc_config_release(&cfg);
	sc_diags_release(&d);
}

static void test_unknown_keys_warn(void **state)
{
	struct sc_config cfg;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	assert_int_equal(load(&cfg, &d,
			      "runs: 2\n"
			      "colour: blue\n"
			      "gate:\n"
			      "  tokens_rise: 5\n"
			      "eval_model: haiku\n"
			      "concurrency:\n"
			      "  per_provider: {mistral: 3}\n"
			      "skills:\n"
			      "  - skill: s\n"
			      "    owner: me\n", NULL), 0);
	assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 0);
	assert_int_equal(sc_diags_count(&d, SC_SEV_WARNING), 5);
	expect_line(&d, "skillci.yml:2: warning: unknown key 'colour'; ignored [config-unknown-key]");
	expect_line(&d, "skillci.yml:4: warning: unknown key 'gate.tokens_rise'; ignored");
	expect_line(&d, "skillci.yml:5: warning: unknown key 'eval_model'; ignored (an upskill.config.yaml key; skillci.yml lists student models in 'models')");
	expect_line(&d, "skillci.yml:7: warning: unknown provider 'concurrency.per_provider.mistral'");
	expect_line(&d, "skillci.yml:10: warning: unknown key 'skills[0].owner'; ignored");
	assert_int_equal(cfg.runs, 2);
	assert_int_equal(cfg.nskills, 1);
	sc_config_release(&cfg);
	sc_diags_release(&d);
}

static void test_upskill_keys_map(void **state)
{
	struct sc_config cfg;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	/* upskill's own example file */
	assert_int_equal(load(&cfg, &d, NULL,
			      "# upskill project configuration\n"
			      "model: sonnet\n"
			      "eval_model: haiku\n"
			      "skills_dir: ./skills\n"
			      "runs_dir: ./runs\n"
			      "max_refine_attempts: 3\n"
			      "auto_eval: true\n"
			      "fastagent_config: ./fastagent.config.yaml\n"), 0);
	if (d.n)
		print_diags(&d);
	assert_int_equal(d.n, 0);
	assert_string_equal(cfg.upskill_path, "upskill.config.yaml");
	assert_int_equal(cfg.models.n, 1);
	assert_string_equal(cfg.models.items[0], "haiku");
	assert_string_equal(cfg.generate_model, "sonnet");
	assert_string_equal(cfg.skills_dir, "./skills");
	assert_string_equal(cfg.runs_dir, "./runs");
	assert_int_equal(cfg.max_refine_attempts, 3);
	sc_config_release(&cfg);

	/* without eval_model upskill evaluates on the generation model */
	assert_int_equal(load(&cfg, &d, NULL, "skill_generation_model: opus\nmax_refine_attempts: lots\nunknown: 1\n"), 0);
	assert_int_equal(cfg.models.n, 1);
	assert_string_equal(cfg.models.items[0], "opus");
	expect_line(&d, "upskill.config.yaml:2: error: 'max_refine_attempts' must be a non-negative integer, found string");
	expect_line(&d, "upskill.config.yaml:3: warning: unknown key 'unknown'");
	sc_config_release(&cfg);
	sc_diags_release(&d);
}

/* flags > --config / skillci.yml > upskill.config.yaml > defaults */
static void test_precedence(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_buf other = SC_BUF_INIT;
	struct sc_config cfg;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	assert_int_equal(load(&cfg, &d, "models: [openai.gpt-4.1]\n",
			      "eval_model: haiku\nskills_dir: up-skills\n"), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(cfg.models.n, 1);
	assert_string_equal(cfg.models.items[0], "openai.gpt-4.1");
	assert_string_equal(cfg.skills_dir, "up-skills");  /* not set in skillci.yml */
	sc_config_release(&cfg);

	sc_test_write(dir, "skillci.yml", "runs: 4\n");
	sc_test_write(dir, "ci/other.yml", "runs: 7\narch: sm_90a\n");
	sc_path_join(&other, dir, "ci/other.yml");
	assert_int_equal(sc_config_load(&cfg, dir, other.ptr, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(cfg.runs, 7);
	assert_string_equal(cfg.arch, "sm_90a");
	assert_string_equal(cfg.path, other.ptr);
	sc_config_release(&cfg);

	sc_path_join(&other, dir, "ci/missing.yml");
	assert_int_equal(sc_config_load(&cfg, dir, other.ptr, &d), SC_ENOTFOUND);
	assert_non_null(strstr(sc_error_last(), "missing.yml"));
	sc_config_release(&cfg);

	assert_int_equal(sc_config_load(&cfg, dir, NULL, &d), 0);
	assert_int_equal(cfg.runs, 4);
	sc_config_release(&cfg);
	sc_buf_release(&other);
	sc_diags_release(&d);
	sc_rm_rf(dir);
	free(dir);
}

static void test_short_forms(void **state)
{
	struct sc_config cfg;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	assert_int_equal(load(&cfg, &d,
			      "models: haiku\n"
			      "concurrency: 3\n"
			      "cache: {mode: off}\n"
			      "store: {path: r.db}\n"
			      "reports: {dir: build/report}\n", NULL), 0);
	if (d.n)
		print_diags(&d);
	assert_int_equal(d.n, 0);
	assert_int_equal(cfg.models.n, 1);
	assert_string_equal(cfg.models.items[0], "haiku");
	assert_int_equal(cfg.concurrency, 3);
	assert_int_equal(sc_config_provider_limit(&cfg, "anthropic"), 3);
	assert_int_equal(cfg.cache_mode, SC_CACHE_OFF);
	assert_string_equal(cfg.store_path, "r.db");
	assert_string_equal(cfg.report_junit, "build/report/junit.xml");
	assert_string_equal(cfg.report_markdown, "build/report/report.md");
	sc_config_release(&cfg);
	sc_diags_release(&d);
}

/* The example manifest shipped in skills/ is valid. */
static void test_example_manifest(void **state)
{
	struct sc_config cfg;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	if (access("skills/skillci.yml", F_OK) != 0)
		skip();
	assert_int_equal(sc_config_load(&cfg, "skills", NULL, &d), 0);
	if (d.n)
		print_diags(&d);
	assert_int_equal(d.n, 0);
	assert_non_null(cfg.path);
	assert_true(cfg.nskills >= 2);
	sc_config_release(&cfg);
	sc_diags_release(&d);
}


/* Named endpoints: parsed, checked, registered only by apply. */
/* fast_agent_version chooses whose model names are read, once applied, and is policy. */
static void test_fast_agent_version(void **state)
{
	struct sc_config cfg;
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_strlist keys = { 0 }, values = { 0 };
	struct sc_model m;
	bool found = false;
	(void)state;

	sc_providers_reset();
	assert_int_equal(load(&cfg, &d, "version: 1\nfast_agent_version: 0.10.48\n", NULL), 0);
	assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 0);
	assert_string_equal(cfg.fast_agent_version, "0.10.48");
	/* loading changes nothing: applying the trusted configuration does */
	assert_int_equal(sc_model_parse(&m, "zai.glm-5.2"), SC_EINVAL);
	assert_int_equal(sc_config_apply_providers(&cfg), 0);
	assert_string_equal(sc_models_grammar(), "0.10.48");
	assert_int_equal(sc_model_parse(&m, "zai.glm-5.2"), 0);
	sc_model_release(&m);
	sc_config_policy(&cfg, &keys, &values);
	for (size_t i = 0; i < keys.n; i++)
		if (!strcmp(keys.items[i], "fast_agent_version")) {
			assert_string_equal(values.items[i], "0.10.48");
			found = true;
		}
	assert_true(found);
	sc_strlist_release(&keys);
	sc_strlist_release(&values);
	sc_config_release(&cfg);
	sc_diags_release(&d);
	sc_providers_reset();

	assert_int_equal(load(&cfg, &d, "version: 1\nfast_agent_version: 0.5.1\n", NULL), 0);
	expect_line(&d, "skillci.yml:2: error: 'fast_agent_version' 0.5.1 is not a fast-agent version "
		    "whose model names skillci reads (0.4.53, 0.6.7, 0.10.48) [config-value]");
	assert_null(cfg.fast_agent_version);
	sc_config_release(&cfg);
	sc_diags_release(&d);
	/* not set: the default, upskill's pin */
	assert_int_equal(load(&cfg, &d, "version: 1\n", NULL), 0);
	assert_int_equal(sc_config_apply_providers(&cfg), 0);
	assert_string_equal(sc_models_grammar(), "0.6.7");
	sc_config_release(&cfg);
	sc_diags_release(&d);
	sc_providers_reset();
}

static void test_provider_endpoints(void **state)
{
	struct sc_config cfg;
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_model m;
	(void)state;

	sc_providers_reset();
	assert_int_equal(load(&cfg, &d,
			      "providers:\n"
			      "  lab:\n"
			      "    wire: openai\n"
			      "    base_url: http://gpu-box:8000/v1\n"
			      "    api_key_env: LAB_KEY\n"
			      "  claude-proxy: {wire: anthropic, base_url: 'https://proxy.example/anthropic'}\n"
			      "concurrency:\n"
			      "  per_provider: {lab: 4, hf: 8}\n", NULL), 0);
	if (d.n)
		print_diags(&d);
	assert_int_equal(d.n, 0);
	assert_int_equal(cfg.nendpoints, 2);
	assert_string_equal(cfg.endpoints[0].name, "lab");
	assert_string_equal(cfg.endpoints[0].wire, "openai");
	assert_string_equal(cfg.endpoints[0].base_url, "http://gpu-box:8000/v1");
	assert_string_equal(cfg.endpoints[0].api_key_env, "LAB_KEY");
	assert_null(cfg.endpoints[1].api_key_env);
	assert_int_equal(cfg.nprovider_limits, 2);
	/* loading registers nothing: only the trusted config applied does */
	assert_int_equal(sc_model_parse(&m, "lab.qwen3-coder"), SC_EINVAL);
	assert_int_equal(sc_config_apply_providers(&cfg), 0);
	assert_int_equal(sc_model_parse(&m, "lab.qwen3-coder"), 0);
	assert_string_equal(m.name, "lab.qwen3-coder");
	sc_model_release(&m);
	assert_int_equal(sc_model_parse(&m, "claude-proxy.claude-x?reasoning=high"), 0);
	assert_int_equal(sc_provider_get(m.kind)->wire, SC_WIRE_ANTHROPIC);
	sc_model_release(&m);
	sc_config_release(&cfg);
	sc_providers_reset();

	assert_int_equal(load(&cfg, &d,
			      "providers:\n"
			      "  openai: {wire: openai, base_url: http://x/v1}\n"
			      "  kimi: {wire: openai, base_url: http://x/v1}\n"
			      "  lab: {wire: grpc, base_url: http://x/v1}\n"
			      "  lab2: {wire: openai, base_url: 'file:///etc/passwd'}\n"
			      "  lab3: {wire: openai, base_url: http://x/v1, api_key: sk-live-123}\n"
			      "  lab4: {wire: openai, base_url: http://x/v1, api_key_env: 'A B'}\n"
			      "  lab5: {base_url: http://x/v1, colour: red}\n"
			      "  Lab6: {wire: openai, base_url: http://x/v1}\n", NULL), 0);
	expect_line(&d, "skillci.yml:2: error: 'providers.openai': 'openai' is a built-in provider");
	expect_line(&d, "skillci.yml:3: error: 'providers.kimi': 'kimi' is a model alias");
	expect_line(&d, "skillci.yml:4: error: 'providers.lab.wire' must be openai or anthropic, found 'grpc'");
	expect_line(&d, "skillci.yml:5: error: 'providers.lab2.base_url' must be an http:// or https:// URL");
	expect_line(&d, "skillci.yml:6: error: 'providers.lab3.api_key': keys do not belong in the configuration");
	expect_line(&d, "skillci.yml:7: error: 'providers.lab4.api_key_env' must be an environment variable name");
	expect_line(&d, "skillci.yml:8: error: 'providers.lab5.wire' is missing");
	expect_line(&d, "skillci.yml:8: warning: unknown key 'providers.lab5.colour'");
	expect_line(&d, "skillci.yml:9: error: 'providers.Lab6': an endpoint name is lowercase");
	/* the literal key is never echoed back */
	for (size_t i = 0; i < d.n; i++)
		assert_null(strstr(d.items[i].message, "sk-live-123"));
	assert_int_equal(cfg.nendpoints, 0);
	sc_config_release(&cfg);
	sc_diags_release(&d);
}

/* fast-agent's generic: block, as upskill's fastagent.config.yaml has it. */
static void test_fastagent_generic(void **state)
{
	struct sc_config cfg;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	sc_providers_reset();
	setenv("SC_TEST_HF", "hf_from_env", 1);
	assert_int_equal(load3(&cfg, &d, NULL, "model: sonnet\n",
			       "# FastAgent Configuration for upskill\n"
			       "default_model: sonnet\n"
			       "generic:\n"
			       "  api_key: \"local\"\n"
			       "  base_url: \"http://localhost:11434/v1\"\n"
			       "huggingface:\n"
			       "  api_key: ${SC_TEST_HF}\n"
			       "openai:\n"
			       "  api_key: <your-api-key-here>\n"
			       "mcp_timeline:\n"
			       "  steps: 20\n"
			       "logger: {show_chat: true}\n"), 0);
	if (d.n)
		print_diags(&d);
	assert_int_equal(d.n, 0);  /* fast-agent's own keys are not ours to warn about */
	assert_string_equal(cfg.fastagent_path, "fastagent.config.yaml");
	assert_int_equal(cfg.nprovider_files, 2);
	assert_string_equal(cfg.provider_files[0].provider, "generic");
	assert_string_equal(cfg.provider_files[0].base_url, "http://localhost:11434/v1");
	assert_string_equal(cfg.provider_files[0].api_key, "local");
	assert_int_equal(cfg.provider_files[0].line, 3);
	assert_string_equal(cfg.provider_files[1].provider, "hf");
	assert_string_equal(cfg.provider_files[1].api_key, "hf_from_env");
	assert_int_equal(sc_config_apply_providers(&cfg), 0);
	assert_string_equal(sc_provider_file_base(SC_PROVIDER_GENERIC), "http://localhost:11434/v1");
	assert_string_equal(sc_provider_file_key(SC_PROVIDER_GENERIC), "local");
	assert_null(sc_provider_file_key(SC_PROVIDER_OPENAI));
	sc_config_release(&cfg);
	sc_providers_reset();
	unsetenv("SC_TEST_HF");

	/* upskill's fastagent_config names the file; a bad URL is an error there */
	{
		char *dir = sc_test_mkdtemp();
		char cwd[4096];
		sc_test_write(dir, "upskill.config.yaml", "fastagent_config: conf/fa.yaml\n");
		{
			struct sc_buf p = SC_BUF_INIT;
			sc_path_join(&p, dir, "conf");
			assert_int_equal(sc_mkdir_p(p.ptr), 0);
			sc_buf_release(&p);
		}
		sc_test_write(dir, "conf/fa.yaml", "generic:\n  base_url: localhost:11434\n");
		assert_non_null(getcwd(cwd, sizeof(cwd)));
		assert_int_equal(chdir(dir), 0);
		assert_int_equal(sc_config_load(&cfg, ".", NULL, &d), 0);
		assert_int_equal(chdir(cwd), 0);
		assert_string_equal(cfg.fastagent_path, "conf/fa.yaml");
		expect_line(&d, "conf/fa.yaml:2: error: 'generic.base_url' must be an http:// or https:// URL");
		sc_config_release(&cfg);
		sc_rm_rf(dir);
		free(dir);
	}
	sc_diags_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_every_key),
		cmocka_unit_test(test_wrong_types_name_file_and_line),
		cmocka_unit_test(test_sequential_keys),
		cmocka_unit_test(test_unknown_keys_warn),
		cmocka_unit_test(test_upskill_keys_map),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_short_forms),
		cmocka_unit_test(test_example_manifest),
		cmocka_unit_test(test_provider_endpoints),
		cmocka_unit_test(test_fast_agent_version),
		cmocka_unit_test(test_fastagent_generic),
	};
	return cmocka_run_group_tests_name("config", tests, NULL, NULL);
}
