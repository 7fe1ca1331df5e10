// Planted: correct softmax, but block 0 also writes past the end of y.
// expect-scan:
// expect-gpu: failed out_of_bounds
// expect-emu: failed out_of_bounds
// expect-cpu: compiled no_gpu
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
    if (row == 0 && threadIdx.x < 32) y[(size_t)rows * cols + threadIdx.x] = 0.0f;
}
