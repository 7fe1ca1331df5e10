/*
 * The static scan. The source is first reduced to logical lines as the
 * preprocessor sees them: backslash-newlines joined, comments replaced by a
 * space, string and character literals kept apart so a "#include" inside a
 * string does not count. Each logical line remembers its first physical line.
 */
#include "common.h"
#include "scan.h"

#include <ctype.h>

struct lline {
	size_t line;
	struct sc_buf code;  /* comments removed, literals blanked to "" */
	struct sc_buf raw;   /* for quoting the candidate's own line */
};

static void add_flag(struct sc_scan *s, const char *kind, enum sc_scan_severity sev, size_t line, const char *raw)
{
	struct sc_scan_flag *f;
	size_t n = 0;

	for (size_t i = 0; i < s->nflags; i++)
		if (!strcmp(s->flags[i].kind, kind) && s->flags[i].line == line)
			return;
	if (s->nflags == SC_SCAN_MAX_FLAGS)
		return;
	f = &s->flags[s->nflags++];
	f->kind = kind;
	f->severity = sev;
	f->line = line;
	while (*raw == ' ' || *raw == '\t')
		raw++;
	while (raw[n] && raw[n] != '\n' && n < sizeof(f->text) - 1) {
		f->text[n] = (unsigned char)raw[n] < 0x20 ? ' ' : raw[n];
		n++;
	}
	f->text[n] = '\0';
}

/* Splits src into logical lines (see above). Returns the count. */
static size_t split(const char *src, size_t len, struct lline **out)
{
	struct lline *v = NULL;
	size_t n = 0, alloc = 0, line = 1, i = 0;
	bool in_block = false;

	while (i <= len) {
		struct lline *l;
		SC_GROW(v, alloc, n + 1);
		l = &v[n++];
		l->line = line;
		sc_buf_init(&l->code);
		sc_buf_init(&l->raw);
		while (i < len) {
			char c = src[i];
			if (c == '\\' && i + 1 < len && src[i + 1] == '\n') {
				i += 2;
				line++;
				continue;
			}
			if (c == '\\' && i + 2 < len && src[i + 1] == '\r' && src[i + 2] == '\n') {
				i += 3;
				line++;
				continue;
			}
			if (c == '\n') {
				i++;
				line++;
				break;
			}
			sc_buf_putc(&l->raw, c);
			if (in_block) {
				if (c == '*' && i + 1 < len && src[i + 1] == '/') {
					in_block = false;
					sc_buf_putc(&l->code, ' ');
					i += 2;
					sc_buf_putc(&l->raw, '/');
					continue;
				}
				i++;
				continue;
			}
			if (c == '/' && i + 1 < len && src[i + 1] == '*') {
				in_block = true;
				i += 2;
				sc_buf_putc(&l->raw, '*');
				continue;
			}
			if (c == '/' && i + 1 < len && src[i + 1] == '/') {
				/* Line comment: to the end of the logical line. */
				while (i < len && src[i] != '\n') {
					if (src[i] == '\\' && i + 1 < len && src[i + 1] == '\n') {
						line++;
						i++;
					}
					i++;
				}
				continue;
			}
			if (c == '"' || c == '\'') {
				/* Keep the literal's text in code (an #include "x" needs
				 * it) but skip its content for keyword matching later. */
				char q = c;
				sc_buf_putc(&l->code, c);
				i++;
				while (i < len && src[i] != q && src[i] != '\n') {
					if (src[i] == '\\' && i + 1 < len) {
						sc_buf_putc(&l->code, src[i]);
						sc_buf_putc(&l->raw, src[i]);
						i++;
					}
					sc_buf_putc(&l->code, src[i]);
					sc_buf_putc(&l->raw, src[i]);
					i++;
				}
				if (i < len && src[i] == q) {
					sc_buf_putc(&l->code, q);
					sc_buf_putc(&l->raw, q);
					i++;
				}
				continue;
			}
			sc_buf_putc(&l->code, c);
			i++;
		}
		if (i >= len)
			break;
	}
	*out = v;
	return n;
}

/* True when word occurs in s as a whole identifier, outside literals. */
static bool has_word(const char *s, const char *word)
{
	size_t wl = strlen(word);
	char q = 0;

	for (const char *p = s; *p; p++) {
		if (q) {
			if (*p == '\\' && p[1])
				p++;
			else if (*p == q)
				q = 0;
			continue;
		}
		if (*p == '"' || *p == '\'') {
			q = *p;
			continue;
		}
		if (!strncmp(p, word, wl) && (p == s || !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) &&
		    !(isalnum((unsigned char)p[wl]) || p[wl] == '_'))
			return true;
	}
	return false;
}

static const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t' || *p == '\f' || *p == '\v' || *p == '\r')
		p++;
	return p;
}

