#include "common.h"
#include "diag.h"
#include "escape.h"

#include <stdarg.h>

void sc_diags_add(struct sc_diags *d, enum sc_severity sev, const char *file, size_t line,
		  const char *code, const char *fmt, ...)
{
	struct sc_buf msg = SC_BUF_INIT;
	struct sc_diag *x;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	SC_GROW(d->items, d->alloc, d->n + 1);
	x = &d->items[d->n++];
	x->sev = sev;
	x->file = sc_xstrdup(file ? file : "");
	x->line = line;
	x->code = sc_xstrdup(code ? code : "");
	x->message = sc_buf_detach(&msg, NULL);
}

void sc_diags_type_error(struct sc_diags *d, const char *file, size_t line, const char *code,
			 const char *what, bool quote, const char *want, const char *found)
{
	const char *q = quote ? "'" : "";

	sc_diags_add(d, SC_SEV_ERROR, file, line, code, "%s%s%s must be %s, found %s", q, what, q,
		     want, found);
}

void sc_diag_path_join(struct sc_buf *out, const char *prefix, const char *name)
{
	sc_buf_sets(out, prefix);
	if (out->len)
		sc_buf_putc(out, '.');
	sc_buf_puts(out, name);
}

size_t sc_diags_count(const struct sc_diags *d, enum sc_severity sev)
{
	size_t n = 0;
	for (size_t i = 0; i < d->n; i++)
		n += d->items[i].sev == sev;
	return n;
}

static int cmp_diag(const void *a, const void *b)
{
	const struct sc_diag *x = a, *y = b;
	int c = strcmp(x->file, y->file);
	if (c)
		return c;
	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return strcmp(x->code, y->code);
}

void sc_diags_sort(struct sc_diags *d)
{
	if (d->n > 1)
		qsort(d->items, d->n, sizeof(*d->items), cmp_diag);
}

void sc_diag_format(struct sc_buf *out, const struct sc_diag *diag)
{
	/* file names and messages come from the repository under test */
	sc_escape_log(out, diag->file);
	if (diag->line)
		sc_buf_printf(out, ":%zu", diag->line);
	sc_buf_printf(out, ": %s: ", diag->sev == SC_SEV_ERROR ? "error" : "warning");
	sc_escape_log(out, diag->message);
	if (diag->code[0])
		sc_buf_printf(out, " [%s]", diag->code);
}

void sc_diags_release(struct sc_diags *d)
{
	for (size_t i = 0; i < d->n; i++) {
		free(d->items[i].file);
		free(d->items[i].code);
		free(d->items[i].message);
	}
	free(d->items);
	d->items = NULL;
	d->n = d->alloc = 0;
}
