/*
 * The SQLite backend of the results store (store.h, store_backend.h): the
 * only file that includes <sqlite3.h>. Every statement is prepared once
 * with bound parameters; every write transaction is BEGIN IMMEDIATE so
 * that concurrent skillci processes queue behind SQLite's write lock (with
 * a busy timeout) instead of failing.
 */
#include "common.h"
#include "results/store.h"
#include "results/store_backend.h"

#include <math.h>
#include <sqlite3.h>
#include <time.h>
#include <unistd.h>

struct store_sqlite {
	struct sc_store base;
	sqlite3 *db;
	sqlite3_stmt *st[SC_ST__COUNT];  /* prepared on first use */
};

/*
 * The schema, one entry per version: entry v-1 takes a store from version
 * v-1 to v. Version 1 is the schema of skillci before PostgreSQL; version
 * 2 makes the unit key unique (keeping, of the rows with one key, the
 * newest that is not an error, as lookups did) and adds run_shards; 3
 * adds the units' mac (older rows have none and are never reused); 4 the
 * repository and head revision of a run (older runs have none: their
 * points in the history link nowhere); 5 a kernel unit's strong reference,
 * the speedup over it and its share of the roofline, and an aggregate's
 * geomean of strong speedups (older rows have NULL there). Runs
 * of one finished_at are in insertion order: the rowid here, runs.seq in
 * PostgreSQL.
 */
static const char *const migrations[SC_STORE_SCHEMA_VERSION] = {
	"CREATE TABLE IF NOT EXISTS runs ("
	"  id TEXT PRIMARY KEY, kind TEXT NOT NULL, started_at TEXT, finished_at TEXT,"
	"  complete INTEGER NOT NULL DEFAULT 1, models TEXT, runs INTEGER,"
	"  oracle INTEGER NOT NULL DEFAULT 0, results_path TEXT);"
	"CREATE TABLE IF NOT EXISTS units ("
	"  id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL,"
	"  skill TEXT NOT NULL, skill_name TEXT, variant TEXT NOT NULL, model TEXT NOT NULL,"
	"  test_id TEXT NOT NULL, test_name TEXT, run_index INTEGER NOT NULL, kind TEXT NOT NULL,"
	"  skill_hash TEXT NOT NULL, test_hash TEXT NOT NULL, fixture_hash TEXT NOT NULL,"
	"  prompt_hash TEXT NOT NULL, harness TEXT NOT NULL,"
	"  verdict TEXT NOT NULL, error_class TEXT, message TEXT,"
	"  tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL, turns INTEGER NOT NULL,"
	"  latency_ms INTEGER NOT NULL, judge_score REAL,"
	"  fixture TEXT, compile TEXT, kernel_verdict TEXT, compile_log TEXT,"
	"  max_abs_error REAL, registers INTEGER, speedup REAL, transcript TEXT,"
	"  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));"
	"CREATE INDEX IF NOT EXISTS units_key ON units"
	"  (skill_hash, test_hash, fixture_hash, model, prompt_hash, harness, run_index);"
	"CREATE INDEX IF NOT EXISTS units_run ON units (run_id);"
	"CREATE TABLE IF NOT EXISTS aggregates ("
	"  run_id TEXT NOT NULL, skill TEXT NOT NULL, skill_name TEXT, variant TEXT NOT NULL,"
	"  model TEXT NOT NULL, n INTEGER, passed INTEGER, failed INTEGER, errors INTEGER,"
	"  skipped INTEGER, pass_rate REAL, ci_low REAL, ci_high REAL, mean_tokens REAL,"
	"  mean_turns REAL, speedup_geomean REAL, fast_1 REAL, fast_1_5 REAL, fast_2 REAL,"
	"  judge_mean REAL, PRIMARY KEY (run_id, skill, variant, model));",

	"DELETE FROM units WHERE id IN (SELECT id FROM (SELECT id, row_number() OVER"
	"  (PARTITION BY " SC_STORE_UNIT_KEY " ORDER BY verdict = 'error', id DESC) AS k"
	"  FROM units) WHERE k > 1);"
	"DROP INDEX IF EXISTS units_key;"
	"CREATE UNIQUE INDEX units_identity ON units (" SC_STORE_UNIT_KEY ");"
	"CREATE TABLE run_shards ("
	"  run_id TEXT NOT NULL, shard_index INTEGER NOT NULL, shard_count INTEGER NOT NULL,"
	"  plan_hash TEXT, results TEXT NOT NULL, stored_at TEXT,"
	"  PRIMARY KEY (run_id, shard_index));",

	"ALTER TABLE units ADD COLUMN mac TEXT;",

	"ALTER TABLE runs ADD COLUMN repo TEXT; ALTER TABLE runs ADD COLUMN head_rev TEXT;",

	"ALTER TABLE units ADD COLUMN strong_reference TEXT; ALTER TABLE units ADD COLUMN strong_speedup REAL;"
	" ALTER TABLE units ADD COLUMN pct_of_peak REAL;"
	" ALTER TABLE aggregates ADD COLUMN strong_speedup_geomean REAL;",
};

