/*
 * What a results model means (verdict.h): built once from the gate's
 * checks and failures (a PR check) or the lift decisions (an eval), read
 * by every reporter. The arrays of r are indexed by skill here, not
 * scanned per skill, so building it is O(n log n) in the checks, units
 * and aggregates.
 */
#include "common.h"
#include "limits.h"
#include "results/verdict.h"

#include <math.h>

/* ---- small rules ---------------------------------------------------------- */

enum sc_verdict sc_verdict_of_status(enum sc_check_status status)
{
	switch (status) {
	case SC_STATUS_FAILED: return SC_VERDICT_FAIL;
	case SC_STATUS_ERROR: return SC_VERDICT_ERROR;
	case SC_STATUS_UNVERIFIED: return SC_VERDICT_UNVERIFIED;
	case SC_STATUS_PASSED:
	case SC_STATUS_SKIPPED: break;
	}
	return SC_VERDICT_PASS;
}

/* How bad a state is: fail, then could not check, then unverified, then pass. */
static int badness(enum sc_verdict v)
{
	switch (v) {
	case SC_VERDICT_FAIL: return 3;
	case SC_VERDICT_ERROR: return 2;
	case SC_VERDICT_UNVERIFIED: return 1;
	case SC_VERDICT_PASS: break;
	}
	return 0;
}

static enum sc_verdict worst(enum sc_verdict a, enum sc_verdict b)
{
	return badness(b) > badness(a) ? b : a;
}

enum sc_verdict sc_verdict_of_checks(const struct sc_results *r)
{
	enum sc_verdict v = SC_VERDICT_PASS;

	for (size_t i = 0; i < r->gate.nchecks; i++)
		v = worst(v, sc_verdict_of_status(r->gate.checks[i].status));
	/* failures of the run as a whole have no check row */
	for (size_t i = 0; i < r->gate.nfailures; i++)
		v = worst(v, sc_verdict_of_status(r->gate.failures[i].status));
	return v;
}

const char *sc_verdict_word(enum sc_verdict v, enum sc_run_kind kind)
{
	bool eval = kind == SC_RUN_KIND_EVAL;

	switch (v) {
	case SC_VERDICT_FAIL: return eval ? "no lift" : "fail";
	case SC_VERDICT_UNVERIFIED: return "unverified";
	case SC_VERDICT_ERROR: return "could not check";
	case SC_VERDICT_PASS: break;
	}
	return eval ? "helps" : "pass";
}

/* ---- indexes -------------------------------------------------------------- */

static int cmp_skill_ptr(const void *pa, const void *pb)
{
	const struct sc_results_skill *a = *(const struct sc_results_skill *const *)pa;
	const struct sc_results_skill *b = *(const struct sc_results_skill *const *)pb;
	return strcmp(a->path ? a->path : "", b->path ? b->path : "");
}

/* The n elements (of size elem) at base, each with the skill and model
 * it names, sorted by skill, then model, then place. */
struct entry {
	const char *skill, *model;
	const void *item;
};

struct index {
	struct entry *v;
	size_t n;
};

static void get_check(const void *p, const char **skill, const char **model)
{
	const struct sc_results_check *c = p;
	*skill = c->skill;
	*model = c->model;
}

static void get_failure(const void *p, const char **skill, const char **model)
{
	const struct sc_results_gate_failure *f = p;
	*skill = f->skill;
	*model = f->model;
}

static void get_unit(const void *p, const char **skill, const char **model)
{
	const struct sc_results_unit *u = p;
	*skill = u->skill;
	*model = u->model;
}

static void get_aggregate(const void *p, const char **skill, const char **model)
{
	const struct sc_results_aggregate *a = p;
	*skill = a->skill;
	*model = a->model;
}

static void get_lift(const void *p, const char **skill, const char **model)
{
	const struct sc_results_lift *l = p;
	*skill = l->skill;
	*model = l->model;
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct entry *a = pa, *b = pb;
	int c;

	/* pooled strings: equal ones are one */
	if ((a->skill != b->skill && (c = strcmp(a->skill, b->skill))) ||
	    (a->model != b->model && (c = strcmp(a->model, b->model))))
		return c;
	return (const char *)a->item < (const char *)b->item ? -1
	       : (const char *)a->item > (const char *)b->item;
}

