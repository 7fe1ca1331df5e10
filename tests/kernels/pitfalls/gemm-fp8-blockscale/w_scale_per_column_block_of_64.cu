// Pitfall: weight blocks of 64 columns of N assumed (w_scale[(col / 64) ...]) where the blocks are 128 x 128.
// fixture: gemm-fp8-blockscale
// expect-emu: failed mismatch
#include <cuda_bf16.h>

__device__ __forceinline__ float e4m3_to_float(unsigned b)
{
    const unsigned e = (b >> 3) & 15u, m = b & 7u;
    // normal: (1 + m/8) * 2^(e-7), i.e. float32 exponent field e + 120;
    // subnormal: m * 2^-9
    const float v = e ? __uint_as_float(((e + 120u) << 23) | (m << 20)) : (float)m * 0.001953125f;
    return (b & 0x80u) ? -v : v;
}

extern "C" __global__ void gemm_fp8_blockscale(const unsigned char* A, const float* a_scale, const unsigned char* W,
                                               const float* w_scale, __nv_bfloat16* C, int M, int N, int K)
{
    const int row = blockIdx.y * TILE_M + (int)threadIdx.x / TILE_N;
    const int col = blockIdx.x * TILE_N + (int)threadIdx.x % TILE_N;
    if ((int)threadIdx.x >= TILE_M * TILE_N || row >= M || col >= N)
        return;
    const int nb = K / 128;
    float acc = 0.0f;
    for (int b = 0; b < nb; b++) {
        float part = 0.0f;
        for (int k = b * 128; k < b * 128 + 128; k++)
            part += e4m3_to_float(A[(size_t)row * K + k]) * e4m3_to_float(W[(size_t)col * K + k]);
        acc += part * (a_scale[(size_t)row * nb + b] * w_scale[(size_t)((col / 64) % ((N + 127) / 128)) * nb + b]);
    }
    C[(size_t)row * N + col] = __float2bfloat16(acc);
}
