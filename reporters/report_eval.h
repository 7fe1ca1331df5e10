#ifndef SC_REPORT_EVAL_H
#define SC_REPORT_EVAL_H
/*
 * What `skillci eval` prints of its results on the terminal (upskill's
 * eval output): per skill x model a title, the bars of the baseline and
 * the skill with their 95% Wilson intervals, McNemar's test, the token
 * line, the kernel lines, the sequential lift decision and the row's
 * recommendation in the verdict model's words (results/verdict.h); with
 * several models or skills, the benchmark table. It renders the results
 * and the verdicts, and decides nothing. Untrusted text (skill names,
 * test names, model messages) is escaped as every log line is
 * (core/escape.h sc_escape_log).
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_buf;
struct sc_results;
struct sc_verdicts;

/* How the run was asked for (the models are the results' own: run.models
 * as given, run.resolved_models as the units record them). */
struct sc_report_eval_view {
	bool baseline;                 /* the skill against no skill */
	bool verbose;                  /* per-test lines */
	bool table;                    /* the benchmark table (several models or skill folders) */
	bool sequential;               /* rounds of first_runs up to max_runs; else runs */
	int runs, first_runs, max_runs;
};

/* Appends the per-skill blocks of r, and the table when view->table, to
 * out. */
void sc_report_eval_term(struct sc_buf *out, const struct sc_results *r,
			 const struct sc_report_eval_view *view, const struct sc_verdicts *v);

#endif
