/* NVRTC wrapper (nvrtc.h). */
#include "common.h"
#include "nvrtc.h"
#include "sha256.h"

#include <nvrtc.h>
#include <sys/stat.h>

const char sc_nvrtc_prelude[] =
	"#define INFINITY __int_as_float(0x7f800000)\n"
	"#define NAN __int_as_float(0x7fffffff)\n"
	"#define FLT_MAX 3.402823466e+38F\n"
	"#define FLT_MIN 1.175494351e-38F\n"
	"#define FLT_EPSILON 1.192092896e-07F\n"
	"#define INT_MAX 2147483647\n"
	"#define INT_MIN (-2147483647 - 1)\n"
	"#line 1 \"" SC_NVRTC_SOURCE_NAME "\"\n";

void sc_nvrtc_version(char *out, size_t cap)
{
	int major = 0, minor = 0;
	nvrtcVersion(&major, &minor);
	snprintf(out, cap, "%d.%d", major, minor);
}

void sc_compiled_release(struct sc_compiled *c)
{
	free(c->cubin);
	free(c->log);
	memset(c, 0, sizeof(*c));
}

void sc_nvrtc_parse_ptxas(struct sc_compiled *c, const char *log)
{
	const char *p;

	if ((p = strstr(log, "bytes stack frame")) != NULL) {
		const char *q = p;
		while (q > log && q[-1] != '\n' && q[-1] != '.')
			q--;
		sscanf(q, " %d", &c->stack_bytes);
		sscanf(p, "bytes stack frame, %d bytes spill stores, %d bytes spill loads",
		       &c->spill_stores, &c->spill_loads);
	}
	if ((p = strstr(log, "Used ")) != NULL) {
		const char *s;
		sscanf(p, "Used %d registers", &c->registers);
		if ((s = strstr(p, "bytes smem")) != NULL && (size_t)(s - p) < 200) {
			while (s > p && s[-1] == ' ')
				s--;
			while (s > p && s[-1] >= '0' && s[-1] <= '9')
				s--;
			sscanf(s, "%d", &c->shared_bytes);
		}
	}
}

void sc_nvrtc_filter_log(struct sc_buf *out, const char *log)
{
	static const char own[] = SC_NVRTC_SOURCE_NAME "(";
	bool keep = false;
	const char *p = log;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		bool location = len > 0 && p[0] != ' ' && p[0] != '\t';

		if (location) {
			/* A new diagnostic or summary line decides what follows. */
			if (!strncmp(p, own, sizeof(own) - 1) || !strncmp(p, "ptxas", 5))
				keep = true;
			else if (memchr(p, '(', len) && memmem(p, len, "): ", 3))
				keep = false;  /* located in another file: dropped */
			else
				keep = !strncmp(p, "Compilation terminated", 22) ||
				       (memmem(p, len, "detected in the compilation of", 30) != NULL);
		}
		if (keep && out->len + len + 1 <= SC_NVRTC_MAX_LOG) {
			sc_buf_put(out, p, len);
			sc_buf_putc(out, '\n');
		}
		if (!eol)
			break;
		p = eol + 1;
	}
	sc_buf_rtrim(out);
}

static void cache_paths(struct sc_buf *bin, struct sc_buf *meta, const char *dir, const char *key)
{
	sc_buf_printf(bin, "%s/%s.cubin", dir, key);
	sc_buf_printf(meta, "%s/%s.info", dir, key);
}

/* Reads a cached cubin and its info line ("registers spills_st spills_ld smem stack"). */
static bool cache_get(struct sc_compiled *out, const char *dir, const char *key)
{
	struct sc_buf bin = SC_BUF_INIT, meta = SC_BUF_INIT, data = SC_BUF_INIT, info = SC_BUF_INIT;
	bool ok = false;

	cache_paths(&bin, &meta, dir, key);
	if (sc_read_file(&data, bin.ptr, SC_MAX_FILE_BYTES) == 0 && data.len > 0 &&
	    sc_read_file(&info, meta.ptr, 4096) == 0 &&
	    sscanf(info.ptr, "%d %d %d %d %d", &out->registers, &out->spill_stores, &out->spill_loads,
		   &out->shared_bytes, &out->stack_bytes) == 5) {
		const char *nl = strchr(info.ptr, '\n');
		out->log = sc_xstrdup(nl ? nl + 1 : "");
		out->cubin = sc_buf_detach(&data, &out->cubin_len);
		out->ok = out->cached = true;
		ok = true;
	}
	sc_buf_release(&bin);
	sc_buf_release(&meta);
	sc_buf_release(&data);
	sc_buf_release(&info);
	sc_error_clear();
	return ok;
}

