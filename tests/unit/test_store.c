/*
 * Unit tests for the results store (runner/results/store*.c), run against
 * both backends: each test is listed twice, once with SQLite and once with
 * PostgreSQL. The PostgreSQL cases need the server that tests/run-tests.sh
 * starts (tests/pg.sh; SKILLCI_TEST_PG_HOST, _PORT, _BIN); without one they
 * skip and say why. Each case gets a fresh store: a new SQLite file in a
 * scratch folder, or a new PostgreSQL database.
 *
 * Covered: schema creation and versions (applied once, also by four
 * processes opening a fresh store at once; a newer schema refused; an old
 * SQLite store migrated), reuse lookups by key, the unique unit key (the
 * first result stays, an error is replaced), history order and filters,
 * shard results, the one store write of a run (sc_eval_store_run), four
 * processes writing one store, copy between the
 * backends, locations with a password; for PostgreSQL, a connection cut
 * in the middle of a transaction, an unreachable server and a statement
 * that runs past statement_timeout.
 */
#include "unit.h"
#include "results/signing.h"
#include "results/store.h"
#include "eval/eval.h"
#include "results/results.h"
#include "secret.h"
#include "sha256.h"

#include <math.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

struct backend {
	const char *name;
	bool pg;
};

static const struct backend sqlite_be = { "sqlite", false };
static const struct backend pg_be = { "postgresql", true };

/* A fresh store of one backend, with a scratch folder. */
struct fresh {
	const struct backend *be;
	char *dir;
	char *db;        /* PostgreSQL database name */
	char *location;
};

static int db_counter;

/* Skips the test when the backend is not available here. */
static void need(const struct backend *be)
{
	const char *why = getenv("SKILLCI_TEST_PG_SKIP");

	if (!be->pg || getenv("SKILLCI_TEST_PG_HOST"))
		return;
	printf("# postgresql: %s\n", why && *why ? why
	       : "no test server (SKILLCI_TEST_PG_HOST is not set; make check starts one)");
	skip();
}

/* Runs a shell command; returns its exit status. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
	struct sc_buf cmd = SC_BUF_INIT;
	va_list ap;
	int rc;

	va_start(ap, fmt);
	sc_buf_vprintf(&cmd, fmt, ap);
	va_end(ap);
	rc = system(cmd.ptr);
	sc_buf_release(&cmd);
	return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/* Runs SQL on the store behind f with its command-line client; prints
 * rows to out_file when not NULL. Returns the client's status. */
static int sql(const struct fresh *f, const char *text, const char *out_file)
{
	const char *to = out_file ? out_file : "/dev/null";

	if (f->be->pg)
		return sh("'%s/psql' -X -q -A -t -v ON_ERROR_STOP=1 -h '%s' -p '%s' -U skillci -d '%s' "
			  "-c \"%s\" > '%s' 2>&1", getenv("SKILLCI_TEST_PG_BIN"),
			  getenv("SKILLCI_TEST_PG_HOST"), getenv("SKILLCI_TEST_PG_PORT"), f->db, text,
			  to);
	return sh("sqlite3 '%s' \"%s\" > '%s' 2>&1", f->location, text, to);
}

static void fresh_init(struct fresh *f, const struct backend *be)
{
	struct sc_buf b = SC_BUF_INIT;

	memset(f, 0, sizeof(*f));
	f->be = be;
	f->dir = sc_test_mkdtemp();
	if (!be->pg) {
		sc_buf_printf(&b, "%s/sub/results.db", f->dir);
		f->location = sc_buf_detach(&b, NULL);
		return;
	}
	sc_buf_printf(&b, "t%d_%d", (int)getpid(), db_counter++);
	f->db = sc_buf_detach(&b, NULL);
	assert_int_equal(sh("'%s/psql' -X -q -h '%s' -p '%s' -U skillci -d postgres "
			    "-c 'CREATE DATABASE %s' > /dev/null", getenv("SKILLCI_TEST_PG_BIN"),
			    getenv("SKILLCI_TEST_PG_HOST"), getenv("SKILLCI_TEST_PG_PORT"), f->db), 0);
	sc_buf_printf(&b, "postgresql:///%s?host=%s&port=%s&user=skillci", f->db,
		      getenv("SKILLCI_TEST_PG_HOST"), getenv("SKILLCI_TEST_PG_PORT"));
	f->location = sc_buf_detach(&b, NULL);
}

static void fresh_release(struct fresh *f)
{
	if (f->be->pg)
		sh("'%s/psql' -X -q -h '%s' -p '%s' -U skillci -d postgres "
		   "-c 'DROP DATABASE IF EXISTS %s WITH (FORCE)' > /dev/null 2>&1",
		   getenv("SKILLCI_TEST_PG_BIN"), getenv("SKILLCI_TEST_PG_HOST"),
		   getenv("SKILLCI_TEST_PG_PORT"), f->db);
	sc_rm_rf(f->dir);
	free(f->dir);
	free(f->db);
	free(f->location);
}

/* A unit with fixed key fields; verdict, run index and tokens given. */
static void fill_unit(struct sc_store_unit *u, const char *verdict, int run_index, int64_t tin)
{
	sc_store_unit_init(u);
	u->skill = "skills/demo";
	u->skill_name = "demo";
	u->variant = "head";
	u->model = "anthropic.m1";
	u->test_id = "skill_meta.json#tests[0]";
	u->test_name = "say hi";
	u->run_index = run_index;
	u->kind = "text";
	u->skill_hash = "sk1";
	u->test_hash = "t1";
	u->fixture_hash = "";
	u->prompt_hash = "p1";
	u->harness = "h1";
	u->verdict = verdict;
	u->tokens_in = tin;
	u->tokens_out = 7;
	u->turns = 1;
	u->latency_ms = 12;
	u->transcript = "[]";
}

static void key_of(struct sc_store_key *k, int run_index)
{
	k->skill_hash = "sk1";
	k->test_hash = "t1";
	k->fixture_hash = "";
	k->model = "anthropic.m1";
	k->prompt_hash = "p1";
	k->harness = "h1";
	k->run_index = run_index;
}

static void put_run(struct sc_store *s, const char *id, const char *finished)
{
	/* r2 records the repository and head it checked (schema 4) */
	bool gh = !strcmp(id, "r2");
	struct sc_store_run r = { id, "eval", finished, finished, true, "anthropic.m1", 1, false, NULL,
				  gh ? "octo/skills" : NULL, gh ? "0123456789abcdef0123456789abcdef01234567" : NULL };
	assert_int_equal(sc_store_put_run(s, &r), 0);
}

