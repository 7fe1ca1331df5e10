/* Unit tests for runner/core/stats.c. Expected values were worked out by hand
 * (exact fractions for the binomial sums, the Wilson formula written out
 * in docs/evaluation.md) and are written here as literals. */
#include "unit.h"
#include "stats.h"

#include <math.h>

#define assert_close(a, b, tol) \
	do { \
		double a_ = (a), b_ = (b); \
		if (!(fabs(a_ - b_) <= (tol))) \
			fail_msg("%.17g != %.17g (tol %g)", a_, b_, (double)(tol)); \
	} while (0)
#define assert_rel(a, b, rel) assert_close((a), (b), fabs(b) * (rel))

static void test_wilson_known_values(void **state)
{
	double lo, hi;
	(void)state;

	/* 7/10: p = .7, z^2 = 3.8415, center = .644492, half = .247717 */
	assert_true(sc_stats_wilson(&lo, &hi, 7, 10, SC_STATS_Z95));
	assert_close(lo, 0.39677814746114537, 1e-12);
	assert_close(hi, 0.8922087325936989, 1e-12);
	assert_true(sc_stats_wilson(&lo, &hi, 1, 3, SC_STATS_Z95));
	assert_close(lo, 0.06149194472039621, 1e-12);
	assert_close(hi, 0.7923403991979522, 1e-12);
	assert_true(sc_stats_wilson(&lo, &hi, 6, 10, SC_STATS_Z95));
	assert_close(lo, 0.31267376973365824, 1e-12);
	assert_close(hi, 0.8318196702937638, 1e-12);
}

static void test_wilson_edges(void **state)
{
	double lo, hi;
	(void)state;

	assert_true(sc_stats_wilson(&lo, &hi, 0, 10, SC_STATS_Z95));
	assert_true(lo == 0.0);
	assert_close(hi, 0.2775327998628892, 1e-12);
	assert_true(sc_stats_wilson(&lo, &hi, 10, 10, SC_STATS_Z95));
	assert_close(lo, 0.7224672001371107, 1e-12);
	assert_true(hi == 1.0);
	assert_false(sc_stats_wilson(&lo, &hi, 0, 0, SC_STATS_Z95));
	assert_true(isnan(lo) && isnan(hi));
}

static void test_mcnemar_small_exact(void **state)
{
	(void)state;
	/* b=1, c=9: 2 * (C(10,0) + C(10,1)) / 2^10 = 22/1024 */
	assert_close(sc_stats_mcnemar_p(1, 9), 22.0 / 1024.0, 1e-15);
	assert_close(sc_stats_mcnemar_p(9, 1), 22.0 / 1024.0, 1e-15);
	/* 0 of 5 discordant the other way: 2/32 */
	assert_close(sc_stats_mcnemar_p(0, 5), 0.0625, 1e-15);
	assert_close(sc_stats_mcnemar_p(0, 6), 0.03125, 1e-15);
	/* 3 vs 1: 2 * (1 + 4) / 16 */
	assert_close(sc_stats_mcnemar_p(3, 1), 0.625, 1e-15);
	/* a one-sided discordance is an exact power of two: 2 * 2^-14 */
	assert_true(sc_stats_mcnemar_p(0, 14) == 0.0001220703125);
	/* ties and no discordant pairs are not evidence of anything */
	assert_close(sc_stats_mcnemar_p(2, 2), 1.0, 0);
	assert_close(sc_stats_mcnemar_p(0, 0), 1.0, 0);
	assert_close(sc_stats_mcnemar_p(0, 1), 1.0, 0);
	assert_true(sc_stats_mcnemar_p(0, 6) < 0.05);
	assert_false(sc_stats_mcnemar_p(0, 5) < 0.05);
}

static void test_sign_test_large_n_in_log_space(void **state)
{
	(void)state;
	/* Exact sums of big binomial coefficients (computed with integer
	 * arithmetic): a naive product of C(n,i) * 0.5^n overflows here. */
	assert_rel(sc_stats_mcnemar_p(480, 520), 0.21744829320414094, 1e-9);
	assert_rel(sc_stats_mcnemar_p(900, 1100), 8.457089535503927e-06, 1e-8);
	assert_rel(sc_stats_sign_test_p(1100, 2000), 8.457089535503927e-06, 1e-8);
	/* symmetric in k and n-k */
	assert_close(sc_stats_sign_test_p(3, 10), sc_stats_sign_test_p(7, 10), 1e-15);
}

