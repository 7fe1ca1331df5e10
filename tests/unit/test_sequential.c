/* Unit tests for the sequential pass-rate decision (runner/pipeline/
 * sequential.c): the looks of a design, its levels, the decision on
 * hand-built cases, the replay on a results model and the gate's record
 * of it (the margin object, through JSON and back). */
#include "unit.h"
#include "pipeline/config.h"
#include "pipeline/gate.h"
#include "pipeline/sequential.h"
#include "results/results.h"

#include <math.h>

#define assert_close(a, b, tol) \
	do { \
		double a_ = (a), b_ = (b); \
		if (!(fabs(a_ - b_) <= (tol))) \
			fail_msg("%.17g != %.17g (tol %g)", a_, b_, (double)(tol)); \
	} while (0)

static void test_looks(void **state)
{
	struct sc_seq_design d;
	(void)state;

	sc_seq_design_init(&d, 0.05, 0.05, 2, 20, 1);
	assert_true(sc_seq_is_sequential(&d));
	assert_int_equal(sc_seq_looks(&d), 10);
	assert_int_equal(sc_seq_look_runs(&d, 1), 2);
	assert_int_equal(sc_seq_look_runs(&d, 10), 20);
	/* a last round shorter than the others */
	sc_seq_design_init(&d, 0.05, 0.05, 3, 10, 1);
	assert_int_equal(sc_seq_looks(&d), 4);
	assert_int_equal(sc_seq_look_runs(&d, 3), 9);
	assert_int_equal(sc_seq_look_runs(&d, 4), 10);
	/* more than 32 rounds: bigger rounds */
	sc_seq_design_init(&d, 0.05, 0.05, 1, 1000, 1);
	assert_int_equal(d.first_runs, 32);
	assert_int_equal(sc_seq_looks(&d), 32);
	assert_int_equal(sc_seq_look_runs(&d, 32), 1000);
	/* fixed: one look */
	sc_seq_design_init(&d, 0.05, 0.05, 3, 0, 4);
	assert_false(sc_seq_is_sequential(&d));
	assert_int_equal(sc_seq_looks(&d), 1);
	assert_int_equal(sc_seq_look_runs(&d, 1), 3);
}

/*
 * Two looks (2 and 4 runs of 4: t = 0.5, 1). The first look's level is
 * the spending a(0.5) = 0.0055746 (test_stats works it out), divided by
 * nothing for one check and computed at alpha / 5 for five checks
 * (a(0.5) at 0.01 = 0.00026972, by the same formula); the last look's
 * level for one check is 0.048246 (scipy). The futility boundary spends
 * beta 0.2 linearly: 0.2 x 0.5 = 0.1 at the first look; with the
 * O'Brien-Fleming-type function instead, a(0.5) at 0.2 = 2 (1 -
 * PHI(1.281552 / 0.7071)) = 2 (1 - PHI(1.812388)) = 0.069926.
 */
static void test_levels(void **state)
{
	struct sc_seq_design d;
	struct sc_seq_levels lv;
	(void)state;

	sc_seq_design_init(&d, 0.05, 0.05, 2, 4, 1);
	sc_seq_levels(&lv, &d, 1);
	assert_close(lv.t, 0.5, 1e-15);
	assert_close(lv.fail, 0.005574596680784415, 1e-12);
	assert_close(lv.pass, 0.005574596680784415, 1e-12);
	/* futility spends beta linearly (SC_SEQ_RHO_BETA 1): 0.2 x 0.5 at the
	 * first look, whose level is what it spends */
	assert_close(lv.futility, 0.1, 1e-12);
	d.rho_beta = 0;  /* O'Brien-Fleming type: 2 (1 - PHI(z(0.9) / sqrt(0.5))) */
	sc_seq_design_compute(&d);
	sc_seq_levels(&lv, &d, 1);
	assert_close(lv.futility, 0.06992632672050636, 1e-12);
	sc_seq_design_init(&d, 0.05, 0.05, 2, 4, 1);
	sc_seq_levels(&lv, &d, 2);
	assert_close(lv.fail, 0.04824570306393106, 5e-6);
	sc_seq_design_init(&d, 0.05, 0.05, 2, 4, 5);
	sc_seq_levels(&lv, &d, 1);
	assert_close(lv.fail, 0.0002697169566314835, 1e-12);
	assert_close(lv.pass, 0.005574596680784415, 1e-12);
	/* a fixed design: alpha / family and alpha */
	sc_seq_design_init(&d, 0.05, 0.05, 3, 0, 5);
	sc_seq_levels(&lv, &d, 1);
	assert_close(lv.fail, 0.01, 1e-12);
	assert_close(lv.pass, 0.05, 1e-12);
	assert_true(lv.futility == 0.0);
}

