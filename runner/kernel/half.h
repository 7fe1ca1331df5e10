#ifndef SC_KERNEL_HALF_H
#define SC_KERNEL_HALF_H
/*
 * Element types of fixture buffers and the narrow-precision conversions the
 * harness needs (docs/fixtures.md, "Buffer types"). bfloat16 and float16
 * buffers hold 16-bit elements on the device, float8_e4m3 ones 8-bit
 * elements (inputs only); inputs are generated in
 * float32 and rounded to the type (round to nearest, ties to even), the CPU
 * reference reads and writes float32 views of them, and outputs are
 * compared after widening to float32. Pure functions, no allocation.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "spec.h"

/* A NaN in both bfloat16 and float16 (exponent all ones, mantissa not
 * zero): written over half-precision outputs before each launch. */
#define SC_HALF_POISON 0x7fd1u

/* Bytes per element: 1 for float8_e4m3, 2 for bfloat16/float16, 4
 * otherwise. */
size_t sc_dtype_size(enum sc_dtype t);
/* bfloat16 or float16. */
bool sc_dtype_is_half(enum sc_dtype t);
/* bfloat16, float16 or float8_e4m3: held narrow on the device, generated
 * and seen by the CPU reference as float32 (sc_half_encode/decode). */
bool sc_dtype_is_narrow(enum sc_dtype t);
/* float32, bfloat16 or float16: compared with a tolerance, not exactly. */
bool sc_dtype_is_float(enum sc_dtype t);

/* float32 -> bfloat16, round to nearest even; NaN stays a quiet NaN,
 * values past the largest bfloat16 become infinity. */
uint16_t sc_bf16_from_f32(float f);
float sc_bf16_to_f32(uint16_t h);
/* float32 -> IEEE binary16, round to nearest even, with subnormals;
 * |f| >= 65520 becomes infinity. */
uint16_t sc_f16_from_f32(float f);
float sc_f16_to_f32(uint16_t h);

/* float32 -> OCP float8 e4m3 (sign, 4 exponent bits of bias 7, 3
 * mantissa bits; subnormals; no infinity; 0x7f/0xff the only NaNs): round
 * to nearest even, saturating to +-448 (the "satfinite" conversion of
 * quantisation code); NaN becomes 0x7f with its sign. */
uint8_t sc_e4m3_from_f32(float f);
float sc_e4m3_to_f32(uint8_t b);

/* n elements of type t (a narrow type) at src widened into dst. */
void sc_half_decode(float *dst, enum sc_dtype t, const void *src, size_t n);
/* n floats rounded to t (a narrow type) into dst. */
void sc_half_encode(void *dst, enum sc_dtype t, const float *src, size_t n);

#endif
