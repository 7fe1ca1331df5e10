#ifndef SC_STRPOOL_H
#define SC_STRPOOL_H
/*
 * A pool of interned strings: each distinct string is stored once, in
 * large chunks, and lives as long as the pool. A results model with tens
 * of thousands of units holds the same skill paths, variants, model names,
 * verdicts and hashes over and over; pooled, a unit costs its struct and
 * little more (runner/results/results.h).
 *
 * Ownership: the pool owns every string it returned; they stay valid
 * until sc_strpool_free() of the pool, or of the pool that adopted it.
 */
#include <stddef.h>

struct sc_strpool;

struct sc_strpool *sc_strpool_new(void);
/* The pooled copy of s (equal strings give the same pointer); NULL for NULL. */
const char *sc_strpool_intern(struct sc_strpool *pool, const char *s);
/*
 * Moves every string of from into into (their pointers stay valid, now
 * owned by into) and frees from. NULL from is a no-op.
 */
void sc_strpool_adopt(struct sc_strpool *into, struct sc_strpool *from);
/* Bytes held in chunks (for benchmarks). */
size_t sc_strpool_bytes(const struct sc_strpool *pool);
void sc_strpool_free(struct sc_strpool *pool);

#endif
