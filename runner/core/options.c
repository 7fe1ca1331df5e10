/* A command's options from one table: parsing argv, writing the usage (options.h). */
#include "common.h"
#include "options.h"

#define HELP_COLUMN_MAX 24  /* the widest option column; a longer one puts its help below */
#define USAGE_WIDTH 88      /* the usage line is wrapped before this column */

/* Whether name (n bytes) is "help" or a prefix of it. */
static bool is_help(const char *name, size_t n)
{
	return n <= 4 && !strncmp("help", name, n);
}

/* The value's place in opts. */
static void *field(void *opts, const struct sc_option *o)
{
	return (char *)opts + o->off;
}

/* Whether the option has a value (--name VALUE) or is a flag. */
static bool takes_value(const struct sc_option *o)
{
	return o->kind == SC_OPT_KIND_CALLBACK ? o->takes_value : o->kind != SC_OPT_KIND_FLAG;
}

/* How an option is named in an error: --long when it has one, else -x. */
static void display_name(struct sc_buf *out, const struct sc_option *o)
{
	sc_buf_clear(out);
	if (o->name)
		sc_buf_printf(out, "--%s", o->name);
	else
		sc_buf_printf(out, "-%c", o->short_name);
}

/* Appends value to a LIST option's array (kept NULL-terminated), up to its most. */
static int append_list(void *opts, const struct sc_option *o, const char *value,
		       const char *shown)
{
	const char ***items = (const char ***)field(opts, o);
	size_t *n = (size_t *)((char *)opts + o->count_off);

	if (o->max > 0 && (double)*n >= o->max)
		return sc_error_set(SC_EINVAL, "option '%s' takes at most %.0f values", shown, o->max);
	*items = sc_xrealloc((void *)*items, (*n + 2) * sizeof(**items));
	(*items)[(*n)++] = value;
	(*items)[*n] = NULL;
	return 0;
}

/*
 * Stores value (NULL for a flag) as o says. shown names the option in an
 * error (its long name, else -x).
 */
static int store(void *opts, const struct sc_option *o, const char *value, unsigned table_flags)
{
	struct sc_buf shown = SC_BUF_INIT;
	int err = 0;

	display_name(&shown, o);
	if (value && !*value && ((o->flags & SC_OPT_NONEMPTY) || (table_flags & SC_OPTS_NONEMPTY)) &&
	    o->kind != SC_OPT_KIND_INT && o->kind != SC_OPT_KIND_DOUBLE) {
		err = sc_error_set(SC_EINVAL, "option '%s' needs a value, not an empty string",
				   shown.ptr);
		goto done;
	}
	switch (o->kind) {
	case SC_OPT_KIND_FLAG:
		*(bool *)field(opts, o) = true;
		break;
	case SC_OPT_KIND_STRING:
		*(const char **)field(opts, o) = value;
		break;
	case SC_OPT_KIND_INT: {
		int v;
		if (sc_parse_int(&v, value, (int)o->min, (int)o->max) < 0)
			err = sc_error_set(SC_EINVAL, "option '%s' wants a whole number from %d to "
					   "%d, not '%s'", shown.ptr, (int)o->min, (int)o->max, value);
		else
			*(int *)field(opts, o) = v;
		break;
	}
	case SC_OPT_KIND_DOUBLE: {
		char *end;
		double v = strtod(value, &end);
		/* written so that NaN, which compares false with everything, fails */
		if (end == value || *end || !(v >= o->min && v <= o->max))
			err = sc_error_set(SC_EINVAL, "option '%s' wants a number from %g to %g, "
					   "not '%s'", shown.ptr, o->min, o->max, value);
		else
			*(double *)field(opts, o) = v;
		break;
	}
	case SC_OPT_KIND_LIST:
		err = append_list(opts, o, value, shown.ptr);
		break;
	case SC_OPT_KIND_CALLBACK:
		if ((err = o->fn(opts, value)) < 0) {
			char *msg = sc_xstrdup(sc_error_last());
			err = sc_error_set(err, "option '%s': %s", shown.ptr, msg);
			free(msg);
		}
		break;
	case SC_OPT_KIND_END:
		break;
	}
done:
	sc_buf_release(&shown);
	return err;
}

/*
 * The entry --name (n bytes as typed, before any '='): the exact name, else
 * the one option it abbreviates. Sets *help for --help (or a prefix of it
 * that abbreviates nothing else). NULL with the error set otherwise.
 */
