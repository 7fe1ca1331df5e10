/* GitHub Actions workflow commands, outputs and summary (report_github.h). */
#include "common.h"
#include "escape.h"
#include "output.h"
#include "reporters/report_github.h"
#include "reporters/report_fmt.h"
#include "reporters/report_md.h"
#include "results/results.h"
#include "results/verdict.h"

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
 * One annotation (results/verdict.h, notes), in the words of its status:
 * an ::error for a failure ("failed the gate"), a ::warning for an
 * unverified check ("could not be verified"; also one the trusted config
 * accepts: it lets the merge through, and is still no pass) and for the
 * run that could not check ("could not check: the runner's fault"), which
 * carries the cause.
 */
static void annotation(struct sc_buf *out, const struct sc_verdict_note *n)
{
	struct sc_buf title = SC_BUF_INIT;
	bool failed = n->status == SC_STATUS_FAILED;
	const char *skill = n->skill_path && *n->skill_path ? n->skill_path : NULL;

	if (!skill)
		sc_buf_puts(&title, "skillci could not check this pull request (the runner's fault)");
	else
		sc_buf_printf(&title, "skillci: %s %s", skill,
			      failed ? "failed the gate" : n->status == SC_STATUS_ERROR
			      ? "could not be checked (the runner's fault)"
			      : n->accepted ? "could not be verified (accepted by the trusted config)"
			      : "could not be verified");
	if (n->model && *n->model)
		sc_buf_printf(&title, " on %s", n->model);
	if (n->rule)
		sc_buf_printf(&title, " (%s)", n->rule);
	sc_buf_puts(out, failed ? "::error " : "::warning ");
	if (skill || n->file) {
		sc_buf_puts(out, "file=");
		sc_report_gh_escape_property(out, n->file ? n->file : n->skill && n->skill->skill_md
						      ? n->skill->skill_md : skill);
		if (n->line > 0)
			sc_buf_printf(out, ",line=%lld", (long long)n->line);
		sc_buf_putc(out, ',');
	}
	sc_buf_puts(out, "title=");
	sc_report_gh_escape_property(out, title.ptr);
	sc_buf_puts(out, "::");
	sc_report_gh_escape_data(out, n->message && *n->message ? n->message : title.ptr);
	sc_buf_putc(out, '\n');
	sc_buf_release(&title);
}

