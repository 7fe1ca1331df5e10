/*
 * The results store, backend-neutral part (see store.h, store_backend.h):
 * chooses the backend from the location, turns records into rows of typed
 * values and back, and copies one store into another. The SQL is in
 * store_sqlite.c and store_pg.c.
 */
#include "common.h"
#include "output.h"
#include "results/store.h"
#include "results/signing.h"
#include "results/store_backend.h"
#include "secret.h"
#include "sha256.h"

#include <math.h>
#include <stdlib.h>

#define T SC_STORE_TEXT
#define I SC_STORE_INT
#define R SC_STORE_REAL

static void sc_store_aggregate_release(struct sc_store_aggregate *a);

static const enum sc_store_type unit_types[SC_STORE_UNIT_NCOLS] = {
	T, T, T, T, T, T, I, T,        /* skill .. kind */
	T, T, T, T, T,                 /* hashes */
	T, T, T,                       /* verdict, error_class, message */
	I, I, I, I, R,                 /* tokens_in .. judge_score */
	T, T, T, T, R, I, R,           /* fixture .. speedup */
	T, T,                          /* transcript, run_id */
	T, R, R,                       /* strong_reference, strong_speedup, pct_of_peak */
	T,                             /* mac */
};
static const enum sc_store_type run_types[SC_STORE_RUN_NCOLS] = { T, T, T, T, I, T, I, I, T, T, T };
static const enum sc_store_type aggregate_types[SC_STORE_AGGREGATE_NCOLS] = {
	T, T, T, T, T, I, I, I, I, I, R, R, R, R, R, R, R, R, R, R, R,
};
static const enum sc_store_type shard_types[SC_STORE_SHARD_NCOLS] = { T, I, I, T, T, T };
static const enum sc_store_type history_types[SC_STORE_AGGREGATE_NCOLS + 4] = {
	T, T, T, T, T, T, T, T, T, I, I, I, I, I, R, R, R, R, R, R, R, R, R, R, R,
};
static const enum sc_store_type count_types[1] = { I };

#undef T
#undef I
#undef R


/*
 * Every row leaves through here: its text values with each registered
 * secret redacted (output.h). A unit whose text changed no longer
 * matches its MAC, so it is evaluated again rather than reused.
 */
static int write_row(struct sc_store *store, enum sc_store_stmt stmt, struct sc_store_value *v,
		     size_t n)
{
	char **copies = sc_xcalloc(n, sizeof(*copies));
	int err;

	for (size_t i = 0; i < n; i++)
		if (v[i].type == SC_STORE_TEXT && v[i].text) {
			struct sc_buf red = SC_BUF_INIT;
			if (sc_output_redact_to(&red, v[i].text, strlen(v[i].text)))
				v[i].text = copies[i] = sc_buf_detach(&red, NULL);
			sc_buf_release(&red);
		}
	err = store->ops->write(store, stmt, v, n);
	for (size_t i = 0; i < n; i++)
		free(copies[i]);
	free(copies);
	return err;
}

/* ---- values --------------------------------------------------------------- */

static void v_text(struct sc_store_value *v, const char *s)
{
	memset(v, 0, sizeof(*v));
	v->type = s ? SC_STORE_TEXT : SC_STORE_NULL;
	v->text = s;
}

static void v_int(struct sc_store_value *v, int64_t i)
{
	memset(v, 0, sizeof(*v));
	v->type = SC_STORE_INT;
	v->i = i;
}

/* NaN and infinities are stored as NULL. */
static void v_real(struct sc_store_value *v, double d)
{
	memset(v, 0, sizeof(*v));
	v->type = isnan(d) || isinf(d) ? SC_STORE_NULL : SC_STORE_REAL;
	v->d = d;
}

static char *c_text(const struct sc_store_value *v)
{
	return v->type == SC_STORE_TEXT && v->text ? sc_xstrdup(v->text) : NULL;
}

static int64_t c_int(const struct sc_store_value *v)
{
	return v->type == SC_STORE_INT ? v->i : 0;
}

static double c_real(const struct sc_store_value *v)
{
	return v->type == SC_STORE_REAL ? v->d : NAN;
}

