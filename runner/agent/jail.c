/*
 * The agent jail (jail.h): bubblewrap around the helper skillci-jail,
 * and the requests of jailproto.h over one socket pair.
 *
 * Starting a jail: the helper's binary, a passwd and a group file and
 * each skill folder are handed to bubblewrap as open descriptors
 * (--ro-bind-data, --ro-bind-fd), so a jail running as nobody needs no
 * permission on the paths above them (a runner's home folder is often
 * closed to others). The child of fork() only moves descriptors, drops
 * to nobody when skillci is root, and executes bubblewrap: everything
 * else (paths, the argument list, the files' contents) is made before
 * the fork, since other threads may hold locks the child would need.
 */
#include "common.h"
#include "agent/jail.h"
#include "jail/jailproto.h"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define JAIL_START_MS     15000   /* bubblewrap and the helper's first answer */
#define JAIL_OP_MS        15000   /* a file request */
#define JAIL_RUN_SLACK_MS 5000    /* a command's answer after its own limit */
#define JAIL_STOP_MS      2000    /* the jail's end after its input closes */
#define JAIL_STDERR_MAX   4096
#define JAIL_MAX_MOUNTS   64
#define JAIL_MAX_FDS      (JAIL_MAX_MOUNTS + 8)  /* the mounts, the helper, /etc's files */

void sc_jail_limits_init(struct sc_jail_limits *lim)
{
	lim->command_timeout_ms = SC_JAIL_DEFAULT_TIMEOUT_MS;
	lim->cpu_s = SC_JAIL_DEFAULT_CPU_S;
	lim->memory_bytes = SC_JAIL_DEFAULT_MEMORY;
	lim->processes = SC_JAIL_DEFAULT_PROCESSES;
	lim->file_bytes = SC_JAIL_DEFAULT_FILE_BYTES;
	lim->open_files = SC_JAIL_DEFAULT_OPEN_FILES;
	lim->workspace_bytes = SC_JAIL_DEFAULT_WORKSPACE;
	lim->tmp_bytes = SC_JAIL_DEFAULT_TMP;
	lim->output_bytes = SC_JAIL_DEFAULT_OUTPUT;
}

struct sc_jail {
	pid_t pid;              /* bubblewrap */
	int sock;               /* requests and answers */
	int err_fd;             /* bubblewrap's stderr */
	struct sc_jail_limits lim;
	bool dead;
	char *dead_msg;
	char *err_text;         /* what bubblewrap said when the jail ended */
	int64_t start_ms;
};

/* ---- finding the programs ------------------------------------------------- */

/* The first executable NAME on PATH, else fallback; NULL when neither. */
static char *which(const char *name, const char *fallback)
{
	const char *path = getenv("PATH");
	struct sc_buf b = SC_BUF_INIT;

	while (path && *path) {
		size_t n = strcspn(path, ":");
		sc_buf_clear(&b);
		sc_buf_put(&b, path, n);
		sc_buf_printf(&b, "/%s", name);
		if (n && access(b.ptr, X_OK) == 0)
			return sc_buf_detach(&b, NULL);
		path += n + (path[n] == ':');
	}
	sc_buf_release(&b);
	return fallback && access(fallback, X_OK) == 0 ? sc_xstrdup(fallback) : NULL;
}

/* bubblewrap: $SKILLCI_BWRAP, else bwrap on PATH. */
static int find_bwrap(char **out)
{
	const char *env = getenv("SKILLCI_BWRAP");

	*out = NULL;
	if (env) {
		if (!*env || access(env, X_OK) != 0)
			return sc_error_set(SC_ENOSYS, "jail unavailable: SKILLCI_BWRAP names '%s', "
					    "which is not an executable program", env);
		*out = sc_xstrdup(env);
		return 0;
	}
	if (!(*out = which("bwrap", "/usr/bin/bwrap")))
		return sc_error_set(SC_ENOSYS, "jail unavailable: bubblewrap (bwrap) is not "
				    "installed; install the Debian package 'bubblewrap' (make deps)");
	return 0;
}

/* The helper: $SKILLCI_JAIL_HELPER, else skillci-jail beside this program. */
static int find_helper(char **out)
{
	const char *env = getenv("SKILLCI_JAIL_HELPER");
	struct sc_buf b = SC_BUF_INIT;
	char self[4096];
	ssize_t n;

	*out = NULL;
	if (env && *env) {
		sc_buf_puts(&b, env);
	} else {
		n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return sc_error_set(SC_ENOSYS, "jail unavailable: cannot find the jail helper "
					    "skillci-jail (no /proc/self/exe)");
		self[n] = '\0';
		if (strrchr(self, '/'))
			strrchr(self, '/')[1] = '\0';
		sc_buf_printf(&b, "%sskillci-jail", self);
	}
	if (access(b.ptr, R_OK) != 0) {
		int err = sc_error_set(SC_ENOSYS, "jail unavailable: the jail helper '%s' is missing; "
				       "build it with 'make' (or set SKILLCI_JAIL_HELPER)", b.ptr);
		sc_buf_release(&b);
		return err;
	}
	*out = sc_buf_detach(&b, NULL);
	return 0;
}