static void test_open_creates_store_and_reopens(void **state)
{
	const struct backend *be = *state;
	struct fresh f;
	struct sc_store *s = NULL;
	struct sc_store_counts n;
	int version = 0;

	need(be);
	fresh_init(&f, be);
	assert_int_equal(sc_store_open_existing(&s, f.location), be->pg ? 0 : SC_ENOTFOUND);
	sc_store_free(s);
	s = NULL;
	assert_int_equal(sc_store_open(&s, f.location), 0);
	assert_string_equal(sc_store_backend(s), be->name);
	assert_string_equal(sc_store_path(s), f.location);
	assert_int_equal(sc_store_schema_version(s, &version), 0);
	assert_int_equal(version, SC_STORE_SCHEMA_VERSION);
	assert_int_equal(sc_store_counts(s, &n), 0);
	assert_true(n.runs == 0 && n.units == 0 && n.aggregates == 0 && n.shards == 0);
	sc_store_free(s);
	if (!be->pg)
		assert_int_equal(access(f.location, F_OK), 0);
	assert_int_equal(sc_store_open_existing(&s, f.location), 0);  /* schema already there */
	sc_store_free(s);
	fresh_release(&f);
}

static void test_lookup_reuses_only_same_key(void **state)
{
	const struct backend *be = *state;
	struct fresh f;
	struct sc_store *s = NULL;
	struct sc_store_unit u, got;
	struct sc_store_key k;
	int64_t n = 0;

	need(be);
	fresh_init(&f, be);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	assert_int_equal(sc_store_begin(s), 0);
	put_run(s, "r1", "2026-01-01T00:00:00Z");
	fill_unit(&u, "pass", 0, 100);
	u.judge_score = 0.75;
	u.speedup = 1.0 / 3.0;
	u.registers = 40;
	assert_int_equal(sc_store_put_unit(s, "r1", &u), 0);
	fill_unit(&u, "fail", 0, 200);   /* same key again: the first result stays */
	assert_int_equal(sc_store_put_unit(s, "r1", &u), 0);
	fill_unit(&u, "error", 1, 300);  /* infrastructure error: stored, never reused */
	assert_int_equal(sc_store_put_unit(s, "r1", &u), 0);
	assert_int_equal(sc_store_commit(s), 0);

	key_of(&k, 0);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), 0);
	assert_string_equal(got.verdict, "pass");
	assert_int_equal(got.tokens_in, 100);
	assert_int_equal(got.tokens_out, 7);
	assert_string_equal(got.run_id, "r1");
	assert_string_equal(got.transcript, "[]");
	assert_string_equal(got.fixture_hash, "");
	assert_true(got.reused);
	assert_true(got.judge_score == 0.75);
	assert_true(got.speedup == 1.0 / 3.0);  /* doubles round-trip exactly */
	assert_int_equal(got.registers, 40);
	assert_true(isnan(got.max_abs_error));
	assert_null(got.error_class);
	sc_store_unit_release(&got);

	key_of(&k, 1);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_ENOTFOUND);
	sc_store_unit_release(&got);
	/* a later answer that is not an error replaces the error */
	fill_unit(&u, "fail", 1, 400);
	assert_int_equal(sc_store_put_unit(s, "r2", &u), 0);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), 0);
	assert_string_equal(got.verdict, "fail");
	assert_int_equal(got.tokens_in, 400);
	assert_string_equal(got.run_id, "r2");
	assert_int_equal(got.registers, -1);
	sc_store_unit_release(&got);
	/* and an error never replaces an answer */
	fill_unit(&u, "error", 1, 500);
	assert_int_equal(sc_store_put_unit(s, "r3", &u), 0);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), 0);
	assert_string_equal(got.verdict, "fail");
	sc_store_unit_release(&got);
	assert_int_equal(sc_store_count_units(s, &n), 0);
	assert_int_equal(n, 2);

	/* each key field matters */
	key_of(&k, 0); k.model = "anthropic.m2";
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_ENOTFOUND);
	key_of(&k, 0); k.skill_hash = "sk2";
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_ENOTFOUND);
	key_of(&k, 0); k.test_hash = "t2";
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_ENOTFOUND);
	key_of(&k, 0); k.prompt_hash = "p2";
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_ENOTFOUND);
	key_of(&k, 0); k.harness = "h2";
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_ENOTFOUND);
	key_of(&k, 0); k.fixture_hash = "f";
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_ENOTFOUND);
	key_of(&k, 2);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_ENOTFOUND);

	sc_store_free(s);
	fresh_release(&f);
}

static void test_rollback_writes_nothing(void **state)
{
	const struct backend *be = *state;
	struct fresh f;
	struct sc_store *s = NULL;
	struct sc_store_unit u;
	struct sc_store_counts n;

	need(be);
	fresh_init(&f, be);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	assert_int_equal(sc_store_begin(s), 0);
	put_run(s, "r1", "2026-01-01T00:00:00Z");
	fill_unit(&u, "pass", 0, 1);
	assert_int_equal(sc_store_put_unit(s, "r1", &u), 0);
	sc_store_rollback(s);
	assert_int_equal(sc_store_counts(s, &n), 0);
	assert_true(n.runs == 0 && n.units == 0);
	/* a write outside a transaction is its own */
	assert_int_equal(sc_store_put_unit(s, "r1", &u), 0);
	assert_int_equal(sc_store_counts(s, &n), 0);
	assert_int_equal(n.units, 1);
	sc_store_free(s);
	fresh_release(&f);
}

static void test_newer_schema_is_refused(void **state)
{
	const struct backend *be = *state;
	struct fresh f;
	struct sc_store *s = NULL;

	need(be);
	fresh_init(&f, be);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	sc_store_free(s);
	s = NULL;
	/* a newer skillci wrote version 99 */
	if (sql(&f, "INSERT INTO schema_version VALUES (99)", NULL) != 0) {
		fresh_release(&f);
		printf("# no command-line client (sqlite3 or psql) to write the schema version\n");
		skip();
	}
	assert_int_equal(sc_store_open(&s, f.location), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "schema version 99"));
	assert_non_null(strstr(sc_error_last(), "upgrade skillci"));
	assert_non_null(strstr(sc_error_last(), f.location));
	assert_null(s);
	fresh_release(&f);
}

