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
#include "results/verdict.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>

/* One summary row: a row of the verdict model (results/verdict.h) and how
 * it is drawn. */
struct row {
	const struct sc_verdict_row *v;
	const struct sc_verdicts *all;   /* the model the row is of */
	const struct sc_results_skill *skill;
	const char *model;   /* NULL: the skill has no model results (deleted, untested, ...) */
	bool first;          /* the skill's first row */
	bool brief;          /* the compact gate cell (the summary over the size bound) */
};

struct rows {
	struct row *v;
	size_t n;
	struct sc_verdicts verdicts;
};

static bool is_eval(const struct sc_results *r)
{
	return r->run.kind == SC_RUN_KIND_EVAL;
}

/* A compile-only kernel unit's message ends with why the runner has no GPU
 * ("...; correctness and speed not checked: no GPU: compile-only
 * (libcuda.so.1: cannot open ...)"): where that reason starts, or NULL. */
static const char *no_gpu_reason(const char *message)
{
	static const char marker[] = "correctness and speed not checked: ";
	const char *at = message ? strstr(message, marker) : NULL;

	return at && at[sizeof(marker) - 1] ? at + sizeof(marker) - 1 : NULL;
}

/* The rows of the report: the verdict model's, every changed skill (every
 * skill of an eval) x model, one row for a skill with no model results. */
static void collect_rows(struct rows *rows, const struct sc_results *r)
{
	memset(rows, 0, sizeof(*rows));
	sc_verdict_build(&rows->verdicts, r);
	rows->v = sc_xcalloc(rows->verdicts.nrows + 1, sizeof(*rows->v));
	for (size_t i = 0; i < rows->verdicts.nrows; i++) {
		const struct sc_verdict_row *vr = &rows->verdicts.rows[i];
		struct row *row = &rows->v[rows->n++];
		row->v = vr;
		row->all = &rows->verdicts;
		row->skill = vr->skill;
		row->model = vr->model;
		row->first = vr->first;
	}
}

static void rows_release(struct rows *rows)
{
	free(rows->v);
	sc_verdict_release(&rows->verdicts);
}

void sc_report_verdict_text(struct sc_buf *out, const struct sc_results *r)
{
	struct sc_verdicts v;

	sc_verdict_build(&v, r);
	sc_buf_puts(out, v.headline);
	sc_verdict_release(&v);
}

/* ---- summary ----------------------------------------------------------- */

/* A check as the Markdown names it: "pass rate", else its results name. */
static const char *check_name(enum sc_check_kind check)
{
	return check == SC_CHECK_PASS_RATE ? "pass rate" : sc_check_kind_name(check);
}

/* Error findings of a skill by state. */
static void count_findings(const struct sc_results_skill *s, size_t *fresh, size_t *existing,
			   size_t *fixed)
{
	*fresh = *existing = *fixed = 0;
	for (size_t i = 0; i < s->nfindings; i++) {
		const struct sc_results_finding *f = &s->findings[i];
		if (f->severity != SC_SEV_ERROR)
			continue;
		*fresh += f->state == SC_FINDING_NEW;
		*existing += f->state == SC_FINDING_EXISTING;
		*fixed += f->state == SC_FINDING_FIXED;
	}
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
	/* the first line is over the naive baselines; under it, over the
	 * strong references, where there are any */
	a = from ? from->strong_speedup_geomean : NAN;
	b = to ? to->strong_speedup_geomean : NAN;
	if (isnan(a) && isnan(b))
		return;
	sc_buf_puts(out, "<br><sub>strong ");
	if (from) {
		sc_report_speedup(out, a);
		sc_buf_puts(out, " → ");
	}
	sc_report_speedup(out, b);
	sc_buf_puts(out, "</sub>");
}

static void cell_tokens(struct sc_buf *out, const struct sc_results_aggregate *from,
			const struct sc_results_aggregate *to, const struct sc_results_comparison *c)
{
	double pct = c ? c->tokens_delta_pct
		     : from && to ? sc_compare_pct_change(from->mean_tokens, to->mean_tokens) : NAN;

	sc_report_signed_pct(out, pct);
}

/* The pass-rate interval a row shows, read in this one place: the
 * interval of the difference head − base that the gate's pass-rate check
 * decided on (its margin: diff set, lo, hi and the smallest detectable
 * drop as fractions), else the 95% Wilson interval of each side (the
 * aggregates). False: nothing to show. */
struct md_interval {
	bool diff;
	double lo, hi, detectable;                   /* the difference, when diff */
	double base_lo, base_hi, head_lo, head_hi;   /* per side; NAN: none */
};

static bool md_pass_rate_interval(const struct sc_results *r, const struct row *row,
				  const struct sc_results_aggregate *base,
				  const struct sc_results_aggregate *head, struct md_interval *iv)
{
	const struct sc_results_check *c = row->model && base && head
		? sc_results_find_check(r, row->skill->path, row->model, SC_CHECK_PASS_RATE) : NULL;

	iv->diff = c && c->margin.present && !isnan(c->margin.lo) && !isnan(c->margin.hi);
	iv->lo = iv->diff ? c->margin.lo : NAN;
	iv->hi = iv->diff ? c->margin.hi : NAN;
	iv->detectable = iv->diff ? c->margin.detectable : NAN;
	iv->base_lo = base ? base->ci_low : NAN;
	iv->base_hi = base ? base->ci_high : NAN;
	iv->head_lo = head ? head->ci_low : NAN;
	iv->head_hi = head ? head->ci_high : NAN;
	return iv->diff || !isnan(iv->base_lo) || !isnan(iv->head_lo);
}

/* "68–100" for an interval of rates, "—" when absent. */
static void range_pct(struct sc_buf *out, double lo, double hi)
{
	if (isnan(lo) || isnan(hi))
		sc_buf_puts(out, "—");
	else
		sc_buf_printf(out, "%.0f–%.0f", lo * 100.0 + 0.0, hi * 100.0 + 0.0);
}

/* The words of a state: "fail", "unverified", "could not check", "pass". */
static const char *verdict_word(enum sc_verdict v)
{
	return sc_verdict_word(v, SC_RUN_KIND_RUN);
}

/* The gate cell: a short word and an icon first, the failed checks under
 * it; the whole messages are in the blocks below the table. */
static void cell_gate_short(struct sc_buf *out, const struct sc_results *r, const struct row *row)
{
	const struct sc_results_skill *s = row->skill;
	enum sc_verdict v = row->v->state;
	size_t named = 0;

	if (v != SC_VERDICT_PASS) {
		/* the word and icon of the row's verdict, the checks behind it under it */
		sc_buf_printf(out, "%s **%s**", sc_report_verdict_icon(v), verdict_word(v));
		for (size_t i = 0; i < row->v->nopen; i++) {
			const struct sc_results_check *c = row->v->open[i];
			const char *name = check_name(c->check);
			bool seen = false;
			for (size_t j = 0; j < i && !seen; j++)
				seen = !strcmp(check_name(row->v->open[j]->check), name);
			if (seen)
				continue;
			sc_buf_puts(out, named++ ? ", " : "<br><sub>");
			sc_report_md_text(out, name);
			if (c->accepted)
				sc_buf_puts(out, " (accepted)");
		}
		if (named)
			sc_buf_puts(out, "</sub>");
		return;
	}
	if (r->run.shard_count > 1) {
		sc_buf_puts(out, "⏳ by merge");
		return;
	}
	if (s->status == SC_SKILL_DELETED) {
		const struct sc_results_check *c = sc_results_find_check(r, s->path, "", SC_CHECK_DELETED);
		sc_buf_puts(out, c && c->status == SC_STATUS_PASSED ? "✅ pass" : "—");
		return;
	}
	sc_buf_puts(out, "✅ pass");
}

/* The skill cell: its path, then small, each on a line of its own, what
 * the pull request did and the model (left out when the run has one
 * model: the legend names it). */
