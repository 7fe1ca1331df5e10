#include "common.h"
#include "output.h"

#include <ctype.h>
#include <pthread.h>
#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

_Noreturn void sc_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("fatal: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(SC_EXIT_INFRA);
}

void *sc_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		sc_die("out of memory allocating %zu bytes", n);
	return p;
}

void *sc_xcalloc(size_t count, size_t n)
{
	void *p = calloc(count ? count : 1, n ? n : 1);
	if (!p)
		sc_die("out of memory allocating %zu x %zu bytes", count, n);
	return p;
}

void *sc_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q)
		sc_die("out of memory allocating %zu bytes", n);
	return q;
}

char *sc_xstrdup(const char *s)
{
	return sc_xstrndup(s, strlen(s));
}

char *sc_xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = sc_xmalloc(len + 1);
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void sc_grow_array(void **array, size_t *alloc, size_t need, size_t elem)
{
	size_t n;

	if (need <= *alloc)
		return;
	n = *alloc ? *alloc : 8;
	while (n < need)
		n *= 2;
	if (n > SIZE_MAX / elem)
		sc_die("array size overflow");
	*array = sc_xrealloc(*array, n * elem);
	memset((char *)*array + *alloc * elem, 0, (n - *alloc) * elem);
	*alloc = n;
}

bool sc_starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool sc_streq(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

int sc_strcmp_qsort(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int sc_parse_int(int *out, const char *s, int min, int max)
{
	const char *p = *s == '-' || *s == '+' ? s + 1 : s;
	char *end;
	long long v;

	if (!(*p >= '0' && *p <= '9'))
		return sc_error_set(SC_EINVAL, "'%s' is not a whole number", s);
	errno = 0;
	v = strtoll(s, &end, 10);
	if (*end)
		return sc_error_set(SC_EINVAL, "'%s' is not a whole number", s);
	if (errno == ERANGE || v < min || v > max)
		return sc_error_set(SC_ELIMIT, "'%s' is not from %d to %d", s, min, max);
	*out = (int)v;
	return 0;
}

bool sc_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

int sc_read_file(struct sc_buf *out, const char *path, size_t cap)
{
	char chunk[65536];
	struct stat st;
	size_t start = out->len;
	ssize_t n;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return sc_error_set(errno == ENOENT ? SC_ENOTFOUND : SC_EIO,
				    "cannot open '%s': %s", path, strerror(errno));
	if (fstat(fd, &st) < 0) {
		err = sc_error_set(SC_EIO, "cannot stat '%s': %s", path, strerror(errno));
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		err = sc_error_set(SC_EINVAL, "'%s' is not a regular file", path);
		goto done;
	}
	if ((uint64_t)st.st_size > cap) {
		err = sc_error_set(SC_ELIMIT, "'%s' is %lld bytes, more than the limit of %zu",
				   path, (long long)st.st_size, cap);
		goto done;
	}
	for (;;) {
		n = read(fd, chunk, sizeof(chunk));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			err = sc_error_set(SC_EIO, "cannot read '%s': %s", path, strerror(errno));
			goto done;
		}
		if (n == 0)
			break;
		if (out->len - start + (size_t)n > cap) {
			err = sc_error_set(SC_ELIMIT, "'%s' grew past the limit of %zu bytes", path, cap);
			goto done;
		}
		sc_buf_put(out, chunk, (size_t)n);
	}
done:
	if (err < 0)
		sc_buf_truncate(out, start);
	close(fd);
	return err;
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* write_all() of data with every registered secret redacted (output.h). */
static int write_redacted(int fd, const char *p, size_t len)
{
	struct sc_buf red = SC_BUF_INIT;
	int err;

	if (sc_output_redact_to(&red, p, len))
		err = write_all(fd, red.ptr, red.len);
	else
		err = write_all(fd, p, len);
	sc_buf_release(&red);
	return err;
}

#define ATOMIC_FLUSH_BYTES (256 * 1024)

/* Keeps the first failure of f: "what 'path': strerror". */
static void atomic_fail(struct sc_atomic_file *f, const char *what)
{
	if (f->err)
		return;
	f->err = sc_error_set(SC_EIO, "%s '%s': %s", what, f->path.ptr, strerror(errno));
	sc_buf_sets(&f->msg, sc_error_last());
}

/*
 * Opens an existing target that is not a regular file (a character
 * device, a FIFO) to be written in place: renaming over it would replace
 * /dev/null with a regular file, or a FIFO its reader waits on. Returns
 * 1 when f->fd is that target, 0 when the target is to be replaced by
 * rename (missing, a regular file, a symlink: the link itself is
 * replaced, never the file it points to), or an error. O_NOFOLLOW and
 * the fstat() after open() keep a swapped-in link or regular file from
 * being written through or half overwritten.
 */
static int open_in_place(struct sc_atomic_file *f, const char *path)
{
	struct stat st;
	int fd;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout") || !strcmp(path, "/dev/fd/1")) {
		fflush(stdout);  /* what stdio holds comes first */
		f->fd = STDOUT_FILENO;
		f->borrowed = true;
		return 1;
	}
	if (!strcmp(path, "/dev/stderr") || !strcmp(path, "/dev/fd/2")) {
		fflush(stderr);
		f->fd = STDERR_FILENO;
		f->borrowed = true;
		return 1;
	}
	/* Nothing under /dev is ever renamed over: its links (/dev/fd/N,
	 * /dev/tty...) are the system's, followed and written in place. */
	bool system_dev = !strncmp(path, "/dev/", 5);
	if (lstat(path, &st) < 0 || (!system_dev && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))))
		return 0;
	fd = open(path, O_WRONLY | O_NOCTTY | (system_dev ? 0 : O_NOFOLLOW) | O_CLOEXEC);
	if (fd < 0) {
		atomic_fail(f, "cannot write");
		return f->err;
	}
	if (!system_dev && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	f->fd = fd;
	return 1;
}

