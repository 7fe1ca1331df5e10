/*
 * Statistics for evaluation results (see stats.h and docs/evaluation.md).
 */
#include "common.h"
#include "stats.h"

#include <math.h>

bool sc_stats_wilson(double *lo, double *hi, unsigned long k, unsigned long n, double z)
{
	double p, z2, denom, center, half, dn;

	assert(k <= n);
	if (n == 0) {
		*lo = NAN;
		*hi = NAN;
		return false;
	}
	dn = (double)n;
	p = (double)k / dn;
	z2 = z * z;
	denom = 1.0 + z2 / dn;
	center = (p + z2 / (2.0 * dn)) / denom;
	half = z * sqrt(p * (1.0 - p) / dn + z2 / (4.0 * dn * dn)) / denom;
	*lo = center - half;
	*hi = center + half;
	/* Exact bounds at the edges: rounding must not put 0/n above 0. */
	if (k == 0 || *lo < 0.0)
		*lo = 0.0;
	if (k == n || *hi > 1.0)
		*hi = 1.0;
	return true;
}

double sc_stats_log_choose(unsigned long n, unsigned long k)
{
	if (k > n)
		return -INFINITY;
	if (k == 0 || k == n)
		return 0.0;
	return lgamma((double)n + 1.0) - lgamma((double)k + 1.0) - lgamma((double)(n - k) + 1.0);
}

/*
 * P(X <= k) for X ~ Binomial(n, 1/2), as a log: the terms log C(n,i) -
 * n log 2 for i = 0..k are summed with the log-sum-exp trick around the
 * largest term (i = k, since k <= n/2 here).
 */
static double log_lower_tail_half(unsigned long k, unsigned long n)
{
	double lmax = sc_stats_log_choose(n, k);
	double sum = 0.0;

	for (unsigned long i = 0; i <= k; i++)
		sum += exp(sc_stats_log_choose(n, i) - lmax);
	return lmax + log(sum) - (double)n * M_LN2;
}

double sc_stats_sign_test_p(unsigned long k, unsigned long n)
{
	unsigned long lo;
	double p;

	assert(k <= n);
	if (n == 0)
		return 1.0;
	lo = k < n - k ? k : n - k;
	/* The two tails overlap at the middle when 2*lo == n: p is 1. */
	if (2 * lo == n)
		return 1.0;
	if (n <= 1000) {
		/* Direct sum: C(n,0)/2^n is an exact power of two and each next
		 * term is the last times (n-i)/(i+1), so small tails are exact
		 * and the rest within a few ulps; nothing underflows here. */
		double term = ldexp(1.0, -(int)n), sum = 0.0;
		for (unsigned long i = 0; i <= lo; i++) {
			sum += term;
			term = term * (double)(n - i) / (double)(i + 1);
		}
		p = 2.0 * sum;
	} else {
		p = 2.0 * exp(log_lower_tail_half(lo, n));
	}
	return p > 1.0 ? 1.0 : p;
}

double sc_stats_mcnemar_p(unsigned long b, unsigned long c)
{
	return sc_stats_sign_test_p(b, b + c);
}

double sc_stats_geomean(const double *x, size_t n)
{
	double sum = 0.0;
	size_t used = 0;

	for (size_t i = 0; i < n; i++) {
		if (!(x[i] > 0.0) || isinf(x[i]))
			continue;
		sum += log(x[i]);
		used++;
	}
	return used ? exp(sum / (double)used) : NAN;
}

double sc_stats_fast_p(const bool *correct, const double *speedup, size_t n, double p)
{
	size_t fast = 0;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		if (correct[i] && !isnan(speedup[i]) && speedup[i] > p)
			fast++;
	return (double)fast / (double)n;
}

double sc_stats_mean(const double *x, size_t n)
{
	double sum = 0.0;
	size_t used = 0;

	for (size_t i = 0; i < n; i++) {
		if (isnan(x[i]))
			continue;
		sum += x[i];
		used++;
	}
	return used ? sum / (double)used : NAN;
}

