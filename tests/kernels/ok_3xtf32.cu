// Variant the fixture must accept: a compensated TF32 GEMM (3xTF32), each
// operand split into a TF32 high part and the TF32 of its residual,
// a*b = ah*bh + ah*bl + al*bh, the products summed in float32: float32
// accuracy from TF32 arithmetic. The gemm spec says "compensated_tf32":
// true, and the scan sees every TF32 conversion as half of a split
// (hi = cvt(x), lo = cvt(x - hi)), so it flags nothing.
// fixture: gemm
// expect-scan:
// expect-gpu: passed none
// expect-emu: passed none
// expect-cpu: compiled no_gpu
__device__ __forceinline__ float round_tf32(float x)
{
#ifdef __CUDA_ARCH__
    unsigned r;
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return __uint_as_float(r);
#else
    /* round to nearest, ties away, on the 13 dropped mantissa bits */
    return __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u);
#endif
}

extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    for (int idx = threadIdx.x; idx < TILE_M * TILE_N; idx += THREADS) {
        const int m = blockIdx.y * TILE_M + idx / TILE_N;
        const int n = blockIdx.x * TILE_N + idx % TILE_N;
        if (m < M && n < N) {
            float s = 0.0f;
            for (int k = 0; k < K; k++) {
                const float a = A[(size_t)m * K + k], b = B[(size_t)k * N + n];
                const float ah = round_tf32(a), al = round_tf32(a - ah);
                const float bh = round_tf32(b), bl = round_tf32(b - bh);
                s += ah * bh + (ah * bl + al * bh);
            }
            C[(size_t)m * N + n] = s;
        }
    }
}
