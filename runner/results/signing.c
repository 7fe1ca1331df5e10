/* Signatures of what one runner hands to another (signing.h). */
#include "common.h"
#include "secret.h"
#include "sha256.h"
#include "results/signing.h"

#include <pthread.h>

#define MAX_TRUSTED 64

struct key {
	unsigned char k[SC_RUNNER_KEY_LEN];
	char fpr[SC_SIGN_FPR_LEN + 1];
};

static struct key own, trusted[MAX_TRUSTED];
static size_t ntrusted;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void fingerprint(struct key *k)
{
	struct sc_sha256 h;
	unsigned char d[SC_SHA256_LEN];
	static const char hex[] = "0123456789abcdef";

	sc_sha256_init(&h);
	sc_sha256_update(&h, "skillci-key-id/1", 16);
	sc_sha256_update(&h, k->k, sizeof(k->k));
	sc_sha256_final(&h, d);
	for (size_t i = 0; i < SC_SIGN_FPR_LEN / 2; i++) {
		k->fpr[2 * i] = hex[d[i] >> 4];
		k->fpr[2 * i + 1] = hex[d[i] & 15];
	}
	k->fpr[SC_SIGN_FPR_LEN] = 0;
}

/* A secret string, read as secret.c reads SKILLCI_RUNNER_KEY. */
static void add_secret(const char *s, size_t n)
{
	struct key *k;

	if (!n || ntrusted == MAX_TRUSTED)
		return;
	k = &trusted[ntrusted++];
	sc_runner_key_from_secret(k->k, s, n);
	fingerprint(k);
}

static void add_file(const char *path)
{
	struct key k;

	if (sc_runner_key_read_file(k.k, path) < 0) {
		sc_log(SC_LOG_WARN, "SKILLCI_TRUSTED_KEY_FILES: %s; that key is not trusted",
		       sc_error_last());
		sc_error_clear();
		return;
	}
	if (ntrusted < MAX_TRUSTED) {
		fingerprint(&k);
		trusted[ntrusted++] = k;
	}
}

static void load(void)
{
	const char *v;

	memcpy(own.k, sc_runner_key(), SC_RUNNER_KEY_LEN);
	fingerprint(&own);
	if ((v = getenv("SKILLCI_TRUSTED_KEYS")))
		for (const char *p = v; *p;) {
			size_t n = strcspn(p, ",\n");
			add_secret(p, n);
			p += n;
			if (*p)
				p++;
		}
	if ((v = getenv("SKILLCI_TRUSTED_KEY_FILES")))
		for (const char *p = v; *p;) {
			size_t n = strcspn(p, ":");
			if (n) {
				char *path = sc_xstrndup(p, n);
				add_file(path);
				free(path);
			}
			p += n;
			if (*p)
				p++;
		}
}

const char *sc_sign_own_fingerprint(void)
{
	pthread_once(&once, load);
	return own.fpr;
}

const unsigned char *sc_sign_key_for(const char *fpr)
{
	pthread_once(&once, load);
	if (!fpr)
		return NULL;
	if (!strcmp(fpr, own.fpr))
		return own.k;
	for (size_t i = 0; i < ntrusted; i++)
		if (!strcmp(fpr, trusted[i].fpr))
			return trusted[i].k;
	return NULL;
}

static void mac_under(char out[SC_SHA256_HEX_LEN + 1], const unsigned char *key,
		      const char *domain, const struct sc_hmac_part *parts, size_t n)
{
	struct sc_hmac h;
	unsigned char d[SC_SHA256_LEN];
	struct sc_buf hex = SC_BUF_INIT;

	sc_hmac_init(&h, key, SC_RUNNER_KEY_LEN);
	sc_hmac_update(&h, domain, strlen(domain) + 1);
	for (size_t i = 0; i < n; i++)
		sc_hmac_update(&h, parts[i].data, parts[i].len);
	sc_hmac_final(&h, d);
	sc_hex(&hex, d, sizeof(d));
	memcpy(out, hex.ptr, SC_SHA256_HEX_LEN + 1);
	sc_buf_release(&hex);
}

void sc_sign_mac(struct sc_buf *out, const char *domain, const void *data, size_t len)
{
	char mac[SC_SHA256_HEX_LEN + 1];
	struct sc_hmac_part part = { data, len };

	pthread_once(&once, load);
	mac_under(mac, own.k, domain, &part, 1);
	sc_buf_puts(out, mac);
}

void sc_sign_mac_init(struct sc_hmac *h, const char *domain)
{
	pthread_once(&once, load);
	sc_hmac_init(h, own.k, SC_RUNNER_KEY_LEN);
	sc_hmac_update(h, domain, strlen(domain) + 1);
}

void sc_sign_mac_final(struct sc_hmac *h, struct sc_buf *out)
{
	unsigned char d[SC_SHA256_LEN];

	sc_hmac_final(h, d);
	sc_hex(out, d, sizeof(d));
}

int sc_sign_check(const char *what, const char *domain, const void *data, size_t len,
		  const char *fpr, const char *mac)
{
	struct sc_hmac_part part = { data, len };

	return sc_sign_check_parts(what, domain, &part, 1, fpr, mac);
}

int sc_sign_check_parts(const char *what, const char *domain, const struct sc_hmac_part *parts,
			size_t n, const char *fpr, const char *mac)
{
	const unsigned char *key;
	char want[SC_SHA256_HEX_LEN + 1];

	if (!fpr || !mac || !*fpr || !*mac)
		return sc_error_set(SC_EUNSAFE, "%s carries no signature: it was not written by "
				    "skillci under a runner key, or the signature was removed",
				    what);
	if (!(key = sc_sign_key_for(fpr)))
		return sc_error_set(SC_EUNSAFE, "%s is signed by runner key %s, which this runner "
				    "(key %s) does not trust: share one key across the fleet "
				    "(SKILLCI_RUNNER_KEY or SKILLCI_RUNNER_KEY_FILE on every "
				    "runner), or add that runner's key to SKILLCI_TRUSTED_KEYS "
				    "or SKILLCI_TRUSTED_KEY_FILES", what, fpr,
				    sc_sign_own_fingerprint());
	mac_under(want, key, domain, parts, n);
	if (strlen(mac) != SC_SHA256_HEX_LEN ||
	    !sc_digest_equal((const unsigned char *)mac, (const unsigned char *)want,
			     SC_SHA256_HEX_LEN))
		return sc_error_set(SC_EUNSAFE, "%s fails its signature (runner key %s): it was "
				    "changed after it was written", what, fpr);
	return 0;
}
