/*
 * HTML report page and history index (report_html.h). Markdown goes
 * through sc_markdown_to_html (cmark-gfm with tables); the charts are
 * plain SVG written here, so the pages need no script and no network.
 */
#include "common.h"
#include "par.h"
#include "reporters/report_html.h"
#include "format/markdown.h"
#include "results/results.h"

#include <math.h>

static const char page_css[] =
	"body{font:15px/1.5 -apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1f2328;"
	"background:#fff;margin:0}\n"
	"main{max-width:1100px;margin:0 auto;padding:16px}\n"
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
	"svg.chart{display:block;width:100%;max-width:640px;height:auto;background:#fff;"
	"border:1px solid #d0d7de;border-radius:6px;margin:4px 0}\n"
	"figure.chart{margin:8px 0}\nfigure.chart svg{display:block;width:100%;max-width:760px;height:auto}\n"
	"svg.icon{display:inline-block;width:1.1em;height:1.1em;vertical-align:-0.2em;margin:0 .15em 0 0}\n"
	"svg .label{font:12px sans-serif;fill:#1f2328}svg .model,svg .variant,svg .value{font:11px sans-serif;fill:#57606a}\n"
	"svg .heading{font:bold 12px sans-serif;fill:#1f2328}svg .ci{stroke:#1f2328;stroke-width:1.2;fill:none}\n"
	"svg .date{font:11px sans-serif;fill:#57606a}p.empty{color:#57606a}\n"
	"p,li,summary,blockquote,h1,h2,h3{overflow-wrap:break-word}\n"
	"@media (max-width:600px){body{font-size:14px}main{padding:8px}"
	"th,td{padding:3px 5px;font-size:13px;white-space:nowrap}code{font-size:12px}}\n"
	".chart-line{fill:none;stroke-width:2}\n"
	".axis{stroke:#8c959f;stroke-width:1}\n"
	".grid{stroke:#eaeef2;stroke-width:1}\n"
	"svg text{font:11px sans-serif;fill:#57606a}\n"
	"section.skill{margin:24px 0}\n";

/* Appends s with &, <, >, " and ' escaped for HTML text or attributes. */
static void sc_report_html_escape(struct sc_buf *out, const char *s)
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

/* ---- icons ----------------------------------------------------------------- */

/* The Markdown's emoji, drawn: each a shape of its own (check, cross,
 * triangle, clock, bar, chevrons, octagon, "i") as well as a colour, with its
 * meaning as the title; the word the Markdown puts beside it stays. */
