/*
 * The PTX scan (ptx.h). Three passes over the text NVRTC produced:
 *
 * 1. A tokeniser that reads the text as ptxas does: // comments to the
 *    end of the line, block comments to their close (not nested), string
 *    literals as one token, identifiers (with %, $ and _), directives and
 *    modifiers (".global", ".shared::cta"), numbers and punctuation. What
 *    it cannot read for sure stops it with a "ptx_unreadable" flag.
 * 2. A parser of the module: directives, variable declarations at any
 *    depth, functions (.entry, .func, prototypes, .extern), and in each
 *    body labels, guards, nested scopes, register and parameter
 *    declarations (a name declared in a nested scope is that scope's own)
 *    and instructions, each an opcode, its modifiers and its operands.
 * 3. The decisions: a taint of every register (or parameter-space name)
 *    that may hold an address derived from module state, computed to a
 *    fixed point over the whole module (through moves, arithmetic, cvta,
 *    function parameters and return values); then every memory operand
 *    holding such an address classifies its instruction as a read, a
 *    write or an atomic; every special register, opcode and type is
 *    checked against the lists of ptx.h.
 */
#include "common.h"
#include "ptx.h"

#include <ctype.h>

#define PTX_NAME_MAX 96
#define PTX_MAX_PARAMS 64

enum tk { T_IDENT, T_DOT, T_NUM, T_STR, T_PUNCT };

struct tok {
	enum tk k;
	const char *s;
	size_t n;
	size_t line;
	const char *bol;  /* start of its line */
};

/* A span of tokens of one instruction: one operand (commas at depth 0
 * separate them). */
struct operand {
	size_t t0, t1;
	bool bracket;  /* a memory operand [...] */
};

struct instr {
	size_t func;
	size_t op;            /* the opcode's token */
	size_t mod0, nmods;   /* modifier tokens (T_DOT) after the opcode */
	size_t opnd0, nopnd;  /* into struct module.opnds */
	size_t line;
	const char *bol;
	size_t scope;         /* innermost scope when it was read */
};

/* Module state: a .global or .const variable. */
struct var {
	char name[PTX_NAME_MAX];
	size_t line;
	const char *bol;
	bool holds_addr;  /* its initialiser names a symbol (= generic(g)): it holds an address */
};

struct func {
	char name[PTX_NAME_MAX];
	bool defined, is_extern;
	char params[PTX_MAX_PARAMS][PTX_NAME_MAX];
	size_t nparams;
	bool param_taint[PTX_MAX_PARAMS];
	size_t local_taint;   /* an address of module state was stored to .local: 1 + the var */
};

/* A name declared in a nested scope: a register list, a range %r<N>, or
 * a .param/.local variable. */
struct decl {
	size_t scope;
	char name[PTX_NAME_MAX];
	long range;  /* -1: exact name; else %name<range> declares name0..name(range-1) */
};

struct module {
	const char *text, *end;
	struct tok *t;
	size_t nt, at;
	struct instr *in;
	size_t nin, ain;
	struct operand *opnds;
	size_t nopnds, aopnds;
	struct var *vars;
	size_t nvars, avars;
	struct func *funcs;
	size_t nfuncs, afuncs;
	struct decl *decls;
	size_t ndecls, adecls;
	/* open scopes of the function being read (ids); scope 0 is the module;
	 * decl_start[d]: the first declaration of the scope at depth d (those
	 * of closed scopes are dropped, their names already resolved) */
	size_t stack[256];
	size_t decl_start[256];
	size_t depth;
	size_t next_scope;
	/* interned names (registers and parameter names, qualified by function
	 * and scope) and their taint: 0 none, else 1 + the var; a hash table
	 * of indices (SIZE_MAX: empty) */
	char **names;
	size_t *taint;
	size_t nnames, anames;
	size_t *hash;
	size_t hcap;
	bool addr_vars;  /* some module variable holds an address (struct var) */
	/* per token: its name id (SIZE_MAX: none) */
	size_t *ids;
	struct sc_scan *out;
	const struct sc_ptx_rules *rules;
	bool seen[16];
};

static const char *const ptx_kinds[] = { "device_state", "module_atomic", "clock_read", "special_register",
					 "sleep", "precision_downcast", "printf", "device_launch", "device_heap",
					 "extern_call", "ptx_unreadable", NULL };

bool sc_scan_kind_is_ptx(const char *kind)
{
	for (size_t i = 0; ptx_kinds[i]; i++)
		if (!strcmp(ptx_kinds[i], kind))
			return true;
	return !strcmp(kind, "inline_asm");  /* what inline PTX does is read in the PTX */
}

void sc_ptx_rules_from_spec(struct sc_ptx_rules *out, const struct sc_spec *spec)
{
	out->precision = spec->precision;
	out->compensated_tf32 = spec->compensated_tf32;
	out->float_outputs = sc_spec_float_outputs(spec);
}

/* One flag per kind, at its first line; text is the PTX line (or what
 * the caller gives when there is no line). */
static void flag(struct module *m, const char *kind, size_t line, const char *bol)
{
	size_t k = 0;
	struct sc_scan *s = m->out;

	while (ptx_kinds[k] && strcmp(ptx_kinds[k], kind))
		k++;
	assert(ptx_kinds[k] && k < SC_ARRAY_SIZE(m->seen));
	if (m->seen[k] || s->nflags == SC_SCAN_MAX_FLAGS)
		return;
	m->seen[k] = true;
	s->flags[s->nflags].kind = ptx_kinds[k];
	s->flags[s->nflags].severity = SC_SCAN_ERROR;
	s->flags[s->nflags].line = line;
	s->flags[s->nflags].from_ptx = true;
	{
		char *dst = s->flags[s->nflags].text;
		size_t n = 0, cap = sizeof(s->flags[0].text);
		const char *p = bol ? bol : "";
		/* a line of the text ends at its end (the text need not end in
		 * a NUL); any other string at its NUL */
		const char *lim = p >= m->text && p < m->end ? m->end : NULL;
		while ((!lim || p < lim) && (*p == ' ' || *p == '\t'))
			p++;
		while ((!lim || p + n < lim) && p[n] && p[n] != '\n' && n < cap - 1) {
			dst[n] = (unsigned char)p[n] < 0x20 || (unsigned char)p[n] >= 0x7f ? ' ' : p[n];
			n++;
		}
		dst[n] = '\0';
	}
	s->nflags++;
}

/* ---- 1. tokens ---- */

