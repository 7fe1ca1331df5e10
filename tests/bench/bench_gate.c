/*
 * The gate's operating characteristics, simulated (tests/bench/bench_gate.sh).
 * A fake student passes each test of a skill with a known probability, at
 * base and at head; every simulated PR draws its runs and is decided twice:
 * by the old fixed rule (fail on a raw drop of more than the margin, or on
 * a significant McNemar p-value over the units), by the gate's fixed
 * design (core/stats.h sc_stats_paired_margin per check, sc_stats_holm
 * over the PR's checks, pipeline/gate.h sc_gate_margin_decide) and by its
 * sequential design (pipeline/sequential.h sc_seq_decide after each round,
 * the function the pipeline and the gate use). Prints per profile,
 * scenario and design the share of PRs that fail (95% Wilson interval),
 * the share left inconclusive, and the mean requests one PR costs; then
 * per profile the smallest uniform drop each design catches in 80% of
 * PRs; then, at equal error rates, the sequential design's mean requests
 * against the fixed design with the smallest R of the same power.
 *
 * Usage: bench_gate [PRS [SEED [FIRST MAX [RHO RHO_BETA [RULE_OUT_POWER]]]]]
 * (the sequential design's rounds, budget and spending; BENCH_QUICK=1 in
 * the environment prints only the equal-error tables, BENCH_METRIC=1 only
 * the measured-value checks)
 */
#include "common.h"
#include "stats.h"
#include "pipeline/config.h"
#include "pipeline/gate.h"
#include "pipeline/sequential.h"
#include "results/results.h"

#include <math.h>

#define TESTS   10
#define MARGIN  0.05
#define ALPHA   0.05
#define MAXCHK  10

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static double uniform(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (double)((rng_state * 0x2545F4914F6CDD1DULL) >> 11) / 9007199254740992.0;
}

struct profile {
	const char *name;
	double p[TESTS];
};

static const struct profile profiles[] = {
	{ "easy", { 0.99, 0.98, 0.97, 0.96, 0.95, 0.94, 0.93, 0.92, 0.9, 0.85 } },
	{ "mixed", { 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5 } },
	{ "hard", { 0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2, 0.15, 0.12, 0.1 } },
	{ "flaky", { 0.97, 0.97, 0.97, 0.97, 0.97, 0.97, 0.97, 0.97, 0.97, 0.5 } },
};

struct scenario {
	const char *name;
	double drop;     /* subtracted from every test's probability at head */
	int broken;      /* tests that never pass at head */
	int checks;      /* skills x models in the PR, all with the same change */
};

static const struct scenario scenarios[] = {
	{ "no change", 0, 0, 1 },
	{ "2-point drop", 0.02, 0, 1 },
	{ "5-point drop (margin)", 0.05, 0, 1 },
	{ "35-point drop", 0.35, 0, 1 },
	{ "3 tests broken", 0, 3, 1 },
	{ "no change, 5 skills x 2 models", 0, 0, 10 },
};

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

/* One check's draws: passes per test at base and head, runs each. */
static void draw(const double *pb, const double *ph, int runs, unsigned long *bp,
		 unsigned long *hp)
{
	for (int t = 0; t < TESTS; t++) {
		bp[t] = hp[t] = 0;
		for (int k = 0; k < runs; k++) {
			bp[t] += uniform() < pb[t];
			hp[t] += uniform() < ph[t];
		}
	}
}

/*
 * The old rule on one check: McNemar over units paired by (test, run), a
 * significant drop, or a raw drop of more than the margin.
 */
static bool old_fails(const double *pb, const double *ph, int runs)
{
	unsigned long b = 0, c = 0, nb = 0, nh = 0, n = (unsigned long)(TESTS * runs);
	for (int t = 0; t < TESTS; t++)
		for (int k = 0; k < runs; k++) {
			bool x = uniform() < pb[t], y = uniform() < ph[t];
			nb += x;
			nh += y;
			b += x && !y;
			c += !x && y;
		}
	double delta = ((double)nh - (double)nb) / (double)n;
	if (delta < 0 && b + c > 0 && sc_stats_mcnemar_p(b, c) < ALPHA)
		return true;
	return -delta > MARGIN + 1e-9;
}

