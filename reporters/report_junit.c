/*
 * JUnit XML (report_junit.h), written here: the bytes libxml2 2.9's text
 * writer wrote with an indent of two spaces (the elements, their order,
 * the escaping), without a call into a library per attribute.
 */
#include "common.h"
#include "par.h"
#include "reporters/report_junit.h"
#include "reporters/report_fmt.h"
#include "results/results.h"
#include "results/verdict.h"

#include <math.h>

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
		size_t len, run = 0;
		/* printable ASCII, tab and line breaks: taken as they are, a run at a time */
		while (run < n && ((p[run] >= 0x20 && p[run] < 0x80) || p[run] == '\t' ||
				   p[run] == '\n' || p[run] == '\r'))
			run++;
		if (run) {
			sc_buf_put(out, p, run);
			p += run;
			n -= run;
			continue;
		}
		len = sc_utf8_decode((const char *)p, n, &cp);
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
static void clean_trim(struct sc_buf *out, struct sc_buf *t, const char *s, size_t max)
{
	sc_buf_clear(out);
	sc_buf_clear(t);
	s = s ? s : "";
	if (sc_report_trim(t, s, max))
		s = t->ptr;
	sc_report_xml_clean(out, s);
}

/*
 * The writer: the document goes into out; the element being written is
 * the last of stack (its start tag still open while open is set). indent
 * says whether an end tag goes on a line of its own (after child elements)
 * or right after the text.
 */
#define JW_MAX_DEPTH 8

struct jw {
	struct sc_buf *out;
	struct sc_buf tmp, trim;
	const char *stack[JW_MAX_DEPTH];
	size_t depth;
	bool open, indent;
};

static void jw_indent(struct jw *j, size_t levels)
{
	for (size_t i = 0; i < levels; i++)
		sc_buf_put(j->out, "  ", 2);
}

static void jw_start(struct jw *j, const char *name)
{
	assert(j->depth < JW_MAX_DEPTH);
	if (j->open)
		sc_buf_put(j->out, ">\n", 2);
	jw_indent(j, j->depth);
	j->stack[j->depth++] = name;
	sc_buf_putc(j->out, '<');
	sc_buf_puts(j->out, name);
	j->open = true;
}

static void jw_end(struct jw *j)
{
	const char *name = j->stack[--j->depth];

	if (j->open) {
		sc_buf_put(j->out, "/>\n", 3);
	} else {
		if (j->indent)
			jw_indent(j, j->depth);
		sc_buf_put(j->out, "</", 2);
		sc_buf_puts(j->out, name);
		sc_buf_put(j->out, ">\n", 2);
	}
	j->open = false;
	j->indent = true;
}

/* s escaped as libxml2 escapes an attribute's value: the markup, and the
 * white space that attribute normalisation would eat, as references. */
static void put_attr_escaped(struct sc_buf *out, const char *s)
{
	const char *p = s;

	for (;;) {
		size_t run = strcspn(p, "\n\r\t\"<>&");
		sc_buf_put(out, p, run);
		p += run;
		switch (*p++) {
		case '\n': sc_buf_puts(out, "&#10;"); break;
		case '\r': sc_buf_puts(out, "&#13;"); break;
		case '\t': sc_buf_puts(out, "&#9;"); break;
		case '"': sc_buf_puts(out, "&quot;"); break;
		case '<': sc_buf_puts(out, "&lt;"); break;
		case '>': sc_buf_puts(out, "&gt;"); break;
		case '&': sc_buf_puts(out, "&amp;"); break;
		default: return;
		}
	}
}

/* s escaped as libxml2 escapes text: the markup, the quote and CR. */
static void put_text_escaped(struct sc_buf *out, const char *s)
{
	const char *p = s;

	for (;;) {
		size_t run = strcspn(p, "<>&\"\r");
		sc_buf_put(out, p, run);
		p += run;
		switch (*p++) {
		case '<': sc_buf_puts(out, "&lt;"); break;
		case '>': sc_buf_puts(out, "&gt;"); break;
		case '&': sc_buf_puts(out, "&amp;"); break;
		case '"': sc_buf_puts(out, "&quot;"); break;
		case '\r': sc_buf_puts(out, "&#13;"); break;
		default: return;
		}
	}
}

static void jw_attr(struct jw *j, const char *name, const char *value, size_t max)
{
	assert(j->open);
	clean_trim(&j->tmp, &j->trim, value, max);
	sc_buf_putc(j->out, ' ');
	sc_buf_puts(j->out, name);
	sc_buf_put(j->out, "=\"", 2);
	put_attr_escaped(j->out, j->tmp.ptr);
	sc_buf_putc(j->out, '"');
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
	clean_trim(&j->tmp, &j->trim, text, SC_REPORT_JUNIT_TEXT_MAX);
	if (j->open)
		sc_buf_putc(j->out, '>');
	j->open = false;
	j->indent = false;
	put_text_escaped(j->out, j->tmp.ptr);
}

static void jw_elem_text(struct jw *j, const char *name, const char *text)
{
	jw_start(j, name);
	jw_text(j, text);
	jw_end(j);
}

/* ---- the document in memory ---------------------------------------------- */

enum outcome { OUT_PASS, OUT_FAIL, OUT_ERROR, OUT_SKIP };

struct jprop {
	char *name, *value;
};

struct jprops {
	struct jprop *v;
	size_t n, alloc;
};

struct jcase {
	char *name, *classname;
	double time_s;
	enum outcome out;
	char *type, *message, *body;  /* the failure, error or skipped element */
	struct sc_buf sysout;
	char *file;                    /* for --junit-file-attrs */
	int64_t line;
	struct jprops props;           /* for --junit-file-attrs */
};

struct jsuite {
	char *name, *file;
	struct jprops props;
	struct jcase *cases;
	size_t n, alloc;
};

static void props_add(struct jprops *p, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void props_add(struct jprops *p, const char *name, const char *fmt, ...)
{
	struct sc_buf v = SC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&v, fmt, ap);
	va_end(ap);
	SC_GROW(p->v, p->alloc, p->n + 1);
	p->v[p->n].name = sc_xstrdup(name);
	p->v[p->n++].value = sc_buf_detach(&v, NULL);
}

static void props_num(struct jprops *p, const char *name, int decimals, double v)
{
	if (!isnan(v))
		props_add(p, name, "%.*f", decimals, v);
}

static void props_release(struct jprops *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].name);
		free(p->v[i].value);
	}
	free(p->v);
}

static struct jcase *case_new(struct jsuite *s, const char *name, const char *classname)
{
	struct jcase *c;

	SC_GROW(s->cases, s->alloc, s->n + 1);
	c = &s->cases[s->n++];
	memset(c, 0, sizeof(*c));
	c->name = sc_xstrdup(name);
	c->classname = sc_xstrdup(classname);
	c->out = OUT_PASS;
	return c;
}

/* Sets the case's outcome and its element's type, message and body. */
static void case_set(struct jcase *c, enum outcome out, const char *type, const char *message,
		     const char *body)
{
	c->out = out;
	free(c->type);
	free(c->message);
	free(c->body);
	c->type = type ? sc_xstrdup(type) : NULL;
	c->message = message ? sc_xstrdup(message) : NULL;
	c->body = body && *body ? sc_xstrdup(body) : NULL;
}

