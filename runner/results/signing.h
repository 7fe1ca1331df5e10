#ifndef SC_SIGNING_H
#define SC_SIGNING_H
/*
 * Who signs what a runner hands to another: results files (shard
 * artifacts, the results JSON `report` reads), the shards a run keeps in
 * the store, and stored units (docs/security.md, docs/store.md).
 *
 * A signature is an HMAC-SHA-256 under a runner key (secret.h) with a
 * domain string, so a MAC of one kind is never taken for another, and the
 * key's fingerprint: the first 16 hex digits of SHA-256 of
 * "skillci-key-id/1" and the key. The fingerprint names a key in messages
 * without giving it away.
 *
 * A fleet either shares one key (SKILLCI_RUNNER_KEY or one key file on
 * every runner) or lists the keys it trusts beside its own:
 *
 *   SKILLCI_TRUSTED_KEYS       secrets, separated by commas or new lines,
 *                              each read as SKILLCI_RUNNER_KEY reads one
 *   SKILLCI_TRUSTED_KEY_FILES  key files (64 hex digits, as runner.key),
 *                              separated by ':'
 *
 * What this runner signs is always under its own key; a trusted key only
 * verifies. A file that cannot be read is a warning, once.
 */
#include <stdbool.h>
#include <stddef.h>

#include "sha256.h"

#define SC_SIGN_FPR_LEN 16

struct sc_buf;

/* The fingerprint of this runner's own key (SC_SIGN_FPR_LEN hex digits). */
const char *sc_sign_own_fingerprint(void);

/*
 * The MAC (64 hex digits) of data under this runner's key, for domain (a
 * short constant such as "skillci-results/1"). Appends to out.
 */
void sc_sign_mac(struct sc_buf *out, const char *domain, const void *data, size_t len);
/* The same, streaming: init with the domain, sc_hmac_update() the data in
 * any number of pieces, then final appends the MAC (hex) to out. */
void sc_sign_mac_init(struct sc_hmac *h, const char *domain);
void sc_sign_mac_final(struct sc_hmac *h, struct sc_buf *out);

/*
 * Checks a signature: fingerprint fpr and MAC mac (hex) over data in
 * domain. Returns 0 when the key is this runner's or a trusted one and
 * the MAC holds. Otherwise SC_EUNSAFE with a message about what (a label:
 * "shard file 'x.json'"): no signature; signed by an unknown key (its
 * fingerprint, this runner's, and what to set); or a MAC that does not
 * hold (edited after signing).
 */
int sc_sign_check(const char *what, const char *domain, const void *data, size_t len,
		  const char *fpr, const char *mac);
/* The same over the concatenation of n parts (sha256.h), not copied. */
int sc_sign_check_parts(const char *what, const char *domain, const struct sc_hmac_part *parts,
			size_t n, const char *fpr, const char *mac);

/*
 * The key (SC_RUNNER_KEY_LEN bytes) that fpr names: this runner's own or
 * a trusted one; NULL for a key this runner does not know.
 */
const unsigned char *sc_sign_key_for(const char *fpr);

#endif
