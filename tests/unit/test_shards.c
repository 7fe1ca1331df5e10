/*
 * Unit tests for the shards of one check (runner/pipeline/shards.c):
 * four shards of one plan, built in memory, merge; a shard that judged
 * another head, base, merge base or tree, ran under another policy, plan,
 * workflow run or attempt, or sits in another shard's place is refused
 * with the field named; the run a check belongs to is read from what the
 * CI system sets.
 */
#include "unit.h"
#include "states.h"
#include "pipeline/plan.h"
#include "pipeline/shards.h"
#include "results/results.h"

#include <ctype.h>
#include <math.h>

#define N 4
#define HEAD "1111111111111111111111111111111111111111"
#define BASE "2222222222222222222222222222222222222222"
#define OTHER "3333333333333333333333333333333333333333"

/* A shard k of N: the skill "skills/a", every unit of a 3 x 8 plan
 * whose id hashes to k, and the provenance every shard shares. */
static void make_shard(struct sc_results *r, int k)
{
	static const enum sc_variant variants[] = { SC_VARIANT_BASELINE, SC_VARIANT_BASE, SC_VARIANT_HEAD };
	struct sc_buf id = SC_BUF_INIT, test = SC_BUF_INIT;

	sc_results_init(r);
	r->run.kind = SC_RUN_KIND_RUN;
	r->run.id = sc_xstrdup("shard-run");
	r->run.shard_index = k;
	r->run.shard_count = N;
	r->run.complete = false;
	r->run.incomplete_reason = sc_xstrdup("shard of a sharded run");
	r->run.plan_hash = sc_xstrdup("plan-hash");
	r->run.prov.present = true;
	r->run.prov.head = sc_xstrdup(HEAD);
	r->run.prov.base = sc_xstrdup(BASE);
	r->run.prov.merge_base = sc_xstrdup(BASE);
	r->run.prov.judged = SC_JUDGED_HEAD;
	r->run.prov.judged_tree = sc_xstrdup("tree");
	r->run.prov.config_hash = sc_xstrdup("config-hash");
	r->run.prov.workflow_run_id = sc_xstrdup("gh-1000");
	r->run.prov.workflow_run_attempt = 1;
	r->skills = sc_xcalloc(1, sizeof(*r->skills));
	r->nskills = 1;
	r->skills[0].path = sc_xstrdup("skills/a");
	r->skills[0].status = SC_SKILL_MODIFIED;
	for (int v = 0; v < 3; v++)
		for (int t = 0; t < 8; t++) {
			struct sc_results_unit *u;
			sc_buf_clear(&test);
			sc_buf_printf(&test, "t%d", t);
			sc_buf_clear(&id);
			sc_plan_unit_id(&id, "skills/a", variants[v], "m", test.ptr, 0);
			if (sc_plan_shard_of(id.ptr, N) != k)
				continue;
			r->units = sc_xrealloc(r->units, (r->nunits + 1) * sizeof(*r->units));
			u = &r->units[r->nunits++];
			sc_results_unit_init(u);
			u->skill = sc_xstrdup("skills/a");
			u->variant = variants[v];
			u->model = sc_xstrdup("m");
			u->test_id = sc_xstrdup(test.ptr);
			u->test_name = sc_xstrdup(test.ptr);
			u->verdict = t_unit_verdict(v == 0 ? "fail" : "pass");
		}
	sc_buf_release(&id);
	sc_buf_release(&test);
}

struct fx {
	struct sc_results sh[N];
	const char *labels[N];
	size_t order[N];
};

static int setup(void **state)
{
	static const char *const names[N] = { "s1.json", "s2.json", "s3.json", "s4.json" };
	struct fx *f = sc_xcalloc(1, sizeof(*f));

	for (int k = 0; k < N; k++) {
		make_shard(&f->sh[k], k + 1);
		f->labels[k] = names[k];
	}
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	for (int k = 0; k < N; k++)
		sc_results_release(&f->sh[k]);
	free(f);
	return 0;
}

