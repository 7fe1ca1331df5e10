// fixture: timestep-embedding-bf16
// Variant: diffusers' eager get_timestep_embedding (src/diffusers/models/embeddings.py, through the Timesteps module) then .to(bfloat16): exponent = (-log(max_period) * arange(half)) / (half - shift) in float32, emb = exp(exponent), t * emb, sin and cos in float32, the halves concatenated (swapped with flip_sin_to_cos), an odd width padded with a 0 column, one rounding at the cast.
// expect-emu: passed none
#include <cuda_bf16.h>

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
    const float exponent = (-logf(10000.0f) * (float)i) / ((float)half - downscale_freq_shift);
    const float f = expf(exponent);
    const float arg = t[r] * f;
    y[e] = __float2bfloat16(is_cos ? cosf(arg) : sinf(arg));
}
