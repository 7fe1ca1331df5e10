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
#define SC_STATS_Z80 1.2815515655446004  /* a two-sided 80% interval */

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

/*
 * Student's t distribution with df > 0 degrees of freedom: P(T <= t),
 * through the regularized incomplete beta function. Above 1e7 degrees of
 * freedom (INFINITY included) it is the normal distribution. NAN for a NaN argument or df <= 0.
 */
double sc_stats_t_cdf(double t, double df);

/* The t such that sc_stats_t_cdf(t, df) = p, for 0 < p < 1 (NAN otherwise). */
double sc_stats_t_quantile(double p, double df);

/*
 * Holm's step-down adjustment of n p-values (family-wise error control):
 * sorted ascending, adj_(i) = max over j <= i of min(1, (n - j + 1) p_(j)),
 * written back in the input's order. adj may alias p. A NaN p stays NaN
 * and does not count in n.
 */
void sc_stats_holm(const double *p, size_t n, double *adj);

/*
 * The level Holm's step-down tests each of the n p-values at, in the
 * input's order: alpha / (m - i + 1) for the i-th smallest of the m
 * non-NaN values while every smaller one was rejected, and the level of
 * the step where the procedure stopped for the rest (NaN for a NaN p).
 * p is rejected exactly when p < level, i.e. when its sc_stats_holm
 * adjusted value is below alpha, so a bound computed at this level says
 * what the adjusted p-value decides. level must not alias p.
 */
void sc_stats_holm_levels(const double *p, size_t n, double alpha, double *level);

/*
 * The paired per-test comparison of pass rates against a margin
 * (docs/evaluation.md, "The pass-rate decision"). Each test is one
 * stratum: its runs at base and head are replicates, reduced to the
 * test's pass rate at either side, d_t = head_t - base_t. The estimate is
 * the mean of d_t over the T tests judged at both sides. Its standard
 * error depends on the method:
 *
 *   SC_STATS_STRATIFIED  the tests are the suite, fixed; only the runs
 *       are random: se^2 = sum_t v_t / T^2, v_t = s2_t (1/nb_t + 1/nh_t),
 *       s2_t = sc_stats_pooled_variance(passes_t, units_t), the test's
 *       Bernoulli variance estimated from its runs at both sides. Normal
 *       quantiles (df = INFINITY). The sum of the v_t is then capped at
 *       max(sum_t u_t (1/nb_t + 1/nh_t), mu (1 - mu) sum_t (1/nb_t +
 *       1/nh_t)), u_t the unbiased x (n - x) / (n (n - 1)) and mu the
 *       pooled pass rate of every run, taken at the end of its 80% Wilson
 *       interval nearest 1/2: the tests' smoothing floors (a test that
 *       passed 4 of 4 reads 1/6) together never exceed the variance the
 *       suite would have if each of its tests had the pooled rate, which
 *       bounds the true one from above (p (1 - p) is concave), and never
 *       go below the unbiased sum.
 *   SC_STATS_CLUSTER  the tests are a sample of possible tests (Miller,
 *       "Adding Error Bars to Evals"): se^2 = max(s^2, v0) / T with s^2
 *       the sample variance of d_t and v0 the mean of the v_t (a floor so
 *       a handful of identical outcomes does not read as certainty); t
 *       with T - 1 degrees of freedom (at least 1).
 *
 * Results:
 *   p_drop      P-value of "the drop is no more than margin" (one-sided,
 *               H0: mean >= -margin): small shows a regression beyond it
 *   p_within    P-value of "the drop is margin or more" (H0: mean <= -margin):
 *               small rules a regression out
 *   lo, hi      the one-sided (1 - alpha) bounds of the mean difference
 *               (together the two-sided 1 - 2 alpha interval), cut to
 *               [-1, 1], where a difference of pass rates lies
 *   detectable  the smallest drop the design catches with 80% power at
 *               alpha: margin + (q(1-alpha) + q(0.8)) * se
 *
 * All in pass-rate units (0.05 = 5 points). Returns false, with every
 * double NAN, when no test is judged at both sides.
 */
enum sc_stats_method { SC_STATS_STRATIFIED, SC_STATS_CLUSTER };

/*
 * The Bernoulli variance p (1 - p) of a test from passes of n runs
 * pooled over both sides, never below the truth on average: the larger
 * of the unbiased x (n - x) / (n (n - 1)) and the smoothed q (1 - q),
 * q = (x + 1) / (n + 2), which keeps 0 of n and n of n from reading as
 * certain (the smoothed value alone is anti-conservative: 0.875 of
 * p (1 - p) at p = 1/2 with one run a side; docs/evaluation.md). NAN
 * for n = 0; the smoothed value for n = 1.
 */
double sc_stats_pooled_variance(unsigned long passes, unsigned long n);