static void index_build(struct index *ix, const void *base, size_t n, size_t elem,
			void (*get)(const void *, const char **, const char **))
{
	size_t i;

	ix->v = sc_xcalloc(n + 1, sizeof(*ix->v));
	ix->n = n;
	for (i = 0; i < n; i++) {
		struct entry *e = &ix->v[i];
		e->item = (const char *)base + i * elem;
		get(e->item, &e->skill, &e->model);
		e->skill = e->skill ? e->skill : "";
		e->model = e->model ? e->model : "";
	}
	/* the entries are distinct (by item): in order already (the model's
	 * arrays are sorted so), qsort would leave them as they are */
	for (i = 1; i < n && cmp_entry(&ix->v[i - 1], &ix->v[i]) < 0; i++)
		;
	if (i < n)
		qsort(ix->v, n, sizeof(*ix->v), cmp_entry);
}

/* The range of entries of skill (any model); returns the count. */
static size_t index_range(const struct index *ix, const char *skill, size_t *first)
{
	size_t lo = 0, hi = ix->n, end;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(ix->v[mid].skill, skill) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (end = lo; end < ix->n && !strcmp(ix->v[end].skill, skill); end++)
		;
	*first = lo;
	return end - lo;
}

struct build {
	const struct sc_results *r;
	struct sc_verdicts *v;
	struct index checks, failures, units, aggregates, lifts;
	size_t rows_alloc;
};

/* ---- rows ----------------------------------------------------------------- */

/* The models a skill has aggregates or units of, sorted and unique. */
static const char **skill_models(const struct build *b, const char *skill, size_t *n)
{
	size_t fa, na = index_range(&b->aggregates, skill, &fa);
	size_t fu, nu = index_range(&b->units, skill, &fu);
	const char **v = sc_xcalloc(na + nu + 1, sizeof(*v));
	size_t k = 0, i = 0, j = 0;

	/* both ranges are sorted by model: merge them, unique */
	while (i < na || j < nu) {
		const char *ma = i < na ? b->aggregates.v[fa + i].model : NULL;
		const char *mu = j < nu ? b->units.v[fu + j].model : NULL, *m;
		if (ma && (!mu || strcmp(ma, mu) <= 0)) {
			m = ma;
			i++;
		} else {
			m = mu;
			j++;
		}
		if (m && *m && (!k || strcmp(v[k - 1], m)))
			v[k++] = m;
	}
	*n = k;
	return v;
}

static bool model_matches(const char *of, const char *row)
{
	return !of || !*of || (row && !strcmp(of, row));
}

/* A run's row: the worst of its checks, and the failures no check holds. */
static void row_of_run(struct build *b, struct sc_verdict_row *row)
{
	const struct sc_results *r = b->r;
	size_t fc, nc = index_range(&b->checks, row->skill->path, &fc);
	size_t ff, nf = index_range(&b->failures, row->skill->path, &ff);
	enum sc_verdict v = SC_VERDICT_PASS;

	row->open = sc_xcalloc(nc + 1, sizeof(*row->open));
	/* the skill's checks by model ("" first), each model's in the
	 * results' order (report order when sorted) */
	for (size_t i = fc; i < fc + nc; i++) {
		const struct sc_results_check *c = b->checks.v[i].item;
		if (!model_matches(c->model, row->model) ||
		    sc_verdict_of_status(c->status) == SC_VERDICT_PASS)
			continue;
		row->open[row->nopen++] = c;
		v = worst(v, sc_verdict_of_status(c->status));
	}
	row->loose = sc_xcalloc(nf + 1, sizeof(*row->loose));
	for (size_t i = ff; i < ff + nf; i++) {
		const struct sc_results_gate_failure *f = b->failures.v[i].item;
		if (!model_matches(f->model, row->model) || f->status != SC_STATUS_FAILED ||
		    sc_results_find_check(r, row->skill->path, f->model ? f->model : "", f->check))
			continue;
		row->loose[row->nloose++] = f;
		v = worst(v, SC_VERDICT_FAIL);
	}
	if (!row->skill->gate_passed && v == SC_VERDICT_PASS)
		v = SC_VERDICT_FAIL;  /* a skill the gate failed, whatever else says */
	row->state = v;
}