static bool id_start(int c)
{
	return isalpha(c) || c == '_' || c == '$' || c == '%';
}

static bool id_char(int c)
{
	return isalnum(c) || c == '_' || c == '$';
}

static void push_tok(struct module *m, size_t *alloc, enum tk k, const char *s, size_t n, size_t line,
		     const char *bol)
{
	SC_GROW(m->t, *alloc, m->nt + 1);
	m->t[m->nt++] = (struct tok){ k, s, n, line, bol };
}

/*
 * Tokenises text[0..len). Stops at what ptxas would not read or reads
 * otherwise than a scan could be sure of, with a flag.
 */
static void tokenise(struct module *m, const char *text, size_t len)
{
	const char *p = text, *end = text + len, *bol = text;
	size_t line = 1, alloc = 0;

	while (p < end) {
		unsigned char c = (unsigned char)*p;
		const char *s = p;
		if (c == '\n') {
			p++;
			line++;
			bol = p;
			continue;
		}
		if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
			p++;
			continue;
		}
		if (c == '/' && p + 1 < end && p[1] == '/') {
			while (p < end && *p != '\n')
				p++;
			continue;
		}
		if (c == '/' && p + 1 < end && p[1] == '*') {
			size_t l0 = line;
			const char *b0 = bol;
			p += 2;
			while (p + 1 < end && !(p[0] == '*' && p[1] == '/')) {
				if (*p == '\n') {
					line++;
					bol = p + 1;
				}
				p++;
			}
			if (p + 1 >= end) {
				flag(m, "ptx_unreadable", l0, b0);
				return;
			}
			p += 2;
			continue;
		}
		if (c == '"') {
			p++;
			while (p < end && *p != '"' && *p != '\n') {
				if (*p == '\\' && p + 1 < end && p[1] != '\n')
					p++;
				p++;
			}
			if (p >= end || *p != '"') {
				flag(m, "ptx_unreadable", line, bol);
				return;
			}
			p++;
			push_tok(m, &alloc, T_STR, s, (size_t)(p - s), line, bol);
			continue;
		}
		if (c >= 0x80 || (c < 0x20 && c != '\t') || c == 0x7f || c == '#' || c == '\\' || c == '`') {
			/* a preprocessor line, a byte outside ASCII: not what NVRTC
			 * writes, and nothing the scan would guess at */
			flag(m, "ptx_unreadable", line, bol);
			p++;
			continue;
		}
		if (c == '.' && p + 1 < end && id_char((unsigned char)p[1])) {
			/* a directive or modifier, ".global", ".shared::cta", ".1d" */
			p++;
			for (;;) {
				while (p < end && id_char((unsigned char)*p))
					p++;
				if (p + 2 < end && p[0] == ':' && p[1] == ':' && id_char((unsigned char)p[2])) {
					p += 2;
					continue;
				}
				break;
			}
			push_tok(m, &alloc, T_DOT, s, (size_t)(p - s), line, bol);
			continue;
		}
		if (isdigit(c)) {
			bool hex = c == '0' && p + 1 < end && strchr("xXfFdD", p[1]);
			p++;
			while (p < end && (id_char((unsigned char)*p) || *p == '.' ||
					   (!hex && (*p == '+' || *p == '-') && strchr("eE", p[-1]))))
				p++;
			push_tok(m, &alloc, T_NUM, s, (size_t)(p - s), line, bol);
			continue;
		}
		if (id_start(c) && !(c == '%' && !(p + 1 < end && id_char((unsigned char)p[1])))) {
			p++;
			while (p < end && id_char((unsigned char)*p))
				p++;
			push_tok(m, &alloc, T_IDENT, s, (size_t)(p - s), line, bol);
			continue;
		}
		push_tok(m, &alloc, T_PUNCT, s, 1, line, bol);
		p++;
	}
}

/* ---- 2. the module ---- */

static bool is(const struct module *m, size_t i, const char *word)
{
	size_t n = strlen(word);
	return i < m->nt && m->t[i].n == n && !memcmp(m->t[i].s, word, n);
}

static bool punct(const struct module *m, size_t i, char c)
{
	return i < m->nt && m->t[i].k == T_PUNCT && m->t[i].s[0] == c;
}

static void tokname(char *dst, const struct tok *t)
{
	size_t n = t->n < PTX_NAME_MAX - 1 ? t->n : PTX_NAME_MAX - 1;
	memcpy(dst, t->s, n);
	dst[n] = '\0';
}

/* The decimal number in s[0..n) (digits only; the text need not end in a
 * NUL), capped. */
static long digits_value(const char *s, size_t n)
{
	long v = 0;
	for (size_t i = 0; i < n && isdigit((unsigned char)s[i]); i++)
		v = v < 100000000 ? v * 10 + (s[i] - '0') : v;
	return v;
}

static bool tok_eq(const struct tok *t, const char *s)
{
	return strlen(s) == t->n && !memcmp(t->s, s, t->n);
}

static size_t find_var(const struct module *m, const struct tok *t)
{
	for (size_t i = 0; i < m->nvars; i++)
		if (tok_eq(t, m->vars[i].name))
			return i + 1;
	return 0;
}

static size_t find_func(const struct module *m, const struct tok *t)
{
	for (size_t i = 0; i < m->nfuncs; i++)
		if (tok_eq(t, m->funcs[i].name))
			return i + 1;
	return 0;
}

/* The function named by token t, declared if new. */
static size_t add_func(struct module *m, const struct tok *t)
{
	size_t f = find_func(m, t);
	if (f)
		return f - 1;
	SC_GROW(m->funcs, m->afuncs, m->nfuncs + 1);
	memset(&m->funcs[m->nfuncs], 0, sizeof(m->funcs[0]));
	tokname(m->funcs[m->nfuncs].name, t);
	return m->nfuncs++;
}

static void unreadable(struct module *m, size_t i)
{
	const struct tok *t;
	if (!m->nt) {
		flag(m, "ptx_unreadable", 1, NULL);
		return;
	}
	t = &m->t[i < m->nt ? i : m->nt - 1];
	flag(m, "ptx_unreadable", t->line, t->bol);
}

/* Skips to the token after the next ';' (balanced braces allowed, as in
 * an initialiser); returns its index. */
static size_t skip_statement(const struct module *m, size_t i)
{
	int depth = 0;
	for (; i < m->nt; i++) {
		if (punct(m, i, '{'))
			depth++;
		else if (punct(m, i, '}'))
			depth--;
		else if (punct(m, i, ';') && depth <= 0)
			return i + 1;
		if (depth < 0)
			return i;
	}
	return i;
}

