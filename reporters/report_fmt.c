/* Escaping and number formats shared by the reporters (report_fmt.h). */
#include "common.h"
#include "reporters/report_fmt.h"
#include "results/results.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>

/* Whether the n bytes before s (from start) spell word, in any letter case. */
static bool ends_with_ci(const char *start, const char *s, const char *word)
{
	size_t n = strlen(word);

	if ((size_t)(s - start) < n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (tolower((unsigned char)s[(ptrdiff_t)i - (ptrdiff_t)n]) != word[i])
			return false;
	return true;
}

void sc_report_md_text(struct sc_buf *out, const char *s)
{
	const char *start = s;

	if (!s)
		return;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		/*
		 * A URL in text from a pull request stays text: GitHub and
		 * cmark-gfm's autolink turn "scheme://", "www." and
		 * "mailto:"/"xmpp:" into links; written as character
		 * references the ':' and the '.' show the same and start none
		 * (an address after "@" is broken below).
		 */
		/* C1 controls, the line and paragraph separators and the
		 * bidirectional marks and overrides reorder or hide what a
		 * reader sees: spaces, as other controls are */
		if ((c == 0xC2 && (unsigned char)s[1] >= 0x80 && (unsigned char)s[1] <= 0x9F) ||
		    (c == 0xD8 && (unsigned char)s[1] == 0x9C)) {
			sc_buf_putc(out, ' ');
			s++;
			continue;
		}
		if (c == 0xE2 && (unsigned char)s[1] == 0x80 &&
		    (((unsigned char)s[2] >= 0xA8 && (unsigned char)s[2] <= 0xAE) ||
		     (unsigned char)s[2] == 0x8E || (unsigned char)s[2] == 0x8F)) {
			sc_buf_putc(out, ' ');
			s += 2;
			continue;
		}
		if (c == 0xE2 && (unsigned char)s[1] == 0x81 && (unsigned char)s[2] >= 0xA6 &&
		    (unsigned char)s[2] <= 0xA9) {
			sc_buf_putc(out, ' ');
			s += 2;
			continue;
		}
		if ((c == ':' && (s[1] == '/' || ends_with_ci(start, s, "mailto") ||
				  ends_with_ci(start, s, "xmpp"))) ||
		    (c == '.' && ends_with_ci(start, s, "www"))) {
			sc_buf_printf(out, "&#%d;", c);
			continue;
		}
		switch (c) {
		case '&': sc_buf_puts(out, "&amp;"); break;
		case '<': sc_buf_puts(out, "&lt;"); break;
		case '>': sc_buf_puts(out, "&gt;"); break;
		case '|': sc_buf_puts(out, "&#124;"); break;
		case '@':
			/* "@name" in a skill's or a model's text would notify that
			 * user or team on GitHub: a zero-width space after the @
			 * shows the same text and mentions no one */
			sc_buf_putc(out, '@');
			if (isalnum((unsigned char)s[1]) || s[1] == '-' || s[1] == '_')
				sc_buf_puts(out, "&#8203;");
			break;
		case '\\': case '`': case '*': case '_': case '[': case ']': case '~':
			sc_buf_putc(out, '\\');
			sc_buf_putc(out, (char)c);
			break;
		default:
			sc_buf_putc(out, (c < 0x20 || c == 0x7f) ? ' ' : (char)c);
		}
	}
}

void sc_report_md_code(struct sc_buf *out, const char *s)
{
	sc_buf_puts(out, "<code>");
	sc_report_md_text(out, s);
	sc_buf_puts(out, "</code>");
}

