/* Unit tests for the core helpers: sc_buf, errors, UTF-8, paths, SHA-256,
 * string lists, type errors, atomic writes. */
#include "unit.h"
#include "diag.h"
#include "escape.h"
#include "output.h"
#include "par.h"
#include "secret.h"
#include "sha256.h"
#include "strlist.h"
#include "strpool.h"

#include <sys/stat.h>
#include <unistd.h>

static void test_buf_grows_and_stays_terminated(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	assert_string_equal(b.ptr, "");
	for (int i = 0; i < 1000; i++)
		sc_buf_printf(&b, "%d,", i % 10);
	assert_int_equal(b.len, 2000);
	assert_int_equal(b.ptr[b.len], '\0');
	assert_memory_equal(b.ptr, "0,1,2,", 6);
	sc_buf_truncate(&b, 3);
	assert_string_equal(b.ptr, "0,1");
	sc_buf_release(&b);
	assert_int_equal(b.len, 0);
}

/* sc_buf_printf appends what snprintf writes, whether it fits the room
 * the buffer has or needs more: outputs of every length from 0 to 600
 * bytes appended to a buffer at every fill, compared with snprintf's. */
static void test_buf_printf_is_snprintf(void **state)
{
	struct sc_buf b = SC_BUF_INIT, want = SC_BUF_INIT;
	char pad[601], one[700];
	(void)state;

	memset(pad, 'x', sizeof(pad) - 1);
	pad[sizeof(pad) - 1] = '\0';
	for (int len = 0; len <= 600; len += 7) {
		int n = snprintf(one, sizeof(one), "%.*s|%d|%.2f", len, pad, len, len / 3.0);
		sc_buf_printf(&b, "%.*s|%d|%.2f", len, pad, len, len / 3.0);
		sc_buf_put(&want, one, (size_t)n);
		assert_int_equal(b.len, want.len);
		assert_string_equal(b.ptr, want.ptr);
		assert_true(b.cap > b.len);
	}
	sc_buf_clear(&b);
	sc_buf_printf(&b, "%s", "");
	assert_int_equal(b.len, 0);
	assert_string_equal(b.ptr, "");
	sc_buf_release(&b);
	sc_buf_release(&want);
}

static void test_buf_capped_append_refuses_past_cap(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	assert_int_equal(sc_buf_put_capped(&b, "abcd", 4, 6), 0);
	assert_int_equal(sc_buf_put_capped(&b, "efg", 3, 6), SC_ELIMIT);
	assert_string_equal(b.ptr, "abcd");
	assert_int_equal(sc_buf_put_capped(&b, "ef", 2, 6), 0);
	assert_string_equal(b.ptr, "abcdef");
	sc_buf_release(&b);
}

static void test_buf_detach_empty_is_owned(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	size_t len = 99;
	char *p;
	(void)state;

	p = sc_buf_detach(&b, &len);
	assert_non_null(p);
	assert_int_equal(len, 0);
	free(p);
	sc_buf_puts(&b, "x");
	p = sc_buf_detach(&b, NULL);
	assert_string_equal(p, "x");
	assert_int_equal(b.len, 0);
	free(p);
}

static void test_error_wrap_keeps_cause(void **state)
{
	(void)state;
	assert_int_equal(sc_error_set(SC_ENOTFOUND, "cannot open '%s'", "x"), SC_ENOTFOUND);
	sc_error_wrap(SC_EINVAL, "loading skill '%s'", "a");
	assert_string_equal(sc_error_last(), "loading skill 'a': cannot open 'x'");
	assert_int_equal(sc_error_code(), SC_EINVAL);
	assert_int_equal(sc_error_exit_code(SC_EINVAL), SC_EXIT_USAGE);
	assert_int_equal(sc_error_exit_code(SC_ENET), SC_EXIT_INFRA);
}

static void test_utf8(void **state)
{
	size_t bad = 0;
	(void)state;

	assert_true(sc_utf8_check("héllo ✓ 😀", strlen("héllo ✓ 😀"), &bad));
	assert_int_equal(sc_utf8_count("héllo ✓ 😀", strlen("héllo ✓ 😀")), 9);
	assert_false(sc_utf8_check("ab\xff", 3, &bad));
	assert_int_equal(bad, 2);
	assert_false(sc_utf8_check("a\xc0\xaf", 3, &bad));   /* overlong '/' */
	assert_int_equal(bad, 1);
	assert_false(sc_utf8_check("\xed\xa0\x80", 3, &bad)); /* surrogate */
	assert_false(sc_utf8_check("\xe2\x9c", 2, &bad));     /* truncated */
	assert_int_equal(bad, 0);
}

/* sc_utf8_decode against code points worked out by hand from RFC 3629's
 * table, one case per edge of each sequence length. */
