#ifndef SC_COMPARE_H
#define SC_COMPARE_H
/*
 * The one way two aggregates of a results model are compared
 * (docs/evaluation.md, "Comparisons"): eval, run, merge, `report --base`
 * and every reporter fill or read comparisons through these functions, so
 * a delta, a p-value and the word "significant" mean the same thing in the
 * gate, the terminal, the Markdown and the JUnit.
 *
 * Significance is always judged at the run's alpha (skillci.yml
 * gate.alpha, recorded as run.alpha in the results): a paired McNemar
 * p-value strictly below alpha. Unpaired comparisons (two separate
 * results files) have no p-value and are never significant.
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_results_aggregate;
struct sc_results_comparison;

/* alpha when neither the config nor the results name one. */
#define SC_COMPARE_DEFAULT_ALPHA 0.05

/* Paired outcomes of two variants over the same (test, run) units. */
struct sc_compare_pairs {
	size_t n;          /* pairs where both sides passed or failed */
	size_t from_pass;  /* pairs passed on the from side */
	size_t to_pass;
	size_t from_only;  /* passed on the from side only */
	size_t to_only;
};

/*
 * Fills the numbers of c (its skill, model, from and to are the caller's)
 * from aggregates from and to, and from pairs when it is not NULL and
 * holds at least one pair: paired pass rates, their delta, the exact
 * McNemar p-value and significance at alpha. Without pairs the pass rates
 * and delta come from the aggregates, paired_n is 0 and there is no
 * p-value. Either way: mean tokens change in percent, speedup geomean
 * ratio, judge score delta, and when from is the baseline (no skill)
 * upskill's lift, token savings and is_beneficial. Absent inputs give NAN.
 */
void sc_compare_fill(struct sc_results_comparison *c, const struct sc_results_aggregate *from,
		     const struct sc_results_aggregate *to, const struct sc_compare_pairs *pairs,
		     double alpha);

/* True when p_value is a number strictly below alpha. */
bool sc_compare_significant(double p_value, double alpha);

/* (to - from) / from * 100, NAN when either is NAN or from is not positive. */
double sc_compare_pct_change(double from, double to);
/* to / from, NAN when either is NAN or from is not positive. */
double sc_compare_ratio(double from, double to);

/* alpha if it is a usable level (0 < alpha < 1), else the default. */
double sc_compare_alpha(double alpha);

#endif
