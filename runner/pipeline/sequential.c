/*
 * The group-sequential pass-rate decision (see sequential.h and
 * docs/evaluation.md, "Sequential sampling").
 */
#include "common.h"
#include "stats.h"
#include "pipeline/sequential.h"
#include "results/results.h"

#include <math.h>
#include <pthread.h>

static void design_compute(struct sc_seq_design *d);

void sc_seq_design_init(struct sc_seq_design *d, double alpha, double beta, double margin,
			double drop, int first_runs, int max_runs, size_t family)
{
	d->alpha = alpha;
	d->beta = beta;
	d->margin = margin > 0 ? margin : 0.0;
	d->drop = drop > d->margin ? drop : d->margin + 0.01;
	d->first_runs = first_runs > 0 ? first_runs : 1;
	d->max_runs = max_runs > 0 ? max_runs : 0;
	if (d->max_runs && d->max_runs < d->first_runs)
		d->max_runs = d->first_runs;
	d->family = family ? family : 1;
	if (d->max_runs && (d->max_runs + d->first_runs - 1) / d->first_runs > SC_SEQ_MAX_LOOKS)
		d->first_runs = (d->max_runs + SC_SEQ_MAX_LOOKS - 1) / SC_SEQ_MAX_LOOKS;
	design_compute(d);
}

/*
 * The boundaries whose errors are alpha' and beta for looks every
 * 1 / steps of the fixed design's information, truncated at imax of it
 * (from imax0; an imax the truncation alone would spend too much alpha at
 * is raised by 0.5, up to 4). The calibration takes milliseconds and
 * depends on alpha', beta, imax0 and steps alone: the last few are
 * remembered (a gate applied again to many results files, the benchmark).
 */
void sc_seq_calibrate(struct sc_seq_design *d, double imax0, int steps)
{
	static struct {
		double alpha, beta, imax0, a, b, imax;
		int steps;
	} memo[8];
	static size_t next;
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < SC_ARRAY_SIZE(memo); i++)
		if (memo[i].alpha == d->alpha_check && memo[i].beta == d->beta &&
		    memo[i].imax0 == imax0 && memo[i].steps == steps && memo[i].imax > 0) {
			d->log_a = memo[i].a;
			d->log_b = memo[i].b;
			d->imax = memo[i].imax;
			pthread_mutex_unlock(&lock);
			return;
		}
	pthread_mutex_unlock(&lock);
	for (d->imax = imax0; d->imax <= 4.0; d->imax += 0.5)
		if (sc_stats_sprt_calibrate(&d->log_a, &d->log_b, d->alpha_check, d->beta, d->imax,
					    steps))
			break;
	if (d->imax > 4.0) {
		/* outside the method's domain: Wald's boundaries, no truncation gain */
		d->imax = 4.0;
		d->log_a = log((1.0 - d->beta) / d->alpha_check);
		d->log_b = log((1.0 - d->alpha_check) / d->beta);
	}
	pthread_mutex_lock(&lock);
	memo[next].alpha = d->alpha_check;
	memo[next].beta = d->beta;
	memo[next].imax0 = imax0;
	memo[next].steps = steps;
	memo[next].a = d->log_a;
	memo[next].b = d->log_b;
	memo[next].imax = d->imax;
	next = (next + 1) % SC_ARRAY_SIZE(memo);
	pthread_mutex_unlock(&lock);
}

/* d's derived fields from its given ones. */
static void design_compute(struct sc_seq_design *d)
{
	double width = d->drop - d->margin;

	d->alpha_check = d->alpha / (double)(d->family ? d->family : 1);
	d->z = sc_stats_normal_quantile(1.0 - d->alpha_check) +
	       sc_stats_normal_quantile(1.0 - d->beta);
	d->i_fixed = d->z * d->z / (width * width);
	sc_seq_calibrate(d, SC_SEQ_IMAX, SC_SEQ_STEPS);
	d->i_max = d->imax * d->i_fixed;
}

