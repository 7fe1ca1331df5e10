// Pitfall: taking the position from a (batch, heads, seq, hd) layout (s = row % seq) where x is (batch, seq, heads, hd) (s = row / heads % seq).
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
    const int s = (int)(pair / half % seq);  // the position of a (b, h, s, d) layout
    const size_t e = (size_t)s * hd + d;
    const float x0 = __bfloat162float(x[2 * pair]), x1 = __bfloat162float(x[2 * pair + 1]);
    y[2 * pair] = __float2bfloat16(x0 * cos_t[e] - x1 * sin_t[e]);
    y[2 * pair + 1] = __float2bfloat16(x1 * cos_t[e + 1] + x0 * sin_t[e + 1]);
}
