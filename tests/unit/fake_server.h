#ifndef SC_TEST_FAKE_SERVER_H
#define SC_TEST_FAKE_SERVER_H
/*
 * Runs tests/fakes/fake_models.py from a cmocka test: start it on a free
 * loopback port, change its script, read its counters and request log.
 * Admin calls use a plain socket (only runner/net/http.c talks curl).
 */
#include "unit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

struct fake {
	pid_t pid;
	int port;
	char *dir;
	char url[64];
	struct sc_buf log;  /* path of the JSONL request log */
};

static inline void fake_start(struct fake *f, const char *script)
{
	struct sc_buf path = SC_BUF_INIT, portfile = SC_BUF_INIT, data = SC_BUF_INIT;
	const char *root = getenv("SKILLCI_ROOT");

	memset(f, 0, sizeof(*f));
	sc_buf_init(&f->log);
	f->dir = sc_test_mkdtemp();
	sc_test_write(f->dir, "script.json", script ? script : "{}");
	sc_path_join(&f->log, f->dir, "requests.jsonl");
	sc_path_join(&portfile, f->dir, "port");
	sc_buf_printf(&path, "%s/tests/fakes/fake_models.py", root && *root ? root : ".");
	f->pid = fork();
	assert_true(f->pid >= 0);
	if (f->pid == 0) {
		struct sc_buf s = SC_BUF_INIT;
		sc_path_join(&s, f->dir, "script.json");
		if (!freopen("/dev/null", "w", stdout))
			_exit(127);
		execlp("python3", "python3", path.ptr, "--script", s.ptr, "--port-file",
		       portfile.ptr, "--log", f->log.ptr, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 400; i++) {
		sc_buf_clear(&data);
		if (sc_read_file(&data, portfile.ptr, 64) == 0 && data.len > 1)
			break;
		sc_error_clear();
		usleep(25000);
	}
	f->port = atoi(data.ptr);
	assert_true(f->port > 0);
	snprintf(f->url, sizeof(f->url), "http://127.0.0.1:%d", f->port);
	sc_buf_release(&path);
	sc_buf_release(&portfile);
	sc_buf_release(&data);
}

static inline void fake_stop(struct fake *f)
{
	if (f->pid > 0) {
		kill(f->pid, SIGTERM);
		waitpid(f->pid, NULL, 0);
	}
	f->pid = 0;
	if (f->dir)
		sc_rm_rf(f->dir);
	free(f->dir);
	f->dir = NULL;
	sc_buf_release(&f->log);
}

/* One HTTP/1.0 exchange with the fake; returns the response body (malloc'd). */
static inline char *fake_http(struct fake *f, const char *method, const char *path,
			      const char *body)
{
	struct sockaddr_in sa;
	struct sc_buf req = SC_BUF_INIT, resp = SC_BUF_INIT;
	char chunk[4096], *sep, *out;
	ssize_t n;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	assert_true(fd >= 0);
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)f->port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	sc_buf_printf(&req, "%s %s HTTP/1.0\r\nHost: 127.0.0.1\r\nContent-Length: %zu\r\n"
		      "Content-Type: application/json\r\n\r\n%s", method, path,
		      body ? strlen(body) : 0, body ? body : "");
	assert_int_equal(write(fd, req.ptr, req.len), (ssize_t)req.len);
	while ((n = read(fd, chunk, sizeof(chunk))) > 0)
		sc_buf_put(&resp, chunk, (size_t)n);
	close(fd);
	sep = strstr(resp.ptr, "\r\n\r\n");
	out = sc_xstrdup(sep ? sep + 4 : "");
	sc_buf_release(&req);
	sc_buf_release(&resp);
	return out;
}

/* Replaces the script and zeroes counters and the log. */
static inline void fake_script(struct fake *f, const char *script)
{
	free(fake_http(f, "POST", "/_fake/script", script));
	free(fake_http(f, "POST", "/_fake/reset", NULL));
}

static inline long fake_stat(struct fake *f, const char *name)
{
	char *body = fake_http(f, "GET", "/_fake/stats", NULL);
	cJSON *root = cJSON_Parse(body);
	cJSON *v = cJSON_GetObjectItemCaseSensitive(root, name);
	long out;

	assert_true(cJSON_IsNumber(v));
	out = (long)v->valuedouble;
	cJSON_Delete(root);
	free(body);
	return out;
}

/* The request log as text (appended to out). */
static inline void fake_log(struct fake *f, struct sc_buf *out)
{
	assert_int_equal(sc_read_file(out, f->log.ptr, 64 * 1024 * 1024), 0);
}

/* Points every provider at the fake with the given planted keys. */
static inline void fake_env(struct fake *f, const char *anthropic_key, const char *openai_key)
{
	struct sc_buf v = SC_BUF_INIT;

	setenv("ANTHROPIC_BASE_URL", f->url, 1);
	sc_buf_printf(&v, "%s/v1", f->url);
	setenv("OPENAI_API_BASE", v.ptr, 1);
	setenv("GENERIC_BASE_URL", v.ptr, 1);
	setenv("ANTHROPIC_API_KEY", anthropic_key, 1);
	setenv("OPENAI_API_KEY", openai_key, 1);
	unsetenv("GENERIC_API_KEY");
	sc_buf_release(&v);
}

#endif
