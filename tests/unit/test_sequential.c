/* Unit tests for the pass-rate decision (runner/pipeline/sequential.c):
 * the looks of a design, its calibrated boundaries, the decision on
 * hand-built cases, the replay on a results model and the gate's record
 * of it (the margin object, through JSON and back). */
#include "unit.h"
#include "states.h"
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

/* The shipped defaults, one check: alpha' 0.04 (the pass-rate checks'
 * share of 0.05), beta 0.2, m 0, D 15 points. */
static void design(struct sc_seq_design *d, int first, int max, size_t family)
{
	sc_seq_design_init(d, 0.04, 0.2, 0.0, 0.15, first, max, family);
}

static void test_looks(void **state)
{
	struct sc_seq_design d;
	(void)state;

	design(&d, 2, 20, 1);
	assert_true(sc_seq_is_sequential(&d));
	assert_int_equal(sc_seq_looks(&d), 10);
	assert_int_equal(sc_seq_look_runs(&d, 1), 2);
	assert_int_equal(sc_seq_look_runs(&d, 10), 20);
	/* a last round shorter than the others */
	design(&d, 3, 10, 1);
	assert_int_equal(sc_seq_looks(&d), 4);
	assert_int_equal(sc_seq_look_runs(&d, 3), 9);
	assert_int_equal(sc_seq_look_runs(&d, 4), 10);
	/* more than SC_SEQ_MAX_LOOKS rounds: bigger rounds */
	design(&d, 1, 1000, 1);
	assert_int_equal(d.first_runs, (1000 + SC_SEQ_MAX_LOOKS - 1) / SC_SEQ_MAX_LOOKS);
	assert_true(sc_seq_looks(&d) <= SC_SEQ_MAX_LOOKS);
	assert_int_equal(sc_seq_look_runs(&d, sc_seq_looks(&d)), 1000);
	/* fixed: one look */
	design(&d, 3, 0, 4);
	assert_false(sc_seq_is_sequential(&d));
	assert_int_equal(sc_seq_looks(&d), 1);
	assert_int_equal(sc_seq_look_runs(&d, 1), 3);
}

/*
 * The design's numbers by hand: z = z(0.96) + z(0.8) = 1.7506861 +
 * 0.8416212 = 2.5923073; a fixed design needs z^2 / D^2 = 6.7200570 /
 * 0.0225 = 298.67 of information; the boundaries meet at 2 x that. Five
 * checks divide alpha: z(0.992) = 2.4089155. The calibrated boundaries
 * hold the errors (core/stats.h; test_stats checks them against a
 * simulation): a below Wald's log(0.8 / 0.04) = 2.996 (looks taken every
 * 1/10 of the information miss crossings), b below log(0.96 / 0.2) =
 * 1.569.
 */
static void test_design_numbers(void **state)
{
	struct sc_seq_design d;
	double ea, eb;
	(void)state;

	design(&d, 1, 50, 1);
	assert_close(d.alpha_check, 0.04, 1e-15);
	assert_close(d.z, 2.5923073048250835, 1e-9);
	assert_close(d.i_fixed, 2.5923073048250835 * 2.5923073048250835 / 0.0225, 1e-6);
	assert_close(d.imax, SC_SEQ_IMAX, 0);
	assert_close(d.i_max, SC_SEQ_IMAX * d.i_fixed, 1e-9);
	assert_true(d.log_a < log(0.8 / 0.04) && d.log_a > 2.0);
	assert_true(d.log_b < log(0.96 / 0.2) && d.log_b > 0.8);
	sc_stats_sprt_errors(&ea, &eb, d.log_a, d.log_b, d.alpha_check, d.beta, d.imax,
			     SC_SEQ_STEPS);
	assert_close(ea, 0.04, 0.0004);
	assert_close(eb, 0.2, 0.002);
	design(&d, 1, 50, 5);
	assert_close(d.alpha_check, 0.008, 1e-15);
	assert_close(d.z, 2.4089155458154612 + 0.8416212335729143, 1e-9);
	/* m shifts the hypotheses: the width D - m is what counts */
	sc_seq_design_init(&d, 0.04, 0.2, 0.05, 0.15, 1, 50, 1);
	assert_close(d.i_fixed, 2.5923073048250835 * 2.5923073048250835 / 0.01, 1e-6);
	/* D not above m: raised to m + 1 point */
	sc_seq_design_init(&d, 0.04, 0.2, 0.1, 0.05, 1, 50, 1);
	assert_close(d.drop, 0.11, 1e-12);
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
	assert_true(sc_stats_paired_margin(st, bp, n, hp, n, tests, 0.0, 0.04,
					   SC_STATS_STRATIFIED));
	free(bp); free(hp); free(n);
}

