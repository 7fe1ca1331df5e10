/*
 * The provider table, the alias table, named endpoints and model names
 * (provider.h; docs/providers.md says where each provider's fields come
 * from).
 *
 * Parsing a model name follows fast-agent's ModelFactory, which upskill
 * uses: settings after '?' (reasoning, temperature, top_p, max_tokens);
 * then an alias, an alias with ":ROUTE" (an alias of a Hugging Face model
 * with another inference provider) or with ".EFFORT"; else
 * PROVIDER.MODEL[.EFFORT] (or PROVIDER/MODEL) with PROVIDER a built-in
 * provider or a named endpoint. Every accepted name has one canonical
 * spelling (struct sc_model.name), which results, the store and the cache
 * use, so "kimi" and its target are the same model.
 */
#include "common.h"
#include "providers/provider.h"
#include "net/http.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>

/*
 * The built-in providers. Sources for every URL, header and field are in
 * docs/providers.md; the key variables are fast-agent's
 * (ProviderKeyManager: PROVIDER_API_KEY, HF_TOKEN) plus each vendor's own
 * spelling where it differs.
 */
static const struct sc_provider_info builtins[SC_PROVIDER_BUILTINS] = {
	[SC_PROVIDER_ANTHROPIC] = {
		.name = "anthropic", .title = "Anthropic", .wire = SC_WIRE_ANTHROPIC,
		.base_url = "https://api.anthropic.com",
		.base_env = { "ANTHROPIC_BASE_URL" },
		.key_env = { "ANTHROPIC_API_KEY" }, .key_header = "x-api-key",
		.headers = { "anthropic-version: 2023-06-01" },
		.max_tokens_field = "max_tokens", .effort = SC_EFFORT_THINKING,
	},
	[SC_PROVIDER_OPENAI] = {
		.name = "openai", .title = "OpenAI", .wire = SC_WIRE_OPENAI,
		.base_url = "https://api.openai.com/v1",
		.base_env = { "OPENAI_BASE_URL", "OPENAI_API_BASE" },
		.key_env = { "OPENAI_API_KEY" }, .key_header = "Authorization",
		.max_tokens_field = "max_completion_tokens", .effort = SC_EFFORT_REASONING_EFFORT,
	},
	[SC_PROVIDER_AZURE] = {
		.name = "azure", .title = "Azure OpenAI", .wire = SC_WIRE_OPENAI,
		.base_url = NULL,
		.base_env = { "AZURE_BASE_URL", "AZURE_OPENAI_ENDPOINT" },
		.key_env = { "AZURE_OPENAI_API_KEY", "AZURE_API_KEY" }, .key_header = "api-key",
		.max_tokens_field = "max_completion_tokens", .effort = SC_EFFORT_REASONING_EFFORT,
		.local_names = true, .azure = true,
	},
	[SC_PROVIDER_GOOGLE] = {
		.name = "google", .title = "Google Gemini (OpenAI-compatible endpoint)",
		.wire = SC_WIRE_OPENAI,
		.base_url = "https://generativelanguage.googleapis.com/v1beta/openai",
		.base_env = { "GOOGLE_BASE_URL" },
		.key_env = { "GOOGLE_API_KEY", "GEMINI_API_KEY" }, .key_header = "Authorization",
		.max_tokens_field = "max_tokens", .effort = SC_EFFORT_REASONING_EFFORT,
	},
	[SC_PROVIDER_HF] = {
		.name = "hf", .title = "Hugging Face Inference Providers router", .wire = SC_WIRE_OPENAI,
		.base_url = "https://router.huggingface.co/v1",
		.base_env = { "HF_BASE_URL" },
		.key_env = { "HF_TOKEN" }, .key_header = "Authorization",
		.max_tokens_field = "max_tokens", .effort = SC_EFFORT_REASONING_EFFORT,
	},
	[SC_PROVIDER_OPENROUTER] = {
		.name = "openrouter", .title = "OpenRouter", .wire = SC_WIRE_OPENAI,
		.base_url = "https://openrouter.ai/api/v1",
		.base_env = { "OPENROUTER_BASE_URL" },
		.key_env = { "OPENROUTER_API_KEY" }, .key_header = "Authorization",
		.headers = { "X-Title: skillci" },
		.max_tokens_field = "max_tokens", .effort = SC_EFFORT_REASONING_OBJECT,
	},
	[SC_PROVIDER_DEEPSEEK] = {
		.name = "deepseek", .title = "DeepSeek", .wire = SC_WIRE_OPENAI,
		.base_url = "https://api.deepseek.com",
		.base_env = { "DEEPSEEK_BASE_URL" },
		.key_env = { "DEEPSEEK_API_KEY" }, .key_header = "Authorization",
		.max_tokens_field = "max_tokens", .effort = SC_EFFORT_UNSUPPORTED,
	},
	[SC_PROVIDER_XAI] = {
		.name = "xai", .title = "xAI", .wire = SC_WIRE_OPENAI,
		.base_url = "https://api.x.ai/v1",
		.base_env = { "XAI_BASE_URL" },
		.key_env = { "XAI_API_KEY" }, .key_header = "Authorization",
		.max_tokens_field = "max_tokens", .effort = SC_EFFORT_REASONING_EFFORT,
	},
	[SC_PROVIDER_GROQ] = {
		.name = "groq", .title = "Groq", .wire = SC_WIRE_OPENAI,
		.base_url = "https://api.groq.com/openai/v1",
		.base_env = { "GROQ_BASE_URL" },
		.key_env = { "GROQ_API_KEY" }, .key_header = "Authorization",
		.max_tokens_field = "max_completion_tokens", .effort = SC_EFFORT_REASONING_EFFORT,
	},
	[SC_PROVIDER_GENERIC] = {
		.name = "generic", .title = "any OpenAI-compatible server (Ollama, llama.cpp, vLLM)",
		.wire = SC_WIRE_OPENAI,
		.base_url = "http://localhost:11434/v1",
		.base_env = { "GENERIC_BASE_URL" },
		.key_env = { "GENERIC_API_KEY" }, .key_optional = true, .key_header = "Authorization",
		.max_tokens_field = "max_tokens", .effort = SC_EFFORT_REASONING_EFFORT,
		.local_names = true,
	},
	[SC_PROVIDER_ORACLE] = {
		.name = "oracle", .title = "the harness self-test (answers with the reference)",
		.wire = SC_WIRE_NONE, .effort = SC_EFFORT_UNSUPPORTED,
	},
};

/*
 * Aliases as fast-agent 0.4.53 defines them (ModelFactory.MODEL_ALIASES)
 * and the bare model names of its DEFAULT_PROVIDERS, each a model string
 * of the grammar above. fast-agent sends OpenAI's o-series and gpt-5 to
 * its Responses API provider ("responses."); here they go to chat
 * completions, which serves them too. Its internal models (passthrough,
 * playback, ...), the codexresponses provider and Aliyun's qwen-* names
 * are not here (docs/providers.md).
 */