static void unit_values(struct sc_store_value *v, const char *run_id, const struct sc_store_unit *u,
			const char *mac)
{
	int i = 0;

	v_text(&v[i++], u->skill);
	v_text(&v[i++], u->skill_name);
	v_text(&v[i++], u->variant);
	v_text(&v[i++], u->model);
	v_text(&v[i++], u->test_id);
	v_text(&v[i++], u->test_name);
	v_int(&v[i++], u->run_index);
	v_text(&v[i++], u->kind);
	v_text(&v[i++], u->skill_hash);
	v_text(&v[i++], u->test_hash);
	v_text(&v[i++], u->fixture_hash ? u->fixture_hash : "");
	v_text(&v[i++], u->prompt_hash);
	v_text(&v[i++], u->harness);
	v_text(&v[i++], u->verdict);
	v_text(&v[i++], u->error_class);
	v_text(&v[i++], u->message);
	v_int(&v[i++], u->tokens_in);
	v_int(&v[i++], u->tokens_out);
	v_int(&v[i++], u->turns);
	v_int(&v[i++], u->latency_ms);
	v_real(&v[i++], u->judge_score);
	v_text(&v[i++], u->fixture);
	v_text(&v[i++], u->compile);
	v_text(&v[i++], u->kernel_verdict);
	v_text(&v[i++], u->compile_log);
	v_real(&v[i++], u->max_abs_error);
	if (u->registers >= 0)
		v_int(&v[i++], u->registers);
	else
		v_text(&v[i++], NULL);
	v_real(&v[i++], u->speedup);
	v_text(&v[i++], u->transcript);
	v_text(&v[i++], run_id);
	v_text(&v[i++], u->strong_reference);
	v_real(&v[i++], u->strong_speedup);
	v_real(&v[i++], u->pct_of_peak);
	v_text(&v[i++], mac);
	assert(i == SC_STORE_UNIT_NCOLS);
}

/* ---- unit integrity --------------------------------------------------- */

/*
 * A unit's MAC: HMAC-SHA-256 under a runner key (secret.h) over every
 * other column of the unit, each typed and length-prefixed, exactly as
 * unit_values() stores it (a NULL fixture hash is "", negative registers
 * NULL, NaN numbers NULL), so a unit read back computes the same MAC as
 * the unit written. A row planted or edited by anyone without the key
 * fails it and is never reused.
 *
 * The column holds "k1:FINGERPRINT:HEX": the key that signed it is named
 * (results/signing.h), so a row of another runner of the fleet is told
 * from a forged one. A bare HEX (written before keys were named) is
 * checked under this runner's own key.
 */
#define MAC_PREFIX "k1:"
#define MAC_LEN (3 + SC_SIGN_FPR_LEN + 1 + SC_SHA256_HEX_LEN)

/*
 * v4 true: the MAC of a row written before schema 5, over its first 30
 * columns (transcript and run_id the last) under the tag "skillci-unit/1";
 * since schema 5 the tag is "skillci-unit/2" and all 33 columns count. A
 * row read back is checked under /2, and under /1 only when the columns
 * schema 5 added are all NULL (as they are in a migrated row), so an old
 * row stays reusable and a new one cannot lose its strong reference
 * unnoticed.
 */
static void unit_hmac(char out[SC_SHA256_HEX_LEN + 1], const struct sc_store_unit *u,
		      const char *run_id, const unsigned char *key, bool v4)
{
	struct sc_store_value v[SC_STORE_UNIT_NCOLS];
	unsigned char mac[SC_SHA256_LEN];
	struct sc_buf hex = SC_BUF_INIT, field = SC_BUF_INIT;
	struct sc_hmac h;
	size_t ncols = v4 ? SC_STORE_UNIT_NCOLS_V4 : SC_STORE_UNIT_NCOLS;

	unit_values(v, run_id, u, NULL);
	sc_hmac_init(&h, key, SC_RUNNER_KEY_LEN);
	sc_hmac_update(&h, v4 ? "skillci-unit/1" : "skillci-unit/2", 15);
	for (size_t i = 0; i + 1 < ncols; i++) {
		sc_buf_clear(&field);
		switch (v[i].type) {
		case SC_STORE_NULL: sc_buf_puts(&field, "n"); break;
		case SC_STORE_INT: sc_buf_printf(&field, "i%lld;", (long long)v[i].i); break;
		case SC_STORE_REAL: sc_buf_printf(&field, "r%.17g;", v[i].d); break;
		case SC_STORE_TEXT: sc_buf_printf(&field, "s%zu:", strlen(v[i].text)); break;
		}
		sc_hmac_update(&h, field.ptr, field.len);
		if (v[i].type == SC_STORE_TEXT)
			sc_hmac_update(&h, v[i].text, strlen(v[i].text));
	}
	sc_hmac_final(&h, mac);
	sc_hex(&hex, mac, sizeof(mac));
	memcpy(out, hex.ptr, SC_SHA256_HEX_LEN + 1);
	sc_buf_release(&hex);
	sc_buf_release(&field);
}

/* The MAC column of u under this runner's own key. */
static void unit_mac(char out[MAC_LEN + 1], const struct sc_store_unit *u, const char *run_id)
{
	char hex[SC_SHA256_HEX_LEN + 1];

	unit_hmac(hex, u, run_id, sc_runner_key(), false);
	snprintf(out, MAC_LEN + 1, MAC_PREFIX "%s:%s", sc_sign_own_fingerprint(), hex);
}

enum mac_state { MAC_OK, MAC_BAD, MAC_UNKNOWN_KEY };