static void cell_skill_model(struct sc_buf *out, const struct sc_results *r,
			     const struct sc_results_skill *s, const char *model)
{
	size_t fresh, existing, fixed, parts = 0;

	sc_report_md_code(out, s->path);
	count_findings(s, &fresh, &existing, &fixed);
#define PART(text) do { sc_buf_puts(out, parts++ ? " · " : "<br><sub>"); sc_buf_puts(out, text); } while (0)
	if (s->status == SC_SKILL_ADDED)
		PART("added");
	else if (s->status == SC_SKILL_DELETED)
		PART("deleted at head");
	else if (s->status == SC_SKILL_RENAMED && s->old_path) {
		PART("from ");
		sc_report_md_text(out, s->old_path);
	} else if (s->status != SC_SKILL_NONE && s->status != SC_SKILL_MODIFIED &&
		   s->status != SC_SKILL_UNCHANGED) {
		PART("");
		sc_report_md_text(out, sc_skill_status_name(s->status));
	}
	if (fresh)
		PART("invalid");
	if (s->untested && s->status != SC_SKILL_DELETED)
		PART("unverified: no tests");
#undef PART
	if (parts)
		sc_buf_puts(out, "</sub>");
	if (model && r->run.nmodels != 1) {
		sc_buf_puts(out, "<br><sub>");
		sc_report_md_text(out, model);
		sc_buf_puts(out, "</sub>");
	}
}

/* The pass-rate cell: base → head and the change, the interval under it. */
static void cell_pass_rate(struct sc_buf *out, const struct sc_results *r, const struct row *row,
			   const struct sc_results_aggregate *base, const struct sc_results_aggregate *head,
			   const struct sc_results_aggregate *none, const struct sc_results_comparison *bh)
{
	bool added = row->skill->status == SC_SKILL_ADDED, deleted = row->skill->status == SC_SKILL_DELETED;
	struct md_interval iv;

	sc_report_pct(out, added ? NAN : base ? base->pass_rate : NAN);
	sc_buf_puts(out, " → ");
	sc_report_pct(out, deleted ? NAN : head ? head->pass_rate : NAN);
	if (!added && !deleted && (bh || (base && head))) {
		struct sc_results_comparison tmp;
		if (!bh) {
			sc_results_comparison_init(&tmp);
			sc_compare_fill(&tmp, base, head, NULL, NAN);
			bh = &tmp;
		}
		if (!isnan(bh->pass_rate_delta)) {
			sc_buf_puts(out, " (");
			sc_report_points(out, bh->pass_rate_delta);
			sc_buf_puts(out, ")");
		}
	}
	if (row->brief)
		return;
	if (added && none && head) {
		sc_buf_puts(out, "<br><sub>no skill ");
		sc_report_pct(out, none->pass_rate);
		sc_buf_puts(out, "</sub>");
		return;
	}
	if (!md_pass_rate_interval(r, row, added ? NULL : base, deleted ? NULL : head, &iv))
		return;
	sc_buf_puts(out, "<br><sub>");
	if (iv.diff) {
		sc_buf_printf(out, "Δ [%+.0f, %+.0f]", iv.lo * 100.0 + 0.0, iv.hi * 100.0 + 0.0);
		if (!isnan(iv.detectable) && iv.detectable <= 1.0)
			sc_buf_printf(out, "; D %.0f", iv.detectable * 100.0 + 0.0);
	} else {
		range_pct(out, iv.base_lo, iv.base_hi);
		sc_buf_puts(out, " → ");
		range_pct(out, iv.head_lo, iv.head_hi);
	}
	sc_buf_puts(out, "</sub>");
}

/* Mean tokens per test at head (base for a deleted skill) and the change. */
static void cell_tokens_abs(struct sc_buf *out, const struct row *row,
			    const struct sc_results_aggregate *base, const struct sc_results_aggregate *head,
			    const struct sc_results_comparison *bh)
{
	bool added = row->skill->status == SC_SKILL_ADDED, deleted = row->skill->status == SC_SKILL_DELETED;
	const struct sc_results_aggregate *a = deleted ? base : head;

	if (!a || isnan(a->mean_tokens)) {
		sc_buf_puts(out, "—");
		return;
	}
	sc_buf_printf(out, "%.0f", a->mean_tokens);
	if (!added && !deleted) {
		struct sc_buf pct = SC_BUF_INIT;
		cell_tokens(&pct, base, head, bh);
		if (strcmp(pct.ptr, "—"))
			sc_buf_printf(out, " (%s)", pct.ptr);
		sc_buf_release(&pct);
	}
}

/* The run's cost of a skill on a model (run.usage). */
static void cell_cost(struct sc_buf *out, const struct sc_results *r, const struct row *row)
{
	size_t uf, nu = row->model ? sc_results_usage_of(r, row->skill->path, &uf) : 0;

	for (size_t k = uf; nu && k < uf + nu; k++) {
		const struct sc_results_usage *u = sc_results_usage_at(r, k);
		if (!sc_streq(u->skill, row->skill->path) || !sc_streq(u->model, row->model))
			continue;
		if (isnan(u->cost_usd))
			sc_buf_puts(out, "no price");
		else
			sc_buf_printf(out, "$%.4f", u->cost_usd);
		return;
	}
	sc_buf_puts(out, "—");
}

static void row_diff(struct sc_buf *out, const struct sc_results *r, const struct row *row)
{
	const char *path = row->skill->path, *model = row->model;
	const struct sc_results_aggregate *base = model ? sc_results_find_aggregate(r, path, SC_VARIANT_BASE, model) : NULL;
	const struct sc_results_aggregate *head = model ? sc_results_find_aggregate(r, path, SC_VARIANT_HEAD, model) : NULL;
	const struct sc_results_aggregate *none = model ? sc_results_find_aggregate(r, path, SC_VARIANT_BASELINE, model) : NULL;
	const struct sc_results_comparison *bh = model ? sc_results_find_comparison(r, path, model, SC_VARIANT_BASE, SC_VARIANT_HEAD) : NULL;
	bool added = row->skill->status == SC_SKILL_ADDED, deleted = row->skill->status == SC_SKILL_DELETED;

	sc_buf_puts(out, "| ");
	cell_gate_short(out, r, row);
	sc_buf_puts(out, " | ");
	cell_skill_model(out, r, row->skill, model);
	sc_buf_puts(out, " | ");
	if (!model) {
		sc_buf_puts(out, "— | — | — | — |\n");
		return;
	}
	cell_pass_rate(out, r, row, base, head, none, bh);
	sc_buf_puts(out, " | ");
	cell_tokens_abs(out, row, base, head, bh);
	sc_buf_puts(out, " | ");
	cell_cost(out, r, row);
	sc_buf_puts(out, " | ");
	if (deleted)
		cell_speedup(out, NULL, base, NULL);
	else
		cell_speedup(out, added ? NULL : base, head, added ? NULL : bh);
	sc_buf_puts(out, " |\n");
}

/* An eval's row: whether the skill helps first, then the skill, the pass
 * rate without and with the skill (the lift) with their intervals, the
 * tokens, cost and speedup, as narrow as a PR check's row. */
