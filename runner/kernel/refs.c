/* Lookup in the generated table of CPU references. */
#include "common.h"
#include "refs.h"

sc_ref_fn sc_ref_lookup(const char *fixture)
{
	for (size_t i = 0; i < sc_ref_count; i++)
		if (!strcmp(sc_ref_table[i].fixture, fixture))
			return sc_ref_table[i].fn;
	return NULL;
}