size_t sc_report_gh_annotations(struct sc_buf *out, const struct sc_results *r)
{
	struct sc_verdicts v;
	size_t written;

	sc_verdict_build(&v, r);
	for (size_t i = 0; i < v.nnotes_written; i++)
		annotation(out, &v.notes[i]);
	written = v.nnotes_written;
	sc_verdict_release(&v);
	return written;
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
static void pooled_rate(struct sc_buf *out, const struct sc_results *r, enum sc_variant variant)
{
	int64_t passed = 0, n = 0;

	sc_buf_clear(out);
	for (size_t i = 0; i < r->naggregates; i++)
		if (r->aggregates[i].variant == variant) {
			passed += r->aggregates[i].passed;
			n += r->aggregates[i].n;
		}
	if (n > 0)
		sc_buf_printf(out, "%.4f", (double)passed / (double)n);
}

int sc_report_gh_outputs(struct sc_buf *out, const struct sc_results *r,
			 const struct sc_gh_paths *paths, const char *md, const char *delim)
{
	struct sc_buf v = SC_BUF_INIT;
	static const enum sc_variant variants[] = { SC_VARIANT_BASELINE, SC_VARIANT_BASE,
						    SC_VARIANT_HEAD };
	struct sc_verdicts vd;
	int err = 0;

	sc_verdict_build(&vd, r);
#define OUT(name, value) do { if ((err = sc_report_gh_output(out, (name), (value), delim)) < 0) goto done; } while (0)
	OUT("verdict", sc_verdict_name(vd.state));
	OUT("passed", vd.blocking ? "false" : "true");
	sc_buf_printf(&v, "%zu", vd.unverified_checks);
	OUT("unverified", v.ptr);
	sc_buf_clear(&v);
	sc_buf_printf(&v, "%d", vd.exit_code);
	OUT("exit_code", v.ptr);
	OUT("summary", vd.headline);
	sc_buf_clear(&v);
	sc_buf_printf(&v, "%zu", sc_report_count_regressions(r));
	OUT("regressions", v.ptr);
	sc_buf_clear(&v);
	sc_buf_printf(&v, "%zu", vd.nnotes_written);  /* what sc_report_gh_annotations writes */
	OUT("annotations", v.ptr);
	for (size_t i = 0; i < SC_ARRAY_SIZE(variants); i++) {
		struct sc_buf name = SC_BUF_INIT;
		sc_buf_printf(&name, "pass_rate_%s", sc_variant_name(variants[i]));
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
	sc_verdict_release(&vd);
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

/* A setup failure's Markdown: the step summary and the sticky comment. */
static void setup_markdown(struct sc_buf *out, const char *msg, const char *hint, int rc)
{
	sc_buf_printf(out, "## skillci report\n\n%s **skillci could not check this pull request: ",
		      sc_report_verdict_icon(SC_VERDICT_ERROR));
	sc_report_md_text(out, msg);
	sc_buf_printf(out, ".** (exit %d)\n\n**What to do:** ", rc);
	sc_report_md_text(out, hint);
	sc_buf_puts(out, ".\n\nNothing was judged, so nothing passed.\n");
}

/* Its ::error annotation line, with its newline. */
static void setup_annotation(struct sc_buf *out, const char *msg, const char *hint)
{
	sc_buf_puts(out, "::error title=skillci run could not check this pull request::");
	sc_report_gh_escape_data(out, msg);
	sc_report_gh_escape_data(out, ". What to do: ");
	sc_report_gh_escape_data(out, hint);
	sc_buf_putc(out, '\n');
}

/* Its outputs: verdict error, passed false, exit_code, summary, complete
 * false, markdown_summary md. */
static int setup_outputs(struct sc_buf *out, const char *msg, const char *hint, int rc,
			 const char *md, const char *delim)
{
	struct sc_buf v = SC_BUF_INIT, sum = SC_BUF_INIT;
	int err;

	sc_buf_printf(&v, "%d", rc);
	sc_buf_printf(&sum, "skillci could not check this pull request: %s; %s", msg, hint);
	if (!(err = sc_report_gh_output(out, "verdict", sc_verdict_name(SC_VERDICT_ERROR), delim)) &&
	    !(err = sc_report_gh_output(out, "passed", "false", delim)) &&
	    !(err = sc_report_gh_output(out, "exit_code", v.ptr, delim)) &&
	    !(err = sc_report_gh_output(out, "summary", sum.ptr, delim)) &&
	    !(err = sc_report_gh_output(out, "complete", "false", delim)))
		err = sc_report_gh_output(out, "markdown_summary", md, delim);
	sc_buf_release(&v);
	sc_buf_release(&sum);
	return err;
}

int sc_report_gh_setup_failure(FILE *out, struct sc_buf *md, struct sc_buf *warnings,
			       const char *msg, const char *hint, int rc)
{
	struct sc_buf line = SC_BUF_INIT, outs = SC_BUF_INIT, delim = SC_BUF_INIT;
	const char *summary = getenv("GITHUB_STEP_SUMMARY"), *output = getenv("GITHUB_OUTPUT");
	int err = 0, e;

	setup_markdown(md, msg, hint, rc);
	setup_annotation(&line, msg, hint);
	fputs(line.ptr, out);
	fflush(out);
	if (summary && *summary && (e = sc_report_gh_append_file(summary, md->ptr, md->len)) < 0) {
		sc_buf_printf(warnings, "%s\n", sc_error_last());
		err = e;
	}
	if (output && *output) {
		sc_report_gh_delimiter(&delim);
		if ((e = setup_outputs(&outs, msg, hint, rc, md->ptr, delim.ptr)) < 0 ||
		    (e = sc_report_gh_append_file(output, outs.ptr, outs.len)) < 0) {
			sc_buf_printf(warnings, "%s\n", sc_error_last());
			err = err ? err : e;
		}
	}
	sc_buf_release(&line);
	sc_buf_release(&outs);
	sc_buf_release(&delim);
	return err;
}
