/*
 * emu_check: runs a fixture kernel, compiled for the host through the CUDA
 * emulation (cuda_emu.h, emu_runtime.cc), against the fixture's CPU
 * reference with the real harness on the CPU double: every correctness
 * size and distribution, fresh seeded inputs, NaN-poisoned outputs, guard
 * canaries, input checksums, the tolerance of the spec. It is how the
 * fixtures' baselines and solutions are checked on a machine without a
 * GPU (tests/emu/emu-check.sh builds one binary per kernel).
 *
 *   emu_check --fixture DIR --candidate FILE --defines     compiler flags for the tunables
 *   emu_check --fixture DIR --trampoline                   C++ that calls the entry
 *   emu_check --fixture DIR --candidate FILE [--seeds N]   run the check
 *
 * After the check, unless --no-timing, the kernel is timed by the real
 * harness (sc_harness_time) against the fixture's CPU reference run as the
 * baseline on a sibling device, at the largest correctness size with its
 * first size one larger (a size the check never used): fresh
 * inputs for every timed launch, bursts (the reference's declared cost
 * makes the baseline short), a secret subset of launches checked in full
 * against the reference's outputs, and the re-validation on fresh state.
 * This is where a kernel that tells timed launches from checked ones, or
 * reuses earlier work, fails without a GPU.
 *
 * Prints one line, "VERDICT REASON RATIO MESSAGE"; exits 0 when the check
 * passed, 1 when it failed, 2 on bad usage, 3 when the check could not run.
 */
#include "common.h"
#include "device.h"
#include "half.h"
#include "harness.h"
#include "refs.h"
#include "spec.h"

void emu_cpu_kernel(const struct sc_cpu_thread *t, void **params);

/* The baseline of the timing: the CPU reference on the device buffers of
 * the launch (float32 views of half-precision ones), once per launch. */
static const struct sc_spec *base_spec;
static sc_ref_fn base_ref;
static struct sc_size_set base_size;

static void ref_kernel(const struct sc_cpu_thread *t, void **params)
{
	struct sc_ref_args a;
	float *view[SC_REF_MAX_PARAMS] = { 0 };
	struct sc_expr_var vars[SC_SPEC_MAX_VARS + SC_SPEC_MAX_TUNABLES];
	size_t nv = sc_spec_vars(vars, base_spec, &base_size, NULL);

	if (t->bid[0] || t->bid[1] || t->bid[2] || t->tid[0] || t->tid[1] || t->tid[2])
		return;
	memset(&a, 0, sizeof(a));
	for (size_t i = 0; i < base_spec->nparams; i++) {
		const struct sc_param *p = &base_spec->params[i];
		int64_t n = 0;
		if (p->kind == SC_PARAM_SCALAR) {
			if (p->dtype == SC_DTYPE_F32)
				a.f[i] = *(float *)params[i];
			else
				a.i[i] = *(int32_t *)params[i];
			continue;
		}
		a.buf[i] = (void *)(uintptr_t)*(uint64_t *)params[i];
		if (sc_dtype_is_narrow(p->dtype) && sc_spec_eval(&n, p->shape, p->name, vars, nv) == 0) {
			view[i] = sc_xcalloc((size_t)n, sizeof(float));
			sc_half_decode(view[i], p->dtype, a.buf[i], (size_t)n);
			a.buf[i] = view[i];
		}
	}
	for (size_t i = 0; i < base_spec->nsize_vars; i++)
		a.size[i] = base_size.v[i];
	a.nparams = base_spec->nparams;
	base_ref(&a);
	for (size_t i = 0; i < base_spec->nparams; i++) {
		const struct sc_param *p = &base_spec->params[i];
		int64_t n = 0;
		if (!view[i])
			continue;
		if (p->role != SC_ROLE_IN && sc_spec_eval(&n, p->shape, p->name, vars, nv) == 0)
			sc_half_encode((void *)(uintptr_t)*(uint64_t *)params[i], p->dtype, view[i], (size_t)n);
		free(view[i]);
	}
}

