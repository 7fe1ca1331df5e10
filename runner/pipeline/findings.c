/* Findings compared across the two sides of a changed skill (findings.h). */
#include "common.h"
#include "diag.h"
#include "pipeline/findings.h"
#include "results/results.h"

static bool same(const struct sc_diag *a, const struct sc_diag *b)
{
	return a->sev == b->sev && !strcmp(a->code, b->code) && !strcmp(a->file, b->file);
}

static int cmp_diag_ptr(const void *pa, const void *pb)
{
	const struct sc_diag *x = *(const struct sc_diag *const *)pa;
	const struct sc_diag *y = *(const struct sc_diag *const *)pb;
	int c = strcmp(x->file, y->file);

	if (!c)
		c = (x->line > y->line) - (x->line < y->line);
	if (!c)
		c = strcmp(x->code, y->code);
	if (!c)
		c = (x > y) - (x < y);  /* stable: the original order */
	return c;
}

/* The diags of d in their stable order (file, line, code), as pointers. */
static const struct sc_diag **sorted(const struct sc_diags *d, size_t *n)
{
	const struct sc_diag **v;

	*n = d ? d->n : 0;
	v = sc_xcalloc(*n + 1, sizeof(*v));
	for (size_t i = 0; i < *n; i++)
		v[i] = &d->items[i];
	if (*n > 1)
		qsort(v, *n, sizeof(*v), cmp_diag_ptr);
	return v;
}

static void add(struct sc_results_skill *s, size_t *alloc, enum sc_finding_state state,
		const struct sc_diag *d)
{
	struct sc_results_finding *f;

	SC_GROW(s->findings, *alloc, s->nfindings + 1);
	f = &s->findings[s->nfindings++];
	f->state = state;
	f->severity = d->sev;
	f->code = sc_xstrdup(d->code);
	f->file = sc_xstrdup(d->file);
	f->line = (int64_t)d->line;
	f->message = sc_xstrdup(d->message);
}

void sc_findings_compare(struct sc_results_skill *s, const struct sc_diags *base,
			 const struct sc_diags *head)
{
	size_t nb, nh, alloc = 0;
	const struct sc_diag **b = sorted(base, &nb), **h = sorted(head, &nh);
	bool *used = sc_xcalloc(nb + 1, sizeof(*used));

	for (size_t i = 0; i < s->nfindings; i++)
		sc_results_finding_release(&s->findings[i]);
	free(s->findings);
	s->findings = NULL;
	s->nfindings = 0;
	for (size_t i = 0; i < nh; i++) {
		size_t j = 0;
		while (j < nb && (used[j] || !same(b[j], h[i])))
			j++;
		if (j < nb)
			used[j] = true;
		add(s, &alloc, j < nb ? SC_FINDING_EXISTING : SC_FINDING_NEW, h[i]);
	}
	for (size_t j = 0; j < nb; j++)
		if (!used[j])
			add(s, &alloc, SC_FINDING_FIXED, b[j]);
	free(used);
	free(b);
	free(h);
}

void sc_findings_format(struct sc_buf *out, const struct sc_results_finding *f)
{
	sc_buf_puts(out, f->file ? f->file : "");
	if (f->line > 0)
		sc_buf_printf(out, ":%lld", (long long)f->line);
	sc_buf_printf(out, ": %s: %s", sc_severity_name(f->severity), f->message ? f->message : "");
	if (f->code && *f->code)
		sc_buf_printf(out, " [%s]", f->code);
	sc_buf_puts(out, f->state == SC_FINDING_NEW ? " (head, new)"
			 : f->state == SC_FINDING_EXISTING ? " (head, pre-existing: also at base)"
			 : " (base, fixed at head)");
}
