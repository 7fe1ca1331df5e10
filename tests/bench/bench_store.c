/*
 * Benchmark driver for tests/bench/bench_store.sh: W writer processes
 * write N units each into one results store, in transactions of B units
 * with the run row (as a batch of `skillci run` writes them), each unit
 * with a transcript of about 2 KB. The writers open the store first, then
 * wait on a pipe, so connecting and the schema are not timed.
 *
 *   bench_store LOCATION WRITERS UNITS_PER_WRITER BATCH
 *
 * Prints the wall time from the start signal until the last writer is
 * done, units per second, and checks the store then holds exactly
 * WRITERS x UNITS_PER_WRITER units (exit 1 otherwise).
 */
#include "common.h"
#include "results/store.h"

#include <sys/wait.h>
#include <unistd.h>

#define MAX_WRITERS 64

static int writer(const char *location, int w, int n, int batch, int go_fd)
{
	struct sc_store *s = NULL;
	struct sc_buf transcript = SC_BUF_INIT;
	char run_id[32], skill_hash[32], test_hash[32], c;

	if (sc_store_open(&s, location) < 0) {
		fprintf(stderr, "writer %d: %s\n", w, sc_error_last());
		return 1;
	}
	sc_buf_puts(&transcript, "[{\"role\": \"user\", \"content\": \"");
	for (int i = 0; i < 1000; i++)
		sc_buf_puts(&transcript, "ab");
	sc_buf_puts(&transcript, "\"}, {\"role\": \"assistant\", \"content\": \"ok\"}]");
	snprintf(run_id, sizeof(run_id), "bench-%d", w);
	snprintf(skill_hash, sizeof(skill_hash), "skill-%d", w);
	if (read(go_fd, &c, 1) != 1)
		return 2;
	for (int i = 0; i < n; i += batch) {
		struct sc_store_run r = { run_id, "run", "2026-01-01T00:00:00Z", NULL, false,
					  "anthropic.bench", 1, false, NULL, NULL, NULL };
		if (sc_store_begin(s) < 0 || sc_store_put_run(s, &r) < 0)
			goto fail;
		for (int k = i; k < i + batch && k < n; k++) {
			struct sc_store_unit u;
			sc_store_unit_init(&u);
			snprintf(test_hash, sizeof(test_hash), "test-%d", k);
			u.skill = (char *)"skills/bench";
			u.skill_name = (char *)"bench";
			u.variant = (char *)"head";
			u.model = (char *)"anthropic.bench";
			u.test_id = (char *)"skill_meta.json#tests[0]";
			u.test_name = (char *)"bench";
			u.kind = (char *)"text";
			u.skill_hash = skill_hash;
			u.test_hash = test_hash;
			u.fixture_hash = (char *)"";
			u.prompt_hash = (char *)"prompt";
			u.harness = (char *)"skillci-eval/1";
			u.verdict = (char *)(k % 3 ? "pass" : "fail");
			u.tokens_in = 1000 + k;
			u.tokens_out = 200;
			u.turns = 1;
			u.latency_ms = 1500;
			u.transcript = transcript.ptr;
			if (sc_store_put_unit(s, run_id, &u) < 0)
				goto fail;
		}
		if (sc_store_commit(s) < 0)
			goto fail;
	}
	sc_store_free(s);
	sc_buf_release(&transcript);
	return 0;
fail:
	fprintf(stderr, "writer %d: %s\n", w, sc_error_last());
	return 3;
}

int main(int argc, char **argv)
{
	pid_t pids[MAX_WRITERS];
	int go[2], writers, n, batch, failed = 0;
	struct sc_store *s = NULL;
	int64_t units = 0, t0, t1;

	if (argc != 5 || (writers = atoi(argv[2])) < 1 || writers > MAX_WRITERS ||
	    (n = atoi(argv[3])) < 1 || (batch = atoi(argv[4])) < 1) {
		fprintf(stderr, "usage: bench_store LOCATION WRITERS UNITS_PER_WRITER BATCH\n");
		return 2;
	}
	/* the schema first, so that the writers only write */
	if (sc_store_open(&s, argv[1]) < 0) {
		fprintf(stderr, "bench_store: %s\n", sc_error_last());
		return 1;
	}
	sc_store_free(s);
	if (pipe(go) != 0)
		return 1;
	for (int w = 0; w < writers; w++) {
		pids[w] = fork();
		if (pids[w] < 0)
			return 1;
		if (pids[w] == 0) {
			close(go[1]);
			_exit(writer(argv[1], w, n, batch, go[0]));
		}
	}
	close(go[0]);
	usleep(300 * 1000);  /* let every writer connect */
	t0 = sc_now_ns();
	for (int w = 0; w < writers; w++)
		if (write(go[1], "g", 1) != 1)
			return 1;
	for (int w = 0; w < writers; w++) {
		int status = 0;
		waitpid(pids[w], &status, 0);
		failed |= !WIFEXITED(status) || WEXITSTATUS(status) != 0;
	}
	t1 = sc_now_ns();
	close(go[1]);
	if (failed)
		return 1;
	if (sc_store_open(&s, argv[1]) < 0 || sc_store_count_units(s, &units) < 0) {
		fprintf(stderr, "bench_store: %s\n", sc_error_last());
		return 1;
	}
	sc_store_free(s);
	if (units != (int64_t)writers * n) {
		fprintf(stderr, "bench_store: the store holds %lld units, not %lld\n", (long long)units,
			(long long)writers * n);
		return 1;
	}
	printf("%s: %d writers x %d units (transactions of %d): %lld units in %.3f s, %.0f units/s\n",
	       strncmp(argv[1], "postgres", 8) ? "sqlite" : "postgresql", writers, n, batch,
	       (long long)units, (double)(t1 - t0) / 1e9, (double)units / ((double)(t1 - t0) / 1e9));
	return 0;
}
