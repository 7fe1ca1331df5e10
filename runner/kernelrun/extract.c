/* Kernel extraction from answers (extract.h). */
#include "common.h"
#include "kernelrun/extract.h"
#include "format/markdown.h"

#include <ctype.h>
#include <strings.h>

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

bool sc_extract_defines(const char *src, size_t len, const char *entry)
{
	size_t el = strlen(entry);

	for (size_t i = 0; i + el <= len; i++) {
		size_t j, k;
		if (memcmp(src + i, entry, el) || (i > 0 && is_ident_char(src[i - 1])) ||
		    (i + el < len && is_ident_char(src[i + el])))
			continue;
		j = i + el;
		while (j < len && isspace((unsigned char)src[j]))
			j++;
		if (j >= len || src[j] != '(')
			continue;
		/* Look back within this declaration (to the previous ; } or {). */
		for (k = i; k > 0 && src[k - 1] != ';' && src[k - 1] != '}' && src[k - 1] != '{'; k--)
			;
		for (size_t p = k; p + 10 <= i; p++)
			if (!memcmp(src + p, "__global__", 10))
				return true;
	}
	return false;
}

struct pick {
	const char *entry;
	struct sc_buf *out;
	size_t line;
	int tagged_found, untagged_found;
	bool done, from_untagged;
};

static bool cuda_info(const char *info, bool *untagged)
{
	static const char *const langs[] = { "cuda", "cu", "cpp", "c++", "cuh", "cxx" };
	size_t n = strcspn(info, " \t{");

	*untagged = n == 0;
	for (size_t i = 0; i < SC_ARRAY_SIZE(langs); i++)
		if (strlen(langs[i]) == n && !strncasecmp(info, langs[i], n))
			return true;
	return false;
}

static int on_block(const char *info, const char *code, size_t code_len, size_t line, void *payload)
{
	struct pick *p = payload;
	bool untagged;

	if (cuda_info(info, &untagged)) {
		p->tagged_found++;
		if (sc_extract_defines(code, code_len, p->entry) && (!p->done || p->from_untagged)) {
			sc_buf_clear(p->out);
			sc_buf_put(p->out, code, code_len);
			p->line = line;
			p->done = true;
			p->from_untagged = false;
		}
	} else if (untagged) {
		p->untagged_found++;
		if (!p->done && sc_extract_defines(code, code_len, p->entry)) {
			sc_buf_put(p->out, code, code_len);
			p->line = line;
			p->done = true;
			p->from_untagged = true;
		}
	}
	return 0;
}

int sc_extract_kernel(struct sc_buf *out, const char *answer, size_t len, const char *entry, bool bare,
		      size_t *line_out)
{
	struct pick p = { entry, out, 0, 0, 0, false, false };
	int err;

	sc_buf_clear(out);
	if (line_out)
		*line_out = 0;
	if (bare) {
		sc_buf_put(out, answer, len);
		return 0;
	}
	if ((err = sc_markdown_code_blocks(answer, len, 0, on_block, &p)) < 0)
		return err;
	if (p.done) {
		if (line_out)
			*line_out = p.line;
		return 0;
	}
	if (p.tagged_found + p.untagged_found == 0)
		return sc_error_set(SC_ENOTFOUND,
				    "the answer has no fenced code block; expected one ```cuda block defining extern \"C\" __global__ void %s(...)",
				    entry);
	return sc_error_set(SC_ENOTFOUND,
			    "no code block in the answer defines the kernel '%s' (%d cuda block%s found); define extern \"C\" __global__ void %s(...) with the parameters from the task",
			    entry, p.tagged_found + p.untagged_found, p.tagged_found + p.untagged_found == 1 ? "" : "s",
			    entry);
}
