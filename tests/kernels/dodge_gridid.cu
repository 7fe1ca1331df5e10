// Planted scan dodge: %gridid, the launch's grid number, which the driver
// increases with every launch: a launch counter with no state of the
// kernel's own. This one does the work on launches with an even grid
// number only and leaves the others stale. The PTX shows the special
// register (and the drawn checks of timed launches find the stale rows).
// expect-scan: special_register
// expect-gpu: failed|flagged revalidation|stale_output|scan
// expect-emu: flagged scan
// expect-cpu: flagged scan
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    unsigned long long id = 0;
#ifdef __CUDA_ARCH__
    asm volatile("mov.u64 %0, %%gridid;" : "=l"(id));
#endif
    if (rows > 64 && (id & 1)) return;
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
