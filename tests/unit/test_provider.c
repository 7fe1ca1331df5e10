/* Unit tests for model names, request bodies, response parsing and the
 * adaptive concurrency limiter (no network). */
#include "unit.h"
#include "providers/provider.h"

#include <cjson/cJSON.h>

static void test_model_names(void **state)
{
	struct sc_model m;
	(void)state;

	assert_int_equal(sc_model_parse(&m, "haiku"), 0);
	assert_int_equal(m.kind, SC_PROVIDER_ANTHROPIC);
	assert_string_equal(m.id, "claude-haiku-4-5");
	assert_null(m.effort);
	assert_string_equal(m.name, "anthropic.claude-haiku-4-5");
	sc_model_release(&m);

	assert_int_equal(sc_model_parse(&m, "opus?reasoning=high"), 0);
	assert_string_equal(m.id, "claude-opus-4-6");  /* fast-agent 0.6.7 */
	assert_string_equal(m.effort, "high");
	sc_model_release(&m);

	assert_int_equal(sc_model_parse(&m, "openai.gpt-4.1"), 0);
	assert_int_equal(m.kind, SC_PROVIDER_OPENAI);
	assert_string_equal(m.id, "gpt-4.1");  /* a dot inside the model is kept */
	assert_null(m.effort);
	sc_model_release(&m);

	assert_int_equal(sc_model_parse(&m, "openai.o3?reasoning=low"), 0);
	assert_string_equal(m.id, "o3");
	assert_string_equal(m.effort, "low");
	sc_model_release(&m);

	assert_int_equal(sc_model_parse(&m, "generic.llama-3.1-8b"), 0);
	assert_int_equal(m.kind, SC_PROVIDER_GENERIC);
	assert_string_equal(m.id, "llama-3.1-8b");
	sc_model_release(&m);

	assert_int_equal(sc_model_parse(&m, "anthropic.claude-sonnet-4-5?reasoning=medium"), 0);
	assert_string_equal(m.name, "anthropic.claude-sonnet-4-5?reasoning=medium");
	sc_model_release(&m);

	assert_int_equal(sc_model_parse(&m, "oracle"), 0);
	assert_int_equal(m.kind, SC_PROVIDER_ORACLE);
	sc_model_release(&m);

	assert_int_equal(sc_model_parse(&m, "bogus.x"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "'bogus'"));
	assert_int_equal(sc_model_parse(&m, "anthropic"), SC_EINVAL);
	assert_int_equal(sc_model_parse(&m, "anthropic."), SC_EINVAL);
	assert_int_equal(sc_model_parse(&m, "openai.high"), SC_EINVAL);
	assert_int_equal(sc_model_parse(&m, "haiku.fast"), SC_EINVAL);
	assert_int_equal(sc_model_parse(&m, ""), SC_EINVAL);
	assert_int_equal(sc_model_parse(&m, "openai.gpt 4"), SC_EINVAL);
}

static cJSON *build(const struct sc_provider_wire *w, const char *name,
		    const struct sc_chat_request *req)
{
	struct sc_model m;
	struct sc_buf body = SC_BUF_INIT;
	cJSON *root;

	assert_int_equal(sc_model_parse(&m, name), 0);
	w->build_body(&body, &m, req);
	root = cJSON_Parse(body.ptr);
	assert_non_null(root);
	sc_model_release(&m);
	sc_buf_release(&body);
	return root;
}

static const struct sc_chat_message turns[] = {
	{ SC_CHAT_USER, "write a kernel" },
	{ SC_CHAT_ASSISTANT, "here it is" },
	{ SC_CHAT_USER, "it failed to compile: line 3" },
};

static void test_anthropic_body_multi_turn(void **state)
{
	struct sc_chat_request req = { .system = "you are a skill", .messages = turns,
				       .nmessages = 3, .max_tokens = 1000, .temperature = 0.5 };
	cJSON *root, *msgs;
	(void)state;

	root = build(&sc_wire_anthropic, "sonnet", &req);
	assert_string_equal(cJSON_GetObjectItem(root, "model")->valuestring, "claude-sonnet-4-6");
	assert_string_equal(cJSON_GetObjectItem(root, "system")->valuestring, "you are a skill");
	assert_int_equal(cJSON_GetObjectItem(root, "max_tokens")->valueint, 1000);
	assert_true(cJSON_GetObjectItem(root, "temperature")->valuedouble == 0.5);
	assert_null(cJSON_GetObjectItem(root, "thinking"));
	msgs = cJSON_GetObjectItem(root, "messages");
	assert_int_equal(cJSON_GetArraySize(msgs), 3);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 1), "role")->valuestring, "assistant");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 2), "content")->valuestring,
			    "it failed to compile: line 3");
	cJSON_Delete(root);

	/* an effort turns on thinking with its budget on top of max_tokens, no temperature */
	root = build(&sc_wire_anthropic, "sonnet?reasoning=high", &req);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "thinking"), "budget_tokens")->valueint,
			 sc_provider_thinking_budget("high"));
	assert_int_equal(cJSON_GetObjectItem(root, "max_tokens")->valueint,
			 1000 + sc_provider_thinking_budget("high"));
	assert_null(cJSON_GetObjectItem(root, "temperature"));
	cJSON_Delete(root);
}

static void test_openai_body_multi_turn(void **state)
{
	struct sc_chat_request req = { .system = "sys", .messages = turns, .nmessages = 3,
				       .max_tokens = 77, .temperature = -1 };
	cJSON *root, *msgs;
	(void)state;

	root = build(&sc_wire_openai, "openai.o3?reasoning=medium", &req);
	msgs = cJSON_GetObjectItem(root, "messages");
	assert_int_equal(cJSON_GetArraySize(msgs), 4);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 0), "role")->valuestring, "system");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 0), "content")->valuestring, "sys");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, 2), "role")->valuestring, "assistant");
	assert_int_equal(cJSON_GetObjectItem(root, "max_completion_tokens")->valueint, 77);
	assert_string_equal(cJSON_GetObjectItem(root, "reasoning_effort")->valuestring, "medium");
	assert_null(cJSON_GetObjectItem(root, "temperature"));
	cJSON_Delete(root);

	root = build(&sc_wire_openai, "generic.qwen", &req);
	assert_int_equal(cJSON_GetObjectItem(root, "max_tokens")->valueint, 77);
	assert_null(cJSON_GetObjectItem(root, "max_completion_tokens"));
	cJSON_Delete(root);
}

