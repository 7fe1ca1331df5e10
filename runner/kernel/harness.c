/*
 * The kernel harness (harness.h). Every buffer lives on the device between
 * two guard regions filled with a canary; outputs are poisoned before each
 * launch; inputs are checksummed before and after.
 */
#include "common.h"
#include "harness.h"
#include "sha256.h"

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
	}
	return "unknown";
}

/* ---- random inputs ---- */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static double unit(uint64_t *s)
{
	return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

void sc_harness_fill(void *dst, enum sc_dtype t, size_t n, const struct sc_dist *dist, uint64_t seed)
{
	uint64_t s = seed;
	float *f = dst;
	int32_t *i32 = dst;

	for (size_t i = 0; i < n; i++) {
		double v;
		switch (dist->kind) {
		case SC_DIST_UNIFORM:
			v = dist->a + (dist->b - dist->a) * unit(&s);
			break;
		case SC_DIST_NORMAL: {
			double u1 = unit(&s), u2 = unit(&s);
			if (u1 < 1e-300)
				u1 = 1e-300;
			v = dist->a + dist->b * sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
			break;
		}
		default:
			v = floor(dist->a + (dist->b - dist->a + 1) * unit(&s));
			if (v > dist->b)
				v = dist->b;
			break;
		}
		if (t == SC_DTYPE_F32)
			f[i] = (float)v;
		else if (t == SC_DTYPE_I32)
			i32[i] = (int32_t)fmax(fmin(v, 2147483647.0), -2147483648.0);
		else
			((uint32_t *)dst)[i] = (uint32_t)fmax(fmin(v, 4294967295.0), 0.0);
	}
}

/* ---- comparison ---- */

void sc_harness_compare(struct sc_compare *out, enum sc_dtype t, const void *got, const void *want,
			size_t n, double atol, double rtol)
{
	double mean = 0;
	size_t nfinite = 0;

	memset(out, 0, sizeof(*out));
	out->worst_ratio = -1;
	for (size_t i = 0; i < n; i++) {
		double g, w, err, limit, ratio;
		bool bad;
		if (t == SC_DTYPE_F32) {
			uint32_t bits;
			g = ((const float *)got)[i];
			w = ((const float *)want)[i];
			memcpy(&bits, (const float *)got + i, 4);
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
				err = isfinite(g) ? fabs(g - w) : INFINITY;
				bad = !(err <= limit);
				mean += w;
				nfinite++;
			}
			if (bad && bits == SC_HARNESS_POISON_F32)
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
	/* Would a constant, the reference mean, pass too? Then the check
	 * cannot tell a right kernel from one that writes a constant. */
	if (t == SC_DTYPE_F32 && n >= 2 && nfinite == n) {
		bool all = true;
		mean /= (double)n;
		for (size_t i = 0; i < n && all; i++) {
			double w = ((const float *)want)[i];
			all = fabs((double)(float)mean - w) <= atol + rtol * fabs(w);
		}
		out->constant_passes = all;
	}
}

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

void sc_stats_compute(struct sc_stats *out, double *x, size_t n)
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

/* ---- geometry and buffers ---- */

int sc_harness_geometry(unsigned grid[3], unsigned block[3], unsigned *shared, const struct sc_spec *spec,
			const struct sc_size_set *size, const struct sc_tunable_values *tun)
{
	struct sc_expr_var vars[SC_SPEC_MAX_VARS + SC_SPEC_MAX_TUNABLES];
	size_t n = sc_spec_vars(vars, spec, size, tun);
	static const int64_t gmax[3] = { 2147483647, 65535, 65535 };
	int64_t v, threads = 1;
	int err;

	for (int d = 0; d < 3; d++) {
		if ((err = sc_spec_eval(&v, spec->grid[d], "launch.grid", vars, n)) < 0)
			return err;
		if (v < 1 || v > gmax[d])
			return sc_error_set(SC_EINVAL, "launch.grid[%d] is %lld, outside 1..%lld", d,
					    (long long)v, (long long)gmax[d]);
		grid[d] = (unsigned)v;
		if ((err = sc_spec_eval(&v, spec->block[d], "launch.block", vars, n)) < 0)
			return err;
		if (v < 1 || v > 1024)
			return sc_error_set(SC_EINVAL, "launch.block[%d] is %lld, outside 1..1024", d, (long long)v);
		block[d] = (unsigned)v;
		threads *= v;
	}
	if (threads > 1024)
		return sc_error_set(SC_EINVAL, "a block of %lld threads is over the 1024 limit", (long long)threads);
	if ((err = sc_spec_eval(&v, spec->shared_bytes, "launch.shared_bytes", vars, n)) < 0)
		return err;
	if (v < 0 || v > 227 * 1024)
		return sc_error_set(SC_EINVAL, "launch.shared_bytes is %lld, outside 0..232448", (long long)v);
	*shared = (unsigned)v;
	return 0;
}

/* One problem instance: host copies, device buffers with guards, launch params. */
struct instance {
	size_t nparams;
	size_t count[SC_REF_MAX_PARAMS];    /* elements, buffers */
	void *host_in[SC_REF_MAX_PARAMS];   /* initial contents (in/inout) */
	void *want[SC_REF_MAX_PARAMS];      /* reference result (out/inout) */
	void *got[SC_REF_MAX_PARAMS];
	unsigned char sum[SC_REF_MAX_PARAMS][SC_SHA256_LEN];
	uint64_t base[SC_REF_MAX_PARAMS];   /* allocation (guard included) */
	uint64_t dptr[SC_REF_MAX_PARAMS];   /* base + guard */
	int32_t ival[SC_REF_MAX_PARAMS];
	float fval[SC_REF_MAX_PARAMS];
	void *params[SC_REF_MAX_PARAMS];
};

static void instance_release(struct instance *in, struct sc_device *d)
{
	for (size_t i = 0; i < SC_REF_MAX_PARAMS; i++) {
		free(in->host_in[i]);
		free(in->want[i]);
		free(in->got[i]);
		if (in->base[i] && d)
			d->free(d, in->base[i]);
	}
	memset(in, 0, sizeof(*in));
}

static uint64_t mix_seed(uint64_t seed, size_t param, size_t dist, size_t size_index)
{
	uint64_t s = seed * 0x9e3779b97f4a7c15ULL ^ (param + 1) * 0xc2b2ae3d27d4eb4fULL;
	s ^= (dist + 1) * 0x165667b19e3779f9ULL ^ (size_index + 1) * 0x27d4eb2f165667c5ULL;
	return splitmix(&s);
}

/*
 * Builds the host side of one instance: sizes, scalars, inputs from the
 * distributions, and (when ref is given) the reference outputs.
 */
static int instance_host(struct instance *in, const struct sc_spec *spec, const struct sc_size_set *size,
			 size_t size_index, size_t dist, uint64_t seed, sc_ref_fn ref)
{
	struct sc_expr_var vars[SC_SPEC_MAX_VARS + SC_SPEC_MAX_TUNABLES];
	size_t nv = sc_spec_vars(vars, spec, size, NULL);
	struct sc_ref_args a;
	int64_t v;
	int err;

	memset(&a, 0, sizeof(a));
	in->nparams = spec->nparams;
	for (size_t i = 0; i < spec->nparams; i++) {
		const struct sc_param *p = &spec->params[i];
		if (p->kind == SC_PARAM_SCALAR) {
			if (p->has_fvalue) {
				in->fval[i] = (float)p->fvalue;
				a.f[i] = p->fvalue;
			} else {
				if ((err = sc_spec_eval(&v, p->value, p->name, vars, nv)) < 0)
					return err;
				if (p->dtype == SC_DTYPE_F32) {
					in->fval[i] = (float)v;
					a.f[i] = (double)v;
				} else {
					if (v < INT32_MIN || v > INT32_MAX)
						return sc_error_set(SC_EINVAL, "scalar '%s' = %lld does not fit int32",
								    p->name, (long long)v);
					in->ival[i] = (int32_t)v;
					a.i[i] = v;
				}
			}
			continue;
		}
		if ((err = sc_spec_eval(&v, p->shape, p->name, vars, nv)) < 0)
			return err;
		if (v < 1 || v > ((int64_t)1 << 34))
			return sc_error_set(SC_EINVAL, "buffer '%s' has %lld elements", p->name, (long long)v);
		in->count[i] = (size_t)v;
		in->host_in[i] = sc_xcalloc(in->count[i], 4);
		if (p->role != SC_ROLE_OUT)
			sc_harness_fill(in->host_in[i], p->dtype, in->count[i],
					&p->init[dist < p->ninit ? dist : p->ninit - 1], mix_seed(seed, i, dist, size_index));
		if (p->role != SC_ROLE_IN && ref) {
			in->want[i] = sc_xcalloc(in->count[i], 4);
			if (p->role == SC_ROLE_INOUT)
				memcpy(in->want[i], in->host_in[i], in->count[i] * 4);
			a.buf[i] = in->want[i];
		} else {
			a.buf[i] = in->host_in[i];
		}
		if (ref || p->role != SC_ROLE_IN)
			in->got[i] = sc_xcalloc(in->count[i], 4);
		if (ref) {
			struct sc_sha256 h;
			sc_sha256_init(&h);
			sc_sha256_update(&h, in->host_in[i], in->count[i] * 4);
			sc_sha256_final(&h, in->sum[i]);
		}
	}
	for (size_t i = 0; i < spec->nsize_vars; i++)
		a.size[i] = size->v[i];
	a.nparams = spec->nparams;
	if (ref)
		ref(&a);
	return 0;
}

/* Makes dst a host-side copy of src (inputs, scalars, output space). */
static void instance_copy_host(struct instance *dst, const struct instance *src)
{
	memcpy(dst, src, sizeof(*dst));
	for (size_t i = 0; i < SC_REF_MAX_PARAMS; i++) {
		dst->host_in[i] = src->host_in[i] ? sc_xmalloc(src->count[i] * 4) : NULL;
		if (dst->host_in[i])
			memcpy(dst->host_in[i], src->host_in[i], src->count[i] * 4);
		dst->got[i] = src->got[i] ? sc_xcalloc(src->count[i], 4) : NULL;
		dst->want[i] = NULL;
		dst->base[i] = dst->dptr[i] = 0;
	}
}

/* Allocates device buffers with guards and fills the guards with the canary. */
static int instance_alloc(struct instance *in, struct sc_device *d)
{
	const size_t gw = SC_HARNESS_GUARD_BYTES / 4;
	int err;

	for (size_t i = 0; i < in->nparams; i++) {
		if (!in->count[i])
			continue;
		if ((err = d->alloc(d, &in->base[i], in->count[i] * 4 + 2 * SC_HARNESS_GUARD_BYTES)) < 0)
			return err;
		in->dptr[i] = in->base[i] + SC_HARNESS_GUARD_BYTES;
		if ((err = d->memset32(d, in->base[i], SC_HARNESS_CANARY, gw)) < 0 ||
		    (err = d->memset32(d, in->dptr[i] + in->count[i] * 4, SC_HARNESS_CANARY, gw)) < 0)
			return err;
		in->params[i] = &in->dptr[i];
	}
	return 0;
}

/* Sets scalar params to point at the right storage (float or int). */
static void instance_bind_scalars(struct instance *in, const struct sc_spec *spec)
{
	for (size_t i = 0; i < in->nparams; i++)
		if (spec->params[i].kind == SC_PARAM_SCALAR)
			in->params[i] = spec->params[i].dtype == SC_DTYPE_F32 ? (void *)&in->fval[i]
									 : (void *)&in->ival[i];
}

/* Copies inputs up (only inout ones unless all_inputs) and poisons outputs. */
static int instance_reset(struct instance *in, struct sc_device *d, const struct sc_spec *spec, bool all_inputs)
{
	int err;

	for (size_t i = 0; i < in->nparams; i++) {
		const struct sc_param *p = &spec->params[i];
		if (!in->count[i] || (p->role == SC_ROLE_IN && !all_inputs))
			continue;
		if (p->role == SC_ROLE_OUT)
			err = d->memset32(d, in->dptr[i], p->dtype == SC_DTYPE_F32 ? SC_HARNESS_POISON_F32
										: SC_HARNESS_POISON_INT, in->count[i]);
		else
			err = d->htod(d, in->dptr[i], in->host_in[i], in->count[i] * 4);
		if (err < 0)
			return err;
	}
	return 0;
}

static void set_msg(char *dst, size_t cap, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_msg(char *dst, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(dst, cap, fmt, ap);
	va_end(ap);
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
static int launch_and_wait(struct sc_device *d, const struct sc_kernel_handle *k, struct instance *in,
			   const unsigned grid[3], const unsigned block[3], unsigned shared, int timeout_ms,
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
static int judge(struct sc_check_result *out, struct sc_device *d, const struct sc_spec *spec,
		 struct instance *in, const struct sc_size_set *size, size_t size_index, size_t dist,
		 uint64_t seed, bool *good)
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
			uint64_t at = side ? in->dptr[i] + in->count[i] * 4 : in->base[i];
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
		if ((err = d->dtoh(d, in->got[i], in->dptr[i], in->count[i] * 4)) < 0)
			goto done;
		if (p->role == SC_ROLE_IN) {
			struct sc_sha256 h;
			unsigned char sum[SC_SHA256_LEN];
			sc_sha256_init(&h);
			sc_sha256_update(&h, in->got[i], in->count[i] * 4);
			sc_sha256_final(&h, sum);
			if (memcmp(sum, in->sum[i], SC_SHA256_LEN)) {
				size_t first = 0;
				while (first < in->count[i] &&
				       !memcmp((char *)in->got[i] + first * 4, (char *)in->host_in[i] + first * 4, 4))
					first++;
				out->reason = SC_REASON_INPUT_MODIFIED;
				set_msg(out->message, sizeof(out->message),
					"input '%s' was modified by the kernel (checksum changed; first changed element %zu) at %s; inputs are read-only",
					p->name, first, sdesc);
				*good = false;
			}
		} else {
			struct sc_compare c;
			sc_harness_compare(&c, p->dtype, in->got[i], in->want[i], in->count[i], spec->atol, spec->rtol);
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
						"output '%s' not written: %zu of %zu elements still hold the NaN poison (first at index %zu) at %s, seed %llu, distribution %zu",
						p->name, c.nstale, in->count[i], c.worst_index, sdesc,
						(unsigned long long)seed, dist);
				else
					set_msg(out->message, sizeof(out->message),
						"wrong result: '%s'[%zu] = %.9g, expected %.9g (|error| %.3g > tolerance %.3g); %zu of %zu elements outside tolerance at %s, seed %llu, distribution %zu",
						p->name, c.worst_index, c.worst_got, c.worst_want, c.worst_err,
						c.worst_limit, c.nbad, in->count[i], sdesc, (unsigned long long)seed, dist);
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

int sc_harness_check(struct sc_check_result *out, struct sc_device *d, const struct sc_spec *spec,
		     const struct sc_kernel_handle *k, sc_ref_fn ref, const struct sc_check_opts *opts)
{
	size_t nsizes = opts->max_sizes && opts->max_sizes < spec->ncorrectness ? opts->max_sizes : spec->ncorrectness;
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
			struct instance in;
			uint64_t seed = opts->seed_base + (uint64_t)s;
			enum sc_check_reason reason = SC_REASON_NONE;
			bool good;

			memset(&in, 0, sizeof(in));
			if ((err = instance_host(&in, spec, size, si, dist, seed, ref)) < 0 ||
			    (err = instance_alloc(&in, d)) < 0 ||
			    (err = instance_reset(&in, d, spec, true)) < 0) {
				instance_release(&in, d);
				return err;
			}
			instance_bind_scalars(&in, spec);
			if (launch_and_wait(d, k, &in, grid, block, shared, opts->timeout_ms, &reason) < 0) {
				out->ok = false;
				out->reason = reason;
				out->device_lost = true;
				set_msg(out->message, sizeof(out->message), "%s at %s, seed %llu, distribution %zu",
					sc_error_last(), sdesc, (unsigned long long)seed, dist);
				instance_release(&in, NULL);
				return 0;
			}
			out->launches++;
			err = judge(out, d, spec, &in, size, si, dist, seed, &good);
			instance_release(&in, d);
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

/* ---- timing ---- */

struct timed {
	const struct sc_kernel_handle *k;
	unsigned grid[3], block[3], shared;
	struct instance *sets;  /* one per rotation; outputs per kernel */
	double *ev, *host;
};

static int time_one(struct sc_device *d, const struct sc_spec *spec, struct timed *t, struct instance *set,
		    int64_t flush_words, uint64_t flush, uint32_t rep, int timeout_ms, size_t n,
		    enum sc_check_reason *reason)
{
	int64_t h0, h1;
	double ms;
	int err;

	/* Restore inout buffers; outputs are poisoned again. */
	if ((err = instance_reset(set, d, spec, false)) < 0)
		return err;
	if ((err = d->memset32(d, flush, rep * 2654435761u, (size_t)flush_words)) < 0 ||
	    (err = d->reset_l2(d)) < 0 || (err = d->sync(d, timeout_ms)) < 0)
		return err;
	h0 = d->host_ns(d);
	if ((err = d->event_record(d, 0)) < 0)
		return err;
	if ((err = launch_and_wait(d, t->k, set, t->grid, t->block, t->shared, timeout_ms, reason)) < 0)
		return err;
	if ((err = d->event_record(d, 1)) < 0 || (err = d->sync(d, timeout_ms)) < 0)
		return err;
	h1 = d->host_ns(d);
	if ((err = d->event_elapsed(d, 0, 1, &ms)) < 0)
		return err;
	t->ev[n] = ms;
	t->host[n] = (double)(h1 - h0) / 1e6;
	return 0;
}

static size_t instance_bytes(const struct instance *in)
{
	size_t b = 0;
	for (size_t i = 0; i < in->nparams; i++)
		b += in->count[i] * 4 + 2 * SC_HARNESS_GUARD_BYTES;
	return b;
}

int sc_harness_time(struct sc_timing_result *out, struct sc_device *d, const struct sc_spec *spec,
		    const struct sc_kernel_handle *cand, const struct sc_kernel_handle *base,
		    const struct sc_timing_opts_run *opts)
{
	struct timed t[2];
	struct instance sets[2][4];
	struct sc_expr_var vars[SC_SPEC_MAX_VARS + SC_SPEC_MAX_TUNABLES];
	size_t nv;
	int rot, maxrep = spec->topts.max_reps, err = 0;
	int64_t flush_words, budget, start, fl = 0, by = 0;
	uint64_t flush = 0;
	size_t n = 0, per_set;
	double *scratch = NULL;
	enum sc_check_reason reason = SC_REASON_NONE;

	memset(out, 0, sizeof(*out));
	memset(sets, 0, sizeof(sets));
	memset(t, 0, sizeof(t));
	t[0].k = cand;
	t[1].k = base;
	for (int w = 0; w < 2; w++) {
		if (sc_harness_geometry(t[w].grid, t[w].block, &t[w].shared, spec, &spec->timing, &t[w].k->tun) < 0) {
			out->reason = SC_REASON_CONFIG;
			set_msg(out->message, sizeof(out->message), "invalid launch of the %s at the timing size: %s",
				w ? "baseline" : "candidate", sc_error_last());
			return 0;
		}
		t[w].ev = sc_xcalloc((size_t)maxrep, sizeof(double));
		t[w].host = sc_xcalloc((size_t)maxrep, sizeof(double));
	}
	nv = sc_spec_vars(vars, spec, &spec->timing, NULL);
	if ((err = sc_spec_eval(&fl, spec->flops, "flops", vars, nv)) < 0 ||
	    (err = sc_spec_eval(&by, spec->bytes, "bytes", vars, nv)) < 0)
		goto done;
	out->flops = (double)fl;
	out->bytes = (double)by;

	/* Input sets to rotate among, as many as fit the budget (1..4). */
	if ((err = instance_host(&sets[0][0], spec, &spec->timing, SIZE_MAX, 0, 1000, NULL)) < 0)
		goto done;
	per_set = instance_bytes(&sets[0][0]);
	budget = opts->mem_budget ? opts->mem_budget : d->info.mem_bytes / 2;
	rot = opts->rotations ? opts->rotations : 2;
	while (rot > 1 && (int64_t)per_set * 2 * rot > budget)
		rot--;
	instance_release(&sets[0][0], NULL);
	for (int r = 0; r < rot; r++) {
		/* Both kernels see the same inputs in set r: generate once, copy. */
		if ((err = instance_host(&sets[0][r], spec, &spec->timing, SIZE_MAX,
					 (size_t)r % spec->ndists, 1000 + (uint64_t)r, NULL)) < 0)
			goto done;
		instance_copy_host(&sets[1][r], &sets[0][r]);
		for (int w = 0; w < 2; w++) {
			if ((err = instance_alloc(&sets[w][r], d)) < 0 ||
			    (err = instance_reset(&sets[w][r], d, spec, true)) < 0)
				goto done;
			instance_bind_scalars(&sets[w][r], spec);
		}
	}
	flush_words = 2 * d->info.l2_bytes / 4;
	if (flush_words < 1024)
		flush_words = 1024;
	if ((err = d->alloc(d, &flush, (size_t)flush_words * 4)) < 0)
		goto done;

	for (int i = 0; i < spec->topts.warmup; i++)
		for (int w = 0; w < 2; w++)
			if ((err = time_one(d, spec, &t[w], &sets[w][i % rot], flush_words, flush, (uint32_t)i,
					    opts->timeout_ms, 0, &reason)) < 0)
				goto fail;

	scratch = sc_xcalloc((size_t)maxrep, sizeof(double));
	start = d->host_ns(d);
	for (n = 0; n < (size_t)maxrep;) {
		for (int j = 0; j < 2; j++) {
			int w = (n % 2) ? 1 - j : j;  /* alternate who goes first */
			if ((err = time_one(d, spec, &t[w], &sets[w][n % (size_t)rot], flush_words, flush,
					    (uint32_t)n, opts->timeout_ms, n, &reason)) < 0)
				goto fail;
		}
		n++;
		if (n >= (size_t)spec->topts.min_reps) {
			struct sc_stats a, b;
			memcpy(scratch, t[0].ev, n * sizeof(double));
			sc_stats_compute(&a, scratch, n);
			memcpy(scratch, t[1].ev, n * sizeof(double));
			sc_stats_compute(&b, scratch, n);
			if (a.rse < spec->topts.target_rse && b.rse < spec->topts.target_rse) {
				out->converged = true;
				break;
			}
			if ((double)(d->host_ns(d) - start) / 1e9 > spec->topts.max_seconds)
				break;
		}
	}
	out->reps = n;
	sc_stats_compute(&out->cand.ev, t[0].ev, n);
	sc_stats_compute(&out->cand.host, t[0].host, n);
	sc_stats_compute(&out->base.ev, t[1].ev, n);
	sc_stats_compute(&out->base.host, t[1].host, n);
	out->speedup = out->cand.ev.median > 0 ? out->base.ev.median / out->cand.ev.median : INFINITY;

	/* Achieved rates and the roofline: the least time the work can take. */
	if (out->cand.ev.median > 0) {
		double secs = out->cand.ev.median / 1e3, tmin = 0;
		out->cand_gbps = out->bytes / secs / 1e9;
		out->cand_gflops = out->flops / secs / 1e9;
		if (d->info.peak_gbps > 0)
			tmin = out->bytes / (d->info.peak_gbps * 1e9);
		if (d->info.peak_gflops > 0 && out->flops / (d->info.peak_gflops * 1e9) > tmin)
			tmin = out->flops / (d->info.peak_gflops * 1e9);
		if (tmin > 0) {
			out->pct_peak = 100.0 * tmin / secs;
			out->ceiling = out->base.ev.median / 1e3 / tmin;
		}
	}
	if (out->ceiling > 0 && out->speedup > out->ceiling) {
		out->suspect = true;
		set_msg(out->suspect_why, sizeof(out->suspect_why),
			"speedup %.2fx is above the roofline ceiling %.2fx (%.0f%% of peak): the kernel cannot have done the work",
			out->speedup, out->ceiling, out->pct_peak);
	}
	if (out->cand.host.median > out->cand.ev.median * 1.5 + 0.2) {
		out->suspect = true;
		set_msg(out->suspect_why, sizeof(out->suspect_why),
			"events measured %.3f ms but the host clock %.3f ms: work the events do not see (a side stream?)",
			out->cand.ev.median, out->cand.host.median);
	}

	/* Re-validate: after all those calls, the candidate's output on each
	 * input set must still match the baseline's. */
	for (int r = 0; r < rot; r++) {
		for (int w = 0; w < 2; w++) {
			if ((err = instance_reset(&sets[w][r], d, spec, true)) < 0)
				goto done;
			if (launch_and_wait(d, t[w].k, &sets[w][r], t[w].grid, t[w].block, t[w].shared,
					    opts->timeout_ms, &reason) < 0)
				goto fail;
		}
		for (size_t i = 0; i < spec->nparams; i++) {
			struct sc_compare c;
			const struct sc_param *p = &spec->params[i];
			if (p->kind != SC_PARAM_BUFFER || p->role == SC_ROLE_IN)
				continue;
			if ((err = d->dtoh(d, sets[0][r].got[i], sets[0][r].dptr[i], sets[0][r].count[i] * 4)) < 0 ||
			    (err = d->dtoh(d, sets[1][r].got[i], sets[1][r].dptr[i], sets[1][r].count[i] * 4)) < 0)
				goto done;
			sc_harness_compare(&c, p->dtype, sets[0][r].got[i], sets[1][r].got[i], sets[0][r].count[i],
					   spec->atol, spec->rtol);
			if (c.nbad) {
				out->reason = c.nstale == c.nbad ? SC_REASON_STALE : SC_REASON_MISMATCH;
				set_msg(out->message, sizeof(out->message),
					"re-validation after timing failed: '%s'[%zu] = %.9g, baseline gives %.9g; %zu of %zu elements differ (results cached or wrong after repeated calls?)",
					p->name, c.worst_index, c.worst_got, c.worst_want, c.nbad, sets[0][r].count[i]);
				goto done;
			}
		}
	}
	out->ok = true;
	goto done;
fail:
	if (err < 0 && reason != SC_REASON_NONE) {
		out->reason = reason;
		out->device_lost = true;
		set_msg(out->message, sizeof(out->message), "during timing: %s", sc_error_last());
		err = 0;
	}
done:
	for (int w = 0; w < 2; w++) {
		for (int r = 0; r < 4; r++)
			instance_release(&sets[w][r], out->device_lost ? NULL : d);
		free(t[w].ev);
		free(t[w].host);
	}
	if (flush && !out->device_lost)
		d->free(d, flush);
	free(scratch);
	return err;
}