/* "+12", "-5", "-" for a pass-rate fraction in points. */
static void points(struct sc_buf *out, double v)
{
	if (isnan(v))
		sc_buf_puts(out, "-");
	else
		sc_buf_printf(out, "%+.0f", v * 100.0 + 0.0);
}

/* Whether a row of an eval has infrastructure errors among its units. */
static bool row_erred(const struct build *b, const struct sc_verdict_row *row)
{
	size_t fu, nu = index_range(&b->units, row->skill->path, &fu);

	for (size_t i = fu; i < fu + nu; i++) {
		const struct sc_results_unit *u = b->units.v[i].item;
		if (row->model && !strcmp(u->model, row->model) && u->verdict == SC_UNIT_ERROR)
			return true;
	}
	return false;
}

/*
 * An eval's row: the sequential lift decision when there is one, else
 * upskill's rule on the paired comparison of no skill with the skill;
 * could not check when its units erred and the run could not check.
 * why: the recommendation `skillci eval` prints, and every report.
 */
static void row_of_eval(struct build *b, struct sc_verdict_row *row, bool run_error)
{
	const struct sc_results *r = b->r;
	struct sc_buf why = SC_BUF_INIT;
	enum sc_verdict v = SC_VERDICT_UNVERIFIED;

	if (!row->model) {
		sc_buf_puts(&why, row->skill->untested ? "none: no tests" : "none: nothing evaluated");
		goto done;
	}
	{
		size_t fl, nl = index_range(&b->lifts, row->skill->path, &fl);
		for (size_t i = fl; i < fl + nl && !row->lift; i++) {
			const struct sc_results_lift *l = b->lifts.v[i].item;
			if (!strcmp(l->model, row->model))
				row->lift = l;
		}
	}
	row->compare = sc_results_find_comparison(r, row->skill->path, row->model,
						  SC_VARIANT_BASELINE, SC_VARIANT_HEAD);
	if (row->lift) {
		const struct sc_results_lift *l = row->lift;
		switch (l->decision) {
		case SC_LIFT_SHOWN:
			v = SC_VERDICT_PASS;
			sc_buf_puts(&why, "keep skill: a lift is shown, ");
			break;
		case SC_LIFT_NONE:
			v = SC_VERDICT_FAIL;
			sc_buf_printf(&why, "skill is not beneficial: a lift of %g points or more is "
				      "ruled out, ", (isnan(l->drop) ? l->detectable : l->drop) * 100.0);
			break;
		case SC_LIFT_UNVERIFIED:
			sc_buf_puts(&why, "none: unverified (neither a lift nor its absence is shown), ");
			break;
		}
		points(&why, l->lift);
		sc_buf_puts(&why, " points [");
		points(&why, l->lo);
		sc_buf_puts(&why, ", ");
		points(&why, l->hi);
		sc_buf_puts(&why, "]");
	} else if (!sc_results_find_aggregate(r, row->skill->path, SC_VARIANT_BASELINE, row->model)) {
		sc_buf_puts(&why, "none: not compared with no skill (--no-baseline)");
	} else if (!row->compare || row->compare->is_beneficial < 0 || !row->compare->paired_n) {
		sc_buf_puts(&why, "none (no pass/fail results to compare)");
	} else if (row->compare->is_beneficial == 1) {
		v = SC_VERDICT_PASS;
		sc_buf_puts(&why, "keep skill");
	} else {
		v = SC_VERDICT_FAIL;
		sc_buf_puts(&why, "skill may not be beneficial");
	}
done:
	if (run_error && v != SC_VERDICT_FAIL && (!row->model || row_erred(b, row))) {
		v = SC_VERDICT_ERROR;
		sc_buf_clear(&why);
		sc_buf_puts(&why, "none: could not check (infrastructure errors)");
	}
	row->state = v;
	row->why = sc_buf_detach(&why, NULL);
}

/* ---- the run ---------------------------------------------------------- */

/* The first unit that decides and failed for infrastructure reasons
 * (into *unit), and the run's count of them, said as the cause. */
