#ifndef SC_WORKPOOL_H
#define SC_WORKPOOL_H
/*
 * A small pool of threads that run blocking jobs (kernel checks: each
 * starts a sandboxed worker process and waits for it; an agent unit's
 * jail, tools and verifiers) beside the thread that drives the model
 * requests. Jobs run in the order pushed (urgent ones first), at most
 * one per thread; a job hands its outcome back itself (the evaluation
 * posts it to the request loop, provider.h: sc_client_post).
 *
 * Ownership: the pool owns its threads; payloads are the caller's.
 */
#include <stddef.h>

struct sc_workpool;

/* Starts nthreads threads (at least 1). */
int sc_workpool_new(struct sc_workpool **out, int nthreads);
/* Queues fn(payload) to run on one of the threads. From the owning thread. */
void sc_workpool_push(struct sc_workpool *pool, void (*fn)(void *payload), void *payload);
/* Runs what is queued to the end, then stops and joins the threads. NULL is a no-op. */
void sc_workpool_free(struct sc_workpool *pool);

#endif
