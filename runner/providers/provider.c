/*
 * The request scheduler and the adaptive concurrency limiter. The provider
 * table and model names live in models.c, the wire formats in
 * provider_anthropic.c and provider_openai.c, the oracle in
 * provider_oracle.c, the transport in http.c, the cache in cache.c.
 *
 * Scheduling: every submitted request becomes a job in one FIFO queue. The
 * run loop starts queued jobs while the total bound and the job's provider
 * limit allow and the job's retry time has come, then polls the HTTP loop.
 * A finished attempt is either completed (callback, then freed) or put back
 * at the front of the queue with a retry time: Retry-After when the server
 * sent one, else exponential backoff with full jitter.
 *
 * Outside work (kernel checks on other threads) is announced with
 * sc_client_expect() and handed back with sc_client_post(): the posted
 * callbacks run on the loop's thread between polls, and a post wakes the
 * poll at once (sc_http_wakeup), so a finished check never waits for a
 * request to end. The loop runs until no request and no announced work
 * is left.
 */
#include "common.h"
#include "json.h"
#include "providers/provider.h"
#include "redact.h"
#include "providers/cache.h"
#include "net/http.h"

#include <ctype.h>
#include <pthread.h>
#include <time.h>
#include <unistd.h>

const char *sc_chat_error_name(enum sc_chat_error e)
{
	static const char *const names[] = {
		"ok", "bad_request", "auth", "rate_limited", "server", "network",
		"timeout", "parse", "offline", "config", "cancelled", "truncated", "quota",
		"prompt_too_long",
	};
	return (size_t)e < SC_ARRAY_SIZE(names) ? names[e] : "unknown";
}

void sc_limiter_init(struct sc_limiter *l, int max, int strikes_needed, int raise_after)
{
	memset(l, 0, sizeof(*l));
	l->max = l->limit = max > 0 ? max : 1;
	l->strikes_needed = strikes_needed > 0 ? strikes_needed : 1;
	l->raise_after = raise_after > 0 ? raise_after : 1;
}

/* A 429 for a request sent under an older limit says nothing about the
 * current one, so only current-epoch 429s count as strikes. */
bool sc_limiter_on_429(struct sc_limiter *l, int epoch)
{
	l->streak = 0;
	if (epoch != l->epoch)
		return false;
	if (++l->strikes < l->strikes_needed)
		return false;
	l->strikes = 0;
	if (l->limit <= 1)
		return false;
	l->limit /= 2;
	l->epoch++;
	return true;
}

bool sc_limiter_on_success(struct sc_limiter *l)
{
	l->strikes = 0;
	if (l->limit >= l->max)
		return false;
	if (++l->streak < l->raise_after)
		return false;
	l->streak = 0;
	l->limit++;
	l->epoch++;
	return true;
}

void sc_client_options_init(struct sc_client_options *o)
{
	memset(o, 0, sizeof(*o));
	o->max_total = SC_PROVIDER_MAX_TOTAL;
	o->max_per_provider = SC_PROVIDER_MAX_EACH;
	o->max_attempts = SC_PROVIDER_MAX_ATTEMPTS;
	o->deadline_ms = SC_PROVIDER_DEADLINE_MS;
	o->timeout_ms = SC_PROVIDER_TIMEOUT_MS;
	o->connect_timeout_ms = SC_PROVIDER_CONNECT_MS;
	o->low_speed_time_s = SC_PROVIDER_LOW_SPEED_S;
	o->low_speed_limit = 1;
	o->backoff_base_ms = SC_PROVIDER_BACKOFF_MS;
	o->backoff_max_ms = SC_PROVIDER_BACKOFF_MAX_MS;
	o->retry_after_max_ms = SC_PROVIDER_RETRY_AFTER_MAX_MS;
	o->strikes_429 = SC_PROVIDER_429_STRIKES;
	o->raise_after = SC_PROVIDER_RAISE_AFTER;
	o->cache_mode = SC_CACHE_OFF;
}

struct provider_state {
	bool configured;       /* environment read */
	char *key;             /* NULL for a keyless server */
	char *base;            /* base URL, no trailing slash */
	char *api_version;     /* Azure's api-version */
	struct sc_limiter limiter;
	int in_flight;
	struct sc_provider_stats stats;
};

struct job {
	struct job *prev, *next;           /* in the queue */
	struct job *rprev, *rnext;         /* in the running list, during an attempt */
	struct sc_client *client;
	struct sc_model model;
	struct provider_state *prov;
	char *url;                         /* the endpoint this request goes to */
	struct sc_chat_request req;        /* the caller's, pointing at the copies below */
	char *model_name, *system, *oracle_answer, *label;  /* owned copies req points at */
	struct sc_chat_message *messages;  /* owned array req.messages points at */
	char **texts;                      /* owned copies messages[i].content points at */
	struct sc_tool_def *tools;         /* owned copies req.tools, req.tool_msgs point at */
	struct sc_chat_tool_msg *tool_msgs;
	struct sc_tool_call *calls;        /* every message's calls, one array */
	size_t ncalls;
	sc_chat_cb cb;
	void *payload;
	char key[SC_SHA256_HEX_LEN + 1];   /* cache key, "" when not cached */
	bool cache_checked;
	struct sc_buf body;                /* built once, reused by retries */
	int64_t submitted_ms, not_before_ms;
	int epoch;
	struct sc_chat_response resp;
};

/* A completion handed back from another thread (sc_client_post). */
struct posted {
	struct posted *next;
	void (*fn)(void *payload);
	void *payload;
};

