/*
 * The kernel harness on the CPU double: comparison, NaN poison, guard
 * canaries, input checksums, near-constant rejection, timing statistics,
 * speedup arithmetic, the host-clock cross-check, the roofline ceiling and
 * re-validation after timing. Kernels here are C functions run per thread
 * on the softmax fixture's spec and CPU reference.
 */
#include "unit.h"
#include "device.h"
#include "half.h"
#include "harness.h"
#include "refs.h"
#include "spec.h"

#include <math.h>

static struct sc_spec spec;
static sc_ref_fn ref;

/* ---- CPU "kernels" for softmax(x, y, rows, cols); grid (rows), block (BLOCK) ---- */

#define X(p) ((float *)(uintptr_t)*(uint64_t *)(p)[0])
#define Y(p) ((float *)(uintptr_t)*(uint64_t *)(p)[1])
#define ROWS(p) (*(int *)(p)[2])
#define COLS(p) (*(int *)(p)[3])

static float scale_after = 1.0f;  /* for the 0.99x kernel */

/* Thread (row, t) writes columns t, t+B, ...; safe=false skips the max. */
static void softmax_row(const struct sc_cpu_thread *t, void **p, float scale, bool safe)
{
	const float *x = X(p) + (size_t)t->bid[0] * (size_t)COLS(p);
	float *y = Y(p) + (size_t)t->bid[0] * (size_t)COLS(p);
	float m = safe ? -INFINITY : 0.0f, s = 0;
	int cols = COLS(p);

	if (safe)
		for (int c = 0; c < cols; c++)
			m = fmaxf(m, x[c]);
	for (int c = 0; c < cols; c++)
		s += expf(x[c] - m);
	for (int c = (int)t->tid[0]; c < cols; c += (int)t->block[0])
		y[c] = scale * expf(x[c] - m) / s;
}

static void k_good(const struct sc_cpu_thread *t, void **p) { softmax_row(t, p, 1.0f, true); }
static void k_scaled(const struct sc_cpu_thread *t, void **p) { softmax_row(t, p, scale_after, true); }
static void k_unsafe(const struct sc_cpu_thread *t, void **p) { softmax_row(t, p, 1.0f, false); }
static void k_noop(const struct sc_cpu_thread *t, void **p) { (void)t; (void)p; }

static void k_zero_inputs(const struct sc_cpu_thread *t, void **p)
{
	softmax_row(t, p, 1.0f, true);
	/* the last thread of the row zeroes it after everyone has read it */
	if (t->tid[0] == t->block[0] - 1)
		memset(X(p) + (size_t)t->bid[0] * (size_t)COLS(p), 0, (size_t)COLS(p) * sizeof(float));
}

static void k_oob(const struct sc_cpu_thread *t, void **p)
{
	softmax_row(t, p, 1.0f, true);
	if (t->bid[0] == 0 && t->tid[0] == 0)
		Y(p)[(size_t)ROWS(p) * (size_t)COLS(p) + 3] = 1.0f;
}

/* Correct for the first 45 launches, then half the answer. */
static void k_first_calls(const struct sc_cpu_thread *t, void **p)
{
	softmax_row(t, p, t->launch_index < 45 ? 1.0f : 0.5f, true);
}

/* ---- cheats for the checks during and after timing (timing size 8 x 64) ---- */

static bool at_timing_size(void **p) { return ROWS(p) == 8 && COLS(p) == 64; }

/*
 * A cache keyed by the input pointer, kept in a "__device__" table (state
 * of the loaded module): at the timing size a pointer seen before gets the
 * output stored for it instead of a computation.
 */
struct ptr_cache { uint64_t x; unsigned load; float y[8 * 64]; bool full; };
static struct ptr_cache pcache[8];

static void k_pointer_cache(const struct sc_cpu_thread *t, void **p)
{
	uint64_t x = *(uint64_t *)p[0];
	size_t row = t->bid[0], cols = (size_t)COLS(p);
	struct ptr_cache *c = NULL;

	if (!at_timing_size(p)) {
		softmax_row(t, p, 1.0f, true);
		return;
	}
	for (int i = 0; i < 8 && !c; i++)
		if (pcache[i].x == x && pcache[i].load == t->load_index && pcache[i].full)
			c = &pcache[i];
	if (c) {
		if (t->tid[0] == 0)
			memcpy(Y(p) + row * cols, c->y + row * cols, cols * sizeof(float));
		return;
	}
	softmax_row(t, p, 1.0f, true);
	if (t->tid[0] == t->block[0] - 1) {
		struct ptr_cache *slot = &pcache[0];
		for (int i = 0; i < 8; i++)
			if ((pcache[i].x == x && pcache[i].load == t->load_index) || !pcache[i].x) {
				slot = &pcache[i];
				break;
			}
		if (slot->x != x || slot->load != t->load_index)
			*slot = (struct ptr_cache){ x, t->load_index, { 0 }, false };
		memcpy(slot->y + row * cols, Y(p) + row * cols, cols * sizeof(float));
		if (row == t->grid[0] - 1)
			slot->full = true;
	}
}

/* Hides a marker in the lowest mantissa bit of its input at the timing
 * size: results stay within tolerance, the input does not stay the same. */
static void k_input_cache(const struct sc_cpu_thread *t, void **p)
{
	softmax_row(t, p, 1.0f, true);
	if (at_timing_size(p) && t->tid[0] == t->block[0] - 1) {
		uint32_t bits;
		float *x = X(p) + (size_t)t->bid[0] * (size_t)COLS(p);
		memcpy(&bits, x, 4);
		bits |= 1;
		memcpy(x, &bits, 4);
	}
}

/* Records the buffers each side is given; the candidate also writes into
 * the baseline's input when it learns where it is (one shared address
 * space in the double, as one CUDA context would be). */
static uint64_t base_seen[64], cand_seen[64];
static size_t nbase_seen, ncand_seen;
static struct sc_device *owner_cand, *owner_base;
static int misplaced;  /* buffers seen on the wrong side, checked at each launch */
static void k_base_recording(const struct sc_cpu_thread *t, void **p)
{
	softmax_row(t, p, 1.0f, true);
	if (owner_base && t->bid[0] == 0 && t->tid[0] == 0)
		for (int i = 0; i < 2; i++)
			misplaced += !sc_device_cpu_owns(owner_base, *(uint64_t *)p[i]) ||
				     sc_device_cpu_owns(owner_cand, *(uint64_t *)p[i]);
	if (t->bid[0] == 0 && t->tid[0] == 0 && nbase_seen < 64) {
		base_seen[nbase_seen++] = *(uint64_t *)p[0];
		base_seen[nbase_seen++] = *(uint64_t *)p[1];
	}
}

static bool tamper;
static void k_cand_recording(const struct sc_cpu_thread *t, void **p)
{
	softmax_row(t, p, 1.0f, true);
	if (t->bid[0] == 0 && t->tid[0] == 0 && ncand_seen < 64) {
		cand_seen[ncand_seen++] = *(uint64_t *)p[0];
		cand_seen[ncand_seen++] = *(uint64_t *)p[1];
	}
	if (owner_base && t->bid[0] == 0 && t->tid[0] == 0)
		for (int i = 0; i < 2; i++)
			misplaced += sc_device_cpu_owns(owner_base, *(uint64_t *)p[i]) ||
				     !sc_device_cpu_owns(owner_cand, *(uint64_t *)p[i]);
	if (tamper && at_timing_size(p) && nbase_seen && t->bid[0] == 0 && t->tid[0] == 0)
		((float *)(uintptr_t)base_seen[0])[5] = 0.0f;  /* the baseline's x */
}

/* Correct, except on the first launch of a freshly reloaded module. */
static void k_fresh_trap(const struct sc_cpu_thread *t, void **p)
{
	softmax_row(t, p, t->load_index > 0 && t->launch_index == 0 ? 0.5f : 1.0f, true);
}

/* Hashes the x it sees on its first timing-size launch. */
static uint64_t first_x_hash;
static bool first_x_seen;
static void k_hash_inputs(const struct sc_cpu_thread *t, void **p)
{
	softmax_row(t, p, 1.0f, true);
	if (at_timing_size(p) && !first_x_seen && t->bid[0] == 0 && t->tid[0] == 0) {
		const unsigned char *x = (const unsigned char *)X(p);
		uint64_t h = 1469598103934665603ULL;
		for (size_t i = 0; i < 8 * 64 * 4; i++)
			h = (h ^ x[i]) * 1099511628211ULL;
		first_x_hash = h;
		first_x_seen = true;
	}
}


/* ---- cheats against every timed launch doing its work ---- */

/* Returns at once on every other launch at the timing size: no state
 * beyond the launch count (what a __device__ counter gives). */
static void k_skip_alternate(const struct sc_cpu_thread *t, void **p)
{
	if (at_timing_size(p) && t->launch_index % 2)
		return;
	softmax_row(t, p, 1.0f, true);
}

/* Honest on the warm-up (its first 5 launches), then returns at once on
 * every other launch: the bursts. */
static void k_skip_in_bursts(const struct sc_cpu_thread *t, void **p)
{
	if (at_timing_size(p) && t->launch_index >= 5 && t->launch_index % 2)
		return;
	softmax_row(t, p, 1.0f, true);
}

/* Wrong on its first three launches at the timing size (the warm-up). */
static void k_bad_warmup(const struct sc_cpu_thread *t, void **p)
{
	softmax_row(t, p, at_timing_size(p) && t->launch_index < 3 ? 0.5f : 1.0f, true);
}

