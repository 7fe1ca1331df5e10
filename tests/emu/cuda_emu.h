/*
 * A host emulation of the CUDA device subset skillci's fixture kernels use,
 * for running their baselines and solutions through the real harness on
 * the CPU double (tests/emu/emu-check.sh). Force-included before a kernel
 * source compiled as C++ by the host compiler:
 *
 * - every CUDA thread of a block is a coroutine (emu_runtime.cc); threads
 *   run one at a time and switch only at __syncthreads, __syncwarp and the
 *   warp-collective operations (shuffles, votes, WMMA), so a missing
 *   barrier shows up as a read of data not yet written;
 * - __shared__ is a static variable in the section emu_shared: one per
 *   program, shared by the threads of the block that runs, and filled
 *   with a pattern that changes from block to block before each block
 *   runs (what a GPU leaves in shared memory is another block's data), so
 *   a read of shared memory no thread of the block wrote gives garbage;
 * - __trap() faults the launch (the CPU double's device is then lost, as
 *   a CUDA context after a fault);
 * - bfloat16/float16 values round to nearest even exactly as the device
 *   does (the harness's own conversions);
 * - WMMA fragments hold the whole 16x16 matrix in every lane (the device
 *   spreads it over the warp in an unspecified layout; code that follows
 *   the API cannot tell), with the API's alignment rules checked and the
 *   lanes of a warp required to agree, as the hardware requires.
 *
 * What it does not model: timing, occupancy, register and shared-memory
 * limits (NVRTC checks those), races between warps that run concurrently
 * on a GPU (threads here run to the next barrier one after another), and
 * dynamic shared memory.
 */
#ifndef SKILLCI_CUDA_EMU_H
#define SKILLCI_CUDA_EMU_H

#include <cfloat>
#include <climits>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <type_traits>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __noinline__
#define __shared__ static __attribute__((section("emu_shared")))
#define __constant__ static
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define SKILLCI_EMU 1

struct dim3 {
	unsigned x, y, z;
};
typedef dim3 uint3;

extern "C" {
/* The calling coroutine's coordinates. */
extern uint3 emu_threadIdx, emu_blockIdx;
extern dim3 emu_blockDim, emu_gridDim;
void emu_syncthreads(void);
void emu_syncwarp(void);
/* Deposits n bytes for this lane, waits for the warp, copies lane src's. */
void emu_exchange(const void *mine, void *out, size_t n, int src);
unsigned emu_lane(void);
[[noreturn]] void emu_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A trap: the launch faults; the calling thread stops here. */
[[noreturn]] void emu_trap(void);
uint16_t sc_bf16_from_f32(float f);
float sc_bf16_to_f32(uint16_t h);
uint16_t sc_f16_from_f32(float f);
float sc_f16_to_f32(uint16_t h);
}

#define threadIdx emu_threadIdx
#define blockIdx emu_blockIdx
#define blockDim emu_blockDim
#define gridDim emu_gridDim
#define warpSize 32

static inline void __syncthreads(void) { emu_syncthreads(); }
static inline void __syncwarp(unsigned mask = 0xffffffffu) { (void)mask; emu_syncwarp(); }
static inline void __threadfence(void) {}
static inline void __trap(void) { emu_trap(); }
static inline void __threadfence_block(void) {}
static inline unsigned __activemask(void) { return 0xffffffffu; }

/* ---- warp collectives ---- */

template <class T> static inline T emu_shfl(T v, int src)
{
	T out;
	emu_exchange(&v, &out, sizeof(T), src);
	return out;
}
template <class T> static inline T __shfl_sync(unsigned mask, T v, int src, int width = 32)
{
	(void)mask;
	return emu_shfl(v, (int)(emu_lane() / (unsigned)width * (unsigned)width) + (src % width));
}
template <class T> static inline T __shfl_xor_sync(unsigned mask, T v, int lm, int width = 32)
{
	int lane = (int)emu_lane(), src = lane ^ lm;
	(void)mask;
	if (src / width != lane / width)
		src = lane;
	return emu_shfl(v, src);
}
template <class T> static inline T __shfl_down_sync(unsigned mask, T v, unsigned d, int width = 32)
{
	int lane = (int)emu_lane(), src = lane + (int)d;
	(void)mask;
	if (src / width != lane / width)
		src = lane;
	return emu_shfl(v, src);
}
template <class T> static inline T __shfl_up_sync(unsigned mask, T v, unsigned d, int width = 32)
{
	int lane = (int)emu_lane(), src = lane - (int)d;
	(void)mask;
	if (src < 0 || src / width != lane / width)
		src = lane;
	return emu_shfl(v, src);
}
static inline unsigned __ballot_sync(unsigned mask, int pred)
{
	unsigned r = 0;
	(void)mask;
	for (int l = 0; l < 32; l++) {
		int p = pred != 0;
		int got;
		emu_exchange(&p, &got, sizeof(int), l);
		r |= (unsigned)got << l;
	}
	return r;
}
static inline int __any_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) != 0; }
static inline int __all_sync(unsigned mask, int pred) { return __ballot_sync(mask, pred) == 0xffffffffu; }

