/*
 * The results model (results.h): init and release, the string pool,
 * rule and check names, lookups and the documented order. Reading is
 * results_read.c, writing results_write.c, signatures results_verify.c.
 */
#include "common.h"
#include "results/results.h"
#include "results/results_sort.h"
#include "strpool.h"

#include <math.h>

/* ---- init / release ---------------------------------------------------- */

void sc_results_kernel_init(struct sc_results_kernel *k)
{
	memset(k, 0, sizeof(*k));
	k->max_abs_error = NAN;
	k->worst_index = k->registers = k->spills = k->shared_bytes = SC_RESULTS_NULL_INT;
	k->candidate_ms = k->baseline_ms = k->candidate_iqr_ms = NAN;
	k->speedup = k->strong_speedup = k->pct_of_peak = NAN;
}

void sc_results_unit_init(struct sc_results_unit *u)
{
	memset(u, 0, sizeof(*u));
	u->judge_score = NAN;
	u->test_line = SC_RESULTS_NULL_INT;
}

char *sc_results_excerpt(const char *answer)
{
	size_t len, cut;
	char *out;

	if (!answer)
		return NULL;
	while (*answer == ' ' || *answer == '\t' || *answer == '\n' || *answer == '\r')
		answer++;
	if (!*answer)
		return NULL;
	len = strlen(answer);
	if (len <= SC_RESULTS_EXCERPT_MAX)
		return sc_xstrdup(answer);
	cut = SC_RESULTS_EXCERPT_MAX;
	while (cut > 0 && ((unsigned char)answer[cut] & 0xC0) == 0x80)
		cut--;
	out = sc_xmalloc(cut + sizeof("…"));
	memcpy(out, answer, cut);
	memcpy(out + cut, "…", sizeof("…"));
	return out;
}

void sc_results_aggregate_init(struct sc_results_aggregate *a)
{
	memset(a, 0, sizeof(*a));
	a->pass_rate = a->ci_low = a->ci_high = NAN;
	a->mean_tokens = a->mean_turns = a->speedup_geomean = a->strong_speedup_geomean = NAN;
	a->fast_1 = a->fast_1_5 = a->fast_2 = a->judge_mean = NAN;
}

void sc_results_comparison_init(struct sc_results_comparison *c)
{
	memset(c, 0, sizeof(*c));
	c->from_pass_rate = c->to_pass_rate = c->pass_rate_delta = NAN;
	c->p_value = c->tokens_delta_pct = c->speedup_ratio = NAN;
	c->judge_delta = c->skill_lift = c->token_savings = NAN;
	c->is_beneficial = -1;
}

void sc_results_init(struct sc_results *r)
{
	memset(r, 0, sizeof(*r));
	r->run.complete = true;
	r->run.shard_index = r->run.shard_count = 1;
	r->run.alpha = NAN;
	r->gate.passed = true;
}

void sc_results_finding_release(struct sc_results_finding *f)
{
	free(f->code); free(f->file); free(f->message);
	memset(f, 0, sizeof(*f));
}

void sc_results_check_release(struct sc_results_check *c)
{
	free(c->skill); free(c->model); free(c->rule); free(c->message); free(c->file);
	memset(c, 0, sizeof(*c));
}

void sc_results_failure_release(struct sc_results_gate_failure *f)
{
	free(f->skill); free(f->model); free(f->rule); free(f->message); free(f->file);
	memset(f, 0, sizeof(*f));
}

