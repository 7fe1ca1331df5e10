#ifndef SC_STRLIST_H
#define SC_STRLIST_H
/*
 * struct sc_strlist: a growable list of owned strings (models, test
 * files, fixture names). sc_strlist_add() copies; sc_strlist_release()
 * frees every string and the array. A zeroed list is empty.
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_strlist {
	char **items;
	size_t n, alloc;
};
#define SC_STRLIST_INIT { NULL, 0, 0 }

/* Appends a copy of s. */
void sc_strlist_add(struct sc_strlist *l, const char *s);
/* True when s is in l (NULL l is empty). */
bool sc_strlist_has(const struct sc_strlist *l, const char *s);
/* Sorts the strings by strcmp(). */
void sc_strlist_sort(struct sc_strlist *l);
void sc_strlist_release(struct sc_strlist *l);

#endif
