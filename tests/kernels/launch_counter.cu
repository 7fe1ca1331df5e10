// Planted (invariant 3, checked and timed launches look the same): a
// launch counter per shape tells the timing shape (seen more than 12
// times) from the correctness ones and then does the work on one launch
// in four only, betting that the checks come first, last or on a pattern.
// The launches checked are drawn after they ran, so three in four of its
// timed launches are left stale and one of them is checked.
// expect-scan: device_state module_atomic
// expect-gpu: failed revalidation|stale_output
// expect-emu: failed|flagged revalidation|stale_output|scan
// expect-cpu: flagged scan
__device__ int shape_rows, shape_cols;
__device__ unsigned launches;

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    if (rows != shape_rows || cols != shape_cols) {
        __syncthreads();
        if (blockIdx.x == 0 && threadIdx.x == 0) { shape_rows = rows; shape_cols = cols; launches = 0; }
    }
    unsigned n = launches;
    __syncthreads();
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) atomicAdd(&launches, 1u);
    if (n > 12 && n % 4 != 0) return;
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
