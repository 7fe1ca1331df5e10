/*
 * NVRTC (needs the CUDA toolkit, not a GPU): every fixture's baseline and
 * solution compiles for sm_90 with its tunables; compile errors carry the
 * candidate's line; logs keep only the candidate's own diagnostics; cubins
 * are cached; ptxas' register/spill/shared numbers are parsed.
 */
#include "unit.h"
#include "nvrtc.h"
#include "ptx.h"
#include "gen.h"
#include "scan.h"
#include "sha256.h"
#include "spec.h"

#include <dirent.h>
#include <unistd.h>

static const char *include_dir(void)
{
	return access("/usr/local/cuda/include/cuda_fp16.h", R_OK) == 0 ? "/usr/local/cuda/include" : NULL;
}

/* Compiles for sm_90, unconfined unless confine. */
static int compile(struct sc_compiled *c, const char *src, const struct sc_nvrtc_defines *defs,
		   const char *inc, const char *cache_dir, bool confine)
{
	struct sc_nvrtc_opts o = { "sm_90", defs, inc, cache_dir, NULL, 0, confine };
	return sc_nvrtc_compile(c, src, strlen(src), &o);
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
	assert_int_equal(compile(&c, src.ptr, &defs, include_dir(), NULL, false), 0);
	if (!c.ok)
		fail_msg("%s does not compile:\n%s", path.ptr, c.log);
	assert_true(c.cubin_len > 0);
	assert_non_null(memmem(c.cubin, c.cubin_len, spec->entry, strlen(spec->entry) + 1));
	assert_true(c.registers > 0);
	/* the fixture's own kernels show nothing the PTX scan flags */
	assert_non_null(c.ptx);
	{
		struct sc_scan s;
		struct sc_ptx_rules rules;
		memset(&s, 0, sizeof(s));
		sc_ptx_rules_from_spec(&rules, spec);
		assert_int_equal(sc_scan_ptx(&s, c.ptx, c.ptx_len, &rules), 0);
		if (s.nflags)
			fail_msg("%s: PTX flag %s at line %zu: %s", path.ptr, s.flags[0].kind, s.flags[0].line, s.flags[0].text);
	}
	sc_compiled_release(&c);
	sc_buf_release(&path);
	sc_buf_release(&src);
}

/*
 * The correct variants planted beside a fixture's pitfalls
 * (tests/kernels/pitfalls/FIXTURE/ok_*.cu: a library's eager, fused or
 * dequantising arithmetic, which the fixture must accept) compile and
 * scan clean too, against that fixture's precision.
 */
static int compile_variants(const char *fixture, const struct sc_spec *spec)
{
	struct sc_buf dir = SC_BUF_INIT;
	DIR *d;
	struct dirent *e;
	int n = 0;

	sc_buf_printf(&dir, "tests/kernels/pitfalls/%s", fixture);
	if ((d = opendir(dir.ptr)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			size_t len = strlen(e->d_name);
			if (!strncmp(e->d_name, "ok_", 3) && len > 3 && !strcmp(e->d_name + len - 3, ".cu")) {
				compile_file(dir.ptr, e->d_name, spec);
				n++;
			}
		}
		closedir(d);
	}
	sc_buf_release(&dir);
	return n;
}

static void test_every_fixture_compiles(void **state)
{
	DIR *d = opendir("fixtures");
	struct dirent *e;
	int n = 0, variants = 0;
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
			variants += compile_variants(e->d_name, &spec);
			sc_spec_release(&spec);
			n++;
		}
		sc_buf_release(&dir);
		sc_buf_release(&spec_path);
	}
	closedir(d);
	assert_true(n >= 8);
	assert_true(variants >= 10);
}

