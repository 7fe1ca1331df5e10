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

#include <math.h>
#include <unistd.h>


/* What the command takes: the pipeline's options, filled by the table, and its own. */
struct run_opts {
	struct sc_pipeline_options p;
	const char *store, *shard, *run_id;
	struct sc_cmd_reports reports;
	int batch, shard_count;
	bool comment, verbose;
};

static const struct sc_option run_table[] = {
	SC_OPT_STRING("repo", 0, struct run_opts, p.repo, "R", "repository path or URL (default .)"),
	SC_OPT_STRING("base", 0, struct run_opts, p.base, "A",
	  "base revision (default: the event's, else origin/HEAD, origin/main,\n"
	  "main or master); the merge base of A and B is compared"),
	SC_OPT_STRING("head", 0, struct run_opts, p.head, "B",
	  "head revision (default: the event's, else HEAD)"),
	SC_OPT_STRING("config", 0, struct run_opts, p.config, "F",
	  "configuration (default skillci.yml in the repository)"),
	SC_OPT_LIST("model", 'm', struct run_opts, p.models, p.nmodels, 64, "MODEL",
	  "student model (repeat); default: models in skillci.yml"),
	SC_OPT_INT("runs", 0, struct run_opts, p.runs, 1, 1000, "N",
	  "runs per test, a fixed design (default: skillci.yml runs:, else 1;\n"
	  "without it gate.max_runs samples sequentially)"),
	SC_OPT_STRING("fixtures", 0, struct run_opts, p.fixtures, "DIR",
	  "kernel fixtures folder (default: skillci.yml, else fixtures)"),
	SC_CMD_REPORT_OPTIONS(struct run_opts, reports),
	SC_OPT_FLAG("comment", 0, struct run_opts, comment,
	  "create or update the sticky PR comment (GitHub Actions)"),
	SC_OPT_STRING("shard", 0, struct run_opts, shard, "K/N|auto",
	  "evaluate shard K of N (units split by a stable hash of their id);\n"
	  "'auto' reads a Slurm array or Kubernetes Indexed Job index"),
	SC_OPT_INT("shard-count", 0, struct run_opts, shard_count, 1, SC_MAX_SHARDS, "N",
	  "number of shards for --shard auto in an Indexed Job"),
	SC_OPT_STRING("run-id", 0, struct run_opts, run_id, "ID",
	  "the run's id, shared by every shard of one sharded run so that\n"
	  "'skillci merge --run ID' joins them from the store (default: new;\n"
	  "a sharded run takes gh-$GITHUB_RUN_ID in GitHub Actions and\n"
	  "slurm-$SLURM_ARRAY_JOB_ID in a Slurm array)"),
	SC_OPT_FLAG("offline", 0, struct run_opts, p.offline, "answer from the response cache only"),
	SC_OPT_INT("jobs", 0, struct run_opts, p.jobs, 1, SC_MAX_JOBS, "N",
	  "kernel checks at once, each in its own worker process (default:\n"
	  "one per GPU; without a GPU, one per CPU)"),
	SC_OPT_INT("concurrency", 0, struct run_opts, p.concurrency, 1, 10000, "N",
	  "model requests in flight, all providers together (default:\n"
	  "skillci.yml concurrency, else 64)"),
	SC_OPT_INT("batch", 0, struct run_opts, batch, 1, 100000, "N",
	  "deprecated, no effect: units stream (docs/run.md)"),
	SC_OPT_STRING("store", 0, struct run_opts, store, "LOCATION",
	  "results store: a SQLite file or postgresql://… (default:\n"
	  "$SKILLCI_STORE, else skillci.yml, else .skillci/results.db)"),
	SC_OPT_STRING("cache", 0, struct run_opts, p.cache, "DIR",
	  "response cache (default: skillci.yml, else .skillci/cache)"),
	SC_OPT_FLAG("no-cache", 0, struct run_opts, p.no_cache, "no response cache"),
	SC_OPT_FLAG("no-reuse", 0, struct run_opts, p.no_reuse,
	  "evaluate every unit even when the store has it"),
	SC_OPT_INT("retries", 0, struct run_opts, p.retries, 0, 20, "N",
	  "retries per model request after the first try (default 5)"),
	SC_OPT_FLAG("compile-only", 0, struct run_opts, p.compile_only,
	  "check kernels without a GPU even when one is present"),
	SC_OPT_FLAG("allow-unpinned", 0, struct run_opts, p.allow_unpinned,
	  "accept fixtures missing from or changed since fixtures.lock"),
	SC_OPT_INT("max-units", 0, struct run_opts, p.max_units, 1, SC_MAX_RUN_UNITS, "N",
	  "budget: most units this run may plan (default: skillci.yml,\n"
	  "else 10000)"),
	SC_OPT_INT("max-requests", 0, struct run_opts, p.max_requests, 1, SC_MAX_RUN_UNITS, "N",
	  "budget: most model requests the plan may need (default: skillci.yml,\n"
	  "else 20000); a plan over either exits 2 before any request"),
	SC_OPT_FLAG("verbose", 'v', struct run_opts, verbose, "one line per unit"),
	SC_OPT_END,
};

