#ifndef SC_STORE_H
#define SC_STORE_H
/*
 * The results store: the tables runs, units, aggregates and run_shards and
 * a schema_version table (docs/store.md lists every column), in one of two
 * backends behind one interface:
 *
 *   - SQLite, a file (".skillci/results.db" by default): one box. WAL mode
 *     with a busy timeout; every write transaction is BEGIN IMMEDIATE, so
 *     several skillci processes on the machine can write one store.
 *   - PostgreSQL, a location "postgresql://…" (or "postgres://…"): a fleet
 *     of runners writing one store at once. Credentials come from the
 *     environment (PGPASSWORD), ~/.pgpass or a service file (PGSERVICE);
 *     a location holding a password is refused. Writes inside a
 *     transaction are kept and sent at sc_store_commit(); when the
 *     connection is lost (the server restarted) the store reconnects and
 *     sends the whole transaction again, and every write is idempotent,
 *     so nothing committed is lost or doubled.
 *
 * Both backends have the same schema and the same semantics; the SQL of
 * each is in its own file (store_sqlite.c, the only file that includes
 * <sqlite3.h>; store_pg.c, the only one that includes <libpq-fe.h>). No
 * library type appears here.
 *
 * Schema versions are applied in order, once, by whoever opens the store
 * first (under the write lock in SQLite, an advisory lock in PostgreSQL);
 * a store with a newer version than this program knows is refused.
 *
 * Reuse: a unit is identified by its key (struct sc_store_key): the skill
 * content hash (SC_STORE_NO_SKILL for a baseline), the test hash, the
 * fixture hash (or ""), the model, the prompt template hash, the harness
 * version and the run index. The key is unique in units: the first result
 * stored under a key stays, except that a result other than "error"
 * replaces an "error" one. sc_store_lookup_unit() returns it unless it is
 * an error.
 *
 * Ownership: records given to sc_store_put_*() are borrowed. Records filled
 * by the store own their strings; release them with the matching _release()
 * (a struct sc_store_unit keeps them in its "owned" list, so its fields are
 * const whoever built it). Records passed to callbacks are valid during the
 * call only.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strlist.h"

#define SC_STORE_DEFAULT_PATH ".skillci/results.db"
#define SC_STORE_SCHEMA_VERSION 5
/* The skill hash of a unit evaluated without a skill. */
#define SC_STORE_NO_SKILL "none"
/* The environment variable naming the store when no --store is given. */
#define SC_STORE_ENV "SKILLCI_STORE"

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
	const char *skill;          /* skill path as given (not NULL) */
	const char *skill_name;
	const char *variant;        /* baseline, base, head (not NULL) */
	const char *model;          /* (not NULL) */
	const char *test_id;        /* (not NULL) */
	const char *test_name;
	int run_index;
	const char *kind;           /* text, kernel (not NULL) */
	/* key hashes (not NULL) */
	const char *skill_hash, *test_hash, *fixture_hash, *prompt_hash, *harness;
	const char *verdict;        /* pass, fail, error, skipped (not NULL) */
	const char *error_class;
	const char *message;
	int64_t tokens_in, tokens_out;
	int turns;
	int64_t latency_ms;
	double judge_score;   /* NAN when none */
	/* kernel tests */
	const char *fixture;
	const char *compile;        /* ok, failed */
	const char *kernel_verdict; /* passed, compiled, compile_failed, ... */
	const char *compile_log;
	double max_abs_error; /* NAN when none */
	int registers;        /* -1 when none */
	double speedup;       /* over the naive baseline; NAN when none */
	const char *strong_reference;  /* its name, or why there is none (results.h) */
	double strong_speedup;         /* over the strong reference; NAN when none */
	double pct_of_peak;            /* share of the roofline, percent; NAN when none */
	const char *transcript;     /* JSON array of {"role","content"} */
	const char *run_id;         /* run that evaluated it (filled by lookups) */
	const char *mac;            /* HMAC under the runner key, as read; NULL for a new unit,
				     * whose MAC is computed when it is stored */
	bool reused;          /* not stored: set when taken from the store */
	/* A unit the store filled (lookup, each_unit) owns its strings here:
	 * sc_store_unit_release() frees them. A unit built by the caller for
	 * sc_store_put_unit() leaves this empty; its strings are borrowed. */
	struct sc_strlist owned;
};

