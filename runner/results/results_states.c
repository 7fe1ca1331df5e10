/*
 * The names of the states a results file holds (results.h): one table per
 * enum, in value order, and the only place each name is spelled. Reading
 * (results_read.c, the store) parses a name with sc_<enum>_parse(),
 * writing prints sc_<enum>_name(); everything else holds the enum.
 */
#include "common.h"
#include "results/results.h"

/* A _NONE value has no name (NULL): written as null, never parsed. */
#define STATES(prefix, type, ...)                                                   \
	static const char *const prefix##_names[] = { __VA_ARGS__ };                \
	const char *prefix##_name(type v)                                           \
	{                                                                            \
		return (size_t)v < SC_ARRAY_SIZE(prefix##_names) ? prefix##_names[v] \
								  : NULL;            \
	}                                                                            \
	bool prefix##_parse(const char *name, type *out)                            \
	{                                                                            \
		for (size_t i = 0; name && i < SC_ARRAY_SIZE(prefix##_names); i++)  \
			if (prefix##_names[i] && !strcmp(prefix##_names[i], name)) { \
				*out = (type)i;                                      \
				return true;                                         \
			}                                                            \
		return false;                                                        \
	}

STATES(sc_verdict, enum sc_verdict, "pass", "fail", "unverified", "error")
STATES(sc_unit_verdict, enum sc_unit_verdict, "pass", "fail", "error", "skipped", "unverified")
STATES(sc_variant, enum sc_variant, "baseline", "base", "head", "head_tests")
STATES(sc_unit_kind, enum sc_unit_kind, NULL, "text", "kernel", "agent", "trigger")
STATES(sc_trigger, enum sc_trigger, NULL, "should_trigger", "should_not_trigger")
STATES(sc_skill_status, enum sc_skill_status, NULL, "added", "modified", "deleted", "renamed",
       "typechange", "unchanged")
STATES(sc_finding_state, enum sc_finding_state, "new", "existing", "fixed")
STATES(sc_severity, enum sc_severity, "error", "warning")
STATES(sc_compile, enum sc_compile, NULL, "ok", "failed")
STATES(sc_kernel_verdict, enum sc_kernel_verdict, NULL, "passed", "compiled", "compile_failed",
       "mismatch", "timeout", "crashed", "refused", "no_code")
STATES(sc_check_kind, enum sc_check_kind, "deleted", "validity", "tests", "pass_rate", "lift",
       "discrimination", "kernel", "tokens", "speedup", "judge", "errors", "run",
       "verdict_unverified")
STATES(sc_check_status, enum sc_check_status, "passed", "failed", "unverified", "error", "skipped")
STATES(sc_decision, enum sc_decision, NULL, "regression", "ruled_out", "unverified")
STATES(sc_lift_decision, enum sc_lift_decision, "lift", "no_lift", "unverified")
STATES(sc_lift_stop, enum sc_lift_stop, NULL, "shown", "ruled_out", "end", "max_runs", "stopped")
STATES(sc_run_kind, enum sc_run_kind, "run", "eval", "generate")
STATES(sc_judged, enum sc_judged, NULL, "merge", "head")

const char *const *sc_state_table(const char *name, size_t *n)
{
#define T(x) { #x, sc_##x##_names, SC_ARRAY_SIZE(sc_##x##_names) }
	static const struct {
		const char *name;
		const char *const *names;
		size_t n;
	} tables[] = {
		T(verdict), T(unit_verdict), T(variant), T(unit_kind), T(trigger), T(skill_status),
		T(finding_state), T(severity), T(compile), T(kernel_verdict), T(check_kind),
		T(check_status), T(decision), T(lift_decision), T(lift_stop), T(run_kind), T(judged),
	};
#undef T
	for (size_t i = 0; name && i < SC_ARRAY_SIZE(tables); i++)
		if (!strcmp(tables[i].name, name)) {
			*n = tables[i].n;
			return tables[i].names;
		}
	*n = 0;
	return NULL;
}

void sc_state_expected(struct sc_buf *out, const char *const *names, size_t n)
{
	size_t named = 0, left = 0;

	for (size_t i = 0; i < n; i++)
		left += names[i] != NULL;
	for (size_t i = 0; i < n; i++) {
		if (!names[i])
			continue;
		if (named)
			sc_buf_puts(out, named + 1 == left ? " or " : ", ");
		sc_buf_puts(out, names[i]);
		named++;
	}
}
