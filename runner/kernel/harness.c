/*
 * The kernel harness's correctness checks (harness.h): the comparison
 * with the reference (tolerances, terms, bias), judging one launch's
 * guards, inputs and outputs, the check over every size and distribution
 * and the determinism check. Inputs and instances are harness_inputs.c,
 * timing harness_time.c.
 */
#include "common.h"
#include "half.h"
#include "harness_parts.h"

#include <math.h>

const char *sc_check_reason_name(enum sc_check_reason r)
{
	switch (r) {
	case SC_REASON_NONE: return "none";
	case SC_REASON_MISMATCH: return "mismatch";
	case SC_REASON_STALE: return "stale_output";
	case SC_REASON_INPUT_MODIFIED: return "input_modified";
	case SC_REASON_OUT_OF_BOUNDS: return "out_of_bounds";
	case SC_REASON_CONSTANT: return "constant_output";
	case SC_REASON_LAUNCH: return "launch_error";
	case SC_REASON_TIMEOUT: return "timeout";
	case SC_REASON_CONFIG: return "launch_config";
	case SC_REASON_NONDETERMINISTIC: return "nondeterministic";
	}
	return "unknown";
}

/* ---- comparison ---- */

void sc_harness_compare(struct sc_compare *out, enum sc_dtype t, const void *got, const void *want,
			size_t n, double atol, double rtol)
{
	sc_harness_compare_terms(out, t, got, want, NULL, n, atol, rtol, 0);
}

bool sc_harness_biased(const struct sc_compare *c, double max_mean_signed_error)
{
	return max_mean_signed_error > 0 && c->bias_n >= 16 &&
	       fabs(c->bias) > max_mean_signed_error + c->bias_noise;
}

void sc_harness_compare_terms(struct sc_compare *out, enum sc_dtype t, const void *got,
			      const void *want, const float *terms, size_t n, double atol,
			      double rtol, double terms_rtol)
{
	double mean = 0;
	size_t nfinite = 0;
	/* sums of e_i and e_i^2 (e: signed error over the tolerance), and of
	 * e_i * sign(want_i) */
	double se = 0, se2 = 0, sz = 0, sz2 = 0;
	size_t ne = 0;

	memset(out, 0, sizeof(*out));
	out->worst_ratio = -1;
	for (size_t i = 0; i < n; i++) {
		double g, w, err, limit, ratio;
		bool bad;
		if (sc_dtype_is_float(t)) {
			bool poisoned;
			if (t == SC_DTYPE_F32) {
				uint32_t bits;
				g = ((const float *)got)[i];
				memcpy(&bits, (const float *)got + i, 4);
				poisoned = bits == SC_HARNESS_POISON_F32;
			} else {
				uint16_t h = ((const uint16_t *)got)[i];
				g = t == SC_DTYPE_BF16 ? sc_bf16_to_f32(h) : sc_f16_to_f32(h);
				poisoned = h == SC_HALF_POISON;
			}
			w = ((const float *)want)[i];
			if (isnan(w)) {
				bad = !isnan(g);
				err = bad ? INFINITY : 0;
				limit = 0;
			} else if (isinf(w)) {
				bad = g != w;
				err = bad ? INFINITY : 0;
				limit = 0;
			} else {
				limit = atol + rtol * fabs(w);
				if (terms && isfinite(terms[i]) && terms[i] > 0)
					limit += terms_rtol * terms[i];
				err = isfinite(g) ? fabs(g - w) : INFINITY;
				bad = !(err <= limit);
				mean += w;
				nfinite++;
				if (isfinite(g) && limit > 0) {
					double e = (g - w) / limit, z = w > 0 ? e : w < 0 ? -e : 0;
					se += e;
					se2 += e * e;
					sz += z;
					sz2 += z * z;
					ne++;
				}
			}
			if (bad && poisoned)
				out->nstale++;
		} else {
			uint32_t gb = ((const uint32_t *)got)[i], wb = ((const uint32_t *)want)[i];
			g = t == SC_DTYPE_I32 ? (double)(int32_t)gb : (double)gb;
			w = t == SC_DTYPE_I32 ? (double)(int32_t)wb : (double)wb;
			bad = gb != wb;
			err = fabs(g - w);
			limit = 0;
			if (bad && gb == SC_HARNESS_POISON_INT)
				out->nstale++;
		}
		ratio = bad ? (limit > 0 && isfinite(err) ? err / limit : INFINITY) : (limit > 0 ? err / limit : 0);
		if (bad)
			out->nbad++;
		if (ratio > out->worst_ratio) {
			out->worst_ratio = ratio;
			out->worst_index = i;
			out->worst_got = g;
			out->worst_want = w;
			out->worst_err = err;
			out->worst_limit = limit;
		}
	}
	if (ne >= 2) {
		double k = (double)ne;
		double m1 = se / k, m2 = sz / k;
		double n1 = 4 * sqrt(fmax(se2 / k - m1 * m1, 0) / (k - 1));
		double n2 = 4 * sqrt(fmax(sz2 / k - m2 * m2, 0) / (k - 1));
		bool toward = fabs(m2) - n2 > fabs(m1) - n1;
		out->bias = toward ? m2 : m1;
		out->bias_noise = toward ? n2 : n1;
		out->bias_toward_zero = toward;
	}
	out->bias_n = ne;
	/* Would a constant, the reference mean, pass too? Then the check
	 * cannot tell a right kernel from one that writes a constant. */
	if (sc_dtype_is_float(t) && n >= 2 && nfinite == n) {
		bool all = true;
		mean /= (double)n;
		for (size_t i = 0; i < n && all; i++) {
			double w = ((const float *)want)[i];
			double lim = atol + rtol * fabs(w);
			if (terms && isfinite(terms[i]) && terms[i] > 0)
				lim += terms_rtol * terms[i];
			all = fabs((double)(float)mean - w) <= lim;
		}
		out->constant_passes = all;
	}
}

