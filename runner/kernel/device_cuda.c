/*
 * The CUDA driver implementation of the device layer. libcuda.so.1 is
 * loaded with dlopen so the worker runs compile-only where there is no
 * driver; the few driver types and entry points used are declared here
 * (cuda.h is not included, so the worker builds with only nvrtc.h), with
 * the ABI of the versioned symbols (_v2) the driver exports.
 */
#include "common.h"
#include "device.h"
#include "cublas.h"
#include "gen.h"
#include "half.h"

#include <dlfcn.h>
#include <time.h>

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUevent_st *CUevent;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_NOT_READY 600
#define ATTR_CLOCK_RATE 13
#define ATTR_SM_COUNT 16
#define ATTR_MEM_CLOCK 36
#define ATTR_BUS_WIDTH 37
#define ATTR_L2_SIZE 38
#define ATTR_CC_MAJOR 75
#define ATTR_CC_MINOR 76

struct cuda_api {
	CUresult (*Init)(unsigned);
	CUresult (*DriverGetVersion)(int *);
	CUresult (*DeviceGetCount)(int *);
	CUresult (*DeviceGet)(CUdevice *, int);
	CUresult (*DeviceGetName)(char *, int, CUdevice);
	CUresult (*DeviceGetAttribute)(int *, int, CUdevice);
	CUresult (*DeviceTotalMem)(size_t *, CUdevice);
	CUresult (*PrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*PrimaryCtxRelease)(CUdevice);
	CUresult (*CtxSetCurrent)(CUcontext);
	CUresult (*CtxCreate)(CUcontext *, unsigned, CUdevice);
	CUresult (*CtxCreate4)(CUcontext *, void *, unsigned, CUdevice);
	CUresult (*CtxDestroy)(CUcontext);
	CUresult (*CtxSynchronize)(void);
	CUresult (*CtxResetPersistingL2Cache)(void);
	CUresult (*ModuleLoadData)(CUmodule *, const void *);
	CUresult (*ModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*MemAlloc)(CUdeviceptr *, size_t);
	CUresult (*MemFree)(CUdeviceptr);
	CUresult (*MemcpyHtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*MemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*MemsetD32)(CUdeviceptr, unsigned, size_t);
	CUresult (*MemsetD32Async)(CUdeviceptr, unsigned, size_t, CUstream);
	CUresult (*LaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
				 unsigned, CUstream, void **, void **);
	CUresult (*EventCreate)(CUevent *, unsigned);
	CUresult (*EventRecord)(CUevent, CUstream);
	CUresult (*EventQuery)(CUevent);
	CUresult (*EventSynchronize)(CUevent);
	CUresult (*EventElapsedTime)(float *, CUevent, CUevent);
	CUresult (*GetErrorName)(CUresult, const char **);
	CUresult (*GetErrorString)(CUresult, const char **);
};

#define CUDA_MAX_MODULES 16

struct cuda_impl {
	void *lib;
	struct cuda_api api;
	CUdevice dev;
	CUcontext ctx;
	bool own_ctx;          /* a sibling's context, destroyed on close; else the primary one */
	CUevent ev[SC_DEVICE_EVENTS + 1];  /* the last one marks "done" for sync */
	CUmodule mods[CUDA_MAX_MODULES];
	size_t nmods;
	bool broken;
	/* The input generator (gen.h): its image (owned, handed on to
	 * siblings) and its function in this context, 0 when not loaded. */
	void *gen_image;
	size_t gen_len;
	uint64_t gen_fn;
	/* cuBLAS for ->lib_gemm_bf16, loaded and given a handle in this
	 * context at the first call: 0 not tried, 1 ready, -1 unavailable
	 * (cublas_why says why). */
	int cublas_state;
	struct sc_cublas cublas;
	void *cublas_handle;
	char cublas_why[512];
};

/* The context current on this (the only) thread: every entry point makes
 * its handle's context current first, so two handles can be used in turn. */
static CUcontext current_ctx;

static struct cuda_impl *impl(struct sc_device *d)
{
	return d->impl;
}

static int cu_fail(struct cuda_impl *c, CUresult r, const char *what)
{
	const char *name = NULL, *text = NULL;

	if (c->api.GetErrorName)
		c->api.GetErrorName(r, &name);
	if (c->api.GetErrorString)
		c->api.GetErrorString(r, &text);
	/* Sticky errors (faults) leave the context unusable. */
	if (r == 700 || r == 701 || r == 702 || r == 715 || r == 716 || r == 719 || r == 999)
		c->broken = true;
	return sc_error_set(SC_EGPU, "%s failed: %s (%s, %d)", what, text ? text : "unknown error",
			    name ? name : "CUDA error", r);
}

