/* Unit tests for runner/skills/testsuite.c: every accepted test format, schema
 * errors with JSON paths and lines, syntax error lines, path traversal,
 * hashing and the oracle's answers. */
#include "unit.h"
#include "diag.h"
#include "skills/testsuite.h"

#include <unistd.h>

/* The finding whose message contains text, or NULL. */
static const struct sc_diag *find_diag(const struct sc_diags *d, const char *text)
{
	for (size_t i = 0; i < d->n; i++)
		if (strstr(d->items[i].message, text))
			return &d->items[i];
	return NULL;
}

static void print_diags(const struct sc_diags *d)
{
	struct sc_buf b = SC_BUF_INIT;
	for (size_t i = 0; i < d->n; i++) {
		sc_buf_clear(&b);
		sc_diag_format(&b, &d->items[i]);
		print_message("# %s\n", b.ptr);
	}
	sc_buf_release(&b);
}

/* Asserts one error with message text at line (0: any line) and code. */
static void expect_error(const struct sc_diags *d, const char *text, size_t line, const char *code)
{
	const struct sc_diag *x = find_diag(d, text);
	if (!x)
		print_diags(d);
	assert_non_null(x);
	assert_int_equal(x->sev, SC_SEV_ERROR);
	if (line)
		assert_int_equal(x->line, line);
	if (code)
		assert_string_equal(x->code, code);
}

static const struct sc_test *find_test(const struct sc_test_set *s, const char *id)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->items[i].id, id))
			return &s->items[i];
	return NULL;
}

/* A skill_meta.json as upskill's Skill.save() writes it (indent=2). */
static const char upskill_meta[] =
	"{\n"
	"  \"metadata\": {\n"
	"    \"version\": \"1.0\",\n"
	"    \"generated_by\": \"kimi\",\n"
	"    \"generated_at\": \"2026-01-22T13:10:30.193750Z\",\n"
	"    \"source_task\": \"write a good pr\",\n"
	"    \"test_pass_rate\": 0.75,\n"
	"    \"license\": null,\n"
	"    \"compatibility\": null\n"
	"  },\n"
	"  \"tests\": [\n"
	"    {\n"
	"      \"input\": \"Write a PR description for the login fix\",\n"
	"      \"context\": null,\n"
	"      \"expected\": {\n"
	"        \"contains\": [\"## Summary\", \"Testing\"]\n"
	"      },\n"
	"      \"output_file\": null,\n"
	"      \"validator\": null,\n"
	"      \"validator_config\": null\n"
	"    },\n"
	"    {\n"
	"      \"input\": \"Extract the eval results into model-index YAML\",\n"
	"      \"context\": {\n"
	"        \"files\": {\"README.md\": \"| model | score |\\n| a | 0.5 |\\n\"}\n"
	"      },\n"
	"      \"expected\": {\"contains\": \"model-index\"},\n"
	"      \"output_file\": \"model_index.yaml\",\n"
	"      \"validator\": \"hf_eval_yaml\",\n"
	"      \"validator_config\": {\"min_metrics\": 2, \"strict\": true, \"task\": \"text\"}\n"
	"    }\n"
	"  ]\n"
	"}\n";

static void test_upskill_skill_meta(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	const struct sc_test *t;
	(void)state;

	sc_test_write(dir, "skill_meta.json", upskill_meta);
	assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
	if (d.n)
		print_diags(&d);
	assert_int_equal(d.n, 0);
	assert_int_equal(set.n, 2);
	assert_true(set.meta.present);
	assert_string_equal(set.meta.generated_by, "kimi");
	assert_string_equal(set.meta.source_task, "write a good pr");
	assert_string_equal(set.meta.generated_at, "2026-01-22T13:10:30.193750Z");
	assert_true(set.meta.has_test_pass_rate);
	assert_true(set.meta.test_pass_rate > 0.74 && set.meta.test_pass_rate < 0.76);
	assert_null(set.meta.license);

	t = find_test(&set, "skill_meta.json#tests[0]");
	assert_non_null(t);
	assert_int_equal(t->format, SC_TESTS_SKILL_META);
	assert_int_equal(t->line, 12);
	assert_string_equal(t->input, "Write a PR description for the login fix");
	assert_int_equal(t->contains.n, 2);
	assert_string_equal(t->contains.items[0], "## Summary");
	assert_string_equal(t->contains.items[1], "Testing");
	assert_null(t->validator);
	assert_false(sc_test_is_kernel(t));

	t = find_test(&set, "skill_meta.json#tests[1]");
	assert_non_null(t);
	assert_int_equal(t->contains.n, 1);  /* a single string is a list of one */
	assert_string_equal(t->contains.items[0], "model-index");
	assert_int_equal(t->nfiles, 1);
	assert_string_equal(t->files[0].name, "README.md");
	assert_true(t->files[0].inline_content);
	assert_string_equal(t->files[0].content, "| model | score |\n| a | 0.5 |\n");
	assert_string_equal(t->validator, "hf_eval_yaml");
	assert_string_equal(t->output_file, "model_index.yaml");
	assert_string_equal(t->validator_config, "{\"min_metrics\":2,\"strict\":true,\"task\":\"text\"}");
	assert_int_equal(set.sources.n, 1);

	sc_test_set_release(&set);
	sc_diags_release(&d);
	sc_rm_rf(dir);
	free(dir);
}

static void test_context_file_paths_are_read(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	sc_test_write(dir, "references/diff.txt", "--- a\n+++ b\n");
	sc_test_write(dir, "skill_meta.json",
		      "{\"tests\": [{\"input\": \"describe\", \"context\": {\"files\": "
		      "[\"references/diff.txt\"]}, \"expected\": {\"contains\": [\"fix\"]}}]}");
	assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(set.n, 1);
	assert_int_equal(set.items[0].nfiles, 1);
	assert_string_equal(set.items[0].files[0].name, "references/diff.txt");
	assert_string_equal(set.items[0].files[0].content, "--- a\n+++ b\n");
	assert_false(set.items[0].files[0].inline_content);
	assert_false(set.meta.present);
	sc_test_set_release(&set);
	sc_diags_release(&d);
	sc_rm_rf(dir);
	free(dir);
}

