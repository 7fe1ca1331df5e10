/*
 * The Markdown report (report_md.h). Built in three parts: the summary
 * (verdict, banners, one table row per changed skill and model with the
 * gate's verdict and reason), the details (one <details> block per row
 * with units, one per skill with findings) and the footer. Only the
 * details are shortened to meet a size bound.
 */
#include "common.h"
#include "reporters/report_md.h"
#include "reporters/report_fmt.h"
#include "results/compare.h"
#include "results/results.h"

#include <math.h>

/* One summary row: a skill and a model (NULL: the skill has no model
 * results, e.g. deleted, untested or unreadable). */
struct row {
	const struct sc_results_skill *skill;
	const char *model;
	bool first;   /* the skill's first row */
	bool brief;   /* the compact gate cell (the summary over the size bound) */
};

struct rows {
	struct row *v;
	size_t n, alloc;
	const struct sc_results_skill **skills;   /* every listed skill, by path */
	size_t nskills;
};

static bool is_eval(const struct sc_results *r)
{
	return r->run.kind && !strcmp(r->run.kind, "eval");
}

static bool is_shard(const struct sc_results *r)
{
	return r->run.shard_count > 1;
}

static int cmp_skill_ptr(const void *pa, const void *pb)
{
	const struct sc_results_skill *a = *(const struct sc_results_skill *const *)pa;
	const struct sc_results_skill *b = *(const struct sc_results_skill *const *)pb;
	return strcmp(a->path ? a->path : "", b->path ? b->path : "");
}

/* The models that have aggregates (or units) for a skill, sorted and
 * unique. Returns a malloc'd array of borrowed strings. */
static const char **skill_models(const struct sc_results *r, const char *skill, size_t *n)
{
	const char **v = NULL;
	size_t alloc = 0, k = 0, out = 0, first = 0, count;

	/* Sorted results: only the skill's own ranges; else a full scan. */
	count = r->sorted ? sc_results_aggregates_range(r, skill, &first) : r->naggregates;
	for (size_t i = first; i < first + count; i++)
		if (sc_streq(r->aggregates[i].skill, skill)) {
			SC_GROW(v, alloc, k + 1);
			v[k++] = r->aggregates[i].model;
		}
	first = 0;
	count = r->sorted ? sc_results_units_range(r, skill, NULL, NULL, &first) : r->nunits;
	for (size_t i = first; i < first + count; i++)
		if (sc_streq(r->units[i].skill, skill) && (k == 0 || strcmp(v[k - 1], r->units[i].model))) {
			SC_GROW(v, alloc, k + 1);
			v[k++] = r->units[i].model;
		}
	if (k == 0) {
		*n = 0;
		return v;
	}
	qsort(v, k, sizeof(*v), sc_strcmp_qsort);
	for (size_t i = 0; i < k; i++)
		if (out == 0 || strcmp(v[out - 1], v[i]))
			v[out++] = v[i];
	*n = out;
	return v;
}

/* Collects the rows of the report: every changed skill (every skill of an
 * eval) × model, and one row for a skill with no model results. */
static void collect_rows(struct rows *rows, const struct sc_results *r)
{
	const struct sc_results_skill **skills = sc_xcalloc(r->nskills + 1, sizeof(*skills));

	memset(rows, 0, sizeof(*rows));
	for (size_t i = 0; i < r->nskills; i++)
		skills[i] = &r->skills[i];
	qsort(skills, r->nskills, sizeof(*skills), cmp_skill_ptr);
	for (size_t i = 0; i < r->nskills; i++) {
		const struct sc_results_skill *s = skills[i];
		const char **models;
		size_t nmodels;

		if (!is_eval(r) && sc_streq(s->status, "unchanged"))
			continue;
		skills[rows->nskills++] = s;
		models = skill_models(r, s->path, &nmodels);
		for (size_t m = 0; m < nmodels || m == 0; m++) {
			SC_GROW(rows->v, rows->alloc, rows->n + 1);
			rows->v[rows->n].skill = s;
			rows->v[rows->n].model = m < nmodels ? models[m] : NULL;
			rows->v[rows->n++].first = m == 0;
		}
		free(models);
	}
	rows->skills = skills;
}

static void rows_release(struct rows *rows)
{
	free(rows->v);
	free(rows->skills);
}

/* Did skill s fail the gate (its own verdict or a failure naming it)? */
static bool skill_failed(const struct sc_results *r, const struct sc_results_skill *s)
{
	if (!s->gate_passed)
		return true;
	for (size_t f = 0; f < r->gate.nfailures; f++)
		if (sc_streq(r->gate.failures[f].skill, s->path))
			return true;
	return false;
}

/* Counts of the changed skills by what happened to them. */
struct kinds {
	size_t changed, failed, evaluated, untested, deleted;
};

static struct kinds count_kinds(const struct sc_results *r, struct sc_buf *names, size_t max_names)
{
	struct kinds k = { 0, 0, 0, 0, 0 };

	for (size_t i = 0; i < r->nskills; i++) {
		const struct sc_results_skill *s = &r->skills[i];
		if (!is_eval(r) && sc_streq(s->status, "unchanged"))
			continue;
		k.changed++;
		if (sc_streq(s->status, "deleted"))
			k.deleted++;
		else if (s->untested)
			k.untested++;
		else
			k.evaluated++;
		if (!skill_failed(r, s))
			continue;
		if (names && k.failed < max_names) {
			if (k.failed)
				sc_buf_puts(names, ", ");
			sc_buf_puts(names, s->path);
		}
		k.failed++;
	}
	if (names && k.failed > max_names)
		sc_buf_printf(names, " and %zu more", k.failed - max_names);
	return k;
}

