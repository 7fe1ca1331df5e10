// Emulator self-check: float4 loads of B's rows without checking
// N % 4 == 0 (a gemm pitfall). With N = 65, 131 or 1 the rows after the
// first are not 16-byte aligned: a GPU faults on the misaligned vector
// load (launch error); the emulation's alignment check stops the launch.
// fixture: gemm
// expect-emu: crashed emu
extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    // each thread four adjacent columns of one row of the 16 x 16 patch
    for (int idx = threadIdx.x; idx < TILE_M * TILE_N / 4; idx += THREADS) {
        const int m = blockIdx.y * TILE_M + idx / (TILE_N / 4);
        const int n = blockIdx.x * TILE_N + idx % (TILE_N / 4) * 4;
        if (m >= M || n >= N)
            continue;
        float s[4] = { 0.0f, 0.0f, 0.0f, 0.0f };
        for (int k = 0; k < K; k++) {
            const float a = A[(size_t)m * K + k];
            if (n + 4 <= N) {
                const float4 b = *reinterpret_cast<const float4*>(B + (size_t)k * N + n);
                s[0] += a * b.x; s[1] += a * b.y; s[2] += a * b.z; s[3] += a * b.w;
            } else {
                for (int j = 0; n + j < N; j++)
                    s[j] += a * B[(size_t)k * N + n + j];
            }
        }
        for (int j = 0; j < 4 && n + j < N; j++)
            C[(size_t)m * N + n + j] = s[j];
    }
}