/* Skips the rest of a line-oriented directive (.version, .target, ...). */
static size_t skip_line(const struct module *m, size_t i)
{
	size_t line = m->t[i].line;
	while (i < m->nt && m->t[i].line == line && !punct(m, i, '{') && !punct(m, i, '}') && !punct(m, i, ';'))
		i++;
	return i;
}

static bool state_space_var(const struct module *m, size_t i)
{
	return is(m, i, ".global") || is(m, i, ".const");
}

/* Records name token k as module state (a .global or .const variable). */
static struct var *add_var(struct module *m, size_t k, size_t decl)
{
	struct var *v;
	SC_GROW(m->vars, m->avars, m->nvars + 1);
	v = &m->vars[m->nvars++];
	tokname(v->name, &m->t[k]);
	v->line = m->t[decl].line;
	v->bol = m->t[decl].bol;
	v->holds_addr = false;
	return v;
}

/* Records name token k (with a range %name<N>, or -1) as declared by the
 * innermost open scope. */
static void add_decl(struct module *m, size_t k, long range)
{
	struct decl *d;
	SC_GROW(m->decls, m->adecls, m->ndecls + 1);
	d = &m->decls[m->ndecls++];
	d->scope = m->stack[m->depth - 1];
	tokname(d->name, &m->t[k]);
	d->range = range;
}

/*
 * A declaration from i (at its state space) to its ';': every name it
 * declares (a list too, `.global .u32 a, b;`), an identifier outside an
 * initialiser and outside brackets. Module state (.global, .const, at any
 * depth) is recorded, and whether its initialiser names a symbol (it then
 * holds an address: `= generic(g)`); in a nested scope a .reg, .param,
 * .local or .shared name is that scope's own.
 */
static size_t declaration(struct module *m, size_t i)
{
	bool state = state_space_var(m, i), reg = is(m, i, ".reg");
	bool scoped = m->depth > 1 && (reg || is(m, i, ".param") || is(m, i, ".local") || is(m, i, ".shared"));
	size_t end = skip_statement(m, i);
	struct var *last = NULL;
	bool in_init = false;
	int depth = 0;

	for (size_t k = i + 1; k < end; k++) {
		if (punct(m, k, '{') || punct(m, k, '(') || punct(m, k, '[') || punct(m, k, '<'))
			depth++;
		else if (punct(m, k, '}') || punct(m, k, ')') || punct(m, k, ']') || punct(m, k, '>'))
			depth--;
		else if (punct(m, k, '=') && depth == 0)
			in_init = true;
		else if (punct(m, k, ',') && depth == 0)
			in_init = false;
		if (m->t[k].k != T_IDENT)
			continue;
		if (in_init) {
			/* a symbol in an initialiser: an address */
			if (last) {
				last->holds_addr = true;
				m->addr_vars = true;
			}
			continue;
		}
		if (depth != 0)
			continue;
		if (state)
			last = add_var(m, k, i);
		else if (scoped)
			add_decl(m, k, reg && punct(m, k + 1, '<') && k + 2 < end && m->t[k + 2].k == T_NUM
					       ? digits_value(m->t[k + 2].s, m->t[k + 2].n)
					       : -1);
	}
	return end;
}

static uint64_t fnv(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return h;
}

/* The interned id of name (qualified). */
static size_t intern(struct module *m, const char *name)
{
	size_t at;

	if (m->nnames * 2 >= m->hcap) {
		size_t cap = m->hcap ? m->hcap * 2 : 1024;
		free(m->hash);
		m->hash = sc_xmalloc(cap * sizeof(size_t));
		for (size_t i = 0; i < cap; i++)
			m->hash[i] = SIZE_MAX;
		m->hcap = cap;
		for (size_t i = 0; i < m->nnames; i++) {
			at = (size_t)(fnv(m->names[i]) & (cap - 1));
			while (m->hash[at] != SIZE_MAX)
				at = (at + 1) & (cap - 1);
			m->hash[at] = i;
		}
	}
	at = (size_t)(fnv(name) & (m->hcap - 1));
	while (m->hash[at] != SIZE_MAX) {
		if (!strcmp(m->names[m->hash[at]], name))
			return m->hash[at];
		at = (at + 1) & (m->hcap - 1);
	}
	SC_GROW(m->names, m->anames, m->nnames + 1);
	m->taint = sc_xrealloc(m->taint, m->anames * sizeof(*m->taint));
	m->names[m->nnames] = sc_xstrdup(name);
	m->taint[m->nnames] = 0;
	m->hash[at] = m->nnames;
	return m->nnames++;
}

/* The nested scope that declares the name of token t, innermost first
 * (0: none, the function's own name). Only the declarations of open
 * scopes are kept. */
static size_t decl_scope(const struct module *m, const struct tok *t)
{
	for (size_t k = m->ndecls; k > 0; k--) {
		const struct decl *x = &m->decls[k - 1];
		size_t n = strlen(x->name);
		if (x->range < 0) {
			if (tok_eq(t, x->name))
				return x->scope;
		} else if (t->n > n && t->n - n < 10 && !memcmp(t->s, x->name, n)) {
			bool digits = true;
			for (size_t q = n; q < t->n; q++)
				digits &= isdigit((unsigned char)t->s[q]) != 0;
			if (digits && digits_value(t->s + n, t->n - n) < x->range)
				return x->scope;
		}
	}
	return 0;
}

/* The id of a name token of the instruction being read: "F:NAME", or
 * "F:NAME#SCOPE" for a name a nested scope declares. */
static size_t name_id(struct module *m, size_t func, const struct tok *t)
{
	char buf[PTX_NAME_MAX * 2 + 32], nm[PTX_NAME_MAX];
	size_t sc = decl_scope(m, t);
	tokname(nm, t);
	if (sc)
		snprintf(buf, sizeof(buf), "%zu:%s#%zu", func, nm, sc);
	else
		snprintf(buf, sizeof(buf), "%zu:%s", func, nm);
	return intern(m, buf);
}

/*
 * An instruction from i (its opcode) to its ';'. Operands are split at
 * commas outside (), [] and {}; names are resolved now, while the scopes
 * that declare them are open.
 */
