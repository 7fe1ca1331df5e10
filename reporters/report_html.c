/*
 * HTML report page and history index (report_html.h). Markdown goes
 * through sc_markdown_to_html (cmark-gfm with tables); the charts are
 * plain SVG written here, so the pages need no script and no network.
 */
#include "common.h"
#include "reporters/report_html.h"
#include "format/markdown.h"
#include "results/results.h"

#include <math.h>

static const char page_css[] =
	"body{font:15px/1.5 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f2328;"
	"background:#fff;margin:0}\n"
	"main{max-width:1100px;margin:0 auto;padding:24px}\n"
	"table{border-collapse:collapse;margin:12px 0;display:block;overflow-x:auto}\n"
	"th,td{border:1px solid #d0d7de;padding:4px 10px;text-align:left;vertical-align:top}\n"
	"th{background:#f6f8fa}\n"
	"tr:nth-child(2n) td{background:#fbfcfd}\n"
	"code{font:13px ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#eff1f3;"
	"padding:1px 4px;border-radius:4px}\n"
	"pre{background:#f6f8fa;padding:10px;overflow-x:auto;border-radius:6px}\n"
	"pre code{background:none;padding:0}\n"
	"blockquote{margin:12px 0;padding:4px 14px;border-left:4px solid #d4a72c;background:#fff8c5}\n"
	"details{margin:6px 0;padding:4px 10px;border:1px solid #d0d7de;border-radius:6px}\n"
	"summary{cursor:pointer}\n"
	"svg{background:#fff;border:1px solid #d0d7de;border-radius:6px;margin:4px 8px 4px 0}\n"
	".chart-line{fill:none;stroke-width:2}\n"
	".axis{stroke:#8c959f;stroke-width:1}\n"
	".grid{stroke:#eaeef2;stroke-width:1}\n"
	"svg text{font:11px sans-serif;fill:#57606a}\n"
	"section.skill{margin:24px 0}\n";

void sc_report_html_escape(struct sc_buf *out, const char *s)
{
	if (!s)
		return;
	for (; *s; s++) {
		switch (*s) {
		case '&': sc_buf_puts(out, "&amp;"); break;
		case '<': sc_buf_puts(out, "&lt;"); break;
		case '>': sc_buf_puts(out, "&gt;"); break;
		case '"': sc_buf_puts(out, "&quot;"); break;
		case '\'': sc_buf_puts(out, "&#39;"); break;
		default: sc_buf_putc(out, *s);
		}
	}
}

static void page_start(struct sc_buf *out, const char *title)
{
	sc_buf_puts(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
			 "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
			 "<meta name=\"generator\" content=\"skillci\">\n<title>");
	sc_report_html_escape(out, title);
	sc_buf_printf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<main>\n", page_css);
}

static void page_end(struct sc_buf *out)
{
	sc_buf_puts(out, "</main>\n</body>\n</html>\n");
}

/* Markdown rendered a piece at a time once it holds this much. */
#define HTML_CHUNK_BYTES (256 * 1024)

/* True for a line opening or closing a code fence (``` or ~~~, up to 3 spaces in). */
static bool fence_line(const char *p)
{
	for (int i = 0; i < 3 && *p == ' '; i++)
		p++;
	return !strncmp(p, "```", 3) || !strncmp(p, "~~~", 3);
}

/*
 * Where the next piece of md may end: the start of a line "<details>"
 * after a blank line, outside code fences, at least HTML_CHUNK_BYTES in;
 * or len. Each skill's section of the full report is such a block, and
 * nothing carries over it (no list, paragraph or fence is open there), so
 * rendering the pieces one by one gives the HTML of the whole, without
 * the parse tree of the whole report in memory at once.
 */
static size_t chunk_end(const char *md, size_t len, size_t from)
{
	bool fenced = false;

	for (size_t i = from; i < len;) {
		const char *nl = memchr(md + i, '\n', len - i);
		size_t next = nl ? (size_t)(nl - md) + 1 : len;
		if (fence_line(md + i))
			fenced = !fenced;
		else if (!fenced && i - from >= HTML_CHUNK_BYTES && i >= 2 && md[i - 1] == '\n' &&
			 md[i - 2] == '\n' && len - i >= 9 && !strncmp(md + i, "<details>", 9))
			return i;
		i = next;
	}
	return len;
}

void sc_report_html_page(struct sc_buf *out, const char *title, const char *md, size_t md_len)
{
	page_start(out, title);
	/* Raw HTML is allowed: the report is written by skillci, and every
	 * untrusted string in it was escaped when the Markdown was built. */
	for (size_t at = 0; at < md_len;) {
		size_t end = chunk_end(md, md_len, at);
		sc_markdown_to_html(out, md + at, end - at, 1);
		at = end;
	}
	page_end(out);
}