static const struct sc_option *find_long(const struct sc_option *opts, const char *name,
					 size_t n, bool *help)
{
	const struct sc_option *hit = NULL;
	size_t matches = 0;

	*help = false;
	for (const struct sc_option *o = opts; o->kind != SC_OPT_KIND_END; o++)
		if (o->name && strlen(o->name) == n && !strncmp(o->name, name, n))
			return o;
	if (n == 4 && !strncmp(name, "help", 4)) {
		*help = true;
		return NULL;
	}
	for (const struct sc_option *o = opts; o->kind != SC_OPT_KIND_END; o++)
		if (o->name && n > 0 && !strncmp(o->name, name, n)) {
			hit = o;
			matches++;
		}
	matches += n > 0 && is_help(name, n);
	if (matches > 1) {
		sc_error_set(SC_EINVAL, "option '--%.*s' is ambiguous; spell it out", (int)n, name);
		return NULL;
	}
	if (!hit && n > 0 && is_help(name, n)) {
		*help = true;
		return NULL;
	}
	if (!hit)
		sc_error_set(SC_EINVAL, "unknown option '--%.*s'", (int)n, name);
	return hit;
}

static const struct sc_option *find_short(const struct sc_option *opts, char c)
{
	for (const struct sc_option *o = opts; o->kind != SC_OPT_KIND_END; o++)
		if (o->short_name && o->short_name == c)
			return o;
	return NULL;
}

/* A long option at argv[*i] ("--name", "--name=value"); *i moves past its value. */
static int parse_long(const struct sc_options *spec, void *opts, int argc, char **argv, int *i)
{
	const char *arg = argv[*i] + 2, *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
	const struct sc_option *o;
	const char *value = NULL;
	bool help;

	o = find_long(spec->opts, arg, n, &help);
	if (help && eq)
		return sc_error_set(SC_EINVAL, "option '--%.*s' takes no value", (int)n, arg);
	if (help)
		return SC_OPTIONS_HELP;
	if (!o)
		return SC_EINVAL;
	if (!takes_value(o)) {
		if (eq)
			return sc_error_set(SC_EINVAL, "option '--%.*s' takes no value", (int)n, arg);
		return store(opts, o, NULL, spec->flags);
	}
	if (eq) {
		value = eq + 1;
	} else if (*i + 1 < argc) {
		value = argv[++*i];
	} else {
		return sc_error_set(SC_EINVAL, "option '--%.*s' needs a value", (int)n, arg);
	}
	if (o->kind == SC_OPT_KIND_LIST && (o->flags & SC_OPT_GREEDY)) {
		int err;
		if (!eq && value[0] == '-') {
			--*i;
			return sc_error_set(SC_EINVAL, "option '--%.*s' needs a value", (int)n, arg);
		}
		if ((err = store(opts, o, value, spec->flags)) < 0)
			return err;
		while (*i + 1 < argc && argv[*i + 1][0] != '-')
			if ((err = store(opts, o, argv[++*i], spec->flags)) < 0)
				return err;
		return 0;
	}
	return store(opts, o, value, spec->flags);
}

/* A group of short options at argv[*i] ("-v", "-vz", "-mhaiku", "-m haiku"). */
static int parse_short(const struct sc_options *spec, void *opts, int argc, char **argv, int *i)
{
	const char *p = argv[*i] + 1;
	int err;

	for (; *p; p++) {
		const struct sc_option *o = find_short(spec->opts, *p);
		if (!o && *p == 'h')
			return SC_OPTIONS_HELP;
		if (!o)
			return sc_error_set(SC_EINVAL, "unknown option '-%c'", *p);
		if (!takes_value(o)) {
			if ((err = store(opts, o, NULL, spec->flags)) < 0)
				return err;
			continue;
		}
		if (p[1])
			return store(opts, o, p + 1, spec->flags);
		if (*i + 1 >= argc)
			return sc_error_set(SC_EINVAL, "option '-%c' needs a value", *p);
		return store(opts, o, argv[++*i], spec->flags);
	}
	return 0;
}

int sc_options_parse(const struct sc_options *spec, void *opts, int argc, char **argv,
		     int *nargs)
{
	int n = 0, i, err = 0;
	bool only_args = false;

	for (i = 1; i < argc; i++) {
		const char *arg = argv[i];
		if (only_args || arg[0] != '-' || !arg[1]) {
			argv[1 + n++] = argv[i];
			only_args = only_args || (spec->flags & SC_OPTS_IN_ORDER);
			continue;
		}
		if (!strcmp(arg, "--")) {
			only_args = true;
			continue;
		}
		err = arg[1] == '-' ? parse_long(spec, opts, argc, argv, &i)
				    : parse_short(spec, opts, argc, argv, &i);
		if (err)
			break;
	}
	*nargs = n;
	return err;
}

