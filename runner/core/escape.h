#ifndef SC_ESCAPE_H
#define SC_ESCAPE_H
/*
 * Escaping untrusted text for where it goes. sc_escape_log() is the
 * routine for text that reaches a terminal or a CI log: skill names and paths, test names and inputs, model answers,
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

/*
 * One function per destination. Each appends s (NULL appends nothing)
 * with every byte that the destination would interpret written as text:
 * C0 controls, DEL and bytes that are not UTF-8 as "\xNN", C1 controls
 * and the separators and bidirectional controls above as "\uNNNN" (so
 * an ESC or OSC sequence shows as text and never reaches a terminal),
 * plus what the destination itself needs. tests/unit/test_escape.c
 * checks each over all 256 byte values.
 *
 *   sc_escape_terminal    a line of the terminal or CI log: sc_escape_log
 *   sc_escape_gh_property a workflow command property (file=, title=):
 *                         also '%', CR, LF, ':' and ',' percent-encoded
 *   sc_escape_gh_data     a workflow command's message (after "::"):
 *                         '%', CR and LF percent-encoded
 *   sc_escape_gh_output   a value in $GITHUB_OUTPUT: line feeds and tabs
 *                         kept (the writer picks the heredoc form)
 *   sc_escape_gh_summary  Markdown for $GITHUB_STEP_SUMMARY (n bytes):
 *                         line feeds and tabs kept
 */
void sc_escape_terminal(struct sc_buf *out, const char *s);
/*
 * A block of text for a terminal or the CI log that keeps its lines (a
 * model's answer, a compile log, a listing): line feeds and tabs stay,
 * every other control is escaped as sc_escape_log does, and no line
 * begins with "::".
 */
void sc_escape_text(struct sc_buf *out, const char *s);
void sc_escape_text_n(struct sc_buf *out, const char *s, size_t n);
/*
 * JSON text (n bytes, as cJSON prints it) for a terminal: cJSON escapes
 * C0 controls but writes DEL, C1 controls, the separators and the
 * bidirectional controls raw inside strings; they become "\uNNNN", and a
 * byte that is not UTF-8 "\ufffd". Outside strings cJSON writes none of
 * them, so the document means the same.
 */
void sc_escape_json(struct sc_buf *out, const char *json, size_t n);
void sc_escape_gh_property(struct sc_buf *out, const char *s);
void sc_escape_gh_data(struct sc_buf *out, const char *s);
void sc_escape_gh_output(struct sc_buf *out, const char *s);
void sc_escape_gh_summary(struct sc_buf *out, const char *s, size_t n);

/*
 * A value from a pull request shown in a report or a message (what its
 * configuration tried to change): every registered secret redacted
 * (output.h), escaped as sc_escape_log does, and cut to max_chars
 * characters with an ellipsis.
 */
#define SC_SHOWN_VALUE_MAX 80
void sc_escape_shown(struct sc_buf *out, const char *s, size_t max_chars);

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
