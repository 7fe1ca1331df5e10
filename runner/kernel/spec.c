/* spec.json parsing with cJSON; every message names the file and JSON path. */
#include "common.h"
#include "spec.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>

struct ctx {
	const char *file;
};

static int bad(const struct ctx *c, const char *path, const char *what)
{
	return sc_error_set(SC_EINVAL, "%s: %s: %s", c->file, path, what);
}

/* Copies a string or a number (as an integer expression) into *out. */
static int get_expr(const struct ctx *c, const cJSON *obj, const char *key, const char *path, char **out, bool required)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	struct sc_buf b = SC_BUF_INIT;

	if (!it) {
		if (!required)
			return 0;
		sc_buf_printf(&b, "%s.%s", path, key);
		bad(c, b.ptr, "missing");
		sc_buf_release(&b);
		return SC_EINVAL;
	}
	if (cJSON_IsString(it) && it->valuestring[0]) {
		*out = sc_xstrdup(it->valuestring);
		return 0;
	}
	if (cJSON_IsNumber(it) && it->valuedouble == floor(it->valuedouble) && fabs(it->valuedouble) < 9e15) {
		sc_buf_printf(&b, "%lld", (long long)it->valuedouble);
		*out = sc_buf_detach(&b, NULL);
		return 0;
	}
	sc_buf_printf(&b, "%s.%s", path, key);
	bad(c, b.ptr, "expected an integer expression (string or integer)");
	sc_buf_release(&b);
	return SC_EINVAL;
}

static int get_num(const struct ctx *c, const cJSON *obj, const char *key, const char *path, double *out, bool required)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(obj, key);
	struct sc_buf b = SC_BUF_INIT;

	if (!it && !required)
		return 0;
	if (it && cJSON_IsNumber(it) && isfinite(it->valuedouble)) {
		*out = it->valuedouble;
		return 0;
	}
	sc_buf_printf(&b, "%s.%s", path, key);
	bad(c, b.ptr, it ? "expected a number" : "missing");
	sc_buf_release(&b);
	return SC_EINVAL;
}

/* A tunable's field: a number small enough to be an int64 (fractions are
 * truncated); *out keeps its value when the field is absent. */
static int get_tunable(const struct ctx *c, const cJSON *obj, const char *key, const char *path,
		       int64_t *out, bool required)
{
	double d = (double)*out;
	int err = get_num(c, obj, key, path, &d, required);
	struct sc_buf b = SC_BUF_INIT;

	if (err < 0)
		return err;
	if (d > -1e15 && d < 1e15) {
		*out = (int64_t)d;
		return 0;
	}
	sc_buf_printf(&b, "%s.%s", path, key);
	bad(c, b.ptr, "expected an integer of at most 15 digits");
	sc_buf_release(&b);
	return SC_EINVAL;
}

static bool is_ident(const char *s)
{
	if (!s || !(isalpha((unsigned char)*s) || *s == '_'))
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '_'))
			return false;
	return true;
}

static bool is_fixture_name(const char *s)
{
	if (!s || !*s || *s == '-')
		return false;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-'))
			return false;
	return true;
}

static int parse_dist(const struct ctx *c, const cJSON *d, const char *path, struct sc_dist *out)
{
	const cJSON *k = cJSON_GetObjectItemCaseSensitive(d, "dist");
	int err;

	if (!cJSON_IsObject(d) || !cJSON_IsString(k))
		return bad(c, path, "expected an object with \"dist\"");
	if (!strcmp(k->valuestring, "uniform") || !strcmp(k->valuestring, "int_uniform")) {
		out->kind = k->valuestring[0] == 'u' ? SC_DIST_UNIFORM : SC_DIST_INT_UNIFORM;
		if ((err = get_num(c, d, "lo", path, &out->a, true)) < 0 ||
		    (err = get_num(c, d, "hi", path, &out->b, true)) < 0)
			return err;
		if (out->b < out->a)
			return bad(c, path, "hi is below lo");
	} else if (!strcmp(k->valuestring, "normal")) {
		out->kind = SC_DIST_NORMAL;
		if ((err = get_num(c, d, "mean", path, &out->a, true)) < 0 ||
		    (err = get_num(c, d, "std", path, &out->b, true)) < 0)
			return err;
		if (out->b < 0)
			return bad(c, path, "std is negative");
	} else {
		return bad(c, path, "unknown dist (uniform, normal, int_uniform)");
	}
	return 0;
}

