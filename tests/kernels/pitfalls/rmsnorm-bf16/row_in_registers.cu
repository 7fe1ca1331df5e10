// Pitfall: assuming a row fits in registers (4 vectors of 8 per thread held, the rest of a long row dropped).
// fixture: rmsnorm-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y,
                                        int rows, int cols)
{
    __shared__ float red[1024];
    const int row = blockIdx.x, tid = threadIdx.x;
    if (row >= rows)
        return;
    const __nv_bfloat16* xr = x + (size_t)row * cols;
    __nv_bfloat16* yr = y + (size_t)row * cols;

    float v[32];
    float s = 0.0f;
    for (int k = 0; k < 32; k++) {
        int c = tid + k * (int)blockDim.x;
        v[k] = c < cols ? __bfloat162float(xr[c]) : 0.0f;
        s += v[k] * v[k];
    }
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float scale = 1.0f / sqrtf(red[0] / cols + 1e-6f);
    for (int k = 0; k < 32; k++) {
        int c = tid + k * (int)blockDim.x;
        if (c < cols)
            yr[c] = __float2bfloat16(v[k] * scale * __bfloat162float(w[c]));
    }
}