static void test_utf8_decode(void **state)
{
	static const struct {
		const char *s;
		size_t n;       /* bytes offered */
		size_t len;     /* expected length, 0: invalid */
		uint32_t cp;
	} cases[] = {
		{ "A", 1, 1, 0x41 },
		{ "\x7f", 1, 1, 0x7F },
		{ "\xc2\x80", 2, 2, 0x80 },                /* smallest 2-byte */
		{ "\xc3\xa9", 2, 2, 0xE9 },                /* é */
		{ "\xdf\xbf", 2, 2, 0x7FF },               /* largest 2-byte */
		{ "\xe0\xa0\x80", 3, 3, 0x800 },           /* smallest 3-byte */
		{ "\xe2\x9c\x93", 3, 3, 0x2713 },          /* ✓ */
		{ "\xed\x9f\xbf", 3, 3, 0xD7FF },          /* just below the surrogates */
		{ "\xee\x80\x80", 3, 3, 0xE000 },          /* just above them */
		{ "\xef\xbf\xbf", 3, 3, 0xFFFF },
		{ "\xf0\x90\x80\x80", 4, 4, 0x10000 },     /* smallest 4-byte */
		{ "\xf0\x9f\x98\x80", 4, 4, 0x1F600 },     /* 😀 */
		{ "\xf4\x8f\xbf\xbf", 4, 4, 0x10FFFF },    /* the last code point */
		{ "\xc3\xa9zz", 4, 2, 0xE9 },              /* only the first sequence */
		{ "\x80", 1, 0, 0 },                      /* a stray continuation byte */
		{ "\xc0\xaf", 2, 0, 0 },                  /* overlong '/' */
		{ "\xc1\xbf", 2, 0, 0 },                  /* overlong 0x7F */
		{ "\xe0\x9f\xbf", 3, 0, 0 },              /* overlong 0x7FF */
		{ "\xf0\x8f\xbf\xbf", 4, 0, 0 },          /* overlong 0xFFFF */
		{ "\xed\xa0\x80", 3, 0, 0 },              /* U+D800, a surrogate */
		{ "\xed\xbf\xbf", 3, 0, 0 },              /* U+DFFF */
		{ "\xf4\x90\x80\x80", 4, 0, 0 },          /* U+110000 */
		{ "\xf5\x80\x80\x80", 4, 0, 0 },          /* F5: never a lead byte */
		{ "\xff", 1, 0, 0 },
		{ "\xe2\x9c\x93", 2, 0, 0 },              /* cut short by n */
		{ "\xe2\x41\x93", 3, 0, 0 },              /* a non-continuation byte */
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint32_t cp = 0xDEADBEEF;
		size_t len = sc_utf8_decode(cases[i].s, cases[i].n, &cp);

		if (len != cases[i].len || (len && cp != cases[i].cp))
			fail_msg("case %zu: length %zu (want %zu), U+%04X (want U+%04X)", i, len,
				 cases[i].len, (unsigned)cp, (unsigned)cases[i].cp);
	}
}

/* sc_hex_value reads back every digit sc_hex writes, and either case. */
static void test_hex_value(void **state)
{
	static const unsigned char all[] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef };
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	sc_hex(&b, all, sizeof(all));
	for (size_t i = 0; i < sizeof(all); i++)
		assert_int_equal(sc_hex_value(b.ptr[2 * i]) * 16 + sc_hex_value(b.ptr[2 * i + 1]), all[i]);
	assert_int_equal(sc_hex_value('A'), 10);
	assert_int_equal(sc_hex_value('F'), 15);
	assert_int_equal(sc_hex_value('g'), -1);
	assert_int_equal(sc_hex_value('G'), -1);
	assert_int_equal(sc_hex_value('/'), -1);  /* just below '0' */
	assert_int_equal(sc_hex_value(':'), -1);  /* just above '9' */
	assert_int_equal(sc_hex_value(0), -1);
	assert_int_equal(sc_hex_value((char)0xC3), -1);  /* a negative char */
	sc_buf_release(&b);
}

static void test_paths(void **state)
{
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	sc_path_join(&b, "a/", "/b");
	assert_string_equal(b.ptr, "a/b");
	sc_path_join(&b, "/", "x");
	assert_string_equal(b.ptr, "/x");
	assert_true(sc_path_is_safe_relative("references/a.md"));
	assert_true(sc_path_is_safe_relative("a..b/c"));
	assert_false(sc_path_is_safe_relative("../x"));
	assert_false(sc_path_is_safe_relative("a/../../x"));
	assert_false(sc_path_is_safe_relative("/etc/passwd"));
	assert_false(sc_path_is_safe_relative(""));
	sc_buf_release(&b);
}

static void test_string_helpers(void **state)
{
	const char *v[] = { "pear", "apple", "fig" };
	(void)state;

	assert_true(sc_streq("a", "a"));
	assert_false(sc_streq("a", "b"));
	assert_false(sc_streq(NULL, "a"));
	assert_false(sc_streq(NULL, NULL));
	qsort(v, 3, sizeof(*v), sc_strcmp_qsort);
	assert_string_equal(v[0], "apple");
	assert_string_equal(v[1], "fig");
	assert_string_equal(v[2], "pear");
}

/* Whole numbers only: nothing before or after the digits, ranges checked,
 * and a number past long long is out of range, not wrapped. */
