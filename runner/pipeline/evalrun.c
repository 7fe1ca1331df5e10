/*
 * `skillci eval` as a library (see evalrun.h and docs/evaluation.md): the
 * configuration and the client (open), the skill folders and their tests
 * (prepare), one evaluation of every unit (evaluate), the kernel record
 * and the error share (finish).
 */
#include "common.h"
#include "diag.h"
#include "eval/eval.h"
#include "kernelrun/kernelops.h"
#include "pipeline/budget.h"
#include "pipeline/config.h"
#include "pipeline/evalrun.h"
#include "pipeline/gate.h"
#include "pipeline/pipeline.h"
#include "pipeline/rounds.h"
#include "pipeline/sequential.h"
#include "providers/provider.h"
#include "results/compare.h"
#include "results/results.h"
#include "results/store.h"
#include "skills/prompt.h"
#include "skills/skill.h"
#include "skills/testsuite.h"
#include "teacher/generate.h"

#include <math.h>
#include <sys/stat.h>

#define MAX_MODELS 64

struct sc_evalrun {
	struct sc_evalrun_options opt;
	struct sc_config cfg;
	bool cfg_loaded;
	const char *models[MAX_MODELS];
	size_t nmodels;
	const char *test_gen;
	const char *judge;
	const char *grader;
	const char *cache_dir;
	const char *store_location;
	double max_error_share;
	bool usage, config_errors;
	struct sc_buf rubric;
	struct sc_eval_options eopt;
	struct sc_client *client;
	struct sc_store *store;          /* borrowed */
	struct sc_kernelops kenv;
	size_t nskills;
	char **dirs;
	struct sc_skill *skills;
	char (*hashes)[65];          /* each skill's content hash: every file read once */
	struct sc_test_set *sets;
	struct sc_eval_skill *es;
	const struct sc_test_set **set_ptrs;
	struct sc_results res;
	int first_runs, max_runs;        /* sequential: max_runs > 0 */
	int64_t max_requests;            /* the most the design may ask */
};

struct sc_evalrun *sc_evalrun_new(void)
{
	struct sc_evalrun *e = sc_xcalloc(1, sizeof(*e));

	sc_eval_options_init(&e->eopt);
	sc_results_init(&e->res);
	sc_buf_init(&e->rubric);
	sc_kernelops_init(&e->kenv, "fixtures", "sm_90", false, 300);
	e->max_error_share = SC_EVAL_MAX_ERROR_SHARE;
	return e;
}

static void line_out(const struct sc_evalrun *e, const char *line)
{
	if (e->opt.on_line)
		e->opt.on_line(line, e->opt.payload);
}

static void diags_out(const struct sc_evalrun *e, const struct sc_diags *diags)
{
	struct sc_buf line = SC_BUF_INIT;

	for (size_t i = 0; i < diags->n; i++) {
		sc_buf_clear(&line);
		sc_diag_format(&line, &diags->items[i]);
		line_out(e, line.ptr);
	}
	sc_buf_release(&line);
}

/* SC_EINVAL for bad usage: the command adds its help hint. */
static int usage_error(struct sc_evalrun *e, const char *what, const char *msg)
{
	char *copy = sc_xstrdup(msg);  /* msg may be the last error's own text */
	int err;

	e->usage = true;
	err = sc_error_set(SC_EINVAL, "%s%s", what, copy);
	free(copy);
	return err;
}

/*
 * The client: one for the whole run, with the check's options
 * (pipeline.h) and eval's two differences: a cache named with --cache is
 * used even under cache: off, and --concurrency N bounds every provider
 * at N as well as the total.
 */
static int open_client(struct sc_evalrun *e)
{
	const struct sc_config *cfg = &e->cfg;
	struct sc_client_options copt;

	sc_pipeline_client_options(&copt, cfg, e->cache_dir, e->opt.offline, e->opt.retries);
	if (!e->opt.offline && cfg->cache_mode == SC_CACHE_OFF)
		copt.cache_mode = SC_CACHE_USE;
	if (e->opt.concurrency) {
		copt.max_total = e->opt.concurrency;
		copt.max_per_provider = e->opt.concurrency;
		memset(copt.per_provider, 0, sizeof(copt.per_provider));
	}
	return sc_client_new(&e->client, &copt);
}

