#ifndef SC_REPORT_MD_H
#define SC_REPORT_MD_H
/*
 * The Markdown report (DESIGN.md, Reports; docs/reports.md): a verdict
 * line, one summary row per changed skill × model (one row for a skill
 * with no results: deleted, untested, unreadable) holding the gate's
 * verdict and reason for it, findings and per-test details in <details>,
 * and a footer saying where and how the numbers were made.
 *
 * Two layouts, chosen by run.kind: "run" (a PR check) compares base → head
 * with the lift over no skill; "eval" (one revision) compares no skill
 * (baseline) with the skill (head). Output is deterministic: rows follow
 * skill path then model name, details the same order, numbers fixed
 * formats. The report reads results only.
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_buf;
struct sc_results;

/* GitHub's limit on a comment body, in characters. */
#define SC_REPORT_MD_COMMENT_LIMIT 65536

struct sc_md_options {
	/* Upper bound on the report's size in bytes (so also in characters);
	 * 0 means no bound. Details are shortened, then dropped, to fit; the
	 * summary table is always kept whole. */
	size_t max_bytes;
	/* Where the full report is (a path or URL), named in the note that
	 * says details were shortened. NULL: "the full report". */
	const char *full_report;
	/* The CI run that made the report (a URL), linked with its artifacts
	 * under the verdict; NULL: no links (sc_report_md_run_url). */
	const char *run_url;
};

/* The URL of the GitHub Actions run from GITHUB_SERVER_URL,
 * GITHUB_REPOSITORY and GITHUB_RUN_ID (server/owner/name/actions/runs/ID)
 * into out; false, out untouched, when one is unset or not of its form. */
bool sc_report_md_run_url(struct sc_buf *out);

/* Appends the report of r to out, bounded by opt (NULL: no bound). */
void sc_report_md(struct sc_buf *out, const struct sc_results *r, const struct sc_md_options *opt);
/* Appends the full report, never shortened. */
void sc_report_md_full(struct sc_buf *out, const struct sc_results *r);
/* A one-sentence verdict without Markdown ("gate passed: ...", "gate
 * failed: 1 of 2 changed skills failed (skills/x)"), for the terminal and
 * GitHub outputs. */
void sc_report_verdict_text(struct sc_buf *out, const struct sc_results *r);

#endif
