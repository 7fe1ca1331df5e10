#ifndef SC_RESULTS_SORT_H
#define SC_RESULTS_SORT_H
/*
 * Private to runner/results/results*.c: the documented order of the
 * results arrays (results.c), shared by sorting the model and writing it
 * (results_write.c), and the form of the signature member the writer
 * appends and results_verify.c checks.
 */
#include <stddef.h>

/* Sort entries: a pointer plus the original index as the last tie-break,
 * so equal keys keep their input order and the output is deterministic. */
struct sc_results_sorted {
	const void *item;
	size_t index;
};

/* NULL compares as "". */
int sc_results_cmp_str(const char *a, const char *b);
/* qsort comparators of struct sc_results_sorted entries, one per array. */
int sc_results_cmp_skill(const void *pa, const void *pb);
int sc_results_cmp_unit(const void *pa, const void *pb);
int sc_results_cmp_aggregate(const void *pa, const void *pb);
int sc_results_cmp_comparison(const void *pa, const void *pb);
int sc_results_cmp_check(const void *pa, const void *pb);
/* The n elements (of size elem) at base as entries sorted by cmp (malloc'd). */
struct sc_results_sorted *sc_results_sort_items(const void *base, size_t n, size_t elem,
						int (*cmp)(const void *, const void *));

/* The run of positions [*first, *first + n) among 0..count-1 where
 * cmp(i, key) is 0, in an order where it is negative before the run and
 * positive after it (found by bisection); returns n. */
size_t sc_results_equal_range(size_t count, int (*cmp)(size_t i, const void *key),
			      const void *key, size_t *first);

/* The signature member at the end of a signed document (results.h). */
#define SC_RESULTS_SIGN_DOMAIN "skillci-results/1"
#define SC_RESULTS_SIGN_HEAD ",\n \"signature\": {\n  \"key\": \""
#define SC_RESULTS_SIGN_MID "\",\n  \"mac\": \""
#define SC_RESULTS_SIGN_TAIL "\"\n }\n}\n"

#endif
