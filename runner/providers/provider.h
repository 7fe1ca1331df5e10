#ifndef SC_PROVIDER_H
#define SC_PROVIDER_H
/*
 * Model providers and the request scheduler.
 *
 * Model names follow upskill, whose model strings are fast-agent's, as
 * one fast-agent version reads them (docs/providers.md; 0.6.7, upskill's
 * pin, unless sc_models_set_grammar() chose another):
 * PROVIDER.MODEL[?reasoning=R&verbosity=V&...], PROVIDER/MODEL, or an alias
 * or bare model name of that version's tables (sonnet, kimi, gpt-5.1, ...;
 * `skillci help models` lists them), ALIAS:ROUTE for another Hugging Face
 * inference provider. PROVIDER is one of fast-agent's providers that
 * skillci speaks (anthropic, openai, responses, azure, google, hf,
 * openrouter, deepseek, xai, groq, aliyun, zai, moonshot, generic), the
 * oracle, or an endpoint named in the trusted configuration and registered
 * with sc_providers_add_endpoint(); the others are refused by name with
 * the reason.
 *
 * A struct sc_client owns one HTTP loop (runner/net/http.c), the response
 * cache (runner/providers/cache.c) and the concurrency bounds. Callers submit any
 * number of requests, each with a completion callback, and call
 * sc_client_run(), which drives every request (including requests
 * submitted from callbacks, as a multi-turn evaluation does) to completion.
 * Nothing here prints, apart from SKILLCI_TRACE=http tracing.
 *
 * API keys are read from the environment when a provider is first used,
 * sent only in request headers, and scrubbed from every error message.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"
#include "limits.h"
#include "providers/cache_mode.h"

/* The two request formats every provider speaks one of. */
enum sc_wire_format {
	SC_WIRE_NONE,        /* the oracle: no HTTP */
	SC_WIRE_ANTHROPIC,   /* Anthropic Messages: POST {base}/v1/messages */
	SC_WIRE_OPENAI,      /* OpenAI chat completions: POST {base}/chat/completions */
	SC_WIRE_RESPONSES,   /* OpenAI Responses API: POST {base}/responses */
};

/* How a reasoning effort is sent. */
enum sc_effort_style {
	SC_EFFORT_THINKING,          /* Anthropic: "thinking": {type, budget_tokens} */
	SC_EFFORT_REASONING_EFFORT,  /* OpenAI: "reasoning_effort": "high" */
	SC_EFFORT_REASONING_OBJECT,  /* OpenRouter: "reasoning": {"effort"|"max_tokens"} */
	SC_EFFORT_UNSUPPORTED,       /* no reasoning setting (DeepSeek: pick the model) */
};

/*
 * The built-in providers, in table order. Endpoints named in the
 * configuration get the indexes from SC_PROVIDER_BUILTINS up.
 */
enum sc_provider_kind {
	SC_PROVIDER_ANTHROPIC,
	SC_PROVIDER_OPENAI,
	SC_PROVIDER_AZURE,
	SC_PROVIDER_GOOGLE,
	SC_PROVIDER_HF,
	SC_PROVIDER_OPENROUTER,
	SC_PROVIDER_DEEPSEEK,
	SC_PROVIDER_XAI,
	SC_PROVIDER_GROQ,
	SC_PROVIDER_RESPONSES,   /* OpenAI's Responses API (fast-agent's "responses") */
	SC_PROVIDER_ALIYUN,
	SC_PROVIDER_ZAI,
	SC_PROVIDER_MOONSHOT,
	SC_PROVIDER_GENERIC,
	SC_PROVIDER_ORACLE,
	SC_PROVIDER_BUILTINS
};

#define SC_PROVIDER_MAX (SC_PROVIDER_BUILTINS + SC_MAX_ENDPOINTS)

