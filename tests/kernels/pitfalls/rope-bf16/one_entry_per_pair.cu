// Pitfall: reading one table entry per pair (cos[s, 2i] for both elements), which holds only while the tables repeat each frequency; the prompt says each element uses its own entry, and the check's tables do not repeat.
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
    const int d = (int)(pair % half) * 2;
    const int s = (int)(pair / half / heads % seq);
    const float c = cos_t[(size_t)s * hd + d], t = sin_t[(size_t)s * hd + d];
    const float x0 = __bfloat162float(x[2 * pair]), x1 = __bfloat162float(x[2 * pair + 1]);
    y[2 * pair] = __float2bfloat16(x0 * c - x1 * t);
    y[2 * pair + 1] = __float2bfloat16(x1 * c + x0 * t);
}
