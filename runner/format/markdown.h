#ifndef SC_MARKDOWN_H
#define SC_MARKDOWN_H
/*
 * The cmark-gfm wrapper: walks Markdown as a parsed tree (never with
 * regexes). Lines reported are 1-based in the original file: line_offset is
 * added (a SKILL.md body starts below its front matter).
 */
#include <stddef.h>

struct sc_buf;

/* Called for each link and image destination. Return <0 to stop. */
typedef int (*sc_markdown_link_cb)(const char *url, size_t line, int is_image, void *payload);
int sc_markdown_links(const char *md, size_t len, size_t line_offset,
		      sc_markdown_link_cb cb, void *payload);

/* Called for each fenced or indented code block: info string ("" when
 * none, e.g. "cuda"), the code, and the line of the opening fence. */
typedef int (*sc_markdown_code_cb)(const char *info, const char *code, size_t code_len,
				   size_t line, void *payload);
int sc_markdown_code_blocks(const char *md, size_t len, size_t line_offset,
			    sc_markdown_code_cb cb, void *payload);

/* Renders GitHub-flavoured Markdown (tables, strikethrough, autolinks) to
 * an HTML fragment appended to out. Raw HTML in the input is escaped
 * unless allow_raw_html is set (reports built by skillci itself). */
void sc_markdown_to_html(struct sc_buf *out, const char *md, size_t len, int allow_raw_html);

#endif