void sc_report_history_add(struct sc_history_point **points, size_t *n, size_t *alloc,
			   const struct sc_results *r)
{
	for (size_t i = 0; i < r->naggregates && *n < SC_REPORT_MAX_HISTORY; i++) {
		const struct sc_results_aggregate *a = &r->aggregates[i];
		struct sc_history_point *p;

		SC_GROW(*points, *alloc, *n + 1);
		p = &(*points)[(*n)++];
		p->skill = a->skill;
		p->model = a->model;
		p->variant = a->variant;
		p->run_id = r->run.id ? r->run.id : "";
		p->time = r->run.started_at ? r->run.started_at : "";
		p->pass_rate = a->pass_rate;
		p->speedup = a->speedup_geomean;
	}
}

static int cmp_point(const void *pa, const void *pb)
{
	const struct sc_history_point *a = *(const struct sc_history_point *const *)pa;
	const struct sc_history_point *b = *(const struct sc_history_point *const *)pb;
	int c;

	if ((c = strcmp(a->skill, b->skill)) || (c = strcmp(a->model, b->model)) ||
	    (c = strcmp(a->time, b->time)) || (c = strcmp(a->run_id, b->run_id)) ||
	    (c = sc_results_variant_rank(a->variant) - sc_results_variant_rank(b->variant)))
		return c;
	return strcmp(a->variant, b->variant);
}

static const char *variant_colour(const char *variant)
{
	switch (sc_results_variant_rank(variant)) {
	case 0: return "#8c959f";   /* baseline: grey */
	case 1: return "#0969da";   /* base: blue */
	case 2: return "#1a7f37";   /* head: green */
	default: return "#bf8700";
	}
}

#define CHART_W 480
#define CHART_H 180
#define CHART_L 44
#define CHART_R 12
#define CHART_T 24
#define CHART_B 28

/*
 * One SVG line chart of g[0..n) (one skill × model, sorted by time):
 * x is the index of the point's run among the group's runs, y the value
 * (pass rate in percent on a 0-100 scale, or speedup on a scale up to
 * the largest value); one polyline per variant.
 */
static void svg_chart(struct sc_buf *out, const struct sc_history_point *const *g, size_t n,
		      bool speedup, const char *label)
{
	size_t nruns = 0;
	double ymax = speedup ? 0 : 100;
	const char *variants[3] = { "baseline", "base", "head" };
	const double pw = CHART_W - CHART_L - CHART_R, ph = CHART_H - CHART_T - CHART_B;

	/* Distinct runs in time order (g is sorted by time, run id). */
	for (size_t i = 0; i < n; i++)
		if (i == 0 || strcmp(g[i]->run_id, g[i - 1]->run_id) || strcmp(g[i]->time, g[i - 1]->time))
			nruns++;
	if (speedup) {
		for (size_t i = 0; i < n; i++)
			if (!isnan(g[i]->speedup) && g[i]->speedup > ymax)
				ymax = g[i]->speedup;
		ymax = ymax < 1 ? 1 : ceil(ymax);
	}
	sc_buf_printf(out, "<svg class=\"chart %s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
			   "height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		      speedup ? "speedup" : "pass-rate", CHART_W, CHART_H, CHART_W, CHART_H);
	sc_report_html_escape(out, label);
	sc_buf_puts(out, "\">\n<title>");
	sc_report_html_escape(out, label);
	sc_buf_puts(out, "</title>\n");
	sc_buf_printf(out, "<text x=\"%d\" y=\"16\">%s</text>\n", CHART_L,
		      speedup ? "speedup geomean (×)" : "pass rate (%)");
	for (int t = 0; t <= 4; t++) {
		double y = CHART_T + ph - ph * t / 4.0;
		sc_buf_printf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\"/>"
				   "<text x=\"4\" y=\"%.1f\">%.*f</text>\n",
			      CHART_L, y, CHART_W - CHART_R, y, y + 4, speedup ? 1 : 0, ymax * t / 4.0);
	}
	sc_buf_printf(out, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
		      CHART_L, CHART_T + (int)ph, CHART_W - CHART_R, CHART_T + (int)ph);
	sc_buf_printf(out, "<text x=\"%d\" y=\"%d\">%zu run%s</text>\n", CHART_L, CHART_H - 8, nruns,
		      nruns == 1 ? "" : "s");
	for (size_t v = 0; v < SC_ARRAY_SIZE(variants); v++) {
		struct sc_buf line = SC_BUF_INIT, dots = SC_BUF_INIT;
		size_t run = 0, npts = 0;

		for (size_t i = 0; i < n; i++) {
			double val, x, y;
			if (i > 0 && (strcmp(g[i]->run_id, g[i - 1]->run_id) || strcmp(g[i]->time, g[i - 1]->time)))
				run++;
			if (strcmp(g[i]->variant, variants[v]))
				continue;
			val = speedup ? g[i]->speedup : g[i]->pass_rate * 100.0;
			if (isnan(val))
				continue;
			x = CHART_L + (nruns > 1 ? pw * (double)run / (double)(nruns - 1) : pw / 2);
			y = CHART_T + ph - ph * (val / ymax);
			sc_buf_printf(&line, "%s%.1f,%.1f", npts ? " " : "", x, y);
			sc_buf_printf(&dots, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>",
				      x, y, variant_colour(variants[v]));
			sc_report_html_escape(&dots, variants[v]);
			sc_buf_puts(&dots, " · ");
			sc_report_html_escape(&dots, g[i]->run_id);
			sc_buf_printf(&dots, speedup ? ": %.2f×" : ": %.0f%%", val);
			sc_buf_puts(&dots, "</title></circle>\n");
			npts++;
		}
		if (npts) {
			sc_buf_printf(out, "<polyline class=\"chart-line %s\" stroke=\"%s\" points=\"%s\"/>\n%s",
				      variants[v], variant_colour(variants[v]), line.ptr, dots.ptr);
			sc_buf_printf(out, "<text x=\"%d\" y=\"16\" fill=\"%s\" style=\"fill:%s\">%s</text>\n",
				      CHART_W - CHART_R - 200 + (int)v * 66, variant_colour(variants[v]),
				      variant_colour(variants[v]), variants[v]);
		}
		sc_buf_release(&line);
		sc_buf_release(&dots);
	}
	sc_buf_puts(out, "</svg>\n");
}