static int parse_param(const struct ctx *c, const cJSON *p, size_t idx, struct sc_param *out)
{
	char path[64];
	const cJSON *it;
	int err;

	snprintf(path, sizeof(path), "$.params[%zu]", idx);
	if (!cJSON_IsObject(p))
		return bad(c, path, "expected an object");
	it = cJSON_GetObjectItemCaseSensitive(p, "name");
	if (!cJSON_IsString(it) || !is_ident(it->valuestring))
		return bad(c, path, "\"name\" must be an identifier");
	out->name = sc_xstrdup(it->valuestring);
	it = cJSON_GetObjectItemCaseSensitive(p, "type");
	if (!cJSON_IsString(it))
		return bad(c, path, "\"type\" missing");
	if (!strcmp(it->valuestring, "float32"))
		out->dtype = SC_DTYPE_F32;
	else if (!strcmp(it->valuestring, "int32"))
		out->dtype = SC_DTYPE_I32;
	else if (!strcmp(it->valuestring, "uint32"))
		out->dtype = SC_DTYPE_U32;
	else if (!strcmp(it->valuestring, "bfloat16"))
		out->dtype = SC_DTYPE_BF16;
	else if (!strcmp(it->valuestring, "float16"))
		out->dtype = SC_DTYPE_F16;
	else if (!strcmp(it->valuestring, "float8_e4m3"))
		out->dtype = SC_DTYPE_E4M3;
	else
		return bad(c, path, "\"type\" must be float32, bfloat16, float16, float8_e4m3, int32 or uint32");
	it = cJSON_GetObjectItemCaseSensitive(p, "kind");
	if (cJSON_IsString(it) && !strcmp(it->valuestring, "buffer")) {
		const cJSON *init, *d;
		out->kind = SC_PARAM_BUFFER;
		it = cJSON_GetObjectItemCaseSensitive(p, "role");
		if (!cJSON_IsString(it))
			return bad(c, path, "buffer needs \"role\" (in, out, inout, scratch)");
		if (!strcmp(it->valuestring, "in"))
			out->role = SC_ROLE_IN;
		else if (!strcmp(it->valuestring, "out"))
			out->role = SC_ROLE_OUT;
		else if (!strcmp(it->valuestring, "inout"))
			out->role = SC_ROLE_INOUT;
		else if (!strcmp(it->valuestring, "scratch"))
			out->role = SC_ROLE_SCRATCH;
		else
			return bad(c, path, "\"role\" must be in, out, inout or scratch");
		if (out->dtype == SC_DTYPE_E4M3 && out->role != SC_ROLE_IN)
			return bad(c, path, "a float8_e4m3 buffer must be an input (\"role\": \"in\")");
		if ((err = get_expr(c, p, "shape", path, &out->shape, true)) < 0)
			return err;
		init = cJSON_GetObjectItemCaseSensitive(p, "init");
		if (out->role == SC_ROLE_IN || out->role == SC_ROLE_INOUT) {
			if (!cJSON_IsArray(init) || cJSON_GetArraySize(init) < 1)
				return bad(c, path, "input buffer needs a non-empty \"init\" list");
			cJSON_ArrayForEach(d, init) {
				char dpath[96];
				if (out->ninit == SC_SPEC_MAX_DISTS)
					return bad(c, path, "too many init distributions");
				snprintf(dpath, sizeof(dpath), "%s.init[%zu]", path, out->ninit);
				if ((err = parse_dist(c, d, dpath, &out->init[out->ninit])) < 0)
					return err;
				out->ninit++;
			}
		}
	} else if (cJSON_IsString(it) && !strcmp(it->valuestring, "scalar")) {
		out->kind = SC_PARAM_SCALAR;
		if (out->dtype != SC_DTYPE_I32 && out->dtype != SC_DTYPE_F32)
			return bad(c, path, "scalars are int32 or float32");
		it = cJSON_GetObjectItemCaseSensitive(p, "value");
		if (out->dtype == SC_DTYPE_F32 && cJSON_IsNumber(it)) {
			out->fvalue = it->valuedouble;
			out->has_fvalue = true;
		} else if ((err = get_expr(c, p, "value", path, &out->value, true)) < 0) {
			return err;
		}
	} else {
		return bad(c, path, "\"kind\" must be buffer or scalar");
	}
	return 0;
}

