/*
 * The results reader's JSON tree (jdom.h): a one-pass parser into an
 * arena for the JSON skillci writes, cJSON for everything else.
 */
#include "common.h"
#include "results/jdom.h"

#include <locale.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif
#include <cjson/cJSON.h>

#define ARENA_CHUNK (1024 * 1024)
/* Deeper values are cJSON's to parse (its own limit is 1,000). */
#define MAX_DEPTH 256

struct chunk {
	struct chunk *next;
	size_t used, size;
	max_align_t data[];
};

struct sc_jdom_arena {
	struct chunk *head;  /* the chunk being filled; older ones behind it */
};

struct sc_jdom_arena *sc_jdom_arena_new(void)
{
	return sc_xcalloc(1, sizeof(struct sc_jdom_arena));
}

static void free_chunks(struct chunk *c)
{
	while (c) {
		struct chunk *next = c->next;
		free(c);
		c = next;
	}
}

void sc_jdom_arena_reset(struct sc_jdom_arena *a)
{
	if (!a->head)
		return;
	/* the newest chunk is kept (the usual case: one, reused) */
	free_chunks(a->head->next);
	a->head->next = NULL;
	a->head->used = 0;
}

void sc_jdom_arena_free(struct sc_jdom_arena *a)
{
	if (!a)
		return;
	free_chunks(a->head);
	free(a);
}

static void *arena_alloc(struct sc_jdom_arena *a, size_t n)
{
	struct chunk *c = a->head;

	n = (n + sizeof(max_align_t) - 1) / sizeof(max_align_t) * sizeof(max_align_t);
	if (!c || c->size - c->used < n) {
		size_t size = n > ARENA_CHUNK / 4 ? n : ARENA_CHUNK;
		c = sc_xmalloc(sizeof(*c) + size);
		c->used = 0;
		c->size = size;
		if (size == n && a->head) {
			/* a big one: behind the chunk being filled, which stays */
			c->next = a->head->next;
			a->head->next = c;
		} else {
			c->next = a->head;
			a->head = c;
		}
	}
	c->used += n;
	return (char *)c->data + c->used - n;
}

static struct sc_jdom_node *node_new(struct sc_jdom_arena *a, enum sc_jdom_type type)
{
	struct sc_jdom_node *v = arena_alloc(a, sizeof(*v));

	memset(v, 0, sizeof(*v));
	v->type = type;
	return v;
}

static void append(struct sc_jdom_node *parent, struct sc_jdom_node *v)
{
	if (parent->last)
		parent->last->next = v;
	else
		parent->child = v;
	parent->last = v;
	parent->n++;
}

static uint32_t hash_key(const char *s)
{
	uint32_t h = 2166136261u;  /* FNV-1a */

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 16777619u;
	}
	return h;
}

static char *copy_str(struct sc_jdom_arena *a, const char *s, size_t n)
{
	char *d = arena_alloc(a, n + 1);

	memcpy(d, s, n);
	d[n] = '\0';
	return d;
}

/* ---- the one-pass parser ------------------------------------------------ */

/*
 * It takes what cJSON takes and reads it as cJSON does, or gives up
 * (false/NULL) and leaves the value to cJSON: it never refuses what cJSON
 * would take, and never reads a value otherwise.
 */
struct jp {
	struct sc_jdom_arena *a;
	const unsigned char *p, *end;
	char decimal_point;
	int depth;
};

/* Bytes that end the plain run of a string: the quote, the backslash,
 * and NUL (cJSON's C string would end there: cJSON's to read). */
static const unsigned char stop_byte[256] = { [0] = 1, ['"'] = 1, ['\\'] = 1 };

/* The characters cJSON takes into a number before strtod reads it. */
static const unsigned char number_byte[256] = {
	['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1,
	['7'] = 1, ['8'] = 1, ['9'] = 1, ['+'] = 1, ['-'] = 1, ['e'] = 1, ['E'] = 1, ['.'] = 1,
};

static void skip_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\n' || *j->p == '\t' || *j->p == '\r'))
		j->p++;
}

static int hex4(const unsigned char *s)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		int c = s[i], d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'f')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			d = c - 'A' + 10;
		else
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* The first byte at or after q (before end) that ends a plain run of a
 * string (stop_byte), or end: sixteen bytes at a time where SSE2 is. */
static const unsigned char *skip_plain(const unsigned char *q, const unsigned char *end)
{
#ifdef __SSE2__
	const __m128i quote = _mm_set1_epi8('"'), slash = _mm_set1_epi8('\\');
	const __m128i nul = _mm_setzero_si128();

	while (end - q >= 16) {
		__m128i v = _mm_loadu_si128((const __m128i *)(const void *)q);
		int m = _mm_movemask_epi8(_mm_or_si128(
			_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, slash)),
			_mm_cmpeq_epi8(v, nul)));
		if (m)
			return q + __builtin_ctz((unsigned)m);
		q += 16;
	}
