/* Folding a base results file into a head results file (report_combine.h). */
#include "common.h"
#include "report_combine.h"
#include "results.h"

#include <math.h>

static bool streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

static void set_str(char **field, const char *value)
{
	free(*field);
	*field = value ? sc_xstrdup(value) : NULL;
}

static bool head_has_baseline(const struct sc_results *head, const char *skill, const char *model)
{
	return sc_results_find_aggregate(head, skill, "baseline", model) != NULL;
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
	c->from = sc_xstrdup("base");
	c->to = sc_xstrdup("head");
	c->from_pass_rate = from->pass_rate;
	c->to_pass_rate = to->pass_rate;
	if (!isnan(from->pass_rate) && !isnan(to->pass_rate))
		c->pass_rate_delta = to->pass_rate - from->pass_rate;
	if (!isnan(from->mean_tokens) && !isnan(to->mean_tokens) && from->mean_tokens > 0)
		c->tokens_delta_pct = (to->mean_tokens - from->mean_tokens) / from->mean_tokens * 100.0;
	if (!isnan(from->speedup_geomean) && !isnan(to->speedup_geomean) && from->speedup_geomean > 0)
		c->speedup_ratio = to->speedup_geomean / from->speedup_geomean;
	if (!isnan(from->judge_mean) && !isnan(to->judge_mean))
		c->judge_delta = to->judge_mean - from->judge_mean;
}

int sc_report_combine(struct sc_results *head, struct sc_results *base)
{
	size_t alloc_units = head->nunits, alloc_aggs = head->naggregates;
	size_t alloc_skills = head->nskills, alloc_cmp = head->ncomparisons;
	size_t naggs_head = head->naggregates;

	/* Units: base's head → base; base's baseline when head has none. */
	for (size_t i = 0; i < base->nunits; i++) {
		struct sc_results_unit *u = &base->units[i];
		bool take = streq(u->variant, "head") ||
			    (streq(u->variant, "baseline") && !head_has_baseline(head, u->skill, u->model));
		if (!take)
			continue;
		if (streq(u->variant, "head"))
			set_str(&u->variant, "base");
		SC_GROW(head->units, alloc_units, head->nunits + 1);
		head->units[head->nunits++] = *u;
		sc_results_unit_init(u);
		u->skill = sc_xstrdup("");
		u->variant = sc_xstrdup("moved");
		u->model = sc_xstrdup("");
		u->test_id = sc_xstrdup("");
		u->verdict = sc_xstrdup("");
	}
	for (size_t i = 0; i < base->naggregates; i++) {
		struct sc_results_aggregate *a = &base->aggregates[i];
		bool take = streq(a->variant, "head") ||
			    (streq(a->variant, "baseline") && !head_has_baseline(head, a->skill, a->model));
		if (!take)
			continue;
		if (streq(a->variant, "head"))
			set_str(&a->variant, "base");
		SC_GROW(head->aggregates, alloc_aggs, head->naggregates + 1);
		head->aggregates[head->naggregates++] = *a;
		sc_results_aggregate_init(a);
	}
	/* Base → head comparisons, unpaired, where the head file has none. */
	for (size_t i = 0; i < naggs_head; i++) {
		const struct sc_results_aggregate *to = &head->aggregates[i], *from;
		if (!streq(to->variant, "head"))
			continue;
		from = sc_results_find_aggregate(head, to->skill, "base", to->model);
		if (from && !sc_results_find_comparison(head, to->skill, to->model, "base", "head"))
			add_comparison(head, from, to, &alloc_cmp);
	}
	/* Skills: deleted when only in base, added when only in head. */
	for (size_t i = 0; i < head->nskills; i++) {
		struct sc_results_skill *s = &head->skills[i];
		const struct sc_results_skill *b = sc_results_find_skill(base, s->path);
		if (!b)
			set_str(&s->status, "added");
		else if (!s->status || streq(s->status, "unchanged"))
			set_str(&s->status, "modified");
	}
	for (size_t i = 0; i < base->nskills; i++) {
		struct sc_results_skill *b = &base->skills[i];
		if (sc_results_find_skill(head, b->path))
			continue;
		set_str(&b->status, "deleted");
		SC_GROW(head->skills, alloc_skills, head->nskills + 1);
		head->skills[head->nskills++] = *b;
		memset(b, 0, sizeof(*b));
	}
	set_str(&head->run.kind, "run");
	if (!head->run.base_rev && base->run.head_rev)
		set_str(&head->run.base_rev, base->run.head_rev);
	return 0;
}