struct sc_client {
	struct sc_client_options opt;
	char *cache_dir;
	struct sc_http *http;
	struct provider_state prov[SC_PROVIDER_MAX];
	struct job *head, *tail;           /* queued jobs (waiting to start or retry) */
	struct job *running;               /* jobs with an attempt in flight */
	int in_flight;
	size_t unchecked;                  /* queued jobs not yet tried locally */
	bool dirty;                        /* jobs were queued since dispatch began */
	uint64_t rng;
	struct sc_redact redact;           /* the keys' forms, added as providers are configured */
	bool redact_added[SC_PROVIDER_MAX]; /* providers whose key is in redact */
	/* outside work */
	pthread_mutex_t post_lock;         /* guards posted_head/tail */
	struct posted *posted_head, *posted_tail;
	size_t pending;                    /* expected and not yet run (loop thread only) */
	void (*tick)(void *payload);
	void *tick_payload;
	int64_t tick_ms, next_tick_ms;
};

int sc_client_new(struct sc_client **out, const struct sc_client_options *opt)
{
	struct sc_client *c = sc_xcalloc(1, sizeof(*c));
	int err;

	c->opt = *opt;
	if (c->opt.max_total < 1)
		c->opt.max_total = 1;
	if (c->opt.max_per_provider < 1)
		c->opt.max_per_provider = 1;
	if (c->opt.max_attempts < 1)
		c->opt.max_attempts = 1;
	c->cache_dir = opt->cache_dir ? sc_xstrdup(opt->cache_dir) : NULL;
	if (!c->cache_dir)
		c->opt.cache_mode = SC_CACHE_OFF;
	c->opt.cache_dir = c->cache_dir;
	c->rng = opt->seed ? opt->seed : ((uint64_t)sc_now_ns() ^ ((uint64_t)getpid() << 32)) | 1;
	for (int i = 0; i < SC_PROVIDER_MAX; i++) {
		int max = c->opt.per_provider[i] > 0 ? c->opt.per_provider[i] : c->opt.max_per_provider;
		if (max > c->opt.max_total)
			max = c->opt.max_total;
		sc_limiter_init(&c->prov[i].limiter, max, c->opt.strikes_429, c->opt.raise_after);
		c->prov[i].stats.limit = c->prov[i].stats.min_limit = max;
	}
	err = sc_http_new(&c->http, c->opt.max_total);
	if (err < 0) {
		free(c->cache_dir);
		free(c);
		return err;
	}
	pthread_mutex_init(&c->post_lock, NULL);
	*out = c;
	return 0;
}

/* Owned copies of a request's tools and tool parts, into j (req points at them). */
static void copy_tools(struct job *j, const struct sc_chat_request *req)
{
	size_t ncalls = 0, k = 0;

	j->req.tools = NULL;
	j->req.ntools = 0;
	j->req.tool_msgs = NULL;
	if (req->ntools && req->tools) {
		j->tools = sc_xcalloc(req->ntools, sizeof(*j->tools));
		for (size_t i = 0; i < req->ntools; i++) {
			j->tools[i].name = sc_xstrdup(req->tools[i].name ? req->tools[i].name : "");
			j->tools[i].description = sc_xstrdup(req->tools[i].description
							     ? req->tools[i].description : "");
			j->tools[i].schema = sc_xstrdup(req->tools[i].schema ? req->tools[i].schema
							: "{\"type\":\"object\"}");
		}
		j->req.tools = j->tools;
		j->req.ntools = req->ntools;
	}
	if (!req->tool_msgs)
		return;
	for (size_t i = 0; i < req->nmessages; i++)
		ncalls += req->tool_msgs[i].ncalls;
	j->tool_msgs = sc_xcalloc(req->nmessages ? req->nmessages : 1, sizeof(*j->tool_msgs));
	j->calls = sc_xcalloc(ncalls ? ncalls : 1, sizeof(*j->calls));
	j->ncalls = ncalls;
	for (size_t i = 0; i < req->nmessages; i++) {
		const struct sc_chat_tool_msg *m = &req->tool_msgs[i];
		j->tool_msgs[i].calls = m->ncalls ? &j->calls[k] : NULL;
		j->tool_msgs[i].ncalls = m->ncalls;
		j->tool_msgs[i].call_id = m->call_id ? sc_xstrdup(m->call_id) : NULL;
		j->tool_msgs[i].is_error = m->is_error;
		for (size_t c = 0; c < m->ncalls; c++, k++) {
			j->calls[k].id = sc_xstrdup(m->calls[c].id ? m->calls[c].id : "");
			j->calls[k].name = sc_xstrdup(m->calls[c].name ? m->calls[c].name : "");
			j->calls[k].arguments = sc_xstrdup(m->calls[c].arguments
							   ? m->calls[c].arguments : "{}");
		}
	}
	j->req.tool_msgs = j->tool_msgs;
}

static void free_tools(struct job *j)
{
	for (size_t i = 0; j->tools && i < j->req.ntools; i++) {
		free((char *)j->tools[i].name);
		free((char *)j->tools[i].description);
		free((char *)j->tools[i].schema);
	}
	free(j->tools);
	for (size_t i = 0; j->tool_msgs && i < j->req.nmessages; i++)
		free((char *)j->tool_msgs[i].call_id);
	free(j->tool_msgs);
	for (size_t k = 0; k < j->ncalls; k++) {
		free((char *)j->calls[k].id);
		free((char *)j->calls[k].name);
		free((char *)j->calls[k].arguments);
	}
	free(j->calls);
}

static void job_free(struct job *j)
{
	if (!j)
		return;
	sc_model_release(&j->model);
	free(j->url);
	free_tools(j);
	for (size_t i = 0; i < j->req.nmessages; i++)
		free(j->texts[i]);
	free(j->texts);
	free(j->messages);
	free(j->model_name);
	free(j->system);
	free(j->oracle_answer);
	free(j->label);
	sc_buf_release(&j->body);
	free(j->resp.text);
	free(j->resp.error);
	free(j->resp.usage_raw);
	free(j->resp.stop_reason);
	free(j->resp.tool_calls);
	free(j);
}