static const struct icon {
	const char *emoji, *name, *svg;
} icons[] = {
	{ "\u26a0\ufe0f", "unverified", "<path d=\"M8 1.2 15.2 14.5H.8Z\" fill=\"#9a6700\"/><path d=\"M8 5.5v4.5\" stroke=\"#fff\" stroke-width=\"2\"/><circle cx=\"8\" cy=\"12.3\" r=\"1.1\" fill=\"#fff\"/>" },
	{ "\u26a0", "warning", "<path d=\"M8 1.2 15.2 14.5H.8Z\" fill=\"#9a6700\"/><path d=\"M8 5.5v4.5\" stroke=\"#fff\" stroke-width=\"2\"/><circle cx=\"8\" cy=\"12.3\" r=\"1.1\" fill=\"#fff\"/>" },
	{ "\u23ed\ufe0f", "skipped", "<circle cx=\"8\" cy=\"8\" r=\"7.2\" fill=\"#6e7781\"/><path d=\"M4.5 5l3 3-3 3M8.5 5l3 3-3 3\" stroke=\"#fff\" stroke-width=\"1.6\" fill=\"none\"/>" },
	{ "\u2705", "pass", "<circle cx=\"8\" cy=\"8\" r=\"7.2\" fill=\"#1a7f37\"/><path d=\"M4.4 8.4l2.4 2.4 4.9-5.1\" stroke=\"#fff\" stroke-width=\"2\" fill=\"none\"/>" },
	{ "\u274c", "fail", "<circle cx=\"8\" cy=\"8\" r=\"7.2\" fill=\"#cf222e\"/><path d=\"M5.2 5.2l5.6 5.6M10.8 5.2l-5.6 5.6\" stroke=\"#fff\" stroke-width=\"2\"/>" },
	{ "\u23f3", "pending", "<circle cx=\"8\" cy=\"8\" r=\"7.2\" fill=\"#6e7781\"/><path d=\"M8 3.8V8l2.8 1.8\" stroke=\"#fff\" stroke-width=\"1.6\" fill=\"none\"/>" },
	{ "\u2796", "already failing", "<circle cx=\"8\" cy=\"8\" r=\"7.2\" fill=\"#6e7781\"/><path d=\"M4.5 8h7\" stroke=\"#fff\" stroke-width=\"2\"/>" },
	{ "\U0001f6d1", "could not check", "<path d=\"M5 1h6l4 4v6l-4 4H5l-4-4V5Z\" fill=\"#bc4c00\"/><path d=\"M8 4.2v5\" stroke=\"#fff\" stroke-width=\"2\"/><circle cx=\"8\" cy=\"11.8\" r=\"1.1\" fill=\"#fff\"/>" },
	{ "\u26d4", "invalid", "<circle cx=\"8\" cy=\"8\" r=\"7.2\" fill=\"#cf222e\"/><path d=\"M4 8h8\" stroke=\"#fff\" stroke-width=\"2.4\"/>" },
	{ "\U0001f512", "note", "<circle cx=\"8\" cy=\"8\" r=\"7.2\" fill=\"#0969da\"/><path d=\"M8 7v5\" stroke=\"#fff\" stroke-width=\"2\"/><circle cx=\"8\" cy=\"4.6\" r=\"1.1\" fill=\"#fff\"/>" },
	{ "\u270f\ufe0f", "note", "<circle cx=\"8\" cy=\"8\" r=\"7.2\" fill=\"#0969da\"/><path d=\"M8 7v5\" stroke=\"#fff\" stroke-width=\"2\"/><circle cx=\"8\" cy=\"4.6\" r=\"1.1\" fill=\"#fff\"/>" },
	{ "\U0001f527", "note", "<circle cx=\"8\" cy=\"8\" r=\"7.2\" fill=\"#0969da\"/><path d=\"M8 7v5\" stroke=\"#fff\" stroke-width=\"2\"/><circle cx=\"8\" cy=\"4.6\" r=\"1.1\" fill=\"#fff\"/>" },
};

static void icon_svg(struct sc_buf *out, const struct icon *ic)
{
	sc_buf_printf(out, "<svg class=\"icon\" viewBox=\"0 0 16 16\" width=\"16\" height=\"16\" role=\"img\" "
			   "aria-label=\"%s\"><title>%s</title>%s</svg>", ic->name, ic->name, ic->svg);
}

/* Replaces the emoji of out from byte from on with their SVG icons. */
static void draw_icons(struct sc_buf *out, size_t from)
{
	struct sc_buf tail = SC_BUF_INIT;
	size_t i = 0;

	if (from >= out->len)
		return;
	sc_buf_put(&tail, out->ptr + from, out->len - from);
	sc_buf_truncate(out, from);
	while (i < tail.len) {
		const struct icon *hit = NULL;
		size_t n = 0;
		if ((unsigned char)tail.ptr[i] >= 0xE2)
			for (size_t k = 0; k < SC_ARRAY_SIZE(icons) && !hit; k++) {
				size_t l = strlen(icons[k].emoji);
				if (tail.len - i >= l && !memcmp(tail.ptr + i, icons[k].emoji, l)) {
					hit = &icons[k];
					n = l;
				}
			}
		if (hit) {
			icon_svg(out, hit);
			i += n;
		} else {
			sc_buf_putc(out, tail.ptr[i++]);
		}
	}
	sc_buf_release(&tail);
}

/* ---- charts of one run ----------------------------------------------------- */

#define BAR_W 640        /* viewBox width of a bar chart */
#define BAR_LABEL 230    /* the label column */
#define BAR_VALUE 96     /* the value column */
#define BAR_H 12
#define BAR_GAP 4

/* How a chart names a variant: "no skill" for the baseline. */
static const char *variant_word(enum sc_variant variant)
{
	return variant == SC_VARIANT_BASELINE ? "no skill" : sc_variant_name(variant);
}

struct chart_row {
	const char *skill, *model;
	const struct sc_results_aggregate *agg[3];   /* baseline, base, head */
	double cost;
};

