/*
 * The gate's pass-rate decision, simulated (tests/bench/bench_gate.sh):
 * a fake student passes each test of a skill with a known probability at
 * base and at head; every simulated PR draws its runs round after round
 * and is decided by the design as shipped (pipeline/sequential.h
 * sc_seq_decide, the function the pipeline's rounds and the gate use,
 * with the defaults of pipeline/config.c: gate.alpha, gate.beta,
 * gate.regression_points D, gate.pass_rate_drop_points m,
 * gate.first_runs, gate.max_runs). Prints per profile and scenario the
 * share of PRs green, red and unverified (95% Wilson intervals) and the
 * mean requests of one check, against the fixed design with the same
 * alpha, beta and D and against Wald's SPRT bound; then skillci eval's
 * lift decision and the token, speedup and judge checks.
 *
 * Usage: bench_gate [PRS [SEED [FIRST MAX [D [BETA [IMAX]]]]]]
 * (BENCH_METRIC=1 prints only the measured-value checks)
 *
 * An experiment, not the design as shipped: LOOKS=half looks after each
 * side's half of a round (the base's runs of the round, then the
 * head's), LOOKS=test after each test's pair of units (its base run and
 * its head run); LOOKS_STEPS=N (default 20 for half, 40 for test) the
 * steps per fixed design's information the boundaries are calibrated for
 * (see fine_boundaries). Unset: the shipped looks, after whole rounds.
 *
 * Another: VARIANCE=known gives the statistic the true variance of the
 * paired mean (from the simulated pass probabilities) in place of its
 * estimate, VARIANCE=unbiased the plain pooled x (n - x) / (n (n - 1))
 * of every test (no floor, no cap), in the design and in the fixed design
 * it is compared with: what the design costs when the variance is known,
 * and what the estimate costs.
 */
#include "common.h"
#include "stats.h"
#include "pipeline/config.h"
#include "pipeline/gate.h"
#include "pipeline/sequential.h"
#include "results/results.h"

#include <math.h>

#define TESTS   10
#define MAXCHK  10

static double gate_alpha = 0.05;

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

/* sorted from the test passed most to the one passed least */
static const struct profile profiles[] = {
	{ "easy", { 0.99, 0.98, 0.97, 0.96, 0.95, 0.94, 0.93, 0.92, 0.9, 0.85 } },
	{ "mixed", { 0.95, 0.9, 0.85, 0.8, 0.75, 0.7, 0.65, 0.6, 0.55, 0.5 } },
	{ "hard", { 0.5, 0.45, 0.4, 0.35, 0.3, 0.25, 0.2, 0.15, 0.12, 0.1 } },
	{ "flaky", { 0.97, 0.97, 0.97, 0.97, 0.97, 0.97, 0.97, 0.97, 0.97, 0.5 } },
};

enum change { SAME, SHIFT, MEAN_OF_D, BROKEN };

struct scenario {
	const char *name;
	enum change kind;
	double value;    /* SHIFT: subtracted from every test; MEAN_OF_D: the mean drop in D;
			  * BROKEN: the tests (those passed most) that never pass at head */
	int checks;      /* skills x models in the PR */
	int changed;     /* of them, with the change (the rest: no change) */
};

static const struct scenario scenarios[] = {
	{ "no change", SAME, 0, 1, 1 },
	{ "2-point drop", SHIFT, 0.02, 1, 1 },
	{ "drop of D", MEAN_OF_D, 1.0, 1, 1 },
	{ "drop of 2D", MEAN_OF_D, 2.0, 1, 1 },
	{ "35-point drop", SHIFT, 0.35, 1, 1 },
	{ "3 tests broken", BROKEN, 3, 1, 1 },
	{ "no change, 5 skills x 2 models", SAME, 0, 10, 10 },
	{ "drop of D in 1 of 10 checks", MEAN_OF_D, 1.0, 10, 1 },
};

static double clamp01(double x)
{
	return x < 0 ? 0 : x > 1 ? 1 : x;
}

static double mean_drop(const double *pb, const double *ph)
{
	double s = 0;
	for (int t = 0; t < TESTS; t++)
		s += pb[t] - ph[t];
	return s / TESTS;
}

