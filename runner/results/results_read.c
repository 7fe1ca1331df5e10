/*
 * Reading a results file (results.h, sc_results_load and
 * sc_results_parse): every member checked, errors naming the file and
 * the JSON path, the units streamed.
 */
#include "common.h"
#include "json.h"
#include "results/results.h"

#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include "results/jdom.h"
#include "strpool.h"

/* A text this large has its signature checked in a thread of its own. */
#define SC_VERIFY_THREAD_BYTES (4u << 20)

/* ---- reading ----------------------------------------------------------- */

/* Reader state: the file name for messages and the JSON path of the
 * object being read ("$.units[3]"), kept as its steps and written out
 * only for a message; pool, when set, takes the strings read (a unit's). */
#define RD_MAX_DEPTH 16

struct rd {
	const char *name;
	struct {
		const char *key;  /* NULL: none */
		long i;           /* < 0: none */
	} path[RD_MAX_DEPTH];
	size_t depth;
	struct sc_strpool *pool;
};

static int rd_fail(struct rd *rd, const char *key, const char *what)
{
	struct sc_buf path = SC_BUF_INIT;
	int err;

	sc_buf_puts(&path, "$");
	for (size_t d = 0; d < rd->depth; d++) {
		if (rd->path[d].key)
			sc_buf_printf(&path, ".%s", rd->path[d].key);
		if (rd->path[d].i >= 0)
			sc_buf_printf(&path, "[%ld]", rd->path[d].i);
	}
	if (key)
		err = sc_error_set(SC_EINVAL, "results '%s': %s.%s: %s", rd->name, path.ptr, key, what);
	else
		err = sc_error_set(SC_EINVAL, "results '%s': %s: %s", rd->name, path.ptr, what);
	sc_buf_release(&path);
	return err;
}

static bool is(const struct sc_jdom_node *v, enum sc_jdom_type t) { return v && v->type == t; }
static bool is_null(const struct sc_jdom_node *v) { return is(v, SC_JDOM_NULL); }
static bool is_string(const struct sc_jdom_node *v) { return is(v, SC_JDOM_STRING); }
static bool is_number(const struct sc_jdom_node *v) { return is(v, SC_JDOM_NUMBER); }
static bool is_true(const struct sc_jdom_node *v) { return is(v, SC_JDOM_TRUE); }
static bool is_bool(const struct sc_jdom_node *v) { return is_true(v) || is(v, SC_JDOM_FALSE); }
static bool is_array(const struct sc_jdom_node *v) { return is(v, SC_JDOM_ARRAY); }
static bool is_object(const struct sc_jdom_node *v) { return is(v, SC_JDOM_OBJECT); }
static size_t members(const struct sc_jdom_node *v) { return v ? v->n : 0; }
#define JDOM_FOREACH(e, v) for ((e) = (v) ? (v)->child : NULL; (e); (e) = (e)->next)

/* A copy of s that is the reader's caller's: pooled, or its own. */
static char *rd_copy(struct rd *rd, const char *s)
{
	return rd->pool ? (char *)sc_strpool_intern(rd->pool, s) : sc_xstrdup(s);
}

/* Looks key up in obj; NULL when absent or JSON null. */
static const struct sc_jdom_node *rd_get(const struct sc_jdom_node *obj, const char *key)
{
	const struct sc_jdom_node *v = sc_jdom_get(obj, key);
	return (v && !is_null(v)) ? v : NULL;
}

static int rd_str(struct rd *rd, const struct sc_jdom_node *obj, const char *key, char **out, bool required)
{
	const struct sc_jdom_node *v = rd_get(obj, key);

	if (!v) {
		if (required)
			return rd_fail(rd, key, "missing (a string is required)");
		return 0;
	}
	if (!is_string(v))
		return rd_fail(rd, key, "expected a string");
	*out = rd_copy(rd, v->str);
	return 0;
}

/*
 * A state (results.h): the string at key read by its table (table: the
 * enum's name for sc_state_table, e.g. "unit_verdict"), into *out as its
 * value. Absent or null leaves *out as it was, or fails when required; an
 * unknown name fails naming the names it may be. alias, when not NULL, is
 * an older name read as the value named alias_of.
 */
static int rd_state(struct rd *rd, const struct sc_jdom_node *obj, const char *key, const char *table, int *out,
		    bool required, const char *alias, const char *alias_of)
{
	const struct sc_jdom_node *v = rd_get(obj, key);
	const char *const *names;
	const char *name;
	size_t n;

	if (!v)
		return required ? rd_fail(rd, key, "missing (a string is required)") : 0;
	if (!is_string(v))
		return rd_fail(rd, key, "expected a string");
	names = sc_state_table(table, &n);
	name = alias && !strcmp(v->str, alias) ? alias_of : v->str;
	for (size_t i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], name)) {
			*out = (int)i;
			return 0;
		}
	{
		struct sc_buf what = SC_BUF_INIT;
		int err;
		sc_buf_puts(&what, "expected ");
		sc_state_expected(&what, names, n);
		err = rd_fail(rd, key, what.ptr);
		sc_buf_release(&what);
		return err;
	}
}

/* rd_state into an enum lvalue dst (inside a function with err and done). */
#define RD_STATE(rd, obj, key, table, dst, required)                                   	do {                                                                            		int v_ = (int)(dst);                                                    		if ((err = rd_state(rd, obj, key, table, &v_, required, NULL, NULL)) < 0) 			goto done;                                                      		(dst) = v_;                                                             	} while (0)

static int rd_num(struct rd *rd, const struct sc_jdom_node *obj, const char *key, double *out)
{
	const struct sc_jdom_node *v = rd_get(obj, key);

	if (!v)
		return 0;
	if (!is_number(v))
		return rd_fail(rd, key, "expected a number");
	*out = v->num;
	return 0;
}

static int rd_int(struct rd *rd, const struct sc_jdom_node *obj, const char *key, int64_t *out)
{
	const struct sc_jdom_node *v = rd_get(obj, key);
	double d;

	if (!v)
		return 0;
	if (!is_number(v))
		return rd_fail(rd, key, "expected an integer");
	d = v->num;
	if (d != floor(d) || d < -9007199254740992.0 || d > 9007199254740992.0)
		return rd_fail(rd, key, "expected an integer");
	*out = (int64_t)d;
	return 0;
}

static int rd_bool(struct rd *rd, const struct sc_jdom_node *obj, const char *key, bool *out)
{
	const struct sc_jdom_node *v = rd_get(obj, key);

	if (!v)
		return 0;
	if (!is_bool(v))
		return rd_fail(rd, key, "expected true or false");
	*out = is_true(v);
	return 0;
}

static int rd_tribool(struct rd *rd, const struct sc_jdom_node *obj, const char *key, int *out)
{
	bool b = false;
	int err;

	*out = -1;
	if (!rd_get(obj, key))
		return 0;
	if ((err = rd_bool(rd, obj, key, &b)) < 0)
		return err;
	*out = b;
	return 0;
}