static void describe_size(char *dst, size_t cap, const struct sc_spec *spec, const struct sc_size_set *size)
{
	size_t off = 0;
	dst[0] = '\0';
	for (size_t i = 0; i < spec->nsize_vars && off < cap; i++)
		off += (size_t)snprintf(dst + off, cap - off, "%s%s=%lld", i ? " " : "", spec->size_vars[i],
					(long long)size->v[i]);
}

/* Launches and waits; a refusal, fault or timeout is the kernel's failure. */
int sc_harness_launch_and_wait(struct sc_device *d, const struct sc_kernel_handle *k,
			       struct sc_harness_instance *in, const unsigned grid[3],
			       const unsigned block[3], unsigned shared, int timeout_ms,
			       enum sc_check_reason *reason)
{
	int err = d->launch(d, k->fn, grid, block, shared, in->params);
	if (err == 0)
		err = d->sync(d, timeout_ms);
	if (err < 0)
		*reason = strstr(sc_error_last(), "time limit") ? SC_REASON_TIMEOUT : SC_REASON_LAUNCH;
	return err;
}

/*
 * Downloads guards, inputs and outputs of one instance and judges them:
 * *good is false with out's reason, message and worst set on a failure.
 * Returns negative only when a copy from the device fails.
 */
int sc_harness_judge(struct sc_check_result *out, struct sc_device *d, const struct sc_spec *spec,
		     struct sc_harness_instance *in, const struct sc_size_set *size,
		     size_t size_index, size_t dist, uint64_t seed, const char *seedtxt, bool *good)
{
	const size_t gw = SC_HARNESS_GUARD_BYTES / 4;
	uint32_t *guard = sc_xmalloc(SC_HARNESS_GUARD_BYTES);
	char sdesc[256];
	int err = 0;

	*good = true;
	describe_size(sdesc, sizeof(sdesc), spec, size);
	for (size_t i = 0; i < in->nparams && *good; i++) {
		const struct sc_param *p = &spec->params[i];
		if (!in->count[i])
			continue;
		for (int side = 0; side < 2 && *good; side++) {
			uint64_t at = side ? in->dptr[i] + in->count[i] * in->esize[i] : in->base[i];
			if ((err = d->dtoh(d, guard, at, SC_HARNESS_GUARD_BYTES)) < 0)
				goto done;
			for (size_t w = 0; w < gw; w++)
				if (guard[w] != SC_HARNESS_CANARY) {
					out->reason = SC_REASON_OUT_OF_BOUNDS;
					set_msg(out->message, sizeof(out->message),
						"out-of-bounds write: '%s' element %lld (%s the buffer) was written at %s",
						p->name, side ? (long long)(in->count[i] + w) : -(long long)(gw - w),
						side ? "past the end of" : "before", sdesc);
					*good = false;
					break;
				}
		}
		if (!*good)
			break;
		if (p->role == SC_ROLE_SCRATCH)
			continue;  /* only its guards are checked */
		if ((err = d->dtoh(d, in->got[i], in->dptr[i], in->count[i] * in->esize[i])) < 0)
			goto done;
		if (p->role == SC_ROLE_IN) {
			struct sc_sha256 h;
			unsigned char sum[SC_SHA256_LEN];
			size_t es = in->esize[i];
			sc_sha256_init(&h);
			sc_sha256_update(&h, in->got[i], in->count[i] * es);
			sc_sha256_final(&h, sum);
			if (memcmp(sum, in->sum[i], SC_SHA256_LEN)) {
				size_t first = 0;
				while (first < in->count[i] &&
				       !memcmp((char *)in->got[i] + first * es, (char *)in->host_in[i] + first * es, es))
					first++;
				out->reason = SC_REASON_INPUT_MODIFIED;
				set_msg(out->message, sizeof(out->message),
					"input '%s' was modified by the kernel (checksum changed; first changed element %zu) at %s; inputs are read-only",
					p->name, first, sdesc);
				*good = false;
			}
		} else {
			struct sc_compare c;
			sc_harness_compare_terms(&c, p->dtype, in->got[i], in->want[i], in->terms[i], in->count[i],
						 spec->atol, spec->rtol, spec->terms_rtol);
			if (c.worst_ratio > out->max_ratio || !out->worst.valid) {
				out->max_ratio = c.worst_ratio;
				out->worst = (struct sc_mismatch){ true, size_index, seed, dist, i, c.worst_index,
					c.worst_got, c.worst_want, c.worst_err, c.worst_limit, c.nbad, in->count[i] };
			}
			if (c.nbad) {
				out->reason = c.nstale == c.nbad ? SC_REASON_STALE : SC_REASON_MISMATCH;
				out->worst = (struct sc_mismatch){ true, size_index, seed, dist, i, c.worst_index,
					c.worst_got, c.worst_want, c.worst_err, c.worst_limit, c.nbad, in->count[i] };
				if (out->reason == SC_REASON_STALE)
					set_msg(out->message, sizeof(out->message),
						"output '%s' not written: %zu of %zu elements still hold the NaN poison (first at index %zu) at %s, %s, distribution %zu",
						p->name, c.nstale, in->count[i], c.worst_index, sdesc, seedtxt, dist);
				else
					set_msg(out->message, sizeof(out->message),
						"wrong result: '%s'[%zu] = %.9g, expected %.9g (|error| %.3g > tolerance %.3g); %zu of %zu elements outside tolerance at %s, %s, distribution %zu",
						p->name, c.worst_index, c.worst_got, c.worst_want, c.worst_err,
						c.worst_limit, c.nbad, in->count[i], sdesc, seedtxt, dist);
				*good = false;
			} else if (sc_harness_biased(&c, spec->max_mean_signed_error)) {
				out->reason = SC_REASON_MISMATCH;
				out->worst = (struct sc_mismatch){ true, size_index, seed, dist, i, c.worst_index,
					c.worst_got, c.worst_want, c.worst_err, c.worst_limit, 0, in->count[i] };
				set_msg(out->message, sizeof(out->message),
					"biased result: '%s' errs %s by %.3f of the tolerance on average over %zu elements (allowed %.3g, noise %.3g) at %s, %s, distribution %zu; every element is within tolerance, but the rounding leans one way",
					p->name, c.bias_toward_zero ? (c.bias < 0 ? "toward zero" : "away from zero")
								    : (c.bias < 0 ? "low" : "high"),
					fabs(c.bias), c.bias_n, spec->max_mean_signed_error, c.bias_noise, sdesc, seedtxt, dist);
				*good = false;
			} else if (c.constant_passes) {
				out->reason = SC_REASON_CONSTANT;
				set_msg(out->message, sizeof(out->message),
					"output '%s' is near-constant at %s (a constant would pass the tolerance), so this check cannot judge the kernel; the fixture needs outputs well above atol",
					p->name, sdesc);
				*good = false;
			}
		}
	}
done:
	free(guard);
	return err;
}