/* The gate on one PR of checks checks: 1 failed, 0 passed, -1 inconclusive (none failed). */
static int new_verdict(const double *pb, const double *ph, int runs, int checks,
		       enum sc_stats_method method)
{
	struct sc_stats_paired st[MAXCHK];
	double p[MAXCHK] = { 0 };
	unsigned long bp[TESTS], hp[TESTS], n[TESTS];
	bool open = false;

	for (int t = 0; t < TESTS; t++)
		n[t] = (unsigned long)runs;
	for (int i = 0; i < checks; i++) {
		draw(pb, ph, runs, bp, hp);
		sc_stats_paired_margin(&st[i], bp, n, hp, n, TESTS, MARGIN, ALPHA, method);
		p[i] = st[i].p_drop;
	}
	sc_stats_holm(p, (size_t)checks, p);
	for (int i = 0; i < checks; i++) {
		enum sc_gate_margin v = sc_gate_margin_decide(p[i], st[i].p_within, ALPHA * (1 - SC_GATE_METRIC_SHARE), ALPHA);
		if (v == SC_GATE_MARGIN_DROP)
			return 1;
		open |= v == SC_GATE_MARGIN_OPEN;
	}
	return open ? -1 : 0;
}

/*
 * The sequential design on one PR of checks checks (pipeline/sequential.h,
 * the function the pipeline and the gate decide with): each check draws
 * first_runs more runs per test at both sides per round until
 * sc_seq_decide stops it. Adds the requests made to *requests. 1 failed,
 * 0 passed, -1 inconclusive (none failed).
 */
/* One check of the sequential design d: rounds of runs until it stops;
 * adds its requests to *requests, leaves the stopping look's statistics
 * in *st_out and returns the decision. */
static enum sc_seq_decision seq_check(const double *pb, const double *ph,
				      const struct sc_seq_design *d, long *requests,
				      struct sc_stats_paired *st_out, int *look)
{
	unsigned long bp[TESTS] = { 0 }, hp[TESTS] = { 0 }, n[TESTS];
	int have = 0;
	enum sc_seq_decision v = SC_SEQ_OPEN;

	for (int k = 1; k <= sc_seq_looks(d); k++) {
		int want = sc_seq_look_runs(d, k);
		for (int t = 0; t < TESTS; t++) {
			for (int r = have; r < want; r++) {
				bp[t] += uniform() < pb[t];
				hp[t] += uniform() < ph[t];
			}
			n[t] = (unsigned long)want;
		}
		*requests += 2L * TESTS * (want - have);
		have = want;
		sc_stats_paired_margin(st_out, bp, n, hp, n, TESTS, d->margin, d->alpha,
				       SC_STATS_STRATIFIED);
		*look = k;
		if ((v = sc_seq_decide(st_out, d, k)) != SC_SEQ_OPEN)
			break;
	}
	return v;
}

/* The design d0 for a PR of checks checks (its levels computed once per family). */
static const struct sc_seq_design *seq_family(const struct sc_seq_design *d0, int checks)
{
	static struct sc_seq_design d;

	if (d.family != (size_t)checks || d.max_runs != d0->max_runs || d.rho != d0->rho ||
	    d.rho_beta != d0->rho_beta || d.first_runs != d0->first_runs ||
	    d.rule_out_power != d0->rule_out_power) {
		d = *d0;
		d.family = (size_t)checks;
		sc_seq_design_compute(&d);
	}
	return &d;
}

/*
 * A PR of checks checks under the sequential design (sequential.h, the
 * function the pipeline and the gate decide with): each check draws
 * first_runs more runs per test at both sides per round until
 * sc_seq_decide stops it. Adds the requests made to *requests. 1 failed,
 * 0 passed, -1 inconclusive (none failed).
 */