/* A run, as listed by `skillci runs`. */
struct sc_store_run {
	const char *id;
	const char *kind;        /* eval, run, generate */
	const char *started_at;  /* ISO-8601 */
	const char *finished_at;
	bool complete;
	const char *models;      /* comma-separated */
	int runs;
	bool oracle;
	const char *results_path; /* results JSON written for it, or NULL */
	const char *repo;        /* the repository checked (owner/name or a URL), or NULL */
	const char *head_rev;    /* the head revision checked, or NULL */
};

/* Aggregate per (skill, variant, model) of one run. NAN for absent numbers. */
struct sc_store_aggregate {
	char *skill, *skill_name, *variant, *model;
	int n, passed, failed, errors, skipped;
	double pass_rate, ci_low, ci_high;
	double mean_tokens, mean_turns;
	double speedup_geomean, fast_1, fast_1_5, fast_2, judge_mean;
	double strong_speedup_geomean;
};

/* One point of history: an aggregate with the run it came from. */
struct sc_store_point {
	char *run_id;
	char *started_at;
	char *finished_at;
	char *repo, *head_rev;   /* the run's, NULL when not recorded (schema 3 and older) */
	struct sc_store_aggregate agg;
};

/*
 * The results of one shard of a sharded `skillci run` (the whole results
 * JSON), kept so that `skillci merge --run ID` can join the shards from
 * the store. (run_id, shard_index) is unique: a shard run again replaces
 * its row.
 */
struct sc_store_shard {
	const char *run_id;
	int shard_index, shard_count;  /* 1-based K of N */
	const char *plan_hash;
	const char *results;           /* the results JSON */
	const char *stored_at;         /* ISO-8601 */
};

/* Row counts of each table. */
struct sc_store_counts {
	int64_t runs, units, aggregates, shards;
};

/* True when location names a PostgreSQL store ("postgresql://", "postgres://"). */
bool sc_store_is_postgres(const char *location);

/*
 * Checks a store location without opening it: a PostgreSQL location that
 * holds a password, or that libpq cannot parse, is SC_EINVAL with a
 * message that shows the location with the password masked and says to
 * use PGPASSWORD, ~/.pgpass or a service file. A path is always fine.
 */
int sc_store_check_location(const char *location);

/*
 * The store location a command uses: flag (--store) when not NULL, else
 * $SKILLCI_STORE when set and not empty, else configured (the config's
 * store:) when not NULL, else SC_STORE_DEFAULT_PATH. Borrowed.
 */
const char *sc_store_location(const char *flag, const char *configured);

/*
 * Opens the store at location (see sc_store_location()), creating a
 * missing SQLite file (parents included) and applying every schema version
 * it lacks. A store written by a newer skillci (higher schema version) is
 * refused with SC_EINVAL; a location with a password too. A database that
 * cannot be reached is SC_EIO. Errors name the location (never a
 * password).
 */
int sc_store_open(struct sc_store **out, const char *location);
/* The same, for readers: a SQLite file that does not exist is
 * SC_ENOTFOUND (nothing is created). */
int sc_store_open_existing(struct sc_store **out, const char *location);
void sc_store_free(struct sc_store *store);
/* The location as shown in messages. */
const char *sc_store_path(const struct sc_store *store);
/* "sqlite" or "postgresql". */
const char *sc_store_backend(const struct sc_store *store);
/* The schema version in the store (SC_STORE_SCHEMA_VERSION once open). */
int sc_store_schema_version(struct sc_store *store, int *out);

/*
 * Transactions: waits for other writers (SQLite) or keeps the writes and
 * sends them at commit (PostgreSQL, retried as a whole after a lost
 * connection). Reads are not part of a transaction.
 */
int sc_store_begin(struct sc_store *store);
int sc_store_commit(struct sc_store *store);
void sc_store_rollback(struct sc_store *store);

/* Inserts or replaces a run row. */
int sc_store_put_run(struct sc_store *store, const struct sc_store_run *run);
/* Stores a unit evaluated by run_id, unless its key is stored already
 * (a stored "error" is replaced by another verdict). */
int sc_store_put_unit(struct sc_store *store, const char *run_id, const struct sc_store_unit *u);
/* Inserts or replaces one aggregate of run_id. */
int sc_store_put_aggregate(struct sc_store *store, const char *run_id,
			   const struct sc_store_aggregate *a);
/* Inserts or replaces the results of one shard. */
int sc_store_put_shard(struct sc_store *store, const struct sc_store_shard *shard);

