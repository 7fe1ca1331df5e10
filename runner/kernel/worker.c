/*
 * skillci-kernel: the sandboxed kernel worker. Reads one job (JSON on
 * stdin, --job FILE, or built from --fixture/--candidate options), checks
 * one candidate: scan, compile with NVRTC, and with a GPU verify against
 * the CPU reference and time against the baseline. Writes one JSON result
 * (docs/kernels.md describes it) on the result descriptor and exits 0
 * whenever it wrote one; 2 for a bad job, 3 when it could not run at all.
 *
 * The result descriptor is --result-fd N (the orchestrator passes 3), or a
 * private copy of stdout made before anything runs, after which fd 1
 * points at stderr: a kernel's device printf goes to fd 1 at the next
 * synchronize, and must never share the stream the result is read from.
 * A job's "nonce" is echoed in the result so the orchestrator can tell it
 * from anything else written there.
 */
#include "common.h"
#include "json.h"
#include "device.h"
#include "harness.h"
#include "nvrtc.h"
#include "ptx.h"
#include "refs.h"
#include "gen.h"
#include "scan.h"
#include "spec.h"
#include "strong.h"

#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <unistd.h>

#define WORKER_MAX_SOURCE (1024 * 1024)

struct job {
	char *fixture;          /* name for the reference lookup */
	char *fixture_hash;
	char *nonce;            /* echoed in the result */
	struct sc_spec spec;
	char *candidate;
	char *baseline;         /* NULL: no timing */
	char *solution;         /* the fixture's solution (the strong reference); NULL: none */
	char *solution_name;    /* what it is called in the result */
	char *arch;
	char *include_dir;
	char *cache_dir;
	unsigned char *cache_key;  /* decoded "cache_key" (hex): HMAC key of cubin cache entries */
	size_t cache_key_len;
	bool compile_only;
	bool timing;
	int seeds;
	int timeout_ms;
	int max_sizes;
	int device;             /* GPU index: one per kernel job of a pool (kernelrun.h) */
};

static void job_release(struct job *j)
{
	free(j->fixture);
	free(j->fixture_hash);
	free(j->nonce);
	sc_spec_release(&j->spec);
	free(j->candidate);
	free(j->baseline);
	free(j->solution);
	free(j->solution_name);
	free(j->arch);
	free(j->include_dir);
	free(j->cache_dir);
	free(j->cache_key);
}

/* A copy of a string member, of def when there is none (NULL for NULL). */
static char *jstr(const cJSON *o, const char *k, const char *def)
{
	const char *s = sc_json_str_or(o, k, def);
	return s ? sc_xstrdup(s) : NULL;
}

/* A whole-number member that fits an int, def when absent; anything else
 * is an error naming the member. */
static int jint(int *out, const cJSON *o, const char *k, int def)
{
	int64_t v = def;

	switch (sc_json_get_int(&v, o, k, INT_MIN, INT_MAX)) {
	case SC_JSON_OK:
	case SC_JSON_MISSING:
		*out = (int)v;
		return 0;
	default:
		return sc_error_set(SC_EINVAL, "job: \"%s\" must be a whole number", k);
	}
}

/* Parses a job document (docs/kernels.md, "Job"). */
static int job_parse(struct job *j, const char *text, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(text, len);
	const cJSON *spec;
	int err = 0;

	if (!root)
		return sc_error_set(SC_EPARSE, "job: malformed JSON");
	j->fixture = jstr(root, "fixture", NULL);
	j->fixture_hash = jstr(root, "fixture_hash", "");
	j->nonce = jstr(root, "nonce", NULL);
	j->candidate = jstr(root, "candidate", NULL);
	j->baseline = jstr(root, "baseline", NULL);
	j->solution = jstr(root, "solution", NULL);
	j->solution_name = jstr(root, "solution_name", NULL);
	j->arch = jstr(root, "arch", "sm_90");
	j->include_dir = jstr(root, "include_dir", NULL);
	j->cache_dir = jstr(root, "cache_dir", NULL);
	j->compile_only = sc_json_bool_or(root, "compile_only", false);
	j->timing = sc_json_bool_or(root, "timing", true);
	if ((err = jint(&j->seeds, root, "seeds", 5)) < 0 ||
	    (err = jint(&j->timeout_ms, root, "timeout_ms", 10000)) < 0 ||
	    (err = jint(&j->max_sizes, root, "max_sizes", 0)) < 0 ||
	    (err = jint(&j->device, root, "device", 0)) < 0)
		goto done;
	{
		const char *k = sc_json_str_or(root, "cache_key", "");
		if (*k) {
			size_t n = strlen(k) / 2;
			j->cache_key = sc_xmalloc(n + 1);
			j->cache_key_len = 0;
			for (size_t i = 0; i < n; i++) {
				unsigned v;
				if (sscanf(k + 2 * i, "%2x", &v) != 1)
					break;
				j->cache_key[j->cache_key_len++] = (unsigned char)v;
			}
		}
	}
	spec = sc_json_member(root, "spec");
	if (!j->candidate) {
		err = sc_error_set(SC_EINVAL, "job: \"candidate\" (the CUDA source) is missing");
	} else if (cJSON_IsObject(spec)) {
		struct sc_buf s = SC_BUF_INIT;
		sc_json_print(&s, spec, false);
		err = sc_spec_parse(&j->spec, s.ptr, s.len, "job.spec");
		sc_buf_release(&s);
	} else if (cJSON_IsString(spec)) {
		err = sc_spec_load(&j->spec, spec->valuestring);
	} else {
		err = sc_error_set(SC_EINVAL, "job: \"spec\" (object or path) is missing");
	}
	if (!err && !j->fixture)
		j->fixture = sc_xstrdup(j->spec.name);
	if (!err && j->solution && !j->solution_name) {
		struct sc_buf n = SC_BUF_INIT;
		sc_buf_printf(&n, "fixture solution fixtures/%s/solution.cu", j->fixture);
		j->solution_name = sc_buf_detach(&n, NULL);
	}
done:
	cJSON_Delete(root);
	return err;
}

static cJSON *compile_json(const struct sc_compiled *c, const char *arch)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "ok", c->ok);
	cJSON_AddStringToObject(o, "arch", arch);
	cJSON_AddStringToObject(o, "nvrtc", c->version);
	cJSON_AddBoolToObject(o, "cached", c->cached);
	if (c->cache_note[0])
		cJSON_AddStringToObject(o, "cache_note", c->cache_note);
	if (!c->cached) {
		cJSON_AddBoolToObject(o, "confined", c->confined);
		if (!c->confined)
			cJSON_AddStringToObject(o, "confine_why", c->confine_why);
	}
	cJSON_AddNumberToObject(o, "ms", c->ms);
	cJSON_AddStringToObject(o, "key", c->key);
	if (c->ok) {
		cJSON_AddNumberToObject(o, "registers", c->registers);
		cJSON_AddNumberToObject(o, "spill_stores", c->spill_stores);
		cJSON_AddNumberToObject(o, "spill_loads", c->spill_loads);
		cJSON_AddNumberToObject(o, "shared_bytes", c->shared_bytes);
		cJSON_AddNumberToObject(o, "stack_bytes", c->stack_bytes);
	}
	cJSON_AddStringToObject(o, "log", c->log ? c->log : "");
	return o;
}