/* Formats are read in order: skill_meta.json, tests/ suites by name, evals. */
static void test_cases_lists_and_evals(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	const struct sc_test *t;
	(void)state;

	sc_test_write(dir, "skill_meta.json", "{\"metadata\": {\"version\": \"1.0\"}, \"tests\": []}");
	sc_test_write(dir, "tests/b-cases.json",
		      "{\"cases\": [\n"
		      "  {\"id\": \"login\", \"input\": \"Commit for login\",\n"
		      "   \"verifiers\": [{\"type\": \"contains\", \"values\": [\"feat\", \"login\"]},\n"
		      "                 {\"type\": \"contains\", \"value\": \"auth\"}]},\n"
		      "  {\"input\": \"Fix null\", \"expected\": {\"contains\": [\"fix\"]},\n"
		      "   \"verifiers\": [{\"type\": \"regex\", \"pattern\": \"^fix\"}]}\n"
		      "]}\n");
	sc_test_write(dir, "tests/a-list.json",
		      "[{\"input\": \"Write a commit for adding login\", \"expected\": {\"contains\": \"feat\"}}]");
	sc_test_write(dir, "tests/notes.json", "{\"owner\": \"someone\"}");
	sc_test_write(dir, "evals/files/in.csv", "a,b\n1,2\n");
	sc_test_write(dir, "evals/evals.json",
		      "{\n"
		      "  \"skill_name\": \"example-skill\",\n"
		      "  \"evals\": [\n"
		      "    {\n"
		      "      \"id\": 1,\n"
		      "      \"prompt\": \"Sum column b of the file\",\n"
		      "      \"expected_output\": \"The sum of column b is 2.\",\n"
		      "      \"files\": [\"evals/files/in.csv\"],\n"
		      "      \"expectations\": [\"The output states the sum\", \"The answer is 2\"]\n"
		      "    }\n"
		      "  ]\n"
		      "}\n");
	assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
	assert_int_equal(set.n, 3);  /* the case with the unknown verifier is refused */
	assert_int_equal(set.sources.n, 5);
	assert_string_equal(set.sources.items[0], "skill_meta.json");
	assert_string_equal(set.sources.items[1], "tests/a-list.json");
	assert_string_equal(set.sources.items[2], "tests/b-cases.json");
	assert_string_equal(set.sources.items[3], "tests/notes.json");
	assert_string_equal(set.sources.items[4], "evals/evals.json");

	/* order of the set follows the files */
	assert_string_equal(set.items[0].id, "tests/a-list.json#[0]");
	assert_int_equal(set.items[0].format, SC_TESTS_LIST);
	assert_string_equal(set.items[0].contains.items[0], "feat");

	t = find_test(&set, "tests/b-cases.json#login");
	assert_non_null(t);
	assert_int_equal(t->format, SC_TESTS_CASES);
	assert_int_equal(t->line, 2);
	assert_int_equal(t->contains.n, 3);
	assert_string_equal(t->contains.items[0], "feat");
	assert_string_equal(t->contains.items[1], "login");
	assert_string_equal(t->contains.items[2], "auth");

	assert_int_equal(t->nverifiers, 2);
	assert_int_equal(t->verifiers[0].type, SC_VERIFIER_CONTAINS);
	assert_string_equal(t->verifiers[1].json_path, "cases[0].verifiers[1]");
	assert_false(sc_test_needs_workspace(t));

	assert_null(find_test(&set, "tests/b-cases.json#cases[1]"));

	t = find_test(&set, "evals/evals.json#1");
	assert_non_null(t);
	assert_int_equal(t->format, SC_TESTS_EVALS);
	assert_int_equal(t->line, 4);
	assert_string_equal(t->input, "Sum column b of the file");
	assert_string_equal(t->expected_output, "The sum of column b is 2.");
	assert_int_equal(t->expectations.n, 2);
	assert_int_equal(t->contains.n, 0);
	assert_int_equal(t->nfiles, 1);
	assert_string_equal(t->files[0].content, "a,b\n1,2\n");
	assert_string_equal(set.evals_skill_name, "example-skill");
	assert_true(sc_test_needs_grader(t));
	assert_true(sc_test_needs_workspace(t));  /* its file is staged as an input */
	assert_false(sc_test_has_workspace_verifier(t));

	/* an unknown verifier type is an error, as upskill fails it closed; the
	 * non-suite file is a warning */
	assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 1);
	assert_int_equal(sc_diags_count(&d, SC_SEV_WARNING), 1);
	assert_non_null(find_diag(&d, "cases[1].verifiers[0].type 'regex' is not a verifier type"));
	assert_string_equal(find_diag(&d, "'regex'")->code, "test-verifier");
	assert_int_equal(find_diag(&d, "'regex'")->line, 6);
	assert_non_null(find_diag(&d, "not a test suite"));
	sc_test_set_release(&set);
	sc_diags_release(&d);
	sc_rm_rf(dir);
	free(dir);
}

struct schema_case {
	const char *json;   /* content of skill_meta.json */
	const char *message;
	size_t line;
	const char *code;
};

