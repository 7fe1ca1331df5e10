#ifndef SC_CHANGED_H
#define SC_CHANGED_H
/*
 * Changed skills between two revisions: file changes from the tree diff
 * (git.h) mapped to skill roots by the nearest SKILL.md in the base or the
 * head tree, then one status per skill. A skill that left a folder and a
 * skill new at head are one skill moved when their names (the front
 * matter's "name:") are the same, else when their content matches (git's
 * rename rules); a moved skill is one rename; files
 * that affect every skill (the repository config) mark every skill; a list
 * of extra path prefixes (fixtures a skill uses, from the manifest) marks
 * the skills named with them.
 *
 * The list owns its strings; release it with sc_changed_release().
 */
#include <stdbool.h>
#include <stddef.h>

#include "git/git.h"

enum sc_change_status {
	SC_CHANGE_ADDED, SC_CHANGE_MODIFIED, SC_CHANGE_DELETED, SC_CHANGE_RENAMED,
	SC_CHANGE_TYPECHANGE, SC_CHANGE_UNCHANGED,
};

/* Why a skill is listed (bits). */
enum {
	SC_CHANGED_FILES  = 1,  /* a file it owns changed */
	SC_CHANGED_CONFIG = 2,  /* a file that affects every skill changed */
	SC_CHANGED_EXTRA  = 4,  /* a path it uses (extra prefix) changed */
};

struct sc_changed_skill {
	char *path;       /* owned; repo-relative, "." for the root; at head (base when deleted) */
	char *old_path;   /* owned; path at base for a rename, else NULL */
	char *name;       /* owned; the folder's name */
	enum sc_change_status status;
	unsigned reasons;
	bool lowercase;   /* the skill file is a lowercase "skill.md" */
	size_t files;     /* changed files it owns */
	char base_tree[SC_GIT_HEX_SIZE];  /* "" when the skill is not at base */
	char head_tree[SC_GIT_HEX_SIZE];  /* "" when the skill is not at head */
};

struct sc_changed {
	struct sc_changed_skill *items;
	size_t n, alloc;
};
#define SC_CHANGED_INIT { NULL, 0, 0 }

/* A changed path under prefix (a file or a folder) marks the skill at skill_path. */
struct sc_changed_extra {
	const char *prefix;
	const char *skill_path;
};

struct sc_changed_opts {
	/* Repo-relative files whose change marks every skill; NULL: skillci.yml,
	 * skillci.yaml, .skillci.yml, upskill.config.yaml. */
	const char *const *global_files;
	size_t nglobal;
	const struct sc_changed_extra *extra;   /* borrowed */
	size_t nextra;
	bool all;   /* also list every unchanged skill at head */
};

/*
 * Fills out with the skills that changed from tree base to tree head
 * (base may be the empty tree: every skill at head is then added), sorted
 * by path. Borrowed trees; errors come from git.h.
 */
int sc_changed_compute(struct sc_changed *out, struct sc_git_tree *base, struct sc_git_tree *head,
		       const char *repo_name, const struct sc_changed_opts *opts);
void sc_changed_release(struct sc_changed *list);

/*
 * The skill's name: the "name:" of the front matter of the SKILL.md (or
 * lowercase skill.md) in folder dir of tree ("" or "." for the root), as
 * a new string in *out, or NULL when the file has none (or is not a
 * readable file). Errors reading the repository are returned.
 */
int sc_changed_skill_name(char **out, struct sc_git_tree *tree, const char *dir, bool lowercase);
const char *sc_change_status_name(enum sc_change_status status);

#endif
