/* Terminal summary (report_term.h). */
#include "common.h"
#include "reporters/report_term.h"
#include "reporters/report_fmt.h"
#include "reporters/report_md.h"
#include "results/results.h"

#include <math.h>
#include <unistd.h>

#define GREEN "\033[32m"
#define RED   "\033[31m"
#define DIM   "\033[2m"
#define BOLD  "\033[1m"
#define RESET "\033[0m"

bool sc_report_term_want_colour(int fd)
{
	const char *nc = getenv("NO_COLOR");

	if (nc && *nc)
		return false;
	return isatty(fd) == 1;
}

static void bar(struct sc_buf *out, double rate)
{
	int full = isnan(rate) ? 0 : (int)lround(rate * SC_REPORT_TERM_BAR);

	if (full < 0)
		full = 0;
	if (full > SC_REPORT_TERM_BAR)
		full = SC_REPORT_TERM_BAR;
	for (int i = 0; i < SC_REPORT_TERM_BAR; i++)
		sc_buf_puts(out, i < full ? "█" : "░");
}

static int cmp_agg(const void *pa, const void *pb)
{
	const struct sc_results_aggregate *a = *(const struct sc_results_aggregate *const *)pa;
	const struct sc_results_aggregate *b = *(const struct sc_results_aggregate *const *)pb;
	int c;

	if ((c = strcmp(a->skill, b->skill)) || (c = strcmp(a->model, b->model)))
		return c;
	return sc_results_variant_rank(a->variant) - sc_results_variant_rank(b->variant);
}

/* One variant's line: "  head     ████████░░░░ 40%  (4/10, 1.85×)". */
static void variant_line(struct sc_buf *out, const struct sc_results_aggregate *a, bool eval)
{
	const char *label = a->variant;

	if (eval && sc_streq(a->variant, "head"))
		label = "with skill";
	sc_buf_printf(out, "  %-10s ", label);
	bar(out, a->pass_rate);
	sc_buf_putc(out, ' ');
	if (isnan(a->pass_rate))
		sc_buf_puts(out, "  —");
	else
		sc_buf_printf(out, "%3.0f%%", a->pass_rate * 100.0);
	sc_buf_printf(out, "  (%lld/%lld", (long long)a->passed, (long long)a->n);
	if (a->errors)
		sc_buf_printf(out, ", %lld error%s", (long long)a->errors, a->errors == 1 ? "" : "s");
	if (a->skipped)
		sc_buf_printf(out, ", %lld skipped", (long long)a->skipped);
	if (!isnan(a->speedup_geomean)) {
		sc_buf_puts(out, ", ");
		sc_report_speedup(out, a->speedup_geomean);
	}
	if (!isnan(a->mean_tokens))
		sc_buf_printf(out, ", %.0f tokens", a->mean_tokens);
	sc_buf_puts(out, ")\n");
}

void sc_report_term(struct sc_buf *out, const struct sc_results *r, bool colour)
{
	const struct sc_results_aggregate **v = sc_xcalloc(r->naggregates + 1, sizeof(*v));
	bool eval = r->run.kind && !strcmp(r->run.kind, "eval");
	struct sc_buf verdict = SC_BUF_INIT;

	if (r->run.oracle)
		sc_buf_puts(out, "oracle self-test: answers are reference solutions, not a model's\n");
	for (size_t i = 0; i < r->naggregates; i++)
		v[i] = &r->aggregates[i];
	qsort(v, r->naggregates, sizeof(*v), cmp_agg);
	for (size_t i = 0; i < r->naggregates;) {
		size_t k = i;
		const struct sc_results_comparison *c;

		sc_buf_printf(out, "%s%s%s · %s\n", colour ? BOLD : "", v[i]->skill, colour ? RESET : "", v[i]->model);
		while (k < r->naggregates && !strcmp(v[k]->skill, v[i]->skill) && !strcmp(v[k]->model, v[i]->model))
			variant_line(out, v[k++], eval);
		c = sc_results_find_comparison(r, v[i]->skill, v[i]->model, eval ? "baseline" : "base", "head");
		if (c && !isnan(c->pass_rate_delta)) {
			sc_buf_printf(out, "  %s", eval ? "lift      " : "base→head ");
			sc_report_points(out, c->pass_rate_delta);
			sc_buf_puts(out, c->significant ? " (significant)" : " (not significant)");
			if (!isnan(c->tokens_delta_pct)) {
				sc_buf_puts(out, ", tokens ");
				sc_report_signed_pct(out, c->tokens_delta_pct);
			}
			sc_buf_putc(out, '\n');
		}
		i = k;
	}
	for (size_t i = 0; i < r->nskills; i++)
		if (r->skills[i].untested)
			sc_buf_printf(out, "%s: untested (no tests found)\n", r->skills[i].path);
	sc_report_verdict_text(&verdict, r);
	sc_buf_printf(out, "%s%s %s%s\n", colour ? (r->gate.passed ? GREEN : RED) : "",
		      r->gate.passed ? "✓" : "✗", verdict.ptr, colour ? RESET : "");
	if (!r->run.complete)
		sc_buf_printf(out, "incomplete: %s\n", r->run.incomplete_reason ? r->run.incomplete_reason : "run interrupted");
	sc_buf_release(&verdict);
	free(v);
}
