/*
 * upskill's files read as skillci reads them (docs/config.md): the keys of
 * upskill.config.yaml that mean the same thing as skillci.yml's, the hint
 * for an upskill key written in skillci.yml, and the provider blocks of
 * fast-agent's fastagent.config.yaml (base_url, api_key and the settings
 * the provider layer reads).
 */
#include "common.h"
#include "pipeline/config_parse.h"
#include "providers/provider.h"

/* For a key of upskill.config.yaml written in skillci.yml: the skillci key. */
const char *sc_config_upskill_hint(const char *prefix, const struct sc_config_key *keys,
				   const char *name)
{
	static const char *const to_models[] = { "eval_model", "model", "skill_generation_model" };
	if (prefix[0] || keys != sc_config_skillci_keys)
		return NULL;
	for (size_t i = 0; i < SC_ARRAY_SIZE(to_models); i++)
		if (!strcmp(name, to_models[i]))
			return "an upskill.config.yaml key; skillci.yml lists student models in 'models'";
	return NULL;
}

/* ---- upskill.config.yaml handlers ------------------------------------- */

static void u_model(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	if (sc_config_get_str(c, v, key, &c->cfg->generate_model)) {
		free(c->up_model);
		c->up_model = sc_xstrdup(v->value);
	}
}

static void u_eval_model(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	if (sc_yaml_is_null(v))
		return;  /* upskill: "defaults to skill_generation_model" */
	sc_config_get_str(c, v, key, &c->up_eval_model);
}

static void u_test_gen_model(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	if (!sc_yaml_is_null(v))
		sc_config_get_str(c, v, key, &c->cfg->test_gen_model);
}

static void u_runs_dir(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_str(c, v, key, &c->cfg->runs_dir);
}

static void u_refine(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	sc_config_get_int(c, v, key, 0, 100, &c->cfg->max_refine_attempts);
}

static void u_auto_eval(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	bool b;
	sc_config_get_bool(c, v, key, &b);
}

static void u_fastagent(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key)
{
	if (!sc_yaml_is_null(v))
		sc_config_get_rel_path(c, v, key, &c->cfg->fastagent_config);
}

const struct sc_config_key sc_config_upskill_keys[] = {
	{ "model", u_model },
	{ "skill_generation_model", u_model },
	{ "eval_model", u_eval_model },
	{ "test_gen_model", u_test_gen_model },
	{ "skills_dir", sc_config_key_skills_dir },
	{ "runs_dir", u_runs_dir },
	{ "max_refine_attempts", u_refine },
	{ "auto_eval", u_auto_eval },
	{ "fastagent_config", u_fastagent },
	/* what upskill's eval and benchmark take as --runs and as their
	 * concurrency: runs per test, requests in flight */
	{ "num_runs", sc_config_key_runs },
	{ "max_parallel", sc_config_key_total },
};

const size_t sc_config_nupskill_keys = SC_ARRAY_SIZE(sc_config_upskill_keys);

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
void sc_config_fastagent_walk(struct sc_config_ctx *c, const struct sc_yaml_node *root)
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
			if (sc_config_get_str(c, x, k.ptr, &f.base_url)) {
				char *val = fastagent_value(f.base_url, c->data_only);
				free(f.base_url);
				f.base_url = val;
				if (val && !c->data_only && !sc_provider_url_ok(val)) {
					sc_config_report(c, SC_SEV_ERROR, x, "config-value", "'%s' must be an http:// "
							 "or https:// URL, found '%s'", k.ptr, val);
					free(f.base_url);
					f.base_url = NULL;
				}
			}
		}
		if ((x = sc_yaml_map_get(v, "api_key")) && !sc_yaml_is_null(x)) {
			sc_diag_path_join(&k, name->value, "api_key");
			if (sc_config_get_str(c, x, k.ptr, &f.api_key)) {
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
				if (!sc_config_get_str(c, x, k.ptr, &val))
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
				if (sc_config_get_str(c, sc_yaml_map_value(hdrs, h), k.ptr, &val) &&
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
