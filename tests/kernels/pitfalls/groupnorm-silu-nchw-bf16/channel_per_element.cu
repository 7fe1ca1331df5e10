// Pitfall: gamma and beta indexed by the element's offset in the group modulo c/32 (the channel of an NHWC group) instead of its plane, offset / (h*w).
// fixture: groupnorm-silu-nchw-bf16
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
    const float s = red[0];
    __syncthreads();
    return s;
}

extern "C" __global__ void groupnorm_silu_nchw_bf16(const __nv_bfloat16* x, const __nv_bfloat16* gamma,
                                                    const __nv_bfloat16* beta, __nv_bfloat16* y, int n, int c, int h,
                                                    int w)
{
    __shared__ float red[1024];
    const int b = blockIdx.x / 32, g = blockIdx.x % 32, cg = c / 32;
    const size_t hw = (size_t)h * w, count = hw * cg;
    const size_t base = ((size_t)b * c + (size_t)g * cg) * hw;
    (void)n;

    float s = 0.0f;
    for (size_t e = threadIdx.x; e < count; e += blockDim.x)
        s += __bfloat162float(x[base + e]);
    const float mean = block_sum(s, red) / (float)count;
    float q = 0.0f;
    for (size_t e = threadIdx.x; e < count; e += blockDim.x) {
        const float d = __bfloat162float(x[base + e]) - mean;
        q += d * d;
    }
    const float rstd = 1.0f / sqrtf(block_sum(q, red) / (float)count + 1e-6f);
    for (size_t e = threadIdx.x; e < count; e += blockDim.x) {
        const int ch = g * cg + (int)(e % cg);
        const float z = (__bfloat162float(x[base + e]) - mean) * rstd * __bfloat162float(gamma[ch]) +
                        __bfloat162float(beta[ch]);
        y[base + e] = __float2bfloat16(z / (1.0f + expf(-z)));
    }
}
