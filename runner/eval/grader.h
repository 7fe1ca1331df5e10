#ifndef SC_GRADER_H
#define SC_GRADER_H
/*
 * The grader (docs/tests-format.md, "Graded expectations"): a model named
 * in the trusted config (grader.model) that decides, per statement, whether
 * an answer meets a test's expectations (skill-creator's evals.json
 * "expectations", and "expected_output" as one more statement), with the
 * quoted evidence, as skill-creator's grader agent writes grading.json
 * ({"expectations": [{"text", "passed", "evidence"}]}).
 *
 * The grader's prompt gives the pull request no way to speak to it: the
 * instructions are fixed (sc_grader_system), the statements and the task
 * come from the test (in a PR check, the base's tests), and the answer is
 * quoted as data between markers named by the answer's own SHA-256, which
 * the answer cannot contain. A pass must quote the answer: a "passed"
 * whose evidence does not occur in the answer counts as failed.
 *
 * Ownership: a struct sc_grading owns its items and their strings.
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_buf;
struct sc_strlist;
struct sc_test;

/* Part of the reuse key of every graded unit: a new prompt, a new key. */
#define SC_GRADER_VERSION "skillci-grader/1"

struct sc_grading_item {
	char *text;        /* the statement graded */
	bool passed;
	char *evidence;    /* the grader's quote or reason (may be "") */
	bool unquoted;     /* the grader said passed but its evidence is not in the answer */
};

struct sc_grading {
	struct sc_grading_item *items;
	size_t n;
	size_t passed;
};

/* The statements a grader judges for t: each expectation, then the
 * expected_output ("The answer achieves what this describes: ..."). */
void sc_grader_statements(struct sc_strlist *out, const struct sc_test *t);

/* The grader's fixed instructions (the system prompt). */
const char *sc_grader_system(void);

/* The grader's user message for test t and the student's answer. */
void sc_grader_prompt(struct sc_buf *out, const struct sc_test *t, const char *answer);

/* What the self-test provider "oracle" answers as a grader: every
 * statement passed, the evidence the first line of the answer. */
void sc_grader_oracle_reply(struct sc_buf *out, const struct sc_test *t, const char *answer);

/*
 * Reads the grader's reply (a JSON object, alone or inside other text or a
 * fence) into out: one item per statement of t, in order, matched by
 * "index" (1-based) when the items carry one, else by position. Returns 0,
 * or SC_EPARSE with a message saying what is missing or malformed (the
 * unit is then an error of class "grader", never a pass). out is
 * initialised here; release it in every case.
 */
int sc_grader_parse(struct sc_grading *out, const char *reply, const struct sc_test *t,
		    const char *answer);
void sc_grading_release(struct sc_grading *g);

/*
 * The unit's message for a grading: "expectations: 1 of 2 met; ✗ 2. 'The
 * sum is 2': no number in the answer; ✓ 1. ..." (failed ones first, each
 * statement and evidence cut short). Appended to out.
 */
void sc_grading_summary(struct sc_buf *out, const struct sc_grading *g);

#endif
