#ifndef SC_EXTRACT_H
#define SC_EXTRACT_H
/*
 * The kernel source in a model's answer. A Markdown answer is parsed with
 * cmark-gfm (markdown.h) and the fenced cuda/cu/cpp/c++ block that defines
 * the entry point is taken (untagged blocks are a fallback); a bare .cu file
 * is taken as it is.
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_buf;

/*
 * Sets out to the CUDA source for entry. bare: the text is a .cu file, not
 * Markdown. *line_out (may be NULL) gets the line of the chosen fence (0
 * for a bare file). SC_ENOTFOUND with a message naming the entry when no
 * block defines it.
 */
int sc_extract_kernel(struct sc_buf *out, const char *answer, size_t len, const char *entry, bool bare,
		      size_t *line_out);

/* True when src defines `entry` as a __global__ function (a word match on
 * "__global__" ... entry "(" in the same declaration). */
bool sc_extract_defines(const char *src, size_t len, const char *entry);

#endif