static void test_log_choose(void **state)
{
	(void)state;
	assert_close(sc_stats_log_choose(10, 3), log(120.0), 1e-12);
	assert_close(sc_stats_log_choose(5, 0), 0.0, 0);
	assert_true(isinf(sc_stats_log_choose(3, 4)));
}

static void test_geomean_and_mean(void **state)
{
	const double x[] = { 2.0, 8.0, 0.5 };
	const double y[] = { 4.0, NAN, -1.0, 0.0, 1.0 };
	(void)state;

	assert_close(sc_stats_geomean(x, 3), 2.0, 1e-12);  /* cbrt(8) */
	assert_close(sc_stats_geomean(y, 5), 2.0, 1e-12);  /* only 4 and 1 count */
	assert_true(isnan(sc_stats_geomean(y + 1, 3)));
	assert_true(isnan(sc_stats_geomean(x, 0)));
	assert_close(sc_stats_mean(y, 5), 1.0, 1e-12);     /* (4 - 1 + 0 + 1) / 4 */
	assert_true(isnan(sc_stats_mean(y + 1, 1)));
}

static void test_fast_p(void **state)
{
	const bool ok[] = { true, true, true, false, true };
	const double sp[] = { 0.9, 1.2, 2.5, 3.0, NAN };
	(void)state;

	assert_close(sc_stats_fast_p(ok, sp, 5, 1.0), 2.0 / 5.0, 1e-15);
	assert_close(sc_stats_fast_p(ok, sp, 5, 1.5), 1.0 / 5.0, 1e-15);
	assert_close(sc_stats_fast_p(ok, sp, 5, 2.5), 0.0, 0);  /* strictly faster */
	assert_close(sc_stats_fast_p(ok, sp, 5, 0.0), 3.0 / 5.0, 1e-15);
	assert_true(isnan(sc_stats_fast_p(ok, sp, 0, 1.0)));
}

static void test_upskill_lift_savings_benefit(void **state)
{
	(void)state;
	assert_close(sc_stats_skill_lift(0.8, 0.5), 0.3, 1e-15);
	assert_close(sc_stats_token_savings(750.0, 1000.0), 0.25, 1e-15);
	assert_close(sc_stats_token_savings(1200.0, 1000.0), -0.2, 1e-15);
	assert_close(sc_stats_token_savings(10.0, 0.0), 0.0, 0);
	/* beneficial: clear lift; or no loss and > 20% fewer tokens */
	assert_true(sc_stats_is_beneficial(0.1, -0.5));
	assert_false(sc_stats_is_beneficial(0.05, 0.0));
	assert_true(sc_stats_is_beneficial(0.0, 0.25));
	assert_false(sc_stats_is_beneficial(0.0, 0.2));
	assert_false(sc_stats_is_beneficial(-0.1, 0.9));
}

static void test_t_distribution_closed_forms(void **state)
{
	(void)state;
	/* df = 1 is Cauchy: F(t) = 1/2 + atan(t)/pi */
	assert_close(sc_stats_t_cdf(1.0, 1), 0.75, 1e-12);
	assert_close(sc_stats_t_cdf(-1.0, 1), 0.25, 1e-12);
	assert_close(sc_stats_t_cdf(0.0, 7), 0.5, 1e-15);
	/* df = 2: F(t) = 1/2 + t / (2 sqrt(2 + t^2)) */
	assert_close(sc_stats_t_cdf(1.0, 2), 0.7886751345948129, 1e-12);
	/* its quantile: t = a sqrt(2 / (1 - a^2)), a = 2p - 1 */
	assert_close(sc_stats_t_quantile(0.95, 2), 2.9199855803537265, 1e-9);
	assert_close(sc_stats_t_quantile(0.8, 2), 1.0606601717798212, 1e-9);
	assert_close(sc_stats_t_quantile(0.75, 1), 1.0, 1e-9);
	/* huge df is the normal: z(0.975) */
	assert_close(sc_stats_t_quantile(0.975, 1e9), SC_STATS_Z95, 1e-9);
	assert_true(isnan(sc_stats_t_cdf(1.0, 0)));
	assert_true(isnan(sc_stats_t_quantile(1.0, 3)));
	assert_true(isnan(sc_stats_t_quantile(0.0, 3)));
}