/* The head's probabilities of a scenario; false when the profile cannot
 * drop that far. */
static bool head_probs(const struct profile *pr, const struct scenario *sc, double D, double *ph)
{
	double lo = 0, hi = 1, want;

	for (int t = 0; t < TESTS; t++)
		ph[t] = pr->p[t];
	switch (sc->kind) {
	case SAME:
		return true;
	case SHIFT:
		for (int t = 0; t < TESTS; t++)
			ph[t] = clamp01(pr->p[t] - sc->value);
		return true;
	case BROKEN:
		for (int t = 0; t < (int)sc->value && t < TESTS; t++)
			ph[t] = 0;
		return true;
	case MEAN_OF_D:
		want = sc->value * D;
		for (int t = 0; t < TESTS; t++)
			ph[t] = 0;
		if (mean_drop(pr->p, ph) < want - 1e-9)
			return false;
		for (int it = 0; it < 60; it++) {
			double mid = 0.5 * (lo + hi);
			for (int t = 0; t < TESTS; t++)
				ph[t] = clamp01(pr->p[t] - mid);
			if (mean_drop(pr->p, ph) < want)
				lo = mid;
			else
				hi = mid;
		}
		for (int t = 0; t < TESTS; t++)
			ph[t] = clamp01(pr->p[t] - hi);
		return true;
	}
	return false;
}

static void print_rate(long k, long n)
{
	double lo, hi;
	sc_stats_wilson(&lo, &hi, (unsigned long)k, (unsigned long)n, SC_STATS_Z95);
	printf(" %5.1f [%4.1f, %4.1f]", 100.0 * (double)k / (double)n, 100 * lo, 100 * hi);
}

/*
 * The looks experiment (LOOKS): where the design looks within a round.
 * LOOKS_ROUND is the design as shipped (sc_seq_decide after every round).
 */
enum looks { LOOKS_ROUND, LOOKS_HALF, LOOKS_TEST };

static enum looks looks_mode = LOOKS_ROUND;
static int looks_steps;  /* the calibration's steps per fixed design's information */

/*
 * Finer looks see the path more often than the shipped boundaries
 * (calibrated for SC_SEQ_STEPS looks per fixed design's information)
 * assume, so they are calibrated again for steps (looks_steps); with the
 * shipped looks and IMAX, the same from that imax at SC_SEQ_STEPS (the
 * design's own calibration always starts at SC_SEQ_IMAX).
 */
static void fine_boundaries(struct sc_seq_design *d, int steps)
{
	sc_seq_calibrate(d, d->imax, steps);
	d->i_max = d->imax * d->i_fixed;
}

/*
 * One finer look (LOOKS half or test) on st: sc_seq_decide's arithmetic
 * (pipeline/sequential.c sc_seq_look) with the boundaries of
 * fine_boundaries and their overshoot correction taken for looks_steps
 * instead of SC_SEQ_STEPS: a look after dI of information since the
 * last (in fixed designs' information) has both boundaries raised by
 * c = 0.583 z (sqrt(1 / looks_steps) - sqrt(dI)), never below 0; the
 * boundaries meet at i_max (regression when L >= 0, else ruled out);
 * last: the cap's look, where an open check is unverified. *info_prev is
 * the largest information seen so far (as the shipped replay keeps it).
 */
static enum sc_seq_decision fine_decide(const struct sc_stats_paired *st,
					const struct sc_seq_design *d, bool last, double *info_prev)
{
	double width = d->drop - d->margin, info, llr, dt, c;

	if (!st->tests || isnan(st->se) || !(st->se > 0))
		return last ? SC_SEQ_UNVERIFIED : SC_SEQ_OPEN;
	info = 1.0 / (st->se * st->se);
	llr = width * (-st->mean - 0.5 * (d->margin + d->drop)) * info;
	dt = (info - *info_prev) / d->i_fixed;
	c = SC_SEQ_OVERSHOOT * d->z * (sqrt(1.0 / looks_steps) - sqrt(dt > 0 ? dt : 0.0));
	if (c < 0)
		c = 0;
	if (info > *info_prev)
		*info_prev = info;
	if (info >= d->i_max)
		return llr >= 0 ? SC_SEQ_REGRESSION : SC_SEQ_RULED_OUT;
	if (llr >= d->log_a + c)
		return SC_SEQ_REGRESSION;
	if (llr <= -(d->log_b + c))
		return SC_SEQ_RULED_OUT;
	return last ? SC_SEQ_UNVERIFIED : SC_SEQ_OPEN;
}

