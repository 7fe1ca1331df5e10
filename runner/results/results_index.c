/*
 * Look-ups on a loaded results model (runner/results/results.h): the
 * ranges of one skill's units, checks and history rows, found by
 * bisection in the sorted arrays, so a report costs what each skill has,
 * not what the run has, per skill.
 */
#include "common.h"
#include "results/results.h"
#include "results/results_sort.h"

/* Order of a check against (skill, model), as the checks are sorted; a
 * NULL model matches any. */
struct check_range_key {
	const struct sc_results *r;
	const char *skill, *model;
};

static int check_at(size_t i, const void *key)
{
	const struct check_range_key *k = key;
	const struct sc_results_check *c = &k->r->gate.checks[i];
	int d = sc_results_cmp_str(c->skill, k->skill);

	return d || !k->model ? d : sc_results_cmp_str(c->model, k->model);
}

size_t sc_results_checks_range(const struct sc_results *r, const char *skill, const char *model,
			       size_t *first)
{
	struct check_range_key k = { r, skill, model };

	if (!r->sorted) {
		*first = 0;
		return r->gate.nchecks;
	}
	return sc_results_equal_range(r->gate.nchecks, check_at, &k, first);
}

/* Order of a history row against (skill, variant, model), as cmp_flips orders them. */
struct flips_range_key {
	const struct sc_results *r;
	const char *skill, *model;
	enum sc_variant variant;
};

static int flips_at(size_t i, const void *key)
{
	const struct flips_range_key *k = key;
	const struct sc_results_flips *f = &k->r->flips[i];
	int c;

	if ((c = strcmp(f->skill, k->skill)) || (c = (int)f->variant - (int)k->variant))
		return c;
	return strcmp(f->model, k->model);
}

size_t sc_results_flips_range(const struct sc_results *r, const char *skill,
			      enum sc_variant variant, const char *model, size_t *first)
{
	struct flips_range_key k = { r, skill, model, variant };

	return sc_results_equal_range(r->nflips, flips_at, &k, first);
}

size_t sc_results_units_of(const struct sc_results *r, const char *skill, const char *model,
			   size_t *first)
{
	if (r->sorted)
		return sc_results_units_range(r, skill, model, SC_VARIANT_ANY, first);
	*first = 0;
	return r->nunits;
}

/* ---- failures and usage rows by skill ----------------------------------- */

struct keyed {
	const char *skill;
	size_t at;
};

static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int c = sc_results_cmp_str(a->skill, b->skill);
	return c ? c : (a->at > b->at) - (a->at < b->at);
}

/* o: the n rows of size elem at base, whose skill is at offset off, by skill. */
static void order_build(struct sc_results_order *o, const void *base, size_t n, size_t elem,
			size_t off)
{
	struct keyed *k = sc_xcalloc(n ? n : 1, sizeof(*k));

	free(o->at);
	for (size_t i = 0; i < n; i++) {
		k[i].skill = *(const char *const *)((const char *)base + i * elem + off);
		k[i].at = i;
	}
	qsort(k, n, sizeof(*k), cmp_keyed);
	o->at = sc_xcalloc(n ? n : 1, sizeof(*o->at));
	for (size_t i = 0; i < n; i++)
		o->at[i] = k[i].at;
	o->n = n;
	o->of = base;
	free(k);
}

void sc_results_order_build(struct sc_results *r)
{
	order_build(&r->failure_order, r->gate.failures, r->gate.nfailures,
		    sizeof(*r->gate.failures), offsetof(struct sc_results_gate_failure, skill));
	order_build(&r->usage_order, r->run.usage, r->run.nusage, sizeof(*r->run.usage),
		    offsetof(struct sc_results_usage, skill));
}

void sc_results_order_free(struct sc_results *r)
{
	free(r->failure_order.at);
	free(r->usage_order.at);
	memset(&r->failure_order, 0, sizeof(r->failure_order));
	memset(&r->usage_order, 0, sizeof(r->usage_order));
}

static bool order_holds(const struct sc_results_order *o, const void *base, size_t n)
{
	return o->at && o->n == n && o->of == base;
}

struct order_range_key {
	const struct sc_results_order *o;
	const void *base;
	size_t elem, off;
	const char *skill;
};

static int order_at(size_t i, const void *key)
{
	const struct order_range_key *k = key;
	const char *at = (const char *)k->base + k->o->at[i] * k->elem + k->off;

	return sc_results_cmp_str(*(const char *const *)at, k->skill);
}

/* The range of skill's rows in o, or every row when o does not hold. */
static size_t order_range(const struct sc_results_order *o, const void *base, size_t n,
			  size_t elem, size_t off, const char *skill, size_t *first)
{
	struct order_range_key k = { o, base, elem, off, skill };

	if (!order_holds(o, base, n)) {
		*first = 0;
		return n;
	}
	return sc_results_equal_range(n, order_at, &k, first);
}

size_t sc_results_failures_of(const struct sc_results *r, const char *skill, size_t *first)
{
	return order_range(&r->failure_order, r->gate.failures, r->gate.nfailures,
			   sizeof(*r->gate.failures), offsetof(struct sc_results_gate_failure, skill),
			   skill, first);
}

const struct sc_results_gate_failure *sc_results_failure_at(const struct sc_results *r, size_t k)
{
	const struct sc_results_order *o = &r->failure_order;
	return &r->gate.failures[order_holds(o, r->gate.failures, r->gate.nfailures) ? o->at[k] : k];
}

size_t sc_results_usage_of(const struct sc_results *r, const char *skill, size_t *first)
{
	return order_range(&r->usage_order, r->run.usage, r->run.nusage, sizeof(*r->run.usage),
			   offsetof(struct sc_results_usage, skill), skill, first);
}

const struct sc_results_usage *sc_results_usage_at(const struct sc_results *r, size_t k)
{
	const struct sc_results_order *o = &r->usage_order;
	return &r->run.usage[order_holds(o, r->run.usage, r->run.nusage) ? o->at[k] : k];
}
