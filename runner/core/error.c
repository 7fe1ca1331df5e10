#include "common.h"

#include <stdarg.h>

static _Thread_local char last_msg[4096];
static _Thread_local int last_code;

static void vset(const char *fmt, va_list ap)
{
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
}

int sc_error_set(int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vset(fmt, ap);
	va_end(ap);
	last_code = code;
	return code;
}

int sc_error_wrap(int code, const char *fmt, ...)
{
	char old[sizeof(last_msg)];
	size_t n;
	va_list ap;

	memcpy(old, last_msg, sizeof(old));
	va_start(ap, fmt);
	vsnprintf(last_msg, sizeof(last_msg), fmt, ap);
	va_end(ap);
	n = strlen(last_msg);
	if (old[0] && n + 2 < sizeof(last_msg)) {
		memcpy(last_msg + n, ": ", 2);
		memcpy(last_msg + n + 2, old, strnlen(old, sizeof(last_msg) - n - 3));
		last_msg[n + 2 + strnlen(old, sizeof(last_msg) - n - 3)] = '\0';
	}
	last_code = code;
	return code;
}

const char *sc_error_last(void)
{
	return last_msg;
}

int sc_error_code(void)
{
	return last_code;
}

void sc_error_clear(void)
{
	last_msg[0] = '\0';
	last_code = 0;
}

const char *sc_error_name(int code)
{
	switch (code) {
	case SC_OK: return "ok";
	case SC_EINVAL: return "invalid input";
	case SC_ENOTFOUND: return "not found";
	case SC_EIO: return "i/o error";
	case SC_ELIMIT: return "limit exceeded";
	case SC_EPARSE: return "parse error";
	case SC_ENET: return "network error";
	case SC_EAUTH: return "authentication failed";
	case SC_EUNSAFE: return "refused as unsafe";
	case SC_ENOSYS: return "not available in this build";
	case SC_EINTR: return "interrupted";
	case SC_EGPU: return "gpu error";
	case SC_EEXISTS: return "already exists";
	default: return "error";
	}
}

int sc_error_exit_code(int code)
{
	switch (code) {
	case SC_ENET:
	case SC_EGPU:
	case SC_EIO:
	case SC_EINTR:
		return SC_EXIT_INFRA;
	default:
		return SC_EXIT_USAGE;
	}
}