/*
 * What the MAC of a unit read back says: MAC_OK when it holds under the
 * key it names (this runner's or a trusted one), MAC_UNKNOWN_KEY when it
 * names a key this runner does not know (fpr, SC_SIGN_FPR_LEN + 1 bytes,
 * gets its fingerprint), MAC_BAD otherwise (none, edited, planted).
 */
static enum mac_state unit_mac_state(const struct sc_store_unit *u, char *fpr)
{
	char want[SC_SHA256_HEX_LEN + 1];
	const unsigned char *key = sc_runner_key();
	const char *hex = u->mac;

	if (!u->mac)
		return MAC_BAD;
	if (strlen(u->mac) == MAC_LEN && sc_starts_with(u->mac, MAC_PREFIX) &&
	    u->mac[3 + SC_SIGN_FPR_LEN] == ':') {
		memcpy(fpr, u->mac + 3, SC_SIGN_FPR_LEN);
		fpr[SC_SIGN_FPR_LEN] = 0;
		if (!(key = sc_sign_key_for(fpr)))
			return MAC_UNKNOWN_KEY;
		hex = u->mac + 3 + SC_SIGN_FPR_LEN + 1;
	} else if (strlen(u->mac) != SC_SHA256_HEX_LEN) {
		return MAC_BAD;
	}
	unit_hmac(want, u, u->run_id, key, false);
	if (sc_digest_equal((const unsigned char *)hex, (const unsigned char *)want, SC_SHA256_HEX_LEN))
		return MAC_OK;
	if (u->strong_reference || !isnan(u->strong_speedup) || !isnan(u->pct_of_peak))
		return MAC_BAD;
	unit_hmac(want, u, u->run_id, key, true);
	return sc_digest_equal((const unsigned char *)hex, (const unsigned char *)want,
			       SC_SHA256_HEX_LEN) ? MAC_OK : MAC_BAD;
}

/* The error for a unit signed by a key this runner does not know. */
static int unknown_key(const struct sc_store *store, const struct sc_store_unit *u,
		       const char *fpr)
{
	return sc_error_set(SC_EUNSAFE, "store '%s': unit '%s' of run '%s' is signed by runner key "
			    "%s, which this runner (key %s) does not trust; it is neither reused "
			    "nor replaced: share one key across the fleet (SKILLCI_RUNNER_KEY or "
			    "SKILLCI_RUNNER_KEY_FILE on every runner), or add that runner's key to "
			    "SKILLCI_TRUSTED_KEYS or SKILLCI_TRUSTED_KEY_FILES", store->display,
			    u->test_id ? u->test_id : "", u->run_id ? u->run_id : "", fpr,
			    sc_sign_own_fingerprint());
}

int sc_store_unit_verify(const struct sc_store *store, const struct sc_store_unit *u)
{
	char fpr[SC_SIGN_FPR_LEN + 1];

	switch (unit_mac_state(u, fpr)) {
	case MAC_OK:
		return 0;
	case MAC_UNKNOWN_KEY:
		return unknown_key(store, u, fpr);
	default:
		return sc_error_set(SC_EUNSAFE, "store '%s': unit '%s' of run '%s' fails its "
				    "integrity check (planted, edited, or written before units "
				    "were signed)", store->display, u->test_id ? u->test_id : "",
				    u->run_id ? u->run_id : "");
	}
}

/* A copy of a text value kept in u->owned; NULL for SQL NULL. */
static const char *unit_text(struct sc_store_unit *u, const struct sc_store_value *v)
{
	if (v->type != SC_STORE_TEXT || !v->text)
		return NULL;
	sc_strlist_add(&u->owned, v->text);
	return u->owned.items[u->owned.n - 1];
}

/* Fills u (initialised) from UNIT_COLUMNS. */
static void unit_from(struct sc_store_unit *u, const struct sc_store_value *c)
{
	int i = 0;

	u->skill = unit_text(u, &c[i++]);
	u->skill_name = unit_text(u, &c[i++]);
	u->variant = unit_text(u, &c[i++]);
	u->model = unit_text(u, &c[i++]);
	u->test_id = unit_text(u, &c[i++]);
	u->test_name = unit_text(u, &c[i++]);
	u->run_index = (int)c_int(&c[i++]);
	u->kind = unit_text(u, &c[i++]);
	u->skill_hash = unit_text(u, &c[i++]);
	u->test_hash = unit_text(u, &c[i++]);
	u->fixture_hash = unit_text(u, &c[i++]);
	u->prompt_hash = unit_text(u, &c[i++]);
	u->harness = unit_text(u, &c[i++]);
	u->verdict = unit_text(u, &c[i++]);
	u->error_class = unit_text(u, &c[i++]);
	u->message = unit_text(u, &c[i++]);
	u->tokens_in = c_int(&c[i++]);
	u->tokens_out = c_int(&c[i++]);
	u->turns = (int)c_int(&c[i++]);
	u->latency_ms = c_int(&c[i++]);
	u->judge_score = c_real(&c[i++]);
	u->fixture = unit_text(u, &c[i++]);
	u->compile = unit_text(u, &c[i++]);
	u->kernel_verdict = unit_text(u, &c[i++]);
	u->compile_log = unit_text(u, &c[i++]);
	u->max_abs_error = c_real(&c[i++]);
	u->registers = c[i].type == SC_STORE_INT ? (int)c[i].i : -1;
	i++;
	u->speedup = c_real(&c[i++]);
	u->transcript = unit_text(u, &c[i++]);
	u->run_id = unit_text(u, &c[i++]);
	u->strong_reference = unit_text(u, &c[i++]);
	u->strong_speedup = c_real(&c[i++]);
	u->pct_of_peak = c_real(&c[i++]);
	u->mac = unit_text(u, &c[i++]);
}