static int seq_verdict(const double *pb, const double *ph, const struct sc_seq_design *d0,
		       int checks, long *requests)
{
	const struct sc_seq_design *d = seq_family(d0, checks);
	bool open = false, failed = false;

	for (int i = 0; i < checks; i++) {
		struct sc_stats_paired st;
		int look;
		enum sc_seq_decision v = seq_check(pb, ph, d, requests, &st, &look);
		failed |= v == SC_SEQ_REGRESSION;
		open |= v != SC_SEQ_REGRESSION && v != SC_SEQ_RULED_OUT;
	}
	return failed ? 1 : open ? -1 : 0;
}

static void head_probs(const struct profile *pr, const struct scenario *sc, double drop,
		       double *ph)
{
	for (int t = 0; t < TESTS; t++)
		ph[t] = t >= TESTS - sc->broken ? 0.0 : clamp01(pr->p[t] - drop);
}

static void print_rate(const char *label, long k, long n)
{
	double lo, hi;
	sc_stats_wilson(&lo, &hi, (unsigned long)k, (unsigned long)n, SC_STATS_Z95);
	printf(" %s %5.1f%% [%4.1f, %4.1f]", label, 100.0 * (double)k / (double)n, 100 * lo, 100 * hi);
}

/* The share of prs PRs of one check that fail with drop at head, for a fixed design of
 * runs runs (seq NULL) or the sequential design seq; mean requests in *req. */
static double power_at(const struct profile *pr, double drop, int runs,
		       const struct sc_seq_design *seq, long prs, double *req)
{
	double ph[TESTS];
	long failed = 0, requests = 0;

	head_probs(pr, &scenarios[0], drop, ph);
	for (long k = 0; k < prs; k++) {
		if (seq)
			failed += seq_verdict(pr->p, ph, seq, 1, &requests) == 1;
		else
			failed += new_verdict(pr->p, ph, runs, 1, SC_STATS_STRATIFIED) == 1;
	}
	if (req)
		*req = seq ? (double)requests / (double)prs : 2.0 * TESTS * runs;
	return (double)failed / (double)prs;
}

/* The mean drop over the tests (points) when every test's probability is lowered by drop. */
static double real_drop(const struct profile *pr, double drop)
{
	double ph[TESTS], real = 0;

	head_probs(pr, &scenarios[0], drop, ph);
	for (int t = 0; t < TESTS; t++)
		real += pr->p[t] - ph[t];
	return 100 * real / TESTS;
}

/* The smallest uniform drop (whole points) failed in >= 80% of PRs; -1 when none. */
static int drop_80(const struct profile *pr, int runs, const struct sc_seq_design *seq, long prs)
{
	for (int drop = 1; drop <= 100; drop++)
		if (power_at(pr, drop / 100.0, runs, seq, prs, NULL) >= 0.8)
			return drop;
	return -1;
}

/* The sequential design's mean requests of one check over the
 * benchmark's one-check scenarios (no change, 2 and 5 points, 35 points,
 * 3 tests broken): the mix of PRs a repository sends. */
static double mix_requests(const struct profile *pr, const struct sc_seq_design *seq, long prs)
{
	double sum = 0;
	int n = 0;

	for (size_t si = 0; si < SC_ARRAY_SIZE(scenarios); si++) {
		const struct scenario *sc = &scenarios[si];
		double ph[TESTS];
		long requests = 0;
		if (sc->checks != 1)
			continue;
		head_probs(pr, sc, sc->drop, ph);
		for (long k = 0; k < prs; k++)
			(void)seq_verdict(pr->p, ph, seq, 1, &requests);
		sum += (double)requests / (double)prs;
		n++;
	}
	return n ? sum / n : NAN;
}

/*
 * The interval a sequential check reports, against the truth: for each
 * profile and one-check scenario the true mean difference is known (the
 * mean of the head's minus the base's probabilities), so the share of PRs
 * whose stopping look's interval misses it, below (lower end above the
 * truth) and above (upper end below it), is measured, for the look's
 * plain (1 - 2 alpha) interval and for the interval at the look's levels
 * the gate reports (sc_seq_interval). Each end may miss at most alpha.
 */
