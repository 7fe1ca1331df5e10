/*
 * The trust boundary of a PR check (see trust.h): the configuration from
 * the base revision, what the head would change, the models, the paths
 * a run writes, the fixtures, the budget and the head's own tests.
 */
#include "common.h"
#include "diag.h"
#include "escape.h"
#include "git/git.h"
#include "kernelrun/fixture.h"
#include "pipeline/config.h"
#include "pipeline/trust.h"
#include "providers/provider.h"

#include <stdarg.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#define PATH_BUF 4096  /* realpath() output */

void sc_trust_init(struct sc_trust *t)
{
	memset(t, 0, sizeof(*t));
}

void sc_trust_release(struct sc_trust *t)
{
	free(t->config_source);
	for (size_t i = 0; i < t->nchanges; i++) {
		free(t->changes[i].key);
		free(t->changes[i].base);
		free(t->changes[i].head);
	}
	free(t->changes);
	sc_strlist_release(&t->notes);
	memset(t, 0, sizeof(*t));
}

void sc_trust_note(struct sc_trust *t, const char *fmt, ...)
{
	struct sc_buf b = SC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	sc_strlist_add(&t->notes, b.ptr);
	sc_buf_release(&b);
}

static void add_change(struct sc_trust *t, const char *key, const char *base, const char *head)
{
	struct sc_trust_change *c;

	struct sc_buf k = SC_BUF_INIT, b = SC_BUF_INIT, h = SC_BUF_INIT;

	/* every value listed is shown redacted, escaped and cut short */
	sc_escape_shown(&k, key, SC_SHOWN_VALUE_MAX);
	sc_escape_shown(&b, base, SC_SHOWN_VALUE_MAX);
	sc_escape_shown(&h, head, SC_SHOWN_VALUE_MAX);
	SC_GROW(t->changes, t->changes_alloc, t->nchanges + 1);
	c = &t->changes[t->nchanges++];
	c->key = sc_buf_detach(&k, NULL);
	c->base = sc_buf_detach(&b, NULL);
	c->head = sc_buf_detach(&h, NULL);
}

/* True when path (absolute, normalised) is dir or below it. */
static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/' || n == 1);
}

/*
 * The absolute form of path with every existing part resolved: realpath
 * of the longest existing prefix, then the rest as written. NULL when not
 * even the current folder resolves.
 */
static char *resolve_existing(const char *path)
{
	struct sc_buf abs = SC_BUF_INIT, out = SC_BUF_INIT;
	char real[PATH_BUF];
	size_t cut;

	if (path[0] != '/') {
		if (!getcwd(real, sizeof(real)))
			return NULL;
		sc_path_join(&abs, real, path);
	} else {
		sc_buf_puts(&abs, path);
	}
	cut = abs.len;
	for (;;) {
		char saved = abs.ptr[cut];
		abs.ptr[cut] = '\0';
		if (realpath(abs.ptr, real)) {
			abs.ptr[cut] = saved;
			sc_buf_puts(&out, real);
			if (cut < abs.len) {
				if (out.len > 1)
					sc_buf_putc(&out, '/');
				sc_buf_puts(&out, abs.ptr + cut + (abs.ptr[cut] == '/'));
			}
			break;
		}
		abs.ptr[cut] = saved;
		while (cut > 0 && abs.ptr[cut - 1] != '/')
			cut--;
		if (cut == 0) {
			sc_buf_release(&abs);
			sc_buf_release(&out);
			return NULL;
		}
		cut--;  /* the '/' before the missing part */
		if (cut == 0) {
			sc_buf_puts(&out, "/");
			sc_buf_puts(&out, abs.ptr + 1);
			break;
		}
	}
	sc_buf_release(&abs);
	return sc_buf_detach(&out, NULL);
}

/*
 * The absolute form of path as written: joined to the current folder,
 * "." and ".." taken by name, no link resolved. NULL when the current
 * folder is unknown.
 */
