// Pitfall: the bias dropped (the GELU of x alone, as if the projection had added it).
// fixture: bias-gelu-tanh-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void bias_gelu_tanh_bf16(const float* x, const __nv_bfloat16* bias, __nv_bfloat16* y,
                                               int rows, int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    (void)bias;
    if (i >= (size_t)rows * cols)
        return;
    const float v = x[i];
    const float z = 0.7978845608f * (v + 0.044715f * v * v * v);
    y[i] = __float2bfloat16(0.5f * v * (1.0f + tanhf(z)));
}
