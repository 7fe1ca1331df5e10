/* Unit tests for the Markdown report (reporters/report_md.c) and its
 * escaping helpers (report_fmt.c): escaping, fences, layouts, order and
 * the 65,536-character bound. */
#include "unit.h"
#include "states.h"
#include "results/results.h"
#include "reporters/report_fmt.h"
#include "reporters/report_md.h"
#include "pipeline/combine.h"
#include "format/markdown.h"

#include <math.h>

static void test_md_text_escapes_html_markdown_and_pipes(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	sc_report_md_text(&b, "<script>a|b *c* _d_ `e` [f](g) & h\nline\x01");
	assert_string_equal(b.ptr, "&lt;script&gt;a&#124;b \\*c\\* \\_d\\_ \\`e\\` \\[f\\](g) &amp; h line ");
	/* C1, separators and bidirectional controls: spaces; other UTF-8 kept */
	sc_buf_clear(&b);
	sc_report_md_text(&b, "a\xc2\x9b" "b\xe2\x80\xae" "c\xe2\x81\xa6" "d\xe2\x80\xa8" "e\xd8\x9c" "f\xc3\xa9");
	assert_string_equal(b.ptr, "a b c d e f\xc3\xa9");
	sc_buf_release(&b);
}

/* URLs in text from a pull request render as text, in a table cell and in
 * <code> too: cmark-gfm (the HTML report; GitHub's renderer is the same
 * library) makes no link of them, and the words still read the same. */
