// Pitfall: no max subtraction (exp overflows on the normal(0, 1000) inputs).
// fixture: softmax
// expect-emu: failed mismatch
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    int row = blockIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m;
    m = 0.0f;
    float sum = 0.0f;
    for (int c = 0; c < cols; c++) sum += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / sum;
}
