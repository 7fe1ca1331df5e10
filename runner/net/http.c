/*
 * The curl multi loop. Each transfer is one easy handle with its own
 * header list and result; the multi handle keeps connections alive between
 * transfers (connection reuse) and multiplexes HTTP/2 streams when a server
 * offers h2 over TLS. Completion callbacks run from sc_http_poll(), outside
 * any curl callback, so they may start new transfers.
 */
#include "common.h"
#include "net/http.h"
#include "redact.h"

#include <ctype.h>
#include <curl/curl.h>

struct transfer {
	CURL *easy;
	struct curl_slist *headers;
	struct sc_http_result res;
	char errbuf[CURL_ERROR_SIZE];
	sc_http_done_cb cb;
	void *payload;
	int64_t started_ms;
	bool too_large;
	struct sc_buf secrets;  /* credential header values, NUL-separated; kept only when tracing */
	struct transfer *prev, *next;  /* the loop's list of running transfers */
};

struct sc_http {
	CURLM *multi;
	size_t in_flight;
	struct transfer *running;
};

int sc_http_global_init(void)
{
	CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
	if (rc != CURLE_OK)
		return sc_error_set(SC_ENET, "cannot initialise libcurl: %s", curl_easy_strerror(rc));
	return 0;
}

void sc_http_global_shutdown(void)
{
	curl_global_cleanup();
}

bool sc_http_header_is_secret(const char *name, size_t len)
{
	char low[64];
	size_t i;

	if (len >= sizeof(low))
		len = sizeof(low) - 1;
	for (i = 0; i < len; i++)
		low[i] = (char)tolower((unsigned char)name[i]);
	low[len] = '\0';
	return !strcmp(low, "authorization") || !strcmp(low, "proxy-authorization") ||
	       strstr(low, "key") || strstr(low, "token") || strstr(low, "secret") ||
	       strstr(low, "cookie");
}

int sc_http_new(struct sc_http **out, int max_connections)
{
	struct sc_http *h = sc_xcalloc(1, sizeof(*h));

	h->multi = curl_multi_init();
	if (!h->multi) {
		free(h);
		return sc_error_set(SC_ENET, "cannot create a curl multi handle");
	}
	curl_multi_setopt(h->multi, CURLMOPT_PIPELINING, (long)CURLPIPE_MULTIPLEX);
	if (max_connections > 0)
		curl_multi_setopt(h->multi, CURLMOPT_MAXCONNECTS, (long)max_connections);
	*out = h;
	return 0;
}

static void transfer_free(struct transfer *t)
{
	if (!t)
		return;
	if (t->easy)
		curl_easy_cleanup(t->easy);
	curl_slist_free_all(t->headers);
	sc_buf_release(&t->res.body);
	sc_buf_release(&t->secrets);
	free(t);
}

void sc_http_free(struct sc_http *h)
{
	if (!h)
		return;
	/* Transfers still running are dropped without their callbacks. */
	while (h->running) {
		struct transfer *t = h->running;
		h->running = t->next;
		curl_multi_remove_handle(h->multi, t->easy);
		transfer_free(t);
	}
	curl_multi_cleanup(h->multi);
	free(h);
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *userp)
{
	struct transfer *t = userp;
	size_t n = size * nmemb;

	if (sc_buf_put_capped(&t->res.body, data, n, SC_MAX_HTTP_RESPONSE_BYTES) < 0) {
		t->too_large = true;
		return 0;
	}
	return n;
}

/*
 * Keeps the Retry-After and retry-after-ms headers of the final response
 * (those of an earlier 1xx response are dropped at the next status line).
 * retry-after-ms is a whole number of milliseconds, as OpenAI and Azure
 * send it; anything else leaves it unset.
 */
