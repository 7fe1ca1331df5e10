/* Unit tests for the gate (runner/gate.c): each rule of DESIGN.md's
 * default gate, on results built by hand, with thresholds from config. */
#include "unit.h"
#include "pipeline/config.h"
#include "pipeline/gate.h"
#include "results/results.h"

#include <math.h>

static void add_skill(struct sc_results *r, const char *path, const char *status, bool untested)
{
	struct sc_results_skill *s;

	r->skills = sc_xrealloc(r->skills, (r->nskills + 1) * sizeof(*r->skills));
	s = &r->skills[r->nskills++];
	memset(s, 0, sizeof(*s));
	s->path = sc_xstrdup(path);
	s->name = sc_xstrdup(path);
	s->status = sc_xstrdup(status);
	s->untested = untested;
}

/* An aggregate with pass rate passed/n; tokens, speedup, judge NAN unless given. */
static struct sc_results_aggregate *add_agg(struct sc_results *r, const char *skill,
					    const char *variant, int passed, int n)
{
	struct sc_results_aggregate *a;

	r->aggregates = sc_xrealloc(r->aggregates, (r->naggregates + 1) * sizeof(*r->aggregates));
	a = &r->aggregates[r->naggregates++];
	sc_results_aggregate_init(a);
	a->skill = sc_xstrdup(skill);
	a->variant = sc_xstrdup(variant);
	a->model = sc_xstrdup("m");
	a->n = n;
	a->passed = passed;
	a->failed = n - passed;
	a->pass_rate = n ? (double)passed / n : NAN;
	a->mean_tokens = 100;
	return a;
}

static void add_cmp(struct sc_results *r, const char *skill, double p)
{
	struct sc_results_comparison *c;

	r->comparisons = sc_xrealloc(r->comparisons, (r->ncomparisons + 1) * sizeof(*r->comparisons));
	c = &r->comparisons[r->ncomparisons++];
	sc_results_comparison_init(c);
	c->skill = sc_xstrdup(skill);
	c->model = sc_xstrdup("m");
	c->from = sc_xstrdup("base");
	c->to = sc_xstrdup("head");
	c->paired_n = 20;
	c->p_value = p;
}

static void add_units(struct sc_results *r, int n, int errors)
{
	r->units = sc_xcalloc((size_t)n, sizeof(*r->units));
	r->nunits = (size_t)n;
	for (int i = 0; i < n; i++) {
		sc_results_unit_init(&r->units[i]);
		r->units[i].verdict = sc_xstrdup(i < errors ? "error" : "pass");
	}
}

static bool has_rule(const struct sc_results *r, const char *skill, const char *rule)
{
	for (size_t i = 0; i < r->gate.nfailures; i++)
		if (!strcmp(r->gate.failures[i].skill, skill) && !strcmp(r->gate.failures[i].rule, rule))
			return true;
	return false;
}

static struct sc_config_gate defaults(void)
{
	struct sc_config cfg;
	struct sc_config_gate g;

	sc_config_defaults(&cfg);
	g = cfg.gate;
	sc_config_release(&cfg);
	return g;
}

static void test_improvement_passes(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = defaults();
	(void)state;

	sc_results_init(&r);
	add_skill(&r, "s", "modified", false);
	add_agg(&r, "s", "base", 5, 10);
	add_agg(&r, "s", "head", 10, 10);
	add_cmp(&r, "s", 0.06);
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_true(r.gate.passed);
	assert_int_equal(r.gate.nfailures, 0);
	assert_true(r.skills[0].gate_passed);
	sc_results_release(&r);
}

/* A 50-point drop fails by points; raising the threshold above it passes. */
static void test_pass_rate_drop_by_points(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = defaults();
	(void)state;

	sc_results_init(&r);
	add_skill(&r, "s", "modified", false);
	add_agg(&r, "s", "base", 4, 4);
	add_agg(&r, "s", "head", 2, 4);
	add_cmp(&r, "s", 0.5);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "s", "pass_rate_drop"));
	assert_false(r.skills[0].gate_passed);
	assert_int_equal(r.skills[0].ngate_reasons, 1);
	assert_non_null(strstr(r.skills[0].gate_reasons[0], "100% to 50%"));
	g.pass_rate_drop_points = 60;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_true(r.skills[0].gate_passed);
	assert_int_equal(r.skills[0].ngate_reasons, 0);
	sc_results_release(&r);
}

/* A drop within the points but significant (p < alpha) still fails. */
static void test_significant_drop(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = defaults();
	(void)state;

	g.pass_rate_drop_points = 50;
	sc_results_init(&r);
	add_skill(&r, "s", "modified", false);
	add_agg(&r, "s", "base", 95, 100);
	add_agg(&r, "s", "head", 80, 100);
	add_cmp(&r, "s", 0.001);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "s", "pass_rate_significant_drop"));
	g.alpha = 0.0001;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	sc_results_release(&r);
}

