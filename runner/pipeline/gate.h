#ifndef SC_GATE_H
#define SC_GATE_H
/*
 * The gate of a PR check (DESIGN.md "Default gate", docs/run.md): reads the
 * findings, aggregates and comparisons of a results model and writes its
 * verdict into the same model: every check it made (r->gate.checks, what
 * the JUnit shows, passed, failed or skipped with the reason), a failure
 * per broken rule (r->gate.failures) and each skill's gate. Every
 * threshold comes from struct sc_config_gate (skillci.yml "gate:",
 * defaults in config.c). Checks and their rules, per changed skill (not
 * deleted):
 *
 *   validity   skill_invalid               an error finding new at head (with
 *                                          fail_on_existing, any at head)
 *   tests      skill_untested              a modified or moved skill with no tests
 *                                          at base nor head, unless the trusted
 *                                          config sets gate.allow_untested (then
 *                                          skipped; still counted unverified)
 * and per model with head units (not for untested skills):
 *   pass_rate  pass_rate_drop              a drop beyond gate.pass_rate_drop_points
 *                                          shown at alpha: paired per test, runs as
 *                                          replicates, Holm over the PR's pass_rate
 *                                          checks (core/stats.h); ruled out: passed;
 *                                          neither: inconclusive, skipped with the
 *                                          drop that cannot be ruled out
 *              pass_rate_inconclusive      inconclusive with gate.fail_inconclusive
 *              head_no_result              the head has no pass rate (every unit
 *                                          skipped or an error)
 *              base_no_result              the base has none to compare with
 *   lift       new_skill_no_better         an added skill (require_lift) shown
 *                                          below no skill, paired per test (level
 *                                          with no token savings: inconclusive)
 *              lift_no_result              head or baseline has no pass rate
 *   discrimination tests_not_discriminating an added skill whose no-skill baseline
 *                                          passes every test, or more than
 *                                          gate.max_baseline_pass_rate; or that has
 *                                          no tests at all
 *              baseline_no_result          the baseline has no pass rate
 *   kernel     kernel_unverified           head or base kernel units that could not
 *                                          run on a GPU (skipped) unless the trusted
 *                                          config sets gate.compile_only (then
 *                                          skipped, "no kernel was run"); exit 3
 *                                          when a GPU was found but did not run them
 *   tokens     tokens_rise                 tokens up more than the percentage (shown
 *                                          per test, paired), pass rate flat or worse
 *   speedup    speedup_drop                speedup down by more than the ratio (shown
 *                                          per test, paired)
 *   judge      judge_drop                  judge score down by more than judge_drop
 *                                          (shown per test, paired), pass rate flat
 *                                          or worse
 *   (the three measured-value checks and a new skill's lift fail only
 *   when the drop or rise is shown at Holm's level over the PR's such
 *   checks, SC_GATE_METRIC_SHARE of alpha; pass when it is ruled out at
 *   alpha; else are skipped, inconclusive)
 *   errors     error_share                 the run's infrastructure errors over the
 *                                          share of all units (exit 3); failed for
 *                                          each skill and model that has errors
 *
 * No evidence, no pass: a check whose units were all skipped or erred
 * fails (tokens, speedup and judge, which only refine a pass rate, are
 * skipped with the reason). An untested modified or moved skill fails
 * skill_untested (validity alone is no evidence); an untested added one
 * fails discrimination.
 */
#include <stdbool.h>

/* A test whose history flips at least this often at base is named in its
 * pass_rate message (docs/evaluation.md, "History"). */
#define SC_GATE_FLAKY 0.2

/*
 * The share of gate.alpha spent on the measured-value checks (tokens,
 * speedup, judge, and a new skill's lift: Holm over the PR's such checks
 * at alpha times this);
 * the pass-rate checks spend the rest on showing a drop, so a PR that
 * changes nothing fails any check with probability at most alpha
 * (docs/run.md, "The gate").
 */
#define SC_GATE_METRIC_SHARE 0.2

struct sc_results;
struct sc_config_gate;
struct sc_results_gate_policy;

/* The alpha the PR's pass-rate checks spend on showing a drop: gate.alpha
 * less the measured-value checks' share. */
double sc_gate_pass_rate_alpha(const struct sc_config_gate *g);

/*
 * The gate policy a run recorded (run.trust.gate), as thresholds to apply
 * again: every field, so that report and merge decide as the run did.
 * Only for a policy that is trusted (a signed file's, the shards').
 */
void sc_gate_policy_to_config(struct sc_config_gate *out, const struct sc_results_gate_policy *g);

/*
 * Applies the gate to r: replaces r->gate (keeping error_share's
 * definition: errors over all units), sets every skill's gate_passed and
 * gate_reasons, and sorts r. Returns the exit code: 0 passed, 1 a rule
 * failed, 3 too many infrastructure errors or a GPU that did not run the
 * kernels (which wins over 1).
 */
int sc_gate_apply(struct sc_results *r, const struct sc_config_gate *g);

/* Empties r's gate (no check, no failure, passed) and every skill's. */
void sc_gate_clear(struct sc_results *r);

/*
 * Adds one failure decided outside the gate's own checks to r's gate, as a
 * failed check of the rule's check (sc_results_rule_check), and to the
 * skill's reasons (skill is a path in r->skills; model may be NULL).
 * Returns the new exit code (1, or 3 when it already was).
 */
int sc_gate_add(struct sc_results *r, const char *skill, const char *model, const char *rule,
		const char *message);

/*
 * Adds a failure of the run as a whole (no skill to hang it on: skill and
 * model ""), without a check row. The caller sets r->gate.passed and the
 * exit code.
 */
void sc_gate_add_run_failure(struct sc_results *r, const char *rule, const char *check,
			     const char *message);

/*
 * The verdict of one pass-rate comparison: a drop beyond the margin shown
 * (p_adj, the Holm-adjusted p_drop of sc_stats_paired, below fail_alpha,
 * sc_gate_pass_rate_alpha), ruled out (p_within below alpha), or still
 * open.
 */
enum sc_gate_margin { SC_GATE_MARGIN_DROP, SC_GATE_MARGIN_RULED_OUT, SC_GATE_MARGIN_OPEN };
enum sc_gate_margin sc_gate_margin_decide(double p_adj, double p_within, double fail_alpha,
					  double alpha);

#endif
