#ifndef SC_STORE_BACKEND_H
#define SC_STORE_BACKEND_H
/*
 * Inside the results store (store.h): what store.c, the backend-neutral
 * part, asks of a backend (store_sqlite.c, store_pg.c). Only the store's
 * own files include this header.
 *
 * store.c turns records into rows of typed values and back; a backend
 * runs numbered statements (enum sc_store_stmt) with those values as
 * parameters, in its own SQL dialect. The parameters and result columns
 * of each statement are listed below, in order; every backend's SQL for a
 * statement takes and returns exactly those.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "results/store.h"

enum sc_store_type { SC_STORE_NULL, SC_STORE_TEXT, SC_STORE_INT, SC_STORE_REAL };

/* A parameter or a column. Text is borrowed. A NULL text is SQL NULL. */
struct sc_store_value {
	enum sc_store_type type;
	const char *text;
	int64_t i;
	double d;
};

/*
 * UNIT_COLUMNS, in order (34): skill, skill_name, variant, model, test_id,
 * test_name, run_index, kind, skill_hash, test_hash, fixture_hash,
 * prompt_hash, harness, verdict, error_class, message, tokens_in,
 * tokens_out, turns, latency_ms, judge_score, fixture, compile,
 * kernel_verdict, compile_log, max_abs_error, registers, speedup,
 * transcript, run_id, strong_reference, strong_speedup, pct_of_peak
 * (schema 5), mac (schema 3: HMAC-SHA-256 under the runner key over the
 * other 33, store.c).
 *
 * RUN_COLUMNS (9): id, kind, started_at, finished_at, complete, models,
 * runs, oracle, results_path.
 *
 * AGGREGATE_COLUMNS (20): run_id, skill, skill_name, variant, model, n,
 * passed, failed, errors, skipped, pass_rate, ci_low, ci_high,
 * mean_tokens, mean_turns, speedup_geomean, fast_1, fast_1_5, fast_2,
 * judge_mean, strong_speedup_geomean (schema 5).
 *
 * SHARD_COLUMNS (6): run_id, shard_index, shard_count, plan_hash,
 * results, stored_at.
 */

/* SQL both dialects share: column lists and the upserts' SET lists. */
#define SC_STORE_UNIT_COLUMNS \
	"skill, skill_name, variant, model, test_id, test_name, " \
	"run_index, kind, skill_hash, test_hash, fixture_hash, " \
	"prompt_hash, harness, verdict, error_class, message, tokens_in, " \
	"tokens_out, turns, latency_ms, judge_score, fixture, compile, " \
	"kernel_verdict, compile_log, max_abs_error, registers, speedup, " \
	"transcript, run_id, strong_reference, strong_speedup, pct_of_peak, mac"
#define SC_STORE_UNIT_KEY \
	"skill_hash, test_hash, fixture_hash, model, prompt_hash, harness, run_index"
#define SC_STORE_UNIT_UPDATE \
	"skill = excluded.skill, skill_name = excluded.skill_name, " \
	"variant = excluded.variant, model = excluded.model, " \
	"test_id = excluded.test_id, test_name = excluded.test_name, " \
	"run_index = excluded.run_index, kind = excluded.kind, " \
	"skill_hash = excluded.skill_hash, " \
	"test_hash = excluded.test_hash, " \
	"fixture_hash = excluded.fixture_hash, " \
	"prompt_hash = excluded.prompt_hash, harness = excluded.harness, " \
	"verdict = excluded.verdict, error_class = excluded.error_class, " \
	"message = excluded.message, tokens_in = excluded.tokens_in, " \
	"tokens_out = excluded.tokens_out, turns = excluded.turns, " \
	"latency_ms = excluded.latency_ms, " \
	"judge_score = excluded.judge_score, fixture = excluded.fixture, " \
	"compile = excluded.compile, " \
	"kernel_verdict = excluded.kernel_verdict, " \
	"compile_log = excluded.compile_log, " \
	"max_abs_error = excluded.max_abs_error, " \
	"registers = excluded.registers, speedup = excluded.speedup, " \
	"transcript = excluded.transcript, run_id = excluded.run_id, " \
	"strong_reference = excluded.strong_reference, " \
	"strong_speedup = excluded.strong_speedup, " \
	"pct_of_peak = excluded.pct_of_peak, mac = excluded.mac"
#define SC_STORE_RUN_COLUMNS \
	"id, kind, started_at, finished_at, complete, models, runs, " \
	"oracle, results_path, repo, head_rev"
#define SC_STORE_RUN_UPDATE \
	"kind = excluded.kind, started_at = excluded.started_at, " \
	"finished_at = excluded.finished_at, " \
	"complete = excluded.complete, models = excluded.models, " \
	"runs = excluded.runs, oracle = excluded.oracle, " \
	"results_path = excluded.results_path, repo = excluded.repo, " \
	"head_rev = excluded.head_rev"
#define SC_STORE_AGGREGATE_COLUMNS \
	"run_id, skill, skill_name, variant, model, n, passed, failed, " \
	"errors, skipped, pass_rate, ci_low, ci_high, mean_tokens, " \
	"mean_turns, speedup_geomean, fast_1, fast_1_5, fast_2, " \
	"judge_mean, strong_speedup_geomean"
