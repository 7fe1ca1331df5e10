#ifndef SC_REPORTS_H
#define SC_REPORTS_H
/*
 * Every report of one results model, written by one function for the
 * commands that produce results (`run`, `merge`) and the one that renders
 * them (`report`): the JUnit, the Markdown (short, and full), the HTML page
 * and the index page with the history, the results JSON, the terminal
 * summary and, in GitHub Actions, the annotations, the step summary and
 * the step outputs. Each file is written atomically; the JUnit and the
 * results JSON go straight to their files a piece at a time, so the
 * memory of writing them does not grow with the number of units.
 *
 * The pull-request comment is not written here (it needs the GitHub API):
 * the caller posts comment_md when it asked for it.
 *
 * Ownership: everything in the options is borrowed.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct sc_buf;
struct sc_results;

struct sc_reports {
	/* files to write; NULL: not written */
	const char *junit, *markdown, *markdown_full, *json;
	const char *html_dir;          /* DIR/report.html and DIR/index.html */
	bool junit_file_attrs;
	/* more history for index.html: results files, and a store location */
	const char *const *history_files;
	size_t nhistory;
	const char *store;
	/* the terminal summary goes here (NULL: nowhere) */
	FILE *term;
	bool colour;
	/* GitHub Actions: annotations and log groups on term, the step summary
	 * ($GITHUB_STEP_SUMMARY) and outputs ($GITHUB_OUTPUT) */
	bool github;
	/* filled when not NULL: the Markdown for the pull-request comment, at
	 * most comment_max bytes (the verdict alone when even the summary
	 * table is longer) */
	struct sc_buf *comment_md;
	size_t comment_max;
};

/*
 * Writes every report opt names for r. Returns 0, or the first error (the
 * message names the file): SC_EIO for a file that cannot be written,
 * SC_EINVAL or SC_ENOTFOUND for a history file or store that cannot be
 * read. Reports written before an error stay written.
 */
int sc_reports_write(const struct sc_results *r, const struct sc_reports *opt);

#endif
