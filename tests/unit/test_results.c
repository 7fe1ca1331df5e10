/* Unit tests for runner/results/results.c: reading (nulls, errors with JSON paths,
 * schema versions) and deterministic, sorted, atomic writing. */
#include "unit.h"
#include "states.h"
#include "par.h"
#include "results/results.h"
#include "results/jdom.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <math.h>

static const char minimal[] =
	"{\"schema\": \"skillci.results/1\", \"skillci_version\": \"0.1.0\",\n"
	" \"run\": {\"id\": \"r1\", \"kind\": \"run\", \"complete\": false, \"models\": [\"m\"], \"runs\": 2,\n"
	"         \"gpu\": {\"name\": \"H100\", \"driver\": \"550\", \"arch\": \"sm_90\", \"cc\": 9.0}},\n"
	" \"skills\": [{\"path\": \"skills/a\", \"untested\": true, \"gate\": {\"passed\": false, \"reasons\": [\"x\"]}}],\n"
	" \"units\": [{\"skill\": \"skills/a\", \"variant\": \"head\", \"model\": \"m\", \"test_id\": \"t\",\n"
	"            \"verdict\": \"fail\", \"judge_score\": null, \"future_field\": [1, 2],\n"
	"            \"kernel\": {\"verdict\": \"mismatch\", \"worst_index\": 7, \"speedup\": null, \"flags\": [\"f\"]}}],\n"
	" \"aggregates\": [{\"skill\": \"skills/a\", \"variant\": \"head\", \"model\": \"m\", \"n\": 1, \"pass_rate\": 0}],\n"
	" \"comparisons\": [{\"skill\": \"skills/a\", \"model\": \"m\", \"from\": \"base\", \"to\": \"head\", \"is_beneficial\": null}],\n"
	" \"gate\": {\"passed\": false, \"exit_code\": 1, \"failures\": [{\"skill\": \"skills/a\", \"rule\": \"pass_rate_drop\"}]}}\n";

static void test_parse_reads_fields_and_nulls(void **state)
{
	struct sc_results r;
	(void)state;

	assert_int_equal(sc_results_parse(&r, minimal, strlen(minimal), "m.json"), 0);
	assert_string_equal(r.run.id, "r1");
	assert_false(r.run.complete);
	assert_int_equal(r.run.runs, 2);
	assert_true(r.run.has_gpu);
	assert_string_equal(r.run.gpu.cc, "9.0");
	assert_int_equal(r.nskills, 1);
	assert_true(r.skills[0].untested);
	assert_false(r.skills[0].gate_passed);
	assert_string_equal(r.skills[0].gate_reasons[0], "x");
	assert_int_equal(r.nunits, 1);
	assert_true(isnan(r.units[0].judge_score));
	assert_null(r.units[0].message);
	assert_int_equal(r.units[0].test_line, SC_RESULTS_NULL_INT);
	assert_non_null(r.units[0].kernel);
	assert_int_equal(r.units[0].kernel->worst_index, 7);
	assert_true(isnan(r.units[0].kernel->speedup));
	assert_int_equal(r.units[0].kernel->registers, SC_RESULTS_NULL_INT);
	assert_int_equal(r.aggregates[0].pass_rate, 0);
	assert_true(isnan(r.aggregates[0].ci_low));
	assert_int_equal(r.comparisons[0].is_beneficial, -1);
	assert_int_equal(r.gate.nfailures, 1);
	assert_string_equal(r.gate.failures[0].rule, "pass_rate_drop");
	assert_non_null(sc_results_find_aggregate(&r, "skills/a", SC_VARIANT_HEAD, "m"));
	assert_null(sc_results_find_aggregate(&r, "skills/a", SC_VARIANT_BASE, "m"));
	sc_results_release(&r);
}

/* Parses text, expecting failure with a message containing want. */
static void expect_error(const char *json, int code, const char *want)
{
	struct sc_results r;
	int err = sc_results_parse(&r, json, strlen(json), "bad.json");

	assert_int_equal(err, code);
	if (!strstr(sc_error_last(), want))
		fail_msg("message '%s' lacks '%s'", sc_error_last(), want);
	assert_int_equal(r.nunits, 0);
}

static void test_parse_errors_name_file_and_path(void **state)
{
	(void)state;
	expect_error("{\"schema\": \"skillci.results/2\"}", SC_EINVAL,
		     "results 'bad.json': schema 'skillci.results/2' is not supported");
	expect_error("{\"schema\": \"other/1\"}", SC_EINVAL, "not a skillci results schema");
	expect_error("{\"run\": {}}", SC_EINVAL, "$.schema: missing");
	expect_error("{\"schema\": \"skillci.results/1\", \"units\": [{\"skill\": \"a\", \"variant\": \"head\", "
		     "\"model\": \"m\", \"test_id\": \"t\", \"verdict\": 1}]}",
		     SC_EINVAL, "results 'bad.json': $.units[0].verdict: expected a string");
	expect_error("{\"schema\": \"skillci.results/1\", \"units\": [{\"skill\": \"a\", \"variant\": \"head\", "
		     "\"model\": \"m\", \"test_id\": \"t\", \"verdict\": \"pass\", \"run_index\": 1.5}]}",
		     SC_EINVAL, "$.units[0].run_index: expected an integer");
	expect_error("{\"schema\": \"skillci.results/1\", \"aggregates\": [{\"skill\": \"a\", \"variant\": \"head\", "
		     "\"model\": \"m\"}, {\"skill\": \"a\", \"model\": \"m\"}]}",
		     SC_EINVAL, "$.aggregates[1].variant: missing");
	expect_error("{\"schema\": \"skillci.results/1\", \"units\": [{\"skill\": \"a\", \"variant\": \"head\", "
		     "\"model\": \"m\", \"test_id\": \"t\", \"verdict\": \"pass\", \"kernel\": {\"speedup\": \"fast\"}}]}",
		     SC_EINVAL, "$.units[0].kernel.speedup: expected a number");
	expect_error("{\"schema\": \"skillci.results/1\",\n\"run\": [", SC_EPARSE, "bad.json':2: malformed JSON");
	expect_error("{\"schema\": \"skillci.results/1\", \"run\": {\"models\": [\"kimi\", \"haiku\"], "
		     "\"resolved_models\": [\"hf.x\"]}}", SC_EINVAL,
		     "$.run.resolved_models: expected one name per model");
}