/* Looks short on the warm-up: 1 ns for its first launches at the timing
 * size, 2 ms later (the burst decision must not follow it). */
static int64_t cost_fast_warmup(void **p, unsigned n) { (void)p; return n < 45 ? 1 : 2000000; }

/* Records, per timing-size launch, its x pointer and a hash of x. */
static uint64_t seen_x[4096], seen_hash[4096];
static size_t nseen;
static void k_record_inputs(const struct sc_cpu_thread *t, void **p)
{
	softmax_row(t, p, 1.0f, true);
	if (at_timing_size(p) && t->bid[0] == 0 && t->tid[0] == 0 && nseen < 4096) {
		const unsigned char *x = (const unsigned char *)X(p);
		uint64_t h = 1469598103934665603ULL;
		for (size_t i = 0; i < 8 * 64 * 4; i++)
			h = (h ^ x[i]) * 1099511628211ULL;
		seen_x[nseen] = *(uint64_t *)p[0];
		seen_hash[nseen++] = h;
	}
}

/* An input-verifying incremental cache: keeps a copy of x and y, compares
 * x in full and recomputes only the rows that changed; its declared cost
 * is 1 ms times the share of rows recomputed. */
static float inc_x[8 * 64], inc_y[8 * 64];
static bool inc_valid;
static size_t inc_changed;  /* rows recomputed by the last launch */
static void k_incremental(const struct sc_cpu_thread *t, void **p)
{
	size_t row = t->bid[0], cols = (size_t)COLS(p);
	const float *x = X(p) + row * cols;
	if (!at_timing_size(p)) {
		softmax_row(t, p, 1.0f, true);
		return;
	}
	if (row == 0 && t->tid[0] == 0)
		inc_changed = 0;
	if (inc_valid && !memcmp(inc_x + row * cols, x, cols * sizeof(float))) {
		if (t->tid[0] == 0)
			memcpy(Y(p) + row * cols, inc_y + row * cols, cols * sizeof(float));
	} else {
		softmax_row(t, p, 1.0f, true);
		if (t->tid[0] == t->block[0] - 1) {
			memcpy(inc_x + row * cols, x, cols * sizeof(float));
			memcpy(inc_y + row * cols, Y(p) + row * cols, cols * sizeof(float));
			inc_changed++;
		}
	}
	if (row == t->grid[0] - 1 && t->tid[0] == t->block[0] - 1)
		inc_valid = true;
}
static int64_t cost_incremental(void **p, unsigned n)
{
	(void)n;
	if (!at_timing_size(p))
		return 1000000;
	return (int64_t)(1000000 * inc_changed / 8);
}

/* The reference is computed only after the candidate's launch: the
 * kernel marks each launch, the reference checks and clears the mark. */
static bool launched_since_ref;
static int ref_before_launch;
static size_t ref_calls;
static void k_marks_launch(const struct sc_cpu_thread *t, void **p)
{
	softmax_row(t, p, 1.0f, true);
	launched_since_ref = true;
}
static void ref_after_launch(const struct sc_ref_args *a)
{
	ref_before_launch += !launched_since_ref;
	launched_since_ref = false;
	ref_calls++;
	ref(a);
}

static int64_t cost_2ms(void **p, unsigned n) { (void)p; (void)n; return 2000000; }
static int64_t cost_5us(void **p, unsigned n) { (void)p; (void)n; return 5000; }
static int64_t cost_20us(void **p, unsigned n) { (void)p; (void)n; return 20000; }
static int64_t cost_1us(void **p, unsigned n) { (void)p; (void)n; return 1000; }
static int64_t cost_200ns(void **p, unsigned n) { (void)p; (void)n; return 200; }
static int64_t cost_500us(void **p, unsigned n) { (void)p; (void)n; return 500000; }
/* Alternates 1.0, 1.2, 0.8 ms: median 1.0, spread known. */
static int64_t cost_jitter(void **p, unsigned n) { (void)p; return n % 3 == 0 ? 1000000 : n % 3 == 1 ? 1200000 : 800000; }
static int64_t cost_1ns(void **p, unsigned n) { (void)p; (void)n; return 1; }

static int setup(void **state)
{
	(void)state;
	if (sc_spec_load(&spec, "fixtures/softmax/spec.json") < 0)
		return -1;
	/* Small timing size for the double; tunable BLOCK small to keep it quick. */
	spec.timing.v[0] = 8;
	spec.timing.v[1] = 64;
	ref = sc_ref_lookup("softmax");
	return ref ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	sc_spec_release(&spec);
	return 0;
}

/* Loads name from dev into k with BLOCK=32 (the name is the double's
 * module image, so the harness can load a fresh copy). */
static void load(struct sc_device *dev, const char *name, struct sc_kernel_handle *k)
{
	memset(k, 0, sizeof(*k));
	assert_int_equal(dev->load(dev, name, strlen(name), "softmax", &k->fn), 0);
	k->tun.v[0] = 32;
	k->image = name;
	k->image_len = strlen(name);
	k->entry = "softmax";
}

static struct sc_check_result run_check(sc_cpu_kernel_fn fn)
{
	struct sc_device *dev = sc_device_cpu_new();
	struct sc_kernel_handle k;
	struct sc_check_opts o = { 5, 1, 1000, 0, false, false };
	struct sc_check_result r;

	sc_device_cpu_register(dev, "k", fn, NULL, 0);
	load(dev, "k", &k);
	assert_int_equal(sc_harness_check(&r, dev, &spec, &k, ref, &o), 0);
	dev->close(dev);
	return r;
}

static void test_compare_tolerance_and_worst(void **state)
{
	float want[5] = { 1.0f, 2.0f, 100.0f, -3.0f, 0.0f };
	float got[5] = { 1.0f, 2.00001f, 100.5f, -3.0f, 0.0f };
	struct sc_compare c;
	(void)state;

	sc_harness_compare(&c, SC_DTYPE_F32, got, want, 5, 1e-6, 1e-4);
	assert_int_equal(c.nbad, 1);  /* 100.5 vs 100: 0.5 > 1e-6 + 1e-2 */
	assert_int_equal(c.worst_index, 2);
	assert_true(fabs(c.worst_err - 0.5) < 1e-9);
	assert_true(fabs(c.worst_limit - (1e-6 + 1e-2)) < 1e-9);
	got[2] = 100.005f;  /* within 1e-6 + 1e-4 * 100 */
	sc_harness_compare(&c, SC_DTYPE_F32, got, want, 5, 1e-6, 1e-4);
	assert_int_equal(c.nbad, 0);
}

static void test_compare_nan_inf_aware(void **state)
{
	float want[4] = { NAN, INFINITY, 1.0f, -INFINITY };
	float got[4] = { NAN, INFINITY, 1.0f, -INFINITY };
	struct sc_compare c;
	uint32_t poison = SC_HARNESS_POISON_F32;
	(void)state;

	sc_harness_compare(&c, SC_DTYPE_F32, got, want, 4, 1e-6, 1e-4);
	assert_int_equal(c.nbad, 0);
	got[0] = 0.0f;       /* NaN expected, finite given */
	got[1] = 3.0e38f;    /* Inf expected */
	got[2] = NAN;        /* finite expected, NaN given */
	sc_harness_compare(&c, SC_DTYPE_F32, got, want, 4, 1e-6, 1e-4);
	assert_int_equal(c.nbad, 3);
	assert_int_equal(c.nstale, 0);
	memcpy(&got[2], &poison, 4);  /* the poison pattern survived: stale */
	sc_harness_compare(&c, SC_DTYPE_F32, got, want, 4, 1e-6, 1e-4);
	assert_int_equal(c.nstale, 1);
}

static void test_compare_integers_exact_and_constant(void **state)
{
	int32_t want[3] = { 5, -7, 9 }, got[3] = { 5, -7, 10 };
	float tiny[4] = { 1e-8f, 2e-8f, 0.0f, 3e-8f }, zeros[4] = { 0 };
	struct sc_compare c;
	(void)state;

	sc_harness_compare(&c, SC_DTYPE_I32, got, want, 3, 1.0, 1.0);
	assert_int_equal(c.nbad, 1);
	assert_int_equal(c.worst_index, 2);
	/* Outputs under atol: zeros pass, and a constant would too. */
	sc_harness_compare(&c, SC_DTYPE_F32, zeros, tiny, 4, 1e-6, 1e-4);
	assert_int_equal(c.nbad, 0);
	assert_true(c.constant_passes);
	sc_harness_compare(&c, SC_DTYPE_F32, want, want, 1, 1e-6, 1e-4);  /* ints as bits, n=1: no verdict */
	assert_false(c.constant_passes);
}

/* The mean signed error: rounding to nearest leaves none, rounding toward
 * zero a bias of about half a bfloat16 ulp that the elementwise tolerance
 * cannot see; a few elements are too few to judge. */