static int rd_strv(struct rd *rd, const struct sc_jdom_node *obj, const char *key, char ***out, size_t *n)
{
	const struct sc_jdom_node *v = rd_get(obj, key), *e;
	size_t i = 0;

	if (!v)
		return 0;
	if (!is_array(v))
		return rd_fail(rd, key, "expected an array of strings");
	*n = (size_t)members(v);
	*out = sc_xcalloc(*n ? *n : 1, sizeof(char *));
	JDOM_FOREACH(e, v) {
		if (!is_string(e)) {
			*n = i;
			return rd_fail(rd, key, "expected an array of strings");
		}
		(*out)[i++] = rd_copy(rd, e->str);
	}
	return 0;
}

/* Checks that key (when present) is an object; *out is NULL when absent. */
static int rd_obj(struct rd *rd, const struct sc_jdom_node *obj, const char *key, const struct sc_jdom_node **out)
{
	const struct sc_jdom_node *v = rd_get(obj, key);

	*out = NULL;
	if (v && !is_object(v))
		return rd_fail(rd, key, "expected an object");
	*out = v;
	return 0;
}

/* Enters "path.key" (or "path.key[i]" when i >= 0); returns the old
 * depth, for rd_leave. */
static size_t rd_enter(struct rd *rd, const char *key, long i)
{
	size_t old = rd->depth;

	assert(rd->depth < RD_MAX_DEPTH);
	rd->path[rd->depth].key = key;
	rd->path[rd->depth].i = i;
	rd->depth++;
	return old;
}

static void rd_leave(struct rd *rd, size_t old)
{
	rd->depth = old;
}

#define TRY(x) do { if ((err = (x)) < 0) goto done; } while (0)

/* run.trust: {"config", "head_config_changes": [{key, base, head}], "notes"} */
static int read_trust(struct rd *rd, const struct sc_jdom_node *run, struct sc_results_trust *t)
{
	const struct sc_jdom_node *o, *arr, *e;
	size_t old, i = 0;
	int err;

	if ((err = rd_obj(rd, run, "trust", &o)) < 0 || !o)
		return err;
	old = rd_enter(rd, "trust", -1);
	{
		const struct sc_jdom_node *g;
		if ((err = rd_obj(rd, o, "gate", &g)) < 0)
			goto done;
		if (g) {
			size_t o2 = rd_enter(rd, "gate", -1);
			struct sc_results_gate_policy *p = &t->gate;
			p->present = true;
			p->max_baseline_pass_rate = 1;
			p->regression_points = p->beta = NAN;
			if ((err = rd_num(rd, g, "pass_rate_drop_points", &p->pass_rate_drop_points)) < 0 ||
			    (err = rd_num(rd, g, "alpha", &p->alpha)) < 0 ||
			    (err = rd_num(rd, g, "tokens_rise_pct", &p->tokens_rise_pct)) < 0 ||
			    (err = rd_num(rd, g, "speedup_drop_ratio", &p->speedup_drop_ratio)) < 0 ||
			    (err = rd_num(rd, g, "judge_drop", &p->judge_drop)) < 0 ||
			    (err = rd_num(rd, g, "error_share", &p->error_share)) < 0 ||
			    (err = rd_bool(rd, g, "require_lift", &p->require_lift)) < 0 ||
			    (err = rd_bool(rd, g, "deletions_allowed", &p->deletions_allowed)) < 0 ||
			    (err = rd_num(rd, g, "max_baseline_pass_rate", &p->max_baseline_pass_rate)) < 0 ||
			    (err = rd_bool(rd, g, "compile_only", &p->compile_only)) < 0 ||
			    (err = rd_num(rd, g, "regression_points", &p->regression_points)) < 0 ||
			    (err = rd_num(rd, g, "beta", &p->beta)) < 0 ||
			    (err = rd_bool(rd, g, "accept_unverified", &p->accept_unverified)) < 0 ||
			    (err = rd_bool(rd, g, "allow_untested", &p->allow_untested)) < 0 ||
			    (err = rd_int(rd, g, "first_runs", &p->first_runs)) < 0 ||
			    (err = rd_int(rd, g, "max_runs", &p->max_runs)) < 0 ||
			    (err = rd_int(rd, g, "planned_checks", &p->planned_checks)) < 0) {
				rd_leave(rd, o2);
				goto done;
			}
			rd_leave(rd, o2);
		}
	}
	if ((err = rd_str(rd, o, "config", &t->config, false)) < 0 ||
	    (err = rd_strv(rd, o, "notes", &t->notes, &t->nnotes)) < 0)
		goto done;
	arr = rd_get(o, "head_config_changes");
	if (arr && !is_array(arr)) {
		err = rd_fail(rd, "head_config_changes", "expected an array");
		goto done;
	}
	t->changes = sc_xcalloc((size_t)members(arr) + 1, sizeof(*t->changes));
	JDOM_FOREACH(e, arr) {
		struct sc_results_config_change *c = &t->changes[i];
		size_t o2 = rd_enter(rd, "head_config_changes", (long)i);
		if (!is_object(e)) {
			err = rd_fail(rd, NULL, "expected an object");
		} else {
			t->nchanges = ++i;
			err = rd_str(rd, e, "key", &c->key, true);
			if (!err)
				err = rd_str(rd, e, "base", &c->base, false);
			if (!err)
				err = rd_str(rd, e, "head", &c->head, false);
		}
		rd_leave(rd, o2);
		if (err < 0)
			goto done;
	}
done:
	rd_leave(rd, old);
	return err;
}

/* run.usage: [{skill, model, tokens_in, tokens_out, cost_usd, price_date}] */
static int read_usage(struct rd *rd, const struct sc_jdom_node *run, struct sc_results_run *out)
{
	const struct sc_jdom_node *arr = rd_get(run, "usage"), *e;
	size_t i = 0;
	int err = 0;

	if (!arr || is_null(arr))
		return 0;
	if (!is_array(arr))
		return rd_fail(rd, "usage", "expected an array");
	out->usage = sc_xcalloc((size_t)members(arr) + 1, sizeof(*out->usage));
	JDOM_FOREACH(e, arr) {
		struct sc_results_usage *u = &out->usage[i];
		size_t o2 = rd_enter(rd, "usage", (long)i);
		u->cost_usd = NAN;
		if (!is_object(e)) {
			err = rd_fail(rd, NULL, "expected an object");
		} else {
			out->nusage = ++i;
			if ((err = rd_str(rd, e, "skill", &u->skill, true)) == 0 &&
			    (err = rd_str(rd, e, "model", &u->model, true)) == 0 &&
			    (err = rd_int(rd, e, "tokens_in", &u->tokens_in)) == 0 &&
			    (err = rd_int(rd, e, "tokens_out", &u->tokens_out)) == 0 &&
			    (err = rd_num(rd, e, "cost_usd", &u->cost_usd)) == 0)
				err = rd_str(rd, e, "price_date", &u->price_date, false);
		}
		rd_leave(rd, o2);
		if (err < 0)
			return err;
	}
	return 0;
}

