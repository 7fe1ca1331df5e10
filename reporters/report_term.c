/* Terminal summary (report_term.h). */
#include "common.h"
#include "reporters/report_term.h"
#include "reporters/report_fmt.h"
#include "reporters/report_md.h"
#include "results/results.h"
#include "results/verdict.h"
#include "escape.h"

#include <math.h>
#include <unistd.h>

#define GREEN "\033[32m"
#define RED   "\033[31m"
#define YELLOW "\033[33m"
#define DIM   "\033[2m"
#define BOLD  "\033[1m"
#define RESET "\033[0m"

bool sc_report_term_want_colour(int fd)
{
	const char *nc = getenv("NO_COLOR");

	if (nc && *nc)
		return false;
	return isatty(fd) == 1;
}

/* Untrusted text (paths, model names, messages) goes through the escaping
 * routine: the summary is printed to a terminal or a CI log (escape.h). */
static void put(struct sc_buf *out, const char *s)
{
	sc_escape_log(out, s);
}

/* One variant's line: "  head     ████████░░░░ 40%  (4/10, 1.85×)". */
static void variant_line(struct sc_buf *out, const struct sc_results_aggregate *a, bool eval)
{
	const char *label = sc_variant_name(a->variant);

	if (eval && a->variant == SC_VARIANT_HEAD)
		label = "with skill";
	else if (a->variant == SC_VARIANT_HEAD_TESTS)
		label = "PR tests";
	sc_buf_printf(out, "  %-10s ", label);
	sc_report_bar(out, a->pass_rate);
	sc_buf_putc(out, ' ');
	if (isnan(a->pass_rate))
		sc_buf_puts(out, "  —");
	else
		sc_buf_printf(out, "%3.0f%%", a->pass_rate * 100.0);
	sc_buf_printf(out, "  (%lld/%lld", (long long)a->passed, (long long)a->n);
	/* the 95% interval, as the Markdown gives it under each pass rate */
	if (!isnan(a->ci_low) && !isnan(a->ci_high))
		sc_buf_printf(out, ", 95%% CI %.0f–%.0f%%", a->ci_low * 100.0 + 0.0, a->ci_high * 100.0 + 0.0);
	if (a->errors)
		sc_buf_printf(out, ", %lld error%s", (long long)a->errors, a->errors == 1 ? "" : "s");
	if (a->skipped)
		sc_buf_printf(out, ", %lld skipped", (long long)a->skipped);
	if (!isnan(a->speedup_geomean)) {
		sc_buf_puts(out, ", ");
		sc_report_speedup(out, a->speedup_geomean);
		sc_buf_puts(out, " naive");
	}
	if (!isnan(a->strong_speedup_geomean)) {
		sc_buf_puts(out, ", ");
		sc_report_speedup(out, a->strong_speedup_geomean);
		sc_buf_puts(out, " strong");
	}
	if (!isnan(a->mean_tokens))
		sc_buf_printf(out, ", %.0f tokens", a->mean_tokens);
	sc_buf_puts(out, ")\n");
}

/* A check's status in the terminal's words. */
static const char *status_word(enum sc_check_status st)
{
	switch (sc_verdict_of_status(st)) {
	case SC_VERDICT_FAIL: return "failed";
	case SC_VERDICT_ERROR: return "could not check";
	case SC_VERDICT_UNVERIFIED: return "unverified";
	case SC_VERDICT_PASS: break;
	}
	return "passed";
}

/* The gate's verdict of one row (results/verdict.h): "  gate: ✓ passed",
 * or one "  gate: ✗ check failed (rule): message" per check that is not a
 * pass (✗ failed, ? unverified, accepted or not, ! could not check). */
static void gate_lines(struct sc_buf *out, const struct sc_verdicts *v,
		       const struct sc_verdict_row *row, bool colour)
{
	const struct sc_results_skill *s = row->skill;

	for (size_t i = 0; i < row->nopen; i++) {
		const struct sc_results_check *c = row->open[i];
		enum sc_verdict cv = sc_verdict_of_status(c->status);
		sc_buf_printf(out, "  gate: %s%s %s %s%s (%s): ",
			      colour ? (cv == SC_VERDICT_UNVERIFIED ? YELLOW : RED) : "",
			      sc_report_verdict_mark(cv), sc_check_kind_name(c->check),
			      status_word(c->status), c->accepted ? ", accepted" : "",
			      c->rule ? c->rule : sc_check_kind_name(c->check));
		put(out, c->message ? c->message : "");
		sc_buf_printf(out, "%s\n", colour ? RESET : "");
	}
	for (size_t i = 0; i < row->nloose; i++) {
		/* results written before every failure had a check */
		const struct sc_results_gate_failure *f = row->loose[i];
		sc_buf_printf(out, "  gate: %s✗ %s (%s): ", colour ? RED : "",
			      sc_check_kind_name(f->check), f->rule);
		put(out, f->message ? f->message : "");
		sc_buf_printf(out, "%s\n", colour ? RESET : "");
	}
	if (row->nopen || row->nloose)
		return;
	if (row->state != SC_VERDICT_PASS) {
		/* the gate failed the skill with no failure to show: its reasons */
		for (size_t i = 0; i < s->ngate_reasons; i++) {
			sc_buf_printf(out, "  gate: %s✗ ", colour ? RED : "");
			put(out, s->gate_reasons[i]);
			sc_buf_printf(out, "%s\n", colour ? RESET : "");
		}
		if (!s->ngate_reasons)
			sc_buf_printf(out, "  gate: %s✗ failed%s\n", colour ? RED : "",
				      colour ? RESET : "");
		return;
	}
	sc_buf_printf(out, "  gate: %s%s\n", v->shard ? "decided by skillci merge" : "✓ passed",
		      s->untested ? " (unverified: no tests)" : "");
}

