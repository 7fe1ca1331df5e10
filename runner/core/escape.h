#ifndef SC_ESCAPE_H
#define SC_ESCAPE_H
/*
 * The one escaping routine for untrusted text that reaches a terminal or
 * a CI log: skill names and paths, test names and inputs, model answers,
 * server error messages. docs/security.md ("The CI log") says why.
 *
 * sc_escape_log() copies s to out so that the result is one line of
 * printable text:
 *
 *   - control characters become escapes: "\n", "\r", "\t", other C0
 *     bytes and DEL as "\xNN", C1 controls (U+0080 to U+009F), the line
 *     and paragraph separators and the bidirectional overrides as
 *     "\uNNNN"; bytes that are not UTF-8 as "\xNN";
 *   - it never begins with "::" (after any leading white space), the
 *     prefix of a GitHub Actions workflow command: the first ':' is then
 *     written "\x3a". Since the result holds no line break, a line made of
 *     our own text and escaped pieces can never start a workflow command.
 *
 * Everything else (UTF-8 text, backslashes, quotes) is copied as is.
 *
 * Under GitHub Actions (GITHUB_ACTIONS=true) blocks of untrusted lines are
 * also framed by sc_ci_block_begin()/sc_ci_block_end(), which print
 * "::stop-commands::TOKEN" and "::TOKEN::" with a token that is random
 * per process, so even a line that slipped past the escaping would not
 * be read as a command, and no one can guess the token to resume early.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct sc_buf;

/* Appends the escaped form of s (NUL-terminated; NULL appends nothing). */
void sc_escape_log(struct sc_buf *out, const char *s);
/* The same for n bytes that may hold NUL bytes (shown as "\x00"). */
void sc_escape_log_n(struct sc_buf *out, const char *s, size_t n);

/* True when GITHUB_ACTIONS is "true". */
bool sc_ci_github_actions(void);
/* The per-process stop-commands token (32 hex digits). */
const char *sc_ci_token(void);
/*
 * Under GitHub Actions: writes "::stop-commands::TOKEN" (begin) or
 * "::TOKEN::" (end) as a line of f and flushes f, so the runner never
 * sees our own commands in between. Elsewhere: nothing.
 */
void sc_ci_block_begin(FILE *f);
void sc_ci_block_end(FILE *f);

#endif
