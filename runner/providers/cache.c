/* Response cache on disk: see cache.h. */
#include "common.h"
#include "json.h"
#include "providers/cache.h"
#include "secret.h"

#include <time.h>

/*
 * The canonical request JSON the key is computed over (appended to out).
 * server is the endpoint URL of a provider whose model names are local to
 * it (generic servers, named endpoints, Azure deployments: two servers may
 * both serve "llama"); NULL for providers whose model ids are global.
 */
static void sc_cache_canonical(struct sc_buf *out, const struct sc_model *model,
			       const struct sc_chat_request *req, const char *server)
{
	cJSON *root = cJSON_CreateObject(), *msgs;

	cJSON_AddNumberToObject(root, "v", 1);
	cJSON_AddStringToObject(root, "provider", sc_provider_name(model->kind));
	cJSON_AddStringToObject(root, "model", model->id);
	if (server)
		cJSON_AddStringToObject(root, "server", server);
	if (model->effort)
		cJSON_AddStringToObject(root, "effort", model->effort);
	else
		cJSON_AddNullToObject(root, "effort");
	/* settings added later appear only when set, so older keys stay valid */
	if (model->budget)
		cJSON_AddNumberToObject(root, "budget", model->budget);
	if (model->top_p >= 0)
		cJSON_AddNumberToObject(root, "top_p", model->top_p);
	if (model->verbosity)
		cJSON_AddStringToObject(root, "verbosity", model->verbosity);
	if (model->has & SC_MODEL_HAS_TOP_K)
		cJSON_AddNumberToObject(root, "top_k", model->top_k);
	if (model->has & SC_MODEL_HAS_MIN_P)
		cJSON_AddNumberToObject(root, "min_p", model->min_p);
	if (model->has & SC_MODEL_HAS_PRESENCE)
		cJSON_AddNumberToObject(root, "presence_penalty", model->presence_penalty);
	if (model->has & SC_MODEL_HAS_REPETITION)
		cJSON_AddNumberToObject(root, "repetition_penalty", model->repetition_penalty);
	if (model->service_tier)
		cJSON_AddStringToObject(root, "service_tier", model->service_tier);
	if ((model->has & SC_MODEL_HAS_WEB_SEARCH) && model->web_search)
		cJSON_AddTrueToObject(root, "web_search");
	if ((model->has & SC_MODEL_HAS_WEB_FETCH) && model->web_fetch)
		cJSON_AddTrueToObject(root, "web_fetch");
	if ((model->has & SC_MODEL_HAS_CONTEXT) && model->long_context)
		cJSON_AddTrueToObject(root, "context_1m");
	if (req->system && *req->system)
		cJSON_AddStringToObject(root, "system", req->system);
	else
		cJSON_AddNullToObject(root, "system");
	msgs = cJSON_AddArrayToObject(root, "messages");
	for (size_t i = 0; i < req->nmessages; i++) {
		const struct sc_chat_tool_msg *t = req->tool_msgs ? &req->tool_msgs[i] : NULL;
		cJSON *pair = cJSON_CreateArray();
		cJSON_AddItemToArray(pair, cJSON_CreateString(
			req->messages[i].role == SC_CHAT_ASSISTANT ? "assistant"
			: req->messages[i].role == SC_CHAT_TOOL ? "tool" : "user"));
		cJSON_AddItemToArray(pair, cJSON_CreateString(req->messages[i].content));
		/* a tool call or result adds its parts; a plain message keeps
		 * the pair it always had, so older keys stay valid */
		if (t && (t->ncalls || t->call_id)) {
			cJSON *parts = cJSON_CreateArray();
			for (size_t c = 0; c < t->ncalls; c++) {
				cJSON *call = cJSON_CreateArray();
				cJSON_AddItemToArray(call, cJSON_CreateString(t->calls[c].id));
				cJSON_AddItemToArray(call, cJSON_CreateString(t->calls[c].name));
				cJSON_AddItemToArray(call, cJSON_CreateString(t->calls[c].arguments));
				cJSON_AddItemToArray(parts, call);
			}
			if (t->call_id) {
				cJSON_AddItemToArray(parts, cJSON_CreateString(t->call_id));
				cJSON_AddItemToArray(parts, cJSON_CreateBool(t->is_error));
			}
			cJSON_AddItemToArray(pair, parts);
		}
		cJSON_AddItemToArray(msgs, pair);
	}
	if (req->ntools) {
		cJSON *tools = cJSON_AddArrayToObject(root, "tools");
		for (size_t i = 0; i < req->ntools; i++) {
			cJSON *t = cJSON_CreateArray();
			cJSON_AddItemToArray(t, cJSON_CreateString(req->tools[i].name));
			cJSON_AddItemToArray(t, cJSON_CreateString(req->tools[i].description));
			cJSON_AddItemToArray(t, cJSON_CreateString(req->tools[i].schema));
			cJSON_AddItemToArray(tools, t);
		}
	}
	cJSON_AddNumberToObject(root, "max_tokens", req->max_tokens > 0 ? req->max_tokens : 4096);
	if (req->temperature >= 0)
		cJSON_AddNumberToObject(root, "temperature", req->temperature);
	else
		cJSON_AddNullToObject(root, "temperature");
	cJSON_AddNumberToObject(root, "run", req->run_index);
	sc_json_print(out, root, false);
	cJSON_Delete(root);
}

