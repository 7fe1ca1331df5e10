#ifndef SC_SHA256_H
#define SC_SHA256_H
/*
 * SHA-256 (FIPS 180-4), used for content hashes: fixture pins, cache keys,
 * unit identities. Streaming: init, update any number of times, final.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SC_SHA256_LEN 32
#define SC_SHA256_HEX_LEN 64

struct sc_sha256 {
	uint32_t h[8];
	uint64_t total;
	unsigned char block[64];
	size_t used;
};

void sc_sha256_init(struct sc_sha256 *ctx);
void sc_sha256_update(struct sc_sha256 *ctx, const void *data, size_t len);
void sc_sha256_final(struct sc_sha256 *ctx, unsigned char out[SC_SHA256_LEN]);
/* One-shot: hex digest of data into out (65 bytes with the NUL). */
void sc_sha256_hex(char out[SC_SHA256_HEX_LEN + 1], const void *data, size_t len);

/*
 * HMAC-SHA256 (RFC 2104) of the concatenation of n parts under key: a
 * message authentication code only a holder of the key can compute.
 */
struct sc_hmac_part {
	const void *data;
	size_t len;
};
void sc_hmac_sha256(unsigned char out[SC_SHA256_LEN], const void *key, size_t key_len,
		    const struct sc_hmac_part *parts, size_t n);
/* Constant-time comparison of two digests. */
int sc_digest_equal(const unsigned char *a, const unsigned char *b, size_t n);

/*
 * The same, streaming (for a message built from many small fields):
 * init with the key, update any number of times, final.
 */
struct sc_hmac {
	struct sc_sha256 inner, outer;
};
void sc_hmac_init(struct sc_hmac *ctx, const void *key, size_t keylen);
void sc_hmac_update(struct sc_hmac *ctx, const void *data, size_t len);
void sc_hmac_final(struct sc_hmac *ctx, unsigned char out[SC_SHA256_LEN]);

#endif
