/*
 * Unit tests for the per-destination escaping (runner/core/escape.c) and
 * the writer layer (runner/core/output.c): every one of the 256 byte
 * values, alone and inside text, through each destination; C1 controls
 * as UTF-8; ESC, OSC and CSI sequences; and secrets redacted on every
 * file, append and stream the layer writes.
 */
#include "unit.h"
#include "escape.h"
#include "output.h"
#include "reporters/report_github.h"

#include <sys/wait.h>
#include <unistd.h>

enum dest { D_TERMINAL, D_PROPERTY, D_DATA, D_OUTPUT, D_SUMMARY, D_TEXT, D_COUNT };
static const char *const dest_name[D_COUNT] = { "terminal", "property", "data", "output", "summary",
						"text" };

static void escape_to(enum dest d, struct sc_buf *out, const char *s, size_t n)
{
	char *z = sc_xstrndup(s, n);

	switch (d) {
	case D_TERMINAL: sc_escape_terminal(out, z); break;
	case D_PROPERTY: sc_escape_gh_property(out, z); break;
	case D_DATA: sc_escape_gh_data(out, z); break;
	case D_OUTPUT: sc_escape_gh_output(out, z); break;
	case D_SUMMARY: sc_escape_gh_summary(out, s, n); break;  /* n bytes, NUL included */
	case D_TEXT: sc_escape_text_n(out, s, n); break;
	default: fail();
	}
	free(z);
}

/*
 * The rules every output must keep: valid UTF-8; no C0 control but the
 * ones the destination keeps (LF and TAB for output and summary), no
 * DEL, no C1 control (U+0080..U+009F); no CR or LF in workflow commands,
 * and no ':' or ',' in a property.
 */
static void check_clean(enum dest d, const struct sc_buf *b, unsigned byte)
{
	const unsigned char *p = (const unsigned char *)b->ptr;
	size_t n = b->len;

	if (!sc_utf8_check(b->ptr, b->len, NULL))
		fail_msg("%s: byte 0x%02x: output is not UTF-8", dest_name[d], byte);
	while (n) {
		uint32_t cp = 0;
		size_t len = sc_utf8_decode((const char *)p, n, &cp);
		assert_true(len > 0);
		if (cp < 0x20 || cp == 0x7F) {
			bool kept = (d == D_OUTPUT || d == D_SUMMARY || d == D_TEXT) &&
				    (cp == '\n' || cp == '\t');
			if (!kept)
				fail_msg("%s: byte 0x%02x: control 0x%02x in the output '%s'", dest_name[d],
					 byte, (unsigned)cp, b->ptr);
		}
		if (cp >= 0x80 && cp <= 0x9F)
			fail_msg("%s: byte 0x%02x: C1 control in the output", dest_name[d], byte);
		if (d == D_PROPERTY && (cp == ':' || cp == ','))
			fail_msg("%s: byte 0x%02x: '%c' in a property", dest_name[d], byte, (char)cp);
		p += len;
		n -= len;
	}
}

/* Every byte value alone, between letters, and as the lead of a C1
 * control's UTF-8 form, through every destination. */
static void test_all_256_bytes_every_destination(void **state)
{
	(void)state;

	for (int d = 0; d < D_COUNT; d++)
		for (unsigned v = 0; v < 256; v++) {
			struct sc_buf b = SC_BUF_INIT;
			char in[4] = { 'a', (char)v, 'z', '\0' };
			char c1[5] = { 'a', (char)0xC2, (char)(0x80 | (v & 0x1F)), 'z', '\0' };

			escape_to((enum dest)d, &b, in + 1, 1);
			check_clean((enum dest)d, &b, v);
			sc_buf_clear(&b);
			escape_to((enum dest)d, &b, in, 3);
			check_clean((enum dest)d, &b, v);
			/* printable ASCII (not the destination's specials) is copied */
			if (v >= 0x20 && v < 0x7F && v != '%' && v != ':' && v != ',' && v != '\\')
				assert_non_null(memchr(b.ptr, (int)v, b.len));
			sc_buf_clear(&b);
			escape_to((enum dest)d, &b, c1, 4);
			check_clean((enum dest)d, &b, 0xC2);
			sc_buf_release(&b);
		}
}

