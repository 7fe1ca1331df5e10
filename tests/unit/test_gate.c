/* Unit tests for the gate (runner/pipeline/gate.c): each rule of DESIGN.md's
 * default gate, on results built by hand, with thresholds from config. */
#include "unit.h"
#include "states.h"
#include "diag.h"
#include "pipeline/config.h"
#include "pipeline/findings.h"
#include "pipeline/gate.h"
#include "results/compare.h"
#include "results/results.h"

#include <math.h>

static struct sc_results_skill *add_skill(struct sc_results *r, const char *path,
					  const char *status, bool untested)
{
	struct sc_results_skill *s;

	r->skills = sc_xrealloc(r->skills, (r->nskills + 1) * sizeof(*r->skills));
	s = &r->skills[r->nskills++];
	memset(s, 0, sizeof(*s));
	s->path = sc_xstrdup(path);
	s->name = sc_xstrdup(path);
	s->status = t_skill_status(status);
	s->untested = untested;
	return s;
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
	a->variant = t_variant(variant);
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
	c->from = SC_VARIANT_BASE;
	c->to = SC_VARIANT_HEAD;
	c->paired_n = 20;
	c->p_value = p;
}

/*
 * Appends the units of ntests tests of skill at variant (model "m"), runs
 * runs each: test t passes in passes[t] of them (every run when passes
 * is NULL and all is true, none when all is false).
 */
static void add_runs(struct sc_results *r, const char *skill, const char *variant, int ntests,
		     int runs, const int *passes, bool all)
{
	size_t n = r->nunits + (size_t)(ntests * runs);

	r->units = sc_xrealloc(r->units, n * sizeof(*r->units));
	for (int t = 0; t < ntests; t++)
		for (int k = 0; k < runs; k++) {
			struct sc_results_unit *u = &r->units[r->nunits++];
			char id[32];
			bool pass = passes ? k < passes[t] : all;
			sc_results_unit_init(u);
			snprintf(id, sizeof(id), "t%d", t);
			u->skill = sc_xstrdup(skill);
			u->variant = t_variant(variant);
			u->model = sc_xstrdup("m");
			u->test_id = sc_xstrdup(id);
			u->run_index = k;
			u->kind = SC_KIND_TEXT;
			u->verdict = t_unit_verdict(pass ? "pass" : "fail");
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

/* The defaults with a fixed design (`--runs N`): one look on every unit. */
static struct sc_config_gate fixed(void)
{
	struct sc_config_gate g = defaults();

	g.max_runs = 0;
	return g;
}

/* A modified skill that improves: a drop of D or more is ruled out (a
 * fixed design of one run: mean +50 points, se 0.262, (15 + 50) / 26.2 =
 * 2.5 > z(0.8)). */
static void test_improvement_passes(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = fixed();
	(void)state;

	sc_results_init(&r);
	r.run.runs = 1;
	add_skill(&r, "s", "modified", false);
	add_agg(&r, "s", "base", 5, 10);
	add_agg(&r, "s", "head", 10, 10);
	add_cmp(&r, "s", 0.06);
	{
		static const int half[10] = { 1, 1, 1, 1, 1, 0, 0, 0, 0, 0 };
		add_runs(&r, "s", "base", 10, 1, half, false);
		add_runs(&r, "s", "head", 10, 1, NULL, true);
	}
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_true(r.gate.passed);
	assert_int_equal(r.gate.verdict, SC_VERDICT_PASS);
	assert_int_equal(r.gate.nfailures, 0);
	assert_true(r.skills[0].gate_passed);
	assert_int_equal(sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE)->status, SC_STATUS_PASSED);
	assert_non_null(strstr(sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE)->message,
			       "no drop of 15 points or more (one that size is caught with probability "
			       "0.8)"));
	assert_non_null(strstr(sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE)->message,
			       "fixed design of 1 run per test"));
	sc_results_release(&r);
}

/*
 * Half of 20 tests broken at head (3 runs each), decided sequentially:
 * look 1 (one run) is open, look 2 shows the drop (sequential.h, by hand
 * in test_sequential). With m 60 and D 95 points the same 50-point drop
 * is a drop of D or more ruled out: passed.
 */
static void test_pass_rate_drop(void **state)
{
	static const int half[20] = { 3, 3, 3, 3, 3, 3, 3, 3, 3, 3 };
	struct sc_results r;
	struct sc_config_gate g = defaults();
	const struct sc_results_check *c;
	(void)state;

	sc_results_init(&r);
	add_skill(&r, "s", "modified", false);
	add_agg(&r, "s", "base", 60, 60);
	add_agg(&r, "s", "head", 30, 60);
	add_cmp(&r, "s", 0.5);
	add_runs(&r, "s", "base", 20, 3, NULL, true);
	add_runs(&r, "s", "head", 20, 3, half, false);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "s", "pass_rate_drop"));
	assert_int_equal(r.gate.verdict, SC_VERDICT_FAIL);
	assert_false(r.skills[0].gate_passed);
	assert_int_equal(r.skills[0].ngate_reasons, 1);
	assert_non_null(strstr(r.skills[0].gate_reasons[0], "100% -> 50%: a drop is shown"));
	assert_non_null(strstr(r.skills[0].gate_reasons[0], "difference -50.0 points"));
	c = sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE);
	assert_int_equal(c->margin.rounds, 2);
	g.pass_rate_drop_points = 60;
	g.regression_points = 95;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_true(r.skills[0].gate_passed);
	assert_int_equal(r.skills[0].ngate_reasons, 0);
	c = sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE);
	assert_int_equal(c->status, SC_STATUS_PASSED);
	assert_non_null(strstr(c->message, "no drop of 95 points or more"));
	sc_results_release(&r);
}

/*
 * A raw drop of 20 points that noise explains (10 tests, one run, two
 * tests flipped) neither shows a drop nor rules out one of 15 points
 * (fixed design: se 0.224, 0.2 / 0.224 = 0.89 < z(0.96); (0.15 - 0.2) /
 * 0.224 < z(0.8)): unverified, never green. It blocks the merge unless
 * the trusted config accepts unverified checks; the verdict stays
 * unverified either way. The sequential design with no run after the
 * first says the same, and why: it stopped.
 */
