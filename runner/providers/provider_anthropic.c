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
 *
 * Tools (agent runs): "tools": [{name, description, input_schema}]; an
 * assistant turn that called tools is sent as content blocks (its text,
 * then a tool_use block {id, name, input} per call), the results as one
 * user message of tool_result blocks {tool_use_id, content, is_error}
 * (consecutive messages of one role are merged, as the API wants them
 * alternating); the tool_use blocks of an answer are its tool calls.
 * A request without tools is sent exactly as before.
 */
#include "common.h"
#include "json.h"
#include "providers/provider.h"

static const char *role_name(enum sc_chat_role r)
{
	return r == SC_CHAT_ASSISTANT ? "assistant" : "user";
}

/* A JSON object parsed from text; an empty object when it is not one. */
static cJSON *object_of(const char *text)
{
	cJSON *o = text ? cJSON_Parse(text) : NULL;

	if (!cJSON_IsObject(o)) {
		cJSON_Delete(o);
		o = cJSON_CreateObject();
	}
	return o;
}

/*
 * The messages as content blocks, for a request that carries tool calls
 * or results: text, tool_use and tool_result blocks, consecutive
 * messages of one role merged into one message.
 */
static void add_block_messages(cJSON *msgs, const struct sc_chat_request *req)
{
	cJSON *cur = NULL, *blocks = NULL;
	const char *cur_role = NULL;

	for (size_t i = 0; i < req->nmessages; i++) {
		const struct sc_chat_message *m = &req->messages[i];
		const struct sc_chat_tool_msg *t = req->tool_msgs ? &req->tool_msgs[i] : NULL;
		const char *role = role_name(m->role);
		cJSON *b;

		if (!cur || strcmp(cur_role, role)) {
			cur = cJSON_CreateObject();
			cJSON_AddStringToObject(cur, "role", role);
			blocks = cJSON_AddArrayToObject(cur, "content");
			cJSON_AddItemToArray(msgs, cur);
			cur_role = role;
		}
		if (m->role == SC_CHAT_TOOL) {
			b = cJSON_CreateObject();
			cJSON_AddStringToObject(b, "type", "tool_result");
			cJSON_AddStringToObject(b, "tool_use_id", t && t->call_id ? t->call_id : "");
			cJSON_AddStringToObject(b, "content", m->content ? m->content : "");
			if (t && t->is_error)
				cJSON_AddTrueToObject(b, "is_error");
			cJSON_AddItemToArray(blocks, b);
			continue;
		}
		if (m->content && *m->content) {
			b = cJSON_CreateObject();
			cJSON_AddStringToObject(b, "type", "text");
			cJSON_AddStringToObject(b, "text", m->content);
			cJSON_AddItemToArray(blocks, b);
		}
		for (size_t c = 0; t && m->role == SC_CHAT_ASSISTANT && c < t->ncalls; c++) {
			b = cJSON_CreateObject();
			cJSON_AddStringToObject(b, "type", "tool_use");
			cJSON_AddStringToObject(b, "id", t->calls[c].id);
			cJSON_AddStringToObject(b, "name", t->calls[c].name);
			cJSON_AddItemToObject(b, "input", object_of(t->calls[c].arguments));
			cJSON_AddItemToArray(blocks, b);
		}
	}
}

static void add_tools(cJSON *root, const struct sc_chat_request *req)
{
	cJSON *tools = cJSON_AddArrayToObject(root, "tools");

	for (size_t i = 0; i < req->ntools; i++) {
		cJSON *t = cJSON_CreateObject();
		cJSON_AddStringToObject(t, "name", req->tools[i].name);
		cJSON_AddStringToObject(t, "description", req->tools[i].description);
		cJSON_AddItemToObject(t, "input_schema", object_of(req->tools[i].schema));
		cJSON_AddItemToArray(tools, t);
	}
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

/* True when any message carries a tool call or result. */
static bool has_tool_parts(const struct sc_chat_request *req)
{
	for (size_t i = 0; i < req->nmessages; i++)
		if (req->messages[i].role == SC_CHAT_TOOL ||
		    (req->tool_msgs && req->tool_msgs[i].ncalls))
			return true;
	return false;
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
	if (has_tool_parts(req)) {
		add_block_messages(msgs, req);
	} else {
		for (size_t i = 0; i < req->nmessages; i++) {
			m = cJSON_CreateObject();
			cJSON_AddStringToObject(m, "role", role_name(req->messages[i].role));
			cJSON_AddStringToObject(m, "content", req->messages[i].content);
			cJSON_AddItemToArray(msgs, m);
		}
	}
	if (req->ntools)
		add_tools(root, req);
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

/* Joins the text blocks (thinking blocks are not part of the answer);
 * the tool_use blocks are its tool calls. */
static int parse_ok(struct sc_chat_response *resp, const char *body, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *content, *block, *usage;
	struct sc_buf text = SC_BUF_INIT;
	cJSON *calls = NULL;
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
		if (cJSON_IsString(type) && !strcmp(type->valuestring, "tool_use")) {
			const cJSON *id = cJSON_GetObjectItemCaseSensitive(block, "id");
			const cJSON *name = cJSON_GetObjectItemCaseSensitive(block, "name");
			const cJSON *input = cJSON_GetObjectItemCaseSensitive(block, "input");
			cJSON *c = cJSON_CreateObject();
			char *args = cJSON_IsObject(input) ? cJSON_PrintUnformatted(input) : NULL;
			if (!calls)
				calls = cJSON_CreateArray();
			cJSON_AddStringToObject(c, "id", cJSON_IsString(id) ? id->valuestring : "");
			cJSON_AddStringToObject(c, "name", cJSON_IsString(name) ? name->valuestring : "");
			cJSON_AddStringToObject(c, "arguments", args ? args : "{}");
			cJSON_AddItemToArray(calls, c);
			free(args);
		}
	}
	free(resp->tool_calls);
	resp->tool_calls = calls ? cJSON_PrintUnformatted(calls) : NULL;
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
	cJSON_Delete(calls);
	cJSON_Delete(root);
	return err;
}

const struct sc_provider_wire sc_wire_anthropic = {
	build_body, "/v1/messages", parse_ok,
};
