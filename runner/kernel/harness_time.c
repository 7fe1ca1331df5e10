/*
 * The harness's timing (harness.h): the candidate and the baseline
 * interleaved, fresh inputs generated on the device for every timed
 * launch, bursts for short kernels, timed launches drawn afterwards and
 * checked in full, the re-validation on fresh state, and the statistics
 * of the samples (median, quantiles).
 */
#include "common.h"
#include "half.h"
#include "harness_parts.h"

#include <math.h>

/* ---- statistics ---- */

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double quantile(const double *sorted, size_t n, double q)
{
	double pos = q * (double)(n - 1);
	size_t lo = (size_t)floor(pos);
	size_t hi = lo + 1 < n ? lo + 1 : lo;
	return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - (double)lo);
}

void sc_timing_stats_compute(struct sc_timing_stats *out, double *x, size_t n)
{
	double sum = 0, ss = 0;

	memset(out, 0, sizeof(*out));
	out->n = n;
	if (n == 0)
		return;
	qsort(x, n, sizeof(*x), cmp_double);
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	out->mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += (x[i] - out->mean) * (x[i] - out->mean);
	out->sd = n > 1 ? sqrt(ss / (double)(n - 1)) : 0;
	out->rse = out->mean > 0 && n > 1 ? out->sd / sqrt((double)n) / out->mean : (n > 1 ? INFINITY : 0);
	out->median = quantile(x, n, 0.5);
	out->q1 = quantile(x, n, 0.25);
	out->q3 = quantile(x, n, 0.75);
	out->iqr = out->q3 - out->q1;
	out->min = x[0];
	out->max = x[n - 1];
}

/* ---- timing ---- */

/* A value derived from the run's secret, one per tag. */
static uint64_t derive(uint64_t secret, uint64_t tag)
{
	uint64_t x = secret ^ (tag + 1) * 0xd1b54a32d192ed03ULL;
	return splitmix(&x);
}

/* Overwrites host memory that held answers before it is freed or reused,
 * so that nothing of them is left for a kernel that reads host memory. */
static void wipe(void *p, size_t n)
{
	if (p)
		explicit_bzero(p, n);
}

struct timed {
	struct sc_device *d;
	const struct sc_kernel_handle *k;
	const char *who;        /* "candidate" or "baseline" */
	unsigned grid[3], block[3], shared;
	uint64_t flush;         /* on d: twice the L2 */
	int64_t flush_words;
	int burst;              /* launches per timed interval, each on its own set */
	int nsets;              /* sets allocated */
	/* SC_HARNESS_BURST_MAX sets: distribution d's burst at [d * burst,
	 * (d + 1) * burst), so that each distribution's launches of a
	 * repetition keep their buffers until they are checked */
	struct sc_harness_instance *sets;
	/* per distribution d, sample n at [d * cap + n] */
	double *ev, *host, *span;
	size_t cap;
	size_t launch_bound;    /* bursts that issued no faster than they ran */
};

/* Seed of the inputs of launch s of repetition rep: the same on both
 * sides, never the same twice in a run. */
static uint64_t launch_seed(uint64_t secret, size_t rep, int s)
{
	return derive(secret, 0x10000000ULL + (uint64_t)rep * SC_HARNESS_BURST_MAX + (uint64_t)s);
}

/*
 * Fresh inputs in set (every in/inout buffer regenerated on the device
 * from seed, each parameter from its own stream) and its outputs and
 * scratch poisoned. Returns the buffers regenerated.
 */
static int refresh(struct sc_device *d, const struct sc_spec *spec, struct sc_harness_instance *set,
		   uint64_t seed, size_t dist, size_t *fresh)
{
	int err;

	set->dist = dist;
	set->gen_seed = seed;
	for (size_t i = 0; i < set->nparams; i++) {
		const struct sc_param *p = &spec->params[i];
		if (!set->count[i])
			continue;
		if (p->role == SC_ROLE_OUT || p->role == SC_ROLE_SCRATCH) {
			err = sc_harness_poison(d, set->dptr[i], p->dtype, set->count[i], false);
		} else {
			const struct sc_dist *dd = p->ninit ? &p->init[set->dist < p->ninit ? set->dist : p->ninit - 1]
							      : &(struct sc_dist){ SC_DIST_UNIFORM, -1, 1 };
			err = d->fill(d, set->dptr[i], (int)p->dtype, set->count[i], (int)dd->kind, dd->a, dd->b,
				      sc_harness_mix_seed(seed, i, set->dist, SIZE_MAX));
			(*fresh)++;
		}
		if (err < 0)
			return err;
	}
	return 0;
}

