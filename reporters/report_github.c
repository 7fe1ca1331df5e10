/* GitHub Actions workflow commands, outputs and summary (report_github.h). */
#include "common.h"
#include "escape.h"
#include "output.h"
#include "reporters/report_github.h"
#include "reporters/report_fmt.h"
#include "reporters/report_md.h"
#include "results/results.h"

#include <fcntl.h>
#include <math.h>
#include <sys/random.h>
#include <unistd.h>

void sc_report_gh_escape_data(struct sc_buf *out, const char *s)
{
	sc_escape_gh_data(out, s);
}

void sc_report_gh_escape_property(struct sc_buf *out, const char *s)
{
	sc_escape_gh_property(out, s);
}

/*
 * One annotation for a check that blocks the merge, in the words of its
 * status: an ::error for a failure ("failed the gate"), a ::warning for
 * an unverified check ("could not be verified") and for a check the
 * runner could not make ("could not be checked: the runner's fault");
 * also a ::warning for an unverified check the trusted config accepts
 * (status "accepted"): it lets the merge through, and is still no pass.
 */
static void annotation(struct sc_buf *out, const struct sc_results_skill *s, const char *skill,
		       const char *model, const char *status, const char *rule, const char *file,
		       int64_t line, const char *message)
{
	struct sc_buf title = SC_BUF_INIT;
	bool failed = !status || sc_streq(status, "failed");

	sc_buf_printf(&title, "skillci: %s %s", skill,
		      failed ? "failed the gate" : sc_streq(status, "error")
		      ? "could not be checked (the runner's fault)"
		      : sc_streq(status, "accepted") ? "could not be verified (accepted by the trusted config)"
		      : "could not be verified");
	if (model && *model)
		sc_buf_printf(&title, " on %s", model);
	if (rule)
		sc_buf_printf(&title, " (%s)", rule);
	sc_buf_puts(out, failed ? "::error file=" : "::warning file=");
	sc_report_gh_escape_property(out, file ? file : s && s->skill_md ? s->skill_md : skill);
	if (line > 0)
		sc_buf_printf(out, ",line=%lld", (long long)line);
	sc_buf_puts(out, ",title=");
	sc_report_gh_escape_property(out, title.ptr);
	sc_buf_puts(out, "::");
	sc_report_gh_escape_data(out, message && *message ? message : title.ptr);
	sc_buf_putc(out, '\n');
	sc_buf_release(&title);
}

size_t sc_report_gh_annotations(struct sc_buf *out, const struct sc_results *r)
{
	size_t found = 0;

	for (size_t i = 0; i < r->gate.nfailures; i++) {
		const struct sc_results_gate_failure *f = &r->gate.failures[i];
		if (!f->skill || !*f->skill)
			continue;   /* run-wide (error_share): not about a file */
		if (found++ < SC_REPORT_MAX_ANNOTATIONS)
			annotation(out, sc_results_find_skill(r, f->skill), f->skill, f->model, f->status,
				   f->rule, f->file, f->line, f->message);
	}
	for (size_t i = 0; i < r->gate.nchecks; i++) {
		const struct sc_results_check *c = &r->gate.checks[i];
		if (!c->accepted || !sc_streq(c->status, "unverified") || !c->skill || !*c->skill)
			continue;
		if (found++ < SC_REPORT_MAX_ANNOTATIONS)
			annotation(out, sc_results_find_skill(r, c->skill), c->skill, c->model, "accepted",
				   c->rule, c->file, c->line, c->message);
	}
	for (size_t i = 0; i < r->nskills; i++) {
		const struct sc_results_skill *s = &r->skills[i];
		bool listed = false;
		struct sc_buf why = SC_BUF_INIT;
		size_t ff, nf;

		if (s->gate_passed)
			continue;
		nf = sc_results_failures_of(r, s->path, &ff);
		for (size_t f = ff; f < ff + nf && !listed; f++)
			listed = sc_streq(sc_results_failure_at(r, f)->skill, s->path);
		if (listed)
			continue;
		for (size_t k = 0; k < s->ngate_reasons; k++)
			sc_buf_printf(&why, "%s%s", k ? "\n" : "", s->gate_reasons[k]);
		if (found++ < SC_REPORT_MAX_ANNOTATIONS)
			annotation(out, s, s->path, NULL, NULL, NULL, NULL, 0, why.ptr);
		sc_buf_release(&why);
	}
	return found < SC_REPORT_MAX_ANNOTATIONS ? found : SC_REPORT_MAX_ANNOTATIONS;
}

