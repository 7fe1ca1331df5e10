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

struct sc_results;

/* Moves what head needs out of base (base is left releasable, partly
 * emptied). Returns 0. */
int sc_report_combine(struct sc_results *head, struct sc_results *base);

#endif
