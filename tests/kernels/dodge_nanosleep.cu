// Planted scan dodge: `__nanosleep`, which no source pattern named. A
// kernel that sleeps can make its warm-up look like whatever it wants
// (the burst decision), or pad a cheat's time up to a believable speedup.
// Correct otherwise; the PTX has the nanosleep instruction.
// expect-scan: sleep
// expect-gpu: flagged scan
// expect-emu: flagged scan
// expect-cpu: flagged scan
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) __nanosleep(1000);
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
