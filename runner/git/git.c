/*
 * The libgit2 wrapper (see git.h). Every libgit2 error is turned into an
 * sc_error message here, with URLs stripped of credentials and the token
 * never quoted.
 */
#include "common.h"
#include "git/git.h"
#include "diag.h"
#include "sha256.h"

#include <git2.h>
#include <git2/sys/mempack.h>
#include <git2/sys/odb_backend.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

struct sc_git_repo {
	git_repository *repo;
	char *name;
	bool mempack;     /* an in-memory object database takes new objects (merges) */
};

struct sc_git_tree {
	struct sc_git_repo *repo;
	git_tree *tree;   /* NULL for the empty tree */
};

static int global_ready;

int sc_git_global_init(void)
{
	if (git_libgit2_init() < 0)
		return sc_error_set(SC_ERROR, "cannot initialise libgit2");
	/* Trees are looked up again and again while mapping paths to skills;
	 * libgit2 caches only trees under 4 KiB by default, so a folder with
	 * thousands of skills would be parsed anew on every lookup. */
	git_libgit2_opts(GIT_OPT_SET_CACHE_OBJECT_LIMIT, (int)GIT_OBJECT_TREE, (size_t)SC_GIT_TREE_CACHE_BYTES);
	global_ready = 1;
	return 0;
}

void sc_git_global_shutdown(void)
{
	if (global_ready)
		git_libgit2_shutdown();
	global_ready = 0;
}

/* The token used for https, or NULL. Never copied into a message. */
static const char *git_token(void)
{
	const char *t = getenv("SKILLCI_GIT_TOKEN");

	if (!t || !*t)
		t = getenv("GITHUB_TOKEN");
	return t && *t ? t : NULL;
}

/*
 * Appends s to out with anything that could be a credential removed: the
 * user-info part of every "scheme://user:secret@host" and every occurrence
 * of the configured token.
 */
static void put_redacted(struct sc_buf *out, const char *s)
{
	const char *tok = git_token();
	size_t toklen = tok ? strlen(tok) : 0;

	while (*s) {
		const char *scheme = strstr(s, "://");
		if (toklen && !strncmp(s, tok, toklen)) {
			sc_buf_puts(out, "***");
			s += toklen;
			continue;
		}
		if (scheme == s) {
			const char *host = s + 3, *end = host, *at = NULL;
			while (*end && *end != '/' && *end != ' ' && *end != '\'') {
				if (*end == '@')
					at = end;
				end++;
			}
			sc_buf_puts(out, "://");
			s = at ? at + 1 : host;
			continue;
		}
		sc_buf_putc(out, *s++);
	}
}

/* Sets our message from libgit2's last error: "what: libgit2's reason". */
static int git_fail(int code, const char *what)
{
	const git_error *e = git_error_last();
	struct sc_buf msg = SC_BUF_INIT;
	int rc;

	put_redacted(&msg, what);
	if (e && e->message && *e->message) {
		sc_buf_puts(&msg, ": ");
		put_redacted(&msg, e->message);
	}
	sc_buf_rtrim(&msg);
	rc = sc_error_set(code, "%s", msg.ptr);
	sc_buf_release(&msg);
	return rc;
}

/* The last component of path without a ".git" suffix ("repo" for "/x/repo/.git/"). */
static char *repo_name_from(const char *path)
{
	struct sc_buf b = SC_BUF_INIT;
	const char *slash;

	sc_buf_puts(&b, path);
	while (b.len > 1 && b.ptr[b.len - 1] == '/')
		sc_buf_truncate(&b, b.len - 1);
	if (sc_ends_with(b.ptr, "/.git"))
		sc_buf_truncate(&b, b.len - 5);
	else if (sc_ends_with(b.ptr, ".git") && b.len > 4)
		sc_buf_truncate(&b, b.len - 4);
	slash = strrchr(b.ptr, '/');
	if (slash) {
		char *name = sc_xstrdup(slash + 1);
		sc_buf_release(&b);
		return name;
	}
	return sc_buf_detach(&b, NULL);
}

static struct sc_git_repo *wrap_repo(git_repository *r)
{
	struct sc_git_repo *repo = sc_xcalloc(1, sizeof(*repo));
	const char *p = git_repository_workdir(r);

	repo->repo = r;
	repo->name = repo_name_from(p ? p : git_repository_path(r));
	return repo;
}

int sc_git_open(struct sc_git_repo **out, const char *path)
{
	git_repository *r = NULL;
	int rc;

	*out = NULL;
	rc = git_repository_open_ext(&r, path, 0, NULL);
	if (rc == GIT_ENOTFOUND)
		return sc_error_set(SC_ENOTFOUND, "'%s' is not a git repository", path);
	if (rc < 0) {
		struct sc_buf what = SC_BUF_INIT;
		sc_buf_printf(&what, "cannot open repository '%s'", path);
		rc = git_fail(SC_EINVAL, what.ptr);
		sc_buf_release(&what);
		return rc;
	}
	*out = wrap_repo(r);
	return 0;
}

void sc_git_free(struct sc_git_repo *repo)
{
	if (!repo)
		return;
	git_repository_free(repo->repo);
	free(repo->name);
	free(repo);
}

const char *sc_git_workdir(const struct sc_git_repo *repo)
{
	return git_repository_workdir(repo->repo);
}

const char *sc_git_name(const struct sc_git_repo *repo)
{
	return repo->name;
}

bool sc_git_is_url(const char *s)
{
	static const char *const schemes[] = { "file://", "https://", "http://", "ssh://", "git://" };

	for (size_t i = 0; i < SC_ARRAY_SIZE(schemes); i++)
		if (sc_starts_with(s, schemes[i]))
			return true;
	return sc_starts_with(s, "git@") && strchr(s, ':');
}

struct fetch_state {
	int tries;
};

/*
 * Credentials for https: user "x-access-token" and the token from the
 * environment, offered once (a refused token is not retried forever) and
 * only over https.
 */