/* Counts skill × model pairs where the skill helped (eval). */
static void count_beneficial(const struct sc_results *r, size_t *helped, size_t *pairs)
{
	*helped = *pairs = 0;
	for (size_t i = 0; i < r->ncomparisons; i++) {
		const struct sc_results_comparison *c = &r->comparisons[i];
		if (!sc_streq(c->from, "baseline") || !sc_streq(c->to, "head"))
			continue;
		(*pairs)++;
		if (c->is_beneficial == 1)
			(*helped)++;
	}
}

void sc_report_verdict_text(struct sc_buf *out, const struct sc_results *r)
{
	struct sc_buf names = SC_BUF_INIT;
	struct kinds k = count_kinds(r, &names, 3);
	size_t nmodels = r->run.nmodels;

	if (!r->gate.passed && r->gate.exit_code == 3) {
		sc_buf_printf(out, "gate failed: too many infrastructure errors (%.0f%% of units); "
			      "results are not conclusive", r->gate.error_share * 100.0);
	} else if (is_eval(r)) {
		size_t helped, pairs;
		count_beneficial(r, &helped, &pairs);
		if (pairs)
			sc_buf_printf(out, "%s: the skill helped in %zu of %zu skill × model pairs",
				      r->gate.passed ? "eval passed" : "eval failed", helped, pairs);
		else
			sc_buf_printf(out, "%s: %zu skill%s evaluated with %zu model%s",
				      r->gate.passed ? "eval passed" : "eval failed", k.changed,
				      k.changed == 1 ? "" : "s", nmodels, nmodels == 1 ? "" : "s");
	} else if (is_shard(r) && r->gate.passed) {
		sc_buf_printf(out, "shard %lld/%lld of a sharded run: skillci merge decides the gate "
			      "(%zu changed skill%s)", (long long)r->run.shard_index,
			      (long long)r->run.shard_count, k.changed, k.changed == 1 ? "" : "s");
	} else if (!r->gate.passed) {
		sc_buf_printf(out, "gate failed: %zu of %zu changed skill%s failed", k.failed, k.changed,
			      k.changed == 1 ? "" : "s");
		if (names.len)
			sc_buf_printf(out, " (%s)", names.ptr);
		else
			sc_buf_puts(out, " (the run as a whole)");
	} else if (k.changed == 0) {
		sc_buf_puts(out, "gate passed: no skill changed");
	} else {
		sc_buf_printf(out, "gate passed: %zu changed skill%s", k.changed, k.changed == 1 ? "" : "s");
		if (k.evaluated)
			sc_buf_printf(out, ", %zu evaluated with %zu model%s × %lld run%s", k.evaluated,
				      nmodels, nmodels == 1 ? "" : "s", (long long)r->run.runs,
				      r->run.runs == 1 ? "" : "s");
		if (k.untested)
			sc_buf_printf(out, ", %zu untested", k.untested);
		if (k.deleted)
			sc_buf_printf(out, ", %zu deleted", k.deleted);
	}
	if (!is_eval(r) && sc_report_no_kernel_run(r))
		sc_buf_puts(out, "; no kernel was run (compile-only runner)");
	sc_buf_release(&names);
}

/* ---- summary ----------------------------------------------------------- */

static const char *check_name(const char *check)
{
	static const struct { const char *check, *name; } names[] = {
		{ "validity", "validity" }, { "pass_rate", "pass rate" }, { "lift", "lift" },
		{ "tokens", "tokens" }, { "speedup", "speedup" }, { "judge", "judge" },
		{ "errors", "errors" },
	};
	for (size_t i = 0; i < SC_ARRAY_SIZE(names); i++)
		if (sc_streq(names[i].check, check))
			return names[i].name;
	return check ? check : "gate";
}

/* Error findings of a skill by state. */
static void count_findings(const struct sc_results_skill *s, size_t *fresh, size_t *existing,
			   size_t *fixed)
{
	*fresh = *existing = *fixed = 0;
	for (size_t i = 0; i < s->nfindings; i++) {
		const struct sc_results_finding *f = &s->findings[i];
		if (!sc_streq(f->severity, "error"))
			continue;
		*fresh += sc_streq(f->state, "new");
		*existing += sc_streq(f->state, "existing");
		*fixed += sc_streq(f->state, "fixed");
	}
}

/* The gate cell: the verdict for the row and why. */
/* A gate message as the compact table gives it: a pass-rate message's
 * interval ("90% interval [a, b]"), which with the rule and the row's
 * pass rates says what was decided; any other message trimmed short. The
 * whole message is in the full report. */
static void brief_message(struct sc_buf *out, const char *message)
{
	const char *m = message ? message : "";
	const char *at = strstr(m, "% interval [");
	const char *end = at ? strchr(at, ']') : NULL;
	struct sc_buf t = SC_BUF_INIT;

	if (at && end) {
		while (at > m && at[-1] >= '0' && at[-1] <= '9')
			at--;
		sc_buf_put(&t, at, (size_t)(end + 1 - at));
	} else {
		sc_report_trim(&t, m, SC_REPORT_MD_BRIEF_MAX);
	}
	sc_report_md_text(out, t.ptr ? t.ptr : "");
	sc_buf_release(&t);
}

