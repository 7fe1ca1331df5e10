// fixture: gemm-bf16
// Variant: nn.Linear in bfloat16 as cuBLAS(Lt) computes it (F.linear -> addmm, aten/src/ATen/native/cuda/Blas.cpp; the bias as the epilogue of cublasLtMatmul, CUDABlas.cpp gemm_and_bias): tensor-core products, each k-slice of 16 summed and added to a float32 accumulator, the bias added in float32, one rounding to bfloat16.
// expect-emu: passed none
#include <cuda_bf16.h>

extern "C" __global__ void gemm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* W, const __nv_bfloat16* bias,
                                     __nv_bfloat16* y, int M, int N, int K)
{
    for (int idx = threadIdx.x; idx < TILE_M * TILE_N; idx += THREADS) {
        const int m = blockIdx.y * TILE_M + idx / TILE_N;
        const int n = blockIdx.x * TILE_N + idx % TILE_N;
        if (m >= M || n >= N)
            continue;
        float acc = 0.0f;
        for (int k0 = 0; k0 < K; k0 += 16) {
            // one MMA's k-slice: the products (exact in float32) summed, then accumulated
            float slice = 0.0f;
            for (int k = k0; k < k0 + 16 && k < K; k++)
                slice = fmaf(__bfloat162float(x[(size_t)m * K + k]), __bfloat162float(W[(size_t)n * K + k]), slice);
            acc += slice;
        }
        y[(size_t)m * N + n] = __float2bfloat16(acc + __bfloat162float(bias[n]));
    }
}