static const struct {
	const char *rule;
	enum sc_check_kind check;
} rule_checks[] = {
	{ "skill_invalid", SC_CHECK_VALIDITY },
	{ "pass_rate_significant_drop", SC_CHECK_PASS_RATE },
	{ "pass_rate_drop", SC_CHECK_PASS_RATE },
	{ "pass_rate_inconclusive", SC_CHECK_PASS_RATE },
	{ "pass_rate_unverified", SC_CHECK_PASS_RATE },
	{ "lift_unverified", SC_CHECK_LIFT },
	{ "head_no_result", SC_CHECK_PASS_RATE },
	{ "new_skill_no_better", SC_CHECK_LIFT },
	{ "tokens_rise", SC_CHECK_TOKENS },
	{ "speedup_drop", SC_CHECK_SPEEDUP },
	{ "judge_drop", SC_CHECK_JUDGE },
	{ "error_share", SC_CHECK_ERRORS },
	{ "skill_deleted", SC_CHECK_DELETED },
	{ "base_no_result", SC_CHECK_PASS_RATE },
	{ "lift_no_result", SC_CHECK_LIFT },
	{ "tests_not_discriminating", SC_CHECK_DISCRIMINATION },
	{ "baseline_no_result", SC_CHECK_DISCRIMINATION },
	{ "kernel_unverified", SC_CHECK_KERNEL },
	{ "skill_untested", SC_CHECK_TESTS },
	{ "interrupted", SC_CHECK_RUN },
	{ "verdict_unverified", SC_CHECK_CLAIM },
};