static const struct sc_options run_spec = {
	"run", NULL,
	"The PR check: evaluates the skills changed between two revisions without the\n"
	"skill (baseline), at the base and at the head revision, writes the reports and\n"
	"applies the gate.",
	"Policy (models, runs, gate, budget, paths, fixtures) comes from these flags and\n"
	"the base revision's skillci.yml, never from the pull request: the head's\n"
	"skillci.yml is only compared and reported (docs/security.md).\n"
	"With GITHUB_ACTIONS=true the revisions come from $GITHUB_EVENT_PATH and the\n"
	"reports also go to the step summary, outputs and annotations.\n"
	"exit codes: 0 gate passed, 1 gate failed, 2 bad usage/config/input,\n"
	"3 infrastructure failure or interrupted (reports are then marked incomplete).\n",
	run_table, SC_OPTS_NONEMPTY,
};

/* What the progress callbacks of the evaluation share. */
struct run_progress {
	struct sc_progress *progress;
	bool verbose;
};

/* ---- options ------------------------------------------------------------- */

static bool in_actions(void);

/* Returns 0 to go on, SC_CMD_HELP after --help, or an exit code. */
static int parse_args(struct run_opts *o, int argc, char **argv)
{
	int rc, nargs;

	o->p.repo = ".";
	o->p.retries = SC_PROVIDER_MAX_ATTEMPTS - 1;
	if ((rc = sc_cmd_options(&run_spec, o, argc, argv, &nargs)))
		return rc;
	if (nargs)
		return sc_cmd_usage_error("run", "unexpected argument '%s'", argv[1]);
	if (o->batch)
		fprintf(stderr, "warning: --batch is deprecated and has no effect: units "
			"stream, each starting when a request slot is free (docs/run.md)\n");
	if (o->p.offline && o->p.no_cache)
		return sc_cmd_usage_error("run", "--offline needs the response cache");
	if (o->run_id && !sc_shards_run_id_valid(o->run_id))
		return sc_cmd_usage_error("run", "--run-id '%s' must be 1 to %d letters, digits, '.', "
					  "'_' or '-'", o->run_id, SC_RUN_ID_MAX);
	return 0;
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

/*
 * Infrastructure errors over the gate's share (or a gate that exits 3)
 * are said on stderr with their first cause, even when a failure of the
 * pull request decides the exit (an untrusted block: names come from the
 * repository).
 */
static void print_error_share(const struct sc_results *res, int gate_rc)
{
	const struct sc_results_unit *e;
	struct sc_buf line = SC_BUF_INIT;
	bool share = false;

	for (size_t i = 0; i < res->gate.nfailures; i++)
		share |= sc_streq(res->gate.failures[i].rule, "error_share");
	if (!share && gate_rc != SC_EXIT_INFRA)
		return;
	e = first_error(res);
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

/* ---- the command --------------------------------------------------------- */

/*
 * A run that stops on setup (no key, a shallow clone, an unknown
 * revision, a bad configuration) is still reported where a reviewer
 * looks: the hint its cause gives (sc_cause_hint) on stderr, and in
 * GitHub Actions what report_github.c renders of it (an ::error
 * annotation, the step summary, the outputs with verdict "error") and,
 * with --comment, the sticky comment, each saying what to do. Returns rc.
 */
static int report_setup_failure(int rc, const char *msg, enum sc_cause cause, bool shallow,
				bool comment, long long pr)
{
	const char *hint = sc_cause_hint(cause, shallow);
	struct sc_buf md = SC_BUF_INIT, line = SC_BUF_INIT, warnings = SC_BUF_INIT;

	sc_escape_log(&line, hint);
	fprintf(stderr, "hint: %s\n", line.ptr);
	if (in_actions()) {
		/* each file that could not be written: one warning line */
		if (sc_report_gh_setup_failure(stdout, &md, &warnings, msg, hint, rc) < 0)
			for (char *w = warnings.ptr, *nl; *w && (nl = strchr(w, '\n')); w = nl + 1)
				fprintf(stderr, "warning: %.*s\n", (int)(nl - w), w);
		/* the comment prints its own warnings; the exit code is rc */
		if (comment)
			(void)sc_cmd_post_comment(md.ptr, pr, NULL);
	}
	sc_buf_release(&md);
	sc_buf_release(&line);
	sc_buf_release(&warnings);
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
	struct sc_pipeline_options *popt;
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
		rc = rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
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
	run_id = sc_shards_run_id(o.run_id, shard_n);
	/* the CI run this check belongs to: every shard records it */
	sc_shards_workflow_run(&workflow_run, &workflow_attempt, o.run_id);

	/* The revisions, the trusted policy, the fixtures and the models. */
	popt = &o.p;
	popt->shard_k = shard_k;
	popt->shard_n = shard_n;
	popt->run_id = run_id;
	popt->workflow_run_id = workflow_run;
	popt->workflow_run_attempt = workflow_attempt;
	popt->workspace = workspace;
	popt->on_unit = on_unit;
	popt->on_activity = on_activity;
	popt->stop = stop_requested;
	popt->payload = &rprog;
	p = sc_pipeline_new();
	err = sc_pipeline_open(p, popt, &diags);
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
			{ o.p.cache ? "--cache" : "cache.dir", info.cache_dir, true },
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
		print_error_share(res, gate_rc);
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
	sc_options_release(&run_spec, &o);
	free(run_id);
	free(workflow_run);
	return rc;
}
