// Planted: correct for the first 60 launches, then wrong: a __device__
// counter survives across launches. Passes the correctness sizes, fails
// the re-validation after timing; the scan flags the file-scope state.
// expect-scan: device_state module_atomic
// expect-gpu: failed revalidation
// expect-cpu: flagged scan
__device__ unsigned int calls;

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float scale = calls < 60 ? 1.0f : 0.5f;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = scale * expf(xr[c] - m) / s;
    if (row == 0 && threadIdx.x == 0) atomicAdd(&calls, 1u);
}