/* Appends text cut to max characters (bytes of UTF-8 kept whole), escaped. */
static void svg_text_cut(struct sc_buf *out, const char *s, size_t max)
{
	struct sc_buf t = SC_BUF_INIT;
	size_t n = strlen(s), cut = n;

	if (n > max) {
		cut = max - 1;
		while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
			cut--;
	}
	sc_buf_put(&t, s, cut);
	if (cut < n)
		sc_buf_puts(&t, "…");
	sc_report_html_escape(out, t.ptr);
	sc_buf_release(&t);
}

enum metric { MET_PASS, MET_TOKENS, MET_COST, MET_SPEEDUP, MET_STRONG };

static double metric_of(const struct chart_row *row, int v, enum metric m)
{
	const struct sc_results_aggregate *a = row->agg[v];

	switch (m) {
	case MET_PASS: return a ? a->pass_rate : NAN;
	case MET_TOKENS: return a ? a->mean_tokens : NAN;
	case MET_SPEEDUP: return a ? a->speedup_geomean : NAN;
	case MET_STRONG: return a ? a->strong_speedup_geomean : NAN;
	default: return v == 2 ? row->cost : NAN;
	}
}

static void metric_value(struct sc_buf *out, double x, enum metric m)
{
	switch (m) {
	case MET_PASS: sc_buf_printf(out, "%.0f%%", x * 100.0 + 0.0); break;
	case MET_TOKENS: sc_buf_printf(out, "%.0f", x); break;
	case MET_COST: sc_buf_printf(out, "$%.4f", x); break;
	default: sc_buf_printf(out, "%.2f×", x); break;
	}
}

/* One horizontal bar chart of metric m: a group per skill × model, a bar
 * per variant with its name and value beside it (and for the pass rate
 * its 95% interval as a whisker). Nothing when no row has a value. */
static void bar_chart(struct sc_buf *out, const struct chart_row *rows, size_t n, enum metric m,
		      const char *title)
{
	static const char *const colours[3] = { "#8c959f", "#0969da", "#1a7f37" };
	double max = m == MET_PASS ? 1.0 : 0.0, y = 28;
	size_t bars = 0, groups = 0;
	const double pw = BAR_W - BAR_LABEL - BAR_VALUE;
	struct sc_buf body = SC_BUF_INIT;

	for (size_t i = 0; i < n; i++)
		for (int v = 0; v < 3; v++) {
			double x = metric_of(&rows[i], v, m);
			if (!isnan(x) && m != MET_PASS && x > max)
				max = x;
			bars += !isnan(x);
		}
	if (!bars || max <= 0) {
		sc_buf_release(&body);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		bool any = false;
		for (int v = 0; v < 3; v++)
			any |= !isnan(metric_of(&rows[i], v, m));
		if (!any)
			continue;
		groups++;
		sc_buf_printf(&body, "<text class=\"label\" x=\"0\" y=\"%.0f\"><title>", y + 10);
		sc_report_html_escape(&body, rows[i].skill);
		sc_buf_puts(&body, " · ");
		sc_report_html_escape(&body, rows[i].model);
		sc_buf_puts(&body, "</title>");
		svg_text_cut(&body, rows[i].skill, 34);
		sc_buf_printf(&body, "</text><text class=\"model\" x=\"0\" y=\"%.0f\">", y + 23);
		svg_text_cut(&body, rows[i].model, 36);
		sc_buf_puts(&body, "</text>\n");
		for (int v = 0; v < 3; v++) {
			double x = metric_of(&rows[i], v, m), w;
			struct sc_buf val = SC_BUF_INIT;
			if (isnan(x))
				continue;
			w = pw * (x / max);
			sc_buf_printf(&body, "<text class=\"variant\" x=\"%d\" y=\"%.0f\" text-anchor=\"end\">%s</text>",
				      BAR_LABEL - 6, y + BAR_H - 2, m == MET_COST ? "run" : variant_word((enum sc_variant)v));
			sc_buf_printf(&body, "<rect class=\"bar %s\" x=\"%d\" y=\"%.0f\" width=\"%.1f\" height=\"%d\" fill=\"%s\">"
					     "<title>%s: ", sc_variant_name((enum sc_variant)v), BAR_LABEL, y, w < 1 ? 1 : w, BAR_H,
				      colours[v], m == MET_COST ? "run" : variant_word((enum sc_variant)v));
			metric_value(&val, x, m);
			sc_buf_puts(&body, val.ptr);
			if (m == MET_PASS && !isnan(rows[i].agg[v]->ci_low) && !isnan(rows[i].agg[v]->ci_high)) {
				double lo = rows[i].agg[v]->ci_low, hi = rows[i].agg[v]->ci_high;
				sc_buf_printf(&body, " (95%% interval %.0f–%.0f%%)</title></rect>", lo * 100 + 0.0, hi * 100 + 0.0);
				sc_buf_printf(&body, "<path class=\"ci\" d=\"M%.1f %.1fH%.1fM%.1f %.0fv%dM%.1f %.0fv%d\"/>",
					      BAR_LABEL + pw * lo, y + BAR_H / 2.0, BAR_LABEL + pw * hi,
					      BAR_LABEL + pw * lo, y + 2, BAR_H - 4, BAR_LABEL + pw * hi, y + 2, BAR_H - 4);
				sc_buf_printf(&body, "<text class=\"value\" x=\"%d\" y=\"%.0f\">%s [%.0f–%.0f]</text>\n",
					      BAR_W - BAR_VALUE + 4, y + BAR_H - 2, val.ptr, lo * 100 + 0.0, hi * 100 + 0.0);
			} else {
				sc_buf_puts(&body, "</title></rect>");
				sc_buf_printf(&body, "<text class=\"value\" x=\"%d\" y=\"%.0f\">%s</text>\n",
					      BAR_W - BAR_VALUE + 4, y + BAR_H - 2, val.ptr);
			}
			y += BAR_H + BAR_GAP;
			sc_buf_release(&val);
		}
		y += 14;
	}
	sc_buf_printf(out, "<figure class=\"chart\"><svg class=\"bars %s\" xmlns=\"http://www.w3.org/2000/svg\" "
			   "viewBox=\"0 0 %d %.0f\" width=\"100%%\" role=\"img\" aria-label=\"",
		      m == MET_PASS ? "pass-rate" : m == MET_TOKENS ? "tokens" : m == MET_COST ? "cost"
		      : m == MET_STRONG ? "strong-speedup" : "speedup",
		      BAR_W, y);
	sc_report_html_escape(out, title);
	sc_buf_puts(out, "\"><title>");
	sc_report_html_escape(out, title);
	sc_buf_printf(out, "</title>\n<text class=\"heading\" x=\"0\" y=\"14\">");
	sc_report_html_escape(out, title);
	sc_buf_printf(out, "</text><line class=\"axis\" x1=\"%d\" y1=\"22\" x2=\"%d\" y2=\"%.0f\"/>\n", BAR_LABEL,
		      BAR_LABEL, y - 10);
	sc_buf_put(out, body.ptr, body.len);
	sc_buf_puts(out, "</svg></figure>\n");
	sc_buf_release(&body);
	(void)groups;
}

