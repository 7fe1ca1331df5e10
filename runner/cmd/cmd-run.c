/*
 * skillci run: the PR check (docs/run.md). Finds the skills changed
 * between two revisions, writes each one's base and head trees out of the
 * object database, loads their tests, plans the work units (baseline,
 * base, head × models × tests × runs), keeps this shard's units, reuses
 * what the results store holds and evaluates the rest in one stream
 * through one client (kernel checks on --jobs worker processes), then
 * aggregates, applies the gate and renders every report through `skillci
 * report`.
 *
 * SIGINT/SIGTERM: no new unit starts, the units in flight finish (they
 * reach the store), the reports are written marked incomplete and the
 * exit code is 3; a rerun reuses every finished unit.
 *
 * Exit codes: 0 the gate passed, 1 it failed, 2 bad usage, config or
 * input, 3 infrastructure (provider down, too many errors, interrupted).
 */
#include "common.h"
#include "cmd/cmd.h"
#include "diag.h"
#include "escape.h"
#include "eval/eval.h"
#include "git/git.h"
#include "pipeline/config.h"
#include "pipeline/findings.h"
#include "pipeline/pipeline.h"
#include "pipeline/plan.h"
#include "pipeline/progress.h"
#include "pipeline/shards.h"
#include "pipeline/signals.h"
#include "pipeline/trust.h"
#include "providers/provider.h"
#include "reporters/report_fmt.h"
#include "reporters/report_github.h"
#include "results/results.h"
#include "results/store.h"

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <unistd.h>

#define MAX_MODELS 64

static const char usage_text[] =
	"usage: skillci run [--repo R] [--base A] [--head B] [--config F] [-m MODEL...]\n"
	"                   [--runs N] [--fixtures DIR] [--junit F] [--markdown F] [--html DIR]\n"
	"                   [--json F] [--report-dir DIR] [--comment] [--shard K/N|auto]\n"
	"                   [--shard-count N] [--run-id ID]\n"
	"                   [--offline] [--jobs N] [--concurrency N] [--store LOCATION]\n"
	"                   [--cache DIR] [--no-cache]\n"
	"                   [--no-reuse] [--retries N] [--batch N] [--compile-only]\n"
	"                   [--allow-unpinned] [--max-units N] [--max-requests N] [-v]\n"
	"\n"
	"The PR check: evaluates the skills changed between two revisions without the\n"
	"skill (baseline), at the base and at the head revision, writes the reports and\n"
	"applies the gate.\n"
	"\n"
	"  --repo R          repository path or URL (default .)\n"
	"  --base A          base revision (default: the event's, else origin/HEAD, origin/main,\n"
	"                    main or master); the merge base of A and B is compared\n"
	"  --head B          head revision (default: the event's, else HEAD)\n"
	"  --config F        configuration (default skillci.yml in the repository)\n"
	"  -m, --model M     student model (repeat); default: models in skillci.yml\n"
	"  --runs N          runs per test, a fixed design (default: skillci.yml runs:,\n"
	"                    else 1; without it gate.max_runs samples sequentially)\n"
	"  --fixtures DIR    kernel fixtures folder (default: skillci.yml, else fixtures)\n"
	"  --junit F, --markdown F, --html DIR, --json F\n"
	"                    report paths (default: skillci.yml reports:, else .skillci/report/)\n"
	"  --report-dir DIR  folder for the reports not named one by one\n"
	"  --comment         create or update the sticky PR comment (GitHub Actions)\n"
	"  --shard K/N       evaluate shard K of N (units split by a stable hash of their id);\n"
	"                    'auto' reads a Slurm array or Kubernetes Indexed Job index\n"
	"  --shard-count N   number of shards for --shard auto in an Indexed Job\n"
	"  --run-id ID       the run's id, shared by every shard of one sharded run so that\n"
	"                    'skillci merge --run ID' joins them from the store (default: new;\n"
	"                    a sharded run takes gh-$GITHUB_RUN_ID in GitHub Actions and\n"
	"                    slurm-$SLURM_ARRAY_JOB_ID in a Slurm array)\n"
	"  --offline         answer from the response cache only\n"
	"  --jobs N          kernel checks at once, each in its own worker process (default:\n"
	"                    one per GPU; without a GPU, one per CPU)\n"
	"  --concurrency N   model requests in flight, all providers together (default:\n"
	"                    skillci.yml concurrency, else 64)\n"
	"  --batch N         deprecated, no effect: units stream (docs/run.md)\n"
	"  --store LOCATION  results store: a SQLite file or postgresql://… (default:\n"
	"                    $SKILLCI_STORE, else skillci.yml, else .skillci/results.db)\n"
	"  --cache DIR       response cache (default: skillci.yml, else .skillci/cache); --no-cache\n"
	"  --no-reuse        evaluate every unit even when the store has it\n"
	"  --retries N       retries per model request after the first try (default 5)\n"
	"  --compile-only    check kernels without a GPU even when one is present\n"
	"  --allow-unpinned  accept fixtures missing from or changed since fixtures.lock\n"
	"  --max-units N     budget: most units this run may plan (default: skillci.yml, else 10000)\n"
	"  --max-requests N  budget: most model requests the plan may need (default: skillci.yml,\n"
	"                    else 20000); a plan over either exits 2 before any request\n"
	"  -v, --verbose     one line per unit\n"
	"\n"
	"Policy (models, runs, gate, budget, paths, fixtures) comes from these flags and\n"
	"the base revision's skillci.yml, never from the pull request: the head's\n"
	"skillci.yml is only compared and reported (docs/security.md).\n"
	"With GITHUB_ACTIONS=true the revisions come from $GITHUB_EVENT_PATH and the\n"
	"reports also go to the step summary, outputs and annotations.\n"
	"exit codes: 0 gate passed, 1 gate failed, 2 bad usage/config/input,\n"
	"3 infrastructure failure or interrupted (reports are then marked incomplete).\n";