/* One row of the provider table (docs/providers.md cites each field). */
struct sc_provider_info {
	const char *name;              /* "openrouter": the PROVIDER of a model name */
	const char *title;             /* "OpenRouter" */
	enum sc_wire_format wire;
	const char *base_url;          /* default base URL; NULL: must be configured */
	const char *base_env[3];       /* variables overriding base_url, first set wins */
	const char *key_env[3];        /* key variables, first set wins; none: no key */
	bool key_optional;             /* a request goes without a key when none is set */
	const char *key_header;        /* "x-api-key", "api-key"; "Authorization": Bearer */
	const char *headers[3];        /* fixed extra headers ("X-Title: skillci") */
	const char *max_tokens_field;  /* "max_tokens" or "max_completion_tokens" */
	enum sc_effort_style effort;
	bool local_names;              /* model names are local to the endpoint (cache key has its URL) */
	bool azure;                    /* {base}/openai/deployments/MODEL/chat/completions?api-version= */
	bool endpoint;                 /* named in the configuration, not built in */
};

/* The provider at index kind (built-in or named endpoint), or NULL. */
const struct sc_provider_info *sc_provider_get(int kind);
/* Built-in providers plus registered endpoints. */
int sc_provider_count(void);
/* The index of the provider called name, or -1. */
int sc_provider_find(const char *name);
/* Its name, "unknown" for a bad index. */
const char *sc_provider_name(int kind);

/* A named endpoint from the trusted configuration. Strings are borrowed. */
struct sc_endpoint {
	const char *name;        /* "lab": models are lab.MODEL */
	enum sc_wire_format wire;
	const char *base_url;    /* http:// or https:// */
	const char *key_env;     /* variable holding the key; NULL: no key */
};

/*
 * Registers a named endpoint for this process (copied). SC_EINVAL when the
 * name is taken by a built-in provider, an alias or another endpoint, is
 * not lowercase letters, digits, '-' and '_', or when the table is full.
 */
int sc_providers_add_endpoint(const struct sc_endpoint *e);
/*
 * Settings from fastagent.config.yaml for a built-in provider: a base URL
 * and a key used when the provider's variables set none (either may be
 * NULL). Copied.
 */
int sc_providers_set_file_defaults(int kind, const char *base_url, const char *api_key);
/*
 * The other settings of a provider block of fastagent.config.yaml, as
 * fast-agent 0.4.53 names them: hf "default_provider" (the route of a
 * model without ":ROUTE"), azure "api_version", "resource_name" (base URL
 * https://NAME.openai.azure.com) and "azure_deployment" (the deployment
 * every azure model goes to), and "default_headers.NAME" of any provider
 * (sent with each request; never a credential header). Copied. SC_EINVAL
 * naming the setting for an unknown key or a bad value.
 */
#define SC_PROVIDER_FILE_HEADERS 4
int sc_providers_set_file_setting(int kind, const char *key, const char *value);
/* A setting above, or NULL. */
const char *sc_provider_file_setting(int kind, const char *key);
/* The i-th configured header as "Name: value", or NULL. */
const char *sc_provider_file_header(int kind, size_t i);
/* Forgets every endpoint and file setting, and the grammar goes back to the default (tests). */
void sc_providers_reset(void);
/* The scheduler's view of those file settings: NULL when none. */
const char *sc_provider_file_base(int kind);
const char *sc_provider_file_key(int kind);
/* True for an http:// or https:// URL with a host and no blanks or quotes. */
bool sc_provider_url_ok(const char *url);

/*
 * The fast-agent version whose model-string grammar (aliases, bare names,
 * providers, settings) sc_model_parse() follows: "0.6.7" by default.
 * sc_models_set_grammar(NULL) restores the default; an unsupported version
 * is SC_EINVAL naming the supported ones. sc_providers_reset() restores it
 * too.
 */
const char *sc_models_grammar(void);
int sc_models_set_grammar(const char *version);
size_t sc_models_grammar_count(void);
const char *sc_models_grammar_version(size_t i);   /* oldest first; NULL past the end */
#define SC_MODELS_GRAMMAR_DEFAULT "0.6.7"

/* The alias table of the grammar's version: name and the model string it stands for. */
size_t sc_alias_count(void);
void sc_alias_get(size_t i, const char **name, const char **target);

