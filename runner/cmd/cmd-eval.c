/*
 * skillci eval DIR... -m MODEL...: evaluate skills in place, with and
 * without the skill, on one or more models (upskill `eval` parity), and
 * print upskill-style bars with 95% Wilson intervals, the token line, the
 * paired significance test, and a benchmark table for several models.
 */
#include "common.h"
#include "escape.h"
#include "cmd/cmd.h"
#include "diag.h"
#include "agent/agent.h"
#include "pipeline/evalrun.h"
#include "providers/provider.h"
#include "reporters/report_eval.h"
#include "reporters/report_fmt.h"
#include "results/results.h"
#include "stats.h"
#include "results/store.h"
#include "results/verdict.h"

#include <math.h>
#include <unistd.h>

/* What the command takes: eval's options (pipeline/evalrun.h), filled by the table, and its own. */
struct eval_opts {
	struct sc_evalrun_options e;
	const char *json;
	bool verbose;
};

/* --agent MODE: auto, always or never (agent/agent.h). */
static int agent_option(void *opts, const char *value)
{
	struct eval_opts *o = opts;
	enum sc_agent_mode mode;
	int err;

	if ((err = sc_agent_mode_parse(&mode, value)) < 0)
		return err;
	o->e.agent_mode = (int)mode;
	o->e.agent_mode_set = true;
	return 0;
}

static const struct sc_option eval_table[] = {
	SC_OPT_LIST("model", 'm', struct eval_opts, e.models, e.nmodels, 64, "MODEL",
		    "model to evaluate (repeat for several): PROVIDER.MODEL[.EFFORT]\n"
		    "[?reasoning=R&temperature=T], an alias (haiku, sonnet, gpt-4.1,\n"
		    "kimi, ...), an endpoint of skillci.yml's providers (lab.MODEL),\n"
		    "or oracle.self (self-test); 'skillci help models' lists them"),
	SC_OPT_INT("runs", 0, struct eval_opts, e.runs, 1, 1000, "N",
		   "runs per test, a fixed design (default: runs in skillci.yml,\n"
		   "else 1)"),
	SC_OPT_INT("max-runs", 0, struct eval_opts, e.max_runs, 1, 1000, "R",
		   "sample sequentially: rounds of --first-runs runs per test on\n"
		   "both sides, per skill x model until the lift over no skill\n"
		   "is shown or ruled out, at most R runs per test (default:\n"
		   "gate.max_runs in skillci.yml; 0 there: the fixed design)"),
	SC_OPT_INT("first-runs", 0, struct eval_opts, e.first_runs, 1, 1000, "F",
		   "runs per test in each round (default gate.first_runs, else 1)"),
	SC_OPT_DOUBLE("lift-margin", 0, struct eval_opts, e.lift_margin, 0, 99, "P",
		      "sequential: the lift in points the skill must show (default 0)"),
	SC_OPT_FLAG("no-baseline", 0, struct eval_opts, e.no_baseline,
		    "do not evaluate without the skill"),
	SC_OPT_STRING("tests", 't', struct eval_opts, e.tests_file, "FILE",
		      "test file to use instead of the skill's own tests"),
	SC_OPT_FLAG("generate-tests", 0, struct eval_opts, e.generate_tests,
		    "a skill without tests gets tests written by the test\n"
		    "generation model first, saved in its skill_meta.json"),
	SC_OPT_STRING("test-gen-model", 0, struct eval_opts, e.test_gen_model, "M",
		      "that model (default: test_gen_model, else\n"
		      "skill_generation_model of upskill.config.yaml, else sonnet)"),
	SC_OPT_INT("max-turns", 0, struct eval_opts, e.max_turns, 1, 1000, "N",
		   "model turns for kernel tests and agent runs (default 3)"),
	SC_OPT_CALLBACK("agent", 0, agent_option, "MODE",
			"which tests run as agents, with tools in a jail: auto (tests\n"
			"with workspace verifiers, trigger tests), always (every text\n"
			"test), never (default: agent.mode in skillci.yml, else auto)"),
	SC_OPT_STRING("judge", 0, struct eval_opts, e.judge, "MODEL",
		      "score every answer 0-1 with this model (beside the verdict)"),
	SC_OPT_STRING("rubric", 0, struct eval_opts, e.rubric_file, "FILE",
		      "the judge's rubric (default: a built-in one)"),
	SC_OPT_STRING("grader", 0, struct eval_opts, e.grader, "MODEL",
		      "grade tests' expectations with this model, per statement with\n"
		      "quoted evidence (default: grader.model; without one such\n"
		      "tests are unverified: skillci help tests)"),
	SC_OPT_FLAG("offline", 0, struct eval_opts, e.offline, "answer from the response cache only"),
	SC_OPT_STRING("cache", 0, struct eval_opts, e.cache, "DIR",
		      "response cache (default .skillci/cache)"),
	SC_OPT_FLAG("no-cache", 0, struct eval_opts, e.no_cache, "no response cache"),
	SC_OPT_STRING("store", 0, struct eval_opts, e.store, "LOCATION",
		      "results store: a SQLite file or postgresql://… (default\n"
		      "$" SC_STORE_ENV ", else " SC_STORE_DEFAULT_PATH ")"),
	SC_OPT_FLAG("no-reuse", 0, struct eval_opts, e.no_reuse,
		    "evaluate every unit even when the store has it"),
	SC_OPT_INT("concurrency", 0, struct eval_opts, e.concurrency, 1, 1000, "N",
		   "model requests in flight, all providers together (default:\n"
		   "skillci.yml concurrency, else 64)"),
	SC_OPT_INT("retries", 0, struct eval_opts, e.retries, 0, 20, "N",
		   "retries per model request after the first try (default 5)"),
	SC_OPT_INT("jobs", 0, struct eval_opts, e.jobs, 1, SC_MAX_JOBS, "N",
		   "kernel checks at once, each in its own worker process\n"
		   "(default: one per GPU; without a GPU, one per CPU)"),
	SC_OPT_STRING("json", 0, struct eval_opts, json, "FILE",
		      "write the results JSON (docs/results-json.md)"),
	SC_OPT_STRING("fixtures", 0, struct eval_opts, e.fixtures, "DIR",
		      "kernel fixtures (default fixtures)"),
	SC_OPT_STRING("arch", 0, struct eval_opts, e.arch, "ARCH",
		      "GPU architecture for kernel tests (default sm_90)"),
	SC_OPT_FLAG("compile-only", 0, struct eval_opts, e.compile_only,
		    "check kernels without a GPU even when one is present"),
	SC_OPT_FLAG("allow-unpinned", 0, struct eval_opts, e.allow_unpinned,
		    "accept fixtures missing from or changed since fixtures.lock"),
	SC_OPT_STRING("config", 0, struct eval_opts, e.config, "FILE",
		      "configuration (default: ./skillci.yml and ./upskill.config.yaml\n"
		      "when present); flags override it"),
	SC_OPT_FLAG("verbose", 'v', struct eval_opts, verbose, "per-test lines"),
	SC_OPT_END,
};

