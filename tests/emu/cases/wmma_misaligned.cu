// Emulator self-check: a WMMA fragment loaded from a pointer that is not
// 256-bit aligned (undefined on a GPU) stops the emulated launch.
// fixture: gemm-bf16
// expect-emu: crashed emu
#include <cuda_bf16.h>
#include <mma.h>

using namespace nvcuda;

extern "C" __global__ void gemm_bf16(const __nv_bfloat16* A, const __nv_bfloat16* B, const __nv_bfloat16* bias,
                                     __nv_bfloat16* C, int M, int N, int K)
{
    __shared__ __align__(32) __nv_bfloat16 tile[16 * 24];
    for (int i = threadIdx.x; i < 16 * 24; i += blockDim.x)
        tile[i] = __float2bfloat16(0.0f);
    __syncthreads();
    wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
    wmma::load_matrix_sync(fa, tile + 8, 24);  // 16 bytes past an aligned address
}
