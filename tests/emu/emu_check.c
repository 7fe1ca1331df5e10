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
 *   emu_check --fixture DIR --candidate FILE [--seeds N] [--secret S] [--shapes 1|2]
 *             [--no-timing] [--no-strong] [--timed-shapes]   run the check
 *
 * The check is the worker's, step by step: every correctness size,
 * distribution and seed, with the determinism check (one size run twice
 * with other contents in the outputs and scratch); then, unless
 * --no-timing, the kernel is timed by the real harness (sc_harness_time)
 * against the fixture's CPU reference run as the baseline on a sibling
 * device, at two shapes the check never used (the largest correctness
 * size and the second largest, each with its first size one larger;
 * --shapes 1: the first only), every repetition timing every input
 * distribution: fresh inputs for every timed launch, bursts (the
 * reference's declared cost makes the baseline short), a drawn subset of
 * launches checked in full against the reference's outputs by every rule,
 * and the re-validation on fresh state judged against the CPU reference;
 * then the correctness check again with a secret seed (at the first size);
 * then, unless --no-strong, the strong reference's phase with the CPU
 * reference standing in for the fixture's solution, at the last shape: a
 * check like the others. This is where a kernel that tells timed launches
 * from checked ones, or reuses earlier work, fails without a GPU. The
 * draws of the checked launches come from the secret (--secret, hex or
 * decimal; default drawn from the system and printed on stderr), so a
 * failure replays with the same secret. --timed-shapes also checks the
 * spec's extra timed shapes (extra_timing_sizes) whose size variables
 * multiply to at most 2^22 ($EMU_TIMED_CAP), one seed each: a
 * decode-like shape, run as a GPU would time it.
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
#include "strong.h"

void emu_cpu_kernel(const struct sc_cpu_thread *t, void **params);

/* The baseline of the timing: the CPU reference on the device buffers of
 * the launch (float32 views of half-precision ones), once per launch. The
 * size comes from the launch's scalars (a scalar whose value is a size
 * variable), else from base_size. */
static const struct sc_spec *base_spec;
static sc_ref_fn base_ref;
static struct sc_size_set base_size;

static void ref_kernel(const struct sc_cpu_thread *t, void **params)
{
	struct sc_ref_args a;
	float *view[SC_REF_MAX_PARAMS] = { 0 };
	struct sc_expr_var vars[SC_SPEC_MAX_VARS + SC_SPEC_MAX_TUNABLES];
	struct sc_size_set size = base_size;
	size_t nv;

	if (t->bid[0] || t->bid[1] || t->bid[2] || t->tid[0] || t->tid[1] || t->tid[2])
		return;
	for (size_t i = 0; i < base_spec->nparams; i++) {
		const struct sc_param *p = &base_spec->params[i];
		if (p->kind != SC_PARAM_SCALAR || p->dtype != SC_DTYPE_I32 || !p->value)
			continue;
		for (size_t v = 0; v < base_spec->nsize_vars; v++)
			if (!strcmp(p->value, base_spec->size_vars[v]))
				size.v[v] = *(int32_t *)params[i];
	}
	nv = sc_spec_vars(vars, base_spec, &size, NULL);
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
		a.size[i] = size.v[i];
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

static double work(const struct sc_spec *spec, const struct sc_size_set *s)
{
	double w = 1;
	for (size_t v = 0; v < spec->nsize_vars; v++)
		w *= (double)s->v[v];
	return w;
}

/* The same, a flag's 0 (causal, flip) counted as 1, not as no work: what
 * an extra timed shape costs the emulation. */
static double shape_work(const struct sc_spec *spec, const struct sc_size_set *s)
{
	double w = 1;
	for (size_t v = 0; v < spec->nsize_vars; v++)
		w *= s->v[v] > 0 ? (double)s->v[v] : 1.0;
	return w;
}

/* The correctness size with the most work (the product of its sizes),
 * other than skip. */
static size_t largest_size(const struct sc_spec *spec, size_t skip)
{
	size_t best = skip == 0 && spec->ncorrectness > 1 ? 1 : 0;
	double most = -1;
	for (size_t i = 0; i < spec->ncorrectness; i++) {
		double w = work(spec, &spec->correctness[i]);
		if (i != skip && w > most) {
			most = w;
			best = i;
		}
	}
	return best;
}

static int usage(void)
{
	fprintf(stderr, "usage: emu_check --fixture DIR [--candidate FILE] [--defines|--trampoline] [--seeds N] [--secret S]\n"
			"                 [--shapes 1|2] [--no-timing] [--no-strong] [--timed-shapes]\n");
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

/* Prints the failure line of a timing (or the strong phase's) and returns 1. */
static int timing_failed(enum sc_check_reason reason, double ratio, size_t runs, const char *msg)
{
	printf("failed\t%s\t%.3f\t%zu\t%s\n",
	       reason == SC_REASON_MISMATCH || reason == SC_REASON_STALE ? "revalidation" : sc_check_reason_name(reason),
	       ratio, runs, msg);
	return 1;
}

/* The spec's extra timed shapes (extra_timing_sizes: the production
 * size is never small enough) whose sizes multiply to at most 2^22 (or
 * $EMU_TIMED_CAP), each checked like a correctness size with one seed; 0
 * when all pass (or none is small enough), 1 after printing the failure. */
static int check_timed_shapes(struct sc_device *dev, const struct sc_spec *spec, const struct sc_kernel_handle *k,
			      sc_ref_fn ref)
{
	struct sc_spec one = *spec;  /* shallow: its strings stay spec's */
	struct sc_check_opts o = { .nseeds = 1, .seed_base = 77, .timeout_ms = 10000 };
	struct sc_check_result r;
	const char *cap_env = getenv("EMU_TIMED_CAP");
	double cap = cap_env && *cap_env ? strtod(cap_env, NULL) : 4194304.0;

	for (size_t i = 1; i < spec->ntimed; i++) {
		if (shape_work(spec, &spec->timed[i]) > cap)
			continue;
		one.correctness[0] = spec->timed[i];
		one.ncorrectness = 1;
		if (sc_harness_check(&r, dev, &one, k, ref, &o) < 0) {
			fprintf(stderr, "emu_check: %s\n", sc_error_last());
			return 1;
		}
		if (!r.ok) {
			printf("failed\t%s\t%.3f\t%zu\tat the spec's timed shape %zu: %s\n", sc_check_reason_name(r.reason),
			       r.max_ratio, r.launches, i, r.message);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *fixture = NULL, *candidate = NULL;
	bool defines = false, trampoline = false, timing = true, strong = true, timed_shapes = false;
	int seeds = 5, rc = 3, nshapes = 2;
	uint64_t secret = 0;
	struct sc_buf path = SC_BUF_INIT, src = SC_BUF_INIT;
	struct sc_spec spec;
	struct sc_tunable_values tun;
	struct sc_device *dev = NULL, *bdev = NULL;
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
		else if (!strcmp(argv[i], "--secret") && i + 1 < argc)
			secret = strtoull(argv[++i], NULL, 0);
		else if (!strcmp(argv[i], "--shapes") && i + 1 < argc)
			nshapes = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--no-timing"))
			timing = false;
		else if (!strcmp(argv[i], "--no-strong"))
			strong = false;
		else if (!strcmp(argv[i], "--timed-shapes"))
			timed_shapes = true;
		else if (!strcmp(argv[i], "--defines"))
			defines = true;
		else if (!strcmp(argv[i], "--trampoline"))
			trampoline = true;
		else
			return usage();
	}
	if (!fixture || (!candidate && !trampoline) || seeds < 1 || nshapes < 1 || nshapes > 2)
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
	if (!secret) {
		sc_random_bytes(&secret, sizeof(secret));
		secret |= 1;
		fprintf(stderr, "emu_check: secret 0x%016llx\n", (unsigned long long)secret);
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
		struct sc_check_opts o = { .nseeds = seeds, .seed_base = 1, .timeout_ms = 10000, .repeat = true };
		if (sc_harness_check(&r, dev, &spec, &k, ref, &o) < 0) {
			fprintf(stderr, "emu_check: %s\n", sc_error_last());
			goto done;
		}
	}
	if (r.ok && timed_shapes && check_timed_shapes(dev, &spec, &k, ref)) {
		rc = 1;
		goto done;
	}
	if (r.ok && timing) {
		struct sc_kernel_handle b;
		struct sc_timing_result tr;
		/* the secret draws the inputs and the launches checked */
		struct sc_timing_opts_run to = { .timeout_ms = 10000, .secret = secret, .burst_target_ms = 0.04, .ref = ref };
		struct sc_size_set shapes[2];
		size_t spot = 0;
		/* shapes the correctness check never used, as on a GPU: the
		 * largest correctness size and the second largest, each with
		 * its first size one larger; 2 warm-up launches, 3 repetitions
		 * (each of every distribution) of bursts of 2 (the emulation is
		 * slow) */
		shapes[0] = spec.correctness[largest_size(&spec, SIZE_MAX)];
		shapes[1] = spec.correctness[largest_size(&spec, largest_size(&spec, SIZE_MAX))];
		shapes[0].v[0] += 1;
		shapes[1].v[0] += 1;
		spec.topts.warmup = 2;
		spec.topts.min_reps = 3;
		spec.topts.max_reps = 3;
		spec.topts.target_rse = 0;
		base_spec = &spec;
		base_ref = ref;
		memset(&b, 0, sizeof(b));
		b.tun = tun;
		if (dev->open_sibling(dev, &bdev) < 0 || bdev->load(bdev, "ref", 3, spec.entry, &b.fn) < 0) {
			fprintf(stderr, "emu_check: timing: %s\n", sc_error_last());
			goto done;
		}
		for (int s = 0; s < nshapes; s++) {
			base_size = shapes[s];
			to.shape = &shapes[s];
			if (sc_harness_time(&tr, dev, bdev, &spec, &k, &b, &to) < 0) {
				fprintf(stderr, "emu_check: timing: %s\n", sc_error_last());
				goto done;
			}
			spot += tr.spot_checks;
			if (!tr.ok) {
				rc = timing_failed(tr.reason, r.max_ratio, r.launches + spot, tr.message);
				goto done;
			}
		}
		/* the check after timing, with a secret seed, at the first size */
		{
			struct sc_check_opts o = { .nseeds = 1, .seed_base = secret, .timeout_ms = 10000, .max_sizes = 1,
						   .secret_seeds = true };
			struct sc_check_result again;
			if (sc_harness_check(&again, dev, &spec, &k, ref, &o) < 0) {
				fprintf(stderr, "emu_check: %s\n", sc_error_last());
				goto done;
			}
			if (!again.ok) {
				rc = timing_failed(again.reason, again.max_ratio, r.launches + spot + again.launches,
						   again.message);
				goto done;
			}
		}
		/* the strong reference's phase: the CPU reference standing in
		 * for the fixture's solution, at the last shape */
		if (strong) {
			struct sc_strong_result sr;
			base_size = shapes[nshapes - 1];
			if (sc_strong_time_solution(&sr, dev, bdev, &spec, ref, &k, &b,
						    "the CPU reference (the emulation's stand-in for the fixture's solution)",
						    &to, &shapes[nshapes - 1], 1) < 0) {
				fprintf(stderr, "emu_check: strong reference: %s\n", sc_error_last());
				goto done;
			}
			if (sr.failed) {
				rc = timing_failed(sr.reason, r.max_ratio, r.launches + spot, sr.message);
				goto done;
			}
			if (!sr.done) {
				fprintf(stderr, "emu_check: strong reference not timed: %s\n", sr.why);
				goto done;
			}
		}
	}
	printf("%s\t%s\t%.3f\t%zu\t%s\n", r.ok ? "passed" : "failed", sc_check_reason_name(r.reason), r.max_ratio,
	       r.launches, r.ok ? "" : r.message);
	rc = r.ok ? 0 : 1;
done:
	if (bdev)
		bdev->close(bdev);
	if (dev)
		dev->close(dev);
	sc_spec_release(&spec);
	sc_buf_release(&path);
	sc_buf_release(&src);
	return rc;
}