int sc_atomic_open(struct sc_atomic_file *f, const char *path)
{
	int in_place;

	memset(f, 0, sizeof(*f));
	f->fd = -1;
	sc_buf_init(&f->path);
	sc_buf_init(&f->tmp);
	sc_buf_init(&f->pending);
	sc_buf_init(&f->msg);
	sc_buf_puts(&f->path, path);
	if ((in_place = open_in_place(f, path)) != 0) {
		f->in_place = in_place > 0;
		return f->err;
	}
	sc_buf_printf(&f->tmp, "%s.tmp.XXXXXX", path);
	f->fd = mkstemp(f->tmp.ptr);
	if (f->fd < 0) {
		atomic_fail(f, "cannot create a temporary file for");
		sc_buf_clear(&f->tmp);
		return f->err;
	}
	if (fchmod(f->fd, 0644) < 0)
		atomic_fail(f, "cannot write");
	return f->err;
}

/*
 * Writes the bytes of b, redacted. Before the end (!all) only up to the
 * last line break, so a secret is never split between two writes, unless
 * no line break came in 16 times the flush size.
 */
static void flush_buf(struct sc_atomic_file *f, struct sc_buf *b, bool all)
{
	size_t n = b->len;

	if (!all)
		while (n > 0 && b->ptr[n - 1] != '\n')
			n--;
	if (!all && n == 0 && b->len < 16 * ATOMIC_FLUSH_BYTES)
		return;
	if (n == 0)
		n = b->len;
	if (!f->err && n && write_redacted(f->fd, b->ptr, n) < 0)
		atomic_fail(f, "cannot write");
	memmove(b->ptr, b->ptr + n, b->len - n);
	sc_buf_truncate(b, b->len - n);
}

/* Writes the pending bytes (all: to the end). */
static void atomic_flush(struct sc_atomic_file *f, bool all)
{
	flush_buf(f, &f->pending, all);
}

/*
 * The writing thread: the caller fills f->pending and, when it is full,
 * swaps it with next (waiting while next is still full); the thread takes
 * next, taps it, and writes it through its own buffer as flush_buf()
 * would. Until the thread is joined, only it touches f's file, err and
 * msg.
 */
struct sc_atomic_writer {
	pthread_t th;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct sc_buf next, work, out;
	bool busy;   /* the thread holds bytes it has not tapped */
	bool done;   /* nothing more comes: write all and end */
	void (*tap)(void *arg, const void *data, size_t len);
	void *arg;
	struct sc_atomic_file *f;
};

/*
 * flush_buf() of the thread's bytes, then the disk asked to start on
 * them (a file it will rename: sc_atomic_commit()'s fsync then waits
 * only for the last of them, not for the whole file).
 */