/* Tokens up 50%: a failure with a flat pass rate, none with a better one. */
static void test_tokens_rise(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = defaults();
	(void)state;

	sc_results_init(&r);
	add_skill(&r, "flat", "modified", false);
	add_agg(&r, "flat", "base", 8, 10);
	add_agg(&r, "flat", "head", 8, 10)->mean_tokens = 150;
	add_skill(&r, "better", "modified", false);
	add_agg(&r, "better", "base", 5, 10);
	add_agg(&r, "better", "head", 9, 10)->mean_tokens = 150;
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "flat", "tokens_rise"));
	assert_false(has_rule(&r, "better", "tokens_rise"));
	assert_int_equal(r.gate.nfailures, 1);
	g.tokens_rise_pct = 60;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	sc_results_release(&r);
}

static void test_speedup_and_judge_drop(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = defaults();
	struct sc_results_aggregate *a;
	(void)state;

	sc_results_init(&r);
	add_skill(&r, "k", "modified", false);
	a = add_agg(&r, "k", "base", 4, 4);
	a->speedup_geomean = 2.0;
	a->judge_mean = 0.9;
	a = add_agg(&r, "k", "head", 4, 4);
	a->speedup_geomean = 1.5;  /* ratio 0.75 < 0.9 */
	a->judge_mean = 0.7;       /* down 0.2 > 0.1 */
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "k", "speedup_drop"));
	assert_true(has_rule(&r, "k", "judge_drop"));
	g.speedup_drop_ratio = 0.3;
	g.judge_drop = 0.25;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	sc_results_release(&r);
}

/* A new skill: below no skill fails; level at 100% passes (no room to
 * improve); level below 100% fails unless it saves tokens; require_lift
 * off turns the rule off. */
static void test_new_skill_must_beat_no_skill(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = defaults();
	(void)state;

	sc_results_init(&r);
	add_skill(&r, "worse", "added", false);
	add_agg(&r, "worse", "baseline", 3, 4);
	add_agg(&r, "worse", "head", 2, 4);
	add_skill(&r, "top", "added", false);
	add_agg(&r, "top", "baseline", 4, 4);
	add_agg(&r, "top", "head", 4, 4);
	add_skill(&r, "level", "added", false);
	add_agg(&r, "level", "baseline", 2, 4);
	add_agg(&r, "level", "head", 2, 4);
	add_skill(&r, "cheaper", "added", false);
	add_agg(&r, "cheaper", "baseline", 2, 4);
	add_agg(&r, "cheaper", "head", 2, 4)->mean_tokens = 50;
	add_skill(&r, "lift", "added", false);
	add_agg(&r, "lift", "baseline", 1, 4);
	add_agg(&r, "lift", "head", 3, 4);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "worse", "new_skill_no_better"));
	assert_true(has_rule(&r, "level", "new_skill_no_better"));
	assert_int_equal(r.gate.nfailures, 2);
	g.require_lift = false;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	sc_results_release(&r);
}

/* Deleted and untested skills are not judged, whatever their numbers. */
static void test_deleted_and_untested_pass(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = defaults();
	(void)state;

	sc_results_init(&r);
	add_skill(&r, "gone", "deleted", false);
	add_agg(&r, "gone", "base", 4, 4);
	add_agg(&r, "gone", "head", 0, 4);
	add_skill(&r, "none", "added", true);
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_true(r.gate.passed);
	sc_results_release(&r);
}

/* Infrastructure errors over the share exit 3, and win over a regression. */
static void test_error_share_exits_3(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = defaults();
	(void)state;

	sc_results_init(&r);
	add_skill(&r, "s", "modified", false);
	add_agg(&r, "s", "base", 4, 4);
	add_agg(&r, "s", "head", 0, 4);
	add_units(&r, 10, 2);
	assert_int_equal(sc_gate_apply(&r, &g), 3);
	assert_true(has_rule(&r, "", "error_share"));
	assert_true(has_rule(&r, "s", "pass_rate_drop"));
	assert_true(fabs(r.gate.error_share - 0.2) < 1e-12);
	assert_int_equal(r.gate.exit_code, 3);
	g.error_share = 0.2;  /* exactly at the share: not over it */
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	sc_results_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_improvement_passes),
		cmocka_unit_test(test_pass_rate_drop_by_points),
		cmocka_unit_test(test_significant_drop),
		cmocka_unit_test(test_tokens_rise),
		cmocka_unit_test(test_speedup_and_judge_drop),
		cmocka_unit_test(test_new_skill_must_beat_no_skill),
		cmocka_unit_test(test_deleted_and_untested_pass),
		cmocka_unit_test(test_error_share_exits_3),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
