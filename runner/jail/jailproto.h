#ifndef SC_JAILPROTO_H
#define SC_JAILPROTO_H
/*
 * The words between skillci (runner/agent/jail.c) and the helper that
 * runs inside the agent jail (runner/jail/helper.c, the program
 * skillci-jail). The helper is the jail's process 1: it reads requests on
 * its stdin and answers each on its stdout, one at a time, until its
 * stdin closes.
 *
 * A request:  op (1 byte), nfields (u32), then per field: len (u32), bytes
 * An answer:  status (u32: 0 ok, 1 refused, with the message as field 0),
 *             nfields (u32), then per field: len (u32), bytes
 *
 * Integers are little-endian 32-bit unsigned (both ends run on the same
 * machine, so the host's byte order would do; it is spelled out so the
 * format does not depend on it). Every field is bounded
 * (SC_JAIL_MAX_FIELD) and so is their count (SC_JAIL_MAX_FIELDS).
 *
 * The requests and their fields (paths are relative to the workspace, or
 * absolute inside the jail):
 *
 *   READ   path, max_bytes            -> content (at most max_bytes), total size
 *   LIST   path                       -> listing ("NAME\tTYPE\tSIZE\n" per entry, sorted)
 *   WRITE  path, content              -> bytes written (parent folders are made)
 *   RUN    command, timeout_ms, keep  -> status, output (at most keep bytes of
 *                                        stdout and stderr as they came), total
 *                                        output bytes, wall ms
 *   STAT   path                       -> "file SIZE", "dir", "other" or refused
 *
 * RUN's status is "exit N", "signal N" or "timeout": the command's own
 * exit status, the signal that ended it (SIGXCPU, SIGXFSZ for the CPU and
 * file-size limits), or the wall-time limit reached. Whatever the command
 * left running is killed before the answer: nothing outlives one RUN.
 *
 * The helper is started as
 *   skillci-jail CPU_S MEMORY_BYTES PROCESSES FILE_BYTES OPEN_FILES
 * and applies those limits (setrlimit) to every command it runs.
 */

#define SC_JAIL_OP_READ  'R'
#define SC_JAIL_OP_LIST  'L'
#define SC_JAIL_OP_WRITE 'W'
#define SC_JAIL_OP_RUN   'X'
#define SC_JAIL_OP_STAT  'S'

#define SC_JAIL_STATUS_OK      0
#define SC_JAIL_STATUS_REFUSED 1

#define SC_JAIL_MAX_FIELDS 8
#define SC_JAIL_MAX_FIELD  (4u * 1024 * 1024)  /* a file written or read, a command, an output */
#define SC_JAIL_MAX_LIST   2000                /* entries of one LIST */

/* Where the helper sits inside the jail, and the workspace. */
#define SC_JAIL_HELPER_PATH "/.skillci-jail"
#define SC_JAIL_WORKSPACE   "/workspace"
#define SC_JAIL_SKILLS_DIR  "/workspace/.skills"

#endif
