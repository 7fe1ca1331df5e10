/* Unit tests for sequential sampling's rounds (runner/pipeline/rounds.c):
 * which units the first round sends, and which the next round sends on a
 * results model: only the checks still open, up to the next look's runs,
 * a deferred unit coming back, units of no check never. */
#include "unit.h"
#include "states.h"
#include "pipeline/rounds.h"
#include "pipeline/sequential.h"
#include "results/results.h"

/* Units of ntests tests of skill at variant (model "m"), runs [from, to), all passing or not. */
static void add_runs(struct sc_results *r, const char *skill, const char *variant, int ntests,
		     int from, int to, bool pass)
{
	r->units = sc_xrealloc(r->units, (r->nunits + (size_t)(ntests * (to - from))) *
					 sizeof(*r->units));
	for (int t = 0; t < ntests; t++)
		for (int k = from; k < to; k++) {
			struct sc_results_unit *u = &r->units[r->nunits++];
			char id[32];
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

/*
 * The plan of the cases: skill 0 is check 0 ("s", base against head),
 * skill 1 check 1 ("e", eval's orientation: the skill as base, the
 * baseline as head), skill 2 belongs to no check; 2 tests each, runs 0-5.
 */
struct plan {
	struct sc_eval_unit_ref refs[3 * 2 * 6];
	size_t check_of[3 * 2 * 6];
	size_t n;
	struct sc_rounds_check checks[2];
	struct sc_seq_design d;
	struct sc_rounds rd;
	int deferred;   /* times defer said yes */
};

/* Defers skill 0's test 0, run 1 (as run defers a test stable at base). */
static bool defer_one(const struct sc_eval_unit_ref *ref, void *payload)
{
	struct plan *p = payload;
	bool yes = ref->skill == 0 && ref->test == 0 && ref->run == 1;

	p->deferred += yes;
	return yes;
}

static void plan_init(struct plan *p)
{
	memset(p, 0, sizeof(*p));
	for (uint32_t s = 0; s < 3; s++)
		for (uint32_t t = 0; t < 2; t++)
			for (int r = 0; r < 6; r++) {
				p->refs[p->n].skill = s;
				p->refs[p->n].test = t;
				p->refs[p->n].run = r;
				p->check_of[p->n] = s < 2 ? s : SC_ROUNDS_NONE;
				p->n++;
			}
	p->checks[0] = (struct sc_rounds_check){ "s", "m", SC_VARIANT_BASE, SC_VARIANT_HEAD };
	p->checks[1] = (struct sc_rounds_check){ "e", "m", SC_VARIANT_HEAD, SC_VARIANT_BASELINE };
	/* margin 0, D 15 points, looks at 2, 4 and 6 runs per test */
	sc_seq_design_init(&p->d, 0.05, 0.2, 0.0, 0.15, 2, 6, 1);
	p->rd.design = &p->d;
	p->rd.checks = p->checks;
	p->rd.nchecks = 2;
	p->rd.refs = p->refs;
	p->rd.nrefs = p->n;
	p->rd.check_of = p->check_of;
	p->rd.defer = defer_one;
	p->rd.payload = p;
}

static bool has(const struct sc_eval_unit_ref *round, size_t n, uint32_t skill, uint32_t test,
		int run)
{
	for (size_t i = 0; i < n; i++)
		if (round[i].skill == skill && round[i].test == test && round[i].run == run)
			return true;
	return false;
}

/* The first round: every unit below look 1's 2 runs (12), less the deferred one. */
static void test_first_round(void **state)
{
	struct plan p;
	struct sc_eval_unit_ref round[36];
	bool sent[36] = { false };
	size_t n;
	(void)state;

	plan_init(&p);
	n = sc_rounds_first(&p.rd, sent, round);
	assert_int_equal(n, 11);
	assert_int_equal(p.deferred, 1);
	for (size_t i = 0; i < n; i++)
		assert_true(round[i].run < 2);
	assert_false(has(round, n, 0, 0, 1));
	assert_true(has(round, n, 0, 1, 1));
	assert_true(has(round, n, 2, 0, 0));   /* a unit of no check: the first round */
	for (size_t u = 0; u < p.n; u++)
		assert_int_equal(sent[u], p.refs[u].run < 2 && !(p.refs[u].skill == 0 &&
								 p.refs[u].test == 0 &&
								 p.refs[u].run == 1));
	/* without defer: all 12 */
	plan_init(&p);
	p.rd.defer = NULL;
	memset(sent, 0, sizeof(sent));
	assert_int_equal(sc_rounds_first(&p.rd, sent, round), 12);
}

/*
 * After look 1: check 0 ties (base and head right on both its tests, 2
 * runs: information 4 / (2 x 5/36) = 14.4, log likelihood ratio -0.16,
 * not yet below the passing boundary: open), check 1 shows the lift (the skill right on
 * all, the baseline wrong on all: ratio 4.16, above the failing one,
 * which in eval's orientation is a lift). The next round is check 0's
 * unsent units below 4 runs: the deferred run 1 of test 0 and runs 2-3 of
 * both tests; nothing of check 1, nothing of skill 2.
 */
static void test_next_round_open_only(void **state)
{
	struct plan p;
	struct sc_results r;
	struct sc_eval_unit_ref round[36];
	bool sent[36] = { false };
	struct sc_seq_outcome o;
	size_t n;
	(void)state;

	plan_init(&p);
	sc_results_init(&r);
	add_runs(&r, "s", "base", 2, 0, 2, true);
	add_runs(&r, "s", "head", 2, 0, 2, true);
	add_runs(&r, "e", "head", 10, 0, 2, true);
	add_runs(&r, "e", "baseline", 10, 0, 2, false);
	sc_seq_replay_of(&o, &r, "s", "m", SC_VARIANT_BASE, SC_VARIANT_HEAD, &p.d);
	assert_int_equal(o.decision, SC_SEQ_OPEN);
	assert_true(o.more);
	sc_seq_replay_of(&o, &r, "e", "m", SC_VARIANT_HEAD, SC_VARIANT_BASELINE, &p.d);
	assert_int_equal(o.decision, SC_SEQ_REGRESSION);  /* the lift, in eval's orientation */
	assert_true(o.st.mean < 0);

	assert_int_equal(sc_rounds_first(&p.rd, sent, round), 11);
	n = sc_rounds_next(&p.rd, &r, 1, sent, round);
	assert_int_equal(n, 5);
	assert_true(has(round, n, 0, 0, 1));
	assert_true(has(round, n, 0, 0, 2) && has(round, n, 0, 0, 3));
	assert_true(has(round, n, 0, 1, 2) && has(round, n, 0, 1, 3));
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(round[i].skill, 0);
		assert_true(round[i].run < 4);
	}
	/* sent again: a second call sends nothing twice */
	assert_int_equal(sc_rounds_next(&p.rd, &r, 1, sent, round), 0);

	/* at the last look (3 of 3) nothing more, open or not */
	assert_int_equal(sc_seq_looks(&p.d), 3);
	memset(sent, 0, sizeof(sent));
	assert_int_equal(sc_rounds_next(&p.rd, &r, 3, sent, round), 0);
	sc_results_release(&r);
}

/*
 * A check whose results already hold a later look's units (a store
 * reused them, or another round ran) is not open at look k: only a check
 * open at exactly look k with nothing after it gets the round.
 */
static void test_next_round_not_at_this_look(void **state)
{
	struct plan p;
	struct sc_results r;
	struct sc_eval_unit_ref round[36];
	bool sent[36] = { false };
	size_t n;
	(void)state;

	plan_init(&p);
	sc_results_init(&r);
	add_runs(&r, "s", "base", 10, 0, 4, true);
	add_runs(&r, "s", "head", 10, 0, 4, true);
	/* check 0 is decided at look 1 (forty passes of forty runs rule a
	 * drop of D out), so it is not open at look 1:
	 * only check 1, without any unit (open at look 1), gets its runs 0-3 */
	n = sc_rounds_next(&p.rd, &r, 1, sent, round);
	assert_int_equal(n, 8);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(round[i].skill, 1);
	/* with check 0 named for a skill without units, it is open at look 1 too */
	memset(sent, 0, sizeof(sent));
	p.checks[0].skill = "none";
	assert_int_equal(sc_rounds_next(&p.rd, &r, 1, sent, round), 8 + 8);
	sc_results_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_round),
		cmocka_unit_test(test_next_round_open_only),
		cmocka_unit_test(test_next_round_not_at_this_look),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
