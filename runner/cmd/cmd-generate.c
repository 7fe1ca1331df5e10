/*
 * skillci generate TASK: a teacher model writes a skill and its tests
 * (from the task, a trace or an existing skill), skillci evaluates it on
 * the teacher and each student with and without the skill, refines it
 * while it is not beneficial, and saves the best version as upskill does
 * (docs/generate.md). Progress goes to stderr; the summary (upskill's
 * bars, the token lines, "Saved to ...") to stdout.
 */
#include "common.h"
#include "cmd/cmd.h"
#include "escape.h"
#include "pipeline/config.h"
#include "teacher/generate.h"
#include "kernelrun/kernelops.h"
#include "providers/provider.h"
#include "reporters/report_fmt.h"
#include "skills/skill.h"
#include "results/store.h"

#include <math.h>

#define MAX_LIST 64

/* What the command takes: the teacher's options (teacher/generate.h), filled by the table, and its own. */
struct gen_opts {
	struct sc_gen_options g;
	const char *store, *cache;
	bool no_cache, compile_only, allow_unpinned;
	int max_refine;  /* -1: the configuration's */
};

static const struct sc_option gen_table[] = {
	SC_OPT_LIST("example", 'e', struct gen_opts, g.examples, g.nexamples, MAX_LIST, "TEXT",
		    "an input -> output example (repeat for several)"),
	SC_OPT_STRING("from", 'f', struct gen_opts, g.from, "PATH",
		      "a trace of an agent's work (Markdown, or a JSON/JSONL\n"
		      "transcript) to distil, or a skill folder to improve"),
	SC_OPT_STRING("model", 'm', struct gen_opts, g.teacher, "TEACHER",
		      "the teacher (default: skill_generation_model of\n"
		      "upskill.config.yaml, else sonnet)"),
	SC_OPT_STRING("test-gen-model", 0, struct gen_opts, g.test_gen_model, "M",
		      "model that writes the tests (default: test_gen_model,\n"
		      "else the teacher)"),
	SC_OPT_LIST("eval-model", 0, struct gen_opts, g.students, g.nstudents, MAX_LIST, "STUDENT",
		    "also evaluate on this model (repeat for several); the\n"
		    "skill must be beneficial on every student"),
	SC_OPT_LIST("fixture", 0, struct gen_opts, g.fixtures, g.nfixtures, MAX_LIST, "NAME",
		    "kernel tests: use these fixtures (repeat for several)"),
	SC_OPT_STRING("fixtures", 0, struct gen_opts, g.fixtures_dir, "DIR",
		      "kernel fixtures the teacher may pick from (default fixtures)"),
	SC_OPT_FLAG("compile-only", 0, struct gen_opts, compile_only,
		    "check kernels without a GPU even when one is present"),
	SC_OPT_FLAG("allow-unpinned", 0, struct gen_opts, allow_unpinned,
		    "accept fixtures missing from or changed since fixtures.lock"),
	SC_OPT_STRING("output", 'o', struct gen_opts, g.out_dir, "DIR",
		      "where to save (default SKILLS_DIR/NAME, skills_dir of the\n"
		      "configuration, else skills); its last part is\n"
		      "the skill's name; a folder that is there and not\n"
		      "empty is refused unless --force"),
	SC_OPT_FLAG("force", 0, struct gen_opts, g.force, "write over an existing skill folder"),
	SC_OPT_FLAG("no-eval", 0, struct gen_opts, g.no_eval,
		    "write the skill only: no tests, no evaluation"),
	SC_OPT_INT("max-refine", 0, struct gen_opts, max_refine, 0, SC_GEN_MAX_REFINE, "N",
		   "refinements while not beneficial, 0-" SC_OPT_NUM(SC_GEN_MAX_REFINE)
		   " (default: one\n"
		   "fewer than max_refine_attempts of upskill.config.yaml,\n"
		   "upskill's evaluations in all, default 2)"),
	SC_OPT_INT("runs", 0, struct gen_opts, g.runs, 1, 100, "N",
		   "evaluation runs per test (default 1)"),
	SC_OPT_STRING("store", 0, struct gen_opts, store, "LOCATION",
		      "results store: a SQLite file or postgresql://… (default\n"
		      "$" SC_STORE_ENV ", else " SC_STORE_DEFAULT_PATH ")"),
	SC_OPT_STRING("cache", 0, struct gen_opts, cache, "DIR",
		      "response cache (default .skillci/cache)"),
	SC_OPT_FLAG("no-cache", 0, struct gen_opts, no_cache, "no response cache"),
	SC_OPT_END,
};