static cJSON *stats_json(const struct sc_timing_side *s)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "median_ms", s->ev.median);
	cJSON_AddNumberToObject(o, "q1_ms", s->ev.q1);
	cJSON_AddNumberToObject(o, "q3_ms", s->ev.q3);
	cJSON_AddNumberToObject(o, "iqr_ms", s->ev.iqr);
	cJSON_AddNumberToObject(o, "mean_ms", s->ev.mean);
	cJSON_AddNumberToObject(o, "min_ms", s->ev.min);
	cJSON_AddNumberToObject(o, "rse", s->ev.rse);
	cJSON_AddNumberToObject(o, "reps", (double)s->ev.n);
	cJSON_AddNumberToObject(o, "burst", s->burst);
	cJSON_AddBoolToObject(o, "launch_bound", s->launch_bound);
	cJSON_AddNumberToObject(o, "span_median_ms", s->span.median);
	cJSON_AddNumberToObject(o, "host_median_ms", s->host.median);
	return o;
}

static void set_verdict(cJSON *r, const char *verdict, const char *reason, const char *message)
{
	cJSON_ReplaceItemInObject(r, "verdict", cJSON_CreateString(verdict));
	cJSON_ReplaceItemInObject(r, "reason", cJSON_CreateString(reason));
	cJSON_ReplaceItemInObject(r, "message", cJSON_CreateString(message));
}

/* The first line of a compile log that reports an error (a warning may
 * come first); the first line when none says "error". */
static const char *first_error(const char *log)
{
	for (const char *p = log; *p;) {
		size_t n = strcspn(p, "\n");
		const char *e = memmem(p, n, "error", 5);
		if (e && (memmem(p, n, ": error", 7) || memmem(p, n, "catastrophic error", 18)))
			return p;
		p += n + (p[n] == '\n');
	}
	return log;
}

static bool has_entry(const struct sc_compiled *c, const char *entry)
{
	size_t n = strlen(entry) + 1;
	return c->cubin && memmem(c->cubin, c->cubin_len, entry, n) != NULL;
}

/* Compiles one source with its tunables; fills *out. Returns <0 for NVRTC failures. */
static int compile(struct sc_compiled *out, const struct job *j, const char *src,
		   const struct sc_tunable_values *tun)
{
	struct sc_nvrtc_defines defs;
	struct sc_nvrtc_opts o = { j->arch, &defs, j->include_dir, j->cache_dir, j->cache_key, j->cache_key_len, true };

	memset(&defs, 0, sizeof(defs));
	for (size_t i = 0; i < j->spec.ntunables && i < 8; i++) {
		defs.name[i] = j->spec.tunables[i].name;
		defs.value[i] = tun->v[i];
		defs.n++;
	}
	return sc_nvrtc_compile(out, src, strlen(src), &o);
}

static cJSON *check_json(const struct sc_check_result *c, const struct job *j)
{
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "status", c->ok ? "passed" : "failed");
	cJSON_AddNumberToObject(o, "launches", (double)c->launches);
	cJSON_AddNumberToObject(o, "seeds", j->seeds);
	cJSON_AddNumberToObject(o, "distributions", (double)j->spec.ndists);
	cJSON_AddNumberToObject(o, "sizes", (double)j->spec.ncorrectness);
	cJSON_AddNumberToObject(o, "worst_error_ratio", c->max_ratio < 1e300 ? c->max_ratio : 1e300);
	if (!c->ok) {
		cJSON_AddStringToObject(o, "reason", sc_check_reason_name(c->reason));
		cJSON_AddStringToObject(o, "message", c->message);
	}
	if (c->worst.valid) {
		cJSON *w = cJSON_AddObjectToObject(o, "worst");
		cJSON_AddStringToObject(w, "param", j->spec.params[c->worst.param].name);
		cJSON_AddNumberToObject(w, "index", (double)c->worst.index);
		cJSON_AddNumberToObject(w, "size_index", (double)c->worst.size_index);
		cJSON_AddNumberToObject(w, "seed", (double)c->worst.seed);
		cJSON_AddNumberToObject(w, "distribution", (double)c->worst.dist);
		if (isfinite(c->worst.got))
			cJSON_AddNumberToObject(w, "got", c->worst.got);
		else
			cJSON_AddStringToObject(w, "got", isnan(c->worst.got) ? "nan" : c->worst.got > 0 ? "inf" : "-inf");
		cJSON_AddNumberToObject(w, "want", isfinite(c->worst.want) ? c->worst.want : 0);
		cJSON_AddNumberToObject(w, "error", isfinite(c->worst.err) ? c->worst.err : 1e300);
		cJSON_AddNumberToObject(w, "tolerance", c->worst.limit);
		cJSON_AddNumberToObject(w, "bad_elements", (double)c->worst.nbad);
	}
	return o;
}

/*
 * Writes the scan's flags as r's "scan" (replacing an earlier one);
 * returns whether one of them fails the verdict.
 */
static bool emit_flags(cJSON *r, const struct sc_scan *scan)
{
	cJSON *flags;
	bool error = false;

	cJSON_DeleteItemFromObject(r, "scan");
	flags = cJSON_AddArrayToObject(r, "scan");
	for (size_t i = 0; i < scan->nflags; i++) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "kind", scan->flags[i].kind);
		cJSON_AddStringToObject(f, "severity", scan->flags[i].severity == SC_SCAN_ERROR ? "error" : "warning");
		cJSON_AddStringToObject(f, "from", scan->flags[i].from_ptx ? "ptx" : "source");
		cJSON_AddNumberToObject(f, "line", (double)scan->flags[i].line);
		cJSON_AddStringToObject(f, "text", scan->flags[i].text);
		cJSON_AddItemToArray(flags, f);
		error |= scan->flags[i].severity == SC_SCAN_ERROR;
	}
	return error;
}

/*
 * Once the candidate compiled, what its PTX shows replaces the source's
 * guesses for the kinds the PTX decides (the source flags of those kinds
 * are dropped: a macro, a pasted token or a split string cannot hide from
 * the PTX, and a spelling that compiles to nothing is no flag).
 */
static void merge_ptx_flags(struct sc_scan *scan, const struct sc_compiled *cc, const struct sc_spec *spec)
{
	struct sc_ptx_rules rules;
	size_t k = 0;

	if (!cc->ptx)
		return;
	for (size_t i = 0; i < scan->nflags; i++)
		if (!sc_scan_kind_is_ptx(scan->flags[i].kind))
			scan->flags[k++] = scan->flags[i];
	scan->nflags = k;
	sc_ptx_rules_from_spec(&rules, spec);
	sc_scan_ptx(scan, cc->ptx, cc->ptx_len, &rules);
}

/*
 * Compiles the harness's input generator (gen.h) for the job's arch and
 * loads it into d's context (siblings opened later get it too). Without
 * it the inputs are generated on the host and copied: slower, as fresh.
 */
static void load_generator(struct sc_device *d, const struct job *j)
{
	struct sc_nvrtc_opts o = { j->arch, NULL, j->include_dir, j->cache_dir, j->cache_key, j->cache_key_len, false };
	struct sc_compiled gc;

	if (sc_nvrtc_compile(&gc, sc_gen_cuda_source, strlen(sc_gen_cuda_source), &o) == 0 && gc.ok)
		(void)sc_device_cuda_set_generator(d, gc.cubin, gc.cubin_len);
	sc_error_clear();
	sc_compiled_release(&gc);
}

