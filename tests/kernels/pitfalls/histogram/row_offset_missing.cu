// Pitfall: counting every row into the first row's bins (the row offset of counts missing): bins of one row counted into another.
// fixture: histogram
// expect-emu: failed mismatch
extern "C" __global__ void histogram(const int* x, unsigned int* counts, int rows, int cols)
{
    const int row = blockIdx.x;
    if (row >= rows)
        return;
    if (row == 0)
        for (int b = threadIdx.x; b < 256; b += blockDim.x)
            counts[b] = 0;
    __syncthreads();
    const int* xr = x + (size_t)row * cols;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        atomicAdd(&counts[xr[c]], 1u);  // counts + row * 256 intended
}
