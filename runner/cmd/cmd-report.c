/*
 * skillci report: renders the reports of a results JSON file (or of a base
 * and a head file) without evaluating anything. Writes each requested
 * report atomically, prints the terminal summary to stdout, and inside
 * GitHub Actions adds annotations, outputs, the step summary and, with
 * --comment, the sticky pull-request comment.
 *
 * Exit codes: 0 when the reports were written (whatever the gate said: the
 * gate's code is the business of `run`, and is in the outputs); 2 for bad
 * usage or input; 3 when a report cannot be written or GitHub cannot be
 * reached.
 */
#include "common.h"
#include "escape.h"
#include "cmd/cmd.h"
#include "net/github_api.h"
#include "results/results.h"
#include "pipeline/combine.h"
#include "reporters/report_md.h"
#include "reporters/report_term.h"
#include "reporters/reports.h"
#include "results/store.h"
#include "pipeline/config.h"
#include "pipeline/gate.h"
#include "eval/eval.h"
#include "diag.h"

#include <unistd.h>

struct opts {
	const char *results, *base, *junit, *markdown, *markdown_full, *html, *json, *store;
	const char *config;
	bool comment, file_attrs;
	const char *const *history_files;
	size_t nhistory;
};

static const struct sc_option report_table[] = {
	SC_OPT_STRING("base", 0, struct opts, base, "FILE",
		      "diff against a second single-run results file (base -> head)"),
	SC_OPT_STRING("junit", 0, struct opts, junit, "FILE",
		      "JUnit XML, the gate's verdict: a testcase per gate check and per\n"
		      "head test, failures only where the gate failed (valid against\n"
		      "the Jenkins junit-10.xsd)"),
	SC_OPT_FLAG("junit-file-attrs", 0, struct opts, file_attrs,
		    "add file/line and properties on testcases (no longer valid\n"
		    "against junit-10.xsd)"),
	SC_OPT_STRING("markdown", 0, struct opts, markdown, "FILE",
		      "Markdown report, kept under 65,536 characters (PR comment size)"),
	SC_OPT_STRING("markdown-full", 0, struct opts, markdown_full, "FILE",
		      "Markdown report with every detail"),
	SC_OPT_STRING("html", 0, struct opts, html, "DIR",
		      "DIR/report.html (self-contained) and DIR/index.html\n"
		      "(history charts)"),
	SC_OPT_STRING("json", 0, struct opts, json, "FILE",
		      "the results as read (and combined with --base), normalised"),
	SC_OPT_GREEDY_LIST("history", 0, struct opts, history_files, nhistory, 0, "R.json",
			   "more results files (every argument up to the next option) whose\n"
			   "aggregates make the history on index.html"),
	SC_OPT_STRING("store", 0, struct opts, store, "LOCATION",
		      "also the history of these skills from the results store\n"
		      "(a SQLite file or postgresql://…): every stored run's\n"
		      "aggregates"),
	SC_OPT_STRING("config", 0, struct opts, config, "F",
		      "the gate's thresholds (default: the built-in ones); the\n"
		      "verdict is recomputed from the file's units, never read\n"
		      "from it, and a file without units is shown as unverified"),
	SC_OPT_FLAG("comment", 0, struct opts, comment,
		    "create or update the sticky PR comment (GITHUB_TOKEN,\n"
		    "GITHUB_REPOSITORY, GITHUB_EVENT_PATH, GITHUB_API_URL)"),
	SC_OPT_END,
};

static const struct sc_options report_spec = {
	"report", "RESULTS.json",
	"Renders reports from results JSON; evaluates nothing.",
	"The terminal summary goes to stdout (no colour unless a TTY without NO_COLOR).\n"
	"With GITHUB_ACTIONS=true: annotations on regressed skills, $GITHUB_OUTPUT,\n"
	"$GITHUB_STEP_SUMMARY and log groups.\n"
	"exit codes: 0 reports written (even when the gate failed), 2 bad usage or input,\n"
	"3 a report could not be written or GitHub could not be reached.\n",
	report_table, 0,
};