#endif
	while (q < end && !stop_byte[*q])
		q++;
	return q;
}

/* Decodes the escaped string s..e (the quotes excluded) into out; the
 * length, or -1 for what is cJSON's to read. */
static long decode(char *out, const unsigned char *s, const unsigned char *e)
{
	char *o = out;

	while (s < e) {
		unsigned long cp;
		int hi, lo;
		if (*s != '\\') {
			*o++ = (char)*s++;
			continue;
		}
		switch (s[1]) {
		case 'b': *o++ = '\b'; s += 2; continue;
		case 'f': *o++ = '\f'; s += 2; continue;
		case 'n': *o++ = '\n'; s += 2; continue;
		case 'r': *o++ = '\r'; s += 2; continue;
		case 't': *o++ = '\t'; s += 2; continue;
		case '"': case '\\': case '/': *o++ = (char)s[1]; s += 2; continue;
		case 'u': break;
		default: return -1;
		}
		if (e - s < 6 || (hi = hex4(s + 2)) <= 0 || (hi >= 0xDC00 && hi <= 0xDFFF))
			return -1;
		if (hi >= 0xD800 && hi <= 0xDBFF) {
			if (e - s < 12 || s[6] != '\\' || s[7] != 'u' || (lo = hex4(s + 8)) < 0xDC00 ||
			    lo > 0xDFFF)
				return -1;
			cp = 0x10000 + (((unsigned long)(hi & 0x3FF) << 10) | (unsigned long)(lo & 0x3FF));
			s += 12;
		} else {
			cp = (unsigned long)hi;
			s += 6;
		}
		if (cp < 0x80) {
			*o++ = (char)cp;
		} else if (cp < 0x800) {
			*o++ = (char)(0xC0 | (cp >> 6));
			*o++ = (char)(0x80 | (cp & 0x3F));
		} else if (cp < 0x10000) {
			*o++ = (char)(0xE0 | (cp >> 12));
			*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
			*o++ = (char)(0x80 | (cp & 0x3F));
		} else {
			*o++ = (char)(0xF0 | (cp >> 18));
			*o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
			*o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
			*o++ = (char)(0x80 | (cp & 0x3F));
		}
	}
	*o = '\0';
	return o - out;
}

/* The string at j->p (its opening quote), decoded into the arena. */
static const char *parse_string(struct jp *j)
{
	const unsigned char *s = j->p + 1, *q = s;
	bool escaped = false;
	char *out;

	for (;;) {
		q = skip_plain(q, j->end);
		if (q >= j->end || !*q)
			return NULL;
		if (*q == '"')
			break;
		/* a backslash: it and the byte after it, as cJSON finds the end */
		if (q + 1 >= j->end)
			return NULL;
		escaped = true;
		q += 2;
	}
	j->p = q + 1;
	if (!escaped)
		return copy_str(j->a, (const char *)s, (size_t)(q - s));
	out = arena_alloc(j->a, (size_t)(q - s) + 1);
	return decode(out, s, q) < 0 ? NULL : out;
}

/* A number, read as cJSON reads it: the run of number characters (at most
 * 63) through strtod, with the locale's decimal point. */
static bool parse_number(struct jp *j, double *out)
{
	const unsigned char *s = j->p;
	size_t n = 0, digits = 0;
	char buf[64], *after;

	while (s + n < j->end && n < sizeof(buf) - 1 && number_byte[s[n]])
		n++;
	if (n == sizeof(buf) - 1)
		return false;
	/* a plain integer of up to 15 digits is exact: no strtod needed */
	for (size_t i = s[0] == '-'; i < n && s[i] >= '0' && s[i] <= '9'; i++)
		digits++;
	if (digits && digits <= 15 && digits + (s[0] == '-') == n) {
		double v = 0;
		for (size_t i = s[0] == '-'; i < n; i++)
			v = v * 10 + (s[i] - '0');
		*out = s[0] == '-' ? -v : v;
		j->p += n;
		return true;
	}
	for (size_t i = 0; i < n; i++)
		buf[i] = s[i] == '.' ? j->decimal_point : (char)s[i];
	buf[n] = '\0';
	*out = strtod(buf, &after);
	if (after == buf)
		return false;
	j->p += (size_t)(after - buf);
	return true;
}

static struct sc_jdom_node *parse_value(struct jp *j);

/* An array or object at j->p; members of an object carry their key. */
static struct sc_jdom_node *parse_members(struct jp *j, bool object)
{
	struct sc_jdom_node *v = node_new(j->a, object ? SC_JDOM_OBJECT : SC_JDOM_ARRAY), *e;
	char close = object ? '}' : ']';