/*
 * A regression at look 2: 10 tests passing every run at base and none at
 * head. One run a side: a test pools 1 of 2, variance max(1 x 1 / 2,
 * 2 x 2 / 16) = 0.5, v = 0.5 (1 + 1) = 1, se = sqrt(10) / 10, I = 10; L =
 * 0.15 (1 - 0.075) 10 = 1.3875, below a + c where c = 0.583 z (sqrt(0.1)
 * - sqrt(10 / 298.67)) = 0.2013: open. Two runs: 2 of 4 pooled, max(4 /
 * 12, 9 / 36) = 1/3, v = 1/3, I = 30, L = 4.1625, above a + 0.583 z
 * (sqrt(0.1) - sqrt(20 / 298.67)) = a + 0.0868: a regression.
 */
static void test_regression_at_look_2(void **state)
{
	struct sc_seq_design d;
	struct sc_stats_paired st;
	struct sc_seq_look at;
	(void)state;

	design(&d, 1, 50, 1);
	counts(&st, 10, 1, 0, 1);
	assert_close(st.se, sqrt(10.0) / 10, 1e-12);
	assert_true(sc_seq_look(&at, &d, &st, 0.0));
	assert_close(at.info, 10, 1e-9);
	assert_close(at.llr, 1.3875, 1e-9);
	assert_close(at.fail_at, d.log_a + 0.583 * d.z * (sqrt(0.1) - sqrt(10 / d.i_fixed)), 1e-9);
	assert_false(at.end);
	assert_int_equal(sc_seq_decide(&st, &d, 1, 0.0), SC_SEQ_OPEN);
	counts(&st, 10, 2, 0, 2);
	assert_true(sc_seq_look(&at, &d, &st, 10.0));
	assert_close(at.info, 30, 1e-9);
	assert_close(at.llr, 4.1625, 1e-9);
	assert_close(at.fail_at, d.log_a + 0.583 * d.z * (sqrt(0.1) - sqrt(20 / d.i_fixed)), 1e-9);
	assert_int_equal(sc_seq_decide(&st, &d, 2, 10.0), SC_SEQ_REGRESSION);
	assert_int_equal(sc_seq_decision_result(SC_SEQ_REGRESSION), SC_DECISION_REGRESSION);
}

/*
 * Ruled out at look 2: 10 tests passing every run at both sides. One run
 * a side: each test 2 of 2 pooled, its floor (3 x 1) / 16 = 0.1875 (the
 * unbiased value is 0), v = 0.375, 3.75 in all; the cap: 20 of 20, the
 * 80% Wilson interval's lower end .9241130, .9241130 x .0758870 x 20 =
 * 1.402563 (the unbiased sum is 0), so I = 100 / 1.402563 = 71.298, L =
 * 0.15 (0 - 0.075) 71.298 = -0.8021, not below -b (a step of 71.3 /
 * 298.67 is above a tenth: no raise): open. Two runs: 40 of 40, lower end
 * .9605600, .9605600 x .0394400 x 10 = .3788447 (below the floors' 10 x
 * 5 / 36), I = 263.960, L = -2.9696: ruled out.
 */
static void test_ruled_out_at_look_2(void **state)
{
	struct sc_seq_design d;
	struct sc_stats_paired st;
	struct sc_seq_look at;
	(void)state;

	design(&d, 1, 50, 1);
	counts(&st, 10, 1, 1, 1);
	assert_true(sc_seq_look(&at, &d, &st, 0.0));
	assert_close(at.info, 71.29804964156206, 1e-8);
	assert_close(at.llr, -0.8021030584675731, 1e-9);
	assert_close(at.pass_at, -d.log_b, 1e-12);
	assert_int_equal(sc_seq_decide(&st, &d, 1, 0.0), SC_SEQ_OPEN);
	counts(&st, 10, 2, 2, 2);
	assert_true(sc_seq_look(&at, &d, &st, 71.29804964156206));
	assert_close(at.info, 263.96041775488425, 1e-8);
	assert_close(at.llr, -2.9695546997424476, 1e-9);
	assert_int_equal(sc_seq_decide(&st, &d, 2, 71.29804964156206), SC_SEQ_RULED_OUT);
	assert_int_equal(sc_seq_decision_result(SC_SEQ_RULED_OUT), SC_DECISION_RULED_OUT);
}

