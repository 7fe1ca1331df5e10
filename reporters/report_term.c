/* Terminal summary (report_term.h). */
#include "common.h"
#include "reporters/report_term.h"
#include "reporters/report_fmt.h"
#include "reporters/report_md.h"
#include "results/results.h"
#include "escape.h"

#include <math.h>
#include <unistd.h>

#define GREEN "\033[32m"
#define RED   "\033[31m"
#define YELLOW "\033[33m"
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

/* Untrusted text (paths, model names, messages) goes through the escaping
 * routine: the summary is printed to a terminal or a CI log (escape.h). */
static void put(struct sc_buf *out, const char *s)
{
	sc_escape_log(out, s);
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

static int cmp_skill_ptr(const void *pa, const void *pb)
{
	const struct sc_results_skill *a = *(const struct sc_results_skill *const *)pa;
	const struct sc_results_skill *b = *(const struct sc_results_skill *const *)pb;
	return strcmp(a->path ? a->path : "", b->path ? b->path : "");
}

/* The first of the n aggregates v (sorted by cmp_agg) of skill, or n. */
static size_t agg_first(const struct sc_results_aggregate *const *v, size_t n, const char *skill)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v[mid]->skill, skill) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* One variant's line: "  head     ████████░░░░ 40%  (4/10, 1.85×)". */
static void variant_line(struct sc_buf *out, const struct sc_results_aggregate *a, bool eval)
{
	const char *label = a->variant;

	if (eval && sc_streq(a->variant, "head"))
		label = "with skill";
	else if (sc_streq(a->variant, SC_VARIANT_HEAD_TESTS))
		label = "PR tests";
	sc_buf_printf(out, "  %-10s ", label);
	sc_report_bar(out, a->pass_rate);
	sc_buf_putc(out, ' ');
	if (isnan(a->pass_rate))
		sc_buf_puts(out, "  —");
	else
		sc_buf_printf(out, "%3.0f%%", a->pass_rate * 100.0);
	sc_buf_printf(out, "  (%lld/%lld", (long long)a->passed, (long long)a->n);
	/* the 95% interval, as the Markdown gives it under each pass rate */
	if (!isnan(a->ci_low) && !isnan(a->ci_high))
		sc_buf_printf(out, ", 95%% CI %.0f–%.0f%%", a->ci_low * 100.0 + 0.0, a->ci_high * 100.0 + 0.0);
	if (a->errors)
		sc_buf_printf(out, ", %lld error%s", (long long)a->errors, a->errors == 1 ? "" : "s");
	if (a->skipped)
		sc_buf_printf(out, ", %lld skipped", (long long)a->skipped);
	if (!isnan(a->speedup_geomean)) {
		sc_buf_puts(out, ", ");
		sc_report_speedup(out, a->speedup_geomean);
		sc_buf_puts(out, " naive");
	}
	if (!isnan(a->strong_speedup_geomean)) {
		sc_buf_puts(out, ", ");
		sc_report_speedup(out, a->strong_speedup_geomean);
		sc_buf_puts(out, " strong");
	}
	if (!isnan(a->mean_tokens))
		sc_buf_printf(out, ", %.0f tokens", a->mean_tokens);
	sc_buf_puts(out, ")\n");
}

/* The gate's verdict for a skill and model (NULL: the skill as a whole):
 * "  gate: ✓ passed" or one "  gate: ✗ check (rule): message" per failure. */
static void gate_lines(struct sc_buf *out, const struct sc_results *r,
		       const struct sc_results_skill *s, const char *model, bool colour)
{
	size_t n = 0, first, count = sc_results_checks_range(r, s->path, NULL, &first), ff, nf;
	bool shard = r->run.shard_count > 1;

	if (r->run.kind && !strcmp(r->run.kind, "eval"))
		return;
	for (size_t i = first; i < first + count; i++) {
		/* every check that is not a pass, in the words of its status:
		 * ✗ failed, ? unverified (accepted or not), ! could not check */
		const struct sc_results_check *c = &r->gate.checks[i];
		bool whole = !c->model || !*c->model, failed = sc_streq(c->status, "failed");
		bool err = sc_streq(c->status, "error"), unv = sc_streq(c->status, "unverified");
		if (!sc_streq(c->skill, s->path) || (!whole && model && !sc_streq(c->model, model)) ||
		    !(failed || err || unv))
			continue;
		sc_buf_printf(out, "  gate: %s%s %s %s%s (%s): ", colour ? (failed || err ? RED : YELLOW) : "",
			      failed ? "✗" : err ? "!" : "?", c->check,
			      failed ? "failed" : err ? "could not check" : "unverified",
			      c->accepted ? ", accepted" : "", c->rule ? c->rule : c->check);
		put(out, c->message ? c->message : "");
		sc_buf_printf(out, "%s\n", colour ? RESET : "");
		n++;
	}
	nf = sc_results_failures_of(r, s->path, &ff);
	for (size_t k = ff; k < ff + nf; k++) {
		/* results written before every failure had a check */
		const struct sc_results_gate_failure *f = sc_results_failure_at(r, k);
		bool whole = !f->model || !*f->model;
		if (!sc_streq(f->skill, s->path) || (!whole && model && !sc_streq(f->model, model)) ||
		    sc_results_find_check(r, f->skill, f->model ? f->model : "", f->check))
			continue;
		sc_buf_printf(out, "  gate: %s✗ %s (%s): ", colour ? RED : "",
			      f->check ? f->check : sc_results_rule_check(f->rule), f->rule);
		put(out, f->message ? f->message : "");
		sc_buf_printf(out, "%s\n", colour ? RESET : "");
		n++;
	}
	if (!n && !s->gate_passed) {
		for (size_t i = 0; i < s->ngate_reasons; i++) {
			sc_buf_printf(out, "  gate: %s✗ ", colour ? RED : "");
			put(out, s->gate_reasons[i]);
			sc_buf_printf(out, "%s\n", colour ? RESET : "");
		}
		n = s->ngate_reasons + 1;
	}
	if (!n)
		sc_buf_printf(out, "  gate: %s%s\n", shard ? "decided by skillci merge" : "✓ passed",
			      s->untested ? " (unverified: no tests)" : "");
}