static int credentials_cb(git_credential **out, const char *url, const char *user,
			  unsigned int allowed, void *payload)
{
	struct fetch_state *st = payload;
	const char *tok = git_token();

	SC_UNUSED(user);
	if (!tok || !sc_starts_with(url, "https://") ||
	    !(allowed & GIT_CREDENTIAL_USERPASS_PLAINTEXT) || st->tries++ > 0)
		return GIT_PASSTHROUGH;
	return git_credential_userpass_plaintext_new(out, "x-access-token", tok);
}

/* Makes every local branch point where refs/remotes/origin/<same name> does. */
static int follow_remote_branches(git_repository *r)
{
	git_reference_iterator *it = NULL;
	git_reference *ref = NULL, *made = NULL;
	struct sc_buf local = SC_BUF_INIT;
	int rc;

	if (git_reference_iterator_glob_new(&it, r, "refs/remotes/origin/*") < 0)
		return git_fail(SC_EIO, "cannot list remote branches");
	while ((rc = git_reference_next(&ref, it)) == 0) {
		const char *name = git_reference_name(ref) + strlen("refs/remotes/origin/");
		const git_oid *id = git_reference_target(ref);
		if (id && strcmp(name, "HEAD")) {
			sc_buf_clear(&local);
			sc_buf_printf(&local, "refs/heads/%s", name);
			if (git_reference_create(&made, r, local.ptr, id, 1, "skillci: follow origin") < 0) {
				rc = git_fail(SC_EIO, "cannot update local branch");
				git_reference_free(ref);
				goto done;
			}
			git_reference_free(made);
			made = NULL;
		}
		git_reference_free(ref);
		ref = NULL;
	}
	rc = rc == GIT_ITEROVER ? 0 : git_fail(SC_EIO, "cannot list remote branches");
done:
	git_reference_iterator_free(it);
	sc_buf_release(&local);
	return rc;
}

int sc_git_clone_or_fetch(struct sc_git_repo **out, const char *url, const char *cache_dir)
{
	char digest[SC_SHA256_HEX_LEN + 1];
	struct sc_buf dir = SC_BUF_INIT, tmp = SC_BUF_INIT, hex = SC_BUF_INIT;
	struct sc_buf what = SC_BUF_INIT;
	git_repository *r = NULL;
	git_remote *remote = NULL;
	struct fetch_state st = { 0 };
	struct stat sb;
	int err = 0;

	*out = NULL;
	sc_sha256_hex(digest, url, strlen(url));
	sc_buf_put(&hex, digest, 16);
	sc_buf_printf(&dir, "%s/repos/%s.git", cache_dir, hex.ptr);
	sc_buf_puts(&what, "cannot fetch '");
	put_redacted(&what, url);
	sc_buf_puts(&what, "'");

	if (stat(dir.ptr, &sb) == 0) {
		git_fetch_options fo;
		git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
		fo.callbacks.credentials = credentials_cb;
		fo.callbacks.payload = &st;
		fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
		fo.prune = GIT_FETCH_PRUNE;
		if (git_repository_open_bare(&r, dir.ptr) < 0 ||
		    git_remote_lookup(&remote, r, "origin") < 0 ||
		    git_remote_fetch(remote, NULL, &fo, "skillci fetch") < 0) {
			err = git_fail(SC_ENET, what.ptr);
			goto done;
		}
		sc_trace("git", "fetched into %s", dir.ptr);
	} else {
		git_clone_options co;
		git_clone_options_init(&co, GIT_CLONE_OPTIONS_VERSION);
		co.bare = 1;
		co.fetch_opts.callbacks.credentials = credentials_cb;
		co.fetch_opts.callbacks.payload = &st;
		co.fetch_opts.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_ALL;
		sc_buf_printf(&tmp, "%s/repos", cache_dir);
		if ((err = sc_mkdir_p(tmp.ptr)) < 0)
			goto done;
		sc_buf_printf(&tmp, "/.tmp-%s-%ld", hex.ptr, (long)getpid());
		if ((err = sc_rm_rf(tmp.ptr)) < 0)
			goto done;
		if (git_clone(&r, url, tmp.ptr, &co) < 0) {
			sc_buf_clear(&what);
			sc_buf_puts(&what, "cannot clone '");
			put_redacted(&what, url);
			sc_buf_puts(&what, "'");
			/* A local URL that is not a repository is bad input, not the network. */
			err = git_fail(sc_starts_with(url, "file://") ? SC_ENOTFOUND : SC_ENET, what.ptr);
			sc_rm_rf(tmp.ptr);
			goto done;
		}
		git_repository_free(r);
		r = NULL;
		/* Another run may have won the race; then its clone is used. */
		if (rename(tmp.ptr, dir.ptr) < 0 && stat(dir.ptr, &sb) < 0) {
			err = sc_error_set(SC_EIO, "cannot move clone to '%s': %s", dir.ptr, strerror(errno));
			sc_rm_rf(tmp.ptr);
			goto done;
		}
		sc_rm_rf(tmp.ptr);
		if (git_repository_open_bare(&r, dir.ptr) < 0) {
			err = git_fail(SC_EIO, "cannot open cached clone");
			goto done;
		}
		sc_trace("git", "cloned into %s", dir.ptr);
	}
	if ((err = follow_remote_branches(r)) < 0)
		goto done;
	*out = wrap_repo(r);
	free((*out)->name);
	(*out)->name = repo_name_from(url);
	r = NULL;
done:
	git_remote_free(remote);
	git_repository_free(r);
	sc_buf_release(&dir);
	sc_buf_release(&tmp);
	sc_buf_release(&hex);
	sc_buf_release(&what);
	return err;
}

