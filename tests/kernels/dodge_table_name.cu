// Planted scan dodge: a launch counter named like the CUDA math library's
// table (__cudart_i2opi_f, with an initialiser, as the library declares
// it), which a scan that let that name through by name did not flag, and
// an atomicAdd on it (atom.global.add): the work is done on the first 60
// launches only. The scan now judges module state by what writes it, not
// by its name: the library's own tables are only ever read.
// expect-scan: device_state module_atomic
// expect-gpu: failed revalidation|stale_output
// expect-emu: failed|flagged revalidation|stale_output|scan
// expect-cpu: flagged scan
__device__ unsigned __cudart_i2opi_f[6] = { 0x3c439041u, 0xdb629599u, 0xf534ddc0u, 0xfc2757d1u, 0x4e441529u, 0u };

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    unsigned n = __cudart_i2opi_f[5];
    __syncthreads();
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) atomicAdd(&__cudart_i2opi_f[5], 1u);
    if (n >= 60 && n % 2) return;
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