/*
 * Runs the job and fills the result r: verdict, reason, message and the
 * sections of each step that ran. Infrastructure failures become verdict
 * "error"; nothing is printed.
 */
/* The correctness size with the most work under 2^24 multiply-adds (the
 * strong reference's check runs the CPU reference on it), else the first. */
static const struct sc_size_set *strong_check_size(const struct sc_spec *spec)
{
	const struct sc_size_set *best = &spec->correctness[0];
	double most = -1;
	for (size_t i = 0; i < spec->ncorrectness; i++) {
		double w = 1;
		for (size_t v = 0; v < spec->nsize_vars; v++)
			w *= (double)spec->correctness[i].v[v];
		if (w <= 16777216.0 && w > most) {
			most = w;
			best = &spec->correctness[i];
		}
	}
	return best;
}

/*
 * The fixture's solution compiled and loaded into the baseline's context
 * bdev as *sol; false with why when it does not compile or load (the
 * strong reference is then not timed).
 */
static bool load_solution(struct sc_kernel_handle *sol, struct sc_compiled *sc, struct sc_device *bdev,
			  const struct job *j, char *why, size_t n)
{
	memset(sol, 0, sizeof(*sol));
	if (sc_spec_tunables(&sol->tun, &j->spec, j->solution) < 0 || compile(sc, j, j->solution, &sol->tun) < 0) {
		snprintf(why, n, "the fixture's solution cannot be compiled: %s", sc_error_last());
		return false;
	}
	if (!sc->ok) {
		const char *first = first_error(sc->log);
		snprintf(why, n, "the fixture's solution does not compile: %.*s", (int)strcspn(first, "\n"), first);
		return false;
	}
	sol->image = sc->cubin;
	sol->image_len = sc->cubin_len;
	sol->entry = j->spec.entry;
	if (bdev->load(bdev, sc->cubin, sc->cubin_len, j->spec.entry, &sol->fn) < 0) {
		snprintf(why, n, "the fixture's solution does not load: %s", sc_error_last());
		return false;
	}
	return true;
}

/* "rows=16384 cols=4096": a size set as the spec names it. */
static void shape_text(char *dst, size_t cap, const struct sc_spec *spec, const struct sc_size_set *size)
{
	size_t off = 0;
	dst[0] = '\0';
	for (size_t i = 0; i < spec->nsize_vars && off < cap; i++)
		off += (size_t)snprintf(dst + off, cap - off, "%s%s=%lld", i ? " " : "", spec->size_vars[i],
					(long long)size->v[i]);
}

/* One timed shape of timing.shapes: its size, times, speedup and each
 * input distribution's. */
static cJSON *shape_json(const struct sc_timing_result *tr, const struct sc_spec *spec)
{
	cJSON *o = cJSON_CreateObject(), *size = cJSON_AddObjectToObject(o, "size"), *ds;

	for (size_t i = 0; i < spec->nsize_vars; i++)
		cJSON_AddNumberToObject(size, spec->size_vars[i], (double)tr->shape.v[i]);
	cJSON_AddNumberToObject(o, "speedup", isfinite(tr->speedup) ? tr->speedup : 0);
	cJSON_AddNumberToObject(o, "candidate_ms", tr->cand.ev.median);
	cJSON_AddNumberToObject(o, "baseline_ms", tr->base.ev.median);
	cJSON_AddNumberToObject(o, "candidate_rse", tr->cand.ev.rse);
	cJSON_AddStringToObject(o, "method", tr->burst ? "burst" : "single");
	cJSON_AddNumberToObject(o, "burst", tr->cand.burst);
	cJSON_AddNumberToObject(o, "reps", (double)tr->reps);
	cJSON_AddBoolToObject(o, "converged", tr->converged);
	cJSON_AddNumberToObject(o, "pct_peak", tr->pct_peak);
	cJSON_AddNumberToObject(o, "worst_distribution", (double)tr->worst_dist);
	ds = cJSON_AddArrayToObject(o, "distributions");
	for (size_t d = 0; d < tr->ndists; d++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "distribution", (double)d);
		cJSON_AddNumberToObject(e, "candidate_ms", tr->dist[d].cand_ms);
		cJSON_AddNumberToObject(e, "baseline_ms", tr->dist[d].base_ms);
		cJSON_AddNumberToObject(e, "speedup", isfinite(tr->dist[d].speedup) ? tr->dist[d].speedup : 0);
		cJSON_AddItemToArray(ds, e);
	}
	cJSON_AddBoolToObject(o, "reference_judged", tr->reference_judged);
	cJSON_AddNumberToObject(o, "spot_checks", (double)tr->spot_checks);
	return o;
}

/*
 * The strong reference (strong.h) as timing.strong_reference: the
 * fixture's solution timed against the candidate ck (on dev) in the
 * baseline's context bdev at every timed shape, for gemm-bf16 also the
 * vendor GEMM, the faster of the two kept (each the geometric mean over
 * the shapes, tr[k] the candidate's timing at shape k). Appends its
 * speedup (or why there is none) to msg. A check of the candidate that
 * fails during this timing is a failure of the unit: *failed is set
 * with its reason and message. Returns a negative code when the device
 * failed.
 */
static int strong_json(cJSON *t, struct sc_device *dev, struct sc_device *bdev, const struct job *j, sc_ref_fn ref,
		       const struct sc_kernel_handle *ck, const struct sc_timing_result *tr, char *msg, size_t msgsize,
		       struct sc_strong_result *failed)
{
	struct sc_strong_result lib, sol, s;
	struct sc_timing_opts_run to = { .timeout_ms = j->timeout_ms };
	struct sc_compiled sc;
	struct sc_kernel_handle sk;
	double logsum = 0;
	cJSON *o, *shapes;
	size_t n;
	int err = 0;