/*
 * One timed interval of t's kernel on inputs of distribution dist (the
 * seeds of launch group li), recorded as sample n of that distribution.
 * Outside the interval: every set of the burst gets fresh inputs and
 * poisoned outputs (waited for), persisting L2 reset.
 * Then, queued back to back with no host wait in between: record event
 * 0, flush the L2 (a memset over twice its size), record event 1, the
 * launch (or the burst: one launch per set), record event 2; and only
 * then the host waits, polling event 2. The kernel's time is event 1 to
 * 2 divided by the burst; event 0 to 2 against the host clock around
 * everything is the cross-check for work the events do not see.
 */
static int time_one(struct timed *t, const struct sc_spec *spec, uint64_t secret, size_t li, size_t dist,
		    int timeout_ms, size_t n, size_t *fresh, enum sc_check_reason *reason)
{
	struct sc_device *d = t->d;
	int64_t h0, h1, i0, i1;
	double ms, span;
	size_t rep = li;
	int err;

	struct sc_harness_instance *sets = &t->sets[dist * (size_t)t->burst];

	for (int s = 0; s < t->burst; s++)
		if ((err = refresh(d, spec, &sets[s], launch_seed(secret, li, s), dist, fresh)) < 0)
			return err;
	/* The generator and the poison are queued on the stream: wait for
	 * them here, so that the host clock around the interval (the
	 * cross-check) does not count them. */
	if ((err = d->sync(d, timeout_ms)) < 0) {
		*reason = strstr(sc_error_last(), "time limit") ? SC_REASON_TIMEOUT : SC_REASON_LAUNCH;
		return err;
	}
	if ((err = d->reset_l2(d)) < 0)
		return err;
	h0 = d->host_ns(d);
	if ((err = d->event_record(d, 0)) < 0 ||
	    (err = d->memset32(d, t->flush, (uint32_t)rep * 2654435761u, (size_t)t->flush_words)) < 0 ||
	    (err = d->event_record(d, 1)) < 0)
		return err;
	i0 = d->host_ns(d);
	for (int s = 0; s < t->burst; s++)
		if ((err = d->launch(d, t->k->fn, t->grid, t->block, t->shared, sets[s].params)) < 0)
			goto launch_failed;
	i1 = d->host_ns(d);
	if ((err = d->event_record(d, 2)) < 0)
		return err;
	if ((err = d->event_wait(d, 2, timeout_ms)) < 0)
		goto launch_failed;
	h1 = d->host_ns(d);
	if ((err = d->event_elapsed(d, 1, 2, &ms)) < 0 || (err = d->event_elapsed(d, 0, 2, &span)) < 0)
		return err;
	t->ev[dist * t->cap + n] = ms / t->burst;
	t->span[dist * t->cap + n] = span;
	t->host[dist * t->cap + n] = (double)(h1 - h0) / 1e6;
	/* Issuing the burst took as long as running it: the launches, not
	 * the kernel, set the pace. */
	if (t->burst > 1 && (double)(i1 - i0) / 1e6 >= 0.8 * ms)
		t->launch_bound++;
	return 0;
launch_failed:
	*reason = strstr(sc_error_last(), "time limit") ? SC_REASON_TIMEOUT : SC_REASON_LAUNCH;
	return err;
}

static size_t instance_bytes(const struct sc_harness_instance *in)
{
	size_t b = 0;
	for (size_t i = 0; i < in->nparams; i++)
		b += in->count[i] * in->esize[i] + 2 * SC_HARNESS_GUARD_BYTES;
	return b;
}

/*
 * The timing's comparisons take the baseline's output as the answer and
 * have no reference to give each element's sum of |terms|: where the spec
 * has terms_rtol, the allowance bounds the terms by the largest finite
 * magnitude among the baseline's n outputs (want, float32 for float
 * types), terms_rtol times that, added to atol.
 */
static double terms_allowance(const struct sc_spec *spec, const struct sc_param *p, const void *want, size_t n)
{
	double m = 0;

	if (spec->terms_rtol <= 0 || !sc_dtype_is_float(p->dtype))
		return 0;
	for (size_t i = 0; i < n; i++) {
		double w = fabs(((const float *)want)[i]);
		if (isfinite(w) && w > m)
			m = w;
	}
	return spec->terms_rtol * m;
}

/*
 * Compares the candidate's outputs in a with the baseline's in b (each
 * downloaded from its own device into memory wiped afterwards) by every
 * rule of the correctness check, the baseline's output standing for the
 * reference. Both outputs are approximations, each within the tolerance
 * of the reference (a bfloat16 baseline rounded once is up to half of it
 * away, a library's eager evaluation up to all of it), so every rule
 * allows the two together: each element within twice the spec's atol
 * (with the terms allowance, terms_rtol bounded as terms_allowance says)
 * and rtol, still far inside what skipped work, stale or cached outputs
 * get wrong; the mean signed error, in units of that doubled tolerance,
 * within the spec's bound (two results each within the bound of the
 * reference differ by at most twice it in units of one tolerance: a
 * result rounded toward zero only where it is timed still shows); and
 * outputs that a constant would not pass at that allowance (judged on a
 * buffer of at least SC_HARNESS_CONSTANT_MIN elements: the inputs of
 * timed launches are drawn afresh each time, and a handful of random
 * sums can land within the tolerance of their mean by chance). On a
 * failure sets out's reason and message (prefixed by what) and *good
 * false.
 */
