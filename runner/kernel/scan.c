/*
 * The static scan. The source is first reduced to logical lines as the
 * preprocessor sees them, by a C++17 preprocessing tokenizer: line splices
 * (backslash-newline) joined, comments replaced by a space, string and
 * character literals kept apart (with their u8/u/U/L prefixes), raw string
 * literals R"delim(...)delim" skipped whole even across lines, and digit
 * separators (1'000) read as part of the number. Each logical line
 * remembers its first physical line.
 *
 * Where NVRTC's front end is known to read a construct differently from the
 * standard (it takes 0'1'/ followed by * as a number then a comment, not a
 * number then a character literal), the source is tokenized both ways and
 * refused when either reading finds a refused construct. Anything the tokenizer cannot
 * read for sure (a malformed raw string, a line splice inside one) is
 * refused rather than guessed at. NVRTC also runs where it cannot open host
 * files (nvrtc.c), so the scan is the first of two barriers, not the only.
 */
#include "common.h"
#include "scan.h"

#include <ctype.h>

struct lline {
	size_t line;
	struct sc_buf code;  /* comments removed, raw strings blanked to "" */
	struct sc_buf raw;   /* for quoting the candidate's own line */
};

/* The source after phase 2: splices removed, each byte's physical line
 * and whether a splice was removed just before it. */
struct phase2 {
	char *s;
	size_t *line;
	unsigned char *spliced;
	size_t n;
};

/* Identifiers seen outside literals and comments (for token pasting). */
struct idents {
	char **v;
	size_t n, alloc;
};

struct lexer {
	const struct phase2 *p;
	size_t i;
	bool seps;            /* digit separators as C++14 reads them */
	bool paste;           /* a ## or %:%: was seen */
	struct idents *ids;
	struct lline *v;
	size_t n, alloc;
	int err;
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

/*
 * Phase 2: joins backslash-newline (also backslash-CR-LF) and records lines.
 * A lone CR counts as a line end (NVRTC reads it as a space, so treating
 * it as a newline can only make the scan stricter); a backslash followed by
 * spaces and a newline is not a splice for NVRTC and is not one here.
 */
static void phase2(struct phase2 *out, const char *src, size_t len)
{
	size_t line = 1;
	bool after = false;

	out->s = sc_xmalloc(len + 1);
	out->line = sc_xmalloc((len + 1) * sizeof(size_t));
	out->spliced = sc_xmalloc(len + 1);
	out->n = 0;
	for (size_t i = 0; i < len;) {
		if (src[i] == '\\' && i + 1 < len && src[i + 1] == '\n') {
			i += 2;
			line++;
			after = true;
			continue;
		}
		if (src[i] == '\\' && i + 2 < len && src[i + 1] == '\r' && src[i + 2] == '\n') {
			i += 3;
			line++;
			after = true;
			continue;
		}
		out->s[out->n] = src[i];
		out->line[out->n] = line;
		out->spliced[out->n] = after;
		out->n++;
		after = false;
		if (src[i] == '\n' || (src[i] == '\r' && !(i + 1 < len && src[i + 1] == '\n')))
			line++;
		i++;
	}
	out->s[out->n] = '\0';
	out->line[out->n] = line;
	out->spliced[out->n] = after;
}

static void phase2_release(struct phase2 *p)
{
	free(p->s);
	free(p->line);
	free(p->spliced);
}

static struct lline *new_line(struct lexer *lx)
{
	struct lline *l;
	SC_GROW(lx->v, lx->alloc, lx->n + 1);
	l = &lx->v[lx->n++];
	l->line = lx->p->line[lx->i < lx->p->n ? lx->i : lx->p->n];
	sc_buf_init(&l->code);
	sc_buf_init(&l->raw);
	return l;
}

static bool is_eol(const struct lexer *lx, size_t i)
{
	return lx->p->s[i] == '\n' || lx->p->s[i] == '\r';
}

static bool ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80 || c == '$';
}

static void note_ident(struct lexer *lx, const char *s, size_t n)
{
	for (size_t i = 0; i < lx->ids->n; i++)
		if (strlen(lx->ids->v[i]) == n && !memcmp(lx->ids->v[i], s, n))
			return;
	SC_GROW(lx->ids->v, lx->ids->alloc, lx->ids->n + 1);
	lx->ids->v[lx->ids->n++] = sc_xstrndup(s, n);
}

static int lex_fail(struct lexer *lx, size_t at, const char *what)
{
	if (!lx->err)
		lx->err = sc_error_set(SC_EUNSAFE, "line %zu: %s is not allowed (the source cannot be read for sure)",
				       lx->p->line[at], what);
	return lx->err;
}