/*
 * Finds the unit stored under key, unless its verdict is "error".
 * Returns 0 and fills out (release it), SC_ENOTFOUND when none (out left
 * empty), or another SC_E* on a database failure.
 */
int sc_store_lookup_unit(struct sc_store *store, struct sc_store_unit *out,
			 const struct sc_store_key *key);

/* Number of rows in units (all runs); for tests and `runs`. */
int sc_store_count_units(struct sc_store *store, int64_t *out);
/* Rows in every table. */
int sc_store_counts(struct sc_store *store, struct sc_store_counts *out);

/* Which units sc_store_each_unit() reads; NULL / false: no condition. */
struct sc_store_unit_filter {
	const char *skill;    /* skill path or skill name */
	const char *model;    /* canonical model name */
	const char *run_id;
	bool passing;         /* verdict "pass" only */
};

/* Callbacks: returning a negative SC_E* stops the walk with it. */
typedef int (*sc_store_unit_cb)(const struct sc_store_unit *u, void *payload);
typedef int (*sc_store_run_cb)(const struct sc_store_run *r, void *payload);
typedef int (*sc_store_aggregate_cb)(const char *run_id, const struct sc_store_aggregate *a,
				     void *payload);
typedef int (*sc_store_shard_cb)(const struct sc_store_shard *s, void *payload);

/*
 * Calls cb for every stored unit matching filter (NULL: all), oldest
 * first, with run_id filled. Returns 0, cb's error, or SC_E* on a
 * database failure. (export, store copy)
 */
int sc_store_each_unit(struct sc_store *store, const struct sc_store_unit_filter *filter,
		       sc_store_unit_cb cb, void *payload);
/* Every run row, by finished_at, then in the order they were first stored. */
int sc_store_each_run(struct sc_store *store, sc_store_run_cb cb, void *payload);
/* Every aggregate of every run, by run, skill, variant, model. */
int sc_store_each_aggregate(struct sc_store *store, sc_store_aggregate_cb cb, void *payload);
/* The shard results of run_id (NULL: of every run), by run and shard index. */
int sc_store_each_shard(struct sc_store *store, const char *run_id, sc_store_shard_cb cb,
			void *payload);

/*
 * History: every aggregate of every run, oldest first, optionally only for
 * one skill (path or name) and one model (NULL: all). *out is a new array
 * of *n points; free with sc_store_points_free().
 */
int sc_store_history(struct sc_store *store, struct sc_store_point **out, size_t *n,
		     const char *skill, const char *model);
void sc_store_points_free(struct sc_store_point *points, size_t n);

/* What sc_store_copy() read, and how many units were new in the target. */
struct sc_store_copy_stats {
	int64_t runs, units, new_units, aggregates, shards;
	/* units of from not copied: their MAC does not hold (planted, edited,
	 * unsigned), or they are signed by a key this runner does not trust
	 * (counted in both; unknown_key is the first such fingerprint) */
	int64_t skipped_units, unknown_key_units;
	char unknown_key[17];
};

/*
 * Copies every run, unit, aggregate and shard result of from into to
 * (another store, any backend), in transactions of SC_STORE_COPY_BATCH
 * rows. Idempotent: units whose key is in to are kept (the target's valid
 * rows stay), runs, aggregates and shards are replaced by the copy. Only
 * units whose MAC holds under this runner's key or a trusted one are
 * copied, each signed again under this runner's key; the others are
 * counted in stats. A unit of to signed by a key this runner does not
 * know stops the copy (SC_EUNSAFE, as sc_store_put_unit). Returns 0 or
 * the first error.
 */
int sc_store_copy(struct sc_store *to, struct sc_store *from, struct sc_store_copy_stats *stats);

/*
 * Checks a unit read from store (sc_store_each_unit): 0 when its MAC
 * holds under the key it names, this runner's or a trusted one
 * (results/signing.h); SC_EUNSAFE with a message naming the unit, and
 * for an unknown key its fingerprint and what to set.
 */
int sc_store_unit_verify(const struct sc_store *store, const struct sc_store_unit *u);

void sc_store_unit_init(struct sc_store_unit *u);
void sc_store_unit_release(struct sc_store_unit *u);
void sc_store_aggregate_init(struct sc_store_aggregate *a);

/*
 * Checks that the store can be written (a run does so before its first
 * request): SC_EIO naming the store when it is read-only.
 */
int sc_store_check_writable(struct sc_store *store);

#endif
