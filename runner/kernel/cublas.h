#ifndef SC_KERNEL_CUBLAS_H
#define SC_KERNEL_CUBLAS_H
/*
 * cuBLAS from the CUDA toolkit, loaded with dlopen at run time as the
 * driver is (device_cuda.c): the worker builds and runs without it, and a
 * GEMM fixture's strong reference (strong.h) is timed where it is
 * present. Only the four entry points that reference needs; no cuBLAS
 * header (the enum values below are cuBLAS's and CUDA's own).
 */
#include <stdbool.h>
#include <stdint.h>

#define SC_CUBLAS_OP_N 0
#define SC_CUBLAS_OP_T 1
#define SC_CUDA_R_32F 0
#define SC_CUDA_R_16BF 14
#define SC_CUBLAS_COMPUTE_32F 68
#define SC_CUBLAS_GEMM_DEFAULT (-1)

struct sc_cublas {
	void *lib;
	char soname[64];  /* the name that opened */
	int (*create)(void **handle);
	int (*destroy)(void *handle);
	int (*get_version)(void *handle, int *version);
	int (*gemm_ex)(void *handle, int transa, int transb, int m, int n, int k, const void *alpha,
		       const void *a, int atype, int lda, const void *b, int btype, int ldb, const void *beta,
		       void *c, int ctype, int ldc, int compute, int algo);
};

/*
 * Opens the first of names (NULL: libcublas.so.13, .12, .11, libcublas.so,
 * found through the loader's path and the worker's rpath) that loads and
 * has every entry point. Returns 0, or SC_ENOSYS with a message naming
 * each library tried and why it did not load.
 */
int sc_cublas_open(struct sc_cublas *out, const char *const *names);

/*
 * Queues C = A * B (b_nk false: B is k x n) or C = A * B^T (b_nk true: B
 * is n x k, nn.Linear's weight), every matrix row-major bfloat16, on the
 * handle's stream with float32 compute (cublasGemmEx, CUBLAS_COMPUTE_32F,
 * default algorithm). Row-major C is column-major C^T = op(B)^T A^T, so
 * the call swaps the operands. Returns cuBLAS's status (0: success).
 */
int sc_cublas_gemm_bf16(const struct sc_cublas *cb, void *handle, bool b_nk, int m, int n, int k, uint64_t a,
			uint64_t b, uint64_t c);

#endif
