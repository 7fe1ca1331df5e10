#ifndef SC_PLAN_H
#define SC_PLAN_H
/*
 * The plan of a `skillci run` (docs/run.md, "Plan and shards"): every
 * work unit (skill, variant, model, test, run index) with a deterministic
 * id, a shard split by a stable hash of that id (the same on every
 * machine, whatever the order units were added in), and a plan hash that
 * every shard of one plan shares, so `skillci merge` can refuse shards of
 * different plans.
 *
 * Ownership: the plan owns its units and their strings; const char *
 * parameters are borrowed (copied when kept).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results/results.h"  /* enum sc_variant */

struct sc_buf;

struct sc_plan_unit {
	char *id;          /* "SKILL|VARIANT|MODEL|TEST_ID|RUN" */
	char *skill;
	enum sc_variant variant;
	char *model, *test_id;
	int run;
	char *content;     /* hashes that decide the unit (skill, test), part of the plan hash */
	uint64_t hash;     /* stable: the first 8 bytes of SHA-256(id), big-endian */
	int requests;      /* the most model requests the unit can make (1 unless set) */
	size_t prompt_bytes; /* its prompt as sent: system prompt and user message (budget.h); 0 unless set */
	size_t system_bytes; /* of which the system prompt (the skill's) */
	int64_t growth;    /* tokens each turn adds beside its answer (an agent's tool results) */
};

struct sc_plan {
	struct sc_plan_unit *units;   /* sorted by id after sc_plan_finish() */
	size_t n, alloc;
	char hash[65];                /* plan hash, after sc_plan_finish() */
};
#define SC_PLAN_INIT { NULL, 0, 0, "" }

/* Appends the unit id for these fields to out. */
void sc_plan_unit_id(struct sc_buf *out, const char *skill, enum sc_variant variant,
		     const char *model, const char *test_id, int run);
/* Adds a unit; content names what decides its outcome (skill and test hashes). */
void sc_plan_add(struct sc_plan *plan, const char *skill, enum sc_variant variant, const char *model,
		 const char *test_id, int run, const char *content);
/*
 * Sorts the units by id and computes the plan hash: SHA-256 over every
 * (id, content) pair in that order and the extra text (settings that
 * change every unit, such as the run count). SC_EINVAL when two units
 * share an id (naming it).
 */
int sc_plan_finish(struct sc_plan *plan, const char *extra);
/* The unit with this id, or NULL (the plan must be finished). */
const struct sc_plan_unit *sc_plan_find(const struct sc_plan *plan, const char *id);
void sc_plan_release(struct sc_plan *plan);

/* The stable 64-bit hash of a unit id. */
uint64_t sc_plan_hash_id(const char *id);
/* The shard (1..count) a unit id belongs to: hash mod count, plus one. */
int sc_plan_shard_of(const char *id, int count);

/*
 * Parses a --shard value: "K/N" (1 <= K <= N <= SC_MAX_SHARDS) or "auto",
 * which reads, in order: a Slurm job array (K = SLURM_ARRAY_TASK_ID -
 * SLURM_ARRAY_TASK_MIN + 1, MIN 0 when unset; N = SLURM_ARRAY_TASK_COUNT,
 * or MAX - MIN + 1), then a Kubernetes Indexed Job (K =
 * JOB_COMPLETION_INDEX + 1; N = count_hint when > 0, else
 * SKILLCI_SHARD_COUNT). Sets *k and *n (1-based). SC_EINVAL with a message
 * saying what is missing or out of range.
 */
int sc_plan_parse_shard(int *k, int *n, const char *spec, int count_hint);

#endif