static const struct { const char *name, *target; } aliases[] = {
	{ "haiku", "anthropic.claude-haiku-4-5" },
	{ "haiku3", "anthropic.claude-3-haiku-20240307" },
	{ "haiku35", "anthropic.claude-3-5-haiku-latest" },
	{ "haiku45", "anthropic.claude-haiku-4-5" },
	{ "sonnet", "anthropic.claude-sonnet-4-5" },
	{ "sonnet4", "anthropic.claude-sonnet-4-0" },
	{ "sonnet45", "anthropic.claude-sonnet-4-5" },
	{ "sonnet35", "anthropic.claude-3-5-sonnet-latest" },
	{ "sonnet37", "anthropic.claude-3-7-sonnet-latest" },
	{ "claude", "anthropic.claude-sonnet-4-5" },
	{ "opus", "anthropic.claude-opus-4-6" },
	{ "opus4", "anthropic.claude-opus-4-1" },
	{ "opus45", "anthropic.claude-opus-4-5" },
	{ "opus46", "anthropic.claude-opus-4-6" },
	{ "opus3", "anthropic.claude-3-opus-latest" },
	{ "gpt51", "openai.gpt-5.1" },
	{ "gpt52", "openai.gpt-5.2" },
	{ "codex", "openai.gpt-5.2-codex" },
	{ "deepseek", "deepseek.deepseek-chat" },
	{ "deepseekv3", "deepseek.deepseek-chat" },
	{ "deepseek3", "deepseek.deepseek-chat" },
	{ "gemini2", "google.gemini-2.0-flash" },
	{ "gemini25", "google.gemini-2.5-flash-preview-09-2025" },
	{ "gemini25pro", "google.gemini-2.5-pro" },
	{ "gemini3", "google.gemini-3-pro-preview" },
	{ "gemini3flash", "google.gemini-3-flash-preview" },
	{ "grok-4-fast", "xai.grok-4-fast-non-reasoning" },
	{ "grok-4-fast-reasoning", "xai.grok-4-fast-reasoning" },
	{ "kimi", "hf.moonshotai/Kimi-K2-Instruct-0905:groq" },
	{ "kimigroq", "groq.moonshotai/kimi-k2-instruct-0905" },
	{ "kimithink", "hf.moonshotai/Kimi-K2-Thinking:together" },
	{ "kimi25", "hf.moonshotai/Kimi-K2.5:fireworks-ai" },
	{ "minimax", "hf.MiniMaxAI/MiniMax-M2.1:novita" },
	{ "gpt-oss", "hf.openai/gpt-oss-120b:cerebras" },
	{ "gpt-oss-20b", "hf.openai/gpt-oss-20b" },
	{ "glm", "hf.zai-org/GLM-5:novita" },
	{ "glm5", "hf.zai-org/GLM-5:novita" },
	{ "glm47", "hf.zai-org/GLM-4.7:cerebras" },
	{ "qwen3", "hf.Qwen/Qwen3-Next-80B-A3B-Instruct:together" },
	{ "deepseek31", "hf.deepseek-ai/DeepSeek-V3.1" },
	{ "deepseek32", "hf.deepseek-ai/DeepSeek-V3.2:fireworks-ai" },
	/* bare model names (DEFAULT_PROVIDERS) */
	{ "gpt-4o", "openai.gpt-4o" },
	{ "gpt-4o-mini", "openai.gpt-4o-mini" },
	{ "gpt-4.1", "openai.gpt-4.1" },
	{ "gpt-4.1-mini", "openai.gpt-4.1-mini" },
	{ "gpt-4.1-nano", "openai.gpt-4.1-nano" },
	{ "gpt-5", "openai.gpt-5" },
	{ "gpt-5.1", "openai.gpt-5.1" },
	{ "gpt-5-mini", "openai.gpt-5-mini" },
	{ "gpt-5-nano", "openai.gpt-5-nano" },
	{ "gpt-5.2", "openai.gpt-5.2" },
	{ "gpt-5.1-codex", "openai.gpt-5.1-codex" },
	{ "gpt-5.2-codex", "openai.gpt-5.2-codex" },
	{ "gpt-5.3-codex", "openai.gpt-5.3-codex" },
	{ "o1-mini", "openai.o1-mini" },
	{ "o1", "openai.o1" },
	{ "o1-preview", "openai.o1-preview" },
	{ "o3", "openai.o3" },
	{ "o3-mini", "openai.o3-mini" },
	{ "o4-mini", "openai.o4-mini" },
	{ "claude-3-haiku-20240307", "anthropic.claude-3-haiku-20240307" },
	{ "claude-3-5-haiku-20241022", "anthropic.claude-3-5-haiku-20241022" },
	{ "claude-3-5-haiku-latest", "anthropic.claude-3-5-haiku-latest" },
	{ "claude-3-5-sonnet-20240620", "anthropic.claude-3-5-sonnet-20240620" },
	{ "claude-3-5-sonnet-20241022", "anthropic.claude-3-5-sonnet-20241022" },
	{ "claude-3-5-sonnet-latest", "anthropic.claude-3-5-sonnet-latest" },
	{ "claude-3-7-sonnet-20250219", "anthropic.claude-3-7-sonnet-20250219" },
	{ "claude-3-7-sonnet-latest", "anthropic.claude-3-7-sonnet-latest" },
	{ "claude-3-opus-20240229", "anthropic.claude-3-opus-20240229" },
	{ "claude-3-opus-latest", "anthropic.claude-3-opus-latest" },
	{ "claude-opus-4-0", "anthropic.claude-opus-4-0" },
	{ "claude-opus-4-1", "anthropic.claude-opus-4-1" },
	{ "claude-opus-4-5", "anthropic.claude-opus-4-5" },
	{ "claude-opus-4-6", "anthropic.claude-opus-4-6" },
	{ "claude-opus-4-20250514", "anthropic.claude-opus-4-20250514" },
	{ "claude-sonnet-4-20250514", "anthropic.claude-sonnet-4-20250514" },
	{ "claude-sonnet-4-0", "anthropic.claude-sonnet-4-0" },
	{ "claude-sonnet-4-5-20250929", "anthropic.claude-sonnet-4-5-20250929" },
	{ "claude-sonnet-4-5", "anthropic.claude-sonnet-4-5" },
	{ "claude-haiku-4-5", "anthropic.claude-haiku-4-5" },
	{ "deepseek-chat", "deepseek.deepseek-chat" },
	{ "gemini-2.0-flash", "google.gemini-2.0-flash" },
	{ "gemini-2.5-flash-preview-05-20", "google.gemini-2.5-flash-preview-05-20" },
	{ "gemini-2.5-flash-preview-09-2025", "google.gemini-2.5-flash-preview-09-2025" },
	{ "gemini-2.5-pro-preview-05-06", "google.gemini-2.5-pro-preview-05-06" },
	{ "gemini-2.5-pro", "google.gemini-2.5-pro" },
	{ "gemini-3-pro-preview", "google.gemini-3-pro-preview" },
	{ "gemini-3-flash-preview", "google.gemini-3-flash-preview" },
	{ "grok-4", "xai.grok-4" },
	{ "grok-4-0709", "xai.grok-4-0709" },
	{ "grok-3", "xai.grok-3" },
	{ "grok-3-mini", "xai.grok-3-mini" },
	{ "grok-3-fast", "xai.grok-3-fast" },
	{ "grok-3-mini-fast", "xai.grok-3-mini-fast" },
};

/* fast-agent's provider names that map to one of the table (docs/providers.md). */
static const struct { const char *name; int kind; } provider_synonyms[] = {
	{ "googleoai", SC_PROVIDER_GOOGLE },   /* Gemini through the OpenAI-compatible endpoint */
	{ "responses", SC_PROVIDER_OPENAI },   /* OpenAI: sent to chat completions here */
};

/*
 * Effort words (fast-agent's EFFORT_LEVELS) and the Anthropic thinking
 * budget each one maps to; "none" turns reasoning off, "auto" leaves the
 * provider's default (nothing is sent).
 */
static const struct { const char *word; int budget; } efforts[] = {
	{ "minimal", 1024 }, { "low", 2048 }, { "medium", 8192 },
	{ "high", 16384 }, { "xhigh", 32768 }, { "max", 64000 },
	{ "none", 0 }, { "auto", 0 },
};

#define MIN_THINKING_BUDGET 1024   /* the Messages API's lower bound for budget_tokens */

/* ---- the registry: built-ins, file defaults, named endpoints ---------------- */

static bool deployment_ok(const char *s);

