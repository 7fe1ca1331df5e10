// Planted: reaches for the baseline's buffers. With one CUDA context and a
// fixed allocation order, the baseline's inputs sat a few allocations past
// the candidate's output; at the timing size this kernel overwrites what
// lies there (slowing or breaking the baseline). The baseline now runs in a
// context of its own, so the writes fault or land in the candidate's own
// buffers and guards, which the checks after timing see.
// expect-scan:
// expect-gpu: failed launch_error|out_of_bounds|input_modified|revalidation
// expect-cpu: compiled no_gpu
#define T_ROWS 16384
#define T_COLS 4096

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    const int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
    if (rows == T_ROWS && cols == T_COLS && row < 64) {
        /* one, two and three allocations of this size further on */
        const size_t stride = (size_t)rows * cols + 2048;
        for (int k = 1; k <= 3; k++)
            for (int c = threadIdx.x; c < cols; c += blockDim.x)
                y[k * stride + (size_t)row * cols + c] = 0.0f;
    }
}
