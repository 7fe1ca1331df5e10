/*
 * Every report of one results model (reports.h): what `skillci report`
 * renders from a file, and `run` and `merge` from the results they made.
 */
#include "common.h"
#include "escape.h"
#include "par.h"
#include "reporters/reports.h"
#include "reporters/report_fmt.h"
#include "reporters/report_github.h"
#include "reporters/report_html.h"
#include "reporters/report_junit.h"
#include "reporters/report_md.h"
#include "reporters/report_term.h"
#include "results/results.h"
#include "results/store.h"

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
	int err;

	if ((err = sc_store_open_existing(&st, location)) < 0)
		return err;
	err = sc_store_history(st, stored, nstored, NULL, NULL);
	sc_store_free(st);
	if (err < 0)
		return err;
	for (size_t i = 0; i < *nstored && *n < SC_REPORT_MAX_HISTORY; i++) {
		const struct sc_store_point *sp = &(*stored)[i];
		struct sc_history_point *p;
		enum sc_variant variant;
		if (!sc_results_find_skill(r, sp->agg.skill) ||
		    known_run(sp->run_id, r, more, nmore) || !sc_variant_parse(sp->agg.variant, &variant))
			continue;
		SC_GROW(*points, *alloc, *n + 1);
		p = &(*points)[(*n)++];
		p->skill = sp->agg.skill;
		p->model = sp->agg.model;
		p->variant = variant;
		p->run_id = sp->run_id;
		p->time = sp->started_at ? sp->started_at : sp->finished_at ? sp->finished_at : "";
		p->pass_rate = sp->agg.pass_rate;
		p->speedup = sp->agg.speedup_geomean;
		/* the run's repository and head, recorded since store schema 4 */
		p->repo = sp->repo;
		p->rev = sp->head_rev;
		p->current = false;
	}
	return 0;
}

/* DIR/index.html from the history of r, the history files and the store. */
static int write_index(const char *dir, const struct sc_results *r, const struct sc_reports *o)
{
	struct sc_results *more = sc_xcalloc(o->nhistory + 1, sizeof(*more));
	struct sc_history_point *points = NULL;
	struct sc_store_point *stored = NULL;
	struct sc_buf page = SC_BUF_INIT, path = SC_BUF_INIT;
	size_t n = 0, alloc = 0, loaded = 0, nstored = 0;
	int err = 0;

	for (size_t i = 0; i < o->nhistory; i++) {
		if ((err = sc_results_load(&more[i], o->history_files[i])) < 0)
			goto done;
		loaded++;
		/* The same run given twice (or as RESULTS too) counts once. */
		if (more[i].run.id && r->run.id && !strcmp(more[i].run.id, r->run.id))
			continue;
		sc_report_history_add(&points, &n, &alloc, &more[i]);
	}
	{
		size_t mine = n;
		sc_report_history_add(&points, &n, &alloc, r);
		for (size_t i = mine; i < n; i++)
			points[i].current = true;
	}
	if (o->store && (err = add_store_history(&points, &n, &alloc, &stored, &nstored, o->store,
						 r, more, loaded)) < 0)
		goto done;
	sc_report_html_index(&page, points, n, "report.html");
	sc_path_join(&path, dir, "index.html");
	err = sc_write_file_atomic(path.ptr, page.ptr, page.len);
done:
	for (size_t i = 0; i < loaded; i++)
		sc_results_release(&more[i]);
	free(more);
	free(points);
	sc_store_points_free(stored, nstored);
	sc_buf_release(&page);
	sc_buf_release(&path);
	return err;
}

