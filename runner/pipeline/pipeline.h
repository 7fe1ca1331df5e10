#ifndef SC_PIPELINE_H
#define SC_PIPELINE_H
/*
 * The PR check as a library (docs/run.md): the stages `skillci run` goes
 * through, each callable and testable without the command line.
 *
 *   sc_pipeline_open()      the repository and the two revisions, the work
 *                           folder, the policy from the base revision
 *                           (trust.h), the flags over it, the fixtures and
 *                           the models the check may use;
 *   sc_pipeline_prepare()   the changed skills, both sides of each written
 *                           out and loaded, their findings compared, the
 *                           kernel harness, the plan and this shard's
 *                           units, the budget;
 *   sc_pipeline_evaluate()  every unit of the shard streamed through one
 *                           client (eval.h: sc_eval_run_units), finished
 *                           units committed to the store as they finish;
 *   sc_pipeline_finish()    the results model: aggregates, comparisons and
 *                           the gate (merge's for a shard).
 *
 * Between the stages the command prints what the stages return (findings,
 * the budget line), checks where the reports go and opens the store; the
 * pipeline prints nothing. Reports are written from the results it returns
 * (reporters/reports.h).
 *
 * Ownership: the pipeline owns everything it builds; the options'
 * strings, the store and the callbacks' payload are borrowed and must
 * outlive it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eval/eval.h"

struct sc_buf;
struct sc_client_options;
struct sc_config;
struct sc_diags;
struct sc_results;
struct sc_store;
struct sc_pipeline;

struct sc_pipeline_options {
	const char *repo;                /* a path or a URL (cloned under .skillci/repos) */
	const char *base, *head;         /* NULL: the GitHub event's, else the defaults */
	const char *config;              /* --config, or NULL */
	const char *const *models;       /* -m, as given; none: the trusted config's */
	size_t nmodels;
	int runs, concurrency, max_units, max_requests;  /* 0: the config's */
	int retries;                     /* retries per request after the first try */
	int jobs;                        /* kernel checks at once; 0: sc_kernelops_default_jobs */
	const char *fixtures;            /* --fixtures, or NULL */
	const char *cache;               /* --cache, or NULL (the config's) */
	bool no_cache, offline, no_reuse, compile_only, allow_unpinned;
	int shard_k, shard_n;            /* this shard, 1-based; 1/1 when not sharded */
	const char *run_id;              /* the run's id (every shard's the same) */
	/* the CI run the check belongs to (shards.h: sc_shards_workflow_run),
	 * recorded in the provenance; NULL outside one */
	const char *workflow_run_id;
	int64_t workflow_run_attempt;
	const char *workspace;           /* the current folder, resolved: paths stay inside */
	/* while evaluating (may be NULL): each unit decided, what is going on
	 * now, and whether to stop starting units; with payload */
	sc_eval_progress_cb on_unit;
	sc_eval_activity_cb on_activity;
	bool (*stop)(void *payload);
	void *payload;
};

/* What the stages found out, for the command's lines and exit code. */
struct sc_pipeline_info {
	size_t changed;                  /* changed skills */
	size_t plan_units;               /* units of every shard */
	size_t units;                    /* this shard's units */
	int64_t max_requests;            /* the most requests they may make */
	size_t evaluated;                /* units decided by sc_pipeline_evaluate */
	bool stopped;                    /* stopped before every unit was decided */
	const char *cache_dir;           /* the response cache used, or NULL */
	const char *store_location;      /* --store, $SKILLCI_STORE, config, default */
};

struct sc_pipeline *sc_pipeline_new(void);
void sc_pipeline_free(struct sc_pipeline *p);

/*
 * The repository, the revisions, the work folder, the configuration from
 * the base revision (its findings appended to diags, with the fixtures'),
 * the flags over it, the fixtures and the models. A configuration with an
 * error finding is SC_EINVAL "the configuration has errors (above)"; no
 * model named anywhere SC_EINVAL too. Other errors as the parts say
 * (git: SC_ENOTFOUND for an unknown revision).
 */
int sc_pipeline_open(struct sc_pipeline *p, const struct sc_pipeline_options *opt,
		     struct sc_diags *diags);
/* The configuration in force after sc_pipeline_open (flags applied). */
const struct sc_config *sc_pipeline_config(const struct sc_pipeline *p);

/*
 * The changed skills, their sides, findings (in the results' skills), the
 * kernel harness, the plan and the budget (its line appended to
 * budget_line; SC_EINVAL when the plan is over it). store (borrowed, open)
 * is where units are reused from and committed to.
 */
int sc_pipeline_prepare(struct sc_pipeline *p, struct sc_store *store,
			struct sc_buf *budget_line);
/* Evaluates this shard's units; 0 also when stopped (see the info). */
int sc_pipeline_evaluate(struct sc_pipeline *p);
/*
 * Fills the results: the run, aggregates, comparisons and the gate (for a
 * shard of several: no gate, merge decides), sorted. Sets *gate_rc to the
 * gate's exit code (0, 1, or 3 for too many errors).
 */
int sc_pipeline_finish(struct sc_pipeline *p, int *gate_rc);

/*
 * The client's options of a check under cfg (flags applied): the cache
 * (offline: answers from it only), the total and per-provider bounds of
 * concurrency, the retries and the request timeout. `eval` uses it too
 * (evalrun.h).
 */
void sc_pipeline_client_options(struct sc_client_options *copt, const struct sc_config *cfg,
				const char *cache_dir, bool offline, int retries);

/* The results (skills after prepare, everything after finish); the
 * pipeline keeps them. */
struct sc_results *sc_pipeline_results(struct sc_pipeline *p);
void sc_pipeline_info(const struct sc_pipeline *p, struct sc_pipeline_info *out);
/*
 * The pull request the check is about (pipeline/ghpr.h: the job's own
 * event, or the GitHub API in a workflow_run job); 0 when none or not
 * known yet. The sticky comment goes there.
 */
long long sc_pipeline_pr_number(const struct sc_pipeline *p);
/* Whether the repository opened is a shallow clone (for a setup error's hint). */
bool sc_pipeline_shallow(const struct sc_pipeline *p);

#endif