static void suite_release(struct jsuite *s)
{
	for (size_t i = 0; i < s->n; i++) {
		struct jcase *c = &s->cases[i];
		free(c->name); free(c->classname); free(c->type); free(c->message); free(c->body);
		free(c->file);
		sc_buf_release(&c->sysout);
		props_release(&c->props);
	}
	free(s->cases);
	free(s->name);
	free(s->file);
	props_release(&s->props);
	memset(s, 0, sizeof(*s));
}

/* ---- building ------------------------------------------------------------ */

static bool is_eval(const struct sc_results *r)
{
	return r->run.kind == SC_RUN_KIND_EVAL;
}

/* "skills/x.anthropic_claude-haiku-4-5": the skill as the package and the
 * model as the class of readers that split at the last dot (Jenkins). */
static void classname(struct sc_buf *out, const char *skill, const char *model)
{
	sc_buf_clear(out);
	sc_buf_puts(out, skill);
	sc_buf_putc(out, '.');
	if (!model || !*model) {
		sc_buf_puts(out, "skill");
		return;
	}
	for (const char *p = model; *p; p++)
		sc_buf_putc(out, *p == '.' ? '_' : *p);
}

/* A check's testcase name: "gate: pass rate, base -> head", ... */
static const char *check_label(enum sc_check_kind check)
{
	switch (check) {
	case SC_CHECK_VALIDITY: return "gate: validity (Agent Skills rules)";
	case SC_CHECK_PASS_RATE: return "gate: pass rate, base -> head";
	case SC_CHECK_LIFT: return "gate: lift over no skill (new skill)";
	case SC_CHECK_TOKENS: return "gate: mean tokens";
	case SC_CHECK_SPEEDUP: return "gate: kernel speedup";
	case SC_CHECK_JUDGE: return "gate: judge score";
	case SC_CHECK_ERRORS: return "gate: infrastructure errors";
	case SC_CHECK_DELETED: return "gate: deleted skill";
	case SC_CHECK_DISCRIMINATION: return "gate: tests tell the skill from no skill (new skill)";
	case SC_CHECK_KERNEL: return "gate: kernels ran on a GPU";
	case SC_CHECK_TESTS: return "gate: the skill has tests (changed skill)";
	case SC_CHECK_RUN:
	case SC_CHECK_CLAIM: break;
	}
	return NULL;
}

/* Did the gate fail check for skill and model ("" for the whole skill)? */
static bool check_failed(const struct sc_results *r, const char *skill, const char *model,
			 enum sc_check_kind check)
{
	const struct sc_results_check *c = sc_results_find_check(r, skill, model, check);

	if (c)
		return c->status == SC_STATUS_FAILED;
	size_t first, n = sc_results_failures_of(r, skill, &first);

	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_gate_failure *f = sc_results_failure_at(r, i);
		if (sc_streq(f->skill, skill) && !strcmp(f->model ? f->model : "", model ? model : "") &&
		    f->check == check && f->status == SC_STATUS_FAILED)
			return true;
	}
	return false;
}

/*
 * Where a failure is, in the forms test reporters read from a failure's
 * body: "at FILE:LINE" (a path after a space: action-junit-report), and a
 * Java-style frame "at skills.x.SKILL(SKILL.md:LINE)" (test-reporter
 * matches it to the tracked file SKILL.md under skills/x).
 */
static void locator(struct sc_buf *out, const char *file, int64_t line)
{
	const char *slash;

	if (!file || !*file || line <= 0)
		return;
	sc_buf_printf(out, "\nlocation: %s:%lld\n", file, (long long)line);
	slash = strrchr(file, '/');
	if (!slash)
		return;
	sc_buf_puts(out, "at ");
	for (const char *p = file; p < slash; p++)
		sc_buf_putc(out, *p == '/' ? '.' : *p);
	sc_buf_putc(out, '.');
	{
		const char *base = slash + 1, *dot = strrchr(base, '.');
		sc_buf_put(out, base, dot ? (size_t)(dot - base) : strlen(base));
		sc_buf_printf(out, "(%s:%lld)\n", base, (long long)line);
	}
}

/* The skill's findings as lines, with their state, for a failure's body. */
static void findings_text(struct sc_buf *out, const struct sc_results_skill *s, bool errors_only)
{
	for (size_t i = 0; i < s->nfindings; i++) {
		const struct sc_results_finding *f = &s->findings[i];
		if (errors_only && f->severity != SC_SEV_ERROR)
			continue;
		sc_buf_puts(out, f->file ? f->file : s->path);
		if (f->line > 0)
			sc_buf_printf(out, ":%lld", (long long)f->line);
		sc_buf_printf(out, ": %s: %s", sc_severity_name(f->severity), f->message ? f->message : "");
		if (f->code && *f->code)
			sc_buf_printf(out, " [%s]", f->code);
		sc_buf_printf(out, " (%s)\n", f->state == SC_FINDING_NEW ? "head, new"
				       : f->state == SC_FINDING_EXISTING ? "head, pre-existing: also at base"
				       : "base, fixed at head");
	}
}

/* One testcase for a check of the gate. */
static void add_check_case(struct jsuite *js, const struct sc_results_skill *s, const char *model,
			   enum sc_check_kind check, enum sc_check_status status, bool accepted,
			   const char *rule, const char *message, const char *file, int64_t line)
{
	struct sc_buf cn = SC_BUF_INIT, body = SC_BUF_INIT, name = SC_BUF_INIT;
	const char *label = check_label(check);
	struct jcase *c;

	if (label)
		sc_buf_puts(&name, label);
	else
		sc_buf_printf(&name, "gate: %s", sc_check_kind_name(check));
	classname(&cn, s->path, model);
	c = case_new(js, name.ptr, cn.ptr);
	sc_buf_printf(&c->sysout, "check=%s\nstatus=%s\n", sc_check_kind_name(check),
		      sc_check_status_name(status));
	if (rule)
		sc_buf_printf(&c->sysout, "rule=%s\n", rule);
	if (message)
		sc_buf_printf(&c->sysout, "reason=%s\n", message);
	c->file = sc_xstrdup(file ? file : s->skill_md ? s->skill_md : s->path);
	c->line = line > 0 ? line : 1;
	if (accepted)
		sc_buf_puts(&c->sysout, "accepted=true\n");
	if (status == SC_STATUS_FAILED || (status == SC_STATUS_UNVERIFIED && !accepted)) {
		/* an unverified check blocks the merge as a failure does: a
		 * failure of type "unverified" that says so */
		bool unv = status == SC_STATUS_UNVERIFIED;
		struct sc_buf why = SC_BUF_INIT;
		sc_buf_printf(&why, "%s%s", unv && message && !sc_starts_with(message, "unverified")
				       ? "unverified: " : "", message ? message : rule);
		sc_buf_printf(&body, "%s\n", why.ptr);
		if (check == SC_CHECK_VALIDITY) {
			sc_buf_puts(&body, "\nfindings:\n");
			findings_text(&body, s, false);
		}
		locator(&body, file, line);
		case_set(c, OUT_FAIL, unv ? "unverified" : rule, why.ptr, body.ptr);
		sc_buf_release(&why);
	} else if (status == SC_STATUS_ERROR) {
		/* could not check: the runner's fault, not the pull request's */
		sc_buf_printf(&body, "%s\n", message ? message : rule);
		case_set(c, OUT_ERROR, rule ? rule : "error", message ? message : "could not check",
			 body.ptr);
	} else if (status == SC_STATUS_UNVERIFIED) {
		struct sc_buf why = SC_BUF_INIT;
		sc_buf_printf(&why, "unverified, accepted by the trusted config: %s",
			      message ? message : "");
		case_set(c, OUT_SKIP, "unverified", why.ptr, NULL);
		sc_buf_release(&why);
	} else if (status == SC_STATUS_SKIPPED) {
		case_set(c, OUT_SKIP, NULL, message ? message : "not applicable", NULL);
	}
	sc_buf_release(&cn);
	sc_buf_release(&body);
	sc_buf_release(&name);
}