static void counts(struct sc_stats_paired *st, size_t tests, unsigned long bpass,
		   unsigned long hpass, unsigned long runs)
{
	unsigned long *bp = sc_xcalloc(tests, sizeof(*bp)), *hp = sc_xcalloc(tests, sizeof(*hp));
	unsigned long *n = sc_xcalloc(tests, sizeof(*n));

	for (size_t t = 0; t < tests; t++) {
		bp[t] = bpass;
		hp[t] = hpass;
		n[t] = runs;
	}
	assert_true(sc_stats_paired_margin(st, bp, n, hp, n, tests, 0.05, 0.05,
					   SC_STATS_STRATIFIED));
	free(bp); free(hp); free(n);
}

/*
 * Regression shown at look 1: 10 tests passing 2 of 2 at base and 0 of 2
 * at head. Per test q = 3/6, v = 0.25 (1/2 + 1/2) = 0.25, se = sqrt(2.5) /
 * 10 = 0.1581, statistic (-1 + 0.05) / 0.1581 = -6.01: p = 9.4e-10, below
 * the first look's 0.0056 of a 2-of-4 design (not below 20 runs'
 * first look, 5.7e-10: that one is open).
 */
static void test_regression_at_look_1(void **state)
{
	struct sc_seq_design d;
	struct sc_stats_paired st;
	(void)state;

	counts(&st, 10, 2, 0, 2);
	assert_close(st.se, sqrt(2.5) / 10, 1e-12);
	assert_close(st.p_drop, 9.4e-10, 0.1e-10);
	sc_seq_design_init(&d, 0.05, 0.05, 2, 4, 1);
	assert_int_equal(sc_seq_decide(&st, &d, 1), SC_SEQ_REGRESSION);
	sc_seq_design_init(&d, 0.05, 0.05, 2, 20, 1);
	assert_int_equal(sc_seq_decide(&st, &d, 1), SC_SEQ_OPEN);
	assert_string_equal(sc_seq_decision_name(SC_SEQ_REGRESSION), "regression");
}

/*
 * Ruled out at look 2: 160 tests passing every run at both sides. At 2
 * runs q = 5/6, v = 5/36, se = sqrt(5/36 / 160) = 0.02946: p_within =
 * PHI(-0.05 / 0.02946) = PHI(-1.697) = 0.045, above the first look's
 * 0.0056; the design's drop (0.05 + 2.486 x 0.02946 x sqrt(1/2) = 0.1018)
 * is ruled out (p 0.0003 < 0.1), but at max_runs the same estimate
 * would rule the margin out (z 2.40 against the last look's 1.66,
 * conditional power PHI((2.40 - 1.66) / sqrt(1/2)) = 0.85 >= 0.8), so the
 * check samples on. At 4 runs q = 9/10, v = 0.045, se = 0.01677, p_within
 * = PHI(-2.98) = 0.0014 < 0.048: ruled out.
 */
static void test_ruled_out_at_look_2(void **state)
{
	struct sc_seq_design d;
	struct sc_stats_paired st;
	(void)state;

	sc_seq_design_init(&d, 0.05, 0.05, 2, 4, 1);
	counts(&st, 160, 2, 2, 2);
	assert_close(st.se, sqrt(5.0 / 36 / 160), 1e-12);
	assert_close(st.p_within, 0.0448, 0.0005);
	assert_int_equal(sc_seq_decide(&st, &d, 1), SC_SEQ_OPEN);
	counts(&st, 160, 4, 4, 4);
	assert_close(st.p_within, 0.00144, 0.0001);
	assert_int_equal(sc_seq_decide(&st, &d, 2), SC_SEQ_RULED_OUT);
	assert_string_equal(sc_seq_decision_name(SC_SEQ_RULED_OUT), "ruled_out");
}