static int read_provenance(struct rd *rd, const struct sc_jdom_node *run, struct sc_results_provenance *p)
{
	const struct sc_jdom_node *o;
	size_t old;
	int err, judged = SC_JUDGED_NONE;

	if ((err = rd_obj(rd, run, "provenance", &o)) < 0 || !o)
		return err;
	old = rd_enter(rd, "provenance", -1);
	p->present = true;
	p->workflow_run_attempt = 0;
	if ((err = rd_str(rd, o, "head", &p->head, true)) == 0 &&
	    (err = rd_str(rd, o, "base", &p->base, false)) == 0 &&
	    (err = rd_str(rd, o, "merge_base", &p->merge_base, false)) == 0 &&
	    (err = rd_state(rd, o, "judged", "judged", &judged, false, NULL, NULL)) == 0 &&
	    (err = rd_str(rd, o, "judged_tree", &p->judged_tree, false)) == 0 &&
	    (err = rd_str(rd, o, "config_hash", &p->config_hash, false)) == 0 &&
	    (err = rd_str(rd, o, "workflow_run_id", &p->workflow_run_id, false)) == 0 &&
	    (err = rd_int(rd, o, "workflow_run_attempt", &p->workflow_run_attempt)) == 0 &&
	    (err = rd_int(rd, o, "pull_request", &p->pr_number)) == 0)
		err = rd_str(rd, o, "pull_request_source", &p->pr_source, false);
	p->judged = judged;
	rd_leave(rd, old);
	return err;
}

static int read_run(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_run *run)
{
	const struct sc_jdom_node *shard, *gpu;
	int err = 0;

	TRY(rd_str(rd, o, "id", &run->id, false));
	RD_STATE(rd, o, "kind", "run_kind", run->kind, false);
	TRY(rd_str(rd, o, "started_at", &run->started_at, false));
	TRY(rd_str(rd, o, "finished_at", &run->finished_at, false));
	TRY(rd_bool(rd, o, "complete", &run->complete));
	TRY(rd_str(rd, o, "incomplete_reason", &run->incomplete_reason, false));
	TRY(rd_str(rd, o, "repo", &run->repo, false));
	TRY(rd_str(rd, o, "base_rev", &run->base_rev, false));
	TRY(rd_str(rd, o, "head_rev", &run->head_rev, false));
	TRY(rd_strv(rd, o, "models", &run->models, &run->nmodels));
	TRY(rd_strv(rd, o, "resolved_models", &run->resolved_models, &run->nresolved_models));
	if (run->nresolved_models && run->nresolved_models != run->nmodels) {
		err = rd_fail(rd, "resolved_models", "expected one name per model");
		goto done;
	}
	TRY(rd_int(rd, o, "runs", &run->runs));
	TRY(rd_obj(rd, o, "shard", &shard));
	if (shard) {
		size_t old = rd_enter(rd, "shard", -1);
		err = rd_int(rd, shard, "index", &run->shard_index);
		if (!err)
			err = rd_int(rd, shard, "count", &run->shard_count);
		rd_leave(rd, old);
		if (err < 0)
			goto done;
	}
	TRY(rd_str(rd, o, "plan_hash", &run->plan_hash, false));
	TRY(read_provenance(rd, o, &run->prov));
	TRY(rd_bool(rd, o, "oracle", &run->oracle));
	TRY(rd_str(rd, o, "mode", &run->mode, false));
	TRY(rd_obj(rd, o, "gpu", &gpu));
	if (gpu) {
		size_t old = rd_enter(rd, "gpu", -1);
		const struct sc_jdom_node *cc = rd_get(gpu, "cc");
		run->has_gpu = true;
		err = rd_str(rd, gpu, "name", &run->gpu.name, false);
		if (!err)
			err = rd_str(rd, gpu, "driver", &run->gpu.driver, false);
		if (!err)
			err = rd_str(rd, gpu, "arch", &run->gpu.arch, false);
		/* Compute capability: "9.0" or 9.0; kept as text. */
		if (!err && cc && is_number(cc)) {
			struct sc_buf b = SC_BUF_INIT;
			sc_buf_printf(&b, "%.1f", cc->num);
			run->gpu.cc = sc_buf_detach(&b, NULL);
		} else if (!err) {
			err = rd_str(rd, gpu, "cc", &run->gpu.cc, false);
		}
		rd_leave(rd, old);
		if (err < 0)
			goto done;
	}
	TRY(rd_str(rd, o, "fixtures_lock", &run->fixtures_lock, false));
	TRY(rd_num(rd, o, "alpha", &run->alpha));
	TRY(read_trust(rd, o, &run->trust));
	TRY(read_usage(rd, o, run));
done:
	return err;
}

static int read_finding(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_finding *f)
{
	int err = 0;

	RD_STATE(rd, o, "state", "finding_state", f->state, true);
	RD_STATE(rd, o, "severity", "severity", f->severity, true);
	TRY(rd_str(rd, o, "code", &f->code, false));
	TRY(rd_str(rd, o, "file", &f->file, false));
	TRY(rd_int(rd, o, "line", &f->line));
	TRY(rd_str(rd, o, "message", &f->message, false));
	if (f->line == SC_RESULTS_NULL_INT)
		f->line = 0;
done:
	return err;
}

static int read_findings(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_skill *s)
{
	const struct sc_jdom_node *arr = rd_get(o, "findings"), *e;
	size_t i = 0;
	int err = 0;

	if (!arr)
		return 0;
	if (!is_array(arr))
		return rd_fail(rd, "findings", "expected an array");
	s->findings = sc_xcalloc((size_t)members(arr) + 1, sizeof(*s->findings));
	JDOM_FOREACH(e, arr) {
		size_t old = rd_enter(rd, "findings", (long)i);
		s->nfindings = ++i;
		err = is_object(e) ? read_finding(rd, e, &s->findings[i - 1])
				       : rd_fail(rd, NULL, "expected an object");
		rd_leave(rd, old);
		if (err < 0)
			return err;
	}
	return 0;
}

static int read_skill(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_skill *s)
{
	const struct sc_jdom_node *gate, *changes;
	int err = 0;

	s->gate_passed = true;
	TRY(rd_str(rd, o, "path", &s->path, true));
	TRY(rd_str(rd, o, "name", &s->name, false));
	RD_STATE(rd, o, "status", "skill_status", s->status, false);
	TRY(rd_str(rd, o, "old_path", &s->old_path, false));
	TRY(rd_str(rd, o, "skill_md", &s->skill_md, false));
	TRY(rd_str(rd, o, "base_tree", &s->base_tree, false));
	TRY(rd_str(rd, o, "head_tree", &s->head_tree, false));
	TRY(rd_int(rd, o, "tests", &s->tests));
	TRY(rd_bool(rd, o, "untested", &s->untested));
	TRY(rd_bool(rd, o, "first_tests", &s->first_tests));
	TRY(read_findings(rd, o, s));
	TRY(rd_obj(rd, o, "test_changes", &changes));
	if (changes) {
		size_t old = rd_enter(rd, "test_changes", -1);
		s->has_test_changes = true;
		err = rd_int(rd, changes, "added", &s->tests_added);
		if (!err)
			err = rd_int(rd, changes, "changed", &s->tests_changed);
		if (!err)
			err = rd_int(rd, changes, "removed", &s->tests_removed);
		rd_leave(rd, old);
		if (err < 0)
			goto done;
	}
	TRY(rd_obj(rd, o, "gate", &gate));
	if (gate) {
		size_t old = rd_enter(rd, "gate", -1);
		err = rd_bool(rd, gate, "passed", &s->gate_passed);
		if (!err)
			err = rd_strv(rd, gate, "reasons", &s->gate_reasons, &s->ngate_reasons);
		rd_leave(rd, old);
	}
done:
	return err;
}

