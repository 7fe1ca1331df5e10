// Pitfall: TF32 precision (the inputs rounded to 10 mantissa bits, as tensor cores in TF32 mode take them) in a float32 fixture.
// fixture: gemm
// expect-emu: failed mismatch
__device__ __forceinline__ float to_tf32(float x)
{
    // round to nearest on the 13 dropped mantissa bits
    return __uint_as_float((__float_as_uint(x) + 0x1000u) & 0xffffe000u);
}

extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    for (int idx = threadIdx.x; idx < TILE_M * TILE_N; idx += THREADS) {
        const int m = blockIdx.y * TILE_M + idx / TILE_N;
        const int n = blockIdx.x * TILE_N + idx % TILE_N;
        if (m < M && n < N) {
            float s = 0.0f;
            for (int k = 0; k < K; k++)
                s += to_tf32(A[(size_t)m * K + k]) * to_tf32(B[(size_t)k * N + n]);
            C[(size_t)m * N + n] = s;
        }
    }
}