void sc_cache_key(char out[SC_SHA256_HEX_LEN + 1], const struct sc_model *model,
		  const struct sc_chat_request *req, const char *server)
{
	struct sc_buf canon = SC_BUF_INIT;

	sc_cache_canonical(&canon, model, req, server);
	sc_sha256_hex(out, canon.ptr, canon.len);
	sc_buf_release(&canon);
}

void sc_cache_path(struct sc_buf *out, const char *dir, const char *key)
{
	sc_buf_clear(out);
	sc_buf_printf(out, "%s/%.2s/%s.json", dir, key, key);
}

/*
 * The entry's MAC: HMAC-SHA-256 under the runner key over the cache key,
 * the answer and its token counts, each NUL-separated after a version
 * tag. An entry whose text or counts were rewritten, or that was copied
 * under another key, no longer matches.
 */
static void entry_mac(char out[SC_SHA256_HEX_LEN + 1], const char *key, const char *text,
		      const int64_t counts[4], const char *tool_calls)
{
	unsigned char mac[SC_SHA256_LEN];
	struct sc_buf num = SC_BUF_INIT;
	struct sc_hmac h;

	sc_hmac_init(&h, sc_runner_key(), SC_RUNNER_KEY_LEN);
	sc_hmac_update(&h, "skillci-cache/1", 16);
	sc_hmac_update(&h, key, strlen(key) + 1);
	sc_hmac_update(&h, text, strlen(text) + 1);
	for (int i = 0; i < 4; i++)
		sc_buf_printf(&num, "%lld;", (long long)counts[i]);
	sc_hmac_update(&h, num.ptr, num.len);
	/* an answer's tool calls, when it made any (entries without keep
	 * the MAC they always had) */
	if (tool_calls) {
		sc_hmac_update(&h, "tool_calls", 11);
		sc_hmac_update(&h, tool_calls, strlen(tool_calls) + 1);
	}
	sc_hmac_final(&h, mac);
	sc_buf_clear(&num);
	sc_hex(&num, mac, sizeof(mac));
	memcpy(out, num.ptr, SC_SHA256_HEX_LEN + 1);
	sc_buf_release(&num);
}

int sc_cache_get(const char *dir, const char *key, struct sc_chat_response *resp)
{
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT;
	cJSON *root = NULL;
	const cJSON *k, *text, *usage, *mac, *calls;
	char want[SC_SHA256_HEX_LEN + 1];
	int64_t counts[4];
	int err = SC_ENOTFOUND;

	sc_cache_path(&path, dir, key);
	if (sc_read_file(&data, path.ptr, SC_MAX_CACHE_ENTRY_BYTES) < 0) {
		sc_error_clear();
		goto done;
	}
	root = cJSON_ParseWithLength(data.ptr, data.len);
	k = cJSON_GetObjectItemCaseSensitive(root, "key");
	text = cJSON_GetObjectItemCaseSensitive(root, "text");
	calls = cJSON_GetObjectItemCaseSensitive(root, "tool_calls");
	if (calls && !cJSON_IsString(calls))
		calls = NULL;
	if (!cJSON_IsString(k) || strcmp(k->valuestring, key) || !cJSON_IsString(text) ||
	    (!*text->valuestring && !calls)) {
		sc_trace("http", "cache entry '%s' is corrupt; ignored", path.ptr);
		goto done;
	}
	usage = cJSON_GetObjectItemCaseSensitive(root, "usage");
	counts[0] = sc_json_int_or(usage, "input_tokens", 0, INT64_MAX, 0);
	counts[1] = sc_json_int_or(usage, "output_tokens", 0, INT64_MAX, 0);
	counts[2] = sc_json_int_or(usage, "cache_read_tokens", 0, INT64_MAX, 0);
	counts[3] = sc_json_int_or(usage, "cache_creation_tokens", 0, INT64_MAX, 0);
	mac = cJSON_GetObjectItemCaseSensitive(root, "mac");
	entry_mac(want, key, text->valuestring, counts, calls ? calls->valuestring : NULL);
	if (!cJSON_IsString(mac) || strlen(mac->valuestring) != SC_SHA256_HEX_LEN ||
	    !sc_digest_equal((const unsigned char *)mac->valuestring, (const unsigned char *)want,
			   SC_SHA256_HEX_LEN)) {
		sc_trace("http", "cache entry '%s' fails its integrity check (written by another "
			 "runner, or rewritten); ignored", path.ptr);
		goto done;
	}
	free(resp->text);
	resp->text = sc_xstrdup(text->valuestring);
	resp->input_tokens = counts[0];
	resp->output_tokens = counts[1];
	resp->cache_read_tokens = counts[2];
	resp->cache_creation_tokens = counts[3];
	free(resp->tool_calls);
	resp->tool_calls = calls ? sc_xstrdup(calls->valuestring) : NULL;
	resp->from_cache = true;
	err = 0;
done:
	cJSON_Delete(root);
	sc_buf_release(&data);
	sc_buf_release(&path);
	if (err < 0)
		return sc_error_set(SC_ENOTFOUND, "no cached answer for '%s'", key);
	return 0;
}

