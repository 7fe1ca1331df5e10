/* Unit tests for the HTTP transport (runner/net/http.c): Retry-After parsing,
 * backoff with jitter, credential masking, and real transfers against the
 * fake model server on loopback (status, body, headers, faults). */
#include "unit.h"
#include "net/http.h"
#include "fake_server.h"

#include <time.h>

static void test_retry_after_forms(void **state)
{
	int64_t now = 1796000000;  /* a fixed clock */
	char date[64];
	time_t t = (time_t)(now + 7);
	struct tm tm;
	(void)state;

	assert_int_equal(sc_http_retry_after_ms("3", now), 3000);
	assert_int_equal(sc_http_retry_after_ms(" 0 ", now), 0);
	assert_int_equal(sc_http_retry_after_ms("120", now), 120000);
	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a, %d %b %Y %H:%M:%S GMT", &tm);
	assert_int_equal(sc_http_retry_after_ms(date, now), 7000);
	assert_int_equal(sc_http_retry_after_ms(date, now + 100), 0);  /* in the past */
	assert_int_equal(sc_http_retry_after_ms("", now), -1);
	assert_int_equal(sc_http_retry_after_ms(NULL, now), -1);
	assert_int_equal(sc_http_retry_after_ms("soon", now), -1);
	assert_int_equal(sc_http_retry_after_ms("3x", now), -1);
	assert_int_equal(sc_http_retry_after_ms("-1", now), -1);
}

static void test_backoff_full_jitter_bounds(void **state)
{
	uint64_t rng = 42;
	int64_t max_seen[6] = { 0 };
	(void)state;

	for (int i = 0; i < 2000; i++) {
		for (int a = 1; a <= 5; a++) {
			int64_t d = sc_http_backoff_ms(a, 100, 1000, &rng);
			int64_t ceiling = 100LL << (a - 1);
			if (ceiling > 1000)
				ceiling = 1000;
			assert_true(d >= 0 && d <= ceiling);
			if (d > max_seen[a])
				max_seen[a] = d;
		}
	}
	/* the draws spread over the whole window (full jitter), growing with attempts */
	assert_true(max_seen[1] > 90);
	assert_true(max_seen[3] > 350);
	assert_true(max_seen[5] > 900);
	assert_true(sc_http_status_retryable(429) && sc_http_status_retryable(529) &&
		    sc_http_status_retryable(408) && sc_http_status_retryable(503));
	assert_false(sc_http_status_retryable(400) || sc_http_status_retryable(401) ||
		     sc_http_status_retryable(404) || sc_http_status_retryable(200));
}

static void test_secret_headers(void **state)
{
	(void)state;
	assert_true(sc_http_header_is_secret("x-api-key", 9));
	assert_true(sc_http_header_is_secret("Authorization", 13));
	assert_true(sc_http_header_is_secret("X-Goog-Api-Key", 14));
	assert_false(sc_http_header_is_secret("anthropic-version", 17));
	assert_false(sc_http_header_is_secret("Content-Type", 12));
}

struct outcome {
	int done;
	enum sc_http_fail fail;
	long status;
	char retry_after[64];
	struct sc_buf body;
};

static void on_done(struct sc_http_result *res, void *payload)
{
	struct outcome *o = payload;
	o->done++;
	o->fail = res->fail;
	o->status = res->status;
	snprintf(o->retry_after, sizeof(o->retry_after), "%s", res->retry_after);
	sc_buf_sets(&o->body, res->body.ptr);
}

/* One POST to the fake's Anthropic endpoint, driven to completion. */
static void post(struct fake *f, struct outcome *o, int64_t timeout_ms, long low_speed_s)
{
	struct sc_http *h = NULL;
	struct sc_buf url = SC_BUF_INIT;
	const char *headers[] = { "Content-Type: application/json", "x-api-key: k-test" };
	const char *body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}";
	struct sc_http_spec spec = { 0 };

	memset(o, 0, sizeof(*o));
	sc_buf_init(&o->body);
	sc_buf_printf(&url, "%s/v1/messages", f->url);
	spec.url = url.ptr;
	spec.headers = headers;
	spec.nheaders = 2;
	spec.body = body;
	spec.body_len = strlen(body);
	spec.timeout_ms = timeout_ms;
	spec.low_speed_limit = 1000;
	spec.low_speed_time_s = low_speed_s;
	assert_int_equal(sc_http_new(&h, 4), 0);
	assert_int_equal(sc_http_start(h, &spec, on_done, o), 0);
	while (sc_http_in_flight(h) > 0)
		assert_int_equal(sc_http_poll(h, 100), 0);
	assert_int_equal(o->done, 1);
	sc_http_free(h);
	sc_buf_release(&url);
}

