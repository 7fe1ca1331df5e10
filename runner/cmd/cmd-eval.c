/*
 * skillci eval DIR... -m MODEL...: evaluate skills in place, with and
 * without the skill, on one or more models (upskill `eval` parity), and
 * print upskill-style bars with 95% Wilson intervals, the token line, the
 * paired significance test, and a benchmark table for several models.
 */
#include "common.h"
#include "escape.h"
#include "cmd/cmd.h"
#include "diag.h"
#include "agent/agent.h"
#include "pipeline/evalrun.h"
#include "providers/provider.h"
#include "reporters/report_fmt.h"
#include "results/results.h"
#include "stats.h"
#include "results/store.h"
#include "results/verdict.h"

#include <math.h>
#include <unistd.h>

/* What the command takes: eval's options (pipeline/evalrun.h), filled by the table, and its own. */
struct eval_opts {
	struct sc_evalrun_options e;
	const char *json;
	bool verbose;
};

/* --agent MODE: auto, always or never (agent/agent.h). */
static int agent_option(void *opts, const char *value)
{
	struct eval_opts *o = opts;
	enum sc_agent_mode mode;
	int err;

	if ((err = sc_agent_mode_parse(&mode, value)) < 0)
		return err;
	o->e.agent_mode = (int)mode;
	o->e.agent_mode_set = true;
	return 0;
}