static const struct sc_options gen_spec = {
	"generate", "TASK",
	"A teacher model writes a skill for TASK and tests for it, skillci evaluates it\n"
	"with and without the skill on the teacher and each student, refines it while it\n"
	"is not beneficial, and saves the best version (SKILL.md, references/,\n"
	"skill_meta.json) as upskill does.",
	"exit: 0 saved, 2 bad usage or input, 3 the teacher or a student could not be\n"
	"reached, or the teacher gave no usable answer after one retry.\n",
	gen_table, 0,
};

/*
 * Everything the teacher wrote (name, description, file names) and every
 * model name is someone else's text: each piece goes through the CI-log
 * escaping (escape.h) before it reaches stdout or stderr, so no control
 * byte, line break or workflow command gets through.
 */
static const char *esc(struct sc_buf *b, const char *s)
{
	sc_buf_clear(b);
	sc_escape_log(b, s ? s : "");
	return b->ptr;
}

static void progress_line(const char *line, void *payload)
{
	struct sc_buf b = SC_BUF_INIT;

	SC_UNUSED(payload);
	fprintf(stderr, "%s\n", esc(&b, line));
	sc_buf_release(&b);
}

/* upskill's lift string: "+70%", "-10%", "+0%". */
static void lift_str(struct sc_buf *out, double lift)
{
	lift = isnan(lift) ? 0 : lift;
	sc_buf_printf(out, "%s%.0f%%", lift >= 0 ? "+" : "-", fabs(lift) * 100);
}

/* The bars for one model, indented as upskill does (two spaces more with several). */
static void print_score(const struct sc_gen_score *s, const char *ind)
{
	struct sc_buf a = SC_BUF_INIT, b = SC_BUF_INIT, l = SC_BUF_INIT;

	sc_report_bar(&a, s->baseline_rate);
	sc_report_bar(&b, s->skill_rate);
	lift_str(&l, s->lift);
	printf("%sbaseline   %s  %4.0f%%\n", ind, a.ptr,
	       isnan(s->baseline_rate) ? 0 : s->baseline_rate * 100);
	printf("%swith skill %s  %4.0f%%  (%s)\n", ind, b.ptr,
	       isnan(s->skill_rate) ? 0 : s->skill_rate * 100, l.ptr);
	if (s->baseline_tokens > 0) {
		double savings = 1.0 - (double)s->skill_tokens / (double)s->baseline_tokens;
		printf("\n%stokens: %lld \u2192 %lld  (%s%.0f%%)\n", ind, (long long)s->baseline_tokens,
		       (long long)s->skill_tokens, savings >= 0 ? "-" : "+", fabs(savings) * 100);
	}
	sc_buf_release(&a);
	sc_buf_release(&b);
	sc_buf_release(&l);
}

/* upskill's summary: name, description, files with token estimates, bars. */
static void print_summary(const struct sc_gen_result *r)
{
	const struct sc_gen_draft *d = &r->skill;
	struct sc_buf e1 = SC_BUF_INIT, e2 = SC_BUF_INIT;

	printf("\n  %s\n", esc(&e1, d->name));
	printf("  %s\n\n", esc(&e1, d->description));
	printf("  %-21s ~%zu tokens\n", "SKILL.md", sc_skill_estimate_tokens(d->body, strlen(d->body)));
	for (size_t i = 0; i < d->nrefs; i++) {
		struct sc_buf n = SC_BUF_INIT;
		sc_buf_printf(&n, "references/%s", d->refs[i].name);
		printf("  %-21s ~%zu tokens\n", esc(&e1, n.ptr),
		       sc_skill_estimate_tokens(d->refs[i].content, strlen(d->refs[i].content)));
		sc_buf_release(&n);
	}
	for (size_t i = 0; i < d->nscripts; i++)
		printf("  scripts/%s  (exec only)\n", esc(&e1, d->scripts[i].name));
	if (r->evaluated) {
		const struct sc_gen_attempt *k = &r->attempts[r->kept];
		printf("\n");
		if (k->nscores == 1) {
			print_score(&k->scores[0], "  ");
		} else {
			for (size_t m = 0; m < k->nscores; m++) {
				printf("  %s%s\n", esc(&e1, k->scores[m].model),
				       m == 0 ? " (teacher)" : "");
				print_score(&k->scores[m], "    ");
				if (m + 1 < k->nscores)
					printf("\n");
			}
		}
		printf("\n  %zu test%s, version %zu of %zu kept, %s\n", r->cases.n,
		       r->cases.n == 1 ? "" : "s", r->kept + 1, r->nattempts,
		       k->beneficial ? "beneficial" : "not beneficial on every model");
	}
	printf("  teacher: %lld request%s (%lld retr%s), tokens %lld in, %lld out\n",
	       (long long)r->teacher_requests, r->teacher_requests == 1 ? "" : "s",
	       (long long)r->teacher_retries, r->teacher_retries == 1 ? "y" : "ies",
	       (long long)r->teacher_tokens_in, (long long)r->teacher_tokens_out);
	printf("\nSaved to %s\n", esc(&e2, r->dir));
	sc_buf_release(&e1);
	sc_buf_release(&e2);
}

