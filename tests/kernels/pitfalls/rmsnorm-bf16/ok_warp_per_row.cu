// Variant: a warp per row (ROWS_PER_BLOCK = BLOCK / 32 = 8), as kernels for short rows such as Flux's 128-wide per-head QK-norm are written: each lane strides over the row, a shuffle reduction of the float32 sum of squares, no shared memory, one rounding per element.
// fixture: rmsnorm-bf16
// expect-emu: passed none
// skillci-tunable BLOCK=256
// skillci-tunable ROWS_PER_BLOCK=8
#include <cuda_bf16.h>

extern "C" __global__ void rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
                                        int rows, int cols)
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const int row = blockIdx.x * ROWS_PER_BLOCK + warp;
    if (row >= rows)
        return;  /* the whole warp leaves together: no shuffle is left half-done */
    const __nv_bfloat16* xr = x + (size_t)row * cols;
    __nv_bfloat16* yr = y + (size_t)row * cols;
    float s = 0.0f;
    for (int c = lane; c < cols; c += 32) {
        float v = __bfloat162float(xr[c]);
        s += v * v;
    }
    for (int o = 16; o > 0; o >>= 1)
        s += __shfl_xor_sync(0xffffffffu, s, o);
    const float scale = 1.0f / sqrtf(s / cols + 1e-6f);
    for (int c = lane; c < cols; c += 32)
        yr[c] = __float2bfloat16(__bfloat162float(xr[c]) * scale * __bfloat162float(w[c]));
}
