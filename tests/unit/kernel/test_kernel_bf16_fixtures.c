/*
 * The bfloat16 fixtures' tolerances, measured on the CPU double. For each
 * fixture, a C "kernel" that does what a correct CUDA kernel does (float32
 * math and accumulation in the order a block would use, one rounding to
 * bfloat16 at the end, and for attention the bfloat16 P of a flash kernel)
 * must pass on every size, distribution and seed with room to spare; a
 * kernel that accumulates its long sums in float16 (or skips the softmax
 * maximum) must fail. The worst error/tolerance ratios are printed: they
 * are the measurements docs/fixtures.md and each fixture's notes.md cite.
 */
#include "unit.h"
#include "device.h"
#include "half.h"
#include "harness.h"
#include "refs.h"
#include "spec.h"

#include <math.h>

#define BUF16(p, k) ((uint16_t *)(uintptr_t)*(uint64_t *)(p)[k])
#define BUF32(p, k) ((float *)(uintptr_t)*(uint64_t *)(p)[k])
#define INT(p, k) (*(int *)(p)[k])

static float bf(uint16_t h) { return sc_bf16_to_f32(h); }
static uint16_t to_bf(float f) { return sc_bf16_from_f32(f); }
/* One float16 rounding: what a float16 register or accumulator holds. */
static float h16(double v) { return sc_f16_to_f32(sc_f16_from_f32((float)v)); }

/* Block-style reduction: nthreads threads each sum a strided slice, then a
 * tree; acc16 rounds every partial and every step to float16. */
static float block_sum_n(const float *v, int n, bool acc16, int nthreads)
{
	float part[1024];

	for (int t = 0; t < nthreads; t++) {
		float s = 0;
		for (int c = t; c < n; c += nthreads)
			s = acc16 ? h16((double)s + v[c]) : s + v[c];
		part[t] = s;
	}
	for (int w = nthreads / 2; w > 0; w /= 2)
		for (int t = 0; t < w; t++)
			part[t] = acc16 ? h16((double)part[t] + part[t + w]) : part[t] + part[t + w];
	return part[0];
}

/* A block of 256 threads, the fixtures' default BLOCK. */
static float block_sum(const float *v, int n, bool acc16)
{
	return block_sum_n(v, n, acc16, 256);
}

static bool first_thread(const struct sc_cpu_thread *t)
{
	return t->tid[0] == 0 && t->tid[1] == 0 && t->tid[2] == 0;
}

/* ---- softmax-bf16: x, y, rows, cols; grid (rows), one row per block ---- */

static void softmax_row(const struct sc_cpu_thread *t, void **p, bool acc16, bool safe, int nthreads)
{
	int cols = INT(p, 3);
	const uint16_t *x = BUF16(p, 0) + (size_t)t->bid[0] * cols;
	uint16_t *y = BUF16(p, 1) + (size_t)t->bid[0] * cols;
	float *e, m = -INFINITY, sum;

	if (!first_thread(t))
		return;
	e = sc_xmalloc((size_t)cols * sizeof(float));
	for (int c = 0; c < cols && safe; c++)
		m = fmaxf(m, bf(x[c]));
	if (!safe)
		m = 0;
	for (int c = 0; c < cols; c++)
		e[c] = expf(bf(x[c]) - m);
	sum = block_sum_n(e, cols, acc16, nthreads);
	for (int c = 0; c < cols; c++)
		y[c] = to_bf(e[c] / sum);
	free(e);
}

static void softmax_good(const struct sc_cpu_thread *t, void **p) { softmax_row(t, p, false, true, 256); }
/* float16 partial sums in a warp per row: 32 serial chains per row */
static void softmax_fp16(const struct sc_cpu_thread *t, void **p) { softmax_row(t, p, true, true, 32); }
/* float16 partial sums over a block of 256, then a float16 tree */
static void softmax_fp16_block(const struct sc_cpu_thread *t, void **p) { softmax_row(t, p, true, true, 256); }
static void softmax_unsafe(const struct sc_cpu_thread *t, void **p) { softmax_row(t, p, false, false, 256); }

