/*
 * Results JSON (docs/results-json.md): load into struct sc_results, save
 * back deterministically. No evaluation logic lives here.
 */
#include "common.h"
#include "json.h"
#include "results/results.h"
#include "results/signing.h"
#include "strpool.h"
#include "sha256.h"

#include <math.h>
#include <cjson/cJSON.h>

/* ---- init / release ---------------------------------------------------- */

void sc_results_kernel_init(struct sc_results_kernel *k)
{
	memset(k, 0, sizeof(*k));
	k->max_abs_error = NAN;
	k->worst_index = k->registers = k->spills = k->shared_bytes = SC_RESULTS_NULL_INT;
	k->candidate_ms = k->baseline_ms = k->candidate_iqr_ms = NAN;
	k->speedup = k->strong_speedup = k->pct_of_peak = NAN;
}

void sc_results_unit_init(struct sc_results_unit *u)
{
	memset(u, 0, sizeof(*u));
	u->judge_score = NAN;
	u->test_line = SC_RESULTS_NULL_INT;
}

char *sc_results_excerpt(const char *answer)
{
	size_t len, cut;
	char *out;

	if (!answer)
		return NULL;
	while (*answer == ' ' || *answer == '\t' || *answer == '\n' || *answer == '\r')
		answer++;
	if (!*answer)
		return NULL;
	len = strlen(answer);
	if (len <= SC_RESULTS_EXCERPT_MAX)
		return sc_xstrdup(answer);
	cut = SC_RESULTS_EXCERPT_MAX;
	while (cut > 0 && ((unsigned char)answer[cut] & 0xC0) == 0x80)
		cut--;
	out = sc_xmalloc(cut + sizeof("…"));
	memcpy(out, answer, cut);
	memcpy(out + cut, "…", sizeof("…"));
	return out;
}

void sc_results_aggregate_init(struct sc_results_aggregate *a)
{
	memset(a, 0, sizeof(*a));
	a->pass_rate = a->ci_low = a->ci_high = NAN;
	a->mean_tokens = a->mean_turns = a->speedup_geomean = a->strong_speedup_geomean = NAN;
	a->fast_1 = a->fast_1_5 = a->fast_2 = a->judge_mean = NAN;
}

void sc_results_comparison_init(struct sc_results_comparison *c)
{
	memset(c, 0, sizeof(*c));
	c->from_pass_rate = c->to_pass_rate = c->pass_rate_delta = NAN;
	c->p_value = c->tokens_delta_pct = c->speedup_ratio = NAN;
	c->judge_delta = c->skill_lift = c->token_savings = NAN;
	c->is_beneficial = -1;
}

void sc_results_init(struct sc_results *r)
{
	memset(r, 0, sizeof(*r));
	r->run.complete = true;
	r->run.shard_index = r->run.shard_count = 1;
	r->run.alpha = NAN;
	r->gate.passed = true;
}

void sc_results_finding_release(struct sc_results_finding *f)
{
	free(f->state); free(f->severity); free(f->code); free(f->file); free(f->message);
	memset(f, 0, sizeof(*f));
}

void sc_results_check_release(struct sc_results_check *c)
{
	free(c->skill); free(c->model); free(c->check); free(c->status); free(c->rule);
	free(c->message); free(c->file); free(c->margin.decision);
	memset(c, 0, sizeof(*c));
}

static const char *const verdict_names[] = { "pass", "fail", "unverified", "error" };

const char *sc_verdict_name(enum sc_verdict v)
{
	return (size_t)v < SC_ARRAY_SIZE(verdict_names) ? verdict_names[v] : "error";
}

bool sc_verdict_parse(const char *name, enum sc_verdict *out)
{
	for (size_t i = 0; name && i < SC_ARRAY_SIZE(verdict_names); i++)
		if (!strcmp(verdict_names[i], name)) {
			*out = (enum sc_verdict)i;
			return true;
		}
	return false;
}

void sc_results_failure_release(struct sc_results_gate_failure *f)
{
	free(f->status);
	free(f->skill); free(f->model); free(f->rule); free(f->message); free(f->check);
	free(f->file);
	memset(f, 0, sizeof(*f));
}

static const struct {
	const char *rule, *check;
} rule_checks[] = {
	{ "skill_invalid", "validity" },
	{ "pass_rate_significant_drop", "pass_rate" },
	{ "pass_rate_drop", "pass_rate" },
	{ "pass_rate_inconclusive", "pass_rate" },
	{ "pass_rate_unverified", "pass_rate" },
	{ "lift_unverified", "lift" },
	{ "head_no_result", "pass_rate" },
	{ "new_skill_no_better", "lift" },
	{ "tokens_rise", "tokens" },
	{ "speedup_drop", "speedup" },
	{ "judge_drop", "judge" },
	{ "error_share", "errors" },
	{ "skill_deleted", "deleted" },
	{ "base_no_result", "pass_rate" },
	{ "lift_no_result", "lift" },
	{ "tests_not_discriminating", "discrimination" },
	{ "baseline_no_result", "discrimination" },
	{ "kernel_unverified", "kernel" },
	{ "skill_untested", "tests" },
};

const char *sc_results_rule_check(const char *rule)
{
	for (size_t i = 0; rule && i < SC_ARRAY_SIZE(rule_checks); i++)
		if (!strcmp(rule_checks[i].rule, rule))
			return rule_checks[i].check;
	return rule ? rule : "";
}

