/*
 * The SQLite results store (see store.h). Every statement is prepared with
 * bound parameters; every write runs inside BEGIN IMMEDIATE so that
 * concurrent skillci processes queue behind SQLite's write lock (with a
 * busy timeout) instead of failing.
 */
#include "common.h"
#include "results/store.h"

#include <math.h>
#include <sqlite3.h>
#include <time.h>

#define BUSY_TIMEOUT_MS 30000

struct sc_store {
	sqlite3 *db;
	char *path;
	sqlite3_stmt *lookup;  /* prepared once, reset for each unit */
	sqlite3_stmt *insert;
};

static const char *const schema_sql =
	"CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);"
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
	"  judge_mean REAL, PRIMARY KEY (run_id, skill, variant, model));";

/* Turns the database's current error into ours, naming the store. */
static int db_fail(struct sc_store *s, const char *what)
{
	int code = sqlite3_errcode(s->db);
	int err = (code == SQLITE_FULL || code == SQLITE_IOERR || code == SQLITE_BUSY ||
		   code == SQLITE_LOCKED) ? SC_EIO : SC_ERROR;

	return sc_error_set(err, "store '%s': %s: %s", s->path, what, sqlite3_errmsg(s->db));
}

static int exec_sql(struct sc_store *s, const char *sql, const char *what)
{
	if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return db_fail(s, what);
	return 0;
}

static int prepare(struct sc_store *s, sqlite3_stmt **st, const char *sql)
{
	if (sqlite3_prepare_v2(s->db, sql, -1, st, NULL) != SQLITE_OK)
		return db_fail(s, "prepare");
	return 0;
}

static void bind_text(sqlite3_stmt *st, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(st, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, i);
}

static void bind_real(sqlite3_stmt *st, int i, double v)
{
	if (isnan(v) || isinf(v))
		sqlite3_bind_null(st, i);
	else
		sqlite3_bind_double(st, i, v);
}

static char *col_text(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);
	return t ? sc_xstrdup((const char *)t) : NULL;
}

static double col_real(sqlite3_stmt *st, int i)
{
	if (sqlite3_column_type(st, i) == SQLITE_NULL)
		return NAN;
	return sqlite3_column_double(st, i);
}

/* Reads the schema version; creates tables in a fresh store. */
static int init_schema(struct sc_store *s)
{
	sqlite3_stmt *st = NULL;
	int err, version = 0, rc;

	if ((err = sc_store_begin(s)) < 0)
		return err;
	if ((err = exec_sql(s, schema_sql, "create schema")) < 0)
		goto done;
	if ((err = prepare(s, &st, "SELECT max(version) FROM schema_version")) < 0)
		goto done;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL)
		version = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	st = NULL;
	if (version > SC_STORE_SCHEMA_VERSION) {
		err = sc_error_set(SC_EINVAL,
				   "store '%s' has schema version %d, newer than this skillci's %d; "
				   "upgrade skillci or use another --store",
				   s->path, version, SC_STORE_SCHEMA_VERSION);
		goto done;
	}
	if (version == 0 &&
	    (err = exec_sql(s, "INSERT INTO schema_version VALUES (1)", "set schema version")) < 0)
		goto done;
	err = sc_store_commit(s);
done:
	if (err < 0)
		sc_store_rollback(s);
	return err;
}

/*
 * Switches the store to WAL mode. Two processes opening a fresh store at
 * once can both try to convert it; SQLite then answers "locked" without
 * calling the busy handler, so this retries for up to the busy timeout.
 */
