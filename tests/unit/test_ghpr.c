/*
 * Unit tests for the job's own event (runner/pipeline/ghpr.c): a file is
 * read only when it is the kind of event GITHUB_EVENT_NAME names; a
 * workflow_run event gives the triggering run's head and no base or
 * labels. The API half (a workflow_run job's pull request) runs against
 * the fake GitHub API in tests/e2e/test_provenance.sh.
 */
#include "unit.h"
#include "pipeline/ghpr.h"

#define HEAD "1111111111111111111111111111111111111111"
#define BASE "2222222222222222222222222222222222222222"

static const char pr_event[] =
	"{\"number\": 8, \"pull_request\": {\"number\": 8, \"labels\": [{\"name\": \"remove-skill\"}],"
	" \"base\": {\"sha\": \"" BASE "\"}, \"head\": {\"sha\": \"" HEAD "\"}}}";
static const char wr_event[] =
	"{\"workflow_run\": {\"id\": 555, \"run_attempt\": 2, \"event\": \"pull_request\","
	" \"head_sha\": \"" HEAD "\", \"pull_requests\": [{\"number\": 7}]}}";

static void read_as(struct sc_ghpr *pr, const char *dir, const char *name, const char *json,
		    const char *event_name)
{
	struct sc_buf path = SC_BUF_INIT;
	struct sc_ghpr_env env;

	sc_test_write(dir, name, json);
	sc_path_join(&path, dir, name);
	memset(&env, 0, sizeof(env));
	env.actions = "true";
	env.event_name = event_name;
	env.event_path = path.ptr;
	assert_int_equal(sc_ghpr_read_event(pr, &env), 0);
	sc_buf_release(&path);
}

static void test_event_of_the_job(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_ghpr pr = SC_GHPR_INIT;
	(void)state;

	/* a pull_request job's own event: number, labels, base, head */
	read_as(&pr, dir, "pr.json", pr_event, "pull_request");
	assert_true(pr.event);
	assert_int_equal(pr.number, 8);
	assert_string_equal(pr.head, HEAD);
	assert_string_equal(pr.base, BASE);
	assert_true(sc_ghpr_has_label(&pr, "remove-skill"));
	assert_string_equal(pr.source, "event");
	sc_ghpr_release(&pr);
	/* the same file in a workflow_run job: not its event, nothing used */
	read_as(&pr, dir, "pr.json", pr_event, "workflow_run");
	assert_false(pr.event);
	assert_int_equal(pr.number, 0);
	assert_null(pr.head);
	assert_null(pr.base);
	assert_false(sc_ghpr_has_label(&pr, "remove-skill"));
	assert_non_null(strstr(pr.ignored, "holds a pull_request event, but this job's event is "
				"workflow_run"));
	sc_ghpr_release(&pr);
	/* the workflow_run event: the run's head, no base, no labels, no number */
	read_as(&pr, dir, "wr.json", wr_event, "workflow_run");
	assert_true(pr.event);
	assert_string_equal(pr.kind, "workflow_run");
	assert_string_equal(pr.head, HEAD);
	assert_null(pr.base);
	assert_int_equal(pr.number, 0);
	assert_int_equal(pr.run_id, 555);
	assert_int_equal(pr.run_attempt, 2);
	sc_ghpr_release(&pr);
	/* a workflow_run file in a pull_request job: not its event either */
	read_as(&pr, dir, "wr.json", wr_event, "pull_request_target");
	assert_false(pr.event);
	assert_non_null(pr.ignored);
	sc_ghpr_release(&pr);
	/* a workflow_run file where no workflow_run job is named: not used */
	read_as(&pr, dir, "wr.json", wr_event, NULL);
	assert_false(pr.event);
	assert_null(pr.head);
	assert_non_null(pr.ignored);
	sc_ghpr_release(&pr);
	/* an event without revisions: only the pull request it is about */
	read_as(&pr, dir, "c.json", "{\"issue\": {\"number\": 3, \"pull_request\": {}}}", "issue_comment");
	assert_int_equal(pr.number, 3);
	assert_null(pr.head);
	sc_ghpr_release(&pr);
	sc_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_event_of_the_job),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
