#include "common.h"

#include <pthread.h>
#include <stdarg.h>

static enum sc_log_level threshold = SC_LOG_INFO;
static char trace_areas[256];
static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

void sc_log_set_level(enum sc_log_level level)
{
	threshold = level;
}

enum sc_log_level sc_log_get_level(void)
{
	return threshold;
}

void sc_log_init_from_env(void)
{
	const char *t = getenv("SKILLCI_TRACE");
	snprintf(trace_areas, sizeof(trace_areas), ",%s,", t ? t : "");
}

static void vlog(const char *prefix, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&log_lock);
	fputs(prefix, stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	pthread_mutex_unlock(&log_lock);
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