struct run_opts {
	const char *repo, *base, *head, *config, *fixtures;
	const char *store, *cache, *shard, *run_id;
	struct sc_cmd_reports reports;
	const char *models[MAX_MODELS];
	size_t nmodels;
	int runs, jobs, batch, retries, shard_count, max_units, max_requests, concurrency;
	bool comment, offline, no_cache, no_reuse, verbose, compile_only, allow_unpinned;
};

/* What the progress callbacks of the evaluation share. */
struct run_progress {
	struct sc_progress *progress;
	bool verbose;
};

/* ---- options ------------------------------------------------------------- */

#define RUN_ID_MAX 128

/* A run id: it names the run in the store and in reports. */
static bool valid_run_id(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n > RUN_ID_MAX)
		return false;
	for (const char *p = id; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
			return false;
	return true;
}

static bool in_actions(void);

/* Returns 0 to go on, 1 after --help, or an exit code. */
static int parse_args(struct run_opts *o, int argc, char **argv)
{
	enum { O_REPO = 256, O_BASE, O_HEAD, O_CONFIG, O_RUNS, O_FIXTURES, O_JUNIT, O_MARKDOWN,
	       O_HTML, O_JSON, O_COMMENT, O_SHARD, O_SHARD_COUNT, O_OFFLINE, O_JOBS, O_STORE,
	       O_CACHE, O_NO_CACHE, O_NO_REUSE, O_RETRIES, O_BATCH, O_COMPILE_ONLY, O_UNPINNED,
	       O_REPORT_DIR, O_RUN_ID, O_MAX_UNITS, O_MAX_REQUESTS, O_CONCURRENCY };
	static const struct option longopts[] = {
		{ "repo", required_argument, NULL, O_REPO },
		{ "base", required_argument, NULL, O_BASE },
		{ "head", required_argument, NULL, O_HEAD },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "model", required_argument, NULL, 'm' },
		{ "runs", required_argument, NULL, O_RUNS },
		{ "fixtures", required_argument, NULL, O_FIXTURES },
		SC_CMD_REPORT_OPTIONS_OLD,
		{ "comment", no_argument, NULL, O_COMMENT },
		{ "shard", required_argument, NULL, O_SHARD },
		{ "shard-count", required_argument, NULL, O_SHARD_COUNT },
		{ "run-id", required_argument, NULL, O_RUN_ID },
		{ "offline", no_argument, NULL, O_OFFLINE },
		{ "jobs", required_argument, NULL, O_JOBS },
		{ "concurrency", required_argument, NULL, O_CONCURRENCY },
		{ "store", required_argument, NULL, O_STORE },
		{ "cache", required_argument, NULL, O_CACHE },
		{ "no-cache", no_argument, NULL, O_NO_CACHE },
		{ "no-reuse", no_argument, NULL, O_NO_REUSE },
		{ "retries", required_argument, NULL, O_RETRIES },
		{ "batch", required_argument, NULL, O_BATCH },
		{ "compile-only", no_argument, NULL, O_COMPILE_ONLY },
		{ "allow-unpinned", no_argument, NULL, O_UNPINNED },
		{ "max-units", required_argument, NULL, O_MAX_UNITS },
		{ "max-requests", required_argument, NULL, O_MAX_REQUESTS },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc, li;

	o->repo = ".";
	o->retries = SC_PROVIDER_MAX_ATTEMPTS - 1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:vh", longopts, (li = -1, &li))) != -1) {
		rc = 0;
		/* an empty value would mean the current folder or nothing at all
		 * (--store '', --report-dir ''): say so rather than guess */
		if (optarg && !*optarg)
			return sc_cmd_usage_error("run", "%s%s needs a value, not an empty string",
						  li >= 0 ? "--" : "-", li >= 0 ? longopts[li].name : "m");
		switch (c) {
		case 'm':
			if (o->nmodels == MAX_MODELS)
				return sc_cmd_usage_error("run", "at most %d models", MAX_MODELS);
			o->models[o->nmodels++] = optarg;
			break;
		case O_REPO: o->repo = optarg; break;
		case O_BASE: o->base = optarg; break;
		case O_HEAD: o->head = optarg; break;
		case O_CONFIG: o->config = optarg; break;
		case O_RUNS:
			rc = sc_cmd_int_option(&o->runs, "run", "--runs", optarg, 1, 1000);
			break;
		case O_FIXTURES: o->fixtures = optarg; break;
		case O_COMMENT: o->comment = true; break;
		case O_SHARD: o->shard = optarg; break;
		case O_SHARD_COUNT:
			rc = sc_cmd_int_option(&o->shard_count, "run", "--shard-count", optarg, 1,
					       SC_MAX_SHARDS);
			break;
		case O_RUN_ID: o->run_id = optarg; break;
		case O_OFFLINE: o->offline = true; break;
		case O_JOBS:
			rc = sc_cmd_int_option(&o->jobs, "run", "--jobs", optarg, 1, SC_MAX_JOBS);
			break;
		case O_CONCURRENCY:
			rc = sc_cmd_int_option(&o->concurrency, "run", "--concurrency", optarg, 1, 10000);
			break;
		case O_STORE: o->store = optarg; break;
		case O_CACHE: o->cache = optarg; break;
		case O_NO_CACHE: o->no_cache = true; break;
		case O_NO_REUSE: o->no_reuse = true; break;
		case O_RETRIES:
			rc = sc_cmd_int_option(&o->retries, "run", "--retries", optarg, 0, 20);
			break;
		case O_BATCH:
			rc = sc_cmd_int_option(&o->batch, "run", "--batch", optarg, 1, 100000);
			if (!rc)
				fprintf(stderr, "warning: --batch is deprecated and has no effect: units "
					"stream, each starting when a request slot is free (docs/run.md)\n");
			break;
		case O_COMPILE_ONLY: o->compile_only = true; break;
		case O_UNPINNED: o->allow_unpinned = true; break;
		case O_MAX_UNITS:
			rc = sc_cmd_int_option(&o->max_units, "run", "--max-units", optarg, 1,
					       SC_MAX_RUN_UNITS);
			break;
		case O_MAX_REQUESTS:
			rc = sc_cmd_int_option(&o->max_requests, "run", "--max-requests", optarg, 1,
					       SC_MAX_RUN_UNITS);
			break;
		case 'v': o->verbose = true; break;
		case 'h': fputs(usage_text, stdout); return 1;
		default:
			if (!sc_cmd_report_option(&o->reports, c, optarg))
				return sc_cmd_option_error("run", c, argv, longopts);
		}
		if (rc)
			return rc;
	}
	if (optind < argc)
		return sc_cmd_usage_error("run", "unexpected argument '%s'", argv[optind]);
	if (o->offline && o->no_cache)
		return sc_cmd_usage_error("run", "--offline needs the response cache");
	if (o->run_id && !valid_run_id(o->run_id))
		return sc_cmd_usage_error("run", "--run-id '%s' must be 1 to %d letters, digits, '.', "
					  "'_' or '-'", o->run_id, RUN_ID_MAX);
	return 0;
}