static void test_compare_mean_signed_error(void **state)
{
	enum { N = 4096 };
	static float want[N];
	static uint16_t rne[N], rz[N], down[N];
	struct sc_compare c;
	struct sc_dist d = { SC_DIST_NORMAL, 0, 3 };
	(void)state;

	sc_harness_fill(want, SC_DTYPE_F32, N, &d, 7);
	for (int i = 0; i < N; i++) {
		uint32_t u;
		float f;
		memcpy(&u, &want[i], 4);
		rne[i] = sc_bf16_from_f32(want[i]);
		rz[i] = (uint16_t)(u >> 16);
		/* toward -inf: the lower neighbour of a positive value is its
		 * truncation, of a negative one the truncation's next */
		f = sc_bf16_to_f32(rz[i]);
		down[i] = f == want[i] || want[i] > 0 ? rz[i] : (uint16_t)(rz[i] + 1);
	}
	sc_harness_compare(&c, SC_DTYPE_BF16, rne, want, N, 1e-5, 0.0078125);
	assert_int_equal(c.nbad, 0);
	assert_int_equal(c.bias_n, N);
	assert_true(fabs(c.bias) < 0.02);
	assert_false(sc_harness_biased(&c, 0.1));
	sc_harness_compare(&c, SC_DTYPE_BF16, rz, want, N, 1e-5, 0.0078125);
	assert_int_equal(c.nbad, 0);  /* every element within tolerance */
	assert_true(c.bias_toward_zero);
	assert_true(c.bias < -0.3 && c.bias > -0.6);
	assert_true(c.bias_noise < 0.05);
	assert_true(sc_harness_biased(&c, 0.1));
	assert_false(sc_harness_biased(&c, -1));  /* no max: no check */
	sc_harness_compare(&c, SC_DTYPE_BF16, down, want, N, 1e-5, 0.0078125);
	assert_int_equal(c.nbad, 0);
	assert_false(c.bias_toward_zero);  /* low on both sides of zero */
	assert_true(c.bias < -0.3);
	assert_true(sc_harness_biased(&c, 0.1));
	/* 8 elements cannot be judged, however they lean */
	sc_harness_compare(&c, SC_DTYPE_BF16, rz, want, 8, 1e-5, 0.0078125);
	assert_false(sc_harness_biased(&c, 0.1));
}

/* The terms allowance: where a*b and c cancel, the error an eager
 * evaluation makes scales with |a*b| + |c|, not with the small result. */
static void test_compare_terms_allowance(void **state)
{
	float want[2] = { 0.001f, 2.0f }, got[2] = { 0.004f, 2.0f };
	float terms[2] = { 1.5f, 2.0f };
	struct sc_compare c;
	(void)state;

	sc_harness_compare(&c, SC_DTYPE_F32, got, want, 2, 1e-4, 0.0078125);
	assert_int_equal(c.nbad, 1);
	assert_int_equal(c.worst_index, 0);
	sc_harness_compare_terms(&c, SC_DTYPE_F32, got, want, terms, 2, 1e-4, 0.0078125, 0.0078125);
	assert_int_equal(c.nbad, 0);
	assert_true(fabs(c.worst_limit - (1e-4 + 0.0078125 * 0.001 + 0.0078125 * 1.5)) < 1e-7);
	/* terms_rtol 0, or no terms, is the plain tolerance */
	sc_harness_compare_terms(&c, SC_DTYPE_F32, got, want, terms, 2, 1e-4, 0.0078125, 0);
	assert_int_equal(c.nbad, 1);
	sc_harness_compare_terms(&c, SC_DTYPE_F32, got, want, NULL, 2, 1e-4, 0.0078125, 0.0078125);
	assert_int_equal(c.nbad, 1);
}

static void test_stats_median_iqr_rse(void **state)
{
	double x[8] = { 8, 1, 7, 2, 6, 3, 5, 4 };
	struct sc_timing_stats s;
	(void)state;

	sc_timing_stats_compute(&s, x, 8);
	assert_int_equal(s.n, 8);
	assert_true(fabs(s.median - 4.5) < 1e-12);
	assert_true(fabs(s.q1 - 2.75) < 1e-12);
	assert_true(fabs(s.q3 - 6.25) < 1e-12);
	assert_true(fabs(s.iqr - 3.5) < 1e-12);
	assert_true(fabs(s.mean - 4.5) < 1e-12);
	/* sd of 1..8 = sqrt(6); rse = sd/sqrt(n)/mean */
	assert_true(fabs(s.rse - sqrt(6.0) / sqrt(8.0) / 4.5) < 1e-12);
	assert_true(s.min == 1 && s.max == 8);
}

static void test_fill_is_seeded(void **state)
{
	float a[1000], b[1000], c[1000];
	struct sc_dist n = { SC_DIST_NORMAL, 0, 1000 };
	double mean = 0, var = 0;
	(void)state;

	sc_harness_fill(a, SC_DTYPE_F32, 1000, &n, 42);
	sc_harness_fill(b, SC_DTYPE_F32, 1000, &n, 42);
	sc_harness_fill(c, SC_DTYPE_F32, 1000, &n, 43);
	assert_memory_equal(a, b, sizeof(a));
	assert_memory_not_equal(a, c, sizeof(a));
	for (int i = 0; i < 1000; i++)
		mean += a[i] / 1000.0;
	for (int i = 0; i < 1000; i++)
		var += (a[i] - mean) * (a[i] - mean) / 999.0;
	assert_true(fabs(mean) < 150);               /* 4.7 standard errors */
	assert_true(sqrt(var) > 900 && sqrt(var) < 1100);
}

static void test_check_passes_correct_kernel(void **state)
{
	struct sc_check_result r = run_check(k_good);
	(void)state;
	assert_true(r.ok);
	/* 4 sizes x 2 distributions x 5 seeds */
	assert_int_equal(r.launches, 40);
	assert_true(r.max_ratio < 1.0);
}

static void test_check_noop_is_stale(void **state)
{
	struct sc_check_result r = run_check(k_noop);
	(void)state;
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_STALE);
	assert_non_null(strstr(r.message, "NaN poison"));
}

static void test_check_scaled_is_mismatch_with_location(void **state)
{
	struct sc_check_result r;
	(void)state;
	scale_after = 0.99f;
	r = run_check(k_scaled);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_MISMATCH);
	assert_true(r.worst.valid);
	assert_int_equal(r.worst.param, 1);
	/* got = 0.99 * want at the worst index */
	assert_true(fabs(r.worst.got - 0.99 * r.worst.want) <= 1e-6 * fabs(r.worst.want) + 1e-7);
	assert_non_null(strstr(r.message, "'y'["));
	assert_non_null(strstr(r.message, "expected"));
}

static void test_check_unsafe_softmax_fails_on_large_inputs(void **state)
{
	struct sc_check_result r = run_check(k_unsafe);
	(void)state;
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_MISMATCH);
	/* Uniform(-4,4) passes; the normal(0,1000) distribution (index 1) fails. */
	assert_int_equal(r.worst.dist, 1);
}

static void test_check_input_checksum(void **state)
{
	struct sc_check_result r = run_check(k_zero_inputs);
	(void)state;
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_INPUT_MODIFIED);
	assert_non_null(strstr(r.message, "'x'"));
}

static void test_check_out_of_bounds_canary(void **state)
{
	struct sc_check_result r = run_check(k_oob);
	(void)state;
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_OUT_OF_BOUNDS);
	assert_non_null(strstr(r.message, "past the end"));
}

/* Times cand (on a device) against base (on its sibling); both registered
 * with costs. *devp / *bdevp, when given, receive the devices (else closed). */
static struct sc_timing_result run_timing_opts(sc_cpu_kernel_fn cfn, sc_cpu_cost_fn ccost, int64_t hidden,
					       sc_cpu_kernel_fn bfn, sc_cpu_cost_fn bcost, uint64_t secret,
					       struct sc_device **devp, struct sc_device **bdevp)
{
	struct sc_device *dev = sc_device_cpu_new(), *bdev = NULL;
	struct sc_kernel_handle c, b;
	struct sc_timing_opts_run o = { 1000, 2, 0, secret, 0, 0, NULL, NULL };
	struct sc_timing_result r;

	sc_device_cpu_register(dev, "cand", cfn, ccost, hidden);
	sc_device_cpu_register(dev, "base", bfn, bcost, 0);
	assert_int_equal(dev->open_sibling(dev, &bdev), 0);
	load(dev, "cand", &c);
	load(bdev, "base", &b);
	assert_int_equal(sc_harness_time(&r, dev, bdev, &spec, &c, &b, &o), 0);
	if (devp)
		*devp = dev;
	else
		dev->close(dev);
	if (bdevp)
		*bdevp = bdev;
	else
		bdev->close(bdev);
	return r;
}

static struct sc_timing_result run_timing(sc_cpu_kernel_fn cfn, sc_cpu_cost_fn ccost, int64_t hidden,
					  sc_cpu_cost_fn bcost, struct sc_device **devp)
{
	return run_timing_opts(cfn, ccost, hidden, k_good, bcost, 0, devp, NULL);
}

static void test_timing_speedup_arithmetic(void **state)
{
	struct sc_timing_result r = run_timing(k_good, cost_500us, 0, cost_2ms, NULL);
	(void)state;
	assert_true(r.ok);
	assert_true(fabs(r.cand.ev.median - 0.5) < 1e-9);
	assert_true(fabs(r.base.ev.median - 2.0) < 1e-9);
	assert_true(fabs(r.speedup - 4.0) < 1e-9);
	/* zero spread: converges at the minimum repetitions */
	assert_true(r.converged);
	assert_int_equal(r.reps, (size_t)spec.topts.min_reps);
	assert_false(r.suspect);
	/* achieved rate from the spec's bytes at the timing size */
	assert_true(fabs(r.cand_gbps - 8.0 * 8 * 64 / 0.5e-3 / 1e9) < 1e-9);
}