/* ---- starting ------------------------------------------------------------- */

static bool mount_name_ok(const char *s)
{
	if (!*s || strlen(s) > 128 || *s == '.')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
		      *s == '.'))
			return false;
	return true;
}

/* A memory file holding text, for --ro-bind-data (the descriptor's offset is 0). */
static int text_fd(const char *text)
{
	int fd = memfd_create("skillci-jail", MFD_CLOEXEC);
	size_t len = strlen(text), done = 0;

	if (fd < 0)
		return -1;
	while (done < len) {
		ssize_t w = write(fd, text + done, len - done);
		if (w <= 0) {
			close(fd);
			return -1;
		}
		done += (size_t)w;
	}
	lseek(fd, 0, SEEK_SET);
	return fd;
}

struct argv_b {
	char **v;
	size_t n, alloc;
};

static void arg(struct argv_b *a, const char *s)
{
	SC_GROW(a->v, a->alloc, a->n + 2);
	a->v[a->n++] = sc_xstrdup(s);
	a->v[a->n] = NULL;
}

static void argn(struct argv_b *a, long long v)
{
	char b[64];
	snprintf(b, sizeof(b), "%lld", v);
	arg(a, b);
}

static void argv_free(struct argv_b *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
}

/*
 * fd for bubblewrap: it is passed as descriptor 3 + its index in fds, the
 * number returned (-1 for fd -1, which is not passed).
 */
static int pass_fd(int *fds, int *nfds, int fd)
{
	if (fd < 0)
		return -1;
	assert(*nfds < JAIL_MAX_FDS);
	fds[*nfds] = fd;
	return 3 + (*nfds)++;
}

/*
 * The root's folders that name /usr's (merged /usr) or are folders of
 * their own, and the few files of /etc that programs need: the dynamic
 * loader's cache, Debian's alternatives (awk, editor ...) and the time
 * zone. Every bind mount costs each jail's start (bubblewrap rereads the
 * mount table for each, and the kernel takes mounts one at a time): the
 * files are copied into the root (read-only once it is remounted) or
 * made the symbolic link they are, and only the alternatives' folder is
 * mounted.
 */
static void add_root_dirs(struct argv_b *a, int *fds, int *nfds)
{
	static const char *const dirs[] = { "bin", "sbin", "lib", "lib32", "lib64", "libx32" };
	static const char *const files[] = { "/etc/ld.so.cache", "/etc/localtime" };
	char target[256], path[64];

	for (size_t i = 0; i < SC_ARRAY_SIZE(dirs); i++) {
		struct stat st;
		ssize_t n;
		snprintf(path, sizeof(path), "/%s", dirs[i]);
		if (lstat(path, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode) && (n = readlink(path, target, sizeof(target) - 1)) > 0) {
			target[n] = '\0';
			arg(a, "--symlink");
			arg(a, target);
			arg(a, path);
		} else if (S_ISDIR(st.st_mode)) {
			arg(a, "--ro-bind");
			arg(a, path);
			arg(a, path);
		}
	}
	for (size_t i = 0; i < SC_ARRAY_SIZE(files); i++) {
		struct stat st;
		ssize_t n;
		int fd;
		if (lstat(files[i], &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode) && (n = readlink(files[i], target, sizeof(target) - 1)) > 0) {
			target[n] = '\0';
			arg(a, "--symlink");
			arg(a, target);
			arg(a, files[i]);
		} else if (S_ISREG(st.st_mode) &&
			   (fd = pass_fd(fds, nfds, open(files[i], O_RDONLY | O_CLOEXEC))) >= 0) {
			arg(a, "--file");
			argn(a, fd);
			arg(a, files[i]);
		}
	}
	arg(a, "--ro-bind-try");
	arg(a, "/etc/alternatives");
	arg(a, "/etc/alternatives");
}

/*
 * What the child of spawn() needs, made before it: it shares the
 * parent's memory (CLONE_VM) until it executes bubblewrap, and writes
 * why it could not into err.
 */
struct spawn {
	const char *bwrap;
	char **argv;
	int sock, err_w;
	const int *fds;
	int nfds;
	bool drop;                 /* root: become nobody first */
	sigset_t mask;             /* the signal mask bubblewrap starts with */
	volatile int err;          /* errno of the step that failed, 0 when none */
	volatile int step;         /* 1 descriptors, 2 nobody, 3 execve */
};

#ifdef __has_attribute
#if __has_attribute(no_sanitize)
#define JAIL_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))
#endif
#endif
#ifndef JAIL_NO_SANITIZE
#define JAIL_NO_SANITIZE
#endif
#if defined(__SANITIZE_THREAD__)
#define JAIL_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define JAIL_TSAN 1
#endif
#endif
#ifndef JAIL_TSAN
#define JAIL_TSAN 0
#endif

