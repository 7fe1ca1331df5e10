#ifndef SC_TRUST_H
#define SC_TRUST_H
/*
 * The trust boundary of a PR check (docs/security.md, "Trust boundary").
 *
 * Trusted: the workflow's flags and environment, the runner's own files,
 * and the *base* revision (already reviewed and merged). Untrusted: the
 * pull request's head, and everything in the checked-out workspace,
 * which is the head's tree. So `skillci run`:
 *
 *   - reads its policy (models, runs, turns, concurrency, cache, store,
 *     fixtures, gate, budget, report paths, the manifest) from the base
 *     revision's skillci.yml out of the object database, never from the
 *     work tree; the head's skillci.yml is read only to say what it would
 *     change (struct sc_trust), and is never applied;
 *   - reads kernel fixtures from the base revision when they live in the
 *     repository;
 *   - runs the oracle self-test only when it is named on the command line;
 *   - writes only inside the workspace (or where a flag names), and never
 *     through a symbolic link that leads out of it;
 *   - refuses a plan over its budget before the first request;
 *   - judges the head on the base's tests; tests the head adds or changes
 *     are run beside the verdict (sc_trust_diff_tests()).
 *
 * Ownership: struct sc_trust owns its strings; const char * parameters
 * are borrowed.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "skills/testsuite.h"  /* struct sc_strlist, struct sc_test_set */

struct sc_buf;
struct sc_config;
struct sc_diags;
struct sc_git_tree;

/* One policy key the head's configuration sets otherwise than the base's. */
struct sc_trust_change {
	char *key;     /* dotted key, "gate.alpha" */
	char *base;    /* the value applied */
	char *head;    /* the value the pull request asked for, not applied */
};

/* What a run took on trust, and what the pull request tried that was not. */
struct sc_trust {
	char *config_source;              /* where the policy came from, for reports */
	struct sc_trust_change *changes;  /* the head's configuration changes, not applied */
	size_t nchanges, changes_alloc;
	struct sc_strlist notes;          /* other things refused or ignored, one sentence each */
};