static void cache_put(const struct sc_compiled *c, const char *dir)
{
	struct sc_buf bin = SC_BUF_INIT, meta = SC_BUF_INIT, info = SC_BUF_INIT;

	if (sc_mkdir_p(dir) == 0) {
		cache_paths(&bin, &meta, dir, c->key);
		sc_buf_printf(&info, "%d %d %d %d %d\n%s", c->registers, c->spill_stores, c->spill_loads,
			      c->shared_bytes, c->stack_bytes, c->log);
		/* The cubin first: a reader needs both, and the info last. */
		if (sc_write_file_atomic(bin.ptr, c->cubin, c->cubin_len) == 0)
			sc_write_file_atomic(meta.ptr, info.ptr, info.len);
	}
	sc_error_clear();  /* a cache that cannot be written only costs time */
	sc_buf_release(&bin);
	sc_buf_release(&meta);
	sc_buf_release(&info);
}

int sc_nvrtc_compile(struct sc_compiled *out, const char *src, size_t len, const char *arch,
		     const struct sc_nvrtc_defines *defs, const char *include_dir, const char *cache_dir)
{
	struct sc_buf full = SC_BUF_INIT, opt_arch = SC_BUF_INIT, opt_inc = SC_BUF_INIT, rawlog = SC_BUF_INIT;
	struct sc_buf keybuf = SC_BUF_INIT, flog = SC_BUF_INIT;
	struct sc_buf defbuf[8];
	const char *opts[16];
	int nopts = 0, err = 0;
	nvrtcProgram prog = NULL;
	nvrtcResult r;
	size_t n;
	int64_t t0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < 8; i++)
		sc_buf_init(&defbuf[i]);
	sc_nvrtc_version(out->version, sizeof(out->version));
	sc_buf_puts(&full, sc_nvrtc_prelude);
	sc_buf_put(&full, src, len);
	sc_buf_printf(&opt_arch, "--gpu-architecture=%s", arch);
	opts[nopts++] = opt_arch.ptr;
	opts[nopts++] = "--ptxas-options=-v";
	opts[nopts++] = "--std=c++17";
	if (include_dir) {
		sc_buf_printf(&opt_inc, "--include-path=%s", include_dir);
		opts[nopts++] = opt_inc.ptr;
	}
	for (size_t i = 0; defs && i < defs->n && i < 8; i++) {
		sc_buf_printf(&defbuf[i], "-D%s=%lld", defs->name[i], defs->value[i]);
		opts[nopts++] = defbuf[i].ptr;
	}

	/* Cache key: every input of the compile. */
	sc_buf_printf(&keybuf, "nvrtc %s\n", out->version);
	for (int i = 0; i < nopts; i++)
		sc_buf_printf(&keybuf, "%s\n", opts[i] == opt_inc.ptr ? "--include-path" : opts[i]);
	sc_buf_printf(&keybuf, "%zu\n", full.len);
	sc_buf_put(&keybuf, full.ptr, full.len);
	sc_sha256_hex(out->key, keybuf.ptr, keybuf.len);
	if (cache_dir && cache_get(out, cache_dir, out->key))
		goto done;

	t0 = sc_now_ns();
	r = nvrtcCreateProgram(&prog, full.ptr, SC_NVRTC_SOURCE_NAME, 0, NULL, NULL);
	if (r != NVRTC_SUCCESS) {
		err = sc_error_set(SC_ERROR, "nvrtc: cannot create a program: %s", nvrtcGetErrorString(r));
		goto done;
	}
	r = nvrtcCompileProgram(prog, nopts, opts);
	out->ms = (double)(sc_now_ns() - t0) / 1e6;
	if (nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && n > 1) {
		sc_buf_grow(&rawlog, n);
		if (nvrtcGetProgramLog(prog, rawlog.ptr) == NVRTC_SUCCESS)
			rawlog.len = strlen(rawlog.ptr);
	}
	sc_nvrtc_filter_log(&flog, rawlog.ptr);
	out->log = sc_buf_detach(&flog, NULL);
	if (r == NVRTC_ERROR_COMPILATION)
		goto done;
	if (r != NVRTC_SUCCESS) {
		err = sc_error_set(SC_ERROR, "nvrtc: %s", nvrtcGetErrorString(r));
		goto done;
	}
	if (nvrtcGetCUBINSize(prog, &n) != NVRTC_SUCCESS || n == 0) {
		err = sc_error_set(SC_ERROR, "nvrtc: no cubin for '%s' (a virtual arch? use sm_NN)", arch);
		goto done;
	}
	out->cubin = sc_xmalloc(n);
	out->cubin_len = n;
	if (nvrtcGetCUBIN(prog, out->cubin) != NVRTC_SUCCESS) {
		err = sc_error_set(SC_ERROR, "nvrtc: cannot read the cubin");
		goto done;
	}
	sc_nvrtc_parse_ptxas(out, rawlog.ptr);
	out->ok = true;
	if (cache_dir)
		cache_put(out, cache_dir);
done:
	if (prog)
		nvrtcDestroyProgram(&prog);
	for (size_t i = 0; i < 8; i++)
		sc_buf_release(&defbuf[i]);
	sc_buf_release(&full);
	sc_buf_release(&opt_arch);
	sc_buf_release(&opt_inc);
	sc_buf_release(&rawlog);
	sc_buf_release(&keybuf);
	sc_buf_release(&flog);
	if (!out->log)
		out->log = sc_xstrdup("");
	return err;
}