static void cell_gate(struct sc_buf *out, const struct sc_results *r, const struct row *row)
{
	const struct sc_results_skill *s = row->skill;
	struct sc_buf msg = SC_BUF_INIT;
	size_t nfailed = 0, fresh, existing, fixed;

	for (size_t i = 0; i < r->gate.nfailures; i++) {
		const struct sc_results_gate_failure *f = &r->gate.failures[i];
		bool whole = !f->model || !*f->model;
		if (!sc_streq(f->skill, s->path) || (!whole && !sc_streq(f->model, row->model)))
			continue;
		sc_buf_puts(out, nfailed++ ? "; " : "❌ ");
		sc_buf_puts(out, "**");
		sc_report_md_text(out, check_name(f->check ? f->check : sc_results_rule_check(f->rule)));
		sc_buf_puts(out, "** (");
		sc_report_md_text(out, f->rule);
		sc_buf_puts(out, "): ");
		if (row->brief) {
			brief_message(out, f->message);
			continue;
		}
		sc_buf_clear(&msg);
		sc_report_trim(&msg, f->message ? f->message : "", SC_REPORT_MD_MESSAGE_MAX);
		sc_report_md_text(out, msg.ptr);
	}
	if (!nfailed && !s->gate_passed) {
		/* results written before failures named their check */
		sc_buf_puts(out, "❌");
		for (size_t i = 0; i < s->ngate_reasons; i++) {
			sc_buf_puts(out, i ? "; " : " ");
			sc_report_md_text(out, s->gate_reasons[i]);
		}
		nfailed++;
	}
	if (!nfailed && sc_streq(s->status, "deleted") && !is_eval(r)) {
		bool allowed = false, recorded = false;
		for (size_t i = 0; i < r->gate.nchecks; i++)
			if (sc_streq(r->gate.checks[i].skill, s->path) &&
			    sc_streq(r->gate.checks[i].check, "deleted")) {
				recorded = true;
				allowed |= sc_streq(r->gate.checks[i].status, "passed");
			}
		sc_buf_puts(out, is_shard(r) ? "— decided by skillci merge"
				 : allowed ? "✅ passed — deleted at head, allowed"
				 : recorded ? "— deleted at head"
				 : "— deleted at head (these results record no deletion check)");
	} else if (!nfailed) {
		if (is_shard(r))
			sc_buf_puts(out, "— decided by skillci merge");
		else if (is_eval(r))
			sc_buf_puts(out, "—");
		else {
			/* an inconclusive pass-rate check is not a pass */
			const struct sc_results_check *open = row->model
				? sc_results_find_check(r, s->path, row->model, "pass_rate") : NULL;
			if (open && sc_streq(open->status, "skipped") && open->message &&
			    !strncmp(open->message, "inconclusive", 12)) {
				sc_buf_puts(out, "⚠️ inconclusive — ");
				if (row->brief) {
					brief_message(out, open->message);
				} else {
					sc_buf_clear(&msg);
					sc_report_trim(&msg, open->message + 14, SC_REPORT_MD_MESSAGE_MAX);
					sc_report_md_text(out, msg.ptr);
				}
			} else
				sc_buf_puts(out, "✅ passed");
		}
		if (s->untested)
			sc_buf_puts(out, " — untested: no tests found at head, not counted as failed");
		else if (!row->model && !is_eval(r))
			sc_buf_puts(out, " — nothing evaluated");
	}
	count_findings(s, &fresh, &existing, &fixed);
	if (existing && (nfailed || row->first))
		sc_buf_printf(out, " · %zu pre-existing error%s (also at base)", existing,
			      existing == 1 ? "" : "s");
	if (fixed && row->first)
		sc_buf_printf(out, " · %zu error%s fixed", fixed, fixed == 1 ? "" : "s");
	sc_buf_release(&msg);
}

static void cell_speedup(struct sc_buf *out, const struct sc_results_aggregate *from,
			 const struct sc_results_aggregate *to, const struct sc_results_comparison *c)
{
	double a = from ? from->speedup_geomean : NAN, b = to ? to->speedup_geomean : NAN;
	double ratio = c ? c->speedup_ratio : sc_compare_ratio(a, b);

	if (isnan(a) && isnan(b)) {
		sc_buf_puts(out, "—");
		return;
	}
	if (from) {
		sc_report_speedup(out, a);
		sc_buf_puts(out, " → ");
	}
	sc_report_speedup(out, b);
	if (!isnan(ratio)) {
		sc_buf_puts(out, " (");
		sc_report_signed_pct(out, (ratio - 1.0) * 100.0);
		sc_buf_puts(out, ")");
	}
}

/* The skill cell: its path (old → new for a rename). */
static void cell_skill(struct sc_buf *out, const struct sc_results_skill *s, bool eval)
{
	if (!eval && sc_streq(s->status, "renamed") && s->old_path) {
		sc_report_md_code(out, s->old_path);
		sc_buf_puts(out, " → ");
	}
	sc_report_md_code(out, s->path);
}

/* The change cell: what the pull request did to the skill. */
static void cell_change(struct sc_buf *out, const struct sc_results_skill *s)
{
	size_t fresh, existing, fixed;

	if (sc_streq(s->status, "added"))
		sc_buf_puts(out, "🆕 added");
	else if (sc_streq(s->status, "deleted"))
		sc_buf_puts(out, "🗑️ deleted");
	else if (sc_streq(s->status, "renamed"))
		sc_buf_puts(out, "🚚 renamed");
	else if (s->status)
		sc_report_md_text(out, s->status);
	else
		sc_buf_puts(out, "—");
	count_findings(s, &fresh, &existing, &fixed);
	if (fresh)
		sc_buf_puts(out, ", ⛔ invalid");
	if (s->untested && !sc_streq(s->status, "deleted"))
		sc_buf_puts(out, ", untested");
}

/* Pass-rate delta cell: the comparison's delta and its significance (not
 * in the compact table, brief: the gate cell says what was decided). A
 * skill compared across two files without a comparison gets one made the
 * same way (results/compare.h), unpaired. */