static void coverage(const struct sc_seq_design *seq, long prs)
{
	printf("\n# the interval of a sequential check at the look it stopped at, against the true"
	       " difference: the share of PRs whose lower end is above the truth (nominal <= %g%%)"
	       " and whose upper end is below it; plain = the look's 90%% interval, reported = at"
	       " the look's levels (sc_seq_interval)\n", ALPHA * 100);
	printf("%-7s %-31s %-16s %-16s %-16s %s\n", "profile", "scenario", "plain lo miss",
	       "reported lo miss", "plain hi miss", "reported hi miss");
	for (size_t pi = 0; pi < SC_ARRAY_SIZE(profiles); pi++) {
		const struct profile *pr = &profiles[pi];
		for (size_t si = 0; si < SC_ARRAY_SIZE(scenarios); si++) {
			const struct scenario *sc = &scenarios[si];
			double ph[TESTS], truth = 0;
			long plo = 0, rlo = 0, phi = 0, rhi = 0, requests = 0;
			if (sc->checks != 1)
				continue;
			head_probs(pr, sc, sc->drop, ph);
			for (int t = 0; t < TESTS; t++)
				truth += (ph[t] - pr->p[t]) / TESTS;
			for (long k = 0; k < prs; k++) {
				struct sc_stats_paired st;
				int look;
				(void)seq_check(pr->p, ph, seq_family(seq, 1), &requests, &st, &look);
				plo += st.lo > truth + 1e-12;
				phi += st.hi < truth - 1e-12;
				sc_seq_interval(&st, seq_family(seq, 1), look);
				rlo += st.lo > truth + 1e-12;
				rhi += st.hi < truth - 1e-12;
			}
			printf("%-7s %-31s %-16.1f %-16.1f %-16.1f %.1f\n", pr->name, sc->name,
			       100.0 * (double)plo / (double)prs, 100.0 * (double)rlo / (double)prs,
			       100.0 * (double)phi / (double)prs, 100.0 * (double)rhi / (double)prs);
		}
	}
}

/*
 * skillci eval's sequential lift decision (docs/evaluation.md,
 * "Sequential sampling in eval"): the same design turned around, the
 * skill as the statistic's base side and the baseline (the profile's
 * probabilities) as its head side, margin 0 (eval's default
 * --lift-margin). Per profile and true lift (every test's probability
 * raised by it, capped at 1; shown as the mean over the tests): the share
 * of calls that report a lift (with no lift: the false claim, at most
 * alpha), that rule one out, and the mean requests (skill and baseline).
 */
static void eval_lift(const struct sc_seq_design *seq, long prs)
{
	static const int lifts[] = { 0, 5, 10, 20, 35 };
	struct sc_seq_design d;

	sc_seq_design_init(&d, ALPHA, 0.0, seq->first_runs, seq->max_runs, 1);
	printf("\n# skillci eval's lift decision (seq-%d/%d turned around, margin 0): the share of"
	       " calls reporting a lift, ruling one out (the skill does worse), inconclusive, and"
	       " the mean requests of one skill x model\n", d.first_runs, d.max_runs);
	printf("%-7s %-10s %-28s %-28s %-28s %s\n", "profile", "true lift", "lift shown [95% CI]",
	       "ruled out [95% CI]", "inconclusive [95% CI]", "mean requests");
	for (size_t pi = 0; pi < SC_ARRAY_SIZE(profiles); pi++) {
		const struct profile *pr = &profiles[pi];
		for (size_t li = 0; li < SC_ARRAY_SIZE(lifts); li++) {
			double skill[TESTS], real = 0;
			long shown = 0, none = 0, open = 0, requests = 0;
			for (int t = 0; t < TESTS; t++) {
				skill[t] = clamp01(pr->p[t] + lifts[li] / 100.0);
				real += (skill[t] - pr->p[t]) * 100 / TESTS;
			}
			if (li && real < 1)
				continue;  /* the profile has no room for this lift */
			for (long k = 0; k < prs; k++) {
				struct sc_stats_paired st;
				int look;
				enum sc_seq_decision v = seq_check(skill, pr->p, &d, &requests, &st, &look);
				shown += v == SC_SEQ_REGRESSION;
				none += v == SC_SEQ_RULED_OUT;
				open += v != SC_SEQ_REGRESSION && v != SC_SEQ_RULED_OUT;
			}
			printf("%-7s %-10.1f", pr->name, real);
			print_rate("", shown, prs);
			print_rate(" ", none, prs);
			print_rate(" ", open, prs);
			printf(" %.1f\n", (double)requests / (double)prs);
		}
	}
}

