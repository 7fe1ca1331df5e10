/*
 * SIGINT/SIGTERM handling for `skillci run` (see signals.h). The handler
 * only writes a sig_atomic_t; everything else happens in the run's loop.
 */
#include "common.h"
#include "pipeline/signals.h"

#include <signal.h>

static volatile sig_atomic_t stop_sig;
static struct sigaction old_int, old_term;
static bool installed;

/* First signal: remember it. Second: default action, re-raised. */
static void on_signal(int sig)
{
	if (stop_sig) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	stop_sig = sig;
}

void sc_signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART;
	stop_sig = 0;
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	installed = true;
}

void sc_signals_restore(void)
{
	if (!installed)
		return;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	installed = false;
}

bool sc_signals_stop_requested(void)
{
	return stop_sig != 0;
}

int sc_signals_which(void)
{
	return (int)stop_sig;
}

const char *sc_signals_name(int sig)
{
	static char other[32];

	if (sig == SIGINT)
		return "SIGINT";
	if (sig == SIGTERM)
		return "SIGTERM";
	snprintf(other, sizeof(other), "signal %d", sig);
	return other;
}

void sc_signals_request_stop(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
}