static int read_kernel(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_kernel *k)
{
	int err = 0;

	TRY(rd_str(rd, o, "fixture", &k->fixture, false));
	TRY(rd_str(rd, o, "fixture_hash", &k->fixture_hash, false));
	RD_STATE(rd, o, "compile", "compile", k->compile, false);
	TRY(rd_str(rd, o, "compile_log", &k->compile_log, false));
	RD_STATE(rd, o, "verdict", "kernel_verdict", k->verdict, false);
	TRY(rd_num(rd, o, "max_abs_error", &k->max_abs_error));
	TRY(rd_int(rd, o, "worst_index", &k->worst_index));
	TRY(rd_int(rd, o, "registers", &k->registers));
	TRY(rd_int(rd, o, "spills", &k->spills));
	TRY(rd_int(rd, o, "shared_bytes", &k->shared_bytes));
	TRY(rd_num(rd, o, "candidate_ms", &k->candidate_ms));
	TRY(rd_num(rd, o, "baseline_ms", &k->baseline_ms));
	TRY(rd_num(rd, o, "candidate_iqr_ms", &k->candidate_iqr_ms));
	TRY(rd_num(rd, o, "speedup", &k->speedup));
	TRY(rd_str(rd, o, "strong_reference", &k->strong_reference, false));
	TRY(rd_num(rd, o, "strong_speedup", &k->strong_speedup));
	TRY(rd_num(rd, o, "pct_of_peak", &k->pct_of_peak));
	TRY(rd_bool(rd, o, "suspect", &k->suspect));
	TRY(rd_strv(rd, o, "flags", &k->flags, &k->nflags));
done:
	return err;
}

static int read_unit(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_unit *u)
{
	const struct sc_jdom_node *kernel, *hashes;
	int err = 0;

	TRY(rd_str(rd, o, "skill", &u->skill, true));
	RD_STATE(rd, o, "variant", "variant", u->variant, true);
	TRY(rd_str(rd, o, "model", &u->model, true));
	TRY(rd_str(rd, o, "test_id", &u->test_id, true));
	TRY(rd_str(rd, o, "test_name", &u->test_name, false));
	TRY(rd_int(rd, o, "run_index", &u->run_index));
	RD_STATE(rd, o, "kind", "unit_kind", u->kind, false);
	RD_STATE(rd, o, "trigger", "trigger", u->trigger, false);
	RD_STATE(rd, o, "verdict", "unit_verdict", u->verdict, true);
	TRY(rd_str(rd, o, "error_class", &u->error_class, false));
	TRY(rd_str(rd, o, "message", &u->message, false));
	TRY(rd_str(rd, o, "excerpt", &u->excerpt, false));
	TRY(rd_int(rd, o, "tokens_in", &u->tokens_in));
	TRY(rd_int(rd, o, "tokens_out", &u->tokens_out));
	TRY(rd_int(rd, o, "turns", &u->turns));
	TRY(rd_int(rd, o, "latency_ms", &u->latency_ms));
	TRY(rd_num(rd, o, "judge_score", &u->judge_score));
	TRY(rd_bool(rd, o, "reused", &u->reused));
	TRY(rd_str(rd, o, "test_file", &u->test_file, false));
	TRY(rd_int(rd, o, "test_line", &u->test_line));
	TRY(rd_obj(rd, o, "kernel", &kernel));
	if (kernel) {
		size_t old = rd_enter(rd, "kernel", -1);
		u->kernel = sc_xmalloc(sizeof(*u->kernel));
		sc_results_kernel_init(u->kernel);
		err = read_kernel(rd, kernel, u->kernel);
		rd_leave(rd, old);
		if (err < 0)
			goto done;
	}
	TRY(rd_obj(rd, o, "hashes", &hashes));
	if (hashes) {
		struct sc_results_hashes *h = &u->hashes;
		size_t old = rd_enter(rd, "hashes", -1);
		if (!(err = rd_str(rd, hashes, "skill", &h->skill, false)) &&
		    !(err = rd_str(rd, hashes, "test", &h->test, false)) &&
		    !(err = rd_str(rd, hashes, "model", &h->model, false)) &&
		    !(err = rd_str(rd, hashes, "prompt", &h->prompt, false)) &&
		    !(err = rd_str(rd, hashes, "harness", &h->harness, false)))
			err = rd_str(rd, hashes, "fixture", &h->fixture, false);
		rd_leave(rd, old);
	}
done:
	return err;
}

static int read_aggregate(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_aggregate *a)
{
	int err = 0;

	TRY(rd_str(rd, o, "skill", &a->skill, true));
	RD_STATE(rd, o, "variant", "variant", a->variant, true);
	TRY(rd_str(rd, o, "model", &a->model, true));
	TRY(rd_int(rd, o, "n", &a->n));
	TRY(rd_int(rd, o, "passed", &a->passed));
	TRY(rd_int(rd, o, "failed", &a->failed));
	TRY(rd_int(rd, o, "errors", &a->errors));
	TRY(rd_int(rd, o, "skipped", &a->skipped));
	TRY(rd_num(rd, o, "pass_rate", &a->pass_rate));
	TRY(rd_num(rd, o, "ci_low", &a->ci_low));
	TRY(rd_num(rd, o, "ci_high", &a->ci_high));
	TRY(rd_num(rd, o, "mean_tokens", &a->mean_tokens));
	TRY(rd_num(rd, o, "mean_turns", &a->mean_turns));
	TRY(rd_num(rd, o, "speedup_geomean", &a->speedup_geomean));
	TRY(rd_num(rd, o, "strong_speedup_geomean", &a->strong_speedup_geomean));
	TRY(rd_num(rd, o, "fast_1", &a->fast_1));
	TRY(rd_num(rd, o, "fast_1_5", &a->fast_1_5));
	TRY(rd_num(rd, o, "fast_2", &a->fast_2));
	TRY(rd_num(rd, o, "judge_mean", &a->judge_mean));
	{
		const struct sc_jdom_node *tr;
		TRY(rd_obj(rd, o, "triggers", &tr));
		if (tr) {
			size_t old = rd_enter(rd, "triggers", -1);
			if (!(err = rd_int(rd, tr, "should", &a->trigger_should)) &&
			    !(err = rd_int(rd, tr, "opened", &a->trigger_hits)) &&
			    !(err = rd_int(rd, tr, "should_not", &a->trigger_should_not)))
				err = rd_int(rd, tr, "opened_wrongly", &a->trigger_false);
			rd_leave(rd, old);
			if (err < 0)
				goto done;
		}
	}
done:
	return err;
}

