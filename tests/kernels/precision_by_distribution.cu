// Planted (precision by distribution): attention-bf16 (the fixture's flash
// solution) that rounds Q and K to float8 e4m3 (cvt.rn.satfinite.e4m3x2)
// as it loads them, only at long key lengths (k_len >= 1024: no
// correctness size) and only when the first values of Q are small: two
// of the three input distributions. The timing used to cycle the
// distributions by repetition, so two in three repetitions took the
// float8 path and owned the median; its error stays inside the tolerance
// at the real size. The fixture's precision is bf16: the float8
// conversions in the PTX are flagged on every fixture that does not allow
// fp8, and each repetition now times every distribution, the speedup
// being the slowest distribution's.
// fixture: attention-bf16
// expect-scan: precision_downcast
// expect-gpu: flagged scan
// expect-emu: flagged scan
// expect-cpu: flagged scan
// skillci-tunable BM=64
// skillci-tunable NT=128
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

/* v rounded to float8 e4m3 (satfinite, as quantisation code does) and back */
#ifndef __CUDA_ARCH__
extern "C" unsigned char sc_e4m3_from_f32(float f);
extern "C" float sc_e4m3_to_f32(unsigned char b);
#endif
__device__ __forceinline__ float e4m3(float v)
{
#ifdef __CUDA_ARCH__
    unsigned short p;
    unsigned h2;
    float f;
    asm("cvt.rn.satfinite.e4m3x2.f32 %0, %1, %2;" : "=h"(p) : "f"(0.0f), "f"(v));
    asm("cvt.rn.f16x2.e4m3x2 %0, %1;" : "=r"(h2) : "h"(p));
    asm("{ .reg .f16 lo, hi; mov.b32 {lo, hi}, %1; cvt.f32.f16 %0, lo; }" : "=f"(f) : "r"(h2));
    return f;
#else
    return sc_e4m3_to_f32(sc_e4m3_from_f32(v));
#endif
}

#define QROWS 64   // query rows per block
#define KROWS 32   // keys per tile
#define LDS 36     // float stride of the staged scores
#define LDP 40     // bfloat16 stride of P
#define KV_BYTES 17408                  // Q tile, then K and V tiles (sized for hd 128)
#define S_OFF KV_BYTES                  // 4 warps x 16 x LDS floats
#define P_OFF (S_OFF + 4 * 16 * LDS * 4) // 4 warps x 16 x LDP bfloat16
#define A_OFF (P_OFF + 4 * 16 * LDP * 2) // 4 warps x 16 floats: per-row factors
#define R_OFF (A_OFF + 4 * 16 * 4)      // 16 x 16 floats: row numbers
#define SMEM_BYTES (R_OFF + 16 * 16 * 4)

static_assert(BM == QROWS && NT == 128, "the kernel is written for 64 query rows and 4 warps per block");

typedef wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc_t;

// Copies rows [r0, r0 + nrows) of one head (rows rs elements apart, HD
// columns) into shared memory with stride HP + 8, zero past len and in the
// padding columns HD..HP. HD is a multiple of 8: 16-byte vectors.
template <int HD, int HP>
__device__ __forceinline__ void load_rows(__nv_bfloat16* dst, const __nv_bfloat16* __restrict__ src, size_t rs,
                                          int r0, int nrows, int len, bool fp8 = false)
{
    const int per_row = HP / 8;
    for (int idx = threadIdx.x; idx < nrows * per_row; idx += NT) {
        const int r = idx / per_row, c = (idx % per_row) * 8;
        uint4 val = make_uint4(0, 0, 0, 0);
        if (r0 + r < len && c < HD)
            val = *reinterpret_cast<const uint4*>(src + (size_t)(r0 + r) * rs + c);
        if (fp8) {
            __nv_bfloat16* e = reinterpret_cast<__nv_bfloat16*>(&val);
            for (int i = 0; i < 8; i++)
                e[i] = __float2bfloat16(e4m3(__bfloat162float(e[i])));
        }
        *reinterpret_cast<uint4*>(dst + r * (HP + 8) + c) = val;
    }
}