/* Aliases, routes, settings and the canonical spelling of each. */
static void test_model_strings(void **state)
{
	static const struct { const char *in, *canon; int kind; const char *id; } ok[] = {
		{ "kimi", "hf.moonshotai/Kimi-K2-Instruct-0905:groq", SC_PROVIDER_HF,
		  "moonshotai/Kimi-K2-Instruct-0905:groq" },
		{ "kimi:together", "hf.moonshotai/Kimi-K2-Instruct-0905:together", SC_PROVIDER_HF,
		  "moonshotai/Kimi-K2-Instruct-0905:together" },
		{ "gpt-4.1", "openai.gpt-4.1", SC_PROVIDER_OPENAI, "gpt-4.1" },
		{ "gpt-4.1?reasoning=high", "openai.gpt-4.1?reasoning=high", SC_PROVIDER_OPENAI,
		  "gpt-4.1" },
		{ "o3-mini", "responses.o3-mini", SC_PROVIDER_RESPONSES, "o3-mini" },
		{ "codex", "responses.gpt-5.3-codex", SC_PROVIDER_RESPONSES, "gpt-5.3-codex" },
		{ "gpt-4o", "openai.gpt-4o", SC_PROVIDER_OPENAI, "gpt-4o" },
		{ "openai/gpt-4.1", "openai.gpt-4.1", SC_PROVIDER_OPENAI, "gpt-4.1" },
		{ "sonnet?reasoning=high", "anthropic.claude-sonnet-4-6?reasoning=high",
		  SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-6" },
		{ "sonnet?reasoning=HIGH", "anthropic.claude-sonnet-4-6?reasoning=high",
		  SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-6" },
		{ "haiku?reasoning=4096", "anthropic.claude-haiku-4-5?reasoning=4096",
		  SC_PROVIDER_ANTHROPIC, "claude-haiku-4-5" },
		{ "haiku?reasoning=off", "anthropic.claude-haiku-4-5?reasoning=off",
		  SC_PROVIDER_ANTHROPIC, "claude-haiku-4-5" },
		{ "haiku?reasoning=none", "anthropic.claude-haiku-4-5?reasoning=none",
		  SC_PROVIDER_ANTHROPIC, "claude-haiku-4-5" },
		{ "generic.llama3.2:latest", "generic.llama3.2:latest", SC_PROVIDER_GENERIC,
		  "llama3.2:latest" },
		{ "hf.Qwen/Qwen3-8B:nebius?temperature=0.6&top_p=0.95&reasoning=on",
		  "hf.Qwen/Qwen3-8B:nebius?reasoning=on&temperature=0.6&top_p=0.95", SC_PROVIDER_HF,
		  "Qwen/Qwen3-8B:nebius" },
		{ "openrouter.anthropic/claude-sonnet-4.5", "openrouter.anthropic/claude-sonnet-4.5",
		  SC_PROVIDER_OPENROUTER, "anthropic/claude-sonnet-4.5" },
		{ "google.gemini-2.5-flash?reasoning=low", "google.gemini-2.5-flash?reasoning=low",
		  SC_PROVIDER_GOOGLE, "gemini-2.5-flash" },
		{ "googleoai.gemini-2.5-flash", "google.gemini-2.5-flash", SC_PROVIDER_GOOGLE,
		  "gemini-2.5-flash" },
		{ "gemini25pro", "google.gemini-2.5-pro", SC_PROVIDER_GOOGLE, "gemini-2.5-pro" },
		{ "deepseek", "deepseek.deepseek-chat", SC_PROVIDER_DEEPSEEK, "deepseek-chat" },
		{ "deepseek.deepseek-reasoner", "deepseek.deepseek-reasoner", SC_PROVIDER_DEEPSEEK,
		  "deepseek-reasoner" },
		{ "grok-3-mini?reasoning=high", "xai.grok-3-mini?reasoning=high", SC_PROVIDER_XAI,
		  "grok-3-mini" },
		{ "aliyun.qwen-plus", "aliyun.qwen-plus", SC_PROVIDER_ALIYUN, "qwen-plus" },
		{ "qwen-turbo", "aliyun.qwen-turbo", SC_PROVIDER_ALIYUN, "qwen-turbo" },
		/* an alias's own settings, and the string's over them */
		{ "qwen35?reasoning=off", "hf.Qwen/Qwen3.5-397B-A17B:novita?reasoning=off&temperature=0.6"
		  "&top_p=0.95&top_k=20&min_p=0&presence_penalty=0&repetition_penalty=1",
		  SC_PROVIDER_HF, "Qwen/Qwen3.5-397B-A17B:novita" },
		{ "sonnet?web_search=on&context=1m&service_tier=fast",
		  "anthropic.claude-sonnet-4-6?context=1m&service_tier=fast&web_search=on",
		  SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-6" },
		/* instant= is Kimi K2.5's reasoning toggle */
		{ "hf.moonshotai/Kimi-K2.5:novita?instant=on", "hf.moonshotai/Kimi-K2.5:novita?reasoning=off",
		  SC_PROVIDER_HF, "moonshotai/Kimi-K2.5:novita" },
		{ "groq.openai/gpt-oss-20b?max_tokens=900", "groq.openai/gpt-oss-20b?max_tokens=900",
		  SC_PROVIDER_GROQ, "openai/gpt-oss-20b" },
		{ "azure.my-gpt4o", "azure.my-gpt4o", SC_PROVIDER_AZURE, "my-gpt4o" },
		{ "oracle.self", "oracle.self", SC_PROVIDER_ORACLE, "self" },
	};
	static const struct { const char *in, *says; } bad[] = {
		{ "sonet", "did you mean 'sonnet'?" },
		{ "antropic.claude-x", "did you mean 'anthropic.claude-x'?" },
		{ "gpt-4.2-turbo-x", "providers: anthropic, openai, azure" },
		{ "qwerty.x", "aliases of fast-agent 0.6.7: chatgpt, claude" },
		{ "sonnet.high", "suffix is not read since fast-agent 0.6.0 (this repository follows "
		  "fast-agent 0.6.7); write 'sonnet?reasoning=high'" },
		{ "openai.o3.high?top_p=0.5", "write 'openai.o3?reasoning=high&top_p=0.5'" },
		{ "hf.org/m.high:groq", "write 'hf.org/m:groq?reasoning=high'" },
		{ "zai.glm-5.2", "fast-agent 0.6.7, whose model names this repository follows, has no "
		  "provider 'zai' (fast-agent 0.10.48 has it" },
		{ "gpt55", "fast-agent 0.10.48 reads it as 'responses.gpt-5.5'" },
		{ "bedrock.anthropic.claude-x", "provider 'bedrock' is not one skillci speaks" },
		{ "codexplan", "provider 'codexresponses' is not one skillci speaks" },
		{ "passthrough", "provider 'fast-agent' is not one skillci speaks" },
		{ "haiku?lite=on", "setting 'lite' is not read by fast-agent 0.6.7" },
		{ "haiku?reasoning=", "needs a value" },
		{ "sonnet?instant=on", "instant= is only for moonshotai/kimi-k2.5" },
		{ "kimi25?instant=on&reasoning=on", "sets the reasoning twice" },
		{ "haiku?transport=websocket", "transport=websocket is only for" },
		{ "haiku?context=2m", "context '2m' is not 1m" },
		{ "haiku?top_k=4.5", "top_k '4.5'" },
		{ "haiku?colour=red", "unknown setting 'colour'" },
		{ "haiku?temperature=hot", "temperature 'hot'" },
		{ "haiku?reasoning=lots", "reasoning 'lots'" },
		{ "azure.a/b", "not an Azure deployment name" },
		{ "?reasoning=high", "no model before" },
	};
	struct sc_model m;
	(void)state;

	for (size_t i = 0; i < SC_ARRAY_SIZE(ok); i++) {
		int err = sc_model_parse(&m, ok[i].in);
		if (err)
			fail_msg("'%s': %s", ok[i].in, sc_error_last());
		assert_string_equal(m.name, ok[i].canon);
		assert_int_equal(m.kind, ok[i].kind);
		assert_string_equal(m.id, ok[i].id);
		sc_model_release(&m);
		/* the canonical name parses to itself */
		assert_int_equal(sc_model_parse(&m, ok[i].canon), 0);
		assert_string_equal(m.name, ok[i].canon);
		sc_model_release(&m);
	}
	assert_int_equal(sc_model_parse(&m, "kimi"), 0);
	assert_string_equal(m.alias, "kimi");
	sc_model_release(&m);
	assert_int_equal(sc_model_parse(&m, "hf.x/y?temperature=0.5&top_p=0.9&max_tokens=12"), 0);
	assert_true(m.temperature == 0.5 && m.top_p == 0.9 && m.max_tokens == 12);
	sc_model_release(&m);
	for (size_t i = 0; i < SC_ARRAY_SIZE(bad); i++) {
		assert_int_equal(sc_model_parse(&m, bad[i].in), SC_EINVAL);
		if (!strstr(sc_error_last(), bad[i].says))
			fail_msg("'%s': '%s' lacks '%s'", bad[i].in, sc_error_last(), bad[i].says);
	}
}

/* fastagent.config.yaml's other provider settings: what is kept, what is refused. */
static void test_file_settings(void **state)
{
	struct sc_model m;
	(void)state;

	sc_providers_reset();
	assert_int_equal(sc_providers_set_file_setting(SC_PROVIDER_AZURE, "api_version",
						       "2024-12-01-preview"), 0);
	assert_string_equal(sc_provider_file_setting(SC_PROVIDER_AZURE, "api_version"),
			    "2024-12-01-preview");
	assert_int_equal(sc_providers_set_file_setting(SC_PROVIDER_AZURE, "resource_name", "my-res"), 0);
	assert_int_equal(sc_providers_set_file_setting(SC_PROVIDER_AZURE, "api_version", "x&y=1"),
			 SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "azure.api_version: 'x&y=1'"));
	assert_int_equal(sc_providers_set_file_setting(SC_PROVIDER_OPENAI, "api_version", "1"),
			 SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "openai: no setting 'api_version'"));

	assert_int_equal(sc_providers_set_file_setting(SC_PROVIDER_OPENROUTER, "default_headers.X-Title",
						       "my skills"), 0);
	assert_string_equal(sc_provider_file_header(SC_PROVIDER_OPENROUTER, 0), "X-Title: my skills");
	assert_null(sc_provider_file_header(SC_PROVIDER_OPENROUTER, 1));
	assert_null(sc_provider_file_header(SC_PROVIDER_OPENAI, 0));
	static const char *const refused[] = { "Authorization", "X-Api-Key", "x-auth-token", "Cookie",
					       "Host", "content-type", "bad header", "" };
	for (size_t i = 0; i < SC_ARRAY_SIZE(refused); i++) {
		char key[64];
		snprintf(key, sizeof(key), "default_headers.%s", refused[i]);
		if (sc_providers_set_file_setting(SC_PROVIDER_OPENROUTER, key, "v") != SC_EINVAL)
			fail_msg("header '%s' was accepted", refused[i]);
	}
	assert_int_equal(sc_providers_set_file_setting(SC_PROVIDER_HF, "default_headers.X-A", "a\r\nB: c"),
			 SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "control character"));

	/* hf.default_provider routes a model named without one, before HF_DEFAULT_PROVIDER */
	setenv("HF_DEFAULT_PROVIDER", "groq", 1);
	assert_int_equal(sc_model_parse(&m, "hf.org/model"), 0);
	assert_string_equal(m.name, "hf.org/model:groq");
	sc_model_release(&m);
	assert_int_equal(sc_providers_set_file_setting(SC_PROVIDER_HF, "default_provider", "together"), 0);
	assert_int_equal(sc_model_parse(&m, "hf.org/model"), 0);
	assert_string_equal(m.name, "hf.org/model:together");
	sc_model_release(&m);
	assert_int_equal(sc_model_parse(&m, "hf.org/model:nebius"), 0);
	assert_string_equal(m.name, "hf.org/model:nebius");
	sc_model_release(&m);
	unsetenv("HF_DEFAULT_PROVIDER");
	sc_providers_reset();
	assert_null(sc_provider_file_setting(SC_PROVIDER_AZURE, "api_version"));
	assert_null(sc_provider_file_header(SC_PROVIDER_OPENROUTER, 0));
	assert_int_equal(sc_model_parse(&m, "hf.org/model"), 0);
	assert_string_equal(m.name, "hf.org/model");
	sc_model_release(&m);
}