static int read_comparison(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_comparison *c)
{
	int err = 0;

	TRY(rd_str(rd, o, "skill", &c->skill, true));
	TRY(rd_str(rd, o, "model", &c->model, true));
	RD_STATE(rd, o, "from", "variant", c->from, true);
	RD_STATE(rd, o, "to", "variant", c->to, true);
	TRY(rd_int(rd, o, "paired_n", &c->paired_n));
	TRY(rd_num(rd, o, "from_pass_rate", &c->from_pass_rate));
	TRY(rd_num(rd, o, "to_pass_rate", &c->to_pass_rate));
	TRY(rd_num(rd, o, "pass_rate_delta", &c->pass_rate_delta));
	TRY(rd_int(rd, o, "to_only", &c->to_only));
	TRY(rd_int(rd, o, "from_only", &c->from_only));
	TRY(rd_num(rd, o, "p_value", &c->p_value));
	TRY(rd_bool(rd, o, "significant", &c->significant));
	TRY(rd_num(rd, o, "tokens_delta_pct", &c->tokens_delta_pct));
	TRY(rd_num(rd, o, "speedup_ratio", &c->speedup_ratio));
	TRY(rd_num(rd, o, "judge_delta", &c->judge_delta));
	TRY(rd_num(rd, o, "skill_lift", &c->skill_lift));
	TRY(rd_num(rd, o, "token_savings", &c->token_savings));
	TRY(rd_tribool(rd, o, "is_beneficial", &c->is_beneficial));
done:
	return err;
}

/* A check's "margin": {"mean", "lo", "hi", "detectable", "tests", "runs": {"base", "head"},
 * "runs_per_test", "rounds", "decision"}; absent or null: none. */
static int read_margin(struct rd *rd, const struct sc_jdom_node *check, struct sc_results_margin *m)
{
	const struct sc_jdom_node *o, *runs;
	size_t old;
	int err;

	if ((err = rd_obj(rd, check, "margin", &o)) < 0 || !o)
		return err;
	old = rd_enter(rd, "margin", -1);
	m->present = true;
	m->mean = m->lo = m->hi = m->detectable = NAN;
	m->drop = m->beta = m->llr = m->info = m->i_max = NAN;
	TRY(rd_num(rd, o, "mean", &m->mean));
	TRY(rd_num(rd, o, "lo", &m->lo));
	TRY(rd_num(rd, o, "hi", &m->hi));
	TRY(rd_num(rd, o, "detectable", &m->detectable));
	TRY(rd_int(rd, o, "tests", &m->tests));
	TRY(rd_int(rd, o, "runs_per_test", &m->runs_per_test));
	TRY(rd_int(rd, o, "rounds", &m->rounds));
	{
		/* older files: "inconclusive", what the design left undecided */
		int d = SC_DECISION_NONE;
		if ((err = rd_state(rd, o, "decision", "decision", &d, false, "inconclusive",
				    "unverified")) < 0)
			goto done;
		m->decision = d;
	}
	TRY(rd_num(rd, o, "drop", &m->drop));
	TRY(rd_num(rd, o, "beta", &m->beta));
	TRY(rd_num(rd, o, "llr", &m->llr));
	TRY(rd_num(rd, o, "info", &m->info));
	TRY(rd_num(rd, o, "i_max", &m->i_max));
	TRY(rd_int(rd, o, "reused", &m->reused));
	TRY(rd_int(rd, o, "evaluated", &m->evaluated));
	if ((err = rd_obj(rd, o, "runs", &runs)) < 0)
		goto done;
	if (runs) {
		size_t o2 = rd_enter(rd, "runs", -1);
		if ((err = rd_int(rd, runs, "base", &m->base_runs)) >= 0)
			err = rd_int(rd, runs, "head", &m->head_runs);
		rd_leave(rd, o2);
	}
done:
	rd_leave(rd, old);
	return err;
}

static int read_check(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_check *c)
{
	int err = 0;

	TRY(rd_str(rd, o, "skill", &c->skill, true));
	TRY(rd_str(rd, o, "model", &c->model, false));
	RD_STATE(rd, o, "check", "check_kind", c->check, true);
	RD_STATE(rd, o, "status", "check_status", c->status, true);
	TRY(rd_bool(rd, o, "accepted", &c->accepted));
	TRY(rd_str(rd, o, "rule", &c->rule, false));
	TRY(rd_str(rd, o, "message", &c->message, false));
	TRY(rd_str(rd, o, "file", &c->file, false));
	TRY(rd_int(rd, o, "line", &c->line));
	if (c->line == SC_RESULTS_NULL_INT)
		c->line = 0;
	if (!c->model)
		c->model = sc_xstrdup("");
	TRY(read_margin(rd, o, &c->margin));
done:
	return err;
}

static int read_checks(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_gate *g)
{
	const struct sc_jdom_node *arr = rd_get(o, "checks"), *e;
	size_t i = 0;
	int err = 0;

	if (!arr)
		return 0;
	if (!is_array(arr))
		return rd_fail(rd, "checks", "expected an array");
	g->checks = sc_xcalloc((size_t)members(arr) + 1, sizeof(*g->checks));
	JDOM_FOREACH(e, arr) {
		size_t old = rd_enter(rd, "checks", (long)i);
		g->nchecks = ++i;
		err = is_object(e) ? read_check(rd, e, &g->checks[i - 1])
				       : rd_fail(rd, NULL, "expected an object");
		rd_leave(rd, old);
		if (err < 0)
			return err;
	}
	return 0;
}

/* gate.failures: each {status, skill, model, rule, message, check, file, line}. */
static int read_failures(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_gate *g)
{
	const struct sc_jdom_node *arr, *e;
	size_t i = 0;
	int err = 0;

	arr = rd_get(o, "failures");
	if (!arr)
		return 0;  /* none: the checks are read all the same */
	if (!is_array(arr)) {
		err = rd_fail(rd, "failures", "expected an array");
		goto done;
	}
	g->failures = sc_xcalloc((size_t)members(arr) + 1, sizeof(*g->failures));
	JDOM_FOREACH(e, arr) {
		struct sc_results_gate_failure *f = &g->failures[i];
		size_t old = rd_enter(rd, "failures", (long)i);
		g->nfailures = ++i;
		if (!is_object(e))
			err = rd_fail(rd, NULL, "expected an object");
		int status = SC_STATUS_FAILED, check = -1;  /* older files: failed */
		if (!err && !(err = rd_state(rd, e, "status", "check_status", &status, false, NULL,
					    NULL)) &&
		    !(err = rd_str(rd, e, "skill", &f->skill, false)) &&
		    !(err = rd_str(rd, e, "model", &f->model, false)) &&
		    !(err = rd_str(rd, e, "rule", &f->rule, true)) &&
		    !(err = rd_str(rd, e, "message", &f->message, false)) &&
		    !(err = rd_state(rd, e, "check", "check_kind", &check, false, NULL, NULL)) &&
		    !(err = rd_str(rd, e, "file", &f->file, false)))
			err = rd_int(rd, e, "line", &f->line);
		if (!err && f->line == SC_RESULTS_NULL_INT)
			f->line = 0;
		f->status = status;
		if (!err && check >= 0) {
			f->check = check;
		} else if (!err) {
			/* older files: the check the rule belongs to */
			enum sc_check_kind k;
			if (sc_results_rule_check(f->rule, &k))
				f->check = k;
			else
				err = rd_fail(rd, "rule", "a rule of no known check, and no \"check\"");
		}
		rd_leave(rd, old);
		if (err < 0)
			goto done;
	}
done:
	return err;
}

