/*
 * The compiler's jail (confine.h): unshare a user and a mount namespace,
 * make every mount private, put an empty tmpfs over /tmp, bind the allowed
 * folders into it at their own paths, read-only, and chroot there.
 * Folders are opened before the tmpfs is mounted and bound through
 * /proc/self/fd, so a folder under /tmp stays reachable.
 */
#include "common.h"
#include "confine.h"

#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#define JAIL "/tmp"
#define CONFINE_MAX_DIRS 4

static int write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A new user namespace (mapping our own ids) and mount namespace; a
 * real root without user namespaces takes the mount namespace alone. */
static int enter_namespaces(void)
{
	uid_t uid = getuid();
	gid_t gid = getgid();
	char map[64];

	if (unshare(CLONE_NEWUSER | CLONE_NEWNS) == 0) {
		(void)write_file("/proc/self/setgroups", "deny");
		snprintf(map, sizeof(map), "%u %u 1", (unsigned)uid, (unsigned)uid);
		if (write_file("/proc/self/uid_map", map) < 0)
			return sc_error_set(SC_ENOSYS, "cannot map the user id in a new user namespace: %s",
					    strerror(errno));
		snprintf(map, sizeof(map), "%u %u 1", (unsigned)gid, (unsigned)gid);
		if (write_file("/proc/self/gid_map", map) < 0)
			return sc_error_set(SC_ENOSYS, "cannot map the group id in a new user namespace: %s",
					    strerror(errno));
		return 0;
	}
	if (unshare(CLONE_NEWNS) == 0)
		return 0;
	return sc_error_set(SC_ENOSYS, "user and mount namespaces are not permitted here (%s)", strerror(errno));
}

/* mkdir -p of path below the jail root. */
static int make_path(const char *path)
{
	struct sc_buf b = SC_BUF_INIT;
	int err = 0;

	sc_buf_puts(&b, JAIL);
	for (const char *p = path; *p && !err;) {
		const char *e;
		while (*p == '/')
			p++;
		e = strchr(p, '/');
		if (!e)
			e = p + strlen(p);
		if (e > p) {
			sc_buf_putc(&b, '/');
			sc_buf_put(&b, p, (size_t)(e - p));
			if (mkdir(b.ptr, 0755) < 0 && errno != EEXIST)
				err = -1;
		}
		p = e;
	}
	sc_buf_release(&b);
	return err;
}

/* The mount flags of a statvfs() result that a remount must keep. */
static unsigned long locked_flags(unsigned long f)
{
	return (f & ST_NOSUID ? MS_NOSUID : 0) | (f & ST_NODEV ? MS_NODEV : 0) | (f & ST_NOEXEC ? MS_NOEXEC : 0) |
	       (f & ST_NOATIME ? MS_NOATIME : 0) | (f & ST_NODIRATIME ? MS_NODIRATIME : 0) |
	       (f & ST_RELATIME ? MS_RELATIME : 0);
}

int sc_confine_enter(const char *const *dirs, size_t ndirs)
{
	int fds[CONFINE_MAX_DIRS];
	size_t nfd = 0;
	int err = 0;

	assert(ndirs <= CONFINE_MAX_DIRS);
	for (size_t i = 0; i < ndirs; i++)
		if (dirs[i] && dirs[i][0] != '/')
			return sc_error_set(SC_EINVAL, "jail folder '%s' is not absolute", dirs[i]);
	if ((err = enter_namespaces()) < 0)
		return err;
	/* Opened in the new namespace (a bind needs a source there) and
	 * before the tmpfs hides what is under /tmp. */
	for (size_t i = 0; i < ndirs; i++) {
		fds[i] = dirs[i] ? open(dirs[i], O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
		nfd = i + 1;
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
	    mount("tmpfs", JAIL, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") < 0) {
		err = sc_error_set(SC_ENOSYS, "cannot mount an empty root for the compiler: %s", strerror(errno));
		goto done;
	}
	for (size_t i = 0; i < nfd; i++) {
		struct sc_buf src = SC_BUF_INIT, dst = SC_BUF_INIT;
		struct statvfs sv;
		if (fds[i] < 0)
			continue;
		sc_buf_printf(&src, "/proc/self/fd/%d", fds[i]);
		sc_buf_printf(&dst, JAIL "%s", dirs[i]);
		if (make_path(dirs[i]) < 0 || mount(src.ptr, dst.ptr, NULL, MS_BIND | MS_REC, NULL) < 0)
			err = sc_error_set(SC_ENOSYS, "cannot bind '%s' into the compiler's root: %s", dirs[i],
					   strerror(errno));
		/* Read-only, keeping the flags the kernel locks on the source
		 * mount (nosuid, nodev, ...); where that is refused the folder
		 * stays read-write, which NVRTC never uses. */
		else if (fstatvfs(fds[i], &sv) == 0)
			(void)mount(NULL, dst.ptr, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | locked_flags(sv.f_flag), NULL);
		sc_buf_release(&src);
		sc_buf_release(&dst);
		if (err < 0)
			goto done;
	}
	if (chdir(JAIL) < 0 || chroot(".") < 0 || chdir("/") < 0) {
		err = sc_error_set(SC_ENOSYS, "cannot change the compiler's root: %s", strerror(errno));
		goto done;
	}
	(void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
done:
	for (size_t i = 0; i < nfd; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	return err;
}
