/*
 * The strong reference (strong.h): cuBLAS's loader where the toolkit has
 * it and a clear reason where it does not; on the CPU double's library
 * GEMM, the check of the library's output against the CPU reference (for
 * B K x N and B N x K, and a reference of the other layout caught), the
 * timing by events, and a fixture, a layout or a device without one.
 * The fixture's solution as the strong reference (softmax's spec and CPU
 * reference, "kernels" registered as C functions with known costs): the
 * speedup over it exact, a solution wrong at the check size not timed, a
 * fixture without one; and the pick of the faster of library and solution.
 */
#include "unit.h"
#include "cublas.h"
#include "device.h"
#include "harness.h"
#include "refs.h"
#include "spec.h"
#include "strong.h"

#include <math.h>

static void test_cublas_missing_library(void **state)
{
	static const char *const names[] = { "libskillci-no-such-cublas.so.7", "libskillci-nor-this.so", NULL };
	struct sc_cublas cb;
	(void)state;

	assert_int_equal(sc_cublas_open(&cb, names), SC_ENOSYS);
	assert_non_null(strstr(sc_error_last(), "no cuBLAS"));
	assert_non_null(strstr(sc_error_last(), "libskillci-no-such-cublas.so.7"));
	assert_non_null(strstr(sc_error_last(), "libskillci-nor-this.so"));
	assert_null(cb.lib);
	assert_null(cb.gemm_ex);
}

/* Where the CUDA toolkit's cuBLAS is on the loader's path, every entry
 * point the strong reference calls resolves (no GPU needed to load it). */
static void test_cublas_toolkit_library(void **state)
{
	struct sc_cublas cb;
	(void)state;

	if (sc_cublas_open(&cb, NULL) < 0) {
		print_message("no cuBLAS here (%s): loader not exercised\n", sc_error_last());
		skip();
	}
	assert_non_null(cb.lib);
	assert_non_null(cb.create);
	assert_non_null(cb.destroy);
	assert_non_null(cb.get_version);
	assert_non_null(cb.gemm_ex);
	assert_true(!strncmp(cb.soname, "libcublas.so", 12));
}

/* ---- on the CPU double ---- */

static const char *gemm_json =
	"{\"name\":\"gemm-bf16\",\"entry\":\"g\",\"size_vars\":[\"M\",\"N\",\"K\"],"
	"\"params\":[{\"name\":\"A\",\"kind\":\"buffer\",\"type\":\"bfloat16\",\"role\":\"in\",\"shape\":\"M*K\","
	"\"init\":[{\"dist\":\"uniform\",\"lo\":-1,\"hi\":1}]},"
	"{\"name\":\"B\",\"kind\":\"buffer\",\"type\":\"bfloat16\",\"role\":\"in\",\"shape\":\"BSHAPE\","
	"\"init\":[{\"dist\":\"uniform\",\"lo\":-1,\"hi\":1}]},"
	"EXTRA"
	"{\"name\":\"C\",\"kind\":\"buffer\",\"type\":\"bfloat16\",\"role\":\"out\",\"shape\":\"M*N\"},"
	"{\"name\":\"M\",\"kind\":\"scalar\",\"type\":\"int32\",\"value\":\"M\"},"
	"{\"name\":\"N\",\"kind\":\"scalar\",\"type\":\"int32\",\"value\":\"N\"},"
	"{\"name\":\"K\",\"kind\":\"scalar\",\"type\":\"int32\",\"value\":\"K\"}],"
	"\"sizes\":{\"correctness\":[{\"M\":17,\"N\":65,\"K\":33}],\"timing\":{\"M\":64,\"N\":32,\"K\":16}},"
	"\"launch\":{\"grid\":[1,1,1],\"block\":[32,1,1]},"
	"\"tolerance\":{\"atol\":1e-3,\"rtol\":0.0078125},\"flops\":\"2*M*N*K\",\"bytes\":\"2*(M*K+K*N+M*N)\"}";

static struct sc_spec spec;

static void load(const char *bshape, const char *extra)
{
	struct sc_buf b = SC_BUF_INIT;
	const char *p = gemm_json, *at;

	while ((at = strpbrk(p, "BE")) != NULL) {
		sc_buf_put(&b, p, (size_t)(at - p));
		if (!strncmp(at, "BSHAPE", 6)) {
			sc_buf_puts(&b, bshape);
			p = at + 6;
		} else if (!strncmp(at, "EXTRA", 5)) {
			sc_buf_puts(&b, extra);
			p = at + 5;
		} else {
			sc_buf_put(&b, at, 1);
			p = at + 1;
		}
	}
	sc_buf_puts(&b, p);
	if (sc_spec_parse(&spec, b.ptr, b.len, "gemm-bf16/spec.json") < 0)
		fail_msg("%s", sc_error_last());
	sc_buf_release(&b);
}

