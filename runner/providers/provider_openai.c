/*
 * OpenAI chat completions, spoken by every provider of the table but
 * Anthropic (OpenAI, Azure, Gemini's compatible endpoint, the Hugging Face
 * router, OpenRouter, DeepSeek, xAI, Groq, generic servers and named
 * endpoints): POST {base}/chat/completions, headers set by provider.c.
 * Body: model, messages with the system prompt as the first message, the
 * answer budget under the provider's field (max_completion_tokens or
 * max_tokens, which older servers understand), temperature, top_p, and the
 * reasoning setting as the provider takes it: "reasoning_effort": "high",
 * or OpenRouter's "reasoning": {"effort": "high"} / {"max_tokens": N} /
 * {"enabled": true}. Response: choices[0].message.content,
 * usage.prompt_tokens, completion_tokens, prompt_tokens_details.cached_tokens.
 * Error body: {"error":{"message":...,"type":...}} (some servers send a
 * bare string).
 */
#include "common.h"
#include "json.h"
#include "providers/provider.h"

/* The reasoning setting, as the provider takes it. */
static void add_reasoning(cJSON *root, const struct sc_model *model,
			  const struct sc_provider_info *p)
{
	if (!model->effort && !model->budget)
		return;
	if (p->effort == SC_EFFORT_REASONING_OBJECT) {
		cJSON *r = cJSON_AddObjectToObject(root, "reasoning");
		if (model->budget)
			cJSON_AddNumberToObject(r, "max_tokens", model->budget);
		else if (!strcmp(model->effort, "on"))
			cJSON_AddTrueToObject(r, "enabled");
		else
			cJSON_AddStringToObject(r, "effort", model->effort);
	} else if (p->effort == SC_EFFORT_REASONING_EFFORT && strcmp(model->effort, "on")) {
		/* "on" leaves the model's default; every other word is sent as is */
		cJSON_AddStringToObject(root, "reasoning_effort", model->effort);
	}
}

static void build_body(struct sc_buf *out, const struct sc_model *model,
		       const struct sc_chat_request *req)
{
	const struct sc_provider_info *p = sc_provider_get(model->kind);
	cJSON *root = cJSON_CreateObject(), *msgs, *m;

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
	cJSON_AddNumberToObject(root, p->max_tokens_field,
				req->max_tokens > 0 ? req->max_tokens : 4096);
	if (req->temperature >= 0)
		cJSON_AddNumberToObject(root, "temperature", req->temperature);
	if (model->top_p >= 0)
		cJSON_AddNumberToObject(root, "top_p", model->top_p);
	add_reasoning(root, model, p);
	sc_json_print(out, root, false);
	cJSON_Delete(root);
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
	prompt = sc_json_int_or(usage, "prompt_tokens", 0, INT64_MAX, 0);
	cached = sc_json_int_or(sc_json_member(usage, "prompt_tokens_details"), "cached_tokens",
				0, INT64_MAX, 0);
	if (cached > prompt)
		cached = prompt;
	resp->input_tokens = prompt - cached;
	resp->cache_read_tokens = cached;
	resp->cache_creation_tokens = 0;
	resp->output_tokens = sc_json_int_or(usage, "completion_tokens", 0, INT64_MAX, 0);
	free(resp->text);
	resp->text = sc_xstrdup(cJSON_IsString(content) ? content->valuestring : "");
done:
	cJSON_Delete(root);
	return err;
}

const struct sc_provider_wire sc_wire_openai = {
	build_body, "/chat/completions", parse_ok,
};
