/*
 * The kernel harness on the CPU double: comparison, NaN poison, guard
 * canaries, input checksums, near-constant rejection, timing statistics,
 * speedup arithmetic, the host-clock cross-check, the roofline ceiling and
 * re-validation after timing. Kernels here are C functions run per thread
 * on the softmax fixture's spec and CPU reference.
 */
#include "unit.h"
#include "device.h"
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

static int64_t cost_2ms(void **p, unsigned n) { (void)p; (void)n; return 2000000; }
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

/* Loads name from dev into k with BLOCK=32. */
static void load(struct sc_device *dev, const char *name, struct sc_kernel_handle *k)
{
	memset(k, 0, sizeof(*k));
	assert_int_equal(dev->load(dev, name, strlen(name), "softmax", &k->fn), 0);
	k->tun.v[0] = 32;
}

static struct sc_check_result run_check(sc_cpu_kernel_fn fn)
{
	struct sc_device *dev = sc_device_cpu_new();
	struct sc_kernel_handle k;
	struct sc_check_opts o = { 5, 1, 1000, 0 };
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

static void test_stats_median_iqr_rse(void **state)
{
	double x[8] = { 8, 1, 7, 2, 6, 3, 5, 4 };
	struct sc_stats s;
	(void)state;

	sc_stats_compute(&s, x, 8);
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

/* Times cand against base; both registered with costs. */
static struct sc_timing_result run_timing(sc_cpu_kernel_fn cfn, sc_cpu_cost_fn ccost, int64_t hidden,
					  sc_cpu_cost_fn bcost, struct sc_device **devp)
{
	struct sc_device *dev = sc_device_cpu_new();
	struct sc_kernel_handle c, b;
	struct sc_timing_opts_run o = { 1000, 2, 0 };
	struct sc_timing_result r;

	sc_device_cpu_register(dev, "cand", cfn, ccost, hidden);
	sc_device_cpu_register(dev, "base", k_good, bcost, 0);
	load(dev, "cand", &c);
	load(dev, "base", &b);
	assert_int_equal(sc_harness_time(&r, dev, &spec, &c, &b, &o), 0);
	if (devp)
		*devp = dev;
	else
		dev->close(dev);
	return r;
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

static void test_revalidation_catches_first_calls_cheat(void **state)
{
	struct sc_device *dev = sc_device_cpu_new();
	struct sc_check_result chk;
	struct sc_kernel_handle k, b;
	struct sc_check_opts o = { 5, 1, 1000, 0 };
	struct sc_timing_opts_run to = { 1000, 2, 0 };
	struct sc_timing_result r;
	(void)state;

	sc_device_cpu_register(dev, "k", k_first_calls, cost_500us, 0);
	sc_device_cpu_register(dev, "base", k_good, cost_2ms, 0);
	load(dev, "k", &k);
	load(dev, "base", &b);
	/* The check alone (40 launches) passes ... */
	assert_int_equal(sc_harness_check(&chk, dev, &spec, &k, ref, &o), 0);
	assert_true(chk.ok);
	/* ... the re-validation after timing, on the same device, does not. */
	assert_int_equal(sc_harness_time(&r, dev, &spec, &k, &b, &to), 0);
	assert_false(r.ok);
	assert_int_equal(r.reason, SC_REASON_MISMATCH);
	assert_non_null(strstr(r.message, "re-validation"));
	dev->close(dev);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_compare_tolerance_and_worst),
		cmocka_unit_test(test_compare_nan_inf_aware),
		cmocka_unit_test(test_compare_integers_exact_and_constant),
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
		cmocka_unit_test(test_revalidation_catches_first_calls_cheat),
		cmocka_unit_test(test_geometry_limits),
		cmocka_unit_test(test_cuda_open_without_gpu),
	};
	return cmocka_run_group_tests_name("kernel_harness", tests, setup, teardown);
}
