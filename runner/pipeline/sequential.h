#ifndef SC_SEQUENTIAL_H
#define SC_SEQUENTIAL_H
/*
 * Sequential sampling of the pass-rate decision (docs/evaluation.md,
 * "Sequential sampling"): a group-sequential design per skill x model.
 * Every test is run first_runs times at base and at head; after each
 * round (a look) the check is decided on the runs so far, and only the
 * checks still open get first_runs more runs per test, up to max_runs.
 *
 * Look k has run r_k = min(k * first_runs, max_runs) runs per test and
 * information fraction t_k = r_k / max_runs. Each stopping direction
 * spends its error with the O'Brien-Fleming-type function of
 * core/stats.h (sc_stats_obf_spend); look k's nominal level is the
 * increment a(t_k) - a(t_k-1), so by the union bound each error stays
 * within its total over all looks:
 *
 *   regression  p_drop < a_k(alpha) / family   a drop beyond the margin is
 *               shown; Bonferroni over the PR's pass-rate checks keeps the
 *               chance that a PR changing nothing fails at most alpha
 *   ruled out   p_within < a_k(alpha)         a drop beyond the margin is
 *               ruled out (passing a drop at the margin: at most alpha)
 *   futile      p_design < a_k(beta)           the drop the design is sized
 *               to catch at max_runs (margin + (z(1-alpha/family) +
 *               z(1-beta)) se, se projected to max_runs) is ruled out: the
 *               budget would most likely end inconclusive, so it stops
 *               now, inconclusive, unless the estimate so far would rule
 *               the margin out at max_runs (then it samples on for that).
 *               Non-binding: it never raises either error
 *
 * At the last look whatever is not decided is inconclusive. A fixed
 * design (max_runs 0, `runs:` or `--runs N`) has one look.
 *
 * The decision (sc_seq_decide) is pure and shared by the pipeline's
 * rounds, the gate (which replays the looks from the units of a results
 * file, so report and merge decide as the run did) and the benchmark.
 */
#include <stdbool.h>
#include <stddef.h>

#include "stats.h"

struct sc_results;

/* History (docs/evaluation.md): a test with at least this many stored runs
 * at base, all one outcome, runs once at head in the first round. */
#define SC_SEQ_STABLE_RUNS 4

/* The miss rate the futility boundary spends: power 80% at the design's drop. */
#define SC_SEQ_BETA 0.2
/* The spending functions (sc_stats_spend's rho; 0: O'Brien-Fleming type). */
#define SC_SEQ_RHO 0.0
#define SC_SEQ_RHO_BETA 1.0
/* A futile check samples on while its conditional power (under the trend
 * so far) of ruling the margin out at max_runs is at least this. */
#define SC_SEQ_RULE_OUT_POWER 0.8

struct sc_seq_design {
	double alpha;      /* gate.alpha: one-sided, ruling a drop out */
	double fail_alpha; /* showing a drop, over the family: alpha unless
			    * sc_seq_design_fail_alpha set less (the gate's
			    * share for the pass-rate checks) */
	double margin;     /* gate.pass_rate_drop_points / 100 */
	double beta;       /* SC_SEQ_BETA */
	int first_runs;    /* runs per test and side in each round (>= 1) */
	int max_runs;      /* runs per test and side at most; 0: a fixed design */
	size_t family;     /* pass-rate checks of the PR (>= 1) */
	double rho;        /* spending of alpha (sc_stats_spend): SC_SEQ_RHO */
	double rho_beta;   /* spending of beta: SC_SEQ_RHO_BETA */
	double rule_out_power;  /* futility waits while ruling out is this likely: SC_SEQ_RULE_OUT_POWER */
	/* per look (sc_seq_design_compute): the exact nominal levels */
	double lv_fail[SC_STATS_GS_MAX_LOOKS], lv_pass[SC_STATS_GS_MAX_LOOKS];
	double lv_fut[SC_STATS_GS_MAX_LOOKS];
};

/*
 * Fills d for a sequential design (max_runs > 0) or a fixed one (0) and
 * computes its levels. A design of more than SC_STATS_GS_MAX_LOOKS rounds
 * gets bigger rounds: first_runs becomes ceil(max_runs / 32).
 */
void sc_seq_design_init(struct sc_seq_design *d, double alpha, double margin, int first_runs,
			int max_runs, size_t family);
/* Sets the alpha showing a drop spends over the family (at most alpha)
 * and computes the levels again. */
void sc_seq_design_fail_alpha(struct sc_seq_design *d, double fail_alpha);
/* Computes d's levels again after a change of its fields (the benchmark's spending). */
void sc_seq_design_compute(struct sc_seq_design *d);
/* Whether d samples in rounds (max_runs > 0). */
bool sc_seq_is_sequential(const struct sc_seq_design *d);
/* The number of looks: ceil(max_runs / first_runs); 1 for a fixed design. */
int sc_seq_looks(const struct sc_seq_design *d);
/* Runs per test at look k (1-based); for a fixed design first_runs. */
int sc_seq_look_runs(const struct sc_seq_design *d, int k);