/* References in double: C = A B (B K x N), C = A B^T (B N x K). Params:
 * A, B, C, M, N, K. */
static void ref_nn(const struct sc_ref_args *a)
{
	const float *A = a->buf[0], *B = a->buf[1];
	float *C = a->buf[2];
	int64_t M = a->i[3], N = a->i[4], K = a->i[5];
	for (int64_t m = 0; m < M; m++)
		for (int64_t n = 0; n < N; n++) {
			double s = 0;
			for (int64_t k = 0; k < K; k++)
				s += (double)A[m * K + k] * B[k * N + n];
			C[m * N + n] = (float)s;
		}
}

static void ref_nt(const struct sc_ref_args *a)
{
	const float *A = a->buf[0], *B = a->buf[1];
	float *C = a->buf[2];
	int64_t M = a->i[3], N = a->i[4], K = a->i[5];
	for (int64_t m = 0; m < M; m++)
		for (int64_t n = 0; n < N; n++) {
			double s = 0;
			for (int64_t k = 0; k < K; k++)
				s += (double)A[m * K + k] * B[n * K + k];
			C[m * N + n] = (float)s;
		}
}

static struct sc_strong_result run(const char *fixture, sc_ref_fn ref, int64_t ns_per_gflop)
{
	struct sc_device *d = sc_device_cpu_new();
	struct sc_strong_result r;

	sc_device_cpu_set_library(d, ns_per_gflop);
	assert_int_equal(sc_strong_time(&r, d, fixture, &spec, ref, &spec.correctness[0], &spec.timing, 9, 1000), 0);
	d->close(d);
	return r;
}

static void test_strong_checked_and_timed(void **state)
{
	struct sc_strong_result r;
	(void)state;

	for (int nk = 0; nk < 2; nk++) {
		load(nk ? "N * K" : "K*N", "");
		r = run("gemm-bf16", nk ? ref_nt : ref_nn, 1000000);
		if (!r.done)
			fail_msg("%s: %s", nk ? "N x K" : "K x N", r.why);
		assert_true(r.applies);
		assert_int_equal(r.b_nk, nk);
		assert_string_equal(r.name, "CPU double's GEMM");
		/* 2 * 64 * 32 * 16 flops at 1 ms per GFLOP: 65 ns on the
		 * virtual clock, every one of the 9 calls */
		assert_int_equal(r.reps, 9);
		assert_true(fabs(r.median_ms - 65e-6) < 1e-12);
		assert_true(r.q1_ms == r.median_ms && r.q3_ms == r.median_ms);
		sc_spec_release(&spec);
	}
	/* twice as slow a library: twice the time */
	load("K*N", "");
	r = run("gemm-bf16", ref_nn, 2000000);
	assert_true(r.done && fabs(r.median_ms - 131e-6) < 1e-12);
	sc_spec_release(&spec);
}

/* A call of the wrong layout (here: a reference of the other one) is
 * caught by the check and not timed. */
static void test_strong_wrong_layout_caught(void **state)
{
	struct sc_strong_result r;
	(void)state;

	load("K*N", "");
	r = run("gemm-bf16", ref_nt, 1000000);
	assert_true(r.applies);
	assert_false(r.done);
	assert_int_equal(r.reps, 0);
	assert_non_null(strstr(r.why, "differs from the CPU reference at 17 x 65 x 33"));
	sc_spec_release(&spec);
}