static void cell_delta(struct sc_buf *out, const struct sc_results_aggregate *from,
		       const struct sc_results_aggregate *to, const struct sc_results_comparison *c,
		       bool brief)
{
	struct sc_results_comparison tmp;

	if (!c && from && to) {
		sc_results_comparison_init(&tmp);
		sc_compare_fill(&tmp, from, to, NULL, NAN);
		c = &tmp;
	}
	if (!c || isnan(c->pass_rate_delta)) {
		sc_buf_puts(out, "—");
		return;
	}
	sc_report_points(out, c->pass_rate_delta);
	if (brief)
		return;
	sc_buf_puts(out, " (");
	sc_report_significance(out, c);
	sc_buf_puts(out, ")");
}

static void cell_tokens(struct sc_buf *out, const struct sc_results_aggregate *from,
			const struct sc_results_aggregate *to, const struct sc_results_comparison *c)
{
	double pct = c ? c->tokens_delta_pct
		     : from && to ? sc_compare_pct_change(from->mean_tokens, to->mean_tokens) : NAN;

	sc_report_signed_pct(out, pct);
}

static void row_diff(struct sc_buf *out, const struct sc_results *r, const struct row *row)
{
	const char *path = row->skill->path, *model = row->model;
	const struct sc_results_aggregate *base = model ? sc_results_find_aggregate(r, path, "base", model) : NULL;
	const struct sc_results_aggregate *head = model ? sc_results_find_aggregate(r, path, "head", model) : NULL;
	const struct sc_results_aggregate *none = model ? sc_results_find_aggregate(r, path, "baseline", model) : NULL;
	const struct sc_results_comparison *bh = model ? sc_results_find_comparison(r, path, model, "base", "head") : NULL;
	const struct sc_results_comparison *lh = model ? sc_results_find_comparison(r, path, model, "baseline", "head") : NULL;
	bool added = sc_streq(row->skill->status, "added"), deleted = sc_streq(row->skill->status, "deleted");

	sc_buf_puts(out, "| ");
	cell_skill(out, row->skill, false);
	sc_buf_puts(out, " | ");
	cell_change(out, row->skill);
	sc_buf_puts(out, " | ");
	if (model)
		sc_report_md_code(out, model);
	else
		sc_buf_puts(out, "—");
	sc_buf_puts(out, " | ");
	if (!model) {
		sc_buf_puts(out, "— | — | — | — | — | ");
		cell_gate(out, r, row);
		sc_buf_puts(out, " |\n");
		return;
	}
	sc_report_pct(out, base ? base->pass_rate : NAN);
	sc_buf_puts(out, " → ");
	sc_report_pct(out, head ? head->pass_rate : NAN);
	sc_buf_puts(out, " | ");
	if (added)
		sc_buf_puts(out, "new skill");
	else if (deleted)
		sc_buf_puts(out, "deleted");
	else
		cell_delta(out, base, head, bh, row->brief);
	sc_buf_puts(out, " | ");
	if (lh)
		sc_report_points(out, lh->pass_rate_delta);
	else if (none && head) {
		struct sc_results_comparison tmp;
		sc_results_comparison_init(&tmp);
		sc_compare_fill(&tmp, none, head, NULL, NAN);
		sc_report_points(out, tmp.pass_rate_delta);
	} else
		sc_buf_puts(out, "—");
	sc_buf_puts(out, " | ");
	if (added || deleted)
		sc_buf_puts(out, "—");
	else
		cell_tokens(out, base, head, bh);
	sc_buf_puts(out, " | ");
	if (deleted)
		cell_speedup(out, NULL, base, NULL);
	else
		cell_speedup(out, added ? NULL : base, head, added ? NULL : bh);
	sc_buf_puts(out, " | ");
	cell_gate(out, r, row);
	sc_buf_puts(out, " |\n");
}

static void row_eval(struct sc_buf *out, const struct sc_results *r, const struct row *row)
{
	const char *path = row->skill->path, *model = row->model;
	const struct sc_results_aggregate *none = model ? sc_results_find_aggregate(r, path, "baseline", model) : NULL;
	const struct sc_results_aggregate *head = model ? sc_results_find_aggregate(r, path, "head", model) : NULL;
	const struct sc_results_comparison *c = model ? sc_results_find_comparison(r, path, model, "baseline", "head") : NULL;

	sc_buf_puts(out, "| ");
	cell_skill(out, row->skill, true);
	sc_buf_puts(out, " | ");
	if (model)
		sc_report_md_code(out, model);
	else
		sc_buf_puts(out, "—");
	sc_buf_puts(out, " | ");
	sc_report_pct(out, none ? none->pass_rate : NAN);
	sc_buf_puts(out, " | ");
	sc_report_pct(out, head ? head->pass_rate : NAN);
	sc_buf_puts(out, " | ");
	cell_delta(out, none, head, c, row->brief);
	sc_buf_puts(out, " | ");
	cell_tokens(out, none, head, c);
	sc_buf_puts(out, " | ");
	cell_speedup(out, none, head, c);
	sc_buf_puts(out, " | ");
	if (!model)
		sc_buf_puts(out, row->skill->untested ? "untested: no tests found" : "—");
	else if (!c || c->is_beneficial < 0)
		sc_buf_puts(out, "—");
	else
		sc_buf_puts(out, c->is_beneficial ? "✅ helps" : "❌ no lift");
	sc_buf_puts(out, " |\n");
}

/* ---- trust: what the pull request tried ------------------------------- */

/* The banner of a run whose head changed the configuration or tried
 * something else that was refused (docs/security.md). */