static void test_noise_is_unverified(void **state)
{
	static const int base[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 0, 0 };
	static const int head[10] = { 1, 1, 1, 1, 1, 1, 0, 0, 0, 0 };
	struct sc_results r;
	struct sc_config_gate g = fixed();
	const struct sc_results_check *c;
	(void)state;

	sc_results_init(&r);
	r.run.runs = 1;
	add_skill(&r, "s", "modified", false);
	add_agg(&r, "s", "base", 8, 10);
	add_agg(&r, "s", "head", 6, 10);
	add_cmp(&r, "s", 0.001);  /* whatever the unit-level comparison says */
	add_runs(&r, "s", "base", 10, 1, base, false);
	add_runs(&r, "s", "head", 10, 1, head, false);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_int_equal(r.gate.verdict, SC_VERDICT_UNVERIFIED);
	assert_int_equal(r.gate.unverified, 1);
	assert_int_equal(r.gate.nfailures, 1);
	assert_int_equal(r.gate.failures[0].status, SC_STATUS_UNVERIFIED);
	c = sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE);
	assert_int_equal(c->status, SC_STATUS_UNVERIFIED);
	assert_non_null(strstr(c->message, "neither a drop nor the absence of a drop of 15 points"));
	g.accept_unverified = true;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_int_equal(r.gate.verdict, SC_VERDICT_UNVERIFIED);
	assert_true(r.gate.passed);
	assert_int_equal(r.gate.nfailures, 0);
	assert_true(sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE)->accepted);
	/* the run recorded a sequential design: its one round is a design
	 * cut short */
	g = defaults();
	r.run.trust.gate.present = true;
	r.run.trust.gate.max_runs = g.max_runs;
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	c = sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE);
	assert_int_equal(c->status, SC_STATUS_UNVERIFIED);
	assert_non_null(strstr(c->message, "the run was stopped or its budget ran out"));
	sc_results_release(&r);
}

/*
 * The PR's checks share alpha (Bonferroni): 3 of 20 tests broken and a
 * fourth half broken (2 runs each, fixed design): mean -17.5 points; the
 * tests' variances sum to 3 x 1/3 + 1/4 + 16 x 5/36 = 3.472, capped at
 * .863274 x .136726 x 20 = 2.3606 (73 passes of 80, the 80% Wilson
 * interval's lower end .863274), se sqrt(2.3606) / 20 = .07682, 2.28
 * standard errors: shown at alpha .04 (z 1.75) and at .02 over two
 * checks (z 2.05), not at .004 over ten (z 2.65), where a drop of 15 is
 * not ruled out either: unverified.
 */
static void test_alpha_over_checks(void **state)
{
	static const int three_broken[20] = { 0, 0, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 };
	struct sc_results r;
	struct sc_config_gate g = fixed();
	(void)state;

	sc_results_init(&r);
	r.run.runs = 2;
	add_skill(&r, "s", "modified", false);
	add_agg(&r, "s", "base", 40, 40);
	add_agg(&r, "s", "head", 33, 40);
	add_runs(&r, "s", "base", 20, 2, NULL, true);
	add_runs(&r, "s", "head", 20, 2, three_broken, false);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "s", "pass_rate_drop"));
	add_skill(&r, "t", "modified", false);
	add_agg(&r, "t", "base", 40, 40);
	add_agg(&r, "t", "head", 40, 40);
	add_runs(&r, "t", "base", 20, 2, NULL, true);
	add_runs(&r, "t", "head", 20, 2, NULL, true);
	r.sorted = false;
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "s", "pass_rate_drop"));
	assert_non_null(strstr(sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE)->message,
			       "alpha 0.02 over 2 checks"));
	g.planned_checks = 10;
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_false(has_rule(&r, "s", "pass_rate_drop"));
	assert_int_equal(sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE)->status, SC_STATUS_UNVERIFIED);
	assert_non_null(strstr(sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE)->message,
			       "alpha 0.004 over 10 checks"));
	sc_results_release(&r);
}

static const struct sc_results_check *check_of(const struct sc_results *r, const char *skill,
					       const char *model, const char *check);

/*
 * Sets, on the units of skill at variant, the measured values: tokens
 * (tokens_in), a kernel speedup (a passed kernel unit) or a judge score,
 * each value + jitter x (-1)^run (so a test's replicates differ and their
 * mean is the value); what is NAN or 0 is left alone.
 */
static void set_values(struct sc_results *r, const char *skill, const char *variant,
		       double tokens, double speedup, double judge, double jitter)
{
	for (size_t i = 0; i < r->nunits; i++) {
		struct sc_results_unit *u = &r->units[i];
		double j = (u->run_index % 2 ? 1 : -1) * jitter;
		if (strcmp(u->skill, skill) || u->variant != t_variant(variant))
			continue;
		if (tokens > 0)
			u->tokens_in = (int64_t)(tokens + j * tokens);
		if (!isnan(speedup)) {
			if (!u->kernel) {
				u->kernel = sc_xcalloc(1, sizeof(*u->kernel));
				sc_results_kernel_init(u->kernel);
			}
			u->kernel->speedup = speedup * (1 + j);
		}
		if (!isnan(judge))
			u->judge_score = judge + j;
	}
}

/*
 * Tokens up 50% on every test (2 runs, 1% apart): shown, a failure with a
 * flat pass rate; none with a better one; a limit of 60% rules it out. The
 * same 50% rise in the means from one run of two tests that disagree
 * (+0% and +100%) cannot be told from noise: inconclusive, no failure.
 */