void sc_report_gh_delimiter(struct sc_buf *out)
{
	unsigned char rnd[16];
	size_t got = 0;

	while (got < sizeof(rnd)) {
		ssize_t n = getrandom(rnd + got, sizeof(rnd) - got, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			sc_die("cannot read random bytes: %s", strerror(errno));
		}
		got += (size_t)n;
	}
	sc_buf_clear(out);
	sc_buf_puts(out, "ghadelimiter_");
	sc_hex(out, rnd, sizeof(rnd));
}

int sc_report_gh_output(struct sc_buf *out, const char *name, const char *value, const char *delim)
{
	if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") != strlen(name))
		return sc_error_set(SC_EINVAL, "output name '%s' is not valid", name);
	struct sc_buf v = SC_BUF_INIT;
	int err = 0;

	sc_escape_gh_output(&v, value);  /* controls as text; line feeds kept */
	if (!strchr(v.ptr, '\n')) {
		sc_buf_printf(out, "%s=%s\n", name, v.ptr);
	} else if (strstr(v.ptr, delim)) {
		err = sc_error_set(SC_EINVAL, "output '%s' contains its delimiter", name);
	} else {
		sc_buf_printf(out, "%s<<%s\n%s\n%s\n", name, delim, v.ptr, delim);
	}
	sc_buf_release(&v);
	return err;
}

/* Pooled pass rate of one variant over all skills and models. */
static void pooled_rate(struct sc_buf *out, const struct sc_results *r, const char *variant)
{
	int64_t passed = 0, n = 0;

	sc_buf_clear(out);
	for (size_t i = 0; i < r->naggregates; i++)
		if (sc_streq(r->aggregates[i].variant, variant)) {
			passed += r->aggregates[i].passed;
			n += r->aggregates[i].n;
		}
	if (n > 0)
		sc_buf_printf(out, "%.4f", (double)passed / (double)n);
}

int sc_report_gh_outputs(struct sc_buf *out, const struct sc_results *r,
			 const struct sc_gh_paths *paths, const char *md, const char *delim)
{
	struct sc_buf v = SC_BUF_INIT, scratch = SC_BUF_INIT;
	static const char *const variants[] = { "baseline", "base", "head" };
	int err = 0;

#define OUT(name, value) do { if ((err = sc_report_gh_output(out, (name), (value), delim)) < 0) goto done; } while (0)
	OUT("verdict", sc_verdict_name(r->gate.verdict));
	OUT("passed", r->gate.passed ? "true" : "false");
	sc_buf_printf(&v, "%lld", (long long)r->gate.unverified);
	OUT("unverified", v.ptr);
	sc_buf_clear(&v);
	sc_buf_printf(&v, "%lld", (long long)r->gate.exit_code);
	OUT("exit_code", v.ptr);
	sc_buf_clear(&v);
	sc_report_verdict_text(&v, r);
	OUT("summary", v.ptr);
	sc_buf_clear(&v);
	sc_buf_printf(&v, "%zu", sc_report_count_regressions(r));
	OUT("regressions", v.ptr);
	sc_buf_clear(&v);
	sc_buf_printf(&v, "%zu", sc_report_gh_annotations(&scratch, r));
	OUT("annotations", v.ptr);
	for (size_t i = 0; i < SC_ARRAY_SIZE(variants); i++) {
		struct sc_buf name = SC_BUF_INIT;
		sc_buf_printf(&name, "pass_rate_%s", variants[i]);
		pooled_rate(&v, r, variants[i]);
		err = sc_report_gh_output(out, name.ptr, v.ptr, delim);
		sc_buf_release(&name);
		if (err < 0)
			goto done;
	}
	OUT("oracle", r->run.oracle ? "true" : "false");
	OUT("complete", r->run.complete ? "true" : "false");
	if (paths) {
		OUT("junit", paths->junit ? paths->junit : "");
		OUT("markdown", paths->markdown ? paths->markdown : "");
		OUT("html", paths->html ? paths->html : "");
		OUT("json", paths->json ? paths->json : "");
	}
	if (md)
		OUT("markdown_summary", md);
#undef OUT
done:
	sc_buf_release(&v);
	sc_buf_release(&scratch);
	return err;
}

int sc_report_gh_append_file(const char *path, const char *data, size_t len)
{
	return sc_output_append_file(path, data, len);
}

int sc_report_gh_append_summary(const char *path, const char *md, size_t len)
{
	struct sc_buf esc = SC_BUF_INIT;
	int err;

	sc_escape_gh_summary(&esc, md, len);
	err = sc_output_append_file(path, esc.ptr, esc.len);
	sc_buf_release(&esc);
	return err;
}