int sc_git_resolve(char out[SC_GIT_HEX_SIZE], struct sc_git_repo *repo, const char *rev)
{
	git_object *obj = NULL, *commit = NULL;
	int rc;

	out[0] = '\0';
	rc = git_revparse_single(&obj, repo->repo, rev);
	if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC || rc == GIT_EAMBIGUOUS) {
		const char *why = rc == GIT_EAMBIGUOUS ? "ambiguous revision" : "unknown revision";
		return sc_error_cause_set(sc_error_set(SC_ENOTFOUND, "%s '%s' in '%s'", why, rev,
						       repo->name), SC_CAUSE_REVISION);
	}
	if (rc < 0) {
		struct sc_buf what = SC_BUF_INIT;
		sc_buf_printf(&what, "cannot resolve revision '%s'", rev);
		rc = git_fail(SC_ENOTFOUND, what.ptr);
		sc_buf_release(&what);
		return rc;
	}
	rc = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
	git_object_free(obj);
	if (rc < 0)
		return sc_error_set(SC_ENOTFOUND, "revision '%s' is not a commit", rev);
	git_oid_tostr(out, SC_GIT_HEX_SIZE, git_object_id(commit));
	git_object_free(commit);
	return 0;
}

static int parse_id(git_oid *id, const char *hex)
{
	if (git_oid_fromstr(id, hex) < 0)
		return sc_error_set(SC_EINVAL, "'%s' is not an object id", hex);
	return 0;
}

/*
 * True (1) when commit from reaches commit to through parents that are in
 * the object database: in a shallow clone libgit2 stops at the missing
 * parents of the boundary, so the merge base of an ancestor and its
 * descendant is found here instead. The walk is bounded; 0 when not found.
 */
static int reaches(git_repository *r, const git_oid *from, const git_oid *to)
{
	git_oid *queue = NULL, *seen = NULL;
	size_t nq = 0, aq = 0, head = 0, cap = 1024, nseen = 0;
	int found = 0;

	seen = sc_xcalloc(cap, sizeof(*seen));
	SC_GROW(queue, aq, 1);
	git_oid_cpy(&queue[nq++], from);
	while (head < nq && !found && nq < SC_MAX_WALK_ENTRIES) {
		git_commit *c = NULL;
		git_oid id;

		git_oid_cpy(&id, &queue[head++]);
		if (git_oid_equal(&id, to)) {
			found = 1;
			break;
		}
		if (git_commit_lookup(&c, r, &id) < 0)
			continue;  /* beyond the shallow boundary */
		for (unsigned i = 0; i < git_commit_parentcount(c); i++) {
			const git_oid *p = git_commit_parent_id(c, i);
			size_t j;
			if ((nseen + 1) * 2 > cap) {
				git_oid *old = seen;
				size_t ocap = cap;
				cap *= 2;
				seen = sc_xcalloc(cap, sizeof(*seen));
				for (size_t k = 0; k < ocap; k++) {
					if (git_oid_is_zero(&old[k]))
						continue;
					j = (size_t)old[k].id[0] << 24 | (size_t)old[k].id[1] << 16 | (size_t)old[k].id[2] << 8 | old[k].id[3];
					j = (j * 2654435761u) & (cap - 1);
					while (!git_oid_is_zero(&seen[j]))
						j = (j + 1) & (cap - 1);
					git_oid_cpy(&seen[j], &old[k]);
				}
				free(old);
			}
			j = (size_t)p->id[0] << 24 | (size_t)p->id[1] << 16 | (size_t)p->id[2] << 8 | p->id[3];
			j = (j * 2654435761u) & (cap - 1);
			while (!git_oid_is_zero(&seen[j]) && !git_oid_equal(&seen[j], p))
				j = (j + 1) & (cap - 1);
			if (git_oid_is_zero(&seen[j])) {
				git_oid_cpy(&seen[j], p);
				nseen++;
				SC_GROW(queue, aq, nq + 1);
				git_oid_cpy(&queue[nq++], p);
			}
		}
		git_commit_free(c);
	}
	free(queue);
	free(seen);
	return found;
}

int sc_git_parents(char first_out[SC_GIT_HEX_SIZE], size_t *count, struct sc_git_repo *repo,
		   const char *commit)
{
	git_oid id;
	git_commit *c = NULL;
	int rc;

	first_out[0] = '\0';
	*count = 0;
	if ((rc = parse_id(&id, commit)) < 0)
		return rc;
	if (git_commit_lookup(&c, repo->repo, &id) < 0)
		return git_fail(SC_ENOTFOUND, "cannot read the commit");
	*count = git_commit_parentcount(c);
	if (*count > 0) {
		const git_oid *p = git_commit_parent_id(c, 0);
		git_commit *pc = NULL;
		if (p && git_commit_lookup(&pc, repo->repo, p) == 0)
			git_oid_tostr(first_out, SC_GIT_HEX_SIZE, p);
		git_commit_free(pc);
		git_error_clear();
	}
	git_commit_free(c);
	return 0;
}

bool sc_git_is_shallow(struct sc_git_repo *repo)
{
	return git_repository_is_shallow(repo->repo) == 1;
}

int sc_git_merge_base(char out[SC_GIT_HEX_SIZE], struct sc_git_repo *repo,
		      const char *a, const char *b)
{
	git_oid ia, ib, base;
	int rc;

	out[0] = '\0';
	if ((rc = parse_id(&ia, a)) < 0 || (rc = parse_id(&ib, b)) < 0)
		return rc;
	/* In a shallow clone libgit2's walk fails at the boundary (and leaks
	 * on that path), so an ancestor base is found by our own walk first. */
	if (git_repository_is_shallow(repo->repo) == 1 && reaches(repo->repo, &ib, &ia) == 1) {
		git_oid_cpy(&base, &ia);
		rc = 0;
	} else {
		rc = git_merge_base(&base, repo->repo, &ia, &ib);
	}
	if (rc == GIT_ENOTFOUND)
		return sc_error_set(SC_ENOTFOUND,
				    "no merge base between '%.12s' and '%.12s'; compare them with --two-dot", a, b);
	if (rc < 0)
		return git_fail(SC_ENOTFOUND, "cannot find the merge base (a shallow clone needs more depth)");
	git_oid_tostr(out, SC_GIT_HEX_SIZE, &base);
	return 0;
}

bool sc_git_is_zero_id(const char *hex)
{
	if (!*hex)
		return false;
	for (; *hex; hex++)
		if (*hex != '0')
			return false;
	return true;
}

