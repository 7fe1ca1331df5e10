/* The static scan: include refusals before compiling, and flags. */
#include "unit.h"
#include "ptx.h"
#include "scan.h"
#include "spec.h"

#include <dirent.h>
#include <unistd.h>

static int scan(const char *src, struct sc_scan *s)
{
	return sc_scan_source(s, src, strlen(src), true);
}

static bool has_flag(const struct sc_scan *s, const char *kind, size_t line)
{
	for (size_t i = 0; i < s->nflags; i++)
		if (!strcmp(s->flags[i].kind, kind) && (!line || s->flags[i].line == line))
			return true;
	return false;
}

static void test_refuses_includes(void **state)
{
	static const char *const bad[] = {
		"#include \"/etc/passwd\"\n",
		"#include </etc/passwd>\n",
		"  #  include <stdio.h>\n",
		"#define F \"/etc/shadow\"\n#include F\n",
		"#include_next <cuda_fp16.h>\n",
		"%:include \"/etc/passwd\"\n",
		"?\?=include \"/etc/passwd\"\n",
		"#inc\\\nlude \"/etc/passwd\"\n",
		"/* c */ #include \"/etc/passwd\"\n",
		"#include <cuda_fp16.h> junk\n",
		"#if __has_include(\"/etc/passwd\")\n#endif\n",
		"#import \"x\"\n",
		"#embed \"/etc/passwd\"\n",
	};
	struct sc_scan s;
	(void)state;
	for (size_t i = 0; i < SC_ARRAY_SIZE(bad); i++) {
		if (scan(bad[i], &s) != SC_EUNSAFE)
			fail_msg("not refused: %s", bad[i]);
	}
	assert_int_equal(scan("int a;\n\n#include \"/etc/passwd\"\n", &s), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "line 3"));
	assert_non_null(strstr(sc_error_last(), "only <cuda_fp16.h>, <cuda_bf16.h> and <mma.h>"));
	assert_int_equal(scan("#define F <x>\n#include F\n", &s), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "computed"));
	assert_string_equal(s.refusal, "include_refused");
}

/*
 * The probes a scan that reads text rather than tokens misses: each was
 * checked against NVRTC 13 (it opens or tests the file in every case).
 */
static void test_refuses_what_a_text_scan_misses(void **state)
{
	static const char *const bad[] = {
		/* a raw string that a text scan takes for the start of a comment */
		"__device__ const char* s = R\"x(\" /* )x\";\n#include \"/etc/passwd\"\n*/\n",
		"__device__ const char* s = u8R\"(\" /* )\";\n#include \"/etc/passwd\"\n*/\n",
		/* the numeric-file leak: a number through a diagnostic */
		"template<int N> struct Show;\nShow<\n#include \"/proc/sys/kernel/pid_max\"\n> s;\n",
		/* an existence oracle outside #if, and spelled by token pasting */
		"__device__ int z[__has_include(\"/root/.ssh/id_rsa\") ? 1 : -1];\n",
		"#define CAT(a,b) a##b\n__device__ int z[CAT(__has_,include)(\"/etc/shadow\") ? 1 : -1];\n",
		"#define CAT(a,b) a%:%:b\n#define X CAT(__h, as_include)\n#if X(\"/etc/shadow\")\n#endif\n",
		"#if __has_embed(\"/etc/passwd\")\n#endif\n",
		/* a digraph, and a comment that ends on the directive's line */
		"%:   include \"/etc/passwd\"\n",
		"/* x\n */ #include \"/etc/passwd\"\n",
		/* NVRTC reads 0'1'/ then * as a number and a comment, the standard as a
		 * number and a character literal: refused under either reading */
		"__device__ int a = 0'1'/*';\n#include \"/etc/passwd\"\n// */\n",
		/* a lone CR ends a line comment for the scan (stricter than NVRTC) */
		"__device__ int a; // x\r#include \"/etc/passwd\"\n",
		"_Pragma(\"include_alias(\\\"a.h\\\", \\\"/etc/passwd\\\")\")\n#include \"a.h\"\n",
		"#pragma include_alias(\"a.h\", \"/etc/passwd\")\n",
	};
	static const char *const unreadable[] = {
		"#line 1 \"other.cu\"\nint x = ;\n",
		"# 7 \"other.cu\"\nint x = ;\n",
		"  %: line 3\n",
		"__device__ const char* s = R\"a b(x)a b\";\n",             /* space in the delimiter */
		"__device__ const char* s = R\"(x\\\n)\";\n",               /* a splice inside */
		"__device__ const char* s = R\"0123456789abcdefg(x)0123456789abcdefg\";\n",  /* 17 chars */
		"__device__ const char* s = R\"(never closed\n#include \"/etc/passwd\"\n",
	};
	struct sc_scan s;
	(void)state;
	for (size_t i = 0; i < SC_ARRAY_SIZE(bad); i++) {
		if (scan(bad[i], &s) != SC_EUNSAFE)
			fail_msg("not refused: %s", bad[i]);
		if (strcmp(s.refusal, "include_refused"))
			fail_msg("refused as %s, not include_refused: %s", s.refusal, bad[i]);
	}
	for (size_t i = 0; i < SC_ARRAY_SIZE(unreadable); i++) {
		if (scan(unreadable[i], &s) != SC_EUNSAFE)
			fail_msg("not refused: %s", unreadable[i]);
		if (strcmp(s.refusal, "source_refused"))
			fail_msg("refused as %s, not source_refused: %s", s.refusal, unreadable[i]);
	}
	assert_int_equal(scan("int a;\n#line 9\n", &s), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "line 2: #line is not allowed"));
	assert_int_equal(scan(bad[0], &s), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "line 2: #include \"/etc/passwd\""));
}

