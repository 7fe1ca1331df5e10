// fixture: bias-gelu-tanh-bf16
// Variant: the GELU_BIAS epilogue on the float32 accumulator (what PyTorch's _addmm_activation with use_gelu=True asks of cuBLASLt, CUBLASLT_EPILOGUE_GELU_BIAS, aten/src/ATen/cuda/CUDABlas.cpp gemm_and_bias; and torch.compile's fused pointwise kernel): v = acc + bias in float32, PyTorch's tanh formula 0.5*v*(1 + tanh(sqrt(2/pi)*(v + 0.044715*v^3))) (aten/src/ATen/native/cuda/ActivationGeluKernel.cu) with the cubic as a fused multiply-add, one rounding.
// expect-emu: passed none
#include <cuda_bf16.h>

extern "C" __global__ void bias_gelu_tanh_bf16(const float* x, const __nv_bfloat16* bias, __nv_bfloat16* y, int rows,
                                               int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols)
        return;
    const float kBeta = 0.7978845608028654f, kKappa = 0.044715f;
    const float v = x[i] + __bfloat162float(bias[i % cols]);
    const float inner = kBeta * fmaf(kKappa * v, v * v, v);
    y[i] = __float2bfloat16(0.5f * v * (1.0f + tanhf(inner)));
}