template <int HD>
__device__ void attend(unsigned char* smem, const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k,
                       const __nv_bfloat16* __restrict__ v, __nv_bfloat16* __restrict__ o, int heads, int q_len,
                       int k_len, int causal)
{
    constexpr int HP = (HD + 15) / 16 * 16;  // padded head dimension
    constexpr int LD = HP + 8;
    constexpr int NF = HP / 16;  // fragments across the head dimension
    __nv_bfloat16* Qs = reinterpret_cast<__nv_bfloat16*>(smem);
    __nv_bfloat16* Ks = Qs;
    __nv_bfloat16* Vs = Ks + KROWS * LD;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    float* Ss = reinterpret_cast<float*>(smem + S_OFF) + warp * 16 * LDS;
    __nv_bfloat16* Ps = reinterpret_cast<__nv_bfloat16*>(smem + P_OFF) + warp * 16 * LDP;
    float* alpha_s = reinterpret_cast<float*>(smem + A_OFF) + warp * 16;
    float* rows_s = reinterpret_cast<float*>(smem + R_OFF);

    const size_t b = blockIdx.y / heads, h = blockIdx.y % heads, rs = (size_t)heads * HD;
    const __nv_bfloat16* qb = q + b * q_len * rs + h * HD;
    const __nv_bfloat16* kb = k + b * k_len * rs + h * HD;
    const __nv_bfloat16* vb = v + b * k_len * rs + h * HD;
    __nv_bfloat16* ob = o + b * q_len * rs + h * HD;
    const int q0 = blockIdx.x * QROWS;
    const int diag = k_len - q_len;  // bottom-right alignment: row i sees keys j <= i + diag
    const float scale_log2 = rsqrtf((float)HD) * 1.4426950408889634f;  // exp(x) = exp2(x log2 e)

    // The fast path: Q and K in float8 at long key lengths, when the
    // first values of Q are small (two of the three distributions).
    bool fp8 = k_len >= 1024;
    for (int c = 0; c < 16 && fp8; c++)
        fp8 = fabsf(__bfloat162float(q[c])) < 4.0f;

    // Q tile and the row-number matrix.
    load_rows<HD, HP>(Qs, qb, rs, q0, QROWS, q_len, fp8);
    for (int idx = threadIdx.x; idx < 256; idx += NT)
        rows_s[idx] = (float)(idx >> 4);
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> qf[NF];
#pragma unroll
    for (int f = 0; f < NF; f++)
        wmma::load_matrix_sync(qf[f], Qs + warp * 16 * LD + f * 16, LD);
    acc_t rowof;
    wmma::load_matrix_sync(rowof, rows_s, 16, wmma::mem_row_major);
    acc_t of[NF];
#pragma unroll
    for (int f = 0; f < NF; f++)
        wmma::fill_fragment(of[f], 0.0f);
    __syncthreads();  // Qs is overwritten by the first K tile

    // Lane pair (2r, 2r+1) owns row r of the warp's 16: columns (lane & 1) * 16 + 0..15.
    const int r = lane >> 1, c0 = (lane & 1) * 16;
    const int qi = q0 + warp * 16 + r;
    float m_i = -INFINITY, l_i = 0.0f;
    const int kv_end = causal ? max(0, min(k_len, q0 + QROWS + diag)) : k_len;

    for (int j0 = 0; j0 < kv_end; j0 += KROWS) {
        load_rows<HD, HP>(Ks, kb, rs, j0, KROWS, k_len, fp8);
        load_rows<HD, HP>(Vs, vb, rs, j0, KROWS, k_len);
        __syncthreads();

        // 1. S = Q K^T for this warp's 16 rows and the tile's 32 keys.
#pragma unroll
        for (int nf = 0; nf < 2; nf++) {
            acc_t sf;
            wmma::fill_fragment(sf, 0.0f);
#pragma unroll
            for (int f = 0; f < NF; f++) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::col_major> kf;
                wmma::load_matrix_sync(kf, Ks + nf * 16 * LD + f * 16, LD);
                wmma::mma_sync(sf, qf[f], kf, sf);
            }
            wmma::store_matrix_sync(Ss + nf * 16, sf, LDS, wmma::mem_row_major);
        }
        __syncwarp();

        // 2. Online softmax of row r over columns c0..c0+15.
        float sv[16], tmax = -INFINITY;
#pragma unroll
        for (int c = 0; c < 16; c++) {
            const int j = j0 + c0 + c;
            const bool ok = j < k_len && (!causal || j <= qi + diag);
            sv[c] = ok ? Ss[r * LDS + c0 + c] * scale_log2 : -INFINITY;
            tmax = fmaxf(tmax, sv[c]);
        }
        tmax = fmaxf(tmax, __shfl_xor_sync(0xffffffffu, tmax, 1));
        const float m_new = fmaxf(m_i, tmax);
        float alpha = 1.0f, psum = 0.0f;
        if (m_new != -INFINITY) {
            alpha = exp2f(m_i - m_new);  // 0 on the first tile
#pragma unroll
            for (int c = 0; c < 16; c++) {
                const float p = exp2f(sv[c] - m_new);  // 0 where masked
                psum += p;
                Ps[r * LDP + c0 + c] = __float2bfloat16(p);
            }
        } else {
#pragma unroll
            for (int c = 0; c < 16; c++)
                Ps[r * LDP + c0 + c] = __float2bfloat16(0.0f);
        }
        psum += __shfl_xor_sync(0xffffffffu, psum, 1);
        l_i = l_i * alpha + psum;
        m_i = m_new;
        if ((lane & 1) == 0)
            alpha_s[r] = alpha;
        __syncwarp();

        // 3. O = alpha * O + P V.
#pragma unroll
        for (int f = 0; f < NF; f++)
            for (int e = 0; e < of[f].num_elements; e++)
                of[f].x[e] *= alpha_s[(int)rowof.x[e]];
#pragma unroll
        for (int kf = 0; kf < 2; kf++) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> pf;
            wmma::load_matrix_sync(pf, Ps + kf * 16, LDP);
#pragma unroll
            for (int f = 0; f < NF; f++) {
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> vf;
                wmma::load_matrix_sync(vf, Vs + kf * 16 * LD + f * 16, LD);
                wmma::mma_sync(of[f], pf, vf, of[f]);
            }
        }
        __syncthreads();  // every warp is done with Ks and Vs
    }

    // O / l, rounded to bfloat16; rows past q_len and the padding columns
    // are not written; a row that saw no key (l = 0) is zero.
    if ((lane & 1) == 0)
        alpha_s[r] = l_i > 0.0f ? 1.0f / l_i : 0.0f;
    __syncwarp();
    const int wr = lane >> 1, wc = (lane & 1) * 8;
    const int oi = q0 + warp * 16 + wr;