void sc_report_md_fence(struct sc_buf *out, const char *info, const char *text)
{
	size_t run = 0, longest = 0, fence;

	for (const char *p = text; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	fence = longest >= 3 ? longest + 1 : 3;
	for (size_t i = 0; i < fence; i++)
		sc_buf_putc(out, '`');
	sc_buf_puts(out, info ? info : "");
	sc_buf_putc(out, '\n');
	sc_buf_puts(out, text);
	if (!*text || text[strlen(text) - 1] != '\n')
		sc_buf_putc(out, '\n');
	for (size_t i = 0; i < fence; i++)
		sc_buf_putc(out, '`');
	sc_buf_putc(out, '\n');
}

void sc_report_pct(struct sc_buf *out, double rate)
{
	if (isnan(rate))
		sc_buf_puts(out, "—");
	else
		sc_buf_printf(out, "%.0f%%", rate * 100.0 + 0.0);
}

/* Rounds to a whole number and drops the sign of a zero. */
static double round0(double x)
{
	double r = round(x);
	return r == 0 ? 0 : r;
}

void sc_report_points(struct sc_buf *out, double delta)
{
	double p;

	if (isnan(delta)) {
		sc_buf_puts(out, "—");
		return;
	}
	p = round0(delta * 100.0);
	sc_buf_printf(out, "%s%.0f pts", p > 0 ? "+" : "", p);
}

void sc_report_signed_pct(struct sc_buf *out, double pct)
{
	double p;

	if (isnan(pct)) {
		sc_buf_puts(out, "—");
		return;
	}
	p = round0(pct);
	sc_buf_printf(out, "%s%.0f%%", p > 0 ? "+" : "", p);
}

void sc_report_speedup(struct sc_buf *out, double x)
{
	if (isnan(x))
		sc_buf_puts(out, "—");
	else
		sc_buf_printf(out, "%.2f×", x);
}

void sc_report_significance(struct sc_buf *out, const struct sc_results_comparison *c)
{
	if (!c || isnan(c->pass_rate_delta))
		return;
	if (c->paired_n == 0 || isnan(c->p_value))
		sc_buf_puts(out, "unpaired");
	else
		sc_buf_printf(out, "%s, p=%.3f", c->significant ? "significant" : "not significant",
			      c->p_value);
}

int sc_report_trim(struct sc_buf *out, const char *s, size_t max)
{
	size_t len = strlen(s), cut;

	if (len <= max) {
		sc_buf_put(out, s, len);
		return 0;
	}
	cut = max;
	while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
		cut--;
	sc_buf_put(out, s, cut);
	sc_buf_printf(out, "\n… [trimmed %zu bytes]", len - cut);
	return 1;
}

void sc_report_test_label(struct sc_buf *out, const char *test_id)
{
	const char *hash = test_id ? strchr(test_id, '#') : NULL, *frag, *open, *p;
	char *end;
	unsigned long long idx;

	if (!test_id) {
		sc_buf_puts(out, "?");
		return;
	}
	frag = hash ? hash + 1 : test_id;
	if (hash && strncmp(test_id, "skill_meta.json#", 16))
		sc_buf_put(out, test_id, (size_t)(frag - test_id));
	open = strrchr(frag, '[');
	if (!open || !isdigit((unsigned char)open[1])) {
		sc_buf_puts(out, frag);
		return;
	}
	errno = 0;
	idx = strtoull(open + 1, &end, 10);
	if (errno || *end != ']' || end[1] || idx == ULLONG_MAX) {
		sc_buf_puts(out, frag);
		return;
	}
	for (p = frag; p <= open; p++)
		sc_buf_putc(out, *p);
	sc_buf_printf(out, "%llu]", idx + 1);
}

int sc_report_natural_cmp(const char *a, const char *b)
{
	if (!a || !b)
		return a == b ? 0 : a ? 1 : -1;
	while (*a && *b) {
		if (isdigit((unsigned char)*a) && isdigit((unsigned char)*b)) {
			const char *sa = a, *sb = b;
			size_t la, lb;
			int c;
			while (*sa == '0' && isdigit((unsigned char)sa[1]))
				sa++;
			while (*sb == '0' && isdigit((unsigned char)sb[1]))
				sb++;
			for (a = sa; isdigit((unsigned char)*a); a++)
				;
			for (b = sb; isdigit((unsigned char)*b); b++)
				;
			la = (size_t)(a - sa);
			lb = (size_t)(b - sb);
			if (la != lb)
				return la < lb ? -1 : 1;
			if ((c = memcmp(sa, sb, la)))
				return c < 0 ? -1 : 1;
			continue;
		}
		if (*a != *b)
			return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
		a++;
		b++;
	}
	return *a ? 1 : *b ? -1 : 0;
}

static int cmp_unit_test(const void *pa, const void *pb)
{
	const struct sc_results_unit *a = *(const struct sc_results_unit *const *)pa;
	const struct sc_results_unit *b = *(const struct sc_results_unit *const *)pb;
	int c;

	if ((c = strcmp(a->skill ? a->skill : "", b->skill ? b->skill : "")))
		return c;
	if ((c = strcmp(a->model ? a->model : "", b->model ? b->model : "")))
		return c;
	return strcmp(a->test_id ? a->test_id : "", b->test_id ? b->test_id : "");
}

size_t sc_report_count_regressions(const struct sc_results *r)
{
	const struct sc_results_unit **v;
	size_t n = 0, count = 0;

	if (r->run.kind && !strcmp(r->run.kind, "eval"))
		return 0;
	v = sc_xcalloc(r->nunits + 1, sizeof(*v));
	for (size_t i = 0; i < r->nunits; i++) {
		const char *var = r->units[i].variant;
		if (var && (!strcmp(var, "base") || !strcmp(var, "head")))
			v[n++] = &r->units[i];
	}
	qsort(v, n, sizeof(*v), cmp_unit_test);
	for (size_t i = 0; i < n;) {
		size_t j = i, base_pass = 0, base_bad = 0, head_bad = 0, head_pass = 0;
		for (; j < n && !cmp_unit_test(&v[i], &v[j]); j++) {
			const struct sc_results_unit *u = v[j];
			bool bad = u->verdict && (!strcmp(u->verdict, "fail") || !strcmp(u->verdict, "error"));
			if (!strcmp(u->variant, "base")) {
				base_pass += u->verdict && !strcmp(u->verdict, "pass");
				base_bad += bad;
			} else {
				head_bad += bad;
				head_pass += u->verdict && !strcmp(u->verdict, "pass");
			}
		}
		/* its own runs show it: every base run passed, every head run failed */
		count += head_bad && !head_pass && base_pass && !base_bad;
		i = j;
	}
	free(v);
	return count;
}

enum sc_verdict sc_report_skill_verdict(const struct sc_results *r, const struct sc_results_skill *s)
{
	bool failed = false, errored = false, unv = false;
	size_t first, n = sc_results_checks_range(r, s->path, NULL, &first), ff, nf;

	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_check *c = &r->gate.checks[i];
		if (!sc_streq(c->skill, s->path))
			continue;
		failed |= sc_streq(c->status, "failed");
		errored |= sc_streq(c->status, "error");
		unv |= sc_streq(c->status, "unverified");
	}
	nf = sc_results_failures_of(r, s->path, &ff);
	for (size_t k = ff; k < ff + nf; k++) {
		/* results written before every failure had a check */
		const struct sc_results_gate_failure *f = sc_results_failure_at(r, k);
		if (sc_streq(f->skill, s->path) && (!f->status || sc_streq(f->status, "failed")))
			failed = true;
	}
	if (!s->gate_passed && !failed && !errored && !unv)
		failed = true;
	return failed ? SC_VERDICT_FAIL : errored ? SC_VERDICT_ERROR
	       : unv ? SC_VERDICT_UNVERIFIED : SC_VERDICT_PASS;
}

