/*
 * Statistics for evaluation results (see stats.h and docs/evaluation.md).
 */
#include "common.h"
#include "stats.h"

#include <math.h>

/* log |Gamma(x)|: lgamma() sets the global signgam, a data race when the
 * gate's checks are computed in parts over the cores; lgamma_r does not. */
static double lgam(double x)
{
	int sign;

	return lgamma_r(x, &sign);
}
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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
	return lgam((double)n + 1.0) - lgam((double)k + 1.0) - lgam((double)(n - k) + 1.0);
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
	front = exp(lgam(a + b) - lgam(a) - lgam(b) + a * log(x) + b * log1p(-x));
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

/* The bisection of sc_stats_t_quantile. */
static double t_quantile(double p, double df)
{
	double lo = -1.0, hi = 1.0;

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

double sc_stats_t_quantile(double p, double df)
{
	/* a gate asks the same few (p, df) for thousands of checks: the last
	 * few answers are kept, per thread */
	static _Thread_local struct {
		double p, df, q;
	} memo[8];
	static _Thread_local unsigned next;
	double q;

	if (isnan(p) || isnan(df) || p <= 0.0 || p >= 1.0 || df <= 0)
		return NAN;
	for (size_t i = 0; i < SC_ARRAY_SIZE(memo); i++)
		if (memo[i].df > 0 && memo[i].p == p && memo[i].df == df)
			return memo[i].q;
	q = t_quantile(p, df);
	memo[next].p = p;
	memo[next].df = df;
	memo[next].q = q;
	next = (next + 1) % SC_ARRAY_SIZE(memo);
	return q;
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

/* x (n - x) / (n (n - 1)): unbiased for p (1 - p) from x passes of n >= 2 runs. */
static double unbiased_variance(double x, double n)
{
	return x * (n - x) / (n * (n - 1.0));
}

double sc_stats_pooled_variance(unsigned long passes, unsigned long n)
{
	double x = (double)passes, m = (double)n, smooth;

	if (!n)
		return NAN;
	/* (x + 1) / (n + 2) keeps 0 of n and n of n from reading as certain */
	smooth = (x + 1.0) * (m - x + 1.0) / ((m + 2.0) * (m + 2.0));
	if (n < 2)
		return smooth;
	/* the smoothed value alone is 0.875 of the unbiased one at p = 1/2
	 * with one run a side */
	return fmax(unbiased_variance(x, m), smooth);
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
	double sum = 0.0, sumsq = 0.0, vsum = 0.0, usum = 0.0, wsum = 0.0, tcount;
	unsigned long passes = 0, units = 0;
	size_t t = 0;

	out->tests = 0;
	out->mean = out->se = out->df = out->lo = out->hi = NAN;
	out->p_drop = out->p_within = out->detectable = NAN;
	for (size_t i = 0; i < ntests; i++) {
		double d, q, nb, nh, w, x, n;
		if (!base_n[i] || !head_n[i])
			continue;
		nb = (double)base_n[i];
		nh = (double)head_n[i];
		d = (double)head_pass[i] / nh - (double)base_pass[i] / nb;
		q = sc_stats_pooled_variance(base_pass[i] + head_pass[i], base_n[i] + head_n[i]);
		w = 1.0 / nb + 1.0 / nh;
		x = (double)(base_pass[i] + head_pass[i]);
		n = nb + nh;
		sum += d;
		sumsq += d * d;
		vsum += q * w;
		usum += unbiased_variance(x, n) * w;   /* n >= 2: a run a side */
		wsum += w;
		passes += base_pass[i] + head_pass[i];
		units += base_n[i] + head_n[i];
		t++;
	}
	if (!t)
		return false;
	{
		/* the tests' floors together never above the variance the suite
		 * would have if every test had its pooled pass rate (the most
		 * tests of that mean rate can have: p (1 - p) is concave), that
		 * rate taken at the end of its 80% interval nearest one half;
		 * never below the sum of the unbiased estimates */
		double lo, hi, mu, bound;
		sc_stats_wilson(&lo, &hi, passes, units, SC_STATS_Z80);
		mu = (double)passes > 0.5 * (double)units ? fmax(lo, 0.5) : fmin(hi, 0.5);
		bound = fmax(usum, mu * (1.0 - mu) * wsum);
		if (bound < vsum)
			vsum = bound;
	}
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

/* P(Z > x) for the standard normal, accurate in the far tail. */
static double upper_tail(double x)
{
	return 0.5 * erfc(x / M_SQRT2);
}

/* ---- the truncated sequential probability ratio test --------------------- */

/* Points of the grid the continuation density is carried on. */
#define SPRT_GRID 161

/*
 * The errors of the design in sc_stats_sprt_errors' terms, under one
 * hypothesis: drift 0 gives the chance of a regression (alpha's side),
 * drift z the chance of passing (beta's side). W is the score of the
 * drop measured from the margin, a Brownian motion in information units
 * of the fixed design; looks at t_k = k / steps; the boundaries at look k
 * are W = (a + z^2 t / 2) / z (fails) and W = (-b + z^2 t / 2) / z
 * (passes), a strip of constant width (a + b) / z moving up at z / 2,
 * so on a grid of fixed spacing every step is the same convolution. At
 * the last look (t = imax) a path fails at W >= z t / 2, else passes.
 */
/*
 * g[i] = w_i * sum over j (in order) of f[j] * ker[i + SPRT_GRID - 1 - j]:
 * one look's density carried to the next. With SSE2 four i at a time,
 * each sum still taken in j's order with a multiply and an add apiece:
 * the same bits as one at a time.
 */
static void sprt_convolve(double *g, const double *f, const double *ker, double h)
{
	int i = 0;

#ifdef __SSE2__
	for (; i + 4 <= SPRT_GRID; i += 4) {
		__m128d s0 = _mm_setzero_pd(), s1 = _mm_setzero_pd();
		const double *kr = ker + i + SPRT_GRID - 1;
		double s[4];
		for (int j = 0; j < SPRT_GRID; j++) {
			__m128d fj = _mm_set1_pd(f[j]);
			s0 = _mm_add_pd(s0, _mm_mul_pd(fj, _mm_loadu_pd(kr - j)));
			s1 = _mm_add_pd(s1, _mm_mul_pd(fj, _mm_loadu_pd(kr - j + 2)));
		}
		_mm_storeu_pd(s, s0);
		_mm_storeu_pd(s + 2, s1);
		for (int k = 0; k < 4; k++)
			g[i + k] = s[k] * ((i + k == 0 || i + k == SPRT_GRID - 1) ? h / 2 : h);
	}
#endif
	for (; i < SPRT_GRID; i++) {
		double s = 0.0, w = (i == 0 || i == SPRT_GRID - 1) ? h / 2 : h;
		const double *kr = ker + i + SPRT_GRID - 1;
		for (int j = 0; j < SPRT_GRID; j++)
			s += f[j] * kr[-j];
		g[i] = s * w;
	}
}

static double sprt_side(double a, double b, double z, double imax, int steps, bool h1)
{
	int looks = (int)lround(imax * steps);
	double dt = 1.0 / steps, sd = sqrt(dt), drift = h1 ? z : 0.0;
	double width = (a + b) / z, h = width / (SPRT_GRID - 1), t1 = dt, out = 0.0;
	double f[SPRT_GRID], g[SPRT_GRID], ker[2 * SPRT_GRID - 1];
	double up[SPRT_GRID], down[SPRT_GRID], last[SPRT_GRID];

	if (looks < 2)
		looks = 2;
	/* look 1, from W = 0 */
	{
		double lo = (-b + z * z * t1 / 2) / z, hi = lo + width, s1 = sqrt(t1);
		out += h1 ? sc_stats_normal_cdf((lo - drift * t1) / s1)
			  : upper_tail((hi - drift * t1) / s1);
		for (int i = 0; i < SPRT_GRID; i++) {
			double x = lo + h * i;
			double w = (i == 0 || i == SPRT_GRID - 1) ? h / 2 : h;
			f[i] = w * exp(-0.5 * (x - drift * t1) * (x - drift * t1) / t1) /
			       (s1 * sqrt(2.0 * M_PI));
		}
	}
	/* from grid point j to the next look: the strip moved up by z dt / 2 */
	for (int j = 0; j < SPRT_GRID; j++) {
		double off = z * dt / 2 - drift * dt - j * h;
		up[j] = upper_tail((width + off) / sd);
		down[j] = sc_stats_normal_cdf(off / sd);
		last[j] = upper_tail((b / z + off) / sd);
	}
	for (int d = -(SPRT_GRID - 1); d <= SPRT_GRID - 1; d++) {
		double x = (z * dt / 2 + d * h - drift * dt) / sd;
		ker[d + SPRT_GRID - 1] = exp(-0.5 * x * x) / (sd * sqrt(2.0 * M_PI));
	}
	for (int k = 2; k <= looks; k++) {
		if (k == looks) {
			for (int j = 0; j < SPRT_GRID; j++)
				out += f[j] * (h1 ? 1.0 - last[j] : last[j]);
			break;
		}
		for (int j = 0; j < SPRT_GRID; j++)
			out += f[j] * (h1 ? down[j] : up[j]);
		sprt_convolve(g, f, ker, h);
		memcpy(f, g, sizeof(f));
	}
	return out;
}

void sc_stats_sprt_errors(double *alpha_out, double *beta_out, double a, double b, double alpha,
			  double beta, double imax, int steps)
{
	double z = sc_stats_normal_quantile(1.0 - alpha) + sc_stats_normal_quantile(1.0 - beta);

	*alpha_out = sprt_side(a, b, z, imax, steps, false);
	*beta_out = sprt_side(a, b, z, imax, steps, true);
}

/* The log of the error of the side a boundary x holds, the other boundary
 * fixed; -inf where the error is 0. */
static double sprt_log_err(double x, double other, bool for_a, double z, double imax, int steps)
{
	double e = for_a ? sprt_side(x, other, z, imax, steps, false)
			 : sprt_side(other, x, z, imax, steps, true);

	return e > 0 ? log(e) : -INFINITY;
}

/*
 * The boundary x in [0, cap] at which err(x) = want, err falling in x: a
 * bracket from the guess outwards (steps of span, doubling), then regula
 * falsi on log err, which is close to linear in x (the tail of a
 * Gaussian). Illinois' variant (an end kept twice has its value halved)
 * and a bisection every eighth step keep the bracket shrinking; it lands
 * in a few steps where bisection took thirty. Returns an end of the
 * bracket when want is not inside it.
 */
static double sprt_solve(double want, double guess, double span, double cap, double other,
			 bool for_a, double z, double imax, int steps)
{
	double lw = log(want), lo = guess, hi = guess, flo, fhi;

	/* a bracket from the guess outwards, doubling the step; x >= 0 */
	flo = fhi = sprt_log_err(guess, other, for_a, z, imax, steps) - lw;
	for (double step = span; flo <= 0 && lo > 0; step *= 2) {
		hi = lo;
		fhi = flo;
		lo = fmax(lo - step, 0.0);
		flo = sprt_log_err(lo, other, for_a, z, imax, steps) - lw;
	}
	for (double step = span; fhi > 0 && hi < cap; step *= 2) {
		lo = hi;
		flo = fhi;
		hi = fmin(hi + step, cap);
		fhi = sprt_log_err(hi, other, for_a, z, imax, steps) - lw;
	}
	if (!(flo > 0))
		return lo;
	if (!(fhi < 0))
		return hi;
	for (int it = 0, kept = 0; it < 100 && hi - lo > 1e-7; it++) {
		double x = isfinite(flo) && isfinite(fhi) ? lo + flo * (hi - lo) / (flo - fhi)
							  : 0.5 * (lo + hi);
		double f;
		/* keep the step inside, and off the ends by a little */
		if (!(x > lo + 1e-9 * (hi - lo) && x < hi - 1e-9 * (hi - lo)) || it % 8 == 7)
			x = 0.5 * (lo + hi);
		f = sprt_log_err(x, other, for_a, z, imax, steps) - lw;
		if (fabs(f) < 1e-10)
			return x;  /* the error to 1e-10 of itself: x to about as much */
		if (f > 0) {
			lo = x;
			flo = f;
			if (kept == -1)
				fhi *= 0.5;
			kept = -1;
		} else {
			hi = x;
			fhi = f;
			if (kept == 1)
				flo *= 0.5;
			kept = 1;
		}
	}
	return 0.5 * (lo + hi);
}

bool sc_stats_sprt_calibrate(double *a, double *b, double alpha, double beta, double imax,
			     int steps)
{
	double z, ea, eb, ta, tb, wa, wb;

	if (!(alpha > 0 && alpha < 0.5 && beta > 0 && beta < 0.5 && imax >= 1 && steps >= 2))
		return false;
	z = sc_stats_normal_quantile(1.0 - alpha) + sc_stats_normal_quantile(1.0 - beta);
	ta = wa = log((1.0 - beta) / alpha);
	tb = wb = log((1.0 - alpha) / beta);
	/* Wald's boundaries hold the errors for a path seen at every instant;
	 * seen at looks, and truncated, the errors differ: solve each
	 * boundary for its error in turn (each moves the other's little) */
	for (int round = 0; round < 6; round++) {
		double span = round ? 0.01 : 0.5;
		double na = sprt_solve(alpha, ta, span, 4.0 * wa + 4.0, tb, true, z, imax, steps);
		double nb = sprt_solve(beta, tb, span, 4.0 * wb + 4.0, na, false, z, imax, steps);
		bool still = fabs(na - ta) < 1e-6 && fabs(nb - tb) < 1e-6;
		ta = na;
		tb = nb;
		if (still)
			break;
	}
	sc_stats_sprt_errors(&ea, &eb, ta, tb, alpha, beta, imax, steps);
	*a = ta;
	*b = tb;
	/* the truncation alone may spend more than alpha: then no a holds it */
	return fabs(ea - alpha) < 0.01 * alpha && fabs(eb - beta) < 0.01 * beta;
}