/* Fills a from AGGREGATE_COLUMNS without run_id (c points at skill). */
static void aggregate_from(struct sc_store_aggregate *a, const struct sc_store_value *c)
{
	int i = 0;

	a->skill = c_text(&c[i++]);
	a->skill_name = c_text(&c[i++]);
	a->variant = c_text(&c[i++]);
	a->model = c_text(&c[i++]);
	a->n = (int)c_int(&c[i++]);
	a->passed = (int)c_int(&c[i++]);
	a->failed = (int)c_int(&c[i++]);
	a->errors = (int)c_int(&c[i++]);
	a->skipped = (int)c_int(&c[i++]);
	a->pass_rate = c_real(&c[i++]);
	a->ci_low = c_real(&c[i++]);
	a->ci_high = c_real(&c[i++]);
	a->mean_tokens = c_real(&c[i++]);
	a->mean_turns = c_real(&c[i++]);
	a->speedup_geomean = c_real(&c[i++]);
	a->fast_1 = c_real(&c[i++]);
	a->fast_1_5 = c_real(&c[i++]);
	a->fast_2 = c_real(&c[i++]);
	a->judge_mean = c_real(&c[i++]);
	a->strong_speedup_geomean = c_real(&c[i++]);
}

/* ---- locations and opening ----------------------------------------------- */

bool sc_store_is_postgres(const char *location)
{
	return location && (sc_starts_with(location, "postgresql://") ||
			    sc_starts_with(location, "postgres://"));
}

int sc_store_check_location(const char *location)
{
	if (!location || !*location)
		return sc_error_set(SC_EINVAL, "the store location is empty");
	return sc_store_is_postgres(location) ? sc_store_pg_check(location) : 0;
}

const char *sc_store_location(const char *flag, const char *configured)
{
	const char *env = getenv(SC_STORE_ENV);

	if (flag)
		return flag;
	if (env && *env)
		return env;
	return configured ? configured : SC_STORE_DEFAULT_PATH;
}

int sc_store_newer_schema(const char *display, int version)
{
	return sc_error_set(SC_EINVAL,
			    "store '%s' has schema version %d, newer than this skillci's %d; "
			    "upgrade skillci or use another --store", display, version,
			    SC_STORE_SCHEMA_VERSION);
}

static int open_store(struct sc_store **out, const char *location, bool must_exist)
{
	int err;

	*out = NULL;
	if ((err = sc_store_check_location(location)) < 0)
		return err;
	if (sc_store_is_postgres(location))
		return sc_store_pg_open(out, location);
	return sc_store_sqlite_open(out, location, must_exist);
}

int sc_store_open(struct sc_store **out, const char *location)
{
	return open_store(out, location, false);
}

int sc_store_open_existing(struct sc_store **out, const char *location)
{
	return open_store(out, location, true);
}

void sc_store_free(struct sc_store *store)
{
	if (store)
		store->ops->close(store);
}

const char *sc_store_path(const struct sc_store *store)
{
	return store->display;
}

const char *sc_store_backend(const struct sc_store *store)
{
	return store->ops->name;
}

/* ---- transactions and writes --------------------------------------------- */

int sc_store_check_writable(struct sc_store *store)
{
	int err;

	/* a write transaction taken and given back: SQLite's BEGIN IMMEDIATE
	 * fails on a read-only file or folder */
	if ((err = sc_store_begin(store)) < 0)
		return err;
	sc_store_rollback(store);
	return 0;
}

int sc_store_begin(struct sc_store *store)
{
	return store->ops->begin(store);
}

int sc_store_commit(struct sc_store *store)
{
	return store->ops->commit(store);
}

void sc_store_rollback(struct sc_store *store)
{
	store->ops->rollback(store);
}

