#ifndef SC_FINDINGS_H
#define SC_FINDINGS_H
/*
 * Findings of a changed skill compared across its two sides (docs/run.md,
 * "Findings"): the Agent Skills errors and warnings of the base and of the
 * head, and the errors of loading either side, matched by severity, code
 * (the rule) and file. A finding at head that the base has too is
 * "existing" (pre-existing: shown and counted, failing only with
 * gate.fail_on_existing), one at head only is "new" (an error fails the
 * gate's validity check), one at base only is "fixed". Lines are not part
 * of the match (an edit above moves them); several findings of one rule in
 * one file are matched in line order.
 */
struct sc_buf;
struct sc_diags;
struct sc_results_finding;
struct sc_results_skill;

/*
 * Replaces s->findings with the comparison of base and head (either may be
 * NULL: a side that does not exist). File names must be repository paths
 * of the same side-independent form (the head's path for both sides of a
 * rename). Order: head's findings by file and line, then the fixed ones.
 */
void sc_findings_compare(struct sc_results_skill *s, const struct sc_diags *base,
			 const struct sc_diags *head);

/*
 * One finding as a line for stderr, with its side and state:
 * "skills/x/SKILL.md:2: error: message [code] (head, new)",
 * "(head, pre-existing: also at base)", "(base, fixed at head)".
 */
void sc_findings_format(struct sc_buf *out, const struct sc_results_finding *f);

#endif
