/*
 * The shards of one sharded check: what they must agree on, and their
 * merge into one results model (shards.h).
 */
#include "common.h"
#include "eval/eval.h"
#include "pipeline/budget.h"
#include "pipeline/plan.h"
#include "pipeline/shards.h"
#include "results/results.h"
#include "results/store.h"

#include <ctype.h>
#include <math.h>

/* ---- the workflow run ------------------------------------------------------ */

bool sc_shards_run_id_valid(const char *id)
{
	size_t n = 0;

	for (; id && *id; id++, n++)
		if (!isalnum((unsigned char)*id) && *id != '.' && *id != '_' && *id != '-')
			return false;
	return n > 0 && n <= SC_RUN_ID_MAX;
}

static bool in_actions(void)
{
	const char *v = getenv("GITHUB_ACTIONS");
	return v && !strcmp(v, "true");
}

char *sc_shards_run_id(const char *given, int shard_n)
{
	const char *v;
	struct sc_buf b = SC_BUF_INIT;

	if (given)
		return sc_xstrdup(given);
	if (shard_n > 1 && in_actions() && (v = getenv("GITHUB_RUN_ID")) && *v)
		sc_buf_printf(&b, "gh-%s", v);
	else if (shard_n > 1 && (v = getenv("SLURM_ARRAY_JOB_ID")) && *v)
		sc_buf_printf(&b, "slurm-%s", v);
	if (b.len && sc_shards_run_id_valid(b.ptr))
		return sc_buf_detach(&b, NULL);
	sc_buf_release(&b);
	return sc_eval_new_run_id();
}

void sc_shards_workflow_run(char **id, int64_t *attempt, const char *run_id)
{
	const char *v, *a = NULL;
	struct sc_buf b = SC_BUF_INIT;
	int n = 1;

	*id = NULL;
	*attempt = 0;
	if (in_actions() && (v = getenv("GITHUB_RUN_ID")) && *v) {
		sc_buf_printf(&b, "gh-%s", v);
		a = getenv("GITHUB_RUN_ATTEMPT");
	} else if ((v = getenv("SLURM_ARRAY_JOB_ID")) && *v) {
		sc_buf_printf(&b, "slurm-%s", v);
		if ((a = getenv("SLURM_RESTART_COUNT")) && sc_parse_int(&n, a, 0, INT32_MAX - 1) == 0)
			n++;
		a = NULL;
	} else if (run_id && *run_id) {
		sc_buf_puts(&b, run_id);
	}
	if (a && sc_parse_int(&n, a, 1, INT32_MAX) < 0)
		n = 1;
	if (b.len && sc_shards_run_id_valid(b.ptr)) {
		*id = sc_buf_detach(&b, NULL);
		*attempt = n;
	}
	sc_buf_release(&b);
}

/* ---- checks ----------------------------------------------------------------- */

/* Equal strings, NULL equal only to NULL. */
static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static const char *or_none(const char *s)
{
	return s ? s : "none";
}

/*
 * Every shard of one plan lists the same skills, each with the same
 * status, trees and findings count: a shard that drops a skill, or marks
 * it unchanged or untested where the others do not, is refused
 * (SC_EINVAL naming both shards and the skill).
 */
static int same_skills(const struct sc_results *a, const char *fa, const struct sc_results *b,
		       const char *fb)
{
	for (size_t i = 0; i < a->nskills || i < b->nskills; i++) {
		const struct sc_results_skill *x = i < a->nskills ? &a->skills[i] : NULL;
		const struct sc_results_skill *y = i < b->nskills ? &b->skills[i] : NULL;
		const struct sc_results_skill *one = x ? x : y;
		if (!x || !y || !same_str(x->path, y->path))
			return sc_error_set(SC_EINVAL, "'%s' and '%s' list different skills (%s '%s'): "
					    "the shards of one run list the same", fa, fb,
					    x ? "the first has" : "the second has", one->path);
		if (x->status != y->status || x->untested != y->untested ||
		    x->first_tests != y->first_tests ||
		    !same_str(x->head_tree, y->head_tree) || !same_str(x->base_tree, y->base_tree) ||
		    x->nfindings != y->nfindings)
			return sc_error_set(SC_EINVAL, "'%s' and '%s' disagree about skill '%s' (status "
					    "%s%s vs %s%s): the shards of one run agree", fa, fb,
					    x->path, x->status ? sc_skill_status_name(x->status) : "none",
					    x->untested ? ", untested" : "",
					    y->status ? sc_skill_status_name(y->status) : "none",
					    y->untested ? ", untested" : "");
	}
	return 0;
}

