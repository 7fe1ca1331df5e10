/* The thread pool of workpool.h: two FIFOs (urgent first) under a mutex, a
 * condition to wake a thread. */
#include "common.h"
#include "eval/workpool.h"

#include <pthread.h>

struct job {
	struct job *next;
	void (*fn)(void *payload);
	void *payload;
};

struct sc_workpool {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	struct job *head, *tail;
	struct job *uhead, *utail;  /* urgent: taken before the others */
	size_t busy;         /* queued + running */
	bool closing;
	pthread_t *threads;
	int nthreads;
};

static void *thread_main(void *arg)
{
	struct sc_workpool *p = arg;

	for (;;) {
		struct job *j;

		pthread_mutex_lock(&p->lock);
		while (!p->head && !p->uhead && !p->closing)
			pthread_cond_wait(&p->wake, &p->lock);
		if (p->uhead) {
			j = p->uhead;
			p->uhead = j->next;
			if (!p->uhead)
				p->utail = NULL;
		} else if (p->head) {
			j = p->head;
			p->head = j->next;
			if (!p->head)
				p->tail = NULL;
		} else {
			pthread_mutex_unlock(&p->lock);
			return NULL;
		}
		pthread_mutex_unlock(&p->lock);
		j->fn(j->payload);
		free(j);
		pthread_mutex_lock(&p->lock);
		p->busy--;
		pthread_mutex_unlock(&p->lock);
	}
}

int sc_workpool_new(struct sc_workpool **out, int nthreads)
{
	struct sc_workpool *p = sc_xcalloc(1, sizeof(*p));

	if (nthreads < 1)
		nthreads = 1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->wake, NULL);
	p->threads = sc_xcalloc((size_t)nthreads, sizeof(*p->threads));
	for (int i = 0; i < nthreads; i++) {
		if (pthread_create(&p->threads[i], NULL, thread_main, p) != 0) {
			if (i == 0) {
				pthread_cond_destroy(&p->wake);
				pthread_mutex_destroy(&p->lock);
				free(p->threads);
				free(p);
				return sc_error_set(SC_EIO, "cannot start a thread for kernel checks: %s",
						    strerror(errno));
			}
			break;  /* fewer threads than asked: still a pool */
		}
		p->nthreads++;
	}
	*out = p;
	return 0;
}

static void push(struct sc_workpool *p, void (*fn)(void *payload), void *payload, bool urgent)
{
	struct job *j = sc_xcalloc(1, sizeof(*j));
	struct job **head = urgent ? &p->uhead : &p->head, **tail = urgent ? &p->utail : &p->tail;

	j->fn = fn;
	j->payload = payload;
	pthread_mutex_lock(&p->lock);
	if (*tail)
		(*tail)->next = j;
	else
		*head = j;
	*tail = j;
	p->busy++;
	pthread_cond_signal(&p->wake);
	pthread_mutex_unlock(&p->lock);
}

void sc_workpool_push(struct sc_workpool *p, void (*fn)(void *payload), void *payload)
{
	push(p, fn, payload, false);
}

void sc_workpool_free(struct sc_workpool *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->closing = true;
	pthread_cond_broadcast(&p->wake);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->nthreads; i++)
		pthread_join(p->threads[i], NULL);
	pthread_cond_destroy(&p->wake);
	pthread_mutex_destroy(&p->lock);
	free(p->threads);
	free(p);
}
