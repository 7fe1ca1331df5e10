/* The strong reference of a fixture (strong.h). */
#include "common.h"
#include "gen.h"
#include "half.h"
#include "harness.h"
#include "strong.h"

#include <math.h>

/* Where the GEMM's operands are in spec: buffer and size-variable indices. */
struct gemm_layout {
	int a, b, c;        /* params */
	int vm, vn, vk;     /* size_vars */
	bool b_nk;
};

static int size_var(const struct sc_spec *spec, const char *name)
{
	for (size_t i = 0; i < spec->nsize_vars; i++)
		if (!strcmp(spec->size_vars[i], name))
			return (int)i;
	return -1;
}

/* A shape expression without blanks equals want. */
static bool shape_is(const char *shape, const char *want)
{
	char s[64];
	size_t n = 0;
	for (const char *p = shape; *p && n + 1 < sizeof(s); p++)
		if (*p != ' ')
			s[n++] = *p;
	s[n] = 0;
	return !strcmp(s, want);
}

/* gemm-bf16's parameters as the library's call needs them: bfloat16
 * A (M*K), B (K*N or N*K), C (M*N, out); any other input a vector of N
 * (a bias, not timed); scalars M, N, K. False, with why, otherwise. */
static bool gemm_layout(struct gemm_layout *g, const struct sc_spec *spec, char *why, size_t n)
{
	g->a = g->b = g->c = -1;
	g->vm = size_var(spec, "M");
	g->vn = size_var(spec, "N");
	g->vk = size_var(spec, "K");
	g->b_nk = false;
	for (size_t i = 0; i < spec->nparams; i++) {
		const struct sc_param *p = &spec->params[i];
		if (p->kind != SC_PARAM_BUFFER)
			continue;
		if (p->dtype != SC_DTYPE_BF16) {
			snprintf(why, n, "parameter '%s' is %s, the library call takes bfloat16", p->name,
				 sc_dtype_name(p->dtype));
			return false;
		}
		if (p->role == SC_ROLE_OUT && shape_is(p->shape, "M*N") && g->c < 0)
			g->c = (int)i;
		else if (p->role == SC_ROLE_IN && shape_is(p->shape, "M*K") && g->a < 0)
			g->a = (int)i;
		else if (p->role == SC_ROLE_IN && (shape_is(p->shape, "K*N") || shape_is(p->shape, "N*K")) && g->b < 0) {
			g->b = (int)i;
			g->b_nk = shape_is(p->shape, "N*K");
		} else if (!(p->role == SC_ROLE_IN && shape_is(p->shape, "N")) && p->role != SC_ROLE_SCRATCH) {
			snprintf(why, n, "parameter '%s' (%s) has no place in the library call", p->name, p->shape);
			return false;
		}
	}
	if (g->a < 0 || g->b < 0 || g->c < 0 || g->vm < 0 || g->vn < 0 || g->vk < 0) {
		snprintf(why, n, "the spec has no A (M*K), B (K*N or N*K) and C (M*N) over size variables M, N, K");
		return false;
	}
	return true;
}

struct gemm_bufs {
	uint64_t a, b, c;
	int m, n, k;
};

static void bufs_free(struct sc_device *d, struct gemm_bufs *g)
{
	if (g->a)
		d->free(d, g->a);
	if (g->b)
		d->free(d, g->b);
	if (g->c)
		d->free(d, g->c);
	memset(g, 0, sizeof(*g));
}

/* Device buffers for one size, A and B from the generator with their
 * first distribution and seed. */
static int bufs_make(struct gemm_bufs *g, struct sc_device *d, const struct sc_spec *spec, const struct gemm_layout *l,
		     const struct sc_size_set *size, uint64_t seed)
{
	const struct sc_param *pa = &spec->params[l->a], *pb = &spec->params[l->b];
	int64_t m = size->v[l->vm], n = size->v[l->vn], k = size->v[l->vk];
	int err;

	memset(g, 0, sizeof(*g));
	if (m < 1 || n < 1 || k < 1 || m > INT32_MAX || n > INT32_MAX || k > INT32_MAX)
		return sc_error_set(SC_EINVAL, "GEMM size %lld x %lld x %lld", (long long)m, (long long)n, (long long)k);
	g->m = (int)m;
	g->n = (int)n;
	g->k = (int)k;
	if ((err = d->alloc(d, &g->a, (size_t)(m * k) * 2)) < 0 || (err = d->alloc(d, &g->b, (size_t)(n * k) * 2)) < 0 ||
	    (err = d->alloc(d, &g->c, (size_t)(m * n) * 2)) < 0 ||
	    (err = d->fill(d, g->a, SC_DTYPE_BF16, (size_t)(m * k), pa->init[0].kind, pa->init[0].a, pa->init[0].b, seed)) < 0 ||
	    (err = d->fill(d, g->b, SC_DTYPE_BF16, (size_t)(n * k), pb->init[0].kind, pb->init[0].a, pb->init[0].b,
			   seed + 1)) < 0) {
		bufs_free(d, g);
		return err;
	}
	return 0;
}

