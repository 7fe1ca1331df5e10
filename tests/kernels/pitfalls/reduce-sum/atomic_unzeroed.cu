// Pitfall: every thread atomicAdds its partial sum into y, which is never zeroed (the harness poisons outputs with NaN).
// fixture: reduce-sum
// expect-emu: failed stale_output
extern "C" __global__ void reduce_sum(const float* x, float* y, int rows, int cols)
{
    const int row = blockIdx.x;
    if (row >= rows)
        return;
    const float* xr = x + (size_t)row * cols;
    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += xr[c];
    atomicAdd(&y[row], s);
}