static int parse_sizes(const struct ctx *c, const struct sc_spec *s, const cJSON *obj, const char *path,
		       struct sc_size_set *out)
{
	if (!cJSON_IsObject(obj))
		return bad(c, path, "expected an object of size variables");
	for (size_t i = 0; i < s->nsize_vars; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, s->size_vars[i]);
		if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e12 ||
		    v->valuedouble != floor(v->valuedouble)) {
			char p2[128];
			snprintf(p2, sizeof(p2), "%s.%s", path, s->size_vars[i]);
			return bad(c, p2, "expected a non-negative integer");
		}
		out->v[i] = (int64_t)v->valuedouble;
	}
	return 0;
}

static int get_int(const struct ctx *c, const cJSON *obj, const char *key, const char *path, int *out)
{
	double d = *out;
	int err = get_num(c, obj, key, path, &d, false);
	if (err < 0)
		return err;
	if (d < 0 || d > 1e6 || d != floor(d))
		return bad(c, path, "expected a small non-negative integer");
	*out = (int)d;
	return 0;
}

/* "peak": "fp32" or "tensor"; without it, tensor when a buffer is
 * bfloat16, float16 or float8_e4m3 (their flops run on tensor cores),
 * else fp32. */
static int parse_peak(const struct ctx *c, const cJSON *root, struct sc_spec *s)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, "peak");

	s->peak = sc_spec_is_fp32(s) ? SC_PEAK_FP32 : SC_PEAK_TENSOR;
	if (!it)
		return 0;
	if (cJSON_IsString(it) && !strcmp(it->valuestring, "fp32"))
		s->peak = SC_PEAK_FP32;
	else if (cJSON_IsString(it) && !strcmp(it->valuestring, "tensor"))
		s->peak = SC_PEAK_TENSOR;
	else
		return bad(c, "$.peak", "expected \"fp32\" or \"tensor\"");
	return 0;
}

static const char *const precision_names[] = { "fp32", "tf32", "bf16", "fp16", "fp8" };

const char *sc_precision_name(enum sc_precision p)
{
	return (size_t)p < SC_ARRAY_SIZE(precision_names) ? precision_names[p] : "unknown";
}

/*
 * "precision", "compensated_tf32" and "repeat_tolerance". Without
 * "precision" the narrowest float type of the buffers decides: fp8 for a
 * float8_e4m3 buffer, else bf16, else fp16, else fp32.
 */