/* One string field of the provenance, by its name in results JSON. */
struct prov_field {
	const char *name;
	const char *(*get)(const struct sc_results *r);
};

static const char *f_head(const struct sc_results *r) { return r->run.prov.head; }
static const char *f_base(const struct sc_results *r) { return r->run.prov.base; }
static const char *f_mb(const struct sc_results *r) { return r->run.prov.merge_base; }
static const char *f_judged(const struct sc_results *r) { return sc_judged_name(r->run.prov.judged); }
static const char *f_tree(const struct sc_results *r) { return r->run.prov.judged_tree; }
static const char *f_config(const struct sc_results *r) { return r->run.prov.config_hash; }
static const char *f_plan(const struct sc_results *r) { return r->run.plan_hash; }
static const char *f_run(const struct sc_results *r) { return r->run.prov.workflow_run_id; }

static const struct prov_field fields[] = {
	{ "provenance.head", f_head },
	{ "provenance.base", f_base },
	{ "provenance.merge_base", f_mb },
	{ "provenance.judged", f_judged },
	{ "provenance.judged_tree", f_tree },
	{ "plan_hash", f_plan },
	{ "provenance.config_hash", f_config },
	{ "provenance.workflow_run_id", f_run },
};

/*
 * Shard b against shard a: every field of what they judged, then the
 * attempt. SC_EINVAL naming the field and both values (ids cut to 12).
 */
static int same_provenance(const struct sc_results *a, const char *fa, const struct sc_results *b,
			   const char *fb)
{
	for (size_t k = 0; k < SC_ARRAY_SIZE(fields); k++) {
		const char *x = fields[k].get(a), *y = fields[k].get(b);
		if (!same_str(x, y) && fields[k].get == f_plan)
			return sc_error_set(SC_EINVAL, "'%s' belongs to another plan (plan_hash %.12s, "
					    "'%s' has %.12s): the shards of one check split one plan",
					    fb, or_none(y), fa, or_none(x));
		if (!same_str(x, y))
			return sc_error_set(SC_EINVAL, "'%s' and '%s' disagree on %s (%.12s vs %.12s): "
					    "the shards of one check judge one head and base under one "
					    "policy and plan in one workflow run; rerun every shard of "
					    "this check", fa, fb, fields[k].name, or_none(x), or_none(y));
	}
	if (a->run.prov.workflow_run_attempt != b->run.prov.workflow_run_attempt)
		return sc_error_set(SC_EINVAL, "'%s' and '%s' disagree on "
				    "provenance.workflow_run_attempt (%lld vs %lld): shards of another "
				    "attempt of the workflow run; re-run all of its jobs", fa, fb,
				    (long long)a->run.prov.workflow_run_attempt,
				    (long long)b->run.prov.workflow_run_attempt);
	return 0;
}