static void test_tokens_rise(void **state)
{
	static const int half[10] = { 1, 1, 1, 1, 1, 0, 0, 0, 0, 0 };
	static const int most[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 0 };
	struct sc_results r;
	struct sc_config_gate g = fixed();
	(void)state;

	sc_results_init(&r);
	r.run.runs = 2;
	add_skill(&r, "flat", "modified", false);
	add_agg(&r, "flat", "base", 20, 20);
	add_agg(&r, "flat", "head", 20, 20)->mean_tokens = 150;
	add_runs(&r, "flat", "base", 10, 2, NULL, true);
	add_runs(&r, "flat", "head", 10, 2, NULL, true);
	set_values(&r, "flat", "base", 100, NAN, NAN, 0.01);
	set_values(&r, "flat", "head", 150, NAN, NAN, 0.01);
	add_skill(&r, "better", "modified", false);
	add_agg(&r, "better", "base", 5, 10);
	add_agg(&r, "better", "head", 9, 10)->mean_tokens = 150;
	add_runs(&r, "better", "base", 10, 1, half, false);
	add_runs(&r, "better", "head", 10, 1, most, false);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "flat", "tokens_rise"));
	assert_false(has_rule(&r, "better", "tokens_rise"));
	assert_int_equal(r.gate.nfailures, 1);
	assert_non_null(strstr(check_of(&r, "flat", "m", "tokens")->message,
			       "geometric-mean tokens per test, paired: +49.5%"));  /* 148 or 151 over 99 or 101 */
	assert_non_null(strstr(check_of(&r, "flat", "m", "tokens")->message,
			       "over 10 tests; a regression shown at alpha 0.01 (Holm over 1 token, speedup "
			       "and judge check)"));
	assert_int_equal(check_of(&r, "better", "m", "tokens")->status, SC_STATUS_PASSED);
	g.tokens_rise_pct = 60;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_int_equal(check_of(&r, "flat", "m", "tokens")->status, SC_STATUS_PASSED);
	assert_non_null(strstr(check_of(&r, "flat", "m", "tokens")->message, "is ruled out"));
	sc_results_release(&r);

	sc_results_init(&r);
	g = fixed();
	g.accept_unverified = true;  /* two tests cannot decide the pass rate either */
	add_skill(&r, "noisy", "modified", false);
	add_agg(&r, "noisy", "base", 2, 2);
	add_agg(&r, "noisy", "head", 2, 2)->mean_tokens = 150;
	add_runs(&r, "noisy", "base", 2, 1, NULL, true);
	add_runs(&r, "noisy", "head", 2, 1, NULL, true);
	set_values(&r, "noisy", "base", 100, NAN, NAN, 0);
	r.units[2].tokens_in = 100;   /* head t0: +0% */
	r.units[3].tokens_in = 200;   /* head t1: +100% */
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_int_equal(check_of(&r, "noisy", "m", "tokens")->status, SC_STATUS_SKIPPED);
	assert_non_null(strstr(check_of(&r, "noisy", "m", "tokens")->message, "inconclusive"));
	sc_results_release(&r);
}


/*
 * Speedup 2.0x -> 1.5x and judge 0.9 -> 0.7 on each of 8 tests, 2 runs 2%
 * apart: both shown, both fail; wider limits rule them out. A fall over
 * the strong references alone does not fail it: the gate compares the
 * naive baselines and says so.
 */
static void test_speedup_and_judge_drop(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = fixed();
	struct sc_results_aggregate *a;
	(void)state;

	sc_results_init(&r);
	r.run.runs = 2;
	add_skill(&r, "k", "modified", false);
	a = add_agg(&r, "k", "base", 8, 8);
	a->speedup_geomean = 2.0;
	a->judge_mean = 0.9;
	a = add_agg(&r, "k", "head", 8, 8);
	a->speedup_geomean = 1.5;  /* ratio 0.75 < 0.9 */
	a->judge_mean = 0.7;       /* down 0.2 > 0.1 */
	add_runs(&r, "k", "base", 8, 2, NULL, true);
	add_runs(&r, "k", "head", 8, 2, NULL, true);
	set_values(&r, "k", "base", 100, 2.0, 0.9, 0.02);
	set_values(&r, "k", "head", 100, 1.5, 0.7, 0.02);
	r.aggregates[0].strong_speedup_geomean = 0.5;
	a->strong_speedup_geomean = 0.75;
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "k", "speedup_drop"));
	assert_true(has_rule(&r, "k", "judge_drop"));
	{
		const struct sc_results_check *c = check_of(&r, "k", "m", "speedup");
		assert_non_null(c);
		assert_int_equal(c->status, SC_STATUS_FAILED);
		assert_non_null(strstr(c->message, "over the fixtures' naive baselines (geomean, what the gate "
					       "compares) fell from 2.00x to 1.50x"));
		assert_non_null(strstr(c->message, "; over the strong references (shown, not gated) 0.50x -> 0.75x"));
		assert_non_null(strstr(c->message, "speedup per test, paired: -25.0%"));
	}
	g.speedup_drop_ratio = 0.3;
	g.judge_drop = 0.25;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_int_equal(check_of(&r, "k", "m", "speedup")->status, SC_STATUS_PASSED);
	assert_int_equal(check_of(&r, "k", "m", "judge")->status, SC_STATUS_PASSED);
	/* a fall over the strong references alone does not fail it */
	set_values(&r, "k", "head", 0, 2.0, NAN, 0.02);
	r.aggregates[0].speedup_geomean = 2.0;
	r.aggregates[0].strong_speedup_geomean = 2.0;
	a->speedup_geomean = 2.0;
	a->strong_speedup_geomean = 0.25;
	g.speedup_drop_ratio = 0.1;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_int_equal(check_of(&r, "k", "m", "speedup")->status, SC_STATUS_PASSED);
	assert_non_null(strstr(check_of(&r, "k", "m", "speedup")->message, "2.00x -> 0.25x"));
	sc_results_release(&r);
}

/*
 * A PR that changes nothing, with noisy measured values (every unit's
 * tokens, speedup and judge score drawn around the same mean at base and
 * head, 30% spread; 10 tests, one run): over 400 seeded PRs the gate
 * fails at most a few, where comparing the raw means against the limits
 * failed a fifth of them (the raw rule is counted beside it).
 */