/* "key=value" lines for a unit: what properties would say, for readers
 * that show only system-out. */
static void unit_out(struct sc_buf *out, const struct sc_results_unit *u)
{
	const struct sc_results_kernel *k = u->kernel;

	sc_buf_printf(out, "test_id=%s\nverdict=%s\n", u->test_id, sc_unit_verdict_name(u->verdict));
	sc_buf_printf(out, "tokens_in=%lld\ntokens_out=%lld\nturns=%lld\nlatency_ms=%lld\n",
		      (long long)u->tokens_in, (long long)u->tokens_out, (long long)u->turns,
		      (long long)u->latency_ms);
	if (!isnan(u->judge_score))
		sc_buf_printf(out, "judge_score=%.3f\n", u->judge_score);
	if (u->reused)
		sc_buf_puts(out, "reused=true\n");
	if (u->trigger != SC_TRIGGER_NONE) {
		/* a trigger test's decision: did the student open SKILL.md */
		bool pass = u->verdict == SC_UNIT_PASS, fail = u->verdict == SC_UNIT_FAIL;
		bool should = u->trigger == SC_TRIGGER_SHOULD;
		sc_buf_printf(out, "trigger=%s\n", sc_trigger_name(u->trigger));
		if (pass || fail)
			sc_buf_printf(out, "triggered=%s\n", (pass == should) ? "yes" : "no");
	}
	if (!k)
		return;
	sc_buf_printf(out, "fixture=%s\nkernel_verdict=%s\n", k->fixture ? k->fixture : "",
		      k->verdict != SC_KV_NONE ? sc_kernel_verdict_name(k->verdict) : "");
	if (!isnan(k->speedup))
		sc_buf_printf(out, "speedup=%.3f\n", k->speedup);  /* over the naive baseline */
	if (k->strong_reference)
		sc_buf_printf(out, "strong_reference=%s\n", k->strong_reference);
	if (!isnan(k->strong_speedup))
		sc_buf_printf(out, "strong_speedup=%.3f\n", k->strong_speedup);
	if (!isnan(k->pct_of_peak))
		sc_buf_printf(out, "pct_of_peak=%.1f\n", k->pct_of_peak);
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

/* An agent run's unit: its excerpt is its trace of tool calls. */
static bool agent_unit(const struct sc_results_unit *u)
{
	return u->kind == SC_KIND_AGENT || u->kind == SC_KIND_TRIGGER;
}

/* The body of a unit's failure: the message, the worst mismatch and the
 * compile log. */
static void unit_body(struct sc_buf *out, const struct sc_results_unit *u)
{
	const struct sc_results_kernel *k = u->kernel;

	if (u->message)
		sc_buf_printf(out, "%s\n", u->message);
	if (k && !isnan(k->max_abs_error) && k->verdict == SC_KV_MISMATCH) {
		sc_buf_printf(out, "worst mismatch: |error| %.6g", k->max_abs_error);
		if (k->worst_index != SC_RESULTS_NULL_INT)
			sc_buf_printf(out, " at index %lld", (long long)k->worst_index);
		sc_buf_putc(out, '\n');
	}
	if (k && k->compile_log && *k->compile_log)
		sc_buf_printf(out, "compile log:\n%s\n", k->compile_log);
}

/* The units of (skill, model, variant), sorted results or not. */
static size_t units_of(const struct sc_results *r, const char *skill, const char *model,
		       enum sc_variant variant, size_t *first)
{
	if (r->sorted)
		return sc_results_units_range(r, skill, model, variant, first);
	*first = 0;
	return r->nunits;
}

static const struct sc_results_unit *same_test(const struct sc_results *r,
					       const struct sc_results_unit *u, enum sc_variant variant)
{
	size_t first, n = units_of(r, u->skill, u->model, variant, &first);

	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_unit *o = &r->units[i];
		if (sc_streq(o->skill, u->skill) && sc_streq(o->model, u->model) &&
		    o->variant == variant && o->run_index == u->run_index &&
		    sc_streq(o->test_id, u->test_id))
			return o;
	}
	return NULL;
}

/* A unit of one skill and model, for sorting the tests in natural order. */
struct sorted_unit {
	const struct sc_results_unit *u;
	char *label;
};

static int cmp_sorted_unit(const void *pa, const void *pb)
{
	const struct sorted_unit *a = pa, *b = pb;
	int c = sc_report_natural_cmp(a->label, b->label);

	if (c)
		return c;
	if ((c = strcmp(a->u->test_id ? a->u->test_id : "", b->u->test_id ? b->u->test_id : "")))
		return c;
	return a->u->run_index < b->u->run_index ? -1 : a->u->run_index > b->u->run_index;
}

/* The units of (skill, model, variant) in natural test order, then run. */
static size_t sorted_units(const struct sc_results *r, const char *skill, const char *model,
			   enum sc_variant variant, struct sorted_unit **out)
{
	size_t first, n = units_of(r, skill, model, variant, &first), k = 0;
	struct sorted_unit *v = sc_xcalloc(n + 1, sizeof(*v));

	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_unit *u = &r->units[i];
		struct sc_buf l = SC_BUF_INIT;
		if (!sc_streq(u->skill, skill) || !sc_streq(u->model, model) || u->variant != variant)
			continue;
		sc_report_test_label(&l, u->test_id);
		v[k].u = u;
		v[k++].label = sc_buf_detach(&l, NULL);
	}
	qsort(v, k, sizeof(*v), cmp_sorted_unit);
	*out = v;
	return k;
}

static void sorted_units_free(struct sorted_unit *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].label);
	free(v);
}

/* Whether every run of u's test at variant that ran passed, and any ran;
 * and whether any failed. */
static void side_outcome(const struct sc_results *r, const struct sc_results_unit *u, enum sc_variant variant,
			 size_t *passed, size_t *bad)
{
	size_t first, n = units_of(r, u->skill, u->model, variant, &first);

	*passed = *bad = 0;
	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_unit *o = &r->units[i];
		if (!sc_streq(o->skill, u->skill) || !sc_streq(o->model, u->model) ||
		    o->variant != variant || !sc_streq(o->test_id, u->test_id))
			continue;
		*passed += o->verdict == SC_UNIT_PASS;
		*bad += o->verdict == SC_UNIT_FAIL || o->verdict == SC_UNIT_ERROR;
	}
}

