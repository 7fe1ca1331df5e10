/*
 * The CPU references of the bfloat16 fixtures on small hand-computed cases.
 * Inputs go through the same rounding the harness applies (float32 ->
 * bfloat16 -> float32 view) before the reference sees them; each case has
 * at least one input that is not a bfloat16 value, so the expected outputs
 * are those of the rounded inputs (and differ from the unrounded ones).
 */
#include "unit.h"
#include "half.h"
#include "refs.h"

#include <math.h>

/* What the harness does to an input buffer: round to bfloat16, widen. */
static void as_bf16(float *v, size_t n)
{
	uint16_t h[64];
	assert_true(n <= 64);
	sc_half_encode(h, SC_DTYPE_BF16, v, n);
	sc_half_decode(v, SC_DTYPE_BF16, h, n);
}

static void near(double got, double want, double tol, const char *what, size_t i)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("%s[%zu]: got %.9g, want %.9g (tol %g)", what, i, got, want, tol);
}

static void run(const char *fixture, struct sc_ref_args *a)
{
	sc_ref_fn fn = sc_ref_lookup(fixture);
	assert_non_null(fn);
	fn(a);
}

static void test_softmax_bf16_ref(void **state)
{
	/* 1 + 2^-8 rounds (tie, to even) to 1: the first two outputs are equal */
	float x[5] = { 1.0f, 1.00390625f, 3.0f, 1000.0f, 0.0f }, y[5];
	double e2 = exp(-2.0), d = 2 * e2 + 1;
	struct sc_ref_args a = { 0 };
	(void)state;

	as_bf16(x, 5);
	assert_true(x[1] == 1.0f);
	a.buf[0] = x;
	a.buf[1] = y;
	a.i[2] = 1;
	a.i[3] = 3;
	run("softmax-bf16", &a);
	near(y[0], e2 / d, 1e-7, "y", 0);  /* 0.1065069 */
	near(y[1], e2 / d, 1e-7, "y", 1);
	near(y[2], 1 / d, 1e-7, "y", 2);   /* 0.7869862 */
	assert_true(y[0] == y[1]);
	/* a second row of two, large magnitude: exp(-1000) is 0, no overflow */
	a.buf[0] = x + 3;
	a.buf[1] = y + 3;
	a.i[3] = 2;
	run("softmax-bf16", &a);
	assert_true(y[3] == 1.0f && y[4] == 0.0f);
}

static void test_rmsnorm_bf16_ref(void **state)
{
	/* mean square of (3, 4) is 12.5; w = 0.1 becomes 0.10009765625 */
	float x[2] = { 3, 4 }, w[2] = { 1, 0.1f }, y[2];
	double r = 1.0 / sqrt(12.5 + 1e-6);
	struct sc_ref_args a = { 0 };
	(void)state;

	as_bf16(x, 2);
	as_bf16(w, 2);
	a.buf[0] = x;
	a.buf[1] = w;
	a.buf[2] = y;
	a.i[3] = 1;
	a.i[4] = 2;
	run("rmsnorm-bf16", &a);
	near(y[0], 3 * r, 1e-7, "y", 0);                  /* 0.8485281 */
	near(y[1], 4 * r * 0.10009765625, 1e-8, "y", 1);  /* 0.1132476, not 0.1131371 */
	assert_true(fabs(y[1] - 4 * r * 0.1) > 1e-4);
}

static void test_rope_bf16_ref(void **state)
{
	/* batch 1, seq 2, heads 1, hd 4: tables are 2 x 4, one entry per
	 * element; position 1 uses row 1 */
	float x[8] = { 1, 2, -1, 0.5f, 1.00390625f, 2, 3, -4 }, y[8];
	float cs[8] = { 1, 1, 0, 0, 0.5f, 0.25f, -1, 2 }, sn[8] = { 0, 0, 1, 1, 0.25f, 0.5f, 0, 0 };
	struct sc_ref_args a = { 0 };
	(void)state;

	as_bf16(x, 8);  /* x[4] becomes 1 */
	a.buf[0] = x;
	a.buf[1] = cs;
	a.buf[2] = sn;
	a.buf[3] = y;
	a.i[4] = 1;
	a.i[5] = 2;
	a.i[6] = 1;
	a.i[7] = 4;
	run("rope-bf16", &a);
	/* position 0: pair 0 by (c 1, s 0) unchanged; pair 1 by (c 0, s 1): (-x1, x0) */
	near(y[0], 1, 0, "y", 0);
	near(y[1], 2, 0, "y", 1);
	near(y[2], -0.5, 0, "y", 2);
	near(y[3], -1, 0, "y", 3);
	/* position 1, pair 0: y0 = x0*cos[4] - x1*sin[4] = 0.5 - 0.5 = 0;
	 * y1 = x1*cos[5] + x0*sin[5] = 0.5 + 0.5 = 1 (each element its own entry) */
	near(y[4], 0, 0, "y", 4);
	near(y[5], 1, 0, "y", 5);
	/* pair 1: y2 = 3*(-1) - (-4)*0 = -3; y3 = -4*2 + 3*0 = -8 */
	near(y[6], -3, 0, "y", 6);
	near(y[7], -8, 0, "y", 7);
}