/*
 * A raw string literal starting at the quote lx->i (the prefix is already
 * consumed). Its text may span lines; none of it is code. Returns 0, or
 * refuses a malformed one or one with a line splice inside.
 */
static int lex_raw(struct lexer *lx, struct lline *l)
{
	const struct phase2 *p = lx->p;
	size_t start = lx->i, d0 = lx->i + 1, dl = 0;

	while (d0 + dl < p->n && dl <= 16) {
		char c = p->s[d0 + dl];
		if (c == '(')
			break;
		if (c == ')' || c == '\\' || c == '"' || isspace((unsigned char)c) || iscntrl((unsigned char)c))
			return lex_fail(lx, start, "a malformed raw string literal");
		dl++;
	}
	if (d0 + dl >= p->n || dl > 16 || p->s[d0 + dl] != '(')
		return lex_fail(lx, start, "a malformed raw string literal");
	for (size_t i = d0 + dl + 1; i < p->n; i++) {
		if (p->spliced[i])
			return lex_fail(lx, i, "a line splice inside a raw string literal");
		if (p->s[i] == ')' && i + 1 + dl < p->n && !memcmp(p->s + i + 1, p->s + d0, dl) &&
		    p->s[i + 1 + dl] == '"') {
			if (p->spliced[i + 1 + dl])
				return lex_fail(lx, i, "a line splice inside a raw string literal");
			for (size_t k = start; k <= i + 1 + dl; k++)
				if (!is_eol(lx, k))
					sc_buf_putc(&l->raw, p->s[k]);
			sc_buf_puts(&l->code, "\"\"");
			lx->i = i + 2 + dl;
			return 0;
		}
	}
	return lex_fail(lx, start, "an unterminated raw string literal");
}

/*
 * Splits the source into logical lines. Literals keep their text in code
 * (an #include "x" needs it) and has_word() below skips their contents.
 */
static int tokenize(struct lexer *lx)
{
	const struct phase2 *p = lx->p;
	struct lline *l = new_line(lx);
	bool in_block = false;

	while (lx->i < p->n && !lx->err) {
		size_t i = lx->i;
		char c = p->s[i];

		if (c == '\n' || c == '\r') {
			lx->i += (c == '\r' && i + 1 < p->n && p->s[i + 1] == '\n') ? 2 : 1;
			l = new_line(lx);
			continue;
		}
		if (in_block) {
			sc_buf_putc(&l->raw, c);
			if (c == '*' && i + 1 < p->n && p->s[i + 1] == '/') {
				in_block = false;
				sc_buf_putc(&l->raw, '/');
				sc_buf_putc(&l->code, ' ');
				lx->i += 2;
				continue;
			}
			lx->i++;
			continue;
		}
		if (c == '/' && i + 1 < p->n && p->s[i + 1] == '*') {
			in_block = true;
			sc_buf_puts(&l->raw, "/*");
			lx->i += 2;
			continue;
		}
		if (c == '/' && i + 1 < p->n && p->s[i + 1] == '/') {
			while (lx->i < p->n && !is_eol(lx, lx->i))
				lx->i++;
			continue;
		}
		if (c == '"' || c == '\'') {
			/* An ordinary literal: to its closing quote or the line end. */
			sc_buf_putc(&l->code, c);
			sc_buf_putc(&l->raw, c);
			lx->i++;
			while (lx->i < p->n && p->s[lx->i] != c && !is_eol(lx, lx->i)) {
				if (p->s[lx->i] == '\\' && lx->i + 1 < p->n && !is_eol(lx, lx->i + 1)) {
					sc_buf_putc(&l->code, '\\');
					sc_buf_putc(&l->raw, '\\');
					lx->i++;
				}
				sc_buf_putc(&l->code, p->s[lx->i]);
				sc_buf_putc(&l->raw, p->s[lx->i]);
				lx->i++;
			}
			if (lx->i < p->n && p->s[lx->i] == c) {
				sc_buf_putc(&l->code, c);
				sc_buf_putc(&l->raw, c);
				lx->i++;
			}
			continue;
		}
		if (isdigit((unsigned char)c) || (c == '.' && i + 1 < p->n && isdigit((unsigned char)p->s[i + 1]))) {
			/* A pp-number: digits, letters, '.', e+ e- p+ p-, and with
			 * separators a ' followed by a digit or letter. */
			while (lx->i < p->n) {
				char d = p->s[lx->i];
				bool sign = (d == '+' || d == '-') && lx->i > i && strchr("eEpP", p->s[lx->i - 1]);
				if (d == '\'' && lx->seps && lx->i + 1 < p->n && ident_char(p->s[lx->i + 1])) {
					sc_buf_putc(&l->raw, d);
					lx->i++;
					continue;  /* kept out of code so literals stay balanced */
				}
				if (!(sign || ident_char(d) || d == '.'))
					break;
				sc_buf_putc(&l->code, d);
				sc_buf_putc(&l->raw, d);
				lx->i++;
			}
			continue;
		}
		if (ident_char(c)) {
			size_t s = lx->i, n;
			while (lx->i < p->n && ident_char(p->s[lx->i]))
				lx->i++;
			n = lx->i - s;
			if (lx->i < p->n && p->s[lx->i] == '"' &&
			    ((n == 1 && p->s[s] == 'R') || (n == 2 && strchr("uUL", p->s[s]) && p->s[s + 1] == 'R') ||
			     (n == 3 && !memcmp(p->s + s, "u8R", 3)))) {
				sc_buf_put(&l->code, p->s + s, n);
				sc_buf_put(&l->raw, p->s + s, n);
				if (lex_raw(lx, l) < 0)
					break;
				continue;
			}
			note_ident(lx, p->s + s, n);
			sc_buf_put(&l->code, p->s + s, n);
			sc_buf_put(&l->raw, p->s + s, n);
			continue;
		}
		if ((c == '#' && i + 1 < p->n && p->s[i + 1] == '#') ||
		    (c == '%' && i + 3 < p->n && !memcmp(p->s + i, "%:%:", 4)))
			lx->paste = true;
		sc_buf_putc(&l->code, c);
		sc_buf_putc(&l->raw, c);
		lx->i++;
	}
	return lx->err;
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
	while (*p == ' ' || *p == '\t' || *p == '\f' || *p == '\v')
		p++;
	return p;
}

