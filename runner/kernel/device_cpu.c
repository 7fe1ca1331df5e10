/*
 * The CPU test double of the device layer: "device memory" is host memory,
 * kernels are registered C functions run thread by thread, and time is a
 * virtual clock advanced by each kernel's declared cost, so timing
 * statistics and speedups are exact and repeatable in tests.
 *
 * Time: the stream's clock (what events see) advances by each launch's
 * cost; the host's clock advances only when the host waits (event_wait,
 * sync) or when a launch call itself costs host time (set_launch_ns), as
 * launches are queued, not waited for. Hidden work (a side stream) shows
 * only on the host clock, at the next context-wide wait.
 */
#include "common.h"
#include "device.h"
#include "gen.h"

#define CPU_MAX_KERNELS 32
#define CPU_MAX_MODULES 256
#define CPU_MAX_ALLOCS 4096

struct cpu_kernel {
	const char *name;
	sc_cpu_kernel_fn fn;
	sc_cpu_cost_fn cost;
	int64_t hidden_ns;
	unsigned loads;
};

/* A loaded module: which kernel, and its own launch counter. */
struct cpu_module {
	size_t kernel;
	unsigned launches;
	unsigned load_index;
};

struct cpu_alloc {
	uint64_t at;
	size_t bytes;
};

struct cpu_impl {
	struct cpu_kernel k[CPU_MAX_KERNELS];
	size_t nk;
	struct cpu_module mod[CPU_MAX_MODULES];
	size_t nmod;
	struct cpu_alloc allocs[CPU_MAX_ALLOCS];
	size_t nallocs;
	int64_t stream_clock;  /* what events see */
	int64_t host_clock;    /* what the host sees */
	int64_t pending_hidden;
	int64_t launch_ns;
	int64_t events[SC_DEVICE_EVENTS];
	int64_t lib_ns_per_gflop;  /* the library GEMM's cost; < 0: none */
	char fault[160];           /* a kernel faulted (sc_device_cpu_fault): the device is lost */
	struct sc_buf log;
};

/* The device whose kernel runs now (the double runs one launch at a
 * time, on the caller's thread). */
static _Thread_local struct sc_device *launching;

void sc_device_cpu_fault(const char *what)
{
	struct cpu_impl *c = launching ? launching->impl : NULL;
	if (c && !c->fault[0])
		snprintf(c->fault, sizeof(c->fault), "%s", what);
}

/* After a fault every operation fails, as a CUDA context's sticky error. */
static int lost(struct sc_device *d)
{
	struct cpu_impl *c = d->impl;
	return c->fault[0] ? sc_error_set(SC_EGPU, "the kernel faulted: %s", c->fault) : 0;
}

static struct cpu_impl *impl(struct sc_device *d)
{
	return d->impl;
}