/* An eval row's decision (results/verdict.h): "  verdict: ✓ helps: keep skill". */
static void eval_line(struct sc_buf *out, const struct sc_verdict_row *row, bool colour)
{
	sc_buf_printf(out, "  verdict: %s%s %s: ", colour ? (row->state == SC_VERDICT_PASS ? GREEN
						  : row->state == SC_VERDICT_UNVERIFIED ? YELLOW : RED) : "",
		      sc_report_verdict_mark(row->state), sc_verdict_word(row->state, SC_RUN_KIND_EVAL));
	put(out, row->why ? row->why : "");
	sc_buf_printf(out, "%s\n", colour ? RESET : "");
}

/* What the pull request tried that was not applied, and the skills whose
 * tests it edits (the same story as the Markdown banners). */
static void trust_lines(struct sc_buf *out, const struct sc_results *r)
{
	const struct sc_results_trust *t = &r->run.trust;

	if (t->nchanges) {
		sc_buf_puts(out, "the pull request changes the configuration; NOT applied (used ");
		put(out, t->config ? t->config : "the base revision's configuration");
		sc_buf_puts(out, "):\n");
		for (size_t i = 0; i < t->nchanges; i++) {
			sc_buf_puts(out, "  ");
			put(out, t->changes[i].key);
			sc_buf_puts(out, ": ");
			put(out, t->changes[i].base);
			sc_buf_puts(out, " -> ");
			put(out, t->changes[i].head);
			sc_buf_putc(out, '\n');
		}
	}
	for (size_t i = 0; i < t->nnotes; i++) {
		sc_buf_puts(out, "not taken from the pull request: ");
		put(out, t->notes[i]);
		sc_buf_putc(out, '\n');
	}
	for (size_t i = 0; i < r->nskills; i++) {
		const struct sc_results_skill *s = &r->skills[i];
		if (s->first_tests) {
			put(out, s->path);
			sc_buf_printf(out, ": tests added: they judge later PRs (the base had none; "
				      "the verdict runs the head's %lld against no skill)\n",
				      (long long)s->tests);
		}
		if (!sc_results_tests_edited(s))
			continue;
		put(out, s->path);
		sc_buf_printf(out, ": the pull request edits its tests (%lld changed, %lld added, %lld "
			      "removed); the verdict uses the base's tests, \"PR tests\" are the "
			      "head's own\n", (long long)s->tests_changed, (long long)s->tests_added,
			      (long long)s->tests_removed);
	}
}

/* The lines of one row with results: the skill and model, a bar per
 * variant, the change, the run's use, and the row's verdict. */
static void row_lines(struct sc_buf *out, const struct sc_results *r, const struct sc_verdicts *v,
		      const struct sc_verdict_row *row, bool colour)
{
	const struct sc_results_skill *s = row->skill;
	bool eval = v->kind == SC_RUN_KIND_EVAL;
	const struct sc_results_comparison *c;

	sc_buf_puts(out, colour ? BOLD : "");
	put(out, s->path);
	sc_buf_printf(out, "%s · ", colour ? RESET : "");
	put(out, row->model);
	if (!eval && s->status != SC_SKILL_NONE && row->first) {
		sc_buf_printf(out, " (%s", sc_skill_status_name(s->status));
		if (s->status == SC_SKILL_RENAMED && s->old_path) {
			sc_buf_puts(out, " from ");
			put(out, s->old_path);
		}
		sc_buf_puts(out, ")");
	}
	sc_buf_putc(out, '\n');
	for (int k = 0; k < SC_VARIANT_COUNT; k++) {
		const struct sc_results_aggregate *a =
			sc_results_find_aggregate(r, s->path, (enum sc_variant)k, row->model);
		if (a)
			variant_line(out, a, eval);
	}
	c = sc_results_find_comparison(r, s->path, row->model,
				       eval ? SC_VARIANT_BASELINE : SC_VARIANT_BASE, SC_VARIANT_HEAD);
	if (c && !isnan(c->pass_rate_delta)) {
		sc_buf_printf(out, "  %s", eval ? "lift      " : "base→head ");
		sc_report_points(out, c->pass_rate_delta);
		sc_buf_puts(out, " (");
		sc_report_significance(out, c);
		sc_buf_puts(out, ")");
		if (!isnan(c->tokens_delta_pct)) {
			sc_buf_puts(out, ", tokens ");
			sc_report_signed_pct(out, c->tokens_delta_pct);
		}
		sc_buf_putc(out, '\n');
	}
	for (size_t uf = 0, nu = sc_results_usage_of(r, s->path, &uf), k = uf; k < uf + nu; k++) {
		const struct sc_results_usage *u = sc_results_usage_at(r, k);
		if (strcmp(u->skill, s->path) || strcmp(u->model, row->model))
			continue;
		sc_buf_printf(out, "  used      %lld input, %lld output tokens", (long long)u->tokens_in,
			      (long long)u->tokens_out);
		if (!isnan(u->cost_usd))
			sc_buf_printf(out, ", $%.4f at list prices%s%s", u->cost_usd,
				      u->price_date ? " of " : "", u->price_date ? u->price_date : "");
		else
			sc_buf_puts(out, ", no price for this model");
		sc_buf_putc(out, '\n');
	}
	if (eval)
		eval_line(out, row, colour);
	else
		gate_lines(out, v, row, colour);
}