/* The drop (pass-rate fraction) the sequential design seq catches with
 * 80% power, interpolated between the whole points around it; NAN when
 * none up to 100 points. */
static double drop_80_exact(const struct profile *pr, const struct sc_seq_design *seq, long prs)
{
	double prev = power_at(pr, 0.0, 0, seq, prs, NULL);

	for (int drop = 1; drop <= 100; drop++) {
		double pw = power_at(pr, drop / 100.0, 0, seq, prs, NULL);
		if (pw >= 0.8)
			return (drop - 1 + (0.8 - prev) / (pw - prev)) / 100.0;
		prev = pw;
	}
	return NAN;
}

/* The runs per test a fixed design needs for 80% power at drop,
 * interpolated between the whole R around it; NAN when 60 do not. */
static double runs_80_exact(const struct profile *pr, double drop, long prs)
{
	double prev = 0.0;

	for (int r = 1; r <= 60; r++) {
		double pw = power_at(pr, drop, r, NULL, prs, NULL);
		if (pw >= 0.8)
			return r - 1 + (0.8 - prev) / (pw - prev);
		prev = pw;
	}
	return NAN;
}

/* A results model of one modified skill "s", model "m", TESTS tests of
 * runs runs each side, every unit passing, with tokens, a kernel speedup and a
 * judge score drawn around the given means with a uniform relative
 * spread (its standard deviation). */
static void metric_pr(struct sc_results *r, const double mean_b[3], const double mean_h[3],
		      double spread, int runs)
{
	double sum[2][3] = { { 0 } };

	sc_results_init(r);
	r->skills = sc_xcalloc(1, sizeof(*r->skills));
	r->nskills = 1;
	r->skills[0].path = sc_xstrdup("s");
	r->skills[0].name = sc_xstrdup("s");
	r->skills[0].status = sc_xstrdup("modified");
	r->units = sc_xcalloc(2 * TESTS * (size_t)runs, sizeof(*r->units));
	for (int side = 0; side < 2; side++)
		for (int i = 0; i < TESTS * runs; i++) {
			int t = i / runs;
			struct sc_results_unit *u = &r->units[r->nunits++];
			const double *mean = side ? mean_h : mean_b;
			double e[3];
			char id[16];
			for (int k = 0; k < 3; k++)
				e[k] = 1 + (uniform() - 0.5) * spread * sqrt(12.0);
			sc_results_unit_init(u);
			snprintf(id, sizeof(id), "t%d", t);
			u->skill = sc_xstrdup("s");
			u->model = sc_xstrdup("m");
			u->variant = sc_xstrdup(side ? "head" : "base");
			u->test_id = sc_xstrdup(id);
			u->run_index = i % runs;
			u->kind = sc_xstrdup("kernel");
			u->verdict = sc_xstrdup("pass");
			u->tokens_in = (int64_t)(mean[0] * e[0]);
			u->kernel = sc_xcalloc(1, sizeof(*u->kernel));
			sc_results_kernel_init(u->kernel);
			u->kernel->speedup = mean[1] * e[1];
			u->judge_score = mean[2] * e[2];
			sum[side][0] += (double)u->tokens_in;
			sum[side][1] += log(u->kernel->speedup);
			sum[side][2] += u->judge_score;
		}
	r->aggregates = sc_xcalloc(2, sizeof(*r->aggregates));
	for (int side = 0; side < 2; side++) {
		struct sc_results_aggregate *a = &r->aggregates[r->naggregates++];
		sc_results_aggregate_init(a);
		a->skill = sc_xstrdup("s");
		a->model = sc_xstrdup("m");
		a->variant = sc_xstrdup(side ? "head" : "base");
		a->n = a->passed = TESTS * runs;
		a->pass_rate = 1.0;
		a->mean_tokens = sum[side][0] / a->n;
		a->speedup_geomean = exp(sum[side][1] / (double)a->n);
		a->judge_mean = sum[side][2] / (double)a->n;
	}
}

