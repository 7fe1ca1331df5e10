#ifndef SC_UTIL_H
#define SC_UTIL_H
/*
 * Small helpers every module uses: allocation that aborts on failure (as
 * git and redis do), bounded file reads, atomic writes, paths, UTF-8, time.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* Prints "fatal: ..." to stderr and exits with SC_EXIT_INFRA. */
_Noreturn void sc_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void *sc_xmalloc(size_t n);
void *sc_xcalloc(size_t count, size_t n);
void *sc_xrealloc(void *p, size_t n);
char *sc_xstrdup(const char *s);
char *sc_xstrndup(const char *s, size_t n);
/* Grows *array (of *alloc elements of size elem) to hold at least need. */
void sc_grow_array(void **array, size_t *alloc, size_t need, size_t elem);
#define SC_GROW(arr, alloc, need) \
	sc_grow_array((void **)&(arr), &(alloc), (need), sizeof(*(arr)))

bool sc_starts_with(const char *s, const char *prefix);
/* Equal strings; false when either is NULL. */
bool sc_streq(const char *a, const char *b);
/* qsort() comparator for an array of char pointers. */
int sc_strcmp_qsort(const void *a, const void *b);
bool sc_ends_with(const char *s, const char *suffix);
/*
 * Parses s as a whole decimal number from min to max: an optional sign
 * and digits, nothing before or after ("3x", " 3", "1e3" and "" are not
 * numbers). Returns 0 and sets *out; SC_EINVAL for what is not a whole
 * number, SC_ELIMIT for one out of range (*out untouched either way).
 */
int sc_parse_int(int *out, const char *s, int min, int max);

/*
 * Reads the whole file at path into out (appended), refusing files larger
 * than cap bytes with SC_ELIMIT. Errors name the path.
 */
int sc_read_file(struct sc_buf *out, const char *path, size_t cap);
/*
 * Writes data to path atomically: a temp file in the same folder, fsync,
 * rename. A reader sees the old file or the whole new one, never half.
 * Only a regular file, a missing path or a symlink is replaced that way
 * (a symlink is replaced by the new file; the file it points to is left
 * alone). Any other existing target (a character device such as
 * /dev/null, a FIFO) is opened and written in place, never replaced;
 * "-" (and /dev/stdout, /dev/fd/1) is stdout, /dev/stderr (/dev/fd/2)
 * stderr, written in place too; nothing under /dev/ is ever renamed over
 * (its links are the system's: followed, written in place).
 * Every registered secret in data is redacted on the way (output.h), here
 * and in sc_atomic_write(): these are the writer layer for files.
 */
int sc_write_file_atomic(const char *path, const void *data, size_t len);

/*
 * The same, written in pieces (a report too large to build in memory
 * first): sc_atomic_open() creates the temp file, sc_atomic_write()
 * appends (buffered; the first error is kept and later writes do
 * nothing), sc_atomic_commit() flushes, fsyncs and renames onto the path
 * (returning the first error, the temp file removed), sc_atomic_abort()
 * removes the temp file. Either ends it.
 */
struct sc_atomic_file {
	int fd;
	int err;
	struct sc_buf path, tmp, pending, msg;  /* msg: the first error's message */
	bool in_place;  /* fd is the target itself (a device, a FIFO, stdout) */
	bool borrowed;  /* fd is stdout: not closed */
	struct sc_atomic_writer *bg;  /* the writing thread (sc_atomic_background) */
	void (*tap)(void *arg, const void *data, size_t len);  /* without one */
	void *tap_arg;
};
int sc_atomic_open(struct sc_atomic_file *f, const char *path);
void sc_atomic_write(struct sc_atomic_file *f, const void *data, size_t len);
void sc_atomic_puts(struct sc_atomic_file *f, const char *s);
int sc_atomic_commit(struct sc_atomic_file *f);
void sc_atomic_abort(struct sc_atomic_file *f);
/*
 * Hands f's redacting and writing to a second thread, so that they go on
 * while the caller makes what comes next (a large report); when it
 * cannot start, f goes on as before. tap, when set, is called on that
 * thread with every byte given to sc_atomic_write() from then on, in
 * order and before redaction (a signature's hash). The file's errors
 * come from sc_atomic_commit(), as before.
 */
void sc_atomic_background(struct sc_atomic_file *f,
			  void (*tap)(void *arg, const void *data, size_t len), void *arg);
/* Returns once tap has seen every byte written so far. */
void sc_atomic_sync_tap(struct sc_atomic_file *f);
/*
 * Asks the kernel to back the 2 MiB pages inside [p, p + n) with huge
 * pages (transparent huge pages, where it offers them "on madvise"): a
 * buffer of a large file is then filled with a fault per 2 MiB instead of
 * one per 4 KiB. A hint: nothing changes where it is not taken.
 */
void sc_mem_hint_large(void *p, size_t n);
/* The folder skillci keeps its own files in (work, cache, store, reports). */
#define SC_OWN_FOLDER ".skillci"
/*
 * Creates path and its parents (mode 0755); existing folders are fine. A
 * SC_OWN_FOLDER it creates gets a ".gitignore" of "*" (none is overwritten).
 */
int sc_mkdir_p(const char *path);
/* Removes a file or a whole tree (never follows symlinks). Missing is fine. */
int sc_rm_rf(const char *path);
/* Sets out to "a/b", with exactly one slash between. */
void sc_path_join(struct sc_buf *out, const char *a, const char *b);
/* True when rel is a relative path with no ".." component and no NUL. */
bool sc_path_is_safe_relative(const char *rel);

/*
 * UTF-8: sc_utf8_decode() decodes the sequence at s (n > 0 bytes left):
 * its length (1 to 4) and *cp, or 0 when the bytes there are not valid
 * UTF-8 (a stray continuation byte, an overlong form, a surrogate, a code
 * point above U+10FFFF, a sequence cut short by n). sc_utf8_check()
 * returns true when s[0..len) is valid UTF-8; otherwise false and *bad_at
 * the byte offset of the first invalid sequence. sc_utf8_count() counts
 * code points.
 */
size_t sc_utf8_decode(const char *s, size_t n, uint32_t *cp);
bool sc_utf8_check(const char *s, size_t len, size_t *bad_at);
size_t sc_utf8_count(const char *s, size_t len);

/* Monotonic clock in milliseconds / nanoseconds; wall clock in seconds. */
int64_t sc_now_ms(void);
int64_t sc_now_ns(void);
/* Writes an ISO-8601 UTC timestamp ("2026-11-30T14:33:12Z") into out. */
void sc_time_iso8601(struct sc_buf *out, int64_t unix_seconds);

/*
 * n bytes from the kernel's random source (getrandom, else /dev/urandom):
 * seeds and nonces that nothing outside this process can predict. Dies
 * when neither is available (a machine without one cannot keep secrets).
 */
void sc_random_bytes(void *out, size_t n);

/* Lowercase hex of n bytes into out (appended). */
void sc_hex(struct sc_buf *out, const unsigned char *bytes, size_t n);
/* The value of one hex digit (either case), or -1 when c is not one. */
int sc_hex_value(int c);

/*
 * Edit distance between a and b, ignoring ASCII case: insertions,
 * deletions, substitutions and swaps of two neighbours ("rnu" is 1 from
 * "run"), each counting one; for "did you mean" suggestions. SIZE_MAX
 * when either is longer than SC_EDIT_DISTANCE_MAX bytes.
 */
#define SC_EDIT_DISTANCE_MAX 64
size_t sc_edit_distance(const char *a, const char *b);

#endif
