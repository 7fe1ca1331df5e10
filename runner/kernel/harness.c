/*
 * The kernel harness (harness.h). Every buffer lives on the device between
 * two guard regions filled with a canary; outputs are poisoned before each
 * launch; inputs are checksummed before and after.
 */
#include "common.h"
#include "half.h"
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
	case SC_REASON_NONDETERMINISTIC: return "nondeterministic";
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
		else if (sc_dtype_is_narrow(t))
			sc_half_encode((char *)dst + i * sc_dtype_size(t), t, &(float){ (float)v }, 1);
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
	sc_harness_compare_terms(out, t, got, want, NULL, n, atol, rtol, 0);
}

bool sc_harness_biased(const struct sc_compare *c, double max_mean_signed_error)
{
	return max_mean_signed_error > 0 && c->bias_n >= 16 &&
	       fabs(c->bias) > max_mean_signed_error + c->bias_noise;
}

void sc_harness_compare_terms(struct sc_compare *out, enum sc_dtype t, const void *got, const void *want,
			      const float *terms, size_t n, double atol, double rtol, double terms_rtol)
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
	size_t dist;                        /* input distribution index */
	size_t count[SC_REF_MAX_PARAMS];    /* elements, buffers */
	size_t esize[SC_REF_MAX_PARAMS];    /* bytes per element */
	void *host_in[SC_REF_MAX_PARAMS];   /* initial contents (in/inout), device layout */
	void *want[SC_REF_MAX_PARAMS];      /* reference result (out/inout); float32 for half types */
	float *terms[SC_REF_MAX_PARAMS];    /* the reference's sums of |terms| (spec terms_rtol) */
	void *got[SC_REF_MAX_PARAMS];       /* device layout */
	unsigned char sum[SC_REF_MAX_PARAMS][SC_SHA256_LEN];
	uint64_t base[SC_REF_MAX_PARAMS];   /* allocation (guard included) */
	uint64_t dptr[SC_REF_MAX_PARAMS];   /* base + guard */
	int32_t ival[SC_REF_MAX_PARAMS];
	float fval[SC_REF_MAX_PARAMS];
	double dval[SC_REF_MAX_PARAMS];     /* the scalars as the reference reads them */
	uint64_t gen_seed;                  /* timing sets: the seed the inputs were generated from */
	int64_t lval[SC_REF_MAX_PARAMS];
	void *params[SC_REF_MAX_PARAMS];
};