bool sc_seq_is_sequential(const struct sc_seq_design *d)
{
	return d->max_runs > 0;
}

int sc_seq_looks(const struct sc_seq_design *d)
{
	if (!sc_seq_is_sequential(d))
		return 1;
	return (d->max_runs + d->first_runs - 1) / d->first_runs;
}

int sc_seq_look_runs(const struct sc_seq_design *d, int k)
{
	long r;

	if (!sc_seq_is_sequential(d))
		return d->first_runs;
	assert(k >= 1);
	r = (long)k * d->first_runs;
	return r > d->max_runs ? d->max_runs : (int)r;
}

int sc_seq_runs_needed(const struct sc_seq_design *d, size_t tests)
{
	if (!sc_seq_is_sequential(d) || !tests)
		return sc_seq_is_sequential(d) ? d->max_runs : d->first_runs;
	for (int r = 1; r < d->max_runs; r++) {
		/* the largest variance a test can be given from 2r runs
		 * (sc_stats_pooled_variance): n / (4 (n - 1)) at n = 2r */
		double n = 2.0 * r, s2 = 0.25 * n / (n - 1.0);
		/* information = T^2 / sum_t s2 (1/r + 1/r) at the least */
		if ((double)tests * r / (2.0 * s2) >= d->i_max)
			return r;
	}
	return d->max_runs;
}

enum sc_decision sc_seq_decision_result(enum sc_seq_decision v)
{
	switch (v) {
	case SC_SEQ_REGRESSION:
		return SC_DECISION_REGRESSION;
	case SC_SEQ_RULED_OUT:
		return SC_DECISION_RULED_OUT;
	case SC_SEQ_OPEN:
	case SC_SEQ_UNVERIFIED:
		break;
	}
	return SC_DECISION_UNVERIFIED;
}

bool sc_seq_look(struct sc_seq_look *out, const struct sc_seq_design *d,
		 const struct sc_stats_paired *st, double info_prev)
{
	double width = d->drop - d->margin, dt, c;

	memset(out, 0, sizeof(*out));
	if (!st->tests || isnan(st->se) || !(st->se > 0))
		return false;
	out->info = 1.0 / (st->se * st->se);
	out->llr = width * (-st->mean - 0.5 * (d->margin + d->drop)) * out->info;
	/* a look after less information than the boundaries were made for
	 * sees the path more often than they assume: raise both by the
	 * difference in expected overshoot (never lower them) */
	dt = (out->info - (info_prev > 0 ? info_prev : 0.0)) / d->i_fixed;
	c = SC_SEQ_OVERSHOOT * d->z * (sqrt(1.0 / SC_SEQ_STEPS) - sqrt(dt > 0 ? dt : 0.0));
	if (c < 0)
		c = 0;
	out->fail_at = d->log_a + c;
	out->pass_at = -(d->log_b + c);
	out->end = out->info >= d->i_max;
	if (out->end)
		out->fail_at = out->pass_at = 0.0;
	return true;
}

enum sc_seq_decision sc_seq_decide(const struct sc_stats_paired *st, const struct sc_seq_design *d,
				   int k, double info_prev)
{
	bool last = k >= sc_seq_looks(d);
	struct sc_seq_look at;

	if (!st->tests)
		return last ? SC_SEQ_UNVERIFIED : SC_SEQ_OPEN;
	if (!sc_seq_is_sequential(d)) {
		/* one look: the plain one-sided tests at alpha' and beta */
		double drop = -st->mean;
		if (!(st->se > 0))
			return drop > d->margin ? SC_SEQ_REGRESSION
			       : drop < d->drop ? SC_SEQ_RULED_OUT : SC_SEQ_UNVERIFIED;
		if ((drop - d->margin) / st->se > sc_stats_normal_quantile(1.0 - d->alpha_check))
			return SC_SEQ_REGRESSION;
		if ((d->drop - drop) / st->se > sc_stats_normal_quantile(1.0 - d->beta))
			return SC_SEQ_RULED_OUT;
		return SC_SEQ_UNVERIFIED;
	}
	if (!sc_seq_look(&at, d, st, info_prev))
		return last ? SC_SEQ_UNVERIFIED : SC_SEQ_OPEN;
	if (at.end)
		return at.llr >= 0 ? SC_SEQ_REGRESSION : SC_SEQ_RULED_OUT;
	if (at.llr >= at.fail_at)
		return SC_SEQ_REGRESSION;
	if (at.llr <= at.pass_at)
		return SC_SEQ_RULED_OUT;
	return last ? SC_SEQ_UNVERIFIED : SC_SEQ_OPEN;
}