static int compare_outputs(struct sc_timing_result *out, const struct sc_spec *spec,
			   struct sc_harness_instance *a, struct sc_device *da,
			   struct sc_harness_instance *b, struct sc_device *db, const char *what,
			   bool *good)
{
	int err = 0;

	*good = true;
	for (size_t i = 0; i < spec->nparams && *good; i++) {
		const struct sc_param *p = &spec->params[i];
		struct sc_compare c;
		size_t bytes = a->count[i] * a->esize[i];
		void *got, *base;
		const void *want;
		float *wide = NULL;
		if (p->kind != SC_PARAM_BUFFER || p->role == SC_ROLE_IN || p->role == SC_ROLE_SCRATCH)
			continue;
		got = sc_xmalloc(bytes);
		base = sc_xmalloc(bytes);
		want = base;
		if ((err = da->dtoh(da, got, a->dptr[i], bytes)) < 0 || (err = db->dtoh(db, base, b->dptr[i], bytes)) < 0) {
			free(got);
			free(base);
			return err;
		}
		if (sc_dtype_is_half(p->dtype)) {
			/* The baseline's output is the reference here: widen it. */
			wide = sc_xmalloc(b->count[i] * sizeof(float));
			sc_half_decode(wide, p->dtype, base, b->count[i]);
			want = wide;
		}
		sc_harness_compare(&c, p->dtype, got, want, a->count[i],
				   2 * (spec->atol + terms_allowance(spec, p, want, a->count[i])), 2 * spec->rtol);
		wipe(wide, wide ? b->count[i] * sizeof(float) : 0);
		wipe(base, bytes);
		free(wide);
		free(base);
		free(got);
		if (c.nbad) {
			out->reason = c.nstale == c.nbad ? SC_REASON_STALE : SC_REASON_MISMATCH;
			set_msg(out->message, sizeof(out->message),
				"%s failed: '%s'[%zu] = %.9g, baseline gives %.9g; %zu of %zu elements differ (work skipped, results cached, or wrong after repeated calls?)",
				what, p->name, c.worst_index, c.worst_got, c.worst_want, c.nbad, a->count[i]);
			*good = false;
		} else if (sc_harness_biased(&c, spec->max_mean_signed_error)) {
			out->reason = SC_REASON_MISMATCH;
			set_msg(out->message, sizeof(out->message),
				"%s failed: biased result: '%s' errs %s by %.3f of the tolerance on average over %zu elements (allowed %.3g, noise %.3g) against the baseline; every element is within tolerance, but the rounding leans one way where it is timed",
				what, p->name,
				c.bias_toward_zero ? (c.bias < 0 ? "toward zero" : "away from zero") : (c.bias < 0 ? "low" : "high"),
				fabs(c.bias), c.bias_n, spec->max_mean_signed_error, c.bias_noise);
			*good = false;
		} else if (c.constant_passes && a->count[i] >= SC_HARNESS_CONSTANT_MIN) {
			out->reason = SC_REASON_CONSTANT;
			set_msg(out->message, sizeof(out->message),
				"%s: output '%s' is near-constant at the timed shape (a constant would pass the tolerance), so this check cannot judge the kernel; the fixture needs outputs well above atol there",
				what, p->name);
			*good = false;
		}
	}
	return err;
}

/*
 * Every guard of set intact and, where the set has a host copy of its
 * inputs, every input still what was uploaded. who names whose buffers
 * they are. On a failure sets out's reason and message and *good false.
 */
static int check_integrity(struct sc_timing_result *out, struct sc_device *d, const struct sc_spec *spec,
			   struct sc_harness_instance *set, const char *who, bool *good)
{
	const size_t gw = SC_HARNESS_GUARD_BYTES / 4;
	uint32_t *guard = sc_xmalloc(SC_HARNESS_GUARD_BYTES);
	int err = 0;

	*good = true;
	for (size_t i = 0; i < set->nparams && *good; i++) {
		const struct sc_param *p = &spec->params[i];
		if (!set->count[i])
			continue;
		for (int side = 0; side < 2 && *good; side++) {
			uint64_t at = side ? set->dptr[i] + set->count[i] * set->esize[i] : set->base[i];
			if ((err = d->dtoh(d, guard, at, SC_HARNESS_GUARD_BYTES)) < 0)
				goto done;
			for (size_t w = 0; w < gw && *good; w++)
				if (guard[w] != SC_HARNESS_CANARY) {
					out->reason = SC_REASON_OUT_OF_BOUNDS;
					set_msg(out->message, sizeof(out->message),
						"during timing, memory %s the %s's buffer '%s' was written (out of bounds)",
						side ? "past the end of" : "before", who, p->name);
					*good = false;
				}
		}
		if (!*good || p->role != SC_ROLE_IN || !set->host_in[i])
			continue;
		if ((err = d->dtoh(d, set->got[i], set->dptr[i], set->count[i] * set->esize[i])) < 0)
			goto done;
		if (memcmp(set->got[i], set->host_in[i], set->count[i] * set->esize[i])) {
			size_t first = 0, es = set->esize[i];
			while (first < set->count[i] &&
			       !memcmp((char *)set->got[i] + first * es, (char *)set->host_in[i] + first * es, es))
				first++;
			out->reason = SC_REASON_INPUT_MODIFIED;
			set_msg(out->message, sizeof(out->message),
				"during timing, the %s's input '%s' changed (first changed element %zu); inputs are read-only",
				who, p->name, first);
			*good = false;
		}
	}
done:
	free(guard);
	return err;
}

