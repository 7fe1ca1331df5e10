/*
 * skillci-jail: the helper inside the agent jail (jailproto.h). It is the
 * jail's process 1, started by bubblewrap (--as-pid-1) in new user, pid,
 * network, IPC, UTS and cgroup namespaces with the workspace as its
 * folder. It answers skillci's requests one at a time: reads and writes
 * files, lists folders, and runs shell commands under resource limits.
 *
 * Being process 1 of the pid namespace protects it from the commands it
 * runs: a signal from inside the namespace that init has no handler for
 * (SIGKILL included) is dropped, so `kill -9 -1` kills everything but
 * the helper. It is not dumpable, so a command running as the same user
 * cannot ptrace it or read its memory. After each command it kills every
 * other process of the namespace (kill(-1) from process 1), so nothing a
 * command started outlives it. When skillci closes its stdin it exits,
 * and the kernel ends whatever is left in the namespace.
 *
 * Only libc: it runs with the jail's view of the system.
 */
#include "jailproto.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct field {
	char *p;
	uint32_t len;
};

struct limits {
	long cpu_s;
	long long memory, file_bytes;
	long processes, open_files;
};

static struct limits lim;

static void die(const char *msg)
{
	(void)!write(2, "skillci-jail: ", 14);
	(void)!write(2, msg, strlen(msg));
	(void)!write(2, "\n", 1);
	_exit(70);
}

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Reads exactly n bytes; false at end of input or on an error. */
static bool read_all(int fd, void *buf, size_t n)
{
	char *p = buf;
	while (n) {
		ssize_t r = read(fd, p, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return false;
		p += r;
		n -= (size_t)r;
	}
	return true;
}

static void write_all(int fd, const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(0);  /* skillci went away: nothing to answer */
		p += w;
		n -= (size_t)w;
	}
}

