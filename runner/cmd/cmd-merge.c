/*
 * skillci merge SHARD.json...: joins the results of the shards of one
 * sharded `skillci run` (docs/run.md, "Shards") into one results JSON,
 * renders the reports and applies the gate, as the unsharded run would
 * have. `skillci merge --run ID` takes the shards from the results store
 * instead (each shard stores its results there, docs/store.md), and
 * stores the merged run with its aggregates under ID.
 *
 * Every shard must carry a signature under this runner's key or a trusted
 * one (results/signing.h): an artifact anyone else wrote or edited is
 * refused, naming the key that signed it and what to set. The shards must
 * make one whole plan and agree on what they judged, with each other and
 * with the commits and workflow run this merge is told to judge (--head,
 * --base, --workflow-run; in GitHub Actions, the job's own pull request
 * and run): pipeline/shards.h checks and merges them.
 *
 * Exit codes: 0 the gate passed, 1 it failed, 2 bad usage or shards that
 * do not belong together, 3 a report could not be written, too many
 * infrastructure errors, or the GitHub API could not be asked.
 */
#include "common.h"
#include "cmd/cmd.h"
#include "diag.h"
#include "eval/eval.h"
#include "pipeline/combine.h"
#include "pipeline/config.h"
#include "pipeline/gate.h"
#include "pipeline/ghpr.h"
#include "pipeline/shards.h"
#include "results/results.h"
#include "results/store.h"

#include <unistd.h>

struct merge_opts {
	const char *config, *run_id, *store, *head, *base, *workflow_run;
	struct sc_cmd_reports reports;
	bool comment;
};

static const struct sc_option merge_table[] = {
	SC_OPT_STRING("run", 0, struct merge_opts, run_id, "ID",
		      "take the shards of run ID (skillci run --run-id ID) from the results\n"
		      "store instead of files, and store the merged run there"),
	SC_OPT_STRING("store", 0, struct merge_opts, store, "LOCATION",
		      "results store: a SQLite file or postgresql://… (default\n"
		      "$SKILLCI_STORE, else skillci.yml, else .skillci/results.db)"),
	SC_OPT_STRING("config", 0, struct merge_opts, config, "F",
		      "gate thresholds and report paths (default: the gate the shards ran\n"
		      "with, which `run` took from the base revision; the workspace's\n"
		      "skillci.yml is the pull request's and is not read)"),
	SC_CMD_REPORT_OPTIONS(struct merge_opts, reports),
	SC_OPT_FLAG("comment", 0, struct merge_opts, comment,
		    "create or update the sticky PR comment (GitHub Actions)"),
	SC_OPT_STRING("head", 0, struct merge_opts, head, "SHA",
		      "the pull request's head the shards must have judged (default in\n"
		      "GitHub Actions: the job's pull request, from its own event or,\n"
		      "in a workflow_run job, the GitHub API)"),
	SC_OPT_STRING("base", 0, struct merge_opts, base, "SHA",
		      "the target's tip the shards must have judged (default as --head)"),
	SC_OPT_STRING("workflow-run", 0, struct merge_opts, workflow_run, "ID[/ATTEMPT]",
		      "the workflow run every shard must belong to, as run records it\n"
		      "(gh-RUN_ID, slurm-ARRAY_JOB_ID, or its --run-id; default in GitHub\n"
		      "Actions: this job's run and attempt)"),
	SC_OPT_END,
};

static const struct sc_options merge_spec = {
	"merge", "SHARD.json...",
	"Merges the results of every shard of one sharded run (skillci run --shard K/N)\n"
	"into one results JSON, renders the reports and applies the gate. With --run ID\n"
	"the shards come from the results store instead of files.",
	"exit codes: 0 gate passed, 1 gate failed, 2 bad usage or shards that are not one\n"
	"whole plan, 3 a report could not be written or too many infrastructure errors.\n",
	merge_table, 0,
};

/* Returns 0 to go on (the shard files in argv[1..*nfiles]), SC_CMD_HELP or an exit code. */
static int parse_args(struct merge_opts *o, int argc, char **argv, int *nfiles)
{
	int rc;

	if ((rc = sc_cmd_options(&merge_spec, o, argc, argv, nfiles)))
		return rc;
	if (o->run_id && *nfiles)
		return sc_cmd_usage_error("merge", "give shard files or --run ID, not both");
	if (o->store && !o->run_id)
		return sc_cmd_usage_error("merge", "--store goes with --run ID");
	if (o->run_id)
		return 0;
	if (!*nfiles)
		return sc_cmd_usage_error("merge", "name the shard results files, or --run ID to "
					  "take them from the results store");
	if (*nfiles > SC_MAX_MERGE_FILES)
		return sc_cmd_usage_error("merge", "at most %d shard files", SC_MAX_MERGE_FILES);
	return 0;
}

