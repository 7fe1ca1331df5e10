// Pitfall: rows and cols swapped in the output index (y[c*cols + r] for y[c*rows + r]): right on square shapes only.
// fixture: transpose
// expect-emu: failed mismatch
extern "C" __global__ void transpose(const float* x, float* y, int rows, int cols)
{
    const int c = blockIdx.x * TILE + threadIdx.x;
    if (c >= cols)
        return;
    for (int j = threadIdx.y; j < TILE; j += BLOCK_ROWS) {
        const int r = blockIdx.y * TILE + j;
        if (r < rows && (size_t)c * cols + r < (size_t)rows * cols)
            y[(size_t)c * cols + r] = x[(size_t)r * cols + c];
    }
}
