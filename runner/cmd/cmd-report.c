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
#include "results/combine.h"
#include "reporters/report_github.h"
#include "reporters/report_html.h"
#include "reporters/report_junit.h"
#include "reporters/report_md.h"
#include "reporters/report_term.h"
#include "results/store.h"

#include <getopt.h>
#include <unistd.h>

static const char usage[] =
	"usage: skillci report RESULTS.json [--base BASE.json] [--junit FILE] [--markdown FILE]\n"
	"                      [--markdown-full FILE] [--html DIR] [--json FILE]\n"
	"                      [--history R.json...] [--store LOCATION] [--comment]\n"
	"                      [--junit-file-attrs]\n"
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
	bool comment, file_attrs, history;
	const char **history_files;
	size_t nhistory;
};

enum { OPT_BASE = 256, OPT_JUNIT, OPT_MARKDOWN, OPT_MARKDOWN_FULL, OPT_HTML, OPT_JSON,
       OPT_COMMENT, OPT_FILE_ATTRS, OPT_STORE };

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

/* Writes data to path atomically; on failure prints the error. */
static int write_report(const char *path, const struct sc_buf *data)
{
	int err = sc_write_file_atomic(path, data->ptr, data->len);
	return err < 0 ? sc_cmd_fail(SC_EIO) : 0;
}

/* The sticky PR comment. 0 when posted or skipped with a warning. */
static int post_comment(const char *md)
{
	struct sc_github gh;
	struct sc_buf body = SC_BUF_INIT;
	const char *event = getenv("GITHUB_EVENT_PATH");
	enum sc_github_outcome outcome = SC_GITHUB_CREATED;
	long long pr = 0, id = 0;
	int err, rc = 0;

	gh.api_url = getenv("GITHUB_API_URL");
	if (!gh.api_url || !*gh.api_url)
		gh.api_url = "https://api.github.com";
	gh.repo = getenv("GITHUB_REPOSITORY");
	gh.token = getenv("GITHUB_TOKEN");
	if (!gh.token || !*gh.token) {
		fprintf(stderr, "error: --comment needs GITHUB_TOKEN\n");
		return SC_EXIT_USAGE;
	}
	if (!gh.repo || !*gh.repo) {
		fprintf(stderr, "error: --comment needs GITHUB_REPOSITORY (owner/name)\n");
		return SC_EXIT_USAGE;
	}
	if (!event || !*event) {
		fprintf(stderr, "error: --comment needs GITHUB_EVENT_PATH (the pull request event)\n");
		return SC_EXIT_USAGE;
	}
	err = sc_github_event_pr(&pr, event);
	if (err == SC_ENOTFOUND) {
		fprintf(stderr, "warning: %s; no comment posted\n", sc_error_last());
		return 0;
	}
	if (err < 0)
		return sc_cmd_fail(err);
	sc_buf_printf(&body, "%s\n%s", SC_GITHUB_MARKER, md);
	err = sc_github_upsert_comment(&outcome, &id, &gh, pr, SC_GITHUB_MARKER, body.ptr);
	if (err < 0) {
		rc = sc_cmd_fail(err);
		if (err == SC_EAUTH)
			rc = SC_EXIT_INFRA;
	} else if (outcome == SC_GITHUB_FORBIDDEN) {
		fprintf(stderr, "warning: GitHub refused the pull request comment (HTTP 403); a pull "
				"request from a fork gets a read-only token; the report is in the step summary\n");
		if (getenv("GITHUB_ACTIONS") && !strcmp(getenv("GITHUB_ACTIONS"), "true"))
			printf("::warning title=skillci::cannot comment on pull request #%lld (HTTP 403, read-only token)\n", pr);
	} else {
		fprintf(stderr, "%s pull request comment %lld on #%lld\n",
			outcome == SC_GITHUB_UPDATED ? "updated" : "created", id, pr);
	}
	sc_buf_release(&body);
	return rc;
}

