// Pitfall: eps 1e-6 (Flux's QK norm) where LTX-Video's norm_q / norm_k use 1e-5: uniform(+-1e-3) tokens (mean square 3.3e-7) are scaled wrong.
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
    const float r = 1.0f / sqrtf(red[0] / dim + 1e-6f);
    for (int d = tid; d < dim; d += blockDim.x) {
        const float n = __bfloat162float(xr[d]) * r * __bfloat162float(w[d]);
        const float m = __bfloat162float(xr[d ^ 1]) * r * __bfloat162float(w[d ^ 1]);
        const float c = cos_t[row * dim + d], t = sin_t[row * dim + d];
        y[row * dim + d] = __float2bfloat16((d & 1) ? n * c + m * t : n * c - m * t);
    }
}