static void writer_flush(struct sc_atomic_writer *w, bool all)
{
	struct sc_atomic_file *f = w->f;
	off_t from = f->in_place ? -1 : lseek(f->fd, 0, SEEK_CUR), to;

	flush_buf(f, &w->out, all);
	if (from >= 0 && !f->err && (to = lseek(f->fd, 0, SEEK_CUR)) > from)
		(void)sync_file_range(f->fd, from, to - from, SYNC_FILE_RANGE_WRITE);
}

static void *writer_main(void *v)
{
	struct sc_atomic_writer *w = v;
	struct sc_buf t;

	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->next.len && !w->done)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->next.len)
			break;
		/* take next: the caller may fill it again meanwhile */
		t = w->work;
		w->work = w->next;
		w->next = t;
		sc_buf_clear(&w->next);
		w->busy = true;
		pthread_mutex_unlock(&w->mu);
		if (w->tap)
			w->tap(w->arg, w->work.ptr, w->work.len);
		pthread_mutex_lock(&w->mu);
		w->busy = false;
		pthread_cond_broadcast(&w->cv);
		pthread_mutex_unlock(&w->mu);
		if (w->out.len) {
			sc_buf_put(&w->out, w->work.ptr, w->work.len);
		} else {
			/* nothing carried over: the piece itself, not a copy */
			t = w->out;
			w->out = w->work;
			w->work = t;
		}
		writer_flush(w, false);
		pthread_mutex_lock(&w->mu);
	}
	pthread_mutex_unlock(&w->mu);
	writer_flush(w, true);
	return NULL;
}

void sc_atomic_background(struct sc_atomic_file *f,
			  void (*tap)(void *arg, const void *data, size_t len), void *arg)
{
	struct sc_atomic_writer *w;

	if (f->bg || f->err)
		return;
	w = sc_xcalloc(1, sizeof(*w));
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	sc_buf_init(&w->next);
	sc_buf_init(&w->work);
	/* what came before goes first, untapped, a line never cut in two */
	w->out = f->pending;
	sc_buf_init(&f->pending);
	w->tap = tap;
	w->arg = arg;
	w->f = f;
	if (pthread_create(&w->th, NULL, writer_main, w) != 0) {
		f->pending = w->out;
		pthread_mutex_destroy(&w->mu);
		pthread_cond_destroy(&w->cv);
		free(w);
		if (tap)
			f->tap = tap, f->tap_arg = arg;
		return;
	}
	f->bg = w;
}

/* Hands f->pending to the thread (waiting while it holds the last). */
static void writer_give(struct sc_atomic_writer *w, struct sc_buf *pending)
{
	pthread_mutex_lock(&w->mu);
	while (w->next.len)
		pthread_cond_wait(&w->cv, &w->mu);
	struct sc_buf t = w->next;
	w->next = *pending;
	*pending = t;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

/* f's thread, given what f holds; NULL without one. */
static struct sc_atomic_writer *writer_given_all(struct sc_atomic_file *f)
{
	if (f->bg && f->pending.len)
		writer_give(f->bg, &f->pending);
	return f->bg;
}

/* Ends the thread once it has written everything given to it. */
static void writer_end(struct sc_atomic_file *f)
{
	struct sc_atomic_writer *w = writer_given_all(f);

	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->done = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->th, NULL);
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	sc_buf_release(&w->next);
	sc_buf_release(&w->work);
	sc_buf_release(&w->out);
	free(w);
	f->bg = NULL;
}