static char *lexical_abs(const char *path)
{
	struct sc_buf in = SC_BUF_INIT, out = SC_BUF_INIT;
	char cwd[PATH_BUF];
	const char *p;

	if (path[0] != '/') {
		if (!getcwd(cwd, sizeof(cwd)))
			return NULL;
		sc_path_join(&in, cwd, path);
	} else {
		sc_buf_puts(&in, path);
	}
	for (p = in.ptr; *p;) {
		size_t n;
		while (*p == '/')
			p++;
		n = strcspn(p, "/");
		if (n == 0)
			break;
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(out.ptr ? out.ptr : "", '/');
			sc_buf_truncate(&out, slash ? (size_t)(slash - out.ptr) : 0);
		} else if (!(n == 1 && p[0] == '.')) {
			sc_buf_putc(&out, '/');
			sc_buf_put(&out, p, n);
		}
		p += n;
	}
	if (!out.len)
		sc_buf_putc(&out, '/');
	sc_buf_release(&in);
	return sc_buf_detach(&out, NULL);
}

/*
 * Where --config points: a file of the repository (*rel set, to be read
 * from the revision's objects, never from the checkout) or a file of the
 * runner (NULL returned into *rel). A path that names a place inside the
 * work tree as written is the repository's, whatever links the checkout
 * holds there; one outside that reaches the work tree through a link is
 * the repository's too (its real path inside the tree). Only a path that
 * is outside both as written and as resolved is a file of the runner.
 * Returns a malloc'd buffer that *rel points into, or NULL.
 */
static char *config_in_repo(const char **rel, const char *path, const char *workdir)
{
	char *lex = lexical_abs(path), *abs = NULL;
	const char *r = NULL;

	*rel = NULL;
	if (!workdir || !lex)
		goto done;
	if (under(lex, workdir)) {
		r = lex + strlen(workdir);
	} else if ((abs = resolve_existing(path)) && under(abs, workdir)) {
		free(lex);
		lex = abs;
		abs = NULL;
		r = lex + strlen(workdir);
	}
	if (r && strlen(lex) < strlen(workdir))
		r = lex + strlen(lex);  /* "/" as the work tree: the root itself */
	if (r) {
		while (*r == '/')
			r++;
		*rel = r;
	}
done:
	free(abs);
	return lex;
}

/* ---- configuration ------------------------------------------------------ */

/* Writes the blob at rel of tree to dir/name; 1 when the tree has none. */
static int write_blob(struct sc_git_tree *tree, const char *rel, const char *dir, const char *name,
		      struct sc_buf *bytes)
{
	struct sc_buf path = SC_BUF_INIT;
	int err;

	sc_buf_clear(bytes);
	err = sc_git_read_blob(bytes, tree, rel, SC_MAX_CONFIG_BYTES);
	if (err == SC_ENOTFOUND || err == SC_EINVAL) {
		sc_error_clear();
		return 1;
	}
	if (err < 0)
		return err;
	sc_path_join(&path, dir, name);
	err = sc_write_file_atomic(path.ptr, bytes->ptr, bytes->len);
	sc_buf_release(&path);
	return err;
}

/*
 * Writes fast-agent's provider settings of a revision beside its
 * configuration: fastagent.config.yaml, and the file upskill's
 * fastagent_config names (a safe relative path found in the
 * upskill.config.yaml bytes given). Their bytes are appended to cmp, so
 * a head that changes only them is compared too.
 */
