/* The response cache (runner/providers/cache.c): canonical keys, entries on disk,
 * what is never stored, two processes at once, and the cache modes of the
 * client (use, refresh, off, offline) against the fake model server. */
#include "unit.h"
#include "providers/cache.h"
#include "fake_server.h"
#include "provider_test.h"
#include "net/http.h"

#include <dirent.h>

static struct fake F;

static void key_of(char out[SC_SHA256_HEX_LEN + 1], const char *model, const char *system,
		   const char *prompt, int run, int max_tokens)
{
	struct sc_model m;
	struct sc_chat_message msg = { SC_CHAT_USER, prompt };
	struct sc_chat_request req = { .model = model, .system = system, .messages = &msg,
				       .nmessages = 1, .run_index = run, .max_tokens = max_tokens,
				       .temperature = -1 };

	assert_int_equal(sc_model_parse(&m, model), 0);
	sc_cache_key(out, &m, &req, NULL);
	sc_model_release(&m);
}

/* Two generic servers may serve different models under one name: their
 * endpoints keep their answers apart; global providers ignore the URL. */
static void test_generic_server_is_part_of_the_key(void **state)
{
	char a[65], b[65], c[65];
	struct sc_model m;
	struct sc_chat_message msg = { SC_CHAT_USER, "p" };
	struct sc_chat_request req = { .model = "generic.llama", .messages = &msg,
				       .nmessages = 1, .temperature = -1 };
	(void)state;

	assert_int_equal(sc_model_parse(&m, "generic.llama"), 0);
	sc_cache_key(a, &m, &req, "http://127.0.0.1:8000/v1/chat/completions");
	sc_cache_key(b, &m, &req, "http://127.0.0.1:8001/v1/chat/completions");
	sc_cache_key(c, &m, &req, "http://127.0.0.1:8000/v1/chat/completions");
	assert_string_not_equal(a, b);
	assert_string_equal(a, c);
	sc_model_release(&m);
}

static void test_keys_follow_the_request(void **state)
{
	char a[65], b[65];
	(void)state;

	key_of(a, "haiku", "s", "p", 0, 100);
	key_of(b, "anthropic.claude-haiku-4-5", "s", "p", 0, 100);
	assert_string_equal(a, b);  /* an alias and its id are one model */
	key_of(b, "haiku", "s", "p", 1, 100);
	assert_string_not_equal(a, b);  /* run index */
	key_of(b, "haiku", "s", "p ", 0, 100);
	assert_string_not_equal(a, b);
	key_of(b, "haiku", NULL, "p", 0, 100);
	assert_string_not_equal(a, b);
	key_of(b, "haiku", "s", "p", 0, 101);
	assert_string_not_equal(a, b);
	key_of(b, "haiku?reasoning=high", "s", "p", 0, 100);
	assert_string_not_equal(a, b);
	key_of(b, "openai.claude-haiku-4-5", "s", "p", 0, 100);
	assert_string_not_equal(a, b);  /* provider */
	assert_int_equal(strlen(a), 64);
	key_of(a, "gpt-5", "s", "p", 0, 100);
	key_of(b, "gpt-5?verbosity=low", "s", "p", 0, 100);
	assert_string_not_equal(a, b);  /* verbosity changes the answer */
	key_of(a, "haiku", "s", "p", 0, 100);

	/* the key is independent of API keys and base URLs */
	setenv("ANTHROPIC_API_KEY", "another", 1);
	setenv("ANTHROPIC_BASE_URL", "http://elsewhere", 1);
	key_of(b, "haiku", "s", "p", 0, 100);
	assert_string_equal(a, b);
	fake_env(&F, KEY_ANTHROPIC, KEY_OPENAI);
}

