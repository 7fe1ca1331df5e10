#ifndef SC_KERNEL_DEVICE_H
#define SC_KERNEL_DEVICE_H
/*
 * The device layer: what the harness needs from a GPU (allocate, copy,
 * launch, synchronize, time). Two implementations: the CUDA driver API
 * loaded with dlopen (device_cuda.c) and a CPU test double that runs C
 * functions as "kernels" (device_cpu.c), so the harness is tested without
 * a GPU. Device addresses are uint64_t (CUdeviceptr on CUDA). A struct
 * sc_device is owned by whoever opened it and closed with ->close().
 *
 * Launches, memsets and event records are queued on one stream and return
 * at once; only event_wait, sync and the copies wait. A timed interval is
 * therefore: record, launch(es), record, then event_wait on the end event,
 * so no host activity falls between the two events.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_device_info {
	char name[128];
	int driver_version;       /* e.g. 13000 */
	int cc_major, cc_minor;   /* compute capability */
	int sm_count;
	int64_t l2_bytes;
	int64_t mem_bytes;
	int clock_khz;            /* SM clock the driver reports, 0 when unknown */
	double peak_gbps;         /* DRAM bandwidth, 0 when unknown */
	double peak_gflops;       /* fp32 on CUDA cores, 0 when unknown */
	double peak_tc_gflops;    /* dense TF32 on tensor cores, 0 when none */
	double peak_tc16_gflops;  /* dense bf16/fp16 on tensor cores (fp32 accumulate), 0 when none */
};

struct sc_device {
	const char *kind;  /* "cuda" or "cpu" */
	struct sc_device_info info;
	void *impl;
	/* Loads a module image (cubin on CUDA, a registered name on the CPU
	 * double) and returns the entry's function handle in *fn. Every call
	 * loads a new module: its __device__ variables start afresh. */
	int (*load)(struct sc_device *d, const void *image, size_t len, const char *entry, uint64_t *fn);
	int (*alloc)(struct sc_device *d, uint64_t *out, size_t bytes);
	void (*free)(struct sc_device *d, uint64_t ptr);
	int (*htod)(struct sc_device *d, uint64_t dst, const void *src, size_t bytes);
	int (*dtoh)(struct sc_device *d, void *dst, uint64_t src, size_t bytes);
	int (*memset32)(struct sc_device *d, uint64_t dst, uint32_t value, size_t count);
	/* Queues the counter-based generator (gen.h) over n elements of
	 * dtype (enum sc_dtype) at dst: distribution kind (enum
	 * sc_dist_kind) with parameters a, b, element i from (seed, i). On
	 * CUDA a kernel in this context (no host copy) once the generator is
	 * loaded (sc_device_cuda_set_generator), else generated on the host
	 * and copied. */
	int (*fill)(struct sc_device *d, uint64_t dst, int dtype, size_t n, int kind, double a, double b,
		    uint64_t seed);
	/* params: as cuLaunchKernel's kernelParams (each points at the value). */
	int (*launch)(struct sc_device *d, uint64_t fn, const unsigned grid[3], const unsigned block[3],
		      unsigned shared_bytes, void **params);
	/* Waits for all work; fails with SC_EGPU after timeout_ms (the device
	 * is then unusable) or when a kernel faulted. */
	int (*sync)(struct sc_device *d, int timeout_ms);
	/* Events: queue a record on the stream; elapsed ms between two. */
	int (*event_record)(struct sc_device *d, int slot);
	int (*event_elapsed)(struct sc_device *d, int from, int to, double *ms);
	/* Waits until the event in slot (recorded earlier) has passed, polling
	 * only that event, with a deadline; then waits for the whole context
	 * (work on other streams, faults). Fails as sync does. */
	int (*event_wait)(struct sc_device *d, int slot, int timeout_ms);
	/* Opens another handle on the same GPU in a context of its own, with
	 * its own address space: the baseline runs there, where a candidate's
	 * kernel cannot read or write its buffers. */
	int (*open_sibling)(struct sc_device *d, struct sc_device **out);
	/* Resets persisting L2 lines (no-op where unsupported). */
	int (*reset_l2)(struct sc_device *d);
	/* Host clock used for the cross-check, in ns. */
	int64_t (*host_ns)(struct sc_device *d);
	/*
	 * The vendor library's GEMM, queued on the stream like a launch (the
	 * strong reference of strong.h): C (m x n) = A (m x k) * B, B k x n,
	 * or * B^T when b_nk (B n x k), row-major bfloat16, float32
	 * accumulation. NULL where the device has no such library. On CUDA
	 * it is cuBLAS (cublasGemmEx), loaded at the first call: a toolkit
	 * without it is SC_ENOSYS naming what was tried. lib_name says what
	 * ran once a call succeeded.
	 */
	int (*lib_gemm_bf16)(struct sc_device *d, bool b_nk, int m, int n, int k, uint64_t a, uint64_t b, uint64_t c);
	char lib_name[128];
	void (*close)(struct sc_device *d);
};

