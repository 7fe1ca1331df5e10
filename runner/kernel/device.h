#ifndef SC_KERNEL_DEVICE_H
#define SC_KERNEL_DEVICE_H
/*
 * The device layer: what the harness needs from a GPU (allocate, copy,
 * launch, synchronize, time). Two implementations: the CUDA driver API
 * loaded with dlopen (device_cuda.c) and a CPU test double that runs C
 * functions as "kernels" (device_cpu.c), so the harness is tested without
 * a GPU. Device addresses are uint64_t (CUdeviceptr on CUDA). A struct
 * sc_device is owned by whoever opened it and closed with ->close().
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
	double peak_gbps;         /* DRAM bandwidth, 0 when unknown */
	double peak_gflops;       /* fp32, 0 when unknown */
};

struct sc_device {
	const char *kind;  /* "cuda" or "cpu" */
	struct sc_device_info info;
	void *impl;
	/* Loads a module image (cubin on CUDA, a registered name on the CPU
	 * double) and returns the entry's function handle in *fn. */
	int (*load)(struct sc_device *d, const void *image, size_t len, const char *entry, uint64_t *fn);
	int (*alloc)(struct sc_device *d, uint64_t *out, size_t bytes);
	void (*free)(struct sc_device *d, uint64_t ptr);
	int (*htod)(struct sc_device *d, uint64_t dst, const void *src, size_t bytes);
	int (*dtoh)(struct sc_device *d, void *dst, uint64_t src, size_t bytes);
	int (*memset32)(struct sc_device *d, uint64_t dst, uint32_t value, size_t count);
	/* params: as cuLaunchKernel's kernelParams (each points at the value). */
	int (*launch)(struct sc_device *d, uint64_t fn, const unsigned grid[3], const unsigned block[3],
		      unsigned shared_bytes, void **params);
	/* Waits for all work; fails with SC_EGPU after timeout_ms (the device
	 * is then unusable) or when a kernel faulted. */
	int (*sync)(struct sc_device *d, int timeout_ms);
	/* Events: record now on the default stream; elapsed ms between two. */
	int (*event_record)(struct sc_device *d, int slot);
	int (*event_elapsed)(struct sc_device *d, int from, int to, double *ms);
	/* Resets persisting L2 lines (no-op where unsupported). */
	int (*reset_l2)(struct sc_device *d);
	/* Host clock used for the cross-check, in ns. */
	int64_t (*host_ns)(struct sc_device *d);
	void (*close)(struct sc_device *d);
};

#define SC_DEVICE_EVENTS 4

/*
 * Opens GPU 0 through libcuda.so.1. Returns 0 and a device, SC_ENOSYS when
 * there is no driver or no GPU ("no GPU: compile-only ..."), or SC_EGPU.
 */
int sc_device_cuda_open(struct sc_device **out);

/*
 * The CPU double. A kernel is a C function called once per (block, thread)
 * with the launch coordinates; its virtual cost advances the double's
 * clock: event_ns is what events see, hidden_ns is work events do not see
 * (a side stream), which only the host clock at sync shows.
 */
struct sc_cpu_thread {
	unsigned grid[3], block[3];
	unsigned bid[3], tid[3];
	unsigned launch_index;  /* launches of this kernel so far */
};
typedef void (*sc_cpu_kernel_fn)(const struct sc_cpu_thread *t, void **params);
/* Virtual cost of one launch in ns, from its params and launch count. */
typedef int64_t (*sc_cpu_cost_fn)(void **params, unsigned launch_index);

struct sc_device *sc_device_cpu_new(void);
/* Registers fn under name (borrowed) for ->load(). cost may be NULL (0 ns). */
void sc_device_cpu_register(struct sc_device *d, const char *name, sc_cpu_kernel_fn fn,
			    sc_cpu_cost_fn cost, int64_t hidden_ns);

#endif