void sc_atomic_sync_tap(struct sc_atomic_file *f)
{
	struct sc_atomic_writer *w = writer_given_all(f);

	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	while (w->next.len || w->busy)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

void sc_atomic_write(struct sc_atomic_file *f, const void *data, size_t len)
{
	if (f->bg) {
		/* f->err is the thread's until it ends: it drops what comes after one */
		sc_buf_put(&f->pending, data, len);
		if (f->pending.len >= ATOMIC_FLUSH_BYTES)
			writer_give(f->bg, &f->pending);
		return;
	}
	if (f->err)
		return;
	if (f->tap)
		f->tap(f->tap_arg, data, len);
	sc_buf_put(&f->pending, data, len);
	if (f->pending.len >= ATOMIC_FLUSH_BYTES)
		atomic_flush(f, false);
}

void sc_atomic_puts(struct sc_atomic_file *f, const char *s)
{
	sc_atomic_write(f, s, strlen(s));
}

static void atomic_release(struct sc_atomic_file *f)
{
	if (f->fd >= 0 && !f->borrowed)
		close(f->fd);
	f->fd = -1;
	if (f->tmp.len)
		unlink(f->tmp.ptr);
	sc_buf_release(&f->path);
	sc_buf_release(&f->tmp);
	sc_buf_release(&f->pending);
	sc_buf_release(&f->msg);
}

int sc_atomic_commit(struct sc_atomic_file *f)
{
	int err;

	writer_end(f);
	atomic_flush(f, true);
	/* a device or a FIFO written in place: nothing to sync or rename */
	if (!f->err && !f->in_place && fsync(f->fd) < 0)
		atomic_fail(f, "cannot write");
	if (f->fd >= 0 && !f->borrowed && close(f->fd) < 0)
		atomic_fail(f, "cannot write");
	f->fd = -1;
	if (!f->err && !f->in_place && rename(f->tmp.ptr, f->path.ptr) < 0)
		atomic_fail(f, "cannot rename onto");
	else if (!f->err)
		sc_buf_clear(&f->tmp);  /* renamed: nothing to remove */
	err = f->err;
	if (err < 0)
		sc_error_set(err, "%s", f->msg.ptr);  /* the first error, not a later one */
	atomic_release(f);
	return err;
}

void sc_atomic_abort(struct sc_atomic_file *f)
{
	sc_buf_clear(&f->pending);  /* removed anyway: not written */
	writer_end(f);
	atomic_release(f);
}

void sc_mem_hint_large(void *p, size_t n)
{
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + n) & ~(huge - 1);

	if (e > a)
		(void)madvise((void *)a, e - a, MADV_HUGEPAGE);
}

int sc_write_file_atomic(const char *path, const void *data, size_t len)
{
	struct sc_atomic_file f;

	if (sc_atomic_open(&f, path) < 0) {
		int err = f.err;
		sc_atomic_abort(&f);
		return err;
	}
	if (len && write_redacted(f.fd, data, len) < 0)
		atomic_fail(&f, "cannot write");
	return sc_atomic_commit(&f);
}

/*
 * A .skillci folder that skillci has just created (work folders, caches,
 * the store, reports) ignores itself in git: a ".gitignore" of "*" inside
 * it, written only where none is, so the user's `git status` stays clean.
 */
static int ignore_own_folder(const char *dir)
{
	const char *base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	struct sc_buf path = SC_BUF_INIT;
	int fd, err = 0;

	if (strcmp(base, SC_OWN_FOLDER))
		return 0;
	sc_path_join(&path, dir, ".gitignore");
	fd = open(path.ptr, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0 && errno != EEXIST)
		err = sc_error_set(SC_EIO, "cannot create '%s': %s", path.ptr, strerror(errno));
	if (fd >= 0) {
		bool ok = write_all(fd, "*\n", 2) == 0;
		if (close(fd) < 0)
			ok = false;
		if (!ok)
			err = sc_error_set(SC_EIO, "cannot write '%s': %s", path.ptr, strerror(errno));
	}
	sc_buf_release(&path);
	return err;
}

int sc_mkdir_p(const char *path)
{
	struct sc_buf p = SC_BUF_INIT;
	int err = 0;
	size_t i;

	sc_buf_puts(&p, path);
	for (i = 1; i <= p.len; i++) {
		if (p.ptr[i] != '/' && p.ptr[i] != '\0')
			continue;
		p.ptr[i] = '\0';
		if (mkdir(p.ptr, 0755) < 0) {
			if (errno != EEXIST) {
				err = sc_error_set(SC_EIO, "cannot create folder '%s': %s", p.ptr,
						   strerror(errno));
				break;
			}
		} else if ((err = ignore_own_folder(p.ptr)) < 0) {
			break;
		}
		if (i < p.len)
			p.ptr[i] = '/';
	}
	sc_buf_release(&p);
	return err;
}

int sc_rm_rf(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	struct sc_buf child = SC_BUF_INIT;
	int err = 0;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : sc_error_set(SC_EIO, "cannot stat '%s': %s", path, strerror(errno));
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) < 0)
			return sc_error_set(SC_EIO, "cannot remove '%s': %s", path, strerror(errno));
		return 0;
	}
	d = opendir(path);
	if (!d)
		return sc_error_set(SC_EIO, "cannot open folder '%s': %s", path, strerror(errno));
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		sc_path_join(&child, path, e->d_name);
		if ((err = sc_rm_rf(child.ptr)) < 0)
			break;
	}
	closedir(d);
	sc_buf_release(&child);
	if (err == 0 && rmdir(path) < 0)
		err = sc_error_set(SC_EIO, "cannot remove folder '%s': %s", path, strerror(errno));
	return err;
}

