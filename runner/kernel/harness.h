#ifndef SC_KERNEL_HARNESS_H
#define SC_KERNEL_HARNESS_H
/*
 * The kernel harness: seeded inputs, launch geometry, correctness checks
 * against the CPU reference (NaN poison, guard canaries, input checksums,
 * near-constant rejection) and interleaved timing of a candidate against
 * the baseline (warm-up, L2 flush, fresh inputs generated on the device
 * for every timed launch and outputs poisoned before it, bursts for short
 * kernels decided from the baseline alone with buffers of its own for
 * each launch, events around the launch alone, a host-clock cross-check,
 * stop at a target relative standard error, median and IQR, speedup,
 * roofline ceilings, a secret subset of timed launches checked in full
 * against the baseline, and a re-validation on fresh state). It speaks only to the device layer
 * (device.h), never to CUDA or NVRTC. Pure: no printing.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "device.h"
#include "spec.h"

#define SC_HARNESS_VERSION "2"
#define SC_HARNESS_GUARD_BYTES 4096         /* canary bytes on each side of a buffer */
#define SC_HARNESS_POISON_F32 0x7fc0dead    /* a quiet NaN written over outputs */
#define SC_HARNESS_POISON_INT 0xdeadbeefu
#define SC_HARNESS_CANARY 0xcafef00du
#define SC_HARNESS_CHECK_EVERY 2            /* single launches: one in this many checked in full (drawn after it ran) */
#define SC_HARNESS_BURST_CHECKS 4           /* bursts: launches of each burst checked in full (drawn after it ran) */
#define SC_HARNESS_BURST_BELOW_MS 0.03      /* shorter kernels are timed in bursts */
#define SC_HARNESS_BURST_TARGET_MS 0.5      /* a burst lasts about this long */
#define SC_HARNESS_BURST_MAX 1000           /* launches in one burst at most (each with its own buffers) */
/* What the determinism check's second run finds in outputs and scratch
 * instead of the poison: finite values (float32 3.4e38, bfloat16 2.6e36
 * or float16 65504, an integer pattern), so a kernel that reads an
 * output or scratch before writing it gets another result. */
#define SC_HARNESS_ALT_F32 0x7f7fdeadu
#define SC_HARNESS_ALT_HALF 0x7bffu
#define SC_HARNESS_ALT_INT 0x13572468u
/* The CPU reference judges the re-validation at a timed shape (every
 * rule, terms_rtol per element) when the spec's flops there are at most
 * this; above, the baseline's output is the answer. */
#define SC_HARNESS_REF_MAX_FLOPS 5e8
/* The constant-output rule judges a timed launch's output buffer of at
 * least this many elements (a few outputs of fresh random inputs can
 * land within the tolerance of their mean by chance). */
#define SC_HARNESS_CONSTANT_MIN 16
/* The determinism check runs at the largest correctness size whose size
 * variables multiply to at most this. */
#define SC_HARNESS_REPEAT_MAX_WORK 16777216.0

/* A loaded kernel and the tunable values it is launched with. */
struct sc_kernel_handle {
	uint64_t fn;
	struct sc_tunable_values tun;
	/* The module it came from (borrowed), so a fresh copy can be loaded
	 * for the re-validation after timing; image NULL: no reload. */
	const void *image;
	size_t image_len;
	const char *entry;
};

/* Where a comparison went worst. */
struct sc_mismatch {
	bool valid;
	size_t size_index;   /* in spec->correctness; SIZE_MAX for the timing size */
	uint64_t seed;
	size_t dist;
	size_t param;
	size_t index;        /* element */
	double got, want, err, limit;
	size_t nbad;         /* elements out of tolerance in that buffer */
	size_t nelem;
};

/* Outcome of comparing one buffer. */
struct sc_compare {
	size_t nbad, nstale;
	size_t worst_index;
	double worst_got, worst_want, worst_err, worst_limit;
	double worst_ratio;  /* err / limit; +inf for NaN/Inf where finite expected */
	bool constant_passes;  /* a constant (the reference mean) would also pass */
	/* The mean signed error, in units of each element's tolerance, over
	 * the finite expected elements with a nonzero tolerance that got
	 * finite values: e_i = (got_i - want_i) / limit_i. bias is the larger
	 * in excess of its noise of mean(e_i) (a bias downward when negative)
	 * and mean(e_i * sign(want_i)) (toward zero when negative),
	 * bias_toward_zero says which; bias_noise is 4 standard errors of
	 * that mean (4 * sd / sqrt(n)), so that a bias counts only where it
	 * stands out of the rounding noise of n elements. bias_n is n. */
	double bias, bias_noise;
	bool bias_toward_zero;
	size_t bias_n;
};

