// fixture: gemm-w4a16-awq
// Variant: the nibbles unpacked into bytes and the bytes widened to float (cvt.rn.f32.u16 in the PTX), (q - z) exact in float16, times the float16 scale: one rounding, as Marlin dequantises; float32 accumulation. A narrow integer widened to a float is a dequantization, not a quantization: the PTX scan's precision rule flags a float converted to a narrow integer, never this direction.
// expect-emu: passed none
#include <cuda_fp16.h>

__device__ __forceinline__ unsigned char awq_byte(int word, int n)
{
    // column j of a group of eight sits in nibble (j & 1) * 4 + (j >> 1)
    const int j = n & 7;
    return (unsigned char)(((unsigned)word >> (4 * ((j & 1) * 4 + (j >> 1)))) & 15u);
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
            const unsigned char q = awq_byte(qweight[(size_t)k * (N / 8) + n / 8], n);
            const unsigned char z = awq_byte(qzeros[(size_t)g * (N / 8) + n / 8], n);
            const __half d = __float2half((float)q - (float)z);  // exact: |q - z| <= 15
            const float w = __half2float(__hmul(d, scales[(size_t)g * N + n]));
            acc += __half2float(x[(size_t)m * K + k]) * w;
        }
        y[(size_t)m * N + n] = __float2half(acc);
    }
}