/* The variance experiment (VARIANCE); VAR_SHIPPED is the statistic as shipped. */
enum variance { VAR_SHIPPED, VAR_KNOWN, VAR_UNBIASED };

static enum variance variance_mode = VAR_SHIPPED;

/*
 * st's standard error replaced as VARIANCE says, for counts bp of bn at
 * base and hp of hn at head drawn with probabilities pb and ph: known,
 * sqrt(sum_t pb (1 - pb) / bn + ph (1 - ph) / hn) / T; unbiased, sqrt(sum_t
 * x (n - x) / (n (n - 1)) (1 / bn + 1 / hn)) / T on the pooled x of n
 * (kept as estimated where that sum is 0: every test one outcome at both
 * sides, where the estimate carries the only information).
 */
static void experiment_se(struct sc_stats_paired *st, const double *pb, const double *ph,
			  const unsigned long *bp, const unsigned long *bn, const unsigned long *hp,
			  const unsigned long *hn)
{
	double v = 0;

	if (variance_mode == VAR_SHIPPED || !st->tests)
		return;
	for (int t = 0; t < TESTS; t++) {
		double nb = (double)bn[t], nh = (double)hn[t], x = (double)(bp[t] + hp[t]), n = nb + nh;
		if (!bn[t] || !hn[t])
			continue;
		if (variance_mode == VAR_KNOWN)
			v += pb[t] * (1 - pb[t]) / nb + ph[t] * (1 - ph[t]) / nh;
		else
			v += x * (n - x) / (n * (n - 1)) * (1 / nb + 1 / nh);
	}
	if (v > 0)
		st->se = sqrt(v) / (double)st->tests;
}

/*
 * One check with the finer looks: the rounds of the shipped design
 * (sc_seq_look_runs), each drawn as LOOKS says: half, the base's runs of
 * every test then a look, the head's then a look; test, per test its
 * base runs and its head runs then a look. A look with no test judged at
 * both sides (the first round's first looks) is open.
 */
static enum sc_seq_decision fine_check(const double *pb, const double *ph,
				       const struct sc_seq_design *d, long *requests,
				       struct sc_stats_paired *st)
{
	unsigned long bp[TESTS] = { 0 }, hp[TESTS] = { 0 }, bn[TESTS] = { 0 }, hn[TESTS] = { 0 };
	double info_prev = 0;
	int looks = sc_seq_looks(d);
	enum sc_seq_decision v = SC_SEQ_OPEN;

	for (int k = 1; k <= looks; k++) {
		unsigned long want = (unsigned long)sc_seq_look_runs(d, k);
		int parts = looks_mode == LOOKS_HALF ? 2 : TESTS;
		for (int part = 0; part < parts; part++) {
			bool last = k == looks && part == parts - 1;
			for (int t = 0; t < TESTS; t++) {
				if (looks_mode == LOOKS_TEST && t != part)
					continue;
				if (looks_mode == LOOKS_TEST || part == 0)
					for (; bn[t] < want; bn[t]++, ++*requests)
						bp[t] += uniform() < pb[t];
				if (looks_mode == LOOKS_TEST || part == 1)
					for (; hn[t] < want; hn[t]++, ++*requests)
						hp[t] += uniform() < ph[t];
			}
			sc_stats_paired_margin(st, bp, bn, hp, hn, TESTS, d->margin, d->alpha_check,
					       SC_STATS_STRATIFIED);
			experiment_se(st, pb, ph, bp, bn, hp, hn);
			if ((v = fine_decide(st, d, last, &info_prev)) != SC_SEQ_OPEN)
				return v;
		}
	}
	return v;
}

