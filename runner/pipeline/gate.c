/*
 * The gate (see gate.h): one pass over the changed skills of a results
 * model, every check recorded with its outcome and reason, a failure per
 * broken rule, the verdict written back.
 */
#include "common.h"
#include "stats.h"
#include "pipeline/config.h"
#include "pipeline/gate.h"
#include "pipeline/sequential.h"
#include "results/compare.h"
#include "results/results.h"

#include <math.h>

/* One pass-rate comparison of the PR: a member of the family. */
struct margin {
	const char *skill, *model;
	struct sc_stats_paired st;
	double p_adj;               /* fixed design: p_drop, Holm-adjusted over the family */
	struct sc_seq_outcome seq;  /* the decision and the look it was taken at */
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
	const char *skill, *model, *check;
	struct sc_stats_paired st;
	double level;
};

struct gate {
	struct sc_results *r;
	const struct sc_config_gate *g;
	size_t checks_alloc;
	struct margin *margins;     /* every pass_rate check that compares */
	size_t nmargins;
	struct sc_seq_design design;  /* fixed (Holm) or sequential (spending, Bonferroni) */
	struct metric *metrics;     /* every tokens, speedup and judge check that compares */
	size_t nmetrics, nmetric_tests;  /* ... and those with a p-value: Holm's family */
};