static void test_history_orders_runs_and_filters(void **state)
{
	const struct backend *be = *state;
	struct fresh f;
	struct sc_store *s = NULL;
	struct sc_store_aggregate a;
	struct sc_store_point *pts = NULL;
	size_t n = 0;

	need(be);
	fresh_init(&f, be);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	assert_int_equal(sc_store_begin(s), 0);
	put_run(s, "r2", "2026-01-02T00:00:00Z");
	put_run(s, "r1", "2026-01-01T00:00:00Z");
	put_run(s, "r0", "2026-01-01T00:00:00Z");  /* same time: in the order stored */
	sc_store_aggregate_init(&a);
	a.skill = (char *)"skills/demo";
	a.skill_name = (char *)"demo";
	a.model = (char *)"m1";
	a.variant = (char *)"head";
	a.n = 10;
	a.passed = 7;
	a.pass_rate = 0.7;
	assert_int_equal(sc_store_put_aggregate(s, "r2", &a), 0);
	a.variant = (char *)"baseline";
	a.pass_rate = 0.4;
	assert_int_equal(sc_store_put_aggregate(s, "r2", &a), 0);
	a.variant = (char *)"head";
	a.pass_rate = 0.5;
	assert_int_equal(sc_store_put_aggregate(s, "r1", &a), 0);
	a.pass_rate = 0.25;
	assert_int_equal(sc_store_put_aggregate(s, "r0", &a), 0);
	a.model = (char *)"m2";
	a.pass_rate = 0.5;
	assert_int_equal(sc_store_put_aggregate(s, "r1", &a), 0);
	assert_int_equal(sc_store_commit(s), 0);

	assert_int_equal(sc_store_history(s, &pts, &n, NULL, "m1"), 0);
	assert_int_equal(n, 4);
	assert_string_equal(pts[0].run_id, "r1");   /* oldest first, then as stored */
	assert_string_equal(pts[1].run_id, "r0");
	assert_true(pts[0].agg.pass_rate == 0.5);
	assert_true(pts[1].agg.pass_rate == 0.25);
	assert_string_equal(pts[1].started_at, "2026-01-01T00:00:00Z");
	assert_string_equal(pts[2].agg.variant, "baseline");  /* variant order */
	assert_string_equal(pts[3].agg.variant, "head");
	assert_true(pts[3].agg.pass_rate == 0.7);
	assert_int_equal(pts[3].agg.passed, 7);
	assert_true(isnan(pts[3].agg.ci_low));
	/* each point carries its run's repository and head (a link in the history page) */
	assert_null(pts[0].repo);
	assert_null(pts[0].head_rev);
	assert_string_equal(pts[3].repo, "octo/skills");
	assert_string_equal(pts[3].head_rev, "0123456789abcdef0123456789abcdef01234567");
	sc_store_points_free(pts, n);

	assert_int_equal(sc_store_history(s, &pts, &n, "demo", NULL), 0);
	assert_int_equal(n, 5);
	sc_store_points_free(pts, n);
	assert_int_equal(sc_store_history(s, &pts, &n, "skills/demo", "m2"), 0);
	assert_int_equal(n, 1);
	sc_store_points_free(pts, n);
	assert_int_equal(sc_store_history(s, &pts, &n, "other", NULL), 0);
	assert_int_equal(n, 0);
	sc_store_points_free(pts, n);

	sc_store_free(s);
	fresh_release(&f);
}

struct shards_seen {
	int n;
	int index[8];
	char results[8][64];
};

static int on_shard(const struct sc_store_shard *sh, void *payload)
{
	struct shards_seen *seen = payload;

	assert_true(seen->n < 8);
	assert_int_equal(sh->shard_count, 3);
	seen->index[seen->n] = sh->shard_index;
	snprintf(seen->results[seen->n], sizeof(seen->results[0]), "%s", sh->results);
	seen->n++;
	return 0;
}

static void test_shard_results(void **state)
{
	const struct backend *be = *state;
	struct fresh f;
	struct sc_store *s = NULL;
	struct shards_seen seen;
	struct sc_store_shard sh = { "gh-42", 2, 3, "plan", "{\"shard\": 2}", "2026-01-01T00:00:00Z" };

	need(be);
	fresh_init(&f, be);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	assert_int_equal(sc_store_put_shard(s, &sh), 0);
	sh.shard_index = 1;
	sh.results = "{\"shard\": 1, \"first\": true}";
	assert_int_equal(sc_store_put_shard(s, &sh), 0);
	sh.results = "{\"shard\": 1}";  /* shard 1 run again: replaces */
	assert_int_equal(sc_store_put_shard(s, &sh), 0);
	sh.run_id = "gh-43";
	assert_int_equal(sc_store_put_shard(s, &sh), 0);

	memset(&seen, 0, sizeof(seen));
	assert_int_equal(sc_store_each_shard(s, "gh-42", on_shard, &seen), 0);
	assert_int_equal(seen.n, 2);
	assert_int_equal(seen.index[0], 1);
	assert_string_equal(seen.results[0], "{\"shard\": 1}");
	assert_int_equal(seen.index[1], 2);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(sc_store_each_shard(s, NULL, on_shard, &seen), 0);
	assert_int_equal(seen.n, 3);
	memset(&seen, 0, sizeof(seen));
	assert_int_equal(sc_store_each_shard(s, "gh-44", on_shard, &seen), 0);
	assert_int_equal(seen.n, 0);
	sc_store_free(s);
	fresh_release(&f);
}

/* What a run writes to the store, counted by sc_store_each_*. */
struct run_rows {
	int runs, aggregates, shards;
	char kind[16], path[64];
};

static int count_run(const struct sc_store_run *r, void *payload)
{
	struct run_rows *w = payload;
	w->runs++;
	snprintf(w->kind, sizeof(w->kind), "%s", r->kind ? r->kind : "");
	snprintf(w->path, sizeof(w->path), "%s", r->results_path ? r->results_path : "");
	return 0;
}

static int count_aggregate(const char *run_id, const struct sc_store_aggregate *a, void *payload)
{
	(void)run_id;
	(void)a;
	((struct run_rows *)payload)->aggregates++;
	return 0;
}

static int count_shard(const struct sc_store_shard *sh, void *payload)
{
	(void)sh;
	((struct run_rows *)payload)->shards++;
	return 0;
}

/* sc_eval_store_run, the one store write of eval, run and merge: the run's
 * row, and the aggregates and the shard's results only when asked. */
static void test_one_store_write_of_a_run(void **state)
{
	const struct backend *be = *state;
	struct fresh f;
	struct sc_store *s = NULL;
	struct sc_results r;
	struct run_rows w;

	need(be);
	fresh_init(&f, be);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	sc_results_init(&r);
	r.run.id = sc_xstrdup("gh-7");
	r.run.kind = SC_RUN_KIND_EVAL;
	r.run.complete = true;
	r.run.started_at = sc_xstrdup("2026-01-01T00:00:00Z");
	r.run.finished_at = sc_xstrdup("2026-01-01T00:01:00Z");
	r.run.shard_index = 1;
	r.run.shard_count = 2;
	r.run.plan_hash = sc_xstrdup("plan");
	r.aggregates = sc_xcalloc(1, sizeof(*r.aggregates));
	r.naggregates = 1;
	sc_results_aggregate_init(&r.aggregates[0]);
	r.aggregates[0].skill = sc_xstrdup("skills/a");
	r.aggregates[0].variant = SC_VARIANT_HEAD;
	r.aggregates[0].model = sc_xstrdup("m");

	/* the row alone, its kind from the results */
	assert_int_equal(sc_eval_store_run(s, &r, NULL, NULL, 0), 0);
	memset(&w, 0, sizeof(w));
	assert_int_equal(sc_store_each_run(s, count_run, &w), 0);
	assert_int_equal(sc_store_each_aggregate(s, count_aggregate, &w), 0);
	assert_int_equal(sc_store_each_shard(s, "gh-7", count_shard, &w), 0);
	assert_int_equal(w.runs, 1);
	assert_string_equal(w.kind, "eval");
	assert_int_equal(w.aggregates, 0);
	assert_int_equal(w.shards, 0);
	/* a shard of a run: the row again (replaced), its aggregates, its results */
	assert_int_equal(sc_eval_store_run(s, &r, "run", "out/results.json",
					   SC_EVAL_STORE_AGGREGATES | SC_EVAL_STORE_SHARD), 0);
	memset(&w, 0, sizeof(w));
	assert_int_equal(sc_store_each_run(s, count_run, &w), 0);
	assert_int_equal(sc_store_each_aggregate(s, count_aggregate, &w), 0);
	assert_int_equal(sc_store_each_shard(s, "gh-7", count_shard, &w), 0);
	assert_int_equal(w.runs, 1);
	assert_string_equal(w.kind, "run");
	assert_string_equal(w.path, "out/results.json");
	assert_int_equal(w.aggregates, 1);
	assert_int_equal(w.shards, 1);
	sc_results_release(&r);
	sc_store_free(s);
	fresh_release(&f);
}