void sc_trust_init(struct sc_trust *t);
void sc_trust_release(struct sc_trust *t);
/* Adds one note (a sentence without a final period). */
void sc_trust_note(struct sc_trust *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Where a run's configuration is read from. */
struct sc_trust_config_in {
	struct sc_git_tree *base;   /* NULL: no base revision (a first push) */
	struct sc_git_tree *head;
	const char *base_rev;       /* hex ids, for messages ("" when none) */
	const char *head_rev;
	const char *repo_workdir;   /* the repository's work tree (real path), NULL for a clone */
	const char *explicit_path;  /* --config, or NULL */
	const char *scratch;        /* an empty folder the blobs are written to */
};

/*
 * Loads the policy of a run into out (initialised here; release it even
 * on error). The configuration is, in order:
 *
 *   - --config F naming a file outside the repository's work tree (a
 *     runner's file): read from disk;
 *   - else the file (--config F inside the work tree, or skillci.yml at
 *     the root) and upskill.config.yaml as they are at the base revision,
 *     read from the object database; with no base revision, the head's;
 *     with neither file there, the defaults.
 *
 * Findings of the applied files go to diags with repository paths
 * ("skillci.yml:7: ..."). The head's version of the same files is loaded
 * too and compared key by key (sc_config_policy()): each difference is a
 * change in t, and a finding in the head's files a note; nothing of it
 * is applied. Returns 0 (check diags for errors) or an error reading the
 * repository or writing scratch.
 */
int sc_trust_load_config(struct sc_config *out, struct sc_trust *t,
			 const struct sc_trust_config_in *in, struct sc_diags *diags);

/*
 * The models a run evaluates: the flags' (cli, in order) when any, else
 * the configuration's without the oracle self-test (each one left out is
 * a note and a warning: the oracle runs only when named on the command
 * line). Appends to out.
 */
void sc_trust_models(struct sc_strlist *out, const char *const *cli, size_t ncli,
		     const struct sc_strlist *config_models, struct sc_trust *t);

/*
 * Checks a path skillci is about to write (key names where it came from,
 * "store" or "--junit", for the message). workspace is the real path of
 * the current folder. A path inside the workspace (relative, or absolute
 * under it) must stay inside: each part of it that already exists,
 * resolved with its symbolic links, must still be under workspace.
 * Absolute paths elsewhere, and paths whose ".." parts lead out of the
 * workspace, are the workflow's own choice and pass: the parts are
 * followed in order, ".." from where the walk stands (resolved).
 * Returns 0 or SC_EUNSAFE naming the key, the path and the link.
 */
int sc_trust_check_output(const char *key, const char *path, const char *workspace);

/*
 * Checks that a report can be written: creates the folder of path (path
 * itself when is_dir) and a scratch file in it. SC_EIO naming key, the
 * folder, the error and the folder's mode and owner when it cannot.
 */
int sc_trust_check_writable(const char *key, const char *path, bool is_dir);

/*
 * The kernel fixtures folder of a run. dir is the flag's (from_flag) or
 * the configuration's value (relative to the repository root).
 *   - A folder inside the repository (the configuration's always; a
 *     flag's when it lies in repo_workdir) is written out of the base
 *     revision into scratch/fixtures (the head's when there is no base),
 *     so a pull request cannot change what kernels are judged against; a
 *     head that changes the folder gets a note.
 *   - A flag's folder outside the repository is used as it is.
 * A configuration value outside the repository ('..', absolute) is
 * SC_EINVAL naming the key. *out is a new string (the folder to use).
 */
int sc_trust_fixtures(char **out, const char *dir, bool from_flag, struct sc_git_tree *base,
		      struct sc_git_tree *head, const char *repo_workdir, const char *scratch,
		      struct sc_trust *t, struct sc_diags *diags);

/*
 * Leaves out of set (tests of the head: the ones it adds or changes, or
 * an added skill's) every kernel test whose fixture the trusted folder
 * fixtures_dir does not hold pinned (unless allow_unpinned): a pull
 * request cannot bring the fixture its own kernels are judged against; the
 * fixture lands first. Each one left out is a note naming the skill, the
 * test and the fixture. Returns how many were left out.
 */
size_t sc_trust_drop_unknown_fixtures(struct sc_test_set *set, const char *fixtures_dir,
				      bool allow_unpinned, const char *skill, struct sc_trust *t);

/*
 * Writes the blobs at paths (repository-relative) of tree under dest,
 * for files a manifest names; a path missing from the tree is skipped.
 * The paths written are appended to written.
 */
int sc_trust_write_blobs(struct sc_git_tree *tree, const struct sc_strlist *paths, const char *dest,
			 struct sc_strlist *written);

/* The budget of one run (this shard's units). */
struct sc_trust_budget {
	size_t units;           /* units planned in this shard */
	int64_t requests;       /* the most model requests they can make (turns, judge) */
	int64_t max_units;      /* budget.max_units */
	int64_t max_requests;   /* budget.max_requests */
};

/*
 * Appends the one-line estimate to line ("budget: 12 units, at most 14
 * model requests; limits 10000 units, 20000 requests"). Returns 0, or
 * SC_EINVAL with a message giving the numbers and what to change when the
 * plan is over either limit.
 */
int sc_trust_budget_check(const struct sc_trust_budget *b, struct sc_buf *line);

/* How a head's tests differ from the base's (by content). */
struct sc_test_changes {
	size_t added;     /* new at head */
	size_t changed;   /* an id the base has, with other content */
	size_t removed;   /* at base only */
};

/*
 * Compares the tests of base and head by content (sc_test_hash()): copies
 * into proposed (appended) every head test whose content is not among the
 * base's, and counts added, changed and removed tests in out. A test
 * moved to another id with the same content is neither.
 */
void sc_trust_diff_tests(struct sc_test_set *proposed, struct sc_test_changes *out,
			 const struct sc_test_set *base, const struct sc_test_set *head);

#endif