static void note(struct sc_device *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void note(struct sc_device *d, const char *fmt, ...)
{
	struct cpu_impl *c = impl(d);
	va_list ap;

	if (c->log.len)
		sc_buf_putc(&c->log, ' ');
	va_start(ap, fmt);
	sc_buf_vprintf(&c->log, fmt, ap);
	va_end(ap);
}

static int cpu_load(struct sc_device *d, const void *image, size_t len, const char *entry, uint64_t *fn)
{
	struct cpu_impl *c = impl(d);

	SC_UNUSED(entry);
	for (size_t i = 0; i < c->nk; i++)
		if (strlen(c->k[i].name) == len && !memcmp(c->k[i].name, image, len)) {
			if (c->nmod == CPU_MAX_MODULES)
				return sc_error_set(SC_ELIMIT, "too many modules loaded");
			c->mod[c->nmod] = (struct cpu_module){ i, 0, c->k[i].loads++ };
			*fn = ++c->nmod;
			note(d, "load:%s", c->k[i].name);
			return 0;
		}
	return sc_error_set(SC_ENOTFOUND, "no CPU kernel '%.*s'", (int)len, (const char *)image);
}

/* 256-byte aligned, as cudaMalloc's allocations are. */
static int cpu_alloc(struct sc_device *d, uint64_t *out, size_t bytes)
{
	struct cpu_impl *c = impl(d);
	void *p = aligned_alloc(256, bytes ? (bytes + 255) / 256 * 256 : 256);

	if (!p)
		return sc_error_set(SC_EGPU, "out of memory allocating %zu bytes", bytes);
	*out = (uint64_t)(uintptr_t)p;
	if (c->nallocs < CPU_MAX_ALLOCS)
		c->allocs[c->nallocs++] = (struct cpu_alloc){ *out, bytes ? bytes : 1 };
	note(d, "alloc");
	return 0;
}

static void cpu_free(struct sc_device *d, uint64_t p)
{
	struct cpu_impl *c = impl(d);

	for (size_t i = 0; i < c->nallocs; i++)
		if (c->allocs[i].at == p) {
			c->allocs[i] = c->allocs[--c->nallocs];
			break;
		}
	note(d, "free");
	free((void *)(uintptr_t)p);
}

bool sc_device_cpu_owns(struct sc_device *d, uint64_t ptr)
{
	struct cpu_impl *c = impl(d);

	for (size_t i = 0; i < c->nallocs; i++)
		if (ptr >= c->allocs[i].at && ptr < c->allocs[i].at + c->allocs[i].bytes)
			return true;
	return false;
}

static int cpu_htod(struct sc_device *d, uint64_t dst, const void *src, size_t n)
{
	note(d, "htod");
	if (lost(d))
		return SC_EGPU;
	memcpy((void *)(uintptr_t)dst, src, n);
	return 0;
}

static int cpu_dtoh(struct sc_device *d, void *dst, uint64_t src, size_t n)
{
	note(d, "dtoh");
	if (lost(d))
		return SC_EGPU;
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return 0;
}

static int cpu_memset32(struct sc_device *d, uint64_t dst, uint32_t v, size_t count)
{
	uint32_t *p = (uint32_t *)(uintptr_t)dst;
	note(d, "memset");
	if (lost(d))
		return SC_EGPU;
	for (size_t i = 0; i < count; i++)
		p[i] = v;
	return 0;
}

/* The generator runs at once (its cost is not on the stream clock: it
 * happens before a timed interval starts). */
static int cpu_fill(struct sc_device *d, uint64_t dst, int dtype, size_t n, int kind, double a, double b,
		    uint64_t seed)
{
	struct sc_dist dist = { (enum sc_dist_kind)kind, a, b };
	note(d, "fill");
	if (lost(d))
		return SC_EGPU;
	sc_gen_fill((void *)(uintptr_t)dst, (enum sc_dtype)dtype, n, &dist, seed);
	return 0;
}

static int cpu_launch(struct sc_device *d, uint64_t fn, const unsigned grid[3], const unsigned block[3],
		      unsigned shared, void **params)
{
	struct cpu_impl *c = impl(d);
	struct cpu_kernel *k;
	struct cpu_module *m;
	struct sc_cpu_thread t;
	int64_t cost;

	SC_UNUSED(shared);
	if (lost(d))
		return SC_EGPU;
	if (fn < 1 || fn > c->nmod)
		return sc_error_set(SC_EGPU, "launch of an unknown function");
	for (int i = 0; i < 3; i++)
		if (!grid[i] || !block[i])
			return sc_error_set(SC_EGPU, "launch failed: invalid configuration (a zero dimension)");
	if ((uint64_t)block[0] * block[1] * block[2] > 1024)
		return sc_error_set(SC_EGPU, "launch failed: too many threads per block (%u)",
				    block[0] * block[1] * block[2]);
	m = &c->mod[fn - 1];
	k = &c->k[m->kernel];
	note(d, "launch:%s", k->name);
	memset(&t, 0, sizeof(t));
	memcpy(t.grid, grid, sizeof(t.grid));
	memcpy(t.block, block, sizeof(t.block));
	t.launch_index = m->launches;
	t.load_index = m->load_index;
	for (t.bid[2] = 0; t.bid[2] < grid[2]; t.bid[2]++)
	for (t.bid[1] = 0; t.bid[1] < grid[1]; t.bid[1]++)
	for (t.bid[0] = 0; t.bid[0] < grid[0]; t.bid[0]++)
	for (t.tid[2] = 0; t.tid[2] < block[2]; t.tid[2]++)
	for (t.tid[1] = 0; t.tid[1] < block[1]; t.tid[1]++)
	for (t.tid[0] = 0; t.tid[0] < block[0]; t.tid[0]++) {
		launching = d;
		k->fn(&t, params);
		launching = NULL;
	}
	cost = k->cost ? k->cost(params, m->launches) : 0;
	m->launches++;
	/* The stream starts this launch when it is free and the host has
	 * issued it. */
	c->host_clock += c->launch_ns;
	if (c->stream_clock < c->host_clock)
		c->stream_clock = c->host_clock;
	c->stream_clock += cost;
	c->pending_hidden += k->hidden_ns;
	return 0;
}

/* The host waits for the stream (and for hidden work, context-wide). */
static void host_waits(struct cpu_impl *c)
{
	if (c->host_clock < c->stream_clock)
		c->host_clock = c->stream_clock;
	c->host_clock += c->pending_hidden;
	c->pending_hidden = 0;
}

static int cpu_sync(struct sc_device *d, int timeout_ms)
{
	SC_UNUSED(timeout_ms);
	note(d, "sync");
	host_waits(impl(d));
	return lost(d);
}

static int cpu_event_record(struct sc_device *d, int slot)
{
	struct cpu_impl *c = impl(d);

	assert(slot >= 0 && slot < SC_DEVICE_EVENTS);
	note(d, "rec:%d", slot);
	if (c->stream_clock < c->host_clock)
		c->stream_clock = c->host_clock;  /* an idle stream records when issued */
	c->events[slot] = c->stream_clock;
	return 0;
}

static int cpu_event_wait(struct sc_device *d, int slot, int timeout_ms)
{
	SC_UNUSED(timeout_ms);
	note(d, "wait:%d", slot);
	host_waits(impl(d));
	return lost(d);
}

static int cpu_event_elapsed(struct sc_device *d, int from, int to, double *ms)
{
	note(d, "elapsed");
	*ms = (double)(impl(d)->events[to] - impl(d)->events[from]) / 1e6;
	return 0;
}

static int cpu_reset_l2(struct sc_device *d)
{
	SC_UNUSED(d);
	return 0;
}

static int64_t cpu_host_ns(struct sc_device *d)
{
	return impl(d)->host_clock;
}

static float bf16_at(uint64_t p, size_t i)
{
	uint16_t h;
	uint32_t u;
	float f;
	memcpy(&h, (const char *)(uintptr_t)p + 2 * i, 2);
	u = (uint32_t)h << 16;
	memcpy(&f, &u, 4);
	return f;
}

/* The library GEMM: runs at once, its cost on the stream clock like a
 * launch's. */
static int cpu_lib_gemm_bf16(struct sc_device *d, bool b_nk, int m, int n, int k, uint64_t a, uint64_t b, uint64_t c)
{
	struct cpu_impl *ci = impl(d);

	note(d, "lib_gemm");
	if (m < 1 || n < 1 || k < 1)
		return sc_error_set(SC_EINVAL, "library GEMM of %d x %d x %d", m, n, k);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			float s = 0;
			uint32_t u;
			uint16_t h;
			for (int q = 0; q < k; q++)
				s += bf16_at(a, (size_t)i * k + q) *
				     bf16_at(b, b_nk ? (size_t)j * k + q : (size_t)q * n + j);
			/* round to nearest even, as the library's output */
			memcpy(&u, &s, 4);
			u += 0x7fffu + ((u >> 16) & 1u);
			h = (uint16_t)(u >> 16);
			memcpy((char *)(uintptr_t)c + 2 * ((size_t)i * n + j), &h, 2);
		}
	if (ci->stream_clock < ci->host_clock)
		ci->stream_clock = ci->host_clock;
	ci->stream_clock += (int64_t)(2.0 * m * n * k / 1e9 * (double)ci->lib_ns_per_gflop);
	snprintf(d->lib_name, sizeof(d->lib_name), "CPU double's GEMM");
	return 0;
}

