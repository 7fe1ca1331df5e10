// Pitfall: the argument t * f formed in float16 (t rounded to float16: 999 has an ulp of 0.5, and the product again): sin and cos of a wrong angle.
// fixture: timestep-embedding-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void timestep_embedding_bf16(const float* t, __nv_bfloat16* y, int n, int dim,
                                                   int flip_sin_to_cos, float downscale_freq_shift)
{
    const size_t e = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (size_t)n * dim)
        return;
    const int r = (int)(e / dim), c = (int)(e % dim), half = dim / 2;
    if (c >= 2 * half) {
        y[e] = __float2bfloat16(0.0f);
        return;
    }
    // column c holds sin of frequency i (first half) or cos (second half),
    // the halves swapped when flip_sin_to_cos
    const bool second = c >= half;
    const int i = second ? c - half : c;
    const bool is_cos = second != (flip_sin_to_cos != 0);
    const float f = expf(-9.210340371976184f * (float)i / ((float)half - downscale_freq_shift));
    const float arg = __half2float(__hmul(__float2half(t[r]), __float2half(f)));
    y[e] = __float2bfloat16(is_cos ? cosf(arg) : sinf(arg));
}
