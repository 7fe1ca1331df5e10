// Pitfall: no __syncthreads between filling the shared tile and reading it transposed.
// fixture: transpose
// expect-emu: failed mismatch
// The shared-memory tile: coalesced reads into tile[TILE][TILE + 1], a
// barrier, coalesced writes of the transposed tile.
extern "C" __global__ void transpose(const float* x, float* y, int rows, int cols)
{
    __shared__ float tile[TILE][TILE + 1];
    const int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
    for (int j = threadIdx.y; j < TILE; j += BLOCK_ROWS) {
        const int r = by + j, c = bx + threadIdx.x;
        if (r < rows && c < cols)
            tile[j][threadIdx.x] = x[(size_t)r * cols + c];
    }
    // missing: __syncthreads()
    for (int j = threadIdx.y; j < TILE; j += BLOCK_ROWS) {
        const int r = by + threadIdx.x, c = bx + j;  // y is cols x rows
        if (r < rows && c < cols)
            y[(size_t)c * rows + r] = tile[threadIdx.x][j];
    }
}