void sc_options_release(const struct sc_options *spec, void *opts)
{
	for (const struct sc_option *o = spec->opts; o->kind != SC_OPT_KIND_END; o++) {
		const char ***items;
		if (o->kind != SC_OPT_KIND_LIST)
			continue;
		items = (const char ***)field(opts, o);
		free((void *)*items);
		*items = NULL;
		*(size_t *)((char *)opts + o->count_off) = 0;
	}
}

/* "-m, --model M", "--repo R", "-v": an option as the usage lists it. */
static void left_column(struct sc_buf *out, const struct sc_option *o)
{
	if (o->short_name && o->name)
		sc_buf_printf(out, "-%c, --%s", o->short_name, o->name);
	else if (o->short_name)
		sc_buf_printf(out, "-%c", o->short_name);
	else
		sc_buf_printf(out, "--%s", o->name);
	if (takes_value(o) && o->value)
		sc_buf_printf(out, " %s", o->value);
}

/* "[--repo R]", "[-m MODEL...]", "[-v]": an option in the usage line (the short
 * form when there is one). */
static void synopsis_item(struct sc_buf *out, const struct sc_option *o)
{
	sc_buf_putc(out, '[');
	if (o->short_name)
		sc_buf_printf(out, "-%c", o->short_name);
	else
		sc_buf_printf(out, "--%s", o->name);
	if (takes_value(o) && o->value)
		sc_buf_printf(out, " %s", o->value);
	if (o->kind == SC_OPT_KIND_LIST)
		sc_buf_puts(out, "...");
	sc_buf_putc(out, ']');
}

static void put_paragraph(struct sc_buf *out, const char *text)
{
	if (!text)
		return;
	sc_buf_printf(out, "\n%s", text);
	if (*text && text[strlen(text) - 1] != '\n')
		sc_buf_putc(out, '\n');
}

void sc_options_usage(struct sc_buf *out, const struct sc_options *spec)
{
	struct sc_buf item = SC_BUF_INIT;
	size_t indent, col, width = 0;

	/* the usage line: the command, its arguments, then each option */
	sc_buf_printf(out, "usage: skillci %s", spec->cmd);
	indent = strlen("usage: skillci ") + strlen(spec->cmd) + 1;
	col = indent - 1;
	if (spec->args) {
		sc_buf_printf(out, " %s", spec->args);
		col += 1 + strlen(spec->args);
	}
	for (const struct sc_option *o = spec->opts; o->kind != SC_OPT_KIND_END; o++) {
		if (!o->help)
			continue;
		sc_buf_clear(&item);
		synopsis_item(&item, o);
		if (col + 1 + item.len > USAGE_WIDTH && col > indent) {
			sc_buf_printf(out, "\n%*s", (int)indent - 1, "");
			col = indent - 1;
		}
		sc_buf_printf(out, " %s", item.ptr);
		col += 1 + item.len;
	}
	sc_buf_putc(out, '\n');
	put_paragraph(out, spec->about);

	/* the option list: the help in one column */
	for (const struct sc_option *o = spec->opts; o->kind != SC_OPT_KIND_END; o++) {
		if (!o->help)
			continue;
		sc_buf_clear(&item);
		left_column(&item, o);
		if (item.len + 4 <= HELP_COLUMN_MAX && item.len + 4 > width)
			width = item.len + 4;
	}
	sc_buf_putc(out, '\n');
	for (const struct sc_option *o = spec->opts; o->kind != SC_OPT_KIND_END; o++) {
		const char *line, *end;
		if (!o->help)
			continue;
		sc_buf_clear(&item);
		left_column(&item, o);
		sc_buf_printf(out, "  %s", item.ptr);
		if (item.len + 4 > width)
			sc_buf_printf(out, "\n%*s", (int)width, "");
		else
			sc_buf_printf(out, "%*s", (int)(width - item.len - 2), "");
		for (line = o->help; ; line = end + 1) {
			end = strchr(line, '\n');
			if (line != o->help)
				sc_buf_printf(out, "%*s", (int)width, "");
			sc_buf_printf(out, "%.*s\n", end ? (int)(end - line) : (int)strlen(line), line);
			if (!end)
				break;
		}
	}
	sc_buf_clear(&item);
	left_column(&item, &(struct sc_option){ SC_OPT_KIND_FLAG, "help", 'h', 0, 0, 0, 0, NULL,
						false, NULL, NULL, 0 });
	sc_buf_printf(out, "  %s%*sthis help\n", item.ptr,
		      item.len + 4 > width ? 2 : (int)(width - item.len - 2), "");
	put_paragraph(out, spec->footer);
	sc_buf_release(&item);
}
