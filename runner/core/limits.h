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
/* What one skill may put into a system prompt (its body, name and
 * description, the listing of its references/ files): over it the skill
 * is an error finding and is not evaluated (skills/prompt.h) */
#define SC_MAX_SKILL_PROMPT_BYTES (256 * 1024)
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

/* Model providers, HTTP and the response cache (runner/net/http.c, runner/providers/provider.c and cache.c) */
#define SC_MAX_HTTP_RESPONSE_BYTES (16 * 1024 * 1024) /* one provider response body */
#define SC_MAX_CACHE_ENTRY_BYTES   (16 * 1024 * 1024) /* one cached response file */
#define SC_HTTP_MAX_HEADERS        16                 /* request headers per call */
#define SC_PROVIDER_MAX_TOTAL      64     /* default requests in flight, all providers */
#define SC_PROVIDER_MAX_EACH       64     /* default requests in flight per provider (= the total) */
#define SC_PROVIDER_MAX_ATTEMPTS   6      /* tries per request, first included */
#define SC_PROVIDER_DEADLINE_MS    (15 * 60 * 1000)  /* one request, retries included */
#define SC_PROVIDER_TIMEOUT_MS     (10 * 60 * 1000)  /* one attempt */
#define SC_PROVIDER_CONNECT_MS     (15 * 1000)
#define SC_PROVIDER_LOW_SPEED_S    60     /* abort an attempt under 1 byte/s this long */
#define SC_PROVIDER_BACKOFF_MS     500    /* first backoff ceiling */
#define SC_PROVIDER_BACKOFF_MAX_MS (60 * 1000)
#define SC_PROVIDER_RETRY_AFTER_MAX_MS (5 * 60 * 1000) /* longest Retry-After obeyed */
#define SC_PROVIDER_429_STRIKES    2      /* 429s in a row before halving concurrency */
#define SC_PROVIDER_RAISE_AFTER    8      /* successes before concurrency + 1 */
#define SC_AZURE_API_VERSION       "2025-04-01-preview" /* Azure OpenAI: takes o-series, reasoning_effort */

/* Test files and config (testsuite.c, config.c) */
#define SC_MAX_TESTS_PER_SKILL   10000  /* tests loaded for one skill, all files together */
#define SC_MAX_TEST_SUITE_FILES  256    /* JSON suites read from a skill's tests/ folder */
#define SC_MAX_TEST_CONTEXT_FILES 64    /* context files of one test */
#define SC_MAX_CONFIG_MODELS     64     /* models listed in skillci.yml */
#define SC_MAX_ENDPOINTS         32     /* named provider endpoints in skillci.yml */
#define SC_MAX_MANIFEST_SKILLS   10000  /* entries in skillci.yml "skills" */

/* Git: changed skills and skill trees written out of the object database */
#define SC_MAX_EXPORT_FILES      20000              /* files written for one skill */
#define SC_MAX_EXPORT_BYTES      (256 * 1024 * 1024) /* bytes written for one skill */
#define SC_MAX_TREE_DEPTH        64                 /* folder levels in a written tree */
#define SC_MAX_SYMLINK_TARGET    4096               /* bytes in a symlink's target */
#define SC_MAX_DIFF_FILES        2000000            /* file changes read from one diff */
#define SC_GIT_RENAME_LIMIT      1000               /* files each side for similarity (git's diff.renameLimit) */
#define SC_MAX_RENAME_BLOB_BYTES (16 * 1024 * 1024) /* a larger file is matched exactly only */
#define SC_GIT_TREE_CACHE_BYTES  (64 * 1024 * 1024) /* largest tree object kept in libgit2's cache */
#define SC_MAX_DIFF_DEPTH        1024               /* folder levels walked in a tree diff */