/* GitHub Actions: annotations on term, the step summary, the outputs. */
static int github_actions(const struct sc_results *r, const struct sc_reports *o,
			  const char *full_report, const char *html_page, const char *run_url)
{
	struct sc_buf ann = SC_BUF_INIT, md = SC_BUF_INIT, outputs = SC_BUF_INIT, delim = SC_BUF_INIT;
	struct sc_md_options mdo = { SC_REPORT_STEP_SUMMARY_MAX, full_report, run_url };
	struct sc_md_options shorto = { SC_REPORT_MD_COMMENT_LIMIT - 1, full_report, run_url };
	struct sc_gh_paths paths = { o->junit, o->markdown, html_page, o->json };
	const char *summary = getenv("GITHUB_STEP_SUMMARY"), *output = getenv("GITHUB_OUTPUT");
	int err = 0;

	sc_report_gh_annotations(&ann, r);
	if (o->term)
		fputs(ann.ptr, o->term);
	if (summary && *summary) {
		sc_report_md(&md, r, &mdo);
		sc_buf_putc(&md, '\n');
		if ((err = sc_report_gh_append_summary(summary, md.ptr, md.len)) < 0)
			goto done;
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
		if (err < 0)
			goto done;
		err = sc_report_gh_append_file(output, outputs.ptr, outputs.len);
	}
done:
	sc_buf_release(&ann);
	sc_buf_release(&md);
	sc_buf_release(&outputs);
	sc_buf_release(&delim);
	return err;
}

static bool is_stdout(const char *path)
{
	return path && (!strcmp(path, "-") || !strcmp(path, "/dev/stdout") || !strcmp(path, "/dev/fd/1"));
}

/*
 * The reports that are independent of each other, made at once over the
 * cores (core/par.h): the terminal summary into a buffer, the history
 * index, and the other files in their order. Each keeps its error and
 * message (an error's message is its thread's).
 */
enum job { JOB_FILES, JOB_INDEX, JOB_TERM, JOB_COUNT };

struct jobs {
	const struct sc_results *r;
	const struct sc_reports *o;
	const char *full_report, *run_url, *html_page;
	enum job todo[JOB_COUNT];
	int err[JOB_COUNT];
	struct sc_buf msg[JOB_COUNT];
	enum sc_cause cause[JOB_COUNT];
	struct sc_buf term;
};

/* JUnit, Markdown, the full Markdown and HTML page, JSON: the first error. */
static int write_files(const struct jobs *j)
{
	const struct sc_reports *o = j->o;
	struct sc_buf buf = SC_BUF_INIT, full = SC_BUF_INIT;
	int err = 0;

	if (o->junit) {
		struct sc_junit_options jo = { o->junit_file_attrs };
		if ((err = sc_report_junit_save(o->junit, j->r, &jo)) < 0)
			goto done;
	}
	if (o->markdown) {
		struct sc_md_options mo = { SC_REPORT_MD_COMMENT_LIMIT - 1, j->full_report, j->run_url };
		sc_report_md(&buf, j->r, &mo);
		if ((err = sc_write_file_atomic(o->markdown, buf.ptr, buf.len)) < 0)
			goto done;
	}
	if (o->markdown_full || o->html_dir)
		sc_report_md_full(&full, j->r);
	if (o->markdown_full && (err = sc_write_file_atomic(o->markdown_full, full.ptr, full.len)) < 0)
		goto done;
	if (o->html_dir) {
		sc_buf_clear(&buf);
		sc_report_html_page(&buf, j->r->run.kind == SC_RUN_KIND_EVAL ? "skillci eval"
									 : "skillci report",
				    full.ptr, full.len, j->r);
		sc_buf_release(&full);
		if ((err = sc_write_file_atomic(j->html_page, buf.ptr, buf.len)) < 0)
			goto done;
	}
	if (o->json && (err = sc_results_save(j->r, o->json)) < 0)
		goto done;
done:
	sc_buf_release(&buf);
	sc_buf_release(&full);
	return err;
}

static void run_job(void *arg, size_t p, size_t lo, size_t hi)
{
	struct jobs *j = arg;

	(void)p;
	for (size_t i = lo; i < hi; i++) {
		int err = 0;
		switch (j->todo[i]) {
		case JOB_FILES:
			err = write_files(j);
			break;
		case JOB_INDEX:
			err = write_index(j->o->html_dir, j->r, j->o);
			break;
		case JOB_TERM:
			sc_report_term(&j->term, j->r, !j->o->github && j->o->colour);
			break;
		case JOB_COUNT:
			break;
		}
		j->err[j->todo[i]] = err;
		if (err < 0) {
			sc_buf_sets(&j->msg[j->todo[i]], sc_error_last());
			j->cause[j->todo[i]] = sc_error_cause();
		}
	}
}

