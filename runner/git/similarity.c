/* git-compatible file similarity for rename detection (similarity.h). */
#include "common.h"
#include "git/similarity.h"

#define CHUNK_MAX 64          /* a chunk ends at a newline or at this many bytes */
#define BINARY_PROBE 8000     /* bytes git looks at for a NUL */

/* FNV-1a over one chunk. */
static uint64_t chunk_hash(const unsigned char *p, size_t n, bool text)
{
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < n; i++) {
		if (text && p[i] == '\r' && i + 1 < n && p[i + 1] == '\n')
			continue;
		h = (h ^ p[i]) * 1099511628211ull;
	}
	return h;
}

static int cmp_span(const void *a, const void *b)
{
	const struct sc_similarity_span *x = a, *y = b;
	return (x->hash > y->hash) - (x->hash < y->hash);
}

void sc_similarity_sig_init(struct sc_similarity_sig *out, const char *data, size_t len, bool text)
{
	const unsigned char *p = (const unsigned char *)data;
	size_t alloc = 0, start = 0, counted = 0, k = 0;

	memset(out, 0, sizeof(*out));
	out->size = len;
	/* Cut into chunks: a chunk ends after a newline or after CHUNK_MAX
	 * counted bytes; a CR followed by a LF is not counted in text. */
	for (size_t i = 0; i < len; i++) {
		bool skip = text && p[i] == '\r' && i + 1 < len && p[i + 1] == '\n';
		if (!skip)
			counted++;
		if (skip || (counted < CHUNK_MAX && p[i] != '\n' && i + 1 < len))
			continue;
		SC_GROW(out->spans, alloc, out->n + 1);
		out->spans[out->n].hash = chunk_hash(p + start, i + 1 - start, text);
		out->spans[out->n++].bytes = counted;
		start = i + 1;
		counted = 0;
	}
	if (out->n > 1)
		qsort(out->spans, out->n, sizeof(*out->spans), cmp_span);
	/* merge equal hashes */
	for (size_t i = 0; i < out->n; i++) {
		if (k && out->spans[k - 1].hash == out->spans[i].hash)
			out->spans[k - 1].bytes += out->spans[i].bytes;
		else
			out->spans[k++] = out->spans[i];
	}
	out->n = k;
}

void sc_similarity_sig_release(struct sc_similarity_sig *sig)
{
	free(sig->spans);
	memset(sig, 0, sizeof(*sig));
}

int sc_similarity_score(const struct sc_similarity_sig *src, const struct sc_similarity_sig *dst)
{
	size_t i = 0, j = 0, max = src->size > dst->size ? src->size : dst->size;
	uint64_t copied = 0;

	if (!src->size || !dst->size)
		return 0;
	while (i < src->n && j < dst->n) {
		if (src->spans[i].hash < dst->spans[j].hash) {
			i++;
		} else if (src->spans[i].hash > dst->spans[j].hash) {
			j++;
		} else {
			uint64_t a = src->spans[i].bytes, b = dst->spans[j].bytes;
			copied += a < b ? a : b;
			i++;
			j++;
		}
	}
	return (int)(copied * 100 / max);
}

bool sc_similarity_sizes_compatible(size_t a, size_t b)
{
	size_t max = a > b ? a : b, min = a < b ? a : b;

	/* (max - min) / max must not exceed 1 - threshold */
	return (max - min) * 100 <= max * (100 - SC_SIMILARITY_RENAME_PCT);
}

bool sc_similarity_is_binary(const char *data, size_t len)
{
	return memchr(data, '\0', len < BINARY_PROBE ? len : BINARY_PROBE) != NULL;
}
