#ifndef SC_TESTINIT_H
#define SC_TESTINIT_H
/*
 * `skillci tests init SKILL...` (docs/tests-format.md, "Writing the first
 * tests"): from no tests to tests in one step. The teacher (the test
 * generation model) writes a starter suite for an existing skill from its
 * SKILL.md, in the repository's own test format; the file is loaded back
 * and validated as every test file is; then the suite runs once on each
 * student with the skill and without it, so the author sees which tests
 * discriminate (pass with the skill, fail without). Nothing is written
 * over an existing file unless force is set.
 *
 * Pure core: nothing here prints or exits; progress lines go to a callback
 * and the outcome to a struct sc_testinit_result the command renders.
 *
 * Ownership: options are borrowed; a result owns what it holds and is
 * freed by sc_testinit_result_release().
 */
#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "results/results.h"

struct sc_buf;
struct sc_client;
struct sc_gen_cases;

/* The file a starter suite is written to, in the formats skillci reads. */
enum sc_testinit_format {
	SC_TESTINIT_EVALS,      /* evals/evals.json (skill-creator) */
	SC_TESTINIT_YAML,       /* tests/suite.yaml (upskill, YAML) */
	SC_TESTINIT_JSON,       /* tests/suite.json (upskill, JSON) */
	SC_TESTINIT_META,       /* skill_meta.json (upskill) */
};

/* "evals", "yaml", "json", "skill_meta": the names --format takes. */
const char *sc_testinit_format_name(enum sc_testinit_format f);
/* 0, or SC_EINVAL naming the accepted names. */
int sc_testinit_format_parse(enum sc_testinit_format *out, const char *name);
/* The file, relative to the skill folder ("evals/evals.json"). */
const char *sc_testinit_file(enum sc_testinit_format f);

/*
 * The repository's own format: the format most of the skills under root
 * already use (an upskill evals manifest, .upskill/evals.yaml, counts for
 * YAML suites); skill-creator's evals/evals.json when none has tests (the
 * Agent Skills format; ties go in the enum's order). why gets a sentence
 * for the author ("3 skills use evals/evals.json"). Returns 0 or the
 * discovery's error.
 */
int sc_testinit_detect(enum sc_testinit_format *out, const char *root, struct sc_buf *why);

/*
 * The starter suite in format f for the skill named skill_name (appended
 * to out): every case with its input and its "contains" strings as the
 * format writes them (expected.contains, a contains verifier), a kernel
 * case with its fixture; model names the teacher in skill_meta.json's
 * metadata and in a comment of the YAML form.
 */
void sc_testinit_render(struct sc_buf *out, enum sc_testinit_format f, const char *skill_name,
			const struct sc_gen_cases *cases, const char *model, const char *task);

struct sc_testinit_options {
	const char *skill_dir;
	const char *repo_root;           /* for the format's detection; NULL: "." */
	bool format_set;
	enum sc_testinit_format format;  /* when format_set */
	const char *teacher;             /* writes the tests */
	const char *const *students;     /* run once on each; none: no run */
	size_t nstudents;
	bool force;                      /* write over an existing file */
	bool no_run;
	const char *grader;              /* grades expectations in the run (may be NULL) */
	int max_tokens;                  /* per student answer; 0: provider default */
	struct sc_client *client;
	void (*progress)(const char *line, void *payload);
	void *payload;
};

/* One test of the starter suite on one student. */
struct sc_testinit_row {
	char *test_id, *name;            /* name: the input's first line, short */
	char *model;
	char *with_skill, *without_skill;  /* unit verdicts: pass, fail, unverified, error */
	bool discriminates;              /* pass with the skill, fail without */
};

struct sc_testinit_result {
	char *path;                      /* the file written */
	enum sc_testinit_format format;
	char *format_why;                /* why this format */
	char *teacher;                   /* canonical name of the model that wrote it */
	size_t written;                  /* tests written */
	size_t loaded;                   /* tests loaded back from the file */
	struct sc_diags findings;        /* loading it back: errors mean tests left out */
	bool ran;
	struct sc_results results;       /* the one run (when ran) */
	struct sc_testinit_row *rows;
	size_t nrows;
	size_t discriminating;           /* tests that discriminate on every student */
};

void sc_testinit_options_init(struct sc_testinit_options *opt);
void sc_testinit_result_init(struct sc_testinit_result *r);
void sc_testinit_result_release(struct sc_testinit_result *r);

/*
 * Writes, validates and runs the starter suite of one skill (above).
 * Returns 0 (also when tests were left out: see findings; or when none
 * discriminates); SC_EEXISTS when the file is there and force is not
 * set (nothing was asked); SC_ENOTFOUND / SC_EINVAL for a folder that is
 * not a skill; the teacher's errors (SC_EPARSE, SC_ENET, SC_EAUTH);
 * SC_EIO when writing fails; the evaluation's errors.
 */
int sc_testinit(struct sc_testinit_result *out, const struct sc_testinit_options *opt);

#endif