/*
 * The full check of one timed launch: guards of both sides, the
 * candidate's read-only inputs against the baseline's (both generated
 * from the same seed, so equal unless the candidate wrote them), then the
 * outputs against the baseline's.
 */
static int check_launch(struct sc_timing_result *out, struct timed t[2], const struct sc_spec *spec, int s,
			const char *what, bool *good)
{
	struct sc_harness_instance *a = &t[0].sets[s], *b = &t[1].sets[s];
	int err = 0;

	out->spot_checks++;
	for (int w = 0; w < 2; w++)
		if ((err = check_integrity(out, t[w].d, spec, &t[w].sets[s], t[w].who, good)) < 0 || !*good)
			return err;
	/* Each side's read-only inputs against a witness generated now, on
	 * the baseline's device, from the same seed: a change names the side
	 * whose copy changed. */
	for (size_t i = 0; i < spec->nparams && *good; i++) {
		const struct sc_param *p = &spec->params[i];
		size_t bytes = a->count[i] * a->esize[i], es = a->esize[i];
		const struct sc_dist *dd;
		uint64_t wit;
		void *want, *got;
		if (!a->count[i] || p->role != SC_ROLE_IN)
			continue;
		dd = p->ninit ? &p->init[a->dist < p->ninit ? a->dist : p->ninit - 1] : &(struct sc_dist){ SC_DIST_UNIFORM, -1, 1 };
		if ((err = t[1].d->alloc(t[1].d, &wit, bytes)) < 0)
			return err;
		want = sc_xmalloc(bytes);
		got = sc_xmalloc(bytes);
		if ((err = t[1].d->fill(t[1].d, wit, (int)p->dtype, a->count[i], (int)dd->kind, dd->a, dd->b,
					sc_harness_mix_seed(a->gen_seed, i, a->dist, SIZE_MAX))) < 0 ||
		    (err = t[1].d->dtoh(t[1].d, want, wit, bytes)) < 0)
			goto input_done;
		for (int w = 0; w < 2 && *good; w++) {
			struct sc_harness_instance *in = &t[w].sets[s];
			size_t first = 0;
			if ((err = t[w].d->dtoh(t[w].d, got, in->dptr[i], bytes)) < 0)
				goto input_done;
			if (!memcmp(got, want, bytes))
				continue;
			while (first < a->count[i] && !memcmp((char *)got + first * es, (char *)want + first * es, es))
				first++;
			out->reason = SC_REASON_INPUT_MODIFIED;
			set_msg(out->message, sizeof(out->message),
				"during timing, the %s's input '%s' changed (first changed element %zu; %s); inputs are read-only",
				t[w].who, p->name, first, what);
			*good = false;
		}
input_done:
		t[1].d->free(t[1].d, wit);
		free(want);
		free(got);
		if (err < 0)
			return err;
	}
	if (!*good)
		return 0;
	return compare_outputs(out, spec, a, t[0].d, b, t[1].d, what, good);
}

/*
 * A draw that decides which launches are checked. It is made after the
 * launches ran, from the run's secret in a test (repeatable) and from
 * the operating system otherwise, so that nothing in the worker's memory
 * while a kernel runs tells which of its launches will be checked.
 */
static uint64_t check_draw(uint64_t *prng, bool repeatable)
{
	uint64_t v;
	if (repeatable)
		return splitmix(prng);
	sc_random_bytes(&v, sizeof(v));
	return v;
}

/*
 * The checks of one distribution's launches of a repetition, drawn after
 * they ran: one launch in check_every in single mode,
 * SC_HARNESS_BURST_CHECKS launches of every burst (all of a shorter one),
 * and the whole of the last repetition.
 */