/* The exact forms: a destination's specials, ESC sequences as text. */
static void test_forms_per_destination(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	sc_escape_gh_property(&b, "a:b,c%\r\n\x1b[31m");
	assert_string_equal(b.ptr, "a%3Ab%2Cc%25%0D%0A\\x1b[31m");
	sc_buf_clear(&b);
	sc_escape_gh_data(&b, "50% a:b\n\x1b]8;;http://x\x07" "link\x9b");
	assert_string_equal(b.ptr, "50%25 a:b%0A\\x1b]8;;http://x\\x07link\\x9b");
	sc_buf_clear(&b);
	sc_escape_gh_output(&b, "line 1\n\tline\r2\x1b" "c\xc2\x85");
	assert_string_equal(b.ptr, "line 1\n\tline\\r2\\x1bc\\u0085");
	sc_buf_clear(&b);
	sc_escape_gh_summary(&b, "# t\n\x7f\x00x", 7);
	assert_string_equal(b.ptr, "# t\n\\x7f\\x00x");
	sc_buf_clear(&b);
	sc_escape_terminal(&b, "::warning::x\n::error::y");
	assert_string_equal(b.ptr, "\\x3a:warning::x\\n::error::y");
	sc_buf_clear(&b);
	/* bidirectional overrides and separators */
	sc_escape_terminal(&b, "a\xe2\x80\xae" "b\xe2\x80\xa8");
	assert_string_equal(b.ptr, "a\\u202eb\\u2028");
	sc_buf_clear(&b);
	/* a block of lines: line feeds and tabs kept, no line starts a command */
	sc_escape_text(&b, "answer\n::error::x\n\t  ::warning::y\x1b]0;t\x07\r\n");
	assert_string_equal(b.ptr, "answer\n\\x3a:error::x\n\t  \\x3a:warning::y\\x1b]0;t\\x07\\r\n");
	sc_buf_clear(&b);
	/* JSON for a terminal: the code points cJSON leaves raw, as escapes */
	{
		static const char json[] = "{\"a\": \"x\x7f\xc2\x9b\xe2\x80\xae\xff\u00e9\"}";
		sc_escape_json(&b, json, sizeof(json) - 1);
	}
	assert_string_equal(b.ptr, "{\"a\": \"x\\u007f\\u009b\\u202e\\ufffd\u00e9\"}");
	sc_buf_release(&b);
}

/* A value shown from a pull request: redacted, escaped, cut short. */
static void test_shown_values(void **state)
{
	struct sc_buf b = SC_BUF_INIT, big = SC_BUF_INIT;
	(void)state;

	sc_output_add_secret("shown-secret-value-0123");
	sc_escape_shown(&b, "url http://x/shown-secret-value-0123\x1b[2J", SC_SHOWN_VALUE_MAX);
	assert_string_equal(b.ptr, "url http://x/[redacted]\\x1b[2J");
	for (int i = 0; i < 500; i++)
		sc_buf_puts(&big, "\xc3\xa9");
	sc_buf_clear(&b);
	sc_escape_shown(&b, big.ptr, 10);
	assert_string_equal(b.ptr, "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
				   "\xc3\xa9\xc3\xa9\xe2\x80\xa6");
	sc_buf_release(&b);
	sc_buf_release(&big);
}

static void test_secret_names(void **state)
{
	(void)state;
	assert_true(sc_output_secret_name("ANTHROPIC_API_KEY"));
	assert_true(sc_output_secret_name("GITHUB_TOKEN"));
	assert_true(sc_output_secret_name("PGPASSWORD"));
	assert_true(sc_output_secret_name("SKILLCI_CACHE_KEY"));
	assert_true(sc_output_secret_name("LAB_SECRET"));
	assert_true(sc_output_secret_name("my_api_key"));
	assert_false(sc_output_secret_name("HOME"));
	assert_false(sc_output_secret_name("SKILLCI_RUNNER_KEY_FILE"));
	assert_false(sc_output_secret_name("PATH"));
}

