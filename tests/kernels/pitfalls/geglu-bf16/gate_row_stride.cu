// Pitfall: the gate read from the wrong row (a row stride of cols, not 2*cols).
// fixture: geglu-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void geglu_bf16(const __nv_bfloat16* h, __nv_bfloat16* y, int rows, int cols)
{
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (size_t)rows * cols)
        return;
    const size_t r = i / cols, c = i % cols;
    const float v = __bfloat162float(h[r * cols + c]);
    const float g = __bfloat162float(h[rows * cols + r * cols + c]);
    y[i] = __float2bfloat16(v * (0.5f * g * (1.0f + erff(g * 0.70710678f))));
}
