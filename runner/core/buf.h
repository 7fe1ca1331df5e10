#ifndef SC_BUF_H
#define SC_BUF_H
/*
 * struct sc_buf: the one growable byte buffer. Always NUL-terminated (ptr is
 * never NULL; an empty buffer points at a shared ""), so ptr can be used as
 * a C string when the content has no NUL. The buffer owns its memory;
 * sc_buf_detach() is the only way to take it.
 */
#include <stdarg.h>
#include <stddef.h>

struct sc_buf {
	char *ptr;
	size_t len;
	size_t cap;  /* 0 while ptr is the shared empty string */
};

extern char sc_buf__empty[1];
#define SC_BUF_INIT { sc_buf__empty, 0, 0 }

void sc_buf_init(struct sc_buf *buf);
/* Frees the memory and resets to empty. */
void sc_buf_release(struct sc_buf *buf);
/* Makes room for extra more bytes (plus the NUL). */
void sc_buf_grow(struct sc_buf *buf, size_t extra);
void sc_buf_put(struct sc_buf *buf, const void *data, size_t len);
void sc_buf_puts(struct sc_buf *buf, const char *s);
void sc_buf_putc(struct sc_buf *buf, char c);
void sc_buf_printf(struct sc_buf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sc_buf_vprintf(struct sc_buf *buf, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Appends unless the result would exceed cap bytes; then SC_ELIMIT, buffer unchanged. */
int sc_buf_put_capped(struct sc_buf *buf, const void *data, size_t len, size_t cap);
void sc_buf_truncate(struct sc_buf *buf, size_t len);
void sc_buf_clear(struct sc_buf *buf);
/* Takes the memory (caller frees); the buffer is left empty. Never NULL. */
char *sc_buf_detach(struct sc_buf *buf, size_t *len_out);
/* Replaces the content with a copy of s. */
void sc_buf_sets(struct sc_buf *buf, const char *s);
/* Removes trailing whitespace. */
void sc_buf_rtrim(struct sc_buf *buf);

#endif
