#include "common.h"

#include <stdarg.h>

char sc_buf__empty[1];

void sc_buf_init(struct sc_buf *buf)
{
	buf->ptr = sc_buf__empty;
	buf->len = 0;
	buf->cap = 0;
}

void sc_buf_release(struct sc_buf *buf)
{
	if (buf->cap)
		free(buf->ptr);
	sc_buf_init(buf);
}

void sc_buf_grow(struct sc_buf *buf, size_t extra)
{
	size_t need, cap;

	if (extra > SIZE_MAX - buf->len - 1)
		sc_die("buffer size overflow");
	need = buf->len + extra + 1;
	if (need <= buf->cap)
		return;
	cap = buf->cap ? buf->cap : 64;
	while (cap < need)
		cap = cap < SIZE_MAX / 2 ? cap * 2 : need;
	if (buf->cap) {
		buf->ptr = sc_xrealloc(buf->ptr, cap);
	} else {
		buf->ptr = sc_xmalloc(cap);
		buf->ptr[0] = '\0';
	}
	buf->cap = cap;
}

void sc_buf_put(struct sc_buf *buf, const void *data, size_t len)
{
	if (!len)
		return;
	sc_buf_grow(buf, len);
	memmove(buf->ptr + buf->len, data, len);
	buf->len += len;
	buf->ptr[buf->len] = '\0';
}

void sc_buf_puts(struct sc_buf *buf, const char *s)
{
	sc_buf_put(buf, s, strlen(s));
}

void sc_buf_putc(struct sc_buf *buf, char c)
{
	sc_buf_put(buf, &c, 1);
}

/* Formats into the room the buffer has (at least 64 bytes made), and
 * again into more only when that was too little: one pass for nearly
 * every call, where measuring first took two. */
void sc_buf_vprintf(struct sc_buf *buf, const char *fmt, va_list ap)
{
	va_list cp;
	size_t room;
	int n;

	sc_buf_grow(buf, 64);
	room = buf->cap - buf->len;
	va_copy(cp, ap);
	n = vsnprintf(buf->ptr + buf->len, room, fmt, cp);
	va_end(cp);
	if (n < 0)
		sc_die("bad format string");
	if ((size_t)n >= room) {
		sc_buf_grow(buf, (size_t)n);
		vsnprintf(buf->ptr + buf->len, (size_t)n + 1, fmt, ap);
	}
	buf->len += (size_t)n;
}

void sc_buf_printf(struct sc_buf *buf, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sc_buf_vprintf(buf, fmt, ap);
	va_end(ap);
}

int sc_buf_put_capped(struct sc_buf *buf, const void *data, size_t len, size_t cap)
{
	if (len > cap || buf->len > cap - len)
		return sc_error_set(SC_ELIMIT, "more than %zu bytes", cap);
	sc_buf_put(buf, data, len);
	return 0;
}

void sc_buf_truncate(struct sc_buf *buf, size_t len)
{
	if (len >= buf->len)
		return;
	buf->len = len;
	buf->ptr[len] = '\0';
}

void sc_buf_clear(struct sc_buf *buf)
{
	sc_buf_truncate(buf, 0);
}

char *sc_buf_detach(struct sc_buf *buf, size_t *len_out)
{
	char *p;

	if (len_out)
		*len_out = buf->len;
	if (!buf->cap)
		p = sc_xstrdup("");
	else
		p = buf->ptr;
	sc_buf_init(buf);
	return p;
}

void sc_buf_sets(struct sc_buf *buf, const char *s)
{
	sc_buf_clear(buf);
	sc_buf_puts(buf, s);
}

void sc_buf_rtrim(struct sc_buf *buf)
{
	while (buf->len && strchr(" \t\r\n", buf->ptr[buf->len - 1]))
		buf->len--;
	if (buf->cap)
		buf->ptr[buf->len] = '\0';
}
