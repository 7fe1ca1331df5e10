/* Comparing two aggregates (compare.h). */
#include "common.h"
#include "stats.h"
#include "results/compare.h"
#include "results/results.h"

#include <math.h>

bool sc_compare_significant(double p_value, double alpha)
{
	return !isnan(p_value) && p_value < sc_compare_alpha(alpha);
}

double sc_compare_alpha(double alpha)
{
	return !isnan(alpha) && alpha > 0 && alpha < 1 ? alpha : SC_COMPARE_DEFAULT_ALPHA;
}

double sc_compare_pct_change(double from, double to)
{
	if (isnan(from) || isnan(to) || from <= 0)
		return NAN;
	return (to - from) / from * 100.0;
}

double sc_compare_ratio(double from, double to)
{
	if (isnan(from) || isnan(to) || from <= 0)
		return NAN;
	return to / from;
}

void sc_compare_fill(struct sc_results_comparison *c, const struct sc_results_aggregate *from,
		     const struct sc_results_aggregate *to, const struct sc_compare_pairs *pairs,
		     double alpha)
{
	c->paired_n = 0;
	c->to_only = c->from_only = 0;
	c->p_value = NAN;
	c->significant = false;
	c->from_pass_rate = from->pass_rate;
	c->to_pass_rate = to->pass_rate;
	if (pairs && pairs->n) {
		c->paired_n = (int64_t)pairs->n;
		c->to_only = (int64_t)pairs->to_only;
		c->from_only = (int64_t)pairs->from_only;
		c->from_pass_rate = (double)pairs->from_pass / (double)pairs->n;
		c->to_pass_rate = (double)pairs->to_pass / (double)pairs->n;
		c->p_value = sc_stats_mcnemar_p(pairs->from_only, pairs->to_only);
		c->significant = sc_compare_significant(c->p_value, alpha);
	}
	c->pass_rate_delta = isnan(c->from_pass_rate) || isnan(c->to_pass_rate)
			     ? NAN : c->to_pass_rate - c->from_pass_rate;
	c->tokens_delta_pct = sc_compare_pct_change(from->mean_tokens, to->mean_tokens);
	c->speedup_ratio = sc_compare_ratio(from->speedup_geomean, to->speedup_geomean);
	c->judge_delta = isnan(from->judge_mean) || isnan(to->judge_mean)
			 ? NAN : to->judge_mean - from->judge_mean;
	c->skill_lift = c->token_savings = NAN;
	c->is_beneficial = -1;
	if (from->variant == SC_VARIANT_BASELINE && !isnan(c->pass_rate_delta)) {
		c->skill_lift = sc_stats_skill_lift(c->to_pass_rate, c->from_pass_rate);
		c->token_savings = sc_stats_token_savings(isnan(to->mean_tokens) ? 0 : to->mean_tokens,
							  isnan(from->mean_tokens) ? 0 : from->mean_tokens);
		c->is_beneficial = sc_stats_is_beneficial(c->skill_lift, c->token_savings);
	}
}