/* ---- rmsnorm-bf16: x, w, y, rows, cols ---- */

/* round toward zero: the float32's top 16 bits */
static uint16_t to_bf_rz(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16);
}

static bool round_toward_zero;  /* rmsnorm_row rounds its result toward zero */

static void rmsnorm_row(const struct sc_cpu_thread *t, void **p, bool acc16)
{
	int cols = INT(p, 4);
	const uint16_t *x = BUF16(p, 0) + (size_t)t->bid[0] * cols, *w = BUF16(p, 1);
	uint16_t *y = BUF16(p, 2) + (size_t)t->bid[0] * cols;
	float *sq, r;

	if (first_thread(t)) {
		sq = sc_xmalloc((size_t)cols * sizeof(float));
		for (int c = 0; c < cols; c++)
			sq[c] = acc16 ? h16((double)bf(x[c]) * bf(x[c])) : bf(x[c]) * bf(x[c]);
		r = 1.0f / sqrtf(block_sum(sq, cols, acc16) / (float)cols + 1e-6f);
		for (int c = 0; c < cols; c++)
			y[c] = round_toward_zero ? to_bf_rz(bf(x[c]) * r * bf(w[c])) : to_bf(bf(x[c]) * r * bf(w[c]));
		free(sq);
	}
}

static void rmsnorm_good(const struct sc_cpu_thread *t, void **p) { rmsnorm_row(t, p, false); }
static void rmsnorm_fp16(const struct sc_cpu_thread *t, void **p) { rmsnorm_row(t, p, true); }

/* ---- adaln-bf16: x, scale, shift, y, batch, tokens, dim; grid (batch*tokens) ---- */

static void adaln_row(const struct sc_cpu_thread *t, void **p, bool acc16)
{
	int tokens = INT(p, 5), dim = INT(p, 6);
	size_t row = t->bid[0], b = row / (size_t)tokens;
	const uint16_t *x = BUF16(p, 0) + row * dim, *sc = BUF16(p, 1) + b * dim, *sh = BUF16(p, 2) + b * dim;
	uint16_t *y = BUF16(p, 3) + row * dim;
	float *v, mean, rstd;

	if (first_thread(t)) {
		v = sc_xmalloc((size_t)dim * sizeof(float));
		for (int c = 0; c < dim; c++)
			v[c] = bf(x[c]);
		mean = block_sum(v, dim, acc16) / (float)dim;
		for (int c = 0; c < dim; c++)
			v[c] = (bf(x[c]) - mean) * (bf(x[c]) - mean);
		rstd = 1.0f / sqrtf(block_sum(v, dim, acc16) / (float)dim + 1e-6f);
		for (int c = 0; c < dim; c++)
			y[c] = to_bf((bf(x[c]) - mean) * rstd * (1.0f + bf(sc[c])) + bf(sh[c]));
		free(v);
	}
}

static void adaln_good(const struct sc_cpu_thread *t, void **p) { adaln_row(t, p, false); }

/* diffusers' eager bfloat16 AdaLN: the layer norm in float32 rounded to
 * bfloat16, then (1 + scale), the product and the sum each rounded */
static void adaln_eager(const struct sc_cpu_thread *t, void **p)
{
	int tokens = INT(p, 5), dim = INT(p, 6);
	size_t row = t->bid[0], b = row / (size_t)tokens;
	const uint16_t *x = BUF16(p, 0) + row * dim, *sc = BUF16(p, 1) + b * dim, *sh = BUF16(p, 2) + b * dim;
	uint16_t *y = BUF16(p, 3) + row * dim;
	float *v, mean, rstd;

	if (!first_thread(t))
		return;
	v = sc_xmalloc((size_t)dim * sizeof(float));
	for (int c = 0; c < dim; c++)
		v[c] = bf(x[c]);
	mean = block_sum(v, dim, false) / (float)dim;
	for (int c = 0; c < dim; c++)
		v[c] = (bf(x[c]) - mean) * (bf(x[c]) - mean);
	rstd = 1.0f / sqrtf(block_sum(v, dim, false) / (float)dim + 1e-6f);
	for (int c = 0; c < dim; c++) {
		float n = bf(to_bf((bf(x[c]) - mean) * rstd));
		float one_plus = bf(to_bf(1.0f + bf(sc[c])));
		y[c] = to_bf(bf(to_bf(n * one_plus)) + bf(sh[c]));
	}
	free(v);
}
static void adaln_fp16(const struct sc_cpu_thread *t, void **p) { adaln_row(t, p, true); }