static int check(struct fx *f, const struct sc_shards_expect *want)
{
	return sc_shards_check(f->order, f->sh, f->labels, N, want);
}

/* Replaces a string field of shard k's provenance. */
static void set(char **field, const char *value)
{
	free(*field);
	*field = value ? sc_xstrdup(value) : NULL;
}

static void test_one_check_merges(void **state)
{
	struct fx *f = *state;
	struct sc_shards_expect want = { HEAD, BASE, "gh-1000", 1, NULL, NULL, NULL };
	struct sc_results merged;
	size_t total = 0;

	/* given out of order: order says where each shard is */
	struct sc_results tmp = f->sh[0];
	f->sh[0] = f->sh[2];
	f->sh[2] = tmp;
	for (int k = 0; k < N; k++)
		total += f->sh[k].nunits;
	assert_int_equal(check(f, &want), 0);
	assert_int_equal(f->order[0], 2);
	assert_int_equal(f->order[2], 0);
	sc_shards_merge(&merged, f->sh, f->order, N, "merged", 0.05);
	assert_int_equal(merged.nunits, total);
	assert_int_equal(merged.nunits, 24);
	assert_true(merged.run.complete);
	assert_int_equal(merged.run.shard_count, 1);
	assert_string_equal(merged.run.id, "merged");
	assert_string_equal(merged.run.prov.head, HEAD);  /* the merged run keeps it */
	sc_results_release(&merged);
}

/* Every field two shards must share, changed in shard 3: refused, named. */
static void test_disagreeing_shards_name_the_field(void **state)
{
	struct fx *f = *state;
	struct {
		char **field;
		const char *name;
	} cases[] = {
		{ &f->sh[2].run.prov.head, "provenance.head" },
		{ &f->sh[2].run.prov.base, "provenance.base" },
		{ &f->sh[2].run.prov.merge_base, "provenance.merge_base" },
		{ &f->sh[2].run.prov.judged_tree, "provenance.judged_tree" },
		{ &f->sh[2].run.plan_hash, "another plan (plan_hash" },
		{ &f->sh[2].run.prov.config_hash, "provenance.config_hash" },
		{ &f->sh[2].run.prov.workflow_run_id, "provenance.workflow_run_id" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *keep = sc_xstrdup(*cases[i].field);
		set(cases[i].field, OTHER);
		assert_int_equal(check(f, NULL), SC_EINVAL);
		if (!strstr(sc_error_last(), cases[i].name) || !strstr(sc_error_last(), "s3.json"))
			fail_msg("%s: %s", cases[i].name, sc_error_last());
		set(cases[i].field, keep);
		free(keep);
		assert_int_equal(check(f, NULL), 0);
	}
	{
		/* what was judged: the merge or the head */
		enum sc_judged keep = f->sh[2].run.prov.judged;
		f->sh[2].run.prov.judged = keep == SC_JUDGED_HEAD ? SC_JUDGED_MERGE : SC_JUDGED_HEAD;
		assert_int_equal(check(f, NULL), SC_EINVAL);
		assert_non_null(strstr(sc_error_last(), "provenance.judged"));
		f->sh[2].run.prov.judged = keep;
		assert_int_equal(check(f, NULL), 0);
	}
	f->sh[1].run.prov.workflow_run_attempt = 2;
	assert_int_equal(check(f, NULL), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "provenance.workflow_run_attempt (1 vs 2)"));
	f->sh[1].run.prov.workflow_run_attempt = 1;
	/* a shard without provenance (an older skillci) is refused */
	f->sh[3].run.prov.present = false;
	assert_int_equal(check(f, NULL), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "records no provenance"));
}