void sc_device_cpu_set_library(struct sc_device *d, int64_t ns_per_gflop)
{
	impl(d)->lib_ns_per_gflop = ns_per_gflop;
	d->lib_gemm_bf16 = ns_per_gflop < 0 ? NULL : cpu_lib_gemm_bf16;
}

static void cpu_close(struct sc_device *d)
{
	if (!d)
		return;
	/* what is still allocated goes with the device, as a CUDA context's
	 * memory goes with it (after a fault nothing else frees it) */
	for (size_t i = 0; i < impl(d)->nallocs; i++)
		free((void *)(uintptr_t)impl(d)->allocs[i].at);
	sc_buf_release(&impl(d)->log);
	free(d->impl);
	free(d);
}

static int cpu_open_sibling(struct sc_device *d, struct sc_device **out)
{
	struct sc_device *s = sc_device_cpu_new();
	struct cpu_impl *c = impl(d), *n = impl(s);

	memcpy(n->k, c->k, sizeof(c->k));
	n->nk = c->nk;
	for (size_t i = 0; i < n->nk; i++)
		n->k[i].loads = 0;
	n->launch_ns = c->launch_ns;
	sc_device_cpu_set_library(s, c->lib_ns_per_gflop);
	*out = s;
	return 0;
}

struct sc_device *sc_device_cpu_new(void)
{
	struct sc_device *d = sc_xcalloc(1, sizeof(*d));