struct endpoint_slot {
	struct sc_provider_info info;
	char *name, *base_url, *key_env;
};

static struct endpoint_slot endpoints[SC_MAX_ENDPOINTS];
static int nendpoints;
static char *file_base[SC_PROVIDER_BUILTINS], *file_key[SC_PROVIDER_BUILTINS];

/* The other settings of fastagent.config.yaml's provider blocks. */
static const struct { int kind; const char *key; } file_setting_keys[] = {
	{ SC_PROVIDER_HF, "default_provider" },
	{ SC_PROVIDER_AZURE, "api_version" },
	{ SC_PROVIDER_AZURE, "resource_name" },
	{ SC_PROVIDER_AZURE, "azure_deployment" },
};
static char *file_settings[SC_ARRAY_SIZE(file_setting_keys)];
static char *file_headers[SC_PROVIDER_BUILTINS][SC_PROVIDER_FILE_HEADERS];

const struct sc_provider_info *sc_provider_get(int kind)
{
	if (kind >= 0 && kind < SC_PROVIDER_BUILTINS)
		return &builtins[kind];
	if (kind >= SC_PROVIDER_BUILTINS && kind < SC_PROVIDER_BUILTINS + nendpoints)
		return &endpoints[kind - SC_PROVIDER_BUILTINS].info;
	return NULL;
}

int sc_provider_count(void)
{
	return SC_PROVIDER_BUILTINS + nendpoints;
}

int sc_provider_find(const char *name)
{
	for (int i = 0; i < sc_provider_count(); i++)
		if (!strcmp(sc_provider_get(i)->name, name))
			return i;
	return -1;
}

const char *sc_provider_name(int kind)
{
	const struct sc_provider_info *p = sc_provider_get(kind);
	return p ? p->name : "unknown";
}

size_t sc_alias_count(void)
{
	return SC_ARRAY_SIZE(aliases);
}

void sc_alias_get(size_t i, const char **name, const char **target)
{
	*name = i < SC_ARRAY_SIZE(aliases) ? aliases[i].name : NULL;
	*target = i < SC_ARRAY_SIZE(aliases) ? aliases[i].target : NULL;
}

static const char *alias_target(const char *name)
{
	for (size_t i = 0; i < SC_ARRAY_SIZE(aliases); i++)
		if (!strcmp(aliases[i].name, name))
			return aliases[i].target;
	return NULL;
}

const char *sc_provider_file_base(int kind)
{
	return kind >= 0 && kind < SC_PROVIDER_BUILTINS ? file_base[kind] : NULL;
}

const char *sc_provider_file_key(int kind)
{
	return kind >= 0 && kind < SC_PROVIDER_BUILTINS ? file_key[kind] : NULL;
}

static bool endpoint_name_ok(const char *s)
{
	if (!*s || strlen(s) > 64 || !islower((unsigned char)*s))
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '-' && *s != '_')
			return false;
	return true;
}

bool sc_provider_url_ok(const char *url)
{
	const char *host = sc_starts_with(url, "https://") ? url + 8 :
			   sc_starts_with(url, "http://") ? url + 7 : NULL;
	return host && *host && *host != '/' && !strpbrk(url, " \t\r\n\"\\");
}

int sc_providers_add_endpoint(const struct sc_endpoint *e)
{
	struct endpoint_slot *s;

	if (!e->name || !endpoint_name_ok(e->name))
		return sc_error_set(SC_EINVAL, "endpoint name '%s' must be lowercase letters, digits, "
				    "'-' and '_', starting with a letter", e->name ? e->name : "");
	if (sc_provider_find(e->name) >= 0)
		return sc_error_set(SC_EINVAL, "endpoint name '%s' is taken by %s; choose another",
				    e->name, sc_provider_find(e->name) < SC_PROVIDER_BUILTINS ?
				    "a built-in provider" : "another endpoint");
	if (alias_target(e->name))
		return sc_error_set(SC_EINVAL, "endpoint name '%s' is a model alias; choose another",
				    e->name);
	if (e->wire != SC_WIRE_ANTHROPIC && e->wire != SC_WIRE_OPENAI)
		return sc_error_set(SC_EINVAL, "endpoint '%s' needs a wire format: openai or anthropic",
				    e->name);
	if (!e->base_url || !sc_provider_url_ok(e->base_url))
		return sc_error_set(SC_EINVAL, "endpoint '%s': base URL '%s' is not an http:// or "
				    "https:// URL", e->name, e->base_url ? e->base_url : "");
	if (nendpoints == SC_MAX_ENDPOINTS)
		return sc_error_set(SC_ELIMIT, "more than %d named endpoints", SC_MAX_ENDPOINTS);
	s = &endpoints[nendpoints++];
	memset(s, 0, sizeof(*s));
	s->name = sc_xstrdup(e->name);
	s->base_url = sc_xstrdup(e->base_url);
	s->key_env = e->key_env && *e->key_env ? sc_xstrdup(e->key_env) : NULL;
	s->info.name = s->name;
	s->info.title = "named endpoint";
	s->info.wire = e->wire;
	s->info.base_url = s->base_url;
	s->info.key_env[0] = s->key_env;
	s->info.key_optional = s->key_env == NULL;
	s->info.key_header = e->wire == SC_WIRE_ANTHROPIC ? "x-api-key" : "Authorization";
	if (e->wire == SC_WIRE_ANTHROPIC)
		s->info.headers[0] = "anthropic-version: 2023-06-01";
	/* compatible servers know max_tokens; reasoning_effort is passed through */
	s->info.max_tokens_field = "max_tokens";
	s->info.effort = e->wire == SC_WIRE_ANTHROPIC ? SC_EFFORT_THINKING
						       : SC_EFFORT_REASONING_EFFORT;
	s->info.local_names = true;
	s->info.endpoint = true;
	return 0;
}

int sc_providers_set_file_defaults(int kind, const char *base_url, const char *api_key)
{
	if (kind < 0 || kind >= SC_PROVIDER_BUILTINS || kind == SC_PROVIDER_ORACLE)
		return sc_error_set(SC_EINVAL, "no built-in provider %d", kind);
	if (base_url && !sc_provider_url_ok(base_url))
		return sc_error_set(SC_EINVAL, "%s base URL '%s' is not an http:// or https:// URL",
				    builtins[kind].name, base_url);
	if (base_url) {
		free(file_base[kind]);
		file_base[kind] = sc_xstrdup(base_url);
	}
	if (api_key) {
		free(file_key[kind]);
		file_key[kind] = sc_xstrdup(api_key);
	}
	return 0;
}

/* An HTTP header name: a token of letters, digits and -_. */
static bool header_name_ok(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

/* A value of the settings below: printable, no quotes or line breaks. */
static bool setting_value_ok(const char *s, size_t max)
{
	if (strlen(s) > max)
		return false;
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || (unsigned char)*s == 0x7f)
			return false;
	return true;
}