const char *sc_report_verdict_icon(enum sc_verdict v)
{
	switch (v) {
	case SC_VERDICT_PASS: return "✅";
	case SC_VERDICT_FAIL: return "❌";
	case SC_VERDICT_UNVERIFIED: return "⚠️";
	case SC_VERDICT_ERROR: return "🛑";
	}
	return "❌";
}

const char *sc_report_mode_label(const char *mode)
{
	if (!mode || !strcmp(mode, "none"))
		return "no kernel tests";
	if (!strcmp(mode, "gpu"))
		return "GPU";
	if (!strcmp(mode, "compile-only"))
		return "compile-only (no GPU)";
	return mode;
}

void sc_report_bar(struct sc_buf *out, double fraction)
{
	int filled;

	fraction = isnan(fraction) || fraction < 0 ? 0 : fraction > 1 ? 1 : fraction;
	filled = (int)lround(fraction * SC_REPORT_BAR_WIDTH);
	for (int i = 0; i < SC_REPORT_BAR_WIDTH; i++)
		sc_buf_puts(out, i < filled ? "\u2588" : "\u2591");
}

bool sc_report_no_kernel_run(const struct sc_results *r)
{
	for (size_t i = 0; i < r->gate.nchecks; i++)
		if (sc_streq(r->gate.checks[i].check, "kernel") &&
		    (sc_streq(r->gate.checks[i].status, "skipped") ||
		     (sc_streq(r->gate.checks[i].status, "unverified") && r->gate.checks[i].accepted)))
			return true;
	return false;
}

