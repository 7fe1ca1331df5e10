// Planted scan dodge: TF32 on the float32 GEMM, the conversion
// (cvt.rna.tf32.f32) put after a block comment holding "//" so that a
// scan cutting lines at "//" never read it. The tokeniser reads the
// instruction; the fixture's precision is fp32, and a lone TF32
// conversion is no compensated split. (Its error fails the tolerance as
// well: 2^-11 per operand against rtol 1e-4.)
// fixture: gemm
// expect-scan: precision_downcast
// expect-gpu: failed mismatch
// expect-emu: failed mismatch
// expect-cpu: flagged scan
__device__ __forceinline__ float tf32(float x)
{
#ifdef __CUDA_ARCH__
    unsigned r;
    asm("/* // */ cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
    return __uint_as_float(r);
#else
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
            for (int k = 0; k < K; k++)
                s += tf32(A[(size_t)m * K + k]) * tf32(B[(size_t)k * N + n]);
            C[(size_t)m * N + n] = s;
        }
    }
}