static void test_schema_errors_name_path_and_line(void **state)
{
	static const struct schema_case cases[] = {
		{ "{\"tests\": [\n{\"input\": \"a\", \"expected\": {\"contains\": [\"x\"]}},\n"
		  "{\"input\": \"b\", \"expected\": {\"contains\": 5}}]}",
		  "tests[1].expected.contains must be a list of strings, found number", 3, "test-schema" },
		{ "{\"tests\": [{\"input\": \"b\",\n \"expected\": {\"contains\": [\"ok\",\n 7]}}]}",
		  "tests[0].expected.contains must be a list of strings, found number at [1]", 3, "test-schema" },
		{ "{\"tests\": [{\"expected\": {\"contains\": [\"x\"]}}]}",
		  "tests[0].input is missing", 1, "test-schema" },
		{ "{\"tests\": [{\"input\": [\"x\"], \"expected\": {\"contains\": [\"x\"]}}]}",
		  "tests[0].input must be a string, found list", 1, "test-schema" },
		{ "{\"tests\": {\"input\": \"x\"}}", "tests must be a list of tests, found object", 1, "test-schema" },
		{ "{\"tests\": [\"just text\"]}", "tests[0] must be an object, found string", 1, "test-schema" },
		{ "{\"tests\": [{\"input\": \"x\", \"expected\": \"feat\"}]}",
		  "tests[0].expected must be an object, found string", 1, "test-schema" },
		{ "{\"tests\": [{\"input\": \"x\", \"context\": {\"files\": 3}, \"expected\": {\"contains\": [\"a\"]}}]}",
		  "tests[0].context.files must be a list of paths or a map of name to content, found number", 1, "test-schema" },
		{ "{\"tests\": [{\"input\": \"x\", \"context\": {\"files\": {\"a.txt\": 1}}, \"expected\": {\"contains\": [\"a\"]}}]}",
		  "tests[0].context.files.a.txt must be a string (the file's content), found number", 1, "test-schema" },
		{ "{\"tests\": [{\"input\": \"x\", \"expected\": {\"contains\": [\"a\"]},\n\"validator_config\": {\"deep\": {\"a\": 1}}}]}",
		  "tests[0].validator_config.deep must be a string, number or boolean, found object", 2, "test-schema" },
		{ "{\"tests\": [{\"input\": \"x\", \"expected\": {\"contains\": [\"a\"]}, \"validator\": 3}]}",
		  "tests[0].validator must be a string, found number", 1, "test-schema" },
		{ "{\"tests\": [{\"input\": \"x\", \"fixture\": \"Soft Max\"}]}",
		  "tests[0].fixture 'Soft Max' is not a fixture name", 1, "test-fixture" },
		{ "{\"tests\": [{\"input\": \"\", \"fixture\": \"gemm\"}]}",
		  "tests[0].input is empty", 1, "test-schema" },
		{ "{\"metadata\": {\"test_pass_rate\": \"high\"}}",
		  "metadata.test_pass_rate must be a number, found string", 1, "test-schema" },
		{ "{\"metadata\": {\"generated_by\": 4}}",
		  "metadata.generated_by must be a string, found number", 1, "test-schema" },
		{ "{\"metadata\": [], \"tests\": []}", "metadata must be an object, found list", 1, "test-schema" },
		{ "[1, 2]", "the file must hold a JSON object, found list", 1, "test-schema" },
		{ "{\"tests\": [{\"input\": \"x\", \"expected\": {\"contains\": [\"a\"]},\n"
		  " \"output_file\": \"../out.yaml\"}]}",
		  "tests[0].output_file '../out.yaml' is not a safe relative path", 2, "test-path" },
		{ "{\"tests\": [{\"input\": \"x\", \"verifiers\": [{\"type\": \"contains\"}]}]}",
		  "tests[0].verifiers[0] of type 'contains' has no 'values' or 'value'", 1, "test-schema" },
	};
	(void)state;

	for (size_t i = 0; i < SC_ARRAY_SIZE(cases); i++) {
		char *dir = sc_test_mkdtemp();
		struct sc_test_set set = SC_TEST_SET_INIT;
		struct sc_diags d = SC_DIAGS_INIT;
		struct sc_buf file = SC_BUF_INIT;

		print_message("# case %zu\n", i);
		sc_test_write(dir, "skill_meta.json", cases[i].json);
		assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
		expect_error(&d, cases[i].message, cases[i].line, cases[i].code);
		sc_path_join(&file, dir, "skill_meta.json");
		assert_string_equal(find_diag(&d, cases[i].message)->file, file.ptr);
		/* a test with an error is left out; the valid first test of case 0 stays */
		assert_int_equal(set.n, i == 0 ? 1 : 0);
		sc_buf_release(&file);
		sc_test_set_release(&set);
		sc_diags_release(&d);
		sc_rm_rf(dir);
		free(dir);
	}
}

static void test_syntax_error_lines(void **state)
{
	static const struct { const char *json; size_t line; const char *msg; } cases[] = {
		{ "{\n  \"tests\": [\n    {\"input\": \"a\"}\n    {\"input\": \"b\"}\n  ]\n}\n", 4, "syntax error" },
		{ "{\n  \"tests\": [\n    {\"input\": \"a\",}\n  ]\n}\n", 3, "syntax error" },
		{ "{\n  \"tests\": [\n", 3, "unexpected end of file" },
		{ "\xEF\xBB\xBF{\"tests\": []}\n}\n", 2, "syntax error" },
		{ "{\"tests\": [{\"input\": \"caf\xC3\x28\"}]}", 1, "invalid UTF-8" },
	};
	(void)state;

	for (size_t i = 0; i < SC_ARRAY_SIZE(cases); i++) {
		char *dir = sc_test_mkdtemp();
		struct sc_test_set set = SC_TEST_SET_INIT;
		struct sc_diags d = SC_DIAGS_INIT;

		print_message("# case %zu\n", i);
		sc_test_write(dir, "skill_meta.json", cases[i].json);
		assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
		assert_int_equal(d.n, 1);
		expect_error(&d, cases[i].msg, cases[i].line, "test-json");
		assert_int_equal(set.n, 0);
		sc_test_set_release(&set);
		sc_diags_release(&d);
		sc_rm_rf(dir);
		free(dir);
	}
}

/* A BOM is accepted and lines still count from the top of the file. */
static void test_bom_and_crlf_accepted(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	sc_test_write(dir, "skill_meta.json",
		      "\xEF\xBB\xBF{\r\n\"tests\": [\r\n{\"input\": \"a\", \"expected\": {\"contains\": [\"x\"]}},\r\n"
		      "{\"input\": \"b\", \"expected\": {\"contains\": [1]}}]}\r\n");
	assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
	assert_int_equal(set.n, 1);
	assert_int_equal(set.items[0].line, 3);
	expect_error(&d, "tests[1].expected.contains", 4, "test-schema");
	sc_test_set_release(&set);
	sc_diags_release(&d);
	sc_rm_rf(dir);
	free(dir);
}