/* A shard against what merge is told to judge. */
static int as_expected(const struct sc_results *r, const char *label,
		       const struct sc_shards_expect *want)
{
	const struct sc_results_provenance *p = &r->run.prov;

	if (!want)
		return 0;
	if (want->head && !same_str(p->head, want->head))
		return sc_error_set(SC_EINVAL, "'%s' judged provenance.head %.12s, but this merge judges "
				    "%.12s (%s): a shard of another commit (an earlier push, or "
				    "replayed); rerun the shards of this one", label, or_none(p->head),
				    want->head, want->head_from ? want->head_from : "--head");
	if (want->base && !same_str(p->base, want->base))
		return sc_error_set(SC_EINVAL, "'%s' judged provenance.base %.12s, but this merge judges "
				    "%.12s (%s): a shard against another target tip; rerun the "
				    "shards", label, or_none(p->base), want->base,
				    want->base_from ? want->base_from : "--base");
	if (want->workflow_run_id && !same_str(p->workflow_run_id, want->workflow_run_id))
		return sc_error_set(SC_EINVAL, "'%s' belongs to provenance.workflow_run_id %s, but this "
				    "merge is run %s (%s): a shard of another workflow run (replayed, "
				    "or read from the checked-out tree) is never merged", label,
				    or_none(p->workflow_run_id), want->workflow_run_id,
				    want->run_from ? want->run_from : "--workflow-run");
	if (want->workflow_run_id && want->workflow_run_attempt &&
	    p->workflow_run_attempt != want->workflow_run_attempt)
		return sc_error_set(SC_EINVAL, "'%s' is of provenance.workflow_run_attempt %lld of run "
				    "%s, but this merge is attempt %lld: re-run all jobs of the "
				    "workflow run, so every shard is of one attempt", label,
				    (long long)p->workflow_run_attempt, want->workflow_run_id,
				    (long long)want->workflow_run_attempt);
	return 0;
}

