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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape_data_and_properties),
		cmocka_unit_test(test_output_plain_and_heredoc),
		cmocka_unit_test(test_delimiter_is_random_hex),
		cmocka_unit_test(test_annotations_are_capped),
		cmocka_unit_test(test_xml_clean_replaces_forbidden_characters),
		cmocka_unit_test(test_junit_escaping_and_layout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