/*
 * Sets st's interval (lo, hi) for a report: the plain one-sided (1 -
 * alpha') bounds of the difference at the look decided. The verdict is
 * the likelihood ratio's, not the interval's; the interval says where
 * the difference lies.
 */
static void sc_seq_interval(struct sc_stats_paired *st, const struct sc_seq_design *d)
{
	sc_stats_paired_bounds(st, d->alpha_check, d->alpha_check);
}

size_t sc_seq_units_by_test(const struct sc_results *r, const char *skill, const char *model,
			    enum sc_variant base_variant, enum sc_variant head_variant, long max_run,
			    size_t first, size_t count, size_t *test_of)
{
	const char **ids = NULL;
	size_t n = 0, alloc = 0;

	for (size_t k = 0; k < count; k++) {
		const struct sc_results_unit *u = &r->units[first + k];
		const char *id = u->test_id ? u->test_id : "";
		size_t t;
		test_of[k] = SIZE_MAX;
		if (!sc_streq(u->skill, skill) || !sc_streq(u->model, model) ||
		    !(u->variant == head_variant || u->variant == base_variant) ||
		    (max_run >= 0 && u->run_index >= max_run))
			continue;
		for (t = 0; t < n && !sc_streq(ids[t], id); t++)
			;
		if (t == n) {
			SC_GROW(ids, alloc, n + 1);
			ids[n++] = id;
		}
		test_of[k] = t;
	}
	free(ids);
	return n;
}

/*
 * sc_seq_test_counts with the two sides named: base_variant's units are
 * the "base" arrays, head_variant's the "head" ones. `eval` compares the
 * skill against no skill with base_variant "head" (the skill) and
 * head_variant "baseline", so that a "drop" is the baseline falling
 * short of the skill: a lift (docs/evaluation.md, "skillci eval").
 */
static size_t sc_seq_test_counts_of(const struct sc_results *r, const char *skill,
				    const char *model,
				    enum sc_variant base_variant, enum sc_variant head_variant, long max_run,
				    unsigned long **bp, unsigned long **bn, unsigned long **hp,
				    unsigned long **hn)
{
	size_t first, count = sc_results_units_of(r, skill, model, &first);
	size_t *test_of = sc_xmalloc((count ? count : 1) * sizeof(*test_of));
	size_t n = sc_seq_units_by_test(r, skill, model, base_variant, head_variant, max_run, first,
					count, test_of);

	*bp = sc_xcalloc(n ? n : 1, sizeof(**bp));
	*bn = sc_xcalloc(n ? n : 1, sizeof(**bn));
	*hp = sc_xcalloc(n ? n : 1, sizeof(**hp));
	*hn = sc_xcalloc(n ? n : 1, sizeof(**hn));
	for (size_t k = 0; k < count; k++) {
		const struct sc_results_unit *u = &r->units[first + k];
		bool passed = u->verdict == SC_UNIT_PASS;
		size_t t = test_of[k];
		if (t == SIZE_MAX || (!passed && u->verdict != SC_UNIT_FAIL))
			continue;  /* skipped and erred units are not judged */
		if (u->variant == head_variant) {
			(*hn)[t]++;
			(*hp)[t] += passed;
		} else {
			(*bn)[t]++;
			(*bp)[t] += passed;
		}
	}
	free(test_of);
	return n;
}

