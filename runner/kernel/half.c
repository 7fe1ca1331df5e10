/*
 * Narrow element types (half.h). The conversions work on the bit
 * patterns, as the hardware does: bfloat16 is the upper half of a float32,
 * float16 has a 5-bit exponent (bias 15) and 10 mantissa bits, float8
 * e4m3 a 4-bit exponent (bias 7) and 3 mantissa bits.
 */
#include "common.h"
#include "half.h"

#include <math.h>

size_t sc_dtype_size(enum sc_dtype t)
{
	return t == SC_DTYPE_E4M3 ? 1 : sc_dtype_is_half(t) ? 2 : 4;
}

bool sc_dtype_is_half(enum sc_dtype t)
{
	return t == SC_DTYPE_BF16 || t == SC_DTYPE_F16;
}

bool sc_dtype_is_narrow(enum sc_dtype t)
{
	return sc_dtype_is_half(t) || t == SC_DTYPE_E4M3;
}

bool sc_dtype_is_float(enum sc_dtype t)
{
	return t == SC_DTYPE_F32 || sc_dtype_is_half(t);
}

static uint32_t f32_bits(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return u;
}

static float bits_f32(uint32_t u)
{
	float f;
	memcpy(&f, &u, 4);
	return f;
}

uint16_t sc_bf16_from_f32(float f)
{
	uint32_t u = f32_bits(f);

	if ((u & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((u >> 16) | 0x0040u);  /* quiet NaN, sign kept */
	/* Add just under half an ulp, plus one when the kept part is odd:
	 * ties go to even; a carry moves into the exponent (up to infinity). */
	u += 0x7fffu + ((u >> 16) & 1u);
	return (uint16_t)(u >> 16);
}

float sc_bf16_to_f32(uint16_t h)
{
	return bits_f32((uint32_t)h << 16);
}

uint16_t sc_f16_from_f32(float f)
{
	uint32_t u = f32_bits(f);
	uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);

	u &= 0x7fffffffu;
	if (u > 0x7f800000u)
		return (uint16_t)(sign | 0x7e00u | ((u >> 13) & 0x3ffu));
	if (u >= 0x477ff000u)  /* 65520 and above round to infinity */
		return (uint16_t)(sign | 0x7c00u);
	if (u >= 0x38800000u) {  /* normal: rebias 127 -> 15, round 13 bits off */
		u -= 0x38000000u;
		u += 0x0fffu + ((u >> 13) & 1u);
		return (uint16_t)(sign | (u >> 13));
	}
	/* Subnormal (or zero): the value in units of 2^-24, rounded to an
	 * integer with ties to even; 1024 is the smallest normal, also right. */
	return (uint16_t)(sign | (uint16_t)rint((double)bits_f32(u) * 16777216.0));
}

float sc_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1fu, mant = h & 0x3ffu;

	if (exp == 0) {
		float v = (float)ldexp((double)mant, -24);
		return sign ? -v : v;
	}
	if (exp == 31)
		return bits_f32(sign | 0x7f800000u | (mant << 13));
	return bits_f32(sign | ((exp + 112) << 23) | (mant << 13));
}

/*
 * e4m3: exponent field 1..15 is a normal number (1 + m/8) * 2^(e-7), field
 * 0 a subnormal m/8 * 2^-6; 0x7f and 0xff (field 15, mantissa 7) are NaN,
 * so the largest finite value is 0x7e, 1.75 * 2^8 = 448. The encoder
 * works in double, where every step is exact but the one rint (the
 * current rounding mode: to nearest even).
 */
uint8_t sc_e4m3_from_f32(float f)
{
	uint8_t sign = signbit(f) ? 0x80 : 0;
	double a = fabs((double)f), r;
	int e;

	if (isnan(f))
		return sign | 0x7f;
	if (a >= 448.0)
		return sign | 0x7e;
	if (a < 0.015625)  /* below 2^-6: subnormal, in units of 2^-9; 8 is the smallest normal, 0x08 */
		return sign | (uint8_t)rint(a * 512.0);
	(void)frexp(a, &e);  /* a = m * 2^e, m in [0.5, 1) */
	e -= 1;              /* a in [2^e, 2^(e+1)) */
	r = rint(ldexp(a, 3 - e));  /* 8 .. 16 */
	if (r == 16.0) {
		r = 8.0;
		e++;
	}
	/* a < 448 cannot round past 0x7e */
	return sign | (uint8_t)(((e + 7) << 3) | ((int)r - 8));
}

float sc_e4m3_to_f32(uint8_t b)
{
	int e = (b >> 3) & 0xf, m = b & 7;
	double v;

	if (e == 15 && m == 7)
		return (b & 0x80) ? -NAN : NAN;
	v = e ? ldexp(8.0 + m, e - 10) : ldexp((double)m, -9);
	return (float)((b & 0x80) ? -v : v);
}

void sc_half_decode(float *dst, enum sc_dtype t, const void *src, size_t n)
{
	const uint16_t *h = src;
	const uint8_t *q = src;

	assert(sc_dtype_is_narrow(t));
	for (size_t i = 0; i < n; i++)
		dst[i] = t == SC_DTYPE_E4M3 ? sc_e4m3_to_f32(q[i])
		       : t == SC_DTYPE_BF16 ? sc_bf16_to_f32(h[i]) : sc_f16_to_f32(h[i]);
}

void sc_half_encode(void *dst, enum sc_dtype t, const float *src, size_t n)
{
	uint16_t *h = dst;
	uint8_t *q = dst;

	assert(sc_dtype_is_narrow(t));
	for (size_t i = 0; i < n; i++) {
		if (t == SC_DTYPE_E4M3)
			q[i] = sc_e4m3_from_f32(src[i]);
		else
			h[i] = t == SC_DTYPE_BF16 ? sc_bf16_from_f32(src[i]) : sc_f16_from_f32(src[i]);
	}
}