static void test_timing_spread_runs_to_cap(void **state)
{
	struct sc_timing_result r;
	int saved = spec.topts.max_reps;
	(void)state;
	spec.topts.max_reps = 60;
	r = run_timing(k_good, cost_jitter, 0, cost_2ms, NULL);
	spec.topts.max_reps = saved;
	assert_true(r.ok);
	/* 1.0/1.2/0.8 ms: rse stays above 1% for 60 samples, so the cap stops it */
	assert_false(r.converged);
	assert_int_equal(r.reps, 60);
	assert_true(fabs(r.cand.ev.median - 1.0) < 1e-9);
	assert_true(r.cand.ev.iqr > 0.1);
	assert_true(fabs(r.speedup - 2.0) < 1e-9);
}

static void test_timing_side_stream_flagged_by_host_clock(void **state)
{
	/* Events see 0.5 ms; 5 ms of work shows only at the host's sync. */
	struct sc_timing_result r = run_timing(k_good, cost_500us, 5000000, cost_2ms, NULL);
	(void)state;
	assert_true(r.ok);
	assert_true(r.suspect);
	assert_non_null(strstr(r.suspect_why, "host clock"));
}

static void test_timing_roofline_ceiling(void **state)
{
	/* 1 ns for 8*8*64 bytes is far beyond the double's 1000 GB/s peak. */
	struct sc_timing_result r = run_timing(k_good, cost_1ns, 0, cost_2ms, NULL);
	(void)state;
	assert_true(r.ok);
	assert_true(r.suspect);
	assert_true(r.speedup > r.ceiling);
	assert_non_null(strstr(r.suspect_why, "roofline"));
}

/*
 * The checks during and after timing compare the candidate with the
 * baseline, both within the tolerance of the reference: they may differ
 * by the two tolerances together (softmax: rtol 1e-4, so 1.5e-4 apart
 * passes), not by more (3e-4 apart fails).
 */
static void test_timing_allows_both_tolerances(void **state)
{
	struct sc_timing_result r;
	(void)state;

	scale_after = 1.00015f;
	r = run_timing(k_scaled, cost_500us, 0, cost_2ms, NULL);
	if (!r.ok)
		fail_msg("%s", r.message);
	scale_after = 1.0003f;
	r = run_timing(k_scaled, cost_500us, 0, cost_2ms, NULL);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_MISMATCH);
	assert_non_null(strstr(r.message, "baseline gives"));
	scale_after = 1.0f;
}

static void test_revalidation_catches_first_calls_cheat(void **state)
{
	struct sc_device *dev = sc_device_cpu_new(), *bdev = NULL;
	struct sc_check_result chk;
	struct sc_kernel_handle k, b;
	struct sc_check_opts o = { 5, 1, 1000, 0, false, false };
	struct sc_timing_opts_run to = { 1000, 2, 0, 0, 0, 0, NULL, NULL };
	struct sc_timing_result r;
	(void)state;

	sc_device_cpu_register(dev, "k", k_first_calls, cost_500us, 0);
	sc_device_cpu_register(dev, "base", k_good, cost_2ms, 0);
	assert_int_equal(dev->open_sibling(dev, &bdev), 0);
	load(dev, "k", &k);
	load(bdev, "base", &b);
	/* The check alone (40 launches) passes ... */
	assert_int_equal(sc_harness_check(&chk, dev, &spec, &k, ref, &o), 0);
	assert_true(chk.ok);
	/* ... the checks during and after timing, on the same module, do not. */
	assert_int_equal(sc_harness_time(&r, dev, bdev, &spec, &k, &b, &to), 0);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_MISMATCH);
	assert_non_null(strstr(r.message, "baseline gives"));
	assert_non_null(strstr(r.message, "results cached"));
	dev->close(dev);
	bdev->close(bdev);
}


/* Splits a device log into words; returns the count. */
static size_t words(char *log, char **w, size_t cap)
{
	size_t n = 0;
	char *save = NULL;
	for (char *t = strtok_r(log, " ", &save); t && n < cap; t = strtok_r(NULL, " ", &save))
		w[n++] = t;
	return n;
}

/*
 * The timing protocol, read from the double's log of one device: between
 * the start event (rec:1) and the end event (rec:2) only launches; the
 * flush (a memset) between rec:0 and rec:1; after rec:2 the host's first
 * act is to wait for that event (wait:2), and no wait or sync ever falls
 * between rec:0 and rec:2. Returns the timed intervals seen; *launches
 * their launch count, *warm how many had an untimed launch before rec:1.
 */
static size_t check_protocol(struct sc_device *d, size_t *launches, size_t *warm)
{
	char *log = sc_xstrdup(sc_device_cpu_log(d));
	static char *w[200000];
	size_t n = words(log, w, SC_ARRAY_SIZE(w)), intervals = 0;

	*launches = *warm = 0;
	for (size_t i = 0; i < n; i++) {
		size_t j;
		bool flushed = false;
		if (strcmp(w[i], "rec:0"))
			continue;
		for (j = i + 1; j < n && strcmp(w[j], "rec:1"); j++) {
			if (!strcmp(w[j], "memset"))
				flushed = true;
			else if (sc_starts_with(w[j], "launch:"))
				(*warm)++;
			else
				fail_msg("'%s' between rec:0 and rec:1", w[j]);
		}
		assert_true(flushed);
		for (j++; j < n && strcmp(w[j], "rec:2"); j++) {
			if (!sc_starts_with(w[j], "launch:"))
				fail_msg("'%s' between the start and end events", w[j]);
			(*launches)++;
		}
		assert_true(j + 1 < n);
		assert_string_equal(w[j + 1], "wait:2");
		intervals++;
		i = j + 1;
	}
	free(log);
	return intervals;
}

static void test_timing_protocol_events_around_the_launch(void **state)
{
	struct sc_device *dev, *bdev;
	struct sc_timing_result r = run_timing_opts(k_good, cost_500us, 0, k_good, cost_2ms, 0, &dev, &bdev);
	size_t launches, warm, n;
	(void)state;

	assert_true(r.ok);
	assert_false(r.burst);
	n = check_protocol(dev, &launches, &warm);
	/* warm-up (5) and timed repetitions, each a launch of every input
	 * distribution, one launch each, no warm launch */
	assert_int_equal(r.ndists, 2);
	assert_int_equal(n, 5 + r.reps * r.ndists);
	assert_int_equal(launches, n);
	assert_int_equal(warm, 0);
	n = check_protocol(bdev, &launches, &warm);
	assert_int_equal(n, 5 + r.reps * r.ndists);
	dev->close(dev);
	bdev->close(bdev);
}

/* A baseline under 30 us makes both kernels timed as bursts between one
 * pair of events, of the length the baseline's warm-up gives, each launch
 * on buffers of its own; the per-launch time is the interval divided by
 * the burst. */
static void test_timing_bursts_for_short_kernels(void **state)
{
	struct sc_device *dev, *bdev;
	struct sc_timing_result r = run_timing_opts(k_good, cost_5us, 0, k_good, cost_20us, 0, &dev, &bdev);
	size_t launches, warm, n;
	(void)state;

	assert_true(r.ok);
	assert_true(r.burst);
	/* the burst is the baseline's: 0.5 ms / 20 us, the same for both */
	assert_int_equal(r.cand.burst, 25);
	assert_int_equal(r.base.burst, 25);
	assert_true(fabs(r.cand.ev.median - 0.005) < 1e-12);
	assert_true(fabs(r.base.ev.median - 0.020) < 1e-12);
	assert_true(fabs(r.speedup - 4.0) < 1e-9);
	assert_false(r.cand.launch_bound);
	n = check_protocol(dev, &launches, &warm);
	assert_int_equal(n, 5 + r.reps * r.ndists);
	assert_int_equal(launches, 5 + 25 * r.reps * r.ndists);
	assert_int_equal(warm, 0);  /* no untimed launch: each has buffers of its own */
	dev->close(dev);
	bdev->close(bdev);

	/* A short candidate against a long baseline: the baseline alone
	 * decides, so both are timed one launch at a time. */
	r = run_timing_opts(k_good, cost_5us, 0, k_good, cost_2ms, 0, NULL, NULL);
	assert_false(r.burst);
	assert_int_equal(r.cand.burst, 1);
	assert_int_equal(r.base.burst, 1);
	assert_true(fabs(r.speedup - 400.0) < 1e-6);
}

/* A burst that takes as long to issue as to run measured the launches. */
static void test_timing_launch_bound_burst_is_noted(void **state)
{
	struct sc_device *dev = sc_device_cpu_new(), *bdev = NULL;
	struct sc_kernel_handle c, b;
	struct sc_timing_opts_run o = { 1000, 2, 0, 0, 0, 0, NULL, NULL };
	struct sc_timing_result r;
	(void)state;

	sc_device_cpu_set_launch_ns(dev, 10000);  /* 10 us to issue a 1 us kernel */
	sc_device_cpu_register(dev, "cand", k_good, cost_1us, 0);
	sc_device_cpu_register(dev, "base", k_good, cost_20us, 0);
	assert_int_equal(dev->open_sibling(dev, &bdev), 0);
	sc_device_cpu_set_launch_ns(bdev, 0);
	load(dev, "cand", &c);
	load(bdev, "base", &b);
	assert_int_equal(sc_harness_time(&r, dev, bdev, &spec, &c, &b, &o), 0);
	assert_true(r.ok);
	assert_true(r.burst);
	assert_true(r.cand.launch_bound);
	assert_false(r.base.launch_bound);
	assert_non_null(strstr(r.note, "shorter than a launch"));
	assert_true(fabs(r.cand.ev.median - 0.010) < 0.0002);  /* about the issue rate (25 x 10 us + 1 us over 25), an upper bound */
	dev->close(dev);
	bdev->close(bdev);
}