/*
 * Inconclusive at max: a mean drop of exactly the margin with se 0.1
 * (p_drop = p_within = 0.5) is never decided. At look 1 of 2 the design's
 * drop is 0.05 + 2.486 x 0.1 x sqrt(1/2) = 0.2258, ruled out at p =
 * PHI(-(-0.05 + 0.2258) / 0.1) = PHI(-1.758) = 0.039 < 0.1, and
 * ruling the margin out is hopeless (the estimate sits on it): futile,
 * stop. At the last look it is inconclusive, and so is a check with no
 * test judged at both sides.
 */
static void test_inconclusive_at_max(void **state)
{
	struct sc_seq_design d;
	struct sc_stats_paired st;
	(void)state;

	memset(&st, 0, sizeof(st));
	st.tests = 10;
	st.mean = -0.05;
	st.se = 0.1;
	st.p_drop = st.p_within = 0.5;
	sc_seq_design_init(&d, 0.05, 0.05, 2, 4, 1);
	assert_close(sc_seq_design_drop(&st, &d, 1), 0.05 + (1.6448536269514722 +
					0.8416212335729143) * 0.1 * sqrt(0.5), 1e-9);
	assert_int_equal(sc_seq_decide(&st, &d, 1), SC_SEQ_FUTILE);
	assert_int_equal(sc_seq_decide(&st, &d, 2), SC_SEQ_INCONCLUSIVE);
	assert_string_equal(sc_seq_decision_name(SC_SEQ_FUTILE), "inconclusive");
	/* a 30-point drop with se 0.3: not shown (p_drop = PHI(-0.83) = 0.20) and
	 * the design's drop 0.577 not ruled out (PHI(-0.92) = 0.18 > 0.07): open */
	st.se = 0.3;
	st.mean = -0.3;
	st.p_drop = sc_stats_normal_cdf((st.mean + 0.05) / st.se);
	st.p_within = 1 - st.p_drop;
	assert_int_equal(sc_seq_decide(&st, &d, 1), SC_SEQ_OPEN);
	st.tests = 0;
	assert_int_equal(sc_seq_decide(&st, &d, 1), SC_SEQ_OPEN);
	assert_int_equal(sc_seq_decide(&st, &d, 2), SC_SEQ_INCONCLUSIVE);
}

/* Units of ntests tests of "s" at variant (model "m"), runs [from, to), all passing or not. */
static void add_runs(struct sc_results *r, const char *variant, int ntests, int from, int to,
		     bool pass)
{
	r->units = sc_xrealloc(r->units, (r->nunits + (size_t)(ntests * (to - from))) *
					 sizeof(*r->units));
	for (int t = 0; t < ntests; t++)
		for (int k = from; k < to; k++) {
			struct sc_results_unit *u = &r->units[r->nunits++];
			char id[32];
			sc_results_unit_init(u);
			snprintf(id, sizeof(id), "t%d", t);
			u->skill = sc_xstrdup("s");
			u->variant = sc_xstrdup(variant);
			u->model = sc_xstrdup("m");
			u->test_id = sc_xstrdup(id);
			u->run_index = k;
			u->kind = sc_xstrdup("text");
			u->verdict = sc_xstrdup(pass ? "pass" : "fail");
		}
}

/*
 * The replay: 10 tests right at base and wrong at head. With runs 0-1
 * only, the first look of a 2-of-20 design is open (p 9.4e-10 against
 * 5.7e-10) and nothing later exists: more. With runs 0-3 the second look
 * shows the regression on 40 units per side.
 */
