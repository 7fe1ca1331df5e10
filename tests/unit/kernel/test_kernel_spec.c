/* Fixture specs (spec.json), spec expressions and tunable overrides. */
#include "unit.h"
#include "expr.h"
#include "half.h"
#include "harness.h"
#include "refs.h"
#include "spec.h"

#include <math.h>

#include <dirent.h>
#include <unistd.h>

static int64_t eval(const char *e, int *err)
{
	struct sc_expr_var v[] = { { "rows", 17 }, { "cols", 4097 }, { "BLOCK", 256 } };
	int64_t out = -999;
	*err = sc_expr_eval(&out, e, v, 3);
	return out;
}

static void test_expr_values(void **state)
{
	int err;
	(void)state;
	assert_int_equal(eval("rows*cols", &err), 17 * 4097);
	assert_int_equal(eval("2 + 3 * 4", &err), 14);
	assert_int_equal(eval("(2 + 3) * 4", &err), 20);
	assert_int_equal(eval("ceil_div(cols, BLOCK)", &err), 17);
	assert_int_equal(eval("cols / BLOCK", &err), 16);
	assert_int_equal(eval("cols % BLOCK", &err), 1);
	assert_int_equal(eval("min(rows, 3) + max(rows, 3)", &err), 20);
	assert_int_equal(eval("-rows + 20", &err), 3);
	assert_int_equal(eval("1024", &err), 1024);
	assert_int_equal(err, 0);
}

static void test_expr_errors(void **state)
{
	int err;
	(void)state;
	eval("rws*cols", &err);
	assert_int_equal(err, SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "unknown name 'rws'"));
	eval("rows / (BLOCK - 256)", &err);
	assert_int_equal(err, SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "division by zero"));
	eval("9223372036854775807 * 2", &err);
	assert_non_null(strstr(sc_error_last(), "overflow"));
	eval("rows *", &err);
	assert_int_equal(err, SC_EINVAL);
	eval("pow(2, 3)", &err);
	assert_non_null(strstr(sc_error_last(), "unknown function"));
	eval("rows cols", &err);
	assert_int_equal(err, SC_EINVAL);
}

static const char *good =
	"{\"name\":\"t\",\"entry\":\"k\",\"size_vars\":[\"n\"],"
	"\"params\":[{\"name\":\"x\",\"kind\":\"buffer\",\"type\":\"float32\",\"role\":\"in\",\"shape\":\"n\","
	"\"init\":[{\"dist\":\"uniform\",\"lo\":-1,\"hi\":1}]},"
	"{\"name\":\"y\",\"kind\":\"buffer\",\"type\":\"float32\",\"role\":\"out\",\"shape\":\"n\"},"
	"{\"name\":\"eps\",\"kind\":\"scalar\",\"type\":\"float32\",\"value\":0.5},"
	"{\"name\":\"n\",\"kind\":\"scalar\",\"type\":\"int32\",\"value\":\"n\"}],"
	"\"sizes\":{\"correctness\":[{\"n\":1},{\"n\":17}],\"timing\":{\"n\":1000000}},"
	"\"launch\":{\"grid\":[\"ceil_div(n,B)\",1,1],\"block\":[\"B\",\"1\",\"1\"]},"
	"\"tunables\":{\"B\":{\"default\":128,\"min\":32,\"max\":512,\"multiple_of\":32}},"
	"\"tolerance\":{\"atol\":1e-6,\"rtol\":1e-5},\"flops\":\"n\",\"bytes\":\"8*n\"}";

