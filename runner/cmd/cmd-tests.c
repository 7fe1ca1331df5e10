/*
 * skillci tests init SKILL...: the teacher writes a starter suite for each
 * skill in the repository's own test format, skillci loads it back and
 * runs it once with and without the skill (teacher/testinit.h). `skillci
 * tests --help` (and `skillci help tests`) prints the test format, so
 * every message that says "add tests" can point at the binary itself.
 */
#include "common.h"
#include "cmd/cmd.h"
#include "escape.h"
#include "pipeline/config.h"
#include "providers/provider.h"
#include "teacher/testinit.h"


#define MAX_STUDENTS 16

struct init_opts {
	struct sc_testinit_options t;
	const char *config, *cache;
	bool no_cache;
};

/* --format F: evals, yaml, json or skill_meta. */
static int format_option(void *opts, const char *value)
{
	struct init_opts *o = opts;
	int err;

	if ((err = sc_testinit_format_parse(&o->t.format, value)) < 0)
		return err;
	o->t.format_set = true;
	return 0;
}

static const struct sc_option init_table[] = {
	SC_OPT_LIST("model", 'm', struct init_opts, t.students, t.nstudents, MAX_STUDENTS, "STUDENT",
		    "run the suite on this model (repeat; default: models of\n"
		    "skillci.yml; none: the suite is written, not run)"),
	SC_OPT_STRING("teacher", 0, struct init_opts, t.teacher, "MODEL",
		      "writes the tests (default: test_gen_model, else\n"
		      "skill_generation_model of upskill.config.yaml, else sonnet)"),
	SC_OPT_CALLBACK("format", 0, format_option, "F",
			"evals (evals/evals.json), yaml (tests/suite.yaml), json\n"
			"(tests/suite.json) or skill_meta (skill_meta.json); default:\n"
			"the format most skills of the repository already use,\n"
			"else evals"),
	SC_OPT_FLAG("force", 0, struct init_opts, t.force, "write over the file when it exists"),
	SC_OPT_FLAG("no-run", 0, struct init_opts, t.no_run,
		    "write and check the suite, do not run it"),
	SC_OPT_STRING("grader", 0, struct init_opts, t.grader, "MODEL",
		      "grades expectations in the run (default: grader.model)"),
	SC_OPT_STRING("config", 0, struct init_opts, config, "FILE",
		      "configuration (default ./skillci.yml)"),
	SC_OPT_STRING("cache", 0, struct init_opts, cache, "DIR",
		      "response cache (default .skillci/cache)"),
	SC_OPT_FLAG("no-cache", 0, struct init_opts, no_cache, "no response cache"),
	SC_OPT_END,
};

static const char init_footer[] =
	"exit: 0 written (and run), 2 bad usage, a file that exists, or a suite with\n"
	"tests left out, 3 the teacher or a student could not be reached.\n"
	"\n"
		"TEST FORMAT\n"
		"\n"
		"skillci reads a skill's tests from, in order, every one that exists:\n"
		"  skill_meta.json           upskill: {\"metadata\": {...}, \"tests\": [CASE...]}\n"
		"  tests/*.json, *.yaml/.yml upskill suites: {\"cases\": [CASE...]} or [CASE...]\n"
		"  evals/evals.json          skill-creator: {\"skill_name\", \"evals\": [EVAL...]}\n"
		"  .upskill/evals.yaml       (repository root) evals: [{skill: DIR|NAME, suites: [FILE]}]\n"
		"                            or skills: {DIR|NAME: FILE|[FILE]}\n"
		"  skillci.yml skills:       a manifest mapping skills to test files and fixtures\n"
		"\n"
		"CASE (upskill): input (required); context.files or files: context files (paths\n"
		"in the skill folder, or a {name: content} map); expected.contains: a string or\n"
		"a list, each must occur in the answer (case-insensitive); verifiers: a list of\n"
		"  {type: contains, values: [...]}      the answer holds every value\n"
		"  {type: file_exists, path: P}         P exists in the agent's workspace\n"
		"  {type: file_contains, path: P, values: [...]}\n"
		"  {type: command, command: \"SH\", exit_code: 0, timeout: S}\n"
		"  {type: validator, validator: NAME, output_file: P, config: {...}}\n"
		"validator, output_file, validator_config: upskill's flat form of the last one;\n"
		"id: the case's own id; fixture: NAME (skillci): a CUDA kernel test.\n"
		"\n"
		"EVAL (skill-creator): id, prompt (required), expected_output (a description of\n"
		"success), files (input files, staged in the agent's workspace), expectations\n"
		"(statements about a good answer). expected.contains and verifiers work here too.\n"
		"\n"
		"NO TEST PASSES UNCHECKED\n"
		"  A test must name a check skillci can run: a contains string, a verifier,\n"
		"  expectations or expected_output, or a fixture. One that names none\n"
		"  (test-no-check) or a verifier type skillci does not know (test-verifier) is\n"
		"  an error and the test is left out; at head such an error fails validity.\n"
		"  expectations and expected_output are graded by the grader model of the\n"
		"  trusted config (grader.model), per statement with the quoted evidence;\n"
		"  without one the test is unverified (no_grader), never a pass.\n"
		"  file_exists, file_contains, command and validator check the workspace of an\n"
		"  agent run; a test run as one chat request is unverified (needs_agent).\n"
		"\n"
		"NO TESTS\n"
		"  A skill without tests is \"unverified: no tests\" on every report; the\n"
		"  trusted config's gate.allow_untested (default true) says whether that\n"
		"  fails. A pull request that adds a skill's first tests is judged on them as\n"
		"  a new skill is (against no skill); they judge the pull requests after it.\n";

