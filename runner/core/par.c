/* Work split over the machine's cores (par.h). */
#include <pthread.h>
#include <stdbool.h>
#include <unistd.h>

#include "par.h"

static size_t width_set;  /* 0: the machine's */

size_t sc_par_width(void)
{
	long n;

	if (width_set)
		return width_set;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > SC_PAR_MAX ? SC_PAR_MAX : (size_t)n;
}

void sc_par_set_width(size_t parts)
{
	width_set = parts > SC_PAR_MAX ? SC_PAR_MAX : parts;
}

size_t sc_par_parts(size_t n, size_t min)
{
	size_t parts = min ? n / min : n, width = sc_par_width();

	return parts < 1 ? 1 : parts > width ? width : parts;
}

struct part {
	void (*fn)(void *arg, size_t p, size_t lo, size_t hi);
	void *arg;
	size_t p, lo, hi;
	pthread_t th;
	bool started;
};

static void *part_main(void *v)
{
	struct part *t = v;

	t->fn(t->arg, t->p, t->lo, t->hi);
	return NULL;
}

void sc_par_for(size_t n, size_t parts, void (*fn)(void *arg, size_t p, size_t lo, size_t hi),
		void *arg)
{
	struct part t[SC_PAR_MAX];

	if (parts > SC_PAR_MAX)
		parts = SC_PAR_MAX;
	if (parts > n)
		parts = n;
	if (parts <= 1) {
		if (n)
			fn(arg, 0, 0, n);
		return;
	}
	for (size_t p = 0; p < parts; p++) {
		t[p].fn = fn;
		t[p].arg = arg;
		t[p].p = p;
		t[p].lo = n * p / parts;
		t[p].hi = n * (p + 1) / parts;
		t[p].started = p > 0 && pthread_create(&t[p].th, NULL, part_main, &t[p]) == 0;
	}
	part_main(&t[0]);
	for (size_t p = 1; p < parts; p++)
		if (!t[p].started)
			part_main(&t[p]);
	for (size_t p = 1; p < parts; p++)
		if (t[p].started)
			pthread_join(t[p].th, NULL);
}
