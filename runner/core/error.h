#ifndef SC_ERROR_H
#define SC_ERROR_H
/*
 * One error convention: functions return 0 or a negative SC_E* code, and the
 * message is set once, where the failure happened, with sc_error_set(). It is
 * kept per thread until the next sc_error_set() or sc_error_clear().
 */
#include <stdbool.h>

enum {
	SC_OK        = 0,
	SC_ERROR     = -1,  /* generic */
	SC_EINVAL    = -2,  /* bad input: file, config, usage (exit 2) */
	SC_ENOTFOUND = -3,  /* a file, revision, skill, fixture that is not there */
	SC_EIO       = -4,  /* read/write failure */
	SC_ELIMIT    = -5,  /* a bound in limits.h was hit */
	SC_EPARSE    = -6,  /* malformed JSON/YAML/Markdown */
	SC_ENET      = -7,  /* network/provider failure after retries (exit 3) */
	SC_EAUTH     = -8,  /* 401/403 from a provider */
	SC_EUNSAFE   = -9,  /* refused for safety (path traversal, include, symlink) */
	SC_ENOSYS    = -10, /* feature not built in (e.g. no CUDA) */
	SC_EINTR     = -11, /* interrupted by a signal */
	SC_EGPU      = -12, /* GPU or driver failure (exit 3) */
	SC_EEXISTS   = -13,
};

/* Sets the message (printf format) and returns code, for `return sc_error_set(...)`. */
int sc_error_set(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Adds context in front of the current message: "ctx: old message". */
int sc_error_wrap(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The current message; "" when none. Borrowed, valid until the next set. */
const char *sc_error_last(void);
/* The code passed to the last sc_error_set(). */
int sc_error_code(void);
void sc_error_clear(void);
/*
 * Why a run could not start, set where the error happens (after
 * sc_error_set(), which clears it; sc_error_wrap() keeps it), so that a
 * command chooses its hint from the cause, never from the message's words.
 */
enum sc_cause {
	SC_CAUSE_NONE,
	SC_CAUSE_NO_KEY,          /* a model's API key or token is not set */
	SC_CAUSE_CONFIG,          /* the configuration has errors */
	SC_CAUSE_REVISION,        /* a revision is not in the clone */
	SC_CAUSE_NOT_MERGEABLE,   /* the head does not merge cleanly into the target */
	SC_CAUSE_NO_ENDPOINT,     /* a model's provider has no endpoint (base URL) set */
};
/* Sets the cause of the current error and returns code. */
int sc_error_cause_set(int code, enum sc_cause cause);
/* The cause of the current error (SC_CAUSE_NONE when none was set). */
enum sc_cause sc_error_cause(void);
/* "none", "no_key", "config", "revision", "not_mergeable", "no_endpoint"; NULL
 * out of range. */
const char *sc_cause_name(enum sc_cause c);
/* The cause a name means; 0 and *out set, or -1 for another name. */
int sc_cause_parse(const char *name, enum sc_cause *out);
/*
 * What to do about a run that stopped before its verdict, from its cause:
 * a missing API key or token (every pull request from a fork: secrets do
 * not reach it), a provider without its endpoint (Azure OpenAI's resource
 * URL), a head that does not merge, a revision the checkout does not have,
 * a configuration with errors; shallow: the checkout is shallow (then a
 * missing revision, or no cause, gets the fetch-depth hint). A sentence
 * without a trailing period, static.
 */
const char *sc_cause_hint(enum sc_cause cause, bool shallow);
/* A short name for a code ("invalid input", "not found", ...). */
const char *sc_error_name(int code);
/* Maps an error code to the process exit code of DESIGN.md (2 or 3). */
int sc_error_exit_code(int code);

#endif