/*
 * The design: --runs N (or runs:) is a fixed one; --max-runs R,
 * --first-runs F or the config's gate.max_runs sample sequentially. The
 * sequential question is the lift over no skill, so it needs the
 * baseline: --no-baseline with the flags is bad usage, and with only the
 * config's gate.max_runs it means the fixed design of runs.
 */
static int choose_design(struct sc_evalrun *e)
{
	const struct sc_evalrun_options *opt = &e->opt;
	const struct sc_config *cfg = &e->cfg;
	bool flags = opt->max_runs || opt->first_runs;

	if (opt->runs && flags)
		return usage_error(e, "", "--runs N is a fixed design and --max-runs/--first-runs a "
				   "sequential one: give one or the other");
	if (opt->lift_margin < 0 || opt->lift_margin >= 100)
		return usage_error(e, "", "--lift-margin must be at least 0 and below 100 points");
	e->max_runs = opt->max_runs ? opt->max_runs : opt->runs ? 0 : cfg->gate.max_runs;
	e->first_runs = opt->first_runs ? opt->first_runs : cfg->gate.first_runs;
	if (e->first_runs < 1)
		e->first_runs = SC_CONFIG_FIRST_RUNS;
	if (opt->first_runs && !e->max_runs)
		return usage_error(e, "", "--first-runs F needs --max-runs R (or gate.max_runs in "
				   "skillci.yml): the runs per test sequential sampling may reach");
	if (e->max_runs && e->max_runs < e->first_runs) {
		struct sc_buf m = SC_BUF_INIT;
		int err;
		sc_buf_printf(&m, "--max-runs (%d) must be at least --first-runs (%d): the first "
			      "round runs first_runs per test", e->max_runs, e->first_runs);
		err = usage_error(e, "", m.ptr);
		sc_buf_release(&m);
		return err;
	}
	if (e->max_runs && opt->no_baseline) {
		if (flags)
			return usage_error(e, "", "--no-baseline leaves nothing to compare: sequential "
					   "sampling (--max-runs, --first-runs) decides the skill's "
					   "lift over no skill; drop --no-baseline, or give --runs N");
		e->max_runs = 0;  /* the config's design needs the baseline: fixed */
	}
	if (e->max_runs) {
		struct sc_seq_design d;
		/* more rounds than the design takes make bigger rounds */
		sc_seq_design_init(&d, 0.05, SC_CONFIG_BETA, 0.0, SC_CONFIG_REGRESSION_POINTS / 100.0,
				   e->first_runs, e->max_runs, 1);
		e->first_runs = d.first_runs;
		e->eopt.runs = e->max_runs;  /* the plan: every unit the design may run */
	}
	return 0;
}

int sc_evalrun_open(struct sc_evalrun *e, const struct sc_evalrun_options *opt,
		    struct sc_diags *diags)
{
	struct sc_config *cfg = &e->cfg;
	struct sc_eval_options *eo = &e->eopt;
	int err;

