#ifndef SC_REDACT_H
#define SC_REDACT_H
/*
 * Key material in text a server sent back. A model server may echo an
 * API key in an error message or, if it is hostile, in an answer, and
 * not always as it was sent: a prefix ("sk-ant-api03-AbC..."), a masked
 * form, other letter case, base64 (an Authorization header quoted back),
 * hex, or reversed. sc_redact_apply() replaces, in a message or an answer,
 * every run of text that is
 *
 *   - at least SC_REDACT_MIN_RUN characters of a secret, in any letter
 *     case (the whole secret when it is shorter), or of its reverse;
 *   - at least SC_REDACT_MIN_RUN_ENCODED characters of its base64 or
 *     base64url form at any byte offset, or of its hex form,
 *
 * with "[redacted]", before the text reaches stderr, a results file, the
 * store or the cache. docs/security.md lists what it covers.
 *
 * Ownership: struct sc_redact owns copies of the secrets' forms.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SC_REDACT_MIN_RUN          12
#define SC_REDACT_MIN_RUN_ENCODED  16

struct sc_redact_form {
	char *text;
	size_t len;
	size_t min_run;
	bool fold;          /* compare ignoring ASCII letter case */
};

struct sc_redact {
	struct sc_redact_form *forms;
	size_t n, alloc;
	uint64_t grams[1024];  /* 65536-bit filter of the forms' folded 4-grams */
};

void sc_redact_init(struct sc_redact *r);
/* Adds a secret and its forms; secrets shorter than 4 bytes are ignored. */
void sc_redact_add(struct sc_redact *r, const char *secret);
/* Rewrites *text (a malloc'd string) when it holds key material; true
 * when it did. NULL is left alone. */
bool sc_redact_apply(const struct sc_redact *r, char **text);
struct sc_buf;
/* When data[0..len) holds key material: sets out (cleared first) to the
 * redacted copy and returns true; otherwise out is left alone. */
bool sc_redact_apply_to(const struct sc_redact *r, struct sc_buf *out, const void *data, size_t len);
void sc_redact_release(struct sc_redact *r);

#endif