static const struct sc_options eval_spec = {
	"eval", "DIR...",
	"Evaluates each skill folder with and without the skill on every model. DIR may\n"
	"also name a skill in skills_dir (upskill.config.yaml, skillci.yml).",
	"exit: 0 done, 2 bad usage or input, 3 infrastructure failure (too many\n"
	"provider errors, store or network failure).\n",
	eval_table, 0,
};

/* Progress on stderr, on a terminal only (plain logs stay clean). */
static void progress(size_t done, size_t total, const char *skill, enum sc_variant variant,
		     const char *model, const char *test_name, enum sc_unit_verdict verdict, bool reused,
		     void *payload)
{
	bool tty = *(bool *)payload;

	if (tty) {
		struct sc_buf line = SC_BUF_INIT;  /* the skill's path is its own text */
		sc_escape_log(&line, skill);
		fprintf(stderr, "\r\033[K[%zu/%zu] %s %s %s", done, total, line.ptr,
			sc_variant_name(variant), model);
		sc_buf_release(&line);
		if (done == total)
			fprintf(stderr, "\r\033[K");
	} else {
		sc_log(SC_LOG_DEBUG, "[%zu/%zu] %s %s %s '%s': %s%s", done, total, skill,
		       sc_variant_name(variant), model, test_name, sc_unit_verdict_name(verdict),
		       reused ? " (reused)" : "");
	}
}

/* The lines the stages hand over while preparing go to stderr. */
static void line_out(const char *line, void *payload)
{
	SC_UNUSED(payload);
	sc_cmd_line(stderr, "%s", line);
}

