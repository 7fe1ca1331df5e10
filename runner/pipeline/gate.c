/*
 * The gate (see gate.h): one pass over the head aggregates of a results
 * model, a failure per broken rule, the verdict written back.
 */
#include "common.h"
#include "pipeline/config.h"
#include "pipeline/gate.h"
#include "results/results.h"

#include <math.h>

static void add_failure(struct sc_results *r, struct sc_results_skill *s, const char *model,
			const char *rule, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Appends a failure to r->gate and its message to the skill's reasons. */
static void add_failure(struct sc_results *r, struct sc_results_skill *s, const char *model,
			const char *rule, const char *fmt, ...)
{
	struct sc_results_gate_failure *f;
	struct sc_buf msg = SC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	r->gate.failures = sc_xrealloc(r->gate.failures,
				       (r->gate.nfailures + 1) * sizeof(*r->gate.failures));
	f = &r->gate.failures[r->gate.nfailures++];
	f->skill = sc_xstrdup(s ? s->path : "");
	f->model = sc_xstrdup(model ? model : "");
	f->rule = sc_xstrdup(rule);
	if (s) {
		struct sc_buf reason = SC_BUF_INIT;
		sc_buf_printf(&reason, "%s%s%s", model ? model : "", model ? ": " : "", msg.ptr);
		s->gate_reasons = sc_xrealloc(s->gate_reasons,
					      (s->ngate_reasons + 1) * sizeof(*s->gate_reasons));
		s->gate_reasons[s->ngate_reasons++] = sc_buf_detach(&reason, NULL);
		s->gate_passed = false;
	}
	f->message = sc_buf_detach(&msg, NULL);
}

static void clear_gate(struct sc_results *r)
{
	for (size_t i = 0; i < r->gate.nfailures; i++) {
		free(r->gate.failures[i].skill);
		free(r->gate.failures[i].model);
		free(r->gate.failures[i].rule);
		free(r->gate.failures[i].message);
	}
	free(r->gate.failures);
	r->gate.failures = NULL;
	r->gate.nfailures = 0;
	for (size_t s = 0; s < r->nskills; s++) {
		for (size_t i = 0; i < r->skills[s].ngate_reasons; i++)
			free(r->skills[s].gate_reasons[i]);
		free(r->skills[s].gate_reasons);
		r->skills[s].gate_reasons = NULL;
		r->skills[s].ngate_reasons = 0;
		r->skills[s].gate_passed = true;
	}
}

static const struct sc_results_aggregate *find_agg(const struct sc_results *r, const char *skill,
						   const char *variant, const char *model)
{
	for (size_t i = 0; i < r->naggregates; i++) {
		const struct sc_results_aggregate *a = &r->aggregates[i];
		if (!strcmp(a->skill, skill) && !strcmp(a->variant, variant) && !strcmp(a->model, model))
			return a;
	}
	return NULL;
}

static const struct sc_results_comparison *find_cmp(const struct sc_results *r, const char *skill,
						    const char *model, const char *from,
						    const char *to)
{
	for (size_t i = 0; i < r->ncomparisons; i++) {
		const struct sc_results_comparison *c = &r->comparisons[i];
		if (!strcmp(c->skill, skill) && !strcmp(c->model, model) && !strcmp(c->from, from) &&
		    !strcmp(c->to, to))
			return c;
	}
	return NULL;
}

/* An aggregate with something to judge: at least one pass/fail unit. */
static bool judged(const struct sc_results_aggregate *a)
{
	return a && a->n > 0 && !isnan(a->pass_rate);
}

/* The rules comparing head with base for one skill and model. */
static void base_rules(struct sc_results *r, struct sc_results_skill *s, const char *model,
		       const struct sc_results_aggregate *base,
		       const struct sc_results_aggregate *head, const struct sc_config_gate *g)
{
	const struct sc_results_comparison *c = find_cmp(r, s->path, model, "base", "head");
	double delta = head->pass_rate - base->pass_rate;
	bool flat_or_worse = delta <= 1e-12;

	if (c && c->paired_n > 0 && !isnan(c->p_value) && c->p_value < g->alpha && delta < 0)
		add_failure(r, s, model, "pass_rate_significant_drop",
			    "pass rate fell from %.0f%% to %.0f%% (paired p=%.3g < %.3g)",
			    base->pass_rate * 100, head->pass_rate * 100, c->p_value, g->alpha);
	else if (-delta * 100 > g->pass_rate_drop_points + 1e-9)
		add_failure(r, s, model, "pass_rate_drop",
			    "pass rate fell from %.0f%% to %.0f%% (%.0f points, more than %g)",
			    base->pass_rate * 100, head->pass_rate * 100, -delta * 100,
			    g->pass_rate_drop_points);
	if (flat_or_worse && !isnan(base->mean_tokens) && !isnan(head->mean_tokens) &&
	    base->mean_tokens > 0) {
		double rise = (head->mean_tokens - base->mean_tokens) / base->mean_tokens * 100;
		if (rise > g->tokens_rise_pct + 1e-9)
			add_failure(r, s, model, "tokens_rise",
				    "mean tokens rose %.0f%% (%.0f to %.0f, more than %g%%) with the pass "
				    "rate flat or worse", rise, base->mean_tokens, head->mean_tokens,
				    g->tokens_rise_pct);
	}
	if (!isnan(base->speedup_geomean) && !isnan(head->speedup_geomean) &&
	    base->speedup_geomean > 0) {
		double ratio = head->speedup_geomean / base->speedup_geomean;
		if (ratio < 1 - g->speedup_drop_ratio - 1e-12)
			add_failure(r, s, model, "speedup_drop",
				    "kernel speedup geomean fell from %.2fx to %.2fx (ratio %.2f, below %.2f)",
				    base->speedup_geomean, head->speedup_geomean, ratio,
				    1 - g->speedup_drop_ratio);
	}
	if (flat_or_worse && !isnan(base->judge_mean) && !isnan(head->judge_mean) &&
	    base->judge_mean - head->judge_mean > g->judge_drop + 1e-12)
		add_failure(r, s, model, "judge_drop",
			    "judge score fell from %.2f to %.2f (more than %.2f) with the pass rate flat "
			    "or worse", base->judge_mean, head->judge_mean, g->judge_drop);
}

/* A new skill must do better than no skill (require_lift). */
static void new_skill_rule(struct sc_results *r, struct sc_results_skill *s, const char *model,
			   const struct sc_results_aggregate *baseline,
			   const struct sc_results_aggregate *head)
{
	double lift = head->pass_rate - baseline->pass_rate;
	bool savings = !isnan(baseline->mean_tokens) && !isnan(head->mean_tokens) &&
		       head->mean_tokens < baseline->mean_tokens;

	if (lift < -1e-12)
		add_failure(r, s, model, "new_skill_no_better",
			    "new skill passes %.0f%%, below %.0f%% without it",
			    head->pass_rate * 100, baseline->pass_rate * 100);
	else if (lift <= 1e-12 && baseline->pass_rate < 1 - 1e-12 && !savings)
		add_failure(r, s, model, "new_skill_no_better",
			    "new skill passes %.0f%%, no better than without it, and saves no tokens",
			    head->pass_rate * 100);
}

int sc_gate_apply(struct sc_results *r, const struct sc_config_gate *g)
{
	int64_t errors = 0, units = (int64_t)r->nunits;

	clear_gate(r);
	for (size_t si = 0; si < r->nskills; si++) {
		struct sc_results_skill *s = &r->skills[si];
		if (s->untested || (s->status && !strcmp(s->status, "deleted")))
			continue;
		for (size_t i = 0; i < r->naggregates; i++) {
			const struct sc_results_aggregate *head = &r->aggregates[i], *base, *baseline;
			if (strcmp(head->skill, s->path) || strcmp(head->variant, "head") || !judged(head))
				continue;
			base = find_agg(r, s->path, "base", head->model);
			baseline = find_agg(r, s->path, "baseline", head->model);
			if (judged(base))
				base_rules(r, s, head->model, base, head, g);
			else if (s->status && !strcmp(s->status, "added") && g->require_lift &&
				 judged(baseline))
				new_skill_rule(r, s, head->model, baseline, head);
		}
	}
	for (size_t i = 0; i < r->nunits; i++)
		errors += r->units[i].verdict && !strcmp(r->units[i].verdict, "error");
	r->gate.error_share = units ? (double)errors / (double)units : 0.0;
	if (units && r->gate.error_share > g->error_share + 1e-12)
		add_failure(r, NULL, NULL, "error_share",
			    "%lld of %lld units failed for infrastructure reasons (%.0f%%, more than %.0f%%)",
			    (long long)errors, (long long)units, r->gate.error_share * 100,
			    g->error_share * 100);
	r->gate.passed = r->gate.nfailures == 0;
	r->gate.exit_code = r->gate.passed ? 0 : 1;
	for (size_t i = 0; i < r->gate.nfailures; i++)
		if (!strcmp(r->gate.failures[i].rule, "error_share"))
			r->gate.exit_code = 3;
	return (int)r->gate.exit_code;
}

int sc_gate_add(struct sc_results *r, const char *skill, const char *model, const char *rule,
		const char *message)
{
	struct sc_results_skill *s = NULL;

	for (size_t i = 0; i < r->nskills; i++)
		if (!strcmp(r->skills[i].path, skill))
			s = &r->skills[i];
	add_failure(r, s, model, rule, "%s", message);
	if (!s) {
		free(r->gate.failures[r->gate.nfailures - 1].skill);
		r->gate.failures[r->gate.nfailures - 1].skill = sc_xstrdup(skill);
	}
	r->gate.passed = false;
	if (r->gate.exit_code != 3)
		r->gate.exit_code = 1;
	return (int)r->gate.exit_code;
}