/*
 * The id of this run: --run-id, else for a sharded run the id its CI
 * system gives every shard of one job (GitHub Actions: the workflow run;
 * Slurm: the array job), else a new one. Returns a new string.
 */
static char *choose_run_id(const struct run_opts *o, int shard_n)
{
	const char *v;
	struct sc_buf b = SC_BUF_INIT;

	if (o->run_id)
		return sc_xstrdup(o->run_id);
	if (shard_n > 1 && in_actions() && (v = getenv("GITHUB_RUN_ID")) && *v)
		sc_buf_printf(&b, "gh-%s", v);
	else if (shard_n > 1 && (v = getenv("SLURM_ARRAY_JOB_ID")) && *v)
		sc_buf_printf(&b, "slurm-%s", v);
	if (b.len && valid_run_id(b.ptr))
		return sc_buf_detach(&b, NULL);
	sc_buf_release(&b);
	return sc_eval_new_run_id();
}

/* ---- revisions ----------------------------------------------------------- */

static bool in_actions(void)
{
	const char *v = getenv("GITHUB_ACTIONS");
	return v && !strcmp(v, "true");
}

/* ---- output -------------------------------------------------------------- */

/* Prints findings to stderr (an untrusted block: escape.h); returns the
 * number of errors. */
static size_t print_diags(struct sc_diags *d)
{
	struct sc_buf line = SC_BUF_INIT;
	size_t errors = sc_diags_count(d, SC_SEV_ERROR);

	if (!d->n)
		return 0;
	sc_diags_sort(d);
	sc_ci_block_begin(stderr);
	for (size_t i = 0; i < d->n; i++) {
		sc_buf_clear(&line);
		sc_diag_format(&line, &d->items[i]);
		sc_cmd_line(stderr, "%s", line.ptr);
	}
	sc_ci_block_end(stderr);
	sc_buf_release(&line);
	return errors;
}