/* Declared costs: the reference short enough for bursts, the candidate a
 * fixed time (the emulation's speed says nothing of a GPU's). */
static int64_t ref_cost(void **p, unsigned n) { (void)p; (void)n; return 20000; }
static int64_t emu_cost(void **p, unsigned n) { (void)p; (void)n; return 10000; }

/* The correctness size with the most work (the product of its sizes). */
static size_t largest_size(const struct sc_spec *spec)
{
	size_t best = 0;
	double most = -1;
	for (size_t i = 0; i < spec->ncorrectness; i++) {
		double w = 1;
		for (size_t v = 0; v < spec->nsize_vars; v++)
			w *= (double)spec->correctness[i].v[v];
		if (w > most) {
			most = w;
			best = i;
		}
	}
	return best;
}

static int usage(void)
{
	fprintf(stderr, "usage: emu_check --fixture DIR [--candidate FILE] [--defines|--trampoline] [--seeds N] [--no-timing]\n");
	return 2;
}

/* The C++ declaration of the entry and a caller for the launch's parameter
 * array (each element points at the argument's value). */
static void print_trampoline(const struct sc_spec *spec)
{
	struct sc_buf decl = SC_BUF_INIT, call = SC_BUF_INIT;

	for (size_t i = 0; i < spec->nparams; i++) {
		const struct sc_param *p = &spec->params[i];
		const char *t;
		if (p->kind == SC_PARAM_SCALAR)
			t = p->dtype == SC_DTYPE_F32 ? "float" : "int";
		else
			switch (p->dtype) {
			case SC_DTYPE_F32: t = "float *"; break;
			case SC_DTYPE_I32: t = "int *"; break;
			case SC_DTYPE_U32: t = "unsigned *"; break;
			case SC_DTYPE_E4M3: t = "uint8_t *"; break;
			default: t = "uint16_t *"; break;  /* bfloat16 and float16: 16-bit storage */
			}
		sc_buf_printf(&decl, "%s%s", i ? ", " : "", t);
		sc_buf_printf(&call, "%s*(%s *)p[%zu]", i ? ", " : "", t, i);
	}
	printf("/* generated by emu_check --trampoline */\n#include <cstdint>\n");
	printf("extern \"C\" void %s(%s);\n", spec->entry, decl.ptr);
	printf("extern \"C\" void emu_entry(void **p) { %s(%s); }\n", spec->entry, call.ptr);
	sc_buf_release(&decl);
	sc_buf_release(&call);
}

