// fixture: swiglu-value-first-bf16
// Variant: diffusers' eager SwiGLU (src/diffusers/models/activations.py, SwiGLU.forward: hidden_states, gate = proj(x).chunk(2, dim=-1); hidden_states * self.activation(gate), nn.SiLU): silu(gate) rounded to bfloat16 (PyTorch's CUDA silu, x / (1 + exp(-x)) in float32), then the product rounded again: two roundings.
// expect-emu: passed none
#include <cuda_bf16.h>

extern "C" __global__ void swiglu_value_first_bf16(const __nv_bfloat16* h, __nv_bfloat16* y, int rows, int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols)
        return;
    const size_t r = i / cols, c = i % cols;
    const float u = __bfloat162float(h[r * 2 * cols + c]);
    const float g = __bfloat162float(h[r * 2 * cols + cols + c]);
    y[i] = __float2bfloat16(u * __bfloat162float(__float2bfloat16(g / (1.0f + expf(-g)))));
}