static void test_syntax_error_has_candidate_line(void **state)
{
	const char *src = "extern \"C\" __global__ void k(float* y)\n{\n    float v = y[0]\n    y[1] = v;\n}\n";
	struct sc_compiled c;
	(void)state;
	assert_int_equal(compile(&c, src, NULL, NULL, NULL, false), 0);
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
	assert_int_equal(compile(&c, src, NULL, NULL, NULL, false), 0);
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
	assert_int_equal(compile(&c, src, NULL, NULL, NULL, false), 0);
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

	assert_int_equal(compile(&a, src, &defs, NULL, dir, false), 0);
	assert_true(a.ok);
	assert_false(a.cached);
	assert_int_equal(a.shared_bytes, 128 * 4);
	assert_true(a.registers > 0);
	assert_int_equal(a.spill_stores, 0);
	assert_int_equal(compile(&b, src, &defs, NULL, dir, false), 0);
	assert_true(b.cached);
	assert_int_equal(a.cubin_len, b.cubin_len);
	assert_memory_equal(a.cubin, b.cubin, a.cubin_len);
	assert_int_equal(b.registers, a.registers);
	assert_int_equal(b.shared_bytes, a.shared_bytes);
	/* the PTX comes back from the cache too, verified */
	assert_non_null(a.ptx);
	assert_non_null(b.ptx);
	assert_int_equal(a.ptx_len, b.ptx_len);
	assert_memory_equal(a.ptx, b.ptx, a.ptx_len);
	{
		struct sc_buf pp = SC_BUF_INIT;
		struct sc_compiled d;
		sc_buf_printf(&pp, "%s/%s.ptx", dir, a.key);
		assert_int_equal(sc_write_file_atomic(pp.ptr, "// no flags here\n", 17), 0);
		assert_int_equal(compile(&d, src, &defs, NULL, dir, false), 0);
		assert_false(d.cached);
		assert_non_null(strstr(d.cache_note, "PTX does not match"));
		assert_memory_equal(d.ptx, a.ptx, a.ptx_len);
		sc_compiled_release(&d);
		sc_buf_release(&pp);
	}
	/* A different tunable is a different key. */
	defs.value[0] = 256;
	assert_int_equal(compile(&c, src, &defs, NULL, dir, false), 0);
	assert_false(c.cached);
	assert_string_not_equal(a.key, c.key);
	assert_int_equal(c.shared_bytes, 256 * 4);
	sc_compiled_release(&a);
	sc_compiled_release(&b);
	sc_compiled_release(&c);
	sc_rm_rf(dir);
	free(dir);
}

/* Swaps the bytes of two files. */
static void swap_files(const char *a, const char *b)
{
	struct sc_buf x = SC_BUF_INIT, y = SC_BUF_INIT;
	assert_int_equal(sc_read_file(&x, a, 1 << 24), 0);
	assert_int_equal(sc_read_file(&y, b, 1 << 24), 0);
	assert_int_equal(sc_write_file_atomic(a, y.ptr, y.len), 0);
	assert_int_equal(sc_write_file_atomic(b, x.ptr, x.len), 0);
	sc_buf_release(&x);
	sc_buf_release(&y);
}

/*
 * A cache entry replaced by another kernel's cubin is not loaded: the
 * SHA-256 recorded at write time catches a swapped .cubin; a cache key (a
 * secret) catches an entry rewritten whole, .info included.
 */
