// Pitfall: indexing the cos/sin tables as (seq, hd/2), one entry per pair, where diffusers' repeat_interleave_real tables are (seq, hd).
// fixture: rope-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void rope_bf16(const __nv_bfloat16* x, const float* cos_t, const float* sin_t,
                                     __nv_bfloat16* y, int batch, int seq, int heads, int hd)
{
    const size_t pair = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int half = hd / 2;
    if (pair >= (size_t)batch * seq * heads * half)
        return;
    const int i = (int)(pair % half);
    const int s = (int)(pair / half / heads % seq);
    const float c = cos_t[(size_t)s * half + i], t = sin_t[(size_t)s * half + i];
    const float x0 = __bfloat162float(x[2 * pair]), x1 = __bfloat162float(x[2 * pair + 1]);
    y[2 * pair] = __float2bfloat16(x0 * c - x1 * t);
    y[2 * pair + 1] = __float2bfloat16(x0 * t + x1 * c);
}
