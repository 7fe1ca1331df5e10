#ifndef SC_KERNEL_EXPR_H
#define SC_KERNEL_EXPR_H
/*
 * Integer expressions of kernel fixture specs ("rows*cols",
 * "ceil_div(n,BLOCK)"): integers, + - * / (integer division) %, unary
 * minus, parentheses, ceil_div(a,b), min(a,b), max(a,b), and names looked
 * up in a variable table (size variables and tunables). Arithmetic is on
 * int64 with overflow and division-by-zero checked.
 */
#include <stdint.h>
#include <stddef.h>

struct sc_expr_var {
	const char *name;  /* borrowed */
	int64_t value;
};

/*
 * Evaluates expr with the given variables into *out. Returns 0, or
 * SC_EINVAL with a message naming the problem and the column ("unknown
 * name 'rws' at column 1 of 'rws*cols'").
 */
int sc_expr_eval(int64_t *out, const char *expr, const struct sc_expr_var *vars, size_t nvars);

#endif