int sc_git_tree_open(struct sc_git_tree **out, struct sc_git_repo *repo, const char *commit)
{
	struct sc_git_tree *t;
	git_commit *c = NULL;
	git_oid id;
	int rc;

	*out = NULL;
	t = sc_xcalloc(1, sizeof(*t));
	t->repo = repo;
	if (commit && !sc_git_is_zero_id(commit)) {
		if ((rc = parse_id(&id, commit)) < 0)
			goto fail;
		if (git_commit_lookup(&c, repo->repo, &id) < 0 || git_commit_tree(&t->tree, c) < 0) {
			struct sc_buf what = SC_BUF_INIT;
			sc_buf_printf(&what, "cannot read the tree of commit '%s'", commit);
			rc = git_fail(SC_ENOTFOUND, what.ptr);
			sc_buf_release(&what);
			git_commit_free(c);
			goto fail;
		}
		git_commit_free(c);
	}
	*out = t;
	return 0;
fail:
	free(t);
	return rc;
}

/*
 * New objects of this process (a merge's blobs and trees) go to an
 * in-memory object database placed before the repository's own: the
 * repository on disk is never written, and the objects last as long as
 * the repository is open.
 */
static int use_mempack(struct sc_git_repo *repo)
{
	git_odb_backend *be = NULL;
	git_odb *odb = NULL;

	if (repo->mempack)
		return 0;
	if (git_mempack_new(&be) < 0 || git_repository_odb(&odb, repo->repo) < 0 ||
	    git_odb_add_backend(odb, be, 1000) < 0) {
		int rc = git_fail(SC_ERROR, "cannot set up an in-memory object database");
		if (be && odb)
			be->free(be);
		git_odb_free(odb);
		return rc;
	}
	git_odb_free(odb);
	repo->mempack = true;
	return 0;
}

/* The first conflicting paths of idx, for the message ("a, b and 3 more"). */
static void conflict_paths(struct sc_buf *out, git_index *idx)
{
	git_index_conflict_iterator *it = NULL;
	const git_index_entry *anc, *ours, *theirs;
	size_t n = 0;

	if (git_index_conflict_iterator_new(&it, idx) < 0)
		return;
	while (git_index_conflict_next(&anc, &ours, &theirs, it) == 0) {
		const git_index_entry *e = ours ? ours : theirs ? theirs : anc;
		if (n < 5)
			sc_buf_printf(out, "%s%s", n ? ", " : "", e && e->path ? e->path : "?");
		n++;
	}
	if (n > 5)
		sc_buf_printf(out, " and %zu more", n - 5);
	git_index_conflict_iterator_free(it);
}

int sc_git_merge_trees(struct sc_git_tree **out, char tree_out[SC_GIT_HEX_SIZE],
		       struct sc_git_repo *repo, const char *base, const char *ours,
		       const char *theirs)
{
	git_oid ib, io, it, tid;
	git_commit *cb = NULL, *co = NULL, *ct = NULL;
	git_tree *tb = NULL, *to = NULL, *tt = NULL;
	git_index *idx = NULL;
	git_merge_options mo;
	struct sc_git_tree *t = NULL;
	int rc;

	*out = NULL;
	tree_out[0] = '\0';
	git_merge_options_init(&mo, GIT_MERGE_OPTIONS_VERSION);  /* three-way, renames found */
	if ((rc = parse_id(&ib, base)) < 0 || (rc = parse_id(&io, ours)) < 0 ||
	    (rc = parse_id(&it, theirs)) < 0)
		return rc;
	if (git_commit_lookup(&cb, repo->repo, &ib) < 0 || git_commit_tree(&tb, cb) < 0 ||
	    git_commit_lookup(&co, repo->repo, &io) < 0 || git_commit_tree(&to, co) < 0 ||
	    git_commit_lookup(&ct, repo->repo, &it) < 0 || git_commit_tree(&tt, ct) < 0) {
		rc = git_fail(SC_ENOTFOUND, "cannot read the commits to merge");
		goto done;
	}
	if (git_oid_equal(&ib, &io) || git_oid_equal(&ib, &it)) {
		/* one side is the merge base: the merge is the other side */
		git_oid_cpy(&tid, git_tree_id(git_oid_equal(&ib, &io) ? tt : to));
	} else {
		if ((rc = use_mempack(repo)) < 0)
			goto done;
		if (git_merge_trees(&idx, repo->repo, tb, to, tt, &mo) < 0) {
			rc = git_fail(SC_ERROR, "cannot merge the trees");
			goto done;
		}
		if (git_index_has_conflicts(idx)) {
			struct sc_buf paths = SC_BUF_INIT;
			conflict_paths(&paths, idx);
			rc = sc_error_set(SC_EINVAL, "the head %.12s does not merge cleanly into the target's "
					  "tip %.12s (conflicts in %s): rebase or resolve the conflicts, "
					  "then push; what would land cannot be judged before", theirs, ours,
					  paths.len ? paths.ptr : "the trees");
			sc_error_cause_set(rc, SC_CAUSE_NOT_MERGEABLE);
			sc_buf_release(&paths);
			goto done;
		}
		if (git_index_write_tree_to(&tid, idx, repo->repo) < 0) {
			rc = git_fail(SC_ERROR, "cannot write the merged tree");
			goto done;
		}
	}
	t = sc_xcalloc(1, sizeof(*t));
	t->repo = repo;
	if (git_tree_lookup(&t->tree, repo->repo, &tid) < 0) {
		rc = git_fail(SC_ERROR, "cannot read the merged tree");
		free(t);
		goto done;
	}
	git_oid_tostr(tree_out, SC_GIT_HEX_SIZE, &tid);
	*out = t;
	rc = 0;
done:
	git_index_free(idx);
	git_tree_free(tb);
	git_tree_free(to);
	git_tree_free(tt);
	git_commit_free(cb);
	git_commit_free(co);
	git_commit_free(ct);
	return rc;
}

int sc_git_commit_tree_id(char out[SC_GIT_HEX_SIZE], struct sc_git_repo *repo, const char *commit)
{
	git_commit *c = NULL;
	git_oid id;
	int rc;

	out[0] = '\0';
	if ((rc = parse_id(&id, commit)) < 0)
		return rc;
	if (git_commit_lookup(&c, repo->repo, &id) < 0)
		return git_fail(SC_ENOTFOUND, "cannot read the commit");
	git_oid_tostr(out, SC_GIT_HEX_SIZE, git_commit_tree_id(c));
	git_commit_free(c);
	return 0;
}

