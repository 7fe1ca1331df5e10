/* cuBLAS loaded at run time (cublas.h). */
#include "common.h"
#include "cublas.h"

#include <dlfcn.h>

int sc_cublas_open(struct sc_cublas *out, const char *const *names)
{
	static const char *const defaults[] = { "libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so",
						NULL };
	struct sc_buf why = SC_BUF_INIT;
	int err;

	memset(out, 0, sizeof(*out));
	for (const char *const *n = names ? names : defaults; *n; n++) {
		void *l = dlopen(*n, RTLD_NOW | RTLD_LOCAL);
		if (!l) {
			const char *e = dlerror();
			sc_buf_printf(&why, "%s%s", why.len ? "; " : "", e ? e : *n);
			continue;
		}
		*(void **)&out->create = dlsym(l, "cublasCreate_v2");
		*(void **)&out->destroy = dlsym(l, "cublasDestroy_v2");
		*(void **)&out->get_version = dlsym(l, "cublasGetVersion_v2");
		*(void **)&out->gemm_ex = dlsym(l, "cublasGemmEx");
		if (out->create && out->destroy && out->get_version && out->gemm_ex) {
			out->lib = l;
			snprintf(out->soname, sizeof(out->soname), "%s", *n);
			sc_buf_release(&why);
			return 0;
		}
		sc_buf_printf(&why, "%s%s: lacks cublasCreate_v2, cublasDestroy_v2, cublasGetVersion_v2 or cublasGemmEx",
			      why.len ? "; " : "", *n);
		dlclose(l);
	}
	memset(out, 0, sizeof(*out));
	err = sc_error_set(SC_ENOSYS, "no cuBLAS: %s", why.len ? why.ptr : "no library name given");
	sc_buf_release(&why);
	return err;
}

int sc_cublas_gemm_bf16(const struct sc_cublas *cb, void *handle, bool b_nk, int m, int n, int k, uint64_t a,
			uint64_t b, uint64_t c)
{
	const float one = 1.0f, zero = 0.0f;

	/* column-major: C^T (n x m) = op(B)^T (n x k) * A^T (k x m); row-major
	 * B (k x n) is column-major B^T with ld n; row-major W (n x k) is
	 * column-major W^T (k x n) with ld k, transposed back by OP_T */
	return cb->gemm_ex(handle, b_nk ? SC_CUBLAS_OP_T : SC_CUBLAS_OP_N, SC_CUBLAS_OP_N, n, m, k, &one,
			   (const void *)(uintptr_t)b, SC_CUDA_R_16BF, b_nk ? k : n, (const void *)(uintptr_t)a,
			   SC_CUDA_R_16BF, k, &zero, (void *)(uintptr_t)c, SC_CUDA_R_16BF, n, SC_CUBLAS_COMPUTE_32F,
			   SC_CUBLAS_GEMM_DEFAULT);
}