void sc_client_free(struct sc_client *c)
{
	if (!c)
		return;
	sc_http_free(c->http);  /* drops running attempts without callbacks */
	while (c->running) {
		struct job *j = c->running;
		c->running = j->rnext;
		job_free(j);
	}
	while (c->head) {
		struct job *j = c->head;
		c->head = j->next;
		job_free(j);
	}
	for (int i = 0; i < SC_PROVIDER_MAX; i++) {
		free(c->prov[i].key);
		free(c->prov[i].base);
		free(c->prov[i].api_version);
	}
	while (c->posted_head) {
		/* posted and never run (the loop was not run again): dropped */
		struct posted *p = c->posted_head;
		c->posted_head = p->next;
		free(p);
	}
	pthread_mutex_destroy(&c->post_lock);
	free(c->cache_dir);
	sc_redact_release(&c->redact);
	free(c);
}

static char *dup_or_null(const char *s)
{
	return s ? sc_xstrdup(s) : NULL;
}

static const struct sc_provider_wire *wire_for(int kind)
{
	const struct sc_provider_info *p = sc_provider_get(kind);
	if (!p)
		return NULL;
	if (kind == SC_PROVIDER_XAI)
		return &sc_wire_openai_xai;
	return p->wire == SC_WIRE_ANTHROPIC ? &sc_wire_anthropic :
	       p->wire == SC_WIRE_OPENAI ? &sc_wire_openai :
	       p->wire == SC_WIRE_RESPONSES ? &sc_wire_responses : NULL;
}

bool sc_provider_parse_error(struct sc_buf *out, const char *body, size_t len)
{
	cJSON *root = cJSON_ParseWithLength(body, len);
	const cJSON *e = sc_json_member(root, "error");
	const char *msg = NULL, *type = NULL;

	if (sc_json_get_str(&msg, e, "message") == SC_JSON_OK) {
		if (sc_json_get_str(&type, e, "type") == SC_JSON_OK)
			sc_buf_printf(out, "%s: ", type);
	} else if (cJSON_IsString(e)) {
		msg = e->valuestring;
	} else if (sc_json_get_str(&msg, root, "detail") != SC_JSON_OK) {
		sc_json_get_str(&msg, root, "message");
	}
	if (msg)
		sc_buf_puts(out, msg);
	cJSON_Delete(root);
	return msg != NULL;
}

/* The first of a provider's variables that is set and not empty, or NULL. */
static const char *first_env(const char *const vars[3], const char **which)
{
	for (int i = 0; i < 3 && vars[i]; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v) {
			if (which)
				*which = vars[i];
			return v;
		}
	}
	return NULL;
}

/* "A or B" of a provider's variables, for messages. */
static void env_names(struct sc_buf *out, const char *const vars[3])
{
	for (int i = 0; i < 3 && vars[i]; i++)
		sc_buf_printf(out, "%s%s", i ? " or " : "", vars[i]);
}

/*
 * The token `hf auth login` saved, as huggingface_hub finds it:
 * HF_TOKEN_PATH, else HF_HOME/token, else XDG_CACHE_HOME/huggingface/token,
 * else ~/.cache/huggingface/token. NULL when there is none (owned).
 */
static char *hf_token_file(void)
{
	struct sc_buf path = SC_BUF_INIT, tok = SC_BUF_INIT;
	const char *v;
	char *out = NULL;

	if ((v = getenv("HF_TOKEN_PATH")) && *v)
		sc_buf_puts(&path, v);
	else if ((v = getenv("HF_HOME")) && *v)
		sc_buf_printf(&path, "%s/token", v);
	else if ((v = getenv("XDG_CACHE_HOME")) && *v)
		sc_buf_printf(&path, "%s/huggingface/token", v);
	else if ((v = getenv("HOME")) && *v)
		sc_buf_printf(&path, "%s/.cache/huggingface/token", v);
	if (path.len && sc_read_file(&tok, path.ptr, 4096) == 0) {
		size_t a = 0, b = tok.len;
		while (a < b && isspace((unsigned char)tok.ptr[a]))
			a++;
		while (b > a && isspace((unsigned char)tok.ptr[b - 1]))
			b--;
		if (b > a && !memchr(tok.ptr + a, '\n', b - a))
			out = sc_xstrndup(tok.ptr + a, b - a);
		memset(tok.ptr, 0, tok.len);
	}
	sc_error_clear();
	sc_buf_release(&tok);
	sc_buf_release(&path);
	return out;
}

/*
 * Reads a provider's key and base URL, once. The key as fast-agent's
 * ProviderKeyManager finds it: fastagent.config.yaml's api_key first, then
 * the provider's variables (hf: then the token file of `hf auth login`).
 * The base URL: the variables first (so a CI job can point a project at
 * another server), then fastagent.config.yaml (azure: also resource_name),
 * then the table's default. Named endpoints take both from the trusted
 * configuration.
 */