static void error_cause(struct sc_buf *out, const struct sc_results *r,
			const struct sc_results_unit **unit)
{
	const struct sc_results_unit *first = NULL;
	int64_t units = 0, errors = 0;

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (!sc_results_unit_decides(r, u))
			continue;
		units++;
		if (u->verdict != SC_UNIT_ERROR)
			continue;
		errors++;
		if (!first)
			first = u;
	}
	if (!first)
		return;
	*unit = first;
	sc_buf_printf(out, "%lld of %lld units failed for infrastructure reasons (%.0f%%); the "
		      "first: %s on %s, test '%s': %s", (long long)errors, (long long)units,
		      units ? 100.0 * (double)errors / (double)units : 0.0, first->skill,
		      first->model, first->test_name ? first->test_name : first->test_id,
		      first->message && *first->message ? first->message : "infrastructure error");
	if (first->error_class)
		sc_buf_printf(out, " (%s)", first->error_class);
}

/* Why a run could not check, said once (verdict.h, cause). */
static char *run_cause(const struct sc_results *r, const struct sc_results_unit **unit)
{
	struct sc_buf out = SC_BUF_INIT;
	const struct sc_results_gate_failure *first = NULL;
	bool share = false;

	for (size_t i = 0; i < r->gate.nfailures; i++) {
		const struct sc_results_gate_failure *f = &r->gate.failures[i];
		share |= f->check == SC_CHECK_ERRORS;
		if (f->status == SC_STATUS_ERROR && !first)
			first = f;
	}
	if (share)
		error_cause(&out, r, unit);
	if (!out.len && first)
		sc_buf_puts(&out, first->message ? first->message : first->rule);
	if (!out.len && r->gate.error_share > 0)
		sc_buf_printf(&out, "%.0f%% of units failed for infrastructure reasons",
			      r->gate.error_share * 100.0);
	if (!out.len)
		sc_buf_puts(&out, "the runner could not make its checks");
	return sc_buf_detach(&out, NULL);
}

static void add_note(struct sc_verdicts *v, size_t *alloc, const struct sc_results_skill *s,
		     const char *path, const char *model, enum sc_check_status status,
		     bool accepted, const char *rule, const char *file, int64_t line,
		     const char *message)
{
	struct sc_verdict_note *n;

	SC_GROW(v->notes, *alloc, v->nnotes + 1);
	n = &v->notes[v->nnotes++];
	n->skill = s;
	n->skill_path = path ? path : "";
	n->model = model;
	n->status = status;
	n->accepted = accepted;
	n->rule = rule;
	n->file = file;
	n->line = line;
	n->message = message;
}

/*
 * The annotations, in the order written: the cause of a run that could
 * not check first (once: the checks it made could not are not repeated),
 * then every failure that blocks the merge, every unverified check the
 * trusted config accepts, and a skill the gate failed with no failure
 * listed (its reasons).
 */
static void notes(struct build *b, char ***reasons, size_t *nreasons)
{
	const struct sc_results *r = b->r;
	struct sc_verdicts *v = b->v;
	size_t alloc = 0;

	if (v->state == SC_VERDICT_ERROR)
		add_note(v, &alloc, NULL, "", NULL, SC_STATUS_ERROR, false, NULL, NULL, 0, v->cause);
	for (size_t i = 0; i < r->gate.nfailures; i++) {
		const struct sc_results_gate_failure *f = &r->gate.failures[i];
		if (!f->skill || !*f->skill)
			continue;   /* run-wide: not about a file */
		if (v->state == SC_VERDICT_ERROR && f->status == SC_STATUS_ERROR)
			continue;   /* the cause, said first */
		add_note(v, &alloc, sc_results_find_skill(r, f->skill), f->skill, f->model, f->status,
			 false, f->rule, f->file, f->line, f->message);
	}
	for (size_t i = 0; i < r->gate.nchecks; i++) {
		const struct sc_results_check *c = &r->gate.checks[i];
		if (!c->accepted || c->status != SC_STATUS_UNVERIFIED || !c->skill || !*c->skill)
			continue;
		add_note(v, &alloc, sc_results_find_skill(r, c->skill), c->skill, c->model,
			 SC_STATUS_UNVERIFIED, true, c->rule, c->file, c->line, c->message);
	}
	for (size_t i = 0; i < r->nskills; i++) {
		const struct sc_results_skill *s = &r->skills[i];
		bool listed = false;
		struct sc_buf why = SC_BUF_INIT;
		size_t ff, nf;
		if (s->gate_passed)
			continue;
		nf = sc_results_failures_of(r, s->path, &ff);
		for (size_t f = ff; f < ff + nf && !listed; f++)
			listed = sc_streq(sc_results_failure_at(r, f)->skill, s->path);
		if (listed)
			continue;
		for (size_t k = 0; k < s->ngate_reasons; k++)
			sc_buf_printf(&why, "%s%s", k ? "\n" : "", s->gate_reasons[k]);
		*reasons = sc_xrealloc(*reasons, (*nreasons + 1) * sizeof(**reasons));
		(*reasons)[(*nreasons)++] = sc_buf_detach(&why, NULL);
		add_note(v, &alloc, s, s->path, NULL, SC_STATUS_FAILED, false, NULL, NULL, 0,
			 (*reasons)[*nreasons - 1]);
	}
	v->nnotes_written = v->nnotes < SC_REPORT_MAX_ANNOTATIONS ? v->nnotes
				: SC_REPORT_MAX_ANNOTATIONS;
}