/* Parses the command line. Returns 0, SC_CMD_HELP after --help, or SC_EXIT_USAGE. */
static int parse_args(struct opts *o, int argc, char **argv)
{
	int rc, nargs;

	if ((rc = sc_cmd_options(&report_spec, o, argc, argv, &nargs)))
		return rc;
	if (nargs > 1)
		return sc_cmd_usage_error("report", "unexpected argument '%s'", argv[2]);
	if (!nargs)
		return sc_cmd_usage_error("report", "a results JSON file is required");
	o->results = argv[1];
	if (o->nhistory && !o->html)
		return sc_cmd_usage_error("report", "--history needs --html DIR (the index page goes there)");
	if (o->store && !o->html)
		return sc_cmd_usage_error("report", "--store needs --html DIR (the index page goes there)");
	return 0;
}

/*
 * The trusted policy: --config's gate, else the built-in thresholds.
 * Prints the file's findings; returns 0 or an exit code.
 */
static int load_policy(struct sc_config *cfg, const char *path)
{
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_buf line = SC_BUF_INIT;
	int err, rc = 0;

	if (!path) {
		sc_config_defaults(cfg);
		return 0;
	}
	err = sc_config_load(cfg, ".", path, &diags);
	for (size_t i = 0; i < diags.n; i++) {
		sc_buf_clear(&line);
		sc_diag_format(&line, &diags.items[i]);
		sc_cmd_line(stderr, "%s", line.ptr);
	}
	if (err < 0)
		rc = sc_cmd_fail(err == SC_ENOTFOUND ? SC_EINVAL : err);
	else if (sc_diags_count(&diags, SC_SEV_ERROR)) {
		fprintf(stderr, "error: the configuration has errors (above)\n");
		rc = SC_EXIT_USAGE;
	}
	sc_diags_release(&diags);
	sc_buf_release(&line);
	return rc;
}

/* "passed" or "failed", for messages. */
static const char *verdict_word(bool passed)
{
	return passed ? "passed" : "failed";
}

/*
 * The verdict of the file(s) is recomputed, never read (docs/security.md):
 * aggregates and comparisons from each file's units, statuses held against
 * the units, then the gate from the trusted policy (--config, else the
 * built-in thresholds). A file with no unit cannot be checked: its verdict
 * is shown as its claim, unverified, and fails. A claim that differs from
 * the recomputed verdict is said on stderr.
 */
