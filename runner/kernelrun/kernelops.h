#ifndef SC_KERNELOPS_H
#define SC_KERNELOPS_H
/*
 * The kernel harness as the evaluation core needs it (struct
 * sc_eval_kernel_ops in eval.h), backed by the fixtures folder and the
 * sandboxed kernel worker: extraction, compile and (with a GPU) checks
 * and timing, the fixture's reference solution for the oracle, and the
 * pinned fixture hash. Thread-safe once set up: each check runs its own
 * worker process.
 *
 * Ownership: struct sc_kernelops owns the fixture list and the worker
 * path; fixtures_dir and arch are borrowed and must outlive it.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#include "buf.h"
#include "limits.h"
#include "eval/eval.h"
#include "kernelrun/fixture.h"

struct sc_test_set;

struct sc_kernelops {
	struct sc_eval_kernel_ops ops;
	struct sc_fixture_list fixtures;
	const char *fixtures_dir;
	struct sc_buf worker;
	const char *arch;
	char cache[4096];     /* absolute: the worker runs in its own folder */
	bool compile_only;    /* asked for, even with a GPU */
	bool gpu;             /* a GPU is there and may be used */
	int wall_s;
	char lock_hash[65];   /* SHA-256 of fixtures.lock, "" when none */
	pthread_mutex_t lock; /* guards what the checks record below */
	char gpu_name[128];   /* the first GPU a worker reported */
	char gpu_driver[32];
	int ngpus;            /* GPUs the checks share out (at least 1) */
	int busy[SC_MAX_JOBS];/* checks running on each GPU, under lock */
};

struct sc_results_run;

/* Fills the settings; allocates nothing. */
void sc_kernelops_init(struct sc_kernelops *k, const char *fixtures_dir, const char *arch,
		       bool compile_only, int wall_s);
/*
 * When any test of sets is a kernel test: lists the fixtures, checks that
 * each one named exists and is pinned (unless allow_unpinned) and finds
 * the worker; *use then points at k->ops. *use is NULL when there is no
 * kernel test or this build has no CUDA (kernel tests are then skipped
 * with a reason). SC_EINVAL naming the test for a missing or unpinned
 * fixture.
 */
int sc_kernelops_setup(struct sc_kernelops *k, const struct sc_eval_kernel_ops **use,
		       const struct sc_test_set *const *sets, size_t nsets, bool allow_unpinned);
/*
 * The same for callers that know fixture names rather than tests
 * (`generate`, whose tests are written later): each named fixture must
 * exist and be pinned; with no names, every fixture in the folder may be
 * picked, so each must be pinned, and a missing fixtures folder leaves
 * *use NULL (a task with no kernels).
 */
int sc_kernelops_setup_names(struct sc_kernelops *k, const struct sc_eval_kernel_ops **use,
			     const char *const *names, size_t nnames, bool allow_unpinned);
/*
 * Records in run what results are compared on: the fixtures.lock hash and
 * the GPU (name, driver, arch) the workers used, when kernel tests ran.
 * Fields already set are kept.
 */
void sc_kernelops_describe(struct sc_kernelops *k, struct sc_results_run *run);
/*
 * How many kernel checks to run at once by default: one per GPU when the
 * checks use the GPU (timings must not share a device), else (compile-only)
 * one per CPU, since NVRTC compiles on the CPU; at most SC_MAX_JOBS.
 */
int sc_kernelops_default_jobs(const struct sc_kernelops *k);
void sc_kernelops_release(struct sc_kernelops *k);

#endif