/* Whether skill s (a path) has a check that could not be decided
 * (accepted by the trusted policy or not), or no tests. */
static bool unverified(const struct sc_results *r, const struct sc_results_skill *s)
{
	size_t first, n = sc_results_checks_range(r, s->path, NULL, &first);

	if (s->untested && !sc_streq(s->status, "deleted"))
		return true;
	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_check *c = &r->gate.checks[i];
		if (sc_streq(c->skill, s->path) && sc_streq(c->status, "unverified"))
			return true;
	}
	return false;
}

void sc_report_cost_line(struct sc_buf *out, const struct sc_results *r)
{
	size_t decided = 0;

	if (r->run.kind && !strcmp(r->run.kind, "eval"))
		return;
	for (size_t i = 0; i < r->gate.nchecks; i++) {
		const struct sc_results_check *c = &r->gate.checks[i];
		if ((sc_streq(c->check, "pass_rate") || sc_streq(c->check, "lift")) &&
		    (sc_streq(c->status, "passed") || sc_streq(c->status, "failed")) &&
		    c->margin.present)
			decided++;
	}
	if (!decided)
		return;
	sc_buf_printf(out, "%lld request%s for %zu decided check%s, %.1f per check",
		      (long long)r->totals.requests, r->totals.requests == 1 ? "" : "s", decided,
		      decided == 1 ? "" : "s", (double)r->totals.requests / (double)decided);
	if (r->totals.reused)
		sc_buf_printf(out, " (%lld unit%s from the store)", (long long)r->totals.reused,
			      r->totals.reused == 1 ? "" : "s");
}

void sc_report_checked_line(struct sc_buf *out, const struct sc_results *r)
{
	size_t n = 0, judged = 0, added = 0, moved = 0, deleted = 0, allowed = 0, refused = 0;
	size_t unver = 0, first = 0;

	if (r->run.kind && !strcmp(r->run.kind, "eval"))
		return;
	for (size_t i = 0; i < r->nskills; i++) {
		const struct sc_results_skill *s = &r->skills[i];
		if (sc_streq(s->status, "unchanged"))
			continue;
		n++;
		if (sc_streq(s->status, "added"))
			added++;
		else if (sc_streq(s->status, "deleted")) {
			size_t cf, cn = sc_results_checks_range(r, s->path, NULL, &cf);
			deleted++;
			for (size_t c = cf; c < cf + cn; c++)
				if (sc_streq(r->gate.checks[c].skill, s->path) &&
				    sc_streq(r->gate.checks[c].check, "deleted")) {
					allowed += sc_streq(r->gate.checks[c].status, "passed");
					refused += sc_streq(r->gate.checks[c].status, "failed");
				}
		} else {
			moved += sc_streq(s->status, "renamed");
			judged += !s->untested && s->tests > 0 && !s->first_tests;
			first += s->first_tests;
		}
		unver += unverified(r, s);
	}
	sc_buf_printf(out, "%zu changed skill%s: judged on the base's tests %zu, added %zu, moved %zu, "
		      "deleted %zu (allowed %zu, not allowed %zu), unverified %zu", n, n == 1 ? "" : "s",
		      judged, added, moved, deleted, allowed, refused, unver);
	if (first)
		sc_buf_printf(out, ", first tests %zu (judged on the head's new tests against no skill)",
			      first);
	if (sc_report_no_kernel_run(r))
		sc_buf_puts(out, "; no kernel was run (compile-only runner)");
}