static void test_path_traversal_refused(void **state)
{
	char *root = sc_test_mkdtemp();
	struct sc_buf skill = SC_BUF_INIT, link = SC_BUF_INIT, target = SC_BUF_INIT;
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	sc_test_write(root, "secret", "TOKEN=do-not-read\n");
	sc_test_write(root, "skill/SKILL.md", "---\nname: skill\n---\n");
	sc_path_join(&skill, root, "skill");
	sc_path_join(&link, skill.ptr, "notes.txt");
	sc_path_join(&target, root, "secret");
	assert_int_equal(symlink(target.ptr, link.ptr), 0);
	sc_test_write(skill.ptr, "skill_meta.json",
		      "{\"tests\": [\n"
		      " {\"input\": \"a\", \"context\": {\"files\": [\"../secret\"]}, \"expected\": {\"contains\": [\"x\"]}},\n"
		      " {\"input\": \"b\", \"context\": {\"files\": [\"notes.txt\"]}, \"expected\": {\"contains\": [\"x\"]}},\n"
		      " {\"input\": \"c\", \"context\": {\"files\": [\"/etc/passwd\"]}, \"expected\": {\"contains\": [\"x\"]}},\n"
		      " {\"input\": \"d\", \"context\": {\"files\": {\"../../x\": \"text\"}}, \"expected\": {\"contains\": [\"x\"]}},\n"
		      " {\"input\": \"e\", \"context\": {\"files\": [\"missing.txt\"]}, \"expected\": {\"contains\": [\"x\"]}}\n"
		      "]}\n");
	assert_int_equal(sc_tests_load_skill(&set, skill.ptr, &d), 0);
	assert_int_equal(set.n, 0);
	expect_error(&d, "tests[0].context.files[0] '../secret' is not a relative path inside the skill folder", 2, "test-path");
	expect_error(&d, "tests[1].context.files[0] 'notes.txt' leads outside the skill folder", 3, "test-path");
	expect_error(&d, "tests[2].context.files[0] '/etc/passwd' is not a relative path", 4, "test-path");
	expect_error(&d, "file name '../../x' is not a safe relative path", 5, "test-path");
	expect_error(&d, "tests[4].context.files[0] 'missing.txt' does not exist", 6, "test-file");
	for (size_t i = 0; i < d.n; i++)
		assert_null(strstr(d.items[i].message, "do-not-read"));
	sc_diags_release(&d);

	/* test files that are symlinks out of the skill are not read either */
	sc_test_write(root, "outside/evals.json", "{\"evals\": [{\"prompt\": \"p\", \"expected_output\": \"do-not-read\"}]}");
	sc_test_write(root, "outside/skill_meta.json", "{\"tests\": [{\"input\": \"do-not-read\", \"fixture\": \"gemm\"}]}");
	sc_path_join(&link, skill.ptr, "skill_meta.json");
	assert_int_equal(unlink(link.ptr), 0);
	sc_path_join(&target, root, "outside/skill_meta.json");
	assert_int_equal(symlink(target.ptr, link.ptr), 0);
	sc_path_join(&link, skill.ptr, "evals");
	sc_path_join(&target, root, "outside");
	assert_int_equal(symlink(target.ptr, link.ptr), 0);
	sc_test_set_release(&set);
	assert_int_equal(sc_tests_load_skill(&set, skill.ptr, &d), 0);
	assert_int_equal(set.n, 0);
	assert_int_equal(d.n, 2);
	expect_error(&d, "'skill_meta.json' leads outside the skill folder (symlink); not read", 0, "test-path");
	expect_error(&d, "'evals/evals.json' leads outside the skill folder (symlink); not read", 0, "test-path");
	sc_test_set_release(&set);
	sc_diags_release(&d);
	sc_rm_rf(root);
	free(root);
	sc_buf_release(&skill);
	sc_buf_release(&link);
	sc_buf_release(&target);
}

static void test_no_tests_is_fine_and_unknown_fields_ignored(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
	assert_int_equal(set.n, 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(set.sources.n, 0);

	sc_test_write(dir, "skill_meta.json",
		      "{\"schema\": 3, \"metadata\": {\"new_field\": [1]}, \"tests\": [{\"input\": \"x\","
		      " \"expected\": {\"contains\": [\"y\"], \"not_contains\": [\"z\"]}, \"weight\": 2}]}");
	assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(set.n, 1);
	sc_test_set_release(&set);

	/* a test with nothing to check would pass any answer: an error, and
	 * the test is left out (an empty contains string checks nothing) */
	sc_test_write(dir, "skill_meta.json", "{\"tests\": [{\"input\": \"x\", \"expected\": {\"contains\": []}},"
		      " {\"input\": \"y\", \"expected\": {\"contains\": [\"\"]}}]}");
	assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
	assert_int_equal(set.n, 0);
	assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 2);
	assert_int_equal(d.items[0].sev, SC_SEV_ERROR);
	assert_string_equal(d.items[0].code, "test-no-check");
	assert_non_null(strstr(d.items[0].message, "tests[0] names nothing skillci can check"));
	assert_non_null(strstr(d.items[0].message, "skillci help tests"));
	assert_int_equal(sc_tests_load_skill(&set, "/nonexistent/skill", &d), SC_ENOTFOUND);
	sc_test_set_release(&set);
	sc_diags_release(&d);
	sc_rm_rf(dir);
	free(dir);
}

static void test_duplicate_ids_and_limits(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_buf big = SC_BUF_INIT;
	(void)state;

	sc_test_write(dir, "tests/suite.json",
		      "{\"cases\": [{\"id\": \"a\", \"input\": \"x\", \"expected\": {\"contains\": [\"1\"]}},\n"
		      "{\"id\": \"a\", \"input\": \"y\", \"expected\": {\"contains\": [\"2\"]}},\n"
		      "{\"id\": 1.5, \"input\": \"z\", \"expected\": {\"contains\": [\"3\"]}}]}");
	sc_buf_puts(&big, "{\"cases\": [], \"pad\": \"");
	while (big.len <= SC_MAX_JSON_BYTES)
		sc_buf_puts(&big, "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx");
	sc_buf_puts(&big, "\"}");
	sc_test_write(dir, "tests/zz-big.json", big.ptr);
	assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
	assert_int_equal(set.n, 1);
	expect_error(&d, "cases[1]: id 'a' is used by cases[0] too", 2, "test-duplicate-id");
	expect_error(&d, "cases[2].id must be a non-empty string or an integer, found number", 3, "test-schema");
	expect_error(&d, "more than the limit", 0, "test-limit");
	sc_buf_release(&big);
	sc_test_set_release(&set);
	sc_diags_release(&d);
	sc_rm_rf(dir);
	free(dir);
}

