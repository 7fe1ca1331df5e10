// Planted scan dodge: a launch counter in __constant__ memory, which a
// scan that took only .global variables for state let through, written
// through the generic address cvta.const gives it (an atomic on the
// generic pointer); the work is done on the first 60 launches only. The
// taint of the scan follows the address from the .const variable through
// cvta to the atomic: a write to module state, whatever its state space.
// expect-scan: device_state module_atomic
// expect-gpu: failed|flagged launch_error|revalidation|stale_output|scan
// expect-emu: failed|flagged revalidation|stale_output|scan
// expect-cpu: flagged scan
__constant__ unsigned launches_c[2];

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    unsigned long long p;
#ifdef __CUDA_ARCH__
    asm volatile("cvta.const.u64 %0, launches_c;" : "=l"(p));
#else
    p = (unsigned long long)(size_t)&launches_c[0];
#endif
    unsigned n = *(volatile unsigned*)p;
    __syncthreads();
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) atomicAdd((unsigned*)p, 1u);
    if (n >= 60 && n % 2) return;
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, xr[c]);
    for (int c = 0; c < cols; c++) s += expf(xr[c] - m);
    if (launches_c[1] == 12345u) s = 1.0f;  /* keeps the variable in the module */
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(xr[c] - m) / s;
}