static const struct sc_option eval_table[] = {
	SC_OPT_LIST("model", 'm', struct eval_opts, e.models, e.nmodels, 64, "MODEL",
		    "model to evaluate (repeat for several): PROVIDER.MODEL[.EFFORT]\n"
		    "[?reasoning=R&temperature=T], an alias (haiku, sonnet, gpt-4.1,\n"
		    "kimi, ...), an endpoint of skillci.yml's providers (lab.MODEL),\n"
		    "or oracle.self (self-test); 'skillci help models' lists them"),
	SC_OPT_INT("runs", 0, struct eval_opts, e.runs, 1, 1000, "N",
		   "runs per test, a fixed design (default: runs in skillci.yml,\n"
		   "else 1)"),
	SC_OPT_INT("max-runs", 0, struct eval_opts, e.max_runs, 1, 1000, "R",
		   "sample sequentially: rounds of --first-runs runs per test on\n"
		   "both sides, per skill x model until the lift over no skill\n"
		   "is shown or ruled out, at most R runs per test (default:\n"
		   "gate.max_runs in skillci.yml; 0 there: the fixed design)"),
	SC_OPT_INT("first-runs", 0, struct eval_opts, e.first_runs, 1, 1000, "F",
		   "runs per test in each round (default gate.first_runs, else 1)"),
	SC_OPT_DOUBLE("lift-margin", 0, struct eval_opts, e.lift_margin, 0, 99, "P",
		      "sequential: the lift in points the skill must show (default 0)"),
	SC_OPT_FLAG("no-baseline", 0, struct eval_opts, e.no_baseline,
		    "do not evaluate without the skill"),
	SC_OPT_STRING("tests", 't', struct eval_opts, e.tests_file, "FILE",
		      "test file to use instead of the skill's own tests"),
	SC_OPT_FLAG("generate-tests", 0, struct eval_opts, e.generate_tests,
		    "a skill without tests gets tests written by the test\n"
		    "generation model first, saved in its skill_meta.json"),
	SC_OPT_STRING("test-gen-model", 0, struct eval_opts, e.test_gen_model, "M",
		      "that model (default: test_gen_model, else\n"
		      "skill_generation_model of upskill.config.yaml, else sonnet)"),
	SC_OPT_INT("max-turns", 0, struct eval_opts, e.max_turns, 1, 1000, "N",
		   "model turns for kernel tests and agent runs (default 3)"),
	SC_OPT_CALLBACK("agent", 0, agent_option, "MODE",
			"which tests run as agents, with tools in a jail: auto (tests\n"
			"with workspace verifiers, trigger tests), always (every text\n"
			"test), never (default: agent.mode in skillci.yml, else auto)"),
	SC_OPT_STRING("judge", 0, struct eval_opts, e.judge, "MODEL",
		      "score every answer 0-1 with this model (beside the verdict)"),
	SC_OPT_STRING("rubric", 0, struct eval_opts, e.rubric_file, "FILE",
		      "the judge's rubric (default: a built-in one)"),
	SC_OPT_STRING("grader", 0, struct eval_opts, e.grader, "MODEL",
		      "grade tests' expectations with this model, per statement with\n"
		      "quoted evidence (default: grader.model; without one such\n"
		      "tests are unverified: skillci help tests)"),
	SC_OPT_FLAG("offline", 0, struct eval_opts, e.offline, "answer from the response cache only"),
	SC_OPT_STRING("cache", 0, struct eval_opts, e.cache, "DIR",
		      "response cache (default .skillci/cache)"),
	SC_OPT_FLAG("no-cache", 0, struct eval_opts, e.no_cache, "no response cache"),
	SC_OPT_STRING("store", 0, struct eval_opts, e.store, "LOCATION",
		      "results store: a SQLite file or postgresql://… (default\n"
		      "$" SC_STORE_ENV ", else " SC_STORE_DEFAULT_PATH ")"),
	SC_OPT_FLAG("no-reuse", 0, struct eval_opts, e.no_reuse,
		    "evaluate every unit even when the store has it"),
	SC_OPT_INT("concurrency", 0, struct eval_opts, e.concurrency, 1, 1000, "N",
		   "model requests in flight, all providers together (default:\n"
		   "skillci.yml concurrency, else 64)"),
	SC_OPT_INT("retries", 0, struct eval_opts, e.retries, 0, 20, "N",
		   "retries per model request after the first try (default 5)"),
	SC_OPT_INT("jobs", 0, struct eval_opts, e.jobs, 1, SC_MAX_JOBS, "N",
		   "kernel checks at once, each in its own worker process\n"
		   "(default: one per GPU; without a GPU, one per CPU)"),
	SC_OPT_STRING("json", 0, struct eval_opts, json, "FILE",
		      "write the results JSON (docs/results-json.md)"),
	SC_OPT_STRING("fixtures", 0, struct eval_opts, e.fixtures, "DIR",
		      "kernel fixtures (default fixtures)"),
	SC_OPT_STRING("arch", 0, struct eval_opts, e.arch, "ARCH",
		      "GPU architecture for kernel tests (default sm_90)"),
	SC_OPT_FLAG("compile-only", 0, struct eval_opts, e.compile_only,
		    "check kernels without a GPU even when one is present"),
	SC_OPT_FLAG("allow-unpinned", 0, struct eval_opts, e.allow_unpinned,
		    "accept fixtures missing from or changed since fixtures.lock"),
	SC_OPT_STRING("config", 0, struct eval_opts, e.config, "FILE",
		      "configuration (default: ./skillci.yml and ./upskill.config.yaml\n"
		      "when present); flags override it"),
	SC_OPT_FLAG("verbose", 'v', struct eval_opts, verbose, "per-test lines"),
	SC_OPT_END,
};

static const struct sc_options eval_spec = {
	"eval", "DIR...",
	"Evaluates each skill folder with and without the skill on every model. DIR may\n"
	"also name a skill in skills_dir (upskill.config.yaml, skillci.yml).",
	"exit: 0 done, 2 bad usage or input, 3 infrastructure failure (too many\n"
	"provider errors, store or network failure).\n",
	eval_table, 0,
};

/* "40%", or "-" when absent; rounds like Python's :.0% format. */
static void pct(struct sc_buf *out, double v)
{
	if (isnan(v))
		sc_buf_puts(out, "-");
	else
		sc_buf_printf(out, "%.0f%%", v * 100.0);
}

/* A signed percentage: "+40%", "-10%". */
static void spct(struct sc_buf *out, double v)
{
	if (isnan(v))
		sc_buf_puts(out, "-");
	else
		sc_buf_printf(out, "%s%.0f%%", v >= 0 ? "+" : "-", fabs(v) * 100.0);
}

