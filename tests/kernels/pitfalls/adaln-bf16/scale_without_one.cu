// Pitfall: `scale` instead of `1 + scale`.
// fixture: adaln-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

__device__ float block_sum(float v, float* red)
{
    const int tid = threadIdx.x;
    red[tid] = v;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    float s = red[0];
    __syncthreads();
    return s;
}

extern "C" __global__ void adaln_bf16(const __nv_bfloat16* x, const __nv_bfloat16* scale,
                                      const __nv_bfloat16* shift, __nv_bfloat16* y, int batch, int tokens, int dim)
{
    __shared__ float red[1024];
    const size_t row = blockIdx.x;
    if (row >= (size_t)batch * tokens)
        return;
    const size_t b = row / tokens;
    const __nv_bfloat16* xr = x + row * dim;
    const __nv_bfloat16* sc = scale + b * dim;
    const __nv_bfloat16* sh = shift + b * dim;
    __nv_bfloat16* yr = y + row * dim;

    float s = 0.0f;
    for (int c = threadIdx.x; c < dim; c += blockDim.x)
        s += __bfloat162float(xr[c]);
    const float mean = block_sum(s, red) / dim;

    s = 0.0f;
    for (int c = threadIdx.x; c < dim; c += blockDim.x) {
        float d = __bfloat162float(xr[c]) - mean;
        s += d * d;
    }
    const float rstd = 1.0f / sqrtf(block_sum(s, red) / dim + 1e-6f);

    for (int c = threadIdx.x; c < dim; c += blockDim.x) {
        float n = (__bfloat162float(xr[c]) - mean) * rstd;
        yr[c] = __float2bfloat16(n * __bfloat162float(sc[c]) + __bfloat162float(sh[c]));
    }
}
