/* The request scheduler (runner/providers/provider.c) against the fake model server
 * over loopback HTTP: token accounting, every error path, retries and
 * Retry-After, concurrency bounds, adaptive concurrency, multi-turn
 * conversations, the oracle, and keys kept out of errors and logs. */
#include "unit.h"
#include "fake_server.h"
#include "provider_test.h"
#include "net/http.h"

static struct fake F;

static void test_token_accounting_both_apis(void **state)
{
	struct sc_client_options o;
	struct got g;
	(void)state;

	fake_script(&F, "{\"default\":{\"text\":\"exact\",\"usage\":{\"input\":123,\"output\":45,"
			"\"cache_read\":67,\"cache_creation\":8}}}");
	test_options(&o);
	ask1(&o, "anthropic.claude-test", "count me", &g);
	assert_int_equal(g.cls, SC_CHAT_OK);
	assert_string_equal(g.text, "exact");
	assert_int_equal(g.in, 123);
	assert_int_equal(g.out, 45);
	assert_int_equal(g.cache_read, 67);
	assert_int_equal(g.cache_creation, 8);
	assert_int_equal(g.attempts, 1);
	assert_int_equal(g.status, 200);
	got_release(&g);

	/* OpenAI: prompt_tokens 198 = 123 + 67 + 8, of which 67 cached */
	ask1(&o, "openai.gpt-test", "count me", &g);
	assert_int_equal(g.cls, SC_CHAT_OK);
	assert_int_equal(g.in, 123 + 8);
	assert_int_equal(g.cache_read, 67);
	assert_int_equal(g.out, 45);
	got_release(&g);

	ask1(&o, "generic.local-model", "count me", &g);
	assert_int_equal(g.cls, SC_CHAT_OK);
	assert_int_equal(g.out, 45);
	got_release(&g);
	assert_int_equal(fake_stat(&F, "requests"), 3);
}

/* 400/401/403/404 fail at the first attempt with the provider's message. */
static void test_client_errors_fail_at_once(void **state)
{
	static const struct { int status; const char *type; enum sc_chat_error cls; } cases[] = {
		{ 400, "invalid_request_error", SC_CHAT_BAD_REQUEST },
		{ 401, "authentication_error", SC_CHAT_AUTH },
		{ 403, "permission_error", SC_CHAT_AUTH },
		{ 404, "not_found_error", SC_CHAT_BAD_REQUEST },
	};
	static const char *const models[] = { "anthropic.claude-test", "openai.gpt-test" };
	struct sc_client_options o;
	struct got g;
	char script[256];
	(void)state;

	test_options(&o);
	for (size_t i = 0; i < SC_ARRAY_SIZE(cases); i++) {
		for (size_t k = 0; k < 2; k++) {
			snprintf(script, sizeof(script),
				 "{\"default\":{\"status\":%d,\"error_type\":\"%s\",\"error_message\":\"provider says no %d\"}}",
				 cases[i].status, cases[i].type, cases[i].status);
			fake_script(&F, script);
			ask1(&o, models[k], "q", &g);
			assert_int_equal(g.cls, cases[i].cls);
			assert_int_equal(g.attempts, 1);
			assert_int_equal(g.status, cases[i].status);
			assert_null(g.text);
			assert_non_null(strstr(g.error, "provider says no"));
			assert_non_null(strstr(g.error, cases[i].type));
			assert_non_null(strstr(g.error, "test 't1'"));
			assert_int_equal(fake_stat(&F, "requests"), 1);
			got_release(&g);
		}
	}
}

/* Each retryable status is retried, then the request succeeds. */
static void test_retryable_statuses_are_retried(void **state)
{
	static const int statuses[] = { 408, 429, 500, 502, 503, 504, 529 };
	struct sc_client_options o;
	struct got g;
	char script[256];
	(void)state;

	test_options(&o);
	for (size_t i = 0; i < SC_ARRAY_SIZE(statuses); i++) {
		snprintf(script, sizeof(script),
			 "{\"rules\":[{\"match\":{\"first\":2},\"reply\":{\"status\":%d}}],"
			 "\"default\":{\"text\":\"finally\"}}", statuses[i]);
		fake_script(&F, script);
		ask1(&o, i % 2 ? "openai.gpt-test" : "anthropic.claude-test", "q", &g);
		assert_int_equal(g.cls, SC_CHAT_OK);
		assert_string_equal(g.text, "finally");
		assert_int_equal(g.attempts, 3);
		assert_int_equal(fake_stat(&F, "requests"), 3);
		got_release(&g);
	}
}