static void render_trust(struct sc_buf *out, const struct sc_results *r)
{
	const struct sc_results_trust *t = &r->run.trust;

	if (t->nchanges) {
		sc_buf_puts(out, "> **🔒 This pull request changes the configuration; its changes were "
				 "not applied.** The check used ");
		sc_report_md_text(out, t->config ? t->config : "the base revision's configuration");
		sc_buf_puts(out, ". What the head would change:");
		for (size_t i = 0; i < t->nchanges; i++) {
			sc_buf_puts(out, i ? ", " : " ");
			sc_report_md_code(out, t->changes[i].key);
			sc_buf_putc(out, ' ');
			sc_report_md_code(out, t->changes[i].base ? t->changes[i].base : "");
			sc_buf_puts(out, " → ");
			sc_report_md_code(out, t->changes[i].head ? t->changes[i].head : "");
		}
		sc_buf_puts(out, ".\n\n");
	}
	if (t->nnotes) {
		sc_buf_puts(out, "> **🔒 Not taken from the pull request:**\n");
		for (size_t i = 0; i < t->nnotes; i++) {
			sc_buf_puts(out, "> - ");
			sc_report_md_text(out, t->notes[i]);
			sc_buf_puts(out, "\n");
		}
		sc_buf_puts(out, "\n");
	}
}

/* The pull request's own tests: which skills' tests it edits, and how the
 * head skill did on the tests it adds or changes (failing ones named). */
static void render_pr_tests(struct sc_buf *out, const struct sc_results *r)
{
	bool any = false;

	for (size_t i = 0; i < r->nskills; i++)
		any |= sc_results_tests_edited(&r->skills[i]);
	if (!any)
		return;
	sc_buf_puts(out, "> **✏️ This pull request edits tests.** The verdict uses the base revision's "
			 "tests; the tests the head adds or changes are run with the head skill and "
			 "shown here, and do not decide it.\n");
	for (size_t i = 0; i < r->nskills; i++) {
		const struct sc_results_skill *s = &r->skills[i];
		if (!sc_results_tests_edited(s))
			continue;
		sc_buf_puts(out, "> - ");
		sc_report_md_code(out, s->path);
		sc_buf_printf(out, ": %lld changed, %lld added, %lld removed",
			      (long long)s->tests_changed, (long long)s->tests_added,
			      (long long)s->tests_removed);
		for (size_t a = 0; a < r->naggregates; a++) {
			const struct sc_results_aggregate *g = &r->aggregates[a];
			size_t shown = 0;
			if (!sc_streq(g->skill, s->path) || !sc_streq(g->variant, SC_VARIANT_HEAD_TESTS))
				continue;
			sc_buf_puts(out, "; ");
			sc_report_md_code(out, g->model);
			sc_buf_printf(out, " passes %lld of %lld", (long long)g->passed, (long long)g->n);
			if (g->skipped)
				sc_buf_printf(out, " (%lld skipped)", (long long)g->skipped);
			for (size_t u = 0; u < r->nunits; u++) {
				const struct sc_results_unit *x = &r->units[u];
				if (!sc_streq(x->skill, s->path) || !sc_streq(x->model, g->model) ||
				    !sc_streq(x->variant, SC_VARIANT_HEAD_TESTS) ||
				    (!sc_streq(x->verdict, "fail") && !sc_streq(x->verdict, "error")))
					continue;
				if (shown++ == 5) {
					sc_buf_puts(out, ", …");
					break;
				}
				sc_buf_puts(out, shown == 1 ? ", failing: " : ", ");
				sc_report_md_code(out, x->test_name ? x->test_name : x->test_id);
			}
		}
		sc_buf_puts(out, "\n");
	}
	sc_buf_puts(out, "\n");
}

static void render_summary(struct sc_buf *out, const struct sc_results *r, const struct rows *rows)
{
	bool eval = is_eval(r);

	sc_buf_puts(out, eval ? "## skillci eval\n\n" : "## skillci report\n\n");
	sc_buf_puts(out, !r->gate.passed ? "❌ **" : is_shard(r) && !eval ? "⏳ **" : "✅ **");
	{
		struct sc_buf v = SC_BUF_INIT;
		sc_report_verdict_text(&v, r);
		sc_report_md_text(out, v.ptr);
		sc_buf_release(&v);
	}
	sc_buf_puts(out, ".**\n\n");
	if (!eval) {
		/* what was checked, before anything else */
		struct sc_buf v = SC_BUF_INIT;
		sc_report_checked_line(&v, r);
		sc_buf_puts(out, "**Checked:** ");
		sc_report_md_text(out, v.ptr);
		sc_buf_puts(out, ".\n\n");
		sc_buf_release(&v);
	}
	if (r->run.oracle)
		sc_buf_puts(out, "> **🔧 Oracle self-test.** The `oracle` provider answered every test with "
				 "its reference solution: these numbers check the harness, not a model or a skill.\n\n");
	if (!r->run.complete) {
		sc_buf_puts(out, "> **⚠️ Incomplete run");
		if (r->run.incomplete_reason) {
			sc_buf_puts(out, ":** ");
			sc_report_md_text(out, r->run.incomplete_reason);
			sc_buf_puts(out, ".");
		} else {
			sc_buf_puts(out, ".**");
		}
		sc_buf_puts(out, " The numbers cover only the units that finished.\n\n");
	}
	render_trust(out, r);
	render_pr_tests(out, r);
	if (rows->n) {
		if (eval)
			sc_buf_puts(out, "| skill | model | no skill | with skill | lift | tokens Δ | speedup | verdict |\n"
					 "|---|---|---|---|---|---|---|---|\n");
		else
			sc_buf_puts(out, "| skill | change | model | pass rate base → head | Δ | lift vs no skill | tokens Δ | speedup | gate |\n"
					 "|---|---|---|---|---|---|---|---|---|\n");
		for (size_t i = 0; i < rows->n; i++)
			(eval ? row_eval : row_diff)(out, r, &rows->v[i]);
		sc_buf_putc(out, '\n');
	}
	for (size_t i = 0; i < r->gate.nfailures; i++) {
		const struct sc_results_gate_failure *f = &r->gate.failures[i];
		if (f->skill && *f->skill && sc_results_find_skill(r, f->skill))
			continue;
		/* a failure of the run as a whole: no row holds it */
		sc_buf_puts(out, "❌ **");
		sc_report_md_text(out, check_name(f->check ? f->check : sc_results_rule_check(f->rule)));
		sc_buf_puts(out, "** (");
		sc_report_md_text(out, f->rule);
		sc_buf_puts(out, "): ");
		sc_report_md_text(out, f->message);
		sc_buf_puts(out, "\n\n");
	}
}