/* Named endpoints resolve only once registered, and cannot shadow anything. */
static void test_endpoints(void **state)
{
	struct sc_endpoint lab = { "lab", SC_WIRE_OPENAI, "http://127.0.0.1:9/v1", "LAB_KEY" };
	struct sc_endpoint bad;
	struct sc_model m;
	(void)state;

	sc_providers_reset();
	assert_int_equal(sc_model_parse(&m, "lab.qwen3-coder"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "unknown provider 'lab'"));
	assert_int_equal(sc_providers_add_endpoint(&lab), 0);
	assert_int_equal(sc_model_parse(&m, "lab.qwen3-coder?reasoning=high"), 0);
	assert_int_equal(m.kind, SC_PROVIDER_BUILTINS);
	assert_string_equal(m.name, "lab.qwen3-coder?reasoning=high");
	assert_true(sc_provider_get(m.kind)->local_names);
	assert_string_equal(sc_provider_get(m.kind)->key_env[0], "LAB_KEY");
	sc_model_release(&m);
	/* the closest match includes endpoints */
	assert_int_equal(sc_model_parse(&m, "labb.x"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "did you mean 'lab.x'?"));
	assert_non_null(strstr(sc_error_last(), "generic, oracle, lab;"));

	assert_int_equal(sc_providers_add_endpoint(&lab), SC_EINVAL);  /* twice */
	bad = lab;
	bad.name = "openai";
	assert_int_equal(sc_providers_add_endpoint(&bad), SC_EINVAL);
	bad.name = "kimi";
	assert_int_equal(sc_providers_add_endpoint(&bad), SC_EINVAL);
	bad.name = "bedrock";  /* a fast-agent provider, even one skillci refuses */
	assert_int_equal(sc_providers_add_endpoint(&bad), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "is a fast-agent provider"));
	bad.name = "Lab2";
	assert_int_equal(sc_providers_add_endpoint(&bad), SC_EINVAL);
	bad.name = "lab2";
	bad.base_url = "ftp://x";
	assert_int_equal(sc_providers_add_endpoint(&bad), SC_EINVAL);
	bad.base_url = "http://x";
	bad.wire = SC_WIRE_NONE;
	assert_int_equal(sc_providers_add_endpoint(&bad), SC_EINVAL);
	sc_providers_reset();
	assert_int_equal(sc_model_parse(&m, "lab.qwen3-coder"), SC_EINVAL);
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* Each provider's body: the max tokens field and the reasoning setting. */
static void test_provider_bodies(void **state)
{
	static const struct { const char *model, *max_field, *effort_field, *effort; } cases[] = {
		{ "openai.o3-mini?reasoning=high", "max_completion_tokens", "reasoning_effort", "high" },
		{ "azure.dep?reasoning=low", "max_completion_tokens", "reasoning_effort", "low" },
		{ "groq.qwen/qwen3-32b?reasoning=medium", "max_completion_tokens", "reasoning_effort",
		  "medium" },
		{ "google.gemini-2.5-flash?reasoning=high", "max_tokens", "reasoning_effort", "high" },
		{ "hf.org/m:prov?reasoning=low", "max_tokens", "reasoning_effort", "low" },
		{ "xai.grok-3-mini?reasoning=high", "max_tokens", "reasoning_effort", "high" },
		{ "aliyun.qwen-plus?reasoning=low", "max_tokens", "reasoning_effort", "low" },
		{ "generic.qwen?reasoning=none", "max_tokens", "reasoning_effort", "none" },
		{ "deepseek.deepseek-chat", "max_tokens", NULL, NULL },
		{ "openai.gpt-4.1?reasoning=on", "max_completion_tokens", NULL, NULL },
	};
	struct sc_chat_request req = { .messages = turns, .nmessages = 1, .max_tokens = 321,
				       .temperature = -1 };
	cJSON *root, *r;
	(void)state;

	for (size_t i = 0; i < SC_ARRAY_SIZE(cases); i++) {
		root = build(&sc_wire_openai, cases[i].model, &req);
		if (!cJSON_GetObjectItem(root, cases[i].max_field))
			fail_msg("%s: no %s", cases[i].model, cases[i].max_field);
		assert_int_equal(cJSON_GetObjectItem(root, cases[i].max_field)->valueint, 321);
		assert_int_equal(cJSON_GetArraySize(root), cases[i].effort ? 4 : 3);
		if (cases[i].effort)
			assert_string_equal(jstr(root, cases[i].effort_field), cases[i].effort);
		else
			assert_null(cJSON_GetObjectItem(root, "reasoning_effort"));
		cJSON_Delete(root);
	}
	/* the router's own ids go through as written */
	root = build(&sc_wire_openai, "kimi", &req);
	assert_string_equal(jstr(root, "model"), "moonshotai/Kimi-K2-Instruct-0905:groq");
	cJSON_Delete(root);
	/* OpenRouter's reasoning object: effort, a token budget, or on */
	root = build(&sc_wire_openai, "openrouter.deepseek/deepseek-r1?reasoning=high", &req);
	r = cJSON_GetObjectItem(root, "reasoning");
	assert_string_equal(jstr(r, "effort"), "high");
	assert_null(cJSON_GetObjectItem(root, "reasoning_effort"));
	cJSON_Delete(root);
	root = build(&sc_wire_openai, "openrouter.anthropic/claude-sonnet-4.5?reasoning=2048", &req);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "reasoning"), "max_tokens")->valueint,
			 2048);
	cJSON_Delete(root);
	root = build(&sc_wire_openai, "openrouter.x/y?reasoning=on", &req);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "reasoning"), "enabled")));
	cJSON_Delete(root);
	/* settings in the name: top_p is sent; temperature comes through the request */
	root = build(&sc_wire_openai, "hf.a/b?top_p=0.95", &req);
	assert_true(cJSON_GetObjectItem(root, "top_p")->valuedouble == 0.95);
	cJSON_Delete(root);
	/* Anthropic: an explicit budget, and on as the medium budget */
	root = build(&sc_wire_anthropic, "haiku?reasoning=3000", &req);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "thinking"), "budget_tokens")->valueint,
			 3000);
	assert_int_equal(cJSON_GetObjectItem(root, "max_tokens")->valueint, 321 + 3000);
	cJSON_Delete(root);
	root = build(&sc_wire_anthropic, "haiku?reasoning=on", &req);
	assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(root, "thinking"), "budget_tokens")->valueint,
			 sc_provider_thinking_budget("medium"));
	cJSON_Delete(root);
	root = build(&sc_wire_anthropic, "haiku?reasoning=off", &req);
	assert_null(cJSON_GetObjectItem(root, "thinking"));
	cJSON_Delete(root);
}

