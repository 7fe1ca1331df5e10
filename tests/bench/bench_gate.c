/*
 * The gate's operating characteristics, simulated (tests/bench/bench_gate.sh).
 * A fake student passes each test of a skill with a known probability, at
 * base and at head; every simulated PR draws its runs and is decided twice:
 * by the old fixed rule (fail on a raw drop of more than the margin, or on
 * a significant McNemar p-value over the units) and by the gate's rule
 * (core/stats.h sc_stats_paired_margin per check, sc_stats_holm over the
 * PR's checks, pipeline/gate.h sc_gate_margin_decide). Prints per profile,
 * scenario and design the share of PRs that fail (95% Wilson interval),
 * the share left inconclusive, and the requests one PR costs; then per
 * profile the smallest uniform drop the gate catches in 80% of PRs.
 *
 * Usage: bench_gate [PRS [SEED]]
 */
#include "common.h"
#include "stats.h"
#include "pipeline/gate.h"

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
		enum sc_gate_margin v = sc_gate_margin_decide(p[i], st[i].p_within, ALPHA);
		if (v == SC_GATE_MARGIN_DROP)
			return 1;
		open |= v == SC_GATE_MARGIN_OPEN;
	}
	return open ? -1 : 0;
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

int main(int argc, char **argv)
{
	long prs = argc > 1 ? atol(argv[1]) : 400;
	static const int old_runs[] = { 1, 3 }, new_runs[] = { 1, 3, 10 };
	static const struct {
		const char *name;
		enum sc_stats_method method;
	} methods[] = { { "new", SC_STATS_STRATIFIED }, { "clus", SC_STATS_CLUSTER } };

	if (argc > 2)
		rng_state ^= (uint64_t)strtoull(argv[2], NULL, 10) * 0x100000001b3ULL;
	if (prs < 1)
		prs = 1;
	printf("# %ld simulated PRs per row; %d tests per skill; margin %g points; alpha %g\n",
	       prs, TESTS, MARGIN * 100, ALPHA);
	printf("# design: old-R = raw drop > margin or McNemar p < alpha, R runs;"
	       " new-R = the gate: paired per test, stratified, + Holm, R runs;"
	       " clus-R = the same with the cluster (tests sampled) variance\n");
	printf("%-7s %-31s %-7s %-28s %-28s %s\n", "profile", "scenario", "design", "failed [95% CI]",
	       "inconclusive [95% CI]", "requests/PR");
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
				printf("%-7s %-31s old-%-3d", pr->name, sc->name, old_runs[d]);
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
				       7 - (int)strlen(methods[mi].name) - 1, new_runs[d]);
				print_rate("", failed, prs);
				print_rate(" ", open, prs);
				printf(" %d\n", 2 * TESTS * new_runs[d] * sc->checks);
			}
		}
	}
	printf("\n# the smallest uniform drop (points, every test's probability lowered, floored"
	       " at 0) failed in >= 80%% of PRs, one check\n");
	printf("%-7s %-7s %s\n", "profile", "design", "drop caught with 80% power");
	for (size_t pi = 0; pi < SC_ARRAY_SIZE(profiles); pi++) {
		for (size_t mi = 0; mi < SC_ARRAY_SIZE(methods); mi++)
		for (size_t d = 0; d < SC_ARRAY_SIZE(new_runs); d++) {
			int found = -1;
			double most = 0;
			for (int t = 0; t < TESTS; t++)
				most += profiles[pi].p[t];
			for (int drop = 5; drop <= 100 && found < 0; drop += 5) {
				double ph[TESTS], real = 0;
				long failed = 0;
				head_probs(&profiles[pi], &scenarios[0], drop / 100.0, ph);
				for (int t = 0; t < TESTS; t++)
					real += profiles[pi].p[t] - ph[t];
				for (long k = 0; k < prs; k++)
					failed += new_verdict(profiles[pi].p, ph, new_runs[d], 1,
							      methods[mi].method) == 1;
				if (failed >= (prs * 8 + 9) / 10)
					found = (int)lround(100 * real / TESTS);
			}
			printf("%-7s %s-%-*d ", profiles[pi].name, methods[mi].name,
			       7 - (int)strlen(methods[mi].name) - 1, new_runs[d]);
			if (found < 0)
				printf("not reached (the largest possible drop is %.0f points)\n",
				       100 * most / TESTS);
			else
				printf("%d points (mean over tests)\n", found);
		}
	}
	return 0;
}