static void test_measured_values_no_change(void **state)
{
	struct sc_config_gate g = fixed();
	uint64_t x = 0x2545f4914f6cdd1dull;
	int failed = 0, raw = 0;
	(void)state;

	/* one run of ten tests cannot decide the pass rate: accepted, so the
	 * exit code is the measured-value checks' */
	g.accept_unverified = true;
	for (int pr = 0; pr < 400; pr++) {
		struct sc_results r;
		double tb = 0, th = 0, sb = 0, sh = 0;
		sc_results_init(&r);
		add_skill(&r, "s", "modified", false);
		add_agg(&r, "s", "base", 10, 10);
		add_agg(&r, "s", "head", 10, 10);
		add_runs(&r, "s", "base", 10, 1, NULL, true);
		add_runs(&r, "s", "head", 10, 1, NULL, true);
		for (size_t i = 0; i < r.nunits; i++) {
			struct sc_results_unit *u = &r.units[i];
			double e[3];
			for (int k = 0; k < 3; k++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				e[k] = ((double)(x >> 11) / 9007199254740992.0 - 0.5) * 0.6 * sqrt(12) / 2;
			}
			u->tokens_in = (int64_t)(1000 * (1 + e[0]));
			u->kernel = sc_xcalloc(1, sizeof(*u->kernel));
			sc_results_kernel_init(u->kernel);
			u->kernel->speedup = 2.0 * (1 + e[1]);
			u->judge_score = 0.6 * (1 + e[2]);
			if (u->variant == SC_VARIANT_BASE)
				tb += (double)u->tokens_in, sb += log(u->kernel->speedup);
			else
				th += (double)u->tokens_in, sh += log(u->kernel->speedup);
		}
		r.aggregates[0].mean_tokens = tb / 10;
		r.aggregates[1].mean_tokens = th / 10;
		r.aggregates[0].speedup_geomean = exp(sb / 10);
		r.aggregates[1].speedup_geomean = exp(sh / 10);
		r.aggregates[0].judge_mean = r.aggregates[1].judge_mean = 0.6;
		failed += sc_gate_apply(&r, &g) != 0;
		raw += th > 1.2 * tb || exp((sh - sb) / 10) < 0.9;
		sc_results_release(&r);
	}
	assert_true(failed <= 8);   /* alpha 0.05 over all checks; 400 PRs */
	assert_true(raw >= 40);     /* the raw limits fail on noise */
}

/*
 * A new skill against no skill, decided as a pass rate is (fixed design,
 * 10 tests x 2 runs, the baseline as the base). "worse" fails every run
 * where no skill passes one of two: -50 points, se .158, shown. "lift"
 * passes everything no skill fails: worse by 15 ruled out. "level" (one
 * of two runs on each side) neither shows it worse nor rules out 15
 * points worse (se .183: (15 - 0) / 18.3 = 0.82 < z(0.8)): unverified,
 * and so is "cheaper", the same with fewer tokens (tokens decide nothing
 * alone). "noise", 4 tests one run with a single test flipped: unverified,
 * not failed. "top" passes, but a full baseline fails discrimination;
 * require_lift off turns the lift rule off, not discrimination. A test no
 * answer passes, with the skill or without, is left out of
 * discrimination: "noise" has one, so its baseline passes 3 of the 3 that
 * count, over a 50% limit; "impossible", whose tests nobody passes, has
 * none that count and fails.
 */
static void test_new_skill_against_no_skill(void **state)
{
	static const int one[10] = { 1, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	static const int three[4] = { 1, 1, 1, 0 }, two[4] = { 1, 1, 0, 0 };
	struct sc_results r;
	struct sc_config_gate g = fixed();
	(void)state;

	sc_results_init(&r);
	r.run.runs = 2;
	add_skill(&r, "worse", "added", false);
	add_agg(&r, "worse", "baseline", 10, 20);
	add_agg(&r, "worse", "head", 0, 20);
	add_runs(&r, "worse", "baseline", 10, 2, one, false);
	add_runs(&r, "worse", "head", 10, 2, NULL, false);
	add_skill(&r, "top", "added", false);
	add_agg(&r, "top", "baseline", 20, 20);
	add_agg(&r, "top", "head", 20, 20);
	add_runs(&r, "top", "baseline", 10, 2, NULL, true);
	add_runs(&r, "top", "head", 10, 2, NULL, true);
	add_skill(&r, "level", "added", false);
	add_agg(&r, "level", "baseline", 10, 20);
	add_agg(&r, "level", "head", 10, 20);
	add_runs(&r, "level", "baseline", 10, 2, one, false);
	add_runs(&r, "level", "head", 10, 2, one, false);
	add_skill(&r, "cheaper", "added", false);
	add_agg(&r, "cheaper", "baseline", 10, 20);
	add_agg(&r, "cheaper", "head", 10, 20)->mean_tokens = 50;
	add_runs(&r, "cheaper", "baseline", 10, 2, one, false);
	add_runs(&r, "cheaper", "head", 10, 2, one, false);
	add_skill(&r, "lift", "added", false);
	add_agg(&r, "lift", "baseline", 0, 20);
	add_agg(&r, "lift", "head", 20, 20);
	add_runs(&r, "lift", "baseline", 10, 2, NULL, false);
	add_runs(&r, "lift", "head", 10, 2, NULL, true);
	add_skill(&r, "noise", "added", false);
	add_agg(&r, "noise", "baseline", 3, 4);
	add_agg(&r, "noise", "head", 2, 4);
	add_runs(&r, "noise", "baseline", 4, 1, three, false);
	add_runs(&r, "noise", "head", 4, 1, two, false);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_int_equal(r.gate.verdict, SC_VERDICT_FAIL);
	assert_true(has_rule(&r, "worse", "new_skill_no_better"));
	assert_non_null(strstr(check_of(&r, "worse", "m", "lift")->message,
			       "skill minus no skill -50.0 points"));
	assert_non_null(strstr(check_of(&r, "level", "m", "lift")->message,
			       "a fixed design of 2 runs per test shows neither a drop nor the absence"));
	assert_non_null(strstr(check_of(&r, "worse", "m", "lift")->message, "a drop is shown"));
	assert_int_equal(check_of(&r, "level", "m", "lift")->status, SC_STATUS_UNVERIFIED);
	assert_int_equal(check_of(&r, "cheaper", "m", "lift")->status, SC_STATUS_UNVERIFIED);
	assert_int_equal(check_of(&r, "noise", "m", "lift")->status, SC_STATUS_UNVERIFIED);
	assert_int_equal(check_of(&r, "top", "m", "lift")->status, SC_STATUS_PASSED);
	assert_true(has_rule(&r, "top", "tests_not_discriminating"));
	assert_int_equal(check_of(&r, "lift", "m", "lift")->status, SC_STATUS_PASSED);
	assert_int_equal(check_of(&r, "lift", "m", "discrimination")->status, SC_STATUS_PASSED);
	/* worse; top and noise (discrimination: noise's baseline passes every
	 * test an answer can pass); level, cheaper, noise (unverified) */
	assert_true(has_rule(&r, "noise", "tests_not_discriminating"));
	assert_int_equal(r.gate.nfailures, 6);
	g.require_lift = false;
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_int_equal(r.gate.nfailures, 2);
	assert_true(has_rule(&r, "top", "tests_not_discriminating"));
	assert_int_equal(check_of(&r, "worse", "m", "lift")->status, SC_STATUS_SKIPPED);
	/* a stricter limit: a baseline over it fails too */
	g.max_baseline_pass_rate = 0.4;
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "level", "tests_not_discriminating"));
	assert_non_null(strstr(check_of(&r, "noise", "m", "discrimination")->message,
			       "passes 100% of the 3 tests an answer can pass"));
	assert_non_null(strstr(check_of(&r, "noise", "m", "discrimination")->message,
			       "1 test no answer passed"));
	assert_false(has_rule(&r, "lift", "tests_not_discriminating"));
	sc_results_release(&r);

	/* tests nobody passes tell nothing */
	g = fixed();
	sc_results_init(&r);
	r.run.runs = 2;
	add_skill(&r, "impossible", "added", false);
	add_agg(&r, "impossible", "baseline", 0, 20);
	add_agg(&r, "impossible", "head", 0, 20);
	add_runs(&r, "impossible", "baseline", 10, 2, NULL, false);
	add_runs(&r, "impossible", "head", 10, 2, NULL, false);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "impossible", "tests_not_discriminating"));
	assert_non_null(strstr(check_of(&r, "impossible", "m", "discrimination")->message,
			       "no test was passed by any answer"));
	sc_results_release(&r);
}