int sc_results_check_rank(const char *check)
{
	static const char *const order[] = { "deleted", "validity", "tests", "pass_rate", "lift",
					     "discrimination", "kernel", "tokens", "speedup",
					     "judge", "errors" };

	for (size_t i = 0; check && i < SC_ARRAY_SIZE(order); i++)
		if (!strcmp(order[i], check))
			return (int)i;
	return (int)SC_ARRAY_SIZE(order);
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void kernel_free(struct sc_results_kernel *k)
{
	if (!k)
		return;
	free(k->fixture);
	free(k->fixture_hash);
	free(k->compile);
	free(k->compile_log);
	free(k->verdict);
	free(k->strong_reference);
	free_strv(k->flags, k->nflags);
	free(k);
}

void sc_results_unit_release(struct sc_results_unit *u)
{
	struct sc_results_hashes *h = &u->hashes;

	if (u->pooled) {
		/* the strings are the pool's */
		if (u->kernel)
			free(u->kernel->flags);
		free(u->kernel);
		sc_results_unit_init(u);
		return;
	}
	free(u->skill); free(u->variant); free(u->model); free(u->test_id);
	free(u->test_name); free(u->kind); free(u->verdict); free(u->error_class);
	free(u->message); free(u->excerpt); free(u->test_file); free(u->trigger);
	kernel_free(u->kernel);
	free(h->skill); free(h->test); free(h->model); free(h->prompt);
	free(h->harness); free(h->fixture);
	sc_results_unit_init(u);
}

void sc_results_release(struct sc_results *r)
{
	struct sc_results_run *run = &r->run;

	sc_results_order_free(r);
	free(r->schema);
	free(r->skillci_version);
	free(r->harness_version);
	free(run->id); free(run->kind); free(run->started_at); free(run->finished_at);
	free(run->incomplete_reason); free(run->repo); free(run->base_rev); free(run->head_rev);
	free_strv(run->models, run->nmodels);
	free_strv(run->resolved_models, run->nresolved_models);
	free(run->plan_hash); free(run->mode); free(run->fixtures_lock);
	free(run->prov.head); free(run->prov.base); free(run->prov.merge_base);
	free(run->prov.judged); free(run->prov.judged_tree); free(run->prov.config_hash);
	free(run->prov.workflow_run_id); free(run->prov.pr_source);
	free(run->gpu.name); free(run->gpu.driver); free(run->gpu.arch); free(run->gpu.cc);
	for (size_t i = 0; i < run->nusage; i++) {
		free(run->usage[i].skill);
		free(run->usage[i].model);
		free(run->usage[i].price_date);
	}
	free(run->usage);
	free(run->trust.config);
	for (size_t i = 0; i < run->trust.nchanges; i++) {
		free(run->trust.changes[i].key);
		free(run->trust.changes[i].base);
		free(run->trust.changes[i].head);
	}
	free(run->trust.changes);
	free_strv(run->trust.notes, run->trust.nnotes);
	for (size_t i = 0; i < r->nskills; i++) {
		struct sc_results_skill *s = &r->skills[i];
		free(s->path); free(s->name); free(s->status); free(s->old_path);
		free(s->skill_md); free(s->base_tree); free(s->head_tree);
		free_strv(s->gate_reasons, s->ngate_reasons);
		for (size_t f = 0; f < s->nfindings; f++)
			sc_results_finding_release(&s->findings[f]);
		free(s->findings);
	}
	free(r->skills);
	for (size_t i = 0; i < r->nunits; i++)
		sc_results_unit_release(&r->units[i]);
	free(r->units);
	for (size_t i = 0; i < r->naggregates; i++) {
		free(r->aggregates[i].skill); free(r->aggregates[i].variant);
		free(r->aggregates[i].model);
	}
	free(r->aggregates);
	for (size_t i = 0; i < r->ncomparisons; i++) {
		struct sc_results_comparison *c = &r->comparisons[i];
		free(c->skill); free(c->model); free(c->from); free(c->to);
	}
	free(r->comparisons);
	for (size_t i = 0; i < r->gate.nfailures; i++)
		sc_results_failure_release(&r->gate.failures[i]);
	free(r->gate.failures);
	for (size_t i = 0; i < r->gate.nchecks; i++)
		sc_results_check_release(&r->gate.checks[i]);
	free(r->gate.checks);
	for (size_t i = 0; i < r->nflips; i++) {
		struct sc_results_flips *f = &r->flips[i];
		free(f->skill); free(f->variant); free(f->model); free(f->test_id);
	}
	free(r->flips);
	for (size_t i = 0; i < r->nlifts; i++) {
		struct sc_results_lift *l = &r->lifts[i];
		free(l->skill); free(l->model); free(l->decision); free(l->stop);
	}
	free(r->lifts);
	sc_strpool_free(r->pool);
	sc_results_init(r);
}

static int cmp_flips(const void *x, const void *y)
{
	const struct sc_results_flips *a = x, *b = y;
	int c;

	if ((c = strcmp(a->skill, b->skill)) || (c = strcmp(a->variant, b->variant)) ||
	    (c = strcmp(a->model, b->model)))
		return c;
	return strcmp(a->test_id, b->test_id);
}

void sc_results_sort_flips(struct sc_results *r)
{
	if (r->nflips > 1)
		qsort(r->flips, r->nflips, sizeof(*r->flips), cmp_flips);
}

double sc_results_flip_rate(int64_t passes, int64_t runs)
{
	if (runs < 2 || passes < 0 || passes > runs)
		return NAN;
	return 2.0 * (double)passes * (double)(runs - passes) / ((double)runs * (double)(runs - 1));
}

/* *s (owned) replaced by its pooled copy. */
static void pool_str(struct sc_strpool *p, char **s)
{
	char *own = *s;

	*s = (char *)sc_strpool_intern(p, own);
	free(own);
}

void sc_results_pool_unit(struct sc_results *r, struct sc_results_unit *u)
{
	struct sc_results_hashes *h = &u->hashes;
	char **fields[] = {
		&u->skill, &u->variant, &u->model, &u->test_id, &u->test_name, &u->kind,
		&u->verdict, &u->error_class, &u->message, &u->excerpt, &u->test_file, &u->trigger,
		&h->skill, &h->test, &h->model, &h->prompt, &h->harness, &h->fixture,
	};

	if (u->pooled)
		return;
	if (!r->pool)
		r->pool = sc_strpool_new();
	for (size_t i = 0; i < SC_ARRAY_SIZE(fields); i++)
		pool_str(r->pool, fields[i]);
	if (u->kernel) {
		struct sc_results_kernel *k = u->kernel;
		char **kf[] = { &k->fixture, &k->fixture_hash, &k->compile, &k->compile_log,
				&k->verdict, &k->strong_reference };
		for (size_t i = 0; i < SC_ARRAY_SIZE(kf); i++)
			pool_str(r->pool, kf[i]);
		for (size_t i = 0; i < k->nflags; i++)
			pool_str(r->pool, &k->flags[i]);
	}
	u->pooled = true;
}

void sc_results_unit_set(struct sc_results *r, struct sc_results_unit *u, char **field,
			 const char *value)
{
	if (u->pooled) {
		if (!r->pool)
			r->pool = sc_strpool_new();
		*field = (char *)sc_strpool_intern(r->pool, value);
		return;
	}
	free(*field);
	*field = value ? sc_xstrdup(value) : NULL;
}

void sc_results_adopt_pool(struct sc_results *into, struct sc_results *from)
{
	if (!from->pool)
		return;
	if (!into->pool) {
		into->pool = from->pool;
	} else {
		sc_strpool_adopt(into->pool, from->pool);
	}
	from->pool = NULL;
}

/* ---- reading ----------------------------------------------------------- */

/* Reader state: the file name for messages and the JSON path of the
 * object being read ("$.units[3]"). */
struct rd {
	const char *name;
	struct sc_buf path;
};

static int rd_fail(struct rd *rd, const char *key, const char *what)
{
	if (key)
		return sc_error_set(SC_EINVAL, "results '%s': %s.%s: %s", rd->name, rd->path.ptr, key, what);
	return sc_error_set(SC_EINVAL, "results '%s': %s: %s", rd->name, rd->path.ptr, what);
}

/* Looks key up in obj; NULL when absent or JSON null. */
static const cJSON *rd_get(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	return (v && !cJSON_IsNull(v)) ? v : NULL;
}

static int rd_str(struct rd *rd, const cJSON *obj, const char *key, char **out, bool required)
{
	const cJSON *v = rd_get(obj, key);

	if (!v) {
		if (required)
			return rd_fail(rd, key, "missing (a string is required)");
		return 0;
	}
	if (!cJSON_IsString(v))
		return rd_fail(rd, key, "expected a string");
	*out = sc_xstrdup(v->valuestring);
	return 0;
}

static int rd_num(struct rd *rd, const cJSON *obj, const char *key, double *out)
{
	const cJSON *v = rd_get(obj, key);

	if (!v)
		return 0;
	if (!cJSON_IsNumber(v))
		return rd_fail(rd, key, "expected a number");
	*out = v->valuedouble;
	return 0;
}

static int rd_int(struct rd *rd, const cJSON *obj, const char *key, int64_t *out)
{
	const cJSON *v = rd_get(obj, key);
	double d;

	if (!v)
		return 0;
	if (!cJSON_IsNumber(v))
		return rd_fail(rd, key, "expected an integer");
	d = v->valuedouble;
	if (d != floor(d) || d < -9007199254740992.0 || d > 9007199254740992.0)
		return rd_fail(rd, key, "expected an integer");
	*out = (int64_t)d;
	return 0;
}

static int rd_bool(struct rd *rd, const cJSON *obj, const char *key, bool *out)
{
	const cJSON *v = rd_get(obj, key);

	if (!v)
		return 0;
	if (!cJSON_IsBool(v))
		return rd_fail(rd, key, "expected true or false");
	*out = cJSON_IsTrue(v);
	return 0;
}

static int rd_tribool(struct rd *rd, const cJSON *obj, const char *key, int *out)
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

static int rd_strv(struct rd *rd, const cJSON *obj, const char *key, char ***out, size_t *n)
{
	const cJSON *v = rd_get(obj, key), *e;
	size_t i = 0;

	if (!v)
		return 0;
	if (!cJSON_IsArray(v))
		return rd_fail(rd, key, "expected an array of strings");
	*n = (size_t)cJSON_GetArraySize(v);
	*out = sc_xcalloc(*n ? *n : 1, sizeof(char *));
	cJSON_ArrayForEach(e, v) {
		if (!cJSON_IsString(e)) {
			*n = i;
			return rd_fail(rd, key, "expected an array of strings");
		}
		(*out)[i++] = sc_xstrdup(e->valuestring);
	}
	return 0;
}

/* Checks that key (when present) is an object; *out is NULL when absent. */
static int rd_obj(struct rd *rd, const cJSON *obj, const char *key, const cJSON **out)
{
	const cJSON *v = rd_get(obj, key);

	*out = NULL;
	if (v && !cJSON_IsObject(v))
		return rd_fail(rd, key, "expected an object");
	*out = v;
	return 0;
}

/* Enters "path.key" (or "path.key[i]" when i >= 0); returns the old length. */
static size_t rd_enter(struct rd *rd, const char *key, long i)
{
	size_t old = rd->path.len;

	if (key)
		sc_buf_printf(&rd->path, ".%s", key);
	if (i >= 0)
		sc_buf_printf(&rd->path, "[%ld]", i);
	return old;
}

#define TRY(x) do { if ((err = (x)) < 0) goto done; } while (0)

/* run.trust: {"config", "head_config_changes": [{key, base, head}], "notes"} */
static int read_trust(struct rd *rd, const cJSON *run, struct sc_results_trust *t)
{
	const cJSON *o, *arr, *e;
	size_t old, i = 0;
	int err;

	if ((err = rd_obj(rd, run, "trust", &o)) < 0 || !o)
		return err;
	old = rd_enter(rd, "trust", -1);
	{
		const cJSON *g;
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
				sc_buf_truncate(&rd->path, o2);
				goto done;
			}
			sc_buf_truncate(&rd->path, o2);
		}
	}
	if ((err = rd_str(rd, o, "config", &t->config, false)) < 0 ||
	    (err = rd_strv(rd, o, "notes", &t->notes, &t->nnotes)) < 0)
		goto done;
	arr = rd_get(o, "head_config_changes");
	if (arr && !cJSON_IsArray(arr)) {
		err = rd_fail(rd, "head_config_changes", "expected an array");
		goto done;
	}
	t->changes = sc_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*t->changes));
	cJSON_ArrayForEach(e, arr) {
		struct sc_results_config_change *c = &t->changes[i];
		size_t o2 = rd_enter(rd, "head_config_changes", (long)i);
		if (!cJSON_IsObject(e)) {
			err = rd_fail(rd, NULL, "expected an object");
		} else {
			t->nchanges = ++i;
			err = rd_str(rd, e, "key", &c->key, true);
			if (!err)
				err = rd_str(rd, e, "base", &c->base, false);
			if (!err)
				err = rd_str(rd, e, "head", &c->head, false);
		}
		sc_buf_truncate(&rd->path, o2);
		if (err < 0)
			goto done;
	}
done:
	sc_buf_truncate(&rd->path, old);
	return err;
}

/* run.usage: [{skill, model, tokens_in, tokens_out, cost_usd, price_date}] */
static int read_usage(struct rd *rd, const cJSON *run, struct sc_results_run *out)
{
	const cJSON *arr = rd_get(run, "usage"), *e;
	size_t i = 0;
	int err = 0;

	if (!arr || cJSON_IsNull(arr))
		return 0;
	if (!cJSON_IsArray(arr))
		return rd_fail(rd, "usage", "expected an array");
	out->usage = sc_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*out->usage));
	cJSON_ArrayForEach(e, arr) {
		struct sc_results_usage *u = &out->usage[i];
		size_t o2 = rd_enter(rd, "usage", (long)i);
		u->cost_usd = NAN;
		if (!cJSON_IsObject(e)) {
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
		sc_buf_truncate(&rd->path, o2);
		if (err < 0)
			return err;
	}
	return 0;
}

static int read_provenance(struct rd *rd, const cJSON *run, struct sc_results_provenance *p)
{
	const cJSON *o;
	size_t old;
	int err;

	if ((err = rd_obj(rd, run, "provenance", &o)) < 0 || !o)
		return err;
	old = rd_enter(rd, "provenance", -1);
	p->present = true;
	p->workflow_run_attempt = 0;
	if ((err = rd_str(rd, o, "head", &p->head, true)) == 0 &&
	    (err = rd_str(rd, o, "base", &p->base, false)) == 0 &&
	    (err = rd_str(rd, o, "merge_base", &p->merge_base, false)) == 0 &&
	    (err = rd_str(rd, o, "judged", &p->judged, false)) == 0 &&
	    (err = rd_str(rd, o, "judged_tree", &p->judged_tree, false)) == 0 &&
	    (err = rd_str(rd, o, "config_hash", &p->config_hash, false)) == 0 &&
	    (err = rd_str(rd, o, "workflow_run_id", &p->workflow_run_id, false)) == 0 &&
	    (err = rd_int(rd, o, "workflow_run_attempt", &p->workflow_run_attempt)) == 0 &&
	    (err = rd_int(rd, o, "pull_request", &p->pr_number)) == 0)
		err = rd_str(rd, o, "pull_request_source", &p->pr_source, false);
	sc_buf_truncate(&rd->path, old);
	return err;
}

