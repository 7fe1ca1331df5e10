/* The runner key (secret.h). */
#include "common.h"
#include "output.h"
#include "secret.h"
#include "sha256.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned char key[SC_RUNNER_KEY_LEN];
static char *key_source;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

/* Reads 64 hex digits (then optional white space) from path into key. */
int sc_runner_key_read_file(unsigned char out[SC_RUNNER_KEY_LEN], const char *path)
{
	struct sc_buf data = SC_BUF_INIT;
	int err;

	if ((err = sc_read_file(&data, path, 4096)) < 0)
		goto done;
	sc_buf_rtrim(&data);
	if (data.len != 2 * SC_RUNNER_KEY_LEN) {
		err = sc_error_set(SC_EINVAL, "runner key '%s' is not 64 hex digits", path);
		goto done;
	}
	for (size_t i = 0; i < SC_RUNNER_KEY_LEN; i++) {
		int hi = sc_hex_value(data.ptr[2 * i]), lo = sc_hex_value(data.ptr[2 * i + 1]);
		if (hi < 0 || lo < 0) {
			err = sc_error_set(SC_EINVAL, "runner key '%s' is not 64 hex digits", path);
			goto done;
		}
		out[i] = (unsigned char)(hi << 4 | lo);
	}
	sc_output_add_secret(data.ptr);  /* the file's text never reaches an output */
done:
	memset(data.ptr, 0, data.len);
	sc_buf_release(&data);
	return err;
}

void sc_runner_key_from_secret(unsigned char out[SC_RUNNER_KEY_LEN], const char *s, size_t n)
{
	struct sc_sha256 h;

	sc_sha256_init(&h);
	sc_sha256_update(&h, "skillci-runner-key\0", 19);
	sc_sha256_update(&h, s, n);
	sc_sha256_final(&h, out);
}

/*
 * Creates path with a fresh key: written to a private temp file, then
 * linked into place, so two processes starting at once end up with the
 * same key (the loser's link fails with EEXIST and it reads the file).
 */
static int create_key_file(const char *path)
{
	struct sc_buf dir = SC_BUF_INIT, tmp = SC_BUF_INIT, hex = SC_BUF_INIT;
	const char *slash = strrchr(path, '/');
	unsigned char fresh[SC_RUNNER_KEY_LEN];
	int fd = -1, err = 0;

	if (slash && slash != path) {
		sc_buf_put(&dir, path, (size_t)(slash - path));
		if (mkdir(dir.ptr, 0700) < 0 && errno != EEXIST && (err = sc_mkdir_p(dir.ptr)) < 0)
			goto done;
	}
	sc_random_bytes(fresh, sizeof(fresh));
	sc_hex(&hex, fresh, sizeof(fresh));
	sc_buf_putc(&hex, '\n');
	sc_buf_printf(&tmp, "%s.%ld.tmp", path, (long)getpid());
	fd = open(tmp.ptr, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || write(fd, hex.ptr, hex.len) != (ssize_t)hex.len || fsync(fd) < 0) {
		err = sc_error_set(SC_EIO, "cannot write '%s': %s", tmp.ptr, strerror(errno));
		goto done;
	}
	if (link(tmp.ptr, path) < 0 && errno != EEXIST) {
		err = sc_error_set(SC_EIO, "cannot create '%s': %s", path, strerror(errno));
		goto done;
	}
	err = sc_runner_key_read_file(key, path);
done:
	if (fd >= 0) {
		close(fd);
		unlink(tmp.ptr);
	}
	memset(fresh, 0, sizeof(fresh));
	memset(hex.ptr, 0, hex.len);
	sc_buf_release(&hex);
	sc_buf_release(&tmp);
	sc_buf_release(&dir);
	return err;
}

static const char *const env_keys[] = { "SKILLCI_RUNNER_KEY", "SKILLCI_CACHE_KEY" };

static void load_key(void)
{
	struct sc_buf path = SC_BUF_INIT;
	const char *v;
	int err;

	/* a secret from the environment: one for a fleet, and the kernel
	 * cubin cache's SKILLCI_CACHE_KEY so one secret signs every cache */
	for (size_t i = 0; i < SC_ARRAY_SIZE(env_keys); i++) {
		if (!(v = getenv(env_keys[i])) || !*v)
			continue;
		sc_runner_key_from_secret(key, v, strlen(v));
		key_source = sc_xstrdup(env_keys[i]);
		return;
	}
	if ((v = getenv("SKILLCI_RUNNER_KEY_FILE")) && *v)
		sc_buf_puts(&path, v);
	else if ((v = getenv("XDG_CONFIG_HOME")) && *v == '/')
		sc_buf_printf(&path, "%s/skillci/runner.key", v);
	else if ((v = getenv("HOME")) && *v == '/')
		sc_buf_printf(&path, "%s/.config/skillci/runner.key", v);
	if (!path.len) {
		err = sc_error_set(SC_ENOTFOUND, "neither HOME nor XDG_CONFIG_HOME is set");
	} else {
		err = sc_runner_key_read_file(key, path.ptr);
		if (err == SC_ENOTFOUND)
			err = create_key_file(path.ptr);
	}
	if (err < 0) {
		sc_log(SC_LOG_WARN, "no runner key (%s): cached answers and stored units written "
		       "before are not reused, and none written now will be", sc_error_last());
		sc_error_clear();
		sc_random_bytes(key, sizeof(key));
	} else {
		key_source = sc_xstrdup(path.ptr);
	}
	sc_buf_release(&path);
}

const unsigned char *sc_runner_key(void)
{
	pthread_once(&key_once, load_key);
	return key;
}

const char *sc_runner_key_source(void)
{
	pthread_once(&key_once, load_key);
	return key_source;
}