int sc_store_put_run(struct sc_store *store, const struct sc_store_run *r)
{
	struct sc_store_value v[SC_STORE_RUN_NCOLS];
	int i = 0;

	v_text(&v[i++], r->id);
	v_text(&v[i++], r->kind);
	v_text(&v[i++], r->started_at);
	v_text(&v[i++], r->finished_at);
	v_int(&v[i++], r->complete);
	v_text(&v[i++], r->models);
	v_int(&v[i++], r->runs);
	v_int(&v[i++], r->oracle);
	v_text(&v[i++], r->results_path);
	v_text(&v[i++], r->repo);
	v_text(&v[i++], r->head_rev);
	return write_row(store, SC_ST_PUT_RUN, v, SC_ARRAY_SIZE(v));
}

static void key_values(struct sc_store_value p[7], const struct sc_store_key *key)
{
	v_text(&p[0], key->skill_hash);
	v_text(&p[1], key->test_hash);
	v_text(&p[2], key->fixture_hash ? key->fixture_hash : "");
	v_text(&p[3], key->model);
	v_text(&p[4], key->prompt_hash);
	v_text(&p[5], key->harness);
	v_int(&p[6], key->run_index);
}

static int on_lookup(const struct sc_store_value *c, size_t n, void *payload);

/*
 * Stores u. A unit this runner computes gets its MAC now; one copied from
 * another store keeps the MAC it had (sc_store_copy clears it for what it
 * verified, so it is signed again here). A row already under the key
 * whose MAC does not hold (planted, edited) is replaced, so the key holds
 * a unit this runner can reuse; one signed by a key this runner does not
 * know is another runner's: it is left alone and the put fails
 * (SC_EUNSAFE naming the key and what to set), never replaced silently.
 */
int sc_store_put_unit(struct sc_store *store, const char *run_id, const struct sc_store_unit *u)
{
	struct sc_store_value v[SC_STORE_UNIT_NCOLS], p[7];
	struct sc_store_key key = { u->skill_hash, u->test_hash, u->fixture_hash, u->model,
				    u->prompt_hash, u->harness, u->run_index };
	struct sc_store_unit old;
	char mac[MAC_LEN + 1], fpr[SC_SIGN_FPR_LEN + 1];
	int err;

	if (!u->mac)
		unit_mac(mac, u, run_id);
	key_values(p, &key);
	sc_store_unit_init(&old);
	err = store->ops->query(store, SC_ST_LOOKUP_UNIT, p, SC_ARRAY_SIZE(p), unit_types,
				SC_STORE_UNIT_NCOLS, on_lookup, &old);
	if (err == 0 && old.verdict) {
		switch (unit_mac_state(&old, fpr)) {
		case MAC_OK:
			break;
		case MAC_UNKNOWN_KEY:
			err = unknown_key(store, &old, fpr);
			break;
		case MAC_BAD:
			err = write_row(store, SC_ST_DELETE_UNIT, p, SC_ARRAY_SIZE(p));
			break;
		}
	}
	sc_store_unit_release(&old);
	if (err < 0)
		return err;
	unit_values(v, run_id, u, u->mac ? u->mac : mac);
	return write_row(store, SC_ST_PUT_UNIT, v, SC_ARRAY_SIZE(v));
}

int sc_store_put_aggregate(struct sc_store *store, const char *run_id,
			   const struct sc_store_aggregate *a)
{
	struct sc_store_value v[SC_STORE_AGGREGATE_NCOLS];
	int i = 0;

	v_text(&v[i++], run_id);
	v_text(&v[i++], a->skill);
	v_text(&v[i++], a->skill_name);
	v_text(&v[i++], a->variant);
	v_text(&v[i++], a->model);
	v_int(&v[i++], a->n);
	v_int(&v[i++], a->passed);
	v_int(&v[i++], a->failed);
	v_int(&v[i++], a->errors);
	v_int(&v[i++], a->skipped);
	v_real(&v[i++], a->pass_rate);
	v_real(&v[i++], a->ci_low);
	v_real(&v[i++], a->ci_high);
	v_real(&v[i++], a->mean_tokens);
	v_real(&v[i++], a->mean_turns);
	v_real(&v[i++], a->speedup_geomean);
	v_real(&v[i++], a->fast_1);
	v_real(&v[i++], a->fast_1_5);
	v_real(&v[i++], a->fast_2);
	v_real(&v[i++], a->judge_mean);
	v_real(&v[i++], a->strong_speedup_geomean);
	return write_row(store, SC_ST_PUT_AGGREGATE, v, SC_ARRAY_SIZE(v));
}

int sc_store_put_shard(struct sc_store *store, const struct sc_store_shard *sh)
{
	struct sc_store_value v[SC_STORE_SHARD_NCOLS];
	int i = 0;

	v_text(&v[i++], sh->run_id);
	v_int(&v[i++], sh->shard_index);
	v_int(&v[i++], sh->shard_count);
	v_text(&v[i++], sh->plan_hash);
	v_text(&v[i++], sh->results);
	v_text(&v[i++], sh->stored_at);
	return write_row(store, SC_ST_PUT_SHARD, v, SC_ARRAY_SIZE(v));
}

