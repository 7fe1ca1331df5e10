// Pitfall: the pairs half-split (d, d + dim/2), NeoX / rotate_half style, where apply_rotary_emb pairs interleaved elements (2i, 2i+1).
// fixture: qk-rmsnorm-rope-ltx-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void qk_rmsnorm_rope_ltx_bf16(const __nv_bfloat16* x, const __nv_bfloat16* w, const float* cos_t,
                                                    const float* sin_t, __nv_bfloat16* y, int batch, int seq, int dim)
{
    __shared__ float red[1024];
    const size_t row = blockIdx.x;
    const int tid = threadIdx.x;
    if (row >= (size_t)batch * seq)
        return;
    const __nv_bfloat16* xr = x + row * dim;
    float ss = 0.0f;
    for (int d = tid; d < dim; d += blockDim.x) {
        const float v = __bfloat162float(xr[d]);
        ss += v * v;
    }
    red[tid] = ss;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float r = 1.0f / sqrtf(red[0] / dim + 1e-5f);
    for (int d = tid; d < dim; d += blockDim.x) {
        const float n = __bfloat162float(xr[d]) * r * __bfloat162float(w[d]);
        const int half = dim / 2, e = d < half ? d + half : d - half;
        const float m = __bfloat162float(xr[e]) * r * __bfloat162float(w[e]);
        const float c = cos_t[row * dim + d], t = sin_t[row * dim + d];
        y[row * dim + d] = __float2bfloat16(d >= half ? n * c + m * t : n * c - m * t);
    }
}
