// Pitfall: assuming cols % 8 == 0 (16-byte vectors, no tail).
// fixture: softmax-bf16
// expect-emu: failed stale_output
#include <cuda_bf16.h>

extern "C" __global__ void softmax_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols)
{
    __shared__ float red[1024];
    const int row = blockIdx.x, tid = threadIdx.x;
    if (row >= rows)
        return;
    const __nv_bfloat16* xr = x + (size_t)row * cols;
    __nv_bfloat16* yr = y + (size_t)row * cols;

    float m = -INFINITY;
    for (int c = tid; c < cols / 8 * 8; c += blockDim.x)
        m = fmaxf(m, __bfloat162float(xr[c]));
    red[tid] = m;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] = fmaxf(red[tid], red[tid + stride]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();

    float s = 0.0f;
    for (int c = tid; c < cols / 8 * 8; c += blockDim.x)
        s += expf(__bfloat162float(xr[c]) - m);
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float inv = 1.0f / red[0];

    for (int c = tid; c < cols / 8 * 8; c += blockDim.x)
        yr[c] = __float2bfloat16(expf(__bfloat162float(xr[c]) - m) * inv);
}