static void test_cache_rejects_swapped_entry(void **state)
{
	const char *sa = "extern \"C\" __global__ void k(float* y) { y[threadIdx.x] = 1.0f; }\n";
	const char *sb = "extern \"C\" __global__ void k(float* y) { y[threadIdx.x] = 2.0f; }\n";
	static const unsigned char key1[] = "runner-one-secret", key2[] = "runner-two-secret";
	struct sc_nvrtc_opts o = { "sm_90", NULL, NULL, NULL, NULL, 0, false };
	struct sc_compiled a, b, again;
	struct sc_buf pa = SC_BUF_INIT, pb = SC_BUF_INIT, ia = SC_BUF_INIT, ib = SC_BUF_INIT;
	char *dir = sc_test_mkdtemp();
	(void)state;

	o.cache_dir = dir;
	assert_int_equal(sc_nvrtc_compile(&a, sa, strlen(sa), &o), 0);
	assert_int_equal(sc_nvrtc_compile(&b, sb, strlen(sb), &o), 0);
	assert_true(a.ok && b.ok);
	assert_memory_not_equal(a.cubin, b.cubin, a.cubin_len < b.cubin_len ? a.cubin_len : b.cubin_len);
	sc_buf_printf(&pa, "%s/%s.cubin", dir, a.key);
	sc_buf_printf(&pb, "%s/%s.cubin", dir, b.key);
	sc_buf_printf(&ia, "%s/%s.info", dir, a.key);
	sc_buf_printf(&ib, "%s/%s.info", dir, b.key);

	/* The .cubin files swapped: A's entry is not loaded, A is recompiled. */
	swap_files(pa.ptr, pb.ptr);
	assert_int_equal(sc_nvrtc_compile(&again, sa, strlen(sa), &o), 0);
	assert_false(again.cached);
	assert_non_null(strstr(again.cache_note, "rejected"));
	assert_non_null(strstr(again.cache_note, "SHA-256"));
	assert_int_equal(again.cubin_len, a.cubin_len);
	assert_memory_equal(again.cubin, a.cubin, a.cubin_len);
	sc_compiled_release(&again);
	/* ... and the entry was rewritten: the next compile is cached, clean. */
	assert_int_equal(sc_nvrtc_compile(&again, sa, strlen(sa), &o), 0);
	assert_true(again.cached);
	assert_string_equal(again.cache_note, "");
	sc_compiled_release(&again);

	/* With a cache key: an entry written under another key is refused. */
	o.cache_key = key1;
	o.cache_key_len = sizeof(key1) - 1;
	assert_int_equal(sc_nvrtc_compile(&again, sa, strlen(sa), &o), 0);
	assert_false(again.cached);  /* written without a key */
	assert_non_null(strstr(again.cache_note, "without this runner's cache key"));
	sc_compiled_release(&again);
	assert_int_equal(sc_nvrtc_compile(&again, sa, strlen(sa), &o), 0);
	assert_true(again.cached);
	sc_compiled_release(&again);
	o.cache_key = key2;
	o.cache_key_len = sizeof(key2) - 1;
	assert_int_equal(sc_nvrtc_compile(&again, sa, strlen(sa), &o), 0);
	assert_false(again.cached);
	assert_non_null(strstr(again.cache_note, "HMAC"));
	sc_compiled_release(&again);

	/* A forger who rewrites both files of A's entry with B's cubin and a
	 * correct SHA-256, but cannot compute the HMAC, is refused too. */
	{
		struct sc_buf info = SC_BUF_INIT, cub = SC_BUF_INIT, forged = SC_BUF_INIT, sumin = SC_BUF_INIT;
		char sum[65];
		const char *nl;
		assert_int_equal(sc_read_file(&info, ia.ptr, 1 << 20), 0);
		assert_int_equal(sc_read_file(&cub, pb.ptr, 1 << 24), 0);  /* pb holds A's old cubin: use B's fresh one */
		sc_buf_clear(&cub);
		sc_buf_put(&cub, b.cubin, b.cubin_len);
		sc_buf_puts(&sumin, a.key);
		sc_buf_put(&sumin, cub.ptr, cub.len);
		sc_sha256_hex(sum, sumin.ptr, sumin.len);
		nl = strchr(info.ptr, '\n');
		sc_buf_printf(&forged, "skillci-cubin 2 %s %064d%s", sum, 0, nl);
		assert_int_equal(sc_write_file_atomic(pa.ptr, cub.ptr, cub.len), 0);
		assert_int_equal(sc_write_file_atomic(ia.ptr, forged.ptr, forged.len), 0);
		assert_int_equal(sc_nvrtc_compile(&again, sa, strlen(sa), &o), 0);
		assert_false(again.cached);
		assert_non_null(strstr(again.cache_note, "HMAC"));
		assert_memory_equal(again.cubin, a.cubin, a.cubin_len);
		sc_compiled_release(&again);
		sc_buf_release(&info);
		sc_buf_release(&cub);
		sc_buf_release(&forged);
		sc_buf_release(&sumin);
	}
	sc_compiled_release(&a);
	sc_compiled_release(&b);
	sc_buf_release(&pa);
	sc_buf_release(&pb);
	sc_buf_release(&ia);
	sc_buf_release(&ib);
	sc_rm_rf(dir);
	free(dir);
}

/*
 * The jail: NVRTC run confined cannot open, quote or test the existence of
 * a host file, even when the scan is bypassed (this test calls the
 * compiler directly), while the toolkit headers stay usable. Unconfined,
 * the same sources reach the files, which shows the probes are real.
 */