/* The product of a size set's variables (a zero counted as one): how
 * much work a launch at that size is, roughly. */
static double size_work(const struct sc_spec *spec, const struct sc_size_set *size)
{
	double w = 1;
	for (size_t v = 0; v < spec->nsize_vars; v++)
		w *= size->v[v] > 0 ? (double)size->v[v] : 1.0;
	return w;
}

/* The largest of the first n correctness sizes under the determinism
 * check's cap (the first when none is). */
static size_t repeat_size(const struct sc_spec *spec, size_t n)
{
	size_t best = 0;
	double most = -1;
	for (size_t i = 0; i < n; i++) {
		double w = size_work(spec, &spec->correctness[i]);
		if (w <= SC_HARNESS_REPEAT_MAX_WORK && w > most) {
			most = w;
			best = i;
		}
	}
	return best;
}

size_t sc_harness_repeat_size(const struct sc_spec *spec)
{
	return repeat_size(spec, spec->ncorrectness);
}

/*
 * The second run of the determinism check on in, which ran once and was
 * judged (its outputs downloaded in in->got): outputs and scratch get
 * other contents (SC_HARNESS_ALT_*), the inputs stay, the kernel runs
 * again; its outputs must equal the first run's bit for bit, or differ
 * by at most spec->repeat_tolerance of each element's tolerance. Then
 * the second run is judged like the first. *good false with out's
 * reason and message on a difference.
 */