static int configure(struct provider_state *p, int kind)
{
	const struct sc_provider_info *info = sc_provider_get(kind);
	const char *key = NULL, *base, *from = NULL;
	struct sc_buf names = SC_BUF_INIT, b = SC_BUF_INIT, res = SC_BUF_INIT;
	char *token = NULL;
	int err = 0;

	if (p->configured)
		return 0;
	if (info->wire == SC_WIRE_NONE) {
		p->configured = true;
		return 0;
	}
	base = first_env(info->base_env, &from);
	if (!base)
		base = sc_provider_file_base(kind);
	if (!base && kind == SC_PROVIDER_RESPONSES)
		base = sc_provider_file_base(SC_PROVIDER_OPENAI);
	if (!base && info->azure && sc_provider_file_setting(kind, "resource_name")) {
		sc_buf_printf(&res, "https://%s.openai.azure.com",
			      sc_provider_file_setting(kind, "resource_name"));
		base = res.ptr;
	}
	if (!base)
		base = info->base_url;
	if (!base) {
		env_names(&names, info->base_env);
		err = sc_error_set(SC_EINVAL, "%s is not set (the base URL of %s models, e.g. "
				   "https://RESOURCE.openai.azure.com, or resource_name in the azure "
				   "block of fastagent.config.yaml)", names.ptr, info->name);
		sc_error_cause_set(err, SC_CAUSE_NO_ENDPOINT);
		goto done;
	}
	if (!sc_provider_url_ok(base)) {
		err = sc_error_set(SC_EINVAL, "%s%s'%s' is not an http:// or https:// URL (base URL "
				   "of %s models)", from ? from : "", from ? " " : "", base, info->name);
		goto done;
	}
	if (kind < SC_PROVIDER_BUILTINS)
		key = sc_provider_file_key(kind);
	if (!key && kind == SC_PROVIDER_RESPONSES)
		key = sc_provider_file_key(SC_PROVIDER_OPENAI);  /* fast-agent: the openai block's */
	if (!key)
		key = first_env(info->key_env, NULL);
	if (!key && kind == SC_PROVIDER_HF)
		key = token = hf_token_file();
	if (!key && !info->key_optional) {
		env_names(&names, info->key_env);
		err = sc_error_set(SC_EINVAL, "%s is not set (needed for %s models%s)", names.ptr,
				   info->name, kind == SC_PROVIDER_HF ? "; or log in with `hf auth "
				   "login`" : "");
		sc_error_cause_set(err, SC_CAUSE_NO_KEY);
		goto done;
	}
	p->key = key && *key ? sc_xstrdup(key) : NULL;
	sc_buf_puts(&b, base);
	while (b.len && b.ptr[b.len - 1] == '/')
		sc_buf_truncate(&b, b.len - 1);
	p->base = sc_buf_detach(&b, NULL);
	if (info->azure) {
		const char *vars[3] = { "AZURE_API_VERSION", "OPENAI_API_VERSION", NULL };
		const char *v = sc_provider_file_setting(kind, "api_version");
		if (!v)
			v = first_env(vars, NULL);
		p->api_version = sc_xstrdup(v ? v : SC_AZURE_API_VERSION);
	}
	p->configured = true;
done:
	if (token) {
		memset(token, 0, strlen(token));
		free(token);
	}
	sc_buf_release(&names);
	sc_buf_release(&b);
	sc_buf_release(&res);
	return err;
}

/* The URL a request for model goes to. */
static char *endpoint_url(const struct provider_state *p, const struct sc_model *m)
{
	const struct sc_provider_info *info = sc_provider_get(m->kind);
	struct sc_buf b = SC_BUF_INIT;

	sc_buf_puts(&b, p->base);
	if (info->azure)
		sc_buf_printf(&b, "/openai/deployments/%s/chat/completions?api-version=%s", m->id,
			      p->api_version);
	else
		sc_buf_puts(&b, wire_for(m->kind)->path);
	return sc_buf_detach(&b, NULL);
}

static void enqueue_tail(struct sc_client *c, struct job *j)
{
	j->next = NULL;
	j->prev = c->tail;
	if (c->tail)
		c->tail->next = j;
	else
		c->head = j;
	c->tail = j;
}

static void enqueue_head(struct sc_client *c, struct job *j)
{
	j->prev = NULL;
	j->next = c->head;
	if (c->head)
		c->head->prev = j;
	else
		c->tail = j;
	c->head = j;
}

static void dequeue(struct sc_client *c, struct job *j)
{
	if (j->prev)
		j->prev->next = j->next;
	else
		c->head = j->next;
	if (j->next)
		j->next->prev = j->prev;
	else
		c->tail = j->prev;
	j->prev = j->next = NULL;
}

int sc_client_submit(struct sc_client *c, const struct sc_chat_request *req,
		     sc_chat_cb cb, void *payload)
{
	struct job *j;
	struct sc_model model;
	int err;

	err = sc_model_parse(&model, req->model);
	if (err < 0)
		return err;
	if (req->nmessages == 0 || !req->messages) {
		sc_error_set(SC_EINVAL, "a request to '%s' has no messages", model.name);
		sc_model_release(&model);
		return SC_EINVAL;
	}
	err = configure(&c->prov[model.kind], model.kind);
	if (err < 0) {
		sc_model_release(&model);
		return err;
	}
	/* settings written in the model name win over the caller's defaults */
	j = sc_xcalloc(1, sizeof(*j));
	j->req = *req;
	if (model.temperature >= 0) {
		j->req.temperature = model.temperature;
		j->req.temperature_optional = false;
	}
	if (model.max_tokens > 0)
		j->req.max_tokens = model.max_tokens;
	{
		/* what the model refuses is refused here, before any request; what
		 * it drops (an optional temperature) is dropped from the cache key too */
		struct sc_request_shape sh;
		if ((err = sc_model_shape(&sh, &model, &j->req)) < 0) {
			sc_model_release(&model);
			free(j);
			return err;
		}
		j->req.temperature = sh.temperature;
	}
	j->client = c;
	j->cb = cb;
	j->payload = payload;
	j->model = model;
	j->prov = &c->prov[model.kind];
	if (j->prov->base)
		j->url = endpoint_url(j->prov, &j->model);
	j->req.model = j->model_name = sc_xstrdup(req->model);
	j->req.system = j->system = dup_or_null(req->system);
	j->req.oracle_answer = j->oracle_answer = dup_or_null(req->oracle_answer);
	j->req.label = j->label = dup_or_null(req->label);
	j->messages = sc_xcalloc(req->nmessages ? req->nmessages : 1, sizeof(*j->messages));
	j->texts = sc_xcalloc(req->nmessages ? req->nmessages : 1, sizeof(*j->texts));
	for (size_t i = 0; i < req->nmessages; i++) {
		j->texts[i] = sc_xstrdup(req->messages[i].content ? req->messages[i].content : "");
		j->messages[i].role = req->messages[i].role;
		j->messages[i].content = j->texts[i];
	}
	j->req.messages = j->messages;
	copy_tools(j, req);
	sc_buf_init(&j->body);
	j->submitted_ms = sc_now_ms();
	if (c->opt.cache_mode != SC_CACHE_OFF && model.kind != SC_PROVIDER_ORACLE)
		sc_cache_key(j->key, &j->model, &j->req,
			     sc_provider_get(model.kind)->local_names ? j->url : NULL);
	j->prov->stats.requests++;
	c->unchecked++;
	enqueue_tail(c, j);
	c->dirty = true;
	return 0;
}