/*
 * The child of clone(CLONE_VM | CLONE_VFORK): descriptors in place
 * (fds[i] becomes 3 + i), everything else closed, nobody when root, the
 * caller's signal mask, then bubblewrap. It runs on its own stack in the
 * parent's memory while the parent waits, so it makes raw system calls
 * only: no errno-setting wrapper that a sanitizer intercepts, and no
 * setuid() of the C library (glibc's signals every thread of the process
 * to change them all; here only this task must change).
 */
JAIL_NO_SANITIZE static int spawn_child(void *payload)
{
	struct spawn *s = payload;
	char *envp[] = { NULL };
	int low = 3 + s->nfds, tmp[JAIL_MAX_FDS];
	long tsock, terr;

	s->step = 1;
	syscall(SYS_setpgid, 0, 0);
	/* every descriptor first above the targets (F_DUPFD takes the lowest
	 * free one from there: other threads' descriptors are here too until
	 * the exec), then down into place, the close-on-exec flag cleared */
	tsock = syscall(SYS_fcntl, s->sock, F_DUPFD, low);
	terr = syscall(SYS_fcntl, s->err_w, F_DUPFD, low);
	if (tsock < 0 || terr < 0 || syscall(SYS_dup3, (int)tsock, 0, 0) < 0 ||
	    syscall(SYS_dup3, (int)tsock, 1, 0) < 0 || syscall(SYS_dup3, (int)terr, 2, 0) < 0)
		goto fail;
	for (int i = 0; i < s->nfds; i++)
		if ((tmp[i] = (int)syscall(SYS_fcntl, s->fds[i], F_DUPFD, low)) < 0)
			goto fail;
	for (int i = 0; i < s->nfds; i++)
		if (syscall(SYS_dup3, tmp[i], 3 + i, 0) < 0)
			goto fail;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)low, ~0U, 0) < 0)
#endif
		for (int fd = low; fd < 65536; fd++)
			syscall(SYS_close, fd);
	if (s->drop) {
		/* root: the jail is nobody's, so that its process limit holds
		 * (the kernel exempts root from RLIMIT_NPROC) */
		s->step = 2;
		if (syscall(SYS_setgroups, 0, NULL) < 0 ||
		    syscall(SYS_setresgid, SC_JAIL_UNPRIVILEGED_UID, SC_JAIL_UNPRIVILEGED_UID,
			    SC_JAIL_UNPRIVILEGED_UID) < 0 ||
		    syscall(SYS_setresuid, SC_JAIL_UNPRIVILEGED_UID, SC_JAIL_UNPRIVILEGED_UID,
			    SC_JAIL_UNPRIVILEGED_UID) < 0)
			goto fail;
	}
	s->step = 3;
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, &s->mask, NULL, (NSIG - 1) / 8);
	syscall(SYS_execve, s->bwrap, s->argv, envp);
fail:
	s->err = errno ? errno : EIO;
	return 127;
}

/* Room for the child's few frames (raw system calls, no library). */
#define JAIL_SPAWN_STACK (64 * 1024)

/*
 * Starts bubblewrap as the child of clone(CLONE_VM | CLONE_VFORK): no
 * copy of skillci's page tables (which a fork() of a large process with
 * many threads costs, and its threads' copy-on-write faults after it),
 * the caller suspended until the exec. Signals are blocked meanwhile so
 * that no handler of skillci's runs on the child's stack. Its pid into
 * out; 0, SC_EIO, or SC_ENOSYS when bubblewrap could not be executed.
 */
static int spawn(pid_t *out, struct spawn *s)
{
	sigset_t all;
	void *stack;
	pid_t pid;
	int e;

	stack = mmap(NULL, JAIL_SPAWN_STACK, PROT_READ | PROT_WRITE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	*out = -1;
	if (stack == MAP_FAILED)
		return sc_error_set(SC_EIO, "jail: cannot map a stack to start bubblewrap: %s",
				    strerror(errno));
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &s->mask);
	s->err = 0;
	s->step = 0;
#if JAIL_TSAN
	/* ThreadSanitizer takes every clone() for a fork() and resets its
	 * own state in the child, which CLONE_VM would share with this
	 * process: a real fork() under it (the child's failure is then only
	 * its exit status) */
	(void)stack;
	pid = fork();
	if (pid == 0)
		_exit(spawn_child(s));
#else
	pid = clone(spawn_child, (char *)stack + JAIL_SPAWN_STACK, CLONE_VM | CLONE_VFORK | SIGCHLD,
		    s);
#endif
	e = errno;
	pthread_sigmask(SIG_SETMASK, &s->mask, NULL);
	munmap(stack, JAIL_SPAWN_STACK);
	if (pid < 0)
		return sc_error_set(SC_EIO, "jail: cannot start bubblewrap (clone): %s", strerror(e));
	if (s->err) {
		/* it exited: reap it, and say which step failed */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return sc_error_set(SC_ENOSYS, "jail unavailable: %s '%s': %s",
				    s->step == 3 ? "cannot execute bubblewrap"
				    : s->step == 2 ? "cannot become nobody (uid 65534) to run"
				    : "cannot pass its descriptors to", s->bwrap, strerror(s->err));
	}
	*out = pid;
	return 0;
}