/* Every file the layer writes, and the appends, carry no secret form. */
static void test_files_are_redacted(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT, got = SC_BUF_INIT;
	struct sc_atomic_file f;
	(void)state;

	setenv("UNIT_ESCAPE_TOKEN", "tok-Very-Secret-987654", 1);
	setenv("UNIT_STORE_URL", "postgresql://u:pg-pass-word-42@db/x", 1);
	assert_true(sc_output_add_env_secrets() >= 2);
	sc_path_join(&path, dir, "a.json");
	sc_buf_puts(&data, "{\"m\": \"tok-Very-Secret-987654 and pg-pass-word-42\"}");
	assert_int_equal(sc_write_file_atomic(path.ptr, data.ptr, data.len), 0);
	sc_buf_clear(&data);
	assert_int_equal(sc_read_file(&got, path.ptr, 1 << 20), 0);
	assert_string_equal(got.ptr, "{\"m\": \"[redacted] and [redacted]\"}");
	/* a streamed file with the secret split between two writes, reversed */
	sc_buf_clear(&path);
	sc_path_join(&path, dir, "b.md");
	assert_int_equal(sc_atomic_open(&f, path.ptr), 0);
	sc_atomic_puts(&f, "x 456789-terceS-y");
	sc_atomic_puts(&f, "reV-kot y\n");
	assert_int_equal(sc_atomic_commit(&f), 0);
	sc_buf_clear(&got);
	assert_int_equal(sc_read_file(&got, path.ptr, 1 << 20), 0);
	assert_string_equal(got.ptr, "x [redacted] y\n");
	/* $GITHUB_OUTPUT and the step summary: hex form */
	sc_buf_clear(&path);
	sc_path_join(&path, dir, "out");
	sc_hex(&data, (const unsigned char *)"tok-Very-Secret-987654", 22);
	sc_buf_puts(&data, "\n");
	assert_int_equal(sc_report_gh_append_file(path.ptr, data.ptr, data.len), 0);
	assert_int_equal(sc_report_gh_append_summary(path.ptr, "t: tok-Very-Secret-987654\n", 26), 0);
	sc_buf_clear(&got);
	assert_int_equal(sc_read_file(&got, path.ptr, 1 << 20), 0);
	assert_string_equal(got.ptr, "[redacted]\nt: [redacted]\n");
	sc_rm_rf(dir);
	free(dir);
	sc_buf_release(&path);
	sc_buf_release(&data);
	sc_buf_release(&got);
}

/* The guarded streams: a child process prints a secret in pieces and in
 * base64 to both streams; the parent reads the pipe. */
static void test_stdio_is_redacted(void **state)
{
	int fds[2];
	pid_t pid;
	struct sc_buf got = SC_BUF_INIT;
	char chunk[512];
	ssize_t n;
	int status;
	(void)state;

	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], 1);
		dup2(fds[1], 2);
		close(fds[0]);
		close(fds[1]);
		sc_output_add_secret("stdio-Secret-Value-5566");
		sc_output_guard_stdio();
		printf("out stdio-Secret-");
		printf("Value-5566 end\n");
		fflush(stdout);
		/* base64 of the secret */
		fprintf(stderr, "err c3RkaW8tU2VjcmV0LVZhbHVlLTU1NjY= end\n");
		sc_log(SC_LOG_WARN, "log stdio-Secret-Value-5566");
		printf("tail without newline stdio-Secret-Value-5566");
		_exit(sc_output_flush() == 0 ? 0 : 1);
	}
	close(fds[1]);
	while ((n = read(fds[0], chunk, sizeof(chunk))) > 0)
		sc_buf_put(&got, chunk, (size_t)n);
	close(fds[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_null(strstr(got.ptr, "stdio-Secret"));
	assert_null(strstr(got.ptr, "c3RkaW8tU2VjcmV0"));
	assert_non_null(strstr(got.ptr, "out [redacted] end\n"));
	assert_non_null(strstr(got.ptr, "warning: log [redacted]\n"));
	assert_non_null(strstr(got.ptr, "tail without newline [redacted]"));
	sc_buf_release(&got);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_all_256_bytes_every_destination),
		cmocka_unit_test(test_forms_per_destination),
		cmocka_unit_test(test_shown_values),
		cmocka_unit_test(test_secret_names),
		cmocka_unit_test(test_files_are_redacted),
		cmocka_unit_test(test_stdio_is_redacted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