/*
 * The head's per-test results of one skill and model, named by the test's
 * place in its file ("skills/x/tests[3] run 1": stable when a prompt is
 * edited), in natural order: a failure only for a test that regressed
 * (passed at base, fails at head) when the gate failed the pass rate; an
 * infrastructure fault is skipped as type "error" (the gate's errors
 * check, and the run's suite when it could not check, say it once); a
 * test that fails at base too is skipped as type "already_failing" (it is
 * not this change's failure, and readers list skipped tests by name);
 * otherwise passed, or skipped with the outcome. The base's and the
 * baseline's outcomes go into properties.
 */
static void add_test_cases(struct jsuite *js, const struct sc_results *r,
			   const struct sc_results_skill *s, const char *model, struct sc_buf *regressed,
			   struct sc_buf *already)
{
	enum sc_variant variant = !is_eval(r) && s->status == SC_SKILL_DELETED ? SC_VARIANT_BASE
				  : SC_VARIANT_HEAD;
	bool rate_failed = check_failed(r, s->path, model, SC_CHECK_PASS_RATE);
	struct sc_buf cn = SC_BUF_INIT, name = SC_BUF_INIT, why = SC_BUF_INIT, body = SC_BUF_INIT;
	struct sorted_unit *v;
	size_t n = sorted_units(r, s->path, model, variant, &v);
	const char *last_reg = NULL, *last_already = NULL;

	classname(&cn, s->path, model);
	for (size_t i = 0; i < n; i++) {
		const struct sc_results_unit *u = v[i].u;
		const struct sc_results_unit *b, *l;
		size_t base_passed = 0, base_bad = 0, head_passed = 0, head_bad = 0;
		struct jcase *c;
		b = is_eval(r) ? NULL : same_test(r, u, SC_VARIANT_BASE);
		l = same_test(r, u, SC_VARIANT_BASELINE);
		if (!is_eval(r) && variant != SC_VARIANT_BASE) {
			side_outcome(r, u, SC_VARIANT_BASE, &base_passed, &base_bad);
			side_outcome(r, u, variant, &head_passed, &head_bad);
		}
		sc_buf_clear(&name);
		sc_buf_printf(&name, "%s/%s run %lld", s->path, v[i].label, (long long)u->run_index + 1);
		c = case_new(js, name.ptr, cn.ptr);
		c->time_s = (double)(u->latency_ms > 0 ? u->latency_ms : 0) / 1000.0;
		c->file = sc_xstrdup(u->test_file ? u->test_file : s->skill_md ? s->skill_md : s->path);
		c->line = u->test_line != SC_RESULTS_NULL_INT && u->test_line > 0 ? u->test_line : 1;
		if (u->test_name)
			sc_buf_printf(&c->sysout, "test_name=%s\n", u->test_name);
		unit_out(&c->sysout, u);
		props_add(&c->props, "head", "%s", sc_unit_verdict_name(u->verdict));
		if (b) {
			sc_buf_printf(&c->sysout, "base_verdict=%s\n", sc_unit_verdict_name(b->verdict));
			props_add(&c->props, "base", "%s", sc_unit_verdict_name(b->verdict));
		}
		if (l) {
			sc_buf_printf(&c->sysout, "baseline_verdict=%s\n", sc_unit_verdict_name(l->verdict));
			props_add(&c->props, "baseline", "%s", sc_unit_verdict_name(l->verdict));
		}
		if (u->trigger != SC_TRIGGER_NONE)
			props_add(&c->props, "trigger", "%s", sc_trigger_name(u->trigger));
		if (u->excerpt)
			sc_buf_printf(&c->sysout, "%s=%s\n", agent_unit(u) ? "agent" : "answer", u->excerpt);
		sc_buf_clear(&why);
		sc_buf_clear(&body);
		if (u->test_name)
			sc_buf_printf(&body, "test: %s\n", u->test_name);
		unit_body(&body, u);
		if (u->excerpt)
			sc_buf_printf(&body, "%s: %s\n", agent_unit(u) ? "agent" : "answer", u->excerpt);
		if (u->verdict == SC_UNIT_PASS) {
			continue;
		} else if (u->verdict == SC_UNIT_FAIL || u->verdict == SC_UNIT_ERROR) {
			/* said of a test only when its own runs show it: every
			 * base run passed and every head run failed, or every
			 * base run failed too; else the runs are said as they were */
			bool regressed_test = base_passed > 0 && base_bad == 0 && head_passed == 0;
			bool already_failing = base_bad > 0 && base_passed == 0;
			if (already_failing && (!last_already || strcmp(last_already, v[i].label))) {
				sc_buf_printf(already, "%s%s", already->len ? ", " : "", v[i].label);
				last_already = v[i].label;
			}
			if (regressed_test && (!last_reg || strcmp(last_reg, v[i].label))) {
				sc_buf_printf(regressed, "%s%s", regressed->len ? ", " : "", v[i].label);
				last_reg = v[i].label;
			}
			if (u->verdict == SC_UNIT_ERROR) {
				/* the runner's, not the test's: the errors check (and the run
				 * that could not check) says so once; each unit is skipped */
				sc_buf_printf(&why, "infrastructure error%s%s", u->message ? ": " : "",
					      u->message ? u->message : "");
				case_set(c, OUT_SKIP, "error", why.ptr, body.ptr);
				continue;
			}
			if (u->verdict == SC_UNIT_FAIL && regressed_test && rate_failed) {
				sc_buf_printf(&why, "regressed: passed at base, fails at head%s%s",
					      u->message ? ": " : "", u->message ? u->message : "");
				case_set(c, OUT_FAIL, "regressed", why.ptr, body.ptr);
				continue;
			}
			if (already_failing) {
				sc_buf_printf(&why, "already failing: fails at base too (%zu of %zu base runs "
					      "failed), not brought by this change", base_bad, base_bad + base_passed);
				if (u->message)
					sc_buf_printf(&why, ": %s", u->message);
				case_set(c, OUT_SKIP, "already_failing", why.ptr, body.ptr);
				continue;
			}
			if (is_eval(r))
				sc_buf_puts(&why, "fails with the skill (eval has no gate on it; see the lift)");
			else if (variant == SC_VARIANT_BASE)
				sc_buf_puts(&why, "failed at base (the skill is deleted at head)");
			else if (regressed_test)
				sc_buf_puts(&why, "fails at head after passing at base; the gate did not "
					    "fail the pass rate");
			else if (base_passed + base_bad)
				sc_buf_printf(&why, "fails at head: base %zu/%zu passed, head %zu/%zu",
					      base_passed, base_passed + base_bad, head_passed,
					      head_passed + head_bad);
			else
				sc_buf_puts(&why, "fails at head; no base result to compare with");
			if (u->message)
				sc_buf_printf(&why, ": %s", u->message);
			case_set(c, OUT_SKIP, "failed", why.ptr, body.ptr);
			continue;
		} else {
			const char *m = u->message;
			if (!m && u->kernel && u->kernel->verdict == SC_KV_COMPILED)
				m = "no GPU: compiled only";
			sc_buf_puts(&why, m ? m : "skipped");
		}
		case_set(c, OUT_SKIP, NULL, why.ptr, NULL);
	}
	sorted_units_free(v, n);
	sc_buf_release(&cn);
	sc_buf_release(&name);
	sc_buf_release(&why);
	sc_buf_release(&body);
}