double sc_stats_skill_lift(double with_rate, double baseline_rate)
{
	return with_rate - baseline_rate;
}

double sc_stats_token_savings(double with_tokens, double baseline_tokens)
{
	if (baseline_tokens == 0.0 || isnan(baseline_tokens) || isnan(with_tokens))
		return 0.0;
	return 1.0 - with_tokens / baseline_tokens;
}

bool sc_stats_is_beneficial(double skill_lift, double token_savings)
{
	return skill_lift > SC_STATS_LIFT_BENEFIT ||
	       (skill_lift >= 0.0 && token_savings > SC_STATS_SAVINGS_BENEFIT);
}

/* Continued fraction of the incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), h;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	h = d;
	for (int m = 1; m <= 400; m++) {
		double dm = (double)m, num, del;
		/* even step */
		num = dm * (b - dm) * x / ((a + 2 * dm - 1) * (a + 2 * dm));
		d = 1.0 + num * d;
		d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
		c = 1.0 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		h *= d * c;
		/* odd step */
		num = -(a + dm) * (a + b + dm) * x / ((a + 2 * dm) * (a + 2 * dm + 1));
		d = 1.0 + num * d;
		d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
		c = 1.0 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		del = d * c;
		h *= del;
		if (fabs(del - 1.0) < 1e-15)
			break;
	}
	return h;
}

/* The regularized incomplete beta function I_x(a, b), 0 <= x <= 1. */
static double beta_inc(double a, double b, double x)
{
	double front;

	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1.0) / (a + b + 2.0))
		return front * beta_cf(a, b, x) / a;
	return 1.0 - front * beta_cf(b, a, 1.0 - x) / b;
}

double sc_stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || isnan(df) || df <= 0)
		return NAN;
	if (isinf(t))
		return t > 0 ? 1.0 : 0.0;
	if (df > 1e7)  /* the normal, INFINITY included */
		return 0.5 * erfc(-t / sqrt(2.0));
	/* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
	tail = 0.5 * beta_inc(df / 2.0, 0.5, df / (df + t * t));
	return t >= 0 ? 1.0 - tail : tail;
}

double sc_stats_t_quantile(double p, double df)
{
	double lo = -1.0, hi = 1.0;

	if (isnan(p) || isnan(df) || p <= 0.0 || p >= 1.0 || df <= 0)
		return NAN;
	while (sc_stats_t_cdf(lo, df) > p && lo > -1e300)
		lo *= 2.0;
	while (sc_stats_t_cdf(hi, df) < p && hi < 1e300)
		hi *= 2.0;
	for (int i = 0; i < 200 && hi - lo > 1e-13 * (1.0 + fabs(lo)); i++) {
		double mid = 0.5 * (lo + hi);
		if (sc_stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

/* The indices of p's non-NaN values sorted by value (insertion sort: the
 * families are small, skills x models); returns their count. */
static size_t holm_order(const double *p, size_t n, size_t *order)
{
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			order[m++] = i;
	for (size_t i = 1; i < m; i++) {
		size_t k = order[i], j = i;
		while (j > 0 && p[order[j - 1]] > p[k]) {
			order[j] = order[j - 1];
			j--;
		}
		order[j] = k;
	}
	return m;
}

void sc_stats_holm(const double *p, size_t n, double *adj)
{
	size_t *order, m;
	double *val, run = 0.0;

	if (!n)
		return;
	order = sc_xmalloc(n * sizeof(*order));
	val = sc_xmalloc(n * sizeof(*val));
	memcpy(val, p, n * sizeof(*val));
	m = holm_order(val, n, order);
	for (size_t j = 0; j < m; j++) {
		double a = (double)(m - j) * val[order[j]];
		if (a > 1.0)
			a = 1.0;
		if (a > run)
			run = a;
		adj[order[j]] = run;
	}
	for (size_t i = 0; i < n; i++)
		if (isnan(val[i]))
			adj[i] = NAN;
	free(order);
	free(val);
}

