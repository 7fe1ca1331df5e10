/* The spec expression evaluator: a recursive-descent parser over int64. */
#include "common.h"
#include "expr.h"

#include <ctype.h>

struct parser {
	const char *src;
	const char *p;
	const struct sc_expr_var *vars;
	size_t nvars;
	int depth;
};

#define EXPR_MAX_DEPTH 64

static int parse_sum(struct parser *ps, int64_t *out);

static int fail(struct parser *ps, const char *what)
{
	return sc_error_set(SC_EINVAL, "%s at column %d of '%s'", what,
			    (int)(ps->p - ps->src) + 1, ps->src);
}

static void skip_ws(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

static int checked(struct parser *ps, int op, int64_t a, int64_t b, int64_t *out)
{
	bool ovf = false;

	switch (op) {
	case '+': ovf = __builtin_add_overflow(a, b, out); break;
	case '-': ovf = __builtin_sub_overflow(a, b, out); break;
	case '*': ovf = __builtin_mul_overflow(a, b, out); break;
	case '/':
	case '%':
	case 'c':
		if (b == 0)
			return fail(ps, "division by zero");
		if (a == INT64_MIN && b == -1)
			return fail(ps, "overflow");
		if (op == '/')
			*out = a / b;
		else if (op == '%')
			*out = a % b;
		else
			*out = a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
		break;
	default:
		assert(0);
	}
	return ovf ? fail(ps, "integer overflow") : 0;
}

/* primary: number | name | name(args) | (sum) | -primary */
static int parse_primary(struct parser *ps, int64_t *out)
{
	int err;

	skip_ws(ps);
	if (++ps->depth > EXPR_MAX_DEPTH)
		return fail(ps, "expression nested too deeply");
	if (*ps->p == '(') {
		ps->p++;
		if ((err = parse_sum(ps, out)) < 0)
			return err;
		skip_ws(ps);
		if (*ps->p != ')')
			return fail(ps, "expected ')'");
		ps->p++;
	} else if (*ps->p == '-' || *ps->p == '+') {
		int neg = *ps->p == '-';
		int64_t v;
		ps->p++;
		if ((err = parse_primary(ps, &v)) < 0)
			return err;
		if (neg && v == INT64_MIN)
			return fail(ps, "integer overflow");
		*out = neg ? -v : v;
	} else if (isdigit((unsigned char)*ps->p)) {
		int64_t v = 0;
		while (isdigit((unsigned char)*ps->p)) {
			if (__builtin_mul_overflow(v, 10, &v) ||
			    __builtin_add_overflow(v, *ps->p - '0', &v))
				return fail(ps, "integer overflow");
			ps->p++;
		}
		*out = v;
	} else if (isalpha((unsigned char)*ps->p) || *ps->p == '_') {
		const char *start = ps->p;
		size_t len;
		while (isalnum((unsigned char)*ps->p) || *ps->p == '_')
			ps->p++;
		len = (size_t)(ps->p - start);
		skip_ws(ps);
		if (*ps->p == '(') {
			int64_t a, b;
			int op;
			if (len == 8 && !memcmp(start, "ceil_div", 8))
				op = 'c';
			else if (len == 3 && !memcmp(start, "min", 3))
				op = 'm';
			else if (len == 3 && !memcmp(start, "max", 3))
				op = 'M';
			else {
				ps->p = start;
				return fail(ps, "unknown function");
			}
			ps->p++;
			if ((err = parse_sum(ps, &a)) < 0)
				return err;
			skip_ws(ps);
			if (*ps->p != ',')
				return fail(ps, "expected ','");
			ps->p++;
			if ((err = parse_sum(ps, &b)) < 0)
				return err;
			skip_ws(ps);
			if (*ps->p != ')')
				return fail(ps, "expected ')'");
			ps->p++;
			if (op == 'm')
				*out = a < b ? a : b;
			else if (op == 'M')
				*out = a > b ? a : b;
			else if ((err = checked(ps, 'c', a, b, out)) < 0)
				return err;
		} else {
			size_t i;
			for (i = 0; i < ps->nvars; i++)
				if (strlen(ps->vars[i].name) == len &&
				    !memcmp(ps->vars[i].name, start, len))
					break;
			if (i == ps->nvars) {
				ps->p = start;
				return sc_error_set(SC_EINVAL, "unknown name '%.*s' at column %d of '%s'",
						    (int)len, start, (int)(start - ps->src) + 1, ps->src);
			}
			*out = ps->vars[i].value;
		}
	} else {
		return fail(ps, *ps->p ? "unexpected character" : "unexpected end");
	}
	ps->depth--;
	return 0;
}

static int parse_product(struct parser *ps, int64_t *out)
{
	int err;
	int64_t rhs;

	if ((err = parse_primary(ps, out)) < 0)
		return err;
	for (;;) {
		char op;
		skip_ws(ps);
		op = *ps->p;
		if (op != '*' && op != '/' && op != '%')
			return 0;
		ps->p++;
		if ((err = parse_primary(ps, &rhs)) < 0)
			return err;
		if ((err = checked(ps, op, *out, rhs, out)) < 0)
			return err;
	}
}

static int parse_sum(struct parser *ps, int64_t *out)
{
	int err;
	int64_t rhs;

	if ((err = parse_product(ps, out)) < 0)
		return err;
	for (;;) {
		char op;
		skip_ws(ps);
		op = *ps->p;
		if (op != '+' && op != '-')
			return 0;
		ps->p++;
		if ((err = parse_product(ps, &rhs)) < 0)
			return err;
		if ((err = checked(ps, op, *out, rhs, out)) < 0)
			return err;
	}
}

int sc_expr_eval(int64_t *out, const char *expr, const struct sc_expr_var *vars, size_t nvars)
{
	struct parser ps = { expr, expr, vars, nvars, 0 };
	int err;

	if ((err = parse_sum(&ps, out)) < 0)
		return err;
	skip_ws(&ps);
	if (*ps.p)
		return fail(&ps, "unexpected character");
	return 0;
}