static void test_holm(void **state)
{
	/* sorted .01 .03 .04 .5: 4(.01) = .04, 3(.03) = .09, max(.09, 2(.04)) = .09, .5 */
	const double p[] = { 0.01, 0.04, 0.03, 0.5, NAN };
	double adj[5];
	(void)state;

	sc_stats_holm(p, 4, adj);
	assert_close(adj[0], 0.04, 1e-15);
	assert_close(adj[1], 0.09, 1e-15);
	assert_close(adj[2], 0.09, 1e-15);
	assert_close(adj[3], 0.5, 1e-15);
	/* a NaN stays NaN and is not counted: the same family of four */
	sc_stats_holm(p, 5, adj);
	assert_close(adj[0], 0.04, 1e-15);
	assert_true(isnan(adj[4]));
	/* capped at 1, and in place */
	{
		double q[] = { 0.6, 0.7 };
		sc_stats_holm(q, 2, q);
		assert_close(q[0], 1.0, 0);
		assert_close(q[1], 1.0, 0);
	}
}

/*
 * The paired margin analysis by hand. Tests 1-3 of 4 are judged at both
 * sides (test 4 has no base run): d = -1, 0, 0, mean -1/3. Pooled over
 * both sides test 1 passed 1 of 2: variance max(1 x 1 / (2 x 1), 2 x 2 /
 * 16) = 0.5 (the unbiased value wins), v = 0.5 (1 + 1) = 1; tests 2 and 3
 * passed 2 of 2: max(0, 3 x 1 / 16) = 0.1875 (the smoothing wins), v =
 * 0.375; sum 1.75. The cap: 5 passes of 6 runs, the 80% Wilson interval's
 * lower end (z = 1.281552) .5746714, .5746714 x .4253286 x (2 + 2 + 2) =
 * 1.466545, above the unbiased sum 1 and below 1.75, so the sum is
 * 1.466545. Stratified: se = sqrt(1.466545) / 3 = .4036700, statistic
 * (-1/3 + 0.05) / se = -.701888: p_drop = PHI(-.701888) = .241373
 * (scipy); bounds -1/3 -/+ 1.644854 se, (lower -.997311); detectable
 * 0.05 + (1.644854 + 0.841621) se = 1.053715.
 *
 * Cluster: s^2 = 1/3 is below the floor mean(v_t) = .488848, so se is the
 * same, df = 2, and the df = 2 closed form F(t) = 1/2 + t / (2 sqrt(2 +
 * t^2)) gives p_drop = .277715; hi = -1/3 + 2.919986 se.
 */
static void test_paired_margin_by_hand(void **state)
{
	const unsigned long bp[] = { 1, 1, 1, 0 }, bn[] = { 1, 1, 1, 0 };
	const unsigned long hp[] = { 0, 1, 1, 1 }, hn[] = { 1, 1, 1, 1 };
	struct sc_stats_paired st;
	(void)state;

	assert_true(sc_stats_paired_margin(&st, bp, bn, hp, hn, 4, 0.05, 0.05, SC_STATS_STRATIFIED));
	assert_int_equal(st.tests, 3);
	assert_close(st.mean, -1.0 / 3.0, 1e-15);
	assert_close(st.se, 0.4036699844789248, 1e-12);
	assert_true(isinf(st.df));
	assert_close(st.p_drop, 0.24137279521700827, 1e-9);
	assert_close(st.p_within, 1 - 0.24137279521700827, 1e-9);
	assert_close(st.lo, -0.9973113713949373, 1e-8);
	assert_close(st.hi, 0.3306447047282704, 1e-8);
	assert_close(st.detectable, 1.0537152683551156, 1e-8);

	assert_true(sc_stats_paired_margin(&st, bp, bn, hp, hn, 4, 0.05, 0.05, SC_STATS_CLUSTER));
	assert_close(st.se, 0.4036699844789248, 1e-12);
	assert_close(st.df, 2, 0);
	assert_close(st.p_drop, 0.277714989816229, 1e-9);
	assert_close(st.lo, -1.0, 0);
	assert_close(st.hi, 0.8453772005674622, 1e-8);

	/* four tests, two runs; d = -1, 0, 0, 0: s^2 = .25 beats the floor
	 * mean(v_t) = (1/3 + 3 x 5/36) / 4 = .1875, so se = sqrt(.25 / 4) */
	{
		const unsigned long b2[] = { 2, 2, 2, 2 }, h2[] = { 0, 2, 2, 2 };
		const unsigned long n2[] = { 2, 2, 2, 2 };
		assert_true(sc_stats_paired_margin(&st, b2, n2, h2, n2, 4, 0.05, 0.05,
						   SC_STATS_CLUSTER));
		assert_close(st.mean, -0.25, 1e-15);
		assert_close(st.se, 0.25, 1e-15);
		assert_close(st.df, 3, 0);
		/* stratified: sqrt(1/3 + 3 x 5/36) / 4 */
		assert_true(sc_stats_paired_margin(&st, b2, n2, h2, n2, 4, 0.05, 0.05,
						   SC_STATS_STRATIFIED));
		assert_close(st.se, sqrt(1.0 / 3 + 3 * 5.0 / 36.0) / 4, 1e-15);
	}
	/* nothing paired: false, NANs */
	assert_false(sc_stats_paired_margin(&st, bp, bn, hp, bn + 3, 1, 0.05, 0.05,
					    SC_STATS_STRATIFIED));
	assert_true(isnan(st.mean) && isnan(st.p_drop));
}

