/*
 * NVRTC (needs the CUDA toolkit, not a GPU): every fixture's baseline and
 * solution compiles for sm_90 with its tunables; compile errors carry the
 * candidate's line; logs keep only the candidate's own diagnostics; cubins
 * are cached; ptxas' register/spill/shared numbers are parsed.
 */
#include "unit.h"
#include "nvrtc.h"
#include "spec.h"

#include <dirent.h>
#include <unistd.h>

static const char *include_dir(void)
{
	return access("/usr/local/cuda/include/cuda_fp16.h", R_OK) == 0 ? "/usr/local/cuda/include" : NULL;
}

static void compile_file(const char *dir, const char *file, const struct sc_spec *spec)
{
	struct sc_buf path = SC_BUF_INIT, src = SC_BUF_INIT;
	struct sc_tunable_values tun;
	struct sc_nvrtc_defines defs = { { 0 }, { 0 }, 0 };
	struct sc_compiled c;

	sc_buf_printf(&path, "%s/%s", dir, file);
	assert_int_equal(sc_read_file(&src, path.ptr, 1 << 20), 0);
	assert_int_equal(sc_spec_tunables(&tun, spec, src.ptr), 0);
	for (size_t i = 0; i < spec->ntunables; i++) {
		defs.name[i] = spec->tunables[i].name;
		defs.value[i] = tun.v[i];
		defs.n++;
	}
	assert_int_equal(sc_nvrtc_compile(&c, src.ptr, src.len, "sm_90", &defs, include_dir(), NULL), 0);
	if (!c.ok)
		fail_msg("%s does not compile:\n%s", path.ptr, c.log);
	assert_true(c.cubin_len > 0);
	assert_non_null(memmem(c.cubin, c.cubin_len, spec->entry, strlen(spec->entry) + 1));
	assert_true(c.registers > 0);
	sc_compiled_release(&c);
	sc_buf_release(&path);
	sc_buf_release(&src);
}

static void test_every_fixture_compiles(void **state)
{
	DIR *d = opendir("fixtures");
	struct dirent *e;
	int n = 0;
	(void)state;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		struct sc_buf dir = SC_BUF_INIT, spec_path = SC_BUF_INIT;
		struct sc_spec spec;
		sc_buf_printf(&dir, "fixtures/%s", e->d_name);
		sc_buf_printf(&spec_path, "%s/spec.json", dir.ptr);
		if (e->d_name[0] != '.' && access(spec_path.ptr, F_OK) == 0) {
			assert_int_equal(sc_spec_load(&spec, spec_path.ptr), 0);
			compile_file(dir.ptr, "baseline.cu", &spec);
			compile_file(dir.ptr, "solution.cu", &spec);
			sc_spec_release(&spec);
			n++;
		}
		sc_buf_release(&dir);
		sc_buf_release(&spec_path);
	}
	closedir(d);
	assert_true(n >= 8);
}

static void test_syntax_error_has_candidate_line(void **state)
{
	const char *src = "extern \"C\" __global__ void k(float* y)\n{\n    float v = y[0]\n    y[1] = v;\n}\n";
	struct sc_compiled c;
	(void)state;
	assert_int_equal(sc_nvrtc_compile(&c, src, strlen(src), "sm_90", NULL, NULL, NULL), 0);
	assert_false(c.ok);
	/* the prelude does not shift lines: the error is on line 4 */
	assert_non_null(strstr(c.log, SC_NVRTC_SOURCE_NAME "(4): error"));
	sc_compiled_release(&c);
}

static void test_prelude_constants(void **state)
{
	const char *src = "extern \"C\" __global__ void k(float* y, int* z)\n{\n"
			  "  y[0] = INFINITY; y[1] = -FLT_MAX + FLT_MIN + FLT_EPSILON; y[2] = NAN;\n"
			  "  z[0] = INT_MAX; z[1] = INT_MIN; y[3] = expf(rsqrtf(erff(tanhf(y[4]))));\n"
			  "  y[5] = __shfl_xor_sync(0xffffffff, y[6], 1);\n}\n";
	struct sc_compiled c;
	(void)state;
	assert_int_equal(sc_nvrtc_compile(&c, src, strlen(src), "sm_90", NULL, NULL, NULL), 0);
	if (!c.ok)
		fail_msg("%s", c.log);
	sc_compiled_release(&c);
}

