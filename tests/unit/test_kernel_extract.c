/*
 * Orchestrator side of kernel checks: extracting the kernel from an answer,
 * fixture hashes and fixtures.lock, and the sandboxed worker run (with a
 * stand-in worker script: empty environment, own folder, wall-clock kill,
 * crash handling).
 */
#include "unit.h"
#include "kernelrun/extract.h"
#include "kernelrun/fixture.h"
#include "kernelrun/kernelrun.h"

#include <sys/stat.h>
#include <unistd.h>

static void test_extract_picks_block_with_entry(void **state)
{
	const char *md =
		"Here is my answer.\n\n"
		"```python\nprint('softmax(')\n```\n\n"
		"```cuda\n__device__ float helper(float x) { return x; }\n```\n\n"
		"```cuda\nextern \"C\" __global__ void softmax(const float* x, float* y, int rows, int cols)\n{\n}\n```\n";
	struct sc_buf out = SC_BUF_INIT;
	size_t line = 0;
	(void)state;
	assert_int_equal(sc_extract_kernel(&out, md, strlen(md), "softmax", false, &line), 0);
	assert_true(sc_starts_with(out.ptr, "extern \"C\" __global__ void softmax("));
	assert_int_equal(line, 11);  /* the opening fence */
	sc_buf_release(&out);
}

static void test_extract_accepts_cpp_and_untagged(void **state)
{
	const char *cpp = "```c++\n__global__ void k(int* a) {}\n```\n";
	const char *plain = "```\nextern \"C\"\n__global__\nvoid k (int* a) {}\n```\n";
	struct sc_buf out = SC_BUF_INIT;
	(void)state;
	assert_int_equal(sc_extract_kernel(&out, cpp, strlen(cpp), "k", false, NULL), 0);
	assert_int_equal(sc_extract_kernel(&out, plain, strlen(plain), "k", false, NULL), 0);
	assert_non_null(strstr(out.ptr, "void k (int* a)"));
	sc_buf_release(&out);
}

static void test_extract_errors_name_the_entry(void **state)
{
	const char *none = "I would write a kernel that uses shared memory.\n";
	const char *wrong = "```cuda\n__global__ void softmax_kernel(float* y) {}\n```\n"
			    "```cuda\nvoid softmax(float* y);  // host prototype\n```\n";
	struct sc_buf out = SC_BUF_INIT;
	(void)state;
	assert_int_equal(sc_extract_kernel(&out, none, strlen(none), "softmax", false, NULL), SC_ENOTFOUND);
	assert_non_null(strstr(sc_error_last(), "no fenced code block"));
	assert_non_null(strstr(sc_error_last(), "softmax"));
	assert_int_equal(sc_extract_kernel(&out, wrong, strlen(wrong), "softmax", false, NULL), SC_ENOTFOUND);
	assert_non_null(strstr(sc_error_last(), "no code block in the answer defines the kernel 'softmax'"));
	assert_non_null(strstr(sc_error_last(), "2 cuda blocks"));
	/* A bare .cu is taken as is. */
	assert_int_equal(sc_extract_kernel(&out, none, strlen(none), "softmax", true, NULL), 0);
	assert_string_equal(out.ptr, none);
	sc_buf_release(&out);
}

static void test_fixture_hash_and_lock(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_fixture_list l;
	char h1[65], h2[65];
	struct sc_buf p = SC_BUF_INIT;
	(void)state;

	sc_test_write(dir, "alpha/spec.json", "{}");
	sc_test_write(dir, "alpha/baseline.cu", "a");
	sc_test_write(dir, "beta/spec.json", "{}");
	sc_test_write(dir, "notes/readme.md", "no spec: not a fixture");
	sc_buf_printf(&p, "%s/alpha", dir);
	assert_int_equal(sc_fixture_hash(h1, p.ptr), 0);
	assert_int_equal(sc_fixture_hash(h2, p.ptr), 0);
	assert_string_equal(h1, h2);
	/* Moving bytes between files changes the hash (names and sizes are hashed). */
	sc_test_write(dir, "alpha/spec.json", "{}a");
	sc_test_write(dir, "alpha/baseline.cu", "");
	assert_int_equal(sc_fixture_hash(h2, p.ptr), 0);
	assert_string_not_equal(h1, h2);

	assert_int_equal(sc_fixture_list(&l, dir), 0);
	assert_int_equal(l.n, 2);
	assert_string_equal(l.items[0].name, "alpha");
	assert_int_equal(l.items[0].pin, SC_PIN_UNPINNED);
	assert_int_equal(sc_fixture_require_pinned(&l.items[0], false), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "not pinned"));
	assert_int_equal(sc_fixture_require_pinned(&l.items[0], true), 0);
	assert_int_equal(sc_fixture_lock_write(dir, &l), 0);
	sc_fixture_list_release(&l);

	assert_int_equal(sc_fixture_list(&l, dir), 0);
	assert_int_equal(l.items[0].pin, SC_PIN_OK);
	assert_int_equal(l.items[1].pin, SC_PIN_OK);
	sc_fixture_list_release(&l);

	sc_test_write(dir, "beta/solution.cu", "changed");
	assert_int_equal(sc_fixture_list(&l, dir), 0);
	assert_int_equal(l.items[1].pin, SC_PIN_CHANGED);
	assert_int_equal(sc_fixture_require_pinned(&l.items[1], false), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "changed since it was pinned"));
	sc_fixture_list_release(&l);

	/* A symlink inside a fixture is refused. */
	sc_buf_clear(&p);
	sc_buf_printf(&p, "%s/beta/link", dir);
	assert_int_equal(symlink("/etc/passwd", p.ptr), 0);
	assert_int_equal(sc_fixture_list(&l, dir), SC_EUNSAFE);
	sc_buf_release(&p);
	sc_rm_rf(dir);
	free(dir);
}