static int read_run(struct rd *rd, const cJSON *o, struct sc_results_run *run)
{
	const cJSON *shard, *gpu;
	int err = 0;

	TRY(rd_str(rd, o, "id", &run->id, false));
	TRY(rd_str(rd, o, "kind", &run->kind, false));
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
		sc_buf_truncate(&rd->path, old);
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
		const cJSON *cc = rd_get(gpu, "cc");
		run->has_gpu = true;
		err = rd_str(rd, gpu, "name", &run->gpu.name, false);
		if (!err)
			err = rd_str(rd, gpu, "driver", &run->gpu.driver, false);
		if (!err)
			err = rd_str(rd, gpu, "arch", &run->gpu.arch, false);
		/* Compute capability: "9.0" or 9.0; kept as text. */
		if (!err && cc && cJSON_IsNumber(cc)) {
			struct sc_buf b = SC_BUF_INIT;
			sc_buf_printf(&b, "%.1f", cc->valuedouble);
			run->gpu.cc = sc_buf_detach(&b, NULL);
		} else if (!err) {
			err = rd_str(rd, gpu, "cc", &run->gpu.cc, false);
		}
		sc_buf_truncate(&rd->path, old);
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

static int read_finding(struct rd *rd, const cJSON *o, struct sc_results_finding *f)
{
	int err = 0;

	TRY(rd_str(rd, o, "state", &f->state, true));
	TRY(rd_str(rd, o, "severity", &f->severity, true));
	TRY(rd_str(rd, o, "code", &f->code, false));
	TRY(rd_str(rd, o, "file", &f->file, false));
	TRY(rd_int(rd, o, "line", &f->line));
	TRY(rd_str(rd, o, "message", &f->message, false));
	if (f->line == SC_RESULTS_NULL_INT)
		f->line = 0;
done:
	return err;
}

static int read_findings(struct rd *rd, const cJSON *o, struct sc_results_skill *s)
{
	const cJSON *arr = rd_get(o, "findings"), *e;
	size_t i = 0;
	int err = 0;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return rd_fail(rd, "findings", "expected an array");
	s->findings = sc_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*s->findings));
	cJSON_ArrayForEach(e, arr) {
		size_t old = rd_enter(rd, "findings", (long)i);
		s->nfindings = ++i;
		err = cJSON_IsObject(e) ? read_finding(rd, e, &s->findings[i - 1])
				       : rd_fail(rd, NULL, "expected an object");
		sc_buf_truncate(&rd->path, old);
		if (err < 0)
			return err;
	}
	return 0;
}

static int read_skill(struct rd *rd, const cJSON *o, struct sc_results_skill *s)
{
	const cJSON *gate, *changes;
	int err = 0;

	s->gate_passed = true;
	TRY(rd_str(rd, o, "path", &s->path, true));
	TRY(rd_str(rd, o, "name", &s->name, false));
	TRY(rd_str(rd, o, "status", &s->status, false));
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
		sc_buf_truncate(&rd->path, old);
		if (err < 0)
			goto done;
	}
	TRY(rd_obj(rd, o, "gate", &gate));
	if (gate) {
		size_t old = rd_enter(rd, "gate", -1);
		err = rd_bool(rd, gate, "passed", &s->gate_passed);
		if (!err)
			err = rd_strv(rd, gate, "reasons", &s->gate_reasons, &s->ngate_reasons);
		sc_buf_truncate(&rd->path, old);
	}
done:
	return err;
}

static int read_kernel(struct rd *rd, const cJSON *o, struct sc_results_kernel *k)
{
	int err = 0;

	TRY(rd_str(rd, o, "fixture", &k->fixture, false));
	TRY(rd_str(rd, o, "fixture_hash", &k->fixture_hash, false));
	TRY(rd_str(rd, o, "compile", &k->compile, false));
	TRY(rd_str(rd, o, "compile_log", &k->compile_log, false));
	TRY(rd_str(rd, o, "verdict", &k->verdict, false));
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

static int read_unit(struct rd *rd, const cJSON *o, struct sc_results_unit *u)
{
	const cJSON *kernel, *hashes;
	int err = 0;

	TRY(rd_str(rd, o, "skill", &u->skill, true));
	TRY(rd_str(rd, o, "variant", &u->variant, true));
	TRY(rd_str(rd, o, "model", &u->model, true));
	TRY(rd_str(rd, o, "test_id", &u->test_id, true));
	TRY(rd_str(rd, o, "test_name", &u->test_name, false));
	TRY(rd_int(rd, o, "run_index", &u->run_index));
	TRY(rd_str(rd, o, "kind", &u->kind, false));
	TRY(rd_str(rd, o, "trigger", &u->trigger, false));
	TRY(rd_str(rd, o, "verdict", &u->verdict, true));
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
		sc_buf_truncate(&rd->path, old);
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
		sc_buf_truncate(&rd->path, old);
	}
done:
	return err;
}

static int read_aggregate(struct rd *rd, const cJSON *o, struct sc_results_aggregate *a)
{
	int err = 0;

	TRY(rd_str(rd, o, "skill", &a->skill, true));
	TRY(rd_str(rd, o, "variant", &a->variant, true));
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
		const cJSON *tr;
		TRY(rd_obj(rd, o, "triggers", &tr));
		if (tr) {
			size_t old = rd_enter(rd, "triggers", -1);
			if (!(err = rd_int(rd, tr, "should", &a->trigger_should)) &&
			    !(err = rd_int(rd, tr, "opened", &a->trigger_hits)) &&
			    !(err = rd_int(rd, tr, "should_not", &a->trigger_should_not)))
				err = rd_int(rd, tr, "opened_wrongly", &a->trigger_false);
			sc_buf_truncate(&rd->path, old);
			if (err < 0)
				goto done;
		}
	}
done:
	return err;
}

static int read_comparison(struct rd *rd, const cJSON *o, struct sc_results_comparison *c)
{
	int err = 0;

	TRY(rd_str(rd, o, "skill", &c->skill, true));
	TRY(rd_str(rd, o, "model", &c->model, true));
	TRY(rd_str(rd, o, "from", &c->from, true));
	TRY(rd_str(rd, o, "to", &c->to, true));
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
static int read_margin(struct rd *rd, const cJSON *check, struct sc_results_margin *m)
{
	const cJSON *o, *runs;
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
	TRY(rd_str(rd, o, "decision", &m->decision, false));
	if (sc_streq(m->decision, "inconclusive")) {
		/* older files: what the design left undecided */
		free(m->decision);
		m->decision = sc_xstrdup("unverified");
	}
	if (m->decision && !sc_streq(m->decision, "regression") &&
	    !sc_streq(m->decision, "ruled_out") && !sc_streq(m->decision, "unverified")) {
		err = rd_fail(rd, "decision", "expected regression, ruled_out or unverified");
		goto done;
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
		sc_buf_truncate(&rd->path, o2);
	}
done:
	sc_buf_truncate(&rd->path, old);
	return err;
}

static int read_check(struct rd *rd, const cJSON *o, struct sc_results_check *c)
{
	int err = 0;

	TRY(rd_str(rd, o, "skill", &c->skill, true));
	TRY(rd_str(rd, o, "model", &c->model, false));
	TRY(rd_str(rd, o, "check", &c->check, true));
	TRY(rd_str(rd, o, "status", &c->status, true));
	if (!sc_streq(c->status, "passed") && !sc_streq(c->status, "failed") &&
	    !sc_streq(c->status, "unverified") && !sc_streq(c->status, "error") &&
	    !sc_streq(c->status, "skipped"))
		TRY(rd_fail(rd, "status", "expected passed, failed, unverified, error or skipped"));
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

static int read_checks(struct rd *rd, const cJSON *o, struct sc_results_gate *g)
{
	const cJSON *arr = rd_get(o, "checks"), *e;
	size_t i = 0;
	int err = 0;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return rd_fail(rd, "checks", "expected an array");
	g->checks = sc_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*g->checks));
	cJSON_ArrayForEach(e, arr) {
		size_t old = rd_enter(rd, "checks", (long)i);
		g->nchecks = ++i;
		err = cJSON_IsObject(e) ? read_check(rd, e, &g->checks[i - 1])
				       : rd_fail(rd, NULL, "expected an object");
		sc_buf_truncate(&rd->path, old);
		if (err < 0)
			return err;
	}
	return 0;
}

static int read_gate(struct rd *rd, const cJSON *o, struct sc_results_gate *g)
{
	const cJSON *arr, *e;
	size_t i = 0;
	int err = 0;

	TRY(rd_bool(rd, o, "passed", &g->passed));
	TRY(rd_int(rd, o, "exit_code", &g->exit_code));
	{
		char *v = NULL;
		TRY(rd_str(rd, o, "verdict", &v, false));
		if (!v)  /* older files: what passed and the exit code said */
			g->verdict = g->passed ? SC_VERDICT_PASS
				     : g->exit_code == 3 ? SC_VERDICT_ERROR : SC_VERDICT_FAIL;
		else if (!sc_verdict_parse(v, &g->verdict))
			err = rd_fail(rd, "verdict", "expected pass, fail, unverified or error");
		free(v);
		if (err < 0)
			goto done;
	}
	TRY(rd_int(rd, o, "unverified", &g->unverified));
	if (g->unverified == SC_RESULTS_NULL_INT)
		g->unverified = 0;
	TRY(rd_num(rd, o, "error_share", &g->error_share));
	if (isnan(g->error_share))
		g->error_share = 0;
	arr = rd_get(o, "failures");
	if (!arr)
		goto done;
	if (!cJSON_IsArray(arr)) {
		err = rd_fail(rd, "failures", "expected an array");
		goto done;
	}
	g->failures = sc_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*g->failures));
	cJSON_ArrayForEach(e, arr) {
		struct sc_results_gate_failure *f = &g->failures[i];
		size_t old = rd_enter(rd, "failures", (long)i);
		g->nfailures = ++i;
		if (!cJSON_IsObject(e))
			err = rd_fail(rd, NULL, "expected an object");
		if (!err && !(err = rd_str(rd, e, "status", &f->status, false)) &&
		    !(err = rd_str(rd, e, "skill", &f->skill, false)) &&
		    !(err = rd_str(rd, e, "model", &f->model, false)) &&
		    !(err = rd_str(rd, e, "rule", &f->rule, true)) &&
		    !(err = rd_str(rd, e, "message", &f->message, false)) &&
		    !(err = rd_str(rd, e, "check", &f->check, false)) &&
		    !(err = rd_str(rd, e, "file", &f->file, false)))
			err = rd_int(rd, e, "line", &f->line);
		if (!err && f->line == SC_RESULTS_NULL_INT)
			f->line = 0;
		if (!err && !f->check)
			f->check = sc_xstrdup(sc_results_rule_check(f->rule));
		if (!err && !f->status)
			f->status = sc_xstrdup("failed");
		sc_buf_truncate(&rd->path, old);
		if (err < 0)
			goto done;
	}
	TRY(read_checks(rd, o, g));
