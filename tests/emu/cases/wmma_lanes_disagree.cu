// Emulator self-check: the lanes of a warp pass different matrices to
// wmma::mma_sync (each lane loads from its own address): undefined on a
// GPU, where a fragment is spread over the warp; the emulation stops.
// fixture: gemm-bf16
// expect-emu: crashed emu
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void gemm_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* bias,
                                     __nv_bfloat16* C, int M, int N, int K)
{
    __shared__ __align__(32) __nv_bfloat16 tile[32 * 16 * 16];
    for (int i = threadIdx.x; i < 32 * 256; i += blockDim.x)
        tile[i] = __float2bfloat16((float)(i / 256));
    __syncthreads();
    const int lane = threadIdx.x & 31;
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    wmma::load_matrix_sync(fa, tile + lane * 256, 16);
    wmma::load_matrix_sync(fb, tile, 16);
    wmma::mma_sync(acc, fa, fb, acc);
}