/*
 * Replaces key material in *msg (an error message or an answer) with
 * "[redacted]": the keys themselves, their prefixes, other letter case
 * and encoded forms (redact.h). True when something was replaced.
 */
static bool scrub(struct sc_client *c, char **msg)
{
	for (int i = 0; i < SC_PROVIDER_MAX; i++) {
		if (c->prov[i].key && !c->redact_added[i]) {
			sc_redact_add(&c->redact, c->prov[i].key);
			c->redact_added[i] = true;
		}
	}
	return sc_redact_apply(&c->redact, msg);
}

/*
 * cJSON ends a string at an escaped NUL ("\u0000"), which would cut an
 * answer short without a word. When body holds one inside a string, out
 * gets a copy with each written as U+FFFD, and the count is returned
 * (0: out untouched, parse body as it is).
 */
static size_t nul_escapes(struct sc_buf *out, const char *body, size_t len)
{
	size_t n = 0, from = 0;
	bool in_str = false;

	for (size_t i = 0; i < len; i++) {
		char ch = body[i];
		if (!in_str) {
			in_str = ch == '"';
			continue;
		}
		if (ch == '"') {
			in_str = false;
		} else if (ch == '\\' && i + 1 < len) {
			if (body[i + 1] == 'u' && i + 5 < len && !strncmp(body + i + 2, "0000", 4)) {
				sc_buf_put(out, body + from, i - from);
				sc_buf_puts(out, "\\ufffd");
				from = i + 6;
				n++;
				i += 5;
			} else {
				i++;  /* an escaped character: skip it */
			}
		}
	}
	if (n)
		sc_buf_put(out, body + from, len - from);
	return n;
}

/* Sets the job's error: "PROVIDER model 'ID' [test 'T']: DETAIL". */
static void set_error(struct job *j, enum sc_chat_error cls, const char *detail)
{
	struct sc_buf m = SC_BUF_INIT;

	sc_buf_printf(&m, "%s model '%s'", sc_provider_name(j->model.kind), j->model.id);
	if (j->req.label)
		sc_buf_printf(&m, " (test '%s', run %d)", j->req.label, j->req.run_index);
	sc_buf_printf(&m, ": %s", detail);
	free(j->resp.error);
	j->resp.error = sc_buf_detach(&m, NULL);
	free(j->resp.text);
	j->resp.text = NULL;
	j->resp.error_class = cls;
	scrub(j->client, &j->resp.error);
}

/* Runs the callback and frees the job. The job is in no list. */
static void complete(struct sc_client *c, struct job *j)
{
	struct provider_state *p = j->prov;

	j->resp.latency_ms = sc_now_ms() - j->submitted_ms;
	if (j->resp.error_class != SC_CHAT_OK) {
		if (j->resp.error_class != SC_CHAT_CANCELLED)
			p->stats.failures++;  /* a cancel is no failure of the provider */
		if (!j->resp.error)
			set_error(j, j->resp.error_class, "failed");
	} else if (!j->resp.text) {
		j->resp.text = sc_xstrdup("");
	}
	if (j->resp.error_class != SC_CHAT_OK && j->resp.error_class != SC_CHAT_TRUNCATED) {
		free(j->resp.tool_calls);
		j->resp.tool_calls = NULL;
	}
	if (j->resp.error_class == SC_CHAT_OK && !j->resp.from_cache && j->key[0] &&
	    (c->opt.cache_mode == SC_CACHE_USE || c->opt.cache_mode == SC_CACHE_REFRESH)) {
		if (sc_cache_put(c->cache_dir, j->key, &j->model, &j->resp) < 0)
			sc_trace("http", "cannot store a cached answer: %s", sc_error_last());
	}
	j->cb(&j->resp, j->payload);
	job_free(j);
}

static void on_attempt_done(struct sc_http_result *res, void *payload);

static int start_attempt(struct sc_client *c, struct job *j, int64_t now)
{
	const char *headers[SC_HTTP_MAX_HEADERS];
	struct sc_buf auth = SC_BUF_INIT;
	struct sc_http_spec spec;
	struct provider_state *p = j->prov;
	const struct sc_provider_info *info = sc_provider_get(j->model.kind);
	int64_t left = c->opt.deadline_ms - (now - j->submitted_ms);
	struct sc_buf beta = SC_BUF_INIT;
	struct sc_request_shape sh;
	size_t n = 0;
	int err;

	if (!j->body.len)
		wire_for(j->model.kind)->build_body(&j->body, &j->model, &j->req);
	headers[n++] = "Content-Type: application/json";
	if (p->key) {
		if (!strcmp(info->key_header, "Authorization"))
			sc_buf_printf(&auth, "Authorization: Bearer %s", p->key);
		else
			sc_buf_printf(&auth, "%s: %s", info->key_header, p->key);
		headers[n++] = auth.ptr;
	}
	for (int i = 0; i < 3 && info->headers[i]; i++)
		headers[n++] = info->headers[i];
	/* Anthropic's betas the model's settings need (context=1m, web_fetch) */
	sc_model_shape(&sh, &j->model, &j->req);
	sc_error_clear();
	if (sh.beta) {
		sc_buf_printf(&beta, "anthropic-beta: %s", sh.beta);
		headers[n++] = beta.ptr;
	}
	/* fastagent.config.yaml's default_headers (a header of the same name as
	 * one above replaces it: OpenRouter's X-Title) */
	for (size_t i = 0; i < SC_PROVIDER_FILE_HEADERS && sc_provider_file_header(j->model.kind, i); i++) {
		const char *h = sc_provider_file_header(j->model.kind, i);
		size_t nlen = (size_t)(strchr(h, ':') - h);
		for (size_t k = 0; k < n; k++)
			if (!strncasecmp(headers[k], h, nlen) && headers[k][nlen] == ':') {
				headers[k] = headers[--n];
				break;
			}
		headers[n++] = h;
	}
	memset(&spec, 0, sizeof(spec));
	spec.url = j->url;
	spec.headers = headers;
	spec.nheaders = n;
	spec.body = j->body.ptr;
	spec.body_len = j->body.len;
	spec.connect_timeout_ms = c->opt.connect_timeout_ms;
	spec.timeout_ms = c->opt.timeout_ms < left ? c->opt.timeout_ms : left;
	if (spec.timeout_ms < 1)
		spec.timeout_ms = 1;
	spec.low_speed_limit = c->opt.low_speed_limit > 0 ? c->opt.low_speed_limit : 1;
	spec.low_speed_time_s = c->opt.low_speed_time_s;
	err = sc_http_start(c->http, &spec, on_attempt_done, j);
	/* the header holding the key is wiped before its memory is freed */
	if (auth.len)
		memset(auth.ptr, 0, auth.len);
	sc_buf_release(&auth);
	sc_buf_release(&beta);
	if (err < 0)
		return err;
	j->resp.attempts++;
	j->epoch = p->limiter.epoch;
	j->rprev = NULL;
	j->rnext = c->running;
	if (c->running)
		c->running->rprev = j;
	c->running = j;
	p->stats.http_attempts++;
	p->in_flight++;
	c->in_flight++;
	if (p->in_flight > p->stats.max_in_flight)
		p->stats.max_in_flight = p->in_flight;
	return 0;
}