/*
 * The pooled Bernoulli variance by hand, and never below the truth on
 * average: with one run a side at p = 1/2 (2 runs pooled) the cases 0, 1
 * and 2 passes come with chances 1/4, 1/2, 1/4 and give 3/16, 1/2 and
 * 3/16: the mean 11/32 = .34375 is above p (1 - p) = .25, where the
 * smoothed value alone gave 7/32 = .21875 (0.875 of it).
 */
static void test_pooled_variance(void **state)
{
	(void)state;
	assert_true(isnan(sc_stats_pooled_variance(0, 0)));
	assert_close(sc_stats_pooled_variance(1, 1), 2.0 / 9.0, 1e-15);
	assert_close(sc_stats_pooled_variance(0, 1), 2.0 / 9.0, 1e-15);
	assert_close(sc_stats_pooled_variance(1, 2), 0.5, 1e-15);
	assert_close(sc_stats_pooled_variance(2, 2), 3.0 / 16.0, 1e-15);
	assert_close(sc_stats_pooled_variance(5, 10), 25.0 / 90.0, 1e-15);
	assert_close(sc_stats_pooled_variance(10, 10), 11.0 / 144.0, 1e-15);
	assert_close(0.25 * sc_stats_pooled_variance(0, 2) + 0.5 * sc_stats_pooled_variance(1, 2) +
		     0.25 * sc_stats_pooled_variance(2, 2), 11.0 / 32.0, 1e-15);
	/* at p = 1/2 and every n up to 40 pooled runs the mean is at least p (1 - p) */
	for (unsigned long n = 2; n <= 40; n++) {
		double mean = 0;
		for (unsigned long x = 0; x <= n; x++)
			mean += exp(sc_stats_log_choose(n, x) - (double)n * log(2.0)) *
				sc_stats_pooled_variance(x, n);
		assert_true(mean >= 0.25 - 1e-12);
	}
}

/*
 * The cap of the tests' variances, on random suites (up to 30 tests, 1 to
 * 12 runs a side, rates anywhere): the stratified se^2 T^2 is never above
 * the sum of the tests' own floors (sc_stats_pooled_variance x (1/nb +
 * 1/nh)), never below the sum of their unbiased estimates, and never
 * above mu (1 - mu) sum (1/nb + 1/nh) at the 80% Wilson interval's end
 * nearest 1/2 unless that unbiased sum is.
 */
static void test_paired_margin_cap(void **state)
{
	unsigned long seed = 7;
	(void)state;

	for (int round = 0; round < 2000; round++) {
		unsigned long bp[30], bn[30], hp[30], hn[30], passes = 0, units = 0;
		double floors = 0, unbiased = 0, wsum = 0, lo, hi, mu, v;
		size_t t;
		struct sc_stats_paired st;
		seed = seed * 6364136223846793005UL + 1442695040888963407UL;
		t = 1 + (size_t)(seed >> 33) % 30;
		for (size_t i = 0; i < t; i++) {
			double x, n, w;
			seed = seed * 6364136223846793005UL + 1442695040888963407UL;
			bn[i] = 1 + (seed >> 33) % 12;
			hn[i] = 1 + (seed >> 40) % 12;
			/* most tests near-deterministic, some anywhere */
			bp[i] = (seed >> 20) % 4 ? bn[i] : (seed >> 45) % (bn[i] + 1);
			hp[i] = (seed >> 22) % 4 ? hn[i] : (seed >> 50) % (hn[i] + 1);
			x = (double)(bp[i] + hp[i]);
			n = (double)(bn[i] + hn[i]);
			w = 1.0 / (double)bn[i] + 1.0 / (double)hn[i];
			floors += sc_stats_pooled_variance(bp[i] + hp[i], bn[i] + hn[i]) * w;
			unbiased += x * (n - x) / (n * (n - 1)) * w;
			wsum += w;
			passes += bp[i] + hp[i];
			units += bn[i] + hn[i];
		}
		assert_true(sc_stats_paired_margin(&st, bp, bn, hp, hn, t, 0, 0.05,
						   SC_STATS_STRATIFIED));
		v = st.se * st.se * (double)(t * t);
		sc_stats_wilson(&lo, &hi, passes, units, SC_STATS_Z80);
		mu = 2 * passes > units ? fmax(lo, 0.5) : fmin(hi, 0.5);
		assert_true(v <= floors * (1 + 1e-12));
		assert_true(v >= unbiased * (1 - 1e-12));
		assert_true(v <= fmax(unbiased, mu * (1 - mu) * wsum) * (1 + 1e-12));
	}
}