int cmd_report(int argc, char **argv)
{
	struct opts o;
	struct sc_results r, base;
	struct sc_reports rep;
	struct sc_buf comment = SC_BUF_INIT;
	bool in_actions = getenv("GITHUB_ACTIONS") && !strcmp(getenv("GITHUB_ACTIONS"), "true");
	struct sc_config cfg;
	struct sc_strlist claimed_skills = { 0 };
	bool claimed, verified;
	size_t nunits;
	const char *label, *policy;
	int rc, err, sig;

	memset(&cfg, 0, sizeof(cfg));
	memset(&o, 0, sizeof(o));
	sc_results_init(&r);
	sc_results_init(&base);
	rc = parse_args(&o, argc, argv);
	if (rc) {
		rc = rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
		goto done_opts;
	}
	if ((rc = load_policy(&cfg, o.config)))
		goto done;
	/* a file signed by a trusted runner key was written by skillci on the
	 * fleet: its recorded thresholds are that run's trusted policy (the
	 * signature is checked on the bytes read, the file read once) */
	if ((err = sc_results_load_signed(&r, o.results, &sig)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	verified = sig == 0;
	sc_error_clear();
	policy = o.config ? "--config" : "built-in";
	if (verified && !o.config && r.run.trust.gate.present) {
		sc_gate_policy_to_config(&cfg.gate, &r.run.trust.gate);
		policy = "signed run's";
	}
	claimed = r.gate.passed;
	nunits = r.nunits;
	/* the skills the file gives numbers for: each must come with units
	 * (loading sorted the aggregates by skill: each skill's are adjacent) */
	for (size_t i = 0; i < r.naggregates; i++)
		if (!claimed_skills.n ||
		    !sc_streq(claimed_skills.items[claimed_skills.n - 1], r.aggregates[i].skill))
			sc_strlist_add(&claimed_skills, r.aggregates[i].skill);
	if (nunits)
		sc_eval_aggregate(&r, cfg.gate.alpha);
	if (o.base) {
		if ((err = sc_results_load_signed(&base, o.base, &sig)) < 0) {
			rc = sc_cmd_fail(err);
			goto done;
		}
		if (sig < 0)
			verified = false;
		sc_error_clear();
		if (base.nunits)
			sc_eval_aggregate(&base, cfg.gate.alpha);
		nunits += base.nunits;
		sc_report_combine(&r, &base);
	}
	label = strrchr(o.results, '/') ? strrchr(o.results, '/') + 1 : o.results;
	if (nunits) {
		sc_report_distrust_statuses(&r, label);
		sc_gate_apply(&r, &cfg.gate);
		sc_report_claims_without_units(&r, &claimed_skills, label);
		if (r.gate.passed != claimed)
			sc_cmd_line(stderr, "warning: '%s' claims the gate %s; recomputed from its units "
				    "and the %s thresholds it %s", o.results, verdict_word(claimed),
				policy, verdict_word(r.gate.passed));
	} else {
		sc_report_unverified(&r, label);
		sc_cmd_line(stderr, "warning: '%s' holds no units: its verdict (%s) is its claim, "
			    "unverified, and is reported as failed", o.results, verdict_word(claimed));
	}
	/* --json re-signs only what it verified: an unsigned or forged input
	 * is written unsigned, so merge and report elsewhere refuse it */
	r.untrusted = !verified;
	if (!verified)
		/* the verdict is recomputed, but which units and skills the file
		 * holds is still its own say */
		sc_cmd_line(stderr, "warning: '%s'%s is not signed by a trusted runner key: the "
			    "verdict is recomputed from the units it holds, and which units and skills "
			    "it holds is its own claim", o.results, o.base ? " (or its --base file)" : "");
	if (o.store) {
		/* the history's store must be there: say so as every reader does */
		struct sc_store *st = NULL;
		if ((rc = sc_cmd_open_store(&st, o.store, true)))
			goto done;
		sc_store_free(st);
	}
	memset(&rep, 0, sizeof(rep));
	rep.junit = o.junit;
	rep.markdown = o.markdown;
	rep.markdown_full = o.markdown_full;
	rep.html_dir = o.html;
	rep.json = o.json;
	rep.junit_file_attrs = o.file_attrs;
	rep.history_files = o.history_files;
	rep.nhistory = o.nhistory;
	rep.store = o.store;
	rep.term = stdout;
	rep.colour = sc_report_term_want_colour(STDOUT_FILENO);
	rep.github = in_actions;
	if (o.comment) {
		rep.comment_md = &comment;
		rep.comment_max = SC_REPORT_MD_COMMENT_LIMIT - 1 - sizeof(SC_GITHUB_MARKER);
	}
	if ((err = sc_reports_write(&r, &rep)) < 0) {
		rc = sc_cmd_fail(err == SC_ENOTFOUND ? SC_EINVAL : err);
		goto done;
	}
	if (o.comment)
		rc = sc_cmd_post_comment(comment.ptr, 0, r.run.prov.present ? r.run.prov.head
									     : r.run.head_rev);
done:
	sc_results_release(&r);
	sc_results_release(&base);
	sc_config_release(&cfg);
	sc_strlist_release(&claimed_skills);
done_opts:
	sc_options_release(&report_spec, &o);
	sc_buf_release(&comment);
	return rc;
}
