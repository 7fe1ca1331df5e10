// fixture: qk-rmsnorm-rope-bf16
// Variant: diffusers' own RMSNorm class (src/diffusers/models/normalization.py, RMSNorm.forward: hidden_states * rsqrt(variance + eps) in float32, .to(bfloat16), * weight in bfloat16) then apply_rotary_emb (src/diffusers/models/embeddings.py: x.float()*cos + x_rotated.float()*sin, .to(bfloat16)): three roundings; used by the DiTs whose attention norms are diffusers' RMSNorm.
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
        float v = __bfloat162float(xr[d]);
        ss += v * v;
    }
    for (int off = 16; off > 0; off >>= 1)
        ss += __shfl_xor_sync(0xffffffffu, ss, off);
    const float r = 1.0f / sqrtf(ss / 128.0f + 1e-6f);
    for (int d = lane; d < 128; d += 32) {
        const float n = __bfloat162float(__float2bfloat16(__bfloat162float(__float2bfloat16(__bfloat162float(xr[d]) * r)) * __bfloat162float(w[d])));
        const float m = __bfloat162float(__float2bfloat16(__bfloat162float(__float2bfloat16(__bfloat162float(xr[d ^ 1]) * r)) * __bfloat162float(w[d ^ 1])));
        const float c = cos_t[(size_t)s * 128 + d], t = sin_t[(size_t)s * 128 + d];
        y[row * 128 + d] = __float2bfloat16((d & 1) ? n * c + m * t : n * c - m * t);
    }
}
