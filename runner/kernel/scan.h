#ifndef SC_KERNEL_SCAN_H
#define SC_KERNEL_SCAN_H
/*
 * The static scan of a candidate's CUDA source, run before anything is
 * compiled, over the source as the C++17 preprocessor tokenizes it (raw
 * strings, line splices, digit separators, digraphs). Refusals
 * ("include_refused"): any #include (or #include_next, #import, #embed,
 * computed `#include MACRO`, digraph/trigraph spellings) other than
 * <cuda_fp16.h>, <cuda_bf16.h> and <mma.h>, __has_include/__has_embed however
 * spelled (token pasting too), a pragma naming an include — NVRTC would
 * open the file, quote it or say whether it exists. Refusals
 * ("source_refused"): #line and line markers (they hide the candidate's own
 * diagnostics), and what cannot be read for sure (a malformed raw string,
 * a splice inside one, a NUL byte). Flags: stream creation, host/device
 * heap allocation, printf, file-scope __device__ state (static caches),
 * precision downcasts to half/bf16 on an fp32 fixture, inline PTX, clock
 * reads.
 */
#include <stdbool.h>
#include <stddef.h>

enum sc_scan_severity { SC_SCAN_WARN, SC_SCAN_ERROR };

struct sc_scan_flag {
	const char *kind;   /* "stream_creation", "host_allocation", ... (static) */
	enum sc_scan_severity severity;
	size_t line;        /* in the source, or (from_ptx) in the PTX */
	bool from_ptx;      /* found in the PTX NVRTC produced */
	char text[160];     /* the candidate's own line (or the PTX line), trimmed */
};

#define SC_SCAN_MAX_FLAGS 32

struct sc_scan {
	struct sc_scan_flag flags[SC_SCAN_MAX_FLAGS];
	size_t nflags;
	const char *refusal;  /* on SC_EUNSAFE: "include_refused" or "source_refused" (static) */
};

/*
 * Scans src. Returns 0 with flags in *out, or SC_EUNSAFE ("line 3:
 * #include \"/etc/passwd\" is not allowed; only <cuda_fp16.h>,
 * <cuda_bf16.h> and <mma.h> may be included") for a refused include. fp32
 * says the fixture is fp32 (half/bf16/tf32/WMMA use is then an error flag).
 */
int sc_scan_source(struct sc_scan *out, const char *src, size_t len, bool fp32);

/* The scan of the PTX NVRTC produced: ptx.h. */

#endif
