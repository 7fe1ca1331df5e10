/*
 * Unit tests for the CPU references of the kernel fixtures
 * (fixtures/NAME/reference.c): each is compiled into this binary and checked
 * on small hand-computed cases and on properties that must hold for any
 * input (normalised rows, sums, permutations, exact counts).
 */
#include "unit.h"

#include <math.h>

#include "../../fixtures/layernorm/reference.c"
#include "../../fixtures/rmsnorm/reference.c"
#include "../../fixtures/bias-gelu/reference.c"
#include "../../fixtures/reduce-sum/reference.c"
#include "../../fixtures/transpose/reference.c"
#include "../../fixtures/gemm/reference.c"
#include "../../fixtures/histogram/reference.c"

/* A small deterministic generator (xorshift64*) for property tests. */
static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static double rng_uniform(double lo, double hi)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return lo + (hi - lo) * (double)((rng_state * 2685821657736338717ull) >> 11) / 9007199254740992.0;
}

static void fill_uniform(float *v, size_t n, double lo, double hi)
{
	for (size_t k = 0; k < n; k++)
		v[k] = (float)rng_uniform(lo, hi);
}

/* Fails the test unless |got - want| <= tol, naming the index. */
static void expect_near(double got, double want, double tol, size_t idx)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("element %zu: got %.9g, want %.9g (tol %g)", idx, got, want, tol);
}

/* ---- layernorm ---- */

static void run_layernorm(const float *x, const float *g, const float *b, float *y,
			  int64_t rows, int64_t cols)
{
	struct sc_ref_args a = {0};

	a.buf[0] = (void *)x;
	a.buf[1] = (void *)g;
	a.buf[2] = (void *)b;
	a.buf[3] = y;
	a.i[4] = rows;
	a.i[5] = cols;
	a.nparams = 6;
	sc_ref_layernorm(&a);
}

static void test_layernorm_known_row(void **state)
{
	/* mean 2.5, population variance 1.25 */
	const float x[4] = {1, 2, 3, 4};
	const float g[4] = {1, 2, 1, 0.5f};
	const float b[4] = {0, 0.5f, -1, 0};
	const double rstd = 1.0 / sqrt(1.25 + 1e-5);
	const double want[4] = {-1.5 * rstd, -0.5 * rstd * 2 + 0.5, 0.5 * rstd - 1, 1.5 * rstd * 0.5};
	float y[4];
	(void)state;

	run_layernorm(x, g, b, y, 1, 4);
	for (int k = 0; k < 4; k++)
		expect_near(y[k], want[k], 1e-6, (size_t)k);
	/* eps matters: without it y[0] would be -1.341641, with it -1.341635 */
	assert_true(fabs(y[0] - (-1.5 / sqrt(1.25))) > 2e-6);
}

static void test_layernorm_constant_row_gives_beta(void **state)
{
	const float x[6] = {7, 7, 7, -3, -3, -3};
	const float g[3] = {2, 3, 4};
	const float b[3] = {0.25f, -0.5f, 1};
	float y[6];
	(void)state;

	run_layernorm(x, g, b, y, 2, 3);
	for (int k = 0; k < 6; k++)
		expect_near(y[k], b[k % 3], 1e-7, (size_t)k);
}

static void test_layernorm_rows_are_normalised_and_shift_invariant(void **state)
{
	enum { R = 5, C = 333 };
	static float x[R * C], xs[R * C], y[R * C], ys[R * C], yg[R * C], g[C], b[C];
	(void)state;

	/* values k/8 so that adding 256 is exact in float32 */
	for (int k = 0; k < R * C; k++) {
		x[k] = (float)((int)rng_uniform(-32, 32)) / 8.0f;
		xs[k] = x[k] + 256.0f;
	}
	for (int c = 0; c < C; c++) {
		g[c] = 1;
		b[c] = 0;
	}
	run_layernorm(x, g, b, y, R, C);
	run_layernorm(xs, g, b, ys, R, C);
	for (int r = 0; r < R; r++) {
		double m = 0, v = 0;
		for (int c = 0; c < C; c++)
			m += y[r * C + c];
		m /= C;
		for (int c = 0; c < C; c++)
			v += (y[r * C + c] - m) * (y[r * C + c] - m);
		v /= C;
		expect_near(m, 0, 1e-6, (size_t)r);
		expect_near(v, 1, 1e-4, (size_t)r);
	}
	for (int k = 0; k < R * C; k++)
		expect_near(ys[k], y[k], 1e-6, (size_t)k);
	/* gamma and beta are a per-column affine map of the normalised row */
	fill_uniform(g, C, 0.5, 1.5);
	fill_uniform(b, C, -1, 1);
	run_layernorm(x, g, b, yg, R, C);
	for (int k = 0; k < R * C; k++)
		expect_near(yg[k], (double)y[k] * g[k % C] + b[k % C], 1e-6, (size_t)k);
}

