/*
 * Anthropic Messages API: POST {base}/v1/messages with x-api-key and
 * anthropic-version headers (set by provider.c). Body: model, max_tokens,
 * optional system, messages, temperature, top_p and, for an EFFORT or a
 * ?reasoning=N budget, extended thinking with a token budget (added on top
 * of max_tokens so the answer keeps its own budget, the sum capped at the
 * model's output limit; temperature is then left out, as the API needs),
 * all as sc_model_shape() decides.
 * Response: the text blocks of content[], stop_reason ("max_tokens": cut
 * short), usage.input_tokens, output_tokens (thinking included),
 * cache_read_input_tokens, cache_creation_input_tokens.
 * Error body: {"type":"error","error":{"type":...,"message":...}}.
 */
#include "common.h"
#include "json.h"
#include "providers/provider.h"

static const char *role_name(enum sc_chat_role r)
{
	return r == SC_CHAT_ASSISTANT ? "assistant" : "user";
}

/*
 * fast-agent's other settings as the Messages API takes them: top_k, and
 * the server-side web_search and web_fetch tools (appended to "tools",
 * made when no tool came before; web_fetch also needs its beta header,
 * which provider.c sends from the shape).
 */
static void add_settings(cJSON *root, const struct sc_request_shape *sh)
{
	cJSON *tools, *t;

	if (sh->has & SC_MODEL_HAS_TOP_K)
		cJSON_AddNumberToObject(root, "top_k", sh->top_k);
	if (!sh->web_search && !sh->web_fetch)
		return;
	tools = cJSON_GetObjectItemCaseSensitive(root, "tools");
	if (!tools)
		tools = cJSON_AddArrayToObject(root, "tools");
	if (sh->web_search) {
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "type", "web_search_20250305");
		cJSON_AddStringToObject(t, "name", "web_search");
		cJSON_AddItemToArray(tools, t);
	}
	if (sh->web_fetch) {
		t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "type", "web_fetch_20250910");
		cJSON_AddStringToObject(t, "name", "web_fetch");
		cJSON_AddItemToArray(tools, t);
	}
}

static void build_body(struct sc_buf *out, const struct sc_model *model,
		       const struct sc_chat_request *req)
{
	cJSON *root = cJSON_CreateObject(), *msgs, *m;
	struct sc_request_shape sh;

	sc_model_shape(&sh, model, req);  /* refusals were reported at submit */
	sc_error_clear();
	cJSON_AddStringToObject(root, "model", model->id);
	cJSON_AddNumberToObject(root, "max_tokens", sh.max_tokens);
	if (req->system && *req->system)
		cJSON_AddStringToObject(root, "system", req->system);
	msgs = cJSON_AddArrayToObject(root, "messages");
	for (size_t i = 0; i < req->nmessages; i++) {
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "role", role_name(req->messages[i].role));
		cJSON_AddStringToObject(m, "content", req->messages[i].content);
		cJSON_AddItemToArray(msgs, m);
	}
	if (sh.thinking_budget > 0) {
		cJSON *t = cJSON_AddObjectToObject(root, "thinking");
		cJSON_AddStringToObject(t, "type", "enabled");
		cJSON_AddNumberToObject(t, "budget_tokens", sh.thinking_budget);
	}
	if (sh.temperature >= 0)
		cJSON_AddNumberToObject(root, "temperature", sh.temperature);
	if (sh.top_p >= 0)
		cJSON_AddNumberToObject(root, "top_p", sh.top_p);
	add_settings(root, &sh);
	sc_json_print(out, root, false);
	cJSON_Delete(root);
}

/* Joins the text blocks (thinking blocks are not part of the answer). */
static int parse_ok(struct sc_chat_response *resp, const char *body, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *content, *block, *usage;
	struct sc_buf text = SC_BUF_INIT;
	int err = 0;

	content = root ? cJSON_GetObjectItemCaseSensitive(root, "content") : NULL;
	if (!cJSON_IsArray(content)) {
		err = sc_error_set(SC_EPARSE, "anthropic response is not a Messages API answer (no content array)");
		goto done;
	}
	cJSON_ArrayForEach(block, content) {
		const cJSON *type = cJSON_GetObjectItemCaseSensitive(block, "type");
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(block, "text");
		if (cJSON_IsString(type) && !strcmp(type->valuestring, "text") && cJSON_IsString(t))
			sc_buf_puts(&text, t->valuestring);
	}
	usage = cJSON_GetObjectItemCaseSensitive(root, "usage");
	resp->input_tokens = sc_json_int_or(usage, "input_tokens", 0, INT64_MAX, 0);
	resp->output_tokens = sc_json_int_or(usage, "output_tokens", 0, INT64_MAX, 0);
	resp->cache_read_tokens = sc_json_int_or(usage, "cache_read_input_tokens", 0, INT64_MAX, 0);
	resp->cache_creation_tokens = sc_json_int_or(usage, "cache_creation_input_tokens", 0,
						    INT64_MAX, 0);
	free(resp->usage_raw);
	resp->usage_raw = usage ? cJSON_PrintUnformatted(usage) : NULL;
	{
		const cJSON *stop = cJSON_GetObjectItemCaseSensitive(root, "stop_reason");
		free(resp->stop_reason);
		resp->stop_reason = cJSON_IsString(stop) ? sc_xstrdup(stop->valuestring) : NULL;
	}
	free(resp->text);
	resp->text = sc_buf_detach(&text, NULL);
done:
	sc_buf_release(&text);
	cJSON_Delete(root);
	return err;
}

const struct sc_provider_wire sc_wire_anthropic = {
	build_body, "/v1/messages", parse_ok,
};
