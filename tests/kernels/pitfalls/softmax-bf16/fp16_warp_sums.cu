// Pitfall: half-precision sums of long rows (one warp per row, float16 partial sums per lane).
// fixture: softmax-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void softmax_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols)
{
    const int row = blockIdx.x, lane = threadIdx.x;
    if (row >= rows || lane >= 32)
        return;
    const __nv_bfloat16* xr = x + (size_t)row * cols;
    __nv_bfloat16* yr = y + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = lane; c < cols; c += 32)
        m = fmaxf(m, __bfloat162float(xr[c]));
    for (int o = 16; o > 0; o >>= 1)
        m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
    __half s = __float2half(0.0f);
    for (int c = lane; c < cols; c += 32)
        s = __hadd(s, __float2half(expf(__bfloat162float(xr[c]) - m)));
    float t = __half2float(s);
    for (int o = 16; o > 0; o >>= 1)
        t += __shfl_xor_sync(0xffffffffu, t, o);
    const float inv = 1.0f / t;
    for (int c = lane; c < cols; c += 32)
        yr[c] = __float2bfloat16(expf(__bfloat162float(xr[c]) - m) * inv);
}
