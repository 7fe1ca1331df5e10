/* Unit tests for runner/pipeline/workdir.c: a run's work folder is locked
 * while it lives; folders of dead runs are removed, live ones kept. */
#include "unit.h"
#include "pipeline/workdir.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

static bool exists(const char *root, const char *name)
{
	struct sc_buf p = SC_BUF_INIT;
	bool ok;

	sc_path_join(&p, root, name);
	ok = access(p.ptr, F_OK) == 0;
	sc_buf_release(&p);
	return ok;
}

static void test_dead_folders_are_removed(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_buf root = SC_BUF_INIT, lock = SC_BUF_INIT;
	struct sc_workdir w;
	size_t cleaned = 99;
	int live;
	(void)state;

	sc_path_join(&root, dir, "work");
	sc_test_write(root.ptr, "dead-nolock/head/x", "x");      /* an older run, no lock file */
	sc_test_write(root.ptr, "dead-unlocked/head/x", "x");    /* killed: its lock is free */
	sc_test_write(root.ptr, "dead-unlocked.lock", "");
	sc_test_write(root.ptr, "live/head/x", "x");             /* running: its lock is held */
	sc_test_write(root.ptr, "live.lock", "");
	sc_path_join(&lock, root.ptr, "live.lock");
	live = open(lock.ptr, O_RDWR);
	assert_true(live >= 0);
	assert_int_equal(flock(live, LOCK_EX | LOCK_NB), 0);

	assert_int_equal(sc_workdir_create(&w, root.ptr, "run1", &cleaned), 0);
	assert_int_equal(cleaned, 2);
	assert_false(exists(root.ptr, "dead-nolock"));
	assert_false(exists(root.ptr, "dead-unlocked"));
	assert_false(exists(root.ptr, "dead-unlocked.lock"));
	assert_true(exists(root.ptr, "live/head/x"));
	assert_true(exists(root.ptr, "run1"));
	assert_true(exists(root.ptr, "run1.lock"));
	/* a second run sees run1 live and keeps it */
	{
		struct sc_workdir w2;
		assert_int_equal(sc_workdir_create(&w2, root.ptr, "run2", &cleaned), 0);
		assert_int_equal(cleaned, 0);
		assert_true(exists(root.ptr, "run1"));
		sc_workdir_release(&w2);
		assert_false(exists(root.ptr, "run2"));
		assert_false(exists(root.ptr, "run2.lock"));
	}
	sc_workdir_release(&w);
	assert_false(exists(root.ptr, "run1"));
	close(live);
	/* the lock is gone with its holder: the next run cleans up */
	assert_int_equal(sc_workdir_create(&w, root.ptr, "run3", &cleaned), 0);
	assert_int_equal(cleaned, 1);
	assert_false(exists(root.ptr, "live"));
	sc_workdir_release(&w);
	sc_rm_rf(dir);
	free(dir);
	sc_buf_release(&root);
	sc_buf_release(&lock);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dead_folders_are_removed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
