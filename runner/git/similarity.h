#ifndef SC_SIMILARITY_H
#define SC_SIMILARITY_H
/*
 * How much of one file is in another, measured as git measures it for
 * rename detection (git's diffcore "spanhash"; docs/changed.md): the
 * content is cut into chunks that end at a newline or after 64 bytes (a CR
 * before a LF is not counted in text), the bytes of src that also occur,
 * chunk for chunk, in dst are "copied", and the score is the copied bytes
 * over the larger of the two sizes. git calls a deleted and an added file
 * a rename at a score of 50% or more, and does not compare two files whose
 * sizes differ by more than half of the larger one. Pure functions; no
 * allocation outside the signature.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* git's default rename threshold (-M50%). */
#define SC_SIMILARITY_RENAME_PCT 50

/* A file's chunks: each distinct chunk hash with the bytes it covers. */
struct sc_similarity_sig {
	struct sc_similarity_span {
		uint64_t hash;
		uint64_t bytes;
	} *spans;       /* sorted by hash */
	size_t n;
	size_t size;    /* the file's size in bytes */
};

/* Fills out from data (text: a CR before a LF is skipped, as git does). */
void sc_similarity_sig_init(struct sc_similarity_sig *out, const char *data, size_t len, bool text);
void sc_similarity_sig_release(struct sc_similarity_sig *sig);

/*
 * The score of dst as a rename of src, 0 to 100 (rounded down): copied
 * bytes * 100 / max(size). 0 when either is empty.
 */
int sc_similarity_score(const struct sc_similarity_sig *src, const struct sc_similarity_sig *dst);

/* False when two sizes differ too much for the threshold to be reachable
 * (git skips such pairs without reading them). */
bool sc_similarity_sizes_compatible(size_t a, size_t b);

/* git's binary test: a NUL byte in the first 8000 bytes. */
bool sc_similarity_is_binary(const char *data, size_t len);

#endif