/* Reports (reporters/, runner/cmd/cmd-report.c) */
#define SC_MAX_RESULTS_BYTES       (256 * 1024 * 1024) /* one results JSON file */
#define SC_REPORT_MD_MESSAGE_MAX   1000        /* a unit's message in Markdown details */
#define SC_REPORT_MD_BRIEF_MAX     120         /* a gate message in the compact summary table */
#define SC_REPORT_MD_LOG_MAX       4000        /* a compile log in Markdown details */
#define SC_REPORT_MD_NOTE_RESERVE  512         /* room kept for the "details shortened" note */
#define SC_REPORT_JUNIT_MESSAGE_MAX 1024       /* a failure's message attribute */
#define SC_REPORT_JUNIT_TEXT_MAX   (64 * 1024) /* a failure body or system-out */
#define SC_REPORT_STEP_SUMMARY_MAX (1024 * 1024 - 1) /* GitHub's step summary limit */
#define SC_REPORT_MAX_ANNOTATIONS  10          /* ::error lines per run */
#define SC_REPORT_MAX_HISTORY      10000       /* history points on the index page */
#define SC_GITHUB_MAX_PAGES        50          /* comment list pages read (100 each) */
#define SC_GITHUB_TIMEOUT_MS       (30 * 1000) /* one GitHub REST call */
#define SC_MAX_EVENT_BYTES         (4 * 1024 * 1024) /* $GITHUB_EVENT_PATH */

/* generate and export (runner/teacher/generate.c, runner/results/export.c) */
#define SC_GEN_MAX_TRACE_BYTES   (8 * 1024 * 1024)  /* a trace file read whole */
#define SC_GEN_TRACE_PROMPT_BYTES (200 * 1024)      /* trace text put in the teacher's prompt */
#define SC_GEN_MAX_ANSWER_BYTES  (4 * 1024 * 1024)  /* a teacher answer parsed for JSON */
#define SC_GEN_MAX_REFERENCES    32                 /* references/ files from one answer */
#define SC_GEN_MAX_FILE_BYTES    (256 * 1024)       /* one reference, script or the body */
#define SC_GEN_MAX_CASES         50                 /* generated tests kept */
#define SC_GEN_MAX_FAILURES      5                  /* failure descriptions sent to refine */
#define SC_GEN_FAILURE_TEXT      300                /* bytes of input or error in one */
#define SC_GEN_MAX_TOKENS        8192               /* teacher answer length */
#define SC_GEN_MAX_REFINE        20                 /* largest --max-refine */
#define SC_EXPORT_MAX_UNITS      10000000           /* units read from a store by export */

/* Results store (runner/results/store.c) */
#define SC_STORE_LOOKUP_ROWS     16      /* newest rows of one unit key checked for a valid MAC */

/* skillci run and merge (runner/cmd/cmd-run.c, cmd-merge.c, pipeline/plan.c) */
#define SC_MAX_SHARDS            10000   /* --shard K/N: largest N */
#define SC_MAX_RUN_UNITS         10000000 /* units in one plan */
#define SC_MAX_MERGE_FILES       10000   /* shard files given to merge */
#define SC_MAX_JOBS              64      /* --jobs: kernel checks at once (worker processes) */


/* the results store (runner/results/store*.c) */
#define SC_STORE_BUSY_TIMEOUT_MS  30000   /* SQLite: wait for another writer */
#define SC_STORE_CONNECT_TIMEOUT_S 10     /* PostgreSQL: connect_timeout unless given */
#define SC_STORE_STATEMENT_TIMEOUT_MS 30000 /* PostgreSQL: statement_timeout unless set */
#define SC_STORE_RECONNECT_MS     60000   /* PostgreSQL: keep retrying a lost connection */
#define SC_STORE_TIMEOUT_TRIES    3       /* tries of a statement that timed out */
#define SC_STORE_CONFLICT_TRIES   10      /* tries after a deadlock or serialization failure */
#define SC_STORE_MAX_PARAMS       40      /* parameters of one store statement */
#define SC_STORE_COPY_BATCH       500     /* rows per transaction in store copy */

#endif
