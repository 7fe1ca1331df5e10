/* Fixture listing, hashing and the lock file (fixture.h). */
#include "common.h"
#include "json.h"
#include "kernelrun/fixture.h"

#include <ctype.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#define FIXTURE_MAX_FILES 256

static bool valid_name(const char *s)
{
	if (!*s || *s == '-' || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!(islower((unsigned char)*s) || isdigit((unsigned char)*s) || *s == '-'))
			return false;
	return true;
}

/* Collects relative paths of regular files under root/rel into *v. */
static int collect(char ***v, size_t *n, size_t *alloc, const char *root, const char *rel, int depth)
{
	struct sc_buf path = SC_BUF_INIT, sub = SC_BUF_INIT;
	DIR *d = NULL;
	struct dirent *e;
	int err = 0;

	if (depth > 8)
		return sc_error_set(SC_ELIMIT, "'%s': folders nested too deeply", root);
	if (*rel)
		sc_path_join(&path, root, rel);
	else
		sc_buf_puts(&path, root);
	if (!(d = opendir(path.ptr))) {
		err = sc_error_set(SC_ENOTFOUND, "cannot open '%s': %s", path.ptr, strerror(errno));
		goto done;
	}
	while ((e = readdir(d)) != NULL) {
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		sc_buf_clear(&sub);
		if (*rel)
			sc_path_join(&sub, rel, e->d_name);
		else
			sc_buf_puts(&sub, e->d_name);
		sc_buf_clear(&path);
		sc_path_join(&path, root, sub.ptr);
		if (lstat(path.ptr, &st) < 0) {
			err = sc_error_set(SC_EIO, "cannot stat '%s': %s", path.ptr, strerror(errno));
			goto done;
		}
		if (S_ISLNK(st.st_mode)) {
			err = sc_error_set(SC_EUNSAFE, "'%s' is a symlink; fixtures hold plain files only", path.ptr);
			goto done;
		}
		if (S_ISDIR(st.st_mode)) {
			if ((err = collect(v, n, alloc, root, sub.ptr, depth + 1)) < 0)
				goto done;
		} else if (S_ISREG(st.st_mode)) {
			if (*n >= FIXTURE_MAX_FILES) {
				err = sc_error_set(SC_ELIMIT, "'%s' has more than %d files", root, FIXTURE_MAX_FILES);
				goto done;
			}
			SC_GROW(*v, *alloc, *n + 1);
			(*v)[(*n)++] = sc_xstrdup(sub.ptr);
		}
	}
done:
	if (d)
		closedir(d);
	sc_buf_release(&path);
	sc_buf_release(&sub);
	return err;
}

int sc_fixture_hash(char out[SC_SHA256_HEX_LEN + 1], const char *dir)
{
	char **files = NULL;
	size_t n = 0, alloc = 0;
	struct sc_sha256 h;
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT, hex = SC_BUF_INIT;
	unsigned char digest[SC_SHA256_LEN];
	int err;

	if ((err = collect(&files, &n, &alloc, dir, "", 0)) < 0)
		goto done;
	qsort(files, n, sizeof(*files), sc_strcmp_qsort);
	sc_sha256_init(&h);
	for (size_t i = 0; i < n; i++) {
		char size[32];
		sc_buf_clear(&path);
		sc_path_join(&path, dir, files[i]);
		sc_buf_clear(&data);
		if ((err = sc_read_file(&data, path.ptr, SC_MAX_FILE_BYTES)) < 0)
			goto done;
		snprintf(size, sizeof(size), "%zu", data.len);
		sc_sha256_update(&h, files[i], strlen(files[i]) + 1);
		sc_sha256_update(&h, size, strlen(size) + 1);
		sc_sha256_update(&h, data.ptr, data.len);
	}
	sc_sha256_final(&h, digest);
	sc_hex(&hex, digest, sizeof(digest));
	memcpy(out, hex.ptr, SC_SHA256_HEX_LEN + 1);
done:
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
	sc_buf_release(&path);
	sc_buf_release(&data);
	sc_buf_release(&hex);
	return err;
}

/* Reads the lock into the pinned fields of list. A missing lock is fine. */
static int read_lock(struct sc_fixture_list *list, const char *dir)
{
	struct sc_buf path = SC_BUF_INIT, text = SC_BUF_INIT;
	const char *p;
	size_t line = 0;
	int err = 0;

	sc_path_join(&path, dir, SC_FIXTURES_LOCK);
	if (access(path.ptr, F_OK) != 0)
		goto done;
	if ((err = sc_read_file(&text, path.ptr, 1024 * 1024)) < 0)
		goto done;
	for (p = text.ptr; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char hash[SC_SHA256_HEX_LEN + 1], name[80];
		line++;
		if (len && p[0] != '#') {
			struct sc_buf l = SC_BUF_INIT;
			sc_buf_put(&l, p, len);
			if (sscanf(l.ptr, "%64[0-9a-f] %79s", hash, name) != 2 || strlen(hash) != SC_SHA256_HEX_LEN) {
				err = sc_error_set(SC_EPARSE, "%s:%zu: expected '<sha256>  <fixture>'", path.ptr, line);
				sc_buf_release(&l);
				goto done;
			}
			sc_buf_release(&l);
			for (size_t i = 0; i < list->n; i++)
				if (!strcmp(list->items[i].name, name))
					memcpy(list->items[i].pinned, hash, sizeof(hash));
		}
		p += len + (eol ? 1 : 0);
	}
done:
	sc_buf_release(&path);
	sc_buf_release(&text);
	return err;
}

