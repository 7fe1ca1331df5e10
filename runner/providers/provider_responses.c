/*
 * OpenAI's Responses API, fast-agent's "responses" provider (the models
 * OpenAI serves only there, the Codex models among them, and the o-series
 * and gpt-5 family that fast-agent sends there): POST {base}/responses,
 * headers set by provider.c (Authorization: Bearer OPENAI_API_KEY).
 *
 * Body: model, instructions (the system prompt), input (the turns as
 * {role, content} messages), max_output_tokens (at least 16, the API's
 * floor), store false (nothing kept on OpenAI's side), temperature and
 * top_p where the model takes them, reasoning {effort}, text {verbosity},
 * service_tier ("priority" for fast-agent's fast, "flex") and the
 * server-side web_search tool, all as sc_model_shape() decides.
 *
 * Response: the output_text parts (and refusal parts) of the "message"
 * items of output[]; status "incomplete" with incomplete_details.reason
 * "max_output_tokens" is a cut answer (stop_reason "max_output_tokens"),
 * another reason is kept as the stop reason; status "failed" is an error
 * with the response's error.message. Usage: input_tokens (cached ones,
 * input_tokens_details.cached_tokens, moved to the cache read count),
 * output_tokens, which holds the reasoning tokens
 * (output_tokens_details.reasoning_tokens, kept as their part). Error
 * bodies are OpenAI's {"error": {"message", "type", "code"}}, read by
 * sc_provider_parse_error().
 */
#include "common.h"
#include "json.h"
#include "providers/provider.h"

#define MIN_OUTPUT_TOKENS 16   /* the Responses API refuses a smaller max_output_tokens */

static void build_body(struct sc_buf *out, const struct sc_model *model,
		       const struct sc_chat_request *req)
{
	cJSON *root = cJSON_CreateObject(), *input, *m;
	struct sc_request_shape sh;

	sc_model_shape(&sh, model, req);  /* refusals were reported at submit */
	sc_error_clear();
	cJSON_AddStringToObject(root, "model", model->id);
	if (req->system && *req->system)
		cJSON_AddStringToObject(root, "instructions", req->system);
	input = cJSON_AddArrayToObject(root, "input");
	for (size_t i = 0; i < req->nmessages; i++) {
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "role", req->messages[i].role == SC_CHAT_ASSISTANT ?
					"assistant" : "user");
		cJSON_AddStringToObject(m, "content", req->messages[i].content);
		cJSON_AddItemToArray(input, m);
	}
	cJSON_AddNumberToObject(root, "max_output_tokens",
				sh.max_tokens < MIN_OUTPUT_TOKENS ? MIN_OUTPUT_TOKENS : sh.max_tokens);
	cJSON_AddFalseToObject(root, "store");
	if (sh.temperature >= 0)
		cJSON_AddNumberToObject(root, "temperature", sh.temperature);
	if (sh.top_p >= 0)
		cJSON_AddNumberToObject(root, "top_p", sh.top_p);
	if (sh.effort)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(root, "reasoning"), "effort", sh.effort);
	if (sh.verbosity)
		cJSON_AddStringToObject(cJSON_AddObjectToObject(root, "text"), "verbosity",
					sh.verbosity);
	if (sh.service_tier)
		cJSON_AddStringToObject(root, "service_tier", sh.service_tier);
	if (sh.web_search) {
		cJSON *tools = cJSON_GetObjectItemCaseSensitive(root, "tools");
		if (!tools)
			tools = cJSON_AddArrayToObject(root, "tools");
		m = cJSON_CreateObject();
		cJSON_AddStringToObject(m, "type", "web_search");
		cJSON_AddItemToArray(tools, m);
	}
	sc_json_print(out, root, false);
	cJSON_Delete(root);
}

/* input_tokens without the cached part; output_tokens with the reasoning inside. */
static void read_usage(struct sc_chat_response *resp, const cJSON *usage)
{
	int64_t input, cached, output, reasoning;

	input = sc_json_int_or(usage, "input_tokens", 0, INT64_MAX, 0);
	cached = sc_json_int_or(sc_json_member(usage, "input_tokens_details"), "cached_tokens", 0,
				INT64_MAX, 0);
	output = sc_json_int_or(usage, "output_tokens", 0, INT64_MAX, 0);
	reasoning = sc_json_int_or(sc_json_member(usage, "output_tokens_details"), "reasoning_tokens",
				   0, INT64_MAX, 0);
	if (cached > input)
		cached = input;
	if (reasoning > output)
		reasoning = output;
	resp->input_tokens = input - cached;
	resp->cache_read_tokens = cached;
	resp->cache_creation_tokens = 0;
	resp->output_tokens = output;
	resp->reasoning_tokens = reasoning;
	free(resp->usage_raw);
	resp->usage_raw = usage ? cJSON_PrintUnformatted(usage) : NULL;
}

/* The text of the message items: output_text parts, and what a refusal part says. */
static void read_text(struct sc_buf *text, const cJSON *output)
{
	const cJSON *item, *part;

	cJSON_ArrayForEach(item, output) {
		const char *type = NULL;
		if (sc_json_get_str(&type, item, "type") != SC_JSON_OK || strcmp(type, "message"))
			continue;  /* reasoning, web_search_call, ... are not the answer */
		cJSON_ArrayForEach(part, cJSON_GetObjectItemCaseSensitive(item, "content")) {
			const char *ptype = NULL, *s = NULL;
			if (sc_json_get_str(&ptype, part, "type") != SC_JSON_OK)
				continue;
			if (!strcmp(ptype, "output_text"))
				sc_json_get_str(&s, part, "text");
			else if (!strcmp(ptype, "refusal"))
				sc_json_get_str(&s, part, "refusal");
			if (s)
				sc_buf_puts(text, s);
		}
	}
}

static int parse_ok(struct sc_chat_response *resp, const char *body, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *output = root ? cJSON_GetObjectItemCaseSensitive(root, "output") : NULL;
	const char *status = NULL, *reason = NULL;
	struct sc_buf text = SC_BUF_INIT;
	int err = 0;

	if (!cJSON_IsArray(output)) {
		err = sc_error_set(SC_EPARSE, "response is not a Responses API answer (no output array)");
		goto done;
	}
	sc_json_get_str(&status, root, "status");
	if (status && !strcmp(status, "failed")) {
		const char *msg = NULL, *code = NULL;
		const cJSON *e = sc_json_member(root, "error");
		sc_json_get_str(&msg, e, "message");
		sc_json_get_str(&code, e, "code");
		err = sc_error_set(SC_EPARSE, "the response failed: %s%s%s", code ? code : "",
				   code ? ": " : "", msg ? msg : "(no message)");
		goto done;
	}
	read_usage(resp, cJSON_GetObjectItemCaseSensitive(root, "usage"));
	if (status && !strcmp(status, "incomplete"))
		sc_json_get_str(&reason, sc_json_member(root, "incomplete_details"), "reason");
	free(resp->stop_reason);
	resp->stop_reason = reason ? sc_xstrdup(reason) : status ? sc_xstrdup(status) : NULL;
	read_text(&text, output);
	free(resp->text);
	resp->text = sc_buf_detach(&text, NULL);
done:
	sc_buf_release(&text);
	cJSON_Delete(root);
	return err;
}

const struct sc_provider_wire sc_wire_responses = {
	build_body, "/responses", parse_ok,
};