/* The library's C at a small size against the CPU reference, on the same
 * generated inputs (the host generator gives the device's values). */
static int check_gemm(struct sc_strong_result *out, struct sc_device *d, const struct sc_spec *spec,
		      const struct gemm_layout *l, sc_ref_fn ref, const struct sc_size_set *size, int timeout_ms)
{
	struct gemm_bufs g;
	struct sc_ref_args a;
	float *fa, *fb, *want, *got;
	uint16_t *ha, *hb, *hc;
	size_t worst = 0, nbad = 0;
	double worst_ratio = 0;
	int err;

	if ((err = bufs_make(&g, d, spec, l, size, 0x5eed)) < 0)
		return err;
	if ((err = d->lib_gemm_bf16(d, l->b_nk, g.m, g.n, g.k, g.a, g.b, g.c)) < 0) {
		bufs_free(d, &g);
		if (err == SC_EGPU)
			return err;
		snprintf(out->why, sizeof(out->why), "%s", sc_error_last());
		return 1;
	}
	if ((err = d->sync(d, timeout_ms)) < 0) {
		bufs_free(d, &g);
		return err;
	}
	ha = sc_xmalloc((size_t)g.m * g.k * 2);
	hb = sc_xmalloc((size_t)g.n * g.k * 2);
	hc = sc_xmalloc((size_t)g.m * g.n * 2);
	fa = sc_xmalloc((size_t)g.m * g.k * sizeof(float));
	fb = sc_xmalloc((size_t)g.n * g.k * sizeof(float));
	want = sc_xcalloc((size_t)g.m * g.n, sizeof(float));
	got = sc_xmalloc((size_t)g.m * g.n * sizeof(float));
	err = d->dtoh(d, hc, g.c, (size_t)g.m * g.n * 2);
	{
		struct gemm_bufs dims = g;  /* the sizes outlive the buffers */
		bufs_free(d, &g);
		g.m = dims.m;
		g.n = dims.n;
		g.k = dims.k;
	}
	if (err < 0)
		goto done;
	sc_gen_fill(ha, SC_DTYPE_BF16, (size_t)g.m * g.k, &spec->params[l->a].init[0], 0x5eed);
	sc_gen_fill(hb, SC_DTYPE_BF16, (size_t)g.n * g.k, &spec->params[l->b].init[0], 0x5eed + 1);
	sc_half_decode(fa, SC_DTYPE_BF16, ha, (size_t)g.m * g.k);
	sc_half_decode(fb, SC_DTYPE_BF16, hb, (size_t)g.n * g.k);
	sc_half_decode(got, SC_DTYPE_BF16, hc, (size_t)g.m * g.n);
	memset(&a, 0, sizeof(a));
	a.nparams = spec->nparams;
	for (size_t i = 0; i < spec->nparams; i++) {
		const struct sc_param *p = &spec->params[i];
		if (p->kind == SC_PARAM_SCALAR) {
			/* M, N, K as the spec names them */
			int v = size_var(spec, p->value);
			a.i[i] = v >= 0 ? size->v[v] : 0;
		}
	}
	a.buf[l->a] = fa;
	a.buf[l->b] = fb;
	a.buf[l->c] = want;
	for (size_t i = 0; i < spec->nparams; i++)
		if (spec->params[i].kind == SC_PARAM_BUFFER && !a.buf[i])
			a.buf[i] = sc_xcalloc((size_t)g.n, sizeof(float));  /* a bias: zero, as the call has none */
	for (size_t i = 0; i < spec->nsize_vars; i++)
		a.size[i] = size->v[i];
	ref(&a);
	for (size_t i = 0; i < (size_t)g.m * g.n; i++) {
		double lim = spec->atol + spec->rtol * fabs(want[i]), e = fabs((double)got[i] - want[i]);
		if (!(e <= lim))
			nbad++;
		if (!(e / lim <= worst_ratio)) {
			worst_ratio = e / lim;
			worst = i;
		}
	}
	if (nbad) {
		snprintf(out->why, sizeof(out->why),
			 "the library's result differs from the CPU reference at %d x %d x %d: C[%zu] = %.6g, expected %.6g; %zu of %d elements outside tolerance",
			 g.m, g.n, g.k, worst, got[worst], want[worst], nbad, g.m * g.n);
		err = 1;
	}
	for (size_t i = 0; i < spec->nparams; i++)
		if (spec->params[i].kind == SC_PARAM_BUFFER && (int)i != l->a && (int)i != l->b && (int)i != l->c)
			free(a.buf[i]);
done:
	free(ha);
	free(hb);
	free(hc);
	free(fa);
	free(fb);
	free(want);
	free(got);
	return err;
}