/* ---- details ----------------------------------------------------------- */

struct counts {
	size_t passed, failed, errors, skipped;
};

static const char *verdict_icon(const char *verdict)
{
	if (sc_streq(verdict, "pass"))
		return "✅";
	if (sc_streq(verdict, "fail"))
		return "❌";
	if (sc_streq(verdict, "error"))
		return "⚠️";
	return "⏭️";
}

static void count_summary(struct sc_buf *out, const struct counts *c)
{
	bool any = false;

#define PART(n, word) do { if (n) { sc_buf_printf(out, "%s%zu %s", any ? ", " : "", (size_t)(n), word); any = true; } } while (0)
	PART(c->passed, "passed");
	PART(c->failed, "failed");
	PART(c->errors, c->errors == 1 ? "error" : "errors");
	PART(c->skipped, "skipped");
#undef PART
	if (!any)
		sc_buf_puts(out, "no units");
}

/* Appends text indented by two spaces on every line (inside a list item). */
static void indent2(struct sc_buf *out, const char *text)
{
	bool bol = true;

	for (const char *p = text; *p; p++) {
		if (bol && *p != '\n')
			sc_buf_puts(out, "  ");
		sc_buf_putc(out, *p);
		bol = *p == '\n';
	}
}

static void unit_detail(struct sc_buf *out, const struct sc_results_unit *u)
{
	const struct sc_results_kernel *k = u->kernel;
	struct sc_buf tmp = SC_BUF_INIT, fence = SC_BUF_INIT;

	sc_buf_printf(out, "- %s ", verdict_icon(u->verdict));
	sc_report_md_code(out, u->test_name ? u->test_name : u->test_id);
	sc_buf_printf(out, " run %lld: ", (long long)u->run_index);
	sc_report_md_text(out, u->verdict);
	if (u->error_class) {
		sc_buf_puts(out, " (");
		sc_report_md_text(out, u->error_class);
		sc_buf_puts(out, ")");
	}
	if (u->message && *u->message) {
		sc_buf_puts(out, ": ");
		sc_report_trim(&tmp, u->message, SC_REPORT_MD_MESSAGE_MAX);
		sc_report_md_text(out, tmp.ptr);
		sc_buf_clear(&tmp);
	} else if (k && sc_streq(u->verdict, "skipped") && sc_streq(k->verdict, "compiled")) {
		sc_buf_puts(out, ": no GPU: compiled only");
	}
	sc_buf_putc(out, '\n');
	if (!k)
		goto done;
	if (!isnan(k->speedup)) {
		sc_buf_puts(out, "  - speedup ");
		sc_report_speedup(out, k->speedup);
		if (!isnan(k->candidate_ms) && !isnan(k->baseline_ms))
			sc_buf_printf(out, " (%.4g ms vs %.4g ms baseline)", k->candidate_ms, k->baseline_ms);
		if (!isnan(k->pct_of_peak))
			sc_buf_printf(out, ", %.0f%% of peak", k->pct_of_peak);
		if (k->suspect)
			sc_buf_puts(out, " — **suspect: above the roofline ceiling**");
		sc_buf_putc(out, '\n');
	}
	if (!isnan(k->max_abs_error) && !sc_streq(k->verdict, "passed")) {
		sc_buf_printf(out, "  - worst mismatch: |error| %.3g", k->max_abs_error);
		if (k->worst_index != SC_RESULTS_NULL_INT)
			sc_buf_printf(out, " at index %lld", (long long)k->worst_index);
		sc_buf_putc(out, '\n');
	}
	if (k->nflags) {
		sc_buf_puts(out, "  - flags: ");
		for (size_t i = 0; i < k->nflags; i++) {
			if (i)
				sc_buf_puts(out, ", ");
			sc_report_md_code(out, k->flags[i]);
		}
		sc_buf_putc(out, '\n');
	}
	if (k->compile_log && *k->compile_log && sc_streq(k->compile, "failed")) {
		sc_buf_puts(out, "\n  compile log:\n\n");
		sc_report_trim(&tmp, k->compile_log, SC_REPORT_MD_LOG_MAX);
		sc_report_md_fence(&fence, "text", tmp.ptr);
		indent2(out, fence.ptr);
		sc_buf_putc(out, '\n');
	}
done:
	sc_buf_release(&tmp);
	sc_buf_release(&fence);
}

/* The variant whose units a row's details show: head, or base for a
 * deleted skill. */
static const char *detail_variant(const struct sc_results *r, const struct row *row)
{
	if (!is_eval(r) && sc_streq(row->skill->status, "deleted"))
		return "base";
	return "head";
}

/* One row's details: a <details> block (full) and a one-line list item
 * (compact, used when the full block does not fit). Empty when the row
 * has no units. */
