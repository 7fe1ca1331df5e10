/* Key material in server text (redact.h). */
#include "common.h"
#include "redact.h"

static unsigned char fold(unsigned char c)
{
	return c >= 'A' && c <= 'Z' ? (unsigned char)(c + 32) : c;
}

static unsigned gram(const unsigned char *p)
{
	uint32_t h = (uint32_t)fold(p[0]) | (uint32_t)fold(p[1]) << 8 |
		     (uint32_t)fold(p[2]) << 16 | (uint32_t)fold(p[3]) << 24;
	h *= 2654435761u;
	return h >> 16;
}

static void add_form(struct sc_redact *r, const char *text, size_t len, size_t min_run, bool f)
{
	struct sc_redact_form *x;

	if (len < 4)
		return;
	SC_GROW(r->forms, r->alloc, r->n + 1);
	x = &r->forms[r->n++];
	x->text = sc_xstrndup(text, len);
	x->len = len;
	x->min_run = min_run < len ? min_run : len;
	x->fold = f;
	for (size_t i = 0; i + 4 <= len; i++) {
		unsigned g = gram((const unsigned char *)text + i);
		r->grams[g >> 6] |= (uint64_t)1 << (g & 63);
	}
}

/* base64 (url: the URL-safe alphabet) of prefix zero bytes then s, with
 * the characters that depend on the bytes around s left out. */
static void base64_form(struct sc_buf *out, const char *s, size_t n, size_t prefix, bool url)
{
	static const char std[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	static const char safe[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	const char *alpha = url ? safe : std;
	unsigned char *in = sc_xcalloc(n + prefix + 3, 1);
	size_t total = n + prefix, skip = prefix == 0 ? 0 : prefix == 1 ? 2 : 3;
	struct sc_buf all = SC_BUF_INIT;

	memcpy(in + prefix, s, n);
	for (size_t i = 0; i + 3 <= total; i += 3) {
		uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		sc_buf_putc(&all, alpha[v >> 18 & 63]);
		sc_buf_putc(&all, alpha[v >> 12 & 63]);
		sc_buf_putc(&all, alpha[v >> 6 & 63]);
		sc_buf_putc(&all, alpha[v & 63]);
	}
	sc_buf_clear(out);
	if (all.len > skip)
		sc_buf_put(out, all.ptr + skip, all.len - skip);
	sc_buf_release(&all);
	free(in);
}

void sc_redact_init(struct sc_redact *r)
{
	memset(r, 0, sizeof(*r));
}

void sc_redact_add(struct sc_redact *r, const char *secret)
{
	size_t n = secret ? strlen(secret) : 0;
	struct sc_buf b = SC_BUF_INIT;

	if (n < 4)
		return;
	add_form(r, secret, n, SC_REDACT_MIN_RUN, true);
	for (size_t i = 0; i < n; i++)
		sc_buf_putc(&b, secret[n - 1 - i]);
	add_form(r, b.ptr, b.len, SC_REDACT_MIN_RUN, true);
	sc_buf_clear(&b);
	sc_hex(&b, (const unsigned char *)secret, n);
	add_form(r, b.ptr, b.len, SC_REDACT_MIN_RUN_ENCODED, true);
	for (size_t prefix = 0; prefix < 3; prefix++)
		for (int url = 0; url < 2; url++) {
			base64_form(&b, secret, n, prefix, url);
			add_form(r, b.ptr, b.len, SC_REDACT_MIN_RUN_ENCODED, false);
		}
	sc_buf_release(&b);
}

/* The longest run of form x that text[0..n) starts with. */
static size_t longest(const struct sc_redact_form *x, const unsigned char *t, size_t n)
{
	size_t best = 0;

	for (size_t j = 0; j < x->len; j++) {
		size_t k = 0;
		while (k < n && j + k < x->len &&
		       (x->fold ? fold(t[k]) == fold((unsigned char)x->text[j + k])
				: t[k] == (unsigned char)x->text[j + k]))
			k++;
		if (k > best)
			best = k;
	}
	return best;
}

/*
 * Scans t[0..n) and, when it holds key material, sets out to the text
 * with each run replaced; true when it did (out is left alone otherwise).
 */
static bool redact_span(const struct sc_redact *r, const unsigned char *t, size_t n,
			struct sc_buf *out)
{
	size_t i = 0, from = 0, stride = SIZE_MAX;
	bool hit = false;

	if (!r->n)
		return false;
	/* A run of m or more characters (m: the shortest any form needs)
	 * starting at i puts the m - 3 grams at i .. i + m - 4 in the filter:
	 * when the gram stride - 1 ahead (stride = m - 3) is not in it, no run
	 * starts at i .. i + stride - 1, and those are skipped unexamined. */
	for (size_t f = 0; f < r->n; f++) {
		size_t m = r->forms[f].min_run;
		if ((m > 4 ? m - 3 : 1) < stride)
			stride = m > 4 ? m - 3 : 1;
	}
	while (i + 4 <= n) {
		unsigned g;
		size_t run = 0;
		if (stride > 1 && i + stride + 3 <= n) {
			g = gram(t + i + stride - 1);
			if (!(r->grams[g >> 6] & ((uint64_t)1 << (g & 63)))) {
				i += stride;
				continue;
			}
		}
		g = gram(t + i);
		if (r->grams[g >> 6] & ((uint64_t)1 << (g & 63))) {
			for (size_t f = 0; f < r->n; f++) {
				size_t k = longest(&r->forms[f], t + i, n - i);
				if (k >= r->forms[f].min_run && k > run)
					run = k;
			}
		}
		if (!run) {
			i++;
			continue;
		}
		if (!hit)
			sc_buf_clear(out);
		sc_buf_put(out, t + from, i - from);
		sc_buf_puts(out, "[redacted]");
		i += run;
		from = i;
		hit = true;
	}
	if (hit)
		sc_buf_put(out, t + from, n - from);
	return hit;
}

bool sc_redact_apply(const struct sc_redact *r, char **text)
{
	struct sc_buf out = SC_BUF_INIT;

	if (!*text || !redact_span(r, (const unsigned char *)*text, strlen(*text), &out))
		return false;
	free(*text);
	*text = sc_buf_detach(&out, NULL);
	return true;
}

bool sc_redact_apply_to(const struct sc_redact *r, struct sc_buf *out, const void *data, size_t len)
{
	return len && redact_span(r, data, len, out);
}

void sc_redact_release(struct sc_redact *r)
{
	for (size_t i = 0; i < r->n; i++) {
		memset(r->forms[i].text, 0, r->forms[i].len);
		free(r->forms[i].text);
	}
	free(r->forms);
	memset(r, 0, sizeof(*r));
}
