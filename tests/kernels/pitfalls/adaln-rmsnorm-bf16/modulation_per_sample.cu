// Pitfall: the modulation indexed by sample (scale[b, c], adaln-bf16's and DiT's per-sample AdaLN) where LTX-Video modulates each token with its own scale and shift (scale[b, t, c]).
// fixture: adaln-rmsnorm-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void adaln_rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* scale,
                                              const __nv_bfloat16* shift, __nv_bfloat16* y, int batch, int tokens,
                                              int dim)
{
    __shared__ float red[1024];
    const size_t row = blockIdx.x;
    const int tid = threadIdx.x;
    if (row >= (size_t)batch * tokens)
        return;
    const __nv_bfloat16* xr = x + row * dim;
    const __nv_bfloat16* sc = scale + row / tokens * tokens * dim;
    const __nv_bfloat16* sh = shift + row / tokens * tokens * dim;
    __nv_bfloat16* yr = y + row * dim;

    float s = 0.0f;
    for (int c = tid; c < dim; c += blockDim.x) {
        const float v = __bfloat162float(xr[c]);
        s += v * v;
    }
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float rstd = 1.0f / sqrtf(red[0] / dim + 1e-6f);

    for (int c = tid; c < dim; c += blockDim.x) {
        const float n = __bfloat162float(xr[c]) * rstd;
        yr[c] = __float2bfloat16(n * (1.0f + __bfloat162float(sc[c])) + __bfloat162float(sh[c]));
    }
}