/* One writer process: its own connection, one transaction per unit; the
 * units 0..count-1 of its own skill hash, and the shared units 0..9 that
 * every writer writes too. */
static int writer(const char *location, int w, int count)
{
	struct sc_store *s = NULL;
	struct sc_store_unit u;
	char run_id[16], skill_hash[16];

	snprintf(run_id, sizeof(run_id), "run%d", w);
	snprintf(skill_hash, sizeof(skill_hash), "sk-w%d", w);
	if (sc_store_open(&s, location) < 0) {
		fprintf(stderr, "# writer %d: %s\n", w, sc_error_last());
		return 1;
	}
	for (int i = 0; i < count + 10; i++) {
		bool shared = i >= count;
		if (sc_store_begin(s) < 0)
			return 2;
		put_run(s, run_id, "2026-01-01T00:00:00Z");
		fill_unit(&u, "pass", shared ? i - count : i, w);
		u.skill_hash = shared ? "sk-shared" : skill_hash;
		if (sc_store_put_unit(s, run_id, &u) < 0 || sc_store_commit(s) < 0) {
			fprintf(stderr, "# writer %d: %s\n", w, sc_error_last());
			return 3;
		}
	}
	sc_store_free(s);
	return 0;
}

static void test_four_processes_write_one_store(void **state)
{
	const struct backend *be = *state;
	struct fresh f;
	struct sc_store *s = NULL;
	struct sc_store_counts n;
	pid_t pids[4];

	need(be);
	fresh_init(&f, be);
	/* no store yet: the four also race to create the schema */
	for (int p = 0; p < 4; p++) {
		pids[p] = fork();
		assert_true(pids[p] >= 0);
		if (pids[p] == 0)
			_exit(writer(f.location, p, 60));
	}
	for (int p = 0; p < 4; p++) {
		int status = 0;
		assert_int_equal(waitpid(pids[p], &status, 0), pids[p]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	assert_int_equal(sc_store_open(&s, f.location), 0);
	assert_int_equal(sc_store_counts(s, &n), 0);
	assert_int_equal(n.units, 4 * 60 + 10);  /* the shared ten stored once */
	assert_int_equal(n.runs, 4);
	sc_store_free(s);
	/* every schema version was applied exactly once */
	{
		struct sc_buf out = SC_BUF_INIT, path = SC_BUF_INIT;
		sc_path_join(&path, f.dir, "versions.txt");
		if (sql(&f, "SELECT version FROM schema_version ORDER BY version", path.ptr) == 0) {
			assert_int_equal(sc_read_file(&out, path.ptr, 4096), 0);
			assert_string_equal(out.ptr, "1\n2\n3\n4\n5\n");
		}
		sc_buf_release(&out);
		sc_buf_release(&path);
	}
	fresh_release(&f);
}

/* The version 1 schema of skillci before PostgreSQL, with two rows under
 * one key (an error, then a pass), two under another (two passes) and one
 * alone. */
static const char v1_store_sql[] =
	"CREATE TABLE schema_version (version INTEGER NOT NULL); INSERT INTO schema_version VALUES (1);"
	"CREATE TABLE runs (id TEXT PRIMARY KEY, kind TEXT NOT NULL, started_at TEXT, finished_at TEXT,"
	" complete INTEGER NOT NULL DEFAULT 1, models TEXT, runs INTEGER,"
	" oracle INTEGER NOT NULL DEFAULT 0, results_path TEXT);"
	"CREATE TABLE units (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL,"
	" skill TEXT NOT NULL, skill_name TEXT, variant TEXT NOT NULL, model TEXT NOT NULL,"
	" test_id TEXT NOT NULL, test_name TEXT, run_index INTEGER NOT NULL, kind TEXT NOT NULL,"
	" skill_hash TEXT NOT NULL, test_hash TEXT NOT NULL, fixture_hash TEXT NOT NULL,"
	" prompt_hash TEXT NOT NULL, harness TEXT NOT NULL, verdict TEXT NOT NULL, error_class TEXT,"
	" message TEXT, tokens_in INTEGER NOT NULL, tokens_out INTEGER NOT NULL, turns INTEGER NOT NULL,"
	" latency_ms INTEGER NOT NULL, judge_score REAL, fixture TEXT, compile TEXT,"
	" kernel_verdict TEXT, compile_log TEXT, max_abs_error REAL, registers INTEGER, speedup REAL,"
	" transcript TEXT, created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ','now')));"
	"CREATE INDEX units_key ON units (skill_hash, test_hash, fixture_hash, model, prompt_hash,"
	" harness, run_index);"
	"CREATE INDEX units_run ON units (run_id);"
	"CREATE TABLE aggregates (run_id TEXT NOT NULL, skill TEXT NOT NULL, skill_name TEXT,"
	" variant TEXT NOT NULL, model TEXT NOT NULL, n INTEGER, passed INTEGER, failed INTEGER,"
	" errors INTEGER, skipped INTEGER, pass_rate REAL, ci_low REAL, ci_high REAL, mean_tokens REAL,"
	" mean_turns REAL, speedup_geomean REAL, fast_1 REAL, fast_1_5 REAL, fast_2 REAL,"
	" judge_mean REAL, PRIMARY KEY (run_id, skill, variant, model));"
	"INSERT INTO units (run_id, skill, variant, model, test_id, run_index, kind, skill_hash,"
	" test_hash, fixture_hash, prompt_hash, harness, verdict, tokens_in, tokens_out, turns,"
	" latency_ms) VALUES"
	" ('r1', 's', 'head', 'anthropic.m1', 't', 0, 'text', 'sk1', 't1', '', 'p1', 'h1', 'error', 1, 0, 1, 0),"
	" ('r2', 's', 'head', 'anthropic.m1', 't', 0, 'text', 'sk1', 't1', '', 'p1', 'h1', 'pass', 2, 0, 1, 0),"
	" ('r1', 's', 'head', 'anthropic.m1', 't', 1, 'text', 'sk1', 't1', '', 'p1', 'h1', 'fail', 3, 0, 1, 0),"
	" ('r2', 's', 'head', 'anthropic.m1', 't', 1, 'text', 'sk1', 't1', '', 'p1', 'h1', 'pass', 4, 0, 1, 0),"
	" ('r1', 's', 'head', 'anthropic.m1', 't', 2, 'text', 'sk1', 't1', '', 'p1', 'h1', 'pass', 5, 0, 1, 0);";

static void test_old_sqlite_store_is_migrated(void **state)
{
	struct fresh f;
	struct sc_store *s = NULL;
	struct sc_store_unit got;
	struct sc_store_key k;
	int64_t n = 0;
	int version = 0;
	(void)state;

	fresh_init(&f, &sqlite_be);
	assert_int_equal(sc_mkdir_p(f.dir), 0);
	{
		struct sc_buf sub = SC_BUF_INIT;
		sc_path_join(&sub, f.dir, "sub");
		assert_int_equal(sc_mkdir_p(sub.ptr), 0);
		sc_buf_release(&sub);
	}
	if (sql(&f, v1_store_sql, NULL) != 0) {
		fresh_release(&f);
		printf("# no sqlite3 command-line client to write a version 1 store\n");
		skip();
	}
	assert_int_equal(sc_store_open_existing(&s, f.location), 0);
	assert_int_equal(sc_store_schema_version(s, &version), 0);
	assert_int_equal(version, SC_STORE_SCHEMA_VERSION);
	assert_int_equal(sc_store_count_units(s, &n), 0);
	assert_int_equal(n, 3);  /* one row per key */
	sc_store_free(s);
	/* per key, the newest row that is not an error stayed (what lookups took) */
	{
		struct sc_buf out = SC_BUF_INIT, path = SC_BUF_INIT;
		sc_path_join(&path, f.dir, "rows.txt");
		assert_int_equal(sql(&f, "SELECT run_index, tokens_in FROM units ORDER BY run_index",
				     path.ptr), 0);
		assert_int_equal(sc_read_file(&out, path.ptr, 4096), 0);
		assert_string_equal(out.ptr, "0|2\n1|4\n2|5\n");
		sc_buf_release(&out);
		sc_buf_release(&path);
	}
	/* rows from before units carried a MAC are kept, never reused */
	assert_int_equal(sc_store_open_existing(&s, f.location), 0);
	key_of(&k, 0);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_ENOTFOUND);
	sc_store_unit_release(&got);
	sc_store_free(s);
	fresh_release(&f);
}

struct collected {
	struct sc_buf text;
};

/* Appends every field of every unit, for comparing two stores. */
static int collect_unit(const struct sc_store_unit *u, void *payload)
{
	struct collected *c = payload;

	sc_buf_printf(&c->text, "%s|%s|%s|%d|%s|%s|%s|%lld|%lld|%.17g|%.17g|%d|%s|%s\n", u->skill,
		      u->variant, u->model, u->run_index, u->skill_hash, u->verdict,
		      u->message ? u->message : "(null)", (long long)u->tokens_in,
		      (long long)u->tokens_out, u->judge_score, u->speedup, u->registers,
		      u->transcript ? u->transcript : "(null)", u->run_id);
	return 0;
}

static void collect_store(struct sc_buf *out, struct sc_store *s)
{
	struct collected c = { SC_BUF_INIT };
	struct sc_store_point *pts = NULL;
	size_t n = 0;

	assert_int_equal(sc_store_each_unit(s, NULL, collect_unit, &c), 0);
	assert_int_equal(sc_store_history(s, &pts, &n, NULL, NULL), 0);
	for (size_t i = 0; i < n; i++)
		sc_buf_printf(&c.text, "%s|%s|%s|%s|%.17g|%d\n", pts[i].run_id, pts[i].agg.skill,
			      pts[i].agg.variant, pts[i].finished_at, pts[i].agg.pass_rate,
			      pts[i].agg.n);
	sc_store_points_free(pts, n);
	sc_buf_puts(out, c.text.ptr);
	sc_buf_release(&c.text);
}

/* Copies a store of this backend into one of the other and back. */
static void test_copy_between_backends(void **state)
{
	const struct backend *be = *state;
	const struct backend *other = be->pg ? &sqlite_be : &pg_be;
	struct fresh a, b, c;
	struct sc_store *sa = NULL, *sb = NULL, *sc = NULL;
	struct sc_store_copy_stats st;
	struct sc_store_unit u;
	struct sc_store_aggregate agg;
	struct sc_store_shard sh = { "r1", 1, 2, "plan", "{}", NULL };
	struct sc_buf ta = SC_BUF_INIT, tb = SC_BUF_INIT, tc = SC_BUF_INIT;

	need(&pg_be);
	fresh_init(&a, be);
	fresh_init(&b, other);
	fresh_init(&c, be);
	assert_int_equal(sc_store_open(&sa, a.location), 0);
	assert_int_equal(sc_store_begin(sa), 0);
	for (int r = 0; r < 3; r++) {
		char id[16];
		snprintf(id, sizeof(id), "r%d", r);
		put_run(sa, id, r == 1 ? "2026-01-02T00:00:00Z" : "2026-01-01T00:00:00Z");
		sc_store_aggregate_init(&agg);
		agg.skill = (char *)"skills/demo";
		agg.variant = (char *)"head";
		agg.model = (char *)"m1";
		agg.n = r + 1;
		agg.pass_rate = 1.0 / (r + 3);
		assert_int_equal(sc_store_put_aggregate(sa, id, &agg), 0);
	}
	for (int i = 0; i < 700; i++) {  /* more than one copy transaction */
		fill_unit(&u, i % 7 ? "pass" : "fail", i, i);
		u.judge_score = i % 3 ? NAN : 0.1 * i;
		u.speedup = i % 2 ? 1.0 / (i + 1) : NAN;
		u.registers = i % 5 ? -1 : i;
		u.message = i % 4 ? NULL : (char *)"it's a \"quoted\" message: ünïcode";
		assert_int_equal(sc_store_put_unit(sa, i % 3 ? "r1" : "r2", &u), 0);
	}
	assert_int_equal(sc_store_put_shard(sa, &sh), 0);
	assert_int_equal(sc_store_commit(sa), 0);

	assert_int_equal(sc_store_open(&sb, b.location), 0);
	assert_int_equal(sc_store_copy(sb, sa, &st), 0);
	assert_int_equal(st.runs, 3);
	assert_int_equal(st.units, 700);
	assert_int_equal(st.new_units, 700);
	assert_int_equal(st.aggregates, 3);
	assert_int_equal(st.shards, 1);
	assert_int_equal(sc_store_copy(sb, sa, &st), 0);  /* again: nothing new */
	assert_int_equal(st.units, 700);
	assert_int_equal(st.new_units, 0);
	assert_int_equal(sc_store_open(&sc, c.location), 0);
	assert_int_equal(sc_store_copy(sc, sb, &st), 0);  /* and back */
	assert_int_equal(st.new_units, 700);

	collect_store(&ta, sa);
	collect_store(&tb, sb);
	collect_store(&tc, sc);
	assert_true(ta.len > 700 * 40);
	assert_string_equal(ta.ptr, tb.ptr);
	assert_string_equal(ta.ptr, tc.ptr);
	sc_buf_release(&ta);
	sc_buf_release(&tb);
	sc_buf_release(&tc);
	sc_store_free(sa);
	sc_store_free(sb);
	sc_store_free(sc);
	fresh_release(&a);
	fresh_release(&b);
	fresh_release(&c);
}

static void test_location_with_password_is_refused(void **state)
{
	struct sc_store *s = NULL;
	(void)state;

	assert_int_equal(sc_store_check_location("postgresql://alice:s3cr3t@db.example/skillci"),
			 SC_EINVAL);
	assert_null(strstr(sc_error_last(), "s3cr3t"));
	assert_non_null(strstr(sc_error_last(), "alice:***@db.example"));
	assert_non_null(strstr(sc_error_last(), "PGPASSWORD"));
	assert_int_equal(sc_store_open(&s, "postgres://db.example/skillci?password=s3cr3t&sslmode=require"),
			 SC_EINVAL);
	assert_null(s);
	assert_null(strstr(sc_error_last(), "s3cr3t"));
	assert_non_null(strstr(sc_error_last(), "password=***&sslmode=require"));
	assert_int_equal(sc_store_check_location("postgresql://db.example/x?sslpassword=s3cr3t"),
			 SC_EINVAL);
	assert_null(strstr(sc_error_last(), "s3cr3t"));
	/* user names, TLS settings and services are fine */
	assert_int_equal(sc_store_check_location("postgresql://alice@db.example:5433/skillci"
						 "?sslmode=verify-full&sslrootcert=/etc/ca.pem"), 0);
	assert_int_equal(sc_store_check_location("postgresql://?service=fleet"), 0);
	assert_int_equal(sc_store_check_location("postgresql://db.example/x?nosuchkey=1"), SC_EINVAL);
	assert_int_equal(sc_store_check_location(".skillci/results.db"), 0);
	assert_true(sc_store_is_postgres("postgres://h/d"));
	assert_false(sc_store_is_postgres("./postgresql.db"));
}

static void test_location_precedence(void **state)
{
	(void)state;
	unsetenv(SC_STORE_ENV);
	assert_string_equal(sc_store_location(NULL, NULL), SC_STORE_DEFAULT_PATH);
	assert_string_equal(sc_store_location(NULL, "cfg.db"), "cfg.db");
	setenv(SC_STORE_ENV, "postgresql://env/db", 1);
	assert_string_equal(sc_store_location(NULL, "cfg.db"), "postgresql://env/db");
	assert_string_equal(sc_store_location("flag.db", "cfg.db"), "flag.db");
	setenv(SC_STORE_ENV, "", 1);
	assert_string_equal(sc_store_location(NULL, "cfg.db"), "cfg.db");
	unsetenv(SC_STORE_ENV);
}

/* ---- PostgreSQL faults ---------------------------------------------------- */

/* Cuts off every connection skillci holds to the test database. */
static void terminate_sessions(const struct fresh *f)
{
	struct sc_buf q = SC_BUF_INIT;

	sc_buf_printf(&q, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
		      " WHERE datname = '%s' AND application_name = 'skillci'", f->db);
	assert_int_equal(sql(f, q.ptr, NULL), 0);
	sc_buf_release(&q);
}

static void test_pg_connection_cut_before_commit(void **state)
{
	struct fresh f;
	struct sc_store *s = NULL;
	struct sc_store_unit u, got;
	struct sc_store_key k;
	int64_t n = 0;
	(void)state;

	need(&pg_be);
	fresh_init(&f, &pg_be);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	assert_int_equal(sc_store_begin(s), 0);
	put_run(s, "r1", "2026-01-01T00:00:00Z");
	for (int i = 0; i < 5; i++) {
		fill_unit(&u, "pass", i, i);
		assert_int_equal(sc_store_put_unit(s, "r1", &u), 0);
	}
	terminate_sessions(&f);      /* the server cuts the session off */
	assert_int_equal(sc_store_commit(s), 0);  /* reconnects and sends it all */
	assert_int_equal(sc_store_count_units(s, &n), 0);
	assert_int_equal(n, 5);
	terminate_sessions(&f);      /* a read after a cut reconnects too */
	key_of(&k, 3);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), 0);
	assert_int_equal(got.tokens_in, 3);
	sc_store_unit_release(&got);
	/* the same transaction sent twice (an answer lost after COMMIT) stores
	 * nothing twice */
	assert_int_equal(sc_store_begin(s), 0);
	put_run(s, "r1", "2026-01-01T00:00:00Z");
	for (int i = 0; i < 5; i++) {
		fill_unit(&u, "pass", i, 100 + i);
		assert_int_equal(sc_store_put_unit(s, "r1", &u), 0);
	}
	assert_int_equal(sc_store_commit(s), 0);
	assert_int_equal(sc_store_count_units(s, &n), 0);
	assert_int_equal(n, 5);
	sc_store_free(s);
	fresh_release(&f);
}