static void test_put_get_and_what_is_skipped(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_model m;
	struct sc_chat_response r, back;
	struct sc_buf path = SC_BUF_INIT;
	const char *key = "ab00000000000000000000000000000000000000000000000000000000000001";
	(void)state;

	assert_int_equal(sc_model_parse(&m, "haiku"), 0);
	memset(&r, 0, sizeof(r));
	memset(&back, 0, sizeof(back));
	assert_int_equal(sc_cache_get(dir, key, &back), SC_ENOTFOUND);

	r.text = (char *)"";  /* empty answers are not stored */
	assert_int_equal(sc_cache_put(dir, key, &m, &r), 0);
	assert_int_equal(sc_cache_get(dir, key, &back), SC_ENOTFOUND);
	r.text = NULL;        /* nor errors */
	r.error_class = SC_CHAT_SERVER;
	r.error = (char *)"boom";
	assert_int_equal(sc_cache_put(dir, key, &m, &r), 0);
	assert_int_equal(sc_cache_get(dir, key, &back), SC_ENOTFOUND);

	memset(&r, 0, sizeof(r));
	r.text = (char *)"the answer";
	r.input_tokens = 11;
	r.output_tokens = 22;
	r.cache_read_tokens = 33;
	r.cache_creation_tokens = 44;
	assert_int_equal(sc_cache_put(dir, key, &m, &r), 0);
	assert_int_equal(sc_cache_get(dir, key, &back), 0);
	assert_string_equal(back.text, "the answer");
	assert_true(back.from_cache);
	assert_int_equal(back.input_tokens, 11);
	assert_int_equal(back.output_tokens, 22);
	assert_int_equal(back.cache_read_tokens, 33);
	assert_int_equal(back.cache_creation_tokens, 44);
	free(back.text);

	/* a rewritten entry is a miss: text, counts (a count past int64
	 * included, whose cast was undefined), or the key it is filed under */
	{
		static const char *const edits[][2] = {
			{ "the answer", "a planted answer" }, { "\"input_tokens\":11", "\"input_tokens\":1e300" },
			{ "\"output_tokens\":22", "\"output_tokens\":23" },
			{ "\"mac\":\"", "\"mac\":\"0" },
		};
		struct sc_buf data = SC_BUF_INIT, edited = SC_BUF_INIT, other = SC_BUF_INIT;
		const char *key2 = "ab00000000000000000000000000000000000000000000000000000000000002";
		sc_cache_path(&path, dir, key);
		assert_int_equal(sc_read_file(&data, path.ptr, 1 << 20), 0);
		assert_non_null(strstr(data.ptr, "\"mac\":\""));
		for (size_t e = 0; e < SC_ARRAY_SIZE(edits); e++) {
			const char *at = strstr(data.ptr, edits[e][0]);
			assert_non_null(at);
			sc_buf_clear(&edited);
			sc_buf_put(&edited, data.ptr, (size_t)(at - data.ptr));
			sc_buf_puts(&edited, edits[e][1]);
			sc_buf_puts(&edited, at + strlen(edits[e][0]));
			assert_int_equal(sc_write_file_atomic(path.ptr, edited.ptr, edited.len), 0);
			memset(&back, 0, sizeof(back));
			assert_int_equal(sc_cache_get(dir, key, &back), SC_ENOTFOUND);
			assert_null(back.text);
		}
		/* the untouched entry is a hit again */
		assert_int_equal(sc_write_file_atomic(path.ptr, data.ptr, data.len), 0);
		memset(&back, 0, sizeof(back));
		assert_int_equal(sc_cache_get(dir, key, &back), 0);
		free(back.text);
		/* the same entry filed under another key (its "key" edited too) */
		sc_buf_clear(&edited);
		sc_buf_puts(&edited, data.ptr);
		memcpy(strstr(edited.ptr, key), key2, 64);
		sc_cache_path(&other, dir, key2);
		assert_int_equal(sc_mkdir_p(dir), 0);
		{
			char *slash;
			struct sc_buf d = SC_BUF_INIT;
			sc_buf_puts(&d, other.ptr);
			slash = strrchr(d.ptr, '/');
			*slash = '\0';
			assert_int_equal(sc_mkdir_p(d.ptr), 0);
			sc_buf_release(&d);
		}
		assert_int_equal(sc_write_file_atomic(other.ptr, edited.ptr, edited.len), 0);
		memset(&back, 0, sizeof(back));
		assert_int_equal(sc_cache_get(dir, key2, &back), SC_ENOTFOUND);
		/* an entry without a MAC (an older skillci, or hand-written) */
		sc_buf_clear(&edited);
		sc_buf_printf(&edited, "{\"key\":\"%s\",\"text\":\"planted\",\"usage\":{}}", key);
		assert_int_equal(sc_write_file_atomic(path.ptr, edited.ptr, edited.len), 0);
		assert_int_equal(sc_cache_get(dir, key, &back), SC_ENOTFOUND);
		sc_buf_release(&other);
		sc_buf_release(&edited);
		sc_buf_release(&data);
	}

	/* a corrupt entry is a miss, not an error */
	sc_cache_path(&path, dir, key);
	assert_int_equal(sc_write_file_atomic(path.ptr, "{\"key\":", 7), 0);
	memset(&back, 0, sizeof(back));
	assert_int_equal(sc_cache_get(dir, key, &back), SC_ENOTFOUND);
	assert_null(back.text);

	sc_model_release(&m);
	sc_buf_release(&path);
	sc_rm_rf(dir);
	free(dir);
}

