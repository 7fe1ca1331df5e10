/*
 * skillci eval's terminal output (report_eval.h): the results and the
 * verdicts rendered, nothing decided here.
 */
#include "common.h"
#include "escape.h"
#include "stats.h"
#include "reporters/report_eval.h"
#include "reporters/report_fmt.h"
#include "results/results.h"
#include "results/verdict.h"

#include <math.h>
#include <stdarg.h>

/* A line with untrusted text in it: escaped as a log line, then '\n'. */
__attribute__((format(printf, 2, 3)))
static void line(struct sc_buf *out, const char *fmt, ...)
{
	struct sc_buf msg = SC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	sc_escape_log(out, msg.ptr);
	sc_buf_putc(out, '\n');
	sc_buf_release(&msg);
}

/* "40%", or "-" when absent; rounds like Python's :.0% format. */
static void pct(struct sc_buf *out, double v)
{
	if (isnan(v))
		sc_buf_puts(out, "-");
	else
		sc_buf_printf(out, "%.0f%%", v * 100.0);
}

/* A signed percentage: "+40%", "-10%". */
static void spct(struct sc_buf *out, double v)
{
	if (isnan(v))
		sc_buf_puts(out, "-");
	else
		sc_buf_printf(out, "%s%.0f%%", v >= 0 ? "+" : "-", fabs(v) * 100.0);
}

/* Points of a pass-rate fraction, signed: "+40", "-5". */
static void points(struct sc_buf *out, double v)
{
	if (isnan(v))
		sc_buf_puts(out, "-");
	else
		sc_buf_printf(out, "%+.0f", v * 100.0 + 0.0);
}

/* Tokens summed over the non-error units of (skill, variant, model). */
static int64_t token_total(const struct sc_results *r, const char *skill, enum sc_variant variant,
			   const char *model)
{
	int64_t tokens = 0;

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (strcmp(u->skill, skill) || u->variant != variant || strcmp(u->model, model) ||
		    u->verdict == SC_UNIT_ERROR)
			continue;
		tokens += u->tokens_in + u->tokens_out;
	}
	return tokens;
}

static void rate_line(struct sc_buf *out, const char *label, const struct sc_results_aggregate *a,
		      const char *suffix)
{
	struct sc_buf b = SC_BUF_INIT, p = SC_BUF_INIT;

	sc_buf_printf(&b, "  %-10s ", label);
	sc_report_bar(&b, a->pass_rate);
	pct(&p, a->pass_rate);
	sc_buf_printf(&b, "  %5s", p.ptr);
	if (a->n) {
		sc_buf_puts(&b, "  [95% CI ");
		pct(&b, a->ci_low);
		sc_buf_puts(&b, "\u2013");
		pct(&b, a->ci_high);
		sc_buf_printf(&b, ", n=%lld]", (long long)a->n);
	} else {
		sc_buf_puts(&b, "  [no pass/fail units]");
	}
	if (suffix && *suffix)
		sc_buf_printf(&b, "  %s", suffix);
	line(out, "%s", b.ptr);
	sc_buf_release(&p);
	sc_buf_release(&b);
}

/* Per-test lines (-v): passes out of runs for each variant, then each
 * unit's message, a test once, in the order of its first unit. */
