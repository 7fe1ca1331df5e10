/*
 * The provider table, named endpoints and model names (provider.h;
 * docs/providers.md says where each provider's fields come from).
 *
 * A model name is read as fast-agent reads it, at the version the grammar
 * follows (0.6.7, upskill's pin, unless the trusted configuration chose
 * another): the settings after '?', a ":ROUTE" suffix, the alias (preset)
 * of that version, then PROVIDER/MODEL or PROVIDER.MODEL with a provider
 * of that version, else a bare model name with its default provider.
 * fast-agent 0.4.x also reads a ".EFFORT" suffix, which 0.6.0 removed:
 * later grammars refuse it, spelling out the ?reasoning= that replaces it.
 * The version's aliases and bare names are generated facts
 * (model_tables.c); tests/e2e/test_parity.sh feeds a list of names to
 * fast-agent's own parser and to this one. Every accepted name has one
 * canonical spelling (struct sc_model.name) that fast-agent reads as the
 * same model, which results, the store and the cache use.
 */
#include "common.h"
#include "providers/provider.h"
#include "providers/model_tables.h"
#include "net/http.h"
#include "json.h"

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
	[SC_PROVIDER_RESPONSES] = {
		.name = "responses", .title = "OpenAI Responses API", .wire = SC_WIRE_RESPONSES,
		.base_url = "https://api.openai.com/v1",
		.base_env = { "OPENAI_BASE_URL", "OPENAI_API_BASE" },
		.key_env = { "OPENAI_API_KEY" }, .key_header = "Authorization",
		.max_tokens_field = "max_output_tokens", .effort = SC_EFFORT_REASONING_EFFORT,
	},
	[SC_PROVIDER_ALIYUN] = {
		.name = "aliyun", .title = "Alibaba Cloud Model Studio (DashScope, OpenAI-compatible)",
		.wire = SC_WIRE_OPENAI,
		.base_url = "https://dashscope-intl.aliyuncs.com/compatible-mode/v1",
		.base_env = { "ALIYUN_BASE_URL" },
		.key_env = { "ALIYUN_API_KEY", "DASHSCOPE_API_KEY" }, .key_header = "Authorization",
		.max_tokens_field = "max_tokens", .effort = SC_EFFORT_REASONING_EFFORT,
	},
	[SC_PROVIDER_ZAI] = {
		.name = "zai", .title = "Z.ai (GLM models, OpenAI-compatible)", .wire = SC_WIRE_OPENAI,
		.base_url = "https://api.z.ai/api/paas/v4",
		.base_env = { "ZAI_BASE_URL" },
		.key_env = { "ZAI_API_KEY" }, .key_header = "Authorization",
		.max_tokens_field = "max_tokens", .effort = SC_EFFORT_REASONING_EFFORT,
	},
	[SC_PROVIDER_MOONSHOT] = {
		.name = "moonshot", .title = "Moonshot AI (Kimi models, OpenAI-compatible)",
		.wire = SC_WIRE_OPENAI,
		.base_url = "https://api.moonshot.ai/v1",
		.base_env = { "MOONSHOT_BASE_URL" },
		.key_env = { "MOONSHOT_API_KEY" }, .key_header = "Authorization",
		.max_tokens_field = "max_tokens", .effort = SC_EFFORT_REASONING_EFFORT,
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
 * fast-agent's providers, in every supported version (model_tables.h), and
 * what skillci does with each: the provider of its table that speaks it,
 * or why none does. fast-agent's "google" speaks Gemini's native API and
 * "googleoai" its OpenAI-compatible endpoint; skillci's google is the
 * latter for both (the same model ids). Bedrock: SigV4 signs the request
 * path URI-encoded twice for every service but S3, and the Bedrock model
 * ids in that path hold ':'; libcurl's SigV4 (7.88 on these machines)
 * signs the path as written (the encoding came to curl later, and with
 * bugs of its own: curl issues 13754, 16927), so it cannot sign them.
 */
#define ALL_VERSIONS (SC_FA_V0_4_53 | SC_FA_V0_6_7 | SC_FA_V0_10_48)
static const struct fa_provider {
	const char *name;
	unsigned versions;
	int kind;            /* enum sc_provider_kind, or -1: refused */
	const char *refusal; /* why, when refused */
} fa_providers[] = {
	{ "anthropic", ALL_VERSIONS, SC_PROVIDER_ANTHROPIC, NULL },
	{ "openai", ALL_VERSIONS, SC_PROVIDER_OPENAI, NULL },
	{ "responses", ALL_VERSIONS, SC_PROVIDER_RESPONSES, NULL },
	{ "azure", ALL_VERSIONS, SC_PROVIDER_AZURE, NULL },
	{ "google", ALL_VERSIONS, SC_PROVIDER_GOOGLE, NULL },
	{ "googleoai", ALL_VERSIONS, SC_PROVIDER_GOOGLE, NULL },
	{ "hf", ALL_VERSIONS, SC_PROVIDER_HF, NULL },
	{ "openrouter", ALL_VERSIONS, SC_PROVIDER_OPENROUTER, NULL },
	{ "deepseek", ALL_VERSIONS, SC_PROVIDER_DEEPSEEK, NULL },
	{ "xai", ALL_VERSIONS, SC_PROVIDER_XAI, NULL },
	{ "groq", ALL_VERSIONS, SC_PROVIDER_GROQ, NULL },
	{ "aliyun", ALL_VERSIONS, SC_PROVIDER_ALIYUN, NULL },
	{ "zai", SC_FA_V0_10_48, SC_PROVIDER_ZAI, NULL },
	{ "moonshot", SC_FA_V0_10_48, SC_PROVIDER_MOONSHOT, NULL },
	{ "generic", ALL_VERSIONS, SC_PROVIDER_GENERIC, NULL },
	{ "bedrock", ALL_VERSIONS, -1,
	  "Amazon Bedrock's model ids hold ':' (anthropic.claude-...-v1:0), which AWS signs "
	  "URI-encoded twice in the request path, and the AWS SigV4 signing of this libcurl "
	  "(CURLOPT_AWS_SIGV4, 7.88) signs the path as written, so those requests would not "
	  "verify; fast-agent reaches Bedrock through boto3 instead. Reach the model through "
	  "openrouter or hf, or name an OpenAI-compatible gateway to Bedrock in skillci.yml "
	  "'providers'" },
	{ "codexresponses", ALL_VERSIONS, -1,
	  "the Codex backend of ChatGPT signs in with a ChatGPT account (OAuth), not an API key, "
	  "so no CI runner can use it; use responses.MODEL with OPENAI_API_KEY" },
	{ "openresponses", ALL_VERSIONS, -1,
	  "an Open Responses server is one of your own, and skillci's named endpoints speak the "
	  "openai or anthropic wire format only; serve the model OpenAI-compatibly and name it in "
	  "skillci.yml 'providers'" },
	{ "tensorzero", ALL_VERSIONS, -1,
	  "a TensorZero gateway is a server of your own: name its OpenAI-compatible endpoint in "
	  "skillci.yml 'providers'" },
	{ "fast-agent", ALL_VERSIONS, -1,
	  "fast-agent's internal models (passthrough, playback, silent, slow) answer without a "
	  "model; skillci's self-test is the oracle provider" },
	{ "copilot", SC_FA_V0_10_48, -1,
	  "GitHub Copilot's models are reached through a GitHub sign-in (OAuth device flow), not "
	  "an API key, so no CI runner can use them" },
	{ "anthropic-vertex", SC_FA_V0_10_48, -1,
	  "Claude on Google Vertex AI signs its requests with Google Cloud credentials, which "
	  "skillci does not read; use anthropic.MODEL with ANTHROPIC_API_KEY" },
	{ "metaai", SC_FA_V0_10_48, -1,
	  "Meta AI's Muse models are served by Meta's own Responses-style API, which skillci does "
	  "not speak" },
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

/* ---- the grammar's fast-agent version ------------------------------------- */

static const struct { const char *version; unsigned bit; } grammars[] = {
	{ "0.4.53", SC_FA_V0_4_53 },
	{ "0.6.7", SC_FA_V0_6_7 },
	{ "0.10.48", SC_FA_V0_10_48 },
};
#define DEFAULT_GRAMMAR 1
static size_t grammar = DEFAULT_GRAMMAR;

static unsigned gbit(void)
{
	return grammars[grammar].bit;
}

/* The .EFFORT suffix, exact bare names, no sampling settings: fast-agent 0.4.x. */
static bool old_grammar(void)
{
	return gbit() == SC_FA_V0_4_53;
}

const char *sc_models_grammar(void)
{
	return grammars[grammar].version;
}

size_t sc_models_grammar_count(void)
{
	return SC_ARRAY_SIZE(grammars);
}

const char *sc_models_grammar_version(size_t i)
{
	return i < SC_ARRAY_SIZE(grammars) ? grammars[i].version : NULL;
}

int sc_models_set_grammar(const char *version)
{
	struct sc_buf known = SC_BUF_INIT;
	int err;

	if (!version) {
		grammar = DEFAULT_GRAMMAR;
		return 0;
	}
	for (size_t i = 0; i < SC_ARRAY_SIZE(grammars); i++)
		if (!strcmp(grammars[i].version, version)) {
			grammar = i;
			return 0;
		}
	for (size_t i = 0; i < SC_ARRAY_SIZE(grammars); i++)
		sc_buf_printf(&known, "%s%s", i ? ", " : "", grammars[i].version);
	err = sc_error_set(SC_EINVAL, "fast-agent %s is not a version whose model names skillci "
			   "reads; supported: %s", version, known.ptr);
	sc_buf_release(&known);
	return err;
}

/*
 * The versions a table row holds for, as "0.6.7 and 0.10.48"; returns how
 * many (for the verb that follows).
 */
static size_t versions_text(struct sc_buf *out, unsigned bits)
{
	size_t n = 0, k = 0;

	for (size_t i = 0; i < SC_ARRAY_SIZE(grammars); i++)
		n += (bits & grammars[i].bit) != 0;
	for (size_t i = 0; i < SC_ARRAY_SIZE(grammars); i++) {
		if (!(bits & grammars[i].bit))
			continue;
		sc_buf_printf(out, "%s%s", k == 0 ? "" : k + 1 == n ? " and " : ", ",
			      grammars[i].version);
		k++;
	}
	return n;
}

size_t sc_alias_count(void)
{
	size_t n = 0;

	for (size_t i = 0; i < sc_fa_npresets; i++)
		n += (sc_fa_presets[i].versions & gbit()) != 0;
	return n;
}

void sc_alias_get(size_t i, const char **name, const char **target)
{
	*name = *target = NULL;
	for (size_t k = 0; k < sc_fa_npresets; k++) {
		if (!(sc_fa_presets[k].versions & gbit()))
			continue;
		if (i-- == 0) {
			*name = sc_fa_presets[k].name;
			*target = sc_fa_presets[k].target;
			return;
		}
	}
}

/* The alias called name in the grammar's version (NULL: none); any version when any. */
static const struct sc_fa_preset *preset_of(const char *name, size_t len, bool any)
{
	for (size_t i = 0; i < sc_fa_npresets; i++)
		if ((any || (sc_fa_presets[i].versions & gbit())) &&
		    strlen(sc_fa_presets[i].name) == len && !strncmp(sc_fa_presets[i].name, name, len))
			return &sc_fa_presets[i];
	return NULL;
}

static const char *alias_target(const char *name)
{
	const struct sc_fa_preset *p = preset_of(name, strlen(name), false);
	return p ? p->target : NULL;
}

/* fast-agent's provider called name (len bytes) in the grammar's version, or any version. */
static const struct fa_provider *fa_provider_of(const char *name, size_t len, bool any)
{
	for (size_t i = 0; i < SC_ARRAY_SIZE(fa_providers); i++)
		if ((any || (fa_providers[i].versions & gbit())) && strlen(fa_providers[i].name) == len &&
		    !strncmp(fa_providers[i].name, name, len))
			return &fa_providers[i];
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
	if (fa_provider_of(e->name, strlen(e->name), true))
		return sc_error_set(SC_EINVAL, "endpoint name '%s' is a fast-agent provider; choose "
				    "another", e->name);
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
	grammar = DEFAULT_GRAMMAR;
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

/*
 * An effort word of fast-agent's EFFORT_LEVELS (auto, none, minimal..max),
 * in lower case; fast-agent 0.10.x also reads "adaptive" as auto. Returns
 * the word to keep, or NULL.
 */
static const char *effort_word(const char *s)
{
	for (size_t i = 0; s && i < SC_ARRAY_SIZE(efforts); i++)
		if (!strcmp(s, efforts[i].word))
			return efforts[i].word;
	if (s && gbit() == SC_FA_V0_10_48 && !strcmp(s, "adaptive"))
		return "auto";
	return NULL;
}

static void model_init(struct sc_model *m)
{
	memset(m, 0, sizeof(*m));
	m->temperature = m->top_p = -1;
}

void sc_model_release(struct sc_model *m)
{
	free(m->id);
	free(m->effort);
	free(m->name);
	free(m->alias);
	free(m->verbosity);
	free(m->structured);
	free(m->service_tier);
	free(m->transport);
	model_init(m);
}

/*
 * The settings of a model string's query, or of an alias's (fast-agent
 * merges the two, the string's winning key by key). A field is set when
 * its SET_ bit is.
 */
enum {
	SET_REASONING = 1u << 0, SET_TEMPERATURE = 1u << 1, SET_TOP_P = 1u << 2,
	SET_MAX_TOKENS = 1u << 3, SET_VERBOSITY = 1u << 4, SET_STRUCTURED = 1u << 5,
	SET_INSTANT = 1u << 6, SET_CONTEXT = 1u << 7, SET_TRANSPORT = 1u << 8,
	SET_SERVICE_TIER = 1u << 9, SET_WEB_SEARCH = 1u << 10, SET_WEB_FETCH = 1u << 11,
	SET_TOP_K = 1u << 12, SET_MIN_P = 1u << 13, SET_PRESENCE = 1u << 14,
	SET_REPETITION = 1u << 15,
};

struct settings {
	unsigned set;
	const char *effort;        /* effort word, "on" or "off"; NULL with a budget */
	int budget;
	double temperature, top_p, min_p, presence, repetition;
	int max_tokens, top_k;
	const char *verbosity, *structured, *transport, *service_tier;
	bool instant, context, web_search, web_fetch;
};

/* The keys a query may hold, and the versions that read each. */
enum key_id {
	K_REASONING, K_VERBOSITY, K_STRUCTURED, K_INSTANT, K_CONTEXT, K_LONG_CONTEXT,
	K_TRANSPORT, K_SERVICE_TIER, K_WEB_SEARCH, K_WEB_FETCH, K_TEMPERATURE, K_TOP_P,
	K_TOP_K, K_MIN_P, K_PRESENCE, K_REPETITION, K_MAX_TOKENS, K_RUNTIME, K_X_SEARCH,
};

#define V6_ON (SC_FA_V0_6_7 | SC_FA_V0_10_48)
static const struct query_key {
	const char *key;
	enum key_id id;
	unsigned versions;  /* fast-agent's; skillci's own keys are read at every version */
	bool own;           /* temperature, top_p, max_tokens: skillci's own before fast-agent had them */
} query_keys[] = {
	{ "reasoning", K_REASONING, ALL_VERSIONS, false },
	{ "verbosity", K_VERBOSITY, ALL_VERSIONS, false },
	{ "structured", K_STRUCTURED, ALL_VERSIONS, false },
	{ "instant", K_INSTANT, ALL_VERSIONS, false },
	{ "context", K_CONTEXT, ALL_VERSIONS, false },
	{ "transport", K_TRANSPORT, ALL_VERSIONS, false },
	{ "temperature", K_TEMPERATURE, V6_ON, true },
	{ "top_p", K_TOP_P, V6_ON, true },
	{ "max_tokens", K_MAX_TOKENS, SC_FA_V0_10_48, true },
	{ "temp", K_TEMPERATURE, V6_ON, false },
	{ "topP", K_TOP_P, V6_ON, false },
	{ "top_k", K_TOP_K, V6_ON, false },
	{ "topK", K_TOP_K, V6_ON, false },
	{ "min_p", K_MIN_P, V6_ON, false },
	{ "minP", K_MIN_P, V6_ON, false },
	{ "presence_penalty", K_PRESENCE, V6_ON, false },
	{ "presencePenalty", K_PRESENCE, V6_ON, false },
	{ "repetition_penalty", K_REPETITION, V6_ON, false },
	{ "repetitionPenalty", K_REPETITION, V6_ON, false },
	{ "service_tier", K_SERVICE_TIER, V6_ON, false },
	{ "web_search", K_WEB_SEARCH, V6_ON, false },
	{ "web_fetch", K_WEB_FETCH, V6_ON, false },
	{ "maxTokens", K_MAX_TOKENS, SC_FA_V0_10_48, false },
	{ "long_context", K_LONG_CONTEXT, SC_FA_V0_10_48, false },
	{ "x_search", K_X_SEARCH, SC_FA_V0_10_48, false },
	/* fast-agent 0.10's settings of its own agent loop, not of the model */
	{ "lite", K_RUNTIME, SC_FA_V0_10_48, false },
	{ "compaction", K_RUNTIME, SC_FA_V0_10_48, false },
	{ "compact_at", K_RUNTIME, SC_FA_V0_10_48, false },
	{ "streaming_timeout", K_RUNTIME, SC_FA_V0_10_48, false },
	{ "poll_period", K_RUNTIME, SC_FA_V0_10_48, false },
	{ "task_budget", K_RUNTIME, SC_FA_V0_10_48, false },
	{ "taskBudget", K_RUNTIME, SC_FA_V0_10_48, false },
	{ "structured_tools", K_RUNTIME, SC_FA_V0_10_48, false },
	{ "structuredToolPolicy", K_RUNTIME, SC_FA_V0_10_48, false },
	{ "structured_tool_policy", K_RUNTIME, SC_FA_V0_10_48, false },
};

static bool word_in(const char *w, const char *const *list)
{
	for (; *list; list++)
		if (!strcmp(w, *list))
			return true;
	return false;
}

/* fast-agent's TRUE_VALUES and FALSE_VALUES: 1 true, 0 false, -1 neither. */
static int toggle_of(const char *v)
{
	static const char *const on[] = { "on", "true", "1", "yes", "enable", "enabled", NULL };
	static const char *const off[] = { "off", "false", "0", "no", "disable", "disabled", NULL };

	return word_in(v, on) ? 1 : word_in(v, off) ? 0 : -1;
}

/* Python's int() of a trimmed string: an optional sign and digits. */
static bool parse_int(const char *v, long lo, long hi, long *out)
{
	char *end;
	long x;

	if (!*v || isspace((unsigned char)*v))
		return false;
	errno = 0;
	x = strtol(v, &end, 10);
	if (*end || errno || x < lo || x > hi)
		return false;
	*out = x;
	return true;
}

/* Python's float() of a trimmed string, finite (fast-agent refuses inf and nan). */
static bool parse_float(const char *v, double *out)
{
	char *end;
	double x;

	if (!*v || strpbrk(v, "xXpP") || isspace((unsigned char)*v))
		return false;
	errno = 0;
	x = strtod(v, &end);
	if (*end || errno == ERANGE || !isfinite(x))
		return false;
	*out = x;
	return true;
}

/* %XX and '+' decoded in place, as Python's parse_qs reads a query. */
static void url_decode(char *s)
{
	char *w = s;

	for (const char *r = s; *r; r++) {
		if (*r == '+') {
			*w++ = ' ';
		} else if (*r == '%' && isxdigit((unsigned char)r[1]) && isxdigit((unsigned char)r[2])) {
			char hex[3] = { r[1], r[2], 0 };
			*w++ = (char)strtol(hex, NULL, 16);
			r += 2;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* Leading and trailing blanks dropped, the rest in lower case (Python's strip().lower()). */
static char *trim_lower(char *s, bool lower)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	for (char *c = s; lower && *c; c++)
		*c = (char)tolower((unsigned char)*c);
	return s;
}

/* Interned copies of the few words a setting keeps (so settings own nothing). */
static const char *keep_word(const char *w)
{
	static const char *const words[] = {
		"auto", "none", "minimal", "low", "medium", "high", "xhigh", "max", "on", "off",
		"json", "tool_use", "sse", "websocket", "fast", "flex", NULL,
	};
	for (const char *const *p = words; *p; p++)
		if (!strcmp(*p, w))
			return *p;
	return NULL;
}

static int bad_value(const char *name, const char *key, const char *val, const char *want)
{
	return sc_error_set(SC_EINVAL, "model name '%s': %s '%s' is not %s", name, key, val, want);
}

/* One KEY=VALUE of a query into s. */
static int set_key(struct settings *s, const struct query_key *k, char *raw, const char *name)
{
	char *v = trim_lower(raw, k->id != K_TEMPERATURE && k->id != K_TOP_P);
	long n;
	int t;

	switch (k->id) {
	case K_REASONING:
		s->set |= SET_REASONING;
		s->effort = NULL;
		s->budget = 0;
		if (effort_word(v))
			s->effort = effort_word(v);
		else if ((t = toggle_of(v)) >= 0)
			s->effort = t ? "on" : "off";
		else if (parse_int(v, 1, 1000000, &n))
			s->budget = (int)n;
		else
			return bad_value(name, "reasoning", raw, "an effort (auto, none, minimal, low, "
					 "medium, high, xhigh, max), on/off or a token budget from 1 to "
					 "1000000");
		return 0;
	case K_VERBOSITY:
		if (!strcmp(v, "med"))
			v = (char *)"medium";
		if (strcmp(v, "low") && strcmp(v, "medium") && strcmp(v, "high"))
			return bad_value(name, "verbosity", raw, "low, medium (med) or high");
		s->set |= SET_VERBOSITY;
		s->verbosity = keep_word(v);
		return 0;
	case K_STRUCTURED:
		if (!strcmp(v, "tool-use"))
			v = (char *)"tool_use";
		if (strcmp(v, "json") && strcmp(v, "tool_use"))
			return bad_value(name, "structured", raw, "json or tool_use");
		s->set |= SET_STRUCTURED;
		s->structured = keep_word(v);
		return 0;
	case K_INSTANT:
	case K_WEB_SEARCH:
	case K_WEB_FETCH:
	case K_LONG_CONTEXT:
		if ((t = toggle_of(v)) < 0)
			return bad_value(name, k->key, raw, "on or off (true/false, 1/0, yes/no)");
		if (k->id == K_INSTANT)
			s->instant = t, s->set |= SET_INSTANT;
		else if (k->id == K_WEB_SEARCH)
			s->web_search = t, s->set |= SET_WEB_SEARCH;
		else if (k->id == K_WEB_FETCH)
			s->web_fetch = t, s->set |= SET_WEB_FETCH;
		else
			s->context = t, s->set |= SET_CONTEXT;
		return 0;
	case K_CONTEXT:
		if (strcmp(v, "1m"))
			return bad_value(name, "context", raw, "1m, the only long context there is");
		s->context = true;
		s->set |= SET_CONTEXT;
		return 0;
	case K_TRANSPORT:
		if (!strcmp(v, "ws"))
			v = (char *)"websocket";
		if (strcmp(v, "websocket") && strcmp(v, "sse") && strcmp(v, "auto"))
			return bad_value(name, "transport", raw, "sse, websocket (ws) or auto");
		s->set |= SET_TRANSPORT;
		s->transport = keep_word(v);
		return 0;
	case K_SERVICE_TIER:
		if (strcmp(v, "fast") && strcmp(v, "flex"))
			return bad_value(name, "service_tier", raw, "fast or flex");
		s->set |= SET_SERVICE_TIER;
		s->service_tier = keep_word(v);
		return 0;
	case K_TEMPERATURE:
		if (!parse_float(v, &s->temperature) || s->temperature < 0 || s->temperature > 2)
			return bad_value(name, "temperature", raw, "a number from 0 to 2");
		s->set |= SET_TEMPERATURE;
		return 0;
	case K_TOP_P:
		if (!parse_float(v, &s->top_p) || s->top_p < 0 || s->top_p > 1)
			return bad_value(name, "top_p", raw, "a number from 0 to 1");
		s->set |= SET_TOP_P;
		return 0;
	case K_TOP_K:
		if (!parse_int(v, 0, 1000000, &n))
			return bad_value(name, "top_k", raw, "a whole number from 0");
		s->top_k = (int)n;
		s->set |= SET_TOP_K;
		return 0;
	case K_MIN_P:
	case K_PRESENCE:
	case K_REPETITION: {
		double x;
		if (!parse_float(v, &x))
			return bad_value(name, k->key, raw, "a number");
		if (k->id == K_MIN_P)
			s->min_p = x, s->set |= SET_MIN_P;
		else if (k->id == K_PRESENCE)
			s->presence = x, s->set |= SET_PRESENCE;
		else
			s->repetition = x, s->set |= SET_REPETITION;
		return 0;
	}
	case K_MAX_TOKENS:
		if (!parse_int(v, 1, 10000000, &n))
			return bad_value(name, "max_tokens", raw, "a positive whole number");
		s->max_tokens = (int)n;
		s->set |= SET_MAX_TOKENS;
		return 0;
	case K_X_SEARCH:
		return sc_error_set(SC_EINVAL, "model name '%s': x_search turns on xAI's X search tool, "
				    "which lives in xAI's Responses API; skillci's xai provider speaks chat "
				    "completions: leave it out", name);
	case K_RUNTIME:
		return sc_error_set(SC_EINVAL, "model name '%s': '%s' is a setting of fast-agent's own "
				    "agent loop, not of the model, and skillci runs no fast-agent loop: "
				    "leave it out", name, k->key);
	}
	return 0;
}

/* The keys the grammar's version reads, for a message. */
static void known_keys(struct sc_buf *out)
{
	bool first = true;

	for (size_t i = 0; i < SC_ARRAY_SIZE(query_keys); i++) {
		const struct query_key *k = &query_keys[i];
		if (!(k->versions & gbit()) && !k->own)
			continue;
		if (k->id == K_RUNTIME || k->id == K_X_SEARCH)
			continue;
		sc_buf_printf(out, "%s%s", first ? "" : ", ", k->key);
		first = false;
	}
}

/*
 * Parses "reasoning=high&temperature=0.7" into s as the grammar's version
 * reads it (percent-decoded, the last of a key winning; temp, topP, ...
 * as their long names). Refused where fast-agent would ignore: a key with
 * no value and a key the version does not read (a typo would otherwise
 * change nothing without a word). context and long_context together are
 * refused, as fast-agent 0.10 refuses them.
 */
static int parse_query(struct settings *s, const char *query, const char *name)
{
	char *copy = sc_xstrdup(query), *p = copy;
	bool saw_context = false, saw_long = false;
	int err = 0;

	while (p && *p && !err) {
		char *amp = strchr(p, '&'), *eq, *key;
		const struct query_key *k = NULL;
		if (amp)
			*amp = '\0';
		key = p;
		p = amp ? amp + 1 : NULL;
		if (!*key)
			continue;
		eq = strchr(key, '=');
		if (eq)
			*eq = '\0';
		url_decode(key);
		if (!eq || !eq[1]) {
			err = sc_error_set(SC_EINVAL, "model name '%s': setting '%s' needs a value "
					   "(KEY=VALUE)", name, key);
			break;
		}
		url_decode(eq + 1);
		for (size_t i = 0; i < SC_ARRAY_SIZE(query_keys) && !k; i++)
			if (!strcmp(query_keys[i].key, key) &&
			    ((query_keys[i].versions & gbit()) || query_keys[i].own))
				k = &query_keys[i];
		if (!k) {
			struct sc_buf m = SC_BUF_INIT;
			unsigned other = 0;
			for (size_t i = 0; i < SC_ARRAY_SIZE(query_keys); i++)
				if (!strcmp(query_keys[i].key, key))
					other |= query_keys[i].versions;
			sc_buf_printf(&m, "model name '%s': ", name);
			if (other) {
				sc_buf_printf(&m, "setting '%s' is not read by fast-agent %s, whose model names "
					      "this repository follows (fast-agent ", key, sc_models_grammar());
				sc_buf_puts(&m, versions_text(&m, other) > 1 ? " read it" : " reads it");
				sc_buf_puts(&m, "; fast_agent_version in skillci.yml chooses)");
			} else {
				sc_buf_printf(&m, "unknown setting '%s' (known: ", key);
				known_keys(&m);
				sc_buf_puts(&m, ")");
			}
			err = sc_error_set(SC_EINVAL, "%s", m.ptr);
			sc_buf_release(&m);
			break;
		}
		saw_context |= k->id == K_CONTEXT;
		saw_long |= k->id == K_LONG_CONTEXT;
		err = set_key(s, k, eq + 1, name);
	}
	if (!err && saw_context && saw_long)
		err = sc_error_set(SC_EINVAL, "model name '%s' sets the long context twice (context= "
				   "and long_context=)", name);
	free(copy);
	return err;
}

/* s, with what it leaves unset taken from defaults (an alias's own settings). */
static void settings_merge(struct settings *s, const struct settings *d)
{
	unsigned take = d->set & ~s->set;

	if (take & SET_REASONING)
		s->effort = d->effort, s->budget = d->budget;
	if (take & SET_TEMPERATURE)
		s->temperature = d->temperature;
	if (take & SET_TOP_P)
		s->top_p = d->top_p;
	if (take & SET_MAX_TOKENS)
		s->max_tokens = d->max_tokens;
	if (take & SET_VERBOSITY)
		s->verbosity = d->verbosity;
	if (take & SET_STRUCTURED)
		s->structured = d->structured;
	if (take & SET_INSTANT)
		s->instant = d->instant;
	if (take & SET_CONTEXT)
		s->context = d->context;
	if (take & SET_TRANSPORT)
		s->transport = d->transport;
	if (take & SET_SERVICE_TIER)
		s->service_tier = d->service_tier;
	if (take & SET_WEB_SEARCH)
		s->web_search = d->web_search;
	if (take & SET_WEB_FETCH)
		s->web_fetch = d->web_fetch;
	if (take & SET_TOP_K)
		s->top_k = d->top_k;
	if (take & SET_MIN_P)
		s->min_p = d->min_p;
	if (take & SET_PRESENCE)
		s->presence = d->presence;
	if (take & SET_REPETITION)
		s->repetition = d->repetition;
	s->set |= take;
}

/* Copies the settings into the model. */
static void settings_apply(struct sc_model *m, const struct settings *s)
{
	if (s->set & SET_REASONING) {
		m->effort = s->effort ? sc_xstrdup(s->effort) : NULL;
		m->budget = s->budget;
	}
	if (s->set & SET_TEMPERATURE)
		m->temperature = s->temperature;
	if (s->set & SET_TOP_P)
		m->top_p = s->top_p;
	if (s->set & SET_MAX_TOKENS)
		m->max_tokens = s->max_tokens;
	if (s->set & SET_VERBOSITY)
		m->verbosity = sc_xstrdup(s->verbosity);
	if (s->set & SET_STRUCTURED)
		m->structured = sc_xstrdup(s->structured);
	if (s->set & SET_TRANSPORT)
		m->transport = sc_xstrdup(s->transport);
	if (s->set & SET_SERVICE_TIER)
		m->service_tier = sc_xstrdup(s->service_tier);
	if (s->set & SET_CONTEXT)
		m->long_context = s->context, m->has |= SC_MODEL_HAS_CONTEXT;
	if (s->set & SET_WEB_SEARCH)
		m->web_search = s->web_search, m->has |= SC_MODEL_HAS_WEB_SEARCH;
	if (s->set & SET_WEB_FETCH)
		m->web_fetch = s->web_fetch, m->has |= SC_MODEL_HAS_WEB_FETCH;
	if (s->set & SET_TOP_K)
		m->top_k = s->top_k, m->has |= SC_MODEL_HAS_TOP_K;
	if (s->set & SET_MIN_P)
		m->min_p = s->min_p, m->has |= SC_MODEL_HAS_MIN_P;
	if (s->set & SET_PRESENCE)
		m->presence_penalty = s->presence, m->has |= SC_MODEL_HAS_PRESENCE;
	if (s->set & SET_REPETITION)
		m->repetition_penalty = s->repetition, m->has |= SC_MODEL_HAS_REPETITION;
}

/* ---- errors that name the way out ------------------------------------------ */

/* The closest provider or alias of the grammar's version to word, when close enough. */
static const char *closest(const char *word, bool providers_only, size_t *dist)
{
	const char *best = NULL;
	size_t bd = SIZE_MAX, limit = strlen(word) / 3 > 2 ? strlen(word) / 3 : 2;

	for (int i = 0; i < sc_provider_count(); i++) {
		size_t d = sc_edit_distance(word, sc_provider_name(i));
		if (d < bd && (i >= SC_PROVIDER_BUILTINS || i == SC_PROVIDER_ORACLE ||
			       fa_provider_of(sc_provider_name(i), strlen(sc_provider_name(i)), false))) {
			bd = d;
			best = sc_provider_name(i);
		}
	}
	for (size_t i = 0; !providers_only && i < sc_fa_npresets; i++) {
		size_t d;
		if (!(sc_fa_presets[i].versions & gbit()))
			continue;
		d = sc_edit_distance(word, sc_fa_presets[i].name);
		if (d < bd) {
			bd = d;
			best = sc_fa_presets[i].name;
		}
	}
	*dist = bd;
	return bd <= limit ? best : NULL;
}

/* "; providers: a, b; aliases: x, y (skillci help models)". */
static void known_list(struct sc_buf *out)
{
	bool first = true;

	sc_buf_puts(out, "; providers: ");
	for (int i = 0; i < sc_provider_count(); i++) {
		const char *n = sc_provider_name(i);
		if (i < SC_PROVIDER_BUILTINS && i != SC_PROVIDER_ORACLE &&
		    !fa_provider_of(n, strlen(n), false))
			continue;
		sc_buf_printf(out, "%s%s", first ? "" : ", ", n);
		first = false;
	}
	sc_buf_printf(out, "; aliases of fast-agent %s: ", sc_models_grammar());
	first = true;
	for (size_t i = 0; i < sc_fa_npresets; i++) {
		if (!(sc_fa_presets[i].versions & gbit()))
			continue;
		sc_buf_printf(out, "%s%s", first ? "" : ", ", sc_fa_presets[i].name);
		first = false;
	}
	sc_buf_puts(out, " ('skillci help models' shows what each is)");
}

/*
 * An unknown name: a provider or alias of another fast-agent version says
 * which versions have it and how to choose one; else the closest provider
 * or alias, and the known ones.
 */
static int unknown(const char *name, const char *spec)
{
	struct sc_buf m = SC_BUF_INIT;
	const char *near_prov = NULL, *near_all, *dot = strchr(spec, '.');
	const struct fa_provider *other = NULL;
	const struct sc_fa_preset *other_alias;
	char *prov = dot ? sc_xstrndup(spec, (size_t)(dot - spec)) : NULL;
	size_t dp = SIZE_MAX, da = SIZE_MAX;
	int err;

	other_alias = preset_of(spec, strlen(spec), true);
	if (prov)
		other = fa_provider_of(prov, strlen(prov), true);
	if (other) {
		sc_buf_printf(&m, "model name '%s': fast-agent %s, whose model names this repository "
			      "follows, has no provider '%s' (fast-agent ", name, sc_models_grammar(), prov);
		sc_buf_puts(&m, versions_text(&m, other->versions) > 1 ? " have it" : " has it");
		sc_buf_puts(&m, "; fast_agent_version in skillci.yml chooses the version)");
	} else if (other_alias) {
		sc_buf_printf(&m, "model name '%s': '%s' is no alias of fast-agent %s, whose model names "
			      "this repository follows (fast-agent ", name, spec, sc_models_grammar());
		sc_buf_puts(&m, versions_text(&m, other_alias->versions) > 1 ? " read" : " reads");
		sc_buf_printf(&m, " it as '%s'; fast_agent_version in skillci.yml chooses the "
			      "version)", other_alias->target);
	} else {
		if (prov)
			near_prov = closest(prov, true, &dp);
		near_all = closest(spec, false, &da);
		if (prov)
			sc_buf_printf(&m, "unknown provider '%s' in model name '%s', which is no alias "
				      "either", prov, name);
		else
			sc_buf_printf(&m, "unknown model '%s': not an alias, a known model or "
				      "PROVIDER.MODEL", name);
		if (near_prov && dp <= da)
			sc_buf_printf(&m, " (did you mean '%s.%s'?)", near_prov, dot + 1);
		else if (near_all)
			sc_buf_printf(&m, " (did you mean '%s'?)", near_all);
	}
	known_list(&m);
	err = sc_error_set(SC_EINVAL, "%s", m.ptr);
	sc_buf_release(&m);
	free(prov);
	return err;
}

/*
 * The replacement for NAME.EFFORT: the name without the suffix, with
 * ?reasoning=EFFORT before the settings it had ("sonnet.high?top_p=0.9" ->
 * "sonnet?reasoning=high&top_p=0.9"); route: the ":ROUTE" the effort stood
 * before, kept.
 */
static void reasoning_instead(struct sc_buf *out, const char *base, size_t len,
			      const char *effort, const char *route, const char *query)
{
	sc_buf_put(out, base, len);
	if (route)
		sc_buf_printf(out, ":%s", route);
	sc_buf_printf(out, "?reasoning=%s", effort);
	if (query && *query)
		sc_buf_printf(out, "&%s", query);
}

/* Characters a model name may not hold (it becomes JSON, a URL part, a file line). */
static bool name_chars_ok(const char *name)
{
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == '"' || *p == '\\' || (unsigned char)*p >= 0x7f)
			return false;
	return true;
}

/* An Azure deployment name goes into the URL path. */
static bool deployment_ok(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

/* ---- reading a name ---------------------------------------------------------- */

/*
 * A provider name of s[0..len): fast-agent's of the grammar's version (fa
 * set, kind its table's or -1), the oracle or a named endpoint (fa NULL).
 */
struct prov {
	const struct fa_provider *fa;
	int kind;
};

static bool provider_named(struct prov *out, const char *s, size_t len)
{
	char *n;
	int kind;

	if (!len)
		return false;
	out->fa = fa_provider_of(s, len, false);
	if (out->fa) {
		out->kind = out->fa->kind;
		return true;
	}
	n = sc_xstrndup(s, len);
	kind = sc_provider_find(n);
	free(n);
	if (kind == SC_PROVIDER_ORACLE || kind >= SC_PROVIDER_BUILTINS) {
		out->kind = kind;
		return true;
	}
	return false;
}

/* fast-agent's default provider of a bare model name, or NULL. */
static const char *bare_provider(const char *model, size_t len)
{
	for (size_t i = 0; i < sc_fa_nbare; i++) {
		const struct sc_fa_bare *b = &sc_fa_bare[i];
		if (!(b->versions & gbit()) || strlen(b->name) != len)
			continue;
		/* 0.4.x looks DEFAULT_PROVIDERS up exactly, later versions in lower case */
		if (old_grammar() ? !strncmp(b->name, model, len) : !strncasecmp(b->name, model, len))
			return b->provider;
	}
	return NULL;
}

/*
 * The provider and model of spec, as fast-agent resolves them: a provider
 * before the first '/', else before the first '.', else the default
 * provider of the bare model name. *model points into spec.
 */
static bool resolve(struct prov *p, const char **model, const char *spec)
{
	const char *slash = strchr(spec, '/'), *dot = strchr(spec, '.'), *fa;

	if (slash && slash > spec && slash[1] && provider_named(p, spec, (size_t)(slash - spec))) {
		*model = slash + 1;
		return true;
	}
	if (provider_named(p, spec, dot ? (size_t)(dot - spec) : strlen(spec))) {
		*model = dot ? dot + 1 : spec + strlen(spec);
		return true;
	}
	fa = bare_provider(spec, strlen(spec));
	if (!fa && gbit() == SC_FA_V0_10_48 && strrchr(spec, ':'))
		fa = bare_provider(spec, (size_t)(strrchr(spec, ':') - spec));  /* 0.10: MODEL:ROUTE */
	if (fa && provider_named(p, fa, strlen(fa))) {
		*model = spec;
		return true;
	}
	return false;
}

/* The last '.'-part of s[0..len), when it is an effort word (any case): its word. */
static const char *effort_suffix(const char *s, size_t len, size_t *dot_at)
{
	char word[16];
	size_t i = len, n;

	while (i > 0 && s[i - 1] != '.')
		i--;
	if (i == 0)
		return NULL;
	n = len - i;
	if (n == 0 || n >= sizeof(word))
		return NULL;
	for (size_t k = 0; k < n; k++)
		word[k] = (char)tolower((unsigned char)s[i + k]);
	word[n] = '\0';
	/* leading and trailing blanks cannot occur: names hold none */
	*dot_at = i - 1;
	return effort_word(word);
}

/*
 * The name without its query, read as fast-agent 0.6 and later read it:
 * ":ROUTE" split off, the alias expanded (its settings into defaults), the
 * route put back, a ".EFFORT" suffix refused with its replacement, then
 * the provider and model resolved. An effort before the route ("hf.m.high:
 * groq") fast-agent reads as part of the model id; skillci refuses it with
 * the replacement instead.
 */
static int read_spec(struct sc_model *out, struct settings *defaults, const char *spec,
		     const char *query, const char *name)
{
	const char *colon = strrchr(spec, ':'), *route = NULL, *model, *suffix;
	const struct sc_fa_preset *alias;
	struct sc_buf expanded = SC_BUF_INIT, fix = SC_BUF_INIT;
	size_t blen = strlen(spec), at;
	struct prov p;
	int err = 0;

	if (colon && colon > spec) {
		blen = (size_t)(colon - spec);
		route = *(colon + 1) ? colon + 1 : NULL;
	}
	alias = preset_of(spec, blen, false);
	if (!alias && route && (suffix = effort_suffix(spec, blen, &at))) {
		reasoning_instead(&fix, spec, at, suffix, route, query);
		err = sc_error_set(SC_EINVAL, "model name '%s': fast-agent %s reads the '.%.*s' "
				   "before ':%s' as part of the model id, not as an effort; write '%s'",
				   name, sc_models_grammar(), (int)(blen - at - 1), spec + at + 1, route,
				   fix.ptr);
		goto done;
	}
	if (alias) {
		const char *q = strchr(alias->target, '?');
		sc_buf_put(&expanded, alias->target, q ? (size_t)(q - alias->target) : strlen(alias->target));
		if (q && (err = parse_query(defaults, q + 1, name)) < 0)
			goto done;
		out->alias = sc_xstrndup(spec, blen);
	} else {
		sc_buf_put(&expanded, spec, blen);
	}
	if (route) {
		char *c = strrchr(expanded.ptr, ':');
		if (c)
			sc_buf_truncate(&expanded, (size_t)(c - expanded.ptr));
		sc_buf_printf(&expanded, ":%s", route);
	}
	if ((suffix = effort_suffix(expanded.ptr, expanded.len, &at))) {
		reasoning_instead(&fix, spec, alias ? blen : at, suffix, NULL, query);
		err = sc_error_set(SC_EINVAL, "model name '%s': the '.%s' suffix is not read since "
				   "fast-agent 0.6.0 (this repository follows fast-agent %s); write '%s'",
				   name, expanded.ptr + at + 1, sc_models_grammar(), fix.ptr);
		goto done;
	}
	if (!resolve(&p, &model, expanded.ptr)) {
		err = unknown(name, expanded.ptr);
		goto done;
	}
	out->kind = p.kind;
	if (p.fa && p.kind < 0) {
		err = sc_error_set(SC_EINVAL, "model name '%s': provider '%s' is not one skillci speaks: "
				   "%s", name, p.fa->name, p.fa->refusal);
		goto done;
	}
	out->id = sc_xstrdup(model);
done:
	sc_buf_release(&expanded);
	sc_buf_release(&fix);
	return err;
}

/*
 * The same as fast-agent 0.4.x reads it: ":ROUTE" split off, the alias
 * expanded (0.4 aliases carry no settings), PROVIDER/ taken, a last
 * ".EFFORT" taken as the effort (the query's reasoning then is one too
 * many), the provider before the first '.', else the bare name's default
 * provider; the route goes back on the model id.
 */
static int read_spec_old(struct sc_model *out, struct settings *user, const char *spec,
			 const char *query, const char *name)
{
	const char *colon = strrchr(spec, ':'), *route = NULL, *target, *rest, *dot, *fa, *eff;
	struct sc_buf s = SC_BUF_INIT, fix = SC_BUF_INIT;
	struct prov p;
	bool have = false;
	size_t blen = strlen(spec), at, mlen;
	int err = 0;

	if (colon && colon > spec) {
		blen = (size_t)(colon - spec);
		route = *(colon + 1) ? colon + 1 : NULL;
	}
	sc_buf_put(&s, spec, blen);
	if ((target = alias_target(s.ptr))) {
		out->alias = sc_xstrdup(s.ptr);
		sc_buf_clear(&s);
		sc_buf_puts(&s, target);
	}
	if (route && strchr(s.ptr, ':'))  /* the route given replaces the one there */
		sc_buf_truncate(&s, (size_t)(strrchr(s.ptr, ':') - s.ptr));
	rest = s.ptr;
	{
		const char *slash = strchr(rest, '/');
		if (slash && slash > rest && slash[1] && provider_named(&p, rest, (size_t)(slash - rest))) {
			have = true;
			rest = slash + 1;
		}
	}
	mlen = strlen(rest);
	if ((eff = effort_suffix(rest, mlen, &at))) {
		if (user->set & SET_REASONING) {
			err = sc_error_set(SC_EINVAL, "model name '%s' sets the reasoning twice (a '.%s' "
					   "suffix and ?reasoning=)", name, eff);
			goto done;
		}
		user->set |= SET_REASONING;
		user->effort = eff;
		user->budget = 0;
		mlen = at;
	}
	if (!have) {
		dot = memchr(rest, '.', mlen);
		if (provider_named(&p, rest, dot ? (size_t)(dot - rest) : mlen)) {
			/* the model is what follows the provider's dot: nothing without one */
			size_t skip = dot ? (size_t)(dot + 1 - rest) : mlen;
			have = true;
			rest += skip;
			mlen -= skip;
		} else if ((fa = bare_provider(rest, mlen)) && provider_named(&p, fa, strlen(fa))) {
			have = true;
		}
	}
	if (!have) {
		char *m = sc_xstrndup(rest, mlen);
		if (eff && alias_target(m)) {
			reasoning_instead(&fix, m, mlen, eff, route, query);
			err = sc_error_set(SC_EINVAL, "model name '%s': fast-agent %s reads no effort after "
					   "an alias; write '%s'", name, sc_models_grammar(), fix.ptr);
		} else {
			err = unknown(name, m);
		}
		free(m);
		goto done;
	}
	out->kind = p.kind;
	if (p.fa && p.kind < 0) {
		err = sc_error_set(SC_EINVAL, "model name '%s': provider '%s' is not one skillci speaks: "
				   "%s", name, p.fa->name, p.fa->refusal);
		goto done;
	}
	{
		struct sc_buf id = SC_BUF_INIT;
		sc_buf_put(&id, rest, mlen);
		if (route)
			sc_buf_printf(&id, ":%s", route);
		out->id = sc_buf_detach(&id, NULL);
	}
done:
	sc_buf_release(&s);
	sc_buf_release(&fix);
	return err;
}

/* The Responses API models fast-agent's model database gives no flex tier. */
static const struct { const char *model; unsigned versions; } no_flex[] = {
	{ "gpt-5.1-codex", SC_FA_V0_6_7 },
	{ "gpt-5.3-codex", SC_FA_V0_6_7 | SC_FA_V0_10_48 },
	{ "gpt-5.3-codex-spark", SC_FA_V0_6_7 | SC_FA_V0_10_48 },
	{ "gpt-5.3-chat-latest", SC_FA_V0_6_7 | SC_FA_V0_10_48 },
	{ "chat-latest", SC_FA_V0_10_48 },
};

/*
 * What fast-agent checks once the model is known: instant= only for
 * moonshotai/kimi-k2.5, and then as the reasoning toggle (so never beside
 * a reasoning setting); transport=websocket or auto only for the providers
 * that have one; service_tier=fast not for Google (0.10), flex not for the
 * Responses models its database gives the fast tier only.
 */
static int check_settings(struct settings *s, const struct sc_model *m, const char *fa_name,
			  const char *name)
{
	if (s->set & SET_INSTANT) {
		const char *colon = strrchr(m->id, ':');
		size_t n = colon ? (size_t)(colon - m->id) : strlen(m->id);
		if (s->set & SET_REASONING)
			return sc_error_set(SC_EINVAL, "model name '%s' sets the reasoning twice "
					    "(instant= and reasoning=, or the alias's reasoning)", name);
		if (n != strlen("moonshotai/kimi-k2.5") || strncasecmp(m->id, "moonshotai/kimi-k2.5", n))
			return sc_error_set(SC_EINVAL, "model name '%s': instant= is only for "
					    "moonshotai/kimi-k2.5, not '%s'", name, m->id);
		s->set |= SET_REASONING;
		s->effort = s->instant ? "off" : "on";
		s->budget = 0;
	}
	if ((s->set & SET_TRANSPORT) && strcmp(s->transport, "sse")) {
		bool ok = gbit() != SC_FA_V0_4_53 && fa_name &&
			  (!strcmp(fa_name, "responses") ||
			   (gbit() == SC_FA_V0_10_48 && !strcmp(fa_name, "xai")));
		if (!ok)
			return sc_error_set(SC_EINVAL, "model name '%s': transport=%s is only for "
					    "fast-agent %s's Responses API providers", name, s->transport,
					    sc_models_grammar());
	}
	if ((s->set & SET_SERVICE_TIER) && gbit() == SC_FA_V0_10_48 && fa_name &&
	    !strcmp(fa_name, "google") && !strcmp(s->service_tier, "fast"))
		return sc_error_set(SC_EINVAL, "model name '%s': google takes service_tier=flex only",
				    name);
	if ((s->set & SET_SERVICE_TIER) && !strcmp(s->service_tier, "flex") && fa_name &&
	    !strcmp(fa_name, "responses")) {
		for (size_t i = 0; i < SC_ARRAY_SIZE(no_flex); i++)
			if ((no_flex[i].versions & gbit()) && !strcasecmp(m->id, no_flex[i].model))
				return sc_error_set(SC_EINVAL, "model name '%s': %s takes service_tier=fast "
						    "or none, not flex", name, m->id);
	}
	return 0;
}

/* The fast-agent provider name a model's provider part was (NULL: oracle, endpoint). */
static const char *fa_name_of(const char *spec, const struct sc_model *m)
{
	const char *dot = strchr(spec, '.'), *slash = strchr(spec, '/');
	const struct fa_provider *fa;

	if (slash && (!dot || slash < dot) && (fa = fa_provider_of(spec, (size_t)(slash - spec), false)))
		return fa->name;
	if (dot && (fa = fa_provider_of(spec, (size_t)(dot - spec), false)))
		return fa->name;
	for (size_t i = 0; i < SC_ARRAY_SIZE(fa_providers); i++)
		if (fa_providers[i].kind == m->kind && (fa_providers[i].versions & gbit()))
			return fa_providers[i].name;
	return NULL;
}

/* A %g number: 1, 0.95. */
static void put_num(struct sc_buf *out, double x)
{
	sc_buf_printf(out, "%.6g", x);
}

/*
 * PROVIDER.ID[?reasoning=...&verbosity=...&structured=...&context=1m
 * &service_tier=...&web_search=on&web_fetch=on&temperature=...&top_p=...
 * &top_k=...&min_p=...&presence_penalty=...&repetition_penalty=...
 * &max_tokens=...]: the settings in a fixed order, the reasoning always as
 * ?reasoning= (every supported fast-agent reads it), an effort word, on,
 * off or a budget. A transport and settings turned off (web_search=off)
 * change no request here and are left out.
 */
static char *canonical(const struct sc_model *m)
{
	struct sc_buf b = SC_BUF_INIT;
	char sep = '?';

#define NEXT(key) (sc_buf_printf(&b, "%c%s=", sep, key), sep = '&')
	sc_buf_printf(&b, "%s.%s", sc_provider_name(m->kind), m->id);
	if (m->budget) {
		NEXT("reasoning");
		sc_buf_printf(&b, "%d", m->budget);
	} else if (m->effort) {
		NEXT("reasoning");
		sc_buf_puts(&b, m->effort);
	}
	if (m->verbosity)
		NEXT("verbosity"), sc_buf_puts(&b, m->verbosity);
	if (m->structured)
		NEXT("structured"), sc_buf_puts(&b, m->structured);
	if ((m->has & SC_MODEL_HAS_CONTEXT) && m->long_context)
		NEXT("context"), sc_buf_puts(&b, "1m");
	if (m->service_tier)
		NEXT("service_tier"), sc_buf_puts(&b, m->service_tier);
	if ((m->has & SC_MODEL_HAS_WEB_SEARCH) && m->web_search)
		NEXT("web_search"), sc_buf_puts(&b, "on");
	if ((m->has & SC_MODEL_HAS_WEB_FETCH) && m->web_fetch)
		NEXT("web_fetch"), sc_buf_puts(&b, "on");
	if (m->temperature >= 0)
		NEXT("temperature"), put_num(&b, m->temperature);
	if (m->top_p >= 0)
		NEXT("top_p"), put_num(&b, m->top_p);
	if (m->has & SC_MODEL_HAS_TOP_K)
		NEXT("top_k"), sc_buf_printf(&b, "%d", m->top_k);
	if (m->has & SC_MODEL_HAS_MIN_P)
		NEXT("min_p"), put_num(&b, m->min_p);
	if (m->has & SC_MODEL_HAS_PRESENCE)
		NEXT("presence_penalty"), put_num(&b, m->presence_penalty);
	if (m->has & SC_MODEL_HAS_REPETITION)
		NEXT("repetition_penalty"), put_num(&b, m->repetition_penalty);
	if (m->max_tokens)
		NEXT("max_tokens"), sc_buf_printf(&b, "%d", m->max_tokens);
#undef NEXT
	return sc_buf_detach(&b, NULL);
}

/* Reads name into out (released on error). */
static int parse(struct sc_model *out, const char *name)
{
	struct settings user, defaults;
	const char *q = strchr(name, '?'), *fa_name;
	char *spec = q ? sc_xstrndup(name, (size_t)(q - name)) : sc_xstrdup(name);
	int err;

	memset(&user, 0, sizeof(user));
	memset(&defaults, 0, sizeof(defaults));
	if (!*spec) {
		err = sc_error_set(SC_EINVAL, "model name '%s' has no model before its settings", name);
		goto done;
	}
	if (q && (err = parse_query(&user, q + 1, name)) < 0)
		goto done;
	if (old_grammar())
		err = read_spec_old(out, &user, spec, q ? q + 1 : NULL, name);
	else
		err = read_spec(out, &defaults, spec, q ? q + 1 : NULL, name);
	if (err < 0)
		goto done;
	if (!*out->id && out->kind != SC_PROVIDER_ORACLE) {
		err = sc_error_set(SC_EINVAL, "model name '%s' has no model (expected %s.MODEL)", name,
				   sc_provider_name(out->kind));
		goto done;
	}
	if (!*out->id) {
		free(out->id);
		out->id = sc_xstrdup("reference");
	}
	settings_merge(&user, &defaults);
	fa_name = fa_name_of(spec, out);
	if ((err = check_settings(&user, out, fa_name, name)) < 0)
		goto done;
	settings_apply(out, &user);
	if (sc_provider_get(out->kind)->azure && !deployment_ok(out->id))
		err = sc_error_set(SC_EINVAL, "model name '%s': '%s' is not an Azure deployment "
				   "name (letters, digits, '-', '_', '.')", name, out->id);
done:
	free(spec);
	return err;
}

int sc_model_parse(struct sc_model *out, const char *name)
{
	int err;

	model_init(out);
	if (!name || !*name)
		return sc_error_set(SC_EINVAL, "empty model name (expected PROVIDER.MODEL or an alias "
				    "such as haiku, sonnet, gpt-5.1, kimi)");
	if (!name_chars_ok(name))
		return sc_error_set(SC_EINVAL, "model name '%s' has a character that is not allowed",
				    name);
	if ((err = parse(out, name)) < 0) {
		sc_model_release(out);
		return err;
	}
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

/* The reading as JSON, in fa_parse.py's shape (tests/parity). */
void sc_model_json(struct sc_buf *out, const struct sc_model *m)
{
	cJSON *o = cJSON_CreateObject(), *r;

#define NUM_OR_NULL(key, cond, x) \
	((cond) ? (void)cJSON_AddNumberToObject(o, key, x) : (void)cJSON_AddNullToObject(o, key))
#define STR_OR_NULL(key, s) ((s) ? (void)cJSON_AddStringToObject(o, key, s) : (void)cJSON_AddNullToObject(o, key))
#define BOOL_OR_NULL(key, bit, v) \
	((m->has & (bit)) ? (void)cJSON_AddBoolToObject(o, key, v) : (void)cJSON_AddNullToObject(o, key))
	cJSON_AddStringToObject(o, "provider", sc_provider_name(m->kind));
	cJSON_AddStringToObject(o, "model", m->id);
	if (m->budget) {
		r = cJSON_AddObjectToObject(o, "reasoning");
		cJSON_AddStringToObject(r, "kind", "budget");
		cJSON_AddNumberToObject(r, "value", m->budget);
	} else if (m->effort && (!strcmp(m->effort, "on") || !strcmp(m->effort, "off"))) {
		r = cJSON_AddObjectToObject(o, "reasoning");
		cJSON_AddStringToObject(r, "kind", "toggle");
		cJSON_AddBoolToObject(r, "value", !strcmp(m->effort, "on"));
	} else if (m->effort) {
		r = cJSON_AddObjectToObject(o, "reasoning");
		cJSON_AddStringToObject(r, "kind", "effort");
		cJSON_AddStringToObject(r, "value", m->effort);
	} else {
		cJSON_AddNullToObject(o, "reasoning");
	}
	STR_OR_NULL("verbosity", m->verbosity);
	STR_OR_NULL("structured", m->structured);
	BOOL_OR_NULL("long_context", SC_MODEL_HAS_CONTEXT, m->long_context);
	STR_OR_NULL("transport", m->transport);
	STR_OR_NULL("service_tier", m->service_tier);
	BOOL_OR_NULL("web_search", SC_MODEL_HAS_WEB_SEARCH, m->web_search);
	BOOL_OR_NULL("web_fetch", SC_MODEL_HAS_WEB_FETCH, m->web_fetch);
	NUM_OR_NULL("temperature", m->temperature >= 0, m->temperature);
	NUM_OR_NULL("top_p", m->top_p >= 0, m->top_p);
	NUM_OR_NULL("top_k", m->has & SC_MODEL_HAS_TOP_K, m->top_k);
	NUM_OR_NULL("min_p", m->has & SC_MODEL_HAS_MIN_P, m->min_p);
	NUM_OR_NULL("presence_penalty", m->has & SC_MODEL_HAS_PRESENCE, m->presence_penalty);
	NUM_OR_NULL("repetition_penalty", m->has & SC_MODEL_HAS_REPETITION, m->repetition_penalty);
	NUM_OR_NULL("max_tokens", m->max_tokens > 0, m->max_tokens);
	STR_OR_NULL("canonical", m->name);
#undef NUM_OR_NULL
#undef STR_OR_NULL
#undef BOOL_OR_NULL
	sc_json_print(out, o, false);
	cJSON_Delete(o);
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
#define CHAT (P(SC_PROVIDER_OPENAI) | P(SC_PROVIDER_AZURE))
#define RESP P(SC_PROVIDER_RESPONSES)
#define OAI (CHAT | RESP)
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
	/* OpenAI: reasoning models take no temperature or top_p; the Codex
	 * models and gpt-5.4 only on the Responses API */
	{ RESP, "gpt-5.1-codex", F_NO_SAMPLING | F_VERBOSITY, " low medium high xhigh ", 128000, NULL },
	{ RESP, "gpt-5.2-codex", F_NO_SAMPLING | F_VERBOSITY, " low medium high xhigh ", 128000, NULL },
	{ RESP, "gpt-5.3-codex", F_NO_SAMPLING | F_VERBOSITY, " low medium high xhigh ", 128000, NULL },
	{ RESP, "gpt-5-codex", F_NO_SAMPLING | F_VERBOSITY, " low medium high ", 128000, NULL },
	{ RESP, "gpt-5.4", F_NO_SAMPLING | F_VERBOSITY, " none low medium high xhigh ", 128000, NULL },
	{ CHAT, "gpt-5.1-codex", 0, NULL, 0, "is served only by OpenAI's Responses API; name it responses.MODEL" },
	{ CHAT, "gpt-5.2-codex", 0, NULL, 0, "is served only by OpenAI's Responses API; name it responses.MODEL" },
	{ CHAT, "gpt-5.3-codex", 0, NULL, 0, "is served only by OpenAI's Responses API; name it responses.MODEL" },
	{ CHAT, "gpt-5-codex", 0, NULL, 0, "is served only by OpenAI's Responses API; name it responses.MODEL" },
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
#undef RESP
#undef CHAT
#undef ANTH
#undef P
};

static void sc_model_caps(struct sc_model_caps *out, const struct sc_model *m)
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

/*
 * What a reasoning setting asks of the provider: DeepSeek takes none (it
 * reasons through the model deepseek-reasoner), a token budget needs
 * Anthropic's thinking or OpenRouter's reasoning object, a thinking budget
 * is at least the Messages API's minimum. Returns err, or the refusal when
 * err is 0.
 */
static int shape_reasoning_checks(const struct sc_model *m, const struct sc_chat_request *req,
				  const struct sc_provider_info *p, int err)
{
	bool reasoning = m->budget || (m->effort && strcmp(m->effort, "none") &&
				       strcmp(m->effort, "off") && strcmp(m->effort, "auto"));

	if (err)
		return err;
	if (p->effort == SC_EFFORT_UNSUPPORTED && reasoning)
		return refuse(m, req, "%s takes no reasoning setting (DeepSeek reasons with the model "
			      "deepseek.deepseek-reasoner)", p->name);
	if (m->budget && p->effort == SC_EFFORT_REASONING_EFFORT)
		return refuse(m, req, "a token budget (?reasoning=%d) needs an Anthropic or OpenRouter "
			      "model; use an effort word (minimal, low, medium, high, xhigh) for %s",
			      m->budget, p->name);
	if (m->budget && p->effort == SC_EFFORT_THINKING && m->budget < MIN_THINKING_BUDGET)
		return refuse(m, req, "a thinking budget must be at least %d tokens",
			      MIN_THINKING_BUDGET);
	return 0;
}

/*
 * The sampling settings each provider takes (SC_MODEL_HAS_ bits): the
 * Messages API top_k; OpenAI's chat completions and the compatible APIs
 * that document it presence_penalty; the routers and servers that pass
 * the rest through (the Hugging Face router, OpenRouter, generic servers
 * such as vLLM, Alibaba's DashScope, named OpenAI-wire endpoints) all
 * four; the Responses API and Gemini's compatible endpoint none.
 */
static unsigned sampling_taken(const struct sc_model *m, const struct sc_provider_info *p)
{
	const unsigned all = SC_MODEL_HAS_TOP_K | SC_MODEL_HAS_MIN_P | SC_MODEL_HAS_PRESENCE |
			     SC_MODEL_HAS_REPETITION;

	if (p->wire == SC_WIRE_ANTHROPIC)
		return SC_MODEL_HAS_TOP_K;
	if (p->wire != SC_WIRE_OPENAI)
		return 0;
	if (p->endpoint)
		return all;
	switch (m->kind) {
	case SC_PROVIDER_HF: case SC_PROVIDER_OPENROUTER: case SC_PROVIDER_GENERIC:
	case SC_PROVIDER_ALIYUN:
		return all;
	case SC_PROVIDER_GOOGLE:
		return 0;
	default:
		return SC_MODEL_HAS_PRESENCE;
	}
}

/*
 * fast-agent 0.6's other settings, sent where the provider takes them and
 * refused (naming the provider) where it does not: top_k, min_p,
 * presence_penalty, repetition_penalty (sampling_taken); service_tier
 * (OpenAI's chat completions and Responses API: fast is "priority"); the
 * server-side web_search tool (Anthropic, the Responses API) and web_fetch
 * (Anthropic, a beta); the 1M context (Anthropic, a beta header). A
 * transport and structured= change no request.
 */
static int shape_other(struct sc_request_shape *out, const struct sc_model *m,
		       const struct sc_chat_request *req, const struct sc_provider_info *p, int err)
{
	static const struct { unsigned bit; const char *key; } sampling[] = {
		{ SC_MODEL_HAS_TOP_K, "top_k" }, { SC_MODEL_HAS_MIN_P, "min_p" },
		{ SC_MODEL_HAS_PRESENCE, "presence_penalty" },
		{ SC_MODEL_HAS_REPETITION, "repetition_penalty" },
	};
	unsigned taken = sampling_taken(m, p);
	bool anthropic = p->wire == SC_WIRE_ANTHROPIC;
	bool context = (m->has & SC_MODEL_HAS_CONTEXT) && m->long_context;
	bool fetch = (m->has & SC_MODEL_HAS_WEB_FETCH) && m->web_fetch;

	for (size_t i = 0; i < SC_ARRAY_SIZE(sampling); i++) {
		if (!(m->has & sampling[i].bit))
			continue;
		if (!(taken & sampling[i].bit)) {
			if (!err)
				err = refuse(m, req, "%s takes no %s; leave it out", p->name,
					     sampling[i].key);
			continue;
		}
		out->has |= sampling[i].bit;
	}
	out->top_k = m->top_k;
	out->min_p = m->min_p;
	out->presence_penalty = m->presence_penalty;
	out->repetition_penalty = m->repetition_penalty;
	if ((out->has & SC_MODEL_HAS_TOP_K) && out->thinking_budget > 0) {
		if (!err)
			err = refuse(m, req, "extended thinking takes no top_k; leave it out or turn "
				     "thinking off (?reasoning=off)");
		out->has &= ~SC_MODEL_HAS_TOP_K;
	}
	if (m->service_tier) {
		if (m->kind == SC_PROVIDER_OPENAI || m->kind == SC_PROVIDER_RESPONSES)
			out->service_tier = !strcmp(m->service_tier, "fast") ? "priority" : "flex";
		else if (!err)
			err = refuse(m, req, "service_tier is a setting of OpenAI's APIs (openai, "
				     "responses); %s takes none", p->name);
	}
	if ((m->has & SC_MODEL_HAS_WEB_SEARCH) && m->web_search) {
		if (anthropic || p->wire == SC_WIRE_RESPONSES)
			out->web_search = true;
		else if (!err)
			err = refuse(m, req, "web_search is the server-side search tool of Anthropic's "
				     "and OpenAI's Responses APIs; %s has none", p->name);
	}
	if (fetch && !anthropic && !err)
		err = refuse(m, req, "web_fetch is Anthropic's server-side fetch tool; %s has none",
			     p->name);
	if (context && !anthropic && !err)
		err = refuse(m, req, "context=1m is Anthropic's 1M-token context (a beta); %s has none",
			     p->name);
	if (anthropic) {
		out->web_fetch = fetch;
		out->beta = context && fetch ? "context-1m-2025-08-07,web-fetch-2025-09-10" :
			    context ? "context-1m-2025-08-07" : fetch ? "web-fetch-2025-09-10" : NULL;
	}
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
		err = refuse(m, req, "%s %s", m->id, caps.unsupported);
	err = shape_reasoning_checks(m, req, p, err);

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

	/* reasoning: the toggle off is the effort none */
	if (effort && !strcmp(effort, "off"))
		effort = "none";
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
	return shape_other(out, m, req, p, err);
}