	memset(&sc, 0, sizeof(sc));
	memset(failed, 0, sizeof(*failed));
	memset(&lib, 0, sizeof(lib));
	for (size_t k = 0; k < j->spec.ntimed; k++) {
		struct sc_strong_result one;
		if ((err = sc_strong_time(&one, bdev, j->fixture, &j->spec, ref, strong_check_size(&j->spec),
					  &j->spec.timed[k], 20, j->timeout_ms)) < 0)
			return err;
		if (k == 0)
			lib = one;
		if (!one.done) {
			if (k > 0) {
				lib.done = false;
				snprintf(lib.why, sizeof(lib.why), "%s", one.why);
			}
			break;
		}
		lib.shape_speedup[k] = tr[k].cand.ev.median > 0 ? one.median_ms / tr[k].cand.ev.median : NAN;
		lib.shape_median_ms[k] = one.median_ms;
		logsum += log(lib.shape_speedup[k] > 0 ? lib.shape_speedup[k] : 1e-300);
		lib.nshapes = k + 1;
	}
	if (lib.done)
		lib.speedup = exp(logsum / (double)lib.nshapes);
	if (!j->solution) {
		err = sc_strong_time_solution(&sol, dev, bdev, &j->spec, ref, ck, NULL, "none", &to, j->spec.timed,
					      j->spec.ntimed);
	} else {
		memset(&sol, 0, sizeof(sol));
		sol.speedup = NAN;
		if (load_solution(&sk, &sc, bdev, j, sol.why, sizeof(sol.why))) {
			sc_random_bytes(&to.secret, sizeof(to.secret));
			err = sc_strong_time_solution(&sol, dev, bdev, &j->spec, ref, ck, &sk, j->solution_name, &to,
						      j->spec.timed, j->spec.ntimed);
		} else {
			sol.applies = true;
			snprintf(sol.name, sizeof(sol.name), "%s", j->solution_name);
		}
	}
	sc_compiled_release(&sc);
	if (err < 0)
		return err;
	if (sol.failed) {
		*failed = sol;
		return 0;
	}
	sc_strong_pick(&s, &lib, &sol);
	o = cJSON_AddObjectToObject(t, "strong_reference");
	cJSON_AddStringToObject(o, "name", s.applies ? s.name : "none");
	if (s.library)
		cJSON_AddStringToObject(o, "layout", s.b_nk ? "C = A * B^T (B N x K)" : "C = A * B (B K x N)");
	cJSON_AddStringToObject(o, "status", s.done ? "done" : s.applies ? "unavailable" : "none");
	n = strlen(msg);
	if (!s.done) {
		cJSON_AddStringToObject(o, "why", s.why);
		snprintf(msg + n, msgsize - n, s.applies ? "; strong reference not timed: %s" : "; no strong reference: %s",
			 s.why);
		return 0;
	}
	cJSON_AddNumberToObject(o, "median_ms", s.median_ms);
	cJSON_AddNumberToObject(o, "q1_ms", s.q1_ms);
	cJSON_AddNumberToObject(o, "q3_ms", s.q3_ms);
	cJSON_AddNumberToObject(o, "reps", (double)s.reps);
	cJSON_AddNumberToObject(o, "speedup", isfinite(s.speedup) ? s.speedup : 0);
	cJSON_AddStringToObject(o, "method", s.method);
	shapes = cJSON_AddArrayToObject(o, "shapes");
	for (size_t k = 0; k < s.nshapes; k++) {
		cJSON *e = cJSON_CreateObject();
		cJSON_AddNumberToObject(e, "median_ms", s.shape_median_ms[k]);
		cJSON_AddNumberToObject(e, "speedup", isfinite(s.shape_speedup[k]) ? s.shape_speedup[k] : 0);
		cJSON_AddItemToArray(shapes, e);
	}
	snprintf(msg + n, msgsize - n, "; %.2fx the strong reference (%s, %.4f ms%s)", s.speedup, s.name, s.median_ms,
		 s.nshapes > 1 ? " at the first shape; geometric mean over the shapes" : "");
	return 0;
}

