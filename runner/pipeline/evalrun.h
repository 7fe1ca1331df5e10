#ifndef SC_EVALRUN_H
#define SC_EVALRUN_H
/*
 * `skillci eval` as a library (docs/evaluation.md): skill folders evaluated in
 * place, with and without the skill, on one or more models. The stages,
 * as pipeline.h's for `skillci run`:
 *
 *   sc_evalrun_open()      the configuration in the current folder
 *                          (skillci.yml, upskill.config.yaml) with the
 *                          flags over it, the models, the test generation
 *                          model, the judge's rubric and the client;
 *   sc_evalrun_prepare()   the skill folders and their tests (written by
 *                          the test generation model first with
 *                          generate_tests), the kernel harness;
 *   sc_evalrun_evaluate()  every unit with and without the skill on every
 *                          model (eval.h: sc_eval_run), the run and its
 *                          units stored;
 *   sc_evalrun_finish()    the results' kernel record and the share of
 *                          infrastructure errors against gate.error_share.
 *
 * Between the stages the command prints what they return and opens the
 * store; the stages print nothing: the lines `eval` shows on stderr while
 * preparing (findings of the skill folders, test generation's progress,
 * a skill without tests) go to on_line.
 *
 * Ownership: the run owns everything it builds; the options' strings,
 * the store and the callbacks' payload are borrowed and must outlive it.
 */
#include <stdbool.h>
#include <stddef.h>

#include "eval/eval.h"

struct sc_config;
struct sc_diags;
struct sc_results;
struct sc_store;
struct sc_evalrun;

struct sc_evalrun_options {
	const char *const *dirs;         /* skill folders, or names in skills_dir */
	size_t ndirs;
	const char *const *models;       /* -m, as given; none: the config's */
	size_t nmodels;
	const char *config;              /* --config, or NULL */
	int runs, max_turns;             /* 0: the config's */
	/* sequential sampling (docs/evaluation.md, "skillci eval"): rounds of
	 * first_runs runs per test up to max_runs, per skill x model until the
	 * lift is shown or ruled out; 0: the config's gate.first_runs and
	 * gate.max_runs (runs given: a fixed design) */
	int first_runs, max_runs;
	double lift_margin;              /* points the skill must lift by (0: none) */
	bool no_baseline;
	const char *tests_file;          /* --tests, or NULL */
	bool generate_tests;
	const char *test_gen_model;      /* NULL: the config's */
	const char *judge, *rubric_file; /* NULL: the config's */
	const char *grader;              /* grades expectations; NULL: the config's grader.model */
	bool agent_mode_set;             /* --agent: agent_mode over the config's agent.mode */
	int agent_mode;                  /* enum sc_agent_mode */
	bool offline, no_cache, no_reuse, compile_only, allow_unpinned;
	const char *cache, *store;       /* NULL: the config's, else the defaults */
	const char *fixtures, *arch;     /* NULL: the config's, else fixtures, sm_90 */
	int concurrency;                 /* 0: the config's */
	int retries;                     /* retries per request after the first try */
	int jobs;                        /* kernel checks at once; 0: sc_kernelops_default_jobs */
	sc_eval_progress_cb on_unit;     /* each unit decided (may be NULL) */
	void (*on_line)(const char *line, void *payload);  /* a line for stderr (may be NULL) */
	void *payload;
};

/* What the stages found out, for the command's lines and exit code. */
struct sc_evalrun_info {
	bool usage;                      /* the error returned is bad usage (exit 2, help hint) */
	bool config_errors;              /* the configuration's findings have an error */
	const char *const *models;       /* the models as given (flags or config) */
	size_t nmodels;
	int runs;                        /* fixed: runs per test; sequential: max_runs */
	bool baseline;
	bool sequential;                 /* rounds (first_runs, max_runs) */
	int first_runs, max_runs;
	double lift_margin;              /* points */
	int64_t max_requests;            /* the most the design may ask (budget) */
	const char *store_location;      /* --store, $SKILLCI_STORE, config, default */
	double max_error_share;          /* gate.error_share */
};

struct sc_evalrun *sc_evalrun_new(void);
void sc_evalrun_free(struct sc_evalrun *e);

/*
 * The configuration (its findings appended to diags; an error among them
 * is SC_EINVAL with info.config_errors), the flags over it, the models
 * (every name checked before any request), the rubric and the client.
 * Bad usage (no model, --generate-tests with --tests, --offline without
 * a cache, a sequential design without the baseline or with --runs) is
 * SC_EINVAL with info.usage.
 */
int sc_evalrun_open(struct sc_evalrun *e, const struct sc_evalrun_options *opt,
		    struct sc_diags *diags);

/*
 * Loads every skill folder and its tests; with generate_tests a skill
 * without tests gets them written (and saved in its skill_meta.json)
 * first. Sets up the kernel harness. Then the budget, before the
 * evaluation's first request: the most requests the design can make
 * (every test at max_runs, or runs, on both sides) against
 * budget.max_requests, and its tokens and dollars against the budget's
 * limits (budget.h); over any is SC_EINVAL naming the limit. The budget's
 * line ("budget: ...") goes to on_line for a sequential design. store
 * (borrowed, open) is where units are reused from and stored.
 */
int sc_evalrun_prepare(struct sc_evalrun *e, struct sc_store *store);
/* Evaluates every unit (a fixed design), or the rounds of a sequential
 * one (pipeline/rounds.h) with its decisions in results' lifts; the
 * results are complete (aggregates, comparisons) when it returns 0. */
int sc_evalrun_evaluate(struct sc_evalrun *e);
/*
 * Records the kernel harness in the run and sets *infra_rc to 3 when the
 * share of infrastructure errors is over gate.error_share, else 0.
 */
int sc_evalrun_finish(struct sc_evalrun *e, int *infra_rc);

/* The results (complete after evaluate); the run keeps them. */
struct sc_results *sc_evalrun_results(struct sc_evalrun *e);
void sc_evalrun_info(const struct sc_evalrun *e, struct sc_evalrun_info *out);

#endif