static void test_gives_up_after_attempt_cap(void **state)
{
	struct sc_client_options o;
	struct got g;
	(void)state;

	test_options(&o);
	o.max_attempts = 3;
	fake_script(&F, "{\"default\":{\"status\":529,\"error_type\":\"overloaded_error\",\"error_message\":\"Overloaded\"}}");
	ask1(&o, "haiku", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_SERVER);
	assert_int_equal(g.attempts, 3);
	assert_non_null(strstr(g.error, "gave up after 3 attempts"));
	assert_non_null(strstr(g.error, "overloaded_error: Overloaded"));
	assert_int_equal(fake_stat(&F, "requests"), 3);
	got_release(&g);

	fake_script(&F, "{\"default\":{\"status\":429}}");
	ask1(&o, "openai.gpt-test", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_RATE_LIMITED);
	assert_int_equal(g.attempts, 3);
	got_release(&g);
}

static void test_network_faults(void **state)
{
	struct sc_client_options o;
	struct got g;
	(void)state;

	test_options(&o);
	/* reset then success: retried */
	fake_script(&F, "{\"rules\":[{\"match\":{\"first\":1},\"reply\":{\"fault\":\"reset\"}}]}");
	ask1(&o, "haiku", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_OK);
	assert_int_equal(g.attempts, 2);
	got_release(&g);
	/* truncated bodies every time: a network error after the cap */
	fake_script(&F, "{\"default\":{\"fault\":\"truncate\"}}");
	ask1(&o, "haiku", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_NETWORK);
	assert_int_equal(g.attempts, o.max_attempts);
	assert_non_null(strstr(g.error, "gave up after 4 attempts"));
	got_release(&g);
	/* malformed JSON in a 200: a parse error, not retried, not cached */
	fake_script(&F, "{\"default\":{\"fault\":\"malformed\"}}");
	ask1(&o, "openai.gpt-test", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_PARSE);
	assert_int_equal(g.attempts, 1);
	got_release(&g);
	ask1(&o, "haiku", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_PARSE);
	got_release(&g);
	/* a server that is not there at all */
	{
		struct sc_client_options o2 = o;
		o2.max_attempts = 2;
		setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:1", 1);
		ask1(&o2, "haiku", "q", &g);
		setenv("ANTHROPIC_BASE_URL", F.url, 1);
		assert_int_equal(g.cls, SC_CHAT_NETWORK);
		assert_int_equal(g.attempts, 2);
		got_release(&g);
	}
}

static void test_timeouts(void **state)
{
	struct sc_client_options o;
	struct got g;
	(void)state;

	test_options(&o);
	o.max_attempts = 2;
	o.low_speed_time_s = 1;
	o.low_speed_limit = 1000;  /* the header burst alone stays under it */
	fake_script(&F, "{\"default\":{\"fault\":\"drip\",\"drip_ms\":10000}}");
	ask1(&o, "haiku", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_TIMEOUT);
	assert_int_equal(g.attempts, 2);
	got_release(&g);

	o.timeout_ms = 200;
	fake_script(&F, "{\"default\":{\"latency_ms\":1500}}");
	ask1(&o, "openai.gpt-test", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_TIMEOUT);
	got_release(&g);

	/* the overall deadline stops retries that would wait past it */
	test_options(&o);
	o.deadline_ms = 300;
	fake_script(&F, "{\"default\":{\"status\":503,\"retry_after\":\"2\"}}");
	ask1(&o, "haiku", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_SERVER);
	assert_int_equal(g.attempts, 1);
	assert_non_null(strstr(g.error, "deadline"));
	got_release(&g);
}

/* The wait before a retry is what Retry-After says, not the backoff
 * (which the test options keep under 20 ms). */