static int write_side_extras(struct sc_git_tree *tree, const char *dir, struct sc_buf *cmp)
{
	struct sc_buf bytes = SC_BUF_INIT, name = SC_BUF_INIT, upskill = SC_BUF_INIT;
	const char *p;
	int err;

	sc_buf_put(&upskill, cmp->ptr, cmp->len);
	if ((err = write_blob(tree, SC_FASTAGENT_CONFIG_FILE, dir, SC_FASTAGENT_CONFIG_FILE,
			      &bytes)) < 0)
		goto done;
	sc_buf_put(cmp, bytes.ptr, bytes.len);
	/* "fastagent_config: PATH" on a line of its own (the loader checks it) */
	for (p = upskill.ptr; p && (p = strstr(p, "fastagent_config:")); p++) {
		const char *v = p + strlen("fastagent_config:"), *end;
		if (p != upskill.ptr && p[-1] != '\n')
			continue;
		while (*v == ' ' || *v == '"' || *v == '\'')
			v++;
		end = v + strcspn(v, "\"' \t\r\n#");
		sc_buf_clear(&name);
		sc_buf_put(&name, v, (size_t)(end - v));
		if (!name.len || !sc_path_is_safe_relative(name.ptr))
			break;
		{
			struct sc_buf sub = SC_BUF_INIT;
			char *slash;
			sc_path_join(&sub, dir, name.ptr);
			slash = strrchr(sub.ptr, '/');
			*slash = '\0';
			err = sc_mkdir_p(sub.ptr);
			sc_buf_release(&sub);
			if (err < 0)
				goto done;
		}
		if ((err = write_blob(tree, name.ptr, dir, name.ptr, &bytes)) < 0)
			goto done;
		sc_buf_put(cmp, bytes.ptr, bytes.len);
		break;
	}
	err = 0;
done:
	sc_buf_release(&bytes);
	sc_buf_release(&name);
	sc_buf_release(&upskill);
	return err;
}

/* Findings of files written to scratch/side, named by repository path. */
static void move_diags(struct sc_diags *to, struct sc_diags *from, const char *dir)
{
	size_t n = strlen(dir);

	for (size_t i = 0; i < from->n; i++) {
		const struct sc_diag *d = &from->items[i];
		const char *file = d->file;
		if (!strncmp(file, dir, n) && file[n] == '/')
			file += n + 1;
		sc_diags_add(to, d->sev, file, d->line, d->code, "%s", d->message);
	}
}

/* Replaces a path that names a scratch copy with the repository path. */
static void repo_name(char **path, const char *dir)
{
	size_t n = strlen(dir);

	if (*path && !strncmp(*path, dir, n) && (*path)[n] == '/') {
		char *s = sc_xstrdup(*path + n + 1);
		free(*path);
		*path = s;
	}
}

/* Compares two configurations' policy; each difference is a change. */
static void compare_policy(struct sc_trust *t, const struct sc_config *base,
			   const struct sc_config *head)
{
	struct sc_strlist bk = { 0 }, bv = { 0 }, hk = { 0 }, hv = { 0 };

	sc_config_policy(base, &bk, &bv);
	sc_config_policy(head, &hk, &hv);
	for (size_t i = 0; i < bk.n; i++) {
		const char *hval = "(unset)";
		for (size_t j = 0; j < hk.n; j++)
			if (!strcmp(hk.items[j], bk.items[i]))
				hval = hv.items[j];
		if (strcmp(hval, bv.items[i]))
			add_change(t, bk.items[i], bv.items[i], hval);
	}
	for (size_t j = 0; j < hk.n; j++) {
		bool found = false;
		for (size_t i = 0; i < bk.n && !found; i++)
			found = !strcmp(hk.items[j], bk.items[i]);
		if (!found)
			add_change(t, hk.items[j], "(unset)", hv.items[j]);
	}
	sc_strlist_release(&bk);
	sc_strlist_release(&bv);
	sc_strlist_release(&hk);
	sc_strlist_release(&hv);
}

static const char *short_rev(const char *rev, char buf[13])
{
	snprintf(buf, 13, "%.12s", rev ? rev : "");
	return buf;
}

/*
 * Loads the head's copy of the configuration into a config of its own,
 * compares it with the applied one and notes its errors. Nothing of it
 * is applied.
 */
