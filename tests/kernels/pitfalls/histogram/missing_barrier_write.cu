// Pitfall: no barrier between counting and writing the shared counters out.
// fixture: histogram
// expect-emu: failed mismatch
// Shared-memory privatisation: one 256-bin histogram per block, zeroed,
// counted with shared atomics, written out.
extern "C" __global__ void histogram(const int* x, unsigned int* counts, int rows, int cols)
{
    __shared__ unsigned int bins[256];
    const int row = blockIdx.x;
    if (row >= rows)
        return;
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        bins[b] = 0;
    __syncthreads();
    const int* xr = x + (size_t)row * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        atomicAdd(&bins[xr[c]], 1u);
    // missing: __syncthreads() before the write-out
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        counts[(size_t)row * 256 + b] = bins[b];
}