void sc_git_tree_free(struct sc_git_tree *tree)
{
	if (!tree)
		return;
	git_tree_free(tree->tree);
	free(tree);
}

void sc_git_changes_release(struct sc_git_changes *list)
{
	for (size_t i = 0; i < list->n; i++) {
		free(list->items[i].old_path);
		free(list->items[i].new_path);
	}
	free(list->items);
	list->items = NULL;
	list->n = list->alloc = 0;
}

static void add_change(struct sc_git_changes *out, enum sc_git_status status,
		       const char *old_path, const git_tree_entry *old_e, const char *new_path,
		       const git_tree_entry *new_e)
{
	struct sc_git_change c;

	memset(&c, 0, sizeof(c));
	c.status = status;
	c.old_path = old_path ? sc_xstrdup(old_path) : NULL;
	c.new_path = new_path ? sc_xstrdup(new_path) : NULL;
	if (old_e) {
		c.old_mode = git_tree_entry_filemode(old_e);
		git_oid_tostr(c.old_id, sizeof(c.old_id), git_tree_entry_id(old_e));
	}
	if (new_e) {
		c.new_mode = git_tree_entry_filemode(new_e);
		git_oid_tostr(c.new_id, sizeof(c.new_id), git_tree_entry_id(new_e));
	}
	SC_GROW(out->items, out->alloc, out->n + 1);
	out->items[out->n++] = c;
}

struct tree_walk {
	git_repository *repo;
	struct sc_git_changes *out;
	struct sc_buf path;
};

/* git's tree order: names compared bytewise, a folder as if it ended in '/'. */
static int entry_cmp(const git_tree_entry *x, const git_tree_entry *y)
{
	const char *a = git_tree_entry_name(x), *b = git_tree_entry_name(y);
	size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb;
	int c = memcmp(a, b, n);
	unsigned ca, cb;

	if (c)
		return c;
	ca = n < la ? (unsigned char)a[n] : git_tree_entry_type(x) == GIT_OBJECT_TREE ? '/' : 0;
	cb = n < lb ? (unsigned char)b[n] : git_tree_entry_type(y) == GIT_OBJECT_TREE ? '/' : 0;
	return (int)ca - (int)cb;
}

/* Regular file, symlink and submodule are the "types" of a type change. */
static int type_class(unsigned mode)
{
	if (mode == GIT_FILEMODE_LINK)
		return 1;
	if (mode == GIT_FILEMODE_COMMIT)
		return 2;
	return 0;
}

static int walk_pair(struct tree_walk *w, const git_tree *ta, const git_tree *tb, int depth);

/* One side of an entry that the other tree lacks: a file, or every file below a folder. */
static int walk_one(struct tree_walk *w, const git_tree_entry *e, bool added, int depth)
{
	git_tree *t = NULL;
	int err;

	if (git_tree_entry_type(e) != GIT_OBJECT_TREE) {
		if (w->out->n >= SC_MAX_DIFF_FILES)
			return sc_error_set(SC_ELIMIT, "diff has more than %d changed files", SC_MAX_DIFF_FILES);
		if (added)
			add_change(w->out, SC_GIT_ADDED, NULL, NULL, w->path.ptr, e);
		else
			add_change(w->out, SC_GIT_DELETED, w->path.ptr, e, NULL, NULL);
		return 0;
	}
	if (git_tree_lookup(&t, w->repo, git_tree_entry_id(e)) < 0)
		return git_fail(SC_EIO, "cannot read a folder");
	err = added ? walk_pair(w, NULL, t, depth + 1) : walk_pair(w, t, NULL, depth + 1);
	git_tree_free(t);
	return err;
}

/*
 * Walks two folders (either may be NULL, the empty folder) in git's tree
 * order, as git's own tree diff does: equal subtrees are skipped without
 * being read, so the cost follows the size of the change.
 */
static int walk_pair(struct tree_walk *w, const git_tree *ta, const git_tree *tb, int depth)
{
	size_t na = ta ? git_tree_entrycount(ta) : 0, nb = tb ? git_tree_entrycount(tb) : 0;
	size_t i = 0, j = 0, keep = w->path.len;
	int err = 0;

	if (depth > SC_MAX_DIFF_DEPTH)
		return sc_error_set(SC_ELIMIT, "'%s' is nested more than %d folders deep", w->path.ptr,
				    SC_MAX_DIFF_DEPTH);
	while (!err && (i < na || j < nb)) {
		const git_tree_entry *ea = i < na ? git_tree_entry_byindex(ta, i) : NULL;
		const git_tree_entry *eb = j < nb ? git_tree_entry_byindex(tb, j) : NULL;
		int c = !ea ? 1 : !eb ? -1 : entry_cmp(ea, eb);
		const git_tree_entry *e = c <= 0 ? ea : eb;

		sc_buf_truncate(&w->path, keep);
		if (keep)
			sc_buf_putc(&w->path, '/');
		sc_buf_puts(&w->path, git_tree_entry_name(e));
		if (c < 0) {
			err = walk_one(w, ea, false, depth);
			i++;
		} else if (c > 0) {
			err = walk_one(w, eb, true, depth);
			j++;
		} else {
			unsigned ma = git_tree_entry_filemode(ea), mb = git_tree_entry_filemode(eb);
			i++;
			j++;
			if (git_oid_equal(git_tree_entry_id(ea), git_tree_entry_id(eb)) && ma == mb)
				continue;
			if (git_tree_entry_type(ea) == GIT_OBJECT_TREE) {
				git_tree *sa = NULL, *sb = NULL;
				if (git_tree_lookup(&sa, w->repo, git_tree_entry_id(ea)) < 0 ||
				    git_tree_lookup(&sb, w->repo, git_tree_entry_id(eb)) < 0)
					err = git_fail(SC_EIO, "cannot read a folder");
				else
					err = walk_pair(w, sa, sb, depth + 1);
				git_tree_free(sa);
				git_tree_free(sb);
			} else if (w->out->n >= SC_MAX_DIFF_FILES) {
				err = sc_error_set(SC_ELIMIT, "diff has more than %d changed files",
						   SC_MAX_DIFF_FILES);
			} else {
				add_change(w->out, type_class(ma) != type_class(mb) ? SC_GIT_TYPECHANGE
						   : SC_GIT_MODIFIED, w->path.ptr, ea, w->path.ptr, eb);
			}
		}
	}
	sc_buf_truncate(&w->path, keep);
	return err;
}