/* ---- math, bits and memory hints ---- */

/* The fast intrinsics as the accurate functions (glibc declares, but does
 * not export, functions of these names: hence the macros). */
static inline float emu_expf(float x) { return expf(x); }
static inline float emu_exp2f(float x) { return exp2f(x); }
static inline float emu_logf(float x) { return logf(x); }
static inline float emu_sinf(float x) { return sinf(x); }
static inline float emu_cosf(float x) { return cosf(x); }
#define __expf emu_expf
#define __exp2f emu_exp2f
#define __logf emu_logf
#define __sinf emu_sinf
#define __cosf emu_cosf
static inline float __fdividef(float a, float b) { return a / b; }
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline float __frsqrt_rn(float x) { return 1.0f / sqrtf(x); }
static inline float __saturatef(float x) { return x < 0 ? 0 : x > 1 ? 1 : x; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline void sincosf_emu(float x, float *s, float *c) { *s = sinf(x); *c = cosf(x); }
#define sincosf sincosf_emu
static inline float __int_as_float(int i) { float f; memcpy(&f, &i, 4); return f; }
static inline int __float_as_int(float f) { int i; memcpy(&i, &f, 4); return i; }
static inline float __uint_as_float(unsigned i) { float f; memcpy(&f, &i, 4); return f; }
static inline unsigned __float_as_uint(float f) { unsigned i; memcpy(&i, &f, 4); return i; }
static inline int __popc(unsigned x) { return __builtin_popcount(x); }
static inline int __clz(int x) { return x ? __builtin_clz((unsigned)x) : 32; }
static inline int __ffs(int x) { return __builtin_ffs(x); }
static inline int min(int a, int b) { return a < b ? a : b; }
static inline int max(int a, int b) { return a > b ? a : b; }
static inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static inline long long min(long long a, long long b) { return a < b ? a : b; }
static inline long long max(long long a, long long b) { return a > b ? a : b; }
static inline float min(float a, float b) { return fminf(a, b); }
static inline float max(float a, float b) { return fmaxf(a, b); }
template <class T> static inline T __ldg(const T *p) { return *p; }
template <class T> static inline T __ldcs(const T *p) { return *p; }
template <class T> static inline T __ldcg(const T *p) { return *p; }
template <class T> static inline void __stcs(T *p, T v) { *p = v; }
template <class T> static inline void __stcg(T *p, T v) { *p = v; }

/* Atomics: threads never interleave between two instructions here. */
template <class T> static inline T atomicAdd(T *p, T v) { T o = *p; *p = o + v; return o; }
template <class T> static inline T atomicMax(T *p, T v) { T o = *p; if (v > o) *p = v; return o; }
template <class T> static inline T atomicMin(T *p, T v) { T o = *p; if (v < o) *p = v; return o; }
template <class T> static inline T atomicExch(T *p, T v) { T o = *p; *p = v; return o; }
template <class T> static inline T atomicCAS(T *p, T cmp, T v) { T o = *p; if (o == cmp) *p = v; return o; }

/* Time, as a kernel reads it (clock64; clock() stays the C library's): a monotonic nanosecond count (so a cycle
 * is a nanosecond), and a sleep that sleeps. */
#include <time.h>
static inline long long clock64(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
static inline void __nanosleep(unsigned ns)
{
	struct timespec ts = { 0, (long)ns };
	nanosleep(&ts, NULL);
}

/* ---- vector types ---- */

struct __attribute__((aligned(8))) float2 { float x, y; };
struct __attribute__((aligned(16))) float4 { float x, y, z, w; };
struct __attribute__((aligned(8))) int2 { int x, y; };
struct __attribute__((aligned(16))) int4 { int x, y, z, w; };
struct __attribute__((aligned(8))) uint2 { unsigned x, y; };
struct __attribute__((aligned(16))) uint4 { unsigned x, y, z, w; };
static inline float2 make_float2(float x, float y) { return float2{ x, y }; }
static inline float4 make_float4(float x, float y, float z, float w) { return float4{ x, y, z, w }; }
static inline int2 make_int2(int x, int y) { return int2{ x, y }; }
static inline int4 make_int4(int x, int y, int z, int w) { return int4{ x, y, z, w }; }
static inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{ x, y }; }
static inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{ x, y, z, w }; }