/* The names models resolved to are read back beside the names given. */
static void test_resolved_models(void **state)
{
	struct sc_results r;
	const char *j = "{\"schema\": \"skillci.results/1\", \"run\": {\"models\": [\"kimi\", \"lab.a\"], "
			"\"resolved_models\": [\"hf.moonshotai/Kimi-K2-Instruct-0905:groq\", \"lab.a\"]}}";
	(void)state;

	assert_int_equal(sc_results_parse(&r, j, strlen(j), "x"), 0);
	assert_int_equal(r.run.nresolved_models, 2);
	assert_string_equal(r.run.resolved_models[0], "hf.moonshotai/Kimi-K2-Instruct-0905:groq");
	sc_results_release(&r);
	/* files from before the field have none */
	assert_int_equal(sc_results_parse(&r, minimal, strlen(minimal), "m.json"), 0);
	assert_int_equal(r.run.nresolved_models, 0);
	sc_results_release(&r);
}

static void test_minor_version_is_accepted(void **state)
{
	struct sc_results r;
	const char *j = "{\"schema\": \"skillci.results/1.3\", \"new_top\": {}}";
	(void)state;

	assert_int_equal(sc_results_parse(&r, j, strlen(j), "x"), 0);
	sc_results_release(&r);
}

static void add_unit(struct sc_results *r, const char *skill, const char *variant, const char *test, int run)
{
	struct sc_results_unit *u;

	r->units = sc_xrealloc(r->units, (r->nunits + 1) * sizeof(*r->units));
	u = &r->units[r->nunits++];
	sc_results_unit_init(u);
	u->skill = sc_xstrdup(skill);
	u->variant = t_variant(variant);
	u->model = sc_xstrdup("m");
	u->test_id = sc_xstrdup(test);
	u->verdict = SC_UNIT_PASS;
	u->run_index = run;
	u->judge_score = 0.1;
	u->latency_ms = 3000000000LL;
}

static void test_format_sorts_and_is_stable(void **state)
{
	struct sc_results r, back;
	struct sc_buf a = SC_BUF_INIT, b = SC_BUF_INIT;
	char *dir = sc_test_mkdtemp();
	struct sc_buf path = SC_BUF_INIT;
	DIR *d;
	struct dirent *e;
	size_t files = 0;
	(void)state;

	sc_results_init(&r);
	add_unit(&r, "skills/b", "head", "t", 0);
	add_unit(&r, "skills/a", "head", "t", 1);
	add_unit(&r, "skills/a", "baseline", "t", 0);
	add_unit(&r, "skills/a", "head", "t", 0);
	add_unit(&r, "skills/a", "base", "t", 0);
	r.units[0].judge_score = 1.0 / 3.0;
	sc_results_format(&a, &r);
	/* Sorted by skill, model, variant (baseline, base, head), test, run. */
	{
		const char *p1 = strstr(a.ptr, "\"baseline\""), *p2 = strstr(a.ptr, "\"base\"");
		const char *p3 = strstr(a.ptr, "\"skills/b\"");
		assert_non_null(p1);
		assert_non_null(p2);
		assert_true(p1 < p2 && p2 < p3);
	}
	assert_non_null(strstr(a.ptr, "\"judge_score\":\t0.1,"));
	assert_non_null(strstr(a.ptr, "\"latency_ms\":\t3000000000,"));
	assert_non_null(strstr(a.ptr, "\"message\":\tnull"));
	assert_int_equal(sc_results_parse(&back, a.ptr, a.len, "a"), 0);
	assert_int_equal(back.units[0].variant, SC_VARIANT_BASELINE);
	assert_string_equal(back.units[4].skill, "skills/b");
	assert_true(back.units[4].judge_score == 1.0 / 3.0);  /* reads back to the same double */
	/* what was read is signed again only once it is vouched for */
	assert_true(back.untrusted);
	assert_int_equal(sc_results_verify_text(a.ptr, a.len, "a"), 0);
	back.untrusted = false;
	sc_results_format(&b, &back);
	assert_string_equal(a.ptr, b.ptr);

	sc_path_join(&path, dir, "r.json");
	assert_int_equal(sc_results_save(&r, path.ptr), 0);
	sc_results_release(&back);
	assert_int_equal(sc_results_load(&back, path.ptr), 0);
	assert_int_equal(back.nunits, 5);
	d = opendir(dir);
	while ((e = readdir(d)))
		files += e->d_name[0] != '.';
	closedir(d);
	assert_int_equal(files, 1);  /* no temp file left behind */

	sc_results_release(&back);
	sc_results_release(&r);
	sc_buf_release(&a);
	sc_buf_release(&b);
	sc_rm_rf(dir);
	sc_buf_release(&path);
	free(dir);
}

