/* Unit tests for the progress line of `skillci run` (runner/pipeline/progress.c) and
 * its stop flag on SIGINT/SIGTERM (runner/pipeline/signals.c). */
#include "unit.h"
#include "pipeline/progress.h"
#include "pipeline/signals.h"

#include <signal.h>

/* Reads everything written to f so far. */
static void slurp(struct sc_buf *out, FILE *f)
{
	char chunk[512];
	size_t n;

	fflush(f);
	rewind(f);
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sc_buf_put(out, chunk, n);
}

static void test_format_counts_and_eta(void **state)
{
	struct sc_progress p;
	struct sc_buf line = SC_BUF_INIT;
	(void)state;

	sc_progress_init(&p, NULL, false, 40);
	/* nothing evaluated yet: no ETA */
	sc_progress_format(&line, &p, p.t0_ms + 5000);
	assert_string_equal(line.ptr, "[0/40]   0% | 0 in flight | 0 kernel workers | 0 cache hits | "
				      "0 reused | 0:05 elapsed");
	/* 10 done (2 reused) in 16 s: 2 s per evaluated unit, 30 left -> 1:00 */
	for (int i = 0; i < 10; i++)
		sc_progress_unit(&p, i < 2, i == 9);
	sc_progress_activity(&p, 6, 1, 1);
	sc_buf_clear(&line);
	sc_progress_format(&line, &p, p.t0_ms + 16000);
	assert_string_equal(line.ptr, "[10/40]  25% | 6 in flight | 1 kernel worker | 1 cache hit | "
				      "2 reused | 1 error | 0:16 elapsed | ETA 1:00");
	/* the activity is what it is now, not a sum */
	sc_progress_activity(&p, 0, 0, 3);
	assert_int_equal(p.workers, 0);
	assert_int_equal(p.in_flight, 0);
	assert_int_equal(p.cache_hits, 3);
	sc_buf_release(&line);
	sc_progress_release(&p);
}

/* In a CI log: plain lines, never an escape sequence; on a TTY: the line is
 * redrawn in place and cleared at the end. */
static void test_plain_and_tty_output(void **state)
{
	struct sc_progress p;
	struct sc_buf text = SC_BUF_INIT;
	FILE *f = tmpfile();
	(void)state;

	assert_non_null(f);
	sc_progress_init(&p, f, false, 3);
	p.interval_ms = 0;
	sc_progress_activity(&p, 3, 0, 0);
	for (int i = 0; i < 3; i++)
		sc_progress_unit(&p, false, false);
	sc_progress_finish(&p);
	slurp(&text, f);
	assert_null(strchr(text.ptr, '\033'));
	assert_null(strchr(text.ptr, '\r'));
	assert_non_null(strstr(text.ptr, "progress: [3/3] 100%"));
	sc_progress_release(&p);
	fclose(f);

	f = tmpfile();
	assert_non_null(f);
	sc_buf_clear(&text);
	sc_progress_init(&p, f, true, 2);
	sc_progress_activity(&p, 2, 0, 0);
	sc_progress_unit(&p, false, false);
	sc_progress_unit(&p, false, false);
	sc_progress_finish(&p);
	slurp(&text, f);
	assert_non_null(strstr(text.ptr, "\r\033[K[1/2]"));
	assert_true(sc_ends_with(text.ptr, "\r\033[K"));
	assert_null(strchr(text.ptr, '\n'));
	sc_progress_release(&p);
	fclose(f);
	sc_buf_release(&text);
}

/* The first SIGTERM only sets the flag; the process goes on. */
static void test_first_signal_sets_the_flag(void **state)
{
	(void)state;

	sc_signals_install();
	assert_false(sc_signals_stop_requested());
	assert_int_equal(raise(SIGTERM), 0);
	assert_true(sc_signals_stop_requested());
	assert_int_equal(sc_signals_which(), SIGTERM);
	assert_string_equal(sc_signals_name(SIGTERM), "SIGTERM");
	assert_string_equal(sc_signals_name(SIGINT), "SIGINT");
	sc_signals_restore();
	sc_signals_install();  /* a new run starts clear */
	assert_false(sc_signals_stop_requested());
	sc_signals_request_stop(SIGINT);
	assert_int_equal(sc_signals_which(), SIGINT);
	sc_signals_restore();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_format_counts_and_eta),
		cmocka_unit_test(test_plain_and_tty_output),
		cmocka_unit_test(test_first_signal_sets_the_flag),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
