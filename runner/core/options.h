#ifndef SC_OPTIONS_H
#define SC_OPTIONS_H
/*
 * A command's options, declared once in a table (as git's parse-options):
 * each entry names the option (--long and/or -x), the kind of its value,
 * where the value goes in the command's options struct and the help line.
 * sc_options_parse() fills the struct from argv against the table, and
 * sc_options_usage() writes the usage text from the same table, so an
 * option is written once (plus the docs).
 *
 *   struct eval_opts { const char *store; int runs; bool verbose; };
 *   static const struct sc_option eval_options[] = {
 *	SC_OPT_INT("runs", 0, struct eval_opts, runs, 1, 1000, "N", "runs per test"),
 *	SC_OPT_STRING("store", 0, struct eval_opts, store, "LOCATION", "results store"),
 *	SC_OPT_FLAG("verbose", 'v', struct eval_opts, verbose, "per-test lines"),
 *	SC_OPT_END,
 *   };
 *
 * What the parser accepts: --name VALUE, --name=VALUE, -x VALUE, -xVALUE,
 * grouped short flags (-vz), a unique prefix of a long name (--max-r), "--"
 * ending the options, "-" as an argument. -h and --help are every
 * command's. Arguments that are not options are kept in order wherever
 * they stand (or, with SC_OPTS_IN_ORDER, the first one ends the options).
 */

#include <stdbool.h>
#include <stddef.h>

#include "buf.h"

enum sc_opt_kind {
	SC_OPT_KIND_END = 0,  /* the table's last entry */
	SC_OPT_KIND_FLAG,     /* bool: set true; no value */
	SC_OPT_KIND_STRING,   /* const char *: the value, borrowed from argv */
	SC_OPT_KIND_INT,      /* int: a whole number from min to max */
	SC_OPT_KIND_DOUBLE,   /* double: a number from min to max */
	SC_OPT_KIND_LIST,     /* const char *const * and a size_t count: each value, in
			       * order (an array the parser allocates: sc_options_release) */
	SC_OPT_KIND_CALLBACK, /* fn(opts, value): the command reads the value itself */
};

/* Entry flags. */
enum {
	SC_OPT_NONEMPTY = 1 << 0,  /* an empty value ("") is an error */
	SC_OPT_GREEDY = 1 << 1,    /* LIST: takes every following argument up to the
				    * next one that starts with '-' (--history A B C) */
};

/* Table flags (struct sc_options.flags). */
enum {
	SC_OPTS_IN_ORDER = 1 << 0,   /* the first argument that is not an option ends the
				      * options (a subcommand's own options follow it) */
	SC_OPTS_NONEMPTY = 1 << 1,   /* no option's value may be empty */
};

struct sc_option {
	enum sc_opt_kind kind;
	const char *name;      /* the long name without "--", or NULL */
	char short_name;       /* the letter of -x, or 0 */
	size_t off;            /* of the value in the options struct */
	size_t count_off;      /* LIST: of its size_t count */
	double min, max;       /* INT, DOUBLE: the range; LIST: most values (0: any) */
	/* CALLBACK: takes the value (NULL for a flag); returns 0, or a negative
	 * SC_E* code with its message set (sc_error_set) */
	int (*fn)(void *opts, const char *value);
	bool takes_value;      /* CALLBACK: whether it has a value */
	const char *value;     /* the value's name in the help: "N", "FILE" */
	const char *help;      /* the help text, lines separated by '\n'; NULL: not listed */
	unsigned flags;        /* SC_OPT_* */
};

/* A command's table and the text around its option list in the usage. */
struct sc_options {
	const char *cmd;       /* "run": the usage line and errors name it */
	const char *args;      /* the arguments in the usage line ("DIR..."), or NULL */
	const char *about;     /* the paragraph after the usage line, or NULL */
	const char *footer;    /* the text after the option list, or NULL */
	const struct sc_option *opts;  /* ends with SC_OPT_END */
	unsigned flags;        /* SC_OPTS_* */
};

/* sc_options_parse(): --help or -h was given (nothing else is checked after it). */
#define SC_OPTIONS_HELP 1

