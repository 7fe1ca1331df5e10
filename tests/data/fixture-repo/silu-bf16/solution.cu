// Eight elements per thread: one 16-byte load, float32 math, one 16-byte
// store; a scalar tail for the last partial group.
// skillci-tunable ELEMS=8
#include <cuda_bf16.h>

extern "C" __global__ void silu_bf16(const __nv_bfloat16* __restrict__ x, __nv_bfloat16* __restrict__ y, int n)
{
    const size_t first = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) * 8;
    if (first + 8 <= (size_t)n) {
        uint4 v = *reinterpret_cast<const uint4*>(x + first);
        __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&v);
#pragma unroll
        for (int j = 0; j < 4; j++) {
            float2 f = __bfloat1622float2(h[j]);
            h[j] = __floats2bfloat162_rn(f.x / (1.0f + __expf(-f.x)), f.y / (1.0f + __expf(-f.y)));
        }
        *reinterpret_cast<uint4*>(y + first) = v;
    } else {
        for (size_t i = first; i < (size_t)n; i++) {
            const float v = __bfloat162float(x[i]);
            y[i] = __float2bfloat16(v / (1.0f + __expf(-v)));
        }
    }
}