static int set_wal(struct sc_store *s)
{
	const struct timespec pause = { 0, 10 * 1000 * 1000 };
	int rc = SQLITE_OK;

	for (int waited = 0; waited < BUSY_TIMEOUT_MS; waited += 10) {
		rc = sqlite3_exec(s->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
		if (rc != SQLITE_BUSY && rc != SQLITE_LOCKED)
			break;
		nanosleep(&pause, NULL);
	}
	if (rc != SQLITE_OK)
		return db_fail(s, "set WAL mode");
	return exec_sql(s, "PRAGMA synchronous=NORMAL", "set synchronous mode");
}

int sc_store_open(struct sc_store **out, const char *path)
{
	struct sc_store *s;
	struct sc_buf dir = SC_BUF_INIT;
	const char *slash = strrchr(path, '/');
	int err;

	*out = NULL;
	if (slash && slash != path) {
		sc_buf_put(&dir, path, (size_t)(slash - path));
		err = sc_mkdir_p(dir.ptr);
		sc_buf_release(&dir);
		if (err < 0)
			return err;
	}
	s = sc_xcalloc(1, sizeof(*s));
	s->path = sc_xstrdup(path);
	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		err = sc_error_set(SC_EIO, "cannot open store '%s': %s", path,
				   s->db ? sqlite3_errmsg(s->db) : "out of memory");
		goto done;
	}
	sqlite3_busy_timeout(s->db, BUSY_TIMEOUT_MS);
	if ((err = set_wal(s)) < 0)
		goto done;
	if ((err = init_schema(s)) < 0)
		goto done;
	*out = s;
	s = NULL;
done:
	sc_store_free(s);
	return err;
}

void sc_store_free(struct sc_store *store)
{
	if (!store)
		return;
	sqlite3_finalize(store->lookup);
	sqlite3_finalize(store->insert);
	sqlite3_close(store->db);
	free(store->path);
	free(store);
}

const char *sc_store_path(const struct sc_store *store)
{
	return store->path;
}

int sc_store_begin(struct sc_store *store)
{
	return exec_sql(store, "BEGIN IMMEDIATE", "begin transaction");
}

int sc_store_commit(struct sc_store *store)
{
	return exec_sql(store, "COMMIT", "commit");
}

void sc_store_rollback(struct sc_store *store)
{
	if (!sqlite3_get_autocommit(store->db))
		sqlite3_exec(store->db, "ROLLBACK", NULL, NULL, NULL);
}

/* Steps a write statement to completion and finalizes it. */
static int step_done(struct sc_store *s, sqlite3_stmt *st, const char *what)
{
	int rc = sqlite3_step(st);
	int err = 0;

	if (rc != SQLITE_DONE)
		err = db_fail(s, what);
	sqlite3_finalize(st);
	return err;
}

int sc_store_put_run(struct sc_store *store, const struct sc_store_run *r)
{
	sqlite3_stmt *st = NULL;
	int err;

	if ((err = prepare(store, &st,
			   "INSERT OR REPLACE INTO runs (id, kind, started_at, finished_at,"
			   " complete, models, runs, oracle, results_path)"
			   " VALUES (?,?,?,?,?,?,?,?,?)")) < 0)
		return err;
	bind_text(st, 1, r->id);
	bind_text(st, 2, r->kind);
	bind_text(st, 3, r->started_at);
	bind_text(st, 4, r->finished_at);
	sqlite3_bind_int(st, 5, r->complete);
	bind_text(st, 6, r->models);
	sqlite3_bind_int(st, 7, r->runs);
	sqlite3_bind_int(st, 8, r->oracle);
	bind_text(st, 9, r->results_path);
	return step_done(store, st, "insert run");
}

#define UNIT_COLUMNS \
	"skill, skill_name, variant, model, test_id, test_name, run_index, kind," \
	" skill_hash, test_hash, fixture_hash, prompt_hash, harness, verdict, error_class," \
	" message, tokens_in, tokens_out, turns, latency_ms, judge_score, fixture, compile," \
	" kernel_verdict, compile_log, max_abs_error, registers, speedup, transcript, run_id"