/* "3 changed skills: judged on the base's tests 1, added 1, ..." (docs/run.md). */
static char *checked_line(const struct sc_verdicts *v)
{
	struct sc_buf out = SC_BUF_INIT;

	if (v->kind == SC_RUN_KIND_EVAL)
		return sc_xstrdup("");
	sc_buf_printf(&out, "%zu changed skill%s: judged on the base's tests %zu, added %zu, moved "
		      "%zu, deleted %zu (allowed %zu, not allowed %zu), unverified %zu", v->changed,
		      v->changed == 1 ? "" : "s", v->judged, v->added, v->moved, v->deleted,
		      v->deleted_allowed, v->deleted_refused, v->flagged_unverified);
	if (v->first_tests)
		sc_buf_printf(&out, ", first tests %zu (judged on the head's new tests against no "
			      "skill)", v->first_tests);
	if (v->no_kernel_run)
		sc_buf_puts(&out, "; no kernel was run (compile-only runner)");
	return sc_buf_detach(&out, NULL);
}

/* The skills of the run's state (at most three named), for the headline. */
static void names_of(struct sc_buf *out, const struct sc_verdicts *v, enum sc_verdict state,
		     size_t max)
{
	size_t named = 0;

	for (size_t i = 0; i < v->nskills; i++) {
		if (v->skills[i].state != state)
			continue;
		if (named < max)
			sc_buf_printf(out, "%s%s", named ? ", " : "", v->skills[i].skill->path);
		named++;
	}
	if (named > max)
		sc_buf_printf(out, " and %zu more", named - max);
}

/* The eval rows of a state, named "skill on model" (at most three). */
static void rows_of(struct sc_buf *out, const struct sc_verdicts *v, enum sc_verdict state)
{
	size_t named = 0;

	for (size_t i = 0; i < v->nrows; i++) {
		const struct sc_verdict_row *row = &v->rows[i];
		if (row->state != state)
			continue;
		if (named < 3)
			sc_buf_printf(out, "%s%s%s%s", named ? ", " : "", row->skill->path,
				      row->model ? " on " : "", row->model ? row->model : "");
		named++;
	}
	if (named > 3)
		sc_buf_printf(out, " and %zu more", named - 3);
}

static char *eval_headline(const struct sc_verdicts *v)
{
	struct sc_buf out = SC_BUF_INIT, names = SC_BUF_INIT;
	size_t n = v->nrows;

	switch (v->state) {
	case SC_VERDICT_ERROR:
		sc_buf_printf(&out, "could not check: the runner's fault, not the skill's: %s", v->cause);
		break;
	case SC_VERDICT_FAIL:
		rows_of(&names, v, SC_VERDICT_FAIL);
		sc_buf_printf(&out, "eval: no lift in %zu of %zu skill × model pair%s (%s)",
			      v->rows_fail, n, n == 1 ? "" : "s", names.ptr);
		break;
	case SC_VERDICT_UNVERIFIED:
		rows_of(&names, v, SC_VERDICT_UNVERIFIED);
		sc_buf_printf(&out, "eval unverified: %zu of %zu skill × model pair%s undecided (%s)",
			      v->rows_unverified, n, n == 1 ? "" : "s", names.ptr);
		break;
	case SC_VERDICT_PASS:
		if (n)
			sc_buf_printf(&out, "eval passed: the skill helps in %zu of %zu skill × model "
				      "pair%s", v->rows_pass, n, n == 1 ? "" : "s");
		else
			sc_buf_puts(&out, "eval passed: no skill evaluated");
		break;
	}
	if (v->state != SC_VERDICT_PASS && v->state != SC_VERDICT_ERROR && v->rows_pass)
		sc_buf_printf(&out, "; the skill helps in %zu", v->rows_pass);
	sc_buf_release(&names);
	return sc_buf_detach(&out, NULL);
}

