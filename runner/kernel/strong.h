#ifndef SC_KERNEL_STRONG_H
#define SC_KERNEL_STRONG_H
/*
 * The strong reference of a fixture: what a user would run instead of a
 * hand-written kernel, timed as a second baseline so that a result says
 * "x times the naive baseline" and "y times the strong reference".
 *
 * Every fixture's strong reference is its own solution (solution.cu,
 * pinned with the fixture by fixtures.lock), compiled like the baseline
 * and timed against the candidate by the same harness method as the
 * baseline (sc_strong_time_solution). For gemm-bf16 there is also the
 * vendor GEMM (cuBLAS cublasGemmEx through the device layer's
 * ->lib_gemm_bf16), on the fixture's own layout (B K x N, or N x K as
 * nn.Linear holds W; a bias vector of N is not part of the timed call)
 * (sc_strong_time); the faster of the two is the strong reference
 * (sc_strong_pick). Before either is timed, its output at a correctness
 * size is checked against the fixture's CPU reference, so a wrong
 * solution or a wrong call (operand order, transposition) reports itself
 * ("not timed: ...") instead of a time.
 */
#include <stdbool.h>
#include <stddef.h>

#include "device.h"
#include "fixture_ref.h"
#include "harness.h"
#include "spec.h"

struct sc_strong_result {
	bool applies;     /* the fixture has a strong reference */
	bool done;        /* ... and it was checked and timed */
	bool library;     /* it is the vendor library's call (else the fixture's solution) */
	char name[320];   /* what ran ("cuBLAS 130000 (libcublas.so.13) cublasGemmEx, ...",
			   * "fixture solution fixtures/softmax/solution.cu") */
	char why[512];    /* !done: why not (also when it does not apply) */
	char method[160]; /* done: how it was timed */
	double median_ms, q1_ms, q3_ms;
	size_t reps;
	double speedup;   /* done: its median over the candidate's (the geometric mean over the
			   * timed shapes); NAN otherwise */
	bool b_nk;        /* the layout the call used: B is N x K */
	/* Each timed shape's speedup and median (the first shape's median is
	 * median_ms). */
	size_t nshapes;
	double shape_speedup[SC_SPEC_MAX_TIMED], shape_median_ms[SC_SPEC_MAX_TIMED];
	/* The candidate failed a check of this timing (a wrong or stale
	 * output, a modified input, a write out of bounds, a fault or a
	 * timeout of its own launch): the unit fails with reason and
	 * message, as in any other check. */
	bool failed;
	enum sc_check_reason reason;
	bool device_lost;
	char message[1280];
};

/*
 * Checks the strong reference of fixture (spec, its CPU reference ref) at
 * check (a size set: M, N, K) and times it at timed, reps single calls
 * between two events after a warm-up, on d's stream. Fills out; returns 0
 * (also when it does not apply or the library is missing: out says so),
 * or SC_EGPU when the device failed.
 */
int sc_strong_time(struct sc_strong_result *out, struct sc_device *d, const char *fixture, const struct sc_spec *spec,
		   sc_ref_fn ref, const struct sc_size_set *check, const struct sc_size_set *timed, int reps, int timeout_ms);

/*
 * The fixture's solution sol (loaded on sd, a sibling of d; name says
 * what it is) as the strong reference of candidate cand (loaded on d):
 * first checked against ref on the spec's first correctness size with
 * one seed (on sd), then timed against cand by sc_harness_time with to at
 * each of shapes[0..nshapes), exactly as the naive baseline is (every
 * check during and after the timing). A solution that fails its check,
 * or faults, is "not timed" with why; a check of the candidate that
 * fails there (or a fault of its launch) sets out->failed with the
 * reason: the unit fails. sol NULL is a fixture without a solution
 * (applies false, why says so). out->speedup is the geometric mean of
 * the harness's speedups of cand over sol. Returns 0, or a negative code
 * for a failure outside the kernels (the device is then unusable).
 */
int sc_strong_time_solution(struct sc_strong_result *out, struct sc_device *d, struct sc_device *sd,
			    const struct sc_spec *spec, sc_ref_fn ref, const struct sc_kernel_handle *cand,
			    const struct sc_kernel_handle *sol, const char *name, const struct sc_timing_opts_run *to,
			    const struct sc_size_set *shapes, size_t nshapes);

/*
 * The strong reference of a fixture from the library's result lib and
 * the solution's sol (each done or not, either may not apply): the one
 * done with the smaller speedup of the candidate over it (the faster
 * reference); its name then says which it was faster than. Neither done:
 * not done, why naming both reasons (applies when either applies).
 */
void sc_strong_pick(struct sc_strong_result *out, const struct sc_strong_result *lib,
		    const struct sc_strong_result *sol);

#endif