/* A full commit id (40 or 64 lowercase hex digits). */
static bool hex_id(const char *s)
{
	size_t n = strspn(s, "0123456789abcdef");
	return (n == 40 || n == 64) && !s[n];
}

/*
 * What this merge judges (shards.h): the flags, else in GitHub Actions the
 * job's pull request (its own event, or the API in a workflow_run job) and
 * its workflow run. Strings are set into the caller's buffers.
 */
static int expectations(struct sc_shards_expect *want, struct sc_ghpr *pr, char **run,
			const struct merge_opts *o)
{
	struct sc_ghpr_env env;
	int err;

	memset(want, 0, sizeof(*want));
	if (o->head && !hex_id(o->head))
		return sc_cmd_usage_error("merge", "--head '%s' is not a full commit id", o->head);
	if (o->base && !hex_id(o->base))
		return sc_cmd_usage_error("merge", "--base '%s' is not a full commit id", o->base);
	want->head = o->head;
	want->head_from = "--head";
	want->base = o->base;
	want->base_from = "--base";
	sc_ghpr_env_from_environ(&env);
	if (env.actions && !strcmp(env.actions, "true") && (!o->head || !o->base)) {
		err = sc_ghpr_resolve(pr, &env, o->head);
		if (pr->ignored)
			sc_cmd_line(stderr, "warning: %s", pr->ignored);
		if (err < 0)
			return sc_cmd_fail(err);
		if (!want->head && pr->head) {
			want->head = pr->head;
			want->head_from = !strcmp(pr->source ? pr->source : "", "api")
					  ? "the pull request's head, from the GitHub API"
					  : "the head of this job's event";
		}
		if (!want->base && pr->base) {
			want->base = pr->base;
			want->base_from = !strcmp(pr->source ? pr->source : "", "api")
					  ? "the pull request's base, from the GitHub API"
					  : "the base of this job's event";
		}
	}
	if (o->workflow_run) {
		const char *slash = strchr(o->workflow_run, '/');
		int attempt = 0;
		*run = slash ? sc_xstrndup(o->workflow_run, (size_t)(slash - o->workflow_run))
			     : sc_xstrdup(o->workflow_run);
		if (slash && sc_parse_int(&attempt, slash + 1, 1, INT32_MAX) < 0)
			return sc_cmd_usage_error("merge", "--workflow-run '%s': the attempt after '/' "
						  "is a whole number from 1", o->workflow_run);
		want->workflow_run_id = *run;
		want->workflow_run_attempt = attempt;
		want->run_from = "--workflow-run";
	} else {
		int64_t attempt = 0;
		sc_shards_workflow_run(run, &attempt, NULL);
		want->workflow_run_id = *run;
		want->workflow_run_attempt = attempt;
		want->run_from = "this job's workflow run";
	}
	return 0;
}

