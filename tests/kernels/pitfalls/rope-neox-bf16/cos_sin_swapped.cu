// Pitfall: the cache row's halves read the other way round (sin first, then cos).
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
    const float s = __bfloat162float(cs[i]), c = __bfloat162float(cs[half + i]);
    const float v1 = __bfloat162float(x[row * hd + i]), v2 = __bfloat162float(x[row * hd + half + i]);
    y[row * hd + i] = __float2bfloat16(v1 * c - v2 * s);
    y[row * hd + half + i] = __float2bfloat16(v2 * c + v1 * s);
}