static int read_gate(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_gate *g)
{
	int err = 0;

	TRY(rd_bool(rd, o, "passed", &g->passed));
	TRY(rd_int(rd, o, "exit_code", &g->exit_code));
	/* older files without it: what passed and the exit code said */
	g->verdict = g->passed ? SC_VERDICT_PASS
		     : g->exit_code == 3 ? SC_VERDICT_ERROR : SC_VERDICT_FAIL;
	RD_STATE(rd, o, "verdict", "verdict", g->verdict, false);
	TRY(rd_int(rd, o, "unverified", &g->unverified));
	if (g->unverified == SC_RESULTS_NULL_INT)
		g->unverified = 0;
	TRY(rd_num(rd, o, "error_share", &g->error_share));
	if (isnan(g->error_share))
		g->error_share = 0;
	TRY(read_failures(rd, o, g));
	TRY(read_checks(rd, o, g));
done:
	return err;
}

static int read_totals(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_totals *t)
{
	int err = 0;

	TRY(rd_int(rd, o, "units", &t->units));
	TRY(rd_int(rd, o, "evaluated", &t->evaluated));
	TRY(rd_int(rd, o, "reused", &t->reused));
	TRY(rd_int(rd, o, "cache_hits", &t->cache_hits));
	TRY(rd_int(rd, o, "requests", &t->requests));
	TRY(rd_int(rd, o, "tokens_in", &t->tokens_in));
	TRY(rd_int(rd, o, "tokens_out", &t->tokens_out));
	TRY(rd_int(rd, o, "passed", &t->passed));
	TRY(rd_int(rd, o, "failed", &t->failed));
	TRY(rd_int(rd, o, "errors", &t->errors));
	TRY(rd_int(rd, o, "skipped", &t->skipped));
	TRY(rd_int(rd, o, "wall_ms", &t->wall_ms));
done:
	return err;
}

/*
 * Reads the array at root[key] into *out (an array of elem-sized
 * elements), calling init then fn for each object. Absent is empty.
 */
static int read_array(struct rd *rd, const struct sc_jdom_node *root, const char *key, void **out,
		      size_t *n, size_t elem, void (*init)(void *),
		      int (*fn)(struct rd *, const struct sc_jdom_node *, void *))
{
	const struct sc_jdom_node *arr = rd_get(root, key), *e;
	size_t i = 0;
	int err = 0;

	if (!arr)
		return 0;
	if (!is_array(arr))
		return rd_fail(rd, key, "expected an array");
	*out = sc_xcalloc((size_t)members(arr) + 1, elem);
	JDOM_FOREACH(e, arr) {
		void *item = (char *)*out + i * elem;
		size_t old = rd_enter(rd, key, (long)i);
		init(item);
		*n = ++i;
		err = is_object(e) ? fn(rd, e, item) : rd_fail(rd, NULL, "expected an object");
		rd_leave(rd, old);
		if (err < 0)
			return err;
	}
	return 0;
}

/* history[]: {"skill", "variant", "model", "test_id", "runs", "passes", "flip_rate"} */
static int read_flips(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_flips *f)
{
	int err = 0;

	TRY(rd_str(rd, o, "skill", &f->skill, true));
	RD_STATE(rd, o, "variant", "variant", f->variant, true);
	TRY(rd_str(rd, o, "model", &f->model, true));
	TRY(rd_str(rd, o, "test_id", &f->test_id, true));
	TRY(rd_int(rd, o, "runs", &f->runs));
	TRY(rd_int(rd, o, "passes", &f->passes));
	if (f->runs < 0 || f->passes < 0 || f->passes > f->runs) {
		err = rd_fail(rd, "passes", "expected 0 <= passes <= runs");
		goto done;
	}
	f->flip_rate = sc_results_flip_rate(f->passes, f->runs);
done:
	return err;
}

/* eval's "lift": one sequential decision per skill x model. */
static int read_lift(struct rd *rd, const struct sc_jdom_node *o, struct sc_results_lift *l)
{
	int err = 0;

	l->margin = l->drop = l->lift = l->lo = l->hi = l->detectable = NAN;
	TRY(rd_str(rd, o, "skill", &l->skill, true));
	TRY(rd_str(rd, o, "model", &l->model, true));
	{
		/* older files: "inconclusive", what the design left undecided */
		int d = SC_LIFT_UNVERIFIED;
		if ((err = rd_state(rd, o, "decision", "lift_decision", &d, true, "inconclusive",
				    "unverified")) < 0)
			goto done;
		l->decision = d;
	}
	RD_STATE(rd, o, "stop", "lift_stop", l->stop, false);
	TRY(rd_num(rd, o, "margin", &l->margin));
	TRY(rd_num(rd, o, "drop", &l->drop));
	TRY(rd_num(rd, o, "lift", &l->lift));
	TRY(rd_num(rd, o, "lo", &l->lo));
	TRY(rd_num(rd, o, "hi", &l->hi));
	TRY(rd_num(rd, o, "detectable", &l->detectable));
	TRY(rd_int(rd, o, "tests", &l->tests));
	TRY(rd_int(rd, o, "baseline_runs", &l->baseline_runs));
	TRY(rd_int(rd, o, "skill_runs", &l->skill_runs));
	TRY(rd_int(rd, o, "runs_per_test", &l->runs_per_test));
	TRY(rd_int(rd, o, "rounds", &l->rounds));
	TRY(rd_int(rd, o, "first_runs", &l->first_runs));
	TRY(rd_int(rd, o, "max_runs", &l->max_runs));
	TRY(rd_int(rd, o, "max_rounds", &l->max_rounds));
done:
	return err;
}

static void init_lift(void *p) { memset(p, 0, sizeof(struct sc_results_lift)); }
static int fn_lift(struct rd *rd, const struct sc_jdom_node *o, void *p) { return read_lift(rd, o, p); }

static void init_flips(void *p) { memset(p, 0, sizeof(struct sc_results_flips)); }
static int fn_flips(struct rd *rd, const struct sc_jdom_node *o, void *p) { return read_flips(rd, o, p); }