static void test_replay(void **state)
{
	struct sc_results r;
	struct sc_seq_design d;
	struct sc_seq_outcome o;
	(void)state;

	sc_seq_design_init(&d, 0.05, 0.05, 2, 20, 1);
	sc_results_init(&r);
	add_runs(&r, "base", 10, 0, 2, true);
	add_runs(&r, "head", 10, 0, 2, false);
	sc_seq_replay(&o, &r, "s", "m", &d);
	assert_int_equal(o.decision, SC_SEQ_OPEN);
	assert_true(o.more);
	assert_int_equal(o.look, 1);
	assert_int_equal(o.runs, 2);
	add_runs(&r, "base", 10, 2, 4, true);
	add_runs(&r, "head", 10, 2, 4, false);
	sc_seq_replay(&o, &r, "s", "m", &d);
	assert_int_equal(o.decision, SC_SEQ_REGRESSION);
	assert_false(o.more);
	assert_int_equal(o.look, 2);
	assert_int_equal(o.runs, 4);
	assert_int_equal(o.base_units, 40);
	assert_int_equal(o.head_units, 40);
	assert_close(o.st.mean, -1.0, 1e-12);
	/* units of a later run than the look decided are not used */
	add_runs(&r, "head", 10, 4, 6, true);
	sc_seq_replay(&o, &r, "s", "m", &d);
	assert_int_equal(o.look, 2);
	assert_int_equal(o.head_units, 40);
	sc_results_release(&r);
}

static struct sc_config_gate seq_gate(int first, int max, size_t planned)
{
	struct sc_config cfg;
	struct sc_config_gate g;

	sc_config_defaults(&cfg);
	g = cfg.gate;
	sc_config_release(&cfg);
	g.first_runs = first;
	g.max_runs = max;
	g.planned_checks = planned;
	return g;
}

static void add_agg(struct sc_results *r, const char *variant, int passed, int n)
{
	struct sc_results_aggregate *a;

	r->aggregates = sc_xrealloc(r->aggregates, (r->naggregates + 1) * sizeof(*r->aggregates));
	a = &r->aggregates[r->naggregates++];
	sc_results_aggregate_init(a);
	a->skill = sc_xstrdup("s");
	a->variant = sc_xstrdup(variant);
	a->model = sc_xstrdup("m");
	a->n = n;
	a->passed = passed;
	a->failed = n - passed;
	a->pass_rate = (double)passed / n;
}

/*
 * The gate replays the design from the units and records the margin; the
 * margin survives JSON. With 40 planned checks the first look's level is
 * a(0.1) at alpha/40, so the second look (p about 1e-17) still fails while
 * a design of 4 runs per check and 10^6 planned checks would not fail at
 * look 1 (its level is far below 9.4e-10).
 */
/*
 * The interval says what the verdict says (sc_seq_interval): for fixed
 * and sequential designs, over many random suites and every look, a
 * regression is decided exactly when the upper end is below -margin, a
 * drop ruled out exactly when the lower end is above it. Early looks of
 * a sequential design get wider intervals than the plain 90% one.
 */
static void test_interval_matches_verdict(void **state)
{
	static const int design[][3] = { { 1, 0, 1 }, { 3, 0, 5 }, { 2, 20, 1 }, { 2, 20, 10 }, { 1, 8, 3 } };
	unsigned long bp[12], hp[12], n[12];
	uint64_t x = 88172645463325252ull;
	size_t decided = 0, wider = 0;
	(void)state;

	for (size_t di = 0; di < sizeof(design) / sizeof(design[0]); di++) {
		struct sc_seq_design d;
		sc_seq_design_init(&d, 0.05, 0.05, design[di][0], design[di][1], (size_t)design[di][2]);
		for (int k = 1; k <= sc_seq_looks(&d); k++) {
			unsigned long runs = (unsigned long)sc_seq_look_runs(&d, k);
			for (int rep = 0; rep < 300; rep++) {
				struct sc_stats_paired st, plain;
				enum sc_seq_decision v;
				size_t tests = 2 + (size_t)(rep % 11);
				/* half the suites hold a regression of some size */
				unsigned long cut = rep % 2 ? runs * (unsigned long)(rep % 7) / 7 : 0;
				for (size_t t = 0; t < tests; t++) {
					x ^= x << 13, x ^= x >> 7, x ^= x << 17;
					n[t] = runs;
					bp[t] = (unsigned long)(x % (runs + 1));
					hp[t] = (unsigned long)((x >> 20) % (runs + 1));
					hp[t] = hp[t] > cut ? hp[t] - cut : 0;
				}
				assert_true(sc_stats_paired_margin(&st, bp, n, hp, n, tests, 0.05, 0.05,
								   SC_STATS_STRATIFIED));
				plain = st;
				v = sc_seq_decide(&st, &d, k);
				sc_seq_interval(&st, &d, k);
				assert_int_equal(v == SC_SEQ_REGRESSION, st.hi < -0.05);
				if (v != SC_SEQ_REGRESSION)
					assert_int_equal(v == SC_SEQ_RULED_OUT, st.lo > -0.05);
				assert_true(st.lo <= plain.mean && plain.mean <= st.hi);
				decided += v == SC_SEQ_REGRESSION || v == SC_SEQ_RULED_OUT;
				if (sc_seq_is_sequential(&d) && k < sc_seq_looks(&d) && st.lo > -1.0)
					wider += st.lo < plain.lo - 1e-12;
			}
		}
	}
	/* both branches were taken, and early looks are wider */
	assert_true(decided > 100);
	assert_true(wider > 100);
}