/* Shards of another commit, tip or run than the merge is told to judge. */
static void test_expectations(void **state)
{
	struct fx *f = *state;
	struct sc_shards_expect want = { OTHER, NULL, NULL, 0, "the event's head", NULL, NULL };

	assert_int_equal(check(f, &want), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "judged provenance.head 111111111111, but this merge "
				"judges 333333333333 (the event's head)"));
	want.head = HEAD;
	want.base = OTHER;
	assert_int_equal(check(f, &want), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "provenance.base"));
	want.base = BASE;
	want.workflow_run_id = "gh-999";
	assert_int_equal(check(f, &want), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "provenance.workflow_run_id gh-1000"));
	want.workflow_run_id = "gh-1000";
	want.workflow_run_attempt = 2;
	assert_int_equal(check(f, &want), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "provenance.workflow_run_attempt 1"));
	want.workflow_run_attempt = 1;
	assert_int_equal(check(f, &want), 0);
}

/* A shard in another's place, a unit out of its shard, a shard missing. */
static void test_places(void **state)
{
	struct fx *f = *state;

	f->sh[1].run.shard_index = 1;  /* shard 1 twice, 2 missing */
	assert_int_equal(check(f, NULL), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "shard 1 is given twice"));
	assert_non_null(strstr(sc_error_last(), "shard.index"));
	f->sh[1].run.shard_index = 2;
	f->sh[1].run.shard_count = 5;
	assert_int_equal(check(f, NULL), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "shard.count"));
	f->sh[1].run.shard_count = N;
	/* swap the units of shards 1 and 2: each unit is now in the wrong shard */
	{
		struct sc_results_unit *u = f->sh[0].units;
		size_t n = f->sh[0].nunits;
		f->sh[0].units = f->sh[1].units;
		f->sh[0].nunits = f->sh[1].nunits;
		f->sh[1].units = u;
		f->sh[1].nunits = n;
	}
	assert_int_equal(check(f, NULL), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "belongs to shard"));
	assert_int_equal(sc_shards_check(f->order, f->sh, f->labels, N - 1, NULL), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "merge needs every shard once"));
}

/* The workflow run from the environment: Actions, Slurm, --run-id, none. */
static void test_workflow_run(void **state)
{
	char *id = NULL;
	int64_t attempt = 0;
	(void)state;

	unsetenv("GITHUB_ACTIONS");
	unsetenv("SLURM_ARRAY_JOB_ID");
	sc_shards_workflow_run(&id, &attempt, NULL);
	assert_null(id);
	assert_int_equal(attempt, 0);
	sc_shards_workflow_run(&id, &attempt, "job-7");
	assert_string_equal(id, "job-7");
	assert_int_equal(attempt, 1);
	free(id);
	setenv("SLURM_ARRAY_JOB_ID", "4242", 1);
	setenv("SLURM_RESTART_COUNT", "2", 1);
	sc_shards_workflow_run(&id, &attempt, "job-7");
	assert_string_equal(id, "slurm-4242");
	assert_int_equal(attempt, 3);
	free(id);
	setenv("GITHUB_ACTIONS", "true", 1);
	setenv("GITHUB_RUN_ID", "1000", 1);
	setenv("GITHUB_RUN_ATTEMPT", "2", 1);
	sc_shards_workflow_run(&id, &attempt, NULL);
	assert_string_equal(id, "gh-1000");
	assert_int_equal(attempt, 2);
	free(id);
	setenv("GITHUB_RUN_ID", "10 00", 1);  /* not an id: none */
	sc_shards_workflow_run(&id, &attempt, NULL);
	assert_null(id);
	unsetenv("GITHUB_ACTIONS");
	unsetenv("GITHUB_RUN_ID");
	unsetenv("GITHUB_RUN_ATTEMPT");
	unsetenv("SLURM_ARRAY_JOB_ID");
	unsetenv("SLURM_RESTART_COUNT");
}

/* True when id is a new run id: "20261130T150000Z-1a2b3c4d". */
static bool new_id(const char *id)
{
	if (strlen(id) != 25 || id[8] != 'T' || id[15] != 'Z' || id[16] != '-')
		return false;
	for (int i = 0; i < 25; i++)
		if (i != 8 && i != 15 && i != 16 && !isxdigit((unsigned char)id[i]))
			return false;
	return true;
}

