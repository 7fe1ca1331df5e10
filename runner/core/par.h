#ifndef SC_PAR_H
#define SC_PAR_H
/*
 * Work split over the machine's cores: a range of independent items cut
 * into contiguous parts, each part run by its own thread (the first by
 * the caller), all joined before sc_par_for() returns. A caller keeps one
 * output per part and puts the parts together in order, so what it makes
 * does not depend on how many parts there were (the reports are the same
 * bytes with one part or eight: tests compare them).
 */
#include <stddef.h>

/* Parts to cut work into: the online cores, at most SC_PAR_MAX, or what
 * sc_par_set_width() set. */
#define SC_PAR_MAX 8
size_t sc_par_width(void);
/* Sets the width (tests: 1 runs everything on the caller's thread); 0
 * goes back to the cores'. */
void sc_par_set_width(size_t parts);
/* Parts for n items of which a part should have at least min (fewer cost
 * more to start than they save): n / min, at least 1, at most the width. */
size_t sc_par_parts(size_t n, size_t min);

/*
 * Calls fn(arg, p, lo, hi) for p in [0, parts), [lo, hi) being part p of
 * [0, n) (contiguous, in order, sizes differing by at most one; parts is
 * cut to n). Part 0 runs on the calling thread; a part whose thread
 * cannot be started runs there too, after it. fn must only read what the
 * parts share and write what part p owns.
 */
void sc_par_for(size_t n, size_t parts, void (*fn)(void *arg, size_t p, size_t lo, size_t hi),
		void *arg);

#endif