/* Checks one logical line for a preprocessor include; returns SC_EUNSAFE to refuse. */
static int check_directive(const struct lline *l)
{
	const char *p = skip_ws(l->code.ptr);
	const char *word;
	size_t wl;

	if (*p == '#')
		p++;
	else if (p[0] == '%' && p[1] == ':')
		p += 2;
	else if (p[0] == '?' && p[1] == '?' && p[2] == '=')
		p += 3;
	else
		return 0;
	p = skip_ws(p);
	word = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	wl = (size_t)(p - word);
	if (!((wl == 7 && !memcmp(word, "include", 7)) || (wl == 12 && !memcmp(word, "include_next", 12)) ||
	      (wl == 6 && !memcmp(word, "import", 6)) || (wl == 5 && !memcmp(word, "embed", 5))))
		return 0;
	p = skip_ws(p);
	if (wl == 7 && (!strncmp(p, "<cuda_fp16.h>", 13) || !strncmp(p, "<cuda_bf16.h>", 13)) &&
	    *skip_ws(p + 13) == '\0')
		return 0;
	if (*p != '<' && *p != '"')
		return sc_error_set(SC_EUNSAFE,
				    "line %zu: computed #%.*s (a macro, not a file name) is not allowed; only <cuda_fp16.h> and <cuda_bf16.h> may be included",
				    l->line, (int)wl, word);
	return sc_error_set(SC_EUNSAFE,
			    "line %zu: #%.*s %.*s is not allowed; only <cuda_fp16.h> and <cuda_bf16.h> may be included",
			    l->line, (int)wl, word, (int)strcspn(p, "\r\n\t "), p);
}

int sc_scan_source(struct sc_scan *out, const char *src, size_t len, bool fp32)
{
	static const char *const stream_words[] = { "cudaStreamCreate", "cudaStreamCreateWithFlags",
		"cudaStreamCreateWithPriority", "cuStreamCreate", "cudaStreamFireAndForget",
		"cudaStreamTailLaunch", "cudaGraphLaunch" };
	static const char *const alloc_words[] = { "malloc", "cudaMalloc", "cudaMallocManaged", "cudaMallocHost",
		"cudaHostAlloc", "cudaMallocAsync", "calloc", "realloc", "new" };
	static const char *const lowp_words[] = { "__half", "__half2", "__nv_bfloat16",
		"__nv_bfloat162", "nv_bfloat16", "__float2half", "__float2half_rn", "__float2bfloat16",
		"__float22half2_rn", "__floats2half2_rn", "__float2bfloat16_rn", "__hmul", "__hadd", "__hfma",
		"tf32", "wmma", "mma_sync" };
	struct lline *ls = NULL;
	size_t n, depth = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (memchr(src, '\0', len)) {
		err = sc_error_set(SC_EUNSAFE, "the source contains a NUL byte");
		return err;
	}
	n = split(src, len, &ls);
	for (size_t i = 0; i < n && !err; i++) {
		const struct lline *l = &ls[i];
		const char *code = l->code.ptr;

		if ((err = check_directive(l)) < 0)
			break;
		if (has_word(code, "__has_include") || has_word(code, "__has_include_next")) {
			err = sc_error_set(SC_EUNSAFE, "line %zu: __has_include is not allowed", l->line);
			break;
		}
		if (strstr(code, "<<<") || has_word(code, "cudaLaunchKernel") || has_word(code, "cudaLaunchDevice"))
			add_flag(out, "device_launch", SC_SCAN_WARN, l->line, l->raw.ptr);
		for (size_t k = 0; k < SC_ARRAY_SIZE(stream_words); k++)
			if (has_word(code, stream_words[k]))
				add_flag(out, "stream_creation", SC_SCAN_ERROR, l->line, l->raw.ptr);
		for (size_t k = 0; k < SC_ARRAY_SIZE(alloc_words); k++)
			if (has_word(code, alloc_words[k]))
				add_flag(out, "host_allocation", SC_SCAN_ERROR, l->line, l->raw.ptr);
		if (has_word(code, "printf"))
			add_flag(out, "printf", SC_SCAN_WARN, l->line, l->raw.ptr);
		if (has_word(code, "asm") || has_word(code, "__asm__"))
			add_flag(out, "inline_asm", SC_SCAN_WARN, l->line, l->raw.ptr);
		if (has_word(code, "clock") || has_word(code, "clock64") || strstr(code, "globaltimer"))
			add_flag(out, "clock_read", SC_SCAN_WARN, l->line, l->raw.ptr);
		if (fp32)
			for (size_t k = 0; k < SC_ARRAY_SIZE(lowp_words); k++)
				if (has_word(code, lowp_words[k]) ||
				    (k == 0 && (strstr(code, "cuda_fp16.h") || strstr(code, "cuda_bf16.h"))))
					add_flag(out, "precision_downcast", SC_SCAN_ERROR, l->line, l->raw.ptr);
		/* File-scope __device__ / __managed__ variables: state that lives
		 * across launches (caches, call counters). Brace depth tells
		 * file scope; a '(' on the line means a function. */
		if (depth == 0 && (has_word(code, "__device__") || has_word(code, "__managed__")) &&
		    !strchr(code, '(') && !has_word(code, "__constant__"))
			add_flag(out, "device_state", SC_SCAN_WARN, l->line, l->raw.ptr);
		for (const char *p = code; *p; p++) {
			if (*p == '{')
				depth++;
			else if (*p == '}' && depth)
				depth--;
		}
	}
	for (size_t i = 0; i < n; i++) {
		sc_buf_release(&ls[i].code);
		sc_buf_release(&ls[i].raw);
	}
	free(ls);
	if (err < 0)
		memset(out, 0, sizeof(*out));
	return err;
}