/* A deletion is a check of its own: it fails unless the trusted config
 * allows deletions or the pull request carries the configured label; a
 * skill without tests is unverified, accepted by gate.allow_untested. */
static void test_deleted_and_untested(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = defaults();
	(void)state;

	sc_results_init(&r);
	add_skill(&r, "gone", "deleted", false);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "gone", "skill_deleted"));
	assert_non_null(strstr(r.gate.failures[0].message, "gate.allow_deletions"));
	g.allow_deletions = true;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	g.allow_deletions = false;
	snprintf(g.deletion_label, sizeof(g.deletion_label), "%s", "remove-skill");
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_non_null(strstr(r.gate.failures[0].message, "'remove-skill'"));
	g.deletion_labelled = true;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_non_null(strstr(r.gate.checks[0].message, "label 'remove-skill'"));
	sc_results_release(&r);

	/* untested skills are unverified: by default (gate.allow_untested)
	 * accepted, each check skipped as "unverified: no tests", new skills too */
	g = defaults();
	assert_true(g.allow_untested);
	sc_results_init(&r);
	add_skill(&r, "none", "added", true);
	add_skill(&r, "old", "modified", true);
	add_skill(&r, "moved", "renamed", true);
	/* validity alone is no evidence: unverified, accepted by default
	 * (gate.allow_untested): exit 0, and the verdict is unverified */
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_int_equal(r.gate.nfailures, 0);
	assert_int_equal(r.gate.verdict, SC_VERDICT_UNVERIFIED);
	assert_int_equal(r.gate.unverified, 3);
	{
		static const char *const paths[] = { "none", "old", "moved" };
		for (size_t i = 0; i < 3; i++) {
			const struct sc_results_check *c = sc_results_find_check(&r, paths[i], "", SC_CHECK_TESTS);
			assert_non_null(c);
			assert_int_equal(c->status, SC_STATUS_UNVERIFIED);
			assert_true(c->accepted);
			assert_non_null(strstr(c->message, "unverified: no tests"));
			assert_non_null(strstr(c->message, "skillci tests init"));
			assert_non_null(strstr(c->message, "skillci help tests"));
			assert_non_null(strstr(c->message, "accepted: the trusted config sets gate.allow_untested"));
		}
	}
	/* the trusted config refuses them: each blocks, unverified, the
	 * message says what writes tests and which key accepts them */
	g.allow_untested = false;
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_int_equal(r.gate.verdict, SC_VERDICT_UNVERIFIED);
	assert_true(has_rule(&r, "none", "skill_untested"));
	assert_true(has_rule(&r, "old", "skill_untested"));
	assert_true(has_rule(&r, "moved", "skill_untested"));
	assert_int_equal(r.gate.nfailures, 3);
	for (size_t i = 0; i < r.gate.nfailures; i++) {
		assert_int_equal(r.gate.failures[i].status, SC_STATUS_UNVERIFIED);
		assert_int_equal(r.gate.failures[i].check, SC_CHECK_TESTS);
		assert_non_null(strstr(r.gate.failures[i].message, "unverified: no tests"));
		assert_non_null(strstr(r.gate.failures[i].message, "skillci tests init"));
		assert_non_null(strstr(r.gate.failures[i].message, "skillci help tests"));
		assert_null(strstr(r.gate.failures[i].message, "docs/"));
		assert_non_null(strstr(r.gate.failures[i].message, "gate.allow_untested"));
	}
	sc_results_release(&r);
}

/*
 * The first tests are evidence: a skill the base had without tests whose
 * head adds them is judged as a new skill (against no skill, by the same
 * design), never skill_untested; its pass-rate check says the tests judge
 * later PRs. A fixed design of 2 runs on 10 tests: 0% without the skill,
 * 100% with it, a lift shown; tests no answer fails prove nothing.
 */
static void test_first_tests(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = fixed();
	(void)state;

	g.allow_untested = false;  /* the first tests are evidence under every policy */
	sc_results_init(&r);
	r.run.runs = 2;
	add_skill(&r, "first", "modified", false)->first_tests = true;
	add_agg(&r, "first", "baseline", 0, 20);
	add_agg(&r, "first", "head", 20, 20);
	add_runs(&r, "first", "baseline", 10, 2, NULL, false);
	add_runs(&r, "first", "head", 10, 2, NULL, true);
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_int_equal(r.gate.verdict, SC_VERDICT_PASS);
	assert_false(has_rule(&r, "first", "skill_untested"));
	assert_non_null(strstr(check_of(&r, "first", "m", "pass_rate")->message,
			       "tests added: they judge later PRs"));
	assert_int_equal(check_of(&r, "first", "m", "lift")->status, SC_STATUS_PASSED);
	assert_int_equal(check_of(&r, "first", "m", "discrimination")->status, SC_STATUS_PASSED);
	sc_results_release(&r);
	sc_results_init(&r);
	r.run.runs = 2;
	add_skill(&r, "first", "modified", false)->first_tests = true;
	add_agg(&r, "first", "baseline", 20, 20);
	add_agg(&r, "first", "head", 20, 20);
	add_runs(&r, "first", "baseline", 10, 2, NULL, true);
	add_runs(&r, "first", "head", 10, 2, NULL, true);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "first", "tests_not_discriminating"));
	sc_results_release(&r);
}

