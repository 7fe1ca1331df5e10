// Pitfall: assuming a row fits in registers (8 values per thread held, the rest of a long row dropped).
// fixture: layernorm
// expect-emu: failed mismatch
__device__ float block_sum(float v, float* red)
{
    const int tid = threadIdx.x;
    red[tid] = v;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    float s = red[0];
    __syncthreads();
    return s;
}

extern "C" __global__ void layernorm(const float* x, const float* gamma, const float* beta,
                                     float* y, int rows, int cols)
{
    __shared__ float red[1024];
    const int row = blockIdx.x, tid = threadIdx.x;
    if (row >= rows)
        return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float v[8];
    float s = 0.0f;
    for (int k = 0; k < 8; k++) {
        int c = tid + k * (int)blockDim.x;
        v[k] = c < cols ? xr[c] : 0.0f;
        s += v[k];
    }
    const float mean = block_sum(s, red) / cols;
    s = 0.0f;
    for (int k = 0; k < 8; k++) {
        int c = tid + k * (int)blockDim.x;
        if (c < cols)
            s += (v[k] - mean) * (v[k] - mean);
    }
    const float rstd = 1.0f / sqrtf(block_sum(s, red) / cols + 1e-5f);
    for (int k = 0; k < 8; k++) {
        int c = tid + k * (int)blockDim.x;
        if (c < cols)
            yr[c] = (v[k] - mean) * rstd * gamma[c] + beta[c];
    }
}
