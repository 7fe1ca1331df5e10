// Pitfall: none; Hugging Face's eager LlamaMLP: act_fn(gate) rounded to bfloat16, then the product rounded again.
// fixture: swiglu-bf16
// Variant: two roundings (silu's output and the product), as the unfused layers compute it.
// expect-emu: passed none
#include <cuda_bf16.h>

extern "C" __global__ void swiglu_bf16(const __nv_bfloat16* h, __nv_bfloat16* y, int rows, int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols)
        return;
    const size_t r = i / cols, c = i % cols;
    const float g = __bfloat162float(h[r * 2 * cols + c]);
    const float u = __bfloat162float(h[r * 2 * cols + cols + c]);
    y[i] = __float2bfloat16(__bfloat162float(__float2bfloat16(g / (1.0f + expf(-g)))) * u);
}