void sc_stats_holm_levels(const double *p, size_t n, double alpha, double *level)
{
	size_t *order, m, stop;

	if (!n)
		return;
	order = sc_xmalloc(n * sizeof(*order));
	m = holm_order(p, n, order);
	stop = m;
	for (size_t j = 0; j < m; j++) {
		size_t at = j < stop ? j : stop;
		level[order[j]] = alpha / (double)(m - at);
		if (j < stop && !(p[order[j]] < level[order[j]]))
			stop = j;  /* the step-down ends here: later ones keep this level */
	}
	for (size_t i = 0; i < n; i++)
		if (isnan(p[i]))
			level[i] = NAN;
	free(order);
}

/* The tests of a paired estimate out->mean with standard error out->se
 * (> 0) on out->df degrees of freedom against the margin: both one-sided
 * p-values, the (1 - alpha) bounds and the drop detectable with 80% power. */
static void paired_test(struct sc_stats_paired *out, double margin, double alpha)
{
	double tq = sc_stats_t_quantile(1.0 - alpha, out->df);
	double stat = (out->mean + margin) / out->se;

	out->lo = out->mean - tq * out->se;
	out->hi = out->mean + tq * out->se;
	out->p_drop = sc_stats_t_cdf(stat, out->df);
	out->p_within = sc_stats_t_cdf(-stat, out->df);
	out->detectable = margin + (tq + sc_stats_t_quantile(0.8, out->df)) * out->se;
}

bool sc_stats_paired_margin(struct sc_stats_paired *out, const unsigned long *base_pass,
			    const unsigned long *base_n, const unsigned long *head_pass,
			    const unsigned long *head_n, size_t ntests, double margin, double alpha,
			    enum sc_stats_method method)
{
	double sum = 0.0, sumsq = 0.0, vsum = 0.0, tcount;
	size_t t = 0;

	out->tests = 0;
	out->mean = out->se = out->df = out->lo = out->hi = NAN;
	out->p_drop = out->p_within = out->detectable = NAN;
	for (size_t i = 0; i < ntests; i++) {
		double d, q, nb, nh;
		if (!base_n[i] || !head_n[i])
			continue;
		nb = (double)base_n[i];
		nh = (double)head_n[i];
		d = (double)head_pass[i] / nh - (double)base_pass[i] / nb;
		q = ((double)(base_pass[i] + head_pass[i]) + 1.0) / (nb + nh + 2.0);
		sum += d;
		sumsq += d * d;
		vsum += q * (1.0 - q) * (1.0 / nb + 1.0 / nh);
		t++;
	}
	if (!t)
		return false;
	tcount = (double)t;
	out->tests = t;
	out->mean = sum / tcount;
	if (method == SC_STATS_CLUSTER) {
		double var = t > 1 ? (sumsq - tcount * out->mean * out->mean) / (tcount - 1.0) : 0.0;
		if (var < vsum / tcount)
			var = vsum / tcount;
		out->se = sqrt(var / tcount);
		out->df = t > 1 ? tcount - 1.0 : 1.0;
	} else {
		out->se = sqrt(vsum) / tcount;
		out->df = INFINITY;
	}
	paired_test(out, margin, alpha);
	/* a difference of pass rates lies in [-1, 1]: the bounds are cut there */
	out->lo = fmax(out->lo, -1.0);
	out->hi = fmin(out->hi, 1.0);
	return true;
}

void sc_stats_sample_add(struct sc_stats_sample *s, double x)
{
	s->n++;
	s->sum += x;
	s->sumsq += x * x;
}

/* The sum of squared deviations of a sample from its mean (never below 0). */
static double sample_ss(const struct sc_stats_sample *s)
{
	double ss = s->sumsq - s->sum * s->sum / (double)s->n;
	return ss > 0 ? ss : 0.0;
}

