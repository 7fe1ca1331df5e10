/*
 * bench_honesty: the harness's own time per candidate (sc_harness_time on
 * the CPU double, softmax's spec at a given timing size) for one run of
 * the timing with its checks: one line, "wall_ms reps checked burst
 * cand_ms base_ms". Built by tests/bench/bench_honesty.sh against the
 * harness of this tree and against an earlier one, so the two lines
 * compare the cost of the checks and not the kernels: the kernels are the
 * same C functions with the same declared costs (the GPU's times).
 *
 *   bench_honesty ROWS COLS CAND_US BASE_US
 */
#include "common.h"
#include "device.h"
#include "harness.h"
#include "spec.h"

#include <math.h>
#include <time.h>

static int64_t cand_ns, base_ns;

/* One thread per row does the row (the others return): the CPU double
 * runs every thread in turn, so this keeps the kernels' own CPU time
 * small beside the harness's. */
static void k_softmax(const struct sc_cpu_thread *t, void **p)
{
	const float *x = (const float *)(uintptr_t)*(uint64_t *)p[0];
	float *y = (float *)(uintptr_t)*(uint64_t *)p[1];
	int cols = *(int *)p[3];
	float m = -INFINITY, s = 0;
	if (t->tid[0])
		return;
	x += (size_t)t->bid[0] * (size_t)cols;
	y += (size_t)t->bid[0] * (size_t)cols;
	for (int c = 0; c < cols; c++)
		m = fmaxf(m, x[c]);
	for (int c = 0; c < cols; c++)
		s += expf(x[c] - m);
	for (int c = 0; c < cols; c++)
		y[c] = expf(x[c] - m) / s;
}
static int64_t cost_cand(void **p, unsigned n) { (void)p; (void)n; return cand_ns; }
static int64_t cost_base(void **p, unsigned n) { (void)p; (void)n; return base_ns; }

int main(int argc, char **argv)
{
	struct sc_spec spec;
	struct sc_device *dev, *bdev = NULL;
	struct sc_kernel_handle c, b;
	struct sc_timing_opts_run o;
	struct sc_timing_result r;
	struct timespec t0, t1;

	if (argc != 5) {
		fprintf(stderr, "usage: bench_honesty ROWS COLS CAND_US BASE_US\n");
		return 2;
	}
	if (sc_spec_load(&spec, "fixtures/softmax/spec.json") < 0) {
		fprintf(stderr, "bench_honesty: %s\n", sc_error_last());
		return 2;
	}
	spec.timing.v[0] = atoll(argv[1]);
	spec.timing.v[1] = atoll(argv[2]);
	cand_ns = (int64_t)(atof(argv[3]) * 1000);
	base_ns = (int64_t)(atof(argv[4]) * 1000);
	dev = sc_device_cpu_new();
	sc_device_cpu_register(dev, "cand", k_softmax, cost_cand, 0);
	sc_device_cpu_register(dev, "base", k_softmax, cost_base, 0);
	if (dev->open_sibling(dev, &bdev) < 0)
		return 3;
	memset(&c, 0, sizeof(c));
	c.tun.v[0] = 32;
	c.image = "cand";
	c.image_len = 4;
	c.entry = "softmax";
	b = c;
	b.image = "base";
	if (dev->load(dev, "cand", 4, "softmax", &c.fn) < 0 || bdev->load(bdev, "base", 4, "softmax", &b.fn) < 0)
		return 3;
	memset(&o, 0, sizeof(o));
	o.timeout_ms = 10000;
	o.secret = 42;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (sc_harness_time(&r, dev, bdev, &spec, &c, &b, &o) < 0) {
		fprintf(stderr, "bench_honesty: %s\n", sc_error_last());
		return 3;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!r.ok) {
		fprintf(stderr, "bench_honesty: the timing failed: %s\n", r.message);
		return 1;
	}
	printf("%.1f %zu %zu %d %.4f %.4f\n",
	       (double)(t1.tv_sec - t0.tv_sec) * 1e3 + (double)(t1.tv_nsec - t0.tv_nsec) / 1e6, r.reps, r.spot_checks,
	       r.cand.burst, r.cand.ev.median, r.base.ev.median);
	bdev->close(bdev);
	dev->close(dev);
	sc_spec_release(&spec);
	return 0;
}
