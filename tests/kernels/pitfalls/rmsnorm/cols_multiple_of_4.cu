// Pitfall: assuming cols is a multiple of 4 (float4 loads, no tail).
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
    const float4* x4 = reinterpret_cast<const float4*>(xr);
    for (int c = tid; c < cols / 4; c += blockDim.x) {
        float4 v = x4[c];
        s += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
    red[tid] = s;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            red[tid] += red[tid + stride];
        __syncthreads();
    }
    const float scale = 1.0f / sqrtf(red[0] / cols + 1e-6f);

    for (int c = tid; c < cols / 4 * 4; c += blockDim.x)
        yr[c] = xr[c] * scale * w[c];
}
