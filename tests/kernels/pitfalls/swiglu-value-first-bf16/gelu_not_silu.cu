// Pitfall: the exact GELU in place of the SiLU (diffusers' GEGLU, the same value-first layout with another activation).
// fixture: swiglu-value-first-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void swiglu_value_first_bf16(const __nv_bfloat16* h, __nv_bfloat16* y, int rows, int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols)
        return;
    const size_t r = i / cols, c = i % cols;
    const float u = __bfloat162float(h[r * 2 * cols + c]);
    const float g = __bfloat162float(h[r * 2 * cols + cols + c]);
    y[i] = __float2bfloat16(u * 0.5f * g * (1.0f + erff(g * 0.70710678f)));
}
