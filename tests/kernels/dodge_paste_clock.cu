// Planted scan dodge: reads the clock through a pasted token
// (`CAT(clo, ck64)()`), the way a kernel would measure the gap since its
// previous launch (a checked launch follows a longer host pause) or pace
// itself. Correct otherwise, so only the scan can refuse it: the PTX
// reads %clock64 whatever the source spelled.
// expect-scan: clock_read
// expect-gpu: flagged scan
// expect-emu: flagged scan
// expect-cpu: flagged scan
#define CAT(a, b) a##b
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    long long t0 = CAT(clo, ck64)();
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    if (t0 == -1) s = 1.0f;  /* keeps the read */
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