	e->opt = *opt;
	/* skillci.yml / upskill.config.yaml in the current folder, under the flags */
	err = sc_config_load(cfg, ".", opt->config, diags);
	e->cfg_loaded = true;
	sc_diags_sort(diags);
	if (err < 0)
		return err == SC_ENOTFOUND ? SC_EINVAL : err;
	if (sc_diags_count(diags, SC_SEV_ERROR)) {
		e->config_errors = true;
		return sc_config_errors_fail(diags);
	}
	/* named endpoints and fast-agent's provider settings, from the configuration loaded */
	if ((err = sc_config_apply_providers(cfg)) < 0)
		return err;
	if (opt->nmodels > MAX_MODELS)
		return usage_error(e, "", "at most 64 models");  /* MAX_MODELS */
	/* the flags' models, else the configuration's */
	for (size_t i = 0; i < opt->nmodels; i++)
		e->models[e->nmodels++] = opt->models[i];
	for (size_t i = 0; !opt->nmodels && i < cfg->models.n && i < MAX_MODELS; i++)
		e->models[e->nmodels++] = cfg->models.items[i];
	if (e->nmodels == 0)
		return usage_error(e, "", "name at least one model with -m (or 'models' in skillci.yml)");
	/* every name is checked before any request is made */
	for (size_t m = 0; m < e->nmodels; m++) {
		struct sc_model pm;
		if (sc_model_parse(&pm, e->models[m]) < 0)
			return usage_error(e, "", sc_error_last());
		sc_model_release(&pm);
	}
	e->test_gen = opt->test_gen_model;
	if (!e->test_gen)
		e->test_gen = cfg->test_gen_model ? cfg->test_gen_model : cfg->generate_model;
	if (opt->generate_tests) {
		struct sc_model pm;
		if (opt->tests_file)
			return usage_error(e, "", "--generate-tests and --tests exclude each other");
		if (sc_model_parse(&pm, e->test_gen) < 0)
			return usage_error(e, "test generation model: ", sc_error_last());
		sc_model_release(&pm);
	}
	eo->runs = opt->runs ? opt->runs : cfg->runs;
	eo->max_turns = opt->max_turns ? opt->max_turns : cfg->max_turns;
	if (opt->agent_mode_set)
		e->cfg.agent.mode = (enum sc_agent_mode)opt->agent_mode;
	eo->agent = &cfg->agent;
	eo->baseline = !opt->no_baseline;
	if ((err = choose_design(e)) < 0)
		return err;
	eo->reuse = !opt->no_reuse;
	e->store_location = sc_store_location(opt->store, cfg->store_path);
	e->cache_dir = opt->cache;
	if (!e->cache_dir && !opt->no_cache && cfg->cache_mode != SC_CACHE_OFF)
		e->cache_dir = cfg->cache_dir ? cfg->cache_dir : SC_DEFAULT_CACHE_DIR;
	if (opt->no_cache)
		e->cache_dir = NULL;
	e->kenv.fixtures_dir = opt->fixtures ? opt->fixtures
			     : cfg->fixtures_dir ? cfg->fixtures_dir : "fixtures";
	e->kenv.arch = opt->arch ? opt->arch : cfg->arch ? cfg->arch : "sm_90";
	e->kenv.compile_only = opt->compile_only;
	if (cfg->kernel_timeout_s >= 1)
		e->kenv.wall_s = (int)cfg->kernel_timeout_s;
	e->judge = opt->judge ? opt->judge : cfg->judge_model;
	e->grader = opt->grader ? opt->grader : cfg->grader_model;
	if (!opt->rubric_file && cfg->judge_rubric)
		sc_buf_sets(&e->rubric, cfg->judge_rubric);
	e->max_error_share = cfg->gate.error_share;
	eo->alpha = cfg->gate.alpha;
	if (opt->offline && !e->cache_dir)
		return usage_error(e, "", "--offline needs the response cache");
	if (opt->rubric_file &&
	    (err = sc_read_file(&e->rubric, opt->rubric_file, SC_MAX_CONFIG_BYTES)) < 0)
		return err;
	return open_client(e);
}

/*
 * The test files upskill's evals manifest (./.upskill/evals.yaml, beside
 * skillci.yml) maps to skill i, added to its set. Paths in the manifest
 * are relative to the current folder, the repository's root.
 */
static int load_evals_manifest(struct sc_evalrun *e, size_t i, struct sc_diags *diags)
{
	struct sc_buf text = SC_BUF_INIT, rel = SC_BUF_INIT;
	struct sc_strlist files = { 0 };
	const char *dir = e->dirs[i];
	int err = sc_read_file(&text, SC_TESTS_EVALS_MANIFEST, SC_MAX_CONFIG_BYTES);

	if (err == SC_ENOTFOUND) {
		sc_error_clear();
		err = 0;
		goto done;
	}
	if (err < 0)
		goto done;
	while (dir[0] == '.' && dir[1] == '/')
		dir += 2;
	sc_buf_puts(&rel, dir);
	while (rel.len > 1 && rel.ptr[rel.len - 1] == '/')
		rel.ptr[--rel.len] = '\0';
	sc_tests_evals_manifest(&files, text.ptr, text.len, SC_TESTS_EVALS_MANIFEST, rel.ptr,
				e->skills[i].name, diags);
	if (files.n)
		err = sc_tests_load_manifest(&e->sets[i], &files, NULL, ".", NULL, e->dirs[i],
					     SC_TESTS_EVALS_MANIFEST, 0, diags);
done:
	sc_buf_release(&text);
	sc_buf_release(&rel);
	sc_strlist_release(&files);
	return err;
}

