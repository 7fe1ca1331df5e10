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

#include <getopt.h>
#include <math.h>

#define MAX_LIST 64

static void usage(FILE *f)
{
	fprintf(f,
		"usage: skillci generate TASK [-e EXAMPLE...] [-f|--from TRACE.md|TRACE.json|SKILL_DIR]\n"
		"                        [-m TEACHER] [--test-gen-model M] [--eval-model STUDENT...]\n"
		"                        [--fixture NAME...] [-o DIR] [--force] [--no-eval] [--max-refine N]\n"
		"\n"
		"A teacher model writes a skill for TASK and tests for it, skillci evaluates it\n"
		"with and without the skill on the teacher and each student, refines it while it\n"
		"is not beneficial, and saves the best version (SKILL.md, references/,\n"
		"skill_meta.json) as upskill does.\n"
		"\n"
		"  -e, --example TEXT     an input -> output example (repeat for several)\n"
		"  -f, --from PATH        a trace of an agent's work (Markdown, or a JSON/JSONL\n"
		"                         transcript) to distil, or a skill folder to improve\n"
		"  -m, --model TEACHER    the teacher (default: skill_generation_model of\n"
		"                         upskill.config.yaml, else sonnet)\n"
		"  --test-gen-model M     model that writes the tests (default: test_gen_model,\n"
		"                         else the teacher)\n"
		"  --eval-model STUDENT   also evaluate on this model (repeat for several); the\n"
		"                         skill must be beneficial on every student\n"
		"  --fixture NAME         kernel tests: use these fixtures (repeat for several)\n"
		"  --fixtures DIR         kernel fixtures the teacher may pick from (default fixtures)\n"
		"  --compile-only         check kernels without a GPU even when one is present\n"
		"  --allow-unpinned       accept fixtures missing from or changed since fixtures.lock\n"
		"  -o, --output DIR       where to save (default SKILLS_DIR/NAME, skills_dir of the\n"
		"                         configuration, else skills); its last part is\n"
		"                         the skill's name; a folder that is there and not\n"
		"                         empty is refused unless --force\n"
		"  --force                write over an existing skill folder\n"
		"  --no-eval              write the skill only: no tests, no evaluation\n"
		"  --max-refine N         refinements while not beneficial, 0-%d (default: one\n"
		"                         fewer than max_refine_attempts of upskill.config.yaml,\n"
		"                         upskill's evaluations in all, default 2)\n"
		"  --runs N               evaluation runs per test (default 1)\n"
		"  --store LOCATION       results store: a SQLite file or postgresql://… (default\n"
		"                         $" SC_STORE_ENV ", else " SC_STORE_DEFAULT_PATH ")\n"
		"  --cache DIR            response cache (default .skillci/cache); --no-cache: none\n"
		"\n"
		"exit: 0 saved, 2 bad usage or input, 3 the teacher or a student could not be\n"
		"reached, or the teacher gave no usable answer after one retry.\n",
		SC_GEN_MAX_REFINE);
}

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
	enum { O_TESTGEN = 256, O_EVAL_MODEL, O_FIXTURE, O_FIXTURES, O_NO_EVAL, O_MAX_REFINE,
	       O_RUNS, O_STORE, O_CACHE, O_NO_CACHE, O_COMPILE_ONLY, O_ALLOW_UNPINNED, O_FORCE };
	static const struct option longopts[] = {
		{ "example", required_argument, NULL, 'e' },
		{ "from", required_argument, NULL, 'f' },
		{ "model", required_argument, NULL, 'm' },
		{ "output", required_argument, NULL, 'o' },
		{ "test-gen-model", required_argument, NULL, O_TESTGEN },
		{ "eval-model", required_argument, NULL, O_EVAL_MODEL },
		{ "fixture", required_argument, NULL, O_FIXTURE },
		{ "fixtures", required_argument, NULL, O_FIXTURES },
		{ "no-eval", no_argument, NULL, O_NO_EVAL },
		{ "max-refine", required_argument, NULL, O_MAX_REFINE },
		{ "runs", required_argument, NULL, O_RUNS },
		{ "store", required_argument, NULL, O_STORE },
		{ "cache", required_argument, NULL, O_CACHE },
		{ "no-cache", no_argument, NULL, O_NO_CACHE },
		{ "compile-only", no_argument, NULL, O_COMPILE_ONLY },
		{ "allow-unpinned", no_argument, NULL, O_ALLOW_UNPINNED },
		{ "force", no_argument, NULL, O_FORCE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *examples[MAX_LIST], *students[MAX_LIST], *fixtures[MAX_LIST];
	const char *store_path = NULL, *cache_dir = ".skillci/cache";
	struct sc_gen_options opt;
	struct sc_gen_result res;
	struct sc_client_options copt;
	struct sc_client *client = NULL;
	struct sc_store *store = NULL;
	struct sc_kernelops kops;
	bool compile_only = false, allow_unpinned = false, teacher_set = false, refine_set = false;
	struct sc_model check;
	struct sc_config cfg;
	int c, err, rc = SC_EXIT_OK;

	memset(&cfg, 0, sizeof(cfg));
	sc_gen_options_init(&opt);
	sc_kernelops_init(&kops, "fixtures", "sm_90", false, 300);
	sc_gen_result_init(&res);
	opt.teacher = "sonnet";
	opt.examples = examples;
	opt.students = students;
	opt.fixtures = fixtures;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":e:f:m:o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'e':
		case O_EVAL_MODEL:
		case O_FIXTURE: {
			const char **list = c == 'e' ? examples : c == O_FIXTURE ? fixtures : students;
			size_t *n = c == 'e' ? &opt.nexamples : c == O_FIXTURE ? &opt.nfixtures
									   : &opt.nstudents;
			if (*n == MAX_LIST)
				return sc_cmd_usage_error("generate", "at most %d of each list",
							  MAX_LIST);
			list[(*n)++] = optarg;
			break;
		}
		case 'f': opt.from = optarg; break;
		case 'm': opt.teacher = optarg; teacher_set = true; break;
		case 'o': opt.out_dir = optarg; break;
		case O_TESTGEN: opt.test_gen_model = optarg; break;
		case O_FIXTURES: opt.fixtures_dir = optarg; break;
		case O_NO_EVAL: opt.no_eval = true; break;
		case O_MAX_REFINE:
			rc = sc_cmd_int_option(&opt.max_refine, "generate", "--max-refine", optarg,
					       0, SC_GEN_MAX_REFINE);
			if (rc)
				return rc;
			refine_set = true;
			break;
		case O_RUNS:
			if ((rc = sc_cmd_int_option(&opt.runs, "generate", "--runs", optarg,
						    1, 100)))
				return rc;
			break;
		case O_STORE: store_path = optarg; break;
		case O_CACHE: cache_dir = optarg; break;
		case O_NO_CACHE: cache_dir = NULL; break;
		case O_COMPILE_ONLY: compile_only = true; break;
		case O_ALLOW_UNPINNED: allow_unpinned = true; break;
		case O_FORCE: opt.force = true; break;
		case 'h': usage(stdout); return SC_EXIT_OK;
		default: return sc_cmd_option_error("generate", c, argv, longopts);
		}
	}
	if (optind >= argc)
		return sc_cmd_usage_error("generate", "name the TASK to write a skill for");
	if (optind + 1 < argc)
		return sc_cmd_usage_error("generate", "one TASK only; quote it (\"%s %s ...\")",
					  argv[optind], argv[optind + 1]);
	opt.task = argv[optind];
	/* upskill.config.yaml's models, skillci.yml's endpoints, fastagent.config.yaml's providers */
	if ((rc = sc_cmd_load_providers(&cfg, NULL)) != SC_EXIT_OK)
		goto done;
	if (!teacher_set && cfg.generate_model)
		opt.teacher = cfg.generate_model;
	if (!opt.test_gen_model)
		opt.test_gen_model = cfg.test_gen_model;
	opt.skills_dir = cfg.skills_dir;
	if (!refine_set)  /* upskill's max_refine_attempts: evaluations in all */
		opt.max_refine = sc_gen_refinements(cfg.max_refine_attempts);
	/* model names are checked before anything is asked */
	{
		const char *names[2 + MAX_LIST];
		size_t n = 0;
		names[n++] = opt.teacher;
		if (opt.test_gen_model)
			names[n++] = opt.test_gen_model;
		for (size_t i = 0; i < opt.nstudents; i++)
			names[n++] = students[i];
		for (size_t i = 0; i < n; i++) {
			if (sc_model_parse(&check, names[i]) < 0) {
				rc = sc_cmd_usage_error("generate", "%s", sc_error_last());
				goto done;
			}
			sc_model_release(&check);
		}
	}
	if (opt.no_eval && (opt.nstudents || opt.nfixtures))
		fprintf(stderr, "warning: --no-eval: --eval-model and --fixture are not used\n");

	sc_client_options_init(&copt);
	copt.cache_dir = cache_dir;
	copt.cache_mode = SC_CACHE_USE;
	if ((err = sc_client_new(&client, &copt)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	store_path = sc_store_location(store_path, NULL);
	if (!opt.no_eval && (rc = sc_cmd_open_store(&store, store_path, false)))
		goto done;
	kops.fixtures_dir = opt.fixtures_dir ? opt.fixtures_dir : "fixtures";
	kops.compile_only = compile_only;
	if (!opt.no_eval &&
	    (err = sc_kernelops_setup_names(&kops, &opt.kernel, opt.fixtures, opt.nfixtures,
					    allow_unpinned)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	opt.client = client;
	opt.store = store;
	opt.kernel_jobs = sc_kernelops_default_jobs(&kops);
	opt.progress = progress_line;
	err = sc_generate(&res, &opt);
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
	sc_kernelops_release(&kops);
	sc_gen_result_release(&res);
	sc_store_free(store);
	sc_client_free(client);
	sc_config_release(&cfg);
	return rc;
}