/* A pointer-keyed cache (filled only at the timing size) is caught: the
 * inputs change under the same pointers and the outputs are compared. */
static void test_timing_catches_pointer_keyed_cache(void **state)
{
	struct sc_timing_result r;
	(void)state;
	memset(pcache, 0, sizeof(pcache));
	/* it passes the correctness check: it computes at every other size */
	assert_true(run_check(k_pointer_cache).ok);
	r = run_timing_opts(k_pointer_cache, cost_500us, 0, k_good, cost_2ms, 0, NULL, NULL);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_MISMATCH);
	assert_non_null(strstr(r.message, "results cached"));
	assert_true(r.fresh_inputs > 0);
	assert_true(r.spot_checks > 0);
}

/* Caching into an input (a marker in the low bits, outputs still within
 * tolerance) is caught by the input check after timing. */
static void test_timing_catches_input_cache(void **state)
{
	struct sc_timing_result r;
	(void)state;
	assert_true(run_check(k_input_cache).ok);
	r = run_timing_opts(k_input_cache, cost_500us, 0, k_good, cost_2ms, 0, NULL, NULL);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_INPUT_MODIFIED);
	assert_non_null(strstr(r.message, "during timing, the candidate's input 'x' changed"));
}

/* The baseline runs on its own device (context): every buffer it is given
 * is the sibling's, never the candidate's; and should a candidate reach
 * the baseline's input anyway, the check after timing says so. */
static void test_timing_baseline_isolated_and_checked(void **state)
{
	struct sc_device *dev = sc_device_cpu_new(), *bdev = NULL;
	struct sc_kernel_handle c, b;
	struct sc_timing_opts_run o = { 1000, 2, 0, 0, 0, 0, NULL, NULL };
	struct sc_timing_result r;
	(void)state;

	sc_device_cpu_register(dev, "cand", k_cand_recording, cost_500us, 0);
	sc_device_cpu_register(dev, "base", k_base_recording, cost_2ms, 0);
	assert_int_equal(dev->open_sibling(dev, &bdev), 0);
	load(dev, "cand", &c);
	load(bdev, "base", &b);
	owner_cand = dev;
	owner_base = bdev;
	nbase_seen = ncand_seen = 0;
	misplaced = 0;
	tamper = false;
	assert_int_equal(sc_harness_time(&r, dev, bdev, &spec, &c, &b, &o), 0);
	assert_true(r.ok);
	assert_true(nbase_seen > 0 && ncand_seen > 0);
	assert_int_equal(misplaced, 0);

	/* should a candidate reach the baseline's input anyway (one shared
	 * address space, as in one CUDA context), the check after timing
	 * names it */
	nbase_seen = ncand_seen = 0;
	tamper = true;
	assert_int_equal(sc_harness_time(&r, dev, bdev, &spec, &c, &b, &o), 0);
	tamper = false;
	owner_cand = owner_base = NULL;
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_INPUT_MODIFIED);
	assert_non_null(strstr(r.message, "the baseline's input 'x' changed"));
	dev->close(dev);
	bdev->close(bdev);
}

/* The re-validation after timing loads the module afresh and uses new
 * buffers: a kernel wrong only on a fresh module's first launch fails
 * there, and its addresses were not the timing's. */
static void test_timing_fresh_revalidation(void **state)
{
	struct sc_device *dev, *bdev;
	struct sc_timing_result r = run_timing_opts(k_fresh_trap, cost_500us, 0, k_good, cost_2ms, 0, &dev, &bdev);
	const char *log = sc_device_cpu_log(dev);
	(void)state;

	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_MISMATCH);
	assert_non_null(strstr(r.message, "fresh state (module reloaded, new buffers, secret inputs)"));
	assert_true(r.fresh_addresses);
	/* loaded twice: once by the test, once for the fresh re-validation */
	assert_non_null(strstr(log, "load:cand"));
	assert_non_null(strstr(strstr(log, "load:cand") + 1, "load:cand"));
	dev->close(dev);
	bdev->close(bdev);
	/* a correct kernel passes it */
	r = run_timing_opts(k_good, cost_500us, 0, k_good, cost_2ms, 0, NULL, NULL);
	assert_true(r.ok);
	assert_true(r.fresh_addresses);
}

/* Timing inputs come from the run's secret: the same secret, the same
 * inputs; another (or none given: drawn at random), others. */
static void test_timing_inputs_from_secret_seeds(void **state)
{
	uint64_t h1, h2, h3, h4;
	(void)state;

	first_x_seen = false;
	run_timing_opts(k_hash_inputs, cost_500us, 0, k_good, cost_2ms, 12345, NULL, NULL);
	h1 = first_x_hash;
	first_x_seen = false;
	run_timing_opts(k_hash_inputs, cost_500us, 0, k_good, cost_2ms, 12345, NULL, NULL);
	h2 = first_x_hash;
	first_x_seen = false;
	run_timing_opts(k_hash_inputs, cost_500us, 0, k_good, cost_2ms, 0, NULL, NULL);
	h3 = first_x_hash;
	first_x_seen = false;
	run_timing_opts(k_hash_inputs, cost_500us, 0, k_good, cost_2ms, 0, NULL, NULL);
	h4 = first_x_hash;
	assert_true(h1 == h2);
	assert_true(h1 != h3);
	assert_true(h3 != h4);
}


/* A candidate that looks short on the warm-up does not get burst mode:
 * the baseline's warm-up alone decides. */
static void test_timing_burst_decided_by_baseline(void **state)
{
	struct sc_timing_result r = run_timing(k_good, cost_fast_warmup, 0, cost_2ms, NULL);
	(void)state;
	assert_true(r.ok);
	assert_false(r.burst);
	assert_int_equal(r.cand.burst, 1);
	assert_int_equal(r.base.burst, 1);
	/* a short baseline does: both in bursts of its length */
	r = run_timing(k_good, cost_2ms, 0, cost_20us, NULL);
	assert_true(r.burst);
	assert_int_equal(r.cand.burst, 25);
}

/* Every timed launch reads inputs no launch read before, and in a burst
 * every launch has buffers of its own. */
static void test_timing_fresh_inputs_and_own_buffers(void **state)
{
	struct sc_timing_result r;
	size_t distinct_x = 0;
	(void)state;

	nseen = 0;
	r = run_timing_opts(k_record_inputs, cost_5us, 0, k_good, cost_20us, 7, NULL, NULL);
	assert_true(r.ok);
	assert_true(r.burst);
	assert_int_equal(r.cand.burst, 25);
	/* warm-up (5 single launches) + reps x distributions x 25, + the
	 * fresh re-validation */
	assert_int_equal(nseen, 5 + 25 * r.reps * r.ndists + 1);
	for (size_t i = 0; i < nseen; i++)
		for (size_t j = i + 1; j < nseen; j++)
			if (seen_hash[i] == seen_hash[j])
				fail_msg("launches %zu and %zu read the same inputs", i, j);
	for (size_t i = 5; i < 5 + 25; i++) {
		bool dup = false;
		for (size_t j = 5; j < i; j++)
			dup |= seen_x[j] == seen_x[i];
		distinct_x += !dup;
	}
	assert_int_equal(distinct_x, 25);  /* the first burst: 25 launches, 25 input buffers */
	assert_true(r.fresh_inputs >= nseen - 1);
}

/* Skipping every other timed launch is caught whatever the secret: the
 * outputs are poisoned before each launch and the checked launches are
 * drawn after they ran; in bursts too. */
static void test_timing_skipped_launches_caught(void **state)
{
	(void)state;
	for (uint64_t secret = 1; secret <= 12; secret++) {
		struct sc_timing_result r = run_timing_opts(k_skip_alternate, cost_500us, 0, k_good, cost_2ms, secret,
							     NULL, NULL);
		assert_false(r.ok);
		assert_int_equal(r.reason, SC_REASON_STALE);
		assert_non_null(strstr(r.message, "check of timed launch"));
		r = run_timing_opts(k_skip_in_bursts, cost_5us, 0, k_good, cost_20us, secret, NULL, NULL);
		assert_true(r.burst);
		assert_false(r.ok);
		assert_int_equal(r.reason, SC_REASON_STALE);
	}
}

/* The warm-up's launches are checked like any other: a kernel wrong only
 * on them fails (every launch checked here, so the draw cannot miss). */
static void test_timing_warmup_launches_checked(void **state)
{
	struct sc_device *dev = sc_device_cpu_new(), *bdev = NULL;
	struct sc_kernel_handle c, b;
	struct sc_timing_opts_run o = { .timeout_ms = 1000, .check_every = 1, .secret = 3 };
	struct sc_timing_result r;
	(void)state;

	sc_device_cpu_register(dev, "cand", k_bad_warmup, cost_500us, 0);
	sc_device_cpu_register(dev, "base", k_good, cost_2ms, 0);
	assert_int_equal(dev->open_sibling(dev, &bdev), 0);
	load(dev, "cand", &c);
	load(bdev, "base", &b);
	assert_int_equal(sc_harness_time(&r, dev, bdev, &spec, &c, &b, &o), 0);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_MISMATCH);
	assert_non_null(strstr(r.message, "repetition 1"));
	dev->close(dev);
	bdev->close(bdev);
}

/* An input-verifying incremental cache stays correct and earns nothing:
 * with every input fresh it recomputes every row of every timed launch,
 * so its time is its full cost (1 ms against 2 ms: 2x, not more). */