int sc_strong_time(struct sc_strong_result *out, struct sc_device *d, const char *fixture, const struct sc_spec *spec,
		   sc_ref_fn ref, const struct sc_size_set *check, const struct sc_size_set *timed, int reps, int timeout_ms)
{
	struct gemm_layout l;
	struct gemm_bufs g;
	double *ms;
	int err;

	memset(out, 0, sizeof(*out));
	out->speedup = NAN;
	if (strcmp(fixture, "gemm-bf16")) {
		snprintf(out->why, sizeof(out->why), "no library kernel for fixture '%s'", fixture);
		return 0;
	}
	out->applies = true;
	out->library = true;
	snprintf(out->name, sizeof(out->name), "vendor GEMM (cuBLAS cublasGemmEx on a GPU)");
	if (!gemm_layout(&l, spec, out->why, sizeof(out->why)))
		return 0;
	out->b_nk = l.b_nk;
	if (!d->lib_gemm_bf16) {
		snprintf(out->why, sizeof(out->why), "this device has no library GEMM");
		return 0;
	}
	if (!ref) {
		snprintf(out->why, sizeof(out->why), "no CPU reference to check the library against");
		return 0;
	}
	if ((err = check_gemm(out, d, spec, &l, ref, check, timeout_ms)) != 0)
		return err < 0 ? err : 0;
	snprintf(out->name, sizeof(out->name), "%s", d->lib_name);
	if (reps < 1)
		reps = 1;
	if ((err = bufs_make(&g, d, spec, &l, timed, 0x7157)) < 0)
		return err;
	ms = sc_xcalloc((size_t)reps, sizeof(double));
	/* warm-up (the library picks and loads its kernels), then single
	 * calls between two events */
	for (int i = 0; i < 3 && err >= 0; i++)
		err = d->lib_gemm_bf16(d, l.b_nk, g.m, g.n, g.k, g.a, g.b, g.c);
	if (err >= 0)
		err = d->sync(d, timeout_ms);
	for (int i = 0; i < reps && err >= 0; i++) {
		if ((err = d->event_record(d, 1)) < 0 || (err = d->lib_gemm_bf16(d, l.b_nk, g.m, g.n, g.k, g.a, g.b, g.c)) < 0 ||
		    (err = d->event_record(d, 2)) < 0 || (err = d->event_wait(d, 2, timeout_ms)) < 0 ||
		    (err = d->event_elapsed(d, 1, 2, &ms[i])) < 0)
			break;
	}
	bufs_free(d, &g);
	if (err >= 0) {
		/* the same statistics as the candidate's timing (harness.h) */
		struct sc_timing_stats st;
		sc_timing_stats_compute(&st, ms, (size_t)reps);
		out->reps = st.n;
		out->median_ms = st.median;
		out->q1_ms = st.q1;
		out->q3_ms = st.q3;
		out->done = true;
		snprintf(out->method, sizeof(out->method), "single calls between two events after 3 warm-up calls, "
			 "L2 not flushed, not interleaved with the candidate");
	}
	free(ms);
	return err < 0 ? err : 0;
}