static void row_eval(struct sc_buf *out, const struct sc_results *r, const struct row *row)
{
	const char *path = row->skill->path, *model = row->model;
	const struct sc_results_aggregate *none = model ? sc_results_find_aggregate(r, path, SC_VARIANT_BASELINE, model) : NULL;
	const struct sc_results_aggregate *head = model ? sc_results_find_aggregate(r, path, SC_VARIANT_HEAD, model) : NULL;
	const struct sc_results_comparison *c = model ? sc_results_find_comparison(r, path, model, SC_VARIANT_BASELINE, SC_VARIANT_HEAD) : NULL;

	/* the row's decision (results/verdict.h): the lift, else upskill's rule */
	sc_buf_printf(out, "| %s %s", sc_report_verdict_icon(row->v->state),
		      sc_verdict_word(row->v->state, SC_RUN_KIND_EVAL));
	sc_buf_puts(out, " | ");
	cell_skill_model(out, r, row->skill, model);
	sc_buf_puts(out, " | ");
	if (!model) {
		sc_buf_puts(out, "— | — | — | — |\n");
		return;
	}
	cell_pass_rate(out, r, row, none, head, NULL, c);
	sc_buf_puts(out, " | ");
	cell_tokens_abs(out, row, none, head, c);
	sc_buf_puts(out, " | ");
	cell_cost(out, r, row);
	sc_buf_puts(out, " | ");
	cell_speedup(out, none, head, c);
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

	for (size_t i = 0; i < r->nskills; i++) {
		const struct sc_results_skill *s = &r->skills[i];
		any |= sc_results_tests_edited(s);
		if (!s->first_tests)
			continue;
		sc_buf_puts(out, "> **🧪 Tests added: they judge later PRs.** ");
		sc_report_md_code(out, s->path);
		sc_buf_printf(out, " had no tests at base; the verdict runs the head's %lld against no "
			      "skill, as for a new skill.\n\n", (long long)s->tests);
	}
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
		size_t af = 0, an = r->sorted ? sc_results_aggregates_range(r, s->path, &af)
					      : r->naggregates;
		for (size_t a = af; a < af + an; a++) {
			const struct sc_results_aggregate *g = &r->aggregates[a];
			size_t shown = 0, uf, un;
			if (!sc_streq(g->skill, s->path) || g->variant != SC_VARIANT_HEAD_TESTS)
				continue;
			sc_buf_puts(out, "; ");
			sc_report_md_code(out, g->model);
			sc_buf_printf(out, " passes %lld of %lld", (long long)g->passed, (long long)g->n);
			if (g->skipped)
				sc_buf_printf(out, " (%lld skipped)", (long long)g->skipped);
			un = sc_results_units_of(r, s->path, g->model, &uf);
			for (size_t u = uf; u < uf + un; u++) {
				const struct sc_results_unit *x = &r->units[u];
				if (!sc_streq(x->skill, s->path) || !sc_streq(x->model, g->model) ||
				    x->variant != SC_VARIANT_HEAD_TESTS ||
				    (x->verdict != SC_UNIT_FAIL && x->verdict != SC_UNIT_ERROR))
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

/* What the narrow table's cells hold, under it, with the model when the
 * run has one (the rows then leave it out). */
static void render_legend(struct sc_buf *out, const struct sc_results *r, const struct rows *rows)
{
	bool side = false, diff = false, eval = is_eval(r);

	for (size_t i = 0; i < rows->n; i++) {
		const struct row *row = &rows->v[i];
		struct md_interval iv;
		const char *path = row->skill->path;
		if (!row->model || row->brief)
			continue;
		if (md_pass_rate_interval(r, row, sc_results_find_aggregate(r, path, eval ? SC_VARIANT_BASELINE : SC_VARIANT_BASE, row->model),
					  sc_results_find_aggregate(r, path, SC_VARIANT_HEAD, row->model), &iv)) {
			diff |= iv.diff;
			side |= !iv.diff;
		}
	}
	sc_buf_puts(out, eval ? "<sub>Pass rate with no skill → with the skill (lift)" : "<sub>Pass rate base → head (change)");
	if (diff) {
		/* the check's interval at its alpha (docs/evaluation.md); D: the drop green rules out */
		double beta = r->run.trust.gate.present && r->run.trust.gate.beta > 0
			      ? r->run.trust.gate.beta : 0.2;
		sc_buf_printf(out, "; under it %sthe change's interval (Δ, in points) and D, the drop "
			      "green rules out (one that size is caught with probability %g)",
			      side ? "each side's 95% interval, or " : "", 1 - beta);
	} else if (side) {
		sc_buf_puts(out, "; under it each side's 95% interval");
	}
	sc_buf_puts(out, eval ? " · tokens: mean per test with the skill (change) · cost: this run's, at list prices"
			      : " · tokens: mean per test at head (change) · cost: this run's, at list prices");
	{
		bool speed = false, strong = false;
		for (size_t i = 0; i < r->naggregates; i++) {
			speed |= !isnan(r->aggregates[i].speedup_geomean);
			strong |= !isnan(r->aggregates[i].strong_speedup_geomean);
		}
		if (speed)
			sc_buf_puts(out, " · speedup: geomean of passing kernels over the fixtures' naive baselines");
		if (strong)
			sc_buf_puts(out, "; under it, over their strong references (docs/kernels.md)");
	}
	if (r->run.nmodels == 1) {
		sc_buf_puts(out, " · model ");
		sc_report_md_code(out, r->run.models[0]);
	}
	sc_buf_puts(out, eval ? "</sub>\n\n" : " · what failed and why: below the table</sub>\n\n");
}

bool sc_report_md_run_url(struct sc_buf *out)
{
	const char *server = getenv("GITHUB_SERVER_URL"), *repo = getenv("GITHUB_REPOSITORY");
	const char *id = getenv("GITHUB_RUN_ID"), *slash;

	if (!server || !repo || !id || !*id || !*repo)
		return false;
	if (strncmp(server, "https://", 8) && strncmp(server, "http://", 7))
		return false;
	for (const char *p = server; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr(":/.-_", *p))
			return false;
	slash = strchr(repo, '/');
	if (!slash || slash == repo || !slash[1] || strchr(slash + 1, '/'))
		return false;
	for (const char *p = repo; *p; p++)
		if (!isalnum((unsigned char)*p) && !strchr("/.-_", *p))
			return false;
	for (const char *p = id; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	sc_buf_printf(out, "%s", server);
	if (out->len && out->ptr[out->len - 1] == '/')
		sc_buf_truncate(out, out->len - 1);
	sc_buf_printf(out, "/%s/actions/runs/%s", repo, id);
	return true;
}

/* Links from the report to its evidence: the CI run, its artifacts (the
 * reports, report.html among them). */
static void render_links(struct sc_buf *out, const char *run_url)
{
	if (!run_url || !*run_url)
		return;
	sc_buf_printf(out, "**Evidence:** [workflow run](%s) · [artifacts](%s#artifacts) "
			   "(report.html, results.json, JUnit)\n\n", run_url, run_url);
}

/* Why the kernels were compiled and not run, once for the report (each
 * test's line then says only that they were not run): the distinct
 * reasons of the units, at most three. */
static void render_no_gpu(struct sc_buf *out, const struct sc_results *r)
{
	const char *seen[3];
	size_t n = 0, more = 0;

	for (size_t i = 0; i < r->nunits; i++) {
		const char *why = no_gpu_reason(r->units[i].message);
		bool dup = false;
		if (!why)
			continue;
		for (size_t j = 0; j < n && !dup; j++)
			dup = !strcmp(seen[j], why);
		if (dup)
			continue;
		if (n < SC_ARRAY_SIZE(seen))
			seen[n++] = why;
		else
			more++;
	}
	if (!n)
		return;
	sc_buf_puts(out, "> **Kernels compiled, not run:** correctness and speed not checked: ");
	for (size_t i = 0; i < n; i++) {
		struct sc_buf t = SC_BUF_INIT;
		if (i)
			sc_buf_puts(out, "; ");
		sc_report_trim(&t, seen[i], SC_REPORT_MD_BRIEF_MAX * 2);
		sc_report_md_text(out, t.ptr);
		sc_buf_release(&t);
	}
	if (more)
		sc_buf_printf(out, " (and %zu other reason%s)", more, more == 1 ? "" : "s");
	sc_buf_puts(out, ".\n\n");
}

static void render_summary(struct sc_buf *out, const struct sc_results *r, const struct rows *rows,
			   const char *run_url)
{
	bool eval = is_eval(r);

	const struct sc_verdicts *v = &rows->verdicts;

	sc_buf_puts(out, eval ? "## skillci eval\n\n" : "## skillci report\n\n");
	/* the verdict first (with the cause of a run that could not check) */
	if (v->shard && !eval && !v->blocking)
		sc_buf_puts(out, "⏳ **");
	else
		sc_buf_printf(out, "%s **", sc_report_verdict_icon(v->state));
	sc_report_md_text(out, v->headline);
	sc_buf_puts(out, ".**\n\n");
	if (!eval) {
		/* what was checked, before anything else */
		sc_buf_puts(out, "**Checked:** ");
		sc_report_md_text(out, v->checked);
		sc_buf_puts(out, ".\n\n");
	}
	render_links(out, run_url);
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
	render_no_gpu(out, r);
	if (rows->n) {
		if (eval)
			sc_buf_puts(out, "| skill helps | skill | pass rate no skill → with skill | tokens | cost | speedup |\n"
					 "|---|---|---|---|---|---|\n");
		else
			sc_buf_puts(out, "| gate | skill | pass rate base → head | tokens | cost | speedup |\n"
					 "|---|---|---|---|---|---|\n");
		for (size_t i = 0; i < rows->n; i++)
			(eval ? row_eval : row_diff)(out, r, &rows->v[i]);
		sc_buf_putc(out, '\n');
		render_legend(out, r, rows);
	}
	for (size_t i = 0; i < v->nrun_failures; i++) {
		const struct sc_results_gate_failure *f = v->run_failures[i];
		enum sc_verdict fv = sc_verdict_of_status(f->status);
		if (fv == SC_VERDICT_ERROR && v->cause)
			continue;  /* the cause, in the verdict line */
		/* a failure of the run as a whole: no row holds it */
		sc_buf_printf(out, "%s **", sc_report_verdict_icon(fv));
		sc_report_md_text(out, check_name(f->check));
		sc_buf_puts(out, "** (");
		sc_report_md_text(out, f->rule);
		sc_buf_puts(out, "): ");
		sc_report_md_text(out, f->message);
		sc_buf_puts(out, "\n\n");
	}
}

/* ---- details ----------------------------------------------------------- */

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

/* ---- a row's tests, grouped by test ------------------------------------ */

/* What one test did on the row's side, compared with the base. */
enum test_state {
	TEST_PASSED,       /* every run that ran passed */
	TEST_SKIPPED,      /* no run ran */
	TEST_REGRESSED,    /* every head run fails, every base run passed */
	TEST_ALREADY,      /* fails at head; every base run failed too */
	TEST_CHANGED,      /* fails at head; the runs show neither (base 2/3 -> head 0/3) */
	TEST_FAILING,      /* fails, nothing to compare with */
	TEST_ERRED,        /* no run passed or failed: infrastructure errors only */
};

struct test_group {
	const char *id, *name;
	const struct sc_results_unit **runs;   /* the side's runs, by run index */
	size_t nruns;
	size_t passed, bad, skipped;           /* bad: failed or error */
	size_t erred;                          /* of bad: infrastructure errors */
	size_t base_n, base_passed, base_bad;  /* the base's runs of the same test */
	enum test_state state;
};

struct test_groups {
	struct test_group *v;
	size_t n;
	const struct sc_results_unit **units;  /* backing store of every group's runs */
	size_t nrunits;                        /* side units */
	size_t runs_max;                       /* most runs of one test */
};

struct tagged {
	const struct sc_results_unit *u;
	bool base;   /* the compared side */
};

static int cmp_tagged(const void *pa, const void *pb)
{
	const struct tagged *a = pa, *b = pb;
	int c = strcmp(a->u->test_id ? a->u->test_id : "", b->u->test_id ? b->u->test_id : "");
	if (c)
		return c;
	if (a->base != b->base)
		return a->base ? 1 : -1;
	return a->u->run_index < b->u->run_index ? -1 : a->u->run_index > b->u->run_index;
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct test_group *a = pa, *b = pb;
	struct sc_buf la = SC_BUF_INIT, lb = SC_BUF_INIT;
	int c;

	sc_report_test_label(&la, a->id);
	sc_report_test_label(&lb, b->id);
	c = sc_report_natural_cmp(la.ptr, lb.ptr);
	sc_buf_release(&la);
	sc_buf_release(&lb);
	return c ? c : strcmp(a->id ? a->id : "", b->id ? b->id : "");
}

static bool unit_bad(const struct sc_results_unit *u)
{
	return u->verdict == SC_UNIT_FAIL || u->verdict == SC_UNIT_ERROR;
}

/* The tests of a row on side (head, or base for a deleted skill), each
 * compared with the base's runs of the same test when compare is set. */
static void collect_groups(struct test_groups *g, const struct sc_results *r, const struct row *row,
			   enum sc_variant side, bool compare)
{
	struct tagged *t = NULL;
	size_t n = 0, alloc = 0, first = 0, count, k = 0;

	memset(g, 0, sizeof(*g));
	if (!row->model)
		return;
	count = r->sorted ? sc_results_units_range(r, row->skill->path, row->model, SC_VARIANT_ANY,
						   &first) : r->nunits;
	for (size_t i = first; i < first + count; i++) {
		const struct sc_results_unit *u = &r->units[i];
		bool base;
		if (!sc_streq(u->skill, row->skill->path) || !sc_streq(u->model, row->model))
			continue;
		if (u->variant == side)
			base = false;
		else if (compare && u->variant == SC_VARIANT_BASE)
			base = true;
		else
			continue;
		SC_GROW(t, alloc, n + 1);
		t[n].u = u;
		t[n++].base = base;
	}
	if (!n)
		return;
	qsort(t, n, sizeof(*t), cmp_tagged);
	g->units = sc_xcalloc(n, sizeof(*g->units));
	g->v = sc_xcalloc(n, sizeof(*g->v));
	for (size_t i = 0; i < n; i++) {
		struct test_group *grp;
		if (g->n == 0 || !sc_streq(g->v[g->n - 1].id, t[i].u->test_id)) {
			grp = &g->v[g->n++];
			grp->id = t[i].u->test_id;
			grp->runs = &g->units[k];
		}
		grp = &g->v[g->n - 1];
		if (t[i].base) {
			grp->base_n++;
			grp->base_passed += t[i].u->verdict == SC_UNIT_PASS;
			grp->base_bad += unit_bad(t[i].u);
			continue;
		}
		if (!grp->name)
			grp->name = t[i].u->test_name;
		g->units[k++] = t[i].u;
		grp->nruns++;
		grp->passed += t[i].u->verdict == SC_UNIT_PASS;
		grp->bad += unit_bad(t[i].u);
		grp->erred += t[i].u->verdict == SC_UNIT_ERROR;
		grp->skipped += t[i].u->verdict != SC_UNIT_PASS && !unit_bad(t[i].u);
	}
	g->nrunits = k;
	/* a test only the base has is not one of the side's */
	for (size_t i = 0; i < g->n; i++) {
		struct test_group *grp = &g->v[i];
		if (grp->nruns > g->runs_max)
			g->runs_max = grp->nruns;
		if (!grp->bad)
			grp->state = grp->passed ? TEST_PASSED : TEST_SKIPPED;
		else if (!grp->passed && grp->erred == grp->bad)
			grp->state = TEST_ERRED;  /* nothing its runs show about the skill */
		else if (!compare || grp->base_passed + grp->base_bad == 0)
			grp->state = TEST_FAILING;
		else if (!grp->base_passed)
			grp->state = TEST_ALREADY;
		else if (!grp->base_bad && !grp->passed)
			grp->state = TEST_REGRESSED;
		else
			grp->state = TEST_CHANGED;
	}
	for (size_t i = 0; i < g->n; i++)
		if (!g->v[i].nruns) {
			memmove(&g->v[i], &g->v[i + 1], (g->n - i - 1) * sizeof(*g->v));
			g->n--;
			i--;
		}
	qsort(g->v, g->n, sizeof(*g->v), cmp_group);
	free(t);
}

static void groups_release(struct test_groups *g)
{
	free(g->v);
	free(g->units);
}

static size_t count_state(const struct test_groups *g, enum test_state s)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++)
		n += g->v[i].state == s;
	return n;
}

/* "<code>tests[3]</code> Q3 about x" */
static void group_name(struct sc_buf *out, const struct test_group *grp)
{
	struct sc_buf label = SC_BUF_INIT;

	sc_report_test_label(&label, grp->id);
	sc_report_md_code(out, label.ptr);
	if (grp->name && *grp->name) {
		sc_buf_putc(out, ' ');
		sc_report_md_text(out, grp->name);
	}
	sc_buf_release(&label);
}

/* "fail (wrong_answer): answer lacks 'x'" for one run. */
static void run_outcome(struct sc_buf *out, const struct sc_results_unit *u)
{
	struct sc_buf tmp = SC_BUF_INIT;

	sc_report_md_text(out, sc_unit_verdict_name(u->verdict));
	if (u->error_class) {
		sc_buf_puts(out, " (");
		sc_report_md_text(out, u->error_class);
		sc_buf_puts(out, ")");
	}
	if (u->message && *u->message) {
		const char *why = no_gpu_reason(u->message);
		sc_buf_puts(out, ": ");
		if (why) {
			/* the runner's reason is said once, above the table */
			sc_buf_put(&tmp, u->message, (size_t)(why - u->message));
			sc_report_md_text(out, tmp.ptr);
			sc_buf_puts(out, "(no GPU: the reason is above the table)");
		} else {
			sc_report_trim(&tmp, u->message, SC_REPORT_MD_MESSAGE_MAX);
			sc_report_md_text(out, tmp.ptr);
		}
	} else if (u->kernel && u->verdict == SC_UNIT_SKIPPED && u->kernel->verdict == SC_KV_COMPILED) {
		sc_buf_puts(out, ": no GPU: compiled only");
	}
	sc_buf_release(&tmp);
}

static bool same_outcome(const struct sc_results_unit *a, const struct sc_results_unit *b)
{
	return a->verdict == b->verdict && sc_streq(a->error_class, b->error_class) &&
	       sc_streq(a->message, b->message);
}

static const char *state_icon(const struct test_group *grp)
{
	switch (grp->state) {
	case TEST_PASSED: return "✅";
	case TEST_SKIPPED: return "⏭️";
	case TEST_ALREADY: return "➖";
	case TEST_ERRED: return "🛑";
	default: return "❌";
	}
}

/*
 * An agent run's trace under a failed test (its first failed run with
 * one): each line of the excerpt (turns, tool calls and results, the
 * answer) a sub-item. True when there was one to show.
 */
static bool agent_trace_item(struct sc_buf *out, const struct test_group *grp)
{
	const struct sc_results_unit *ex = NULL;
	const char *p;

	for (size_t i = 0; i < grp->nruns && !ex; i++)
		if (unit_bad(grp->runs[i]) && grp->runs[i]->excerpt &&
		    (grp->runs[i]->kind == SC_KIND_AGENT || grp->runs[i]->kind == SC_KIND_TRIGGER))
			ex = grp->runs[i];
	if (!ex)
		return false;
	sc_buf_puts(out, "  - agent");
	if (grp->nruns > 1)
		sc_buf_printf(out, " (run %lld)", (long long)ex->run_index + 1);
	sc_buf_puts(out, ":\n");
	for (p = ex->excerpt; *p;) {
		size_t n = strcspn(p, "\n");
		char *line = sc_xstrndup(p, n);
		sc_buf_puts(out, "    - ");
		sc_report_md_text(out, line);
		sc_buf_putc(out, '\n');
		free(line);
		p += n + (p[n] == '\n');
	}
	return true;
}

/* A trigger test's decision over its runs: " — should trigger, opened
 * in 2 of 3 runs". Nothing for other tests. */
static void trigger_note(struct sc_buf *out, const struct test_group *grp)
{
	size_t opened = 0, decided = 0;
	bool should;

	if (!grp->nruns || !grp->runs[0]->trigger)
		return;
	should = grp->runs[0]->trigger == SC_TRIGGER_SHOULD;
	for (size_t i = 0; i < grp->nruns; i++) {
		bool pass = grp->runs[i]->verdict == SC_UNIT_PASS;
		if (!pass && grp->runs[i]->verdict != SC_UNIT_FAIL)
			continue;
		decided++;
		opened += pass == should;
	}
	sc_buf_printf(out, " — trigger test, %s: opened the skill in %zu of %zu run%s",
		      should ? "should trigger" : "should not trigger", opened, decided,
		      decided == 1 ? "" : "s");
}

/* One test as a list item: its name, how its runs went, why the bad ones
 * failed (the same reason once), the base's side, and the start of the
 * answer of its first failed run. */
static void group_item(struct sc_buf *out, const struct test_group *grp, bool in_block)
{
	const struct sc_results_unit *bad = NULL;
	bool uniform = true;

	for (size_t i = 0; i < grp->nruns; i++)
		if (unit_bad(grp->runs[i])) {
			if (!bad)
				bad = grp->runs[i];
			else if (!same_outcome(bad, grp->runs[i]))
				uniform = false;
		}
	sc_buf_printf(out, "- %s ", state_icon(grp));
	group_name(out, grp);
	sc_buf_puts(out, ": ");
	if (grp->nruns > 1)
		sc_buf_printf(out, "%zu of %zu runs passed", grp->passed, grp->nruns);
	if (bad && uniform) {
		sc_buf_puts(out, grp->nruns > 1 ? "; " : "");
		run_outcome(out, bad);
	} else if (!bad && grp->nruns == 1) {
		run_outcome(out, grp->runs[0]);
	} else if (!bad && grp->skipped == grp->nruns) {
		sc_buf_puts(out, "; ");
		run_outcome(out, grp->runs[0]);
	}
	/* in a block of regressed or already failing tests the heading says
	 * which; the base's runs are worth saying when there are several. A
	 * test whose runs show neither says what they were */
	if ((grp->state == TEST_REGRESSED || grp->state == TEST_ALREADY) && (!in_block || grp->base_n > 1)) {
		sc_buf_puts(out, " — ");
		if (!in_block)
			sc_buf_puts(out, grp->state == TEST_REGRESSED ? "regressed, " : "already failing, ");
		sc_buf_printf(out, "base passed %zu of %zu", grp->base_passed, grp->base_n);
	} else if (grp->state == TEST_CHANGED) {
		sc_buf_printf(out, " — base %zu/%zu → head %zu/%zu", grp->base_passed, grp->base_n,
			      grp->passed, grp->nruns);
	}
	trigger_note(out, grp);
	sc_buf_putc(out, '\n');
	if (bad && !uniform)
		for (size_t i = 0; i < grp->nruns; i++) {
			if (!unit_bad(grp->runs[i]))
				continue;
			sc_buf_printf(out, "  - run %lld: ", (long long)grp->runs[i]->run_index + 1);
			run_outcome(out, grp->runs[i]);
			sc_buf_putc(out, '\n');
		}
	if (bad && agent_trace_item(out, grp))
		return;
	if (in_block && bad) {
		const struct sc_results_unit *ex = NULL;
		for (size_t i = 0; i < grp->nruns && !ex; i++)
			if (unit_bad(grp->runs[i]) && grp->runs[i]->excerpt)
				ex = grp->runs[i];
		if (ex) {
			sc_buf_puts(out, "  - answer");
			if (grp->nruns > 1)
				sc_buf_printf(out, " (run %lld)", (long long)ex->run_index + 1);
			sc_buf_puts(out, ": <q>");
			sc_report_md_text(out, ex->excerpt);
			sc_buf_puts(out, "</q>\n");
		}
	}
}

/* The kernel lines of one run (speedup, mismatch, flags, compile log),
 * as sub-items of its test. */
static void kernel_detail(struct sc_buf *out, const struct sc_results_unit *u, bool name_run)
{
	const struct sc_results_kernel *k = u->kernel;
	struct sc_buf tmp = SC_BUF_INIT, fence = SC_BUF_INIT, run = SC_BUF_INIT;

	if (!k)
		return;
	if (name_run)
		sc_buf_printf(&run, "run %lld: ", (long long)u->run_index + 1);
	else
		sc_buf_puts(&run, "");
	if (!isnan(k->speedup)) {
		sc_buf_printf(out, "  - %sspeedup ", run.ptr);
		sc_report_speedup(out, k->speedup);
		sc_buf_puts(out, " over the naive baseline");
		if (!isnan(k->candidate_ms) && !isnan(k->baseline_ms))
			sc_buf_printf(out, " (%.4g ms vs %.4g ms)", k->candidate_ms, k->baseline_ms);
		if (!isnan(k->strong_speedup)) {
			sc_buf_puts(out, ", ");
			sc_report_speedup(out, k->strong_speedup);
			sc_buf_puts(out, " over the strong reference");
			if (k->strong_reference) {
				sc_buf_puts(out, " (");
				sc_report_md_text(out, k->strong_reference);
				sc_buf_puts(out, ")");
			}
		}
		if (!isnan(k->pct_of_peak))
			sc_buf_printf(out, ", %.0f%% of the roofline", k->pct_of_peak);
		if (k->suspect)
			sc_buf_puts(out, " — **suspect: above the roofline ceiling**");
		sc_buf_putc(out, '\n');
		if (k->strong_reference && isnan(k->strong_speedup)) {
			sc_buf_printf(out, "  - %sstrong reference: ", run.ptr);
			sc_report_md_text(out, k->strong_reference);
			sc_buf_putc(out, '\n');
		}
	}
	if (!isnan(k->max_abs_error) && k->verdict != SC_KV_PASSED) {
		sc_buf_printf(out, "  - %sworst mismatch: |error| %.3g", run.ptr, k->max_abs_error);
		if (k->worst_index != SC_RESULTS_NULL_INT)
			sc_buf_printf(out, " at index %lld", (long long)k->worst_index);
		sc_buf_putc(out, '\n');
	}
	if (k->nflags) {
		sc_buf_printf(out, "  - %sflags: ", run.ptr);
		for (size_t i = 0; i < k->nflags; i++) {
			if (i)
				sc_buf_puts(out, ", ");
			sc_report_md_code(out, k->flags[i]);
		}
		sc_buf_putc(out, '\n');
	}
	if (k->compile_log && *k->compile_log && k->compile == SC_COMPILE_FAILED) {
		sc_buf_printf(out, "\n  %scompile log:\n\n", run.ptr);
		sc_report_trim(&tmp, k->compile_log, SC_REPORT_MD_LOG_MAX);
		sc_report_md_fence(&fence, "text", tmp.ptr);
		indent2(out, fence.ptr);
		sc_buf_putc(out, '\n');
	}
	sc_buf_release(&tmp);
	sc_buf_release(&fence);
	sc_buf_release(&run);
}

/* "8 tests: 1 passed, 7 regressed" (× runs when more than one). */
static void groups_summary(struct sc_buf *out, const struct test_groups *g)
{
	size_t passed = count_state(g, TEST_PASSED), skipped = count_state(g, TEST_SKIPPED);
	size_t regressed = count_state(g, TEST_REGRESSED), already = count_state(g, TEST_ALREADY);
	size_t failing = count_state(g, TEST_FAILING), changed = count_state(g, TEST_CHANGED);
	size_t erred = count_state(g, TEST_ERRED);
	bool any = false;

	sc_buf_printf(out, "%zu test%s", g->n, g->n == 1 ? "" : "s");
	if (g->runs_max > 1)
		sc_buf_printf(out, " × %zu runs", g->runs_max);
	sc_buf_puts(out, ": ");
#define PART(n, word) do { if (n) { sc_buf_printf(out, "%s%zu %s", any ? ", " : "", (size_t)(n), word); any = true; } } while (0)
	PART(passed, "passed");
	PART(regressed, "regressed");
	PART(already, "already failing");
	PART(changed, "failed at head, passed at base in some runs");
	PART(failing, "failed");
	PART(erred, "could not run (infrastructure errors)");
	PART(skipped, "skipped");
#undef PART
}

/* A test in a block of what failed: its item, then the kernel lines
 * (mismatch, flags, compile log) of its failed runs. */
static void block_item(struct sc_buf *out, const struct test_group *grp)
{
	group_item(out, grp, true);
	for (size_t j = 0; j < grp->nruns; j++)
		if (unit_bad(grp->runs[j]))
			kernel_detail(out, grp->runs[j], grp->nruns > 1);
}

/*
 * The tests of g that could not run (TEST_ERRED), one item per distinct
 * error: "🛑 40 tests could not run: error (provider): HTTP 503 ...", the
 * tests named (at most three), never one line per test; an error that is
 * the cause of a run that could not check is said to be the one above.
 */
static void erred_items(struct sc_buf *out, const struct test_groups *g, const struct sc_verdicts *v)
{
	bool *done = sc_xcalloc(g->n + 1, sizeof(*done));
	struct sc_buf tmp = SC_BUF_INIT;

	for (size_t i = 0; i < g->n; i++) {
		const struct sc_results_unit *u = NULL;
		size_t n = 0;
		if (done[i] || g->v[i].state != TEST_ERRED)
			continue;
		for (size_t r = 0; r < g->v[i].nruns && !u; r++)
			if (g->v[i].runs[r]->verdict == SC_UNIT_ERROR)
				u = g->v[i].runs[r];
		for (size_t j = i; j < g->n; j++) {
			const struct sc_results_unit *w = NULL;
			if (done[j] || g->v[j].state != TEST_ERRED)
				continue;
			for (size_t r = 0; r < g->v[j].nruns && !w; r++)
				if (g->v[j].runs[r]->verdict == SC_UNIT_ERROR)
					w = g->v[j].runs[r];
			if (!sc_streq(w->error_class, u->error_class) || !sc_streq(w->message, u->message))
				continue;
			done[j] = true;
			n++;
		}
		sc_buf_printf(out, "- 🛑 %zu test%s could not run (", n, n == 1 ? "" : "s");
		for (size_t j = i, named = 0; j < g->n && named < 4; j++) {
			const struct sc_results_unit *w = NULL;
			if (!done[j] || g->v[j].state != TEST_ERRED)
				continue;
			for (size_t r = 0; r < g->v[j].nruns && !w; r++)
				if (g->v[j].runs[r]->verdict == SC_UNIT_ERROR)
					w = g->v[j].runs[r];
			if (!sc_streq(w->error_class, u->error_class) || !sc_streq(w->message, u->message))
				continue;
			if (named++ == 3) {
				sc_buf_printf(out, " and %zu more", n - 3);
				break;
			}
			sc_buf_clear(&tmp);
			sc_report_test_label(&tmp, g->v[j].id);
			if (named > 1)
				sc_buf_puts(out, ", ");
			sc_report_md_code(out, tmp.ptr);
		}
		sc_buf_puts(out, "): error");
		if (u->error_class) {
			sc_buf_puts(out, " (");
			sc_report_md_text(out, u->error_class);
			sc_buf_puts(out, ")");
		}
		if (v->cause_unit && sc_streq(u->message, v->cause_unit->message) &&
		    sc_streq(u->error_class, v->cause_unit->error_class)) {
			sc_buf_puts(out, ": the infrastructure error the verdict names\n");
		} else if (u->message && *u->message) {
			sc_buf_puts(out, ": ");
			sc_buf_clear(&tmp);
			sc_report_trim(&tmp, u->message, SC_REPORT_MD_MESSAGE_MAX);
			sc_report_md_text(out, tmp.ptr);
			sc_buf_putc(out, '\n');
		} else {
			sc_buf_putc(out, '\n');
		}
	}
	free(done);
	sc_buf_release(&tmp);
}

/* The block of a row the gate failed or left inconclusive: each failed
 * check's whole message, then the tests that regressed (pass at base,
 * fail at head) with the reason and the start of the answer, and apart
 * the tests that fail at base too. Empty for a row with neither. */
static void render_failure(struct sc_buf *full, struct sc_buf *compact, const struct sc_results *r,
			   const struct row *row)
{
	const struct sc_results_skill *s = row->skill;
	enum sc_verdict v = row->v->state;
	bool eval = is_eval(r), deleted = s->status == SC_SKILL_DELETED;
	struct sc_buf head = SC_BUF_INIT, body = SC_BUF_INIT, msg = SC_BUF_INIT;
	struct test_groups g;
	size_t shown = 0;

	if (eval || v == SC_VERDICT_PASS)
		return;
	collect_groups(&g, r, row, deleted ? SC_VARIANT_BASE : SC_VARIANT_HEAD, !deleted);
	sc_buf_printf(&head, "%s ", sc_report_verdict_icon(v));
	sc_report_md_code(&head, s->path);
	if (row->model) {
		sc_buf_puts(&head, " · ");
		sc_report_md_code(&head, row->model);
	}
	sc_buf_puts(&head, ": ");
	/* every check of the row that is not a pass, in the words of its status */
	for (size_t i = 0; i < row->v->nopen; i++) {
		const struct sc_results_check *c = row->v->open[i];
		enum sc_verdict cv = sc_verdict_of_status(c->status);
		sc_buf_puts(&head, shown++ ? ", " : "");
		sc_buf_puts(&head, "<b>");
		sc_report_md_text(&head, check_name(c->check));
		sc_buf_printf(&head, "</b> %s", verdict_word(cv));
		sc_buf_printf(&body, "- %s **", sc_report_verdict_icon(cv));
		sc_report_md_text(&body, check_name(c->check));
		sc_buf_printf(&body, "** %s", verdict_word(cv));
		if (c->accepted)
			sc_buf_puts(&body, ", accepted by the trusted config");
		if (c->rule) {
			sc_buf_puts(&body, " (");
			sc_report_md_text(&body, c->rule);
			sc_buf_puts(&body, ")");
		}
		sc_buf_puts(&body, ": ");
		sc_buf_clear(&msg);
		sc_report_trim(&msg, c->message ? c->message : "", SC_REPORT_MD_MESSAGE_MAX);
		sc_report_md_text(&body, msg.ptr);
		sc_buf_putc(&body, '\n');
	}
	if (!shown) {
		/* results written before failures had checks */
		sc_buf_puts(&head, "failed");
		for (size_t i = 0; i < s->ngate_reasons; i++) {
			sc_buf_puts(&body, "- ❌ ");
			sc_report_md_text(&body, s->gate_reasons[i]);
			sc_buf_putc(&body, '\n');
		}
	}
	if (g.n && !deleted) {
		size_t regressed = count_state(&g, TEST_REGRESSED), already = count_state(&g, TEST_ALREADY);
		size_t failing = count_state(&g, TEST_FAILING), changed = count_state(&g, TEST_CHANGED);
		size_t erred = count_state(&g, TEST_ERRED);
		sc_buf_puts(&head, " · ");
		groups_summary(&head, &g);
		if (erred) {
			sc_buf_printf(&body, "\n**Could not run** (infrastructure errors: the runner's, "
				      "not the pull request's): %zu test%s\n\n", erred,
				      erred == 1 ? "" : "s");
			erred_items(&body, &g, row->all);
		}
		if (regressed) {
			sc_buf_printf(&body, "\n**Regressed** (pass at base, fail at head): %zu test%s\n\n",
				      regressed, regressed == 1 ? "" : "s");
			for (size_t i = 0; i < g.n; i++)
				if (g.v[i].state == TEST_REGRESSED)
					block_item(&body, &g.v[i]);
		}
		if (changed) {
			sc_buf_printf(&body, "\n**Failed at head** (some runs passed at base; the runs "
				      "show neither a regression nor an old failure): %zu test%s\n\n",
				      changed, changed == 1 ? "" : "s");
			for (size_t i = 0; i < g.n; i++)
				if (g.v[i].state == TEST_CHANGED)
					block_item(&body, &g.v[i]);
		}
		if (failing) {
			sc_buf_printf(&body, "\n**Failing** (%s): %zu test%s\n\n",
				      deleted ? "at base; deleted at head" : "no base run to compare with",
				      failing, failing == 1 ? "" : "s");
			for (size_t i = 0; i < g.n; i++)
				if (g.v[i].state == TEST_FAILING)
					block_item(&body, &g.v[i]);
		}
		if (already) {
			sc_buf_printf(&body, "\n**Already failing** (fail at base too, not brought by this "
					     "change): %zu test%s\n\n", already, already == 1 ? "" : "s");
			for (size_t i = 0; i < g.n; i++)
				if (g.v[i].state == TEST_ALREADY)
					block_item(&body, &g.v[i]);
		}
	}
	sc_buf_printf(full, "<details>\n<summary>%s</summary>\n\n%s\n</details>\n\n", head.ptr, body.ptr);
	sc_buf_printf(compact, "- %s\n", head.ptr);
	groups_release(&g);
	sc_buf_release(&head);
	sc_buf_release(&body);
	sc_buf_release(&msg);
}

/* " · triggers: recall 4/5 (80%), false triggers 1/5 (20%)" for a row
 * with trigger tests, with the base's in brackets where there is one. */
static void trigger_summary(struct sc_buf *out, const struct sc_results *r, const struct row *row,
			    enum sc_variant variant)
{
	const struct sc_results_aggregate *a =
		sc_results_find_aggregate(r, row->skill->path, variant, row->model);
	const struct sc_results_aggregate *b = variant != SC_VARIANT_BASE ?
		sc_results_find_aggregate(r, row->skill->path, SC_VARIANT_BASE, row->model) : NULL;

	if (!a || !(a->trigger_should || a->trigger_should_not))
		return;
	sc_buf_puts(out, " · triggers:");
	if (a->trigger_should) {
		sc_buf_printf(out, " recall %lld/%lld (%.0f%%)", (long long)a->trigger_hits,
			      (long long)a->trigger_should,
			      100.0 * (double)a->trigger_hits / (double)a->trigger_should);
		if (b && b->trigger_should)
			sc_buf_printf(out, " [base %lld/%lld]", (long long)b->trigger_hits,
				      (long long)b->trigger_should);
	}
	if (a->trigger_should_not) {
		sc_buf_printf(out, "%s false triggers %lld/%lld (%.0f%%)", a->trigger_should ? "," : "",
			      (long long)a->trigger_false, (long long)a->trigger_should_not,
			      100.0 * (double)a->trigger_false / (double)a->trigger_should_not);
		if (b && b->trigger_should_not)
			sc_buf_printf(out, " [base %lld/%lld]", (long long)b->trigger_false,
				      (long long)b->trigger_should_not);
	}
}

/* The variant whose units a row's details show: head, or base for a
 * deleted skill. */
static enum sc_variant detail_variant(const struct sc_results *r, const struct row *row)
{
	if (!is_eval(r) && row->skill->status == SC_SKILL_DELETED)
		return SC_VARIANT_BASE;
	return SC_VARIANT_HEAD;
}

/* One row's details: a <details> block (full) and a one-line list item
 * (compact, used when the full block does not fit), one item per test
 * (its runs together). Empty when the row has no units. */
static void render_details(struct sc_buf *full, struct sc_buf *compact,
			   const struct sc_results *r, const struct row *row)
{
	enum sc_variant variant = detail_variant(r, row);
	bool eval = is_eval(r);
	struct sc_buf items = SC_BUF_INIT, head = SC_BUF_INIT;
	struct test_groups g;

	collect_groups(&g, r, row, variant, !eval && variant == SC_VARIANT_HEAD);
	if (g.n == 0)
		goto done;
	for (size_t i = 0; i < g.n; i++) {
		const struct test_group *grp = &g.v[i];
		if (grp->state == TEST_ERRED)
			continue;  /* together, below */
		group_item(&items, grp, false);
		for (size_t j = 0; j < grp->nruns; j++)
			kernel_detail(&items, grp->runs[j], grp->nruns > 1);
	}
	erred_items(&items, &g, row->all);
	/* the row's verdict, as the table shows it (results/verdict.h); the
	 * tests' outcomes follow in words */
	sc_buf_printf(&head, "%s ", sc_report_verdict_icon(row->v->state));
	sc_report_md_code(&head, row->skill->path);
	sc_buf_puts(&head, " · ");
	sc_report_md_code(&head, row->model);
	sc_buf_printf(&head, " (%s): ", variant == SC_VARIANT_BASE ? "base" : eval ? "with skill" : "head");
	groups_summary(&head, &g);
	if (!eval && variant == SC_VARIANT_HEAD) {
		const struct sc_results_comparison *bh =
			sc_results_find_comparison(r, row->skill->path, row->model, SC_VARIANT_BASE, SC_VARIANT_HEAD);
		const struct sc_results_comparison *lh =
			sc_results_find_comparison(r, row->skill->path, row->model, SC_VARIANT_BASELINE, SC_VARIANT_HEAD);
		if (bh && !isnan(bh->pass_rate_delta)) {
			sc_buf_puts(&head, " · change ");
			sc_report_points(&head, bh->pass_rate_delta);
			sc_buf_puts(&head, " (");
			sc_report_significance(&head, bh);
			sc_buf_puts(&head, ")");
		}
		if (lh && !isnan(lh->pass_rate_delta)) {
			sc_buf_puts(&head, " · lift vs no skill ");
			sc_report_points(&head, lh->pass_rate_delta);
		}
	}
	trigger_summary(&head, r, row, variant);

	sc_buf_printf(full, "<details>\n<summary>%s</summary>\n\n%s\n</details>\n\n", head.ptr, items.ptr);
	sc_buf_printf(compact, "- %s\n", head.ptr);
done:
	groups_release(&g);
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
		bool error = f->severity == SC_SEV_ERROR;
		warnings += !error && f->state != SC_FINDING_FIXED;
		sc_buf_printf(&items, "- %s ", f->state == SC_FINDING_FIXED ? "✅ fixed"
				    : !error ? "⚠️ warning"
				    : f->state == SC_FINDING_NEW ? "❌ new error" : "⚠️ pre-existing error");
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
		sc_buf_puts(&items, f->state == SC_FINDING_NEW ? " — head only"
				    : f->state == SC_FINDING_EXISTING ? " — at base and head" : " — base only");
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
	if (run->trust.gate.present && run->trust.gate.max_runs > 0)
		sc_buf_printf(out, " · %lld to %lld runs per test (sequential)",
			      (long long)run->trust.gate.first_runs, (long long)run->trust.gate.max_runs);
	else
		sc_buf_printf(out, " · %lld run%s per test", (long long)run->runs,
			      run->runs == 1 ? "" : "s");
	{
		struct sc_buf cost = SC_BUF_INIT;
		sc_report_cost_line(&cost, r);
		if (cost.len)
			sc_buf_printf(out, " · %s", cost.ptr);
		sc_buf_release(&cost);
	}
	sc_buf_printf(out, " · significance at alpha %g", sc_compare_alpha(run->alpha));
	if (run->shard_count > 1)
		sc_buf_printf(out, " · shard %lld/%lld", (long long)run->shard_index, (long long)run->shard_count);
	sc_buf_puts(out, " · skillci ");
	sc_report_md_text(out, r->skillci_version ? r->skillci_version : "?");
	if (run->id) {
		sc_buf_puts(out, " · run ");
		sc_report_md_code(out, run->id);
	}
	if (run->prov.present && run->prov.head) {
		/* the commit judged: what would land (docs/run.md, "Provenance") */
		struct sc_buf h = SC_BUF_INIT;
		sc_buf_puts(out, " · judged ");
		sc_buf_printf(&h, "%.12s", run->prov.head);
		sc_report_md_code(out, h.ptr);
		if (run->prov.judged == SC_JUDGED_MERGE && run->prov.base) {
			sc_buf_clear(&h);
			sc_buf_printf(&h, "%.12s", run->prov.base);
			sc_buf_puts(out, " merged into the target's tip ");
			sc_report_md_code(out, h.ptr);
			if (run->prov.judged_tree) {
				sc_buf_clear(&h);
				sc_buf_printf(&h, "%.12s", run->prov.judged_tree);
				sc_buf_puts(out, " (tree ");
				sc_report_md_code(out, h.ptr);
				sc_buf_puts(out, ")");
			}
		}
		if (run->prov.pr_number > 0)
			sc_buf_printf(out, " · pull request #%lld", (long long)run->prov.pr_number);
		sc_buf_release(&h);
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
	struct sc_buf full = SC_BUF_INIT, compact = SC_BUF_INIT, note = SC_BUF_INIT, failures = SC_BUF_INIT;
	size_t max = opt ? opt->max_bytes : 0, abbreviated = 0, omitted = 0, budget = 0;
	bool in_list = false, brief = false;

	collect_rows(&rows, r);
	render_summary(&summary, r, &rows, opt ? opt->run_url : NULL);
	render_footer(&footer, r);
	if (max && summary.len + footer.len + SC_REPORT_MD_NOTE_RESERVE > max) {
		/* the table alone is over the bound: each gate cell gives the
		 * rule and the interval, the full report the whole message */
		for (size_t i = 0; i < rows.n; i++)
			rows.v[i].brief = true;
		sc_buf_clear(&summary);
		render_summary(&summary, r, &rows, opt ? opt->run_url : NULL);
		brief = true;
	}
	if (max) {
		size_t fixed = summary.len + footer.len + SC_REPORT_MD_NOTE_RESERVE +
			       (opt->full_report ? 6 * strlen(opt->full_report) : 0);
		budget = fixed < max ? max - fixed : 0;
	}
	/* first what failed, then every row's tests: one budget for both */
	for (int part = 0; part < 2; part++) {
		struct sc_buf *to = part == 0 ? &failures : &details;
		size_t used;
		in_list = false;
		for (size_t i = 0; i < rows.n; i++) {
			sc_buf_clear(&full);
			sc_buf_clear(&compact);
			if (part == 0) {
				render_failure(&full, &compact, r, &rows.v[i]);
			} else {
				if (rows.v[i].first)
					render_findings(&full, &compact, rows.v[i].skill);
				render_details(&full, &compact, r, &rows.v[i]);
			}
			if (!full.len)
				continue;
			used = failures.len + details.len;
			if (!max || used + full.len + (in_list ? 1 : 0) <= budget) {
				if (in_list)
					sc_buf_putc(to, '\n');
				in_list = false;
				sc_buf_put(to, full.ptr, full.len);
			} else if (used + compact.len + 1 <= budget) {
				sc_buf_put(to, compact.ptr, compact.len);
				in_list = true;
				abbreviated++;
			} else {
				omitted++;
			}
		}
		if (in_list)
			sc_buf_putc(to, '\n');
	}

	sc_buf_put(out, summary.ptr, summary.len);
	if (failures.len) {
		sc_buf_puts(out, "### What failed\n\n");
		sc_buf_put(out, failures.ptr, failures.len);
	}
	if (details.len || omitted) {
		sc_buf_puts(out, "### Details\n\n");
		sc_buf_put(out, details.ptr, details.len);
	}
	if (abbreviated || omitted || brief) {
		sc_buf_printf(&note, "> **Details shortened** to fit GitHub's %d-character limit: "
				     "%zu section%s abbreviated, %zu omitted",
			      SC_REPORT_MD_COMMENT_LIMIT, abbreviated, abbreviated == 1 ? "" : "s", omitted);
		if (brief)
			sc_buf_puts(&note, "; the table's rows leave out their intervals");
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
	sc_buf_release(&failures);
}

void sc_report_md_full(struct sc_buf *out, const struct sc_results *r)
{
	sc_report_md(out, r, NULL);
}