#define SC_STORE_AGGREGATE_UPDATE \
	"skill_name = excluded.skill_name, n = excluded.n, " \
	"passed = excluded.passed, failed = excluded.failed, " \
	"errors = excluded.errors, skipped = excluded.skipped, " \
	"pass_rate = excluded.pass_rate, ci_low = excluded.ci_low, " \
	"ci_high = excluded.ci_high, mean_tokens = excluded.mean_tokens, " \
	"mean_turns = excluded.mean_turns, " \
	"speedup_geomean = excluded.speedup_geomean, " \
	"fast_1 = excluded.fast_1, fast_1_5 = excluded.fast_1_5, " \
	"fast_2 = excluded.fast_2, judge_mean = excluded.judge_mean, " \
	"strong_speedup_geomean = excluded.strong_speedup_geomean"
#define SC_STORE_SHARD_COLUMNS \
	"run_id, shard_index, shard_count, plan_hash, results, stored_at"
#define SC_STORE_SHARD_UPDATE \
	"shard_count = excluded.shard_count, " \
	"plan_hash = excluded.plan_hash, results = excluded.results, " \
	"stored_at = excluded.stored_at"

#define SC_STORE_UNIT_NCOLS 34
#define SC_STORE_UNIT_NCOLS_V4 31  /* before schema 5: the MAC of older rows covers their 30 */
#define SC_STORE_RUN_NCOLS 11
#define SC_STORE_AGGREGATE_NCOLS 21
#define SC_STORE_SHARD_NCOLS 6

enum sc_store_stmt {
	SC_ST_PUT_RUN,        /* params RUN_COLUMNS; upsert on id */
	SC_ST_PUT_UNIT,       /* params UNIT_COLUMNS; insert, on the key: keep, or
			       * replace an "error" by another verdict */
	SC_ST_PUT_AGGREGATE,  /* params AGGREGATE_COLUMNS; upsert on (run_id, skill, variant, model) */
	SC_ST_PUT_SHARD,      /* params SHARD_COLUMNS; upsert on (run_id, shard_index) */
	SC_ST_LOOKUP_UNIT,    /* params skill_hash, test_hash, fixture_hash, model, prompt_hash,
			       * harness, run_index; columns UNIT_COLUMNS of the unit
			       * under that key unless its verdict is "error" */
	SC_ST_EACH_UNIT,      /* params skill (path or name), model, run_id (each NULL: any),
			       * passing (0/1); columns UNIT_COLUMNS, by id */
	SC_ST_EACH_RUN,       /* columns RUN_COLUMNS, by finished_at (NULL first), then in
			       * the order the runs were first stored */
	SC_ST_EACH_AGGREGATE, /* columns AGGREGATE_COLUMNS, by run_id, skill, variant, model */
	SC_ST_EACH_SHARD,     /* params run_id (NULL: any); columns SHARD_COLUMNS,
			       * by run_id, shard_index */
	SC_ST_HISTORY,        /* params skill (path or name), model (NULL: any); columns
			       * run_id, started_at, finished_at, then AGGREGATE_COLUMNS
			       * without run_id; by finished_at (NULL first), the order
			       * runs were first stored, skill, model, variant
			       * (baseline, base, head) */
	SC_ST_COUNT_RUNS,     /* column count(*) */
	SC_ST_COUNT_UNITS,
	SC_ST_COUNT_AGGREGATES,
	SC_ST_COUNT_SHARDS,
	SC_ST_SCHEMA_VERSION, /* column max(version) */
	SC_ST_DELETE_UNIT,    /* (last: the statements keep their numbers)
			       * params skill_hash, test_hash, fixture_hash, model, prompt_hash,
			       * harness, run_index; removes the unit under that key (one
			       * whose MAC does not hold, so the new answer can take its place) */
	SC_ST__COUNT
};

/* Called once per result row with the statement's columns (valid during
 * the call); a negative return stops the query with it. */
typedef int (*sc_store_row_cb)(const struct sc_store_value *cols, size_t ncols, void *payload);

struct sc_store_ops {
	const char *name;  /* "sqlite", "postgresql" */
	int (*begin)(struct sc_store *s);
	int (*commit)(struct sc_store *s);
	void (*rollback)(struct sc_store *s);
	/* Runs a write statement (inside the open transaction, if any). */
	int (*write)(struct sc_store *s, enum sc_store_stmt st, const struct sc_store_value *params,
		     size_t nparams);
	/* Runs a read statement; each column is read as types[i] (or NULL). */
	int (*query)(struct sc_store *s, enum sc_store_stmt st, const struct sc_store_value *params,
		     size_t nparams, const enum sc_store_type *types, size_t ncols,
		     sc_store_row_cb cb, void *payload);
	void (*close)(struct sc_store *s);
};

/* The common head of every backend's store (its first member). */
struct sc_store {
	const struct sc_store_ops *ops;
	char *display;  /* the location as shown in messages */
};

/* Backends: each sets *out to a new store whose head is filled. */
int sc_store_sqlite_open(struct sc_store **out, const char *path, bool must_exist);
int sc_store_pg_open(struct sc_store **out, const char *location);
/* SC_EINVAL when location holds a password or does not parse (store_pg.c). */
int sc_store_pg_check(const char *location);

/* What a statement does, for error messages ("insert unit"). */
const char *sc_store_stmt_what(enum sc_store_stmt which);

/* The error for a store whose schema is newer than this program's. */
int sc_store_newer_schema(const char *display, int version);

#endif
