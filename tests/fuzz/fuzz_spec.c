/*
 * Fixture specs (fixtures/NAME/spec.json) through sc_spec_parse(), then
 * what the worker does next with a parsed spec: the tunables of a source
 * with "// skillci-tunable" lines and, for every size set, the launch
 * geometry, shared memory, flops and bytes expressions and each buffer's
 * shape and scalar's value.
 */
#include "fuzz.h"
#include "spec.h"

static void eval_all(const struct sc_spec *spec, const struct sc_size_set *size,
		     const struct sc_tunable_values *tun)
{
	struct sc_expr_var vars[SC_SPEC_MAX_VARS + SC_SPEC_MAX_TUNABLES];
	size_t n = sc_spec_vars(vars, spec, size, tun);
	int64_t v;

	for (int d = 0; d < 3; d++) {
		if (spec->grid[d])
			sc_spec_eval(&v, spec->grid[d], "launch.grid", vars, n);
		if (spec->block[d])
			sc_spec_eval(&v, spec->block[d], "launch.block", vars, n);
	}
	if (spec->shared_bytes)
		sc_spec_eval(&v, spec->shared_bytes, "launch.shared_bytes", vars, n);
	if (spec->flops)
		sc_spec_eval(&v, spec->flops, "flops", vars, n);
	if (spec->bytes)
		sc_spec_eval(&v, spec->bytes, "bytes", vars, n);
	for (size_t i = 0; i < spec->nparams; i++) {
		if (spec->params[i].shape)
			sc_spec_eval(&v, spec->params[i].shape, "shape", vars, n);
		if (spec->params[i].value)
			sc_spec_eval(&v, spec->params[i].value, "value", vars, n);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sc_spec spec;
	struct sc_tunable_values tun;

	memset(&spec, 0, sizeof(spec));
	if (sc_spec_parse(&spec, (const char *)data, size, "fixtures/fuzz/spec.json") < 0)
		return 0;
	if (sc_spec_tunables(&tun, &spec, "// skillci-tunable BLOCK=128\n__global__ void k() {}\n") < 0 &&
	    sc_spec_tunables(&tun, &spec, "") < 0)
		memset(&tun, 0, sizeof(tun));
	for (size_t i = 0; i < spec.ncorrectness; i++)
		eval_all(&spec, &spec.correctness[i], &tun);
	eval_all(&spec, &spec.timing, &tun);
	sc_spec_release(&spec);
	return 0;
}
