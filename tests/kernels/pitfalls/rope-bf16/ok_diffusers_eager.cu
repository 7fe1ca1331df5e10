// fixture: rope-bf16
// Variant: diffusers' eager apply_rotary_emb (src/diffusers/models/embeddings.py, use_real=True, use_real_unbind_dim=-1): x_rotated = stack(-x_imag, x_real), then x.float() * cos + x_rotated.float() * sin as two float32 tensor products and a float32 sum, .to(bfloat16): one rounding.
// expect-emu: passed none
#include <cuda_bf16.h>

extern "C" __global__ void rope_bf16(const __nv_bfloat16* x, const float* cos_t, const float* sin_t, __nv_bfloat16* y,
                                     int batch, int seq, int heads, int hd)
{
    // ELEMS elements (ELEMS / 2 pairs) per thread
    const size_t n = (size_t)batch * seq * heads * hd;
    const size_t first = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * ELEMS;
    for (size_t i = first; i < first + ELEMS && i < n; i++) {
        const int d = (int)(i % hd);
        const int s = (int)(i / hd / heads % seq);
        const float xv = __bfloat162float(x[i]);
        const float rot = (d & 1) ? __bfloat162float(x[i - 1]) : -__bfloat162float(x[i + 1]);
        const float a = xv * cos_t[(size_t)s * hd + d];
        const float b = rot * sin_t[(size_t)s * hd + d];
        y[i] = __float2bfloat16(a + b);
    }
}