done:
	return err;
}

static int read_totals(struct rd *rd, const cJSON *o, struct sc_results_totals *t)
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
static int read_array(struct rd *rd, const cJSON *root, const char *key, void **out,
		      size_t *n, size_t elem, void (*init)(void *),
		      int (*fn)(struct rd *, const cJSON *, void *))
{
	const cJSON *arr = rd_get(root, key), *e;
	size_t i = 0;
	int err = 0;

	if (!arr)
		return 0;
	if (!cJSON_IsArray(arr))
		return rd_fail(rd, key, "expected an array");
	*out = sc_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, elem);
	cJSON_ArrayForEach(e, arr) {
		void *item = (char *)*out + i * elem;
		size_t old = rd_enter(rd, key, (long)i);
		init(item);
		*n = ++i;
		err = cJSON_IsObject(e) ? fn(rd, e, item) : rd_fail(rd, NULL, "expected an object");
		sc_buf_truncate(&rd->path, old);
		if (err < 0)
			return err;
	}
	return 0;
}

/* history[]: {"skill", "variant", "model", "test_id", "runs", "passes", "flip_rate"} */
static int read_flips(struct rd *rd, const cJSON *o, struct sc_results_flips *f)
{
	int err = 0;

	TRY(rd_str(rd, o, "skill", &f->skill, true));
	TRY(rd_str(rd, o, "variant", &f->variant, true));
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
static int read_lift(struct rd *rd, const cJSON *o, struct sc_results_lift *l)
{
	int err = 0;

	l->margin = l->drop = l->lift = l->lo = l->hi = l->detectable = NAN;
	TRY(rd_str(rd, o, "skill", &l->skill, true));
	TRY(rd_str(rd, o, "model", &l->model, true));
	TRY(rd_str(rd, o, "decision", &l->decision, true));
	if (sc_streq(l->decision, "inconclusive")) {
		/* older files: what the design left undecided */
		free(l->decision);
		l->decision = sc_xstrdup("unverified");
	}
	if (!sc_streq(l->decision, "lift") && !sc_streq(l->decision, "no_lift") &&
	    !sc_streq(l->decision, "unverified")) {
		err = rd_fail(rd, "decision", "expected lift, no_lift or unverified");
		goto done;
	}
	TRY(rd_str(rd, o, "stop", &l->stop, false));
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
static int fn_lift(struct rd *rd, const cJSON *o, void *p) { return read_lift(rd, o, p); }

static void init_flips(void *p) { memset(p, 0, sizeof(struct sc_results_flips)); }
static int fn_flips(struct rd *rd, const cJSON *o, void *p) { return read_flips(rd, o, p); }

static void init_skill(void *p) { memset(p, 0, sizeof(struct sc_results_skill)); }
static void init_aggregate(void *p) { sc_results_aggregate_init(p); }
static void init_comparison(void *p) { sc_results_comparison_init(p); }
static int fn_skill(struct rd *rd, const cJSON *o, void *p) { return read_skill(rd, o, p); }
static int fn_aggregate(struct rd *rd, const cJSON *o, void *p) { return read_aggregate(rd, o, p); }
static int fn_comparison(struct rd *rd, const cJSON *o, void *p) { return read_comparison(rd, o, p); }

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
 * The text of a results document, read a window at a time: from a file,
 * whose bytes are read as the parse goes and dropped once parsed, or from
 * memory. Each member is parsed on its own (cJSON on the window), so a
 * file of tens of thousands of units is never in memory whole, as text
 * or as a tree.
 */
struct jreader {
	FILE *f;                /* NULL: the text is all in buf (memory) */
	char *buf;              /* owned when f is set */
	size_t start, end, cap; /* unread text is buf[start, end) */
	size_t total;           /* bytes read from the file so far (a cap) */
	size_t lines;           /* line breaks before buf[start] */
	bool eof;
	const char *name;       /* for messages */
};

#define JREADER_CHUNK (1024 * 1024)

/* Reads more of the file into the window; false at the end (or the cap). */
static bool jr_fill(struct jreader *r)
{
	size_t n;

	if (r->eof || !r->f)
		return false;
	if (r->start > 0) {
		memmove(r->buf, r->buf + r->start, r->end - r->start);
		r->end -= r->start;
		r->start = 0;
	}
	if (r->cap - r->end < JREADER_CHUNK) {
		r->cap = r->end + JREADER_CHUNK + 1;
		r->buf = sc_xrealloc(r->buf, r->cap);
	}
	n = fread(r->buf + r->end, 1, JREADER_CHUNK, r->f);
	r->end += n;
	r->total += n;
	r->buf[r->end] = '\0';
	if (n == 0 || r->total > SC_MAX_RESULTS_BYTES)
		r->eof = true;
	return n > 0;
}

/* Moves past n parsed bytes, counting their line breaks. */
static void jr_skip(struct jreader *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		r->lines += r->buf[r->start + i] == '\n';
	r->start += n;
}

/* The next byte that is not white space (reading more as needed), or EOF. */
static int jr_peek(struct jreader *r)
{
	for (;;) {
		while (r->start < r->end) {
			char c = r->buf[r->start];
			if (c != ' ' && c != '\t' && c != '\n' && c != '\r')
				return (unsigned char)c;
			jr_skip(r, 1);
		}
		if (!jr_fill(r))
			return EOF;
	}
}

/* "results 'name':LINE: malformed JSON" for an error at at (NULL: where
 * the reader is). */
static int jr_malformed(struct jreader *r, const char *at)
{
	size_t line = r->lines + 1;

	for (const char *q = r->buf + r->start; at && q < at && q < r->buf + r->end; q++)
		line += *q == '\n';
	return sc_error_set(SC_EPARSE, "results '%s':%zu: malformed JSON", r->name, line);
}

/*
 * One JSON value at the reader (cJSON), the reader moved past it; NULL
 * with the error set when it is malformed. A value that ends where the
 * window ends is parsed again with more text (a number cut short would
 * otherwise read as a shorter one).
 */
static cJSON *jr_value(struct jreader *r)
{
	for (;;) {
		const char *after = NULL;
		cJSON *v;

		if (jr_peek(r) == EOF)
			break;
		v = cJSON_ParseWithLengthOpts(r->buf + r->start, r->end - r->start, &after, false);
		if (v && (after < r->buf + r->end || r->eof || !r->f)) {
			jr_skip(r, (size_t)(after - (r->buf + r->start)));
			return v;
		}
		cJSON_Delete(v);
		if (!jr_fill(r)) {
			if (r->f && r->total > SC_MAX_RESULTS_BYTES) {
				sc_error_set(SC_ELIMIT, "results '%s' is larger than %d MiB", r->name,
					     SC_MAX_RESULTS_BYTES >> 20);
				return NULL;
			}
			v = cJSON_ParseWithLengthOpts(r->buf + r->start, r->end - r->start, &after,
						      false);
			if (v) {
				jr_skip(r, (size_t)(after - (r->buf + r->start)));
				return v;
			}
			jr_malformed(r, cJSON_GetErrorPtr());
			return NULL;
		}
	}
	jr_malformed(r, NULL);
	return NULL;
}

/* Expects the byte c next (after white space) and moves past it. */
static bool jr_expect(struct jreader *r, int c)
{
	if (jr_peek(r) != c)
		return false;
	jr_skip(r, 1);
	return true;
}

/*
 * Reads the "units" array one element at a time: each unit is read into
 * out and its strings pooled, and its JSON freed before the next is
 * parsed.
 */
static int read_units_streaming(struct rd *rd, struct sc_results *out, struct jreader *r)
{
	size_t alloc = 0;
	int err = 0;

	if (jr_peek(r) != '[') {
		cJSON *v = jr_value(r);
		err = v ? rd_fail(rd, "units", "expected an array") : SC_EPARSE;
		cJSON_Delete(v);
		return err;
	}
	jr_skip(r, 1);
	if (jr_expect(r, ']'))
		return 0;
	for (size_t i = 0;; i++) {
		struct sc_results_unit *u;
		cJSON *e;
		size_t old;

		if (!(e = jr_value(r)))
			return SC_EPARSE;
		SC_GROW(out->units, alloc, out->nunits + 1);
		u = &out->units[out->nunits++];
		sc_results_unit_init(u);
		old = rd_enter(rd, "units", (long)i);
		err = cJSON_IsObject(e) ? read_unit(rd, e, u) : rd_fail(rd, NULL, "expected an object");
		sc_buf_truncate(&rd->path, old);
		cJSON_Delete(e);
		if (err < 0)
			return err;
		sc_results_pool_unit(out, u);
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
static int parse_top(struct rd *rd, struct sc_results *out, cJSON *root, struct jreader *r)
{
	bool units_seen = false;
	int err;

	if (jr_peek(r) != '{') {
		cJSON *v = jr_value(r);
		err = v ? rd_fail(rd, NULL, "expected an object") : SC_EPARSE;
		cJSON_Delete(v);
		return err;
	}
	jr_skip(r, 1);
	if (!jr_expect(r, '}')) {
		for (;;) {
			cJSON *key = jr_peek(r) == '"' ? jr_value(r) : NULL, *v;

			if (!cJSON_IsString(key) || !jr_expect(r, ':')) {
				cJSON_Delete(key);
				return jr_malformed(r, r->buf + r->start);
			}
			if (!strcmp(key->valuestring, "units") && !units_seen) {
				units_seen = true;
				cJSON_Delete(key);
				if ((err = read_units_streaming(rd, out, r)) < 0)
					return err;
			} else {
				if (!(v = jr_value(r))) {
					cJSON_Delete(key);
					return SC_EPARSE;
				}
				cJSON_AddItemToObject(root, key->valuestring, v);
				cJSON_Delete(key);
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
	if (r->f && ferror(r->f))
		return sc_error_set(SC_EIO, "cannot read '%s': %s", r->name, strerror(errno));
	return 0;
}

/* The results model from a reader (sc_results_parse, sc_results_load). */
static int parse_results(struct sc_results *out, struct jreader *jr)
{
	struct rd rd = { jr->name, SC_BUF_INIT };
	cJSON *root = cJSON_CreateObject();
	const cJSON *o;
	int err = 0;

	sc_results_init(out);
	sc_buf_puts(&rd.path, "$");
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
		sc_buf_truncate(&rd.path, old);
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
		sc_buf_truncate(&rd.path, old);
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
		sc_buf_truncate(&rd.path, old);
		if (err < 0)
			goto done;
	}
done:
	cJSON_Delete(root);
	sc_buf_release(&rd.path);
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
	jr.buf = (char *)json;  /* read only: no file, nothing is written to it */
	jr.end = jr.cap = len;
	jr.eof = true;
	jr.name = name;
	return parse_results(out, &jr);
}

int sc_results_load(struct sc_results *out, const char *path)
{
	struct jreader jr;
	int err;

	sc_results_init(out);
	memset(&jr, 0, sizeof(jr));
	jr.name = path;
	if (!(jr.f = fopen(path, "rb")))
		return sc_error_set(errno == ENOENT ? SC_ENOTFOUND : SC_EIO, "cannot open '%s': %s",
				    path, strerror(errno));
	err = parse_results(out, &jr);
	fclose(jr.f);
	free(jr.buf);
	return err;
}

/* ---- lookups ----------------------------------------------------------- */

bool sc_results_tests_edited(const struct sc_results_skill *s)
{
	/* the first tests are the verdict's tests, not an edit beside it */
	return s->has_test_changes && !s->first_tests &&
	       (s->tests_added || s->tests_changed || s->tests_removed);
}

int sc_results_variant_rank(const char *variant)
{
	if (!variant)
		return 3;
	if (!strcmp(variant, "baseline"))
		return 0;
	if (!strcmp(variant, "base"))
		return 1;
	if (!strcmp(variant, "head"))
		return 2;
	return 3;
}

/* ---- writing ----------------------------------------------------------- */

static int cmp_str(const char *a, const char *b)
{
	return strcmp(a ? a : "", b ? b : "");
}

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* Sort entries: a pointer plus the original index as the last tie-break,
 * so equal keys keep their input order and the output is deterministic. */
struct sorted {
	const void *item;
	size_t index;
};

static int cmp_skill(const void *pa, const void *pb)
{
	const struct sorted *a = pa, *b = pb;
	int c = cmp_str(((const struct sc_results_skill *)a->item)->path,
			((const struct sc_results_skill *)b->item)->path);
	return c ? c : cmp_i64((int64_t)a->index, (int64_t)b->index);
}

static int cmp_unit(const void *pa, const void *pb)
{
	const struct sorted *sa = pa, *sb = pb;
	const struct sc_results_unit *a = sa->item, *b = sb->item;
	int c;

	if ((c = cmp_str(a->skill, b->skill)) || (c = cmp_str(a->model, b->model)) ||
	    (c = sc_results_variant_rank(a->variant) - sc_results_variant_rank(b->variant)) ||
	    (c = cmp_str(a->variant, b->variant)) || (c = cmp_str(a->test_id, b->test_id)) ||
	    (c = cmp_i64(a->run_index, b->run_index)))
		return c;
	return cmp_i64((int64_t)sa->index, (int64_t)sb->index);
}

static int cmp_aggregate(const void *pa, const void *pb)
{
	const struct sorted *sa = pa, *sb = pb;
	const struct sc_results_aggregate *a = sa->item, *b = sb->item;
	int c;

	if ((c = cmp_str(a->skill, b->skill)) || (c = cmp_str(a->model, b->model)) ||
	    (c = sc_results_variant_rank(a->variant) - sc_results_variant_rank(b->variant)) ||
	    (c = cmp_str(a->variant, b->variant)))
		return c;
	return cmp_i64((int64_t)sa->index, (int64_t)sb->index);
}

static int cmp_comparison(const void *pa, const void *pb)
{
	const struct sorted *sa = pa, *sb = pb;
	const struct sc_results_comparison *a = sa->item, *b = sb->item;
	int c;

	if ((c = cmp_str(a->skill, b->skill)) || (c = cmp_str(a->model, b->model)) ||
	    (c = sc_results_variant_rank(a->from) - sc_results_variant_rank(b->from)) ||
	    (c = cmp_str(a->from, b->from)) ||
	    (c = sc_results_variant_rank(a->to) - sc_results_variant_rank(b->to)) ||
	    (c = cmp_str(a->to, b->to)))
		return c;
	return cmp_i64((int64_t)sa->index, (int64_t)sb->index);
}

/* Checks by skill, then the whole skill's before a model's, model, check order. */
static int cmp_check(const void *pa, const void *pb)
{
	const struct sorted *sa = pa, *sb = pb;
	const struct sc_results_check *a = sa->item, *b = sb->item;
	int c;

	if ((c = cmp_str(a->skill, b->skill)) || (c = cmp_str(a->model, b->model)) ||
	    (c = sc_results_check_rank(a->check) - sc_results_check_rank(b->check)) ||
	    (c = cmp_str(a->check, b->check)))
		return c;
	return cmp_i64((int64_t)sa->index, (int64_t)sb->index);
}

static struct sorted *sort_items(const void *base, size_t n, size_t elem,
				 int (*cmp)(const void *, const void *))
{
	struct sorted *s = sc_xcalloc(n ? n : 1, sizeof(*s));

	for (size_t i = 0; i < n; i++) {
		s[i].item = (const char *)base + i * elem;
		s[i].index = i;
	}
	qsort(s, n, sizeof(*s), cmp);
	return s;
}

static void add_str(cJSON *o, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

static void add_num(cJSON *o, const char *key, double d)
{
	if (isnan(d) || isinf(d))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, d);
}

static void add_int(cJSON *o, const char *key, int64_t v)
{
	if (v == SC_RESULTS_NULL_INT)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, (double)v);
}

static void add_bool(cJSON *o, const char *key, bool b)
{
	cJSON_AddBoolToObject(o, key, b);
}

static void add_strv(cJSON *o, const char *key, char *const *v, size_t n)
{
	cJSON *arr = cJSON_AddArrayToObject(o, key);

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(v[i] ? v[i] : ""));
}

static void write_run(cJSON *root, const struct sc_results_run *run)
{
	cJSON *o = cJSON_AddObjectToObject(root, "run"), *shard, *gpu;

	add_str(o, "id", run->id);
	add_str(o, "kind", run->kind);
	add_str(o, "started_at", run->started_at);
	add_str(o, "finished_at", run->finished_at);
	add_bool(o, "complete", run->complete);
	add_str(o, "incomplete_reason", run->incomplete_reason);
	add_str(o, "repo", run->repo);
	add_str(o, "base_rev", run->base_rev);
	add_str(o, "head_rev", run->head_rev);
	add_strv(o, "models", run->models, run->nmodels);
	if (run->nresolved_models)
		add_strv(o, "resolved_models", run->resolved_models, run->nresolved_models);
	add_int(o, "runs", run->runs);
	shard = cJSON_AddObjectToObject(o, "shard");
	add_int(shard, "index", run->shard_index);
	add_int(shard, "count", run->shard_count);
	add_str(o, "plan_hash", run->plan_hash);
	if (run->prov.present) {
		const struct sc_results_provenance *p = &run->prov;
		cJSON *po = cJSON_AddObjectToObject(o, "provenance");
		add_str(po, "head", p->head);
		add_str(po, "base", p->base);
		add_str(po, "merge_base", p->merge_base);
		add_str(po, "judged", p->judged);
		add_str(po, "judged_tree", p->judged_tree);
		add_str(po, "config_hash", p->config_hash);
		add_str(po, "workflow_run_id", p->workflow_run_id);
		add_int(po, "workflow_run_attempt", p->workflow_run_attempt);
		add_int(po, "pull_request", p->pr_number);
		add_str(po, "pull_request_source", p->pr_source);
	}
	add_bool(o, "oracle", run->oracle);
	add_str(o, "mode", run->mode);
	if (run->has_gpu) {
		gpu = cJSON_AddObjectToObject(o, "gpu");
		add_str(gpu, "name", run->gpu.name);
		add_str(gpu, "driver", run->gpu.driver);
		add_str(gpu, "arch", run->gpu.arch);
		add_str(gpu, "cc", run->gpu.cc);
	} else {
		cJSON_AddNullToObject(o, "gpu");
	}
	add_str(o, "fixtures_lock", run->fixtures_lock);
	add_num(o, "alpha", run->alpha);
	{
		cJSON *t = cJSON_AddObjectToObject(o, "trust"), *arr;
		const struct sc_results_gate_policy *g = &run->trust.gate;
		add_str(t, "config", run->trust.config);
		if (g->present) {
			cJSON *go = cJSON_AddObjectToObject(t, "gate");
			add_num(go, "pass_rate_drop_points", g->pass_rate_drop_points);
			add_num(go, "alpha", g->alpha);
			add_num(go, "tokens_rise_pct", g->tokens_rise_pct);
			add_num(go, "speedup_drop_ratio", g->speedup_drop_ratio);
			add_num(go, "judge_drop", g->judge_drop);
			add_num(go, "error_share", g->error_share);
			add_bool(go, "require_lift", g->require_lift);
			add_bool(go, "deletions_allowed", g->deletions_allowed);
			add_num(go, "max_baseline_pass_rate", g->max_baseline_pass_rate);
			add_bool(go, "compile_only", g->compile_only);
			add_num(go, "regression_points", g->regression_points);
			add_num(go, "beta", g->beta);
			add_bool(go, "accept_unverified", g->accept_unverified);
			add_bool(go, "allow_untested", g->allow_untested);
			add_int(go, "first_runs", g->first_runs);
			add_int(go, "max_runs", g->max_runs);
			add_int(go, "planned_checks", g->planned_checks);
		} else {
			cJSON_AddNullToObject(t, "gate");
		}
		arr = cJSON_AddArrayToObject(t, "head_config_changes");
		for (size_t i = 0; i < run->trust.nchanges; i++) {
			cJSON *c = cJSON_CreateObject();
			cJSON_AddItemToArray(arr, c);
			add_str(c, "key", run->trust.changes[i].key);
			add_str(c, "base", run->trust.changes[i].base);
			add_str(c, "head", run->trust.changes[i].head);
		}
		add_bool(t, "head_config_applied", false);
		add_strv(t, "notes", run->trust.notes, run->trust.nnotes);
	}
	if (run->nusage) {
		cJSON *arr = cJSON_AddArrayToObject(o, "usage");
		for (size_t i = 0; i < run->nusage; i++) {
			const struct sc_results_usage *u = &run->usage[i];
			cJSON *c = cJSON_CreateObject();
			cJSON_AddItemToArray(arr, c);
			add_str(c, "skill", u->skill);
			add_str(c, "model", u->model);
			add_int(c, "tokens_in", u->tokens_in);
			add_int(c, "tokens_out", u->tokens_out);
			add_num(c, "cost_usd", u->cost_usd);
			add_str(c, "price_date", u->price_date);
		}
	}
}

static void write_skill(cJSON *arr, const struct sc_results_skill *s)
{
	cJSON *o = cJSON_CreateObject(), *gate, *findings;

	cJSON_AddItemToArray(arr, o);
	add_str(o, "path", s->path);
	add_str(o, "name", s->name);
	add_str(o, "status", s->status);
	add_str(o, "old_path", s->old_path);
	add_str(o, "skill_md", s->skill_md);
	add_str(o, "base_tree", s->base_tree);
	add_str(o, "head_tree", s->head_tree);
	add_int(o, "tests", s->tests);
	add_bool(o, "untested", s->untested);
	add_bool(o, "first_tests", s->first_tests);
	findings = cJSON_AddArrayToObject(o, "findings");
	for (size_t i = 0; i < s->nfindings; i++) {
		const struct sc_results_finding *f = &s->findings[i];
		cJSON *fo = cJSON_CreateObject();
		cJSON_AddItemToArray(findings, fo);
		add_str(fo, "state", f->state);
		add_str(fo, "severity", f->severity);
		add_str(fo, "code", f->code);
		add_str(fo, "file", f->file);
		add_int(fo, "line", f->line > 0 ? f->line : SC_RESULTS_NULL_INT);
		add_str(fo, "message", f->message);
	}
	if (s->has_test_changes) {
		cJSON *c = cJSON_AddObjectToObject(o, "test_changes");
		add_int(c, "added", s->tests_added);
		add_int(c, "changed", s->tests_changed);
		add_int(c, "removed", s->tests_removed);
	} else {
		cJSON_AddNullToObject(o, "test_changes");
	}
	gate = cJSON_AddObjectToObject(o, "gate");
	add_bool(gate, "passed", s->gate_passed);
	add_strv(gate, "reasons", s->gate_reasons, s->ngate_reasons);
}

static void write_unit(cJSON *arr, const struct sc_results_unit *u)
{
	cJSON *o = cJSON_CreateObject(), *h;
	const struct sc_results_kernel *k = u->kernel;

	cJSON_AddItemToArray(arr, o);
	add_str(o, "skill", u->skill);
	add_str(o, "variant", u->variant);
	add_str(o, "model", u->model);
	add_str(o, "test_id", u->test_id);
	add_str(o, "test_name", u->test_name);
	add_int(o, "run_index", u->run_index);
	add_str(o, "kind", u->kind);
	if (u->trigger)
		add_str(o, "trigger", u->trigger);
	add_str(o, "verdict", u->verdict);
	add_str(o, "error_class", u->error_class);
	add_str(o, "message", u->message);
	if (u->excerpt)
		add_str(o, "excerpt", u->excerpt);
	add_int(o, "tokens_in", u->tokens_in);
	add_int(o, "tokens_out", u->tokens_out);
	add_int(o, "turns", u->turns);
	add_int(o, "latency_ms", u->latency_ms);
	add_num(o, "judge_score", u->judge_score);
	add_bool(o, "reused", u->reused);
	if (k) {
		cJSON *ko = cJSON_AddObjectToObject(o, "kernel");
		add_str(ko, "fixture", k->fixture);
		add_str(ko, "fixture_hash", k->fixture_hash);
		add_str(ko, "compile", k->compile);
		add_str(ko, "compile_log", k->compile_log);
		add_str(ko, "verdict", k->verdict);
		add_num(ko, "max_abs_error", k->max_abs_error);
		add_int(ko, "worst_index", k->worst_index);
		add_int(ko, "registers", k->registers);
		add_int(ko, "spills", k->spills);
		add_int(ko, "shared_bytes", k->shared_bytes);
		add_num(ko, "candidate_ms", k->candidate_ms);
		add_num(ko, "baseline_ms", k->baseline_ms);
		add_num(ko, "candidate_iqr_ms", k->candidate_iqr_ms);
		add_num(ko, "speedup", k->speedup);
		add_str(ko, "strong_reference", k->strong_reference);
		add_num(ko, "strong_speedup", k->strong_speedup);
		add_num(ko, "pct_of_peak", k->pct_of_peak);
		add_bool(ko, "suspect", k->suspect);
		add_strv(ko, "flags", k->flags, k->nflags);
	} else {
		cJSON_AddNullToObject(o, "kernel");
	}
	h = cJSON_AddObjectToObject(o, "hashes");
	add_str(h, "skill", u->hashes.skill);
	add_str(h, "test", u->hashes.test);
	add_str(h, "model", u->hashes.model);
	add_str(h, "prompt", u->hashes.prompt);
	add_str(h, "harness", u->hashes.harness);
	add_str(h, "fixture", u->hashes.fixture);
	add_str(o, "test_file", u->test_file);
	add_int(o, "test_line", u->test_line);
}

static void write_aggregate(cJSON *arr, const struct sc_results_aggregate *a)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToArray(arr, o);
	add_str(o, "skill", a->skill);
	add_str(o, "variant", a->variant);
	add_str(o, "model", a->model);
	add_int(o, "n", a->n);
	add_int(o, "passed", a->passed);
	add_int(o, "failed", a->failed);
	add_int(o, "errors", a->errors);
	add_int(o, "skipped", a->skipped);
	add_num(o, "pass_rate", a->pass_rate);
	add_num(o, "ci_low", a->ci_low);
	add_num(o, "ci_high", a->ci_high);
	add_num(o, "mean_tokens", a->mean_tokens);
	add_num(o, "mean_turns", a->mean_turns);
	add_num(o, "speedup_geomean", a->speedup_geomean);
	add_num(o, "strong_speedup_geomean", a->strong_speedup_geomean);
	add_num(o, "fast_1", a->fast_1);
	add_num(o, "fast_1_5", a->fast_1_5);
	add_num(o, "fast_2", a->fast_2);
	add_num(o, "judge_mean", a->judge_mean);
	if (a->trigger_should || a->trigger_should_not) {
		cJSON *tr = cJSON_AddObjectToObject(o, "triggers");
		add_int(tr, "should", a->trigger_should);
		add_int(tr, "opened", a->trigger_hits);
		add_int(tr, "should_not", a->trigger_should_not);
		add_int(tr, "opened_wrongly", a->trigger_false);
		add_num(tr, "recall", a->trigger_should ? (double)a->trigger_hits /
			(double)a->trigger_should : NAN);
		add_num(tr, "false_trigger_rate", a->trigger_should_not ? (double)a->trigger_false /
			(double)a->trigger_should_not : NAN);
	}
}

static void write_comparison(cJSON *arr, const struct sc_results_comparison *c)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToArray(arr, o);
	add_str(o, "skill", c->skill);
	add_str(o, "model", c->model);
	add_str(o, "from", c->from);
	add_str(o, "to", c->to);
	add_int(o, "paired_n", c->paired_n);
	add_num(o, "from_pass_rate", c->from_pass_rate);
	add_num(o, "to_pass_rate", c->to_pass_rate);
	add_num(o, "pass_rate_delta", c->pass_rate_delta);
	add_int(o, "to_only", c->to_only);
	add_int(o, "from_only", c->from_only);
	add_num(o, "p_value", c->p_value);
	add_bool(o, "significant", c->significant);
	add_num(o, "tokens_delta_pct", c->tokens_delta_pct);
	add_num(o, "speedup_ratio", c->speedup_ratio);
	add_num(o, "judge_delta", c->judge_delta);
	add_num(o, "skill_lift", c->skill_lift);
	add_num(o, "token_savings", c->token_savings);
	if (c->is_beneficial < 0)
		cJSON_AddNullToObject(o, "is_beneficial");
	else
		add_bool(o, "is_beneficial", c->is_beneficial != 0);
}

static void write_gate(cJSON *root, const struct sc_results_gate *g, const char *checks_mark)
{
	cJSON *o = cJSON_AddObjectToObject(root, "gate"), *arr;

	add_bool(o, "passed", g->passed);
	add_int(o, "exit_code", g->exit_code);
	add_str(o, "verdict", sc_verdict_name(g->verdict));
	add_int(o, "unverified", g->unverified);
	arr = cJSON_AddArrayToObject(o, "failures");
	for (size_t i = 0; i < g->nfailures; i++) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, f);
		add_str(f, "status", g->failures[i].status ? g->failures[i].status : "failed");
		add_str(f, "skill", g->failures[i].skill);
		add_str(f, "model", g->failures[i].model);
		add_str(f, "rule", g->failures[i].rule);
		add_str(f, "message", g->failures[i].message);
		add_str(f, "check", g->failures[i].check);
		add_str(f, "file", g->failures[i].file);
		add_int(f, "line", g->failures[i].line > 0 ? g->failures[i].line : SC_RESULTS_NULL_INT);
	}
	add_num(o, "error_share", g->error_share);
	/* the checks (one per skill, model and check) are streamed in here */
	cJSON_AddStringToObject(o, "checks", checks_mark);
}

