#ifndef SC_SECRET_H
#define SC_SECRET_H
/*
 * Random bytes and the runner's own key.
 *
 * The runner key is a 32-byte secret that only this machine (or fleet)
 * knows. Cached answers and stored units carry an HMAC-SHA-256 under it,
 * so an entry that someone else wrote or rewrote (a pull request that
 * commits a cache folder or a results database into the checked-out
 * workspace) fails its check and is treated as absent (docs/security.md).
 *
 * Where the key comes from, first found:
 *   1. SKILLCI_RUNNER_KEY, else SKILLCI_CACHE_KEY (the kernel cubin
 *      cache's secret, so one secret signs every cache): a secret string,
 *      hashed to 32 bytes, for a fleet whose runners share one cache or
 *      store (use 32 random characters or more);
 *   2. the file SKILLCI_RUNNER_KEY_FILE, else
 *      $XDG_CONFIG_HOME/skillci/runner.key, else
 *      $HOME/.config/skillci/runner.key: 64 hex digits, created (mode
 *      0600, folder 0700) with fresh random bytes when missing;
 *   3. when none can be read or created: a key random to this process,
 *      with one warning; nothing written earlier can then be reused.
 */
#include <stdbool.h>
#include <stddef.h>

#define SC_RUNNER_KEY_LEN 32

/*
 * The runner key (loaded once per process, thread-safe). Returns a
 * pointer to SC_RUNNER_KEY_LEN bytes, valid until exit.
 */
const unsigned char *sc_runner_key(void);
/*
 * Where the key came from: its file's path, the variable's name, or NULL
 * for a key random to this process. Loads the key.
 */
const char *sc_runner_key_source(void);

/*
 * A key file's key (64 hex digits, as the runner key file holds): into
 * out; its text is registered as a secret. Returns 0, or an error naming
 * the file.
 */
int sc_runner_key_read_file(unsigned char out[SC_RUNNER_KEY_LEN], const char *path);
/* The key a secret string stands for (SKILLCI_RUNNER_KEY, a trusted key). */
void sc_runner_key_from_secret(unsigned char out[SC_RUNNER_KEY_LEN], const char *s, size_t n);

#endif