int cmd_generate(int argc, char **argv)
{
	struct gen_opts o;
	const char *store_path;
	struct sc_gen_options *opt = &o.g;
	struct sc_gen_result res;
	struct sc_client_options copt;
	struct sc_client *client = NULL;
	struct sc_store *store = NULL;
	struct sc_kernelops kops;
	struct sc_model check;
	struct sc_config cfg;
	int nargs, err, rc = SC_EXIT_OK;

	memset(&cfg, 0, sizeof(cfg));
	memset(&o, 0, sizeof(o));
	sc_gen_options_init(opt);
	o.max_refine = -1;
	sc_kernelops_init(&kops, "fixtures", "sm_90", false, 300);
	sc_gen_result_init(&res);
	if ((rc = sc_cmd_options(&gen_spec, &o, argc, argv, &nargs)))
		goto done;
	if (!nargs) {
		rc = sc_cmd_usage_error("generate", "name the TASK to write a skill for");
		goto done;
	}
	if (nargs > 1) {
		rc = sc_cmd_usage_error("generate", "one TASK only; quote it (\"%s %s ...\")",
					argv[1], argv[2]);
		goto done;
	}
	opt->task = argv[1];
	/* upskill.config.yaml's models, skillci.yml's endpoints, fastagent.config.yaml's providers */
	if ((rc = sc_cmd_load_providers(&cfg, NULL)) != SC_EXIT_OK)
		goto done;
	if (!opt->teacher)
		opt->teacher = cfg.generate_model ? cfg.generate_model : "sonnet";
	if (!opt->test_gen_model)
		opt->test_gen_model = cfg.test_gen_model;
	opt->skills_dir = cfg.skills_dir;
	/* upskill's max_refine_attempts: evaluations in all */
	opt->max_refine = o.max_refine >= 0 ? o.max_refine
					    : sc_gen_refinements(cfg.max_refine_attempts);
	/* model names are checked before anything is asked */
	{
		const char *names[2 + MAX_LIST];
		size_t n = 0;
		names[n++] = opt->teacher;
		if (opt->test_gen_model)
			names[n++] = opt->test_gen_model;
		for (size_t i = 0; i < opt->nstudents; i++)
			names[n++] = opt->students[i];
		for (size_t i = 0; i < n; i++) {
			if (sc_model_parse(&check, names[i]) < 0) {
				rc = sc_cmd_usage_error("generate", "%s", sc_error_last());
				goto done;
			}
			sc_model_release(&check);
		}
	}
	if (opt->no_eval && (opt->nstudents || opt->nfixtures))
		fprintf(stderr, "warning: --no-eval: --eval-model and --fixture are not used\n");

	sc_client_options_init(&copt);
	copt.cache_dir = o.no_cache ? NULL : o.cache ? o.cache : ".skillci/cache";
	copt.cache_mode = SC_CACHE_USE;
	if ((err = sc_client_new(&client, &copt)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	store_path = sc_store_location(o.store, NULL);
	if (!opt->no_eval && (rc = sc_cmd_open_store(&store, store_path, false)))
		goto done;
	kops.fixtures_dir = opt->fixtures_dir ? opt->fixtures_dir : "fixtures";
	kops.compile_only = o.compile_only;
	if (!opt->no_eval &&
	    (err = sc_kernelops_setup_names(&kops, &opt->kernel, opt->fixtures, opt->nfixtures,
					    o.allow_unpinned)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	opt->client = client;
	opt->store = store;
	opt->kernel_jobs = sc_kernelops_default_jobs(&kops);
	opt->progress = progress_line;
	err = sc_generate(&res, opt);
	if (err < 0) {
		sc_cmd_fail(err);
		rc = err == SC_EPARSE || err == SC_EAUTH ? SC_EXIT_INFRA : sc_error_exit_code(err);
		goto done;
	}
	print_summary(&res);
	if (store && res.evaluated && res.results.run.id) {
		struct sc_buf b = SC_BUF_INIT;
		fprintf(stderr, "evaluations stored in %s\n", esc(&b, sc_store_path(store)));
		sc_buf_release(&b);
	}
done:
	rc = rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	sc_options_release(&gen_spec, &o);
	sc_kernelops_release(&kops);
	sc_gen_result_release(&res);
	sc_store_free(store);
	sc_client_free(client);
	sc_config_release(&cfg);
	return rc;
}