static int compare_head(struct sc_trust *t, const struct sc_config *applied,
			const struct sc_trust_config_in *in, const char *rel, bool explicit_rel,
			const struct sc_buf *base_bytes, const struct sc_buf *base_up)
{
	struct sc_buf dir = SC_BUF_INIT, file = SC_BUF_INIT, bytes = SC_BUF_INIT, up = SC_BUF_INIT;
	struct sc_diags found = SC_DIAGS_INIT;
	struct sc_config head;
	int err, had;

	sc_config_defaults(&head);
	sc_path_join(&dir, in->scratch, "head");
	if ((err = sc_mkdir_p(dir.ptr)) < 0)
		goto done;
	if ((had = err = write_blob(in->head, rel, dir.ptr, SC_CONFIG_FILE, &bytes)) < 0 ||
	    (err = write_blob(in->head, SC_UPSKILL_CONFIG_FILE, dir.ptr, SC_UPSKILL_CONFIG_FILE,
			      &up)) < 0 ||
	    (err = write_side_extras(in->head, dir.ptr, &up)) < 0)
		goto done;
	err = 0;
	if (bytes.len == base_bytes->len && !memcmp(bytes.ptr, base_bytes->ptr, bytes.len) &&
	    up.len == base_up->len && !memcmp(up.ptr, base_up->ptr, up.len))
		goto done;  /* the same files: nothing to compare */
	sc_config_release(&head);
	sc_path_join(&file, dir.ptr, SC_CONFIG_FILE);
	/* the head's files are data: nothing in them is expanded */
	if (sc_config_load_data(&head, dir.ptr, explicit_rel && had == 0 ? file.ptr : NULL, &found) < 0)
		sc_error_clear();
	for (size_t i = 0; i < found.n; i++) {
		struct sc_diag *d = &found.items[i];
		const char *name = strstr(d->file, SC_UPSKILL_CONFIG_FILE) ? SC_UPSKILL_CONFIG_FILE
				   : strstr(d->file, SC_FASTAGENT_CONFIG_FILE) ? SC_FASTAGENT_CONFIG_FILE : rel;
		struct sc_buf shown = SC_BUF_INIT;
		if (d->sev != SC_SEV_ERROR)
			continue;
		sc_escape_shown(&shown, d->message, 2 * SC_SHOWN_VALUE_MAX);
		sc_trust_note(t, "the pull request's %s has an error at line %zu (not applied): %s",
			      name, d->line, shown.ptr);
		sc_buf_release(&shown);
	}
	compare_policy(t, applied, &head);
done:
	sc_config_release(&head);
	sc_diags_release(&found);
	sc_buf_release(&dir);
	sc_buf_release(&file);
	sc_buf_release(&bytes);
	sc_buf_release(&up);
	return err;
}