/* A parsed model name. Strings are owned; release with sc_model_release(). */
struct sc_model {
	int kind;            /* enum sc_provider_kind, or an endpoint's index */
	char *id;            /* the provider's model id, alias resolved: "claude-haiku-4-5" */
	char *effort;        /* auto, none, minimal..max, or a toggle "on"/"off"; NULL: not set */
	int budget;          /* thinking tokens from ?reasoning=N; 0: none */
	double temperature;  /* ?temperature=; < 0: not set */
	double top_p;        /* ?top_p=; < 0: not set */
	int max_tokens;      /* ?max_tokens=; 0: not set */
	char *verbosity;     /* ?verbosity=: low, medium, high; NULL: not set */
	char *structured;    /* ?structured=: json, tool_use; NULL: not set (no effect here) */
	char *name;          /* canonical PROVIDER.MODEL[?settings] */
	char *alias;         /* the alias it came from, or NULL */
	/* fast-agent 0.6.7's other settings (docs/providers.md, "Settings") */
	unsigned has;        /* SC_MODEL_HAS_*: which of these are set */
	int top_k;
	double min_p, presence_penalty, repetition_penalty;
	bool web_search, web_fetch, long_context;
	char *service_tier;  /* "fast" or "flex"; NULL: not set */
	char *transport;     /* "sse", "websocket", "auto"; NULL (no request changes) */
};

#define SC_MODEL_HAS_TOP_K       0x01u
#define SC_MODEL_HAS_MIN_P       0x02u
#define SC_MODEL_HAS_PRESENCE    0x04u
#define SC_MODEL_HAS_REPETITION  0x08u
#define SC_MODEL_HAS_WEB_SEARCH  0x10u
#define SC_MODEL_HAS_WEB_FETCH   0x20u
#define SC_MODEL_HAS_CONTEXT     0x40u

/*
 * Parses a model name; SC_EINVAL with a message naming it when malformed,
 * and for an unknown provider or alias a message listing the known ones
 * and the closest match.
 */
int sc_model_parse(struct sc_model *out, const char *name);
void sc_model_release(struct sc_model *model);
/*
 * A parsed model as one JSON object (appended to out): provider, model,
 * reasoning {kind, value}, each setting (null when not set) and the
 * canonical name, in the shape tests/parity/fa_parse.py prints
 * fast-agent's reading in, so the two can be compared.
 */
void sc_model_json(struct sc_buf *out, const struct sc_model *model);

/* Anthropic thinking budget for an effort word, 0 when none (docs/providers.md). */
int sc_provider_thinking_budget(const char *effort);

/*
 * What one model takes, from the capability table of models.c (rules by
 * model family, docs/providers.md cites each): whether it takes
 * temperature and top_p (both, one of them, none), extended thinking, the
 * reasoning effort words it takes (NULL: not known, passed as written;
 * "": no reasoning setting at all), its output limit, and whether it is
 * served only by an API skillci does not speak.
 */
struct sc_chat_request;

struct sc_model_caps {
	const char *family;     /* the table's rule: "claude-opus-4-1", "o-series"; NULL: no rule */
	bool no_sampling;       /* reasoning model: no temperature, no top_p */
	bool one_sampling;      /* temperature or top_p, not both (newer Claude models) */
	bool thinking;          /* Anthropic extended thinking */
	bool verbosity;         /* OpenAI's verbosity (gpt-5 family) */
	const char *efforts;    /* " low medium high ": the words it takes; NULL: unknown */
	int max_output;         /* output token limit; 0: unknown */
	const char *unsupported;/* why no request can be sent, or NULL */
};

/*
 * The parameters a request sends, as the model's capabilities shape them:
 * temperature and top_p (< 0: left out), the max tokens field and value
 * (capped at the model's output limit; Anthropic: the answer budget plus
 * the thinking budget), the thinking budget, the reasoning word sent
 * (after fast-agent's mapping: minimal -> low, max <-> xhigh where only
 * the other is taken) and OpenRouter's budget and toggle.
 */
struct sc_request_shape {
	double temperature, top_p;
	const char *max_tokens_field;
	int max_tokens;
	int thinking_budget;      /* Anthropic budget_tokens; 0: no thinking block */
	const char *effort;       /* word sent, or NULL */
	int reasoning_budget;     /* OpenRouter reasoning.max_tokens; 0: none */
	bool reasoning_on;        /* OpenRouter reasoning.enabled */
	const char *verbosity;
	/* the other settings, where the provider takes them */
	unsigned has;             /* SC_MODEL_HAS_* sent: top_k, min_p, ... */
	int top_k;
	double min_p, presence_penalty, repetition_penalty;
	const char *service_tier; /* as sent: "priority" or "flex"; NULL */
	bool web_search, web_fetch;  /* the provider's server-side tools */
	const char *beta;         /* Anthropic's anthropic-beta header value; NULL */
};

