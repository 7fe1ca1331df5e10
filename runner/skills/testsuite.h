#ifndef SC_TESTSUITE_H
#define SC_TESTSUITE_H
/*
 * Test files of a skill, read unchanged from the formats other tools write
 * (docs/tests-format.md):
 *
 *   - upskill's skill_meta.json: {"metadata": {...}, "tests": [TestCase...]}
 *   - upskill's test suites: {"cases": [TestCase...]} in JSON or YAML, with
 *     "verifiers" of upskill's types (contains, file_exists, file_contains,
 *     command, validator), or a bare [TestCase...] list (`upskill eval --tests`)
 *   - Agent Skills evals/evals.json: {"skill_name", "evals": [...]}
 *     (skill-creator's format: prompt, expected_output, files, expectations)
 *
 * plus skillci's one added field, "fixture": "NAME", which makes a test a
 * kernel test. Problems go to a struct sc_diags as "file:line: message"
 * findings naming the JSON path (tests[3].expected.contains); a test with an
 * error is left out of the set, the others are kept. No test passes
 * unchecked: one that names nothing skillci can check, or a verifier of a
 * type it does not know, is an error (test-no-check, test-verifier), as
 * upskill fails an unknown verifier closed.
 *
 * Ownership: a struct sc_test_set owns every test and every string in it;
 * sc_test_set_release() frees them all. const char * parameters are borrowed.
 */
#include <stdbool.h>
#include <stddef.h>

#include "strlist.h"

struct sc_buf;
struct sc_diags;

enum sc_test_format {
	SC_TESTS_SKILL_META,  /* skill_meta.json "tests" */
	SC_TESTS_CASES,       /* {"cases": [...]} suite, JSON or YAML */
	SC_TESTS_LIST,        /* bare [...] list of test cases */
	SC_TESTS_EVALS,       /* evals/evals.json "evals" */
	SC_TESTS_TRIGGERS,    /* evals/eval_queries.json: trigger queries (triggers.c) */
};

/*
 * A file given to the model with the test. Two forms: a path inside the
 * skill folder (upskill's list form, evals.json "files"), read when the
 * test is loaded; or upskill's inline {"name": "content"} map, where name
 * is only a label. content is NULL for a file that is not UTF-8 text
 * (binary), which is then hashed but never put in a prompt.
 */
struct sc_test_file {
	char *name;        /* relative path or label, always safe-relative */
	char *content;     /* text, or NULL for binary */
	size_t size;       /* bytes */
	bool inline_content;
	char sha256[65];   /* of the bytes */
};

/*
 * The checks a test names (upskill's verifier set, docs/tests-format.md).
 * CONTAINS checks the answer; the other four check the workspace an agent
 * run leaves behind (runner/eval's agent executor runs them in the jail
 * after the student's turns). A test read from upskill's flat fields
 * (skill_meta.json "validator", "output_file", "validator_config") gets
 * one VALIDATOR verifier marked implied, so an executor has one list.
 */
enum sc_verifier_type {
	SC_VERIFIER_CONTAINS,      /* every value occurs in the answer, case-insensitively */
	SC_VERIFIER_FILE_EXISTS,   /* path exists in the workspace */
	SC_VERIFIER_FILE_CONTAINS, /* path exists and holds every value, case-sensitively */
	SC_VERIFIER_COMMAND,       /* command, run in the workspace, exits with exit_code */
	SC_VERIFIER_VALIDATOR,     /* upskill custom validator `validator` over path */
};

struct sc_test_verifier {
	enum sc_verifier_type type;
	char *path;               /* FILE_*: the file; VALIDATOR: output_file (or NULL);
				   * a safe relative path inside the workspace */
	struct sc_strlist values; /* CONTAINS, FILE_CONTAINS: the strings, at least one */
	char *command;            /* COMMAND: a shell command line, or NULL */
	int exit_code;            /* COMMAND: the status that passes (default 0) */
	double timeout_s;         /* COMMAND, VALIDATOR: seconds, 0 for the executor's default */
	char *validator;          /* VALIDATOR: the validator's name */
	char *config;             /* VALIDATOR: its config as compact JSON text, or NULL */
	char *json_path;          /* "cases[0].verifiers[1]" (or the test's path, implied) */
	size_t line;              /* line of the verifier in the test's source */
	bool implied;             /* made from the test's flat fields, not a "verifiers" entry */
};

