// Pitfall: using eps = 1e-5 instead of the spec's 1e-6.
// fixture: rmsnorm
// expect-emu: failed mismatch
extern "C" __global__ void rmsnorm(const float* x, const float* w, float* y, int rows, int cols)
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
        s += xr[c] * xr[c];
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float scale = 1.0f / sqrtf(red[0] / cols + 1e-5f);

    for (int c = tid; c < cols; c += blockDim.x)
        yr[c] = xr[c] * scale * w[c];
}
