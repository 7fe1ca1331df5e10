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
 * {"enabled": true}, all as sc_model_shape() decides. Response:
 * choices[0].message.content, choices[0].finish_reason ("length": cut
 * short), usage.prompt_tokens, completion_tokens,
 * prompt_tokens_details.cached_tokens (DeepSeek: prompt_cache_hit_tokens),
 * completion_tokens_details.reasoning_tokens (xAI: outside completion_tokens).
 * Error body: {"error":{"message":...,"type":...}} (some servers send a
 * bare string).
 *
 * Tools (agent runs): "tools": [{"type": "function", "function": {name,
 * description, parameters}}]; an assistant turn that called tools carries
 * "tool_calls": [{id, "type": "function", "function": {name, arguments}}]
 * (arguments a JSON text) and content null when it wrote nothing; each
 * result is a message {"role": "tool", tool_call_id, content}. The
 * answer's choices[0].message.tool_calls are its calls (finish_reason
 * "tool_calls"). A request without tools is sent exactly as before.
 */
#include "common.h"
#include "json.h"
#include "providers/provider.h"

/* The reasoning setting, as the provider takes it (shaped by sc_model_shape). */
static void add_reasoning(cJSON *root, const struct sc_request_shape *sh,
			  const struct sc_provider_info *p)
{
	if (p->effort == SC_EFFORT_REASONING_OBJECT) {
		cJSON *r;
		if (!sh->reasoning_budget && !sh->reasoning_on && !sh->effort)
			return;
		r = cJSON_AddObjectToObject(root, "reasoning");
		if (sh->reasoning_budget)
			cJSON_AddNumberToObject(r, "max_tokens", sh->reasoning_budget);
		else if (sh->reasoning_on)
			cJSON_AddTrueToObject(r, "enabled");
		else
			cJSON_AddStringToObject(r, "effort", sh->effort);
	} else if (p->effort == SC_EFFORT_REASONING_EFFORT && sh->effort) {
		cJSON_AddStringToObject(root, "reasoning_effort", sh->effort);
	}
}

/*
 * fast-agent's other settings where the provider takes them (shaped by
 * sc_model_shape): presence_penalty, and top_k, min_p and
 * repetition_penalty as top-level fields (what the Hugging Face router,
 * OpenRouter and vLLM read; fast-agent sends them as extra_body, which the
 * OpenAI SDK merges into the body); service_tier.
 */
static void add_settings(cJSON *root, const struct sc_request_shape *sh)
{
	if (sh->has & SC_MODEL_HAS_TOP_K)
		cJSON_AddNumberToObject(root, "top_k", sh->top_k);
	if (sh->has & SC_MODEL_HAS_MIN_P)
		cJSON_AddNumberToObject(root, "min_p", sh->min_p);
	if (sh->has & SC_MODEL_HAS_PRESENCE)
		cJSON_AddNumberToObject(root, "presence_penalty", sh->presence_penalty);
	if (sh->has & SC_MODEL_HAS_REPETITION)
		cJSON_AddNumberToObject(root, "repetition_penalty", sh->repetition_penalty);
	if (sh->service_tier)
		cJSON_AddStringToObject(root, "service_tier", sh->service_tier);
}

static void build_body(struct sc_buf *out, const struct sc_model *model,
		       const struct sc_chat_request *req)
{
	const struct sc_provider_info *p = sc_provider_get(model->kind);
	cJSON *root = cJSON_CreateObject(), *msgs, *m;
	struct sc_request_shape sh;

	sc_model_shape(&sh, model, req);  /* refusals were reported at submit */
	sc_error_clear();
	cJSON_AddStringToObject(root, "model", model->id);
	msgs = cJSON_AddArrayToObject(root, "messages");
	if (req->system && *req->system) {
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "role", "system");
		cJSON_AddStringToObject(m, "content", req->system);
		cJSON_AddItemToArray(msgs, m);
	}
	for (size_t i = 0; i < req->nmessages; i++) {
		const struct sc_chat_message *msg = &req->messages[i];
		const struct sc_chat_tool_msg *t = req->tool_msgs ? &req->tool_msgs[i] : NULL;
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "role", msg->role == SC_CHAT_ASSISTANT ? "assistant"
					: msg->role == SC_CHAT_TOOL ? "tool" : "user");
		if (msg->role == SC_CHAT_TOOL)
			cJSON_AddStringToObject(m, "tool_call_id", t && t->call_id ? t->call_id : "");
		if (msg->role == SC_CHAT_ASSISTANT && t && t->ncalls && !(msg->content && *msg->content))
			cJSON_AddNullToObject(m, "content");
		else
			cJSON_AddStringToObject(m, "content", msg->content);
		if (msg->role == SC_CHAT_ASSISTANT && t && t->ncalls) {
			cJSON *calls = cJSON_AddArrayToObject(m, "tool_calls");
			for (size_t c = 0; c < t->ncalls; c++) {
				cJSON *call = cJSON_CreateObject(), *fn;
				cJSON_AddStringToObject(call, "id", t->calls[c].id);
				cJSON_AddStringToObject(call, "type", "function");
				fn = cJSON_AddObjectToObject(call, "function");
				cJSON_AddStringToObject(fn, "name", t->calls[c].name);
				cJSON_AddStringToObject(fn, "arguments", t->calls[c].arguments);
				cJSON_AddItemToArray(calls, call);
			}
		}
		cJSON_AddItemToArray(msgs, m);
	}
	if (req->ntools) {
		cJSON *tools = cJSON_AddArrayToObject(root, "tools");
		for (size_t i = 0; i < req->ntools; i++) {
			cJSON *t = cJSON_CreateObject(), *fn, *params;
			cJSON_AddStringToObject(t, "type", "function");
			fn = cJSON_AddObjectToObject(t, "function");
			cJSON_AddStringToObject(fn, "name", req->tools[i].name);
			cJSON_AddStringToObject(fn, "description", req->tools[i].description);
			params = cJSON_Parse(req->tools[i].schema);
			if (!cJSON_IsObject(params)) {
				cJSON_Delete(params);
				params = cJSON_CreateObject();
			}
			cJSON_AddItemToObject(fn, "parameters", params);
			cJSON_AddItemToArray(tools, t);
		}
	}
	cJSON_AddNumberToObject(root, sh.max_tokens_field, sh.max_tokens);
	if (sh.temperature >= 0)
		cJSON_AddNumberToObject(root, "temperature", sh.temperature);
	if (sh.top_p >= 0)
		cJSON_AddNumberToObject(root, "top_p", sh.top_p);
	add_reasoning(root, &sh, p);
	if (sh.verbosity)
		cJSON_AddStringToObject(root, "verbosity", sh.verbosity);
	add_settings(root, &sh);
	sc_json_print(out, root, false);
	cJSON_Delete(root);
}