/* One check of design d: rounds of runs until it decides or the cap;
 * adds the base and head requests it made to *requests. */
static enum sc_seq_decision seq_check(const double *pb, const double *ph,
				      const struct sc_seq_design *d, long *requests,
				      struct sc_stats_paired *st_out)
{
	unsigned long bp[TESTS] = { 0 }, hp[TESTS] = { 0 }, n[TESTS];
	int have = 0;
	double info_prev = 0;
	enum sc_seq_decision v = SC_SEQ_OPEN;

	if (looks_mode != LOOKS_ROUND)
		return fine_check(pb, ph, d, requests, st_out);
	for (int k = 1; k <= sc_seq_looks(d); k++) {
		int want = sc_seq_look_runs(d, k);
		struct sc_seq_look at;
		for (int t = 0; t < TESTS; t++) {
			for (int r = have; r < want; r++) {
				bp[t] += uniform() < pb[t];
				hp[t] += uniform() < ph[t];
			}
			n[t] = (unsigned long)want;
		}
		*requests += 2L * TESTS * (want - have);
		have = want;
		sc_stats_paired_margin(st_out, bp, n, hp, n, TESTS, d->margin, d->alpha_check,
				       SC_STATS_STRATIFIED);
		experiment_se(st_out, pb, ph, bp, n, hp, n);
		if ((v = sc_seq_decide(st_out, d, k, info_prev)) != SC_SEQ_OPEN)
			break;
		if (sc_seq_look(&at, d, st_out, info_prev) && at.info > info_prev)
			info_prev = at.info;
	}
	return v;
}

/* The design as shipped, for a PR of checks pass-rate checks. */
struct shipped {
	double alpha, beta, margin, drop;
	int first, max;
	double imax;
};

static void design_for(struct sc_seq_design *d, const struct shipped *s, int checks)
{
	sc_seq_design_init(d, s->alpha, s->beta, s->margin, s->drop, s->first, s->max, (size_t)checks);
	/* IMAX, or finer looks: the boundaries calibrated here (the design's
	 * own calibration always starts at SC_SEQ_IMAX) */
	if (s->imax > 0 || looks_mode != LOOKS_ROUND) {
		d->imax = s->imax > 0 ? s->imax : SC_SEQ_IMAX;
		fine_boundaries(d, looks_mode == LOOKS_ROUND ? SC_SEQ_STEPS : looks_steps);
	}
}

/* The variance of the paired difference per run per test at base
 * probabilities p (planning: both sides alike): sum 2 p (1 - p) / T^2. */
static double run_variance(const double *p)
{
	double v = 0;
	for (int t = 0; t < TESTS; t++)
		v += 2 * p[t] * (1 - p[t]);
	return v / ((double)TESTS * TESTS);
}

/* Runs per test a fixed design needs for alpha' and beta at a drop of D
 * (normal approximation with the true variance: the least any one-look
 * design needs). */
static double fixed_runs(const double *p, const struct sc_seq_design *d)
{
	return d->i_fixed * run_variance(p);
}

/* Wald's SPRT between a drop of m and of D: its expected information at
 * each hypothesis, in runs per test (normal increments, no overshoot:
 * no test with these two errors needs less, Wald and Wolfowitz 1948). */
static void sprt_runs(const double *p, const struct sc_seq_design *d, double *at_m, double *at_d)
{
	double a = d->alpha_check, b = d->beta, w = d->drop - d->margin;
	double e0 = ((1 - a) * log((1 - a) / b) + a * log(a / (1 - b))) / (w * w / 2);
	double e1 = ((1 - b) * log((1 - b) / a) + b * log(b / (1 - a))) / (w * w / 2);
	*at_m = e0 * run_variance(p);
	*at_d = e1 * run_variance(p);
}

/*
 * The fixed design with the same alpha, beta and D, on the same
 * statistic: R runs per test a side, one look, a regression when a drop
 * beyond m is shown at alpha' (the variance estimated as the design
 * estimates it), else passed. Returns the R (interpolated between whole
 * runs) whose chance of passing a drop of D (ph) is beta, from prs
 * simulated PRs per R; NAN when 200 runs do not reach it.
 */
