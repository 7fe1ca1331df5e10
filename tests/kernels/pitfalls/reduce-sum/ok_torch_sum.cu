// fixture: reduce-sum
// Variant: torch.sum over the last dimension on CUDA (aten/src/ATen/native/cuda/Reduce.cuh): each thread keeps 4 float32 accumulators over interleaved elements (the reduction's input vectorisation), adds them, then the block combines by warp shuffles and shared memory: another order of float32 additions.
// expect-emu: passed none
extern "C" __global__ void reduce_sum(const float* x, float* y, int rows, int cols)
{
    __shared__ float part[32];
    const int row = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
    if (row >= rows)
        return;
    const float* xr = x + (size_t)row * cols;
    float acc[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    int k = 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x, k = (k + 1) & 3)
        acc[k] += xr[c];
    float s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (int off = 16; off > 0; off >>= 1)
        s += __shfl_down_sync(0xffffffffu, s, off);
    if (lane == 0)
        part[warp] = s;
    __syncthreads();
    if (warp == 0) {
        s = lane < nw ? part[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1)
            s += __shfl_down_sync(0xffffffffu, s, off);
        if (lane == 0)
            y[row] = s;
    }
}
