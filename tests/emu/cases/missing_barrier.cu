// Emulator self-check: a shared-memory tree reduction without the barrier
// between rounds. On a GPU warps run concurrently and the result depends on
// timing; in the emulation a thread runs to its next barrier before the
// next thread starts, so the sum is read before all partials are added:
// the check must fail.
// fixture: softmax-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void softmax_bf16(const __nv_bfloat16* x, __nv_bfloat16* y, int rows, int cols)
{
    __shared__ float red[1024];
    const int row = blockIdx.x, tid = threadIdx.x;
    const __nv_bfloat16* xr = x + (size_t)row * cols;
    __nv_bfloat16* yr = y + (size_t)row * cols;
    float m = -INFINITY;
    for (int c = 0; c < cols; c++)
        m = fmaxf(m, __bfloat162float(xr[c]));
    float s = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x)
        s += expf(__bfloat162float(xr[c]) - m);
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        // missing: __syncthreads();
    }
    for (int c = tid; c < cols; c += blockDim.x)
        yr[c] = __float2bfloat16(expf(__bfloat162float(xr[c]) - m) / red[0]);
}