struct totals {
	int64_t tokens;
	size_t units;
};

/* Tokens summed over the non-error units of (skill, variant, model). */
static struct totals token_total(const struct sc_results *r, const char *skill,
				 enum sc_variant variant, const char *model)
{
	struct totals t = { 0, 0 };

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (strcmp(u->skill, skill) || u->variant != variant || strcmp(u->model, model) ||
		    u->verdict == SC_UNIT_ERROR)
			continue;
		t.tokens += u->tokens_in + u->tokens_out;
		t.units++;
	}
	return t;
}

static void print_rate_line(const char *label, const struct sc_results_aggregate *a,
			    const char *suffix)
{
	struct sc_buf b = SC_BUF_INIT;

	sc_buf_printf(&b, "  %-10s ", label);
	sc_report_bar(&b, a->pass_rate);
	sc_buf_puts(&b, "  ");
	{
		struct sc_buf p = SC_BUF_INIT;
		pct(&p, a->pass_rate);
		sc_buf_printf(&b, "%5s", p.ptr);
		sc_buf_release(&p);
	}
	if (a->n) {
		sc_buf_puts(&b, "  [95% CI ");
		pct(&b, a->ci_low);
		sc_buf_puts(&b, "\u2013");
		pct(&b, a->ci_high);
		sc_buf_printf(&b, ", n=%lld]", (long long)a->n);
	} else {
		sc_buf_puts(&b, "  [no pass/fail units]");
	}
	if (suffix && *suffix)
		sc_buf_printf(&b, "  %s", suffix);
	sc_cmd_line(stdout, "%s", b.ptr);
	sc_buf_release(&b);
}

/* Per-test lines (-v): passes out of runs for each variant. */
static void print_tests(const struct sc_results *r, const char *skill, const char *model,
			bool baseline)
{
	struct sc_buf esc = SC_BUF_INIT;
	size_t shown = 0;

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		int bp = 0, bn = 0, sp = 0, sn = 0;
		bool first = true;
		if (strcmp(u->skill, skill) || strcmp(u->model, model))
			continue;
		/* print each test once, at its first unit */
		for (size_t j = 0; j < i; j++)
			if (!strcmp(r->units[j].skill, skill) && !strcmp(r->units[j].model, model) &&
			    !strcmp(r->units[j].test_id, u->test_id))
				first = false;
		if (!first)
			continue;
		for (size_t j = 0; j < r->nunits; j++) {
			const struct sc_results_unit *w = &r->units[j];
			bool base;
			if (strcmp(w->skill, skill) || strcmp(w->model, model) || strcmp(w->test_id, u->test_id))
				continue;
			base = w->variant == SC_VARIANT_BASELINE;
			(base ? &bn : &sn)[0]++;
			if (w->verdict == SC_UNIT_PASS)
				(base ? &bp : &sp)[0]++;
		}
		shown++;
		/* test names and messages (model and server text) are untrusted */
		sc_buf_clear(&esc);
		sc_escape_log(&esc, u->test_name);
		if (baseline)
			sc_cmd_line(stdout, "  %zu. %-40.40s  %d/%d base  %d/%d skill", shown, esc.ptr,
				    bp, bn, sp, sn);
		else
			sc_cmd_line(stdout, "  %zu. %-40.40s  %d/%d skill", shown, esc.ptr, sp, sn);
		for (size_t j = 0; j < r->nunits; j++) {
			const struct sc_results_unit *w = &r->units[j];
			if (strcmp(w->skill, skill) || strcmp(w->model, model) ||
			    strcmp(w->test_id, u->test_id) || !w->message)
				continue;
			sc_cmd_line(stdout, "       %s run %lld: %s: %s", sc_variant_name(w->variant),
				    (long long)w->run_index, sc_unit_verdict_name(w->verdict), w->message);
		}
	}
	if (shown)
		printf("\n");
	sc_buf_release(&esc);
}