/* Units are in the shard their id hashes to, and in one shard only. */
static int units_in_place(const struct sc_results *sh, const char *const *labels, size_t n,
			  int64_t count)
{
	struct sc_buf id = SC_BUF_INIT;
	char **ids = NULL;
	size_t nids = 0, total = 0;
	int err = 0;

	for (size_t i = 0; i < n; i++)
		total += sh[i].nunits;
	ids = sc_xcalloc(total ? total : 1, sizeof(*ids));
	for (size_t i = 0; i < n; i++)
		for (size_t u = 0; u < sh[i].nunits; u++) {
			const struct sc_results_unit *un = &sh[i].units[u];
			int want;
			sc_buf_clear(&id);
			sc_plan_unit_id(&id, un->skill, un->variant, un->model, un->test_id,
					(int)un->run_index);
			/* a sequential run splits by skill (docs/run.md, "Shards") */
			want = sc_plan_shard_of(sh[i].run.trust.gate.max_runs > 0 ? un->skill : id.ptr,
						(int)count);
			if (want != sh[i].run.shard_index) {
				err = sc_error_set(SC_EINVAL, "'%s': unit '%s' belongs to shard %d, not "
						   "%lld (shard.index)", labels[i], id.ptr, want,
						   (long long)sh[i].run.shard_index);
				goto done;
			}
			ids[nids++] = sc_buf_detach(&id, NULL);
		}
	qsort(ids, nids, sizeof(*ids), sc_strcmp_qsort);
	for (size_t i = 1; i < nids; i++)
		if (!strcmp(ids[i - 1], ids[i])) {
			err = sc_error_set(SC_EINVAL, "unit '%s' is in more than one shard", ids[i]);
			goto done;
		}
done:
	for (size_t i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	sc_buf_release(&id);
	return err;
}

int sc_shards_check(size_t *order, const struct sc_results *sh, const char *const *labels,
		    size_t n, const struct sc_shards_expect *want)
{
	int64_t count;
	int err;

	if (n == 0)
		return sc_error_set(SC_EINVAL, "no shard to merge");
	count = sh[0].run.shard_count;
	if (count < 1 || (size_t)count != n)
		return sc_error_set(SC_EINVAL, "'%s' is shard %lld of %lld, but %zu were given: "
				    "merge needs every shard once", labels[0],
				    (long long)sh[0].run.shard_index, (long long)count, n);
	for (size_t i = 0; i < n; i++)
		order[i] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct sc_results_run *run = &sh[i].run;
		if (run->kind != SC_RUN_KIND_RUN)
			return sc_error_set(SC_EINVAL, "'%s' is not the results of skillci run", labels[i]);
		if (!run->prov.present)
			return sc_error_set(SC_EINVAL, "'%s' records no provenance (the head, base, policy "
					    "and workflow run it judged): written by an older skillci; "
					    "rerun the shard", labels[i]);
		if ((err = same_provenance(&sh[0], labels[0], &sh[i], labels[i])) < 0 ||
		    (err = as_expected(&sh[i], labels[i], want)) < 0 ||
		    (err = same_skills(&sh[0], labels[0], &sh[i], labels[i])) < 0)
			return err;
		if (run->shard_count != count)
			return sc_error_set(SC_EINVAL, "'%s' is one of %lld shards, '%s' one of %lld "
					    "(shard.count)", labels[i], (long long)run->shard_count,
					    labels[0], (long long)count);
		for (size_t j = 0; j < i; j++) {
			const struct sc_results_run *o = &sh[j].run;
			if (run->fixtures_lock && o->fixtures_lock &&
			    strcmp(run->fixtures_lock, o->fixtures_lock))
				return sc_error_set(SC_EINVAL, "'%s' and '%s' used different fixtures "
						    "(fixtures.lock %.12s vs %.12s): results compare only "
						    "on the same pinned fixtures", labels[j], labels[i],
						    o->fixtures_lock, run->fixtures_lock);
			if (run->has_gpu && o->has_gpu &&
			    (!sc_streq(run->gpu.name, o->gpu.name) || !sc_streq(run->gpu.driver, o->gpu.driver)))
				return sc_error_set(SC_EINVAL, "'%s' ran on %s (driver %s) but '%s' on %s "
						    "(driver %s): timings compare only on one GPU and driver",
						    labels[j], o->gpu.name ? o->gpu.name : "?",
						    o->gpu.driver ? o->gpu.driver : "?", labels[i],
						    run->gpu.name ? run->gpu.name : "?",
						    run->gpu.driver ? run->gpu.driver : "?");
		}
		if (run->shard_index < 1 || run->shard_index > count)
			return sc_error_set(SC_EINVAL, "'%s': shard.index %lld is out of range",
					    labels[i], (long long)run->shard_index);
		if (order[run->shard_index - 1] != SIZE_MAX)
			return sc_error_set(SC_EINVAL, "shard %lld is given twice ('%s' and '%s', "
					    "shard.index): merge needs every shard once",
					    (long long)run->shard_index,
					    labels[order[run->shard_index - 1]], labels[i]);
		order[run->shard_index - 1] = i;
		if (!run->complete && count > 1 && run->incomplete_reason &&
		    !sc_starts_with(run->incomplete_reason, "shard "))
			return sc_error_set(SC_EINVAL, "'%s' (shard %lld) is incomplete: %s; rerun that "
					    "shard (it resumes from its store)", labels[i],
					    (long long)run->shard_index, run->incomplete_reason);
	}
	return units_in_place(sh, labels, n, count);
}

static bool same_gate(const struct sc_results_gate_policy *a, const struct sc_results_gate_policy *b)
{
	return a->present == b->present && (!a->present ||
	       (a->pass_rate_drop_points == b->pass_rate_drop_points && a->alpha == b->alpha &&
		a->tokens_rise_pct == b->tokens_rise_pct &&
		a->speedup_drop_ratio == b->speedup_drop_ratio && a->judge_drop == b->judge_drop &&
		a->error_share == b->error_share && a->require_lift == b->require_lift &&
		a->deletions_allowed == b->deletions_allowed &&
		a->max_baseline_pass_rate == b->max_baseline_pass_rate &&
		a->compile_only == b->compile_only &&
		(a->regression_points == b->regression_points ||
		 (isnan(a->regression_points) && isnan(b->regression_points))) &&
		(a->beta == b->beta || (isnan(a->beta) && isnan(b->beta))) &&
		a->accept_unverified == b->accept_unverified &&
		a->allow_untested == b->allow_untested && a->first_runs == b->first_runs &&
		a->max_runs == b->max_runs && a->planned_checks == b->planned_checks));
}

