/* Unit tests for the pure parts of generate: finding JSON in an answer,
 * parsing the skill and the tests, SKILL.md and skill_meta.json as
 * upskill writes them, traces, failure descriptions, keeping the best. */
#include "unit.h"
#include "states.h"
#include "diag.h"
#include "teacher/generate.h"
#include "results/results.h"
#include "skills/skill.h"
#include "skills/testsuite.h"

#include <math.h>

static void test_extract_fenced_bare_and_none(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	/* a fenced block wins over braces in the prose before it */
	assert_int_equal(sc_gen_extract_json(&b, "Use {x} here:\n```json\n{\"a\": 1}\n```\nbye"), 0);
	assert_string_equal(b.ptr, "{\"a\": 1}\n");
	sc_buf_clear(&b);
	/* a fence whose content is not JSON is skipped for the next one */
	assert_int_equal(sc_gen_extract_json(&b, "```\nnot json\n```\n```json\n[1]\n```"), 0);
	assert_string_equal(b.ptr, "[1]\n");
	sc_buf_clear(&b);
	/* bare JSON with prose, braces inside strings */
	assert_int_equal(sc_gen_extract_json(&b, "Sure! {\"b\": \"a } brace\"} Done."), 0);
	assert_string_equal(b.ptr, "{\"b\": \"a } brace\"}");
	sc_buf_clear(&b);
	assert_int_equal(sc_gen_extract_json(&b, "no json here"), SC_EPARSE);
	assert_string_equal(sc_error_last(), "no JSON object in the answer");
	assert_int_equal(sc_gen_extract_json(&b, "{\"a\": oops"), SC_EPARSE);
	assert_non_null(strstr(sc_error_last(), "does not parse"));
	assert_int_equal(b.len, 0);
	sc_buf_release(&b);
}

static void test_parse_skill(void **state)
{
	struct sc_gen_draft d;
	(void)state;

	assert_int_equal(sc_gen_parse_skill(&d, "{\"name\": \"x-y\", \"description\": \"D\", "
					     "\"body\": \"B\\nline\", \"references\": "
					     "{\"references/a.md\": \"A\", \"b.md\": \"B\"}}"), 0);
	assert_string_equal(d.name, "x-y");
	assert_string_equal(d.body, "B\nline");
	assert_int_equal(d.nrefs, 2);
	assert_string_equal(d.refs[0].name, "a.md");  /* leading references/ dropped */
	assert_string_equal(d.refs[1].content, "B");
	sc_gen_draft_release(&d);

	/* list form of references */
	assert_int_equal(sc_gen_parse_skill(&d, "{\"name\": \"x\", \"description\": \"D\", \"body\": "
					     "\"B\", \"references\": [{\"path\": \"p.md\", "
					     "\"content\": \"P\"}]}"), 0);
	assert_string_equal(d.refs[0].name, "p.md");
	sc_gen_draft_release(&d);

	assert_int_equal(sc_gen_parse_skill(&d, "{\"name\": \"x\", \"body\": \"B\"}"), SC_EPARSE);
	assert_string_equal(sc_error_last(), "the JSON object lacks the string field 'description'");
	sc_gen_draft_release(&d);
	assert_int_equal(sc_gen_parse_skill(&d, "{\"name\": \"x\", \"description\": \"D\", \"body\": "
					     "\"B\", \"references\": {\"../etc/passwd\": \"x\"}}"),
			 SC_EPARSE);
	assert_non_null(strstr(sc_error_last(), "is refused"));
	sc_gen_draft_release(&d);
	assert_int_equal(sc_gen_parse_skill(&d, "{\"name\": \"x\", \"description\": \"D\", \"body\": "
					     "\"B\", \"references\": {\"a\": 1}}"), SC_EPARSE);
	sc_gen_draft_release(&d);
}