/*
 * A document saved is the document formatted, byte for byte, and its
 * signature holds (the file is written in pieces and hashed as it goes,
 * the last three bytes held back); one large enough to have its
 * signature checked in a thread beside the parse is vouched for, and an
 * edit of it fails with the message that names the file, set in the
 * checking thread and read in this one.
 */
static void test_save_is_format_signed(void **state)
{
	struct sc_results r, back;
	struct sc_buf a = SC_BUF_INIT, file = SC_BUF_INIT, path = SC_BUF_INIT;
	char *dir = sc_test_mkdtemp(), name[32], *p;
	int sig;
	(void)state;

	sc_results_init(&r);
	/* about 0.5 KiB a unit: over 4 MiB, many pieces of a quarter MiB */
	for (int i = 0; i < 10000; i++) {
		snprintf(name, sizeof(name), "t%05d", i);
		add_unit(&r, "skills/a", i % 2 ? "head" : "base", name, 0);
	}
	sc_par_set_width(1);
	sc_results_format(&a, &r);
	assert_true(a.len > (5u << 20));
	sc_path_join(&path, dir, "r.json");
	/* the same bytes printed in one part and in several (core/par.h),
	 * saved with the file's writing thread hashing them */
	for (size_t width = 1; width <= SC_PAR_MAX; width += SC_PAR_MAX - 1) {
		struct sc_buf again = SC_BUF_INIT;
		sc_par_set_width(width);
		sc_results_format(&again, &r);
		assert_int_equal(again.len, a.len);
		assert_memory_equal(again.ptr, a.ptr, a.len);
		sc_buf_release(&again);
		assert_int_equal(sc_results_save(&r, path.ptr), 0);
		sc_buf_clear(&file);
		assert_int_equal(sc_read_file(&file, path.ptr, 64u << 20), 0);
		assert_int_equal(file.len, a.len);
		assert_memory_equal(file.ptr, a.ptr, a.len);
	}
	sc_par_set_width(0);
	/* unsigned (a model not vouched for): the same bytes as formatted */
	r.untrusted = true;
	sc_buf_clear(&file);
	{
		struct sc_buf plain = SC_BUF_INIT;
		sc_results_format(&plain, &r);
		assert_int_equal(sc_results_save(&r, path.ptr), 0);
		assert_int_equal(sc_read_file(&file, path.ptr, 64u << 20), 0);
		assert_int_equal(file.len, plain.len);
		assert_memory_equal(file.ptr, plain.ptr, plain.len);
		assert_null(strstr(file.ptr + file.len - 200, "\"signature\""));
		sc_buf_release(&plain);
	}
	r.untrusted = false;
	assert_int_equal(sc_results_save(&r, path.ptr), 0);
	sc_buf_clear(&file);
	assert_int_equal(sc_read_file(&file, path.ptr, 64u << 20), 0);
	assert_int_equal(sc_results_verify_file(path.ptr), 0);
	assert_int_equal(sc_results_load_signed(&back, path.ptr, &sig), 0);
	assert_int_equal(sig, 0);
	assert_int_equal(back.nunits, 10000);
	sc_results_release(&back);
	/* one verdict in the middle changed */
	p = strstr(file.ptr + file.len / 2, "\"pass\"");
	assert_non_null(p);
	memcpy(p, "\"fail\"", 6);
	assert_int_equal(sc_write_file_atomic(path.ptr, file.ptr, file.len), 0);
	sc_error_clear();
	assert_int_equal(sc_results_load_signed(&back, path.ptr, &sig), 0);
	assert_int_equal(sig, SC_EUNSAFE);
	assert_int_equal(sc_error_code(), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "r.json' fails its signature (runner key "));
	sc_results_release(&back);

	sc_results_release(&r);
	sc_buf_release(&a);
	sc_buf_release(&file);
	sc_buf_release(&path);
	sc_rm_rf(dir);
	free(dir);
}

/*
 * Every document written is signed; the signature holds for the text as
 * written, and fails for an edit, a removal, and a model read from a file
 * and not vouched for (written unsigned).
 */
static void test_signature(void **state)
{
	struct sc_results r, back;
	struct sc_buf a = SC_BUF_INIT, edited = SC_BUF_INIT, again = SC_BUF_INIT;
	char *p;
	(void)state;

	sc_results_init(&r);
	add_unit(&r, "skills/a", "head", "t", 0);
	sc_results_format(&a, &r);
	assert_non_null(strstr(a.ptr, "\"signature\": {"));
	assert_int_equal(sc_results_verify_text(a.ptr, a.len, "'a.json'"), 0);
	/* one verdict changed */
	sc_buf_sets(&edited, a.ptr);
	p = strstr(edited.ptr, "\"pass\"");
	assert_non_null(p);
	memcpy(p, "\"fail\"", 6);
	assert_int_equal(sc_results_verify_text(edited.ptr, edited.len, "'a.json'"), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "'a.json' fails its signature (runner key "));
	/* the signature cut off */
	sc_buf_clear(&edited);
	sc_buf_put(&edited, a.ptr, (size_t)(strstr(a.ptr, ",\n \"signature\"") - a.ptr));
	sc_buf_puts(&edited, "\n}\n");
	assert_int_equal(sc_results_verify_text(edited.ptr, edited.len, "'a.json'"), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "carries no signature"));
	/* a fingerprint no one knows */
	sc_buf_sets(&edited, a.ptr);
	p = strstr(edited.ptr, "\"key\": \"") + 8;
	memcpy(p, "0000000000000000", 16);
	assert_int_equal(sc_results_verify_text(edited.ptr, edited.len, "'a.json'"), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "is signed by runner key 0000000000000000, which this "
			       "runner (key "));
	assert_non_null(strstr(sc_error_last(), "SKILLCI_TRUSTED_KEYS"));
	/* an unverified model read back is written unsigned */
	assert_int_equal(sc_results_parse(&back, edited.ptr, edited.len, "e"), 0);
	sc_results_format(&again, &back);
	assert_null(strstr(again.ptr, "\"signature\""));
	assert_int_equal(sc_results_verify_text(again.ptr, again.len, "'e'"), SC_EUNSAFE);
	sc_results_release(&back);
	sc_results_release(&r);
	sc_buf_release(&a);
	sc_buf_release(&edited);
	sc_buf_release(&again);
}

