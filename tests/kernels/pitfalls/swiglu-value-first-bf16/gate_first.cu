// Pitfall: the gate read from the first half and the value from the second (vLLM's SiluAndMul and Llama's gate_up_proj order, the sibling swiglu-bf16's convention) where diffusers' SwiGLU chunks value first: silu of the value times the gate.
// fixture: swiglu-value-first-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void swiglu_value_first_bf16(const __nv_bfloat16* h, __nv_bfloat16* y, int rows, int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols)
        return;
    const size_t r = i / cols, c = i % cols;
    const float g = __bfloat162float(h[r * 2 * cols + c]);
    const float u = __bfloat162float(h[r * 2 * cols + cols + c]);
    y[i] = __float2bfloat16(g / (1.0f + expf(-g)) * u);
}