static void test_spec_parses(void **state)
{
	struct sc_spec s;
	(void)state;
	assert_int_equal(sc_spec_parse(&s, good, strlen(good), "t/spec.json"), 0);
	assert_string_equal(s.entry, "k");
	assert_int_equal(s.nparams, 4);
	assert_int_equal(s.params[1].role, SC_ROLE_OUT);
	assert_true(s.params[2].has_fvalue);
	assert_int_equal(s.ncorrectness, 2);
	assert_int_equal(s.timing.v[0], 1000000);
	assert_string_equal(s.grid[1], "1");
	assert_int_equal(s.tunables[0].def, 128);
	assert_int_equal(s.topts.min_reps, 20);  /* default */
	assert_int_equal(s.ndists, 1);
	assert_true(s.terms_rtol == 0);               /* absent: no allowance */
	assert_true(s.max_mean_signed_error < 0);     /* absent: no check */
	/* absent: fp32 from the buffers, one timed shape, bit for bit */
	assert_int_equal(s.precision, SC_PRECISION_FP32);
	assert_false(s.precision_given);
	assert_false(s.compensated_tf32);
	assert_int_equal(s.ntimed, 1);
	assert_int_equal(s.timed[0].v[0], 1000000);
	assert_true(s.repeat_tolerance == 0);
	sc_spec_release(&s);
}


/* Replaces the first occurrence of from in good with to and parses. */
static int parse_edit(const char *from, const char *to)
{
	struct sc_buf b = SC_BUF_INIT;
	const char *at = strstr(good, from);
	struct sc_spec s;
	int err;

	assert_non_null(at);
	sc_buf_put(&b, good, (size_t)(at - good));
	sc_buf_puts(&b, to);
	sc_buf_puts(&b, at + strlen(from));
	err = sc_spec_parse(&s, b.ptr, b.len, "t/spec.json");
	sc_buf_release(&b);
	if (err == 0)
		sc_spec_release(&s);
	return err;
}

