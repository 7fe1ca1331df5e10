/*
 * The Markdown report (report_md.h). Built in three parts: the summary
 * (verdict, banners, table, untested skills), the details (one <details>
 * block per row) and the footer. Only the details are shortened to meet a
 * size bound.
 */
#include "common.h"
#include "reporters/report_md.h"
#include "reporters/report_fmt.h"
#include "results/results.h"

#include <math.h>

/* One summary row: a skill and a model. */
struct row {
	const struct sc_results_skill *skill;
	const char *model;
};

struct rows {
	struct row *v;
	size_t n, alloc;
	const struct sc_results_skill **untested;
	size_t nuntested, untested_alloc;
};

static bool is_eval(const struct sc_results *r)
{
	return r->run.kind && !strcmp(r->run.kind, "eval");
}

static int cmp_skill_ptr(const void *pa, const void *pb)
{
	const struct sc_results_skill *a = *(const struct sc_results_skill *const *)pa;
	const struct sc_results_skill *b = *(const struct sc_results_skill *const *)pb;
	return strcmp(a->path ? a->path : "", b->path ? b->path : "");
}

static int cmp_cstr(const void *pa, const void *pb)
{
	return strcmp(*(const char *const *)pa, *(const char *const *)pb);
}

/* The models that have aggregates (or units) for a skill, sorted and
 * unique; run.models when none has. Returns a malloc'd array of borrowed
 * strings. */
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
	if (k == 0)
		for (size_t i = 0; i < r->run.nmodels; i++) {
			SC_GROW(v, alloc, k + 1);
			v[k++] = r->run.models[i];
		}
	if (k == 0) {
		*n = 0;
		return v;
	}
	qsort(v, k, sizeof(*v), cmp_cstr);
	for (size_t i = 0; i < k; i++)
		if (out == 0 || strcmp(v[out - 1], v[i]))
			v[out++] = v[i];
	*n = out;
	return v;
}

/* Collects the rows of the report: every skill × model, skipping skills
 * a PR did not change, and the untested skills apart. */
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

		if (s->untested) {
			SC_GROW(rows->untested, rows->untested_alloc, rows->nuntested + 1);
			rows->untested[rows->nuntested++] = s;
			continue;
		}
		if (!is_eval(r) && sc_streq(s->status, "unchanged"))
			continue;
		models = skill_models(r, s->path, &nmodels);
		for (size_t m = 0; m < nmodels; m++) {
			SC_GROW(rows->v, rows->alloc, rows->n + 1);
			rows->v[rows->n].skill = s;
			rows->v[rows->n++].model = models[m];
		}
		free(models);
	}
	free(skills);
}

static void rows_release(struct rows *rows)
{
	free(rows->v);
	free(rows->untested);
}

/* Distinct skills that failed the gate (by gate.failures or their own
 * gate object). */
static size_t count_regressed(const struct sc_results *r, struct sc_buf *names, size_t max_names)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nskills; i++) {
		const struct sc_results_skill *s = &r->skills[i];
		bool failed = !s->gate_passed;
		for (size_t f = 0; !failed && f < r->gate.nfailures; f++)
			failed = sc_streq(r->gate.failures[f].skill, s->path);
		if (!failed)
			continue;
		if (names && n < max_names) {
			if (n)
				sc_buf_puts(names, ", ");
			sc_buf_puts(names, s->name ? s->name : s->path);
		}
		n++;
	}
	if (names && n > max_names)
		sc_buf_printf(names, " and %zu more", n - max_names);
	return n;
}

