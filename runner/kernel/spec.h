#ifndef SC_KERNEL_SPEC_H
#define SC_KERNEL_SPEC_H
/*
 * A kernel fixture's spec.json (docs/fixtures.md), parsed and checked.
 * Expressions stay strings and are evaluated with sc_expr_eval() against
 * the variable table sc_spec_vars() builds for one size set and one set of
 * tunable values. struct sc_spec owns every string in it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "expr.h"
#include "fixture_ref.h"

#define SC_SPEC_MAX_VARS      8
#define SC_SPEC_MAX_TUNABLES  8
#define SC_SPEC_MAX_DISTS     8
#define SC_SPEC_MAX_SIZES     32
#define SC_SPEC_MAX_TIMED     4   /* timed shapes: "sizes.timing" and "extra_timing_sizes" */

enum sc_param_kind { SC_PARAM_BUFFER, SC_PARAM_SCALAR };
/* SC_DTYPE_E4M3: OCP float8 e4m3 (1 byte), for input buffers only. */
enum sc_dtype { SC_DTYPE_F32, SC_DTYPE_I32, SC_DTYPE_U32, SC_DTYPE_BF16, SC_DTYPE_F16, SC_DTYPE_E4M3 };
/* scratch: device memory for the kernel's own use, poisoned before every
 * launch and never compared (only its guards are checked). */
enum sc_role { SC_ROLE_IN, SC_ROLE_OUT, SC_ROLE_INOUT, SC_ROLE_SCRATCH };
/* The arithmetic rate the roofline holds a fixture's flops to: the GPU's
 * fp32 rate, or its dense bf16/fp16 tensor-core rate. */
enum sc_peak { SC_PEAK_FP32, SC_PEAK_TENSOR };
enum sc_dist_kind { SC_DIST_UNIFORM, SC_DIST_NORMAL, SC_DIST_INT_UNIFORM };
/*
 * "precision": the narrowest floating type a candidate's arithmetic may
 * convert to (docs/kernels.md, "Precision"). A type is narrower when it
 * has fewer mantissa bits or fewer exponent bits: fp32 (23, 8), tf32
 * (10, 8), bf16 (7, 8), fp16 (10, 5), fp8 = e4m3 (3, 4).
 */
enum sc_precision { SC_PRECISION_FP32, SC_PRECISION_TF32, SC_PRECISION_BF16, SC_PRECISION_FP16, SC_PRECISION_FP8 };

struct sc_dist {
	enum sc_dist_kind kind;
	double a, b;  /* lo/hi, or mean/std */
};

struct sc_param {
	char *name;
	enum sc_param_kind kind;
	enum sc_dtype dtype;
	enum sc_role role;            /* buffers */
	char *shape;                  /* buffers: element count expression */
	char *value;                  /* scalars: expression (int) */
	double fvalue;                /* float scalars given as a JSON number */
	bool has_fvalue;
	struct sc_dist init[SC_SPEC_MAX_DISTS];
	size_t ninit;
};

struct sc_tunable {
	char *name;
	int64_t def, min, max, multiple_of;
};

struct sc_size_set {
	int64_t v[SC_SPEC_MAX_VARS];  /* in the order of size_vars */
};

struct sc_timing_opts {
	int warmup, min_reps, max_reps;
	double target_rse, max_seconds;
};

struct sc_spec {
	char *name;
	int version;
	char *description;
	char *entry;
	char *size_vars[SC_SPEC_MAX_VARS];
	size_t nsize_vars;
	struct sc_param params[SC_REF_MAX_PARAMS];
	size_t nparams;
	struct sc_size_set correctness[SC_SPEC_MAX_SIZES];
	size_t ncorrectness;
	struct sc_size_set timing;    /* the production shape: timed[0] */
	/* Every timed shape: "sizes.timing" first, then "extra_timing_sizes"
	 * (a decode-like or odd shape); the speedup is their geometric mean. */
	struct sc_size_set timed[SC_SPEC_MAX_TIMED];
	size_t ntimed;
	char *grid[3], *block[3], *shared_bytes;
	struct sc_tunable tunables[SC_SPEC_MAX_TUNABLES];
	size_t ntunables;
	double atol, rtol;
	/* "terms_rtol": the allowance per unit of the reference's sum of
	 * |terms| (fixture_ref.h), added to atol + rtol*|want|; 0 without. */
	double terms_rtol;
	/* "max_mean_signed_error": the largest mean signed error of an output
	 * buffer, as a fraction of the elements' tolerance (harness.h);
	 * negative without (no check). */
	double max_mean_signed_error;
	char *flops, *bytes;
	enum sc_peak peak;  /* "peak"; default tensor when a buffer is bfloat16/float16 */
	/* "precision"; without it the narrowest float type of the buffers
	 * (fp8 for float8_e4m3, bf16, fp16, else fp32). */
	enum sc_precision precision;
	bool precision_given;
	/* "compensated_tf32": on an fp32 fixture, a compensated split
	 * (3xTF32: x = hi + lo, each TF32) is allowed; plain TF32 is not. */
	bool compensated_tf32;
	/* "repeat_tolerance": how far two runs of the candidate on the same
	 * inputs may differ, as a fraction of each element's tolerance; 0 (the
	 * default): bit for bit. For fixtures where float atomics are natural. */
	double repeat_tolerance;
	struct sc_timing_opts topts;
	size_t ndists;  /* most init entries of any input: distribution count */
};

/* Tunable values for one kernel, in the order of spec->tunables. */
struct sc_tunable_values {
	int64_t v[SC_SPEC_MAX_TUNABLES];
};

/*
 * Parses spec JSON text; file names the source in messages
 * ("fixtures/softmax/spec.json: $.params[1].shape: ..."). On error *out is
 * released. Returns 0, SC_EPARSE or SC_EINVAL.
 */
int sc_spec_parse(struct sc_spec *out, const char *json, size_t len, const char *file);
/* Reads and parses a spec.json file. */
int sc_spec_load(struct sc_spec *out, const char *path);
void sc_spec_release(struct sc_spec *spec);

/*
 * Fills vars (room for SC_SPEC_MAX_VARS + SC_SPEC_MAX_TUNABLES entries)
 * with the size variables of size and the tunable values; returns the
 * count. Names are borrowed from spec.
 */
size_t sc_spec_vars(struct sc_expr_var *vars, const struct sc_spec *spec,
		    const struct sc_size_set *size, const struct sc_tunable_values *tun);
/* Evaluates expr against vars, wrapping errors with what ("launch.grid[0]"). */
int sc_spec_eval(int64_t *out, const char *expr, const char *what,
		 const struct sc_expr_var *vars, size_t nvars);

/*
 * Tunable values for a candidate: the defaults, overridden by source lines
 * "// skillci-tunable NAME=VALUE". An unknown name or a value outside the
 * tunable's limits is SC_EINVAL with the source line number.
 */
int sc_spec_tunables(struct sc_tunable_values *out, const struct sc_spec *spec, const char *source);

/* "float32", "int32", "uint32", "bfloat16", "float16", "float8_e4m3". */
const char *sc_dtype_name(enum sc_dtype t);

/* True when no buffer of spec is bfloat16, float16 or float8_e4m3. */
bool sc_spec_is_fp32(const struct sc_spec *spec);

/* "fp32", "tf32", "bf16", "fp16", "fp8". */
const char *sc_precision_name(enum sc_precision p);
/* True when a buffer of spec that the kernel writes (out, inout) holds
 * floating-point values: integer quantization is then a downcast too. */
bool sc_spec_float_outputs(const struct sc_spec *spec);

#endif
