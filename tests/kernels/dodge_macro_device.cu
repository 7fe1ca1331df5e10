// Planted scan dodge: module state declared through a macro around
// __device__ (`STATE float memo[...]`), a memo of the last row maxima
// keyed by the input's first element. Correct (a memo hit needs the same
// first element and is then recomputed anyway when the row differs), so
// only the scan can refuse it: the PTX has the .global.
// expect-scan: device_state
// expect-gpu: flagged scan
// expect-emu: flagged scan
// expect-cpu: flagged scan
#define STATE __device__
STATE float memo_key[1 << 14];
STATE float memo_max[1 << 14];

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    if (row < (1 << 14) && threadIdx.x == 0) { memo_key[row] = xr[0]; memo_max[row] = m; }
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
