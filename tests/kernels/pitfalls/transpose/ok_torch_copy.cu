// fixture: transpose
// Variant: x.t().contiguous() in PyTorch: the elementwise copy kernel (aten/src/ATen/native/cuda/Copy.cu through TensorIterator), one thread per output element reading its strided input, no shared-memory tile: exact, only slower.
// expect-emu: passed none
extern "C" __global__ void transpose(const float* x, float* y, int rows, int cols)
{
    // the launch covers cols x rows in TILE x TILE tiles of TILE x BLOCK_ROWS threads
    const int c = blockIdx.x * TILE + threadIdx.x;
    for (int r = blockIdx.y * TILE + threadIdx.y; r < (int)(blockIdx.y + 1) * TILE; r += BLOCK_ROWS)
        if (r < rows && c < cols)
            y[(size_t)c * rows + r] = x[(size_t)r * cols + c];
}
