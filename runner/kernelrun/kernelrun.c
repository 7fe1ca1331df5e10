/* Spawning the sandboxed kernel worker (kernelrun.h). */
#include "common.h"
#include "json.h"
#include "kernelrun/kernelrun.h"

#include <cjson/cJSON.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define KERNELRUN_MAX_RESULT (16 * 1024 * 1024)
#define KERNELRUN_MAX_OUT (64 * 1024)   /* the worker's stdout: device printf */
#define KERNELRUN_MAX_ERR (64 * 1024)
#define KERNELRUN_SHOW_OUT 4096         /* of it, shown in the result */
#define KERNELRUN_RESULT_FD 3

bool sc_kernelrun_available(void)
{
#ifdef SC_HAVE_CUDA
	return true;
#else
	return false;
#endif
}

int sc_kernelrun_worker_path(struct sc_buf *out)
{
	const char *env = getenv("SKILLCI_KERNEL_WORKER");
	char self[4096];
	ssize_t n;
	char *slash;

	sc_buf_clear(out);
	if (env && *env) {
		sc_buf_puts(out, env);
	} else {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return sc_error_set(SC_ENOSYS, "cannot find the skillci-kernel worker (no /proc/self/exe)");
		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash)
			slash[1] = '\0';
		sc_buf_printf(out, "%sskillci-kernel", self);
	}
	if (access(out->ptr, X_OK) != 0)
		return sc_error_set(SC_ENOSYS, "the kernel worker '%s' is missing; build it with 'make' on a machine with CUDA",
				    out->ptr);
	return 0;
}

int sc_kernel_job_json(struct sc_buf *out, const struct sc_kernel_job *job)
{
	struct sc_buf path = SC_BUF_INIT, spec = SC_BUF_INIT, base = SC_BUF_INIT;
	cJSON *root = NULL, *s;
	int err;

	sc_path_join(&path, job->fixture_dir, "spec.json");
	if ((err = sc_read_file(&spec, path.ptr, SC_MAX_JSON_BYTES)) < 0)
		goto done;
	if (!(s = cJSON_ParseWithLength(spec.ptr, spec.len))) {
		err = sc_error_set(SC_EPARSE, "%s: malformed JSON", path.ptr);
		goto done;
	}
	root = cJSON_CreateObject();
	cJSON_AddItemToObject(root, "spec", s);
	if (job->timing) {
		sc_buf_clear(&path);
		sc_path_join(&path, job->fixture_dir, "baseline.cu");
		if ((err = sc_read_file(&base, path.ptr, 1024 * 1024)) < 0)
			goto done;
		cJSON_AddStringToObject(root, "baseline", base.ptr);
		/* the strong reference: the fixture's solution, when it has one */
		sc_buf_clear(&path);
		sc_buf_clear(&base);
		sc_path_join(&path, job->fixture_dir, "solution.cu");
		if (access(path.ptr, F_OK) == 0) {
			struct sc_buf name = SC_BUF_INIT;
			if ((err = sc_read_file(&base, path.ptr, 1024 * 1024)) < 0)
				goto done;
			cJSON_AddStringToObject(root, "solution", base.ptr);
			sc_buf_printf(&name, "fixture solution fixtures/%s/solution.cu", job->fixture_name);
			cJSON_AddStringToObject(root, "solution_name", name.ptr);
			sc_buf_release(&name);
		}
	}
	cJSON_AddStringToObject(root, "fixture", job->fixture_name);
	cJSON_AddStringToObject(root, "fixture_hash", job->fixture_hash ? job->fixture_hash : "");
	{
		char *src = sc_xstrndup(job->candidate, job->candidate_len);
		cJSON_AddStringToObject(root, "candidate", src);
		free(src);
	}
	cJSON_AddStringToObject(root, "arch", job->arch ? job->arch : "sm_90");
	if (job->cache_dir)
		cJSON_AddStringToObject(root, "cache_dir", job->cache_dir);
	if (job->cache_dir && getenv("SKILLCI_CACHE_KEY") && *getenv("SKILLCI_CACHE_KEY")) {
		const char *k = getenv("SKILLCI_CACHE_KEY");
		struct sc_buf hex = SC_BUF_INIT;
		sc_hex(&hex, (const unsigned char *)k, strlen(k));
		cJSON_AddStringToObject(root, "cache_key", hex.ptr);
		sc_buf_release(&hex);
	}
	cJSON_AddBoolToObject(root, "compile_only", job->compile_only);
	cJSON_AddBoolToObject(root, "timing", job->timing);
	cJSON_AddNumberToObject(root, "seeds", job->seeds > 0 ? job->seeds : 5);
	cJSON_AddNumberToObject(root, "timeout_ms", job->timeout_ms > 0 ? job->timeout_ms : 10000);
	if (job->device > 0)
		cJSON_AddNumberToObject(root, "device", job->device);
	sc_buf_clear(out);
	sc_json_print(out, root, false);
done:
	cJSON_Delete(root);
	sc_buf_release(&path);
	sc_buf_release(&spec);
	sc_buf_release(&base);
	return err;
}

