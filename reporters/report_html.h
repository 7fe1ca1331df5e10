#ifndef SC_REPORT_HTML_H
#define SC_REPORT_HTML_H
/*
 * HTML pages: a report page (the Markdown report rendered by cmark-gfm
 * through runner/format/markdown.h, inside one self-contained document with
 * inline CSS and no JavaScript) and an index page with each skill's
 * pass-rate and speedup history drawn as inline SVG line charts.
 */
#include <stdbool.h>
#include <stddef.h>

#include "results/results.h"

struct sc_buf;
struct sc_results;

/* One point of a skill's history: an aggregate of one run. Strings are
 * borrowed (from the results they were taken from). NAN when absent. */
struct sc_history_point {
	const char *skill, *model;
	enum sc_variant variant;
	const char *run_id, *time;
	double pass_rate, speedup;
	/* where a point links: the run's repository (owner/name) and head
	 * revision (a commit link), NULL when unknown; current: the run of
	 * the report the index sits beside (it links to that report) */
	const char *repo, *rev;
	bool current;
};

/*
 * Appends a whole HTML document showing the Markdown md. title is text.
 * With r, charts of its pass rates (with their intervals), tokens, cost
 * and speedups per skill × model follow the summary table; the emoji
 * icons of the Markdown are drawn as inline SVG (a shape and a colour
 * per meaning, the word beside it), so the page reads the same without
 * an emoji font.
 */
void sc_report_html_page(struct sc_buf *out, const char *title, const char *md, size_t md_len,
			 const struct sc_results *r);

/*
 * Appends the index page: for each skill × model, a pass-rate chart and
 * (when any point has one) a speedup chart, one line per variant, points
 * in time order, and a table of the same numbers. report_href, when not
 * NULL, is linked as the latest report.
 */
void sc_report_html_index(struct sc_buf *out, const struct sc_history_point *points, size_t n,
			  const char *report_href);

/* Appends one point per aggregate of r to *points (grown with SC_GROW).
 * The points borrow r's strings. */
void sc_report_history_add(struct sc_history_point **points, size_t *n, size_t *alloc,
			   const struct sc_results *r);


#endif
