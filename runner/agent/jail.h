#ifndef SC_AGENT_JAIL_H
#define SC_AGENT_JAIL_H
/*
 * The agent jail (docs/security.md, "The agent jail"): one bubblewrap
 * sandbox per agent unit, in which the student's tool calls and the
 * skill's scripts run, and the workspace verifiers after them.
 *
 * A jail has new user, pid, network, IPC, UTS and cgroup namespaces (no
 * network at all: its loopback is its own), sees /usr and a few files of
 * /etc read-only and nothing else of the machine (no home folder, no
 * runner key, cache, store or repository), a private /tmp and a
 * workspace, both size-limited memory file systems and the only places it
 * may write, and each listed skill read-only at
 * /workspace/.skills/NAME. Its process 1 is skillci-jail
 * (runner/jail/helper.c), which does what the calls below ask; commands
 * run under CPU, memory, process, file-size and open-file limits and a
 * wall-time limit, and nothing a command starts outlives it. When
 * skillci runs as root, the jail runs as nobody (uid 65534), so that the
 * kernel enforces the process limit.
 *
 * Every call blocks (the evaluation runs them on its work pool, never on
 * the request loop). A jail is used by one thread at a time.
 *
 * Errors: a request the jail refused (a missing file, a folder written
 * to, a read-only skill) returns SC_EINVAL with the jail's message, for
 * the model to read; a jail that cannot start, or stops answering,
 * returns SC_ENOSYS ("jail unavailable: ...") or SC_EIO, never runs
 * anything outside it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "buf.h"

/* The limits of one jail (docs/config.md, "agent"). */
struct sc_jail_limits {
	int64_t command_timeout_ms;  /* wall time of one command */
	int cpu_s;                   /* CPU seconds per process (RLIMIT_CPU) */
	int64_t memory_bytes;        /* address space per process (RLIMIT_AS) */
	int processes;               /* processes at once (RLIMIT_NPROC, counted per jail) */
	int64_t file_bytes;          /* largest file a command writes (RLIMIT_FSIZE) */
	int open_files;              /* per process (RLIMIT_NOFILE) */
	int64_t workspace_bytes;     /* size of /workspace */
	int64_t tmp_bytes;           /* size of /tmp */
	size_t output_bytes;         /* a command's output kept (the rest is counted) */
};

#define SC_JAIL_DEFAULT_TIMEOUT_MS   (60 * 1000)
#define SC_JAIL_DEFAULT_CPU_S        60
#define SC_JAIL_DEFAULT_MEMORY       (2LL * 1024 * 1024 * 1024)
#define SC_JAIL_DEFAULT_PROCESSES    64
#define SC_JAIL_DEFAULT_FILE_BYTES   (64LL * 1024 * 1024)
#define SC_JAIL_DEFAULT_OPEN_FILES   256
#define SC_JAIL_DEFAULT_WORKSPACE    (256LL * 1024 * 1024)
#define SC_JAIL_DEFAULT_TMP          (64LL * 1024 * 1024)
#define SC_JAIL_DEFAULT_OUTPUT       (64 * 1024)
#define SC_JAIL_UNPRIVILEGED_UID     65534  /* nobody: the jail's user when skillci is root */

void sc_jail_limits_init(struct sc_jail_limits *lim);

/* A folder shown read-only in the jail at /workspace/.skills/NAME. */
struct sc_jail_mount {
	const char *name;      /* a skill name: lowercase letters, digits, '-' */
	const char *host_dir;
};

struct sc_jail;

/*
 * A new, empty folder (mode 0755) for the copies a jail mounts, into out:
 * under $TMPDIR, or, when skillci is root (the jail runs as nobody) and
 * $TMPDIR is closed to others, /tmp, /var/tmp or /dev/shm. Files put in
 * it must be readable by others (0644). The caller removes it.
 */
int sc_jail_stage_dir(struct sc_buf *out);

/*
 * Whether a jail can start on this machine: bubblewrap found and working
 * (user namespaces allowed), the helper built. 0, or SC_ENOSYS with a
 * message "jail unavailable: WHY". Probed once per process (thread-safe);
 * the answer is kept.
 */
int sc_jail_probe(void);

/*
 * Starts a jail with mounts[0..n) and the limits, and waits until its
 * helper answers. SC_ENOSYS "jail unavailable: ..." when bubblewrap or
 * the helper cannot run; SC_EINVAL for a bad mount name.
 */
int sc_jail_start(struct sc_jail **out, const struct sc_jail_limits *lim,
		  const struct sc_jail_mount *mounts, size_t n);
/* Ends the jail and everything in it, and frees it. NULL is a no-op. */
void sc_jail_free(struct sc_jail *jail);
/* Milliseconds sc_jail_start took (for the benchmark and traces). */
int64_t sc_jail_start_ms(const struct sc_jail *jail);

/*
 * The file operations, paths relative to the workspace (or absolute
 * inside the jail). read: at most max bytes into out (replacing it), the
 * file's size in *size. list: "NAME\tTYPE\tSIZE" lines, sorted. write:
 * parent folders made. stat: "file SIZE", "dir" or "other" into out.
 */
int sc_jail_read(struct sc_jail *jail, struct sc_buf *out, int64_t *size, const char *path,
		 size_t max);
int sc_jail_list(struct sc_jail *jail, struct sc_buf *out, const char *path);
int sc_jail_write(struct sc_jail *jail, const char *path, const void *data, size_t len);
int sc_jail_stat(struct sc_jail *jail, struct sc_buf *out, const char *path);

/* What one command did. */
struct sc_jail_run {
	int exit_code;          /* -1 when it did not exit on its own */
	int signal;             /* the signal that ended it, 0 when none */
	bool timed_out;         /* killed at the wall-time limit */
	struct sc_buf output;   /* stdout and stderr as they came, up to the limit */
	int64_t output_total;   /* bytes it wrote in all */
	int64_t wall_ms;
};
void sc_jail_run_init(struct sc_jail_run *r);
void sc_jail_run_release(struct sc_jail_run *r);
/*
 * Runs a shell command (sh -c) in the workspace; timeout_ms <= 0: the
 * jail's limit. The command's failure is not an error (see out); an
 * error is the jail's own (SC_EIO).
 */
int sc_jail_exec(struct sc_jail *jail, struct sc_jail_run *out, const char *command,
		 int64_t timeout_ms);
/* "exit 3", "killed by SIGXFSZ (file size limit exceeded)", "timed out after 60 s". */
void sc_jail_run_describe(struct sc_buf *out, const struct sc_jail_run *r, int64_t timeout_ms);

#endif
