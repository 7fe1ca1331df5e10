/* Unit tests for the Markdown report (reporters/report_md.c) and its
 * escaping helpers (report_fmt.c): escaping, fences, layouts, order and
 * the 65,536-character bound. */
#include "unit.h"
#include "results/results.h"
#include "reporters/report_fmt.h"
#include "reporters/report_md.h"
#include "pipeline/combine.h"

#include <math.h>

static void test_md_text_escapes_html_markdown_and_pipes(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	sc_report_md_text(&b, "<script>a|b *c* _d_ `e` [f](g) & h\nline\x01");
	assert_string_equal(b.ptr, "&lt;script&gt;a&#124;b \\*c\\* \\_d\\_ \\`e\\` \\[f\\](g) &amp; h line ");
	sc_buf_release(&b);
}

static void test_fence_outgrows_backticks_inside(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	sc_report_md_fence(&b, "text", "a ``` b\n````\n");
	assert_string_equal(b.ptr, "`````text\na ``` b\n````\n`````\n");
	sc_buf_clear(&b);
	sc_report_md_fence(&b, NULL, "plain");
	assert_string_equal(b.ptr, "```\nplain\n```\n");
	sc_buf_release(&b);
}

static void test_number_formats(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	sc_report_pct(&b, 0.6);
	sc_buf_putc(&b, ' ');
	sc_report_points(&b, -0.4);
	sc_buf_putc(&b, ' ');
	sc_report_points(&b, -0.001);
	sc_buf_putc(&b, ' ');
	sc_report_signed_pct(&b, 12.4);
	sc_buf_putc(&b, ' ');
	sc_report_speedup(&b, 2.1);
	sc_buf_putc(&b, ' ');
	sc_report_pct(&b, NAN);
	assert_string_equal(b.ptr, "60% -40 pts 0 pts +12% 2.10× —");
	sc_buf_release(&b);
}

/* The terminal bar: 20 cells, rounded to the nearest, clamped, NAN empty. */
static void test_bar(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	const char *full = "\u2588", *empty = "\u2591";
	struct { double v; int filled; } cases[] = {
		{ 0.0, 0 }, { 0.6, 12 }, { 0.024, 0 }, { 0.026, 1 }, { 1.0, 20 }, { 1.7, 20 },
		{ -0.5, 0 }, { NAN, 0 },
	};
	(void)state;

	for (size_t c = 0; c < SC_ARRAY_SIZE(cases); c++) {
		struct sc_buf want = SC_BUF_INIT;
		for (int i = 0; i < SC_REPORT_BAR_WIDTH; i++)
			sc_buf_puts(&want, i < cases[c].filled ? full : empty);
		sc_buf_clear(&b);
		sc_report_bar(&b, cases[c].v);
		assert_string_equal(b.ptr, want.ptr);
		sc_buf_release(&want);
	}
	sc_buf_release(&b);
}

/* A run with n changed skills, each with failing head units whose
 * messages make the details large; skills are added in reverse order. */
