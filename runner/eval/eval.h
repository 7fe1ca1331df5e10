#ifndef SC_EVAL_H
#define SC_EVAL_H
/*
 * The evaluation core (docs/evaluation.md): turns skills, tests and models
 * into work units, asks the models through one provider client, checks the
 * answers, reuses units already in the results store, and fills a results
 * model (results.h) with units, aggregates and paired comparisons. It never
 * prints and never exits; progress goes to a callback.
 *
 * Units stream: a unit starts the moment the window has room (no batch
 * barrier), its follow-up turns and judge request go back into the
 * client's queue, kernel answers are checked on a pool of threads (each
 * check one sandboxed worker process) while requests go on, and finished
 * units reach the store in small transactions (a few dozen units, or
 * every 200 ms), so a killed process loses only what was in flight.
 *
 * A work unit is (skill, variant, model, test, run index). Variants:
 * "baseline" (no skill), "base" and "head" (the skill at the base and head
 * revision; `eval` uses "head" for the skill as it is on disk).
 *
 * Ownership: everything passed in is borrowed for the duration of the
 * call; the results model filled by sc_eval_run() owns what it holds.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "results/results.h"  /* the states of a unit */

struct sc_agent_options;
struct sc_client;
struct sc_store;
struct sc_results;
struct sc_skill;
struct sc_test;
struct sc_test_set;

/* `eval` exits 3 when more than this share of units are infrastructure errors. */
#define SC_EVAL_MAX_ERROR_SHARE 0.10

/* Harness version recorded with every unit; part of the reuse key. */
#define SC_EVAL_HARNESS_VERSION "skillci-eval/1"

/* One skill variant to evaluate. */
struct sc_eval_skill {
	const char *path;              /* as shown and stored ("skills/foo") */
	enum sc_variant variant;       /* head or base */
	const struct sc_skill *skill;  /* loaded SKILL.md and file list; NULL: a side that is
					* not evaluated (sc_eval_run_units names no unit of it) */
	const struct sc_test_set *tests;
	const char *hash;              /* sc_skill_content_hash() when known, else NULL */
	const char *tests_dir;         /* the folder the tests were read from (an agent run's
					* validators and binary files); NULL: the skill's own */
};

/* What the kernel harness says about one answer. Strings owned by it:
 * the evaluation frees them after the check. */
struct sc_eval_kernel_result {
	enum sc_kernel_verdict verdict;
	bool compiled;
	char *message;        /* for a person; sent back to the model on failure */
	char *compile_log;
	double max_abs_error; /* NAN when none */
	int registers;        /* -1 when none */
	double speedup;       /* over the fixture's naive baseline; NAN when none */
	char *strong_reference;  /* the strong reference's name, or why there is none
				  * ("none: ...", "NAME (not timed: ...)"); NULL when not timed at all */
	double strong_speedup;   /* over the strong reference; NAN when none */
	double pct_of_peak;      /* share of the device's roofline, percent; NAN when none */
};

/*
 * The kernel harness as the evaluation sees it (wired to the kernel worker
 * by the command; a test double in unit tests). NULL ops: kernel tests are
 * skipped with a reason.
 */
struct sc_eval_kernel_ops {
	/* Extracts, compiles and (with a GPU) runs the answer for fixture.
	 * Returns 0 with out filled, or a negative SC_E* for an
	 * infrastructure failure (the unit becomes an error). */
	int (*check)(struct sc_eval_kernel_result *out, const char *fixture, const char *answer,
		     void *payload);
	/* Appends the fixture's reference solution (the oracle's answer). */
	int (*reference)(struct sc_buf *out, const char *fixture, void *payload);
	/* Appends the fixture's task prompt (prompt.md); may be NULL. */
	int (*prompt)(struct sc_buf *out, const char *fixture, void *payload);
	/* Writes the fixture's pinned hash (64 hex + NUL). */
	int (*fixture_hash)(char out[65], const char *fixture, void *payload);
	const char *mode;     /* "gpu" or "compile-only"; part of the reuse key */
	void *payload;
};

/* Store transactions while units finish: after this many units, or this
 * long after the first unit not yet committed, whichever comes first. */
#define SC_EVAL_COMMIT_UNITS 32
#define SC_EVAL_COMMIT_MS    200

/* What is going on now, for progress lines. */
struct sc_eval_activity {
	size_t done, total;         /* units decided, units planned */
	size_t active;              /* started and not yet decided */
	size_t kernels_busy;        /* kernel checks queued or running */
	int requests_in_flight;     /* model requests on the wire */
	size_t reused;
	int64_t cache_hits, requests;
};
typedef void (*sc_eval_activity_cb)(const struct sc_eval_activity *a, void *payload);

