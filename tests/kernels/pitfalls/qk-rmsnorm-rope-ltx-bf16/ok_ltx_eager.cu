// fixture: qk-rmsnorm-rope-ltx-bf16
// Variant: LTX-Video's eager prologue (src/diffusers/models/transformers/transformer_ltx.py: attn.norm_q = torch.nn.RMSNorm(dim, eps=1e-5), then the module's apply_rotary_emb): PyTorch's RMSNorm (_fused_rms_norm: x * rsqrt(mean(x^2) + eps) * w in float32, one rounding to bfloat16), then x.float()*cos + x_rotated.float()*sin as two float32 products and a sum, rounded again.
// expect-emu: passed none
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
    const float r = rsqrtf(red[0] / dim + 1e-5f);
    for (int d = tid; d < dim; d += blockDim.x) {
        const float n = __bfloat162float(__float2bfloat16(__bfloat162float(xr[d]) * r * __bfloat162float(w[d])));
        const float m = __bfloat162float(__float2bfloat16(__bfloat162float(xr[d ^ 1]) * r * __bfloat162float(w[d ^ 1])));
        const float c = cos_t[row * dim + d], t = sin_t[row * dim + d];
        const float p1 = n * c, p2 = ((d & 1) ? m : -m) * t;
        y[row * dim + d] = __float2bfloat16(p1 + p2);
    }
}