/*
 * The token, speedup and judge checks (pipeline/gate.h, decided per test
 * by sc_gate_apply itself) on PRs whose true change is known: nothing
 * changed, with the values' spread from run to run 10-50%; and a real
 * regression of each (tokens +50%, speedup -30%, judge -0.2 of 0.6) at
 * 30%. The share of PRs the gate fails, against what the raw limits
 * (tokens +20%, speedup -10%, judge -0.1 on the means) would fail.
 */
static void metric_checks(long prs)
{
	static const struct {
		const char *name;
		double head[3], spread;
		int runs;
	} cases[] = {
		{ "no change, 10% spread", { 1000, 2.0, 0.6 }, 0.1, 1 },
		{ "no change, 30% spread", { 1000, 2.0, 0.6 }, 0.3, 1 },
		{ "no change, 50% spread", { 1000, 2.0, 0.6 }, 0.5, 1 },
		{ "no change, 30%, 3 runs", { 1000, 2.0, 0.6 }, 0.3, 3 },
		{ "tokens +50%, 30% spread", { 1500, 2.0, 0.6 }, 0.3, 1 },
		{ "tokens +50%, 30%, 3 runs", { 1500, 2.0, 0.6 }, 0.3, 3 },
		{ "tokens +50%, 10% spread", { 1500, 2.0, 0.6 }, 0.1, 1 },
		{ "speedup -30%, 30% spread", { 1000, 1.4, 0.6 }, 0.3, 1 },
		{ "speedup -30%, 30%, 3 runs", { 1000, 1.4, 0.6 }, 0.3, 3 },
		{ "judge -0.2, 30% spread", { 1000, 2.0, 0.4 }, 0.3, 1 },
		{ "judge -0.2, 30%, 3 runs", { 1000, 2.0, 0.4 }, 0.3, 3 },
	};
	const double base[3] = { 1000, 2.0, 0.6 };
	struct sc_config cfg;

	sc_config_defaults(&cfg);
	printf("\n# the token, speedup and judge checks (sc_gate_apply, per test and paired, Holm"
	       " over them at %g of alpha %g): %d tests, one run a side unless said, every unit passing; the"
	       " share of PRs failed, and what the raw limits on the means would fail\n",
	       SC_GATE_METRIC_SHARE, ALPHA, TESTS);
	printf("%-27s %-28s %s\n", "case", "gate failed [95% CI]", "raw limits failed [95% CI]");
	for (size_t c = 0; c < SC_ARRAY_SIZE(cases); c++) {
		long failed = 0, raw = 0;
		for (long k = 0; k < prs; k++) {
			struct sc_results r;
			const struct sc_results_aggregate *b, *h;
			metric_pr(&r, base, cases[c].head, cases[c].spread, cases[c].runs);
			b = &r.aggregates[0];
			h = &r.aggregates[1];
			raw += h->mean_tokens > b->mean_tokens * 1.2 ||
			       h->speedup_geomean < b->speedup_geomean * 0.9 ||
			       h->judge_mean < b->judge_mean - 0.1;
			failed += sc_gate_apply(&r, &cfg.gate) != 0;
			sc_results_release(&r);
		}
		printf("%-27s", cases[c].name);
		print_rate("", failed, prs);
		print_rate("  ", raw, prs);
		printf("\n");
	}
	sc_config_release(&cfg);
}