/* ---- rope-bf16: x, cos, sin, y, batch, seq, heads, hd; one pair per thread (ELEMS 2);
 * the tables are (seq, hd), one entry per element ---- */

static void rope_pair(const struct sc_cpu_thread *t, void **p, bool half_tables)
{
	size_t pair = (size_t)t->bid[0] * t->block[0] + t->tid[0];
	int seq = INT(p, 5), heads = INT(p, 6), hd = INT(p, 7);
	size_t npairs = (size_t)INT(p, 4) * seq * heads * hd / 2;
	const uint16_t *x = BUF16(p, 0);
	const float *cs = BUF32(p, 1), *sn = BUF32(p, 2);
	uint16_t *y = BUF16(p, 3);
	size_t i, s, e0, e1;
	float x0, x1;

	if (pair >= npairs)
		return;
	i = pair % (size_t)(hd / 2);
	s = pair / (size_t)(hd / 2) / (size_t)heads % (size_t)seq;
	/* version 1's (seq, hd/2) tables: one entry per pair */
	e0 = half_tables ? s * (size_t)(hd / 2) + i : s * (size_t)hd + 2 * i;
	e1 = half_tables ? e0 : e0 + 1;
	x0 = bf(x[2 * pair]);
	x1 = bf(x[2 * pair + 1]);
	y[2 * pair] = to_bf(x0 * cs[e0] - x1 * sn[e0]);
	y[2 * pair + 1] = to_bf(x1 * cs[e1] + x0 * sn[e1]);
}

static void rope_good(const struct sc_cpu_thread *t, void **p) { rope_pair(t, p, false); }
static void rope_half_tables(const struct sc_cpu_thread *t, void **p) { rope_pair(t, p, true); }

/* ---- geglu-bf16: h, y, rows, cols; one output per thread (ELEMS 1) ---- */

static void geglu_good(const struct sc_cpu_thread *t, void **p)
{
	size_t i = (size_t)t->bid[0] * t->block[0] + t->tid[0];
	int rows = INT(p, 2), cols = INT(p, 3);
	size_t r, c;
	float v, g;

	if (i >= (size_t)rows * cols)
		return;
	r = i / (size_t)cols;
	c = i % (size_t)cols;
	v = bf(BUF16(p, 0)[r * 2 * cols + c]);
	g = bf(BUF16(p, 0)[r * 2 * cols + cols + c]);
	BUF16(p, 1)[i] = to_bf(v * (0.5f * g * (1.0f + erff(g * 0.70710678f))));
}

/* ---- gemm-bf16: x, W, bias, y, M, N, K (nn.Linear: y = x W^T + b, W is N x K);
 * grid (N/16, M/16), thread 0 does the tile ---- */

static void gemm_tile(const struct sc_cpu_thread *t, void **p, bool acc16)
{
	int M = INT(p, 4), N = INT(p, 5), K = INT(p, 6);
	const uint16_t *A = BUF16(p, 0), *W = BUF16(p, 1), *b = BUF16(p, 2);
	uint16_t *C = BUF16(p, 3);

	if (!first_thread(t))
		return;
	for (int m = (int)t->bid[1] * 16; m < M && m < (int)t->bid[1] * 16 + 16; m++)
		for (int n = (int)t->bid[0] * 16; n < N && n < (int)t->bid[0] * 16 + 16; n++) {
			float acc = 0;
			/* K steps of 16 as a tensor-core MMA takes them; the products
			 * of two bfloat16 values are exact in float32 */
			for (int k0 = 0; k0 < K; k0 += 16) {
				float part = 0;
				for (int k = k0; k < K && k < k0 + 16; k++)
					part += bf(A[(size_t)m * K + k]) * bf(W[(size_t)n * K + k]);
				acc = acc16 ? h16((double)acc + part) : acc + part;
			}
			/* the bias epilogue in float32, one rounding */
			C[(size_t)m * N + n] = to_bf(acc + bf(b[n]));
		}
}

