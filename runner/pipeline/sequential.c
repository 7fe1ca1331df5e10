/*
 * The group-sequential pass-rate decision (see sequential.h and
 * docs/evaluation.md, "Sequential sampling").
 */
#include "common.h"
#include "stats.h"
#include "pipeline/sequential.h"
#include "results/results.h"

#include <math.h>

void sc_seq_design_init(struct sc_seq_design *d, double alpha, double margin, int first_runs,
			int max_runs, size_t family)
{
	d->alpha = alpha;
	d->fail_alpha = alpha;
	d->margin = margin;
	d->beta = SC_SEQ_BETA;
	d->first_runs = first_runs > 0 ? first_runs : 1;
	d->max_runs = max_runs > 0 ? max_runs : 0;
	if (d->max_runs && d->max_runs < d->first_runs)
		d->max_runs = d->first_runs;
	d->family = family ? family : 1;
	d->rho = SC_SEQ_RHO;
	d->rho_beta = SC_SEQ_RHO_BETA;
	d->rule_out_power = SC_SEQ_RULE_OUT_POWER;
	if (d->max_runs && (d->max_runs + d->first_runs - 1) / d->first_runs > SC_STATS_GS_MAX_LOOKS)
		d->first_runs = (d->max_runs + SC_STATS_GS_MAX_LOOKS - 1) / SC_STATS_GS_MAX_LOOKS;
	sc_seq_design_compute(d);
}

void sc_seq_design_compute(struct sc_seq_design *d)
{
	double t[SC_STATS_GS_MAX_LOOKS] = { 0 };
	int k = sc_seq_looks(d);

	for (int i = 0; i < k; i++)
		t[i] = sc_seq_is_sequential(d) ? (double)sc_seq_look_runs(d, i + 1) / d->max_runs : 1.0;
	if (!sc_stats_gs_levels(d->lv_fail, t, (size_t)k, d->fail_alpha / (double)d->family, d->rho) ||
	    !sc_stats_gs_levels(d->lv_pass, t, (size_t)k, d->alpha, d->rho) ||
	    !sc_stats_gs_levels(d->lv_fut, t, (size_t)k, d->beta, d->rho_beta)) {
		/* only for a design outside the function's domain (alpha not in
		 * (0, 1)): nothing rejects */
		for (int i = 0; i < k; i++)
			d->lv_fail[i] = d->lv_pass[i] = d->lv_fut[i] = 0.0;
	}
}

void sc_seq_design_fail_alpha(struct sc_seq_design *d, double fail_alpha)
{
	d->fail_alpha = fail_alpha > 0 && fail_alpha < d->alpha ? fail_alpha : d->alpha;
	sc_seq_design_compute(d);
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

void sc_seq_levels(struct sc_seq_levels *out, const struct sc_seq_design *d, int k)
{
	double t = 1.0, t_prev = 0.0;

	if (sc_seq_is_sequential(d)) {
		t = (double)sc_seq_look_runs(d, k) / (double)d->max_runs;
		t_prev = k > 1 ? (double)sc_seq_look_runs(d, k - 1) / (double)d->max_runs : 0.0;
	}
	(void)t_prev;
	assert(k >= 1 && k <= sc_seq_looks(d));
	out->t = t;
	out->fail = d->lv_fail[k - 1];
	out->pass = d->lv_pass[k - 1];
	out->futility = sc_seq_is_sequential(d) ? d->lv_fut[k - 1] : 0.0;
}

const char *sc_seq_decision_name(enum sc_seq_decision v)
{
	switch (v) {
	case SC_SEQ_REGRESSION:
		return "regression";
	case SC_SEQ_RULED_OUT:
		return "ruled_out";
	case SC_SEQ_OPEN:
	case SC_SEQ_FUTILE:
	case SC_SEQ_INCONCLUSIVE:
		break;
	}
	return "inconclusive";
}

double sc_seq_design_drop(const struct sc_stats_paired *st, const struct sc_seq_design *d, int k)
{
	double se_max, z;

	if (!st->tests || isnan(st->se))
		return NAN;
	se_max = st->se;
	if (sc_seq_is_sequential(d))
		se_max *= sqrt((double)sc_seq_look_runs(d, k) / (double)d->max_runs);
	z = sc_stats_normal_quantile(1.0 - d->fail_alpha / (double)d->family) +
	    sc_stats_normal_quantile(1.0 - d->beta);
	return d->margin + z * se_max;
}

enum sc_seq_decision sc_seq_decide(const struct sc_stats_paired *st, const struct sc_seq_design *d,
				   int k)
{
	struct sc_seq_levels lv;
	bool last = k >= sc_seq_looks(d);

	if (!st->tests)
		return last ? SC_SEQ_INCONCLUSIVE : SC_SEQ_OPEN;
	sc_seq_levels(&lv, d, k);
	if (!isnan(st->p_drop) && st->p_drop < lv.fail)
		return SC_SEQ_REGRESSION;
	if (!isnan(st->p_within) && st->p_within < lv.pass)
		return SC_SEQ_RULED_OUT;
	if (last)
		return SC_SEQ_INCONCLUSIVE;
	if (st->se > 0) {
		/* P-value of "the drop is the design's drop or more" */
		double p = sc_stats_normal_cdf(-(st->mean + sc_seq_design_drop(st, d, k)) / st->se);
		/* the estimate so far, at max_runs' standard error: would the
		 * last look rule the margin out? Then sample on for that */
		double se_max = st->se * sqrt((double)sc_seq_look_runs(d, k) / (double)d->max_runs);
		double final_level = d->lv_pass[sc_seq_looks(d) - 1];
		double t = (double)sc_seq_look_runs(d, k) / (double)d->max_runs, cp = 0.0;
		bool could_rule_out;
		if (final_level > 0 && t < 1.0)
			cp = sc_stats_normal_cdf(((st->mean + d->margin) / se_max +
						  sc_stats_normal_quantile(final_level)) / sqrt(1.0 - t));
		could_rule_out = d->rule_out_power < 1.0 && cp >= d->rule_out_power;
		if (p < lv.futility && !could_rule_out)
			return SC_SEQ_FUTILE;
	}
	return SC_SEQ_OPEN;
}

void sc_seq_interval(struct sc_stats_paired *st, const struct sc_seq_design *d, int k)
{
	struct sc_seq_levels lv;

	if (k < 1 || k > sc_seq_looks(d))
		return;
	sc_seq_levels(&lv, d, k);
	sc_stats_paired_bounds(st, lv.pass, lv.fail);
}

size_t sc_seq_test_counts(const struct sc_results *r, const char *skill, const char *model,
			  long max_run, unsigned long **bp, unsigned long **bn,
			  unsigned long **hp, unsigned long **hn)
{
	return sc_seq_test_counts_of(r, skill, model, "base", "head", max_run, bp, bn, hp, hn);
}

size_t sc_seq_units_by_test(const struct sc_results *r, const char *skill, const char *model,
			    const char *base_variant, const char *head_variant, long max_run,
			    size_t *test_of)
{
	const char **ids = NULL;
	size_t n = 0, alloc = 0;

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		const char *id = u->test_id ? u->test_id : "";
		size_t t;
		test_of[i] = SIZE_MAX;
		if (!sc_streq(u->skill, skill) || !sc_streq(u->model, model) ||
		    !(sc_streq(u->variant, head_variant) || sc_streq(u->variant, base_variant)) ||
		    (max_run >= 0 && u->run_index >= max_run))
			continue;
		for (t = 0; t < n && !sc_streq(ids[t], id); t++)
			;
		if (t == n) {
			SC_GROW(ids, alloc, n + 1);
			ids[n++] = id;
		}
		test_of[i] = t;
	}
	free(ids);
	return n;
}