struct sc_test {
	char *id;              /* stable: "skill_meta.json#tests[3]", "evals/evals.json#7" */
	char *source;          /* the file, relative to the skill folder when inside it */
	char *json_path;       /* "tests[3]", "cases[0]", "evals[2]", "[4]" */
	size_t line;           /* line of the test object in source */
	enum sc_test_format format;
	char *input;           /* input / prompt */
	struct sc_strlist contains;      /* expected.contains + verifiers of type contains: the
					  * answer's check, which the evaluation runs */
	struct sc_strlist expectations;  /* evals.json statements, for the grader */
	struct sc_test_file *files;      /* context files (staged as inputs in an agent run) */
	size_t nfiles, files_alloc;
	/* Every verifier of the test, in file order: "verifiers" entries (CONTAINS
	 * ones mirrored into contains above) and the implied VALIDATOR. */
	struct sc_test_verifier *verifiers;
	size_t nverifiers, verifiers_alloc;
	char *validator;       /* upskill custom validator name, or NULL */
	char *output_file;     /* file the validator checks, or NULL */
	char *validator_config;/* compact JSON text of the object, or NULL */
	char *fixture;         /* kernel fixture name (skillci), or NULL for a text test */
	char *expected_output; /* reference answer (evals.json), or NULL */
	/* A trigger query (Agent Skills' eval_queries.json, triggers.c): 1
	 * should_trigger, -1 should_not_trigger, 0 not one. The query is the
	 * input; the test asks whether the student opens the skill's SKILL.md. */
	int trigger;
};

/* Generation metadata from skill_meta.json ("metadata"); NULL when absent. */
struct sc_skill_meta {
	bool present;          /* skill_meta.json had a "metadata" object */
	char *version;
	char *generated_by;
	char *generated_at;
	char *source_task;
	char *license;
	char *compatibility;
	bool has_test_pass_rate;
	double test_pass_rate;
};

struct sc_test_set {
	struct sc_test *items;
	size_t n, alloc;
	struct sc_skill_meta meta;
	char *evals_skill_name;  /* evals.json "skill_name", or NULL */
	struct sc_strlist sources; /* files read, in order */
};
#define SC_TEST_SET_INIT { 0 }

/*
 * Loads every test file of the skill at skill_dir, in this order and all
 * that exist: skill_meta.json, the JSON suites in tests/ (sorted by name),
 * evals/evals.json. Findings name each file as skill_dir joined with its
 * place in it ("skills/x/skill_meta.json"). A skill with no test files is
 * fine (an empty set). Returns 0, even with findings (check diags; a test
 * with an error is left out of the set), or a negative SC_E* code when
 * skill_dir cannot be read at all. out must be initialised
 * (SC_TEST_SET_INIT); release it even on error.
 */
int sc_tests_load_skill(struct sc_test_set *out, const char *skill_dir, struct sc_diags *diags);

/*
 * Loads one test file of any accepted format (detected from its top level:
 * "tests", "cases", "evals", or a list), for `eval --tests FILE`. Context
 * file paths are resolved in skill_dir and must stay inside it. Returns as
 * sc_tests_load_skill(); SC_ENOTFOUND (and no diag) when path is missing,
 * SC_ELIMIT when it is larger than SC_MAX_JSON_BYTES.
 */
int sc_tests_load_file(struct sc_test_set *out, const char *path, const char *skill_dir,
		       struct sc_diags *diags);

