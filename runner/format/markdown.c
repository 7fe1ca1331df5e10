#include "common.h"
#include "format/markdown.h"

#include <cmark-gfm.h>
#include <cmark-gfm-core-extensions.h>

static cmark_parser *parser_new(int options)
{
	static const char *const exts[] = { "table", "strikethrough", "autolink", "tagfilter", "tasklist" };
	cmark_parser *p;

	cmark_gfm_core_extensions_ensure_registered();
	p = cmark_parser_new(options);
	if (!p)
		sc_die("cannot create a Markdown parser");
	for (size_t i = 0; i < SC_ARRAY_SIZE(exts); i++) {
		cmark_syntax_extension *e = cmark_find_syntax_extension(exts[i]);
		if (e)
			cmark_parser_attach_syntax_extension(p, e);
	}
	return p;
}

static cmark_node *parse(cmark_parser *p, const char *md, size_t len)
{
	cmark_parser_feed(p, md, len);
	return cmark_parser_finish(p);
}

int sc_markdown_links(const char *md, size_t len, size_t line_offset,
		      sc_markdown_link_cb cb, void *payload)
{
	cmark_parser *p = parser_new(CMARK_OPT_DEFAULT);
	cmark_node *doc = parse(p, md, len);
	cmark_iter *it = cmark_iter_new(doc);
	cmark_event_type ev;
	int err = 0;

	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		cmark_node_type t = cmark_node_get_type(n);
		const char *url;
		size_t line;

		if (ev != CMARK_EVENT_ENTER || (t != CMARK_NODE_LINK && t != CMARK_NODE_IMAGE))
			continue;
		url = cmark_node_get_url(n);
		line = (size_t)cmark_node_get_start_line(n);
		/* Inline nodes carry no position in cmark-gfm 0.29; use the
		 * nearest block ancestor's line. */
		for (cmark_node *a = n; line == 0 && a; a = cmark_node_parent(a))
			line = (size_t)cmark_node_get_start_line(a);
		if ((err = cb(url ? url : "", line + line_offset, t == CMARK_NODE_IMAGE, payload)) < 0)
			break;
	}
	cmark_iter_free(it);
	cmark_node_free(doc);
	cmark_parser_free(p);
	return err;
}

int sc_markdown_code_blocks(const char *md, size_t len, size_t line_offset,
			    sc_markdown_code_cb cb, void *payload)
{
	cmark_parser *p = parser_new(CMARK_OPT_DEFAULT);
	cmark_node *doc = parse(p, md, len);
	cmark_iter *it = cmark_iter_new(doc);
	cmark_event_type ev;
	int err = 0;

	while ((ev = cmark_iter_next(it)) != CMARK_EVENT_DONE) {
		cmark_node *n = cmark_iter_get_node(it);
		const char *info, *code;

		if (ev != CMARK_EVENT_ENTER || cmark_node_get_type(n) != CMARK_NODE_CODE_BLOCK)
			continue;
		info = cmark_node_get_fence_info(n);
		code = cmark_node_get_literal(n);
		err = cb(info ? info : "", code ? code : "", code ? strlen(code) : 0,
			 (size_t)cmark_node_get_start_line(n) + line_offset, payload);
		if (err < 0)
			break;
	}
	cmark_iter_free(it);
	cmark_node_free(doc);
	cmark_parser_free(p);
	return err;
}

void sc_markdown_to_html(struct sc_buf *out, const char *md, size_t len, int allow_raw_html)
{
	int opts = CMARK_OPT_DEFAULT | CMARK_OPT_GITHUB_PRE_LANG |
		   (allow_raw_html ? CMARK_OPT_UNSAFE : 0);
	cmark_parser *p = parser_new(opts);
	cmark_node *doc = parse(p, md, len);
	char *html = cmark_render_html(doc, opts, cmark_parser_get_syntax_extensions(p));

	sc_buf_puts(out, html);
	free(html);
	cmark_node_free(doc);
	cmark_parser_free(p);
}