static void test_timing_incremental_cache_earns_nothing(void **state)
{
	struct sc_timing_result r;
	(void)state;
	inc_valid = false;
	r = run_timing(k_incremental, cost_incremental, 0, cost_2ms, NULL);
	assert_true(r.ok);
	assert_true(fabs(r.cand.ev.median - 1.0) < 1e-9);
	assert_true(fabs(r.speedup - 2.0) < 1e-9);
}

/* The check computes each reference after the candidate's launch has
 * finished, never before: while the candidate runs, there is none. */
static void test_check_reference_after_launch(void **state)
{
	struct sc_device *dev = sc_device_cpu_new();
	struct sc_kernel_handle k;
	struct sc_check_opts o = { 5, 1, 1000, 0, false, false };
	struct sc_check_result r;
	(void)state;

	launched_since_ref = false;
	ref_before_launch = 0;
	ref_calls = 0;
	sc_device_cpu_register(dev, "k", k_marks_launch, NULL, 0);
	load(dev, "k", &k);
	assert_int_equal(sc_harness_check(&r, dev, &spec, &k, ref_after_launch, &o), 0);
	assert_true(r.ok);
	assert_int_equal(ref_calls, r.launches);
	assert_int_equal(ref_before_launch, 0);
	dev->close(dev);
}

/* The check's messages never show a secret seed. */
static void test_check_hides_secret_seeds(void **state)
{
	struct sc_device *dev = sc_device_cpu_new();
	struct sc_kernel_handle k;
	struct sc_check_opts o = { 1, 987654321, 1000, 0, true, false };
	struct sc_check_result r;
	(void)state;

	scale_after = 0.5f;
	sc_device_cpu_register(dev, "k", k_scaled, NULL, 0);
	load(dev, "k", &k);
	assert_int_equal(sc_harness_check(&r, dev, &spec, &k, ref, &o), 0);
	assert_false(r.ok);
	assert_non_null(strstr(r.message, "a secret seed"));
	assert_null(strstr(r.message, "987654321"));
	assert_int_equal(r.worst.seed, 0);
	dev->close(dev);
}

/* Ceilings from the fp32 and the tensor-core peaks: above the first but
 * within the second is a note (tensor cores can do it), not suspect. */
static void test_roofline_fp32_and_tensor_ceilings(void **state)
{
	char *saved = spec.flops;
	struct sc_timing_result r;
	(void)state;

	spec.flops = (char *)"1000*rows*cols";  /* 512,000 flops: 512 ns at 1 TFLOPS fp32, 64 ns at 8 on tensor cores */
	r = run_timing_opts(k_good, cost_200ns, 0, k_good, cost_2ms, 0, NULL, NULL);
	spec.flops = saved;
	assert_true(r.ok);
	assert_true(fabs(r.ceiling_fp32 - 2e-3 / 512e-9) < 1e-6);
	assert_true(fabs(r.ceiling - 2e-3 / 64e-9) < 1e-6);
	assert_true(r.speedup > r.ceiling_fp32 && r.speedup < r.ceiling);
	assert_true(r.beyond_fp32);
	assert_false(r.suspect);
	assert_non_null(strstr(r.note, "tensor cores"));
}

/*
 * The calibrated spin kernel on the double: cost = cycles at 1 GHz. At
 * 10 us it is timed in bursts, at 100 us and 1 ms one launch at a time;
 * the measured median equals cycles / clock.
 */
static void k_spin(const struct sc_cpu_thread *t, void **p)
{
	(void)t;
	((int32_t *)(uintptr_t)*(uint64_t *)p[0])[0] = *(int32_t *)p[1];
}
static int64_t cost_spin(void **p, unsigned n) { (void)n; return *(int32_t *)p[1]; }

static void test_timing_calibrated_spin(void **state)
{
	static const char json[] =
		"{\"name\": \"spin\", \"version\": 1, \"description\": \"calibrated spin\", \"entry\": \"spin\","
		" \"size_vars\": [\"cycles\"],"
		" \"params\": [{\"name\": \"out\", \"kind\": \"buffer\", \"type\": \"int32\", \"role\": \"out\", \"shape\": \"2\"},"
		"  {\"name\": \"cycles\", \"kind\": \"scalar\", \"type\": \"int32\", \"value\": \"cycles\"}],"
		" \"sizes\": {\"correctness\": [{\"cycles\": 1000}], \"timing\": {\"cycles\": 1000}},"
		" \"launch\": {\"grid\": [1, 1, 1], \"block\": [1, 1, 1]},"
		" \"tolerance\": {\"atol\": 0, \"rtol\": 0}, \"flops\": \"0\", \"bytes\": \"8\","
		" \"timing\": {\"warmup\": 3, \"min_reps\": 10, \"max_reps\": 50, \"target_rse\": 0.01, \"max_seconds\": 5}}";
	static const int us[3] = { 10, 100, 1000 };
	struct sc_spec sp;
	(void)state;

	assert_int_equal(sc_spec_parse(&sp, json, strlen(json), "spin.json"), 0);
	for (int i = 0; i < 3; i++) {
		struct sc_device *dev = sc_device_cpu_new(), *bdev = NULL;
		struct sc_kernel_handle k, b;
		struct sc_timing_opts_run o = { 1000, 2, 0, 0, 0, 0, NULL, NULL };
		struct sc_timing_result r;
		double want;

		sp.timing.v[0] = (int64_t)us[i] * dev->info.clock_khz / 1000;
		want = (double)sp.timing.v[0] / dev->info.clock_khz;  /* ms */
		sc_device_cpu_register(dev, "spin", k_spin, cost_spin, 0);
		assert_int_equal(dev->open_sibling(dev, &bdev), 0);
		memset(&k, 0, sizeof(k));
		assert_int_equal(dev->load(dev, "spin", 4, "spin", &k.fn), 0);
		memset(&b, 0, sizeof(b));
		assert_int_equal(bdev->load(bdev, "spin", 4, "spin", &b.fn), 0);
		assert_int_equal(sc_harness_time(&r, dev, bdev, &sp, &k, &b, &o), 0);
		assert_true(r.ok);
		assert_true(fabs(r.cand.ev.median - want) <= 0.05 * want);
		assert_true(fabs(r.cand.ev.median - want) < 1e-12);  /* exact on the double */
		assert_int_equal(r.burst, us[i] < 30);
		dev->close(dev);
		bdev->close(bdev);
	}
	sc_spec_release(&sp);
}


/* ---- layernorm: the fixture's inputs against catastrophic cancellation ----
 *
 * CPU versions of three kernels for fixtures/layernorm with BLOCK = 256,
 * summing in float32 in the order the CUDA kernels do: the solution
 * (per-thread partial sums over float4 groups where the row allows, a
 * warp butterfly and one slot per warp, two-pass variance), the baseline
 * (strided partial sums and a shared-memory tree, two-pass), and the
 * one-pass variance E[x^2] - mean^2 the fixture must reject. Thread 0 of a
 * block does its row.
 */
#define LN_B 256
#define LN_X(p) ((const float *)(uintptr_t)*(uint64_t *)(p)[0])
#define LN_G(p) ((const float *)(uintptr_t)*(uint64_t *)(p)[1])
#define LN_BETA(p) ((const float *)(uintptr_t)*(uint64_t *)(p)[2])
#define LN_Y(p) ((float *)(uintptr_t)*(uint64_t *)(p)[3])
#define LN_COLS(p) (*(int *)(p)[5])

static float ln_butterfly(float *l)  /* 32 lanes, __shfl_xor_sync 16..1; lane 0's value */
{
	for (int o = 16; o > 0; o >>= 1) {
		float t[32];
		for (int i = 0; i < 32; i++)
			t[i] = l[i] + l[i ^ o];
		memcpy(l, t, sizeof(t));
	}
	return l[0];
}

static float ln_block_sum(const float *v)
{
	float sh[32], l[32];
	for (int w = 0; w < LN_B / 32; w++) {
		memcpy(l, v + 32 * w, sizeof(l));
		sh[w] = ln_butterfly(l);
	}
	for (int i = 0; i < 32; i++)
		l[i] = i < LN_B / 32 ? sh[i] : 0.0f;
	return ln_butterfly(l);
}

static float ln_tree_sum(const float *v)
{
	float r[LN_B];
	memcpy(r, v, sizeof(r));
	for (int st = 512; st > 0; st >>= 1)
		for (int t = 0; t < st; t++)
			if (t + st < LN_B)
				r[t] += r[t + st];
	return r[0];
}

enum ln_kind { LN_SOLUTION, LN_BASELINE, LN_ONE_PASS };