/*
 * Adds the tests a repository manifest (skillci.yml "skills:", entry at
 * config_file:line) gives the skill at skill_dir: each file of test_files
 * (relative to repo_root, any accepted format; context files resolve in
 * skill_dir), then for each name in fixtures that no test of the set uses
 * yet, a kernel test whose input is fixtures_dir/NAME/prompt.md
 * (fixtures_dir relative to repo_root unless absolute), with the id
 * "CONFIG_FILE#fixture:NAME". Either list may be NULL. Returns 0, even with
 * findings.
 */
int sc_tests_load_manifest(struct sc_test_set *out, const struct sc_strlist *test_files,
			   const struct sc_strlist *fixtures, const char *repo_root,
			   const char *fixtures_dir, const char *skill_dir,
			   const char *config_file, size_t line, struct sc_diags *diags);

/*
 * Adds the trigger queries of the skill at skill_dir (triggers.c): the
 * Agent Skills guide's eval_queries.json, a list of {"query": TEXT,
 * "should_trigger": BOOL}, read from evals/eval_queries.json and from
 * evals/train_queries.json and evals/validation_queries.json (its split
 * for tuning a description), each file when it exists. Test ids are
 * "evals/eval_queries.json#3". Returns 0, even with findings.
 */
int sc_tests_load_triggers(struct sc_test_set *out, const char *skill_dir, struct sc_diags *diags);

/* upskill's evals manifest, at the repository root. */
#define SC_TESTS_EVALS_MANIFEST ".upskill/evals.yaml"

/*
 * Reads upskill's evals manifest (text, len bytes; findings name display
 * and a line) and appends to out the test files (repository paths) it
 * maps to one skill: the skill at repository folder skill_path, or named
 * skill_name. Two forms (docs/tests-format.md):
 *
 *   evals:                               skills:
 *     - skill: skills/pdf   (or a name)    pdf: evals/pdf.yaml
 *       suites: [evals/pdf.yaml]           skills/docx: [a.json, b.yaml]
 *       (or suite: / tests: PATH)
 *
 * Paths must be safe relative paths. Returns 0 (problems are findings;
 * an entry with one is skipped).
 */
int sc_tests_evals_manifest(struct sc_strlist *out, const char *text, size_t len,
			    const char *display, const char *skill_path, const char *skill_name,
			    struct sc_diags *diags);

void sc_test_set_release(struct sc_test_set *set);
/* Removes (and frees) test i of set, keeping the order of the rest. */
void sc_test_set_remove(struct sc_test_set *set, size_t i);
/* Appends a deep copy of t to set (the set owns the copy). */
void sc_test_set_add_copy(struct sc_test_set *set, const struct sc_test *t);

/*
 * SHA-256 (hex, into out) over the test's canonical content: input,
 * contains, expectations, context files (name and content hash), validator
 * fields, fixture and expected output, each length-prefixed in a fixed
 * order. The id, source file and line are not part of it, so moving or
 * renumbering a test keeps its stored results.
 */
void sc_test_hash(char out[65], const struct sc_test *t);

/*
 * The answer the self-test provider "oracle" gives for a text test: the
 * expected_output when there is one, else a sentence holding every
 * "contains" string. A kernel test (fixture set) is answered by the
 * fixture's reference solution instead: SC_EINVAL. Appends to out.
 */
int sc_tests_oracle_answer(const struct sc_test *t, struct sc_buf *out);

/* True when t is a kernel test. */
bool sc_test_is_kernel(const struct sc_test *t);

/*
 * True when t can only be checked in a workspace: a verifier of type
 * file_exists, file_contains, command or validator (implied ones too), or
 * context files that an agent run stages as inputs. Such a test, run as a
 * single chat request, is unverified (error_class "needs_agent").
 */
bool sc_test_needs_workspace(const struct sc_test *t);
/* True when t has a verifier of one of the four workspace types. */
bool sc_test_has_workspace_verifier(const struct sc_test *t);
/* True when t has statements a grader model must judge: expectations or
 * an expected_output. */
bool sc_test_needs_grader(const struct sc_test *t);
/* The name of a verifier type as files spell it ("file_contains"). */
const char *sc_verifier_type_name(enum sc_verifier_type type);

#endif
