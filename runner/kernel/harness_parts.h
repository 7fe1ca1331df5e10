#ifndef SC_KERNEL_HARNESS_PARTS_H
#define SC_KERNEL_HARNESS_PARTS_H
/*
 * Private to runner/kernel/harness*.c: what the harness's three parts
 * share. harness_inputs.c builds problem instances (host copies, the
 * reference's answers, guarded device buffers); harness.c judges a launch
 * and runs the correctness checks; harness_time.c times and re-validates.
 * Callers outside the harness use harness.h.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "harness.h"
#include "sha256.h"

/* One problem instance: host copies, device buffers with guards, launch params. */
struct sc_harness_instance {
	size_t nparams;
	size_t dist;                        /* input distribution index */
	size_t count[SC_REF_MAX_PARAMS];    /* elements, buffers */
	size_t esize[SC_REF_MAX_PARAMS];    /* bytes per element */
	void *host_in[SC_REF_MAX_PARAMS];   /* initial contents (in/inout), device layout */
	void *want[SC_REF_MAX_PARAMS];      /* reference result (out/inout); float32 for half types */
	float *terms[SC_REF_MAX_PARAMS];    /* the reference's sums of |terms| (spec terms_rtol) */
	void *got[SC_REF_MAX_PARAMS];       /* device layout */
	unsigned char sum[SC_REF_MAX_PARAMS][SC_SHA256_LEN];
	uint64_t base[SC_REF_MAX_PARAMS];   /* allocation (guard included) */
	uint64_t dptr[SC_REF_MAX_PARAMS];   /* base + guard */
	int32_t ival[SC_REF_MAX_PARAMS];
	float fval[SC_REF_MAX_PARAMS];
	double dval[SC_REF_MAX_PARAMS];     /* the scalars as the reference reads them */
	uint64_t gen_seed;                  /* timing sets: the seed the inputs were generated from */
	int64_t lval[SC_REF_MAX_PARAMS];
	void *params[SC_REF_MAX_PARAMS];
};
/* The splitmix64 step: the next value of the stream at *s. */
static inline uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* The seed of one parameter's inputs for a distribution at a size. */
uint64_t sc_harness_mix_seed(uint64_t seed, size_t param, size_t dist, size_t size_index);

/* Frees an instance's host copies (answers wiped) and, with d, its device
 * buffers; leaves it zeroed. */
void sc_harness_instance_release(struct sc_harness_instance *in, struct sc_device *d);
/*
 * Builds the host side of one instance: sizes and scalars, and with
 * inputs the inputs from the distributions (with their checksums) and
 * room for downloads. The reference is computed apart
 * (sc_harness_instance_ref), after the candidate's launch has finished.
 */
int sc_harness_instance_host(struct sc_harness_instance *in, const struct sc_spec *spec,
			     const struct sc_size_set *size, size_t size_index, size_t dist,
			     uint64_t seed, bool inputs);
/* The reference outputs of an instance built with inputs, from its host
 * copies; called only after the candidate's launch has finished. */
void sc_harness_instance_ref(struct sc_harness_instance *in, const struct sc_spec *spec,
			     const struct sc_size_set *size, sc_ref_fn ref);
/* Makes dst a host-side copy of src (inputs, scalars, output space). */
void sc_harness_instance_copy_host(struct sc_harness_instance *dst,
				   const struct sc_harness_instance *src);
/* Allocates device buffers with guards and fills the guards with the canary. */
int sc_harness_instance_alloc(struct sc_harness_instance *in, struct sc_device *d);
/* Writes the NaN poison (or the integer pattern) over a buffer of type t;
 * alt: the determinism check's finite contents (SC_HARNESS_ALT_*). */
int sc_harness_poison(struct sc_device *d, uint64_t dst, enum sc_dtype t, size_t count, bool alt);
/* Sets scalar params to point at the right storage (float or int). */
void sc_harness_instance_bind_scalars(struct sc_harness_instance *in, const struct sc_spec *spec);
/* Copies inputs up (only inout ones unless all_inputs) and poisons outputs
 * (with the determinism check's contents when alt). */
int sc_harness_instance_reset(struct sc_harness_instance *in, struct sc_device *d,
			      const struct sc_spec *spec, bool all_inputs, bool alt);

/* A result's message field, formatted (cut to cap). */
static inline void set_msg(char *dst, size_t cap, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static inline void set_msg(char *dst, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, cap, fmt, ap);
	va_end(ap);
}

/* Launches and waits; a refusal, fault or timeout is the kernel's failure
 * (*reason set). */
int sc_harness_launch_and_wait(struct sc_device *d, const struct sc_kernel_handle *k,
			       struct sc_harness_instance *in, const unsigned grid[3],
			       const unsigned block[3], unsigned shared, int timeout_ms,
			       enum sc_check_reason *reason);
/*
 * Downloads guards, inputs and outputs of one instance and judges them:
 * *good is false with out's reason, message and worst set on a failure.
 * Returns negative only when a copy from the device fails.
 */
int sc_harness_judge(struct sc_check_result *out, struct sc_device *d, const struct sc_spec *spec,
		     struct sc_harness_instance *in, const struct sc_size_set *size,
		     size_t size_index, size_t dist, uint64_t seed, const char *seedtxt, bool *good);

#endif