int sc_cache_put(const char *dir, const char *key, const struct sc_model *model,
		 const struct sc_chat_response *resp)
{
	struct sc_buf path = SC_BUF_INIT, when = SC_BUF_INIT, json = SC_BUF_INIT;
	cJSON *root = NULL, *usage;
	char *slash, mac[SC_SHA256_HEX_LEN + 1];
	const int64_t counts[4] = { resp->input_tokens, resp->output_tokens, resp->cache_read_tokens,
				    resp->cache_creation_tokens };
	int err = 0;

	if (resp->error || resp->error_class != SC_CHAT_OK || !resp->text ||
	    (!*resp->text && !resp->tool_calls) || resp->oracle)
		return 0;
	root = cJSON_CreateObject();
	cJSON_AddStringToObject(root, "key", key);
	cJSON_AddStringToObject(root, "model", model->name);
	sc_time_iso8601(&when, (int64_t)time(NULL));
	cJSON_AddStringToObject(root, "created", when.ptr);
	cJSON_AddStringToObject(root, "text", resp->text);
	if (resp->tool_calls)
		cJSON_AddStringToObject(root, "tool_calls", resp->tool_calls);
	usage = cJSON_AddObjectToObject(root, "usage");
	cJSON_AddNumberToObject(usage, "input_tokens", (double)resp->input_tokens);
	cJSON_AddNumberToObject(usage, "output_tokens", (double)resp->output_tokens);
	cJSON_AddNumberToObject(usage, "cache_read_tokens", (double)resp->cache_read_tokens);
	cJSON_AddNumberToObject(usage, "cache_creation_tokens", (double)resp->cache_creation_tokens);
	entry_mac(mac, key, resp->text, counts, resp->tool_calls);
	cJSON_AddStringToObject(root, "mac", mac);
	sc_json_print(&json, root, false);
	sc_cache_path(&path, dir, key);
	slash = strrchr(path.ptr, '/');
	*slash = '\0';
	err = sc_mkdir_p(path.ptr);
	*slash = '/';
	if (err < 0)
		goto done;
	err = sc_write_file_atomic(path.ptr, json.ptr, json.len);
done:
	sc_buf_release(&json);
	cJSON_Delete(root);
	sc_buf_release(&when);
	sc_buf_release(&path);
	return err;
}

void sc_cache_default_dir(struct sc_buf *out)
{
	const char *v;

	sc_buf_clear(out);
	if ((v = getenv("SKILLCI_CACHE_DIR")) && *v)
		sc_buf_puts(out, v);
	else if ((v = getenv("XDG_CACHE_HOME")) && *v)
		sc_buf_printf(out, "%s/skillci/responses", v);
	else if ((v = getenv("HOME")) && *v)
		sc_buf_printf(out, "%s/.cache/skillci/responses", v);
	else
		sc_buf_puts(out, ".skillci-cache");
}

int sc_cache_mode_parse(enum sc_cache_mode *out, const char *s)
{
	static const struct { const char *name; enum sc_cache_mode mode; } modes[] = {
		{ "use", SC_CACHE_USE }, { "refresh", SC_CACHE_REFRESH },
		{ "off", SC_CACHE_OFF }, { "offline", SC_CACHE_OFFLINE },
	};
	for (size_t i = 0; i < SC_ARRAY_SIZE(modes); i++) {
		if (!strcmp(s, modes[i].name)) {
			*out = modes[i].mode;
			return 0;
		}
	}
	return sc_error_set(SC_EINVAL, "unknown cache mode '%s' (use, refresh, off or offline)", s);
}
