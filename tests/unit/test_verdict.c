/*
 * The agreement property (results/verdict.h): random results, gated as a
 * PR check or an eval, rendered through every reporter (terminal,
 * Markdown, HTML, JUnit, GitHub annotations and outputs) say the same
 * thing: the run's state and exit code, each skill's state, the count of
 * annotations written, and for a run that could not check its cause,
 * once, first, never as the pull request's failure; and one alpha: every
 * significance level a surface prints is the number the gate recorded for
 * that check (in its message) or the run's own alpha, never another.
 */
#include "unit.h"
#include "states.h"
#include "par.h"
#include "eval/eval.h"
#include "pipeline/config.h"
#include "pipeline/gate.h"
#include "reporters/report_fmt.h"
#include "reporters/report_github.h"
#include "reporters/report_html.h"
#include "reporters/report_junit.h"
#include "reporters/report_md.h"
#include "reporters/report_term.h"
#include "results/results.h"
#include "results/verdict.h"

#include <math.h>

static uint64_t rng_state;

static uint32_t rnd(uint32_t n)
{
	/* xorshift64*: reproducible from the seed printed on failure */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ULL) >> 33) % n;
}

static void add_unit(struct sc_results *r, const char *skill, enum sc_variant variant,
		     const char *model, int test, int run, enum sc_unit_verdict verdict)
{
	struct sc_results_unit *u;
	char id[32];

	r->units = sc_xrealloc(r->units, (r->nunits + 1) * sizeof(*r->units));
	u = &r->units[r->nunits++];
	sc_results_unit_init(u);
	snprintf(id, sizeof(id), "tests[%d]", test);
	u->skill = sc_xstrdup(skill);
	u->variant = variant;
	u->model = sc_xstrdup(model);
	u->test_id = sc_xstrdup(id);
	u->test_name = sc_xstrdup(id);
	u->run_index = run;
	u->kind = SC_KIND_TEXT;
	u->verdict = verdict;
	u->tokens_in = 100 + (int64_t)rnd(50);
	u->tokens_out = 20;
	if (verdict == SC_UNIT_ERROR) {
		u->message = sc_xstrdup("HTTP 503 from the model server after 6 attempts");
		u->error_class = sc_xstrdup("provider");
	} else if (verdict == SC_UNIT_FAIL) {
		u->message = sc_xstrdup("expected \"ok\" not found");
		u->error_class = sc_xstrdup("wrong_answer");
	}
}

/* One side's runs: each unit passes with probability pass/10, errs with err/10. */
static void add_side(struct sc_results *r, const char *skill, enum sc_variant variant,
		     const char *model, int tests, int runs, int pass, int err)
{
	for (int t = 0; t < tests; t++)
		for (int k = 0; k < runs; k++) {
			int x = (int)rnd(10);
			add_unit(r, skill, variant, model, t, k,
				 x < err ? SC_UNIT_ERROR : x < err + pass ? SC_UNIT_PASS : SC_UNIT_FAIL);
		}
}

/*
 * Random results: a PR check (modified, added, deleted and untested
 * skills; base and head, or no skill and head) or an eval (no skill and
 * the skill), on one or two models; now and then an outage (every
 * request of the run failed).
 */
static size_t many_skills;  /* when set, the number of skills */

