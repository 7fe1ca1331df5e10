/*
 * The gate (see gate.h): one pass over the changed skills of a results
 * model, every check recorded with its outcome and reason, a failure per
 * broken rule, the verdict written back.
 */
#include "common.h"
#include "par.h"
#include "stats.h"
#include "pipeline/config.h"
#include "pipeline/gate.h"
#include "pipeline/sequential.h"
#include "results/compare.h"
#include "results/results.h"
#include "results/verdict.h"

#include <math.h>

/*
 * One check the design decides (sequential.h): a modified skill's pass
 * rate, base against head, or an added skill's lift, no skill against
 * the skill (a "drop" is the skill doing worse than no skill). The PR's
 * such checks are the family the design divides alpha over.
 */
struct margin {
	const char *skill, *model;
	enum sc_variant base, head; /* the variants compared */
	struct sc_seq_outcome seq;  /* the decision and the look it was taken at */
	/* what leaves it unverified whatever the design says */
	size_t missing;             /* tests judged at one side only */
	const char *missing_test;   /* the first of them */
	enum sc_variant missing_side;  /* and its empty side */
	size_t unjudged;            /* units recorded "unverified" (nothing to judge them by) */
	const char *unjudged_why;
	int64_t reused, evaluated;  /* the check's units from the store, and evaluated now */
};

/*
 * A measured-value check (tokens, speedup, judge) of one skill x model:
 * the paired per-test statistics of its values (core/stats.h
 * sc_stats_paired_values; "drop" is the direction of a regression: minus
 * log tokens, log speedup, the judge score) against its limit as a margin
 * in those units, and the level Holm tests it at over the PR's such
 * checks (SC_GATE_METRIC_SHARE of alpha).
 */
struct metric {
	const char *skill, *model;
	enum sc_check_kind check;
	struct sc_stats_paired st;
	double level;
};

struct gate {
	struct sc_results *r;
	const struct sc_config_gate *g;
	size_t checks_alloc;
	struct margin *margins;     /* every pass_rate and lift check the design decides */
	size_t nmargins, margins_alloc;
	struct sc_seq_design design;  /* the pass-rate decision (sc_gate_design) */
	struct metric *metrics;     /* every tokens, speedup and judge check that compares */
	size_t nmetrics, metrics_alloc, nmetric_tests;  /* ... those with a p-value: Holm's family */
	/* the run's infrastructure errors are over gate.error_share: a check
	 * left without results by them could not be made (the runner's
	 * fault), it is not unverified nor failed (the pull request's) */
	bool share_failed;
};

/* Whether a side's missing results are the run's outage (share_failed
 * and the side's units erred). */
static bool outage(const struct gate *gt, const struct sc_results_aggregate *a)
{
	return gt->share_failed && a && a->errors > 0;
}

/*
 * Adds one check to r's gate. A check that blocks the merge (failed,
 * error, or unverified and not accepted by the trusted policy) also
 * becomes a failure of r's gate with its status, and a reason of the
 * skill s.
 */
static void vadd_check(struct gate *gt, struct sc_results_skill *s, const char *skill,
		       const char *model, enum sc_check_kind check, enum sc_check_status status, bool accepted,
		       const char *rule, const char *file, int64_t line, const char *fmt, va_list ap)
{
	struct sc_results *r = gt->r;
	struct sc_results_check *c;
	struct sc_buf msg = SC_BUF_INIT;

	sc_buf_vprintf(&msg, fmt, ap);
	SC_GROW(r->gate.checks, gt->checks_alloc, r->gate.nchecks + 1);
	c = &r->gate.checks[r->gate.nchecks++];
	memset(c, 0, sizeof(*c));
	c->skill = sc_xstrdup(skill);
	c->model = sc_xstrdup(model ? model : "");
	c->check = check;
	c->status = status;
	c->accepted = accepted;
	c->rule = rule ? sc_xstrdup(rule) : NULL;
	c->file = file ? sc_xstrdup(file) : NULL;
	c->line = line;
	c->message = sc_buf_detach(&msg, NULL);
	if (status == SC_STATUS_UNVERIFIED)
		r->gate.unverified++;
	if (!sc_gate_check_blocks(c))
		return;
	/* the failure behind it, and the skill's reasons */
	{
		struct sc_results_gate_failure *f;
		r->gate.failures = sc_xrealloc(r->gate.failures,
					       (r->gate.nfailures + 1) * sizeof(*r->gate.failures));
		f = &r->gate.failures[r->gate.nfailures++];
		memset(f, 0, sizeof(*f));
		f->status = status;
		f->skill = sc_xstrdup(skill);
		f->model = sc_xstrdup(model ? model : "");
		f->rule = sc_xstrdup(rule ? rule : sc_check_kind_name(check));
		f->check = check;
		f->message = sc_xstrdup(c->message);
		f->file = file ? sc_xstrdup(file) : NULL;
		f->line = line;
	}
	if (s) {
		struct sc_buf reason = SC_BUF_INIT;
		sc_buf_printf(&reason, "%s%s%s", model && *model ? model : "", model && *model ? ": " : "",
			      c->message);
		s->gate_reasons = sc_xrealloc(s->gate_reasons,
					      (s->ngate_reasons + 1) * sizeof(*s->gate_reasons));
		s->gate_reasons[s->ngate_reasons++] = sc_buf_detach(&reason, NULL);
		s->gate_passed = false;
	}
}

bool sc_gate_check_blocks(const struct sc_results_check *c)
{
	return c->status == SC_STATUS_FAILED || c->status == SC_STATUS_ERROR ||
	       (c->status == SC_STATUS_UNVERIFIED && !c->accepted);
}

static void record(struct gate *gt, struct sc_results_skill *s, const char *skill,
		   const char *model, enum sc_check_kind check, enum sc_check_status status, const char *rule,
		   const char *fmt, ...) __attribute__((format(printf, 8, 9)));
static void record(struct gate *gt, struct sc_results_skill *s, const char *skill,
		   const char *model, enum sc_check_kind check, enum sc_check_status status, const char *rule,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd_check(gt, s, skill, model, check, status, false, rule, NULL, 0, fmt, ap);
	va_end(ap);
}

