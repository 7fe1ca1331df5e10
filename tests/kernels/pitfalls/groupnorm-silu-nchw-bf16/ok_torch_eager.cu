// fixture: groupnorm-silu-nchw-bf16
// Variant: diffusers' eager ResnetBlock2D (src/diffusers/models/resnet.py, as the VAE decoder's ResnetBlock2D: self.norm1 = torch.nn.GroupNorm, then self.nonlinearity = nn.SiLU): PyTorch's CUDA GroupNorm (group_norm_kernel.cu: float32 Welford moments, eps cast to bfloat16; y = a*x + b with a = rstd*gamma, b = -a*mean + beta, or (x - mean)*rstd*gamma + beta when h*w == 1, GroupNorm1dForward) rounded to bfloat16, then F.silu on it (x / (1 + exp(-x)) in float32) rounded again: two roundings.
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
        const float xv = __bfloat162float(x[i]);
        const float zn = hw == 1 ? (xv - mean) * rstd * __bfloat162float(gamma[ch]) + __bfloat162float(beta[ch]) : fmaf(a, xv, bb);
        const float z = __bfloat162float(__float2bfloat16(zn));
        y[i] = __float2bfloat16(z / (1.0f + expf(-z)));
    }
}