static void note_limit(struct provider_state *p, bool lowered, bool raised)
{
	p->stats.limit = p->limiter.limit;
	if (p->limiter.limit < p->stats.min_limit)
		p->stats.min_limit = p->limiter.limit;
	p->stats.decreases += lowered;
	p->stats.increases += raised;
}

/*
 * A quota or billing refusal, which no retry mends: OpenAI's 429 with
 * error type or code "insufficient_quota", 402 (OpenRouter's credits,
 * DeepSeek's balance), Anthropic's 400 "credit balance is too low".
 */
static bool is_quota(long status, const char *body, size_t len)
{
	cJSON *root;
	const cJSON *e;
	const char *type = NULL, *code = NULL, *msg = NULL;
	bool quota;

	if (status == 402)
		return true;
	if (status != 429 && status != 400 && status != 403)
		return false;
	root = cJSON_ParseWithLength(body, len);
	e = sc_json_member(root, "error");
	sc_json_get_str(&type, e, "type");
	sc_json_get_str(&code, e, "code");
	sc_json_get_str(&msg, e, "message");
	quota = (type && (!strcmp(type, "insufficient_quota") || !strcmp(type, "billing_error"))) ||
		(code && (!strcmp(code, "insufficient_quota") || !strcmp(code, "billing_hard_limit_reached"))) ||
		(msg && strstr(msg, "credit balance is too low"));
	cJSON_Delete(root);
	return quota;
}

/*
 * A refusal because the prompt is over the model's context: a 413, or a
 * 400 whose error says so (Anthropic's "prompt is too long", OpenAI's
 * code "context_length_exceeded", the "maximum context length" of
 * OpenAI-compatible servers). The prompt is the skill's doing: an outcome
 * of that side, not an infrastructure fault, and no retry mends it.
 */
static bool is_prompt_too_long(long status, const char *body, size_t len)
{
	static const char *const says[] = { "prompt is too long", "maximum context length",
					     "context length", "context window", "too many tokens",
					     "input is too long", "exceeds the context" };
	cJSON *root;
	const cJSON *e;
	const char *code = NULL, *msg = NULL;
	bool too_long = status == 413;

	if (status != 400 && status != 413)
		return false;
	root = cJSON_ParseWithLength(body, len);
	e = sc_json_member(root, "error");
	sc_json_get_str(&code, e, "code");
	sc_json_get_str(&msg, e, "message");
	too_long |= code && (!strcmp(code, "context_length_exceeded") ||
			     !strcmp(code, "string_above_max_length"));
	for (size_t i = 0; msg && i < SC_ARRAY_SIZE(says) && !too_long; i++)
		too_long = strcasestr(msg, says[i]) != NULL;
	cJSON_Delete(root);
	return too_long;
}

