#ifndef SC_SKILL_H
#define SC_SKILL_H
/*
 * Reading skills: discovery of skill folders under a root, SKILL.md parsing
 * (YAML front matter through yaml.h, body links through markdown.h) and the
 * Agent Skills rules. Every problem found in a user's files is added to a
 * struct sc_diags (diag.h) with a stable code (docs/skills.md lists them);
 * the functions return an error only when they cannot do their job at all
 * (the root does not exist, a file cannot be read).
 *
 * Ownership: a struct sc_skill owns every string and array it points to;
 * sc_skill_release() frees them. A struct sc_skill_list owns its skills.
 * Paths given to these functions are borrowed.
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_buf;
struct sc_diags;

/* Flags for sc_skill_load() and sc_skill_discover(). */
enum {
	/* Extension and unknown front matter fields are errors, not warnings. */
	SC_SKILL_STRICT = 1u << 0,
	/* Discovery only: find the folders and their files, do not read SKILL.md. */
	SC_SKILL_NO_PARSE = 1u << 1,
};

struct sc_skill {
	char *dir;          /* the folder: root joined with rel_dir ("skills/foo") */
	char *rel_dir;      /* relative to the discovery root; "." for the root itself */
	char *md_path;      /* dir + "/SKILL.md" (or "/skill.md") */
	char *folder_name;  /* last component of the folder's real path */
	/* Front matter values; NULL when absent or not a string. */
	char *name;
	char *description;
	char *license;
	char *compatibility;
	char *allowed_tools;
	/* Body: the Markdown below the front matter (NULL when not read). */
	char *body;
	size_t body_len;     /* bytes */
	size_t body_line;    /* line of SKILL.md where the body starts (1-based) */
	size_t body_lines;   /* lines in the body */
	size_t body_tokens;  /* estimate: ceil(Unicode characters / 4) */
	size_t md_bytes;     /* size of SKILL.md */
	/* Files the skill owns, relative to dir, sorted; nested skills' files
	 * and skipped folders are not included. */
	char **files;
	size_t nfiles, files_alloc;
	bool files_truncated;  /* more than SC_MAX_FILES_PER_SKILL */
	bool loaded;           /* SKILL.md was read and parsed (with or without findings) */
};

/* Something discovery did not walk, and why (shown by `validate -v`). */
struct sc_skip {
	char *path;    /* as joined from the root */
	char *reason;  /* e.g. "version control folder", "submodule" */
};

struct sc_skill_list {
	struct sc_skill *items;  /* in walk order: sorted names, parents first */
	size_t n, alloc;
	struct sc_skip *skipped;
	size_t nskipped, skipped_alloc;
	size_t entries;  /* directory entries visited */
};
#define SC_SKILL_LIST_INIT { NULL, 0, 0, NULL, 0, 0, 0 }

/*
 * Loads the one skill in folder dir (it must hold SKILL.md or skill.md):
 * lists the files it owns (stopping at nested skills), reads and checks
 * SKILL.md. Findings go to diags. Returns 0 (even with findings),
 * SC_ENOTFOUND when dir does not exist or holds no SKILL.md, SC_EINVAL when
 * dir is not a folder. out is initialised by the call; release it even on
 * error.
 */
int sc_skill_load(struct sc_skill *out, const char *dir, struct sc_diags *diags, unsigned flags);

/*
 * Finds every skill under root (a folder) and, unless SC_SKILL_NO_PARSE,
 * reads each one's SKILL.md. Hidden folders are walked; .git, node_modules
 * and submodules are skipped (listed in out->skipped); symlinks are never
 * followed into folders, and one that resolves outside root is a finding
 * (symlink-escape); depth, skill count and entries are bounded (limits.h,
 * a finding when hit). Returns 0 (even with findings) or SC_ENOTFOUND /
 * SC_EINVAL / SC_EIO when root cannot be walked. out must be initialised;
 * release it even on error.
 */
int sc_skill_discover(struct sc_skill_list *out, const char *root, struct sc_diags *diags,
		      unsigned flags);

/*
 * Parses SKILL.md content already in memory: front matter, fields, body
 * size and links (checked against skill->dir when it is set). md_path names
 * the file in findings; folder is the name the 'name' field must equal
 * (NULL: not checked). Fills skill's front matter and body fields.
 */
void sc_skill_parse_md(struct sc_skill *skill, const char *data, size_t len,
		       const char *md_path, const char *folder, struct sc_diags *diags,
		       unsigned flags);

/*
 * Checks a skill name against the Agent Skills rules (1-64 characters,
 * lowercase letters, digits and single hyphens, no hyphen at either end).
 * Returns true when valid; otherwise false and, when why is not NULL, a
 * message appended to it. name must be valid UTF-8.
 */
bool sc_skill_name_valid(const char *name, struct sc_buf *why);

/* Estimated tokens for text: ceil(Unicode characters / 4). */
size_t sc_skill_estimate_tokens(const char *text, size_t len);

void sc_skill_release(struct sc_skill *skill);
void sc_skill_list_release(struct sc_skill_list *list);

#endif
