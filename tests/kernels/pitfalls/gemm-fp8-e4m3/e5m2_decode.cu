// Pitfall: the bytes decoded as e5m2 (5 exponent bits of bias 15, 2 mantissa bits) instead of e4m3.
// fixture: gemm-fp8-e4m3
// expect-emu: failed mismatch
#include <cuda_bf16.h>
#include <cuda_fp16.h>

__device__ __forceinline__ float e4m3_to_float(unsigned b)
{
    // e5m2: the top byte of a float16
    const unsigned short h = (unsigned short)(b << 8);
    return __half2float(*reinterpret_cast<const __half*>(&h));
}

extern "C" __global__ void gemm_fp8_e4m3(const unsigned char* A, const unsigned char* W, const float* scale_a,
                                         const float* scale_b, __nv_bfloat16* C, int M, int N, int K)
{
    const int row = blockIdx.y * TILE_M + (int)threadIdx.x / TILE_N;
    const int col = blockIdx.x * TILE_N + (int)threadIdx.x % TILE_N;
    if ((int)threadIdx.x >= TILE_M * TILE_N || row >= M || col >= N)
        return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++)
        acc += e4m3_to_float(A[(size_t)row * K + k]) * e4m3_to_float(W[(size_t)col * K + k]);
    C[(size_t)row * N + col] = __float2bfloat16(acc * (scale_a[0] * scale_b[0]));
}