static uint32_t get_u32(const unsigned char b[4])
{
	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static void put_u32(unsigned char b[4], uint32_t v)
{
	b[0] = (unsigned char)v;
	b[1] = (unsigned char)(v >> 8);
	b[2] = (unsigned char)(v >> 16);
	b[3] = (unsigned char)(v >> 24);
}

/* ---- answers ------------------------------------------------------------- */

struct answer {
	uint32_t status;
	struct field f[SC_JAIL_MAX_FIELDS];
	uint32_t n;
	char num[SC_JAIL_MAX_FIELDS][64];  /* room for numbers */
};

static void add_field(struct answer *a, const char *p, size_t len)
{
	if (a->n >= SC_JAIL_MAX_FIELDS)
		return;
	a->f[a->n].p = (char *)p;
	a->f[a->n].len = (uint32_t)len;
	a->n++;
}

static void add_str(struct answer *a, const char *s)
{
	add_field(a, s, strlen(s));
}

static void add_num(struct answer *a, long long v)
{
	char *b = a->num[a->n < SC_JAIL_MAX_FIELDS ? a->n : 0];
	snprintf(b, 64, "%lld", v);
	add_str(a, b);
}

static void send_answer(const struct answer *a)
{
	unsigned char h[8];

	put_u32(h, a->status);
	put_u32(h + 4, a->n);
	write_all(1, h, 8);
	for (uint32_t i = 0; i < a->n; i++) {
		put_u32(h, a->f[i].len);
		write_all(1, h, 4);
		write_all(1, a->f[i].p, a->f[i].len);
	}
}

/* A refusal: "what: strerror" as the one field. */
static void refuse(const char *what, int err)
{
	struct answer a;
	char msg[PATH_MAX + 256];

	memset(&a, 0, sizeof(a));
	a.status = SC_JAIL_STATUS_REFUSED;
	if (err)
		snprintf(msg, sizeof(msg), "%s: %s", what, strerror(err));
	else
		snprintf(msg, sizeof(msg), "%s", what);
	add_str(&a, msg);
	send_answer(&a);
}

/* ---- file requests ------------------------------------------------------- */

static bool field_str(const struct field *f, char **out)
{
	if (memchr(f->p, '\0', f->len))
		return false;
	*out = f->p;  /* the reader NUL-terminates every field */
	return true;
}

static long long field_num(const struct field *f)
{
	char *end;
	long long v = strtoll(f->p, &end, 10);
	return end == f->p ? -1 : v;
}

static void op_read(struct field *fld, uint32_t n)
{
	struct answer a;
	struct stat st;
	char *path, *buf;
	long long max;
	size_t got = 0;
	int fd;

	if (n != 2 || !field_str(&fld[0], &path) || (max = field_num(&fld[1])) < 0 ||
	    max > SC_JAIL_MAX_FIELD) {
		refuse("malformed read request", 0);
		return;
	}
	fd = open(path, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		refuse(path, errno);
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		refuse(S_ISDIR(st.st_mode) ? "is a folder, not a file (use list_files)"
			: "not a regular file", 0);
		return;
	}
	buf = xmalloc((size_t)max + 1);
	while (got < (size_t)max) {
		ssize_t r = read(fd, buf + got, (size_t)max - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	memset(&a, 0, sizeof(a));
	add_field(&a, buf, got);
	add_num(&a, (long long)(st.st_size > (off_t)got ? st.st_size : (off_t)got));
	send_answer(&a);
	free(buf);
}

struct entry {
	char *name;
	char type;
	long long size;
};

static int cmp_entry(const void *pa, const void *pb)
{
	return strcmp(((const struct entry *)pa)->name, ((const struct entry *)pb)->name);
}

static void op_list(struct field *fld, uint32_t n)
{
	struct answer a;
	struct entry *e;
	size_t ne = 0, more = 0, cap = 1 << 16, len = 0;
	char *path, *out;
	struct dirent *d;
	DIR *dir;

	if (n != 1 || !field_str(&fld[0], &path)) {
		refuse("malformed list request", 0);
		return;
	}
	if (!*path)
		path = (char *)".";
	if (!(dir = opendir(path))) {
		refuse(path, errno);
		return;
	}
	e = xmalloc(SC_JAIL_MAX_LIST * sizeof(*e));
	while ((d = readdir(dir))) {
		struct stat st;
		if (!strcmp(d->d_name, ".") || !strcmp(d->d_name, ".."))
			continue;
		if (ne == SC_JAIL_MAX_LIST) {
			more++;
			continue;
		}
		e[ne].name = strdup(d->d_name);
		if (!e[ne].name)
			die("out of memory");
		e[ne].type = '?';
		e[ne].size = 0;
		if (fstatat(dirfd(dir), d->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
			e[ne].type = S_ISDIR(st.st_mode) ? 'd' : S_ISREG(st.st_mode) ? 'f'
				     : S_ISLNK(st.st_mode) ? 'l' : 'o';
			e[ne].size = (long long)st.st_size;
		}
		ne++;
	}
	closedir(dir);
	qsort(e, ne, sizeof(*e), cmp_entry);
	out = xmalloc(cap);
	for (size_t i = 0; i < ne; i++) {
		size_t need = strlen(e[i].name) + 64;
		if (len + need >= cap) {
			cap = 2 * cap + need;
			if (!(out = realloc(out, cap)))
				die("out of memory");
		}
		len += (size_t)snprintf(out + len, cap - len, "%s\t%s\t%lld\n", e[i].name,
					e[i].type == 'd' ? "dir" : e[i].type == 'f' ? "file"
					: e[i].type == 'l' ? "link" : "other", e[i].size);
		free(e[i].name);
	}
	if (more) {
		if (len + 64 >= cap && !(out = realloc(out, cap += 64)))
			die("out of memory");
		len += (size_t)snprintf(out + len, cap - len, "... %zu more\n", more);
	}
	memset(&a, 0, sizeof(a));
	add_field(&a, out, len);
	send_answer(&a);
	free(out);
	free(e);
}

/* Makes every parent folder of path (mkdir -p of its dirname). */
static int make_parents(char *path)
{
	for (char *p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0755) < 0 && errno != EEXIST) {
			int e = errno;
			*p = '/';
			return e;
		}
		*p = '/';
	}
	return 0;
}

static void op_write(struct field *fld, uint32_t n)
{
	struct answer a;
	char *path;
	size_t done = 0;
	int fd, e;

	if (n != 2 || !field_str(&fld[0], &path) || !*path) {
		refuse("malformed write request", 0);
		return;
	}
	if ((e = make_parents(path)) != 0) {
		refuse(path, e);
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_NONBLOCK | O_CLOEXEC, 0644);
	if (fd < 0) {
		refuse(path, errno);
		return;
	}
	while (done < fld[1].len) {
		ssize_t w = write(fd, fld[1].p + done, fld[1].len - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			e = w < 0 ? errno : ENOSPC;
			close(fd);
			refuse(path, e);
			return;
		}
		done += (size_t)w;
	}
	if (close(fd) < 0) {
		refuse(path, errno);
		return;
	}
	memset(&a, 0, sizeof(a));
	add_num(&a, (long long)done);
	send_answer(&a);
}

static void op_stat(struct field *fld, uint32_t n)
{
	struct answer a;
	struct stat st;
	char *path, buf[64];

	if (n != 1 || !field_str(&fld[0], &path)) {
		refuse("malformed stat request", 0);
		return;
	}
	if (stat(path, &st) < 0) {
		refuse(path, errno);
		return;
	}
	memset(&a, 0, sizeof(a));
	if (S_ISREG(st.st_mode))
		snprintf(buf, sizeof(buf), "file %lld", (long long)st.st_size);
	else
		snprintf(buf, sizeof(buf), "%s", S_ISDIR(st.st_mode) ? "dir" : "other");
	add_str(&a, buf);
	send_answer(&a);
}

/* ---- commands ------------------------------------------------------------ */

static void set_limit(int res, long long v)
{
	struct rlimit rl;

	if (v <= 0)
		return;
	rl.rlim_cur = rl.rlim_max = (rlim_t)v;
	setrlimit(res, &rl);
}

/* The command's process: its own session, the limits, then the shell. */
static _Noreturn void command_child(const char *cmd, int out_fd)
{
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)cmd, NULL };
	char *envp[] = {
		(char *)"PATH=/usr/local/bin:/usr/bin:/bin",
		(char *)"HOME=" SC_JAIL_WORKSPACE,
		(char *)"TMPDIR=/tmp",
		(char *)"LANG=C.UTF-8",
		(char *)"SKILLS_DIR=" SC_JAIL_SKILLS_DIR,
		NULL,
	};
	sigset_t none;
	int null_fd;

	setsid();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	null_fd = open("/dev/null", O_RDONLY);
	if (null_fd >= 0)
		dup2(null_fd, 0);
	dup2(out_fd, 1);
	dup2(out_fd, 2);
	for (int fd = 3; fd < 256; fd++)
		close(fd);
	{
		struct rlimit none_rl = { 0, 0 };
		setrlimit(RLIMIT_CORE, &none_rl);
	}
	set_limit(RLIMIT_CPU, lim.cpu_s);
	set_limit(RLIMIT_AS, lim.memory);
	set_limit(RLIMIT_NPROC, lim.processes);
	set_limit(RLIMIT_FSIZE, lim.file_bytes);
	set_limit(RLIMIT_NOFILE, lim.open_files);
	execve("/bin/sh", argv, envp);
	_exit(127);
}