static int cmp_chart_row(const void *pa, const void *pb)
{
	const struct chart_row *a = pa, *b = pb;
	int c = strcmp(a->skill, b->skill);
	return c ? c : strcmp(a->model, b->model);
}

/* The charts of r: pass rate with intervals, tokens, cost and speedup per
 * changed skill (every skill of an eval) × model. */
static void results_charts(struct sc_buf *out, const struct sc_results *r)
{
	struct chart_row *rows = NULL;
	size_t n = 0, alloc = 0;
	bool eval = r->run.kind == SC_RUN_KIND_EVAL;

	for (size_t i = 0; i < r->naggregates; i++) {
		const struct sc_results_aggregate *a = &r->aggregates[i];
		const struct sc_results_skill *s = sc_results_find_skill(r, a->skill);
		int v = (int)a->variant;
		struct chart_row *row = NULL;
		if (v > 2 || !a->skill || !a->model || (!eval && s && s->status == SC_SKILL_UNCHANGED))
			continue;
		/* sorted aggregates: a pair's are adjacent, its row the last */
		for (size_t k = r->sorted && n ? n - 1 : 0; k < n && !row; k++)
			if (!strcmp(rows[k].skill, a->skill) && !strcmp(rows[k].model, a->model))
				row = &rows[k];
		if (!row) {
			size_t uf = 0, nu = sc_results_usage_of(r, a->skill, &uf);
			SC_GROW(rows, alloc, n + 1);
			row = &rows[n++];
			memset(row, 0, sizeof(*row));
			row->skill = a->skill;
			row->model = a->model;
			row->cost = NAN;
			for (size_t u = uf; u < uf + nu; u++)
				if (sc_streq(sc_results_usage_at(r, u)->skill, a->skill) &&
				    sc_streq(sc_results_usage_at(r, u)->model, a->model))
					row->cost = sc_results_usage_at(r, u)->cost_usd;
		}
		row->agg[v] = a;
	}
	if (!n)
		return;
	qsort(rows, n, sizeof(*rows), cmp_chart_row);
	sc_buf_puts(out, "<section class=\"charts\">\n<h3>Charts</h3>\n");
	bar_chart(out, rows, n, MET_PASS, "pass rate (bar) and its 95% interval (whisker)");
	bar_chart(out, rows, n, MET_TOKENS, "mean tokens per test");
	bar_chart(out, rows, n, MET_COST, "cost of this run (list prices)");
	bar_chart(out, rows, n, MET_SPEEDUP, "kernel speedup over the naive baselines (geometric mean)");
	bar_chart(out, rows, n, MET_STRONG, "kernel speedup over the strong references (geometric mean)");
	sc_buf_puts(out, "</section>\n");
	free(rows);
}