static size_t instruction(struct module *m, size_t func, size_t i)
{
	struct instr *in;
	size_t k = i + 1, start;
	int depth = 0;

	SC_GROW(m->in, m->ain, m->nin + 1);
	in = &m->in[m->nin++];
	memset(in, 0, sizeof(*in));
	in->func = func;
	in->op = i;
	in->line = m->t[i].line;
	in->bol = m->t[i].bol;
	in->scope = m->depth ? m->stack[m->depth - 1] : 0;
	in->mod0 = k;
	while (k < m->nt && m->t[k].k == T_DOT)
		k++;
	in->nmods = k - in->mod0;
	in->opnd0 = m->nopnds;
	start = k;
	for (; k < m->nt; k++) {
		bool end = punct(m, k, ';') && depth <= 0;
		if (punct(m, k, '(') || punct(m, k, '[') || punct(m, k, '{'))
			depth++;
		else if (punct(m, k, ')') || punct(m, k, ']') || punct(m, k, '}'))
			depth--;
		if (depth < 0) {
			/* a brace closing a scope: the instruction had no ';' */
			unreadable(m, k);
			end = true;
		}
		if (end || (punct(m, k, ',') && depth == 0)) {
			if (k > start) {
				SC_GROW(m->opnds, m->aopnds, m->nopnds + 1);
				m->opnds[m->nopnds++] = (struct operand){ start, k, punct(m, start, '[') };
				in->nopnd++;
			}
			start = k + 1;
			if (end)
				break;
		}
		if (m->t[k].k == T_IDENT)
			m->ids[k] = name_id(m, func, &m->t[k]);
	}
	if (k >= m->nt)
		unreadable(m, i);
	return depth < 0 ? k : k + 1;
}

/* Directives allowed between a function's parameters and its body. */
static bool perf_directive(const struct module *m, size_t i)
{
	static const char *const ok[] = { ".maxntid", ".reqntid", ".minnctapersm", ".maxnctapersm", ".maxnreg",
					  ".noreturn", ".explicitcluster", ".reqnctapercluster", ".maxclusterrank",
					  ".pragma", ".abi_preserve", ".abi_preserve_control" };
	for (size_t k = 0; k < SC_ARRAY_SIZE(ok); k++)
		if (is(m, i, ok[k]))
			return true;
	return false;
}

/*
 * A function body from its '{' at i; returns the index after its '}'.
 */
static size_t body(struct module *m, size_t func, size_t i)
{
	m->depth = 0;
	while (i < m->nt) {
		const struct tok *t = &m->t[i];
		if (punct(m, i, '{')) {
			if (m->depth == SC_ARRAY_SIZE(m->stack)) {
				unreadable(m, i);
				return m->nt;
			}
			m->decl_start[m->depth] = m->ndecls;
			m->stack[m->depth++] = ++m->next_scope;
			i++;
			continue;
		}
		if (punct(m, i, '}')) {
			m->depth--;
			m->ndecls = m->decl_start[m->depth];
			i++;
			if (m->depth == 0)
				return i;
			continue;
		}
		if (punct(m, i, ';')) {
			i++;
			continue;
		}
		if (m->depth == 0) {
			unreadable(m, i);
			return i;
		}
		if (t->k == T_IDENT && punct(m, i + 1, ':')) {
			i += 2;  /* a label */
			continue;
		}
		if (punct(m, i, '@')) {
			i++;
			if (punct(m, i, '!'))
				i++;
			if (i < m->nt && m->t[i].k == T_IDENT)
				i++;
			continue;
		}
		if (t->k == T_DOT) {
			if (is(m, i, ".reg") || is(m, i, ".local") || is(m, i, ".shared") || is(m, i, ".param") ||
			    state_space_var(m, i)) {
				i = declaration(m, i);
				continue;
			}
			if (is(m, i, ".pragma") || is(m, i, ".callprototype") || is(m, i, ".calltargets")) {
				i = skip_statement(m, i);
				continue;
			}
			/* .loc, .file, .section and the like: NVRTC writes none of
			 * them in a body (no -lineinfo), and a line-oriented one
			 * would hide what follows it on its line */
			unreadable(m, i);
			i = skip_statement(m, i);
			continue;
		}
		if (t->k == T_IDENT) {
			i = instruction(m, func, i);
			continue;
		}
		unreadable(m, i);
		i++;
	}
	unreadable(m, m->nt ? m->nt - 1 : 0);
	return i;
}

/*
 * A function from its .entry/.func token at i: an optional return
 * parameter list (.func), the name, the parameter list, performance
 * directives, then ';' (a prototype) or the body.
 */
static size_t function(struct module *m, size_t i, bool is_extern)
{
	size_t f, k = i + 1;
	struct func *fn;

	/* a return list "( ... )" before the name */
	if (punct(m, k, '(')) {
		int depth = 0;
		for (; k < m->nt; k++) {
			if (punct(m, k, '('))
				depth++;
			else if (punct(m, k, ')') && --depth == 0) {
				k++;
				break;
			}
		}
	}
	if (k >= m->nt || m->t[k].k != T_IDENT) {
		unreadable(m, i);
		return skip_statement(m, i);
	}
	f = add_func(m, &m->t[k]);
	fn = &m->funcs[f];
	fn->is_extern |= is_extern;
	k++;
	if (punct(m, k, '(')) {
		int depth = 0;
		size_t np = 0;
		for (; k < m->nt; k++) {
			if (punct(m, k, '('))
				depth++;
			else if (punct(m, k, ')') && --depth == 0) {
				k++;
				break;
			}
			/* a parameter's name: the identifier before ',' or ')' (or its
			 * array bounds) */
			if (m->t[k].k == T_IDENT && depth == 1 &&
			    (punct(m, k + 1, ',') || punct(m, k + 1, ')') || punct(m, k + 1, '['))) {
				if (np < PTX_MAX_PARAMS)
					tokname(fn->params[np++], &m->t[k]);
			}
		}
		if (!fn->defined)
			fn->nparams = np;
	}
	while (k < m->nt && (perf_directive(m, k) || m->t[k].k == T_NUM || punct(m, k, ',')))
		k++;
	if (punct(m, k, ';'))
		return k + 1;
	if (!punct(m, k, '{')) {
		unreadable(m, k);
		return skip_statement(m, k);
	}
	fn->defined = true;
	fn->is_extern = false;
	return body(m, f, k);
}