int sc_shards_gate(const struct sc_results_gate_policy **out, const struct sc_results *sh,
		   const char *const *labels, size_t n)
{
	*out = n ? &sh[0].run.trust.gate : NULL;
	for (size_t i = 1; i < n; i++)
		if (!same_gate(&sh[i].run.trust.gate, &sh[0].run.trust.gate))
			return sc_error_set(SC_EINVAL, "'%s' and '%s' ran with different gate thresholds "
					    "(trust.gate); give them with --config", labels[0],
					    labels[i]);
	return 0;
}

/* ---- the merge -------------------------------------------------------------- */

/* Replaces *dst with a copy of s. */
static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? sc_xstrdup(s) : NULL;
}

/*
 * Moves s's per-test history into out: every shard computed it from the
 * store for the skills it saw, so an entry out already has is dropped.
 */
static void merge_flips(struct sc_results *out, struct sc_results *s)
{
	for (size_t i = 0; i < s->nflips; i++) {
		struct sc_results_flips *f = &s->flips[i];
		bool have = false;
		for (size_t j = 0; j < out->nflips && !have; j++)
			have = sc_streq(out->flips[j].skill, f->skill) &&
			       out->flips[j].variant == f->variant &&
			       sc_streq(out->flips[j].model, f->model) &&
			       sc_streq(out->flips[j].test_id, f->test_id);
		if (have) {
			free(f->skill); free(f->model); free(f->test_id);
			continue;
		}
		out->flips = sc_xrealloc(out->flips, (out->nflips + 1) * sizeof(*out->flips));
		out->flips[out->nflips++] = *f;
	}
	free(s->flips);
	s->flips = NULL;
	s->nflips = 0;
	sc_results_sort_flips(out);
}

void sc_shards_merge(struct sc_results *out, struct sc_results *sh, const size_t *order, size_t n,
		     const char *run_id, double alpha)
{
	size_t total = 0, at = 0;
	int64_t requests = 0, cache_hits = 0, wall = 0;
	char *id = run_id ? sc_xstrdup(run_id) : sc_eval_new_run_id();

	for (size_t i = 0; i < n; i++) {
		total += sh[i].nunits;
		requests += sh[i].totals.requests;
		cache_hits += sh[i].totals.cache_hits;
		if (sh[i].totals.wall_ms > wall)
			wall = sh[i].totals.wall_ms;
	}
	*out = sh[order[0]];
	sc_results_init(&sh[order[0]]);
	sh[order[0]].nunits = 0;
	out->units = sc_xrealloc(out->units, (total ? total : 1) * sizeof(*out->units));
	at = out->nunits;
	for (size_t k = 1; k < n; k++) {
		struct sc_results *s = &sh[order[k]];
		if (s->nunits)  /* a shard of no units may hold no array */
			memcpy(out->units + at, s->units, s->nunits * sizeof(*s->units));
		at += s->nunits;
		sc_budget_usage_merge(out, s);  /* tokens and cost, summed */
		merge_flips(out, s);
		s->nunits = 0;
		sc_results_adopt_pool(out, s);  /* the units moved keep their strings */
		if (s->run.started_at && out->run.started_at &&
		    strcmp(s->run.started_at, out->run.started_at) < 0)
			set_str(&out->run.started_at, s->run.started_at);
		if (s->run.finished_at && out->run.finished_at &&
		    strcmp(s->run.finished_at, out->run.finished_at) > 0)
			set_str(&out->run.finished_at, s->run.finished_at);
		if (s->run.mode && strcmp(s->run.mode, "none") &&
		    (!out->run.mode || !strcmp(out->run.mode, "none")))
			set_str(&out->run.mode, s->run.mode);
		if (!out->run.fixtures_lock && s->run.fixtures_lock)
			set_str(&out->run.fixtures_lock, s->run.fixtures_lock);
		if (!out->run.has_gpu && s->run.has_gpu) {
			out->run.has_gpu = true;
			out->run.gpu = s->run.gpu;
			memset(&s->run.gpu, 0, sizeof(s->run.gpu));
			s->run.has_gpu = false;
		}
	}
	out->nunits = at;
	free(out->run.id);
	out->run.id = id;
	out->run.complete = true;
	set_str(&out->run.incomplete_reason, NULL);
	out->run.shard_index = 1;
	out->run.shard_count = 1;
	out->sorted = false;
	sc_results_sort(out);
	sc_eval_aggregate(out, alpha);
	out->totals.requests = requests;
	out->totals.cache_hits = cache_hits;
	out->totals.wall_ms = wall;
}