static void run_job(cJSON *r, struct job *j)
{
	struct sc_scan scan;
	struct sc_tunable_values ctun, btun;
	struct sc_compiled cc, bc;
	struct sc_device *dev = NULL, *bdev = NULL;
	struct sc_kernel_handle ck, bk;
	struct sc_check_result chk;
	cJSON *tun, *devj;
	bool gpu, flag_error = false;
	char msg[2048];
	int err;
	sc_ref_fn ref = sc_ref_lookup(j->fixture);

	memset(&cc, 0, sizeof(cc));
	memset(&bc, 0, sizeof(bc));
	cJSON_AddStringToObject(r, "fixture", j->fixture);
	cJSON_AddStringToObject(r, "fixture_hash", j->fixture_hash);
	cJSON_AddStringToObject(r, "arch", j->arch);

	/* 1. Static scan: refusals before anything reaches NVRTC. */
	err = sc_scan_source(&scan, j->candidate, strlen(j->candidate), j->spec.precision == SC_PRECISION_FP32);
	if (err < 0) {
		set_verdict(r, "failed", scan.refusal ? scan.refusal : "include_refused", sc_error_last());
		return;
	}
	flag_error = emit_flags(r, &scan);

	/* 2. Tunables and compile. */
	if (sc_spec_tunables(&ctun, &j->spec, j->candidate) < 0) {
		set_verdict(r, "failed", "bad_tunable", sc_error_last());
		return;
	}
	tun = cJSON_AddObjectToObject(r, "tunables");
	for (size_t i = 0; i < j->spec.ntunables; i++)
		cJSON_AddNumberToObject(tun, j->spec.tunables[i].name, (double)ctun.v[i]);
	if (compile(&cc, j, j->candidate, &ctun) < 0) {
		set_verdict(r, "error", "nvrtc", sc_error_last());
		goto done;
	}
	cJSON_AddItemToObject(r, "compile", compile_json(&cc, j->arch));
	if (cc.ok) {
		merge_ptx_flags(&scan, &cc, &j->spec);
		flag_error = emit_flags(r, &scan);
	}
	if (!cc.ok) {
		const char *first = first_error(cc.log);
		size_t n = strcspn(first, "\n");
		snprintf(msg, sizeof(msg), "compile error: %.*s", (int)(n < 1500 ? n : 1500), first);
		set_verdict(r, "failed", "compile_error", msg);
		goto done;
	}
	if (!has_entry(&cc, j->spec.entry)) {
		snprintf(msg, sizeof(msg),
			 "compiled, but there is no kernel '%s': define extern \"C\" __global__ void %s(...) with the parameters of the spec",
			 j->spec.entry, j->spec.entry);
		set_verdict(r, "failed", "no_entry", msg);
		goto done;
	}
	if (j->baseline) {
		if (sc_spec_tunables(&btun, &j->spec, j->baseline) < 0 || compile(&bc, j, j->baseline, &btun) < 0 ||
		    !bc.ok) {
			set_verdict(r, "error", "baseline", "the fixture's baseline does not compile");
			if (bc.log)
				cJSON_AddItemToObject(r, "baseline_compile", compile_json(&bc, j->arch));
			goto done;
		}
		cJSON_AddItemToObject(r, "baseline_compile", compile_json(&bc, j->arch));
	}

	/* 3. The device, or compile-only. */
	devj = cJSON_AddObjectToObject(r, "device");
	err = j->compile_only ? sc_error_set(SC_ENOSYS, "compile-only requested")
			      : sc_device_cuda_open_index(&dev, j->device);
	gpu = err == 0;
	cJSON_AddBoolToObject(devj, "gpu", gpu);
	if (!gpu) {
		cJSON *s;
		cJSON_AddStringToObject(devj, "why", sc_error_last());
		s = cJSON_AddObjectToObject(r, "correctness");
		cJSON_AddStringToObject(s, "status", "skipped");
		cJSON_AddStringToObject(s, "reason", sc_error_last());
		s = cJSON_AddObjectToObject(r, "timing");
		cJSON_AddStringToObject(s, "status", "skipped");
		cJSON_AddStringToObject(s, "reason", sc_error_last());
		snprintf(msg, sizeof(msg), "compiled for %s (%d registers, %d bytes spilled); correctness and speed not checked: %s%s",
			 j->arch, cc.registers, cc.spill_stores, sc_error_last(),
			 flag_error ? "; but the scan of its source and PTX flagged it (see scan)" : "");
		/* An error-severity flag fails without a GPU too: the flag does
		 * not depend on running the kernel. */
		if (flag_error)
			set_verdict(r, "flagged", "scan", msg);
		else
			set_verdict(r, "compiled", err == SC_ENOSYS ? "no_gpu" : "gpu_error", msg);
		goto done;
	}
	cJSON_AddStringToObject(devj, "name", dev->info.name);
	cJSON_AddNumberToObject(devj, "driver", dev->info.driver_version);
	cJSON_AddNumberToObject(devj, "sm_count", dev->info.sm_count);
	cJSON_AddNumberToObject(devj, "l2_bytes", (double)dev->info.l2_bytes);
	cJSON_AddNumberToObject(devj, "peak_gbps", dev->info.peak_gbps);
	cJSON_AddNumberToObject(devj, "peak_gflops", dev->info.peak_gflops);
	cJSON_AddNumberToObject(devj, "peak_tc_gflops", dev->info.peak_tc_gflops);
	cJSON_AddNumberToObject(devj, "clock_khz", dev->info.clock_khz);
	cJSON_AddNumberToObject(devj, "peak_tc16_gflops", dev->info.peak_tc16_gflops);
	if (!ref) {
		snprintf(msg, sizeof(msg), "no CPU reference for fixture '%s' in this worker", j->fixture);
		set_verdict(r, "error", "no_reference", msg);
		goto done;
	}
	memset(&ck, 0, sizeof(ck));
	ck.tun = ctun;
	ck.image = cc.cubin;
	ck.image_len = cc.cubin_len;
	ck.entry = j->spec.entry;
	if (dev->load(dev, cc.cubin, cc.cubin_len, j->spec.entry, &ck.fn) < 0) {
		set_verdict(r, "failed", "load", sc_error_last());
		goto done;
	}

	/* 4. Correctness on every size, distribution and seed. */
	{
		/* with the determinism check: one size run twice */
		struct sc_check_opts o = { j->seeds, 1, j->timeout_ms, (size_t)j->max_sizes, false, true };
		if ((err = sc_harness_check(&chk, dev, &j->spec, &ck, ref, &o)) < 0) {
			set_verdict(r, "error", "gpu", sc_error_last());
			goto done;
		}
		cJSON_AddItemToObject(r, "correctness", check_json(&chk, j));
		if (!chk.ok) {
			set_verdict(r, "failed", sc_check_reason_name(chk.reason), chk.message);
			goto done;
		}
	}

	/* 5. Timing against the baseline (in a context of its own) at every
	 * timed shape, then the correctness check again on a freshly loaded
	 * module with a secret seed, then the strong reference's timing (a
	 * check like the others). */
	if (j->timing && j->baseline) {
		struct sc_timing_result tr[SC_SPEC_MAX_TIMED];
		struct sc_timing_opts_run to = { .timeout_ms = j->timeout_ms, .ref = ref };
		struct sc_check_result again;
		struct sc_check_opts o = { 1, 0, j->timeout_ms, 0, true, false };
		struct sc_kernel_handle fresh = ck;
		struct sc_strong_result sfail;
		const struct sc_timing_result *bad = NULL, *suspect = NULL;
		double logsum = 0, geo;
		size_t ntr = 0, off;
		cJSON *t, *shapes;

		sc_random_bytes(&to.secret, sizeof(to.secret));
		sc_random_bytes(&o.seed_base, sizeof(o.seed_base));
		memset(&bk, 0, sizeof(bk));
		bk.tun = btun;
		bk.image = bc.cubin;
		bk.image_len = bc.cubin_len;
		bk.entry = j->spec.entry;
		load_generator(dev, j);
		if (dev->open_sibling(dev, &bdev) < 0 ||
		    bdev->load(bdev, bc.cubin, bc.cubin_len, j->spec.entry, &bk.fn) < 0) {
			set_verdict(r, "error", "baseline", sc_error_last());
			goto done;
		}
		for (size_t k = 0; k < j->spec.ntimed && !bad; k++) {
			to.shape = &j->spec.timed[k];
			if ((err = sc_harness_time(&tr[k], dev, bdev, &j->spec, &ck, &bk, &to)) < 0) {
				set_verdict(r, "error", "gpu", sc_error_last());
				goto done;
			}
			ntr = k + 1;
			if (!tr[k].ok)
				bad = &tr[k];
			else if (tr[k].suspect && !suspect)
				suspect = &tr[k];
			logsum += log(tr[k].speedup > 0 && isfinite(tr[k].speedup) ? tr[k].speedup : 1e-300);
		}
		geo = exp(logsum / (double)ntr);
		t = cJSON_AddObjectToObject(r, "timing");
		cJSON_AddStringToObject(t, "status", bad ? "failed" : "done");
		cJSON_AddStringToObject(t, "method", tr[0].burst ? "burst" : "single");
		cJSON_AddStringToObject(t, "l2", "flushed");
		cJSON_AddItemToObject(t, "candidate", stats_json(&tr[0].cand));
		cJSON_AddItemToObject(t, "baseline", stats_json(&tr[0].base));
		cJSON_AddNumberToObject(t, "speedup", isfinite(geo) ? geo : 0);
		cJSON_AddBoolToObject(t, "converged", tr[0].converged);
		cJSON_AddNumberToObject(t, "gbps", tr[0].cand_gbps);
		cJSON_AddNumberToObject(t, "gflops", tr[0].cand_gflops);
		cJSON_AddNumberToObject(t, "pct_peak", tr[0].pct_peak);
		cJSON_AddNumberToObject(t, "ceiling", tr[0].ceiling);
		cJSON_AddNumberToObject(t, "ceiling_fp32", tr[0].ceiling_fp32);
		cJSON_AddBoolToObject(t, "beyond_fp32", tr[0].beyond_fp32);
		cJSON_AddBoolToObject(t, "suspect", suspect != NULL);
		if (suspect)
			cJSON_AddStringToObject(t, "suspect_why", suspect->suspect_why);
		if (tr[0].note[0])
			cJSON_AddStringToObject(t, "note", tr[0].note);
		{
			size_t spot = 0, fresh_in = 0;
			bool fresh_addr = true;
			for (size_t k = 0; k < ntr; k++) {
				spot += tr[k].spot_checks;
				fresh_in += tr[k].fresh_inputs;
				fresh_addr &= tr[k].fresh_addresses;
			}
			cJSON_AddNumberToObject(t, "spot_checks", (double)spot);
			cJSON_AddNumberToObject(t, "fresh_inputs", (double)fresh_in);
			cJSON_AddBoolToObject(t, "fresh_addresses", fresh_addr);
		}
		shapes = cJSON_AddArrayToObject(t, "shapes");
		for (size_t k = 0; k < ntr; k++)
			cJSON_AddItemToArray(shapes, shape_json(&tr[k], &j->spec));
		if (bad) {
			char sdesc[160];
			shape_text(sdesc, sizeof(sdesc), &j->spec, &bad->shape);
			if (bad->device_lost && bad->base_fault) {
				snprintf(msg, sizeof(msg), "the fixture's baseline failed during timing at %s: %s", sdesc,
					 bad->message);
				set_verdict(r, "error", "baseline", msg);
				goto done;
			}
			snprintf(msg, sizeof(msg), "at the timed shape %s: %s", sdesc, bad->message);
			set_verdict(r, "failed", bad->reason == SC_REASON_MISMATCH || bad->reason == SC_REASON_STALE
					   ? "revalidation" : sc_check_reason_name(bad->reason), msg);
			goto done;
		}
		if (dev->load(dev, cc.cubin, cc.cubin_len, j->spec.entry, &fresh.fn) < 0 ||
		    (err = sc_harness_check(&again, dev, &j->spec, &fresh, ref, &o)) < 0) {
			set_verdict(r, "error", "gpu", sc_error_last());
			goto done;
		}
		if (!again.ok) {
			snprintf(msg, sizeof(msg), "re-validation after timing failed: %s", again.message);
			set_verdict(r, "failed", again.reason == SC_REASON_MISMATCH || again.reason == SC_REASON_STALE
					   ? "revalidation" : sc_check_reason_name(again.reason), msg);
			goto done;
		}
		off = (size_t)snprintf(msg, sizeof(msg), "correct on %zu checks; %.4f ms vs baseline %.4f ms: %.2fx speedup (%.0f%% of peak)",
				       chk.launches, tr[0].cand.ev.median, tr[0].base.ev.median, tr[0].speedup, tr[0].pct_peak);
		if (ntr > 1) {
			for (size_t k = 1; k < ntr && off < sizeof(msg); k++) {
				char sdesc[160];
				shape_text(sdesc, sizeof(sdesc), &j->spec, &tr[k].shape);
				off += (size_t)snprintf(msg + off, sizeof(msg) - off, "; at %s %.4f ms vs %.4f ms: %.2fx", sdesc,
							tr[k].cand.ev.median, tr[k].base.ev.median, tr[k].speedup);
			}
			if (off < sizeof(msg))
				off += (size_t)snprintf(msg + off, sizeof(msg) - off, "; %.2fx geometric mean over %zu shapes",
							geo, ntr);
		}
		if (tr[0].note[0] && off < sizeof(msg))
			snprintf(msg + off, sizeof(msg) - off, "; note: %s", tr[0].note);
		if (strong_json(t, dev, bdev, j, ref, &ck, tr, msg, sizeof(msg), &sfail) < 0) {
			set_verdict(r, "error", "gpu", sc_error_last());
			goto done;
		}
		if (sfail.failed) {
			cJSON *o2 = cJSON_AddObjectToObject(t, "strong_reference");
			cJSON_AddStringToObject(o2, "name", sfail.name);
			cJSON_AddStringToObject(o2, "status", "failed");
			cJSON_AddStringToObject(o2, "why", sfail.why);
			set_verdict(r, "failed", sfail.reason == SC_REASON_MISMATCH || sfail.reason == SC_REASON_STALE
					   ? "revalidation" : sc_check_reason_name(sfail.reason), sfail.message);
			goto done;
		}
		if (suspect) {
			snprintf(msg, sizeof(msg), "correct, but the timing is suspect: %s", suspect->suspect_why);
			set_verdict(r, "flagged", "suspect_timing", msg);
			goto done;
		}
	} else {
		snprintf(msg, sizeof(msg), "correct on %zu checks (not timed)", chk.launches);
	}
	if (flag_error) {
		char m2[2300];
		snprintf(m2, sizeof(m2), "%s; but the scan of its source and PTX flagged it (see scan)", msg);
		set_verdict(r, "flagged", "scan", m2);
	} else {
		set_verdict(r, "passed", "none", msg);
	}
done:
	if (bdev)
		bdev->close(bdev);
	if (dev)
		dev->close(dev);
	sc_compiled_release(&cc);
	sc_compiled_release(&bc);
}