/* GitHub Actions: annotations, outputs, step summary. */
static int github_actions(const struct sc_results *r, const struct opts *o, const char *full_report,
			  const struct sc_buf *html_path)
{
	struct sc_buf ann = SC_BUF_INIT, md = SC_BUF_INIT, outputs = SC_BUF_INIT, delim = SC_BUF_INIT;
	struct sc_md_options mdo = { SC_REPORT_STEP_SUMMARY_MAX, full_report };
	struct sc_md_options shorto = { SC_REPORT_MD_COMMENT_LIMIT - 1, full_report };
	struct sc_gh_paths paths = { o->junit, o->markdown, html_path->len ? html_path->ptr : NULL, o->json };
	const char *summary = getenv("GITHUB_STEP_SUMMARY"), *output = getenv("GITHUB_OUTPUT");
	int rc = 0, err;

	sc_report_gh_annotations(&ann, r);
	fputs(ann.ptr, stdout);
	if (summary && *summary) {
		sc_report_md(&md, r, &mdo);
		sc_buf_putc(&md, '\n');
		if (sc_report_gh_append_file(summary, md.ptr, md.len) < 0) {
			rc = sc_cmd_fail(SC_EIO);
			goto done;
		}
	}
	if (output && *output) {
		sc_buf_clear(&md);
		sc_report_md(&md, r, &shorto);
		for (int tries = 0; tries < 3; tries++) {
			sc_report_gh_delimiter(&delim);
			sc_buf_clear(&outputs);
			if ((err = sc_report_gh_outputs(&outputs, r, &paths, md.ptr, delim.ptr)) == 0)
				break;
		}
		if (err < 0) {
			rc = sc_cmd_fail(err);
			goto done;
		}
		if (sc_report_gh_append_file(output, outputs.ptr, outputs.len) < 0)
			rc = sc_cmd_fail(SC_EIO);
	}
done:
	sc_buf_release(&ann);
	sc_buf_release(&md);
	sc_buf_release(&outputs);
	sc_buf_release(&delim);
	return rc;
}

/* True when run_id is r's or one of the n files' run. */
static bool known_run(const char *run_id, const struct sc_results *r,
		      const struct sc_results *more, size_t n)
{
	if (sc_streq(run_id, r->run.id))
		return true;
	for (size_t i = 0; i < n; i++)
		if (sc_streq(run_id, more[i].run.id))
			return true;
	return false;
}

/*
 * Adds to the history the stored aggregates of the skills in r (a run
 * given as a file too counts once: the file's). The points borrow from
 * *stored (free with sc_store_points_free()).
 */
static int add_store_history(struct sc_history_point **points, size_t *n, size_t *alloc,
			     struct sc_store_point **stored, size_t *nstored, const char *location,
			     const struct sc_results *r, const struct sc_results *more, size_t nmore)
{
	struct sc_store *st = NULL;
	int rc, err;

	if ((rc = sc_cmd_open_store(&st, location, true)))
		return rc;
	err = sc_store_history(st, stored, nstored, NULL, NULL);
	sc_store_free(st);
	if (err < 0)
		return sc_cmd_fail(SC_EIO);
	for (size_t i = 0; i < *nstored && *n < SC_REPORT_MAX_HISTORY; i++) {
		const struct sc_store_point *sp = &(*stored)[i];
		struct sc_history_point *p;
		if (!sc_results_find_skill(r, sp->agg.skill) ||
		    known_run(sp->run_id, r, more, nmore))
			continue;
		SC_GROW(*points, *alloc, *n + 1);
		p = &(*points)[(*n)++];
		p->skill = sp->agg.skill;
		p->model = sp->agg.model;
		p->variant = sp->agg.variant;
		p->run_id = sp->run_id;
		p->time = sp->started_at ? sp->started_at : sp->finished_at ? sp->finished_at : "";
		p->pass_rate = sp->agg.pass_rate;
		p->speedup = sp->agg.speedup_geomean;
	}
	return 0;
}

/* Builds DIR/index.html from the history of r, the --history files and
 * the --store. */
static int write_index(const char *dir, const struct sc_results *r, const struct opts *o)
{
	struct sc_results *more = sc_xcalloc(o->nhistory + 1, sizeof(*more));
	struct sc_history_point *points = NULL;
	struct sc_store_point *stored = NULL;
	struct sc_buf page = SC_BUF_INIT, path = SC_BUF_INIT;
	size_t n = 0, alloc = 0, loaded = 0, nstored = 0;
	int rc = 0, err;

	for (size_t i = 0; i < o->nhistory; i++) {
		if ((err = sc_results_load(&more[i], o->history_files[i])) < 0) {
			rc = sc_cmd_fail(err);
			goto done;
		}
		loaded++;
		/* The same run given twice (or as RESULTS too) counts once. */
		if (more[i].run.id && r->run.id && !strcmp(more[i].run.id, r->run.id))
			continue;
		sc_report_history_add(&points, &n, &alloc, &more[i]);
	}
	sc_report_history_add(&points, &n, &alloc, r);
	if (o->store && (rc = add_store_history(&points, &n, &alloc, &stored, &nstored, o->store, r,
						more, loaded)))
		goto done;
	sc_report_html_index(&page, points, n, "report.html");
	sc_path_join(&path, dir, "index.html");
	rc = write_report(path.ptr, &page);
done:
	for (size_t i = 0; i < loaded; i++)
		sc_results_release(&more[i]);
	free(more);
	free(points);
	sc_store_points_free(stored, nstored);
	sc_buf_release(&page);
	sc_buf_release(&path);
	return rc;
}