/*
 * The boundaries meet: with the information of i_max a drop above
 * (m + D) / 2 = 7.5 points fails and one below passes, at any look. A
 * drop of exactly 7.5 points before i_max (L = 0) is open until the cap,
 * then unverified; so is a check with no test judged at both sides.
 */
static void test_end_and_cap(void **state)
{
	struct sc_seq_design d;
	struct sc_stats_paired st;
	(void)state;

	design(&d, 1, 4, 1);
	memset(&st, 0, sizeof(st));
	st.tests = 10;
	st.se = 1.0 / sqrt(d.i_max * 1.01);
	st.mean = -0.076;
	assert_int_equal(sc_seq_decide(&st, &d, 1, 0.0), SC_SEQ_REGRESSION);
	st.mean = -0.074;
	assert_int_equal(sc_seq_decide(&st, &d, 1, 0.0), SC_SEQ_RULED_OUT);
	st.se = 1.0 / sqrt(d.i_max * 0.5);
	st.mean = -0.075;
	assert_int_equal(sc_seq_decide(&st, &d, 3, 0.0), SC_SEQ_OPEN);
	assert_int_equal(sc_seq_decide(&st, &d, 4, 0.0), SC_SEQ_UNVERIFIED);
	assert_int_equal(sc_seq_decision_result(SC_SEQ_UNVERIFIED), SC_DECISION_UNVERIFIED);
	/* nothing judged yet: open until the last look (the replay ends a
	 * check whose rounds ran and judged nothing: test_replay_nothing_judged) */
	st.tests = 0;
	assert_int_equal(sc_seq_decide(&st, &d, 1, 0.0), SC_SEQ_OPEN);
	assert_int_equal(sc_seq_decide(&st, &d, 4, 0.0), SC_SEQ_UNVERIFIED);
}

/*
 * A fixed design decides its one look by the plain one-sided tests: a
 * drop of 10 points with se 4 is shown (2.5 > z(0.96) = 1.75); 2 points
 * with se 5 rules out 15 ((15 - 2) / 5 = 2.6 > z(0.8) = 0.84); 10 points
 * with se 8 does neither (1.25, 0.625): unverified.
 */
static void test_fixed_by_hand(void **state)
{
	struct sc_seq_design d;
	struct sc_stats_paired st;
	(void)state;

	design(&d, 3, 0, 1);
	memset(&st, 0, sizeof(st));
	st.tests = 10;
	st.mean = -0.10;
	st.se = 0.04;
	assert_int_equal(sc_seq_decide(&st, &d, 1, 0.0), SC_SEQ_REGRESSION);
	st.mean = -0.02;
	st.se = 0.05;
	assert_int_equal(sc_seq_decide(&st, &d, 1, 0.0), SC_SEQ_RULED_OUT);
	st.mean = -0.10;
	st.se = 0.08;
	assert_int_equal(sc_seq_decide(&st, &d, 1, 0.0), SC_SEQ_UNVERIFIED);
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
			u->variant = t_variant(variant);
			u->model = sc_xstrdup("m");
			u->test_id = sc_xstrdup(id);
			u->run_index = k;
			u->kind = SC_KIND_TEXT;
			u->verdict = t_unit_verdict(pass ? "pass" : "fail");
		}
}

/*
 * The replay: 10 tests right at base and wrong at head. With run 0 only,
 * look 1 is open (test_regression_at_look_2) and nothing later exists:
 * more. With runs 0-1 look 2 shows the regression on 20 units per side;
 * units of later runs are not used.
 */
