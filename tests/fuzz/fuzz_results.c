/*
 * Results JSON (schema skillci.results/1) through sc_results_parse(), then
 * the writer: a file that parses is sorted and formatted, and what was
 * formatted must parse again (reporters and `merge` read what `eval`
 * wrote).
 */
#include "fuzz.h"
#include "results/results.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sc_results r, again;
	struct sc_buf text = SC_BUF_INIT;

	sc_results_init(&r);
	sc_results_init(&again);
	if (sc_results_parse(&r, (const char *)data, size, "fuzz.json") == 0) {
		sc_results_sort(&r);
		sc_results_format(&text, &r);
		if (sc_results_parse(&again, text.ptr, text.len, "formatted.json") < 0)
			sc_die("fuzz: formatted results do not parse: %s", sc_error_last());
	}
	sc_buf_release(&text);
	sc_results_release(&again);
	sc_results_release(&r);
	return 0;
}