static void test_gate_records_margin(void **state)
{
	struct sc_results r, back;
	struct sc_config_gate g = seq_gate(2, 20, 40);
	const struct sc_results_check *c;
	struct sc_buf json = SC_BUF_INIT;
	(void)state;

	sc_results_init(&r);
	r.skills = sc_xcalloc(1, sizeof(*r.skills));
	r.nskills = 1;
	r.skills[0].path = sc_xstrdup("s");
	r.skills[0].name = sc_xstrdup("s");
	r.skills[0].status = sc_xstrdup("modified");
	add_agg(&r, "base", 40, 40);
	add_agg(&r, "head", 0, 40);
	add_runs(&r, "base", 10, 0, 4, true);
	add_runs(&r, "head", 10, 0, 4, false);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	c = sc_results_find_check(&r, "s", "m", "pass_rate");
	assert_non_null(c);
	assert_string_equal(c->status, "failed");
	assert_non_null(strstr(c->message, "sequential: 4 runs per test after 2 of 10 rounds, "
				  "error spent over 40 checks"));
	assert_true(c->margin.present);
	assert_string_equal(c->margin.decision, "regression");
	assert_int_equal(c->margin.rounds, 2);
	assert_int_equal(c->margin.runs_per_test, 4);
	assert_int_equal(c->margin.base_runs, 40);
	assert_int_equal(c->margin.head_runs, 40);
	assert_int_equal(c->margin.tests, 10);
	assert_close(c->margin.mean, -1.0, 1e-12);
	/* the interval is cut at -1, where a difference of pass rates ends */
	assert_close(c->margin.lo, -1.0, 0);
	assert_true(c->margin.hi > -1.0 && c->margin.detectable > 0.05);

	sc_results_format(&json, &r);
	assert_int_equal(sc_results_parse(&back, json.ptr, json.len, "r.json"), 0);
	c = sc_results_find_check(&back, "s", "m", "pass_rate");
	assert_non_null(c);
	assert_true(c->margin.present);
	assert_string_equal(c->margin.decision, "regression");
	assert_int_equal(c->margin.rounds, 2);
	assert_int_equal(c->margin.base_runs, 40);
	assert_close(c->margin.mean, -1.0, 1e-12);
	sc_results_release(&back);
	sc_buf_release(&json);

	/* the first look alone, split over a million checks: not shown, open: inconclusive */
	g = seq_gate(2, 4, 1000000);
	sc_results_release(&r);
	sc_results_init(&r);
	r.skills = sc_xcalloc(1, sizeof(*r.skills));
	r.nskills = 1;
	r.skills[0].path = sc_xstrdup("s");
	r.skills[0].name = sc_xstrdup("s");
	r.skills[0].status = sc_xstrdup("modified");
	add_agg(&r, "base", 20, 20);
	add_agg(&r, "head", 0, 20);
	add_runs(&r, "base", 10, 0, 2, true);
	add_runs(&r, "head", 10, 0, 2, false);
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	c = sc_results_find_check(&r, "s", "m", "pass_rate");
	assert_string_equal(c->status, "skipped");
	assert_non_null(strstr(c->message, "inconclusive"));
	assert_string_equal(c->margin.decision, "inconclusive");
	assert_int_equal(c->margin.rounds, 1);
	sc_results_release(&r);
}


