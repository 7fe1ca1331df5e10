// fixture: gemm-fp8-e4m3
// Variant: torch._scaled_mm's arithmetic as this fixture's tolerance assumes it (cuBLASLt FP8 GEMM with float32 accumulation, aten/src/ATen/native/cuda/Blas.cpp _scaled_mm_out_cuda): exact e4m3 products summed in 32-deep tensor-core steps into a float32 accumulator, the two per-tensor scales applied once in the epilogue, one rounding to bfloat16.
// expect-emu: passed none
#include <cuda_bf16.h>

__device__ __forceinline__ float e4m3_to_float(unsigned b)
{
    const unsigned e = (b >> 3) & 15u, m = b & 7u;
    // normal: (1 + m/8) * 2^(e-7), i.e. float32 exponent field e + 120;
    // subnormal: m * 2^-9
    const float v = e ? __uint_as_float(((e + 120u) << 23) | (m << 20)) : (float)m * 0.001953125f;
    return (b & 0x80u) ? -v : v;
}

extern "C" __global__ void gemm_fp8_e4m3(const unsigned char* A, const unsigned char* W, const float* scale_a,
                                         const float* scale_b, __nv_bfloat16* C, int M, int N, int K)
{
    const int row = blockIdx.y * TILE_M + (int)threadIdx.x / TILE_N;
    const int col = blockIdx.x * TILE_N + (int)threadIdx.x % TILE_N;
    if ((int)threadIdx.x >= TILE_M * TILE_N || row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 32) {
        float step = 0.0f;
        for (int k = k0; k < k0 + 32 && k < K; k++)
            step += e4m3_to_float(A[(size_t)row * K + k]) * e4m3_to_float(W[(size_t)col * K + k]);
        acc += step;
    }
    C[(size_t)row * N + col] = __float2bfloat16(acc * (scale_a[0] * scale_b[0]));
}
