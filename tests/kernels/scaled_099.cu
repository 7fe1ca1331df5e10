// Planted: 0.99 times the right answer (outside rtol 1e-4).
// expect-scan:
// expect-gpu: failed mismatch
// expect-emu: failed mismatch
// expect-cpu: compiled no_gpu
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = 0.99f * expf(xr[c] - m) / s;
}
