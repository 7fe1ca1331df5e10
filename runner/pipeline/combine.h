#ifndef SC_REPORT_COMBINE_H
#define SC_REPORT_COMBINE_H
/*
 * `skillci report HEAD.json --base BASE.json`: folds two single-run
 * results files into one, so every reporter can draw a base → head diff.
 * The base file's "head" units and aggregates become the "base" variant;
 * its "baseline" ones are used when the head file has none; skills only in
 * the base file are marked deleted, skills only in the head file added.
 * Base → head comparisons are made from the aggregates, unpaired
 * (paired_n 0, no p-value): a paired test needs both sides in one run.
 */

#include <stdbool.h>

struct sc_results;

/*
 * A results file is someone else's (docs/security.md): its skill statuses
 * decide which checks the gate makes, so they are held against the units
 * it carries. A skill with head units is not "unchanged" or "deleted", one
 * with base units is not "added" (each becomes "modified"), and one with
 * head units is not untested. Each status changed is noted in
 * r->run.trust.notes, naming what (a label for the file) claimed it.
 * An eval (kind "eval", no base units) judges skills in place and is left
 * as it is; one that holds base units is judged as the run it is.
 * Returns how many were changed.
 */
int sc_report_distrust_statuses(struct sc_results *r, const char *what);

/*
 * Replaces r's gate by one that says the verdict cannot be checked: a
 * failed "verdict_unverified" check for each skill (or the run, with
 * none), naming what and the verdict it claimed. For a file that carries
 * no units to recompute the gate from: its claim is shown, never taken.
 */
void sc_report_unverified(struct sc_results *r, const char *what);

/* Moves what head needs out of base (base is left releasable, partly
 * emptied). Returns 0. */
int sc_report_combine(struct sc_results *head, struct sc_results *base);

/*
 * The skills of claimed (paths whose aggregates a file carried) that r
 * holds no unit of: their numbers cannot be recomputed, so each gets a
 * failed "verdict_unverified" check saying so (a file that keeps a
 * regressed skill's aggregates but drops its units does not pass).
 * Returns how many.
 */
struct sc_strlist;
int sc_report_claims_without_units(struct sc_results *r, const struct sc_strlist *claimed,
				   const char *what);

#endif
