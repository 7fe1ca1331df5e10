/*
 * Answer-to-kernel extraction through sc_extract_kernel(): a model's
 * Markdown answer (cmark-gfm fences) or a bare .cu file. The first byte
 * picks bare or Markdown and the entry point's name; whatever is extracted
 * must define that entry (the function's promise).
 */
#include "fuzz.h"
#include "kernelrun/extract.h"

static const char *const entries[] = { "softmax", "k", "gemm", "reduce_sum" };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sc_buf out = SC_BUF_INIT;
	const char *entry = entries[0];
	bool bare = false;
	size_t line = 0;

	if (size > 0) {
		bare = data[0] & 1;
		entry = entries[(data[0] >> 1) & 3];
		data++, size--;
	}
	if (sc_extract_kernel(&out, (const char *)data, size, entry, bare, &line) == 0 && !bare &&
	    !sc_extract_defines(out.ptr, out.len, entry)) {
		/* Markdown: a block was chosen because it defines the entry. */
		sc_die("fuzz: extracted block does not define '%s'", entry);
	}
	sc_extract_defines((const char *)data, size, entry);
	sc_buf_release(&out);
	return 0;
}