static void make_run(struct sc_results *r, size_t n, const char *kind)
{
	sc_results_init(r);
	r->run.kind = sc_xstrdup(kind);
	r->run.runs = 2;
	r->skills = sc_xcalloc(n, sizeof(*r->skills));
	r->aggregates = sc_xcalloc(n * 2, sizeof(*r->aggregates));
	r->units = sc_xcalloc(n * 4, sizeof(*r->units));
	for (size_t i = 0; i < n; i++) {
		struct sc_buf p = SC_BUF_INIT;
		struct sc_results_skill *s = &r->skills[r->nskills++];
		sc_buf_printf(&p, "skills/skill-%04zu", n - 1 - i);
		s->path = sc_xstrdup(p.ptr);
		s->status = sc_xstrdup("modified");
		s->gate_passed = true;
		for (int v = 0; v < 2; v++) {
			struct sc_results_aggregate *a = &r->aggregates[r->naggregates++];
			sc_results_aggregate_init(a);
			a->skill = sc_xstrdup(p.ptr);
			a->variant = sc_xstrdup(v ? "head" : (strcmp(kind, "eval") ? "base" : "baseline"));
			a->model = sc_xstrdup("model-x");
			a->n = 2;
			a->passed = 1;
			a->pass_rate = 0.5;
		}
		for (int u = 0; u < 4; u++) {
			struct sc_results_unit *x = &r->units[r->nunits++];
			sc_results_unit_init(x);
			x->skill = sc_xstrdup(p.ptr);
			x->variant = sc_xstrdup("head");
			x->model = sc_xstrdup("model-x");
			x->test_id = sc_xstrdup(u < 2 ? "t0" : "t1");
			x->run_index = u % 2;
			x->verdict = sc_xstrdup(u % 2 ? "fail" : "pass");
			x->message = u % 2 ? sc_xstrdup("the answer did not contain the expected text, "
							"which was a long string of words") : NULL;
		}
		sc_buf_release(&p);
	}
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static void test_300_skills_fit_and_keep_every_row(void **state)
{
	struct sc_results r;
	struct sc_buf shortened = SC_BUF_INIT, full = SC_BUF_INIT;
	struct sc_md_options o = { SC_REPORT_MD_COMMENT_LIMIT - 1, "out/report.html" };
	(void)state;

	make_run(&r, 300, "run");
	sc_report_md(&shortened, &r, &o);
	sc_report_md_full(&full, &r);
	assert_true(full.len > SC_REPORT_MD_COMMENT_LIMIT);       /* the bound matters */
	assert_true(shortened.len < SC_REPORT_MD_COMMENT_LIMIT);
	assert_true(sc_utf8_count(shortened.ptr, shortened.len) < SC_REPORT_MD_COMMENT_LIMIT);
	assert_int_equal(count(shortened.ptr, "| <code>skills/skill-"), 300);
	assert_int_equal(count(full.ptr, "<details>"), 300);
	assert_true(count(shortened.ptr, "<details>") < 300);
	assert_non_null(strstr(shortened.ptr, "**Details shortened**"));
	assert_non_null(strstr(shortened.ptr, "<code>out/report.html</code>"));
	assert_null(strstr(full.ptr, "Details shortened"));
	/* Rows in path order although skills were given in reverse. */
	assert_true(strstr(full.ptr, "skill-0000") < strstr(full.ptr, "skill-0001"));
	assert_true(strstr(full.ptr, "skill-0001") < strstr(full.ptr, "skill-0299"));
	sc_results_release(&r);
	sc_buf_release(&shortened);
	sc_buf_release(&full);
}

static void test_layouts_and_banners(void **state)
{
	struct sc_results r;
	struct sc_buf b = SC_BUF_INIT, again = SC_BUF_INIT;
	(void)state;

	make_run(&r, 2, "eval");
	sc_report_md_full(&b, &r);
	assert_non_null(strstr(b.ptr, "## skillci eval"));
	assert_non_null(strstr(b.ptr, "| no skill | with skill |"));
	assert_null(strstr(b.ptr, "Oracle self-test"));
	assert_null(strstr(b.ptr, "Incomplete run"));
	sc_report_md_full(&again, &r);
	assert_string_equal(b.ptr, again.ptr);   /* deterministic */
	sc_results_release(&r);

	sc_buf_clear(&b);
	make_run(&r, 1, "run");
	r.run.oracle = true;
	r.run.complete = false;
	r.run.incomplete_reason = sc_xstrdup("interrupted by SIGINT");
	r.gate.passed = false;
	r.gate.exit_code = 1;
	free(r.skills[0].status);
	r.skills[0].status = sc_xstrdup("added");
	sc_report_md_full(&b, &r);
	assert_non_null(strstr(b.ptr, "| pass rate base → head |"));
	assert_non_null(strstr(b.ptr, "Oracle self-test"));
	assert_non_null(strstr(b.ptr, "Incomplete run:** interrupted by SIGINT"));
	assert_non_null(strstr(b.ptr, "❌ **gate failed"));
	assert_non_null(strstr(b.ptr, "🆕 added"));
	assert_non_null(strstr(b.ptr, "new skill"));
	sc_results_release(&r);
	sc_buf_release(&b);
	sc_buf_release(&again);
}

/* A single-run results file with one aggregate per skill (head). */
static void single_run(struct sc_results *r, const char *const *skills, size_t n, double rate)
{
	sc_results_init(r);
	r->run.kind = sc_xstrdup("eval");
	r->skills = sc_xcalloc(n, sizeof(*r->skills));
	r->aggregates = sc_xcalloc(n, sizeof(*r->aggregates));
	for (size_t i = 0; i < n; i++) {
		struct sc_results_aggregate *a = &r->aggregates[r->naggregates++];
		r->skills[r->nskills].path = sc_xstrdup(skills[i]);
		r->skills[r->nskills].status = sc_xstrdup("unchanged");
		r->skills[r->nskills++].gate_passed = true;
		sc_results_aggregate_init(a);
		a->skill = sc_xstrdup(skills[i]);
		a->variant = sc_xstrdup("head");
		a->model = sc_xstrdup("m");
		a->n = 4;
		a->pass_rate = rate;
		a->mean_tokens = rate * 1000;
	}
	sc_results_sort(r);
}

static void test_combine_marks_added_deleted_and_diffs(void **state)
{
	static const char *const base_skills[] = { "skills/b", "skills/a" };
	static const char *const head_skills[] = { "skills/c", "skills/b" };
	struct sc_results base, head;
	const struct sc_results_comparison *c;
	struct sc_buf md = SC_BUF_INIT;
	(void)state;

	single_run(&base, base_skills, 2, 0.25);
	single_run(&head, head_skills, 2, 0.75);
	assert_int_equal(sc_report_combine(&head, &base), 0);
	assert_true(head.sorted);
	assert_string_equal(sc_results_find_skill(&head, "skills/a")->status, "deleted");
	assert_string_equal(sc_results_find_skill(&head, "skills/b")->status, "modified");
	assert_string_equal(sc_results_find_skill(&head, "skills/c")->status, "added");
	assert_non_null(sc_results_find_aggregate(&head, "skills/a", "base", "m"));
	assert_null(sc_results_find_aggregate(&head, "skills/a", "head", "m"));
	c = sc_results_find_comparison(&head, "skills/b", "m", "base", "head");
	assert_non_null(c);
	assert_true(fabs(c->pass_rate_delta - 0.5) < 1e-9);
	assert_true(fabs(c->tokens_delta_pct - 200.0) < 1e-9);
	assert_int_equal(c->paired_n, 0);
	assert_null(sc_results_find_comparison(&head, "skills/c", "m", "base", "head"));
	sc_report_md_full(&md, &head);
	assert_non_null(strstr(md.ptr, "| <code>skills/b</code> | modified | <code>m</code> | 25% → 75% | +50 pts (unpaired) |"));
	assert_non_null(strstr(md.ptr, "| <code>skills/a</code> | 🗑️ deleted |"));
	assert_non_null(strstr(md.ptr, "| <code>skills/c</code> | 🆕 added |"));
	sc_results_release(&base);
	sc_results_release(&head);
	sc_buf_release(&md);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_md_text_escapes_html_markdown_and_pipes),
		cmocka_unit_test(test_fence_outgrows_backticks_inside),
		cmocka_unit_test(test_number_formats),
		cmocka_unit_test(test_bar),
		cmocka_unit_test(test_300_skills_fit_and_keep_every_row),
		cmocka_unit_test(test_layouts_and_banners),
		cmocka_unit_test(test_combine_marks_added_deleted_and_diffs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