/* Aggregates and per-test outcomes of the base and the baseline as suite properties. */
static void side_props(struct jsuite *js, const struct sc_results *r, const char *skill,
		       const char *model)
{
	static const enum sc_variant variants[] = { SC_VARIANT_BASELINE, SC_VARIANT_BASE,
						    SC_VARIANT_HEAD };
	struct sc_buf key = SC_BUF_INIT;

	for (size_t v = 0; v < SC_ARRAY_SIZE(variants); v++) {
		const char *vname = sc_variant_name(variants[v]);
		const struct sc_results_aggregate *a = sc_results_find_aggregate(r, skill, variants[v], model);
		if (!a)
			continue;
		sc_buf_clear(&key);
		sc_buf_printf(&key, "%s %s pass_rate", model, vname);
		if (!isnan(a->pass_rate))
			props_add(&js->props, key.ptr, "%.4f (%lld of %lld)", a->pass_rate,
				  (long long)a->passed, (long long)a->n);
		sc_buf_clear(&key);
		sc_buf_printf(&key, "%s %s mean_tokens", model, vname);
		props_num(&js->props, key.ptr, 1, a->mean_tokens);
		sc_buf_clear(&key);
		sc_buf_printf(&key, "%s %s speedup", model, vname);
		props_num(&js->props, key.ptr, 3, a->speedup_geomean);
		sc_buf_clear(&key);
		sc_buf_printf(&key, "%s %s strong_speedup", model, vname);
		props_num(&js->props, key.ptr, 3, a->strong_speedup_geomean);
		sc_buf_clear(&key);
		sc_buf_printf(&key, "%s %s judge_mean", model, vname);
		props_num(&js->props, key.ptr, 3, a->judge_mean);
		if (a->trigger_should) {
			sc_buf_clear(&key);
			sc_buf_printf(&key, "%s %s trigger_recall", model, vname);
			props_add(&js->props, key.ptr, "%.4f (%lld of %lld should_trigger queries opened "
				  "the skill)", (double)a->trigger_hits / (double)a->trigger_should,
				  (long long)a->trigger_hits, (long long)a->trigger_should);
		}
		if (a->trigger_should_not) {
			sc_buf_clear(&key);
			sc_buf_printf(&key, "%s %s false_trigger_rate", model, vname);
			props_add(&js->props, key.ptr, "%.4f (%lld of %lld should_not_trigger queries "
				  "opened the skill)", (double)a->trigger_false / (double)a->trigger_should_not,
				  (long long)a->trigger_false, (long long)a->trigger_should_not);
		}
		if (variants[v] == SC_VARIANT_HEAD)
			continue;
		{
			struct sorted_unit *su;
			size_t k = sorted_units(r, skill, model, variants[v], &su);
			for (size_t i = 0; i < k; i++) {
				sc_buf_clear(&key);
				sc_buf_printf(&key, "%s %s %s run %lld", model, vname, su[i].label,
					      (long long)su[i].u->run_index + 1);
				props_add(&js->props, key.ptr, "%s", sc_unit_verdict_name(su[i].u->verdict));
			}
			sorted_units_free(su, k);
		}
	}
	sc_buf_release(&key);
}

/*
 * What the pull request tried that was not applied, and whether it edits
 * this skill's tests (docs/security.md). The tests it adds or changes
 * (variant head_tests) are never test cases here: they do not decide.
 */
static void trust_props(struct jsuite *js, const struct sc_results *r,
			const struct sc_results_skill *s)
{
	const struct sc_results_trust *t = &r->run.trust;
	struct sc_buf v = SC_BUF_INIT;

	for (size_t i = 0; i < t->nchanges; i++)
		sc_buf_printf(&v, "%s%s: %s -> %s", i ? "; " : "", t->changes[i].key,
			      t->changes[i].base ? t->changes[i].base : "",
			      t->changes[i].head ? t->changes[i].head : "");
	if (t->nchanges)
		props_add(&js->props, "head_config_not_applied", "%s", v.ptr);
	if (s && sc_results_tests_edited(s))
		props_add(&js->props, "pr_edits_tests", "%lld changed, %lld added, %lld removed; the "
			  "verdict uses the base's tests", (long long)s->tests_changed,
			  (long long)s->tests_added, (long long)s->tests_removed);
	sc_buf_release(&v);
}

/*
 * Whether a check is a test case: one that passed or failed, and a
 * skipped one that says something a reviewer acts on (an inconclusive
 * pass rate, a skill let through by the trusted config, kernels not run).
 * A check that does not apply (no base for a new skill, no kernel tests,
 * no judge) is left out, its reason in the suite's checks_not_applicable
 * property: a passing skill shows no skipped cases.
 */
static bool check_applies(const struct sc_results_check *k)
{
	if (k->status != SC_STATUS_SKIPPED)
		return true;
	if (k->check == SC_CHECK_KERNEL || k->check == SC_CHECK_TESTS || k->check == SC_CHECK_DELETED)
		return true;
	return k->message && (!strncmp(k->message, "inconclusive", 12) || strstr(k->message, "allowed"));
}

static void not_applicable(struct sc_buf *out, const struct sc_results_check *k)
{
	sc_buf_printf(out, "%s%s%s%s: %s", out->len ? "; " : "", sc_check_kind_name(k->check),
		      k->model && *k->model ? " " : "", k->model ? k->model : "",
		      k->message ? k->message : "not applicable");
}

/* An eval row's decision as a testcase (results/verdict.h): passed for a
 * lift shown, skipped with the words for no lift or undecided (an eval
 * judges no pull request: nothing fails), an error when it could not
 * check. */
static void add_eval_case(struct jsuite *js, const struct sc_verdict_row *row)
{
	struct sc_buf cn = SC_BUF_INIT, why = SC_BUF_INIT;
	struct jcase *c;

	classname(&cn, row->skill->path, row->model);
	c = case_new(js, "eval: lift over no skill", cn.ptr);
	sc_buf_printf(&c->sysout, "verdict=%s\nrecommendation=%s\n",
		      sc_verdict_name(row->state), row->why ? row->why : "");
	sc_buf_printf(&why, "%s: %s", sc_verdict_word(row->state, SC_RUN_KIND_EVAL),
		      row->why ? row->why : "");
	c->file = sc_xstrdup(row->skill->skill_md ? row->skill->skill_md : row->skill->path);
	c->line = 1;
	switch (row->state) {
	case SC_VERDICT_PASS:
		break;
	case SC_VERDICT_FAIL:
		case_set(c, OUT_SKIP, "no_lift", why.ptr, NULL);
		break;
	case SC_VERDICT_UNVERIFIED:
		case_set(c, OUT_SKIP, "unverified", why.ptr, NULL);
		break;
	case SC_VERDICT_ERROR:
		case_set(c, OUT_ERROR, "error", why.ptr, why.ptr);
		break;
	}
	sc_buf_release(&cn);
	sc_buf_release(&why);
}

