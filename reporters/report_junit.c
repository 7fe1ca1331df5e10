/*
 * JUnit XML with libxml2's text writer (report_junit.h). The only file
 * that includes libxml2 headers.
 */
#include "common.h"
#include "reporters/report_junit.h"
#include "reporters/report_fmt.h"
#include "results/results.h"

#include <math.h>
#include <libxml/xmlwriter.h>

/* Decodes one UTF-8 sequence at s (n bytes left); returns its length and
 * sets *cp, or 0 when the bytes are not valid UTF-8. */
static size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	uint32_t c;
	size_t len, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xE0) == 0xC0) {
		len = 2; c = s[0] & 0x1F;
	} else if ((s[0] & 0xF0) == 0xE0) {
		len = 3; c = s[0] & 0x0F;
	} else if ((s[0] & 0xF8) == 0xF0) {
		len = 4; c = s[0] & 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3F);
	}
	if ((len == 2 && c < 0x80) || (len == 3 && c < 0x800) || (len == 4 && c < 0x10000) ||
	    c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

/* XML 1.0 Char: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]. */
static bool xml_char_ok(uint32_t c)
{
	return c == 0x9 || c == 0xA || c == 0xD || (c >= 0x20 && c <= 0xD7FF) ||
	       (c >= 0xE000 && c <= 0xFFFD) || (c >= 0x10000 && c <= 0x10FFFF);
}

void sc_report_xml_clean(struct sc_buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);

	while (n) {
		uint32_t cp = 0;
		size_t len = utf8_decode(p, n, &cp);
		if (len && xml_char_ok(cp)) {
			sc_buf_put(out, p, len);
		} else {
			sc_buf_puts(out, "\xEF\xBF\xBD");
			if (!len)
				len = 1;
		}
		p += len;
		n -= len;
	}
}

/* Cleaned and trimmed copy of s for an attribute or text node. */
static void clean_trim(struct sc_buf *out, const char *s, size_t max)
{
	struct sc_buf t = SC_BUF_INIT;

	sc_buf_clear(out);
	sc_report_trim(&t, s ? s : "", max);
	sc_report_xml_clean(out, t.ptr);
	sc_buf_release(&t);
}

struct jw {
	xmlTextWriterPtr w;
	struct sc_buf tmp;
	int rc;    /* first negative libxml2 return */
};

static void jw_check(struct jw *j, int rc)
{
	if (rc < 0 && j->rc >= 0)
		j->rc = rc;
}

static void jw_start(struct jw *j, const char *name)
{
	jw_check(j, xmlTextWriterStartElement(j->w, BAD_CAST name));
}

static void jw_end(struct jw *j)
{
	jw_check(j, xmlTextWriterEndElement(j->w));
}

static void jw_attr(struct jw *j, const char *name, const char *value, size_t max)
{
	clean_trim(&j->tmp, value, max);
	jw_check(j, xmlTextWriterWriteAttribute(j->w, BAD_CAST name, BAD_CAST j->tmp.ptr));
}