static void init_skill(void *p) { memset(p, 0, sizeof(struct sc_results_skill)); }
static void init_aggregate(void *p) { sc_results_aggregate_init(p); }
static void init_comparison(void *p) { sc_results_comparison_init(p); }
static int fn_skill(struct rd *rd, const struct sc_jdom_node *o, void *p) { return read_skill(rd, o, p); }
static int fn_aggregate(struct rd *rd, const struct sc_jdom_node *o, void *p) { return read_aggregate(rd, o, p); }
static int fn_comparison(struct rd *rd, const struct sc_jdom_node *o, void *p) { return read_comparison(rd, o, p); }

/*
 * Checks the schema string: "skillci.results/1" or a minor revision
 * "skillci.results/1.N". Any other major version is refused by name.
 */
static int check_schema(struct rd *rd, const char *schema)
{
	const char *ver;

	if (!sc_starts_with(schema, SC_RESULTS_SCHEMA_PREFIX))
		return sc_error_set(SC_EINVAL, "results '%s': $.schema: '%s' is not a skillci results schema",
				    rd->name, schema);
	ver = schema + strlen(SC_RESULTS_SCHEMA_PREFIX);
	if (!strcmp(ver, "1") || (sc_starts_with(ver, "1.") && ver[2] >= '0' && ver[2] <= '9'))
		return 0;
	return sc_error_set(SC_EINVAL, "results '%s': schema '%s' is not supported; this skillci "
			    "reads %s (upgrade skillci to read it)", rd->name, schema, SC_RESULTS_SCHEMA);
}

/*
 * The text of a results document, whole in memory (a file mapped or read
 * once, or the caller's buffer), read member by member: each member and
 * each unit is parsed on its own into a JSON tree (jdom.h), a unit's tree
 * dropped once the unit is read.
 */
struct jreader {
	const char *buf;        /* the text */
	size_t start, end;      /* unread text is buf[start, end) */
	const char *name;       /* for messages */
	struct sc_jdom_arena *top, *unit;  /* the members' trees; the unit being read */
};

/* The next byte that is not white space, or EOF. */
static int jr_peek(struct jreader *r)
{
	while (r->start < r->end) {
		char c = r->buf[r->start];
		if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
			return (unsigned char)c;
		r->start++;
	}
	return EOF;
}

/* "results 'name':LINE: malformed JSON" for an error at at (NULL: where
 * the reader is). */
static int jr_malformed(struct jreader *r, const char *at)
{
	const char *stop = at && at >= r->buf + r->start && at < r->buf + r->end ? at
										  : r->buf + r->start;
	size_t line = 1;

	for (const char *q = r->buf; q < stop; q++)
		line += *q == '\n';
	return sc_error_set(SC_EPARSE, "results '%s':%zu: malformed JSON", r->name, line);
}

/*
 * One JSON value at the reader, parsed into arena a, the reader moved past
 * it; NULL with the error set when it is malformed.
 */
static struct sc_jdom_node *jr_value(struct jreader *r, struct sc_jdom_arena *a)
{
	const char *after = NULL, *error_at = NULL;
	struct sc_jdom_node *v;

	if (jr_peek(r) == EOF) {
		jr_malformed(r, NULL);
		return NULL;
	}
	v = sc_jdom_parse(a, r->buf + r->start, r->end - r->start, &after, &error_at);
	if (!v) {
		jr_malformed(r, error_at);
		return NULL;
	}
	r->start = (size_t)(after - r->buf);
	return v;
}

/* Expects the byte c next (after white space) and moves past it. */
static bool jr_expect(struct jreader *r, int c)
{
	if (jr_peek(r) != c)
		return false;
	r->start++;
	return true;
}

/*
 * Reads the "units" array one element at a time: each unit is read into
 * out, its strings straight into out's pool, and its tree dropped before
 * the next is parsed.
 */
static int read_units_streaming(struct rd *rd, struct sc_results *out, struct jreader *r)
{
	size_t alloc = 0;
	int err = 0;

	if (jr_peek(r) != '[') {
		struct sc_jdom_node *v = jr_value(r, r->unit);
		return v ? rd_fail(rd, "units", "expected an array") : SC_EPARSE;
	}
	r->start++;
	if (jr_expect(r, ']'))
		return 0;
	if (!out->pool)
		out->pool = sc_strpool_new();
	for (size_t i = 0;; i++) {
		struct sc_results_unit *u;
		struct sc_jdom_node *e;
		size_t old;

		sc_jdom_arena_reset(r->unit);
		if (!(e = jr_value(r, r->unit)))
			return SC_EPARSE;
		SC_GROW(out->units, alloc, out->nunits + 1);
		u = &out->units[out->nunits++];
		sc_results_unit_init(u);
		/* its strings are the pool's from the first one read */
		u->pooled = true;
		old = rd_enter(rd, "units", (long)i);
		rd->pool = out->pool;
		err = is_object(e) ? read_unit(rd, e, u) : rd_fail(rd, NULL, "expected an object");
		rd->pool = NULL;
		rd_leave(rd, old);
		if (err < 0)
			return err;
		if (jr_expect(r, ','))
			continue;
		if (jr_expect(r, ']'))
			break;
		return jr_malformed(r, r->buf + r->start);
	}
	if (out->nunits && alloc > out->nunits)  /* no doubling slack kept */
		out->units = sc_xrealloc(out->units, out->nunits * sizeof(*out->units));
	return 0;
}

/*
 * The top level of a results document, member by member: every member but
 * "units" is parsed into root (each of them small), the units are read as
 * they come (read_units_streaming).
 */
static int parse_top(struct rd *rd, struct sc_results *out, struct sc_jdom_node *root,
		     struct jreader *r)
{
	bool units_seen = false;
	int err;

	if (jr_peek(r) != '{') {
		struct sc_jdom_node *v = jr_value(r, r->top);
		return v ? rd_fail(rd, NULL, "expected an object") : SC_EPARSE;
	}
	r->start++;
	if (!jr_expect(r, '}')) {
		for (;;) {
			struct sc_jdom_node *key = jr_peek(r) == '"' ? jr_value(r, r->top) : NULL, *v;

			if (!is_string(key) || !jr_expect(r, ':'))
				return jr_malformed(r, r->buf + r->start);
			if (!strcmp(key->str, "units") && !units_seen) {
				units_seen = true;
				if ((err = read_units_streaming(rd, out, r)) < 0)
					return err;
			} else {
				if (!(v = jr_value(r, r->top)))
					return SC_EPARSE;
				sc_jdom_object_add(r->top, root, key->str, v);
			}
			if (jr_expect(r, ','))
				continue;
			if (jr_expect(r, '}'))
				break;
			return jr_malformed(r, r->buf + r->start);
		}
	}
	if (jr_peek(r) != EOF)
		return jr_malformed(r, r->buf + r->start);
	return 0;
}