static void test_lines(struct sc_buf *out, const struct sc_results *r, const char *skill,
		       const char *model, bool baseline)
{
	struct sc_buf esc = SC_BUF_INIT;
	size_t shown = 0;

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		int bp = 0, bn = 0, sp = 0, sn = 0;
		bool first = true;
		if (strcmp(u->skill, skill) || strcmp(u->model, model))
			continue;
		for (size_t j = 0; j < i && first; j++)
			first = strcmp(r->units[j].skill, skill) || strcmp(r->units[j].model, model) ||
				strcmp(r->units[j].test_id, u->test_id);
		if (!first)
			continue;
		for (size_t j = i; j < r->nunits; j++) {
			const struct sc_results_unit *w = &r->units[j];
			bool base;
			if (strcmp(w->skill, skill) || strcmp(w->model, model) || strcmp(w->test_id, u->test_id))
				continue;
			base = w->variant == SC_VARIANT_BASELINE;
			(base ? &bn : &sn)[0]++;
			if (w->verdict == SC_UNIT_PASS)
				(base ? &bp : &sp)[0]++;
		}
		shown++;
		/* the name is cut at 40 columns of its escaped form */
		sc_buf_clear(&esc);
		sc_escape_log(&esc, u->test_name);
		if (baseline)
			line(out, "  %zu. %-40.40s  %d/%d base  %d/%d skill", shown, esc.ptr, bp, bn, sp,
			     sn);
		else
			line(out, "  %zu. %-40.40s  %d/%d skill", shown, esc.ptr, sp, sn);
		for (size_t j = i; j < r->nunits; j++) {
			const struct sc_results_unit *w = &r->units[j];
			if (strcmp(w->skill, skill) || strcmp(w->model, model) ||
			    strcmp(w->test_id, u->test_id) || !w->message)
				continue;
			line(out, "       %s run %lld: %s: %s", sc_variant_name(w->variant),
			     (long long)w->run_index, sc_unit_verdict_name(w->verdict), w->message);
		}
	}
	if (shown)
		sc_buf_putc(out, '\n');
	sc_buf_release(&esc);
}

/* Kernel line: compile-only counts, or speed figures with a GPU. */
static void kernel_line(struct sc_buf *out, const struct sc_results *r, const char *skill,
			enum sc_variant variant, const char *model, const struct sc_results_aggregate *a)
{
	int compiled = 0, failed = 0, total = 0;

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (!u->kernel || strcmp(u->skill, skill) || u->variant != variant ||
		    strcmp(u->model, model))
			continue;
		total++;
		if (u->kernel->compile == SC_COMPILE_OK)
			compiled++;
		else if (u->kernel->compile != SC_COMPILE_NONE)
			failed++;
	}
	if (!total)
		return;
	sc_buf_printf(out, "  kernels (%s): %d units, %d compiled, %d failed to compile",
		      sc_variant_name(variant), total, compiled, failed);
	if (!strcmp(r->run.mode, "gpu") && !isnan(a->speedup_geomean)) {
		sc_buf_printf(out, ", speedup geomean %.2fx over the naive baselines", a->speedup_geomean);
		if (!isnan(a->strong_speedup_geomean))
			sc_buf_printf(out, ", %.2fx over the strong references", a->strong_speedup_geomean);
		sc_buf_printf(out, ", fast_1 %.0f%%, fast_2 %.0f%%", a->fast_1 * 100,
			      isnan(a->fast_2) ? 0 : a->fast_2 * 100);
	} else if (strcmp(r->run.mode, "gpu")) {
		sc_buf_printf(out, " (%s: correctness and speed not checked)", r->run.mode);
	}
	sc_buf_putc(out, '\n');
}

static const struct sc_results_lift *find_lift(const struct sc_results *r, const char *skill,
					      const char *model)
{
	for (size_t i = 0; i < r->nlifts; i++)
		if (!strcmp(r->lifts[i].skill, skill) && !strcmp(r->lifts[i].model, model))
			return &r->lifts[i];
	return NULL;
}