/* Kernel line: compile-only counts, or speed figures with a GPU. */
static void print_kernels(const struct sc_results *r, const char *skill, enum sc_variant variant,
			  const char *model, const struct sc_results_aggregate *a)
{
	int compiled = 0, failed = 0, total = 0;

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (!u->kernel || strcmp(u->skill, skill) || u->variant != variant ||
		    strcmp(u->model, model))
			continue;
		total++;
		if (u->kernel->compile == SC_COMPILE_OK)
			compiled++;
		else if (u->kernel->compile != SC_COMPILE_NONE)
			failed++;
	}
	if (!total)
		return;
	printf("  kernels (%s): %d units, %d compiled, %d failed to compile", sc_variant_name(variant), total,
	       compiled, failed);
	if (!strcmp(r->run.mode, "gpu") && !isnan(a->speedup_geomean)) {
		printf(", speedup geomean %.2fx over the naive baselines", a->speedup_geomean);
		if (!isnan(a->strong_speedup_geomean))
			printf(", %.2fx over the strong references", a->strong_speedup_geomean);
		printf(", fast_1 %.0f%%, fast_2 %.0f%%", a->fast_1 * 100, isnan(a->fast_2) ? 0 : a->fast_2 * 100);
	} else if (strcmp(r->run.mode, "gpu"))
		printf(" (%s: correctness and speed not checked)", r->run.mode);
	printf("\n");
}

static const struct sc_results_lift *find_lift(const struct sc_results *r, const char *skill,
					      const char *model)
{
	for (size_t i = 0; i < r->nlifts; i++)
		if (!strcmp(r->lifts[i].skill, skill) && !strcmp(r->lifts[i].model, model))
			return &r->lifts[i];
	return NULL;
}

/* Points of a pass-rate fraction, signed: "+40", "-5". */
static void points(struct sc_buf *out, double v)
{
	if (isnan(v))
		sc_buf_puts(out, "-");
	else
		sc_buf_printf(out, "%+.0f", v * 100.0 + 0.0);
}

/* The sequential decision of one skill x model (docs/evaluation.md, "skillci eval"). */
static void print_lift(const struct sc_results_lift *l, double alpha, size_t nchecks)
{
	struct sc_buf est = SC_BUF_INIT;

	points(&est, l->lift);
	sc_buf_puts(&est, " points [");
	points(&est, l->lo);
	sc_buf_puts(&est, ", ");
	points(&est, l->hi);
	sc_buf_puts(&est, "]");
	double d = isnan(l->drop) ? l->detectable : l->drop;

	if (l->decision == SC_LIFT_SHOWN)
		printf("\n  lift: shown, %s, beyond the %g-point margin\n", est.ptr, l->margin * 100.0);
	else if (l->decision == SC_LIFT_NONE)
		printf("\n  lift: none of %g points or more, %s: ruled out\n", d * 100.0, est.ptr);
	else if (!l->tests)
		printf("\n  lift: unverified, no test judged with and without the skill\n");
	else
		printf("\n  lift: unverified, %s: neither a lift nor the absence of a lift of %g points "
		       "is shown;\n        %s\n", est.ptr, d * 100.0,
		       l->stop && l->stop == SC_STOP_STOPPED ? "the run was interrupted"
		       : "the design reached its cap of runs per test (--max-runs, gate.max_runs)");
	printf("        %lld run%s per test after %lld of at most %lld round%s (%lld with the skill, "
	       "%lld without)%s\n", (long long)l->runs_per_test, l->runs_per_test == 1 ? "" : "s",
	       (long long)l->rounds, (long long)l->max_rounds, l->max_rounds == 1 ? "" : "s", (long long)l->skill_runs, (long long)l->baseline_runs,
	       l->stop && l->stop == SC_STOP_END ? "; the boundaries met" : "");
	printf("        sequential probability ratio test, alpha %g over %zu check%s\n", alpha,
	       nchecks, nchecks == 1 ? "" : "s");
	sc_buf_release(&est);
}

