// Planted scan dodge: %clock_hi, the upper half of the SM's cycle counter,
// which a scan matching %clock as a whole word (or %clock64) missed: time
// enough to tell a burst's launches apart. The tokeniser knows every
// timing register of the PTX ISA by its own name.
// expect-scan: clock_read
// expect-gpu: flagged scan
// expect-emu: flagged scan
// expect-cpu: flagged scan
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    unsigned hi = 0;
#ifdef __CUDA_ARCH__
    asm volatile("mov.u32 %0, %%clock_hi;" : "=r"(hi));
#endif
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    if (hi == 0xffffffffu) s = 1.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