/* In the child: a new network namespace (via a user namespace when not
 * root). Returns true when it worked; failures are silent. */
static bool enter_netns(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	char map[64];
	int fd;

	if (unshare(CLONE_NEWNET) == 0)
		return true;
	if (unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0)
		return false;
	/* Map our own ids so files we create keep their owner. */
	if ((fd = open("/proc/self/setgroups", O_WRONLY)) >= 0) {
		(void)!write(fd, "deny", 4);
		close(fd);
	}
	snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid, (unsigned)uid);
	if ((fd = open("/proc/self/uid_map", O_WRONLY)) >= 0) {
		(void)!write(fd, map, strlen(map));
		close(fd);
	}
	snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid, (unsigned)gid);
	if ((fd = open("/proc/self/gid_map", O_WRONLY)) >= 0) {
		(void)!write(fd, map, strlen(map));
		close(fd);
	}
	return true;
}

static void set_limit(int res, rlim_t v)
{
	struct rlimit rl = { v, v };
	setrlimit(res, &rl);
}

/* The child after fork: sandbox, then exec the worker. Never returns. */
/*
 * AddressSanitizer reserves terabytes of shadow address space, so a worker
 * built with it (make asan) cannot start under RLIMIT_AS. Such builds are
 * for tests only; they run the worker without that one limit.
 */
#if defined(__SANITIZE_ADDRESS__)
#define ADDRESS_LIMIT_WORKS 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ADDRESS_LIMIT_WORKS 0
#endif
#endif
#ifndef ADDRESS_LIMIT_WORKS
#define ADDRESS_LIMIT_WORKS 1
#endif

static _Noreturn void child(const char *worker, const char *tmpdir, int in_fd, int out_fd, int err_fd,
			    int res_fd, int status_fd, const struct sc_kernelrun_limits *lim)
{
	char *argv[4];
	char *envp[1] = { NULL };
	char netns;

	setpgid(0, 0);
	dup2(in_fd, 0);
	dup2(out_fd, 1);
	dup2(err_fd, 2);
	if (res_fd != KERNELRUN_RESULT_FD)
		dup2(res_fd, KERNELRUN_RESULT_FD);
	fcntl(KERNELRUN_RESULT_FD, F_SETFD, 0);  /* kept across execve */
	netns = enter_netns() ? '1' : '0';
	(void)!write(status_fd, &netns, 1);
	/* Close everything else we may have inherited. */
	for (int fd = KERNELRUN_RESULT_FD + 1; fd < 1024; fd++)
		close(fd);
	if (chdir(tmpdir) != 0)
		_exit(126);
	set_limit(RLIMIT_CORE, 0);
	set_limit(RLIMIT_CPU, (rlim_t)(lim->cpu_s > 0 ? lim->cpu_s : lim->wall_s) + 5);
	set_limit(RLIMIT_FSIZE, (rlim_t)256 << 20);
	set_limit(RLIMIT_NOFILE, 256);
	if (lim->limit_as && ADDRESS_LIMIT_WORKS)
		set_limit(RLIMIT_AS, (rlim_t)4 << 30);
	argv[0] = (char *)"skillci-kernel";
	argv[1] = (char *)"--result-fd";
	argv[2] = (char *)"3";
	argv[3] = NULL;
	execve(worker, argv, envp);
	_exit(127);
}