/*
 * Shapes req for model into out (always filled, with every refused
 * parameter left out). SC_EINVAL, with a message naming the model and what
 * to change, when the request asks for what the model refuses: a
 * temperature or top_p it does not take (unless req->temperature_optional,
 * when the temperature is dropped), an effort word it does not take,
 * thinking on a model without it, a model served only by another API.
 */
int sc_model_shape(struct sc_request_shape *out, const struct sc_model *model,
		   const struct sc_chat_request *req);

enum sc_chat_role {
	SC_CHAT_USER,
	SC_CHAT_ASSISTANT,
	SC_CHAT_TOOL,        /* a tool's result (its call in the request's tool_msgs) */
};

struct sc_chat_message {
	enum sc_chat_role role;
	const char *content;
};

/*
 * Tool calling (agent runs, docs/evaluation.md "Agent runs"), over each
 * API's own wire format: Anthropic's tools / tool_use / tool_result
 * blocks, OpenAI's tools / tool_calls / role "tool" messages. Everything
 * is borrowed in a request; a response's calls are one owned JSON text.
 */
struct sc_tool_def {
	const char *name;         /* "read_file" */
	const char *description;
	const char *schema;       /* JSON Schema of the arguments (an object), as text */
};

/* A call the model made. */
struct sc_tool_call {
	const char *id;           /* the provider's id ("toolu_...", "call_...") */
	const char *name;
	const char *arguments;    /* a JSON object as text ("{}" when none) */
};

/* What message i of a request holds beside its text (request.tool_msgs[i]). */
struct sc_chat_tool_msg {
	const struct sc_tool_call *calls;  /* SC_CHAT_ASSISTANT: the calls it made */
	size_t ncalls;
	const char *call_id;      /* SC_CHAT_TOOL: the id of the call it answers */
	bool is_error;            /* SC_CHAT_TOOL: the result reports a failure */
};

/* One request. Everything is borrowed; sc_client_submit() copies it. */
struct sc_chat_request {
	const char *model;          /* PROVIDER.MODEL[.EFFORT] or alias */
	const char *system;         /* NULL: no system prompt */
	const struct sc_chat_message *messages;  /* alternating, user first and last */
	size_t nmessages;
	int max_tokens;             /* 0: 4096 */
	double temperature;         /* < 0: provider default */
	bool temperature_optional;  /* a preference: left out where the model takes none (the judge) */
	int run_index;              /* sample number; part of the cache key */
	const char *oracle_answer;  /* reference answer for the oracle provider */
	const char *label;          /* test name for error messages (may be NULL) */
	/* Tool calling: the tools offered (none: a plain chat, sent as before),
	 * and per message its calls or the call it answers (NULL: no message
	 * has any; else nmessages entries). A tool result is an SC_CHAT_TOOL
	 * message; consecutive ones answer the calls of the assistant message
	 * before them. */
	const struct sc_tool_def *tools;
	size_t ntools;
	const struct sc_chat_tool_msg *tool_msgs;
};

enum sc_chat_error {
	SC_CHAT_OK = 0,
	SC_CHAT_BAD_REQUEST,   /* 400, 404, 413, 422 ...: the provider's message */
	SC_CHAT_AUTH,          /* 401, 403 */
	SC_CHAT_RATE_LIMITED,  /* 429 after every retry */
	SC_CHAT_SERVER,        /* 5xx, 529, 408 after every retry */
	SC_CHAT_NETWORK,       /* connection failure after every retry */
	SC_CHAT_TIMEOUT,       /* timeouts after every retry, or the deadline */
	SC_CHAT_PARSE,         /* a 2xx body that is not the expected JSON */
	SC_CHAT_OFFLINE,       /* offline cache mode and no cached answer */
	SC_CHAT_CONFIG,        /* no key, no reference answer for the oracle */
	SC_CHAT_CANCELLED,     /* taken back before an answer came: sc_client_cancel() */
	SC_CHAT_TRUNCATED,     /* the answer was cut at the token limit (text kept) */
	SC_CHAT_QUOTA,         /* quota or billing exhausted (no retry): insufficient_quota, 402 */
	SC_CHAT_PROMPT_TOO_LONG, /* 413, or a 400 saying the prompt is over the context (no retry) */
};