static void pass(struct gate *gt, struct sc_results_skill *s, const char *model, enum sc_check_kind check,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void skip(struct gate *gt, struct sc_results_skill *s, const char *model, enum sc_check_kind check,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void fail(struct gate *gt, struct sc_results_skill *s, const char *model, enum sc_check_kind check,
		 const char *rule, const char *file, int64_t line, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));
static void unverified(struct gate *gt, struct sc_results_skill *s, const char *model, enum sc_check_kind check, const char *rule, bool accepted, const char *fmt, ...)
	__attribute__((format(printf, 7, 8)));
static void infra_error(struct gate *gt, struct sc_results_skill *s, const char *model, enum sc_check_kind check,
		  const char *rule, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

static void pass(struct gate *gt, struct sc_results_skill *s, const char *model, enum sc_check_kind check,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd_check(gt, s, s->path, model, check, SC_STATUS_PASSED, false, NULL, NULL, 0, fmt, ap);
	va_end(ap);
}

static void skip(struct gate *gt, struct sc_results_skill *s, const char *model, enum sc_check_kind check,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd_check(gt, s, s->path, model, check, SC_STATUS_SKIPPED, false, NULL, NULL, 0, fmt, ap);
	va_end(ap);
}

static void fail(struct gate *gt, struct sc_results_skill *s, const char *model, enum sc_check_kind check,
		 const char *rule, const char *file, int64_t line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd_check(gt, s, s->path, model, check, SC_STATUS_FAILED, false, rule, file, line, fmt, ap);
	va_end(ap);
}

/* A check that could not be decided: never green; it blocks the merge
 * unless accepted (the trusted policy says so: gate.accept_unverified,
 * gate.allow_untested, gate.compile_only). */
static void unverified(struct gate *gt, struct sc_results_skill *s, const char *model, enum sc_check_kind check, const char *rule, bool accepted, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd_check(gt, s, s->path, model, check, SC_STATUS_UNVERIFIED, accepted, rule, s->skill_md, 0, fmt,
		   ap);
	va_end(ap);
}

/* A check the runner could not make: its fault, not the pull request's (exit 3). */
static void infra_error(struct gate *gt, struct sc_results_skill *s, const char *model, enum sc_check_kind check,
		  const char *rule, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd_check(gt, s, s->path, model, check, SC_STATUS_ERROR, false, rule, NULL, 0, fmt, ap);
	va_end(ap);
}

void sc_gate_clear(struct sc_results *r)
{
	for (size_t i = 0; i < r->gate.nfailures; i++)
		sc_results_failure_release(&r->gate.failures[i]);
	free(r->gate.failures);
	r->gate.failures = NULL;
	r->gate.nfailures = 0;
	for (size_t i = 0; i < r->gate.nchecks; i++)
		sc_results_check_release(&r->gate.checks[i]);
	free(r->gate.checks);
	r->gate.checks = NULL;
	r->gate.nchecks = 0;
	for (size_t s = 0; s < r->nskills; s++) {
		for (size_t i = 0; i < r->skills[s].ngate_reasons; i++)
			free(r->skills[s].gate_reasons[i]);
		free(r->skills[s].gate_reasons);
		r->skills[s].gate_reasons = NULL;
		r->skills[s].ngate_reasons = 0;
		r->skills[s].gate_passed = true;
	}
	r->gate.passed = true;
	r->gate.exit_code = 0;
	r->gate.verdict = SC_VERDICT_PASS;
	r->gate.unverified = 0;
}

/* An aggregate with something to judge: at least one pass/fail unit. */
static bool judged(const struct sc_results_aggregate *a)
{
	return a && a->n > 0 && !isnan(a->pass_rate);
}

/* "60%" */
static double pct(double rate)
{
	return rate * 100.0;
}

/* Why an aggregate has no pass rate: "no pass/fail units at head (4 skipped)". */
static void no_rate(struct sc_buf *out, const char *side, const struct sc_results_aggregate *a)
{
	sc_buf_printf(out, "no pass/fail units at %s", side);
	if (a && (a->skipped || a->errors)) {
		sc_buf_puts(out, " (");
		if (a->skipped)
			sc_buf_printf(out, "%lld skipped", (long long)a->skipped);
		if (a->skipped && a->errors)
			sc_buf_puts(out, ", ");
		if (a->errors)
			sc_buf_printf(out, "%lld infrastructure error%s", (long long)a->errors,
				      a->errors == 1 ? "" : "s");
		sc_buf_puts(out, ")");
	}
}

/* validity: the head's Agent Skills errors, new ones or (fail_on_existing) all. */
static void check_validity(struct gate *gt, struct sc_results_skill *s)
{
	const struct sc_results_finding *first = NULL;
	size_t existing = 0, fixed = 0, failing = 0;

	for (size_t i = 0; i < s->nfindings; i++) {
		const struct sc_results_finding *f = &s->findings[i];
		bool fails;
		if (f->severity != SC_SEV_ERROR)
			continue;
		existing += f->state == SC_FINDING_EXISTING;
		fixed += f->state == SC_FINDING_FIXED;
		fails = f->state == SC_FINDING_NEW ||
			(gt->g->fail_on_existing && f->state == SC_FINDING_EXISTING);
		if (fails && !failing++)
			first = f;
	}
	if (failing) {
		struct sc_buf where = SC_BUF_INIT;
		sc_buf_puts(&where, first->file ? first->file : s->path);
		if (first->line > 0)
			sc_buf_printf(&where, ":%lld", (long long)first->line);
		fail(gt, s, NULL, SC_CHECK_VALIDITY, "skill_invalid", first->file, first->line,
		     "%s: %s%s%s%s (%s error at head%s)", where.ptr, first->message ? first->message : "",
		     first->code && *first->code ? " [" : "", first->code ? first->code : "",
		     first->code && *first->code ? "]" : "",
		     first->state == SC_FINDING_NEW ? "a new" : "a pre-existing",
		     failing > 1 ? "; more below" : "");
		sc_buf_release(&where);
		return;
	}
	if (existing)
		pass(gt, s, NULL, SC_CHECK_VALIDITY,
		     "%zu pre-existing error%s at base and head, not failing (gate.fail_on_existing is "
		     "false)%s", existing, existing == 1 ? "" : "s", fixed ? "; some errors fixed" : "");
	else if (fixed)
		pass(gt, s, NULL, SC_CHECK_VALIDITY, "no errors at head; %zu error%s at base fixed", fixed,
		     fixed == 1 ? "" : "s");
	else
		pass(gt, s, NULL, SC_CHECK_VALIDITY, "no errors at head");
}

void sc_gate_design(struct sc_seq_design *out, const struct sc_config_gate *g, size_t family)
{
	sc_seq_design_init(out, sc_gate_pass_rate_alpha(g), g->beta, g->pass_rate_drop_points / 100.0,
			   g->regression_points / 100.0, g->first_runs, g->max_runs, family);
}

/*
 * True when s is judged as a new skill is (against no skill, not against
 * a base): an added skill, or one whose head adds the first tests of a
 * skill the base had without tests (first_tests: they cannot regress
 * against nothing; docs/run.md, "First tests").
 */
static bool judged_as_new(const struct sc_results_skill *s)
{
	return s->status == SC_SKILL_ADDED || s->first_tests;
}

/*
 * What leaves a check unverified whatever its statistics say: a test
 * judged at one side only (the other side's units all erred: the
 * infrastructure, after its retries), and units recorded "unverified"
 * (a test skillci cannot judge on this runner). Counts its units taken
 * from the store and evaluated now too.
 */
static void evidence(struct margin *m, const struct sc_results *r)
{
	size_t first, count = sc_results_units_of(r, m->skill, m->model, &first);
	size_t *test_of = sc_xmalloc((count ? count : 1) * sizeof(*test_of));
	size_t n = sc_seq_units_by_test(r, m->skill, m->model, m->base, m->head, -1, first, count,
					test_of);
	unsigned long *judged = sc_xcalloc(2 * (n ? n : 1), sizeof(*judged));
	unsigned long *erred = sc_xcalloc(2 * (n ? n : 1), sizeof(*erred));
	const char **ids = sc_xcalloc(n ? n : 1, sizeof(*ids));

	for (size_t k = 0; k < count; k++) {
		const struct sc_results_unit *u = &r->units[first + k];
		size_t t = test_of[k], side;
		if (t == SIZE_MAX)
			continue;
		side = u->variant == m->head;
		ids[t] = u->test_id;
		if (u->reused)
			m->reused++;
		else if (u->verdict != SC_UNIT_SKIPPED)
			m->evaluated++;
		if (u->verdict == SC_UNIT_PASS || u->verdict == SC_UNIT_FAIL)
			judged[2 * t + side]++;
		else if (u->verdict == SC_UNIT_ERROR)
			erred[2 * t + side]++;
		else if (u->verdict == SC_UNIT_UNVERIFIED && !m->unjudged++)
			m->unjudged_why = u->message ? u->message : "a test skillci cannot judge here";
	}
	for (size_t t = 0; t < n; t++) {
		bool b = judged[2 * t] > 0, h = judged[2 * t + 1] > 0;
		if (b == h || !(erred[2 * t] + erred[2 * t + 1]))
			continue;
		if (!m->missing++) {
			m->missing_test = ids[t];
			m->missing_side = b ? m->head : m->base;
		}
	}
	free(test_of);
	free(judged);
	free(erred);
	free(ids);
}

/* The fewest checks worth a part of their own (core/par.h). */
#define GATE_PART_MIN 64

/* The design replayed on margins [lo, hi), and their evidence: each
 * margin's own, from the units alone (the parts share nothing else). */
static void replay_part(void *arg, size_t p, size_t lo, size_t hi)
{
	struct gate *gt = arg;

	(void)p;
	for (size_t i = lo; i < hi; i++) {
		struct margin *m = &gt->margins[i];
		sc_seq_replay_of(&m->seq, gt->r, m->skill, m->model, m->base, m->head, &gt->design);
		evidence(m, gt->r);
	}
}

/*
 * The checks the design decides for the PR: every changed, tested skill
 * x model with a head result, a modified or moved one against its base,
 * an added one (gate.require_lift) against no skill; each replays its
 * looks on the units (sequential.h), so report and merge decide as the
 * run did. The family is the PR's such checks as planned (a shard sees
 * part of them).
 */
static void plan_margins(struct gate *gt)
{
	struct sc_results *r = gt->r;
	size_t family;

	for (size_t si = 0; si < r->nskills; si++) {
		const struct sc_results_skill *s = &r->skills[si];
		size_t first = 0, n;
		bool added = judged_as_new(s);
		if (s->status == SC_SKILL_UNCHANGED || s->status == SC_SKILL_DELETED || s->untested ||
		    (added && !gt->g->require_lift))
			continue;
		n = sc_results_aggregates_range(r, s->path, &first);
		for (size_t i = first; i < first + n; i++) {
			const struct sc_results_aggregate *a = &r->aggregates[i];
			enum sc_variant other = added ? SC_VARIANT_BASELINE : SC_VARIANT_BASE;
			struct margin *m;
			if (a->variant != SC_VARIANT_HEAD || !judged(a) ||
			    !judged(sc_results_find_aggregate(r, s->path, other, a->model)))
				continue;
			SC_GROW(gt->margins, gt->margins_alloc, gt->nmargins + 1);
			m = &gt->margins[gt->nmargins++];
			memset(m, 0, sizeof(*m));
			m->skill = s->path;
			m->model = a->model;
			m->base = other;
			m->head = SC_VARIANT_HEAD;
		}
	}
	family = gt->g->planned_checks > gt->nmargins ? gt->g->planned_checks : gt->nmargins;
	{
		/* How the units were collected is a fact of the run, not policy:
		 * a run that recorded no sequential design (an older file, or
		 * gate.max_runs 0) and a run count is a fixed design of those
		 * runs, whatever the policy applied to it samples; a fixed
		 * design's runs are the run's (`runs`, --runs N). */
		struct sc_config_gate g = *gt->g;
		if (r->run.runs > 0 && (!r->run.trust.gate.present || r->run.trust.gate.max_runs <= 0))
			g.max_runs = 0;
		if (g.max_runs <= 0 && r->run.runs > 0)
			g.first_runs = (int)r->run.runs;
		sc_gate_design(&gt->design, &g, family);
	}
	sc_par_for(gt->nmargins, sc_par_parts(gt->nmargins, GATE_PART_MIN), replay_part, gt);
}

/* The value a unit gives a measured-value check, in its "drop" direction;
 * NAN when it gives none. */
static double metric_value(enum sc_check_kind check, const struct sc_results_unit *u)
{
	if (check == SC_CHECK_TOKENS) {
		int64_t t = u->tokens_in + u->tokens_out;
		return u->verdict == SC_UNIT_ERROR || t <= 0 ? NAN : -log((double)t);
	}
	if (check == SC_CHECK_SPEEDUP)
		return u->kernel && u->verdict == SC_UNIT_PASS && u->kernel->speedup > 0
			       ? log(u->kernel->speedup) : NAN;
	return u->judge_score;
}

/* The check's limit as a margin in its values' units. */
static double metric_margin(enum sc_check_kind check, const struct sc_config_gate *g)
{
	if (check == SC_CHECK_TOKENS)
		return log1p(g->tokens_rise_pct / 100.0);
	if (check == SC_CHECK_SPEEDUP)
		return g->speedup_drop_ratio < 1 ? -log1p(-g->speedup_drop_ratio) : INFINITY;
	return g->judge_drop;
}

/* The paired statistics of check for skill and model: per test, its
 * units' values at base and at head. */
static void metric_stats(struct metric *m, const struct sc_results *r, const struct sc_config_gate *g)
{
	size_t first, count = sc_results_units_of(r, m->skill, m->model, &first);
	size_t *test_of = sc_xmalloc((count ? count : 1) * sizeof(*test_of));
	size_t n = sc_seq_units_by_test(r, m->skill, m->model, SC_VARIANT_BASE, SC_VARIANT_HEAD, -1, first, count,
					test_of);
	struct sc_stats_sample *b = sc_xcalloc(n ? n : 1, sizeof(*b));
	struct sc_stats_sample *h = sc_xcalloc(n ? n : 1, sizeof(*h));

	for (size_t k = 0; k < count; k++) {
		const struct sc_results_unit *u = &r->units[first + k];
		double x;
		if (test_of[k] != SIZE_MAX && !isnan(x = metric_value(m->check, u)))
			sc_stats_sample_add(u->variant == SC_VARIANT_HEAD ? &h[test_of[k]] : &b[test_of[k]], x);
	}
	if (!n || !sc_stats_paired_values(&m->st, b, h, n, metric_margin(m->check, g),
					  sc_compare_alpha(g->alpha)))
		memset(&m->st, 0, sizeof(m->st));
	free(test_of);
	free(b);
	free(h);
}

/* A new entry of the PR's measured-value checks; the caller fills st. */
static struct metric *add_metric(struct gate *gt, const char *skill, const char *model,
				 enum sc_check_kind check)
{
	struct metric *m;

	SC_GROW(gt->metrics, gt->metrics_alloc, gt->nmetrics + 1);
	m = &gt->metrics[gt->nmetrics++];
	memset(m, 0, sizeof(*m));
	m->skill = skill;
	m->model = model;
	m->check = check;
	return m;
}

/* The statistics of metrics [lo, hi), each its own. */
static void metrics_part(void *arg, size_t p, size_t lo, size_t hi)
{
	struct gate *gt = arg;

	(void)p;
	for (size_t i = lo; i < hi; i++)
		metric_stats(&gt->metrics[i], gt->r, gt->g);
}

/*
 * The family of measured-value checks of the PR (tokens, speedup, judge
 * of every skill x model check_model compares with a base), their
 * statistics, and the level Holm tests each at over the family with
 * SC_GATE_METRIC_SHARE of alpha, so that with the pass-rate checks' share
 * a PR that changed nothing fails any check with probability at most
 * alpha.
 */
static void plan_metrics(struct gate *gt)
{
	static const enum sc_check_kind checks[] = { SC_CHECK_TOKENS, SC_CHECK_SPEEDUP, SC_CHECK_JUDGE };
	struct sc_results *r = gt->r;
	double *p, *lv;

	for (size_t si = 0; si < r->nskills; si++) {
		const struct sc_results_skill *s = &r->skills[si];
		size_t first = 0, n;
		if (s->status == SC_SKILL_UNCHANGED || s->status == SC_SKILL_DELETED || s->untested ||
		    s->status == SC_SKILL_ADDED)
			continue;
		n = sc_results_aggregates_range(r, s->path, &first);
		for (size_t i = first; i < first + n; i++) {
			const struct sc_results_aggregate *a = &r->aggregates[i];
			if (a->variant != SC_VARIANT_HEAD ||
			    !sc_results_find_aggregate(r, s->path, SC_VARIANT_BASE, a->model))
				continue;
			for (size_t c = 0; c < SC_ARRAY_SIZE(checks); c++)
				add_metric(gt, s->path, a->model, checks[c]);
		}
	}
	if (!gt->nmetrics)
		return;
	sc_par_for(gt->nmetrics, sc_par_parts(gt->nmetrics, GATE_PART_MIN), metrics_part, gt);
	p = sc_xmalloc(2 * gt->nmetrics * sizeof(*p));
	lv = p + gt->nmetrics;
	for (size_t i = 0; i < gt->nmetrics; i++) {
		p[i] = gt->metrics[i].st.tests ? gt->metrics[i].st.p_drop : NAN;
		gt->nmetric_tests += !isnan(p[i]);
	}
	sc_stats_holm_levels(p, gt->nmetrics, sc_compare_alpha(gt->g->alpha) * SC_GATE_METRIC_SHARE, lv);
	for (size_t i = 0; i < gt->nmetrics; i++) {
		struct metric *m = &gt->metrics[i];
		m->level = lv[i];
		if (m->st.tests)
			sc_stats_paired_bounds(&m->st, sc_compare_alpha(gt->g->alpha), lv[i]);
	}
	free(p);
}

/*
 * Order of (skill, model) against (skill2, model2). Margins and metrics
 * are planned in the order of the sorted skills and of each skill's
 * aggregates, so both lists are in this order and found by bisection.
 */
static int pair_cmp(const char *skill, const char *model, const char *skill2, const char *model2)
{
	int c = strcmp(skill, skill2);
	return c ? c : strcmp(model, model2);
}

static const struct metric *find_metric(const struct gate *gt, const char *skill, const char *model,
				 enum sc_check_kind check)
{
	size_t lo = 0, hi = gt->nmetrics;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pair_cmp(gt->metrics[mid].skill, gt->metrics[mid].model, skill, model) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < gt->nmetrics && sc_streq(gt->metrics[lo].skill, skill) &&
	       sc_streq(gt->metrics[lo].model, model); lo++)
		if (gt->metrics[lo].check == check)
			return &gt->metrics[lo];
	return NULL;
}

/* The decision of a measured-value check: 1 the regression is shown
 * (p_drop below Holm's level), 0 ruled out (p_within below alpha), -1
 * neither (or nothing to decide on). */
static int metric_decide(const struct gate *gt, const struct metric *m)
{
	if (!m || !m->st.tests || isnan(m->st.p_drop))
		return -1;
	if (!isnan(m->level) && m->st.p_drop < m->level)
		return 1;
	if (m->st.p_within < sc_compare_alpha(gt->g->alpha))
		return 0;
	return -1;
}

/* "; per test, paired: ... over N tests, M replicates; ..." for a message:
 * the estimate and interval (formatted by the caller's fmt_value from the
 * statistic's units) and the level. */
static void metric_how(struct sc_buf *how, const struct gate *gt, const struct metric *m,
		       const char *what, double est, double lo, double hi, const char *unit)
{
	if (!m || !m->st.tests) {
		sc_buf_printf(how, "no test has %s at both base and head", what);
		return;
	}
	if (isnan(m->st.se)) {
		sc_buf_printf(how, "%s per test, paired: %+.1f%s over 1 test with one value a side, "
			      "which cannot tell a change from noise", what, est, unit);
		return;
	}
	sc_buf_printf(how, "%s per test, paired: %+.1f%s, %.0f%% interval [%+.1f%s, %+.1f%s] over %zu "
		      "test%s; a regression shown at alpha %.3g (Holm over %zu token, speedup and judge "
		      "check%s), ruled out at alpha %g", what, est, unit,
		      (1 - 2 * sc_compare_alpha(gt->g->alpha)) * 100, lo, unit, hi, unit, m->st.tests,
		      m->st.tests == 1 ? "" : "s", m->level, gt->nmetric_tests,
		      gt->nmetric_tests == 1 ? "" : "s",
		      sc_compare_alpha(gt->g->alpha));
}

/* Records the decision behind the check just added. */
static void set_margin(struct gate *gt, const struct margin *m)
{
	struct sc_results_check *c = &gt->r->gate.checks[gt->r->gate.nchecks - 1];
	const struct sc_seq_design *d = &gt->design;

	c->margin.present = true;
	c->margin.mean = m->seq.st.tests ? m->seq.st.mean : NAN;
	c->margin.lo = m->seq.st.tests ? m->seq.st.lo : NAN;
	c->margin.hi = m->seq.st.tests ? m->seq.st.hi : NAN;
	c->margin.detectable = d->drop;
	c->margin.tests = (int64_t)m->seq.st.tests;
	c->margin.base_runs = (int64_t)m->seq.base_units;
	c->margin.head_runs = (int64_t)m->seq.head_units;
	c->margin.runs_per_test = m->seq.runs;
	c->margin.rounds = m->seq.look;
	c->margin.decision = sc_seq_decision_result(m->seq.decision);
	c->margin.drop = d->drop;
	c->margin.beta = d->beta;
	c->margin.llr = m->seq.at.info > 0 ? m->seq.at.llr : NAN;
	c->margin.info = m->seq.at.info > 0 ? m->seq.at.info : NAN;
	c->margin.i_max = sc_seq_is_sequential(d) ? d->i_max : NAN;
	c->margin.reused = m->reused;
	c->margin.evaluated = m->evaluated;
}

static const struct margin *find_margin(const struct gate *gt, const char *skill, const char *model)
{
	size_t lo = 0, hi = gt->nmargins;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pair_cmp(gt->margins[mid].skill, gt->margins[mid].model, skill, model) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < gt->nmargins && sc_streq(gt->margins[lo].skill, skill) &&
	       sc_streq(gt->margins[lo].model, model) ? &gt->margins[lo] : NULL;
}

double sc_gate_pass_rate_alpha(const struct sc_config_gate *g)
{
	return sc_compare_alpha(g->alpha) * (1.0 - SC_GATE_METRIC_SHARE);
}

/*
 * The tests the store's history shows flipping at base (flip rate at
 * least SC_GATE_FLAKY over at least two runs), for the pass_rate message:
 * "; test q03 flips 30% at base (10 runs)", the three flakiest, then how
 * many more.
 */
static void flaky_tests(struct sc_buf *out, const struct sc_results *r, const char *skill,
			const char *model)
{
	const struct sc_results_flips *top[3] = { NULL, NULL, NULL };
	size_t more = 0, first, n = sc_results_flips_range(r, skill, SC_VARIANT_BASE, model, &first);

	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_flips *f = &r->flips[i], *x = f;
		if (!sc_streq(f->skill, skill) || !sc_streq(f->model, model) ||
		    f->variant != SC_VARIANT_BASE || !(f->flip_rate >= SC_GATE_FLAKY))
			continue;
		for (size_t k = 0; k < 3 && x; k++)
			if (!top[k] || x->flip_rate > top[k]->flip_rate) {
				const struct sc_results_flips *t = top[k];
				top[k] = x;
				x = t;
			}
		more += x != NULL;
	}
	for (size_t k = 0; k < 3 && top[k]; k++)
		sc_buf_printf(out, "; test %s flips %.0f%% at base (%lld runs)", top[k]->test_id,
			      top[k]->flip_rate * 100, (long long)top[k]->runs);
	if (more)
		sc_buf_printf(out, "; %zu more test%s at base", more,
			      more == 1 ? " flips" : "s flip");
}

