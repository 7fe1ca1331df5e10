#ifndef SC_LIMITS_H
#define SC_LIMITS_H
/*
 * Every bound on untrusted input, in one place. A value read from a skill
 * repository, a model answer or a server response never grows past these.
 */

/* Skill discovery */
#define SC_MAX_DISCOVERY_DEPTH   32          /* folder levels below a root */
#define SC_MAX_SKILLS            100000      /* skills found under one root */
#define SC_MAX_FILES_PER_SKILL   20000       /* files listed for one skill */
#define SC_MAX_WALK_ENTRIES      2000000     /* directory entries visited in one walk */

/* Files */
#define SC_MAX_SKILL_MD_BYTES    (1024 * 1024)      /* SKILL.md */
#define SC_MAX_JSON_BYTES        (8 * 1024 * 1024)  /* test files, results */
#define SC_MAX_CONFIG_BYTES      (256 * 1024)       /* skillci.yml */
#define SC_MAX_CONTEXT_FILE_BYTES (256 * 1024)      /* a test's context file */
#define SC_MAX_FILE_BYTES        (64 * 1024 * 1024) /* any other file read whole */

/* SKILL.md rules (Agent Skills) */
#define SC_NAME_MAX_CHARS          64
#define SC_DESCRIPTION_MAX_CHARS   1024
#define SC_COMPATIBILITY_MAX_CHARS 500
#define SC_BODY_WARN_LINES         500
#define SC_BODY_WARN_TOKENS        5000

/* YAML */
#define SC_MAX_YAML_DEPTH        64
#define SC_MAX_YAML_NODES        100000

#endif