/* ---- rmsnorm ---- */

static void run_rmsnorm(const float *x, const float *w, float *y, int64_t rows, int64_t cols)
{
	struct sc_ref_args a = {0};

	a.buf[0] = (void *)x;
	a.buf[1] = (void *)w;
	a.buf[2] = y;
	a.i[3] = rows;
	a.i[4] = cols;
	a.nparams = 5;
	sc_ref_rmsnorm(&a);
}

static void test_rmsnorm_known_rows(void **state)
{
	/* row 0: mean of squares (9+16)/2 = 12.5; row 1: (0+4)/2 = 2 */
	const float x[4] = {3, -4, 0, 2};
	const float w[2] = {1, 0.5f};
	const double s0 = 1.0 / sqrt(12.5 + 1e-6), s1 = 1.0 / sqrt(2 + 1e-6);
	const double want[4] = {3 * s0, -4 * s0 * 0.5, 0, 2 * s1 * 0.5};
	float y[4];
	(void)state;

	run_rmsnorm(x, w, y, 2, 2);
	for (int k = 0; k < 4; k++)
		expect_near(y[k], want[k], 1e-7, (size_t)k);
	/* a tiny row shows eps = 1e-6: mean square 1e-6, so y = 1e-3 / sqrt(2e-6) */
	const float tiny[2] = {1e-3f, 1e-3f};
	const float ones[2] = {1, 1};
	run_rmsnorm(tiny, ones, y, 1, 2);
	expect_near(y[0], 1e-3 / sqrt((double)1e-3f * 1e-3f + 1e-6), 1e-6, 0);
	expect_near(y[0], sqrt(0.5), 1e-4, 0);
}

static void test_rmsnorm_unit_rms_and_scale_invariance(void **state)
{
	enum { R = 4, C = 1001 };
	static float x[R * C], x8[R * C], y[R * C], y8[R * C], w[C];
	(void)state;

	fill_uniform(x, R * C, -4, 4);
	for (int k = 0; k < R * C; k++)
		x8[k] = x[k] * 1024.0f; /* exact: power of two */
	for (int c = 0; c < C; c++)
		w[c] = 1;
	run_rmsnorm(x, w, y, R, C);
	run_rmsnorm(x8, w, y8, R, C);
	for (int r = 0; r < R; r++) {
		double ss = 0;
		for (int c = 0; c < C; c++)
			ss += (double)y[r * C + c] * y[r * C + c];
		expect_near(ss / C, 1, 1e-5, (size_t)r);
	}
	/* eps is negligible at these magnitudes: scaling x leaves y unchanged */
	for (int k = 0; k < R * C; k++)
		expect_near(y8[k], y[k], 1e-5, (size_t)k);
}

/* ---- bias-gelu ---- */

static void run_bias_gelu(const float *x, const float *bias, float *y, int64_t rows, int64_t cols)
{
	struct sc_ref_args a = {0};

	a.buf[0] = (void *)x;
	a.buf[1] = (void *)bias;
	a.buf[2] = y;
	a.i[3] = rows;
	a.i[4] = cols;
	a.nparams = 5;
	sc_ref_bias_gelu(&a);
}

static void test_bias_gelu_known_values(void **state)
{
	/* bias is per column: v = {0, 1, -1 | 2, 0.5, 30.5} */
	const float x[6] = {-0.5f, 1.5f, -1, 1.5f, 1, 30.5f};
	const float bias[3] = {0.5f, -0.5f, 0};
	/* gelu(1) = Phi(1) = 0.841344746, gelu(-1) = -(1 - Phi(1)),
	 * gelu(2) = 2 Phi(2) = 2 * 0.977249868, gelu(0.5) = 0.5 * 0.691462461 */
	const double want[6] = {0, 0.841344746, -0.158655254, 1.954499736, 0.345731231, 30.5};
	float y[6];
	(void)state;

	run_bias_gelu(x, bias, y, 2, 3);
	for (int k = 0; k < 6; k++)
		expect_near(y[k], want[k], 1e-7, (size_t)k);
}

static void test_bias_gelu_is_erf_form_not_tanh(void **state)
{
	enum { N = 2001 };
	static float x[N], y[N];
	const float zero = 0;
	double worst = 0;
	(void)state;

	/* the tanh approximation must fall outside the fixture's tolerance
	 * (1e-5 + 1e-5|y|) somewhere in [-5, 5], or the fixture cannot catch it */
	for (int k = 0; k < N; k++)
		x[k] = (float)(-5.0 + 10.0 * k / (N - 1));
	run_bias_gelu(x, &zero, y, N, 1);
	for (int k = 0; k < N; k++) {
		double v = x[k];
		double t = 0.5 * v * (1 + tanh(0.7978845608028654 * (v + 0.044715 * v * v * v)));
		double excess = fabs(t - y[k]) - (1e-5 + 1e-5 * fabs(y[k]));

		if (excess > worst)
			worst = excess;
		/* gelu(v) - gelu(-v) = v */
		if (k < N / 2)
			expect_near((double)y[k] - y[N - 1 - k], v, 1e-6, (size_t)k);
	}
	assert_true(worst > 1e-4);
}