int sc_providers_set_file_setting(int kind, const char *key, const char *value)
{
	const char *name = kind >= 0 && kind < SC_PROVIDER_BUILTINS ? builtins[kind].name : "?";

	if (kind < 0 || kind >= SC_PROVIDER_BUILTINS || kind == SC_PROVIDER_ORACLE)
		return sc_error_set(SC_EINVAL, "no built-in provider %d", kind);
	if (sc_starts_with(key, "default_headers.")) {
		const char *h = key + strlen("default_headers.");
		size_t n = 0;
		if (!header_name_ok(h) || sc_http_header_is_secret(h, strlen(h)) ||
		    !strcasecmp(h, "host") || !strcasecmp(h, "content-type") ||
		    !strcasecmp(h, "content-length") || !strcasecmp(h, "anthropic-version"))
			return sc_error_set(SC_EINVAL, "%s.default_headers: '%s' is not a header skillci "
					    "may send (a name of letters, digits and '-'; not a credential, "
					    "Host or Content-Type header)", name, h);
		if (!setting_value_ok(value, 512))
			return sc_error_set(SC_EINVAL, "%s.default_headers.%s: the value holds a control "
					    "character or is over 512 bytes", name, h);
		while (n < SC_PROVIDER_FILE_HEADERS && file_headers[kind][n])
			n++;
		if (n == SC_PROVIDER_FILE_HEADERS)
			return sc_error_set(SC_ELIMIT, "%s.default_headers: more than %d headers", name,
					    SC_PROVIDER_FILE_HEADERS);
		{
			struct sc_buf b = SC_BUF_INIT;
			sc_buf_printf(&b, "%s: %s", h, value);
			file_headers[kind][n] = sc_buf_detach(&b, NULL);
		}
		return 0;
	}
	for (size_t i = 0; i < SC_ARRAY_SIZE(file_setting_keys); i++) {
		if (file_setting_keys[i].kind != kind || strcmp(file_setting_keys[i].key, key))
			continue;
		/* each goes into a URL or a model id: letters, digits and -_. only */
		if (!*value || !deployment_ok(value) || strlen(value) > 128)
			return sc_error_set(SC_EINVAL, "%s.%s: '%s' may hold letters, digits, '-', '_' "
					    "and '.' only", name, key, value);
		free(file_settings[i]);
		file_settings[i] = sc_xstrdup(value);
		return 0;
	}
	return sc_error_set(SC_EINVAL, "%s: no setting '%s'", name, key);
}

const char *sc_provider_file_setting(int kind, const char *key)
{
	for (size_t i = 0; i < SC_ARRAY_SIZE(file_setting_keys); i++)
		if (file_setting_keys[i].kind == kind && !strcmp(file_setting_keys[i].key, key))
			return file_settings[i];
	return NULL;
}

const char *sc_provider_file_header(int kind, size_t i)
{
	return kind >= 0 && kind < SC_PROVIDER_BUILTINS && i < SC_PROVIDER_FILE_HEADERS ?
	       file_headers[kind][i] : NULL;
}

void sc_providers_reset(void)
{
	for (size_t i = 0; i < SC_ARRAY_SIZE(file_settings); i++) {
		free(file_settings[i]);
		file_settings[i] = NULL;
	}
	for (int k = 0; k < SC_PROVIDER_BUILTINS; k++)
		for (int i = 0; i < SC_PROVIDER_FILE_HEADERS; i++) {
			free(file_headers[k][i]);
			file_headers[k][i] = NULL;
		}
	for (int i = 0; i < nendpoints; i++) {
		free(endpoints[i].name);
		free(endpoints[i].base_url);
		free(endpoints[i].key_env);
	}
	memset(endpoints, 0, sizeof(endpoints));
	nendpoints = 0;
	for (int i = 0; i < SC_PROVIDER_BUILTINS; i++) {
		free(file_base[i]);
		free(file_key[i]);
		file_base[i] = file_key[i] = NULL;
	}
}

/* ---- model names ------------------------------------------------------------ */

int sc_provider_thinking_budget(const char *effort)
{
	if (!effort)
		return 0;
	for (size_t i = 0; i < SC_ARRAY_SIZE(efforts); i++)
		if (!strcmp(effort, efforts[i].word))
			return efforts[i].budget;
	return 0;
}

/* A word with a thinking budget (minimal..max): written as the .EFFORT suffix. */
static bool is_effort(const char *s)
{
	return sc_provider_thinking_budget(s) > 0;
}

/* Any effort word a name may end in: minimal..max, none, auto. */
static bool is_effort_word(const char *s)
{
	for (size_t i = 0; s && i < SC_ARRAY_SIZE(efforts); i++)
		if (!strcmp(s, efforts[i].word))
			return true;
	return false;
}

void sc_model_release(struct sc_model *m)
{
	free(m->id);
	free(m->effort);
	free(m->name);
	free(m->alias);
	free(m->verbosity);
	free(m->structured);
	memset(m, 0, sizeof(*m));
	m->temperature = m->top_p = -1;
}

/* The settings of a model name's query part. */
struct settings {
	char *effort;        /* word, "none", "auto" or "on" */
	int budget;
	double temperature, top_p;
	int max_tokens;
	char *verbosity, *structured;
};

static void settings_init(struct settings *s)
{
	memset(s, 0, sizeof(*s));
	s->temperature = s->top_p = -1;
}

static bool word_in(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcasecmp(w, *list))
			return true;
	return false;
}

/* A number in [lo, hi] written in full ("0.7"); false otherwise. */
static bool parse_num(const char *v, double lo, double hi, double *out)
{
	char *end;
	double x;

	if (!*v)
		return false;
	errno = 0;
	x = strtod(v, &end);
	if (*end || errno || isnan(x) || x < lo || x > hi)
		return false;
	*out = x;
	return true;
}

/*
 * Parses "reasoning=high&temperature=0.7" into s. fast-agent's values for
 * reasoning: an effort word, a toggle (on/off, true/false, ...) or a
 * token budget.
 */
static int parse_query(struct settings *s, const char *query, const char *name)
{
	static const char *const on[] = { "on", "true", "1", "yes", "enable", "enabled", NULL };
	static const char *const off[] = { "off", "false", "no", "disable", "disabled", "none", NULL };
	char *copy = sc_xstrdup(query), *p = copy;
	int err = 0;

	while (p && *p) {
		char *amp = strchr(p, '&'), *eq, *key, *val;
		double x;
		if (amp)
			*amp = '\0';
		key = p;
		p = amp ? amp + 1 : NULL;
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (!eq || eq == key) {
			err = sc_error_set(SC_EINVAL, "model name '%s': setting '%s' needs a value "
					   "(KEY=VALUE)", name, key);
			break;
		}
		*eq = '\0';
		val = eq + 1;
		if (!strcmp(key, "reasoning")) {
			char *end;
			long n;
			free(s->effort);
			s->effort = NULL;
			s->budget = 0;
			errno = 0;
			n = strtol(val, &end, 10);
			if (is_effort_word(val)) {
				s->effort = sc_xstrdup(val);
			} else if (word_in(val, on)) {
				s->effort = sc_xstrdup("on");
			} else if (word_in(val, off) || (!*end && *val && n == 0)) {
				s->effort = sc_xstrdup("none");
			} else if (*val && !*end && !errno && n > 0 && n <= 1000000) {
				s->budget = (int)n;
			} else {
				err = sc_error_set(SC_EINVAL, "model name '%s': reasoning '%s' is not an "
						   "effort (none, minimal, low, medium, high, xhigh, max, auto), on/off "
						   "or a token budget", name, val);
				break;
			}
		} else if (!strcmp(key, "temperature")) {
			if (!parse_num(val, 0, 2, &s->temperature)) {
				err = sc_error_set(SC_EINVAL, "model name '%s': temperature '%s' is not "
						   "a number from 0 to 2", name, val);
				break;
			}
		} else if (!strcmp(key, "top_p")) {
			if (!parse_num(val, 0, 1, &s->top_p)) {
				err = sc_error_set(SC_EINVAL, "model name '%s': top_p '%s' is not a "
						   "number from 0 to 1", name, val);
				break;
			}
		} else if (!strcmp(key, "max_tokens")) {
			if (!parse_num(val, 1, 10000000, &x) || x != floor(x)) {
				err = sc_error_set(SC_EINVAL, "model name '%s': max_tokens '%s' is not "
						   "a positive integer", name, val);
				break;
			}
			s->max_tokens = (int)x;
		} else if (!strcmp(key, "verbosity")) {
			static const char *const v[] = { "low", "medium", "high", NULL };
			const char *w = !strcasecmp(val, "med") ? "medium" : val;
			if (!word_in(w, v)) {
				err = sc_error_set(SC_EINVAL, "model name '%s': verbosity '%s' is not low, "
						   "medium or high", name, val);
				break;
			}
			free(s->verbosity);
			s->verbosity = sc_xstrdup(w);
			for (char *c = s->verbosity; *c; c++)
				*c = (char)tolower((unsigned char)*c);
		} else if (!strcmp(key, "structured")) {
			const char *w = !strcasecmp(val, "json") ? "json" :
					(!strcasecmp(val, "tool_use") || !strcasecmp(val, "tool-use")) ?
					"tool_use" : NULL;
			if (!w) {
				err = sc_error_set(SC_EINVAL, "model name '%s': structured '%s' is not json "
						   "or tool_use", name, val);
				break;
			}
			free(s->structured);
			s->structured = sc_xstrdup(w);
		} else {
			err = sc_error_set(SC_EINVAL, "model name '%s': unknown setting '%s' (known: "
					   "reasoning, verbosity, structured, temperature, top_p, "
					   "max_tokens)", name, key);
			break;
		}
	}
	free(copy);
	return err;
}