int sc_trust_load_config(struct sc_config *out, struct sc_trust *t,
			 const struct sc_trust_config_in *in, struct sc_diags *diags)
{
	struct sc_buf dir = SC_BUF_INIT, file = SC_BUF_INIT, bytes = SC_BUF_INIT, up = SC_BUF_INIT;
	struct sc_buf src = SC_BUF_INIT;
	struct sc_diags mine = SC_DIAGS_INIT;
	struct sc_git_tree *side = in->base ? in->base : in->head;
	const char *rel = SC_CONFIG_FILE, *disk = NULL;
	char *abs = NULL, revbuf[13];
	bool explicit_rel = false;
	int err, had = 1;

	sc_config_defaults(out);
	/* --config: a runner's file, or a file of the repository */
	if (in->explicit_path) {
		const char *r;
		abs = config_in_repo(&r, in->explicit_path, in->repo_workdir);
		if (r) {
			rel = r;
			explicit_rel = true;
		} else {
			disk = in->explicit_path;
		}
	}
	sc_path_join(&dir, in->scratch, "base");
	if ((err = sc_mkdir_p(dir.ptr)) < 0)
		goto done;
	if (!disk && (had = err = write_blob(side, rel, dir.ptr, SC_CONFIG_FILE, &bytes)) < 0)
		goto done;
	if ((err = write_blob(side, SC_UPSKILL_CONFIG_FILE, dir.ptr, SC_UPSKILL_CONFIG_FILE, &up)) < 0 ||
	    (err = write_side_extras(side, dir.ptr, &up)) < 0)
		goto done;
	if (explicit_rel && had) {
		err = sc_error_set(SC_ENOTFOUND, "config file '%s' is not in the %s revision %s", rel,
				   in->base ? "base" : "head",
				   short_rev(in->base ? in->base_rev : in->head_rev, revbuf));
		goto done;
	}
	sc_config_release(out);
	sc_path_join(&file, dir.ptr, SC_CONFIG_FILE);
	err = sc_config_load(out, dir.ptr, disk ? disk : explicit_rel ? file.ptr : NULL, &mine);
	move_diags(diags, &mine, dir.ptr);
	if (err < 0)
		goto done;
	repo_name(&out->path, dir.ptr);
	repo_name(&out->upskill_path, dir.ptr);
	repo_name(&out->fastagent_path, dir.ptr);
	if (out->path && !disk && strcmp(out->path, rel)) {
		free(out->path);
		out->path = sc_xstrdup(rel);
	}
	if (disk)
		sc_buf_printf(&src, "%s (--config, a file of the runner)", disk);
	else if (!out->path && !out->upskill_path)
		sc_buf_printf(&src, "the defaults (no %s at the %s revision %s)", rel,
			      in->base ? "base" : "head",
			      short_rev(in->base ? in->base_rev : in->head_rev, revbuf));
	else
		sc_buf_printf(&src, "%s at the %s revision %s%s", out->path ? rel : SC_UPSKILL_CONFIG_FILE,
			      in->base ? "base" : "head",
			      short_rev(in->base ? in->base_rev : in->head_rev, revbuf),
			      in->base ? " (the target's tip)" : " (there is no base revision)");
	free(t->config_source);
	t->config_source = sc_buf_detach(&src, NULL);
	if (in->base && in->head && !disk)
		err = compare_head(t, out, in, rel, explicit_rel, &bytes, &up);
done:
	free(abs);
	sc_diags_release(&mine);
	sc_buf_release(&dir);
	sc_buf_release(&file);
	sc_buf_release(&bytes);
	sc_buf_release(&up);
	sc_buf_release(&src);
	return err;
}

/* ---- models ------------------------------------------------------------- */

void sc_trust_models(struct sc_strlist *out, const char *const *cli, size_t ncli,
		     const struct sc_strlist *config_models, struct sc_trust *t)
{
	if (ncli) {
		for (size_t i = 0; i < ncli; i++)
			sc_strlist_add(out, cli[i]);
		return;
	}
	for (size_t i = 0; i < config_models->n; i++) {
		const char *name = config_models->items[i];
		struct sc_model m;
		if (sc_model_parse(&m, name) == 0) {
			bool oracle = m.kind == SC_PROVIDER_ORACLE;
			sc_model_release(&m);
			if (oracle) {
				sc_trust_note(t, "model '%s' in the configuration was left out: the oracle "
					      "self-test runs only when named with -m on the command line", name);
				sc_log(SC_LOG_WARN, "model '%s' in the configuration was left out: the oracle "
				       "self-test runs only when named with -m on the command line", name);
				continue;
			}
		}
		sc_error_clear();
		sc_strlist_add(out, name);
	}
}

/* ---- paths -------------------------------------------------------------- */

/*
 * The path is followed one part at a time as the kernel will follow it:
 * "." is skipped, ".." goes to the parent of where the walk stands
 * (resolved, so "link/.." is the link target's parent), every part that
 * exists is resolved with its links. A step taken from inside the
 * workspace whose resolved place is outside it is a link leading out;
 * a ".." that leaves the workspace is a path elsewhere, as an absolute
 * one is (`--store ../x.db`).
 */