/* What the pull request tried that was not applied, and the skills whose
 * tests it edits (the same story as the Markdown banners). */
static void trust_lines(struct sc_buf *out, const struct sc_results *r)
{
	const struct sc_results_trust *t = &r->run.trust;

	if (t->nchanges) {
		sc_buf_puts(out, "the pull request changes the configuration; NOT applied (used ");
		put(out, t->config ? t->config : "the base revision's configuration");
		sc_buf_puts(out, "):\n");
		for (size_t i = 0; i < t->nchanges; i++) {
			sc_buf_puts(out, "  ");
			put(out, t->changes[i].key);
			sc_buf_puts(out, ": ");
			put(out, t->changes[i].base);
			sc_buf_puts(out, " -> ");
			put(out, t->changes[i].head);
			sc_buf_putc(out, '\n');
		}
	}
	for (size_t i = 0; i < t->nnotes; i++) {
		sc_buf_puts(out, "not taken from the pull request: ");
		put(out, t->notes[i]);
		sc_buf_putc(out, '\n');
	}
	for (size_t i = 0; i < r->nskills; i++) {
		const struct sc_results_skill *s = &r->skills[i];
		if (s->first_tests) {
			put(out, s->path);
			sc_buf_printf(out, ": tests added: they judge later PRs (the base had none; "
				      "the verdict runs the head's %lld against no skill)\n",
				      (long long)s->tests);
		}
		if (!sc_results_tests_edited(s))
			continue;
		put(out, s->path);
		sc_buf_printf(out, ": the pull request edits its tests (%lld changed, %lld added, %lld "
			      "removed); the verdict uses the base's tests, \"PR tests\" are the "
			      "head's own\n", (long long)s->tests_changed, (long long)s->tests_added,
			      (long long)s->tests_removed);
	}
}