static void write_check(cJSON *arr, const struct sc_results_check *c)
{
	cJSON *co = cJSON_CreateObject();

	cJSON_AddItemToArray(arr, co);
	add_str(co, "skill", c->skill);
	add_str(co, "model", c->model);
	add_str(co, "check", c->check);
	add_str(co, "status", c->status);
	if (c->accepted)
		add_bool(co, "accepted", true);
	add_str(co, "rule", c->rule);
	add_str(co, "message", c->message);
	add_str(co, "file", c->file);
	add_int(co, "line", c->line > 0 ? c->line : SC_RESULTS_NULL_INT);
	if (c->margin.present) {
		cJSON *mo = cJSON_AddObjectToObject(co, "margin"), *ro;
		add_num(mo, "mean", c->margin.mean);
		add_num(mo, "lo", c->margin.lo);
		add_num(mo, "hi", c->margin.hi);
		add_num(mo, "detectable", c->margin.detectable);
		add_int(mo, "tests", c->margin.tests);
		ro = cJSON_AddObjectToObject(mo, "runs");
		add_int(ro, "base", c->margin.base_runs);
		add_int(ro, "head", c->margin.head_runs);
		add_int(mo, "runs_per_test", c->margin.runs_per_test);
		add_int(mo, "rounds", c->margin.rounds);
		add_str(mo, "decision", c->margin.decision);
		add_num(mo, "drop", c->margin.drop);
		add_num(mo, "beta", c->margin.beta);
		add_num(mo, "llr", c->margin.llr);
		add_num(mo, "info", c->margin.info);
		add_num(mo, "i_max", c->margin.i_max);
		add_int(mo, "reused", c->margin.reused);
		add_int(mo, "evaluated", c->margin.evaluated);
	}
}

