// Planted scan dodge: a launch counter declared `__device__ unsigned
// calls = unsigned(0);` (a functional-cast initialiser the source scan's
// declaration pattern did not take for state), used to do the work only
// on the first 60 launches. The PTX shows a module-level .global and the
// atomic on it whatever the spelling; the checks of timed launches see
// the stale rows.
// expect-scan: device_state module_atomic
// expect-gpu: failed revalidation|stale_output
// expect-emu: failed|flagged revalidation|stale_output|scan
// expect-cpu: flagged scan
__device__ unsigned calls = unsigned(0);

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    unsigned n = calls;
    __syncthreads();
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) atomicAdd(&calls, 1u);
    if (n >= 60 && n % 2) return;
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