int main(int argc, char **argv)
{
	const char *fixture = NULL, *candidate = NULL;
	bool defines = false, trampoline = false, timing = true;
	int seeds = 5, rc = 3;
	struct sc_buf path = SC_BUF_INIT, src = SC_BUF_INIT;
	struct sc_spec spec;
	struct sc_tunable_values tun;
	struct sc_device *dev = NULL;
	struct sc_kernel_handle k;
	struct sc_check_result r;
	const char *name;
	sc_ref_fn ref;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--fixture") && i + 1 < argc)
			fixture = argv[++i];
		else if (!strcmp(argv[i], "--candidate") && i + 1 < argc)
			candidate = argv[++i];
		else if (!strcmp(argv[i], "--seeds") && i + 1 < argc)
			seeds = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-timing"))
			timing = false;
		else if (!strcmp(argv[i], "--defines"))
			defines = true;
		else if (!strcmp(argv[i], "--trampoline"))
			trampoline = true;
		else
			return usage();
	}
	if (!fixture || (!candidate && !trampoline) || seeds < 1)
		return usage();
	sc_buf_printf(&path, "%s/spec.json", fixture);
	if (sc_spec_load(&spec, path.ptr) < 0) {
		fprintf(stderr, "emu_check: %s\n", sc_error_last());
		sc_buf_release(&path);
		return 2;
	}
	if (trampoline) {
		print_trampoline(&spec);
		rc = 0;
		goto done;
	}
	if (sc_read_file(&src, candidate, SC_MAX_FILE_BYTES) < 0 || sc_spec_tunables(&tun, &spec, src.ptr) < 0) {
		fprintf(stderr, "emu_check: %s: %s\n", candidate, sc_error_last());
		rc = 2;
		goto done;
	}
	if (defines) {
		for (size_t i = 0; i < spec.ntunables; i++)
			printf("%s-D%s=%lld", i ? " " : "", spec.tunables[i].name, (long long)tun.v[i]);
		printf("\n");
		rc = 0;
		goto done;
	}
	name = strrchr(fixture, '/') && strrchr(fixture, '/')[1] ? strrchr(fixture, '/') + 1 : fixture;
	if (!(ref = sc_ref_lookup(spec.name)) && !(ref = sc_ref_lookup(name))) {
		fprintf(stderr, "emu_check: no CPU reference for '%s'\n", spec.name);
		goto done;
	}
	dev = sc_device_cpu_new();
	sc_device_cpu_register(dev, "emu", emu_cpu_kernel, emu_cost, 0);
	sc_device_cpu_register(dev, "ref", ref_kernel, ref_cost, 0);
	memset(&k, 0, sizeof(k));
	k.tun = tun;
	k.image = "emu";
	k.image_len = 3;
	k.entry = spec.entry;
	if (dev->load(dev, "emu", 3, spec.entry, &k.fn) < 0)
		goto done;
	{
		struct sc_check_opts o = { .nseeds = seeds, .seed_base = 1, .timeout_ms = 10000 };
		if (sc_harness_check(&r, dev, &spec, &k, ref, &o) < 0) {
			fprintf(stderr, "emu_check: %s\n", sc_error_last());
			goto done;
		}
	}
	if (r.ok && timing) {
		struct sc_device *bdev = NULL;
		struct sc_kernel_handle b;
		struct sc_timing_result tr;
		/* a fixed secret: the same draws every run, so a row does not
		 * change from one run to the next */
		struct sc_timing_opts_run to = { .timeout_ms = 10000, .secret = 0x5eedf00d, .burst_target_ms = 0.04 };
		int terr;
		/* a size the correctness check never used, as on a GPU: the
		 * largest correctness size with its first size one larger; 2
		 * warm-up launches, 6 repetitions of bursts of 2 (the
		 * emulation is slow) */
		spec.timing = spec.correctness[largest_size(&spec)];
		spec.timing.v[0] += 1;
		spec.topts.warmup = 2;
		spec.topts.min_reps = 6;
		spec.topts.max_reps = 6;
		spec.topts.target_rse = 0;
		base_spec = &spec;
		base_ref = ref;
		base_size = spec.timing;
		memset(&b, 0, sizeof(b));
		b.tun = tun;
		if (dev->open_sibling(dev, &bdev) < 0 || bdev->load(bdev, "ref", 3, spec.entry, &b.fn) < 0 ||
		    (terr = sc_harness_time(&tr, dev, bdev, &spec, &k, &b, &to)) < 0) {
			fprintf(stderr, "emu_check: timing: %s\n", sc_error_last());
			if (bdev)
				bdev->close(bdev);
			goto done;
		}
		bdev->close(bdev);
		if (!tr.ok) {
			printf("failed\t%s\t%.3f\t%zu\t%s\n",
			       tr.reason == SC_REASON_MISMATCH || tr.reason == SC_REASON_STALE ? "revalidation"
											  : sc_check_reason_name(tr.reason),
			       r.max_ratio, r.launches + tr.spot_checks, tr.message);
			rc = 1;
			goto done;
		}
	}
	printf("%s\t%s\t%.3f\t%zu\t%s\n", r.ok ? "passed" : "failed", sc_check_reason_name(r.reason), r.max_ratio,
	       r.launches, r.ok ? "" : r.message);
	rc = r.ok ? 0 : 1;
done:
	if (dev)
		dev->close(dev);
	sc_spec_release(&spec);
	sc_buf_release(&path);
	sc_buf_release(&src);
	return rc;
}
