/*
 * skillci.yml's keys (docs/config.md): one handler per key that checks its
 * type and range and sets the field of struct sc_config, and the tables of
 * keys per map that sc_config_walk_map dispatches from.
 */
#include "common.h"
#include "pipeline/config_parse.h"
#include "providers/provider.h"
#include "results/store.h"

static bool name_ok(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			return false;
	return true;
}

/* ---- skillci.yml handlers --------------------------------------------- */

static void h_version(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	int n = 0;
	if (sc_config_get_int(c, v, key, 1, 1000, &n) && n != 1)
		sc_config_report(c, SC_SEV_ERROR, v, "config-value",
				 "'version' %d is not supported by this skillci (it reads version 1)", n);
}

static void h_models(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_strlist(c, v, key, SC_MAX_CONFIG_MODELS, &c->cfg->models);
}

/*
 * fast_agent_version: the fast-agent version whose model strings (aliases,
 * providers, settings) the names of this configuration and of the command
 * line follow; one of the versions skillci reads (provider.h).
 */
static void h_fast_agent_version(struct sc_config_ctx *c, const struct sc_yaml_node *v,
				 const char *key)
{
	struct sc_buf known = SC_BUF_INIT;
	char *s = NULL;

	if (!sc_config_get_str(c, v, key, &s))
		return;
	for (size_t i = 0; i < sc_models_grammar_count(); i++)
		if (!strcmp(s, sc_models_grammar_version(i))) {
			free(c->cfg->fast_agent_version);
			c->cfg->fast_agent_version = s;
			return;
		}
	for (size_t i = 0; i < sc_models_grammar_count(); i++)
		sc_buf_printf(&known, "%s%s", i ? ", " : "", sc_models_grammar_version(i));
	sc_config_report(c, SC_SEV_ERROR, v, "config-value",
			 "'%s' %s is not a fast-agent version whose model "
			 "names skillci reads (%s)", key, s, known.ptr);
	sc_buf_release(&known);
	free(s);
}

void sc_config_key_runs(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	c->runs_set |= sc_config_get_int(c, v, key, 1, 1000, &c->cfg->runs);
}

static void h_max_turns(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_int(c, v, key, 1, 100, &c->cfg->max_turns);
}

static void h_fixtures(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_str(c, v, key, &c->cfg->fixtures_dir);
}

void sc_config_key_skills_dir(struct sc_config_ctx *c, const struct sc_yaml_node *v,
			      const char *key)
{
	sc_config_get_str(c, v, key, &c->cfg->skills_dir);
}

static void h_arch(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	char *s = NULL;
	const char *p;
	size_t digits;

	if (!sc_config_get_str(c, v, key, &s))
		return;
	p = sc_starts_with(s, "sm_") ? s + 3 : sc_starts_with(s, "compute_") ? s + 8 : NULL;
	digits = p ? strspn(p, "0123456789") : 0;
	if (digits < 2 || (p[digits] && strcmp(p + digits, "a") != 0)) {
		sc_config_report(c, SC_SEV_ERROR, v, "config-value",
				 "'%s' must be a GPU architecture such as sm_90, found '%s'", key, s);
		free(s);
		return;
	}
	free(c->cfg->arch);
	c->cfg->arch = s;
}

/* True when name is a provider a limit can apply to: a built-in one or an
 * endpoint of this file's "providers" map. */
static bool limit_target_known(struct sc_config_ctx *c, const char *name)
{
	const struct sc_yaml_node *prov = c->root ? sc_yaml_map_get(c->root, "providers") : NULL;

	if (sc_provider_find(name) >= 0)
		return true;
	for (size_t i = 0; prov && prov->kind == SC_YAML_MAP && i < sc_yaml_count(prov); i++) {
		const struct sc_yaml_node *k = sc_yaml_map_key(prov, i);
		if (k->kind == SC_YAML_SCALAR && !strcmp(k->value, name))
			return true;
	}
	return false;
}