static void write_totals(cJSON *root, const struct sc_results_totals *t)
{
	cJSON *o = cJSON_AddObjectToObject(root, "totals");

	add_int(o, "units", t->units);
	add_int(o, "evaluated", t->evaluated);
	add_int(o, "reused", t->reused);
	add_int(o, "cache_hits", t->cache_hits);
	add_int(o, "requests", t->requests);
	add_int(o, "tokens_in", t->tokens_in);
	add_int(o, "tokens_out", t->tokens_out);
	add_int(o, "passed", t->passed);
	add_int(o, "failed", t->failed);
	add_int(o, "errors", t->errors);
	add_int(o, "skipped", t->skipped);
	add_int(o, "wall_ms", t->wall_ms);
}

/*
 * Builds the document with cJSON (key order fixed by the calls above,
 * arrays sorted here) and prints it formatted. cJSON prints integral
 * numbers plainly and others with 15 significant digits, or 17 when 15 do
 * not read back to the same double: the same bytes on every run.
 */
/* Where formatted results go: a buffer, or a file written in pieces. */
struct sink {
	struct sc_buf *buf;
	struct sc_atomic_file *file;
};

static void emit(struct sink *k, const char *s, size_t n)
{
	if (k->buf)
		sc_buf_put(k->buf, s, n);
	else
		sc_atomic_write(k->file, s, n);
}

