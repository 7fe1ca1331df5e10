#ifndef SC_KERNEL_GEN_H
#define SC_KERNEL_GEN_H
/*
 * The counter-based input generator of the timing launches: element i of
 * a buffer depends on (seed, i) alone, so the device can regenerate a
 * whole buffer in one cheap launch, and the candidate's and the baseline's
 * copies (each generated in its own context from the same seed) hold the
 * same values. sc_gen_fill is the host version (the CPU double's fill, and
 * the fallback where the device has no generator loaded);
 * sc_gen_cuda_source is the same generator as a CUDA kernel, compiled by
 * the worker and loaded into each context.
 */
#include <stddef.h>
#include <stdint.h>

#include "spec.h"

/* Fills n elements of type t at dst from dist: element i from (seed, i). */
void sc_gen_fill(void *dst, enum sc_dtype t, size_t n, const struct sc_dist *dist, uint64_t seed);

/* CUDA source of the generator: extern "C" __global__ void sc_gen(void *dst,
 * unsigned long long n, int dtype, int kind, double a, double b,
 * unsigned long long seed), one element per thread (grid-stride). */
extern const char sc_gen_cuda_source[];
#define SC_GEN_ENTRY "sc_gen"

#endif