int sc_git_diff(struct sc_git_changes *out, struct sc_git_tree *a, struct sc_git_tree *b)
{
	struct tree_walk w = { a->repo->repo, out, SC_BUF_INIT };
	int err;

	assert(a->repo == b->repo);
	err = walk_pair(&w, a->tree, b->tree, 0);
	sc_buf_release(&w.path);
	return err;
}

static int parse_oid(git_oid *oid, const char *id)
{
	if (git_oid_fromstr(oid, id) < 0)
		return sc_error_set(SC_EINVAL, "'%s' is not an object id", id);
	return 0;
}

int sc_git_object_size(size_t *out, struct sc_git_tree *tree, const char *id)
{
	git_odb *odb = NULL;
	git_object_t type;
	git_oid oid;
	size_t len = 0;
	int err;

	if ((err = parse_oid(&oid, id)) < 0)
		return err;
	if (git_repository_odb(&odb, tree->repo->repo) < 0)
		return git_fail(SC_EIO, "cannot open the object database");
	if (git_odb_read_header(&len, &type, odb, &oid) < 0)
		err = git_fail(SC_EIO, "cannot read object");
	git_odb_free(odb);
	*out = len;
	return err;
}

int sc_git_read_object(struct sc_buf *out, struct sc_git_tree *tree, const char *id, size_t cap)
{
	git_blob *blob = NULL;
	git_oid oid;
	int err;

	if ((err = parse_oid(&oid, id)) < 0)
		return err;
	if (git_blob_lookup(&blob, tree->repo->repo, &oid) < 0)
		return git_fail(SC_EIO, "cannot read blob");
	err = sc_buf_put_capped(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), cap);
	if (err < 0)
		err = sc_error_set(SC_ELIMIT, "blob %s is larger than %zu bytes", id, cap);
	git_blob_free(blob);
	return err;
}

/* Looks name up in a tree: a SKILL.md (or skill.md) that is a file or a symlink. */
static const git_tree_entry *skill_entry(const git_tree *t, bool *lowercase)
{
	static const char *const names[] = { "SKILL.md", "skill.md" };

	for (size_t i = 0; i < SC_ARRAY_SIZE(names); i++) {
		const git_tree_entry *e = git_tree_entry_byname(t, names[i]);
		if (e && git_tree_entry_type(e) == GIT_OBJECT_BLOB) {
			*lowercase = i == 1;
			return e;
		}
	}
	return NULL;
}

/* The subtree at dir ("" = root) into *out (caller frees); 1 when absent or not a folder. */
static int subtree(git_tree **out, struct sc_git_tree *tree, const char *dir)
{
	git_tree_entry *e = NULL;
	int rc;

	*out = NULL;
	if (!tree->tree)
		return 1;
	if (!*dir)
		return git_tree_dup(out, tree->tree) < 0 ? git_fail(SC_EIO, "cannot read tree") : 0;
	rc = git_tree_entry_bypath(&e, tree->tree, dir);
	if (rc == GIT_ENOTFOUND)
		return 1;
	if (rc < 0)
		return git_fail(SC_EIO, "cannot read tree");
	if (git_tree_entry_type(e) != GIT_OBJECT_TREE) {
		git_tree_entry_free(e);
		return 1;
	}
	rc = git_tree_lookup(out, tree->repo->repo, git_tree_entry_id(e));
	git_tree_entry_free(e);
	if (rc < 0) {
		struct sc_buf what = SC_BUF_INIT;
		sc_buf_printf(&what, "cannot read folder '%s'", dir);
		rc = git_fail(SC_EIO, what.ptr);
		sc_buf_release(&what);
		return rc;
	}
	return 0;
}

int sc_git_path_kind(enum sc_git_kind *out, struct sc_git_tree *tree, const char *path)
{
	git_tree_entry *e = NULL;
	int rc;

	*out = SC_GIT_KIND_NONE;
	if (!tree->tree)
		return 0;
	if (!*path || !strcmp(path, ".")) {
		*out = SC_GIT_KIND_DIR;
		return 0;
	}
	rc = git_tree_entry_bypath(&e, tree->tree, path);
	if (rc == GIT_ENOTFOUND) {
		git_error_clear();
		return 0;
	}
	if (rc < 0)
		return git_fail(SC_EIO, "cannot read tree");
	switch (git_tree_entry_filemode(e)) {
	case GIT_FILEMODE_TREE: *out = SC_GIT_KIND_DIR; break;
	case GIT_FILEMODE_LINK: *out = SC_GIT_KIND_LINK; break;
	case GIT_FILEMODE_COMMIT: *out = SC_GIT_KIND_GITLINK; break;
	default: *out = SC_GIT_KIND_FILE; break;
	}
	git_tree_entry_free(e);
	return 0;
}

int sc_git_probe(struct sc_git_probe *out, struct sc_git_tree *tree, const char *dir)
{
	git_tree *t = NULL;
	const git_tree_entry *e;
	int rc;

	memset(out, 0, sizeof(*out));
	rc = subtree(&t, tree, dir);
	if (rc != 0)
		return rc < 0 ? rc : 0;
	out->is_dir = true;
	git_oid_tostr(out->tree, SC_GIT_HEX_SIZE, git_tree_id(t));
	e = skill_entry(t, &out->lowercase);
	if (e) {
		out->is_skill = true;
		out->skill_md_mode = git_tree_entry_filemode(e);
	}
	git_tree_free(t);
	return 0;
}