/*
 * How a check of the design was decided, for its message: the estimate,
 * its interval, the look, the likelihood ratio against its boundaries,
 * the design's errors, where its units came from.
 */
static void margin_how(struct sc_buf *how, const struct gate *gt, const struct margin *m,
		       const char *what)
{
	const struct sc_seq_design *d = &gt->design;
	const struct sc_stats_paired *st = &m->seq.st;

	sc_buf_printf(how, "%s %+.1f points, %.0f%% interval [%+.1f, %+.1f] over %zu test%s; ", what,
		      st->mean * 100, (1 - 2 * d->alpha_check) * 100, st->lo * 100, st->hi * 100,
		      st->tests, st->tests == 1 ? "" : "s");
	if (sc_seq_is_sequential(d)) {
		sc_buf_printf(how, "sequential: %d run%s per test after %d round%s", m->seq.runs,
			      m->seq.runs == 1 ? "" : "s", m->seq.look, m->seq.look == 1 ? "" : "s");
		if (m->seq.at.info > 0) {
			if (m->seq.at.end)
				sc_buf_printf(how, ", the boundaries met (log likelihood ratio %.2f)",
					      m->seq.at.llr);
			else
				sc_buf_printf(how, ", log likelihood ratio %.2f (passes at %.2f or below, "
					      "fails at %.2f or above)", m->seq.at.llr,
					      m->seq.at.pass_at, m->seq.at.fail_at);
		}
	} else {
		sc_buf_printf(how, "fixed design of %d run%s per test", m->seq.runs,
			      m->seq.runs == 1 ? "" : "s");
	}
	sc_buf_printf(how, "; alpha %.3g over %zu check%s, beta %g, D %g points", d->alpha_check,
		      d->family, d->family == 1 ? "" : "s", d->beta, d->drop * 100);
	if (m->reused)
		sc_buf_printf(how, "; %lld unit%s from the store", (long long)m->reused,
			      m->reused == 1 ? "" : "s");
	flaky_tests(how, gt->r, m->skill, m->model);
}