#define NOW "strftime('%Y-%m-%dT%H:%M:%SZ','now')"

static const char *const sql[SC_ST__COUNT] = {
	[SC_ST_PUT_RUN] =
	"INSERT INTO runs (" SC_STORE_RUN_COLUMNS ") VALUES (?,?,?,?,?,?,?,?,?,?,?)"
	" ON CONFLICT (id) DO UPDATE SET " SC_STORE_RUN_UPDATE,
	[SC_ST_PUT_UNIT] =
	"INSERT INTO units (" SC_STORE_UNIT_COLUMNS ") VALUES"
	" (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
	" ON CONFLICT (" SC_STORE_UNIT_KEY ") DO UPDATE SET " SC_STORE_UNIT_UPDATE ","
	" created_at = " NOW " WHERE units.verdict = 'error' AND excluded.verdict <> 'error'",
	[SC_ST_PUT_AGGREGATE] =
	"INSERT INTO aggregates (" SC_STORE_AGGREGATE_COLUMNS ") VALUES"
	" (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
	" ON CONFLICT (run_id, skill, variant, model) DO UPDATE SET " SC_STORE_AGGREGATE_UPDATE,
	[SC_ST_PUT_SHARD] =
	"INSERT INTO run_shards (" SC_STORE_SHARD_COLUMNS ") VALUES (?,?,?,?,?,?)"
	" ON CONFLICT (run_id, shard_index) DO UPDATE SET " SC_STORE_SHARD_UPDATE,
	[SC_ST_DELETE_UNIT] =
	"DELETE FROM units WHERE"
	" skill_hash = ? AND test_hash = ? AND fixture_hash = ? AND model = ?"
	" AND prompt_hash = ? AND harness = ? AND run_index = ?",
	[SC_ST_LOOKUP_UNIT] =
	"SELECT " SC_STORE_UNIT_COLUMNS " FROM units WHERE"
	" skill_hash = ? AND test_hash = ? AND fixture_hash = ? AND model = ?"
	" AND prompt_hash = ? AND harness = ? AND run_index = ? AND verdict <> 'error'",
	[SC_ST_EACH_UNIT] =
	"SELECT " SC_STORE_UNIT_COLUMNS " FROM units WHERE"
	" (?1 IS NULL OR skill = ?1 OR skill_name = ?1)"
	" AND (?2 IS NULL OR model = ?2) AND (?3 IS NULL OR run_id = ?3)"
	" AND (?4 = 0 OR verdict = 'pass') ORDER BY id",
	[SC_ST_EACH_RUN] =
	"SELECT " SC_STORE_RUN_COLUMNS " FROM runs ORDER BY finished_at NULLS FIRST, rowid",
	[SC_ST_EACH_AGGREGATE] =
	"SELECT " SC_STORE_AGGREGATE_COLUMNS " FROM aggregates"
	" ORDER BY run_id, skill, variant, model",
	[SC_ST_EACH_SHARD] =
	"SELECT " SC_STORE_SHARD_COLUMNS " FROM run_shards WHERE (?1 IS NULL OR run_id = ?1)"
	" ORDER BY run_id, shard_index",
	[SC_ST_HISTORY] =
	"SELECT a.run_id, r.started_at, r.finished_at, r.repo, r.head_rev, a.skill, a.skill_name,"
	" a.variant,"
	" a.model, a.n, a.passed, a.failed, a.errors, a.skipped, a.pass_rate, a.ci_low,"
	" a.ci_high, a.mean_tokens, a.mean_turns, a.speedup_geomean, a.fast_1,"
	" a.fast_1_5, a.fast_2, a.judge_mean, a.strong_speedup_geomean"
	" FROM aggregates a JOIN runs r ON r.id = a.run_id"
	" WHERE (?1 IS NULL OR a.skill = ?1 OR a.skill_name = ?1)"
	"   AND (?2 IS NULL OR a.model = ?2)"
	" ORDER BY r.finished_at NULLS FIRST, r.rowid, a.skill, a.model,"
	"   CASE a.variant WHEN 'baseline' THEN 0 WHEN 'base' THEN 1 ELSE 2 END",
	[SC_ST_COUNT_RUNS] = "SELECT count(*) FROM runs",
	[SC_ST_COUNT_UNITS] = "SELECT count(*) FROM units",
	[SC_ST_COUNT_AGGREGATES] = "SELECT count(*) FROM aggregates",
	[SC_ST_COUNT_SHARDS] = "SELECT count(*) FROM run_shards",
	[SC_ST_SCHEMA_VERSION] = "SELECT max(version) FROM schema_version",
};