/* The suite of one skill: its verdict, its checks, its tests, its properties. */
static void build_skill(struct jsuite *js, const struct sc_results *r,
			const struct sc_verdicts *vd, const struct sc_verdict_skill *vs)
{
	const struct sc_results_skill *s = vs->skill;
	const struct sc_verdict_row *rows = &vd->rows[vs->first_row];
	struct sc_buf regressed = SC_BUF_INIT, already = SC_BUF_INIT, na = SC_BUF_INIT;
	size_t fresh = 0, existing = 0, fixed = 0, kf, nk;
	struct sc_buf cn = SC_BUF_INIT;

	js->name = sc_xstrdup(s->path);
	js->file = s->skill_md ? sc_xstrdup(s->skill_md) : NULL;
	props_add(&js->props, "skill", "%s", s->path);
	if (s->name)
		props_add(&js->props, "name", "%s", s->name);
	props_add(&js->props, "status", "%s", s->status != SC_SKILL_NONE
					      ? sc_skill_status_name(s->status) : "unknown");
	if (s->old_path)
		props_add(&js->props, "old_path", "%s", s->old_path);
	if (!is_eval(r))
		props_add(&js->props, "gate", "%s", s->gate_passed ? "passed" : "failed");
	/* what the skill means (results/verdict.h), and each model's row */
	props_add(&js->props, "state", "%s", sc_verdict_name(vs->state));
	for (size_t m = 0; m < vs->nrows; m++)
		if (rows[m].model) {
			struct sc_buf key = SC_BUF_INIT;
			sc_buf_printf(&key, "%s state", rows[m].model);
			props_add(&js->props, key.ptr, "%s", sc_verdict_name(rows[m].state));
			sc_buf_release(&key);
		}
	for (size_t i = 0; i < s->nfindings; i++) {
		const struct sc_results_finding *f = &s->findings[i];
		if (f->severity != SC_SEV_ERROR)
			continue;
		fresh += f->state == SC_FINDING_NEW;
		existing += f->state == SC_FINDING_EXISTING;
		fixed += f->state == SC_FINDING_FIXED;
	}
	if (s->nfindings) {
		props_add(&js->props, "errors_new", "%zu", fresh);
		props_add(&js->props, "errors_pre_existing", "%zu", existing);
		props_add(&js->props, "errors_fixed", "%zu", fixed);
	}

	classname(&cn, s->path, NULL);
	if (s->status == SC_SKILL_DELETED && !is_eval(r) &&
	    !sc_results_find_check(r, s->path, "", SC_CHECK_DELETED)) {
		/* results written before deletions were a check of their own */
		struct jcase *c = case_new(js, "deleted at head", cn.ptr);
		case_set(c, OUT_SKIP, NULL, "the pull request deletes this skill: not judged", NULL);
	}
	/* the gate's checks of the whole skill, then per model */
	nk = sc_results_checks_range(r, s->path, NULL, &kf);
	for (size_t i = kf; i < kf + nk; i++) {
		const struct sc_results_check *k = &r->gate.checks[i];
		if (!sc_streq(k->skill, s->path) || (k->model && *k->model))
			continue;
		if (check_applies(k))
			add_check_case(js, s, NULL, k->check, k->status, k->accepted, k->rule, k->message,
				       k->file, k->line);
		else
			not_applicable(&na, k);
	}
	/* failures recorded without a check (results written before checks were) */
	for (size_t m = 0; m < vs->nrows; m++)
		for (size_t i = 0; i < rows[m].nloose; i++) {
			const struct sc_results_gate_failure *f = rows[m].loose[i];
			bool seen = false;
			for (size_t p = 0; p < m && !seen; p++)
				for (size_t q = 0; q < rows[p].nloose && !seen; q++)
					seen = rows[p].loose[q] == f;
			if (!seen)
				add_check_case(js, s, f->model, f->check, f->status, false, f->rule,
					       f->message, f->file, f->line);
		}
	if (s->untested && s->status != SC_SKILL_DELETED && !is_eval(r) &&
	    !sc_results_find_check(r, s->path, "", SC_CHECK_TESTS)) {
		/* an added skill, or results written before skill_untested */
		struct jcase *c = case_new(js, "tests", cn.ptr);
		case_set(c, OUT_SKIP, NULL, "unverified: no tests at head (not counted as failed)", NULL);
	}
	for (size_t m = 0; m < vs->nrows; m++) {
		const char *model = rows[m].model;
		if (is_eval(r))
			add_eval_case(js, &rows[m]);
		if (!model)
			continue;
		nk = sc_results_checks_range(r, s->path, model, &kf);
		for (size_t i = kf; i < kf + nk; i++) {
			const struct sc_results_check *k = &r->gate.checks[i];
			if (!sc_streq(k->skill, s->path) || !sc_streq(k->model, model))
				continue;
			if (check_applies(k))
				add_check_case(js, s, model, k->check, k->status, k->accepted, k->rule,
					       k->message, k->file, k->line);
			else
				not_applicable(&na, k);
		}
		sc_buf_clear(&regressed);
		sc_buf_clear(&already);
		add_test_cases(js, r, s, model, &regressed, &already);
		if (!is_eval(r)) {
			/* tests by name: what this change broke, and what was broken before it */
			struct sc_buf key = SC_BUF_INIT;
			sc_buf_printf(&key, "%s regressed", model);
			props_add(&js->props, key.ptr, "%s", regressed.len ? regressed.ptr : "none");
			sc_buf_clear(&key);
			sc_buf_printf(&key, "%s already_failing", model);
			props_add(&js->props, key.ptr, "%s", already.len ? already.ptr : "none");
			sc_buf_release(&key);
		}
		side_props(js, r, s->path, model);
	}
	/* the run's actual token use and cost of this skill, per model */
	for (size_t uf = 0, nu = sc_results_usage_of(r, s->path, &uf), k = uf; k < uf + nu; k++) {
		const struct sc_results_usage *u = sc_results_usage_at(r, k);
		struct sc_buf key = SC_BUF_INIT;
		if (!sc_streq(u->skill, s->path))
			continue;
		sc_buf_printf(&key, "usage %s", u->model ? u->model : "");
		if (isnan(u->cost_usd))
			props_add(&js->props, key.ptr, "%lld input, %lld output tokens (no price for the model)",
				  (long long)u->tokens_in, (long long)u->tokens_out);
		else
			props_add(&js->props, key.ptr, "%lld input, %lld output tokens, $%.4f (prices of %s)",
				  (long long)u->tokens_in, (long long)u->tokens_out, u->cost_usd,
				  u->price_date ? u->price_date : "unknown date");
		sc_buf_release(&key);
	}
	if (r->run.mode)
		props_add(&js->props, "mode", "%s", r->run.mode);
	if (r->run.oracle)
		props_add(&js->props, "oracle", "true (self-test: answers are reference solutions)");
	if (!is_eval(r))
		/* what the run checked, on every suite a reader may open first */
		props_add(&js->props, "checked", "%s", vd->checked);
	if (na.len)
		props_add(&js->props, "checks_not_applicable", "%s", na.ptr);
	trust_props(js, r, s);
	sc_buf_release(&cn);
	sc_buf_release(&regressed);
	sc_buf_release(&already);
	sc_buf_release(&na);
}

