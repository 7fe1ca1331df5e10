// Pitfall: assuming a row fits in registers (8 values per thread held, the rest of a long row dropped).
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

    float v[8];
    float s = 0.0f;
    for (int k = 0; k < 8; k++) {
        int c = tid + k * (int)blockDim.x;
        v[k] = c < cols ? xr[c] : 0.0f;
        s += v[k] * v[k];
    }
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float scale = 1.0f / sqrtf(red[0] / cols + 1e-6f);
    for (int k = 0; k < 8; k++) {
        int c = tid + k * (int)blockDim.x;
        if (c < cols)
            yr[c] = v[k] * scale * w[c];
    }
}
