#ifndef SC_REPORT_GITHUB_H
#define SC_REPORT_GITHUB_H
/*
 * GitHub Actions integration: workflow commands on stdout (annotations,
 * groups), step outputs for $GITHUB_OUTPUT and the step summary for
 * $GITHUB_STEP_SUMMARY. Builders here append to buffers and files; the
 * command decides when to use them (GITHUB_ACTIONS=true).
 */
#include <stddef.h>
#include <stdio.h>

struct sc_buf;
struct sc_results;

/* Workflow-command escaping (escape.h, sc_escape_gh_data/_property): data
 * ("::error ...::DATA") escapes % CR LF as %25 %0D %0A; properties
 * ("file=...,title=...") also : and , as %3A %2C; in both every other
 * control byte, C1 control and ESC sequence is written as text. */
void sc_report_gh_escape_data(struct sc_buf *out, const char *s);
void sc_report_gh_escape_property(struct sc_buf *out, const char *s);

/*
 * Appends one "::error file=…,title=…::message" line per gate failure (and
 * per skill whose own gate failed without a listed failure), at most
 * SC_REPORT_MAX_ANNOTATIONS. Returns how many regressions were found in
 * all (more than written when capped).
 */
size_t sc_report_gh_annotations(struct sc_buf *out, const struct sc_results *r);

/* Sets out to a fresh random heredoc delimiter "ghadelimiter_<32 hex>". */
void sc_report_gh_delimiter(struct sc_buf *out);

/*
 * Appends name=value to out in $GITHUB_OUTPUT syntax: a plain line for a
 * one-line value, a heredoc "name<<DELIM\nvalue\nDELIM" for anything
 * holding a line break. SC_EINVAL when the value contains delim (the caller
 * picks a new one) or the name is not [A-Za-z0-9_-]+.
 */
int sc_report_gh_output(struct sc_buf *out, const char *name, const char *value, const char *delim);

/* Report paths written this run, for the outputs (NULL when not written). */
struct sc_gh_paths {
	const char *junit, *markdown, *html, *json;
};

/*
 * Appends every output of a report: verdict (pass/fail), passed
 * (true/false), exit_code (the gate's), summary (the verdict sentence),
 * regressions, pass_rate_baseline / _base / _head (units pooled over all
 * skills and models, "" when the variant is absent), oracle, complete,
 * the report paths and markdown_summary (the short Markdown, multi-line).
 */
int sc_report_gh_outputs(struct sc_buf *out, const struct sc_results *r,
			 const struct sc_gh_paths *paths, const char *md, const char *delim);

/*
 * A run that stopped before its verdict (a setup failure: msg, what to do:
 * hint, from its cause (error.h, sc_cause_hint), its exit code rc),
 * rendered in GitHub Actions where a reviewer looks, paths from the
 * environment: the ::error annotation line on out (stdout; flushed), the
 * Markdown ("🛑 skillci could not check this pull request: MSG", what to
 * do, nothing judged) appended to md (the sticky comment's body, which the
 * command posts) and to $GITHUB_STEP_SUMMARY, and the outputs (verdict
 * error, passed false, exit_code, summary, complete false,
 * markdown_summary) to $GITHUB_OUTPUT; an unset or empty variable: that
 * file is not written. A file that cannot be written adds its error's
 * message as a line to warnings, and the other is still written. Returns
 * 0, or the first such error.
 */
int sc_report_gh_setup_failure(FILE *out, struct sc_buf *md, struct sc_buf *warnings,
			       const char *msg, const char *hint, int rc);

/* Appends data to the file at path (created if missing), as GitHub's
 * runner expects for $GITHUB_OUTPUT and $GITHUB_STEP_SUMMARY, through the
 * writer layer (output.h: secrets redacted). */
int sc_report_gh_append_file(const char *path, const char *data, size_t len);
/* The same for the step summary: md escaped by sc_escape_gh_summary(). */
int sc_report_gh_append_summary(const char *path, const char *md, size_t len);

#endif
