#ifndef SC_TEST_STATES_H
#define SC_TEST_STATES_H
/*
 * Tests that build results by hand name states as the JSON does: these
 * parse a name into its enum (results_states.c) and abort on a name the
 * table does not hold, so a typo fails the test rather than reading as
 * the first value.
 */
#include <stdio.h>
#include <stdlib.h>

#include "results/results.h"

#define SC_TEST_STATE(type, fn)                                              \
	static inline enum type t_##fn(const char *name)                     \
	{                                                                    \
		enum type v;                                                 \
		if (!sc_##fn##_parse(name, &v)) {                            \
			fprintf(stderr, "no " #fn " named '%s'\n", name ? name : "(null)"); \
			abort();                                             \
		}                                                            \
		return v;                                                    \
	}
SC_TEST_STATE(sc_variant, variant)
SC_TEST_STATE(sc_unit_verdict, unit_verdict)
SC_TEST_STATE(sc_unit_kind, unit_kind)
SC_TEST_STATE(sc_skill_status, skill_status)
SC_TEST_STATE(sc_check_kind, check_kind)
SC_TEST_STATE(sc_check_status, check_status)
SC_TEST_STATE(sc_kernel_verdict, kernel_verdict)
SC_TEST_STATE(sc_finding_state, finding_state)
SC_TEST_STATE(sc_severity, severity)
SC_TEST_STATE(sc_decision, decision)
SC_TEST_STATE(sc_lift_decision, lift_decision)
SC_TEST_STATE(sc_run_kind, run_kind)
#undef SC_TEST_STATE

#endif