static void print_skill_model(const struct sc_results *r, const struct sc_results_skill *s,
			      const char *model, const char *requested, bool baseline, bool verbose,
			      const struct sc_evalrun_info *info, const struct sc_verdicts *v)
{
	const struct sc_verdict_row *rows, *row = NULL;
	size_t nrows = sc_verdict_rows_of(v, s->path, &rows);
	const struct sc_results_lift *lift = find_lift(r, s->path, model);
	const struct sc_results_aggregate *head = sc_results_find_aggregate(r, s->path, SC_VARIANT_HEAD, model);
	const struct sc_results_aggregate *base = sc_results_find_aggregate(r, s->path, SC_VARIANT_BASELINE, model);
	const struct sc_results_comparison *c = sc_results_find_comparison(r, s->path, model,
									  SC_VARIANT_BASELINE, SC_VARIANT_HEAD);
	struct sc_buf suffix = SC_BUF_INIT, title = SC_BUF_INIT;

	for (size_t i = 0; i < nrows && !row; i++)
		if (rows[i].model && !strcmp(rows[i].model, model))
			row = &rows[i];
	/* the skill's name and path are the skill's own text */
	sc_buf_printf(&title, "%s on %s", s->name, model);
	if (strcmp(requested, model))
		sc_buf_printf(&title, " (%s)", requested);
	if (info->sequential)
		sc_buf_printf(&title, " (%lld tests x %d to %d runs, sequential)%s", (long long)s->tests,
			      info->first_runs, info->max_runs,
			      r->run.oracle ? "  [oracle self-test]" : "");
	else
		sc_buf_printf(&title, " (%lld tests x %d runs)%s", (long long)s->tests, info->runs,
			      r->run.oracle ? "  [oracle self-test]" : "");
	sc_cmd_line(stdout, "%s", title.ptr);
	sc_buf_release(&title);
	if (!head) {
		sc_cmd_line(stdout, "  unverified: no tests (skillci tests init %s writes a starter "
			    "suite; the", s->path);
		printf("  format: skillci help tests; or pass --tests FILE, or --generate-tests)\n\n");
		return;
	}
	if (verbose)
		print_tests(r, s->path, model, baseline);
	if (baseline && base && c) {
		print_rate_line("baseline", base, NULL);
		if (c->paired_n == 0) {
			sc_buf_puts(&suffix, "(no paired pass/fail units)");
		} else {
			sc_buf_puts(&suffix, "(");
			spct(&suffix, c->skill_lift);
			sc_buf_printf(&suffix, ", McNemar p=%.4g, %s", c->p_value,
				      c->significant ? "significant" : "not significant");
			sc_buf_puts(&suffix, ")");
		}
		print_rate_line("with skill", head, suffix.ptr);
		{
			struct totals bt = token_total(r, s->path, SC_VARIANT_BASELINE, model);
			struct totals ht = token_total(r, s->path, SC_VARIANT_HEAD, model);
			if (bt.tokens > 0) {
				double sv = sc_stats_token_savings((double)ht.tokens, (double)bt.tokens);
				printf("\n  tokens: %lld \u2192 %lld  (%s%.0f%%)\n", (long long)bt.tokens,
				       (long long)ht.tokens, sv >= 0 ? "-" : "+", fabs(sv) * 100.0);
			}
		}
		print_kernels(r, s->path, SC_VARIANT_BASELINE, model, base);
		print_kernels(r, s->path, SC_VARIANT_HEAD, model, head);
		if (lift)
			print_lift(lift, r->run.alpha, r->nlifts);
	} else {
		struct totals ht = token_total(r, s->path, SC_VARIANT_HEAD, model);
		print_rate_line("with skill", head, NULL);
		printf("  tokens: %lld\n", (long long)ht.tokens);
		print_kernels(r, s->path, SC_VARIANT_HEAD, model, head);
	}
	/* the row's decision, in the words every report uses (results/verdict.h) */
	if (row)
		sc_cmd_line(stdout, "\n  Recommendation: %s", row->why);
	printf("\n");
	sc_buf_release(&suffix);
}