static void parse(struct module *m)
{
	size_t i = 0;

	while (i < m->nt) {
		bool ext = false;
		if (is(m, i, ".version") || is(m, i, ".target") || is(m, i, ".address_size") || is(m, i, ".file")) {
			i = skip_line(m, i + 1);
			continue;
		}
		while (is(m, i, ".visible") || is(m, i, ".extern") || is(m, i, ".weak") || is(m, i, ".common")) {
			ext |= is(m, i, ".extern");
			i++;
		}
		if (i >= m->nt)
			break;
		if (is(m, i, ".entry") || is(m, i, ".func")) {
			i = function(m, i, ext);
			continue;
		}
		if (m->t[i].k == T_DOT && (state_space_var(m, i) || is(m, i, ".shared") || is(m, i, ".local") ||
					   is(m, i, ".tex") || is(m, i, ".surf"))) {
			m->depth = 0;
			i = declaration(m, i);
			continue;
		}
		if (is(m, i, ".pragma") || is(m, i, ".alias")) {
			i = skip_statement(m, i);
			continue;
		}
		if (is(m, i, ".section")) {
			/* debug sections: a balanced block */
			size_t k = i + 1;
			int depth = 0;
			for (; k < m->nt; k++) {
				if (punct(m, k, '{'))
					depth++;
				else if (punct(m, k, '}') && --depth == 0)
					break;
			}
			i = k + 1;
			continue;
		}
		/* stray tokens at module level (a '}' too): past them */
		unreadable(m, i);
		{
			size_t next = skip_statement(m, i);
			i = next > i ? next : i + 1;
		}
	}
}

/* ---- 3. decisions ---- */

static bool op_is(const struct module *m, const struct instr *in, const char *op)
{
	return is(m, in->op, op);
}

static bool has_mod(const struct module *m, const struct instr *in, const char *mod)
{
	for (size_t k = 0; k < in->nmods; k++)
		if (is(m, in->mod0 + k, mod))
			return true;
	return false;
}

/* The taint (1 + var) of a value token: a module variable by name, a
 * tainted register; 0 when none. */
static size_t tok_taint(const struct module *m, size_t k)
{
	const struct tok *t = &m->t[k];
	size_t v;
	if (t->k != T_IDENT)
		return 0;
	if ((v = find_var(m, t)) != 0)
		return v;
	return m->ids[k] != SIZE_MAX ? m->taint[m->ids[k]] : 0;
}

static size_t operand_taint(const struct module *m, const struct operand *o)
{
	for (size_t k = o->t0; k < o->t1; k++) {
		size_t t = tok_taint(m, k);
		if (t)
			return t;
	}
	return 0;
}

/* Taints every register or parameter name of o with t; true when one was new. */
static bool taint_operand(struct module *m, const struct operand *o, size_t t)
{
	bool changed = false;
	for (size_t k = o->t0; k < o->t1; k++)
		if (m->t[k].k == T_IDENT && m->ids[k] != SIZE_MAX && !m->taint[m->ids[k]]) {
			m->taint[m->ids[k]] = t;
			changed = true;
		}
	return changed;
}

static bool taint_name(struct module *m, size_t func, const char *name, size_t t)
{
	char buf[PTX_NAME_MAX * 2 + 32];
	size_t id;
	snprintf(buf, sizeof(buf), "%zu:%s", func, name);
	id = intern(m, buf);
	if (m->taint[id])
		return false;
	m->taint[id] = t;
	return true;
}

static size_t name_taint(struct module *m, size_t func, const char *name)
{
	char buf[PTX_NAME_MAX * 2 + 32];
	size_t id;
	snprintf(buf, sizeof(buf), "%zu:%s", func, name);
	id = intern(m, buf);  /* may grow the table */
	return m->taint[id];
}

/* Opcodes whose memory operands are only read. */
static bool reads_only(const struct module *m, const struct instr *in)
{
	static const char *const ops[] = { "ld", "ldu", "prefetch", "prefetchu", "ldmatrix", "tex", "tld4", "suld",
					   "txq", "suq", "isspacep", "applypriority", "createpolicy", "istypep" };
	for (size_t k = 0; k < SC_ARRAY_SIZE(ops); k++)
		if (op_is(m, in, ops[k]))
			return true;
	return op_is(m, in, "wmma") && has_mod(m, in, ".load");
}

static bool atomic_op(const struct module *m, const struct instr *in)
{
	return op_is(m, in, "atom") || op_is(m, in, "red") || op_is(m, in, "multimem") ||
	       (op_is(m, in, "cp") && has_mod(m, in, ".reduce"));
}

/* Stores (and atomics) whose operand values are written to memory. */
static bool stores_values(const struct module *m, const struct instr *in)
{
	return op_is(m, in, "st") || op_is(m, in, "atom") || op_is(m, in, "red") || op_is(m, in, "multimem") ||
	       op_is(m, in, "stmatrix") || (op_is(m, in, "wmma") && has_mod(m, in, ".store"));
}

/* The base name inside a memory operand [name+off]: its first identifier. */
static size_t bracket_base(const struct module *m, const struct operand *o)
{
	for (size_t k = o->t0; k < o->t1; k++)
		if (m->t[k].k == T_IDENT)
			return k;
	return SIZE_MAX;
}

static const char *const assert_fn = "__assertfail";

static bool runtime_readonly(const char *name)
{
	return !strcmp(name, "vprintf") || !strcmp(name, assert_fn);
}

/*
 * One pass of the taint over every instruction; true when a taint was
 * added (the caller repeats to a fixed point).
 */