static void test_parse_int(void **state)
{
	const char *bad[] = { "", "3x", " 3", "3 ", "1e3", "0x10", "+", "-", "3.0", "--3" };
	int v = 7;
	(void)state;

	assert_int_equal(sc_parse_int(&v, "42", 1, 100), 0);
	assert_int_equal(v, 42);
	assert_int_equal(sc_parse_int(&v, "-5", -10, 10), 0);
	assert_int_equal(v, -5);
	assert_int_equal(sc_parse_int(&v, "+5", 0, 10), 0);
	assert_int_equal(v, 5);
	assert_int_equal(sc_parse_int(&v, "007", 0, 10), 0);
	assert_int_equal(v, 7);
	v = 9;
	for (size_t i = 0; i < SC_ARRAY_SIZE(bad); i++)
		assert_int_equal(sc_parse_int(&v, bad[i], -100, 100), SC_EINVAL);
	assert_int_equal(sc_parse_int(&v, "101", 1, 100), SC_ELIMIT);
	assert_int_equal(sc_parse_int(&v, "0", 1, 100), SC_ELIMIT);
	assert_int_equal(sc_parse_int(&v, "99999999999999999999999", 1, 100), SC_ELIMIT);
	assert_int_equal(sc_parse_int(&v, "4294967297", 0, 2147483647), SC_ELIMIT);
	assert_string_equal(sc_error_last(), "'4294967297' is not from 0 to 2147483647");
	assert_int_equal(v, 9);
}

/* The string list owns copies, finds by value and sorts by strcmp. */
static void test_strlist(void **state)
{
	struct sc_strlist l = SC_STRLIST_INIT;
	char word[8] = "pear";
	(void)state;

	assert_false(sc_strlist_has(&l, "pear"));
	assert_false(sc_strlist_has(NULL, "pear"));
	sc_strlist_add(&l, word);
	sc_strlist_add(&l, "apple");
	sc_strlist_add(&l, "fig");
	word[0] = 'b';  /* the list kept its own copy */
	assert_true(sc_strlist_has(&l, "pear"));
	assert_false(sc_strlist_has(&l, "bear"));
	sc_strlist_sort(&l);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.items[0], "apple");
	assert_string_equal(l.items[1], "fig");
	assert_string_equal(l.items[2], "pear");
	sc_strlist_release(&l);
	assert_int_equal(l.n, 0);
	assert_null(l.items);
}

/* The type error both schema checks report, and the member paths it names. */
static void test_diag_type_error_and_paths(void **state)
{
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	sc_diag_path_join(&b, "", "gate");
	assert_string_equal(b.ptr, "gate");
	sc_diag_path_join(&b, "gate", "alpha");
	assert_string_equal(b.ptr, "gate.alpha");
	sc_diags_type_error(&d, "skillci.yml", 3, "config-type", b.ptr, true, "a number", "string");
	sc_diags_type_error(&d, "t.json", 0, "test-schema", "tests[1].input", false, "a string", "list");
	assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 2);
	sc_buf_clear(&b);
	sc_diag_format(&b, &d.items[0]);
	assert_string_equal(b.ptr, "skillci.yml:3: error: 'gate.alpha' must be a number, found string [config-type]");
	sc_buf_clear(&b);
	sc_diag_format(&b, &d.items[1]);
	assert_string_equal(b.ptr, "t.json: error: tests[1].input must be a string, found list [test-schema]");
	sc_buf_release(&b);
	sc_diags_release(&d);
}