void sc_git_skills_release(struct sc_git_skills *list)
{
	for (size_t i = 0; i < list->n; i++)
		free(list->items[i].path);
	free(list->items);
	list->items = NULL;
	list->n = list->alloc = 0;
}

struct walk_state {
	git_repository *repo;
	struct sc_git_skills *out;
	size_t entries;
	int err;
};

/*
 * git_tree_walk callback: at each folder entry, looks inside for a skill
 * file. Entries and skills are bounded.
 */
static int walk_cb(const char *root, const git_tree_entry *entry, void *payload)
{
	struct walk_state *w = payload;
	git_tree *t = NULL;
	const git_tree_entry *e;
	struct sc_git_skill s = { NULL, false, 0, "" };

	if (++w->entries > SC_MAX_WALK_ENTRIES) {
		w->err = sc_error_set(SC_ELIMIT, "tree has more than %d entries", SC_MAX_WALK_ENTRIES);
		return -1;
	}
	if (git_tree_entry_type(entry) != GIT_OBJECT_TREE)
		return 0;
	if (git_tree_lookup(&t, w->repo, git_tree_entry_id(entry)) < 0)
		return 0;
	e = skill_entry(t, &s.lowercase);
	if (e) {
		struct sc_buf p = SC_BUF_INIT;
		if (w->out->n >= SC_MAX_SKILLS) {
			git_tree_free(t);
			w->err = sc_error_set(SC_ELIMIT, "more than %d skills in one tree", SC_MAX_SKILLS);
			return -1;
		}
		sc_buf_printf(&p, "%s%s", root, git_tree_entry_name(entry));
		s.path = sc_buf_detach(&p, NULL);
		s.skill_md_mode = git_tree_entry_filemode(e);
		git_oid_tostr(s.tree, SC_GIT_HEX_SIZE, git_tree_entry_id(entry));
		SC_GROW(w->out->items, w->out->alloc, w->out->n + 1);
		w->out->items[w->out->n++] = s;
	}
	git_tree_free(t);
	return 0;
}

static int cmp_skill(const void *a, const void *b)
{
	return strcmp(((const struct sc_git_skill *)a)->path, ((const struct sc_git_skill *)b)->path);
}

int sc_git_list_skills(struct sc_git_skills *out, struct sc_git_tree *tree)
{
	struct walk_state w = { NULL, out, 0, 0 };
	const git_tree_entry *e;
	struct sc_git_skill s = { NULL, false, 0, "" };

	if (!tree->tree)
		return 0;
	w.repo = tree->repo->repo;
	e = skill_entry(tree->tree, &s.lowercase);
	if (e) {
		s.path = sc_xstrdup("");
		s.skill_md_mode = git_tree_entry_filemode(e);
		git_oid_tostr(s.tree, SC_GIT_HEX_SIZE, git_tree_id(tree->tree));
		SC_GROW(out->items, out->alloc, out->n + 1);
		out->items[out->n++] = s;
	}
	if (git_tree_walk(tree->tree, GIT_TREEWALK_PRE, walk_cb, &w) < 0)
		return w.err < 0 ? w.err : git_fail(SC_EIO, "cannot walk tree");
	if (out->n > 1)
		qsort(out->items, out->n, sizeof(*out->items), cmp_skill);
	return 0;
}

int sc_git_read_blob(struct sc_buf *out, struct sc_git_tree *tree, const char *path, size_t cap)
{
	git_tree_entry *e = NULL;
	git_blob *blob = NULL;
	int rc;

	if (!tree->tree || (rc = git_tree_entry_bypath(&e, tree->tree, path)) == GIT_ENOTFOUND)
		return sc_error_set(SC_ENOTFOUND, "'%s' is not in the tree", path);
	if (rc < 0)
		return git_fail(SC_EIO, "cannot read tree");
	if (git_tree_entry_type(e) != GIT_OBJECT_BLOB) {
		git_tree_entry_free(e);
		return sc_error_set(SC_EINVAL, "'%s' is not a file", path);
	}
	rc = git_blob_lookup(&blob, tree->repo->repo, git_tree_entry_id(e));
	git_tree_entry_free(e);
	if (rc < 0)
		return git_fail(SC_EIO, "cannot read blob");
	rc = sc_buf_put_capped(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob), cap);
	if (rc < 0)
		rc = sc_error_set(SC_ELIMIT, "'%s' is larger than %zu bytes", path, cap);
	git_blob_free(blob);
	return rc;
}

struct export_state {
	git_repository *repo;
	struct sc_diags *diags;
	const char *skill_dir;   /* repo path of the folder written out, for messages */
	size_t files, bytes, max_files, max_bytes;
};

/* A tree entry name safe to create in a folder. */
static bool name_is_safe(const char *name)
{
	if (!*name || !strcmp(name, ".") || !strcmp(name, "..") || !strcasecmp(name, ".git"))
		return false;
	return !strchr(name, '/') && !strchr(name, '\\');
}

/*
 * True when a symlink at rel (a path inside the written folder) pointing
 * at target stays inside the folder. Only leading ".." components are
 * allowed, applied to the link's own (real) folders; a ".." after a
 * normal component could climb out through another symlink, so it is
 * refused, as is an absolute target.
 */
static bool link_stays_inside(const char *rel, const char *target)
{
	size_t depth = 0;
	const char *p;
	bool climbing = true;

	if (!*target || *target == '/')
		return false;
	for (p = rel; *p; p++)
		if (*p == '/')
			depth++;
	for (p = target; *p;) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			if (!climbing || depth == 0)
				return false;
			depth--;
		} else if (n > 0 && !(n == 1 && p[0] == '.')) {
			climbing = false;
		}
		p += n;
		while (*p == '/')
			p++;
	}
	return true;
}

static void join3(struct sc_buf *out, const char *a, const char *b, const char *c)
{
	sc_buf_clear(out);
	sc_buf_puts(out, a);
	if (*b) {
		if (out->len)
			sc_buf_putc(out, '/');
		sc_buf_puts(out, b);
	}
	if (*c) {
		if (out->len)
			sc_buf_putc(out, '/');
		sc_buf_puts(out, c);
	}
}