/* The one rule for file names from a model: each case one way to break it. */
static void test_name_rule(void **state)
{
	static const char *const good[] = { "notes.md", "a/b.md", "API_v2-notes.txt", "a.b.c",
					    "a/b/c/d.md", "x" };
	static const char *const bad[] = { "", "/etc/passwd", "../x", "a/../b", ".git/hooks/pre-commit",
					   "sub/.git/config", ".hidden", "a/.b", "a//b", "a/", "a\\b",
					   "a b.md", "a\x1b[2Jb", "a\nb", "caf\xc3\xa9.md",
					   "a/b/c/d/e.md", "a:b", "a\x7f" };
	struct sc_buf why = SC_BUF_INIT, longname = SC_BUF_INIT;

	(void)state;
	for (size_t i = 0; i < sizeof(good) / sizeof(*good); i++) {
		sc_buf_clear(&why);
		assert_true(sc_gen_name_ok(good[i], &why));
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		sc_buf_clear(&why);
		assert_false(sc_gen_name_ok(bad[i], &why));
		assert_true(why.len > 0);
	}
	for (int i = 0; i < SC_GEN_MAX_NAME_BYTES; i++)
		sc_buf_putc(&longname, 'n');
	assert_true(sc_gen_name_ok(longname.ptr, &why));
	sc_buf_putc(&longname, 'n');
	assert_false(sc_gen_name_ok(longname.ptr, &why));
	sc_buf_release(&why);
	sc_buf_release(&longname);
}

static void test_parse_cases(void **state)
{
	struct sc_gen_cases c = { 0 };
	struct sc_strlist known = { 0 };
	(void)state;

	sc_strlist_add(&known, "softmax");
	assert_int_equal(sc_gen_parse_cases(&c, "```json\n{\"cases\": [{\"input\": \"q\", "
					      "\"expected\": {\"contains\": \"one\"}}, "
					      "{\"fixture\": \"softmax\"}]}\n```", &known), 0);
	assert_int_equal(c.n, 2);
	assert_string_equal(c.items[0].contains.items[0], "one");
	assert_null(c.items[0].fixture);
	assert_string_equal(c.items[1].fixture, "softmax");
	/* an unknown fixture, or a case without expectations, fails the whole answer */
	assert_int_equal(sc_gen_parse_cases(&c, "[{\"fixture\": \"gemm\"}]", &known), SC_EPARSE);
	assert_non_null(strstr(sc_error_last(), "'gemm' is not one of the listed fixtures"));
	assert_int_equal(sc_gen_parse_cases(&c, "{\"cases\": [{\"input\": \"q\", \"expected\": "
					      "{\"contains\": [\"\"]}}]}", NULL), SC_EPARSE);
	assert_int_equal(sc_gen_parse_cases(&c, "{\"cases\": []}", NULL), SC_EPARSE);
	assert_int_equal(c.n, 2);  /* failed answers leave nothing behind */
	sc_gen_cases_release(&c);
	sc_strlist_release(&known);
}

/* The rendered SKILL.md passes skillci's own validation. */
static void test_render_validates(void **state)
{
	struct sc_gen_draft d;
	struct sc_buf md = SC_BUF_INIT;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_skill skill;
	char *dir = sc_test_mkdtemp();
	(void)state;

	memset(&d, 0, sizeof(d));
	memset(&skill, 0, sizeof(skill));
	d.name = sc_xstrdup("tricky");
	d.description = sc_xstrdup("Use when: the \"answer\" needs # marks");
	d.body = sc_xstrdup("# Body");
	sc_gen_render_skill_md(&md, &d);
	assert_string_equal(md.ptr, "---\nname: tricky\ndescription: \"Use when: the \\\"answer\\\" "
				    "needs # marks\"\n---\n\n# Body\n");
	sc_test_write(dir, "tricky/SKILL.md", md.ptr);
	sc_buf_clear(&md);
	sc_buf_printf(&md, "%s/tricky", dir);
	assert_int_equal(sc_skill_load(&skill, md.ptr, &diags, 0), 0);
	assert_int_equal(sc_diags_count(&diags, SC_SEV_ERROR), 0);
	assert_string_equal(skill.description, "Use when: the \"answer\" needs # marks");
	/* a plain description stays plain, as upskill writes it */
	free(d.description);
	d.description = sc_xstrdup("Write commit messages.");
	sc_buf_clear(&md);
	sc_gen_render_skill_md(&md, &d);
	assert_non_null(strstr(md.ptr, "\ndescription: Write commit messages.\n"));
	sc_skill_release(&skill);
	sc_diags_release(&diags);
	sc_gen_draft_release(&d);
	sc_buf_release(&md);
	sc_rm_rf(dir);
	free(dir);
}