/*
 * A check of the design (pass_rate or lift), recorded with its decision:
 * failed when a drop is shown (the head below the base, or for a new
 * skill below no skill); passed when a drop of D or more is ruled out;
 * unverified when the design stopped early (gate.max_runs, the budget, a
 * stop), when a test has a result at one side only, or when some units
 * could not be judged; never passed on less than the whole of its tests.
 */
static void decide_margin(struct gate *gt, struct sc_results_skill *s, const char *model,
			  enum sc_check_kind check, const char *rule, const char *unv_rule,
			  const char *summary, const struct margin *m)
{
	const struct sc_config_gate *g = gt->g;
	double D = gt->design.drop * 100, beta = gt->design.beta;
	struct sc_buf how = SC_BUF_INIT;
	enum sc_seq_decision v = m->seq.decision;

	margin_how(&how, gt, m, check != SC_CHECK_LIFT ? "difference" : "skill minus no skill");
	if (v == SC_SEQ_REGRESSION)
		fail(gt, s, model, check, rule, NULL, 0, "%s: a drop is shown (%s)%s", summary,
		     how.ptr, m->missing || m->unjudged ? "; some tests have no result at one side"
		     : "");
	else if (m->unjudged)
		unverified(gt, s, model, check, unv_rule, g->accept_unverified,
			   "%s: %zu unit%s could not be judged (%s), so a drop of %g points or more "
			   "cannot be ruled out (%s)", summary, m->unjudged,
			   m->unjudged == 1 ? "" : "s", m->unjudged_why, D, how.ptr);
	else if (m->missing && gt->share_failed)
		infra_error(gt, s, model, check, unv_rule,
			    "could not check: %s: test '%s'%s has no result at %s (its units failed "
			    "for infrastructure reasons after every retry, and the run's errors are "
			    "over gate.error_share) (%s)", summary, m->missing_test ? m->missing_test : "",
			    m->missing > 1 ? " and others" : "", sc_variant_name(m->missing_side),
			    how.ptr);
	else if (m->missing)
		unverified(gt, s, model, check, unv_rule, g->accept_unverified,
			   "%s: test '%s'%s has no result at %s (its units failed for infrastructure "
			   "reasons after every retry), so a drop of %g points or more cannot be ruled "
			   "out on the whole suite (%s)", summary, m->missing_test ? m->missing_test : "",
			   m->missing > 1 ? " and others" : "", sc_variant_name(m->missing_side), D,
			   how.ptr);
	else if (v == SC_SEQ_RULED_OUT)
		pass(gt, s, model, check, "%s: no drop of %g points or more (one that size is caught "
		     "with probability %g) (%s)", summary, D, 1 - beta, how.ptr);
	else if (!sc_seq_is_sequential(&gt->design))
		unverified(gt, s, model, check, unv_rule, g->accept_unverified,
			   "%s: a fixed design of %d run%s per test shows neither a drop nor the "
			   "absence of a drop of %g points: sample sequentially (gate.max_runs), or "
			   "give more runs or tests (%s)", summary, m->seq.runs,
			   m->seq.runs == 1 ? "" : "s", D, how.ptr);
	else
		unverified(gt, s, model, check, unv_rule, g->accept_unverified,
			   "%s: the design stopped before deciding (%s), so neither a drop nor the "
			   "absence of a drop of %g points is shown: raise gate.max_runs or the budget, "
			   "or add tests (%s)", summary,
			   m->seq.more ? "the run was stopped or its budget ran out"
			   : "gate.max_runs reached", D, how.ptr);
	set_margin(gt, m);
	sc_buf_release(&how);
}