/* The page's two independent halves, made at once (core/par.h): the
 * Markdown rendered, and the charts of the run. */
struct page_parts {
	const char *md;
	size_t md_len;
	const struct sc_results *r;
	struct sc_buf body, charts;
};

static void page_part(void *arg, size_t p, size_t lo, size_t hi)
{
	struct page_parts *pp = arg;

	(void)p;
	for (size_t half = lo; half < hi; half++) {
		if (half == 1) {
			results_charts(&pp->charts, pp->r);
			continue;
		}
		/* Raw HTML is allowed: the report is written by skillci, and every
		 * untrusted string in it was escaped when the Markdown was built. */
		for (size_t at = 0; at < pp->md_len;) {
			size_t end = chunk_end(pp->md, pp->md_len, at), from = pp->body.len;
			sc_markdown_to_html(&pp->body, pp->md + at, end - at, 1);
			draw_icons(&pp->body, from);
			at = end;
		}
	}
}

void sc_report_html_page(struct sc_buf *out, const char *title, const char *md, size_t md_len,
			 const struct sc_results *r)
{
	struct page_parts pp = { md, md_len, r, SC_BUF_INIT, SC_BUF_INIT };
	const char *t;

	sc_par_for(r ? 2 : 1, sc_par_width(), page_part, &pp);
	page_start(out, title);
	if (r && (t = strstr(pp.body.ptr, "<h3>Details</h3>"))) {
		/* the charts after what failed, before the details */
		sc_buf_put(out, pp.body.ptr, (size_t)(t - pp.body.ptr));
		sc_buf_put(out, pp.charts.ptr, pp.charts.len);
		sc_buf_puts(out, t);
	} else {
		sc_buf_put(out, pp.body.ptr, pp.body.len);
		sc_buf_put(out, pp.charts.ptr, pp.charts.len);
	}
	page_end(out);
	sc_buf_release(&pp.body);
	sc_buf_release(&pp.charts);
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
		p->repo = r->run.repo;
		p->rev = r->run.head_rev;
		p->current = false;
	}
}

static int cmp_point(const void *pa, const void *pb)
{
	const struct sc_history_point *a = *(const struct sc_history_point *const *)pa;
	const struct sc_history_point *b = *(const struct sc_history_point *const *)pb;
	int c;

	if ((c = strcmp(a->skill, b->skill)) || (c = strcmp(a->model, b->model)) ||
	    (c = strcmp(a->time, b->time)) || (c = strcmp(a->run_id, b->run_id)) ||
	    (c = (int)a->variant - (int)b->variant))
		return c;
	return 0;
}

static const char *variant_colour(enum sc_variant variant)
{
	switch (variant) {
	case SC_VARIANT_BASELINE: return "#8c959f";   /* grey */
	case SC_VARIANT_BASE: return "#0969da";       /* blue */
	case SC_VARIANT_HEAD: return "#1a7f37";       /* green */
	default: return "#bf8700";
	}
}

#define CHART_W 480
#define CHART_H 180
#define CHART_L 44
#define CHART_R 12
#define CHART_T 24
#define CHART_B 28
#define PLOT_PAD 10   /* points kept off the chart's edges */