int sc_trust_check_output(const char *key, const char *path, const char *workspace)
{
	struct sc_buf cur = SC_BUF_INIT, part = SC_BUF_INIT;
	char real[PATH_BUF];
	const char *p = path;
	bool exists = true;  /* cur names something that exists, resolved */
	int err = 0;

	sc_buf_puts(&cur, path[0] == '/' ? "/" : workspace);
	while (*p) {
		struct stat st;
		bool inside;
		size_t n;
		while (*p == '/')
			p++;
		if (!*p)
			break;
		n = strcspn(p, "/");
		sc_buf_clear(&part);
		sc_buf_put(&part, p, n);
		p += n;
		if (!strcmp(part.ptr, "."))
			continue;
		if (!strcmp(part.ptr, "..")) {
			char *slash = strrchr(cur.ptr, '/');
			if (slash)
				sc_buf_truncate(&cur, slash == cur.ptr ? 1 : (size_t)(slash - cur.ptr));
			continue;
		}
		inside = under(cur.ptr, workspace);
		if (cur.len > 1)
			sc_buf_putc(&cur, '/');
		sc_buf_puts(&cur, part.ptr);
		if (!exists)
			continue;
		if (lstat(cur.ptr, &st) < 0) {
			exists = false;  /* the rest does not exist yet */
			continue;
		}
		if (!realpath(cur.ptr, real)) {
			if (S_ISLNK(st.st_mode) && inside) {
				err = sc_error_set(SC_EUNSAFE, "refusing %s '%s': '%s' is a symbolic link "
						   "that leads nowhere; remove it", key, path, cur.ptr);
				goto done;
			}
			exists = false;
			continue;
		}
		if (inside && !under(real, workspace)) {
			err = sc_error_set(SC_EUNSAFE, "refusing %s '%s': '%s' leads out of the "
					   "workspace (to '%s') through a symbolic link", key, path,
					   cur.ptr, real);
			goto done;
		}
		sc_buf_sets(&cur, real);
	}
done:
	sc_buf_release(&cur);
	sc_buf_release(&part);
	return err;
}

int sc_trust_check_writable(const char *key, const char *path, bool is_dir)
{
	struct sc_buf dir = SC_BUF_INIT, probe = SC_BUF_INIT;
	const char *slash;
	struct stat st;
	int err = 0, fd;

	if (is_dir)
		sc_buf_puts(&dir, path);
	else if ((slash = strrchr(path, '/')))
		sc_buf_put(&dir, path, slash == path ? 1 : (size_t)(slash - path));
	else
		sc_buf_puts(&dir, ".");
	if ((err = sc_mkdir_p(dir.ptr)) < 0) {
		err = sc_error_set(SC_EIO, "cannot write %s '%s': %s", key, path, sc_error_last());
		goto done;
	}
	sc_buf_printf(&probe, "%s/.skillci-write-check.%ld", dir.ptr, (long)getpid());
	fd = open(probe.ptr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = errno;
		if (stat(dir.ptr, &st) == 0)
			err = sc_error_set(SC_EIO, "cannot write %s '%s': the folder '%s' is not writable "
					   "(%s; mode %04o, owner uid %ld, this run uid %ld): give the "
					   "runner write permission there or choose another folder", key,
					   path, dir.ptr, strerror(e), (unsigned)(st.st_mode & 07777),
					   (long)st.st_uid, (long)geteuid());
		else
			err = sc_error_set(SC_EIO, "cannot write %s '%s': %s", key, path, strerror(e));
		goto done;
	}
	close(fd);
	unlink(probe.ptr);
done:
	sc_buf_release(&dir);
	sc_buf_release(&probe);
	return err;
}

/* ---- fixtures ----------------------------------------------------------- */

