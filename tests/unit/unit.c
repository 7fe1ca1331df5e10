/* Helpers shared by the cmocka tests (linked into every test binary). */
#include "unit.h"

#include <unistd.h>

/* CASE=PATTERN (cmocka's wildcards * and ?) runs only the tests of the
 * binary whose names match: make check TESTS=test_json CASE='test_print*'. */
__attribute__((constructor)) static void select_cases(void)
{
	const char *pattern = getenv("CASE");

	if (pattern && *pattern)
		cmocka_set_test_filter(pattern);
}

char *sc_test_mkdtemp(void)
{
	const char *tmp = getenv("TMPDIR");
	struct sc_buf b = SC_BUF_INIT;

	sc_buf_printf(&b, "%s/skillci-test-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(b.ptr))
		fail_msg("mkdtemp failed: %s", strerror(errno));
	return sc_buf_detach(&b, NULL);
}

void sc_test_write(const char *dir, const char *rel, const char *content)
{
	struct sc_buf path = SC_BUF_INIT;
	char *slash;

	sc_path_join(&path, dir, rel);
	slash = strrchr(path.ptr, '/');
	*slash = '\0';
	assert_int_equal(sc_mkdir_p(path.ptr), 0);
	*slash = '/';
	assert_int_equal(sc_write_file_atomic(path.ptr, content, strlen(content)), 0);
	sc_buf_release(&path);
}