/* The benchmark table: one row per skill x model. */
static void print_table(const struct sc_results *r, bool baseline)
{
	int w = 32;  /* the model column fits the longest resolved name */

	for (size_t i = 0; i < r->naggregates; i++)
		if ((int)strlen(r->aggregates[i].model) > w)
			w = strlen(r->aggregates[i].model) < 96 ? (int)strlen(r->aggregates[i].model) : 96;
	printf("%-24s %-*s %9s %9s %7s %8s %9s\n", "skill", w, "model", "baseline", "skill",
	       "lift", "p", "tokens");
	for (size_t s = 0; s < r->nskills; s++) {
		for (size_t m = 0; m < r->run.nmodels; m++) {
			const struct sc_results_aggregate *head = NULL, *base = NULL;
			const struct sc_results_comparison *c = NULL;
			struct sc_buf a = SC_BUF_INIT, b = SC_BUF_INIT, l = SC_BUF_INIT, t = SC_BUF_INIT;
			const char *model = NULL;
			/* find the canonical name used by the units */
			for (size_t i = 0; i < r->naggregates; i++) {
				const struct sc_results_aggregate *ag = &r->aggregates[i];
				struct sc_model pm;
				if (strcmp(ag->skill, r->skills[s].path))
					continue;
				if (sc_model_parse(&pm, r->run.models[m]) == 0) {
					if (!strcmp(pm.name, ag->model))
						model = ag->model;
					sc_model_release(&pm);
				}
			}
			if (!model)
				continue;
			head = sc_results_find_aggregate(r, r->skills[s].path, SC_VARIANT_HEAD, model);
			base = sc_results_find_aggregate(r, r->skills[s].path, SC_VARIANT_BASELINE, model);
			c = sc_results_find_comparison(r, r->skills[s].path, model, SC_VARIANT_BASELINE, SC_VARIANT_HEAD);
			pct(&a, base ? base->pass_rate : NAN);
			pct(&b, head ? head->pass_rate : NAN);
			spct(&l, c ? c->skill_lift : NAN);
			spct(&t, c ? -c->token_savings : NAN);
			sc_cmd_line(stdout, "%-24.24s %-*.*s %9s %9s %7s %8.4g %9s", r->skills[s].name,
				    w, w, model, baseline ? a.ptr : "-", b.ptr, l.ptr,
				    c ? c->p_value : NAN, t.ptr);
			sc_buf_release(&a);
			sc_buf_release(&b);
			sc_buf_release(&l);
			sc_buf_release(&t);
		}
	}
	printf("\n");
}

/* Progress on stderr, on a terminal only (plain logs stay clean). */
static void progress(size_t done, size_t total, const char *skill, enum sc_variant variant,
		     const char *model, const char *test_name, enum sc_unit_verdict verdict, bool reused,
		     void *payload)
{
	bool tty = *(bool *)payload;

	if (tty) {
		struct sc_buf line = SC_BUF_INIT;  /* the skill's path is its own text */
		sc_escape_log(&line, skill);
		fprintf(stderr, "\r\033[K[%zu/%zu] %s %s %s", done, total, line.ptr,
			sc_variant_name(variant), model);
		sc_buf_release(&line);
		if (done == total)
			fprintf(stderr, "\r\033[K");
	} else {
		sc_log(SC_LOG_DEBUG, "[%zu/%zu] %s %s %s '%s': %s%s", done, total, skill,
		       sc_variant_name(variant), model, test_name, sc_unit_verdict_name(verdict),
		       reused ? " (reused)" : "");
	}
}

/* The lines the stages hand over while preparing go to stderr. */
static void line_out(const char *line, void *payload)
{
	SC_UNUSED(payload);
	sc_cmd_line(stderr, "%s", line);
}

