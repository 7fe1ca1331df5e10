// fixture: add-rmsnorm-bf16
// Variant: vLLM's fused_add_rms_norm (csrc/layernorm_kernels.cu): z = input + residual in the 16-bit type (rounded), stored as the residual, float32 sum of squares, then (scalar_t)(z * rstd) * weight: the normalised value rounded to bfloat16 before the weight and the product rounded again (Hugging Face's LlamaRMSNorm, weight * hidden_states.to(input_dtype), computes the same): the sum and two roundings of y.
// expect-emu: passed none
#include <cuda_bf16.h>

extern "C" __global__ void add_rmsnorm_bf16(const __nv_bfloat16* x, const __nv_bfloat16* residual,
                                            const __nv_bfloat16* w, __nv_bfloat16* residual_out, __nv_bfloat16* y,
                                            int rows, int cols)
{
    __shared__ float red[1024];
    const int row = blockIdx.x, tid = threadIdx.x;
    if (row >= rows)
        return;
    const size_t off = (size_t)row * cols;
    float ss = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) {
        const __nv_bfloat16 s = __float2bfloat16(__bfloat162float(x[off + c]) + __bfloat162float(residual[off + c]));
        residual_out[off + c] = s;
        const float v = __bfloat162float(s);
        ss += v * v;
    }
    red[tid] = ss;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float rstd = rsqrtf(red[0] / cols + 1e-5f);
    for (int c = tid; c < cols; c += blockDim.x)
        y[off + c] = __float2bfloat16(__bfloat162float(__float2bfloat16(__bfloat162float(residual_out[off + c]) * rstd)) * __bfloat162float(w[c]));
}