/* Loads one skill and its tests; their findings go to on_line. */
static int load_skill(struct sc_evalrun *e, size_t i)
{
	struct sc_diags diags = SC_DIAGS_INIT;
	const char *tests_file = e->opt.tests_file;
	int err;

	err = sc_skill_load(&e->skills[i], e->dirs[i], &diags, 0);
	if (err == 0 && sc_skill_prompt_over(NULL, &e->skills[i]))
		err = sc_error_set(SC_EINVAL, "'%s' is not evaluated: what it puts into a prompt is "
				   "over the limit (the skill-prompt-size finding above)", e->dirs[i]);
	if (err == 0)
		err = tests_file ? sc_tests_load_file(&e->sets[i], tests_file, e->dirs[i], &diags)
				 : sc_tests_load_skill(&e->sets[i], e->dirs[i], &diags);
	if (err == 0 && !tests_file)
		err = load_evals_manifest(e, i, &diags);
	sc_diags_sort(&diags);
	diags_out(e, &diags);
	if (err == 0 && tests_file && sc_diags_count(&diags, SC_SEV_ERROR) && e->sets[i].n == 0)
		err = sc_error_set(SC_EINVAL, "no usable test in '%s'", tests_file);
	sc_diags_release(&diags);
	return err;
}

/* Loads a skill's tests again (after generate_tests wrote them). */
static int load_tests_only(struct sc_evalrun *e, size_t i)
{
	struct sc_diags diags = SC_DIAGS_INIT;
	int err = sc_tests_load_skill(&e->sets[i], e->dirs[i], &diags);

	diags_out(e, &diags);
	if (err == 0 && e->sets[i].n == 0)
		err = sc_error_set(SC_EINVAL, "the tests written for '%s' could not be loaded",
				   e->dirs[i]);
	sc_diags_release(&diags);
	return err;
}

/*
 * The folder of a skill argument: the path as given when it exists, else
 * NAME inside skills_dir when that holds a skill (upskill keeps skills in
 * skills_dir). Returns a new string.
 */
static char *skill_dir(const char *arg, const char *skills_dir)
{
	struct sc_buf b = SC_BUF_INIT, md = SC_BUF_INIT;
	struct stat st;

	if (stat(arg, &st) == 0 || !skills_dir || strchr(arg, '/'))
		return sc_xstrdup(arg);
	sc_path_join(&b, skills_dir, arg);
	sc_path_join(&md, b.ptr, "SKILL.md");
	if (stat(md.ptr, &st) != 0) {
		sc_buf_release(&b);
		sc_buf_release(&md);
		return sc_xstrdup(arg);
	}
	sc_buf_release(&md);
	return sc_buf_detach(&b, NULL);
}

static void gen_progress(const char *line, void *payload)
{
	line_out(payload, line);
}

/*
 * generate_tests for a skill without tests: the test generation model
 * writes them from the skill's description (as upskill does), they are
 * saved in its skill_meta.json and loaded again.
 */
static int write_tests(struct sc_evalrun *e, size_t i)
{
	struct sc_gen_options gopt;
	struct sc_gen_result gres;
	struct sc_buf line = SC_BUF_INIT;
	int err;

	sc_gen_options_init(&gopt);
	gopt.teacher = e->test_gen;
	gopt.test_gen_model = e->test_gen;
	gopt.client = e->client;
	gopt.fixtures_dir = e->kenv.fixtures_dir;
	gopt.progress = gen_progress;
	gopt.payload = e;
	err = sc_gen_tests_for_skill(&gres, &gopt, e->dirs[i], e->skills[i].description);
	if (err == 0) {
		sc_buf_printf(&line, "test generation: %lld request%s, %lld tokens in, %lld out",
			      (long long)gres.teacher_requests, gres.teacher_requests == 1 ? "" : "s",
			      (long long)gres.teacher_tokens_in, (long long)gres.teacher_tokens_out);
		line_out(e, line.ptr);
		sc_test_set_release(&e->sets[i]);
		err = load_tests_only(e, i);
	}
	sc_gen_result_release(&gres);
	sc_buf_release(&line);
	return err;
}

/* The budget's messages speak of the PR check's trusted file: eval's is skillci.yml. */
static int budget_error(int err)
{
	struct sc_buf m = SC_BUF_INIT;
	const char *at;

	sc_buf_puts(&m, sc_error_last());
	while ((at = strstr(m.ptr, "the base branch's skillci.yml")) != NULL) {
		size_t off = (size_t)(at - m.ptr), cut = strlen("the base branch's ");
		memmove(m.ptr + off, m.ptr + off + cut, m.len - off - cut + 1);
		m.len -= cut;
	}
	err = sc_error_set(err, "%s", m.ptr);
	sc_buf_release(&m);
	return err;
}

