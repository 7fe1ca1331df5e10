/* The writer layer: the secrets registry and the guarded outputs (output.h). */
#include "common.h"
#include "output.h"
#include "redact.h"

#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

extern char **environ;

static struct sc_redact registry;
static size_t nsecrets;
static pthread_rwlock_t registry_lock = PTHREAD_RWLOCK_INITIALIZER;

void sc_output_add_secret(const char *value)
{
	if (!value || strlen(value) < 4)
		return;
	pthread_rwlock_wrlock(&registry_lock);
	sc_redact_add(&registry, value);
	nsecrets++;
	pthread_rwlock_unlock(&registry_lock);
}

/* How many secrets are registered. */
static size_t sc_output_nsecrets(void)
{
	size_t n;

	pthread_rwlock_rdlock(&registry_lock);
	n = nsecrets;
	pthread_rwlock_unlock(&registry_lock);
	return n;
}

/* Registers s[0..n) when it is long enough. */
static void add_span(const char *s, size_t n)
{
	char *v;

	if (n < 4)
		return;
	v = sc_xstrndup(s, n);
	sc_output_add_secret(v);
	memset(v, 0, n);
	free(v);
}

void sc_output_add_location_secrets(const char *location)
{
	static const char *const keys[] = { "password=", "sslpassword=" };
	const char *scheme, *at, *colon, *end;

	if (!location)
		return;
	/* scheme://user:password@host */
	if ((scheme = strstr(location, "://"))) {
		const char *auth = scheme + 3;
		end = auth + strcspn(auth, "/?#");
		at = NULL;
		for (const char *p = auth; p < end; p++)
			if (*p == '@')
				at = p;  /* the last '@' before the path */
		if (at && (colon = memchr(auth, ':', (size_t)(at - auth))))
			add_span(colon + 1, (size_t)(at - colon - 1));
	}
	/* password=VALUE in a query or a "key=value key=value" string */
	for (size_t k = 0; k < SC_ARRAY_SIZE(keys); k++) {
		size_t kl = strlen(keys[k]);
		for (const char *p = location; (p = strstr(p, keys[k])); p += kl) {
			const char *v = p + kl;
			char quote = 0;
			if (p != location && p[-1] != ' ' && p[-1] != '?' && p[-1] != '&' && p[-1] != '\t')
				continue;
			if (*v == '\'' || *v == '"')
				quote = *v++;
			end = quote ? strchr(v, quote) : v + strcspn(v, " \t&#");
			if (!end)
				end = v + strlen(v);
			add_span(v, (size_t)(end - v));
		}
	}
}

/* Names skillci reads a key from; any length of value counts. */
static const char *const known_names[] = {
	"GITHUB_TOKEN", "SKILLCI_GIT_TOKEN", "SKILLCI_RUNNER_KEY", "SKILLCI_CACHE_KEY",
	"PGPASSWORD", "HF_TOKEN", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "AZURE_OPENAI_API_KEY",
	"AZURE_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY",
	"DEEPSEEK_API_KEY", "XAI_API_KEY", "GROQ_API_KEY", "GENERIC_API_KEY",
};
static const char *const secret_endings[] = { "_API_KEY", "_KEY", "_TOKEN", "_SECRET", "_PASSWORD" };

static bool known_name(const char *name, size_t n)
{
	for (size_t i = 0; i < SC_ARRAY_SIZE(known_names); i++)
		if (strlen(known_names[i]) == n && !memcmp(known_names[i], name, n))
			return true;
	return false;
}