/* ---- reads ---------------------------------------------------------------- */

static int on_lookup(const struct sc_store_value *c, size_t n, void *payload)
{
	struct sc_store_unit *u = payload;

	SC_UNUSED(n);
	sc_store_unit_release(u);
	unit_from(u, c);
	u->reused = true;
	return 0;
}

int sc_store_lookup_unit(struct sc_store *store, struct sc_store_unit *out,
			 const struct sc_store_key *key)
{
	struct sc_store_value p[7];
	char fpr[SC_SIGN_FPR_LEN + 1];
	enum mac_state state;
	int err;

	sc_store_unit_init(out);
	key_values(p, key);
	err = store->ops->query(store, SC_ST_LOOKUP_UNIT, p, SC_ARRAY_SIZE(p), unit_types,
				SC_STORE_UNIT_NCOLS, on_lookup, out);
	if (err < 0)
		return err;
	if (!out->verdict)
		return SC_ENOTFOUND;
	state = unit_mac_state(out, fpr);
	if (state == MAC_UNKNOWN_KEY) {
		/* another runner's unit: loudly, before any request is paid for */
		err = unknown_key(store, out, fpr);
		sc_store_unit_release(out);
		return err;
	}
	if (state != MAC_OK) {
		sc_trace("store", "store '%s': unit '%s' of run '%s' fails its integrity check "
			 "(not written by this runner, or edited); not reused", store->display,
			 out->test_id ? out->test_id : "", out->run_id ? out->run_id : "");
		sc_store_unit_release(out);
		return SC_ENOTFOUND;
	}
	return out->verdict ? 0 : SC_ENOTFOUND;
}

static int on_count(const struct sc_store_value *c, size_t n, void *payload)
{
	SC_UNUSED(n);
	*(int64_t *)payload = c_int(&c[0]);
	return 0;
}

static int count(struct sc_store *store, enum sc_store_stmt st, int64_t *out)
{
	*out = 0;
	return store->ops->query(store, st, NULL, 0, count_types, 1, on_count, out);
}

int sc_store_count_units(struct sc_store *store, int64_t *out)
{
	return count(store, SC_ST_COUNT_UNITS, out);
}

int sc_store_counts(struct sc_store *store, struct sc_store_counts *out)
{
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = count(store, SC_ST_COUNT_RUNS, &out->runs)) < 0 ||
	    (err = count(store, SC_ST_COUNT_UNITS, &out->units)) < 0 ||
	    (err = count(store, SC_ST_COUNT_AGGREGATES, &out->aggregates)) < 0 ||
	    (err = count(store, SC_ST_COUNT_SHARDS, &out->shards)) < 0)
		return err;
	return 0;
}

int sc_store_schema_version(struct sc_store *store, int *out)
{
	int64_t v = 0;
	int err = store->ops->query(store, SC_ST_SCHEMA_VERSION, NULL, 0, count_types, 1,
				    on_count, &v);

	*out = (int)v;
	return err;
}

struct each_unit {
	sc_store_unit_cb cb;
	void *payload;
};

static int on_unit(const struct sc_store_value *c, size_t n, void *payload)
{
	struct each_unit *e = payload;
	struct sc_store_unit u;
	int err;

	SC_UNUSED(n);
	sc_store_unit_init(&u);
	unit_from(&u, c);
	err = e->cb(&u, e->payload);
	sc_store_unit_release(&u);
	return err;
}

int sc_store_each_unit(struct sc_store *store, const struct sc_store_unit_filter *filter,
		       sc_store_unit_cb cb, void *payload)
{
	static const struct sc_store_unit_filter none = { NULL, NULL, NULL, false };
	const struct sc_store_unit_filter *f = filter ? filter : &none;
	struct each_unit e = { cb, payload };
	struct sc_store_value p[4];

	v_text(&p[0], f->skill);
	v_text(&p[1], f->model);
	v_text(&p[2], f->run_id);
	v_int(&p[3], f->passing ? 1 : 0);
	return store->ops->query(store, SC_ST_EACH_UNIT, p, SC_ARRAY_SIZE(p), unit_types,
				 SC_STORE_UNIT_NCOLS, on_unit, &e);
}

struct each_run {
	sc_store_run_cb cb;
	void *payload;
};

static int on_run(const struct sc_store_value *c, size_t n, void *payload)
{
	struct each_run *e = payload;
	struct sc_store_run r;

	SC_UNUSED(n);
	r.id = c[0].text;
	r.kind = c[1].text;
	r.started_at = c[2].text;
	r.finished_at = c[3].text;
	r.complete = c_int(&c[4]) != 0;
	r.models = c[5].text;
	r.runs = (int)c_int(&c[6]);
	r.oracle = c_int(&c[7]) != 0;
	r.results_path = c[8].text;
	r.repo = c[9].text;
	r.head_rev = c[10].text;
	return e->cb(&r, e->payload);
}