/* Renames the model of the units and aggregates from index u0 / a0 on. */
static void set_model(struct sc_results *r, size_t u0, size_t a0, const char *model)
{
	for (size_t i = u0; i < r->nunits; i++) {
		free(r->units[i].model);
		r->units[i].model = sc_xstrdup(model);
	}
	for (size_t i = a0; i < r->naggregates; i++) {
		free(r->aggregates[i].model);
		r->aggregates[i].model = sc_xstrdup(model);
	}
}

/*
 * A fixed design (3 runs) over three checks, Holm: m breaks every test
 * (shown); m2 fails two of three runs of 4 of 10 tests (mean -26.7
 * points, se .1031, p_drop .0178: the pass-rate checks' alpha is .04
 * (gate.h SC_GATE_METRIC_SHARE), and Holm's second step compares 2 x
 * .0178 = .036 with it, so it fails, where Bonferroni's .04 / 3 would
 * not); m3 changes nothing on a suite that always passes. Each check's
 * interval agrees with its status: failed exactly when its upper end is
 * below -5 points (m2's at Holm's level .02: -26.7 + 2.054 x 10.31 =
 * -5.5; at .04 / 3 it would be -3.8), passed exactly when its lower end
 * is above.
 */
static void test_fixed_interval_matches_holm(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = seq_gate(2, 0, 3);
	static const char *const models[] = { "m", "m2", "m3" };
	size_t failed = 0;
	(void)state;

	sc_results_init(&r);
	r.run.runs = 3;
	r.skills = sc_xcalloc(1, sizeof(*r.skills));
	r.nskills = 1;
	r.skills[0].path = sc_xstrdup("s");
	r.skills[0].name = sc_xstrdup("s");
	r.skills[0].status = sc_xstrdup("modified");
	add_agg(&r, "base", 30, 30);
	add_agg(&r, "head", 0, 30);
	add_runs(&r, "base", 10, 0, 3, true);
	add_runs(&r, "head", 10, 0, 3, false);
	{
		size_t u0 = r.nunits, a0 = r.naggregates;
		add_agg(&r, "base", 30, 30);
		add_agg(&r, "head", 22, 30);
		add_runs(&r, "base", 10, 0, 3, true);
		add_runs(&r, "head", 10, 0, 3, true);
		/* t0..t3 fail their second and third runs at head */
		for (size_t i = u0; i < r.nunits; i++)
			if (!strcmp(r.units[i].variant, "head") && r.units[i].run_index >= 1 &&
			    strchr("0123", r.units[i].test_id[1])) {
				free(r.units[i].verdict);
				r.units[i].verdict = sc_xstrdup("fail");
			}
		set_model(&r, u0, a0, "m2");
		u0 = r.nunits, a0 = r.naggregates;
		add_agg(&r, "base", 30, 30);
		add_agg(&r, "head", 30, 30);
		add_runs(&r, "base", 10, 0, 3, true);
		add_runs(&r, "head", 10, 0, 3, true);
		set_model(&r, u0, a0, "m3");
	}
	(void)sc_gate_apply(&r, &g);
	for (size_t i = 0; i < 3; i++) {
		const struct sc_results_check *c = sc_results_find_check(&r, "s", models[i], "pass_rate");
		assert_non_null(c);
		assert_true(c->margin.present);
		assert_int_equal(!strcmp(c->status, "failed"), c->margin.hi < -0.05);
		assert_int_equal(!strcmp(c->status, "passed"), c->margin.lo > -0.05);
		failed += !strcmp(c->status, "failed");
	}
	assert_int_equal(failed, 2);
	sc_results_release(&r);
}

/*
 * Flip rates by hand: 2 of 4 runs differ in 2 x 2 x 2 / (4 x 3) = 2/3 of
 * the pairs; 1 of 10 in 2 x 1 x 9 / 90 = 0.2; all one way, 0; one run,
 * none. The gate names the flaky tests at base in the pass_rate message,
 * the three flakiest first; the history survives JSON.
 */