static void test_transfers_against_fake(void **state)
{
	struct fake f;
	struct outcome o;
	(void)state;

	fake_start(&f, "{\"default\":{\"text\":\"pong\"}}");
	post(&f, &o, 5000, 0);
	assert_int_equal(o.fail, SC_HTTP_FAIL_NONE);
	assert_int_equal(o.status, 200);
	assert_non_null(strstr(o.body.ptr, "pong"));
	sc_buf_release(&o.body);

	fake_script(&f, "{\"default\":{\"status\":429,\"retry_after\":\"17\"}}");
	post(&f, &o, 5000, 0);
	assert_int_equal(o.status, 429);
	assert_string_equal(o.retry_after, "17");
	assert_non_null(strstr(o.body.ptr, "\"type\": \"error\""));
	sc_buf_release(&o.body);

	fake_script(&f, "{\"default\":{\"fault\":\"reset\"}}");
	post(&f, &o, 5000, 0);
	assert_int_equal(o.fail, SC_HTTP_FAIL_NETWORK);
	assert_int_equal(o.status, 0);
	sc_buf_release(&o.body);

	fake_script(&f, "{\"default\":{\"fault\":\"truncate\"}}");
	post(&f, &o, 5000, 0);
	assert_int_equal(o.fail, SC_HTTP_FAIL_NETWORK);
	sc_buf_release(&o.body);

	/* slow drip: the low-speed limit (1 byte/s over 1 s) ends it */
	fake_script(&f, "{\"default\":{\"fault\":\"drip\",\"drip_ms\":10000}}");
	post(&f, &o, 20000, 1);
	assert_int_equal(o.fail, SC_HTTP_FAIL_TIMEOUT);
	sc_buf_release(&o.body);

	/* a server slower than the total timeout */
	fake_script(&f, "{\"default\":{\"latency_ms\":3000}}");
	post(&f, &o, 300, 0);
	assert_int_equal(o.fail, SC_HTTP_FAIL_TIMEOUT);
	sc_buf_release(&o.body);
	fake_stop(&f);
}

/* Many transfers over one loop reuse connections: the fake sees every
 * request, and the loop ends with nothing in flight. */
static void test_many_transfers_one_loop(void **state)
{
	struct fake f;
	struct sc_http *h = NULL;
	struct outcome o[40];
	struct sc_buf url = SC_BUF_INIT;
	const char *headers[] = { "Content-Type: application/json" };
	const char *body = "{\"model\":\"m\",\"messages\":[{\"role\":\"user\",\"content\":\"x\"}]}";
	struct sc_http_spec spec = { 0 };
	(void)state;

	fake_start(&f, "{\"default\":{\"latency_ms\":20}}");
	sc_buf_printf(&url, "%s/v1/chat/completions", f.url);
	spec.url = url.ptr;
	spec.headers = headers;
	spec.nheaders = 1;
	spec.body = body;
	spec.body_len = strlen(body);
	assert_int_equal(sc_http_new(&h, 8), 0);
	for (int i = 0; i < 40; i++) {
		memset(&o[i], 0, sizeof(o[i]));
		sc_buf_init(&o[i].body);
		assert_int_equal(sc_http_start(h, &spec, on_done, &o[i]), 0);
	}
	while (sc_http_in_flight(h) > 0)
		assert_int_equal(sc_http_poll(h, 100), 0);
	for (int i = 0; i < 40; i++) {
		assert_int_equal(o[i].done, 1);
		assert_int_equal(o[i].status, 200);
		assert_non_null(strstr(o[i].body.ptr, "chat.completion"));
		sc_buf_release(&o[i].body);
	}
	assert_int_equal(fake_stat(&f, "requests"), 40);
	sc_http_free(h);
	sc_buf_release(&url);
	fake_stop(&f);
}

static int setup(void **state)
{
	(void)state;
	return sc_http_global_init();
}

static int teardown(void **state)
{
	(void)state;
	sc_http_global_shutdown();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_retry_after_forms),
		cmocka_unit_test(test_backoff_full_jitter_bounds),
		cmocka_unit_test(test_secret_headers),
		cmocka_unit_test(test_transfers_against_fake),
		cmocka_unit_test(test_many_transfers_one_loop),
	};
	return cmocka_run_group_tests_name("http", tests, setup, teardown);
}
