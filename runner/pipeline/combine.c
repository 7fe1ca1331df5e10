/* Folding a base results file into a head results file (report_combine.h). */
#include "common.h"
#include "pipeline/combine.h"
#include "results/compare.h"
#include "results/results.h"
#include "pipeline/gate.h"
#include "strlist.h"

#include <stdarg.h>

#include <math.h>

static void set_str(char **field, const char *value)
{
	free(*field);
	*field = value ? sc_xstrdup(value) : NULL;
}

static bool head_has_baseline(const struct sc_results *head, const char *skill, const char *model)
{
	return sc_results_find_aggregate(head, skill, SC_VARIANT_BASELINE, model) != NULL;
}

static void add_comparison(struct sc_results *head, const struct sc_results_aggregate *from,
			   const struct sc_results_aggregate *to, size_t *alloc)
{
	struct sc_results_comparison *c;

	SC_GROW(head->comparisons, *alloc, head->ncomparisons + 1);
	c = &head->comparisons[head->ncomparisons++];
	sc_results_comparison_init(c);
	c->skill = sc_xstrdup(to->skill);
	c->model = sc_xstrdup(to->model);
	c->from = SC_VARIANT_BASE;
	c->to = SC_VARIANT_HEAD;
	/* two separate files: no pairs, so no p-value (compare.h) */
	sc_compare_fill(c, from, to, NULL, head->run.alpha);
}

int sc_report_combine(struct sc_results *head, struct sc_results *base)
{
	size_t alloc_units = head->nunits, alloc_aggs = head->naggregates;
	size_t alloc_skills = head->nskills, alloc_cmp = head->ncomparisons;

	bool *take_unit = sc_xcalloc(base->nunits + 1, sizeof(bool));
	bool *take_agg = sc_xcalloc(base->naggregates + 1, sizeof(bool));

	/* Decide with head still sorted (binary-search lookups), then move. */
	for (size_t i = 0; i < base->nunits; i++) {
		const struct sc_results_unit *u = &base->units[i];
		take_unit[i] = u->variant == SC_VARIANT_HEAD ||
			       (u->variant == SC_VARIANT_BASELINE && !head_has_baseline(head, u->skill, u->model));
	}
	for (size_t i = 0; i < base->naggregates; i++) {
		const struct sc_results_aggregate *a = &base->aggregates[i];
		take_agg[i] = a->variant == SC_VARIANT_HEAD ||
			      (a->variant == SC_VARIANT_BASELINE && !head_has_baseline(head, a->skill, a->model));
	}
	head->sorted = false;
	base->sorted = false;
	/* Units: base's head → base; base's baseline when head has none. */
	for (size_t i = 0; i < base->nunits; i++) {
		struct sc_results_unit *u = &base->units[i];
		if (!take_unit[i])
			continue;
		if (u->variant == SC_VARIANT_HEAD)
			u->variant = SC_VARIANT_BASE;
		SC_GROW(head->units, alloc_units, head->nunits + 1);
		head->units[head->nunits++] = *u;
		sc_results_unit_init(u);
		u->skill = sc_xstrdup("");  /* moved: names no skill */
		u->model = sc_xstrdup("");
		u->test_id = sc_xstrdup("");
	}
	for (size_t i = 0; i < base->naggregates; i++) {
		struct sc_results_aggregate *a = &base->aggregates[i];
		if (!take_agg[i])
			continue;
		if (a->variant == SC_VARIANT_HEAD)
			a->variant = SC_VARIANT_BASE;
		SC_GROW(head->aggregates, alloc_aggs, head->naggregates + 1);
		head->aggregates[head->naggregates++] = *a;
		sc_results_aggregate_init(a);
	}
	free(take_unit);
	free(take_agg);
	/* the moved units keep pointing into base's string pool */
	sc_results_adopt_pool(head, base);
	sc_results_sort(head);
	/* Base → head comparisons, unpaired, where the head file has none:
	 * found while every array is sorted, added afterwards. */
	{
		const struct sc_results_aggregate **pairs = sc_xcalloc(2 * head->naggregates + 2, sizeof(*pairs));
		size_t npairs = 0;

		for (size_t i = 0; i < head->naggregates; i++) {
			const struct sc_results_aggregate *to = &head->aggregates[i], *from;
			if (to->variant != SC_VARIANT_HEAD)
				continue;
			from = sc_results_find_aggregate(head, to->skill, SC_VARIANT_BASE, to->model);
			if (from && !sc_results_find_comparison(head, to->skill, to->model, SC_VARIANT_BASE, SC_VARIANT_HEAD)) {
				pairs[2 * npairs] = from;
				pairs[2 * npairs++ + 1] = to;
			}
		}
		for (size_t i = 0; i < npairs; i++)
			add_comparison(head, pairs[2 * i], pairs[2 * i + 1], &alloc_cmp);
		free(pairs);
	}
	head->sorted = false;
	/* Skills: deleted when only in base, added when only in head. */
	for (size_t i = 0; i < head->nskills; i++) {
		struct sc_results_skill *s = &head->skills[i];
		const struct sc_results_skill *b = sc_results_find_skill(base, s->path);
		if (!b)
			s->status = SC_SKILL_ADDED;
		else if (s->status == SC_SKILL_NONE || s->status == SC_SKILL_UNCHANGED)
			s->status = SC_SKILL_MODIFIED;
	}
	for (size_t i = 0; i < base->nskills; i++) {
		struct sc_results_skill *b = &base->skills[i];
		if (sc_results_find_skill(head, b->path))
			continue;
		b->status = SC_SKILL_DELETED;
		SC_GROW(head->skills, alloc_skills, head->nskills + 1);
		head->skills[head->nskills++] = *b;
		memset(b, 0, sizeof(*b));
	}
	sc_results_sort(head);
	head->run.kind = SC_RUN_KIND_RUN;
	if (!head->run.base_rev && base->run.head_rev)
		set_str(&head->run.base_rev, base->run.head_rev);
	return 0;
}