/*
 * The paired comparison of measured values, by hand (and scipy):
 *
 * Stratified: test 1 base {1, 3}, head {2, 4}; test 2 base {5, 7}, head
 * {5, 9}: d = 1, 1, mean 1; within-test sums of squares 2 + 2 + 2 + 8 =
 * 14 on 4 df, s_w^2 = 3.5; se = sqrt(3.5 x (1/2 + 1/2) x 2) / 2 =
 * sqrt(7) / 2 = 1.3228756555; margin .5: p_drop = T4((1 + .5) / se) =
 * scipy.stats.t.cdf(1.1339, 4) = .839906014; lo = 1 - 2.1318467863 se.
 *
 * Paired t (one replicate a side): d = 1, 2, 4 (base 0, head d), mean
 * 7/3, s^2 = 7/3, se = .8819171037, df 2; margin -3 makes p_drop the
 * one-sample t test of "mean >= 3": scipy.stats.ttest_1samp(d, 3,
 * alternative='less').pvalue = .2642977396.
 *
 * One test, one replicate: no estimate. Equal replicates: se 0, decided by
 * the mean alone.
 */
static void test_paired_values_by_hand(void **state)
{
	struct sc_stats_sample b[3], h[3];
	struct sc_stats_paired st;
	(void)state;

	memset(b, 0, sizeof(b));
	memset(h, 0, sizeof(h));
	sc_stats_sample_add(&b[0], 1), sc_stats_sample_add(&b[0], 3);
	sc_stats_sample_add(&h[0], 2), sc_stats_sample_add(&h[0], 4);
	sc_stats_sample_add(&b[1], 5), sc_stats_sample_add(&b[1], 7);
	sc_stats_sample_add(&h[1], 5), sc_stats_sample_add(&h[1], 9);
	assert_true(sc_stats_paired_values(&st, b, h, 3, 0.5, 0.05));
	assert_int_equal(st.tests, 2);
	assert_close(st.mean, 1.0, 1e-15);
	assert_close(st.se, 1.3228756555322954, 1e-14);
	assert_close(st.df, 4, 0);
	assert_close(st.p_drop, 0.839906014293509, 1e-9);
	assert_close(st.p_within, 1 - 0.839906014293509, 1e-9);
	assert_close(st.lo, 1 - 2.1318467863266495 * st.se, 1e-8);

	memset(b, 0, sizeof(b));
	memset(h, 0, sizeof(h));
	for (int t = 0; t < 3; t++) {
		sc_stats_sample_add(&b[t], 0);
		sc_stats_sample_add(&h[t], (double[]){ 1, 2, 4 }[t]);
	}
	assert_true(sc_stats_paired_values(&st, b, h, 3, -3.0, 0.05));
	assert_close(st.mean, 7.0 / 3.0, 1e-15);
	assert_close(st.se, 0.8819171036881969, 1e-14);
	assert_close(st.df, 2, 0);
	assert_close(st.p_drop, 0.26429773960448416, 1e-9);

	/* one test, one replicate a side: nothing can be decided */
	assert_true(sc_stats_paired_values(&st, b, h, 1, 0.5, 0.05));
	assert_int_equal(st.tests, 1);
	assert_true(isnan(st.se) && isnan(st.p_drop) && isnan(st.p_within) && isnan(st.lo));

	/* equal replicates: se 0, the mean decides */
	memset(b, 0, sizeof(b));
	memset(h, 0, sizeof(h));
	for (int k = 0; k < 2; k++) {
		sc_stats_sample_add(&b[0], 10);
		sc_stats_sample_add(&h[0], 8);
	}
	assert_true(sc_stats_paired_values(&st, b, h, 1, 1.0, 0.05));
	assert_close(st.se, 0, 0);
	assert_close(st.p_drop, 0, 0);     /* -2 is below -1 */
	assert_close(st.p_within, 1, 0);
	assert_true(sc_stats_paired_values(&st, b, h, 1, 3.0, 0.05));
	assert_close(st.p_drop, 1, 0);
	assert_close(st.p_within, 0, 0);   /* -2 is above -3 */

	/* nothing paired */
	assert_false(sc_stats_paired_values(&st, b + 1, h, 1, 1.0, 0.05));
	assert_true(isnan(st.mean));
}