static char *run_headline(const struct sc_verdicts *v, const struct sc_results *r)
{
	struct sc_buf out = SC_BUF_INIT, names = SC_BUF_INIT;
	size_t nmodels = r->run.nmodels;
	const struct sc_results_gate_policy *g = &r->run.trust.gate;

	names_of(&names, v, v->state, 3);
	if (v->state == SC_VERDICT_ERROR) {
		/* the cause, once, first: the runner's, not the pull request's */
		sc_buf_printf(&out, "could not check: the runner's fault, not the pull request's: %s",
			      v->cause);
	} else if (v->shard && v->exit_code == 0) {
		sc_buf_printf(&out, "shard %lld/%lld of a sharded run: skillci merge decides the gate "
			      "(%zu changed skill%s)", (long long)r->run.shard_index,
			      (long long)r->run.shard_count, v->changed, v->changed == 1 ? "" : "s");
	} else if (v->state == SC_VERDICT_FAIL) {
		sc_buf_printf(&out, "gate failed: %zu of %zu changed skill%s failed", v->failed,
			      v->changed, v->changed == 1 ? "" : "s");
		sc_buf_printf(&out, names.len ? " (%s)" : " (the run as a whole)", names.ptr);
		if (v->unverified)
			sc_buf_printf(&out, "; %zu unverified", v->unverified);
	} else if (v->state == SC_VERDICT_UNVERIFIED) {
		sc_buf_printf(&out, "gate unverified: %zu of %zu changed skill%s could not be decided",
			      v->unverified, v->changed, v->changed == 1 ? "" : "s");
		if (names.len)
			sc_buf_printf(&out, " (%s)", names.ptr);
		sc_buf_puts(&out, !v->blocking ? "; accepted by the trusted config, not a pass"
				  : "; not a pass: neither a regression nor its absence is shown");
	} else if (v->changed == 0) {
		sc_buf_puts(&out, "gate passed: no skill changed");
	} else {
		sc_buf_printf(&out, "gate passed: %zu changed skill%s", v->changed,
			      v->changed == 1 ? "" : "s");
		if (v->evaluated && g->present && g->max_runs > 0)
			/* sequential: each check sampled until decided (docs/evaluation.md) */
			sc_buf_printf(&out, ", %zu evaluated with %zu model%s × %lld to %lld runs per test "
				      "(sequential)", v->evaluated, nmodels, nmodels == 1 ? "" : "s",
				      (long long)g->first_runs, (long long)g->max_runs);
		else if (v->evaluated)
			sc_buf_printf(&out, ", %zu evaluated with %zu model%s × %lld run%s", v->evaluated,
				      nmodels, nmodels == 1 ? "" : "s", (long long)r->run.runs,
				      r->run.runs == 1 ? "" : "s");
		if (v->untested)
			sc_buf_printf(&out, ", %zu unverified: no tests", v->untested);
		if (v->deleted)
			sc_buf_printf(&out, ", %zu deleted", v->deleted);
		if (v->evaluated && g->present && g->regression_points > 0)
			/* what green promises (docs/run.md, "The gate") */
			sc_buf_printf(&out, "; no drop of %g points or more (one that size is caught with "
				      "probability %g)", g->regression_points, 1 - g->beta);
	}
	if (v->no_kernel_run)
		sc_buf_puts(&out, "; no kernel was run (compile-only runner)");
	sc_buf_release(&names);
	return sc_buf_detach(&out, NULL);
}

/* ---- building ----------------------------------------------------------- */

