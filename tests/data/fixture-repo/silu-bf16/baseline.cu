// Baseline: one element per thread, scalar bfloat16 loads and stores.
#include <cuda_bf16.h>

extern "C" __global__ void silu_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, int n)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < (size_t)n) {
        const float v = __bfloat162float(x[i]);
        y[i] = __float2bfloat16(v / (1.0f + expf(-v)));
    }
}