/*
 * Usage to one meaning: input without the cached part (OpenAI's
 * prompt_tokens_details.cached_tokens, DeepSeek's prompt_cache_hit_tokens),
 * output with reasoning (xAI counts reasoning_tokens outside
 * completion_tokens; the others inside). The usage object is kept raw.
 */
static void read_usage(struct sc_chat_response *resp, const cJSON *usage, bool reasoning_outside)
{
	const cJSON *details = sc_json_member(usage, "completion_tokens_details");
	int64_t prompt, cached, completion, reasoning;

	prompt = sc_json_int_or(usage, "prompt_tokens", 0, INT64_MAX, 0);
	cached = sc_json_int_or(sc_json_member(usage, "prompt_tokens_details"), "cached_tokens",
				0, INT64_MAX, 0);
	if (!cached)
		cached = sc_json_int_or(usage, "prompt_cache_hit_tokens", 0, INT64_MAX, 0);
	if (cached > prompt)
		cached = prompt;
	completion = sc_json_int_or(usage, "completion_tokens", 0, INT64_MAX, 0);
	reasoning = sc_json_int_or(details, "reasoning_tokens", 0, INT64_MAX, 0);
	if (reasoning_outside && reasoning <= INT64_MAX - completion)
		completion += reasoning;
	else if (reasoning > completion)
		reasoning = completion;
	resp->input_tokens = prompt - cached;
	resp->cache_read_tokens = cached;
	resp->cache_creation_tokens = 0;
	resp->output_tokens = completion;
	resp->reasoning_tokens = reasoning;
	free(resp->usage_raw);
	resp->usage_raw = usage ? cJSON_PrintUnformatted(usage) : NULL;
}

static int parse_ok(struct sc_chat_response *resp, const char *body, size_t len,
		    bool reasoning_outside)
{
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *choices, *choice, *msg, *content, *finish;
	int err = 0;

	choices = root ? cJSON_GetObjectItemCaseSensitive(root, "choices") : NULL;
	choice = cJSON_GetArrayItem(choices, 0);
	msg = cJSON_GetObjectItemCaseSensitive(choice, "message");
	content = cJSON_GetObjectItemCaseSensitive(msg, "content");
	if (!cJSON_IsObject(msg) || !(cJSON_IsString(content) || cJSON_IsNull(content) || !content)) {
		err = sc_error_set(SC_EPARSE, "response is not a chat completion (no choices[0].message)");
		goto done;
	}
	read_usage(resp, cJSON_GetObjectItemCaseSensitive(root, "usage"), reasoning_outside);
	finish = cJSON_GetObjectItemCaseSensitive(choice, "finish_reason");
	free(resp->stop_reason);
	resp->stop_reason = cJSON_IsString(finish) ? sc_xstrdup(finish->valuestring) : NULL;
	free(resp->text);
	resp->text = sc_xstrdup(cJSON_IsString(content) ? content->valuestring : "");
	free(resp->tool_calls);
	resp->tool_calls = NULL;
	{
		const cJSON *calls = cJSON_GetObjectItemCaseSensitive(msg, "tool_calls"), *call;
		cJSON *out = NULL;
		if (!cJSON_IsArray(calls))
			calls = NULL;
		cJSON_ArrayForEach(call, calls) {
			const cJSON *fn = cJSON_GetObjectItemCaseSensitive(call, "function");
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(call, "id");
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(fn, "name");
			const cJSON *args = cJSON_GetObjectItemCaseSensitive(fn, "arguments");
			cJSON *c = cJSON_CreateObject();
			if (!out)
				out = cJSON_CreateArray();
			cJSON_AddStringToObject(c, "id", cJSON_IsString(id) ? id->valuestring : "");
			cJSON_AddStringToObject(c, "name", cJSON_IsString(name) ? name->valuestring : "");
			cJSON_AddStringToObject(c, "arguments", cJSON_IsString(args) ? args->valuestring
						: "{}");
			cJSON_AddItemToArray(out, c);
		}
		if (out) {
			resp->tool_calls = cJSON_PrintUnformatted(out);
			cJSON_Delete(out);
		}
	}
done:
	cJSON_Delete(root);
	return err;
}

static int parse_openai(struct sc_chat_response *resp, const char *body, size_t len)
{
	return parse_ok(resp, body, len, false);
}

static int parse_xai(struct sc_chat_response *resp, const char *body, size_t len)
{
	return parse_ok(resp, body, len, true);
}

const struct sc_provider_wire sc_wire_openai = {
	build_body, "/chat/completions", parse_openai,
};

const struct sc_provider_wire sc_wire_openai_xai = {
	build_body, "/chat/completions", parse_xai,
};