static void test_retry_after_is_honoured(void **state)
{
	struct sc_client_options o;
	struct got g;
	(void)state;

	test_options(&o);
	fake_script(&F, "{\"rules\":[{\"match\":{\"first\":1},\"reply\":{\"status\":429,\"retry_after\":\"1\"}}]}");
	ask1(&o, "haiku", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_OK);
	assert_int_equal(g.attempts, 2);
	assert_int_equal(g.backoff, 1000);
	got_release(&g);

	fake_script(&F, "{\"rules\":[{\"match\":{\"first\":1},\"reply\":{\"status\":503,\"retry_after_in\":2}}]}");
	ask1(&o, "openai.gpt-test", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_OK);
	assert_int_equal(g.attempts, 2);
	assert_true(g.backoff >= 1000 && g.backoff <= 2000);
	got_release(&g);

	/* without Retry-After: jittered backoff within the configured window */
	fake_script(&F, "{\"rules\":[{\"match\":{\"first\":1},\"reply\":{\"status\":500}}]}");
	ask1(&o, "haiku", "q", &g);
	assert_int_equal(g.attempts, 2);
	assert_true(g.backoff >= 0 && g.backoff <= 5);
	got_release(&g);
}

/*
 * Retry classes: retry-after-ms is honoured before Retry-After; a quota or
 * billing refusal (OpenAI's 429 insufficient_quota, 402, Anthropic's
 * credit balance) and an auth refusal are not retried; overload (529) is.
 */
static void test_retry_classes(void **state)
{
	struct sc_client_options o;
	struct got g;
	(void)state;

	test_options(&o);
	fake_script(&F, "{\"rules\":[{\"match\":{\"first\":1},\"reply\":{\"status\":429,"
		    "\"retry_after_ms\":350,\"retry_after\":\"9\"}}]}");
	ask1(&o, "openai.gpt-test", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_OK);
	assert_int_equal(g.attempts, 2);
	assert_int_equal(g.backoff, 350);
	got_release(&g);

	fake_script(&F, "{\"default\":{\"status\":429,\"error_type\":\"insufficient_quota\","
		    "\"error_message\":\"You exceeded your current quota\"}}");
	ask1(&o, "openai.gpt-test", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_QUOTA);
	assert_int_equal(g.attempts, 1);
	assert_non_null(strstr(g.error, "You exceeded your current quota"));
	assert_non_null(strstr(g.error, "not retried"));
	got_release(&g);

	fake_script(&F, "{\"default\":{\"status\":402,\"error_message\":\"Insufficient credits\"}}");
	ask1(&o, "openai.gpt-test", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_QUOTA);
	assert_int_equal(g.attempts, 1);
	got_release(&g);

	fake_script(&F, "{\"default\":{\"status\":400,\"error_type\":\"invalid_request_error\","
		    "\"error_message\":\"Your credit balance is too low to access the Anthropic API\"}}");
	ask1(&o, "haiku", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_QUOTA);
	assert_int_equal(g.attempts, 1);
	got_release(&g);

	fake_script(&F, "{\"default\":{\"status\":401,\"error_type\":\"authentication_error\"}}");
	ask1(&o, "haiku", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_AUTH);
	assert_int_equal(g.attempts, 1);
	got_release(&g);

	fake_script(&F, "{\"rules\":[{\"match\":{\"first\":2},\"reply\":{\"status\":529,"
		    "\"error_type\":\"overloaded_error\"}}]}");
	ask1(&o, "haiku", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_OK);
	assert_int_equal(g.attempts, 3);
	got_release(&g);
}

/* An answer cut at the token limit completes as truncated, its text kept, never cached. */
static void test_truncated_answer(void **state)
{
	struct sc_client_options o;
	struct got g;
	(void)state;

	test_options(&o);
	fake_script(&F, "{\"default\":{\"text\":\"half an ans\",\"stop\":\"length\","
		    "\"usage\":{\"input\":10,\"output\":100}}}");
	ask1(&o, "openai.gpt-test", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_TRUNCATED);
	assert_string_equal(g.text, "half an ans");
	assert_int_equal(g.out, 100);
	assert_non_null(strstr(g.error, "cut at the token limit (finish_reason 'length'"));
	got_release(&g);

	fake_script(&F, "{\"default\":{\"text\":\"half\",\"stop\":\"max_tokens\"}}");
	ask1(&o, "haiku", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_TRUNCATED);
	assert_non_null(strstr(g.error, "stop_reason 'max_tokens'"));
	got_release(&g);
}

struct many {
	int done, ok;
};

static void many_cb(struct sc_chat_response *r, void *payload)
{
	struct many *m = payload;
	m->done++;
	m->ok += r->error_class == SC_CHAT_OK;
}

