#ifndef SC_GENERATE_H
#define SC_GENERATE_H
/*
 * The teacher side (docs/generate.md): a teacher model writes a skill
 * (SKILL.md front matter and body, references/) as structured output from
 * a task, a trace of an agent's work, or an existing skill; writes tests
 * in upskill's format (kernel tasks get fixtures from fixtures/); the
 * skill is evaluated on the teacher and each student with and without it
 * (eval.h), refined with the failures while it is not beneficial, and the
 * best version is saved as upskill saves one: SKILL.md, references/,
 * skill_meta.json ({"metadata": {...}, "tests": [...]}).
 *
 * Pure core: nothing here prints or exits. Progress goes to a callback as
 * ready-made lines; the command decides where they go.
 *
 * Ownership: options are borrowed for the duration of the call; a struct
 * sc_gen_draft, sc_gen_cases and sc_gen_result own what they hold and are
 * freed by their _release().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results/results.h"
#include "strlist.h"

struct sc_buf;
struct sc_test_set;
struct sc_client;
struct sc_store;
struct sc_eval_kernel_ops;

/* A file of the skill written by the teacher (references/NAME). */
struct sc_gen_file {
	char *name;     /* safe relative path below references/ */
	char *content;
};

/* The teacher's skill: upskill's SkillDraft (name, description, body, references). */
struct sc_gen_draft {
	char *name;
	char *description;
	char *body;
	struct sc_gen_file *refs;
	size_t nrefs, refs_alloc;
	/* Carried over from an existing skill (`--from DIR`), written as they were. */
	struct sc_gen_file *scripts;
	size_t nscripts, scripts_alloc;
};

/* One generated test in upskill's TestCase form (plus skillci's "fixture"). */
struct sc_gen_case {
	char *input;
	struct sc_strlist contains;
	char *fixture;   /* NULL for a text test */
};

struct sc_gen_cases {
	struct sc_gen_case *items;
	size_t n, alloc;
};

/*
 * Finds the JSON object in a model's answer: the first fenced block whose
 * content parses as a JSON object (```json or any other info string),
 * else the text from the first '{' to its matching '}' (bare JSON with
 * prose around it). Appends the object's text to out. SC_EPARSE with a
 * message saying what was wrong ("no JSON object in the answer", the
 * parser's position) when there is none.
 */
int sc_gen_extract_json(struct sc_buf *out, const char *answer);

/* Bounds of a file name a model chooses (sc_gen_name_ok). */
#define SC_GEN_MAX_NAME_BYTES 128
#define SC_GEN_MAX_NAME_DEPTH 4

/*
 * The one rule every file name that comes from a model passes before it
 * is written (docs/security.md): a relative path of at most
 * SC_GEN_MAX_NAME_DEPTH components and SC_GEN_MAX_NAME_BYTES bytes, each
 * component made of portable characters (A-Z a-z 0-9 . _ -) and not
 * beginning with '.' (so no "..", ".git", hidden file, control byte,
 * backslash or absolute path). False with the reason in why.
 */
bool sc_gen_name_ok(const char *rel, struct sc_buf *why);

/*
 * Parses the teacher's skill answer into out (initialised here; release
 * it even on error): "name", "description" and "body" strings are
 * required; "references" is optional, either an object {"file.md":
 * "content"} (upskill's SkillDraft) or a list of {"name"|"path",
 * "content"}; names must be safe relative paths (a leading "references/"
 * is dropped). Bounded by SC_GEN_MAX_REFERENCES and SC_GEN_MAX_FILE_BYTES.
 * SC_EPARSE with a message meant to be sent back to the teacher.
 */
int sc_gen_parse_skill(struct sc_gen_draft *out, const char *answer);

/*
 * Parses the teacher's test answer ({"cases": [...]}, upskill's
 * TestCaseSuite, or a bare list): each case needs a string "input" and
 * "expected.contains" (a string or a list of strings), or a "fixture"
 * that is one of known (known may be NULL: any name). Appends to out.
 * SC_EPARSE when there is no usable case.
 */
