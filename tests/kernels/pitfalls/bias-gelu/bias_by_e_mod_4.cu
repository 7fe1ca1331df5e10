// Pitfall: indexing the bias by `e % 4` (the position in a float4 group) instead of the column.
// fixture: bias-gelu
// expect-emu: failed mismatch
extern "C" __global__ void bias_gelu(const float* x, const float* bias, float* y, int rows, int cols)
{
    const long long n = (long long)rows * cols;
    for (int j = 0; j < ITEMS; j++) {
        const long long e = ((long long)blockIdx.x * ITEMS + j) * blockDim.x + threadIdx.x;
        if (e < n) {
            const float v = x[e] + bias[e % 4 % cols];
            y[e] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
        }
    }
}