#define SC_DEVICE_EVENTS 4  /* slots: 0 span start, 1 kernel start, 2 kernel end */

/*
 * Opens GPU 0 through libcuda.so.1. Returns 0 and a device, SC_ENOSYS when
 * there is no driver or no GPU ("no GPU: compile-only ..."), or SC_EGPU.
 */
int sc_device_cuda_open(struct sc_device **out);
/* The same for GPU index (0-based, in the driver's order); an index the
 * machine does not have is SC_EGPU naming the count. */
int sc_device_cuda_open_index(struct sc_device **out, int index);
/* Loads the input generator (image: a cubin of gen.h's sc_gen_cuda_source)
 * into d's context, and into every sibling opened from d afterwards; the
 * image is copied. Without it ->fill generates on the host. */
int sc_device_cuda_set_generator(struct sc_device *d, const void *image, size_t len);

/*
 * The CPU double. A kernel is a C function called once per (block, thread)
 * with the launch coordinates; its virtual cost advances the double's
 * clock: event_ns is what events see, hidden_ns is work events do not see
 * (a side stream), which only the host clock at sync shows.
 */
struct sc_cpu_thread {
	unsigned grid[3], block[3];
	unsigned bid[3], tid[3];
	unsigned launch_index;  /* launches of this loaded module so far (a __device__ counter) */
	unsigned load_index;    /* how many times this kernel was loaded before (0 first) */
};
typedef void (*sc_cpu_kernel_fn)(const struct sc_cpu_thread *t, void **params);
/* Virtual cost of one launch in ns, from its params and launch count. */
typedef int64_t (*sc_cpu_cost_fn)(void **params, unsigned launch_index);

struct sc_device *sc_device_cpu_new(void);
/* Registers fn under name (borrowed) for ->load(). cost may be NULL (0 ns). */
void sc_device_cpu_register(struct sc_device *d, const char *name, sc_cpu_kernel_fn fn,
			    sc_cpu_cost_fn cost, int64_t hidden_ns);
/*
 * For tests of the harness's protocol: every operation appends a word to
 * a log ("alloc", "htod", "dtoh", "memset", "load:NAME", "launch:NAME",
 * "rec:SLOT", "wait:SLOT", "sync", "elapsed"), separated by spaces; the
 * log of d (owned by d) is returned. launch_ns is host time each launch
 * call takes (0 by default: launches are queued at no host cost).
 */
const char *sc_device_cpu_log(struct sc_device *d);
void sc_device_cpu_set_launch_ns(struct sc_device *d, int64_t launch_ns);
/* Called by a kernel of the double while it runs: the launch faulted
 * (what: "an illegal instruction (trap)"). From then on every operation
 * of that device fails with SC_EGPU naming it, as a CUDA context after a
 * fault. */
void sc_device_cpu_fault(const char *what);
/* True when ptr lies inside an allocation d made and has not freed. */
bool sc_device_cpu_owns(struct sc_device *d, uint64_t ptr);
/* The double's "library" GEMM (->lib_gemm_bf16, on by default and in
 * siblings): a plain loop in float32 whose virtual cost is ns_per_gflop
 * per 10^9 flops (2mnk); ns_per_gflop < 0 removes it (a device without a
 * library). */
void sc_device_cpu_set_library(struct sc_device *d, int64_t ns_per_gflop);

#endif
