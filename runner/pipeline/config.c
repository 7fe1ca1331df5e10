/*
 * skillci.yml and upskill.config.yaml (docs/config.md): the defaults, the
 * loading of the three files in their order of precedence, the providers
 * they name applied to the model layer, lookups and release. Both files are
 * parsed with the YAML wrapper into a node tree with lines; a table of keys
 * per map dispatches each value to a small handler that checks its type and
 * range (config_keys.c for skillci.yml, config_upskill.c for upskill's and
 * fast-agent's files, config_values.c for the typed values and the walk).
 */
#include "common.h"
#include "output.h"
#include "pipeline/config_parse.h"
#include "providers/provider.h"

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
	sc_config_set_report_paths(out, SC_DEFAULT_REPORT_DIR);
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
static int load_one(struct sc_config_ctx *c, const char *path, const struct sc_config_key *keys,
		    size_t nkeys, void (*walk)(struct sc_config_ctx *, const struct sc_yaml_node *))
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
		sc_config_walk_map(c, root, "", keys, nkeys);
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
	struct sc_config_ctx c;
	int err = 0;

	sc_config_defaults(out);
	memset(&c, 0, sizeof(c));
	c.cfg = out;
	c.diags = diags;
	c.data_only = data_only;

	in_root(&path, repo_root, SC_UPSKILL_CONFIG_FILE);
	if (load_one(&c, path.ptr, sc_config_upskill_keys, sc_config_nupskill_keys,
	    NULL) != SC_ENOTFOUND) {
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
		err = load_one(&c, path.ptr, NULL, 0, sc_config_fastagent_walk);
	}
	if (err == SC_ENOTFOUND) {
		in_root(&path, repo_root, SC_FASTAGENT_CONFIG_FILE);
		err = load_one(&c, path.ptr, NULL, 0, sc_config_fastagent_walk);
	}
	if (err != SC_ENOTFOUND)
		out->fastagent_path = sc_xstrdup(path.ptr);

	if (explicit_path) {
		sc_buf_sets(&path, explicit_path);
	} else {
		in_root(&path, repo_root, SC_CONFIG_FILE);
	}
	err = load_one(&c, path.ptr, sc_config_skillci_keys, sc_config_nskillci_keys, NULL);
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