static void test_sha256_known_vectors(void **state)
{
	char hex[SC_SHA256_HEX_LEN + 1];
	struct sc_sha256 ctx;
	unsigned char d[SC_SHA256_LEN];
	struct sc_buf b = SC_BUF_INIT;
	char million[1000];
	(void)state;

	sc_sha256_hex(hex, "", 0);
	assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sc_sha256_hex(hex, "abc", 3);
	assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	sc_sha256_hex(hex, "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq", 56);
	assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', sizeof(million));
	sc_sha256_init(&ctx);
	for (int i = 0; i < 1000; i++)
		sc_sha256_update(&ctx, million, sizeof(million));
	sc_sha256_final(&ctx, d);
	sc_hex(&b, d, sizeof(d));
	assert_string_equal(b.ptr, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	sc_buf_release(&b);
}

/* RFC 4231 test cases 1 and 6 (a key longer than the block), and the
 * random source: two draws differ. */
static void test_hmac_and_random(void **state)
{
	unsigned char key[131], d[SC_SHA256_LEN], r1[16], r2[16];
	const char *msg6 = "Test Using Larger Than Block-Size Key - Hash Key First";
	struct sc_hmac_part p1 = { "Hi There", 8 }, p6 = { msg6, strlen(msg6) };
	struct sc_hmac_part split[2] = { { "Hi ", 3 }, { "There", 5 } };
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	memset(key, 0x0b, 20);
	sc_hmac_sha256(d, key, 20, &p1, 1);
	sc_hex(&b, d, sizeof(d));
	assert_string_equal(b.ptr, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	sc_hmac_sha256(d, key, 20, split, 2);
	sc_buf_clear(&b);
	sc_hex(&b, d, sizeof(d));
	assert_string_equal(b.ptr, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	memset(key, 0xaa, sizeof(key));
	sc_hmac_sha256(d, key, sizeof(key), &p6, 1);
	sc_buf_clear(&b);
	sc_hex(&b, d, sizeof(d));
	assert_string_equal(b.ptr, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	assert_true(sc_digest_equal(d, d, sizeof(d)));
	sc_random_bytes(r1, sizeof(r1));
	sc_random_bytes(r2, sizeof(r2));
	assert_memory_not_equal(r1, r2, sizeof(r1));
	assert_false(sc_digest_equal(r1, r2, sizeof(r1)));
	sc_buf_release(&b);
}

static void test_atomic_write_and_capped_read(void **state)
{
	char dir[] = "/tmp/skillci-test-XXXXXX";
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT;
	(void)state;

	assert_non_null(mkdtemp(dir));
	sc_path_join(&path, dir, "sub/dir");
	assert_int_equal(sc_mkdir_p(path.ptr), 0);
	sc_path_join(&path, dir, "sub/dir/f.txt");
	assert_int_equal(sc_write_file_atomic(path.ptr, "hello", 5), 0);
	assert_int_equal(sc_write_file_atomic(path.ptr, "hello world", 11), 0);
	assert_int_equal(sc_read_file(&data, path.ptr, 100), 0);
	assert_string_equal(data.ptr, "hello world");
	sc_buf_clear(&data);
	assert_int_equal(sc_read_file(&data, path.ptr, 5), SC_ELIMIT);
	assert_non_null(strstr(sc_error_last(), "f.txt"));
	assert_int_equal(data.len, 0);
	sc_path_join(&path, dir, "missing");
	assert_int_equal(sc_read_file(&data, path.ptr, 5), SC_ENOTFOUND);
	assert_non_null(strstr(sc_error_last(), "missing"));
	assert_int_equal(sc_rm_rf(dir), 0);
	assert_int_equal(access(dir, F_OK), -1);
	sc_buf_release(&path);
	sc_buf_release(&data);
}

/* An atomic file written in pieces larger than its buffer: the reader
 * sees nothing until the commit, then the whole; an abort leaves the old
 * file and no temporary file. */
static void test_atomic_file_in_pieces(void **state)
{
	char dir[] = "/tmp/skillci-test-XXXXXX";
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT, want = SC_BUF_INIT;
	struct sc_atomic_file f;
	(void)state;

	assert_non_null(mkdtemp(dir));
	sc_path_join(&path, dir, "big.json");
	assert_int_equal(sc_atomic_open(&f, path.ptr), 0);
	for (int i = 0; i < 40000; i++) {
		char line[32];
		snprintf(line, sizeof(line), "line %d\n", i);
		sc_atomic_puts(&f, line);
		sc_buf_puts(&want, line);
	}
	assert_int_equal(access(path.ptr, F_OK), -1);  /* not there before the commit */
	assert_int_equal(sc_atomic_commit(&f), 0);
	assert_int_equal(sc_read_file(&data, path.ptr, 1 << 20), 0);
	assert_int_equal(data.len, want.len);
	assert_string_equal(data.ptr, want.ptr);
	assert_int_equal(sc_atomic_open(&f, path.ptr), 0);
	sc_atomic_puts(&f, "half");
	sc_atomic_abort(&f);
	sc_buf_clear(&data);
	assert_int_equal(sc_read_file(&data, path.ptr, 1 << 20), 0);
	assert_string_equal(data.ptr, want.ptr);
	sc_buf_clear(&data);
	sc_buf_printf(&data, "ls -A '%s' | grep -c tmp", dir);
	assert_int_not_equal(system(data.ptr), 0);  /* no temporary file left */
	assert_int_equal(sc_rm_rf(dir), 0);
	sc_buf_release(&path);
	sc_buf_release(&data);
	sc_buf_release(&want);
}

/* What a tap saw: every byte, in order. */
static void tap_into(void *arg, const void *data, size_t len)
{
	sc_buf_put(arg, data, len);
}

/*
 * An atomic file handed to its writing thread: the file holds every byte
 * in order (pieces of 1 byte to 600 KiB, past the flush size), a secret
 * in it is redacted as before, the tap saw the bytes before redaction and
 * had seen all of them at sc_atomic_sync_tap(); a write error is the
 * commit's, naming the file; an abort leaves nothing.
 */
static void test_atomic_file_background(void **state)
{
	char dir[] = "/tmp/skillci-test-XXXXXX";
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT, want = SC_BUF_INIT, seen = SC_BUF_INIT;
	struct sc_buf piece = SC_BUF_INIT;
	struct sc_atomic_file f;
	size_t sizes[] = { 1, 7, 4096, 262143, 262144, 262145, 600000, 3 };
	(void)state;

	sc_output_add_secret("background-secret-0123456789");
	assert_non_null(mkdtemp(dir));
	sc_path_join(&path, dir, "big.json");
	assert_int_equal(sc_atomic_open(&f, path.ptr), 0);
	/* a secret cut by the thread's start is still redacted whole */
	sc_atomic_puts(&f, "before the thread: background-secret-");
	sc_atomic_background(&f, tap_into, &seen);
	sc_atomic_puts(&f, "0123456789\n");
	sc_buf_puts(&want, "before the thread: [redacted]\n");
	for (int round = 0; round < 3; round++)
		for (size_t i = 0; i < SC_ARRAY_SIZE(sizes); i++) {
			sc_buf_clear(&piece);
			for (size_t k = 0; k < sizes[i]; k++)
				sc_buf_putc(&piece, k % 61 == 60 ? '\n' : (char)('a' + (k + i + round) % 26));
			sc_atomic_write(&f, piece.ptr, piece.len);
			sc_buf_put(&want, piece.ptr, piece.len);
		}
	sc_atomic_puts(&f, "\nkey background-secret-0123456789 end\n");
	sc_atomic_sync_tap(&f);
	/* the tap had every byte after the thread started, unredacted */
	assert_int_equal(seen.len + strlen("before the thread: [redacted]\n"),
			 want.len + strlen("0123456789\n") + strlen("\nkey background-secret-0123456789 end\n"));
	assert_memory_equal(seen.ptr, "0123456789\n", 11);
	assert_memory_equal(seen.ptr + 11, want.ptr + strlen("before the thread: [redacted]\n"),
			    want.len - strlen("before the thread: [redacted]\n"));
	assert_non_null(strstr(seen.ptr + seen.len - 40, "background-secret-0123456789"));
	assert_int_equal(access(path.ptr, F_OK), -1);  /* not there before the commit */
	assert_int_equal(sc_atomic_commit(&f), 0);
	sc_buf_puts(&want, "\nkey [redacted] end\n");
	assert_int_equal(sc_read_file(&data, path.ptr, 16 << 20), 0);
	assert_int_equal(data.len, want.len);
	assert_memory_equal(data.ptr, want.ptr, want.len);

	/* an abort with the thread running: the old file stays, no temporary */
	assert_int_equal(sc_atomic_open(&f, path.ptr), 0);
	sc_atomic_background(&f, NULL, NULL);
	for (int i = 0; i < 8; i++)
		sc_atomic_write(&f, piece.ptr, piece.len);
	sc_atomic_abort(&f);
	sc_buf_clear(&data);
	assert_int_equal(sc_read_file(&data, path.ptr, 16 << 20), 0);
	assert_int_equal(data.len, want.len);
	sc_buf_clear(&data);
	sc_buf_printf(&data, "ls -A '%s' | grep -c tmp", dir);
	assert_int_not_equal(system(data.ptr), 0);

	/* a device that refuses every byte: the commit says so, naming it */
	if (access("/dev/full", W_OK) == 0) {
		assert_int_equal(sc_atomic_open(&f, "/dev/full"), 0);
		sc_atomic_background(&f, NULL, NULL);
		for (int i = 0; i < 8; i++)
			sc_atomic_write(&f, piece.ptr, piece.len);
		assert_int_equal(sc_atomic_commit(&f), SC_EIO);
		assert_non_null(strstr(sc_error_last(), "/dev/full"));
	}
	assert_int_equal(sc_rm_rf(dir), 0);
	sc_buf_release(&path);
	sc_buf_release(&data);
	sc_buf_release(&want);
	sc_buf_release(&seen);
	sc_buf_release(&piece);
}

struct par_seen {
	unsigned char hits[1000];
	size_t lo[SC_PAR_MAX], hi[SC_PAR_MAX], calls[SC_PAR_MAX];
};

static void par_mark(void *arg, size_t p, size_t lo, size_t hi)
{
	struct par_seen *s = arg;

	s->lo[p] = lo;
	s->hi[p] = hi;
	s->calls[p]++;
	for (size_t i = lo; i < hi; i++)
		s->hits[i]++;
}

/* sc_par_for: every index in exactly one part, the parts contiguous and
 * in order, sizes within one of each other, parts cut to the items. */
static void test_par_for(void **state)
{
	size_t ns[] = { 0, 1, 2, 7, 64, 999, 1000 }, widths[] = { 1, 2, 3, 8, 20 };
	(void)state;

	for (size_t a = 0; a < SC_ARRAY_SIZE(ns); a++)
		for (size_t b = 0; b < SC_ARRAY_SIZE(widths); b++) {
			struct par_seen s;
			size_t n = ns[a], parts = widths[b] > SC_PAR_MAX ? SC_PAR_MAX : widths[b];
			if (parts > n)
				parts = n;
			memset(&s, 0, sizeof(s));
			sc_par_for(n, widths[b], par_mark, &s);
			for (size_t i = 0; i < n; i++)
				assert_int_equal(s.hits[i], 1);
			for (size_t p = 0; p < SC_PAR_MAX; p++) {
				assert_int_equal(s.calls[p], p < parts ? 1 : 0);
				if (p >= parts)
					continue;
				assert_int_equal(s.lo[p], p ? s.hi[p - 1] : 0);
				assert_true(s.hi[p] - s.lo[p] >= n / parts &&
					    s.hi[p] - s.lo[p] <= n / parts + 1);
			}
			if (parts)
				assert_int_equal(s.hi[parts - 1], n);
		}
	sc_par_set_width(3);
	assert_int_equal(sc_par_width(), 3);
	/* a part per min items, at least one, at most the width */
	assert_int_equal(sc_par_parts(0, 64), 1);
	assert_int_equal(sc_par_parts(127, 64), 1);
	assert_int_equal(sc_par_parts(128, 64), 2);
	assert_int_equal(sc_par_parts(10000, 64), 3);
	sc_par_set_width(100);
	assert_int_equal(sc_par_width(), SC_PAR_MAX);
	sc_par_set_width(0);
	assert_true(sc_par_width() >= 1 && sc_par_width() <= SC_PAR_MAX);
}

/* The string pool: equal strings are one pointer, distinct ones are not,
 * long strings are kept whole, and strings stay valid when their pool is
 * adopted by another and freed with it. */
static void test_strpool(void **state)
{
	struct sc_strpool *a = sc_strpool_new(), *b = sc_strpool_new();
	struct sc_buf big = SC_BUF_INIT;
	const char *x, *y, *kept[3000];
	(void)state;

	x = sc_strpool_intern(a, "skills/alpha");
	y = sc_strpool_intern(a, "skills/alpha");
	assert_ptr_equal(x, y);
	assert_ptr_not_equal(x, sc_strpool_intern(a, "skills/beta"));
	assert_null(sc_strpool_intern(a, NULL));
	for (int i = 0; i < 100000; i++)
		sc_buf_putc(&big, (char)('a' + i % 26));
	assert_string_equal(sc_strpool_intern(a, big.ptr), big.ptr);
	for (int i = 0; i < 3000; i++) {  /* the table grows past its first size */
		char s[32];
		snprintf(s, sizeof(s), "test %d", i);
		kept[i] = sc_strpool_intern(b, s);
	}
	assert_ptr_equal(sc_strpool_intern(b, "test 1234"), kept[1234]);
	sc_strpool_adopt(a, b);
	for (int i = 0; i < 3000; i++) {
		char s[32];
		snprintf(s, sizeof(s), "test %d", i);
		assert_string_equal(kept[i], s);
	}
	assert_string_equal(x, "skills/alpha");
	assert_true(sc_strpool_bytes(a) >= 100001);
	sc_strpool_free(a);
	sc_buf_release(&big);
}

/* The streaming HMAC: RFC 4231 test cases 1, 2 and 6 (a key longer
 * than the block), the message fed in pieces. */
static void test_hmac_sha256_known_vectors(void **state)
{
	unsigned char key[131], mac[SC_SHA256_LEN];
	struct sc_buf hex = SC_BUF_INIT;
	struct sc_hmac h;
	(void)state;

	memset(key, 0x0b, 20);
	sc_hmac_init(&h, key, 20);
	sc_hmac_update(&h, "Hi ", 3);
	sc_hmac_update(&h, "There", 5);
	sc_hmac_final(&h, mac);
	sc_hex(&hex, mac, sizeof(mac));
	assert_string_equal(hex.ptr, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	sc_buf_clear(&hex);
	sc_hmac_init(&h, "Jefe", 4);
	sc_hmac_update(&h, "what do ya want for nothing?", 28);
	sc_hmac_final(&h, mac);
	sc_hex(&hex, mac, sizeof(mac));
	assert_string_equal(hex.ptr, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	sc_buf_clear(&hex);
	memset(key, 0xaa, sizeof(key));
	sc_hmac_init(&h, key, sizeof(key));
	sc_hmac_update(&h, "Test Using Larger Than Block-Size Key - Hash Key First", 54);
	sc_hmac_final(&h, mac);
	sc_hex(&hex, mac, sizeof(mac));
	assert_string_equal(hex.ptr, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
	memcpy(key, mac, sizeof(mac));
	assert_true(sc_digest_equal(mac, key, sizeof(mac)));
	key[31] ^= 1;
	assert_false(sc_digest_equal(mac, key, sizeof(mac)));
	sc_buf_release(&hex);
}

static void expect_escaped(const char *in, size_t n, const char *want)
{
	struct sc_buf b = SC_BUF_INIT;

	sc_escape_log_n(&b, in, n);
	assert_string_equal(b.ptr, want);
	sc_buf_release(&b);
}

#define ESCAPED(in, want) expect_escaped(in, sizeof(in) - 1, want)

/* The escaping routine: one printable line, never a workflow command. */
static void test_escape_log(void **state)
{
	(void)state;
	ESCAPED("skills/ok", "skills/ok");
	ESCAPED("a\nb\r\tc", "a\\nb\\r\\tc");
	/* a newline followed by a command: one line, the command quoted */
	ESCAPED("x\n::warning title=X::pwned", "x\\n::warning title=X::pwned");
	ESCAPED("::error::x", "\\x3a:error::x");
	ESCAPED("  ::set-output name=a::b", "  \\x3a:set-output name=a::b");
	ESCAPED("\xc2\xa0::stop-commands::t", "\xc2\xa0\\x3a:stop-commands::t");
	ESCAPED("a ::b", "a ::b");
	ESCAPED(":x", ":x");
	/* ANSI and OSC escapes, DEL, NUL */
	ESCAPED("\x1b[31mred\x1b]0;title\x07", "\\x1b[31mred\\x1b]0;title\\x07");
	ESCAPED("a\0b\x7f", "a\\x00b\\x7f");
	/* C1 NEL, line separator, right-to-left override, invalid UTF-8 */
	ESCAPED("\xc2\x85|\xe2\x80\xa8|\xe2\x80\xae|\xff", "\\u0085|\\u2028|\\u202e|\\xff");
	/* ordinary UTF-8 and backslashes are kept */
	ESCAPED("caf\xc3\xa9 \\n \xe2\x9c\x93", "caf\xc3\xa9 \\n \xe2\x9c\x93");
}

static void test_ci_blocks(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT, want = SC_BUF_INIT;
	const char *tok = sc_ci_token();
	FILE *f;
	(void)state;

	assert_int_equal(strlen(tok), 32);
	assert_string_equal(tok, sc_ci_token());
	sc_path_join(&path, dir, "log");
	unsetenv("GITHUB_ACTIONS");
	f = fopen(path.ptr, "w");
	assert_non_null(f);
	sc_ci_block_begin(f);
	fputs("text\n", f);
	sc_ci_block_end(f);
	setenv("GITHUB_ACTIONS", "true", 1);
	sc_ci_block_begin(f);
	fputs("text\n", f);
	sc_ci_block_end(f);
	unsetenv("GITHUB_ACTIONS");
	fclose(f);
	assert_int_equal(sc_read_file(&data, path.ptr, 4096), 0);
	sc_buf_printf(&want, "text\n::stop-commands::%s\ntext\n::%s::\n", tok, tok);
	assert_string_equal(data.ptr, want.ptr);
	sc_rm_rf(dir);
	free(dir);
	sc_buf_release(&path);
	sc_buf_release(&data);
	sc_buf_release(&want);
}

/*
 * The runner key is created once with mode 0600, read back the same by
 * a later process (simulated: the file is read again), and malformed
 * files are refused. The key itself never depends on the folder name.
 */
static void test_runner_key_file(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT, hex = SC_BUF_INIT;
	struct stat st;
	const unsigned char *k;
	(void)state;

	sc_path_join(&path, dir, "cfg/skillci/runner.key");
	setenv("SKILLCI_RUNNER_KEY_FILE", path.ptr, 1);
	unsetenv("SKILLCI_RUNNER_KEY");
	unsetenv("SKILLCI_CACHE_KEY");
	k = sc_runner_key();
	assert_string_equal(sc_runner_key_source(), path.ptr);
	assert_int_equal(stat(path.ptr, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_int_equal(sc_read_file(&data, path.ptr, 4096), 0);
	sc_hex(&hex, k, SC_RUNNER_KEY_LEN);
	sc_buf_putc(&hex, '\n');
	assert_string_equal(data.ptr, hex.ptr);
	unsetenv("SKILLCI_RUNNER_KEY_FILE");
	sc_rm_rf(dir);
	free(dir);
	sc_buf_release(&path);
	sc_buf_release(&data);
	sc_buf_release(&hex);
}

/* The one edit distance of "did you mean": hand-counted cases. */
static void test_edit_distance(void **state)
{
	char long_name[SC_EDIT_DISTANCE_MAX + 2];

	(void)state;
	assert_int_equal(sc_edit_distance("run", "run"), 0);
	assert_int_equal(sc_edit_distance("rnu", "run"), 1);        /* one swap */
	assert_int_equal(sc_edit_distance("RUN", "run"), 0);        /* case ignored */
	assert_int_equal(sc_edit_distance("rus", "runs"), 1);       /* one insertion */
	assert_int_equal(sc_edit_distance("valdiate", "validate"), 1);
	assert_int_equal(sc_edit_distance("", "eval"), 4);
	assert_int_equal(sc_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(sc_edit_distance("ca", "abc"), 3);         /* no edit twice (OSA) */
	memset(long_name, 'a', sizeof(long_name) - 1);
	long_name[sizeof(long_name) - 1] = 0;
	assert_true(sc_edit_distance(long_name, "a") == SIZE_MAX);
}

/* An error's cause: set where the error happens, cleared by the next
 * sc_error_set() or sc_error_clear(), kept by sc_error_wrap(); its names
 * round-trip. */
static void test_error_cause(void **state)
{
	enum sc_cause c;
	(void)state;

	sc_error_clear();
	assert_int_equal(sc_error_cause(), SC_CAUSE_NONE);
	assert_int_equal(sc_error_cause_set(sc_error_set(SC_EINVAL, "X_KEY is not set"),
					    SC_CAUSE_NO_KEY), SC_EINVAL);
	assert_int_equal(sc_error_cause(), SC_CAUSE_NO_KEY);
	sc_error_wrap(SC_EINVAL, "model 'm'");
	assert_int_equal(sc_error_cause(), SC_CAUSE_NO_KEY);
	sc_error_set(SC_EIO, "another error");
	assert_int_equal(sc_error_cause(), SC_CAUSE_NONE);
	sc_error_cause_set(SC_EIO, SC_CAUSE_CONFIG);
	sc_error_clear();
	assert_int_equal(sc_error_cause(), SC_CAUSE_NONE);
	for (int i = SC_CAUSE_NONE; i <= SC_CAUSE_NO_ENDPOINT; i++) {
		assert_non_null(sc_cause_name((enum sc_cause)i));
		assert_int_equal(sc_cause_parse(sc_cause_name((enum sc_cause)i), &c), 0);
		assert_int_equal(c, i);
	}
	assert_null(sc_cause_name((enum sc_cause)(SC_CAUSE_NO_ENDPOINT + 1)));
	assert_string_equal(sc_cause_name(SC_CAUSE_NO_KEY), "no_key");
	assert_string_equal(sc_cause_name(SC_CAUSE_NO_ENDPOINT), "no_endpoint");
	assert_int_equal(sc_cause_parse("no-such-cause", &c), -1);
	assert_int_equal(sc_cause_parse(NULL, &c), -1);
}

/* The hint a failed run prints comes from its cause (never from the
 * message's words): each cause its own, a shallow checkout's for a
 * missing revision or no cause, and a generic one otherwise. */
static void test_cause_hint(void **state)
{
	const char *seen[SC_CAUSE_NO_ENDPOINT + 1];
	(void)state;

	assert_non_null(strstr(sc_cause_hint(SC_CAUSE_NO_KEY, false), "no model API key"));
	assert_non_null(strstr(sc_cause_hint(SC_CAUSE_NO_KEY, true), "no model API key"));
	assert_non_null(strstr(sc_cause_hint(SC_CAUSE_NO_ENDPOINT, false), "AZURE_OPENAI_ENDPOINT"));
	assert_non_null(strstr(sc_cause_hint(SC_CAUSE_NOT_MERGEABLE, false), "does not merge"));
	assert_non_null(strstr(sc_cause_hint(SC_CAUSE_CONFIG, false), "configuration's finding"));
	assert_non_null(strstr(sc_cause_hint(SC_CAUSE_REVISION, false), "not in the clone"));
	/* a shallow clone explains a missing revision, and an error of no cause */
	assert_non_null(strstr(sc_cause_hint(SC_CAUSE_REVISION, true), "the checkout is shallow"));
	assert_non_null(strstr(sc_cause_hint(SC_CAUSE_NONE, true), "the checkout is shallow"));
	assert_string_equal(sc_cause_hint(SC_CAUSE_NONE, false),
			    "see the error above; the check did not reach a verdict");
	/* every cause has a hint of its own, none ending in a period */
	for (int i = SC_CAUSE_NONE; i <= SC_CAUSE_NO_ENDPOINT; i++) {
		const char *h = sc_cause_hint((enum sc_cause)i, false);
		assert_true(strlen(h) > 20 && h[strlen(h) - 1] != '.');
		for (int j = 0; j < i; j++)
			assert_string_not_equal(h, seen[j]);
		seen[i] = h;
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf_grows_and_stays_terminated),
		cmocka_unit_test(test_buf_capped_append_refuses_past_cap),
		cmocka_unit_test(test_buf_printf_is_snprintf),
		cmocka_unit_test(test_buf_detach_empty_is_owned),
		cmocka_unit_test(test_error_wrap_keeps_cause),
		cmocka_unit_test(test_cause_hint),
		cmocka_unit_test(test_utf8),
		cmocka_unit_test(test_utf8_decode),
		cmocka_unit_test(test_hex_value),
		cmocka_unit_test(test_paths),
		cmocka_unit_test(test_string_helpers),
		cmocka_unit_test(test_parse_int),
		cmocka_unit_test(test_strlist),
		cmocka_unit_test(test_diag_type_error_and_paths),
		cmocka_unit_test(test_sha256_known_vectors),
		cmocka_unit_test(test_hmac_and_random),
		cmocka_unit_test(test_hmac_sha256_known_vectors),
		cmocka_unit_test(test_escape_log),
		cmocka_unit_test(test_ci_blocks),
		cmocka_unit_test(test_runner_key_file),
		cmocka_unit_test(test_atomic_write_and_capped_read),
		cmocka_unit_test(test_atomic_file_in_pieces),
		cmocka_unit_test(test_atomic_file_background),
		cmocka_unit_test(test_par_for),
		cmocka_unit_test(test_strpool),
		cmocka_unit_test(test_edit_distance),
		cmocka_unit_test(test_error_cause),
	};
	return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