int sc_gen_parse_cases(struct sc_gen_cases *out, const char *answer,
		       const struct sc_strlist *known_fixtures);

/*
 * SKILL.md as upskill renders it: "---\nname: N\ndescription: D\n---\n\n"
 * then the body. A description that plain YAML would misread (a ": ",
 * " #", a leading quote or indicator, a line break) is written as a
 * double-quoted scalar. Appends to out.
 */
void sc_gen_render_skill_md(struct sc_buf *out, const struct sc_gen_draft *d);

/* Generation metadata for skill_meta.json. NULL strings are written as null. */
struct sc_gen_meta {
	const char *generated_by;
	const char *generated_at;  /* ISO-8601 UTC */
	const char *source_task;
	bool has_test_pass_rate;
	double test_pass_rate;
};

/*
 * skill_meta.json as upskill writes it (indent 2): {"metadata": {version,
 * generated_by, generated_at, source_task, test_pass_rate, license,
 * compatibility}, "tests": [{input, context, expected: {contains},
 * output_file, validator, validator_config}...]}; a kernel test adds
 * "fixture". Appends to out.
 */
void sc_gen_meta_json(struct sc_buf *out, const struct sc_gen_meta *m,
		      const struct sc_gen_cases *cases);

/*
 * Turns a trace into text for the teacher: a JSON agent transcript (a list
 * of messages, {"messages": [...]}, content as a string or a list of
 * blocks with "text", tool calls and results summarised) becomes
 * "### role" sections; anything else (Markdown) is taken as it is. Text
 * longer than max bytes keeps its start and end with a marker between.
 * name is used in messages. Appends to out.
 */
int sc_gen_trace_text(struct sc_buf *out, const char *data, size_t len, const char *name,
		      size_t max);

/*
 * Upskill's failure descriptions for refinement, from the with-skill
 * units of r for model that did not pass: "Input: ... | Error: ... |
 * Expected: contains [...]" (at most SC_GEN_MAX_FAILURES). inputs maps a
 * unit's test_id to its input through tests. Appends one line per failure.
 */
void sc_gen_failures(struct sc_strlist *out, const struct sc_results *r, const char *model,
		     const struct sc_test_set *tests);

/* Teacher prompts (docs/generate.md). */
void sc_gen_prompt_skill(struct sc_buf *out, const char *task, const char *const *examples,
			 size_t nexamples, const char *trace, const char *required_name);
void sc_gen_prompt_tests(struct sc_buf *out, const char *task,
			 const struct sc_strlist *fixture_lines);

/* Called with one line of progress ("Generating skill with ...", "Refining..."). */
typedef void (*sc_gen_progress_cb)(const char *line, void *payload);

struct sc_gen_options {
	const char *task;
	const char *const *examples;     /* -e, as "input -> output" lines */
	size_t nexamples;
	const char *from;                /* trace file or skill folder, or NULL */
	const char *teacher;             /* model that writes the skill */
	const char *test_gen_model;      /* NULL: the teacher */
	const char *const *students;     /* --eval-model */
	size_t nstudents;
	const char *const *fixtures;     /* --fixture: forced kernel tests */
	size_t nfixtures;
	const char *fixtures_dir;        /* default "fixtures" */
	const char *out_dir;             /* NULL: SKILLS_DIR/NAME */
	const char *skills_dir;          /* NULL: "skills" */
	bool no_eval;
	bool force;                      /* --force: write over an existing folder */
	int max_refine;                  /* refinements after the first evaluation (default:
					    upskill's 2 attempts, one refinement) */
	int max_tokens;                  /* teacher answers; 0: SC_GEN_MAX_TOKENS */
	int runs;                        /* evaluation runs per test (>= 1) */
	struct sc_client *client;
	struct sc_store *store;          /* required unless no_eval */
	const struct sc_eval_kernel_ops *kernel;  /* NULL: kernel tests skipped */
	int kernel_jobs;                 /* kernel checks at once (< 1: one) */
	int64_t now;                     /* generated_at (unix seconds); 0: the clock */
	sc_gen_progress_cb progress;
	void *payload;
};