int sc_store_each_run(struct sc_store *store, sc_store_run_cb cb, void *payload)
{
	struct each_run e = { cb, payload };

	return store->ops->query(store, SC_ST_EACH_RUN, NULL, 0, run_types, SC_STORE_RUN_NCOLS,
				 on_run, &e);
}

struct each_aggregate {
	sc_store_aggregate_cb cb;
	void *payload;
};

static int on_aggregate(const struct sc_store_value *c, size_t n, void *payload)
{
	struct each_aggregate *e = payload;
	struct sc_store_aggregate a;
	int err;

	SC_UNUSED(n);
	sc_store_aggregate_init(&a);
	aggregate_from(&a, c + 1);
	err = e->cb(c[0].text, &a, e->payload);
	sc_store_aggregate_release(&a);
	return err;
}

int sc_store_each_aggregate(struct sc_store *store, sc_store_aggregate_cb cb, void *payload)
{
	struct each_aggregate e = { cb, payload };

	return store->ops->query(store, SC_ST_EACH_AGGREGATE, NULL, 0, aggregate_types,
				 SC_STORE_AGGREGATE_NCOLS, on_aggregate, &e);
}

struct each_shard {
	sc_store_shard_cb cb;
	void *payload;
};

static int on_shard(const struct sc_store_value *c, size_t n, void *payload)
{
	struct each_shard *e = payload;
	struct sc_store_shard s;

	SC_UNUSED(n);
	s.run_id = c[0].text;
	s.shard_index = (int)c_int(&c[1]);
	s.shard_count = (int)c_int(&c[2]);
	s.plan_hash = c[3].text;
	s.results = c[4].text ? c[4].text : "";
	s.stored_at = c[5].text;
	return e->cb(&s, e->payload);
}

int sc_store_each_shard(struct sc_store *store, const char *run_id, sc_store_shard_cb cb,
			void *payload)
{
	struct each_shard e = { cb, payload };
	struct sc_store_value p[1];

	v_text(&p[0], run_id);
	return store->ops->query(store, SC_ST_EACH_SHARD, p, 1, shard_types, SC_STORE_SHARD_NCOLS,
				 on_shard, &e);
}

struct history {
	struct sc_store_point *pts;
	size_t n, alloc;
};

static int on_point(const struct sc_store_value *c, size_t n, void *payload)
{
	struct history *h = payload;
	struct sc_store_point *p;

	SC_UNUSED(n);
	SC_GROW(h->pts, h->alloc, h->n + 1);
	p = &h->pts[h->n++];
	p->run_id = c_text(&c[0]);
	p->started_at = c_text(&c[1]);
	p->finished_at = c_text(&c[2]);
	p->repo = c_text(&c[3]);
	p->head_rev = c_text(&c[4]);
	sc_store_aggregate_init(&p->agg);
	aggregate_from(&p->agg, c + 5);
	return 0;
}

int sc_store_history(struct sc_store *store, struct sc_store_point **out, size_t *n,
		     const char *skill, const char *model)
{
	struct history h = { NULL, 0, 0 };
	struct sc_store_value p[2];
	int err;

	*out = NULL;
	*n = 0;
	v_text(&p[0], skill);
	v_text(&p[1], model);
	err = store->ops->query(store, SC_ST_HISTORY, p, 2, history_types,
				SC_ARRAY_SIZE(history_types), on_point, &h);
	if (err < 0) {
		sc_store_points_free(h.pts, h.n);
		return err;
	}
	*out = h.pts;
	*n = h.n;
	return 0;
}

void sc_store_points_free(struct sc_store_point *points, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(points[i].run_id);
		free(points[i].started_at);
		free(points[i].finished_at);
		free(points[i].repo);
		free(points[i].head_rev);
		sc_store_aggregate_release(&points[i].agg);
	}
	free(points);
}

/* ---- copy ----------------------------------------------------------------- */

struct copy {
	struct sc_store *to;
	struct sc_store_copy_stats *st;
	size_t in_tx;  /* rows written in the open transaction */
};

/* Counts one row; commits and begins again every SC_STORE_COPY_BATCH rows. */
static int copy_row(struct copy *c, int err)
{
	if (err < 0)
		return err;
	if (++c->in_tx < SC_STORE_COPY_BATCH)
		return 0;
	c->in_tx = 0;
	if ((err = sc_store_commit(c->to)) < 0)
		return err;
	return sc_store_begin(c->to);
}

static int copy_run(const struct sc_store_run *r, void *payload)
{
	struct copy *c = payload;

	c->st->runs++;
	return copy_row(c, sc_store_put_run(c->to, r));
}

