// Planted: rmsnorm-bf16 summing the squares in float16: normal(0, 1000)
// inputs overflow 65504 at once (the row becomes 0), and long rows of
// uniform(-4, 4) inputs too.
// fixture: rmsnorm-bf16
// The PTX shows the float16 arithmetic: float16 has fewer exponent bits than
// the fixture's bf16 precision, so the scan flags it too.
// expect-scan: precision_downcast
// expect-gpu: failed mismatch
// expect-emu: failed mismatch
// expect-cpu: flagged scan
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
                                        int rows, int cols)
{
    __shared__ __half red[1024];
    const int row = blockIdx.x, tid = threadIdx.x;
    const __nv_bfloat16* xr = x + (size_t)row * cols;
    __nv_bfloat16* yr = y + (size_t)row * cols;

    __half s = __float2half(0.0f);
    for (int c = tid; c < cols; c += blockDim.x) {
        float v = __bfloat162float(xr[c]);
        s = __hadd(s, __float2half(v * v));
    }
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] = __hadd(red[tid], red[tid + stride]);
        __syncthreads();
    }
    const float scale = 1.0f / sqrtf(__half2float(red[0]) / cols + 1e-6f);
    for (int c = tid; c < cols; c += blockDim.x)
        yr[c] = __float2bfloat16(__bfloat162float(xr[c]) * scale * __bfloat162float(w[c]));
}
