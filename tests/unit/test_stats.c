/* Unit tests for runner/stats.c. Expected values were worked out by hand
 * (exact fractions for the binomial sums, the Wilson formula written out
 * in docs/evaluation.md) and are written here as literals. */
#include "unit.h"
#include "eval/stats.h"

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
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