static void random_results(struct sc_results *r, bool *outage)
{
	static const char *const models[] = { "anthropic.m0", "openai.m1" };
	bool eval = rnd(4) == 0;
	size_t nskills = many_skills ? many_skills : 1 + rnd(5), nmodels = 1 + rnd(2);
	int runs = 1 + (int)rnd(3);

	*outage = rnd(5) == 0;
	sc_results_init(r);
	r->run.kind = eval ? SC_RUN_KIND_EVAL : SC_RUN_KIND_RUN;
	r->run.id = sc_xstrdup("run-1");
	r->run.complete = true;
	r->run.runs = runs;
	r->run.models = sc_xcalloc(nmodels, sizeof(*r->run.models));
	for (size_t m = 0; m < nmodels; m++)
		r->run.models[r->run.nmodels++] = sc_xstrdup(models[m]);
	for (size_t i = 0; i < nskills; i++) {
		struct sc_results_skill *s;
		char path[32];
		int tests = 1 + (int)rnd(5), pick = (int)rnd(eval ? 1 : 5);
		int err = *outage ? 10 : rnd(4) == 0 ? (int)rnd(5) : 0;

		snprintf(path, sizeof(path), "skills/s%zu", i);
		r->skills = sc_xrealloc(r->skills, (r->nskills + 1) * sizeof(*r->skills));
		s = &r->skills[r->nskills++];
		memset(s, 0, sizeof(*s));
		s->path = sc_xstrdup(path);
		s->name = sc_xstrdup(path + 7);
		s->skill_md = sc_xstrdup("SKILL.md");
		s->tests = tests;
		s->status = eval ? SC_SKILL_UNCHANGED
			    : pick == 0 ? SC_SKILL_ADDED : pick == 1 ? SC_SKILL_DELETED : SC_SKILL_MODIFIED;
		if (!eval && pick == 4) {
			s->untested = true;  /* no tests: only its validity */
			s->tests = 0;
			continue;
		}
		for (size_t m = 0; m < nmodels; m++) {
			int pass = (int)rnd(11);
			if (s->status == SC_SKILL_DELETED) {
				add_side(r, path, SC_VARIANT_BASE, models[m], tests, runs, pass, err);
			} else if (eval || s->status == SC_SKILL_ADDED) {
				add_side(r, path, SC_VARIANT_BASELINE, models[m], tests, runs, (int)rnd(11), err);
				add_side(r, path, SC_VARIANT_HEAD, models[m], tests, runs, pass, err);
			} else {
				add_side(r, path, SC_VARIANT_BASE, models[m], tests, runs, (int)rnd(11), err);
				add_side(r, path, SC_VARIANT_HEAD, models[m], tests, runs, pass, err);
			}
		}
	}
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0, len = strlen(needle);

	for (const char *p = hay; len && (p = strstr(p, needle)); p += len)
		n++;
	return n;
}

/* Lines that start with prefix. */
static size_t count_lines(const char *text, const char *prefix)
{
	size_t n = 0, len = strlen(prefix);

	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		n += !strncmp(p, prefix, len);
	return n;
}

/* The value of a GitHub output written as name=value. */
static char *output_of(const char *outputs, const char *name)
{
	struct sc_buf key = SC_BUF_INIT;
	const char *p, *end;
	char *v;

	sc_buf_printf(&key, "%s=", name);
	for (p = outputs; p && strncmp(p, key.ptr, key.len);)
		p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL;
	sc_buf_release(&key);
	if (!p)
		return NULL;
	p += strlen(name) + 1;
	end = strchr(p, '\n');
	v = sc_xmalloc((size_t)(end - p) + 1);
	memcpy(v, p, (size_t)(end - p));
	v[end - p] = '\0';
	return v;
}

/* The value of a JUnit property name in the document (its first). */
static char *property_of(const char *xml, const char *name)
{
	struct sc_buf key = SC_BUF_INIT;
	const char *p, *end;
	char *v = NULL;

	sc_buf_printf(&key, "<property name=\"%s\" value=\"", name);
	p = strstr(xml, key.ptr);
	if (p) {
		p += key.len;
		end = strchr(p, '"');
		v = sc_xmalloc((size_t)(end - p) + 1);
		memcpy(v, p, (size_t)(end - p));
		v[end - p] = '\0';
	}
	sc_buf_release(&key);
	return v;
}

/*
 * Whether the number printed at p (after "alpha ") is one the results
 * recorded: the run's alpha, or an "alpha N" of a gate check's message.
 * Compared as printed text (the reporters print what the gate wrote), and
 * as a number against the run's alpha (a reporter formats that itself).
 */
static bool alpha_recorded(const struct sc_results *r, const char *p)
{
	char *end;
	double x = strtod(p, &end);
	size_t len = (size_t)(end - p);

	if (end == p)
		return true;  /* "alpha" as a word, not a level */
	if (fabs(x - r->run.alpha) <= 1e-9 * r->run.alpha)
		return true;
	for (size_t i = 0; i < r->gate.nchecks; i++) {
		const char *m = r->gate.checks[i].message;
		for (const char *q = m; q && (q = strstr(q, "alpha ")); q++)
			if (!strncmp(q + 6, p, len) && !(q[6 + len] >= '0' && q[6 + len] <= '9'))
				return true;
	}
	return false;
}