bool sc_stats_paired_values(struct sc_stats_paired *out, const struct sc_stats_sample *base,
			    const struct sc_stats_sample *head, size_t ntests, double margin,
			    double alpha)
{
	double sum = 0.0, sumsq = 0.0, ss_w = 0.0, df_w = 0.0, inv = 0.0, tcount;
	bool within = true;
	size_t t = 0;

	out->tests = 0;
	out->mean = out->se = out->df = out->lo = out->hi = NAN;
	out->p_drop = out->p_within = out->detectable = NAN;
	for (size_t i = 0; i < ntests; i++) {
		double d;
		if (!base[i].n || !head[i].n)
			continue;
		d = head[i].sum / (double)head[i].n - base[i].sum / (double)base[i].n;
		sum += d;
		sumsq += d * d;
		within &= base[i].n >= 2 && head[i].n >= 2;
		ss_w += sample_ss(&base[i]) + sample_ss(&head[i]);
		df_w += (double)(base[i].n - 1) + (double)(head[i].n - 1);
		inv += 1.0 / (double)base[i].n + 1.0 / (double)head[i].n;
		t++;
	}
	if (!t)
		return false;
	tcount = (double)t;
	out->tests = t;
	out->mean = sum / tcount;
	if (within) {
		out->se = sqrt(ss_w / df_w * inv) / tcount;
		out->df = df_w;
	} else if (t >= 2) {
		double var = (sumsq - tcount * out->mean * out->mean) / (tcount - 1.0);
		out->se = sqrt((var > 0 ? var : 0.0) / tcount);
		out->df = tcount - 1.0;
	} else
		return true;  /* one test, one replicate a side: no estimate */
	if (out->se > 0)
		paired_test(out, margin, alpha);
	else {
		out->lo = out->hi = out->mean;
		out->p_drop = out->mean < -margin ? 0.0 : 1.0;
		out->p_within = out->mean > -margin ? 0.0 : 1.0;
		out->detectable = margin;
	}
	return true;
}

void sc_stats_paired_bounds(struct sc_stats_paired *st, double lo_level, double hi_level)
{
	if (!st->tests || isnan(st->se))
		return;
	st->lo = lo_level > 0.0 ? fmax(st->mean - sc_stats_t_quantile(1.0 - lo_level, st->df) * st->se, -1.0)
				: -1.0;
	st->hi = hi_level > 0.0 ? fmin(st->mean + sc_stats_t_quantile(1.0 - hi_level, st->df) * st->se, 1.0)
				: 1.0;
}

double sc_stats_normal_cdf(double x)
{
	if (isnan(x))
		return NAN;
	return 0.5 * erfc(-x / M_SQRT2);
}

double sc_stats_normal_quantile(double p)
{
	return sc_stats_t_quantile(p, INFINITY);
}

double sc_stats_obf_spend(double t, double alpha)
{
	if (isnan(t) || isnan(alpha) || !(alpha > 0.0))
		return NAN;
	if (t <= 0.0)
		return 0.0;
	if (t >= 1.0)
		return alpha;
	/* 2 (1 - PHI(x)) = erfc(x / sqrt 2), without the cancellation */
	return erfc(sc_stats_normal_quantile(1.0 - alpha / 2.0) / sqrt(t) / M_SQRT2);
}

double sc_stats_spend(double t, double alpha, double rho)
{
	if (rho <= 0.0 || isnan(rho))
		return sc_stats_obf_spend(t, alpha);
	if (isnan(t) || isnan(alpha) || !(alpha > 0.0))
		return NAN;
	if (t <= 0.0)
		return 0.0;
	if (t >= 1.0)
		return alpha;
	return alpha * pow(t, rho);
}

double sc_stats_spend_level(double t_prev, double t, double alpha, double rho)
{
	double d = sc_stats_spend(t, alpha, rho) - sc_stats_spend(t_prev, alpha, rho);

	return d > 0.0 ? d : 0.0;
}

