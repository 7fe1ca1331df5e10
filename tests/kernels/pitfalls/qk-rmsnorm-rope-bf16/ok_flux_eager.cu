// fixture: qk-rmsnorm-rope-bf16
// Variant: Flux's eager prologue today (src/diffusers/models/transformers/transformer_flux.py: attn.norm_q = torch.nn.RMSNorm, then apply_rotary_emb from embeddings.py): PyTorch's RMSNorm (aten/src/ATen/native/layer_norm.cpp, rms_norm_symint -> _fused_rms_norm: x * rsqrt(mean(x^2) + eps) * w in float32, one rounding to bfloat16), then the rotation x.float()*cos + x_rotated.float()*sin as two float32 products and a sum, rounded again.
// expect-emu: passed none
#include <cuda_bf16.h>

extern "C" __global__ void qk_rmsnorm_rope_bf16(const __nv_bfloat16* x, const __nv_bfloat16* w, const float* cos_t,
                                                const float* sin_t, __nv_bfloat16* y, int batch, int seq, int heads)
{
    const size_t row = (size_t)blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    const int lane = threadIdx.x % 32;
    if (row >= (size_t)batch * seq * heads)
        return;
    const int s = (int)(row / heads % seq);
    const __nv_bfloat16* xr = x + row * 128;
    float ss = 0.0f;
    for (int d = lane; d < 128; d += 32) {
        const float v = __bfloat162float(xr[d]);
        ss += v * v;
    }
    for (int off = 16; off > 0; off >>= 1)
        ss += __shfl_xor_sync(0xffffffffu, ss, off);
    const float r = rsqrtf(ss / 128.0f + 1e-6f);
    for (int d = lane; d < 128; d += 32) {
        // the norm's output, one rounding
        const float n = __bfloat162float(__float2bfloat16(__bfloat162float(xr[d]) * r * __bfloat162float(w[d])));
        const float m = __bfloat162float(__float2bfloat16(__bfloat162float(xr[d ^ 1]) * r * __bfloat162float(w[d ^ 1])));
        const float c = cos_t[(size_t)s * 128 + d], t = sin_t[(size_t)s * 128 + d];
        // x_rotated = (-x_imag, x_real): -n[2i+1] at 2i, n[2i] at 2i+1
        const float rot = (d & 1) ? m : -m;
        const float p1 = n * c, p2 = rot * t;
        y[row * 128 + d] = __float2bfloat16(p1 + p2);
    }
}