/* The job with this run's nonce added, into out. */
static int job_with_nonce(struct sc_buf *out, const char *job, const char *nonce)
{
	cJSON *root = cJSON_Parse(job);

	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		return sc_error_set(SC_EINVAL, "kernel job: malformed JSON");
	}
	cJSON_DeleteItemFromObjectCaseSensitive(root, "nonce");
	cJSON_AddStringToObject(root, "nonce", nonce);
	sc_buf_clear(out);
	sc_json_print(out, root, false);
	cJSON_Delete(root);
	return 0;
}

int sc_kernelrun(struct sc_kernelrun_result *out, const char *worker, const char *job,
		 const struct sc_kernelrun_limits *lim)
{
	int in[2] = { -1, -1 }, po[2] = { -1, -1 }, pe[2] = { -1, -1 }, pr[2] = { -1, -1 }, ps[2] = { -1, -1 };
	char tmpl[] = "/tmp/skillci-kernel.XXXXXX";
	const char *tmpdir = NULL;
	struct sc_buf jobn = SC_BUF_INIT;
	size_t written = 0;
	int64_t deadline;
	pid_t pid = -1;
	int status = 0, err = 0, wall = lim->wall_s > 0 ? lim->wall_s : 300;
	char netns = '0';
	unsigned char rnd[16];

	memset(out, 0, sizeof(*out));
	out->result = sc_xcalloc(1, sizeof(struct sc_buf));
	out->out = sc_xcalloc(1, sizeof(struct sc_buf));
	out->err = sc_xcalloc(1, sizeof(struct sc_buf));
	sc_buf_init(out->result);
	sc_buf_init(out->out);
	sc_buf_init(out->err);
	sc_random_bytes(rnd, sizeof(rnd));
	{
		struct sc_buf hex = SC_BUF_INIT;
		sc_hex(&hex, rnd, sizeof(rnd));
		memcpy(out->nonce, hex.ptr, sizeof(out->nonce));
		sc_buf_release(&hex);
	}
	if ((err = job_with_nonce(&jobn, job, out->nonce)) < 0)
		goto done;
	if (!(tmpdir = mkdtemp(tmpl))) {
		err = sc_error_set(SC_EIO, "cannot create a temp folder for the kernel worker: %s", strerror(errno));
		goto done;
	}
	if (pipe2(in, O_CLOEXEC) || pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC) || pipe2(pr, O_CLOEXEC) ||
	    pipe2(ps, O_CLOEXEC)) {
		err = sc_error_set(SC_EIO, "pipe: %s", strerror(errno));
		goto done;
	}
	pid = fork();
	if (pid < 0) {
		err = sc_error_set(SC_EIO, "fork: %s", strerror(errno));
		goto done;
	}
	if (pid == 0)
		child(worker, tmpdir, in[0], po[1], pe[1], pr[1], ps[1], lim);
	close(in[0]);
	close(po[1]);
	close(pe[1]);
	close(pr[1]);
	close(ps[1]);
	in[0] = po[1] = pe[1] = pr[1] = ps[1] = -1;
	if (read(ps[0], &netns, 1) != 1)
		netns = '0';
	out->netns = netns == '1';
	fcntl(in[1], F_SETFL, O_NONBLOCK);

	deadline = sc_now_ms() + (int64_t)wall * 1000;
	for (;;) {
		struct pollfd fds[4];
		int nf = 0, timeout = (int)(deadline - sc_now_ms());
		char buf[65536];
		ssize_t n;

		if (pr[0] >= 0)
			fds[nf++] = (struct pollfd){ pr[0], POLLIN, 0 };
		if (po[0] >= 0)
			fds[nf++] = (struct pollfd){ po[0], POLLIN, 0 };
		if (pe[0] >= 0)
			fds[nf++] = (struct pollfd){ pe[0], POLLIN, 0 };
		if (in[1] >= 0)
			fds[nf++] = (struct pollfd){ in[1], POLLOUT, 0 };
		if (nf == 0)
			break;
		if (timeout <= 0) {
			out->timed_out = true;
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			break;
		}
		if (poll(fds, (nfds_t)nf, timeout) < 0) {
			if (errno == EINTR)
				continue;
			err = sc_error_set(SC_EIO, "poll: %s", strerror(errno));
			kill(pid, SIGKILL);
			break;
		}
		for (int i = 0; i < nf; i++) {
			if (!fds[i].revents)
				continue;
			if (fds[i].fd == in[1]) {
				n = write(in[1], jobn.ptr + written, jobn.len - written);
				if (n > 0)
					written += (size_t)n;
				if ((n < 0 && errno != EAGAIN) || written == jobn.len) {
					close(in[1]);
					in[1] = -1;
				}
				continue;
			}
			n = read(fds[i].fd, buf, sizeof(buf));
			if (n <= 0) {
				close(fds[i].fd);
				if (fds[i].fd == pr[0])
					pr[0] = -1;
				else if (fds[i].fd == po[0])
					po[0] = -1;
				else
					pe[0] = -1;
				continue;
			}
			if (fds[i].fd == pr[0]) {
				if (sc_buf_put_capped(out->result, buf, (size_t)n, KERNELRUN_MAX_RESULT) < 0) {
					kill(-pid, SIGKILL);
					kill(pid, SIGKILL);
				}
			} else if (fds[i].fd == po[0]) {
				/* Kept up to the cap, drained always: a kernel that
				 * prints without end must not block its worker. */
				out->out_total += (size_t)n;
				if (out->out->len < KERNELRUN_MAX_OUT)
					sc_buf_put(out->out, buf, (size_t)n < KERNELRUN_MAX_OUT - out->out->len
						   ? (size_t)n : KERNELRUN_MAX_OUT - out->out->len);
			} else if (out->err->len < KERNELRUN_MAX_ERR) {
				sc_buf_put(out->err, buf, (size_t)n);
			}
		}
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	kill(-pid, SIGKILL);  /* anything the worker left in its group */
	if (WIFSIGNALED(status)) {
		out->exit_code = -1;
		out->signal = WTERMSIG(status);
	} else {
		out->exit_code = WEXITSTATUS(status);
	}
	sc_error_clear();
done:
	for (int i = 0; i < 2; i++) {
		if (in[i] >= 0) close(in[i]);
		if (po[i] >= 0) close(po[i]);
		if (pe[i] >= 0) close(pe[i]);
		if (pr[i] >= 0) close(pr[i]);
		if (ps[i] >= 0) close(ps[i]);
	}
	if (tmpdir)
		sc_rm_rf(tmpdir);
	sc_buf_release(&jobn);
	return err;
}

