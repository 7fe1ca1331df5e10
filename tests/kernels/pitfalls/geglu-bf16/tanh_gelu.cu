// Pitfall: the tanh approximation of GELU (Flux's and SD3's, not GEGLU's exact erf form).
// fixture: geglu-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void geglu_bf16(const __nv_bfloat16* h, __nv_bfloat16* y, int rows, int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols)
        return;
    const size_t r = i / cols, c = i % cols;
    const float v = __bfloat162float(h[r * 2 * cols + c]);
    const float g = __bfloat162float(h[r * 2 * cols + cols + c]);
    y[i] = __float2bfloat16(v * (0.5f * g * (1.0f + tanhf(0.7978845608f * (g + 0.044715f * g * g * g)))));
}