/*
 * The most the design can cost, before the evaluation's first request:
 * every unit of the plan (max_runs per test and side for a sequential
 * design) at its most requests (kernel tests' turns, the judge), against
 * budget.max_requests, and its tokens and dollars (budget.h).
 */
/* The evaluation's options that name what it asks and where it stores
 * (the models, judge, grader and rubric make every unit's store key). */
static void key_options(struct sc_evalrun *e)
{
	struct sc_eval_options *eo = &e->eopt;

	eo->models = e->models;
	eo->nmodels = e->nmodels;
	eo->judge_model = e->judge;
	eo->grader_model = e->grader;
	eo->judge_rubric = e->rubric.len ? e->rubric.ptr : NULL;
	eo->store = e->store;
}

/*
 * Which units of the budget's loop (model, skill, test, side, run, in
 * that order) the store answers: the keys the evaluation looks them up
 * by (sc_eval_stored_units). *out: one flag a unit (the caller frees it).
 */
static int stored_units(struct sc_evalrun *e, bool **out)
{
	const struct sc_eval_options *eo = &e->eopt;
	struct sc_eval_unit_ref *refs = NULL;
	size_t n = 0, alloc = 0, nstored;
	int err;

	for (size_t m = 0; m < e->nmodels; m++)
		for (size_t s = 0; s < e->nskills; s++)
			for (size_t t = 0; t < e->sets[s].n; t++)
				for (int v = 0; v < (eo->baseline ? 2 : 1); v++)
					for (int r = 0; r < eo->runs; r++) {
						SC_GROW(refs, alloc, n + 1);
						refs[n++] = (struct sc_eval_unit_ref){ (uint32_t)s, (uint32_t)t,
										      (uint16_t)m, v == 1, r };
					}
	*out = sc_xcalloc(n ? n : 1, sizeof(**out));
	err = sc_eval_stored_units(*out, &nstored, e->es, e->nskills, refs, n, eo);
	free(refs);
	return err;
}

static int check_budget(struct sc_evalrun *e)
{
	const struct sc_config *cfg = &e->cfg;
	const struct sc_eval_options *eo = &e->eopt;
	struct sc_budget_estimate cost;
	struct sc_buf line = SC_BUF_INIT, id = SC_BUF_INIT, msg = SC_BUF_INIT;
	int64_t requests = 0;
	size_t units = 0;
	bool *stored = NULL;  /* per unit of the loop: the store answers it */
	int err;

	sc_budget_estimate_init(&cost);
	key_options(e);
	err = stored_units(e, &stored);
	for (size_t m = 0; m < e->nmodels && err >= 0; m++) {
		struct sc_model pm;
		if ((err = sc_model_parse(&pm, e->models[m])) < 0)
			break;
		for (size_t s = 0; s < e->nskills; s++) {
			const struct sc_test_set *set = &e->sets[s];
			struct sc_skill_prompt_size sz;  /* the system prompt as sent */
			sc_skill_prompt_size(&sz, &e->skills[s]);
			for (size_t t = 0; t < set->n; t++) {
				const struct sc_test *test = &set->items[t];
				bool agent = sc_agent_runs_test(test, cfg->agent.mode);
				int per = (sc_test_is_kernel(test) || agent ? eo->max_turns : 1) +
					  (e->judge ? 1 : 0) +
					  (e->grader && sc_test_needs_grader(test) ? 1 : 0);
				/* an agent's turns grow the prompt by its tool results (budget.h) */
				int64_t growth = agent ? sc_budget_agent_growth(cfg->agent.max_calls_per_turn,
										cfg->agent.tool_output_max) : 0;
				size_t bytes;
				sc_buf_clear(&msg);
				sc_eval_unit_prompt(&msg, test, eo->kernel);  /* as sent */
				bytes = msg.len;
				for (int v = 0; v < (eo->baseline ? 2 : 1); v++)
					for (int r = 0; r < eo->runs; r++) {
						size_t sys = v ? 0 : sz.total;
						if (stored[units++]) {
							/* reused from the store: nothing sent */
							sc_budget_add_reused_unit(&cost);
							continue;
						}
						sc_buf_clear(&id);
						sc_buf_printf(&id, "%s|%s|%s|%s|%d", e->dirs[s],
							      v ? "baseline" : "head", pm.name, test->id, r);
						if (pm.kind == SC_PROVIDER_ORACLE)
							/* answered here: only a judge or grader sends */
							sc_budget_add_unsent_unit(&cost, &cfg->budget, id.ptr, pm.id,
										  pm.name, bytes + sys,
										  per - (sc_test_is_kernel(test) || agent
											 ? eo->max_turns : 1),
										  pm.max_tokens);
						else
							sc_budget_add_unit_growth(&cost, &cfg->budget, id.ptr,
										  pm.id, pm.name, bytes + sys,
										  per, pm.max_tokens, growth);
						if (cost.over_cap == 1)
							sc_budget_note_over_cap(&cost, sys, v ? 0 : sz.body,
										v ? 0 : sz.listed,
										v ? 0 : sz.listing, bytes);
						requests += per;
					}
			}
		}
		sc_model_release(&pm);
	}
	e->max_requests = requests;
	if (err < 0)
		goto done;
	sc_buf_printf(&line, "budget: %zu unit%s, at most %lld model request%s; limit %lld requests",
		      units, units == 1 ? "" : "s", (long long)requests, requests == 1 ? "" : "s",
		      (long long)cfg->max_requests);
	if (requests > cfg->max_requests) {
		err = sc_error_set(SC_EINVAL, "the design may make %lld model requests, more than the "
				   "budget's %lld (budget.max_requests); nothing was sent. Lower "
				   "--max-runs, --runs, max_turns or models, or raise the limit in "
				   "skillci.yml", (long long)requests, (long long)cfg->max_requests);
		goto done;
	}
	if ((err = sc_budget_check(&cost, &cfg->budget, &line)) < 0) {
		err = budget_error(err);
		goto done;
	}
	if (e->max_runs)
		line_out(e, line.ptr);
done:
	free(stored);
	sc_buf_release(&msg);
	sc_budget_estimate_release(&cost);
	sc_buf_release(&line);
	sc_buf_release(&id);
	return err;
}

