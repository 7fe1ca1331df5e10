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

#include <getopt.h>
#include <unistd.h>

static const char usage[] =
	"usage: skillci report RESULTS.json [--base BASE.json] [--junit FILE] [--markdown FILE]\n"
	"                      [--markdown-full FILE] [--html DIR] [--json FILE]\n"
	"                      [--history R.json...] [--store LOCATION] [--comment]\n"
	"                      [--junit-file-attrs] [--config F]\n"
	"\n"
	"Renders reports from results JSON; evaluates nothing.\n"
	"\n"
	"  --base FILE          diff against a second single-run results file (base -> head)\n"
	"  --junit FILE         JUnit XML, the gate's verdict: a testcase per gate check and per\n"
	"                       head test, failures only where the gate failed (valid against\n"
	"                       the Jenkins junit-10.xsd)\n"
	"  --junit-file-attrs   add file/line and properties on testcases (no longer valid\n"
	"                       against junit-10.xsd)\n"
	"  --markdown FILE      Markdown report, kept under 65,536 characters (PR comment size)\n"
	"  --markdown-full FILE Markdown report with every detail\n"
	"  --html DIR           DIR/report.html (self-contained) and DIR/index.html (history charts)\n"
	"  --json FILE          the results as read (and combined with --base), normalised\n"
	"  --history FILES...   more results files whose aggregates make the history on index.html\n"
	"  --store LOCATION     also the history of these skills from the results store (a SQLite\n"
	"                       file or postgresql://…): every stored run's aggregates\n"
	"  --config F           the gate's thresholds (default: the built-in ones); the\n"
	"                       verdict is recomputed from the file's units, never read\n"
	"                       from it, and a file without units is shown as unverified\n"
	"  --comment            create or update the sticky PR comment (GITHUB_TOKEN,\n"
	"                       GITHUB_REPOSITORY, GITHUB_EVENT_PATH, GITHUB_API_URL)\n"
	"\n"
	"The terminal summary goes to stdout (no colour unless a TTY without NO_COLOR).\n"
	"With GITHUB_ACTIONS=true: annotations on regressed skills, $GITHUB_OUTPUT,\n"
	"$GITHUB_STEP_SUMMARY and log groups.\n"
	"exit codes: 0 reports written (even when the gate failed), 2 bad usage or input,\n"
	"3 a report could not be written or GitHub could not be reached.\n";

struct opts {
	const char *results, *base, *junit, *markdown, *markdown_full, *html, *json, *store;
	const char *config;
	bool comment, file_attrs, history;
	const char **history_files;
	size_t nhistory;
};

enum { OPT_BASE = 256, OPT_JUNIT, OPT_MARKDOWN, OPT_MARKDOWN_FULL, OPT_HTML, OPT_JSON,
       OPT_COMMENT, OPT_FILE_ATTRS, OPT_STORE, OPT_CONFIG };

/*
 * Parses the command line. --history takes every following argument up to
 * the next option, so it is taken out before getopt_long sees the rest.
 * Returns 0, 1 after --help, or SC_EXIT_USAGE.
 */
static int parse_args(struct opts *o, int argc, char **argv, char ***rest_out)
{
	static const struct option longopts[] = {
		{ "base", required_argument, NULL, OPT_BASE },
		{ "junit", required_argument, NULL, OPT_JUNIT },
		{ "markdown", required_argument, NULL, OPT_MARKDOWN },
		{ "markdown-full", required_argument, NULL, OPT_MARKDOWN_FULL },
		{ "html", required_argument, NULL, OPT_HTML },
		{ "json", required_argument, NULL, OPT_JSON },
		{ "comment", no_argument, NULL, OPT_COMMENT },
		{ "junit-file-attrs", no_argument, NULL, OPT_FILE_ATTRS },
		{ "store", required_argument, NULL, OPT_STORE },
		{ "config", required_argument, NULL, OPT_CONFIG },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char **rest = sc_xcalloc((size_t)argc + 1, sizeof(*rest));
	int nrest = 0, c;

	*rest_out = rest;
	o->history_files = sc_xcalloc((size_t)argc + 1, sizeof(*o->history_files));
	for (int i = 0; i < argc; i++) {
		if (i > 0 && !strcmp(argv[i], "--history")) {
			o->history = true;
			while (i + 1 < argc && argv[i + 1][0] != '-')
				o->history_files[o->nhistory++] = argv[++i];
			if (!o->nhistory)
				return sc_cmd_usage_error("report", "--history needs results files");
			continue;
		}
		rest[nrest++] = argv[i];
	}
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(nrest, rest, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage, stdout);
			return 1;
		case OPT_BASE: o->base = optarg; break;
		case OPT_JUNIT: o->junit = optarg; break;
		case OPT_MARKDOWN: o->markdown = optarg; break;
		case OPT_MARKDOWN_FULL: o->markdown_full = optarg; break;
		case OPT_HTML: o->html = optarg; break;
		case OPT_JSON: o->json = optarg; break;
		case OPT_COMMENT: o->comment = true; break;
		case OPT_FILE_ATTRS: o->file_attrs = true; break;
		case OPT_STORE: o->store = optarg; break;
		case OPT_CONFIG: o->config = optarg; break;
		default:
			return sc_cmd_option_error("report", c, rest, longopts);
		}
	}
	if (optind < nrest)
		o->results = rest[optind++];
	if (optind < nrest)
		return sc_cmd_usage_error("report", "unexpected argument '%s'", rest[optind]);
	if (!o->results)
		return sc_cmd_usage_error("report", "a results JSON file is required");
	if (o->history && !o->html)
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
	char **rest = NULL;
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
	rc = parse_args(&o, argc, argv, &rest);
	if (rc) {
		rc = rc == 1 ? 0 : rc;
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
	free(o.history_files);
	free(rest);
	sc_buf_release(&comment);
	return rc;
}
