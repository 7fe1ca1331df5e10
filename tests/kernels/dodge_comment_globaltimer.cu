// Planted scan dodge: the %globaltimer read put after a block comment
// that holds "//" (asm("/* // */ mov.u64 %0, %%globaltimer;")). A scan
// that cut lines at "//" never saw the mov; ptxas reads the comment to
// its close and runs the mov after it. The PTX tokeniser reads comments
// as ptxas does.
// expect-scan: clock_read
// expect-gpu: flagged scan
// expect-emu: flagged scan
// expect-cpu: flagged scan
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    unsigned long long g = 0;
#ifdef __CUDA_ARCH__
    asm volatile("/* // */ mov.u64 %0, %%globaltimer;" : "=l"(g));
#endif
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    if (g == 1) s = 1.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
