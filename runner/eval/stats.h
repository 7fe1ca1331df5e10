#ifndef SC_STATS_H
#define SC_STATS_H
/*
 * Statistics for evaluation results: pure functions, no allocation, no
 * I/O. docs/evaluation.md gives every formula.
 *
 * "Absent" values are NAN (check with isnan()); the callers turn them
 * into JSON null.
 */
#include <stdbool.h>
#include <stddef.h>

/* The normal quantile for a two-sided 95% interval. */
#define SC_STATS_Z95 1.959963984540054

/*
 * Wilson score interval for k successes out of n trials at quantile z
 * (SC_STATS_Z95 for 95%). Sets *lo and *hi, clamped to [0, 1]. With n = 0
 * both are NAN and the call returns false; otherwise true.
 */
bool sc_stats_wilson(double *lo, double *hi, unsigned long k, unsigned long n, double z);

/*
 * Natural log of the binomial coefficient C(n, k), through lgamma, so it is
 * finite for n in the millions. k > n gives -INFINITY.
 */
double sc_stats_log_choose(unsigned long n, unsigned long k);

/*
 * Exact two-sided binomial test of k successes in n trials against
 * p = 1/2: the probability of an outcome at least as far from n/2 as k,
 * i.e. min(1, 2 * P(X <= min(k, n-k))). Up to n = 1000 the terms are
 * summed directly from 2^-n (exact for small tails, a few ulps otherwise);
 * above, in log space (log-sum-exp of log C(n,i) - n log 2), so it stays
 * accurate for n in the thousands. n = 0 gives 1.
 */
double sc_stats_sign_test_p(unsigned long k, unsigned long n);

/*
 * Exact McNemar test on paired binary outcomes: b pairs passed only in the
 * first variant, c only in the second. It is the sign test on the b + c
 * discordant pairs: sc_stats_sign_test_p(b, b + c).
 */
double sc_stats_mcnemar_p(unsigned long b, unsigned long c);

/*
 * Geometric mean of the positive, finite values among x[0..n): exp of the
 * mean log. Non-positive, NaN and infinite values are ignored (a speedup is
 * always positive; anything else is a missing measurement). NAN when none
 * is left.
 */
double sc_stats_geomean(const double *x, size_t n);

/*
 * fast_p (KernelBench): the share of the n units that are correct and
 * whose speedup is strictly greater than p. correct[i] and speedup[i]
 * describe unit i; a NaN speedup never counts. NAN when n = 0.
 */
double sc_stats_fast_p(const bool *correct, const double *speedup, size_t n, double p);

/* Mean of x[0..n) ignoring NaNs; NAN when none. */
double sc_stats_mean(const double *x, size_t n);

/*
 * upskill's comparison of a skill against no skill (upskill models.py,
 * EvalResults):
 *   skill_lift    = with_rate - baseline_rate
 *   token_savings = 1 - with_tokens / baseline_tokens   (0 when baseline_tokens = 0)
 *   is_beneficial = lift > 0.05 or (lift >= 0 and token_savings > 0.2)
 * Token arguments are totals or means alike, as long as both sides count
 * the same number of units.
 */
double sc_stats_skill_lift(double with_rate, double baseline_rate);
double sc_stats_token_savings(double with_tokens, double baseline_tokens);
bool sc_stats_is_beneficial(double skill_lift, double token_savings);

/* upskill's thresholds for is_beneficial. */
#define SC_STATS_LIFT_BENEFIT    0.05
#define SC_STATS_SAVINGS_BENEFIT 0.2

#endif
