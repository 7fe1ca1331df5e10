// Planted: computes the right answer, then zeroes its input row.
// expect-scan:
// expect-gpu: failed input_modified
// expect-emu: failed input_modified
// expect-cpu: compiled no_gpu
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    int row = blockIdx.x;
    float* xr = (float*)x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += blockDim.x) xr[c] = 0.0f;
}
