#ifndef SC_REPORT_JUNIT_H
#define SC_REPORT_JUNIT_H
/*
 * JUnit XML (DESIGN.md, Reports), written with libxml2; this is the only
 * file that includes libxml2. One <testsuite> per skill × model × variant,
 * one <testcase> per test and run: <failure> for a wrong answer, <error>
 * for an infrastructure fault, <skipped> with a reason. Suite properties
 * carry the aggregate (pass rate, mean tokens and turns, speedup geomean);
 * each case's tokens, turns and speedup are in its <system-out>, since
 * GitHub's JUnit readers ignore properties.
 *
 * By default the output validates against the Jenkins JUnit schema
 * (junit-10.xsd). With file_attrs, each <testcase> also gets file and line
 * attributes, which some readers use for annotations; that schema does not
 * allow them.
 */
#include <stdbool.h>

struct sc_buf;
struct sc_results;

struct sc_junit_options {
	bool file_attrs;
};

/* Appends the JUnit document for r to out. Text that XML 1.0 cannot hold
 * (control characters, invalid UTF-8) is replaced; long messages and
 * outputs are trimmed with a note. Returns 0, or SC_ERROR when libxml2
 * fails. */
int sc_report_junit(struct sc_buf *out, const struct sc_results *r, const struct sc_junit_options *opt);

/* Appends s with every character XML 1.0 forbids replaced by U+FFFD
 * (invalid UTF-8 too), so libxml2 can escape the rest. */
void sc_report_xml_clean(struct sc_buf *out, const char *s);

#endif