/* ---- bfloat16 and float16 ---- */

struct __nv_bfloat16 {
	uint16_t __x;
	__nv_bfloat16() = default;
	__nv_bfloat16(float f) : __x(sc_bf16_from_f32(f)) {}
	__nv_bfloat16(double f) : __x(sc_bf16_from_f32((float)f)) {}
	__nv_bfloat16(int i) : __x(sc_bf16_from_f32((float)i)) {}
	operator float() const { return sc_bf16_to_f32(__x); }
};
struct __attribute__((aligned(4))) __nv_bfloat162 {
	__nv_bfloat16 x, y;
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

struct __half {
	uint16_t __x;
	__half() = default;
	__half(float f) : __x(sc_f16_from_f32(f)) {}
	__half(double f) : __x(sc_f16_from_f32((float)f)) {}
	__half(int i) : __x(sc_f16_from_f32((float)i)) {}
	operator float() const { return sc_f16_to_f32(__x); }
};
struct __attribute__((aligned(4))) __half2 {
	__half x, y;
};
typedef __half half;
typedef __half2 half2;

static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }
/* toward zero: the float32's top 16 bits (a NaN stays a NaN) */
static inline __nv_bfloat16 __float2bfloat16_rz(float f)
{
	uint32_t u;
	__nv_bfloat16 h;
	memcpy(&u, &f, 4);
	h.__x = (u & 0x7fffffffu) > 0x7f800000u ? (uint16_t)((u >> 16) | 0x40u) : (uint16_t)(u >> 16);
	return h;
}
static inline float __bfloat162float(__nv_bfloat16 h) { return (float)h; }
static inline __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return { __nv_bfloat16(a), __nv_bfloat16(b) }; }
static inline __nv_bfloat162 __float22bfloat162_rn(float2 f) { return { __nv_bfloat16(f.x), __nv_bfloat16(f.y) }; }
static inline __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return { a, b }; }
static inline __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 a) { return { a, a }; }
static inline float2 __bfloat1622float2(__nv_bfloat162 h) { return { (float)h.x, (float)h.y }; }
static inline float __low2float(__nv_bfloat162 h) { return (float)h.x; }
static inline float __high2float(__nv_bfloat162 h) { return (float)h.y; }
static inline __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a + (float)b); }
static inline __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat16((float)a * (float)b); }
static inline __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c)
{
	return __nv_bfloat16((float)((double)(float)a * (float)b + (float)c));
}
static inline __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) { return (float)a > (float)b ? a : b; }
static inline __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) { return { __hadd(a.x, b.x), __hadd(a.y, b.y) }; }
static inline __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) { return { __hmul(a.x, b.x), __hmul(a.y, b.y) }; }
static inline __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c)
{
	return { __hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y) };
}

static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline float __half2float(__half h) { return (float)h; }
static inline __half2 __floats2half2_rn(float a, float b) { return { __half(a), __half(b) }; }
static inline __half2 __float22half2_rn(float2 f) { return { __half(f.x), __half(f.y) }; }
static inline float2 __half22float2(__half2 h) { return { (float)h.x, (float)h.y }; }
static inline __half __hadd(__half a, __half b) { return __half((float)a + (float)b); }
static inline __half __hmul(__half a, __half b) { return __half((float)a * (float)b); }
static inline __half __hfma(__half a, __half b, __half c) { return __half((float)((double)(float)a * (float)b + (float)c)); }
static inline __half2 __hadd2(__half2 a, __half2 b) { return { __hadd(a.x, b.x), __hadd(a.y, b.y) }; }
static inline __half2 __hfma2(__half2 a, __half2 b, __half2 c) { return { __hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y) }; }

/* ---- WMMA (<mma.h>) ---- */

extern "C" {
/* The warp's result of this lane's next MMA, when an earlier lane computed
 * it from the same operands (1), or 0: then compute and publish it. */
int emu_mma_lookup(const void *key, size_t keylen, void *result, size_t reslen);
void emu_mma_publish(const void *key, size_t keylen, const void *result, size_t reslen);
}