/* pass_rate: head against base, paired per test (decide_margin). */
static void check_pass_rate(struct gate *gt, struct sc_results_skill *s, const char *model,
			    const struct sc_results_aggregate *base,
			    const struct sc_results_aggregate *head)
{
	const struct margin *m = find_margin(gt, s->path, model);
	struct sc_buf sum = SC_BUF_INIT;

	sc_buf_printf(&sum, "pass rate %.0f%% -> %.0f%%", pct(base->pass_rate), pct(head->pass_rate));
	if (!m || !m->seq.st.tests) {
		unverified(gt, s, model, SC_CHECK_PASS_RATE, "pass_rate_unverified", gt->g->accept_unverified,
			   "%s: no test was judged at both base and head, so nothing was compared",
			   sum.ptr);
		if (m)
			set_margin(gt, m);
	} else {
		decide_margin(gt, s, model, SC_CHECK_PASS_RATE, "pass_rate_drop", "pass_rate_unverified",
			      sum.ptr, m);
	}
	sc_buf_release(&sum);
}

/*
 * lift: a new skill against no skill (gate.require_lift), decided as a
 * pass rate is, the baseline as the base: fails when the skill is shown
 * worse than no skill, passes when worse by D or more is ruled out.
 */
static void check_lift(struct gate *gt, struct sc_results_skill *s, const char *model,
		       const struct sc_results_aggregate *baseline,
		       const struct sc_results_aggregate *head)
{
	const struct margin *m = find_margin(gt, s->path, model);
	struct sc_buf sum = SC_BUF_INIT;

	sc_buf_printf(&sum, "new skill passes %.0f%%, %.0f%% without it", pct(head->pass_rate),
		      pct(baseline->pass_rate));
	if (!m || !m->seq.st.tests)
		unverified(gt, s, model, SC_CHECK_LIFT, "lift_unverified", gt->g->accept_unverified,
			   "%s: no test was judged both with the skill and without it", sum.ptr);
	else
		decide_margin(gt, s, model, SC_CHECK_LIFT, "new_skill_no_better", "lift_unverified", sum.ptr,
			      m);
	sc_buf_release(&sum);
}

/*
 * discrimination: an added skill's tests must tell a skill from none. A
 * test counts when some answer of the model passed it, with the skill or
 * without: one nobody passes tells nothing. The no-skill baseline may
 * not pass every counting test, nor more than
 * gate.max_baseline_pass_rate of them; with no counting test at all,
 * nothing shows the tests can tell.
 */
static void check_discrimination(struct gate *gt, struct sc_results_skill *s, const char *model,
				 const struct sc_results_aggregate *baseline)
{
	const struct sc_results *r = gt->r;
	double limit = gt->g->max_baseline_pass_rate, rate;
	size_t first, count = sc_results_units_of(r, s->path, model, &first);
	size_t *test_of = sc_xmalloc((count ? count : 1) * sizeof(*test_of));
	size_t n = sc_seq_units_by_test(r, s->path, model, SC_VARIANT_BASELINE, SC_VARIANT_HEAD, -1, first, count,
					test_of);
	unsigned long *bp = sc_xcalloc(n ? n : 1, sizeof(*bp)), *bn = sc_xcalloc(n ? n : 1, sizeof(*bn));
	unsigned long *hp = sc_xcalloc(n ? n : 1, sizeof(*hp));
	size_t counting = 0, impossible = 0;
	unsigned long passes = 0, runs = 0;
	struct sc_buf why = SC_BUF_INIT;

	for (size_t k = 0; k < count; k++) {
		const struct sc_results_unit *u = &r->units[first + k];
		bool p = u->verdict == SC_UNIT_PASS;
		if (test_of[k] == SIZE_MAX || (!p && u->verdict != SC_UNIT_FAIL))
			continue;
		if (u->variant == SC_VARIANT_BASELINE) {
			bn[test_of[k]]++;
			bp[test_of[k]] += p;
		} else {
			hp[test_of[k]] += p;
		}
	}
	for (size_t t = 0; t < n; t++) {
		if (!bn[t])
			continue;
		if (!bp[t] && !hp[t]) {
			impossible++;
			continue;
		}
		counting++;
		passes += bp[t];
		runs += bn[t];
	}
	rate = runs ? (double)passes / (double)runs : NAN;
	if (impossible)
		sc_buf_printf(&why, "; %zu test%s no answer passed, with the skill or without, %s "
			      "nothing and %s left out", impossible, impossible == 1 ? "" : "s",
			      impossible == 1 ? "tells" : "tell", impossible == 1 ? "is" : "are");
	if (!judged(baseline) && outage(gt, baseline)) {
		struct sc_buf none = SC_BUF_INIT;
		no_rate(&none, "baseline (no skill)", baseline);
		infra_error(gt, s, model, SC_CHECK_DISCRIMINATION, "baseline_no_result",
			    "could not check whether the tests tell the skill from no skill: %s",
			    none.ptr);
		sc_buf_release(&none);
	} else if (!judged(baseline)) {
		struct sc_buf none = SC_BUF_INIT;
		no_rate(&none, "baseline (no skill)", baseline);
		fail(gt, s, model, SC_CHECK_DISCRIMINATION, "baseline_no_result", NULL, 0,
		     "the tests were not shown to tell the skill from no skill: %s", none.ptr);
		sc_buf_release(&none);
	} else if (!counting)
		fail(gt, s, model, SC_CHECK_DISCRIMINATION, "tests_not_discriminating", NULL, 0,
		     "no test was passed by any answer, with the skill or without: the tests cannot "
		     "tell whether the skill works%s", why.ptr);
	else if (rate >= 1 - 1e-12 || rate > limit + 1e-12)
		fail(gt, s, model, SC_CHECK_DISCRIMINATION, "tests_not_discriminating", NULL, 0,
		     "without the skill the model passes %.0f%% of the %zu test%s an answer can pass "
		     "(limit %.0f%%, and never 100%%): the tests cannot tell whether the skill works%s",
		     pct(rate), counting, counting == 1 ? "" : "s", pct(limit), why.ptr);
	else
		pass(gt, s, model, SC_CHECK_DISCRIMINATION, "without the skill the model passes %.0f%% of the "
		     "%zu test%s an answer can pass (limit %.0f%%)%s", pct(rate), counting,
		     counting == 1 ? "" : "s", pct(limit), why.ptr);
	sc_buf_release(&why);
	free(test_of);
	free(bp);
	free(bn);
	free(hp);
}

/*
 * kernel: every kernel test of the head ran on a GPU. Units skipped
 * because nothing could run them (no GPU, a build without CUDA) leave
 * correctness and speed unverified (accepted when the trusted config
 * marks the runner compile-only, gate.compile_only: every report then
 * says no kernel was run); a GPU that was found and still did not run
 * them is the runner's fault: an error (exit 3).
 */