/* Two processes writing and reading the same entries at once: every read
 * sees a whole entry (or none), never a torn one. */
static void test_two_processes(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_model m;
	pid_t pids[2];
	int status;
	(void)state;

	assert_int_equal(sc_model_parse(&m, "haiku"), 0);
	for (int p = 0; p < 2; p++) {
		pids[p] = fork();
		assert_true(pids[p] >= 0);
		if (pids[p] == 0) {
			struct sc_chat_response r, back;
			char key[65];
			int bad = 0;
			memset(&r, 0, sizeof(r));
			r.text = (char *)"a fairly long answer that would show tearing if a reader saw half of it";
			for (int i = 0; i < 150; i++) {
				snprintf(key, sizeof(key), "%064d", i % 10);
				if (sc_cache_put(dir, key, &m, &r) < 0)
					bad++;
				memset(&back, 0, sizeof(back));
				if (sc_cache_get(dir, key, &back) == 0) {
					bad += strcmp(back.text, r.text) != 0;
					free(back.text);
				} else {
					bad++;
				}
			}
			_exit(bad ? 1 : 0);
		}
	}
	for (int p = 0; p < 2; p++) {
		assert_int_equal(waitpid(pids[p], &status, 0), pids[p]);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 0);
	}
	sc_model_release(&m);
	sc_rm_rf(dir);
	free(dir);
}

/* Counts files under dir and checks that none holds needle. */
static int scan(const char *dir, const char *needle)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int files = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct sc_buf p = SC_BUF_INIT, data = SC_BUF_INIT;
		if (e->d_name[0] == '.')
			continue;
		sc_path_join(&p, dir, e->d_name);
		if (e->d_type == DT_DIR) {
			files += scan(p.ptr, needle);
		} else {
			assert_int_equal(sc_read_file(&data, p.ptr, 1 << 20), 0);
			assert_null(strstr(data.ptr, needle));
			files++;
		}
		sc_buf_release(&p);
		sc_buf_release(&data);
	}
	closedir(d);
	return files;
}