static void test_geglu_bf16_ref(void **state)
{
	/* rows 2, cols 2: row = (v0, v1, g0, g1) */
	float h[8] = { 2, -3, 1, -1, 1, 0.3f, -10, 2 }, y[4];
	struct sc_ref_args a = { 0 };
	(void)state;

	as_bf16(h, 8);  /* 0.3 becomes 0.30078125 */
	a.buf[0] = h;
	a.buf[1] = y;
	a.i[2] = 2;
	a.i[3] = 2;
	run("geglu-bf16", &a);
	near(y[0], 2 * 0.841344746, 1e-7, "y", 0);     /* gelu(1) = 0.8413447 */
	near(y[1], -3 * -0.158655254, 1e-7, "y", 1);   /* gelu(-1) = -0.1586553 */
	/* gelu(-10) = -5 erfc(10/sqrt 2) = -7.619853e-23: no cancellation to 0 */
	near(y[2], -7.6198530e-23, 1e-28, "y", 2);
	near(y[3], 0.30078125 * 1.954499736, 1e-7, "y", 3);  /* gelu(2) = 1.9544997 */
}

static void test_adaln_bf16_ref(void **state)
{
	/* batch 2, tokens 1, dim 4; both rows (1, 2, 3, 4): mean 2.5, var 1.25 */
	float x[8] = { 1, 2, 3, 4, 1, 2, 3, 4 }, y[8];
	float scale[8] = { 0, 1, -1, 0.5f, 0, 0, 0, 0 }, shift[8] = { 0, 0.5f, 0, -1, 0.1f, 0, 0, 0 };
	double r = 1.0 / sqrt(1.25 + 1e-6), n[4] = { -1.5 * r, -0.5 * r, 0.5 * r, 1.5 * r };
	struct sc_ref_args a = { 0 };
	(void)state;

	as_bf16(scale, 8);
	as_bf16(shift, 8);  /* 0.1 becomes 0.10009765625 */
	a.buf[0] = x;
	a.buf[1] = scale;
	a.buf[2] = shift;
	a.buf[3] = y;
	a.i[4] = 2;
	a.i[5] = 1;
	a.i[6] = 4;
	run("adaln-bf16", &a);
	near(y[0], n[0], 1e-6, "y", 0);                 /* -1.3416402 */
	near(y[1], n[1] * 2 + 0.5, 1e-6, "y", 1);       /* -0.3944272 */
	near(y[2], 0, 1e-7, "y", 2);                    /* scale -1 zeroes it */
	near(y[3], n[3] * 1.5 - 1, 1e-6, "y", 3);       /* 1.0124603 */
	/* the second sample has its own scale and shift */
	near(y[4], n[0] + 0.10009765625, 1e-6, "y", 4);
	near(y[5], n[1], 1e-6, "y", 5);
	near(y[7], n[3], 1e-6, "y", 7);
	/* With room for them, the terms of each output: |n| + |n*scale| +
	 * |shift| (the spec's terms_rtol); y[2] = n - n + 0 cancels to 0 but
	 * its terms do not. Without room (NULL) nothing else changes. */
	{
		float terms[8];
		for (int i = 0; i < 8; i++)
			terms[i] = -1;
		a.terms[3] = terms;
		run("adaln-bf16", &a);
		near(terms[0], fabs(n[0]), 1e-6, "terms", 0);
		near(terms[1], fabs(n[1]) * 2 + 0.5, 1e-6, "terms", 1);
		near(terms[2], 2 * fabs(n[2]), 1e-6, "terms", 2);
		near(terms[3], fabs(n[3]) * 1.5 + 1, 1e-6, "terms", 3);
		near(terms[4], fabs(n[0]) + 0.10009765625, 1e-6, "terms", 4);
		near(terms[7], fabs(n[3]), 1e-6, "terms", 7);
		near(y[2], 0, 1e-7, "y", 2);
	}
}

static void test_gemm_bf16_ref(void **state)
{
	/* nn.Linear: x [[1 2 3] [4 5 6]] times W^T for W = [[7 9 11] [8 10 12]]
	 * (N x K: row n is output n's weights) = [[58 64] [139 154]], plus
	 * b = (0.5, -100); 7.01 rounds to 7 (bfloat16 spacing 1/32 at 7), 2.99
	 * to 2.984375 */
	float A[6] = { 1, 2, 2.99f, 4, 5, 6 }, W[6] = { 7.01f, 9, 11, 8, 10, 12 }, b[2] = { 0.5f, -100 }, C[4];
	struct sc_ref_args a = { 0 };
	(void)state;

	as_bf16(A, 6);
	as_bf16(W, 6);
	as_bf16(b, 2);
	assert_true(W[0] == 7.0f && A[2] == 2.984375f);
	a.buf[0] = A;
	a.buf[1] = W;
	a.buf[2] = b;
	a.buf[3] = C;
	a.i[4] = 2;
	a.i[5] = 2;
	a.i[6] = 3;
	run("gemm-bf16", &a);
	near(C[0], 7 + 18 + 2.984375 * 11 + 0.5, 1e-5, "C", 0);  /* 58.328125 */
	near(C[1], 8 + 20 + 2.984375 * 12 - 100, 1e-5, "C", 1);  /* -36.1875 */
	near(C[2], 139.5, 1e-5, "C", 2);
	near(C[3], 54, 1e-5, "C", 3);
}

