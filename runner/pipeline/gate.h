#ifndef SC_GATE_H
#define SC_GATE_H
/*
 * The gate of a PR check (DESIGN.md, "The gate decides"; docs/run.md):
 * reads the findings, aggregates and units of a results model and writes
 * its verdict into the same model: every check it made (r->gate.checks,
 * what the JUnit shows: passed, failed, unverified, error or skipped with
 * the reason), a failure per check that blocks the merge
 * (r->gate.failures), each skill's gate, and the run's verdict
 * (r->gate.verdict: pass, fail, unverified, error). Every threshold comes
 * from struct sc_config_gate (skillci.yml "gate:", defaults in config.c).
 * Checks and their rules, per changed skill (not deleted):
 *
 *   validity   skill_invalid               an error finding new at head (with
 *                                          fail_on_existing, any at head)
 *   tests      skill_untested              unverified: a changed skill with no tests
 *                                          (accepted with gate.allow_untested)
 * and per model with head units:
 *   pass_rate  pass_rate_drop              the design (sequential.h) shows a drop
 *              pass_rate_unverified        the design stopped early, a test has a
 *                                          result at one side only, or units could not
 *                                          be judged (unverified)
 *              head_no_result, base_no_result  a side without any pass/fail unit
 *                                          (unverified)
 *   lift       new_skill_no_better         an added skill (require_lift) shown worse
 *                                          than no skill by the same design
 *              lift_unverified, lift_no_result  as for pass_rate (unverified)
 *   discrimination tests_not_discriminating an added skill whose no-skill baseline
 *                                          passes every test some answer can pass, or
 *                                          more than gate.max_baseline_pass_rate; or
 *                                          whose tests no answer passes
 *              baseline_no_result          the baseline has no pass rate
 *   kernel     kernel_unverified           kernel units that could not run on a GPU:
 *                                          unverified (accepted with gate.compile_only);
 *                                          an error (exit 3) when a GPU was found
 *   tokens     tokens_rise                 tokens up more than the percentage (shown
 *                                          per test, paired), pass rate flat or worse
 *   speedup    speedup_drop                speedup down by more than the ratio (shown
 *                                          per test, paired)
 *   judge      judge_drop                  judge score down by more than judge_drop
 *                                          (shown per test, paired), pass rate flat
 *                                          or worse
 *   (the three measured-value checks fail only when the regression is
 *   shown at Holm's level over the PR's such checks, SC_GATE_METRIC_SHARE
 *   of alpha; pass when it is ruled out; else are skipped: they refine a
 *   pass rate and decide nothing alone)
 *   errors     error_share                 the run's infrastructure errors, among
 *                                          the units that decide something, over the
 *                                          share: an error (exit 3), "could not check"
 *
 * The run's verdict: fail when a check failed; else error when a check
 * could not be made; else unverified when a check is unverified; else
 * pass. The exit code: 0 pass (and unverified when every unverified
 * check is accepted), 1 fail or unverified, 3 error.
 */
#include <stdbool.h>
#include <stddef.h>

#include "results/results.h"  /* the check kinds and statuses */

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
 * Applies the gate to r: replaces r->gate (error_share: the errors among
 * the units that decide something), sets every skill's gate_passed and
 * gate_reasons and the run's verdict, and sorts r. Returns the exit code:
 * 0 passed, 1 failed or unverified, 3 could not check.
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
 * model ""), without a check row, with its status (failed, or error: the
 * runner's). The caller sets r->gate.passed and the exit code.
 */
void sc_gate_add_run_failure(struct sc_results *r, const char *rule, enum sc_check_kind check,
			     enum sc_check_status status, const char *message);

struct sc_seq_design;
struct sc_results_check;

/*
 * The pass-rate decision as the gate makes it (sequential.h): alpha the
 * pass-rate checks' share (sc_gate_pass_rate_alpha) over family checks,
 * beta, m and D, the rounds and the cap from g. The pipeline's rounds,
 * the gate's replay and the benchmark all take it from here.
 */
void sc_gate_design(struct sc_seq_design *out, const struct sc_config_gate *g, size_t family);

/* Whether a check blocks the merge: failed, error, or unverified and not accepted. */
bool sc_gate_check_blocks(const struct sc_results_check *c);

/* Sets r's verdict, passed and exit code from its checks and failures
 * (results/verdict.h sc_verdict_of_checks; an eval's from its lift
 * decisions, exit 0 unless it could not check). */
void sc_gate_set_verdict(struct sc_results *r);

#endif
