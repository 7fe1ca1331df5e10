/* Escaping untrusted text for terminals and CI logs (escape.h). */
#include "common.h"
#include "escape.h"
#include "output.h"

#include <pthread.h>

/* Code points shown as \uNNNN: C1 controls, line and paragraph
 * separators, bidirectional marks, embeddings, overrides and isolates. */
static bool hidden_cp(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9F) || c == 0x2028 || c == 0x2029 || c == 0x200E ||
	       c == 0x200F || (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) ||
	       c == 0x061C;
}

/* White space that the Actions runner trims before looking for "::"
 * (.NET's char.IsWhiteSpace, less the controls escaped anyway). */
static bool space_cp(uint32_t c)
{
	return c == ' ' || c == 0xA0 || c == 0x1680 || (c >= 0x2000 && c <= 0x200A) ||
	       c == 0x202F || c == 0x205F || c == 0x3000 || c == 0xFEFF;
}

/* What a destination keeps, and how it writes the rest (escape_any). */
enum {
	KEEP_LF = 1,        /* a line feed stays as is */
	KEEP_TAB = 2,       /* a tab stays as is */
	PERCENT = 4,        /* '%', CR and LF as %25, %0D, %0A (workflow commands) */
	PROPERTY = 8,       /* ':' and ',' as %3A and %2C too */
	NO_COMMAND = 16,    /* never begins with "::" (a line of the CI log) */
	LINES = 32,         /* NO_COMMAND for every line (after each kept line feed) */
};

/*
 * The one loop behind every destination: each byte of s[0..n) is copied
 * when it is printable UTF-8 text, or written in the destination's form.
 * Controls not kept (C0, DEL) become "\xNN", C1 controls, line and
 * paragraph separators and bidirectional controls "\uNNNN", bytes that
 * are not UTF-8 "\xNN". An ESC sequence thus loses its ESC and shows as
 * text.
 */
static void escape_any(struct sc_buf *out, const char *s, size_t n, unsigned how)
{
	const unsigned char *p = (const unsigned char *)s;
	bool leading = true;  /* only white space so far */

	while (n) {
		uint32_t cp = 0;
		size_t len = sc_utf8_decode((const char *)p, n, &cp);

		if (!len) {
			sc_buf_printf(out, "\\x%02x", p[0]);
			len = 1;
			leading = false;
		} else if ((how & PERCENT) && cp == '%') {
			sc_buf_puts(out, "%25");
		} else if ((how & PERCENT) && cp == '\r') {
			sc_buf_puts(out, "%0D");
		} else if ((how & PERCENT) && cp == '\n') {
			sc_buf_puts(out, "%0A");
		} else if ((how & PROPERTY) && cp == ':') {
			sc_buf_puts(out, "%3A");
		} else if ((how & PROPERTY) && cp == ',') {
			sc_buf_puts(out, "%2C");
		} else if (cp == '\n' && (how & KEEP_LF)) {
			sc_buf_putc(out, '\n');
			if (how & LINES) {
				leading = true;
				p += len;
				n -= len;
				continue;
			}
		} else if (cp == '\t' && (how & KEEP_TAB)) {
			sc_buf_putc(out, '\t');
		} else if (cp == '\n') {
			sc_buf_puts(out, "\\n");
		} else if (cp == '\r') {
			sc_buf_puts(out, "\\r");
		} else if (cp == '\t') {
			sc_buf_puts(out, "\\t");
		} else if (cp < 0x20 || cp == 0x7F) {
			sc_buf_printf(out, "\\x%02x", (unsigned)cp);
		} else if (hidden_cp(cp)) {
			sc_buf_printf(out, "\\u%04x", (unsigned)cp);
		} else if ((how & (NO_COMMAND | LINES)) && leading && cp == ':' && n >= 2 && p[1] == ':') {
			sc_buf_puts(out, "\\x3a");
		} else {
			sc_buf_put(out, p, len);
		}
		if (len && !space_cp(cp) && !(cp == '\t' && (how & KEEP_TAB)))
			leading = false;  /* a kept tab is white space the runner trims */
		p += len;
		n -= len;
	}
}

