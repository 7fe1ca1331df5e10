/* The string pool of strpool.h: chunks for the bytes, an open-addressing
 * hash set of the strings for lookups. */
#include "common.h"
#include "strpool.h"

#define CHUNK_BYTES (64 * 1024)

struct chunk {
	struct chunk *next;
	size_t used, size;
	char data[];
};

struct sc_strpool {
	struct chunk *chunks;
	const char **slots;   /* the set: NULL or a pooled string */
	size_t nslots, count;
	size_t bytes;
};

/* Eight bytes a step (a results file interns some 60 MB of strings):
 * each word folded in by a multiply and a shift, the high bits folded
 * into the low ones the table's mask keeps. */
static uint64_t hash_str(const char *s, size_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n, w;

	for (; n >= 8; s += 8, n -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdull;
		h ^= h >> 29;
	}
	w = 0;
	memcpy(&w, s, n);
	h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
	return h ^ (h >> 32);
}

struct sc_strpool *sc_strpool_new(void)
{
	struct sc_strpool *p = sc_xcalloc(1, sizeof(*p));

	p->nslots = 1024;
	p->slots = sc_xcalloc(p->nslots, sizeof(*p->slots));
	return p;
}

/* Room for n bytes: in the current chunk, a new one, or a chunk of its own. */
static char *alloc_bytes(struct sc_strpool *p, size_t n)
{
	struct chunk *c = p->chunks;

	if (!c || c->size - c->used < n) {
		size_t size = n > CHUNK_BYTES / 4 ? n : CHUNK_BYTES;
		c = sc_xmalloc(sizeof(*c) + size);
		c->used = 0;
		c->size = size;
		if (size == n && p->chunks) {
			/* a big string: behind the current chunk, which keeps filling */
			c->next = p->chunks->next;
			p->chunks->next = c;
		} else {
			c->next = p->chunks;
			p->chunks = c;
		}
		p->bytes += size;
	}
	c->used += n;
	return c->data + c->used - n;
}

/* Adds s, whose hash is h, to the set. */
static void insert(struct sc_strpool *p, const char *s, uint64_t h)
{
	size_t mask = p->nslots - 1, i = (size_t)h & mask;

	while (p->slots[i])
		i = (i + 1) & mask;
	p->slots[i] = s;
	p->count++;
}

static void grow(struct sc_strpool *p)
{
	const char **old = p->slots;
	size_t n = p->nslots;

	p->nslots *= 2;
	p->slots = sc_xcalloc(p->nslots, sizeof(*p->slots));
	p->count = 0;
	for (size_t i = 0; i < n; i++)
		if (old[i])
			insert(p, old[i], hash_str(old[i], strlen(old[i])));
	free(old);
}

const char *sc_strpool_intern(struct sc_strpool *p, const char *s)
{
	size_t mask, i, n;
	uint64_t h;
	char *copy;

	if (!s)
		return NULL;
	mask = p->nslots - 1;
	n = strlen(s);
	h = hash_str(s, n);
	for (i = (size_t)h & mask; p->slots[i]; i = (i + 1) & mask)
		if (!strcmp(p->slots[i], s))
			return p->slots[i];
	copy = alloc_bytes(p, n + 1);
	memcpy(copy, s, n + 1);
	if (2 * (p->count + 1) > p->nslots)
		grow(p);
	insert(p, copy, h);
	return copy;
}

void sc_strpool_adopt(struct sc_strpool *into, struct sc_strpool *from)
{
	struct chunk *c;

	if (!from)
		return;
	/* the adopted strings are kept, not looked up: new strings equal to
	 * them are stored again, which costs a little memory and nothing else */
	while ((c = from->chunks)) {
		from->chunks = c->next;
		c->next = into->chunks ? into->chunks->next : NULL;
		if (into->chunks)
			into->chunks->next = c;
		else
			into->chunks = c;
		into->bytes += c->size;
	}
	free(from->slots);
	free(from);
}

size_t sc_strpool_bytes(const struct sc_strpool *p)
{
	return p ? p->bytes : 0;
}

void sc_strpool_free(struct sc_strpool *p)
{
	if (!p)
		return;
	while (p->chunks) {
		struct chunk *c = p->chunks;
		p->chunks = c->next;
		free(c);
	}
	free(p->slots);
	free(p);
}