/* The sequential decision of one skill x model (docs/evaluation.md, "skillci eval"). */
static void lift_lines(struct sc_buf *out, const struct sc_results_lift *l, double alpha,
		       size_t nchecks)
{
	struct sc_buf est = SC_BUF_INIT;
	double d = isnan(l->drop) ? l->detectable : l->drop;

	points(&est, l->lift);
	sc_buf_puts(&est, " points [");
	points(&est, l->lo);
	sc_buf_puts(&est, ", ");
	points(&est, l->hi);
	sc_buf_puts(&est, "]");
	if (l->decision == SC_LIFT_SHOWN)
		sc_buf_printf(out, "\n  lift: shown, %s, beyond the %g-point margin\n", est.ptr,
			      l->margin * 100.0);
	else if (l->decision == SC_LIFT_NONE)
		sc_buf_printf(out, "\n  lift: none of %g points or more, %s: ruled out\n", d * 100.0,
			      est.ptr);
	else if (!l->tests)
		sc_buf_puts(out, "\n  lift: unverified, no test judged with and without the skill\n");
	else
		sc_buf_printf(out, "\n  lift: unverified, %s: neither a lift nor the absence of a lift "
			      "of %g points is shown;\n        %s\n", est.ptr, d * 100.0,
			      l->stop == SC_STOP_STOPPED ? "the run was interrupted"
			      : "the design reached its cap of runs per test (--max-runs, gate.max_runs)");
	sc_buf_printf(out, "        %lld run%s per test after %lld of at most %lld round%s (%lld "
		      "with the skill, %lld without)%s\n", (long long)l->runs_per_test,
		      l->runs_per_test == 1 ? "" : "s", (long long)l->rounds, (long long)l->max_rounds,
		      l->max_rounds == 1 ? "" : "s", (long long)l->skill_runs,
		      (long long)l->baseline_runs, l->stop == SC_STOP_END ? "; the boundaries met" : "");
	sc_buf_printf(out, "        sequential probability ratio test, alpha %g over %zu check%s\n",
		      alpha, nchecks, nchecks == 1 ? "" : "s");
	sc_buf_release(&est);
}

/* One skill on one model: its title, bars, tokens, kernels, lift and the
 * row's recommendation. */
static void skill_model(struct sc_buf *out, const struct sc_results *r,
			const struct sc_results_skill *s, const char *model, const char *requested,
			const struct sc_report_eval_view *view, const struct sc_verdicts *v)
{
	const struct sc_verdict_row *rows, *row = NULL;
	size_t nrows = sc_verdict_rows_of(v, s->path, &rows);
	const struct sc_results_lift *lift = find_lift(r, s->path, model);
	const struct sc_results_aggregate *head = sc_results_find_aggregate(r, s->path, SC_VARIANT_HEAD,
									    model);
	const struct sc_results_aggregate *base = sc_results_find_aggregate(r, s->path,
									    SC_VARIANT_BASELINE, model);
	const struct sc_results_comparison *c = sc_results_find_comparison(r, s->path, model,
									  SC_VARIANT_BASELINE,
									  SC_VARIANT_HEAD);
	struct sc_buf suffix = SC_BUF_INIT, title = SC_BUF_INIT;

	for (size_t i = 0; i < nrows && !row; i++)
		if (rows[i].model && !strcmp(rows[i].model, model))
			row = &rows[i];
	sc_buf_printf(&title, "%s on %s", s->name, model);
	if (strcmp(requested, model))
		sc_buf_printf(&title, " (%s)", requested);
	if (view->sequential)
		sc_buf_printf(&title, " (%lld tests x %d to %d runs, sequential)%s", (long long)s->tests,
			      view->first_runs, view->max_runs, r->run.oracle ? "  [oracle self-test]" : "");
	else
		sc_buf_printf(&title, " (%lld tests x %d runs)%s", (long long)s->tests, view->runs,
			      r->run.oracle ? "  [oracle self-test]" : "");
	line(out, "%s", title.ptr);
	sc_buf_release(&title);
	if (!head) {
		line(out, "  unverified: no tests (skillci tests init %s writes a starter suite; the",
		     s->path);
		sc_buf_puts(out, "  format: skillci help tests; or pass --tests FILE, or --generate-tests)\n\n");
		return;
	}
	if (view->verbose)
		test_lines(out, r, s->path, model, view->baseline);
	if (view->baseline && base && c) {
		int64_t bt = token_total(r, s->path, SC_VARIANT_BASELINE, model);
		int64_t ht = token_total(r, s->path, SC_VARIANT_HEAD, model);
		rate_line(out, "baseline", base, NULL);
		if (c->paired_n == 0) {
			sc_buf_puts(&suffix, "(no paired pass/fail units)");
		} else {
			sc_buf_puts(&suffix, "(");
			spct(&suffix, c->skill_lift);
			sc_buf_printf(&suffix, ", McNemar p=%.4g, %s)", c->p_value,
				      c->significant ? "significant" : "not significant");
		}
		rate_line(out, "with skill", head, suffix.ptr);
		if (bt > 0) {
			double sv = sc_stats_token_savings((double)ht, (double)bt);
			sc_buf_printf(out, "\n  tokens: %lld \u2192 %lld  (%s%.0f%%)\n", (long long)bt,
				      (long long)ht, sv >= 0 ? "-" : "+", fabs(sv) * 100.0);
		}
		kernel_line(out, r, s->path, SC_VARIANT_BASELINE, model, base);
		kernel_line(out, r, s->path, SC_VARIANT_HEAD, model, head);
		if (lift)
			lift_lines(out, lift, r->run.alpha, r->nlifts);
	} else {
		rate_line(out, "with skill", head, NULL);
		sc_buf_printf(out, "  tokens: %lld\n",
			      (long long)token_total(r, s->path, SC_VARIANT_HEAD, model));
		kernel_line(out, r, s->path, SC_VARIANT_HEAD, model, head);
	}
	/* the row's decision, in the words every report uses (results/verdict.h) */
	if (row) {
		sc_buf_putc(out, '\n');
		line(out, "  Recommendation: %s", row->why);
	}
	sc_buf_putc(out, '\n');
	sc_buf_release(&suffix);
}