/* The findings of every changed skill, each with its side and state (an
 * untrusted block: names and messages come from the repository). */
static void print_findings(const struct sc_results *res)
{
	struct sc_buf tmp = SC_BUF_INIT, line = SC_BUF_INIT;

	for (size_t i = 0; i < res->nskills; i++) {
		const struct sc_results_skill *rs = &res->skills[i];
		if (!rs->nfindings)
			continue;
		sc_ci_block_begin(stderr);
		for (size_t f = 0; f < rs->nfindings; f++) {
			sc_buf_clear(&tmp);
			sc_buf_clear(&line);
			sc_findings_format(&tmp, &rs->findings[f]);
			sc_escape_log(&line, tmp.ptr);
			fprintf(stderr, "%s\n", line.ptr);
		}
		sc_ci_block_end(stderr);
	}
	sc_buf_release(&tmp);
	sc_buf_release(&line);
}

/* ---- evaluation -------------------------------------------------------- */

static void on_unit(size_t done, size_t total, const char *skill, enum sc_variant variant,
		    const char *model, const char *test_name, enum sc_unit_verdict verdict, bool reused,
		    void *payload)
{
	struct run_progress *rp = payload;

	SC_UNUSED(done);
	SC_UNUSED(total);
	sc_progress_unit(rp->progress, reused, verdict == SC_UNIT_ERROR);
	if (rp->verbose)
		sc_log(SC_LOG_INFO, "%s %s %s '%s': %s%s", skill, sc_variant_name(variant), model,
		       test_name, sc_unit_verdict_name(verdict), reused ? " (reused)" : "");
}