/* A changed skill with no model results: what it is, and its verdict. */
static void bare_row(struct sc_buf *out, const struct sc_verdicts *v,
		     const struct sc_verdict_row *row, bool colour)
{
	const struct sc_results_skill *s = row->skill;
	bool eval = v->kind == SC_RUN_KIND_EVAL;
	const char *status = eval || s->status == SC_SKILL_NONE ? "" : sc_skill_status_name(s->status);

	sc_buf_puts(out, colour ? BOLD : "");
	put(out, s->path);
	sc_buf_puts(out, colour ? RESET : "");
	if (s->status == SC_SKILL_DELETED && !eval)
		sc_buf_puts(out, ": deleted at head\n");
	else if (s->untested)
		sc_buf_printf(out, ": %s%sunverified: no tests\n", status, *status ? ", " : "");
	else
		sc_buf_printf(out, ": %s%snothing evaluated\n", status, *status ? ", " : "");
	if (eval)
		eval_line(out, row, colour);
	else
		gate_lines(out, v, row, colour);
}

void sc_report_term(struct sc_buf *out, const struct sc_results *r, bool colour)
{
	struct sc_verdicts v;
	bool eval = r->run.kind == SC_RUN_KIND_EVAL;
	const char *col;

	sc_verdict_build(&v, r);
	if (v.cause) {
		/* could not check: why, once, first (results/verdict.h) */
		sc_buf_printf(out, "%scould not check: ", colour ? RED : "");
		put(out, v.cause);
		sc_buf_printf(out, "%s\n", colour ? RESET : "");
	}
	if (!eval) {
		/* what was checked */
		sc_buf_puts(out, "checked: ");
		put(out, v.checked);
		sc_buf_putc(out, '\n');
	}
	if (r->run.oracle)
		sc_buf_puts(out, "oracle self-test: answers are reference solutions, not a model's\n");
	for (size_t i = 0; i < v.nrows; i++) {
		if (v.rows[i].model)
			row_lines(out, r, &v, &v.rows[i], colour);
		else
			bare_row(out, &v, &v.rows[i], colour);
	}
	for (size_t i = 0; i < v.nrun_failures; i++) {
		const struct sc_results_gate_failure *f = v.run_failures[i];
		enum sc_verdict fv = sc_verdict_of_status(f->status);
		if (fv == SC_VERDICT_ERROR && v.cause)
			continue;  /* said first */
		sc_buf_printf(out, "run: %s%s %s (%s): ", colour ? RED : "", sc_report_verdict_mark(fv),
			      sc_check_kind_name(f->check), f->rule);
		put(out, f->message ? f->message : "");
		sc_buf_printf(out, "%s\n", colour ? RESET : "");
	}
	{
		/* what the decisions cost */
		struct sc_buf cost = SC_BUF_INIT;
		sc_report_cost_line(&cost, r);
		if (cost.len) {
			sc_buf_puts(out, "cost: ");
			put(out, cost.ptr);
			sc_buf_putc(out, '\n');
		}
		sc_buf_release(&cost);
	}
	trust_lines(out, r);
	col = !colour ? "" : v.state == SC_VERDICT_PASS ? GREEN
	      : v.state == SC_VERDICT_UNVERIFIED ? YELLOW : RED;
	sc_buf_printf(out, "%s%s ", col, sc_report_verdict_mark(v.state));
	if (v.cause)
		/* the verdict, the cause being the first line */
		sc_buf_printf(out, "could not check: the runner's fault, not the %s's (the cause is "
			      "the first line)", eval ? "skill" : "pull request");
	else
		put(out, v.headline);
	sc_buf_printf(out, "%s\n", colour ? RESET : "");
	if (!r->run.complete) {
		sc_buf_puts(out, "incomplete: ");
		put(out, r->run.incomplete_reason ? r->run.incomplete_reason : "run interrupted");
		sc_buf_putc(out, '\n');
	}
	sc_verdict_release(&v);
}
