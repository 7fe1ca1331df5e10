/*
 * Unit tests for a command's option table (runner/core/options.c): every
 * kind of value, each form (--name value, --name=value, -x value, -xvalue,
 * grouped flags, prefixes), "--" and "-", repeated options, arguments kept
 * in order, every error message, and the usage written from the table.
 */
#include "unit.h"
#include "options.h"

#include <math.h>

struct opts {
	const char *repo, *store;
	int runs;
	double temperature;
	bool verbose, zap, offline;
	const char *const *models;
	size_t nmodels;
	const char *const *history;
	size_t nhistory;
	const char *mode;
	int called;
};

static int take_mode(void *payload, const char *value)
{
	struct opts *o = payload;

	o->called++;
	if (strcmp(value, "fast") && strcmp(value, "slow"))
		return sc_error_set(SC_EINVAL, "'%s' is not fast or slow", value);
	o->mode = value;
	return 0;
}

static const struct sc_option table[] = {
	SC_OPT_STRING("repo", 0, struct opts, repo, "R", "repository path or URL"),
	SC_OPT_INT("runs", 0, struct opts, runs, 1, 1000, "N", "runs per test"),
	SC_OPT_INT("rubric-runs", 0, struct opts, runs, 1, 10, "N", NULL),
	SC_OPT_DOUBLE("temperature", 0, struct opts, temperature, 0, 2, "T", "sampling temperature"),
	SC_OPT_LIST("model", 'm', struct opts, models, nmodels, 3, "MODEL",
		    "student model (repeat)\nsecond line of its help"),
	SC_OPT_GREEDY_LIST("history", 0, struct opts, history, nhistory, 0, "FILES", "more files"),
	SC_OPT_FLAG("verbose", 'v', struct opts, verbose, "one line per unit"),
	SC_OPT_FLAG(NULL, 'z', struct opts, zap, "zap"),
	SC_OPT_FLAG("offline", 0, struct opts, offline, NULL),
	SC_OPT_STRING("store", 0, struct opts, store, "LOCATION", "results store"),
	SC_OPT_CALLBACK("mode", 0, take_mode, "MODE", "fast or slow"),
	SC_OPT_END,
};

static const struct sc_options spec = { "demo", "DIR...", "Does the demo.", "exit codes: 0.",
					table, 0 };

/* The arguments after a parse: the words' pointers, as the parser left them. */
static char *args[32];

/* Parses the NULL-terminated words (the command's name first) into o,
 * through args (the parser moves the arguments to args[1..]). */
static int parse_words(const struct sc_options *s, struct opts *o, const char **words, int *nargs)
{
	int argc = 0;

	while (words[argc]) {
		args[argc] = (char *)words[argc];
		argc++;
	}
	args[argc] = NULL;
	memset(o, 0, sizeof(*o));
	o->runs = -1;
	return sc_options_parse(s, o, argc, args, nargs);
}

/* Expects words to fail with exactly msg. */
static void expect_error(const char **words, const char *msg)
{
	struct opts o;
	int n = 0;

	assert_int_equal(parse_words(&spec, &o, words, &n), SC_EINVAL);
	assert_string_equal(sc_error_last(), msg);
	sc_options_release(&spec, &o);
}

static void test_every_kind(void **state)
{
	const char *w[] = { "demo", "--repo", "r1", "--runs=7", "--temperature", "0.5", "-m", "a",
		      "--model=b", "-mc", "-v", "-z", "--offline", "--mode", "fast", NULL };
	struct opts o;
	int n = -1;

	(void)state;
	assert_int_equal(parse_words(&spec, &o, w, &n), 0);
	assert_int_equal(n, 0);
	assert_string_equal(o.repo, "r1");
	assert_int_equal(o.runs, 7);
	assert_true(fabs(o.temperature - 0.5) < 1e-12);
	assert_int_equal(o.nmodels, 3);
	assert_string_equal(o.models[0], "a");
	assert_string_equal(o.models[1], "b");
	assert_string_equal(o.models[2], "c");
	assert_null(o.models[3]);
	assert_true(o.verbose && o.zap && o.offline);
	assert_string_equal(o.mode, "fast");
	assert_int_equal(o.called, 1);
	sc_options_release(&spec, &o);
	assert_null(o.models);
	assert_int_equal(o.nmodels, 0);
}

