#ifndef SC_GIT_H
#define SC_GIT_H
/*
 * The libgit2 wrapper: opening or cloning a repository, resolving
 * revisions, diffing two commits' trees (never the work tree), finding
 * skills inside a tree and writing a skill's tree out of the object
 * database. Nothing else in skillci includes <git2.h>; no libgit2 type
 * appears here.
 *
 * Ownership: a struct sc_git_repo is owned by whoever opened it and freed
 * with sc_git_free(); a struct sc_git_tree borrows its repository (free the
 * tree first). Lists are owned by the caller and released with their
 * _release function. Revisions and object ids are passed as hex strings of
 * SC_GIT_HEX_SIZE bytes (40 hex digits and a NUL).
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_buf;
struct sc_diags;

#define SC_GIT_HEX_SIZE 41

struct sc_git_repo;
struct sc_git_tree;

/* Process-wide libgit2 set-up and tear-down; called once from main(). */
int sc_git_global_init(void);
void sc_git_global_shutdown(void);

/*
 * Opens the repository at path, bare or not; a work tree's subfolder is
 * fine (the search goes up as git's does). SC_ENOTFOUND names the path
 * when it is not a repository.
 */
int sc_git_open(struct sc_git_repo **out, const char *path);
/* True for "file://", "https://", "http://", "ssh://" and "git@host:" forms. */
bool sc_git_is_url(const char *s);
/*
 * Clones url (bare) into a folder under cache_dir named after the URL's
 * hash, or fetches into that clone when it is already there. Local
 * branches follow the remote's after each fetch, so "main" and
 * "origin/main" both mean the remote's branch. https uses a token from
 * SKILLCI_GIT_TOKEN or GITHUB_TOKEN; the token never appears in a message.
 */
int sc_git_clone_or_fetch(struct sc_git_repo **out, const char *url, const char *cache_dir);
void sc_git_free(struct sc_git_repo *repo);
/* The repository's work tree (ending in '/'), or NULL for a bare clone. */
const char *sc_git_workdir(const struct sc_git_repo *repo);
/* A name for the repository: its work tree's (or bare folder's) base name. */
const char *sc_git_name(const struct sc_git_repo *repo);

/*
 * Resolves rev (full or short SHA, branch, tag, "HEAD~2", "origin/main")
 * to the commit it names; out gets the commit's hex id. A revision that
 * does not resolve to a commit is SC_ENOTFOUND naming it.
 */
int sc_git_resolve(char out[SC_GIT_HEX_SIZE], struct sc_git_repo *repo, const char *rev);
/* The best common ancestor of commits a and b (hex ids); SC_ENOTFOUND when none. */
int sc_git_merge_base(char out[SC_GIT_HEX_SIZE], struct sc_git_repo *repo,
		      const char *a, const char *b);
/*
 * The parents of commit (a hex id): *count gets how many it has, first_out
 * the first one's id ("" when none, or when it is not in the object
 * database: a shallow clone's boundary). SC_ENOTFOUND when commit is not
 * a commit here.
 */
int sc_git_parents(char first_out[SC_GIT_HEX_SIZE], size_t *count, struct sc_git_repo *repo,
		   const char *commit);
/* Whether the repository is a shallow clone (a depth-limited checkout). */
bool sc_git_is_shallow(struct sc_git_repo *repo);
/* What a path of a tree is: nothing, a folder, a file, a symbolic link or a submodule. */
enum sc_git_kind {
	SC_GIT_KIND_NONE, SC_GIT_KIND_DIR, SC_GIT_KIND_FILE, SC_GIT_KIND_LINK, SC_GIT_KIND_GITLINK,
};
int sc_git_path_kind(enum sc_git_kind *out, struct sc_git_tree *tree, const char *path);
/* True for an id made only of zeros (GitHub's "no previous commit"). */
bool sc_git_is_zero_id(const char *hex);

/* One changed file between two trees. Modes are git's (0100644, 0120000, ...; 0 when absent). */
enum sc_git_status {
	SC_GIT_ADDED, SC_GIT_DELETED, SC_GIT_MODIFIED, SC_GIT_RENAMED, SC_GIT_TYPECHANGE,
};
struct sc_git_change {
	enum sc_git_status status;
	char *old_path;   /* owned; NULL for an added file */
	char *new_path;   /* owned; NULL for a deleted file */
	unsigned old_mode, new_mode;
	char old_id[SC_GIT_HEX_SIZE];  /* blob (or gitlink) ids; "" where absent */
	char new_id[SC_GIT_HEX_SIZE];
};
struct sc_git_changes {
	struct sc_git_change *items;
	size_t n, alloc;
};
#define SC_GIT_CHANGES_INIT { NULL, 0, 0 }
void sc_git_changes_release(struct sc_git_changes *list);