void sc_escape_log_n(struct sc_buf *out, const char *s, size_t n)
{
	escape_any(out, s, n, NO_COMMAND);
}

void sc_escape_log(struct sc_buf *out, const char *s)
{
	if (s)
		sc_escape_log_n(out, s, strlen(s));
}

void sc_escape_terminal(struct sc_buf *out, const char *s)
{
	sc_escape_log(out, s);
}

void sc_escape_text_n(struct sc_buf *out, const char *s, size_t n)
{
	escape_any(out, s, n, KEEP_LF | KEEP_TAB | LINES);
}

void sc_escape_text(struct sc_buf *out, const char *s)
{
	if (s)
		sc_escape_text_n(out, s, strlen(s));
}

void sc_escape_json(struct sc_buf *out, const char *json, size_t n)
{
	const unsigned char *p = (const unsigned char *)json;

	while (n) {
		uint32_t cp = 0;
		size_t len = sc_utf8_decode((const char *)p, n, &cp);

		if (!len) {
			sc_buf_puts(out, "\\ufffd");
			len = 1;
		} else if (cp == 0x7F || hidden_cp(cp)) {
			sc_buf_printf(out, "\\u%04x", (unsigned)cp);
		} else {
			sc_buf_put(out, p, len);
		}
		p += len;
		n -= len;
	}
}

void sc_escape_gh_property(struct sc_buf *out, const char *s)
{
	if (s)
		escape_any(out, s, strlen(s), PERCENT | PROPERTY);
}

void sc_escape_gh_data(struct sc_buf *out, const char *s)
{
	if (s)
		escape_any(out, s, strlen(s), PERCENT);
}

void sc_escape_gh_output(struct sc_buf *out, const char *s)
{
	if (s)
		escape_any(out, s, strlen(s), KEEP_LF | KEEP_TAB);
}

void sc_escape_gh_summary(struct sc_buf *out, const char *s, size_t n)
{
	escape_any(out, s, n, KEEP_LF | KEEP_TAB);
}

void sc_escape_shown(struct sc_buf *out, const char *s, size_t max_chars)
{
	struct sc_buf esc = SC_BUF_INIT;
	char *red;
	size_t at = 0, chars = 0;

	if (!s)
		return;
	red = sc_output_redact_dup(s);
	escape_any(&esc, red, strlen(red), NO_COMMAND);
	while (at < esc.len && chars < max_chars) {
		uint32_t cp;
		size_t len = sc_utf8_decode(esc.ptr + at, esc.len - at, &cp);
		at += len ? len : 1;
		chars++;
	}
	sc_buf_put(out, esc.ptr, at);
	if (at < esc.len)
		sc_buf_puts(out, "\xe2\x80\xa6");  /* an ellipsis */
	sc_buf_release(&esc);
	free(red);
}

/* True when GITHUB_ACTIONS is "true". */
static bool sc_ci_github_actions(void)
{
	const char *v = getenv("GITHUB_ACTIONS");
	return v && !strcmp(v, "true");
}

static char token[33];
static pthread_once_t token_once = PTHREAD_ONCE_INIT;

static void make_token(void)
{
	unsigned char rnd[16];
	static const char digits[] = "0123456789abcdef";

	sc_random_bytes(rnd, sizeof(rnd));
	for (size_t i = 0; i < sizeof(rnd); i++) {
		token[2 * i] = digits[rnd[i] >> 4];
		token[2 * i + 1] = digits[rnd[i] & 15];
	}
	token[32] = '\0';
}

const char *sc_ci_token(void)
{
	pthread_once(&token_once, make_token);
	return token;
}

void sc_ci_block_begin(FILE *f)
{
	if (!sc_ci_github_actions())
		return;
	fflush(stdout);
	fflush(stderr);
	fprintf(f, "::stop-commands::%s\n", sc_ci_token());
	fflush(f);
}

void sc_ci_block_end(FILE *f)
{
	if (!sc_ci_github_actions())
		return;
	fflush(f);
	fprintf(f, "::%s::\n", sc_ci_token());
	fflush(f);
}
