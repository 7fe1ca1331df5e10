// fixture: softmax-bf16
// Variant: torch.softmax(x, -1) of a bfloat16 tensor on CUDA (aten/src/ATen/native/cuda/SoftMax.cu, cunn_SoftMaxForward: each thread's float32 max and sum of exp(x - max) over a strided slice, reduced by warp shuffles then one shared slot per warp; the epilogue exp(x - max) / sum in float32), one rounding to bfloat16.
// expect-emu: passed none
#include <cuda_bf16.h>

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

extern "C" __global__ void softmax_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols)
{
    __shared__ float part[32];
    const int row = blockIdx.x, lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
    if (row >= rows)
        return;
    const __nv_bfloat16* xr = x + (size_t)row * cols;
    __nv_bfloat16* yr = y + (size_t)row * cols;

    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        m = fmaxf(m, __bfloat162float(xr[c]));
    m = warp_max(m);
    if (lane == 0)
        part[warp] = m;
    __syncthreads();
    m = lane < nw ? part[lane] : -INFINITY;
    m = warp_max(m);
    __syncthreads();

    float s = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        s += expf(__bfloat162float(xr[c]) - m);
    s = warp_sum(s);
    if (lane == 0)
        part[warp] = s;
    __syncthreads();
    s = lane < nw ? part[lane] : 0.0f;
    s = warp_sum(s);

    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        yr[c] = __float2bfloat16(expf(__bfloat162float(xr[c]) - m) / s);
}
