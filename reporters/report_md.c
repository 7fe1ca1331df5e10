/*
 * The Markdown report (report_md.h). Built in three parts: the summary
 * (verdict, banners, one table row per changed skill and model with the
 * gate's verdict and reason), the details (one <details> block per row
 * with units, one per skill with findings) and the footer. Only the
 * details are shortened to meet a size bound.
 */
#include "common.h"
#include "reporters/report_md.h"
#include "reporters/report_md_int.h"
#include "reporters/report_fmt.h"
#include "results/compare.h"
#include "results/results.h"
#include "results/verdict.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>

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

/* The gate cell: a short word and an icon first, the failed checks under
 * it; the whole messages are in the blocks below the table. */
static void cell_gate_short(struct sc_buf *out, const struct sc_results *r, const struct row *row)
{
	const struct sc_results_skill *s = row->skill;
	enum sc_verdict v = row->v->state;
	size_t named = 0;

	if (v != SC_VERDICT_PASS) {
		/* the word and icon of the row's verdict, the checks behind it under it */
		sc_buf_printf(out, "%s **%s**", sc_report_verdict_icon(v), md_verdict_word(v));
		for (size_t i = 0; i < row->v->nopen; i++) {
			const struct sc_results_check *c = row->v->open[i];
			const char *name = md_check_name(c->check);
			bool seen = false;
			for (size_t j = 0; j < i && !seen; j++)
				seen = !strcmp(md_check_name(row->v->open[j]->check), name);
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
	md_count_findings(s, &fresh, &existing, &fixed);
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
	size_t uf = 0, nu = row->model ? sc_results_usage_of(r, row->skill->path, &uf) : 0;

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

/* What the narrow table's cells hold, under it, with the model when the
 * run has one (the rows then leave it out). */
static void render_legend(struct sc_buf *out, const struct sc_results *r, const struct rows *rows)
{
	bool side = false, diff = false, eval = md_is_eval(r);

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
		const char *why = md_no_gpu_reason(r->units[i].message);
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
	bool eval = md_is_eval(r);

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
	sc_md_trust(out, r);
	sc_md_pr_tests(out, r);
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
		sc_report_md_text(out, md_check_name(f->check));
		sc_buf_puts(out, "** (");
		sc_report_md_text(out, f->rule);
		sc_buf_puts(out, "): ");
		sc_report_md_text(out, f->message);
		sc_buf_puts(out, "\n\n");
	}
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
	sc_buf_printf(out, " · alpha %g in all (each check's share in its message)",
		      sc_compare_alpha(run->alpha));
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
				sc_md_failure(&full, &compact, r, &rows.v[i]);
			} else {
				if (rows.v[i].first)
					sc_md_findings(&full, &compact, rows.v[i].skill);
				sc_md_details(&full, &compact, r, &rows.v[i]);
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
