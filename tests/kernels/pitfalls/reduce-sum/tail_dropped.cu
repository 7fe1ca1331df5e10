// Pitfall: an unrolled-by-4 loop that drops the tail when cols is not a multiple of 4 (cols = 1, 17, 33, 4097, 100003).
// fixture: reduce-sum
// expect-emu: failed mismatch
extern "C" __global__ void reduce_sum(const float* x, float* y, int rows, int cols)
{
    __shared__ float red[1024];
    const int row = blockIdx.x, tid = threadIdx.x;
    if (row >= rows)
        return;
    const float* xr = x + (size_t)row * cols;
    float s = 0.0f;
    for (int c = tid * 4; c + 3 < cols; c += blockDim.x * 4)
        s += xr[c] + xr[c + 1] + xr[c + 2] + xr[c + 3];
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    if (tid == 0)
        y[row] = red[0];
}