static void check_kernel(struct gate *gt, struct sc_results_skill *s, const char *model)
{
	const struct sc_results *r = gt->r;
	int64_t kernels = 0, unrun = 0;
	const char *why = NULL;
	size_t first, n = sc_results_units_of(r, s->path, model, &first);

	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (!sc_streq(u->skill, s->path) || !sc_streq(u->model, model) ||
		    u->kind != SC_KIND_KERNEL ||
		    !(u->variant == SC_VARIANT_HEAD || u->variant == SC_VARIANT_BASE))
			continue;
		kernels++;
		if (u->verdict == SC_UNIT_SKIPPED) {
			unrun++;
			if (!why && u->message)
				why = u->message;
		}
	}
	if (!kernels)
		return;
	if (!unrun)
		pass(gt, s, model, SC_CHECK_KERNEL, "%lld kernel test units ran on a GPU", (long long)kernels);
	else if (r->run.has_gpu && !gt->g->compile_only)
		infra_error(gt, s, model, SC_CHECK_KERNEL, "kernel_unverified",
			    "%lld of %lld kernel test units could not run although a GPU was found "
			    "(%s): the runner's fault, not the pull request's; check the driver",
			    (long long)unrun, (long long)kernels, why ? why : "no reason given");
	else if (gt->g->compile_only)
		unverified(gt, s, model, SC_CHECK_KERNEL, "kernel_unverified", true,
			   "no kernel was run: %lld of %lld kernel test units only compiled; the "
			   "trusted config marks this runner compile-only (gate.compile_only)",
			   (long long)unrun, (long long)kernels);
	else
		unverified(gt, s, model, SC_CHECK_KERNEL, "kernel_unverified", false,
			   "%lld of %lld kernel test units could not run on a GPU (%s), so correctness "
			   "and speed are unverified; run on a GPU runner, or mark a compile-only runner "
			   "with gate.compile_only in the trusted config", (long long)unrun,
			   (long long)kernels, why ? why : "no usable GPU");
}

/*
 * tokens, speedup, judge: the measured-value checks. Each compares the
 * head's values with the base's per test, paired (plan_metrics), and
 * fails only when a regression beyond its limit is shown at Holm's level
 * over the PR's such checks; passes when one is ruled out at alpha; else
 * it is inconclusive and skipped, as a pass-rate check is (a raw mean
 * moves by more than the limits between two samples of the same
 * student). tokens and judge apply only while the pass rate is flat or
 * worse: more tokens for more passes is no regression.
 */
static void metric_check(struct gate *gt, struct sc_results_skill *s, const char *model,
			 enum sc_check_kind check, const char *rule, const char *summary,
			 const char *how)
{
	int v = metric_decide(gt, find_metric(gt, s->path, model, check));

	if (v == 1)
		fail(gt, s, model, check, rule, NULL, 0, "%s (%s)", summary, how);
	else if (v == 0)
		pass(gt, s, model, check, "%s (%s)", summary, how);
	else
		skip(gt, s, model, check, "inconclusive: %s (%s)", summary, how);
}

/* tokens and judge apply while the pass rate did not rise (or is unknown). */
static bool flat_or_worse_rate(const struct sc_results_aggregate *base,
			       const struct sc_results_aggregate *head)
{
	return !judged(base) || !judged(head) || head->pass_rate - base->pass_rate <= 1e-12;
}

static void check_tokens(struct gate *gt, struct sc_results_skill *s, const char *model,
			 const struct sc_results_aggregate *base,
			 const struct sc_results_aggregate *head)
{
	const struct sc_config_gate *g = gt->g;
	const struct metric *m = find_metric(gt, s->path, model, SC_CHECK_TOKENS);
	double rise = sc_compare_pct_change(base->mean_tokens, head->mean_tokens);
	bool flat_or_worse = flat_or_worse_rate(base, head);
	struct sc_buf how = SC_BUF_INIT, sum = SC_BUF_INIT;
	int v = metric_decide(gt, m);

	if (isnan(rise)) {
		skip(gt, s, model, SC_CHECK_TOKENS, "no mean token counts at base and head to compare");
		return;
	}
	if (!flat_or_worse) {
		pass(gt, s, model, SC_CHECK_TOKENS, "mean tokens %.0f -> %.0f (%+.0f%%; limit +%g%% applies "
		     "only when the pass rate is flat or worse; it rose)", base->mean_tokens,
		     head->mean_tokens, rise, g->tokens_rise_pct);
		return;
	}
	/* the statistic is minus log tokens: its "drop" is a rise */
	if (m && m->st.tests)
		metric_how(&how, gt, m, "geometric-mean tokens", (exp(-m->st.mean) - 1) * 100,
			   (exp(-m->st.hi) - 1) * 100, (exp(-m->st.lo) - 1) * 100, "%");
	else
		metric_how(&how, gt, m, "tokens", 0, 0, 0, "%");
	if (v == 1)
		sc_buf_printf(&sum, "mean tokens rose %.0f%% (%.0f to %.0f, more than %g%%) with the pass "
			      "rate flat or worse", rise, base->mean_tokens, head->mean_tokens,
			      g->tokens_rise_pct);
	else if (v == 0)
		sc_buf_printf(&sum, "mean tokens %.0f -> %.0f (%+.0f%%); a rise beyond +%g%% is ruled out",
			      base->mean_tokens, head->mean_tokens, rise, g->tokens_rise_pct);
	else
		sc_buf_printf(&sum, "mean tokens %.0f -> %.0f (%+.0f%%); a rise beyond +%g%% with the "
			      "pass rate flat or worse is neither shown nor ruled out",
			      base->mean_tokens, head->mean_tokens, rise, g->tokens_rise_pct);
	metric_check(gt, s, model, SC_CHECK_TOKENS, "tokens_rise", sum.ptr, how.ptr);
	sc_buf_release(&how);
	sc_buf_release(&sum);
}

static void check_speedup(struct gate *gt, struct sc_results_skill *s, const char *model,
			  const struct sc_results_aggregate *base,
			  const struct sc_results_aggregate *head)
{
	const struct sc_config_gate *g = gt->g;
	const struct metric *m = find_metric(gt, s->path, model, SC_CHECK_SPEEDUP);
	double ratio = sc_compare_ratio(base->speedup_geomean, head->speedup_geomean);
	struct sc_buf how = SC_BUF_INIT, sum = SC_BUF_INIT;
	char strong[160] = "";
	int v = metric_decide(gt, m);

	if (isnan(ratio)) {
		skip(gt, s, model, SC_CHECK_SPEEDUP, "no kernel speedup at both base and head (no kernel tests, "
		     "or none passed, or no GPU)");
		return;
	}
	/* the gate compares the naive baselines (every fixture has one); the
	 * strong references are shown beside them, not gated */
	if (!isnan(base->strong_speedup_geomean) || !isnan(head->strong_speedup_geomean))
		snprintf(strong, sizeof(strong), "; over the strong references (shown, not gated) %.2fx -> %.2fx",
			 base->strong_speedup_geomean, head->strong_speedup_geomean);
	if (m && m->st.tests)
		metric_how(&how, gt, m, "speedup", (exp(m->st.mean) - 1) * 100,
			   (exp(m->st.lo) - 1) * 100, (exp(m->st.hi) - 1) * 100, "%");
	else
		metric_how(&how, gt, m, "speedups", 0, 0, 0, "%");
	sc_buf_printf(&sum, "kernel speedup over the fixtures' naive baselines (geomean, what the gate "
		      "compares) %s %.2fx to %.2fx (ratio %.2f, limit %.2f)%s",
		      v == 1 ? "fell from" : "went from", base->speedup_geomean, head->speedup_geomean,
		      ratio, 1 - g->speedup_drop_ratio, strong);
	if (v == 0)
		sc_buf_printf(&sum, "; a fall beyond the limit is ruled out");
	else if (v != 1)
		sc_buf_printf(&sum, "; a fall beyond the limit is neither shown nor ruled out");
	metric_check(gt, s, model, SC_CHECK_SPEEDUP, "speedup_drop", sum.ptr, how.ptr);
	sc_buf_release(&how);
	sc_buf_release(&sum);
}