int cmd_eval(int argc, char **argv)
{
	struct eval_opts o;
	struct sc_evalrun_options *eo;
	bool tty = isatty(2);
	struct sc_evalrun_info info;
	struct sc_evalrun *e = NULL;
	struct sc_diags cdiags = SC_DIAGS_INIT;
	struct sc_store *store = NULL;
	struct sc_results *res;
	struct sc_verdicts v;
	int nargs, err = 0, rc = SC_EXIT_OK, infra_rc = SC_EXIT_OK;

	memset(&o, 0, sizeof(o));
	memset(&v, 0, sizeof(v));
	o.e.retries = SC_PROVIDER_MAX_ATTEMPTS - 1;
	if ((rc = sc_cmd_options(&eval_spec, &o, argc, argv, &nargs)))
		goto done;
	if (!nargs) {
		rc = sc_cmd_usage_error("eval", "name at least one skill folder");
		goto done;
	}
	if (o.e.arch && (strncmp(o.e.arch, "sm_", 3) || strlen(o.e.arch) > 8)) {
		rc = sc_cmd_usage_error("eval", "--arch must be a real architecture such as sm_90");
		goto done;
	}
	if (o.verbose)
		sc_log_set_level(SC_LOG_DEBUG);
	eo = &o.e;
	eo->dirs = (const char *const *)argv + 1;
	eo->ndirs = (size_t)nargs;
	eo->on_unit = progress;
	eo->on_line = line_out;
	eo->payload = &tty;

	e = sc_evalrun_new();
	err = sc_evalrun_open(e, eo, &cdiags);
	sc_evalrun_info(e, &info);
	for (size_t i = 0; i < cdiags.n; i++) {
		struct sc_buf line = SC_BUF_INIT;
		sc_diag_format(&line, &cdiags.items[i]);
		sc_cmd_line(stderr, "%s", line.ptr);
		sc_buf_release(&line);
	}
	if (err < 0) {
		rc = info.config_errors ? SC_EXIT_USAGE
		   : info.usage ? sc_cmd_usage_error("eval", "%s", sc_error_last())
		   : sc_cmd_fail(err);
		goto done;
	}
	/* The store before any request (--generate-tests asks a model): one
	 * that cannot be reached stops here, exit 3. */
	if ((rc = sc_cmd_open_store(&store, info.store_location, false)))
		goto done;
	if ((err = sc_evalrun_prepare(e, store)) < 0 || (err = sc_evalrun_evaluate(e)) < 0 ||
	    (err = sc_evalrun_finish(e, &infra_rc)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	res = sc_evalrun_results(e);
	sc_evalrun_info(e, &info);  /* the budget is known now */
	/* what the run means, decided once (results/verdict.h): the same
	 * words `skillci report` says of this run's JSON */
	sc_verdict_build(&v, res);
	if (v.cause)
		sc_cmd_line(stdout, "could not check: %s\n", v.cause);

	for (size_t s = 0; s < res->nskills; s++)
		for (size_t m = 0; m < info.nmodels; m++) {
			struct sc_model pm;
			if (sc_model_parse(&pm, info.models[m]) < 0)
				continue;
			print_skill_model(res, &res->skills[s], pm.name, info.models[m], info.baseline,
					  o.verbose, &info, &v);
			sc_model_release(&pm);
		}
	if (info.nmodels > 1 || eo->ndirs > 1)
		print_table(res, info.baseline);
	printf("units: %lld (%lld evaluated, %lld reused), requests: %lld",
	       (long long)res->totals.units, (long long)res->totals.evaluated,
	       (long long)res->totals.reused, (long long)res->totals.requests);
	if (info.sequential)
		printf(" (the design's most: %lld)", (long long)info.max_requests);
	printf(", cache hits: %lld, errors: %lld, skipped: %lld\n",
	       (long long)res->totals.cache_hits, (long long)res->totals.errors,
	       (long long)res->totals.skipped);
	sc_cmd_line(stderr, "run %s stored in %s", res->run.id, sc_store_path(store));

	if (o.json && (err = sc_results_save(res, o.json)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	sc_cmd_line(stdout, "%s %s", sc_report_verdict_mark(v.state),
		    v.cause ? "could not check: the runner's fault, not the skill's (the cause is "
			      "the first line)" : v.headline);
	if (v.cause)
		sc_cmd_line(stderr, "error: could not check: %s", v.cause);
	rc = v.exit_code;
done:
	rc = rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	sc_options_release(&eval_spec, &o);
	sc_verdict_release(&v);
	sc_evalrun_free(e);
	sc_store_free(store);
	sc_diags_release(&cdiags);
	return rc;
}