static int parse_precision(const struct ctx *c, const cJSON *root, struct sc_spec *s)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(root, "precision");
	int err;

	s->precision = SC_PRECISION_FP32;
	for (size_t i = 0; i < s->nparams; i++) {
		enum sc_dtype t = s->params[i].dtype;
		if (s->params[i].kind != SC_PARAM_BUFFER)
			continue;
		if (t == SC_DTYPE_E4M3)
			s->precision = SC_PRECISION_FP8;
		else if (t == SC_DTYPE_BF16 && s->precision != SC_PRECISION_FP8)
			s->precision = SC_PRECISION_BF16;
		else if (t == SC_DTYPE_F16 && s->precision == SC_PRECISION_FP32)
			s->precision = SC_PRECISION_FP16;
	}
	if (it) {
		size_t k = 0;
		while (k < SC_ARRAY_SIZE(precision_names) &&
		       !(cJSON_IsString(it) && !strcmp(it->valuestring, precision_names[k])))
			k++;
		if (k == SC_ARRAY_SIZE(precision_names))
			return bad(c, "$.precision", "expected \"fp32\", \"tf32\", \"bf16\", \"fp16\" or \"fp8\"");
		s->precision = (enum sc_precision)k;
		s->precision_given = true;
	}
	it = cJSON_GetObjectItemCaseSensitive(root, "compensated_tf32");
	if (it) {
		if (!cJSON_IsBool(it))
			return bad(c, "$.compensated_tf32", "expected true or false");
		s->compensated_tf32 = cJSON_IsTrue(it);
		if (s->compensated_tf32 && s->precision != SC_PRECISION_FP32)
			return bad(c, "$.compensated_tf32", "applies only to \"precision\": \"fp32\" (a narrower precision allows TF32 outright)");
	}
	s->repeat_tolerance = 0;
	if ((err = get_num(c, root, "repeat_tolerance", "$", &s->repeat_tolerance, false)) < 0)
		return err;
	if (s->repeat_tolerance < 0 || s->repeat_tolerance > 1)
		return bad(c, "$.repeat_tolerance", "must be a fraction of the tolerance in [0, 1]");
	return 0;
}

/* Checks every expression evaluates for every size set with the default tunables. */
static int check_exprs(const struct ctx *c, const struct sc_spec *s)
{
	struct sc_expr_var vars[SC_SPEC_MAX_VARS + SC_SPEC_MAX_TUNABLES];
	struct sc_tunable_values tun;
	int64_t v;
	int err;

	for (size_t t = 0; t < s->ntunables; t++)
		tun.v[t] = s->tunables[t].def;
	for (size_t k = 0; k < s->ncorrectness + s->ntimed; k++) {
		const struct sc_size_set *set = k < s->ncorrectness ? &s->correctness[k] : &s->timed[k - s->ncorrectness];
		size_t n = sc_spec_vars(vars, s, set, &tun);
		for (size_t i = 0; i < s->nparams; i++) {
			const struct sc_param *p = &s->params[i];
			const char *e = p->kind == SC_PARAM_BUFFER ? p->shape : p->value;
			if (!e)
				continue;
			if ((err = sc_spec_eval(&v, e, p->name, vars, n)) < 0)
				return sc_error_wrap(err, "%s", c->file);
			if (p->kind == SC_PARAM_BUFFER && v < 1)
				return sc_error_set(SC_EINVAL, "%s: $.params[%zu].shape: evaluates to %lld; must be >= 1",
						    c->file, i, (long long)v);
		}
		for (int d = 0; d < 3; d++) {
			if ((err = sc_spec_eval(&v, s->grid[d], "launch.grid", vars, n)) < 0 ||
			    (err = sc_spec_eval(&v, s->block[d], "launch.block", vars, n)) < 0)
				return sc_error_wrap(err, "%s", c->file);
		}
		if ((err = sc_spec_eval(&v, s->shared_bytes, "launch.shared_bytes", vars, n)) < 0 ||
		    (err = sc_spec_eval(&v, s->flops, "flops", vars, n)) < 0 ||
		    (err = sc_spec_eval(&v, s->bytes, "bytes", vars, n)) < 0)
			return sc_error_wrap(err, "%s", c->file);
	}
	return 0;
}