int cmd_merge(int argc, char **argv)
{
	struct merge_opts o;
	struct sc_config cfg;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_results *sh = NULL, res;
	struct sc_shards_stored stored;
	struct sc_shards_expect want;
	struct sc_ghpr pr = SC_GHPR_INIT;
	struct sc_store *store = NULL;
	const char *store_at;
	const char *const *labels;
	char *run = NULL;
	size_t n = 0, *order = NULL;
	int rc, err, gate_rc, nfiles;

	memset(&o, 0, sizeof(o));
	memset(&stored, 0, sizeof(stored));
	sc_config_defaults(&cfg);
	sc_results_init(&res);
	if ((rc = parse_args(&o, argc, argv, &nfiles))) {
		sc_config_release(&cfg);
		return rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	}
	sc_config_release(&cfg);
	if (o.config) {
		err = sc_config_load(&cfg, ".", o.config, &diags);
	} else {
		sc_config_defaults(&cfg);
		err = 0;
	}
	if (diags.n) {
		struct sc_buf line = SC_BUF_INIT;
		for (size_t i = 0; i < diags.n; i++) {
			sc_buf_clear(&line);
			sc_diag_format(&line, &diags.items[i]);
			sc_cmd_line(stderr, "%s", line.ptr);
		}
		sc_buf_release(&line);
	}
	if (err < 0) {
		rc = sc_cmd_fail(err == SC_ENOTFOUND ? SC_EINVAL : err);
		goto done;
	}
	if (sc_diags_count(&diags, SC_SEV_ERROR)) {
		fprintf(stderr, "error: the configuration has errors (above)\n");
		rc = SC_EXIT_USAGE;
		goto done;
	}
	/* what the shards must have judged: the flags, the job's pull request */
	if ((rc = expectations(&want, &pr, &run, &o)))
		goto done;
	if (o.run_id) {
		/* the shards' results from the store */
		if ((rc = sc_cmd_open_store(&store, sc_store_location(o.store, cfg.store_path), true)))
			goto done;
		err = sc_shards_load_stored(&stored, store, o.run_id);
		n = stored.n;
		sh = stored.sh;
		labels = (const char *const *)stored.labels;
		if (err < 0) {
			rc = sc_cmd_fail(err == SC_ENOTFOUND ? SC_EINVAL : err);
			goto done;
		}
	} else {
		n = (size_t)nfiles;
		sh = sc_xcalloc(n, sizeof(*sh));
		for (size_t i = 0; i < n; i++)
			sc_results_init(&sh[i]);
		for (size_t i = 0; i < n; i++) {
			/* an artifact is someone else's until its signature holds */
			if ((err = sc_results_verify_file(argv[1 + i])) < 0 ||
			    (err = sc_results_load(&sh[i], argv[1 + i])) < 0) {
				rc = sc_cmd_fail(err == SC_ENOTFOUND || err == SC_EIO ? SC_EINVAL : err);
				goto done;
			}
			sh[i].untrusted = false;
		}
		labels = (const char *const *)(argv + 1);
	}
	order = sc_xcalloc(n ? n : 1, sizeof(*order));
	if ((err = sc_shards_check(order, sh, labels, n, &want)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	if (!o.config) {
		/* the thresholds the shards ran with, the same in every shard */
		const struct sc_results_gate_policy *g;
		if ((err = sc_shards_gate(&g, sh, labels, n)) < 0) {
			rc = sc_cmd_usage_error("merge", "%s", sc_error_last());
			goto done;
		}
		if (g->present)
			sc_gate_policy_to_config(&cfg.gate, g);
	}
	sc_shards_merge(&res, sh, order, n, o.run_id, cfg.gate.alpha);
	/* a status the units contradict is not taken (docs/security.md) */
	sc_report_distrust_statuses(&res, "a shard");
	/* The skills' findings come with every shard: the validity check is
	 * decided again from them, like every other check. */
	gate_rc = sc_gate_apply(&res, &cfg.gate);

	sc_cmd_reports_resolve(&o.reports, &cfg);
	sc_cmd_reports_mkdirs(&o.reports);
	if ((err = sc_results_save(&res, o.reports.json)) < 0) {
		rc = sc_cmd_fail(SC_EIO);
		goto done;
	}
	if (store) {
		/* the merged run joins the history: its row and aggregates */
		if ((err = sc_eval_store_run(store, &res, "run", o.reports.json,
					     SC_EVAL_STORE_AGGREGATES)) < 0) {
			rc = sc_cmd_fail(SC_EIO);
			goto done;
		}
	}
	store_at = store ? sc_store_location(o.store, cfg.store_path) : NULL;
	sc_results_sort(&res);
	{
		/* the results JSON is written above, before the store; the
		 * comment goes to the pull request of the head judged */
		struct sc_cmd_reports rest = o.reports;
		rest.json = NULL;
		if ((rc = sc_cmd_reports_write(&rest, &res, o.comment, 0, store_at)))
			goto done;
	}
	sc_cmd_line(stderr, "merged %zu shards (%zu units): %s, %s, %s/report.html, %s", n, res.nunits,
		    o.reports.junit, o.reports.markdown, o.reports.html, o.reports.json);
	sc_cmd_print_gate_failures(&res);
	rc = gate_rc;
done:
	if (o.run_id) {
		sc_shards_stored_release(&stored);
	} else {
		for (size_t i = 0; sh && i < n; i++)
			sc_results_release(&sh[i]);
		free(sh);
	}
	sc_store_free(store);
	free(order);
	free(run);
	sc_ghpr_release(&pr);
	sc_results_release(&res);
	sc_config_release(&cfg);
	sc_diags_release(&diags);
	sc_cmd_reports_release(&o.reports);
	return rc;
}
