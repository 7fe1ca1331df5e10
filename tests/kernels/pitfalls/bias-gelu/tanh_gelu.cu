// Pitfall: the tanh approximation of GELU instead of the exact erf form.
// fixture: bias-gelu
// expect-emu: failed mismatch
extern "C" __global__ void bias_gelu(const float* x, const float* bias, float* y, int rows, int cols)
{
    const long long n = (long long)rows * cols;
    for (int j = 0; j < ITEMS; j++) {
        const long long e = ((long long)blockIdx.x * ITEMS + j) * blockDim.x + threadIdx.x;
        if (e < n) {
            const float v = x[e] + bias[e % cols];
            y[e] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
        }
    }
}