void sc_kernelrun_result_release(struct sc_kernelrun_result *r)
{
	if (r->result) {
		sc_buf_release(r->result);
		free(r->result);
	}
	if (r->out) {
		sc_buf_release(r->out);
		free(r->out);
	}
	if (r->err) {
		sc_buf_release(r->err);
		free(r->err);
	}
	memset(r, 0, sizeof(*r));
}

/*
 * The worker's result when it is believable: exactly one JSON object on the
 * result descriptor (whitespace around it allowed) with a string verdict
 * and this run's nonce. Returns the parsed object (the nonce removed), or
 * NULL with *why set when something was there but is not believed.
 */
static cJSON *believe(const struct sc_kernelrun_result *r, const char **why)
{
	const char *end = NULL;
	cJSON *root;
	const char *nonce = NULL;

	*why = NULL;
	if (!r->result->len)
		return NULL;
	root = cJSON_ParseWithLengthOpts(r->result->ptr, r->result->len, &end, false);
	if (!root) {
		*why = "the result is not valid JSON";
		return NULL;
	}
	while (end && end < r->result->ptr + r->result->len && strchr(" \t\r\n", *end))
		end++;
	if (!end || end != r->result->ptr + r->result->len)
		*why = "the result channel held more than one JSON document";
	else if (!sc_json_str_or(root, "verdict", NULL))
		*why = "the result has no verdict";
	else if (sc_json_get_str(&nonce, root, "nonce") != SC_JSON_OK || strcmp(nonce, r->nonce))
		*why = "the result does not carry this run's nonce";
	if (*why) {
		cJSON_Delete(root);
		return NULL;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(root, "nonce");
	return root;
}

/* The first bytes of what the worker printed (device printf), made safe
 * for JSON and reports: printable ASCII, tabs and newlines only. */
static cJSON *output_json(const struct sc_kernelrun_result *r)
{
	cJSON *o = cJSON_CreateObject();
	struct sc_buf b = SC_BUF_INIT;
	size_t n = r->out->len < KERNELRUN_SHOW_OUT ? r->out->len : KERNELRUN_SHOW_OUT;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)r->out->ptr[i];
		sc_buf_putc(&b, (c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t' ? (char)c : '?');
	}
	cJSON_AddNumberToObject(o, "bytes", (double)r->out_total);
	cJSON_AddBoolToObject(o, "truncated", r->out_total > n);
	cJSON_AddStringToObject(o, "text", b.ptr);
	sc_buf_release(&b);
	return o;
}

bool sc_kernelrun_verdict(enum sc_kernel_verdict *out, const char *verdict, const char *reason)
{
	static const struct {
		const char *reason;
		enum sc_kernel_verdict v;
	} reasons[] = {
		{ "include_refused", SC_KV_REFUSED }, { "source_refused", SC_KV_REFUSED },
		{ "compile_error", SC_KV_COMPILE_FAILED }, { "bad_tunable", SC_KV_COMPILE_FAILED },
		{ "load", SC_KV_COMPILE_FAILED }, { "no_entry", SC_KV_NO_CODE },
		{ "timeout", SC_KV_TIMEOUT }, { "crashed", SC_KV_CRASHED },
		{ "bad_result", SC_KV_CRASHED },
	};

	verdict = verdict ? verdict : "";
	reason = reason ? reason : "";
	if (!strcmp(verdict, "error"))
		return false;
	*out = SC_KV_MISMATCH;  /* any other failure of the check */
	if (!strcmp(verdict, "passed"))
		*out = SC_KV_PASSED;
	else if (!strcmp(verdict, "compiled"))
		*out = SC_KV_COMPILED;
	else if (!strcmp(verdict, "flagged"))
		*out = SC_KV_REFUSED;
	else
		for (size_t i = 0; i < SC_ARRAY_SIZE(reasons); i++)
			if (!strcmp(reason, reasons[i].reason))
				*out = reasons[i].v;
	return true;
}

void sc_kernelrun_result_json(struct sc_buf *out, const struct sc_kernelrun_result *r,
			      const struct sc_kernelrun_limits *lim)
{
	cJSON *root = NULL, *sb;
	const char *why = NULL;

	if (!r->timed_out && r->exit_code == 0)
		root = believe(r, &why);
	else if (r->result->len)
		(void)believe(r, &why);  /* not used, but a forged one is named */
	if (!root) {
		struct sc_buf msg = SC_BUF_INIT;
		const char *reason, *verdict;
		root = cJSON_CreateObject();
		if (r->timed_out) {
			reason = "timeout";
			verdict = "failed";
			sc_buf_printf(&msg, "the kernel worker ran past its wall-clock limit of %d s and was killed (a hung kernel?)",
				      lim->wall_s);
		} else if (r->exit_code < 0) {
			reason = "crashed";
			verdict = "failed";
			sc_buf_printf(&msg, "the kernel worker was killed by signal %d (%s)", r->signal, strsignal(r->signal));
		} else if (why) {
			reason = "bad_result";
			verdict = "failed";
			sc_buf_printf(&msg, "the kernel worker's result was not believed: %s", why);
		} else {
			reason = "crashed";
			verdict = "error";
			sc_buf_printf(&msg, "the kernel worker exited with status %d without a result", r->exit_code);
		}
		if (r->err->len && !why) {
			struct sc_buf tail = SC_BUF_INIT;
			size_t from = r->err->len > 300 ? r->err->len - 300 : 0;
			sc_buf_put(&tail, r->err->ptr + from, r->err->len - from);
			sc_buf_rtrim(&tail);
			sc_buf_printf(&msg, ": %s", tail.ptr);
			sc_buf_release(&tail);
		}
		cJSON_AddStringToObject(root, "verdict", verdict);
		cJSON_AddStringToObject(root, "reason", reason);
		cJSON_AddStringToObject(root, "message", msg.ptr);
		sc_buf_release(&msg);
	}
	if (r->out_total)
		cJSON_AddItemToObject(root, "kernel_output", output_json(r));
	sb = cJSON_CreateObject();
	cJSON_AddBoolToObject(sb, "network_namespace", r->netns);
	cJSON_AddBoolToObject(sb, "empty_environment", true);
	cJSON_AddNumberToObject(sb, "wall_limit_s", lim->wall_s);
	cJSON_AddBoolToObject(sb, "address_space_limit", lim->limit_as && ADDRESS_LIMIT_WORKS);
	cJSON_AddItemToObject(root, "sandbox", sb);
	sc_buf_clear(out);
	sc_json_print(out, root, true);
	cJSON_Delete(root);
}
