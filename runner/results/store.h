#ifndef SC_STORE_H
#define SC_STORE_H
/*
 * The results store: one SQLite database (".skillci/results.db" by
 * default) with the tables runs, units and aggregates and a schema_version
 * table (docs/evaluation.md lists every column). This is the only module
 * that includes <sqlite3.h>; no SQLite type appears here.
 *
 * The store is opened in WAL mode with a busy timeout, and every write is
 * one transaction (BEGIN IMMEDIATE), so several skillci processes can
 * evaluate into the same store at once.
 *
 * Reuse: a unit is identified by its key (struct sc_store_key): the skill
 * content hash (SC_STORE_NO_SKILL for a baseline), the test hash, the
 * fixture hash (or ""), the model, the prompt template hash, the harness
 * version and the run index. sc_store_lookup_unit() returns the newest
 * stored unit with that key whose verdict is not "error".
 *
 * Ownership: records given to sc_store_put_*() are borrowed. Records filled
 * by the store own their strings; release them with the matching _release().
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SC_STORE_DEFAULT_PATH ".skillci/results.db"
#define SC_STORE_SCHEMA_VERSION 1
/* The skill hash of a unit evaluated without a skill. */
#define SC_STORE_NO_SKILL "none"

struct sc_store;

/* Everything that decides a unit's outcome; equal keys may reuse a result. */
struct sc_store_key {
	const char *skill_hash;    /* SHA-256 of the skill's files, or SC_STORE_NO_SKILL */
	const char *test_hash;     /* sc_test_hash() */
	const char *fixture_hash;  /* pinned fixture hash, "" for text tests */
	const char *model;         /* canonical model name */
	const char *prompt_hash;   /* SHA-256 of the prompt template (eval.h) */
	const char *harness;       /* harness version (+ kernel mode and turns, + judge) */
	int run_index;
};

/* One evaluated work unit, as stored. Strings may be NULL unless noted. */
struct sc_store_unit {
	char *skill;          /* skill path as given (not NULL) */
	char *skill_name;
	char *variant;        /* baseline, base, head (not NULL) */
	char *model;          /* (not NULL) */
	char *test_id;        /* (not NULL) */
	char *test_name;
	int run_index;
	char *kind;           /* text, kernel (not NULL) */
	/* key hashes (not NULL) */
	char *skill_hash, *test_hash, *fixture_hash, *prompt_hash, *harness;
	char *verdict;        /* pass, fail, error, skipped (not NULL) */
	char *error_class;
	char *message;
	int64_t tokens_in, tokens_out;
	int turns;
	int64_t latency_ms;
	double judge_score;   /* NAN when none */
	/* kernel tests */
	char *fixture;
	char *compile;        /* ok, failed */
	char *kernel_verdict; /* passed, compiled, compile_failed, ... */
	char *compile_log;
	double max_abs_error; /* NAN when none */
	int registers;        /* -1 when none */
	double speedup;       /* NAN when none */
	char *transcript;     /* JSON array of {"role","content"} */
	char *run_id;         /* run that evaluated it (filled by lookups) */
	bool reused;          /* not stored: set when taken from the store */
};

/* A run, as listed by `skillci runs`. */
struct sc_store_run {
	const char *id;
	const char *kind;        /* eval, run */
	const char *started_at;  /* ISO-8601 */
	const char *finished_at;
	bool complete;
	const char *models;      /* comma-separated */
	int runs;
	bool oracle;
	const char *results_path; /* results JSON written for it, or NULL */
};

/* Aggregate per (skill, variant, model) of one run. NAN for absent numbers. */
struct sc_store_aggregate {
	char *skill, *skill_name, *variant, *model;
	int n, passed, failed, errors, skipped;
	double pass_rate, ci_low, ci_high;
	double mean_tokens, mean_turns;
	double speedup_geomean, fast_1, fast_1_5, fast_2, judge_mean;
};

/* One point of history: an aggregate with the run it came from. */
struct sc_store_point {
	char *run_id;
	char *finished_at;
	struct sc_store_aggregate agg;
};

/*
 * Opens (creating when missing, parents included) the store at path, sets
 * WAL mode and the busy timeout, and creates or checks the schema. A store
 * written by a newer skillci (higher schema version) is refused with
 * SC_EINVAL. Errors name the path.
 */
int sc_store_open(struct sc_store **out, const char *path);
void sc_store_free(struct sc_store *store);
const char *sc_store_path(const struct sc_store *store);

/* Transactions (BEGIN IMMEDIATE ... COMMIT); waits for other writers. */
int sc_store_begin(struct sc_store *store);
int sc_store_commit(struct sc_store *store);
void sc_store_rollback(struct sc_store *store);

/* Inserts or replaces a run row. */
int sc_store_put_run(struct sc_store *store, const struct sc_store_run *run);
/* Appends a unit evaluated by run_id. */
int sc_store_put_unit(struct sc_store *store, const char *run_id, const struct sc_store_unit *u);
/* Appends one aggregate of run_id. */
int sc_store_put_aggregate(struct sc_store *store, const char *run_id,
			   const struct sc_store_aggregate *a);

/*
 * Finds the newest unit stored under key with a verdict other than
 * "error". Returns 0 and fills out (release it), SC_ENOTFOUND when none
 * (out left empty), or another SC_E* on a database failure.
 */
int sc_store_lookup_unit(struct sc_store *store, struct sc_store_unit *out,
			 const struct sc_store_key *key);

/* Number of rows in units (all runs); for tests and `runs`. */
int sc_store_count_units(struct sc_store *store, int64_t *out);

/* Which units sc_store_each_unit() reads; NULL / false: no condition. */
struct sc_store_unit_filter {
	const char *skill;    /* skill path or skill name */
	const char *model;    /* canonical model name */
	const char *run_id;
	bool passing;         /* verdict "pass" only */
};

/* Called once per unit; returning a negative SC_E* stops the walk with it. */
typedef int (*sc_store_unit_cb)(const struct sc_store_unit *u, void *payload);

/*
 * Calls cb for every stored unit matching filter (NULL: all), oldest
 * first, with run_id filled. The unit is valid during the call only.
 * Returns 0, cb's error, or SC_E* on a database failure. (export)
 */
int sc_store_each_unit(struct sc_store *store, const struct sc_store_unit_filter *filter,
		       sc_store_unit_cb cb, void *payload);

/*
 * History: every aggregate of every run, oldest first, optionally only for
 * one skill (path or name) and one model (NULL: all). *out is a new array
 * of *n points; free with sc_store_points_free().
 */
int sc_store_history(struct sc_store *store, struct sc_store_point **out, size_t *n,
		     const char *skill, const char *model);
void sc_store_points_free(struct sc_store_point *points, size_t n);

void sc_store_unit_init(struct sc_store_unit *u);
void sc_store_unit_release(struct sc_store_unit *u);
void sc_store_aggregate_init(struct sc_store_aggregate *a);
void sc_store_aggregate_release(struct sc_store_aggregate *a);

#endif
