// Pitfall: rounding the result toward zero (truncating the float32 sum to bfloat16) instead of to nearest: every element is within one bfloat16 ulp, the error leans one way.
// fixture: gemm-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void gemm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* W, const __nv_bfloat16* bias,
                                     __nv_bfloat16* y, int M, int N, int K)
{
    for (int idx = threadIdx.x; idx < TILE_M * TILE_N; idx += THREADS) {
        const int m = blockIdx.y * TILE_M + idx / TILE_N;
        const int n = blockIdx.x * TILE_N + idx % TILE_N;
        if (m < M && n < N) {
            float s = 0.0f;
            for (int k = 0; k < K; k++)
                s += __bfloat162float(x[(size_t)m * K + k]) * __bfloat162float(W[(size_t)n * K + k]);
            y[(size_t)m * N + n] = __float2bfloat16_rz(s + __bfloat162float(bias[n]));
        }
    }
}