static void test_load_file_detects_format(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_buf path = SC_BUF_INIT;
	(void)state;

	sc_test_write(dir, "ctx.txt", "hello");
	sc_test_write(dir, "custom.json",
		      "[\n{\"input\": \"Write a commit for adding login\", \"expected\": {\"contains\": \"feat\"}},\n"
		      " {\"input\": \"Fix the null pointer bug\", \"expected\": {\"contains\": \"fix\"},"
		      " \"context\": {\"files\": [\"ctx.txt\"]}}\n]\n");
	sc_path_join(&path, dir, "custom.json");
	assert_int_equal(sc_tests_load_file(&set, path.ptr, dir, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(set.n, 2);
	assert_string_equal(set.items[1].id, "custom.json#[1]");
	assert_string_equal(set.items[1].files[0].content, "hello");
	assert_string_equal(set.items[1].contains.items[0], "fix");
	sc_test_set_release(&set);

	sc_test_write(dir, "other.json", "{\"version\": 2}");
	sc_path_join(&path, dir, "other.json");
	assert_int_equal(sc_tests_load_file(&set, path.ptr, NULL, &d), 0);
	expect_error(&d, "not a test file", 1, "test-schema");
	sc_test_set_release(&set);

	sc_path_join(&path, dir, "none.json");
	assert_int_equal(sc_tests_load_file(&set, path.ptr, dir, &d), SC_ENOTFOUND);
	assert_non_null(strstr(sc_error_last(), "none.json"));
	sc_test_set_release(&set);
	sc_diags_release(&d);
	sc_buf_release(&path);
	sc_rm_rf(dir);
	free(dir);
}

/* An "id" number too large for an integer is a type error (found by
 * tests/fuzz/fuzz_tests: the cast to long long was undefined behaviour). */
static void test_huge_numeric_id(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_buf path = SC_BUF_INIT;
	(void)state;

	sc_test_write(dir, "evals.json",
		      "{\"skill_name\": \"x\", \"evals\": [\n"
		      "{\"id\": 4444444444444444444444444444444444444444444444444444444444444444444444444444444441,"
		      " \"prompt\": \"p\", \"expected_output\": \"o\"},\n"
		      "{\"id\": 7, \"prompt\": \"q\", \"expected_output\": \"o\"}]}\n");
	sc_path_join(&path, dir, "evals.json");
	assert_int_equal(sc_tests_load_file(&set, path.ptr, dir, &d), 0);
	expect_error(&d, "a non-empty string or an integer", 2, NULL);
	assert_int_equal(set.n, 1);
	assert_non_null(strstr(set.items[0].id, "7"));
	sc_test_set_release(&set);
	sc_diags_release(&d);
	sc_buf_release(&path);
	sc_rm_rf(dir);
	free(dir);
}

static void load_one(struct sc_test_set *set, const char *dir, const char *json)
{
	struct sc_diags d = SC_DIAGS_INIT;
	sc_test_set_release(set);
	sc_test_write(dir, "skill_meta.json", json);
	assert_int_equal(sc_tests_load_skill(set, dir, &d), 0);
	if (d.n)
		print_diags(&d);
	assert_int_equal(d.n, 0);
	assert_int_equal(set->n, 1);
	sc_diags_release(&d);
}

static void test_hash_tracks_content_not_position(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_test_set set = SC_TEST_SET_INIT;
	char h1[65], h2[65], h3[65], h4[65], h5[65];
	(void)state;

	sc_test_write(dir, "ctx.txt", "v1");
	load_one(&set, dir, "{\"tests\": [{\"input\": \"x\", \"context\": {\"files\": [\"ctx.txt\"]}, \"expected\": {\"contains\": [\"a\", \"b\"]}}]}");
	sc_test_hash(h1, &set.items[0]);
	assert_int_equal(strlen(h1), 64);
	load_one(&set, dir, "{\n\n  \"metadata\": {},\n\"tests\": [\n{\"expected\": {\"contains\": [\"a\", \"b\"]},\n \"input\": \"x\", \"context\": {\"files\": [\"ctx.txt\"]}}]}");
	sc_test_hash(h2, &set.items[0]);
	assert_string_equal(h1, h2);
	load_one(&set, dir, "{\"tests\": [{\"input\": \"x\", \"context\": {\"files\": [\"ctx.txt\"]}, \"expected\": {\"contains\": [\"ab\"]}}]}");
	sc_test_hash(h3, &set.items[0]);
	assert_string_not_equal(h1, h3);
	sc_test_write(dir, "ctx.txt", "v2");
	load_one(&set, dir, "{\"tests\": [{\"input\": \"x\", \"context\": {\"files\": [\"ctx.txt\"]}, \"expected\": {\"contains\": [\"a\", \"b\"]}}]}");
	sc_test_hash(h4, &set.items[0]);
	assert_string_not_equal(h1, h4);
	load_one(&set, dir, "{\"tests\": [{\"input\": \"x\", \"context\": {\"files\": [\"ctx.txt\"]}, \"expected\": {\"contains\": [\"a\", \"b\"]}, \"fixture\": \"gemm\"}]}");
	sc_test_hash(h5, &set.items[0]);
	assert_string_not_equal(h4, h5);
	sc_test_set_release(&set);
	sc_rm_rf(dir);
	free(dir);
}

static bool contains_ci(const char *hay, const char *needle)
{
	size_t n = strlen(needle);
	for (; *hay; hay++)
		if (!strncasecmp(hay, needle, n))
			return true;
	return n == 0;
}

static void test_oracle_answers(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_buf ans = SC_BUF_INIT;
	(void)state;

	load_one(&set, dir, "{\"tests\": [{\"input\": \"x\", \"expected\": {\"contains\": [\"feat(auth)\", \"BREAKING CHANGE\", \"login\"]}}]}");
	assert_int_equal(sc_tests_oracle_answer(&set.items[0], &ans), 0);
	for (size_t i = 0; i < set.items[0].contains.n; i++)
		assert_true(contains_ci(ans.ptr, set.items[0].contains.items[i]));
	sc_buf_clear(&ans);

	sc_test_write(dir, "evals/evals.json", "{\"evals\": [{\"id\": 3, \"prompt\": \"p\", \"expected_output\": \"Exactly this.\"}]}");
	sc_test_set_release(&set);
	{
		struct sc_diags d = SC_DIAGS_INIT;
		assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
		assert_int_equal(set.n, 2);
		assert_int_equal(sc_tests_oracle_answer(find_test(&set, "evals/evals.json#3"), &ans), 0);
		assert_string_equal(ans.ptr, "Exactly this.");
		sc_diags_release(&d);
	}
	sc_buf_clear(&ans);

	{
		struct sc_buf evals = SC_BUF_INIT;
		sc_path_join(&evals, dir, "evals");
		assert_int_equal(sc_rm_rf(evals.ptr), 0);
		sc_buf_release(&evals);
	}
	load_one(&set, dir, "{\"tests\": [{\"input\": \"write softmax\", \"fixture\": \"softmax\"}]}");
	assert_true(sc_test_is_kernel(&set.items[0]));
	assert_int_equal(sc_tests_oracle_answer(&set.items[0], &ans), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "softmax"));
	assert_int_equal(ans.len, 0);
	sc_test_set_release(&set);
	sc_buf_release(&ans);
	sc_rm_rf(dir);
	free(dir);
}

/* The example skills shipped in skills/ load without findings. */
static void test_example_skills(void **state)
{
	static const char *const fixtures[] = {
		"softmax", "layernorm", "rmsnorm", "bias-gelu", "reduce-sum", "transpose", "gemm", "histogram",
		"softmax-bf16", "rmsnorm-bf16", "rope-bf16", "geglu-bf16", "adaln-bf16", "gemm-bf16", "attention-bf16",
	};
	/* the kernels of today's models: the example skill's tests name each one */
	static const char *const covered[] = {
		"softmax-bf16", "rmsnorm-bf16", "rope-bf16", "geglu-bf16", "adaln-bf16", "gemm-bf16", "attention-bf16",
	};
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_buf ans = SC_BUF_INIT;
	(void)state;

	assert_int_equal(sc_tests_load_skill(&set, "skills/cuda-kernels", &d), 0);
	if (d.n)
		print_diags(&d);
	assert_int_equal(d.n, 0);
	assert_true(set.n >= 4);
	for (size_t i = 0; i < set.n; i++) {
		bool known = false;
		struct sc_buf spec = SC_BUF_INIT;
		assert_true(sc_test_is_kernel(&set.items[i]));
		for (size_t k = 0; k < SC_ARRAY_SIZE(fixtures); k++)
			known |= !strcmp(set.items[i].fixture, fixtures[k]);
		assert_true(known);
		sc_buf_printf(&spec, "fixtures/%s/spec.json", set.items[i].fixture);
		assert_int_equal(access(spec.ptr, R_OK), 0);  /* names a fixture that exists */
		sc_buf_release(&spec);
	}
	for (size_t k = 0; k < SC_ARRAY_SIZE(covered); k++) {
		bool found = false;
		for (size_t i = 0; i < set.n; i++)
			found |= !strcmp(set.items[i].fixture, covered[k]);
		if (!found)
			fail_msg("skills/cuda-kernels has no test for fixture '%s'", covered[k]);
	}
	sc_test_set_release(&set);

	assert_int_equal(sc_tests_load_skill(&set, "skills/commit-messages", &d), 0);
	assert_int_equal(d.n, 0);
	assert_true(set.n >= 4);
	for (size_t i = 0; i < set.n; i++) {
		assert_false(sc_test_is_kernel(&set.items[i]));
		assert_true(set.items[i].contains.n > 0);
		sc_buf_clear(&ans);
		assert_int_equal(sc_tests_oracle_answer(&set.items[i], &ans), 0);
		for (size_t k = 0; k < set.items[i].contains.n; k++)
			assert_true(contains_ci(ans.ptr, set.items[i].contains.items[k]));
	}
	sc_buf_release(&ans);
	sc_test_set_release(&set);
	sc_diags_release(&d);
}

static void test_manifest_tests_and_fixtures(void **state)
{
	char *root = sc_test_mkdtemp();
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_strlist files = { 0 }, fixtures = { 0 };
	struct sc_buf skill = SC_BUF_INIT;
	const struct sc_test *t;
	(void)state;

	sc_test_write(root, "skills/k/skill_meta.json",
		      "{\"tests\": [{\"input\": \"write gemm\", \"fixture\": \"gemm\"}]}");
	sc_test_write(root, "extra/k-cases.json",
		      "{\"cases\": [{\"input\": \"explain tiling\", \"expected\": {\"contains\": [\"shared\"]}}]}");
	sc_test_write(root, "fixtures/softmax/prompt.md", "Write `softmax`.\n");
	sc_path_join(&skill, root, "skills/k");
	sc_strlist_add(&files, "extra/k-cases.json");
	sc_strlist_add(&files, "extra/missing.json");
	sc_strlist_add(&files, "../outside.json");
	sc_strlist_add(&fixtures, "softmax");
	sc_strlist_add(&fixtures, "gemm");       /* already tested by the skill: not added again */
	sc_strlist_add(&fixtures, "histogram");  /* no prompt */
	assert_int_equal(sc_tests_load_skill(&set, skill.ptr, &d), 0);
	assert_int_equal(sc_tests_load_manifest(&set, &files, &fixtures, root, "fixtures", skill.ptr,
						"skillci.yml", 12, &d), 0);
	assert_int_equal(set.n, 3);
	t = find_test(&set, "skillci.yml#fixture:softmax");
	assert_non_null(t);
	assert_true(sc_test_is_kernel(t));
	assert_string_equal(t->input, "Write `softmax`.\n");
	assert_int_equal(set.items[1].contains.n, 1);
	assert_string_equal(set.items[1].contains.items[0], "shared");
	expect_error(&d, "manifest test file 'extra/missing.json' does not exist", 12, "test-file");
	expect_error(&d, "manifest test file '../outside.json' is not a relative path", 12, "test-path");
	expect_error(&d, "fixture 'histogram' has no usable prompt", 12, "test-fixture");
	assert_int_equal(d.n, 3);
	sc_strlist_release(&files);
	sc_strlist_release(&fixtures);
	sc_buf_release(&skill);
	sc_test_set_release(&set);
	sc_diags_release(&d);
	sc_rm_rf(root);
	free(root);
}

/* upskill's verifier set, in a YAML suite as its authors write one: every
 * type read into the model with its fields, aliases and lines. */
static const char yaml_suite[] =
	"# upskill suite\n"
	"cases:\n"
	"  - id: writes-report\n"
	"    input: Write the report to out/report.md\n"
	"    verifiers:\n"
	"      - type: file_exists\n"
	"        path: out/report.md\n"
	"      - type: file_contains\n"
	"        path: out/report.md\n"
	"        values: [\"## Summary\", total]\n"
	"      - type: command\n"
	"        command: python3 check.py out/report.md\n"
	"        exit_code: 3\n"
	"        timeout: 20\n"
	"      - type: validator\n"
	"        validator: hf_eval_yaml\n"
	"        output_file: out/eval.yaml\n"
	"        config: {min_rows: 2, strict: yes}\n"
	"      - type: contains\n"
	"        value: 'done'\n"
	"  - id: 7\n"
	"    input: |\n"
	"      Answer yes\n"
	"      on two lines\n"
	"    expected:\n"
	"      contains: \"yes\"\n";

static void test_verifier_model_yaml(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	const struct sc_test *t;
	const struct sc_test_verifier *v;
	(void)state;

	sc_test_write(dir, "tests/suite.yaml", yaml_suite);
	assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
	if (d.n)
		print_diags(&d);
	assert_int_equal(d.n, 0);
	assert_int_equal(set.n, 2);
	assert_string_equal(set.sources.items[0], "tests/suite.yaml");

	t = find_test(&set, "tests/suite.yaml#writes-report");
	assert_non_null(t);
	assert_int_equal(t->format, SC_TESTS_CASES);
	assert_int_equal(t->line, 3);
	assert_int_equal(t->nverifiers, 5);
	v = &t->verifiers[0];
	assert_int_equal(v->type, SC_VERIFIER_FILE_EXISTS);
	assert_string_equal(v->path, "out/report.md");
	assert_int_equal(v->line, 6);
	assert_string_equal(v->json_path, "cases[0].verifiers[0]");
	v = &t->verifiers[1];
	assert_int_equal(v->type, SC_VERIFIER_FILE_CONTAINS);
	assert_int_equal(v->values.n, 2);
	assert_string_equal(v->values.items[0], "## Summary");
	assert_string_equal(v->values.items[1], "total");
	v = &t->verifiers[2];
	assert_int_equal(v->type, SC_VERIFIER_COMMAND);
	assert_string_equal(v->command, "python3 check.py out/report.md");
	assert_int_equal(v->exit_code, 3);
	assert_true(v->timeout_s == 20);
	v = &t->verifiers[3];
	assert_int_equal(v->type, SC_VERIFIER_VALIDATOR);
	assert_string_equal(v->validator, "hf_eval_yaml");
	assert_string_equal(v->path, "out/eval.yaml");
	assert_string_equal(v->config, "{\"min_rows\":2,\"strict\":true}");
	assert_false(v->implied);
	v = &t->verifiers[4];
	assert_int_equal(v->type, SC_VERIFIER_CONTAINS);
	assert_int_equal(t->contains.n, 1);  /* mirrored for the answer's check */
	assert_string_equal(t->contains.items[0], "done");
	assert_true(sc_test_needs_workspace(t));
	assert_true(sc_test_has_workspace_verifier(t));
	assert_false(sc_test_needs_grader(t));
	assert_string_equal(sc_verifier_type_name(SC_VERIFIER_FILE_CONTAINS), "file_contains");

	/* an integer id, a block scalar, a quoted "yes" that stays a string */
	t = find_test(&set, "tests/suite.yaml#7");
	assert_non_null(t);
	assert_string_equal(t->input, "Answer yes\non two lines\n");
	assert_string_equal(t->contains.items[0], "yes");
	assert_false(sc_test_needs_workspace(t));

	/* --tests FILE.yaml reads the same; so does .yml */
	sc_test_set_release(&set);
	{
		struct sc_buf path = SC_BUF_INIT;
		sc_path_join(&path, dir, "tests/suite.yaml");
		assert_int_equal(sc_tests_load_file(&set, path.ptr, dir, &d), 0);
		assert_int_equal(d.n, 0);
		assert_int_equal(set.n, 2);
		sc_buf_release(&path);
	}
	sc_test_set_release(&set);
	sc_diags_release(&d);
	sc_rm_rf(dir);
	free(dir);
}

/* Every way a verifier or a YAML suite can be wrong gets its file, line
 * and path, and the test is left out. */
static void test_verifier_errors(void **state)
{
	static const struct {
		const char *yaml, *message;
		size_t line;
		const char *code;
	} cases[] = {
		{ "cases:\n  - input: x\n    verifiers:\n      - type: regex\n        pattern: a\n",
		  "cases[0].verifiers[0].type 'regex' is not a verifier type", 4, "test-verifier" },
		{ "cases:\n  - input: x\n    verifiers:\n      - type: file_exists\n",
		  "cases[0].verifiers[0] of type 'file_exists' has no 'path'", 4, "test-schema" },
		{ "cases:\n  - input: x\n    verifiers:\n      - {type: file_exists, path: ../etc/passwd}\n",
		  "cases[0].verifiers[0].path '../etc/passwd' is not a relative path", 4, "test-path" },
		{ "cases:\n  - input: x\n    verifiers:\n      - {type: file_contains, path: a.txt}\n",
		  "of type 'file_contains' has no 'values'", 4, "test-schema" },
		{ "cases:\n  - input: x\n    verifiers:\n      - {type: command}\n",
		  "of type 'command' has no 'command'", 4, "test-schema" },
		{ "cases:\n  - input: x\n    verifiers:\n      - {type: command, command: 'true', exit_code: 300}\n",
		  "exit_code must be a whole number from 0 to 255", 4, "test-schema" },
		{ "cases:\n  - input: x\n    verifiers:\n      - {type: command, command: 'true', cmd: 'false'}\n",
		  "has both 'command' and 'cmd'", 4, "test-schema" },
		{ "cases:\n  - input: x\n    verifiers:\n      - {type: validator, output_file: a}\n",
		  "of type 'validator' has no 'validator'", 4, "test-schema" },
		{ "cases:\n  - input: x\n    verifiers:\n      - {type: validator, validator: v, config: {a: [1]}}\n",
		  "cases[0].verifiers[0].config.a must be a string, number or boolean", 4, "test-schema" },
		{ "cases:\n  - input: x\n    verifiers:\n      - {type: contains, values: []}\n",
		  "cases[0].verifiers[0].values is an empty list", 4, "test-schema" },
		{ "cases:\n  - input: x\n    verifiers: {type: contains}\n",
		  "cases[0].verifiers must be a list of verifiers", 3, "test-schema" },
		{ "cases:\n  - input: x\n    input: y\n    expected: {contains: a}\n",
		  "key 'input' appears twice in one map", 3, "test-yaml" },
		{ "cases:\n  - input: [x\n", "invalid YAML", 3, "test-yaml" },
		{ "cases:\n  - input: x\n", "cases[0] names nothing skillci can check", 2, "test-no-check" },
	};
	(void)state;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *dir = sc_test_mkdtemp();
		struct sc_test_set set = SC_TEST_SET_INIT;
		struct sc_diags d = SC_DIAGS_INIT;

		print_message("# case %zu\n", i);
		sc_test_write(dir, "tests/s.yml", cases[i].yaml);
		assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
		expect_error(&d, cases[i].message, cases[i].line, cases[i].code);
		assert_non_null(strstr(d.items[0].file, "tests/s.yml"));
		assert_int_equal(set.n, 0);
		sc_test_set_release(&set);
		sc_diags_release(&d);
		sc_rm_rf(dir);
		free(dir);
	}
}