static void test_replay(void **state)
{
	struct sc_results r;
	struct sc_seq_design d;
	struct sc_seq_outcome o;
	(void)state;

	design(&d, 1, 20, 1);
	sc_results_init(&r);
	add_runs(&r, "base", 10, 0, 1, true);
	add_runs(&r, "head", 10, 0, 1, false);
	sc_seq_replay(&o, &r, "s", "m", &d);
	assert_int_equal(o.decision, SC_SEQ_OPEN);
	assert_true(o.more);
	assert_int_equal(o.look, 1);
	assert_int_equal(o.runs, 1);
	add_runs(&r, "base", 10, 1, 2, true);
	add_runs(&r, "head", 10, 1, 2, false);
	sc_seq_replay(&o, &r, "s", "m", &d);
	assert_int_equal(o.decision, SC_SEQ_REGRESSION);
	assert_false(o.more);
	assert_int_equal(o.look, 2);
	assert_int_equal(o.runs, 2);
	assert_int_equal(o.base_units, 20);
	assert_int_equal(o.head_units, 20);
	assert_close(o.st.mean, -1.0, 1e-12);
	assert_close(o.at.llr, 4.1625, 1e-9);
	add_runs(&r, "head", 10, 2, 4, true);
	sc_seq_replay(&o, &r, "s", "m", &d);
	assert_int_equal(o.look, 2);
	assert_int_equal(o.head_units, 20);
	sc_results_release(&r);
}

/*
 * A check whose first round ran and judged nothing (every unit an
 * error): unverified at look 1, not sampled on to the cap; a check with
 * no unit at all has not run yet: open.
 */
static void test_replay_nothing_judged(void **state)
{
	struct sc_results r;
	struct sc_seq_design d;
	struct sc_seq_outcome o;
	(void)state;

	design(&d, 1, 20, 1);
	sc_results_init(&r);
	sc_seq_replay(&o, &r, "s", "m", &d);
	assert_int_equal(o.decision, SC_SEQ_OPEN);
	assert_int_equal(o.look, 1);
	add_runs(&r, "base", 10, 0, 1, true);
	add_runs(&r, "head", 10, 0, 1, false);
	for (size_t i = 0; i < r.nunits; i++) {
		r.units[i].verdict = SC_UNIT_ERROR;
	}
	sc_seq_replay(&o, &r, "s", "m", &d);
	assert_int_equal(o.decision, SC_SEQ_UNVERIFIED);
	assert_false(o.more);
	assert_int_equal(o.look, 1);
	assert_int_equal(o.st.tests, 0);
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
	a->variant = t_variant(variant);
	a->model = sc_xstrdup("m");
	a->n = n;
	a->passed = passed;
	a->failed = n - passed;
	a->pass_rate = (double)passed / n;
}

static void one_skill(struct sc_results *r, const char *status)
{
	sc_results_init(r);
	r->skills = sc_xcalloc(1, sizeof(*r->skills));
	r->nskills = 1;
	r->skills[0].path = sc_xstrdup("s");
	r->skills[0].name = sc_xstrdup("s");
	r->skills[0].status = t_skill_status(status);
	r->skills[0].skill_md = sc_xstrdup("s/SKILL.md");
}

/*
 * The gate replays the design from the units and records the margin,
 * which survives JSON; the message says how it was decided. A check the
 * cap stops (one run each, max_runs 1) is unverified: its own status, a
 * failure of the gate with that status, exit 1, verdict unverified; with
 * gate.accept_unverified it is accepted: exit 0, the verdict still
 * unverified.
 */