/* Classifies one finished attempt; completes the job or queues a retry. */
static void on_attempt_done(struct sc_http_result *res, void *payload)
{
	struct job *j = payload;
	struct sc_client *c = j->client;
	struct provider_state *p = j->prov;
	const struct sc_provider_wire *wire = wire_for(j->model.kind);
	struct sc_buf detail = SC_BUF_INIT;
	enum sc_chat_error cls = SC_CHAT_OK;
	bool retry = false;
	int64_t now = sc_now_ms(), wait = -1;

	p->in_flight--;
	c->in_flight--;
	if (j->rprev)
		j->rprev->rnext = j->rnext;
	else
		c->running = j->rnext;
	if (j->rnext)
		j->rnext->rprev = j->rprev;
	j->rprev = j->rnext = NULL;
	j->resp.http_status = (int)res->status;
	if (res->fail != SC_HTTP_FAIL_NONE) {
		cls = res->fail == SC_HTTP_FAIL_TIMEOUT ? SC_CHAT_TIMEOUT : SC_CHAT_NETWORK;
		retry = res->fail != SC_HTTP_FAIL_TOO_LARGE;
		sc_buf_printf(&detail, "%s", res->error);
	} else if (res->status >= 200 && res->status < 300) {
		struct sc_buf fixed = SC_BUF_INIT;
		size_t nuls = nul_escapes(&fixed, res->body.ptr, res->body.len);
		if (wire->parse_ok(&j->resp, nuls ? fixed.ptr : res->body.ptr,
				   nuls ? fixed.len : res->body.len) < 0) {
			cls = SC_CHAT_PARSE;
			sc_buf_printf(&detail, "HTTP %ld: %s", res->status, sc_error_last());
		} else if (j->resp.stop_reason && (!strcmp(j->resp.stop_reason, "length") ||
						   !strcmp(j->resp.stop_reason, "max_tokens") ||
						   !strcmp(j->resp.stop_reason, "max_output_tokens"))) {
			/* cut at the token limit: an error of its own, the text kept */
			cls = SC_CHAT_TRUNCATED;
			sc_buf_printf(&detail, "the answer was cut at the token limit (%s '%s' after "
				      "%lld output tokens); raise max_tokens or lower the effort",
				      wire == &sc_wire_anthropic ? "stop_reason" :
				      wire == &sc_wire_responses ? "incomplete_details.reason" : "finish_reason",
				      j->resp.stop_reason, (long long)j->resp.output_tokens);
			scrub(c, &j->resp.text);
		} else {
			if (nuls)
				sc_log(SC_LOG_WARN, "%s model '%s'%s%s%s: the answer holds %zu NUL "
				       "character%s, kept as U+FFFD so nothing after them is lost",
				       sc_provider_name(j->model.kind), j->model.id,
				       j->req.label ? " (test '" : "", j->req.label ? j->req.label : "",
				       j->req.label ? "')" : "", nuls, nuls == 1 ? "" : "s");
			if (scrub(c, &j->resp.text) || (j->resp.tool_calls && scrub(c, &j->resp.tool_calls)))
				sc_log(SC_LOG_WARN, "%s model '%s': the answer held key material; it "
				       "was replaced with [redacted]", sc_provider_name(j->model.kind),
				       j->model.id);
		}
		sc_buf_release(&fixed);
	} else {
		sc_buf_printf(&detail, "HTTP %ld", res->status);
		sc_buf_puts(&detail, ": ");
		if (!sc_provider_parse_error(&detail, res->body.ptr, res->body.len))
			sc_buf_puts(&detail, res->body.len ? "(no error message in the response body)"
							   : "(empty response body)");
		if (is_quota(res->status, res->body.ptr, res->body.len)) {
			/* a billing state, not a rate: no retry helps */
			cls = SC_CHAT_QUOTA;
			sc_buf_puts(&detail, " (quota or billing: add credit or raise the limit; "
				    "not retried)");
		} else if (sc_http_status_retryable(res->status)) {
			cls = res->status == 429 ? SC_CHAT_RATE_LIMITED : SC_CHAT_SERVER;
			retry = true;
			wait = res->retry_after_ms >= 0 ? res->retry_after_ms :
			       sc_http_retry_after_ms(res->retry_after, (int64_t)time(NULL));
		} else if (is_prompt_too_long(res->status, res->body.ptr, res->body.len)) {
			cls = SC_CHAT_PROMPT_TOO_LONG;
		} else {
			cls = (res->status == 401 || res->status == 403) ? SC_CHAT_AUTH : SC_CHAT_BAD_REQUEST;
		}
	}
	if (res->status == 429)
		note_limit(p, sc_limiter_on_429(&p->limiter, j->epoch), false);
	else if (cls == SC_CHAT_OK)
		note_limit(p, false, sc_limiter_on_success(&p->limiter));

	if (retry && j->resp.attempts < c->opt.max_attempts) {
		if (wait < 0)
			wait = sc_http_backoff_ms(j->resp.attempts, c->opt.backoff_base_ms,
						  c->opt.backoff_max_ms, &c->rng);
		else if (wait > c->opt.retry_after_max_ms)
			wait = c->opt.retry_after_max_ms;
		if (now + wait - j->submitted_ms <= c->opt.deadline_ms) {
			if (sc_trace_on("http")) {
				char *shown = sc_xstrdup(detail.ptr);
				scrub(c, &shown);  /* the provider may echo the key */
				sc_trace("http", "retry %d of '%s' in %lld ms after %s", j->resp.attempts,
					 j->model.name, (long long)wait, shown);
				free(shown);
			}
			j->resp.backoff_ms += wait;
			j->not_before_ms = now + wait;
			p->stats.retries++;
			enqueue_head(c, j);
			sc_buf_release(&detail);
			return;
		}
		{
			struct sc_buf d = SC_BUF_INIT;
			sc_buf_printf(&d, "deadline of %lld ms reached after %d attempts; last: %s",
				      (long long)c->opt.deadline_ms, j->resp.attempts, detail.ptr);
			set_error(j, cls == SC_CHAT_NETWORK ? SC_CHAT_TIMEOUT : cls, d.ptr);
			sc_buf_release(&d);
		}
	} else if (cls == SC_CHAT_TRUNCATED) {
		char *text = j->resp.text;
		j->resp.text = NULL;
		set_error(j, cls, detail.ptr);
		j->resp.text = text;  /* kept for the transcript */
	} else if (cls != SC_CHAT_OK) {
		if (retry) {
			struct sc_buf d = SC_BUF_INIT;
			sc_buf_printf(&d, "gave up after %d attempts; last: %s", j->resp.attempts, detail.ptr);
			set_error(j, cls, d.ptr);
			sc_buf_release(&d);
		} else {
			set_error(j, cls, detail.ptr);
		}
	} else {
		j->resp.error_class = SC_CHAT_OK;
	}
	sc_buf_release(&detail);
	complete(c, j);
}

