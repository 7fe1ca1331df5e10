/*
 * The PTX scan (runner/kernel/ptx.c) on arbitrary text: the tokeniser,
 * the parser of functions, scopes and instructions, the taint of module
 * state and the precision rules. The first byte picks the rules (the
 * fixture's precision, whether a compensated TF32 split is allowed,
 * whether the outputs are floats); the rest is the PTX, not
 * NUL-terminated, as a length-bounded text may come. Every flag must be
 * one of the kinds the scan knows, from the PTX, with a line and a text
 * that fit their fields.
 */
#include "fuzz.h"
#include "ptx.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sc_scan s;
	struct sc_ptx_rules r;

	if (size < 1)
		return 0;
	r.precision = (enum sc_precision)(data[0] % 5);
	r.compensated_tf32 = (data[0] & 8) != 0;
	r.float_outputs = (data[0] & 16) != 0;
	memset(&s, 0, sizeof(s));
	if (sc_scan_ptx(&s, (const char *)data + 1, size - 1, &r) != 0)
		abort();
	if (s.nflags > SC_SCAN_MAX_FLAGS)
		abort();
	for (size_t i = 0; i < s.nflags; i++) {
		const struct sc_scan_flag *f = &s.flags[i];
		if (!f->kind || !sc_scan_kind_is_ptx(f->kind) || !f->from_ptx || f->severity != SC_SCAN_ERROR ||
		    f->line < 1 || strnlen(f->text, sizeof(f->text)) >= sizeof(f->text))
			abort();
	}
	return 0;
}