	if (++j->depth > MAX_DEPTH)
		return NULL;
	j->p++;
	skip_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return v;
	}
	for (;;) {
		const char *key = NULL;
		if (object) {
			skip_ws(j);
			if (j->p >= j->end || *j->p != '"' || !(key = parse_string(j)))
				return NULL;
			skip_ws(j);
			if (j->p >= j->end || *j->p != ':')
				return NULL;
			j->p++;
		}
		if (!(e = parse_value(j)))
			return NULL;
		if (key) {
			e->key = key;
			e->key_hash = hash_key(key);
		}
		append(v, e);
		skip_ws(j);
		if (j->p >= j->end)
			return NULL;
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p != close)
			return NULL;
		j->p++;
		j->depth--;
		return v;
	}
}

static bool literal(struct jp *j, const char *word, size_t n)
{
	if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
		return false;
	j->p += n;
	return true;
}

static struct sc_jdom_node *parse_value(struct jp *j)
{
	struct sc_jdom_node *v;

	skip_ws(j);
	if (j->p >= j->end)
		return NULL;
	switch (*j->p) {
	case '{':
		return parse_members(j, true);
	case '[':
		return parse_members(j, false);
	case '"': {
		const char *s = parse_string(j);
		if (!s)
			return NULL;
		v = node_new(j->a, SC_JDOM_STRING);
		v->str = s;
		return v;
	}
	case 'n':
		return literal(j, "null", 4) ? node_new(j->a, SC_JDOM_NULL) : NULL;
	case 't':
		return literal(j, "true", 4) ? node_new(j->a, SC_JDOM_TRUE) : NULL;
	case 'f':
		return literal(j, "false", 5) ? node_new(j->a, SC_JDOM_FALSE) : NULL;
	default:
		if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
			double d;
			if (!parse_number(j, &d))
				return NULL;
			v = node_new(j->a, SC_JDOM_NUMBER);
			v->num = d;
			return v;
		}
		return NULL;
	}
}

/* ---- cJSON, for the rest -------------------------------------------------- */

static struct sc_jdom_node *from_cjson(struct sc_jdom_arena *a, const cJSON *c)
{
	struct sc_jdom_node *v;
	const cJSON *e;

	if (cJSON_IsObject(c) || cJSON_IsArray(c)) {
		v = node_new(a, cJSON_IsObject(c) ? SC_JDOM_OBJECT : SC_JDOM_ARRAY);
		cJSON_ArrayForEach(e, c) {
			struct sc_jdom_node *m = from_cjson(a, e);
			if (v->type == SC_JDOM_OBJECT) {
				m->key = copy_str(a, e->string, strlen(e->string));
				m->key_hash = hash_key(m->key);
			}
			append(v, m);
		}
	} else if (cJSON_IsString(c)) {
		v = node_new(a, SC_JDOM_STRING);
		v->str = copy_str(a, c->valuestring, strlen(c->valuestring));
	} else if (cJSON_IsNumber(c)) {
		v = node_new(a, SC_JDOM_NUMBER);
		v->num = c->valuedouble;
	} else {
		v = node_new(a, cJSON_IsTrue(c) ? SC_JDOM_TRUE
				: cJSON_IsFalse(c) ? SC_JDOM_FALSE : SC_JDOM_NULL);
	}
	return v;
}

struct sc_jdom_node *sc_jdom_parse(struct sc_jdom_arena *a, const char *text, size_t len,
				   const char **after, const char **error_at)
{
	struct jp j = { a, (const unsigned char *)text, (const unsigned char *)text + len, '.', 0 };
	struct sc_jdom_node *v;
	const char *end = NULL;
	cJSON *c;

	j.decimal_point = *localeconv()->decimal_point;
	*error_at = NULL;
	if ((v = parse_value(&j))) {
		*after = (const char *)j.p;
		return v;
	}
	/* what was put into the arena for it is left there, unused */
	if (!(c = cJSON_ParseWithLengthOpts(text, len, &end, false))) {
		*error_at = cJSON_GetErrorPtr();
		return NULL;
	}
	v = from_cjson(a, c);
	cJSON_Delete(c);
	*after = end;
	return v;
}

struct sc_jdom_node *sc_jdom_object_new(struct sc_jdom_arena *a)
{
	return node_new(a, SC_JDOM_OBJECT);
}

void sc_jdom_object_add(struct sc_jdom_arena *a, struct sc_jdom_node *obj, const char *key,
			struct sc_jdom_node *v)
{
	v->key = copy_str(a, key, strlen(key));
	v->key_hash = hash_key(v->key);
	append(obj, v);
}

const struct sc_jdom_node *sc_jdom_get(const struct sc_jdom_node *obj, const char *key)
{
	uint32_t h;

	if (!obj || obj->type != SC_JDOM_OBJECT)
		return NULL;
	h = hash_key(key);
	for (const struct sc_jdom_node *e = obj->child; e; e = e->next)
		if (e->key_hash == h && !strcmp(e->key, key))
			return e;
	return NULL;
}