/* The first "alpha N" of text whose N the results do not hold; NULL when none. */
static const char *alpha_stray(const struct sc_results *r, const char *text)
{
	for (const char *p = text; (p = strstr(p, "alpha ")); p++)
		if (!alpha_recorded(r, p + 6))
			return p;
	return NULL;
}

/* The alphas of check c's message, each also in text when c is rendered
 * there (its message's first clause found in it): the check's own level,
 * not another's. */
static bool check_alphas_in(const struct sc_results_check *c, const char *text)
{
	const char *m = c->message, *semi;
	struct sc_buf head = SC_BUF_INIT, a = SC_BUF_INIT;
	bool ok = true;

	if (!m || !strstr(m, "alpha "))
		return true;
	semi = strchr(m, ';');
	sc_buf_put(&head, m, semi ? (size_t)(semi - m) : strlen(m));
	if (strstr(text, head.ptr))
		for (const char *q = m; ok && (q = strstr(q, "alpha ")); q++) {
			size_t n = strspn(q + 6, "0123456789.e-");
			sc_buf_clear(&a);
			sc_buf_put(&a, q, 6 + n);
			ok = strstr(text, a.ptr) != NULL;
		}
	sc_buf_release(&head);
	sc_buf_release(&a);
	return ok;
}

static void check_agreement(const struct sc_results *r, bool outage, uint64_t seed)
{
	struct sc_verdicts v;
	struct sc_buf term = SC_BUF_INIT, md = SC_BUF_INIT, full = SC_BUF_INIT, html = SC_BUF_INIT;
	struct sc_buf xml = SC_BUF_INIT, notes = SC_BUF_INIT, outs = SC_BUF_INIT, mark = SC_BUF_INIT;
	struct sc_junit_options jo = { false };
	const char *last;
	size_t written;
	char *o;

	sc_verdict_build(&v, r);
	sc_report_term(&term, r, false);
	sc_report_md(&md, r, NULL);
	sc_report_md_full(&full, r);
	sc_report_html_page(&html, "skillci", md.ptr, md.len, r);
	assert_int_equal(sc_report_junit(&xml, r, &jo), 0);
	written = sc_report_gh_annotations(&notes, r);
	assert_int_equal(sc_report_gh_outputs(&outs, r, NULL, md.ptr, "EOF_d41d8cd9"), 0);
/* SC_TEST_DUMP=1: the Markdown and terminal of a failing draw on stderr */
#define AGREE(cond) do { if (!(cond) && getenv("SC_TEST_DUMP")) fprintf(stderr, "%s\n----\n%s\n", md.ptr, term.ptr); if (!(cond)) fail_msg("seed %llu: %s", (unsigned long long)seed, #cond); } while (0)

	/* the state and exit code: one model, every surface */
	AGREE(v.exit_code == (int)r->gate.exit_code);
	AGREE(v.state == (v.kind == SC_RUN_KIND_EVAL && r->gate.verdict != SC_VERDICT_ERROR
			  ? v.state : r->gate.verdict));
	o = output_of(outs.ptr, "verdict");
	AGREE(o && !strcmp(o, sc_verdict_name(v.state)));
	free(o);
	o = output_of(outs.ptr, "exit_code");
	AGREE(o && atoi(o) == v.exit_code);
	free(o);
	o = output_of(outs.ptr, "passed");
	AGREE(o && !strcmp(o, v.blocking ? "false" : "true"));
	free(o);
	/* the run's own suite, when it has a case (always when it could not check) */
	o = property_of(xml.ptr, "verdict");
	AGREE(o ? !strcmp(o, sc_verdict_name(v.state)) : v.state != SC_VERDICT_ERROR);
	free(o);
	o = property_of(xml.ptr, "exit_code");
	AGREE(o ? atoi(o) == v.exit_code : v.state != SC_VERDICT_ERROR);
	free(o);
	/* the JUnit blocks exactly when the run does */
	AGREE((count(xml.ptr, "<failure ") + count(xml.ptr, "<error ") == 0) == !v.blocking);

	/* the annotations: as many written as the outputs say, as the model holds */
	AGREE(written == v.nnotes_written);
	AGREE(count_lines(notes.ptr, "::error ") + count_lines(notes.ptr, "::warning ") == written);
	o = output_of(outs.ptr, "annotations");
	AGREE(o && (size_t)atoi(o) == written);
	free(o);

	/* the headline: the terminal's last verdict line, the Markdown's first */
	sc_buf_printf(&mark, "%s ", sc_report_verdict_mark(v.state));
	last = term.ptr;
	for (const char *p = term.ptr; (p = strstr(p, mark.ptr)); p++)
		if (p == term.ptr || p[-1] == '\n')
			last = p;
	AGREE(!strncmp(last, mark.ptr, mark.len));
	sc_buf_clear(&mark);
	sc_buf_printf(&mark, "\n%s **", sc_report_verdict_icon(v.state));
	AGREE(strstr(md.ptr, mark.ptr) != NULL);
	AGREE(strstr(full.ptr, mark.ptr) != NULL);
	AGREE(strstr(html.ptr, "<html") != NULL);

	/* each skill: its state in the JUnit, no green for a red one in the
	 * Markdown table, no red in the Details of a green one */
	for (size_t i = 0; i < v.nskills; i++) {
		const struct sc_verdict_skill *vs = &v.skills[i];
		struct sc_buf key = SC_BUF_INIT;
		const char *suite;
		sc_buf_printf(&key, "<testsuite name=\"%s\"", vs->skill->path);
		suite = strstr(xml.ptr, key.ptr);
		AGREE(suite != NULL);
		if (suite) {
			o = property_of(suite, "state");
			AGREE(o && !strcmp(o, sc_verdict_name(vs->state)));
			free(o);
		}
		sc_buf_release(&key);
	}

	/* each row (skill x model): the Markdown table and its Details show
	 * the row's state, with the same icon */
	for (size_t i = 0; i < v.nrows; i++) {
		const struct sc_verdict_row *row = &v.rows[i];
		struct sc_buf cell = SC_BUF_INIT, sum = SC_BUF_INIT;
		const char *icon = sc_report_verdict_icon(row->state);
		size_t rows_seen = 0;
		if (!row->model)
			continue;
		sc_buf_printf(&cell, "<code>%s</code>", row->skill->path);
		sc_buf_printf(&sum, "<summary>%s <code>%s</code> · <code>%s</code>", icon,
			      row->skill->path, row->model);
		for (const char *p = md.ptr; (p = strstr(p, cell.ptr)); p++) {
			const char *line = p;
			while (line > md.ptr && line[-1] != '\n')
				line--;
			const char *eol = strchr(p, '\n');
			struct sc_buf model = SC_BUF_INIT;
			bool mine;
			if (strncmp(line, "| ", 2))
				continue;
			/* with several models the cell names its model */
			sc_buf_printf(&model, "<sub>%s</sub>", row->model);
			mine = r->run.nmodels < 2 || (strstr(p, model.ptr) && strstr(p, model.ptr) < eol);
			sc_buf_release(&model);
			if (!mine)
				continue;
			rows_seen++;
			AGREE(!strncmp(line + 2, icon, strlen(icon)));
		}
		AGREE(rows_seen >= 1);
		if (strstr(full.ptr, "<code>") && count(full.ptr, "<summary>") > 0) {
			/* a row with units has its Details with the row's icon */
			struct sc_buf any = SC_BUF_INIT;
			sc_buf_printf(&any, " <code>%s</code> · <code>%s</code> (", row->skill->path, row->model);
			for (const char *p = full.ptr; (p = strstr(p, any.ptr)); p++) {
				const char *line = p;
				while (line > full.ptr && line[-1] != '\n')
					line--;
				if (!strncmp(line, "<summary>", 9))
					AGREE(!strncmp(line, sum.ptr, sum.len));
			}
			sc_buf_release(&any);
		}
		sc_buf_release(&cell);
		sc_buf_release(&sum);
	}

	/* one alpha: every level a surface prints is the gate's for that
	 * check (its message) or the run's alpha; the footer and the JUnit
	 * property say the run's, which is the gate's policy */
	AGREE(alpha_stray(r, term.ptr) == NULL);
	AGREE(alpha_stray(r, md.ptr) == NULL);
	AGREE(alpha_stray(r, full.ptr) == NULL);
	AGREE(alpha_stray(r, xml.ptr) == NULL);
	AGREE(alpha_stray(r, notes.ptr) == NULL);
	AGREE(alpha_stray(r, outs.ptr) == NULL);
	for (size_t i = 0; i < r->gate.nchecks; i++) {
		AGREE(check_alphas_in(&r->gate.checks[i], term.ptr));
		AGREE(check_alphas_in(&r->gate.checks[i], full.ptr));
		AGREE(check_alphas_in(&r->gate.checks[i], xml.ptr));
		AGREE(check_alphas_in(&r->gate.checks[i], notes.ptr));
	}
	o = property_of(xml.ptr, "alpha");
	AGREE(!o || fabs(atof(o) - r->run.alpha) <= 1e-9);
	free(o);

	/* could not check: said once, first, on every surface; never the PR's failure */
	if (v.state == SC_VERDICT_ERROR) {
		AGREE(v.cause != NULL);
		AGREE(!strncmp(term.ptr, "could not check: ", strlen("could not check: ")));
		AGREE(count(term.ptr, v.cause) == 1);
		AGREE(strstr(v.headline, v.cause) != NULL);
		AGREE(count(notes.ptr, "::") >= 2 && !strncmp(notes.ptr, "::warning title=skillci could not check",
								  strlen("::warning title=skillci could not check")));
		AGREE(v.exit_code == SC_EXIT_INFRA);
		AGREE(count(xml.ptr, "<error ") >= 1);
		if (outage) {
			/* nothing failed for the pull request's reasons */
			AGREE(count(xml.ptr, "<failure ") == 0 || v.failed_checks > 0);
			AGREE(count_lines(notes.ptr, "::error ") == 0 || v.failed_checks > 0);
		}
	} else {
		AGREE(v.cause == NULL);
		AGREE(strncmp(term.ptr, "could not check", 15));
	}
	if (outage && v.kind == SC_RUN_KIND_RUN) {
		/* every decided unit failed: the run could not check, unless no
		 * skill had a unit that decides */
		bool any = false;
		for (size_t i = 0; i < r->nunits && !any; i++)
			any = sc_results_unit_decides(r, &r->units[i]);
		/* nothing measured fails the pull request when every request
		 * failed: only what needs no model (a refused deletion) */
		for (size_t i = 0; i < r->gate.nchecks; i++)
			if (r->gate.checks[i].status == SC_STATUS_FAILED)
				AGREE(r->gate.checks[i].check == SC_CHECK_DELETED ||
				      r->gate.checks[i].check == SC_CHECK_VALIDITY);
		if (any && !v.failed_checks)
			AGREE(v.state == SC_VERDICT_ERROR);
	}
#undef AGREE
	sc_verdict_release(&v);
	sc_buf_release(&term);
	sc_buf_release(&md);
	sc_buf_release(&full);
	sc_buf_release(&html);
	sc_buf_release(&xml);
	sc_buf_release(&notes);
	sc_buf_release(&outs);
	sc_buf_release(&mark);
}

