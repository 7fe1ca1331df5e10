#ifndef SC_KERNEL_SCAN_H
#define SC_KERNEL_SCAN_H
/*
 * The static scan of a candidate's CUDA source, run before anything is
 * compiled. Refusals: any #include (or #include_next, #import, #embed,
 * __has_include, computed `#include MACRO`, digraph/trigraph spellings)
 * other than <cuda_fp16.h> and <cuda_bf16.h> — NVRTC would open the file
 * and quote it in its log. Flags: stream creation, host/device heap
 * allocation, printf, file-scope __device__ state (static caches), precision
 * downcasts to half/bf16 on an fp32 fixture, inline PTX, clock reads.
 */
#include <stdbool.h>
#include <stddef.h>

enum sc_scan_severity { SC_SCAN_WARN, SC_SCAN_ERROR };

struct sc_scan_flag {
	const char *kind;   /* "stream_creation", "host_allocation", ... (static) */
	enum sc_scan_severity severity;
	size_t line;
	char text[160];     /* the candidate's own line, trimmed */
};

#define SC_SCAN_MAX_FLAGS 32

struct sc_scan {
	struct sc_scan_flag flags[SC_SCAN_MAX_FLAGS];
	size_t nflags;
};

/*
 * Scans src. Returns 0 with flags in *out, or SC_EUNSAFE ("line 3:
 * #include \"/etc/passwd\" is not allowed; only <cuda_fp16.h> and
 * <cuda_bf16.h> may be included") for a refused include. fp32 says the
 * fixture is fp32 (half/bf16 use is then an error flag).
 */
int sc_scan_source(struct sc_scan *out, const char *src, size_t len, bool fp32);

#endif