/* Seconds since 1970 of "YYYY-MM-DDTHH:MM:SS..." (UTC), NAN when not one. */
static double iso_seconds(const char *s)
{
	int y, mo, d, h = 0, mi = 0, se = 0;
	long long days;

	if (!s || sscanf(s, "%4d-%2d-%2d", &y, &mo, &d) != 3 || mo < 1 || mo > 12 || d < 1 || d > 31)
		return NAN;
	if (strlen(s) >= 19 && (s[10] == 'T' || s[10] == ' '))
		if (sscanf(s + 11, "%2d:%2d:%2d", &h, &mi, &se) != 3)
			h = mi = se = 0;
	/* days from the civil date (proleptic Gregorian) */
	y -= mo <= 2;
	{
		long long era = (y >= 0 ? y : y - 399) / 400;
		long long yoe = y - era * 400;
		long long doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
		long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
		days = era * 146097 + doe - 719468;
	}
	return (double)days * 86400.0 + h * 3600.0 + mi * 60.0 + se;
}

/* Where a point links: the report of the current run, else its commit. */
static void point_href(struct sc_buf *out, const struct sc_history_point *p, const char *report_href)
{
	const char *server = getenv("GITHUB_SERVER_URL");
	bool repo_ok = p->repo && strchr(p->repo, '/') && !strchr(p->repo, ' ') && !strchr(p->repo, ':');

	if (p->current && report_href) {
		sc_report_html_escape(out, report_href);
		return;
	}
	if (!p->repo || !p->rev || strspn(p->rev, "0123456789abcdef") != strlen(p->rev) || strlen(p->rev) < 7)
		return;
	if (!strncmp(p->repo, "https://", 8) && !strpbrk(p->repo, " \"'<>")) {
		/* the repository as a URL */
		size_t len = strlen(p->repo);
		while (len > 8 && p->repo[len - 1] == '/')
			len--;
		struct sc_buf u = SC_BUF_INIT;
		if (len > 12 && !strncmp(p->repo + len - 4, ".git", 4))
			len -= 4;
		sc_buf_put(&u, p->repo, len);
		sc_report_html_escape(out, u.ptr);
		sc_buf_release(&u);
	} else if (repo_ok) {
		if (!server || strncmp(server, "https://", 8))
			server = "https://github.com";
		sc_report_html_escape(out, server);
		sc_buf_putc(out, '/');
		sc_report_html_escape(out, p->repo);
	} else {
		return;
	}
	sc_buf_puts(out, "/commit/");
	sc_report_html_escape(out, p->rev);
}

/* A marker per variant, its shape the cue beside the colour: a circle
 * (no skill), a square (base), a triangle (head). */
static void marker(struct sc_buf *out, int v, double x, double y, const char *colour)
{
	if (v == 0)
		sc_buf_printf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"%s\"/>", x, y, colour);
	else if (v == 1)
		sc_buf_printf(out, "<rect x=\"%.1f\" y=\"%.1f\" width=\"7\" height=\"7\" fill=\"%s\"/>", x - 3.5,
			      y - 3.5, colour);
	else
		sc_buf_printf(out, "<path d=\"M%.1f %.1fl4.2 7.4h-8.4Z\" fill=\"%s\"/>", x, y - 4.4, colour);
}

/*
 * One SVG line chart of g[0..n) (one skill × model, sorted by time): x is
 * the run's start time on a date axis (runs without one are spaced after
 * the dated ones), y the value (pass rate 0-100, or speedup up to the
 * largest); one polyline per variant, its points set a little apart per
 * variant so equal values do not hide each other, each point a link to
 * its run's report or commit when known. Nothing when no point has a
 * value (every test skipped): a note says so.
 */