/*
 * The run's own suite: the cause of a run that could not check (its
 * first testcase: said once), a failure of no skill, an interrupted or
 * sharded run, and the run's verdict as properties.
 */
static void build_run(struct jsuite *js, const struct sc_results *r, const struct sc_verdicts *vd,
		      size_t failed_cases)
{
	js->name = sc_xstrdup(is_eval(r) ? "skillci eval" : "skillci run");
	if (r->run.id)
		props_add(&js->props, "run", "%s", r->run.id);
	props_add(&js->props, "gate", "%s", vd->blocking ? "failed" : "passed");
	props_add(&js->props, "verdict", "%s", sc_verdict_name(vd->state));
	props_add(&js->props, "exit_code", "%d", vd->exit_code);
	props_add(&js->props, "summary", "%s", vd->headline);
	if (!is_eval(r))
		props_add(&js->props, "checked", "%s", vd->checked);
	if (!isnan(r->run.alpha))
		props_add(&js->props, "alpha", "%g", r->run.alpha);
	if (vd->cause) {
		/* could not check: the runner's fault, said once, first */
		struct jcase *c = case_new(js, "could not check", "skillci.run");
		case_set(c, OUT_ERROR, "could_not_check", vd->cause, vd->cause);
		failed_cases++;
	}
	for (size_t i = 0; i < vd->nrun_failures; i++) {
		const struct sc_results_gate_failure *f = vd->run_failures[i];
		struct jcase *c;
		if (f->status == SC_STATUS_ERROR && vd->cause)
			continue;  /* the cause, above */
		c = case_new(js, check_label(f->check) ? check_label(f->check) : f->rule, "skillci.run");
		case_set(c, f->status == SC_STATUS_ERROR ? OUT_ERROR : OUT_FAIL, f->rule,
			 f->message ? f->message : f->rule, f->message);
		failed_cases++;
	}
	if (vd->blocking && !failed_cases) {
		/* a verdict with no failure to show: still a failure, never green */
		struct jcase *c = case_new(js, "gate", "skillci.run");
		case_set(c, OUT_FAIL, "gate", "the gate failed", "the results record a failed gate");
	}
	if (vd->shard) {
		struct sc_buf m = SC_BUF_INIT;
		struct jcase *c = case_new(js, "gate", "skillci.run");
		sc_buf_printf(&m, "shard %lld/%lld: skillci merge decides the gate",
			      (long long)r->run.shard_index, (long long)r->run.shard_count);
		case_set(c, OUT_SKIP, NULL, m.ptr, NULL);
		sc_buf_release(&m);
	} else if (!r->run.complete && !vd->cause) {
		struct jcase *c = case_new(js, "run complete", "skillci.run");
		case_set(c, OUT_ERROR, "incomplete",
			 r->run.incomplete_reason ? r->run.incomplete_reason : "the run did not finish",
			 "the numbers cover only the units that finished; a rerun resumes from the store");
	}
}

/* ---- writing ------------------------------------------------------------- */

static void write_props(struct jw *j, const struct jprops *p, struct sc_buf *out)
{
	jw_start(j, "properties");
	for (size_t i = 0; i < p->n; i++) {
		jw_start(j, "property");
		jw_attr(j, "name", p->v[i].name, SIZE_MAX);
		jw_attr(j, "value", p->v[i].value, SC_REPORT_JUNIT_MESSAGE_MAX);
		jw_end(j);
		if (out)
			sc_buf_printf(out, "%s=%s\n", p->v[i].name, p->v[i].value);
	}
	jw_end(j);
}

static void write_case(struct jw *j, const struct jcase *c, const struct sc_junit_options *opt)
{
	static const char *const elem[] = { NULL, "failure", "error", "skipped" };

	jw_start(j, "testcase");
	jw_attr(j, "name", c->name, SIZE_MAX);
	jw_attr(j, "classname", c->classname, SIZE_MAX);
	jw_attrf(j, "time", "%.3f", c->time_s);
	if (opt && opt->file_attrs && c->file) {
		jw_attr(j, "file", c->file, SIZE_MAX);
		jw_attrf(j, "line", "%lld", (long long)(c->line > 0 ? c->line : 1));
	}
	if (opt && opt->file_attrs && c->props.n)
		write_props(j, &c->props, NULL);
	if (c->out != OUT_PASS) {
		jw_start(j, elem[c->out]);
		if (c->type)
			jw_attr(j, "type", c->type, SIZE_MAX);
		jw_attr(j, "message", c->message ? c->message : "", SC_REPORT_JUNIT_MESSAGE_MAX);
		if (c->body)
			jw_text(j, c->body);
		jw_end(j);
	}
	if (c->sysout.len)
		jw_elem_text(j, "system-out", c->sysout.ptr);
	jw_end(j);
}

struct counts {
	size_t tests, failures, errors, skipped;
	double time_s;
};

static struct counts count(const struct jsuite *s)
{
	struct counts k = { s->n, 0, 0, 0, 0 };

	for (size_t i = 0; i < s->n; i++) {
		k.failures += s->cases[i].out == OUT_FAIL;
		k.errors += s->cases[i].out == OUT_ERROR;
		k.skipped += s->cases[i].out == OUT_SKIP;
		k.time_s += s->cases[i].time_s;
	}
	return k;
}

/*
 * A suite's time is its share of the run's wall time, known only once
 * every suite is counted: the suites are written with a hole where it
 * goes, filled in when the document is put out (junit_write).
 */
struct hole {
	size_t at;      /* offset in the suites' text */
	double time_s;  /* the suite's tests' latency */
};

struct holes {
	struct hole *v;
	size_t n, alloc;
};

static void write_suite(struct jw *j, const struct sc_results *r, const struct jsuite *s,
			const struct sc_junit_options *opt, struct holes *h)
{
	struct counts k = count(s);
	struct sc_buf out = SC_BUF_INIT;

	jw_start(j, "testsuite");
	jw_attr(j, "name", s->name, SIZE_MAX);
	jw_attrf(j, "tests", "%zu", k.tests);
	jw_attrf(j, "failures", "%zu", k.failures);
	jw_attrf(j, "errors", "%zu", k.errors);
	jw_attrf(j, "skipped", "%zu", k.skipped);
	sc_buf_puts(j->out, " time=\"");
	SC_GROW(h->v, h->alloc, h->n + 1);
	h->v[h->n].at = j->out->len;
	h->v[h->n++].time_s = k.time_s;
	sc_buf_putc(j->out, '"');
	if (r->run.started_at)
		jw_attr(j, "timestamp", r->run.started_at, SIZE_MAX);
	if (s->file)
		jw_attr(j, "file", s->file, SIZE_MAX);
	write_props(j, &s->props, &out);
	for (size_t i = 0; i < s->n; i++)
		write_case(j, &s->cases[i], opt);
	jw_elem_text(j, "system-out", out.ptr);
	jw_end(j);
	sc_buf_release(&out);
}

/* Where the document goes: a buffer, or a file written in pieces. */
struct jsink {
	struct sc_buf *buf;
	struct sc_atomic_file *file;
};