static void ln_row(void **p, size_t row, enum ln_kind kind)
{
	int cols = LN_COLS(p), n4 = cols >> 2;
	const float *x = LN_X(p) + row * (size_t)cols, *g = LN_G(p), *b = LN_BETA(p);
	float *y = LN_Y(p) + row * (size_t)cols;
	float s[LN_B], q[LN_B], inv = 1.0f / (float)cols, mean, var, rstd;
	bool vec = kind != LN_BASELINE && (cols & 3) == 0 && n4 <= LN_B * 8;

	for (int t = 0; t < LN_B; t++) {
		float a = 0, c2 = 0;
		if (vec) {
			for (int k = 0; k < 8; k++) {
				int i = t + k * LN_B;
				if (i < n4) {
					const float *v = x + 4 * i;
					a += (v[0] + v[1]) + (v[2] + v[3]);
					c2 += (v[0] * v[0] + v[1] * v[1]) + (v[2] * v[2] + v[3] * v[3]);
				}
			}
		} else {
			for (int c = t; c < cols; c += LN_B) {
				a += x[c];
				c2 += x[c] * x[c];
			}
		}
		s[t] = a;
		q[t] = c2;
	}
	mean = kind == LN_BASELINE ? ln_tree_sum(s) / (float)cols : ln_block_sum(s) * inv;
	if (kind == LN_ONE_PASS) {
		var = ln_block_sum(q) * inv - mean * mean;
	} else {
		for (int t = 0; t < LN_B; t++) {
			float a = 0;
			if (vec) {
				for (int k = 0; k < 8; k++) {
					int i = t + k * LN_B;
					if (i < n4) {
						const float *v = x + 4 * i;
						float d0 = v[0] - mean, d1 = v[1] - mean, d2 = v[2] - mean, d3 = v[3] - mean;
						a += (d0 * d0 + d1 * d1) + (d2 * d2 + d3 * d3);
					}
				}
			} else {
				for (int c = t; c < cols; c += LN_B)
					a += (x[c] - mean) * (x[c] - mean);
			}
			q[t] = a;
		}
		var = kind == LN_BASELINE ? ln_tree_sum(q) / (float)cols : ln_block_sum(q) * inv;
	}
	rstd = 1.0f / sqrtf(var + 1e-5f);
	for (int c = 0; c < cols; c++)
		y[c] = (x[c] - mean) * rstd * g[c] + b[c];
}

static void k_ln_solution(const struct sc_cpu_thread *t, void **p) { if (!t->tid[0]) ln_row(p, t->bid[0], LN_SOLUTION); }
static void k_ln_baseline(const struct sc_cpu_thread *t, void **p) { if (!t->tid[0]) ln_row(p, t->bid[0], LN_BASELINE); }
static void k_ln_one_pass(const struct sc_cpu_thread *t, void **p) { if (!t->tid[0]) ln_row(p, t->bid[0], LN_ONE_PASS); }

/* Kernel fn on correctness size si of the layernorm fixture, under input
 * distribution dist only, seeds seed..seed+n-1: the check's result (its
 * max_ratio is the worst error over tolerance; for a failure, that of the
 * first failing seed). */
static struct sc_check_result ln_check(sc_cpu_kernel_fn fn, size_t dist, size_t si, int seed, int n)
{
	struct sc_spec ln, one;
	struct sc_device *dev = sc_device_cpu_new();
	struct sc_kernel_handle k;
	struct sc_check_opts o = { n, (uint64_t)seed, 1000, 0, false, false };
	struct sc_check_result r;

	assert_int_equal(sc_spec_load(&ln, "fixtures/layernorm/spec.json"), 0);
	one = ln;  /* borrowed strings; only counts and sizes change */
	for (size_t i = 0; i < one.nparams; i++)
		if (one.params[i].ninit > dist) {
			one.params[i].init[0] = one.params[i].init[dist];
			one.params[i].ninit = 1;
		}
	one.ndists = 1;
	one.correctness[0] = ln.correctness[si];
	one.ncorrectness = 1;
	sc_device_cpu_register(dev, "ln", fn, NULL, 0);
	memset(&k, 0, sizeof(k));
	assert_int_equal(dev->load(dev, "ln", 2, "layernorm", &k.fn), 0);
	k.tun.v[0] = LN_B;
	assert_int_equal(sc_harness_check(&r, dev, &one, &k, sc_ref_lookup("layernorm"), &o), 0);
	dev->close(dev);
	sc_spec_release(&ln);
	return r;
}

/*
 * fixtures/layernorm's offset distribution (normal, mean 1000, std 10)
 * fails the one-pass variance decisively, at every correctness size, while
 * float32 two-pass kernels keep a wide margin. (With the earlier
 * normal(300, 10) the one-pass kernel failed by about 1x the tolerance.)
 */
static void test_layernorm_inputs_reject_one_pass_variance(void **state)
{
	struct sc_spec ln;
	size_t off = 0, nsizes;
	double worst_ok = 0, least_bad = INFINITY;
	(void)state;

	assert_int_equal(sc_spec_load(&ln, "fixtures/layernorm/spec.json"), 0);
	while (off < ln.params[0].ninit &&
	       !(ln.params[0].init[off].kind == SC_DIST_NORMAL && ln.params[0].init[off].a >= 1000))
		off++;
	assert_true(off < ln.params[0].ninit);  /* the spec has it */
	assert_true(ln.params[0].init[off].b <= 10);
	nsizes = ln.ncorrectness;
	sc_spec_release(&ln);

	fprintf(stderr, "# layernorm, x ~ normal(1000, 10), 5 seeds: error / tolerance per size\n"
			"#   size  solution  baseline  one-pass (worst of 5 seeds)\n");
	for (size_t si = 0; si < nsizes; si++) {
		struct sc_check_result sol = ln_check(k_ln_solution, off, si, 1, 5);
		struct sc_check_result base = ln_check(k_ln_baseline, off, si, 1, 5);
		double bad = 0;
		int fails = 0;
		for (int seed = 1; seed <= 5; seed++) {  /* one at a time: the worst, not the first */
			struct sc_check_result naive = ln_check(k_ln_one_pass, off, si, seed, 1);
			bad = fmax(bad, naive.max_ratio);
			fails += !naive.ok;
		}
		fprintf(stderr, "#   %4zu  %8.3f  %8.3f  %8.2f (fails on %d of 5 seeds)\n", si, sol.max_ratio, base.max_ratio,
			bad, fails);
		assert_true(sol.ok && base.ok);
		assert_true(fails > 0);
		worst_ok = fmax(worst_ok, fmax(sol.max_ratio, base.max_ratio));
		least_bad = fmin(least_bad, bad);
	}
	fprintf(stderr, "# two-pass kernels within %.2fx of the tolerance; one-pass over it by %.1fx or more at every size\n",
		worst_ok, least_bad);
	assert_true(worst_ok < 0.5);
	assert_true(least_bad > 5.0);
	/* on centred inputs the one-pass kernel passes: the offset
	 * distribution is what catches it */
	assert_true(ln_check(k_ln_one_pass, 0, 1, 1, 5).ok);
}

static void test_geometry_limits(void **state)
{
	unsigned g[3], b[3], sh;
	struct sc_tunable_values t = { { 2048 } };
	(void)state;
	assert_int_equal(sc_harness_geometry(g, b, &sh, &spec, &spec.correctness[1], NULL), 0);
	assert_int_equal(g[0], 17);
	assert_int_equal(b[0], 256);
	assert_int_equal(sc_harness_geometry(g, b, &sh, &spec, &spec.correctness[1], &t), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "launch.block[0]"));
}

/* Where there is no driver, opening CUDA says "compile-only", not a crash. */
static void test_cuda_open_without_gpu(void **state)
{
	struct sc_device *dev = NULL;
	int err = sc_device_cuda_open(&dev);
	(void)state;
	if (err == 0) {
		assert_string_equal(dev->kind, "cuda");
		assert_true(dev->info.l2_bytes > 0);
		dev->close(dev);
		skip();
	}
	assert_int_equal(err, SC_ENOSYS);
	assert_null(dev);
	assert_true(sc_starts_with(sc_error_last(), "no GPU: compile-only"));
}

/* ---- every timed launch by every rule, every distribution timed ---- */

/* Fast (0.25 ms) on the uniform(-4, 4) inputs of softmax, slow (2 ms) on
 * the normal(0, 1000) ones: its cost reads the inputs to tell them apart. */
static int64_t cost_fast_on_uniform(void **p, unsigned n)
{
	const float *x = X(p);
	(void)n;
	for (int i = 0; i < 8; i++)
		if (fabsf(x[i]) > 4.0f)
			return 2000000;
	return 250000;
}

/* Each repetition times every distribution; the speedup reported is the
 * slowest distribution's, with each one's beside it: a kernel fast on one
 * distribution only cannot own the median. */
static void test_timing_every_distribution(void **state)
{
	struct sc_timing_result r = run_timing(k_good, cost_fast_on_uniform, 0, cost_2ms, NULL);
	(void)state;
	assert_true(r.ok);
	assert_int_equal(r.ndists, 2);
	assert_true(fabs(r.dist[0].speedup - 8.0) < 1e-9);
	assert_true(fabs(r.dist[1].speedup - 1.0) < 1e-9);
	assert_int_equal(r.worst_dist, 1);
	assert_true(fabs(r.speedup - 1.0) < 1e-9);
	assert_true(fabs(r.cand.ev.median - 2.0) < 1e-9);
}

/* Right at the correctness sizes; at the timing size every value 0.8 of
 * rtol toward zero (about half of its tolerance, as a bfloat16 result
 * rounded toward zero is; a quarter of the doubled tolerance the checks
 * against the baseline allow): each element passes, the mean signed
 * error does not. */
static void k_toward_zero_when_timed(const struct sc_cpu_thread *t, void **p)
{
	softmax_row(t, p, at_timing_size(p) ? 1.0f - 0.8e-4f : 1.0f, true);
}

/* The same constant everywhere (the near-constant rule's case). */
static void k_const(const struct sc_cpu_thread *t, void **p)
{
	float *y = Y(p) + (size_t)t->bid[0] * (size_t)COLS(p);
	for (int c = (int)t->tid[0]; c < COLS(p); c += (int)t->block[0])
		y[c] = 1.0f / 64;
}

