// fixture: bias-gelu
// Variant: eager PyTorch, F.gelu(x + bias): the float32 add, then the exact GELU as PyTorch's CUDA kernel writes it (aten/src/ATen/native/cuda/ActivationGeluKernel.cu, GeluCUDAKernelImpl: x * 0.5 * (1 + erf(x * M_SQRT1_2))), which cancels for large negative inputs, inside the atol.
// expect-emu: passed none
extern "C" __global__ void bias_gelu(const float* x, const float* bias, float* y, int rows, int cols)
{
    const size_t n = (size_t)rows * cols;
    for (size_t i = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * ITEMS, e = 0; e < ITEMS && i + e < n; e++) {
        const float v = x[i + e] + bias[(i + e) % cols];
        y[i + e] = v * 0.5f * (1.0f + erff(v * 0.70710678118654752f));
    }
}
