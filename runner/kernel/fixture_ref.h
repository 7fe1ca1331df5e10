#ifndef SC_FIXTURE_REF_H
#define SC_FIXTURE_REF_H
/*
 * The interface between a fixture's CPU reference (fixtures/NAME/reference.c)
 * and the kernel harness. Each reference.c includes this header and defines
 *
 *     void sc_ref_NAME(const struct sc_ref_args *a);
 *
 * (NAME is the fixture folder name with '-' turned into '_'), which computes
 * every out/inout buffer from the in buffers for the problem size given by
 * the scalars, in plain C on the host, in double precision where that is
 * cheap. Parameters are indexed in the order of the spec's "params" list:
 * a->buf[k] is the k-th parameter when it is a buffer (NULL otherwise),
 * a->i[k] / a->f[k] its value when it is an integer / float scalar.
 * a->size_* hold the named sizes of the current size set, in the order of
 * the spec's "size_vars" list, for references that need them.
 *
 * a->terms[k], where not NULL (an out/inout buffer of a spec whose
 * tolerance has "terms_rtol"), has room for one float per element of
 * buffer k: the reference writes there the sum of the magnitudes of the
 * terms that make up each output (for y = a*b + c, |a*b| + |c|), from
 * which the harness derives an allowance for cancellation. It is NULL
 * when the harness needs no terms (the timing baseline of the CPU
 * emulation, specs without terms_rtol); a reference checks before
 * writing.
 */
#include <stddef.h>
#include <stdint.h>

#define SC_REF_MAX_PARAMS 16

struct sc_ref_args {
	void *buf[SC_REF_MAX_PARAMS];
	int64_t i[SC_REF_MAX_PARAMS];
	double f[SC_REF_MAX_PARAMS];
	int64_t size[SC_REF_MAX_PARAMS];
	size_t nparams;
	float *terms[SC_REF_MAX_PARAMS];
};

typedef void (*sc_ref_fn)(const struct sc_ref_args *a);

#endif