/* True when r holds a unit of skill with variant. */
static bool has_units(const struct sc_results *r, const char *skill, enum sc_variant variant)
{
	size_t first, n = sc_results_units_of(r, skill, NULL, &first);

	for (size_t i = first; i < first + n; i++)
		if (sc_streq(r->units[i].skill, skill) && r->units[i].variant == variant)
			return true;
	return false;
}

static void add_note(struct sc_results *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_note(struct sc_results *r, const char *fmt, ...)
{
	struct sc_buf b = SC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	r->run.trust.notes = sc_xrealloc(r->run.trust.notes,
					 (r->run.trust.nnotes + 1) * sizeof(*r->run.trust.notes));
	r->run.trust.notes[r->run.trust.nnotes++] = sc_buf_detach(&b, NULL);
}

int sc_report_distrust_statuses(struct sc_results *r, const char *what)
{
	int changed = 0;
	bool base_units = false;

	for (size_t i = 0; i < r->nunits && !base_units; i++)
		base_units = r->units[i].variant == SC_VARIANT_BASE;
	if (r->run.kind == SC_RUN_KIND_EVAL) {
		/* an eval judges skills in place (no gate); one with a base is a run */
		if (!base_units)
			return 0;
		add_note(r, "%s says it is an eval but holds base units: judged as a run", what);
		r->run.kind = SC_RUN_KIND_RUN;
		changed++;
	}

	for (size_t i = 0; i < r->nskills; i++) {
		struct sc_results_skill *s = &r->skills[i];
		bool head = has_units(r, s->path, SC_VARIANT_HEAD);
		bool base = has_units(r, s->path, SC_VARIANT_BASE);
		enum sc_skill_status was = s->status;
		if ((head && (was == SC_SKILL_UNCHANGED || was == SC_SKILL_DELETED)) ||
		    (base && was == SC_SKILL_ADDED)) {
			add_note(r, "%s marks skill '%s' %s but holds its %s units: judged as modified",
				 what, s->path, sc_skill_status_name(was), head ? "head" : "base");
			s->status = SC_SKILL_MODIFIED;
			changed++;
		}
		if (s->untested && head) {
			add_note(r, "%s marks skill '%s' untested but holds its head units: judged "
				 "on them", what, s->path);
			s->untested = false;
			changed++;
		}
		if (s->first_tests && base) {
			/* first tests mean the base had none: base units say otherwise */
			add_note(r, "%s marks skill '%s' as adding its first tests but holds its base "
				 "units: judged against the base", what, s->path);
			s->first_tests = false;
			changed++;
		}
	}
	return changed;
}

void sc_report_unverified(struct sc_results *r, const char *what)
{
	struct sc_buf msg = SC_BUF_INIT;
	bool claimed = r->gate.passed;
	size_t judged = 0;

	sc_buf_printf(&msg, "the verdict is %s's claim (%s), unverified: it holds no units to "
		      "recompute the gate from", what, claimed ? "passed" : "failed");
	sc_gate_clear(r);
	add_note(r, "%s", msg.ptr);
	for (size_t i = 0; i < r->nskills; i++) {
		if (r->skills[i].status == SC_SKILL_DELETED)
			continue;
		sc_gate_add(r, r->skills[i].path, NULL, "verdict_unverified", msg.ptr);
		judged++;
	}
	if (!judged) {
		/* no skill to hang it on: a failure of the whole run */
		sc_gate_add_run_failure(r, "verdict_unverified", SC_CHECK_CLAIM, SC_STATUS_FAILED,
					msg.ptr);
		r->gate.passed = false;
		r->gate.exit_code = 1;
	}
	sc_buf_release(&msg);
}

int sc_report_claims_without_units(struct sc_results *r, const struct sc_strlist *claimed,
				   const char *what)
{
	int n = 0;

	for (size_t i = 0; i < claimed->n; i++) {
		const char *path = claimed->items[i];
		const struct sc_results_skill *s = sc_results_find_skill(r, path);
		bool any = false;
		struct sc_buf msg = SC_BUF_INIT;
		size_t first, count = sc_results_units_of(r, path, NULL, &first);
		for (size_t u = first; u < first + count && !any; u++)
			any = sc_streq(r->units[u].skill, path);
		if (!s || any || s->status == SC_SKILL_DELETED)
			continue;
		sc_buf_printf(&msg, "%s gives results for this skill but none of its units: they "
			      "cannot be recomputed, so its verdict is unverified", what);
		sc_gate_add(r, path, NULL, "verdict_unverified", msg.ptr);
		sc_buf_release(&msg);
		n++;
	}
	return n;
}