static void test_client_cache_modes(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_client_options o;
	struct got g;
	(void)state;

	fake_script(&F, "{\"default\":{\"text\":\"answer {n}\",\"usage\":{\"input\":9,\"output\":3}}}");
	test_options(&o);
	o.cache_dir = dir;
	o.cache_mode = SC_CACHE_USE;
	ask1(&o, "haiku", "cache me", &g);
	assert_string_equal(g.text, "answer 1");
	assert_false(g.from_cache);
	got_release(&g);
	ask1(&o, "haiku", "cache me", &g);  /* a hit: no request, same answer and tokens */
	assert_string_equal(g.text, "answer 1");
	assert_true(g.from_cache);
	assert_int_equal(g.attempts, 0);
	assert_int_equal(g.in, 9);
	assert_int_equal(g.out, 3);
	got_release(&g);
	assert_int_equal(fake_stat(&F, "requests"), 1);

	o.cache_mode = SC_CACHE_OFFLINE;  /* hit */
	ask1(&o, "haiku", "cache me", &g);
	assert_int_equal(g.cls, SC_CHAT_OK);
	assert_string_equal(g.text, "answer 1");
	got_release(&g);
	ask1(&o, "haiku", "never asked", &g);  /* miss */
	assert_int_equal(g.cls, SC_CHAT_OFFLINE);
	assert_non_null(strstr(g.error, "claude-haiku-4-5"));
	assert_non_null(strstr(g.error, "test 't1'"));
	assert_non_null(strstr(g.error, "offline"));
	got_release(&g);
	assert_int_equal(fake_stat(&F, "requests"), 1);

	o.cache_mode = SC_CACHE_REFRESH;  /* asks again and overwrites */
	ask1(&o, "haiku", "cache me", &g);
	assert_string_equal(g.text, "answer 2");
	assert_false(g.from_cache);
	got_release(&g);
	o.cache_mode = SC_CACHE_USE;
	ask1(&o, "haiku", "cache me", &g);
	assert_string_equal(g.text, "answer 2");
	got_release(&g);

	/* errors and empty answers are not cached */
	fake_script(&F, "{\"rules\":[{\"match\":{\"contains\":\"empty\"},\"reply\":{\"text\":\"\"}}],"
			"\"default\":{\"status\":400}}");
	ask1(&o, "openai.gpt-test", "fails", &g);
	assert_int_equal(g.cls, SC_CHAT_BAD_REQUEST);
	got_release(&g);
	ask1(&o, "openai.gpt-test", "empty", &g);
	assert_int_equal(g.cls, SC_CHAT_OK);
	assert_string_equal(g.text, "");
	got_release(&g);
	ask1(&o, "openai.gpt-test", "fails", &g);
	got_release(&g);
	ask1(&o, "openai.gpt-test", "empty", &g);
	got_release(&g);
	assert_int_equal(fake_stat(&F, "requests"), 4);

	/* off: nothing read or written */
	o.cache_mode = SC_CACHE_OFF;
	fake_script(&F, "{}");
	ask1(&o, "haiku", "cache me", &g);
	assert_false(g.from_cache);
	got_release(&g);
	assert_int_equal(fake_stat(&F, "requests"), 1);

	/* one entry (haiku "cache me"); no file holds a key */
	assert_int_equal(scan(dir, "PLANTED"), 1);
	sc_rm_rf(dir);
	free(dir);
}

struct order {
	int n;
	bool cached[16];
};

static void order_cb(struct sc_chat_response *r, void *payload)
{
	struct order *o = payload;
	assert_int_equal(r->error_class, SC_CHAT_OK);
	o->cached[o->n++] = r->from_cache;
}

/* Cache hits do not wait for a free slot behind requests that need HTTP. */
static void test_hits_skip_the_queue(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_client_options o;
	struct sc_client *c = NULL;
	struct order ord = { 0 };
	char prompt[32];
	struct got g;
	(void)state;

	fake_script(&F, "{\"default\":{\"latency_ms\":30}}");
	test_options(&o);
	o.cache_dir = dir;
	o.cache_mode = SC_CACHE_USE;
	o.max_total = 1;
	for (int i = 0; i < 3; i++) {
		snprintf(prompt, sizeof(prompt), "cached %d", i);
		ask1(&o, "haiku", prompt, &g);
		got_release(&g);
	}
	assert_int_equal(sc_client_new(&c, &o), 0);
	for (int i = 0; i < 6; i++) {
		struct sc_chat_message m = { SC_CHAT_USER, prompt };
		struct sc_chat_request req = { .model = "haiku", .messages = &m, .nmessages = 1,
					       .max_tokens = 100, .temperature = -1 };  /* as ask1 */
		snprintf(prompt, sizeof(prompt), i < 3 ? "fresh %d" : "cached %d", i % 3);
		assert_int_equal(sc_client_submit(c, &req, order_cb, &ord), 0);
	}
	assert_int_equal(sc_client_run(c), 0);
	assert_int_equal(ord.n, 6);
	for (int i = 0; i < 3; i++)
		assert_true(ord.cached[i]);   /* the three hits come first */
	for (int i = 3; i < 6; i++)
		assert_false(ord.cached[i]);
	sc_client_free(c);
	sc_rm_rf(dir);
	free(dir);
}

static int setup(void **state)
{
	(void)state;
	sc_http_global_init();
	/* this process's runner key: no file under HOME is read or made */
	setenv("SKILLCI_RUNNER_KEY", "unit-test-runner-key-for-the-response-cache", 1);
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
		cmocka_unit_test(test_keys_follow_the_request),
		cmocka_unit_test(test_generic_server_is_part_of_the_key),
		cmocka_unit_test(test_put_get_and_what_is_skipped),
		cmocka_unit_test(test_two_processes),
		cmocka_unit_test(test_client_cache_modes),
		cmocka_unit_test(test_hits_skip_the_queue),
	};
	return cmocka_run_group_tests_name("cache", tests, setup, teardown);
}