static void on_activity(const struct sc_eval_activity *a, void *payload)
{
	struct run_progress *rp = payload;

	sc_progress_activity(rp->progress, a->active, a->kernels_busy, (size_t)a->cache_hits);
}

static bool stop_requested(void *payload)
{
	SC_UNUSED(payload);
	return sc_signals_stop_requested();
}

/* ---- results ------------------------------------------------------------- */

/* The first infrastructure error among the units, as the cause to print. */
static const struct sc_results_unit *first_error(const struct sc_results *r)
{
	for (size_t i = 0; i < r->nunits; i++)
		if (r->units[i].verdict == SC_UNIT_ERROR)
			return &r->units[i];
	return NULL;
}

/* ---- the command --------------------------------------------------------- */

/*
 * What to do about a run that stopped before its verdict, from its cause
 * (set where the error happened, error.h): a missing API key or token
 * (every pull request from a fork: secrets do not reach it), a head that
 * does not merge, a revision the checkout does not have (a shallow
 * clone), a configuration with errors.
 */
static const char *setup_hint(enum sc_cause cause, bool shallow)
{
	switch (cause) {
	case SC_CAUSE_NO_KEY:
		return "no model API key reached this run. A pull request from a fork gets no "
		       "secrets: check it with the safe workflow for forks in docs/ci.md (a "
		       "workflow_run job on the base repository), or set the key as a secret";
	case SC_CAUSE_NOT_MERGEABLE:
		return "the pull request does not merge cleanly into its target branch, so what would "
		       "land cannot be judged: rebase it onto the target (or merge the target into "
		       "it) and resolve the conflicts, then push";
	case SC_CAUSE_CONFIG:
		return "fix the configuration's finding quoted here: the policy is the target "
		       "branch's skillci.yml (or --config)";
	case SC_CAUSE_REVISION:
		if (shallow)
			break;
		return "a revision is not in the clone: fetch the base branch (actions/checkout's "
		       "`fetch-depth: 0`) or give --base and --head";
	case SC_CAUSE_NONE:
		break;
	}
	if (shallow)
		return "the checkout is shallow, so the base revision or the merge base is missing: "
		       "check out with actions/checkout's `fetch-depth: 0`";
	return "see the error above; the check did not reach a verdict";
}

/*
 * A run that stops on setup (no key, a shallow clone, an unknown
 * revision, a bad configuration) is still reported where a reviewer
 * looks: the hint on stderr, and in GitHub Actions what report_github.c
 * renders of it (an ::error annotation, the step summary, the outputs
 * with verdict "error" and, with --comment, the sticky comment), each
 * saying what to do. Returns rc.
 */