/* Called after each unit is decided (evaluated or reused). */
typedef void (*sc_eval_progress_cb)(size_t done, size_t total, const char *skill,
				    enum sc_variant variant, const char *model,
				    const char *test_name, enum sc_unit_verdict verdict, bool reused,
				    void *payload);

struct sc_eval_options {
	const char *const *models;  /* as given; stored by canonical name */
	size_t nmodels;
	int runs;                   /* runs per test (>= 1) */
	bool baseline;              /* also evaluate without the skill */
	int max_turns;              /* kernel tests: model turns (>= 1) */
	int max_tokens;             /* per request; 0: provider default */
	double temperature;         /* < 0: provider default */
	const char *judge_model;    /* NULL: no judge */
	const char *judge_rubric;   /* NULL: the default rubric */
	const char *grader_model;   /* grades expectations (eval/grader.h); NULL: tests
				     * with expectations are unverified (no_grader) */
	struct sc_client *client;   /* required when anything is evaluated */
	struct sc_store *store;     /* NULL: no reuse, nothing stored */
	bool reuse;                 /* look units up in the store first */
	const struct sc_eval_kernel_ops *kernel;
	const char *run_id;         /* NULL: generated */
	enum sc_run_kind kind;      /* eval (default), run or generate */
	sc_eval_progress_cb progress;
	void *payload;
	/* Optional (NULL: every unit): called for each unit while planning;
	 * a unit for which it returns false is left out of the run (a shard,
	 * or one batch of `run`). model is the canonical name. */
	bool (*select)(const char *skill, enum sc_variant variant, const char *model,
		       const char *test_id, int run_index, void *select_payload);
	void *select_payload;
	/* Write the run's aggregates to the store with its units (default
	 * true); false when the caller evaluates a run in several calls and
	 * writes the aggregates of the whole run itself. */
	bool store_aggregates;
	/* Significance level of the paired comparisons (gate.alpha;
	 * default SC_COMPARE_DEFAULT_ALPHA). */
	double alpha;
	/* Kernel checks at once, each in its own worker process (default 1). */
	int kernel_jobs;
	/* Agent runs (runner/agent/agent.h): which tests run as agents, the
	 * jail's limits, the threads that run jails, tools and verifiers.
	 * NULL: the defaults (agent.mode auto). */
	const struct sc_agent_options *agent;
	/* Units started and not yet decided, at most (0: twice the client's
	 * total bound, four times it when agent units are planned, plus four
	 * per kernel job): keeps every request slot busy while bounding the
	 * memory of units in flight. */
	int window;
	/* Store transactions (0: SC_EVAL_COMMIT_UNITS, SC_EVAL_COMMIT_MS). */
	int commit_units;
	int64_t commit_ms;
	/* Polled (NULL: never): once true, no new unit starts, the units
	 * started finish (their requests waiting to be sent are taken back and
	 * the unit left out), and the run returns what was decided. */
	bool (*stop)(void *payload);
	/* Optional: called (with payload) as units finish and about every
	 * 100 ms. */
	sc_eval_activity_cb activity;
};

void sc_eval_options_init(struct sc_eval_options *opt);

/*
 * Evaluates every skill with every model: the skill variant and, with
 * opt->baseline, the baseline (once per skill, model, test and run).
 * Units whose key is in the store are reused without a request. New
 * units are committed to the store as they finish; the run row and the
 * aggregates at the end, in one transaction. out is initialised here and
 * owns the result (release it even on error). Returns 0 (failed answers and provider errors are unit
 * verdicts, not errors), SC_EINVAL for a bad model name or options, or
 * SC_EIO/SC_ENET when the store or the client loop fails.
 */
int sc_eval_run(struct sc_results *out, const struct sc_eval_skill *skills, size_t nskills,
		const struct sc_eval_options *opt);

/*
 * One unit of an explicit plan (sc_eval_run_units): the skill variant
 * skills[skill] (or, with baseline, no skill) with models[model] on test
 * skills[skill].tests->items[test], run index run.
 */
struct sc_eval_unit_ref {
	uint32_t skill, test;
	uint16_t model;
	bool baseline;
	int run;
};

/* What sc_eval_run_units() did. */
struct sc_eval_stats {
	size_t decided, evaluated, reused;
	int64_t requests, cache_hits;
	bool stopped;               /* opt->stop said so before every unit started */
	bool any_kernel;            /* a kernel test was among the units */
};

/*
 * Evaluates exactly the units of refs, streaming (see the top of this
 * file): appends each decided unit to out->units (out must be
 * initialised; its frame, aggregates and run row are the caller's) and
 * commits the evaluated ones to opt->store as they finish. opt->models,
 * runs and select are not used (refs say it all); opt->run_id names the
 * run the stored units belong to. Returns 0 (also when stopped: see
 * stats), SC_EINVAL for a bad model name or a missing key, or the store's
 * or the client loop's error; units decided before an error stay in out.
 */