static void gemm_good(const struct sc_cpu_thread *t, void **p) { gemm_tile(t, p, false); }
static void gemm_fp16(const struct sc_cpu_thread *t, void **p) { gemm_tile(t, p, true); }

/* ---- attention-bf16: q, k, v, o, s, batch, heads, q_len, k_len, hd, causal;
 * grid (q_len/BM, batch*heads); q, o (batch, q_len, heads, hd), k, v
 * (batch, k_len, heads, hd); causal bottom-right aligned ----
 * A flash kernel's arithmetic per query row: key tiles of 64, scores in
 * float32, an online softmax, P rounded to bfloat16 for the P·V product,
 * the row sum from the float32 P, float32 (or float16) accumulators.
 * ATTN_TOP_LEFT aligns the causal mask top-left (j <= i); ATTN_QSCALE
 * rounds q·scale to bfloat16 before the dot, as PyTorch's math backend
 * scales its bfloat16 inputs. */

enum attn_mode { ATTN_GOOD, ATTN_FP16, ATTN_UNSAFE, ATTN_TOP_LEFT, ATTN_QSCALE };
#define ATTN_BM 4

static void attention_rows(const struct sc_cpu_thread *t, void **p, enum attn_mode mode)
{
	int heads = INT(p, 6), q_len = INT(p, 7), k_len = INT(p, 8), hd = INT(p, 9), causal = INT(p, 10);
	size_t b = t->bid[1] / (size_t)heads, h = t->bid[1] % (size_t)heads, rs = (size_t)heads * hd;
	float scale = 1.0f / sqrtf((float)hd), acc[128], qv[128];

	if (!first_thread(t))
		return;
	for (int i = (int)t->bid[0] * ATTN_BM; i < q_len && i < (int)t->bid[0] * ATTN_BM + ATTN_BM; i++) {
		const uint16_t *q = BUF16(p, 0) + (b * q_len + i) * rs + h * hd;
		int nk = causal ? (mode == ATTN_TOP_LEFT ? i + 1 : i + 1 + k_len - q_len) : k_len;
		float m = mode == ATTN_UNSAFE ? 0 : -INFINITY, l = 0;

		if (nk > k_len)
			nk = k_len;
		for (int d = 0; d < hd; d++) {
			acc[d] = 0;
			qv[d] = mode == ATTN_QSCALE ? bf(to_bf(bf(q[d]) * scale)) : bf(q[d]);
		}
		for (int j0 = 0; j0 < nk; j0 += 64) {
			float s[64], tm = m, alpha;
			int jn = nk - j0 < 64 ? nk - j0 : 64;
			for (int j = 0; j < jn; j++) {
				const uint16_t *k = BUF16(p, 1) + (b * k_len + j0 + j) * rs + h * hd;
				float dot = 0;
				for (int d = 0; d < hd; d++)
					dot += qv[d] * bf(k[d]);
				s[j] = mode == ATTN_QSCALE ? dot : dot * scale;
				if (mode != ATTN_UNSAFE)
					tm = fmaxf(tm, s[j]);
			}
			alpha = expf(m - tm);  /* exp(-inf) = 0 on the first tile */
			if (mode == ATTN_UNSAFE)
				alpha = 1;
			l *= alpha;
			for (int d = 0; d < hd; d++)
				acc[d] *= alpha;
			for (int j = 0; j < jn; j++) {
				const uint16_t *v = BUF16(p, 2) + (b * k_len + j0 + j) * rs + h * hd;
				float e = expf(s[j] - tm), pb = bf(to_bf(e));
				l = mode == ATTN_FP16 ? h16((double)l + e) : l + e;
				for (int d = 0; d < hd; d++)
					acc[d] = mode == ATTN_FP16 ? h16((double)acc[d] + (double)pb * bf(v[d]))
								   : acc[d] + pb * bf(v[d]);
			}
			m = tm;
		}
		for (int d = 0; d < hd; d++)
			BUF16(p, 3)[(b * q_len + i) * rs + h * hd + d] = to_bf(nk > 0 ? acc[d] / l : 0.0f);
	}
}