int sc_store_put_unit(struct sc_store *store, const char *run_id, const struct sc_store_unit *u)
{
	sqlite3_stmt *st;
	int err, i = 1, rc;

	if (!store->insert &&
	    (err = prepare(store, &store->insert, "INSERT INTO units (" UNIT_COLUMNS ") VALUES"
			   " (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) < 0)
		return err;
	st = store->insert;
	bind_text(st, i++, u->skill);
	bind_text(st, i++, u->skill_name);
	bind_text(st, i++, u->variant);
	bind_text(st, i++, u->model);
	bind_text(st, i++, u->test_id);
	bind_text(st, i++, u->test_name);
	sqlite3_bind_int(st, i++, u->run_index);
	bind_text(st, i++, u->kind);
	bind_text(st, i++, u->skill_hash);
	bind_text(st, i++, u->test_hash);
	bind_text(st, i++, u->fixture_hash ? u->fixture_hash : "");
	bind_text(st, i++, u->prompt_hash);
	bind_text(st, i++, u->harness);
	bind_text(st, i++, u->verdict);
	bind_text(st, i++, u->error_class);
	bind_text(st, i++, u->message);
	sqlite3_bind_int64(st, i++, u->tokens_in);
	sqlite3_bind_int64(st, i++, u->tokens_out);
	sqlite3_bind_int(st, i++, u->turns);
	sqlite3_bind_int64(st, i++, u->latency_ms);
	bind_real(st, i++, u->judge_score);
	bind_text(st, i++, u->fixture);
	bind_text(st, i++, u->compile);
	bind_text(st, i++, u->kernel_verdict);
	bind_text(st, i++, u->compile_log);
	bind_real(st, i++, u->max_abs_error);
	if (u->registers >= 0)
		sqlite3_bind_int(st, i++, u->registers);
	else
		sqlite3_bind_null(st, i++);
	bind_real(st, i++, u->speedup);
	bind_text(st, i++, u->transcript);
	bind_text(st, i++, run_id);
	rc = sqlite3_step(st);
	err = rc == SQLITE_DONE ? 0 : db_fail(store, "insert unit");
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return err;
}

/* Fills u from a row selected with UNIT_COLUMNS. */
static void read_unit(struct sc_store_unit *u, sqlite3_stmt *st)
{
	int i = 0;

	u->skill = col_text(st, i++);
	u->skill_name = col_text(st, i++);
	u->variant = col_text(st, i++);
	u->model = col_text(st, i++);
	u->test_id = col_text(st, i++);
	u->test_name = col_text(st, i++);
	u->run_index = sqlite3_column_int(st, i++);
	u->kind = col_text(st, i++);
	u->skill_hash = col_text(st, i++);
	u->test_hash = col_text(st, i++);
	u->fixture_hash = col_text(st, i++);
	u->prompt_hash = col_text(st, i++);
	u->harness = col_text(st, i++);
	u->verdict = col_text(st, i++);
	u->error_class = col_text(st, i++);
	u->message = col_text(st, i++);
	u->tokens_in = sqlite3_column_int64(st, i++);
	u->tokens_out = sqlite3_column_int64(st, i++);
	u->turns = sqlite3_column_int(st, i++);
	u->latency_ms = sqlite3_column_int64(st, i++);
	u->judge_score = col_real(st, i++);
	u->fixture = col_text(st, i++);
	u->compile = col_text(st, i++);
	u->kernel_verdict = col_text(st, i++);
	u->compile_log = col_text(st, i++);
	u->max_abs_error = col_real(st, i++);
	u->registers = sqlite3_column_type(st, i) == SQLITE_NULL ? -1 : sqlite3_column_int(st, i);
	i++;
	u->speedup = col_real(st, i++);
	u->transcript = col_text(st, i++);
	u->run_id = col_text(st, i++);
}

int sc_store_lookup_unit(struct sc_store *store, struct sc_store_unit *out,
			 const struct sc_store_key *key)
{
	sqlite3_stmt *st;
	int err, rc;

	sc_store_unit_init(out);
	if (!store->lookup &&
	    (err = prepare(store, &store->lookup, "SELECT " UNIT_COLUMNS " FROM units WHERE"
			   " skill_hash = ? AND test_hash = ? AND fixture_hash = ? AND model = ?"
			   " AND prompt_hash = ? AND harness = ? AND run_index = ?"
			   " AND verdict <> 'error' ORDER BY id DESC LIMIT 1")) < 0)
		return err;
	st = store->lookup;
	bind_text(st, 1, key->skill_hash);
	bind_text(st, 2, key->test_hash);
	bind_text(st, 3, key->fixture_hash ? key->fixture_hash : "");
	bind_text(st, 4, key->model);
	bind_text(st, 5, key->prompt_hash);
	bind_text(st, 6, key->harness);
	sqlite3_bind_int(st, 7, key->run_index);
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		read_unit(out, st);
		out->reused = true;
		err = 0;
	} else if (rc == SQLITE_DONE) {
		err = SC_ENOTFOUND;
	} else {
		err = db_fail(store, "look up unit");
	}
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return err;
}

int sc_store_count_units(struct sc_store *store, int64_t *out)
{
	sqlite3_stmt *st = NULL;
	int err;

	*out = 0;
	if ((err = prepare(store, &st, "SELECT count(*) FROM units")) < 0)
		return err;
	if (sqlite3_step(st) == SQLITE_ROW)
		*out = sqlite3_column_int64(st, 0);
	else
		err = db_fail(store, "count units");
	sqlite3_finalize(st);
	return err;
}

int sc_store_each_unit(struct sc_store *store, const struct sc_store_unit_filter *filter,
		       sc_store_unit_cb cb, void *payload)
{
	static const struct sc_store_unit_filter none = { NULL, NULL, NULL, false };
	const struct sc_store_unit_filter *f = filter ? filter : &none;
	sqlite3_stmt *st = NULL;
	int err, rc;

	if ((err = prepare(store, &st, "SELECT " UNIT_COLUMNS " FROM units WHERE"
			   " (?1 IS NULL OR skill = ?1 OR skill_name = ?1)"
			   " AND (?2 IS NULL OR model = ?2) AND (?3 IS NULL OR run_id = ?3)"
			   " AND (?4 = 0 OR verdict = 'pass') ORDER BY id")) < 0)
		return err;
	bind_text(st, 1, f->skill);
	bind_text(st, 2, f->model);
	bind_text(st, 3, f->run_id);
	sqlite3_bind_int(st, 4, f->passing ? 1 : 0);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct sc_store_unit u;
		sc_store_unit_init(&u);
		read_unit(&u, st);
		err = cb(&u, payload);
		sc_store_unit_release(&u);
		if (err < 0)
			break;
	}
	if (err == 0 && rc != SQLITE_DONE)
		err = db_fail(store, "read units");
	sqlite3_finalize(st);
	return err;
}

int sc_store_put_aggregate(struct sc_store *store, const char *run_id,
			   const struct sc_store_aggregate *a)
{
	sqlite3_stmt *st = NULL;
	int err, i = 1;

	if ((err = prepare(store, &st,
			   "INSERT OR REPLACE INTO aggregates (run_id, skill, skill_name, variant,"
			   " model, n, passed, failed, errors, skipped, pass_rate, ci_low, ci_high,"
			   " mean_tokens, mean_turns, speedup_geomean, fast_1, fast_1_5, fast_2,"
			   " judge_mean) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)")) < 0)
		return err;
	bind_text(st, i++, run_id);
	bind_text(st, i++, a->skill);
	bind_text(st, i++, a->skill_name);
	bind_text(st, i++, a->variant);
	bind_text(st, i++, a->model);
	sqlite3_bind_int(st, i++, a->n);
	sqlite3_bind_int(st, i++, a->passed);
	sqlite3_bind_int(st, i++, a->failed);
	sqlite3_bind_int(st, i++, a->errors);
	sqlite3_bind_int(st, i++, a->skipped);
	bind_real(st, i++, a->pass_rate);
	bind_real(st, i++, a->ci_low);
	bind_real(st, i++, a->ci_high);
	bind_real(st, i++, a->mean_tokens);
	bind_real(st, i++, a->mean_turns);
	bind_real(st, i++, a->speedup_geomean);
	bind_real(st, i++, a->fast_1);
	bind_real(st, i++, a->fast_1_5);
	bind_real(st, i++, a->fast_2);
	bind_real(st, i++, a->judge_mean);
	return step_done(store, st, "insert aggregate");
}

int sc_store_history(struct sc_store *store, struct sc_store_point **out, size_t *n,
		     const char *skill, const char *model)
{
	sqlite3_stmt *st = NULL;
	struct sc_store_point *pts = NULL;
	size_t count = 0, alloc = 0;
	int err, rc;

	*out = NULL;
	*n = 0;
	if ((err = prepare(store, &st,
			   "SELECT a.run_id, r.finished_at, a.skill, a.skill_name, a.variant, a.model,"
			   " a.n, a.passed, a.failed, a.errors, a.skipped, a.pass_rate, a.ci_low,"
			   " a.ci_high, a.mean_tokens, a.mean_turns, a.speedup_geomean, a.fast_1,"
			   " a.fast_1_5, a.fast_2, a.judge_mean"
			   " FROM aggregates a JOIN runs r ON r.id = a.run_id"
			   " WHERE (?1 IS NULL OR a.skill = ?1 OR a.skill_name = ?1)"
			   "   AND (?2 IS NULL OR a.model = ?2)"
			   " ORDER BY r.finished_at, r.rowid, a.skill, a.model,"
			   "   CASE a.variant WHEN 'baseline' THEN 0 WHEN 'base' THEN 1 ELSE 2 END")) < 0)
		return err;
	bind_text(st, 1, skill);
	bind_text(st, 2, model);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct sc_store_point *p;
		struct sc_store_aggregate *a;
		int i = 0;

		SC_GROW(pts, alloc, count + 1);
		p = &pts[count++];
		a = &p->agg;
		p->run_id = col_text(st, i++);
		p->finished_at = col_text(st, i++);
		a->skill = col_text(st, i++);
		a->skill_name = col_text(st, i++);
		a->variant = col_text(st, i++);
		a->model = col_text(st, i++);
		a->n = sqlite3_column_int(st, i++);
		a->passed = sqlite3_column_int(st, i++);
		a->failed = sqlite3_column_int(st, i++);
		a->errors = sqlite3_column_int(st, i++);
		a->skipped = sqlite3_column_int(st, i++);
		a->pass_rate = col_real(st, i++);
		a->ci_low = col_real(st, i++);
		a->ci_high = col_real(st, i++);
		a->mean_tokens = col_real(st, i++);
		a->mean_turns = col_real(st, i++);
		a->speedup_geomean = col_real(st, i++);
		a->fast_1 = col_real(st, i++);
		a->fast_1_5 = col_real(st, i++);
		a->fast_2 = col_real(st, i++);
		a->judge_mean = col_real(st, i++);
	}
	if (rc != SQLITE_DONE) {
		err = db_fail(store, "read history");
		sc_store_points_free(pts, count);
	} else {
		*out = pts;
		*n = count;
	}
	sqlite3_finalize(st);
	return err;
}

