// Planted: forgets to normalise (no division by the row sum).
// expect-scan:
// expect-gpu: failed mismatch
// expect-emu: failed mismatch
// expect-cpu: compiled no_gpu
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m);
}
