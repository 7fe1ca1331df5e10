// Pitfall: the biased value x + bias held in float16 between the add and the GELU: it overflows 65504 (Flux's activations are why Flux runs in bfloat16).
// fixture: bias-gelu-tanh-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void bias_gelu_tanh_bf16(const float* x, const __nv_bfloat16* bias, __nv_bfloat16* y,
                                               int rows, int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols)
        return;
    const __half h = __float2half(x[i] + __bfloat162float(bias[i % cols]));
    const float v = __half2float(h);
    const float z = 0.7978845608f * (v + 0.044715f * v * v * v);
    y[i] = __float2bfloat16(0.5f * v * (1.0f + tanhf(z)));
}