int sc_evalrun_prepare(struct sc_evalrun *e, struct sc_store *store)
{
	size_t n = e->opt.ndirs;
	struct sc_buf line = SC_BUF_INIT;
	int err = 0;

	e->store = store;
	e->nskills = n;
	e->skills = sc_xcalloc(n ? n : 1, sizeof(*e->skills));
	e->hashes = sc_xcalloc(n ? n : 1, sizeof(*e->hashes));
	e->sets = sc_xcalloc(n ? n : 1, sizeof(*e->sets));
	e->es = sc_xcalloc(n ? n : 1, sizeof(*e->es));
	e->dirs = sc_xcalloc(n ? n : 1, sizeof(*e->dirs));
	e->set_ptrs = sc_xcalloc(n ? n : 1, sizeof(*e->set_ptrs));
	for (size_t i = 0; i < n; i++) {
		e->dirs[i] = skill_dir(e->opt.dirs[i], e->cfg.skills_dir);
		if ((err = load_skill(e, i)) < 0) {
			err = err == SC_ENOTFOUND ? SC_EINVAL : err;
			goto done;
		}
		if (e->opt.generate_tests && e->sets[i].n == 0) {
			if ((err = write_tests(e, i)) < 0)
				goto done;
		} else if (e->sets[i].n == 0) {
			sc_buf_clear(&line);
			sc_buf_printf(&line, "warning: %s: unverified: no tests (skill_meta.json, "
				      "evals/evals.json, tests/); skillci tests init %s writes a starter "
				      "suite (the format: skillci help tests), or --generate-tests has "
				      "%s write them", e->dirs[i], e->dirs[i], e->test_gen);
			line_out(e, line.ptr);
		}
		/* the content hash reads every file of the skill: one it cannot
		 * read (past a limit, not a regular file) is bad input whether
		 * or not the skill has tests, and whatever the design */
		if ((err = sc_skill_content_hash(e->hashes[i], &e->skills[i])) < 0) {
			err = err == SC_ENOTFOUND ? SC_EINVAL : err;
			goto done;
		}
		e->es[i].path = e->dirs[i];
		e->es[i].variant = SC_VARIANT_HEAD;
		e->es[i].skill = &e->skills[i];
		e->es[i].hash = e->hashes[i];
		e->es[i].tests = &e->sets[i];
		e->set_ptrs[i] = &e->sets[i];
	}
	if ((err = sc_kernelops_setup(&e->kenv, &e->eopt.kernel, e->set_ptrs, n,
				      e->opt.allow_unpinned)) < 0)
		goto done;
	err = check_budget(e);
done:
	sc_buf_release(&line);
	return err;
}