/*
 * Holm's levels by hand, alpha .05 over p = .01, .04, .03, .005, NaN (4
 * count): sorted .005 (step 1: .05/4 = .0125, rejected), .01 (.05/3 =
 * .016667, rejected), .03 (.05/2 = .025: not rejected, the step-down
 * stops), .04 (keeps .025). Each p is rejected exactly when its adjusted
 * value is below .05.
 */
static void test_holm_levels_by_hand(void **state)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005, NAN };
	double lv[5], adj[5];
	(void)state;

	sc_stats_holm_levels(p, 5, 0.05, lv);
	assert_close(lv[0], 0.05 / 3, 1e-15);
	assert_close(lv[1], 0.025, 1e-15);
	assert_close(lv[2], 0.025, 1e-15);
	assert_close(lv[3], 0.0125, 1e-15);
	assert_true(isnan(lv[4]));
	sc_stats_holm(p, 5, adj);
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(p[i] < lv[i], adj[i] < 0.05);
	/* random families: the same equivalence */
	{
		uint64_t x = 0x9e3779b97f4a7c15ull;
		double q[7], l[7], a[7];
		for (int rep = 0; rep < 2000; rep++) {
			size_t n = 1 + (size_t)(rep % 7);
			for (size_t i = 0; i < n; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				q[i] = (double)(x % 100000) / 1e6;  /* 0 .. 0.1 */
			}
			sc_stats_holm_levels(q, n, 0.05, l);
			sc_stats_holm(q, n, a);
			for (size_t i = 0; i < n; i++)
				assert_int_equal(q[i] < l[i], a[i] < 0.05);
		}
	}
}

/*
 * The bounds at a decision's own levels, by hand: tests 3/4 -> 2/4 and
 * 1/4 -> 1/4: d = -1/4, 0, mean -1/8; pooled 5 of 8 and 2 of 8, variances
 * (unbiased) 15/56 and 12/56; v = half of each; se = sqrt(27/112) / 2 =
 * .2454951265. At levels .05 (lower) and .01 (upper): lo = -1/8 -
 * 1.644853627 se = -.5288035492, hi = -1/8 + 2.326347874 se =
 * .4461070657. A level of 0 leaves that end at -1 or 1; p-values and the
 * estimate do not move.
 */
static void test_paired_bounds_by_hand(void **state)
{
	const unsigned long bp[] = { 3, 1 }, hp[] = { 2, 1 }, n[] = { 4, 4 };
	struct sc_stats_paired st, none;
	double p_drop;
	(void)state;

	assert_true(sc_stats_paired_margin(&st, bp, n, hp, n, 2, 0.05, 0.05, SC_STATS_STRATIFIED));
	assert_close(st.se, 0.2454951265154914, 1e-14);
	p_drop = st.p_drop;
	sc_stats_paired_bounds(&st, 0.05, 0.01);
	assert_close(st.lo, -0.5288035492479166, 1e-8);
	assert_close(st.hi, 0.44610706565670066, 1e-8);
	assert_close(st.mean, -0.125, 1e-15);
	assert_close(st.p_drop, p_drop, 0);
	sc_stats_paired_bounds(&st, 0, 0.01);
	assert_close(st.lo, -1.0, 0);
	assert_close(st.hi, 0.44610706565670066, 1e-8);
	sc_stats_paired_bounds(&st, 0.05, 0);
	assert_close(st.hi, 1.0, 0);
	/* at alpha at both ends: the interval sc_stats_paired_margin gave */
	sc_stats_paired_bounds(&st, 0.05, 0.05);
	assert_close(st.hi, -0.125 + 1.6448536269514722 * st.se, 1e-8);
	/* nothing paired: untouched NANs */
	assert_false(sc_stats_paired_margin(&none, bp, n, hp, n, 0, 0.05, 0.05, SC_STATS_STRATIFIED));
	sc_stats_paired_bounds(&none, 0.05, 0.05);
	assert_true(isnan(none.lo) && isnan(none.hi));
}

