/*
 * The CPU test double of the device layer: "device memory" is host memory,
 * kernels are registered C functions run thread by thread, and time is a
 * virtual clock advanced by each kernel's declared cost, so timing
 * statistics and speedups are exact and repeatable in tests.
 */
#include "common.h"
#include "device.h"

#define CPU_MAX_KERNELS 32

struct cpu_kernel {
	const char *name;
	sc_cpu_kernel_fn fn;
	sc_cpu_cost_fn cost;
	int64_t hidden_ns;
	unsigned launches;
};

struct cpu_impl {
	struct cpu_kernel k[CPU_MAX_KERNELS];
	size_t nk;
	int64_t event_clock;   /* what events see */
	int64_t host_clock;    /* what the host sees after sync */
	int64_t pending_hidden;
	int64_t events[SC_DEVICE_EVENTS];
};

static struct cpu_impl *impl(struct sc_device *d)
{
	return d->impl;
}

static int cpu_load(struct sc_device *d, const void *image, size_t len, const char *entry, uint64_t *fn)
{
	struct cpu_impl *c = impl(d);

	SC_UNUSED(entry);
	for (size_t i = 0; i < c->nk; i++)
		if (strlen(c->k[i].name) == len && !memcmp(c->k[i].name, image, len)) {
			*fn = i + 1;
			return 0;
		}
	return sc_error_set(SC_ENOTFOUND, "no CPU kernel '%.*s'", (int)len, (const char *)image);
}

static int cpu_alloc(struct sc_device *d, uint64_t *out, size_t bytes)
{
	SC_UNUSED(d);
	*out = (uint64_t)(uintptr_t)sc_xmalloc(bytes ? bytes : 1);
	return 0;
}

static void cpu_free(struct sc_device *d, uint64_t p)
{
	SC_UNUSED(d);
	free((void *)(uintptr_t)p);
}

static int cpu_htod(struct sc_device *d, uint64_t dst, const void *src, size_t n)
{
	SC_UNUSED(d);
	memcpy((void *)(uintptr_t)dst, src, n);
	return 0;
}

static int cpu_dtoh(struct sc_device *d, void *dst, uint64_t src, size_t n)
{
	SC_UNUSED(d);
	memcpy(dst, (const void *)(uintptr_t)src, n);
	return 0;
}

static int cpu_memset32(struct sc_device *d, uint64_t dst, uint32_t v, size_t count)
{
	uint32_t *p = (uint32_t *)(uintptr_t)dst;
	SC_UNUSED(d);
	for (size_t i = 0; i < count; i++)
		p[i] = v;
	return 0;
}

static int cpu_launch(struct sc_device *d, uint64_t fn, const unsigned grid[3], const unsigned block[3],
		      unsigned shared, void **params)
{
	struct cpu_impl *c = impl(d);
	struct cpu_kernel *k;
	struct sc_cpu_thread t;
	int64_t cost;

	SC_UNUSED(shared);
	if (fn < 1 || fn > c->nk)
		return sc_error_set(SC_EGPU, "launch of an unknown function");
	for (int i = 0; i < 3; i++)
		if (!grid[i] || !block[i])
			return sc_error_set(SC_EGPU, "launch failed: invalid configuration (a zero dimension)");
	if ((uint64_t)block[0] * block[1] * block[2] > 1024)
		return sc_error_set(SC_EGPU, "launch failed: too many threads per block (%u)",
				    block[0] * block[1] * block[2]);
	k = &c->k[fn - 1];
	memset(&t, 0, sizeof(t));
	memcpy(t.grid, grid, sizeof(t.grid));
	memcpy(t.block, block, sizeof(t.block));
	t.launch_index = k->launches;
	for (t.bid[2] = 0; t.bid[2] < grid[2]; t.bid[2]++)
	for (t.bid[1] = 0; t.bid[1] < grid[1]; t.bid[1]++)
	for (t.bid[0] = 0; t.bid[0] < grid[0]; t.bid[0]++)
	for (t.tid[2] = 0; t.tid[2] < block[2]; t.tid[2]++)
	for (t.tid[1] = 0; t.tid[1] < block[1]; t.tid[1]++)
	for (t.tid[0] = 0; t.tid[0] < block[0]; t.tid[0]++)
		k->fn(&t, params);
	cost = k->cost ? k->cost(params, k->launches) : 0;
	k->launches++;
	c->event_clock += cost;
	if (c->host_clock < c->event_clock)
		c->host_clock = c->event_clock;
	c->pending_hidden += k->hidden_ns;
	return 0;
}

static int cpu_sync(struct sc_device *d, int timeout_ms)
{
	struct cpu_impl *c = impl(d);
	SC_UNUSED(timeout_ms);
	c->host_clock += c->pending_hidden;
	c->pending_hidden = 0;
	return 0;
}

static int cpu_event_record(struct sc_device *d, int slot)
{
	assert(slot >= 0 && slot < SC_DEVICE_EVENTS);
	impl(d)->events[slot] = impl(d)->event_clock;
	return 0;
}

static int cpu_event_elapsed(struct sc_device *d, int from, int to, double *ms)
{
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
	struct cpu_impl *c = impl(d);
	/* Events and host share one timeline; hidden work shows only here. */
	if (c->host_clock < c->event_clock)
		c->host_clock = c->event_clock;
	return c->host_clock;
}

static void cpu_close(struct sc_device *d)
{
	if (!d)
		return;
	free(d->impl);
	free(d);
}

struct sc_device *sc_device_cpu_new(void)
{
	struct sc_device *d = sc_xcalloc(1, sizeof(*d));

	d->kind = "cpu";
	d->impl = sc_xcalloc(1, sizeof(struct cpu_impl));
	snprintf(d->info.name, sizeof(d->info.name), "skillci CPU double");
	d->info.cc_major = 9;
	d->info.l2_bytes = 1 << 16;
	d->info.mem_bytes = (int64_t)1 << 32;
	d->info.peak_gbps = 1000;
	d->info.peak_gflops = 1000;
	d->load = cpu_load;
	d->alloc = cpu_alloc;
	d->free = cpu_free;
	d->htod = cpu_htod;
	d->dtoh = cpu_dtoh;
	d->memset32 = cpu_memset32;
	d->launch = cpu_launch;
	d->sync = cpu_sync;
	d->event_record = cpu_event_record;
	d->event_elapsed = cpu_event_elapsed;
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