int cmd_report(int argc, char **argv)
{
	struct opts o;
	struct sc_results r, base;
	struct sc_buf buf = SC_BUF_INIT, full = SC_BUF_INIT, html_path = SC_BUF_INIT;
	const char *full_report = NULL;
	bool in_actions = getenv("GITHUB_ACTIONS") && !strcmp(getenv("GITHUB_ACTIONS"), "true");
	char **rest = NULL;
	int rc, err;

	memset(&o, 0, sizeof(o));
	sc_results_init(&r);
	sc_results_init(&base);
	rc = parse_args(&o, argc, argv, &rest);
	if (rc) {
		rc = rc == 1 ? 0 : rc;
		goto done_opts;
	}
	if ((err = sc_results_load(&r, o.results)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	if (o.base) {
		if ((err = sc_results_load(&base, o.base)) < 0) {
			rc = sc_cmd_fail(err);
			goto done;
		}
		sc_report_combine(&r, &base);
	}
	if (o.html) {
		if ((err = sc_mkdir_p(o.html)) < 0) {
			rc = sc_cmd_fail(SC_EIO);
			goto done;
		}
		sc_path_join(&html_path, o.html, "report.html");
		full_report = html_path.ptr;
	} else if (o.markdown_full) {
		full_report = o.markdown_full;
	} else if (o.json) {
		full_report = o.json;
	}

	sc_report_md_full(&full, &r);
	if (o.junit) {
		struct sc_junit_options jo = { o.file_attrs };
		sc_buf_clear(&buf);
		if ((err = sc_report_junit(&buf, &r, &jo)) < 0) {
			rc = sc_cmd_fail(err);
			goto done;
		}
		if ((rc = write_report(o.junit, &buf)))
			goto done;
	}
	if (o.markdown) {
		struct sc_md_options mo = { SC_REPORT_MD_COMMENT_LIMIT - 1, full_report };
		sc_buf_clear(&buf);
		sc_report_md(&buf, &r, &mo);
		if ((rc = write_report(o.markdown, &buf)))
			goto done;
	}
	if (o.markdown_full && (rc = write_report(o.markdown_full, &full)))
		goto done;
	if (o.html) {
		sc_buf_clear(&buf);
		sc_report_html_page(&buf, r.run.kind && !strcmp(r.run.kind, "eval") ? "skillci eval"
										     : "skillci report",
				    full.ptr, full.len);
		if ((rc = write_report(html_path.ptr, &buf)))
			goto done;
		if ((rc = write_index(o.html, &r, &o)))
			goto done;
	}
	if (o.json && (err = sc_results_save(&r, o.json)) < 0) {
		rc = sc_cmd_fail(SC_EIO);
		goto done;
	}

	sc_buf_clear(&buf);
	sc_report_term(&buf, &r, !in_actions && sc_report_term_want_colour(STDOUT_FILENO));
	if (in_actions) {
		/* the summary holds names and messages from the pull request:
		 * escaped (report_term.c) and framed so no line of it is a command */
		printf("::group::skillci report\n");
		sc_ci_block_begin(stdout);
		fputs(buf.ptr, stdout);
		sc_ci_block_end(stdout);
		printf("::endgroup::\n");
	} else {
		fputs(buf.ptr, stdout);
	}
	if (in_actions && (rc = github_actions(&r, &o, full_report, &html_path)))
		goto done;
	if (o.comment) {
		struct sc_md_options mo = { SC_REPORT_MD_COMMENT_LIMIT - 1 - sizeof(SC_GITHUB_MARKER), full_report };
		sc_buf_clear(&buf);
		sc_report_md(&buf, &r, &mo);
		if (buf.len > mo.max_bytes) {
			/* Even the summary table is over GitHub's limit (thousands of
			 * changed skills): post the verdict and say where the rest is. */
			sc_buf_clear(&buf);
			sc_buf_puts(&buf, "## skillci report\n\n");
			sc_buf_puts(&buf, r.gate.passed ? "✅ **" : "❌ **");
			sc_report_verdict_text(&buf, &r);
			sc_buf_puts(&buf, ".**\n\nThe summary table is too long for a comment; see the job's step "
					  "summary or the HTML report.\n");
		}
		rc = post_comment(buf.ptr);
	}
done:
	sc_results_release(&r);
	sc_results_release(&base);
done_opts:
	free(o.history_files);
	free(rest);
	sc_buf_release(&buf);
	sc_buf_release(&full);
	sc_buf_release(&html_path);
	return rc;
}