/* One tab-separated line for scripts: verdict, reason, speedup, candidate
 * and baseline median ms, scan flags (comma-separated), message, candidate
 * and baseline RSE, timing method, repetitions, then the candidate's GB/s,
 * GFLOP/s and % of the roofline peak, then the speedup over the strong
 * reference, its median ms and its name (or its status and why) ("-"
 * where not timed). */
static char *brief_line(const cJSON *r)
{
	struct sc_buf b = SC_BUF_INIT;
	const cJSON *t = sc_json_member(r, "timing");
	const cJSON *scan = sc_json_member(r, "scan"), *f;
	double sp;
	bool first = true;

	sc_buf_printf(&b, "%s\t%s\t", sc_json_str_or(r, "verdict", ""),
		      sc_json_str_or(r, "reason", ""));
	if (sc_json_get_num(&sp, t, "speedup") == SC_JSON_OK)
		sc_buf_printf(&b, "%.2f\t%.4f\t%.4f\t", sp,
			      sc_json_num_or(sc_json_member(t, "candidate"), "median_ms", 0),
			      sc_json_num_or(sc_json_member(t, "baseline"), "median_ms", 0));
	else
		sc_buf_puts(&b, "-\t-\t-\t");
	cJSON_ArrayForEach(f, scan) {
		sc_buf_printf(&b, "%s%s", first ? "" : ",", sc_json_str_or(f, "kind", ""));
		first = false;
	}
	sc_buf_printf(&b, "%s\t", first ? "-" : "");
	for (const char *m = sc_json_str_or(r, "message", ""); *m; m++)
		sc_buf_putc(&b, *m == '\t' || *m == '\n' ? ' ' : *m);
	/* then: candidate RSE, baseline RSE, method, repetitions, GB/s, GFLOP/s, % of peak */
	if (sc_json_get_num(&sp, t, "speedup") == SC_JSON_OK) {
		const cJSON *tc = sc_json_member(t, "candidate");
		sc_buf_printf(&b, "\t%.4f\t%.4f\t%s\t%.0f", sc_json_num_or(tc, "rse", 0),
			      sc_json_num_or(sc_json_member(t, "baseline"), "rse", 0),
			      sc_json_str_or(t, "method", "-"), sc_json_num_or(tc, "reps", 0));
		sc_buf_printf(&b, "\t%.1f\t%.1f\t%.1f", sc_json_num_or(t, "gbps", 0),
			      sc_json_num_or(t, "gflops", 0), sc_json_num_or(t, "pct_peak", 0));
	} else {
		sc_buf_puts(&b, "\t-\t-\t-\t-\t-\t-\t-");
	}
	{
		const cJSON *s = sc_json_member(t, "strong_reference");
		if (!cJSON_IsObject(s))
			sc_buf_puts(&b, "\t-\t-\t-");
		else if (!strcmp(sc_json_str_or(s, "status", ""), "done"))
			sc_buf_printf(&b, "\t%.2f\t%.4f\t%s", sc_json_num_or(s, "speedup", 0),
				      sc_json_num_or(s, "median_ms", 0), sc_json_str_or(s, "name", ""));
		else
			sc_buf_printf(&b, "\t-\t-\t%s: %s", sc_json_str_or(s, "status", ""), sc_json_str_or(s, "why", ""));
	}
	return sc_buf_detach(&b, NULL);
}

/* The calibration's spec: spin(out, cycles, measure), one thread. */
static const char spin_spec[] =
	"{\"name\": \"spin\", \"version\": 1, \"description\": \"calibrated clock64 spin\", \"entry\": \"spin\","
	" \"size_vars\": [\"cycles\"],"
	" \"params\": [{\"name\": \"out\", \"kind\": \"buffer\", \"type\": \"int32\", \"role\": \"out\", \"shape\": \"2\"},"
	"  {\"name\": \"cycles\", \"kind\": \"scalar\", \"type\": \"int32\", \"value\": \"cycles\"},"
	"  {\"name\": \"measure\", \"kind\": \"scalar\", \"type\": \"int32\", \"value\": \"0\"}],"
	" \"sizes\": {\"correctness\": [{\"cycles\": 1000}], \"timing\": {\"cycles\": 1000}},"
	" \"launch\": {\"grid\": [1, 1, 1], \"block\": [1, 1, 1]},"
	" \"tolerance\": {\"atol\": 0, \"rtol\": 0}, \"flops\": \"0\", \"bytes\": \"8\","
	" \"timing\": {\"warmup\": 5, \"min_reps\": 20, \"max_reps\": 300, \"target_rse\": 0.005, \"max_seconds\": 5}}";