static void test_load_names_missing_file(void **state)
{
	struct sc_results r;
	(void)state;

	assert_true(sc_results_load(&r, "/nonexistent/results.json") < 0);
	assert_non_null(strstr(sc_error_last(), "/nonexistent/results.json"));
}

/* A failed unit's excerpt: bounded, cut at a character, marked when cut,
 * written and read back; absent when there is none. */
static void test_excerpt_bounded_and_round_trip(void **state)
{
	struct sc_buf long_answer = SC_BUF_INIT, json = SC_BUF_INIT;
	struct sc_results r, back;
	char *e;
	(void)state;

	assert_null(sc_results_excerpt(NULL));
	assert_null(sc_results_excerpt(" \n\t "));
	e = sc_results_excerpt("\n  short answer");
	assert_string_equal(e, "short answer");
	free(e);
	/* 'é' is two bytes: 239 of them put one across the bound */
	sc_buf_puts(&long_answer, "x");
	for (int i = 0; i < 200; i++)
		sc_buf_puts(&long_answer, "é");
	e = sc_results_excerpt(long_answer.ptr);
	assert_true(strlen(e) <= SC_RESULTS_EXCERPT_MAX + strlen("…"));
	assert_true(sc_utf8_check(e, strlen(e), NULL));
	assert_int_equal(strlen(e) - strlen("…"), SC_RESULTS_EXCERPT_MAX - 1);
	assert_string_equal(e + strlen(e) - strlen("…"), "…");

	sc_results_init(&r);
	r.schema = sc_xstrdup(SC_RESULTS_SCHEMA);
	r.units = sc_xcalloc(2, sizeof(*r.units));
	r.nunits = 2;
	for (int i = 0; i < 2; i++) {
		sc_results_unit_init(&r.units[i]);
		r.units[i].skill = sc_xstrdup("skills/x");
		r.units[i].variant = SC_VARIANT_HEAD;
		r.units[i].model = sc_xstrdup("m");
		r.units[i].test_id = sc_xstrdup(i ? "t#1" : "t#0");
		r.units[i].verdict = t_unit_verdict(i ? "pass" : "fail");
	}
	r.units[0].excerpt = e;
	sc_results_format(&json, &r);
	assert_int_equal(sc_results_parse(&back, json.ptr, json.len, "mem"), 0);
	assert_string_equal(back.units[0].excerpt, r.units[0].excerpt);
	assert_null(back.units[1].excerpt);
	assert_null(strstr(strstr(json.ptr, "\"t#1\""), "\"excerpt\""));
	sc_results_release(&r);
	sc_results_release(&back);
	sc_buf_release(&long_answer);
	sc_buf_release(&json);
}

/* A kernel unit's strong reference, the speedup over it and its share of
 * the roofline, and an aggregate's strong-speedup geomean, round-trip
 * through results.json; absent (an older file) they read as NULL/NAN. */
static void test_strong_reference_round_trip(void **state)
{
	struct sc_buf json = SC_BUF_INIT;
	struct sc_results r, back;
	(void)state;

	sc_results_init(&r);
	r.schema = sc_xstrdup(SC_RESULTS_SCHEMA);
	r.units = sc_xcalloc(1, sizeof(*r.units));
	r.nunits = 1;
	sc_results_unit_init(&r.units[0]);
	r.units[0].skill = sc_xstrdup("skills/x");
	r.units[0].variant = SC_VARIANT_HEAD;
	r.units[0].model = sc_xstrdup("m");
	r.units[0].test_id = sc_xstrdup("t#0");
	r.units[0].verdict = SC_UNIT_PASS;
	r.units[0].kernel = sc_xmalloc(sizeof(*r.units[0].kernel));
	sc_results_kernel_init(r.units[0].kernel);
	r.units[0].kernel->speedup = 14.5;
	r.units[0].kernel->strong_reference = sc_xstrdup("fixture solution fixtures/softmax/solution.cu");
	r.units[0].kernel->strong_speedup = 0.75;
	r.units[0].kernel->pct_of_peak = 62.5;
	r.aggregates = sc_xcalloc(1, sizeof(*r.aggregates));
	r.naggregates = 1;
	sc_results_aggregate_init(&r.aggregates[0]);
	r.aggregates[0].skill = sc_xstrdup("skills/x");
	r.aggregates[0].variant = SC_VARIANT_HEAD;
	r.aggregates[0].model = sc_xstrdup("m");
	r.aggregates[0].speedup_geomean = 14.5;
	r.aggregates[0].strong_speedup_geomean = 0.75;
	sc_results_format(&json, &r);
	assert_non_null(strstr(json.ptr, "\"strong_reference\""));
	assert_non_null(strstr(json.ptr, "\"strong_speedup_geomean\""));
	assert_int_equal(sc_results_parse(&back, json.ptr, json.len, "mem"), 0);
	assert_string_equal(back.units[0].kernel->strong_reference, "fixture solution fixtures/softmax/solution.cu");
	assert_true(back.units[0].kernel->strong_speedup == 0.75);
	assert_true(back.units[0].kernel->pct_of_peak == 62.5);
	assert_true(back.units[0].kernel->speedup == 14.5);
	assert_true(back.aggregates[0].strong_speedup_geomean == 0.75);
	sc_results_release(&back);
	sc_results_release(&r);
	/* minimal has none of them */
	assert_int_equal(sc_results_parse(&back, minimal, strlen(minimal), "m.json"), 0);
	assert_null(back.units[0].kernel->strong_reference);
	assert_true(isnan(back.units[0].kernel->strong_speedup) && isnan(back.units[0].kernel->pct_of_peak));
	assert_true(isnan(back.aggregates[0].strong_speedup_geomean));
	sc_results_release(&back);
	sc_buf_release(&json);
}