static void attention_good(const struct sc_cpu_thread *t, void **p) { attention_rows(t, p, ATTN_GOOD); }
static void attention_fp16(const struct sc_cpu_thread *t, void **p) { attention_rows(t, p, ATTN_FP16); }
static void attention_unsafe(const struct sc_cpu_thread *t, void **p) { attention_rows(t, p, ATTN_UNSAFE); }
static void attention_top_left(const struct sc_cpu_thread *t, void **p) { attention_rows(t, p, ATTN_TOP_LEFT); }
static void attention_qscale(const struct sc_cpu_thread *t, void **p) { attention_rows(t, p, ATTN_QSCALE); }

/* When not NaN, replace the spec's tolerance fields of that name (to show
 * that a check is what catches a kernel). */
static double override_max_mean_signed_error = NAN, override_terms_rtol = NAN;

/* Runs fn on fixture name's correctness sizes (only size number only, when
 * it is not SIZE_MAX) with the given tunables (the rest at their defaults). */
static struct sc_check_result check(const char *name, sc_cpu_kernel_fn fn, const int64_t *tun, size_t ntun,
				    size_t only)
{
	struct sc_buf path = SC_BUF_INIT;
	struct sc_spec spec;
	struct sc_device *dev = sc_device_cpu_new();
	struct sc_kernel_handle k;
	struct sc_check_opts o = { .nseeds = 5, .seed_base = 1, .timeout_ms = 1000 };
	struct sc_check_result r;
	sc_ref_fn ref = sc_ref_lookup(name);

	assert_non_null(ref);
	sc_buf_printf(&path, "fixtures/%s/spec.json", name);
	if (sc_spec_load(&spec, path.ptr) < 0)
		fail_msg("%s", sc_error_last());
	if (only != SIZE_MAX) {
		assert_true(only < spec.ncorrectness);
		spec.correctness[0] = spec.correctness[only];
		spec.ncorrectness = 1;
	}
	if (!isnan(override_max_mean_signed_error))
		spec.max_mean_signed_error = override_max_mean_signed_error;
	if (!isnan(override_terms_rtol))
		spec.terms_rtol = override_terms_rtol;
	sc_device_cpu_register(dev, "k", fn, NULL, 0);
	memset(&k, 0, sizeof(k));
	assert_int_equal(dev->load(dev, "k", 1, spec.entry, &k.fn), 0);
	for (size_t i = 0; i < spec.ntunables; i++)
		k.tun.v[i] = i < ntun ? tun[i] : spec.tunables[i].def;
	assert_int_equal(sc_harness_check(&r, dev, &spec, &k, ref, &o), 0);
	dev->close(dev);
	sc_spec_release(&spec);
	sc_buf_release(&path);
	return r;
}

/* A correct kernel passes every size with its worst error at most
 * max_ratio of the tolerance (the margin); prints the measured ratio. */
static void expect_pass(const char *name, sc_cpu_kernel_fn fn, const int64_t *tun, size_t ntun, double max_ratio)
{
	struct sc_check_result r = check(name, fn, tun, ntun, SIZE_MAX);

	if (!r.ok)
		fail_msg("%s: a correct float32-accumulating kernel failed: %s", name, r.message);
	print_message("# %-15s correct fp32 kernel: worst error %.3f of the tolerance (element %zu, size %zu, distribution %zu)\n",
		      name, r.max_ratio, r.worst.index, r.worst.size_index, r.worst.dist);
	assert_true(r.max_ratio <= max_ratio);
}

/* A wrong kernel fails with a mismatch (on size only, or on the first
 * size that shows it); prints where. */
static void expect_mismatch(const char *name, const char *what, sc_cpu_kernel_fn fn, const int64_t *tun,
			    size_t ntun, size_t only)
{
	struct sc_check_result r = check(name, fn, tun, ntun, only);

	if (r.ok)
		fail_msg("%s: %s passed (worst error %.3f of the tolerance)", name, what, r.max_ratio);
	assert_int_equal(r.reason, SC_REASON_MISMATCH);
	print_message("# %-15s %s: fails: %s\n", name, what, r.message);
}