static void test_arguments_in_order(void **state)
{
	const char *w[] = { "demo", "d1", "-v", "d2", "--repo", "r", "-", "d3", NULL };
	struct opts o;
	int n = 0;

	(void)state;
	assert_int_equal(parse_words(&spec, &o, w, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(args[1], "d1");
	assert_string_equal(args[2], "d2");
	assert_string_equal(args[3], "-");  /* standard input, an argument */
	assert_string_equal(args[4], "d3");
	assert_string_equal(o.repo, "r");
	assert_true(o.verbose);
}

static void test_double_dash_ends_options(void **state)
{
	const char *w[] = { "demo", "a", "--", "--repo", "-v", NULL };
	struct opts o;
	int n = 0;

	(void)state;
	assert_int_equal(parse_words(&spec, &o, w, &n), 0);
	assert_int_equal(n, 3);
	assert_string_equal(args[1], "a");
	assert_string_equal(args[2], "--repo");
	assert_string_equal(args[3], "-v");
	assert_null(o.repo);
	assert_false(o.verbose);
}

static void test_in_order_stops_at_first_argument(void **state)
{
	static const struct sc_options ordered = { "demo", NULL, NULL, NULL, table,
						   SC_OPTS_IN_ORDER };
	const char *w[] = { "demo", "-v", "copy", "--repo", "x", "-z", NULL };
	struct opts o;
	int n = 0;

	(void)state;
	assert_int_equal(parse_words(&ordered, &o, w, &n), 0);
	assert_int_equal(n, 4);
	assert_string_equal(args[1], "copy");
	assert_string_equal(args[2], "--repo");
	assert_string_equal(args[4], "-z");
	assert_true(o.verbose);
	assert_false(o.zap);
	assert_null(o.repo);
}

static void test_repeated_options(void **state)
{
	const char *w[] = { "demo", "--repo", "a", "--repo=b", "--runs", "2", "--runs", "3", "-v", "-v",
		      NULL };
	struct opts o;
	int n = 0;

	(void)state;
	assert_int_equal(parse_words(&spec, &o, w, &n), 0);
	assert_string_equal(o.repo, "b");  /* the last one wins */
	assert_int_equal(o.runs, 3);
	assert_true(o.verbose);
}

static void test_equals_form(void **state)
{
	const char *w[] = { "demo", "--repo=a=b", "--store=", "--temperature=2", NULL };
	struct opts o;
	int n = 0;

	(void)state;
	assert_int_equal(parse_words(&spec, &o, w, &n), 0);
	assert_string_equal(o.repo, "a=b");  /* split at the first '=' */
	assert_string_equal(o.store, "");    /* an empty value is a value */
	assert_true(o.temperature == 2.0);
}

static void test_value_that_looks_like_an_option(void **state)
{
	const char *w[] = { "demo", "--repo", "-v", "-m", "--store", NULL };
	struct opts o;
	int n = 0;

	(void)state;
	assert_int_equal(parse_words(&spec, &o, w, &n), 0);
	assert_string_equal(o.repo, "-v");  /* a value is the next word, whatever it is */
	assert_false(o.verbose);
	assert_string_equal(o.models[0], "--store");
	assert_null(o.store);
	sc_options_release(&spec, &o);
}

static void test_prefixes(void **state)
{
	const char *w[] = { "demo", "--rep", "x", "--temp=1", "--verb", NULL };
	const char *amb[] = { "demo", "--ru", "3", NULL };
	struct opts o;
	int n = 0;

	(void)state;
	assert_int_equal(parse_words(&spec, &o, w, &n), 0);
	assert_string_equal(o.repo, "x");
	assert_true(o.temperature == 1.0);
	assert_true(o.verbose);
	expect_error(amb, "option '--ru' is ambiguous; spell it out");
}

static void test_exact_name_beats_prefix(void **state)
{
	const char *w[] = { "demo", "--runs", "5", NULL };
	struct opts o;
	int n = 0;

	(void)state;
	/* "runs" is also a prefix of nothing else, but "rubric-runs" starts
	 * with "ru": the exact name is taken without asking */
	assert_int_equal(parse_words(&spec, &o, w, &n), 0);
	assert_int_equal(o.runs, 5);
}

static void test_greedy_list(void **state)
{
	const char *w[] = { "demo", "r.json", "--history", "a", "b", "c", "-v", "d", NULL };
	const char *none[] = { "demo", "--history", "-v", NULL };
	struct opts o;
	int n = 0;

	(void)state;
	assert_int_equal(parse_words(&spec, &o, w, &n), 0);
	assert_int_equal(o.nhistory, 3);
	assert_string_equal(o.history[2], "c");
	assert_int_equal(n, 2);
	assert_string_equal(args[1], "r.json");
	assert_string_equal(args[2], "d");
	assert_true(o.verbose);
	sc_options_release(&spec, &o);
	expect_error(none, "option '--history' needs a value");
}

static void test_help(void **state)
{
	const char *l[] = { "demo", "a", "--help", "--bogus", NULL };
	const char *s[] = { "demo", "-vh", NULL };
	const char *p[] = { "demo", "--he", NULL };
	const char *v[] = { "demo", "--help=1", NULL };
	struct opts o;
	int n = 0;

	(void)state;
	assert_int_equal(parse_words(&spec, &o, l, &n), SC_OPTIONS_HELP);
	assert_int_equal(parse_words(&spec, &o, s, &n), SC_OPTIONS_HELP);
	assert_int_equal(parse_words(&spec, &o, p, &n), SC_OPTIONS_HELP);
	expect_error(v, "option '--help' takes no value");
}

static void test_errors(void **state)
{
	const char *unknown_long[] = { "demo", "--bogus", NULL };
	const char *unknown_eq[] = { "demo", "a", "--bogus=1", NULL };
	const char *unknown_short[] = { "demo", "-vq", NULL };
	const char *no_value_long[] = { "demo", "--repo", NULL };
	const char *no_value_short[] = { "demo", "-m", NULL };
	const char *flag_value[] = { "demo", "--verbose=yes", NULL };
	const char *bad_int[] = { "demo", "--runs", "3x", NULL };
	const char *big_int[] = { "demo", "--runs=99999999999", NULL };
	const char *empty_int[] = { "demo", "--runs=", NULL };
	const char *bad_double[] = { "demo", "--temperature", "x", NULL };
	const char *nan_double[] = { "demo", "--temperature", "nan", NULL };
	const char *high_double[] = { "demo", "--temperature", "2.5", NULL };
	const char *too_many[] = { "demo", "-m", "a", "-m", "b", "-m", "c", "-m", "d", NULL };
	const char *callback[] = { "demo", "--mode", "medium", NULL };

	(void)state;
	expect_error(unknown_long, "unknown option '--bogus'");
	expect_error(unknown_eq, "unknown option '--bogus'");
	expect_error(unknown_short, "unknown option '-q'");
	expect_error(no_value_long, "option '--repo' needs a value");
	expect_error(no_value_short, "option '-m' needs a value");
	expect_error(flag_value, "option '--verbose' takes no value");
	expect_error(bad_int, "option '--runs' wants a whole number from 1 to 1000, not '3x'");
	expect_error(big_int,
		     "option '--runs' wants a whole number from 1 to 1000, not '99999999999'");
	expect_error(empty_int, "option '--runs' wants a whole number from 1 to 1000, not ''");
	expect_error(bad_double, "option '--temperature' wants a number from 0 to 2, not 'x'");
	expect_error(nan_double, "option '--temperature' wants a number from 0 to 2, not 'nan'");
	expect_error(high_double, "option '--temperature' wants a number from 0 to 2, not '2.5'");
	expect_error(too_many, "option '--model' takes at most 3 values");
	expect_error(callback, "option '--mode': 'medium' is not fast or slow");
}

static void test_nonempty(void **state)
{
	static const struct sc_options strict = { "demo", NULL, NULL, NULL, table,
						  SC_OPTS_NONEMPTY };
	const char *w[] = { "demo", "--store", "", NULL };
	const char *eq[] = { "demo", "-m=", NULL };
	struct opts o;
	int n = 0;

	(void)state;
	assert_int_equal(parse_words(&strict, &o, w, &n), SC_EINVAL);
	assert_string_equal(sc_error_last(),
			    "option '--store' needs a value, not an empty string");
	assert_int_equal(parse_words(&strict, &o, eq, &n), 0);  /* "-m=": the value is "=" */
	assert_string_equal(o.models[0], "=");
	sc_options_release(&strict, &o);
}

static void test_usage_from_the_table(void **state)
{
	struct sc_buf u = SC_BUF_INIT;

	(void)state;
	sc_options_usage(&u, &spec);
	/* the usage line: the arguments, then every listed option */
	assert_non_null(strstr(u.ptr, "usage: skillci demo DIR... [--repo R] [--runs N]"));
	assert_non_null(strstr(u.ptr, "[-m MODEL...]"));
	assert_non_null(strstr(u.ptr, "[-v]"));
	assert_null(strstr(u.ptr, "--offline"));      /* not listed: no help */
	assert_null(strstr(u.ptr, "rubric-runs"));
	assert_non_null(strstr(u.ptr, "\nDoes the demo.\n"));
	/* one column of help; a second line under the first */
	assert_non_null(strstr(u.ptr, "\n  --repo R           repository path or URL\n"));
	assert_non_null(strstr(u.ptr, "\n  -m, --model MODEL  student model (repeat)\n"
				      "                     second line of its help\n"));
	assert_non_null(strstr(u.ptr, "\n  -z                 zap\n"));
	assert_non_null(strstr(u.ptr, "\n  -h, --help         this help\n"));
	assert_true(sc_ends_with(u.ptr, "\nexit codes: 0.\n"));
	/* no line of the usage is wider than 88 columns */
	for (const char *p = u.ptr, *e; *p; p = e + 1) {
		e = strchr(p, '\n');
		assert_non_null(e);
		assert_true(e - p <= 88);
	}
	sc_buf_release(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_kind),
		cmocka_unit_test(test_arguments_in_order),
		cmocka_unit_test(test_double_dash_ends_options),
		cmocka_unit_test(test_in_order_stops_at_first_argument),
		cmocka_unit_test(test_repeated_options),
		cmocka_unit_test(test_equals_form),
		cmocka_unit_test(test_value_that_looks_like_an_option),
		cmocka_unit_test(test_prefixes),
		cmocka_unit_test(test_exact_name_beats_prefix),
		cmocka_unit_test(test_greedy_list),
		cmocka_unit_test(test_help),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_nonempty),
		cmocka_unit_test(test_usage_from_the_table),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