/* The grid of the recursive integration: points per look. */
#define GS_GRID 601
/* The statistic's boundary when a look spends nothing: never crossed. */
#define GS_NEVER 40.0

/* P(Z > x) for the standard normal, accurate in the far tail. */
static double upper_tail(double x)
{
	return 0.5 * erfc(x / M_SQRT2);
}

/*
 * The chance of crossing at this look: sum over the previous look's grid
 * (points u, weights w times the sub-density f) of P(S_new >= b | S = u)
 * with the increment's standard deviation sd.
 */
static double gs_cross(const double *u, const double *wf, size_t m, double b, double sd)
{
	double sum = 0.0;

	for (size_t j = 0; j < m; j++)
		sum += wf[j] * upper_tail((b - u[j]) / sd);
	return sum;
}

bool sc_stats_gs_levels(double *levels, const double *t, size_t k, double alpha, double rho)
{
	double *u, *wf, *nu, *nwf, prev_t = 0.0, spent_before = 0.0;
	size_t m = 0;

	if (!k || k > SC_STATS_GS_MAX_LOOKS || !(alpha > 0.0) || !(alpha < 1.0))
		return false;
	for (size_t i = 0; i < k; i++)
		if (!(t[i] > (i ? t[i - 1] : 0.0)) || t[i] > 1.0)
			return false;
	for (size_t i = 0; i < k; i++)
		levels[i] = 0.0;
	u = sc_xmalloc(GS_GRID * sizeof(*u));
	wf = sc_xmalloc(GS_GRID * sizeof(*wf));
	nu = sc_xmalloc(GS_GRID * sizeof(*nu));
	nwf = sc_xmalloc(GS_GRID * sizeof(*nwf));
	for (size_t i = 0; i < k; i++) {
		double spent = sc_stats_spend(t[i], alpha, rho), inc = spent - spent_before;
		double sd = sqrt(t[i] - prev_t), st = sqrt(t[i]), c, lo, h;
		if (inc <= 0.0) {
			c = GS_NEVER;
		} else if (i == 0) {
			c = -sc_stats_normal_quantile(inc);
		} else {
			/* the crossing chance falls as c grows: bisect it */
			double a = -GS_NEVER, b = GS_NEVER;
			for (int it = 0; it < 100 && b - a > 1e-10; it++) {
				double mid = 0.5 * (a + b);
				if (gs_cross(u, wf, m, mid * st, sd) > inc)
					a = mid;
				else
					b = mid;
			}
			c = 0.5 * (a + b);
		}
		if (c > GS_NEVER)
			c = GS_NEVER;
		levels[i] = c >= GS_NEVER ? 0.0 : upper_tail(c);
		/* the sub-density of S = Z sqrt(t) on the continuation region
		 * (-10 sqrt(t), c sqrt(t)), trapezoid weights folded in */
		lo = -10.0 * st;
		h = (c * st - lo) / (GS_GRID - 1);
		if (!(h > 0.0))
			break;  /* nothing continues: later looks spend on nothing */
		for (size_t j = 0; j < GS_GRID; j++) {
			double s = lo + h * (double)j, f = 0.0;
			if (i == 0) {
				f = exp(-0.5 * s * s / t[0]) / (st * sqrt(2.0 * M_PI));
			} else {
				for (size_t q = 0; q < m; q++) {
					double z = (s - u[q]) / sd;
					f += wf[q] * exp(-0.5 * z * z);
				}
				f /= sd * sqrt(2.0 * M_PI);
			}
			nu[j] = s;
			nwf[j] = f * h * (j == 0 || j == GS_GRID - 1 ? 0.5 : 1.0);
		}
		memcpy(u, nu, GS_GRID * sizeof(*u));
		memcpy(wf, nwf, GS_GRID * sizeof(*wf));
		m = GS_GRID;
		prev_t = t[i];
		spent_before = spent;
	}
	free(u); free(wf); free(nu); free(nwf);
	return true;
}