/* ---- reduce-sum ---- */

static void run_reduce_sum(const float *x, float *y, int64_t rows, int64_t cols)
{
	struct sc_ref_args a = {0};

	a.buf[0] = (void *)x;
	a.buf[1] = y;
	a.i[2] = rows;
	a.i[3] = cols;
	a.nparams = 4;
	sc_ref_reduce_sum(&a);
}

static void test_reduce_sum_known_rows(void **state)
{
	const float x[6] = {1, 2, 3, -4, 0.5f, 0.25f};
	float y[3];
	(void)state;

	run_reduce_sum(x, y, 2, 3);
	assert_true(y[0] == 6.0f && y[1] == -3.25f);
	run_reduce_sum(x, y, 3, 2);
	assert_true(y[0] == 3.0f && y[1] == -1.0f && y[2] == 0.75f);
	run_reduce_sum(x, y, 1, 1);
	assert_true(y[0] == 1.0f);
}

static void test_reduce_sum_is_accurate_beyond_float_order(void **state)
{
	enum { N = 100003 };
	static float x[N];
	float y;
	double want = 0;
	float naive = 0;
	(void)state;

	/* 1 + many tiny values: a naive float32 loop drops them all, the
	 * reference (double accumulation) keeps them */
	x[0] = 1;
	for (int k = 1; k < N; k++)
		x[k] = 1e-8f;
	for (int k = 0; k < N; k++) {
		want += x[k];
		naive += x[k];
	}
	run_reduce_sum(x, &y, 1, N);
	expect_near(y, want, 1e-7, 0);
	expect_near(y, 1.00100002, 1e-7, 0);
	assert_true(naive == 1.0f);
	/* a row sum is a sum over its elements only: split into rows */
	fill_uniform(x, N - 3, -1, 3);
	float rows[8];
	run_reduce_sum(x, rows, 8, (N - 3) / 8);
	run_reduce_sum(x, &y, 1, N - 3);
	double total = 0;
	for (int r = 0; r < 8; r++)
		total += rows[r];
	expect_near(total, y, 1e-5 * fabs(y), 0);
}

/* ---- transpose ---- */

static void run_transpose(const float *x, float *y, int64_t rows, int64_t cols)
{
	struct sc_ref_args a = {0};

	a.buf[0] = (void *)x;
	a.buf[1] = y;
	a.i[2] = rows;
	a.i[3] = cols;
	a.nparams = 4;
	sc_ref_transpose(&a);
}

static void test_transpose_2x3(void **state)
{
	/* [[1 2 3] [4 5 6]] -> [[1 4] [2 5] [3 6]] */
	const float x[6] = {1, 2, 3, 4, 5, 6};
	const float want[6] = {1, 4, 2, 5, 3, 6};
	float y[6];
	(void)state;

	run_transpose(x, y, 2, 3);
	assert_memory_equal(y, want, sizeof(want));
	/* a single row becomes a column: the same bytes */
	run_transpose(x, y, 1, 6);
	assert_memory_equal(y, x, sizeof(x));
}

static void test_transpose_twice_is_identity(void **state)
{
	enum { R = 17, C = 33 };
	static float x[R * C], t[R * C], back[R * C];
	(void)state;

	fill_uniform(x, R * C, -4, 4);
	run_transpose(x, t, R, C);
	for (int r = 0; r < R; r++)
		for (int c = 0; c < C; c++)
			assert_true(t[c * R + r] == x[r * C + c]);
	run_transpose(t, back, C, R);
	assert_memory_equal(back, x, sizeof(x));
}

/* ---- gemm ---- */

static void run_gemm(const float *A, const float *B, float *C, int64_t M, int64_t N, int64_t K)
{
	struct sc_ref_args a = {0};

	a.buf[0] = (void *)A;
	a.buf[1] = (void *)B;
	a.buf[2] = C;
	a.i[3] = M;
	a.i[4] = N;
	a.i[5] = K;
	a.nparams = 6;
	sc_ref_gemm(&a);
}

