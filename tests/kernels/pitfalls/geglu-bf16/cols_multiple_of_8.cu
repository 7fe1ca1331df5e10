// Pitfall: assuming cols % 8 == 0 (eight outputs per thread from 16-byte vectors, rows not ending on a vector dropped).
// fixture: geglu-bf16
// expect-emu: failed stale_output
// skillci-tunable ELEMS=8
#include <cuda_bf16.h>

extern "C" __global__ void geglu_bf16(const __nv_bfloat16* h, __nv_bfloat16* y, int rows, int cols)
{
    const size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * ELEMS;
    const size_t vecs = (size_t)cols / 8;
    if (i / 8 >= (size_t)rows * vecs)
        return;
    const size_t r = (i / 8) / vecs, c = (i / 8) % vecs * 8;
    for (int k = 0; k < 8; k++) {
        const float v = __bfloat162float(h[r * 2 * cols + c + k]);
        const float g = __bfloat162float(h[r * 2 * cols + cols + c + k]);
        y[r * cols + c + k] = __float2bfloat16(v * (0.5f * g * (1.0f + erff(g * 0.70710678f))));
    }
}