static size_t count_changed(const struct sc_results *r)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nskills; i++)
		if (is_eval(r) || !sc_streq(r->skills[i].status, "unchanged"))
			n++;
	return n;
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
	size_t changed = count_changed(r), nmodels = r->run.nmodels;
	size_t regressed = count_regressed(r, &names, 3);

	if (!r->gate.passed && r->gate.exit_code == 3) {
		sc_buf_printf(out, "too many infrastructure errors (%.0f%% of units); results are not conclusive",
			      r->gate.error_share * 100.0);
	} else if (is_eval(r)) {
		size_t helped, pairs;
		count_beneficial(r, &helped, &pairs);
		if (pairs)
			sc_buf_printf(out, "%s: the skill helped in %zu of %zu skill × model pairs",
				      r->gate.passed ? "eval passed" : "eval failed", helped, pairs);
		else
			sc_buf_printf(out, "%s: %zu skill%s evaluated with %zu model%s",
				      r->gate.passed ? "eval passed" : "eval failed", changed,
				      changed == 1 ? "" : "s", nmodels, nmodels == 1 ? "" : "s");
	} else if (!r->gate.passed) {
		if (regressed == 0)
			regressed = 1;
		sc_buf_printf(out, "gate failed: %zu of %zu changed skill%s regressed", regressed,
			      changed, changed == 1 ? "" : "s");
		if (names.len)
			sc_buf_printf(out, " (%s)", names.ptr);
	} else {
		sc_buf_printf(out, "no regression: %zu changed skill%s evaluated with %zu model%s × %lld run%s",
			      changed, changed == 1 ? "" : "s", nmodels, nmodels == 1 ? "" : "s",
			      (long long)r->run.runs, r->run.runs == 1 ? "" : "s");
	}
	sc_buf_release(&names);
}

/* ---- summary ----------------------------------------------------------- */

static void cell_gate(struct sc_buf *out, const struct sc_results *r, const struct row *row)
{
	size_t nrules = 0;

	if (sc_streq(row->skill->status, "deleted") && !is_eval(r)) {
		sc_buf_puts(out, "—");
		return;
	}
	for (size_t i = 0; i < r->gate.nfailures; i++) {
		const struct sc_results_gate_failure *f = &r->gate.failures[i];
		if (!sc_streq(f->skill, row->skill->path) || (f->model && !sc_streq(f->model, row->model)))
			continue;
		sc_buf_puts(out, nrules++ ? ", " : "❌ ");
		sc_report_md_text(out, f->rule);
	}
	if (nrules)
		return;
	if (!row->skill->gate_passed) {
		sc_buf_puts(out, "❌");
		for (size_t i = 0; i < row->skill->ngate_reasons; i++) {
			sc_buf_puts(out, i ? ", " : " ");
			sc_report_md_text(out, row->skill->gate_reasons[i]);
		}
		return;
	}
	sc_buf_puts(out, "✅");
}

static void cell_speedup(struct sc_buf *out, const struct sc_results_aggregate *from,
			 const struct sc_results_aggregate *to, const struct sc_results_comparison *c)
{
	double a = from ? from->speedup_geomean : NAN, b = to ? to->speedup_geomean : NAN;
	double ratio = c ? c->speedup_ratio : NAN;

	if (isnan(a) && isnan(b)) {
		sc_buf_puts(out, "—");
		return;
	}
	if (isnan(ratio) && !isnan(a) && !isnan(b) && a > 0)
		ratio = b / a;
	if (!isnan(a) || !from) {
		if (from) {
			sc_report_speedup(out, a);
			sc_buf_puts(out, " → ");
		}
	} else {
		sc_buf_puts(out, "— → ");
	}
	sc_report_speedup(out, b);
	if (!isnan(ratio)) {
		sc_buf_puts(out, " (");
		sc_report_signed_pct(out, (ratio - 1.0) * 100.0);
		sc_buf_puts(out, ")");
	}
}

static void skill_label(struct sc_buf *out, const struct sc_results_skill *s, bool eval)
{
	sc_report_md_code(out, s->name ? s->name : s->path);
	if (eval || !s->status)
		return;
	if (!strcmp(s->status, "added"))
		sc_buf_puts(out, " 🆕 new");
	else if (!strcmp(s->status, "deleted"))
		sc_buf_puts(out, " 🗑️ deleted");
	else if (!strcmp(s->status, "renamed") && s->old_path) {
		sc_buf_puts(out, " (renamed from ");
		sc_report_md_code(out, s->old_path);
		sc_buf_puts(out, ")");
	}
}