/*
 * Against scipy (tests/install-deps.sh installs it): the t distribution,
 * the normal (df = INFINITY), and the cluster analysis as a one-sample t test of the per-test
 * differences against -margin (scipy.stats.ttest_1samp), on a case whose
 * sample variance is above the floor. Skipped with the reason when
 * python3 or scipy is missing.
 */
static void test_against_scipy(void **state)
{
	static const unsigned long bp[12] = { 4, 4, 3, 4, 2, 4, 1, 4, 3, 4, 4, 0 };
	static const unsigned long hp[12] = { 4, 0, 3, 1, 2, 4, 0, 4, 4, 1, 4, 0 };
	static const unsigned long n[12] = { 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4 };
	static const double ts[] = { -3.5, -1.2, 0.3, 2.2, 5.0 };
	static const double dfs[] = { 1, 2.5, 4, 11, 30, 200, INFINITY };
	static const double ps[] = { 0.01, 0.2, 0.8, 0.95, 0.999 };
	const char *script =
		"python3 -c '\n"
		"import sys\n"
		"try:\n"
		"    from scipy import stats\n"
		"except ImportError:\n"
		"    print(\"missing\"); sys.exit(0)\n"
		"for df in (1, 2.5, 4, 11, 30, 200, float(\"inf\")):\n"
		"    for t in (-3.5, -1.2, 0.3, 2.2, 5.0): print(repr(float(stats.t.cdf(t, df))))\n"
		"    for p in (0.01, 0.2, 0.8, 0.95, 0.999): print(repr(float(stats.t.ppf(p, df))))\n"
		"bp = (4, 4, 3, 4, 2, 4, 1, 4, 3, 4, 4, 0)\n"
		"hp = (4, 0, 3, 1, 2, 4, 0, 4, 4, 1, 4, 0)\n"
		"d = [(h - b) / 4 for b, h in zip(bp, hp)]\n"
		"print(repr(float(stats.ttest_1samp(d, -0.05, alternative=\"less\").pvalue)))\n"
		"print(repr(float(stats.ttest_1samp(d, -0.05, alternative=\"greater\").pvalue)))\n"
		"' 2>/dev/null";
	FILE *f = popen(script, "r");
	char line[128];
	struct sc_stats_paired st;
	(void)state;

	if (!f || !fgets(line, sizeof(line), f) || !strncmp(line, "missing", 7)) {
		if (f)
			pclose(f);
		print_message("skipped: python3 with scipy not found (tests/install-deps.sh "
			      "installs it)\n");
		skip();
	}
	for (size_t i = 0; i < SC_ARRAY_SIZE(dfs); i++) {
		for (size_t j = 0; j < SC_ARRAY_SIZE(ts); j++) {
			if (i || j)
				assert_non_null(fgets(line, sizeof(line), f));
			assert_rel(sc_stats_t_cdf(ts[j], dfs[i]), strtod(line, NULL), 1e-9);
		}
		for (size_t j = 0; j < SC_ARRAY_SIZE(ps); j++) {
			assert_non_null(fgets(line, sizeof(line), f));
			assert_rel(sc_stats_t_quantile(ps[j], dfs[i]), strtod(line, NULL), 1e-9);
		}
	}
	assert_true(sc_stats_paired_margin(&st, bp, n, hp, n, 12, 0.05, 0.05, SC_STATS_CLUSTER));
	assert_non_null(fgets(line, sizeof(line), f));
	assert_rel(st.p_drop, strtod(line, NULL), 1e-9);
	assert_non_null(fgets(line, sizeof(line), f));
	assert_rel(st.p_within, strtod(line, NULL), 1e-9);
	pclose(f);
}


/*
 * The truncated SPRT's errors by hand: with boundaries no path reaches
 * (a = b = 40) every path goes to the last look, t = imax, and fails
 * when W >= z imax / 2, W ~ N(drift imax, imax): alpha = 1 - PHI(z
 * sqrt(imax) / 2) under drift 0, beta = PHI(-z sqrt(imax) / 2) under
 * drift z. For alpha 0.05 and beta 0.2 (z = 2.486475) and imax 1: 1 -
 * PHI(1.243238) = .106897 both.
 */
