// Planted scan dodge: rounds the inputs to TF32 on an fp32 fixture through
// inline PTX whose instruction is split over two string literals
// ("cvt.rna.t" "f32.f32"), so no source pattern sees it. The PTX has the
// cvt...tf32 instruction; on a GPU the rounding also breaks the
// tolerance. (The CPU emulation cannot run PTX: there the fallback
// computes in fp32 and only the scan refuses it.)
// expect-scan: precision_downcast
// expect-gpu: failed|flagged mismatch|scan
// expect-emu: flagged scan
// expect-cpu: flagged scan
__device__ __forceinline__ float rna(float v)
{
#ifdef __CUDA_ARCH__
    unsigned r;
    asm("cvt.rna.t" "f32.f32 %0, %1;" : "=r"(r) : "f"(v));
    return __uint_as_float(r);
#else
    return v;
#endif
}

extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols)
{
    int row = blockIdx.x;
    const float* xr = x + (size_t)row * cols;
    float* yr = y + (size_t)row * cols;
    float m = -INFINITY, s = 0.0f;
    for (int c = 0; c < cols; c++) m = fmaxf(m, rna(xr[c]));
    for (int c = 0; c < cols; c++) s += expf(rna(xr[c]) - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) yr[c] = expf(rna(xr[c]) - m) / s;
}