static int report_setup_failure(int rc, const char *msg, enum sc_cause cause, bool shallow,
				bool comment, long long pr)
{
	const char *hint = setup_hint(cause, shallow);
	struct sc_buf md = SC_BUF_INIT, line = SC_BUF_INIT, out = SC_BUF_INIT, delim = SC_BUF_INIT;
	const char *summary = getenv("GITHUB_STEP_SUMMARY"), *output = getenv("GITHUB_OUTPUT");

	sc_escape_log(&line, hint);
	fprintf(stderr, "hint: %s\n", line.ptr);
	if (!in_actions())
		goto done;
	sc_report_gh_setup_markdown(&md, msg, hint, rc);
	sc_buf_clear(&line);
	sc_report_gh_setup_annotation(&line, msg, hint);
	fputs(line.ptr, stdout);
	fflush(stdout);
	if (summary && *summary && sc_report_gh_append_file(summary, md.ptr, md.len) < 0)
		fprintf(stderr, "warning: %s\n", sc_error_last());
	if (output && *output) {
		sc_report_gh_delimiter(&delim);
		if (sc_report_gh_setup_outputs(&out, msg, hint, rc, md.ptr, delim.ptr) < 0 ||
		    sc_report_gh_append_file(output, out.ptr, out.len) < 0)
			fprintf(stderr, "warning: %s\n", sc_error_last());
	}
	if (comment)
		(void)sc_cmd_post_comment(md.ptr, pr, NULL);  /* its own warnings; the exit code is rc */
done:
	sc_buf_release(&md);
	sc_buf_release(&line);
	sc_buf_release(&out);
	sc_buf_release(&delim);
	return rc;
}

/* Error out of the pipeline: exit 2 for input (an unknown revision is
 * input), 3 for infrastructure; reported as a setup failure too. */
