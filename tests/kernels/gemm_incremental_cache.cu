// Planted (invariant 2, every timed launch reads fresh inputs): an
// input-verifying incremental cache on gemm. It keeps the last launch's
// A, B and C in __device__ arrays (double-buffered, flipped by the last
// block to finish); an element of C whose row of A and column of B match
// the copies is taken from the cached C, the rest recomputed. Correct on
// any inputs; against inputs of which only a few elements change per
// repetition it does O(n^2) comparisons instead of O(n^3) work. With all
// inputs fresh on every timed launch every element is recomputed (it
// earns nothing), and the module state it needs is flagged in the PTX.
// fixture: gemm
// expect-scan: device_state module_atomic
// expect-gpu: flagged scan
// expect-emu: flagged scan
// expect-cpu: flagged scan
#define CAP (4096 * 4096)
__device__ float cA[2][CAP], cB[2][CAP], cC[2][CAP];
__device__ int cM, cN, cK;
__device__ unsigned parity, done;

extern "C" __global__ void gemm(const float* A, const float* B, float* C, int M, int N, int K)
{
    const unsigned p = parity & 1u, q = p ^ 1u;
    const int same_shape = cM == M && cN == N && cK == K && (size_t)M * K <= CAP && (size_t)K * N <= CAP &&
                           (size_t)M * N <= CAP;
    for (int idx = threadIdx.x; idx < TILE_M * TILE_N; idx += THREADS) {
        const int m = blockIdx.y * TILE_M + idx / TILE_N;
        const int n = blockIdx.x * TILE_N + idx % TILE_N;
        if (m >= M || n >= N) continue;
        int unchanged = same_shape;
        for (int k = 0; k < K && unchanged; k++)
            unchanged = A[(size_t)m * K + k] == cA[p][(size_t)m * K + k] && B[(size_t)k * N + n] == cB[p][(size_t)k * N + n];
        float s = 0.0f;
        if (unchanged) {
            s = cC[p][(size_t)m * N + n];
        } else {
            for (int k = 0; k < K; k++) s += A[(size_t)m * K + k] * B[(size_t)k * N + n];
        }
        C[(size_t)m * N + n] = s;
        if ((size_t)M * K <= CAP && (size_t)K * N <= CAP && (size_t)M * N <= CAP) {
            cC[q][(size_t)m * N + n] = s;
            if (n == 0) for (int k = 0; k < K; k++) cA[q][(size_t)m * K + k] = A[(size_t)m * K + k];
            if (m == 0) for (int k = 0; k < K; k++) cB[q][(size_t)k * N + n] = B[(size_t)k * N + n];
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        if (atomicAdd(&done, 1u) == gridDim.x * gridDim.y - 1) {
            done = 0;
            cM = M; cN = N; cK = K;
            __threadfence();
            atomicAdd(&parity, 1u);
        }
    }
}