/* Ends every process of the namespace but this one, and reaps them all. */
static void kill_rest(void)
{
	pid_t r;

	kill(-1, SIGKILL);
	/* killed processes are zombies until reaped; reap until none is left */
	do {
		r = waitpid(-1, NULL, 0);
	} while (r > 0 || (r < 0 && errno == EINTR));
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

static void op_run(struct field *fld, uint32_t n)
{
	struct answer a;
	char *cmd, status[64], *out;
	long long timeout_ms, keep;
	size_t got = 0;
	long long total = 0;
	int pipefd[2], pidfd, wstatus = 0;
	bool exited = false, timed_out = false;
	int64_t t0 = now_ms(), deadline;
	pid_t pid;

	if (n != 3 || !field_str(&fld[0], &cmd) || (timeout_ms = field_num(&fld[1])) <= 0 ||
	    (keep = field_num(&fld[2])) < 0 || keep > SC_JAIL_MAX_FIELD) {
		refuse("malformed run request", 0);
		return;
	}
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		refuse("pipe", errno);
		return;
	}
	pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pipefd[0]);
		close(pipefd[1]);
		refuse("cannot start the command (fork)", e);
		return;
	}
	if (pid == 0)
		command_child(cmd, pipefd[1]);
	close(pipefd[1]);
	pidfd = open_pidfd(pid);
	out = xmalloc((size_t)keep + 1);
	deadline = t0 + timeout_ms;
	fcntl(pipefd[0], F_SETFL, O_NONBLOCK);
	while (!exited) {
		struct pollfd p[2];
		int np = 0, wait_ms = (int)(deadline - now_ms());
		char buf[65536];

		if (wait_ms <= 0) {
			timed_out = true;
			break;
		}
		if (pipefd[0] >= 0)
			p[np++] = (struct pollfd){ pipefd[0], POLLIN, 0 };
		if (pidfd >= 0)
			p[np++] = (struct pollfd){ pidfd, POLLIN, 0 };
		else if (wait_ms > 20)
			wait_ms = 20;  /* no pidfd: look at the child now and then */
		if (poll(p, (nfds_t)np, wait_ms) < 0 && errno != EINTR)
			break;
		if (pipefd[0] >= 0) {
			for (;;) {
				ssize_t r = read(pipefd[0], buf, sizeof(buf));
				if (r > 0) {
					size_t take = (size_t)r;
					total += r;
					if (got + take > (size_t)keep)
						take = (size_t)keep - got;
					memcpy(out + got, buf, take);
					got += take;
					continue;
				}
				if (r == 0) {
					close(pipefd[0]);
					pipefd[0] = -1;
				}
				break;
			}
		}
		if (waitpid(pid, &wstatus, WNOHANG) == pid)
			exited = true;
	}
	if (!exited) {
		kill(-pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR)
			;
	}
	/* whatever it left behind: killed, so its end of the pipe closes */
	kill_rest();
	if (pipefd[0] >= 0) {
		char buf[65536];
		ssize_t r;
		fcntl(pipefd[0], F_SETFL, 0);
		while ((r = read(pipefd[0], buf, sizeof(buf))) > 0 || (r < 0 && errno == EINTR)) {
			size_t take;
			if (r < 0)
				continue;
			take = (size_t)r;
			total += r;
			if (got + take > (size_t)keep)
				take = (size_t)keep - got;
			memcpy(out + got, buf, take);
			got += take;
		}
		close(pipefd[0]);
	}
	if (pidfd >= 0)
		close(pidfd);
	if (timed_out)
		snprintf(status, sizeof(status), "timeout");
	else if (WIFSIGNALED(wstatus))
		snprintf(status, sizeof(status), "signal %d", WTERMSIG(wstatus));
	else
		snprintf(status, sizeof(status), "exit %d", WEXITSTATUS(wstatus));
	memset(&a, 0, sizeof(a));
	add_str(&a, status);
	add_field(&a, out, got);
	add_num(&a, total);
	add_num(&a, (long long)(now_ms() - t0));
	send_answer(&a);
	free(out);
}

