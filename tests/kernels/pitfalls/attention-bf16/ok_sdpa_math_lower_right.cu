// fixture: attention-bf16
// Variant: SDPA's math backend (aten/src/ATen/native/transformers/attention.cpp, _scaled_dot_product_attention_math) as current PyTorch runs it on bfloat16 unless torch.backends.cuda.allow_fp16_bf16_reduction_math_sdp(True): q, k, v upcast to float32, q and k each scaled by sqrt(1/sqrt(hd)) before the product, attn_mask = torch.nn.attention.bias.causal_lower_right(q_len, k_len) for the causal sizes (the bottom-right mask materialised, since is_causal is top-left), the score matrix materialised (here in the scratch buffer s), softmax, P.V in float32, one rounding to bfloat16. One thread per query row, as a plain loop nest.
// expect-emu: passed none
#include <cuda_bf16.h>

extern "C" __global__ void attention_bf16(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v,
                                          __nv_bfloat16* o, float* s, int batch, int heads, int q_len, int k_len,
                                          int hd, int causal)
{
    const size_t b = blockIdx.y / heads, h = blockIdx.y % heads, rs = (size_t)heads * hd;
    const int i = blockIdx.x * BM + (int)threadIdx.x;
    if ((int)b >= batch || (int)threadIdx.x >= BM || i >= q_len)
        return;
    const float sq = sqrtf(rsqrtf((float)hd));  // the square root of the scale, on q and on k
    const __nv_bfloat16* qi = q + (b * q_len + i) * rs + h * hd;
    const __nv_bfloat16* kb = k + b * k_len * rs + h * hd;
    const __nv_bfloat16* vb = v + b * k_len * rs + h * hd;
    __nv_bfloat16* oi = o + (b * q_len + i) * rs + h * hd;
    float* srow = s + ((size_t)blockIdx.y * q_len + i) * k_len;
    const int nk = causal ? max(0, min(k_len, i + 1 + k_len - q_len)) : k_len;
    float m = -INFINITY;
    for (int j = 0; j < nk; j++) {
        float d = 0.0f;
        for (int c = 0; c < hd; c++)
            d += (__bfloat162float(qi[c]) * sq) * (__bfloat162float(kb[j * rs + c]) * sq);
        srow[j] = d;
        m = fmaxf(m, d);
    }
    float l = 0.0f;
    for (int j = 0; j < nk; j++) {
        srow[j] = expf(srow[j] - m);
        l += srow[j];
    }
    for (int c = 0; c < hd; c++) {
        float acc = 0.0f;
        for (int j = 0; j < nk; j++)
            acc += srow[j] / l * __bfloat162float(vb[j * rs + c]);
        oi[c] = __float2bfloat16(nk > 0 ? acc : 0.0f);
    }
}
