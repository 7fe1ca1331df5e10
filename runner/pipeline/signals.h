#ifndef SC_SIGNALS_H
#define SC_SIGNALS_H
/*
 * Stopping a long run cleanly (docs/run.md, "Interrupting a run"). The
 * first SIGINT or SIGTERM sets a flag: the run starts no new work, lets
 * the units in flight finish (their results reach the store), and writes
 * every report marked incomplete. A second signal restores the default
 * action and re-raises it, so a user can always kill a stuck run; the
 * store stays consistent because every write is one SQLite transaction.
 *
 * Process-wide state: install once from a command, restore before it
 * returns.
 */
#include <stdbool.h>

/* Installs the handlers for SIGINT and SIGTERM; clears the flag. */
void sc_signals_install(void);
/* Puts the previous handlers back. */
void sc_signals_restore(void);
/* True once a stop was asked for. Safe from any thread. */
bool sc_signals_stop_requested(void);
/* The signal that asked for it (SIGINT, SIGTERM), 0 when none. */
int sc_signals_which(void);
/* "SIGINT", "SIGTERM" or "signal N" for sig. */
const char *sc_signals_name(int sig);
/* Asks for a stop as a signal would (for tests and for fatal errors in a
 * worker thread that should stop the others). */
void sc_signals_request_stop(int sig);

#endif