static void test_every_reporter_agrees(void **state)
{
	struct sc_config cfg;
	size_t outages = 0, errors = 0, fails = 0, passes = 0;
	(void)state;

	sc_config_defaults(&cfg);
	cfg.gate.max_runs = 0;  /* a fixed design: one look on every unit */
	for (uint64_t seed = 1; seed <= 300; seed++) {
		struct sc_results r;
		bool outage;
		rng_state = seed * 0x9E3779B97F4A7C15ULL;
		random_results(&r, &outage);
		/* the PR's alpha drawn too, so that a level a reporter assumes
		 * (the default 0.05) shows where the gate used another */
		cfg.gate.alpha = (const double[]){ 0.05, 0.01, 0.1, 0.2 }[rnd(4)];
		sc_eval_aggregate(&r, cfg.gate.alpha);
		sc_gate_apply(&r, &cfg.gate);
		check_agreement(&r, outage, seed);
		outages += outage;
		errors += r.gate.verdict == SC_VERDICT_ERROR;
		fails += r.gate.verdict == SC_VERDICT_FAIL;
		passes += r.gate.verdict == SC_VERDICT_PASS;
		sc_results_release(&r);
	}
	/* the draws reach every state that matters */
	assert_true(outages > 10);
	assert_true(errors >= outages / 2);
	assert_true(fails > 10);
	assert_true(passes > 5);
	sc_config_release(&cfg);
}