int sc_trust_fixtures(char **out, const char *dir, bool from_flag, struct sc_git_tree *base,
		      struct sc_git_tree *head, const char *repo_workdir, const char *scratch,
		      struct sc_trust *t, struct sc_diags *diags)
{
	struct sc_buf dest = SC_BUF_INIT, relbuf = SC_BUF_INIT;
	struct sc_git_tree *side = base ? base : head;
	char *abs = NULL, real[PATH_BUF];
	const char *rel;
	int err = 0;

	*out = NULL;
	if (from_flag) {
		/* inside the work tree as written (whatever links the checkout
		 * holds there) or through a link into it: the repository's
		 * folder, read from the revision; else the runner's own */
		const char *r;
		abs = config_in_repo(&r, dir, repo_workdir);
		if (!r) {
			free(abs);
			abs = resolve_existing(dir);
			*out = sc_xstrdup(abs ? abs : dir);
			goto done;
		}
		rel = r;
	} else {
		if (!sc_path_is_safe_relative(dir)) {
			err = sc_error_set(SC_EINVAL, "'fixtures' in the configuration must be a folder "
					   "inside the repository, found '%s'; name a runner's own "
					   "fixtures folder with --fixtures", dir);
			goto done;
		}
		rel = dir;
	}
	while (rel[0] == '.' && rel[1] == '/')
		rel += 2;
	sc_buf_puts(&relbuf, rel);
	while (relbuf.len > 0 && relbuf.ptr[relbuf.len - 1] == '/')
		sc_buf_truncate(&relbuf, relbuf.len - 1);
	if (!strcmp(relbuf.ptr, "."))
		sc_buf_clear(&relbuf);
	sc_path_join(&dest, scratch, "fixtures");
	if ((err = sc_mkdir_p(dest.ptr)) < 0)
		goto done;
	err = sc_git_materialize(side, relbuf.ptr, dest.ptr, NULL, diags);
	if (err == SC_ENOTFOUND) {
		sc_error_clear();
		err = 0;  /* no fixtures at that revision: a kernel test then names the missing one */
	}
	if (err < 0)
		goto done;
	if (base && head) {
		struct sc_git_probe pb, ph;
		bool hb = sc_git_probe(&pb, base, relbuf.ptr) == 0 && pb.is_dir;
		bool hh = sc_git_probe(&ph, head, relbuf.ptr) == 0 && ph.is_dir;
		sc_error_clear();
		if (hb != hh || (hb && strcmp(pb.tree, ph.tree)))
			sc_trust_note(t, "the pull request changes the fixtures folder '%s': kernels are "
				      "judged against the base revision's fixtures", relbuf.len ? relbuf.ptr : ".");
	}
	*out = sc_xstrdup(realpath(dest.ptr, real) ? real : dest.ptr);
done:
	free(abs);
	sc_buf_release(&dest);
	sc_buf_release(&relbuf);
	return err;
}

size_t sc_trust_drop_unknown_fixtures(struct sc_test_set *set, const char *fixtures_dir,
				      bool allow_unpinned, const char *skill, struct sc_trust *t)
{
	struct sc_fixture_list list;
	bool listed = false;
	size_t dropped = 0;

	memset(&list, 0, sizeof(list));
	for (size_t i = 0; i < set->n;) {
		const struct sc_test *x = &set->items[i];
		const struct sc_fixture *f;
		if (!x->fixture) {
			i++;
			continue;
		}
		if (!listed) {
			if (sc_fixture_list(&list, fixtures_dir) < 0)
				sc_error_clear();  /* no folder: no fixture is known */
			listed = true;
		}
		f = sc_fixture_find(&list, x->fixture);
		if (f && sc_fixture_require_pinned(f, allow_unpinned) == 0) {
			i++;
			continue;
		}
		sc_error_clear();
		sc_trust_note(t, "%s: the pull request's test '%s' uses fixture '%s', which the base "
			      "revision does not have pinned: it was not run (fixtures land first)",
			      skill, x->id, x->fixture);
		sc_test_set_remove(set, i);
		dropped++;
	}
	if (listed)
		sc_fixture_list_release(&list);
	return dropped;
}