static void test_strong_absent(void **state)
{
	struct sc_strong_result r;
	(void)state;

	/* a device without a library */
	load("K*N", "");
	r = run("gemm-bf16", ref_nn, -1);
	assert_true(r.applies);
	assert_false(r.done);
	assert_non_null(strstr(r.why, "no library GEMM"));
	/* a fixture without a strong reference */
	r = run("softmax-bf16", ref_nn, 1000000);
	assert_false(r.applies);
	assert_false(r.done);
	sc_spec_release(&spec);

	/* a bias vector of N is allowed (not part of the call) */
	load("N*K", "{\"name\":\"bias\",\"kind\":\"buffer\",\"type\":\"bfloat16\",\"role\":\"in\",\"shape\":\"N\","
		    "\"init\":[{\"dist\":\"uniform\",\"lo\":-1,\"hi\":1}]},");
	r = run("gemm-bf16", NULL, 1000000);
	assert_true(r.applies);
	assert_false(r.done);
	assert_non_null(strstr(r.why, "no CPU reference"));
	sc_spec_release(&spec);

	/* a parameter the call has no place for */
	load("K*N", "{\"name\":\"D\",\"kind\":\"buffer\",\"type\":\"bfloat16\",\"role\":\"in\",\"shape\":\"M*N\","
		    "\"init\":[{\"dist\":\"uniform\",\"lo\":-1,\"hi\":1}]},");
	r = run("gemm-bf16", ref_nn, 1000000);
	assert_true(r.applies);
	assert_false(r.done);
	assert_non_null(strstr(r.why, "parameter 'D' (M*N) has no place"));
	sc_spec_release(&spec);
}

/* ---- the fixture's solution (softmax on the CPU double) ---- */

#define SX(p) ((float *)(uintptr_t)*(uint64_t *)(p)[0])
#define SY(p) ((float *)(uintptr_t)*(uint64_t *)(p)[1])
#define SCOLS(p) (*(int *)(p)[3])

/* Thread (row, t) writes columns t, t+B, ... of softmax(x) * scale. */
static void softmax_scaled(const struct sc_cpu_thread *t, void **p, float scale)
{
	const float *x = SX(p) + (size_t)t->bid[0] * (size_t)SCOLS(p);
	float *y = SY(p) + (size_t)t->bid[0] * (size_t)SCOLS(p);
	float m = -INFINITY, s = 0;
	int cols = SCOLS(p);

	for (int c = 0; c < cols; c++)
		m = fmaxf(m, x[c]);
	for (int c = 0; c < cols; c++)
		s += expf(x[c] - m);
	for (int c = (int)t->tid[0]; c < cols; c += (int)t->block[0])
		y[c] = scale * expf(x[c] - m) / s;
}

static void k_softmax(const struct sc_cpu_thread *t, void **p) { softmax_scaled(t, p, 1.0f); }
static void k_softmax_wrong(const struct sc_cpu_thread *t, void **p) { softmax_scaled(t, p, 0.5f); }
static int64_t cost_1ms(void **p, unsigned n) { (void)p; (void)n; return 1000000; }
static int64_t cost_250us(void **p, unsigned n) { (void)p; (void)n; return 250000; }
static int64_t cost_4ms(void **p, unsigned n) { (void)p; (void)n; return 4000000; }

static void kload(struct sc_device *dev, const char *name, struct sc_kernel_handle *k)
{
	memset(k, 0, sizeof(*k));
	assert_int_equal(dev->load(dev, name, strlen(name), "softmax", &k->fn), 0);
	k->tun.v[0] = 32;
	k->image = name;
	k->image_len = strlen(name);
	k->entry = "softmax";
}

/* The candidate's kernel of run_solution (k_softmax unless a test says). */
static sc_cpu_kernel_fn cand_fn = k_softmax;

/* Wrong (0.9x) at the timing size (8 x 64) only: the strong reference's
 * timing is where it shows. */
static void k_softmax_wrong_when_timed(const struct sc_cpu_thread *t, void **p)
{
	softmax_scaled(t, p, SCOLS(p) == 64 && *(int *)p[2] == 8 ? 0.9f : 1.0f);
}

/* Faults at the timing size only. */
static void k_softmax_fault_when_timed(const struct sc_cpu_thread *t, void **p)
{
	if (SCOLS(p) == 64 && *(int *)p[2] == 8)
		sc_device_cpu_fault("an illegal instruction was encountered (trap)");
	else
		softmax_scaled(t, p, 1.0f);
}

/* The candidate (1 ms a launch) against a solution registered as name
 * (sol_fn at sol_cost); with_sol false: a fixture without a solution. */
static struct sc_strong_result run_solution(sc_cpu_kernel_fn sol_fn, sc_cpu_cost_fn sol_cost, bool with_sol)
{
	struct sc_device *dev = sc_device_cpu_new(), *sdev = NULL;
	struct sc_kernel_handle c, s;
	struct sc_timing_opts_run o = { 1000, 2, 0, 0x1234, 0, 0, NULL, NULL };
	struct sc_strong_result r;
	struct sc_spec sm;