size_t sc_seq_test_counts_of(const struct sc_results *r, const char *skill, const char *model,
			     const char *base_variant, const char *head_variant, long max_run,
			     unsigned long **bp, unsigned long **bn, unsigned long **hp,
			     unsigned long **hn)
{
	size_t *test_of = sc_xmalloc((r->nunits ? r->nunits : 1) * sizeof(*test_of));
	size_t n = sc_seq_units_by_test(r, skill, model, base_variant, head_variant, max_run, test_of);

	*bp = sc_xcalloc(n ? n : 1, sizeof(**bp));
	*bn = sc_xcalloc(n ? n : 1, sizeof(**bn));
	*hp = sc_xcalloc(n ? n : 1, sizeof(**hp));
	*hn = sc_xcalloc(n ? n : 1, sizeof(**hn));
	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		bool passed = sc_streq(u->verdict, "pass");
		size_t t = test_of[i];
		if (t == SIZE_MAX || (!passed && !sc_streq(u->verdict, "fail")))
			continue;  /* skipped and erred units are not judged */
		if (sc_streq(u->variant, head_variant)) {
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
	const char *base, *head;
};

/* Whether r holds a unit of either side of skill and model with run_index >= run. */
static bool has_run_from(const struct sc_results *r, const char *skill, const char *model,
			 const struct pair *v, long run)
{
	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (u->run_index >= run && sc_streq(u->skill, skill) && sc_streq(u->model, model) &&
		    (sc_streq(u->variant, v->head) || sc_streq(u->variant, v->base)))
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

	sc_stats_paired_margin(&out->st, bp, bn, hp, hn, tests, d->margin, d->alpha,
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
	sc_seq_replay_of(out, r, skill, model, "base", "head", d);
}

void sc_seq_replay_of(struct sc_seq_outcome *out, const struct sc_results *r, const char *skill,
		      const char *model, const char *base_variant, const char *head_variant,
		      const struct sc_seq_design *d)
{
	int looks = sc_seq_looks(d);
	struct pair v = { base_variant, head_variant };

	memset(out, 0, sizeof(*out));
	if (!sc_seq_is_sequential(d)) {
		look_stats(out, r, skill, model, &v, d, -1);
		out->look = 1;
		out->runs = d->first_runs;
		out->decision = sc_seq_decide(&out->st, d, 1);
		sc_seq_interval(&out->st, d, 1);
		return;
	}
	for (int k = 1; k <= looks; k++) {
		long rk = sc_seq_look_runs(d, k);
		look_stats(out, r, skill, model, &v, d, rk);
		out->look = k;
		out->runs = (int)rk;
		out->decision = sc_seq_decide(&out->st, d, k);
		if (out->decision != SC_SEQ_OPEN || !has_run_from(r, skill, model, &v, rk)) {
			out->more = out->decision == SC_SEQ_OPEN;
			sc_seq_interval(&out->st, d, k);
			return;
		}
	}
}