static void test_pg_unreachable_fails_at_open(void **state)
{
	struct sc_store *s = NULL;
	int64_t t0 = sc_now_ms();
	(void)state;

	/* port 1 on loopback: refused at once */
	assert_int_equal(sc_store_open(&s, "postgresql://skillci@127.0.0.1:1/skillci"), SC_EIO);
	assert_null(s);
	assert_non_null(strstr(sc_error_last(), "cannot connect"));
	assert_non_null(strstr(sc_error_last(), "127.0.0.1:1"));
	assert_true(sc_now_ms() - t0 < 15000);
}

static void test_pg_statement_timeout(void **state)
{
	struct fresh f;
	struct sc_store *s = NULL, *slow = NULL;
	struct sc_store_unit got;
	struct sc_store_key k;
	struct sc_buf loc = SC_BUF_INIT, lock = SC_BUF_INIT;
	pid_t holder;
	int status = 0;
	(void)state;

	need(&pg_be);
	fresh_init(&f, &pg_be);
	assert_int_equal(sc_store_open(&s, f.location), 0);  /* the schema, before the lock */
	sc_store_free(s);
	/* a session that holds the units table for 20 s */
	sc_buf_printf(&lock, "BEGIN; LOCK TABLE units IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(20)");
	holder = fork();
	assert_true(holder >= 0);
	if (holder == 0) {
		setpgid(0, 0);
		_exit(sql(&f, lock.ptr, NULL));
	}
	for (int i = 0; i < 100; i++) {
		struct sc_buf path = SC_BUF_INIT, out = SC_BUF_INIT;
		sc_path_join(&path, f.dir, "locks.txt");
		sql(&f, "SELECT count(*) FROM pg_locks WHERE mode = 'AccessExclusiveLock'"
		    " AND relation = 'units'::regclass", path.ptr);
		sc_read_file(&out, path.ptr, 4096);
		sc_error_clear();
		bool held = out.len && out.ptr[0] == '1';
		sc_buf_release(&path);
		sc_buf_release(&out);
		if (held)
			break;
		usleep(50 * 1000);
	}
	sc_buf_printf(&loc, "%s&options=-c%%20statement_timeout%%3D150", f.location);
	assert_int_equal(sc_store_open(&slow, loc.ptr), 0);
	key_of(&k, 0);
	assert_int_equal(sc_store_lookup_unit(slow, &got, &k), SC_EIO);
	assert_non_null(strstr(sc_error_last(), "statement_timeout (150ms) 3 times"));
	assert_non_null(strstr(sc_error_last(), "look up unit"));
	sc_store_unit_release(&got);
	sc_store_free(slow);
	kill(-holder, SIGTERM);
	kill(holder, SIGTERM);
	waitpid(holder, &status, 0);
	sc_buf_release(&loc);
	sc_buf_release(&lock);
	fresh_release(&f);
}