static void set_dead(struct sc_jail *j, const char *msg)
{
	if (!j->dead) {
		j->dead = true;
		j->dead_msg = sc_xstrdup(msg);
	}
	if (j->pid > 0) {
		kill(-j->pid, SIGKILL);
		kill(j->pid, SIGKILL);
	}
}

/* What bubblewrap wrote on stderr (first line of it, trimmed), into out. */
static void read_stderr(struct sc_jail *j, struct sc_buf *out)
{
	char buf[JAIL_STDERR_MAX];
	size_t got = 0;

	if (j->err_fd < 0)
		return;
	fcntl(j->err_fd, F_SETFL, O_NONBLOCK);
	while (got < sizeof(buf) - 1) {
		struct pollfd p = { j->err_fd, POLLIN, 0 };
		ssize_t r;
		if (poll(&p, 1, 200) <= 0)
			break;
		r = read(j->err_fd, buf + got, sizeof(buf) - 1 - got);
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	buf[got] = '\0';
	for (size_t i = 0; i < got; i++)
		if (buf[i] == '\n' || buf[i] == '\r') {
			buf[i] = '\0';
			break;
		}
	sc_buf_puts(out, buf);
}

/* ---- the wire -------------------------------------------------------------- */

static void put_u32(struct sc_buf *b, uint32_t v)
{
	unsigned char x[4] = { (unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
			       (unsigned char)(v >> 24) };
	sc_buf_put(b, x, 4);
}

static uint32_t get_u32(const unsigned char *x)
{
	return (uint32_t)x[0] | (uint32_t)x[1] << 8 | (uint32_t)x[2] << 16 | (uint32_t)x[3] << 24;
}

/* Sends all of data before deadline; false on an error or the deadline. */
static bool send_all(int fd, const char *data, size_t len, int64_t deadline)
{
	while (len) {
		struct pollfd p = { fd, POLLOUT, 0 };
		int64_t left = deadline - sc_now_ms();
		ssize_t w;
		if (left <= 0)
			return false;
		if (poll(&p, 1, (int)left) < 0 && errno != EINTR)
			return false;
		w = send(fd, data, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (w <= 0)
			return false;
		data += w;
		len -= (size_t)w;
	}
	return true;
}

/* Receives exactly len bytes before deadline (0), or returns 1 at end
 * of input, -1 on an error, -2 at the deadline. */
static int recv_all(int fd, void *buf, size_t len, int64_t deadline)
{
	char *p = buf;

	while (len) {
		struct pollfd pf = { fd, POLLIN, 0 };
		int64_t left = deadline - sc_now_ms();
		ssize_t r;
		if (left <= 0)
			return -2;
		if (poll(&pf, 1, (int)left) < 0 && errno != EINTR)
			return -1;
		r = recv(fd, p, len, MSG_DONTWAIT);
		if (r < 0 && (errno == EAGAIN || errno == EINTR))
			continue;
		if (r == 0 || (r < 0 && errno == ECONNRESET))
			return 1;  /* closed; a reset when it ended with a request unread */
		if (r < 0)
			return -1;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

/* One answer's fields (owned buffers). */
struct answer {
	uint32_t status, n;
	struct sc_buf f[SC_JAIL_MAX_FIELDS];
};

static void answer_release(struct answer *a)
{
	for (size_t i = 0; i < SC_JAIL_MAX_FIELDS; i++)
		sc_buf_release(&a->f[i]);
}

/*
 * Sends one request and reads its answer before timeout_ms. A refusal
 * is SC_EINVAL with the jail's message; a jail that broke the protocol,
 * closed or timed out is marked dead, killed, and SC_EIO.
 */
static int request(struct sc_jail *j, struct answer *a, char op, const char *const *fields,
		   const size_t *lens, uint32_t nf, int64_t timeout_ms)
{
	struct sc_buf req = SC_BUF_INIT;
	unsigned char h[8];
	int64_t deadline = sc_now_ms() + timeout_ms;
	int r = 0;

	memset(a, 0, sizeof(*a));
	for (size_t i = 0; i < SC_JAIL_MAX_FIELDS; i++)
		sc_buf_init(&a->f[i]);
	if (j->dead)
		return sc_error_set(SC_EIO, "jail: %s", j->dead_msg);
	sc_buf_putc(&req, op);
	put_u32(&req, nf);
	for (uint32_t i = 0; i < nf; i++) {
		put_u32(&req, (uint32_t)lens[i]);
		sc_buf_put(&req, fields[i], lens[i]);
	}
	if (!send_all(j->sock, req.ptr, req.len, deadline)) {
		sc_buf_release(&req);
		set_dead(j, "the jail's helper stopped reading requests");
		return sc_error_set(SC_EIO, "jail: %s", j->dead_msg);
	}
	sc_buf_release(&req);
	if ((r = recv_all(j->sock, h, 8, deadline)) == 0) {
		a->status = get_u32(h);
		a->n = get_u32(h + 4);
		if (a->n > SC_JAIL_MAX_FIELDS)
			r = -1;
	}
	for (uint32_t i = 0; r == 0 && i < a->n; i++) {
		uint32_t len;
		if ((r = recv_all(j->sock, h, 4, deadline)) != 0)
			break;
		len = get_u32(h);
		if (len > SC_JAIL_MAX_FIELD) {
			r = -1;
			break;
		}
		sc_buf_grow(&a->f[i], len);
		if ((r = recv_all(j->sock, a->f[i].ptr, len, deadline)) != 0)
			break;
		a->f[i].len = len;
		a->f[i].ptr[len] = '\0';
	}
	if (r != 0) {
		struct sc_buf m = SC_BUF_INIT;
		sc_buf_puts(&m, r == -2 ? "the jail did not answer in time" :
			    r == 1 ? "the jail ended" : "the jail's answer was malformed");
		if (r == 1) {
			struct sc_buf e = SC_BUF_INIT;
			read_stderr(j, &e);
			if (e.len) {
				sc_buf_printf(&m, " (%s)", e.ptr);
				free(j->err_text);
				j->err_text = sc_xstrdup(e.ptr);
			}
			sc_buf_release(&e);
		}
		set_dead(j, m.ptr);
		sc_buf_release(&m);
		answer_release(a);
		return sc_error_set(SC_EIO, "jail: %s", j->dead_msg);
	}
	if (a->status != SC_JAIL_STATUS_OK) {
		r = sc_error_set(SC_EINVAL, "%s", a->n ? a->f[0].ptr : "refused");
		answer_release(a);
		return r;
	}
	return 0;
}

/* ---- the public calls -------------------------------------------------------- */

int sc_jail_start(struct sc_jail **out, const struct sc_jail_limits *lim_in,
		  const struct sc_jail_mount *mounts, size_t n)
{
	struct sc_jail_limits lim;
	struct argv_b a = { 0 };
	struct sc_jail *j = NULL;
	char *bwrap = NULL, *helper = NULL;
	int fds[JAIL_MAX_FDS], nfds = 0, fd_skill[JAIL_MAX_MOUNTS], fd_helper = -1, fd_pw = -1;
	int fd_gr = -1, sv[2] = { -1, -1 }, ep[2] = { -1, -1 }, err = 0;
	int64_t t0 = sc_now_ms();
	struct answer ans;
	char pw[256], gr[128];
	struct spawn sp;
	pid_t pid;

	*out = NULL;
	if (lim_in)
		lim = *lim_in;
	else
		sc_jail_limits_init(&lim);
	if (n > JAIL_MAX_MOUNTS)
		return sc_error_set(SC_EINVAL, "jail: more than %d skill folders", JAIL_MAX_MOUNTS);
	for (size_t i = 0; i < n; i++)
		if (!mount_name_ok(mounts[i].name))
			return sc_error_set(SC_EINVAL, "jail: '%s' is not a skill name", mounts[i].name);
	if ((err = find_bwrap(&bwrap)) < 0 || (err = find_helper(&helper)) < 0)
		goto done;

	/* the descriptors bubblewrap reads, each opened here (a jail running
	 * as nobody needs no permission on the paths above them): the
	 * helper, passwd and group, the skill folders, then /etc's files */
	{
		unsigned uid = geteuid() == 0 ? SC_JAIL_UNPRIVILEGED_UID : (unsigned)geteuid();
		unsigned gid = geteuid() == 0 ? SC_JAIL_UNPRIVILEGED_UID : (unsigned)getegid();
		snprintf(pw, sizeof(pw), "root:x:0:0:root:/:/bin/sh\nagent:x:%u:%u:agent:%s:/bin/sh\n",
			 uid, gid, SC_JAIL_WORKSPACE);
		snprintf(gr, sizeof(gr), "root:x:0:\nagent:x:%u:\n", gid);
	}
	if ((fd_helper = pass_fd(fds, &nfds, open(helper, O_RDONLY | O_CLOEXEC))) < 0 ||
	    (fd_pw = pass_fd(fds, &nfds, text_fd(pw))) < 0 ||
	    (fd_gr = pass_fd(fds, &nfds, text_fd(gr))) < 0) {
		err = sc_error_set(SC_ENOSYS, "jail unavailable: cannot open %s: %s",
				   fd_helper < 0 ? helper : "a memory file", strerror(errno));
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		fd_skill[i] = pass_fd(fds, &nfds, open(mounts[i].host_dir,
							O_PATH | O_DIRECTORY | O_CLOEXEC));
		if (fd_skill[i] < 0) {
			err = sc_error_set(SC_ENOSYS, "jail unavailable: cannot open %s: %s",
					   mounts[i].host_dir, strerror(errno));
			goto done;
		}
	}

	arg(&a, "bwrap");
	arg(&a, "--unshare-user");
	arg(&a, "--unshare-ipc");
	arg(&a, "--unshare-pid");
	arg(&a, "--unshare-net");
	arg(&a, "--unshare-uts");
	arg(&a, "--unshare-cgroup-try");
	/* the user inside is the jail's own outside (nobody for root): no
	 * second user namespace for another uid, which costs every start */
	arg(&a, "--die-with-parent");
	arg(&a, "--new-session");
	arg(&a, "--as-pid-1");
	arg(&a, "--hostname");
	arg(&a, "skillci-jail");
	arg(&a, "--clearenv");
	arg(&a, "--ro-bind");
	arg(&a, "/usr");
	arg(&a, "/usr");
	add_root_dirs(&a, fds, &nfds);
	/* files copied into the root's memory file system (read-only once it
	 * is remounted below): no mount of their own */
	arg(&a, "--file");
	argn(&a, fd_pw);
	arg(&a, "/etc/passwd");
	arg(&a, "--file");
	argn(&a, fd_gr);
	arg(&a, "/etc/group");
	arg(&a, "--proc");
	arg(&a, "/proc");
	arg(&a, "--dev");
	arg(&a, "/dev");
	arg(&a, "--size");
	argn(&a, lim.tmp_bytes);
	arg(&a, "--tmpfs");
	arg(&a, "/tmp");
	arg(&a, "--size");
	argn(&a, lim.workspace_bytes);
	arg(&a, "--tmpfs");
	arg(&a, SC_JAIL_WORKSPACE);
	arg(&a, "--dir");
	arg(&a, SC_JAIL_SKILLS_DIR);
	for (size_t i = 0; i < n; i++) {
		struct sc_buf d = SC_BUF_INIT;
		sc_buf_printf(&d, "%s/%s", SC_JAIL_SKILLS_DIR, mounts[i].name);
		arg(&a, "--ro-bind-fd");
		argn(&a, fd_skill[i]);
		arg(&a, d.ptr);
		sc_buf_release(&d);
	}
	arg(&a, "--perms");
	arg(&a, "0555");
	arg(&a, "--file");
	argn(&a, fd_helper);
	arg(&a, SC_JAIL_HELPER_PATH);
	/* nothing but /tmp and the workspace may be written */
	arg(&a, "--remount-ro");
	arg(&a, "/dev");
	arg(&a, "--remount-ro");
	arg(&a, "/");
	arg(&a, "--chdir");
	arg(&a, SC_JAIL_WORKSPACE);
	arg(&a, "--");
	arg(&a, SC_JAIL_HELPER_PATH);
	argn(&a, lim.cpu_s);
	argn(&a, lim.memory_bytes);
	argn(&a, lim.processes);
	argn(&a, lim.file_bytes);
	argn(&a, lim.open_files);

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 || pipe2(ep, O_CLOEXEC) < 0) {
		err = sc_error_set(SC_EIO, "jail: socketpair: %s", strerror(errno));
		goto done;
	}
	sp.bwrap = bwrap;
	sp.argv = a.v;
	sp.sock = sv[1];
	sp.err_w = ep[1];
	sp.fds = fds;
	sp.nfds = nfds;
	sp.drop = geteuid() == 0;
	if ((err = spawn(&pid, &sp)) < 0)
		goto done;
	close(sv[1]);
	close(ep[1]);
	sv[1] = ep[1] = -1;
	j = sc_xcalloc(1, sizeof(*j));
	j->pid = pid;
	j->sock = sv[0];
	j->err_fd = ep[0];
	sv[0] = ep[0] = -1;
	j->lim = lim;
	{
		/* the first answer says the jail stands */
		const char *f[1] = { "." };
		size_t l[1] = { 1 };
		err = request(j, &ans, SC_JAIL_OP_STAT, f, l, 1, JAIL_START_MS);
		if (err == 0)
			answer_release(&ans);
	}
	if (err < 0) {
		err = sc_error_set(SC_ENOSYS, "jail unavailable: bubblewrap could not start the "
				   "jail: %s", j->err_text && *j->err_text ? j->err_text
				   : j->dead_msg ? j->dead_msg : sc_error_last());
		sc_jail_free(j);
		j = NULL;
		goto done;
	}
	j->start_ms = sc_now_ms() - t0;
	*out = j;
	j = NULL;
done:
	for (int i = 0; i < nfds; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	for (int i = 0; i < 2; i++) {
		if (sv[i] >= 0)
			close(sv[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	argv_free(&a);
	free(bwrap);
	free(helper);
	return err;
}

int64_t sc_jail_start_ms(const struct sc_jail *j)
{
	return j ? j->start_ms : 0;
}

void sc_jail_free(struct sc_jail *j)
{
	int64_t deadline;
	int status;

	if (!j)
		return;
	if (j->sock >= 0)
		close(j->sock);  /* the helper reads the end and exits, ending the namespace */
	deadline = sc_now_ms() + JAIL_STOP_MS;
	for (;;) {
		pid_t r = waitpid(j->pid, &status, WNOHANG);
		if (r == j->pid || (r < 0 && errno != EINTR))
			break;
		if (sc_now_ms() >= deadline) {
			kill(-j->pid, SIGKILL);
			kill(j->pid, SIGKILL);
			while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR)
				;
			break;
		}
		{
			struct timespec ts = { 0, 1000000 };
			nanosleep(&ts, NULL);
		}
	}
	if (j->err_fd >= 0)
		close(j->err_fd);
	free(j->dead_msg);
	free(j->err_text);
	free(j);
}

/* True when every folder on the way to path (path included) lets others
 * pass (o+x): nobody, the jail's user when skillci is root, can reach it. */
static bool open_to_others(const char *path)
{
	struct sc_buf p = SC_BUF_INIT;
	bool ok = true;

	sc_buf_puts(&p, path);
	while (ok && p.len) {
		struct stat st;
		char *slash;
		if (stat(p.ptr, &st) < 0 || !(st.st_mode & S_IXOTH))
			ok = false;
		slash = strrchr(p.ptr, '/');
		if (!slash)
			break;
		sc_buf_truncate(&p, (size_t)(slash - p.ptr));
	}
	sc_buf_release(&p);
	return ok;
}

int sc_jail_stage_dir(struct sc_buf *out)
{
	const char *tmp = getenv("TMPDIR");
	const char *roots[] = { tmp && *tmp ? tmp : "/tmp", "/tmp", "/var/tmp", "/dev/shm" };

	for (size_t i = 0; i < SC_ARRAY_SIZE(roots); i++) {
		if (geteuid() == 0 && !open_to_others(roots[i]))
			continue;  /* the jail, as nobody, could not reach it */
		sc_buf_clear(out);
		sc_buf_printf(out, "%s/skillci-jail-XXXXXX", roots[i]);
		if (mkdtemp(out->ptr) && chmod(out->ptr, 0755) == 0)
			return 0;
	}
	return sc_error_set(SC_ENOSYS, "jail unavailable: no temporary folder the jail can read "
			    "(TMPDIR '%s' and /tmp are closed to others or not writable)",
			    tmp ? tmp : "");
}

/* ---- the probe --------------------------------------------------------------- */

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static int probe_state;        /* 0 not probed, 1 works, -1 unavailable */
static char probe_msg[1024];

int sc_jail_probe(void)
{
	int err = 0;

	pthread_mutex_lock(&probe_lock);
	if (probe_state == 0) {
		struct sc_jail *j = NULL;
		struct sc_jail_run r;
		sc_jail_run_init(&r);
		if ((err = sc_jail_start(&j, NULL, NULL, 0)) == 0 &&
		    (err = sc_jail_exec(j, &r, "true", 10000)) == 0 && r.exit_code != 0)
			err = sc_error_set(SC_ENOSYS, "jail unavailable: a command in the jail "
					   "failed (%s)", r.output.len ? r.output.ptr : "no output");
		if (err < 0 && !sc_starts_with(sc_error_last(), "jail unavailable"))
			err = sc_error_wrap(SC_ENOSYS, "jail unavailable");
		if (err < 0)
			snprintf(probe_msg, sizeof(probe_msg), "%s", sc_error_last());
		probe_state = err < 0 ? -1 : 1;
		sc_jail_run_release(&r);
		sc_jail_free(j);
	}
	if (probe_state < 0)
		err = sc_error_set(SC_ENOSYS, "%s", probe_msg);
	pthread_mutex_unlock(&probe_lock);
	return err;
}

/* ---- requests ------------------------------------------------------------------ */

int sc_jail_read(struct sc_jail *j, struct sc_buf *out, int64_t *size, const char *path,
		 size_t max)
{
	struct answer a;
	char num[32];
	const char *f[2] = { path, num };
	size_t l[2];
	int err;

	if (max > SC_JAIL_MAX_FIELD)
		max = SC_JAIL_MAX_FIELD;
	snprintf(num, sizeof(num), "%zu", max);
	l[0] = strlen(path);
	l[1] = strlen(num);
	if ((err = request(j, &a, SC_JAIL_OP_READ, f, l, 2, JAIL_OP_MS)) < 0)
		return err;
	sc_buf_clear(out);
	sc_buf_put(out, a.f[0].ptr, a.f[0].len);
	if (size)
		*size = a.n > 1 ? strtoll(a.f[1].ptr, NULL, 10) : (int64_t)a.f[0].len;
	answer_release(&a);
	return 0;
}

int sc_jail_list(struct sc_jail *j, struct sc_buf *out, const char *path)
{
	struct answer a;
	const char *f[1] = { path };
	size_t l[1] = { strlen(path) };
	int err;

	if ((err = request(j, &a, SC_JAIL_OP_LIST, f, l, 1, JAIL_OP_MS)) < 0)
		return err;
	sc_buf_clear(out);
	sc_buf_put(out, a.f[0].ptr, a.f[0].len);
	answer_release(&a);
	return 0;
}

int sc_jail_write(struct sc_jail *j, const char *path, const void *data, size_t len)
{
	struct answer a;
	const char *f[2] = { path, data };
	size_t l[2] = { strlen(path), len };
	int err;

	if (len > SC_JAIL_MAX_FIELD)
		return sc_error_set(SC_EINVAL, "%s: the content is larger than %u bytes", path,
				    SC_JAIL_MAX_FIELD);
	if ((err = request(j, &a, SC_JAIL_OP_WRITE, f, l, 2, JAIL_OP_MS)) < 0)
		return err;
	answer_release(&a);
	return 0;
}

int sc_jail_stat(struct sc_jail *j, struct sc_buf *out, const char *path)
{
	struct answer a;
	const char *f[1] = { path };
	size_t l[1] = { strlen(path) };
	int err;

	if ((err = request(j, &a, SC_JAIL_OP_STAT, f, l, 1, JAIL_OP_MS)) < 0)
		return err;
	sc_buf_clear(out);
	sc_buf_put(out, a.f[0].ptr, a.f[0].len);
	answer_release(&a);
	return 0;
}

void sc_jail_run_init(struct sc_jail_run *r)
{
	memset(r, 0, sizeof(*r));
	sc_buf_init(&r->output);
	r->exit_code = -1;
}

void sc_jail_run_release(struct sc_jail_run *r)
{
	sc_buf_release(&r->output);
	memset(r, 0, sizeof(*r));
	r->exit_code = -1;
}

int sc_jail_exec(struct sc_jail *j, struct sc_jail_run *out, const char *command,
		 int64_t timeout_ms)
{
	struct answer a;
	char t[32], k[32];
	const char *f[3] = { command, t, k };
	size_t l[3];
	int err;

	if (timeout_ms <= 0)
		timeout_ms = j->lim.command_timeout_ms;
	snprintf(t, sizeof(t), "%lld", (long long)timeout_ms);
	snprintf(k, sizeof(k), "%zu", j->lim.output_bytes);
	l[0] = strlen(command);
	l[1] = strlen(t);
	l[2] = strlen(k);
	if ((err = request(j, &a, SC_JAIL_OP_RUN, f, l, 3, timeout_ms + JAIL_RUN_SLACK_MS)) < 0)
		return err;
	sc_buf_clear(&out->output);
	out->exit_code = -1;
	out->signal = 0;
	out->timed_out = false;
	if (a.n < 4) {
		answer_release(&a);
		set_dead(j, "the jail's answer was malformed");
		return sc_error_set(SC_EIO, "jail: %s", j->dead_msg);
	}
	if (!strcmp(a.f[0].ptr, "timeout"))
		out->timed_out = true;
	else if (sc_starts_with(a.f[0].ptr, "signal "))
		out->signal = atoi(a.f[0].ptr + 7);
	else if (sc_starts_with(a.f[0].ptr, "exit "))
		out->exit_code = atoi(a.f[0].ptr + 5);
	sc_buf_put(&out->output, a.f[1].ptr, a.f[1].len);
	out->output_total = strtoll(a.f[2].ptr, NULL, 10);
	out->wall_ms = strtoll(a.f[3].ptr, NULL, 10);
	answer_release(&a);
	return 0;
}

/* Why a signal may have ended a command in the jail, or "". */
static const char *signal_reason(int sig)
{
	return sig == SIGXCPU ? " (CPU time limit exceeded)"
	       : sig == SIGXFSZ ? " (file size limit exceeded)"
	       : sig == SIGKILL ? " (killed)"
	       : sig == SIGSEGV ? " (segmentation fault)" : "";
}

void sc_jail_run_describe(struct sc_buf *out, const struct sc_jail_run *r, int64_t timeout_ms)
{
	if (r->timed_out) {
		sc_buf_printf(out, "timed out after %.1f s (the command's wall-time limit); it and "
			      "everything it started were killed", (double)timeout_ms / 1000.0);
		return;
	}
	if (r->signal) {
		sc_buf_printf(out, "killed by signal %d%s", r->signal, signal_reason(r->signal));
		return;
	}
	sc_buf_printf(out, "exit %d", r->exit_code);
	/* a shell reports a child killed by signal N as 128 + N */
	if (r->exit_code > 128 && r->exit_code < 128 + 65 && *signal_reason(r->exit_code - 128))
		sc_buf_printf(out, " (a process killed by signal %d%s)", r->exit_code - 128,
			      signal_reason(r->exit_code - 128));
}