/* A head whose every unit was skipped or an error has no pass rate:
 * nothing was compared, so the check is unverified (never a silent pass,
 * and not the pull request's fault), whether or not the base had one; a
 * base without one is the same. */
static void test_head_without_result(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = defaults();
	struct sc_results_aggregate *h;
	(void)state;

	sc_results_init(&r);
	add_skill(&r, "s", "modified", false);
	add_agg(&r, "s", "base", 3, 4);
	h = add_agg(&r, "s", "head", 0, 0);
	h->skipped = 4;
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_int_equal(r.gate.verdict, SC_VERDICT_UNVERIFIED);
	assert_true(has_rule(&r, "s", "head_no_result"));
	assert_non_null(strstr(r.gate.failures[0].message, "no pass/fail units at head (4 skipped)"));
	assert_non_null(strstr(r.gate.failures[0].message, "where the base passed 75%"));
	sc_results_release(&r);

	sc_results_init(&r);
	add_skill(&r, "k", "modified", false);
	add_agg(&r, "k", "base", 0, 0)->skipped = 4;
	add_agg(&r, "k", "head", 0, 0)->skipped = 4;
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "k", "head_no_result"));
	sc_results_release(&r);

	sc_results_init(&r);
	add_skill(&r, "b", "renamed", false);
	add_agg(&r, "b", "base", 0, 0)->errors = 4;
	add_agg(&r, "b", "head", 4, 4);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "b", "base_no_result"));
	sc_results_release(&r);
}

/* Kernel units of skill k, model m: n of them, the first `unrun` only
 * compiled (skipped), the rest passed. */
static void add_kernel_units(struct sc_results *r, const char *variant, int n, int unrun)
{
	size_t at = r->nunits;

	r->units = sc_xrealloc(r->units, (r->nunits + (size_t)n) * sizeof(*r->units));
	r->nunits += (size_t)n;
	for (int i = 0; i < n; i++) {
		struct sc_results_unit *u = &r->units[at + (size_t)i];
		sc_results_unit_init(u);
		u->skill = sc_xstrdup("k");
		u->model = sc_xstrdup("m");
		u->variant = t_variant(variant);
		u->kind = SC_KIND_KERNEL;
		u->verdict = t_unit_verdict(i < unrun ? "skipped" : "pass");
		u->message = sc_xstrdup("compiled for sm_90; correctness and speed not checked: no GPU");
	}
}

/* Kernel tests that could not run are unverified (exit 1 without a GPU);
 * a GPU that was found and still did not run them is the runner's fault:
 * an error, exit 3. A runner the trusted config marks compile-only
 * accepts them: exit 0, the verdict unverified, and the check says no
 * kernel was run. */
static void test_kernel_unverified(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = defaults();
	(void)state;

	sc_results_init(&r);
	add_skill(&r, "k", "modified", false);
	add_agg(&r, "k", "base", 0, 0)->skipped = 2;
	add_agg(&r, "k", "head", 0, 0)->skipped = 2;
	add_kernel_units(&r, "base", 2, 2);
	add_kernel_units(&r, "head", 2, 2);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "k", "kernel_unverified"));
	assert_int_equal(r.gate.verdict, SC_VERDICT_UNVERIFIED);
	assert_int_equal(check_of(&r, "k", "m", "kernel")->status, SC_STATUS_UNVERIFIED);
	r.run.has_gpu = true;
	assert_int_equal(sc_gate_apply(&r, &g), 3);
	assert_int_equal(r.gate.verdict, SC_VERDICT_ERROR);
	assert_int_equal(check_of(&r, "k", "m", "kernel")->status, SC_STATUS_ERROR);
	assert_non_null(strstr(check_of(&r, "k", "m", "kernel")->message, "not the pull request's"));
	r.run.has_gpu = false;
	g.compile_only = true;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_int_equal(r.gate.verdict, SC_VERDICT_UNVERIFIED);
	assert_true(check_of(&r, "k", "m", "kernel")->accepted);
	assert_non_null(strstr(check_of(&r, "k", "m", "kernel")->message, "no kernel was run"));
	sc_results_release(&r);

	/* one kernel unit of four not run: unverified, pass rate or not */
	g = defaults();
	sc_results_init(&r);
	add_skill(&r, "k", "modified", false);
	add_agg(&r, "k", "base", 4, 4);
	add_agg(&r, "k", "head", 3, 3)->skipped = 1;
	add_kernel_units(&r, "head", 4, 1);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "k", "kernel_unverified"));
	sc_results_release(&r);
}

/* Infrastructure errors over the share among the units that decide
 * something: could not check, exit 3; a regression shown on the units
 * that did run still fails (exit 1, the verdict fail). Errors of units
 * that decide nothing (the no-skill baseline of a modified skill) are not
 * counted. */