static void h_per_provider(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	struct sc_config *cfg = c->cfg;
	struct sc_buf k = SC_BUF_INIT;

	if (v->kind != SC_YAML_MAP) {
		sc_config_type_error(c, v, key, "a map of provider to limit");
		return;
	}
	for (size_t i = 0; i < sc_yaml_count(v); i++) {
		const struct sc_yaml_node *name = sc_yaml_map_key(v, i);
		int n = 0;
		bool ok;

		if (name->kind != SC_YAML_SCALAR)
			continue;
		sc_diag_path_join(&k, key, name->value);
		ok = limit_target_known(c, name->value);
		if (!ok) {
			sc_config_report(c, SC_SEV_WARNING, name, "config-unknown-key",
					 "unknown provider '%s' (a built-in provider or one named under "
					 "'providers'); ignored", k.ptr);
			continue;
		}
		if (!sc_config_get_int(c, sc_yaml_map_value(v, i), k.ptr, 1, 10000, &n))
			continue;
		for (size_t j = 0; j < cfg->nprovider_limits; j++) {
			if (!strcmp(cfg->provider_limits[j].provider, name->value)) {
				cfg->provider_limits[j].limit = n;
				ok = false;
			}
		}
		if (ok) {
			SC_GROW(cfg->provider_limits, cfg->provider_limits_alloc,
				cfg->nprovider_limits + 1);
			cfg->provider_limits[cfg->nprovider_limits].provider = sc_xstrdup(name->value);
			cfg->provider_limits[cfg->nprovider_limits++].limit = n;
		}
	}
	sc_buf_release(&k);
}

void sc_config_key_total(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_int(c, v, key, 1, 10000, &c->cfg->concurrency);
}

