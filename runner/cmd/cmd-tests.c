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

#include <getopt.h>

#define MAX_STUDENTS 16

static void usage(FILE *f)
{
	fprintf(f,
		"usage: skillci tests init SKILL... [-m STUDENT...] [--teacher MODEL]\n"
		"                          [--format evals|yaml|json|skill_meta] [--force] [--no-run]\n"
		"                          [--grader MODEL] [--config FILE] [--cache DIR | --no-cache]\n"
		"\n"
		"init: the teacher writes a starter suite for each skill folder, in the\n"
		"repository's own format; skillci loads it back as it loads every test file,\n"
		"then runs it once on each student with the skill and without it and shows which\n"
		"tests discriminate (pass with the skill, fail without). Nothing is written\n"
		"over an existing file unless --force.\n"
		"\n"
		"  -m, --model STUDENT  run the suite on this model (repeat; default: models of\n"
		"                       skillci.yml; none: the suite is written, not run)\n"
		"  --teacher MODEL      writes the tests (default: test_gen_model, else\n"
		"                       skill_generation_model of upskill.config.yaml, else sonnet)\n"
		"  --format F           evals (evals/evals.json), yaml (tests/suite.yaml), json\n"
		"                       (tests/suite.json) or skill_meta (skill_meta.json); default:\n"
		"                       the format most skills of the repository already use,\n"
		"                       else evals\n"
		"  --force              write over the file when it exists\n"
		"  --no-run             write and check the suite, do not run it\n"
		"  --grader MODEL       grades expectations in the run (default: grader.model)\n"
		"  --config FILE        configuration (default ./skillci.yml)\n"
		"  --cache DIR          response cache (default .skillci/cache); --no-cache: none\n"
		"\n"
		"exit: 0 written (and run), 2 bad usage, a file that exists, or a suite with\n"
		"tests left out, 3 the teacher or a student could not be reached.\n"
		"\n");
	fprintf(f,
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
		"  a new skill is (against no skill); they judge the pull requests after it.\n");
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
	enum { O_TEACHER = 256, O_FORMAT, O_FORCE, O_NO_RUN, O_GRADER, O_CONFIG, O_CACHE,
	       O_NO_CACHE };
	static const struct option longopts[] = {
		{ "model", required_argument, NULL, 'm' },
		{ "teacher", required_argument, NULL, O_TEACHER },
		{ "format", required_argument, NULL, O_FORMAT },
		{ "force", no_argument, NULL, O_FORCE },
		{ "no-run", no_argument, NULL, O_NO_RUN },
		{ "grader", required_argument, NULL, O_GRADER },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "cache", required_argument, NULL, O_CACHE },
		{ "no-cache", no_argument, NULL, O_NO_CACHE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *students[MAX_STUDENTS], *config = NULL, *cache_dir = ".skillci/cache";
	struct sc_testinit_options opt;
	struct sc_client_options copt;
	struct sc_client *client = NULL;
	struct sc_config cfg;
	struct sc_model check;
	int c, err, rc = SC_EXIT_OK;

	memset(&cfg, 0, sizeof(cfg));
	sc_testinit_options_init(&opt);
	opt.students = students;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (opt.nstudents == MAX_STUDENTS)
				return sc_cmd_usage_error("tests", "at most %d students", MAX_STUDENTS);
			students[opt.nstudents++] = optarg;
			break;
		case O_TEACHER: opt.teacher = optarg; break;
		case O_FORMAT:
			if (sc_testinit_format_parse(&opt.format, optarg) < 0)
				return sc_cmd_usage_error("tests", "%s", sc_error_last());
			opt.format_set = true;
			break;
		case O_FORCE: opt.force = true; break;
		case O_NO_RUN: opt.no_run = true; break;
		case O_GRADER: opt.grader = optarg; break;
		case O_CONFIG: config = optarg; break;
		case O_CACHE: cache_dir = optarg; break;
		case O_NO_CACHE: cache_dir = NULL; break;
		case 'h': usage(stdout); return SC_EXIT_OK;
		default: return sc_cmd_option_error("tests", c, argv, longopts);
		}
	}
	if (optind >= argc)
		return sc_cmd_usage_error("tests", "name the skill folders to write tests for "
					  "(skillci tests init skills/NAME)");
	if ((rc = sc_cmd_load_providers(&cfg, config)) != SC_EXIT_OK)
		goto done;
	if (!opt.teacher)
		opt.teacher = cfg.test_gen_model ? cfg.test_gen_model : cfg.generate_model;
	if (!opt.grader)
		opt.grader = cfg.grader_model;
	if (!opt.nstudents)
		for (size_t i = 0; i < cfg.models.n && opt.nstudents < MAX_STUDENTS; i++)
			students[opt.nstudents++] = cfg.models.items[i];
	/* model names are checked before anything is asked */
	for (size_t i = 0; i < opt.nstudents + 2; i++) {
		const char *name = i < opt.nstudents ? students[i] : i == opt.nstudents ? opt.teacher
				   : opt.grader;
		if (!name)
			continue;
		if (sc_model_parse(&check, name) < 0) {
			rc = sc_cmd_usage_error("tests", "%s", sc_error_last());
			goto done;
		}
		sc_model_release(&check);
	}
	sc_client_options_init(&copt);
	copt.cache_dir = cache_dir;
	copt.cache_mode = SC_CACHE_USE;
	if ((err = sc_client_new(&client, &copt)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	opt.client = client;
	opt.progress = progress_line;
	for (int i = optind; i < argc; i++) {
		struct sc_testinit_result res;
		sc_testinit_result_init(&res);
		opt.skill_dir = argv[i];
		err = sc_testinit(&res, &opt);
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
