/*
 * Test files (upskill skill_meta.json, {"cases"} suites, bare lists,
 * evals/evals.json) through sc_tests_load_file(): the format is detected
 * from the input's top level as for `eval --tests FILE`. The file lives in
 * a tmpfs skill folder that also holds one context file, so context paths
 * ("files": ["ref.txt"], "../x") are resolved for real. Every loaded test
 * is hashed and given an oracle answer.
 */
#include "fuzz.h"
#include "diag.h"
#include "skills/testsuite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int ready;
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_buf path = SC_BUF_INIT, ans = SC_BUF_INIT;
	char hash[65];

	if (!ready) {
		fuzz_write(&path, "ref.txt", (const uint8_t *)"reference\n", 10);
		ready = 1;
	}
	fuzz_write(&path, "tests.json", data, size);
	sc_tests_load_file(&set, path.ptr, fuzz_dir(), &diags);
	for (size_t i = 0; i < set.n; i++) {
		sc_test_hash(hash, &set.items[i]);
		sc_buf_clear(&ans);
		sc_tests_oracle_answer(&set.items[i], &ans);
	}
	sc_buf_release(&ans);
	sc_buf_release(&path);
	sc_diags_release(&diags);
	sc_test_set_release(&set);
	return 0;
}