static void run_many(const struct sc_client_options *o, const char *const *models, size_t nmodels,
		     int n, struct many *m, struct sc_client **keep)
{
	struct sc_client *c = NULL;
	struct sc_chat_message msg = { SC_CHAT_USER, "load" };
	struct sc_chat_request req = { .messages = &msg, .nmessages = 1, .temperature = -1 };

	memset(m, 0, sizeof(*m));
	assert_int_equal(sc_client_new(&c, o), 0);
	for (int i = 0; i < n; i++) {
		req.model = models[(size_t)i % nmodels];
		req.run_index = i;
		assert_int_equal(sc_client_submit(c, &req, many_cb, m), 0);
	}
	assert_int_equal(sc_client_run(c), 0);
	assert_int_equal(m->done, n);
	*keep = c;
}

static void test_concurrency_bounds(void **state)
{
	static const char *const one[] = { "haiku" };
	static const char *const two[] = { "haiku", "openai.gpt-test" };
	struct sc_client_options o;
	struct sc_provider_stats st;
	struct sc_client *c;
	struct many m;
	(void)state;

	/* total bound. The fake holds the first answers until 6 are in
	 * flight ("and it is used" below, however loaded the machine: it
	 * waits up to 20 s for them, where its default is 1 s, which a
	 * client opening its connections on a busy machine can pass);
	 * each then takes 150 ms, so the bound is tested under overlap. */
	test_options(&o);
	o.max_total = 6;
	o.max_per_provider = 16;
	fake_script(&F, "{\"default\":{\"await_in_flight\":6,\"await_ms\":20000,"
		    "\"latency_ms\":150}}");
	run_many(&o, two, 2, 60, &m, &c);
	assert_int_equal(m.ok, 60);
	assert_true(fake_stat(&F, "max_in_flight") <= 6);
	assert_int_equal(fake_stat(&F, "max_in_flight"), 6);  /* and it is used */
	assert_int_equal(fake_stat(&F, "requests"), 60);
	sc_client_free(c);

	/* per-provider bound, total larger */
	o.max_total = 64;
	o.max_per_provider = 4;
	fake_script(&F, "{\"default\":{\"await_in_flight\":4,\"await_ms\":20000,"
		    "\"latency_ms\":150}}");
	run_many(&o, one, 1, 40, &m, &c);
	assert_true(fake_stat(&F, "max_in_flight") <= 4);
	assert_int_equal(fake_stat(&F, "max_in_flight"), 4);
	sc_client_stats(c, SC_PROVIDER_ANTHROPIC, &st);
	assert_int_equal(st.max_in_flight, 4);
	assert_int_equal(st.requests, 40);
	sc_client_free(c);

	/* two providers, each bounded: together at most 2 x 3 */
	o.max_per_provider = 3;
	fake_script(&F, "{\"default\":{\"latency_ms\":150}}");
	run_many(&o, two, 2, 60, &m, &c);
	assert_true(fake_stat(&F, "max_in_flight") <= 6);
	sc_client_stats(c, SC_PROVIDER_OPENAI, &st);
	assert_true(st.max_in_flight <= 3);
	sc_client_free(c);
}

/* A provider answering 429 again and again gets fewer requests at once;
 * successes raise the limit again. */
static void test_adaptive_concurrency(void **state)
{
	static const char *const one[] = { "haiku" };
	struct sc_client_options o;
	struct sc_provider_stats st;
	struct sc_client *c;
	struct many m;
	(void)state;

	test_options(&o);
	o.max_per_provider = 8;
	o.strikes_429 = 2;
	o.raise_after = 4;
	o.max_attempts = 30;  /* at limit 1 one request may meet every 429 */
	fake_script(&F, "{\"rules\":[{\"match\":{\"first\":24},\"reply\":{\"status\":429,\"retry_after\":\"0\",\"latency_ms\":20}}],"
			"\"default\":{\"latency_ms\":20}}");
	run_many(&o, one, 1, 60, &m, &c);
	assert_int_equal(m.ok, 60);
	sc_client_stats(c, SC_PROVIDER_ANTHROPIC, &st);
	assert_true(st.decreases >= 2);
	assert_true(st.min_limit <= 2);
	assert_true(st.increases >= 1);
	assert_true(st.limit > st.min_limit);
	assert_int_equal(st.retries, 24);
	sc_client_free(c);
}

