// Pitfall: assuming cols is a multiple of BLOCK (whole strides only, the tail dropped).
// fixture: softmax
// expect-emu: failed stale_output
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    __shared__ float red[1024];
    const int row = blockIdx.x, tid = threadIdx.x;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    const int whole = cols / (int)blockDim.x * (int)blockDim.x;
    float m = -INFINITY;
    for (int c = tid; c < whole; c += blockDim.x) m = fmaxf(m, xr[c]);
    red[tid] = m;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x) red[tid] = fmaxf(red[tid], red[tid + stride]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float s = 0.0f;
    for (int c = tid; c < whole; c += blockDim.x) s += expf(xr[c] - m);
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x) red[tid] += red[tid + stride];
        __syncthreads();
    }
    for (int c = tid; c < whole; c += blockDim.x) yr[c] = expf(xr[c] - m) / red[0];
}