/* The benchmark table: one row per skill x model. */
static void table(struct sc_buf *out, const struct sc_results *r,
		  const struct sc_report_eval_view *view)
{
	int w = 32;  /* the model column fits the longest resolved name */

	for (size_t i = 0; i < r->naggregates; i++)
		if ((int)strlen(r->aggregates[i].model) > w)
			w = strlen(r->aggregates[i].model) < 96 ? (int)strlen(r->aggregates[i].model) : 96;
	sc_buf_printf(out, "%-24s %-*s %9s %9s %7s %8s %9s\n", "skill", w, "model", "baseline", "skill",
		      "lift", "p", "tokens");
	for (size_t s = 0; s < r->nskills; s++) {
		for (size_t m = 0; m < r->run.nmodels; m++) {
			const struct sc_results_aggregate *head, *base;
			const struct sc_results_comparison *c;
			struct sc_buf a = SC_BUF_INIT, b = SC_BUF_INIT, l = SC_BUF_INIT, t = SC_BUF_INIT;
			const char *model = NULL;
			/* the name the units record for this model */
			for (size_t i = 0; i < r->naggregates && m < r->run.nresolved_models; i++)
				if (!strcmp(r->aggregates[i].skill, r->skills[s].path) &&
				    r->run.resolved_models[m] &&
				    !strcmp(r->run.resolved_models[m], r->aggregates[i].model))
					model = r->aggregates[i].model;
			if (!model)
				continue;
			head = sc_results_find_aggregate(r, r->skills[s].path, SC_VARIANT_HEAD, model);
			base = sc_results_find_aggregate(r, r->skills[s].path, SC_VARIANT_BASELINE, model);
			c = sc_results_find_comparison(r, r->skills[s].path, model, SC_VARIANT_BASELINE,
						       SC_VARIANT_HEAD);
			pct(&a, base ? base->pass_rate : NAN);
			pct(&b, head ? head->pass_rate : NAN);
			spct(&l, c ? c->skill_lift : NAN);
			spct(&t, c ? -c->token_savings : NAN);
			line(out, "%-24.24s %-*.*s %9s %9s %7s %8.4g %9s", r->skills[s].name, w, w, model,
			     view->baseline ? a.ptr : "-", b.ptr, l.ptr, c ? c->p_value : NAN, t.ptr);
			sc_buf_release(&a);
			sc_buf_release(&b);
			sc_buf_release(&l);
			sc_buf_release(&t);
		}
	}
	sc_buf_putc(out, '\n');
}

void sc_report_eval_term(struct sc_buf *out, const struct sc_results *r,
			 const struct sc_report_eval_view *view, const struct sc_verdicts *v)
{
	for (size_t s = 0; s < r->nskills; s++)
		for (size_t m = 0; m < r->run.nmodels && m < r->run.nresolved_models; m++)
			if (r->run.resolved_models[m])
				skill_model(out, r, &r->skills[s], r->run.resolved_models[m], r->run.models[m],
					    view, v);
	if (view->table)
		table(out, r, view);
}
