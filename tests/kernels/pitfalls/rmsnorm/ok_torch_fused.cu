// fixture: rmsnorm
// Variant: PyTorch's torch.nn.RMSNorm / F.rms_norm on CUDA (aten/src/ATen/native/layer_norm.cpp, rms_norm_symint -> _fused_rms_norm, the layer-norm kernels' RMS mode): float32 sum of squares per thread, block-reduced, rstd = rsqrt(sum/cols + eps), y = x * rstd * w.
// expect-emu: passed none
extern "C" __global__ void rmsnorm(const float* x, const float* w, float* y, int rows, int cols)
{
    __shared__ float part[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nw = blockDim.x / 32;
    for (int row = blockIdx.x * ROWS_PER_BLOCK; row < (blockIdx.x + 1) * ROWS_PER_BLOCK && row < rows; row++) {
        const float* xr = x + (size_t)row * cols;
        float* yr = y + (size_t)row * cols;
        float s = 0.0f;
        for (int c = threadIdx.x; c < cols; c += blockDim.x)
            s += xr[c] * xr[c];
        for (int off = 16; off > 0; off >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, off);
        __syncthreads();
        if (lane == 0)
            part[warp] = s;
        __syncthreads();
        s = lane < nw ? part[lane] : 0.0f;
        for (int off = 16; off > 0; off >>= 1)
            s += __shfl_xor_sync(0xffffffffu, s, off);
        const float rstd = rsqrtf(s / (float)cols + 1e-6f);
        for (int c = threadIdx.x; c < cols; c += blockDim.x)
            yr[c] = xr[c] * rstd * w[c];
    }
}
