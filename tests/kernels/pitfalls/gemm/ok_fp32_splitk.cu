// fixture: gemm
// Variant: what torch.matmul computes for float32 on CUDA with TF32 off (torch.backends.cuda.matmul.allow_tf32 = False, the default): cuBLAS SGEMM, float32 fused multiply-adds, here in the order of a split-K kernel (K cut in four slices, each accumulated with fmaf, the partial sums added at the end).
// expect-emu: passed none
extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    const int slice = (K + 3) / 4;
    for (int idx = threadIdx.x; idx < TILE_M * TILE_N; idx += THREADS) {
        const int m = blockIdx.y * TILE_M + idx / TILE_N;
        const int n = blockIdx.x * TILE_N + idx % TILE_N;
        if (m >= M || n >= N)
            continue;
        float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
        for (int s = 0; s < 4; s++)
            for (int k = s * slice; k < (s + 1) * slice && k < K; k++)
                part[s] = fmaf(A[(size_t)m * K + k], B[(size_t)k * N + n], part[s]);
        C[(size_t)m * N + n] = (part[0] + part[1]) + (part[2] + part[3]);
    }
}
