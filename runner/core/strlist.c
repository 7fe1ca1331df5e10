/* A list of owned strings (see strlist.h). */
#include "common.h"
#include "strlist.h"

void sc_strlist_add(struct sc_strlist *l, const char *s)
{
	SC_GROW(l->items, l->alloc, l->n + 1);
	l->items[l->n++] = sc_xstrdup(s);
}

bool sc_strlist_has(const struct sc_strlist *l, const char *s)
{
	for (size_t i = 0; l && i < l->n; i++)
		if (!strcmp(l->items[i], s))
			return true;
	return false;
}

void sc_strlist_sort(struct sc_strlist *l)
{
	if (l->n > 1)
		qsort(l->items, l->n, sizeof(*l->items), sc_strcmp_qsort);
}

void sc_strlist_release(struct sc_strlist *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->items[i]);
	free(l->items);
	l->items = NULL;
	l->n = l->alloc = 0;
}