/* Raw strings, separators and pasting that NVRTC also reads as harmless. */
static void test_reads_tokens_like_the_compiler(void **state)
{
	struct sc_scan s;
	(void)state;
	/* an include inside a raw string spanning lines is text, not a directive */
	assert_int_equal(scan("__device__ const char* s = R\"doc(\n#include \"/etc/passwd\"\n)doc\";\n"
			      "extern \"C\" __global__ void k(float* y) { y[0] = 1'000.5f; }\n", &s), 0);
	/* FOOR"..." is an identifier then an ordinary string, not a raw string */
	assert_int_equal(scan("#define FOOR\n__device__ const char* t = FOOR\"x(\";\n#define A 1\n", &s), 0);
	/* pasting identifiers that cannot spell __has_include */
	assert_int_equal(scan("#define CAT(a,b) a##b\n__device__ float CAT(v,0), CAT(v,1);\n", &s), 0);
	/* flags on the line after a multi-line raw string keep their own line */
	assert_int_equal(scan("__device__ const char* s = R\"(a\nb)\";\n__device__ float c[4];\n", &s), 0);
	assert_true(has_flag(&s, "device_state", 3));
	assert_int_equal(scan("#pragma unroll\n_Pragma(\"unroll\")\n", &s), 0);
}

static void test_allows_what_is_offered(void **state)
{
	struct sc_scan s;
	(void)state;
	assert_int_equal(scan("#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <mma.h>\n", &s), 0);
	/* Exactly those spellings: not the toolkit's inner files, not quoted. */
	assert_int_equal(scan("#include <crt/mma.h>\n", &s), SC_EUNSAFE);
	assert_int_equal(scan("#include \"mma.h\"\n", &s), SC_EUNSAFE);
	assert_int_equal(scan("#include <mma.hpp>\n", &s), SC_EUNSAFE);
	assert_int_equal(scan("#include <mma.h> x\n", &s), SC_EUNSAFE);
	/* Not directives: in a string, in a comment, mid-line. */
	assert_int_equal(scan("const char *s = \"#include <x>\";\n// #include \"/etc/passwd\"\n"
			      "/*\n#include \"/etc/passwd\"\n*/\nint a; // x\n", &s), 0);
	assert_int_equal(sc_scan_source(&s, "a\0b", 3, true), SC_EUNSAFE);
}

static void test_flags(void **state)
{
	struct sc_scan s;
	const char *src =
		"__device__ float cache[1024];\n"                                        /* 1 */
		"static __device__ int calls = 0;\n"                                     /* 2 */
		"__device__ __forceinline__ float sq(float v) { return v * v; }\n"       /* 3 */
		"extern \"C\" __global__ void k(float* y) {\n"                           /* 4 */
		"  cudaStream_t s; cudaStreamCreateWithFlags(&s, 1);\n"                  /* 5 */
		"  float* p = (float*)malloc(16);\n"                                     /* 6 */
		"  printf(\"%f\", y[0]);\n"                                              /* 7 */
		"  __half h = __float2half(y[0]);\n"                                     /* 8 */
		"  int half = 3; y[half] = 0;\n"                                         /* 9 */
		"  child<<<1, 1, 0, s>>>(y);\n"                                          /* 10 */
		"}\n";
	(void)state;
	assert_int_equal(scan(src, &s), 0);
	assert_true(has_flag(&s, "device_state", 1));
	assert_true(has_flag(&s, "device_state", 2));
	assert_false(has_flag(&s, "device_state", 3));  /* a function, not state */
	assert_true(has_flag(&s, "stream_creation", 5));
	assert_true(has_flag(&s, "host_allocation", 6));
	assert_true(has_flag(&s, "printf", 7));
	assert_true(has_flag(&s, "precision_downcast", 8));
	assert_false(has_flag(&s, "precision_downcast", 9));  /* a variable called half */
	assert_true(has_flag(&s, "device_launch", 10));
	assert_string_equal(s.flags[0].text, "__device__ float cache[1024];");
	/* Downcasts are not flagged on a fixture that is not fp32. */
	assert_int_equal(sc_scan_source(&s, src, strlen(src), false), 0);
	assert_false(has_flag(&s, "precision_downcast", 0));
}

/* Every planted kernel's "expect-scan:" flags fire (and no error-severity
 * flag fires where none is expected). */