static int parse_root(const struct ctx *c, const cJSON *root, struct sc_spec *s)
{
	const cJSON *it, *e, *sizes, *launch, *tol, *timing;
	int err;
	size_t i;

	if (!cJSON_IsObject(root))
		return bad(c, "$", "expected an object");
	it = cJSON_GetObjectItemCaseSensitive(root, "name");
	if (!cJSON_IsString(it) || !is_fixture_name(it->valuestring))
		return bad(c, "$.name", "expected lowercase letters, digits and hyphens");
	s->name = sc_xstrdup(it->valuestring);
	it = cJSON_GetObjectItemCaseSensitive(root, "version");
	s->version = cJSON_IsNumber(it) ? it->valueint : 1;
	it = cJSON_GetObjectItemCaseSensitive(root, "description");
	s->description = sc_xstrdup(cJSON_IsString(it) ? it->valuestring : "");
	it = cJSON_GetObjectItemCaseSensitive(root, "entry");
	if (!cJSON_IsString(it) || !is_ident(it->valuestring))
		return bad(c, "$.entry", "expected a C identifier");
	s->entry = sc_xstrdup(it->valuestring);

	it = cJSON_GetObjectItemCaseSensitive(root, "size_vars");
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) < 1)
		return bad(c, "$.size_vars", "expected a non-empty list of names");
	cJSON_ArrayForEach(e, it) {
		if (s->nsize_vars == SC_SPEC_MAX_VARS)
			return bad(c, "$.size_vars", "too many size variables");
		if (!cJSON_IsString(e) || !is_ident(e->valuestring))
			return bad(c, "$.size_vars", "names must be identifiers");
		s->size_vars[s->nsize_vars++] = sc_xstrdup(e->valuestring);
	}

	it = cJSON_GetObjectItemCaseSensitive(root, "params");
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) < 1)
		return bad(c, "$.params", "expected a non-empty list");
	cJSON_ArrayForEach(e, it) {
		if (s->nparams == SC_REF_MAX_PARAMS)
			return bad(c, "$.params", "too many parameters");
		if ((err = parse_param(c, e, s->nparams, &s->params[s->nparams])) < 0) {
			s->nparams++;
			return err;
		}
		if (s->params[s->nparams].ninit > s->ndists)
			s->ndists = s->params[s->nparams].ninit;
		s->nparams++;
	}
	for (i = 0; i < s->nparams; i++)
		if (s->params[i].kind == SC_PARAM_BUFFER &&
		    (s->params[i].role == SC_ROLE_OUT || s->params[i].role == SC_ROLE_INOUT))
			break;
	if (i == s->nparams)
		return bad(c, "$.params", "no out or inout buffer");
	if (s->ndists == 0)
		s->ndists = 1;

	sizes = cJSON_GetObjectItemCaseSensitive(root, "sizes");
	if (!cJSON_IsObject(sizes))
		return bad(c, "$.sizes", "missing");
	it = cJSON_GetObjectItemCaseSensitive(sizes, "correctness");
	if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) < 1)
		return bad(c, "$.sizes.correctness", "expected a non-empty list");
	cJSON_ArrayForEach(e, it) {
		char p[64];
		if (s->ncorrectness == SC_SPEC_MAX_SIZES)
			return bad(c, "$.sizes.correctness", "too many size sets");
		snprintf(p, sizeof(p), "$.sizes.correctness[%zu]", s->ncorrectness);
		if ((err = parse_sizes(c, s, e, p, &s->correctness[s->ncorrectness])) < 0)
			return err;
		s->ncorrectness++;
	}
	if ((err = parse_sizes(c, s, cJSON_GetObjectItemCaseSensitive(sizes, "timing"), "$.sizes.timing", &s->timing)) < 0)
		return err;
	s->timed[s->ntimed++] = s->timing;
	it = cJSON_GetObjectItemCaseSensitive(root, "extra_timing_sizes");
	if (it && !cJSON_IsArray(it))
		return bad(c, "$.extra_timing_sizes", "expected a list of size sets");
	cJSON_ArrayForEach(e, it) {
		char p[64];
		if (s->ntimed == SC_SPEC_MAX_TIMED)
			return bad(c, "$.extra_timing_sizes", "too many timed shapes (at most 3 beside sizes.timing)");
		snprintf(p, sizeof(p), "$.extra_timing_sizes[%zu]", s->ntimed - 1);
		if ((err = parse_sizes(c, s, e, p, &s->timed[s->ntimed])) < 0)
			return err;
		s->ntimed++;
	}

	launch = cJSON_GetObjectItemCaseSensitive(root, "launch");
	if (!cJSON_IsObject(launch))
		return bad(c, "$.launch", "missing");
	for (int k = 0; k < 2; k++) {
		const char *key = k ? "block" : "grid";
		char **dst = k ? s->block : s->grid;
		char p[32];
		it = cJSON_GetObjectItemCaseSensitive(launch, key);
		snprintf(p, sizeof(p), "$.launch.%s", key);
		if (!cJSON_IsArray(it) || cJSON_GetArraySize(it) != 3)
			return bad(c, p, "expected three expressions");
		for (int d = 0; d < 3; d++) {
			cJSON *wrap = cJSON_CreateObject();
			cJSON_AddItemReferenceToObject(wrap, "v", cJSON_GetArrayItem(it, d));
			err = get_expr(c, wrap, "v", p, &dst[d], true);
			cJSON_Delete(wrap);
			if (err < 0)
				return err;
		}
	}
	if ((err = get_expr(c, launch, "shared_bytes", "$.launch", &s->shared_bytes, false)) < 0)
		return err;
	if (!s->shared_bytes)
		s->shared_bytes = sc_xstrdup("0");

	it = cJSON_GetObjectItemCaseSensitive(root, "tunables");
	if (it && !cJSON_IsObject(it))
		return bad(c, "$.tunables", "expected an object");
	cJSON_ArrayForEach(e, it) {
		struct sc_tunable *t;
		char p[96];
		if (s->ntunables == SC_SPEC_MAX_TUNABLES)
			return bad(c, "$.tunables", "too many tunables");
		snprintf(p, sizeof(p), "$.tunables.%s", e->string);
		if (!is_ident(e->string) || !cJSON_IsObject(e))
			return bad(c, p, "expected NAME: {default, min, max}");
		t = &s->tunables[s->ntunables++];
		t->name = sc_xstrdup(e->string);
		if ((err = get_tunable(c, e, "default", p, &t->def, true)) < 0)
			return err;
		t->min = t->max = t->def;
		t->multiple_of = 1;
		if ((err = get_tunable(c, e, "min", p, &t->min, false)) < 0 ||
		    (err = get_tunable(c, e, "max", p, &t->max, false)) < 0 ||
		    (err = get_tunable(c, e, "multiple_of", p, &t->multiple_of, false)) < 0)
			return err;
		if (t->multiple_of < 1 || t->min > t->def || t->def > t->max || t->def % t->multiple_of)
			return bad(c, p, "needs min <= default <= max and default a multiple of multiple_of");
	}

	tol = cJSON_GetObjectItemCaseSensitive(root, "tolerance");
	if (!cJSON_IsObject(tol))
		return bad(c, "$.tolerance", "missing");
	if ((err = get_num(c, tol, "atol", "$.tolerance", &s->atol, true)) < 0 ||
	    (err = get_num(c, tol, "rtol", "$.tolerance", &s->rtol, true)) < 0)
		return err;
	if (s->atol < 0 || s->rtol < 0)
		return bad(c, "$.tolerance", "atol and rtol must be >= 0");
	s->terms_rtol = 0;
	s->max_mean_signed_error = -1;
	if ((err = get_num(c, tol, "terms_rtol", "$.tolerance", &s->terms_rtol, false)) < 0)
		return err;
	if (s->terms_rtol < 0)
		return bad(c, "$.tolerance.terms_rtol", "must be >= 0");
	if (cJSON_GetObjectItemCaseSensitive(tol, "max_mean_signed_error")) {
		if ((err = get_num(c, tol, "max_mean_signed_error", "$.tolerance", &s->max_mean_signed_error, true)) < 0)
			return err;
		if (!(s->max_mean_signed_error > 0 && s->max_mean_signed_error <= 1))
			return bad(c, "$.tolerance.max_mean_signed_error",
				   "must be a fraction of the tolerance in (0, 1]");
	}
	if ((err = get_expr(c, root, "flops", "$", &s->flops, true)) < 0 ||
	    (err = get_expr(c, root, "bytes", "$", &s->bytes, true)) < 0)
		return err;
	if ((err = parse_peak(c, root, s)) < 0 || (err = parse_precision(c, root, s)) < 0)
		return err;

	s->topts.warmup = 5;
	s->topts.min_reps = 20;
	s->topts.max_reps = 500;
	s->topts.target_rse = 0.01;
	s->topts.max_seconds = 5;
	timing = cJSON_GetObjectItemCaseSensitive(root, "timing");
	if (timing) {
		if ((err = get_int(c, timing, "warmup", "$.timing.warmup", &s->topts.warmup)) < 0 ||
		    (err = get_int(c, timing, "min_reps", "$.timing.min_reps", &s->topts.min_reps)) < 0 ||
		    (err = get_int(c, timing, "max_reps", "$.timing.max_reps", &s->topts.max_reps)) < 0 ||
		    (err = get_num(c, timing, "target_rse", "$.timing", &s->topts.target_rse, false)) < 0 ||
		    (err = get_num(c, timing, "max_seconds", "$.timing", &s->topts.max_seconds, false)) < 0)
			return err;
	}
	if (s->topts.min_reps < 3 || s->topts.max_reps < s->topts.min_reps)
		return bad(c, "$.timing", "needs 3 <= min_reps <= max_reps");
	return check_exprs(c, s);
}

