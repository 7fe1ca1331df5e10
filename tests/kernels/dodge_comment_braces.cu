// Planted scan dodge: closing braces inside a block comment of inline PTX
// (asm("/* } } } } */")), so that a scan counting braces in the text
// believes the function ended and reads what follows (a %globaltimer read
// and a nanosleep) as module level, where it looked for neither. ptxas
// counts no brace inside a comment, and neither does the tokeniser.
// expect-scan: clock_read sleep
// expect-gpu: flagged scan
// expect-emu: flagged scan
// expect-cpu: flagged scan
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    unsigned long long g = 0;
#ifdef __CUDA_ARCH__
    asm volatile("/* } } } } */");
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
    asm volatile("nanosleep.u32 %0; /* { { { { */" :: "r"(100u));
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