static void test_gate_records_margin(void **state)
{
	struct sc_results r, back;
	struct sc_config_gate g = seq_gate(1, 20, 1);
	const struct sc_results_check *c;
	struct sc_buf json = SC_BUF_INIT;
	(void)state;

	one_skill(&r, "modified");
	add_agg(&r, "base", 20, 20);
	add_agg(&r, "head", 0, 20);
	add_runs(&r, "base", 10, 0, 2, true);
	add_runs(&r, "head", 10, 0, 2, false);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_int_equal(r.gate.verdict, SC_VERDICT_FAIL);
	c = sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE);
	assert_non_null(c);
	assert_int_equal(c->status, SC_STATUS_FAILED);
	assert_non_null(strstr(c->message, "a drop is shown"));
	assert_non_null(strstr(c->message, "sequential: 2 runs per test after 2 rounds, log "
				  "likelihood ratio 4.16"));
	assert_true(c->margin.present);
	assert_int_equal(c->margin.decision, SC_DECISION_REGRESSION);
	assert_int_equal(c->margin.rounds, 2);
	assert_int_equal(c->margin.runs_per_test, 2);
	assert_int_equal(c->margin.base_runs, 20);
	assert_int_equal(c->margin.head_runs, 20);
	assert_int_equal(c->margin.tests, 10);
	assert_close(c->margin.mean, -1.0, 1e-12);
	assert_close(c->margin.drop, 0.15, 1e-12);
	assert_close(c->margin.beta, 0.2, 1e-12);
	assert_close(c->margin.llr, 4.1625, 1e-9);
	assert_close(c->margin.info, 30, 1e-9);

	sc_results_format(&json, &r);
	assert_int_equal(sc_results_parse(&back, json.ptr, json.len, "r.json"), 0);
	assert_int_equal(back.gate.verdict, SC_VERDICT_FAIL);
	c = sc_results_find_check(&back, "s", "m", SC_CHECK_PASS_RATE);
	assert_non_null(c);
	assert_true(c->margin.present);
	assert_int_equal(c->margin.decision, SC_DECISION_REGRESSION);
	assert_int_equal(c->margin.rounds, 2);
	assert_int_equal(c->margin.base_runs, 20);
	assert_close(c->margin.mean, -1.0, 1e-12);
	assert_close(c->margin.llr, 4.1625, 1e-9);
	sc_results_release(&back);
	sc_buf_release(&json);
	sc_results_release(&r);

	/* the cap at one run: look 1 is open, and there is no later look */
	g = seq_gate(1, 1, 1);
	one_skill(&r, "modified");
	add_agg(&r, "base", 10, 10);
	add_agg(&r, "head", 0, 10);
	add_runs(&r, "base", 10, 0, 1, true);
	add_runs(&r, "head", 10, 0, 1, false);
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	assert_int_equal(r.gate.verdict, SC_VERDICT_UNVERIFIED);
	assert_int_equal(r.gate.unverified, 1);
	assert_false(r.gate.passed);
	c = sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE);
	assert_int_equal(c->status, SC_STATUS_UNVERIFIED);
	assert_false(c->accepted);
	assert_string_equal(c->rule, "pass_rate_unverified");
	assert_non_null(strstr(c->message, "gate.max_runs reached"));
	assert_int_equal(c->margin.decision, SC_DECISION_UNVERIFIED);
	assert_int_equal(r.gate.nfailures, 1);
	assert_int_equal(r.gate.failures[0].status, SC_STATUS_UNVERIFIED);
	g.accept_unverified = true;
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	assert_int_equal(r.gate.verdict, SC_VERDICT_UNVERIFIED);
	assert_true(r.gate.passed);
	c = sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE);
	assert_true(c->accepted);
	sc_results_release(&r);
}

/*
 * Evidence gaps: a test whose head units all erred (the infrastructure,
 * after its retries) leaves the check unverified even though the other
 * tests rule a drop out; a unit recorded "unverified" does too. A drop
 * shown on the other tests still fails.
 */
static void test_gate_missing_side(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = seq_gate(1, 20, 1);
	const struct sc_results_check *c;
	(void)state;

	one_skill(&r, "modified");
	add_agg(&r, "base", 120, 120);
	add_agg(&r, "head", 108, 120);
	add_runs(&r, "base", 30, 0, 4, true);
	add_runs(&r, "head", 30, 0, 4, true);
	for (size_t i = 0; i < r.nunits; i++)
		if (r.units[i].variant == SC_VARIANT_HEAD && !strcmp(r.units[i].test_id, "t7")) {
			r.units[i].verdict = SC_UNIT_ERROR;
		}
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	c = sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE);
	assert_int_equal(c->status, SC_STATUS_UNVERIFIED);
	assert_non_null(strstr(c->message, "test 't7' has no result at head"));
	/* the same with t7 judged: ruled out, passed */
	for (size_t i = 0; i < r.nunits; i++)
		if (r.units[i].verdict == SC_UNIT_ERROR) {
			r.units[i].verdict = SC_UNIT_PASS;
		}
	assert_int_equal(sc_gate_apply(&r, &g), 0);
	c = sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE);
	assert_int_equal(c->status, SC_STATUS_PASSED);
	assert_non_null(strstr(c->message, "no drop of 15 points or more"));
	/* one unit nobody can judge: unverified */
	r.units[3].verdict = SC_UNIT_UNVERIFIED;
	free(r.units[3].message);
	r.units[3].message = sc_xstrdup("no grader: set grader in the trusted config");
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	c = sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE);
	assert_int_equal(c->status, SC_STATUS_UNVERIFIED);
	assert_non_null(strstr(c->message, "no grader"));
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
 * A fixed design (3 runs) over three checks: m breaks every test (shown);
 * m3 changes nothing on a suite that always passes (the smoothed
 * variance of 6 of 6 is 7 / 64, se = sqrt(10 x 7/64 x 2/3) / 10 =
 * 0.0854; (15 - 0) / 8.54 = 1.76 > z(0.8): ruled out); m2 fails two
 * runs of three of 4 of 10 tests (26.7 points, se 0.107: 2.49 against
 * z(1 - 0.04/3) = 2.22, shown).
 */