const char *sc_chat_error_name(enum sc_chat_error e);

/*
 * The outcome of one request, owned by the client and valid during the
 * callback. The callback may keep text or error by setting the pointer to
 * NULL. input_tokens counts uncached input; cache_read_tokens and
 * cache_creation_tokens are the prompt-cache parts (OpenAI's cached_tokens
 * and DeepSeek's prompt_cache_hit_tokens are moved out of prompt_tokens
 * into cache_read_tokens); output_tokens includes reasoning (xAI's
 * reasoning_tokens, which its completion_tokens leaves out, are added).
 * A truncated answer (finish_reason "length", stop_reason "max_tokens")
 * completes with SC_CHAT_TRUNCATED, its text and counts kept.
 */
struct sc_chat_response {
	char *text;                 /* the answer, "" when empty; NULL on error but a truncation */
	int64_t input_tokens, output_tokens, cache_read_tokens, cache_creation_tokens;
	int64_t reasoning_tokens;   /* the reasoning part of output_tokens */
	char *usage_raw;            /* the provider's usage object as sent (JSON), or NULL */
	char *stop_reason;          /* finish_reason / stop_reason as sent, or NULL */
	int http_status;            /* of the last attempt; 0 for cache/oracle/network */
	int attempts;               /* HTTP attempts made (0 from the cache or oracle) */
	int64_t latency_ms;         /* submit to completion */
	int64_t backoff_ms;         /* total time scheduled for waits between attempts */
	/* The tool calls of the answer as one JSON array, [{"id", "name",
	 * "arguments"}] with arguments a JSON object as text; NULL when the
	 * answer calls none. An answer with calls may have empty text. */
	char *tool_calls;
	bool from_cache;
	bool oracle;                /* answered by the oracle: zero cost, not a model */
	enum sc_chat_error error_class;
	char *error;                /* message (never holds a key); NULL when ok */
};

typedef void (*sc_chat_cb)(struct sc_chat_response *resp, void *payload);

struct sc_client_options {
	int max_total;                /* requests in flight, all providers */
	int max_per_provider;         /* requests in flight per provider (the ceiling) */
	/* the ceiling of one provider (index: enum sc_provider_kind or an
	 * endpoint's index); 0: max_per_provider. Never above max_total. */
	int per_provider[SC_PROVIDER_MAX];
	int max_attempts;
	int64_t deadline_ms;          /* per request, submit to last attempt */
	int64_t timeout_ms;           /* per attempt */
	int64_t connect_timeout_ms;
	long low_speed_time_s;        /* abort an attempt slower than low_speed_limit */
	long low_speed_limit;         /* bytes/s over low_speed_time_s (default 1) */
	int64_t backoff_base_ms, backoff_max_ms;
	int64_t retry_after_max_ms;
	int strikes_429;              /* 429s in a row that halve a provider's limit */
	int raise_after;              /* successes that raise it by one */
	const char *cache_dir;        /* NULL: no cache */
	enum sc_cache_mode cache_mode;
	uint64_t seed;                /* jitter; 0: from the clock */
};

/* Fills the defaults of runner/core/limits.h; no cache. */
void sc_client_options_init(struct sc_client_options *opt);

/* Counters for one provider, for tests, benchmarks and reports. */
struct sc_provider_stats {
	int limit;             /* current concurrency limit */
	int min_limit;         /* lowest it went */
	int decreases, increases;
	int max_in_flight;
	int64_t requests, http_attempts, retries, cache_hits, failures;
};

struct sc_client;

int sc_client_new(struct sc_client **out, const struct sc_client_options *opt);
void sc_client_free(struct sc_client *client);
/*
 * Queues a request. Fails at once (SC_EINVAL, message set, cb not called)
 * for a malformed model name, an empty message list or a missing API key;
 * every other outcome arrives through cb, exactly once, from
 * sc_client_run(). May be called from a callback.
 */