static int repeat_run(struct sc_check_result *out, struct sc_device *d, const struct sc_spec *spec,
		      const struct sc_kernel_handle *k, struct sc_harness_instance *in, const struct sc_size_set *size, size_t si,
		      const unsigned grid[3], const unsigned block[3], unsigned shared, int timeout_ms, uint64_t seed,
		      const char *seedtxt, bool *good)
{
	void *first[SC_REF_MAX_PARAMS] = { 0 };
	enum sc_check_reason reason = SC_REASON_NONE;
	char sdesc[256];
	int err = 0;

	*good = true;
	describe_size(sdesc, sizeof(sdesc), spec, size);
	for (size_t i = 0; i < in->nparams; i++) {
		const struct sc_param *p = &spec->params[i];
		if (p->kind != SC_PARAM_BUFFER || p->role == SC_ROLE_IN || p->role == SC_ROLE_SCRATCH || !in->got[i])
			continue;
		first[i] = sc_xmalloc(in->count[i] * in->esize[i]);
		memcpy(first[i], in->got[i], in->count[i] * in->esize[i]);
	}
	if ((err = sc_harness_instance_reset(in, d, spec, true, true)) < 0)
		goto done;
	if (sc_harness_launch_and_wait(d, k, in, grid, block, shared, timeout_ms, &reason) < 0) {
		out->ok = false;
		out->reason = reason;
		out->device_lost = true;
		set_msg(out->message, sizeof(out->message), "%s on the second run of the determinism check at %s, %s",
			sc_error_last(), sdesc, seedtxt);
		*good = false;
		err = 0;
		goto done;
	}
	out->launches++;
	for (size_t i = 0; i < in->nparams && *good; i++) {
		const struct sc_param *p = &spec->params[i];
		size_t es = in->esize[i], nbad = 0, at = 0;
		double a = 0, b = 0;
		if (!first[i])
			continue;
		if ((err = d->dtoh(d, in->got[i], in->dptr[i], in->count[i] * es)) < 0)
			goto done;
		if (!memcmp(first[i], in->got[i], in->count[i] * es))
			continue;
		for (size_t e = 0; e < in->count[i]; e++) {
			double x, y;
			bool same;
			if (!memcmp((char *)first[i] + e * es, (char *)in->got[i] + e * es, es))
				continue;
			if (p->dtype == SC_DTYPE_F32) {
				x = ((const float *)first[i])[e];
				y = ((const float *)in->got[i])[e];
			} else if (sc_dtype_is_half(p->dtype)) {
				uint16_t h1 = ((const uint16_t *)first[i])[e], h2 = ((const uint16_t *)in->got[i])[e];
				x = p->dtype == SC_DTYPE_BF16 ? sc_bf16_to_f32(h1) : sc_f16_to_f32(h1);
				y = p->dtype == SC_DTYPE_BF16 ? sc_bf16_to_f32(h2) : sc_f16_to_f32(h2);
			} else {
				x = p->dtype == SC_DTYPE_I32 ? (double)((const int32_t *)first[i])[e]
							     : (double)((const uint32_t *)first[i])[e];
				y = p->dtype == SC_DTYPE_I32 ? (double)((const int32_t *)in->got[i])[e]
							     : (double)((const uint32_t *)in->got[i])[e];
			}
			same = spec->repeat_tolerance > 0 && sc_dtype_is_float(p->dtype) && isfinite(x) && isfinite(y) &&
			       fabs(x - y) <= spec->repeat_tolerance *
						      (spec->atol + spec->rtol * fabs(((const float *)in->want[i])[e]));
			if (same)
				continue;
			if (!nbad++) {
				at = e;
				a = x;
				b = y;
			}
		}
		if (nbad) {
			out->ok = false;
			out->reason = SC_REASON_NONDETERMINISTIC;
			if (spec->repeat_tolerance > 0)
				set_msg(out->message, sizeof(out->message),
					"two runs on the same inputs disagree: '%s'[%zu] = %.9g, then %.9g; %zu of %zu elements differ by more than %.3g of their tolerance at %s, %s, distribution 0 (the second run found other contents in the outputs and scratch: the kernel reads memory it did not write, or depends on the order of its atomics beyond the fixture's bound)",
					p->name, at, a, b, nbad, in->count[i], spec->repeat_tolerance, sdesc, seedtxt);
			else
				set_msg(out->message, sizeof(out->message),
					"two runs on the same inputs disagree: '%s'[%zu] = %.9g, then %.9g; %zu of %zu elements differ at %s, %s, distribution 0 (the fixture wants the same bits twice; the second run found other contents in the outputs and scratch: the kernel reads memory it did not write, uninitialised shared memory, or depends on the order of its atomics)",
					p->name, at, a, b, nbad, in->count[i], sdesc, seedtxt);
			*good = false;
		}
	}
	if (*good)
		err = sc_harness_judge(out, d, spec, in, size, si, 0, seed, seedtxt, good);
done:
	for (size_t i = 0; i < SC_REF_MAX_PARAMS; i++) {
		if (first[i])
			explicit_bzero(first[i], in->count[i] * in->esize[i]);
		free(first[i]);
	}
	return err;
}

