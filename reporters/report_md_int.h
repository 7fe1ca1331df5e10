#ifndef SC_REPORT_MD_INT_H
#define SC_REPORT_MD_INT_H
/*
 * What the parts of the Markdown report share (report_md.c the summary,
 * the footer and the assembly; report_md_trust.c what the pull request
 * tried; report_md_details.c each row's tests and each skill's
 * findings): the view of a row, and the sections the assembly calls.
 * Private to reporters/report_md*.c.
 */
#include "common.h"
#include "results/results.h"
#include "results/verdict.h"

struct sc_buf;

/* One summary row: a row of the verdict model (results/verdict.h) and how
 * it is drawn. */
struct row {
	const struct sc_verdict_row *v;
	const struct sc_verdicts *all;   /* the model the row is of */
	const struct sc_results_skill *skill;
	const char *model;   /* NULL: the skill has no model results (deleted, untested, ...) */
	bool first;          /* the skill's first row */
	bool brief;          /* the compact gate cell (the summary over the size bound) */
};

struct rows {
	struct row *v;
	size_t n;
	struct sc_verdicts verdicts;
};

static inline bool md_is_eval(const struct sc_results *r)
{
	return r->run.kind == SC_RUN_KIND_EVAL;
}

/* A compile-only kernel unit's message ends with why the runner has no GPU
 * ("...; correctness and speed not checked: no GPU: compile-only
 * (libcuda.so.1: cannot open ...)"): where that reason starts, or NULL. */
static inline const char *md_no_gpu_reason(const char *message)
{
	static const char marker[] = "correctness and speed not checked: ";
	const char *at = message ? strstr(message, marker) : NULL;

	return at && at[sizeof(marker) - 1] ? at + sizeof(marker) - 1 : NULL;
}

/* A check as the Markdown names it: "pass rate", else its results name. */
static inline const char *md_check_name(enum sc_check_kind check)
{
	return check == SC_CHECK_PASS_RATE ? "pass rate" : sc_check_kind_name(check);
}

/* Error findings of a skill by state. */
static inline void md_count_findings(const struct sc_results_skill *s, size_t *fresh,
				     size_t *existing, size_t *fixed)
{
	*fresh = *existing = *fixed = 0;
	for (size_t i = 0; i < s->nfindings; i++) {
		const struct sc_results_finding *f = &s->findings[i];
		if (f->severity != SC_SEV_ERROR)
			continue;
		*fresh += f->state == SC_FINDING_NEW;
		*existing += f->state == SC_FINDING_EXISTING;
		*fixed += f->state == SC_FINDING_FIXED;
	}
}

/* The words of a state: "fail", "unverified", "could not check", "pass". */
static inline const char *md_verdict_word(enum sc_verdict v)
{
	return sc_verdict_word(v, SC_RUN_KIND_RUN);
}

/* The banners of a run whose head changed the configuration or tried
 * something else that was refused (report_md_trust.c). */
void sc_md_trust(struct sc_buf *out, const struct sc_results *r);
/* The pull request's own tests: which skills' tests it edits and how the
 * head did on them (report_md_trust.c). */
void sc_md_pr_tests(struct sc_buf *out, const struct sc_results *r);
/* A row's failure details (report_md_details.c): the full form into full,
 * one line into compact. */
void sc_md_failure(struct sc_buf *full, struct sc_buf *compact, const struct sc_results *r,
		   const struct row *row);
/* A skill's findings (report_md_details.c). */
void sc_md_findings(struct sc_buf *full, struct sc_buf *compact,
		    const struct sc_results_skill *s);
/* A row's tests, grouped by test (report_md_details.c). */
void sc_md_details(struct sc_buf *full, struct sc_buf *compact, const struct sc_results *r,
		   const struct row *row);

#endif