int sc_eval_run_units(struct sc_results *out, struct sc_eval_stats *stats,
		      const struct sc_eval_skill *skills, size_t nskills,
		      const struct sc_eval_unit_ref *refs, size_t nrefs,
		      const struct sc_eval_options *opt);

/*
 * Which units of refs the store answers without a request (opt->store,
 * with opt->reuse), found before anything is asked: each unit's key
 * (skill, test and fixture hashes, model, prompt template, harness and
 * run index) is made by the code sc_eval_run_units() looks it up with,
 * and a stored unit in states this version does not read is not counted.
 * Sets stored[i] (an array of nrefs) for refs[i] and *nstored to their
 * number; without a store or with reuse off, none. Returns 0, SC_EINVAL
 * for a bad model name or reference, or the store's error: a store that
 * cannot be read never counts as answering.
 */
int sc_eval_stored_units(bool *stored, size_t *nstored, const struct sc_eval_skill *skills,
			 size_t nskills, const struct sc_eval_unit_ref *refs, size_t nrefs,
			 const struct sc_eval_options *opt);

/*
 * sc_eval_run() in its parts, for a caller that evaluates the plan in
 * several calls of sc_eval_run_units() (pipeline/rounds.h: sequential
 * sampling):
 *
 *   sc_eval_plan()   initialises out with the run's frame (id, models,
 *                    skills, plan hash, mode) and returns every unit of the
 *                    plan (opt->runs per test, select applied) in *refs
 *                    (the caller frees it); nothing is asked;
 *   sc_eval_close()  the run's end: finished_at, complete, aggregates,
 *                    totals (requests and cache hits from stats) and, with
 *                    opt->store, the run row and its aggregates stored.
 *
 * The units go into the store under out->run.id, which sc_eval_plan sets.
 */
int sc_eval_plan(struct sc_results *out, struct sc_eval_unit_ref **refs, size_t *nrefs,
		 const struct sc_eval_skill *skills, size_t nskills, const struct sc_eval_options *opt);
int sc_eval_close(struct sc_results *out, const struct sc_eval_stats *stats, bool complete,
		  int64_t t_start, const struct sc_eval_options *opt);

/*
 * Recomputes r->aggregates, r->comparisons and r->totals (except wall_ms,
 * cache_hits and requests) from r->units, judging significance at alpha
 * (recorded as r->run.alpha; an unusable alpha means the default). Pure:
 * usable on merged results. Sorts r (sc_results_sort) and works on its
 * sorted ranges: linear in the units after the sort.
 */
void sc_eval_aggregate(struct sc_results *r, double alpha);

/* Builds the user message: the input, then each context file as upskill does
 * ("\n\n```NAME\nCONTENT\n```"). */
void sc_eval_user_message(struct sc_buf *out, const struct sc_test *test);
/*
 * The first user message of a unit exactly as it is sent: the user
 * message above, then for a kernel test the fixture's task prompt from
 * kernel (may be NULL) unless the input already holds it. The budget
 * counts this before any request (pipeline/budget.h).
 */
void sc_eval_unit_prompt(struct sc_buf *out, const struct sc_test *test,
			 const struct sc_eval_kernel_ops *kernel);
/* True when every string of contains occurs in answer, ignoring case. */
bool sc_eval_contains_all(const char *answer, const char *const *contains, size_t n);
/* Parses a judge's reply: the number after the last "SCORE:", clamped to
 * [0, 1]; NAN when there is none. */
double sc_eval_parse_score(const char *reply);

/* A new run id, "20261130T150000Z-1a2b3c4d" (start time, 32 random bits),
 * and the current time as ISO-8601 UTC; the caller frees both. */
char *sc_eval_new_run_id(void);
char *sc_eval_now_iso(void);
/* What sc_eval_store_run writes besides the run's row. */
enum {
	SC_EVAL_STORE_AGGREGATES = 1,  /* the run's aggregates (a whole, finished run) */
	SC_EVAL_STORE_SHARD = 2,       /* the shard's results JSON (one shard of a sharded
					* run: `skillci merge --run ID` joins them) */
};
/*
 * The one store write of a run (eval, run, merge), in one transaction:
 * the run's row (kind overrides r->run.kind when not NULL; results_path,
 * the results JSON written, may be NULL) and what what says (a set of
 * SC_EVAL_STORE_*). On an error nothing is written.
 */
int sc_eval_store_run(struct sc_store *st, const struct sc_results *r, const char *kind,
		      const char *results_path, unsigned what);

#endif