/*
 * Compares n elements of got with want: floats pass when |got-want| <=
 * atol + rtol*|want|, a NaN/Inf in want needs the same in got, a NaN/Inf in
 * got where want is finite fails; integers must be equal. Elements still
 * holding the poison pattern count as stale. got holds elements of type t;
 * want holds float32 for the float types (a bfloat16/float16 result is
 * widened to float32 and compared with the float32 reference), t otherwise.
 */
void sc_harness_compare(struct sc_compare *out, enum sc_dtype t, const void *got, const void *want,
			size_t n, double atol, double rtol);
/*
 * The same, each float element's tolerance widened by terms_rtol *
 * terms[i] (the reference's sum of the magnitudes of the terms of element
 * i, fixture_ref.h) where terms is not NULL.
 */
void sc_harness_compare_terms(struct sc_compare *out, enum sc_dtype t, const void *got, const void *want,
			      const float *terms, size_t n, double atol, double rtol, double terms_rtol);
/*
 * Whether c's mean signed error breaks a spec's max_mean_signed_error
 * (negative: no check): |bias| > max + bias_noise, over at least 16
 * elements.
 */
bool sc_harness_biased(const struct sc_compare *c, double max_mean_signed_error);

/* Fills n elements of type t with distribution dist from a generator seeded
 * by seed; bfloat16/float16 values are drawn as float32, then rounded. */
void sc_harness_fill(void *dst, enum sc_dtype t, size_t n, const struct sc_dist *dist, uint64_t seed);

/* Order statistics and spread of n samples (x is sorted in place). */
struct sc_timing_stats {
	size_t n;
	double median, q1, q3, iqr, mean, sd, rse, min, max;
};
void sc_timing_stats_compute(struct sc_timing_stats *out, double *x, size_t n);

enum sc_check_reason {
	SC_REASON_NONE = 0,
	SC_REASON_MISMATCH,        /* outside tolerance */
	SC_REASON_STALE,           /* output left unwritten (NaN poison survived) */
	SC_REASON_INPUT_MODIFIED,  /* input checksum changed */
	SC_REASON_OUT_OF_BOUNDS,   /* a guard canary was overwritten */
	SC_REASON_CONSTANT,        /* output near-constant: a constant would pass */
	SC_REASON_LAUNCH,          /* launch refused or kernel faulted */
	SC_REASON_TIMEOUT,         /* kernel ran past its time limit */
	SC_REASON_CONFIG,          /* launch geometry invalid */
	SC_REASON_NONDETERMINISTIC, /* two runs on the same inputs disagree */
};
/* Stable short name of a reason ("mismatch", "stale_output", ...). */
const char *sc_check_reason_name(enum sc_check_reason r);

struct sc_check_opts {
	int nseeds;           /* >= 5 for a verdict */
	uint64_t seed_base;
	int timeout_ms;       /* per launch */
	size_t max_sizes;     /* check only the first max_sizes sets; 0 = all */
	bool secret_seeds;    /* seeds are never shown: messages say "a secret seed", worst.seed is 0 */
	/* The determinism check: at one correctness size (the largest under
	 * SC_HARNESS_REPEAT_MAX_WORK), the first distribution and seed, the
	 * kernel runs a second time on the same inputs with outputs and
	 * scratch holding other contents (SC_HARNESS_ALT_*); both results
	 * must agree bit for bit, or within the spec's repeat_tolerance. */
	bool repeat;
};

struct sc_check_result {
	bool ok;
	enum sc_check_reason reason;
	bool device_lost;     /* a fault or timeout: the device cannot be used further */
	size_t launches;
	double max_ratio;     /* worst err/limit over all checks */
	struct sc_mismatch worst;
	char message[1024];   /* for a person: what failed, where, values */
};

/*
 * Runs k on every correctness size, distribution and seed and compares with
 * ref. Returns 0 when the check ran (out->ok says whether it passed), or a
 * negative code for an infrastructure failure outside the candidate.
 */
int sc_harness_check(struct sc_check_result *out, struct sc_device *d, const struct sc_spec *spec,
		     const struct sc_kernel_handle *k, sc_ref_fn ref, const struct sc_check_opts *opts);

/* The correctness size the determinism check runs at (an index into
 * spec->correctness). */
size_t sc_harness_repeat_size(const struct sc_spec *spec);