/*
 * Only units this runner wrote are reused: a row edited after it was
 * stored and a row planted without a MAC both fail the check, are not
 * reused, and are replaced by the next answer stored under their key.
 */
static void test_lookup_checks_integrity(void **state)
{
	const struct backend *be = *state;
	struct fresh f;
	struct sc_store *s = NULL;
	struct sc_store_unit u, got;
	struct sc_store_key k;
	int64_t n = 0;

	need(be);
	fresh_init(&f, be);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	put_run(s, "r1", "2026-01-01T00:00:00Z");
	fill_unit(&u, "fail", 0, 100);
	assert_int_equal(sc_store_put_unit(s, "r1", &u), 0);
	key_of(&k, 0);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), 0);
	assert_non_null(got.mac);
	/* "k1:" FINGERPRINT ":" HMAC: the key that signed it is named */
	assert_int_equal(strlen(got.mac), 3 + 16 + 1 + 64);
	assert_true(strncmp(got.mac, "k1:", 3) == 0 && got.mac[19] == ':');
	sc_store_unit_release(&got);
	sc_store_free(s);
	s = NULL;

	/* edited from fail to pass behind the store's back: not reused */
	assert_int_equal(sql(&f, "UPDATE units SET verdict = 'pass'", NULL), 0);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_ENOTFOUND);
	sc_store_unit_release(&got);
	/* the next answer under the key replaces it, and is reused */
	fill_unit(&u, "fail", 0, 200);
	assert_int_equal(sc_store_put_unit(s, "r2", &u), 0);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), 0);
	assert_int_equal(got.tokens_in, 200);
	assert_string_equal(got.run_id, "r2");
	sc_store_unit_release(&got);
	sc_store_free(s);
	s = NULL;

	/* a row planted without a MAC (another tool, an older skillci) */
	assert_int_equal(sql(&f, "INSERT INTO units (run_id, skill, variant, model, test_id,"
			     " run_index, kind, skill_hash, test_hash, fixture_hash, prompt_hash,"
			     " harness, verdict, tokens_in, tokens_out, turns, latency_ms)"
			     " VALUES ('x', 'skills/demo', 'head', 'anthropic.m1', 't', 3, 'text',"
			     " 'sk1', 't1', '', 'p1', 'h1', 'pass', 1, 1, 1, 1)", NULL), 0);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	key_of(&k, 3);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_ENOTFOUND);
	sc_store_unit_release(&got);
	fill_unit(&u, "fail", 3, 300);
	assert_int_equal(sc_store_put_unit(s, "r3", &u), 0);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), 0);
	assert_string_equal(got.verdict, "fail");
	sc_store_unit_release(&got);
	assert_int_equal(sc_store_count_units(s, &n), 0);
	assert_int_equal(n, 2);
	sc_store_free(s);
	s = NULL;

	/* a row signed by a key this runner does not know: another runner's.
	 * Refused loudly by lookup and put, and left where it is. */
	assert_int_equal(sql(&f, "UPDATE units SET mac = 'k1:00000000deadbeef:' || "
			     "substr(mac, 21) WHERE run_index = 3", NULL), 0);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "is signed by runner key 00000000deadbeef, which "
			       "this runner (key "));
	assert_non_null(strstr(sc_error_last(), "SKILLCI_TRUSTED_KEYS"));
	sc_store_unit_release(&got);
	fill_unit(&u, "pass", 3, 400);
	assert_int_equal(sc_store_put_unit(s, "r4", &u), SC_EUNSAFE);
	assert_int_equal(sc_store_count_units(s, &n), 0);
	assert_int_equal(n, 2);
	sc_store_free(s);
	fresh_release(&f);
}

