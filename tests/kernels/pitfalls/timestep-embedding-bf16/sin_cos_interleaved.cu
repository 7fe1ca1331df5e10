// Pitfall: sin and cos interleaved per frequency (sin f0, cos f0, sin f1, ...), another codebase's layout, where diffusers concatenates the halves (all sines, then all cosines).
// fixture: timestep-embedding-bf16
// expect-emu: failed mismatch
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
    const int i = c / 2;
    const bool is_cos = (c & 1) != (flip_sin_to_cos != 0);
    const float f = expf(-9.210340371976184f * (float)i / ((float)half - downscale_freq_shift));
    const float arg = t[r] * f;
    y[e] = __float2bfloat16(is_cos ? cosf(arg) : sinf(arg));
}
