#ifndef SC_REPORT_JUNIT_H
#define SC_REPORT_JUNIT_H
/*
 * JUnit XML (DESIGN.md, Reports; docs/reports.md), written by its own
 * writer: the bytes libxml2 2.9's text writer wrote (two-space indent,
 * its escaping; tests/unit/test_report_github.c). The JUnit is the gate's
 * verdict: one <testsuite> per changed skill, a <testcase> per gate check
 * (r->gate.checks) that fails exactly when the gate failed it, and one per
 * head test and run that fails only when the test regressed and the gate
 * failed the pass rate; other outcomes are passed or skipped with the
 * reason, base and baseline outcomes are suite properties. The total of
 * <failure> elements is 0 if and only if r->gate.passed. Tokens, turns and
 * speedups are in <system-out> as key=value lines, since GitHub's JUnit
 * readers ignore properties.
 *
 * By default the output validates against the Jenkins JUnit schema
 * (junit-10.xsd). With file_attrs, each <testcase> also gets file and line
 * attributes and its own properties, which some readers use; that schema
 * does not allow them.
 */
#include <stdbool.h>

struct sc_buf;
struct sc_results;

struct sc_junit_options {
	bool file_attrs;
};

/* Appends the JUnit document for r to out. Text that XML 1.0 cannot hold
 * (control characters, invalid UTF-8) is replaced; long messages and
 * outputs are trimmed with a note. Returns 0. */
int sc_report_junit(struct sc_buf *out, const struct sc_results *r, const struct sc_junit_options *opt);
/* The same document written to path, atomically (the suites are held as
 * text until the root's totals are known, each suite built once). SC_EIO
 * naming the path when it cannot be written. */
int sc_report_junit_save(const char *path, const struct sc_results *r,
			 const struct sc_junit_options *opt);

/* Appends s with every character XML 1.0 forbids replaced by U+FFFD
 * (invalid UTF-8 too), so the writer can escape the rest. */
void sc_report_xml_clean(struct sc_buf *out, const char *s);

#endif
