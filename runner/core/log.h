#ifndef SC_LOG_H
#define SC_LOG_H
/*
 * Diagnostics to stderr. Only results go to stdout. Levels: error, warn,
 * info (default threshold), debug (-v). Trace areas are turned on by
 * SKILLCI_TRACE=http,git,kernel,... (or "all"); sc_trace() is a no-op
 * for an area that is off.
 */
#include <stdbool.h>

enum sc_log_level { SC_LOG_ERROR, SC_LOG_WARN, SC_LOG_INFO, SC_LOG_DEBUG };

void sc_log_set_level(enum sc_log_level level);
/* Reads SKILLCI_TRACE; called by main(). */
void sc_log_init_from_env(void);
void sc_log(enum sc_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool sc_trace_on(const char *area);
void sc_trace(const char *area, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
