#ifndef SC_SEQUENTIAL_H
#define SC_SEQUENTIAL_H
/*
 * The pass-rate decision of a check (docs/evaluation.md, "The pass-rate
 * decision"): per skill x model, "no regression of D points or more"
 * against "a regression", decided by a truncated sequential probability
 * ratio test on the paired per-test statistic, so that every check that
 * runs its design to the end is decided, pass or fail.
 *
 * The statistic at look k is the paired per-test difference of pass
 * rates (core/stats.h sc_stats_paired_margin, stratified): the drop
 * th = -mean with standard error se, its information I = 1 / se^2. The
 * two hypotheses are a drop of the margin m (gate.pass_rate_drop_points,
 * default 0: nothing changed) and a drop of D (gate.regression_points);
 * their log likelihood ratio at look k is
 *
 *     L = (D - m) (th - (m + D) / 2) I.
 *
 *   regression  L >= a + c_k        a drop is shown
 *   ruled out   L <= -(b + c_k)     a drop of D or more is ruled out
 *   the end     I >= i_max: regression when L >= 0, else ruled out (the
 *               boundaries meet: every check that gets there is decided)
 *   unverified  the last look (gate.max_runs runs per test) before any of
 *               these: the cap stopped the design early
 *
 * alpha' = alpha / family (Bonferroni over the PR's pass-rate checks, so
 * the chance that a PR whose every check drops by m or less fails is at
 * most alpha). a and b are calibrated (core/stats.h
 * sc_stats_sprt_calibrate) so that, on the normal approximation with
 * looks every 1 / SC_SEQ_STEPS of the information a fixed design needs,
 * I_fixed = ((z(1 - alpha') + z(1 - beta)) / (D - m))^2, and truncation
 * at i_max = imax I_fixed (SC_SEQ_IMAX, raised where the truncation alone
 * would spend too much alpha), the chance of failing a drop of m is
 * alpha' and of passing a drop of D is beta: Wald's log((1 - beta) /
 * alpha') and log((1 - alpha') / beta) hold them only for a path seen at
 * every instant. A look after less information than that step sees the
 * path more often: c_k = 0.583 z (sqrt(1 / SC_SEQ_STEPS) - sqrt(dI_k /
 * I_fixed)), never below 0, raises both boundaries by the difference in
 * expected overshoot (Siegmund's correction; a bigger step only makes the
 * design more careful). tests/bench/bench_gate.sh measures the errors on
 * simulated suites.
 *
 * Looks come after rounds: look k has r_k = min(k * first_runs,
 * max_runs) runs per test and side. A fixed design (max_runs 0: `runs:`
 * or `--runs N`) has one look on every unit and decides by the plain
 * one-sided tests instead: a regression when a drop beyond m is shown at
 * alpha', ruled out when a drop of D or more is rejected at beta, else
 * unverified.
 *
 * The decision (sc_seq_decide) is pure and shared by the pipeline's
 * rounds, the gate (which replays the looks from the units of a results
 * file, so report and merge decide as the run did) and the benchmark.
 */
#include <stdbool.h>
#include <stddef.h>

#include "stats.h"
#include "results/results.h"  /* enum sc_variant */

struct sc_results;

/* History (docs/evaluation.md): a test with at least this many stored runs
 * at base, all one outcome, runs once at head in the first round. */
#define SC_SEQ_STABLE_RUNS 4

/* i_max over the fixed design's information, and the looks the
 * boundaries are calibrated for (per fixed design's information). */
#define SC_SEQ_IMAX 2.0
#define SC_SEQ_STEPS 10
/* Siegmund's constant: the expected overshoot of a Brownian path over a
 * boundary seen at steps of variance 1, in standard deviations. */
#define SC_SEQ_OVERSHOOT 0.583
/* A design of more rounds than this gets bigger rounds. */
#define SC_SEQ_MAX_LOOKS 64

struct sc_seq_design {
	double alpha;      /* the chance a PR whose checks drop by m fails, over the family */
	double beta;       /* the chance a drop of D passes one check */
	double margin;     /* m: the drop that counts as none (fraction) */
	double drop;       /* D: the drop that must be caught (fraction) */
	int first_runs;    /* runs per test and side in each round (>= 1) */
	int max_runs;      /* runs per test and side at most; 0: a fixed design */
	size_t family;     /* pass-rate checks of the PR (>= 1) */
	/* computed by sc_seq_design_init */
	double imax;            /* SC_SEQ_IMAX, or more where the truncation needs it */
	double alpha_check;     /* alpha / family */
	double z;               /* z(1 - alpha') + z(1 - beta) */
	double log_a, log_b;    /* the calibrated boundaries a and b */
	double i_fixed, i_max;  /* information a fixed design needs; where the boundaries meet */
};

/*
 * Fills d for a sequential design (max_runs > 0) or a fixed one (0) and
 * computes the rest. margin and drop are fractions (0.15 = 15 points);
 * drop is raised to margin + 0.01 when it is not above the margin. A
 * design of more than SC_SEQ_MAX_LOOKS rounds gets bigger rounds:
 * first_runs becomes ceil(max_runs / SC_SEQ_MAX_LOOKS).
 */