/* The two sides of a check: the variants compared (base, head). */
struct pair {
	enum sc_variant base, head;
};

/* Whether r holds a unit of either side of skill and model with run_index >= run. */
static bool has_run_from(const struct sc_results *r, const char *skill, const char *model,
			 const struct pair *v, long run)
{
	size_t first, n = sc_results_units_of(r, skill, model, &first);

	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (u->run_index >= run && sc_streq(u->skill, skill) && sc_streq(u->model, model) &&
		    (u->variant == v->head || u->variant == v->base))
			return true;
	}
	return false;
}

/* True when the check has a unit (of either side) with run_index < run:
 * its rounds up to there ran. */
static bool has_run_before(const struct sc_results *r, const char *skill, const char *model,
			   const struct pair *v, long run)
{
	size_t first, n = sc_results_units_of(r, skill, model, &first);

	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (u->run_index < run && sc_streq(u->skill, skill) && sc_streq(u->model, model) &&
		    (u->variant == v->head || u->variant == v->base))
			return true;
	}
	return false;
}

/* The paired statistics of one look: the units with run_index < max_run. */
static void look_stats(struct sc_seq_outcome *out, const struct sc_results *r, const char *skill,
		       const char *model, const struct pair *v, const struct sc_seq_design *d,
		       long max_run)
{
	unsigned long *bp, *bn, *hp, *hn;
	size_t tests = sc_seq_test_counts_of(r, skill, model, v->base, v->head, max_run, &bp, &bn,
					     &hp, &hn);

	sc_stats_paired_margin(&out->st, bp, bn, hp, hn, tests, d->margin, d->alpha_check,
			       SC_STATS_STRATIFIED);
	out->base_units = out->head_units = 0;
	for (size_t t = 0; t < tests; t++) {
		if (!bn[t] || !hn[t])
			continue;  /* as the statistics: judged at both sides */
		out->base_units += bn[t];
		out->head_units += hn[t];
	}
	free(bp); free(bn); free(hp); free(hn);
}

void sc_seq_replay(struct sc_seq_outcome *out, const struct sc_results *r, const char *skill,
		   const char *model, const struct sc_seq_design *d)
{
	sc_seq_replay_of(out, r, skill, model, SC_VARIANT_BASE, SC_VARIANT_HEAD, d);
}

void sc_seq_replay_of(struct sc_seq_outcome *out, const struct sc_results *r, const char *skill,
		      const char *model, enum sc_variant base_variant, enum sc_variant head_variant,
		      const struct sc_seq_design *d)
{
	int looks = sc_seq_looks(d);
	struct pair v = { base_variant, head_variant };
	double info_prev = 0.0;

	memset(out, 0, sizeof(*out));
	if (!sc_seq_is_sequential(d)) {
		look_stats(out, r, skill, model, &v, d, -1);
		out->look = 1;
		out->runs = d->first_runs;
		out->decision = sc_seq_decide(&out->st, d, 1, 0.0);
		sc_seq_interval(&out->st, d);
		return;
	}
	for (int k = 1; k <= looks; k++) {
		long rk = sc_seq_look_runs(d, k);
		look_stats(out, r, skill, model, &v, d, rk);
		out->look = k;
		out->runs = (int)rk;
		out->decision = sc_seq_decide(&out->st, d, k, info_prev);
		/* its rounds ran and no test was judged at both sides: every
		 * unit errored or could not be judged (a compile-only kernel),
		 * and another round would end the same way */
		if (!out->st.tests && has_run_before(r, skill, model, &v, rk))
			out->decision = SC_SEQ_UNVERIFIED;
		(void)sc_seq_look(&out->at, d, &out->st, info_prev);
		if (out->decision != SC_SEQ_OPEN || !has_run_from(r, skill, model, &v, rk)) {
			out->more = out->decision == SC_SEQ_OPEN;
			sc_seq_interval(&out->st, d);
			return;
		}
		if (out->at.info > info_prev)
			info_prev = out->at.info;
	}
}