static void sink_put(struct jsink *k, const char *data, size_t len)
{
	if (k->buf)
		sc_buf_put(k->buf, data, len);
	else
		sc_atomic_write(k->file, data, len);
}

/* The suites' text to k, each hole filled with its suite's time. */
static void put_suites(struct jsink *k, const struct sc_buf *text, const struct holes *h,
		       double scale)
{
	size_t from = 0;
	char t[64];

	for (size_t i = 0; i < h->n; i++) {
		int n = snprintf(t, sizeof(t), "%.3f", h->v[i].time_s * scale);
		sink_put(k, text->ptr + from, h->v[i].at - from);
		sink_put(k, t, n > 0 ? (size_t)n : 0);
		from = h->v[i].at;
	}
	sink_put(k, text->ptr + from, text->len - from);
}

/* A writer of suites into out, inside the root (its start tag closed). */
static void jw_init(struct jw *j, struct sc_buf *out)
{
	memset(j, 0, sizeof(*j));
	sc_buf_init(&j->tmp);
	sc_buf_init(&j->trim);
	j->stack[0] = "testsuites";
	j->depth = 1;
	j->indent = true;
	j->out = out;
}

/* The suites of a range of skills, written by one part (core/par.h). */
struct jpart {
	struct sc_buf text;
	struct holes holes;
	struct counts total;
	size_t failures;  /* failures and errors */
};

struct jparts {
	const struct sc_results *r;
	const struct sc_verdicts *vd;
	const struct sc_junit_options *opt;
	struct jpart part[SC_PAR_MAX];
};

/* Builds, counts and writes the suites of skills [lo, hi) into part p. */
static void skills_part(void *arg, size_t p, size_t lo, size_t hi)
{
	struct jparts *ps = arg;
	struct jpart *out = &ps->part[p];
	struct jsuite suite;
	struct jw j;

	jw_init(&j, &out->text);
	for (size_t i = lo; i < hi; i++) {
		struct counts c;
		memset(&suite, 0, sizeof(suite));
		build_skill(&suite, ps->r, ps->vd, &ps->vd->skills[i]);
		c = count(&suite);
		out->failures += c.failures + c.errors;
		out->total.tests += c.tests;
		out->total.failures += c.failures;
		out->total.errors += c.errors;
		out->total.time_s += c.time_s;
		write_suite(&j, ps->r, &suite, ps->opt, &out->holes);
		suite_release(&suite);
	}
	sc_buf_release(&j.tmp);
	sc_buf_release(&j.trim);
}

/*
 * Writes the document to k. The skills' suites are built, counted (the
 * root's totals come first in the document) and written to buffers with
 * a hole for each suite's time, in parts over the cores; then the root,
 * the suites in order and the holes filled in go out.
 */
static int junit_write(struct jsink *k, const struct sc_results *r,
		       const struct sc_junit_options *opt)
{
	struct sc_verdicts vd;
	struct jsuite run_suite;
	struct jparts ps;
	struct sc_buf head = SC_BUF_INIT, run = SC_BUF_INIT;
	struct holes run_holes = { NULL, 0, 0 };
	struct jw j;
	struct counts total = { 0, 0, 0, 0, 0 };
	size_t n, skill_failures = 0;
	bool has_run;
	double wall = r->totals.wall_ms > 0 ? (double)r->totals.wall_ms / 1000.0 : 0, scale = 1;

	jw_init(&j, NULL);

	/* the skills the model lists (every one for eval, the changed ones for run) */
	sc_verdict_build(&vd, r);
	n = vd.nskills;
	memset(&ps, 0, sizeof(ps));
	ps.r = r;
	ps.vd = &vd;
	ps.opt = opt;
	for (size_t p = 0; p < SC_PAR_MAX; p++)
		sc_buf_init(&ps.part[p].text);
	sc_par_for(n, sc_par_parts(n, 64), skills_part, &ps);
	for (size_t p = 0; p < SC_PAR_MAX; p++) {
		skill_failures += ps.part[p].failures;
		total.tests += ps.part[p].total.tests;
		total.failures += ps.part[p].total.failures;
		total.errors += ps.part[p].total.errors;
		total.time_s += ps.part[p].total.time_s;
	}
	memset(&run_suite, 0, sizeof(run_suite));
	build_run(&run_suite, r, &vd, skill_failures);
	has_run = run_suite.n > 0;
	if (has_run) {
		struct counts c = count(&run_suite);
		total.tests += c.tests;
		total.failures += c.failures;
		total.errors += c.errors;
		total.time_s += c.time_s;
		j.out = &run;
		write_suite(&j, r, &run_suite, opt, &run_holes);
	}

	/* the run's wall time, split over the suites by their tests' latency
	 * (readers add the suites' times up: EnricoMi's "in 12s") */
	if (wall > 0 && total.time_s > 0)
		scale = wall / total.time_s;
	if (wall > 0)
		total.time_s = wall;

	j.out = &head;
	j.depth = 0;
	sc_buf_puts(&head, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	jw_start(&j, "testsuites");
	jw_attr(&j, "name", r->run.oracle ? "skillci (oracle self-test)" : "skillci", SIZE_MAX);
	jw_attrf(&j, "tests", "%zu", total.tests);
	jw_attrf(&j, "failures", "%zu", total.failures);
	jw_attrf(&j, "errors", "%zu", total.errors);
	jw_attrf(&j, "time", "%.3f", total.time_s);
	if (!n && !has_run) {
		jw_end(&j);
		sink_put(k, head.ptr, head.len);
	} else {
		sc_buf_put(&head, ">\n", 2);
		sink_put(k, head.ptr, head.len);
		if (has_run && vd.cause)
			/* a run that could not check: its cause first */
			put_suites(k, &run, &run_holes, scale);
		for (size_t p = 0; p < SC_PAR_MAX; p++)
			put_suites(k, &ps.part[p].text, &ps.part[p].holes, scale);
		if (has_run && !vd.cause)
			put_suites(k, &run, &run_holes, scale);
		sink_put(k, "</testsuites>\n", 14);
	}
	sc_buf_release(&j.tmp);
	sc_buf_release(&j.trim);
	sc_buf_release(&head);
	sc_buf_release(&run);
	for (size_t p = 0; p < SC_PAR_MAX; p++) {
		sc_buf_release(&ps.part[p].text);
		free(ps.part[p].holes.v);
	}
	free(run_holes.v);
	suite_release(&run_suite);
	sc_verdict_release(&vd);
	return 0;
}

int sc_report_junit(struct sc_buf *out, const struct sc_results *r, const struct sc_junit_options *opt)
{
	struct jsink k = { out, NULL };

	return junit_write(&k, r, opt);
}

int sc_report_junit_save(const char *path, const struct sc_results *r,
			 const struct sc_junit_options *opt)
{
	struct sc_atomic_file f;
	struct jsink k = { NULL, &f };
	int err;

	if (sc_atomic_open(&f, path) < 0) {
		err = f.err;
		sc_atomic_abort(&f);
		return err;
	}
	if ((err = junit_write(&k, r, opt)) < 0) {
		sc_atomic_abort(&f);
		return err;
	}
	return sc_atomic_commit(&f);
}