/* The closest provider or alias to word, when close enough to suggest. */
static const char *closest(const char *word, bool providers_only, size_t *dist)
{
	const char *best = NULL;
	size_t bd = SIZE_MAX, limit = strlen(word) / 3 > 2 ? strlen(word) / 3 : 2;

	for (int i = 0; i < sc_provider_count(); i++) {
		size_t d = sc_edit_distance(word, sc_provider_name(i));
		if (d < bd) {
			bd = d;
			best = sc_provider_name(i);
		}
	}
	for (size_t i = 0; !providers_only && i < SC_ARRAY_SIZE(aliases); i++) {
		size_t d = sc_edit_distance(word, aliases[i].name);
		if (d < bd) {
			bd = d;
			best = aliases[i].name;
		}
	}
	*dist = bd;
	return bd <= limit ? best : NULL;
}

/* "; known providers: a, b; aliases: x, y (skillci help models)". */
static void known_list(struct sc_buf *out)
{
	sc_buf_puts(out, "; providers: ");
	for (int i = 0; i < sc_provider_count(); i++)
		sc_buf_printf(out, "%s%s", i ? ", " : "", sc_provider_name(i));
	sc_buf_puts(out, "; aliases: ");
	for (size_t i = 0; i < SC_ARRAY_SIZE(aliases); i++)
		sc_buf_printf(out, "%s%s", i ? ", " : "", aliases[i].name);
	sc_buf_puts(out, " ('skillci help models' shows what each is)");
}

static int unknown(const char *name, const char *prov)
{
	struct sc_buf m = SC_BUF_INIT;
	const char *near_prov = NULL, *near_all;
	size_t dp = SIZE_MAX, da = SIZE_MAX;
	int err;

	if (prov)
		near_prov = closest(prov, true, &dp);
	near_all = closest(name, false, &da);
	if (prov)
		sc_buf_printf(&m, "unknown provider '%s' in model name '%s', which is no alias "
			      "either", prov, name);
	else
		sc_buf_printf(&m, "unknown model '%s': not an alias, and not PROVIDER.MODEL", name);
	if (near_prov && dp <= da)
		sc_buf_printf(&m, " (did you mean '%s.%s'?)", near_prov, strchr(name, '.') + 1);
	else if (near_all)
		sc_buf_printf(&m, " (did you mean '%s'?)", near_all);
	known_list(&m);
	err = sc_error_set(SC_EINVAL, "%s", m.ptr);
	sc_buf_release(&m);
	return err;
}

/* Characters a model name may not hold (it becomes JSON, a URL part, a file line). */
static bool name_chars_ok(const char *name)
{
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '"' || *p == '\\' || (unsigned char)*p >= 0x7f)
			return false;
	return true;
}

/* A %g number without a trailing ".0" question: 1, 0.95. */
static void put_num(struct sc_buf *out, double x)
{
	sc_buf_printf(out, "%.6g", x);
}

/*
 * PROVIDER.ID[.EFFORT][?reasoning=...&verbosity=...&structured=...&temperature=...
 * &top_p=...&max_tokens=...]. An id with a ":ROUTE" takes the effort before
 * it (hf.MODEL.high:groq), which is how fast-agent reads it back.
 */
static char *canonical(const struct sc_model *m)
{
	struct sc_buf b = SC_BUF_INIT;
	const char *colon = strrchr(m->id, ':');
	char sep = '?';

	if (m->effort && is_effort(m->effort) && colon)
		sc_buf_printf(&b, "%s.%.*s.%s%s", sc_provider_name(m->kind), (int)(colon - m->id), m->id,
			      m->effort, colon);
	else if (m->effort && is_effort(m->effort))
		sc_buf_printf(&b, "%s.%s.%s", sc_provider_name(m->kind), m->id, m->effort);
	else
		sc_buf_printf(&b, "%s.%s", sc_provider_name(m->kind), m->id);
	if (m->budget || (m->effort && !is_effort(m->effort))) {
		sc_buf_printf(&b, "%creasoning=", sep);
		if (m->budget)
			sc_buf_printf(&b, "%d", m->budget);
		else
			sc_buf_puts(&b, m->effort);
		sep = '&';
	}
	if (m->verbosity) {
		sc_buf_printf(&b, "%cverbosity=%s", sep, m->verbosity);
		sep = '&';
	}
	if (m->structured) {
		sc_buf_printf(&b, "%cstructured=%s", sep, m->structured);
		sep = '&';
	}
	if (m->temperature >= 0) {
		sc_buf_printf(&b, "%ctemperature=", sep);
		put_num(&b, m->temperature);
		sep = '&';
	}
	if (m->top_p >= 0) {
		sc_buf_printf(&b, "%ctop_p=", sep);
		put_num(&b, m->top_p);
		sep = '&';
	}
	if (m->max_tokens)
		sc_buf_printf(&b, "%cmax_tokens=%d", sep, m->max_tokens);
	return sc_buf_detach(&b, NULL);
}