/* Multi-turn: the callback sends the answer back with feedback as the next
 * turn, as the evaluation does; the fake sees the whole conversation. */
struct convo {
	struct sc_client *c;
	const char *model;
	int turns;
	char *first;
};

static void convo_cb(struct sc_chat_response *r, void *payload)
{
	struct convo *cv = payload;

	assert_int_equal(r->error_class, SC_CHAT_OK);
	if (++cv->turns == 1) {
		struct sc_chat_message msgs[3] = {
			{ SC_CHAT_USER, "write it" },
			{ SC_CHAT_ASSISTANT, r->text },
			{ SC_CHAT_USER, "feedback: wrong at line 3" },
		};
		struct sc_chat_request req = { .model = cv->model, .system = "skill text",
					       .messages = msgs, .nmessages = 3, .temperature = -1 };
		cv->first = sc_xstrdup(r->text);
		assert_int_equal(sc_client_submit(cv->c, &req, convo_cb, cv), 0);
	}
}

static void test_multi_turn_from_callback(void **state)
{
	static const char *const models[] = { "haiku", "openai.gpt-test" };
	struct sc_client_options o;
	struct sc_chat_message m = { SC_CHAT_USER, "write it" };
	(void)state;

	test_options(&o);
	for (size_t k = 0; k < 2; k++) {
		struct convo cv = { NULL, models[k], 0, NULL };
		struct sc_chat_request req = { .model = models[k], .system = "skill text",
					       .messages = &m, .nmessages = 1, .temperature = -1 };
		struct sc_buf log = SC_BUF_INIT;
		char *last;
		cJSON *entry, *msgs;
		int n;

		fake_script(&F, "{\"default\":{\"text\":\"answer #{n}\"}}");
		assert_int_equal(sc_client_new(&cv.c, &o), 0);
		assert_int_equal(sc_client_submit(cv.c, &req, convo_cb, &cv), 0);
		assert_int_equal(sc_client_run(cv.c), 0);
		assert_int_equal(cv.turns, 2);
		assert_string_equal(cv.first, "answer #1");
		fake_log(&F, &log);
		sc_buf_rtrim(&log);
		last = strrchr(log.ptr, '\n');
		entry = cJSON_Parse(last ? last + 1 : log.ptr);
		msgs = cJSON_GetObjectItem(cJSON_GetObjectItem(entry, "body"), "messages");
		n = cJSON_GetArraySize(msgs);
		/* OpenAI carries the system prompt as the first message */
		assert_int_equal(n, k == 0 ? 3 : 4);
		assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, n - 2), "role")->valuestring, "assistant");
		assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, n - 2), "content")->valuestring, "answer #1");
		assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(msgs, n - 1), "content")->valuestring,
				    "feedback: wrong at line 3");
		if (k == 0)
			assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(entry, "body"), "system")->valuestring,
					    "skill text");
		cJSON_Delete(entry);
		sc_buf_release(&log);
		free(cv.first);
		sc_client_free(cv.c);
	}
}

static void test_oracle_and_config_errors(void **state)
{
	struct sc_client_options o;
	struct sc_client *c = NULL;
	struct sc_chat_message m = { SC_CHAT_USER, "q" };
	struct sc_chat_request req = { .model = "oracle", .messages = &m, .nmessages = 1,
				       .oracle_answer = "REFERENCE", .temperature = -1 };
	struct got g = { 0 };
	(void)state;

	fake_script(&F, "{}");
	test_options(&o);
	assert_int_equal(sc_client_new(&c, &o), 0);
	assert_int_equal(sc_client_submit(c, &req, got_cb, &g), 0);
	assert_int_equal(sc_client_run(c), 0);
	assert_string_equal(g.text, "REFERENCE");
	assert_true(g.oracle);
	assert_int_equal(g.attempts, 0);
	assert_int_equal(g.in + g.out, 0);
	assert_int_equal(fake_stat(&F, "requests"), 0);
	got_release(&g);
	sc_client_free(c);

	unsetenv("ANTHROPIC_API_KEY");
	c = NULL;
	assert_int_equal(sc_client_new(&c, &o), 0);
	req.model = "haiku";
	assert_int_equal(sc_client_submit(c, &req, got_cb, &g), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "ANTHROPIC_API_KEY"));
	req.model = "nope.x";
	assert_int_equal(sc_client_submit(c, &req, got_cb, &g), SC_EINVAL);
	assert_int_equal(sc_client_run(c), 0);
	assert_int_equal(g.calls, 0);
	sc_client_free(c);
	setenv("ANTHROPIC_API_KEY", KEY_ANTHROPIC, 1);
}

