// Pitfall: int4 loads over cols / 4 * 4 values that drop the tail when cols is not a multiple of 4 (1, 33, 1000 is fine, 4097, 100003).
// fixture: histogram
// expect-emu: failed mismatch
extern "C" __global__ void histogram(const int* x, unsigned int* counts, int rows, int cols)
{
    const int row = blockIdx.x;
    if (row >= rows)
        return;
    unsigned int* h = counts + (size_t)row * 256;
    for (int b = threadIdx.x; b < 256; b += blockDim.x)
        h[b] = 0;
    __syncthreads();
    const int* xr = x + (size_t)row * cols;
    for (int c = threadIdx.x * 4; c + 3 < cols; c += blockDim.x * 4) {
        atomicAdd(&h[xr[c]], 1u);
        atomicAdd(&h[xr[c + 1]], 1u);
        atomicAdd(&h[xr[c + 2]], 1u);
        atomicAdd(&h[xr[c + 3]], 1u);
    }
}