static int check_rep(struct sc_timing_result *out, struct timed t[2], const struct sc_spec *spec, size_t rep,
		     size_t dist, bool last, int check_every, uint64_t *prng, bool repeatable, bool *good)
{
	int burst = t[0].burst, at = (int)dist * burst;
	char what[160];
	int err = 0;

	*good = true;
	if (last || burst == 1) {
		if (!last && check_draw(prng, repeatable) % (uint64_t)check_every)
			return 0;
		for (int s = 0; s < burst && *good; s++) {
			snprintf(what, sizeof(what), "the check of timed launch %d of repetition %zu%s, distribution %zu",
				 s + 1, rep + 1, last ? " (the last)" : "", dist);
			if ((err = check_launch(out, t, spec, at + s, what, good)) < 0)
				return err;
		}
		return 0;
	}
	for (int c = 0; c < SC_HARNESS_BURST_CHECKS && *good; c++) {
		int s = burst <= SC_HARNESS_BURST_CHECKS ? c : (int)(check_draw(prng, repeatable) % (uint64_t)burst);
		if (s >= burst)
			break;
		snprintf(what, sizeof(what), "the check of launch %d of the burst of repetition %zu, distribution %zu", s + 1,
			 rep + 1, dist);
		if ((err = check_launch(out, t, spec, at + s, what, good)) < 0)
			return err;
	}
	return 0;
}

static bool shares_address(const struct sc_harness_instance *a,
			   const struct sc_harness_instance *sets, int nsets)
{
	for (int r = 0; r < nsets; r++)
		for (size_t i = 0; i < a->nparams; i++)
			for (size_t j = 0; j < sets[r].nparams; j++)
				if (a->count[i] && sets[r].count[j] && a->dptr[i] == sets[r].dptr[j])
					return true;
	return false;
}

/*
 * The re-validation on fresh state: the candidate's module loaded again
 * (its __device__ variables back to their initial values), new buffers
 * allocated while the timing buffers are still held (so at new
 * addresses), inputs from a secret seed, at the timing size; the output
 * must match the baseline's on the same inputs.
 */
static int fresh_revalidation(struct sc_timing_result *out, struct timed *t, const struct sc_spec *spec,
			      uint64_t secret, int timeout_ms, sc_ref_fn ref, enum sc_check_reason *reason, int *side,
			      bool *good)
{
	struct sc_kernel_handle fresh = *t[0].k;
	struct sc_harness_instance f[2];
	int err;

	*good = true;
	memset(f, 0, sizeof(f));
	if (t[0].k->image &&
	    (err = t[0].d->load(t[0].d, t[0].k->image, t[0].k->image_len, t[0].k->entry, &fresh.fn)) < 0)
		return err;
	if ((err = sc_harness_instance_host(&f[0], spec, &spec->timing, SIZE_MAX, (size_t)(secret % spec->ndists),
	    derive(secret, 0x5eed), true)) < 0)
		goto done;
	sc_harness_instance_copy_host(&f[1], &f[0]);
	for (int w = 0; w < 2; w++) {
		if ((err = sc_harness_instance_alloc(&f[w], t[w].d)) < 0 ||
		    (err = sc_harness_instance_reset(&f[w], t[w].d, spec, true, false)) < 0)
			goto done;
		sc_harness_instance_bind_scalars(&f[w], spec);
	}
	out->fresh_addresses = !shares_address(&f[0], t[0].sets, t[0].nsets);
	for (int w = 0; w < 2; w++) {
		const struct sc_kernel_handle *k = w ? t[1].k : &fresh;
		*side = w;
		if ((err = sc_harness_launch_and_wait(t[w].d, k, &f[w], t[w].grid, t[w].block, t[w].shared, timeout_ms, reason)) < 0)
			goto done;
	}
	if ((err = check_integrity(out, t[0].d, spec, &f[0], "candidate", good)) < 0 || !*good)
		goto done;
	if (ref) {
		/* every rule of the correctness check, against the CPU
		 * reference (computed now, after the launch) */
		struct sc_check_result cr;
		memset(&cr, 0, sizeof(cr));
		sc_harness_instance_ref(&f[0], spec, &spec->timing, ref);
		out->reference_judged = true;
		if ((err = sc_harness_judge(&cr, t[0].d, spec, &f[0], &spec->timing, SIZE_MAX, f[0].dist, 0, "a secret seed", good)) <
		    0 ||
		    *good)
			goto done;
		out->reason = cr.reason;
		set_msg(out->message, sizeof(out->message),
			"re-validation on fresh state (module reloaded, new buffers, secret inputs) against the CPU reference failed: %s",
			cr.message);
		goto done;
	}
	err = compare_outputs(out, spec, &f[0], t[0].d, &f[1], t[1].d,
			      "re-validation on fresh state (module reloaded, new buffers, secret inputs)", good);
done:
	sc_harness_instance_release(&f[0], *reason == SC_REASON_NONE ? t[0].d : NULL);
	sc_harness_instance_release(&f[1], *reason == SC_REASON_NONE ? t[1].d : NULL);
	return err;
}

/* Allocates sets [from, to) of t on its device: the timing size's shapes,
 * distributions in turn, no host copies (inputs are generated there). */