/* A kernel unit as a GPU run stores it: the strong reference, the speedup
 * over it and the share of the roofline (schema 5). */
static void fill_kernel_unit(struct sc_store_unit *u, int run_index)
{
	fill_unit(u, "pass", run_index, 100);
	u->kind = "kernel";
	u->fixture = "softmax";
	u->compile = "ok";
	u->kernel_verdict = "passed";
	u->registers = 32;
	u->speedup = 12.5;
	u->strong_reference = "fixture solution fixtures/softmax/solution.cu";
	u->strong_speedup = 0.8125;
	u->pct_of_peak = 61.25;
}

/*
 * The v4 MAC of u as skillci wrote it before schema 5 ("skillci-unit/1"
 * over the first 30 columns, each typed and length-prefixed), as the
 * column holds it: "k1:FPR:HEX". Written out here so that a change of
 * the old format, which migrated rows depend on, fails this test.
 */
static void mac_text(struct sc_hmac *h, const char *t)
{
	struct sc_buf b = SC_BUF_INIT;

	if (t)
		sc_buf_printf(&b, "s%zu:%s", strlen(t), t);
	else
		sc_buf_sets(&b, "n");
	sc_hmac_update(h, b.ptr, b.len);
	sc_buf_release(&b);
}

static void mac_int(struct sc_hmac *h, int64_t v)
{
	struct sc_buf b = SC_BUF_INIT;

	sc_buf_printf(&b, "i%lld;", (long long)v);
	sc_hmac_update(h, b.ptr, b.len);
	sc_buf_release(&b);
}

static void mac_real(struct sc_hmac *h, double v)
{
	struct sc_buf b = SC_BUF_INIT;

	if (isnan(v))
		sc_buf_sets(&b, "n");
	else
		sc_buf_printf(&b, "r%.17g;", v);
	sc_hmac_update(h, b.ptr, b.len);
	sc_buf_release(&b);
}