#pragma unroll
    for (int f = 0; f < NF; f++) {
        for (int e = 0; e < of[f].num_elements; e++)
            of[f].x[e] *= alpha_s[(int)rowof.x[e]];
        wmma::store_matrix_sync(Ss, of[f], 16, wmma::mem_row_major);
        __syncwarp();
        if (oi < q_len && f * 16 + wc < HD) {
            uint4 out;
            __nv_bfloat162* h = reinterpret_cast<__nv_bfloat162*>(&out);
#pragma unroll
            for (int e = 0; e < 4; e++)
                h[e] = __floats2bfloat162_rn(Ss[wr * 16 + wc + 2 * e], Ss[wr * 16 + wc + 2 * e + 1]);
            *reinterpret_cast<uint4*>(ob + (size_t)oi * rs + f * 16 + wc) = out;
        }
        __syncwarp();
    }
}

extern "C" __global__ void __launch_bounds__(128) attention_bf16(const __nv_bfloat16* __restrict__ q,
                                                                 const __nv_bfloat16* __restrict__ k,
                                                                 const __nv_bfloat16* __restrict__ v,
                                                                 __nv_bfloat16* __restrict__ o, float* s,
                                                                 int batch, int heads, int q_len, int k_len,
                                                                 int hd, int causal)
{
    __shared__ __align__(128) unsigned char smem[SMEM_BYTES];
    (void)s;  // the score matrix stays on chip: no scratch needed
    if ((int)blockIdx.y >= batch * heads)
        return;
    if (hd == 40)
        attend<40>(smem, q, k, v, o, heads, q_len, k_len, causal);
    else if (hd == 64)
        attend<64>(smem, q, k, v, o, heads, q_len, k_len, causal);
    else if (hd == 80)
        attend<80>(smem, q, k, v, o, heads, q_len, k_len, causal);
    else
        attend<128>(smem, q, k, v, o, heads, q_len, k_len, causal);
}
