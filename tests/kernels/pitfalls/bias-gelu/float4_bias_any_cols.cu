// Pitfall: `float4` bias loads when `cols % 4 != 0` (four consecutive bias values from the group's first column: a group that spans two rows reads past the end of the bias).
// fixture: bias-gelu
// expect-emu: failed mismatch
// skillci-tunable ITEMS=8
extern "C" __global__ void bias_gelu(const float* x, const float* bias, float* y, int rows, int cols)
{
    const long long n = (long long)rows * cols;
    for (int j = 0; j < ITEMS / 4; j++) {
        const long long e = (((long long)blockIdx.x * (ITEMS / 4) + j) * blockDim.x + threadIdx.x) * 4;
        const long long col = e % cols;
        for (int k = 0; k < 4; k++) {
            if (e + k < n) {
                const float b = bias[col + k];
                const float v = x[e + k] + b;
                y[e + k] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
            }
        }
    }
}