#define CU(c, call, what) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) return cu_fail((c), r_, (what)); } while (0)

static struct cuda_impl *use(struct sc_device *d)
{
	struct cuda_impl *c = d->impl;
	if (current_ctx != c->ctx && c->api.CtxSetCurrent(c->ctx) == CUDA_SUCCESS)
		current_ctx = c->ctx;
	return c;
}

static void *sym(void *lib, const char *a, const char *b)
{
	void *p = dlsym(lib, a);
	return p || !b ? p : dlsym(lib, b);
}

/* Resolves every entry point; false when one is missing. */
static bool resolve(struct cuda_impl *c)
{
	struct cuda_api *a = &c->api;
	void *l = c->lib;

#define R(field, n1, n2) (*(void **)&a->field = sym(l, n1, n2))
	R(Init, "cuInit", NULL);
	R(DriverGetVersion, "cuDriverGetVersion", NULL);
	R(DeviceGetCount, "cuDeviceGetCount", NULL);
	R(DeviceGet, "cuDeviceGet", NULL);
	R(DeviceGetName, "cuDeviceGetName", NULL);
	R(DeviceGetAttribute, "cuDeviceGetAttribute", NULL);
	R(DeviceTotalMem, "cuDeviceTotalMem_v2", "cuDeviceTotalMem");
	R(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL);
	R(PrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease");
	R(CtxSetCurrent, "cuCtxSetCurrent", NULL);
	R(CtxCreate, "cuCtxCreate_v2", NULL);
	R(CtxCreate4, "cuCtxCreate_v4", NULL);
	R(CtxDestroy, "cuCtxDestroy_v2", NULL);
	R(CtxSynchronize, "cuCtxSynchronize", NULL);
	R(CtxResetPersistingL2Cache, "cuCtxResetPersistingL2Cache", NULL);
	R(ModuleLoadData, "cuModuleLoadData", NULL);
	R(ModuleGetFunction, "cuModuleGetFunction", NULL);
	R(MemAlloc, "cuMemAlloc_v2", NULL);
	R(MemFree, "cuMemFree_v2", NULL);
	R(MemcpyHtoD, "cuMemcpyHtoD_v2", NULL);
	R(MemcpyDtoH, "cuMemcpyDtoH_v2", NULL);
	R(MemsetD32, "cuMemsetD32_v2", NULL);
	R(MemsetD32Async, "cuMemsetD32Async", NULL);
	R(LaunchKernel, "cuLaunchKernel", NULL);
	R(EventCreate, "cuEventCreate", NULL);
	R(EventRecord, "cuEventRecord", NULL);
	R(EventQuery, "cuEventQuery", NULL);
	R(EventSynchronize, "cuEventSynchronize", NULL);
	R(EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
	R(GetErrorName, "cuGetErrorName", NULL);
	R(GetErrorString, "cuGetErrorString", NULL);
#undef R
	/* Everything but the L2 reset (newer drivers only), the async memset
	 * and context creation (siblings) is required. */
	return a->Init && a->DriverGetVersion && a->DeviceGetCount && a->DeviceGet && a->DeviceGetName &&
	       a->DeviceGetAttribute && a->DeviceTotalMem && a->PrimaryCtxRetain && a->PrimaryCtxRelease &&
	       a->CtxSetCurrent && a->CtxSynchronize && a->ModuleLoadData && a->ModuleGetFunction &&
	       a->MemAlloc && a->MemFree && a->MemcpyHtoD && a->MemcpyDtoH && a->MemsetD32 &&
	       a->LaunchKernel && a->EventCreate && a->EventRecord && a->EventQuery &&
	       a->EventSynchronize && a->EventElapsedTime;
}

static int cuda_load(struct sc_device *d, const void *image, size_t len, const char *entry, uint64_t *fn)
{
	struct cuda_impl *c = use(d);
	CUmodule m;
	CUfunction f;
	CUresult r;

	SC_UNUSED(len);
	if (c->nmods == CUDA_MAX_MODULES)
		return sc_error_set(SC_ELIMIT, "too many modules loaded");
	CU(c, c->api.ModuleLoadData(&m, image), "cuModuleLoadData");
	c->mods[c->nmods++] = m;
	r = c->api.ModuleGetFunction(&f, m, entry);
	if (r != CUDA_SUCCESS)
		return sc_error_set(SC_EINVAL, "the module has no kernel '%s' (is it extern \"C\" __global__?)", entry);
	*fn = (uint64_t)(uintptr_t)f;
	return 0;
}

static int cuda_alloc(struct sc_device *d, uint64_t *out, size_t bytes)
{
	struct cuda_impl *c = use(d);
	CUdeviceptr p;
	CU(c, c->api.MemAlloc(&p, bytes), "cuMemAlloc");
	*out = p;
	return 0;
}

static void cuda_free(struct sc_device *d, uint64_t p)
{
	struct cuda_impl *c = use(d);
	if (!c->broken)
		c->api.MemFree((CUdeviceptr)p);
}

static int cuda_htod(struct sc_device *d, uint64_t dst, const void *src, size_t n)
{
	struct cuda_impl *c = use(d);
	CU(c, c->api.MemcpyHtoD((CUdeviceptr)dst, src, n), "cuMemcpyHtoD");
	return 0;
}

static int cuda_dtoh(struct sc_device *d, void *dst, uint64_t src, size_t n)
{
	struct cuda_impl *c = use(d);
	CU(c, c->api.MemcpyDtoH(dst, (CUdeviceptr)src, n), "cuMemcpyDtoH");
	return 0;
}

/* Queued on the stream (the flush before a timed launch must not make the
 * host wait, or the start event would fire before the launch is issued). */
static int cuda_memset32(struct sc_device *d, uint64_t dst, uint32_t v, size_t count)
{
	struct cuda_impl *c = use(d);
	if (c->api.MemsetD32Async)
		CU(c, c->api.MemsetD32Async((CUdeviceptr)dst, v, count, NULL), "cuMemsetD32Async");
	else
		CU(c, c->api.MemsetD32((CUdeviceptr)dst, v, count), "cuMemsetD32");
	return 0;
}

static int cuda_launch(struct sc_device *d, uint64_t fn, const unsigned grid[3], const unsigned block[3],
		       unsigned shared, void **params);

/* The generator kernel on the stream, or (not loaded) the host's
 * generator and a copy. */
static int cuda_fill(struct sc_device *d, uint64_t dst, int dtype, size_t n, int kind, double a, double b,
		     uint64_t seed)
{
	struct cuda_impl *c = use(d);
	unsigned long long nn = n, sd = seed;
	void *params[7] = { &dst, &nn, &dtype, &kind, &a, &b, &sd };
	unsigned grid[3] = { 1, 1, 1 }, block[3] = { 256, 1, 1 };
	size_t es = sc_dtype_size((enum sc_dtype)dtype);
	struct sc_dist dist = { (enum sc_dist_kind)kind, a, b };
	void *host;
	int err;

	if (c->gen_fn) {
		size_t blocks = (n + 255) / 256;
		grid[0] = (unsigned)(blocks < 65536 ? (blocks ? blocks : 1) : 65536);
		return cuda_launch(d, c->gen_fn, grid, block, 0, params);
	}
	host = sc_xmalloc(n * es);
	sc_gen_fill(host, (enum sc_dtype)dtype, n, &dist, seed);
	err = cuda_htod(d, dst, host, n * es);
	free(host);
	return err;
}

int sc_device_cuda_set_generator(struct sc_device *d, const void *image, size_t len)
{
	struct cuda_impl *c = use(d);
	int err;

	free(c->gen_image);
	c->gen_image = sc_xmalloc(len);
	memcpy(c->gen_image, image, len);
	c->gen_len = len;
	c->gen_fn = 0;
	if ((err = cuda_load(d, c->gen_image, len, SC_GEN_ENTRY, &c->gen_fn)) < 0)
		c->gen_fn = 0;
	return err;
}

static int cuda_launch(struct sc_device *d, uint64_t fn, const unsigned grid[3], const unsigned block[3],
		       unsigned shared, void **params)
{
	struct cuda_impl *c = use(d);
	CU(c, c->api.LaunchKernel((CUfunction)(uintptr_t)fn, grid[0], grid[1], grid[2], block[0], block[1], block[2],
				  shared, NULL, params, NULL),
	   "kernel launch");
	return 0;
}

/*
 * Waits for the event in slot with a deadline: polls that event (so the
 * host only ever wakes up after it was recorded, never between a timed
 * interval's two events) and on time-out reports the kernel as hung (the
 * context stays busy; the caller must stop using the device). Then a
 * context synchronize waits for other streams and surfaces faults.
 */
static int cuda_event_wait(struct sc_device *d, int slot, int timeout_ms)
{
	struct cuda_impl *c = use(d);
	int64_t deadline = sc_now_ms() + (timeout_ms > 0 ? timeout_ms : 60000);
	struct timespec ts = { 0, 20000 };
	CUresult r;

	while ((r = c->api.EventQuery(c->ev[slot])) == CUDA_ERROR_NOT_READY) {
		if (sc_now_ms() > deadline) {
			c->broken = true;
			return sc_error_set(SC_EGPU, "kernel ran past the time limit of %d ms (hung?)", timeout_ms);
		}
		nanosleep(&ts, NULL);
	}
	if (r != CUDA_SUCCESS)
		return cu_fail(c, r, "kernel execution");
	CU(c, c->api.CtxSynchronize(), "kernel execution");
	return 0;
}

static int cuda_sync(struct sc_device *d, int timeout_ms)
{
	struct cuda_impl *c = use(d);
	CU(c, c->api.EventRecord(c->ev[SC_DEVICE_EVENTS], NULL), "cuEventRecord");
	return cuda_event_wait(d, SC_DEVICE_EVENTS, timeout_ms);
}

static int cuda_event_record(struct sc_device *d, int slot)
{
	struct cuda_impl *c = use(d);
	CU(c, c->api.EventRecord(c->ev[slot], NULL), "cuEventRecord");
	return 0;
}

static int cuda_event_elapsed(struct sc_device *d, int from, int to, double *ms)
{
	struct cuda_impl *c = use(d);
	float f = 0;
	CU(c, c->api.EventSynchronize(c->ev[to]), "cuEventSynchronize");
	CU(c, c->api.EventElapsedTime(&f, c->ev[from], c->ev[to]), "cuEventElapsedTime");
	*ms = f;
	return 0;
}

static int cuda_reset_l2(struct sc_device *d)
{
	struct cuda_impl *c = use(d);
	if (c->api.CtxResetPersistingL2Cache)
		c->api.CtxResetPersistingL2Cache();
	return 0;
}

static int64_t cuda_host_ns(struct sc_device *d)
{
	SC_UNUSED(d);
	return sc_now_ns();
}

/* C = A * op(B) through cuBLAS in this context (device.h). */
static int cuda_lib_gemm_bf16(struct sc_device *d, bool b_nk, int m, int n, int k, uint64_t a, uint64_t b, uint64_t cc)
{
	struct cuda_impl *c = use(d);
	int st, version = 0;

	if (c->cublas_state == 0) {
		c->cublas_state = -1;
		if (sc_cublas_open(&c->cublas, NULL) < 0)
			snprintf(c->cublas_why, sizeof(c->cublas_why), "%s", sc_error_last());
		else if ((st = c->cublas.create(&c->cublas_handle)) != 0)
			snprintf(c->cublas_why, sizeof(c->cublas_why), "%s: cublasCreate failed (status %d)",
				 c->cublas.soname, st);
		else {
			c->cublas_state = 1;
			c->cublas.get_version(c->cublas_handle, &version);
			snprintf(d->lib_name, sizeof(d->lib_name), "cuBLAS %d (%s) cublasGemmEx, bfloat16, float32 compute",
				 version, c->cublas.soname);
		}
	}
	if (c->cublas_state < 0)
		return sc_error_set(SC_ENOSYS, "%s", c->cublas_why);
	if ((st = sc_cublas_gemm_bf16(&c->cublas, c->cublas_handle, b_nk, m, n, k, a, b, cc)) != 0)
		return sc_error_set(SC_EGPU, "cublasGemmEx (%d x %d x %d) failed: status %d", m, n, k, st);
	return 0;
}

static void cuda_close(struct sc_device *d)
{
	struct cuda_impl *c;

	if (!d)
		return;
	c = impl(d);
	if (c->cublas_handle && !c->broken) {
		use(d);
		c->cublas.destroy(c->cublas_handle);
	}
	/* A broken context is left for process exit to reclaim. */
	if (c->ctx && !c->broken) {
		if (c->own_ctx && c->api.CtxDestroy)
			c->api.CtxDestroy(c->ctx);
		else if (!c->own_ctx)
			c->api.PrimaryCtxRelease(c->dev);
	}
	if (current_ctx == c->ctx)
		current_ctx = NULL;
	free(c->gen_image);
	free(c);
	free(d);
}

/*
 * Peak rates per SM per clock by compute capability: fp32 flops on CUDA
 * cores, dense TF32 flops on tensor cores (0: none), and dense bf16/fp16
 * flops on tensor cores with fp32 accumulation (twice TF32 from sm_80 on;
 * Volta and Turing have fp16 but no TF32). Upper bounds, which is what a
 * ceiling needs; from NVIDIA's published peaks (e.g. H100/H200 SXM: 132
 * SMs, 67 TFLOPS fp32, 495 TFLOPS dense TF32, 989 TFLOPS dense bf16 at
 * the 1.83 GHz those figures assume).
 */
static void peaks_per_clock(int major, int minor, double *fp32, double *tf32, double *tc16)
{
	if (major >= 10) {
		*fp32 = 256;
		*tf32 = major == 10 ? 4096 : 1024;
	} else if (major == 9) {
		*fp32 = 256;
		*tf32 = 2048;
	} else if (major == 8) {
		*fp32 = minor == 0 ? 128 : 256;
		*tf32 = minor == 0 ? 1024 : 512;
	} else {
		*fp32 = major == 6 && minor != 0 ? 256 : 128;
		*tf32 = 0;
	}
	*tc16 = *tf32 > 0 ? 2 * *tf32 : major == 7 ? 1024 : 0;
}

/* Names, attributes and peaks of the device into d->info. */
static void fill_info(struct sc_device *d, struct cuda_impl *c)
{
	int v = 0, mclk = 0, bus = 0, clk = 0;
	double fp32, tf32, tc16;
	size_t mem = 0;

	c->api.DeviceGetName(d->info.name, (int)sizeof(d->info.name) - 1, c->dev);
	c->api.DriverGetVersion(&d->info.driver_version);
	c->api.DeviceGetAttribute(&d->info.cc_major, ATTR_CC_MAJOR, c->dev);
	c->api.DeviceGetAttribute(&d->info.cc_minor, ATTR_CC_MINOR, c->dev);
	c->api.DeviceGetAttribute(&d->info.sm_count, ATTR_SM_COUNT, c->dev);
	c->api.DeviceGetAttribute(&v, ATTR_L2_SIZE, c->dev);
	d->info.l2_bytes = v > 0 ? v : 64 << 20;
	c->api.DeviceTotalMem(&mem, c->dev);
	d->info.mem_bytes = (int64_t)mem;
	c->api.DeviceGetAttribute(&mclk, ATTR_MEM_CLOCK, c->dev);
	c->api.DeviceGetAttribute(&bus, ATTR_BUS_WIDTH, c->dev);
	c->api.DeviceGetAttribute(&clk, ATTR_CLOCK_RATE, c->dev);
	d->info.clock_khz = clk;
	/* DDR: two transfers per clock. */
	d->info.peak_gbps = 2.0 * mclk * 1e3 * (bus / 8.0) / 1e9;
	peaks_per_clock(d->info.cc_major, d->info.cc_minor, &fp32, &tf32, &tc16);
	d->info.peak_gflops = (double)d->info.sm_count * clk * 1e3 * fp32 / 1e9;
	d->info.peak_tc_gflops = (double)d->info.sm_count * clk * 1e3 * tf32 / 1e9;
	d->info.peak_tc16_gflops = (double)d->info.sm_count * clk * 1e3 * tc16 / 1e9;
	if (strstr(d->info.name, "H200") && d->info.peak_gbps < 4800)
		d->info.peak_gbps = 4800;
	if (d->info.peak_gbps <= 0 && strstr(d->info.name, "H100"))
		d->info.peak_gbps = 3350;
	if (d->info.peak_gflops <= 0 && (strstr(d->info.name, "H100") || strstr(d->info.name, "H200"))) {
		d->info.peak_gflops = 67000;
		d->info.peak_tc_gflops = 495000;
		d->info.peak_tc16_gflops = 989000;
	}
}

static int cuda_open_sibling(struct sc_device *d, struct sc_device **out);

static void set_ops(struct sc_device *d)
{
	d->kind = "cuda";
	d->load = cuda_load;
	d->alloc = cuda_alloc;
	d->free = cuda_free;
	d->htod = cuda_htod;
	d->dtoh = cuda_dtoh;
	d->memset32 = cuda_memset32;
	d->fill = cuda_fill;
	d->launch = cuda_launch;
	d->sync = cuda_sync;
	d->event_record = cuda_event_record;
	d->event_elapsed = cuda_event_elapsed;
	d->event_wait = cuda_event_wait;
	d->lib_gemm_bf16 = cuda_lib_gemm_bf16;
	d->open_sibling = cuda_open_sibling;
	d->reset_l2 = cuda_reset_l2;
	d->host_ns = cuda_host_ns;
	d->close = cuda_close;
}

/* A second handle in a context of its own (cuCtxCreate): separate
 * address space, same GPU. */
static int cuda_open_sibling(struct sc_device *d, struct sc_device **out)
{
	struct cuda_impl *p = use(d), *c;
	struct sc_device *s;
	CUresult r = 1;

	*out = NULL;
	if (!p->api.CtxCreate && !p->api.CtxCreate4)
		return sc_error_set(SC_EGPU, "this driver cannot create a second context (no cuCtxCreate)");
	c = sc_xcalloc(1, sizeof(*c));
	c->lib = p->lib;
	c->api = p->api;
	c->dev = p->dev;
	if (p->api.CtxCreate)
		r = p->api.CtxCreate(&c->ctx, 0, p->dev);
	else
		r = p->api.CtxCreate4(&c->ctx, NULL, 0, p->dev);
	if (r != CUDA_SUCCESS) {
		int err = cu_fail(c, r, "cuCtxCreate");
		free(c);
		return err;
	}
	c->own_ctx = true;
	current_ctx = c->ctx;  /* cuCtxCreate makes it current */
	s = sc_xcalloc(1, sizeof(*s));
	s->impl = c;
	s->info = d->info;
	set_ops(s);
	for (int i = 0; i <= SC_DEVICE_EVENTS; i++) {
		if ((r = c->api.EventCreate(&c->ev[i], 0)) != CUDA_SUCCESS) {
			int err = cu_fail(c, r, "cuEventCreate");
			cuda_close(s);
			return err;
		}
	}
	/* The sibling gets the generator too (the baseline's inputs are
	 * generated in its own context). */
	if (p->gen_image) {
		int err = sc_device_cuda_set_generator(s, p->gen_image, p->gen_len);
		if (err < 0) {
			cuda_close(s);
			return err;
		}
	}
	*out = s;
	return 0;
}

int sc_device_cuda_open(struct sc_device **out)
{
	return sc_device_cuda_open_index(out, 0);
}

int sc_device_cuda_open_index(struct sc_device **out, int index)
{
	struct sc_device *d = NULL;
	struct cuda_impl *c = sc_xcalloc(1, sizeof(*c));
	int count = 0, err = 0;
	CUresult r;

	*out = NULL;
	c->lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!c->lib) {
		const char *why = dlerror();
		err = sc_error_set(SC_ENOSYS, "no GPU: compile-only (%s)",
				   why ? why : "not found");
		goto done;
	}
	if (!resolve(c)) {
		err = sc_error_set(SC_ENOSYS, "no GPU: compile-only (libcuda.so.1 lacks a driver API entry point)");
		goto done;
	}
	if ((r = c->api.Init(0)) != CUDA_SUCCESS || c->api.DeviceGetCount(&count) != CUDA_SUCCESS || count < 1) {
		err = sc_error_set(SC_ENOSYS, "no GPU: compile-only (cuInit: error %d, %d devices)", r, count);
		goto done;
	}
	if (index < 0 || index >= count) {
		err = sc_error_set(SC_EGPU, "no GPU %d: the driver shows %d", index, count);
		goto done;
	}
	d = sc_xcalloc(1, sizeof(*d));
	d->impl = c;
#define TRY(call, what) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) { err = cu_fail(c, r_, (what)); goto done; } } while (0)
	TRY(c->api.DeviceGet(&c->dev, index), "cuDeviceGet");
	TRY(c->api.PrimaryCtxRetain(&c->ctx, c->dev), "cuDevicePrimaryCtxRetain");
	TRY(c->api.CtxSetCurrent(c->ctx), "cuCtxSetCurrent");
	current_ctx = c->ctx;
	for (int i = 0; i <= SC_DEVICE_EVENTS; i++)
		TRY(c->api.EventCreate(&c->ev[i], 0), "cuEventCreate");
#undef TRY
	fill_info(d, c);
	set_ops(d);
	*out = d;
	return 0;
done:
	if (d)
		free(d);
	free(c);  /* the library stays loaded: unloading a driver is not safe */
	return err;
}