/* The keys of precision, timed shapes and determinism. */
static void test_spec_precision_shapes_repeat(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	struct sc_spec s;
	const char *at = strstr(good, "\"params\"");
	(void)state;

	sc_buf_put(&b, good, (size_t)(at - good));
	sc_buf_puts(&b, "\"precision\":\"fp32\",\"compensated_tf32\":true,\"repeat_tolerance\":0.25,"
			"\"extra_timing_sizes\":[{\"n\":7},{\"n\":4097}],");
	sc_buf_puts(&b, at);
	assert_int_equal(sc_spec_parse(&s, b.ptr, b.len, "t/spec.json"), 0);
	assert_int_equal(s.precision, SC_PRECISION_FP32);
	assert_true(s.precision_given);
	assert_true(s.compensated_tf32);
	assert_true(s.repeat_tolerance == 0.25);
	assert_int_equal(s.ntimed, 3);
	assert_int_equal(s.timed[0].v[0], 1000000);
	assert_int_equal(s.timed[1].v[0], 7);
	assert_int_equal(s.timed[2].v[0], 4097);
	assert_string_equal(sc_precision_name(s.precision), "fp32");
	sc_spec_release(&s);
	sc_buf_release(&b);
	/* each precision by name; anything else refused with the path */
	assert_int_equal(parse_edit("\"params\"", "\"precision\":\"fp8\",\"params\""), 0);
	assert_int_equal(parse_edit("\"params\"", "\"precision\":\"fp4\",\"params\""), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "t/spec.json: $.precision"));
	/* compensated TF32 is an fp32 fixture's, and a yes or no */
	assert_int_equal(parse_edit("\"params\"", "\"precision\":\"bf16\",\"compensated_tf32\":true,\"params\""),
			 SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.compensated_tf32"));
	assert_int_equal(parse_edit("\"params\"", "\"compensated_tf32\":1,\"params\""), SC_EINVAL);
	/* a bound of at most the tolerance */
	assert_int_equal(parse_edit("\"params\"", "\"repeat_tolerance\":2,\"params\""), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.repeat_tolerance"));
	/* shapes: size sets, at most three beside sizes.timing, evaluated */
	assert_int_equal(parse_edit("\"params\"", "\"extra_timing_sizes\":{\"n\":7},\"params\""), SC_EINVAL);
	assert_int_equal(parse_edit("\"params\"", "\"extra_timing_sizes\":[{\"m\":7}],\"params\""), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.extra_timing_sizes[0].n"));
	assert_int_equal(parse_edit("\"params\"", "\"extra_timing_sizes\":[{\"n\":1},{\"n\":2},{\"n\":3},{\"n\":4}],"
						 "\"params\""),
			 SC_EINVAL);
	assert_int_equal(parse_edit("\"params\"", "\"extra_timing_sizes\":[{\"n\":0}],\"params\""), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "must be >= 1"));
}

static void test_spec_errors_name_file_and_path(void **state)
{
	(void)state;
	assert_int_equal(parse_edit("\"role\":\"out\",\"shape\":\"n\"", "\"role\":\"out\",\"shape\":[1]"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "t/spec.json: $.params[1].shape"));
	assert_int_equal(parse_edit("\"type\":\"float32\",\"role\":\"in\"", "\"type\":\"float64\",\"role\":\"in\""), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.params[0]"));
	assert_int_equal(parse_edit("\"dist\":\"uniform\"", "\"dist\":\"cauchy\""), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.params[0].init[0]"));
	assert_int_equal(parse_edit("ceil_div(n,B)", "ceil_div(m,B)"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "unknown name 'm'"));
	assert_int_equal(parse_edit("{\"n\":17}", "{\"n\":-1}"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.sizes.correctness[1].n: expected a non-negative integer"));
	/* 0 is a size (a flag such as causal), but no buffer may be empty */
	assert_int_equal(parse_edit("{\"n\":17}", "{\"n\":0}"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.params[0].shape: evaluates to 0"));
	assert_int_equal(parse_edit("\"default\":128", "\"default\":100"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.tunables.B"));
	/* found by tests/fuzz/fuzz_spec: the cast of 1e70 to int64 was undefined */
	assert_int_equal(parse_edit("\"max\":512", "\"max\":2.1e70"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.tunables.B.max: expected an integer of at most 15 digits"));
	assert_int_equal(parse_edit("\"default\":128", "\"default\":-1e300"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.tunables.B.default: expected an integer"));
	assert_int_equal(parse_edit("{\"name\":\"t\"", "{\"name\":\"T x\""), SC_EINVAL);
	assert_int_equal(parse_edit("\"flops\":\"n\",", ""), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.flops"));
	assert_int_equal(parse_edit("\"tolerance\"", "tolerance"), SC_EPARSE);
	assert_non_null(strstr(sc_error_last(), "t/spec.json:1: malformed JSON"));
}

/* Replaces the first from in b with to (from must occur). */
static void replace_first(struct sc_buf *b, const char *from, const char *to)
{
	struct sc_buf n = SC_BUF_INIT;
	const char *at = strstr(b->ptr, from);

	assert_non_null(at);
	sc_buf_put(&n, b->ptr, (size_t)(at - b->ptr));
	sc_buf_puts(&n, to);
	sc_buf_puts(&n, at + strlen(from));
	sc_buf_release(b);
	*b = n;
}

/* The tolerance's optional fields: terms_rtol and max_mean_signed_error. */
static void test_spec_tolerance_fields(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	struct sc_spec s;
	(void)state;
	sc_buf_puts(&b, good);
	replace_first(&b, "\"rtol\":1e-5}", "\"rtol\":1e-5,\"terms_rtol\":0.0078125,\"max_mean_signed_error\":0.1}");
	assert_int_equal(sc_spec_parse(&s, b.ptr, b.len, "t/spec.json"), 0);
	assert_true(s.terms_rtol == 0.0078125);
	assert_true(s.max_mean_signed_error == 0.1);
	sc_spec_release(&s);
	sc_buf_release(&b);
	assert_int_equal(parse_edit("\"rtol\":1e-5}", "\"rtol\":1e-5,\"terms_rtol\":-1}"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "t/spec.json: $.tolerance.terms_rtol: must be >= 0"));
	assert_int_equal(parse_edit("\"rtol\":1e-5}", "\"rtol\":1e-5,\"terms_rtol\":\"big\"}"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.tolerance.terms_rtol: expected a number"));
	assert_int_equal(parse_edit("\"rtol\":1e-5}", "\"rtol\":1e-5,\"max_mean_signed_error\":0}"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.tolerance.max_mean_signed_error: must be a fraction of the tolerance in (0, 1]"));
	assert_int_equal(parse_edit("\"rtol\":1e-5}", "\"rtol\":1e-5,\"max_mean_signed_error\":1.5}"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.tolerance.max_mean_signed_error"));
	assert_int_equal(parse_edit("\"rtol\":1e-5}", "\"rtol\":1e-5,\"max_mean_signed_error\":null}"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.tolerance.max_mean_signed_error: expected a number"));
}

/* bfloat16/float16 buffers, scratch buffers and the roofline's peak. */
static void test_half_types_scratch_and_peak(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	struct sc_spec s;
	const char *at;
	(void)state;

	assert_int_equal(sc_spec_parse(&s, good, strlen(good), "t/spec.json"), 0);
	assert_true(sc_spec_is_fp32(&s));
	assert_int_equal(s.peak, SC_PEAK_FP32);
	sc_spec_release(&s);

	/* x bfloat16, y float16, plus a scratch buffer: tensor peak by default */
	at = strstr(good, "{\"name\":\"eps\"");
	sc_buf_put(&b, good, (size_t)(at - good));
	sc_buf_puts(&b, "{\"name\":\"w\",\"kind\":\"buffer\",\"type\":\"float32\",\"role\":\"scratch\",\"shape\":\"2*n\"},");
	sc_buf_puts(&b, at);
	replace_first(&b, "\"type\":\"float32\",\"role\":\"in\"", "\"type\":\"bfloat16\",\"role\":\"in\"");
	replace_first(&b, "\"type\":\"float32\",\"role\":\"out\"", "\"type\":\"float16\",\"role\":\"out\"");
	assert_int_equal(sc_spec_parse(&s, b.ptr, b.len, "t/spec.json"), 0);
	assert_int_equal(s.params[0].dtype, SC_DTYPE_BF16);
	assert_int_equal(s.params[1].dtype, SC_DTYPE_F16);
	assert_int_equal(s.params[2].role, SC_ROLE_SCRATCH);
	assert_string_equal(sc_dtype_name(s.params[0].dtype), "bfloat16");
	assert_string_equal(sc_dtype_name(s.params[1].dtype), "float16");
	assert_false(sc_spec_is_fp32(&s));
	assert_int_equal(s.peak, SC_PEAK_TENSOR);
	sc_spec_release(&s);

	/* "peak" overrides the default */
	replace_first(&b, "\"flops\"", "\"peak\":\"fp32\",\"flops\"");
	assert_int_equal(sc_spec_parse(&s, b.ptr, b.len, "t/spec.json"), 0);
	assert_int_equal(s.peak, SC_PEAK_FP32);
	sc_spec_release(&s);
	replace_first(&b, "\"peak\":\"fp32\"", "\"peak\":\"fp64\"");
	assert_int_equal(sc_spec_parse(&s, b.ptr, b.len, "t/spec.json"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "t/spec.json: $.peak: expected \"fp32\" or \"tensor\""));
	sc_buf_release(&b);

	/* half scalars do not exist; an unknown role is named */
	assert_int_equal(parse_edit("\"type\":\"float32\",\"value\":0.5", "\"type\":\"bfloat16\",\"value\":0.5"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "$.params[2]: scalars are int32 or float32"));
	assert_int_equal(parse_edit("\"role\":\"out\"", "\"role\":\"temp\""), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "must be in, out, inout or scratch"));
	/* a scratch buffer is not an output */
	assert_int_equal(parse_edit("\"role\":\"out\"", "\"role\":\"scratch\""), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "no out or inout buffer"));
}

static void test_tunable_overrides(void **state)
{
	struct sc_spec s;
	struct sc_tunable_values t;
	(void)state;
	assert_int_equal(sc_spec_parse(&s, good, strlen(good), "t/spec.json"), 0);
	assert_int_equal(sc_spec_tunables(&t, &s, "__global__ void k() {}\n"), 0);
	assert_int_equal(t.v[0], 128);
	assert_int_equal(sc_spec_tunables(&t, &s, "// hi\n  // skillci-tunable B=256\n"), 0);
	assert_int_equal(t.v[0], 256);
	assert_int_equal(sc_spec_tunables(&t, &s, "\n\n// skillci-tunable B=1024\n"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "line 3"));
	assert_int_equal(sc_spec_tunables(&t, &s, "// skillci-tunable B=48\n"), SC_EINVAL);
	assert_int_equal(sc_spec_tunables(&t, &s, "// skillci-tunable TILE=8\n"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "unknown tunable 'TILE'"));
	sc_spec_release(&s);
}

/* Every fixture's spec parses, names its folder, and has a compiled-in reference. */
static void test_every_fixture_spec(void **state)
{
	DIR *d = opendir("fixtures");
	struct dirent *e;
	int n = 0;
	(void)state;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		struct sc_buf p = SC_BUF_INIT;
		struct sc_spec s;
		if (e->d_name[0] == '.')
			continue;
		sc_buf_printf(&p, "fixtures/%s/spec.json", e->d_name);
		if (access(p.ptr, F_OK) == 0) {
			if (sc_spec_load(&s, p.ptr) != 0)
				fail_msg("%s", sc_error_last());
			assert_string_equal(s.name, e->d_name);
			assert_non_null(sc_ref_lookup(e->d_name));
			assert_true(s.ndists >= 2);     /* uniform and a large-magnitude one */
			assert_true(s.ncorrectness >= 3);
			/* every fixture says its precision and times two shapes at least */
			if (!s.precision_given)
				fail_msg("%s: no \"precision\"", p.ptr);
			if (s.ntimed < 2)
				fail_msg("%s: one timed shape (add extra_timing_sizes)", p.ptr);
			sc_spec_release(&s);
			n++;
		}
		sc_buf_release(&p);
	}
	closedir(d);
	assert_true(n >= 8);
}

/*
 * The reference's outputs at each timed shape of every fixture (the
 * affordable ones: flops under the harness's reference cap, buffers under
 * 2^25 elements), for every input distribution: not near-constant, since
 * the checks of timed launches refuse outputs a constant would pass (at
 * the tolerance of the re-validation against the reference, and at the
 * doubled one of the checks against the baseline).
 */
static void test_fixture_timed_shapes_not_constant(void **state)
{
	DIR *d = opendir("fixtures");
	struct dirent *e;
	int checked = 0;
	(void)state;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		struct sc_buf p = SC_BUF_INIT;
		struct sc_spec s;
		if (e->d_name[0] == '.')
			continue;
		sc_buf_printf(&p, "fixtures/%s/spec.json", e->d_name);
		if (access(p.ptr, F_OK) != 0 || sc_spec_load(&s, p.ptr) != 0) {
			sc_buf_release(&p);
			continue;
		}
		for (size_t k = 0; k < s.ntimed; k++) {
			struct sc_expr_var vars[SC_SPEC_MAX_VARS + SC_SPEC_MAX_TUNABLES];
			size_t nv = sc_spec_vars(vars, &s, &s.timed[k], NULL);
			int64_t flops = 0, total = 0, count[SC_REF_MAX_PARAMS] = { 0 };
			assert_int_equal(sc_spec_eval(&flops, s.flops, "flops", vars, nv), 0);
			for (size_t i = 0; i < s.nparams; i++)
				if (s.params[i].kind == SC_PARAM_BUFFER) {
					assert_int_equal(sc_spec_eval(&count[i], s.params[i].shape, "shape", vars, nv), 0);
					total += count[i];
				}
			if ((double)flops > SC_HARNESS_REF_MAX_FLOPS || total > ((int64_t)1 << 25))
				continue;
			for (size_t dist = 0; dist < s.ndists; dist++) {
				struct sc_ref_args a;
				memset(&a, 0, sizeof(a));
				a.nparams = s.nparams;
				for (size_t v = 0; v < s.nsize_vars; v++)
					a.size[v] = s.timed[k].v[v];
				for (size_t i = 0; i < s.nparams; i++) {
					const struct sc_param *q = &s.params[i];
					if (q->kind == SC_PARAM_SCALAR) {
						int64_t v = 0;
						if (q->has_fvalue)
							a.f[i] = q->fvalue;
						else if (sc_spec_eval(&v, q->value, q->name, vars, nv) == 0)
							a.i[i] = v, a.f[i] = (double)v;
						continue;
					}
					a.buf[i] = sc_xcalloc((size_t)count[i], 4);
					if (q->role != SC_ROLE_IN && s.terms_rtol > 0)
						a.terms[i] = sc_xcalloc((size_t)count[i], sizeof(float));
					if (q->role == SC_ROLE_IN || q->role == SC_ROLE_INOUT) {
						const struct sc_dist *dd = &q->init[dist < q->ninit ? dist : q->ninit - 1];
						if (sc_dtype_is_narrow(q->dtype)) {
							void *narrow = sc_xcalloc((size_t)count[i], sc_dtype_size(q->dtype));
							sc_harness_fill(narrow, q->dtype, (size_t)count[i], dd, 99 + i);
							sc_half_decode(a.buf[i], q->dtype, narrow, (size_t)count[i]);
							free(narrow);
						} else {
							sc_harness_fill(a.buf[i], q->dtype, (size_t)count[i], dd, 99 + i);
						}
					}
				}
				sc_ref_lookup(e->d_name)(&a);
				for (size_t i = 0; i < s.nparams; i++) {
					const struct sc_param *q = &s.params[i];
					if (q->kind == SC_PARAM_BUFFER && q->role != SC_ROLE_IN && q->role != SC_ROLE_SCRATCH &&
					    sc_dtype_is_float(q->dtype)) {
						struct sc_compare c;
						double top = 0;
						/* the re-validation against the reference: the
						 * tolerance with each element's terms */
						sc_harness_compare_terms(&c, SC_DTYPE_F32, a.buf[i], a.buf[i], a.terms[i],
									 (size_t)count[i], s.atol, s.rtol, s.terms_rtol);
						if (c.constant_passes)
							fail_msg("%s: output '%s' near-constant at timed shape %zu, distribution %zu",
								 e->d_name, q->name, k, dist);
						/* the checks of timed launches against the
						 * baseline: twice the tolerance, the terms
						 * bounded by the largest output (harness.c,
						 * compare_outputs), on buffers of
						 * SC_HARNESS_CONSTANT_MIN elements or more */
						for (int64_t j = 0; j < count[i]; j++) {
							double v = fabs(((const float *)a.buf[i])[j]);
							if (isfinite(v) && v > top)
								top = v;
						}
						sc_harness_compare(&c, SC_DTYPE_F32, a.buf[i], a.buf[i], (size_t)count[i],
								   2 * (s.atol + s.terms_rtol * top), 2 * s.rtol);
						if (c.constant_passes && count[i] >= SC_HARNESS_CONSTANT_MIN)
							fail_msg("%s: output '%s' near-constant at timed shape %zu, distribution %zu, at the doubled tolerance of the checks against the baseline",
								 e->d_name, q->name, k, dist);
					}
					free(a.buf[i]);
					free(a.terms[i]);
				}
				checked++;
			}
		}
		sc_spec_release(&s);
		sc_buf_release(&p);
	}
	closedir(d);
	assert_true(checked >= 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expr_values),
		cmocka_unit_test(test_expr_errors),
		cmocka_unit_test(test_spec_parses),
		cmocka_unit_test(test_spec_errors_name_file_and_path),
		cmocka_unit_test(test_spec_tolerance_fields),
		cmocka_unit_test(test_half_types_scratch_and_peak),
		cmocka_unit_test(test_tunable_overrides),
		cmocka_unit_test(test_every_fixture_spec),
		cmocka_unit_test(test_spec_precision_shapes_repeat),
		cmocka_unit_test(test_fixture_timed_shapes_not_constant),
	};
	return cmocka_run_group_tests_name("kernel_spec", tests, NULL, NULL);
}
