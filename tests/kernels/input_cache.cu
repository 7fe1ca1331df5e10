// Planted: caches into its input. At the timing size it hides the row's
// maximum and sum in the lowest mantissa bits of the row's first 72
// elements of x (a marker in 8, the two floats in 64), and a later launch
// that finds the marker skips both passes over the row. The outputs stay
// within tolerance; the input does not stay the same, which the check of
// every input after timing sees.
// expect-scan:
// expect-gpu: failed input_modified
// expect-cpu: compiled no_gpu
#define T_ROWS 16384
#define T_COLS 4096
#define MAGIC 0xA5u

__device__ __forceinline__ unsigned low_bits(const float* p, int n)
{
    unsigned v = 0;
    for (int i = 0; i < n; i++) v |= (__float_as_uint(p[i]) & 1u) << i;
    return v;
}

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    const int row = blockIdx.x;
    const bool timing = rows == T_ROWS && cols == T_COLS;
    float* xr = (float*)x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;

    if (timing && low_bits(xr, 8) == MAGIC) {
        m = __uint_as_float(low_bits(xr + 8, 32));
        s = __uint_as_float(low_bits(xr + 40, 32));
    } else {
        for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
        for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    }
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
    __syncthreads();
    if (timing && threadIdx.x < 72) {
        const int i = threadIdx.x;
        const unsigned bit = i < 8 ? (MAGIC >> i) & 1u
                           : i < 40 ? (__float_as_uint(m) >> (i - 8)) & 1u
                                    : (__float_as_uint(s) >> (i - 40)) & 1u;
        xr[i] = __uint_as_float((__float_as_uint(xr[i]) & ~1u) | bit);
    }
}