static void test_fixed_over_checks(void **state)
{
	struct sc_results r;
	struct sc_config_gate g = seq_gate(3, 0, 3);
	static const char *const models[] = { "m", "m2", "m3" };
	static const enum sc_check_status want[] = { SC_STATUS_FAILED, SC_STATUS_FAILED, SC_STATUS_PASSED };
	(void)state;

	one_skill(&r, "modified");
	r.run.runs = 3;
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
			if (r.units[i].variant == SC_VARIANT_HEAD && r.units[i].run_index >= 1 &&
			    strchr("0123", r.units[i].test_id[1])) {
				r.units[i].verdict = SC_UNIT_FAIL;
			}
		set_model(&r, u0, a0, "m2");
		u0 = r.nunits, a0 = r.naggregates;
		add_agg(&r, "base", 30, 30);
		add_agg(&r, "head", 30, 30);
		add_runs(&r, "base", 10, 0, 3, true);
		add_runs(&r, "head", 10, 0, 3, true);
		set_model(&r, u0, a0, "m3");
	}
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	for (size_t i = 0; i < 3; i++) {
		const struct sc_results_check *c = sc_results_find_check(&r, "s", models[i], SC_CHECK_PASS_RATE);
		assert_non_null(c);
		assert_true(c->margin.present);
		assert_int_equal(c->status, want[i]);
		assert_non_null(strstr(c->message, "fixed design of 3 runs per test"));
	}
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
	r.skills[0].status = SC_SKILL_MODIFIED;
	add_agg(&r, "base", 40, 40);
	add_agg(&r, "head", 0, 40);
	add_runs(&r, "base", 10, 0, 4, true);
	add_runs(&r, "head", 10, 0, 4, false);
	r.flips = sc_xcalloc(SC_ARRAY_SIZE(h), sizeof(*r.flips));
	for (size_t i = 0; i < SC_ARRAY_SIZE(h); i++) {
		struct sc_results_flips *f = &r.flips[r.nflips++];
		f->skill = sc_xstrdup("s");
		f->variant = t_variant(h[i].variant);
		f->model = sc_xstrdup("m");
		f->test_id = sc_xstrdup(h[i].test);
		f->runs = h[i].runs;
		f->passes = h[i].passes;
		f->flip_rate = sc_results_flip_rate(h[i].passes, h[i].runs);
	}
	assert_int_equal(sc_gate_apply(&r, &g), 1);
	c = sc_results_find_check(&r, "s", "m", SC_CHECK_PASS_RATE);
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
		cmocka_unit_test(test_design_numbers),
		cmocka_unit_test(test_regression_at_look_2),
		cmocka_unit_test(test_ruled_out_at_look_2),
		cmocka_unit_test(test_end_and_cap),
		cmocka_unit_test(test_fixed_by_hand),
		cmocka_unit_test(test_replay),
		cmocka_unit_test(test_replay_nothing_judged),
		cmocka_unit_test(test_gate_records_margin),
		cmocka_unit_test(test_gate_missing_side),
		cmocka_unit_test(test_fixed_over_checks),
		cmocka_unit_test(test_margin_bad_decision),
		cmocka_unit_test(test_flips),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