static void render_details(struct sc_buf *full, struct sc_buf *compact,
			   const struct sc_results *r, const struct row *row)
{
	const char *variant = detail_variant(r, row);
	struct counts c = { 0, 0, 0, 0 };
	struct sc_buf items = SC_BUF_INIT, head = SC_BUF_INIT;
	size_t n = 0, first = 0, count;

	if (!row->model)
		return;
	count = r->sorted ? sc_results_units_range(r, row->skill->path, row->model, variant, &first) : r->nunits;
	for (size_t i = first; i < first + count; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (!sc_streq(u->skill, row->skill->path) || !sc_streq(u->model, row->model) ||
		    !sc_streq(u->variant, variant))
			continue;
		n++;
		if (sc_streq(u->verdict, "pass"))
			c.passed++;
		else if (sc_streq(u->verdict, "fail"))
			c.failed++;
		else if (sc_streq(u->verdict, "error"))
			c.errors++;
		else
			c.skipped++;
		unit_detail(&items, u);
	}
	if (n == 0)
		goto done;
	sc_buf_puts(&head, c.failed ? "❌ " : c.errors ? "⚠️ " : c.passed ? "✅ " : "⏭️ ");
	sc_report_md_code(&head, row->skill->path);
	sc_buf_puts(&head, " · ");
	sc_report_md_code(&head, row->model);
	sc_buf_printf(&head, " (%s): ", sc_streq(variant, "base") ? "base" : is_eval(r) ? "with skill" : "head");
	count_summary(&head, &c);

	sc_buf_printf(full, "<details>\n<summary>%s</summary>\n\n%s\n</details>\n\n", head.ptr, items.ptr);
	sc_buf_printf(compact, "- %s\n", head.ptr);
done:
	sc_buf_release(&items);
	sc_buf_release(&head);
}

/* A skill's findings at base and head: one <details> block (full) and a
 * one-line item (compact). Empty when it has none. */
static void render_findings(struct sc_buf *full, struct sc_buf *compact,
			    const struct sc_results_skill *s)
{
	struct sc_buf items = SC_BUF_INIT, head = SC_BUF_INIT, tmp = SC_BUF_INIT;
	size_t fresh, existing, fixed, warnings = 0;

	if (!s->nfindings)
		return;
	count_findings(s, &fresh, &existing, &fixed);
	for (size_t i = 0; i < s->nfindings; i++) {
		const struct sc_results_finding *f = &s->findings[i];
		bool error = sc_streq(f->severity, "error");
		warnings += !error && !sc_streq(f->state, "fixed");
		sc_buf_printf(&items, "- %s ", sc_streq(f->state, "fixed") ? "✅ fixed"
				    : !error ? "⚠️ warning"
				    : sc_streq(f->state, "new") ? "❌ new error" : "⚠️ pre-existing error");
		sc_buf_clear(&tmp);
		sc_buf_puts(&tmp, f->file ? f->file : s->path);
		if (f->line > 0)
			sc_buf_printf(&tmp, ":%lld", (long long)f->line);
		sc_report_md_code(&items, tmp.ptr);
		sc_buf_puts(&items, ": ");
		sc_buf_clear(&tmp);
		sc_report_trim(&tmp, f->message ? f->message : "", SC_REPORT_MD_MESSAGE_MAX);
		sc_report_md_text(&items, tmp.ptr);
		if (f->code && *f->code) {
			sc_buf_puts(&items, " (");
			sc_report_md_code(&items, f->code);
			sc_buf_puts(&items, ")");
		}
		sc_buf_puts(&items, sc_streq(f->state, "new") ? " — head only"
				    : sc_streq(f->state, "existing") ? " — at base and head" : " — base only");
		sc_buf_putc(&items, '\n');
	}
	sc_buf_puts(&head, fresh ? "❌ " : existing || warnings ? "⚠️ " : "✅ ");
	sc_report_md_code(&head, s->path);
	sc_buf_printf(&head, " findings: %zu new error%s, %zu pre-existing, %zu fixed, %zu warning%s",
		      fresh, fresh == 1 ? "" : "s", existing, fixed, warnings, warnings == 1 ? "" : "s");
	sc_buf_printf(full, "<details>\n<summary>%s</summary>\n\n%s\n</details>\n\n", head.ptr, items.ptr);
	sc_buf_printf(compact, "- %s\n", head.ptr);
	sc_buf_release(&items);
	sc_buf_release(&head);
	sc_buf_release(&tmp);
}

/* ---- footer ------------------------------------------------------------ */

/* The run's actual token use and cost per skill and model (run.usage). */
static void render_usage(struct sc_buf *out, const struct sc_results *r)
{
	const struct sc_results_run *run = &r->run;

	if (!run->nusage)
		return;
	sc_buf_puts(out, "<details><summary>Tokens and cost of this run</summary>\n\n"
			 "| model | skill | input tokens | output tokens | cost |\n|---|---|---:|---:|---:|\n");
	for (size_t i = 0; i < run->nusage; i++) {
		const struct sc_results_usage *u = &run->usage[i];
		sc_buf_puts(out, "| ");
		sc_report_md_code(out, u->model);
		sc_buf_puts(out, " | ");
		sc_report_md_code(out, u->skill);
		sc_buf_printf(out, " | %lld | %lld | ", (long long)u->tokens_in, (long long)u->tokens_out);
		if (isnan(u->cost_usd)) {
			sc_buf_puts(out, "no price");
		} else {
			sc_buf_printf(out, "$%.4f", u->cost_usd);
			if (u->price_date) {
				sc_buf_puts(out, " (prices of ");
				sc_report_md_text(out, u->price_date);
				sc_buf_puts(out, ")");
			}
		}
		sc_buf_puts(out, " |\n");
	}
	sc_buf_puts(out, "\n</details>\n\n");
}