static void vadd_check(struct gate *gt, struct sc_results_skill *s, const char *skill,
		       const char *model, const char *check, const char *status, const char *rule,
		       const char *file, int64_t line, const char *fmt, va_list ap)
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
	c->check = sc_xstrdup(check);
	c->status = sc_xstrdup(status);
	c->rule = rule ? sc_xstrdup(rule) : NULL;
	c->file = file ? sc_xstrdup(file) : NULL;
	c->line = line;
	c->message = sc_buf_detach(&msg, NULL);
	if (strcmp(status, "failed"))
		return;
	/* the failure behind it, and the skill's reasons */
	{
		struct sc_results_gate_failure *f;
		r->gate.failures = sc_xrealloc(r->gate.failures,
					       (r->gate.nfailures + 1) * sizeof(*r->gate.failures));
		f = &r->gate.failures[r->gate.nfailures++];
		memset(f, 0, sizeof(*f));
		f->skill = sc_xstrdup(skill);
		f->model = sc_xstrdup(model ? model : "");
		f->rule = sc_xstrdup(rule);
		f->check = sc_xstrdup(check);
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

static void record(struct gate *gt, struct sc_results_skill *s, const char *skill,
		   const char *model, const char *check, const char *status, const char *rule,
		   const char *fmt, ...) __attribute__((format(printf, 8, 9)));
static void record(struct gate *gt, struct sc_results_skill *s, const char *skill,
		   const char *model, const char *check, const char *status, const char *rule,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd_check(gt, s, skill, model, check, status, rule, NULL, 0, fmt, ap);
	va_end(ap);
}

static void pass(struct gate *gt, struct sc_results_skill *s, const char *model, const char *check,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void skip(struct gate *gt, struct sc_results_skill *s, const char *model, const char *check,
		 const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void fail(struct gate *gt, struct sc_results_skill *s, const char *model, const char *check,
		 const char *rule, const char *file, int64_t line, const char *fmt, ...)
	__attribute__((format(printf, 8, 9)));

static void pass(struct gate *gt, struct sc_results_skill *s, const char *model, const char *check,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd_check(gt, s, s->path, model, check, "passed", NULL, NULL, 0, fmt, ap);
	va_end(ap);
}

static void skip(struct gate *gt, struct sc_results_skill *s, const char *model, const char *check,
		 const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd_check(gt, s, s->path, model, check, "skipped", NULL, NULL, 0, fmt, ap);
	va_end(ap);
}

static void fail(struct gate *gt, struct sc_results_skill *s, const char *model, const char *check,
		 const char *rule, const char *file, int64_t line, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd_check(gt, s, s->path, model, check, "failed", rule, file, line, fmt, ap);
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
		if (!sc_streq(f->severity, "error"))
			continue;
		existing += sc_streq(f->state, "existing");
		fixed += sc_streq(f->state, "fixed");
		fails = sc_streq(f->state, "new") ||
			(gt->g->fail_on_existing && sc_streq(f->state, "existing"));
		if (fails && !failing++)
			first = f;
	}
	if (failing) {
		struct sc_buf where = SC_BUF_INIT;
		sc_buf_puts(&where, first->file ? first->file : s->path);
		if (first->line > 0)
			sc_buf_printf(&where, ":%lld", (long long)first->line);
		fail(gt, s, NULL, "validity", "skill_invalid", first->file, first->line,
		     "%s: %s%s%s%s (%s error at head%s)", where.ptr, first->message ? first->message : "",
		     first->code && *first->code ? " [" : "", first->code ? first->code : "",
		     first->code && *first->code ? "]" : "",
		     sc_streq(first->state, "new") ? "a new" : "a pre-existing",
		     failing > 1 ? "; more below" : "");
		sc_buf_release(&where);
		return;
	}
	if (existing)
		pass(gt, s, NULL, "validity",
		     "%zu pre-existing error%s at base and head, not failing (gate.fail_on_existing is "
		     "false)%s", existing, existing == 1 ? "" : "s", fixed ? "; some errors fixed" : "");
	else if (fixed)
		pass(gt, s, NULL, "validity", "no errors at head; %zu error%s at base fixed", fixed,
		     fixed == 1 ? "" : "s");
	else
		pass(gt, s, NULL, "validity", "no errors at head");
}

/*
 * True when s is judged as a new skill is (against no skill, not against
 * a base): an added skill, or one whose head adds the first tests of a
 * skill the base had without tests (first_tests: they cannot regress
 * against nothing; docs/run.md, "First tests").
 */
static bool judged_as_new(const struct sc_results_skill *s)
{
	return sc_streq(s->status, "added") || s->first_tests;
}

/*
 * The family of pass_rate comparisons of the PR (the skill x model pairs
 * check_model compares: a changed, tested, not added skill with pass
 * rates at base and head), their paired statistics, and Holm's
 * adjustment of their p-values so the chance of failing a PR that
 * changed nothing stays at alpha however many checks it has.
 */
static void plan_margins(struct gate *gt)
{
	struct sc_results *r = gt->r;
	double *p, *raw, *lv;

	for (size_t si = 0; si < r->nskills; si++) {
		const struct sc_results_skill *s = &r->skills[si];
		size_t first = 0, n;
		if (sc_streq(s->status, "unchanged") || sc_streq(s->status, "deleted") ||
		    judged_as_new(s))
			continue;
		if (s->untested)
			continue;
		n = sc_results_aggregates_range(r, s->path, &first);
		for (size_t i = first; i < first + n; i++) {
			const struct sc_results_aggregate *a = &r->aggregates[i];
			const struct sc_results_aggregate *base;
			unsigned long *bp, *bn, *hp, *hn;
			size_t tests;
			struct margin *m;
			if (!sc_streq(a->variant, "head") || !judged(a))
				continue;
			base = sc_results_find_aggregate(r, s->path, "base", a->model);
			if (!judged(base))
				continue;
			gt->margins = sc_xrealloc(gt->margins, (gt->nmargins + 1) * sizeof(*gt->margins));
			m = &gt->margins[gt->nmargins++];
			m->skill = s->path;
			m->model = a->model;
			tests = sc_seq_test_counts(r, s->path, a->model, -1, &bp, &bn, &hp, &hn);
			sc_stats_paired_margin(&m->st, bp, bn, hp, hn, tests,
					       gt->g->pass_rate_drop_points / 100.0,
					       sc_compare_alpha(gt->g->alpha), SC_STATS_STRATIFIED);
			memset(&m->seq, 0, sizeof(m->seq));
			for (size_t t = 0; t < tests; t++)
				if (bn[t] && hn[t]) {  /* the units the statistics used */
					m->seq.base_units += bn[t];
					m->seq.head_units += hn[t];
				}
			free(bp); free(bn); free(hp); free(hn);
		}
	}
	if (!gt->nmargins)
		return;
	if (gt->g->max_runs > 0) {
		/* sequential: each check replays its looks; the family is the
		 * PR's pass-rate checks as planned (a shard sees part of them) */
		size_t family = gt->g->planned_checks > gt->nmargins ? gt->g->planned_checks
								     : gt->nmargins;
		sc_seq_design_init(&gt->design, sc_compare_alpha(gt->g->alpha),
				   gt->g->pass_rate_drop_points / 100.0, gt->g->first_runs,
				   gt->g->max_runs, family);
		sc_seq_design_fail_alpha(&gt->design, sc_gate_pass_rate_alpha(gt->g));
		for (size_t i = 0; i < gt->nmargins; i++) {
			struct margin *m = &gt->margins[i];
			sc_seq_replay(&m->seq, r, m->skill, m->model, &gt->design);
			m->st = m->seq.st;
			m->p_adj = NAN;
		}
		return;
	}
	p = sc_xmalloc(3 * gt->nmargins * sizeof(*p));
	raw = p + gt->nmargins;
	lv = raw + gt->nmargins;
	for (size_t i = 0; i < gt->nmargins; i++)
		raw[i] = gt->margins[i].st.p_drop;
	sc_stats_holm(raw, gt->nmargins, p);
	sc_stats_holm_levels(raw, gt->nmargins, sc_gate_pass_rate_alpha(gt->g), lv);
	for (size_t i = 0; i < gt->nmargins; i++) {
		struct margin *m = &gt->margins[i];
		enum sc_gate_margin v;
		m->p_adj = p[i];
		v = sc_gate_margin_decide(m->p_adj, m->st.p_within, sc_gate_pass_rate_alpha(gt->g),
					  sc_compare_alpha(gt->g->alpha));
		/* the upper end at the level Holm tested this check at, the
		 * lower end at alpha: the interval says what the verdict says */
		sc_stats_paired_bounds(&m->st, sc_compare_alpha(gt->g->alpha), lv[i]);
		m->seq.st = m->st;
		m->seq.look = 1;
		m->seq.runs = gt->r->run.runs > 0 ? (int)gt->r->run.runs : 0;
		m->seq.decision = v == SC_GATE_MARGIN_DROP ? SC_SEQ_REGRESSION
				  : v == SC_GATE_MARGIN_RULED_OUT ? SC_SEQ_RULED_OUT
				  : SC_SEQ_INCONCLUSIVE;
	}
	free(p);
}

/* The value a unit gives a measured-value check, in its "drop" direction;
 * NAN when it gives none. */
static double metric_value(const char *check, const struct sc_results_unit *u)
{
	if (!strcmp(check, "tokens")) {
		int64_t t = u->tokens_in + u->tokens_out;
		return sc_streq(u->verdict, "error") || t <= 0 ? NAN : -log((double)t);
	}
	if (!strcmp(check, "speedup"))
		return u->kernel && sc_streq(u->verdict, "pass") && u->kernel->speedup > 0
			       ? log(u->kernel->speedup) : NAN;
	return u->judge_score;
}

/* The check's limit as a margin in its values' units. */
static double metric_margin(const char *check, const struct sc_config_gate *g)
{
	if (!strcmp(check, "tokens"))
		return log1p(g->tokens_rise_pct / 100.0);
	if (!strcmp(check, "speedup"))
		return g->speedup_drop_ratio < 1 ? -log1p(-g->speedup_drop_ratio) : INFINITY;
	return g->judge_drop;
}

/* The paired statistics of check for skill and model: per test, its
 * units' values at base and at head. */
static void metric_stats(struct metric *m, const struct sc_results *r, const struct sc_config_gate *g)
{
	size_t *test_of = sc_xmalloc((r->nunits ? r->nunits : 1) * sizeof(*test_of));
	size_t n = sc_seq_units_by_test(r, m->skill, m->model, "base", "head", -1, test_of);
	struct sc_stats_sample *b = sc_xcalloc(n ? n : 1, sizeof(*b));
	struct sc_stats_sample *h = sc_xcalloc(n ? n : 1, sizeof(*h));

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		double x;
		if (test_of[i] != SIZE_MAX && !isnan(x = metric_value(m->check, u)))
			sc_stats_sample_add(sc_streq(u->variant, "head") ? &h[test_of[i]] : &b[test_of[i]], x);
	}
	if (!n || !sc_stats_paired_values(&m->st, b, h, n, metric_margin(m->check, g),
					  sc_compare_alpha(g->alpha)))
		memset(&m->st, 0, sizeof(m->st));
	free(test_of);
	free(b);
	free(h);
}

/* lift: the head's pass rate against no skill's (baseline), paired per
 * test as the pass-rate decision, margin 0: "drop" is the skill doing
 * worse than no skill. */
static void lift_stats(struct metric *m, const struct sc_results *r, const struct sc_config_gate *g)
{
	unsigned long *bp, *bn, *hp, *hn;
	size_t tests = sc_seq_test_counts_of(r, m->skill, m->model, "baseline", "head", -1, &bp, &bn,
					     &hp, &hn);

	if (!sc_stats_paired_margin(&m->st, bp, bn, hp, hn, tests, 0.0, sc_compare_alpha(g->alpha),
				    SC_STATS_STRATIFIED))
		memset(&m->st, 0, sizeof(m->st));
	free(bp); free(bn); free(hp); free(hn);
}

/* A new entry of the PR's measured-value checks; the caller fills st. */
static struct metric *add_metric(struct gate *gt, const char *skill, const char *model,
				 const char *check)
{
	struct metric *m;

	gt->metrics = sc_xrealloc(gt->metrics, (gt->nmetrics + 1) * sizeof(*gt->metrics));
	m = &gt->metrics[gt->nmetrics++];
	memset(m, 0, sizeof(*m));
	m->skill = skill;
	m->model = model;
	m->check = check;
	return m;
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
	static const char *const checks[] = { "tokens", "speedup", "judge" };
	struct sc_results *r = gt->r;
	double *p, *lv;

	for (size_t si = 0; si < r->nskills; si++) {
		const struct sc_results_skill *s = &r->skills[si];
		size_t first = 0, n;
		if (sc_streq(s->status, "unchanged") || sc_streq(s->status, "deleted") || s->untested)
			continue;
		n = sc_results_aggregates_range(r, s->path, &first);
		for (size_t i = first; i < first + n; i++) {
			const struct sc_results_aggregate *a = &r->aggregates[i];
			if (sc_streq(a->variant, "head") && judged_as_new(s) &&
			    gt->g->require_lift) {
				lift_stats(add_metric(gt, s->path, a->model, "lift"), r, gt->g);
				continue;
			}
			if (!sc_streq(a->variant, "head") ||
			    !sc_results_find_aggregate(r, s->path, "base", a->model))
				continue;
			for (size_t c = 0; c < SC_ARRAY_SIZE(checks); c++)
				metric_stats(add_metric(gt, s->path, a->model, checks[c]), r, gt->g);
		}
	}
	if (!gt->nmetrics)
		return;
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

static const struct metric *find_metric(const struct gate *gt, const char *skill, const char *model,
					const char *check)
{
	for (size_t i = 0; i < gt->nmetrics; i++)
		if (sc_streq(gt->metrics[i].skill, skill) && sc_streq(gt->metrics[i].model, model) &&
		    !strcmp(gt->metrics[i].check, check))
			return &gt->metrics[i];
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
		      "test%s; a regression shown at alpha %.3g (Holm over %zu token, speedup, judge and "
		      "lift check%s), ruled out at alpha %g", what, est, unit,
		      (1 - 2 * sc_compare_alpha(gt->g->alpha)) * 100, lo, unit, hi, unit, m->st.tests,
		      m->st.tests == 1 ? "" : "s", m->level, gt->nmetric_tests,
		      gt->nmetric_tests == 1 ? "" : "s",
		      sc_compare_alpha(gt->g->alpha));
}

/* Records the decision behind the pass_rate check just added. */
static void set_margin(struct gate *gt, const struct margin *m)
{
	struct sc_results_check *c = &gt->r->gate.checks[gt->r->gate.nchecks - 1];

	c->margin.present = true;
	c->margin.mean = m->st.mean;
	c->margin.lo = m->st.lo;
	c->margin.hi = m->st.hi;
	c->margin.detectable = m->st.detectable;
	c->margin.tests = (int64_t)m->st.tests;
	c->margin.base_runs = (int64_t)m->seq.base_units;
	c->margin.head_runs = (int64_t)m->seq.head_units;
	c->margin.runs_per_test = m->seq.runs;
	c->margin.rounds = m->seq.look;
	c->margin.decision = sc_xstrdup(sc_seq_decision_name(m->seq.decision));
}

static const struct margin *find_margin(const struct gate *gt, const char *skill, const char *model)
{
	for (size_t i = 0; i < gt->nmargins; i++)
		if (sc_streq(gt->margins[i].skill, skill) && sc_streq(gt->margins[i].model, model))
			return &gt->margins[i];
	return NULL;
}

double sc_gate_pass_rate_alpha(const struct sc_config_gate *g)
{
	return sc_compare_alpha(g->alpha) * (1.0 - SC_GATE_METRIC_SHARE);
}

enum sc_gate_margin sc_gate_margin_decide(double p_adj, double p_within, double fail_alpha,
					  double alpha)
{
	if (!isnan(p_adj) && p_adj < fail_alpha)
		return SC_GATE_MARGIN_DROP;
	if (!isnan(p_within) && p_within < alpha)
		return SC_GATE_MARGIN_RULED_OUT;
	return SC_GATE_MARGIN_OPEN;
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
	size_t more = 0;

	for (size_t i = 0; i < r->nflips; i++) {
		const struct sc_results_flips *f = &r->flips[i], *x = f;
		if (!sc_streq(f->skill, skill) || !sc_streq(f->model, model) ||
		    !sc_streq(f->variant, "base") || !(f->flip_rate >= SC_GATE_FLAKY))
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
 * pass_rate: head against base, paired per test, against the margin
 * (docs/evaluation.md, "The pass-rate decision"). Fails only when a drop
 * beyond gate.pass_rate_drop_points is shown at the pass-rate checks'
 * alpha (sc_gate_pass_rate_alpha, Holm over the PR's pass_rate checks);
 * passes when such a drop is ruled out at alpha; else
 * inconclusive, which fails only with gate.fail_inconclusive and is
 * otherwise reported as skipped, never as passed.
 */
static void check_pass_rate(struct gate *gt, struct sc_results_skill *s, const char *model,
			    const struct sc_results_aggregate *base,
			    const struct sc_results_aggregate *head)
{
	const struct sc_config_gate *g = gt->g;
	const struct margin *m = find_margin(gt, s->path, model);
	double alpha = sc_compare_alpha(g->alpha), margin = g->pass_rate_drop_points;
	struct sc_buf how = SC_BUF_INIT;

	if (!m || !m->st.tests) {
		if (g->fail_inconclusive)
			fail(gt, s, model, "pass_rate", "pass_rate_inconclusive", NULL, 0,
			     "inconclusive: no test was judged at both base and head, so a drop of up to "
			     "100 points cannot be ruled out (gate.fail_inconclusive)");
		else
			skip(gt, s, model, "pass_rate", "inconclusive: no test was judged at both base "
			     "and head, so a drop of up to 100 points cannot be ruled out");
		{
			struct sc_results_margin *mg = &gt->r->gate.checks[gt->r->gate.nchecks - 1].margin;
			mg->present = true;
			mg->mean = mg->lo = mg->hi = mg->detectable = NAN;
			mg->decision = sc_xstrdup("inconclusive");
		}
		return;
	}
	sc_buf_printf(&how, "difference %+.1f points, %.0f%% interval [%+.1f, %+.1f] over %zu tests; "
		      "smallest detectable drop %.1f points; ", m->st.mean * 100, (1 - 2 * alpha) * 100,
		      m->st.lo * 100, m->st.hi * 100, m->st.tests, m->st.detectable * 100);
	if (sc_seq_is_sequential(&gt->design))
		sc_buf_printf(&how, "sequential: %d run%s per test after %d of %d round%s, error spent "
			      "over %zu check%s", m->seq.runs, m->seq.runs == 1 ? "" : "s", m->seq.look,
			      sc_seq_looks(&gt->design), sc_seq_looks(&gt->design) == 1 ? "" : "s",
			      gt->design.family, gt->design.family == 1 ? "" : "s");
	else
		sc_buf_printf(&how, "Holm p=%.3g over %zu check%s", m->p_adj, gt->nmargins,
			      gt->nmargins == 1 ? "" : "s");
	flaky_tests(&how, gt->r, s->path, model);
	if (m->seq.decision == SC_SEQ_REGRESSION)
		fail(gt, s, model, "pass_rate", "pass_rate_drop", NULL, 0,
		     "pass rate fell from %.0f%% to %.0f%%, a drop beyond the %g-point margin at alpha "
		     "%g (%s)", pct(base->pass_rate), pct(head->pass_rate), margin,
		     sc_gate_pass_rate_alpha(g), how.ptr);
	else if (m->seq.decision == SC_SEQ_RULED_OUT)
		pass(gt, s, model, "pass_rate", "pass rate %.0f%% -> %.0f%%; a drop beyond %g points "
		     "is ruled out at alpha %g (%s)", pct(base->pass_rate), pct(head->pass_rate), margin,
		     alpha, how.ptr);
	else if (g->fail_inconclusive)
		fail(gt, s, model, "pass_rate", "pass_rate_inconclusive", NULL, 0,
		     "inconclusive: a drop of up to %.1f points cannot be ruled out (pass rate %.0f%% -> "
		     "%.0f%%; %s; gate.fail_inconclusive)", -m->st.lo * 100, pct(base->pass_rate),
		     pct(head->pass_rate), how.ptr);
	else
		skip(gt, s, model, "pass_rate", "inconclusive: a drop of up to %.1f points cannot be "
		     "ruled out (pass rate %.0f%% -> %.0f%%; %s)", -m->st.lo * 100,
		     pct(base->pass_rate), pct(head->pass_rate), how.ptr);
	set_margin(gt, m);
	sc_buf_release(&how);
}

/*
 * lift: a new skill must not do worse than no skill (require_lift),
 * decided as the measured-value checks are: paired per test, failed when
 * the skill is shown worse at Holm's level over the PR's such checks,
 * passed when it is shown better at alpha (or, as good by its pass rates,
 * saves tokens while its pass rate is not shown lower), else inconclusive.
 */
static void check_lift(struct gate *gt, struct sc_results_skill *s, const char *model,
		       const struct sc_results_aggregate *baseline,
		       const struct sc_results_aggregate *head)
{
	const struct metric *m = find_metric(gt, s->path, model, "lift");
	bool savings = !isnan(baseline->mean_tokens) && !isnan(head->mean_tokens) &&
		       head->mean_tokens < baseline->mean_tokens;
	struct sc_buf how = SC_BUF_INIT;
	int v = metric_decide(gt, m);

	if (m && m->st.tests)
		sc_buf_printf(&how, "lift per test, paired: %+.1f points, %.0f%% interval [%+.1f, %+.1f] "
			      "over %zu test%s; worse shown at alpha %.3g (Holm over %zu token, speedup, "
			      "judge and lift check%s), better at alpha %g", m->st.mean * 100,
			      (1 - 2 * sc_compare_alpha(gt->g->alpha)) * 100, m->st.lo * 100,
			      m->st.hi * 100, m->st.tests, m->st.tests == 1 ? "" : "s", m->level,
			      gt->nmetric_tests, gt->nmetric_tests == 1 ? "" : "s",
			      sc_compare_alpha(gt->g->alpha));
	else
		sc_buf_printf(&how, "no test judged both with the skill and without it");
	if (v == 1)
		fail(gt, s, model, "lift", "new_skill_no_better", NULL, 0,
		     "new skill passes %.0f%%, below %.0f%% without it (%s)", pct(head->pass_rate),
		     pct(baseline->pass_rate), how.ptr);
	else if (v == 0 && m->st.mean > 0)
		pass(gt, s, model, "lift", "new skill passes %.0f%%, %.0f%% without it (%s)",
		     pct(head->pass_rate), pct(baseline->pass_rate), how.ptr);
	else if (savings && head->pass_rate >= baseline->pass_rate - 1e-12)
		pass(gt, s, model, "lift", "new skill passes %.0f%%, %.0f%% without it, with fewer tokens "
		     "(%.0f -> %.0f); a lower pass rate is not shown (%s)", pct(head->pass_rate),
		     pct(baseline->pass_rate), baseline->mean_tokens, head->mean_tokens, how.ptr);
	else
		skip(gt, s, model, "lift", "inconclusive: new skill passes %.0f%%, %.0f%% without it: "
		     "neither better nor worse is shown, and it saves no tokens (%s)",
		     pct(head->pass_rate), pct(baseline->pass_rate), how.ptr);
	sc_buf_release(&how);
}

/*
 * discrimination: an added skill's tests must tell a skill from none: the
 * no-skill baseline may not pass every test, nor more than
 * gate.max_baseline_pass_rate of them. Tests any answer passes prove
 * nothing about the skill.
 */
static void check_discrimination(struct gate *gt, struct sc_results_skill *s, const char *model,
				 const struct sc_results_aggregate *baseline)
{
	double limit = gt->g->max_baseline_pass_rate;
	struct sc_buf why = SC_BUF_INIT;

	if (!judged(baseline)) {
		no_rate(&why, "baseline (no skill)", baseline);
		fail(gt, s, model, "discrimination", "baseline_no_result", NULL, 0,
		     "the tests were not shown to tell the skill from no skill: %s", why.ptr);
	} else if (baseline->pass_rate >= 1 - 1e-12 || baseline->pass_rate > limit + 1e-12)
		fail(gt, s, model, "discrimination", "tests_not_discriminating", NULL, 0,
		     "without the skill the model passes %.0f%% of the tests (limit %.0f%%, and never "
		     "100%%): the tests cannot tell whether the skill works", pct(baseline->pass_rate),
		     pct(limit));
	else
		pass(gt, s, model, "discrimination", "without the skill the model passes %.0f%% of the "
		     "tests (limit %.0f%%)", pct(baseline->pass_rate), pct(limit));
	sc_buf_release(&why);
}

/*
 * kernel: every kernel test of the head ran on a GPU. Units skipped
 * because nothing could run them (no GPU, a broken driver, a build
 * without CUDA) fail kernel_unverified, unless the trusted config marks
 * the runner compile-only (gate.compile_only): then the check is skipped
 * and every report says no kernel was run. *broken is set when a GPU was
 * found but the kernels still could not run (exit 3: the runner, not the
 * pull request).
 */
static void check_kernel(struct gate *gt, struct sc_results_skill *s, const char *model,
			 bool *broken)
{
	const struct sc_results *r = gt->r;
	int64_t kernels = 0, unrun = 0;
	const char *why = NULL;

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (!sc_streq(u->skill, s->path) || !sc_streq(u->model, model) ||
		    !sc_streq(u->kind, "kernel") ||
		    !(sc_streq(u->variant, "head") || sc_streq(u->variant, "base")))
			continue;
		kernels++;
		if (sc_streq(u->verdict, "skipped")) {
			unrun++;
			if (!why && u->message)
				why = u->message;
		}
	}
	if (!kernels)
		return;
	if (!unrun)
		pass(gt, s, model, "kernel", "%lld kernel test units ran on a GPU", (long long)kernels);
	else if (gt->g->compile_only)
		skip(gt, s, model, "kernel", "no kernel was run: %lld of %lld kernel test units only "
		     "compiled; the trusted config marks this runner compile-only (gate.compile_only)",
		     (long long)unrun, (long long)kernels);
	else {
		fail(gt, s, model, "kernel", "kernel_unverified", NULL, 0,
		     "%lld of %lld kernel test units could not run on a GPU (%s), so correctness and "
		     "speed are unverified; run on a GPU runner, or mark a compile-only runner with "
		     "gate.compile_only in the trusted config", (long long)unrun, (long long)kernels,
		     r->run.has_gpu ? "a GPU was found but did not run them"
		     : why ? why : "no usable GPU");
		*broken |= r->run.has_gpu;
	}
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
			 const char *check, const char *rule, const char *summary,
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
	const struct metric *m = find_metric(gt, s->path, model, "tokens");
	double rise = sc_compare_pct_change(base->mean_tokens, head->mean_tokens);
	bool flat_or_worse = flat_or_worse_rate(base, head);
	struct sc_buf how = SC_BUF_INIT, sum = SC_BUF_INIT;
	int v = metric_decide(gt, m);

	if (isnan(rise)) {
		skip(gt, s, model, "tokens", "no mean token counts at base and head to compare");
		return;
	}
	if (!flat_or_worse) {
		pass(gt, s, model, "tokens", "mean tokens %.0f -> %.0f (%+.0f%%; limit +%g%% applies "
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
	metric_check(gt, s, model, "tokens", "tokens_rise", sum.ptr, how.ptr);
	sc_buf_release(&how);
	sc_buf_release(&sum);
}

static void check_speedup(struct gate *gt, struct sc_results_skill *s, const char *model,
			  const struct sc_results_aggregate *base,
			  const struct sc_results_aggregate *head)
{
	const struct sc_config_gate *g = gt->g;
	const struct metric *m = find_metric(gt, s->path, model, "speedup");
	double ratio = sc_compare_ratio(base->speedup_geomean, head->speedup_geomean);
	struct sc_buf how = SC_BUF_INIT, sum = SC_BUF_INIT;
	char strong[160] = "";
	int v = metric_decide(gt, m);

	if (isnan(ratio)) {
		skip(gt, s, model, "speedup", "no kernel speedup at both base and head (no kernel tests, "
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
	metric_check(gt, s, model, "speedup", "speedup_drop", sum.ptr, how.ptr);
	sc_buf_release(&how);
	sc_buf_release(&sum);
}

static void check_judge(struct gate *gt, struct sc_results_skill *s, const char *model,
			const struct sc_results_aggregate *base,
			const struct sc_results_aggregate *head)
{
	const struct sc_config_gate *g = gt->g;
	const struct metric *m = find_metric(gt, s->path, model, "judge");
	bool flat_or_worse = flat_or_worse_rate(base, head);
	struct sc_buf how = SC_BUF_INIT, sum = SC_BUF_INIT;
	int v = metric_decide(gt, m);

	if (isnan(base->judge_mean) || isnan(head->judge_mean)) {
		skip(gt, s, model, "judge", "no judge scores at base and head (no judge configured)");
		return;
	}
	if (!flat_or_worse) {
		pass(gt, s, model, "judge", "judge score %.2f -> %.2f (limit -%.2f applies only when the "
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
	metric_check(gt, s, model, "judge", "judge_drop", sum.ptr, how.ptr);
	sc_buf_release(&how);
	sc_buf_release(&sum);
}

/* errors: the run's share of infrastructure errors, blamed on the pairs that have some. */
static void check_errors(struct gate *gt, struct sc_results_skill *s, const char *model,
			 bool share_failed)
{
	const struct sc_results *r = gt->r;
	int64_t errors = 0, units = 0;

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (!sc_streq(u->skill, s->path) || !sc_streq(u->model, model))
			continue;
		units++;
		errors += sc_streq(u->verdict, "error");
	}
	if (share_failed && errors)
		fail(gt, s, model, "errors", "error_share", NULL, 0,
		     "%lld of %lld units failed for infrastructure reasons; the run has %.0f%% "
		     "infrastructure errors, more than %.0f%%", (long long)errors, (long long)units,
		     r->gate.error_share * 100, gt->g->error_share * 100);
	else
		pass(gt, s, model, "errors", "%lld of %lld units failed for infrastructure reasons "
		     "(the run: %.0f%%, limit %.0f%%)", (long long)errors, (long long)units,
		     r->gate.error_share * 100, gt->g->error_share * 100);
}

/*
 * Whether a missing pass rate is excused: the trusted config marks the
 * runner compile-only and the skill's units for model include kernel
 * tests that were only compiled (the kernel check says so).
 */
static bool compile_only_excuse(const struct gate *gt, const struct sc_results_skill *s,
				const char *model)
{
	if (!gt->g->compile_only)
		return false;
	for (size_t i = 0; i < gt->r->nunits; i++) {
		const struct sc_results_unit *u = &gt->r->units[i];
		if (sc_streq(u->skill, s->path) && sc_streq(u->model, model) &&
		    sc_streq(u->kind, "kernel") && sc_streq(u->verdict, "skipped"))
			return true;
	}
	return false;
}

/* The checks of one changed skill and one model with head units. */
static void check_model(struct gate *gt, struct sc_results_skill *s, const char *model,
			bool share_failed, bool *broken)
{
	struct sc_results *r = gt->r;
	const struct sc_results_aggregate *head = sc_results_find_aggregate(r, s->path, "head", model);
	const struct sc_results_aggregate *base = sc_results_find_aggregate(r, s->path, "base", model);
	const struct sc_results_aggregate *baseline =
		sc_results_find_aggregate(r, s->path, "baseline", model);
	bool added = judged_as_new(s);
	bool excused = compile_only_excuse(gt, s, model);
	struct sc_buf why = SC_BUF_INIT;

	if (excused && (!judged(head) || (!added && !judged(base)))) {
		no_rate(&why, judged(head) ? "base" : "head", judged(head) ? base : head);
		skip(gt, s, model, "pass_rate", "%s: no kernel was run (gate.compile_only)", why.ptr);
	} else if (s->first_tests)
		skip(gt, s, model, "pass_rate", "tests added: they judge later PRs (the base had none, "
		     "so there is nothing to regress from; the lift check compares the skill with no "
		     "skill on them)");
	else if (added)
		skip(gt, s, model, "pass_rate", "new skill: no base to compare with (the lift check "
		     "compares it with no skill)");
	else if (!base)
		skip(gt, s, model, "pass_rate", "no base results to compare with (the base has no "
		     "tests, or could not be read)");
	else if (!judged(head)) {
		/* no pass rate at head: never a silent pass */
		no_rate(&why, "head", head);
		if (judged(base))
			fail(gt, s, model, "pass_rate", "head_no_result", NULL, 0,
			     "the head has no result where the base passed %.0f%% of %lld: %s",
			     pct(base->pass_rate), (long long)base->n, why.ptr);
		else
			fail(gt, s, model, "pass_rate", "head_no_result", NULL, 0,
			     "the head has no result, so nothing was verified: %s", why.ptr);
	} else if (!judged(base)) {
		no_rate(&why, "base", base);
		fail(gt, s, model, "pass_rate", "base_no_result", NULL, 0,
		     "the head cannot be compared with the base, so nothing was verified: %s", why.ptr);
	} else
		check_pass_rate(gt, s, model, base, head);
	if (added) {
		sc_buf_clear(&why);
		if (!gt->g->require_lift)
			skip(gt, s, model, "lift", "gate.require_lift is false");
		else if (!judged(head) || !judged(baseline)) {
			no_rate(&why, judged(head) ? "baseline (no skill)" : "head",
				judged(head) ? baseline : head);
			if (excused)
				skip(gt, s, model, "lift", "%s: no kernel was run (gate.compile_only)",
				     why.ptr);
			else
				fail(gt, s, model, "lift", "lift_no_result", NULL, 0,
				     "the new skill was not compared with no skill: %s", why.ptr);
		} else
			check_lift(gt, s, model, baseline, head);
		if (excused && !judged(baseline))
			skip(gt, s, model, "discrimination", "no pass/fail units without the skill: no "
			     "kernel was run (gate.compile_only)");
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
		skip(gt, s, model, "tokens", "%s", why_not);
		skip(gt, s, model, "speedup", "%s", why_not);
		skip(gt, s, model, "judge", "%s", why_not);
	}
	check_kernel(gt, s, model, broken);
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
		pass(gt, s, NULL, "deleted", "deleted at head; allowed: the trusted config sets "
		     "gate.allow_deletions");
	else if (g->deletion_label[0] && g->deletion_labelled)
		pass(gt, s, NULL, "deleted", "deleted at head; allowed: the pull request carries "
		     "the label '%s' (gate.deletion_label)", g->deletion_label);
	else if (g->deletion_label[0])
		fail(gt, s, NULL, "deleted", "skill_deleted", s->skill_md, 0,
		     "the skill '%s' was deleted at head and nothing allows it: add the label '%s' to "
		     "the pull request, or set gate.allow_deletions in the trusted config",
		     s->name ? s->name : s->path, g->deletion_label);
	else
		fail(gt, s, NULL, "deleted", "skill_deleted", s->skill_md, 0,
		     "the skill '%s' was deleted at head and nothing allows it: set "
		     "gate.allow_deletions or gate.deletion_label in the trusted config",
		     s->name ? s->name : s->path);
}

/* What every message that says "add tests" says (docs/tests-format.md):
 * the command that writes them and where the format is, in the binary. */
#define ADD_TESTS "skillci tests init PATH writes a starter suite; the format: skillci help tests"

/*
 * An added skill with no test at all: nothing shows it works. Unverified:
 * with gate.allow_untested (the default) the check is skipped as
 * "unverified: no tests", else it fails tests_not_discriminating.
 */
static void check_added_untested(struct gate *gt, struct sc_results_skill *s)
{
	if (gt->g->allow_untested)
		skip(gt, s, NULL, "tests", "unverified: no tests: nothing shows the new skill works "
		     "(%s); accepted: gate.allow_untested is true in the trusted config", ADD_TESTS);
	else
		fail(gt, s, NULL, "discrimination", "tests_not_discriminating", s->skill_md, 0,
		     "unverified: no tests: the new skill has no tests, so nothing shows it works "
		     "(%s), and gate.allow_untested is false", ADD_TESTS);
}

/*
 * A modified or moved skill with no tests at base nor head: only its
 * validity was checked, nothing shows it still works. Unverified, shown
 * as "unverified: no tests" on every surface; it fails skill_untested
 * only when the trusted config refuses untested skills
 * (gate.allow_untested: false; the default accepts them, docs/run.md).
 */
static void check_untested(struct gate *gt, struct sc_results_skill *s)
{
	if (gt->g->allow_untested)
		skip(gt, s, NULL, "tests", "unverified: no tests at base nor head, so only the skill's "
		     "validity was checked (%s); accepted: gate.allow_untested is true in the trusted "
		     "config", ADD_TESTS);
	else
		fail(gt, s, NULL, "tests", "skill_untested", s->skill_md, 0,
		     "unverified: no tests: the skill '%s' has no tests at base nor head, so only its "
		     "validity was checked (%s); gate.allow_untested: false in the trusted config "
		     "refuses untested skills", s->name ? s->name : s->path, ADD_TESTS);
}

int sc_gate_apply(struct sc_results *r, const struct sc_config_gate *g)
{
	struct gate gt = { .r = r, .g = g };
	int64_t errors = 0, units = (int64_t)r->nunits;
	bool share_failed, blamed = false, broken = false;

	sc_gate_clear(r);
	if (!r->sorted)
		sc_results_sort(r);
	for (size_t i = 0; i < r->nunits; i++)
		errors += r->units[i].verdict && !strcmp(r->units[i].verdict, "error");
	r->gate.error_share = units ? (double)errors / (double)units : 0.0;
	share_failed = units && r->gate.error_share > g->error_share + 1e-12;
	plan_margins(&gt);
	plan_metrics(&gt);

	for (size_t si = 0; si < r->nskills; si++) {
		struct sc_results_skill *s = &r->skills[si];
		size_t first = 0, n;
		if (sc_streq(s->status, "unchanged"))
			continue;
		if (sc_streq(s->status, "deleted")) {
			check_deleted(&gt, s);
			if (s->nfindings)
				check_validity(&gt, s);  /* what stands at its path instead */
			continue;
		}
		check_validity(&gt, s);
		if (s->untested) {
			if (sc_streq(s->status, "added"))
				check_added_untested(&gt, s);
			else
				check_untested(&gt, s);
			continue;
		}
		n = sc_results_aggregates_range(r, s->path, &first);
		for (size_t i = first; i < first + n; i++)
			if (sc_streq(r->aggregates[i].variant, "head"))
				check_model(&gt, s, r->aggregates[i].model, share_failed, &broken);
	}
	for (size_t i = 0; i < r->gate.nfailures; i++)
		blamed |= sc_streq(r->gate.failures[i].rule, "error_share");
	if (share_failed && !blamed) {
		/* errors only where no check runs (a deleted skill's units, say):
		 * still a failure, of the run as a whole */
		struct sc_buf m = SC_BUF_INIT;
		sc_buf_printf(&m, "%lld of %lld units failed for infrastructure reasons (%.0f%%, "
			      "more than %.0f%%)", (long long)errors, (long long)units,
			      r->gate.error_share * 100, g->error_share * 100);
		sc_gate_add_run_failure(r, "error_share", "errors", m.ptr);
		sc_buf_release(&m);
	}
	r->gate.passed = r->gate.nfailures == 0;
	r->gate.exit_code = r->gate.passed ? 0 : share_failed || broken ? 3 : 1;
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

	for (size_t i = 0; i < r->nskills; i++)
		if (!strcmp(r->skills[i].path, skill))
			s = &r->skills[i];
	record(&gt, s, skill, model, sc_results_rule_check(rule), "failed", rule, "%s", message);
	r->gate.passed = false;
	if (r->gate.exit_code != 3)
		r->gate.exit_code = 1;
	sc_results_sort(r);
	return (int)r->gate.exit_code;
}

void sc_gate_add_run_failure(struct sc_results *r, const char *rule, const char *check,
			     const char *message)
{
	struct sc_results_gate_failure *f;

	r->gate.failures = sc_xrealloc(r->gate.failures,
				       (r->gate.nfailures + 1) * sizeof(*r->gate.failures));
	f = &r->gate.failures[r->gate.nfailures++];
	memset(f, 0, sizeof(*f));
	f->skill = sc_xstrdup("");
	f->model = sc_xstrdup("");
	f->rule = sc_xstrdup(rule);
	f->check = sc_xstrdup(check);
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
	out->fail_inconclusive = g->fail_inconclusive;
	out->allow_untested = g->allow_untested;
	out->first_runs = g->first_runs > 0 ? (int)g->first_runs : SC_CONFIG_FIRST_RUNS;
	out->max_runs = g->max_runs > 0 ? (int)g->max_runs : 0;
	out->planned_checks = g->planned_checks > 0 ? (size_t)g->planned_checks : 0;
}