static void svg_chart(struct sc_buf *out, const struct sc_history_point *const *g, size_t n,
		      bool speedup, const char *label, const char *report_href)
{
	const double pw = CHART_W - CHART_L - CHART_R, ph = CHART_H - CHART_T - CHART_B;
	double ymax = speedup ? 0 : 100, tmin = NAN, tmax = NAN;
	size_t values = 0, nruns = 0, undated = 0;

	for (size_t i = 0; i < n; i++) {
		double val = speedup ? g[i]->speedup : g[i]->pass_rate, t = iso_seconds(g[i]->time);
		bool new_run = i == 0 || strcmp(g[i]->run_id, g[i - 1]->run_id) || strcmp(g[i]->time, g[i - 1]->time);
		values += !isnan(val);
		if (speedup && !isnan(val) && val > ymax)
			ymax = val;
		nruns += new_run;
		if (isnan(t))
			undated += new_run;
		else {
			if (isnan(tmin) || t < tmin)
				tmin = t;
			if (isnan(tmax) || t > tmax)
				tmax = t;
		}
	}
	if (!values) {
		sc_buf_printf(out, "<p class=\"empty\">No %s recorded in %zu run%s (every test skipped).</p>\n",
			      speedup ? "speedup" : "pass rate", nruns, nruns == 1 ? "" : "s");
		return;
	}
	if (speedup)
		ymax = ymax < 1 ? 1 : ceil(ymax);
	sc_buf_printf(out, "<svg class=\"chart %s\" xmlns=\"http://www.w3.org/2000/svg\" width=\"100%%\" "
			   "viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"",
		      speedup ? "speedup" : "pass-rate", CHART_W, CHART_H);
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
	/* the date axis: the first and the last run's date (and the middle
	 * when they are days apart; with the time when on the same day) */
	if (!isnan(tmin)) {
		struct sc_buf d = SC_BUF_INIT;
		int ticks = tmax - tmin >= 2 * 86400.0 ? 3 : tmax > tmin ? 2 : 1;
		size_t keep = tmax - tmin < 86400.0 && ticks > 1 ? 16 : 10;
		for (int k = 0; k < ticks; k++) {
			double f = ticks == 1 ? 0.5 : (double)k / (ticks - 1);
			double t = ticks == 1 ? tmin : tmin + (tmax - tmin) * f;
			double x = CHART_L + PLOT_PAD + (pw - 2 * PLOT_PAD) * (undated && ticks > 1 ? f * 0.8 : f);
			sc_buf_clear(&d);
			sc_time_iso8601(&d, (int64_t)t);
			sc_buf_truncate(&d, d.len > keep ? keep : d.len);
			if (d.len > 10)
				d.ptr[10] = ' ';
			sc_buf_printf(out, "<text class=\"date\" x=\"%.1f\" y=\"%d\" text-anchor=\"%s\">%s</text>\n", x,
				      CHART_H - 8, ticks == 1 || (k > 0 && k < ticks - 1) ? "middle" : k == 0 ? "start" : "end",
				      d.ptr);
		}
		sc_buf_release(&d);
	}
	for (size_t v = 0; v <= SC_VARIANT_HEAD; v++) {
		struct sc_buf line = SC_BUF_INIT, dots = SC_BUF_INIT, href = SC_BUF_INIT;
		size_t run = 0, undated_seen = 0, npts = 0;

		for (size_t i = 0; i < n; i++) {
			double val, x, y, f, t = iso_seconds(g[i]->time);
			bool new_run = i > 0 && (strcmp(g[i]->run_id, g[i - 1]->run_id) || strcmp(g[i]->time, g[i - 1]->time));
			if (new_run)
				run++;
			if (isnan(t) && (i == 0 || new_run))
				undated_seen++;
			if ((size_t)g[i]->variant != v)
				continue;
			val = speedup ? g[i]->speedup : g[i]->pass_rate * 100.0;
			if (isnan(val))
				continue;
			if (!isnan(t))
				f = tmax > tmin ? (t - tmin) / (tmax - tmin) * (undated ? 0.8 : 1.0) : undated ? 0.4 : 0.5;
			else
				f = isnan(tmin) ? (nruns > 1 ? (double)run / (double)(nruns - 1) : 0.5)
						: 0.85 + 0.15 * (double)(undated_seen - 1) / (double)(undated > 1 ? undated - 1 : 1);
			x = CHART_L + PLOT_PAD + (pw - 2 * PLOT_PAD) * f;
			/* set apart: no skill left, base in the middle, head right */
			x += ((double)v - 1.0) * 5.0;
			y = CHART_T + ph - ph * (val / ymax);
			sc_buf_printf(&line, "%s%.1f,%.1f", npts ? " " : "", x, y);
			sc_buf_clear(&href);
			point_href(&href, g[i], report_href);
			if (href.len) {
				sc_buf_puts(&dots, "<a href=\"");
				sc_buf_put(&dots, href.ptr, href.len);
				sc_buf_puts(&dots, "\">");
			}
			sc_buf_puts(&dots, "<g class=\"point\"><title>");
			sc_report_html_escape(&dots, variant_word((enum sc_variant)v));
			sc_buf_puts(&dots, " · ");
			sc_report_html_escape(&dots, g[i]->run_id);
			if (g[i]->time && *g[i]->time) {
				sc_buf_puts(&dots, " · ");
				sc_report_html_escape(&dots, g[i]->time);
			}
			sc_buf_printf(&dots, speedup ? ": %.2f×" : ": %.0f%%", val);
			sc_buf_puts(&dots, "</title>");
			marker(&dots, (int)v, x, y, variant_colour((enum sc_variant)v));
			sc_buf_puts(&dots, href.len ? "</g></a>\n" : "</g>\n");
			npts++;
		}
		if (npts) {
			sc_buf_printf(out, "<polyline class=\"chart-line %s\" stroke=\"%s\" points=\"%s\"/>\n%s",
				      sc_variant_name((enum sc_variant)v), variant_colour((enum sc_variant)v), line.ptr, dots.ptr);
			marker(out, (int)v, CHART_W - CHART_R - 196 + (double)v * 70, 12, variant_colour((enum sc_variant)v));
			sc_buf_printf(out, "<text x=\"%.0f\" y=\"16\">%s</text>\n",
				      CHART_W - CHART_R - 188 + (double)v * 70, variant_word((enum sc_variant)v));
		}
		sc_buf_release(&line);
		sc_buf_release(&dots);
		sc_buf_release(&href);
	}
	sc_buf_puts(out, "</svg>\n");
}