int sc_spec_parse(struct sc_spec *out, const char *json, size_t len, const char *file)
{
	struct ctx c = { file };
	cJSON *root;
	int err;

	memset(out, 0, sizeof(*out));
	root = cJSON_ParseWithLength(json, len);
	if (!root) {
		const char *at = cJSON_GetErrorPtr();
		size_t line = 1;
		if (at && at >= json && at <= json + len)
			for (const char *q = json; q < at; q++)
				line += *q == '\n';
		return sc_error_set(SC_EPARSE, "%s:%zu: malformed JSON", file, line);
	}
	err = parse_root(&c, root, out);
	cJSON_Delete(root);
	if (err < 0)
		sc_spec_release(out);
	return err;
}

int sc_spec_load(struct sc_spec *out, const char *path)
{
	struct sc_buf b = SC_BUF_INIT;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = sc_read_file(&b, path, SC_MAX_JSON_BYTES)) < 0)
		goto done;
	err = sc_spec_parse(out, b.ptr, b.len, path);
done:
	sc_buf_release(&b);
	return err;
}

void sc_spec_release(struct sc_spec *s)
{
	free(s->name);
	free(s->description);
	free(s->entry);
	for (size_t i = 0; i < SC_SPEC_MAX_VARS; i++)
		free(s->size_vars[i]);
	for (size_t i = 0; i < SC_REF_MAX_PARAMS; i++) {
		free(s->params[i].name);
		free(s->params[i].shape);
		free(s->params[i].value);
	}
	for (int d = 0; d < 3; d++) {
		free(s->grid[d]);
		free(s->block[d]);
	}
	free(s->shared_bytes);
	for (size_t i = 0; i < SC_SPEC_MAX_TUNABLES; i++)
		free(s->tunables[i].name);
	free(s->flops);
	free(s->bytes);
	memset(s, 0, sizeof(*s));
}