/*
 * --calibrate: times the clock64() spin kernel of file (tests/kernels/
 * clock_spin.cu) with the harness at each target in us_list (microseconds,
 * comma-separated) and prints one tab-separated line per target: target
 * us, cycles, the driver's clock MHz, the clock the kernel measured
 * (cycles over %globaltimer ns) MHz, expected ms at each clock, the
 * harness's median ms, its RSE, repetitions, method, burst, the deviation
 * from cycles / measured clock in percent, and "ok" within 5%. Returns an
 * exit code: 0 all within 5%, 1 not, 3 no GPU.
 */
static int calibrate(FILE *res, const char *file, const char *us_list, const char *arch, const char *include_dir)
{
	struct sc_buf src = SC_BUF_INIT;
	struct sc_compiled cc;
	struct sc_nvrtc_opts no = { arch, NULL, include_dir, NULL, NULL, 0, true };
	struct sc_device *dev = NULL, *bdev = NULL;
	struct sc_kernel_handle k, b;
	struct sc_spec sp;
	int rc = 0, err;
	bool spec_ok = false;

	memset(&cc, 0, sizeof(cc));
	if ((err = sc_read_file(&src, file, WORKER_MAX_SOURCE)) < 0 ||
	    (err = sc_nvrtc_compile(&cc, src.ptr, src.len, &no)) < 0) {
		fprintf(stderr, "skillci-kernel: error: %s\n", sc_error_last());
		rc = SC_EXIT_INFRA;
		goto done;
	}
	if (!cc.ok) {
		fprintf(stderr, "skillci-kernel: error: '%s' does not compile:\n%s\n", file, cc.log);
		rc = SC_EXIT_USAGE;
		goto done;
	}
	if ((err = sc_device_cuda_open(&dev)) < 0 || (err = dev->open_sibling(dev, &bdev)) < 0) {
		fprintf(stderr, "skillci-kernel: calibration needs a GPU: %s\n", sc_error_last());
		rc = SC_EXIT_INFRA;
		goto done;
	}
	if (dev->info.clock_khz <= 0) {
		fprintf(stderr, "skillci-kernel: the driver reports no SM clock\n");
		rc = SC_EXIT_INFRA;
		goto done;
	}
	if ((err = sc_spec_parse(&sp, spin_spec, strlen(spin_spec), "calibration")) < 0)
		goto fail;
	spec_ok = true;
	memset(&k, 0, sizeof(k));
	memset(&b, 0, sizeof(b));
	k.image = b.image = cc.cubin;
	k.image_len = b.image_len = cc.cubin_len;
	k.entry = b.entry = "spin";
	if ((err = dev->load(dev, cc.cubin, cc.cubin_len, "spin", &k.fn)) < 0 ||
	    (err = bdev->load(bdev, cc.cubin, cc.cubin_len, "spin", &b.fn)) < 0)
		goto fail;
	fprintf(res, "# %s, driver clock %d MHz\n", dev->info.name, dev->info.clock_khz / 1000);
	for (const char *p = us_list; *p;) {
		struct sc_timing_result tr;
		struct sc_timing_opts_run to = { .timeout_ms = 10000, .check_every = 2 };
		double us = strtod(p, NULL), want, want_k, mhz_k = 0, dev_pct;
		int32_t got[2] = { 0, 0 }, cycles, measure = 1;
		uint64_t out = 0;
		unsigned one[3] = { 1, 1, 1 };
		void *params[3];

		cycles = (int32_t)(us * dev->info.clock_khz / 1000.0);
		sp.timing.v[0] = cycles;
		if ((err = sc_harness_time(&tr, dev, bdev, &sp, &k, &b, &to)) < 0)
			goto fail;
		if (!tr.ok) {
			fprintf(stderr, "skillci-kernel: calibration at %g us failed: %s\n", us, tr.message);
			rc = 1;
			break;
		}
		/* The clock the kernel ran at: cycles over %globaltimer. */
		params[0] = &out;
		params[1] = &cycles;
		params[2] = &measure;
		if ((err = dev->alloc(dev, &out, 8)) < 0 || (err = dev->launch(dev, k.fn, one, one, 0, params)) < 0 ||
		    (err = dev->sync(dev, 10000)) < 0 || (err = dev->dtoh(dev, got, out, 8)) < 0)
			goto fail;
		dev->free(dev, out);
		if (got[1] > 0)
			mhz_k = (double)got[0] / got[1] * 1e3;
		want = cycles / (double)dev->info.clock_khz;
		want_k = mhz_k > 0 ? cycles / (mhz_k * 1e3) : want;
		dev_pct = 100.0 * (tr.cand.ev.median - want_k) / want_k;
		fprintf(res, "%g\t%d\t%.0f\t%.0f\t%.6f\t%.6f\t%.6f\t%.4f\t%zu\t%s\t%d\t%+.2f\t%s\n", us, cycles,
			dev->info.clock_khz / 1000.0, mhz_k, want, want_k, tr.cand.ev.median, tr.cand.ev.rse, tr.reps,
			tr.burst ? "burst" : "single", tr.cand.burst, dev_pct, fabs(dev_pct) <= 5.0 ? "ok" : "OFF");
		if (fabs(dev_pct) > 5.0)
			rc = 1;
		p += strcspn(p, ",");
		p += *p == ',';
	}
	goto done;
fail:
	fprintf(stderr, "skillci-kernel: calibration: %s\n", sc_error_last());
	rc = SC_EXIT_INFRA;
done:
	if (spec_ok)
		sc_spec_release(&sp);
	if (bdev)
		bdev->close(bdev);
	if (dev)
		dev->close(dev);
	sc_compiled_release(&cc);
	sc_buf_release(&src);
	return rc;
}

static int read_all(struct sc_buf *out, FILE *f, size_t cap)
{
	char tmp[65536];
	size_t n;

	while ((n = fread(tmp, 1, sizeof(tmp), f)) > 0)
		if (sc_buf_put_capped(out, tmp, n, cap) < 0)
			return sc_error_set(SC_ELIMIT, "job is larger than %zu bytes", cap);
	return ferror(f) ? sc_error_set(SC_EIO, "cannot read the job") : 0;
}

/* An integer option of the worker (sc_parse_int); false after printing
 * the error, which names the option. */