static void test_urls_are_inert(void **state)
{
	static const char *const urls[] = {
		"see https://evil.example/x now", "HTTPS://EVIL.EXAMPLE", "ftp://evil.example",
		"www.evil.example/p", "(WWW.evil.example)", "mailto:a@evil.example",
		"xmpp:a@evil.example", "a@evil.example", "x_www.evil.example",
	};
	struct sc_buf md = SC_BUF_INIT, html = SC_BUF_INIT;
	(void)state;

	for (size_t i = 0; i < sizeof(urls) / sizeof(urls[0]); i++) {
		sc_buf_clear(&md);
		sc_buf_clear(&html);
		sc_buf_puts(&md, "| a |\n|---|\n| ");
		sc_report_md_text(&md, urls[i]);
		sc_buf_puts(&md, " |\n\n");
		sc_report_md_code(&md, urls[i]);
		sc_buf_puts(&md, " and ");
		sc_report_md_text(&md, urls[i]);
		sc_buf_putc(&md, '\n');
		sc_markdown_to_html(&html, md.ptr, md.len, 1);
		if (strstr(html.ptr, "<a "))
			fail_msg("'%s' became a link: %s", urls[i], html.ptr);
	}
	/* the text shows as written */
	sc_buf_clear(&md);
	sc_buf_clear(&html);
	sc_report_md_text(&md, "go to https://evil.example or www.evil.example");
	sc_markdown_to_html(&html, md.ptr, md.len, 0);
	assert_non_null(strstr(html.ptr, "go to https://evil.example or www.evil.example"));
	/* a colon elsewhere is left alone */
	sc_buf_clear(&md);
	sc_report_md_text(&md, "skills/a: 3 tests");
	assert_string_equal(md.ptr, "skills/a: 3 tests");
	sc_buf_release(&md);
	sc_buf_release(&html);
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
	r->run.kind = t_run_kind(kind);
	r->run.runs = 2;
	r->skills = sc_xcalloc(n, sizeof(*r->skills));
	r->aggregates = sc_xcalloc(n * 2, sizeof(*r->aggregates));
	r->units = sc_xcalloc(n * 4, sizeof(*r->units));
	for (size_t i = 0; i < n; i++) {
		struct sc_buf p = SC_BUF_INIT;
		struct sc_results_skill *s = &r->skills[r->nskills++];
		sc_buf_printf(&p, "skills/skill-%04zu", n - 1 - i);
		s->path = sc_xstrdup(p.ptr);
		s->status = SC_SKILL_MODIFIED;
		s->gate_passed = true;
		for (int v = 0; v < 2; v++) {
			struct sc_results_aggregate *a = &r->aggregates[r->naggregates++];
			sc_results_aggregate_init(a);
			a->skill = sc_xstrdup(p.ptr);
			a->variant = v ? SC_VARIANT_HEAD : strcmp(kind, "eval") ? SC_VARIANT_BASE : SC_VARIANT_BASELINE;
			a->model = sc_xstrdup("model-x");
			a->n = 2;
			a->passed = 1;
			a->pass_rate = 0.5;
		}
		for (int u = 0; u < 4; u++) {
			struct sc_results_unit *x = &r->units[r->nunits++];
			sc_results_unit_init(x);
			x->skill = sc_xstrdup(p.ptr);
			x->variant = SC_VARIANT_HEAD;
			x->model = sc_xstrdup("model-x");
			x->test_id = sc_xstrdup(u < 2 ? "t0" : "t1");
			x->run_index = u % 2;
			x->verdict = t_unit_verdict(u % 2 ? "fail" : "pass");
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
	struct sc_md_options o = { SC_REPORT_MD_COMMENT_LIMIT - 1, "out/report.html", NULL };
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
	assert_non_null(strstr(b.ptr, "| skill helps | skill | pass rate no skill → with skill |"));
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
	r.gate.verdict = SC_VERDICT_FAIL;
	r.skills[0].status = SC_SKILL_ADDED;
	sc_report_md_full(&b, &r);
	assert_non_null(strstr(b.ptr, "| pass rate base → head |"));
	assert_non_null(strstr(b.ptr, "Oracle self-test"));
	assert_non_null(strstr(b.ptr, "Incomplete run:** interrupted by SIGINT"));
	assert_non_null(strstr(b.ptr, "❌ **gate failed"));
	assert_non_null(strstr(b.ptr, "| <code>skills/skill-0000</code><br><sub>added</sub><br><sub>model-x</sub> | — → 50% |"));
	sc_results_release(&r);
	sc_buf_release(&b);
	sc_buf_release(&again);
}

/* A single-run results file with one aggregate per skill (head). */
static void single_run(struct sc_results *r, const char *const *skills, size_t n, double rate)
{
	sc_results_init(r);
	r->run.kind = SC_RUN_KIND_EVAL;
	r->skills = sc_xcalloc(n, sizeof(*r->skills));
	r->aggregates = sc_xcalloc(n, sizeof(*r->aggregates));
	for (size_t i = 0; i < n; i++) {
		struct sc_results_aggregate *a = &r->aggregates[r->naggregates++];
		r->skills[r->nskills].path = sc_xstrdup(skills[i]);
		r->skills[r->nskills].status = SC_SKILL_UNCHANGED;
		r->skills[r->nskills++].gate_passed = true;
		sc_results_aggregate_init(a);
		a->skill = sc_xstrdup(skills[i]);
		a->variant = SC_VARIANT_HEAD;
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
	assert_int_equal(sc_results_find_skill(&head, "skills/a")->status, SC_SKILL_DELETED);
	assert_int_equal(sc_results_find_skill(&head, "skills/b")->status, SC_SKILL_MODIFIED);
	assert_int_equal(sc_results_find_skill(&head, "skills/c")->status, SC_SKILL_ADDED);
	assert_non_null(sc_results_find_aggregate(&head, "skills/a", SC_VARIANT_BASE, "m"));
	assert_null(sc_results_find_aggregate(&head, "skills/a", SC_VARIANT_HEAD, "m"));
	c = sc_results_find_comparison(&head, "skills/b", "m", SC_VARIANT_BASE, SC_VARIANT_HEAD);
	assert_non_null(c);
	assert_true(fabs(c->pass_rate_delta - 0.5) < 1e-9);
	assert_true(fabs(c->tokens_delta_pct - 200.0) < 1e-9);
	assert_int_equal(c->paired_n, 0);
	assert_null(sc_results_find_comparison(&head, "skills/c", "m", SC_VARIANT_BASE, SC_VARIANT_HEAD));
	sc_report_md_full(&md, &head);
	assert_non_null(strstr(md.ptr, "| ✅ pass | <code>skills/b</code><br><sub>m</sub> | 25% → 75% (+50 pts) | 750 (+200%) |"));
	assert_non_null(strstr(md.ptr, "| <code>skills/a</code><br><sub>deleted at head</sub><br><sub>m</sub> | 25% → — |"));
	assert_non_null(strstr(md.ptr, "| <code>skills/c</code><br><sub>added</sub><br><sub>m</sub> | — → 75% |"));
	sc_results_release(&base);
	sc_results_release(&head);
	sc_buf_release(&md);
}


/* Test names: the id's fragment, counted from 1; natural order. */
static void test_labels_and_natural_order(void **state)
{
	static const struct { const char *id, *label; } cases[] = {
		{ "skill_meta.json#tests[0]", "tests[1]" },
		{ "skill_meta.json#tests[9]", "tests[10]" },
		{ "tests/cases.json#login", "tests/cases.json#login" },
		{ "evals/evals.json#1", "evals/evals.json#1" },
		{ "tests/x.json#cases[2]", "tests/x.json#cases[3]" },
		{ "t0", "t0" },
		{ "skill_meta.json#tests[x]", "tests[x]" },
	};
	const char *v[] = { "tests[10]", "tests[2]", "tests[1]", "tests[02]x", "a" };
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	for (size_t i = 0; i < SC_ARRAY_SIZE(cases); i++) {
		sc_buf_clear(&b);
		sc_report_test_label(&b, cases[i].id);
		assert_string_equal(b.ptr, cases[i].label);
	}
	assert_true(sc_report_natural_cmp("tests[2]", "tests[10]") < 0);
	assert_true(sc_report_natural_cmp("tests[10]", "tests[9]") > 0);
	assert_true(sc_report_natural_cmp("tests[2]", "tests[2]") == 0);
	assert_true(sc_report_natural_cmp("tests[2]", "tests[02]x") < 0);
	assert_true(sc_report_natural_cmp(NULL, "a") < 0);
	qsort(v, SC_ARRAY_SIZE(v), sizeof(*v), sc_strcmp_qsort);
	for (size_t i = 1; i < SC_ARRAY_SIZE(v); i++)
		for (size_t j = i; j > 0 && sc_report_natural_cmp(v[j - 1], v[j]) > 0; j--) {
			const char *t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	assert_string_equal(v[0], "a");
	assert_string_equal(v[1], "tests[1]");
	assert_string_equal(v[2], "tests[2]");
	assert_string_equal(v[3], "tests[02]x");
	assert_string_equal(v[4], "tests[10]");
	sc_buf_release(&b);
}

static void add_unit(struct sc_results *r, const char *variant, int test, int run, const char *verdict,
		     const char *excerpt)
{
	struct sc_results_unit *x;
	struct sc_buf id = SC_BUF_INIT, name = SC_BUF_INIT;

	r->units = sc_xrealloc(r->units, (r->nunits + 1) * sizeof(*r->units));
	x = &r->units[r->nunits++];
	sc_results_unit_init(x);
	sc_buf_printf(&id, "skill_meta.json#tests[%d]", test);
	sc_buf_printf(&name, "prompt %d", test);
	x->skill = sc_xstrdup("skills/s");
	x->variant = t_variant(variant);
	x->model = sc_xstrdup("m");
	x->test_id = sc_buf_detach(&id, NULL);
	x->test_name = sc_buf_detach(&name, NULL);
	x->run_index = run;
	x->verdict = t_unit_verdict(verdict);
	if (!strcmp(verdict, "fail")) {
		x->error_class = sc_xstrdup("wrong_answer");
		x->message = sc_xstrdup("answer lacks 'ok'");
		x->excerpt = excerpt ? sc_xstrdup(excerpt) : NULL;
	}
}

/* What failed: a test that passes at base and fails at head is listed as
 * regressed once for its three runs, with the reason and the start of the
 * answer escaped; a test failing at both sides is listed apart as already
 * failing; tests[10] comes after tests[2]. */
static void test_regressed_and_already_failing(void **state)
{
	struct sc_results r;
	struct sc_buf md = SC_BUF_INIT;
	const char *reg, *already, *mixed, *details, *t2, *t10;
	(void)state;

	sc_results_init(&r);
	r.run.kind = SC_RUN_KIND_RUN;
	r.run.runs = 3;
	r.skills = sc_xcalloc(1, sizeof(*r.skills));
	r.nskills = 1;
	r.skills[0].path = sc_xstrdup("skills/s");
	r.skills[0].status = SC_SKILL_MODIFIED;
	r.skills[0].gate_passed = false;
	r.gate.failures = sc_xcalloc(1, sizeof(*r.gate.failures));
	r.gate.nfailures = 1;
	r.gate.failures[0].skill = sc_xstrdup("skills/s");
	r.gate.failures[0].model = sc_xstrdup("m");
	r.gate.failures[0].rule = sc_xstrdup("pass_rate_drop");
	r.gate.failures[0].check = SC_CHECK_PASS_RATE;
	r.gate.failures[0].message = sc_xstrdup("pass rate fell from 67% to 33%, a long explanation");
	r.gate.failures[0].status = SC_STATUS_FAILED;
	r.gate.verdict = SC_VERDICT_FAIL;
	r.gate.checks = sc_xcalloc(1, sizeof(*r.gate.checks));
	r.gate.nchecks = 1;
	r.gate.checks[0].skill = sc_xstrdup("skills/s");
	r.gate.checks[0].model = sc_xstrdup("m");
	r.gate.checks[0].check = SC_CHECK_PASS_RATE;
	r.gate.checks[0].status = SC_STATUS_FAILED;
	r.gate.checks[0].rule = sc_xstrdup("pass_rate_drop");
	r.gate.checks[0].message = sc_xstrdup("pass rate fell from 67% to 33%, a long explanation");
	for (int run = 0; run < 3; run++) {
		add_unit(&r, "base", 0, run, "pass", NULL);
		add_unit(&r, "head", 0, run, "fail", run == 1 ? "<script>|x @team" : NULL);
		add_unit(&r, "base", 1, run, run ? "fail" : "pass", NULL);
		add_unit(&r, "head", 1, run, "fail", "nope");
		add_unit(&r, "base", 2, run, "fail", NULL);
		add_unit(&r, "head", 2, run, "fail", "nope");
		add_unit(&r, "base", 9, run, "pass", NULL);
		add_unit(&r, "head", 9, run, "pass", NULL);
	}
	sc_results_sort(&r);
	sc_report_md_full(&md, &r);
	/* the table: the verdict first, the long message not in it */
	assert_non_null(strstr(md.ptr, "| ❌ **fail**<br><sub>pass rate</sub> | <code>skills/s</code>"));
	assert_null(strstr(strstr(md.ptr, "| ❌ **fail**"), "a long explanation |"));
	reg = strstr(md.ptr, "**Regressed** (pass at base, fail at head): 1 test\n");
	already = strstr(md.ptr, "**Already failing** (fail at base too, not brought by this change): 1 test\n");
	details = strstr(md.ptr, "### Details");
	assert_non_null(reg);
	assert_non_null(already);
	assert_non_null(details);
	assert_true(strstr(md.ptr, "a long explanation") < reg);
	assert_true(reg < already && already < details);
	assert_non_null(strstr(reg, "- ❌ <code>tests\\[1\\]</code> prompt 0: 0 of 3 runs passed; fail (wrong\\_answer): "
				     "answer lacks 'ok' — base passed 3 of 3\n"
				     "  - answer (run 2): <q>&lt;script&gt;&#124;x @&#8203;team</q>\n"));
	/* one item per test, not one per run */
	assert_int_equal(count(md.ptr, "prompt 0:"), 2);   /* what failed, details */
	/* each label from the test's own runs: 3/3 -> 0/3 regressed, 0/3 ->
	 * 0/3 already failing, 1/3 -> 0/3 neither (its runs are said) */
	assert_true(strstr(already, "<code>tests\\[3\\]</code> prompt 2: 0 of 3 runs passed") < details);
	mixed = strstr(md.ptr, "**Failed at head** (some runs passed at base; the runs show neither a "
			       "regression nor an old failure): 1 test\n");
	assert_non_null(mixed);
	assert_true(reg < mixed && mixed < already);
	assert_non_null(strstr(mixed, "- ❌ <code>tests\\[2\\]</code> prompt 1: 0 of 3 runs passed; fail "
				       "(wrong\\_answer): answer lacks 'ok' — base 1/3 → head 0/3\n"));
	assert_true(strstr(mixed, "<code>tests\\[2\\]</code>") < already);
	/* the details: natural order, each test's runs together */
	t2 = strstr(details, "<code>tests\\[2\\]</code>");
	t10 = strstr(details, "<code>tests\\[10\\]</code> prompt 9: 3 of 3 runs passed");
	assert_non_null(t2);
	assert_non_null(t10);
	assert_true(t2 < t10);
	assert_non_null(strstr(details, "(head): 4 tests × 3 runs: 1 passed, 1 regressed, 1 already failing, "
				       "1 failed at head, passed at base in some runs"));
	assert_non_null(strstr(details, "prompt 2: 0 of 3 runs passed; fail (wrong\\_answer): answer lacks 'ok' — "
					"already failing, base passed 0 of 3"));
	assert_non_null(strstr(details, "prompt 1: 0 of 3 runs passed; fail (wrong\\_answer): answer lacks 'ok' — "
					"base 1/3 → head 0/3"));
	sc_results_release(&r);
	sc_buf_release(&md);
}

/* Links to the CI run only when GitHub's variables say where it is; the
 * report is otherwise the same. */
static void test_links_from_github_variables(void **state)
{
	struct sc_results r;
	struct sc_buf url = SC_BUF_INIT, with = SC_BUF_INIT, without = SC_BUF_INIT;
	struct sc_md_options o = { 0, NULL, NULL };
	(void)state;

	unsetenv("GITHUB_SERVER_URL");
	setenv("GITHUB_REPOSITORY", "example/skills", 1);
	setenv("GITHUB_RUN_ID", "4242", 1);
	assert_false(sc_report_md_run_url(&url));
	setenv("GITHUB_SERVER_URL", "https://github.example.com/", 1);
	assert_true(sc_report_md_run_url(&url));
	assert_string_equal(url.ptr, "https://github.example.com/example/skills/actions/runs/4242");
	setenv("GITHUB_RUN_ID", "42x", 1);
	sc_buf_clear(&url);
	assert_false(sc_report_md_run_url(&url));
	setenv("GITHUB_RUN_ID", "4242", 1);
	setenv("GITHUB_REPOSITORY", "example/skills)[x](y", 1);
	assert_false(sc_report_md_run_url(&url));
	setenv("GITHUB_REPOSITORY", "example/skills", 1);
	assert_true(sc_report_md_run_url(&url));
	unsetenv("GITHUB_SERVER_URL");
	unsetenv("GITHUB_REPOSITORY");
	unsetenv("GITHUB_RUN_ID");

	make_run(&r, 1, "run");
	sc_report_md(&without, &r, &o);
	o.run_url = url.ptr;
	sc_report_md(&with, &r, &o);
	assert_null(strstr(without.ptr, "Evidence"));
	assert_non_null(strstr(with.ptr, "**Evidence:** [workflow run](https://github.example.com/example/skills/actions/runs/4242)"
				      " · [artifacts](https://github.example.com/example/skills/actions/runs/4242#artifacts)"));
	sc_results_release(&r);
	sc_buf_release(&url);
	sc_buf_release(&with);
	sc_buf_release(&without);
}

/* Compile-only kernel tests: why the runner has no GPU is said once, not
 * on every test's line. */
static void test_no_gpu_reason_once(void **state)
{
	static const char why[] = "no GPU: compile-only (libcuda.so.1: cannot open shared object file)";
	struct sc_results r;
	struct sc_buf md = SC_BUF_INIT, msg = SC_BUF_INIT;
	(void)state;

	sc_buf_printf(&msg, "compiled for sm_90 (32 registers, 0 bytes spilled); correctness and speed "
		      "not checked: %s", why);
	sc_results_init(&r);
	r.run.kind = SC_RUN_KIND_RUN;
	r.skills = sc_xcalloc(1, sizeof(*r.skills));
	r.nskills = 1;
	r.skills[0].path = sc_xstrdup("skills/s");
	r.skills[0].status = SC_SKILL_MODIFIED;
	r.skills[0].gate_passed = true;
	r.gate.passed = true;
	for (int t = 0; t < 3; t++)
		for (int run = 0; run < 2; run++) {
			add_unit(&r, "head", t, run, "skipped", NULL);
			r.units[r.nunits - 1].message = sc_xstrdup(msg.ptr);
		}
	sc_results_sort(&r);
	sc_report_md_full(&md, &r);
	assert_int_equal(count(md.ptr, "libcuda.so.1"), 1);
	assert_non_null(strstr(md.ptr, "> **Kernels compiled, not run:** correctness and speed not checked: "
				       "no GPU: compile-only (libcuda.so.1: cannot open shared object file)."));
	assert_int_equal(count(md.ptr, "correctness and speed not checked: (no GPU: the reason is above the table)"), 3);
	assert_true(strstr(md.ptr, "Kernels compiled, not run") < strstr(md.ptr, "| gate |"));
	sc_results_release(&r);
	sc_buf_release(&md);
	sc_buf_release(&msg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_md_text_escapes_html_markdown_and_pipes),
		cmocka_unit_test(test_urls_are_inert),
		cmocka_unit_test(test_fence_outgrows_backticks_inside),
		cmocka_unit_test(test_number_formats),
		cmocka_unit_test(test_bar),
		cmocka_unit_test(test_300_skills_fit_and_keep_every_row),
		cmocka_unit_test(test_layouts_and_banners),
		cmocka_unit_test(test_combine_marks_added_deleted_and_diffs),
		cmocka_unit_test(test_labels_and_natural_order),
		cmocka_unit_test(test_regressed_and_already_failing),
		cmocka_unit_test(test_links_from_github_variables),
		cmocka_unit_test(test_no_gpu_reason_once),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