int sc_client_submit(struct sc_client *client, const struct sc_chat_request *req,
		     sc_chat_cb cb, void *payload);
/*
 * Runs until every submitted request has completed and no outside work
 * announced with sc_client_expect() is pending. 0 or SC_ENET.
 */
int sc_client_run(struct sc_client *client);

/*
 * Work done beside the requests, on other threads (kernel checks):
 * sc_client_expect() (on the thread running the client) announces one
 * piece, so sc_client_run() keeps running; sc_client_post(), from any
 * thread, hands its completion back: fn(payload) then runs on the
 * client's thread (at once, waking its poll) and the piece is no longer
 * pending. Every expected piece must be posted exactly once.
 */
void sc_client_expect(struct sc_client *client);
void sc_client_post(struct sc_client *client, void (*fn)(void *payload), void *payload);

/*
 * Calls fn(payload) on the client's thread about every interval_ms while
 * sc_client_run() runs (fn NULL: none). For work that is due by time, such
 * as committing finished results.
 */
void sc_client_set_tick(struct sc_client *client, int64_t interval_ms,
			void (*fn)(void *payload), void *payload);

/*
 * Takes back the requests waiting to start (never those with an attempt in
 * flight) for which keep_out(their payload, arg) is true: each completes
 * at once with SC_CHAT_CANCELLED. Returns how many. For a stop: no new
 * work starts, work in flight finishes.
 */
size_t sc_client_cancel(struct sc_client *client, bool (*keep_out)(void *payload, void *arg),
			void *arg);
/* Requests with an attempt in flight now, all providers. */
int sc_client_in_flight(const struct sc_client *client);
/* The total bound: requests in flight at most, all providers. */
int sc_client_capacity(const struct sc_client *client);
/* kind: a provider index (zeroes for a bad one). */
void sc_client_stats(const struct sc_client *client, int kind, struct sc_provider_stats *out);

/*
 * Adaptive concurrency for one provider: halve the limit after `strikes`
 * 429s in a row that were sent under the current limit, raise it by one
 * after `raise_after` successes, never below 1 or above max.
 */
struct sc_limiter {
	int max, limit, strikes, strikes_needed, streak, raise_after, epoch;
};
void sc_limiter_init(struct sc_limiter *l, int max, int strikes_needed, int raise_after);
/* epoch: l->epoch when the request was sent. Returns true when it lowered the limit. */
bool sc_limiter_on_429(struct sc_limiter *l, int epoch);
/* Returns true when it raised the limit. */
bool sc_limiter_on_success(struct sc_limiter *l);

/*
 * The wire format of each API, for the scheduler and for tests. A body is
 * built from a parsed model and a request, shaped by the model's provider
 * (max tokens field, reasoning effort); a 2xx body is parsed into resp
 * (text and token counts). Error bodies share one reader,
 * sc_provider_parse_error().
 */
struct sc_provider_wire {
	/* Appends the JSON request body to out. */
	void (*build_body)(struct sc_buf *out, const struct sc_model *model,
			   const struct sc_chat_request *req);
	/* Path appended to the base URL ("/v1/messages"; Azure builds its own). */
	const char *path;
	int (*parse_ok)(struct sc_chat_response *resp, const char *body, size_t len);
};

extern const struct sc_provider_wire sc_wire_anthropic;
extern const struct sc_provider_wire sc_wire_openai;  /* every OpenAI-compatible provider */
extern const struct sc_provider_wire sc_wire_openai_xai;  /* the same, xAI's usage counts */
extern const struct sc_provider_wire sc_wire_responses;   /* OpenAI's Responses API */

/*
 * The message in an error body, the same for every API: error.message
 * (as "type: message" when error.type is there, as Anthropic and OpenAI
 * send it), else a bare "error" string, "detail" or "message" (as some
 * OpenAI-compatible servers send). Appended to out; false when the body
 * has none.
 */
bool sc_provider_parse_error(struct sc_buf *out, const char *body, size_t len);

/* The oracle's answer: copies req->oracle_answer into resp, or a config error. */
void sc_oracle_answer(struct sc_chat_response *resp, const struct sc_chat_request *req);

#endif