size_t sc_spec_vars(struct sc_expr_var *vars, const struct sc_spec *spec,
		    const struct sc_size_set *size, const struct sc_tunable_values *tun)
{
	size_t n = 0;

	for (size_t i = 0; i < spec->nsize_vars; i++) {
		vars[n].name = spec->size_vars[i];
		vars[n++].value = size->v[i];
	}
	for (size_t i = 0; i < spec->ntunables; i++) {
		vars[n].name = spec->tunables[i].name;
		vars[n++].value = tun ? tun->v[i] : spec->tunables[i].def;
	}
	return n;
}

int sc_spec_eval(int64_t *out, const char *expr, const char *what,
		 const struct sc_expr_var *vars, size_t nvars)
{
	int err = sc_expr_eval(out, expr, vars, nvars);
	return err < 0 ? sc_error_wrap(err, "%s", what) : 0;
}

int sc_spec_tunables(struct sc_tunable_values *out, const struct sc_spec *spec, const char *source)
{
	static const char tag[] = "// skillci-tunable";
	const char *p = source;
	size_t line = 1;

	for (size_t i = 0; i < spec->ntunables; i++)
		out->v[i] = spec->tunables[i].def;
	while (p && *p) {
		const char *eol = strchr(p, '\n');
		const char *q = p;
		while (*q == ' ' || *q == '\t')
			q++;
		if (!strncmp(q, tag, sizeof(tag) - 1)) {
			char name[64];
			long long v;
			int used = 0;
			size_t i;
			q += sizeof(tag) - 1;
			if (sscanf(q, " %63[A-Za-z0-9_] = %lld%n", name, &v, &used) < 2)
				return sc_error_set(SC_EINVAL, "line %zu: expected '// skillci-tunable NAME=VALUE'", line);
			for (i = 0; i < spec->ntunables; i++)
				if (!strcmp(spec->tunables[i].name, name))
					break;
			if (i == spec->ntunables)
				return sc_error_set(SC_EINVAL, "line %zu: unknown tunable '%s'", line, name);
			if (v < spec->tunables[i].min || v > spec->tunables[i].max ||
			    v % spec->tunables[i].multiple_of)
				return sc_error_set(SC_EINVAL,
						    "line %zu: tunable '%s'=%lld outside its limits (%lld..%lld, multiple of %lld)",
						    line, name, v, (long long)spec->tunables[i].min,
						    (long long)spec->tunables[i].max, (long long)spec->tunables[i].multiple_of);
			out->v[i] = v;
		}
		p = eol ? eol + 1 : NULL;
		line++;
	}
	return 0;
}

