/*
 * OpenAI chat completions, also used for `generic` OpenAI-compatible
 * servers (vLLM, llama.cpp server, Ollama, routers): POST
 * {base}/chat/completions with Authorization: Bearer (set by provider.c).
 * Body: model, messages with the system prompt as the first message, the
 * answer budget as max_completion_tokens (openai) or max_tokens (generic,
 * which older servers understand), temperature, and reasoning_effort for an
 * EFFORT. Response: choices[0].message.content, usage.prompt_tokens,
 * completion_tokens, prompt_tokens_details.cached_tokens. Error body:
 * {"error":{"message":...,"type":...}} (some servers send a bare string).
 */
#include "common.h"
#include "providers/provider.h"

#include <cjson/cJSON.h>

static void build(struct sc_buf *out, const struct sc_model *model,
		  const struct sc_chat_request *req, const char *max_name)
{
	cJSON *root = cJSON_CreateObject(), *msgs, *m;
	char *json;

	cJSON_AddStringToObject(root, "model", model->id);
	msgs = cJSON_AddArrayToObject(root, "messages");
	if (req->system && *req->system) {
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "role", "system");
		cJSON_AddStringToObject(m, "content", req->system);
		cJSON_AddItemToArray(msgs, m);
	}
	for (size_t i = 0; i < req->nmessages; i++) {
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "role",
					req->messages[i].role == SC_CHAT_ASSISTANT ? "assistant" : "user");
		cJSON_AddStringToObject(m, "content", req->messages[i].content);
		cJSON_AddItemToArray(msgs, m);
	}
	cJSON_AddNumberToObject(root, max_name, req->max_tokens > 0 ? req->max_tokens : 4096);
	if (req->temperature >= 0)
		cJSON_AddNumberToObject(root, "temperature", req->temperature);
	if (model->effort)
		cJSON_AddStringToObject(root, "reasoning_effort", model->effort);
	json = cJSON_PrintUnformatted(root);
	if (!json)
		sc_die("out of memory");
	sc_buf_puts(out, json);
	cJSON_free(json);
	cJSON_Delete(root);
}

static void build_openai(struct sc_buf *out, const struct sc_model *model,
			 const struct sc_chat_request *req)
{
	build(out, model, req, "max_completion_tokens");
}

static void build_generic(struct sc_buf *out, const struct sc_model *model,
			  const struct sc_chat_request *req)
{
	build(out, model, req, "max_tokens");
}

static int64_t get_count(const cJSON *obj, const char *name)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
	return cJSON_IsNumber(v) && v->valuedouble >= 0 && v->valuedouble < 9e18 ? (int64_t)v->valuedouble : 0;
}

static int parse_ok(struct sc_chat_response *resp, const char *body, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *choices, *msg, *content, *usage;
	int64_t prompt, cached;
	int err = 0;

	choices = root ? cJSON_GetObjectItemCaseSensitive(root, "choices") : NULL;
	msg = cJSON_GetObjectItemCaseSensitive(cJSON_GetArrayItem(choices, 0), "message");
	content = cJSON_GetObjectItemCaseSensitive(msg, "content");
	if (!cJSON_IsObject(msg) || !(cJSON_IsString(content) || cJSON_IsNull(content) || !content)) {
		err = sc_error_set(SC_EPARSE, "response is not a chat completion (no choices[0].message)");
		goto done;
	}
	usage = cJSON_GetObjectItemCaseSensitive(root, "usage");
	prompt = get_count(usage, "prompt_tokens");
	cached = get_count(cJSON_GetObjectItemCaseSensitive(usage, "prompt_tokens_details"),
			   "cached_tokens");
	if (cached > prompt)
		cached = prompt;
	resp->input_tokens = prompt - cached;
	resp->cache_read_tokens = cached;
	resp->cache_creation_tokens = 0;
	resp->output_tokens = get_count(usage, "completion_tokens");
	free(resp->text);
	resp->text = sc_xstrdup(cJSON_IsString(content) ? content->valuestring : "");
done:
	cJSON_Delete(root);
	return err;
}

static bool parse_error(struct sc_buf *out, const char *body, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *e = root ? cJSON_GetObjectItemCaseSensitive(root, "error") : NULL;
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(e, "type");
	const cJSON *msg = cJSON_GetObjectItemCaseSensitive(e, "message");
	bool found = true;

	if (cJSON_IsString(msg)) {
		if (cJSON_IsString(type))
			sc_buf_printf(out, "%s: ", type->valuestring);
		sc_buf_puts(out, msg->valuestring);
	} else if (cJSON_IsString(e)) {
		sc_buf_puts(out, e->valuestring);
	} else if (root && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "detail"))) {
		sc_buf_puts(out, cJSON_GetObjectItemCaseSensitive(root, "detail")->valuestring);
	} else if (root && cJSON_IsString(cJSON_GetObjectItemCaseSensitive(root, "message"))) {
		sc_buf_puts(out, cJSON_GetObjectItemCaseSensitive(root, "message")->valuestring);
	} else {
		found = false;
	}
	cJSON_Delete(root);
	return found;
}

const struct sc_provider_wire sc_wire_openai = {
	build_openai, "/chat/completions", parse_ok, parse_error,
};

const struct sc_provider_wire sc_wire_generic = {
	build_generic, "/chat/completions", parse_ok, parse_error,
};