void sc_gen_options_init(struct sc_gen_options *opt);
/* upskill's default max_refine_attempts: evaluations in all. */
#define SC_GEN_ATTEMPTS 2
/* The refinements of upskill's max_refine_attempts: max(1, attempts) - 1. */
int sc_gen_refinements(int max_refine_attempts);

/* One evaluation of one version on one model. */
struct sc_gen_score {
	char *model;               /* canonical name */
	double baseline_rate, skill_rate, lift;
	int64_t baseline_tokens, skill_tokens;
	int is_beneficial;         /* -1: no pass/fail units */
};

struct sc_gen_attempt {
	struct sc_gen_score *scores;   /* teacher first, then each student */
	size_t nscores;
	bool beneficial;               /* on every target model */
	double target_rate;            /* mean with-skill pass rate over the targets */
};

struct sc_gen_result {
	char *dir;                 /* where the skill was saved */
	struct sc_gen_draft skill; /* the kept version */
	struct sc_gen_cases cases;
	bool evaluated;
	struct sc_gen_attempt *attempts;
	size_t nattempts;
	size_t kept;               /* index into attempts of the saved version */
	struct sc_results results; /* evaluation of the kept version */
	/* teacher use, test generation included */
	int64_t teacher_requests, teacher_retries, teacher_tokens_in, teacher_tokens_out;
};

void sc_gen_result_init(struct sc_gen_result *r);
void sc_gen_result_release(struct sc_gen_result *r);
void sc_gen_draft_release(struct sc_gen_draft *d);
void sc_gen_cases_release(struct sc_gen_cases *c);

/*
 * Target models decide benefit: the students when any are given, else the
 * teacher. Returns true when a (more target pass rate) is better than b;
 * ties keep the earlier version.
 */
bool sc_gen_attempt_better(const struct sc_gen_attempt *a, const struct sc_gen_attempt *b);

/*
 * upskill's test generation for an existing skill (`eval --generate-tests`
 * on a skill without tests): asks opt->test_gen_model (else opt->teacher)
 * for tests of task (the skill's description), once more when the answer
 * cannot be used; kernel tests get their fixture's prompt (opt->fixtures_dir).
 * Saves them into skill_dir/skill_meta.json: an existing file keeps every
 * other key and gets "tests"; a new one is written as upskill writes it.
 * out->cases holds the tests and out's teacher counters the use; out is
 * initialised here. Returns 0, SC_EPARSE (unusable answers), SC_EINVAL,
 * SC_ENET/SC_EAUTH, or SC_EIO when saving fails.
 */
int sc_gen_tests_for_skill(struct sc_gen_result *out, const struct sc_gen_options *opt,
			   const char *skill_dir, const char *task);

/*
 * The asking part of sc_gen_tests_for_skill(): test cases for task from
 * opt->test_gen_model (else opt->teacher) into out->cases (out initialised
 * by the caller), nothing saved. what names the skill in progress lines
 * and messages; *model_name (when not NULL) gets the canonical name of the
 * model that wrote them (the caller frees it). Returns as
 * sc_gen_tests_for_skill() does, without SC_EIO.
 */
int sc_gen_ask_tests(struct sc_gen_result *out, const struct sc_gen_options *opt,
		     const char *what, const char *task, char **model_name);

/*
 * The whole of `generate`: writes, validates, tests, evaluates, refines and
 * saves the skill. Returns 0; SC_EPARSE when the teacher's answer could
 * not be used after one retry (the message says why); SC_EINVAL for bad
 * input (trace, skill folder, fixture); SC_ENET/SC_EAUTH when the teacher
 * cannot be reached; SC_EIO when saving fails. out is initialised here.
 */
int sc_generate(struct sc_gen_result *out, const struct sc_gen_options *opt);

#endif
