// Variant: a warp per row (ROWS_PER_BLOCK = BLOCK / 32 = 8), as kernels for short rows such as Flux's 128-wide per-head QK-norm are written: each lane strides over the row, a shuffle reduction of the sum of squares, no shared memory.
// fixture: rmsnorm
// expect-emu: passed none
// skillci-tunable BLOCK=256
// skillci-tunable ROWS_PER_BLOCK=8

extern "C" __global__ void rmsnorm(const float* x, const float* w, float* y, int rows, int cols)
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row = blockIdx.x * ROWS_PER_BLOCK + warp;
    if (row >= rows)
        return;  /* the whole warp leaves together: no shuffle is left half-done */
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32)
        s += xr[c] * xr[c];
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    const float scale = rsqrtf(s / cols + 1e-6f);
    for (int c = lane; c < cols; c += 32)
        yr[c] = xr[c] * scale * w[c];
}
