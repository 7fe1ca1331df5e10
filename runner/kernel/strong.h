#ifndef SC_KERNEL_STRONG_H
#define SC_KERNEL_STRONG_H
/*
 * The strong reference of a fixture: what a user would run instead of a
 * hand-written kernel, timed as a second baseline so that a result says
 * "x times the naive baseline" and "y times the library". For gemm-bf16
 * it is the vendor GEMM (cuBLAS cublasGemmEx through the device layer's
 * ->lib_gemm_bf16), on the fixture's own layout (B K x N, or N x K as
 * nn.Linear holds W; a bias vector of N is not part of the timed call).
 * Other fixtures have none here. Before it is timed, the library's output
 * at a small size is checked against the fixture's CPU reference, so a
 * wrong call (operand order, transposition) reports itself instead of a
 * time.
 */
#include <stdbool.h>
#include <stddef.h>

#include "device.h"
#include "fixture_ref.h"
#include "spec.h"

struct sc_strong_result {
	bool applies;     /* the fixture has a strong reference */
	bool done;        /* ... and it was checked and timed */
	char name[160];   /* what ran ("cuBLAS 130000 (libcublas.so.13) cublasGemmEx, ...") */
	char why[512];    /* applies && !done: why not */
	double median_ms, q1_ms, q3_ms;
	size_t reps;
	bool b_nk;        /* the layout the call used: B is N x K */
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

#endif