/* An Azure deployment name goes into the URL path. */
static bool deployment_ok(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

/* Checks the settings against what the provider can send. */
static int check_provider(const struct sc_model *m, const char *name)
{
	const struct sc_provider_info *p = sc_provider_get(m->kind);
	bool reasoning = m->budget || (m->effort && strcmp(m->effort, "none") &&
					 strcmp(m->effort, "auto"));

	if (p->effort == SC_EFFORT_UNSUPPORTED && reasoning && m->kind != SC_PROVIDER_ORACLE)
		return sc_error_set(SC_EINVAL, "model name '%s': %s takes no reasoning setting "
				    "(DeepSeek reasons with the model deepseek.deepseek-reasoner)",
				    name, p->name);
	if (m->budget && p->effort == SC_EFFORT_REASONING_EFFORT)
		return sc_error_set(SC_EINVAL, "model name '%s': a token budget (?reasoning=%d) needs "
				    "an Anthropic or OpenRouter model; use an effort word (minimal, low, "
				    "medium, high, xhigh) for %s", name, m->budget, p->name);
	if (m->budget && p->effort == SC_EFFORT_THINKING && m->budget < MIN_THINKING_BUDGET)
		return sc_error_set(SC_EINVAL, "model name '%s': a thinking budget must be at least "
				    "%d tokens", name, MIN_THINKING_BUDGET);
	if (p->azure && !deployment_ok(m->id))
		return sc_error_set(SC_EINVAL, "model name '%s': '%s' is not an Azure deployment "
				    "name (letters, digits, '-', '_', '.')", name, m->id);
	return 0;
}

/* ---- what each model takes ------------------------------------------------- */

enum {
	F_NO_SAMPLING = 1,   /* reasoning model: no temperature, no top_p */
	F_ONE_SAMPLING = 2,  /* temperature or top_p, not both */
	F_THINKING = 4,      /* Anthropic extended thinking */
	F_VERBOSITY = 8,     /* OpenAI verbosity */
};

/*
 * The capability table: rules by model family, first match wins, a rule
 * matching a model id that starts with its prefix (the part after
 * "provider/" for routed ids). efforts lists the reasoning_effort words
 * the family takes ("": none at all); NULL: not known, sent as written.
 * Sources per row are in docs/providers.md (the providers' model pages and
 * reasoning guides, checked against fast-agent 0.4.53's ModelDatabase).
 */
static const struct family {
	unsigned providers;   /* bit per enum sc_provider_kind */
	const char *prefix;
	unsigned flags;
	const char *efforts;
	int max_output;
	const char *unsupported;
} families[] = {
#define P(k) (1u << (k))
#define ANTH P(SC_PROVIDER_ANTHROPIC)
#define OAI (P(SC_PROVIDER_OPENAI) | P(SC_PROVIDER_AZURE))
	/* Anthropic: extended thinking from Claude 3.7 on; the Claude 4.1+
	 * models (and any newer Claude 4 this table does not name) take
	 * temperature or top_p, not both */
	{ ANTH, "claude-opus-4-6", F_THINKING | F_ONE_SAMPLING, NULL, 128000, NULL },
	{ ANTH, "claude-opus-4-5", F_THINKING | F_ONE_SAMPLING, NULL, 64000, NULL },
	{ ANTH, "claude-opus-4-1", F_THINKING | F_ONE_SAMPLING, NULL, 32000, NULL },
	{ ANTH, "claude-opus-4-0", F_THINKING, NULL, 32000, NULL },
	{ ANTH, "claude-opus-4-2025", F_THINKING, NULL, 32000, NULL },
	{ ANTH, "claude-opus-4", F_THINKING | F_ONE_SAMPLING, NULL, 0, NULL },
	{ ANTH, "claude-sonnet-4-5", F_THINKING | F_ONE_SAMPLING, NULL, 64000, NULL },
	{ ANTH, "claude-sonnet-4-0", F_THINKING, NULL, 64000, NULL },
	{ ANTH, "claude-sonnet-4-2025", F_THINKING, NULL, 64000, NULL },
	{ ANTH, "claude-sonnet-4", F_THINKING | F_ONE_SAMPLING, NULL, 0, NULL },
	{ ANTH, "claude-haiku-4-5", F_THINKING | F_ONE_SAMPLING, NULL, 64000, NULL },
	{ ANTH, "claude-haiku-4", F_THINKING | F_ONE_SAMPLING, NULL, 0, NULL },
	{ ANTH, "claude-3-7-sonnet", F_THINKING, NULL, 64000, NULL },
	{ ANTH, "claude-3-5-", 0, "", 8192, NULL },
	{ ANTH, "claude-3-", 0, "", 4096, NULL },
	/* OpenAI: reasoning models take no temperature or top_p */
	{ OAI, "gpt-5.1-codex", 0, NULL, 0, "is served only by OpenAI's Responses API" },
	{ OAI, "gpt-5.2-codex", 0, NULL, 0, "is served only by OpenAI's Responses API" },
	{ OAI, "gpt-5.3-codex", 0, NULL, 0, "is served only by OpenAI's Responses API" },
	{ OAI, "gpt-5-codex", 0, NULL, 0, "is served only by OpenAI's Responses API" },
	{ OAI, "gpt-5-chat", 0, "", 16384, NULL },
	{ OAI, "gpt-5.2", F_NO_SAMPLING | F_VERBOSITY, " none low medium high xhigh ", 128000, NULL },
	{ OAI, "gpt-5.1", F_NO_SAMPLING | F_VERBOSITY, " none low medium high ", 128000, NULL },
	{ OAI, "gpt-5", F_NO_SAMPLING | F_VERBOSITY, " minimal low medium high ", 128000, NULL },
	{ OAI, "o1-mini", F_NO_SAMPLING, "", 65536, NULL },
	{ OAI, "o1-preview", F_NO_SAMPLING, "", 32768, NULL },
	{ OAI, "o1", F_NO_SAMPLING, " low medium high ", 100000, NULL },
	{ OAI, "o3", F_NO_SAMPLING, " low medium high ", 100000, NULL },
	{ OAI, "o4-mini", F_NO_SAMPLING, " low medium high ", 100000, NULL },
	{ OAI, "gpt-4.1", 0, "", 32768, NULL },
	{ OAI, "gpt-4o", 0, "", 16384, NULL },
	/* xAI: grok-4 reasons always and refuses reasoning_effort; grok-4.3 takes it */
	{ P(SC_PROVIDER_XAI), "grok-4.3", 0, " none low medium high ", 0, NULL },
	{ P(SC_PROVIDER_XAI), "grok-4", 0, "", 0, NULL },
	{ P(SC_PROVIDER_XAI), "grok-3-mini", 0, " low high ", 0, NULL },
	{ P(SC_PROVIDER_XAI), "grok-3", 0, "", 0, NULL },
	{ P(SC_PROVIDER_XAI), "grok-code", 0, "", 0, NULL },
	/* Gemini's OpenAI-compatible endpoint: 2.5 Pro and 3 Pro cannot turn
	 * thinking off; 2.0 does not think */
	{ P(SC_PROVIDER_GOOGLE), "gemini-2.5-pro", 0, " low medium high ", 65536, NULL },
	{ P(SC_PROVIDER_GOOGLE), "gemini-2.5-flash", 0, " none low medium high ", 65536, NULL },
	{ P(SC_PROVIDER_GOOGLE), "gemini-3-pro", 0, " low high ", 65536, NULL },
	{ P(SC_PROVIDER_GOOGLE), "gemini-3-flash", 0, " minimal low medium high ", 65536, NULL },
	{ P(SC_PROVIDER_GOOGLE), "gemini-2.0", 0, "", 8192, NULL },
	/* Groq: gpt-oss takes low, medium, high */
	{ P(SC_PROVIDER_GROQ), "openai/gpt-oss", 0, " low medium high ", 0, NULL },
#undef OAI
#undef ANTH
#undef P
};

void sc_model_caps(struct sc_model_caps *out, const struct sc_model *m)
{
	const struct sc_provider_info *p = sc_provider_get(m->kind);

	memset(out, 0, sizeof(*out));
	if (p)
		out->thinking = p->effort == SC_EFFORT_THINKING;
	if (!p || m->kind >= SC_PROVIDER_BUILTINS || !m->id)
		return;  /* named endpoints: sent as written */
	for (size_t i = 0; i < SC_ARRAY_SIZE(families); i++) {
		const struct family *f = &families[i];
		if (!(f->providers & (1u << m->kind)) || !sc_starts_with(m->id, f->prefix))
			continue;
		out->family = f->prefix;
		out->no_sampling = f->flags & F_NO_SAMPLING;
		out->one_sampling = f->flags & F_ONE_SAMPLING;
		out->thinking = f->flags & F_THINKING;
		out->verbosity = f->flags & F_VERBOSITY;
		out->efforts = f->efforts;
		out->max_output = f->max_output;
		out->unsupported = f->unsupported;
		return;
	}
}

/* Whether the list " low high " holds word. */
static bool takes(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; (p = strstr(p, word)); p += n)
		if (p > list && p[-1] == ' ' && p[n] == ' ')
			return true;
	return false;
}

/* fast-agent's normalize_effort_for_spec: the word sent for effort, or NULL. */
static const char *effort_for(const char *list, const char *effort)
{
	if (takes(list, effort))
		return effort;
	if (!strcmp(effort, "minimal") && takes(list, "low"))
		return "low";
	if (!strcmp(effort, "xhigh") && takes(list, "max"))
		return "max";
	if (!strcmp(effort, "max") && takes(list, "xhigh"))
		return "xhigh";
	return NULL;
}