static void test_softmax_bf16(void **state)
{
	struct sc_check_result r;
	(void)state;
	expect_pass("softmax-bf16", softmax_good, NULL, 0, 0.55);
	/* 2 x 128256 (a vocabulary): 4008 float16 terms per lane */
	expect_mismatch("softmax-bf16", "float16 sums, a warp per row", softmax_fp16, NULL, 0, 4);
	expect_mismatch("softmax-bf16", "no max subtracted", softmax_unsafe, NULL, 0, SIZE_MAX);
	/* Measured, not asserted: 256 float16 partial sums of at most 501
	 * terms, then a float16 tree, stay within the bfloat16 tolerance. */
	r = check("softmax-bf16", softmax_fp16_block, NULL, 0, SIZE_MAX);
	print_message("# %-15s float16 sums, a block of 256 per row: %s, worst error %.3f of the tolerance\n",
		      "softmax-bf16", r.ok ? "passes" : "fails", r.max_ratio);
}

static void test_rmsnorm_bf16(void **state)
{
	(void)state;
	expect_pass("rmsnorm-bf16", rmsnorm_good, NULL, 0, 0.55);
	/* normal(0, 1000) overflows float16 at once; uniform(-4, 4) at 2 x 16384 */
	expect_mismatch("rmsnorm-bf16", "float16 sum of squares", rmsnorm_fp16, NULL, 0, SIZE_MAX);
	expect_mismatch("rmsnorm-bf16", "float16 sum of squares", rmsnorm_fp16, NULL, 0, 5);
}

/* Rounding toward zero keeps every element within one bfloat16 ulp: only
 * the spec's max_mean_signed_error sees it, and without that field the
 * same kernel passes. */
static void test_rmsnorm_bf16_round_toward_zero(void **state)
{
	struct sc_check_result r;
	(void)state;
	round_toward_zero = true;
	r = check("rmsnorm-bf16", rmsnorm_good, NULL, 0, SIZE_MAX);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_MISMATCH);
	assert_int_equal(r.worst.nbad, 0);
	assert_non_null(strstr(r.message, "biased result: 'y' errs toward zero"));
	print_message("# %-15s rounded toward zero: fails: %s\n", "rmsnorm-bf16", r.message);
	override_max_mean_signed_error = -1;
	r = check("rmsnorm-bf16", rmsnorm_good, NULL, 0, SIZE_MAX);
	override_max_mean_signed_error = NAN;
	round_toward_zero = false;
	if (!r.ok)
		fail_msg("without max_mean_signed_error, rounding toward zero should pass the elementwise tolerance: %s", r.message);
	print_message("# %-15s rounded toward zero, no mean-signed-error check: passes at %.3f of the tolerance\n",
		      "rmsnorm-bf16", r.max_ratio);
}

/* diffusers' eager bfloat16 output passes with the reference's sum of
 * |terms| behind the tolerance (terms_rtol), and fails without it where
 * n * (1 + scale) and shift cancel. */
static void test_adaln_bf16_eager_library_numerics(void **state)
{
	struct sc_check_result r;
	(void)state;
	expect_pass("adaln-bf16", adaln_eager, NULL, 0, 0.9);
	override_terms_rtol = 0;
	r = check("adaln-bf16", adaln_eager, NULL, 0, SIZE_MAX);
	override_terms_rtol = NAN;
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_MISMATCH);
	print_message("# %-15s eager bfloat16 without terms_rtol: fails: %s\n", "adaln-bf16", r.message);
}

static void test_adaln_bf16(void **state)
{
	(void)state;
	expect_pass("adaln-bf16", adaln_good, NULL, 0, 0.55);
	expect_mismatch("adaln-bf16", "float16 mean and variance", adaln_fp16, NULL, 0, SIZE_MAX);
	expect_mismatch("adaln-bf16", "float16 mean and variance", adaln_fp16, NULL, 0, 5);
}