void sc_report_term(struct sc_buf *out, const struct sc_results *r, bool colour)
{
	const struct sc_results_aggregate **v = sc_xcalloc(r->naggregates + 1, sizeof(*v));
	bool eval = r->run.kind && !strcmp(r->run.kind, "eval");
	struct sc_buf verdict = SC_BUF_INIT;
	const struct sc_results_skill **skills = sc_xcalloc(r->nskills + 1, sizeof(*skills));

	if (!eval) {
		/* what was checked, the first line */
		struct sc_buf c = SC_BUF_INIT;
		sc_report_checked_line(&c, r);
		sc_buf_puts(out, "checked: ");
		put(out, c.ptr);
		sc_buf_putc(out, '\n');
		sc_buf_release(&c);
	}
	if (r->run.oracle)
		sc_buf_puts(out, "oracle self-test: answers are reference solutions, not a model's\n");
	for (size_t i = 0; i < r->naggregates; i++)
		v[i] = &r->aggregates[i];
	qsort(v, r->naggregates, sizeof(*v), cmp_agg);
	for (size_t i = 0; i < r->nskills; i++)
		skills[i] = &r->skills[i];
	qsort(skills, r->nskills, sizeof(*skills), cmp_skill_ptr);
	for (size_t si = 0; si < r->nskills; si++) {
		const struct sc_results_skill *s = skills[si];
		size_t nrows = 0;

		if (!eval && sc_streq(s->status, "unchanged"))
			continue;
		for (size_t i = agg_first(v, r->naggregates, s->path); i < r->naggregates;) {
			size_t k = i, uf, nu;
			const struct sc_results_comparison *c;

			while (k < r->naggregates && !strcmp(v[k]->skill, v[i]->skill) &&
			       !strcmp(v[k]->model, v[i]->model))
				k++;
			if (strcmp(v[i]->skill, s->path))
				break;  /* v is by skill: past s's */
			sc_buf_puts(out, colour ? BOLD : "");
			put(out, s->path);
			sc_buf_printf(out, "%s · ", colour ? RESET : "");
			put(out, v[i]->model);
			if (!eval && s->status && nrows == 0) {
				sc_buf_printf(out, " (%s", s->status);
				if (sc_streq(s->status, "renamed") && s->old_path) {
					sc_buf_puts(out, " from ");
					put(out, s->old_path);
				}
				sc_buf_puts(out, ")");
			}
			sc_buf_putc(out, '\n');
			for (size_t a = i; a < k; a++)
				variant_line(out, v[a], eval);
			c = sc_results_find_comparison(r, v[i]->skill, v[i]->model, eval ? "baseline" : "base", "head");
			if (c && !isnan(c->pass_rate_delta)) {
				sc_buf_printf(out, "  %s", eval ? "lift      " : "base→head ");
				sc_report_points(out, c->pass_rate_delta);
				sc_buf_puts(out, " (");
				sc_report_significance(out, c);
				sc_buf_puts(out, ")");
				if (!isnan(c->tokens_delta_pct)) {
					sc_buf_puts(out, ", tokens ");
					sc_report_signed_pct(out, c->tokens_delta_pct);
				}
				sc_buf_putc(out, '\n');
			}
			nu = sc_results_usage_of(r, s->path, &uf);
			for (size_t ui = uf; ui < uf + nu; ui++) {
				const struct sc_results_usage *u = sc_results_usage_at(r, ui);
				if (strcmp(u->skill, v[i]->skill) || strcmp(u->model, v[i]->model))
					continue;
				sc_buf_printf(out, "  used      %lld input, %lld output tokens", (long long)u->tokens_in,
					      (long long)u->tokens_out);
				if (!isnan(u->cost_usd))
					sc_buf_printf(out, ", $%.4f at list prices%s%s", u->cost_usd,
						      u->price_date ? " of " : "", u->price_date ? u->price_date : "");
				else
					sc_buf_puts(out, ", no price for this model");
				sc_buf_putc(out, '\n');
			}
			gate_lines(out, r, s, v[i]->model, colour);
			nrows++;
			i = k;
		}
		if (nrows)
			continue;
		/* a changed skill with no model results: say what it is */
		sc_buf_puts(out, colour ? BOLD : "");
		put(out, s->path);
		sc_buf_puts(out, colour ? RESET : "");
		if (sc_streq(s->status, "deleted"))
			sc_buf_puts(out, ": deleted at head\n");
		else if (s->untested)
			sc_buf_printf(out, ": %s%sunverified: no tests\n", eval ? "" : s->status ? s->status : "",
				      eval || !s->status ? "" : ", ");
		else
			sc_buf_printf(out, ": %s%snothing evaluated\n", eval ? "" : s->status ? s->status : "",
				      eval || !s->status ? "" : ", ");
		gate_lines(out, r, s, NULL, colour);
	}
	for (size_t i = 0; i < r->gate.nfailures; i++) {
		const struct sc_results_gate_failure *f = &r->gate.failures[i];
		if (f->skill && *f->skill && sc_results_find_skill(r, f->skill))
			continue;
		sc_buf_printf(out, "run: %s✗ %s (%s): ", colour ? RED : "",
			      f->check ? f->check : sc_results_rule_check(f->rule), f->rule);
		put(out, f->message ? f->message : "");
		sc_buf_printf(out, "%s\n", colour ? RESET : "");
	}
	{
		/* what the decisions cost */
		struct sc_buf cost = SC_BUF_INIT;
		sc_report_cost_line(&cost, r);
		if (cost.len) {
			sc_buf_puts(out, "cost: ");
			put(out, cost.ptr);
			sc_buf_putc(out, '\n');
		}
		sc_buf_release(&cost);
	}
	trust_lines(out, r);
	sc_report_verdict_text(&verdict, r);
	sc_buf_printf(out, "%s%s ", colour ? (r->gate.verdict == SC_VERDICT_PASS ? GREEN
					      : r->gate.verdict == SC_VERDICT_UNVERIFIED ? YELLOW : RED) : "",
		      r->gate.verdict == SC_VERDICT_PASS ? "✓" : r->gate.verdict == SC_VERDICT_FAIL ? "✗"
		      : r->gate.verdict == SC_VERDICT_ERROR ? "!" : "?");
	put(out, verdict.ptr);
	sc_buf_printf(out, "%s\n", colour ? RESET : "");
	if (!r->run.complete) {
		sc_buf_puts(out, "incomplete: ");
		put(out, r->run.incomplete_reason ? r->run.incomplete_reason : "run interrupted");
		sc_buf_putc(out, '\n');
	}
	sc_buf_release(&verdict);
	free(skills);
	free(v);
}
