// fixture: gemm-w4a16-awq
// Variant: the dequantisation of AutoAWQ's and exllama's kernels, w = q * s - (z * s) as one float16 fused multiply-add with z * s rounded to float16 first (__hfma2(q, s, -zs)): two float16 roundings of terms of size |q * s| and |z * s|, float32 accumulation.
// expect-emu: passed none
#include <cuda_fp16.h>

__device__ __forceinline__ int awq_nibble(int word, int n)
{
    // AWQ packs columns {0, 2, 4, 6, 1, 3, 5, 7} of each group of eight
    // into nibbles 0..7: column j sits in nibble (j & 1) * 4 + (j >> 1)
    const int j = n & 7;
    return (int)(((unsigned)word >> (4 * ((j & 1) * 4 + (j >> 1)))) & 15u);
}

extern "C" __global__ void gemm_w4a16_awq(const __half* x, const int* qweight, const int* qzeros, const __half* scales,
                                          __half* y, int M, int N, int K)
{
    for (int idx = threadIdx.x; idx < TILE_M * TILE_N; idx += THREADS) {
        const int m = blockIdx.y * TILE_M + idx / TILE_N;
        const int n = blockIdx.x * TILE_N + idx % TILE_N;
        if (m >= M || n >= N)
            continue;
        float acc = 0.0f;
        for (int k = 0; k < K; k++) {
            const int g = k / 128;
            const int q = awq_nibble(qweight[(size_t)k * (N / 8) + n / 8], n);
            const int z = awq_nibble(qzeros[(size_t)g * (N / 8) + n / 8], n);
            const __half s = scales[(size_t)g * N + n];
            const __half zs = __hmul(__float2half((float)z), s);
            const float w = __half2float(__hfma(__float2half((float)q), s, __float2half(-__half2float(zs))));
            acc += __half2float(x[(size_t)m * K + k]) * w;
        }
        y[(size_t)m * N + n] = __float2half(acc);
    }
}