static void jw_attrf(struct jw *j, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void jw_attrf(struct jw *j, const char *name, const char *fmt, ...)
{
	struct sc_buf b = SC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	jw_attr(j, name, b.ptr, SIZE_MAX);
	sc_buf_release(&b);
}

static void jw_text(struct jw *j, const char *text)
{
	clean_trim(&j->tmp, text, SC_REPORT_JUNIT_TEXT_MAX);
	jw_check(j, xmlTextWriterWriteString(j->w, BAD_CAST j->tmp.ptr));
}

static void jw_elem_text(struct jw *j, const char *name, const char *text)
{
	jw_start(j, name);
	jw_text(j, text);
	jw_end(j);
}

static int cmp_unit_ptr(const void *pa, const void *pb)
{
	const struct sc_results_unit *a = *(const struct sc_results_unit *const *)pa;
	const struct sc_results_unit *b = *(const struct sc_results_unit *const *)pb;
	int c;

	if ((c = strcmp(a->skill, b->skill)) || (c = strcmp(a->model, b->model)) ||
	    (c = sc_results_variant_rank(a->variant) - sc_results_variant_rank(b->variant)) ||
	    (c = strcmp(a->variant, b->variant)) || (c = strcmp(a->test_id, b->test_id)))
		return c;
	return (a->run_index > b->run_index) - (a->run_index < b->run_index);
}

static bool same_suite(const struct sc_results_unit *a, const struct sc_results_unit *b)
{
	return !strcmp(a->skill, b->skill) && !strcmp(a->model, b->model) && !strcmp(a->variant, b->variant);
}

/* "key=value" lines for a unit: what the properties would say, for
 * readers that show only system-out. */
static void unit_out(struct sc_buf *out, const struct sc_results_unit *u)
{
	const struct sc_results_kernel *k = u->kernel;

	sc_buf_printf(out, "test_id=%s\nverdict=%s\n", u->test_id, u->verdict);
	sc_buf_printf(out, "tokens_in=%lld\ntokens_out=%lld\nturns=%lld\nlatency_ms=%lld\n",
		      (long long)u->tokens_in, (long long)u->tokens_out, (long long)u->turns,
		      (long long)u->latency_ms);
	if (!isnan(u->judge_score))
		sc_buf_printf(out, "judge_score=%.3f\n", u->judge_score);
	if (u->reused)
		sc_buf_puts(out, "reused=true\n");
	if (!k)
		return;
	sc_buf_printf(out, "fixture=%s\nkernel_verdict=%s\n", k->fixture ? k->fixture : "",
		      k->verdict ? k->verdict : "");
	if (!isnan(k->speedup))
		sc_buf_printf(out, "speedup=%.3f\n", k->speedup);
	if (!isnan(k->candidate_ms))
		sc_buf_printf(out, "candidate_ms=%.4f\n", k->candidate_ms);
	if (!isnan(k->baseline_ms))
		sc_buf_printf(out, "baseline_ms=%.4f\n", k->baseline_ms);
	if (!isnan(k->max_abs_error))
		sc_buf_printf(out, "max_abs_error=%.6g\n", k->max_abs_error);
	if (k->registers != SC_RESULTS_NULL_INT)
		sc_buf_printf(out, "registers=%lld\n", (long long)k->registers);
	if (k->suspect)
		sc_buf_puts(out, "suspect=true\n");
}

/* The body of a <failure>/<error>: the message, the worst mismatch and
 * the compile log. */
static void failure_body(struct sc_buf *out, const struct sc_results_unit *u)
{
	const struct sc_results_kernel *k = u->kernel;

	if (u->message)
		sc_buf_printf(out, "%s\n", u->message);
	if (k && !isnan(k->max_abs_error) && sc_streq(k->verdict, "mismatch")) {
		sc_buf_printf(out, "worst mismatch: |error| %.6g", k->max_abs_error);
		if (k->worst_index != SC_RESULTS_NULL_INT)
			sc_buf_printf(out, " at index %lld", (long long)k->worst_index);
		sc_buf_putc(out, '\n');
	}
	if (k && k->compile_log && *k->compile_log)
		sc_buf_printf(out, "compile log:\n%s\n", k->compile_log);
}

static void write_case(struct jw *j, const struct sc_results *r, const struct sc_results_unit *u,
		       const char *suite, const struct sc_junit_options *opt)
{
	const struct sc_results_skill *s = sc_results_find_skill(r, u->skill);
	struct sc_buf b = SC_BUF_INIT;

	jw_start(j, "testcase");
	sc_buf_printf(&b, "%s [run %lld]", u->test_name ? u->test_name : u->test_id, (long long)u->run_index);
	jw_attr(j, "name", b.ptr, SIZE_MAX);
	jw_attr(j, "classname", suite, SIZE_MAX);
	jw_attrf(j, "time", "%.3f", (double)(u->latency_ms > 0 ? u->latency_ms : 0) / 1000.0);
	if (opt && opt->file_attrs) {
		const char *file = u->test_file ? u->test_file : s && s->skill_md ? s->skill_md : u->skill;
		jw_attr(j, "file", file, SIZE_MAX);
		jw_attrf(j, "line", "%lld", (long long)(u->test_line != SC_RESULTS_NULL_INT ? u->test_line : 1));
	}
	sc_buf_clear(&b);
	if (sc_streq(u->verdict, "fail") || sc_streq(u->verdict, "error")) {
		jw_start(j, sc_streq(u->verdict, "fail") ? "failure" : "error");
		jw_attr(j, "type", u->error_class ? u->error_class : sc_streq(u->verdict, "fail") ? "wrong_answer" : "error", SIZE_MAX);
		jw_attr(j, "message", u->message ? u->message : u->verdict, SC_REPORT_JUNIT_MESSAGE_MAX);
		failure_body(&b, u);
		jw_text(j, b.ptr);
		jw_end(j);
	} else if (!sc_streq(u->verdict, "pass")) {
		const char *why = u->message;
		if (!why && u->kernel && sc_streq(u->kernel->verdict, "compiled"))
			why = "no GPU: compiled only";
		jw_start(j, "skipped");
		jw_attr(j, "message", why ? why : "skipped", SC_REPORT_JUNIT_MESSAGE_MAX);
		jw_end(j);
	}
	sc_buf_clear(&b);
	unit_out(&b, u);
	jw_elem_text(j, "system-out", b.ptr);
	jw_end(j);
	sc_buf_release(&b);
}

static void prop(struct jw *j, struct sc_buf *out, const char *name, const char *value)
{
	jw_start(j, "property");
	jw_attr(j, "name", name, SIZE_MAX);
	jw_attr(j, "value", value, SC_REPORT_JUNIT_MESSAGE_MAX);
	jw_end(j);
	sc_buf_printf(out, "%s=%s\n", name, value);
}

static void prop_num(struct jw *j, struct sc_buf *out, const char *name, int decimals, double v)
{
	struct sc_buf b = SC_BUF_INIT;

	if (isnan(v))
		return;
	sc_buf_printf(&b, "%.*f", decimals, v);
	prop(j, out, name, b.ptr);
	sc_buf_release(&b);
}

/* One <testsuite> for units[0..n) (same skill, model and variant). */
static void write_suite(struct jw *j, const struct sc_results *r, const struct sc_results_unit *const *units,
			size_t n, const struct sc_junit_options *opt)
{
	const struct sc_results_unit *u0 = units[0];
	const struct sc_results_skill *s = sc_results_find_skill(r, u0->skill);
	const struct sc_results_aggregate *a = sc_results_find_aggregate(r, u0->skill, u0->variant, u0->model);
	struct sc_buf name = SC_BUF_INIT, out = SC_BUF_INIT, num = SC_BUF_INIT;
	size_t failures = 0, errors = 0, skipped = 0;
	int64_t ms = 0, tin = 0, tout = 0, turns = 0;

	for (size_t i = 0; i < n; i++) {
		failures += sc_streq(units[i]->verdict, "fail");
		errors += sc_streq(units[i]->verdict, "error");
		skipped += !sc_streq(units[i]->verdict, "fail") && !sc_streq(units[i]->verdict, "error") &&
			   !sc_streq(units[i]->verdict, "pass");
		ms += units[i]->latency_ms > 0 ? units[i]->latency_ms : 0;
		tin += units[i]->tokens_in;
		tout += units[i]->tokens_out;
		turns += units[i]->turns;
	}
	sc_buf_printf(&name, "%s · %s · %s", u0->skill, u0->model, u0->variant);
	jw_start(j, "testsuite");
	jw_attr(j, "name", name.ptr, SIZE_MAX);
	jw_attrf(j, "tests", "%zu", n);
	jw_attrf(j, "failures", "%zu", failures);
	jw_attrf(j, "errors", "%zu", errors);
	jw_attrf(j, "skipped", "%zu", skipped);
	jw_attrf(j, "time", "%.3f", (double)ms / 1000.0);
	if (r->run.started_at)
		jw_attr(j, "timestamp", r->run.started_at, SIZE_MAX);
	if (s && s->skill_md)
		jw_attr(j, "file", s->skill_md, SIZE_MAX);

	jw_start(j, "properties");
	prop(j, &out, "skill", u0->skill);
	prop(j, &out, "model", u0->model);
	prop(j, &out, "variant", u0->variant);
	sc_buf_printf(&num, "%lld", (long long)tin);
	prop(j, &out, "tokens_in", num.ptr);
	sc_buf_clear(&num);
	sc_buf_printf(&num, "%lld", (long long)tout);
	prop(j, &out, "tokens_out", num.ptr);
	sc_buf_clear(&num);
	sc_buf_printf(&num, "%lld", (long long)turns);
	prop(j, &out, "turns", num.ptr);
	if (a) {
		prop_num(j, &out, "pass_rate", 4, a->pass_rate);
		prop_num(j, &out, "ci_low", 4, a->ci_low);
		prop_num(j, &out, "ci_high", 4, a->ci_high);
		prop_num(j, &out, "mean_tokens", 1, a->mean_tokens);
		prop_num(j, &out, "mean_turns", 2, a->mean_turns);
		prop_num(j, &out, "speedup", 3, a->speedup_geomean);
		prop_num(j, &out, "judge_mean", 3, a->judge_mean);
	}
	if (r->run.mode)
		prop(j, &out, "mode", r->run.mode);
	if (r->run.oracle)
		prop(j, &out, "oracle", "true (self-test: answers are reference solutions)");
	jw_end(j);

	for (size_t i = 0; i < n; i++)
		write_case(j, r, units[i], name.ptr, opt);
	jw_elem_text(j, "system-out", out.ptr);
	jw_end(j);
	sc_buf_release(&name);
	sc_buf_release(&out);
	sc_buf_release(&num);
}

int sc_report_junit(struct sc_buf *out, const struct sc_results *r, const struct sc_junit_options *opt)
{
	const struct sc_results_unit **units = sc_xcalloc(r->nunits + 1, sizeof(*units));
	struct jw j = { NULL, SC_BUF_INIT, 0 };
	xmlBufferPtr xb = xmlBufferCreate();
	size_t failures = 0, errors = 0;
	int64_t ms = 0;
	int err = 0;

	if (!xb || !(j.w = xmlNewTextWriterMemory(xb, 0))) {
		err = sc_error_set(SC_ERROR, "cannot create an XML writer");
		goto done;
	}
	for (size_t i = 0; i < r->nunits; i++) {
		units[i] = &r->units[i];
		failures += sc_streq(r->units[i].verdict, "fail");
		errors += sc_streq(r->units[i].verdict, "error");
		ms += r->units[i].latency_ms > 0 ? r->units[i].latency_ms : 0;
	}
	qsort(units, r->nunits, sizeof(*units), cmp_unit_ptr);

	jw_check(&j, xmlTextWriterSetIndent(j.w, 1));
	jw_check(&j, xmlTextWriterSetIndentString(j.w, BAD_CAST "  "));
	jw_check(&j, xmlTextWriterStartDocument(j.w, NULL, "UTF-8", NULL));
	jw_start(&j, "testsuites");
	jw_attr(&j, "name", r->run.oracle ? "skillci (oracle self-test)" : "skillci", SIZE_MAX);
	jw_attrf(&j, "tests", "%zu", r->nunits);
	jw_attrf(&j, "failures", "%zu", failures);
	jw_attrf(&j, "errors", "%zu", errors);
	jw_attrf(&j, "time", "%.3f", (double)ms / 1000.0);
	for (size_t i = 0; i < r->nunits;) {
		size_t k = i + 1;
		while (k < r->nunits && same_suite(units[i], units[k]))
			k++;
		write_suite(&j, r, units + i, k - i, opt);
		i = k;
	}
	jw_end(&j);
	jw_check(&j, xmlTextWriterEndDocument(j.w));
	xmlFreeTextWriter(j.w);
	j.w = NULL;
	if (j.rc < 0) {
		err = sc_error_set(SC_ERROR, "cannot write JUnit XML (libxml2 error %d)", j.rc);
		goto done;
	}
	sc_buf_put(out, xmlBufferContent(xb), (size_t)xmlBufferLength(xb));
done:
	if (j.w)
		xmlFreeTextWriter(j.w);
	if (xb)
		xmlBufferFree(xb);
	sc_buf_release(&j.tmp);
	free(units);
	return err;
}