/* The lift of one check as the results record it (sc_results_lift). */
static void record_lift(struct sc_results_lift *l, const struct sc_seq_outcome *o,
			const struct sc_seq_design *d, const char *skill, const char *model,
			bool stopped)
{
	l->skill = sc_xstrdup(skill);
	l->model = sc_xstrdup(model);
	switch (o->decision) {
	case SC_SEQ_REGRESSION:   /* the baseline falls short of the skill */
		l->decision = SC_LIFT_SHOWN;
		l->stop = SC_STOP_SHOWN;
		break;
	case SC_SEQ_RULED_OUT:    /* a lift of D or more is ruled out */
		l->decision = SC_LIFT_NONE;
		l->stop = SC_STOP_RULED_OUT;
		break;
	case SC_SEQ_UNVERIFIED:
	case SC_SEQ_OPEN:
		l->decision = SC_LIFT_UNVERIFIED;
		l->stop = stopped ? SC_STOP_STOPPED : SC_STOP_MAX_RUNS;
		break;
	}
	if (o->decision != SC_SEQ_UNVERIFIED && o->decision != SC_SEQ_OPEN && o->at.end)
		l->stop = SC_STOP_END;
	/* the statistics compare baseline (as head) with the skill (as base):
	 * the lift is minus their difference */
	l->margin = d->margin;
	l->drop = d->drop;
	l->lift = o->st.tests ? -o->st.mean : NAN;
	l->lo = o->st.tests ? -o->st.hi : NAN;
	l->hi = o->st.tests ? -o->st.lo : NAN;
	l->detectable = o->st.tests ? o->st.detectable : NAN;
	l->tests = (int64_t)o->st.tests;
	l->skill_runs = (int64_t)o->base_units;
	l->baseline_runs = (int64_t)o->head_units;
	l->runs_per_test = o->runs;
	l->rounds = o->look;
	l->first_runs = d->first_runs;
	l->max_runs = d->max_runs;
	l->max_rounds = sc_seq_looks(d);
}

/*
 * Sequential sampling (docs/evaluation.md, "skillci eval"): one check
 * per skill with tests x model, the skill against no skill, both sides
 * sampled in rounds of first_runs runs per test (rounds.h). The paired
 * statistic holds the skill as "base" and the baseline as "head", so the
 * design's "regression" (head below base beyond the margin) is a lift
 * beyond lift_margin, and "ruled out" is a lift of the margin or more
 * ruled out. Bonferroni over the checks, as the gate over a PR's.
 */
static int evaluate_rounds(struct sc_evalrun *e)
{
	struct sc_eval_options *eo = &e->eopt;
	struct sc_results *res = &e->res;
	struct sc_eval_unit_ref *refs = NULL;
	struct sc_rounds_check *checks = NULL;
	size_t *check_of = NULL, nrefs = 0, nchecks = 0;
	struct sc_seq_design d;
	struct sc_rounds rd;
	struct sc_rounds_stats st;
	int64_t t0 = sc_now_ms();
	int err;

	if ((err = sc_eval_plan(res, &refs, &nrefs, e->es, e->nskills, eo)) < 0)
		goto done;
	checks = sc_xcalloc(e->nskills * e->nmodels + 1, sizeof(*checks));
	check_of = sc_xcalloc(nrefs + 1, sizeof(*check_of));
	for (size_t s = 0; s < e->nskills; s++)
		for (size_t m = 0; m < e->nmodels && e->sets[s].n; m++) {
			checks[nchecks].skill = e->es[s].path;
			checks[nchecks].model = res->run.resolved_models[m];
			checks[nchecks].base = SC_VARIANT_HEAD;      /* the skill */
			checks[nchecks].head = SC_VARIANT_BASELINE;  /* no skill */
			nchecks++;
		}
	/* the refs of skill s and model m belong to its check (every one) */
	for (size_t u = 0; u < nrefs; u++) {
		size_t c = 0;
		for (size_t s = 0; s < refs[u].skill; s++)
			c += e->sets[s].n ? e->nmodels : 0;
		check_of[u] = c + refs[u].model;
	}
	sc_seq_design_init(&d, sc_compare_alpha(e->cfg.gate.alpha), e->cfg.gate.beta,
			   e->opt.lift_margin / 100.0, e->cfg.gate.regression_points / 100.0,
			   e->first_runs, e->max_runs, nchecks);
	memset(&rd, 0, sizeof(rd));
	rd.design = &d;
	rd.checks = checks;
	rd.nchecks = nchecks;
	rd.refs = refs;
	rd.nrefs = nrefs;
	rd.check_of = check_of;
	rd.skills = e->es;
	rd.nskills = e->nskills;
	rd.eopt = eo;
	if ((err = sc_rounds_run(res, &st, &rd)) < 0)
		goto done;
	if ((err = sc_eval_close(res, &st.eval, !st.eval.stopped, t0, eo)) < 0)
		goto done;
	res->lifts = sc_xcalloc(nchecks + 1, sizeof(*res->lifts));
	for (size_t c = 0; c < nchecks; c++) {
		struct sc_seq_outcome o;
		sc_seq_replay_of(&o, res, checks[c].skill, checks[c].model, checks[c].base,
				 checks[c].head, &d);
		record_lift(&res->lifts[res->nlifts++], &o, &d, checks[c].skill, checks[c].model,
			    st.eval.stopped);
	}
done:
	free(refs);
	free(checks);
	free(check_of);
	return err;
}

