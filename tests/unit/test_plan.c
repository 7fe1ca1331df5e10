/* Unit tests for the plan of `skillci run`: unit ids, the stable shard
 * split, the plan hash and --shard parsing (runner/pipeline/plan.c). */
#include "unit.h"
#include "pipeline/plan.h"
#include "sha256.h"

static void test_unit_id_names_every_field(void **state)
{
	struct sc_buf id = SC_BUF_INIT;
	(void)state;

	sc_plan_unit_id(&id, "skills/a", SC_VARIANT_HEAD, "anthropic.m", "skill_meta.json#tests[2]", 3);
	assert_string_equal(id.ptr, "skills/a|head|anthropic.m|skill_meta.json#tests[2]|3");
	sc_buf_release(&id);
}

/* The hash is the first 8 bytes of SHA-256(id), big-endian: checked
 * against the SHA-256 module, so every machine splits the same way. */
static void test_hash_is_sha256_prefix(void **state)
{
	const char *id = "skills/a|baseline|oracle.self|t#1|0";
	char hex[SC_SHA256_HEX_LEN + 1], want[17];
	(void)state;

	sc_sha256_hex(hex, id, strlen(id));
	snprintf(want, sizeof(want), "%016llx", (unsigned long long)sc_plan_hash_id(id));
	assert_memory_equal(hex, want, 16);
	assert_int_equal(sc_plan_shard_of(id, 1), 1);
	assert_int_equal(sc_plan_shard_of(id, 7), (int)(sc_plan_hash_id(id) % 7) + 1);
}

/* Every unit lands in exactly one shard in 1..N, and no shard is empty or
 * holds most of the units on a plan of 1000. */
static void test_shards_cover_every_unit(void **state)
{
	size_t count[5] = { 0 };
	struct sc_buf id = SC_BUF_INIT;
	(void)state;

	for (int i = 0; i < 1000; i++) {
		int k;
		sc_buf_clear(&id);
		sc_plan_unit_id(&id, "skills/s", i % 2 ? SC_VARIANT_HEAD : SC_VARIANT_BASE, "m", "t", i);
		k = sc_plan_shard_of(id.ptr, 4);
		assert_true(k >= 1 && k <= 4);
		count[k]++;
	}
	assert_int_equal(count[1] + count[2] + count[3] + count[4], 1000);
	for (int k = 1; k <= 4; k++) {
		assert_true(count[k] > 150);
		assert_true(count[k] < 350);
	}
	sc_buf_release(&id);
}

/* The plan hash depends on the units and what decides them, never on the
 * order they were added in. */
static void test_plan_hash_is_order_free(void **state)
{
	struct sc_plan a = SC_PLAN_INIT, b = SC_PLAN_INIT, c = SC_PLAN_INIT, d = SC_PLAN_INIT;
	(void)state;

	for (int i = 0; i < 3; i++)
		for (int t = 0; t < 4; t++) {
			const enum sc_variant v[] = { SC_VARIANT_BASELINE, SC_VARIANT_BASE, SC_VARIANT_HEAD };
			sc_plan_add(&a, "skills/x", v[i], "m", "t", t, "h1");
			sc_plan_add(&b, "skills/x", v[2 - i], "m", "t", 3 - t, "h1");
			sc_plan_add(&c, "skills/x", v[i], "m", "t", t, i == 2 && t == 3 ? "h2" : "h1");
			sc_plan_add(&d, "skills/x", v[i], "m", "t", t, "h1");
		}
	assert_int_equal(sc_plan_finish(&a, "runs=4"), 0);
	assert_int_equal(sc_plan_finish(&b, "runs=4"), 0);
	assert_int_equal(sc_plan_finish(&c, "runs=4"), 0);
	assert_int_equal(sc_plan_finish(&d, "runs=5"), 0);
	assert_int_equal(strlen(a.hash), 64);
	assert_string_equal(a.hash, b.hash);
	assert_string_not_equal(a.hash, c.hash);  /* one unit's content changed */
	assert_string_not_equal(a.hash, d.hash);  /* a setting changed */
	/* sorted by id, found by id */
	for (size_t i = 1; i < a.n; i++)
		assert_true(strcmp(a.units[i - 1].id, a.units[i].id) < 0);
	assert_non_null(sc_plan_find(&a, "skills/x|base|m|t|2"));
	assert_int_equal(sc_plan_find(&a, "skills/x|base|m|t|2")->variant, SC_VARIANT_BASE);
	assert_null(sc_plan_find(&a, "skills/x|base|m|t|9"));
	sc_plan_release(&a);
	sc_plan_release(&b);
	sc_plan_release(&c);
	sc_plan_release(&d);
}

