// fixture: rope-neox-bf16
// Variant: vLLM's rotary_embedding kernel with is_neox=True (csrc/pos_encoding_kernels.cu, apply_token_rotary_embedding: x * cos - y * sin in the 16-bit scalar type, each product and the difference rounded) and Hugging Face's apply_rotary_pos_emb (q * cos + rotate_half(q) * sin on bfloat16 tensors, cos and sin cast to the input's dtype): three roundings.
// expect-emu: passed none
#include <cuda_bf16.h>

extern "C" __global__ void rope_neox_bf16(const int* positions, const __nv_bfloat16* x,
                                          const __nv_bfloat16* cos_sin_cache, __nv_bfloat16* y, int tokens, int heads,
                                          int hd)
{
    const size_t p = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int half = hd / 2;
    if (p >= (size_t)tokens * heads * half)
        return;
    const size_t row = p / half;  // token * heads + head
    const int i = (int)(p % half);
    const int t = (int)(row / heads);
    const __nv_bfloat16* cs = cos_sin_cache + (size_t)positions[t] * hd;
    const float c = __bfloat162float(cs[i]), s = __bfloat162float(cs[half + i]);
    const float v1 = __bfloat162float(x[row * hd + i]), v2 = __bfloat162float(x[row * hd + half + i]);
    const float p1 = __bfloat162float(__float2bfloat16(v1 * c)), p2 = __bfloat162float(__float2bfloat16(v2 * s));
    const float p3 = __bfloat162float(__float2bfloat16(v2 * c)), p4 = __bfloat162float(__float2bfloat16(v1 * s));
    y[row * hd + i] = __float2bfloat16(p1 - p2);
    y[row * hd + half + i] = __float2bfloat16(p3 + p4);
}
