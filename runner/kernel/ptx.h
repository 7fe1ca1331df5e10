#ifndef SC_KERNEL_PTX_H
#define SC_KERNEL_PTX_H
/*
 * The scan of the PTX NVRTC produced for a candidate: what runs, whatever
 * the source spelled. The text is tokenised as ptxas reads it (// and
 * block comments, string literals, braces, directives, instructions with
 * their modifiers and operands), so a comment, a string or a brace inside
 * inline assembly hides nothing, and every decision comes from
 * instructions and state spaces, never from a name:
 *
 * - "device_state": a write to module state (a .global or .const
 *   variable, at any depth: the only memory that outlives a launch)
 *   through its name or an address derived from it (mov, cvta.global,
 *   cvta.const, generic addressing, pointer arithmetic, a function's
 *   parameter or return value), or its address stored to memory where the
 *   scan cannot follow it. Read-only module data (the math library's
 *   tables, a __constant__ table) is no flag, whatever it is called;
 * - "module_atomic": an atom/red (or another reduction) on module state;
 * - "clock_read": %clock, %clock_hi, %clock64, %globaltimer,
 *   %globaltimer_lo, %globaltimer_hi;
 * - "special_register": a special register that counts launches or
 *   events or carries the driver's environment: %gridid,
 *   %current_graph_exec, %pm0..%pm7, %pm0_64..%pm7_64, %envreg0..31;
 * - "sleep": nanosleep;
 * - "printf" (vprintf), "device_heap" (malloc, free,
 *   __nv_aligned_device_malloc), "device_launch" (the device runtime:
 *   cudaLaunchDevice, cudaGetParameterBuffer, ...), "extern_call" (any
 *   other function the module does not define, __assertfail aside);
 * - "precision_downcast": an instruction that computes in, or converts
 *   to, a floating type narrower than the fixture's precision (fewer
 *   mantissa or exponent bits), an integer quantization of a float
 *   (cvt to an 8/16-bit integer, dp4a/dp2a, integer MMA) on a fixture
 *   with float outputs; TF32 on an fp32 fixture that allows a
 *   compensated split only where every TF32 conversion is half of one
 *   (x -> hi, x - hi -> lo);
 * - "ptx_unreadable": what the scan cannot read as ptxas would (a
 *   preprocessor line, an unterminated comment or string, a byte outside
 *   ASCII, a directive NVRTC never writes inside a function, unbalanced
 *   braces), so that nothing is guessed at.
 *
 * Every flag is an error: none is needed by a kernel that computes its
 * outputs from its inputs.
 */
#include <stdbool.h>
#include <stddef.h>

#include "scan.h"
#include "spec.h"

struct sc_ptx_rules {
	enum sc_precision precision;
	bool compensated_tf32;  /* fp32 only: a 3xTF32 split is allowed */
	bool float_outputs;     /* integer quantization of floats is a downcast */
};

/* The rules of a fixture's spec. */
void sc_ptx_rules_from_spec(struct sc_ptx_rules *out, const struct sc_spec *spec);

/*
 * Scans ptx[0..len) under rules and appends error flags to out (from_ptx,
 * the PTX line), one per kind at its first line. Returns 0 (a PTX text
 * the scan cannot read is a flag, not a failure).
 */
int sc_scan_ptx(struct sc_scan *out, const char *ptx, size_t len, const struct sc_ptx_rules *rules);

/* True for a kind the PTX scan decides (so a source flag of that kind is
 * replaced by what the PTX shows once it exists); inline_asm too. */
bool sc_scan_kind_is_ptx(const char *kind);

#endif
