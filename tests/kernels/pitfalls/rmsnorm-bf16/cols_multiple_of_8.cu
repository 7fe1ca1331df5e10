// Pitfall: assuming cols % 8 == 0 (16-byte vectors of eight values, no tail).
// fixture: rmsnorm-bf16
// expect-emu: failed mismatch|stale_output
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

    float s = 0.0f;
    for (int c = tid; c < cols / 8; c += blockDim.x) {
        uint4 u = reinterpret_cast<const uint4*>(xr)[c];
        const __nv_bfloat16* e = reinterpret_cast<const __nv_bfloat16*>(&u);
        for (int k = 0; k < 8; k++) {
            float v = __bfloat162float(e[k]);
            s += v * v;
        }
    }
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float scale = 1.0f / sqrtf(red[0] / cols + 1e-6f);

    for (int c = tid; c < cols / 8 * 8; c += blockDim.x)
        yr[c] = __float2bfloat16(__bfloat162float(xr[c]) * scale * __bfloat162float(w[c]));
}
