// Pitfall: the exact (erf) GELU instead of the tanh approximation Flux and SD3 use.
// fixture: bias-gelu-tanh-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void bias_gelu_tanh_bf16(const float* x, const __nv_bfloat16* bias, __nv_bfloat16* y,
                                               int rows, int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols)
        return;
    const float v = x[i] + __bfloat162float(bias[i % cols]);
    y[i] = __float2bfloat16(0.5f * v * erfcf(-v * 0.70710678f));
}
