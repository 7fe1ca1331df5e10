// Pitfall: no barrier between using a shared tile and overwriting it with the next K step (the second __syncthreads missing).
// fixture: gemm
// expect-emu: failed mismatch
// A 16 x 16 shared-memory tile per block (the default tunables), one
// output per thread, K in steps of 16.
extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    __shared__ float As[16][16], Bs[16][16];
    const int ty = threadIdx.x / 16, tx = threadIdx.x % 16;
    const int m = blockIdx.y * 16 + ty, n = blockIdx.x * 16 + tx;
    float s = 0.0f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        As[ty][tx] = m < M && k0 + tx < K ? A[(size_t)m * K + k0 + tx] : 0.0f;
        Bs[ty][tx] = k0 + ty < K && n < N ? B[(size_t)(k0 + ty) * N + n] : 0.0f;
        __syncthreads();
        for (int kk = 0; kk < 16; kk++)
            s += As[ty][kk] * Bs[kk][tx];
        // missing: __syncthreads() before the next step overwrites As and Bs
    }
    if (m < M && n < N)
        C[(size_t)m * N + n] = s;
}