int sc_strong_time_solution(struct sc_strong_result *out, struct sc_device *d, struct sc_device *sd,
			    const struct sc_spec *spec, sc_ref_fn ref, const struct sc_kernel_handle *cand,
			    const struct sc_kernel_handle *sol, const char *name, const struct sc_timing_opts_run *to,
			    const struct sc_size_set *shapes, size_t nshapes)
{
	struct sc_check_opts co = { 1, 0x5011, to->timeout_ms, 1, false, false };
	struct sc_check_result chk;
	struct sc_timing_result tr;
	double logsum = 0;
	int err;

	memset(out, 0, sizeof(*out));
	out->speedup = NAN;
	snprintf(out->name, sizeof(out->name), "%s", name);
	if (!sol) {
		snprintf(out->why, sizeof(out->why), "the fixture has no solution.cu");
		return 0;
	}
	out->applies = true;
	if (!ref) {
		snprintf(out->why, sizeof(out->why), "no CPU reference to check the solution against");
		return 0;
	}
	if ((err = sc_harness_check(&chk, sd, spec, sol, ref, &co)) < 0)
		return err;
	if (!chk.ok) {
		snprintf(out->why, sizeof(out->why), "the solution fails the check at the first correctness size: %.400s",
			 chk.message);
		return chk.device_lost ? sc_error_set(SC_EGPU, "the fixture's solution lost the device: %s", chk.message)
				       : 0;
	}
	if (nshapes > SC_SPEC_MAX_TIMED)
		nshapes = SC_SPEC_MAX_TIMED;
	for (size_t k = 0; k < nshapes; k++) {
		struct sc_timing_opts_run o = *to;
		char sdesc[160];
		size_t off = 0;
		o.shape = &shapes[k];
		o.ref = ref;
		if ((err = sc_harness_time(&tr, d, sd, spec, cand, sol, &o)) < 0)
			return err;
		sdesc[0] = '\0';
		for (size_t i = 0; i < spec->nsize_vars && off < sizeof(sdesc); i++)
			off += (size_t)snprintf(sdesc + off, sizeof(sdesc) - off, "%s%s=%lld", i ? " " : "",
						spec->size_vars[i], (long long)shapes[k].v[i]);
		if (!tr.ok && tr.device_lost && tr.base_fault) {
			/* the solution faulted: not the candidate's doing */
			snprintf(out->why, sizeof(out->why), "the solution faulted during the timing at %.100s: %.350s", sdesc,
				 tr.message);
			return sc_error_set(SC_EGPU, "timing against the fixture's solution lost the device: %s", tr.message);
		}
		if (!tr.ok) {
			out->failed = true;
			out->reason = tr.reason;
			out->device_lost = tr.device_lost;
			snprintf(out->message, sizeof(out->message), "during the timing against the strong reference (%.200s) at %.150s: %.700s",
				 name, sdesc, tr.message);
			snprintf(out->why, sizeof(out->why), "the candidate failed a check of this timing: %.400s", tr.message);
			return 0;
		}
		out->shape_speedup[k] = tr.speedup;
		out->shape_median_ms[k] = tr.base.ev.median;
		logsum += log(tr.speedup > 0 && isfinite(tr.speedup) ? tr.speedup : 1e-300);
		if (k == 0) {
			out->median_ms = tr.base.ev.median;
			out->q1_ms = tr.base.ev.q1;
			out->q3_ms = tr.base.ev.q3;
			out->reps = tr.reps;
			snprintf(out->method, sizeof(out->method), "the harness's %s timing, interleaved with the candidate, "
				 "as the naive baseline is", tr.burst ? "burst" : "single-launch (L2 flushed)");
		}
	}
	out->nshapes = nshapes;
	out->done = nshapes > 0;
	out->speedup = nshapes ? exp(logsum / (double)nshapes) : NAN;
	return 0;
}

void sc_strong_pick(struct sc_strong_result *out, const struct sc_strong_result *lib,
		    const struct sc_strong_result *sol)
{
	const struct sc_strong_result *win, *other;

	if (lib->done && sol->done) {
		win = lib->speedup <= sol->speedup ? lib : sol;
		other = win == lib ? sol : lib;
		*out = *win;
		snprintf(out->name, sizeof(out->name), "%.150s (faster than %.120s: %.4g ms vs %.4g ms)", win->name,
			 other->name, win->median_ms, other->median_ms);
		return;
	}
	if (lib->done || sol->done) {
		*out = lib->done ? *lib : *sol;
		return;
	}
	*out = lib->applies ? *lib : *sol;
	out->applies = lib->applies || sol->applies;
	if (lib->applies && sol->applies) {
		snprintf(out->name, sizeof(out->name), "%.150s or %.150s", lib->name, sol->name);
		snprintf(out->why, sizeof(out->why), "%.250s; %.250s", lib->why, sol->why);
	}
}