struct sc_stats_paired {
	size_t tests;
	double mean, se, df;
	double lo, hi;
	double p_drop, p_within;
	double detectable;
};

bool sc_stats_paired_margin(struct sc_stats_paired *out, const unsigned long *base_pass,
			    const unsigned long *base_n, const unsigned long *head_pass,
			    const unsigned long *head_n, size_t ntests, double margin, double alpha,
			    enum sc_stats_method method);

/*
 * One test's replicates of a measured value at one side: count, sum and
 * sum of squares.
 */
struct sc_stats_sample {
	unsigned long n;
	double sum, sumsq;
};

/* Adds x to s. */
void sc_stats_sample_add(struct sc_stats_sample *s, double x);

/*
 * The paired per-test comparison of a measured value (log tokens, log
 * speedup, a judge score) against a margin, as sc_stats_paired_margin is
 * for pass rates: per test t judged at both sides, d_t = mean_h - mean_b;
 * the estimate is the mean of d_t over the T tests, and "drop" means the
 * head lower (callers negate a value whose rise is the regression). The
 * standard error:
 *
 *   every test with 2 or more replicates at both sides: stratified by
 *       test, the replicates' pooled within-test variance s_w^2 (df the
 *       sum of n - 1 over both sides and all tests): se^2 = s_w^2
 *       sum_t (1/nb_t + 1/nh_t) / T^2, t quantiles on that df;
 *   else, T >= 2: the tests as a sample (a paired t test): se^2 = s^2 / T
 *       from the sample variance s^2 of d_t, df T - 1; conservative for a
 *       fixed suite, as the spread of the true per-test changes counts as
 *       noise;
 *   else (one test, one replicate a side): no estimate: se, the p-values
 *       and the bounds are NAN (nothing can be shown or ruled out).
 *
 * A zero se (every replicate equal) decides by the estimate alone: p_drop
 * 0 when the mean is below -margin, else 1; p_within the other way. Same
 * fields and meaning as sc_stats_paired_margin (lo, hi at alpha; use
 * sc_stats_paired_bounds for a decision's levels). Returns false, every
 * double NAN, when no test has a value at both sides.
 */
bool sc_stats_paired_values(struct sc_stats_paired *out, const struct sc_stats_sample *base,
			    const struct sc_stats_sample *head, size_t ntests, double margin,
			    double alpha);

/*
 * Sets st's bounds at the levels a decision uses instead of alpha: lo the
 * one-sided (1 - lo_level) lower bound, hi the (1 - hi_level) upper bound
 * (with st's quantiles, cut to [-1, 1]; a level <= 0 leaves that end at -1
 * or 1). With the levels the decision compares p_within and p_drop to, a
 * drop beyond the margin is ruled out exactly when lo > -margin and shown
 * exactly when hi < -margin, so the interval a report prints says what
 * the verdict says. No-op for st without tests.
 */
void sc_stats_paired_bounds(struct sc_stats_paired *st, double lo_level, double hi_level);

/*
 * The standard normal distribution: P(Z <= x), and the x with
 * sc_stats_normal_cdf(x) = p for 0 < p < 1 (NAN otherwise).
 */
double sc_stats_normal_cdf(double x);
double sc_stats_normal_quantile(double p);

/*
 * A truncated sequential probability ratio test between a drop of m and
 * of D (pipeline/sequential.h), on the normal approximation: the score
 * of the drop measured from m is a Brownian motion in information,
 * counted in units of what a fixed design with errors alpha and beta
 * needs, its drift 0 under "a drop of m" and z = z(1 - alpha) + z(1 -
 * beta) under "a drop of D". Looks at t = k / steps (k = 1, 2, ...);
 * with L the log likelihood ratio, a look fails the check at L >= a,
 * passes it at L <= -b; the last, at t = imax, fails at L >= 0, else
 * passes.
 *
 * sc_stats_sprt_errors: the design's two errors, the chance it fails
 * under drift 0 and passes under drift z, by recursive numerical
 * integration of the density of the paths still open (Armitage,
 * McPherson and Rowe), on a grid of SPRT_GRID points.
 *
 * sc_stats_sprt_calibrate: the a and b whose errors are alpha and beta
 * (Wald's log((1 - beta) / alpha) and log((1 - alpha) / beta) hold them
 * only for a path seen at every instant and never truncated). false when
 * no a and b do (the truncation at imax alone spends more than alpha):
 * raise imax. Takes some tens of milliseconds.
 */
void sc_stats_sprt_errors(double *alpha_out, double *beta_out, double a, double b, double alpha,
			  double beta, double imax, int steps);
bool sc_stats_sprt_calibrate(double *a, double *b, double alpha, double beta, double imax,
			     int steps);

#endif