/* The results model from a reader (sc_results_parse, sc_results_load). */
static int parse_results(struct sc_results *out, struct jreader *jr)
{
	struct rd rd;
	struct sc_jdom_node *root;
	const struct sc_jdom_node *o;
	int err = 0;

	memset(&rd, 0, sizeof(rd));
	rd.name = jr->name;
	sc_results_init(out);
	jr->top = sc_jdom_arena_new();
	jr->unit = sc_jdom_arena_new();
	root = sc_jdom_object_new(jr->top);
	if ((err = parse_top(&rd, out, root, jr)) < 0)
		goto done;
	TRY(rd_str(&rd, root, "schema", &out->schema, true));
	TRY(check_schema(&rd, out->schema));
	TRY(rd_str(&rd, root, "skillci_version", &out->skillci_version, false));
	TRY(rd_str(&rd, root, "harness_version", &out->harness_version, false));
	TRY(rd_obj(&rd, root, "run", &o));
	if (o) {
		size_t old = rd_enter(&rd, "run", -1);
		err = read_run(&rd, o, &out->run);
		rd_leave(&rd, old);
		if (err < 0)
			goto done;
	}
	TRY(read_array(&rd, root, "skills", (void **)&out->skills, &out->nskills,
		       sizeof(*out->skills), init_skill, fn_skill));
	TRY(read_array(&rd, root, "aggregates", (void **)&out->aggregates, &out->naggregates,
		       sizeof(*out->aggregates), init_aggregate, fn_aggregate));
	TRY(read_array(&rd, root, "comparisons", (void **)&out->comparisons, &out->ncomparisons,
		       sizeof(*out->comparisons), init_comparison, fn_comparison));
	TRY(rd_obj(&rd, root, "gate", &o));
	if (o) {
		size_t old = rd_enter(&rd, "gate", -1);
		err = read_gate(&rd, o, &out->gate);
		rd_leave(&rd, old);
		if (err < 0)
			goto done;
	}
	TRY(read_array(&rd, root, "history", (void **)&out->flips, &out->nflips,
		       sizeof(*out->flips), init_flips, fn_flips));
	TRY(read_array(&rd, root, "lift", (void **)&out->lifts, &out->nlifts,
		       sizeof(*out->lifts), init_lift, fn_lift));
	TRY(rd_obj(&rd, root, "totals", &o));
	if (o) {
		size_t old = rd_enter(&rd, "totals", -1);
		err = read_totals(&rd, o, &out->totals);
		rd_leave(&rd, old);
		if (err < 0)
			goto done;
	}
done:
	sc_jdom_arena_free(jr->top);
	sc_jdom_arena_free(jr->unit);
	if (err < 0)
		sc_results_release(out);
	else
		sc_results_sort(out);
	out->untrusted = true;
	return err;
}

int sc_results_parse(struct sc_results *out, const char *json, size_t len, const char *name)
{
	struct jreader jr;

	memset(&jr, 0, sizeof(jr));
	jr.buf = json;
	jr.end = len;
	jr.name = name;
	return parse_results(out, &jr);
}

/*
 * The whole of the file at path, read into text (one buffer of the
 * file's size for a regular file, grown as it comes for a pipe). Read,
 * not mapped: a file truncated while it is read must end in an error
 * that names it, not in SIGBUS.
 */
static int text_load(struct sc_buf *text, const char *path)
{
	struct stat st;
	int fd, err = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return sc_error_set(errno == ENOENT ? SC_ENOTFOUND : SC_EIO, "cannot open '%s': %s",
				    path, strerror(errno));
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		if ((uint64_t)st.st_size > SC_MAX_RESULTS_BYTES) {
			err = sc_error_set(SC_ELIMIT, "results '%s' is larger than %d MiB", path,
					   SC_MAX_RESULTS_BYTES >> 20);
			goto done;
		}
		sc_buf_grow(text, (size_t)st.st_size + 1);
		sc_mem_hint_large(text->ptr, text->cap);
	}
	for (;;) {
		ssize_t n;
		sc_buf_grow(text, 65536);
		n = read(fd, text->ptr + text->len, text->cap - text->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = sc_error_set(SC_EIO, "cannot read '%s': %s", path, strerror(errno));
			goto done;
		}
		if (!n)
			break;
		text->len += (size_t)n;
		text->ptr[text->len] = '\0';
		if (text->len > SC_MAX_RESULTS_BYTES) {
			err = sc_error_set(SC_ELIMIT, "results '%s' is larger than %d MiB", path,
					   SC_MAX_RESULTS_BYTES >> 20);
			goto done;
		}
	}
done:
	close(fd);
	return err;
}

/* The signature of a loaded text, checked beside its parse (the two only
 * read it); the error, set in the checking thread, carried back. */
struct verify_job {
	const char *text, *what;
	size_t len;
	int rc;
	enum sc_cause cause;
	char *msg;  /* the error's message, whole */
};

static void *verify_run(void *arg)
{
	struct verify_job *j = arg;

	j->rc = sc_results_verify_text(j->text, j->len, j->what);
	if (j->rc < 0) {
		j->msg = sc_xstrdup(sc_error_last());
		j->cause = sc_error_cause();
	}
	return NULL;
}

/*
 * sc_results_load; with sig, the signature checked on the same bytes,
 * in a second thread while the first parses them (hashing a file of a
 * hundred megabytes takes as long as a tenth of its parse: this way it
 * costs no time where a core is free). The parse's error comes first.
 */
static int load(struct sc_results *out, const char *path, int *sig)
{
	struct sc_buf text = SC_BUF_INIT, what = SC_BUF_INIT;
	struct verify_job job;
	struct jreader jr;
	pthread_t th;
	bool threaded = false;
	int err;

	sc_results_init(out);
	memset(&jr, 0, sizeof(jr));
	jr.name = path;
	if ((err = text_load(&text, path)) < 0) {
		sc_buf_release(&text);
		return err;
	}
	jr.buf = text.len ? text.ptr : "";
	jr.end = text.len;
	if (sig) {
		memset(&job, 0, sizeof(job));
		sc_buf_printf(&what, "'%s'", path);
		job.text = jr.buf;
		job.len = jr.end;
		job.what = what.ptr;
		threaded = text.len >= SC_VERIFY_THREAD_BYTES &&
			   pthread_create(&th, NULL, verify_run, &job) == 0;
	}
	err = parse_results(out, &jr);
	if (sig) {
		if (threaded)
			pthread_join(th, NULL);
		else if (err >= 0)
			verify_run(&job);
		if (err >= 0) {
			*sig = job.rc;
			if (job.rc < 0 && threaded)
				sc_error_cause_set(sc_error_set(job.rc, "%s", job.msg), job.cause);
		}
		free(job.msg);
	}
	sc_buf_release(&what);
	sc_buf_release(&text);
	return err;
}

int sc_results_load(struct sc_results *out, const char *path)
{
	return load(out, path, NULL);
}

int sc_results_load_signed(struct sc_results *out, const char *path, int *sig)
{
	*sig = SC_EUNSAFE;
	return load(out, path, sig);
}
