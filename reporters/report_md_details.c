/*
 * The Markdown report's details (report_md_int.h): one <details> block per
 * row with its tests grouped by test, its failures, erred units and
 * kernel details, and one per skill with its findings. The assembly
 * (report_md.c) shortens them to meet the size bound.
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
		const char *why = md_no_gpu_reason(u->message);
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
void sc_md_failure(struct sc_buf *full, struct sc_buf *compact, const struct sc_results *r,
			   const struct row *row)
{
	const struct sc_results_skill *s = row->skill;
	enum sc_verdict v = row->v->state;
	bool eval = md_is_eval(r), deleted = s->status == SC_SKILL_DELETED;
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
		sc_report_md_text(&head, md_check_name(c->check));
		sc_buf_printf(&head, "</b> %s", md_verdict_word(cv));
		sc_buf_printf(&body, "- %s **", sc_report_verdict_icon(cv));
		sc_report_md_text(&body, md_check_name(c->check));
		sc_buf_printf(&body, "** %s", md_verdict_word(cv));
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
	if (!md_is_eval(r) && row->skill->status == SC_SKILL_DELETED)
		return SC_VARIANT_BASE;
	return SC_VARIANT_HEAD;
}

/* One row's details: a <details> block (full) and a one-line list item
 * (compact, used when the full block does not fit), one item per test
 * (its runs together). Empty when the row has no units. */
void sc_md_details(struct sc_buf *full, struct sc_buf *compact,
			   const struct sc_results *r, const struct row *row)
{
	enum sc_variant variant = detail_variant(r, row);
	bool eval = md_is_eval(r);
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
void sc_md_findings(struct sc_buf *full, struct sc_buf *compact,
			    const struct sc_results_skill *s)
{
	struct sc_buf items = SC_BUF_INIT, head = SC_BUF_INIT, tmp = SC_BUF_INIT;
	size_t fresh, existing, fixed, warnings = 0;

	if (!s->nfindings)
		return;
	md_count_findings(s, &fresh, &existing, &fixed);
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
