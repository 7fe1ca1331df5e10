// Pitfall: the causal mask aligned bottom-right (key j <= i + k_len - q_len, flash-attention >= 2.1's flash_attn_func(causal=True), the sibling attention-bf16's convention) where SDPA's is_causal=True aligns it top-left (j <= i): a single query attends to every key instead of key 0.
// fixture: attention-sdpa-bf16
// expect-emu: failed mismatch
#include <cuda_bf16.h>

extern "C" __global__ void attention_sdpa_bf16(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
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
        const int nk = causal ? max(0, min(k_len, i + 1 + k_len - q_len)) : k_len;

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
        float l = 0.0f;
        for (int j = lane; j < nk; j += 32) {
            float p = expf(srow[j] - m);
            srow[j] = p;
            l += p;
        }
        for (int off = 16; off > 0; off >>= 1)
            l += __shfl_xor_sync(0xffffffffu, l, off);
        __syncwarp();

        // O = P V / sum; a row that sees no key is zero.
        for (int c = lane; c < hd; c += 32) {
            float acc = 0.0f;
            for (int j = 0; j < nk; j++)
                acc += srow[j] * __bfloat162float(vb[j * rs + c]);
            oi[c] = __float2bfloat16(nk > 0 ? acc / l : 0.0f);
        }
        __syncwarp();
    }
}
