#ifndef SC_KERNEL_REFS_H
#define SC_KERNEL_REFS_H
/*
 * The CPU references compiled into the worker: one sc_ref_NAME per
 * fixtures/NAME/reference.c, listed in a table generated at build time
 * (mk/kernel.mk writes $(BUILD)/kernel/refs_table.c).
 */
#include <stddef.h>

#include "fixture_ref.h"

struct sc_ref_entry {
	const char *fixture;  /* folder name, e.g. "bias-gelu" */
	sc_ref_fn fn;
};

extern const struct sc_ref_entry sc_ref_table[];
extern const size_t sc_ref_count;

/* The reference for a fixture name, or NULL. */
sc_ref_fn sc_ref_lookup(const char *fixture);

#endif
