/* Escaping untrusted text for terminals and CI logs (escape.h). */
#include "common.h"
#include "escape.h"

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

void sc_escape_log_n(struct sc_buf *out, const char *s, size_t n)
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
		} else if (leading && cp == ':' && n >= 2 && p[1] == ':') {
			sc_buf_puts(out, "\\x3a");
		} else {
			sc_buf_put(out, p, len);
		}
		if (len && !space_cp(cp))
			leading = false;
		p += len;
		n -= len;
	}
}

void sc_escape_log(struct sc_buf *out, const char *s)
{
	if (s)
		sc_escape_log_n(out, s, strlen(s));
}

bool sc_ci_github_actions(void)
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