/*
 * Parses argv[1..argc) (argv[0] is the command's name) against the table
 * into opts, the command's options struct (values not given are left as
 * they are: set defaults first). The arguments that are not options are
 * moved, in order, to argv[1..*nargs] (the strings are not copied).
 * Returns 0, SC_OPTIONS_HELP, or SC_EINVAL with one message naming the
 * option: "unknown option '--bogus'" (or '-x'), "option '--runs' needs a
 * value", "option '--help' takes no value", "option '--ru' is ambiguous;
 * spell it out", "option '--runs' wants a whole number from 1 to 1000, not
 * '3x'", "option '--temperature' wants a number from 0 to 2, not 'x'",
 * "option '--store' needs a value, not an empty string", "option '--model'
 * takes at most 64 values"; a callback's error comes as "option '--agent':
 * MESSAGE". Lists filled before an error are still the caller's to release.
 */
int sc_options_parse(const struct sc_options *spec, void *opts, int argc, char **argv,
		     int *nargs);

/* Frees the arrays of the table's LIST options in opts (and zeroes them). */
void sc_options_release(const struct sc_options *spec, void *opts);

/*
 * Appends the usage text: "usage: skillci CMD ARGS [--opt V]...", wrapped;
 * the about paragraph; one entry per listed option ("  -m, --model M  help"),
 * the help in one column; -h, --help; the footer.
 */
void sc_options_usage(struct sc_buf *out, const struct sc_options *spec);

/*
 * Table entries. T is the options struct, f the member (a member of a
 * member too: popt.runs). The value's type is checked at compile time:
 * the comparison of pointers of different types does not compile with
 * -Werror.
 */
#define SC_OPT_OFF_(T, f, type) \
	(offsetof(T, f) + 0 * sizeof(&((T *)0)->f == (type *)0))
#define SC_OPT_FLAG(name, s, T, f, help) \
	{ SC_OPT_KIND_FLAG, name, s, SC_OPT_OFF_(T, f, bool), 0, 0, 0, NULL, false, NULL, help, 0 }
#define SC_OPT_STRING(name, s, T, f, value, help) \
	{ SC_OPT_KIND_STRING, name, s, SC_OPT_OFF_(T, f, const char *), 0, 0, 0, NULL, true, \
	  value, help, 0 }
#define SC_OPT_INT(name, s, T, f, min, max, value, help) \
	{ SC_OPT_KIND_INT, name, s, SC_OPT_OFF_(T, f, int), 0, min, max, NULL, true, value, help, 0 }
#define SC_OPT_DOUBLE(name, s, T, f, min, max, value, help) \
	{ SC_OPT_KIND_DOUBLE, name, s, SC_OPT_OFF_(T, f, double), 0, min, max, NULL, true, value, \
	  help, 0 }
#define SC_OPT_LIST(name, s, T, f, nf, most, value, help) \
	{ SC_OPT_KIND_LIST, name, s, SC_OPT_OFF_(T, f, const char *const *), \
	  SC_OPT_OFF_(T, nf, size_t), 0, most, NULL, true, value, help, 0 }
/* LIST that takes every following argument up to the next option (SC_OPT_GREEDY) */
#define SC_OPT_GREEDY_LIST(name, s, T, f, nf, most, value, help) \
	{ SC_OPT_KIND_LIST, name, s, SC_OPT_OFF_(T, f, const char *const *), \
	  SC_OPT_OFF_(T, nf, size_t), 0, most, NULL, true, value, help, SC_OPT_GREEDY }
#define SC_OPT_CALLBACK(name, s, fn, value, help) \
	{ SC_OPT_KIND_CALLBACK, name, s, 0, 0, 0, 0, fn, (value) != NULL, value, help, 0 }
/* A number macro as a string, for a help text: "0 to " SC_OPT_NUM(SC_GEN_MAX_REFINE). */
#define SC_OPT_NUM(x) SC_OPT_NUM_(x)
#define SC_OPT_NUM_(x) #x
#define SC_OPT_END { SC_OPT_KIND_END, NULL, 0, 0, 0, 0, 0, NULL, false, NULL, NULL, 0 }

#endif