static double fixed_runs_sim(const double *pb, const double *ph, const struct sc_seq_design *d,
			     long prs)
{
	double prev = 1.0, zc = sc_stats_normal_quantile(1.0 - d->alpha_check);

	for (int R = 1; R <= 200; R++) {
		long green = 0;
		unsigned long bp[TESTS], hp[TESTS], n[TESTS];
		double miss;
		for (long k = 0; k < prs; k++) {
			struct sc_stats_paired st;
			for (int t = 0; t < TESTS; t++) {
				bp[t] = hp[t] = 0;
				for (int r = 0; r < R; r++) {
					bp[t] += uniform() < pb[t];
					hp[t] += uniform() < ph[t];
				}
				n[t] = (unsigned long)R;
			}
			sc_stats_paired_margin(&st, bp, n, hp, n, TESTS, d->margin, d->alpha_check,
					       SC_STATS_STRATIFIED);
			experiment_se(&st, pb, ph, bp, n, hp, n);
			green += !(st.se > 0 ? (-st.mean - d->margin) / st.se > zc : -st.mean > d->margin);
		}
		miss = (double)green / (double)prs;
		if (miss <= d->beta)
			return R - 1 + (prev - d->beta) / (prev - miss);
		prev = miss;
	}
	return NAN;
}

/* What one row measured. */
struct row {
	long green, red, unverified, prs;
	double requests;       /* per check: base, head and the baseline's one run */
	double head_requests;  /* per check: head only (base and baseline from the store) */
};

static void run_row(struct row *out, const double *pb, const double *ph, const struct scenario *sc,
		    const struct shipped *s, long prs)
{
	struct sc_seq_design d;
	long requests = 0;

	design_for(&d, s, sc->checks);
	memset(out, 0, sizeof(*out));
	out->prs = prs;
	for (long k = 0; k < prs; k++) {
		bool red = false, unv = false;
		for (int c = 0; c < sc->checks; c++) {
			struct sc_stats_paired st;
			enum sc_seq_decision v = seq_check(pb, c < sc->changed ? ph : pb, &d, &requests, &st);
			red |= v == SC_SEQ_REGRESSION;
			unv |= v == SC_SEQ_UNVERIFIED;
		}
		out->red += red;
		out->unverified += !red && unv;
		out->green += !red && !unv;
	}
	out->head_requests = (double)requests / 2.0 / (double)prs / sc->checks;
	out->requests = (double)requests / (double)prs / sc->checks + TESTS;
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
	r->skills[0].status = SC_SKILL_MODIFIED;
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
			u->variant = side ? SC_VARIANT_HEAD : SC_VARIANT_BASE;
			u->test_id = sc_xstrdup(id);
			u->run_index = i % runs;
			u->kind = SC_KIND_KERNEL;
			u->verdict = SC_UNIT_PASS;
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
		a->variant = side ? SC_VARIANT_HEAD : SC_VARIANT_BASE;
		a->n = a->passed = TESTS * runs;
		a->pass_rate = 1.0;
		a->mean_tokens = sum[side][0] / a->n;
		a->speedup_geomean = exp(sum[side][1] / (double)a->n);
		a->judge_mean = sum[side][2] / (double)a->n;
	}
}

/* Whether the gate failed a token, speedup or judge check of r (the
 * pass-rate check of one run a side is open, unverified: not what these
 * rows measure). */
static bool metric_failed(const struct sc_results *r)
{
	for (size_t i = 0; i < r->gate.nchecks; i++) {
		const struct sc_results_check *c = &r->gate.checks[i];
		if (c->status == SC_STATUS_FAILED &&
		    (c->check == SC_CHECK_TOKENS || c->check == SC_CHECK_SPEEDUP ||
		     c->check == SC_CHECK_JUDGE))
			return true;
	}
	return false;
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
	       " share of PRs where the gate failed one of them (the pass-rate check aside), and what"
	       " the raw limits on the means would fail\n",
	       SC_GATE_METRIC_SHARE, gate_alpha, TESTS);
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
			(void)sc_gate_apply(&r, &cfg.gate);
			failed += metric_failed(&r);
			sc_results_release(&r);
		}
		printf("%-27s", cases[c].name);
		print_rate(failed, prs);
		print_rate(raw, prs);
		printf("\n");
	}
	sc_config_release(&cfg);
}


