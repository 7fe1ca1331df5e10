// Pitfall: the accumulator rounded to bfloat16 before the bias (gelu(bf16(x*W^T) + b), version 1's target: a GEMM that writes bfloat16 and a separate bias + GELU kernel), the decomposition gemm-bf16 calls bias_rounded_apart.
// fixture: bias-gelu-tanh-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void bias_gelu_tanh_bf16(const float* x, const __nv_bfloat16* bias, __nv_bfloat16* y, int rows,
                                               int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols)
        return;
    const float v = __bfloat162float(__float2bfloat16(x[i])) + __bfloat162float(bias[i % cols]);
    const float z = 0.7978845608f * (v + 0.044715f * v * v * v);
    y[i] = __float2bfloat16(0.5f * v * (1.0f + tanhf(z)));
}
