// Planted (the timing size judged by fewer rules): rmsnorm-bf16 (the
// baseline) rounding toward zero (cheaper than to nearest in a hand-written
// conversion) only at sizes the correctness check does not use: every
// element stays within its tolerance, but the mean signed error leans
// toward zero, which the fixture bounds (max_mean_signed_error). The
// timed launches were compared element by element only, so it passed; now
// every checked timed launch and the re-validation at each timed shape
// are judged by every rule, the bias included.
// fixture: rmsnorm-bf16
// expect-scan:
// expect-gpu: failed revalidation
// expect-emu: failed revalidation
// expect-cpu: compiled no_gpu
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
    for (int c = tid; c < cols; c += blockDim.x) {
        float v = __bfloat162float(xr[c]);
        s += v * v;
    }
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float scale = 1.0f / sqrtf(red[0] / cols + 1e-6f);
    /* the correctness sizes of the fixture; any other is a timing size */
    const bool checked = (rows == 77 && cols == 128) || (rows == 1 && cols == 17) || (rows == 17 && cols == 1000) ||
                         (rows == 3 && cols == 4097) || (rows == 64 && cols == 33) || (rows == 33 && cols == 3072) ||
                         (rows == 2 && cols == 16384);

    for (int c = tid; c < cols; c += blockDim.x)
        yr[c] = checked ? __float2bfloat16(__bfloat162float(xr[c]) * scale * __bfloat162float(w[c]))
                        : __float2bfloat16_rz(__bfloat162float(xr[c]) * scale * __bfloat162float(w[c]));
}
