/* NVRTC wrapper (nvrtc.h): compile, confined or here; the verified cubin cache. */
#include "common.h"
#include "nvrtc.h"
#include "sha256.h"

#include "confine.h"

#include <fcntl.h>
#include <nvrtc.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* The prelude every candidate gets; docs/kernels.md lists it. */
static const char sc_nvrtc_prelude[] =
	"#define INFINITY __int_as_float(0x7f800000)\n"
	"#define NAN __int_as_float(0x7fffffff)\n"
	"#define FLT_MAX 3.402823466e+38F\n"
	"#define FLT_MIN 1.175494351e-38F\n"
	"#define FLT_EPSILON 1.192092896e-07F\n"
	"#define INT_MAX 2147483647\n"
	"#define INT_MIN (-2147483647 - 1)\n"
	"#line 1 \"" SC_NVRTC_SOURCE_NAME "\"\n";

static void sc_nvrtc_version(char *out, size_t cap)
{
	int major = 0, minor = 0;
	nvrtcVersion(&major, &minor);
	snprintf(out, cap, "%d.%d", major, minor);
}

void sc_compiled_release(struct sc_compiled *c)
{
	free(c->cubin);
	free(c->ptx);
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

/* The PTX beside the cubin; its SHA-256 is the last word of the stats
 * line, which the HMAC covers. */
static void ptx_path(struct sc_buf *out, const char *dir, const char *key)
{
	sc_buf_printf(out, "%s/%s.ptx", dir, key);
}

#define CACHE_MAGIC "skillci-cubin 2"

/* SHA-256 of (key, cubin) and, with a secret, the HMAC of (key, cubin,
 * stats line, log), both as hex ("-" for no secret). */
static void cache_digests(char sum[SC_SHA256_HEX_LEN + 1], char mac[SC_SHA256_HEX_LEN + 1], const char *key,
			  const char *cubin, size_t cubin_len, const char *stats, const char *log,
			  const unsigned char *secret, size_t secret_len)
{
	struct sc_hmac_part parts[4] = { { key, strlen(key) }, { cubin, cubin_len }, { stats, strlen(stats) },
					 { log, strlen(log) } };
	unsigned char d[SC_SHA256_LEN];
	struct sc_sha256 h;
	struct sc_buf hex = SC_BUF_INIT;

	sc_sha256_init(&h);
	sc_sha256_update(&h, key, strlen(key));
	sc_sha256_update(&h, cubin, cubin_len);
	sc_sha256_final(&h, d);
	sc_hex(&hex, d, sizeof(d));
	memcpy(sum, hex.ptr, SC_SHA256_HEX_LEN + 1);
	if (secret) {
		sc_hmac_sha256(d, secret, secret_len, parts, 4);
		sc_buf_clear(&hex);
		sc_hex(&hex, d, sizeof(d));
		memcpy(mac, hex.ptr, SC_SHA256_HEX_LEN + 1);
	} else {
		snprintf(mac, SC_SHA256_HEX_LEN + 1, "-");
	}
	sc_buf_release(&hex);
}

/*
 * Reads and verifies a cached cubin. Its info file holds
 * "skillci-cubin 2 SUM MAC\nregisters spill_st spill_ld smem stack\nlog".
 * Returns true with out filled when the entry is there and verifies; when
 * it is there but does not, out->cache_note says why and false is returned
 * (the caller recompiles and overwrites it).
 */
static bool cache_get(struct sc_compiled *out, const struct sc_nvrtc_opts *o, const char *key)
{
	struct sc_buf bin = SC_BUF_INIT, meta = SC_BUF_INIT, data = SC_BUF_INIT, info = SC_BUF_INIT;
	char sum[SC_SHA256_HEX_LEN + 1] = "", mac[SC_SHA256_HEX_LEN + 1] = "";
	char want_sum[SC_SHA256_HEX_LEN + 1], want_mac[SC_SHA256_HEX_LEN + 1], stats[160];
	char ptxsum[SC_SHA256_HEX_LEN + 1] = "";
	struct sc_buf ptx = SC_BUF_INIT;
	const char *why = NULL, *nl, *nl2;
	bool ok = false;

	cache_paths(&bin, &meta, o->cache_dir, key);
	if (sc_read_file(&info, meta.ptr, SC_NVRTC_MAX_LOG + 4096) < 0 ||
	    sc_read_file(&data, bin.ptr, SC_MAX_FILE_BYTES) < 0)
		goto done;  /* not cached */
	nl = strchr(info.ptr, '\n');
	nl2 = nl ? strchr(nl + 1, '\n') : NULL;
	if (strncmp(info.ptr, CACHE_MAGIC " ", sizeof(CACHE_MAGIC)) || !nl2 ||
	    sscanf(info.ptr + sizeof(CACHE_MAGIC), "%64s %64s", sum, mac) != 2 || (size_t)(nl2 - nl - 1) >= sizeof(stats)) {
		why = "it carries no verifiable digest (written by an older skillci, or damaged)";
		goto done;
	}
	memcpy(stats, nl + 1, (size_t)(nl2 - nl - 1));
	stats[nl2 - nl - 1] = '\0';
	cache_digests(want_sum, want_mac, key, data.ptr, data.len, stats, nl2 + 1, o->cache_key, o->cache_key_len);
	if (!sc_digest_equal((const unsigned char *)sum, (const unsigned char *)want_sum, SC_SHA256_HEX_LEN))
		why = "the cubin does not match the SHA-256 recorded when it was written (the file was changed or swapped)";
	else if (o->cache_key && !strcmp(mac, "-"))
		why = "it was written without this runner's cache key";
	else if (o->cache_key && !sc_digest_equal((const unsigned char *)mac, (const unsigned char *)want_mac,
						  SC_SHA256_HEX_LEN))
		why = "its HMAC does not verify with this runner's cache key (forged, or written by another runner)";
	else if (sscanf(stats, "%d %d %d %d %d %64s", &out->registers, &out->spill_stores, &out->spill_loads,
			&out->shared_bytes, &out->stack_bytes, ptxsum) != 6)
		why = "its ptxas numbers are malformed, or it records no PTX (written by an older skillci)";
	if (!why) {
		struct sc_buf pp = SC_BUF_INIT;
		char got[SC_SHA256_HEX_LEN + 1];
		ptx_path(&pp, o->cache_dir, key);
		if (sc_read_file(&ptx, pp.ptr, SC_MAX_FILE_BYTES) < 0) {
			why = "its PTX is missing";
		} else {
			sc_sha256_hex(got, ptx.ptr, ptx.len);
			if (!sc_digest_equal((const unsigned char *)got, (const unsigned char *)ptxsum, SC_SHA256_HEX_LEN))
				why = "its PTX does not match the SHA-256 recorded when it was written";
		}
		sc_buf_release(&pp);
	}
	if (why)
		goto done;
	out->ptx = sc_buf_detach(&ptx, &out->ptx_len);
	out->log = sc_xstrdup(nl2 + 1);
	out->cubin = sc_buf_detach(&data, &out->cubin_len);
	out->ok = out->cached = true;
	ok = true;
done:
	if (why) {
		snprintf(out->cache_note, sizeof(out->cache_note), "cached cubin %.12s rejected: %s; recompiled", key, why);
		sc_log(SC_LOG_WARN, "%s", out->cache_note);
	}
	sc_buf_release(&bin);
	sc_buf_release(&meta);
	sc_buf_release(&data);
	sc_buf_release(&info);
	sc_buf_release(&ptx);
	sc_error_clear();
	return ok;
}

static void cache_put(const struct sc_compiled *c, const struct sc_nvrtc_opts *o)
{
	struct sc_buf bin = SC_BUF_INIT, meta = SC_BUF_INIT, info = SC_BUF_INIT, stats = SC_BUF_INIT;
	char sum[SC_SHA256_HEX_LEN + 1], mac[SC_SHA256_HEX_LEN + 1];

	if (sc_mkdir_p(o->cache_dir) == 0) {
		cache_paths(&bin, &meta, o->cache_dir, c->key);
		char ptxsum[SC_SHA256_HEX_LEN + 1];
		struct sc_buf pp = SC_BUF_INIT;
		sc_sha256_hex(ptxsum, c->ptx ? c->ptx : "", c->ptx_len);
		sc_buf_printf(&stats, "%d %d %d %d %d %s", c->registers, c->spill_stores, c->spill_loads,
			      c->shared_bytes, c->stack_bytes, ptxsum);
		ptx_path(&pp, o->cache_dir, c->key);
		sc_write_file_atomic(pp.ptr, c->ptx ? c->ptx : "", c->ptx_len);
		sc_buf_release(&pp);
		cache_digests(sum, mac, c->key, c->cubin, c->cubin_len, stats.ptr, c->log, o->cache_key,
			      o->cache_key_len);
		sc_buf_printf(&info, CACHE_MAGIC " %s %s\n%s\n%s", sum, mac, stats.ptr, c->log);
		/* The cubin first: a reader needs both, and the info last. */
		if (sc_write_file_atomic(bin.ptr, c->cubin, c->cubin_len) == 0)
			sc_write_file_atomic(meta.ptr, info.ptr, info.len);
	}
	sc_error_clear();  /* a cache that cannot be written only costs time */
	sc_buf_release(&bin);
	sc_buf_release(&meta);
	sc_buf_release(&info);
	sc_buf_release(&stats);
}

/*
 * Runs NVRTC here on full (prelude + source) with opts: fills out's cubin,
 * filtered log, ptxas numbers, ok and ms. Returns negative only when NVRTC
 * itself fails.
 */
static int compile_here(struct sc_compiled *out, const char *full, const char **opts, int nopts, const char *arch)
{
	struct sc_buf rawlog = SC_BUF_INIT, flog = SC_BUF_INIT;
	nvrtcProgram prog = NULL;
	nvrtcResult r;
	size_t n;
	int64_t t0 = sc_now_ns();
	int err = 0;

	r = nvrtcCreateProgram(&prog, full, SC_NVRTC_SOURCE_NAME, 0, NULL, NULL);
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
	free(out->log);
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
	if (nvrtcGetPTXSize(prog, &n) == NVRTC_SUCCESS && n > 0) {
		out->ptx = sc_xcalloc(n + 1, 1);
		if (nvrtcGetPTX(prog, out->ptx) != NVRTC_SUCCESS) {
			err = sc_error_set(SC_ERROR, "nvrtc: cannot read the PTX");
			goto done;
		}
		out->ptx_len = strlen(out->ptx);
	}
	sc_nvrtc_parse_ptxas(out, rawlog.ptr);
	out->ok = true;
done:
	if (prog)
		nvrtcDestroyProgram(&prog);
	sc_buf_release(&rawlog);
	sc_buf_release(&flog);
	return err;
}

/* What the jailed child sends back: this header, the cubin, the log, the
 * error message (each as long as the header says). */
struct wire {
	int status;        /* 0 compiled (or a compile error), 1 NVRTC failed, 2 no jail */
	int ok, registers, spill_stores, spill_loads, shared_bytes, stack_bytes;
	double ms;
	uint64_t cubin_len, log_len, msg_len, ptx_len;
};

static int write_all(int fd, const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t w = write(fd, c, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		n -= (size_t)w;
	}
	return 0;
}

static int read_all(int fd, void *p, size_t n)
{
	char *c = p;
	while (n) {
		ssize_t r = read(fd, c, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		c += r;
		n -= (size_t)r;
	}
	return 0;
}

/* The jailed child: enter the jail, compile, send the outcome, exit. */
static _Noreturn void confined_child(int fd, const char *full, const char **opts, int nopts, const char *arch,
				     const char *include_dir)
{
	struct sc_compiled c;
	struct wire w;
	const char *msg = "";
	const char *dirs[1] = { include_dir };
	int err;

	memset(&c, 0, sizeof(c));
	memset(&w, 0, sizeof(w));
	if ((err = sc_confine_enter(dirs, 1)) < 0) {
		w.status = 2;
		msg = sc_error_last();
	} else if ((err = compile_here(&c, full, opts, nopts, arch)) < 0) {
		w.status = 1;
		msg = sc_error_last();
	}
	w.ok = c.ok;
	w.registers = c.registers;
	w.spill_stores = c.spill_stores;
	w.spill_loads = c.spill_loads;
	w.shared_bytes = c.shared_bytes;
	w.stack_bytes = c.stack_bytes;
	w.ms = c.ms;
	w.cubin_len = c.cubin_len;
	w.log_len = c.log ? strlen(c.log) : 0;
	w.msg_len = strlen(msg);
	w.ptx_len = c.ptx_len;
	if (write_all(fd, &w, sizeof(w)) < 0 || write_all(fd, c.cubin, c.cubin_len) < 0 ||
	    write_all(fd, c.ptx, c.ptx_len) < 0 ||
	    write_all(fd, c.log, (size_t)w.log_len) < 0 || write_all(fd, msg, (size_t)w.msg_len) < 0)
		_exit(3);
	_exit(0);
}

/*
 * NVRTC loads its builtins library (libnvrtc-builtins) by path on the
 * first compile; in the jail that path does not exist. One trivial compile
 * here, before the first fork, loads it for every child to inherit.
 */
static void preload_builtins(const char *arch)
{
	static bool done;
	static const char src[] = "extern \"C\" __global__ void skillci_preload(void) {}\n";
	struct sc_buf opt = SC_BUF_INIT;
	const char *opts[1];
	nvrtcProgram prog = NULL;

	if (done)
		return;
	done = true;
	sc_buf_printf(&opt, "--gpu-architecture=%s", arch);
	opts[0] = opt.ptr;
	if (nvrtcCreateProgram(&prog, src, "preload.cu", 0, NULL, NULL) == NVRTC_SUCCESS) {
		(void)nvrtcCompileProgram(prog, 1, opts);
		nvrtcDestroyProgram(&prog);
	}
	sc_buf_release(&opt);
}

/*
 * Compiles in a forked child jailed by sc_confine_enter(). Returns 0 with
 * out filled; SC_ENOSYS (nothing filled, out->confine_why set) when the
 * jail cannot be made here; other negatives when NVRTC failed or the
 * child died.
 */
static int compile_confined(struct sc_compiled *out, const char *full, const char **opts, int nopts,
			    const char *arch, const char *include_dir)
{
	struct wire w;
	int fds[2], status = 0, err = 0;
	char *msg = NULL;
	pid_t pid;

	preload_builtins(arch);
	if (pipe2(fds, O_CLOEXEC) < 0)
		return sc_error_set(SC_EIO, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return sc_error_set(SC_EIO, "fork: %s", strerror(errno));
	}
	if (pid == 0) {
		close(fds[0]);
		confined_child(fds[1], full, opts, nopts, arch, include_dir);
	}
	close(fds[1]);
	memset(&w, 0, sizeof(w));
	if (read_all(fds[0], &w, sizeof(w)) < 0 || w.cubin_len > SC_MAX_FILE_BYTES ||
	    w.log_len > SC_NVRTC_MAX_LOG * 2 || w.msg_len > 4096 || w.ptx_len > SC_MAX_FILE_BYTES) {
		err = SC_ERROR;
	} else {
		out->cubin = w.cubin_len ? sc_xmalloc((size_t)w.cubin_len) : NULL;
		out->cubin_len = (size_t)w.cubin_len;
		out->ptx = sc_xcalloc((size_t)w.ptx_len + 1, 1);
		out->ptx_len = (size_t)w.ptx_len;
		free(out->log);
		out->log = sc_xcalloc((size_t)w.log_len + 1, 1);
		msg = sc_xcalloc((size_t)w.msg_len + 1, 1);
		if (read_all(fds[0], out->cubin, out->cubin_len) < 0 || read_all(fds[0], out->ptx, out->ptx_len) < 0 ||
		    read_all(fds[0], out->log, (size_t)w.log_len) < 0 ||
		    read_all(fds[0], msg, (size_t)w.msg_len) < 0)
			err = SC_ERROR;
	}
	close(fds[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (err < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		err = sc_error_set(SC_ERROR, "nvrtc: the confined compiler died (%s %d)",
				   WIFSIGNALED(status) ? "signal" : "status",
				   WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	} else if (w.status == 2) {
		snprintf(out->confine_why, sizeof(out->confine_why), "%s", msg);
		err = SC_ENOSYS;
	} else if (w.status == 1) {
		err = sc_error_set(SC_ERROR, "%s", msg);
	} else {
		out->ok = w.ok;
		out->registers = w.registers;
		out->spill_stores = w.spill_stores;
		out->spill_loads = w.spill_loads;
		out->shared_bytes = w.shared_bytes;
		out->stack_bytes = w.stack_bytes;
		out->ms = w.ms;
		out->confined = true;
	}
	if (err < 0) {
		free(out->cubin);
		out->cubin = NULL;
		out->cubin_len = 0;
		free(out->ptx);
		out->ptx = NULL;
		out->ptx_len = 0;
		out->ok = false;
	}
	free(msg);
	return err;
}

int sc_nvrtc_compile(struct sc_compiled *out, const char *src, size_t len, const struct sc_nvrtc_opts *o)
{
	struct sc_buf full = SC_BUF_INIT, opt_arch = SC_BUF_INIT, opt_inc = SC_BUF_INIT, keybuf = SC_BUF_INIT;
	struct sc_buf defbuf[8];
	const char *opts[16];
	int nopts = 0, err = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < 8; i++)
		sc_buf_init(&defbuf[i]);
	sc_nvrtc_version(out->version, sizeof(out->version));
	sc_buf_puts(&full, sc_nvrtc_prelude);
	sc_buf_put(&full, src, len);
	sc_buf_printf(&opt_arch, "--gpu-architecture=%s", o->arch);
	opts[nopts++] = opt_arch.ptr;
	opts[nopts++] = "--ptxas-options=-v";
	opts[nopts++] = "--std=c++17";
	if (o->include_dir) {
		sc_buf_printf(&opt_inc, "--include-path=%s", o->include_dir);
		opts[nopts++] = opt_inc.ptr;
	}
	for (size_t i = 0; o->defs && i < o->defs->n && i < 8; i++) {
		sc_buf_printf(&defbuf[i], "-D%s=%lld", o->defs->name[i], o->defs->value[i]);
		opts[nopts++] = defbuf[i].ptr;
	}

	/* Cache key: every input of the compile. */
	sc_buf_printf(&keybuf, "nvrtc %s\n", out->version);
	for (int i = 0; i < nopts; i++)
		sc_buf_printf(&keybuf, "%s\n", opts[i] == opt_inc.ptr ? "--include-path" : opts[i]);
	sc_buf_printf(&keybuf, "%zu\n", full.len);
	sc_buf_put(&keybuf, full.ptr, full.len);
	sc_sha256_hex(out->key, keybuf.ptr, keybuf.len);
	if (o->cache_dir && cache_get(out, o, out->key))
		goto done;

	if (o->confine) {
		err = compile_confined(out, full.ptr, opts, nopts, o->arch, o->include_dir);
		if (err == SC_ENOSYS) {
			sc_log(SC_LOG_WARN, "compiling without a jail: %s", out->confine_why);
			sc_error_clear();
			err = compile_here(out, full.ptr, opts, nopts, o->arch);
		}
	} else {
		snprintf(out->confine_why, sizeof(out->confine_why), "not asked for");
		err = compile_here(out, full.ptr, opts, nopts, o->arch);
	}
	if (err == 0 && out->ok && o->cache_dir)
		cache_put(out, o);
done:
	for (size_t i = 0; i < 8; i++)
		sc_buf_release(&defbuf[i]);
	sc_buf_release(&full);
	sc_buf_release(&opt_arch);
	sc_buf_release(&opt_inc);
	sc_buf_release(&keybuf);
	if (!out->log)
		out->log = sc_xstrdup("");
	return err;
}