struct sc_timing_opts_run {
	int timeout_ms;
	int check_every;      /* single launches: one in this many checked in full; 0 = SC_HARNESS_CHECK_EVERY */
	int64_t mem_budget;   /* bytes the timing buffers may use; 0 = half the device */
	uint64_t secret;      /* seeds of the inputs; 0 = drawn here. Given (a test), it also draws which
			       * launches are checked; else those draws come from the system after each launch */
	double burst_below_ms;   /* 0: SC_HARNESS_BURST_BELOW_MS */
	double burst_target_ms;  /* 0: SC_HARNESS_BURST_TARGET_MS */
	const struct sc_size_set *shape;  /* the shape timed; NULL: spec->timing */
	/* The CPU reference: the re-validation at the timed shape is judged
	 * against it with every rule when the spec's flops there are at most
	 * SC_HARNESS_REF_MAX_FLOPS; NULL (or above): against the baseline. */
	sc_ref_fn ref;
};

/* One input distribution's times at a timed shape. */
struct sc_timing_dist {
	double cand_ms, base_ms;  /* medians */
	double speedup;
};

struct sc_timing_side {
	struct sc_timing_stats ev;    /* the kernel: event times per launch, ms */
	struct sc_timing_stats host;  /* host clock around the whole repetition, ms */
	struct sc_timing_stats span;  /* events around the same span (flush included), ms */
	int burst;             /* launches per timed interval (1: one flushed launch) */
	bool launch_bound;     /* bursts ran as fast as they were issued */
};

struct sc_timing_result {
	bool ok;               /* ran, and every check during and after it passed */
	enum sc_check_reason reason;
	bool device_lost;
	struct sc_timing_side cand, base;
	size_t reps;
	bool converged;        /* both under target RSE */
	bool burst;            /* timed in bursts (warm L2) instead of single flushed launches */
	/* Each repetition times every input distribution (a launch, or a
	 * burst, of each); cand and base are the statistics of the
	 * distribution on which the candidate is slowest against the
	 * baseline (worst_dist), speedup is its, and dist[] has each. */
	size_t ndists, worst_dist;
	struct sc_timing_dist dist[SC_SPEC_MAX_DISTS];
	struct sc_size_set shape;  /* the shape timed */
	double speedup;        /* base median / cand median (of worst_dist) */
	double flops, bytes;
	double cand_gbps, cand_gflops, pct_peak;  /* pct of the fp32 roofline (of the tensor-core one for a "tensor" spec) */
	double ceiling;        /* the most speedup the roofline allows (DRAM, tensor-core peak) */
	double ceiling_fp32;   /* the same with fp32 CUDA cores as the compute peak */
	bool beyond_fp32;      /* above ceiling_fp32, within ceiling: a note, not a failure */
	bool suspect;          /* above the ceiling, or events disagree with the host clock */
	char suspect_why[256];
	char note[256];        /* beyond_fp32 or launch-bound, for a person */
	size_t spot_checks;    /* timed launches checked in full against the baseline */
	size_t fresh_inputs;   /* input buffers regenerated on the device for timed launches */
	bool fresh_addresses;  /* the fresh re-validation ran at addresses the timing never used */
	bool reference_judged; /* ... and was judged against the CPU reference with every rule */
	bool base_fault;       /* a launch failure (device_lost) was the baseline's, not the candidate's */
	char message[1024];
};

/*
 * Times cand (on d) against base (on bd, a sibling context: the candidate
 * cannot reach the baseline's buffers; bd may be d) on one timed shape
 * (opts->shape), interleaved. Every repetition times every input
 * distribution. Every timed launch (warm-up included) reads inputs
 * generated on its device from a secret seed for that launch alone and
 * finds its outputs poisoned; in burst mode each launch of a burst has
 * buffers of its own. After each distribution's launches a draw decides
 * which of them are checked in full (guards, inputs, outputs against the
 * baseline's on the same inputs, with the element tolerance, the bias
 * bound and the constant-output rule); the last repetition is checked
 * whole; then a re-validation on fresh state (cand reloaded from its
 * image, new buffers, a secret seed), judged against the CPU reference
 * with every rule where opts->ref is given and affordable. Returns 0 when
 * the timing ran (out->ok says whether every check passed), negative for
 * infrastructure failures.
 */
int sc_harness_time(struct sc_timing_result *out, struct sc_device *d, struct sc_device *bd,
		    const struct sc_spec *spec, const struct sc_kernel_handle *cand,
		    const struct sc_kernel_handle *base, const struct sc_timing_opts_run *opts);

/* Launch geometry of spec for size and tunables; SC_EINVAL when outside the device limits. */
int sc_harness_geometry(unsigned grid[3], unsigned block[3], unsigned *shared, const struct sc_spec *spec,
			const struct sc_size_set *size, const struct sc_tunable_values *tun);

#endif
