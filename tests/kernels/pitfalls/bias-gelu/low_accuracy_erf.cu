// Pitfall: an `__expf`-based erf approximation of low accuracy (Winitzki's, about 1e-4).
// fixture: bias-gelu
// expect-emu: failed mismatch
__device__ float erf_approx(float x)
{
    const float a = 0.147f, x2 = x * x;
    const float r = sqrtf(1.0f - __expf(-x2 * (1.2732395f + a * x2) / (1.0f + a * x2)));
    return x < 0.0f ? -r : r;
}

extern "C" __global__ void bias_gelu(const float* x, const float* bias, float* y, int rows, int cols)
{
    const long long n = (long long)rows * cols;
    for (int j = 0; j < ITEMS; j++) {
        const long long e = ((long long)blockIdx.x * ITEMS + j) * blockDim.x + threadIdx.x;
        if (e < n) {
            const float v = x[e] + bias[e % cols];
            y[e] = 0.5f * v * (1.0f + erf_approx(v * 0.70710678118654752f));
        }
    }
}