int cmd_eval(int argc, char **argv)
{
	struct eval_opts o;
	struct sc_evalrun_options *eo;
	bool tty = isatty(2);
	struct sc_evalrun_info info;
	struct sc_evalrun *e = NULL;
	struct sc_diags cdiags = SC_DIAGS_INIT;
	struct sc_store *store = NULL;
	struct sc_results *res;
	struct sc_verdicts v;
	int nargs, err = 0, rc = SC_EXIT_OK, infra_rc = SC_EXIT_OK;

	memset(&o, 0, sizeof(o));
	memset(&v, 0, sizeof(v));
	o.e.retries = SC_PROVIDER_MAX_ATTEMPTS - 1;
	if ((rc = sc_cmd_options(&eval_spec, &o, argc, argv, &nargs)))
		goto done;
	if (!nargs) {
		rc = sc_cmd_usage_error("eval", "name at least one skill folder");
		goto done;
	}
	if (o.e.arch && (strncmp(o.e.arch, "sm_", 3) || strlen(o.e.arch) > 8)) {
		rc = sc_cmd_usage_error("eval", "--arch must be a real architecture such as sm_90");
		goto done;
	}
	if (o.verbose)
		sc_log_set_level(SC_LOG_DEBUG);
	eo = &o.e;
	eo->dirs = (const char *const *)argv + 1;
	eo->ndirs = (size_t)nargs;
	eo->on_unit = progress;
	eo->on_line = line_out;
	eo->payload = &tty;

	e = sc_evalrun_new();
	err = sc_evalrun_open(e, eo, &cdiags);
	sc_evalrun_info(e, &info);
	for (size_t i = 0; i < cdiags.n; i++) {
		struct sc_buf line = SC_BUF_INIT;
		sc_diag_format(&line, &cdiags.items[i]);
		sc_cmd_line(stderr, "%s", line.ptr);
		sc_buf_release(&line);
	}
	if (err < 0) {
		rc = info.config_errors ? SC_EXIT_USAGE
		   : info.usage ? sc_cmd_usage_error("eval", "%s", sc_error_last())
		   : sc_cmd_fail(err);
		goto done;
	}
	/* The store before any request (--generate-tests asks a model): one
	 * that cannot be reached stops here, exit 3. */
	if ((rc = sc_cmd_open_store(&store, info.store_location, false)))
		goto done;
	if ((err = sc_evalrun_prepare(e, store)) < 0 || (err = sc_evalrun_evaluate(e)) < 0 ||
	    (err = sc_evalrun_finish(e, &infra_rc)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	res = sc_evalrun_results(e);
	sc_evalrun_info(e, &info);  /* the budget is known now */
	/* what the run means, decided once (results/verdict.h): the same
	 * words `skillci report` says of this run's JSON */
	sc_verdict_build(&v, res);
	if (v.cause)
		sc_cmd_line(stdout, "could not check: %s\n", v.cause);

	{
		struct sc_report_eval_view view = {
			.baseline = info.baseline, .verbose = o.verbose,
			.table = info.nmodels > 1 || eo->ndirs > 1, .sequential = info.sequential,
			.runs = info.runs, .first_runs = info.first_runs, .max_runs = info.max_runs,
		};
		struct sc_buf text = SC_BUF_INIT;
		sc_report_eval_term(&text, res, &view, &v);
		fputs(text.ptr, stdout);
		sc_buf_release(&text);
	}
	printf("units: %lld (%lld evaluated, %lld reused), requests: %lld",
	       (long long)res->totals.units, (long long)res->totals.evaluated,
	       (long long)res->totals.reused, (long long)res->totals.requests);
	if (info.sequential)
		printf(" (the design's most: %lld)", (long long)info.max_requests);
	printf(", cache hits: %lld, errors: %lld, skipped: %lld\n",
	       (long long)res->totals.cache_hits, (long long)res->totals.errors,
	       (long long)res->totals.skipped);
	sc_cmd_line(stderr, "run %s stored in %s", res->run.id, sc_store_path(store));

	if (o.json && (err = sc_results_save(res, o.json)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	sc_cmd_line(stdout, "%s %s", sc_report_verdict_mark(v.state),
		    v.cause ? "could not check: the runner's fault, not the skill's (the cause is "
			      "the first line)" : v.headline);
	if (v.cause)
		sc_cmd_line(stderr, "error: could not check: %s", v.cause);
	rc = v.exit_code;
done:
	rc = rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	sc_options_release(&eval_spec, &o);
	sc_verdict_release(&v);
	sc_evalrun_free(e);
	sc_store_free(store);
	sc_diags_release(&cdiags);
	return rc;
}