void sc_path_join(struct sc_buf *out, const char *a, const char *b)
{
	sc_buf_clear(out);
	sc_buf_puts(out, a);
	while (out->len > 1 && out->ptr[out->len - 1] == '/')
		sc_buf_truncate(out, out->len - 1);
	while (*b == '/')
		b++;
	if (out->len && out->ptr[out->len - 1] != '/' && *b)
		sc_buf_putc(out, '/');
	sc_buf_puts(out, b);
}

bool sc_path_is_safe_relative(const char *rel)
{
	const char *p = rel;

	if (!*rel || *rel == '/')
		return false;
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return false;
		if (!slash)
			break;
		p = slash + 1;
	}
	return true;
}

size_t sc_utf8_decode(const char *s, size_t n, uint32_t *cp)
{
	const unsigned char *u = (const unsigned char *)s;
	uint32_t c = u[0];
	size_t len;

	if (c < 0x80) {
		*cp = c;
		return 1;
	} else if (c >= 0xC2 && c <= 0xDF) {
		len = 2; c &= 0x1F;
	} else if (c >= 0xE0 && c <= 0xEF) {
		len = 3; c &= 0x0F;
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4; c &= 0x07;
	} else {
		return 0;  /* a continuation byte, C0/C1 (always overlong), F5..FF */
	}
	if (len > n)
		return 0;
	for (size_t k = 1; k < len; k++) {
		if ((u[k] & 0xC0) != 0x80)
			return 0;
		c = (c << 6) | (u[k] & 0x3F);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10FFFF)) ||
	    (c >= 0xD800 && c <= 0xDFFF))
		return 0;
	*cp = c;
	return len;
}

bool sc_utf8_check(const char *s, size_t len, size_t *bad_at)
{
	size_t i = 0;

	while (i < len) {
		uint32_t cp;
		size_t n = sc_utf8_decode(s + i, len - i, &cp);

		if (!n) {
			if (bad_at)
				*bad_at = i;
			return false;
		}
		i += n;
	}
	return true;
}

size_t sc_utf8_count(const char *s, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			n++;
	return n;
}

int64_t sc_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t sc_now_ms(void)
{
	return sc_now_ns() / 1000000;
}

void sc_time_iso8601(struct sc_buf *out, int64_t unix_seconds)
{
	time_t t = (time_t)unix_seconds;
	struct tm tm;
	char s[32];

	gmtime_r(&t, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%SZ", &tm);
	sc_buf_puts(out, s);
}

void sc_random_bytes(void *out, size_t n)
{
	unsigned char *p = out;
	size_t got = 0;

	while (got < n) {
		ssize_t r = getrandom(p + got, n - got, 0);
		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		break;
	}
	if (got < n) {
		int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
		while (fd >= 0 && got < n) {
			ssize_t r = read(fd, p + got, n - got);
			if (r <= 0 && !(r < 0 && errno == EINTR))
				break;
			if (r > 0)
				got += (size_t)r;
		}
		if (fd >= 0)
			close(fd);
	}
	if (got < n)
		sc_die("no random source (getrandom and /dev/urandom both failed)");
}

void sc_hex(struct sc_buf *out, const unsigned char *bytes, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		sc_buf_putc(out, digits[bytes[i] >> 4]);
		sc_buf_putc(out, digits[bytes[i] & 15]);
	}
}

int sc_hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

size_t sc_edit_distance(const char *a, const char *b)
{
	enum { MAX = SC_EDIT_DISTANCE_MAX };
	size_t n = strlen(a), m = strlen(b), rows[3][MAX + 1];
	size_t *two = rows[0], *prev = rows[1], *cur = rows[2];

	if (n > MAX || m > MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= m; j++)
		prev[j] = j;
	for (size_t i = 1; i <= n; i++) {
		int ai = tolower((unsigned char)a[i - 1]);
		cur[0] = i;
		for (size_t j = 1; j <= m; j++) {
			int bj = tolower((unsigned char)b[j - 1]);
			size_t best = prev[j - 1] + (ai != bj);
			if (prev[j] + 1 < best)
				best = prev[j] + 1;
			if (cur[j - 1] + 1 < best)
				best = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ai == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == bj && two[j - 2] + 1 < best)
				best = two[j - 2] + 1;
			cur[j] = best;
		}
		size_t *t = two;
		two = prev;
		prev = cur;
		cur = t;
	}
	return prev[m];
}