static void check_judge(struct gate *gt, struct sc_results_skill *s, const char *model,
			const struct sc_results_aggregate *base,
			const struct sc_results_aggregate *head)
{
	const struct sc_config_gate *g = gt->g;
	const struct metric *m = find_metric(gt, s->path, model, SC_CHECK_JUDGE);
	bool flat_or_worse = flat_or_worse_rate(base, head);
	struct sc_buf how = SC_BUF_INIT, sum = SC_BUF_INIT;
	int v = metric_decide(gt, m);

	if (isnan(base->judge_mean) || isnan(head->judge_mean)) {
		skip(gt, s, model, SC_CHECK_JUDGE, "no judge scores at base and head (no judge configured)");
		return;
	}
	if (!flat_or_worse) {
		pass(gt, s, model, SC_CHECK_JUDGE, "judge score %.2f -> %.2f (limit -%.2f applies only when the "
		     "pass rate is flat or worse; it rose)", base->judge_mean, head->judge_mean,
		     g->judge_drop);
		return;
	}
	if (m && m->st.tests)
		metric_how(&how, gt, m, "judge score", m->st.mean * 100, m->st.lo * 100, m->st.hi * 100,
			   " hundredths");
	else
		metric_how(&how, gt, m, "judge scores", 0, 0, 0, "");
	sc_buf_printf(&sum, "judge score %s %.2f to %.2f (limit -%.2f) with the pass rate flat or worse",
		      v == 1 ? "fell from" : "went from", base->judge_mean, head->judge_mean,
		      g->judge_drop);
	if (v == 0)
		sc_buf_printf(&sum, "; a fall beyond the limit is ruled out");
	else if (v != 1)
		sc_buf_printf(&sum, "; a fall beyond the limit is neither shown nor ruled out");
	metric_check(gt, s, model, SC_CHECK_JUDGE, "judge_drop", sum.ptr, how.ptr);
	sc_buf_release(&how);
	sc_buf_release(&sum);
}

/* errors: the run's share of infrastructure errors, blamed on the pairs that have some. */
static void check_errors(struct gate *gt, struct sc_results_skill *s, const char *model,
			 bool share_failed)
{
	const struct sc_results *r = gt->r;
	int64_t errors = 0, units = 0, aside = 0;
	size_t first, n = sc_results_units_of(r, s->path, model, &first);

	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (!sc_streq(u->skill, s->path) || !sc_streq(u->model, model))
			continue;
		if (!sc_results_unit_decides(r, u)) {
			aside += u->verdict == SC_UNIT_ERROR;
			continue;
		}
		units++;
		errors += u->verdict == SC_UNIT_ERROR;
	}
	if (share_failed && errors)
		infra_error(gt, s, model, SC_CHECK_ERRORS, "error_share",
			    "could not check: %lld of %lld units failed for infrastructure reasons; the "
			    "run has %.0f%% infrastructure errors, more than %.0f%% (gate.error_share): "
			    "the runner's fault, not the pull request's; run it again",
			    (long long)errors, (long long)units, r->gate.error_share * 100,
			    gt->g->error_share * 100);
	else
		pass(gt, s, model, SC_CHECK_ERRORS, "%lld of %lld units failed for infrastructure reasons "
		     "(the run: %.0f%%, limit %.0f%%)%s", (long long)errors, (long long)units,
		     r->gate.error_share * 100, gt->g->error_share * 100,
		     aside ? "; errors of units that decide nothing (the no-skill baseline of a "
			     "changed skill, the head's own tests) are not counted" : "");
}

/*
 * Whether a missing pass rate is excused: the trusted config marks the
 * runner compile-only and the skill's units for model include kernel
 * tests that were only compiled (the kernel check says so).
 */
static bool compile_only_excuse(const struct gate *gt, const struct sc_results_skill *s,
				const char *model)
{
	size_t first, n;

	if (!gt->g->compile_only)
		return false;
	n = sc_results_units_of(gt->r, s->path, model, &first);
	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_unit *u = &gt->r->units[i];
		if (sc_streq(u->skill, s->path) && sc_streq(u->model, model) &&
		    u->kind == SC_KIND_KERNEL && u->verdict == SC_UNIT_SKIPPED)
			return true;
	}
	return false;
}

/* The checks of one changed skill and one model with head units. */
static void check_model(struct gate *gt, struct sc_results_skill *s, const char *model,
			bool share_failed)
{
	struct sc_results *r = gt->r;
	const struct sc_config_gate *g = gt->g;
	const struct sc_results_aggregate *head = sc_results_find_aggregate(r, s->path, SC_VARIANT_HEAD, model);
	const struct sc_results_aggregate *base = sc_results_find_aggregate(r, s->path, SC_VARIANT_BASE, model);
	const struct sc_results_aggregate *baseline =
		sc_results_find_aggregate(r, s->path, SC_VARIANT_BASELINE, model);
	bool added = judged_as_new(s);
	bool excused = compile_only_excuse(gt, s, model);
	struct sc_buf why = SC_BUF_INIT;

	/* no result at one side: never a silent pass, and not the pull
	 * request's fault either (every unit skipped or erred) */
	if (excused && (!judged(head) || (!added && !judged(base)))) {
		no_rate(&why, judged(head) ? "base" : "head", judged(head) ? base : head);
		unverified(gt, s, model, SC_CHECK_PASS_RATE, "pass_rate_unverified", true,
			   "%s: no kernel was run (gate.compile_only)", why.ptr);
	} else if (s->first_tests)
		skip(gt, s, model, SC_CHECK_PASS_RATE, "tests added: they judge later PRs (the base had none, "
		     "so there is nothing to regress from; the lift check compares the skill with no "
		     "skill on them)");
	else if (added)
		skip(gt, s, model, SC_CHECK_PASS_RATE, "new skill: no base to compare with (the lift check "
		     "compares it with no skill)");
	else if (!base)
		unverified(gt, s, model, SC_CHECK_PASS_RATE, "base_no_result", g->accept_unverified,
			   "no base results to compare with (the base has no tests, could not be read, "
			   "or its units did not run), so nothing was compared");
	else if (!judged(head) && outage(gt, head)) {
		no_rate(&why, "head", head);
		infra_error(gt, s, model, SC_CHECK_PASS_RATE, "head_no_result",
			    "could not check: the head has no result, so nothing was compared: %s",
			    why.ptr);
	} else if (!judged(head)) {
		no_rate(&why, "head", head);
		unverified(gt, s, model, SC_CHECK_PASS_RATE, "head_no_result", g->accept_unverified,
			   "the head has no result%s%.0f%s, so nothing was compared: %s",
			   judged(base) ? " where the base passed " : "",
			   judged(base) ? pct(base->pass_rate) : 0.0, judged(base) ? "%" : "", why.ptr);
	} else if (!judged(base) && outage(gt, base)) {
		no_rate(&why, "base", base);
		infra_error(gt, s, model, SC_CHECK_PASS_RATE, "base_no_result",
			    "could not check: the head cannot be compared with the base, so nothing "
			    "was compared: %s", why.ptr);
	} else if (!judged(base)) {
		no_rate(&why, "base", base);
		unverified(gt, s, model, SC_CHECK_PASS_RATE, "base_no_result", g->accept_unverified,
			   "the head cannot be compared with the base, so nothing was compared: %s",
			   why.ptr);
	} else
		check_pass_rate(gt, s, model, base, head);
	if (added) {
		sc_buf_clear(&why);
		if (!g->require_lift)
			skip(gt, s, model, SC_CHECK_LIFT, "gate.require_lift is false");
		else if ((!judged(head) && outage(gt, head)) ||
			 (!judged(baseline) && outage(gt, baseline))) {
			no_rate(&why, judged(head) ? "baseline (no skill)" : "head",
				judged(head) ? baseline : head);
			infra_error(gt, s, model, SC_CHECK_LIFT, "lift_no_result",
				    "could not check: the new skill was not compared with no skill: %s",
				    why.ptr);
		} else if (!judged(head) || !judged(baseline)) {
			no_rate(&why, judged(head) ? "baseline (no skill)" : "head",
				judged(head) ? baseline : head);
			unverified(gt, s, model, SC_CHECK_LIFT, "lift_no_result", excused || g->accept_unverified,
				   "the new skill was not compared with no skill: %s%s", why.ptr,
				   excused ? " (no kernel was run: gate.compile_only)" : "");
		} else
			check_lift(gt, s, model, baseline, head);
		if (excused && !judged(baseline))
			unverified(gt, s, model, SC_CHECK_DISCRIMINATION, "baseline_no_result", true,
				   "no pass/fail units without the skill: no kernel was run "
				   "(gate.compile_only)");
		else
			check_discrimination(gt, s, model, baseline);
	}
	if (base) {
		check_tokens(gt, s, model, base, head);
		check_speedup(gt, s, model, base, head);
		check_judge(gt, s, model, base, head);
	} else {
		const char *why_not = s->first_tests ? "tests added: no base results on them"
				      : added ? "new skill: no base to compare with"
				      : "no base results to compare with";
		skip(gt, s, model, SC_CHECK_TOKENS, "%s", why_not);
		skip(gt, s, model, SC_CHECK_SPEEDUP, "%s", why_not);
		skip(gt, s, model, SC_CHECK_JUDGE, "%s", why_not);
	}
	check_kernel(gt, s, model);
	check_errors(gt, s, model, share_failed);
	sc_buf_release(&why);
}