/* Pass-rate delta cell: paired comparison when there is one, else the
 * difference of the two aggregates marked unpaired. */
static void cell_delta(struct sc_buf *out, const struct sc_results_aggregate *from,
		       const struct sc_results_aggregate *to, const struct sc_results_comparison *c)
{
	double d = c ? c->pass_rate_delta : NAN;

	if (c && !isnan(d)) {
		sc_report_points(out, d);
		if (c->paired_n == 0 && isnan(c->p_value))
			sc_buf_puts(out, " (unpaired)");
		else if (c->significant && !isnan(c->p_value))
			sc_buf_printf(out, " (significant, p=%.3f)", c->p_value);
		else if (c->significant)
			sc_buf_puts(out, " (significant)");
		else
			sc_buf_puts(out, " (not significant)");
		return;
	}
	if (from && to && !isnan(from->pass_rate) && !isnan(to->pass_rate)) {
		sc_report_points(out, to->pass_rate - from->pass_rate);
		sc_buf_puts(out, " (unpaired)");
		return;
	}
	sc_buf_puts(out, "—");
}

static void tokens_delta(struct sc_buf *out, const struct sc_results_aggregate *from,
			 const struct sc_results_aggregate *to, const struct sc_results_comparison *c)
{
	double pct = c ? c->tokens_delta_pct : NAN;

	if (isnan(pct) && from && to && !isnan(from->mean_tokens) && !isnan(to->mean_tokens) &&
	    from->mean_tokens > 0)
		pct = (to->mean_tokens - from->mean_tokens) / from->mean_tokens * 100.0;
	sc_report_signed_pct(out, pct);
}

static void row_diff(struct sc_buf *out, const struct sc_results *r, const struct row *row)
{
	const char *path = row->skill->path;
	const struct sc_results_aggregate *base = sc_results_find_aggregate(r, path, "base", row->model);
	const struct sc_results_aggregate *head = sc_results_find_aggregate(r, path, "head", row->model);
	const struct sc_results_aggregate *none = sc_results_find_aggregate(r, path, "baseline", row->model);
	const struct sc_results_comparison *bh = sc_results_find_comparison(r, path, row->model, "base", "head");
	const struct sc_results_comparison *lh = sc_results_find_comparison(r, path, row->model, "baseline", "head");
	bool added = sc_streq(row->skill->status, "added"), deleted = sc_streq(row->skill->status, "deleted");
	double lift;

	sc_buf_puts(out, "| ");
	skill_label(out, row->skill, false);
	sc_buf_puts(out, " | ");
	sc_report_md_code(out, row->model);
	sc_buf_puts(out, " | ");
	sc_report_pct(out, base ? base->pass_rate : NAN);
	sc_buf_puts(out, " → ");
	sc_report_pct(out, head ? head->pass_rate : NAN);
	sc_buf_puts(out, " | ");
	if (added)
		sc_buf_puts(out, "new skill");
	else if (deleted)
		sc_buf_puts(out, "deleted");
	else
		cell_delta(out, base, head, bh);
	sc_buf_puts(out, " | ");
	lift = lh ? lh->skill_lift : NAN;
	if (isnan(lift) && lh)
		lift = lh->pass_rate_delta;
	if (isnan(lift) && none && head && !isnan(none->pass_rate) && !isnan(head->pass_rate))
		lift = head->pass_rate - none->pass_rate;
	sc_report_points(out, lift);
	sc_buf_puts(out, " | ");
	if (added || deleted)
		sc_buf_puts(out, "—");
	else
		tokens_delta(out, base, head, bh);
	sc_buf_puts(out, " | ");
	if (deleted)
		cell_speedup(out, NULL, base, NULL);
	else
		cell_speedup(out, added ? NULL : base, head, bh);
	sc_buf_puts(out, " | ");
	cell_gate(out, r, row);
	sc_buf_puts(out, " |\n");
}