static bool propagate(struct module *m)
{
	bool changed = false;

	for (size_t n = 0; n < m->nin; n++) {
		const struct instr *in = &m->in[n];
		struct func *fn = &m->funcs[in->func];
		const struct operand *o = in->nopnd ? &m->opnds[in->opnd0] : NULL;
		size_t t;

		if (!in->nopnd)
			continue;
		if (op_is(m, in, "call")) {
			/* call [(ret),] target, (args)[, proto] */
			size_t target = SIZE_MAX, args = SIZE_MAX, ret = SIZE_MAX;
			for (size_t q = 0; q < in->nopnd; q++) {
				bool paren = punct(m, o[q].t0, '(');
				if (paren && target == SIZE_MAX)
					ret = q;
				else if (!paren && target == SIZE_MAX)
					target = q;
				else if (paren && args == SIZE_MAX)
					args = q;
			}
			if (target == SIZE_MAX)
				continue;
			{
				const struct tok *tt = &m->t[o[target].t0];
				size_t f = tt->s[0] == '%' ? 0 : find_func(m, tt);
				size_t pos = 0;
				if (args != SIZE_MAX)
					for (size_t k = o[args].t0; k < o[args].t1; k++) {
						if (m->t[k].k != T_IDENT)
							continue;
						t = tok_taint(m, k);
						if (t && f && m->funcs[f - 1].defined && pos < PTX_MAX_PARAMS &&
						    pos < m->funcs[f - 1].nparams) {
							if (!m->funcs[f - 1].param_taint[pos]) {
								m->funcs[f - 1].param_taint[pos] = true;
								changed |= taint_name(m, f - 1, m->funcs[f - 1].params[pos], t);
							}
						}
						pos++;
					}
				if (ret != SIZE_MAX && f && m->funcs[f - 1].defined &&
				    (t = name_taint(m, f - 1, "func_retval0")) != 0)
					changed |= taint_operand(m, &o[ret], t);
			}
			continue;
		}
		if (op_is(m, in, "ld") || op_is(m, in, "ldu")) {
			/* a loaded value is not an address of module state, unless
			 * it comes back from where one was put: a parameter (an
			 * argument or a return value), or .local memory */
			if (in->nopnd >= 2 && o[1].bracket) {
				size_t b = bracket_base(m, &o[1]);
				t = 0;
				if (b != SIZE_MAX && has_mod(m, in, ".param"))
					t = tok_taint(m, b);
				else if (has_mod(m, in, ".local"))
					t = fn->local_taint;
				else if (m->addr_vars)
					/* a load from module state where some variable
					 * holds an address (__device__ int *p = &g) may
					 * load that address */
					t = operand_taint(m, &o[1]);
				if (t)
					changed |= taint_operand(m, &o[0], t);
			}
			continue;
		}
		if (stores_values(m, in)) {
			/* values stored: to .param (a call's argument or the return
			 * value), to .local (followed), else an escape (decided
			 * later) */
			size_t addr = SIZE_MAX;
			for (size_t q = 0; q < in->nopnd && addr == SIZE_MAX; q++)
				if (o[q].bracket)
					addr = q;
			for (size_t q = addr == SIZE_MAX ? 0 : addr + 1; q < in->nopnd; q++) {
				if (!(t = operand_taint(m, &o[q])))
					continue;
				if (op_is(m, in, "st") && has_mod(m, in, ".param") && addr != SIZE_MAX) {
					size_t b = bracket_base(m, &o[addr]);
					if (b != SIZE_MAX && m->ids[b] != SIZE_MAX && !m->taint[m->ids[b]]) {
						m->taint[m->ids[b]] = t;
						changed = true;
					}
				} else if (op_is(m, in, "st") && has_mod(m, in, ".local") && !fn->local_taint) {
					fn->local_taint = t;
					changed = true;
				}
			}
			continue;
		}
		if (op_is(m, in, "setp") || op_is(m, in, "bra") || op_is(m, in, "cp") || op_is(m, in, "ret") ||
		    reads_only(m, in))
			continue;
		/* any other instruction: its first operand is its result,
		 * derived from the others */
		for (size_t q = 1; q < in->nopnd; q++)
			if (!o[q].bracket && (t = operand_taint(m, &o[q])) != 0)
				changed |= taint_operand(m, &o[0], t);
	}
	return changed;
}

static void name_of(char *dst, size_t cap, const struct tok *t)
{
	size_t n = t->n < cap - 1 ? t->n : cap - 1;
	memcpy(dst, t->s, n);
	dst[n] = '\0';
}

/* Extern and runtime functions referenced by an instruction: any name of
 * a function the module declares but does not define, and the target of
 * a call that the module does not define at all. */
static void check_calls(struct module *m, const struct instr *in)
{
	const struct operand *o = in->nopnd ? &m->opnds[in->opnd0] : NULL;
	size_t target = SIZE_MAX;

	/* the target of a call: its first operand outside parentheses */
	for (size_t q = 0; op_is(m, in, "call") && q < in->nopnd && target == SIZE_MAX; q++)
		if (!punct(m, o[q].t0, '('))
			target = q;
	for (size_t q = 0; q < in->nopnd; q++)
		for (size_t k = o[q].t0; k < o[q].t1; k++) {
			const struct tok *t = &m->t[k];
			char nm[PTX_NAME_MAX];
			size_t f;
			if (t->k != T_IDENT || t->s[0] == '%')
				continue;
			f = find_func(m, t);
			if (f ? m->funcs[f - 1].defined : !(q == target && k == o[q].t0))
				continue;
			name_of(nm, sizeof(nm), t);
			if (!strcmp(nm, "vprintf"))
				flag(m, "printf", in->line, in->bol);
			else if (!strcmp(nm, "malloc") || !strcmp(nm, "free") || !strcmp(nm, "__nv_aligned_device_malloc"))
				flag(m, "device_heap", in->line, in->bol);
			else if (!strncmp(nm, "cuda", 4))
				flag(m, "device_launch", in->line, in->bol);
			else if (strcmp(nm, assert_fn))
				flag(m, "extern_call", in->line, in->bol);
		}
}

/* The writes and atomics of an instruction to module state. */
static void check_memory(struct module *m, const struct instr *in)
{
	const struct operand *o = in->nopnd ? &m->opnds[in->opnd0] : NULL;
	bool first_bracket = true;
	size_t t;

	if (op_is(m, in, "call")) {
		/* an address passed to a function that is not the module's own
		 * (indirect, or external) */
		size_t target = SIZE_MAX;
		for (size_t q = 0; q < in->nopnd; q++) {
			bool paren = punct(m, o[q].t0, '(');
			if (!paren && target == SIZE_MAX) {
				target = q;
				continue;
			}
			if (paren && target != SIZE_MAX && (t = operand_taint(m, &o[q])) != 0) {
				const struct tok *tt = &m->t[o[target].t0];
				size_t f = tt->s[0] == '%' ? 0 : find_func(m, tt);
				char nm[PTX_NAME_MAX];
				name_of(nm, sizeof(nm), tt);
				if (!(f && m->funcs[f - 1].defined) && !runtime_readonly(nm))
					flag(m, "device_state", in->line, in->bol);
			}
		}
		return;
	}
	for (size_t q = 0; q < in->nopnd; q++) {
		if (!o[q].bracket)
			continue;
		t = 0;
		for (size_t k = o[q].t0; k < o[q].t1 && !t; k++)
			t = tok_taint(m, k);
		if (t && !reads_only(m, in) && !(op_is(m, in, "cp") && !first_bracket) &&
		    !(op_is(m, in, "st") && has_mod(m, in, ".param"))) {
			/* written state, atomically or not */
			flag(m, "device_state", in->line, in->bol);
			if (atomic_op(m, in))
				flag(m, "module_atomic", in->line, in->bol);
		}
		first_bracket = false;
	}
	/* an address of module state stored to memory the scan does not follow */
	if (stores_values(m, in) && !(op_is(m, in, "st") && (has_mod(m, in, ".param") || has_mod(m, in, ".local")))) {
		bool after = false;
		for (size_t q = 0; q < in->nopnd; q++) {
			if (o[q].bracket) {
				after = true;
				continue;
			}
			if (after && operand_taint(m, &o[q]))
				flag(m, "device_state", in->line, in->bol);
		}
	}
}

