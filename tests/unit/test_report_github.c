/* Unit tests for the GitHub Actions reporter (reporters/report_github.c)
 * and the JUnit text cleaner: workflow-command escaping, $GITHUB_OUTPUT
 * syntax, the annotation cap. */
#include "unit.h"
#include "results/results.h"
#include "reporters/report_github.h"
#include "reporters/report_junit.h"

#include <libxml/parser.h>
#include <libxml/tree.h>

static void test_escape_data_and_properties(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	sc_report_gh_escape_data(&b, "100% done\r\nnext: a, b");
	assert_string_equal(b.ptr, "100%25 done%0D%0Anext: a, b");
	sc_buf_clear(&b);
	sc_report_gh_escape_property(&b, "skills/a:b,c%\nd");
	assert_string_equal(b.ptr, "skills/a%3Ab%2Cc%25%0Ad");
	sc_buf_release(&b);
}

static void test_output_plain_and_heredoc(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	assert_int_equal(sc_report_gh_output(&b, "verdict", "pass", "D"), 0);
	assert_int_equal(sc_report_gh_output(&b, "summary", "line 1\nline 2", "ghadelimiter_x"), 0);
	assert_string_equal(b.ptr, "verdict=pass\nsummary<<ghadelimiter_x\nline 1\nline 2\nghadelimiter_x\n");
	assert_int_equal(sc_report_gh_output(&b, "bad", "a\nghadelimiter_x\nb", "ghadelimiter_x"), SC_EINVAL);
	assert_int_equal(sc_report_gh_output(&b, "bad name", "v", "D"), SC_EINVAL);
	sc_buf_release(&b);
}

static void test_delimiter_is_random_hex(void **state)
{
	struct sc_buf a = SC_BUF_INIT, b = SC_BUF_INIT;
	(void)state;

	sc_report_gh_delimiter(&a);
	sc_report_gh_delimiter(&b);
	assert_true(sc_starts_with(a.ptr, "ghadelimiter_"));
	assert_int_equal(a.len, strlen("ghadelimiter_") + 32);
	assert_int_equal(strspn(a.ptr + 13, "0123456789abcdef"), 32);
	assert_string_not_equal(a.ptr, b.ptr);
	sc_buf_release(&a);
	sc_buf_release(&b);
}

static void test_annotations_are_capped(void **state)
{
	struct sc_results r;
	struct sc_buf b = SC_BUF_INIT;
	size_t lines = 0;
	(void)state;

	sc_results_init(&r);
	r.gate.passed = false;
	r.gate.failures = sc_xcalloc(15, sizeof(*r.gate.failures));
	for (size_t i = 0; i < 15; i++) {
		struct sc_buf s = SC_BUF_INIT;
		sc_buf_printf(&s, "skills/s%zu", i);
		r.gate.failures[i].skill = sc_buf_detach(&s, NULL);
		r.gate.failures[i].status = SC_STATUS_FAILED;
		r.gate.failures[i].rule = sc_xstrdup("pass_rate_drop");
		r.gate.failures[i].message = sc_xstrdup("fell 50%\nbadly");
		r.gate.nfailures++;
	}
	/* the count is of the annotations written: GitHub shows no more */
	assert_int_equal(sc_report_gh_annotations(&b, &r), SC_REPORT_MAX_ANNOTATIONS);
	for (const char *p = b.ptr; (p = strstr(p, "::error ")); p++)
		lines++;
	assert_int_equal(lines, SC_REPORT_MAX_ANNOTATIONS);
	assert_true(sc_starts_with(b.ptr, "::error file=skills/s0,title=skillci%3A skills/s0 failed the gate (pass_rate_drop)::fell 50%25%0Abadly\n"));
	sc_results_release(&r);
	sc_buf_release(&b);
}

static void test_xml_clean_replaces_forbidden_characters(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	sc_report_xml_clean(&b, "a\x01" "b\tc\xff" "d\xc3\xa9\xef\xbf\xbe");
	assert_string_equal(b.ptr, "a\xef\xbf\xbd" "b\tc\xef\xbf\xbd" "d\xc3\xa9\xef\xbf\xbd");
	sc_buf_release(&b);
}