static int alloc_sets(struct timed *t, const struct sc_spec *spec, int from, int to)
{
	int err;
	for (int s = from; s < to; s++) {
		if ((err = sc_harness_instance_host(&t->sets[s], spec, &spec->timing, SIZE_MAX, 0, 0, false)) < 0 ||
		    (err = sc_harness_instance_alloc(&t->sets[s], t->d)) < 0)
			return err;
		sc_harness_instance_bind_scalars(&t->sets[s], spec);
	}
	return 0;
}

/*
 * The statistics of n repetitions: each distribution's medians and
 * speedup, then the candidate's and baseline's statistics of the
 * distribution where the speedup is least (the one no other distribution
 * can hide), the rates and the roofline.
 */
static void summarise(struct sc_timing_result *out, struct timed t[2], size_t n, size_t ndists,
		      const struct sc_device_info *info, enum sc_peak peak_kind)
{
	struct sc_timing_side *side[2] = { &out->cand, &out->base };
	double secs, tmin_bw = 0, tmin = 0, tmin32 = 0;
	size_t worst = 0;

	out->ndists = ndists;
	for (size_t d = 0; d < ndists; d++) {
		struct sc_timing_stats a, b;
		sc_timing_stats_compute(&a, t[0].ev + d * t[0].cap, n);
		sc_timing_stats_compute(&b, t[1].ev + d * t[1].cap, n);
		out->dist[d].cand_ms = a.median;
		out->dist[d].base_ms = b.median;
		out->dist[d].speedup = a.median > 0 ? b.median / a.median : INFINITY;
		if (out->dist[d].speedup < out->dist[worst].speedup)
			worst = d;
	}
	out->worst_dist = worst;
	for (int w = 0; w < 2; w++) {
		sc_timing_stats_compute(&side[w]->ev, t[w].ev + worst * t[w].cap, n);
		sc_timing_stats_compute(&side[w]->host, t[w].host + worst * t[w].cap, n);
		sc_timing_stats_compute(&side[w]->span, t[w].span + worst * t[w].cap, n);
		side[w]->burst = t[w].burst;
		side[w]->launch_bound = t[w].launch_bound * 2 > n * ndists;
	}
	out->reps = n;
	out->speedup = out->cand.ev.median > 0 ? out->base.ev.median / out->cand.ev.median : INFINITY;
	if (out->cand.ev.median <= 0)
		return;
	/* Achieved rates and the roofline: the least time the work can take,
	 * with fp32 CUDA cores, and with the faster of those and tensor cores. */
	secs = out->cand.ev.median / 1e3;
	out->cand_gbps = out->bytes / secs / 1e9;
	out->cand_gflops = out->flops / secs / 1e9;
	if (info->peak_gbps > 0)
		tmin_bw = out->bytes / (info->peak_gbps * 1e9);
	tmin32 = tmin = tmin_bw;
	if (info->peak_gflops > 0 && out->flops / (info->peak_gflops * 1e9) > tmin32)
		tmin32 = out->flops / (info->peak_gflops * 1e9);
	{
		double peak = info->peak_tc_gflops > info->peak_gflops ? info->peak_tc_gflops : info->peak_gflops;
		if (peak_kind == SC_PEAK_TENSOR && info->peak_tc16_gflops > peak)
			peak = info->peak_tc16_gflops;
		if (peak > 0 && out->flops / (peak * 1e9) > tmin)
			tmin = out->flops / (peak * 1e9);
	}
	if (peak_kind == SC_PEAK_TENSOR) {
		/* tensor cores are the point here: no fp32 note */
		if (tmin > 0)
			out->pct_peak = 100.0 * tmin / secs;
	} else if (tmin32 > 0) {
		out->pct_peak = 100.0 * tmin32 / secs;
		out->ceiling_fp32 = out->base.ev.median / 1e3 / tmin32;
	}
	if (tmin > 0)
		out->ceiling = out->base.ev.median / 1e3 / tmin;
	if (out->ceiling > 0 && out->speedup > out->ceiling) {
		out->suspect = true;
		set_msg(out->suspect_why, sizeof(out->suspect_why),
			"speedup %.2fx is above the roofline ceiling %.2fx (DRAM bandwidth and tensor-core peak): the kernel cannot have done the work",
			out->speedup, out->ceiling);
	} else if (out->ceiling_fp32 > 0 && out->speedup > out->ceiling_fp32) {
		out->beyond_fp32 = true;
		set_msg(out->note, sizeof(out->note),
			"speedup %.2fx is above what fp32 CUDA cores allow (%.2fx): tensor cores (e.g. 3xTF32) can do that; suspect otherwise",
			out->speedup, out->ceiling_fp32);
	}
	if (out->cand.host.median > out->cand.span.median * 1.5 + 0.2) {
		out->suspect = true;
		set_msg(out->suspect_why, sizeof(out->suspect_why),
			"events measured %.3f ms but the host clock %.3f ms: work the events do not see (a side stream?)",
			out->cand.span.median, out->cand.host.median);
	}
	if (out->cand.launch_bound)
		set_msg(out->note, sizeof(out->note),
			"the kernel is shorter than a launch: its bursts ran as fast as they were issued, so %.4f ms is an upper bound",
			out->cand.ev.median);
}