static void test_planted_kernels(void **state)
{
	DIR *d = opendir("tests/kernels");
	struct dirent *e;
	int n = 0;
	(void)state;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		struct sc_buf path = SC_BUF_INIT, src = SC_BUF_INIT;
		struct sc_scan s;
		const char *exp, *refuse;
		char want[256] = "";
		int err;

		if (!sc_ends_with(e->d_name, ".cu"))
			continue;
		sc_buf_printf(&path, "tests/kernels/%s", e->d_name);
		assert_int_equal(sc_read_file(&src, path.ptr, 1 << 20), 0);
		exp = strstr(src.ptr, "// expect-scan:");
		assert_non_null(exp);
		sscanf(exp + 15, "%255[^\n]", want);
		refuse = strstr(src.ptr, "include_refused");
		/* scanned as the worker scans it: against the fixture it names */
		{
			const char *fx = strstr(src.ptr, "// fixture:");
			bool fp32 = true;
			if (fx) {
				char name[64] = "";
				struct sc_buf sp = SC_BUF_INIT;
				struct sc_spec spec;
				sscanf(fx + 11, " %63s", name);
				sc_buf_printf(&sp, "fixtures/%s/spec.json", name);
				if (sc_spec_load(&spec, sp.ptr) < 0)
					fail_msg("%s: %s", e->d_name, sc_error_last());
				fp32 = spec.precision == SC_PRECISION_FP32;
				sc_spec_release(&spec);
				sc_buf_release(&sp);
			}
			err = sc_scan_source(&s, src.ptr, src.len, fp32);
		}
		if (refuse) {
			assert_int_equal(err, SC_EUNSAFE);
		} else {
			char *save = NULL;
			assert_int_equal(err, 0);
			/* the kinds the PTX decides are checked where NVRTC runs
			 * (test_kernel_nvrtc) */
			for (char *w = strtok_r(want, " ", &save); w; w = strtok_r(NULL, " ", &save))
				if (!sc_scan_kind_is_ptx(w) && !has_flag(&s, w, 0))
					fail_msg("%s: expected scan flag %s", e->d_name, w);
			if (!*want)
				for (size_t i = 0; i < s.nflags; i++)
					if (s.flags[i].severity == SC_SCAN_ERROR)
						fail_msg("%s: unexpected flag %s", e->d_name, s.flags[i].kind);
		}
		n++;
		sc_buf_release(&path);
		sc_buf_release(&src);
	}
	closedir(d);
	assert_true(n >= 9);
}

/* Every fixture's baseline and solution scans clean against its own spec:
 * WMMA and bfloat16 in a bfloat16 fixture are not a downcast. */
static void test_fixture_kernels_scan_clean(void **state)
{
	DIR *d = opendir("fixtures");
	struct dirent *e;
	int n = 0;
	(void)state;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		struct sc_buf sp = SC_BUF_INIT;
		struct sc_spec spec;
		if (e->d_name[0] == '.')
			continue;
		sc_buf_printf(&sp, "fixtures/%s/spec.json", e->d_name);
		if (access(sp.ptr, F_OK) == 0) {
			assert_int_equal(sc_spec_load(&spec, sp.ptr), 0);
			for (int k = 0; k < 2; k++) {
				struct sc_buf path = SC_BUF_INIT, src = SC_BUF_INIT;
				struct sc_scan s;
				sc_buf_printf(&path, "fixtures/%s/%s", e->d_name, k ? "solution.cu" : "baseline.cu");
				assert_int_equal(sc_read_file(&src, path.ptr, 1 << 20), 0);
				assert_int_equal(sc_scan_source(&s, src.ptr, src.len, spec.precision == SC_PRECISION_FP32), 0);
				for (size_t i = 0; i < s.nflags; i++)
					if (s.flags[i].severity == SC_SCAN_ERROR)
						fail_msg("%s: flag %s at line %zu", path.ptr, s.flags[i].kind, s.flags[i].line);
				sc_buf_release(&path);
				sc_buf_release(&src);
				n++;
			}
			sc_spec_release(&spec);
		}
		sc_buf_release(&sp);
	}
	closedir(d);
	assert_true(n >= 30);
	/* the same WMMA solution in a float32 fixture would be flagged */
	{
		struct sc_buf src = SC_BUF_INIT;
		struct sc_scan s;
		assert_int_equal(sc_read_file(&src, "fixtures/gemm-bf16/solution.cu", 1 << 20), 0);
		assert_int_equal(sc_scan_source(&s, src.ptr, src.len, true), 0);
		assert_true(has_flag(&s, "precision_downcast", 0));
		sc_buf_release(&src);
	}
}


/* Scans one PTX text under a fixture precision (float outputs, no
 * compensated TF32); returns the scan. */
static struct sc_scan ptx(const char *text, enum sc_precision p)
{
	struct sc_scan s;
	struct sc_ptx_rules r = { p, false, true };
	memset(&s, 0, sizeof(s));
	assert_int_equal(sc_scan_ptx(&s, text, strlen(text), &r), 0);
	return s;
}

#define PTX_HEAD ".version 9.0\n.target sm_90\n.address_size 64\n"
#define PTX_ENTRY ".visible .entry k(\n\t.param .u64 k_param_0\n)\n{\n\t.reg .b64 %rd<8>;\n"

/* The PTX flags, each from what NVRTC emits for it; the compiler's own
 * string constants, shared arrays and ordinary global loads are not. */