static void test_duplicate_unit_is_refused(void **state)
{
	struct sc_plan p = SC_PLAN_INIT;
	(void)state;

	sc_plan_add(&p, "skills/x", SC_VARIANT_HEAD, "m", "t", 0, "h1");
	sc_plan_add(&p, "skills/y", SC_VARIANT_HEAD, "m", "t", 0, "h1");
	sc_plan_add(&p, "skills/x", SC_VARIANT_HEAD, "m", "t", 0, "h2");
	assert_int_equal(sc_plan_finish(&p, ""), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "planned twice"));
	sc_plan_release(&p);
}

static void clear_env(void)
{
	unsetenv("SLURM_ARRAY_TASK_ID");
	unsetenv("SLURM_ARRAY_TASK_MIN");
	unsetenv("SLURM_ARRAY_TASK_MAX");
	unsetenv("SLURM_ARRAY_TASK_COUNT");
	unsetenv("JOB_COMPLETION_INDEX");
	unsetenv("SKILLCI_SHARD_COUNT");
}

static void test_parse_shard_k_of_n(void **state)
{
	int k = 0, n = 0;
	(void)state;

	assert_int_equal(sc_plan_parse_shard(&k, &n, "2/4", 0), 0);
	assert_int_equal(k, 2);
	assert_int_equal(n, 4);
	assert_int_equal(sc_plan_parse_shard(&k, &n, "1/1", 0), 0);
	assert_int_equal(k * 10 + n, 11);
	assert_int_equal(sc_plan_parse_shard(&k, &n, "0/4", 0), SC_EINVAL);
	assert_int_equal(sc_plan_parse_shard(&k, &n, "5/4", 0), SC_EINVAL);
	assert_int_equal(sc_plan_parse_shard(&k, &n, "4", 0), SC_EINVAL);
	assert_int_equal(sc_plan_parse_shard(&k, &n, "a/4", 0), SC_EINVAL);
	assert_int_equal(sc_plan_parse_shard(&k, &n, "1/0", 0), SC_EINVAL);
	assert_int_equal(sc_plan_parse_shard(&k, &n, "1/100000", 0), SC_EINVAL);
}

static void test_parse_shard_auto(void **state)
{
	int k = 0, n = 0;
	(void)state;

	clear_env();
	assert_int_equal(sc_plan_parse_shard(&k, &n, "auto", 0), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "SLURM_ARRAY_TASK_ID"));

	/* sbatch --array=1-4: ids 1..4 */
	setenv("SLURM_ARRAY_TASK_ID", "3", 1);
	setenv("SLURM_ARRAY_TASK_MIN", "1", 1);
	setenv("SLURM_ARRAY_TASK_COUNT", "4", 1);
	assert_int_equal(sc_plan_parse_shard(&k, &n, "auto", 0), 0);
	assert_int_equal(k, 3);
	assert_int_equal(n, 4);
	/* sbatch --array=0-7 without COUNT: MAX - MIN + 1 */
	setenv("SLURM_ARRAY_TASK_ID", "0", 1);
	setenv("SLURM_ARRAY_TASK_MIN", "0", 1);
	unsetenv("SLURM_ARRAY_TASK_COUNT");
	setenv("SLURM_ARRAY_TASK_MAX", "7", 1);
	assert_int_equal(sc_plan_parse_shard(&k, &n, "auto", 0), 0);
	assert_int_equal(k, 1);
	assert_int_equal(n, 8);
	setenv("SLURM_ARRAY_TASK_ID", "x", 1);
	assert_int_equal(sc_plan_parse_shard(&k, &n, "auto", 0), SC_EINVAL);
	clear_env();

	/* Kubernetes Indexed Job: 0-based index, count from the flag or env */
	setenv("JOB_COMPLETION_INDEX", "2", 1);
	assert_int_equal(sc_plan_parse_shard(&k, &n, "auto", 0), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "SKILLCI_SHARD_COUNT"));
	assert_int_equal(sc_plan_parse_shard(&k, &n, "auto", 4), 0);
	assert_int_equal(k, 3);
	assert_int_equal(n, 4);
	setenv("SKILLCI_SHARD_COUNT", "3", 1);
	assert_int_equal(sc_plan_parse_shard(&k, &n, "auto", 0), 0);
	assert_int_equal(k * 10 + n, 33);
	setenv("JOB_COMPLETION_INDEX", "3", 1);
	assert_int_equal(sc_plan_parse_shard(&k, &n, "auto", 0), SC_EINVAL);  /* 4 of 3 */
	clear_env();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_unit_id_names_every_field),
		cmocka_unit_test(test_hash_is_sha256_prefix),
		cmocka_unit_test(test_shards_cover_every_unit),
		cmocka_unit_test(test_plan_hash_is_order_free),
		cmocka_unit_test(test_duplicate_unit_is_refused),
		cmocka_unit_test(test_parse_shard_k_of_n),
		cmocka_unit_test(test_parse_shard_auto),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
