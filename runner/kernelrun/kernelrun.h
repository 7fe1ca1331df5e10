#ifndef SC_KERNELRUN_H
#define SC_KERNELRUN_H
/*
 * The orchestrator's side of kernel checks: builds a job for the worker,
 * starts one skillci-kernel per candidate in a sandbox (empty environment,
 * its own temp folder as working directory, rlimits, a wall-clock limit
 * then SIGKILL, a new network namespace where the system allows it), feeds
 * the job on stdin with a nonce drawn for this run, and reads the result
 * from a private descriptor (fd 3 in the worker). The worker's stdout and
 * stderr, where a kernel's device printf lands, are captured apart, capped,
 * and never parsed: only exactly one JSON document on fd 3 that carries the
 * nonce is believed. skillci never links NVRTC or CUDA; without a worker,
 * kernel checks are SC_ENOSYS.
 */
#include <stdbool.h>
#include <stddef.h>

#include "results/results.h"  /* enum sc_kernel_verdict */

struct sc_buf;

struct sc_kernel_job {
	const char *fixture_dir;    /* fixtures/NAME */
	const char *fixture_name;
	const char *fixture_hash;
	const char *candidate;      /* CUDA source */
	size_t candidate_len;
	bool timing;                /* time against the fixture's baseline */
	bool compile_only;
	const char *arch;           /* "sm_90" */
	const char *cache_dir;      /* cubin cache; NULL for none */
	int seeds;
	int timeout_ms;             /* per launch */
	int device;                 /* GPU index (0: the first) */
};

/*
 * Writes the job JSON (spec embedded, baseline source included, and with
 * timing the fixture's solution.cu, its strong reference, when it has one) to out.
 * With a cache folder, $SKILLCI_CACHE_KEY (a secret of the runner, when
 * set) goes in the job as the key that signs and verifies cache entries.
 */
int sc_kernel_job_json(struct sc_buf *out, const struct sc_kernel_job *job);

struct sc_kernelrun_limits {
	int wall_s;          /* killed after this (default 300) */
	int cpu_s;           /* RLIMIT_CPU (default wall_s) */
	bool limit_as;       /* RLIMIT_AS too (compile-only: the CUDA driver needs a huge address space) */
};

struct sc_kernelrun_result {
	int exit_code;       /* -1 when killed by a signal */
	int signal;
	bool timed_out;
	bool netns;          /* ran in its own network namespace */
	char nonce[33];      /* sent with the job; the result must carry it */
	struct sc_buf *result;  /* owned: what came on the result descriptor */
	struct sc_buf *out;  /* owned: stdout (device printf), capped */
	size_t out_total;    /* bytes written to stdout, kept or not */
	struct sc_buf *err;  /* owned: stderr, capped */
};

/* True when this skillci was built with the worker (CUDA found at build time). */
bool sc_kernelrun_available(void);

/* The worker binary: $SKILLCI_KERNEL_WORKER, else skillci-kernel beside this program. */
int sc_kernelrun_worker_path(struct sc_buf *out);

/*
 * Runs worker with job on stdin under the limits. Returns 0 when the worker
 * ran (whatever its outcome: see out), negative when it could not start.
 */
int sc_kernelrun(struct sc_kernelrun_result *out, const char *worker, const char *job,
		 const struct sc_kernelrun_limits *lim);
void sc_kernelrun_result_release(struct sc_kernelrun_result *r);

/*
 * The final result JSON for one run into out: the worker's result with a
 * "sandbox" section (and, when the worker wrote any, a "kernel_output"
 * section with the first bytes of its stdout) added, or, when it crashed,
 * hung or wrote no valid JSON, a synthesized result with verdict "failed"
 * and a clear reason ("timeout", "crashed"); a result channel holding
 * anything but one JSON document with the run's nonce is not believed
 * (verdict "failed", reason "bad_result").
 */
/*
 * The worker's verdict and reason (its result JSON's "verdict" and
 * "reason") as the kernel verdict of results.h: the one translation, for
 * the evaluation and `skillci kernel`. False for the worker's "error":
 * it could not check (the infrastructure's fault, no verdict).
 */
bool sc_kernelrun_verdict(enum sc_kernel_verdict *out, const char *verdict, const char *reason);

void sc_kernelrun_result_json(struct sc_buf *out, const struct sc_kernelrun_result *r,
			      const struct sc_kernelrun_limits *lim);

#endif
