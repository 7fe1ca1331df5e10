/*
 * The harness's inputs (harness.h, harness_parts.h): seeded values from a
 * fixture's distributions, launch geometry, and problem instances: host
 * copies and their checksums, the CPU reference's answers, device buffers
 * between two guard regions filled with a canary, outputs poisoned before
 * each launch.
 */
#include "common.h"
#include "half.h"
#include "harness_parts.h"

#include <math.h>

/* ---- random inputs ---- */

static double unit(uint64_t *s)
{
	return (double)(splitmix(s) >> 11) * (1.0 / 9007199254740992.0);
}

void sc_harness_fill(void *dst, enum sc_dtype t, size_t n, const struct sc_dist *dist,
		     uint64_t seed)
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

/* ---- geometry and buffers ---- */

int sc_harness_geometry(unsigned grid[3], unsigned block[3], unsigned *shared,
			const struct sc_spec *spec, const struct sc_size_set *size,
			const struct sc_tunable_values *tun)
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


void sc_harness_instance_release(struct sc_harness_instance *in, struct sc_device *d)
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

uint64_t sc_harness_mix_seed(uint64_t seed, size_t param, size_t dist, size_t size_index)
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
int sc_harness_instance_host(struct sc_harness_instance *in, const struct sc_spec *spec,
			     const struct sc_size_set *size, size_t size_index, size_t dist,
			     uint64_t seed, bool inputs)
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
					&p->init[dist < p->ninit ? dist : p->ninit - 1], sc_harness_mix_seed(seed, i, dist, size_index));
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
void sc_harness_instance_ref(struct sc_harness_instance *in, const struct sc_spec *spec,
			     const struct sc_size_set *size, sc_ref_fn ref)
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
void sc_harness_instance_copy_host(struct sc_harness_instance *dst,
				   const struct sc_harness_instance *src)
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
int sc_harness_instance_alloc(struct sc_harness_instance *in, struct sc_device *d)
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
int sc_harness_poison(struct sc_device *d, uint64_t dst, enum sc_dtype t, size_t count, bool alt)
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
void sc_harness_instance_bind_scalars(struct sc_harness_instance *in, const struct sc_spec *spec)
{
	for (size_t i = 0; i < in->nparams; i++)
		if (spec->params[i].kind == SC_PARAM_SCALAR)
			in->params[i] = spec->params[i].dtype == SC_DTYPE_F32 ? (void *)&in->fval[i]
									 : (void *)&in->ival[i];
}

/* Copies inputs up (only inout ones unless all_inputs) and poisons outputs
 * (with the determinism check's contents when alt). */
int sc_harness_instance_reset(struct sc_harness_instance *in, struct sc_device *d,
			      const struct sc_spec *spec, bool all_inputs, bool alt)
{
	int err;

	for (size_t i = 0; i < in->nparams; i++) {
		const struct sc_param *p = &spec->params[i];
		if (!in->count[i] || (p->role == SC_ROLE_IN && !all_inputs))
			continue;
		if (p->role == SC_ROLE_OUT || p->role == SC_ROLE_SCRATCH)
			err = sc_harness_poison(d, in->dptr[i], p->dtype, in->count[i], alt);
		else
			err = d->htod(d, in->dptr[i], in->host_in[i], in->count[i] * in->esize[i]);
		if (err < 0)
			return err;
	}
	return 0;
}