/* Turns the database's current error into ours, naming the store. */
static int db_fail(struct store_sqlite *s, const char *what)
{
	int code = sqlite3_errcode(s->db);
	int err = (code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_BUSY ||
		   code == SQLITE_LOCKED || code == SQLITE_CANTOPEN || code == SQLITE_READONLY ||
		   code == SQLITE_PERM) ? SC_EIO : SC_ERROR;

	return sc_error_set(err, "store '%s': %s: %s", s->base.display, what,
			    sqlite3_errmsg(s->db));
}

static int exec_sql(struct store_sqlite *s, const char *text, const char *what)
{
	if (sqlite3_exec(s->db, text, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(s, what);
	return 0;
}

static int sl_begin(struct sc_store *store)
{
	return exec_sql((struct store_sqlite *)store, "BEGIN IMMEDIATE", "begin transaction");
}

static int sl_commit(struct sc_store *store)
{
	return exec_sql((struct store_sqlite *)store, "COMMIT", "commit");
}

static void sl_rollback(struct sc_store *store)
{
	struct store_sqlite *s = (struct store_sqlite *)store;

	if (!sqlite3_get_autocommit(s->db))
		sqlite3_exec(s->db, "ROLLBACK", NULL, NULL, NULL);
}

/*
 * The prepared statement for st. When the cached one is in use (a
 * callback of a query running another query of the same kind), a fresh
 * one is prepared and *temp set: the caller finalizes it.
 */
static int stmt(struct store_sqlite *s, sqlite3_stmt **out, enum sc_store_stmt st, bool *temp)
{
	*temp = false;
	if (s->st[st] && sqlite3_stmt_busy(s->st[st])) {
		*temp = true;
		if (sqlite3_prepare_v2(s->db, sql[st], -1, out, NULL) != SQLITE_OK)
			return db_fail(s, "prepare");
		return 0;
	}
	if (!s->st[st] && sqlite3_prepare_v2(s->db, sql[st], -1, &s->st[st], NULL) != SQLITE_OK)
		return db_fail(s, "prepare");
	*out = s->st[st];
	return 0;
}

static void done_stmt(sqlite3_stmt *st, bool temp)
{
	if (temp) {
		sqlite3_finalize(st);
		return;
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
}

static void bind(sqlite3_stmt *st, const struct sc_store_value *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int k = (int)i + 1;
		switch (p[i].type) {
		case SC_STORE_TEXT:
			sqlite3_bind_text(st, k, p[i].text, -1, SQLITE_TRANSIENT);
			break;
		case SC_STORE_INT:
			sqlite3_bind_int64(st, k, p[i].i);
			break;
		case SC_STORE_REAL:
			sqlite3_bind_double(st, k, p[i].d);
			break;
		case SC_STORE_NULL:
			sqlite3_bind_null(st, k);
			break;
		}
	}
}

static int sl_write(struct sc_store *store, enum sc_store_stmt which,
		    const struct sc_store_value *p, size_t n)
{
	struct store_sqlite *s = (struct store_sqlite *)store;
	sqlite3_stmt *st;
	bool temp;
	int err;

	if ((err = stmt(s, &st, which, &temp)) < 0)
		return err;
	bind(st, p, n);
	err = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(s, sc_store_stmt_what(which));
	done_stmt(st, temp);
	return err;
}

static int sl_query(struct sc_store *store, enum sc_store_stmt which,
		    const struct sc_store_value *p, size_t n, const enum sc_store_type *types,
		    size_t ncols, sc_store_row_cb cb, void *payload)
{
	struct store_sqlite *s = (struct store_sqlite *)store;
	struct sc_store_value cols[SC_STORE_MAX_PARAMS];
	sqlite3_stmt *st;
	bool temp;
	int err, rc;

	assert(ncols <= SC_ARRAY_SIZE(cols));
	if ((err = stmt(s, &st, which, &temp)) < 0)
		return err;
	bind(st, p, n);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		for (size_t i = 0; i < ncols; i++) {
			struct sc_store_value *c = &cols[i];
			int k = (int)i;
			memset(c, 0, sizeof(*c));
			if (sqlite3_column_type(st, k) == SQLITE_NULL)
				continue;
			c->type = types[i];
			if (types[i] == SC_STORE_TEXT)
				c->text = (const char *)sqlite3_column_text(st, k);
			else if (types[i] == SC_STORE_INT)
				c->i = sqlite3_column_int64(st, k);
			else if (types[i] == SC_STORE_REAL)
				c->d = sqlite3_column_double(st, k);
		}
		if ((err = cb(cols, ncols, payload)) < 0)
			break;
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = db_fail(s, sc_store_stmt_what(which));
	done_stmt(st, temp);
	return err;
}

static void sl_close(struct sc_store *store)
{
	struct store_sqlite *s = (struct store_sqlite *)store;

	for (size_t i = 0; i < SC_ST__COUNT; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	free(s->base.display);
	free(s);
}

static const struct sc_store_ops sqlite_ops = {
	"sqlite", sl_begin, sl_commit, sl_rollback, sl_write, sl_query, sl_close,
};

static int on_version(const struct sc_store_value *c, size_t n, void *payload)
{
	SC_UNUSED(n);
	*(int *)payload = c[0].type == SC_STORE_INT ? (int)c[0].i : 0;
	return 0;
}

/*
 * Brings the schema to SC_STORE_SCHEMA_VERSION in one write transaction
 * (BEGIN IMMEDIATE: one process migrates, the others wait and then find
 * it done). A newer store is refused.
 */
static int migrate(struct store_sqlite *s)
{
	struct sc_store_value v;
	int err, version = 0;

	if ((err = sl_begin(&s->base)) < 0)
		return err;
	if ((err = exec_sql(s, "CREATE TABLE IF NOT EXISTS schema_version"
			    " (version INTEGER NOT NULL)", "create schema")) < 0)
		goto done;
	if ((err = sl_query(&s->base, SC_ST_SCHEMA_VERSION, NULL, 0,
			    (const enum sc_store_type[]){ SC_STORE_INT }, 1, on_version,
			    &version)) < 0)
		goto done;
	if (version > SC_STORE_SCHEMA_VERSION) {
		err = sc_store_newer_schema(s->base.display, version);
		goto done;
	}
	for (int to = version + 1; to <= SC_STORE_SCHEMA_VERSION; to++) {
		sqlite3_stmt *st = NULL;
		if ((err = exec_sql(s, migrations[to - 1], "migrate schema")) < 0)
			goto done;
		if (sqlite3_prepare_v2(s->db, "INSERT INTO schema_version VALUES (?)", -1, &st,
				       NULL) != SQLITE_OK) {
			err = db_fail(s, "set schema version");
			goto done;
		}
		v.type = SC_STORE_INT;
		v.i = to;
		bind(st, &v, 1);
		err = sqlite3_step(st) == SQLITE_DONE ? 0 : db_fail(s, "set schema version");
		sqlite3_finalize(st);
		if (err < 0)
			goto done;
	}
	err = sl_commit(&s->base);
done:
	if (err < 0)
		sl_rollback(&s->base);
	return err;
}

/*
 * Switches the store to WAL mode. Two processes opening a fresh store at
 * once can both try to convert it; SQLite then answers "locked" without
 * calling the busy handler, so this retries for up to the busy timeout.
 */
static int set_wal(struct store_sqlite *s)
{
	const struct timespec pause = { 0, 10 * 1000 * 1000 };
	int rc = SQLITE_OK;

	for (int waited = 0; waited < SC_STORE_BUSY_TIMEOUT_MS; waited += 10) {
		rc = sqlite3_exec(s->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
		if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
			break;
		nanosleep(&pause, NULL);
	}
	if (rc != SQLITE_OK)
		return db_fail(s, "set WAL mode");
	return exec_sql(s, "PRAGMA synchronous=NORMAL", "set synchronous mode");
}

int sc_store_sqlite_open(struct sc_store **out, const char *path, bool must_exist)
{
	struct store_sqlite *s;
	struct sc_buf dir = SC_BUF_INIT;
	const char *slash = strrchr(path, '/');
	int err;

	*out = NULL;
	if (must_exist && access(path, F_OK) != 0)
		return sc_error_set(SC_ENOTFOUND, "no results store at '%s'", path);
	if (!must_exist && slash && slash != path) {
		sc_buf_put(&dir, path, (size_t)(slash - path));
		err = sc_mkdir_p(dir.ptr);
		sc_buf_release(&dir);
		if (err < 0)
			return err;
	}
	s = sc_xcalloc(1, sizeof(*s));
	s->base.ops = &sqlite_ops;
	s->base.display = sc_xstrdup(path);
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		err = sc_error_set(SC_EIO, "cannot open store '%s': %s", path,
				   s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto done;
	}
	sqlite3_busy_timeout(s->db, SC_STORE_BUSY_TIMEOUT_MS);
	if ((err = set_wal(s)) < 0)
		goto done;
	if ((err = migrate(s)) < 0)
		goto done;
	*out = &s->base;
	s = NULL;
done:
	if (s)
		sl_close(&s->base);
	return err;
}
