// Pitfall: the half-split pairing of LLaMA's rotate_half, (x[i], x[i + hd/2]), instead of diffusers' interleaved pairs (x[2i], x[2i+1]).
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
    const size_t row = pair / half * hd;
    const int i = (int)(pair % half);
    const int s = (int)(pair / half / heads % seq);
    const size_t e = (size_t)s * hd;
    const float x0 = __bfloat162float(x[row + i]), x1 = __bfloat162float(x[row + i + half]);
    y[row + i] = __float2bfloat16(x0 * cos_t[e + i] - x1 * sin_t[e + i]);
    y[row + i + half] = __float2bfloat16(x1 * cos_t[e + i + half] + x0 * sin_t[e + i + half]);
}