/* 1: a known name, 2: matched by its form only, 0: not a secret's name. */
static int name_class(const char *name, size_t n)
{
	char upper[256];

	if (known_name(name, n))
		return 1;
	if (n == 0 || n >= sizeof(upper))
		return 0;
	for (size_t i = 0; i < n; i++)
		upper[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
	upper[n] = '\0';
	for (size_t i = 0; i < SC_ARRAY_SIZE(secret_endings); i++) {
		size_t e = strlen(secret_endings[i]);
		if (n > e && !strcmp(upper + n - e, secret_endings[i]))
			return 2;
	}
	return strstr(upper, "SECRET") || strstr(upper, "PASSWORD") ? 2 : 0;
}

bool sc_output_secret_name(const char *name)
{
	return name && name_class(name, strlen(name)) != 0;
}

size_t sc_output_add_env_secrets(void)
{
	size_t before = sc_output_nsecrets();

	for (char **e = environ; e && *e; e++) {
		const char *eq = strchr(*e, '='), *v;
		int cls;
		if (!eq)
			continue;
		v = eq + 1;
		cls = name_class(*e, (size_t)(eq - *e));
		if (cls == 1 || (cls == 2 && strlen(v) >= SC_OUTPUT_MIN_SECRET_BY_FORM))
			sc_output_add_secret(v);
		if (strchr(v, '@') || strstr(v, "password="))
			sc_output_add_location_secrets(v);
	}
	return sc_output_nsecrets() - before;
}

bool sc_output_redact_to(struct sc_buf *out, const void *data, size_t len)
{
	bool hit;

	pthread_rwlock_rdlock(&registry_lock);
	hit = sc_redact_apply_to(&registry, out, data, len);
	pthread_rwlock_unlock(&registry_lock);
	return hit;
}

char *sc_output_redact_dup(const char *s)
{
	struct sc_buf out = SC_BUF_INIT;

	if (!s)
		return NULL;
	if (!sc_output_redact_to(&out, s, strlen(s)))
		return sc_xstrdup(s);
	return sc_buf_detach(&out, NULL);
}

/* ---- stdout and stderr ---------------------------------------------------- */

struct guard {
	int fd;
	bool hold;            /* hold a partial line (not a terminal) */
	bool failed;
	struct sc_buf pending;
};

static struct guard guards[2];
static bool guarded, draining;

static int write_fd(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Writes the first n pending bytes of g, redacted, and drops them. */
static int emit(struct guard *g, size_t n)
{
	struct sc_buf red = SC_BUF_INIT;
	int err = 0;

	if (!n)
		return 0;
	if (sc_output_redact_to(&red, g->pending.ptr, n))
		err = write_fd(g->fd, red.ptr, red.len);
	else
		err = write_fd(g->fd, g->pending.ptr, n);
	sc_buf_release(&red);
	memmove(g->pending.ptr, g->pending.ptr + n, g->pending.len - n);
	sc_buf_truncate(&g->pending, g->pending.len - n);
	if (err < 0)
		g->failed = true;
	return err;
}

/* The stream's write: called by stdio under the stream's lock. */
static ssize_t guard_write(void *cookie, const char *data, size_t n)
{
	struct guard *g = cookie;
	size_t cut;

	sc_buf_put(&g->pending, data, n);
	cut = g->pending.len;
	if (g->hold && !draining) {
		while (cut > 0 && g->pending.ptr[cut - 1] != '\n' && g->pending.ptr[cut - 1] != '\r')
			cut--;
		if (cut == 0 && g->pending.len >= SC_OUTPUT_HOLD_MAX)
			cut = g->pending.len;
	}
	if (emit(g, cut) < 0)
		return -1;
	return (ssize_t)n;
}

static int guard_close(void *cookie)
{
	struct guard *g = cookie;

	return emit(g, g->pending.len);
}

static FILE *guard_open(struct guard *g, int fd, int mode)
{
	cookie_io_functions_t io = { NULL, guard_write, NULL, guard_close };
	FILE *f;

	g->fd = fd;
	g->hold = !isatty(fd);
	sc_buf_init(&g->pending);
	if (!(f = fopencookie(g, "w", io)))
		sc_die("cannot set up the output stream: %s", strerror(errno));
	setvbuf(f, NULL, mode, BUFSIZ);
	return f;
}

static void guard_drain(void)
{
	(void)sc_output_flush();
}

void sc_output_guard_stdio(void)
{
	if (guarded)
		return;
	guarded = true;
	fflush(stdout);
	fflush(stderr);
	stdout = guard_open(&guards[0], STDOUT_FILENO, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF);
	stderr = guard_open(&guards[1], STDERR_FILENO, _IOLBF);
	atexit(guard_drain);
}

int sc_output_flush(void)
{
	int err = 0, saved = 0;

	if (fflush(stdout) != 0 || ferror(stdout)) {
		err = -1;
		saved = errno;
	}
	fflush(stderr);
	if (!guarded)
		goto done;
	for (size_t i = 0; i < SC_ARRAY_SIZE(guards); i++) {
		FILE *f = i == 0 ? stdout : stderr;
		flockfile(f);
		if (emit(&guards[i], guards[i].pending.len) < 0 && i == 0 && !err) {
			err = -1;
			saved = errno;
		}
		if (i == 0 && guards[i].failed && !err) {
			err = -1;
			saved = EIO;
		}
		funlockfile(f);
	}
done:
	if (err)
		errno = saved;
	return err;
}

/* ---- files ---------------------------------------------------------------- */

int sc_output_append_file(const char *path, const void *data, size_t len)
{
	struct sc_buf red = SC_BUF_INIT;
	int fd, err = 0;

	if (sc_output_redact_to(&red, data, len)) {
		data = red.ptr;
		len = red.len;
	}
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = sc_error_set(SC_EIO, "cannot open '%s': %s", path, strerror(errno));
		goto done;
	}
	if (write_fd(fd, data, len) < 0) {
		err = sc_error_set(SC_EIO, "cannot write '%s': %s", path, strerror(errno));
		close(fd);
		goto done;
	}
	if (close(fd) < 0)
		err = sc_error_set(SC_EIO, "cannot write '%s': %s", path, strerror(errno));
done:
	sc_buf_release(&red);
	return err;
}