/*
 * Every state table round-trips: each name parses to its value and the
 * value names it back; a _NONE value has no name; an unknown name, a
 * name in another case and NULL are refused; sc_state_table() knows
 * every table by name.
 */
#define ROUND_TRIP(fn, type)                                                        \
	do {                                                                        \
		size_t n_;                                                          \
		const char *const *names_ = sc_state_table(#fn, &n_);               \
		type v_;                                                            \
		assert_non_null(names_);                                            \
		assert_true(n_ > 1);                                                \
		for (size_t i_ = 0; i_ < n_; i_++) {                                \
			const char *name_ = sc_##fn##_name((type)i_);               \
			if (!names_[i_]) {                                          \
				assert_null(name_);                                 \
				continue;                                           \
			}                                                           \
			assert_string_equal(name_, names_[i_]);                     \
			assert_true(sc_##fn##_parse(name_, &v_));                   \
			assert_int_equal(v_, i_);                                   \
		}                                                                   \
		assert_null(sc_##fn##_name((type)n_));                              \
		assert_false(sc_##fn##_parse("no-such-state", &v_));                \
		assert_false(sc_##fn##_parse(NULL, &v_));                           \
		assert_false(sc_##fn##_parse("", &v_));                             \
	} while (0)

static void test_state_tables_round_trip(void **state)
{
	enum sc_verdict v;
	enum sc_variant var;
	size_t n;
	(void)state;

	ROUND_TRIP(verdict, enum sc_verdict);
	ROUND_TRIP(unit_verdict, enum sc_unit_verdict);
	ROUND_TRIP(variant, enum sc_variant);
	ROUND_TRIP(unit_kind, enum sc_unit_kind);
	ROUND_TRIP(trigger, enum sc_trigger);
	ROUND_TRIP(skill_status, enum sc_skill_status);
	ROUND_TRIP(finding_state, enum sc_finding_state);
	ROUND_TRIP(severity, enum sc_severity);
	ROUND_TRIP(compile, enum sc_compile);
	ROUND_TRIP(kernel_verdict, enum sc_kernel_verdict);
	ROUND_TRIP(check_kind, enum sc_check_kind);
	ROUND_TRIP(check_status, enum sc_check_status);
	ROUND_TRIP(decision, enum sc_decision);
	ROUND_TRIP(lift_decision, enum sc_lift_decision);
	ROUND_TRIP(lift_stop, enum sc_lift_stop);
	ROUND_TRIP(run_kind, enum sc_run_kind);
	ROUND_TRIP(judged, enum sc_judged);
	/* the documented names, spot-checked against docs/results-json.md */
	assert_string_equal(sc_verdict_name(SC_VERDICT_ERROR), "error");
	assert_string_equal(sc_variant_name(SC_VARIANT_HEAD_TESTS), "head_tests");
	assert_string_equal(sc_check_kind_name(SC_CHECK_CLAIM), "verdict_unverified");
	assert_string_equal(sc_kernel_verdict_name(SC_KV_COMPILE_FAILED), "compile_failed");
	assert_int_equal(SC_VARIANT_COUNT, 4);
	/* names are exact: no case folding, no prefixes */
	assert_false(sc_verdict_parse("PASS", &v));
	assert_false(sc_verdict_parse("passed", &v));
	assert_false(sc_variant_parse("head ", &var));
	assert_null(sc_state_table("no_such_table", &n));
	assert_int_equal(n, 0);
	{
		struct sc_buf b = SC_BUF_INIT;
		const char *const *names = sc_state_table("verdict", &n);
		sc_state_expected(&b, names, n);
		assert_string_equal(b.ptr, "pass, fail, unverified or error");
		sc_buf_release(&b);
	}
}
#undef ROUND_TRIP

/* One skill's failures, usage rows, checks and history rows are found by
 * bisection in the sorted model, in the order of their arrays; rows added
 * after the sort are still found (every row is then looked at). */
static void test_skill_ranges(void **state)
{
	static const char json[] =
		"{\"schema\": \"skillci.results/1\", \"skillci_version\": \"0.1.0\",\n"
		" \"run\": {\"id\": \"r\", \"kind\": \"run\", \"complete\": true, \"models\": [\"m\"],\n"
		"   \"usage\": [{\"skill\": \"skills/b\", \"model\": \"m\", \"tokens_in\": 1, \"tokens_out\": 1},\n"
		"             {\"skill\": \"skills/a\", \"model\": \"m\", \"tokens_in\": 2, \"tokens_out\": 2}]},\n"
		" \"skills\": [{\"path\": \"skills/a\"}, {\"path\": \"skills/b\"}, {\"path\": \"skills/c\"}],\n"
		" \"units\": [], \"aggregates\": [], \"comparisons\": [],\n"
		" \"gate\": {\"passed\": false, \"exit_code\": 1, \"failures\": [\n"
		"   {\"skill\": \"skills/b\", \"rule\": \"r1\", \"check\": \"tokens\"},\n"
		"   {\"skill\": \"skills/a\", \"rule\": \"r2\", \"check\": \"tests\"},\n"
		"   {\"skill\": \"skills/b\", \"rule\": \"r3\", \"check\": \"validity\"},\n"
		"   {\"skill\": \"\", \"rule\": \"r4\", \"check\": \"errors\"}],\n"
		"  \"checks\": [{\"skill\": \"skills/b\", \"model\": \"m\", \"check\": \"tokens\", \"status\": \"passed\"},\n"
		"             {\"skill\": \"skills/a\", \"model\": \"\", \"check\": \"tests\", \"status\": \"passed\"},\n"
		"             {\"skill\": \"skills/b\", \"model\": \"\", \"check\": \"validity\", \"status\": \"failed\"}]},\n"
		" \"history\": [{\"skill\": \"skills/b\", \"variant\": \"base\", \"model\": \"m\", \"test_id\": \"t\", \"runs\": 2, \"passes\": 1},\n"
		"             {\"skill\": \"skills/a\", \"variant\": \"base\", \"model\": \"m\", \"test_id\": \"t\", \"runs\": 2, \"passes\": 2}]}\n";
	struct sc_results r;
	size_t first, n;
	(void)state;

	assert_int_equal(sc_results_parse(&r, json, strlen(json), "x.json"), 0);
	sc_results_sort(&r);
	n = sc_results_failures_of(&r, "skills/b", &first);
	assert_int_equal(n, 2);
	assert_string_equal(sc_results_failure_at(&r, first)->rule, "r1");
	assert_string_equal(sc_results_failure_at(&r, first + 1)->rule, "r3");
	assert_int_equal(sc_results_failures_of(&r, "skills/c", &first), 0);
	n = sc_results_usage_of(&r, "skills/a", &first);
	assert_int_equal(n, 1);
	assert_int_equal(sc_results_usage_at(&r, first)->tokens_in, 2);
	n = sc_results_checks_range(&r, "skills/b", NULL, &first);
	assert_int_equal(n, 2);
	assert_int_equal(r.gate.checks[first].check, SC_CHECK_VALIDITY);  /* the whole skill's first */
	assert_int_equal(sc_results_checks_range(&r, "skills/b", "m", &first), 1);
	assert_int_equal(r.gate.checks[first].check, SC_CHECK_TOKENS);
	assert_non_null(sc_results_find_check(&r, "skills/a", "", SC_CHECK_TESTS));
	assert_null(sc_results_find_check(&r, "skills/a", "m", SC_CHECK_TESTS));
	n = sc_results_flips_range(&r, "skills/a", SC_VARIANT_BASE, "m", &first);
	assert_int_equal(n, 1);
	assert_int_equal(r.flips[first].passes, 2);

	/* a failure added after the sort: every row is looked at, none missed */
	r.gate.failures = sc_xrealloc(r.gate.failures, (r.gate.nfailures + 1) * sizeof(*r.gate.failures));
	memset(&r.gate.failures[r.gate.nfailures], 0, sizeof(*r.gate.failures));
	r.gate.failures[r.gate.nfailures].skill = sc_xstrdup("skills/c");
	r.gate.failures[r.gate.nfailures++].rule = sc_xstrdup("r5");
	n = sc_results_failures_of(&r, "skills/c", &first);
	assert_int_equal(n, r.gate.nfailures);
	{
		size_t found = 0;
		for (size_t k = first; k < first + n; k++)
			found += sc_streq(sc_results_failure_at(&r, k)->skill, "skills/c");
		assert_int_equal(found, 1);
	}
	sc_results_sort(&r);
	assert_int_equal(sc_results_failures_of(&r, "skills/c", &first), 1);
	assert_string_equal(sc_results_failure_at(&r, first)->rule, "r5");
	sc_results_release(&r);
}

/* Whether the tree v reads as cJSON's c does: the same types, strings,
 * numbers (bit for bit), member names and order. */
static bool same_tree(const struct sc_jdom_node *v, const cJSON *c)
{
	const struct sc_jdom_node *e;
	const cJSON *ce;

	if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
		if (v->type != (cJSON_IsObject(c) ? SC_JDOM_OBJECT : SC_JDOM_ARRAY) ||
		    v->n != (size_t)cJSON_GetArraySize(c))
			return false;
		for (e = v->child, ce = c->child; e && ce; e = e->next, ce = ce->next)
			if ((cJSON_IsObject(c) && strcmp(e->key, ce->string)) || !same_tree(e, ce))
				return false;
		return !e && !ce;
	}
	if (cJSON_IsString(c))
		return v->type == SC_JDOM_STRING && !strcmp(v->str, c->valuestring);
	if (cJSON_IsNumber(c))
		return v->type == SC_JDOM_NUMBER && !memcmp(&v->num, &c->valuedouble, sizeof(double));
	if (cJSON_IsTrue(c))
		return v->type == SC_JDOM_TRUE;
	if (cJSON_IsFalse(c))
		return v->type == SC_JDOM_FALSE;
	return v->type == SC_JDOM_NULL;
}

/*
 * The results reader's JSON tree (jdom.h) takes what cJSON takes, reads it
 * as cJSON does, ends where cJSON ends and fails where cJSON fails: on
 * documents skillci writes and on many thousand mutations of them (odd
 * escapes, surrogates, numbers, white space, NUL, truncation).
 */
static void test_jdom_reads_as_cjson(void **state)
{
	static const char *const seeds[] = {
		"{\"skill\": \"skills/a\", \"n\": 12, \"x\": -0, \"p\": 0.125, \"e\": 1e-7, \"E\": 2E+3,\n"
		" \"s\": \"tab\\there \\\"q\\\" \\\\ \\/ \\b\\f\\n\\r \\u00e9 \\u20ac \\ud83d\\ude00\",\n"
		" \"a\": [true, false, null, [], {}, [1, [2, {\"k\": \"v\"}]]], \"big\": 12345678901234567890}",
		"[1.5, -2, 3e400, 0.1, 123456789012345, 1234567890123456, \"\\u0041\\uD800\\uDC00\"]",
		"{\"a\":{\"b\":{\"c\":[\"d\",\"e\\u0001\"]}},\"dup\":1,\"dup\":2}",
	};
	static const char alphabet[] = "\"\\u0123456789abcdefABCDEF-+eE.,:{}[] \t\n\r\001\177ntrflsD\xc3\xa9";
	struct sc_jdom_arena *a = sc_jdom_arena_new();
	unsigned long seed = 42;
	char buf[512];
	(void)state;

	for (int round = 0; round < 30000; round++) {
		const char *src = seeds[round % SC_ARRAY_SIZE(seeds)];
		size_t n = strlen(src), len;
		const char *after = NULL, *at = NULL, *c_end = NULL;
		struct sc_jdom_node *v;
		cJSON *c;

		memcpy(buf, src, n);
		len = n;
		for (int m = 0; m < 1 + round % 4; m++) {
			size_t i;
			char ch;
			seed = seed * 6364136223846793005ul + 1442695040888963407ul;
			i = (size_t)(seed >> 33) % (len ? len : 1);
			ch = alphabet[(seed >> 17) % (sizeof(alphabet) - 1)];
			if ((seed >> 7) % 16 == 0)
				ch = '\0';
			switch ((seed >> 3) % 4) {
			case 0: buf[i] = ch; break;
			case 1: if (len + 1 < sizeof(buf)) { memmove(buf + i + 1, buf + i, len - i); buf[i] = ch; len++; } break;
			case 2: if (len) { memmove(buf + i, buf + i + 1, len - i - 1); len--; } break;
			default: if ((seed >> 40) % 8 == 0) len = i; break;
			}
		}
		sc_jdom_arena_reset(a);
		v = sc_jdom_parse(a, buf, len, &after, &at);
		c = cJSON_ParseWithLengthOpts(buf, len, &c_end, false);
		if (!c) {
			if (v || at != cJSON_GetErrorPtr())
				fail_msg("round %d: cJSON refuses what jdom %s: %.*s", round,
					 v ? "takes" : "refuses elsewhere", (int)len, buf);
			continue;
		}
		if (!v || !same_tree(v, c) || after != c_end)
			fail_msg("round %d: jdom reads otherwise than cJSON: %.*s", round, (int)len, buf);
		cJSON_Delete(c);
	}
	sc_jdom_arena_free(a);
}

/*
 * A formatted results document is what cJSON_Print writes for its tree,
 * byte for byte, units printed straight (results_write.c) included: odd
 * numbers (-0, thirds, ints beyond 32 bits, tiny and huge), escapes,
 * control characters, UTF-8, kernels with flags and without.
 */
static void test_format_is_cjson_print(void **state)
{
	static const char json[] =
		"{\"schema\": \"skillci.results/1\", \"run\": {\"id\": \"r\", \"kind\": \"run\", \"complete\": true},\n"
		" \"units\": [\n"
		"  {\"skill\": \"s\", \"variant\": \"head\", \"model\": \"m\", \"test_id\": \"t\", \"verdict\": \"pass\",\n"
		"   \"judge_score\": -0.0, \"tokens_in\": 5000000000, \"tokens_out\": -2147483648, \"turns\": 2147483647,\n"
		"   \"message\": \"q\\\" b\\\\ \\b\\f\\n\\r\\t \\u0001 \\u007f \\u00e9 /\", \"excerpt\": \"\",\n"
		"   \"kernel\": {\"speedup\": 0.33333333333333331, \"candidate_ms\": 1e-300, \"baseline_ms\": 1e300,\n"
		"              \"max_abs_error\": 0.1, \"pct_of_peak\": 2147483648, \"flags\": [\"a\", \"b\\\"\"]}},\n"
		"  {\"skill\": \"s\", \"variant\": \"base\", \"model\": \"m\", \"test_id\": \"t\", \"verdict\": \"fail\",\n"
		"   \"judge_score\": 123456.789, \"kernel\": {\"flags\": []}, \"hashes\": {\"test\": \"ab\"}},\n"
		"  {\"skill\": \"s\", \"variant\": \"base\", \"model\": \"m\", \"test_id\": \"u\", \"verdict\": \"error\",\n"
		"   \"latency_ms\": -7, \"judge_score\": 7.0, \"trigger\": \"should_trigger\", \"kind\": \"trigger\"}],\n"
		" \"aggregates\": [\n"
		"  {\"skill\": \"s\", \"variant\": \"head\", \"model\": \"m\", \"n\": 3, \"pass_rate\": 0.33333333333333331,\n"
		"   \"ci_low\": null, \"judge_mean\": -0.0, \"speedup_geomean\": 1e300,\n"
		"   \"triggers\": {\"should\": 2, \"opened\": 1, \"should_not\": 0, \"opened_wrongly\": 0}},\n"
		"  {\"skill\": \"s\", \"variant\": \"base\", \"model\": \"m\", \"n\": 0}],\n"
		" \"comparisons\": [\n"
		"  {\"skill\": \"s\", \"model\": \"m\", \"from\": \"base\", \"to\": \"head\", \"p_value\": 0.125,\n"
		"   \"significant\": true, \"is_beneficial\": null, \"pass_rate_delta\": -0.1},\n"
		"  {\"skill\": \"s\", \"model\": \"m\", \"from\": \"baseline\", \"to\": \"head\", \"is_beneficial\": false}],\n"
		" \"gate\": {\"passed\": false, \"exit_code\": 1, \"verdict\": \"fail\", \"checks\": [\n"
		"  {\"skill\": \"s\", \"model\": \"m\", \"check\": \"pass_rate\", \"status\": \"failed\", \"accepted\": true,\n"
		"   \"rule\": \"pass_rate_drop\", \"message\": \"tab\\there\", \"line\": 4,\n"
		"   \"margin\": {\"mean\": -0.25, \"lo\": -0.5, \"hi\": 0.1, \"tests\": 4, \"runs\": {\"base\": 8, \"head\": 8},\n"
		"              \"rounds\": 2, \"decision\": \"regression\", \"llr\": 2.5, \"i_max\": 41.25}},\n"
		"  {\"skill\": \"s\", \"model\": \"\", \"check\": \"validity\", \"status\": \"passed\"}]},\n"
		" \"history\": [\n"
		"  {\"skill\": \"s\", \"variant\": \"head\", \"model\": \"m\", \"test_id\": \"t\", \"runs\": 3,\n"
		"   \"passes\": 1, \"flip_rate\": 0.66666666666666663},\n"
		"  {\"skill\": \"s\", \"variant\": \"base\", \"model\": \"m\", \"test_id\": \"u\", \"runs\": 1,\n"
		"   \"passes\": 0, \"flip_rate\": null}]}";
	struct sc_results r;
	struct sc_buf out = SC_BUF_INIT;
	cJSON *tree;
	char *again;
	(void)state;

	assert_int_equal(sc_results_parse(&r, json, strlen(json), "f.json"), 0);
	assert_true(r.untrusted);  /* parsed: written unsigned */
	sc_results_format(&out, &r);
	assert_non_null(tree = cJSON_Parse(out.ptr));
	assert_non_null(again = cJSON_Print(tree));
	assert_true(out.len > 0 && out.ptr[out.len - 1] == '\n');
	out.ptr[--out.len] = '\0';
	assert_string_equal(again, out.ptr);
	assert_non_null(strstr(out.ptr, "\"judge_score\":\t-0,"));
	/* the aggregates, comparisons and checks printed directly too */
	assert_non_null(strstr(out.ptr, "\"triggers\":\t{\n"));
	assert_non_null(strstr(out.ptr, "\"recall\":\t0.5,"));
	assert_non_null(strstr(out.ptr, "\"is_beneficial\":\tnull\n"));
	assert_non_null(strstr(out.ptr, "\"is_beneficial\":\tfalse\n"));
	assert_non_null(strstr(out.ptr, "\"accepted\":\ttrue,"));
	assert_non_null(strstr(out.ptr, "\"runs\":\t{\n"));
	assert_non_null(strstr(out.ptr, "\"i_max\":\t41.25,"));
	assert_non_null(strstr(out.ptr, "\"message\":\t\"tab\\there\","));
	/* and the history */
	assert_non_null(strstr(out.ptr, "\"flip_rate\":\t0.66666666666666663\n"));
	assert_non_null(strstr(out.ptr, "\"flip_rate\":\tnull\n"));
	cJSON_free(again);
	cJSON_Delete(tree);
	sc_buf_release(&out);
	sc_results_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_reads_fields_and_nulls),
		cmocka_unit_test(test_excerpt_bounded_and_round_trip),
		cmocka_unit_test(test_strong_reference_round_trip),
		cmocka_unit_test(test_parse_errors_name_file_and_path),
		cmocka_unit_test(test_minor_version_is_accepted),
		cmocka_unit_test(test_resolved_models),
		cmocka_unit_test(test_format_sorts_and_is_stable),
		cmocka_unit_test(test_signature),
		cmocka_unit_test(test_save_is_format_signed),
		cmocka_unit_test(test_skill_ranges),
		cmocka_unit_test(test_load_names_missing_file),
		cmocka_unit_test(test_state_tables_round_trip),
		cmocka_unit_test(test_jdom_reads_as_cjson),
		cmocka_unit_test(test_format_is_cjson_print),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
