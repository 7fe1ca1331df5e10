#include "common.h"
#include "escape.h"

#include <pthread.h>
#include <stdarg.h>

static enum sc_log_level threshold = SC_LOG_INFO;
static char trace_areas[256];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void sc_log_set_level(enum sc_log_level level)
{
	threshold = level;
}

void sc_log_init_from_env(void)
{
	const char *t = getenv("SKILLCI_TRACE");
	snprintf(trace_areas, sizeof(trace_areas), ",%s,", t ? t : "");
}

/* One line: our prefix, then the message through the escaping routine
 * (messages carry names, paths and server text: escape.h). */
static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	struct sc_buf msg = SC_BUF_INIT, line = SC_BUF_INIT;

	sc_buf_vprintf(&msg, fmt, ap);
	sc_buf_puts(&line, prefix);
	sc_escape_log_n(&line, msg.ptr, msg.len);
	sc_buf_putc(&line, '\n');
	pthread_mutex_lock(&log_lock);
	fputs(line.ptr, stderr);
	pthread_mutex_unlock(&log_lock);
	sc_buf_release(&msg);
	sc_buf_release(&line);
}

void sc_log(enum sc_log_level level, const char *fmt, ...)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };
	va_list ap;

	if (level > threshold)
		return;
	va_start(ap, fmt);
	vlog(prefix[level], fmt, ap);
	va_end(ap);
}

bool sc_trace_on(const char *area)
{
	char key[64];

	if (!trace_areas[0] || !strcmp(trace_areas, ",,"))
		return false;
	if (strstr(trace_areas, ",all,"))
		return true;
	snprintf(key, sizeof(key), ",%s,", area);
	return strstr(trace_areas, key) != NULL;
}

void sc_trace(const char *area, const char *fmt, ...)
{
	char prefix[80];
	va_list ap;

	if (!sc_trace_on(area))
		return;
	snprintf(prefix, sizeof(prefix), "trace %s: ", area);
	va_start(ap, fmt);
	vlog(prefix, fmt, ap);
	va_end(ap);
}