static void history_table(struct sc_buf *out, const struct sc_history_point *const *g, size_t n)
{
	sc_buf_puts(out, "<table class=\"history\">\n<thead><tr><th>run</th><th>time</th><th>variant</th>"
			 "<th>pass rate</th><th>speedup</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < n; i++) {
		sc_buf_puts(out, "<tr><td><code>");
		sc_report_html_escape(out, g[i]->run_id);
		sc_buf_puts(out, "</code></td><td>");
		sc_report_html_escape(out, g[i]->time);
		sc_buf_puts(out, "</td><td>");
		sc_report_html_escape(out, g[i]->variant);
		sc_buf_puts(out, "</td><td>");
		if (isnan(g[i]->pass_rate))
			sc_buf_puts(out, "—");
		else
			sc_buf_printf(out, "%.0f%%", g[i]->pass_rate * 100.0);
		sc_buf_puts(out, "</td><td>");
		if (isnan(g[i]->speedup))
			sc_buf_puts(out, "—");
		else
			sc_buf_printf(out, "%.2f×", g[i]->speedup);
		sc_buf_puts(out, "</td></tr>\n");
	}
	sc_buf_puts(out, "</tbody>\n</table>\n");
}

void sc_report_html_index(struct sc_buf *out, const struct sc_history_point *points, size_t n,
			  const char *report_href)
{
	const struct sc_history_point **v = sc_xcalloc(n + 1, sizeof(*v));
	size_t groups = 0;

	for (size_t i = 0; i < n; i++)
		v[i] = &points[i];
	qsort(v, n, sizeof(*v), cmp_point);
	page_start(out, "skillci history");
	sc_buf_puts(out, "<h1>skillci history</h1>\n");
	if (report_href) {
		sc_buf_puts(out, "<p>Latest report: <a href=\"");
		sc_report_html_escape(out, report_href);
		sc_buf_puts(out, "\">");
		sc_report_html_escape(out, report_href);
		sc_buf_puts(out, "</a></p>\n");
	}
	for (size_t i = 0; i < n;) {
		struct sc_buf label = SC_BUF_INIT;
		size_t k = i + 1;
		bool any_speedup = false;

		while (k < n && !strcmp(v[k]->skill, v[i]->skill) && !strcmp(v[k]->model, v[i]->model))
			k++;
		for (size_t j = i; j < k; j++)
			any_speedup |= !isnan(v[j]->speedup);
		sc_buf_puts(out, "<section class=\"skill\">\n<h2><code>");
		sc_report_html_escape(out, v[i]->skill);
		sc_buf_puts(out, "</code> · <code>");
		sc_report_html_escape(out, v[i]->model);
		sc_buf_puts(out, "</code></h2>\n");
		sc_buf_printf(&label, "pass rate history of %s with %s", v[i]->skill, v[i]->model);
		svg_chart(out, v + i, k - i, false, label.ptr);
		if (any_speedup) {
			sc_buf_clear(&label);
			sc_buf_printf(&label, "speedup history of %s with %s", v[i]->skill, v[i]->model);
			svg_chart(out, v + i, k - i, true, label.ptr);
		}
		history_table(out, v + i, k - i);
		sc_buf_puts(out, "</section>\n");
		sc_buf_release(&label);
		groups++;
		i = k;
	}
	if (!groups)
		sc_buf_puts(out, "<p>No history yet.</p>\n");
	page_end(out);
	free(v);
}