static char *v4_mac(const struct sc_store_unit *u, const char *run_id)
{
	struct sc_hmac h;
	unsigned char mac[SC_SHA256_LEN];
	struct sc_buf b = SC_BUF_INIT, hex = SC_BUF_INIT;
	const char *texts[] = { u->skill, u->skill_name, u->variant, u->model, u->test_id, u->test_name };
	const char *texts2[] = { u->kind, u->skill_hash, u->test_hash, u->fixture_hash, u->prompt_hash,
				 u->harness, u->verdict, u->error_class, u->message };
	const char *texts3[] = { u->fixture, u->compile, u->kernel_verdict, u->compile_log };

	sc_hmac_init(&h, sc_runner_key(), SC_RUNNER_KEY_LEN);
	sc_hmac_update(&h, "skillci-unit/1", 15);
	for (size_t i = 0; i < SC_ARRAY_SIZE(texts); i++)
		mac_text(&h, texts[i]);
	mac_int(&h, u->run_index);
	for (size_t i = 0; i < SC_ARRAY_SIZE(texts2); i++)
		mac_text(&h, texts2[i]);
	mac_int(&h, u->tokens_in);
	mac_int(&h, u->tokens_out);
	mac_int(&h, u->turns);
	mac_int(&h, u->latency_ms);
	mac_real(&h, u->judge_score);
	for (size_t i = 0; i < SC_ARRAY_SIZE(texts3); i++)
		mac_text(&h, texts3[i]);
	mac_real(&h, u->max_abs_error);
	if (u->registers >= 0)
		mac_int(&h, u->registers);
	else
		mac_text(&h, NULL);
	mac_real(&h, u->speedup);
	mac_text(&h, u->transcript);
	mac_text(&h, run_id);
	sc_hmac_final(&h, mac);
	sc_hex(&hex, mac, sizeof(mac));
	sc_buf_printf(&b, "k1:%s:%s", sc_sign_own_fingerprint(), hex.ptr);
	sc_buf_release(&hex);
	return sc_buf_detach(&b, NULL);
}

/*
 * Schema 5: a kernel unit's strong reference, strong speedup and share of
 * the roofline round-trip, and an aggregate's strong-speedup geomean; the
 * MAC covers them (an edited strong speedup is not reused); a row as a
 * version 4 store held it (those columns NULL, the old MAC) is still
 * reused after the migration, and fails once one of them is set.
 */
static void test_strong_reference_round_trip(void **state)
{
	const struct backend *be = *state;
	struct fresh f;
	struct sc_store *s = NULL;
	struct sc_store_unit u, got;
	struct sc_store_aggregate a;
	struct sc_store_point *pts = NULL;
	struct sc_store_key k;
	struct sc_buf q = SC_BUF_INIT;
	size_t n = 0;
	char *mac;

	need(be);
	fresh_init(&f, be);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	put_run(s, "r1", "2026-01-01T00:00:00Z");
	fill_kernel_unit(&u, 0);
	assert_int_equal(sc_store_put_unit(s, "r1", &u), 0);
	sc_store_aggregate_init(&a);
	a.skill = (char *)"skills/demo";
	a.variant = (char *)"head";
	a.model = (char *)"anthropic.m1";
	a.n = 1;
	a.speedup_geomean = 12.5;
	a.strong_speedup_geomean = 0.8125;
	assert_int_equal(sc_store_put_aggregate(s, "r1", &a), 0);
	key_of(&k, 0);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), 0);
	assert_string_equal(got.strong_reference, "fixture solution fixtures/softmax/solution.cu");
	assert_true(got.strong_speedup == 0.8125);
	assert_true(got.pct_of_peak == 61.25);
	assert_true(got.speedup == 12.5);
	sc_store_unit_release(&got);
	assert_int_equal(sc_store_history(s, &pts, &n, NULL, NULL), 0);
	assert_int_equal(n, 1);
	assert_true(pts[0].agg.strong_speedup_geomean == 0.8125);
	assert_true(pts[0].agg.speedup_geomean == 12.5);
	sc_store_points_free(pts, n);
	/* a text unit: NULL there */
	fill_unit(&u, "pass", 1, 100);
	assert_int_equal(sc_store_put_unit(s, "r1", &u), 0);
	key_of(&k, 1);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), 0);
	assert_null(got.strong_reference);
	assert_true(isnan(got.strong_speedup) && isnan(got.pct_of_peak));
	sc_store_unit_release(&got);
	sc_store_free(s);
	s = NULL;

	/* the strong speedup edited behind the store's back: not reused */
	assert_int_equal(sql(&f, "UPDATE units SET strong_speedup = 2 WHERE run_index = 0", NULL), 0);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	key_of(&k, 0);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_ENOTFOUND);
	sc_store_unit_release(&got);
	sc_store_free(s);
	s = NULL;

	/* a kernel unit as schema 4 stored it: the new columns NULL, its MAC
	 * over the 30 older ones */
	fill_kernel_unit(&u, 0);
	u.strong_reference = NULL;
	u.strong_speedup = u.pct_of_peak = NAN;
	mac = v4_mac(&u, "r1");
	sc_buf_printf(&q, "UPDATE units SET strong_reference = NULL, strong_speedup = NULL, pct_of_peak = NULL,"
		      " mac = '%s' WHERE run_index = 0", mac);
	assert_int_equal(sql(&f, q.ptr, NULL), 0);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), 0);
	assert_true(got.speedup == 12.5);
	assert_null(got.strong_reference);
	sc_store_unit_release(&got);
	sc_store_free(s);
	s = NULL;
	/* ... and with a strong speedup added to it, it is not */
	assert_int_equal(sql(&f, "UPDATE units SET strong_speedup = 3 WHERE run_index = 0", NULL), 0);
	assert_int_equal(sc_store_open(&s, f.location), 0);
	assert_int_equal(sc_store_lookup_unit(s, &got, &k), SC_ENOTFOUND);
	sc_store_unit_release(&got);
	sc_store_free(s);
	free(mac);
	sc_buf_release(&q);
	fresh_release(&f);
}

#define BOTH(fn) \
	{ #fn " (sqlite)", fn, NULL, NULL, (void *)&sqlite_be }, \
	{ #fn " (postgresql)", fn, NULL, NULL, (void *)&pg_be }

int main(void)
{
	const struct CMUnitTest tests[] = {
		BOTH(test_open_creates_store_and_reopens),
		BOTH(test_lookup_reuses_only_same_key),
		BOTH(test_lookup_checks_integrity),
		BOTH(test_strong_reference_round_trip),
		BOTH(test_rollback_writes_nothing),
		BOTH(test_newer_schema_is_refused),
		BOTH(test_history_orders_runs_and_filters),
		BOTH(test_shard_results),
		BOTH(test_four_processes_write_one_store),
		BOTH(test_copy_between_backends),
		BOTH(test_one_store_write_of_a_run),
		cmocka_unit_test(test_old_sqlite_store_is_migrated),
		cmocka_unit_test(test_location_with_password_is_refused),
		cmocka_unit_test(test_location_precedence),
		cmocka_unit_test(test_pg_connection_cut_before_commit),
		cmocka_unit_test(test_pg_unreachable_fails_at_open),
		cmocka_unit_test(test_pg_statement_timeout),
	};
	/* this process's runner key: no file under HOME is read or made */
	setenv("SKILLCI_RUNNER_KEY", "unit-test-runner-key-for-the-results-store", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