const char *sc_dtype_name(enum sc_dtype t)
{
	switch (t) {
	case SC_DTYPE_F32: return "float32";
	case SC_DTYPE_I32: return "int32";
	case SC_DTYPE_U32: return "uint32";
	case SC_DTYPE_BF16: return "bfloat16";
	case SC_DTYPE_F16: return "float16";
	case SC_DTYPE_E4M3: return "float8_e4m3";
	}
	return "unknown";
}

bool sc_spec_is_fp32(const struct sc_spec *spec)
{
	for (size_t i = 0; i < spec->nparams; i++)
		if (spec->params[i].kind == SC_PARAM_BUFFER &&
		    (spec->params[i].dtype == SC_DTYPE_BF16 || spec->params[i].dtype == SC_DTYPE_F16 ||
		     spec->params[i].dtype == SC_DTYPE_E4M3))
			return false;
	return true;
}

bool sc_spec_float_outputs(const struct sc_spec *spec)
{
	for (size_t i = 0; i < spec->nparams; i++) {
		const struct sc_param *p = &spec->params[i];
		if (p->kind == SC_PARAM_BUFFER && (p->role == SC_ROLE_OUT || p->role == SC_ROLE_INOUT) &&
		    p->dtype != SC_DTYPE_I32 && p->dtype != SC_DTYPE_U32)
			return true;
	}
	return false;
}
