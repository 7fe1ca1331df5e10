// Pitfall: dropping the tail when rows*cols is not a multiple of 4*BLOCK*ITEMS.
// fixture: bias-gelu
// expect-emu: failed stale_output
extern "C" __global__ void bias_gelu(const float* x, const float* bias, float* y, int rows, int cols)
{
    const long long n = (long long)rows * cols;
    for (int j = 0; j < ITEMS; j++) {
        const long long e = ((long long)blockIdx.x * ITEMS + j) * blockDim.x + threadIdx.x;
        if (e < n / (4LL * blockDim.x * ITEMS) * (4LL * blockDim.x * ITEMS)) {
            const float v = x[e] + bias[e % cols];
            y[e] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
        }
    }
}
