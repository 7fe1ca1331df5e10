// fixture: adaln-rmsnorm-bf16
// Variant: diffusers' eager LTX-Video block (src/diffusers/models/transformers/transformer_ltx.py, LTXVideoTransformerBlock.forward; norm1 is diffusers' RMSNorm without weight, src/diffusers/models/normalization.py): hidden_states * rsqrt(variance + eps) in float32 rounded to bfloat16 (.to(input_dtype)), then norm * (1 + scale_msa) + shift_msa in bfloat16 with each op rounded: four roundings.
// expect-emu: passed none
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
    const __nv_bfloat16* sc = scale + row * dim;
    const __nv_bfloat16* sh = shift + row * dim;
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
        const float n = __bfloat162float(__float2bfloat16(__bfloat162float(xr[c]) * rstd));
        const float one_plus = __bfloat162float(__float2bfloat16(1.0f + __bfloat162float(sc[c])));
        const float p = __bfloat162float(__float2bfloat16(n * one_plus));
        yr[c] = __float2bfloat16(p + __bfloat162float(sh[c]));
    }
}