int sc_trust_write_blobs(struct sc_git_tree *tree, const struct sc_strlist *paths, const char *dest,
			 struct sc_strlist *written)
{
	struct sc_buf data = SC_BUF_INIT, path = SC_BUF_INIT;
	int err = 0;

	for (size_t i = 0; i < paths->n && err == 0; i++) {
		char *slash;
		sc_buf_clear(&data);
		err = sc_git_read_blob(&data, tree, paths->items[i], SC_MAX_JSON_BYTES);
		if (err == SC_ENOTFOUND || err == SC_EINVAL) {
			sc_error_clear();
			err = 0;
			continue;
		}
		if (err < 0)
			break;
		sc_buf_clear(&path);
		sc_path_join(&path, dest, paths->items[i]);
		slash = strrchr(path.ptr, '/');
		*slash = '\0';
		err = sc_mkdir_p(path.ptr);
		*slash = '/';
		if (err == 0)
			err = sc_write_file_atomic(path.ptr, data.ptr, data.len);
		if (err == 0)
			sc_strlist_add(written, paths->items[i]);
	}
	sc_buf_release(&data);
	sc_buf_release(&path);
	return err;
}

/* ---- budget ------------------------------------------------------------- */

int sc_trust_budget_check(const struct sc_trust_budget *b, struct sc_buf *line)
{
	sc_buf_printf(line, "budget: %zu unit%s, at most %lld model request%s; limits %lld units, "
		      "%lld requests", b->units, b->units == 1 ? "" : "s", (long long)b->requests,
		      b->requests == 1 ? "" : "s", (long long)b->max_units, (long long)b->max_requests);
	if ((int64_t)b->units > b->max_units)
		return sc_error_set(SC_EINVAL, "the plan has %zu units, more than the budget's %lld "
				    "(budget.max_units); lower runs or models, or raise the limit in the "
				    "base branch's skillci.yml or with --max-units", b->units,
				    (long long)b->max_units);
	if (b->requests > b->max_requests)
		return sc_error_set(SC_EINVAL, "the plan may make %lld model requests, more than the "
				    "budget's %lld (budget.max_requests); lower runs, max_turns or "
				    "models, or raise the limit in the base branch's skillci.yml or with "
				    "--max-requests", (long long)b->requests, (long long)b->max_requests);
	return 0;
}

/* ---- tests -------------------------------------------------------------- */

void sc_trust_diff_tests(struct sc_test_set *proposed, struct sc_test_changes *out,
			 const struct sc_test_set *base, const struct sc_test_set *head)
{
	char (*bh)[65] = sc_xcalloc(base->n + 1, sizeof(*bh));
	char (*hh)[65] = sc_xcalloc(head->n + 1, sizeof(*hh));

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < base->n; i++)
		sc_test_hash(bh[i], &base->items[i]);
	for (size_t i = 0; i < head->n; i++)
		sc_test_hash(hh[i], &head->items[i]);
	for (size_t i = 0; i < head->n; i++) {
		bool same = false, id = false;
		for (size_t j = 0; j < base->n && !same; j++) {
			same = !strcmp(hh[i], bh[j]);
			id |= !strcmp(head->items[i].id, base->items[j].id);
		}
		if (same)
			continue;
		if (id)
			out->changed++;
		else
			out->added++;
		sc_test_set_add_copy(proposed, &head->items[i]);
	}
	for (size_t j = 0; j < base->n; j++) {
		bool kept = false;
		for (size_t i = 0; i < head->n && !kept; i++)
			kept = !strcmp(hh[i], bh[j]) || !strcmp(head->items[i].id, base->items[j].id);
		out->removed += !kept;
	}
	free(bh);
	free(hh);
}
