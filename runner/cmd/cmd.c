/* Helpers shared by the cmd-*.c files: error printing and exit codes. */
#include "common.h"
#include "cmd/cmd.h"

#include <stdarg.h>

int sc_cmd_fail(int err)
{
	const char *msg = sc_error_last();
	fprintf(stderr, "error: %s\n", *msg ? msg : sc_error_name(err));
	return sc_error_exit_code(err);
}

int sc_cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "error: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\nsee 'skillci %s --help'\n", cmd);
	return SC_EXIT_USAGE;
}

int sc_cmd_finish(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		fprintf(stderr, "error: cannot write to standard output: %s\n", strerror(errno));
		return SC_EXIT_INFRA;
	}
	return code;
}
