// Pitfall: pairs interleaved (2i, 2i+1), GPT-J's convention (vLLM's is_neox=False, rope-bf16's), where NeoX / rotate_half pairs element i with i + hd/2.
// fixture: rope-neox-bf16
// expect-emu: failed mismatch
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
    const float v1 = __bfloat162float(x[row * hd + 2 * i]), v2 = __bfloat162float(x[row * hd + 2 * i + 1]);
    y[row * hd + 2 * i] = __float2bfloat16(v1 * c - v2 * s);
    y[row * hd + 2 * i + 1] = __float2bfloat16(v2 * c + v1 * s);
}