static void test_error_share_exits_3(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = fixed();
	const struct sc_results_check *c;
	(void)state;

	sc_results_init(&r);
	r.run.runs = 1;
	add_skill(&r, "s", "modified", false);
	add_agg(&r, "s", "base", 4, 4);
	add_agg(&r, "s", "head", 4, 4);
	add_runs(&r, "s", "base", 4, 1, NULL, true);
	add_runs(&r, "s", "head", 4, 1, NULL, true);
	add_runs(&r, "s", "head", 2, 1, NULL, true);
	for (size_t i = r.nunits - 2; i < r.nunits; i++) {
		r.units[i].verdict = SC_UNIT_ERROR;
		free(r.units[i].test_id);
		r.units[i].test_id = sc_xstrdup(i % 2 ? "e1" : "e0");
	}
	g.accept_unverified = true;  /* four tests decide nothing either way */
	assert_int_equal(sc_gate_apply(&r, &g), 3);
	assert_int_equal(r.gate.verdict, SC_VERDICT_ERROR);
	assert_true(fabs(r.gate.error_share - 0.2) < 1e-12);
	c = check_of(&r, "s", "m", "errors");
	assert_int_equal(c->status, SC_STATUS_ERROR);
	assert_non_null(strstr(c->message, "could not check"));
	assert_true(has_rule(&r, "s", "error_share"));
	g.error_share = 0.2;  /* exactly at the share: not over it */
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	/* the same errors at the baseline of a modified skill decide nothing */
	g.error_share = 0.1;
	for (size_t i = 0; i < r.nunits; i++)
		if (r.units[i].verdict == SC_UNIT_ERROR) {
			r.units[i].variant = SC_VARIANT_BASELINE;
		}
	r.sorted = false;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_true(r.gate.error_share == 0);
	assert_non_null(strstr(check_of(&r, "s", "m", "errors")->message, "not counted"));
	/* a regression and errors: the regression wins */
	for (size_t i = 0; i < r.nunits; i++)
		if (r.units[i].verdict == SC_UNIT_ERROR) {
			r.units[i].variant = SC_VARIANT_HEAD;
		}
	for (size_t i = 0; i < r.nunits; i++)
		if (r.units[i].variant == SC_VARIANT_HEAD && r.units[i].verdict == SC_UNIT_PASS) {
			r.units[i].verdict = SC_UNIT_FAIL;
		}
	for (size_t i = 0; i < 3; i++) {
		add_runs(&r, "s", "base", 1, 1, NULL, true);
		add_runs(&r, "s", "head", 1, 1, NULL, false);
		free(r.units[r.nunits - 1].test_id);
		free(r.units[r.nunits - 2].test_id);
		r.units[r.nunits - 1].test_id = sc_xstrdup(i == 0 ? "x0" : i == 1 ? "x1" : "x2");
		r.units[r.nunits - 2].test_id = sc_xstrdup(i == 0 ? "x0" : i == 1 ? "x1" : "x2");
	}
	r.sorted = false;
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_int_equal(r.gate.verdict, SC_VERDICT_FAIL);
	assert_true(has_rule(&r, "s", "pass_rate_drop"));
	assert_true(has_rule(&r, "s", "error_share"));
	sc_results_release(&r);
}

static const struct sc_results_check *check_of(const struct sc_results *r, const char *skill,
					       const char *model, const char *check)
{
	return sc_results_find_check(r, skill, model, t_check_kind(check));
}

/* Every check is recorded with its outcome; a check fails exactly when a
 * failure names it. */
static void test_checks_recorded(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = fixed();
	size_t failed = 0;
	(void)state;

	sc_results_init(&r);
	r.run.runs = 1;
	add_skill(&r, "s", "modified", false);
	add_agg(&r, "s", "base", 4, 4);
	add_agg(&r, "s", "head", 0, 4);
	add_cmp(&r, "s", 0.5);
	add_runs(&r, "s", "base", 5, 1, NULL, true);
	add_runs(&r, "s", "head", 5, 1, NULL, false);
	add_skill(&r, "new", "added", false);
	add_agg(&r, "new", "baseline", 1, 4);
	add_agg(&r, "new", "head", 3, 4);
	add_skill(&r, "gone", "deleted", false);
	add_skill(&r, "bare", "modified", true);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_int_equal(check_of(&r, "s", "", "validity")->status, SC_STATUS_PASSED);
	assert_int_equal(check_of(&r, "s", "m", "pass_rate")->status, SC_STATUS_FAILED);
	assert_string_equal(check_of(&r, "s", "m", "pass_rate")->rule, "pass_rate_drop");
	/* no unit has a token count: nothing to compare per test */
	assert_int_equal(check_of(&r, "s", "m", "tokens")->status, SC_STATUS_SKIPPED);
	assert_int_equal(check_of(&r, "s", "m", "speedup")->status, SC_STATUS_SKIPPED);
	assert_int_equal(check_of(&r, "s", "m", "judge")->status, SC_STATUS_SKIPPED);
	assert_int_equal(check_of(&r, "s", "m", "errors")->status, SC_STATUS_PASSED);
	assert_null(check_of(&r, "s", "m", "lift"));
	assert_int_equal(check_of(&r, "new", "m", "pass_rate")->status, SC_STATUS_SKIPPED);
	/* no units to pair: the lift is not decided either way */
	assert_int_equal(check_of(&r, "new", "m", "lift")->status, SC_STATUS_UNVERIFIED);
	assert_null(check_of(&r, "gone", "", "validity"));
	assert_int_equal(check_of(&r, "bare", "", "validity")->status, SC_STATUS_PASSED);
	assert_int_equal(check_of(&r, "bare", "", "tests")->status, SC_STATUS_UNVERIFIED);
	assert_null(check_of(&r, "bare", "m", "pass_rate"));
	/* a failure names a check exactly when the check blocks the merge */
	for (size_t i = 0; i < r.gate.nchecks; i++) {
		const struct sc_results_check *c = &r.gate.checks[i];
		bool named = false;
		for (size_t f = 0; f < r.gate.nfailures; f++)
			named |= !strcmp(r.gate.failures[f].skill, c->skill) &&
				 !strcmp(r.gate.failures[f].model, c->model) &&
				 r.gate.failures[f].check == c->check;
		assert_int_equal(named, sc_gate_check_blocks(c));
		failed += sc_gate_check_blocks(c);
	}
	assert_int_equal(failed, r.gate.nfailures);
	sc_results_release(&r);
}

static void add_finding(struct sc_results_skill *s, const char *state, const char *sev,
			const char *code, int64_t line)
{
	struct sc_results_finding *f;

	s->findings = sc_xrealloc(s->findings, (s->nfindings + 1) * sizeof(*s->findings));
	f = &s->findings[s->nfindings++];
	memset(f, 0, sizeof(*f));
	f->state = t_finding_state(state);
	f->severity = t_severity(sev);
	f->code = sc_xstrdup(code);
	f->file = sc_xstrdup("skills/s/SKILL.md");
	f->line = line;
	f->message = sc_xstrdup("a problem");
}

/* Validity: a new error fails with its file and line; a pre-existing one
 * only with fail_on_existing; fixed errors and new warnings pass. */