static void test_meta_json_is_upskills(void **state)
{
	struct sc_gen_cases c = { 0 };
	struct sc_gen_meta m = { "anthropic.t", "2026-01-02T03:04:05Z", "t\u00e9", true, 0.75 };
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	SC_GROW(c.items, c.alloc, 1);
	memset(&c.items[0], 0, sizeof(c.items[0]));
	c.items[0].input = sc_xstrdup("q");
	sc_strlist_add(&c.items[0].contains, "a");
	c.items[0].fixture = sc_xstrdup("softmax");
	c.n = 1;
	sc_gen_meta_json(&b, &m, &c);
	assert_string_equal(b.ptr,
		"{\n"
		"  \"metadata\": {\n"
		"    \"version\": \"1.0\",\n"
		"    \"generated_by\": \"anthropic.t\",\n"
		"    \"generated_at\": \"2026-01-02T03:04:05Z\",\n"
		"    \"source_task\": \"t\\u00e9\",\n"
		"    \"test_pass_rate\": 0.75,\n"
		"    \"license\": null,\n"
		"    \"compatibility\": null\n"
		"  },\n"
		"  \"tests\": [\n"
		"    {\n"
		"      \"input\": \"q\",\n"
		"      \"context\": null,\n"
		"      \"expected\": {\n"
		"        \"contains\": [\n"
		"          \"a\"\n"
		"        ]\n"
		"      },\n"
		"      \"output_file\": null,\n"
		"      \"validator\": null,\n"
		"      \"validator_config\": null,\n"
		"      \"fixture\": \"softmax\"\n"
		"    }\n"
		"  ]\n"
		"}\n");
	sc_buf_clear(&b);
	m.has_test_pass_rate = true;
	m.test_pass_rate = 1.0;
	sc_gen_meta_json(&b, &m, NULL);
	assert_non_null(strstr(b.ptr, "\"test_pass_rate\": 1.0,"));  /* Python float */
	assert_non_null(strstr(b.ptr, "\"tests\": []"));
	sc_buf_release(&b);
	sc_gen_cases_release(&c);
}

static void test_trace_text(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	static const char jsonl[] = "{\"role\": \"user\", \"content\": \"hi\"}\n\n"
				    "{\"role\": \"assistant\", \"content\": [{\"type\": \"text\", "
				    "\"text\": \"ok\"}], \"tool_calls\": [{\"name\": \"ls\"}]}\n";
	char big[5000];
	(void)state;

	assert_int_equal(sc_gen_trace_text(&b, jsonl, strlen(jsonl), "t.jsonl", 10000), 0);
	assert_string_equal(b.ptr, "### user\n\nhi\n\n### assistant\n\nok\n\n"
				   "[tool calls: [{\"name\":\"ls\"}]]");
	sc_buf_clear(&b);
	assert_int_equal(sc_gen_trace_text(&b, "{\"x\": 1}", 8, "t.json", 100), SC_EINVAL);
	assert_int_equal(sc_gen_trace_text(&b, "{\"x\"\n", 5, "t.jsonl", 100), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "t.jsonl':1"));
	assert_int_equal(sc_gen_trace_text(&b, "\xff", 1, "t.md", 100), SC_EINVAL);
	/* Markdown over the bound keeps its start and end */
	memset(big, 'a', sizeof(big));
	big[0] = 'S';
	big[sizeof(big) - 1] = 'E';
	assert_int_equal(sc_gen_trace_text(&b, big, sizeof(big), "t.md", 1000), 0);
	assert_true(b.len < 1100);
	assert_int_equal(b.ptr[0], 'S');
	assert_int_equal(b.ptr[b.len - 1], 'E');
	assert_non_null(strstr(b.ptr, "[... 4000 bytes of the trace left out ...]"));
	sc_buf_release(&b);
}

