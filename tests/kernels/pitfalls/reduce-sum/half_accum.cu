// Pitfall: float16 partial sums (relative error 1e-3, and overflow past 65504 on normal(1000, 1000) rows).
// fixture: reduce-sum
// expect-emu: failed mismatch
#include <cuda_fp16.h>

extern "C" __global__ void reduce_sum(const float* x, float* y, int rows, int cols)
{
    __shared__ __half red[1024];
    const int row = blockIdx.x, tid = threadIdx.x;
    if (row >= rows)
        return;
    const float* xr = x + (size_t)row * cols;
    __half s = __float2half(0.0f);
    for (int c = tid; c < cols; c += blockDim.x)
        s = __hadd(s, __float2half(xr[c]));
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] = __hadd(red[tid], red[tid + stride]);
        __syncthreads();
    }
    if (tid == 0)
        y[row] = __half2float(red[0]);
}