/* A provider that echoes the key in its error message: the key is
 * scrubbed from the error; the fake's log holds only a hash of it. */
static void test_keys_never_leak(void **state)
{
	struct sc_client_options o;
	struct sc_buf log = SC_BUF_INIT;
	struct got g;
	(void)state;

	test_options(&o);
	fake_script(&F, "{\"default\":{\"status\":401,\"error_type\":\"authentication_error\","
			"\"error_message\":\"invalid x-api-key\",\"echo_key\":true}}");
	ask1(&o, "haiku", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_AUTH);
	assert_null(strstr(g.error, KEY_ANTHROPIC));
	assert_null(strstr(g.error, "PLANTED"));
	assert_non_null(strstr(g.error, "[redacted]"));
	assert_non_null(strstr(g.error, "invalid x-api-key"));
	got_release(&g);
	ask1(&o, "openai.gpt-test", "q", &g);
	assert_null(strstr(g.error, KEY_OPENAI));
	assert_non_null(strstr(g.error, "[redacted]"));
	got_release(&g);
	fake_log(&F, &log);
	assert_non_null(strstr(log.ptr, "\"key_present\": true"));
	assert_null(strstr(log.ptr, "PLANTED"));
	sc_buf_release(&log);
}

/* The last request the fake logged, parsed (the caller deletes it). */
static cJSON *last_request(void)
{
	struct sc_buf log = SC_BUF_INIT;
	cJSON *entry;
	char *last;

	fake_log(&F, &log);
	sc_buf_rtrim(&log);
	last = strrchr(log.ptr, '\n');
	entry = cJSON_Parse(last ? last + 1 : log.ptr);
	assert_non_null(entry);
	sc_buf_release(&log);
	return entry;
}

/*
 * OpenAI's Responses API through the fake: the request (path, key,
 * instructions, input turns, max_output_tokens, reasoning, text,
 * service_tier, store), usage with the reasoning inside the output and the
 * cached input apart, retries on 429 (Retry-After) and 5xx, a 400 failing
 * at once with OpenAI's message, and a cut answer (status incomplete).
 */
