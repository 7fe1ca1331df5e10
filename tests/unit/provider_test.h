#ifndef SC_TEST_PROVIDER_TEST_H
#define SC_TEST_PROVIDER_TEST_H
/*
 * Helpers for tests that drive struct sc_client against the fake: collect
 * responses, send one prompt through a fresh client.
 */
#include "fake_server.h"
#include "providers/provider.h"

#define KEY_ANTHROPIC "sk-ant-PLANTED-0123456789abcdef"
#define KEY_OPENAI    "sk-oai-PLANTED-fedcba9876543210"

struct got {
	int calls;
	enum sc_chat_error cls;
	char *text, *error;
	int64_t in, out, cache_read, cache_creation, latency, backoff;
	int attempts, status;
	bool from_cache, oracle;
};

static inline void got_cb(struct sc_chat_response *r, void *payload)
{
	struct got *g = payload;
	g->calls++;
	g->cls = r->error_class;
	free(g->text);
	free(g->error);
	g->text = r->text;
	g->error = r->error;
	r->text = r->error = NULL;  /* taken */
	g->in = r->input_tokens;
	g->out = r->output_tokens;
	g->cache_read = r->cache_read_tokens;
	g->cache_creation = r->cache_creation_tokens;
	g->attempts = r->attempts;
	g->status = r->http_status;
	g->latency = r->latency_ms;
	g->backoff = r->backoff_ms;
	g->from_cache = r->from_cache;
	g->oracle = r->oracle;
}

static inline void got_release(struct got *g)
{
	free(g->text);
	free(g->error);
	memset(g, 0, sizeof(*g));
}

/* Options for tests: short backoff and timeouts, fixed seed. */
static inline void test_options(struct sc_client_options *o)
{
	sc_client_options_init(o);
	o->backoff_base_ms = 5;
	o->backoff_max_ms = 20;
	o->max_attempts = 4;
	o->timeout_ms = 10000;
	o->seed = 7;
}

/* Sends one prompt through a fresh client with opt; fills g. */
static inline void ask1(const struct sc_client_options *opt, const char *model,
			const char *prompt, struct got *g)
{
	struct sc_client *c = NULL;
	struct sc_chat_message m = { SC_CHAT_USER, prompt };
	struct sc_chat_request req = { .model = model, .messages = &m, .nmessages = 1,
				       .max_tokens = 100, .temperature = -1, .label = "t1" };

	memset(g, 0, sizeof(*g));
	assert_int_equal(sc_client_new(&c, opt), 0);
	assert_int_equal(sc_client_submit(c, &req, got_cb, g), 0);
	assert_int_equal(sc_client_run(c), 0);
	assert_int_equal(g->calls, 1);
	sc_client_free(c);
}

#endif