static bool int_option(int *out, const char *name, const char *arg, int min, int max)
{
	if (sc_parse_int(out, arg, min, max) == 0)
		return true;
	fprintf(stderr, "skillci-kernel: error: %s %s\n", name, sc_error_last());
	return false;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: skillci-kernel [--job FILE]             (job JSON; default stdin)\n"
		"       skillci-kernel --fixture DIR --candidate FILE [--baseline FILE|--no-timing]\n"
		"                      [--arch sm_90] [--compile-only] [--cache DIR] [--include DIR]\n"
		"                      [--seeds N] [--timeout-ms N] [--brief]\n"
		"       skillci-kernel --list-refs\n"
		"       skillci-kernel --calibrate tests/kernels/clock_spin.cu [--us 10,100,1000]\n"
		"       [--result-fd N]   write the result there (default: stdout, with fd 1 sent to stderr)\n"
		"Checks one CUDA kernel candidate and prints one JSON result.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "job", required_argument, NULL, 'j' },
		{ "fixture", required_argument, NULL, 'f' },
		{ "candidate", required_argument, NULL, 'c' },
		{ "baseline", required_argument, NULL, 'b' },
		{ "arch", required_argument, NULL, 'a' },
		{ "cache", required_argument, NULL, 'C' },
		{ "include", required_argument, NULL, 'I' },
		{ "seeds", required_argument, NULL, 's' },
		{ "timeout-ms", required_argument, NULL, 't' },
		{ "compile-only", no_argument, NULL, 'o' },
		{ "no-timing", no_argument, NULL, 'n' },
		{ "list-refs", no_argument, NULL, 'l' },
		{ "brief", no_argument, NULL, 'B' },
		{ "result-fd", required_argument, NULL, 'R' },
		{ "calibrate", required_argument, NULL, 'K' },
		{ "us", required_argument, NULL, 'U' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct job j;
	struct sc_buf text = SC_BUF_INIT, path = SC_BUF_INIT;
	const char *jobfile = NULL, *fixture = NULL, *cand = NULL, *base = NULL, *spin = NULL, *us = "10,100,1000";
	cJSON *r = NULL;
	char *out = NULL;
	int c, rc = SC_EXIT_OK, err = 0, result_fd = -1;
	bool brief = false;
	FILE *res = NULL;

	memset(&j, 0, sizeof(j));
	j.seeds = 5;
	j.timeout_ms = 10000;
	j.timing = true;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 'j': jobfile = optarg; break;
		case 'f': fixture = optarg; break;
		case 'c': cand = optarg; break;
		case 'b': base = optarg; break;
		case 'a': free(j.arch); j.arch = sc_xstrdup(optarg); break;
		case 'C': free(j.cache_dir); j.cache_dir = sc_xstrdup(optarg); break;
		case 'I': free(j.include_dir); j.include_dir = sc_xstrdup(optarg); break;
		case 's':
			if (!int_option(&j.seeds, "--seeds", optarg, 1, 100))
				return SC_EXIT_USAGE;
			break;
		case 't':
			if (!int_option(&j.timeout_ms, "--timeout-ms", optarg, 1, INT_MAX))
				return SC_EXIT_USAGE;
			break;
		case 'R':
			if (!int_option(&result_fd, "--result-fd", optarg, 0, INT_MAX))
				return SC_EXIT_USAGE;
			break;
		case 'o': j.compile_only = true; break;
		case 'n': j.timing = false; break;
		case 'B': brief = true; break;
		case 'K': spin = optarg; break;
		case 'U': us = optarg; break;
		case 'l':
			for (size_t i = 0; i < sc_ref_count; i++)
				printf("%s\n", sc_ref_table[i].fixture);
			return 0;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return SC_EXIT_USAGE;
		}
	}
	if (spin) {
		fflush(stdout);
		if ((result_fd = dup(1)) < 0 || dup2(2, 1) < 0 || !(res = fdopen(result_fd, "w")))
			return SC_EXIT_INFRA;
		rc = calibrate(res, spin, us, j.arch ? j.arch : "sm_90",
			       j.include_dir ? j.include_dir : (access(SC_CUDA_INCLUDE "/cuda_fp16.h", R_OK) == 0 ? SC_CUDA_INCLUDE : NULL));
		fclose(res);
		job_release(&j);
		return rc;
	}
	if (fixture) {
		const char *slash;
		if (!cand) {
			usage(stderr);
			return SC_EXIT_USAGE;
		}
		sc_path_join(&path, fixture, "spec.json");
		if ((err = sc_spec_load(&j.spec, path.ptr)) < 0)
			goto done;
		/* The folder's name picks the reference; the spec's name otherwise. */
		sc_buf_sets(&text, fixture);
		while (text.len > 1 && text.ptr[text.len - 1] == '/')
			sc_buf_truncate(&text, text.len - 1);
		slash = strrchr(text.ptr, '/');
		j.fixture = sc_xstrdup(slash ? slash + 1 : text.ptr);
		sc_buf_clear(&text);
		j.fixture_hash = sc_xstrdup("");
		if ((err = sc_read_file(&text, cand, WORKER_MAX_SOURCE)) < 0)
			goto done;
		j.candidate = sc_buf_detach(&text, NULL);
		if (base && (err = sc_read_file(&text, base, WORKER_MAX_SOURCE)) < 0)
			goto done;
		if (base)
			j.baseline = sc_buf_detach(&text, NULL);
		/* the fixture's solution, when it has one: the strong reference */
		sc_buf_clear(&path);
		sc_path_join(&path, fixture, "solution.cu");
		if (base && access(path.ptr, R_OK) == 0) {
			if ((err = sc_read_file(&text, path.ptr, WORKER_MAX_SOURCE)) < 0)
				goto done;
			j.solution = sc_buf_detach(&text, NULL);
			sc_buf_printf(&text, "fixture solution fixtures/%s/solution.cu", j.fixture);
			j.solution_name = sc_buf_detach(&text, NULL);
		}
		if (!j.arch)
			j.arch = sc_xstrdup("sm_90");
	} else {
		FILE *f = jobfile ? fopen(jobfile, "r") : stdin;
		if (!f) {
			err = sc_error_set(SC_ENOTFOUND, "cannot open '%s': %s", jobfile, strerror(errno));
			goto done;
		}
		err = read_all(&text, f, SC_MAX_JSON_BYTES);
		if (f != stdin)
			fclose(f);
		if (err < 0)
			goto done;
		free(j.arch);
		free(j.cache_dir);
		free(j.include_dir);
		j.arch = j.cache_dir = j.include_dir = NULL;
		if ((err = job_parse(&j, text.ptr, text.len)) < 0)
			goto done;
	}
	if (j.seeds < 1 || j.seeds > 100 || j.timeout_ms < 1) {
		err = sc_error_set(SC_EINVAL, "seeds must be 1..100 and the timeout positive");
		goto done;
	}
	/* The result descriptor, before anything can print to fd 1. */
	if (result_fd < 0) {
		fflush(stdout);
		if ((result_fd = dup(1)) < 0 || dup2(2, 1) < 0) {
			err = sc_error_set(SC_EIO, "cannot set up the result descriptor: %s", strerror(errno));
			goto done;
		}
	}
	if (result_fd <= 2 || !(res = fdopen(result_fd, "w"))) {
		err = sc_error_set(SC_EINVAL, "--result-fd %d: not an open descriptor above 2", result_fd);
		goto done;
	}
	r = cJSON_CreateObject();
	cJSON_AddStringToObject(r, "harness_version", SC_HARNESS_VERSION);
	cJSON_AddStringToObject(r, "verdict", "error");
	cJSON_AddStringToObject(r, "reason", "");
	cJSON_AddStringToObject(r, "message", "");
	if (j.nonce)
		cJSON_AddStringToObject(r, "nonce", j.nonce);
	if (!j.include_dir && access(SC_CUDA_INCLUDE "/cuda_fp16.h", R_OK) == 0)
		j.include_dir = sc_xstrdup(SC_CUDA_INCLUDE);
	run_job(r, &j);
	out = brief ? brief_line(r) : cJSON_Print(r);
	if (fputs(out, res) == EOF || fputc('\n', res) == EOF || fflush(res) != 0)
		rc = SC_EXIT_INFRA;
done:
	if (err < 0) {
		fprintf(stderr, "skillci-kernel: error: %s\n", sc_error_last());
		rc = sc_error_exit_code(err);
	}
	if (res)
		fclose(res);
	free(out);
	cJSON_Delete(r);
	job_release(&j);
	sc_buf_release(&text);
	sc_buf_release(&path);
	return rc;
}