bool sc_results_rule_check(const char *rule, enum sc_check_kind *out)
{
	for (size_t i = 0; rule && i < SC_ARRAY_SIZE(rule_checks); i++)
		if (!strcmp(rule_checks[i].rule, rule)) {
			*out = rule_checks[i].check;
			return true;
		}
	return false;
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void kernel_free(struct sc_results_kernel *k)
{
	if (!k)
		return;
	free(k->fixture);
	free(k->fixture_hash);
	free(k->compile_log);
	free(k->strong_reference);
	free_strv(k->flags, k->nflags);
	free(k);
}

void sc_results_unit_release(struct sc_results_unit *u)
{
	struct sc_results_hashes *h = &u->hashes;

	if (u->pooled) {
		/* the strings are the pool's */
		if (u->kernel)
			free(u->kernel->flags);
		free(u->kernel);
		sc_results_unit_init(u);
		return;
	}
	free(u->skill); free(u->model); free(u->test_id); free(u->test_name);
	free(u->error_class); free(u->message); free(u->excerpt); free(u->test_file);
	kernel_free(u->kernel);
	free(h->skill); free(h->test); free(h->model); free(h->prompt);
	free(h->harness); free(h->fixture);
	sc_results_unit_init(u);
}

void sc_results_release(struct sc_results *r)
{
	struct sc_results_run *run = &r->run;

	sc_results_order_free(r);
	free(r->schema);
	free(r->skillci_version);
	free(r->harness_version);
	free(run->id); free(run->started_at); free(run->finished_at);
	free(run->incomplete_reason); free(run->repo); free(run->base_rev); free(run->head_rev);
	free_strv(run->models, run->nmodels);
	free_strv(run->resolved_models, run->nresolved_models);
	free(run->plan_hash); free(run->mode); free(run->fixtures_lock);
	free(run->prov.head); free(run->prov.base); free(run->prov.merge_base);
	free(run->prov.judged_tree); free(run->prov.config_hash);
	free(run->prov.workflow_run_id); free(run->prov.pr_source);
	free(run->gpu.name); free(run->gpu.driver); free(run->gpu.arch); free(run->gpu.cc);
	for (size_t i = 0; i < run->nusage; i++) {
		free(run->usage[i].skill);
		free(run->usage[i].model);
		free(run->usage[i].price_date);
	}
	free(run->usage);
	free(run->trust.config);
	for (size_t i = 0; i < run->trust.nchanges; i++) {
		free(run->trust.changes[i].key);
		free(run->trust.changes[i].base);
		free(run->trust.changes[i].head);
	}
	free(run->trust.changes);
	free_strv(run->trust.notes, run->trust.nnotes);
	for (size_t i = 0; i < r->nskills; i++) {
		struct sc_results_skill *s = &r->skills[i];
		free(s->path); free(s->name); free(s->old_path);
		free(s->skill_md); free(s->base_tree); free(s->head_tree);
		free_strv(s->gate_reasons, s->ngate_reasons);
		for (size_t f = 0; f < s->nfindings; f++)
			sc_results_finding_release(&s->findings[f]);
		free(s->findings);
	}
	free(r->skills);
	for (size_t i = 0; i < r->nunits; i++)
		sc_results_unit_release(&r->units[i]);
	free(r->units);
	for (size_t i = 0; i < r->naggregates; i++) {
		free(r->aggregates[i].skill);
		free(r->aggregates[i].model);
	}
	free(r->aggregates);
	for (size_t i = 0; i < r->ncomparisons; i++) {
		struct sc_results_comparison *c = &r->comparisons[i];
		free(c->skill); free(c->model);
	}
	free(r->comparisons);
	for (size_t i = 0; i < r->gate.nfailures; i++)
		sc_results_failure_release(&r->gate.failures[i]);
	free(r->gate.failures);
	for (size_t i = 0; i < r->gate.nchecks; i++)
		sc_results_check_release(&r->gate.checks[i]);
	free(r->gate.checks);
	for (size_t i = 0; i < r->nflips; i++) {
		struct sc_results_flips *f = &r->flips[i];
		free(f->skill); free(f->model); free(f->test_id);
	}
	free(r->flips);
	for (size_t i = 0; i < r->nlifts; i++) {
		struct sc_results_lift *l = &r->lifts[i];
		free(l->skill); free(l->model);
	}
	free(r->lifts);
	sc_strpool_free(r->pool);
	sc_results_init(r);
}

static int cmp_flips(const void *x, const void *y)
{
	const struct sc_results_flips *a = x, *b = y;
	int c;

	if ((c = strcmp(a->skill, b->skill)) || (c = (int)a->variant - (int)b->variant) ||
	    (c = strcmp(a->model, b->model)))
		return c;
	return strcmp(a->test_id, b->test_id);
}

void sc_results_sort_flips(struct sc_results *r)
{
	size_t i = 1;

	/* strictly in order already (as read, or sorted before): qsort would
	 * leave it as it is; with equal rows it is qsort's to order them */
	while (i < r->nflips && cmp_flips(&r->flips[i - 1], &r->flips[i]) < 0)
		i++;
	if (i < r->nflips)
		qsort(r->flips, r->nflips, sizeof(*r->flips), cmp_flips);
}

double sc_results_flip_rate(int64_t passes, int64_t runs)
{
	if (runs < 2 || passes < 0 || passes > runs)
		return NAN;
	return 2.0 * (double)passes * (double)(runs - passes) / ((double)runs * (double)(runs - 1));
}

/* *s (owned) replaced by its pooled copy. */
static void pool_str(struct sc_strpool *p, char **s)
{
	char *own = *s;

	*s = (char *)sc_strpool_intern(p, own);
	free(own);
}

void sc_results_pool_unit(struct sc_results *r, struct sc_results_unit *u)
{
	struct sc_results_hashes *h = &u->hashes;
	char **fields[] = {
		&u->skill, &u->model, &u->test_id, &u->test_name, &u->error_class, &u->message,
		&u->excerpt, &u->test_file,
		&h->skill, &h->test, &h->model, &h->prompt, &h->harness, &h->fixture,
	};

	if (u->pooled)
		return;
	if (!r->pool)
		r->pool = sc_strpool_new();
	for (size_t i = 0; i < SC_ARRAY_SIZE(fields); i++)
		pool_str(r->pool, fields[i]);
	if (u->kernel) {
		struct sc_results_kernel *k = u->kernel;
		char **kf[] = { &k->fixture, &k->fixture_hash, &k->compile_log,
				&k->strong_reference };
		for (size_t i = 0; i < SC_ARRAY_SIZE(kf); i++)
			pool_str(r->pool, kf[i]);
		for (size_t i = 0; i < k->nflags; i++)
			pool_str(r->pool, &k->flags[i]);
	}
	u->pooled = true;
}

void sc_results_adopt_pool(struct sc_results *into, struct sc_results *from)
{
	if (!from->pool)
		return;
	if (!into->pool) {
		into->pool = from->pool;
	} else {
		sc_strpool_adopt(into->pool, from->pool);
	}
	from->pool = NULL;
}

/* ---- lookups ----------------------------------------------------------- */

bool sc_results_tests_edited(const struct sc_results_skill *s)
{
	/* the first tests are the verdict's tests, not an edit beside it */
	return s->has_test_changes && !s->first_tests &&
	       (s->tests_added || s->tests_changed || s->tests_removed);
}

bool sc_results_unit_decides(const struct sc_results *r, const struct sc_results_unit *u)
{
	const struct sc_results_skill *s;

	if (r->run.kind == SC_RUN_KIND_EVAL)
		return u->variant == SC_VARIANT_BASELINE || u->variant == SC_VARIANT_HEAD;
	if (u->variant == SC_VARIANT_BASE || u->variant == SC_VARIANT_HEAD)
		return true;
	if (u->variant != SC_VARIANT_BASELINE)
		return false;
	s = sc_results_find_skill(r, u->skill);
	return s && s->status == SC_SKILL_ADDED;
}

int sc_results_cmp_str(const char *a, const char *b)
{
	if (a == b)  /* pooled strings: equal ones are one */
		return 0;
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

int sc_results_cmp_skill(const void *pa, const void *pb)
{
	const struct sc_results_sorted *a = pa, *b = pb;
	int c = sc_results_cmp_str(((const struct sc_results_skill *)a->item)->path,
			((const struct sc_results_skill *)b->item)->path);
	return c ? c : cmp_i64((int64_t)a->index, (int64_t)b->index);
}

int sc_results_cmp_unit(const void *pa, const void *pb)
{
	const struct sc_results_sorted *sa = pa, *sb = pb;
	const struct sc_results_unit *a = sa->item, *b = sb->item;
	int c;

	if ((c = sc_results_cmp_str(a->skill, b->skill)) || (c = sc_results_cmp_str(a->model, b->model)) ||
	    (c = (int)a->variant - (int)b->variant) || (c = sc_results_cmp_str(a->test_id, b->test_id)) ||
	    (c = cmp_i64(a->run_index, b->run_index)))
		return c;
	return cmp_i64((int64_t)sa->index, (int64_t)sb->index);
}

int sc_results_cmp_aggregate(const void *pa, const void *pb)
{
	const struct sc_results_sorted *sa = pa, *sb = pb;
	const struct sc_results_aggregate *a = sa->item, *b = sb->item;
	int c;

	if ((c = sc_results_cmp_str(a->skill, b->skill)) || (c = sc_results_cmp_str(a->model, b->model)) ||
	    (c = (int)a->variant - (int)b->variant))
		return c;
	return cmp_i64((int64_t)sa->index, (int64_t)sb->index);
}

int sc_results_cmp_comparison(const void *pa, const void *pb)
{
	const struct sc_results_sorted *sa = pa, *sb = pb;
	const struct sc_results_comparison *a = sa->item, *b = sb->item;
	int c;

	if ((c = sc_results_cmp_str(a->skill, b->skill)) || (c = sc_results_cmp_str(a->model, b->model)) ||
	    (c = (int)a->from - (int)b->from) || (c = (int)a->to - (int)b->to))
		return c;
	return cmp_i64((int64_t)sa->index, (int64_t)sb->index);
}

/* Checks by skill, then the whole skill's before a model's, model, check order. */
int sc_results_cmp_check(const void *pa, const void *pb)
{
	const struct sc_results_sorted *sa = pa, *sb = pb;
	const struct sc_results_check *a = sa->item, *b = sb->item;
	int c;

	if ((c = sc_results_cmp_str(a->skill, b->skill)) || (c = sc_results_cmp_str(a->model, b->model)) ||
	    (c = (int)a->check - (int)b->check))
		return c;
	return cmp_i64((int64_t)sa->index, (int64_t)sb->index);
}

struct sc_results_sorted *sc_results_sort_items(const void *base, size_t n, size_t elem,
				 int (*cmp)(const void *, const void *))
{
	struct sc_results_sorted *s = sc_xcalloc(n ? n : 1, sizeof(*s));
	size_t i;

	for (i = 0; i < n; i++) {
		s[i].item = (const char *)base + i * elem;
		s[i].index = i;
	}
	/* the entries are distinct (the index breaks ties): in order already
	 * (a file as skillci writes it, a model sorted before), qsort would
	 * leave them as they are */
	for (i = 1; i < n && cmp(&s[i - 1], &s[i]) < 0; i++)
		;
	if (i < n)
		qsort(s, n, sizeof(*s), cmp);
	return s;
}

/* ---- sorting and lookups --------------------------------------------- */

/* Reorders base[0..n) (elements of size elem) as the sorted entries say. */
static void permute(void *base, size_t n, size_t elem, const struct sc_results_sorted *s)
{
	char *tmp;

	if (n == 0)
		return;
	tmp = sc_xmalloc(n * elem);
	for (size_t i = 0; i < n; i++)
		memcpy(tmp + i * elem, s[i].item, elem);
	memcpy(base, tmp, n * elem);
	free(tmp);
}

/* Sorts base[0..n) by cmp (entries of sc_results_sort_items), in place;
 * nothing moves when it is in order already. */
static void sort_array(void *base, size_t n, size_t elem, int (*cmp)(const void *, const void *))
{
	struct sc_results_sorted *s = sc_results_sort_items(base, n, elem, cmp);
	size_t i = 0;

	while (i < n && s[i].index == i)
		i++;
	if (i < n)
		permute(base, n, elem, s);
	free(s);
}

void sc_results_sort(struct sc_results *r)
{

	sort_array(r->skills, r->nskills, sizeof(*r->skills), sc_results_cmp_skill);
	sort_array(r->units, r->nunits, sizeof(*r->units), sc_results_cmp_unit);
	sort_array(r->aggregates, r->naggregates, sizeof(*r->aggregates), sc_results_cmp_aggregate);
	sort_array(r->comparisons, r->ncomparisons, sizeof(*r->comparisons),
		   sc_results_cmp_comparison);
	sort_array(r->gate.checks, r->gate.nchecks, sizeof(*r->gate.checks), sc_results_cmp_check);
	sc_results_sort_flips(r);
	sc_results_order_build(r);
	r->sorted = true;
}

const struct sc_results_skill *sc_results_find_skill(const struct sc_results *r, const char *path)
{
	size_t lo = 0, hi = r->nskills;

	if (!r->sorted) {
		for (size_t i = 0; i < r->nskills; i++)
			if (sc_streq(r->skills[i].path, path))
				return &r->skills[i];
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (sc_results_cmp_str(r->skills[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nskills && sc_streq(r->skills[lo].path, path) ? &r->skills[lo] : NULL;
}

const struct sc_results_check *sc_results_find_check(const struct sc_results *r, const char *skill,
		const char *model, enum sc_check_kind check)
{
	size_t first, n = sc_results_checks_range(r, skill, model, &first);

	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_check *c = &r->gate.checks[i];
		if (sc_streq(c->skill, skill) && !sc_results_cmp_str(c->model, model) &&
		    c->check == check)
			return c;
	}
	return NULL;
}

/* Order of an aggregate against the key (skill, model, variant). */
static int agg_key(const struct sc_results_aggregate *a, const char *skill, const char *model,
		   enum sc_variant variant)
{
	int c;

	if ((c = sc_results_cmp_str(a->skill, skill)) || (c = sc_results_cmp_str(a->model, model)))
		return c;
	return (int)a->variant - (int)variant;
}

const struct sc_results_aggregate *sc_results_find_aggregate(const struct sc_results *r,
		const char *skill, enum sc_variant variant, const char *model)
{
	size_t lo = 0, hi = r->naggregates;

	if (!r->sorted) {
		for (size_t i = 0; i < r->naggregates; i++) {
			const struct sc_results_aggregate *a = &r->aggregates[i];
			if (sc_streq(a->skill, skill) && a->variant == variant &&
			    sc_streq(a->model, model))
				return a;
		}
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (agg_key(&r->aggregates[mid], skill, model, variant) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->naggregates && !agg_key(&r->aggregates[lo], skill, model, variant)
	       ? &r->aggregates[lo] : NULL;
}

static int cmp_key(const struct sc_results_comparison *c, const char *skill, const char *model,
		   enum sc_variant from, enum sc_variant to)
{
	int d;

	if ((d = sc_results_cmp_str(c->skill, skill)) || (d = sc_results_cmp_str(c->model, model)) ||
	    (d = (int)c->from - (int)from))
		return d;
	return (int)c->to - (int)to;
}

const struct sc_results_comparison *sc_results_find_comparison(const struct sc_results *r,
		const char *skill, const char *model, enum sc_variant from, enum sc_variant to)
{
	size_t lo = 0, hi = r->ncomparisons;

	if (!r->sorted) {
		for (size_t i = 0; i < r->ncomparisons; i++) {
			const struct sc_results_comparison *c = &r->comparisons[i];
			if (sc_streq(c->skill, skill) && sc_streq(c->model, model) &&
			    c->from == from && c->to == to)
				return c;
		}
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_key(&r->comparisons[mid], skill, model, from, to) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->ncomparisons && !cmp_key(&r->comparisons[lo], skill, model, from, to)
	       ? &r->comparisons[lo] : NULL;
}

/* Order of a unit against a key prefix (NULL parts match anything). */
static int unit_key(const struct sc_results_unit *u, const char *skill, const char *model,
		    int variant)
{
	int c;

	if ((c = sc_results_cmp_str(u->skill, skill)) || !model ||
	    (c = sc_results_cmp_str(u->model, model)) || variant == SC_VARIANT_ANY)
		return c;
	return (int)u->variant - variant;
}

size_t sc_results_equal_range(size_t count, int (*cmp)(size_t i, const void *key),
			      const void *key, size_t *first)
{
	size_t lo = 0, hi = count, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp(mid, key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < count && !cmp(end, key); end++)
		;
	*first = lo;
	return end - lo;
}

struct unit_range_key {
	const struct sc_results *r;
	const char *skill, *model;
	int variant;
};

static int unit_at(size_t i, const void *key)
{
	const struct unit_range_key *k = key;

	return unit_key(&k->r->units[i], k->skill, k->model, k->variant);
}

size_t sc_results_units_range(const struct sc_results *r, const char *skill, const char *model,
			      int variant, size_t *first)
{
	struct unit_range_key k = { r, skill, model, variant };

	assert(r->sorted);
	return sc_results_equal_range(r->nunits, unit_at, &k, first);
}

struct skill_range_key {
	const struct sc_results *r;
	const char *skill;
};

static int aggregate_at(size_t i, const void *key)
{
	const struct skill_range_key *k = key;

	return sc_results_cmp_str(k->r->aggregates[i].skill, k->skill);
}

size_t sc_results_aggregates_range(const struct sc_results *r, const char *skill, size_t *first)
{
	struct skill_range_key k = { r, skill };

	assert(r->sorted);
	return sc_results_equal_range(r->naggregates, aggregate_at, &k, first);
}

