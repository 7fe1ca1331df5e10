// Pitfall: assuming a row fits in registers (32 values per thread held, the rest of the 128256-column row dropped).
// fixture: softmax-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void softmax_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols)
{
    __shared__ float red[1024];
    const int row = blockIdx.x, tid = threadIdx.x;
    if (row >= rows)
        return;
    const __nv_bfloat16* xr = x + (size_t)row * cols;
    __nv_bfloat16* yr = y + (size_t)row * cols;
    float v[32];
    float m = -INFINITY;
    for (int k = 0; k < 32; k++) {
        int c = tid + k * (int)blockDim.x;
        v[k] = c < cols ? __bfloat162float(xr[c]) : -INFINITY;
        m = fmaxf(m, v[k]);
    }
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
    for (int k = 0; k < 32; k++)
        s += tid + k * (int)blockDim.x < cols ? expf(v[k] - m) : 0.0f;
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float inv = 1.0f / red[0];
    for (int k = 0; k < 32; k++) {
        int c = tid + k * (int)blockDim.x;
        if (c < cols)
            yr[c] = __float2bfloat16(expf(v[k] - m) * inv);
    }
}