namespace nvcuda {
namespace wmma {

struct matrix_a {};
struct matrix_b {};
struct accumulator {};
struct row_major {};
struct col_major {};
enum layout_t { mem_row_major, mem_col_major };

template <class Use, int M, int N, int K> struct dims;
template <int M, int N, int K> struct dims<matrix_a, M, N, K> { enum { R = M, C = K }; };
template <int M, int N, int K> struct dims<matrix_b, M, N, K> { enum { R = K, C = N }; };
template <int M, int N, int K> struct dims<accumulator, M, N, K> { enum { R = M, C = N }; };

/* x[r * C + c] is element (r, c) of the logical matrix, in every lane. */
template <class Use, int M, int N, int K, class T, class Layout = void> struct fragment {
	enum { R = dims<Use, M, N, K>::R, C = dims<Use, M, N, K>::C };
	static constexpr int num_elements = R * C;
	T x[R * C];
};

template <class Use, int M, int N, int K, class T, class L, class V>
static inline void fill_fragment(fragment<Use, M, N, K, T, L> &f, const V &v)
{
	for (int i = 0; i < f.num_elements; i++)
		f.x[i] = T(v);
}

static inline void check_ptr(const void *p, unsigned ldm, size_t esize, const char *what)
{
	if ((uintptr_t)p % 32)
		emu_fail("wmma::%s: pointer %p is not 256-bit aligned", what, p);
	if ((ldm * esize) % 16)
		emu_fail("wmma::%s: ldm %u is not a multiple of 16 bytes", what, ldm);
}

template <class Use, int M, int N, int K, class T, class L>
static inline void load_matrix_sync(fragment<Use, M, N, K, T, L> &f, const T *p, unsigned ldm)
{
	typedef fragment<Use, M, N, K, T, L> F;
	check_ptr(p, ldm, sizeof(T), "load_matrix_sync");
	for (int r = 0; r < F::R; r++)
		for (int c = 0; c < F::C; c++)
			f.x[r * F::C + c] = std::is_same<L, col_major>::value ? p[r + (size_t)c * ldm] : p[(size_t)r * ldm + c];
}

template <int M, int N, int K, class T>
static inline void load_matrix_sync(fragment<accumulator, M, N, K, T> &f, const T *p, unsigned ldm, layout_t l)
{
	check_ptr(p, ldm, sizeof(T), "load_matrix_sync");
	for (int r = 0; r < M; r++)
		for (int c = 0; c < N; c++)
			f.x[r * N + c] = l == mem_col_major ? p[r + (size_t)c * ldm] : p[(size_t)r * ldm + c];
}

template <int M, int N, int K, class T>
static inline void store_matrix_sync(T *p, const fragment<accumulator, M, N, K, T> &f, unsigned ldm, layout_t l)
{
	check_ptr(p, ldm, sizeof(T), "store_matrix_sync");
	for (int r = 0; r < M; r++)
		for (int c = 0; c < N; c++)
			(l == mem_col_major ? p[r + (size_t)c * ldm] : p[(size_t)r * ldm + c]) = f.x[r * N + c];
}

/* d = a b + c in float32 (products of two 16-bit values are exact). The
 * lanes of a warp must pass equal fragments; the first lane computes, the
 * others check their operands against it and take its result. */
template <int M, int N, int K, class TA, class LA, class LB, class TC>
static inline void mma_sync(fragment<accumulator, M, N, K, TC> &d, const fragment<matrix_a, M, N, K, TA, LA> &a,
			    const fragment<matrix_b, M, N, K, TA, LB> &b, const fragment<accumulator, M, N, K, TC> &c)
{
	struct key {
		fragment<matrix_a, M, N, K, TA, LA> a;
		fragment<matrix_b, M, N, K, TA, LB> b;
		fragment<accumulator, M, N, K, TC> c;
	} k;
	fragment<accumulator, M, N, K, TC> out;

	memset(&k, 0, sizeof(k));
	k.a = a;
	k.b = b;
	k.c = c;
	if (!emu_mma_lookup(&k, sizeof(k), &out, sizeof(out))) {
		for (int i = 0; i < M; i++)
			for (int j = 0; j < N; j++) {
				float s = (float)c.x[i * N + j];
				for (int kk = 0; kk < K; kk++)
					s += (float)a.x[i * K + kk] * (float)b.x[kk * N + j];
				out.x[i * N + j] = TC(s);
			}
		emu_mma_publish(&k, sizeof(k), &out, sizeof(out));
	}
	d = out;
}

} /* namespace wmma */
} /* namespace nvcuda */

#endif
