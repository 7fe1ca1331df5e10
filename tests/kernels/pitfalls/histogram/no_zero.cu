// Pitfall: global atomicAdd into counts that were never zeroed (the harness poisons outputs).
// fixture: histogram
// expect-emu: failed mismatch
extern "C" __global__ void histogram(const int* x, unsigned int* counts, int rows, int cols)
{
    const int row = blockIdx.x;
    if (row >= rows)
        return;
    unsigned int* h = counts + (size_t)row * 256;
    const int* xr = x + (size_t)row * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        atomicAdd(&h[xr[c]], 1u);
}
