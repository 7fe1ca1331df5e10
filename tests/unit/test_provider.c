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

	assert_int_equal(sc_model_parse(&m, "opus.high"), 0);
	assert_string_equal(m.id, "claude-opus-4-6");  /* fast-agent 0.4.53 */
	assert_string_equal(m.effort, "high");
	sc_model_release(&m);

	assert_int_equal(sc_model_parse(&m, "openai.gpt-4.1"), 0);
	assert_int_equal(m.kind, SC_PROVIDER_OPENAI);
	assert_string_equal(m.id, "gpt-4.1");  /* a dot inside the model is kept */
	assert_null(m.effort);
	sc_model_release(&m);

	assert_int_equal(sc_model_parse(&m, "openai.o3.low"), 0);
	assert_string_equal(m.id, "o3");
	assert_string_equal(m.effort, "low");
	sc_model_release(&m);

	assert_int_equal(sc_model_parse(&m, "generic.llama-3.1-8b"), 0);
	assert_int_equal(m.kind, SC_PROVIDER_GENERIC);
	assert_string_equal(m.id, "llama-3.1-8b");
	sc_model_release(&m);

	assert_int_equal(sc_model_parse(&m, "anthropic.claude-sonnet-4-5.medium"), 0);
	assert_string_equal(m.name, "anthropic.claude-sonnet-4-5.medium");
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
	assert_string_equal(cJSON_GetObjectItem(root, "model")->valuestring, "claude-sonnet-4-5");
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
	root = build(&sc_wire_anthropic, "sonnet.high", &req);
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

	root = build(&sc_wire_openai, "openai.o3.medium", &req);
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
		{ "gpt-4.1.high", "openai.gpt-4.1.high", SC_PROVIDER_OPENAI, "gpt-4.1" },
		{ "o3-mini", "openai.o3-mini", SC_PROVIDER_OPENAI, "o3-mini" },
		{ "gpt-4o", "openai.gpt-4o", SC_PROVIDER_OPENAI, "gpt-4o" },
		{ "openai/gpt-4.1", "openai.gpt-4.1", SC_PROVIDER_OPENAI, "gpt-4.1" },
		{ "sonnet.high", "anthropic.claude-sonnet-4-5.high", SC_PROVIDER_ANTHROPIC,
		  "claude-sonnet-4-5" },
		/* ?reasoning=EFFORT is the same model as .EFFORT */
		{ "sonnet?reasoning=high", "anthropic.claude-sonnet-4-5.high", SC_PROVIDER_ANTHROPIC,
		  "claude-sonnet-4-5" },
		{ "haiku?reasoning=4096", "anthropic.claude-haiku-4-5?reasoning=4096",
		  SC_PROVIDER_ANTHROPIC, "claude-haiku-4-5" },
		{ "haiku?reasoning=off", "anthropic.claude-haiku-4-5?reasoning=none",
		  SC_PROVIDER_ANTHROPIC, "claude-haiku-4-5" },
		{ "generic.llama3.2:latest", "generic.llama3.2:latest", SC_PROVIDER_GENERIC,
		  "llama3.2:latest" },
		{ "hf.Qwen/Qwen3-8B:nebius?temperature=0.6&top_p=0.95&reasoning=on",
		  "hf.Qwen/Qwen3-8B:nebius?reasoning=on&temperature=0.6&top_p=0.95", SC_PROVIDER_HF,
		  "Qwen/Qwen3-8B:nebius" },
		{ "openrouter.anthropic/claude-sonnet-4.5", "openrouter.anthropic/claude-sonnet-4.5",
		  SC_PROVIDER_OPENROUTER, "anthropic/claude-sonnet-4.5" },
		{ "google.gemini-2.5-flash.low", "google.gemini-2.5-flash.low", SC_PROVIDER_GOOGLE,
		  "gemini-2.5-flash" },
		{ "gemini25pro", "google.gemini-2.5-pro", SC_PROVIDER_GOOGLE, "gemini-2.5-pro" },
		{ "deepseek", "deepseek.deepseek-chat", SC_PROVIDER_DEEPSEEK, "deepseek-chat" },
		{ "deepseek.deepseek-reasoner", "deepseek.deepseek-reasoner", SC_PROVIDER_DEEPSEEK,
		  "deepseek-reasoner" },
		{ "grok-3-mini.high", "xai.grok-3-mini.high", SC_PROVIDER_XAI, "grok-3-mini" },
		{ "groq.openai/gpt-oss-20b?max_tokens=900", "groq.openai/gpt-oss-20b?max_tokens=900",
		  SC_PROVIDER_GROQ, "openai/gpt-oss-20b" },
		{ "azure.my-gpt4o", "azure.my-gpt4o", SC_PROVIDER_AZURE, "my-gpt4o" },
		{ "oracle.self", "oracle.self", SC_PROVIDER_ORACLE, "self" },
	};
	static const struct { const char *in, *says; } bad[] = {
		{ "sonet", "did you mean 'sonnet'?" },
		{ "antropic.claude-x", "did you mean 'anthropic.claude-x'?" },
		{ "gpt-4.2-turbo-x", "providers: anthropic, openai, azure" },
		{ "qwerty.x", "aliases: haiku" },
		{ "deepseek.deepseek-chat.high", "takes no reasoning setting" },
		{ "groq.x?reasoning=4096", "needs an Anthropic or OpenRouter model" },
		{ "haiku?reasoning=100", "at least 1024" },
		{ "openai.o3.high?reasoning=low", "sets the reasoning twice" },
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
	assert_int_equal(sc_model_parse(&m, "lab.qwen3-coder.high"), 0);
	assert_int_equal(m.kind, SC_PROVIDER_BUILTINS);
	assert_string_equal(m.name, "lab.qwen3-coder.high");
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
		{ "openai.o3-mini.high", "max_completion_tokens", "reasoning_effort", "high" },
		{ "azure.dep.low", "max_completion_tokens", "reasoning_effort", "low" },
		{ "groq.qwen/qwen3-32b.medium", "max_completion_tokens", "reasoning_effort", "medium" },
		{ "google.gemini-2.5-flash.high", "max_tokens", "reasoning_effort", "high" },
		{ "hf.org/m:prov.low", "max_tokens", "reasoning_effort", "low" },
		{ "xai.grok-3-mini.high", "max_tokens", "reasoning_effort", "high" },
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
 * fast-agent 0.4.53 parity, from that version's source
 * (src/fast_agent/llm/model_factory.py: MODEL_ALIASES and DEFAULT_PROVIDERS;
 * reasoning_effort.py: EFFORT_LEVELS, TRUE_VALUES, FALSE_VALUES;
 * text_verbosity.py; structured_output_mode.py; provider_types.py): each
 * string fast-agent accepts, and the provider and model it resolves to.
 * fast-agent's "responses" provider is "openai" here (chat completions),
 * "googleoai" is "google".
 */
static void test_fast_agent_parity(void **state)
{
	static const struct { const char *in; int kind; const char *id, *effort; } facts[] = {
		/* MODEL_ALIASES */
		{ "gpt51", SC_PROVIDER_OPENAI, "gpt-5.1", NULL },
		{ "gpt52", SC_PROVIDER_OPENAI, "gpt-5.2", NULL },
		{ "codex", SC_PROVIDER_OPENAI, "gpt-5.2-codex", NULL },
		{ "sonnet", SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-5", NULL },
		{ "sonnet4", SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-0", NULL },
		{ "sonnet45", SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-5", NULL },
		{ "sonnet35", SC_PROVIDER_ANTHROPIC, "claude-3-5-sonnet-latest", NULL },
		{ "sonnet37", SC_PROVIDER_ANTHROPIC, "claude-3-7-sonnet-latest", NULL },
		{ "claude", SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-5", NULL },
		{ "haiku", SC_PROVIDER_ANTHROPIC, "claude-haiku-4-5", NULL },
		{ "haiku3", SC_PROVIDER_ANTHROPIC, "claude-3-haiku-20240307", NULL },
		{ "haiku35", SC_PROVIDER_ANTHROPIC, "claude-3-5-haiku-latest", NULL },
		{ "haiku45", SC_PROVIDER_ANTHROPIC, "claude-haiku-4-5", NULL },
		{ "opus", SC_PROVIDER_ANTHROPIC, "claude-opus-4-6", NULL },
		{ "opus4", SC_PROVIDER_ANTHROPIC, "claude-opus-4-1", NULL },
		{ "opus45", SC_PROVIDER_ANTHROPIC, "claude-opus-4-5", NULL },
		{ "opus46", SC_PROVIDER_ANTHROPIC, "claude-opus-4-6", NULL },
		{ "opus3", SC_PROVIDER_ANTHROPIC, "claude-3-opus-latest", NULL },
		{ "deepseekv3", SC_PROVIDER_DEEPSEEK, "deepseek-chat", NULL },
		{ "deepseek3", SC_PROVIDER_DEEPSEEK, "deepseek-chat", NULL },
		{ "deepseek", SC_PROVIDER_DEEPSEEK, "deepseek-chat", NULL },
		{ "gemini2", SC_PROVIDER_GOOGLE, "gemini-2.0-flash", NULL },
		{ "gemini25", SC_PROVIDER_GOOGLE, "gemini-2.5-flash-preview-09-2025", NULL },
		{ "gemini25pro", SC_PROVIDER_GOOGLE, "gemini-2.5-pro", NULL },
		{ "gemini3", SC_PROVIDER_GOOGLE, "gemini-3-pro-preview", NULL },
		{ "gemini3flash", SC_PROVIDER_GOOGLE, "gemini-3-flash-preview", NULL },
		{ "grok-4-fast", SC_PROVIDER_XAI, "grok-4-fast-non-reasoning", NULL },
		{ "grok-4-fast-reasoning", SC_PROVIDER_XAI, "grok-4-fast-reasoning", NULL },
		{ "kimigroq", SC_PROVIDER_GROQ, "moonshotai/kimi-k2-instruct-0905", NULL },
		{ "minimax", SC_PROVIDER_HF, "MiniMaxAI/MiniMax-M2.1:novita", NULL },
		{ "kimi", SC_PROVIDER_HF, "moonshotai/Kimi-K2-Instruct-0905:groq", NULL },
		{ "gpt-oss", SC_PROVIDER_HF, "openai/gpt-oss-120b:cerebras", NULL },
		{ "gpt-oss-20b", SC_PROVIDER_HF, "openai/gpt-oss-20b", NULL },
		{ "glm47", SC_PROVIDER_HF, "zai-org/GLM-4.7:cerebras", NULL },
		{ "glm5", SC_PROVIDER_HF, "zai-org/GLM-5:novita", NULL },
		{ "glm", SC_PROVIDER_HF, "zai-org/GLM-5:novita", NULL },
		{ "qwen3", SC_PROVIDER_HF, "Qwen/Qwen3-Next-80B-A3B-Instruct:together", NULL },
		{ "deepseek31", SC_PROVIDER_HF, "deepseek-ai/DeepSeek-V3.1", NULL },
		{ "kimithink", SC_PROVIDER_HF, "moonshotai/Kimi-K2-Thinking:together", NULL },
		{ "deepseek32", SC_PROVIDER_HF, "deepseek-ai/DeepSeek-V3.2:fireworks-ai", NULL },
		{ "kimi25", SC_PROVIDER_HF, "moonshotai/Kimi-K2.5:fireworks-ai", NULL },
		/* DEFAULT_PROVIDERS: bare model names */
		{ "claude-sonnet-4-5", SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-5", NULL },
		{ "claude-opus-4-20250514", SC_PROVIDER_ANTHROPIC, "claude-opus-4-20250514", NULL },
		{ "gpt-5.1", SC_PROVIDER_OPENAI, "gpt-5.1", NULL },
		{ "gpt-5.3-codex", SC_PROVIDER_OPENAI, "gpt-5.3-codex", NULL },
		{ "o1-preview", SC_PROVIDER_OPENAI, "o1-preview", NULL },
		{ "gemini-2.5-pro-preview-05-06", SC_PROVIDER_GOOGLE, "gemini-2.5-pro-preview-05-06", NULL },
		{ "grok-3-mini-fast", SC_PROVIDER_XAI, "grok-3-mini-fast", NULL },
		{ "deepseek-chat", SC_PROVIDER_DEEPSEEK, "deepseek-chat", NULL },
		/* provider names */
		{ "googleoai.gemini-2.5-flash", SC_PROVIDER_GOOGLE, "gemini-2.5-flash", NULL },
		{ "responses.gpt-5.1.low", SC_PROVIDER_OPENAI, "gpt-5.1", "low" },
		{ "responses/o3", SC_PROVIDER_OPENAI, "o3", NULL },
		/* EFFORT_LEVELS as suffixes, including none and auto */
		{ "o3-mini.none", SC_PROVIDER_OPENAI, "o3-mini", "none" },
		{ "gpt-5.1.auto", SC_PROVIDER_OPENAI, "gpt-5.1", "auto" },
		{ "sonnet.max", SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-5", "max" },
		{ "gpt52.xhigh", SC_PROVIDER_OPENAI, "gpt-5.2", "xhigh" },
		/* query keys; TRUE_VALUES/FALSE_VALUES hold "1" and "0" */
		{ "sonnet?reasoning=1", SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-5", "on" },
		{ "sonnet?reasoning=0", SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-5", "none" },
		{ "sonnet?reasoning=auto", SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-5", "auto" },
		{ "gpt-5?verbosity=med", SC_PROVIDER_OPENAI, "gpt-5", NULL },
		{ "sonnet?structured=tool-use", SC_PROVIDER_ANTHROPIC, "claude-sonnet-4-5", NULL },
		/* ALIAS:ROUTE replaces the alias's route */
		{ "glm:together", SC_PROVIDER_HF, "zai-org/GLM-5:together", NULL },
	};
	/* canonical names fast-agent reads back the same (effort before the route) */
	static const struct { const char *in, *canon; } canon[] = {
		{ "kimi.high", "hf.moonshotai/Kimi-K2-Instruct-0905.high:groq" },
		{ "hf.moonshotai/Kimi-K2-Instruct-0905:groq.high",
		  "hf.moonshotai/Kimi-K2-Instruct-0905.high:groq" },
		{ "gpt-5?verbosity=med", "openai.gpt-5?verbosity=medium" },
		{ "sonnet?structured=tool-use", "anthropic.claude-sonnet-4-5?structured=tool_use" },
		{ "o3-mini.none", "openai.o3-mini?reasoning=none" },
		{ "responses.gpt-5.1.low", "openai.gpt-5.1.low" },
	};
	struct sc_model m;
	(void)state;

	for (size_t i = 0; i < SC_ARRAY_SIZE(facts); i++) {
		if (sc_model_parse(&m, facts[i].in) < 0)
			fail_msg("'%s': %s", facts[i].in, sc_error_last());
		if (m.kind != facts[i].kind || strcmp(m.id, facts[i].id))
			fail_msg("'%s' is %s.%s, not %s.%s", facts[i].in, sc_provider_name(m.kind), m.id,
				 sc_provider_name(facts[i].kind), facts[i].id);
		if (facts[i].effort)
			assert_string_equal(m.effort, facts[i].effort);
		else
			assert_null(m.effort);
		sc_model_release(&m);
	}
	for (size_t i = 0; i < SC_ARRAY_SIZE(canon); i++) {
		char *first;
		assert_int_equal(sc_model_parse(&m, canon[i].in), 0);
		assert_string_equal(m.name, canon[i].canon);
		first = sc_xstrdup(m.name);
		sc_model_release(&m);
		assert_int_equal(sc_model_parse(&m, first), 0);
		assert_string_equal(m.name, first);
		free(first);
		sc_model_release(&m);
	}
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
	w = sc_provider_get(m.kind)->wire == SC_WIRE_ANTHROPIC ? &sc_wire_anthropic : &sc_wire_openai;
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
		{ "o3-mini", 0.2, false, "o3-mini is a reasoning model and takes no temperature" },
		{ "openai.gpt-5?top_p=0.9", -1, false, "takes no top_p" },
		{ "o3-mini.max", -1, false, "takes no effort 'max'; it takes low, medium, high" },
		{ "o3-mini.none", -1, false, "cannot turn reasoning off; it takes low, medium, high" },
		{ "o3.xhigh", -1, false, "takes no effort 'xhigh'" },
		{ "grok-4.high", -1, false, "grok-4 takes no reasoning effort" },
		{ "gemini-2.5-pro.none", -1, false, "cannot turn reasoning off" },
		{ "gemini2.low", -1, false, "takes no reasoning effort" },
		{ "gpt-4.1.high", -1, false, "takes no reasoning effort" },
		{ "haiku35.high", -1, false, "has no extended thinking" },
		{ "opus3?reasoning=2048", -1, false, "has no extended thinking" },
		{ "sonnet?temperature=0.5&top_p=0.9", -1, false, "temperature or top_p, not both" },
		{ "sonnet.high", 0.3, false, "extended thinking takes no temperature" },
		{ "anthropic.claude-sonnet-4-6?temperature=0.5&top_p=0.9", -1, false, "not both" },
		{ "opus4?temperature=0.5&top_p=0.9", -1, false, "not both" },
		{ "codex", -1, false, "only by OpenAI's Responses API" },
		{ "gpt-4.1?verbosity=low", -1, false, "verbosity is an OpenAI gpt-5 setting" },
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
	root = shaped("o3-mini", 0, true, 1024);
	assert_null(cJSON_GetObjectItem(root, "temperature"));
	assert_int_equal(jint(root, "max_completion_tokens"), 1024);
	cJSON_Delete(root);
	root = shaped("sonnet.high", 0, true, 1024);
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
	root = shaped("sonnet.max", -1, false, 0);
	assert_int_equal(jint(root, "max_tokens"), 64000);
	assert_int_equal(jint(cJSON_GetObjectItem(root, "thinking"), "budget_tokens"), 64000 - 4096);
	cJSON_Delete(root);
	root = shaped("opus4.xhigh", -1, false, 0);
	assert_int_equal(jint(root, "max_tokens"), 32000);
	assert_int_equal(jint(cJSON_GetObjectItem(root, "thinking"), "budget_tokens"), 32000 - 4096);
	cJSON_Delete(root);
	root = shaped("haiku.high", -1, false, 0);
	assert_int_equal(jint(root, "max_tokens"), 4096 + 16384);
	assert_int_equal(jint(cJSON_GetObjectItem(root, "thinking"), "budget_tokens"), 16384);
	cJSON_Delete(root);
	/* an answer budget over the limit is capped; thinking keeps its floor */
	root = shaped("opus4.high?max_tokens=40000", -1, false, 0);
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
	root = shaped("sonnet.none", -1, false, 0);
	assert_null(cJSON_GetObjectItem(root, "thinking"));
	assert_int_equal(jint(root, "max_tokens"), 4096);
	cJSON_Delete(root);
	root = shaped("haiku35.none", -1, false, 0);
	assert_null(cJSON_GetObjectItem(root, "thinking"));
	cJSON_Delete(root);

	/* effort words per model, mapped as fast-agent maps them */
	{
		static const struct { const char *model, *sent; } words[] = {
			{ "gpt-5.1.minimal", "low" },      /* gpt-5.1 has no minimal */
			{ "gpt-5.1.none", "none" },
			{ "gpt-5.minimal", "minimal" },
			{ "gpt52.max", "xhigh" },
			{ "o3-mini.high", "high" },
			{ "grok-3-mini.high", "high" },
			{ "xai.grok-4.3.medium", "medium" },
			{ "gemini25.none", "none" },
			{ "generic.qwen.max", "xhigh" },   /* no OpenAI-compatible API takes max */
			{ "groq.openai/gpt-oss-20b.minimal", "low" },
		};
		for (size_t i = 0; i < SC_ARRAY_SIZE(words); i++) {
			root = shaped(words[i].model, -1, false, 0);
			if (!root)
				fail_msg("'%s': %s", words[i].model, sc_error_last());
			assert_string_equal(jstr(root, "reasoning_effort"), words[i].sent);
			cJSON_Delete(root);
		}
	}
	root = shaped("gpt-5.1.auto", -1, false, 0);
	assert_null(cJSON_GetObjectItem(root, "reasoning_effort"));
	cJSON_Delete(root);
	root = shaped("gpt-4o.none", -1, false, 0);
	assert_null(cJSON_GetObjectItem(root, "reasoning_effort"));
	cJSON_Delete(root);
	root = shaped("openrouter.x/y.max", -1, false, 0);
	assert_string_equal(jstr(cJSON_GetObjectItem(root, "reasoning"), "effort"), "xhigh");
	cJSON_Delete(root);
	root = shaped("gpt-5?verbosity=low", -1, false, 0);
	assert_string_equal(jstr(root, "verbosity"), "low");
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
		cmocka_unit_test(test_fast_agent_parity),
		cmocka_unit_test(test_capabilities),
		cmocka_unit_test(test_usage_per_provider),
		cmocka_unit_test(test_limiter_halves_and_recovers),
		cmocka_unit_test(test_oracle_answers_reference),
	};
	return cmocka_run_group_tests_name("provider", tests, NULL, NULL);
}
