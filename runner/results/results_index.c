/*
 * Look-ups on a loaded results model (runner/results/results.h): the
 * ranges of one skill's units, checks and history rows, found by
 * bisection in the sorted arrays, so a report costs what each skill has,
 * not what the run has, per skill.
 */
#include "common.h"
#include "results/results.h"

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

/* Order of a check against the key (skill, model, check); NULL parts match anything. */
static int check_key(const struct sc_results_check *c, const char *skill, const char *model,
		     const char *check)
{
	int d;

	if ((d = cmp_str(c->skill, skill)) || !model || (d = cmp_str(c->model, model)) || !check ||
	    (d = sc_results_check_rank(c->check) - sc_results_check_rank(check)))
		return d;
	return cmp_str(c->check, check);
}

size_t sc_results_checks_range(const struct sc_results *r, const char *skill, const char *model,
			       size_t *first)
{
	size_t lo = 0, hi = r->gate.nchecks, end;

	if (!r->sorted) {
		*first = 0;
		return r->gate.nchecks;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (check_key(&r->gate.checks[mid], skill, model, NULL) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < r->gate.nchecks && !check_key(&r->gate.checks[end], skill, model, NULL);
	     end++)
		;
	*first = lo;
	return end - lo;
}


/* Order of a history row against (skill, variant, model), as cmp_flips orders them. */
static int flips_key(const struct sc_results_flips *f, const char *skill, const char *variant,
		     const char *model)
{
	int c;

	if ((c = strcmp(f->skill, skill)) || (c = strcmp(f->variant, variant)))
		return c;
	return strcmp(f->model, model);
}

size_t sc_results_flips_range(const struct sc_results *r, const char *skill, const char *variant,
			      const char *model, size_t *first)
{
	size_t lo = 0, hi = r->nflips, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (flips_key(&r->flips[mid], skill, variant, model) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < r->nflips && !flips_key(&r->flips[end], skill, variant, model); end++)
		;
	*first = lo;
	return end - lo;
}

size_t sc_results_units_of(const struct sc_results *r, const char *skill, const char *model,
			   size_t *first)
{
	if (r->sorted)
		return sc_results_units_range(r, skill, model, NULL, first);
	*first = 0;
	return r->nunits;
}