/* The first element named name under node, depth first. */
static xmlNodePtr find_element(xmlNodePtr node, const char *name)
{
	for (; node; node = node->next) {
		xmlNodePtr found;
		if (node->type == XML_ELEMENT_NODE && !strcmp((const char *)node->name, name))
			return node;
		if ((found = find_element(node->children, name)))
			return found;
	}
	return NULL;
}

/*
 * The JUnit writer escapes as libxml2's text writer did: in an attribute
 * the markup, the quote, tab and both line breaks as references; in text
 * the markup, the quote and CR; UTF-8 beyond ASCII as it is. The document
 * is indented by two spaces, an empty element closed in its start tag.
 */
static void test_junit_escaping_and_layout(void **state)
{
	static const char json[] =
		"{\"schema\": \"skillci.results/1\", \"run\": {\"id\": \"r\", \"kind\": \"run\", \"complete\": true},\n"
		" \"skills\": [{\"path\": \"skills/a\", \"status\": \"modified\"}],\n"
		" \"gate\": {\"passed\": false, \"exit_code\": 1, \"verdict\": \"fail\",\n"
		"  \"failures\": [{\"skill\": \"skills/a\", \"rule\": \"skill_invalid\", \"check\": \"validity\",\n"
		"                \"message\": \"\\u00e9 <a&b> \\\"q\\\" 'x'\\tt\\nn\\rr\"}],\n"
		"  \"checks\": [{\"skill\": \"skills/a\", \"check\": \"validity\", \"status\": \"failed\",\n"
		"              \"rule\": \"skill_invalid\", \"message\": \"\\u00e9 <a&b> \\\"q\\\" 'x'\\tt\\nn\\rr\"}]}}";
	struct sc_results r;
	struct sc_buf xml = SC_BUF_INIT;
	struct sc_junit_options jo = { false };
	(void)state;

	assert_int_equal(sc_results_parse(&r, json, strlen(json), "j.json"), 0);
	assert_int_equal(sc_report_junit(&xml, &r, &jo), 0);
	assert_true(sc_starts_with(xml.ptr, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "));
	assert_non_null(strstr(xml.ptr, "\n  <testsuite name=\"skills/a\" "));
	assert_non_null(strstr(xml.ptr, "\n    <properties>\n      <property name=\""));
	assert_non_null(strstr(xml.ptr, "message=\"\xc3\xa9 &lt;a&amp;b&gt; &quot;q&quot; 'x'&#9;t&#10;n&#13;r\""));
	assert_non_null(strstr(xml.ptr, ">\xc3\xa9 &lt;a&amp;b&gt; &quot;q&quot; 'x'\tt\nn&#13;r"));
	assert_non_null(strstr(xml.ptr, "\"/>\n"));
	assert_true(sc_ends_with(xml.ptr, "\n  </testsuite>\n</testsuites>\n"));
	/* libxml2, an independent parser, reads the message back as it was */
	{
		xmlDocPtr doc = xmlReadMemory(xml.ptr, (int)xml.len, "junit.xml", NULL,
					      XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
		xmlNodePtr failure;
		xmlChar *message, *text;
		assert_non_null(doc);
		failure = find_element(xmlDocGetRootElement(doc), "failure");
		assert_non_null(failure);
		message = xmlGetProp(failure, (const xmlChar *)"message");
		text = xmlNodeGetContent(failure);
		assert_non_null(message);
		assert_string_equal((const char *)message, "\xc3\xa9 <a&b> \"q\" 'x'\tt\nn\rr");
		assert_non_null(strstr((const char *)text, "\xc3\xa9 <a&b> \"q\" 'x'\tt\nn\rr"));
		xmlFree(message);
		xmlFree(text);
		xmlFreeDoc(doc);
	}
	sc_buf_release(&xml);
	sc_results_release(&r);
}

/* A setup failure in one call: the annotation on out, the Markdown in md
 * and the step summary, the outputs with verdict error; a file that
 * cannot be written is a warning line, and the other is still written. */
static void test_setup_failure(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_buf md = SC_BUF_INIT, warn = SC_BUF_INIT, sum = SC_BUF_INIT, outs = SC_BUF_INIT;
	struct sc_buf got = SC_BUF_INIT, bad = SC_BUF_INIT;
	char ann[4096];
	FILE *out;
	(void)state;

	sc_path_join(&sum, dir, "summary.md");
	sc_path_join(&outs, dir, "output.txt");
	sc_path_join(&bad, dir, "no/such/folder/file");
	setenv("GITHUB_STEP_SUMMARY", sum.ptr, 1);
	setenv("GITHUB_OUTPUT", outs.ptr, 1);
	out = tmpfile();
	assert_non_null(out);
	assert_int_equal(sc_report_gh_setup_failure(out, &md, &warn, "ANTHROPIC_API_KEY is not set",
						    "set the key", 2), 0);
	rewind(out);
	assert_non_null(fgets(ann, sizeof(ann), out));
	assert_string_equal(ann, "::error title=skillci run could not check this pull request::"
			    "ANTHROPIC_API_KEY is not set. What to do: set the key\n");
	fclose(out);
	assert_int_equal(warn.len, 0);
	assert_non_null(strstr(md.ptr, "skillci could not check this pull request: "));
	assert_non_null(strstr(md.ptr, "(exit 2)"));
	assert_non_null(strstr(md.ptr, "**What to do:** set the key."));
	assert_int_equal(sc_read_file(&got, sum.ptr, 1 << 20), 0);
	assert_string_equal(got.ptr, md.ptr);
	sc_buf_clear(&got);
	assert_int_equal(sc_read_file(&got, outs.ptr, 1 << 20), 0);
	assert_non_null(strstr(got.ptr, "verdict=error\n"));
	assert_non_null(strstr(got.ptr, "passed=false\n"));
	assert_non_null(strstr(got.ptr, "exit_code=2\n"));
	assert_non_null(strstr(got.ptr, "complete=false\n"));
	assert_non_null(strstr(got.ptr, "summary=skillci could not check this pull request: "
			       "ANTHROPIC_API_KEY is not set; set the key\n"));
	assert_non_null(strstr(got.ptr, "markdown_summary<<ghadelimiter_"));
	/* neither file can be written: two warnings, the annotation still out */
	setenv("GITHUB_STEP_SUMMARY", bad.ptr, 1);
	setenv("GITHUB_OUTPUT", bad.ptr, 1);
	sc_buf_clear(&md);
	out = tmpfile();
	assert_true(sc_report_gh_setup_failure(out, &md, &warn, "m", "h", 3) < 0);
	assert_true(ftell(out) > 0);
	fclose(out);
	assert_non_null(strchr(warn.ptr, '\n'));
	assert_non_null(strchr(strchr(warn.ptr, '\n') + 1, '\n'));
	assert_non_null(strstr(warn.ptr, "no/such/folder/file"));
	/* unset or empty: nothing written, no warning */
	setenv("GITHUB_STEP_SUMMARY", "", 1);
	unsetenv("GITHUB_OUTPUT");
	sc_buf_clear(&md);
	sc_buf_clear(&warn);
	out = tmpfile();
	assert_int_equal(sc_report_gh_setup_failure(out, &md, &warn, "m", "h", 3), 0);
	fclose(out);
	assert_int_equal(warn.len, 0);
	unsetenv("GITHUB_STEP_SUMMARY");
	sc_buf_release(&md);
	sc_buf_release(&warn);
	sc_buf_release(&sum);
	sc_buf_release(&outs);
	sc_buf_release(&got);
	sc_buf_release(&bad);
	sc_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_data_and_properties),
		cmocka_unit_test(test_output_plain_and_heredoc),
		cmocka_unit_test(test_delimiter_is_random_hex),
		cmocka_unit_test(test_annotations_are_capped),
		cmocka_unit_test(test_setup_failure),
		cmocka_unit_test(test_xml_clean_replaces_forbidden_characters),
		cmocka_unit_test(test_junit_escaping_and_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