int main(int argc, char **argv)
{
	long prs = argc > 1 ? atol(argv[1]) : 400;
	int first = argc > 3 ? atoi(argv[3]) : SC_CONFIG_FIRST_RUNS;
	int maxr = argc > 4 ? atoi(argv[4]) : 20;
	static const int old_runs[] = { 1, 3 }, new_runs[] = { 1, 3, 10 };
	static const struct {
		const char *name;
		enum sc_stats_method method;
	} methods[] = { { "new", SC_STATS_STRATIFIED }, { "clus", SC_STATS_CLUSTER } };
	struct sc_seq_design seq;
	char seqname[32];
	long eq_prs;

	if (argc > 2)
		rng_state ^= (uint64_t)strtoull(argv[2], NULL, 10) * 0x100000001b3ULL;
	if (prs < 1)
		prs = 1;
	if (first < 1)
		first = 1;
	if (maxr < first)
		maxr = first;
	sc_seq_design_init(&seq, ALPHA, MARGIN, first, maxr, 1);
	/* the gate's share for the pass-rate checks: the rest goes to the
	 * token, speedup and judge checks (pipeline/gate.h) */
	sc_seq_design_fail_alpha(&seq, ALPHA * (1 - SC_GATE_METRIC_SHARE));
	if (argc > 5)
		seq.rho = atof(argv[5]);
	if (argc > 6)
		seq.rho_beta = atof(argv[6]);
	if (argc > 7)
		seq.rule_out_power = atof(argv[7]);
	sc_seq_design_compute(&seq);
	if (getenv("BENCH_METRIC")) {
		metric_checks(prs);
		return 0;
	}
	if (getenv("BENCH_QUICK"))
		goto equal;
	snprintf(seqname, sizeof(seqname), "seq-%d/%d", first, maxr);
	printf("# %ld simulated PRs per row; %d tests per skill; margin %g points; alpha %g\n",
	       prs, TESTS, MARGIN * 100, ALPHA);
	printf("# design: old-R = raw drop > margin or McNemar p < alpha, R runs;"
	       " new-R = the gate: paired per test, stratified, + Holm, R runs;"
	       " clus-R = the same with the cluster (tests sampled) variance;"
	       " seq-F/M = sequential: rounds of F runs per test up to M, O'Brien-Fleming-type"
	       " spending, Bonferroni over the PR's checks (pipeline/sequential.h)\n");
	printf("%-7s %-31s %-9s %-28s %-28s %s\n", "profile", "scenario", "design", "failed [95% CI]",
	       "inconclusive [95% CI]", "mean requests/PR");
	for (size_t pi = 0; pi < SC_ARRAY_SIZE(profiles); pi++) {
		const struct profile *pr = &profiles[pi];
		for (size_t si = 0; si < SC_ARRAY_SIZE(scenarios); si++) {
			const struct scenario *sc = &scenarios[si];
			double ph[TESTS];
			head_probs(pr, sc, sc->drop, ph);
			for (size_t d = 0; d < SC_ARRAY_SIZE(old_runs); d++) {
				long failed = 0;
				for (long k = 0; k < prs; k++) {
					bool any = false;
					for (int c = 0; c < sc->checks; c++)
						any |= old_fails(pr->p, ph, old_runs[d]);
					failed += any;
				}
				printf("%-7s %-31s old-%-5d", pr->name, sc->name, old_runs[d]);
				print_rate("", failed, prs);
				printf("  %-27s %d\n", "-", 2 * TESTS * old_runs[d] * sc->checks);
			}
			for (size_t mi = 0; mi < SC_ARRAY_SIZE(methods); mi++)
			for (size_t d = 0; d < SC_ARRAY_SIZE(new_runs); d++) {
				long failed = 0, open = 0;
				for (long k = 0; k < prs; k++) {
					int v = new_verdict(pr->p, ph, new_runs[d], sc->checks,
							    methods[mi].method);
					failed += v == 1;
					open += v == -1;
				}
				printf("%-7s %-31s %s-%-*d", pr->name, sc->name, methods[mi].name,
				       9 - (int)strlen(methods[mi].name) - 1, new_runs[d]);
				print_rate("", failed, prs);
				print_rate(" ", open, prs);
				printf(" %d\n", 2 * TESTS * new_runs[d] * sc->checks);
			}
			{
				long failed = 0, open = 0, requests = 0;
				for (long k = 0; k < prs; k++) {
					int v = seq_verdict(pr->p, ph, &seq, sc->checks, &requests);
					failed += v == 1;
					open += v == -1;
				}
				printf("%-7s %-31s %-9s", pr->name, sc->name, seqname);
				print_rate("", failed, prs);
				print_rate(" ", open, prs);
				printf(" %.1f\n", (double)requests / (double)prs);
			}
		}
	}
	printf("\n# the smallest uniform drop (every test's probability lowered by it, floored"
	       " at 0; shown as the mean drop over the tests) failed in >= 80%% of PRs, one check\n");
	printf("%-7s %-9s %s\n", "profile", "design", "drop caught with 80% power");
	for (size_t pi = 0; pi < SC_ARRAY_SIZE(profiles); pi++) {
		const struct profile *pr = &profiles[pi];
		for (size_t d = 0; d <= SC_ARRAY_SIZE(new_runs); d++) {
			bool s = d == SC_ARRAY_SIZE(new_runs);
			int found = drop_80(pr, s ? 0 : new_runs[d], s ? &seq : NULL, prs);
			if (s)
				printf("%-7s %-9s ", pr->name, seqname);
			else
				printf("%-7s new-%-5d ", pr->name, new_runs[d]);
			if (found < 0)
				printf("not reached (the largest possible drop is %.0f points)\n",
				       real_drop(pr, 1.0));
			else
				printf("%.0f points (mean over tests)\n", real_drop(pr, found / 100.0));
		}
	}
equal:
	eq_prs = 10 * prs;
	printf("\n# equal error rates (%ld PRs per point): the drop D the sequential design catches"
	       " with 80%% power, interpolated between whole points; the fixed design of the same"
	       " power at D (new-R, R interpolated between the whole R around 80%%: R = 16.4 is 328"
	       " requests); the sequential design's mean requests of one check with nothing"
	       " changed, a drop of the margin, a drop of D and of 35 points, each over the fixed"
	       " design's; and over the mix of one-check scenarios\n", eq_prs);
	printf("%-7s %-6s %-7s %-9s %-12s %-12s %-12s %-12s %s\n", "profile", "D", "fixed R",
	       "fixed req", "seq: 0", "margin", "D", "35 points", "mix");
	for (size_t pi = 0; pi < SC_ARRAY_SIZE(profiles); pi++) {
		const struct profile *pr = &profiles[pi];
		double d = drop_80_exact(pr, &seq, eq_prs), R, freq, req[4];
		const double at[4] = { 0.0, MARGIN, d, 0.35 };
		if (isnan(d)) {
			printf("%-7s the sequential design reaches no 80%% power\n", pr->name);
			continue;
		}
		R = runs_80_exact(pr, d, eq_prs);
		printf("%-7s %-6.1f ", pr->name, real_drop(pr, d));
		if (isnan(R)) {
			printf("no fixed design up to 60 runs reaches it\n");
			continue;
		}
		freq = 2.0 * TESTS * R;
		for (int i = 0; i < 4; i++)
			(void)power_at(pr, at[i], 0, &seq, eq_prs, &req[i]);
		printf("%-7.1f %-9.0f", R, freq);
		for (int i = 0; i < 4; i++)
			printf(" %5.1f %.2f ", req[i], req[i] / freq);
		printf(" %.2f\n", mix_requests(pr, &seq, eq_prs) / freq);
	}
	{
		/* Wald's SPRT between a drop of the margin and a drop of D
		 * (normal increments) has the least expected sample size of
		 * any test with these errors at both (Wald and Wolfowitz
		 * 1948); its ratio to the fixed sample size is free of D. */
		double a = ALPHA * (1 - SC_GATE_METRIC_SHARE), b = SC_SEQ_BETA,
		       z = sc_stats_normal_quantile(1 - a) +
							sc_stats_normal_quantile(1 - b);
		double at_d = 2 * ((1 - b) * log((1 - b) / a) + b * log(b / (1 - a))) / (z * z);
		double at_m = 2 * ((1 - a) * log((1 - a) / b) + a * log(a / (1 - b))) / (z * z);
		printf("# the least any test with these error rates can need (Wald's SPRT, the optimum"
		       " at both hypotheses; normal approximation, no overshoot), as a share of the"
		       " fixed design's requests: %.2f at a drop of D, %.2f at a drop of the margin\n",
		       at_d, at_m);
	}
	coverage(&seq, prs);
	eval_lift(&seq, prs);
	metric_checks(prs);
	return 0;
}
