/* Helpers shared by the cmd-*.c files: error printing, exit codes, provider settings. */
#include "common.h"
#include "cmd/cmd.h"
#include "diag.h"
#include "escape.h"
#include "pipeline/config.h"
#include "results/store.h"

#include <signal.h>
#include <stdarg.h>

/* Messages name paths, revisions and server replies: each goes through
 * the escaping routine before it reaches the log (escape.h). */
int sc_cmd_fail(int err)
{
	const char *msg = sc_error_last();
	struct sc_buf line = SC_BUF_INIT;

	sc_escape_log(&line, *msg ? msg : sc_error_name(err));
	fprintf(stderr, "error: %s\n", line.ptr);
	sc_buf_release(&line);
	return sc_error_exit_code(err);
}

int sc_cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	struct sc_buf msg = SC_BUF_INIT, line = SC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	sc_escape_log(&line, msg.ptr);
	fprintf(stderr, "error: %s\nsee 'skillci %s --help'\n", line.ptr, cmd);
	sc_buf_release(&msg);
	sc_buf_release(&line);
	return SC_EXIT_USAGE;
}

int sc_cmd_finish(int code)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		/* The reader went away (skillci ... | head): end as any tool
		 * would, by SIGPIPE, which main() ignores only so that a dead
		 * kernel worker is an EPIPE. */
		if (errno == EPIPE) {
			signal(SIGPIPE, SIG_DFL);
			raise(SIGPIPE);
		}
		fprintf(stderr, "error: cannot write to standard output: %s\n", strerror(errno));
		return SC_EXIT_INFRA;
	}
	return code;
}

int sc_cmd_load_providers(struct sc_config *cfg, const char *config_path)
{
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_buf line = SC_BUF_INIT;
	int err, rc = SC_EXIT_OK;

	err = sc_config_load(cfg, ".", config_path, &diags);
	for (size_t i = 0; i < diags.n; i++) {
		if (diags.items[i].sev != SC_SEV_ERROR)
			continue;
		sc_buf_clear(&line);
		sc_diag_format(&line, &diags.items[i]);
		fprintf(stderr, "%s\n", line.ptr);
	}
	if (err < 0)
		rc = sc_cmd_fail(err == SC_ENOTFOUND ? SC_EINVAL : err);
	else if (sc_diags_count(&diags, SC_SEV_ERROR))
		rc = SC_EXIT_USAGE;
	else if ((err = sc_config_apply_providers(cfg)) < 0)
		rc = sc_cmd_fail(err);
	sc_diags_release(&diags);
	sc_buf_release(&line);
	return rc;
}

int sc_cmd_open_store(struct sc_store **out, const char *location, bool existing)
{
	int err = existing ? sc_store_open_existing(out, location) : sc_store_open(out, location);

	if (err == SC_ENOTFOUND) {
		fprintf(stderr, "error: %s; evaluate first (skillci eval or run) or name one with "
			"--store or $%s\n", sc_error_last(), SC_STORE_ENV);
		return SC_EXIT_USAGE;
	}
	if (err < 0)
		return sc_cmd_fail(err == SC_EINVAL ? SC_EINVAL : SC_EIO);
	return 0;
}
