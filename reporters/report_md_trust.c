/*
 * The Markdown report's account of what the pull request tried
 * (report_md_int.h): the configuration it would change, what was not
 * taken from it, and its own tests.
 */
#include "common.h"
#include "reporters/report_md.h"
#include "reporters/report_md_int.h"
#include "reporters/report_fmt.h"
#include "results/compare.h"
#include "results/results.h"
#include "results/verdict.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>

/* ---- trust: what the pull request tried ------------------------------- */

/* The banner of a run whose head changed the configuration or tried
 * something else that was refused (docs/security.md). */
void sc_md_trust(struct sc_buf *out, const struct sc_results *r)
{
	const struct sc_results_trust *t = &r->run.trust;

	if (t->nchanges) {
		sc_buf_puts(out, "> **🔒 This pull request changes the configuration; its changes were "
				 "not applied.** The check used ");
		sc_report_md_text(out, t->config ? t->config : "the base revision's configuration");
		sc_buf_puts(out, ". What the head would change:");
		for (size_t i = 0; i < t->nchanges; i++) {
			sc_buf_puts(out, i ? ", " : " ");
			sc_report_md_code(out, t->changes[i].key);
			sc_buf_putc(out, ' ');
			sc_report_md_code(out, t->changes[i].base ? t->changes[i].base : "");
			sc_buf_puts(out, " → ");
			sc_report_md_code(out, t->changes[i].head ? t->changes[i].head : "");
		}
		sc_buf_puts(out, ".\n\n");
	}
	if (t->nnotes) {
		sc_buf_puts(out, "> **🔒 Not taken from the pull request:**\n");
		for (size_t i = 0; i < t->nnotes; i++) {
			sc_buf_puts(out, "> - ");
			sc_report_md_text(out, t->notes[i]);
			sc_buf_puts(out, "\n");
		}
		sc_buf_puts(out, "\n");
	}
}

/* The pull request's own tests: which skills' tests it edits, and how the
 * head skill did on the tests it adds or changes (failing ones named). */
void sc_md_pr_tests(struct sc_buf *out, const struct sc_results *r)
{
	bool any = false;

	for (size_t i = 0; i < r->nskills; i++) {
		const struct sc_results_skill *s = &r->skills[i];
		any |= sc_results_tests_edited(s);
		if (!s->first_tests)
			continue;
		sc_buf_puts(out, "> **🧪 Tests added: they judge later PRs.** ");
		sc_report_md_code(out, s->path);
		sc_buf_printf(out, " had no tests at base; the verdict runs the head's %lld against no "
			      "skill, as for a new skill.\n\n", (long long)s->tests);
	}
	if (!any)
		return;
	sc_buf_puts(out, "> **✏️ This pull request edits tests.** The verdict uses the base revision's "
			 "tests; the tests the head adds or changes are run with the head skill and "
			 "shown here, and do not decide it.\n");
	for (size_t i = 0; i < r->nskills; i++) {
		const struct sc_results_skill *s = &r->skills[i];
		if (!sc_results_tests_edited(s))
			continue;
		sc_buf_puts(out, "> - ");
		sc_report_md_code(out, s->path);
		sc_buf_printf(out, ": %lld changed, %lld added, %lld removed",
			      (long long)s->tests_changed, (long long)s->tests_added,
			      (long long)s->tests_removed);
		size_t af = 0, an = r->sorted ? sc_results_aggregates_range(r, s->path, &af)
					      : r->naggregates;
		for (size_t a = af; a < af + an; a++) {
			const struct sc_results_aggregate *g = &r->aggregates[a];
			size_t shown = 0, uf, un;
			if (!sc_streq(g->skill, s->path) || g->variant != SC_VARIANT_HEAD_TESTS)
				continue;
			sc_buf_puts(out, "; ");
			sc_report_md_code(out, g->model);
			sc_buf_printf(out, " passes %lld of %lld", (long long)g->passed, (long long)g->n);
			if (g->skipped)
				sc_buf_printf(out, " (%lld skipped)", (long long)g->skipped);
			un = sc_results_units_of(r, s->path, g->model, &uf);
			for (size_t u = uf; u < uf + un; u++) {
				const struct sc_results_unit *x = &r->units[u];
				if (!sc_streq(x->skill, s->path) || !sc_streq(x->model, g->model) ||
				    x->variant != SC_VARIANT_HEAD_TESTS ||
				    (x->verdict != SC_UNIT_FAIL && x->verdict != SC_UNIT_ERROR))
					continue;
				if (shown++ == 5) {
					sc_buf_puts(out, ", …");
					break;
				}
				sc_buf_puts(out, shown == 1 ? ", failing: " : ", ");
				sc_report_md_code(out, x->test_name ? x->test_name : x->test_id);
			}
		}
		sc_buf_puts(out, "\n");
	}
	sc_buf_puts(out, "\n");
}