	assert_int_equal(sc_spec_load(&sm, "fixtures/softmax/spec.json"), 0);
	sm.timing.v[0] = 8;   /* a small timing size for the double */
	sm.timing.v[1] = 64;
	sc_device_cpu_register(dev, "cand", cand_fn, cost_1ms, 0);
	sc_device_cpu_register(dev, "solution", sol_fn, sol_cost, 0);
	assert_int_equal(dev->open_sibling(dev, &sdev), 0);
	kload(dev, "cand", &c);
	kload(sdev, "solution", &s);
	assert_int_equal(sc_strong_time_solution(&r, dev, sdev, &sm, sc_ref_lookup("softmax"), &c,
						 with_sol ? &s : NULL, "fixture solution fixtures/softmax/solution.cu", &o,
						 &sm.timing, 1),
			 0);
	sdev->close(sdev);
	dev->close(dev);
	sc_spec_release(&sm);
	return r;
}

/* A solution at 250 us against a candidate at 1 ms: 0.25x, exactly. */
static void test_solution_timed(void **state)
{
	struct sc_strong_result r;
	(void)state;

	r = run_solution(k_softmax, cost_250us, true);
	if (!r.done)
		fail_msg("%s", r.why);
	assert_true(r.applies);
	assert_false(r.library);
	assert_string_equal(r.name, "fixture solution fixtures/softmax/solution.cu");
	assert_true(fabs(r.median_ms - 0.25) < 1e-9);
	assert_true(fabs(r.speedup - 0.25) < 1e-9);
	assert_true(r.reps >= 2);
	assert_non_null(strstr(r.method, "as the naive baseline is"));
	/* a slower solution: the candidate is 4x faster */
	r = run_solution(k_softmax, cost_4ms, true);
	assert_true(r.done);
	assert_true(fabs(r.median_ms - 4.0) < 1e-9);
	assert_true(fabs(r.speedup - 4.0) < 1e-9);
}

/* A solution wrong at the check size is not timed, and says why. */
static void test_solution_wrong_not_timed(void **state)
{
	struct sc_strong_result r;
	(void)state;

	r = run_solution(k_softmax_wrong, cost_250us, true);
	assert_true(r.applies);
	assert_false(r.done);
	assert_int_equal(r.reps, 0);
	assert_true(isnan(r.speedup));
	assert_non_null(strstr(r.why, "the solution fails the check at the first correctness size"));
	assert_non_null(strstr(r.why, "'y'"));
}

/* The strong reference's timing is a check like the others: a wrong
 * result of the candidate there fails the unit, with its reason; so does
 * a fault of its launch. A fault of the solution's is not the
 * candidate's. */
static void test_solution_phase_checks_the_candidate(void **state)
{
	struct sc_strong_result r;
	(void)state;

	cand_fn = k_softmax_wrong_when_timed;
	r = run_solution(k_softmax, cost_250us, true);
	cand_fn = k_softmax;
	assert_true(r.failed);
	assert_false(r.done);
	assert_int_equal(r.reason, SC_REASON_MISMATCH);
	assert_non_null(strstr(r.message, "during the timing against the strong reference"));
	assert_non_null(strstr(r.message, "fixture solution fixtures/softmax/solution.cu"));
	assert_non_null(strstr(r.message, "rows=8 cols=64"));
	cand_fn = k_softmax_fault_when_timed;
	r = run_solution(k_softmax, cost_250us, true);
	cand_fn = k_softmax;
	assert_true(r.failed);
	assert_true(r.device_lost);
	assert_int_equal(r.reason, SC_REASON_LAUNCH);
	assert_non_null(strstr(r.message, "trap"));
	/* a right candidate is not failed */
	r = run_solution(k_softmax, cost_250us, true);
	assert_false(r.failed);
	assert_true(r.done);
	assert_int_equal(r.nshapes, 1);
	assert_true(fabs(r.shape_speedup[0] - 0.25) < 1e-9);
}

/* The solution faulting during the timing is a failure outside the
 * candidate: an error, never the candidate's fail. */