static const struct sc_options init_spec = {
	"tests init", "SKILL...",
	"init: the teacher writes a starter suite for each skill folder, in the\n"
	"repository's own format; skillci loads it back as it loads every test file,\n"
	"then runs it once on each student with the skill and without it and shows which\n"
	"tests discriminate (pass with the skill, fail without). Nothing is written\n"
	"over an existing file unless --force.",
	init_footer, init_table, 0,
};

static void usage(FILE *f)
{
	struct sc_buf u = SC_BUF_INIT;

	sc_options_usage(&u, &init_spec);
	fputs(u.ptr, f);
	sc_buf_release(&u);
}

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

/* What tests init did for one skill: the findings, then the table. */
static void print_result(const struct sc_testinit_result *r, const char *dir)
{
	struct sc_buf a = SC_BUF_INIT, b = SC_BUF_INIT, line = SC_BUF_INIT;

	printf("%s: %zu tests written to %s (%s)\n", esc(&a, dir), r->written, esc(&b, r->path),
	       esc(&line, r->format_why));
	for (size_t i = 0; i < r->findings.n; i++) {
		sc_buf_clear(&line);
		sc_diag_format(&line, &r->findings.items[i]);
		printf("  %s\n", line.ptr);
	}
	if (r->loaded != r->written)
		printf("  %zu of %zu tests load; fix the findings above\n", r->loaded, r->written);
	if (!r->ran) {
		printf("  not run (no student model: -m MODEL, or models in skillci.yml)\n");
		goto done;
	}
	printf("  %-8s %-10s %-13s %s\n", "skill", "no skill", "", "test");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct sc_testinit_row *row = &r->rows[i];
		printf("  %-8s %-10s %-13s %s", row->with_skill, row->without_skill,
		       row->discriminates ? "discriminates" : "-", esc(&a, row->name));
		if (r->results.run.nmodels > 1)
			printf(" [%s]", esc(&b, row->model));
		printf("\n");
	}
	printf("  %zu of %zu tests discriminate (pass with the skill, fail without); keep those, "
	       "rewrite or drop the others\n", r->discriminating, r->loaded);
done:
	sc_buf_release(&a);
	sc_buf_release(&b);
	sc_buf_release(&line);
}

static int tests_init(int argc, char **argv)
{
	struct init_opts o;
	struct sc_testinit_options *opt = &o.t;
	const char *const *given;
	const char *students[MAX_STUDENTS];
	struct sc_client_options copt;
	struct sc_client *client = NULL;
	struct sc_config cfg;
	struct sc_model check;
	int nargs, err, rc = SC_EXIT_OK;

	memset(&cfg, 0, sizeof(cfg));
	memset(&o, 0, sizeof(o));
	sc_testinit_options_init(opt);
	rc = sc_cmd_options(&init_spec, &o, argc, argv, &nargs);
	given = opt->students;  /* the parser's list of -m, freed at the end */
	if (rc)
		goto done;
	if (!nargs) {
		rc = sc_cmd_usage_error("tests", "name the skill folders to write tests for "
					"(skillci tests init skills/NAME)");
		goto done;
	}
	/* the students: -m, else the configuration's models */
	for (size_t i = 0; i < opt->nstudents; i++)
		students[i] = given[i];
	opt->students = students;
	if ((rc = sc_cmd_load_providers(&cfg, o.config)) != SC_EXIT_OK)
		goto done;
	if (!opt->teacher)
		opt->teacher = cfg.test_gen_model ? cfg.test_gen_model : cfg.generate_model;
	if (!opt->grader)
		opt->grader = cfg.grader_model;
	if (!opt->nstudents)
		for (size_t i = 0; i < cfg.models.n && opt->nstudents < MAX_STUDENTS; i++)
			students[opt->nstudents++] = cfg.models.items[i];
	/* model names are checked before anything is asked */
	for (size_t i = 0; i < opt->nstudents + 2; i++) {
		const char *name = i < opt->nstudents ? students[i] : i == opt->nstudents ? opt->teacher
				   : opt->grader;
		if (!name)
			continue;
		if (sc_model_parse(&check, name) < 0) {
			rc = sc_cmd_usage_error("tests", "%s", sc_error_last());
			goto done;
		}
		sc_model_release(&check);
	}
	sc_client_options_init(&copt);
	copt.cache_dir = o.no_cache ? NULL : o.cache ? o.cache : ".skillci/cache";
	copt.cache_mode = SC_CACHE_USE;
	if ((err = sc_client_new(&client, &copt)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	opt->client = client;
	opt->progress = progress_line;
	for (int i = 1; i <= nargs; i++) {
		struct sc_testinit_result res;
		sc_testinit_result_init(&res);
		opt->skill_dir = argv[i];
		err = sc_testinit(&res, opt);
		if (err < 0) {
			int code = sc_cmd_fail(err);
			if (err == SC_EPARSE || err == SC_EAUTH)
				code = SC_EXIT_INFRA;
			if (rc == SC_EXIT_OK || code == SC_EXIT_INFRA)
				rc = code;
		} else {
			print_result(&res, argv[i]);
			if (res.loaded != res.written && rc == SC_EXIT_OK)
				rc = SC_EXIT_USAGE;
		}
		sc_testinit_result_release(&res);
	}
done:
	rc = rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	opt->students = given;
	sc_options_release(&init_spec, &o);
	sc_client_free(client);
	sc_config_release(&cfg);
	return rc;
}

int cmd_tests(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return SC_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return SC_EXIT_OK;
	}
	if (!strcmp(argv[1], "init"))
		return tests_init(argc - 1, argv + 1);
	return sc_cmd_usage_error("tests", "unknown subcommand '%s' (init)", argv[1]);
}