int sc_reports_write(const struct sc_results *r, const struct sc_reports *in)
{
	struct sc_buf html_page = SC_BUF_INIT, url = SC_BUF_INIT;
	struct sc_reports opts = *in;
	const struct sc_reports *o = &opts;
	struct jobs j;
	size_t n = 0;
	int err = 0;

	memset(&j, 0, sizeof(j));
	for (size_t i = 0; i < JOB_COUNT; i++)
		sc_buf_init(&j.msg[i]);
	sc_buf_init(&j.term);
	j.r = r;
	j.o = o;
	j.run_url = sc_report_md_run_url(&url) ? url.ptr : NULL;
	/* a report written to stdout ("-") is kept apart from the summary */
	if (opts.term == stdout && (is_stdout(opts.junit) || is_stdout(opts.markdown) ||
				    is_stdout(opts.markdown_full) || is_stdout(opts.json)))
		opts.term = stderr;

	if (o->html_dir) {
		if ((err = sc_mkdir_p(o->html_dir)) < 0)
			goto done;
		sc_path_join(&html_page, o->html_dir, "report.html");
		j.full_report = j.html_page = html_page.ptr;
	} else if (o->markdown_full) {
		j.full_report = o->markdown_full;
	} else if (o->json) {
		j.full_report = o->json;
	}
	if (o->junit || o->markdown || o->markdown_full || o->html_dir || o->json)
		j.todo[n++] = JOB_FILES;
	if (o->html_dir)
		j.todo[n++] = JOB_INDEX;
	if (o->term)
		j.todo[n++] = JOB_TERM;
	sc_par_for(n, sc_par_width(), run_job, &j);  /* parts are cut to n */
	for (size_t i = 0; i < JOB_COUNT && !err; i++)
		if (j.err[i] < 0)
			err = sc_error_cause_set(sc_error_set(j.err[i], "%s", j.msg[i].ptr), j.cause[i]);
	if (err < 0)
		goto done;

	if (o->term) {
		if (o->github) {
			/* the summary holds names and messages from the pull request:
			 * escaped (report_term.c) and framed so no line of it is a command */
			fprintf(o->term, "::group::skillci report\n");
			sc_ci_block_begin(o->term);
			fputs(j.term.ptr, o->term);
			sc_ci_block_end(o->term);
			fprintf(o->term, "::endgroup::\n");
		} else {
			fputs(j.term.ptr, o->term);
		}
	}
	if (o->github && (err = github_actions(r, o, j.full_report, j.html_page, j.run_url)) < 0)
		goto done;
	if (o->comment_md) {
		struct sc_md_options mo = { o->comment_max, j.full_report, j.run_url };
		struct sc_buf buf = SC_BUF_INIT;
		sc_buf_clear(o->comment_md);
		sc_report_md(o->comment_md, r, &mo);
		if (o->comment_md->len > mo.max_bytes) {
			/* Even the summary table is over GitHub's limit (thousands of
			 * changed skills): the verdict, and where the rest is. */
			sc_buf_clear(o->comment_md);
			sc_buf_puts(o->comment_md, "## skillci report\n\n");
			sc_buf_printf(o->comment_md, "%s **", sc_report_verdict_icon(r->gate.verdict));
			sc_report_verdict_text(&buf, r);  /* names skill paths: text */
			sc_report_md_text(o->comment_md, buf.ptr);
			sc_buf_puts(o->comment_md, ".**\n\nThe summary table is too long for a comment; see "
					  "the job's step summary or the HTML report.\n");
		}
		sc_buf_release(&buf);
	}
done:
	for (size_t i = 0; i < JOB_COUNT; i++)
		sc_buf_release(&j.msg[i]);
	sc_buf_release(&j.term);
	sc_buf_release(&html_page);
	sc_buf_release(&url);
	return err;
}