/* One reader for every API's error body. */
static bool perr(struct sc_buf *out, const char *body)
{
	return sc_provider_parse_error(out, body, strlen(body));
}

static void test_parse_responses(void **state)
{
	struct sc_chat_response r;
	struct sc_buf msg = SC_BUF_INIT;
	const char *a = "{\"content\":[{\"type\":\"thinking\",\"thinking\":\"hmm\"},"
			"{\"type\":\"text\",\"text\":\"A\"},{\"type\":\"text\",\"text\":\"B\"}],"
			"\"usage\":{\"input_tokens\":123,\"output_tokens\":45,"
			"\"cache_read_input_tokens\":67,\"cache_creation_input_tokens\":8}}";
	const char *o = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":\"hi\"}}],"
			"\"usage\":{\"prompt_tokens\":190,\"completion_tokens\":45,"
			"\"prompt_tokens_details\":{\"cached_tokens\":67}}}";
	(void)state;

	memset(&r, 0, sizeof(r));
	assert_int_equal(sc_wire_anthropic.parse_ok(&r, a, strlen(a)), 0);
	assert_string_equal(r.text, "AB");
	assert_int_equal(r.input_tokens, 123);
	assert_int_equal(r.output_tokens, 45);
	assert_int_equal(r.cache_read_tokens, 67);
	assert_int_equal(r.cache_creation_tokens, 8);
	free(r.text);
	free(r.usage_raw);
	free(r.stop_reason);

	memset(&r, 0, sizeof(r));
	assert_int_equal(sc_wire_openai.parse_ok(&r, o, strlen(o)), 0);
	assert_string_equal(r.text, "hi");
	assert_int_equal(r.input_tokens, 123);
	assert_int_equal(r.cache_read_tokens, 67);
	assert_int_equal(r.output_tokens, 45);
	free(r.text);
	free(r.usage_raw);
	free(r.stop_reason);

	memset(&r, 0, sizeof(r));
	assert_int_equal(sc_wire_anthropic.parse_ok(&r, "{\"x\":1}", 7), SC_EPARSE);
	assert_int_equal(sc_wire_openai.parse_ok(&r, "{\"choices\":[]", 13), SC_EPARSE);
	assert_null(r.text);

	assert_true(perr(&msg,
		"{\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"bad max_tokens\"}}"));
	assert_string_equal(msg.ptr, "invalid_request_error: bad max_tokens");
	sc_buf_clear(&msg);
	assert_true(perr(&msg, "{\"error\":{\"message\":\"no such model\",\"type\":\"invalid_request_error\"}}"));
	assert_string_equal(msg.ptr, "invalid_request_error: no such model");
	sc_buf_clear(&msg);
	assert_true(perr(&msg, "{\"error\":\"model not loaded\"}"));
	assert_string_equal(msg.ptr, "model not loaded");
	sc_buf_clear(&msg);
	assert_true(perr(&msg, "{\"detail\":\"queue full\"}"));
	assert_string_equal(msg.ptr, "queue full");
	sc_buf_clear(&msg);
	assert_true(perr(&msg, "{\"message\":\"overloaded\"}"));
	assert_string_equal(msg.ptr, "overloaded");
	sc_buf_clear(&msg);
	assert_false(perr(&msg, "{\"error\":{\"type\":\"x\"}}"));
	assert_string_equal(msg.ptr, "");
	assert_false(perr(&msg, "<html>"));
	sc_buf_release(&msg);
}

/* Token counts past int64 are no counts (found by tests/fuzz/fuzz_anthropic:
 * the cast was undefined behaviour). */
static void test_parse_huge_counts(void **state)
{
	struct sc_chat_response r;
	const char *a = "{\"content\":[],\"usage\":{\"input_tokens\":1e300,\"output_tokens\":9.3e18}}";
	const char *o = "{\"choices\":[{\"message\":{\"content\":\"x\"}}],"
			"\"usage\":{\"prompt_tokens\":1e300,\"completion_tokens\":2}}";
	(void)state;

	memset(&r, 0, sizeof(r));
	assert_int_equal(sc_wire_anthropic.parse_ok(&r, a, strlen(a)), 0);
	assert_int_equal(r.input_tokens, 0);
	assert_int_equal(r.output_tokens, 0);
	free(r.text);
	free(r.usage_raw);
	free(r.stop_reason);
	memset(&r, 0, sizeof(r));
	assert_int_equal(sc_wire_openai.parse_ok(&r, o, strlen(o)), 0);
	assert_int_equal(r.input_tokens, 0);
	assert_int_equal(r.output_tokens, 2);
	free(r.text);
	free(r.usage_raw);
	free(r.stop_reason);
}

/*
 * The grammar follows one fast-agent version: 0.6.7 by default, another
 * when chosen (the facts below are each version's own tables; the full
 * comparison with fast-agent's parser is tests/e2e/test_parity.sh).
 */