static void test_rope_bf16(void **state)
{
	const int64_t tun[] = { 256, 2 };
	(void)state;
	expect_pass("rope-bf16", rope_good, tun, 2, 0.55);
	expect_mismatch("rope-bf16", "tables read as (seq, hd/2)", rope_half_tables, tun, 2, SIZE_MAX);
}

static void test_geglu_bf16(void **state)
{
	const int64_t tun[] = { 256, 1 };
	(void)state;
	expect_pass("geglu-bf16", geglu_good, tun, 2, 0.55);
}

static void test_gemm_bf16(void **state)
{
	(void)state;
	expect_pass("gemm-bf16", gemm_good, NULL, 0, 0.55);
	expect_mismatch("gemm-bf16", "float16 accumulation", gemm_fp16, NULL, 0, SIZE_MAX);
	/* K = 1000 (decode, M = 1), K = 4097 (M = 16) and K = 1000 (M = 129) */
	expect_mismatch("gemm-bf16", "float16 accumulation", gemm_fp16, NULL, 0, 2);
	expect_mismatch("gemm-bf16", "float16 accumulation", gemm_fp16, NULL, 0, 5);
	expect_mismatch("gemm-bf16", "float16 accumulation", gemm_fp16, NULL, 0, 8);
}

static void test_attention_bf16(void **state)
{
	const int64_t tun[] = { ATTN_BM, 128 };
	struct sc_check_result r;
	(void)state;
	expect_pass("attention-bf16", attention_good, tun, 2, 0.75);
	expect_mismatch("attention-bf16", "float16 accumulators", attention_fp16, tun, 2, SIZE_MAX);
	expect_mismatch("attention-bf16", "float16 accumulators", attention_fp16, tun, 2, 7);  /* 600 keys */
	/* a decode step (1 query, 333 keys) and a chunk (33 queries, 300 keys) */
	expect_mismatch("attention-bf16", "causal mask top-left aligned", attention_top_left, tun, 2, 1);
	expect_mismatch("attention-bf16", "causal mask top-left aligned", attention_top_left, tun, 2, 5);
	/* Measured, not asserted: at QK-norm scale neither the bfloat16 q·scale
	 * nor an exponential without the maximum is told apart. */
	r = check("attention-bf16", attention_qscale, tun, 2, SIZE_MAX);
	print_message("# %-15s q*scale rounded to bfloat16: %s, worst error %.3f of the tolerance\n", "attention-bf16",
		      r.ok ? "passes" : "fails", r.max_ratio);
	r = check("attention-bf16", attention_unsafe, tun, 2, SIZE_MAX);
	print_message("# %-15s no max subtracted: %s, worst error %.3f of the tolerance\n", "attention-bf16",
		      r.ok ? "passes" : "fails", r.max_ratio);
}

/* ---- the roofline of a tensor-core fixture ----
 * The CPU double's peaks: 1000 GB/s, 1000 GFLOP/s fp32, 8000 TF32 and
 * 16000 bf16 on tensor cores. At M = N = K = 64 the gemm-bf16 work
 * (524,288 flops, 24,704 bytes with the bias) takes at least 32.768 ns at the bf16
 * tensor peak (65.536 ns at the TF32 one, 524 ns on fp32 cores). The
 * kernels copy x into y (both sides alike, and no constant, which the
 * checks of timed launches would refuse): only the clock matters here. */

static void gemm_copy(const struct sc_cpu_thread *t, void **p)
{
	int M = INT(p, 4), N = INT(p, 5), K = INT(p, 6);
	if (first_thread(t))
		for (int m = (int)t->bid[1] * 16; m < M && m < (int)t->bid[1] * 16 + 16; m++)
			for (int n = (int)t->bid[0] * 16; n < N && n < (int)t->bid[0] * 16 + 16; n++)
				BUF16(p, 3)[(size_t)m * N + n] = BUF16(p, 0)[(size_t)m * K + n % K];
}

