#ifndef SC_HTTP_H
#define SC_HTTP_H
/*
 * HTTP transport: one curl multi event loop shared by every model request.
 * This module is the only one that includes <curl/curl.h>; no curl type
 * appears here. It moves bytes and reports what happened (status, body,
 * Retry-After, network/timeout errors); deciding whether to retry belongs
 * to the scheduler in provider.c, which uses the helpers at the end.
 *
 * Tracing (SKILLCI_TRACE=http) prints each request's method, URL, headers
 * and body, and each response's status and size. Values of credential
 * headers (x-api-key, authorization, any name containing "key", "token" or
 * "secret") are always printed as "[masked]".
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Once per process, from main() (and from test programs). */
int sc_http_global_init(void);
void sc_http_global_shutdown(void);

/* What went wrong with a transfer, before any HTTP status is looked at. */
enum sc_http_fail {
	SC_HTTP_FAIL_NONE = 0,   /* a complete response arrived (any status) */
	SC_HTTP_FAIL_NETWORK,    /* connect, reset, truncated body, DNS, TLS */
	SC_HTTP_FAIL_TIMEOUT,    /* connect, total or low-speed timeout */
	SC_HTTP_FAIL_TOO_LARGE,  /* body above SC_MAX_HTTP_RESPONSE_BYTES */
};

/* One POST. Every pointer is borrowed until sc_http_start() returns. */
struct sc_http_spec {
	const char *url;
	const char *const *headers;  /* "Name: value" lines */
	size_t nheaders;
	const char *body;
	size_t body_len;
	int64_t connect_timeout_ms;  /* 0: curl's default */
	int64_t timeout_ms;          /* whole transfer; 0: none */
	long low_speed_limit;        /* bytes/s ... */
	long low_speed_time_s;       /* ... for this long aborts; 0: off */
};

/* The outcome handed to the completion callback; owned by the loop and
 * valid only during the callback (the callback may take body with
 * sc_buf_detach). */
struct sc_http_result {
	enum sc_http_fail fail;
	long status;             /* 0 when no response */
	struct sc_buf body;
	char retry_after[64];    /* raw Retry-After value, "" when absent */
	int64_t retry_after_ms;  /* retry-after-ms (OpenAI, Azure), -1 when absent or malformed */
	char error[256];         /* curl's message when fail != NONE */
	int64_t elapsed_ms;
};

typedef void (*sc_http_done_cb)(struct sc_http_result *res, void *payload);

struct sc_http;

/* A loop keeping at most max_connections idle connections for reuse. */
int sc_http_new(struct sc_http **out, int max_connections);
void sc_http_free(struct sc_http *http);
/* Queues one transfer; cb runs from sc_http_poll() when it ends. */
int sc_http_start(struct sc_http *http, const struct sc_http_spec *spec,
		  sc_http_done_cb cb, void *payload);
/*
 * Drives transfers, waiting at most timeout_ms for activity (also with no
 * transfer running: then it waits for sc_http_wakeup() or the timeout),
 * and runs the callbacks of those that ended. Returns 0 or SC_ENET on a
 * multi failure.
 */
int sc_http_poll(struct sc_http *http, int timeout_ms);
size_t sc_http_in_flight(const struct sc_http *http);
/*
 * Wakes a thread waiting in sc_http_poll() (from any thread, at once),
 * so that work posted from another thread is seen without waiting for
 * the poll's timeout.
 */
void sc_http_wakeup(struct sc_http *http);

/* True for the statuses worth retrying: 408, 429, 500, 502, 503, 504, 529. */
bool sc_http_status_retryable(long status);
/*
 * Parses a Retry-After value: delta seconds ("3") or an HTTP date ("Wed,
 * 21 Oct 2026 07:28:00 GMT"), relative to now_unix. Returns milliseconds
 * to wait (0 for a date in the past), or -1 when absent or malformed.
 */
int64_t sc_http_retry_after_ms(const char *value, int64_t now_unix);
/*
 * Exponential backoff with full jitter: a uniform draw in
 * [0, min(cap_ms, base_ms * 2^(attempt-1))], using *rng (xorshift state,
 * never 0). attempt counts from 1.
 */
int64_t sc_http_backoff_ms(int attempt, int64_t base_ms, int64_t cap_ms, uint64_t *rng);
/* True when a header name carries a credential and must never be shown. */
bool sc_http_header_is_secret(const char *name, size_t len);


/*
 * One synchronous request with any method ("GET", "POST", "PATCH"), for
 * callers outside the model loop (the GitHub REST API). spec->body is sent
 * when not NULL; the low-speed fields are ignored. *out is filled as for a
 * loop transfer; the caller releases out->body. Returns 0 when a response
 * arrived (any status), SC_ENET when none did.
 */
int sc_http_request(struct sc_http_result *out, const char *method, const struct sc_http_spec *spec);

#endif