int sc_harness_check(struct sc_check_result *out, struct sc_device *d, const struct sc_spec *spec,
		     const struct sc_kernel_handle *k, sc_ref_fn ref,
		     const struct sc_check_opts *opts)
{
	size_t nsizes = opts->max_sizes && opts->max_sizes < spec->ncorrectness ? opts->max_sizes : spec->ncorrectness;
	size_t rsi = repeat_size(spec, nsizes);
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->ok = true;
	for (size_t si = 0; si < nsizes; si++) {
		const struct sc_size_set *size = &spec->correctness[si];
		unsigned grid[3], block[3], shared;
		char sdesc[256];

		describe_size(sdesc, sizeof(sdesc), spec, size);
		if (sc_harness_geometry(grid, block, &shared, spec, size, &k->tun) < 0) {
			out->ok = false;
			out->reason = SC_REASON_CONFIG;
			set_msg(out->message, sizeof(out->message), "invalid launch at %s: %s", sdesc, sc_error_last());
			return 0;
		}
		for (size_t dist = 0; dist < spec->ndists; dist++)
		for (int s = 0; s < opts->nseeds; s++) {
			struct sc_harness_instance in;
			uint64_t seed = opts->seed_base + (uint64_t)s;
			enum sc_check_reason reason = SC_REASON_NONE;
			char seedtxt[48];
			bool good;

			if (opts->secret_seeds)
				snprintf(seedtxt, sizeof(seedtxt), "a secret seed");
			else
				snprintf(seedtxt, sizeof(seedtxt), "seed %llu", (unsigned long long)seed);
			memset(&in, 0, sizeof(in));
			if ((err = sc_harness_instance_host(&in, spec, size, si, dist, seed, true)) < 0 ||
			    (err = sc_harness_instance_alloc(&in, d)) < 0 ||
			    (err = sc_harness_instance_reset(&in, d, spec, true, false)) < 0) {
				sc_harness_instance_release(&in, d);
				return err;
			}
			sc_harness_instance_bind_scalars(&in, spec);
			if (sc_harness_launch_and_wait(d, k, &in, grid, block, shared, opts->timeout_ms, &reason) < 0) {
				out->ok = false;
				out->reason = reason;
				out->device_lost = true;
				set_msg(out->message, sizeof(out->message), "%s at %s, %s, distribution %zu",
					sc_error_last(), sdesc, seedtxt, dist);
				sc_harness_instance_release(&in, NULL);
				return 0;
			}
			out->launches++;
			sc_harness_instance_ref(&in, spec, size, ref);
			err = sc_harness_judge(out, d, spec, &in, size, si, dist, opts->secret_seeds ? 0 : seed, seedtxt, &good);
			if (err == 0 && good && opts->repeat && si == rsi && dist == 0 && s == 0) {
				err = repeat_run(out, d, spec, k, &in, size, si, grid, block, shared, opts->timeout_ms,
						 opts->secret_seeds ? 0 : seed, seedtxt, &good);
				if (err == 0 && out->device_lost) {
					sc_harness_instance_release(&in, NULL);
					return 0;
				}
			}
			sc_harness_instance_release(&in, d);
			if (err < 0)
				return err;
			if (!good) {
				out->ok = false;
				return 0;
			}
		}
	}
	return 0;
}