static int cmp_fixture(const void *a, const void *b)
{
	return strcmp(((const struct sc_fixture *)a)->name, ((const struct sc_fixture *)b)->name);
}

int sc_fixture_list(struct sc_fixture_list *out, const char *dir)
{
	DIR *d;
	struct dirent *e;
	struct sc_buf spec = SC_BUF_INIT;
	int err = 0;

	memset(out, 0, sizeof(*out));
	if (!(d = opendir(dir)))
		return sc_error_set(SC_ENOTFOUND, "cannot open fixtures folder '%s': %s", dir, strerror(errno));
	while ((e = readdir(d)) != NULL) {
		struct sc_fixture *f;
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		sc_buf_clear(&spec);
		sc_path_join(&spec, dir, e->d_name);
		if (lstat(spec.ptr, &st) < 0 || !S_ISDIR(st.st_mode))
			continue;
		sc_buf_puts(&spec, "/spec.json");
		if (access(spec.ptr, F_OK) != 0)
			continue;
		if (!valid_name(e->d_name)) {
			err = sc_error_set(SC_EINVAL, "fixture folder '%s/%s': names are lowercase letters, digits and hyphens",
					   dir, e->d_name);
			break;
		}
		SC_GROW(out->items, out->alloc, out->n + 1);
		f = &out->items[out->n++];
		memset(f, 0, sizeof(*f));
		f->name = sc_xstrdup(e->d_name);
		sc_buf_clear(&spec);
		sc_path_join(&spec, dir, e->d_name);
		f->dir = sc_xstrdup(spec.ptr);
		if ((err = sc_fixture_hash(f->hash, f->dir)) < 0)
			break;
	}
	closedir(d);
	sc_buf_release(&spec);
	if (err == 0)
		err = read_lock(out, dir);
	if (err < 0) {
		sc_fixture_list_release(out);
		return err;
	}
	qsort(out->items, out->n, sizeof(*out->items), cmp_fixture);
	for (size_t i = 0; i < out->n; i++) {
		struct sc_fixture *f = &out->items[i];
		f->pin = !f->pinned[0] ? SC_PIN_UNPINNED : strcmp(f->pinned, f->hash) ? SC_PIN_CHANGED : SC_PIN_OK;
	}
	return 0;
}

void sc_fixture_list_release(struct sc_fixture_list *list)
{
	for (size_t i = 0; i < list->n; i++) {
		free(list->items[i].name);
		free(list->items[i].dir);
	}
	free(list->items);
	memset(list, 0, sizeof(*list));
}

const struct sc_fixture *sc_fixture_find(const struct sc_fixture_list *list, const char *name)
{
	for (size_t i = 0; i < list->n; i++)
		if (!strcmp(list->items[i].name, name))
			return &list->items[i];
	return NULL;
}

int sc_fixture_lock_write(const char *dir, const struct sc_fixture_list *list)
{
	struct sc_buf path = SC_BUF_INIT, text = SC_BUF_INIT;
	int err;

	sc_buf_puts(&text, "# skillci fixtures.lock: SHA-256 of each fixture folder (every file, sorted,\n"
			   "# with its name and size). Re-pin with 'skillci fixtures lock' after review.\n");
	for (size_t i = 0; i < list->n; i++)
		sc_buf_printf(&text, "%s  %s\n", list->items[i].hash, list->items[i].name);
	sc_path_join(&path, dir, SC_FIXTURES_LOCK);
	err = sc_write_file_atomic(path.ptr, text.ptr, text.len);
	sc_buf_release(&path);
	sc_buf_release(&text);
	return err;
}

int sc_fixture_require_pinned(const struct sc_fixture *f, bool allow_unpinned)
{
	if (allow_unpinned || f->pin == SC_PIN_OK)
		return 0;
	if (f->pin == SC_PIN_UNPINNED)
		return sc_error_set(SC_EUNSAFE,
				    "fixture '%s' is not pinned in %s; review it and run 'skillci fixtures lock', or pass --allow-unpinned",
				    f->name, SC_FIXTURES_LOCK);
	return sc_error_set(SC_EUNSAFE,
			    "fixture '%s' changed since it was pinned (hash %.12s, lock %.12s); review the change and run 'skillci fixtures lock', or pass --allow-unpinned",
			    f->name, f->hash, f->pinned);
}

int sc_fixture_entry(struct sc_buf *out, const struct sc_fixture *fx)
{
	struct sc_buf path = SC_BUF_INIT, text = SC_BUF_INIT;
	cJSON *spec = NULL;
	const char *entry;
	int err;

	sc_path_join(&path, fx->dir, "spec.json");
	if ((err = sc_read_file(&text, path.ptr, SC_MAX_JSON_BYTES)) < 0)
		goto done;
	spec = cJSON_ParseWithLength(text.ptr, text.len);
	if (sc_json_get_str(&entry, spec, "entry") != SC_JSON_OK)
		err = sc_error_set(SC_EPARSE, "%s: no \"entry\"", path.ptr);
	else
		sc_buf_sets(out, entry);
done:
	cJSON_Delete(spec);
	sc_buf_release(&path);
	sc_buf_release(&text);
	return err;
}