/* ---- the loop ------------------------------------------------------------ */

static long long arg_num(const char *s)
{
	char *end;
	long long v = strtoll(s, &end, 10);
	if (end == s || *end || v < 0)
		die("usage: skillci-jail CPU_S MEMORY_BYTES PROCESSES FILE_BYTES OPEN_FILES");
	return v;
}

int main(int argc, char **argv)
{
	struct field fld[SC_JAIL_MAX_FIELDS];

	/* it kills every process it may signal after each command (kill(-1)):
	 * safe only as process 1 of the jail's own pid namespace, fatal to
	 * the machine anywhere else */
	if (getpid() != 1)
		die("runs only as process 1 of an agent jail, which skillci starts");
	if (argc != 6)
		die("usage: skillci-jail CPU_S MEMORY_BYTES PROCESSES FILE_BYTES OPEN_FILES");
	lim.cpu_s = (long)arg_num(argv[1]);
	lim.memory = arg_num(argv[2]);
	lim.processes = (long)arg_num(argv[3]);
	lim.file_bytes = arg_num(argv[4]);
	lim.open_files = (long)arg_num(argv[5]);
	/* no ptrace of this process and no reading its memory, even by the
	 * commands it runs as the same user */
	prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	signal(SIGPIPE, SIG_IGN);
	umask(022);
	for (;;) {
		unsigned char h[5], l[4];
		uint32_t nf;

		if (!read_all(0, h, 5))
			break;
		nf = get_u32(h + 1);
		if (nf > SC_JAIL_MAX_FIELDS)
			die("malformed request (too many fields)");
		for (uint32_t i = 0; i < nf; i++) {
			if (!read_all(0, l, 4))
				die("malformed request (cut short)");
			fld[i].len = get_u32(l);
			if (fld[i].len > SC_JAIL_MAX_FIELD)
				die("malformed request (field too long)");
			fld[i].p = xmalloc(fld[i].len + 1);
			if (!read_all(0, fld[i].p, fld[i].len))
				die("malformed request (cut short)");
			fld[i].p[fld[i].len] = '\0';
		}
		switch (h[0]) {
		case SC_JAIL_OP_READ: op_read(fld, nf); break;
		case SC_JAIL_OP_LIST: op_list(fld, nf); break;
		case SC_JAIL_OP_WRITE: op_write(fld, nf); break;
		case SC_JAIL_OP_RUN: op_run(fld, nf); break;
		case SC_JAIL_OP_STAT: op_stat(fld, nf); break;
		default: refuse("unknown request", 0); break;
		}
		for (uint32_t i = 0; i < nf; i++)
			free(fld[i].p);
	}
	kill_rest();
	return 0;
}