static int64_t cost_100us(void **p, unsigned n) { (void)p; (void)n; return 100000; }
static int64_t cost_50ns(void **p, unsigned n) { (void)p; (void)n; return 50; }   /* 65.5% of the bf16 peak */
static int64_t cost_20ns(void **p, unsigned n) { (void)p; (void)n; return 20; }   /* 164% */

static struct sc_timing_result time_gemm(sc_cpu_cost_fn cost, enum sc_peak peak)
{
	struct sc_spec spec;
	struct sc_device *dev = sc_device_cpu_new(), *bdev = NULL;
	struct sc_kernel_handle c, b;
	struct sc_timing_opts_run o = { .timeout_ms = 1000, .check_every = 2 };
	struct sc_timing_result r;

	assert_int_equal(sc_spec_load(&spec, "fixtures/gemm-bf16/spec.json"), 0);
	assert_int_equal(spec.peak, SC_PEAK_TENSOR);
	spec.peak = peak;
	spec.timing.v[0] = spec.timing.v[1] = spec.timing.v[2] = 64;
	sc_device_cpu_register(dev, "cand", gemm_copy, cost, 0);
	sc_device_cpu_register(dev, "base", gemm_copy, cost_100us, 0);
	assert_int_equal(dev->open_sibling(dev, &bdev), 0);
	memset(&c, 0, sizeof(c));
	memset(&b, 0, sizeof(b));
	assert_int_equal(dev->load(dev, "cand", 4, spec.entry, &c.fn), 0);
	assert_int_equal(bdev->load(bdev, "base", 4, spec.entry, &b.fn), 0);
	for (size_t i = 0; i < spec.ntunables; i++)
		c.tun.v[i] = b.tun.v[i] = spec.tunables[i].def;
	assert_int_equal(sc_harness_time(&r, dev, bdev, &spec, &c, &b, &o), 0);
	bdev->close(bdev);
	dev->close(dev);
	sc_spec_release(&spec);
	return r;
}

static void test_roofline_tensor_peak(void **state)
{
	struct sc_timing_result r;
	(void)state;

	/* A tensor-core kernel at 65% of the bf16 peak: 2000x, under the 3052x ceiling. */
	r = time_gemm(cost_50ns, SC_PEAK_TENSOR);
	if (!r.ok)
		fail_msg("%s", r.message);
	assert_true(fabs(r.speedup - 100000.0 / 50) < 1e-6);
	assert_true(fabs(r.ceiling - 100000.0 / 32.768) < 1e-3);
	assert_true(fabs(r.pct_peak - 100.0 * 32.768 / 50) < 1e-6);
	assert_true(fabs(r.cand_gflops - 524288.0 / 50) < 1e-6);
	assert_false(r.suspect);
	assert_false(r.beyond_fp32);  /* no fp32 note on a tensor fixture */

	/* On an fp32 fixture the same time is above what TF32 tensor cores allow. */
	r = time_gemm(cost_50ns, SC_PEAK_FP32);
	assert_true(r.suspect);
	assert_true(fabs(r.ceiling - 100000.0 / 65.536) < 1e-3);
	assert_non_null(strstr(r.suspect_why, "roofline"));

	/* Faster than the bf16 tensor peak allows: flagged on a tensor fixture too. */
	r = time_gemm(cost_20ns, SC_PEAK_TENSOR);
	assert_true(r.suspect);
	assert_true(r.speedup > r.ceiling);
	assert_true(r.pct_peak > 100);
	assert_non_null(strstr(r.suspect_why, "roofline"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_softmax_bf16),
		cmocka_unit_test(test_rmsnorm_bf16),
		cmocka_unit_test(test_adaln_bf16),
		cmocka_unit_test(test_rmsnorm_bf16_round_toward_zero),
		cmocka_unit_test(test_adaln_bf16_eager_library_numerics),
		cmocka_unit_test(test_rope_bf16),
		cmocka_unit_test(test_geglu_bf16),
		cmocka_unit_test(test_gemm_bf16),
		cmocka_unit_test(test_attention_bf16),
		cmocka_unit_test(test_roofline_tensor_peak),
	};
	return cmocka_run_group_tests_name("kernel_bf16_fixtures", tests, NULL, NULL);
}
