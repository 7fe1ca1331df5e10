// Planted: attention-bf16 (the baseline's structure) accumulating the
// softmax sum and P V in float16: over hundreds of keys with values of
// mean 1 the float16 sums drift past the tolerance.
// fixture: attention-bf16
// expect-scan:
// expect-gpu: failed mismatch
// expect-emu: failed mismatch
// expect-cpu: compiled no_gpu
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void attention_bf16(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                                          __nv_bfloat16* o, float* s, int bh, int seq, int hd, int causal)
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const size_t b = blockIdx.y;
    const float scale = rsqrtf((float)hd);
    const int row_end = min(seq, (int)(blockIdx.x + 1) * BM);

    for (int i = blockIdx.x * BM + warp; i < row_end; i += NT / 32) {
        const __nv_bfloat16* qi = q + (b * seq + i) * hd;
        float* srow = s + (b * seq + i) * seq;
        const int nk = causal ? i + 1 : seq;
        float m = -INFINITY;
        for (int j = 0; j < nk; j++) {
            const __nv_bfloat16* kj = k + (b * seq + j) * hd;
            float d = 0.0f;
            for (int c = lane; c < hd; c += 32)
                d += __bfloat162float(qi[c]) * __bfloat162float(kj[c]);
            for (int off = 16; off > 0; off >>= 1)
                d += __shfl_xor_sync(0xffffffffu, d, off);
            if (lane == 0)
                srow[j] = d * scale;
            m = fmaxf(m, d * scale);
        }
        __syncwarp();
        __half l = __float2half(0.0f);
        for (int j = 0; j < nk; j++)
            l = __hadd(l, __float2half(expf(srow[j] - m)));
        for (int c = lane; c < hd; c += 32) {
            __half acc = __float2half(0.0f);
            for (int j = 0; j < nk; j++)
                acc = __hadd(acc, __float2half(expf(srow[j] - m) * __bfloat162float(v[(b * seq + j) * hd + c])));
            o[(b * seq + i) * hd + c] = __float2bfloat16(__half2float(acc) / __half2float(l));
        }
        __syncwarp();
    }
}