/* The per-skill counts of a PR check (the checked line, the headline). */
static void count_skill(struct build *b, const struct sc_verdict_skill *vs)
{
	struct sc_verdicts *v = b->v;
	const struct sc_results_skill *s = vs->skill;
	size_t fc, nc = index_range(&b->checks, s->path, &fc);

	v->changed++;
	if (s->status == SC_SKILL_DELETED)
		v->deleted++;
	else if (s->untested)
		v->untested++;
	else
		v->evaluated++;
	if (s->status == SC_SKILL_ADDED) {
		v->added++;
	} else if (s->status == SC_SKILL_DELETED) {
		for (size_t i = fc; i < fc + nc; i++) {
			const struct sc_results_check *c = b->checks.v[i].item;
			if (c->check != SC_CHECK_DELETED)
				continue;
			v->deleted_allowed += c->status == SC_STATUS_PASSED;
			v->deleted_refused += c->status == SC_STATUS_FAILED;
		}
	} else {
		v->moved += s->status == SC_SKILL_RENAMED;
		v->judged += !s->untested && s->tests > 0 && !s->first_tests;
		v->first_tests += s->first_tests;
	}
	v->flagged_unverified += vs->unverified;
	v->failed += vs->state == SC_VERDICT_FAIL;
	v->unverified += vs->state == SC_VERDICT_UNVERIFIED;
	v->errored += vs->state == SC_VERDICT_ERROR;
}

static void add_rows(struct build *b, struct sc_verdict_skill *vs, bool run_error)
{
	struct sc_verdicts *v = b->v;
	const struct sc_results_skill *s = vs->skill;
	size_t nmodels, fc, nc = index_range(&b->checks, s->path, &fc);
	const char **models = skill_models(b, s->path, &nmodels);
	bool eval = v->kind == SC_RUN_KIND_EVAL;

	vs->first_row = v->nrows;
	vs->state = SC_VERDICT_PASS;
	for (size_t m = 0; m < nmodels || m == 0; m++) {
		struct sc_verdict_row *row;
		SC_GROW(v->rows, b->rows_alloc, v->nrows + 1);
		row = &v->rows[v->nrows++];
		memset(row, 0, sizeof(*row));
		row->skill = s;
		row->model = m < nmodels ? models[m] : NULL;
		row->first = m == 0;
		if (eval)
			row_of_eval(b, row, run_error);
		else
			row_of_run(b, row);
		vs->state = worst(vs->state, row->state);
		v->rows_pass += row->state == SC_VERDICT_PASS;
		v->rows_fail += row->state == SC_VERDICT_FAIL;
		v->rows_unverified += row->state == SC_VERDICT_UNVERIFIED;
		v->rows_error += row->state == SC_VERDICT_ERROR;
	}
	vs->nrows = v->nrows - vs->first_row;
	vs->unverified = !eval && s->untested && s->status != SC_SKILL_DELETED;
	for (size_t i = fc; i < fc + nc; i++) {
		const struct sc_results_check *c = b->checks.v[i].item;
		vs->unverified |= c->status == SC_STATUS_UNVERIFIED;
	}
	free(models);
}

