/* Unit tests for runner/core/redact.c: key material a server echoes back,
 * in its forms, is replaced; ordinary text is left alone. */
#include "unit.h"
#include "redact.h"

#define KEY "sk-ant-api03-PLANTED-a1b2c3d4e5f6"

static char *redacted(const struct sc_redact *r, const char *in, bool *hit)
{
	char *s = sc_xstrdup(in);
	*hit = sc_redact_apply(r, &s);
	return s;
}

static void expect(const struct sc_redact *r, const char *in, const char *want, bool changed)
{
	bool hit;
	char *s = redacted(r, in, &hit);

	assert_string_equal(s, want);
	assert_int_equal(hit, changed);
	free(s);
}

static void test_forms_are_redacted(void **state)
{
	struct sc_redact r;
	(void)state;

	sc_redact_init(&r);
	sc_redact_add(&r, KEY);
	expect(&r, "invalid key " KEY, "invalid key [redacted]", true);
	/* a prefix, as APIs print it */
	expect(&r, "invalid x-api-key: sk-ant-api03-PLA...", "invalid x-api-key: [redacted]...", true);
	/* masked: 8 and 4 characters say nothing secret and stay */
	expect(&r, "key sk-ant-a****e5f6", "key sk-ant-a****e5f6", false);
	/* capitals, reversed */
	expect(&r, "K=SK-ANT-API03-PLANTED-A1B2C3D4E5F6.", "K=[redacted].", true);
	expect(&r, "6f5e4d3c2b1a-DETNALP-30ipa-tna-ks", "[redacted]", true);
	/* base64 of the key, and of "user:KEY" (another byte offset) */
	expect(&r, "auth c2stYW50LWFwaTAzLVBMQU5URUQtYTFiMmMzZDRlNWY2 end", "auth [redacted] end", true);
	/* (what is left encodes "user:" and the key's last two characters) */
	expect(&r, "Basic dXNlcjpzay1hbnQtYXBpMDMtUExBTlRFRC1hMWIyYzNkNGU1ZjY=",
	       "Basic dXNlcjp[redacted]ZjY=", true);
	/* hex */
	expect(&r, "x 736b2d616e742d6170693033 y", "x [redacted] y", true);
	/* ordinary text, short overlaps and other keys stay */
	expect(&r, "feat(api): add the sk- prefix check", "feat(api): add the sk- prefix check", false);
	expect(&r, "ant-api03-PL", "[redacted]", true);   /* 12 characters of it: redacted */
	expect(&r, "ant-api03-P", "ant-api03-P", false);  /* 11: below the run */
	/* a word the key happens to hold ("sk-PLANTED-anthropic" and "anthropic") */
	expect(&r, "", "", false);
	sc_redact_release(&r);
}

static void test_short_and_many_keys(void **state)
{
	struct sc_redact r;
	(void)state;

	sc_redact_init(&r);
	sc_redact_add(&r, "abc");       /* too short to look for: ignored */
	sc_redact_add(&r, "k-12345");   /* shorter than the run: the whole key */
	sc_redact_add(&r, "sk-PLANTED-anthropic");
	sc_redact_add(&r, "sk-proj-PLANTED-0f9e8d7c6b5a");
	expect(&r, "abc k-12345 k-1234", "abc [redacted] k-1234", true);
	expect(&r, "fake answer to: ping anthropic", "fake answer to: ping anthropic", false);
	expect(&r, "echo sk-proj-PLANTED-0f9e... done", "echo [redacted]... done", true);
	sc_redact_release(&r);
}

/* A large answer with no key material is scanned quickly and unchanged
 * (the 4-gram filter); one hit at the very end is still found. */
static void test_large_text(void **state)
{
	struct sc_redact r;
	struct sc_buf b = SC_BUF_INIT;
	char *s;
	(void)state;

	sc_redact_init(&r);
	sc_redact_add(&r, KEY);
	for (int i = 0; i < 100000; i++)
		sc_buf_puts(&b, "the quick brown fox ");
	s = sc_xstrdup(b.ptr);
	assert_false(sc_redact_apply(&r, &s));
	free(s);
	sc_buf_puts(&b, KEY);
	s = sc_xstrdup(b.ptr);
	assert_true(sc_redact_apply(&r, &s));
	assert_true(sc_ends_with(s, "fox [redacted]"));
	free(s);
	sc_buf_release(&b);
	sc_redact_release(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_forms_are_redacted),
		cmocka_unit_test(test_short_and_many_keys),
		cmocka_unit_test(test_large_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