static void test_failures_and_best(void **state)
{
	struct sc_results r;
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_strlist out = { 0 };
	struct sc_gen_attempt a, b;
	static const char *const verdicts[] = { "pass", "fail", "fail" };
	static const char *const variants[] = { "head", "head", "baseline" };
	(void)state;

	sc_results_init(&r);
	r.units = sc_xcalloc(3, sizeof(*r.units));
	r.nunits = 3;
	for (size_t i = 0; i < 3; i++) {
		sc_results_unit_init(&r.units[i]);
		r.units[i].skill = sc_xstrdup("s");
		r.units[i].variant = t_variant(variants[i]);
		r.units[i].model = sc_xstrdup("m");
		r.units[i].test_id = sc_xstrdup(i ? "t#1" : "t#0");
		r.units[i].verdict = t_unit_verdict(verdicts[i]);
		r.units[i].message = i ? sc_xstrdup("answer lacks 'x'") : NULL;
	}
	set.items = sc_xcalloc(2, sizeof(*set.items));
	set.n = 2;
	set.items[1].id = sc_xstrdup("t#1");
	set.items[1].input = sc_xstrdup("Q?");
	sc_strlist_add(&set.items[1].contains, "x");
	set.items[0].id = sc_xstrdup("t#0");
	sc_gen_failures(&out, &r, "m", &set);
	/* only the failed with-skill unit, in upskill's form */
	assert_int_equal(out.n, 1);
	assert_string_equal(out.items[0], "Input: Q? | Error: answer lacks 'x' | Expected: contains ['x']");

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	a.target_rate = 0.5;
	b.target_rate = 0.5;
	assert_false(sc_gen_attempt_better(&b, &a));  /* ties keep the earlier */
	b.target_rate = 0.6;
	assert_true(sc_gen_attempt_better(&b, &a));
	a.beneficial = true;
	assert_false(sc_gen_attempt_better(&b, &a));  /* beneficial beats a higher rate */
	b.target_rate = NAN;
	b.beneficial = false;
	a.beneficial = false;
	assert_false(sc_gen_attempt_better(&b, &a));

	sc_strlist_release(&out);
	sc_test_set_release(&set);
	sc_results_release(&r);
}

static void test_prompts(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	const char *ex[] = { "in -> out" };
	struct sc_strlist fx = { 0 };
	(void)state;

	sc_gen_prompt_skill(&b, "parse YAML", ex, 1, "TRACE", "yaml-x");
	assert_non_null(strstr(b.ptr, "Create a skill document that teaches an AI agent how to: parse YAML"));
	assert_non_null(strstr(b.ptr, "Example input/output pairs for this task:\n- in -> out"));
	assert_non_null(strstr(b.ptr, "<trace>\nTRACE\n</trace>"));
	assert_non_null(strstr(b.ptr, "The skill's name must be \"yaml-x\"."));
	sc_buf_clear(&b);
	sc_strlist_add(&fx, "softmax: Row softmax");
	sc_gen_prompt_tests(&b, "kernels", &fx);
	assert_non_null(strstr(b.ptr, "Generate 3-5 test cases"));
	assert_non_null(strstr(b.ptr, "- softmax: Row softmax\n"));
	sc_buf_clear(&b);
	sc_gen_prompt_tests(&b, "kernels", NULL);
	assert_null(strstr(b.ptr, "fixture"));
	sc_strlist_release(&fx);
	sc_buf_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extract_fenced_bare_and_none),
		cmocka_unit_test(test_parse_skill),
		cmocka_unit_test(test_name_rule),
		cmocka_unit_test(test_parse_cases),
		cmocka_unit_test(test_render_validates),
		cmocka_unit_test(test_meta_json_is_upskills),
		cmocka_unit_test(test_trace_text),
		cmocka_unit_test(test_failures_and_best),
		cmocka_unit_test(test_prompts),
	};
	return cmocka_run_group_tests_name("generate", tests, NULL, NULL);
}