/* text with `tabs` more tabs after each line break (an object printed
 * alone, shown deeper in the document; JSON strings hold no raw line
 * break) */
static void emit_indented(struct sink *k, const char *text, size_t tabs)
{
	static const char tab[] = "\t\t\t\t\t\t\t\t";
	const char *p = text, *nl;

	assert(tabs < sizeof(tab));
	while ((nl = strchr(p, '\n'))) {
		emit(k, p, (size_t)(nl - p) + 1);
		emit(k, tab, tabs);
		p = nl + 1;
	}
	emit(k, p, strlen(p));
}

static void w_skill(cJSON *arr, const void *item) { write_skill(arr, item); }
static void w_unit(cJSON *arr, const void *item) { write_unit(arr, item); }
static void w_aggregate(cJSON *arr, const void *item) { write_aggregate(arr, item); }
static void w_comparison(cJSON *arr, const void *item) { write_comparison(arr, item); }
static void w_check(cJSON *arr, const void *item) { write_check(arr, item); }

/* An array of the document written element by element. */
struct streamed {
	const char *key;       /* its member name */
	const char *mark;      /* the string standing in its place */
	const void *items;
	size_t n, elem;
	int (*cmp)(const void *, const void *);
	void (*write)(cJSON *arr, const void *item);
};

/* Writes one streamed array: "[", each element printed alone and indented
 * to its depth (tabs: those of its member's line, plus one), "]". */
static void emit_array(struct sink *k, const struct streamed *a, size_t tabs, bool presorted)
{
	struct sorted *s = presorted ? NULL : sort_items(a->items, a->n, a->elem, a->cmp);
	struct sc_buf text = SC_BUF_INIT;

	emit(k, "[", 1);
	for (size_t i = 0; i < a->n; i++) {
		cJSON *one = cJSON_CreateArray();
		a->write(one, s ? s[i].item : (const char *)a->items + i * a->elem);
		sc_buf_clear(&text);
		sc_json_print(&text, cJSON_GetArrayItem(one, 0), true);
		if (i)
			emit(k, ", ", 2);
		emit_indented(k, text.ptr, tabs + 1);
		cJSON_Delete(one);
	}
	free(s);
	sc_buf_release(&text);
	emit(k, "]", 1);
}

/*
 * The document as cJSON_Print would write it, without ever holding its
 * large arrays (skills, units, aggregates, comparisons, gate checks) as
 * one tree: the rest (small) is printed with a mark in each array's place,
 * and each array is written element by element where its mark is. The
 * bytes are those of printing the whole tree. A mark is met only as a
 * member of its own name whose value is that string: no other member of
 * these names is a string, so a value from a results file cannot be taken
 * for one.
 */
static void format_results(struct sink *k, const struct sc_results *r)
{
	const struct streamed arrays[] = {
		{ "skills", "skillci:stream:skills", r->skills, r->nskills, sizeof(*r->skills),
		  cmp_skill, w_skill },
		{ "units", "skillci:stream:units", r->units, r->nunits, sizeof(*r->units),
		  cmp_unit, w_unit },
		{ "aggregates", "skillci:stream:aggregates", r->aggregates, r->naggregates,
		  sizeof(*r->aggregates), cmp_aggregate, w_aggregate },
		{ "comparisons", "skillci:stream:comparisons", r->comparisons, r->ncomparisons,
		  sizeof(*r->comparisons), cmp_comparison, w_comparison },
		{ "checks", "skillci:stream:checks", r->gate.checks, r->gate.nchecks,
		  sizeof(*r->gate.checks), cmp_check, w_check },
	};
	cJSON *root = cJSON_CreateObject();
	struct sc_buf pat = SC_BUF_INIT, doc = SC_BUF_INIT;
	const char *at, *text;

	add_str(root, "schema", r->schema ? r->schema : SC_RESULTS_SCHEMA);
	add_str(root, "skillci_version", r->skillci_version);
	add_str(root, "harness_version", r->harness_version);
	write_run(root, &r->run);
	cJSON_AddStringToObject(root, "skills", arrays[0].mark);
	cJSON_AddStringToObject(root, "units", arrays[1].mark);
	cJSON_AddStringToObject(root, "aggregates", arrays[2].mark);
	cJSON_AddStringToObject(root, "comparisons", arrays[3].mark);
	write_gate(root, &r->gate, arrays[4].mark);
	write_totals(root, &r->totals);
	if (r->nflips) {
		/* written when the store had any: older readers ignore it */
		cJSON *arr = cJSON_AddArrayToObject(root, "history");
		for (size_t i = 0; i < r->nflips; i++) {
			const struct sc_results_flips *f = &r->flips[i];
			cJSON *fo = cJSON_CreateObject();
			cJSON_AddItemToArray(arr, fo);
			add_str(fo, "skill", f->skill);
			add_str(fo, "variant", f->variant);
			add_str(fo, "model", f->model);
			add_str(fo, "test_id", f->test_id);
			add_int(fo, "runs", f->runs);
			add_int(fo, "passes", f->passes);
			add_num(fo, "flip_rate", f->flip_rate);
		}
	}
	if (r->nlifts) {
		/* eval's sequential decisions: older readers ignore it */
		cJSON *arr = cJSON_AddArrayToObject(root, "lift");
		for (size_t i = 0; i < r->nlifts; i++) {
			const struct sc_results_lift *l = &r->lifts[i];
			cJSON *lo = cJSON_CreateObject();
			cJSON_AddItemToArray(arr, lo);
			add_str(lo, "skill", l->skill);
			add_str(lo, "model", l->model);
			add_str(lo, "decision", l->decision);
			add_str(lo, "stop", l->stop);
			add_num(lo, "margin", l->margin);
			add_num(lo, "drop", l->drop);
			add_num(lo, "lift", l->lift);
			add_num(lo, "lo", l->lo);
			add_num(lo, "hi", l->hi);
			add_num(lo, "detectable", l->detectable);
			add_int(lo, "tests", l->tests);
			add_int(lo, "baseline_runs", l->baseline_runs);
			add_int(lo, "skill_runs", l->skill_runs);
			add_int(lo, "runs_per_test", l->runs_per_test);
			add_int(lo, "rounds", l->rounds);
			add_int(lo, "first_runs", l->first_runs);
			add_int(lo, "max_runs", l->max_runs);
			add_int(lo, "max_rounds", l->max_rounds);
		}
	}
	sc_json_print(&doc, root, true);
	cJSON_Delete(root);
	text = at = doc.ptr;
	for (size_t i = 0; i < SC_ARRAY_SIZE(arrays); i++) {
		const char *hit, *line;
		size_t tabs = 0;
		sc_buf_clear(&pat);
		sc_buf_printf(&pat, "\"%s\":\t\"%s\"", arrays[i].key, arrays[i].mark);
		hit = strstr(at, pat.ptr);
		assert(hit);
		for (line = hit; line > text && line[-1] == '\t'; line--)
			tabs++;
		hit += strlen(arrays[i].key) + 4;  /* past "key":TAB */
		emit(k, at, (size_t)(hit - at));
		/* units are usually in order already (the model keeps them sorted) */
		emit_array(k, &arrays[i], tabs, i == 1 && r->sorted);
		at = hit + strlen(arrays[i].mark) + 2;
	}
	emit(k, at, strlen(at));
	emit(k, "\n", 1);
	sc_buf_release(&doc);
	sc_buf_release(&pat);
}