static int pipeline_fail(int err, const struct sc_pipeline *p, bool comment)
{
	char *msg = sc_xstrdup(*sc_error_last() ? sc_error_last() : sc_error_name(err));
	enum sc_cause cause = sc_error_cause();
	int rc = sc_cmd_fail(err == SC_ENOTFOUND ? SC_EINVAL : err);

	rc = report_setup_failure(rc, msg, cause, p && sc_pipeline_shallow(p), comment,
				  sc_pipeline_pr_number(p));
	free(msg);
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	struct sc_pipeline *p = NULL;
	struct sc_pipeline_options popt;
	struct sc_pipeline_info info;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_store *store = NULL;
	struct sc_results *res;
	struct sc_progress progress;
	struct run_progress rprog;
	const struct sc_config *cfg;
	struct sc_buf tmp = SC_BUF_INIT;
	char workspace[4096];
	const char *store_path;
	char *run_id = NULL, *workflow_run = NULL;
	int64_t workflow_attempt = 0;
	bool progress_ready = false, signals_on = false;
	int shard_k = 1, shard_n = 1, rc = 0, err = 0, gate_rc = 0;

	memset(&o, 0, sizeof(o));
	if ((rc = parse_args(&o, argc, argv))) {
		rc = rc == 1 ? 0 : rc;
		goto done;
	}
	if (o.verbose)
		sc_log_set_level(SC_LOG_DEBUG);
	if (o.shard && sc_plan_parse_shard(&shard_k, &shard_n, o.shard, o.shard_count) < 0) {
		rc = sc_cmd_usage_error("run", "%s", sc_error_last());
		goto done;
	}
	if (!realpath(".", workspace)) {
		err = sc_error_set(SC_EIO, "cannot resolve the current folder: %s", strerror(errno));
		rc = sc_cmd_fail(err);
		goto done;
	}
	run_id = choose_run_id(&o, shard_n);
	/* the CI run this check belongs to: every shard records it */
	sc_shards_workflow_run(&workflow_run, &workflow_attempt, o.run_id);

	/* The revisions, the trusted policy, the fixtures and the models. */
	memset(&popt, 0, sizeof(popt));
	popt.repo = o.repo;
	popt.base = o.base;
	popt.head = o.head;
	popt.config = o.config;
	popt.models = o.models;
	popt.nmodels = o.nmodels;
	popt.runs = o.runs;
	popt.concurrency = o.concurrency;
	popt.max_units = o.max_units;
	popt.max_requests = o.max_requests;
	popt.retries = o.retries;
	popt.jobs = o.jobs;
	popt.fixtures = o.fixtures;
	popt.cache = o.cache;
	popt.no_cache = o.no_cache;
	popt.offline = o.offline;
	popt.no_reuse = o.no_reuse;
	popt.compile_only = o.compile_only;
	popt.allow_unpinned = o.allow_unpinned;
	popt.shard_k = shard_k;
	popt.shard_n = shard_n;
	popt.run_id = run_id;
	popt.workflow_run_id = workflow_run;
	popt.workflow_run_attempt = workflow_attempt;
	popt.workspace = workspace;
	popt.on_unit = on_unit;
	popt.on_activity = on_activity;
	popt.stop = stop_requested;
	popt.payload = &rprog;
	p = sc_pipeline_new();
	err = sc_pipeline_open(p, &popt, &diags);
	print_diags(&diags);  /* the configuration's findings, the fixtures' */
	if (err < 0) {
		rc = pipeline_fail(err, p, o.comment);
		goto done;
	}
	cfg = sc_pipeline_config(p);
	sc_pipeline_info(p, &info);
	store_path = sc_store_location(o.store, cfg->store_path);
	sc_cmd_reports_resolve(&o.reports, cfg);

	/* Every path this run writes stays in the workspace (or where a flag
	 * says), and is writable before the first request is paid for. */
	{
		const struct sc_cmd_reports *r = &o.reports;
		const struct { const char *key, *path; bool dir; } outs[] = {
			{ o.store ? "--store" : "store",
			  sc_store_is_postgres(store_path) ? NULL : store_path, false },
			{ o.cache ? "--cache" : "cache.dir", info.cache_dir, true },
			{ r->opt_junit ? "--junit" : r->opt_dir ? "--report-dir" : "reports.junit",
			  r->junit, false },
			{ r->opt_markdown ? "--markdown"
					  : r->opt_dir ? "--report-dir" : "reports.markdown",
			  r->markdown, false },
			{ r->opt_json ? "--json" : r->opt_dir ? "--report-dir" : "reports.json",
			  r->json, false },
			{ r->opt_html ? "--html" : r->opt_dir ? "--report-dir" : "reports.html",
			  r->html, true },
		};
		for (size_t i = 0; i < SC_ARRAY_SIZE(outs); i++) {
			if (!outs[i].path)
				continue;
			if ((err = sc_trust_check_output(outs[i].key, outs[i].path, workspace)) < 0 ||
			    (i >= 2 && (err = sc_trust_check_writable(outs[i].key, outs[i].path,
								     outs[i].dir)) < 0)) {
				rc = pipeline_fail(err, p, o.comment);
				goto done;
			}
		}
	}
	/* The store is reached before any work: a database that is down or
	 * cannot be written fails the run now (exit 3), before a paid request. */
	if ((rc = sc_cmd_open_store(&store, store_path, false))) {
		char *msg = sc_xstrdup(sc_error_last());
		rc = report_setup_failure(rc, msg, sc_error_cause(), false, o.comment,
					  sc_pipeline_pr_number(p));
		free(msg);
		goto done;
	}
	if ((err = sc_store_check_writable(store)) < 0) {
		rc = pipeline_fail(err, p, o.comment);
		goto done;
	}

	/* The changed skills, their findings, the plan and the budget. */
	err = sc_pipeline_prepare(p, store, &tmp);
	res = sc_pipeline_results(p);
	print_findings(res);
	if (tmp.len)
		sc_cmd_line(stderr, "%s", tmp.ptr);  /* names units: the skills' paths */
	if (err < 0) {
		rc = pipeline_fail(err, p, o.comment);
		goto done;
	}
	sc_pipeline_info(p, &info);

	/* Evaluate: this shard's units, streaming. */
	sc_progress_init(&progress, stderr, isatty(STDERR_FILENO) && !in_actions(), info.units);
	progress_ready = true;
	rprog.progress = &progress;
	rprog.verbose = o.verbose;
	fprintf(stderr, "skillci run: %zu changed skill%s, %zu units in the plan%s", info.changed,
		info.changed == 1 ? "" : "s", info.plan_units, shard_n > 1 ? "" : "\n");
	if (shard_n > 1)
		fprintf(stderr, ", %zu in shard %d/%d\n", info.units, shard_k, shard_n);
	sc_signals_install();
	signals_on = true;
	err = sc_pipeline_evaluate(p);
	sc_progress_finish(&progress);
	if (err < 0) {
		rc = pipeline_fail(err, p, o.comment);
		goto done;
	}
	sc_pipeline_finish(p, &gate_rc);
	sc_pipeline_info(p, &info);

	/* Store, then the results JSON and every report, from the results in
	 * memory (reporters/reports.h). */
	if ((err = sc_eval_store_run(store, res, "run", o.reports.json,
				     (res->run.complete ? SC_EVAL_STORE_AGGREGATES : 0) |
				     (res->run.shard_count > 1 ? SC_EVAL_STORE_SHARD : 0))) < 0) {
		rc = pipeline_fail(err, p, o.comment);
		goto done;
	}
	sc_cmd_reports_mkdirs(&o.reports);
	if ((rc = sc_cmd_reports_write(&o.reports, res, o.comment, sc_pipeline_pr_number(p),
				       store_path)))
		goto done;
	{
		struct sc_buf line = SC_BUF_INIT;
		sc_buf_puts(&line, "reports: ");
		sc_escape_log(&line, o.reports.junit);
		sc_buf_puts(&line, ", ");
		sc_escape_log(&line, o.reports.markdown);
		sc_buf_puts(&line, ", ");
		sc_escape_log(&line, o.reports.html);
		sc_buf_puts(&line, "/report.html, ");
		sc_escape_log(&line, o.reports.json);
		fprintf(stderr, "%s\n", line.ptr);
		sc_buf_release(&line);
	}

	if (info.stopped) {
		fprintf(stderr, "error: %s; the reports are marked incomplete and a rerun resumes "
			"from the store\n", res->run.incomplete_reason);
		rc = SC_EXIT_INFRA;
	} else {
		/* infrastructure errors over the share are said with their first
		 * cause even when a failure of the pull request decides the exit */
		bool share = false;
		for (size_t i = 0; i < res->gate.nfailures; i++)
			share |= sc_streq(res->gate.failures[i].rule, "error_share");
		if (share || gate_rc == SC_EXIT_INFRA) {
			const struct sc_results_unit *e = first_error(res);
			struct sc_buf line = SC_BUF_INIT;
			sc_buf_puts(&line, "error: ");
			for (size_t i = 0; i < res->gate.nfailures; i++)
				if (!strcmp(res->gate.failures[i].rule, "error_share"))
					sc_escape_log(&line, res->gate.failures[i].message);
			if (e) {
				sc_buf_puts(&line, "\nerror: first failure: ");
				sc_escape_log(&line, e->skill);
				sc_buf_putc(&line, ' ');
				sc_escape_log(&line, e->model);
				sc_buf_puts(&line, " '");
				sc_escape_log(&line, e->test_name);
				sc_buf_puts(&line, "': ");
				sc_escape_log(&line, e->message ? e->message : "infrastructure error");
			}
			sc_ci_block_begin(stderr);
			fprintf(stderr, "%s\n", line.ptr);
			sc_ci_block_end(stderr);
			sc_buf_release(&line);
		}
		if (gate_rc == SC_EXIT_INFRA) {
			rc = SC_EXIT_INFRA;
		} else if (shard_n > 1) {
			fprintf(stderr, "shard %d/%d done: the gate is decided by skillci merge\n",
				shard_k, shard_n);
			rc = SC_EXIT_OK;
		} else {
			sc_cmd_print_gate_failures(res);
			rc = gate_rc;
		}
	}
done:
	if (signals_on)
		sc_signals_restore();
	if (progress_ready)
		sc_progress_release(&progress);
	sc_pipeline_free(p);
	sc_store_free(store);
	sc_diags_release(&diags);
	sc_buf_release(&tmp);
	sc_cmd_reports_release(&o.reports);
	free(run_id);
	free(workflow_run);
	return rc;
}
