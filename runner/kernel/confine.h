#ifndef SC_KERNEL_CONFINE_H
#define SC_KERNEL_CONFINE_H
/*
 * A jail for the compiler: the calling process (a child forked for one
 * compile) enters a new user and mount namespace whose root is an empty
 * tmpfs holding only the given folders, bind-mounted read-only at the same
 * paths. NVRTC run afterwards cannot open, stat or test the existence of
 * any other host file: `#include "/etc/passwd"` and
 * `__has_include("/root/.ssh/id_rsa")` find nothing, whatever the scan
 * missed. Where the system refuses user or mount namespaces (a container
 * without them, a kernel with unprivileged user namespaces disabled), the
 * call fails with the reason and the caller compiles unconfined.
 */
#include <stddef.h>

/*
 * Enters the jail with dirs (absolute folders; NULL entries skipped) as
 * the only content. Irreversible; call it only in a child process that
 * exits afterwards. Returns 0, or SC_ENOSYS with the reason ("user
 * namespaces are not permitted here: ...").
 */
int sc_confine_enter(const char *const *dirs, size_t ndirs);

#endif
