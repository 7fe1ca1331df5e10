// fixture: groupnorm-silu-nchw-bf16
// Variant: PyTorch's CUDA GroupNorm arithmetic (aten/src/ATen/native/cuda/group_norm_kernel.cu: RowwiseMomentsCUDAKernel's float32 Welford moments, rstd = rsqrt(var + eps) with eps cast to bfloat16, ComputeFusedParamsCUDAKernel's a = rstd*gamma, b = -a*mean + beta, y = a*x + b as fused multiply-adds) with the SiLU fused after it and one rounding, what a fused GroupNorm+SiLU kernel built on those parameters computes; in NCHW, the layout PyTorch's kernel itself reads.
// expect-emu: passed none
#include <cuda_bf16.h>

struct welford { float mean, m2, n; };

__device__ welford welford_merge(welford a, welford b)
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

extern "C" __global__ void groupnorm_silu_nchw_bf16(const __nv_bfloat16* x, const __nv_bfloat16* gamma,
                                                    const __nv_bfloat16* beta, __nv_bfloat16* y, int n, int c, int h,
                                                    int w)
{
    __shared__ welford part[1024];
    const int b = blockIdx.x / 32, g = blockIdx.x % 32, cg = c / 32;
    const size_t hw = (size_t)h * w, count = hw * cg;
    const size_t base = ((size_t)b * c + (size_t)g * cg) * hw;
    (void)n;

    welford v = {0.0f, 0.0f, 0.0f};
    for (size_t e = threadIdx.x; e < count; e += blockDim.x) {
        const float xv = __bfloat162float(x[base + e]);
        v.n += 1.0f;
        const float delta = xv - v.mean;
        v.mean += delta / v.n;
        v.m2 += delta * (xv - v.mean);
    }
    part[threadIdx.x] = v;
    __syncthreads();
    for (int stride = 512; stride > 0; stride >>= 1) {
        if ((int)threadIdx.x < stride && threadIdx.x + stride < blockDim.x)
            part[threadIdx.x] = welford_merge(part[threadIdx.x], part[threadIdx.x + stride]);
        __syncthreads();
    }
    const float mean = part[0].mean;
    const float eps = __bfloat162float(__float2bfloat16(1e-6f));
    const float rstd = rsqrtf(part[0].m2 / part[0].n + eps);
    for (size_t e = threadIdx.x; e < count; e += blockDim.x) {
        const size_t i = base + e;
        const int ch = g * cg + (int)(e / hw);
        const float a = rstd * __bfloat162float(gamma[ch]);
        const float bb = fmaf(-a, mean, __bfloat162float(beta[ch]));
        const float z = fmaf(a, __bfloat162float(x[i]), bb);
        y[i] = __float2bfloat16(z / (1.0f + expf(-z)));
    }
}