static void test_grammar_versions(void **state)
{
	static const struct {
		const char *version, *in;
		int kind;
		const char *id, *effort;
	} facts[] = {
		/* upskill's pin */
		{ "0.6.7", "sonnet", SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-6", NULL },
		{ "0.6.7", "claude", SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-6", NULL },
		{ "0.6.7", "codex", SC_PROVIDER_RESPONSES, "gpt-5.3-codex", NULL },
		{ "0.6.7", "gpt-5.1", SC_PROVIDER_RESPONSES, "gpt-5.1", NULL },
		{ "0.6.7", "gpt-4.1", SC_PROVIDER_OPENAI, "gpt-4.1", NULL },
		{ "0.6.7", "minimax", SC_PROVIDER_HF, "MiniMaxAI/MiniMax-M2.5:novita", NULL },
		{ "0.6.7", "gpt-oss", SC_PROVIDER_HF, "openai/gpt-oss-120b:sambanova", NULL },
		{ "0.6.7", "kimithink", SC_PROVIDER_HF, "moonshotai/Kimi-K2-Thinking:fireworks-ai", NULL },
		{ "0.6.7", "kimi25", SC_PROVIDER_HF, "moonshotai/Kimi-K2.5:fireworks-ai", "on" },
		{ "0.6.7", "gemini3.1", SC_PROVIDER_GOOGLE, "gemini-3.1-pro-preview", NULL },
		{ "0.6.7", "GPT-4.1", SC_PROVIDER_OPENAI, "GPT-4.1", NULL },  /* bare names in any case */
		{ "0.6.7", "responses/o3?reasoning=low", SC_PROVIDER_RESPONSES, "o3", "low" },
		/* upskill 0.2.1's lock: the .EFFORT suffix, no suffix after an alias */
		{ "0.4.53", "sonnet", SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-5", NULL },
		{ "0.4.53", "codex", SC_PROVIDER_RESPONSES, "gpt-5.2-codex", NULL },
		{ "0.4.53", "gpt-4.1.high", SC_PROVIDER_OPENAI, "gpt-4.1", "high" },
		{ "0.4.53", "responses.gpt-5.1.low", SC_PROVIDER_RESPONSES, "gpt-5.1", "low" },
		{ "0.4.53", "hf.org/m.high:groq", SC_PROVIDER_HF, "org/m:groq", "high" },
		{ "0.4.53", "kimithink", SC_PROVIDER_HF, "moonshotai/Kimi-K2-Thinking:together", NULL },
		/* the newest */
		{ "0.10.48", "sonnet", SC_PROVIDER_ANTHROPIC, "claude-sonnet-5-5", NULL },
		{ "0.10.48", "zai.glm-5.2", SC_PROVIDER_ZAI, "glm-5.2", NULL },
		{ "0.10.48", "kimik3", SC_PROVIDER_MOONSHOT, "kimi-k3", NULL },
		{ "0.10.48", "glm-5.2", SC_PROVIDER_ZAI, "glm-5.2", NULL },
		{ "0.10.48", "opus?reasoning=adaptive", SC_PROVIDER_ANTHROPIC, "claude-opus-5-5", "auto" },
	};
	static const struct { const char *version, *in, *says; } refused[] = {
		{ "0.4.53", "sonnet.high", "fast-agent 0.4.53 reads no effort after an alias; write "
		  "'sonnet?reasoning=high'" },
		{ "0.4.53", "openai.o3.high?reasoning=low", "sets the reasoning twice" },
		{ "0.4.53", "haiku?top_k=3", "setting 'top_k' is not read by fast-agent 0.4.53" },
		{ "0.4.53", "qwen35", "'qwen35' is no alias of fast-agent 0.4.53" },
		{ "0.6.7", "gpt-4.1.high", "write 'gpt-4.1?reasoning=high'" },
		{ "0.6.7", "haiku?long_context=on", "fast-agent 0.10.48 reads it" },
		{ "0.10.48", "haiku?compaction=client", "agent loop" },
		{ "0.10.48", "gpt-5.1?x_search=on", "xAI's X search tool" },
		{ "0.10.48", "anthropic-vertex.claude-x", "Vertex AI" },
	};
	struct sc_model m;
	(void)state;

	assert_string_equal(sc_models_grammar(), "0.6.7");
	assert_int_equal(sc_models_set_grammar("0.5.0"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "supported: 0.4.53, 0.6.7, 0.10.48"));
	for (size_t i = 0; i < SC_ARRAY_SIZE(facts); i++) {
		char *canon;
		assert_int_equal(sc_models_set_grammar(facts[i].version), 0);
		if (sc_model_parse(&m, facts[i].in) < 0)
			fail_msg("%s '%s': %s", facts[i].version, facts[i].in, sc_error_last());
		if (m.kind != facts[i].kind || strcmp(m.id, facts[i].id))
			fail_msg("%s '%s' is %s.%s, not %s.%s", facts[i].version, facts[i].in,
				 sc_provider_name(m.kind), m.id, sc_provider_name(facts[i].kind), facts[i].id);
		if (facts[i].effort)
			assert_string_equal(m.effort, facts[i].effort);
		else
			assert_null(m.effort);
		/* the canonical name reads as itself */
		canon = sc_xstrdup(m.name);
		sc_model_release(&m);
		assert_int_equal(sc_model_parse(&m, canon), 0);
		assert_string_equal(m.name, canon);
		free(canon);
		sc_model_release(&m);
	}
	for (size_t i = 0; i < SC_ARRAY_SIZE(refused); i++) {
		assert_int_equal(sc_models_set_grammar(refused[i].version), 0);
		assert_int_equal(sc_model_parse(&m, refused[i].in), SC_EINVAL);
		if (!strstr(sc_error_last(), refused[i].says))
			fail_msg("%s '%s': '%s' lacks '%s'", refused[i].version, refused[i].in,
				 sc_error_last(), refused[i].says);
	}
	/* the aliases listed are the version's */
	assert_int_equal(sc_models_set_grammar("0.4.53"), 0);
	{
		size_t n4 = sc_alias_count();
		const char *name, *target;
		assert_int_equal(sc_models_set_grammar("0.10.48"), 0);
		assert_true(sc_alias_count() > n4);
		sc_alias_get(0, &name, &target);
		assert_non_null(name);
		sc_alias_get(sc_alias_count(), &name, &target);
		assert_null(name);
	}
	sc_providers_reset();  /* back to the default */
	assert_string_equal(sc_models_grammar(), "0.6.7");
	assert_int_equal(sc_model_parse(&m, "gpt-5?verbosity=loud"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "verbosity 'loud'"));
	assert_int_equal(sc_model_parse(&m, "sonnet?structured=xml"), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "structured 'xml'"));
}

/* Shapes one request; returns the body or NULL with the refusal in sc_error_last(). */
static cJSON *shaped(const char *name, double temperature, bool optional, int max_tokens)
{
	struct sc_model m;
	struct sc_buf body = SC_BUF_INIT;
	struct sc_request_shape sh;
	struct sc_chat_request req = { .messages = turns, .nmessages = 1, .max_tokens = max_tokens,
				       .temperature = temperature, .temperature_optional = optional };
	const struct sc_provider_wire *w;
	cJSON *root = NULL;

	if (sc_model_parse(&m, name) < 0)
		fail_msg("'%s': %s", name, sc_error_last());
	if (m.temperature >= 0)
		req.temperature = m.temperature;
	if (m.max_tokens > 0)
		req.max_tokens = m.max_tokens;  /* as sc_client_submit() applies them */
	w = sc_provider_get(m.kind)->wire == SC_WIRE_ANTHROPIC ? &sc_wire_anthropic :
	    sc_provider_get(m.kind)->wire == SC_WIRE_RESPONSES ? &sc_wire_responses : &sc_wire_openai;
	if (sc_model_shape(&sh, &m, &req) == 0) {
		w->build_body(&body, &m, &req);
		root = cJSON_Parse(body.ptr);
		assert_non_null(root);
	}
	sc_model_release(&m);
	sc_buf_release(&body);
	return root;
}

static int jint(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	if (!cJSON_IsNumber(v))
		fail_msg("no number '%s'", k);
	return v->valueint;
}

/*
 * The capability table: what each model is sent, capped or refused,
 * the exact body for each case of the table in docs/providers.md.
 */
static void test_capabilities(void **state)
{
	static const struct { const char *model; double temp; bool optional; const char *says; } refused[] = {
		{ "openai.o3-mini", 0.2, false, "o3-mini is a reasoning model and takes no temperature" },
		{ "o3-mini", 0.2, false, "o3-mini is a reasoning model and takes no temperature" },
		{ "openai.gpt-5?top_p=0.9", -1, false, "takes no top_p" },
		{ "openai.o3-mini?reasoning=max", -1, false, "takes no effort 'max'; it takes low, medium, high" },
		{ "openai.o3-mini?reasoning=none", -1, false, "cannot turn reasoning off; it takes low, medium, high" },
		{ "o3-mini?reasoning=off", -1, false, "cannot turn reasoning off" },
		{ "openai.o3?reasoning=xhigh", -1, false, "takes no effort 'xhigh'" },
		{ "grok-4?reasoning=high", -1, false, "grok-4 takes no reasoning effort" },
		{ "gemini-2.5-pro?reasoning=none", -1, false, "cannot turn reasoning off" },
		{ "gemini2?reasoning=low", -1, false, "takes no reasoning effort" },
		{ "gpt-4.1?reasoning=high", -1, false, "takes no reasoning effort" },
		{ "haiku35?reasoning=high", -1, false, "has no extended thinking" },
		{ "opus3?reasoning=2048", -1, false, "has no extended thinking" },
		{ "sonnet?temperature=0.5&top_p=0.9", -1, false, "temperature or top_p, not both" },
		{ "sonnet?reasoning=high", 0.3, false, "extended thinking takes no temperature" },
		{ "anthropic.claude-sonnet-4-6?temperature=0.5&top_p=0.9", -1, false, "not both" },
		{ "opus4?temperature=0.5&top_p=0.9", -1, false, "not both" },
		{ "openai.gpt-5.3-codex", -1, false, "only by OpenAI's Responses API; name it responses.MODEL" },
		{ "gpt-4.1?verbosity=low", -1, false, "verbosity is an OpenAI gpt-5 setting" },
		/* reasoning settings a provider cannot send */
		{ "deepseek.deepseek-chat?reasoning=high", -1, false, "takes no reasoning setting" },
		{ "groq.x?reasoning=4096", -1, false, "needs an Anthropic or OpenRouter model" },
		{ "haiku?reasoning=100", -1, false, "at least 1024" },
		/* the other settings where the provider takes none */
		{ "openai.gpt-4.1?top_k=5", -1, false, "openai takes no top_k" },
		{ "haiku?min_p=0.1", -1, false, "anthropic takes no min_p" },
		{ "responses.gpt-4.1?presence_penalty=1", -1, false, "responses takes no presence_penalty" },
		{ "gemini25pro?top_k=5", -1, false, "google takes no top_k" },
		{ "haiku?reasoning=high&top_k=5", -1, false, "extended thinking takes no top_k" },
		{ "haiku?service_tier=fast", -1, false, "service_tier is a setting of OpenAI's APIs" },
		{ "openai.gpt-4.1?web_search=on", -1, false, "web_search is the server-side search tool" },
		{ "gpt-5.1?web_fetch=on", -1, false, "web_fetch is Anthropic's" },
		{ "gpt-5.1?context=1m", -1, false, "context=1m is Anthropic's" },
	};
	cJSON *root;
	(void)state;

	for (size_t i = 0; i < SC_ARRAY_SIZE(refused); i++) {
		root = shaped(refused[i].model, refused[i].temp, refused[i].optional, 0);
		if (root)
			fail_msg("'%s' was not refused", refused[i].model);
		if (!strstr(sc_error_last(), refused[i].says))
			fail_msg("'%s': '%s' lacks '%s'", refused[i].model, sc_error_last(), refused[i].says);
	}

	/* the judge's temperature 0 is left out where the model takes none */
	root = shaped("openai.o3-mini", 0, true, 1024);
	assert_null(cJSON_GetObjectItem(root, "temperature"));
	assert_int_equal(jint(root, "max_completion_tokens"), 1024);
	cJSON_Delete(root);
	root = shaped("sonnet?reasoning=high", 0, true, 1024);
	assert_null(cJSON_GetObjectItem(root, "temperature"));
	cJSON_Delete(root);
	root = shaped("gpt-4.1", 0, true, 1024);
	assert_true(cJSON_GetObjectItem(root, "temperature")->valuedouble == 0);
	cJSON_Delete(root);
	/* one of temperature and top_p: the judge's temperature yields to a top_p */
	root = shaped("sonnet?top_p=0.9", 0, true, 0);
	assert_null(cJSON_GetObjectItem(root, "temperature"));
	assert_true(cJSON_GetObjectItem(root, "top_p")->valuedouble == 0.9);
	cJSON_Delete(root);
	/* older Claude models take both */
	root = shaped("sonnet37?temperature=0.5&top_p=0.9", -1, false, 0);
	assert_non_null(cJSON_GetObjectItem(root, "temperature"));
	assert_non_null(cJSON_GetObjectItem(root, "top_p"));
	cJSON_Delete(root);
	root = shaped("sonnet4?temperature=0.5&top_p=0.9", -1, false, 0);
	assert_non_null(cJSON_GetObjectItem(root, "temperature"));
	assert_non_null(cJSON_GetObjectItem(root, "top_p"));
	cJSON_Delete(root);

	/* thinking budgets within the output limit: the answer keeps its 4096 */
	root = shaped("sonnet45?reasoning=max", -1, false, 0);
	assert_int_equal(jint(root, "max_tokens"), 64000);
	assert_int_equal(jint(cJSON_GetObjectItem(root, "thinking"), "budget_tokens"), 64000 - 4096);
	cJSON_Delete(root);
	root = shaped("opus4?reasoning=xhigh", -1, false, 0);
	assert_int_equal(jint(root, "max_tokens"), 32000);
	assert_int_equal(jint(cJSON_GetObjectItem(root, "thinking"), "budget_tokens"), 32000 - 4096);
	cJSON_Delete(root);
	root = shaped("haiku?reasoning=high", -1, false, 0);
	assert_int_equal(jint(root, "max_tokens"), 4096 + 16384);
	assert_int_equal(jint(cJSON_GetObjectItem(root, "thinking"), "budget_tokens"), 16384);
	cJSON_Delete(root);
	/* an answer budget over the limit is capped; thinking keeps its floor */
	root = shaped("opus4?reasoning=high&max_tokens=40000", -1, false, 0);
	assert_int_equal(jint(root, "max_tokens"), 32000);
	assert_int_equal(jint(cJSON_GetObjectItem(root, "thinking"), "budget_tokens"), 1024);
	cJSON_Delete(root);
	root = shaped("haiku3", -1, false, 8000);
	assert_int_equal(jint(root, "max_tokens"), 4096);
	cJSON_Delete(root);
	root = shaped("gpt-4o", -1, false, 50000);
	assert_int_equal(jint(root, "max_completion_tokens"), 16384);
	cJSON_Delete(root);
	/* none and auto send no thinking block */
	root = shaped("sonnet?reasoning=none", -1, false, 0);
	assert_null(cJSON_GetObjectItem(root, "thinking"));
	assert_int_equal(jint(root, "max_tokens"), 4096);
	cJSON_Delete(root);
	root = shaped("haiku35?reasoning=off", -1, false, 0);
	assert_null(cJSON_GetObjectItem(root, "thinking"));
	cJSON_Delete(root);

	/* effort words per model, mapped as fast-agent maps them */
	{
		static const struct { const char *model, *sent; } words[] = {
			{ "openai.gpt-5.1?reasoning=minimal", "low" },  /* gpt-5.1 has no minimal */
			{ "openai.gpt-5.1?reasoning=none", "none" },
			{ "openai.gpt-5.1?reasoning=off", "none" },
			{ "openai.gpt-5?reasoning=minimal", "minimal" },
			{ "openai.gpt-5.2?reasoning=max", "xhigh" },
			{ "openai.o3-mini?reasoning=high", "high" },
			{ "grok-3-mini?reasoning=high", "high" },
			{ "xai.grok-4.3?reasoning=medium", "medium" },
			{ "gemini25?reasoning=none", "none" },
			{ "generic.qwen?reasoning=max", "xhigh" },   /* no OpenAI-compatible API takes max */
			{ "groq.openai/gpt-oss-20b?reasoning=minimal", "low" },
		};
		for (size_t i = 0; i < SC_ARRAY_SIZE(words); i++) {
			root = shaped(words[i].model, -1, false, 0);
			if (!root)
				fail_msg("'%s': %s", words[i].model, sc_error_last());
			assert_string_equal(jstr(root, "reasoning_effort"), words[i].sent);
			cJSON_Delete(root);
		}
	}
	root = shaped("openai.gpt-5.1?reasoning=auto", -1, false, 0);
	assert_null(cJSON_GetObjectItem(root, "reasoning_effort"));
	cJSON_Delete(root);
	root = shaped("gpt-4o?reasoning=none", -1, false, 0);
	assert_null(cJSON_GetObjectItem(root, "reasoning_effort"));
	cJSON_Delete(root);
	root = shaped("openrouter.x/y?reasoning=max", -1, false, 0);
	assert_string_equal(jstr(cJSON_GetObjectItem(root, "reasoning"), "effort"), "xhigh");
	cJSON_Delete(root);
	root = shaped("openai.gpt-5?verbosity=low", -1, false, 0);
	assert_string_equal(jstr(root, "verbosity"), "low");
	cJSON_Delete(root);
}

/*
 * fast-agent 0.6's other settings where each provider takes them: top_k
 * on the Messages API, the four sampling settings as top-level fields on
 * the routers and servers, presence_penalty on OpenAI's chat completions,
 * service_tier (fast is "priority"), the server-side tools and the betas.
 */
static void test_other_settings(void **state)
{
	struct sc_chat_request req = { .messages = turns, .nmessages = 1, .temperature = -1 };
	struct sc_request_shape sh;
	struct sc_model m;
	const cJSON *tools;
	cJSON *root;
	(void)state;

	root = shaped("haiku?top_k=40", -1, false, 0);
	assert_int_equal(jint(root, "top_k"), 40);
	assert_null(cJSON_GetObjectItem(root, "tools"));
	cJSON_Delete(root);
	root = shaped("hf.Qwen/Qwen3-8B:nebius?top_k=20&min_p=0&presence_penalty=1.5"
		      "&repetition_penalty=1.05", -1, false, 0);
	assert_int_equal(jint(root, "top_k"), 20);
	assert_true(cJSON_GetObjectItem(root, "min_p")->valuedouble == 0);
	assert_true(cJSON_GetObjectItem(root, "presence_penalty")->valuedouble == 1.5);
	assert_true(cJSON_GetObjectItem(root, "repetition_penalty")->valuedouble == 1.05);
	cJSON_Delete(root);
	/* an alias's own settings reach the body */
	root = shaped("minimax25", -1, false, 0);
	assert_int_equal(jint(root, "top_k"), 40);
	assert_true(cJSON_GetObjectItem(root, "temperature")->valuedouble == 1.0);
	cJSON_Delete(root);
	root = shaped("openai.gpt-4.1?presence_penalty=-0.5&service_tier=flex", -1, false, 0);
	assert_true(cJSON_GetObjectItem(root, "presence_penalty")->valuedouble == -0.5);
	assert_string_equal(jstr(root, "service_tier"), "flex");
	assert_null(cJSON_GetObjectItem(root, "top_k"));
	cJSON_Delete(root);
	root = shaped("gpt-5.1?service_tier=fast&web_search=on", -1, false, 0);
	assert_string_equal(jstr(root, "service_tier"), "priority");
	tools = cJSON_GetObjectItem(root, "tools");
	assert_int_equal(cJSON_GetArraySize(tools), 1);
	assert_string_equal(jstr(cJSON_GetArrayItem(tools, 0), "type"), "web_search");
	cJSON_Delete(root);
	root = shaped("sonnet?web_search=on&web_fetch=on&context=1m", -1, false, 0);
	tools = cJSON_GetObjectItem(root, "tools");
	assert_int_equal(cJSON_GetArraySize(tools), 2);
	assert_string_equal(jstr(cJSON_GetArrayItem(tools, 0), "type"), "web_search_20250305");
	assert_string_equal(jstr(cJSON_GetArrayItem(tools, 0), "name"), "web_search");
	assert_string_equal(jstr(cJSON_GetArrayItem(tools, 1), "type"), "web_fetch_20250910");
	cJSON_Delete(root);
	/* off is no tool; a transport and structured= change nothing */
	root = shaped("sonnet?web_search=off&transport=sse&structured=json", -1, false, 0);
	assert_null(cJSON_GetObjectItem(root, "tools"));
	assert_int_equal(cJSON_GetArraySize(root), 3);  /* model, max_tokens, messages */
	cJSON_Delete(root);

	/* the betas go in the anthropic-beta header */
	assert_int_equal(sc_model_parse(&m, "sonnet?context=1m&web_fetch=on"), 0);
	assert_int_equal(sc_model_shape(&sh, &m, &req), 0);
	assert_string_equal(sh.beta, "context-1m-2025-08-07,web-fetch-2025-09-10");
	sc_model_release(&m);
	assert_int_equal(sc_model_parse(&m, "sonnet?context=1m"), 0);
	assert_int_equal(sc_model_shape(&sh, &m, &req), 0);
	assert_string_equal(sh.beta, "context-1m-2025-08-07");
	sc_model_release(&m);
	assert_int_equal(sc_model_parse(&m, "sonnet"), 0);
	assert_int_equal(sc_model_shape(&sh, &m, &req), 0);
	assert_null(sh.beta);
	sc_model_release(&m);
}

/* The Responses API's body: instructions, input turns, the effort and verbosity nested. */
static void test_responses_body(void **state)
{
	struct sc_chat_request req = { .system = "be brief", .messages = turns, .nmessages = 3,
				       .max_tokens = 8, .temperature = -1 };
	const cJSON *input;
	cJSON *root;
	(void)state;

	root = build(&sc_wire_responses, "codex?reasoning=xhigh&verbosity=low", &req);
	assert_string_equal(jstr(root, "model"), "gpt-5.3-codex");
	assert_string_equal(jstr(root, "instructions"), "be brief");
	input = cJSON_GetObjectItem(root, "input");
	assert_int_equal(cJSON_GetArraySize(input), 3);
	assert_string_equal(jstr(cJSON_GetArrayItem(input, 1), "role"), "assistant");
	assert_string_equal(jstr(cJSON_GetArrayItem(input, 2), "content"), "it failed to compile: line 3");
	assert_int_equal(jint(root, "max_output_tokens"), 16);  /* the API's floor */
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(root, "store")));
	assert_string_equal(jstr(cJSON_GetObjectItem(root, "reasoning"), "effort"), "xhigh");
	assert_string_equal(jstr(cJSON_GetObjectItem(root, "text"), "verbosity"), "low");
	assert_null(cJSON_GetObjectItem(root, "temperature"));
	assert_null(cJSON_GetObjectItem(root, "messages"));
	cJSON_Delete(root);
	/* a model that takes sampling gets it; no system prompt, no instructions */
	req.system = NULL;
	req.temperature = 0.4;
	req.max_tokens = 500;
	root = build(&sc_wire_responses, "responses.gpt-4.1", &req);
	assert_true(cJSON_GetObjectItem(root, "temperature")->valuedouble == 0.4);
	assert_int_equal(jint(root, "max_output_tokens"), 500);
	assert_null(cJSON_GetObjectItem(root, "instructions"));
	assert_null(cJSON_GetObjectItem(root, "reasoning"));
	cJSON_Delete(root);
}