/* ---- shards from the store -------------------------------------------------- */

struct stored_ctx {
	struct sc_shards_stored *st;
	struct sc_store *store;
};

static int on_shard(const struct sc_store_shard *s, void *payload)
{
	struct stored_ctx *c = payload;
	struct sc_shards_stored *st = c->st;
	struct sc_buf label = SC_BUF_INIT;
	int err;

	if (st->n == SC_MAX_MERGE_FILES)
		return sc_error_set(SC_ELIMIT, "run '%s' has more than %d shards", s->run_id,
				    SC_MAX_MERGE_FILES);
	SC_GROW(st->sh, st->alloc, st->n + 1);
	SC_GROW(st->labels, st->labels_alloc, st->n + 1);
	sc_buf_printf(&label, "store '%s' run '%s' shard %d/%d", sc_store_path(c->store), s->run_id,
		      s->shard_index, s->shard_count);
	sc_results_init(&st->sh[st->n]);
	err = sc_results_verify_text(s->results, strlen(s->results), label.ptr);
	if (err == 0)
		err = sc_results_parse(&st->sh[st->n], s->results, strlen(s->results), label.ptr);
	st->sh[st->n].untrusted = err < 0;
	st->labels[st->n++] = sc_buf_detach(&label, NULL);
	return err;
}

int sc_shards_load_stored(struct sc_shards_stored *st, struct sc_store *store, const char *run_id)
{
	struct stored_ctx c = { st, store };
	struct sc_buf missing = SC_BUF_INIT;
	int64_t count;
	int err;

	if ((err = sc_store_each_shard(store, run_id, on_shard, &c)) < 0)
		return err == SC_ENOTFOUND || err == SC_EPARSE ? SC_EINVAL : err;
	if (st->n == 0)
		return sc_error_set(SC_ENOTFOUND, "store '%s' holds no shard of run '%s': run each "
				    "shard with --shard K/N --run-id %s and this store",
				    sc_store_path(store), run_id, run_id);
	count = st->sh[0].run.shard_count;
	if (count >= 1 && (size_t)count != st->n) {
		size_t listed = 0;
		for (int64_t k = 1; k <= count && listed < 10; k++) {
			bool have = false;
			for (size_t i = 0; i < st->n && !have; i++)
				have = st->sh[i].run.shard_index == k;
			if (!have) {
				sc_buf_printf(&missing, "%s%lld", listed ? ", " : "", (long long)k);
				listed++;
			}
		}
		err = sc_error_set(SC_EINVAL, "store '%s' holds %zu of the %lld shards of run '%s'%s%s; "
				   "run the missing ones (--run-id %s) and merge again",
				   sc_store_path(store), st->n, (long long)count, run_id,
				   missing.len ? ": missing " : "", missing.ptr, run_id);
	}
	sc_buf_release(&missing);
	return err;
}

void sc_shards_stored_release(struct sc_shards_stored *st)
{
	for (size_t i = 0; i < st->n; i++) {
		sc_results_release(&st->sh[i]);
		free(st->labels[i]);
	}
	free(st->sh);
	free(st->labels);
	memset(st, 0, sizeof(*st));
}
