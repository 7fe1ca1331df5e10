// Planted (invariant 1, a subset checked in full): no state at all; on a
// problem larger than every correctness size (over 17,000 elements) it
// computes only the rows a sampling check would look at (the first 8, the
// last 8 and every 64th) and leaves the rest. A check of a timed launch
// compares every element.
// expect-scan:
// expect-gpu: failed revalidation|stale_output
// expect-emu: failed revalidation|stale_output
// expect-cpu: compiled no_gpu
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    int row = blockIdx.x;
    if ((size_t)rows * cols > 17000 && row >= 8 && row < rows - 8 && row % 64 != 0) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