static void test_ptx_flags(void **state)
{
	struct sc_scan s;
	(void)state;

	s = ptx(PTX_HEAD ".global .align 4 .u32 calls;\n" PTX_ENTRY
		"\tmov.u64 \t%rd5, calls;\n\tatom.global.add.u32 \t%r2, [%rd5], 1;\n\tret;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 11));  /* at the write, not the declaration */
	assert_true(has_flag(&s, "module_atomic", 0));
	assert_int_equal(s.flags[0].severity, SC_SCAN_ERROR);
	assert_true(s.flags[0].from_ptx);
	/* through cvta, and directly on the symbol */
	s = ptx(PTX_HEAD ".visible .global .align 4 .b8 memo[64];\n" PTX_ENTRY
		"\tmov.u64 \t%rd1, memo;\n\tcvta.global.u64 \t%rd2, %rd1;\n\tred.global.add.u32 \t[%rd2], 1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "module_atomic", 0));
	s = ptx(PTX_HEAD ".global .align 4 .u32 n;\n" PTX_ENTRY "\tatom.global.add.u32 \t%r1, [n], 1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "module_atomic", 0));
	/* an atomic on a kernel argument is no module atomic */
	s = ptx(PTX_HEAD PTX_ENTRY "\tld.param.u64 \t%rd1, [k_param_0];\n\tatom.global.add.u32 \t%r1, [%rd1], 1;\n}\n", SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);
	s = ptx(PTX_HEAD PTX_ENTRY "\t// begin inline asm\n\tmov.u64 \t%rd1, %clock64;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "clock_read", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tmov.u32 \t%r1, %clock;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "clock_read", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tmov.u64 %rd2, %globaltimer;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "clock_read", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tnanosleep.u32 %r1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "sleep", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tcvt.rna.tf32.f32 %r1, %f1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "precision_downcast", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\t{  cvt.rn.f16.f32 %rs1, %f1;}\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "precision_downcast", 0));
	/* on a bfloat16 fixture the narrow types are the point */
	s = ptx(PTX_HEAD PTX_ENTRY "\t{  cvt.rn.bf16.f32 %rs1, %f1;}\n}\n", SC_PRECISION_BF16);
	assert_int_equal(s.nflags, 0);
	s = ptx(PTX_HEAD ".extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n"
		"\t.param .b64 vprintf_param_1\n)\n;\n.global .align 1 .b8 $str[4] = {104, 105, 10};\n" PTX_ENTRY
		"\tmov.u64 \t%rd6, $str;\n\tcall.uni (retval0), \n\tvprintf, \n\t(\n\tparam0, \n\tparam1\n\t);\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "printf", 0));
	assert_false(has_flag(&s, "device_state", 0));  /* $str is the compiler's */
	s = ptx(PTX_HEAD PTX_ENTRY "\tcall.uni (retval0), \n\tcudaLaunchDeviceV2, \n\t(\n\tparam0\n\t);\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_launch", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tcall.uni (retval0), \n\tmalloc, \n\t(\n\tparam0\n\t);\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_heap", 0));
	/* clean: shared arrays, constants, global loads and stores, fp32 math */
	s = ptx(PTX_HEAD ".const .align 4 .b8 tbl[16];\n" PTX_ENTRY "\t.shared .align 4 .b8 _ZZ1kE3buf[1024];\n"
		"\tld.global.f32 \t%f1, [%rd4+8];\n\tex2.approx.f32 \t%f2, %f1;\n\tst.global.f32 \t[%rd4], %f2;\n"
		"\tatom.shared.add.u32 \t%r1, [_ZZ1kE3buf], 1;\n}\n", SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);
	/* the math library's tables are not state, unless written */
	s = ptx(PTX_HEAD ".global .align 4 .b8 __cudart_i2opi_f[24] = {65, 144, 67, 60};\n" PTX_ENTRY
		"\tmov.u64 \t%rd1, __cudart_i2opi_f;\n\tld.global.nc.u32 \t%r1, [%rd1];\n}\n", SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);
	s = ptx(PTX_HEAD ".global .align 4 .b8 __cudart_i2opi_f[24] = {65, 144, 67, 60};\n" PTX_ENTRY
		"\tmov.u64 \t%rd1, __cudart_i2opi_f;\n\tst.global.u32 \t[%rd1], %r1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	s = ptx(PTX_HEAD ".global .align 4 .b8 __cudart_i2opi_f[24] = {65, 144, 67, 60};\n" PTX_ENTRY
		"\tst.global.u32 \t[__cudart_i2opi_f+4], %r1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	/* state nothing writes is no state, whatever its name */
	s = ptx(PTX_HEAD ".global .align 4 .u32 counter;\n" PTX_ENTRY "\tld.global.u32 %r1, [counter];\n\tret;\n}\n",
		SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);
	/* one flag per kind, at its first line */
	s = ptx(PTX_HEAD PTX_ENTRY "\tnanosleep.u32 %r1;\n\tnanosleep.u32 %r2;\n}\n", SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 1);
	/* the kinds the PTX decides */
	assert_true(sc_scan_kind_is_ptx("device_state"));
	assert_true(sc_scan_kind_is_ptx("inline_asm"));
	assert_false(sc_scan_kind_is_ptx("include_refused"));
	assert_false(sc_scan_kind_is_ptx("stream_creation"));
}

/* Scans text under explicit rules. */
static struct sc_scan ptx_rules(const char *text, enum sc_precision p, bool compensated, bool float_out)
{
	struct sc_scan s;
	struct sc_ptx_rules r = { p, compensated, float_out };
	memset(&s, 0, sizeof(s));
	assert_int_equal(sc_scan_ptx(&s, text, strlen(text), &r), 0);
	return s;
}

/* The text read as ptxas reads it: comments, strings and braces hide
 * nothing, and nothing that is not code is taken for code. */
static void test_ptx_tokens_as_ptxas(void **state)
{
	struct sc_scan s;
	(void)state;

	/* a block comment holding "//": ptxas reads the mov after it */
	s = ptx(PTX_HEAD PTX_ENTRY "\t/* // */ mov.u64 %rd1, %globaltimer;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "clock_read", 9));
	/* closing braces in a comment end no function: what follows is read */
	s = ptx(PTX_HEAD PTX_ENTRY "\t/* } } } } */\n\tmov.u64 %rd1, %globaltimer;\n\tnanosleep.u32 %r1; /* { { */\n}\n",
		SC_PRECISION_FP32);
	assert_true(has_flag(&s, "clock_read", 10));
	assert_true(has_flag(&s, "sleep", 11));
	assert_false(has_flag(&s, "ptx_unreadable", 0));
	/* a comment that spans lines, and a line comment, are not code */
	s = ptx(PTX_HEAD PTX_ENTRY "\t/* mov.u64 %rd1, %globaltimer;\n\tnanosleep.u32 5; */\n\t// mov.u32 %r1, %clock;\n}\n",
		SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);
	/* a string is one token: its braces and registers are not code */
	s = ptx(PTX_HEAD PTX_ENTRY "\t.pragma \"} %globaltimer {\";\n\tret;\n}\n", SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);
	/* a register named like the start of one (%clock_hi) is itself */
	s = ptx(PTX_HEAD PTX_ENTRY "\tmov.u32 %r1, %clock_hi;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "clock_read", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tmov.u32 %r1, %globaltimer_lo;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "clock_read", 0));
	/* the counters and the driver's registers */
	s = ptx(PTX_HEAD PTX_ENTRY "\tmov.u64 %rd1, %gridid;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "special_register", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tmov.u32 %r1, %pm3;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "special_register", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tmov.u64 %rd1, %pm7_64;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "special_register", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tmov.u32 %r1, %envreg7;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "special_register", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tmov.u64 %rd1, %current_graph_exec;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "special_register", 0));
	/* the registers a kernel needs are none of those */
	s = ptx(PTX_HEAD PTX_ENTRY "\tmov.u32 %r1, %tid.x;\n\tmov.u32 %r2, %ctaid.y;\n\tmov.u32 %r3, %laneid;\n"
		"\tmov.u32 %r4, %smid;\n\tmov.u32 %r5, %dynamic_smem_size;\n}\n", SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);
	/* what the scan cannot read for sure is a flag, never a guess */
	s = ptx(PTX_HEAD PTX_ENTRY "#define T %globaltimer\n\tmov.u64 %rd1, T;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "ptx_unreadable", 9));
	s = ptx(PTX_HEAD PTX_ENTRY "\t/* never closed\n\tret;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "ptx_unreadable", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\t.pragma \"never closed;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "ptx_unreadable", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\t.loc 1 2 3\n\tret;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "ptx_unreadable", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tmov.u32 %r1, 1;\n", SC_PRECISION_FP32);  /* no closing brace */
	assert_true(has_flag(&s, "ptx_unreadable", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tmov.u32 %r1, \xc3\xa9;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "ptx_unreadable", 0));
	/* a text that is not NUL-terminated is read to its length */
	{
		const char *text = PTX_HEAD PTX_ENTRY "\tmov.u64 %rd1, %globaltimer;\n}\nXXXX";
		struct sc_ptx_rules r = { SC_PRECISION_FP32, false, true };
		memset(&s, 0, sizeof(s));
		assert_int_equal(sc_scan_ptx(&s, text, strlen(text) - 4, &r), 0);
		assert_true(has_flag(&s, "clock_read", 0));
		assert_false(has_flag(&s, "ptx_unreadable", 0));
	}
}

/* Module state is judged by what writes it, through whatever address the
 * kernel derives from it; read-only data is no state, whatever its name. */
static void test_ptx_module_state_by_writes(void **state)
{
	struct sc_scan s;
	(void)state;

	/* named like the math library's table, with its initialiser, and
	 * counted with an atomic */
	s = ptx(PTX_HEAD ".global .align 4 .b8 __cudart_i2opi_f[24] = {65, 144, 67, 60};\n" PTX_ENTRY
		"\tmov.u64 %rd1, __cudart_i2opi_f;\n\tadd.s64 %rd2, %rd1, 20;\n\tatom.global.add.u32 %r1, [%rd2], 1;\n}\n",
		SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	assert_true(has_flag(&s, "module_atomic", 0));
	/* __constant__ state written through cvta.const (generic addressing) */
	s = ptx(PTX_HEAD ".const .align 4 .b8 launches_c[8];\n" PTX_ENTRY
		"\tcvta.const.u64 %rd1, launches_c;\n\tst.u32 [%rd1], %r1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	s = ptx(PTX_HEAD ".const .align 4 .b8 t[8];\n" PTX_ENTRY "\tmov.u64 %rd1, t;\n\tcvta.const.u64 %rd2, %rd1;\n"
		"\tatom.add.u32 %r1, [%rd2], 1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "module_atomic", 0));
	/* read-only: a __constant__ table through cvta, the library's tables
	 * through ld.global.nc, a loop over a table */
	s = ptx(PTX_HEAD ".const .align 4 .b8 t[16] = {1, 2, 3, 4};\n"
		".global .align 16 .b8 __cudart_sin_cos_coeffs[16] = {1, 2};\n" PTX_ENTRY
		"\tcvta.const.u64 %rd1, t;\n\tld.u32 %r1, [%rd1+4];\n\tmov.u64 %rd2, __cudart_sin_cos_coeffs;\n"
		"$L__BB0_1:\n\tld.global.nc.v2.f64 {%fd1, %fd2}, [%rd2];\n\tadd.s64 %rd2, %rd2, 16;\n"
		"\tsetp.ne.s64 %p1, %rd2, %rd3;\n\t@%p1 bra $L__BB0_1;\n\tld.param.u64 %rd4, [k_param_0];\n"
		"\tst.global.f32 [%rd4], %f1;\n}\n", SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);
	/* through a register copied in a loop, and through a vector's halves */
	s = ptx(PTX_HEAD ".global .u32 g;\n" PTX_ENTRY "\tmov.u64 %rd1, g;\n\tmov.b64 {%r1, %r2}, %rd1;\n"
		"\tmov.b64 %rd3, {%r1, %r2};\n\tst.global.u32 [%rd3+4], 7;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	/* through a function's parameter, and back through its return value */
	s = ptx(PTX_HEAD ".global .u32 g;\n"
		".func (.param .b64 func_retval0) id(.param .b64 id_param_0)\n{\n\t.reg .b64 %rd<3>;\n"
		"\tld.param.u64 %rd1, [id_param_0];\n\tst.param.b64 [func_retval0+0], %rd1;\n\tret;\n}\n" PTX_ENTRY
		"\tmov.u64 %rd1, g;\n\t{ // callseq 0, 0\n\t.param .b64 param0;\n\tst.param.b64 [param0+0], %rd1;\n"
		"\t.param .b64 retval0;\n\tcall.uni (retval0), id, (param0);\n\tld.param.b64 %rd2, [retval0+0];\n"
		"\t} // callseq 0\n\tst.global.u32 [%rd2], 1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	s = ptx(PTX_HEAD ".global .u32 g;\n.func w(.param .b64 w_param_0)\n{\n\t.reg .b64 %rd<3>;\n"
		"\tld.param.u64 %rd1, [w_param_0];\n\tst.u32 [%rd1], 1;\n\tret;\n}\n" PTX_ENTRY
		"\tmov.u64 %rd1, g;\n\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0+0], %rd1;\n"
		"\tcall.uni w, (param0);\n\t}\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	/* the same function given a kernel argument writes no state */
	s = ptx(PTX_HEAD ".global .u32 g;\n.func w(.param .b64 w_param_0)\n{\n\t.reg .b64 %rd<3>;\n"
		"\tld.param.u64 %rd1, [w_param_0];\n\tst.u32 [%rd1], 1;\n\tret;\n}\n" PTX_ENTRY
		"\tld.param.u64 %rd1, [k_param_0];\n\tld.global.u32 %r1, [g];\n\t{\n\t.param .b64 param0;\n"
		"\tst.param.b64 [param0+0], %rd1;\n\tcall.uni w, (param0);\n\t}\n}\n", SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);
	/* through a variable that holds its address (__device__ int *p = &g) */
	s = ptx(PTX_HEAD ".global .align 4 .u32 counter;\n.global .align 8 .u64 ptr = generic(counter);\n" PTX_ENTRY
		"\tld.global.u64 %rd8, [ptr];\n\tatom.add.u32 %r6, [%rd8], 1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "module_atomic", 0));
	/* a list of variables declares each */
	s = ptx(PTX_HEAD ".global .u32 a, b;\n" PTX_ENTRY "\tst.global.u32 [a], 1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	/* its address stored where the scan does not follow it */
	s = ptx(PTX_HEAD ".global .u32 g;\n" PTX_ENTRY "\tmov.u64 %rd1, g;\n\tld.param.u64 %rd2, [k_param_0];\n"
		"\tst.global.u64 [%rd2], %rd1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	/* through .local memory and back */
	s = ptx(PTX_HEAD ".global .u32 g;\n" PTX_ENTRY "\tmov.u64 %rd1, g;\n\tst.local.u64 [%rd5], %rd1;\n"
		"\tld.local.u64 %rd2, [%rd5];\n\tst.global.u32 [%rd2], 1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	/* a register a nested scope declares is that scope's own */
	s = ptx(PTX_HEAD ".global .u32 g;\n" PTX_ENTRY "\tmov.u64 %rd1, g;\n\tld.global.u32 %r1, [%rd1];\n"
		"\t{ .reg .b64 %rd1;\n\tld.param.u64 %rd1, [k_param_0];\n\tst.global.u32 [%rd1], %r1; }\n}\n",
		SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);
	s = ptx(PTX_HEAD ".global .u32 g;\n" PTX_ENTRY "\t{ .reg .b64 %t<2>;\n\tmov.u64 %t1, g;\n"
		"\tst.global.u32 [%t1], 1; }\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	/* state declared after a brace that closes the function early (what
	 * inline PTX could inject) is module state all the same */
	s = ptx(PTX_HEAD PTX_ENTRY "\tret;\n}\n.global .u32 hidden;\n.visible .entry k2()\n{\n"
		"\tst.global.u32 [hidden], 1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	/* a bulk copy into module state, a surface write; a copy from it is a read */
	s = ptx(PTX_HEAD ".global .align 16 .b8 g[64];\n" PTX_ENTRY "\tmov.u64 %rd1, g;\n"
		"\tcp.async.bulk.global.shared::cta.bulk_group [%rd1], [%r1], 64;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	s = ptx(PTX_HEAD ".global .align 16 .b8 g[64];\n" PTX_ENTRY "\tmov.u64 %rd1, g;\n"
		"\tcp.async.ca.shared.global [%r1], [%rd1], 16;\n}\n", SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);
	s = ptx(PTX_HEAD ".global .surfref surf;\n" PTX_ENTRY "\tsust.b.1d.b32.trap [surf, {%r1}], {%r2};\n}\n",
		SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
	/* an indirect call given an address of state */
	s = ptx(PTX_HEAD ".global .u32 g;\n" PTX_ENTRY "\tmov.u64 %rd1, g;\n\t{\n\t.param .b64 param0;\n"
		"\tst.param.b64 [param0+0], %rd1;\n\tcall.uni %rd4, (param0), proto_0;\n\t}\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_state", 0));
}

/* Calls: the device runtime and functions the module does not define. */
static void test_ptx_calls(void **state)
{
	struct sc_scan s;
	(void)state;

	s = ptx(PTX_HEAD ".extern .func __assertfail\n(\n\t.param .b64 __assertfail_param_0\n)\n;\n"
		".global .align 1 .b8 $str[2] = {65};\n" PTX_ENTRY "\tmov.u64 %rd1, $str;\n\tcvta.global.u64 %rd2, %rd1;\n"
		"\t{\n\t.param .b64 param0;\n\tst.param.b64 [param0+0], %rd2;\n\tcall.uni __assertfail, (param0);\n\t}\n}\n",
		SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);  /* assert() is no flag; its message is only read */
	s = ptx(PTX_HEAD ".extern .func  (.param .b32 func_retval0) mystery\n(\n\t.param .b64 mystery_param_0\n)\n;\n"
		PTX_ENTRY "\tcall.uni (retval0), mystery, (param0);\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "extern_call", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tcall.uni free, (param0);\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "device_heap", 0));
	/* a function pointer to printf, called indirectly */
	s = ptx(PTX_HEAD ".extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0,\n"
		"\t.param .b64 vprintf_param_1\n)\n;\n" PTX_ENTRY "\tmov.u64 %rd1, vprintf;\n"
		"\tcall (retval0), %rd1, (param0, param1), proto_1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "printf", 0));
	/* the module's own functions are the module's */
	s = ptx(PTX_HEAD ".func f()\n{\n\tret;\n}\n" PTX_ENTRY "\tcall.uni f, ();\n}\n", SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);
}

/* Precision: each fixture's own, every type an instruction computes in or
 * converts to, narrower in mantissa or exponent. */
static void test_ptx_precision(void **state)
{
	struct sc_scan s;
	(void)state;

	/* float8 on a bfloat16 fixture, as the attention kernel that took the
	 * fp8 path on two distributions did */
	s = ptx(PTX_HEAD PTX_ENTRY "\tcvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;\n}\n", SC_PRECISION_BF16);
	assert_true(has_flag(&s, "precision_downcast", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tmma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%f1}, {%r1}, {%r2}, {%f2};\n}\n",
		SC_PRECISION_BF16);
	assert_true(has_flag(&s, "precision_downcast", 0));
	/* on an fp8 fixture e4m3 is the point, fp4 is not */
	s = ptx(PTX_HEAD PTX_ENTRY "\tcvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;\n\tcvt.rn.f16x2.e4m3x2 %r1, %rs1;\n}\n",
		SC_PRECISION_FP8);
	assert_int_equal(s.nflags, 0);
	s = ptx(PTX_HEAD PTX_ENTRY "\tcvt.rn.satfinite.e2m1x2.f32 %rs1, %f1, %f2;\n}\n", SC_PRECISION_FP8);
	assert_true(has_flag(&s, "precision_downcast", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tcvt.rn.satfinite.e5m2x2.f32 %rs1, %f1, %f2;\n}\n", SC_PRECISION_FP8);
	assert_true(has_flag(&s, "precision_downcast", 0));  /* fewer mantissa bits than e4m3 */
	/* float16 has fewer exponent bits than bfloat16; TF32 has more of both */
	s = ptx(PTX_HEAD PTX_ENTRY "\tadd.rn.f16 %rs1, %rs2, %rs3;\n}\n", SC_PRECISION_BF16);
	assert_true(has_flag(&s, "precision_downcast", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tcvt.rna.tf32.f32 %r1, %f1;\n\tfma.rn.bf16 %rs1, %rs2, %rs3, %rs4;\n}\n",
		SC_PRECISION_BF16);
	assert_int_equal(s.nflags, 0);
	/* bfloat16 on a float16 fixture: fewer mantissa bits */
	s = ptx(PTX_HEAD PTX_ENTRY "\tcvt.rn.bf16.f32 %rs1, %f1;\n}\n", SC_PRECISION_FP16);
	assert_true(has_flag(&s, "precision_downcast", 0));
	/* moving bits is no arithmetic; a float16 load of a fragment is */
	s = ptx(PTX_HEAD PTX_ENTRY "\tld.global.b16 %rs1, [%rd1];\n\tmov.b32 {%rs1, %rs2}, %r1;\n}\n", SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);
	s = ptx(PTX_HEAD PTX_ENTRY "\twmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r1}, [%rd1], 16;\n}\n",
		SC_PRECISION_FP32);
	assert_true(has_flag(&s, "precision_downcast", 0));
	/* integer quantization of floats: on a fixture with float outputs */
	s = ptx(PTX_HEAD PTX_ENTRY "\tcvt.rni.sat.s8.f32 %rs1, %f1;\n}\n", SC_PRECISION_FP32);
	assert_true(has_flag(&s, "precision_downcast", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tdp4a.s32.s32 %r1, %r2, %r3, %r4;\n}\n", SC_PRECISION_BF16);
	assert_true(has_flag(&s, "precision_downcast", 0));
	s = ptx_rules(PTX_HEAD PTX_ENTRY "\tdp4a.s32.s32 %r1, %r2, %r3, %r4;\n\tcvt.rzi.s32.f32 %r5, %f1;\n}\n",
		      SC_PRECISION_FP32, false, false);
	assert_int_equal(s.nflags, 0);  /* an integer fixture: bytes are data */
	s = ptx(PTX_HEAD PTX_ENTRY "\tcvt.rzi.s32.f32 %r5, %f1;\n\tcvt.u16.u32 %rs1, %r1;\n}\n", SC_PRECISION_FP32);
	assert_int_equal(s.nflags, 0);  /* an index from a float, a narrowing of integers */
	s = ptx(PTX_HEAD PTX_ENTRY "\tcvt.rzi.u16.f32 %rs1, %f1;\n}\n", SC_PRECISION_FP16);
	assert_true(has_flag(&s, "precision_downcast", 0));
	s = ptx(PTX_HEAD PTX_ENTRY "\tcvt.rni.s8.f16 %rs1, %rs2;\n}\n", SC_PRECISION_FP16);
	assert_true(has_flag(&s, "precision_downcast", 0));
	/* the other direction is a dequantization (int4/int8 weights widened
	 * to float16 or float32): nothing narrow is computed */
	s = ptx(PTX_HEAD PTX_ENTRY "\tcvt.rn.f16.u16 %rs1, %rs2;\n\tcvt.rn.f32.u8 %f1, %rs3;\n"
		"\tcvt.rn.f32.s16 %f2, %rs4;\n}\n", SC_PRECISION_FP16);
	assert_int_equal(s.nflags, 0);
}

/* TF32 on an fp32 fixture: flagged, unless the spec allows a compensated
 * split and every TF32 conversion is half of one. */
static void test_ptx_compensated_tf32(void **state)
{
	static const char split[] = PTX_HEAD PTX_ENTRY
		"\tcvt.rna.tf32.f32 %r1, %f1;\n\tmov.b32 %f2, %r1;\n\tsub.f32 %f3, %f1, %f2;\n"
		"\tcvt.rna.tf32.f32 %r2, %f3;\n"
		"\tmma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f4}, {%r1}, {%r3}, {%f5};\n}\n";
	static const char negsplit[] = PTX_HEAD PTX_ENTRY
		"\tcvt.rna.tf32.f32 %r1, %f1;\n\tmov.b32 %f2, %r1;\n\tneg.f32 %f6, %f2;\n\tadd.f32 %f3, %f1, %f6;\n"
		"\tcvt.rna.tf32.f32 %r2, %f3;\n}\n";
	static const char lone[] = PTX_HEAD PTX_ENTRY
		"\tcvt.rna.tf32.f32 %r1, %f1;\n\tcvt.rna.tf32.f32 %r2, %f3;\n\tmov.b32 %f2, %r1;\n\tsub.f32 %f4, %f1, %f9;\n}\n";
	static const char raw[] = PTX_HEAD PTX_ENTRY
		"\tmma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%f4}, {%r1}, {%r3}, {%f5};\n}\n";
	struct sc_scan s;
	(void)state;

	s = ptx_rules(split, SC_PRECISION_FP32, true, true);
	assert_int_equal(s.nflags, 0);
	s = ptx_rules(negsplit, SC_PRECISION_FP32, true, true);
	assert_int_equal(s.nflags, 0);
	s = ptx_rules(split, SC_PRECISION_FP32, false, true);
	assert_true(has_flag(&s, "precision_downcast", 0));
	s = ptx_rules(lone, SC_PRECISION_FP32, true, true);
	assert_true(has_flag(&s, "precision_downcast", 0));
	s = ptx_rules(raw, SC_PRECISION_FP32, true, true);  /* float32 bits fed to a TF32 MMA */
	assert_true(has_flag(&s, "precision_downcast", 0));
	s = ptx_rules(raw, SC_PRECISION_TF32, false, true);
	assert_int_equal(s.nflags, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refuses_includes),
		cmocka_unit_test(test_refuses_what_a_text_scan_misses),
		cmocka_unit_test(test_reads_tokens_like_the_compiler),
		cmocka_unit_test(test_allows_what_is_offered),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_fixture_kernels_scan_clean),
		cmocka_unit_test(test_planted_kernels),
		cmocka_unit_test(test_ptx_flags),
		cmocka_unit_test(test_ptx_tokens_as_ptxas),
		cmocka_unit_test(test_ptx_module_state_by_writes),
		cmocka_unit_test(test_ptx_calls),
		cmocka_unit_test(test_ptx_precision),
		cmocka_unit_test(test_ptx_compensated_tf32),
	};
	return cmocka_run_group_tests_name("kernel_scan", tests, NULL, NULL);
}