/* Special registers that time, count or carry the driver's state. */
static const char *special_kind(const struct tok *t)
{
	static const char *const clocks[] = { "%clock", "%clock_hi", "%clock64", "%globaltimer", "%globaltimer_lo",
					      "%globaltimer_hi" };
	char nm[32];
	if (t->k != T_IDENT || t->s[0] != '%' || t->n >= sizeof(nm))
		return NULL;
	name_of(nm, sizeof(nm), t);
	for (size_t k = 0; k < SC_ARRAY_SIZE(clocks); k++)
		if (!strcmp(nm, clocks[k]))
			return "clock_read";
	if (!strcmp(nm, "%gridid") || !strcmp(nm, "%current_graph_exec"))
		return "special_register";
	if (!strncmp(nm, "%pm", 3) && isdigit((unsigned char)nm[3]) &&
	    (!nm[4] || !strcmp(nm + 4, "_64")))
		return "special_register";
	if (!strncmp(nm, "%envreg", 7) && isdigit((unsigned char)nm[7]))
		return "special_register";
	return NULL;
}

/* ---- precision ---- */

struct ftype {
	const char *name;
	int mant, exp;
};

/* Floating types of PTX instructions: mantissa and exponent bits. */
static const struct ftype ftypes[] = {
	{ ".f64", 52, 11 }, { ".f32", 23, 8 }, { ".tf32", 10, 8 }, { ".bf16", 7, 8 }, { ".bf16x2", 7, 8 },
	{ ".f16", 10, 5 }, { ".f16x2", 10, 5 }, { ".e4m3", 3, 4 }, { ".e4m3x2", 3, 4 }, { ".e4m3x4", 3, 4 },
	{ ".e5m2", 2, 5 }, { ".e5m2x2", 2, 5 }, { ".e5m2x4", 2, 5 }, { ".e2m3", 3, 2 }, { ".e2m3x2", 3, 2 },
	{ ".e2m3x4", 3, 2 }, { ".e3m2", 2, 3 }, { ".e3m2x2", 2, 3 }, { ".e3m2x4", 2, 3 }, { ".e2m1", 1, 2 },
	{ ".e2m1x2", 1, 2 }, { ".e2m1x4", 1, 2 }, { ".ue8m0", 0, 8 }, { ".ue8m0x2", 0, 8 }, { ".ue4m3", 3, 4 },
};

static const struct ftype *ftype_of(const struct module *m, size_t k)
{
	for (size_t i = 0; i < SC_ARRAY_SIZE(ftypes); i++)
		if (is(m, k, ftypes[i].name))
			return &ftypes[i];
	return NULL;
}

static void precision_bits(enum sc_precision p, int *mant, int *exp)
{
	static const int bits[][2] = { { 23, 8 }, { 10, 8 }, { 7, 8 }, { 10, 5 }, { 3, 4 } };
	*mant = bits[p][0];
	*exp = bits[p][1];
}

/* Opcodes that move bits and compute nothing in their type. */
static bool moves_only(const struct module *m, const struct instr *in)
{
	static const char *const ops[] = { "ld", "ldu", "st", "mov", "shfl", "prmt", "cp", "cvta", "ldmatrix",
					   "stmatrix", "movmatrix", "selp" };
	for (size_t k = 0; k < SC_ARRAY_SIZE(ops); k++)
		if (op_is(m, in, ops[k]))
			return true;
	return false;
}

/* Integer types of an integer quantization. */
static bool narrow_int(const struct module *m, size_t k)
{
	return is(m, k, ".s8") || is(m, k, ".u8") || is(m, k, ".s4") || is(m, k, ".u4") || is(m, k, ".b1") ||
	       is(m, k, ".s16") || is(m, k, ".u16") || is(m, k, ".s2") || is(m, k, ".u2");
}

/* Any integer or bit type modifier (of a cvt's two types). */
static bool int_type(const struct module *m, size_t k)
{
	return narrow_int(m, k) || is(m, k, ".s32") || is(m, k, ".u32") || is(m, k, ".s64") || is(m, k, ".u64") ||
	       is(m, k, ".b8") || is(m, k, ".b16") || is(m, k, ".b32") || is(m, k, ".b64");
}

/*
 * A cvt that quantizes: its destination type (the first of its two type
 * modifiers, cvt.dtype.atype) a narrow integer, its source (the last) a
 * float. The other direction, a narrow integer widened to a float (the
 * dequantization of int4 or int8 weights), computes nothing narrow.
 */
static bool cvt_quantizes(const struct module *m, const struct instr *in)
{
	size_t first = SIZE_MAX, last = SIZE_MAX;
	for (size_t k = 0; k < in->nmods; k++)
		if (ftype_of(m, in->mod0 + k) || int_type(m, in->mod0 + k)) {
			if (first == SIZE_MAX)
				first = in->mod0 + k;
			last = in->mod0 + k;
		}
	return first != SIZE_MAX && first != last && narrow_int(m, first) && ftype_of(m, last);
}

/* Register equivalence through plain copies (mov.b32/mov.f32), for the
 * compensated split. */
static size_t copy_root(const struct module *m, size_t *parent, size_t id)
{
	SC_UNUSED(m);
	while (parent[id] != id)
		id = parent[id] = parent[parent[id]];
	return id;
}

static size_t reg_id(const struct module *m, const struct operand *o)
{
	if (o->t1 != o->t0 + 1 || m->t[o->t0].k != T_IDENT)
		return SIZE_MAX;
	return m->ids[o->t0];
}

/*
 * Is every TF32 conversion half of a compensated split? hi = cvt(x) with
 * x - hi computed (sub, or add of its negation), and lo = cvt of such a
 * difference. Equivalence through copies (mov). At least one split.
 */