/*
 * deleted: a skill of the base gone at head is a check of its own. It
 * passes only when the trusted config allows deletions
 * (gate.allow_deletions) or the pull request carries the label the
 * trusted config names (gate.deletion_label; labels come from the event,
 * and only people with triage rights set them).
 */
static void check_deleted(struct gate *gt, struct sc_results_skill *s)
{
	const struct sc_config_gate *g = gt->g;

	if (g->allow_deletions)
		pass(gt, s, NULL, SC_CHECK_DELETED, "deleted at head; allowed: the trusted config sets "
		     "gate.allow_deletions");
	else if (g->deletion_label[0] && g->deletion_labelled)
		pass(gt, s, NULL, SC_CHECK_DELETED, "deleted at head; allowed: the pull request carries "
		     "the label '%s' (gate.deletion_label)", g->deletion_label);
	else if (g->deletion_label[0])
		fail(gt, s, NULL, SC_CHECK_DELETED, "skill_deleted", s->skill_md, 0,
		     "the skill '%s' was deleted at head and nothing allows it: add the label '%s' to "
		     "the pull request, or set gate.allow_deletions in the trusted config",
		     s->name ? s->name : s->path, g->deletion_label);
	else
		fail(gt, s, NULL, SC_CHECK_DELETED, "skill_deleted", s->skill_md, 0,
		     "the skill '%s' was deleted at head and nothing allows it: set "
		     "gate.allow_deletions or gate.deletion_label in the trusted config",
		     s->name ? s->name : s->path);
}

/*
 * A changed skill with no tests at base nor head: only its validity was
 * checked, nothing shows it works. The check is unverified ("no tests"),
 * which blocks the merge unless the trusted config accepts untested
 * skills (gate.allow_untested); the head's own setting is not applied.
 */
static void check_untested(struct gate *gt, struct sc_results_skill *s)
{
	bool added = s->status == SC_SKILL_ADDED;

	unverified(gt, s, NULL, SC_CHECK_TESTS, "skill_untested", gt->g->allow_untested,
		   "unverified: no tests: the %sskill '%s' has no tests%s, so only its validity was "
		   "checked%s", added ? "new " : "", s->name ? s->name : s->path,
		   added ? "" : " at base nor head",
		   gt->g->allow_untested ? "; accepted: the trusted config sets gate.allow_untested "
		   "('skillci tests init' writes a starter suite; the format: 'skillci help tests')"
		   : "; write a starter suite with 'skillci tests init' (the format: 'skillci help "
		     "tests'), or set gate.allow_untested: true in the trusted config to accept "
		     "untested skills");
}

void sc_gate_set_verdict(struct sc_results *r)
{
	r->gate.verdict = sc_verdict_of_checks(r);
	if (r->run.kind == SC_RUN_KIND_EVAL && r->gate.verdict != SC_VERDICT_ERROR) {
		/* an eval means what its lift decisions say (results/verdict.h) */
		struct sc_verdicts v;
		sc_verdict_build(&v, r);
		r->gate.verdict = v.state;
		sc_verdict_release(&v);
	}
	r->gate.passed = r->gate.nfailures == 0;
	r->gate.exit_code = r->gate.verdict == SC_VERDICT_ERROR ? SC_EXIT_INFRA
			    : r->run.kind == SC_RUN_KIND_EVAL || r->gate.passed ? SC_EXIT_OK
			    : SC_EXIT_GATE;
}

int sc_gate_apply(struct sc_results *r, const struct sc_config_gate *g)
{
	struct gate gt = { .r = r, .g = g };
	int64_t errors = 0, units = 0;
	bool share_failed, blamed = false;

	sc_gate_clear(r);
	if (!r->sorted)
		sc_results_sort(r);
	for (size_t i = 0; i < r->nunits; i++) {
		if (!sc_results_unit_decides(r, &r->units[i]))
			continue;
		units++;
		errors += r->units[i].verdict == SC_UNIT_ERROR;
	}
	r->gate.error_share = units ? (double)errors / (double)units : 0.0;
	share_failed = units && r->gate.error_share > g->error_share + 1e-12;
	gt.share_failed = share_failed;
	plan_margins(&gt);
	plan_metrics(&gt);

	for (size_t si = 0; si < r->nskills; si++) {
		struct sc_results_skill *s = &r->skills[si];
		size_t first = 0, n;
		if (s->status == SC_SKILL_UNCHANGED)
			continue;
		if (s->status == SC_SKILL_DELETED) {
			check_deleted(&gt, s);
			if (s->nfindings)
				check_validity(&gt, s);  /* what stands at its path instead */
			continue;
		}
		check_validity(&gt, s);
		if (s->untested) {
			check_untested(&gt, s);
			continue;
		}
		n = sc_results_aggregates_range(r, s->path, &first);
		for (size_t i = first; i < first + n; i++)
			if (r->aggregates[i].variant == SC_VARIANT_HEAD)
				check_model(&gt, s, r->aggregates[i].model, share_failed);
	}
	for (size_t i = 0; i < r->gate.nfailures; i++)
		blamed |= sc_streq(r->gate.failures[i].rule, "error_share");
	if (share_failed && !blamed) {
		/* errors only where no check runs (a deleted skill's units, say):
		 * still the run's, as a whole */
		struct sc_buf m = SC_BUF_INIT;
		sc_buf_printf(&m, "could not check: %lld of %lld units failed for infrastructure "
			      "reasons (%.0f%%, more than %.0f%%)", (long long)errors, (long long)units,
			      r->gate.error_share * 100, g->error_share * 100);
		sc_gate_add_run_failure(r, "error_share", SC_CHECK_ERRORS, SC_STATUS_ERROR, m.ptr);
		sc_buf_release(&m);
	}
	sc_gate_set_verdict(r);
	free(gt.margins);
	free(gt.metrics);
	sc_results_sort(r);
	return (int)r->gate.exit_code;
}

int sc_gate_add(struct sc_results *r, const char *skill, const char *model, const char *rule,
		const char *message)
{
	struct gate gt = { .r = r, .checks_alloc = r->gate.nchecks };
	struct sc_results_skill *s = NULL;
	enum sc_check_kind check = SC_CHECK_CLAIM;

	for (size_t i = 0; i < r->nskills; i++)
		if (!strcmp(r->skills[i].path, skill))
			s = &r->skills[i];
	(void)sc_results_rule_check(rule, &check);
	record(&gt, s, skill, model, check, SC_STATUS_FAILED, rule, "%s", message);
	sc_gate_set_verdict(r);
	sc_results_sort(r);
	return (int)r->gate.exit_code;
}

void sc_gate_add_run_failure(struct sc_results *r, const char *rule, enum sc_check_kind check,
			     enum sc_check_status status, const char *message)
{
	struct sc_results_gate_failure *f;

	r->gate.failures = sc_xrealloc(r->gate.failures,
				       (r->gate.nfailures + 1) * sizeof(*r->gate.failures));
	f = &r->gate.failures[r->gate.nfailures++];
	memset(f, 0, sizeof(*f));
	f->status = status;
	f->skill = sc_xstrdup("");
	f->model = sc_xstrdup("");
	f->rule = sc_xstrdup(rule);
	f->check = check;
	f->message = sc_xstrdup(message);
}

void sc_gate_policy_to_config(struct sc_config_gate *out, const struct sc_results_gate_policy *g)
{
	out->pass_rate_drop_points = g->pass_rate_drop_points;
	out->alpha = g->alpha;
	out->tokens_rise_pct = g->tokens_rise_pct;
	out->speedup_drop_ratio = g->speedup_drop_ratio;
	out->judge_drop = g->judge_drop;
	out->error_share = g->error_share;
	out->require_lift = g->require_lift;
	out->allow_deletions = g->deletions_allowed;
	out->max_baseline_pass_rate = g->max_baseline_pass_rate;
	out->compile_only = g->compile_only;
	out->regression_points = g->regression_points > 0 ? g->regression_points
							  : SC_CONFIG_REGRESSION_POINTS;
	out->beta = g->beta > 0 && g->beta < 0.5 ? g->beta : SC_CONFIG_BETA;
	out->accept_unverified = g->accept_unverified;
	out->allow_untested = g->allow_untested;
	out->first_runs = g->first_runs > 0 ? (int)g->first_runs : SC_CONFIG_FIRST_RUNS;
	out->max_runs = g->max_runs > 0 ? (int)g->max_runs : 0;
	out->planned_checks = g->planned_checks > 0 ? (size_t)g->planned_checks : 0;
}
