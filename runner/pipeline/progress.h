#ifndef SC_PROGRESS_H
#define SC_PROGRESS_H
/*
 * Progress of a long run on stderr: on a terminal, one live line redrawn
 * in place (units done/total, units in flight, kernel workers busy, cache
 * hits, reused units, elapsed time, ETA); elsewhere (CI logs), a plain
 * line at most every interval and one at the end, never an escape
 * sequence. Safe to update from several threads.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct sc_buf;

struct sc_progress {
	FILE *out;            /* borrowed (stderr) */
	bool tty;             /* live line */
	int64_t interval_ms;  /* plain lines: at most one per interval */
	int64_t t0_ms, last_ms;
	size_t total, done, in_flight, workers, reused, cache_hits, errors;  /* workers: kernel checks */
	bool drawn;           /* a live line is on screen */
	pthread_mutex_t lock;
};

/* Sets up p for total units; tty chooses the live line. */
void sc_progress_init(struct sc_progress *p, FILE *out, bool tty, size_t total);
void sc_progress_release(struct sc_progress *p);

/* What is going on now: units started and not decided, kernel checks
 * queued or running (each one worker process), answers from the cache so
 * far. Sets the counters (they are not added up). */
void sc_progress_activity(struct sc_progress *p, size_t in_flight, size_t kernel_workers,
			  size_t cache_hits);
/* One unit decided; reused from the store, an error. */
void sc_progress_unit(struct sc_progress *p, bool reused, bool error);
/* Prints the closing line (plain) or clears the live line (TTY). */
void sc_progress_finish(struct sc_progress *p);

/*
 * Appends the line for the given counters at now_ms (no newline, no
 * escapes): "[12/40] 30% | 4 in flight | 1 kernel worker | 5 cache hits |
 * 7 reused | 0:12 elapsed | ETA 0:28". The ETA is left out until a unit
 * was evaluated (reused units say nothing about speed).
 */
void sc_progress_format(struct sc_buf *out, const struct sc_progress *p, int64_t now_ms);

#endif