void sc_seq_design_init(struct sc_seq_design *d, double alpha, double beta, double margin,
			double drop, int first_runs, int max_runs, size_t family);
/*
 * Sets d's boundaries (log_a, log_b) and imax for looks every 1 / steps
 * of the fixed design's information, truncated from imax0 on (raised by
 * 0.5 up to 4 where the truncation alone spends too much alpha; past 4,
 * Wald's boundaries), for d's alpha_check and beta. i_max is the caller's
 * (imax times i_fixed). sc_seq_design_init uses SC_SEQ_IMAX and
 * SC_SEQ_STEPS; the benchmark tries others.
 */
void sc_seq_calibrate(struct sc_seq_design *d, double imax0, int steps);
/* Whether d samples in rounds (max_runs > 0). */
bool sc_seq_is_sequential(const struct sc_seq_design *d);
/* The number of looks: ceil(max_runs / first_runs); 1 for a fixed design. */
int sc_seq_looks(const struct sc_seq_design *d);
/* Runs per test at look k (1-based); for a fixed design first_runs. */
int sc_seq_look_runs(const struct sc_seq_design *d, int k);

/*
 * The runs per test after which a check of tests tests has surely
 * reached i_max (every test's variance at its largest): the design never
 * needs more, so a plan holds no more (at most max_runs). A fixed
 * design's runs.
 */
int sc_seq_runs_needed(const struct sc_seq_design *d, size_t tests);

enum sc_seq_decision {
	SC_SEQ_OPEN,          /* not decided: sample on */
	SC_SEQ_REGRESSION,    /* a drop is shown: the check fails */
	SC_SEQ_RULED_OUT,     /* a drop of D or more is ruled out: the check passes */
	SC_SEQ_UNVERIFIED     /* stopped before the design decided (the cap, the budget,
			       * a stop, or no test judged at both sides) */
};

/* The decision as the results record it: regression, ruled_out,
 * unverified (open too). */
enum sc_decision sc_seq_decision_result(enum sc_seq_decision v);

/* Where look k stands: the log likelihood ratio and its boundaries. */
struct sc_seq_look {
	double info;           /* I = 1 / se^2 */
	double llr;            /* L */
	double fail_at;        /* L at or above this fails: a + c_k */
	double pass_at;        /* L at or below this passes: -(b + c_k) */
	bool end;              /* I reached i_max: the boundaries meet (at 0) */
};

/*
 * Where a look stands on st (the paired statistics of the runs so far)
 * after a look whose information was info_prev (0 for the first).
 * false when st has no test or no standard error.
 */
bool sc_seq_look(struct sc_seq_look *out, const struct sc_seq_design *d,
		 const struct sc_stats_paired *st, double info_prev);

/*
 * Decides look k (1-based) on st after a look of information info_prev
 * (sc_seq_look). A fixed design decides its one look by the one-sided
 * tests. st without tests is open before the last look and unverified
 * at it; so is a look that neither boundary decides.
 */
enum sc_seq_decision sc_seq_decide(const struct sc_stats_paired *st, const struct sc_seq_design *d,
				   int k, double info_prev);

/* One check decided from a results model: the look it stopped at. */
struct sc_seq_outcome {
	enum sc_seq_decision decision;
	struct sc_stats_paired st;     /* at the look decided (or the last with data) */
	struct sc_seq_look at;         /* where that look stood (at.info 0: none) */
	int look;                      /* 1-based */
	int runs;                      /* runs per test at that look */
	unsigned long base_units, head_units;  /* judged units used per side */
	bool more;                     /* open, and no unit of a later look exists */
};

/*
 * The tests of skill and model at two variants, over the units [first,
 * first + count) of r (sc_results_units_of: the skill and model's, or
 * every unit): test_of[k] (count entries) is the index of unit first + k's
 * test among the tests found, in order of first appearance, or SIZE_MAX
 * when the unit is of another skill, model or variant, or has run_index
 * >= max_run (max_run < 0: any). Returns the number of tests; a test may
 * have only units a caller leaves out (skipped, erred, without a value).
 */
size_t sc_seq_units_by_test(const struct sc_results *r, const char *skill, const char *model,
			    enum sc_variant base_variant, enum sc_variant head_variant, long max_run,
			    size_t first, size_t count, size_t *test_of);

/*
 * Replays the looks of d on the units of r for skill and model: look k
 * uses the units with run_index < r_k; the first look that decides is
 * the outcome. When a look is open and r holds no unit of a later run
 * the check stopped there (out->more): open before the last look (the
 * pipeline samples on; the gate reads it as unverified: the budget or
 * a stop ended it). A fixed design is its one look on every unit.
 */
void sc_seq_replay(struct sc_seq_outcome *out, const struct sc_results *r, const char *skill,
		   const char *model, const struct sc_seq_design *d);
/* sc_seq_replay on the units of two named variants (sc_seq_test_counts_of). */
void sc_seq_replay_of(struct sc_seq_outcome *out, const struct sc_results *r, const char *skill,
		      const char *model, enum sc_variant base_variant, enum sc_variant head_variant,
		      const struct sc_seq_design *d);

#endif
