#ifndef SC_KERNEL_NVRTC_H
#define SC_KERNEL_NVRTC_H
/*
 * The NVRTC wrapper (the only file that includes nvrtc.h): compiles a
 * candidate's CUDA source to a cubin for one arch with skillci's prelude
 * and the tunables as macros, keeps the log (filtered to the candidate's
 * own lines), parses ptxas' register/spill/shared-memory report, and caches
 * cubins on disk by SHA-256 of (source, options, arch, NVRTC version).
 *
 * Confined compiles run NVRTC in a child process jailed by confine.h, so
 * the compiler cannot open any host file but the toolkit's include folder.
 * Cache entries are verified before use: each records the SHA-256 of (key,
 * cubin) and, when a cache key (a secret) is given, an HMAC over (key,
 * cubin, ptxas numbers, log); an entry that fails is recompiled and
 * rewritten, and the result says so.
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_buf;

#define SC_NVRTC_SOURCE_NAME "candidate.cu"
#define SC_NVRTC_MAX_LOG (64 * 1024)

struct sc_nvrtc_defines {
	const char *name[8];
	long long value[8];
	size_t n;
};

struct sc_compiled {
	bool ok;
	bool confined;         /* NVRTC ran in the jail */
	char confine_why[256]; /* why not, when it did not */
	char cache_note[256];  /* "" or why a cached entry was rejected */
	char *cubin;           /* owned */
	size_t cubin_len;
	char *ptx;             /* owned, NUL-terminated: the PTX NVRTC produced (the scan reads it) */
	size_t ptx_len;
	char *log;             /* owned; compiler messages about the candidate only */
	int registers, spill_stores, spill_loads, shared_bytes, stack_bytes;
	bool cached;
	double ms;             /* compile time; 0 when cached */
	char key[65];          /* cache key */
	char version[16];      /* NVRTC version "13.0" */
};

struct sc_nvrtc_opts {
	const char *arch;                     /* "sm_90" */
	const struct sc_nvrtc_defines *defs;  /* tunables; may be NULL */
	const char *include_dir;              /* toolkit include folder, or NULL */
	const char *cache_dir;                /* NULL: no cache */
	const unsigned char *cache_key;       /* HMAC key for cache entries; NULL: SHA-256 only */
	size_t cache_key_len;
	bool confine;                         /* jail NVRTC (falls back, saying why, where not permitted) */
};

/*
 * Compiles src with o (the include folder is for <cuda_fp16.h>,
 * <cuda_bf16.h>, <mma.h> and the toolkit headers they include; the scan
 * has refused every other include). A compile error is not a failure of
 * this function: it returns 0 with out->ok false and the log. Returns
 * negative only when NVRTC itself fails.
 */
int sc_nvrtc_compile(struct sc_compiled *out, const char *src, size_t len, const struct sc_nvrtc_opts *o);
void sc_compiled_release(struct sc_compiled *c);

/* Parses ptxas -v lines of log into c's registers/spills/shared fields. */
void sc_nvrtc_parse_ptxas(struct sc_compiled *c, const char *log);
/* Keeps only the diagnostics located in the candidate ("candidate.cu(12): ...")
 * and their quoted lines, plus ptxas info, appended to out. */
void sc_nvrtc_filter_log(struct sc_buf *out, const char *log);

#endif