/* The only headers a candidate may include (docs/kernels.md): the toolkit's
 * half-precision types and the warp matrix (WMMA) API of <mma.h>. */
static const char *const allowed_includes[] = { "<cuda_fp16.h>", "<cuda_bf16.h>", "<mma.h>" };
#define ONLY_HEADERS "only <cuda_fp16.h>, <cuda_bf16.h> and <mma.h> may be included"

/* Checks one logical line for a refused directive; returns SC_EUNSAFE to refuse. */
static int check_directive(const struct lline *l, const char **kind)
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
	if (isdigit((unsigned char)*p)) {
		*kind = "source_refused";
		return sc_error_set(SC_EUNSAFE,
				    "line %zu: a line marker (# %.*s) is not allowed: it renames the source, so the compiler's messages about your code would be hidden; remove it",
				    l->line, (int)strcspn(p, "\r\n"), p);
	}
	word = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	wl = (size_t)(p - word);
	if (wl == 4 && !memcmp(word, "line", 4)) {
		*kind = "source_refused";
		return sc_error_set(SC_EUNSAFE,
				    "line %zu: #line is not allowed: it renames the source, so the compiler's messages about your code would be hidden; remove it",
				    l->line);
	}
	if (wl == 6 && !memcmp(word, "pragma", 6) && strstr(p, "include")) {
		*kind = "include_refused";
		return sc_error_set(SC_EUNSAFE, "line %zu: a #pragma naming an include is not allowed; " ONLY_HEADERS,
				    l->line);
	}
	if (!((wl == 7 && !memcmp(word, "include", 7)) || (wl == 12 && !memcmp(word, "include_next", 12)) ||
	      (wl == 6 && !memcmp(word, "import", 6)) || (wl == 5 && !memcmp(word, "embed", 5))))
		return 0;
	*kind = "include_refused";
	p = skip_ws(p);
	for (size_t k = 0; wl == 7 && k < SC_ARRAY_SIZE(allowed_includes); k++) {
		size_t n = strlen(allowed_includes[k]);
		if (!strncmp(p, allowed_includes[k], n) && *skip_ws(p + n) == '\0')
			return 0;
	}
	if (*p != '<' && *p != '"')
		return sc_error_set(SC_EUNSAFE,
				    "line %zu: computed #%.*s (a macro, not a file name) is not allowed; " ONLY_HEADERS,
				    l->line, (int)wl, word);
	return sc_error_set(SC_EUNSAFE, "line %zu: #%.*s %.*s is not allowed; " ONLY_HEADERS, l->line, (int)wl, word,
			    (int)strcspn(p, "\r\n\t "), p);
}

/* _Pragma("...") naming an include (MSVC's include_alias and the like). */
static bool pragma_operator_includes(const char *code)
{
	const char *p = code;
	while ((p = strstr(p, "_Pragma")) != NULL) {
		const char *q = skip_ws(p + 7);
		if (*q == '(' && strstr(q, "include"))
			return true;
		p += 7;
	}
	return false;
}

/*
 * Can word be spelled by pasting together identifiers of the source (each
 * may be used any number of times)? Word break by dynamic programming.
 */