static size_t on_header(char *data, size_t size, size_t nmemb, void *userp)
{
	struct transfer *t = userp;
	size_t n = size * nmemb, vlen;
	static const char name[] = "retry-after:", name_ms[] = "retry-after-ms:";
	const char *v;

	if (n >= 5 && !memcmp(data, "HTTP/", 5)) {
		t->res.retry_after[0] = '\0';
		t->res.retry_after_ms = -1;
		return n;
	}
	if (n > sizeof(name_ms) - 1 && !strncasecmp(data, name_ms, sizeof(name_ms) - 1)) {
		int64_t ms = 0;
		bool digits = false;
		v = data + sizeof(name_ms) - 1;
		vlen = n - (sizeof(name_ms) - 1);
		while (vlen && (*v == ' ' || *v == '\t'))
			v++, vlen--;
		while (vlen && (v[vlen - 1] == '\r' || v[vlen - 1] == '\n' || v[vlen - 1] == ' '))
			vlen--;
		for (size_t i = 0; i < vlen; i++) {
			if (!isdigit((unsigned char)v[i]) || ms > 86400000LL * 365) {
				digits = false;
				break;
			}
			ms = ms * 10 + (v[i] - '0');
			digits = true;
		}
		t->res.retry_after_ms = digits ? ms : -1;
		return n;
	}
	if (n <= sizeof(name) - 1 || strncasecmp(data, name, sizeof(name) - 1))
		return n;
	v = data + sizeof(name) - 1;
	vlen = n - (sizeof(name) - 1);
	while (vlen && (*v == ' ' || *v == '\t'))
		v++, vlen--;
	while (vlen && (v[vlen - 1] == '\r' || v[vlen - 1] == '\n' || v[vlen - 1] == ' '))
		vlen--;
	if (vlen >= sizeof(t->res.retry_after))
		vlen = sizeof(t->res.retry_after) - 1;
	memcpy(t->res.retry_after, v, vlen);
	t->res.retry_after[vlen] = '\0';
	return n;
}

/*
 * Keeps the values of the request's credential headers (a "Bearer " prefix
 * dropped) in t->secrets when HTTP tracing is on, so a response that echoes
 * a key back can be traced with the key masked.
 */
static void keep_secrets(struct transfer *t, const struct sc_http_spec *spec)
{
	if (!sc_trace_on("http"))
		return;
	for (size_t i = 0; i < spec->nheaders; i++) {
		const char *h = spec->headers[i];
		const char *colon = strchr(h, ':'), *v;
		if (!colon || !sc_http_header_is_secret(h, (size_t)(colon - h)))
			continue;
		for (v = colon + 1; *v == ' '; v++)
			;
		if (!strncasecmp(v, "Bearer ", 7))
			v += 7;
		if (strlen(v) >= 4)
			sc_buf_put(&t->secrets, v, strlen(v) + 1);
	}
}

/* Traces "< BODY" (the first 2000 bytes) with every kept secret and its
 * prefixes and encoded forms masked (redact.h). */
static void trace_response_body(const struct transfer *t)
{
	struct sc_redact r;
	char *body = sc_xstrndup(t->res.body.ptr, t->res.body.len > 2000 ? 2000 : t->res.body.len);

	sc_redact_init(&r);
	for (size_t off = 0; off < t->secrets.len; off += strlen(t->secrets.ptr + off) + 1)
		sc_redact_add(&r, t->secrets.ptr + off);
	sc_redact_apply(&r, &body);
	sc_trace("http", "< %s", body);
	sc_redact_release(&r);
	free(body);
}

/* Prints a request with credential header values masked. */
static void trace_request(const struct sc_http_spec *spec)
{
	struct sc_buf line = SC_BUF_INIT;

	if (!sc_trace_on("http"))
		return;
	sc_trace("http", "> POST %s", spec->url);
	for (size_t i = 0; i < spec->nheaders; i++) {
		const char *h = spec->headers[i];
		const char *colon = strchr(h, ':');
		size_t nlen = colon ? (size_t)(colon - h) : strlen(h);
		sc_buf_clear(&line);
		if (colon && sc_http_header_is_secret(h, nlen))
			sc_buf_printf(&line, "%.*s: [masked]", (int)nlen, h);
		else
			sc_buf_puts(&line, h);
		sc_trace("http", "> %s", line.ptr);
	}
	sc_trace("http", "> %.*s", (int)(spec->body_len > 4000 ? 4000 : spec->body_len), spec->body);
	sc_buf_release(&line);
}