/* Usage to one meaning per provider, the raw fields and the stop reason kept. */
static void test_usage_per_provider(void **state)
{
	struct sc_chat_response r;
	/* xAI: reasoning_tokens outside completion_tokens (total = 10 + 9 + 94) */
	const char *x = "{\"choices\":[{\"message\":{\"content\":\"ok\"},\"finish_reason\":\"stop\"}],"
			"\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":9,\"total_tokens\":113,"
			"\"completion_tokens_details\":{\"reasoning_tokens\":94}}}";
	/* OpenAI: reasoning inside completion_tokens */
	const char *o = "{\"choices\":[{\"message\":{\"content\":\"\"},\"finish_reason\":\"length\"}],"
			"\"usage\":{\"prompt_tokens\":10,\"completion_tokens\":100,"
			"\"completion_tokens_details\":{\"reasoning_tokens\":100}}}";
	/* DeepSeek: cache hits in prompt_cache_hit_tokens */
	const char *d = "{\"choices\":[{\"message\":{\"content\":\"ok\"}}],"
			"\"usage\":{\"prompt_tokens\":1000,\"completion_tokens\":5,"
			"\"prompt_cache_hit_tokens\":800,\"prompt_cache_miss_tokens\":200}}";
	const char *a = "{\"content\":[{\"type\":\"text\",\"text\":\"part\"}],\"stop_reason\":\"max_tokens\","
			"\"usage\":{\"input_tokens\":5,\"output_tokens\":4096}}";
	(void)state;

	memset(&r, 0, sizeof(r));
	assert_int_equal(sc_wire_openai_xai.parse_ok(&r, x, strlen(x)), 0);
	assert_int_equal(r.output_tokens, 103);
	assert_int_equal(r.reasoning_tokens, 94);
	assert_int_equal(r.input_tokens, 10);
	assert_string_equal(r.stop_reason, "stop");
	assert_non_null(strstr(r.usage_raw, "\"reasoning_tokens\":94"));
	free(r.text);
	free(r.usage_raw);
	free(r.stop_reason);

	memset(&r, 0, sizeof(r));
	assert_int_equal(sc_wire_openai.parse_ok(&r, o, strlen(o)), 0);
	assert_int_equal(r.output_tokens, 100);
	assert_int_equal(r.reasoning_tokens, 100);
	assert_string_equal(r.stop_reason, "length");
	free(r.text);
	free(r.usage_raw);
	free(r.stop_reason);

	memset(&r, 0, sizeof(r));
	assert_int_equal(sc_wire_openai.parse_ok(&r, d, strlen(d)), 0);
	assert_int_equal(r.cache_read_tokens, 800);
	assert_int_equal(r.input_tokens, 200);
	assert_non_null(strstr(r.usage_raw, "\"prompt_cache_miss_tokens\":200"));
	free(r.text);
	free(r.usage_raw);
	free(r.stop_reason);

	memset(&r, 0, sizeof(r));
	assert_int_equal(sc_wire_anthropic.parse_ok(&r, a, strlen(a)), 0);
	assert_string_equal(r.stop_reason, "max_tokens");
	assert_string_equal(r.text, "part");
	free(r.text);
	free(r.usage_raw);
	free(r.stop_reason);

	/* Responses API: reasoning inside output_tokens, cached input apart, the
	 * text of the message items only, a cut answer's reason */
	{
		const char *ok = "{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"completed\","
			"\"output\":[{\"type\":\"reasoning\",\"summary\":[]},"
			"{\"type\":\"message\",\"role\":\"assistant\",\"content\":["
			"{\"type\":\"output_text\",\"text\":\"A\"},{\"type\":\"output_text\",\"text\":\"B\"}]}],"
			"\"usage\":{\"input_tokens\":120,\"input_tokens_details\":{\"cached_tokens\":100},"
			"\"output_tokens\":340,\"output_tokens_details\":{\"reasoning_tokens\":300},"
			"\"total_tokens\":460}}";
		const char *cut = "{\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":"
			"\"max_output_tokens\"},\"output\":[],\"usage\":{\"input_tokens\":5,"
			"\"output_tokens\":16,\"output_tokens_details\":{\"reasoning_tokens\":16}}}";
		const char *failed = "{\"status\":\"failed\",\"output\":[],\"error\":{\"code\":"
			"\"server_error\",\"message\":\"boom\"}}";
		memset(&r, 0, sizeof(r));
		assert_int_equal(sc_wire_responses.parse_ok(&r, ok, strlen(ok)), 0);
		assert_string_equal(r.text, "AB");
		assert_int_equal(r.input_tokens, 20);
		assert_int_equal(r.cache_read_tokens, 100);
		assert_int_equal(r.output_tokens, 340);
		assert_int_equal(r.reasoning_tokens, 300);
		assert_string_equal(r.stop_reason, "completed");
		assert_non_null(strstr(r.usage_raw, "\"reasoning_tokens\":300"));
		free(r.text);
		free(r.usage_raw);
		free(r.stop_reason);
		memset(&r, 0, sizeof(r));
		assert_int_equal(sc_wire_responses.parse_ok(&r, cut, strlen(cut)), 0);
		assert_string_equal(r.stop_reason, "max_output_tokens");
		assert_string_equal(r.text, "");
		free(r.text);
		free(r.usage_raw);
		free(r.stop_reason);
		memset(&r, 0, sizeof(r));
		assert_int_equal(sc_wire_responses.parse_ok(&r, failed, strlen(failed)), SC_EPARSE);
		assert_non_null(strstr(sc_error_last(), "server_error: boom"));
		assert_int_equal(sc_wire_responses.parse_ok(&r, "{\"choices\":[]}", 14), SC_EPARSE);
		free(r.text);
		free(r.usage_raw);
		free(r.stop_reason);
	}
}