static int write_file(const char *path, const void *data, size_t len, bool exec)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	const char *p = data;
	int err = 0;

	if (fd < 0)
		return sc_error_set(SC_EIO, "cannot create '%s': %s", path, strerror(errno));
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = sc_error_set(SC_EIO, "cannot write '%s': %s", path, strerror(errno));
			break;
		}
		p += w;
		len -= (size_t)w;
	}
	if (!err && fchmod(fd, exec ? 0755 : 0644) < 0)
		err = sc_error_set(SC_EIO, "cannot set mode of '%s': %s", path, strerror(errno));
	if (close(fd) < 0 && !err)
		err = sc_error_set(SC_EIO, "cannot write '%s': %s", path, strerror(errno));
	return err;
}

/*
 * Writes tree t into dest/rel, recursively. rel is the path inside the
 * exported folder ("" at its top).
 */
static int export_tree(struct export_state *x, const git_tree *t, const char *dest,
		       const char *rel, int depth)
{
	struct sc_buf path = SC_BUF_INIT, sub = SC_BUF_INIT, repo_path = SC_BUF_INIT;
	git_tree *child = NULL;
	git_blob *blob = NULL;
	int err = 0;

	if (depth > SC_MAX_TREE_DEPTH)
		return sc_error_set(SC_ELIMIT, "'%s/%s' is nested more than %d folders deep",
				    x->skill_dir, rel, SC_MAX_TREE_DEPTH);
	for (size_t i = 0; i < git_tree_entrycount(t); i++) {
		const git_tree_entry *e = git_tree_entry_byindex(t, i);
		const char *name = git_tree_entry_name(e);
		git_filemode_t mode = git_tree_entry_filemode(e);

		join3(&sub, rel, name, "");
		join3(&repo_path, x->skill_dir, sub.ptr, "");
		/* libgit2 reads names up to a NUL, so a NUL ends a name early. */
		if (!name_is_safe(name)) {
			err = sc_error_set(SC_EUNSAFE, "refusing unsafe name '%s' in '%s'", name,
					   x->skill_dir);
			goto done;
		}
		join3(&path, dest, sub.ptr, "");
		if (mode == GIT_FILEMODE_COMMIT) {
			sc_diags_add(x->diags, SC_SEV_WARNING, repo_path.ptr, 0, "submodule-skipped",
				     "submodule '%s' skipped; skills are read from one repository",
				     sub.ptr);
			continue;
		}
		if (mode == GIT_FILEMODE_TREE) {
			if (git_tree_lookup(&child, x->repo, git_tree_entry_id(e)) < 0) {
				err = git_fail(SC_EIO, "cannot read a folder of the skill");
				goto done;
			}
			if (mkdir(path.ptr, 0755) < 0) {
				err = sc_error_set(SC_EIO, "cannot create '%s': %s", path.ptr, strerror(errno));
				goto done;
			}
			err = export_tree(x, child, dest, sub.ptr, depth + 1);
			git_tree_free(child);
			child = NULL;
			if (err < 0)
				goto done;
			continue;
		}
		if (++x->files > x->max_files) {
			err = sc_error_set(SC_ELIMIT, "'%s' has more than %zu files", x->skill_dir,
					   x->max_files);
			goto done;
		}
		if (git_blob_lookup(&blob, x->repo, git_tree_entry_id(e)) < 0) {
			err = git_fail(SC_EIO, "cannot read a file of the skill");
			goto done;
		}
		{
			size_t size = (size_t)git_blob_rawsize(blob);
			const char *data = git_blob_rawcontent(blob);
			if (size > x->max_bytes - x->bytes) {
				err = sc_error_set(SC_ELIMIT, "'%s' is larger than %zu bytes",
						   x->skill_dir, x->max_bytes);
				goto done;
			}
			x->bytes += size;
			if (mode == GIT_FILEMODE_LINK) {
				char *target = NULL;
				if (size > SC_MAX_SYMLINK_TARGET || memchr(data, '\0', size)) {
					sc_diags_add(x->diags, SC_SEV_WARNING, repo_path.ptr, 0, "symlink-refused",
						     "symlink '%s' has an unusable target; skipped", sub.ptr);
				} else {
					target = sc_xstrndup(data, size);
					if (!link_stays_inside(sub.ptr, target)) {
						sc_diags_add(x->diags, SC_SEV_WARNING, repo_path.ptr, 0,
							     "symlink-escapes",
							     "symlink '%s' points outside the skill ('%s'); skipped",
							     sub.ptr, target);
					} else if (symlink(target, path.ptr) < 0) {
						err = sc_error_set(SC_EIO, "cannot create symlink '%s': %s",
								   path.ptr, strerror(errno));
					}
				}
				free(target);
			} else {
				err = write_file(path.ptr, data, size, mode == GIT_FILEMODE_BLOB_EXECUTABLE);
			}
		}
		git_blob_free(blob);
		blob = NULL;
		if (err < 0)
			goto done;
	}
done:
	git_blob_free(blob);
	git_tree_free(child);
	sc_buf_release(&path);
	sc_buf_release(&sub);
	sc_buf_release(&repo_path);
	return err;
}

int sc_git_materialize(struct sc_git_tree *tree, const char *dir, const char *dest,
		       const struct sc_git_export_opts *opts, struct sc_diags *diags)
{
	struct export_state x = { 0 };
	git_tree *t = NULL;
	int rc;

	x.repo = tree->repo->repo;
	x.diags = diags;
	x.skill_dir = *dir ? dir : ".";
	x.max_files = opts && opts->max_files ? opts->max_files : SC_MAX_EXPORT_FILES;
	x.max_bytes = opts && opts->max_bytes ? opts->max_bytes : SC_MAX_EXPORT_BYTES;
	rc = subtree(&t, tree, dir);
	if (rc > 0)
		return sc_error_set(SC_ENOTFOUND, "no folder '%s' at this revision", x.skill_dir);
	if (rc < 0)
		return rc;
	rc = export_tree(&x, t, dest, "", 0);
	git_tree_free(t);
	return rc;
}