#define SIGN_DOMAIN "skillci-results/1"
#define SIGN_HEAD ",\n \"signature\": {\n  \"key\": \""
#define SIGN_MID "\",\n  \"mac\": \""
#define SIGN_TAIL "\"\n }\n}\n"

/* The document as formatted without its signature. */
static void format_unsigned(struct sc_buf *out, const struct sc_results *r)
{
	struct sink k = { out, NULL };

	format_results(&k, r);
}

void sc_results_format(struct sc_buf *out, const struct sc_results *r)
{
	struct sc_buf doc = SC_BUF_INIT;

	format_unsigned(&doc, r);
	if (r->untrusted) {
		sc_buf_put(out, doc.ptr, doc.len);
		sc_buf_release(&doc);
		return;
	}
	/* the document ends "\n}\n": the signature goes in as the last member */
	assert(doc.len >= 3 && !strcmp(doc.ptr + doc.len - 3, "\n}\n"));
	sc_buf_put(out, doc.ptr, doc.len - 3);
	sc_buf_printf(out, SIGN_HEAD "%s" SIGN_MID, sc_sign_own_fingerprint());
	sc_sign_mac(out, SIGN_DOMAIN, doc.ptr, doc.len);
	sc_buf_puts(out, SIGN_TAIL);
	sc_buf_release(&doc);
}

int sc_results_save(const struct sc_results *r, const char *path)
{
	struct sc_buf doc = SC_BUF_INIT;
	int err;

	sc_results_format(&doc, r);
	err = sc_write_file_atomic(path, doc.ptr, doc.len);
	sc_buf_release(&doc);
	return err;
}

int sc_results_verify_text(const char *text, size_t len, const char *what)
{
	size_t head = strlen(SIGN_HEAD), mid = strlen(SIGN_MID), tail = strlen(SIGN_TAIL);
	size_t need = head + SC_SIGN_FPR_LEN + mid + SC_SHA256_HEX_LEN + tail;
	const char *sig, *hit = NULL;
	struct sc_buf doc = SC_BUF_INIT;
	char fpr[SC_SIGN_FPR_LEN + 1], mac[SC_SHA256_HEX_LEN + 1];
	int err;

	/* the member is the writer's, byte for byte, at the very end */
	if (len >= need)
		hit = text + len - need;
	if (!hit || memcmp(hit, SIGN_HEAD, head) ||
	    memcmp(hit + head + SC_SIGN_FPR_LEN, SIGN_MID, mid) ||
	    memcmp(text + len - tail, SIGN_TAIL, tail))
		return sc_sign_check(what, SIGN_DOMAIN, "", 0, NULL, NULL);
	sig = hit + head;
	memcpy(fpr, sig, SC_SIGN_FPR_LEN);
	fpr[SC_SIGN_FPR_LEN] = 0;
	memcpy(mac, sig + SC_SIGN_FPR_LEN + mid, SC_SHA256_HEX_LEN);
	mac[SC_SHA256_HEX_LEN] = 0;
	sc_buf_put(&doc, text, (size_t)(hit - text));
	sc_buf_puts(&doc, "\n}\n");
	err = sc_sign_check(what, SIGN_DOMAIN, doc.ptr, doc.len, fpr, mac);
	sc_buf_release(&doc);
	return err;
}

int sc_results_verify_file(const char *path)
{
	struct sc_buf text = SC_BUF_INIT, what = SC_BUF_INIT;
	int err;

	if ((err = sc_read_file(&text, path, SC_MAX_RESULTS_BYTES)) < 0)
		goto done;
	sc_buf_printf(&what, "'%s'", path);
	err = sc_results_verify_text(text.ptr, text.len, what.ptr);
done:
	sc_buf_release(&text);
	sc_buf_release(&what);
	return err;
}

/* ---- sorting and lookups --------------------------------------------- */

/* Reorders base[0..n) (elements of size elem) as the sorted entries say. */
static void permute(void *base, size_t n, size_t elem, const struct sorted *s)
{
	char *tmp;

	if (n == 0)
		return;
	tmp = sc_xmalloc(n * elem);
	for (size_t i = 0; i < n; i++)
		memcpy(tmp + i * elem, s[i].item, elem);
	memcpy(base, tmp, n * elem);
	free(tmp);
}

void sc_results_sort(struct sc_results *r)
{
	struct sorted *s;

	s = sort_items(r->skills, r->nskills, sizeof(*r->skills), cmp_skill);
	permute(r->skills, r->nskills, sizeof(*r->skills), s);
	free(s);
	s = sort_items(r->units, r->nunits, sizeof(*r->units), cmp_unit);
	permute(r->units, r->nunits, sizeof(*r->units), s);
	free(s);
	s = sort_items(r->aggregates, r->naggregates, sizeof(*r->aggregates), cmp_aggregate);
	permute(r->aggregates, r->naggregates, sizeof(*r->aggregates), s);
	free(s);
	s = sort_items(r->comparisons, r->ncomparisons, sizeof(*r->comparisons), cmp_comparison);
	permute(r->comparisons, r->ncomparisons, sizeof(*r->comparisons), s);
	free(s);
	s = sort_items(r->gate.checks, r->gate.nchecks, sizeof(*r->gate.checks), cmp_check);
	permute(r->gate.checks, r->gate.nchecks, sizeof(*r->gate.checks), s);
	free(s);
	sc_results_sort_flips(r);
	sc_results_order_build(r);
	r->sorted = true;
}

/* Variant keys compare by rank, then by name (unknown variants last). */
static int cmp_variant(const char *a, const char *b)
{
	int c = sc_results_variant_rank(a) - sc_results_variant_rank(b);
	return c ? c : cmp_str(a, b);
}

const struct sc_results_skill *sc_results_find_skill(const struct sc_results *r, const char *path)
{
	size_t lo = 0, hi = r->nskills;

	if (!r->sorted) {
		for (size_t i = 0; i < r->nskills; i++)
			if (sc_streq(r->skills[i].path, path))
				return &r->skills[i];
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_str(r->skills[mid].path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->nskills && sc_streq(r->skills[lo].path, path) ? &r->skills[lo] : NULL;
}

const struct sc_results_check *sc_results_find_check(const struct sc_results *r, const char *skill,
		const char *model, const char *check)
{
	size_t first, n = sc_results_checks_range(r, skill, model, &first);

	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_check *c = &r->gate.checks[i];
		if (sc_streq(c->skill, skill) && !cmp_str(c->model, model) &&
		    sc_streq(c->check, check))
			return c;
	}
	return NULL;
}

/* Order of an aggregate against the key (skill, model, variant). */
static int agg_key(const struct sc_results_aggregate *a, const char *skill, const char *model,
		   const char *variant)
{
	int c;

	if ((c = cmp_str(a->skill, skill)) || !model || (c = cmp_str(a->model, model)) || !variant)
		return c;
	return cmp_variant(a->variant, variant);
}

const struct sc_results_aggregate *sc_results_find_aggregate(const struct sc_results *r,
		const char *skill, const char *variant, const char *model)
{
	size_t lo = 0, hi = r->naggregates;

	if (!r->sorted) {
		for (size_t i = 0; i < r->naggregates; i++) {
			const struct sc_results_aggregate *a = &r->aggregates[i];
			if (sc_streq(a->skill, skill) && sc_streq(a->variant, variant) &&
			    sc_streq(a->model, model))
				return a;
		}
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (agg_key(&r->aggregates[mid], skill, model, variant) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->naggregates && !agg_key(&r->aggregates[lo], skill, model, variant)
	       ? &r->aggregates[lo] : NULL;
}

static int cmp_key(const struct sc_results_comparison *c, const char *skill, const char *model,
		   const char *from, const char *to)
{
	int d;

	if ((d = cmp_str(c->skill, skill)) || (d = cmp_str(c->model, model)) ||
	    (d = cmp_variant(c->from, from)))
		return d;
	return cmp_variant(c->to, to);
}

const struct sc_results_comparison *sc_results_find_comparison(const struct sc_results *r,
		const char *skill, const char *model, const char *from, const char *to)
{
	size_t lo = 0, hi = r->ncomparisons;

	if (!r->sorted) {
		for (size_t i = 0; i < r->ncomparisons; i++) {
			const struct sc_results_comparison *c = &r->comparisons[i];
			if (sc_streq(c->skill, skill) && sc_streq(c->model, model) &&
			    sc_streq(c->from, from) && sc_streq(c->to, to))
				return c;
		}
		return NULL;
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_key(&r->comparisons[mid], skill, model, from, to) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->ncomparisons && !cmp_key(&r->comparisons[lo], skill, model, from, to)
	       ? &r->comparisons[lo] : NULL;
}

/* Order of a unit against a key prefix (NULL parts match anything). */
static int unit_key(const struct sc_results_unit *u, const char *skill, const char *model,
		    const char *variant)
{
	int c;

	if ((c = cmp_str(u->skill, skill)) || !model || (c = cmp_str(u->model, model)) || !variant)
		return c;
	return cmp_variant(u->variant, variant);
}

size_t sc_results_units_range(const struct sc_results *r, const char *skill, const char *model,
			      const char *variant, size_t *first)
{
	size_t lo = 0, hi = r->nunits, end;

	assert(r->sorted);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (unit_key(&r->units[mid], skill, model, variant) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < r->nunits && !unit_key(&r->units[end], skill, model, variant); end++)
		;
	*first = lo;
	return end - lo;
}

size_t sc_results_aggregates_range(const struct sc_results *r, const char *skill, size_t *first)
{
	size_t lo = 0, hi = r->naggregates, end;

	assert(r->sorted);
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (cmp_str(r->aggregates[mid].skill, skill) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < r->naggregates && sc_streq(r->aggregates[end].skill, skill); end++)
		;
	*first = lo;
	return end - lo;
}
