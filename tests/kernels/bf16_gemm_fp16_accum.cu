// Planted: gemm-bf16 with a float16 accumulator (as an MMA with a half
// accumulator, or __hfma chains, would do): the long sums over K lose
// precision (K = 1000 and 4097 fail the tolerance by 10-30x).
// fixture: gemm-bf16
// The PTX shows the float16 arithmetic: float16 has fewer exponent bits than
// the fixture's bf16 precision, so the scan flags it too.
// expect-scan: precision_downcast
// expect-gpu: failed mismatch
// expect-emu: failed mismatch
// expect-cpu: flagged scan
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void gemm_bf16(const __nv_bfloat16* A, const __nv_bfloat16* W, const __nv_bfloat16* bias,
                                     __nv_bfloat16* C, int M, int N, int K)
{
    for (int idx = threadIdx.x; idx < TILE_M * TILE_N; idx += THREADS) {
        const int m = blockIdx.y * TILE_M + idx / TILE_N;
        const int n = blockIdx.x * TILE_N + idx % TILE_N;
        if (m < M && n < N) {
            __half acc = __float2half(0.0f);
            for (int k = 0; k < K; k++)
                acc = __hadd(acc, __float2half(__bfloat162float(A[(size_t)m * K + k]) *
                                               __bfloat162float(W[(size_t)n * K + k])));
            C[(size_t)m * N + n] = __float2bfloat16(__half2float(acc) + __bfloat162float(bias[n]));
        }
    }
}