static void test_solution_fault_is_no_fail(void **state)
{
	struct sc_device *dev = sc_device_cpu_new(), *sdev = NULL;
	struct sc_kernel_handle c, s;
	struct sc_timing_opts_run o = { .timeout_ms = 1000, .check_every = 2, .secret = 0x1234 };
	struct sc_strong_result r;
	struct sc_spec sm;
	(void)state;

	assert_int_equal(sc_spec_load(&sm, "fixtures/softmax/spec.json"), 0);
	sm.timing.v[0] = 8;
	sm.timing.v[1] = 64;
	sc_device_cpu_register(dev, "cand", k_softmax, cost_1ms, 0);
	sc_device_cpu_register(dev, "solution", k_softmax_fault_when_timed, cost_250us, 0);
	assert_int_equal(dev->open_sibling(dev, &sdev), 0);
	kload(dev, "cand", &c);
	kload(sdev, "solution", &s);
	assert_int_equal(sc_strong_time_solution(&r, dev, sdev, &sm, sc_ref_lookup("softmax"), &c, &s, "solution", &o,
						 &sm.timing, 1),
			 SC_EGPU);
	assert_false(r.failed);
	assert_non_null(strstr(r.why, "the solution faulted"));
	sdev->close(sdev);
	dev->close(dev);
	sc_spec_release(&sm);
}

static void test_solution_none(void **state)
{
	struct sc_strong_result r;
	(void)state;

	r = run_solution(k_softmax, cost_250us, false);
	assert_false(r.applies);
	assert_false(r.done);
	assert_true(isnan(r.speedup));
	assert_string_equal(r.why, "the fixture has no solution.cu");
}

static struct sc_strong_result made(bool applies, bool done, bool library, const char *name, double ms, double speedup)
{
	struct sc_strong_result r;
	memset(&r, 0, sizeof(r));
	r.applies = applies;
	r.done = done;
	r.library = library;
	snprintf(r.name, sizeof(r.name), "%s", name);
	snprintf(r.why, sizeof(r.why), "%s: why", name);
	r.median_ms = ms;
	r.speedup = done ? speedup : NAN;
	return r;
}

/* The faster of the library and the solution (the smaller speedup over
 * it) is kept, its name saying which it beat; one alone is kept as is. */
static void test_pick(void **state)
{
	struct sc_strong_result lib = made(true, true, true, "cuBLAS", 0.5, 2.0);
	struct sc_strong_result sol = made(true, true, false, "fixture solution", 0.25, 1.0), r;
	(void)state;

	sc_strong_pick(&r, &lib, &sol);
	assert_true(r.done && !r.library);
	assert_true(r.speedup == 1.0 && r.median_ms == 0.25);
	assert_string_equal(r.name, "fixture solution (faster than cuBLAS: 0.25 ms vs 0.5 ms)");
	sol.median_ms = 1.0;
	sol.speedup = 4.0;
	sc_strong_pick(&r, &lib, &sol);
	assert_true(r.done && r.library && r.speedup == 2.0);
	assert_string_equal(r.name, "cuBLAS (faster than fixture solution: 0.5 ms vs 1 ms)");
	/* the solution not timed: the library alone */
	sol = made(true, false, false, "fixture solution", 0, 0);
	sc_strong_pick(&r, &lib, &sol);
	assert_true(r.done && r.speedup == 2.0);
	assert_string_equal(r.name, "cuBLAS");
	/* no library kernel (another fixture): the solution alone */
	lib = made(false, false, false, "", 0, 0);
	sol = made(true, true, false, "fixture solution", 0.25, 1.5);
	sc_strong_pick(&r, &lib, &sol);
	assert_true(r.done && r.speedup == 1.5);
	assert_string_equal(r.name, "fixture solution");
	/* neither timed: both reasons */
	lib = made(true, false, true, "cuBLAS", 0, 0);
	sol = made(true, false, false, "fixture solution", 0, 0);
	sc_strong_pick(&r, &lib, &sol);
	assert_true(r.applies && !r.done && isnan(r.speedup));
	assert_string_equal(r.why, "cuBLAS: why; fixture solution: why");
	/* nothing applies */
	sol = made(false, false, false, "none", 0, 0);
	lib = made(false, false, false, "", 0, 0);
	sc_strong_pick(&r, &lib, &sol);
	assert_false(r.applies);
	assert_string_equal(r.why, "none: why");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cublas_missing_library),
		cmocka_unit_test(test_cublas_toolkit_library),
		cmocka_unit_test(test_strong_checked_and_timed),
		cmocka_unit_test(test_strong_wrong_layout_caught),
		cmocka_unit_test(test_strong_absent),
		cmocka_unit_test(test_solution_timed),
		cmocka_unit_test(test_solution_wrong_not_timed),
		cmocka_unit_test(test_solution_none),
		cmocka_unit_test(test_solution_phase_checks_the_candidate),
		cmocka_unit_test(test_solution_fault_is_no_fail),
		cmocka_unit_test(test_pick),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
