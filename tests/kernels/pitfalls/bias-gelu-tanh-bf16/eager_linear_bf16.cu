// Pitfall: not a bug but outside this one-rounding fixture: diffusers' eager FeedForward (src/diffusers/models/activations.py, GELU.forward: self.proj then F.gelu(approximate="tanh")): nn.Linear rounds acc + bias to bfloat16, the GELU rounds again; in the negative tail the GELU's relative slope multiplies the first rounding.
// fixture: bias-gelu-tanh-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void bias_gelu_tanh_bf16(const float* x, const __nv_bfloat16* bias, __nv_bfloat16* y,
                                               int rows, int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols)
        return;
    const float v = __bfloat162float(__float2bfloat16(x[i] + __bfloat162float(bias[i % cols])));
    const float z = 0.7978845608f * (v + 0.044715f * v * v * v);
    y[i] = __float2bfloat16(0.5f * v * (1.0f + tanhf(z)));
}