/* The nominal levels of look k: each direction's spending increment. */
struct sc_seq_levels {
	double t;          /* information fraction */
	double fail;       /* for p_drop: already divided by the family */
	double pass;       /* for p_within */
	double futility;   /* for p_design */
};
void sc_seq_levels(struct sc_seq_levels *out, const struct sc_seq_design *d, int k);

enum sc_seq_decision {
	SC_SEQ_OPEN,          /* not decided: sample on */
	SC_SEQ_REGRESSION,    /* a drop beyond the margin is shown */
	SC_SEQ_RULED_OUT,     /* a drop beyond the margin is ruled out */
	SC_SEQ_FUTILE,        /* the design's drop ruled out: stop, inconclusive */
	SC_SEQ_INCONCLUSIVE   /* the last look, neither */
};

/* "regression", "ruled_out" or "inconclusive" (open and futile too). */
const char *sc_seq_decision_name(enum sc_seq_decision v);

/*
 * The drop the design catches with 80% power at max_runs, from look k's
 * standard error projected to max_runs (se * sqrt(r_k / max_runs)).
 */
double sc_seq_design_drop(const struct sc_stats_paired *st, const struct sc_seq_design *d, int k);

/*
 * Decides look k (1-based) on st, the paired statistics of the runs so
 * far (sc_stats_paired_margin, stratified). A fixed design decides its
 * one look at alpha / family and alpha. st without tests is open before
 * the last look and inconclusive at it.
 */
enum sc_seq_decision sc_seq_decide(const struct sc_stats_paired *st, const struct sc_seq_design *d,
				   int k);

/*
 * The interval of look k at the look's own levels (sc_stats_paired_bounds):
 * the lower end at the ruling-out level, the upper end at the regression
 * level (divided by the family). A repeated confidence interval: with the
 * errors spent over the looks, each end holds over all looks at once (the
 * lower end with probability 1 - alpha, the upper with 1 - alpha / family),
 * where the look's plain (1 - 2 alpha) interval would not; and the verdict
 * is read off it: ruled out exactly when lo > -margin, a regression exactly
 * when hi < -margin. sc_seq_replay applies it to the look it stops at.
 */
void sc_seq_interval(struct sc_stats_paired *st, const struct sc_seq_design *d, int k);

/* One check decided from a results model: the look it stopped at. */
struct sc_seq_outcome {
	enum sc_seq_decision decision;
	struct sc_stats_paired st;     /* at the look decided (or the last with data) */
	int look;                      /* 1-based */
	int runs;                      /* runs per test at that look */
	unsigned long base_units, head_units;  /* judged units used per side */
	bool more;                     /* open, and no unit of a later look exists */
};

/*
 * The per-test pass counts of skill and model at base and head among the
 * units of r with run_index < max_run (< 0: every run), one array per
 * side indexed by test; skipped and erred units are not judged. Returns
 * the number of tests; the caller frees the four arrays.
 */
size_t sc_seq_test_counts(const struct sc_results *r, const char *skill, const char *model,
			  long max_run, unsigned long **bp, unsigned long **bn,
			  unsigned long **hp, unsigned long **hn);

/*
 * The tests of skill and model at two variants: test_of[i] (r->nunits
 * entries) is the index of unit i's test among the tests found, in order
 * of first appearance, or SIZE_MAX when the unit is of another skill,
 * model or variant, or has run_index >= max_run (max_run < 0: any).
 * Returns the number of tests; a test may have only units a caller
 * leaves out (skipped, erred, without a value).
 */
size_t sc_seq_units_by_test(const struct sc_results *r, const char *skill, const char *model,
			    const char *base_variant, const char *head_variant, long max_run,
			    size_t *test_of);

/*
 * sc_seq_test_counts with the two sides named: base_variant's units are
 * the "base" arrays, head_variant's the "head" ones. `eval` compares the
 * skill against no skill with base_variant "head" (the skill) and
 * head_variant "baseline", so that a "drop" is the baseline falling
 * short of the skill: a lift (docs/evaluation.md, "skillci eval").
 */
size_t sc_seq_test_counts_of(const struct sc_results *r, const char *skill, const char *model,
			     const char *base_variant, const char *head_variant, long max_run,
			     unsigned long **bp, unsigned long **bn, unsigned long **hp,
			     unsigned long **hn);

/*
 * Replays the looks of d on the units of r for skill and model: look k
 * uses the units with run_index < r_k; the first look that decides is
 * the outcome. When a look is open and r holds no unit of a later run
 * the check stopped there (out->more): open before the last look (the
 * pipeline samples on; the gate reads it as inconclusive, the budget or
 * a stop ended it). A fixed design is its one look on every unit.
 */
void sc_seq_replay(struct sc_seq_outcome *out, const struct sc_results *r, const char *skill,
		   const char *model, const struct sc_seq_design *d);
/* sc_seq_replay on the units of two named variants (sc_seq_test_counts_of). */
void sc_seq_replay_of(struct sc_seq_outcome *out, const struct sc_results *r, const char *skill,
		      const char *model, const char *base_variant, const char *head_variant,
		      const struct sc_seq_design *d);

#endif