/*
 * skillci eval's lift decision (docs/evaluation.md, "skillci eval"): the
 * same design turned around, the skill as the statistic's base side and
 * the baseline (the profile's probabilities) as its head side: a "drop"
 * is the baseline falling short of the skill. Per profile and true lift
 * (every test's probability raised by it, capped at 1; shown as the mean
 * over the tests): the share of calls that show a lift, that rule out a
 * lift of D, that end unverified, and the mean requests (skill and
 * baseline).
 */
static void eval_lift(const struct shipped *s, long prs)
{
	static const int lifts[] = { 0, 5, 15, 30 };
	struct sc_seq_design d;

	design_for(&d, s, 1);
	printf("\n# skillci eval's lift decision (the design turned around: the skill against no"
	       " skill, D %g points): the share of calls showing a lift, ruling out a lift of D,"
	       " unverified, and the mean requests of one skill x model\n", d.drop * 100);
	printf("%-7s %-10s %-22s %-22s %-22s %s\n", "profile", "true lift", "lift shown",
	       "lift of D ruled out", "unverified", "mean requests");
	for (size_t pi = 0; pi < SC_ARRAY_SIZE(profiles); pi++) {
		const struct profile *pr = &profiles[pi];
		double last = -1;
		for (size_t li = 0; li < SC_ARRAY_SIZE(lifts); li++) {
			double skill[TESTS], real = 0;
			long shown = 0, none = 0, open = 0, requests = 0;
			for (int t = 0; t < TESTS; t++) {
				skill[t] = clamp01(pr->p[t] + lifts[li] / 100.0);
				real += (skill[t] - pr->p[t]) * 100 / TESTS;
			}
			if ((li && real < 1) || fabs(real - last) < 0.05)
				continue;  /* the profile has no room for this lift */
			last = real;
			for (long k = 0; k < prs; k++) {
				struct sc_stats_paired st;
				enum sc_seq_decision v = seq_check(skill, pr->p, &d, &requests, &st);
				shown += v == SC_SEQ_REGRESSION;
				none += v == SC_SEQ_RULED_OUT;
				open += v == SC_SEQ_UNVERIFIED;
			}
			printf("%-7s %-10.1f", pr->name, real);
			print_rate(shown, prs);
			print_rate(none, prs);
			print_rate(open, prs);
			printf(" %.1f\n", (double)requests / (double)prs);
		}
	}
}

/* The experiments' names, in the order of their enums (the first: as shipped). */
static const char *const looks_names[] = { "round", "half", "test", NULL };
static const char *const variance_names[] = { "shipped", "known", "unbiased", NULL };

/* *mode = the index in names of the environment's var (0 when unset or
 * empty); false, with the error said, for a value not in names. */
static bool env_mode(const char *var, const char *const *names, int *mode)
{
	const char *v = getenv(var);

	*mode = 0;
	if (!v || !*v)
		return true;
	for (int i = 0; names[i]; i++)
		if (!strcmp(v, names[i])) {
			*mode = i;
			return true;
		}
	fprintf(stderr, "bench_gate: %s=%s: expected one of", var, v);
	for (int i = 0; names[i]; i++)
		fprintf(stderr, " %s", names[i]);
	fprintf(stderr, "\n");
	return false;
}

