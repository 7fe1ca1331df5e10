/*
 * The counter-based input generator (gen.h). The host and CUDA versions
 * compute the same hash of (seed, i); the distributions then use double
 * arithmetic, so both give the same float32 values up to the last bit of
 * log/cos in the normal distribution (the timing compares the candidate
 * with the baseline, both fed by the device generator, never with the
 * host's copy).
 */
#include "common.h"
#include "gen.h"
#include "half.h"

#include <math.h>

static uint64_t hash(uint64_t seed, uint64_t i, uint64_t lane)
{
	uint64_t z = seed ^ (i * 2 + lane + 1) * 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unit(uint64_t seed, uint64_t i, uint64_t lane)
{
	return (double)(hash(seed, i, lane) >> 11) * (1.0 / 9007199254740992.0);
}

void sc_gen_fill(void *dst, enum sc_dtype t, size_t n, const struct sc_dist *dist, uint64_t seed)
{
	for (size_t i = 0; i < n; i++) {
		double v;
		if (dist->kind == SC_DIST_UNIFORM) {
			v = dist->a + (dist->b - dist->a) * unit(seed, i, 0);
		} else if (dist->kind == SC_DIST_NORMAL) {
			double u1 = unit(seed, i, 0), u2 = unit(seed, i, 1);
			if (u1 < 1e-300)
				u1 = 1e-300;
			v = dist->a + dist->b * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
		} else {
			v = floor(dist->a + (dist->b - dist->a + 1) * unit(seed, i, 0));
			if (v > dist->b)
				v = dist->b;
		}
		if (t == SC_DTYPE_F32)
			((float *)dst)[i] = (float)v;
		else if (sc_dtype_is_narrow(t))
			sc_half_encode((char *)dst + i * sc_dtype_size(t), t, &(float){ (float)v }, 1);
		else if (t == SC_DTYPE_I32)
			((int32_t *)dst)[i] = (int32_t)fmax(fmin(v, 2147483647.0), -2147483648.0);
		else
			((uint32_t *)dst)[i] = (uint32_t)fmax(fmin(v, 4294967295.0), 0.0);
	}
}

/* The same, one element per thread; the dtype and kind numbers are those
 * of enum sc_dtype and enum sc_dist_kind. Rounding to bfloat16/float16/
 * float8_e4m3 is sc_half_encode's (round to nearest even; e4m3 saturating),
 * written out so that the source needs no header. */
const char sc_gen_cuda_source[] =
	"typedef unsigned long long u64;\n"
	"__device__ static u64 sc_hash(u64 seed, u64 i, u64 lane) {\n"
	"  u64 z = seed ^ (i * 2 + lane + 1) * 0x9e3779b97f4a7c15ULL;\n"
	"  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;\n"
	"  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;\n"
	"  return z ^ (z >> 31);\n"
	"}\n"
	"__device__ static double sc_unit(u64 s, u64 i, u64 l) { return (double)(sc_hash(s, i, l) >> 11) * (1.0 / 9007199254740992.0); }\n"
	"__device__ static unsigned short sc_round16(float f, int bf) {\n"
	"  unsigned u = __float_as_uint(f), sign;\n"
	"  if (bf) { if ((u & 0x7fffffffu) > 0x7f800000u) return (unsigned short)((u >> 16) | 0x40u);\n"
	"            return (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16); }\n"
	"  sign = (u >> 16) & 0x8000u; u &= 0x7fffffffu;\n"
	"  if (u > 0x7f800000u) return (unsigned short)(sign | 0x7e00u | ((u >> 13) & 0x3ffu));\n"
	"  if (u >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);\n"
	"  if (u >= 0x38800000u) { u -= 0x38000000u; u += 0x0fffu + ((u >> 13) & 1u); return (unsigned short)(sign | (u >> 13)); }\n"
	"  return (unsigned short)(sign | (unsigned)rint((double)__uint_as_float(u) * 16777216.0));\n"
	"}\n"
	"__device__ static unsigned char sc_round8(float f) {\n"
	"  unsigned char sign = signbit(f) ? 0x80 : 0; double a = fabs((double)f), r; int e;\n"
	"  if (isnan(f)) return sign | 0x7f;\n"
	"  if (a >= 448.0) return sign | 0x7e;\n"
	"  if (a < 0.015625) return sign | (unsigned char)rint(a * 512.0);\n"
	"  (void)frexp(a, &e); e -= 1; r = rint(ldexp(a, 3 - e));\n"
	"  if (r == 16.0) { r = 8.0; e++; }\n"
	"  return sign | (unsigned char)(((e + 7) << 3) | ((int)r - 8));\n"
	"}\n"
	"extern \"C\" __global__ void sc_gen(void *dst, u64 n, int dtype, int kind, double a, double b, u64 seed) {\n"
	"  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {\n"
	"    double v;\n"
	"    if (kind == 0) v = a + (b - a) * sc_unit(seed, i, 0);\n"
	"    else if (kind == 1) { double u1 = sc_unit(seed, i, 0), u2 = sc_unit(seed, i, 1); if (u1 < 1e-300) u1 = 1e-300;\n"
	"      v = a + b * sqrt(-2.0 * log(u1)) * cos(2.0 * 3.14159265358979323846 * u2); }\n"
	"    else { v = floor(a + (b - a + 1) * sc_unit(seed, i, 0)); if (v > b) v = b; }\n"
	"    if (dtype == 0) ((float *)dst)[i] = (float)v;\n"
	"    else if (dtype == 1) ((int *)dst)[i] = (int)fmax(fmin(v, 2147483647.0), -2147483648.0);\n"
	"    else if (dtype == 2) ((unsigned *)dst)[i] = (unsigned)fmax(fmin(v, 4294967295.0), 0.0);\n"
	"    else if (dtype == 5) ((unsigned char *)dst)[i] = sc_round8((float)v);\n"
	"    else ((unsigned short *)dst)[i] = sc_round16((float)v, dtype == 3);\n"
	"  }\n"
	"}\n";
