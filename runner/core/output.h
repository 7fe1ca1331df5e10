#ifndef SC_OUTPUT_H
#define SC_OUTPUT_H
/*
 * The writer layer: one redactor for every secret the runner holds, and
 * the only ways skillci writes bytes that a person or another program
 * reads. docs/security.md ("Secrets never reach an output") says why.
 *
 * Secrets are registered at start (sc_output_add_env_secrets(), from
 * main()) and whenever the trusted configuration names another one (a
 * named endpoint's api_key_env, a fast-agent api_key, a store location
 * with a password). Each registered value is masked by redact.h's rules:
 * a long enough run of it, in any letter case, reversed, hex or base64
 * at any offset, becomes "[redacted]".
 *
 * Every output channel passes through this layer, so a new output built
 * on the usual calls cannot bypass it:
 *
 *   - stdout and stderr (terminal, CI log, sc_log): sc_output_guard_stdio()
 *     makes both streams redact their bytes before write(2), a line at a
 *     time (a secret split between two printf calls on one line is still
 *     found); sc_output_flush() writes what is held and reports errors;
 *   - files: sc_write_file_atomic() and sc_atomic_write() (util.h), which
 *     every report uses (results.json, report.md, report.html, JUnit,
 *     exported JSONL, history CSV), and sc_output_append_file() for the
 *     files GitHub Actions reads ($GITHUB_OUTPUT, $GITHUB_STEP_SUMMARY);
 *   - bytes leaving by other ways call sc_output_redact*() at the one
 *     place they leave: the PR comment body (net/github_api.c) and each
 *     row written to the results store (results/store.c).
 *
 * Thread-safe: registration takes a write lock, redaction a read lock.
 * The registry lives until exit.
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_buf;

/* Registers value (borrowed, copied) as a secret; under 4 bytes: ignored. */
void sc_output_add_secret(const char *value);
/*
 * Registers the password of a URL ("scheme://user:PASSWORD@host/...")
 * and the values of "password=" and "sslpassword=" in a libpq
 * connection string or URL query, when location holds any.
 */
void sc_output_add_location_secrets(const char *location);
/*
 * True when an environment variable of that name holds a secret: the
 * names skillci reads keys from (each provider's key variables,
 * GITHUB_TOKEN, SKILLCI_GIT_TOKEN, SKILLCI_RUNNER_KEY, SKILLCI_CACHE_KEY,
 * PGPASSWORD) and any name ending in _API_KEY, _KEY, _TOKEN, _SECRET or
 * _PASSWORD, or holding SECRET or PASSWORD.
 */
bool sc_output_secret_name(const char *name);
/*
 * Registers every secret of the environment: the values of variables
 * sc_output_secret_name() accepts (at least 8 bytes for names matched
 * only by their ending) and the passwords of every value that is a
 * location holding one. Returns how many values were registered.
 */
size_t sc_output_add_env_secrets(void);
#define SC_OUTPUT_MIN_SECRET_BY_FORM 8

/*
 * Redacts data[0..len): when it holds a secret, out (cleared first)
 * receives the redacted copy and true is returned; otherwise out is left
 * alone and the caller writes data as is.
 */
bool sc_output_redact_to(struct sc_buf *out, const void *data, size_t len);
/* A redacted copy of s (NULL for NULL); the caller frees it. */
char *sc_output_redact_dup(const char *s);

/*
 * Replaces stdout and stderr with streams that redact before writing to
 * descriptors 1 and 2. Where the descriptor is not a terminal, a partial
 * line is held until its end arrives (or SC_OUTPUT_HOLD_MAX bytes are
 * held). Call once, early in main(); a second call does nothing.
 */
#define SC_OUTPUT_HOLD_MAX (256 * 1024)
void sc_output_guard_stdio(void);
/* Flushes stdout and stderr, held bytes included. 0, or -1 with errno. */
int sc_output_flush(void);

/* Appends data, redacted, to path (created 0644 when missing). */
int sc_output_append_file(const char *path, const void *data, size_t len);

#endif