static bool pastable(const struct idents *ids, const char *word)
{
	size_t n = strlen(word);
	bool ok[64] = { true };

	assert(n < sizeof(ok));
	for (size_t i = 0; i < n; i++) {
		if (!ok[i])
			continue;
		for (size_t k = 0; k < ids->n; k++) {
			size_t m = strlen(ids->v[k]);
			if (m && i + m <= n && !memcmp(word + i, ids->v[k], m))
				ok[i + m] = true;
		}
	}
	return ok[n];
}

static const char *const has_words[] = { "__has_include", "__has_include_next", "__has_embed" };

/* The refusals: includes, #line, __has_include however spelled. */
static int check_refusals(const struct lline *ls, size_t n, const struct lexer *lx, const char **kind)
{
	int err;

	for (size_t i = 0; i < n; i++) {
		const struct lline *l = &ls[i];
		if ((err = check_directive(l, kind)) < 0)
			return err;
		for (size_t k = 0; k < SC_ARRAY_SIZE(has_words); k++)
			if (has_word(l->code.ptr, has_words[k])) {
				*kind = "include_refused";
				return sc_error_set(SC_EUNSAFE, "line %zu: %s is not allowed (it asks whether a file exists); " ONLY_HEADERS,
						    l->line, has_words[k]);
			}
		if (pragma_operator_includes(l->code.ptr)) {
			*kind = "include_refused";
			return sc_error_set(SC_EUNSAFE, "line %zu: a _Pragma naming an include is not allowed; " ONLY_HEADERS,
					    l->line);
		}
	}
	if (lx->paste)
		for (size_t k = 0; k < SC_ARRAY_SIZE(has_words); k++)
			if (pastable(lx->ids, has_words[k])) {
				*kind = "include_refused";
				return sc_error_set(SC_EUNSAFE,
						    "token pasting (##) with identifiers that spell %s is not allowed (it asks whether a file exists)",
						    has_words[k]);
			}
	return 0;
}

static void lexer_release(struct lexer *lx)
{
	for (size_t i = 0; i < lx->n; i++) {
		sc_buf_release(&lx->v[i].code);
		sc_buf_release(&lx->v[i].raw);
	}
	free(lx->v);
	for (size_t i = 0; i < lx->ids->n; i++)
		free(lx->ids->v[i]);
	free(lx->ids->v);
	memset(lx->ids, 0, sizeof(*lx->ids));
}

static void flag_line(struct sc_scan *out, const struct lline *l, bool fp32, size_t *depth)
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
	const char *code = l->code.ptr;

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
			    (k == 0 && (strstr(code, "cuda_fp16.h") || strstr(code, "cuda_bf16.h") ||
					strstr(code, "<mma.h>"))))
				add_flag(out, "precision_downcast", SC_SCAN_ERROR, l->line, l->raw.ptr);
	/* File-scope __device__ / __managed__ variables: state that lives
	 * across launches (caches, call counters). Brace depth tells file
	 * scope; a '(' on the line means a function. */
	if (*depth == 0 && (has_word(code, "__device__") || has_word(code, "__managed__")) &&
	    !strchr(code, '(') && !has_word(code, "__constant__"))
		add_flag(out, "device_state", SC_SCAN_WARN, l->line, l->raw.ptr);
	for (const char *p = code; *p; p++) {
		if (*p == '{')
			(*depth)++;
		else if (*p == '}' && *depth)
			(*depth)--;
	}
}

int sc_scan_source(struct sc_scan *out, const char *src, size_t len, bool fp32)
{
	struct phase2 p;
	struct idents ids[2];
	struct lexer lx[2];
	const char *kind = "include_refused";
	size_t depth = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (memchr(src, '\0', len)) {
		out->refusal = "source_refused";
		return sc_error_set(SC_EUNSAFE, "the source contains a NUL byte");
	}
	phase2(&p, src, len);
	memset(ids, 0, sizeof(ids));
	memset(lx, 0, sizeof(lx));
	/* Two readings: digit separators as C++ (and NVRTC) read them, and as
	 * a reader without them would: refused if either finds a refusal. */
	for (int k = 0; k < 2; k++) {
		lx[k].p = &p;
		lx[k].seps = k == 0;
		lx[k].ids = &ids[k];
	}
	for (int k = 0; k < 2 && !err; k++) {
		if ((err = tokenize(&lx[k])) < 0)
			kind = "source_refused";
		else
			err = check_refusals(lx[k].v, lx[k].n, &lx[k], &kind);
	}
	if (!err)
		for (size_t i = 0; i < lx[0].n; i++)
			flag_line(out, &lx[0].v[i], fp32, &depth);
	for (int k = 0; k < 2; k++)
		lexer_release(&lx[k]);
	phase2_release(&p);
	if (err < 0) {
		memset(out, 0, sizeof(*out));
		out->refusal = kind;
	}
	return err;
}