static void test_confined_compiler_cannot_open_host_files(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_buf secret = SC_BUF_INIT, num = SC_BUF_INIT, src = SC_BUF_INIT;
	struct sc_compiled c;
	(void)state;

	sc_buf_printf(&secret, "%s/secret.h", dir);
	sc_buf_printf(&num, "%s/num.txt", dir);
	assert_int_equal(sc_write_file_atomic(secret.ptr, "#error LEAKED_SECRET_TEXT\n", 26), 0);
	assert_int_equal(sc_write_file_atomic(num.ptr, "4242\n", 5), 0);

	/* #include of an existing file */
	sc_buf_printf(&src, "#include \"%s\"\n", secret.ptr);
	assert_int_equal(compile(&c, src.ptr, NULL, include_dir(), NULL, true), 0);
	if (!c.confined) {
		char why[256];
		snprintf(why, sizeof(why), "%s", c.confine_why);
		sc_compiled_release(&c);
		sc_rm_rf(dir);
		free(dir);
		sc_buf_release(&secret);
		sc_buf_release(&num);
		sc_buf_release(&src);
		fprintf(stderr, "# no jail here: %s\n", why);
		skip();
	}
	assert_false(c.ok);
	assert_non_null(strstr(c.log, "cannot open source file"));
	assert_null(strstr(c.log, "LEAKED_SECRET_TEXT"));
	sc_compiled_release(&c);
	assert_int_equal(compile(&c, src.ptr, NULL, include_dir(), NULL, false), 0);
	assert_false(c.ok);
	assert_null(strstr(c.log, "cannot open source file"));  /* unconfined: it was opened */
	sc_compiled_release(&c);

	/* a number leaked through a diagnostic */
	sc_buf_clear(&src);
	sc_buf_printf(&src, "template<int N> struct Show;\n__device__ Show<\n#include \"%s\"\n> s;\n", num.ptr);
	assert_int_equal(compile(&c, src.ptr, NULL, include_dir(), NULL, true), 0);
	assert_false(c.ok);
	assert_null(strstr(c.log, "4242"));
	sc_compiled_release(&c);
	assert_int_equal(compile(&c, src.ptr, NULL, include_dir(), NULL, false), 0);
	assert_non_null(strstr(c.log, "4242"));
	sc_compiled_release(&c);

	/* an existence oracle: compiles only where the file exists */
	sc_buf_clear(&src);
	sc_buf_printf(&src, "__device__ int z[__has_include(\"%s\") ? 1 : -1];\n", secret.ptr);
	assert_int_equal(compile(&c, src.ptr, NULL, include_dir(), NULL, true), 0);
	assert_false(c.ok);
	assert_true(c.confined);
	sc_compiled_release(&c);
	assert_int_equal(compile(&c, src.ptr, NULL, include_dir(), NULL, false), 0);
	assert_true(c.ok);
	sc_compiled_release(&c);

	/* the offered headers still work in the jail */
	if (include_dir()) {
		const char *h = "#include <cuda_fp16.h>\nextern \"C\" __global__ void k(float* y) { y[0] = __half2float(__float2half(y[1])); }\n";
		assert_int_equal(compile(&c, h, NULL, include_dir(), NULL, true), 0);
		if (!c.ok)
			fail_msg("%s", c.log);
		assert_true(c.confined);
		assert_true(c.cubin_len > 0);
		sc_compiled_release(&c);
	}
	sc_rm_rf(dir);
	free(dir);
	sc_buf_release(&secret);
	sc_buf_release(&num);
	sc_buf_release(&src);
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


/*
 * Every planted kernel's expected scan flags fire once its PTX is scanned
 * as the worker scans it (source flags of the kinds the PTX decides
 * replaced by the PTX's), against the fixture it names; one that expects
 * none gets no error flag.
 */
static void test_planted_kernels_ptx_flags(void **state)
{
	DIR *d = opendir("tests/kernels");
	struct dirent *e;
	int n = 0;
	(void)state;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		struct sc_buf path = SC_BUF_INIT, src = SC_BUF_INIT, sp = SC_BUF_INIT;
		struct sc_spec spec;
		struct sc_tunable_values tun;
		struct sc_nvrtc_defines defs = { { 0 }, { 0 }, 0 };
		struct sc_compiled c;
		struct sc_scan s;
		struct sc_ptx_rules rules;
		char want[256] = "", fx[64] = "softmax", *save = NULL;
		const char *exp, *f;
		size_t k = 0;
		size_t len = strlen(e->d_name);

		if (len < 4 || strcmp(e->d_name + len - 3, ".cu"))
			continue;
		sc_buf_printf(&path, "tests/kernels/%s", e->d_name);
		assert_int_equal(sc_read_file(&src, path.ptr, 1 << 20), 0);
		if ((exp = strstr(src.ptr, "// expect-scan:")) != NULL)
			sscanf(exp + 15, "%255[^\n]", want);
		if ((f = strstr(src.ptr, "// fixture:")) != NULL)
			sscanf(f + 11, " %63s", fx);
		sc_buf_printf(&sp, "fixtures/%s/spec.json", fx);
		assert_int_equal(sc_spec_load(&spec, sp.ptr), 0);
		memset(&c, 0, sizeof(c));
		if (sc_scan_source(&s, src.ptr, src.len, spec.precision == SC_PRECISION_FP32) < 0 ||
		    sc_spec_tunables(&tun, &spec, src.ptr) < 0)
			goto next;  /* refused before NVRTC: the source test covers it */
		for (size_t i = 0; i < spec.ntunables; i++) {
			defs.name[i] = spec.tunables[i].name;
			defs.value[i] = tun.v[i];
			defs.n++;
		}
		assert_int_equal(compile(&c, src.ptr, &defs, include_dir(), NULL, false), 0);
		if (!c.ok)
			goto next;  /* a compile error: no PTX */
		for (size_t i = 0; i < s.nflags; i++)
			if (!sc_scan_kind_is_ptx(s.flags[i].kind))
				s.flags[k++] = s.flags[i];
		s.nflags = k;
		sc_ptx_rules_from_spec(&rules, &spec);
		assert_int_equal(sc_scan_ptx(&s, c.ptx, c.ptx_len, &rules), 0);
		for (char *w = strtok_r(want, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
			bool found = false;
			for (size_t i = 0; i < s.nflags; i++)
				found |= !strcmp(s.flags[i].kind, w);
			if (!found)
				fail_msg("%s: expected scan flag %s from its PTX", e->d_name, w);
		}
		if (!exp || !want[0])
			for (size_t i = 0; i < s.nflags; i++)
				if (s.flags[i].severity == SC_SCAN_ERROR && !strstr(src.ptr, "// calibrate:"))
					fail_msg("%s: unexpected flag %s (%s)", e->d_name, s.flags[i].kind, s.flags[i].text);
		n++;
next:
		sc_compiled_release(&c);
		sc_spec_release(&spec);
		sc_buf_release(&path);
		sc_buf_release(&src);
		sc_buf_release(&sp);
	}
	closedir(d);
	assert_true(n >= 20);
}

/* The harness's input generator compiles on its own (no include folder)
 * and its PTX has nothing the scan would flag. */
static void test_generator_compiles(void **state)
{
	struct sc_compiled c;
	struct sc_scan s;
	struct sc_ptx_rules rules = { SC_PRECISION_BF16, false, true };
	(void)state;

	assert_int_equal(compile(&c, sc_gen_cuda_source, NULL, NULL, NULL, false), 0);
	if (!c.ok)
		fail_msg("the generator does not compile:\n%s", c.log);
	assert_non_null(memmem(c.cubin, c.cubin_len, SC_GEN_ENTRY, strlen(SC_GEN_ENTRY) + 1));
	memset(&s, 0, sizeof(s));
	assert_int_equal(sc_scan_ptx(&s, c.ptx, c.ptx_len, &rules), 0);
	if (s.nflags)
		fail_msg("generator PTX flag %s: %s", s.flags[0].kind, s.flags[0].text);
	sc_compiled_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_fixture_compiles),
		cmocka_unit_test(test_planted_kernels_ptx_flags),
		cmocka_unit_test(test_generator_compiles),
		cmocka_unit_test(test_syntax_error_has_candidate_line),
		cmocka_unit_test(test_prelude_constants),
		cmocka_unit_test(test_log_keeps_only_candidate),
		cmocka_unit_test(test_line_directive_cannot_leak),
		cmocka_unit_test(test_cache_and_ptxas),
		cmocka_unit_test(test_parse_ptxas_text),
		cmocka_unit_test(test_cache_rejects_swapped_entry),
		cmocka_unit_test(test_confined_compiler_cannot_open_host_files),
	};
	return cmocka_run_group_tests_name("kernel_nvrtc", tests, NULL, NULL);
}