/* Writes an executable stand-in worker script into dir. */
static char *fake_worker(const char *dir, const char *body)
{
	struct sc_buf p = SC_BUF_INIT, text = SC_BUF_INIT;
	sc_buf_printf(&text, "#!/bin/sh\n%s\n", body);
	sc_test_write(dir, "worker.sh", text.ptr);
	sc_buf_printf(&p, "%s/worker.sh", dir);
	assert_int_equal(chmod(p.ptr, 0755), 0);
	sc_buf_release(&text);
	return sc_buf_detach(&p, NULL);
}

static void test_kernelrun_sandbox(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_kernelrun_limits lim = { 10, 10, false };
	struct sc_kernelrun_result r;
	struct sc_buf json = SC_BUF_INIT;
	char *w;
	(void)state;

	setenv("SKILLCI_TEST_SECRET", "sk-should-not-leak", 1);
	/* Reads the job, reports its environment size and working folder on
	 * the result descriptor (fd 3), with the nonce the job carried; what
	 * it prints on stdout is only the kernel's output. */
	w = fake_worker(dir, "job=$(cat); n=$(env | grep -vc '^PWD=\\|^SHLVL=\\|^_=\\|^OLDPWD='); "
			     "nonce=$(printf '%s' \"$job\" | sed 's/.*\"nonce\":\"\\([0-9a-f]*\\)\".*/\\1/'); "
			     "echo 'device printf'; case \"$job\" in *JOB*) job=JOB;; esac; "
			     "printf '{\"verdict\":\"compiled\",\"reason\":\"%s\",\"message\":\"%s\",\"nonce\":\"%s\"}' \"$n\" \"$(pwd)|$job|$SKILLCI_TEST_SECRET\" \"$nonce\" >&3");
	assert_int_equal(sc_kernelrun(&r, w, "{\"x\":\"JOB\"}", &lim), 0);
	assert_int_equal(r.exit_code, 0);
	assert_false(r.timed_out);
	assert_int_equal(strlen(r.nonce), 32);
	assert_non_null(strstr(r.result->ptr, "\"reason\":\"0\""));       /* empty environment */
	assert_non_null(strstr(r.result->ptr, "/tmp/skillci-kernel."));    /* its own temp folder */
	assert_non_null(strstr(r.result->ptr, "|JOB|"));                    /* job on stdin */
	assert_non_null(strstr(r.result->ptr, r.nonce));                    /* with the nonce */
	assert_null(strstr(r.result->ptr, "sk-should-not-leak"));
	assert_string_equal(r.out->ptr, "device printf\n");
	sc_kernelrun_result_json(&json, &r, &lim);
	assert_non_null(strstr(json.ptr, "\"sandbox\""));
	assert_non_null(strstr(json.ptr, "\"verdict\":\t\"compiled\""));
	assert_non_null(strstr(json.ptr, "\"kernel_output\""));
	assert_null(strstr(json.ptr, r.nonce));  /* believed, then dropped */
	sc_kernelrun_result_release(&r);
	free(w);

	/* A verdict printed before the real one on the result descriptor:
	 * two documents, neither believed. */
	w = fake_worker(dir, "job=$(cat); nonce=$(printf '%s' \"$job\" | sed 's/.*\"nonce\":\"\\([0-9a-f]*\\)\".*/\\1/'); "
			     "printf '{\"verdict\":\"passed\",\"nonce\":\"%s\"}\\n{\"verdict\":\"failed\",\"nonce\":\"%s\"}' \"$nonce\" \"$nonce\" >&3");
	assert_int_equal(sc_kernelrun(&r, w, "{}", &lim), 0);
	sc_kernelrun_result_json(&json, &r, &lim);
	assert_non_null(strstr(json.ptr, "\"bad_result\""));
	assert_null(strstr(json.ptr, "\"passed\""));
	sc_kernelrun_result_release(&r);
	free(w);

	/* A hang is killed at the wall-clock limit. */
	lim.wall_s = 1;
	w = fake_worker(dir, "cat >/dev/null; exec sleep 30");
	assert_int_equal(sc_kernelrun(&r, w, "{}", &lim), 0);
	assert_true(r.timed_out);
	sc_kernelrun_result_json(&json, &r, &lim);
	assert_non_null(strstr(json.ptr, "\"timeout\""));
	assert_non_null(strstr(json.ptr, "wall-clock limit of 1 s"));
	sc_kernelrun_result_release(&r);
	free(w);

	/* A crash is a failure with the signal named. */
	lim.wall_s = 10;
	w = fake_worker(dir, "cat >/dev/null; echo 'partial' ; kill -SEGV $$");
	assert_int_equal(sc_kernelrun(&r, w, "{}", &lim), 0);
	assert_int_equal(r.exit_code, -1);
	assert_int_equal(r.signal, 11);
	sc_kernelrun_result_json(&json, &r, &lim);
	assert_non_null(strstr(json.ptr, "\"crashed\""));
	assert_non_null(strstr(json.ptr, "signal 11"));
	sc_kernelrun_result_release(&r);
	free(w);

	sc_buf_release(&json);
	unsetenv("SKILLCI_TEST_SECRET");
	sc_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_extract_picks_block_with_entry),
		cmocka_unit_test(test_extract_accepts_cpp_and_untagged),
		cmocka_unit_test(test_extract_errors_name_the_entry),
		cmocka_unit_test(test_fixture_hash_and_lock),
		cmocka_unit_test(test_kernelrun_sandbox),
	};
	return cmocka_run_group_tests_name("kernel_extract", tests, NULL, NULL);
}