static void test_responses_api(void **state)
{
	static const struct sc_chat_message turns[] = {
		{ SC_CHAT_USER, "write it" }, { SC_CHAT_ASSISTANT, "draft" }, { SC_CHAT_USER, "fix line 3" },
	};
	struct sc_client_options o;
	struct sc_client *c = NULL;
	struct sc_chat_request req = { .model = "codex?reasoning=high&verbosity=low&service_tier=fast",
				       .system = "the skill", .messages = turns, .nmessages = 3,
				       .max_tokens = 900, .temperature = -1, .label = "t1" };
	const cJSON *body, *input, *headers;
	struct got g;
	cJSON *entry;
	(void)state;

	test_options(&o);
	fake_script(&F, "{\"default\":{\"text\":\"patched: {last_user}\",\"usage\":{\"input\":20,"
			"\"cache_read\":100,\"output\":340,\"reasoning\":300}}}");
	memset(&g, 0, sizeof(g));
	assert_int_equal(sc_client_new(&c, &o), 0);
	assert_int_equal(sc_client_submit(c, &req, got_cb, &g), 0);
	assert_int_equal(sc_client_run(c), 0);
	sc_client_free(c);
	assert_int_equal(g.cls, SC_CHAT_OK);
	assert_string_equal(g.text, "patched: fix line 3");
	assert_int_equal(g.in, 20);
	assert_int_equal(g.cache_read, 100);
	assert_int_equal(g.out, 340);  /* the reasoning is part of the output */
	got_release(&g);
	entry = last_request();
	assert_string_equal(cJSON_GetObjectItem(entry, "path")->valuestring, "/v1/responses");
	assert_string_equal(cJSON_GetObjectItem(entry, "api")->valuestring, "responses");
	headers = cJSON_GetObjectItem(entry, "headers");
	assert_non_null(cJSON_GetObjectItem(headers, "authorization"));  /* OPENAI_API_KEY, masked */
	body = cJSON_GetObjectItem(entry, "body");
	assert_string_equal(cJSON_GetObjectItem(body, "model")->valuestring, "gpt-5.3-codex");
	assert_string_equal(cJSON_GetObjectItem(body, "instructions")->valuestring, "the skill");
	input = cJSON_GetObjectItem(body, "input");
	assert_int_equal(cJSON_GetArraySize(input), 3);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(input, 1), "role")->valuestring,
			    "assistant");
	assert_int_equal(cJSON_GetObjectItem(body, "max_output_tokens")->valueint, 900);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(body, "reasoning"), "effort")->valuestring,
			    "high");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(body, "text"), "verbosity")->valuestring,
			    "low");
	assert_string_equal(cJSON_GetObjectItem(body, "service_tier")->valuestring, "priority");
	assert_true(cJSON_IsFalse(cJSON_GetObjectItem(body, "store")));
	assert_null(cJSON_GetObjectItem(body, "messages"));
	assert_null(cJSON_GetObjectItem(body, "temperature"));
	cJSON_Delete(entry);

	/* 429 with Retry-After, then 500, then the answer: three attempts */
	fake_script(&F, "{\"rules\":[{\"match\":{\"api\":\"responses\",\"nth\":[1]},\"reply\":"
			"{\"status\":429,\"retry_after\":\"0\",\"error_type\":\"rate_limit_exceeded\"}},"
			"{\"match\":{\"api\":\"responses\",\"nth\":[1]},\"reply\":{\"status\":500}}],"
			"\"default\":{\"text\":\"third time\"}}");
	ask1(&o, "responses.gpt-5.1", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_OK);
	assert_string_equal(g.text, "third time");
	assert_int_equal(g.attempts, 3);
	assert_int_equal(fake_stat(&F, "requests"), 3);
	got_release(&g);

	/* a 400 fails at once with OpenAI's message; quota is no rate */
	fake_script(&F, "{\"default\":{\"status\":400,\"error_type\":\"invalid_request_error\","
			"\"error_message\":\"Unsupported parameter: 'temperature'\"}}");
	ask1(&o, "gpt-5.1", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_BAD_REQUEST);
	assert_int_equal(g.attempts, 1);
	assert_non_null(strstr(g.error, "responses model 'gpt-5.1' (test 't1', run 0): HTTP 400: "
			       "invalid_request_error: Unsupported parameter"));
	got_release(&g);
	fake_script(&F, "{\"default\":{\"status\":429,\"error_type\":\"insufficient_quota\"}}");
	ask1(&o, "gpt-5.1", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_QUOTA);
	assert_int_equal(g.attempts, 1);
	got_release(&g);

	/* status incomplete at the output limit: truncated, the text and counts kept */
	fake_script(&F, "{\"default\":{\"text\":\"half\",\"stop\":\"length\",\"usage\":"
			"{\"output\":100,\"reasoning\":90}}}");
	ask1(&o, "o3-mini", "q", &g);
	assert_int_equal(g.cls, SC_CHAT_TRUNCATED);
	assert_string_equal(g.text, "half");
	assert_int_equal(g.out, 100);
	assert_non_null(strstr(g.error, "incomplete_details.reason 'max_output_tokens'"));
	got_release(&g);
}

static int setup(void **state)
{
	(void)state;
	sc_http_global_init();
	fake_start(&F, "{}");
	fake_env(&F, KEY_ANTHROPIC, KEY_OPENAI);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fake_stop(&F);
	sc_http_global_shutdown();
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_accounting_both_apis),
		cmocka_unit_test(test_client_errors_fail_at_once),
		cmocka_unit_test(test_retryable_statuses_are_retried),
		cmocka_unit_test(test_gives_up_after_attempt_cap),
		cmocka_unit_test(test_network_faults),
		cmocka_unit_test(test_timeouts),
		cmocka_unit_test(test_retry_after_is_honoured),
		cmocka_unit_test(test_retry_classes),
		cmocka_unit_test(test_truncated_answer),
		cmocka_unit_test(test_responses_api),
		cmocka_unit_test(test_concurrency_bounds),
		cmocka_unit_test(test_adaptive_concurrency),
		cmocka_unit_test(test_multi_turn_from_callback),
		cmocka_unit_test(test_oracle_and_config_errors),
		cmocka_unit_test(test_keys_never_leak),
	};
	return cmocka_run_group_tests_name("provider_fake", tests, setup, teardown);
}
