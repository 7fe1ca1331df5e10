// fixture: geglu-bf16
// Variant: diffusers' eager GEGLU (src/diffusers/models/activations.py, GEGLU.forward): F.gelu on the bfloat16 gate rounds gelu(gate) to bfloat16 (PyTorch's CUDA GELU, 0.5*g*(1 + erf(g*M_SQRT1_2)) in float32), then hidden * gelu(gate) rounds the product again: two roundings.
// expect-emu: passed none
#include <cuda_bf16.h>

extern "C" __global__ void geglu_bf16(const __nv_bfloat16* h, __nv_bfloat16* y, int rows, int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols)
        return;
    const size_t r = i / cols, c = i % cols;
    const float v = __bfloat162float(h[r * 2 * cols + c]);
    const float g = __bfloat162float(h[r * 2 * cols + cols + c]);
    const float act = __bfloat162float(__float2bfloat16(g * 0.5f * (1.0f + erff(g * 0.70710678118654752f))));
    y[i] = __float2bfloat16(v * act);
}