static void test_validity_from_findings(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = defaults();
	const struct sc_results_check *c;
	(void)state;

	g.allow_untested = true;  /* validity only: skill_untested is test_deleted_and_untested's */
	sc_results_init(&r);
	add_skill(&r, "old", "modified", true);
	add_finding(&r.skills[0], "existing", "error", "description-too-long", 3);
	add_finding(&r.skills[0], "fixed", "error", "link-missing", 9);
	add_finding(&r.skills[0], "new", "warning", "body-long", 0);
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	c = check_of(&r, "old", "", "validity");
	assert_int_equal(c->status, SC_STATUS_PASSED);
	assert_non_null(strstr(c->message, "1 pre-existing error"));
	g.fail_on_existing = true;
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	c = check_of(&r, "old", "", "validity");
	assert_int_equal(c->status, SC_STATUS_FAILED);
	assert_string_equal(c->rule, "skill_invalid");
	assert_int_equal(c->line, 3);
	assert_non_null(strstr(c->message, "a pre-existing error"));
	g.fail_on_existing = false;
	add_finding(&r.skills[0], "new", "error", "name-mismatch", 2);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_true(has_rule(&r, "old", "skill_invalid"));
	assert_string_equal(r.gate.failures[0].file, "skills/s/SKILL.md");
	assert_int_equal(r.gate.failures[0].line, 2);
	assert_true(sc_starts_with(r.gate.failures[0].message, "skills/s/SKILL.md:2: a problem [name-mismatch]"));
	sc_results_release(&r);
}

/* Findings are matched across sides by severity, rule and file, not line. */
static void test_findings_compare(void **state)
{
	struct sc_diags base = SC_DIAGS_INIT, head = SC_DIAGS_INIT;
	struct sc_results_skill s;
	struct sc_buf line = SC_BUF_INIT;
	(void)state;

	memset(&s, 0, sizeof(s));
	sc_diags_add(&base, SC_SEV_ERROR, "x/SKILL.md", 3, "description-too-long", "long");
	sc_diags_add(&base, SC_SEV_ERROR, "x/SKILL.md", 9, "link-missing", "gone");
	sc_diags_add(&base, SC_SEV_ERROR, "x/SKILL.md", 10, "link-missing", "gone too");
	sc_diags_add(&head, SC_SEV_ERROR, "x/SKILL.md", 4, "description-too-long", "longer");
	sc_diags_add(&head, SC_SEV_ERROR, "x/SKILL.md", 12, "link-missing", "still gone");
	sc_diags_add(&head, SC_SEV_ERROR, "x/SKILL.md", 2, "name-mismatch", "renamed");
	sc_diags_add(&head, SC_SEV_WARNING, "x/SKILL.md", 3, "description-too-long", "a warning now");
	sc_findings_compare(&s, &base, &head);
	assert_int_equal(s.nfindings, 5);
	assert_string_equal(s.findings[0].code, "name-mismatch");
	assert_int_equal(s.findings[0].state, SC_FINDING_NEW);
	assert_string_equal(s.findings[1].code, "description-too-long");
	assert_int_equal(s.findings[1].severity, SC_SEV_WARNING);
	assert_int_equal(s.findings[1].state, SC_FINDING_NEW);
	assert_int_equal(s.findings[2].state, SC_FINDING_EXISTING);
	assert_int_equal(s.findings[2].line, 4);
	assert_int_equal(s.findings[3].state, SC_FINDING_EXISTING);
	assert_int_equal(s.findings[3].line, 12);
	assert_int_equal(s.findings[4].state, SC_FINDING_FIXED);
	assert_int_equal(s.findings[4].line, 10);
	sc_findings_format(&line, &s.findings[0]);
	assert_string_equal(line.ptr, "x/SKILL.md:2: error: renamed [name-mismatch] (head, new)");
	sc_buf_clear(&line);
	sc_findings_format(&line, &s.findings[4]);
	assert_string_equal(line.ptr, "x/SKILL.md:10: error: gone too [link-missing] (base, fixed at head)");
	/* no base (an added skill): everything is new */
	sc_findings_compare(&s, NULL, &head);
	for (size_t i = 0; i < s.nfindings; i++)
		assert_int_equal(s.findings[i].state, SC_FINDING_NEW);
	for (size_t i = 0; i < s.nfindings; i++)
		sc_results_finding_release(&s.findings[i]);
	free(s.findings);
	sc_diags_release(&base);
	sc_diags_release(&head);
	sc_buf_release(&line);
}

/* One comparison path: significance at the given alpha, unpaired has none. */
static void test_compare_at_alpha(void **state)
{
	struct sc_results_aggregate from, to;
	struct sc_results_comparison c;
	struct sc_compare_pairs pairs = { 20, 19, 13, 7, 1 };
	(void)state;

	sc_results_aggregate_init(&from);
	sc_results_aggregate_init(&to);
	from.variant = SC_VARIANT_BASE;
	to.variant = SC_VARIANT_HEAD;
	from.pass_rate = 0.95;
	to.pass_rate = 0.65;
	from.mean_tokens = 100;
	to.mean_tokens = 150;
	sc_results_comparison_init(&c);
	sc_compare_fill(&c, &from, &to, &pairs, 0.1);
	assert_true(fabs(c.p_value - 9.0 / 128) < 1e-12);
	assert_true(c.significant);
	assert_true(fabs(c.pass_rate_delta + 0.3) < 1e-12);
	assert_true(fabs(c.tokens_delta_pct - 50) < 1e-9);
	sc_compare_fill(&c, &from, &to, &pairs, 0.05);
	assert_false(c.significant);
	assert_true(sc_compare_significant(0.0703, 0.1));
	assert_false(sc_compare_significant(0.0703, 0.05));
	assert_false(sc_compare_significant(NAN, 0.5));
	assert_true(fabs(sc_compare_alpha(NAN) - SC_COMPARE_DEFAULT_ALPHA) < 1e-12);
	sc_compare_fill(&c, &from, &to, NULL, 0.1);
	assert_int_equal(c.paired_n, 0);
	assert_true(isnan(c.p_value));
	assert_false(c.significant);
	assert_true(fabs(c.pass_rate_delta + 0.3) < 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_improvement_passes),
		cmocka_unit_test(test_pass_rate_drop),
		cmocka_unit_test(test_noise_is_unverified),
		cmocka_unit_test(test_alpha_over_checks),
		cmocka_unit_test(test_tokens_rise),
		cmocka_unit_test(test_speedup_and_judge_drop),
		cmocka_unit_test(test_measured_values_no_change),
		cmocka_unit_test(test_new_skill_against_no_skill),
		cmocka_unit_test(test_deleted_and_untested),
		cmocka_unit_test(test_first_tests),
		cmocka_unit_test(test_kernel_unverified),
		cmocka_unit_test(test_error_share_exits_3),
		cmocka_unit_test(test_checks_recorded),
		cmocka_unit_test(test_validity_from_findings),
		cmocka_unit_test(test_findings_compare),
		cmocka_unit_test(test_compare_at_alpha),
		cmocka_unit_test(test_head_without_result),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