/*
 * The gate and the reports of many skills made in parts over the cores
 * (core/par.h): the gate's replays and measured-value statistics,
 * JUnit's suites, the HTML page's Markdown and charts, the results file's
 * arrays. Each is the same as made in one part, and JUnit the same bytes
 * again through the file writer.
 */
static void test_reports_same_in_parts(void **state)
{
	struct sc_config cfg;
	char *dir = sc_test_mkdtemp();
	struct sc_buf path = SC_BUF_INIT, file = SC_BUF_INIT;
	(void)state;

	sc_config_defaults(&cfg);
	sc_path_join(&path, dir, "junit.xml");
	many_skills = 700;
	for (uint64_t seed = 1; seed <= 3; seed++) {
		struct sc_results r;
		struct sc_buf one = SC_BUF_INIT;
		struct sc_junit_options jo = { seed == 2 };
		bool outage;
		struct sc_buf full = SC_BUF_INIT, page = SC_BUF_INIT, json = SC_BUF_INIT;
		struct sc_results again;
		/* the gate's checks decided in parts: the same results */
		cfg.gate.max_runs = seed == 3 ? 0 : 20;
		rng_state = seed * 0x9E3779B97F4A7C15ULL;
		random_results(&r, &outage);
		rng_state = seed * 0x9E3779B97F4A7C15ULL;
		random_results(&again, &outage);
		sc_eval_aggregate(&r, cfg.gate.alpha);
		sc_eval_aggregate(&again, cfg.gate.alpha);
		sc_par_set_width(1);
		sc_gate_apply(&r, &cfg.gate);
		sc_par_set_width(SC_PAR_MAX);
		sc_gate_apply(&again, &cfg.gate);
		assert_true(r.gate.nchecks > 700);
		sc_results_format(&full, &r);
		sc_results_format(&page, &again);
		assert_int_equal(full.len, page.len);
		assert_memory_equal(full.ptr, page.ptr, full.len);
		sc_buf_clear(&full);
		sc_buf_clear(&page);
		sc_results_release(&again);
		sc_par_set_width(1);
		assert_int_equal(sc_report_junit(&one, &r, &jo), 0);
		assert_true(count(one.ptr, "<testsuite ") >= 700);
		sc_report_md_full(&full, &r);
		sc_report_html_page(&page, "skillci", full.ptr, full.len, &r);
		assert_non_null(strstr(page.ptr, "<svg"));  /* the charts are in it */
		sc_results_format(&json, &r);
		for (size_t width = 2; width <= SC_PAR_MAX; width *= 2) {
			struct sc_buf more = SC_BUF_INIT;
			sc_par_set_width(width);
			assert_int_equal(sc_report_junit(&more, &r, &jo), 0);
			assert_int_equal(more.len, one.len);
			assert_memory_equal(more.ptr, one.ptr, one.len);
			sc_buf_clear(&more);
			sc_report_html_page(&more, "skillci", full.ptr, full.len, &r);
			assert_int_equal(more.len, page.len);
			assert_memory_equal(more.ptr, page.ptr, page.len);
			sc_buf_clear(&more);
			sc_results_format(&more, &r);
			assert_int_equal(more.len, json.len);
			assert_memory_equal(more.ptr, json.ptr, json.len);
			sc_buf_release(&more);
		}
		sc_buf_release(&full);
		sc_buf_release(&page);
		sc_buf_release(&json);
		assert_int_equal(sc_report_junit_save(path.ptr, &r, &jo), 0);
		sc_buf_clear(&file);
		assert_int_equal(sc_read_file(&file, path.ptr, 256u << 20), 0);
		assert_int_equal(file.len, one.len);
		assert_memory_equal(file.ptr, one.ptr, one.len);
		sc_par_set_width(0);
		sc_buf_release(&one);
		sc_results_release(&r);
	}
	many_skills = 0;
	sc_config_release(&cfg);
	sc_buf_release(&path);
	sc_buf_release(&file);
	sc_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_reporter_agrees),
		cmocka_unit_test(test_reports_same_in_parts),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