static void row_eval(struct sc_buf *out, const struct sc_results *r, const struct row *row)
{
	const char *path = row->skill->path;
	const struct sc_results_aggregate *none = sc_results_find_aggregate(r, path, "baseline", row->model);
	const struct sc_results_aggregate *head = sc_results_find_aggregate(r, path, "head", row->model);
	const struct sc_results_comparison *c = sc_results_find_comparison(r, path, row->model, "baseline", "head");

	sc_buf_puts(out, "| ");
	skill_label(out, row->skill, true);
	sc_buf_puts(out, " | ");
	sc_report_md_code(out, row->model);
	sc_buf_puts(out, " | ");
	sc_report_pct(out, none ? none->pass_rate : NAN);
	sc_buf_puts(out, " | ");
	sc_report_pct(out, head ? head->pass_rate : NAN);
	sc_buf_puts(out, " | ");
	cell_delta(out, none, head, c);
	sc_buf_puts(out, " | ");
	tokens_delta(out, none, head, c);
	sc_buf_puts(out, " | ");
	cell_speedup(out, none, head, c);
	sc_buf_puts(out, " | ");
	if (!c || c->is_beneficial < 0)
		sc_buf_puts(out, "—");
	else
		sc_buf_puts(out, c->is_beneficial ? "✅ helps" : "❌ no lift");
	sc_buf_puts(out, " |\n");
}

static void render_summary(struct sc_buf *out, const struct sc_results *r, const struct rows *rows)
{
	bool eval = is_eval(r);

	sc_buf_puts(out, eval ? "## skillci eval\n\n" : "## skillci report\n\n");
	sc_buf_puts(out, r->gate.passed ? "✅ **" : "❌ **");
	{
		struct sc_buf v = SC_BUF_INIT;
		sc_report_verdict_text(&v, r);
		sc_report_md_text(out, v.ptr);
		sc_buf_release(&v);
	}
	sc_buf_puts(out, ".**\n\n");
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
	if (rows->n) {
		if (eval)
			sc_buf_puts(out, "| skill | model | no skill | with skill | lift | tokens Δ | speedup | verdict |\n"
					 "|---|---|---|---|---|---|---|---|\n");
		else
			sc_buf_puts(out, "| skill | model | pass rate base → head | Δ | lift vs no skill | tokens Δ | speedup | gate |\n"
					 "|---|---|---|---|---|---|---|---|\n");
		for (size_t i = 0; i < rows->n; i++)
			(eval ? row_eval : row_diff)(out, r, &rows->v[i]);
		sc_buf_putc(out, '\n');
	} else {
		sc_buf_puts(out, eval ? "No skill was evaluated.\n\n" : "No changed skill was evaluated.\n\n");
	}
	if (rows->nuntested) {
		sc_buf_puts(out, "**Untested** (no tests found, not counted as failed): ");
		for (size_t i = 0; i < rows->nuntested; i++) {
			if (i)
				sc_buf_puts(out, ", ");
			sc_report_md_code(out, rows->untested[i]->name ? rows->untested[i]->name
								: rows->untested[i]->path);
		}
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
	sc_report_md_code(&head, row->skill->name ? row->skill->name : row->skill->path);
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

/* ---- footer ------------------------------------------------------------ */

static void render_footer(struct sc_buf *out, const struct sc_results *r)
{
	const struct sc_results_run *run = &r->run;

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
	bool in_list = false;

	collect_rows(&rows, r);
	render_summary(&summary, r, &rows);
	render_footer(&footer, r);
	if (max) {
		size_t fixed = summary.len + footer.len + SC_REPORT_MD_NOTE_RESERVE +
			       (opt->full_report ? 6 * strlen(opt->full_report) : 0);
		budget = fixed < max ? max - fixed : 0;
	}
	for (size_t i = 0; i < rows.n; i++) {
		sc_buf_clear(&full);
		sc_buf_clear(&compact);
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
	if (abbreviated || omitted) {
		sc_buf_printf(&note, "> **Details shortened** to fit GitHub's %d-character limit: "
				     "%zu section%s abbreviated, %zu omitted. The full report: ",
			      SC_REPORT_MD_COMMENT_LIMIT, abbreviated, abbreviated == 1 ? "" : "s", omitted);
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
