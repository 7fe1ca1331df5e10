#ifndef SC_GATE_H
#define SC_GATE_H
/*
 * The gate of a PR check (DESIGN.md "Default gate", docs/run.md): reads the
 * aggregates and comparisons of a results model and writes its verdict
 * into the same model (r->gate and each skill's gate). Every threshold
 * comes from struct sc_config_gate (skillci.yml "gate:", defaults in
 * config.c). Rules, per changed skill and model:
 *
 *   pass_rate_significant_drop  head below base, paired McNemar p < alpha
 *   pass_rate_drop              head below base by more than the points
 *   tokens_rise                 mean tokens up more than the percentage,
 *                               pass rate flat or worse
 *   speedup_drop                speedup geomean down by more than the ratio
 *   judge_drop                  judge score down by more than judge_drop,
 *                               pass rate flat or worse
 *   new_skill_no_better         an added skill (require_lift) below no skill,
 *                               or level with it (below 100%) and no token
 *                               savings
 *   error_share                 infrastructure errors over the share of all
 *                               units: exit 3
 *   skill_invalid               (added by the command with sc_gate_add) the
 *                               head SKILL.md breaks the Agent Skills rules
 *
 * Deleted and untested skills pass (they are reported, not judged).
 */
#include <stdbool.h>

struct sc_results;
struct sc_config_gate;

/*
 * Applies the gate to r: replaces r->gate, sets every skill's gate_passed
 * and gate_reasons. Returns the exit code: 0 passed, 1 a rule failed, 3
 * too many infrastructure errors (which wins over 1).
 */
int sc_gate_apply(struct sc_results *r, const struct sc_config_gate *g);

/*
 * Adds one failure found outside the numbers (rule "skill_invalid": the
 * head SKILL.md has errors) to r's gate and to the skill's reasons (skill
 * is a path in r->skills; model may be NULL). Returns the new exit code
 * (1, or 3 when it already was).
 */
int sc_gate_add(struct sc_results *r, const char *skill, const char *model, const char *rule,
		const char *message);

#endif