static void instance_release(struct instance *in, struct sc_device *d)
{
	for (size_t i = 0; i < SC_REF_MAX_PARAMS; i++) {
		/* answers and downloaded results are wiped, not just freed */
		if (in->want[i])
			explicit_bzero(in->want[i], in->count[i] * 4);
		if (in->got[i])
			explicit_bzero(in->got[i], in->count[i] * in->esize[i]);
		if (in->terms[i])
			explicit_bzero(in->terms[i], in->count[i] * sizeof(float));
		free(in->terms[i]);
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
 * Builds the host side of one instance: sizes and scalars, and with
 * inputs the inputs from the distributions (with their checksums) and
 * room for downloads. The reference is computed apart (instance_ref),
 * after the candidate's launch has finished.
 */
static int instance_host(struct instance *in, const struct sc_spec *spec, const struct sc_size_set *size,
			 size_t size_index, size_t dist, uint64_t seed, bool inputs)
{
	struct sc_expr_var vars[SC_SPEC_MAX_VARS + SC_SPEC_MAX_TUNABLES];
	size_t nv = sc_spec_vars(vars, spec, size, NULL);
	int64_t v;
	int err;

	in->nparams = spec->nparams;
	in->dist = dist;
	for (size_t i = 0; i < spec->nparams; i++) {
		const struct sc_param *p = &spec->params[i];
		if (p->kind == SC_PARAM_SCALAR) {
			if (p->has_fvalue) {
				in->fval[i] = (float)p->fvalue;
				in->dval[i] = p->fvalue;
			} else {
				if ((err = sc_spec_eval(&v, p->value, p->name, vars, nv)) < 0)
					return err;
				if (p->dtype == SC_DTYPE_F32) {
					in->fval[i] = (float)v;
					in->dval[i] = (double)v;
				} else {
					if (v < INT32_MIN || v > INT32_MAX)
						return sc_error_set(SC_EINVAL, "scalar '%s' = %lld does not fit int32",
								    p->name, (long long)v);
					in->ival[i] = (int32_t)v;
					in->lval[i] = v;
				}
			}
			continue;
		}
		if ((err = sc_spec_eval(&v, p->shape, p->name, vars, nv)) < 0)
			return err;
		if (v < 1 || v > ((int64_t)1 << 34))
			return sc_error_set(SC_EINVAL, "buffer '%s' has %lld elements", p->name, (long long)v);
		in->count[i] = (size_t)v;
		in->esize[i] = sc_dtype_size(p->dtype);
		if (p->role == SC_ROLE_SCRATCH || !inputs)
			continue;  /* device memory only; the reference never sees it */
		in->host_in[i] = sc_xcalloc(in->count[i], in->esize[i]);
		if (p->role != SC_ROLE_OUT)
			sc_harness_fill(in->host_in[i], p->dtype, in->count[i],
					&p->init[dist < p->ninit ? dist : p->ninit - 1], mix_seed(seed, i, dist, size_index));
		/* downloads: outputs, and inputs for checksums */
		in->got[i] = sc_xcalloc(in->count[i], in->esize[i]);
		{
			struct sc_sha256 h;
			sc_sha256_init(&h);
			sc_sha256_update(&h, in->host_in[i], in->count[i] * in->esize[i]);
			sc_sha256_final(&h, in->sum[i]);
		}
	}
	return 0;
}

/*
 * The reference outputs of an instance built with inputs, from its host
 * copies (float32 views of half-precision buffers). Called only after the
 * candidate's launch has finished: while a candidate runs, the worker
 * holds no answer for it.
 */
static void instance_ref(struct instance *in, const struct sc_spec *spec, const struct sc_size_set *size, sc_ref_fn ref)
{
	struct sc_ref_args a;
	float *view[SC_REF_MAX_PARAMS] = { 0 };

	memset(&a, 0, sizeof(a));
	for (size_t i = 0; i < spec->nparams; i++) {
		const struct sc_param *p = &spec->params[i];
		if (p->kind == SC_PARAM_SCALAR) {
			a.f[i] = in->dval[i];
			a.i[i] = in->lval[i];
			continue;
		}
		if (p->role == SC_ROLE_SCRATCH || !in->host_in[i])
			continue;
		if (sc_dtype_is_narrow(p->dtype)) {
			view[i] = sc_xcalloc(in->count[i], sizeof(float));
			if (p->role != SC_ROLE_OUT)
				sc_half_decode(view[i], p->dtype, in->host_in[i], in->count[i]);
			a.buf[i] = view[i];
			if (p->role != SC_ROLE_IN) {
				in->want[i] = view[i];
				view[i] = NULL;
			}
		} else if (p->role != SC_ROLE_IN) {
			in->want[i] = sc_xcalloc(in->count[i], 4);
			if (p->role == SC_ROLE_INOUT)
				memcpy(in->want[i], in->host_in[i], in->count[i] * 4);
			a.buf[i] = in->want[i];
		} else {
			a.buf[i] = in->host_in[i];
		}
		if (p->role != SC_ROLE_IN && spec->terms_rtol > 0) {
			free(in->terms[i]);
			in->terms[i] = sc_xcalloc(in->count[i], sizeof(float));
			a.terms[i] = in->terms[i];
		}
	}
	for (size_t i = 0; i < spec->nsize_vars; i++)
		a.size[i] = size->v[i];
	a.nparams = spec->nparams;
	ref(&a);
	for (size_t i = 0; i < SC_REF_MAX_PARAMS; i++)
		free(view[i]);
}

/* Makes dst a host-side copy of src (inputs, scalars, output space). */
static void instance_copy_host(struct instance *dst, const struct instance *src)
{
	memcpy(dst, src, sizeof(*dst));
	for (size_t i = 0; i < SC_REF_MAX_PARAMS; i++) {
		dst->host_in[i] = src->host_in[i] ? sc_xmalloc(src->count[i] * src->esize[i]) : NULL;
		if (dst->host_in[i])
			memcpy(dst->host_in[i], src->host_in[i], src->count[i] * src->esize[i]);
		dst->got[i] = src->got[i] ? sc_xcalloc(src->count[i], src->esize[i]) : NULL;
		dst->want[i] = NULL;
		dst->terms[i] = NULL;
		dst->base[i] = dst->dptr[i] = 0;
	}
}

/*
 * Fills count 32-bit words at dst with value. A destination that is not
 * 4-byte aligned (the tail guard of a half buffer with an odd element
 * count) is written from a host copy, since a device memset needs
 * alignment.
 */
static int fill32(struct sc_device *d, uint64_t dst, uint32_t value, size_t count)
{
	uint32_t *img;
	int err;

	if (dst % 4 == 0)
		return d->memset32(d, dst, value, count);
	img = sc_xmalloc(count * 4);
	for (size_t i = 0; i < count; i++)
		img[i] = value;
	err = d->htod(d, dst, img, count * 4);
	free(img);
	return err;
}

/* Allocates device buffers with guards and fills the guards with the canary. */
static int instance_alloc(struct instance *in, struct sc_device *d)
{
	const size_t gw = SC_HARNESS_GUARD_BYTES / 4;
	int err;

	for (size_t i = 0; i < in->nparams; i++) {
		if (!in->count[i])
			continue;
		if ((err = d->alloc(d, &in->base[i], in->count[i] * in->esize[i] + 2 * SC_HARNESS_GUARD_BYTES)) < 0)
			return err;
		in->dptr[i] = in->base[i] + SC_HARNESS_GUARD_BYTES;
		if ((err = d->memset32(d, in->base[i], SC_HARNESS_CANARY, gw)) < 0 ||
		    (err = fill32(d, in->dptr[i] + in->count[i] * in->esize[i], SC_HARNESS_CANARY, gw)) < 0)
			return err;
		in->params[i] = &in->dptr[i];
	}
	return 0;
}

/* Writes the NaN poison (or the integer pattern) over a buffer of type t;
 * alt: the determinism check's finite contents (SC_HARNESS_ALT_*). */
static int poison(struct sc_device *d, uint64_t dst, enum sc_dtype t, size_t count, bool alt)
{
	uint16_t last = alt ? SC_HARNESS_ALT_HALF : SC_HALF_POISON;
	int err;

	if (!sc_dtype_is_half(t))
		return d->memset32(d, dst,
				   t == SC_DTYPE_F32 ? (alt ? SC_HARNESS_ALT_F32 : SC_HARNESS_POISON_F32)
						     : (alt ? SC_HARNESS_ALT_INT : SC_HARNESS_POISON_INT),
				   count);
	if ((err = d->memset32(d, dst, (uint32_t)last << 16 | last, count / 2)) < 0)
		return err;
	return count % 2 ? d->htod(d, dst + (count - 1) * 2, &last, 2) : 0;
}

/* Sets scalar params to point at the right storage (float or int). */
static void instance_bind_scalars(struct instance *in, const struct sc_spec *spec)
{
	for (size_t i = 0; i < in->nparams; i++)
		if (spec->params[i].kind == SC_PARAM_SCALAR)
			in->params[i] = spec->params[i].dtype == SC_DTYPE_F32 ? (void *)&in->fval[i]
									 : (void *)&in->ival[i];
}

/* Copies inputs up (only inout ones unless all_inputs) and poisons outputs
 * (with the determinism check's contents when alt). */
static int instance_reset(struct instance *in, struct sc_device *d, const struct sc_spec *spec, bool all_inputs,
			  bool alt)
{
	int err;

	for (size_t i = 0; i < in->nparams; i++) {
		const struct sc_param *p = &spec->params[i];
		if (!in->count[i] || (p->role == SC_ROLE_IN && !all_inputs))
			continue;
		if (p->role == SC_ROLE_OUT || p->role == SC_ROLE_SCRATCH)
			err = poison(d, in->dptr[i], p->dtype, in->count[i], alt);
		else
			err = d->htod(d, in->dptr[i], in->host_in[i], in->count[i] * in->esize[i]);
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
		 uint64_t seed, const char *seedtxt, bool *good)
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
		      const struct sc_kernel_handle *k, struct instance *in, const struct sc_size_set *size, size_t si,
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
	if ((err = instance_reset(in, d, spec, true, true)) < 0)
		goto done;
	if (launch_and_wait(d, k, in, grid, block, shared, timeout_ms, &reason) < 0) {
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
		err = judge(out, d, spec, in, size, si, 0, seed, seedtxt, good);
done:
	for (size_t i = 0; i < SC_REF_MAX_PARAMS; i++) {
		if (first[i])
			explicit_bzero(first[i], in->count[i] * in->esize[i]);
		free(first[i]);
	}
	return err;
}

int sc_harness_check(struct sc_check_result *out, struct sc_device *d, const struct sc_spec *spec,
		     const struct sc_kernel_handle *k, sc_ref_fn ref, const struct sc_check_opts *opts)
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
			struct instance in;
			uint64_t seed = opts->seed_base + (uint64_t)s;
			enum sc_check_reason reason = SC_REASON_NONE;
			char seedtxt[48];
			bool good;

			if (opts->secret_seeds)
				snprintf(seedtxt, sizeof(seedtxt), "a secret seed");
			else
				snprintf(seedtxt, sizeof(seedtxt), "seed %llu", (unsigned long long)seed);
			memset(&in, 0, sizeof(in));
			if ((err = instance_host(&in, spec, size, si, dist, seed, true)) < 0 ||
			    (err = instance_alloc(&in, d)) < 0 ||
			    (err = instance_reset(&in, d, spec, true, false)) < 0) {
				instance_release(&in, d);
				return err;
			}
			instance_bind_scalars(&in, spec);
			if (launch_and_wait(d, k, &in, grid, block, shared, opts->timeout_ms, &reason) < 0) {
				out->ok = false;
				out->reason = reason;
				out->device_lost = true;
				set_msg(out->message, sizeof(out->message), "%s at %s, %s, distribution %zu",
					sc_error_last(), sdesc, seedtxt, dist);
				instance_release(&in, NULL);
				return 0;
			}
			out->launches++;
			instance_ref(&in, spec, size, ref);
			err = judge(out, d, spec, &in, size, si, dist, opts->secret_seeds ? 0 : seed, seedtxt, &good);
			if (err == 0 && good && opts->repeat && si == rsi && dist == 0 && s == 0) {
				err = repeat_run(out, d, spec, k, &in, size, si, grid, block, shared, opts->timeout_ms,
						 opts->secret_seeds ? 0 : seed, seedtxt, &good);
				if (err == 0 && out->device_lost) {
					instance_release(&in, NULL);
					return 0;
				}
			}
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
	struct instance *sets;
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
static int refresh(struct sc_device *d, const struct sc_spec *spec, struct instance *set, uint64_t seed,
		   size_t dist, size_t *fresh)
{
	int err;

	set->dist = dist;
	set->gen_seed = seed;
	for (size_t i = 0; i < set->nparams; i++) {
		const struct sc_param *p = &spec->params[i];
		if (!set->count[i])
			continue;
		if (p->role == SC_ROLE_OUT || p->role == SC_ROLE_SCRATCH) {
			err = poison(d, set->dptr[i], p->dtype, set->count[i], false);
		} else {
			const struct sc_dist *dd = p->ninit ? &p->init[set->dist < p->ninit ? set->dist : p->ninit - 1]
							      : &(struct sc_dist){ SC_DIST_UNIFORM, -1, 1 };
			err = d->fill(d, set->dptr[i], (int)p->dtype, set->count[i], (int)dd->kind, dd->a, dd->b,
				      mix_seed(seed, i, set->dist, SIZE_MAX));
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

	struct instance *sets = &t->sets[dist * (size_t)t->burst];

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

static size_t instance_bytes(const struct instance *in)
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
static int compare_outputs(struct sc_timing_result *out, const struct sc_spec *spec, struct instance *a,
			   struct sc_device *da, struct instance *b, struct sc_device *db, const char *what, bool *good)
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
			   struct instance *set, const char *who, bool *good)
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
	struct instance *a = &t[0].sets[s], *b = &t[1].sets[s];
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
					mix_seed(a->gen_seed, i, a->dist, SIZE_MAX))) < 0 ||
		    (err = t[1].d->dtoh(t[1].d, want, wit, bytes)) < 0)
			goto input_done;
		for (int w = 0; w < 2 && *good; w++) {
			struct instance *in = &t[w].sets[s];
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

static bool shares_address(const struct instance *a, const struct instance *sets, int nsets)
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
	struct instance f[2];
	int err;

	*good = true;
	memset(f, 0, sizeof(f));
	if (t[0].k->image &&
	    (err = t[0].d->load(t[0].d, t[0].k->image, t[0].k->image_len, t[0].k->entry, &fresh.fn)) < 0)
		return err;
	if ((err = instance_host(&f[0], spec, &spec->timing, SIZE_MAX, (size_t)(secret % spec->ndists),
				 derive(secret, 0x5eed), true)) < 0)
		goto done;
	instance_copy_host(&f[1], &f[0]);
	for (int w = 0; w < 2; w++) {
		if ((err = instance_alloc(&f[w], t[w].d)) < 0 ||
		    (err = instance_reset(&f[w], t[w].d, spec, true, false)) < 0)
			goto done;
		instance_bind_scalars(&f[w], spec);
	}
	out->fresh_addresses = !shares_address(&f[0], t[0].sets, t[0].nsets);
	for (int w = 0; w < 2; w++) {
		const struct sc_kernel_handle *k = w ? t[1].k : &fresh;
		*side = w;
		if ((err = launch_and_wait(t[w].d, k, &f[w], t[w].grid, t[w].block, t[w].shared, timeout_ms, reason)) < 0)
			goto done;
	}
	if ((err = check_integrity(out, t[0].d, spec, &f[0], "candidate", good)) < 0 || !*good)
		goto done;
	if (ref) {
		/* every rule of the correctness check, against the CPU
		 * reference (computed now, after the launch) */
		struct sc_check_result cr;
		memset(&cr, 0, sizeof(cr));
		instance_ref(&f[0], spec, &spec->timing, ref);
		out->reference_judged = true;
		if ((err = judge(&cr, t[0].d, spec, &f[0], &spec->timing, SIZE_MAX, f[0].dist, 0, "a secret seed", good)) <
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
	instance_release(&f[0], *reason == SC_REASON_NONE ? t[0].d : NULL);
	instance_release(&f[1], *reason == SC_REASON_NONE ? t[1].d : NULL);
	return err;
}

/* Allocates sets [from, to) of t on its device: the timing size's shapes,
 * distributions in turn, no host copies (inputs are generated there). */
static int alloc_sets(struct timed *t, const struct sc_spec *spec, int from, int to)
{
	int err;
	for (int s = from; s < to; s++) {
		if ((err = instance_host(&t->sets[s], spec, &spec->timing, SIZE_MAX, 0, 0, false)) < 0 ||
		    (err = instance_alloc(&t->sets[s], t->d)) < 0)
			return err;
		instance_bind_scalars(&t->sets[s], spec);
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
		    const struct sc_spec *spec_in, const struct sc_kernel_handle *cand, const struct sc_kernel_handle *base,
		    const struct sc_timing_opts_run *opts)
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
		t[w].sets = sc_xcalloc(SC_HARNESS_BURST_MAX, sizeof(struct instance));
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
				instance_release(&t[w].sets[s], out->device_lost ? NULL : t[w].d);
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