/* The history as a table: one row per run, a column per variant. */
static void history_table(struct sc_buf *out, const struct sc_history_point *const *g, size_t n,
			  bool speedup, const char *report_href)
{
	bool present[3] = { false, false, false }, fast[3] = { false, false, false };
	struct sc_buf href = SC_BUF_INIT;

	for (size_t i = 0; i < n; i++) {
		int v = (int)g[i]->variant;
		if (v <= 2) {
			present[v] = true;
			fast[v] |= !isnan(g[i]->speedup);
		}
	}
	sc_buf_puts(out, "<table class=\"history\">\n<thead><tr><th>run</th><th>started</th>");
	for (int v = 0; v < 3; v++)
		if (present[v])
			sc_buf_printf(out, "<th>%s pass rate</th>", variant_word((enum sc_variant)v));
	for (int v = 0; speedup && v < 3; v++)
		if (fast[v])
			sc_buf_printf(out, "<th>%s speedup</th>", variant_word((enum sc_variant)v));
	sc_buf_puts(out, "</tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < n;) {
		const struct sc_history_point *cells[3] = { NULL, NULL, NULL };
		size_t k = i;
		while (k < n && !strcmp(g[k]->run_id, g[i]->run_id) && !strcmp(g[k]->time, g[i]->time)) {
			int v = (int)g[k]->variant;
			if (v <= 2)
				cells[v] = g[k];
			k++;
		}
		sc_buf_clear(&href);
		point_href(&href, g[i], report_href);
		sc_buf_puts(out, "<tr><td>");
		if (href.len)
			sc_buf_printf(out, "<a href=\"%s\">", href.ptr);
		sc_buf_puts(out, "<code>");
		sc_report_html_escape(out, g[i]->run_id);
		sc_buf_puts(out, href.len ? "</code></a></td><td>" : "</code></td><td>");
		sc_report_html_escape(out, g[i]->time);
		sc_buf_puts(out, "</td>");
		for (int pass = 0; pass < (speedup ? 2 : 1); pass++)
			for (int v = 0; v < 3; v++) {
				double x;
				if (!(pass ? fast[v] : present[v]))
					continue;
				x = !cells[v] ? NAN : pass ? cells[v]->speedup : cells[v]->pass_rate;
				if (isnan(x))
					sc_buf_puts(out, "<td>—</td>");
				else if (pass)
					sc_buf_printf(out, "<td>%.2f×</td>", x);
				else
					sc_buf_printf(out, "<td>%.0f%%</td>", x * 100.0);
			}
		sc_buf_puts(out, "</tr>\n");
		i = k;
	}
	sc_buf_puts(out, "</tbody>\n</table>\n");
	sc_buf_release(&href);
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
		svg_chart(out, v + i, k - i, false, label.ptr, report_href);
		if (any_speedup) {
			sc_buf_clear(&label);
			sc_buf_printf(&label, "speedup history of %s with %s", v[i]->skill, v[i]->model);
			svg_chart(out, v + i, k - i, true, label.ptr, report_href);
		}
		history_table(out, v + i, k - i, any_speedup, report_href);
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