/* Answers a job without HTTP when it can: oracle, cache hit, offline miss. */
static bool answer_locally(struct sc_client *c, struct job *j)
{
	if (j->model.kind == SC_PROVIDER_ORACLE) {
		c->unchecked--;
		sc_oracle_answer(&j->resp, &j->req);
		if (j->resp.error_class != SC_CHAT_OK) {
			char *msg = j->resp.error;
			j->resp.error = NULL;
			set_error(j, SC_CHAT_CONFIG, msg + strlen("oracle: "));
			free(msg);
		}
		return true;
	}
	if (j->cache_checked)
		return false;
	j->cache_checked = true;
	c->unchecked--;
	if (!j->key[0])
		return false;
	if (c->opt.cache_mode == SC_CACHE_USE || c->opt.cache_mode == SC_CACHE_OFFLINE) {
		if (sc_cache_get(c->cache_dir, j->key, &j->resp) == 0) {
			j->prov->stats.cache_hits++;
			return true;
		}
		sc_error_clear();
	}
	if (c->opt.cache_mode == SC_CACHE_OFFLINE) {
		struct sc_buf d = SC_BUF_INIT;
		sc_buf_printf(&d, "no cached answer in '%s' and offline mode forbids a request "
			      "(run once without --offline to fill the cache)", c->cache_dir);
		set_error(j, SC_CHAT_OFFLINE, d.ptr);
		sc_buf_release(&d);
		return true;
	}
	return false;
}

/*
 * Starts what may start now. Returns the time of the earliest pending
 * retry (or INT64_MAX), so the loop knows how long it may sleep.
 */
static int64_t dispatch(struct sc_client *c, int *err)
{
	int64_t now = sc_now_ms(), wake = INT64_MAX;
	struct job *j = c->head, *next;

	c->dirty = false;
	while (j) {
		next = j->next;
		if (answer_locally(c, j)) {
			dequeue(c, j);
			complete(c, j);  /* callbacks only append jobs; next stays valid */
			j = next;
			continue;
		}
		if (c->in_flight >= c->opt.max_total) {
			/* full: only local answers (cache, oracle) can still go */
			if (!c->unchecked)
				break;
			j = next;
			continue;
		}
		if (j->not_before_ms > now) {
			if (j->not_before_ms < wake)
				wake = j->not_before_ms;
		} else if (j->prov->in_flight < j->prov->limiter.limit) {
			dequeue(c, j);
			if ((*err = start_attempt(c, j, now)) < 0) {
				enqueue_head(c, j);
				return wake;
			}
		}
		j = next;
	}
	if (c->dirty)
		wake = now;  /* jobs submitted by callbacks: look again at once */
	return wake;
}

void sc_client_expect(struct sc_client *c)
{
	c->pending++;
}

void sc_client_post(struct sc_client *c, void (*fn)(void *payload), void *payload)
{
	struct posted *p = sc_xcalloc(1, sizeof(*p));

	p->fn = fn;
	p->payload = payload;
	pthread_mutex_lock(&c->post_lock);
	if (c->posted_tail)
		c->posted_tail->next = p;
	else
		c->posted_head = p;
	c->posted_tail = p;
	pthread_mutex_unlock(&c->post_lock);
	sc_http_wakeup(c->http);
}

int sc_client_in_flight(const struct sc_client *c)
{
	return c->in_flight;
}

int sc_client_capacity(const struct sc_client *c)
{
	return c->opt.max_total;
}

void sc_client_set_tick(struct sc_client *c, int64_t interval_ms, void (*fn)(void *payload),
			void *payload)
{
	c->tick = fn;
	c->tick_payload = payload;
	c->tick_ms = interval_ms > 0 ? interval_ms : 1;
	c->next_tick_ms = sc_now_ms() + c->tick_ms;
}

/* Runs the completions posted from other threads, in the order posted. */
static void run_posted(struct sc_client *c)
{
	struct posted *list;

	pthread_mutex_lock(&c->post_lock);
	list = c->posted_head;
	c->posted_head = c->posted_tail = NULL;
	pthread_mutex_unlock(&c->post_lock);
	while (list) {
		struct posted *p = list;
		list = p->next;
		p->fn(p->payload);
		free(p);
		if (c->pending)
			c->pending--;
		c->dirty = true;  /* the callback may have queued requests */
	}
}

size_t sc_client_cancel(struct sc_client *c, bool (*keep_out)(void *payload, void *arg), void *arg)
{
	struct job *out = NULL, **tail = &out;
	size_t n = 0;

	/* first take them out of the queue, then complete them: callbacks may
	 * queue new requests, which are not looked at */
	for (struct job *j = c->head, *next; j; j = next) {
		next = j->next;
		if (!keep_out(j->payload, arg))
			continue;
		dequeue(c, j);
		if (!j->cache_checked)
			c->unchecked--;  /* never looked at locally (oracle jobs never are) */
		*tail = j;
		tail = &j->next;
		n++;
	}
	while (out) {
		struct job *j = out;
		out = j->next;
		j->next = NULL;
		j->resp.error_class = SC_CHAT_CANCELLED;
		set_error(j, SC_CHAT_CANCELLED, "cancelled before it was sent (the run is stopping)");
		complete(c, j);
	}
	return n;
}

int sc_client_run(struct sc_client *c)
{
	int err = 0;

	for (;;) {
		int64_t wake, now;
		int timeout;

		run_posted(c);
		if (c->tick && sc_now_ms() >= c->next_tick_ms) {
			c->tick(c->tick_payload);
			c->next_tick_ms = sc_now_ms() + c->tick_ms;
			c->dirty = true;
		}
		wake = dispatch(c, &err);
		if (err < 0)
			return err;
		if (!c->head && c->in_flight == 0 && sc_http_in_flight(c->http) == 0 &&
		    c->pending == 0)
			return 0;  /* every expected piece was posted and run */
		now = sc_now_ms();
		if (c->tick && c->next_tick_ms < wake)
			wake = c->next_tick_ms;
		timeout = 1000;
		if (wake != INT64_MAX)
			timeout = wake <= now ? 0 : (wake - now < 1000 ? (int)(wake - now) : 1000);
		/* waits for a transfer, a retry time, a tick or a post (which
		 * wakes it), whichever comes first */
		err = sc_http_poll(c->http, timeout);
		if (err < 0)
			return err;
	}
}

void sc_client_stats(const struct sc_client *c, int kind, struct sc_provider_stats *out)
{
	if (kind < 0 || kind >= SC_PROVIDER_MAX) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = c->prov[kind].stats;
	out->limit = c->prov[kind].limiter.limit;
}