static void render_footer(struct sc_buf *out, const struct sc_results *r)
{
	const struct sc_results_run *run = &r->run;

	render_usage(out, r);
	sc_buf_puts(out, "---\n\n<sub>");
	sc_buf_puts(out, "fixtures.lock ");
	if (run->fixtures_lock) {
		struct sc_buf h = SC_BUF_INIT;
		sc_buf_put(&h, run->fixtures_lock, strlen(run->fixtures_lock) > 12 ? 12 : strlen(run->fixtures_lock));
		sc_report_md_code(out, h.ptr);
		sc_buf_release(&h);
	} else {
		sc_buf_puts(out, "—");
	}
	sc_buf_puts(out, " · GPU ");
	if (run->has_gpu && run->gpu.name) {
		sc_report_md_text(out, run->gpu.name);
		sc_buf_puts(out, " (driver ");
		sc_report_md_text(out, run->gpu.driver ? run->gpu.driver : "?");
		if (run->gpu.arch) {
			sc_buf_puts(out, ", ");
			sc_report_md_text(out, run->gpu.arch);
		}
		sc_buf_puts(out, ")");
	} else {
		sc_buf_puts(out, "none");
	}
	sc_buf_printf(out, " · mode %s · models ", sc_report_mode_label(run->mode));
	for (size_t i = 0; i < run->nmodels; i++) {
		if (i)
			sc_buf_puts(out, ", ");
		sc_report_md_code(out, run->models[i]);
		/* an alias or a short name shows what it resolved to */
		if (i < run->nresolved_models && run->resolved_models[i] &&
		    strcmp(run->resolved_models[i], run->models[i])) {
			sc_buf_puts(out, " → ");
			sc_report_md_code(out, run->resolved_models[i]);
		}
	}
	if (!run->nmodels)
		sc_buf_puts(out, "—");
	sc_buf_printf(out, " · %lld run%s per test", (long long)run->runs, run->runs == 1 ? "" : "s");
	sc_buf_printf(out, " · significance at alpha %g", sc_compare_alpha(run->alpha));
	if (run->shard_count > 1)
		sc_buf_printf(out, " · shard %lld/%lld", (long long)run->shard_index, (long long)run->shard_count);
	sc_buf_puts(out, " · skillci ");
	sc_report_md_text(out, r->skillci_version ? r->skillci_version : "?");
	if (run->id) {
		sc_buf_puts(out, " · run ");
		sc_report_md_code(out, run->id);
	}
	if (!run->complete)
		sc_buf_puts(out, " · ⚠️ **incomplete**");
	sc_buf_puts(out, "</sub>\n");
}

/* ---- assembly ---------------------------------------------------------- */

void sc_report_md(struct sc_buf *out, const struct sc_results *r, const struct sc_md_options *opt)
{
	struct rows rows;
	struct sc_buf summary = SC_BUF_INIT, footer = SC_BUF_INIT, details = SC_BUF_INIT;
	struct sc_buf full = SC_BUF_INIT, compact = SC_BUF_INIT, note = SC_BUF_INIT;
	size_t max = opt ? opt->max_bytes : 0, abbreviated = 0, omitted = 0, budget = 0;
	bool in_list = false, brief = false;

	collect_rows(&rows, r);
	render_summary(&summary, r, &rows);
	render_footer(&footer, r);
	if (max && summary.len + footer.len + SC_REPORT_MD_NOTE_RESERVE > max) {
		/* the table alone is over the bound: each gate cell gives the
		 * rule and the interval, the full report the whole message */
		for (size_t i = 0; i < rows.n; i++)
			rows.v[i].brief = true;
		sc_buf_clear(&summary);
		render_summary(&summary, r, &rows);
		brief = true;
	}
	if (max) {
		size_t fixed = summary.len + footer.len + SC_REPORT_MD_NOTE_RESERVE +
			       (opt->full_report ? 6 * strlen(opt->full_report) : 0);
		budget = fixed < max ? max - fixed : 0;
	}
	for (size_t i = 0; i < rows.n; i++) {
		sc_buf_clear(&full);
		sc_buf_clear(&compact);
		if (rows.v[i].first)
			render_findings(&full, &compact, rows.v[i].skill);
		render_details(&full, &compact, r, &rows.v[i]);
		if (!full.len)
			continue;
		if (!max || details.len + full.len + (in_list ? 1 : 0) <= budget) {
			if (in_list)
				sc_buf_putc(&details, '\n');
			in_list = false;
			sc_buf_put(&details, full.ptr, full.len);
		} else if (details.len + compact.len + 1 <= budget) {
			sc_buf_put(&details, compact.ptr, compact.len);
			in_list = true;
			abbreviated++;
		} else {
			omitted++;
		}
	}
	if (in_list)
		sc_buf_putc(&details, '\n');

	sc_buf_put(out, summary.ptr, summary.len);
	if (details.len || omitted) {
		sc_buf_puts(out, "### Details\n\n");
		sc_buf_put(out, details.ptr, details.len);
	}
	if (abbreviated || omitted || brief) {
		sc_buf_printf(&note, "> **Details shortened** to fit GitHub's %d-character limit: "
				     "%zu section%s abbreviated, %zu omitted",
			      SC_REPORT_MD_COMMENT_LIMIT, abbreviated, abbreviated == 1 ? "" : "s", omitted);
		if (brief)
			sc_buf_puts(&note, "; the table gives each check's rule and interval, "
					   "not its whole message nor the significance of the change");
		sc_buf_puts(&note, ". The full report: ");
		if (opt && opt->full_report)
			sc_report_md_code(&note, opt->full_report);
		else
			sc_buf_puts(&note, "the HTML page or the results JSON of this run");
		sc_buf_puts(&note, ".\n\n");
		sc_buf_put(out, note.ptr, note.len);
	}
	sc_buf_put(out, footer.ptr, footer.len);

	rows_release(&rows);
	sc_buf_release(&summary);
	sc_buf_release(&footer);
	sc_buf_release(&details);
	sc_buf_release(&full);
	sc_buf_release(&compact);
	sc_buf_release(&note);
}

void sc_report_md_full(struct sc_buf *out, const struct sc_results *r)
{
	sc_report_md(out, r, NULL);
}
