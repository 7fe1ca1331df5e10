#ifndef SC_SHARDS_H
#define SC_SHARDS_H
/*
 * The shards of one sharded check and their merge (docs/run.md, "Shards";
 * `skillci merge`). A shard is the results of `skillci run --shard K/N`:
 * every shard computes the whole plan and keeps its part, and records
 * what it judged (struct sc_results_provenance: head, base, merge base,
 * the tree evaluated, the trusted policy's hash, with the plan hash
 * beside it, and the workflow run's id and attempt).
 *
 * sc_shards_check() refuses shards that do not make one whole plan of
 * one check (another plan hash or shard count, a shard missing or given
 * twice, an interrupted one, a unit outside the shard its id hashes to or
 * given twice, skills listed otherwise), that disagree with each other on
 * anything they judged, or that disagree with the commits and the run
 * merge is told to judge: a shard of an earlier head, of another run or
 * of another policy is refused, the message naming the field. Signatures
 * are checked before (results/signing.h): a signature says who wrote a
 * shard, the provenance what it judged.
 *
 * Ownership: results and labels are the caller's; sc_shards_merge() moves
 * the shards' units into the merged results.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_results;
struct sc_results_gate_policy;
struct sc_store;

/* What merge is told to judge; a NULL (or 0) member is not checked. */
struct sc_shards_expect {
	const char *head;                /* the pull request's head commit (hex) */
	const char *base;                /* the target's tip (hex) */
	const char *workflow_run_id;     /* as sc_shards_workflow_run() names it */
	int64_t workflow_run_attempt;
	const char *head_from, *base_from, *run_from;  /* where each came from, for messages */
};

/* The longest run id (--run-id, or one a CI system gives). */
#define SC_RUN_ID_MAX 128

/* A run id as it names a run in the store and in reports: 1 to
 * SC_RUN_ID_MAX letters, digits, '.', '_' and '-'. */
bool sc_shards_run_id_valid(const char *id);

/*
 * The id of a run (`skillci run`): given (--run-id) when not NULL, else
 * for a sharded run (shard_n > 1) the id its CI system gives every shard
 * of one job, "gh-GITHUB_RUN_ID" in GitHub Actions (GITHUB_ACTIONS=true),
 * else "slurm-SLURM_ARRAY_JOB_ID" in a Slurm array, so that `skillci
 * merge --run ID` finds them all; else (one shard, no such variable, or
 * a value that is no valid id) a new one (sc_eval_new_run_id). given is
 * not checked here (the command refuses a bad one). Returns a new string.
 */
char *sc_shards_run_id(const char *given, int shard_n);

/*
 * The CI run a check belongs to, from what the CI system sets: in GitHub
 * Actions (GITHUB_ACTIONS=true) "gh-GITHUB_RUN_ID" and GITHUB_RUN_ATTEMPT;
 * in a Slurm array "slurm-SLURM_ARRAY_JOB_ID" and SLURM_RESTART_COUNT + 1;
 * else run_id when given (--run-id: a Kubernetes Job's name), attempt 1;
 * else none (*id NULL, *attempt 0). *id is a new string.
 */
void sc_shards_workflow_run(char **id, int64_t *attempt, const char *run_id);

/*
 * Checks n shards (labels[i] names shard i in messages) as the file
 * comment says, against want (may be NULL). order[k-1] gets the index of
 * the shard holding shard k. 0, or SC_EINVAL naming the shard(s) and the
 * field.
 */
int sc_shards_check(size_t *order, const struct sc_results *sh, const char *const *labels,
		    size_t n, const struct sc_shards_expect *want);

/*
 * The gate thresholds every shard ran with (the same in all, taken from
 * the base revision by each run): *out points into sh[0]. SC_EINVAL
 * naming two shards that ran with different ones.
 */
int sc_shards_gate(const struct sc_results_gate_policy **out, const struct sc_results *sh,
		   const char *const *labels, size_t n);

/*
 * The merged results in out from the checked shards (taken in shard
 * order; their units are moved out), with the id run_id (NULL: a new
 * one): the first shard's frame, every unit, the earliest start and
 * latest finish, summed request counts, token use and history, then
 * fresh aggregates and comparisons (significance at alpha).
 */
void sc_shards_merge(struct sc_results *out, struct sc_results *sh, const size_t *order, size_t n,
		     const char *run_id, double alpha);

/* The shards of one run read from a results store, with their labels. */
struct sc_shards_stored {
	struct sc_results *sh;
	char **labels;
	size_t n, alloc, labels_alloc;
};
/*
 * Reads the shards of run_id from store, each verified against the
 * runner's keys (results/signing.h) and parsed. SC_ENOTFOUND when the
 * store holds none; SC_EINVAL naming the missing shards when some are
 * not there, or a shard that does not verify or parse.
 */
int sc_shards_load_stored(struct sc_shards_stored *out, struct sc_store *store,
			  const char *run_id);
void sc_shards_stored_release(struct sc_shards_stored *st);

#endif
