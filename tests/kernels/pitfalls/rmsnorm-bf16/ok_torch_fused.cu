// fixture: rmsnorm-bf16
// Variant: torch.nn.RMSNorm / F.rms_norm on a bfloat16 tensor with a bfloat16 weight (aten/src/ATen/native/layer_norm.cpp, rms_norm_symint -> _fused_rms_norm on CUDA; the composite fallback computes the same in float32): float32 sum of squares, rstd = rsqrt(mean + eps), x * rstd * w in float32, one rounding to bfloat16.
// expect-emu: passed none
#include <cuda_bf16.h>

extern "C" __global__ void rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int rows,
                                        int cols)
{
    __shared__ float part[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
    for (int row = blockIdx.x * ROWS_PER_BLOCK; row < (blockIdx.x + 1) * ROWS_PER_BLOCK && row < rows; row++) {
        const __nv_bfloat16* xr = x + (size_t)row * cols;
        __nv_bfloat16* yr = y + (size_t)row * cols;
        float s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x) {
            const float v = __bfloat162float(xr[c]);
            s += v * v;
        }
        for (int off = 16; off > 0; off >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, off);
        __syncthreads();
        if (lane == 0)
            part[warp] = s;
        __syncthreads();
        s = lane < nw ? part[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, off);
        const float rstd = rsqrtf(s / (float)cols + 1e-6f);
        for (int c = threadIdx.x; c < cols; c += blockDim.x)
            yr[c] = __float2bfloat16(__bfloat162float(xr[c]) * rstd * __bfloat162float(w[c]));
    }
}
