// fixture: layernorm
// Variant: PyTorch's CUDA layer norm (aten/src/ATen/native/cuda/layer_norm_kernel.cu, vectorized_layer_norm_kernel): each thread's float32 Welford (count, mean, m2) over its slice of the row, merged across the block (WelfordOps::combine), rstd = rsqrt(var + eps), y = gamma * (rstd * (x - mean)) + beta.
// expect-emu: passed none
struct welford { float mean, m2, n; };

__device__ welford merge(welford a, welford b)
{
    if (b.n == 0.0f)
        return a;
    if (a.n == 0.0f)
        return b;
    const float delta = b.mean - a.mean, n = a.n + b.n, nb_over_n = b.n / n;
    welford r;
    r.mean = a.mean + delta * nb_over_n;
    r.m2 = a.m2 + b.m2 + delta * delta * a.n * nb_over_n;
    r.n = n;
    return r;
}

extern "C" __global__ void layernorm(const float* x, const float* gamma, const float* beta, float* y, int rows,
                                     int cols)
{
    __shared__ welford part[1024];
    const int row = blockIdx.x, tid = threadIdx.x;
    if (row >= rows)
        return;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;

    welford v = {0.0f, 0.0f, 0.0f};
    for (int c = tid; c < cols; c += blockDim.x) {
        v.n += 1.0f;
        const float delta = xr[c] - v.mean;
        v.mean += delta / v.n;
        v.m2 += delta * (xr[c] - v.mean);
    }
    part[tid] = v;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if (tid < stride && tid + stride < (int)blockDim.x)
            part[tid] = merge(part[tid], part[tid + stride]);
        __syncthreads();
    }
    const float mean = part[0].mean, rstd = rsqrtf(part[0].m2 / part[0].n + 1e-5f);
    for (int c = tid; c < cols; c += blockDim.x)
        yr[c] = gamma[c] * (rstd * (xr[c] - mean)) + beta[c];
}