void sc_verdict_build(struct sc_verdicts *out, const struct sc_results *r)
{
	struct build b;
	const struct sc_results_skill **skills = sc_xcalloc(r->nskills + 1, sizeof(*skills));
	char **reasons = NULL;
	size_t nreasons = 0, n = 0;
	bool run_error;

	memset(out, 0, sizeof(*out));
	memset(&b, 0, sizeof(b));
	b.r = r;
	b.v = out;
	out->kind = r->run.kind;
	out->shard = r->run.shard_count > 1;
	index_build(&b.checks, r->gate.checks, r->gate.nchecks, sizeof(*r->gate.checks), get_check);
	index_build(&b.failures, r->gate.failures, r->gate.nfailures, sizeof(*r->gate.failures),
		    get_failure);
	index_build(&b.units, r->units, r->nunits, sizeof(*r->units), get_unit);
	index_build(&b.aggregates, r->aggregates, r->naggregates, sizeof(*r->aggregates),
		    get_aggregate);
	index_build(&b.lifts, r->lifts, r->nlifts, sizeof(*r->lifts), get_lift);

	/* could not check is the gate's say for both kinds: its error share,
	 * a GPU that did not run, an interrupted run */
	run_error = r->gate.verdict == SC_VERDICT_ERROR;
	for (size_t i = 0; i < r->nskills; i++)
		if (out->kind == SC_RUN_KIND_EVAL || r->skills[i].status != SC_SKILL_UNCHANGED)
			skills[n++] = &r->skills[i];
	qsort(skills, n, sizeof(*skills), cmp_skill_ptr);
	out->skills = sc_xcalloc(n + 1, sizeof(*out->skills));
	for (size_t i = 0; i < n; i++) {
		struct sc_verdict_skill *vs = &out->skills[out->nskills++];
		vs->skill = skills[i];
		add_rows(&b, vs, run_error);
	}
	for (size_t i = 0; i < r->gate.nchecks; i++) {
		const struct sc_results_check *c = &r->gate.checks[i];
		out->failed_checks += c->status == SC_STATUS_FAILED;
		out->unverified_checks += c->status == SC_STATUS_UNVERIFIED;
		out->error_checks += c->status == SC_STATUS_ERROR;
		out->no_kernel_run |= c->check == SC_CHECK_KERNEL &&
				      (c->status == SC_STATUS_SKIPPED ||
				       (c->status == SC_STATUS_UNVERIFIED && c->accepted));
	}
	out->no_kernel_run &= out->kind != SC_RUN_KIND_EVAL;
	if (out->kind == SC_RUN_KIND_EVAL) {
		/* what the lift decisions say; could not check over all */
		enum sc_verdict v = SC_VERDICT_PASS;
		for (size_t i = 0; i < out->nrows; i++)
			v = worst(v, out->rows[i].state);
		out->state = run_error ? SC_VERDICT_ERROR : v;
		out->exit_code = out->state == SC_VERDICT_ERROR ? SC_EXIT_INFRA : SC_EXIT_OK;
	} else {
		out->state = r->gate.verdict;
		out->exit_code = (int)r->gate.exit_code;
	}
	out->blocking = out->exit_code != 0;
	for (size_t i = 0; i < out->nskills; i++)
		if (out->kind != SC_RUN_KIND_EVAL)
			count_skill(&b, &out->skills[i]);
		else
			out->changed++;
	out->run_failures = sc_xcalloc(r->gate.nfailures + 1, sizeof(*out->run_failures));
	for (size_t i = 0; i < r->gate.nfailures; i++) {
		const struct sc_results_gate_failure *f = &r->gate.failures[i];
		if (f->skill && *f->skill && sc_results_find_skill(r, f->skill))
			continue;
		out->run_failures[out->nrun_failures++] = f;
	}
	if (out->state == SC_VERDICT_ERROR)
		out->cause = run_cause(r, &out->cause_unit);
	notes(&b, &reasons, &nreasons);
	out->reasons = reasons;
	out->nreasons = nreasons;
	out->checked = checked_line(out);
	out->headline = out->kind == SC_RUN_KIND_EVAL ? eval_headline(out) : run_headline(out, r);
	free(skills);
	free(b.checks.v);
	free(b.failures.v);
	free(b.units.v);
	free(b.aggregates.v);
	free(b.lifts.v);
}

void sc_verdict_release(struct sc_verdicts *v)
{
	for (size_t i = 0; i < v->nrows; i++) {
		free(v->rows[i].open);
		free(v->rows[i].loose);
		free(v->rows[i].why);
	}
	free(v->rows);
	free(v->skills);
	free(v->run_failures);
	free(v->notes);
	for (size_t i = 0; i < v->nreasons; i++)
		free(v->reasons[i]);
	free(v->reasons);
	free(v->cause);
	free(v->headline);
	free(v->checked);
	memset(v, 0, sizeof(*v));
}

size_t sc_verdict_rows_of(const struct sc_verdicts *v, const char *path,
			  const struct sc_verdict_row **first)
{
	size_t lo = 0, hi = v->nskills;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(v->skills[mid].skill->path, path) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == v->nskills || strcmp(v->skills[lo].skill->path, path)) {
		*first = NULL;
		return 0;
	}
	*first = &v->rows[v->skills[lo].first_row];
	return v->skills[lo].nrows;
}