/* upskill's flat validator fields become one implied verifier; copies and
 * hashes carry verifiers, and a test without workspace verifiers keeps
 * the hash it had. */
static void test_implied_validator_copy_and_hash(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_test_set set = SC_TEST_SET_INIT, copy = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	char h1[65], h2[65];
	const struct sc_test *t;
	(void)state;

	sc_test_write(dir, "skill_meta.json",
		      "{\"tests\": [{\"input\": \"make it\", \"expected\": {\"contains\": []},\n"
		      "  \"validator\": \"hf_eval_yaml\", \"output_file\": \"out.yaml\",\n"
		      "  \"validator_config\": {\"rows\": 2}}]}");
	sc_test_write(dir, "tests/w.json",
		      "{\"cases\": [{\"input\": \"w\", \"verifiers\": [{\"type\": \"command\", \"command\": \"test -s a\"}]},\n"
		      "            {\"input\": \"w\", \"verifiers\": [{\"type\": \"command\", \"command\": \"test -s b\"}]}]}");
	assert_int_equal(sc_tests_load_skill(&set, dir, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(set.n, 3);
	t = &set.items[0];
	assert_int_equal(t->nverifiers, 1);
	assert_true(t->verifiers[0].implied);
	assert_int_equal(t->verifiers[0].type, SC_VERIFIER_VALIDATOR);
	assert_string_equal(t->verifiers[0].validator, "hf_eval_yaml");
	assert_string_equal(t->verifiers[0].path, "out.yaml");
	assert_string_equal(t->verifiers[0].config, "{\"rows\":2}");
	assert_true(sc_test_needs_workspace(t));

	sc_test_set_add_copy(&copy, &set.items[1]);
	assert_int_equal(copy.items[0].nverifiers, 1);
	assert_string_equal(copy.items[0].verifiers[0].command, "test -s a");
	sc_test_hash(h1, &set.items[1]);
	sc_test_hash(h2, &copy.items[0]);
	assert_string_equal(h1, h2);
	sc_test_hash(h2, &set.items[2]);  /* the command differs: so does the hash */
	assert_string_not_equal(h1, h2);
	sc_test_set_release(&copy);
	sc_test_set_release(&set);
	sc_diags_release(&d);
	sc_rm_rf(dir);
	free(dir);
}

/* upskill's evals manifest: both forms map files to a skill by folder or
 * name; bad entries are findings with lines, unsafe paths refused. */
static void test_evals_manifest(void **state)
{
	static const char text[] =
		"evals:\n"
		"  - skill: skills/pdf/\n"
		"    suites: [evals/pdf.yaml, evals/pdf2.json]\n"
		"  - skill: docx\n"
		"    suite: evals/docx.yaml\n"
		"  - skill: skills/pdf\n"
		"    tests: ../outside.yaml\n"
		"  - suites: [x.yaml]\n"
		"skills:\n"
		"  pdf: [evals/pdf.yaml, evals/more.yaml]\n"
		"  skills/xlsx: evals/xlsx.yaml\n";
	struct sc_strlist out = SC_STRLIST_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	assert_int_equal(sc_tests_evals_manifest(&out, text, strlen(text), ".upskill/evals.yaml",
						 "skills/pdf", "pdf", &d), 0);
	assert_int_equal(out.n, 3);
	assert_string_equal(out.items[0], "evals/pdf.yaml");
	assert_string_equal(out.items[1], "evals/pdf2.json");
	assert_string_equal(out.items[2], "evals/more.yaml");
	expect_error(&d, "tests '../outside.yaml' is not a relative path inside the repository", 7,
		     "test-path");
	expect_error(&d, "evals[3] must be a map with 'skill'", 8, "test-manifest");
	sc_strlist_release(&out);
	sc_diags_release(&d);

	assert_int_equal(sc_tests_evals_manifest(&out, text, strlen(text), "m", "skills/docx", "docx",
						 &d), 0);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.items[0], "evals/docx.yaml");
	sc_strlist_release(&out);
	sc_diags_release(&d);

	assert_int_equal(sc_tests_evals_manifest(&out, "evals: {a: b}\n", 14, "m", "s", "s", &d), 0);
	expect_error(&d, "evals must be a list", 1, "test-manifest");
	assert_int_equal(out.n, 0);
	sc_diags_release(&d);
	assert_int_equal(sc_tests_evals_manifest(&out, "evals: [\n", 9, "m", "s", "s", &d), 0);
	expect_error(&d, "invalid YAML", 0, "test-manifest");
	sc_diags_release(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_upskill_skill_meta),
		cmocka_unit_test(test_context_file_paths_are_read),
		cmocka_unit_test(test_cases_lists_and_evals),
		cmocka_unit_test(test_schema_errors_name_path_and_line),
		cmocka_unit_test(test_syntax_error_lines),
		cmocka_unit_test(test_bom_and_crlf_accepted),
		cmocka_unit_test(test_path_traversal_refused),
		cmocka_unit_test(test_no_tests_is_fine_and_unknown_fields_ignored),
		cmocka_unit_test(test_duplicate_ids_and_limits),
		cmocka_unit_test(test_load_file_detects_format),
		cmocka_unit_test(test_huge_numeric_id),
		cmocka_unit_test(test_hash_tracks_content_not_position),
		cmocka_unit_test(test_oracle_answers),
		cmocka_unit_test(test_manifest_tests_and_fixtures),
		cmocka_unit_test(test_example_skills),
		cmocka_unit_test(test_verifier_model_yaml),
		cmocka_unit_test(test_verifier_errors),
		cmocka_unit_test(test_implied_validator_copy_and_hash),
		cmocka_unit_test(test_evals_manifest),
	};
	return cmocka_run_group_tests_name("testsuite", tests, NULL, NULL);
}
