#ifndef SC_WORKDIR_H
#define SC_WORKDIR_H
/*
 * The work folder of one `skillci run`: ROOT/RUN_ID (ROOT is
 * .skillci/work), where both sides of every changed skill, the base's
 * configuration and fixtures are written out. It is held by an exclusive
 * lock on ROOT/RUN_ID.lock for as long as the run lives; the kernel
 * releases the lock when the process dies, however it dies. Creating one
 * removes every folder of ROOT whose lock nobody holds (runs killed with
 * SIGKILL, machines that lost power), so work folders never pile up.
 *
 * Ownership: struct sc_workdir owns its strings and the lock descriptor.
 */
#include <stddef.h>

struct sc_workdir {
	char *path;        /* ROOT/RUN_ID */
	char *lock_path;   /* ROOT/RUN_ID.lock */
	int lock_fd;       /* -1 when none */
};

/*
 * Creates root (parents too), takes the lock of run_id, cleans the
 * folders left by dead runs (their number in *cleaned, may be NULL) and
 * creates ROOT/RUN_ID. Returns 0 or SC_EIO naming the path.
 */
int sc_workdir_create(struct sc_workdir *w, const char *root, const char *run_id, size_t *cleaned);
/* Removes the folder and its lock file and releases the lock. */
void sc_workdir_release(struct sc_workdir *w);

#endif
