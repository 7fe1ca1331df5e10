/*
 * The policy of a loaded configuration as key and value pairs, in the
 * order of docs/config.md: what a run lists as the policy it applied and
 * what trust.c compares between the base and the head.
 */
#include "common.h"
#include "pipeline/config.h"

#include <stdarg.h>

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
