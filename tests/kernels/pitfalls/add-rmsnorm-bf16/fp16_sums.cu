// Pitfall: the sum of squares accumulated in float16: a residual stream of normal(0, 300) passes 65504 after one element.
// fixture: add-rmsnorm-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void add_rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* residual,
                                            const __nv_bfloat16* w, __nv_bfloat16* residual_out, __nv_bfloat16* y,
                                            int rows, int cols)
{
    __shared__ float red[1024];
    const int row = blockIdx.x, tid = threadIdx.x;
    if (row >= rows)
        return;
    const size_t off = (size_t)row * cols;
    __half ss = __float2half(0.0f);
    for (int c = tid; c < cols; c += blockDim.x) {
        const __nv_bfloat16 s = __float2bfloat16(__bfloat162float(x[off + c]) + __bfloat162float(residual[off + c]));
        residual_out[off + c] = s;
        const float v = __bfloat162float(s);
        ss = __float2half(__half2float(ss) + v * v);
    }
    red[tid] = __half2float(ss);
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float rstd = 1.0f / sqrtf(red[0] / cols + 1e-5f);
    for (int c = tid; c < cols; c += blockDim.x)
        y[off + c] = __float2bfloat16(__bfloat162float(residual_out[off + c]) * rstd * __bfloat162float(w[c]));
}