static void test_sprt_by_hand(void **state)
{
	double ea, eb, a, b;
	(void)state;

	sc_stats_sprt_errors(&ea, &eb, 40, 40, 0.05, 0.2, 1.0, 10);
	assert_close(ea, 0.10689682, 2e-4);
	assert_close(eb, 0.10689682, 2e-4);
	sc_stats_sprt_errors(&ea, &eb, 40, 40, 0.05, 0.2, 2.0, 10);
	assert_close(ea, 1 - sc_stats_normal_cdf(2.4864748605243865 * sqrt(2.0) / 2), 2e-4);
	/* calibrated: both errors hit, Wald's boundaries move in */
	assert_true(sc_stats_sprt_calibrate(&a, &b, 0.04, 0.2, 2.0, 10));
	sc_stats_sprt_errors(&ea, &eb, a, b, 0.04, 0.2, 2.0, 10);
	assert_close(ea, 0.04, 4e-4);
	assert_close(eb, 0.2, 2e-3);
	assert_true(a < log(0.8 / 0.04) && b < log(0.96 / 0.2));
	/* a truncation that alone spends more than alpha cannot be held */
	assert_false(sc_stats_sprt_calibrate(&a, &b, 0.0004, 0.2, 1.0, 10));
	assert_false(sc_stats_sprt_calibrate(&a, &b, 0.7, 0.2, 2.0, 10));
}

/*
 * The calibrated design against an independent simulation (numpy, 400,000
 * paths per hypothesis, a fixed seed): the chance of failing under no drop
 * and of passing under a drop of D, within four standard errors of the
 * simulation. Skipped with the reason when python3 or numpy is missing.
 */
static void test_sprt_against_simulation(void **state)
{
	double a, b, ea, eb;
	char cmd[2048], line[128];
	FILE *f;
	(void)state;

	assert_true(sc_stats_sprt_calibrate(&a, &b, 0.008, 0.2, 2.0, 10));
	sc_stats_sprt_errors(&ea, &eb, a, b, 0.008, 0.2, 2.0, 10);
	snprintf(cmd, sizeof(cmd),
		 "python3 -c '\n"
		 "import sys\n"
		 "try:\n"
		 "    import numpy as np\n"
		 "    from scipy.stats import norm\n"
		 "except ImportError:\n"
		 "    print(\"missing\"); sys.exit(0)\n"
		 "a, b = %.17g, %.17g\n"
		 "z = norm.ppf(1 - 0.008) + norm.ppf(0.8)\n"
		 "rng = np.random.default_rng(20261203)\n"
		 "for drift in (0.0, z):\n"
		 "    N = 400000; W = np.zeros(N); done = np.zeros(N, bool); red = np.zeros(N, bool)\n"
		 "    for k in range(1, 21):\n"
		 "        t = k / 10; W += drift * 0.1 + rng.normal(0, 0.1 ** 0.5, N)\n"
		 "        L = z * W - z * z * t / 2\n"
		 "        r = (~done) & ((L >= 0) if k == 20 else (L >= a))\n"
		 "        g = (~done) & ((L < 0) if k == 20 else (L <= -b))\n"
		 "        red |= r; done |= r | g\n"
		 "    print(repr(float(red.mean())))\n"
		 "' 2>/dev/null", a, b);
	f = popen(cmd, "r");
	if (!f || !fgets(line, sizeof(line), f) || !strncmp(line, "missing", 7)) {
		if (f)
			pclose(f);
		print_message("skipped: python3 with numpy and scipy not found (tests/install-deps.sh "
			      "installs them)\n");
		skip();
	}
	/* se of a share p of N paths: sqrt(p (1 - p) / N) */
	assert_close(strtod(line, NULL), ea, 4 * sqrt(0.008 * 0.992 / 400000));
	assert_non_null(fgets(line, sizeof(line), f));
	assert_close(1 - strtod(line, NULL), eb, 4 * sqrt(0.2 * 0.8 / 400000));
	pclose(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wilson_known_values),
		cmocka_unit_test(test_wilson_edges),
		cmocka_unit_test(test_mcnemar_small_exact),
		cmocka_unit_test(test_sign_test_large_n_in_log_space),
		cmocka_unit_test(test_log_choose),
		cmocka_unit_test(test_geomean_and_mean),
		cmocka_unit_test(test_fast_p),
		cmocka_unit_test(test_upskill_lift_savings_benefit),
		cmocka_unit_test(test_t_distribution_closed_forms),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_paired_margin_by_hand),
		cmocka_unit_test(test_paired_bounds_by_hand),
		cmocka_unit_test(test_holm_levels_by_hand),
		cmocka_unit_test(test_paired_values_by_hand),
		cmocka_unit_test(test_against_scipy),
		cmocka_unit_test(test_pooled_variance),
		cmocka_unit_test(test_paired_margin_cap),
		cmocka_unit_test(test_sprt_by_hand),
		cmocka_unit_test(test_sprt_against_simulation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
