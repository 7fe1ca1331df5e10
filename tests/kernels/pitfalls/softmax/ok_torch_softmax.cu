// fixture: softmax
// Variant: PyTorch's CUDA softmax over the last dimension (aten/src/ATen/native/cuda/SoftMax.cu, cunn_SoftMaxForward for rows past 1024: each thread's float32 max and sum of exp(x - max) over a strided slice, reduced by warp shuffles then one shared slot per warp; the epilogue exp(x - max) / sum): the library's arithmetic in another reduction order.
// expect-emu: passed none
__device__ float warp_max(float v)
{
    for (int off = 16; off > 0; off >>= 1)
        v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, off));
    return v;
}

__device__ float warp_sum(float v)
{
    for (int off = 16; off > 0; off >>= 1)
        v += __shfl_xor_sync(0xffffffffu, v, off);
    return v;
}

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    __shared__ float part[32];
    const int row = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
    if (row >= rows)
        return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;

    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmaxf(m, xr[c]);
    m = warp_max(m);
    if (lane == 0)
        part[warp] = m;
    __syncthreads();
    m = lane < nw ? part[lane] : -INFINITY;
    m = warp_max(m);
    __syncthreads();

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += expf(xr[c] - m);
    s = warp_sum(s);
    if (lane == 0)
        part[warp] = s;
    __syncthreads();
    s = lane < nw ? part[lane] : 0.0f;
    s = warp_sum(s);

    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = expf(xr[c] - m) / s;
}