int sc_harness_time(struct sc_timing_result *out, struct sc_device *d, struct sc_device *bd,
		    const struct sc_spec *spec_in, const struct sc_kernel_handle *cand,
		    const struct sc_kernel_handle *base, const struct sc_timing_opts_run *opts)
{
	struct timed t[2];
	struct sc_expr_var vars[SC_SPEC_MAX_VARS + SC_SPEC_MAX_TUNABLES];
	/* The spec with the shape timed as its timing size: a shallow copy
	 * (its strings stay spec_in's; never released). */
	struct sc_spec shaped = *spec_in;
	const struct sc_spec *spec = &shaped;
	size_t nv, n = 0, nwarm, li = 0, ndists = spec_in->ndists ? spec_in->ndists : 1;
	int maxrep = spec->topts.max_reps, err = 0, nalloc = 1, side = 0;
	int check_every = opts->check_every > 0 ? opts->check_every : SC_HARNESS_CHECK_EVERY;
	int64_t budget, start, fl = 0, by = 0;
	uint64_t secret = opts->secret, prng;
	bool repeatable = opts->secret != 0;
	double *scratch = NULL, probe;
	double below = opts->burst_below_ms > 0 ? opts->burst_below_ms : SC_HARNESS_BURST_BELOW_MS;
	double target = opts->burst_target_ms > 0 ? opts->burst_target_ms : SC_HARNESS_BURST_TARGET_MS;
	enum sc_check_reason reason = SC_REASON_NONE;
	bool good = true;
	size_t per_set;

	memset(out, 0, sizeof(*out));
	memset(t, 0, sizeof(t));
	if (opts->shape)
		shaped.timing = *opts->shape;
	out->shape = shaped.timing;
	if (!bd)
		bd = d;
	if (!secret)
		sc_random_bytes(&secret, sizeof(secret));
	prng = derive(secret, 0x6d75);
	nwarm = (size_t)(spec->topts.warmup > 2 ? spec->topts.warmup : 2);
	t[0] = (struct timed){ .d = d, .k = cand, .who = "candidate", .burst = 1 };
	t[1] = (struct timed){ .d = bd, .k = base, .who = "baseline", .burst = 1 };
	for (int w = 0; w < 2; w++) {
		if (sc_harness_geometry(t[w].grid, t[w].block, &t[w].shared, spec, &spec->timing, &t[w].k->tun) < 0) {
			out->reason = SC_REASON_CONFIG;
			set_msg(out->message, sizeof(out->message), "invalid launch of the %s at the timing size: %s",
				t[w].who, sc_error_last());
			return 0;
		}
		t[w].sets = sc_xcalloc(SC_HARNESS_BURST_MAX, sizeof(struct sc_harness_instance));
		t[w].cap = (size_t)maxrep + nwarm;
		t[w].ev = sc_xcalloc(t[w].cap * ndists, sizeof(double));
		t[w].host = sc_xcalloc(t[w].cap * ndists, sizeof(double));
		t[w].span = sc_xcalloc(t[w].cap * ndists, sizeof(double));
	}
	nv = sc_spec_vars(vars, spec, &spec->timing, NULL);
	if ((err = sc_spec_eval(&fl, spec->flops, "flops", vars, nv)) < 0 ||
	    (err = sc_spec_eval(&by, spec->bytes, "bytes", vars, nv)) < 0)
		goto done;
	out->flops = (double)fl;
	out->bytes = (double)by;

	/* One set per side and distribution for the warm-up and single
	 * launches. */
	for (int w = 0; w < 2; w++) {
		if ((err = alloc_sets(&t[w], spec, 0, (int)ndists)) < 0)
			goto done;
		t[w].nsets = (int)ndists;
	}
	nalloc = (int)ndists;
	per_set = instance_bytes(&t[0].sets[0]);
	budget = opts->mem_budget ? opts->mem_budget : d->info.mem_bytes / 2;
	for (int w = 0; w < 2; w++) {
		t[w].flush_words = 2 * t[w].d->info.l2_bytes / 4;
		if (t[w].flush_words < 1024)
			t[w].flush_words = 1024;
		if ((err = t[w].d->alloc(t[w].d, &t[w].flush, (size_t)t[w].flush_words * 4)) < 0)
			goto done;
	}

	/* Warm-up, one flushed launch at a time, each on fresh inputs (the
	 * distributions in turn) and checked like any timed launch. The
	 * baseline's times alone decide whether the pair is timed in bursts
	 * and how long a burst is (both kernels alike, so the speedup
	 * compares like with like): nothing the candidate does in the
	 * warm-up changes how it is timed. Its samples are kept apart (as
	 * distribution 0 of the probe array) and never enter the statistics. */
	for (size_t i = 0; i < nwarm; i++, li++) {
		size_t dist = i % ndists;
		for (side = 0; side < 2; side++)
			if ((err = time_one(&t[side], spec, secret, li, dist, opts->timeout_ms, i, &out->fresh_inputs,
					    &reason)) < 0)
				goto fail;
		if ((err = check_rep(out, t, spec, li, dist, false, check_every, &prng, repeatable, &good)) < 0)
			goto done;
		if (!good)
			goto done;
	}
	scratch = sc_xcalloc((size_t)maxrep + nwarm, sizeof(double));
	for (size_t i = 1; i < nwarm; i++)
		scratch[i - 1] = t[1].ev[(i % ndists) * t[1].cap + i];
	qsort(scratch, nwarm - 1, sizeof(double), cmp_double);
	probe = scratch[(nwarm - 1) / 2];
	/* the warm-up's samples are not statistics: start afresh */
	for (int w = 0; w < 2; w++) {
		memset(t[w].ev, 0, t[w].cap * ndists * sizeof(double));
		memset(t[w].host, 0, t[w].cap * ndists * sizeof(double));
		memset(t[w].span, 0, t[w].cap * ndists * sizeof(double));
		t[w].launch_bound = 0;
	}
	if (probe < below) {
		/* Each launch of a burst gets its own inputs and outputs, as
		 * many sets as the memory budget holds, a burst for each
		 * distribution. */
		int most = SC_HARNESS_BURST_MAX / (int)ndists;
		int b = probe > 0 ? (int)fmin(most, fmax(1, ceil(target / probe))) : most;
		int64_t fit = per_set ? (budget - 4 * d->info.l2_bytes) / (int64_t)(2 * per_set * ndists) : b;
		if (fit < b)
			b = fit > 1 ? (int)fit : 1;
		out->burst = true;
		nalloc = b * (int)ndists;
		for (int w = 0; w < 2; w++) {
			if ((err = alloc_sets(&t[w], spec, (int)ndists, nalloc)) < 0)
				goto done;
			t[w].burst = b;
			t[w].nsets = nalloc;
		}
	}

	/* Each repetition times every distribution (a launch or a burst of
	 * each, both kernels, who goes first alternating); each
	 * distribution's launches keep their buffers until the repetition's
	 * checks, drawn after it ran. */
	start = d->host_ns(d);
	for (n = 0; n < (size_t)maxrep;) {
		bool last;
		for (size_t dist = 0; dist < ndists; dist++, li++)
			for (int j = 0; j < 2; j++) {
				side = ((n + dist) % 2) ? 1 - j : j;
				if ((err = time_one(&t[side], spec, secret, li, dist, opts->timeout_ms, n, &out->fresh_inputs,
						    &reason)) < 0)
					goto fail;
			}
		n++;
		if (n >= (size_t)spec->topts.min_reps) {
			bool conv = true;
			for (size_t dist = 0; dist < ndists && conv; dist++)
				for (int w = 0; w < 2 && conv; w++) {
					struct sc_timing_stats st;
					memcpy(scratch, t[w].ev + dist * t[w].cap, n * sizeof(double));
					sc_timing_stats_compute(&st, scratch, n);
					conv = st.rse < spec->topts.target_rse;
				}
			out->converged = conv;
		}
		last = n == (size_t)maxrep || out->converged ||
		       (n >= (size_t)spec->topts.min_reps && (double)(d->host_ns(d) - start) / 1e9 > spec->topts.max_seconds);
		for (size_t dist = 0; dist < ndists && good; dist++)
			if ((err = check_rep(out, t, spec, n - 1, dist, last, check_every, &prng, repeatable, &good)) < 0)
				goto done;
		if (!good || last)
			break;
	}
	summarise(out, t, n, ndists, &d->info, spec->peak);
	if (!good)
		goto done;
	if ((err = fresh_revalidation(out, t, spec, secret, opts->timeout_ms,
				      opts->ref && out->flops <= SC_HARNESS_REF_MAX_FLOPS ? opts->ref : NULL, &reason, &side,
				      &good)) < 0)
		goto fail;
	out->ok = good;
	goto done;
fail:
	if (err < 0 && reason != SC_REASON_NONE) {
		out->reason = reason;
		out->device_lost = true;
		out->base_fault = side == 1;
		set_msg(out->message, sizeof(out->message), "during timing, the %s's launch: %s",
			side == 1 ? "baseline" : "candidate", sc_error_last());
		err = 0;
	}
done:
	for (int w = 0; w < 2; w++) {
		if (t[w].sets)
			for (int s = 0; s < nalloc; s++)
				sc_harness_instance_release(&t[w].sets[s], out->device_lost ? NULL : t[w].d);
		if (t[w].flush && !out->device_lost)
			t[w].d->free(t[w].d, t[w].flush);
		free(t[w].sets);
		free(t[w].ev);
		free(t[w].host);
		free(t[w].span);
	}
	free(scratch);
	return err;
}