static void test_limiter_halves_and_recovers(void **state)
{
	struct sc_limiter l;
	int epoch;
	(void)state;

	sc_limiter_init(&l, 16, 2, 3);
	epoch = l.epoch;
	assert_false(sc_limiter_on_429(&l, epoch));   /* one strike */
	assert_true(sc_limiter_on_429(&l, epoch));    /* two in a row: halve */
	assert_int_equal(l.limit, 8);
	/* late 429s from requests sent under the old limit do not count */
	assert_false(sc_limiter_on_429(&l, epoch));
	assert_false(sc_limiter_on_429(&l, epoch));
	assert_int_equal(l.limit, 8);
	/* a success between 429s resets the strikes */
	assert_false(sc_limiter_on_429(&l, l.epoch));
	assert_false(sc_limiter_on_success(&l));
	assert_false(sc_limiter_on_429(&l, l.epoch));
	assert_int_equal(l.limit, 8);
	for (int i = 0; i < 10; i++) {
		assert_true(sc_limiter_on_429(&l, l.epoch) || l.strikes == 1 || l.limit == 1);
	}
	assert_int_equal(l.limit, 1);  /* never below one */
	for (int i = 0; i < 3 * 15; i++)
		sc_limiter_on_success(&l);
	assert_int_equal(l.limit, 16);  /* +1 per three successes, capped at max */
	assert_false(sc_limiter_on_success(&l));
	assert_int_equal(l.limit, 16);
}

