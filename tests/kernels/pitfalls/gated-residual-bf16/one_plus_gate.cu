// Pitfall: (1 + gate) as the factor, confusing the gate with AdaLN's scale: y = x + (1 + gate) * a.
// fixture: gated-residual-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void gated_residual_bf16(const __nv_bfloat16* x, const __nv_bfloat16* a,
                                               const __nv_bfloat16* gate, __nv_bfloat16* y, int batch, int tokens,
                                               int dim)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)batch * tokens * dim)
        return;
    const size_t b = i / ((size_t)tokens * dim), c = i % dim;
    y[i] = __float2bfloat16(__bfloat162float(x[i]) + (1.0f + __bfloat162float(gate[b * dim + c])) * __bfloat162float(a[i]));
}
