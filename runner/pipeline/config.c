/*
 * skillci.yml and upskill.config.yaml (docs/config.md). Both are parsed
 * with the YAML wrapper into a node tree with lines; a table of keys per
 * map dispatches each value to a small handler that checks its type and
 * range. A wrong value is an error and leaves the default in place; an
 * unknown key is a warning.
 */
#include "common.h"
#include "output.h"
#include "pipeline/config.h"
#include "diag.h"
#include "format/yaml.h"
#include "providers/provider.h"
#include "results/store.h"

#include <stdarg.h>
#include <sys/stat.h>

struct ctx {
	struct sc_config *cfg;
	struct sc_diags *diags;
	const char *file;
	const struct sc_yaml_node *root;  /* the file's top level */
	/* upskill.config.yaml: where "eval_model" and "model" were seen */
	char *up_eval_model;
	char *up_model;
	bool data_only;  /* a pull request's copy: nothing expanded (sc_config_load_data) */
	bool runs_set, max_runs_set;  /* `runs` and `gate.max_runs` were written */
};

typedef void (*handler_fn)(struct ctx *c, const struct sc_yaml_node *v, const char *key);

struct key {
	const char *name;
	handler_fn fn;     /* NULL: known, read by nobody (accepted quietly) */
};

static void report(struct ctx *c, enum sc_severity sev, const struct sc_yaml_node *at,
		   const char *code, const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void report(struct ctx *c, enum sc_severity sev, const struct sc_yaml_node *at,
		   const char *code, const char *fmt, ...)
{
	struct sc_buf msg = SC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	sc_diags_add(c->diags, sev, c->file, at ? at->line : 0, code, "%s", msg.ptr);
	sc_buf_release(&msg);
}

static void type_error(struct ctx *c, const struct sc_yaml_node *v, const char *key,
		       const char *want)
{
	sc_diags_type_error(c->diags, c->file, v ? v->line : 0, "config-type", key, true, want,
			    sc_yaml_type_name(v));
}

/* ---- typed values ----------------------------------------------------- */

/* A string: a scalar that is not null, a number or a boolean unless quoted. */
static bool get_str(struct ctx *c, const struct sc_yaml_node *v, const char *key, char **out)
{
	const char *t = sc_yaml_type_name(v);
	if (strcmp(t, "string") != 0 || !v->value[0]) {
		type_error(c, v, key, "a non-empty string");
		return false;
	}
	free(*out);
	*out = sc_xstrdup(v->value);
	return true;
}

static bool get_int(struct ctx *c, const struct sc_yaml_node *v, const char *key, long min,
		    long max, int *out)
{
	const char *want = min == 1 ? "a positive integer" : "a non-negative integer";
	char *end;
	long n;

	if (!sc_yaml_is_number(v)) {
		type_error(c, v, key, want);
		return false;
	}
	errno = 0;
	n = strtol(v->value, &end, 10);
	if (*end || errno) {
		report(c, SC_SEV_ERROR, v, "config-type", "'%s' must be %s, found '%s'", key, want,
		       v->value);
		return false;
	}
	if (n < min || n > max) {
		report(c, SC_SEV_ERROR, v, "config-value", "'%s' must be between %ld and %ld, found %ld",
		       key, min, max, n);
		return false;
	}
	*out = (int)n;
	return true;
}

/* A number in [min, max] (max < 0: no upper bound); strict_min excludes min. */
static bool get_num(struct ctx *c, const struct sc_yaml_node *v, const char *key, double min,
		    bool strict_min, double max, double *out)
{
	double x;

	if (!sc_yaml_is_number(v)) {
		type_error(c, v, key, "a number");
		return false;
	}
	x = strtod(v->value, NULL);
	if (x != x || x < min || (strict_min && x == min) || (max >= 0 && x > max)) {
		if (max >= 0)
			report(c, SC_SEV_ERROR, v, "config-value",
			       "'%s' must be %s %g and at most %g, found %s", key,
			       strict_min ? "above" : "at least", min, max, v->value);
		else
			report(c, SC_SEV_ERROR, v, "config-value", "'%s' must be %s %g, found %s",
			       key, strict_min ? "above" : "at least", min, v->value);
		return false;
	}
	*out = x;
	return true;
}

static bool get_bool(struct ctx *c, const struct sc_yaml_node *v, const char *key, bool *out)
{
	int b;
	if (!sc_yaml_is_bool(v, &b)) {
		type_error(c, v, key, "true or false");
		return false;
	}
	*out = b != 0;
	return true;
}

/* A list of strings; a single string stands for a list of one. */
static bool get_strlist(struct ctx *c, const struct sc_yaml_node *v, const char *key,
			size_t max, struct sc_strlist *out)
{
	struct sc_strlist l = { 0 };
	struct sc_buf k = SC_BUF_INIT;

	if (v->kind == SC_YAML_SCALAR && !strcmp(sc_yaml_type_name(v), "string") && v->value[0]) {
		sc_strlist_release(out);
		sc_strlist_add(out, v->value);
		return true;
	}
	if (v->kind != SC_YAML_SEQ) {
		type_error(c, v, key, "a list of strings");
		return false;
	}
	if (sc_yaml_count(v) > max) {
		report(c, SC_SEV_ERROR, v, "config-value", "'%s' has %zu items, more than %zu", key,
		       sc_yaml_count(v), max);
		return false;
	}
	for (size_t i = 0; i < sc_yaml_count(v); i++) {
		const struct sc_yaml_node *item = sc_yaml_seq_item(v, i);
		char *s = NULL;
		sc_buf_clear(&k);
		sc_buf_printf(&k, "%s[%zu]", key, i);
		if (!get_str(c, item, k.ptr, &s)) {
			sc_strlist_release(&l);
			sc_buf_release(&k);
			return false;
		}
		sc_strlist_add(&l, s);
		free(s);
	}
	sc_buf_release(&k);
	sc_strlist_release(out);
	*out = l;
	return true;
}

/* A path that must stay inside the repository (manifest entries). */
static bool get_rel_path(struct ctx *c, const struct sc_yaml_node *v, const char *key, char **out)
{
	char *s = NULL;
	if (!get_str(c, v, key, &s))
		return false;
	if (!sc_path_is_safe_relative(s)) {
		report(c, SC_SEV_ERROR, v, "config-path",
		       "'%s' must be a relative path inside the repository, found '%s'", key, s);
		free(s);
		return false;
	}
	free(*out);
	*out = s;
	return true;
}

/*
 * A path skillci writes to (store, cache, reports): relative, without
 * "..", so it resolves inside the workspace (docs/config.md). A run
 * checks symbolic links on the way as well (trust.h).
 */
static bool get_out_path(struct ctx *c, const struct sc_yaml_node *v, const char *key, char **out)
{
	char *s = NULL;
	if (!get_str(c, v, key, &s))
		return false;
	if (!sc_path_is_safe_relative(s)) {
		report(c, SC_SEV_ERROR, v, "config-path",
		       "'%s' must be a relative path inside the workspace (no '..', not absolute), "
		       "found '%s'", key, s);
		free(s);
		return false;
	}
	free(*out);
	*out = s;
	return true;
}

static bool name_ok(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_'))
			return false;
	return true;
}

/* ---- maps ------------------------------------------------------------- */

static void h_version(struct ctx *c, const struct sc_yaml_node *v, const char *key);

/* For a key of upskill.config.yaml written in skillci.yml: the skillci key. */
static const char *upskill_hint(const char *prefix, const struct key *keys, const char *name)
{
	static const char *const to_models[] = { "eval_model", "model", "skill_generation_model" };
	if (prefix[0] || keys[0].fn != h_version)
		return NULL;
	for (size_t i = 0; i < SC_ARRAY_SIZE(to_models); i++)
		if (!strcmp(name, to_models[i]))
			return "an upskill.config.yaml key; skillci.yml lists student models in 'models'";
	return NULL;
}

/*
 * Walks the pairs of map (a node at key `prefix`, "" for the top level),
 * calling each known key's handler with its full dotted name; unknown keys
 * warn, duplicate keys are errors.
 */
static void walk_map(struct ctx *c, const struct sc_yaml_node *map, const char *prefix,
		     const struct key *keys, size_t nkeys)
{
	struct sc_buf full = SC_BUF_INIT;

	if (map->kind != SC_YAML_MAP) {
		if (!prefix[0] && sc_yaml_is_null(map))
			return;  /* an empty file */
		type_error(c, map, prefix[0] ? prefix : "the file's top level", "a map");
		return;
	}
	for (size_t i = 0; i < sc_yaml_count(map); i++) {
		const struct sc_yaml_node *k = sc_yaml_map_key(map, i);
		const struct sc_yaml_node *v = sc_yaml_map_value(map, i);
		const struct key *found = NULL;
		bool dup = false;

		if (k->kind != SC_YAML_SCALAR) {
			report(c, SC_SEV_ERROR, k, "config-type", "keys must be plain names, found a %s",
			       sc_yaml_type_name(k));
			continue;
		}
		for (size_t j = 0; j < i && !dup; j++) {
			const struct sc_yaml_node *pk = sc_yaml_map_key(map, j);
			dup = pk->kind == SC_YAML_SCALAR && !strcmp(pk->value, k->value);
		}
		sc_diag_path_join(&full, prefix, k->value);
		if (dup) {
			report(c, SC_SEV_ERROR, k, "config-duplicate-key", "duplicate key '%s'", full.ptr);
			continue;
		}
		for (size_t j = 0; j < nkeys; j++)
			if (!strcmp(keys[j].name, k->value))
				found = &keys[j];
		if (!found) {
			const char *hint = upskill_hint(prefix, keys, k->value);
			report(c, SC_SEV_WARNING, k, "config-unknown-key", "unknown key '%s'; ignored%s%s%s",
			       full.ptr, hint ? " (" : "", hint ? hint : "", hint ? ")" : "");
			continue;
		}
		if (found->fn)
			found->fn(c, v, full.ptr);
	}
	sc_buf_release(&full);
}

/* ---- skillci.yml handlers --------------------------------------------- */

static void h_version(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	int n = 0;
	if (get_int(c, v, key, 1, 1000, &n) && n != 1)
		report(c, SC_SEV_ERROR, v, "config-value",
		       "'version' %d is not supported by this skillci (it reads version 1)", n);
}

static void h_models(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_strlist(c, v, key, SC_MAX_CONFIG_MODELS, &c->cfg->models);
}

/*
 * fast_agent_version: the fast-agent version whose model strings (aliases,
 * providers, settings) the names of this configuration and of the command
 * line follow; one of the versions skillci reads (provider.h).
 */
static void h_fast_agent_version(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	struct sc_buf known = SC_BUF_INIT;
	char *s = NULL;

	if (!get_str(c, v, key, &s))
		return;
	for (size_t i = 0; i < sc_models_grammar_count(); i++)
		if (!strcmp(s, sc_models_grammar_version(i))) {
			free(c->cfg->fast_agent_version);
			c->cfg->fast_agent_version = s;
			return;
		}
	for (size_t i = 0; i < sc_models_grammar_count(); i++)
		sc_buf_printf(&known, "%s%s", i ? ", " : "", sc_models_grammar_version(i));
	report(c, SC_SEV_ERROR, v, "config-value", "'%s' %s is not a fast-agent version whose model "
	       "names skillci reads (%s)", key, s, known.ptr);
	sc_buf_release(&known);
	free(s);
}

static void h_runs(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	c->runs_set |= get_int(c, v, key, 1, 1000, &c->cfg->runs);
}

static void h_max_turns(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_int(c, v, key, 1, 100, &c->cfg->max_turns);
}

static void h_fixtures(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_str(c, v, key, &c->cfg->fixtures_dir);
}

static void h_skills_dir(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_str(c, v, key, &c->cfg->skills_dir);
}

static void h_arch(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	char *s = NULL;
	const char *p;
	size_t digits;

	if (!get_str(c, v, key, &s))
		return;
	p = sc_starts_with(s, "sm_") ? s + 3 : sc_starts_with(s, "compute_") ? s + 8 : NULL;
	digits = p ? strspn(p, "0123456789") : 0;
	if (digits < 2 || (p[digits] && strcmp(p + digits, "a") != 0)) {
		report(c, SC_SEV_ERROR, v, "config-value",
		       "'%s' must be a GPU architecture such as sm_90, found '%s'", key, s);
		free(s);
		return;
	}
	free(c->cfg->arch);
	c->cfg->arch = s;
}

/* True when name is a provider a limit can apply to: a built-in one or an
 * endpoint of this file's "providers" map. */
static bool limit_target_known(struct ctx *c, const char *name)
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

static void h_per_provider(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	struct sc_config *cfg = c->cfg;
	struct sc_buf k = SC_BUF_INIT;

	if (v->kind != SC_YAML_MAP) {
		type_error(c, v, key, "a map of provider to limit");
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
			report(c, SC_SEV_WARNING, name, "config-unknown-key",
			       "unknown provider '%s' (a built-in provider or one named under "
			       "'providers'); ignored", k.ptr);
			continue;
		}
		if (!get_int(c, sc_yaml_map_value(v, i), k.ptr, 1, 10000, &n))
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

static void h_total(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_int(c, v, key, 1, 10000, &c->cfg->concurrency);
}

static void h_concurrency(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct key keys[] = { { "total", h_total }, { "per_provider", h_per_provider } };
	if (v->kind == SC_YAML_SCALAR) {
		h_total(c, v, key);
		return;
	}
	walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

static void h_timeout_request(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_num(c, v, key, 0, true, -1, &c->cfg->request_timeout_s);
}

static void h_timeout_kernel(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_num(c, v, key, 0, true, -1, &c->cfg->kernel_timeout_s);
}

static void h_timeouts(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct key keys[] = {
		{ "request", h_timeout_request }, { "kernel", h_timeout_kernel },
	};
	walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

static void h_cache_dir(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_out_path(c, v, key, &c->cfg->cache_dir);
}

static void h_cache_mode(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	int b;
	/* YAML 1.1 reads a plain "off" as a boolean: take it as the mode */
	if (sc_yaml_is_bool(v, &b) && !b && !strcasecmp(v->value, "off")) {
		c->cfg->cache_mode = SC_CACHE_OFF;
		return;
	}
	if (strcmp(sc_yaml_type_name(v), "string") != 0) {
		type_error(c, v, key, "one of use, refresh, off");
		return;
	}
	if (!strcmp(v->value, "use"))
		c->cfg->cache_mode = SC_CACHE_USE;
	else if (!strcmp(v->value, "refresh"))
		c->cfg->cache_mode = SC_CACHE_REFRESH;
	else if (!strcmp(v->value, "off"))
		c->cfg->cache_mode = SC_CACHE_OFF;
	else
		report(c, SC_SEV_ERROR, v, "config-value",
		       "'%s' must be one of use, refresh, off, found '%s'", key, v->value);
}

static void h_cache(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct key keys[] = { { "dir", h_cache_dir }, { "mode", h_cache_mode } };
	walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

/* A SQLite path or a PostgreSQL URI; one with a password is an error here,
 * at its line, and is not kept. */
static void h_store_path(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	char *loc = NULL;

	/* a file skillci writes stays in the workspace; a database is elsewhere */
	if (v->kind == SC_YAML_SCALAR && !sc_store_is_postgres(v->value)) {
		get_out_path(c, v, key, &c->cfg->store_path);
		return;
	}
	if (!get_str(c, v, key, &loc))
		return;
	if (sc_store_check_location(loc) < 0) {
		report(c, SC_SEV_ERROR, v, "config-value", "'%s': %s", key, sc_error_last());
		sc_error_clear();
		free(loc);
		return;
	}
	free(c->cfg->store_path);
	c->cfg->store_path = loc;
}

static void h_store(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct key keys[] = { { "path", h_store_path } };
	if (v->kind == SC_YAML_SCALAR)
		h_store_path(c, v, key);
	else
		walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

static void h_b_units(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_int(c, v, key, 1, SC_MAX_RUN_UNITS, &c->cfg->max_units);
}

static void h_b_requests(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_int(c, v, key, 1, SC_MAX_RUN_UNITS, &c->cfg->max_requests);
}

/* A token count: a whole number from 0 (no limit) to 10^12. */
static void get_tokens(struct ctx *c, const struct sc_yaml_node *v, const char *key, int64_t *out)
{
	double x;

	if (get_num(c, v, key, 0, false, 1e12, &x)) {
		if (x != (double)(int64_t)x)
			report(c, SC_SEV_ERROR, v, "config-value", "'%s' must be a whole number, found %s",
			       key, v->value);
		else
			*out = (int64_t)x;
	}
}

static void h_b_in(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_tokens(c, v, key, &c->cfg->budget.max_input_tokens);
}

static void h_b_out(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_tokens(c, v, key, &c->cfg->budget.max_output_tokens);
}

static void h_b_prompt(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_tokens(c, v, key, &c->cfg->budget.max_prompt_tokens);
}

static void h_b_usd(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_num(c, v, key, 0, false, 1e9, &c->cfg->budget.max_usd);
}

static void h_budget(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct key keys[] = {
		{ "max_units", h_b_units }, { "max_requests", h_b_requests },
		{ "max_input_tokens", h_b_in }, { "max_output_tokens", h_b_out },
		{ "max_usd", h_b_usd }, { "max_prompt_tokens", h_b_prompt },
	};
	walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

/*
 * prices: {MODEL: {input, output, cache_read, cache_write, date}}: dollars
 * per million tokens for models the built-in table lacks or prices
 * otherwise (budget.h). input and output are required.
 */
static void h_prices(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	struct sc_buf k = SC_BUF_INIT;

	if (v->kind != SC_YAML_MAP) {
		type_error(c, v, key, "a map of model names to prices");
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
			type_error(c, e, key, "a map of model names to {input, output, ...}");
			continue;
		}
		for (size_t f = 0; f < SC_ARRAY_SIZE(fields); f++) {
			sc_buf_clear(&k);
			sc_buf_printf(&k, "%s.%s.%s", key, name->value, fields[f]);
			if ((x = sc_yaml_map_get(e, fields[f])))
				ok &= get_num(c, x, k.ptr, 0, false, 1e6, dst[f]);
			else if (f < 2) {
				report(c, SC_SEV_ERROR, e, "config-value", "'%s' is required", k.ptr);
				ok = false;
			}
		}
		if ((x = sc_yaml_map_get(e, "date"))) {
			sc_buf_clear(&k);
			sc_buf_printf(&k, "%s.%s.date", key, name->value);
			ok &= get_str(c, x, k.ptr, &p.date);
		}
		p.model = name->value;
		if (ok)
			sc_budget_config_add_price(&c->cfg->budget, &p);
		free(p.date);
	}
	sc_buf_release(&k);
}

static void h_judge_model(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_str(c, v, key, &c->cfg->judge_model);
}

static void h_judge_rubric(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_str(c, v, key, &c->cfg->judge_rubric);
}

static void h_judge(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct key keys[] = { { "model", h_judge_model }, { "rubric", h_judge_rubric } };
	walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

static void h_grader_model(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_str(c, v, key, &c->cfg->grader_model);
}

/* grader: the model that grades tests' expectations (docs/tests-format.md) */
static void h_grader(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct key keys[] = { { "model", h_grader_model } };
	walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

static void h_g_points(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_num(c, v, key, 0, false, 100, &c->cfg->gate.pass_rate_drop_points);
}

static void h_g_alpha(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	double a = 0;
	if (get_num(c, v, key, 0, true, 1, &a)) {
		if (a >= 1)
			report(c, SC_SEV_ERROR, v, "config-value", "'%s' must be below 1, found %s",
			       key, v->value);
		else
			c->cfg->gate.alpha = a;
	}
}

static void h_g_beta(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	double b = 0;
	if (get_num(c, v, key, 0, true, 1, &b)) {
		if (b >= 0.5)
			report(c, SC_SEV_ERROR, v, "config-value", "'%s' must be below 0.5 (the chance "
			       "a drop of gate.regression_points passes), found %s", key, v->value);
		else
			c->cfg->gate.beta = b;
	}
}

static void h_g_regression(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	double d = 0;
	if (get_num(c, v, key, 0, true, 100, &d)) {
		if (d < 1)
			report(c, SC_SEV_ERROR, v, "config-value", "'%s' must be at least 1 point, found "
			       "%s: a design for smaller drops needs thousands of runs per test", key,
			       v->value);
		else
			c->cfg->gate.regression_points = d;
	}
}

static void h_g_accept_unverified(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_bool(c, v, key, &c->cfg->gate.accept_unverified);
}

static void h_g_tokens(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_num(c, v, key, 0, false, -1, &c->cfg->gate.tokens_rise_pct);
}

static void h_g_speedup(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_num(c, v, key, 0, false, 1, &c->cfg->gate.speedup_drop_ratio);
}

static void h_g_judge(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_num(c, v, key, 0, false, 1, &c->cfg->gate.judge_drop);
}

static void h_g_errors(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_num(c, v, key, 0, false, 1, &c->cfg->gate.error_share);
}

static void h_g_lift(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_bool(c, v, key, &c->cfg->gate.require_lift);
}

static void h_g_existing(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_bool(c, v, key, &c->cfg->gate.fail_on_existing);
}

static void h_g_deletions(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_bool(c, v, key, &c->cfg->gate.allow_deletions);
}

static void h_g_label(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	char *s = NULL;

	if (!get_str(c, v, key, &s))
		return;
	if (strlen(s) >= sizeof(c->cfg->gate.deletion_label))
		report(c, SC_SEV_ERROR, v, "config-value", "'%s' must be shorter than %zu bytes",
		       key, sizeof(c->cfg->gate.deletion_label));
	else
		snprintf(c->cfg->gate.deletion_label, sizeof(c->cfg->gate.deletion_label), "%s", s);
	free(s);
}

static void h_g_baseline(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_num(c, v, key, 0, false, 1, &c->cfg->gate.max_baseline_pass_rate);
}

static void h_g_compile_only(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_bool(c, v, key, &c->cfg->gate.compile_only);
}

/* gate.fail_inconclusive: read, and said to be replaced. Every check now
 * ends passed or failed unless a cap stops it, and that is unverified,
 * which fails unless gate.accept_unverified: so true changes nothing and
 * false means accept_unverified. */
static void h_g_inconclusive(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	bool b = false;
	if (!get_bool(c, v, key, &b))
		return;
	report(c, SC_SEV_WARNING, v, "config-replaced", "'%s' is replaced: a check the design "
	       "could not finish is unverified and fails unless 'gate.accept_unverified: true'%s",
	       key, b ? "" : "; read as gate.accept_unverified: true");
	if (!b)
		c->cfg->gate.accept_unverified = true;
}

static void h_g_untested(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_bool(c, v, key, &c->cfg->gate.allow_untested);
}

static void h_g_first_runs(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_int(c, v, key, 1, 1000, &c->cfg->gate.first_runs);
}

static void h_g_max_runs(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	c->max_runs_set |= get_int(c, v, key, 0, 1000, &c->cfg->gate.max_runs);
}

static void h_gate(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct key keys[] = {
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
	walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
	if (c->cfg->gate.regression_points <= c->cfg->gate.pass_rate_drop_points)
		report(c, SC_SEV_ERROR, v, "config-value",
		       "'gate.regression_points' (%g) must be above 'gate.pass_rate_drop_points' (%g): "
		       "the drop that must be caught lies beyond the drop that counts as none",
		       c->cfg->gate.regression_points, c->cfg->gate.pass_rate_drop_points);
	if (c->cfg->gate.max_runs > 0 && c->cfg->gate.max_runs < c->cfg->gate.first_runs)
		report(c, SC_SEV_ERROR, v, "config-value",
		       "'gate.max_runs' (%d) must be at least 'gate.first_runs' (%d): the first round "
		       "runs first_runs per test", c->cfg->gate.max_runs, c->cfg->gate.first_runs);
}

/* One manifest entry: {skill: PATH, tests: [FILES], fixtures: [NAMES]}. */
static void manifest_entry(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	struct sc_config_skill e;
	struct sc_buf k = SC_BUF_INIT;
	const struct sc_yaml_node *x;
	bool bad = false;

	memset(&e, 0, sizeof(e));
	e.line = v->line;
	if (v->kind != SC_YAML_MAP) {
		type_error(c, v, key, "a map with 'skill', 'tests' and 'fixtures'");
		return;
	}
	for (size_t i = 0; i < sc_yaml_count(v); i++) {
		const struct sc_yaml_node *name = sc_yaml_map_key(v, i);
		if (name->kind == SC_YAML_SCALAR && strcmp(name->value, "skill") &&
		    strcmp(name->value, "tests") && strcmp(name->value, "fixtures")) {
			sc_diag_path_join(&k, key, name->value);
			report(c, SC_SEV_WARNING, name, "config-unknown-key",
			       "unknown key '%s'; ignored", k.ptr);
		}
	}
	x = sc_yaml_map_get(v, "skill");
	sc_diag_path_join(&k, key, "skill");
	if (!x) {
		report(c, SC_SEV_ERROR, v, "config-type", "'%s' is missing", k.ptr);
		bad = true;
	} else if (!get_rel_path(c, x, k.ptr, &e.skill)) {
		bad = true;
	}
	if ((x = sc_yaml_map_get(v, "tests"))) {
		sc_diag_path_join(&k, key, "tests");
		if (!get_strlist(c, x, k.ptr, SC_MAX_TEST_SUITE_FILES, &e.tests)) {
			bad = true;
		} else {
			for (size_t i = 0; i < e.tests.n; i++) {
				if (!sc_path_is_safe_relative(e.tests.items[i])) {
					report(c, SC_SEV_ERROR, x, "config-path",
					       "'%s' must list relative paths inside the repository, found '%s'",
					       k.ptr, e.tests.items[i]);
					bad = true;
				}
			}
		}
	}
	if ((x = sc_yaml_map_get(v, "fixtures"))) {
		sc_diag_path_join(&k, key, "fixtures");
		if (!get_strlist(c, x, k.ptr, SC_MAX_MANIFEST_SKILLS, &e.fixtures)) {
			bad = true;
		} else {
			for (size_t i = 0; i < e.fixtures.n; i++) {
				if (!name_ok(e.fixtures.items[i])) {
					report(c, SC_SEV_ERROR, x, "config-value",
					       "'%s': '%s' is not a fixture name (lowercase letters, digits, '-' and '_')",
					       k.ptr, e.fixtures.items[i]);
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

static void h_skills(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	struct sc_buf k = SC_BUF_INIT;

	if (v->kind != SC_YAML_SEQ) {
		type_error(c, v, key, "a list of {skill, tests, fixtures} entries");
		return;
	}
	if (sc_yaml_count(v) > SC_MAX_MANIFEST_SKILLS) {
		report(c, SC_SEV_ERROR, v, "config-value", "'%s' has more than %d entries", key,
		       SC_MAX_MANIFEST_SKILLS);
		return;
	}
	for (size_t i = 0; i < sc_yaml_count(v); i++) {
		sc_buf_clear(&k);
		sc_buf_printf(&k, "%s[%zu]", key, i);
		manifest_entry(c, sc_yaml_seq_item(v, i), k.ptr);
	}
	sc_buf_release(&k);
}

static void h_r_junit(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_out_path(c, v, key, &c->cfg->report_junit);
}

static void h_r_markdown(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_out_path(c, v, key, &c->cfg->report_markdown);
}

static void h_r_html(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_out_path(c, v, key, &c->cfg->report_html);
}

static void h_r_json(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_out_path(c, v, key, &c->cfg->report_json);
}

static void set_report_paths(struct sc_config *cfg, const char *dir)
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

static void h_reports(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct key keys[] = {
		{ "dir", NULL }, { "junit", h_r_junit }, { "markdown", h_r_markdown },
		{ "html", h_r_html }, { "json", h_r_json },
	};
	const struct sc_yaml_node *dir;
	struct sc_buf k = SC_BUF_INIT;
	char *d = NULL;

	/* the folder first, so the paths named one by one win over it */
	if (v->kind == SC_YAML_MAP && (dir = sc_yaml_map_get(v, "dir"))) {
		sc_diag_path_join(&k, key, "dir");
		if (get_out_path(c, dir, k.ptr, &d))
			set_report_paths(c->cfg, d);
		free(d);
		sc_buf_release(&k);
	}
	walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
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
static void endpoint_entry(struct ctx *c, const struct sc_yaml_node *name,
			   const struct sc_yaml_node *v, const char *key)
{
	struct sc_config_endpoint e;
	struct sc_buf k = SC_BUF_INIT;
	const struct sc_yaml_node *x;
	bool bad = false;

	memset(&e, 0, sizeof(e));
	e.line = name->line;
	if (v->kind != SC_YAML_MAP) {
		type_error(c, v, key, "a map with 'wire', 'base_url' and 'api_key_env'");
		return;
	}
	if (!name_ok(name->value) || name->value[0] < 'a' || name->value[0] > 'z') {
		report(c, SC_SEV_ERROR, name, "config-value", "'%s': an endpoint name is lowercase "
		       "letters, digits, '-' and '_', starting with a letter", key);
		return;
	}
	if (sc_provider_find(name->value) >= 0 && sc_provider_find(name->value) < SC_PROVIDER_BUILTINS) {
		report(c, SC_SEV_ERROR, name, "config-value", "'%s': '%s' is a built-in provider; "
		       "give the endpoint another name", key, name->value);
		return;
	}
	if (alias_name(name->value)) {
		report(c, SC_SEV_ERROR, name, "config-value", "'%s': '%s' is a model alias; give "
		       "the endpoint another name", key, name->value);
		return;
	}
	for (size_t i = 0; i < sc_yaml_count(v); i++) {
		const struct sc_yaml_node *n = sc_yaml_map_key(v, i);
		if (n->kind != SC_YAML_SCALAR)
			continue;
		sc_diag_path_join(&k, key, n->value);
		if (!strcmp(n->value, "api_key")) {
			report(c, SC_SEV_ERROR, n, "config-secret", "'%s': keys do not belong in the "
			       "configuration; name the environment variable that holds it with "
			       "'api_key_env'", k.ptr);
			bad = true;
		} else if (strcmp(n->value, "wire") && strcmp(n->value, "base_url") &&
			   strcmp(n->value, "api_key_env")) {
			report(c, SC_SEV_WARNING, n, "config-unknown-key", "unknown key '%s'; ignored",
			       k.ptr);
		}
	}
	sc_diag_path_join(&k, key, "wire");
	if (!(x = sc_yaml_map_get(v, "wire"))) {
		report(c, SC_SEV_ERROR, v, "config-type", "'%s' is missing (openai or anthropic)", k.ptr);
		bad = true;
	} else if (get_str(c, x, k.ptr, &e.wire) && strcmp(e.wire, "openai") &&
		   strcmp(e.wire, "anthropic")) {
		report(c, SC_SEV_ERROR, x, "config-value", "'%s' must be openai or anthropic, found "
		       "'%s'", k.ptr, e.wire);
		bad = true;
	} else if (!e.wire) {
		bad = true;
	}
	sc_diag_path_join(&k, key, "base_url");
	if (!(x = sc_yaml_map_get(v, "base_url"))) {
		report(c, SC_SEV_ERROR, v, "config-type", "'%s' is missing", k.ptr);
		bad = true;
	} else if (get_str(c, x, k.ptr, &e.base_url) && !sc_provider_url_ok(e.base_url)) {
		report(c, SC_SEV_ERROR, x, "config-value", "'%s' must be an http:// or https:// URL, "
		       "found '%s'", k.ptr, e.base_url);
		bad = true;
	} else if (!e.base_url) {
		bad = true;
	}
	sc_diag_path_join(&k, key, "api_key_env");
	if ((x = sc_yaml_map_get(v, "api_key_env")) && !sc_yaml_is_null(x)) {
		if (!get_str(c, x, k.ptr, &e.api_key_env)) {
			bad = true;
		} else if (!env_name_ok(e.api_key_env)) {
			report(c, SC_SEV_ERROR, x, "config-value", "'%s' must be an environment "
			       "variable name, found '%s'", k.ptr, e.api_key_env);
			bad = true;
		}
	}
	sc_buf_release(&k);
	if (!bad && c->cfg->nendpoints >= SC_MAX_ENDPOINTS) {
		report(c, SC_SEV_ERROR, name, "config-value", "more than %d endpoints under "
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

static void h_providers(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	struct sc_buf k = SC_BUF_INIT;

	if (v->kind != SC_YAML_MAP) {
		type_error(c, v, key, "a map of endpoint name to {wire, base_url, api_key_env}");
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

static void h_agent_mode(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	int b;
	/* YAML 1.1 reads a plain never-like "off"/"no" as a boolean: refuse it by name */
	if (strcmp(sc_yaml_type_name(v), "string") != 0 || sc_yaml_is_bool(v, &b) ||
	    sc_agent_mode_parse(&c->cfg->agent.mode, v->value) < 0) {
		sc_error_clear();
		type_error(c, v, key, "one of auto, always, never");
	}
}

static void h_agent_jobs(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_int(c, v, key, 1, 256, &c->cfg->agent.jobs);
}

static void h_agent_max_calls(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_int(c, v, key, 1, 64, &c->cfg->agent.max_calls_per_turn);
}

static void h_agent_trigger_turns(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_int(c, v, key, 1, 100, &c->cfg->agent.trigger_turns);
}

static void h_agent_output(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	int n;
	if (get_int(c, v, key, 256, 1024 * 1024, &n))
		c->cfg->agent.tool_output_max = (size_t)n;
}

/* A size in MiB into bytes. */
static void mib(struct ctx *c, const struct sc_yaml_node *v, const char *key, long max, int64_t *out)
{
	int n;
	if (get_int(c, v, key, 1, max, &n))
		*out = (int64_t)n * 1024 * 1024;
}

static void h_lim_timeout(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	double s;
	if (get_num(c, v, key, 0, true, 3600, &s))
		c->cfg->agent.jail.command_timeout_ms = (int64_t)(s * 1000);
}

static void h_lim_cpu(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_int(c, v, key, 1, 3600, &c->cfg->agent.jail.cpu_s);
}

static void h_lim_memory(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	mib(c, v, key, 1024 * 1024, &c->cfg->agent.jail.memory_bytes);
}

static void h_lim_processes(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_int(c, v, key, 1, 4096, &c->cfg->agent.jail.processes);
}

static void h_lim_file(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	mib(c, v, key, 64 * 1024, &c->cfg->agent.jail.file_bytes);
}

static void h_lim_workspace(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	mib(c, v, key, 64 * 1024, &c->cfg->agent.jail.workspace_bytes);
}

static void h_lim_tmp(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	mib(c, v, key, 64 * 1024, &c->cfg->agent.jail.tmp_bytes);
}

static void h_agent_limits(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct key keys[] = {
		{ "command_timeout", h_lim_timeout }, { "cpu", h_lim_cpu },
		{ "memory", h_lim_memory },           { "processes", h_lim_processes },
		{ "file_size", h_lim_file },          { "workspace", h_lim_workspace },
		{ "tmp", h_lim_tmp },
	};
	walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

static void h_agent(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	static const struct key keys[] = {
		{ "mode", h_agent_mode },           { "jobs", h_agent_jobs },
		{ "max_calls", h_agent_max_calls }, { "tool_output", h_agent_output },
		{ "trigger_turns", h_agent_trigger_turns }, { "limits", h_agent_limits },
	};
	if (v->kind == SC_YAML_SCALAR) {
		h_agent_mode(c, v, key);
		return;
	}
	walk_map(c, v, key, keys, SC_ARRAY_SIZE(keys));
}

static const struct key skillci_keys[] = {
	{ "version", h_version },       { "models", h_models },
	{ "fast_agent_version", h_fast_agent_version },
	{ "runs", h_runs },             { "max_turns", h_max_turns },
	{ "fixtures", h_fixtures },     { "arch", h_arch },
	{ "skills_dir", h_skills_dir }, { "concurrency", h_concurrency },
	{ "timeouts", h_timeouts },     { "cache", h_cache },
	{ "store", h_store },           { "judge", h_judge },
	{ "gate", h_gate },             { "skills", h_skills },
	{ "reports", h_reports },       { "providers", h_providers },
	{ "budget", h_budget },         { "prices", h_prices },
	{ "grader", h_grader },         { "agent", h_agent },
};

/* ---- upskill.config.yaml handlers ------------------------------------- */

static void u_model(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	if (get_str(c, v, key, &c->cfg->generate_model)) {
		free(c->up_model);
		c->up_model = sc_xstrdup(v->value);
	}
}

static void u_eval_model(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	if (sc_yaml_is_null(v))
		return;  /* upskill: "defaults to skill_generation_model" */
	get_str(c, v, key, &c->up_eval_model);
}

static void u_test_gen_model(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	if (!sc_yaml_is_null(v))
		get_str(c, v, key, &c->cfg->test_gen_model);
}

static void u_runs_dir(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_str(c, v, key, &c->cfg->runs_dir);
}

static void u_refine(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	get_int(c, v, key, 0, 100, &c->cfg->max_refine_attempts);
}

static void u_auto_eval(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	bool b;
	get_bool(c, v, key, &b);
}

static void u_fastagent(struct ctx *c, const struct sc_yaml_node *v, const char *key)
{
	if (!sc_yaml_is_null(v))
		get_rel_path(c, v, key, &c->cfg->fastagent_config);
}

static const struct key upskill_keys[] = {
	{ "model", u_model },
	{ "skill_generation_model", u_model },
	{ "eval_model", u_eval_model },
	{ "test_gen_model", u_test_gen_model },
	{ "skills_dir", h_skills_dir },
	{ "runs_dir", u_runs_dir },
	{ "max_refine_attempts", u_refine },
	{ "auto_eval", u_auto_eval },
	{ "fastagent_config", u_fastagent },
	/* what upskill's eval and benchmark take as --runs and as their
	 * concurrency: runs per test, requests in flight */
	{ "num_runs", h_runs },
	{ "max_parallel", h_total },
};

/* ---- fastagent.config.yaml --------------------------------------------- */

/* fast-agent's "api_key: <your-api-key-here>" placeholder means no key. */
#define FASTAGENT_KEY_HINT "<your-api-key-here>"

/*
 * A value of fastagent.config.yaml: fast-agent substitutes ${VAR} (and
 * ${VAR:default}) from the environment. Returns a new string or NULL.
 * A pull request's copy (data_only) is data: its text is kept as written,
 * never looked up, so no variable's value can reach a message.
 */
static char *fastagent_value(const char *v, bool data_only)
{
	size_t n = strlen(v);

	if (data_only)
		return *v && strcmp(v, FASTAGENT_KEY_HINT) ? sc_xstrdup(v) : NULL;
	if (n > 3 && v[0] == '$' && v[1] == '{' && v[n - 1] == '}') {
		char *name = sc_xstrndup(v + 2, n - 3), *colon = strchr(name, ':'), *out = NULL;
		const char *env;
		if (colon)
			*colon = '\0';
		env = getenv(name);
		if (env && *env)
			out = sc_xstrdup(env);
		else if (colon && colon[1])
			out = sc_xstrdup(colon + 1);
		free(name);
		return out;
	}
	return *v && strcmp(v, FASTAGENT_KEY_HINT) ? sc_xstrdup(v) : NULL;
}

/*
 * The provider blocks of fast-agent's settings: for each built-in provider
 * (hf also as "huggingface"), base_url and api_key. Every other key is
 * fast-agent's own (mcp, logger, default_model, ...) and is not read.
 */
static void fastagent_walk(struct ctx *c, const struct sc_yaml_node *root)
{
	struct sc_buf k = SC_BUF_INIT;

	if (root->kind != SC_YAML_MAP)
		return;
	for (size_t i = 0; i < sc_yaml_count(root); i++) {
		const struct sc_yaml_node *name = sc_yaml_map_key(root, i);
		const struct sc_yaml_node *v = sc_yaml_map_value(root, i);
		const char *prov;
		struct sc_config_provider_file f;
		const struct sc_yaml_node *x;
		int kind;

		if (name->kind != SC_YAML_SCALAR)
			continue;
		prov = !strcmp(name->value, "huggingface") ? "hf" : name->value;
		kind = sc_provider_find(prov);
		if (kind < 0 || kind >= SC_PROVIDER_BUILTINS || kind == SC_PROVIDER_ORACLE ||
		    v->kind != SC_YAML_MAP)
			continue;
		memset(&f, 0, sizeof(f));
		f.line = name->line;
		if ((x = sc_yaml_map_get(v, "base_url")) && !sc_yaml_is_null(x)) {
			sc_diag_path_join(&k, name->value, "base_url");
			if (get_str(c, x, k.ptr, &f.base_url)) {
				char *val = fastagent_value(f.base_url, c->data_only);
				free(f.base_url);
				f.base_url = val;
				if (val && !c->data_only && !sc_provider_url_ok(val)) {
					report(c, SC_SEV_ERROR, x, "config-value", "'%s' must be an http:// "
					       "or https:// URL, found '%s'", k.ptr, val);
					free(f.base_url);
					f.base_url = NULL;
				}
			}
		}
		if ((x = sc_yaml_map_get(v, "api_key")) && !sc_yaml_is_null(x)) {
			sc_diag_path_join(&k, name->value, "api_key");
			if (get_str(c, x, k.ptr, &f.api_key)) {
				char *val = fastagent_value(f.api_key, c->data_only);
				free(f.api_key);
				f.api_key = val;
			}
		}
		{
			/* fast-agent's other provider keys the provider layer reads */
			static const char *const extra[] = { "default_provider", "api_version",
							     "resource_name", "azure_deployment", NULL };
			const struct sc_yaml_node *hdrs = sc_yaml_map_get(v, "default_headers");
			for (size_t e = 0; extra[e]; e++) {
				char *val = NULL, *sub;
				if (!(x = sc_yaml_map_get(v, extra[e])) || sc_yaml_is_null(x))
					continue;
				sc_diag_path_join(&k, name->value, extra[e]);
				if (!get_str(c, x, k.ptr, &val))
					continue;
				if ((sub = fastagent_value(val, c->data_only))) {
					sc_strlist_add(&f.settings, extra[e]);
					sc_strlist_add(&f.settings, sub);
				}
				free(sub);
				free(val);
			}
			for (size_t h = 0; hdrs && hdrs->kind == SC_YAML_MAP && h < sc_yaml_count(hdrs); h++) {
				const struct sc_yaml_node *hn = sc_yaml_map_key(hdrs, h);
				char *val = NULL, *sub;
				struct sc_buf hk = SC_BUF_INIT;
				if (hn->kind != SC_YAML_SCALAR)
					continue;
				sc_buf_printf(&hk, "default_headers.%s", hn->value);
				sc_diag_path_join(&k, name->value, hk.ptr);
				if (get_str(c, sc_yaml_map_value(hdrs, h), k.ptr, &val) &&
				    (sub = fastagent_value(val, c->data_only))) {
					sc_strlist_add(&f.settings, hk.ptr);
					sc_strlist_add(&f.settings, sub);
					free(sub);
				}
				free(val);
				sc_buf_release(&hk);
			}
		}
		if (!f.base_url && !f.api_key && !f.settings.n)
			continue;
		f.provider = sc_xstrdup(prov);
		SC_GROW(c->cfg->provider_files, c->cfg->provider_files_alloc,
			c->cfg->nprovider_files + 1);
		c->cfg->provider_files[c->cfg->nprovider_files++] = f;
	}
	sc_buf_release(&k);
}

int sc_config_apply_providers(const struct sc_config *cfg)
{
	int err;

	/* the model names that follow are read as this fast-agent reads them */
	if ((err = sc_models_set_grammar(cfg->fast_agent_version)) < 0)
		return sc_error_wrap(err, "%s", cfg->path ? cfg->path : SC_CONFIG_FILE);
	/* the secrets the trusted configuration names join the redactor */
	if (cfg->store_path)
		sc_output_add_location_secrets(cfg->store_path);
	for (size_t i = 0; i < cfg->nendpoints; i++)
		if (cfg->endpoints[i].api_key_env)
			sc_output_add_secret(getenv(cfg->endpoints[i].api_key_env));
	/* a short fast-agent key ("local", "ollama") is a placeholder, and
	 * masking it would mask that word everywhere */
	for (size_t i = 0; i < cfg->nprovider_files; i++)
		if (cfg->provider_files[i].api_key &&
		    strlen(cfg->provider_files[i].api_key) >= SC_OUTPUT_MIN_SECRET_BY_FORM)
			sc_output_add_secret(cfg->provider_files[i].api_key);
	for (size_t i = 0; i < cfg->nprovider_files; i++) {
		const struct sc_config_provider_file *f = &cfg->provider_files[i];
		if ((err = sc_providers_set_file_defaults(sc_provider_find(f->provider), f->base_url,
							  f->api_key)) < 0)
			return sc_error_wrap(err, "%s:%zu", cfg->fastagent_path ? cfg->fastagent_path
				: SC_FASTAGENT_CONFIG_FILE, f->line);
		for (size_t s = 0; s + 1 < f->settings.n; s += 2)
			if ((err = sc_providers_set_file_setting(sc_provider_find(f->provider),
								 f->settings.items[s],
								 f->settings.items[s + 1])) < 0)
				return sc_error_wrap(err, "%s:%zu", cfg->fastagent_path ?
					cfg->fastagent_path : SC_FASTAGENT_CONFIG_FILE, f->line);
	}
	for (size_t i = 0; i < cfg->nendpoints; i++) {
		const struct sc_config_endpoint *e = &cfg->endpoints[i];
		struct sc_endpoint ep;
		ep.name = e->name;
		ep.wire = !strcmp(e->wire, "anthropic") ? SC_WIRE_ANTHROPIC : SC_WIRE_OPENAI;
		ep.base_url = e->base_url;
		ep.key_env = e->api_key_env;
		if ((err = sc_providers_add_endpoint(&ep)) < 0)
			return sc_error_set(err, "%s:%zu: %s", cfg->path ? cfg->path : SC_CONFIG_FILE,
					    e->line, sc_error_last());
	}
	return 0;
}

/* ---- loading ---------------------------------------------------------- */

void sc_config_defaults(struct sc_config *out)
{
	memset(out, 0, sizeof(*out));
	out->runs = 1;
	out->max_turns = 3;
	out->fixtures_dir = sc_xstrdup(SC_DEFAULT_FIXTURES_DIR);
	out->arch = sc_xstrdup(SC_DEFAULT_ARCH);
	out->skills_dir = sc_xstrdup(SC_DEFAULT_SKILLS_DIR);
	out->concurrency = SC_PROVIDER_MAX_TOTAL;
	out->request_timeout_s = SC_PROVIDER_TIMEOUT_MS / 1000.0;
	out->kernel_timeout_s = 60;
	out->cache_dir = sc_xstrdup(SC_DEFAULT_CACHE_DIR);
	out->cache_mode = SC_CACHE_USE;
	out->store_path = sc_xstrdup(SC_DEFAULT_STORE_PATH);
	out->gate.pass_rate_drop_points = SC_CONFIG_MARGIN_POINTS;
	out->gate.regression_points = SC_CONFIG_REGRESSION_POINTS;
	out->gate.alpha = 0.05;
	out->gate.beta = SC_CONFIG_BETA;
	out->gate.max_runs = SC_CONFIG_MAX_RUNS;
	out->gate.tokens_rise_pct = 20;
	out->gate.speedup_drop_ratio = 0.1;
	out->gate.judge_drop = 0.1;
	out->gate.error_share = 0.1;
	out->gate.require_lift = true;
	/* an untested skill is unverified, shown as such, and accepted: a new
	 * adopter's repository has no tests yet (docs/run.md, "Untested skills") */
	out->gate.allow_untested = true;
	sc_budget_config_defaults(&out->budget);
	out->gate.max_baseline_pass_rate = 1;
	out->gate.first_runs = SC_CONFIG_FIRST_RUNS;
	out->max_units = SC_DEFAULT_MAX_UNITS;
	out->max_requests = SC_DEFAULT_MAX_REQUESTS;
	set_report_paths(out, SC_DEFAULT_REPORT_DIR);
	out->generate_model = sc_xstrdup(SC_DEFAULT_GENERATE_MODEL);
	out->max_refine_attempts = 2;
	out->runs_dir = sc_xstrdup(SC_DEFAULT_RUNS_DIR);
	sc_agent_options_init(&out->agent);
}

/*
 * Reads and parses one file and walks its top level with keys. A YAML
 * syntax error becomes one finding at its line. Returns 0, SC_ENOTFOUND
 * when the file is missing, or another read error (also a finding).
 */
static int load_one(struct ctx *c, const char *path, const struct key *keys, size_t nkeys,
		    void (*walk)(struct ctx *, const struct sc_yaml_node *))
{
	struct sc_yaml_node *root = NULL;
	struct sc_buf data = SC_BUF_INIT;
	int err;

	c->file = path;
	err = sc_read_file(&data, path, SC_MAX_CONFIG_BYTES);
	if (err == SC_ENOTFOUND)
		goto done;
	if (err < 0) {
		sc_diags_add(c->diags, SC_SEV_ERROR, path, 0,
			     err == SC_ELIMIT ? "config-limit" : "config-read", "%s", sc_error_last());
		goto done;
	}
	if (!sc_utf8_check(data.ptr, data.len, NULL)) {
		sc_diags_add(c->diags, SC_SEV_ERROR, path, 0, "config-yaml", "invalid UTF-8");
		goto done;
	}
	if (sc_yaml_parse(&root, data.ptr, data.len, path, 0) < 0) {
		/* the wrapper's message is "file:line[:col]: problem" */
		const char *m = sc_error_last(), *rest = m;
		size_t line = 0, n = strlen(path);
		if (!strncmp(m, path, n) && m[n] == ':') {
			char *end;
			line = strtoul(m + n + 1, &end, 10);
			if (*end == ':' && end[1] >= '0' && end[1] <= '9')
				(void)strtoul(end + 1, &end, 10);
			rest = end;
			if (*rest == ':')
				rest++;
			while (*rest == ' ')
				rest++;
		}
		sc_diags_add(c->diags, SC_SEV_ERROR, path, line, "config-yaml", "%s", rest);
		goto done;
	}
	c->root = root;
	if (walk)
		walk(c, root);
	else
		walk_map(c, root, "", keys, nkeys);
	c->root = NULL;
done:
	sc_yaml_free(root);
	sc_buf_release(&data);
	return err;
}

/* root/name, or just name for the current folder, as a user would type it. */
static void in_root(struct sc_buf *out, const char *root, const char *name)
{
	if (!root || !strcmp(root, ".") || !root[0])
		sc_buf_sets(out, name);
	else
		sc_path_join(out, root, name);
}

static int load(struct sc_config *out, const char *repo_root, const char *explicit_path,
		struct sc_diags *diags, bool data_only)
{
	struct sc_buf path = SC_BUF_INIT;
	struct ctx c;
	int err = 0;

	sc_config_defaults(out);
	memset(&c, 0, sizeof(c));
	c.cfg = out;
	c.diags = diags;
	c.data_only = data_only;

	in_root(&path, repo_root, SC_UPSKILL_CONFIG_FILE);
	if (load_one(&c, path.ptr, upskill_keys, SC_ARRAY_SIZE(upskill_keys), NULL) != SC_ENOTFOUND) {
		out->upskill_path = sc_xstrdup(path.ptr);
		/* upskill evaluates on eval_model, else on the generation model */
		if (c.up_eval_model || c.up_model) {
			sc_strlist_release(&out->models);
			sc_strlist_add(&out->models, c.up_eval_model ? c.up_eval_model : c.up_model);
		}
	}

	/*
	 * fast-agent's provider settings, where upskill's harness reads them:
	 * fastagent_config when that file exists, else fastagent.config.yaml
	 * (upskill's effective_fastagent_config)
	 */
	err = SC_ENOTFOUND;
	if (out->fastagent_config) {
		in_root(&path, repo_root, out->fastagent_config);
		err = load_one(&c, path.ptr, NULL, 0, fastagent_walk);
	}
	if (err == SC_ENOTFOUND) {
		in_root(&path, repo_root, SC_FASTAGENT_CONFIG_FILE);
		err = load_one(&c, path.ptr, NULL, 0, fastagent_walk);
	}
	if (err != SC_ENOTFOUND)
		out->fastagent_path = sc_xstrdup(path.ptr);

	if (explicit_path) {
		sc_buf_sets(&path, explicit_path);
	} else {
		in_root(&path, repo_root, SC_CONFIG_FILE);
	}
	err = load_one(&c, path.ptr, skillci_keys, SC_ARRAY_SIZE(skillci_keys), NULL);
	if (err == SC_ENOTFOUND && explicit_path) {
		err = sc_error_set(SC_ENOTFOUND, "config file '%s' does not exist", explicit_path);
		goto done;
	}
	if (err != SC_ENOTFOUND)
		out->path = sc_xstrdup(path.ptr);
	err = err == SC_ENOTFOUND || err == SC_ELIMIT || err == 0 ? 0 : err;
	/* `runs: N` written without gate.max_runs asks for N runs: a fixed
	 * design, as it meant before sampling in rounds was the default */
	if (c.runs_set && !c.max_runs_set)
		out->gate.max_runs = 0;
done:
	free(c.up_eval_model);
	free(c.up_model);
	sc_buf_release(&path);
	return err;
}

int sc_config_load(struct sc_config *out, const char *repo_root, const char *explicit_path,
		   struct sc_diags *diags)
{
	return load(out, repo_root, explicit_path, diags, false);
}

int sc_config_load_data(struct sc_config *out, const char *repo_root, const char *explicit_path,
			struct sc_diags *diags)
{
	return load(out, repo_root, explicit_path, diags, true);
}

const struct sc_config_skill *sc_config_find_skill(const struct sc_config *cfg, const char *rel_dir)
{
	size_t n = strlen(rel_dir);

	while (n > 1 && rel_dir[n - 1] == '/')
		n--;
	for (size_t i = 0; i < cfg->nskills; i++) {
		const char *s = cfg->skills[i].skill;
		size_t m = strlen(s);
		while (m > 1 && s[m - 1] == '/')
			m--;
		if (sc_starts_with(s, "./")) {
			s += 2;
			m -= 2;
		}
		if (m == n && !strncmp(s, rel_dir, n))
			return &cfg->skills[i];
	}
	return NULL;
}

int sc_config_provider_limit(const struct sc_config *cfg, const char *provider)
{
	for (size_t i = 0; i < cfg->nprovider_limits; i++)
		if (!strcmp(cfg->provider_limits[i].provider, provider))
			return cfg->provider_limits[i].limit < cfg->concurrency ?
			       cfg->provider_limits[i].limit : cfg->concurrency;
	return SC_PROVIDER_MAX_EACH < cfg->concurrency ? SC_PROVIDER_MAX_EACH : cfg->concurrency;
}

static void pair(struct sc_strlist *keys, struct sc_strlist *values, const char *key,
		 const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void pair(struct sc_strlist *keys, struct sc_strlist *values, const char *key,
		 const char *fmt, ...)
{
	struct sc_buf v = SC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&v, fmt, ap);
	va_end(ap);
	sc_strlist_add(keys, key);
	sc_strlist_add(values, v.ptr);
	sc_buf_release(&v);
}

static void list_value(struct sc_buf *out, const struct sc_strlist *l)
{
	sc_buf_putc(out, '[');
	for (size_t i = 0; i < l->n; i++)
		sc_buf_printf(out, "%s%s", i ? ", " : "", l->items[i]);
	sc_buf_putc(out, ']');
}

void sc_config_policy(const struct sc_config *cfg, struct sc_strlist *keys, struct sc_strlist *values)
{
	struct sc_buf v = SC_BUF_INIT, k = SC_BUF_INIT;
	const struct sc_config_gate *g = &cfg->gate;

	list_value(&v, &cfg->models);
	pair(keys, values, "models", "%s", v.ptr);
	pair(keys, values, "fast_agent_version", "%s", cfg->fast_agent_version ?
	     cfg->fast_agent_version : SC_MODELS_GRAMMAR_DEFAULT);
	pair(keys, values, "runs", "%d", cfg->runs);
	pair(keys, values, "max_turns", "%d", cfg->max_turns);
	pair(keys, values, "fixtures", "%s", cfg->fixtures_dir);
	pair(keys, values, "arch", "%s", cfg->arch);
	pair(keys, values, "concurrency.total", "%d", cfg->concurrency);
	for (size_t i = 0; i < cfg->nprovider_limits; i++) {
		sc_buf_clear(&k);
		sc_buf_printf(&k, "concurrency.per_provider.%s", cfg->provider_limits[i].provider);
		pair(keys, values, k.ptr, "%d", cfg->provider_limits[i].limit);
	}
	pair(keys, values, "timeouts.request", "%g", cfg->request_timeout_s);
	pair(keys, values, "timeouts.kernel", "%g", cfg->kernel_timeout_s);
	pair(keys, values, "cache.dir", "%s", cfg->cache_dir);
	pair(keys, values, "cache.mode", "%s", sc_cache_mode_name(cfg->cache_mode));
	pair(keys, values, "store", "%s", cfg->store_path);
	pair(keys, values, "judge.model", "%s", cfg->judge_model ? cfg->judge_model : "(none)");
	pair(keys, values, "judge.rubric", "%s", cfg->judge_rubric ? cfg->judge_rubric : "(built in)");
	pair(keys, values, "grader.model", "%s", cfg->grader_model ? cfg->grader_model : "(none)");
	pair(keys, values, "agent.mode", "%s", sc_agent_mode_name(cfg->agent.mode));
	pair(keys, values, "agent.jobs", "%d", cfg->agent.jobs);
	pair(keys, values, "agent.max_calls", "%d", cfg->agent.max_calls_per_turn);
	pair(keys, values, "agent.tool_output", "%zu", cfg->agent.tool_output_max);
	pair(keys, values, "agent.trigger_turns", "%d", cfg->agent.trigger_turns);
	pair(keys, values, "agent.limits.command_timeout", "%g",
	     (double)cfg->agent.jail.command_timeout_ms / 1000.0);
	pair(keys, values, "agent.limits.cpu", "%d", cfg->agent.jail.cpu_s);
	pair(keys, values, "agent.limits.memory", "%lld", (long long)(cfg->agent.jail.memory_bytes >> 20));
	pair(keys, values, "agent.limits.processes", "%d", cfg->agent.jail.processes);
	pair(keys, values, "agent.limits.file_size", "%lld", (long long)(cfg->agent.jail.file_bytes >> 20));
	pair(keys, values, "agent.limits.workspace", "%lld",
	     (long long)(cfg->agent.jail.workspace_bytes >> 20));
	pair(keys, values, "agent.limits.tmp", "%lld", (long long)(cfg->agent.jail.tmp_bytes >> 20));
	pair(keys, values, "gate.pass_rate_drop_points", "%g", g->pass_rate_drop_points);
	pair(keys, values, "gate.alpha", "%g", g->alpha);
	pair(keys, values, "gate.beta", "%g", g->beta);
	pair(keys, values, "gate.regression_points", "%g", g->regression_points);
	pair(keys, values, "gate.accept_unverified", "%s", g->accept_unverified ? "true" : "false");
	pair(keys, values, "gate.tokens_rise_pct", "%g", g->tokens_rise_pct);
	pair(keys, values, "gate.speedup_drop_ratio", "%g", g->speedup_drop_ratio);
	pair(keys, values, "gate.judge_drop", "%g", g->judge_drop);
	pair(keys, values, "gate.error_share", "%g", g->error_share);
	pair(keys, values, "gate.require_lift", "%s", g->require_lift ? "true" : "false");
	pair(keys, values, "gate.allow_deletions", "%s", g->allow_deletions ? "true" : "false");
	pair(keys, values, "gate.deletion_label", "%s", g->deletion_label[0] ? g->deletion_label : "(none)");
	pair(keys, values, "gate.max_baseline_pass_rate", "%g", g->max_baseline_pass_rate);
	pair(keys, values, "gate.compile_only", "%s", g->compile_only ? "true" : "false");
	pair(keys, values, "gate.allow_untested", "%s", g->allow_untested ? "true" : "false");
	pair(keys, values, "gate.first_runs", "%d", g->first_runs);
	pair(keys, values, "gate.max_runs", "%d", g->max_runs);
	pair(keys, values, "budget.max_units", "%d", cfg->max_units);
	pair(keys, values, "budget.max_requests", "%d", cfg->max_requests);
	pair(keys, values, "budget.max_input_tokens", "%lld", (long long)cfg->budget.max_input_tokens);
	pair(keys, values, "budget.max_output_tokens", "%lld", (long long)cfg->budget.max_output_tokens);
	pair(keys, values, "budget.max_usd", "%g", cfg->budget.max_usd);
	pair(keys, values, "budget.max_prompt_tokens", "%lld", (long long)cfg->budget.max_prompt_tokens);
	for (size_t i = 0; i < cfg->budget.nprices; i++) {
		const struct sc_price *pr = &cfg->budget.prices[i];
		sc_buf_clear(&k);
		sc_buf_printf(&k, "prices.%s", pr->model);
		pair(keys, values, k.ptr, "input %g, output %g, cache_read %g, cache_write %g, date %s",
		     pr->input, pr->output, pr->cache_read, pr->cache_write, pr->date ? pr->date : "");
	}
	for (size_t i = 0; i < cfg->nskills; i++) {
		const struct sc_config_skill *e = &cfg->skills[i];
		sc_buf_clear(&k);
		sc_buf_printf(&k, "skills[%s].tests", e->skill);
		sc_buf_clear(&v);
		list_value(&v, &e->tests);
		pair(keys, values, k.ptr, "%s", v.ptr);
		sc_buf_clear(&k);
		sc_buf_printf(&k, "skills[%s].fixtures", e->skill);
		sc_buf_clear(&v);
		list_value(&v, &e->fixtures);
		pair(keys, values, k.ptr, "%s", v.ptr);
	}
	for (size_t i = 0; i < cfg->nendpoints; i++) {
		const struct sc_config_endpoint *e = &cfg->endpoints[i];
		sc_buf_clear(&k);
		sc_buf_printf(&k, "providers.%s", e->name);
		pair(keys, values, k.ptr, "wire %s, base_url %s, api_key_env %s", e->wire ? e->wire : "",
		     e->base_url ? e->base_url : "", e->api_key_env ? e->api_key_env : "(none)");
	}
	for (size_t i = 0; i < cfg->nprovider_files; i++) {
		const struct sc_config_provider_file *f = &cfg->provider_files[i];
		sc_buf_clear(&k);
		sc_buf_printf(&k, "fastagent.%s", f->provider);
		/* the key itself never: it may be a resolved ${VAR} */
		pair(keys, values, k.ptr, "base_url %s, api_key %s", f->base_url ? f->base_url : "(unset)",
		     f->api_key ? "(set)" : "(unset)");
	}
	pair(keys, values, "reports.junit", "%s", cfg->report_junit);
	pair(keys, values, "reports.markdown", "%s", cfg->report_markdown);
	pair(keys, values, "reports.html", "%s", cfg->report_html);
	pair(keys, values, "reports.json", "%s", cfg->report_json);
	sc_buf_release(&v);
	sc_buf_release(&k);
}

const char *sc_cache_mode_name(enum sc_cache_mode mode)
{
	switch (mode) {
	case SC_CACHE_USE: return "use";
	case SC_CACHE_REFRESH: return "refresh";
	case SC_CACHE_OFF: return "off";
	case SC_CACHE_OFFLINE: return "offline";
	}
	return "?";
}

void sc_config_release(struct sc_config *cfg)
{
	sc_budget_config_release(&cfg->budget);
	free(cfg->path);
	free(cfg->upskill_path);
	free(cfg->fastagent_path);
	free(cfg->fastagent_config);
	for (size_t i = 0; i < cfg->nendpoints; i++) {
		free(cfg->endpoints[i].name);
		free(cfg->endpoints[i].wire);
		free(cfg->endpoints[i].base_url);
		free(cfg->endpoints[i].api_key_env);
	}
	free(cfg->endpoints);
	for (size_t i = 0; i < cfg->nprovider_files; i++) {
		free(cfg->provider_files[i].provider);
		free(cfg->provider_files[i].base_url);
		sc_strlist_release(&cfg->provider_files[i].settings);
		if (cfg->provider_files[i].api_key) {
			memset(cfg->provider_files[i].api_key, 0, strlen(cfg->provider_files[i].api_key));
			free(cfg->provider_files[i].api_key);
		}
	}
	free(cfg->provider_files);
	sc_strlist_release(&cfg->models);
	free(cfg->fixtures_dir);
	free(cfg->arch);
	free(cfg->fast_agent_version);
	free(cfg->skills_dir);
	for (size_t i = 0; i < cfg->nprovider_limits; i++)
		free(cfg->provider_limits[i].provider);
	free(cfg->provider_limits);
	free(cfg->cache_dir);
	free(cfg->store_path);
	free(cfg->judge_model);
	free(cfg->judge_rubric);
	free(cfg->grader_model);
	for (size_t i = 0; i < cfg->nskills; i++) {
		free(cfg->skills[i].skill);
		sc_strlist_release(&cfg->skills[i].tests);
		sc_strlist_release(&cfg->skills[i].fixtures);
	}
	free(cfg->skills);
	free(cfg->report_junit);
	free(cfg->report_markdown);
	free(cfg->report_html);
	free(cfg->report_json);
	free(cfg->generate_model);
	free(cfg->test_gen_model);
	free(cfg->runs_dir);
	memset(cfg, 0, sizeof(*cfg));
}

int sc_config_errors_fail(const struct sc_diags *diags)
{
	struct sc_buf first = SC_BUF_INIT;
	size_t errors = 0;
	int err;

	for (size_t i = 0; i < diags->n; i++) {
		if (diags->items[i].sev != SC_SEV_ERROR)
			continue;
		if (!errors++)
			sc_diag_format(&first, &diags->items[i]);
	}
	if (errors > 1)
		sc_buf_printf(&first, " (and %zu more)", errors - 1);
	err = sc_error_set(SC_EINVAL, "the configuration has errors: %s",
			   first.len ? first.ptr : "(none listed)");
	sc_buf_release(&first);
	return sc_error_cause_set(err, SC_CAUSE_CONFIG);
}