static void test_oracle_answers_reference(void **state)
{
	struct sc_chat_response r;
	struct sc_chat_request req = { .oracle_answer = "the reference", .label = "t1" };
	(void)state;

	memset(&r, 0, sizeof(r));
	sc_oracle_answer(&r, &req);
	assert_string_equal(r.text, "the reference");
	assert_true(r.oracle);
	assert_int_equal(r.input_tokens + r.output_tokens, 0);
	free(r.text);
	free(r.usage_raw);
	free(r.stop_reason);
	memset(&r, 0, sizeof(r));
	req.oracle_answer = NULL;
	sc_oracle_answer(&r, &req);
	assert_int_equal(r.error_class, SC_CHAT_CONFIG);
	assert_non_null(strstr(r.error, "'t1'"));
	free(r.error);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_names),
		cmocka_unit_test(test_anthropic_body_multi_turn),
		cmocka_unit_test(test_openai_body_multi_turn),
		cmocka_unit_test(test_model_strings),
		cmocka_unit_test(test_endpoints),
		cmocka_unit_test(test_file_settings),
		cmocka_unit_test(test_provider_bodies),
		cmocka_unit_test(test_parse_responses),
		cmocka_unit_test(test_parse_huge_counts),
		cmocka_unit_test(test_grammar_versions),
		cmocka_unit_test(test_capabilities),
		cmocka_unit_test(test_other_settings),
		cmocka_unit_test(test_responses_body),
		cmocka_unit_test(test_usage_per_provider),
		cmocka_unit_test(test_limiter_halves_and_recovers),
		cmocka_unit_test(test_oracle_answers_reference),
	};
	return cmocka_run_group_tests_name("provider", tests, NULL, NULL);
}