/* A run id: 1 to 128 letters, digits, '.', '_' and '-'. */
static void test_run_id_valid(void **state)
{
	char longest[SC_RUN_ID_MAX + 2];
	(void)state;

	assert_true(sc_shards_run_id_valid("gh-1000"));
	assert_true(sc_shards_run_id_valid("a.b_c-D9"));
	assert_false(sc_shards_run_id_valid(""));
	assert_false(sc_shards_run_id_valid(NULL));
	assert_false(sc_shards_run_id_valid("10 00"));
	assert_false(sc_shards_run_id_valid("a/b"));
	assert_false(sc_shards_run_id_valid("caf\xc3\xa9"));
	memset(longest, 'x', sizeof(longest));
	longest[SC_RUN_ID_MAX] = '\0';
	assert_true(sc_shards_run_id_valid(longest));
	longest[SC_RUN_ID_MAX] = 'x';
	longest[SC_RUN_ID_MAX + 1] = '\0';
	assert_false(sc_shards_run_id_valid(longest));
}

/* The run's id: --run-id; a shard in Actions or a Slurm array takes its
 * CI run's; else a new one. */
static void test_run_id_policy(void **state)
{
	char *id;
	(void)state;

	unsetenv("GITHUB_ACTIONS");
	unsetenv("GITHUB_RUN_ID");
	unsetenv("SLURM_ARRAY_JOB_ID");
	/* given: taken as is, whatever the environment */
	setenv("GITHUB_ACTIONS", "true", 1);
	setenv("GITHUB_RUN_ID", "1000", 1);
	id = sc_shards_run_id("mine-1", 4);
	assert_string_equal(id, "mine-1");
	free(id);
	/* a shard in GitHub Actions: the workflow run's */
	id = sc_shards_run_id(NULL, 4);
	assert_string_equal(id, "gh-1000");
	free(id);
	/* one shard: a new id, even in Actions */
	id = sc_shards_run_id(NULL, 1);
	assert_true(new_id(id));
	free(id);
	/* Actions takes precedence over a Slurm array */
	setenv("SLURM_ARRAY_JOB_ID", "4242", 1);
	id = sc_shards_run_id(NULL, 2);
	assert_string_equal(id, "gh-1000");
	free(id);
	/* GITHUB_RUN_ID without GITHUB_ACTIONS=true is not read: the Slurm array's */
	setenv("GITHUB_ACTIONS", "false", 1);
	id = sc_shards_run_id(NULL, 2);
	assert_string_equal(id, "slurm-4242");
	free(id);
	/* in Actions with an empty GITHUB_RUN_ID: the Slurm array's */
	setenv("GITHUB_ACTIONS", "true", 1);
	setenv("GITHUB_RUN_ID", "", 1);
	id = sc_shards_run_id(NULL, 2);
	assert_string_equal(id, "slurm-4242");
	free(id);
	/* a value that makes no valid id: a new one */
	unsetenv("GITHUB_ACTIONS");
	setenv("SLURM_ARRAY_JOB_ID", "42/42", 1);
	id = sc_shards_run_id(NULL, 2);
	assert_true(new_id(id));
	free(id);
	/* neither: a new one, a different one each time */
	unsetenv("SLURM_ARRAY_JOB_ID");
	unsetenv("GITHUB_RUN_ID");
	{
		char *a = sc_shards_run_id(NULL, 3), *b = sc_shards_run_id(NULL, 3);
		assert_true(new_id(a) && new_id(b));
		assert_string_not_equal(a, b);
		free(a);
		free(b);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_check_merges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_disagreeing_shards_name_the_field, setup, teardown),
		cmocka_unit_test_setup_teardown(test_expectations, setup, teardown),
		cmocka_unit_test_setup_teardown(test_places, setup, teardown),
		cmocka_unit_test(test_workflow_run),
		cmocka_unit_test(test_run_id_valid),
		cmocka_unit_test(test_run_id_policy),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