static void test_attention_bf16_ref(void **state)
{
	/* batch 1, heads 1, q_len = k_len = 2, hd 4 (scale 1/2): q0.k0 = 2 ->
	 * s = (1, 0); row 1: s = (0, 1) */
	float q[8] = { 1, 0, 0, 0, 0, 1, 0, 0 }, k[8] = { 2, 0, 0, 0, 0, 2, 0, 0 };
	float v[8] = { 1.00390625f, 2, 3, 4, 5, 6, 7, 8 }, o[8];
	double p = 1 / (1 + exp(-1.0));  /* 0.7310586 */
	struct sc_ref_args a = { 0 };
	(void)state;

	as_bf16(v, 8);  /* v[0] becomes 1 */
	a.buf[0] = q;
	a.buf[1] = k;
	a.buf[2] = v;
	a.buf[3] = o;
	a.i[5] = 1;   /* batch */
	a.i[6] = 1;   /* heads */
	a.i[7] = 2;   /* q_len */
	a.i[8] = 2;   /* k_len */
	a.i[9] = 4;   /* hd */
	for (int causal = 0; causal < 2; causal++) {
		a.i[10] = causal;
		run("attention-bf16", &a);
		for (int d = 0; d < 4; d++) {
			/* row 0: p*v0 + (1-p)*v1 = v0 + 4(1-p); causal: v0 alone */
			near(o[d], causal ? v[d] : v[d] + 4 * (1 - p), 1e-6, "o", (size_t)d);
			/* row 1: v0 + 4p either way (key 0 precedes query 1) */
			near(o[4 + d], v[d] + 4 * p, 1e-6, "o", (size_t)(4 + d));
		}
	}
	near(o[4], 3.9242344, 1e-6, "o", 4);

	/* A decode step: q_len 1 against k_len 2, causal. Bottom-right
	 * alignment lets the one query see both keys (top-left would give v0
	 * alone): the same result as row 0 without the mask. */
	a.i[7] = 1;
	a.i[10] = 1;
	run("attention-bf16", &a);
	for (int d = 0; d < 4; d++)
		near(o[d], v[d] + 4 * (1 - p), 1e-6, "o", (size_t)d);
	/* q_len 2 against k_len 1, causal: row 0 sees no key (zero), row 1 key 0 */
	a.i[7] = 2;
	a.i[8] = 1;
	run("attention-bf16", &a);
	for (int d = 0; d < 4; d++) {
		near(o[d], 0, 0, "o", (size_t)d);
		near(o[4 + d], v[d], 1e-6, "o", (size_t)(4 + d));
	}
}

static void test_attention_bf16_heads_ref(void **state)
{
	/* batch 1, heads 2, q_len 1, k_len 2, hd 4, not causal, in the
	 * (batch, seq, heads, hd) layout: element (j, h, d) of k is at
	 * (j*2 + h)*4 + d. Head 0: s = (1, 0); head 1: s = (0, 1). */
	float q[8] = { 1, 0, 0, 0, 0, 1, 0, 0 };
	float k[16] = { 2, 0, 0, 0, /* j0 h1 */ 0, 0, 0, 0, /* j1 h0 */ 0, 2, 0, 0, /* j1 h1 */ 0, 2, 0, 0 };
	float v[16] = { 1, 2, 3, 4, /* j0 h1 */ 10, 10, 10, 10, /* j1 h0 */ 5, 6, 7, 8, /* j1 h1 */ 20, 20, 20, 20 };
	float o[8];
	double p = 1 / (1 + exp(-1.0));
	struct sc_ref_args a = { 0 };
	(void)state;

	a.buf[0] = q;
	a.buf[1] = k;
	a.buf[2] = v;
	a.buf[3] = o;
	a.i[5] = 1;
	a.i[6] = 2;
	a.i[7] = 1;
	a.i[8] = 2;
	a.i[9] = 4;
	a.i[10] = 0;
	run("attention-bf16", &a);
	for (int d = 0; d < 4; d++) {
		near(o[d], (d + 1) + 4 * (1 - p), 1e-6, "o", (size_t)d);     /* head 0 */
		near(o[4 + d], 10 + 10 * p, 1e-5, "o", (size_t)(4 + d));      /* head 1: 17.310586 */
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_softmax_bf16_ref),
		cmocka_unit_test(test_rmsnorm_bf16_ref),
		cmocka_unit_test(test_rope_bf16_ref),
		cmocka_unit_test(test_geglu_bf16_ref),
		cmocka_unit_test(test_adaln_bf16_ref),
		cmocka_unit_test(test_gemm_bf16_ref),
		cmocka_unit_test(test_attention_bf16_ref),
		cmocka_unit_test(test_attention_bf16_heads_ref),
	};
	return cmocka_run_group_tests_name("kernel_refs_bf16", tests, NULL, NULL);
}