void sc_store_points_free(struct sc_store_point *points, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(points[i].run_id);
		free(points[i].finished_at);
		sc_store_aggregate_release(&points[i].agg);
	}
	free(points);
}

void sc_store_unit_init(struct sc_store_unit *u)
{
	memset(u, 0, sizeof(*u));
	u->judge_score = NAN;
	u->max_abs_error = NAN;
	u->speedup = NAN;
	u->registers = -1;
}

void sc_store_unit_release(struct sc_store_unit *u)
{
	char **strs[] = {
		&u->skill, &u->skill_name, &u->variant, &u->model, &u->test_id, &u->test_name,
		&u->kind, &u->skill_hash, &u->test_hash, &u->fixture_hash, &u->prompt_hash,
		&u->harness, &u->verdict, &u->error_class, &u->message, &u->fixture, &u->compile,
		&u->kernel_verdict, &u->compile_log, &u->transcript, &u->run_id,
	};

	for (size_t i = 0; i < SC_ARRAY_SIZE(strs); i++)
		free(*strs[i]);
	sc_store_unit_init(u);
}

void sc_store_aggregate_init(struct sc_store_aggregate *a)
{
	memset(a, 0, sizeof(*a));
	a->pass_rate = a->ci_low = a->ci_high = NAN;
	a->mean_tokens = a->mean_turns = NAN;
	a->speedup_geomean = a->fast_1 = a->fast_1_5 = a->fast_2 = a->judge_mean = NAN;
}

void sc_store_aggregate_release(struct sc_store_aggregate *a)
{
	free(a->skill);
	free(a->skill_name);
	free(a->variant);
	free(a->model);
	sc_store_aggregate_init(a);
}