	d->kind = "cpu";
	d->impl = sc_xcalloc(1, sizeof(struct cpu_impl));
	sc_buf_init(&impl(d)->log);
	snprintf(d->info.name, sizeof(d->info.name), "skillci CPU double");
	d->info.cc_major = 9;
	d->info.l2_bytes = 1 << 16;
	d->info.mem_bytes = (int64_t)1 << 32;
	d->info.clock_khz = 1000000;  /* 1 GHz: a cycle is a nanosecond */
	d->info.peak_gbps = 1000;
	d->info.peak_gflops = 1000;
	d->info.peak_tc_gflops = 8000;
	d->info.peak_tc16_gflops = 16000;
	d->load = cpu_load;
	d->alloc = cpu_alloc;
	d->free = cpu_free;
	d->htod = cpu_htod;
	d->dtoh = cpu_dtoh;
	d->memset32 = cpu_memset32;
	d->fill = cpu_fill;
	d->launch = cpu_launch;
	d->sync = cpu_sync;
	sc_device_cpu_set_library(d, 1000000);  /* 1 ms per GFLOP: 1 TFLOP/s */
	d->event_record = cpu_event_record;
	d->event_elapsed = cpu_event_elapsed;
	d->event_wait = cpu_event_wait;
	d->open_sibling = cpu_open_sibling;
	d->reset_l2 = cpu_reset_l2;
	d->host_ns = cpu_host_ns;
	d->close = cpu_close;
	return d;
}

void sc_device_cpu_register(struct sc_device *d, const char *name, sc_cpu_kernel_fn fn,
			    sc_cpu_cost_fn cost, int64_t hidden_ns)
{
	struct cpu_impl *c = impl(d);

	assert(c->nk < CPU_MAX_KERNELS);
	c->k[c->nk].name = name;
	c->k[c->nk].fn = fn;
	c->k[c->nk].cost = cost;
	c->k[c->nk].hidden_ns = hidden_ns;
	c->nk++;
}

const char *sc_device_cpu_log(struct sc_device *d)
{
	return impl(d)->log.ptr;
}

void sc_device_cpu_set_launch_ns(struct sc_device *d, int64_t launch_ns)
{
	impl(d)->launch_ns = launch_ns;
}