/*
 * A unit is copied only when its MAC holds under a key this runner
 * trusts; it is then signed again under this runner's key. Others are
 * counted as skipped (the first unknown key is remembered for the
 * message).
 */
static int copy_unit(const struct sc_store_unit *u, void *payload)
{
	struct copy *c = payload;
	struct sc_store_unit re;
	char fpr[SC_SIGN_FPR_LEN + 1];
	enum mac_state state = unit_mac_state(u, fpr);

	c->st->units++;
	if (state != MAC_OK) {
		c->st->skipped_units++;
		if (state == MAC_UNKNOWN_KEY) {
			c->st->unknown_key_units++;
			if (!c->st->unknown_key[0])
				memcpy(c->st->unknown_key, fpr, sizeof(fpr));
		}
		return 0;
	}
	re = *u;
	re.mac = NULL;
	memset(&re.owned, 0, sizeof(re.owned));
	return copy_row(c, sc_store_put_unit(c->to, u->run_id, &re));
}

static int copy_aggregate(const char *run_id, const struct sc_store_aggregate *a, void *payload)
{
	struct copy *c = payload;

	c->st->aggregates++;
	return copy_row(c, sc_store_put_aggregate(c->to, run_id, a));
}

static int copy_shard(const struct sc_store_shard *s, void *payload)
{
	struct copy *c = payload;

	c->st->shards++;
	return copy_row(c, sc_store_put_shard(c->to, s));
}

int sc_store_copy(struct sc_store *to, struct sc_store *from, struct sc_store_copy_stats *stats)
{
	struct copy c = { to, stats, 0 };
	int64_t before = 0, after = 0;
	int err;

	memset(stats, 0, sizeof(*stats));
	if ((err = sc_store_count_units(to, &before)) < 0)
		return err;
	if ((err = sc_store_begin(to)) < 0)
		return err;
	if ((err = sc_store_each_run(from, copy_run, &c)) < 0 ||
	    (err = sc_store_each_unit(from, NULL, copy_unit, &c)) < 0 ||
	    (err = sc_store_each_aggregate(from, copy_aggregate, &c)) < 0 ||
	    (err = sc_store_each_shard(from, NULL, copy_shard, &c)) < 0 ||
	    (err = sc_store_commit(to)) < 0) {
		sc_store_rollback(to);
		return err;
	}
	if ((err = sc_store_count_units(to, &after)) < 0)
		return err;
	stats->new_units = after - before;
	return 0;
}

/* ---- records -------------------------------------------------------------- */

void sc_store_unit_init(struct sc_store_unit *u)
{
	memset(u, 0, sizeof(*u));
	u->judge_score = NAN;
	u->max_abs_error = NAN;
	u->speedup = u->strong_speedup = u->pct_of_peak = NAN;
	u->registers = -1;
}

void sc_store_unit_release(struct sc_store_unit *u)
{
	sc_strlist_release(&u->owned);
	sc_store_unit_init(u);
}

void sc_store_aggregate_init(struct sc_store_aggregate *a)
{
	memset(a, 0, sizeof(*a));
	a->pass_rate = a->ci_low = a->ci_high = NAN;
	a->mean_tokens = a->mean_turns = NAN;
	a->speedup_geomean = a->fast_1 = a->fast_1_5 = a->fast_2 = a->judge_mean = NAN;
	a->strong_speedup_geomean = NAN;
}

/* Frees what a read aggregate owns (one read from the store). */
static void sc_store_aggregate_release(struct sc_store_aggregate *a)
{
	free(a->skill);
	free(a->skill_name);
	free(a->variant);
	free(a->model);
	sc_store_aggregate_init(a);
}

const char *sc_store_stmt_what(enum sc_store_stmt which)
{
	static const char *const what[SC_ST__COUNT] = {
		[SC_ST_PUT_RUN] = "insert run",
		[SC_ST_PUT_UNIT] = "insert unit",
		[SC_ST_PUT_AGGREGATE] = "insert aggregate",
		[SC_ST_PUT_SHARD] = "insert shard results",
		[SC_ST_DELETE_UNIT] = "replace unit",
		[SC_ST_LOOKUP_UNIT] = "look up unit",
		[SC_ST_EACH_UNIT] = "read units",
		[SC_ST_EACH_RUN] = "read runs",
		[SC_ST_EACH_AGGREGATE] = "read aggregates",
		[SC_ST_EACH_SHARD] = "read shard results",
		[SC_ST_HISTORY] = "read history",
		[SC_ST_COUNT_RUNS] = "count runs",
		[SC_ST_COUNT_UNITS] = "count units",
		[SC_ST_COUNT_AGGREGATES] = "count aggregates",
		[SC_ST_COUNT_SHARDS] = "count shard results",
		[SC_ST_SCHEMA_VERSION] = "read schema version",
	};

	return (unsigned)which < SC_ST__COUNT && what[which] ? what[which] : "run a statement";
}