#define SC_GIT_MODE_LINK    0120000u
#define SC_GIT_MODE_GITLINK 0160000u
#define SC_GIT_MODE_TREE    0040000u

/*
 * The tree of commit (a hex id) for the calls below; commit NULL or all
 * zeros gives the empty tree. The tree borrows repo.
 */
int sc_git_tree_open(struct sc_git_tree **out, struct sc_git_repo *repo, const char *commit);
void sc_git_tree_free(struct sc_git_tree *tree);
/*
 * The tree that merging commit theirs (a pull request's head) into ours
 * (the target's tip) makes, with base their merge base: what GitHub's
 * merge ref holds and what would land. Computed in memory (three-way,
 * renames found); new blobs and trees go to an in-memory object database,
 * never to the repository on disk. When base is ours or theirs the merge
 * is the other side's tree. tree_out gets the tree's id. A merge with
 * conflicts is SC_EINVAL naming the first paths and saying "rebase or
 * resolve"; SC_ENOTFOUND when a commit is missing.
 */
int sc_git_merge_trees(struct sc_git_tree **out, char tree_out[SC_GIT_HEX_SIZE],
		       struct sc_git_repo *repo, const char *base, const char *ours,
		       const char *theirs);
/* The tree id of a commit (hex); SC_ENOTFOUND when it is not a commit here. */
int sc_git_commit_tree_id(char out[SC_GIT_HEX_SIZE], struct sc_git_repo *repo, const char *commit);

/*
 * Appends the file changes from tree a to tree b, type changes included:
 * both trees are walked together and equal subtrees are skipped, so the
 * cost follows the size of the change. A moved file is a deletion and an
 * addition (changed.c pairs the renames that matter: skills that moved).
 */
int sc_git_diff(struct sc_git_changes *out, struct sc_git_tree *a, struct sc_git_tree *b);

/* The size of the object id (hex) names, from its header only (the
 * content is not inflated for a loose object, nor read for a packed one). */
int sc_git_object_size(size_t *out, struct sc_git_tree *tree, const char *id);
/* Appends the blob id (hex) names to out; more than cap bytes is SC_ELIMIT. */
int sc_git_read_object(struct sc_buf *out, struct sc_git_tree *tree, const char *id, size_t cap);

/*
 * What a folder of a tree is: whether it exists, whether it is a skill root
 * (holds a SKILL.md, or a lowercase skill.md, as a file or symlink), its
 * tree id and the SKILL.md entry's mode. dir is repo-relative, "" for the
 * root.
 */
struct sc_git_probe {
	bool is_dir;
	bool is_skill;
	bool lowercase;           /* the skill file is "skill.md" */
	unsigned skill_md_mode;
	char tree[SC_GIT_HEX_SIZE];
};
int sc_git_probe(struct sc_git_probe *out, struct sc_git_tree *tree, const char *dir);

/* Every skill root in a tree (nested ones too), sorted by path. */
struct sc_git_skill {
	char *path;   /* owned; repo-relative, "" for a skill at the root */
	bool lowercase;
	unsigned skill_md_mode;
	char tree[SC_GIT_HEX_SIZE];
};
struct sc_git_skills {
	struct sc_git_skill *items;
	size_t n, alloc;
};
#define SC_GIT_SKILLS_INIT { NULL, 0, 0 }
int sc_git_list_skills(struct sc_git_skills *out, struct sc_git_tree *tree);
void sc_git_skills_release(struct sc_git_skills *list);

/* Appends the blob at path (capped at cap bytes) to out. */
int sc_git_read_blob(struct sc_buf *out, struct sc_git_tree *tree, const char *path, size_t cap);

/*
 * Writes the folder dir of tree into dest (an existing, empty folder)
 * straight from the object database. Executable bits are kept; symlinks
 * that stay inside the folder are kept and those that leave it are
 * refused with a warning; submodules (gitlinks) are skipped with a
 * warning (warnings go to diags, files named by their repo path). An
 * entry named "", ".", "..", ".git" or holding a '/' or '\\' is
 * SC_EUNSAFE; more than max_files files or max_bytes bytes is SC_ELIMIT
 * (0 takes the limits.h defaults).
 */
struct sc_git_export_opts {
	size_t max_files;
	size_t max_bytes;
};
int sc_git_materialize(struct sc_git_tree *tree, const char *dir, const char *dest,
		       const struct sc_git_export_opts *opts, struct sc_diags *diags);

#endif