int main(int argc, char **argv)
{
	long prs = argc > 1 ? atol(argv[1]) : 1000;
	struct sc_config cfg;
	struct shipped s;
	int mode;

	sc_config_defaults(&cfg);
	gate_alpha = cfg.gate.alpha;
	s.alpha = sc_gate_pass_rate_alpha(&cfg.gate);
	s.beta = cfg.gate.beta;
	s.margin = cfg.gate.pass_rate_drop_points / 100.0;
	s.drop = cfg.gate.regression_points / 100.0;
	s.first = cfg.gate.first_runs;
	s.max = cfg.gate.max_runs;
	s.imax = 0;
	if (argc > 2)
		rng_state ^= (uint64_t)strtoull(argv[2], NULL, 10) * 0x100000001b3ULL;
	if (argc > 3 && atoi(argv[3]) > 0)
		s.first = atoi(argv[3]);
	if (argc > 4 && atoi(argv[4]) > 0)
		s.max = atoi(argv[4]);
	if (argc > 5 && atof(argv[5]) > 0)
		s.drop = atof(argv[5]) / 100.0;
	if (argc > 6 && atof(argv[6]) > 0)
		s.beta = atof(argv[6]);
	if (argc > 7 && atof(argv[7]) > 0)
		s.imax = atof(argv[7]);
	if (prs < 1)
		prs = 1;
	if (!env_mode("LOOKS", looks_names, &mode))
		return 2;
	looks_mode = (enum looks)mode;
	if (looks_mode != LOOKS_ROUND) {
		const char *st = getenv("LOOKS_STEPS");
		looks_steps = looks_mode == LOOKS_HALF ? 20 : 40;
		if (st && *st && (looks_steps = atoi(st)) < 2) {
			fprintf(stderr, "bench_gate: LOOKS_STEPS=%s: expected a number >= 2\n", st);
			return 2;
		}
	}
	if (!env_mode("VARIANCE", variance_names, &mode))
		return 2;
	variance_mode = (enum variance)mode;
	if (getenv("BENCH_METRIC")) {
		metric_checks(prs);
		sc_config_release(&cfg);
		return 0;
	}
	printf("# %ld simulated PRs per row; %d tests per skill; the design as shipped: D %g points,"
	       " m %g points, alpha %g over the PR (%g to the pass-rate checks), beta %g, rounds of"
	       " %d run%s per test up to %d (gate.first_runs, gate.max_runs)\n", prs, TESTS,
	       s.drop * 100, s.margin * 100, gate_alpha, s.alpha, s.beta, s.first, s.first == 1 ? "" : "s",
	       s.max);
	if (looks_mode != LOOKS_ROUND)
		for (int c = 1; c <= MAXCHK; c += MAXCHK - 1) {
			struct sc_seq_design d, shipped_d;
			enum looks m = looks_mode;
			design_for(&d, &s, c);
			looks_mode = LOOKS_ROUND;
			design_for(&shipped_d, &s, c);
			looks_mode = m;
			printf("# experiment LOOKS=%s: a look after each %s; boundaries calibrated for"
			       " %d steps per fixed design's information: %d check%s (alpha' %g): a %.4f"
			       " b %.4f imax %g (shipped, %d steps: a %.4f b %.4f imax %g)\n",
			       m == LOOKS_HALF ? "half" : "test",
			       m == LOOKS_HALF ? "side's half-round" : "test's pair of units",
			       looks_steps, c, c == 1 ? "" : "s", d.alpha_check, d.log_a, d.log_b, d.imax,
			       SC_SEQ_STEPS, shipped_d.log_a, shipped_d.log_b, shipped_d.imax);
		}
	if (variance_mode != VAR_SHIPPED)
		printf("# experiment VARIANCE=%s: the statistic's variance %s, in the design and in the"
		       " fixed design it is compared with (not the statistic as shipped)\n",
		       variance_names[variance_mode], variance_mode == VAR_KNOWN
		       ? "the true one, from the simulated pass probabilities"
		       : "the plain pooled x (n - x) / (n (n - 1)) of every test, no floor and no cap");
	printf("# requests per check: base and head as sent, plus the baseline's one run (%d);"
	       " steady: the head only (the base and the baseline from the store); fixed: the"
	       " one-look design with the same alpha, beta and D on the same statistic (its runs"
	       " simulated, %ld PRs per R), plus the baseline; share: requests over fixed\n",
	       TESTS, prs);
	printf("%-7s %-31s %-6s %-22s %-22s %-22s %-9s %-7s %-7s %s\n", "profile", "scenario",
	       "drop", "green % [95% CI]", "red % [95% CI]", "unverified % [95% CI]", "requests",
	       "steady", "fixed", "ratio");
	for (size_t pi = 0; pi < SC_ARRAY_SIZE(profiles); pi++) {
		const struct profile *pr = &profiles[pi];
		double fixed_of[MAXCHK + 1] = { 0 };
		for (size_t si = 0; si < SC_ARRAY_SIZE(scenarios); si++) {
			const struct scenario *sc = &scenarios[si];
			struct sc_seq_design d;
			double ph[TESTS], phd[TESTS], fixed;
			struct scenario dsc = { "", MEAN_OF_D, 1, 1, 1 };
			struct row w;
			if (!head_probs(pr, sc, s.drop, ph))
				continue;
			design_for(&d, &s, sc->checks);
			if (!fixed_of[sc->checks]) {
				(void)head_probs(pr, &dsc, s.drop, phd);
				fixed_of[sc->checks] = 2.0 * TESTS * fixed_runs_sim(pr->p, phd, &d, prs) + TESTS;
			}
			fixed = fixed_of[sc->checks];
			run_row(&w, pr->p, ph, sc, &s, prs);
			printf("%-7s %-31s %-6.1f", pr->name, sc->name, 100 * mean_drop(pr->p, ph));
			print_rate(w.green, prs);
			print_rate(w.red, prs);
			print_rate(w.unverified, prs);
			printf(" %-9.1f %-7.1f %-7.1f %.2f\n", w.requests, w.head_requests, fixed,
			       w.requests / fixed);
		}
	}
	printf("\n# one check, per profile, against the fixed design with the same alpha, beta and D"
	       " on the same statistic (R simulated, %ld PRs per R, interpolated): its runs per"
	       " test and requests (base, head and the baseline's run); the design's mean"
	       " requests with no change, at a drop of D and of 2D, each over the fixed design's;"
	       " Wald's SPRT at D as a share of the fixed design (the least any test with these"
	       " errors needs; normal approximation) and the design's share at D over it; Wald's"
	       " SPRT with no change, its requests (the baseline's run included) over the fixed"
	       " design's (the least any test with these errors can send on an unchanged PR)\n",
	       4 * prs);
	printf("%-7s %-8s %-9s %-14s %-14s %-14s %-10s %-12s %s\n", "profile", "fixed R", "fixed req",
	       "no change", "drop of D", "drop of 2D", "SPRT at D", "design/SPRT", "SPRT no change");
	for (size_t pi = 0; pi < SC_ARRAY_SIZE(profiles); pi++) {
		const struct profile *pr = &profiles[pi];
		struct sc_seq_design d;
		double R, fixed, at_m, at_d, share_d, req[3] = { NAN, NAN, NAN }, phd[TESTS];
		static const double mult[3] = { 0, 1, 2 };
		struct scenario dsc = { "", MEAN_OF_D, 1, 1, 1 };
		design_for(&d, &s, 1);
		(void)head_probs(pr, &dsc, s.drop, phd);
		R = fixed_runs_sim(pr->p, phd, &d, 4 * prs);
		fixed = 2.0 * TESTS * R + TESTS;
		sprt_runs(pr->p, &d, &at_m, &at_d);
		share_d = at_d / fixed_runs(pr->p, &d);
		for (int i = 0; i < 3; i++) {
			struct scenario sc = { "", MEAN_OF_D, mult[i], 1, 1 };
			double ph[TESTS];
			struct row w;
			if (i == 0)
				sc.kind = SAME;
			if (!head_probs(pr, &sc, s.drop, ph))
				continue;
			run_row(&w, pr->p, ph, &sc, &s, prs);
			req[i] = w.requests;
		}
		printf("%-7s %-8.1f %-9.1f %6.1f (%.2f)  %6.1f (%.2f)  %6.1f (%.2f)  %-10.2f %-12.2f %.2f\n",
		       pr->name, R, fixed, req[0], req[0] / fixed, req[1], req[1] / fixed, req[2],
		       req[2] / fixed, share_d, req[1] / fixed / share_d,
		       (2.0 * TESTS * at_m + TESTS) / fixed);
	}
	eval_lift(&s, prs);
	metric_checks(prs);
	sc_config_release(&cfg);
	return 0;
}
