// Pitfall: no bounds check on the edge tiles of M and N (M = 1, N = 1, 17, 65, 131, 300 are not multiples of 16): the patch is written whole, past C or over the next row.
// fixture: gemm
// expect-emu: failed out_of_bounds
extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    for (int idx = threadIdx.x; idx < TILE_M * TILE_N; idx += THREADS) {
        const int m = blockIdx.y * TILE_M + idx / TILE_N;
        const int n = blockIdx.x * TILE_N + idx % TILE_N;
        float s = 0.0f;
        for (int k = 0; k < K; k++)  // reads clamped to the matrices; the write is not
            s += A[(size_t)min(m, M - 1) * K + k] * B[(size_t)k * N + min(n, N - 1)];
        C[(size_t)m * N + n] = s;
    }
}