static void test_gemm_small_known_products(void **state)
{
	/* [[1 2] [3 4]] . [[5 6] [7 8]] = [[19 22] [43 50]] */
	const float A[4] = {1, 2, 3, 4}, B[4] = {5, 6, 7, 8};
	const float want[4] = {19, 22, 43, 50};
	/* (2x3) . (3x1): [[1 2 3] [4 5 6]] . [1 0 -1]^T = [-2 -2] */
	const float A2[6] = {1, 2, 3, 4, 5, 6}, B2[3] = {1, 0, -1};
	float C[4];
	(void)state;

	run_gemm(A, B, C, 2, 2, 2);
	assert_memory_equal(C, want, sizeof(want));
	run_gemm(A2, B2, C, 2, 1, 3);
	assert_true(C[0] == -2 && C[1] == -2);
	run_gemm(A, B, C, 1, 1, 1);
	assert_true(C[0] == 5);
}

static void test_gemm_identity_and_transpose_rule(void **state)
{
	enum { M = 17, K = 33, N = 65 };
	static float A[M * K], B[K * N], I[K * K], C[M * N], AI[M * K];
	static float At[K * M], Bt[N * K], Ct[N * M];
	(void)state;

	fill_uniform(A, M * K, -1, 1);
	fill_uniform(B, K * N, -1, 1);
	for (int r = 0; r < K; r++)
		for (int c = 0; c < K; c++)
			I[r * K + c] = r == c;
	run_gemm(A, I, AI, M, K, K);
	assert_memory_equal(AI, A, sizeof(A));
	/* (A B)^T = B^T A^T, checked with the transpose reference */
	run_gemm(A, B, C, M, N, K);
	run_transpose(A, At, M, K);
	run_transpose(B, Bt, K, N);
	run_gemm(Bt, At, Ct, N, M, K);
	for (int m = 0; m < M; m++)
		for (int n = 0; n < N; n++)
			expect_near(Ct[n * M + m], C[m * N + n], 1e-6, (size_t)(m * N + n));
}

/* ---- histogram ---- */

static void run_histogram(const int32_t *x, uint32_t *counts, int64_t rows, int64_t cols)
{
	struct sc_ref_args a = {0};

	a.buf[0] = (void *)x;
	a.buf[1] = counts;
	a.i[2] = rows;
	a.i[3] = cols;
	a.nparams = 4;
	sc_ref_histogram(&a);
}

static void test_histogram_short_list(void **state)
{
	/* row 0: 3 3 0 255 3; row 1: 7 7 7 7 0 */
	const int32_t x[10] = {3, 3, 0, 255, 3, 7, 7, 7, 7, 0};
	static uint32_t counts[2 * 256];
	(void)state;

	memset(counts, 0xff, sizeof(counts)); /* the reference must zero */
	run_histogram(x, counts, 2, 5);
	for (int b = 0; b < 256; b++) {
		uint32_t w0 = b == 3 ? 3 : (b == 0 || b == 255) ? 1 : 0;
		uint32_t w1 = b == 7 ? 4 : b == 0 ? 1 : 0;

		assert_int_equal(counts[b], w0);
		assert_int_equal(counts[256 + b], w1);
	}
}

static void test_histogram_counts_sum_to_cols(void **state)
{
	enum { R = 3, C = 4097 };
	static int32_t x[R * C];
	static uint32_t counts[R * 256];
	(void)state;

	for (int k = 0; k < R * C; k++)
		x[k] = (int32_t)rng_uniform(100, 132);
	run_histogram(x, counts, R, C);
	for (int r = 0; r < R; r++) {
		uint64_t total = 0;

		for (int b = 0; b < 256; b++) {
			total += counts[r * 256 + b];
			if (b < 100 || b > 131)
				assert_int_equal(counts[r * 256 + b], 0);
		}
		assert_int_equal(total, C);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layernorm_known_row),
		cmocka_unit_test(test_layernorm_constant_row_gives_beta),
		cmocka_unit_test(test_layernorm_rows_are_normalised_and_shift_invariant),
		cmocka_unit_test(test_rmsnorm_known_rows),
		cmocka_unit_test(test_rmsnorm_unit_rms_and_scale_invariance),
		cmocka_unit_test(test_bias_gelu_known_values),
		cmocka_unit_test(test_bias_gelu_is_erf_form_not_tanh),
		cmocka_unit_test(test_reduce_sum_known_rows),
		cmocka_unit_test(test_reduce_sum_is_accurate_beyond_float_order),
		cmocka_unit_test(test_transpose_2x3),
		cmocka_unit_test(test_transpose_twice_is_identity),
		cmocka_unit_test(test_gemm_small_known_products),
		cmocka_unit_test(test_gemm_identity_and_transpose_rule),
		cmocka_unit_test(test_histogram_short_list),
		cmocka_unit_test(test_histogram_counts_sum_to_cols),
	};
	return cmocka_run_group_tests_name("fixture_refs", tests, NULL, NULL);
}