static void test_log_keeps_only_candidate(void **state)
{
	const char *raw =
		"/etc/passwd(1): error: this declaration has no storage class or type specifier\n"
		"  root:x:0:0:root:/root:/bin/bash\n"
		"  ^\n\n"
		"candidate.cu(3): error: expected a \";\"\n"
		"      y[1] = v;\n"
		"      ^\n\n"
		"/usr/local/cuda/include/cuda_fp16.hpp(10): error: secret\n"
		"  quoted header line\n\n"
		"2 errors detected in the compilation of \"candidate.cu\".\n";
	struct sc_buf out = SC_BUF_INIT;
	(void)state;
	sc_nvrtc_filter_log(&out, raw);
	assert_null(strstr(out.ptr, "root:x"));
	assert_null(strstr(out.ptr, "passwd"));
	assert_null(strstr(out.ptr, "quoted header line"));
	assert_non_null(strstr(out.ptr, "candidate.cu(3): error"));
	assert_non_null(strstr(out.ptr, "y[1] = v;"));
	assert_non_null(strstr(out.ptr, "2 errors detected"));
	sc_buf_release(&out);
}

static void test_line_directive_cannot_leak(void **state)
{
	/* A #line naming another file only renames locations; they are dropped. */
	const char *src = "#line 1 \"/etc/hostname\"\nthis is not cuda\n";
	struct sc_compiled c;
	(void)state;
	assert_int_equal(sc_nvrtc_compile(&c, src, strlen(src), "sm_90", NULL, NULL, NULL), 0);
	assert_false(c.ok);
	assert_null(strstr(c.log, "/etc/hostname"));
	assert_null(strstr(c.log, "this is not cuda"));
	sc_compiled_release(&c);
}

static void test_cache_and_ptxas(void **state)
{
	const char *src = "extern \"C\" __global__ void k(float* y)\n{ __shared__ float s[BLOCK];\n"
			  "  s[threadIdx.x] = y[threadIdx.x]; __syncthreads(); y[threadIdx.x] = s[BLOCK - 1 - threadIdx.x]; }\n";
	struct sc_nvrtc_defines defs = { { "BLOCK" }, { 128 }, 1 };
	struct sc_compiled a, b, c;
	char *dir = sc_test_mkdtemp();
	(void)state;

	assert_int_equal(sc_nvrtc_compile(&a, src, strlen(src), "sm_90", &defs, NULL, dir), 0);
	assert_true(a.ok);
	assert_false(a.cached);
	assert_int_equal(a.shared_bytes, 128 * 4);
	assert_true(a.registers > 0);
	assert_int_equal(a.spill_stores, 0);
	assert_int_equal(sc_nvrtc_compile(&b, src, strlen(src), "sm_90", &defs, NULL, dir), 0);
	assert_true(b.cached);
	assert_int_equal(a.cubin_len, b.cubin_len);
	assert_memory_equal(a.cubin, b.cubin, a.cubin_len);
	assert_int_equal(b.registers, a.registers);
	assert_int_equal(b.shared_bytes, a.shared_bytes);
	/* A different tunable is a different key. */
	defs.value[0] = 256;
	assert_int_equal(sc_nvrtc_compile(&c, src, strlen(src), "sm_90", &defs, NULL, dir), 0);
	assert_false(c.cached);
	assert_string_not_equal(a.key, c.key);
	assert_int_equal(c.shared_bytes, 256 * 4);
	sc_compiled_release(&a);
	sc_compiled_release(&b);
	sc_compiled_release(&c);
	sc_rm_rf(dir);
	free(dir);
}

static void test_parse_ptxas_text(void **state)
{
	struct sc_compiled c;
	(void)state;
	memset(&c, 0, sizeof(c));
	sc_nvrtc_parse_ptxas(&c, "ptxas         .     16 bytes stack frame, 8 bytes spill stores, 12 bytes spill loads\n"
				 "ptxas info    : Used 40 registers, used 1 barriers, 4096 bytes smem, 400 bytes cmem[0]\n");
	assert_int_equal(c.stack_bytes, 16);
	assert_int_equal(c.spill_stores, 8);
	assert_int_equal(c.spill_loads, 12);
	assert_int_equal(c.registers, 40);
	assert_int_equal(c.shared_bytes, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_fixture_compiles),
		cmocka_unit_test(test_syntax_error_has_candidate_line),
		cmocka_unit_test(test_prelude_constants),
		cmocka_unit_test(test_log_keeps_only_candidate),
		cmocka_unit_test(test_line_directive_cannot_leak),
		cmocka_unit_test(test_cache_and_ptxas),
		cmocka_unit_test(test_parse_ptxas_text),
	};
	return cmocka_run_group_tests_name("kernel_nvrtc", tests, NULL, NULL);
}
