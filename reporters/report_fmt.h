#ifndef SC_REPORT_FMT_H
#define SC_REPORT_FMT_H
/*
 * Formatting shared by the reporters: escaping untrusted text (test names,
 * model messages, compile logs) for Markdown that is also rendered as HTML,
 * and the number formats every report uses, so a value reads the same in
 * the Markdown, the terminal and the GitHub outputs; the terminal bar the
 * commands share. Everything appends to
 * a caller-owned struct sc_buf.
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_buf;
struct sc_results;
struct sc_results_comparison;
struct sc_results_skill;

#include "results/results.h"  /* enum sc_verdict */

/* Appends s as inline Markdown text: HTML-special and Markdown-special
 * characters escaped, "|" safe inside table cells, line breaks and other
 * control characters turned into spaces (C1 controls, the line and
 * paragraph separators and the bidirectional marks, embeddings, overrides
 * and isolates too: they reorder or hide what a reader sees), "@name"
 * mentions made inert
 * (a zero-width space after the @), and URLs inert: the ':' of "://",
 * "mailto:" and "xmpp:" and the '.' of "www." as character references,
 * so neither GitHub nor cmark-gfm's autolink makes a link of them (the
 * text shows the same). NULL appends nothing. */
void sc_report_md_text(struct sc_buf *out, const char *s);
/* The same, wrapped in <code>…</code>. */
void sc_report_md_code(struct sc_buf *out, const char *s);
/* Appends a fenced code block holding text verbatim: the fence is longer
 * than any backtick run inside, so the text cannot close it. */
void sc_report_md_fence(struct sc_buf *out, const char *info, const char *text);

/* "60%" for 0.6; "—" for NAN. */
void sc_report_pct(struct sc_buf *out, double rate);
/* "+10 pts", "-40 pts", "0 pts" for a difference of rates (0.1 → +10);
 * "—" for NAN. */
void sc_report_points(struct sc_buf *out, double delta);
/* "+12%" / "-3%" for a signed percentage; "—" for NAN. */
void sc_report_signed_pct(struct sc_buf *out, double pct);
/* "2.10×" for a speedup; "—" for NAN. */
void sc_report_speedup(struct sc_buf *out, double x);

/*
 * The significance of a pass-rate change, as every report words it, from
 * the comparison (results/compare.h decided it at the run's alpha):
 * "significant, p=0.031", "not significant, p=0.500", "unpaired" (two
 * separate files: no test). Appends nothing for NULL or a NAN delta.
 */
void sc_report_significance(struct sc_buf *out, const struct sc_results_comparison *c);
/* A 0-1 fraction as a bar of SC_REPORT_BAR_WIDTH cells, "█" filled and
 * "░" empty (upskill's _render_bar): rounded to the nearest cell, clamped
 * to 0-1, NAN as empty. */
#define SC_REPORT_BAR_WIDTH 20
void sc_report_bar(struct sc_buf *out, double fraction);

/* Copies at most max bytes of s into out, cut at a UTF-8 boundary; when
 * cut, a note "… [trimmed N bytes]" follows. Returns 1 when cut. */
int sc_report_trim(struct sc_buf *out, const char *s, size_t max);

/*
 * What a decision cost (docs/run.md, "Requests per decided check"): "280
 * requests for 4 decided checks, 70 per check (40 units from the store)"
 * over the pass-rate and lift checks the design decided (passed or
 * failed). Nothing when no such check was decided, or for an eval.
 */
void sc_report_cost_line(struct sc_buf *out, const struct sc_results *r);
/*
 * A test as every report names it, from its id: the part after "#" with
 * an index counted from 1 ("skill_meta.json#tests[2]" -> "tests[3]"); a
 * test of another file keeps the file ("tests/cases.json#login",
 * "evals/evals.json#1"). Stable when the prompt is edited.
 */
void sc_report_test_label(struct sc_buf *out, const char *test_id);
/* Natural order: runs of digits compare as numbers ("tests[2]" before
 * "tests[10]"), the rest bytewise; NULL first. */
int sc_report_natural_cmp(const char *a, const char *b);

/* The tests that regressed: (skill, model, test) that passes at base (every
 * run that ran) and fails or errs at head in some run; what the Markdown
 * lists as regressed and the GitHub output `regressions` counts. 0 for
 * an eval. */
size_t sc_report_count_regressions(const struct sc_results *r);

/* ✅ pass, ❌ fail, ⚠️ unverified, 🛑 error (could not check): the
 * Markdown's and the HTML's; the terminal's ✓ ✗ ? ! (results/verdict.h
 * decides the state, these only draw it). */
const char *sc_report_verdict_icon(enum sc_verdict v);
const char *sc_report_verdict_mark(enum sc_verdict v);

/* "GPU", "compile-only" or "no kernel tests" for run.mode. */
const char *sc_report_mode_label(const char *mode);

#endif