static void test_timing_judged_by_every_rule(void **state)
{
	struct sc_timing_result r;
	double saved = spec.max_mean_signed_error;
	(void)state;

	/* the bias bound holds where the kernel is timed, too */
	spec.max_mean_signed_error = 0.1;
	r = run_timing(k_toward_zero_when_timed, cost_500us, 0, cost_2ms, NULL);
	spec.max_mean_signed_error = saved;
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_MISMATCH);
	assert_non_null(strstr(r.message, "biased result"));
	/* without the bound (softmax's own spec) it is within tolerance */
	r = run_timing(k_toward_zero_when_timed, cost_500us, 0, cost_2ms, NULL);
	assert_true(r.ok);
	/* outputs a constant would pass cannot judge a timed launch */
	r = run_timing_opts(k_const, cost_500us, 0, k_const, cost_2ms, 0, NULL, NULL);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_CONSTANT);
	assert_non_null(strstr(r.message, "near-constant at the timed shape"));
}

/* The re-validation at the timed shape is judged against the CPU
 * reference when one is given (and affordable), with every rule. */
static void test_timing_revalidation_against_reference(void **state)
{
	struct sc_device *dev = sc_device_cpu_new(), *bdev = NULL;
	struct sc_kernel_handle c, b;
	struct sc_timing_opts_run o = { .timeout_ms = 1000, .check_every = 2, .ref = ref };
	struct sc_size_set shape = spec.timing;
	struct sc_timing_result r;
	(void)state;

	shape.v[0] = 9;  /* a shape of its own, given to the harness */
	sc_device_cpu_register(dev, "cand", k_good, cost_500us, 0);
	sc_device_cpu_register(dev, "base", k_good, cost_2ms, 0);
	assert_int_equal(dev->open_sibling(dev, &bdev), 0);
	load(dev, "cand", &c);
	load(bdev, "base", &b);
	o.shape = &shape;
	assert_int_equal(sc_harness_time(&r, dev, bdev, &spec, &c, &b, &o), 0);
	assert_true(r.ok);
	assert_true(r.reference_judged);
	assert_int_equal(r.shape.v[0], 9);
	assert_int_equal(r.shape.v[1], 64);
	o.ref = NULL;
	assert_int_equal(sc_harness_time(&r, dev, bdev, &spec, &c, &b, &o), 0);
	assert_true(r.ok);
	assert_false(r.reference_judged);
	bdev->close(bdev);
	dev->close(dev);
}

/* A fault is the faulting side's: the baseline's is not the candidate's. */
static void k_fault(const struct sc_cpu_thread *t, void **p)
{
	(void)p;
	if (t->bid[0] == 0 && t->tid[0] == 0)
		sc_device_cpu_fault("an illegal address was encountered");
}

static void test_timing_fault_attributed(void **state)
{
	struct sc_timing_result r = run_timing_opts(k_fault, cost_500us, 0, k_good, cost_2ms, 0, NULL, NULL);
	(void)state;
	assert_false(r.ok);
	assert_true(r.device_lost);
	assert_false(r.base_fault);
	assert_int_equal(r.reason, SC_REASON_LAUNCH);
	assert_non_null(strstr(r.message, "candidate"));
	assert_non_null(strstr(r.message, "illegal address"));
	r = run_timing_opts(k_good, cost_500us, 0, k_fault, cost_2ms, 0, NULL, NULL);
	assert_false(r.ok);
	assert_true(r.device_lost);
	assert_true(r.base_fault);
}

/* ---- determinism ---- */

/* Starts each row's maximum from its own first output element before
 * anything wrote it: fmaxf() ignores the NaN poison, not other contents. */
static void k_reads_output(const struct sc_cpu_thread *t, void **p)
{
	const float *x = X(p) + (size_t)t->bid[0] * (size_t)COLS(p);
	float *y = Y(p) + (size_t)t->bid[0] * (size_t)COLS(p);
	static float m0;
	float m, s = 0;
	int cols = COLS(p);

	if (t->tid[0] == 0)
		m0 = y[0];  /* the first thread reads before any thread of the row writes */
	m = m0;
	for (int c = 0; c < cols; c++)
		m = fmaxf(m, x[c]);
	for (int c = 0; c < cols; c++)
		s += expf(x[c] - m);
	for (int c = (int)t->tid[0]; c < cols; c += (int)t->block[0])
		y[c] = expf(x[c] - m) / s;
}

/* Results that move by a hair from launch to launch (an order of atomics
 * would). */
static void k_jitter(const struct sc_cpu_thread *t, void **p)
{
	softmax_row(t, p, t->launch_index % 2 ? 1.0f : 1.0f + 1e-6f, true);
}

static struct sc_check_result run_repeat(sc_cpu_kernel_fn fn, double repeat_tolerance)
{
	struct sc_device *dev = sc_device_cpu_new();
	struct sc_kernel_handle k;
	struct sc_check_opts o = { 2, 1, 1000, 0, false, true };
	struct sc_check_result r;
	double saved = spec.repeat_tolerance;

	spec.repeat_tolerance = repeat_tolerance;
	sc_device_cpu_register(dev, "k", fn, NULL, 0);
	load(dev, "k", &k);
	assert_int_equal(sc_harness_check(&r, dev, &spec, &k, ref, &o), 0);
	spec.repeat_tolerance = saved;
	dev->close(dev);
	return r;
}

static void test_check_determinism(void **state)
{
	struct sc_check_result r;
	(void)state;

	/* a right kernel: one more launch, nothing else */
	r = run_repeat(k_good, 0);
	assert_true(r.ok);
	assert_int_equal(r.launches, spec.ncorrectness * spec.ndists * 2 + 1);
	/* it reads memory it did not write: right on the poison, not twice */
	r = run_repeat(k_reads_output, 0);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_NONDETERMINISTIC);
	assert_non_null(strstr(r.message, "two runs on the same inputs disagree"));
	assert_non_null(strstr(r.message, "'y'"));
	assert_non_null(strstr(r.message, "the same bits twice"));
	assert_string_equal(sc_check_reason_name(r.reason), "nondeterministic");
	/* the run of a check without the determinism check passes it */
	r = run_check(k_reads_output);
	assert_true(r.ok);
	/* a hair of difference: refused bit for bit, within a stated bound */
	r = run_repeat(k_jitter, 0);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_NONDETERMINISTIC);
	r = run_repeat(k_jitter, 0.5);
	assert_true(r.ok);
	/* the size it runs at: the largest correctness size */
	assert_int_equal(sc_harness_repeat_size(&spec), 1);  /* 17 x 1000 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_tolerance_and_worst),
		cmocka_unit_test(test_compare_nan_inf_aware),
		cmocka_unit_test(test_compare_integers_exact_and_constant),
		cmocka_unit_test(test_compare_mean_signed_error),
		cmocka_unit_test(test_compare_terms_allowance),
		cmocka_unit_test(test_stats_median_iqr_rse),
		cmocka_unit_test(test_fill_is_seeded),
		cmocka_unit_test(test_check_passes_correct_kernel),
		cmocka_unit_test(test_check_noop_is_stale),
		cmocka_unit_test(test_check_scaled_is_mismatch_with_location),
		cmocka_unit_test(test_check_unsafe_softmax_fails_on_large_inputs),
		cmocka_unit_test(test_check_input_checksum),
		cmocka_unit_test(test_check_out_of_bounds_canary),
		cmocka_unit_test(test_timing_speedup_arithmetic),
		cmocka_unit_test(test_timing_spread_runs_to_cap),
		cmocka_unit_test(test_timing_side_stream_flagged_by_host_clock),
		cmocka_unit_test(test_timing_roofline_ceiling),
		cmocka_unit_test(test_timing_allows_both_tolerances),
		cmocka_unit_test(test_revalidation_catches_first_calls_cheat),
		cmocka_unit_test(test_timing_protocol_events_around_the_launch),
		cmocka_unit_test(test_timing_bursts_for_short_kernels),
		cmocka_unit_test(test_timing_launch_bound_burst_is_noted),
		cmocka_unit_test(test_timing_catches_pointer_keyed_cache),
		cmocka_unit_test(test_timing_catches_input_cache),
		cmocka_unit_test(test_timing_baseline_isolated_and_checked),
		cmocka_unit_test(test_timing_fresh_revalidation),
		cmocka_unit_test(test_timing_inputs_from_secret_seeds),
		cmocka_unit_test(test_check_hides_secret_seeds),
		cmocka_unit_test(test_timing_burst_decided_by_baseline),
		cmocka_unit_test(test_timing_fresh_inputs_and_own_buffers),
		cmocka_unit_test(test_timing_skipped_launches_caught),
		cmocka_unit_test(test_timing_warmup_launches_checked),
		cmocka_unit_test(test_timing_incremental_cache_earns_nothing),
		cmocka_unit_test(test_check_reference_after_launch),
		cmocka_unit_test(test_roofline_fp32_and_tensor_ceilings),
		cmocka_unit_test(test_timing_calibrated_spin),
		cmocka_unit_test(test_layernorm_inputs_reject_one_pass_variance),
		cmocka_unit_test(test_geometry_limits),
		cmocka_unit_test(test_cuda_open_without_gpu),
		cmocka_unit_test(test_timing_every_distribution),
		cmocka_unit_test(test_timing_judged_by_every_rule),
		cmocka_unit_test(test_timing_revalidation_against_reference),
		cmocka_unit_test(test_timing_fault_attributed),
		cmocka_unit_test(test_check_determinism),
	};
	return cmocka_run_group_tests_name("kernel_harness", tests, setup, teardown);
}