static void test_flips(void **state)
{
	static const struct { const char *test; int64_t runs, passes; const char *variant; } h[] = {
		{ "t0", 4, 2, "base" }, { "t1", 10, 1, "base" }, { "t2", 8, 8, "base" },
		{ "t3", 5, 3, "base" }, { "t4", 6, 3, "base" }, { "t5", 4, 2, "head" },
	};
	struct sc_results r, back;
	struct sc_config_gate g = seq_gate(2, 4, 1);
	const struct sc_results_check *c;
	struct sc_buf json = SC_BUF_INIT;
	(void)state;

	assert_close(sc_results_flip_rate(2, 4), 2.0 / 3.0, 1e-15);
	assert_close(sc_results_flip_rate(1, 10), 0.2, 1e-15);
	assert_true(sc_results_flip_rate(8, 8) == 0.0);
	assert_true(isnan(sc_results_flip_rate(1, 1)));
	assert_true(isnan(sc_results_flip_rate(3, 2)));

	sc_results_init(&r);
	r.skills = sc_xcalloc(1, sizeof(*r.skills));
	r.nskills = 1;
	r.skills[0].path = sc_xstrdup("s");
	r.skills[0].name = sc_xstrdup("s");
	r.skills[0].status = sc_xstrdup("modified");
	add_agg(&r, "base", 40, 40);
	add_agg(&r, "head", 0, 40);
	add_runs(&r, "base", 10, 0, 4, true);
	add_runs(&r, "head", 10, 0, 4, false);
	r.flips = sc_xcalloc(SC_ARRAY_SIZE(h), sizeof(*r.flips));
	for (size_t i = 0; i < SC_ARRAY_SIZE(h); i++) {
		struct sc_results_flips *f = &r.flips[r.nflips++];
		f->skill = sc_xstrdup("s");
		f->variant = sc_xstrdup(h[i].variant);
		f->model = sc_xstrdup("m");
		f->test_id = sc_xstrdup(h[i].test);
		f->runs = h[i].runs;
		f->passes = h[i].passes;
		f->flip_rate = sc_results_flip_rate(h[i].passes, h[i].runs);
	}
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	c = sc_results_find_check(&r, "s", "m", "pass_rate");
	/* t0 (67%), t3 (60%), t4 (60%) named; t1 (20%) counted; t2 never flips; t5 is head's */
	assert_non_null(strstr(c->message, "; test t0 flips 67% at base (4 runs); test t3 flips 60% "
				  "at base (5 runs); test t4 flips 60% at base (6 runs); 1 more test "
				  "flips at base"));
	assert_null(strstr(c->message, "t5"));

	sc_results_format(&json, &r);
	assert_int_equal(sc_results_parse(&back, json.ptr, json.len, "r.json"), 0);
	assert_int_equal(back.nflips, SC_ARRAY_SIZE(h));
	assert_string_equal(back.flips[0].test_id, "t0");
	assert_int_equal(back.flips[0].runs, 4);
	assert_int_equal(back.flips[0].passes, 2);
	assert_close(back.flips[0].flip_rate, 2.0 / 3.0, 1e-15);
	sc_results_release(&back);
	sc_buf_release(&json);
	sc_results_release(&r);
}

/* A margin object the schema does not allow is an error naming the place. */
static void test_margin_bad_decision(void **state)
{
	struct sc_results r;
	const char *j = "{\"schema\": \"skillci.results/1\", \"gate\": {\"passed\": true, \"failures\": [], "
			"\"checks\": "
			"[{\"skill\": \"s\", \"check\": \"pass_rate\", \"status\": \"passed\", "
			"\"margin\": {\"decision\": \"maybe\"}}]}}";
	(void)state;

	assert_true(sc_results_parse(&r, j, strlen(j), "bad.json") < 0);
	assert_non_null(strstr(sc_error_last(), "margin.decision"));
	sc_results_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_looks),
		cmocka_unit_test(test_levels),
		cmocka_unit_test(test_regression_at_look_1),
		cmocka_unit_test(test_ruled_out_at_look_2),
		cmocka_unit_test(test_inconclusive_at_max),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_interval_matches_verdict),
		cmocka_unit_test(test_gate_records_margin),
		cmocka_unit_test(test_fixed_interval_matches_holm),
		cmocka_unit_test(test_margin_bad_decision),
		cmocka_unit_test(test_flips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
