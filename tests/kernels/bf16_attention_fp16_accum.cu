// Planted: attention-bf16 (the baseline's structure) accumulating the
// softmax sum and P V in float16: over hundreds of keys with values of
// mean 1 the float16 sums drift past the tolerance.
// fixture: attention-bf16
// The PTX shows the float16 arithmetic: float16 has fewer exponent bits than
// the fixture's bf16 precision, so the scan flags it too.
// expect-scan: precision_downcast
// expect-gpu: failed mismatch
// expect-emu: failed mismatch
// expect-cpu: flagged scan
#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void attention_bf16(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                                          __nv_bfloat16* o, float* s, int batch, int heads, int q_len, int k_len,
                                          int hd, int causal)
{
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    const size_t b = blockIdx.y / heads, h = blockIdx.y % heads, rs = (size_t)heads * hd;
    const float scale = rsqrtf((float)hd);
    const int row_end = min(q_len, (int)(blockIdx.x + 1) * BM);
    const __nv_bfloat16* kb = k + b * k_len * rs + h * hd;
    const __nv_bfloat16* vb = v + b * k_len * rs + h * hd;

    if ((int)b >= batch)
        return;
    for (int i = blockIdx.x * BM + warp; i < row_end; i += NT / 32) {
        const __nv_bfloat16* qi = q + (b * q_len + i) * rs + h * hd;
        __nv_bfloat16* oi = o + (b * q_len + i) * rs + h * hd;
        float* srow = s + ((size_t)blockIdx.y * q_len + i) * k_len;
        const int nk = causal ? min(k_len, i + 1 + k_len - q_len) : k_len;

        // S: one key at a time.
        float m = -INFINITY;
        for (int j = 0; j < nk; j++) {
            const __nv_bfloat16* kj = kb + j * rs;
            float d = 0.0f;
            for (int c = lane; c < hd; c += 32)
                d += __bfloat162float(qi[c]) * __bfloat162float(kj[c]);
            for (int off = 16; off > 0; off >>= 1)
                d += __shfl_xor_sync(0xffffffffu, d, off);
            d *= scale;
            if (lane == 0)
                srow[j] = d;
            m = fmaxf(m, d);
        }
        __syncwarp();

        // P = exp(S - max), in place, and its sum.
        __half lh = __float2half(0.0f);
        for (int j = lane; j < nk; j += 32) {
            float p = expf(srow[j] - m);
            srow[j] = p;
            lh = __hadd(lh, __float2half(p));
        }
        for (int off = 16; off > 0; off >>= 1)
            lh = __hadd(lh, __shfl_xor_sync(0xffffffffu, lh, off));
        const float l = __half2float(lh);
        __syncwarp();

        // O = P V / sum; a row that sees no key is zero.
        for (int c = lane; c < hd; c += 32) {
            __half acc = __float2half(0.0f);
            for (int j = 0; j < nk; j++)
                acc = __hadd(acc, __float2half(srow[j] * __bfloat162float(vb[j * rs + c])));
            oi[c] = __float2bfloat16(nk > 0 ? __half2float(acc) / l : 0.0f);
        }
        __syncwarp();
    }
}
