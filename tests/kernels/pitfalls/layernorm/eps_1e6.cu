// Pitfall: eps = 1e-6 instead of the spec's 1e-5.
// fixture: layernorm
// expect-emu: failed mismatch
extern "C" __global__ void layernorm(const float* x, const float* gamma, const float* beta,
                                     float* y, int rows, int cols)
{
    __shared__ float red[1024];
    const int row = blockIdx.x;
    const int tid = threadIdx.x;
    if (row >= rows)
        return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;

    float s = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x)
        s += xr[c];
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float mean = red[0] / cols;
    __syncthreads();

    float v = 0.0f;
    for (int c = tid; c < cols; c += blockDim.x) {
        float d = xr[c] - mean;
        v += d * d;
    }
    red[tid] = v;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float rstd = 1.0f / sqrtf(red[0] / cols + 1e-6f);

    for (int c = tid; c < cols; c += blockDim.x)
        yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}
