/* The work folder of a run and its lock (workdir.h). */
#include "common.h"
#include "pipeline/workdir.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* True when name ends in ".lock". */
static bool is_lock(const char *name)
{
	return sc_ends_with(name, ".lock");
}

/*
 * Removes ROOT/NAME when no live run holds ROOT/NAME.lock: the lock is
 * taken without waiting; a folder without a lock file belongs to no run
 * (a run makes its lock file before its folder). Returns 1 when removed.
 */
static int clean_one(const char *root, const char *name)
{
	struct sc_buf dir = SC_BUF_INIT, lock = SC_BUF_INIT;
	int fd, removed = 0;

	sc_path_join(&dir, root, name);
	sc_buf_printf(&lock, "%s.lock", dir.ptr);
	fd = open(lock.ptr, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);  /* a live run */
		goto done;
	}
	if (sc_rm_rf(dir.ptr) == 0)
		removed = 1;
	else
		sc_error_clear();
	if (fd >= 0) {
		unlink(lock.ptr);
		close(fd);
	}
done:
	sc_buf_release(&dir);
	sc_buf_release(&lock);
	return removed;
}

/* Removes the folders (and lone lock files) of dead runs under root. */
static size_t clean_dead(const char *root, const char *mine)
{
	DIR *d = opendir(root);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		struct sc_buf path = SC_BUF_INIT;
		struct stat st;
		const char *name = e->d_name;
		if (!strcmp(name, ".") || !strcmp(name, "..") || !strcmp(name, mine) ||
		    sc_ends_with(name, ".tmp"))
			continue;
		sc_path_join(&path, root, name);
		if (lstat(path.ptr, &st) == 0) {
			if (S_ISDIR(st.st_mode)) {
				n += (size_t)clean_one(root, name);
			} else if (is_lock(name)) {
				/* a lock whose folder is gone: drop it when unheld */
				int fd = open(path.ptr, O_RDWR | O_CLOEXEC);
				struct sc_buf dir = SC_BUF_INIT;
				sc_buf_put(&dir, path.ptr, path.len - 5);
				if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0 && access(dir.ptr, F_OK) < 0)
					unlink(path.ptr);
				if (fd >= 0)
					close(fd);
				sc_buf_release(&dir);
			}
		}
		sc_buf_release(&path);
	}
	closedir(d);
	return n;
}

int sc_workdir_create(struct sc_workdir *w, const char *root, const char *run_id, size_t *cleaned)
{
	struct sc_buf tmp = SC_BUF_INIT, path = SC_BUF_INIT, lock = SC_BUF_INIT;
	int err = 0, fd = -1;
	size_t n;

	memset(w, 0, sizeof(*w));
	w->lock_fd = -1;
	if ((err = sc_mkdir_p(root)) < 0)
		return err;
	sc_path_join(&path, root, run_id);
	sc_buf_printf(&lock, "%s.lock", path.ptr);
	/* the lock is held before its name appears, so no other run ever
	 * sees this run's lock file unheld */
	sc_buf_printf(&tmp, "%s.%ld.tmp", lock.ptr, (long)getpid());
	fd = open(tmp.ptr, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || flock(fd, LOCK_EX) < 0 || rename(tmp.ptr, lock.ptr) < 0) {
		err = sc_error_set(SC_EIO, "cannot lock the work folder '%s': %s", path.ptr,
				   strerror(errno));
		if (fd >= 0) {
			close(fd);
			unlink(tmp.ptr);
		}
		goto done;
	}
	n = clean_dead(root, run_id);
	if (cleaned)
		*cleaned = n;
	if ((err = sc_mkdir_p(path.ptr)) < 0) {
		unlink(lock.ptr);
		close(fd);
		goto done;
	}
	w->path = sc_buf_detach(&path, NULL);
	w->lock_path = sc_buf_detach(&lock, NULL);
	w->lock_fd = fd;
done:
	sc_buf_release(&tmp);
	sc_buf_release(&path);
	sc_buf_release(&lock);
	return err;
}

void sc_workdir_release(struct sc_workdir *w)
{
	if (w->path)
		sc_rm_rf(w->path);
	if (w->lock_path)
		unlink(w->lock_path);
	if (w->lock_fd >= 0)
		close(w->lock_fd);
	free(w->path);
	free(w->lock_path);
	memset(w, 0, sizeof(*w));
	w->lock_fd = -1;
}