static void h_concurrency(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct sc_config_key keys[] = { { "total", sc_config_key_total },
						     { "per_provider", h_per_provider } };
	if (v->kind == SC_YAML_SCALAR) {
		sc_config_key_total(c, v, key);
		return;
	}
	sc_config_walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

static void h_timeout_request(struct sc_config_ctx *c, const struct sc_yaml_node *v,
			      const char *key)
{
	sc_config_get_num(c, v, key, 0, true, -1, &c->cfg->request_timeout_s);
}

static void h_timeout_kernel(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_num(c, v, key, 0, true, -1, &c->cfg->kernel_timeout_s);
}

static void h_timeouts(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct sc_config_key keys[] = {
		{ "request", h_timeout_request }, { "kernel", h_timeout_kernel },
	};
	sc_config_walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

static void h_cache_dir(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_out_path(c, v, key, &c->cfg->cache_dir);
}

static void h_cache_mode(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	int b;
	/* YAML 1.1 reads a plain "off" as a boolean: take it as the mode */
	if (sc_yaml_is_bool(v, &b) && !b && !strcasecmp(v->value, "off")) {
		c->cfg->cache_mode = SC_CACHE_OFF;
		return;
	}
	if (strcmp(sc_yaml_type_name(v), "string") != 0) {
		sc_config_type_error(c, v, key, "one of use, refresh, off");
		return;
	}
	if (!strcmp(v->value, "use"))
		c->cfg->cache_mode = SC_CACHE_USE;
	else if (!strcmp(v->value, "refresh"))
		c->cfg->cache_mode = SC_CACHE_REFRESH;
	else if (!strcmp(v->value, "off"))
		c->cfg->cache_mode = SC_CACHE_OFF;
	else
		sc_config_report(c, SC_SEV_ERROR, v, "config-value",
				 "'%s' must be one of use, refresh, off, found '%s'", key, v->value);
}

static void h_cache(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct sc_config_key keys[] = { { "dir", h_cache_dir }, { "mode", h_cache_mode } };
	sc_config_walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

/* A SQLite path or a PostgreSQL URI; one with a password is an error here,
 * at its line, and is not kept. */
static void h_store_path(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	char *loc = NULL;

	/* a file skillci writes stays in the workspace; a database is elsewhere */
	if (v->kind == SC_YAML_SCALAR && !sc_store_is_postgres(v->value)) {
		sc_config_get_out_path(c, v, key, &c->cfg->store_path);
		return;
	}
	if (!sc_config_get_str(c, v, key, &loc))
		return;
	if (sc_store_check_location(loc) < 0) {
		sc_config_report(c, SC_SEV_ERROR, v, "config-value", "'%s': %s", key,
				 sc_error_last());
		sc_error_clear();
		free(loc);
		return;
	}
	free(c->cfg->store_path);
	c->cfg->store_path = loc;
}

static void h_store(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct sc_config_key keys[] = { { "path", h_store_path } };
	if (v->kind == SC_YAML_SCALAR)
		h_store_path(c, v, key);
	else
		sc_config_walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

static void h_b_units(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_int(c, v, key, 1, SC_MAX_RUN_UNITS, &c->cfg->max_units);
}

static void h_b_requests(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_int(c, v, key, 1, SC_MAX_RUN_UNITS, &c->cfg->max_requests);
}

/* A token count: a whole number from 0 (no limit) to 10^12. */
static void get_tokens(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
		       int64_t *out)
{
	double x;

	if (sc_config_get_num(c, v, key, 0, false, 1e12, &x)) {
		if (x != (double)(int64_t)x)
			sc_config_report(c, SC_SEV_ERROR, v, "config-value",
					 "'%s' must be a whole number, found %s", key, v->value);
		else
			*out = (int64_t)x;
	}
}

static void h_b_in(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_tokens(c, v, key, &c->cfg->budget.max_input_tokens);
}

static void h_b_out(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_tokens(c, v, key, &c->cfg->budget.max_output_tokens);
}

static void h_b_prompt(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_tokens(c, v, key, &c->cfg->budget.max_prompt_tokens);
}

static void h_b_usd(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_num(c, v, key, 0, false, 1e9, &c->cfg->budget.max_usd);
}

static void h_budget(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct sc_config_key keys[] = {
		{ "max_units", h_b_units }, { "max_requests", h_b_requests },
		{ "max_input_tokens", h_b_in }, { "max_output_tokens", h_b_out },
		{ "max_usd", h_b_usd }, { "max_prompt_tokens", h_b_prompt },
	};
	sc_config_walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

/*
 * prices: {MODEL: {input, output, cache_read, cache_write, date}}: dollars
 * per million tokens for models the built-in table lacks or prices
 * otherwise (budget.h). input and output are required.
 */
static void h_prices(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	struct sc_buf k = SC_BUF_INIT;

	if (v->kind != SC_YAML_MAP) {
		sc_config_type_error(c, v, key, "a map of model names to prices");
		return;
	}
	for (size_t i = 0; i < sc_yaml_count(v); i++) {
		const struct sc_yaml_node *name = sc_yaml_map_key(v, i), *e = sc_yaml_map_value(v, i), *x;
		struct sc_price p;
		bool ok = true;
		static const char *const fields[] = { "input", "output", "cache_read", "cache_write" };
		double *dst[4];

		memset(&p, 0, sizeof(p));
		dst[0] = &p.input;
		dst[1] = &p.output;
		dst[2] = &p.cache_read;
		dst[3] = &p.cache_write;
		if (name->kind != SC_YAML_SCALAR || !*name->value || e->kind != SC_YAML_MAP) {
			sc_config_type_error(c, e, key,
					     "a map of model names to {input, output, ...}");
			continue;
		}
		for (size_t f = 0; f < SC_ARRAY_SIZE(fields); f++) {
			sc_buf_clear(&k);
			sc_buf_printf(&k, "%s.%s.%s", key, name->value, fields[f]);
			if ((x = sc_yaml_map_get(e, fields[f])))
				ok &= sc_config_get_num(c, x, k.ptr, 0, false, 1e6, dst[f]);
			else if (f < 2) {
				sc_config_report(c, SC_SEV_ERROR, e, "config-value",
						 "'%s' is required", k.ptr);
				ok = false;
			}
		}
		if ((x = sc_yaml_map_get(e, "date"))) {
			sc_buf_clear(&k);
			sc_buf_printf(&k, "%s.%s.date", key, name->value);
			ok &= sc_config_get_str(c, x, k.ptr, &p.date);
		}
		p.model = name->value;
		if (ok)
			sc_budget_config_add_price(&c->cfg->budget, &p);
		free(p.date);
	}
	sc_buf_release(&k);
}

static void h_judge_model(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_str(c, v, key, &c->cfg->judge_model);
}

static void h_judge_rubric(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_str(c, v, key, &c->cfg->judge_rubric);
}

static void h_judge(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct sc_config_key keys[] = { { "model", h_judge_model },
						     { "rubric", h_judge_rubric } };
	sc_config_walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

static void h_grader_model(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_str(c, v, key, &c->cfg->grader_model);
}

/* grader: the model that grades tests' expectations (docs/tests-format.md) */
static void h_grader(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct sc_config_key keys[] = { { "model", h_grader_model } };
	sc_config_walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

static void h_g_points(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_num(c, v, key, 0, false, 100, &c->cfg->gate.pass_rate_drop_points);
}

static void h_g_alpha(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	double a = 0;
	if (sc_config_get_num(c, v, key, 0, true, 1, &a)) {
		if (a >= 1)
			sc_config_report(c, SC_SEV_ERROR, v, "config-value",
					 "'%s' must be below 1, found %s", key, v->value);
		else
			c->cfg->gate.alpha = a;
	}
}

static void h_g_beta(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	double b = 0;
	if (sc_config_get_num(c, v, key, 0, true, 1, &b)) {
		if (b >= 0.5)
			sc_config_report(c, SC_SEV_ERROR, v, "config-value", "'%s' must be below 0.5 (the chance "
					 "a drop of gate.regression_points passes), found %s", key, v->value);
		else
			c->cfg->gate.beta = b;
	}
}

static void h_g_regression(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	double d = 0;
	if (sc_config_get_num(c, v, key, 0, true, 100, &d)) {
		if (d < 1)
			sc_config_report(c, SC_SEV_ERROR, v, "config-value", "'%s' must be at least 1 point, found "
					 "%s: a design for smaller drops needs thousands of runs per test", key,
					 v->value);
		else
			c->cfg->gate.regression_points = d;
	}
}

static void h_g_accept_unverified(struct sc_config_ctx *c, const struct sc_yaml_node *v,
				  const char *key)
{
	sc_config_get_bool(c, v, key, &c->cfg->gate.accept_unverified);
}

static void h_g_tokens(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_num(c, v, key, 0, false, -1, &c->cfg->gate.tokens_rise_pct);
}

static void h_g_speedup(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_num(c, v, key, 0, false, 1, &c->cfg->gate.speedup_drop_ratio);
}

static void h_g_judge(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_num(c, v, key, 0, false, 1, &c->cfg->gate.judge_drop);
}

static void h_g_errors(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_num(c, v, key, 0, false, 1, &c->cfg->gate.error_share);
}

static void h_g_lift(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_bool(c, v, key, &c->cfg->gate.require_lift);
}

static void h_g_existing(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_bool(c, v, key, &c->cfg->gate.fail_on_existing);
}

static void h_g_deletions(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_bool(c, v, key, &c->cfg->gate.allow_deletions);
}

static void h_g_label(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	char *s = NULL;

	if (!sc_config_get_str(c, v, key, &s))
		return;
	if (strlen(s) >= sizeof(c->cfg->gate.deletion_label))
		sc_config_report(c, SC_SEV_ERROR, v, "config-value",
				 "'%s' must be shorter than %zu bytes", key, sizeof(c->cfg->gate.deletion_label));
	else
		snprintf(c->cfg->gate.deletion_label, sizeof(c->cfg->gate.deletion_label), "%s", s);
	free(s);
}

static void h_g_baseline(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_num(c, v, key, 0, false, 1, &c->cfg->gate.max_baseline_pass_rate);
}

static void h_g_compile_only(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_bool(c, v, key, &c->cfg->gate.compile_only);
}

/* gate.fail_inconclusive: read, and said to be replaced. Every check now
 * ends passed or failed unless a cap stops it, and that is unverified,
 * which fails unless gate.accept_unverified: so true changes nothing and
 * false means accept_unverified. */
static void h_g_inconclusive(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	bool b = false;
	if (!sc_config_get_bool(c, v, key, &b))
		return;
	sc_config_report(c, SC_SEV_WARNING, v, "config-replaced", "'%s' is replaced: a check the design "
			 "could not finish is unverified and fails unless 'gate.accept_unverified: true'%s",
			 key, b ? "" : "; read as gate.accept_unverified: true");
	if (!b)
		c->cfg->gate.accept_unverified = true;
}

static void h_g_untested(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_bool(c, v, key, &c->cfg->gate.allow_untested);
}

static void h_g_first_runs(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_int(c, v, key, 1, 1000, &c->cfg->gate.first_runs);
}

static void h_g_max_runs(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	c->max_runs_set |= sc_config_get_int(c, v, key, 0, 1000, &c->cfg->gate.max_runs);
}

static void h_gate(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct sc_config_key keys[] = {
		{ "pass_rate_drop_points", h_g_points }, { "alpha", h_g_alpha },
		{ "tokens_rise_pct", h_g_tokens },       { "speedup_drop_ratio", h_g_speedup },
		{ "judge_drop", h_g_judge },             { "error_share", h_g_errors },
		{ "require_lift", h_g_lift },            { "fail_on_existing", h_g_existing },
		{ "allow_deletions", h_g_deletions },    { "deletion_label", h_g_label },
		{ "max_baseline_pass_rate", h_g_baseline }, { "compile_only", h_g_compile_only },
		{ "fail_inconclusive", h_g_inconclusive },
		{ "allow_untested", h_g_untested },
		{ "beta", h_g_beta },                    { "regression_points", h_g_regression },
		{ "accept_unverified", h_g_accept_unverified },
		{ "first_runs", h_g_first_runs },        { "max_runs", h_g_max_runs },
	};
	sc_config_walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
	if (c->cfg->gate.regression_points <= c->cfg->gate.pass_rate_drop_points)
		sc_config_report(c, SC_SEV_ERROR, v, "config-value",
				 "'gate.regression_points' (%g) must be above 'gate.pass_rate_drop_points' (%g): "
				 "the drop that must be caught lies beyond the drop that counts as none",
				 c->cfg->gate.regression_points, c->cfg->gate.pass_rate_drop_points);
	if (c->cfg->gate.max_runs > 0 && c->cfg->gate.max_runs < c->cfg->gate.first_runs)
		sc_config_report(c, SC_SEV_ERROR, v, "config-value",
				 "'gate.max_runs' (%d) must be at least 'gate.first_runs' (%d): the first round "
				 "runs first_runs per test", c->cfg->gate.max_runs, c->cfg->gate.first_runs);
}

/* One manifest entry: {skill: PATH, tests: [FILES], fixtures: [NAMES]}. */
static void manifest_entry(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	struct sc_config_skill e;
	struct sc_buf k = SC_BUF_INIT;
	const struct sc_yaml_node *x;
	bool bad = false;

	memset(&e, 0, sizeof(e));
	e.line = v->line;
	if (v->kind != SC_YAML_MAP) {
		sc_config_type_error(c, v, key, "a map with 'skill', 'tests' and 'fixtures'");
		return;
	}
	for (size_t i = 0; i < sc_yaml_count(v); i++) {
		const struct sc_yaml_node *name = sc_yaml_map_key(v, i);
		if (name->kind == SC_YAML_SCALAR && strcmp(name->value, "skill") &&
		    strcmp(name->value, "tests") && strcmp(name->value, "fixtures")) {
			sc_diag_path_join(&k, key, name->value);
			sc_config_report(c, SC_SEV_WARNING, name, "config-unknown-key",
					 "unknown key '%s'; ignored", k.ptr);
		}
	}
	x = sc_yaml_map_get(v, "skill");
	sc_diag_path_join(&k, key, "skill");
	if (!x) {
		sc_config_report(c, SC_SEV_ERROR, v, "config-type", "'%s' is missing", k.ptr);
		bad = true;
	} else if (!sc_config_get_rel_path(c, x, k.ptr, &e.skill)) {
		bad = true;
	}
	if ((x = sc_yaml_map_get(v, "tests"))) {
		sc_diag_path_join(&k, key, "tests");
		if (!sc_config_get_strlist(c, x, k.ptr, SC_MAX_TEST_SUITE_FILES, &e.tests)) {
			bad = true;
		} else {
			for (size_t i = 0; i < e.tests.n; i++) {
				if (!sc_path_is_safe_relative(e.tests.items[i])) {
					sc_config_report(c, SC_SEV_ERROR, x, "config-path",
							 "'%s' must list relative paths inside the repository, found '%s'", k.ptr, e.tests.items[i]);
					bad = true;
				}
			}
		}
	}
	if ((x = sc_yaml_map_get(v, "fixtures"))) {
		sc_diag_path_join(&k, key, "fixtures");
		if (!sc_config_get_strlist(c, x, k.ptr, SC_MAX_MANIFEST_SKILLS, &e.fixtures)) {
			bad = true;
		} else {
			for (size_t i = 0; i < e.fixtures.n; i++) {
				if (!name_ok(e.fixtures.items[i])) {
					sc_config_report(c, SC_SEV_ERROR, x, "config-value",
							 "'%s': '%s' is not a fixture name (lowercase letters, "
							 "digits, '-' and '_')", k.ptr, e.fixtures.items[i]);
					bad = true;
				}
			}
		}
	}
	sc_buf_release(&k);
	if (bad) {
		free(e.skill);
		sc_strlist_release(&e.tests);
		sc_strlist_release(&e.fixtures);
		return;
	}
	SC_GROW(c->cfg->skills, c->cfg->skills_alloc, c->cfg->nskills + 1);
	c->cfg->skills[c->cfg->nskills++] = e;
}

static void h_skills(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	struct sc_buf k = SC_BUF_INIT;

	if (v->kind != SC_YAML_SEQ) {
		sc_config_type_error(c, v, key, "a list of {skill, tests, fixtures} entries");
		return;
	}
	if (sc_yaml_count(v) > SC_MAX_MANIFEST_SKILLS) {
		sc_config_report(c, SC_SEV_ERROR, v, "config-value",
				 "'%s' has more than %d entries", key, SC_MAX_MANIFEST_SKILLS);
		return;
	}
	for (size_t i = 0; i < sc_yaml_count(v); i++) {
		sc_buf_clear(&k);
		sc_buf_printf(&k, "%s[%zu]", key, i);
		manifest_entry(c, sc_yaml_seq_item(v, i), k.ptr);
	}
	sc_buf_release(&k);
}

static void h_r_junit(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_out_path(c, v, key, &c->cfg->report_junit);
}

static void h_r_markdown(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_out_path(c, v, key, &c->cfg->report_markdown);
}

static void h_r_html(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_out_path(c, v, key, &c->cfg->report_html);
}

static void h_r_json(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_out_path(c, v, key, &c->cfg->report_json);
}

void sc_config_set_report_paths(struct sc_config *cfg, const char *dir)
{
	struct sc_buf b = SC_BUF_INIT;
	char **slots[] = { &cfg->report_junit, &cfg->report_markdown, &cfg->report_html,
			   &cfg->report_json };
	static const char *const names[] = { "junit.xml", "report.md", "report.html", "results.json" };

	for (size_t i = 0; i < SC_ARRAY_SIZE(names); i++) {
		sc_path_join(&b, dir, names[i]);
		free(*slots[i]);
		*slots[i] = sc_xstrdup(b.ptr);
	}
	sc_buf_release(&b);
}

static void h_reports(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct sc_config_key keys[] = {
		{ "dir", NULL }, { "junit", h_r_junit }, { "markdown", h_r_markdown },
		{ "html", h_r_html }, { "json", h_r_json },
	};
	const struct sc_yaml_node *dir;
	struct sc_buf k = SC_BUF_INIT;
	char *d = NULL;

	/* the folder first, so the paths named one by one win over it */
	if (v->kind == SC_YAML_MAP && (dir = sc_yaml_map_get(v, "dir"))) {
		sc_diag_path_join(&k, key, "dir");
		if (sc_config_get_out_path(c, dir, k.ptr, &d))
			sc_config_set_report_paths(c->cfg, d);
		free(d);
		sc_buf_release(&k);
	}
	sc_config_walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

/* An environment variable name: letters, digits and '_', not starting with a digit. */
static bool env_name_ok(const char *s)
{
	if (!*s || strlen(s) > 128 || (*s >= '0' && *s <= '9'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') ||
		      *s == '_'))
			return false;
	return true;
}

static bool alias_name(const char *name)
{
	for (size_t i = 0; i < sc_alias_count(); i++) {
		const char *a, *t;
		sc_alias_get(i, &a, &t);
		if (!strcmp(a, name))
			return true;
	}
	return false;
}

/*
 * One named endpoint: {wire: openai|anthropic, base_url: URL,
 * api_key_env: VAR}. A literal api_key is refused: keys stay in the
 * environment (CI secrets), never in a file a pull request can read.
 */
static void endpoint_entry(struct sc_config_ctx *c, const struct sc_yaml_node *name,
			   const struct sc_yaml_node *v, const char *key)
{
	struct sc_config_endpoint e;
	struct sc_buf k = SC_BUF_INIT;
	const struct sc_yaml_node *x;
	bool bad = false;

	memset(&e, 0, sizeof(e));
	e.line = name->line;
	if (v->kind != SC_YAML_MAP) {
		sc_config_type_error(c, v, key, "a map with 'wire', 'base_url' and 'api_key_env'");
		return;
	}
	if (!name_ok(name->value) || name->value[0] < 'a' || name->value[0] > 'z') {
		sc_config_report(c, SC_SEV_ERROR, name, "config-value", "'%s': an endpoint name is lowercase "
				 "letters, digits, '-' and '_', starting with a letter", key);
		return;
	}
	if (sc_provider_find(name->value) >= 0 && sc_provider_find(name->value) < SC_PROVIDER_BUILTINS) {
		sc_config_report(c, SC_SEV_ERROR, name, "config-value", "'%s': '%s' is a built-in provider; "
				 "give the endpoint another name", key, name->value);
		return;
	}
	if (alias_name(name->value)) {
		sc_config_report(c, SC_SEV_ERROR, name, "config-value", "'%s': '%s' is a model alias; give "
				 "the endpoint another name", key, name->value);
		return;
	}
	for (size_t i = 0; i < sc_yaml_count(v); i++) {
		const struct sc_yaml_node *n = sc_yaml_map_key(v, i);
		if (n->kind != SC_YAML_SCALAR)
			continue;
		sc_diag_path_join(&k, key, n->value);
		if (!strcmp(n->value, "api_key")) {
			sc_config_report(c, SC_SEV_ERROR, n, "config-secret", "'%s': keys do not belong in the "
					 "configuration; name the environment variable that holds it with "
					 "'api_key_env'", k.ptr);
			bad = true;
		} else if (strcmp(n->value, "wire") && strcmp(n->value, "base_url") &&
			   strcmp(n->value, "api_key_env")) {
			sc_config_report(c, SC_SEV_WARNING, n, "config-unknown-key",
					 "unknown key '%s'; ignored", k.ptr);
		}
	}
	sc_diag_path_join(&k, key, "wire");
	if (!(x = sc_yaml_map_get(v, "wire"))) {
		sc_config_report(c, SC_SEV_ERROR, v, "config-type",
				 "'%s' is missing (openai or anthropic)", k.ptr);
		bad = true;
	} else if (sc_config_get_str(c, x, k.ptr, &e.wire) && strcmp(e.wire, "openai") &&
		   strcmp(e.wire, "anthropic")) {
		sc_config_report(c, SC_SEV_ERROR, x, "config-value", "'%s' must be openai or anthropic, found "
				 "'%s'", k.ptr, e.wire);
		bad = true;
	} else if (!e.wire) {
		bad = true;
	}
	sc_diag_path_join(&k, key, "base_url");
	if (!(x = sc_yaml_map_get(v, "base_url"))) {
		sc_config_report(c, SC_SEV_ERROR, v, "config-type", "'%s' is missing", k.ptr);
		bad = true;
	} else if (sc_config_get_str(c, x, k.ptr, &e.base_url) && !sc_provider_url_ok(e.base_url)) {
		sc_config_report(c, SC_SEV_ERROR, x, "config-value", "'%s' must be an http:// or https:// URL, "
				 "found '%s'", k.ptr, e.base_url);
		bad = true;
	} else if (!e.base_url) {
		bad = true;
	}
	sc_diag_path_join(&k, key, "api_key_env");
	if ((x = sc_yaml_map_get(v, "api_key_env")) && !sc_yaml_is_null(x)) {
		if (!sc_config_get_str(c, x, k.ptr, &e.api_key_env)) {
			bad = true;
		} else if (!env_name_ok(e.api_key_env)) {
			sc_config_report(c, SC_SEV_ERROR, x, "config-value", "'%s' must be an environment "
					 "variable name, found '%s'", k.ptr, e.api_key_env);
			bad = true;
		}
	}
	sc_buf_release(&k);
	if (!bad && c->cfg->nendpoints >= SC_MAX_ENDPOINTS) {
		sc_config_report(c, SC_SEV_ERROR, name, "config-value", "more than %d endpoints under "
				 "'providers'", SC_MAX_ENDPOINTS);
		bad = true;
	}
	if (bad) {
		free(e.wire);
		free(e.base_url);
		free(e.api_key_env);
		return;
	}
	e.name = sc_xstrdup(name->value);
	/* a later file (skillci.yml over --config's defaults) replaces an entry */
	for (size_t i = 0; i < c->cfg->nendpoints; i++) {
		struct sc_config_endpoint *o = &c->cfg->endpoints[i];
		if (!strcmp(o->name, e.name)) {
			free(o->name);
			free(o->wire);
			free(o->base_url);
			free(o->api_key_env);
			*o = e;
			return;
		}
	}
	SC_GROW(c->cfg->endpoints, c->cfg->endpoints_alloc, c->cfg->nendpoints + 1);
	c->cfg->endpoints[c->cfg->nendpoints++] = e;
}

static void h_providers(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	struct sc_buf k = SC_BUF_INIT;

	if (v->kind != SC_YAML_MAP) {
		sc_config_type_error(c, v, key,
				     "a map of endpoint name to {wire, base_url, api_key_env}");
		return;
	}
	for (size_t i = 0; i < sc_yaml_count(v); i++) {
		const struct sc_yaml_node *name = sc_yaml_map_key(v, i);
		if (name->kind != SC_YAML_SCALAR)
			continue;
		sc_diag_path_join(&k, key, name->value);
		endpoint_entry(c, name, sc_yaml_map_value(v, i), k.ptr);
	}
	sc_buf_release(&k);
}

/* ---- agent: agent runs and their jail (docs/config.md, "agent") ---------- */

static void h_agent_mode(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	int b;
	/* YAML 1.1 reads a plain never-like "off"/"no" as a boolean: refuse it by name */
	if (strcmp(sc_yaml_type_name(v), "string") != 0 || sc_yaml_is_bool(v, &b) ||
	    sc_agent_mode_parse(&c->cfg->agent.mode, v->value) < 0) {
		sc_error_clear();
		sc_config_type_error(c, v, key, "one of auto, always, never");
	}
}

static void h_agent_jobs(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_int(c, v, key, 1, 256, &c->cfg->agent.jobs);
}

static void h_agent_max_calls(struct sc_config_ctx *c, const struct sc_yaml_node *v,
			      const char *key)
{
	sc_config_get_int(c, v, key, 1, 64, &c->cfg->agent.max_calls_per_turn);
}

static void h_agent_trigger_turns(struct sc_config_ctx *c, const struct sc_yaml_node *v,
				  const char *key)
{
	sc_config_get_int(c, v, key, 1, 100, &c->cfg->agent.trigger_turns);
}

static void h_agent_output(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	int n;
	if (sc_config_get_int(c, v, key, 256, 1024 * 1024, &n))
		c->cfg->agent.tool_output_max = (size_t)n;
}

/* A size in MiB into bytes. */
static void mib(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key, long max,
		int64_t *out)
{
	int n;
	if (sc_config_get_int(c, v, key, 1, max, &n))
		*out = (int64_t)n * 1024 * 1024;
}

static void h_lim_timeout(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	double s;
	if (sc_config_get_num(c, v, key, 0, true, 3600, &s))
		c->cfg->agent.jail.command_timeout_ms = (int64_t)(s * 1000);
}

static void h_lim_cpu(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_int(c, v, key, 1, 3600, &c->cfg->agent.jail.cpu_s);
}

static void h_lim_memory(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	mib(c, v, key, 1024 * 1024, &c->cfg->agent.jail.memory_bytes);
}

static void h_lim_processes(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_int(c, v, key, 1, 4096, &c->cfg->agent.jail.processes);
}

static void h_lim_file(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	mib(c, v, key, 64 * 1024, &c->cfg->agent.jail.file_bytes);
}

static void h_lim_workspace(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	mib(c, v, key, 64 * 1024, &c->cfg->agent.jail.workspace_bytes);
}

static void h_lim_tmp(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	mib(c, v, key, 64 * 1024, &c->cfg->agent.jail.tmp_bytes);
}

static void h_agent_limits(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct sc_config_key keys[] = {
		{ "command_timeout", h_lim_timeout }, { "cpu", h_lim_cpu },
		{ "memory", h_lim_memory },           { "processes", h_lim_processes },
		{ "file_size", h_lim_file },          { "workspace", h_lim_workspace },
		{ "tmp", h_lim_tmp },
	};
	sc_config_walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

static void h_agent(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct sc_config_key keys[] = {
		{ "mode", h_agent_mode },           { "jobs", h_agent_jobs },
		{ "max_calls", h_agent_max_calls }, { "tool_output", h_agent_output },
		{ "trigger_turns", h_agent_trigger_turns }, { "limits", h_agent_limits },
	};
	if (v->kind == SC_YAML_SCALAR) {
		h_agent_mode(c, v, key);
		return;
	}
	sc_config_walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

const struct sc_config_key sc_config_skillci_keys[] = {
	{ "version", h_version },       { "models", h_models },
	{ "fast_agent_version", h_fast_agent_version },
	{ "runs", sc_config_key_runs },             { "max_turns", h_max_turns },
	{ "fixtures", h_fixtures },     { "arch", h_arch },
	{ "skills_dir", sc_config_key_skills_dir }, { "concurrency", h_concurrency },
	{ "timeouts", h_timeouts },     { "cache", h_cache },
	{ "store", h_store },           { "judge", h_judge },
	{ "gate", h_gate },             { "skills", h_skills },
	{ "reports", h_reports },       { "providers", h_providers },
	{ "budget", h_budget },         { "prices", h_prices },
	{ "grader", h_grader },         { "agent", h_agent },
};

const size_t sc_config_nskillci_keys = SC_ARRAY_SIZE(sc_config_skillci_keys);