static bool tf32_compensated(struct module *m)
{
	size_t *parent = sc_xcalloc(m->nnames ? m->nnames : 1, sizeof(size_t));
	size_t *neg = sc_xcalloc(m->nnames ? m->nnames : 1, sizeof(size_t));
	bool ok = true, any = false;

	for (size_t i = 0; i < m->nnames; i++) {
		parent[i] = i;
		neg[i] = SIZE_MAX;
	}
	for (size_t n = 0; n < m->nin; n++) {
		const struct instr *in = &m->in[n];
		const struct operand *o = in->nopnd ? &m->opnds[in->opnd0] : NULL;
		if (in->nopnd == 2 && (op_is(m, in, "mov") || op_is(m, in, "neg"))) {
			size_t a = reg_id(m, &o[0]), b = reg_id(m, &o[1]);
			if (a == SIZE_MAX || b == SIZE_MAX)
				continue;
			if (op_is(m, in, "mov"))
				parent[copy_root(m, parent, a)] = copy_root(m, parent, b);
			else
				neg[a] = b;
		}
	}
	for (size_t n = 0; n < m->nin && ok; n++) {
		const struct instr *in = &m->in[n];
		const struct operand *o = in->nopnd ? &m->opnds[in->opnd0] : NULL;
		size_t hi, x;
		bool split = false, residual = false;
		if (!(op_is(m, in, "cvt") && has_mod(m, in, ".tf32")) || in->nopnd != 2)
			continue;
		hi = reg_id(m, &o[0]);
		x = reg_id(m, &o[1]);
		if (hi == SIZE_MAX || x == SIZE_MAX) {
			ok = false;
			break;
		}
		hi = copy_root(m, parent, hi);
		x = copy_root(m, parent, x);
		for (size_t q = 0; q < m->nin && !(split && residual); q++) {
			const struct instr *s = &m->in[q];
			const struct operand *so = s->nopnd ? &m->opnds[s->opnd0] : NULL;
			size_t r, a, b;
			if (s->nopnd != 3 || !(op_is(m, s, "sub") || op_is(m, s, "add")) || !has_mod(m, s, ".f32"))
				continue;
			r = reg_id(m, &so[0]);
			a = reg_id(m, &so[1]);
			b = reg_id(m, &so[2]);
			if (r == SIZE_MAX || a == SIZE_MAX || b == SIZE_MAX)
				continue;
			r = copy_root(m, parent, r);
			a = copy_root(m, parent, a);
			if (op_is(m, s, "add"))
				b = neg[b] != SIZE_MAX ? neg[b] : SIZE_MAX;
			if (b == SIZE_MAX)
				continue;
			b = copy_root(m, parent, b);
			if (a == x && b == hi)
				split = true;  /* hi: its residual is taken */
			if (r == x)
				residual = true;  /* lo: the conversion of a residual */
		}
		if (!split && !residual)
			ok = false;
		any |= split;
	}
	free(parent);
	free(neg);
	return ok && any;
}

/* The precision flags of the module (after parsing). */
static void check_precision(struct module *m)
{
	const struct sc_ptx_rules *r = m->rules;
	int pm, pe;
	size_t tf32_at = SIZE_MAX;

	precision_bits(r->precision, &pm, &pe);
	for (size_t n = 0; n < m->nin; n++) {
		const struct instr *in = &m->in[n];
		if (moves_only(m, in))
			continue;
		for (size_t k = 0; k < in->nmods; k++) {
			const struct ftype *f = ftype_of(m, in->mod0 + k);
			if (!f)
				continue;
			if (f->mant >= pm && f->exp >= pe)
				continue;
			if (!strcmp(f->name, ".tf32") && r->precision == SC_PRECISION_FP32 && r->compensated_tf32) {
				if (tf32_at == SIZE_MAX)
					tf32_at = n;
				continue;
			}
			flag(m, "precision_downcast", in->line, in->bol);
		}
		if (!r->float_outputs)
			continue;
		/* integer quantization: a float converted to a narrow integer,
		 * byte dot products, integer tensor-core MMA */
		if (op_is(m, in, "dp4a") || op_is(m, in, "dp2a") || (op_is(m, in, "cvt") && cvt_quantizes(m, in)))
			flag(m, "precision_downcast", in->line, in->bol);
		for (size_t k = 0; k < in->nmods; k++)
			if (narrow_int(m, in->mod0 + k) && (op_is(m, in, "mma") || op_is(m, in, "wgmma") ||
							     (op_is(m, in, "wmma") && !has_mod(m, in, ".store"))))
				flag(m, "precision_downcast", in->line, in->bol);
	}
	if (tf32_at != SIZE_MAX && !tf32_compensated(m))
		flag(m, "precision_downcast", m->in[tf32_at].line, m->in[tf32_at].bol);
}

int sc_scan_ptx(struct sc_scan *out, const char *ptx, size_t len, const struct sc_ptx_rules *rules)
{
	struct module m;

	memset(&m, 0, sizeof(m));
	m.text = ptx;
	m.end = ptx + len;
	m.out = out;
	m.rules = rules;
	if (memchr(ptx, '\0', len))
		flag(&m, "ptx_unreadable", 1, "the PTX contains a NUL byte");
	tokenise(&m, ptx, len);
	m.ids = sc_xmalloc((m.nt ? m.nt : 1) * sizeof(size_t));
	for (size_t i = 0; i < m.nt; i++)
		m.ids[i] = SIZE_MAX;
	parse(&m);
	/* every special register, anywhere in a function or declaration */
	for (size_t i = 0; i < m.nt; i++) {
		const char *k = special_kind(&m.t[i]);
		if (k)
			flag(&m, k, m.t[i].line, m.t[i].bol);
	}
	for (size_t n = 0; n < m.nin; n++)
		if (op_is(&m, &m.in[n], "nanosleep"))
			flag(&m, "sleep", m.in[n].line, m.in[n].bol);
	while (propagate(&m))
		;
	for (size_t n = 0; n < m.nin; n++) {
		check_calls(&m, &m.in[n]);
		check_memory(&m, &m.in[n]);
	}
	check_precision(&m);
	for (size_t i = 0; i < m.nnames; i++)
		free(m.names[i]);
	free(m.names);
	free(m.taint);
	free(m.t);
	free(m.in);
	free(m.opnds);
	free(m.vars);
	free(m.funcs);
	free(m.decls);
	free(m.ids);
	free(m.hash);
	return 0;
}