/* The words a model takes, for a message: "low, medium, high". */
static void list_words(struct sc_buf *out, const char *list)
{
	bool first = true;

	for (const char *p = list; *p;) {
		size_t n;
		while (*p == ' ')
			p++;
		n = strcspn(p, " ");
		if (n)
			sc_buf_printf(out, "%s%.*s", first ? "" : ", ", (int)n, p);
		first = first && !n;
		p += n;
	}
}

static int refuse(const struct sc_model *m, const struct sc_chat_request *req, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* SC_EINVAL: "model 'NAME' [(test 'T')]: WHAT". */
static int refuse(const struct sc_model *m, const struct sc_chat_request *req, const char *fmt, ...)
{
	struct sc_buf b = SC_BUF_INIT;
	va_list ap;
	int err;

	sc_buf_printf(&b, "model '%s'", m->name ? m->name : m->id);
	if (req && req->label)
		sc_buf_printf(&b, " (test '%s')", req->label);
	sc_buf_puts(&b, ": ");
	va_start(ap, fmt);
	sc_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	err = sc_error_set(SC_EINVAL, "%s", b.ptr);
	sc_buf_release(&b);
	return err;
}

int sc_model_shape(struct sc_request_shape *out, const struct sc_model *m,
		   const struct sc_chat_request *req)
{
	const struct sc_provider_info *p = sc_provider_get(m->kind);
	struct sc_model_caps caps;
	const char *effort = m->effort;
	int answer = req->max_tokens > 0 ? req->max_tokens : 4096;
	int err = 0;

	memset(out, 0, sizeof(*out));
	out->temperature = req->temperature;
	out->top_p = m->top_p;
	out->max_tokens_field = p && p->max_tokens_field ? p->max_tokens_field : "max_tokens";
	sc_model_caps(&caps, m);
	if (caps.max_output && answer > caps.max_output)
		answer = caps.max_output;  /* capped at the model's output limit */
	out->max_tokens = answer;
	if (!p || p->wire == SC_WIRE_NONE)
		return 0;
	if (caps.unsupported)
		err = refuse(m, req, "%s %s, which skillci does not speak; choose another model",
			     m->id, caps.unsupported);

	/* sampling */
	if (caps.no_sampling && out->temperature >= 0) {
		if (!req->temperature_optional && !err)
			err = refuse(m, req, "%s is a reasoning model and takes no temperature; "
				     "leave it out", m->id);
		out->temperature = -1;
	}
	if (caps.no_sampling && out->top_p >= 0) {
		if (!err)
			err = refuse(m, req, "%s is a reasoning model and takes no top_p; leave it out",
				     m->id);
		out->top_p = -1;
	}
	if (caps.one_sampling && out->temperature >= 0 && out->top_p >= 0) {
		if (!req->temperature_optional && !err)
			err = refuse(m, req, "%s takes temperature or top_p, not both; set one", m->id);
		out->temperature = -1;
	}

	/* reasoning */
	if (effort && (!strcmp(effort, "auto") || (!strcmp(effort, "none") &&
						    p->effort == SC_EFFORT_THINKING)))
		effort = NULL;  /* the provider's default; thinking off is no block */
	if (p->effort == SC_EFFORT_THINKING) {
		int budget = m->budget ? m->budget : sc_provider_thinking_budget(effort);
		if (budget == 0 && effort && !strcmp(effort, "on"))
			budget = sc_provider_thinking_budget("medium");
		if (budget > 0 && !caps.thinking) {
			if (!err)
				err = refuse(m, req, "%s has no extended thinking; leave out the effort "
					     "(Claude 3.7 and the Claude 4 models have it)", m->id);
			budget = 0;
		}
		if (budget > 0 && caps.max_output && answer + budget > caps.max_output) {
			/* the answer keeps its budget; thinking gets what is left */
			budget = caps.max_output - answer;
			if (budget < MIN_THINKING_BUDGET) {
				budget = MIN_THINKING_BUDGET;
				answer = caps.max_output - budget;
			}
		}
		if (budget > 0) {
			/* thinking takes no temperature, and top_p only from 0.95 */
			if (out->temperature >= 0 && !req->temperature_optional && !err)
				err = refuse(m, req, "extended thinking takes no temperature; leave it "
					     "out or turn thinking off (.none)");
			if (out->top_p >= 0 && out->top_p < 0.95 && !err)
				err = refuse(m, req, "extended thinking takes top_p from 0.95 to 1 only");
			out->temperature = -1;
			if (out->top_p >= 0 && out->top_p < 0.95)
				out->top_p = -1;
		}
		out->thinking_budget = budget;
		out->max_tokens = answer + budget;
	} else if (p->effort == SC_EFFORT_REASONING_OBJECT) {
		if (m->budget)
			out->reasoning_budget = m->budget;
		else if (effort && !strcmp(effort, "on"))
			out->reasoning_on = true;
		else if (effort)
			out->effort = !strcmp(effort, "max") ? "xhigh" : effort;
	} else if (p->effort == SC_EFFORT_REASONING_EFFORT && effort && strcmp(effort, "on")) {
		if (!caps.efforts) {
			/* not in the table: sent as written, but no OpenAI-compatible API takes "max" */
			out->effort = !strcmp(effort, "max") ? "xhigh" : effort;
		} else if (!*caps.efforts) {
			if (strcmp(effort, "none") && !err)
				err = refuse(m, req, "%s takes no reasoning effort; leave out '.%s'",
					     m->id, effort);
		} else if (!(out->effort = effort_for(caps.efforts, effort)) && !err) {
			struct sc_buf w = SC_BUF_INIT;
			list_words(&w, caps.efforts);
			if (!strcmp(effort, "none"))
				err = refuse(m, req, "%s cannot turn reasoning off; it takes %s", m->id,
					     w.ptr);
			else
				err = refuse(m, req, "%s takes no effort '%s'; it takes %s", m->id,
					     effort, w.ptr);
			sc_buf_release(&w);
		}
	}
	if (m->verbosity) {
		if (caps.verbosity)
			out->verbosity = m->verbosity;
		else if (!err)
			err = refuse(m, req, "verbosity is an OpenAI gpt-5 setting; %s takes none", m->id);
	}
	return err;
}

/* Moves the settings the user wrote over those of an alias target. */
static int apply_settings(struct sc_model *m, struct settings *s, const char *name)
{
	if (s->effort || s->budget) {
		/* PROVIDER.MODEL.high?reasoning=low is a contradiction; an alias's own
		 * setting is a default the user may change */
		bool same = s->effort && m->effort && !strcmp(s->effort, m->effort) &&
			    s->budget == m->budget;
		if ((m->effort || m->budget) && !m->alias && !same)
			return sc_error_set(SC_EINVAL, "model name '%s' sets the reasoning twice", name);
		free(m->effort);
		m->effort = s->effort;
		s->effort = NULL;
		m->budget = s->budget;
	}
	if (s->temperature >= 0)
		m->temperature = s->temperature;
	if (s->top_p >= 0)
		m->top_p = s->top_p;
	if (s->max_tokens)
		m->max_tokens = s->max_tokens;
	if (s->verbosity) {
		free(m->verbosity);
		m->verbosity = s->verbosity;
		s->verbosity = NULL;
	}
	if (s->structured) {
		free(m->structured);
		m->structured = s->structured;
		s->structured = NULL;
	}
	return 0;
}

static int parse(struct sc_model *out, const char *name, int depth);

/* A provider of the table by its name or one of fast-agent's synonyms, or -1. */
static int find_provider(const char *name)
{
	int kind = sc_provider_find(name);

	for (size_t i = 0; kind < 0 && i < SC_ARRAY_SIZE(provider_synonyms); i++)
		if (!strcmp(name, provider_synonyms[i].name))
			kind = provider_synonyms[i].kind;
	return kind;
}

/* "high" of "high" or "high:groq": an effort word (owned), or NULL. */
static char *effort_before_route(const char *s)
{
	const char *colon = strchr(s, ':');
	char *w = colon ? sc_xstrndup(s, (size_t)(colon - s)) : sc_xstrdup(s);

	if (is_effort_word(w) && (!colon || colon[1]))
		return w;
	free(w);
	return NULL;
}

/* An alias target with its ":ROUTE" replaced (fast-agent: "kimi:together"). */
static int parse_alias(struct sc_model *out, const char *alias, const char *target,
		       const char *route, const char *effort, int depth)
{
	struct sc_buf t = SC_BUF_INIT;
	int err;

	sc_buf_puts(&t, target);
	if (route) {
		const char *q = strchr(t.ptr, '?'), *colon;
		size_t qlen = q ? strlen(q) : 0;
		char *query = q ? sc_xstrdup(q) : NULL;
		sc_buf_truncate(&t, t.len - qlen);
		colon = strrchr(t.ptr, ':');
		if (colon)
			sc_buf_truncate(&t, (size_t)(colon - t.ptr));
		sc_buf_printf(&t, ":%s", route);
		if (query)
			sc_buf_puts(&t, query);
		free(query);
	}
	err = parse(out, t.ptr, depth + 1);
	if (err == 0 && effort) {
		if (out->effort || out->budget) {
			sc_model_release(out);
			err = sc_error_set(SC_EINVAL, "alias '%s' already sets the reasoning", alias);
		} else {
			out->effort = sc_xstrdup(effort);
		}
	}
	if (err == 0) {
		free(out->alias);
		out->alias = sc_xstrdup(alias);
	}
	sc_buf_release(&t);
	return err;
}

/*
 * The name without its settings: an alias (with :ROUTE or .EFFORT), or
 * PROVIDER.MODEL[.EFFORT], or PROVIDER/MODEL.
 */
static int parse_base(struct sc_model *out, const char *base, const char *name, int depth)
{
	const char *dot, *slash, *rest, *last, *target;
	char *word;
	char *prov = NULL;
	int kind, err;

	if ((target = alias_target(base)))
		return parse_alias(out, base, target, NULL, NULL, depth);
	{
		/* ALIAS:ROUTE and ALIAS.EFFORT */
		const char *colon = strrchr(base, ':');
		const char *ldot = strrchr(base, '.');
		if (colon && colon[1]) {
			char *a = sc_xstrndup(base, (size_t)(colon - base));
			target = alias_target(a);
			err = target ? parse_alias(out, a, target, colon + 1, NULL, depth) : 1;
			free(a);
			if (err <= 0)
				return err;
		}
		if (ldot && is_effort_word(ldot + 1)) {
			char *a = sc_xstrndup(base, (size_t)(ldot - base));
			target = alias_target(a);
			err = target ? parse_alias(out, a, target, NULL, ldot + 1, depth) : 1;
			free(a);
			if (err <= 0)
				return err;
		}
	}
	dot = strchr(base, '.');
	slash = strchr(base, '/');
	prov = dot ? sc_xstrndup(base, (size_t)(dot - base)) : sc_xstrdup(base);
	kind = find_provider(prov);
	rest = dot ? dot + 1 : "";
	if (kind < 0 && slash && (!dot || slash < dot)) {
		/* fast-agent's PROVIDER/MODEL form */
		char *p2 = sc_xstrndup(base, (size_t)(slash - base));
		if ((kind = find_provider(p2)) >= 0) {
			free(prov);
			prov = p2;
			rest = slash + 1;
		} else {
			free(p2);
		}
	}
	if (kind < 0) {
		err = unknown(name, dot ? prov : NULL);
		free(prov);
		return err;
	}
	out->kind = kind;
	free(prov);
	if (!*rest && kind != SC_PROVIDER_ORACLE)
		return sc_error_set(SC_EINVAL, "model name '%s' has no model (expected %s.MODEL[.EFFORT])",
				    name, sc_provider_name(kind));
	last = strrchr(rest, '.');
	if (last && (word = effort_before_route(last + 1))) {
		/* MODEL.EFFORT or MODEL.EFFORT:ROUTE */
		struct sc_buf id = SC_BUF_INIT;
		sc_buf_put(&id, rest, (size_t)(last - rest));
		sc_buf_puts(&id, last + 1 + strlen(word));
		out->id = sc_buf_detach(&id, NULL);
		out->effort = word;
	} else if (is_effort_word(rest) && kind != SC_PROVIDER_ORACLE) {
		return sc_error_set(SC_EINVAL, "model name '%s' has an effort but no model", name);
	} else {
		out->id = sc_xstrdup(*rest ? rest : "reference");
	}
	if (!*out->id || out->id[strlen(out->id) - 1] == '.' || out->id[0] == '.') {
		free(out->id);
		out->id = NULL;
		return sc_error_set(SC_EINVAL, "model name '%s' has an empty model", name);
	}
	return 0;
}

static int parse(struct sc_model *out, const char *name, int depth)
{
	struct settings s;
	const char *q;
	char *base;
	int err;

	memset(out, 0, sizeof(*out));
	out->temperature = out->top_p = -1;
	settings_init(&s);
	if (depth > 2)
		return sc_error_set(SC_EINVAL, "model alias '%s' does not resolve", name);
	q = strchr(name, '?');
	base = q ? sc_xstrndup(name, (size_t)(q - name)) : sc_xstrdup(name);
	if (!*base) {
		free(base);
		return sc_error_set(SC_EINVAL, "model name '%s' has no model before its settings", name);
	}
	if (q && (err = parse_query(&s, q + 1, name)) < 0)
		goto done;
	if ((err = parse_base(out, base, name, depth)) < 0)
		goto done;
	if ((err = apply_settings(out, &s, name)) < 0)
		goto done;
	err = check_provider(out, name);
done:
	free(base);
	free(s.effort);
	free(s.verbosity);
	free(s.structured);
	if (err < 0) {
		sc_model_release(out);
		return err;
	}
	return 0;
}

int sc_model_parse(struct sc_model *out, const char *name)
{
	int err;

	memset(out, 0, sizeof(*out));
	out->temperature = out->top_p = -1;
	if (!name || !*name)
		return sc_error_set(SC_EINVAL, "empty model name (expected PROVIDER.MODEL[.EFFORT] or "
				    "an alias such as haiku, sonnet, gpt-4.1, kimi)");
	if (!name_chars_ok(name))
		return sc_error_set(SC_EINVAL, "model name '%s' has a character that is not allowed",
				    name);
	if ((err = parse(out, name, 0)) < 0)
		return err;
	if (out->kind == SC_PROVIDER_HF && !strchr(out->id, ':')) {
		/* fast-agent: hf.default_provider, else HF_DEFAULT_PROVIDER */
		const char *route = sc_provider_file_setting(SC_PROVIDER_HF, "default_provider");
		if (!route)
			route = getenv("HF_DEFAULT_PROVIDER");
		if (route && *route) {
			struct sc_buf id = SC_BUF_INIT;
			if (!deployment_ok(route)) {
				sc_model_release(out);
				return sc_error_set(SC_EINVAL, "HF_DEFAULT_PROVIDER '%s' is not an inference "
						    "provider name (letters, digits, '-', '_', '.')", route);
			}
			sc_buf_printf(&id, "%s:%s", out->id, route);
			free(out->id);
			out->id = sc_buf_detach(&id, NULL);
		}
	}
	out->name = canonical(out);
	return 0;
}
