/*
 * Statistics for evaluation results (see stats.h and docs/evaluation.md).
 */
#include "common.h"
#include "eval/stats.h"

#include <math.h>

bool sc_stats_wilson(double *lo, double *hi, unsigned long k, unsigned long n, double z)
{
	double p, z2, denom, center, half, dn;

	assert(k <= n);
	if (n == 0) {
		*lo = NAN;
		*hi = NAN;
		return false;
	}
	dn = (double)n;
	p = (double)k / dn;
	z2 = z * z;
	denom = 1.0 + z2 / dn;
	center = (p + z2 / (2.0 * dn)) / denom;
	half = z * sqrt(p * (1.0 - p) / dn + z2 / (4.0 * dn * dn)) / denom;
	*lo = center - half;
	*hi = center + half;
	/* Exact bounds at the edges: rounding must not put 0/n above 0. */
	if (k == 0 || *lo < 0.0)
		*lo = 0.0;
	if (k == n || *hi > 1.0)
		*hi = 1.0;
	return true;
}

double sc_stats_log_choose(unsigned long n, unsigned long k)
{
	if (k > n)
		return -INFINITY;
	if (k == 0 || k == n)
		return 0.0;
	return lgamma((double)n + 1.0) - lgamma((double)k + 1.0) - lgamma((double)(n - k) + 1.0);
}

/*
 * P(X <= k) for X ~ Binomial(n, 1/2), as a log: the terms log C(n,i) -
 * n log 2 for i = 0..k are summed with the log-sum-exp trick around the
 * largest term (i = k, since k <= n/2 here).
 */
static double log_lower_tail_half(unsigned long k, unsigned long n)
{
	double lmax = sc_stats_log_choose(n, k);
	double sum = 0.0;

	for (unsigned long i = 0; i <= k; i++)
		sum += exp(sc_stats_log_choose(n, i) - lmax);
	return lmax + log(sum) - (double)n * M_LN2;
}

double sc_stats_sign_test_p(unsigned long k, unsigned long n)
{
	unsigned long lo;
	double p;

	assert(k <= n);
	if (n == 0)
		return 1.0;
	lo = k < n - k ? k : n - k;
	/* The two tails overlap at the middle when 2*lo == n: p is 1. */
	if (2 * lo == n)
		return 1.0;
	if (n <= 1000) {
		/* Direct sum: C(n,0)/2^n is an exact power of two and each next
		 * term is the last times (n-i)/(i+1), so small tails are exact
		 * and the rest within a few ulps; nothing underflows here. */
		double term = ldexp(1.0, -(int)n), sum = 0.0;
		for (unsigned long i = 0; i <= lo; i++) {
			sum += term;
			term = term * (double)(n - i) / (double)(i + 1);
		}
		p = 2.0 * sum;
	} else {
		p = 2.0 * exp(log_lower_tail_half(lo, n));
	}
	return p > 1.0 ? 1.0 : p;
}

double sc_stats_mcnemar_p(unsigned long b, unsigned long c)
{
	return sc_stats_sign_test_p(b, b + c);
}

double sc_stats_geomean(const double *x, size_t n)
{
	double sum = 0.0;
	size_t used = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0.0) || isinf(x[i]))
			continue;
		sum += log(x[i]);
		used++;
	}
	return used ? exp(sum / (double)used) : NAN;
}

double sc_stats_fast_p(const bool *correct, const double *speedup, size_t n, double p)
{
	size_t fast = 0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (correct[i] && !isnan(speedup[i]) && speedup[i] > p)
			fast++;
	return (double)fast / (double)n;
}

double sc_stats_mean(const double *x, size_t n)
{
	double sum = 0.0;
	size_t used = 0;

	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]))
			continue;
		sum += x[i];
		used++;
	}
	return used ? sum / (double)used : NAN;
}

double sc_stats_skill_lift(double with_rate, double baseline_rate)
{
	return with_rate - baseline_rate;
}

double sc_stats_token_savings(double with_tokens, double baseline_tokens)
{
	if (baseline_tokens == 0.0 || isnan(baseline_tokens) || isnan(with_tokens))
		return 0.0;
	return 1.0 - with_tokens / baseline_tokens;
}

bool sc_stats_is_beneficial(double skill_lift, double token_savings)
{
	return skill_lift > SC_STATS_LIFT_BENEFIT ||
	       (skill_lift >= 0.0 && token_savings > SC_STATS_SAVINGS_BENEFIT);
}