int sc_http_start(struct sc_http *h, const struct sc_http_spec *spec,
		  sc_http_done_cb cb, void *payload)
{
	struct transfer *t = sc_xcalloc(1, sizeof(*t));
	CURLMcode mc;

	sc_buf_init(&t->res.body);
	t->res.retry_after_ms = -1;
	sc_buf_init(&t->secrets);
	t->cb = cb;
	t->payload = payload;
	t->easy = curl_easy_init();
	if (!t->easy) {
		transfer_free(t);
		return sc_error_set(SC_ENET, "cannot create a curl handle");
	}
	for (size_t i = 0; i < spec->nheaders; i++) {
		struct curl_slist *n = curl_slist_append(t->headers, spec->headers[i]);
		if (!n)
			sc_die("out of memory");
		t->headers = n;
	}
	/* curl adds "Expect: 100-continue" to large POSTs; servers answer faster without. */
	t->headers = curl_slist_append(t->headers, "Expect:");
	trace_request(spec);
	keep_secrets(t, spec);

	curl_easy_setopt(t->easy, CURLOPT_URL, spec->url);
	curl_easy_setopt(t->easy, CURLOPT_HTTPHEADER, t->headers);
	curl_easy_setopt(t->easy, CURLOPT_POST, 1L);
	curl_easy_setopt(t->easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)spec->body_len);
	curl_easy_setopt(t->easy, CURLOPT_COPYPOSTFIELDS, spec->body);
	curl_easy_setopt(t->easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(t->easy, CURLOPT_WRITEDATA, t);
	curl_easy_setopt(t->easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(t->easy, CURLOPT_HEADERDATA, t);
	curl_easy_setopt(t->easy, CURLOPT_PRIVATE, t);
	curl_easy_setopt(t->easy, CURLOPT_ERRORBUFFER, t->errbuf);
	curl_easy_setopt(t->easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(t->easy, CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_2TLS);
	/* wait for a connection in progress that may multiplex (HTTP/2, which
	 * TLS settles at its handshake); over plain http it never does, and
	 * curl learns that only from the first answer: every other request
	 * would wait for it */
	if (!strncasecmp(spec->url, "https:", 6))
		curl_easy_setopt(t->easy, CURLOPT_PIPEWAIT, 1L);
	curl_easy_setopt(t->easy, CURLOPT_ACCEPT_ENCODING, "");
	curl_easy_setopt(t->easy, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(t->easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(t->easy, CURLOPT_USERAGENT, "skillci/" SC_VERSION);
	if (spec->connect_timeout_ms > 0)
		curl_easy_setopt(t->easy, CURLOPT_CONNECTTIMEOUT_MS, (long)spec->connect_timeout_ms);
	if (spec->timeout_ms > 0)
		curl_easy_setopt(t->easy, CURLOPT_TIMEOUT_MS, (long)spec->timeout_ms);
	if (spec->low_speed_time_s > 0) {
		curl_easy_setopt(t->easy, CURLOPT_LOW_SPEED_LIMIT,
				 spec->low_speed_limit > 0 ? spec->low_speed_limit : 1L);
		curl_easy_setopt(t->easy, CURLOPT_LOW_SPEED_TIME, spec->low_speed_time_s);
	}
	t->started_ms = sc_now_ms();
	mc = curl_multi_add_handle(h->multi, t->easy);
	if (mc != CURLM_OK) {
		transfer_free(t);
		return sc_error_set(SC_ENET, "cannot start a request to '%s': %s", spec->url,
				    curl_multi_strerror(mc));
	}
	h->in_flight++;
	t->next = h->running;
	if (h->running)
		h->running->prev = t;
	h->running = t;
	return 0;
}

/* Turns a finished easy handle into a result and runs its callback. */
static void finish(struct sc_http *h, CURL *easy, CURLcode rc)
{
	struct transfer *t = NULL;
	long status = 0;

	curl_easy_getinfo(easy, CURLINFO_PRIVATE, (char **)&t);
	curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
	curl_multi_remove_handle(h->multi, easy);
	h->in_flight--;
	if (t->prev)
		t->prev->next = t->next;
	else
		h->running = t->next;
	if (t->next)
		t->next->prev = t->prev;
	t->res.status = status;
	t->res.elapsed_ms = sc_now_ms() - t->started_ms;
	if (rc == CURLE_OK) {
		t->res.fail = SC_HTTP_FAIL_NONE;
	} else {
		if (t->too_large)
			t->res.fail = SC_HTTP_FAIL_TOO_LARGE;
		else if (rc == CURLE_OPERATION_TIMEDOUT)
			t->res.fail = SC_HTTP_FAIL_TIMEOUT;
		else
			t->res.fail = SC_HTTP_FAIL_NETWORK;
		snprintf(t->res.error, sizeof(t->res.error), "%s",
			 t->too_large ? "response body too large" :
			 t->errbuf[0] ? t->errbuf : curl_easy_strerror(rc));
		t->res.status = 0;
	}
	sc_trace("http", "< %ld %zu bytes %lld ms%s%s%s%s", t->res.status, t->res.body.len,
		 (long long)t->res.elapsed_ms, t->res.error[0] ? " error: " : "", t->res.error,
		 t->res.retry_after[0] ? " retry-after: " : "", t->res.retry_after);
	if (sc_trace_on("http") && t->res.body.len)
		trace_response_body(t);
	t->cb(&t->res, t->payload);
	transfer_free(t);
}

int sc_http_poll(struct sc_http *h, int timeout_ms)
{
	CURLMcode mc;
	CURLMsg *msg;
	int running = 0, left;

	mc = curl_multi_perform(h->multi, &running);
	/* with nothing running curl_multi_poll still sleeps, and
	 * sc_http_wakeup() ends the sleep early */
	if (mc == CURLM_OK && timeout_ms > 0)
		mc = curl_multi_poll(h->multi, NULL, 0, timeout_ms, NULL);
	if (mc == CURLM_OK)
		mc = curl_multi_perform(h->multi, &running);
	if (mc != CURLM_OK)
		return sc_error_set(SC_ENET, "curl multi loop failed: %s", curl_multi_strerror(mc));
	while ((msg = curl_multi_info_read(h->multi, &left))) {
		if (msg->msg == CURLMSG_DONE)
			finish(h, msg->easy_handle, msg->data.result);
	}
	return 0;
}

size_t sc_http_in_flight(const struct sc_http *h)
{
	return h->in_flight;
}

void sc_http_wakeup(struct sc_http *h)
{
	curl_multi_wakeup(h->multi);
}

bool sc_http_status_retryable(long status)
{
	switch (status) {
	case 408: case 429: case 500: case 502: case 503: case 504: case 529:
		return true;
	default:
		return false;
	}
}

int64_t sc_http_retry_after_ms(const char *value, int64_t now_unix)
{
	const char *p = value;
	int64_t secs = 0;
	time_t when;

	if (!value)
		return -1;
	while (*p == ' ')
		p++;
	if (!*p)
		return -1;
	if (isdigit((unsigned char)*p)) {
		for (; isdigit((unsigned char)*p); p++) {
			secs = secs * 10 + (*p - '0');
			if (secs > 86400 * 365)
				return -1;
		}
		while (*p == ' ')
			p++;
		return *p ? -1 : secs * 1000;
	}
	when = curl_getdate(p, NULL);
	if (when == (time_t)-1)
		return -1;
	return (int64_t)when > now_unix ? ((int64_t)when - now_unix) * 1000 : 0;
}

int64_t sc_http_backoff_ms(int attempt, int64_t base_ms, int64_t cap_ms, uint64_t *rng)
{
	int64_t ceiling = base_ms;
	uint64_t x = *rng ? *rng : 0x9e3779b97f4a7c15ull;

	for (int i = 1; i < attempt && ceiling < cap_ms; i++)
		ceiling *= 2;
	if (ceiling > cap_ms)
		ceiling = cap_ms;
	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*rng = x;
	return ceiling > 0 ? (int64_t)(x % (uint64_t)(ceiling + 1)) : 0;
}

/* ---- one synchronous request (GitHub REST API) -------------------------- */

/*
 * Runs one request outside the multi loop with curl's easy interface:
 * method is "GET", "POST", "PATCH", ...; spec->body is sent when not NULL.
 * The outcome is reported exactly as a loop transfer's, in *out (the
 * caller releases out->body). Returns 0 when a response arrived, whatever
 * its status; SC_ENET when none did (out->fail and out->error say why).
 * Only the method and URL are traced; header values never are.
 */
int sc_http_request(struct sc_http_result *out, const char *method, const struct sc_http_spec *spec)
{
	struct transfer t;
	CURLcode rc;

	memset(&t, 0, sizeof(t));
	sc_buf_init(&t.res.body);
	t.res.retry_after_ms = -1;
	t.easy = curl_easy_init();
	if (!t.easy)
		return sc_error_set(SC_ENET, "cannot create a curl handle");
	for (size_t i = 0; i < spec->nheaders; i++) {
		struct curl_slist *n = curl_slist_append(t.headers, spec->headers[i]);
		if (!n)
			sc_die("out of memory");
		t.headers = n;
	}
	t.headers = curl_slist_append(t.headers, "Expect:");
	sc_trace("http", "> %s %s", method, spec->url);
	curl_easy_setopt(t.easy, CURLOPT_URL, spec->url);
	curl_easy_setopt(t.easy, CURLOPT_HTTPHEADER, t.headers);
	curl_easy_setopt(t.easy, CURLOPT_CUSTOMREQUEST, method);
	if (spec->body) {
		curl_easy_setopt(t.easy, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)spec->body_len);
		curl_easy_setopt(t.easy, CURLOPT_COPYPOSTFIELDS, spec->body);
	}
	curl_easy_setopt(t.easy, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(t.easy, CURLOPT_WRITEDATA, &t);
	curl_easy_setopt(t.easy, CURLOPT_HEADERFUNCTION, on_header);
	curl_easy_setopt(t.easy, CURLOPT_HEADERDATA, &t);
	curl_easy_setopt(t.easy, CURLOPT_ERRORBUFFER, t.errbuf);
	curl_easy_setopt(t.easy, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(t.easy, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(t.easy, CURLOPT_USERAGENT, "skillci/" SC_VERSION);
	curl_easy_setopt(t.easy, CURLOPT_ACCEPT_ENCODING, "");
	if (spec->connect_timeout_ms > 0)
		curl_easy_setopt(t.easy, CURLOPT_CONNECTTIMEOUT_MS, (long)spec->connect_timeout_ms);
	if (spec->timeout_ms > 0)
		curl_easy_setopt(t.easy, CURLOPT_TIMEOUT_MS, (long)spec->timeout_ms);
	t.started_ms = sc_now_ms();
	rc = curl_easy_perform(t.easy);
	curl_easy_getinfo(t.easy, CURLINFO_RESPONSE_CODE, &t.res.status);
	t.res.elapsed_ms = sc_now_ms() - t.started_ms;
	if (rc != CURLE_OK) {
		t.res.fail = t.too_large ? SC_HTTP_FAIL_TOO_LARGE :
			     rc == CURLE_OPERATION_TIMEDOUT ? SC_HTTP_FAIL_TIMEOUT : SC_HTTP_FAIL_NETWORK;
		snprintf(t.res.error, sizeof(t.res.error), "%s",
			 t.too_large ? "response body too large" :
			 t.errbuf[0] ? t.errbuf : curl_easy_strerror(rc));
		t.res.status = 0;
	}
	sc_trace("http", "< %ld %zu bytes %lld ms", t.res.status, t.res.body.len, (long long)t.res.elapsed_ms);
	*out = t.res;
	curl_easy_cleanup(t.easy);
	curl_slist_free_all(t.headers);
	if (rc != CURLE_OK)
		return sc_error_set(SC_ENET, "%s '%s' failed: %s", method, spec->url, out->error);
	return 0;
}