int sc_evalrun_evaluate(struct sc_evalrun *e)
{
	struct sc_eval_options *eo = &e->eopt;

	key_options(e);
	eo->client = e->client;
	eo->kernel_jobs = e->opt.jobs ? e->opt.jobs : sc_kernelops_default_jobs(&e->kenv);
	eo->progress = e->opt.on_unit;
	eo->payload = e->opt.payload;
	if (!e->max_runs)
		return sc_eval_run(&e->res, e->es, e->nskills, eo);
	return evaluate_rounds(e);
}

int sc_evalrun_finish(struct sc_evalrun *e, int *infra_rc)
{
	struct sc_results *r = &e->res;

	sc_kernelops_describe(&e->kenv, &e->res.run);
	r->gate.error_share = r->totals.units ? (double)r->totals.errors / (double)r->totals.units
					      : 0.0;
	if (r->totals.errors > 0 && r->gate.error_share > e->max_error_share) {
		/* could not check: the runner's fault, recorded where every
		 * surface reads it (the gate's verdict, results/verdict.h) */
		struct sc_buf m = SC_BUF_INIT;
		sc_buf_printf(&m, "could not check: %lld of %lld units failed for infrastructure "
			      "reasons (%.0f%%, more than %.0f%%)", (long long)r->totals.errors,
			      (long long)r->totals.units, r->gate.error_share * 100,
			      e->max_error_share * 100);
		sc_gate_add_run_failure(r, "error_share", SC_CHECK_ERRORS, SC_STATUS_ERROR, m.ptr);
		sc_buf_release(&m);
	}
	/* what the eval means: its lift decisions, or could not check */
	sc_gate_set_verdict(r);
	*infra_rc = (int)r->gate.exit_code;
	return 0;
}

struct sc_results *sc_evalrun_results(struct sc_evalrun *e)
{
	return &e->res;
}

void sc_evalrun_info(const struct sc_evalrun *e, struct sc_evalrun_info *out)
{
	memset(out, 0, sizeof(*out));
	out->usage = e->usage;
	out->config_errors = e->config_errors;
	out->models = e->models;
	out->nmodels = e->nmodels;
	out->runs = e->eopt.runs;
	out->baseline = e->eopt.baseline;
	out->sequential = e->max_runs > 0;
	out->first_runs = e->first_runs;
	out->max_runs = e->max_runs;
	out->lift_margin = e->opt.lift_margin;
	out->max_requests = e->max_requests;
	out->store_location = e->store_location;
	out->max_error_share = e->max_error_share;
}

void sc_evalrun_free(struct sc_evalrun *e)
{
	if (!e)
		return;
	sc_results_release(&e->res);
	for (size_t i = 0; i < e->nskills; i++) {
		sc_skill_release(&e->skills[i]);
		sc_test_set_release(&e->sets[i]);
		free(e->dirs[i]);
	}
	free(e->skills);
	free(e->hashes);
	free(e->sets);
	free(e->es);
	free(e->dirs);
	free(e->set_ptrs);
	sc_client_free(e->client);
	sc_buf_release(&e->rubric);
	sc_kernelops_release(&e->kenv);
	if (e->cfg_loaded)
		sc_config_release(&e->cfg);
	free(e);
}
