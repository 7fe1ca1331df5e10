#ifndef SC_RESULTS_H
#define SC_RESULTS_H
/*
 * The C model of a results JSON file (docs/results-json.md, schema
 * skillci.results/1): what an evaluation wrote, read back by the reporters,
 * `merge`, `runs` and `export`. This module loads, saves and frees; it holds
 * no evaluation logic (no statistics, no gate).
 *
 * Ownership: a struct sc_results owns every string and array below it;
 * sc_results_release() frees them all. Absent values are NULL for strings,
 * NAN for numbers (test with isnan) and SC_RESULTS_NULL_INT for nullable
 * integers; nullable booleans are -1 (null), 0 or 1.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_buf;

#define SC_RESULTS_SCHEMA        "skillci.results/1"
#define SC_RESULTS_SCHEMA_PREFIX "skillci.results/"
#define SC_RESULTS_NULL_INT      INT64_MIN
#define SC_RESULTS_EXCERPT_MAX   240

struct sc_buf;
struct sc_strpool;

/*
 * The states a results file names (docs/results-json.md). Each is an enum
 * in the model and a string only in the JSON (and the store's columns):
 * one table of names per enum (results_states.c), sc_<enum>_name() to
 * write one, sc_<enum>_parse() to read one (false for any other name).
 * Enums a file may leave null have a _NONE value, written as null.
 */
#include "diag.h"   /* enum sc_severity: a finding's "severity" */

/* A unit's verdict: "pass", "fail", "error" (infrastructure), "skipped",
 * "unverified" (it ran and its check could not be made: never a pass). */
enum sc_unit_verdict {
	SC_UNIT_PASS, SC_UNIT_FAIL, SC_UNIT_ERROR, SC_UNIT_SKIPPED, SC_UNIT_UNVERIFIED,
};
/* A variant, in the documented order: "baseline" (no skill), "base",
 * "head", "head_tests" (the head skill on the tests the pull request adds
 * or changes: run and reported beside the verdict, never judged). */
enum sc_variant {
	SC_VARIANT_BASELINE, SC_VARIANT_BASE, SC_VARIANT_HEAD, SC_VARIANT_HEAD_TESTS,
};
#define SC_VARIANT_COUNT 4
/* A unit's kind: "text", "kernel", "agent", "trigger"; null: none recorded. */
enum sc_unit_kind { SC_KIND_NONE, SC_KIND_TEXT, SC_KIND_KERNEL, SC_KIND_AGENT, SC_KIND_TRIGGER };
/* A trigger test's expectation: "should_trigger", "should_not_trigger"; null: not one. */
enum sc_trigger { SC_TRIGGER_NONE, SC_TRIGGER_SHOULD, SC_TRIGGER_SHOULD_NOT };
/* What a pull request did to a skill: "added", "modified", "deleted",
 * "renamed", "typechange" (a file became a link or back), "unchanged"
 * (every skill of an eval); null: not recorded. */
enum sc_skill_status {
	SC_SKILL_NONE, SC_SKILL_ADDED, SC_SKILL_MODIFIED, SC_SKILL_DELETED, SC_SKILL_RENAMED,
	SC_SKILL_TYPECHANGE, SC_SKILL_UNCHANGED,
};
/* A finding across the sides: "new" (head only), "existing", "fixed" (base only). */
enum sc_finding_state { SC_FINDING_NEW, SC_FINDING_EXISTING, SC_FINDING_FIXED };
/* A kernel unit's compile step: "ok", "failed"; null: none. */
enum sc_compile { SC_COMPILE_NONE, SC_COMPILE_OK, SC_COMPILE_FAILED };
/* A kernel unit's verdict (docs/kernels.md): "passed", "compiled" (no
 * GPU), "compile_failed", "mismatch", "timeout", "crashed", "refused",
 * "no_code"; null: none. */
enum sc_kernel_verdict {
	SC_KV_NONE, SC_KV_PASSED, SC_KV_COMPILED, SC_KV_COMPILE_FAILED, SC_KV_MISMATCH,
	SC_KV_TIMEOUT, SC_KV_CRASHED, SC_KV_REFUSED, SC_KV_NO_CODE,
};
/* A check of the gate, in report order: "deleted", "validity", "tests",
 * "pass_rate", "lift", "discrimination", "kernel", "tokens", "speedup",
 * "judge", "errors"; "run" (the run as a whole: interrupted) and
 * "verdict_unverified" (a file's verdict that cannot be recomputed). */
enum sc_check_kind {
	SC_CHECK_DELETED, SC_CHECK_VALIDITY, SC_CHECK_TESTS, SC_CHECK_PASS_RATE, SC_CHECK_LIFT,
	SC_CHECK_DISCRIMINATION, SC_CHECK_KERNEL, SC_CHECK_TOKENS, SC_CHECK_SPEEDUP,
	SC_CHECK_JUDGE, SC_CHECK_ERRORS, SC_CHECK_RUN, SC_CHECK_CLAIM,
};
/* A check's status: "passed", "failed", "unverified", "error" (could not
 * check: the runner's fault), "skipped" (not applicable). */
enum sc_check_status {
	SC_STATUS_PASSED, SC_STATUS_FAILED, SC_STATUS_UNVERIFIED, SC_STATUS_ERROR, SC_STATUS_SKIPPED,
};
/* The pass-rate design's decision: "regression", "ruled_out",
 * "unverified" (older files' "inconclusive" reads as it); null: none. */
enum sc_decision { SC_DECISION_NONE, SC_DECISION_REGRESSION, SC_DECISION_RULED_OUT, SC_DECISION_UNVERIFIED };
/* eval's lift decision: "lift" (shown), "no_lift" (a lift of D ruled
 * out), "unverified" (older files' "inconclusive" reads as it). */
enum sc_lift_decision { SC_LIFT_SHOWN, SC_LIFT_NONE, SC_LIFT_UNVERIFIED };
/* Why a lift decision stopped: "shown", "ruled_out", "end" (the
 * boundaries met), "max_runs", "stopped"; null: not recorded. */
enum sc_lift_stop {
	SC_STOP_NONE, SC_STOP_SHOWN, SC_STOP_RULED_OUT, SC_STOP_END, SC_STOP_MAX_RUNS,
	SC_STOP_STOPPED,
};
/* A results file's kind: "run" (a PR check), "eval", or "generate" (the
 * teacher's evaluations); null reads as run. */
enum sc_run_kind { SC_RUN_KIND_RUN, SC_RUN_KIND_EVAL, SC_RUN_KIND_GENERATE };
/* What a PR check judged: "merge" (the head merged into the target's tip)
 * or "head"; null: not recorded. */
enum sc_judged { SC_JUDGED_NONE, SC_JUDGED_MERGE, SC_JUDGED_HEAD };

/*
 * What a run, a skill x model or a check means (docs/reports.md, "One
 * verdict"): decided once (the gate, results/verdict.h), rendered by every
 * surface: "pass", "fail", "unverified", "error" (could not check).
 */
enum sc_verdict {
	SC_VERDICT_PASS,        /* every check passed */
	SC_VERDICT_FAIL,        /* a regression shown, or a rule the pull request broke */
	SC_VERDICT_UNVERIFIED,  /* a check could not be decided: never green */
	SC_VERDICT_ERROR,       /* could not check: the runner's fault, not the pull request's */
};

#define SC_STATE_NAMES(prefix, type) \
	const char *prefix##_name(type v); \
	bool prefix##_parse(const char *name, type *out)
SC_STATE_NAMES(sc_verdict, enum sc_verdict);
SC_STATE_NAMES(sc_unit_verdict, enum sc_unit_verdict);
SC_STATE_NAMES(sc_variant, enum sc_variant);
SC_STATE_NAMES(sc_unit_kind, enum sc_unit_kind);
SC_STATE_NAMES(sc_trigger, enum sc_trigger);
SC_STATE_NAMES(sc_skill_status, enum sc_skill_status);
SC_STATE_NAMES(sc_finding_state, enum sc_finding_state);
SC_STATE_NAMES(sc_severity, enum sc_severity);
SC_STATE_NAMES(sc_compile, enum sc_compile);
SC_STATE_NAMES(sc_kernel_verdict, enum sc_kernel_verdict);
SC_STATE_NAMES(sc_check_kind, enum sc_check_kind);
SC_STATE_NAMES(sc_check_status, enum sc_check_status);
SC_STATE_NAMES(sc_decision, enum sc_decision);
SC_STATE_NAMES(sc_lift_decision, enum sc_lift_decision);
SC_STATE_NAMES(sc_lift_stop, enum sc_lift_stop);
SC_STATE_NAMES(sc_run_kind, enum sc_run_kind);
SC_STATE_NAMES(sc_judged, enum sc_judged);
/*
 * For the round-trip test and messages: the names of an enum in value
 * order (NULL at a _NONE value), and how many values it has. name: the
 * enum's prefix without "sc_" ("unit_verdict", "variant", ...); NULL for
 * an unknown one.
 */
const char *const *sc_state_table(const char *name, size_t *n);
/* Appends "a, b or c": the names of a table (NULLs left out), for messages. */
void sc_state_expected(struct sc_buf *out, const char *const *names, size_t n);

struct sc_results_gpu {
	char *name, *driver, *arch, *cc;
};

/* A policy key the pull request's configuration set, not applied. */
struct sc_results_config_change {
	char *key, *base, *head;
};

/* The gate thresholds a run applied (from the trusted side), so `merge`
 * judges the merged shards by the same ones. */
struct sc_results_gate_policy {
	bool present;
	double pass_rate_drop_points, alpha, tokens_rise_pct, speedup_drop_ratio, judge_drop;
	double error_share;
	bool require_lift;
	/* the invariants of a green check (absent in older files: the defaults) */
	bool deletions_allowed;          /* allow_deletions, or the event carried deletion_label */
	double max_baseline_pass_rate;   /* 1 when absent */
	bool compile_only;
	double regression_points, beta;  /* D and beta of the pass-rate decision; NAN when absent */
	bool accept_unverified;          /* false when absent */
	bool allow_untested;             /* false when absent */
	/* the sampling design (absent in older files: 0, a fixed design) */
	int64_t first_runs, max_runs;    /* gate.first_runs, gate.max_runs */
	int64_t planned_checks;          /* the PR's pass-rate checks, known at plan time */
};

/* What a PR check took on trust and what the head tried (docs/security.md). */
struct sc_results_trust {
	struct sc_results_gate_policy gate;
	char *config;             /* where the policy came from; NULL outside `run` */
	struct sc_results_config_change *changes;  /* the head's config changes, not applied */
	size_t nchanges;
	char **notes;             /* other things from the head refused or ignored */
	size_t nnotes;
};

/* Actual token use and cost of one skill on one model, all variants. */
struct sc_results_usage {
	char *skill, *model;
	int64_t tokens_in, tokens_out;
	double cost_usd;          /* at list prices; NAN: the model has no price */
	char *price_date;         /* the date of the price used, or NULL */
};

/*
 * What a check's verdict rests on (docs/run.md, "Provenance"): the
 * commits it judged, the policy and plan it ran under and the CI run it
 * belongs to. Every shard of one check records the same, and merge
 * refuses shards that disagree (pipeline/shards.h). present is false
 * where a file has none (eval, older files).
 */
struct sc_results_provenance {
	bool present;
	char *head;               /* the pull request's head commit */
	char *base;               /* the target's tip: policy and the verdict's tests */
	char *merge_base;         /* decides what changed; NULL when there is none */
	enum sc_judged judged;
	char *judged_tree;        /* the tree evaluated */
	char *config_hash;        /* SHA-256 of the trusted policy as applied */
	char *workflow_run_id;    /* the CI run all shards share; NULL outside one */
	int64_t workflow_run_attempt;  /* its attempt (1 when the system has none) */
	int64_t pr_number;        /* the pull request, 0 when none */
	char *pr_source;          /* "event" (the job's own) or "api"; NULL when none */
};

struct sc_results_run {
	char *id;
	enum sc_run_kind kind;
	char *started_at, *finished_at;
	bool complete;
	char *incomplete_reason;
	char *repo;
	char *base_rev, *head_rev;
	char **models;            /* as given: "kimi", "lab.qwen3-coder" */
	size_t nmodels;
	char **resolved_models;   /* parallel to models: the canonical name each resolved to */
	size_t nresolved_models;  /* nmodels, or 0 when the file has none */
	int64_t runs;
	int64_t shard_index, shard_count;
	char *plan_hash;
	struct sc_results_provenance prov;
	bool oracle;
	char *mode;               /* "gpu", "compile-only", "none" */
	bool has_gpu;
	struct sc_results_gpu gpu;
	char *fixtures_lock;
	double alpha;             /* significance level of the comparisons; NAN: absent */
	struct sc_results_trust trust;
	struct sc_results_usage *usage;  /* "run.usage" (absent when empty) */
	size_t nusage;
};

/*
 * A finding of the Agent Skills rules (or of loading a side) compared
 * across the two sides of a changed skill: "new" at head only (the pull
 * request brought it), "existing" at base and at head, "fixed" at base
 * only.
 */
struct sc_results_finding {
	enum sc_finding_state state;
	enum sc_severity severity;
	char *code;               /* the rule, as validate names it */
	char *file;               /* repository path (head's; base's for a fixed one) */
	int64_t line;             /* 1-based, 0 when none */
	char *message;
};

struct sc_results_skill {
	char *path, *name;
	enum sc_skill_status status;
	char *old_path;
	char *skill_md;
	char *base_tree, *head_tree;
	int64_t tests;            /* tests the verdict used (the base's when there is a base) */
	bool untested;
	/* the base had no tests and the head adds the first ones: the verdict
	 * used the head's tests, judged as a new skill's are ("first_tests") */
	bool first_tests;
	/* how the head's tests differ from the base's; has_test_changes is
	 * false where there is nothing to compare (added, deleted, eval) */
	bool has_test_changes;
	int64_t tests_added, tests_changed, tests_removed;
	bool gate_passed;
	char **gate_reasons;
	size_t ngate_reasons;
	struct sc_results_finding *findings;
	size_t nfindings;
};

struct sc_results_kernel {
	char *fixture, *fixture_hash;
	enum sc_compile compile;
	char *compile_log;
	enum sc_kernel_verdict verdict;
	double max_abs_error;
	int64_t worst_index;
	int64_t registers, spills, shared_bytes;
	double candidate_ms, baseline_ms, candidate_iqr_ms;
	double speedup;           /* over the fixture's naive baseline (baseline.cu) */
	/* The strong reference (docs/kernels.md): its name, or why there is
	 * none ("none: ...", "NAME (not timed: ...)"); NULL when the kernel
	 * was not timed. strong_speedup is the speedup over it, NAN when none. */
	char *strong_reference;
	double strong_speedup;
	double pct_of_peak;       /* share of the device's roofline, percent */
	bool suspect;
	char **flags;
	size_t nflags;
};

struct sc_results_hashes {
	char *skill, *test, *model, *prompt, *harness, *fixture;
};

struct sc_results_unit {
	char *skill;
	enum sc_variant variant;
	char *model;
	char *test_id, *test_name;
	int64_t run_index;
	enum sc_unit_kind kind;
	enum sc_trigger trigger;  /* trigger tests only */
	enum sc_unit_verdict verdict;
	char *error_class;
	char *message;
	/* The start of the model's last answer when the unit failed (at most
	 * SC_RESULTS_EXCERPT_MAX bytes, cut at a character boundary, "…"
	 * appended when cut); NULL when it passed, had no answer, or was
	 * reused from the store. Untrusted text: reports escape it. */
	char *excerpt;
	int64_t tokens_in, tokens_out, turns, latency_ms;
	double judge_score;
	bool reused;
	struct sc_results_kernel *kernel;   /* NULL for text tests */
	struct sc_results_hashes hashes;
	char *test_file;          /* optional: file defining the test */
	int64_t test_line;        /* optional: its line (1-based) */
	/* Its strings (and its kernel's) are in the results' string pool, not
	 * its own: sc_results_pool_unit(). The kernel struct and its flags
	 * array stay the unit's. */
	bool pooled;
};

struct sc_results_aggregate {
	char *skill;
	enum sc_variant variant;
	char *model;
	int64_t n, passed, failed, errors, skipped;
	double pass_rate, ci_low, ci_high;
	double mean_tokens, mean_turns;
	double speedup_geomean;
	double strong_speedup_geomean;  /* of passed units' strong_speedup; NAN when none */
	double fast_1, fast_1_5, fast_2;
	double judge_mean;
	/* Trigger tests (decided units only): should_trigger queries and how
	 * many opened the skill (recall = trigger_hits / trigger_should), and
	 * should_not_trigger queries and how many opened it all the same
	 * (false-trigger rate = trigger_false / trigger_should_not). */
	int64_t trigger_should, trigger_hits, trigger_should_not, trigger_false;
};

struct sc_results_comparison {
	char *skill, *model;
	enum sc_variant from, to;
	int64_t paired_n;
	double from_pass_rate, to_pass_rate, pass_rate_delta;
	int64_t to_only, from_only;
	double p_value;
	bool significant;
	double tokens_delta_pct;
	double speedup_ratio;
	double judge_delta;
	double skill_lift;
	double token_savings;
	int is_beneficial;        /* -1 null, 0, 1 */
};


struct sc_results_gate_failure {
	enum sc_check_status status;  /* the check's: failed, unverified or error */
	char *skill, *model, *rule, *message;
	enum sc_check_kind check; /* the check the rule belongs to (sc_results_rule_check) */
	char *file;               /* where it is, when it has a place; else NULL */
	int64_t line;             /* 1-based, 0 when none */
};

/*
 * One check the gate made for a changed skill and model (model "" for a
 * check of the whole skill): what a JUnit testcase shows. status "failed"
 * exactly when a failure of r->gate names the same skill, model and check.
 */
/*
 * The pass-rate decision behind a pass_rate check (docs/results-json.md):
 * the paired per-test difference at the look that decided, in pass-rate
 * fractions.
 */
struct sc_results_margin {
	bool present;
	double mean, lo, hi;       /* the difference and its interval */
	double detectable;         /* the smallest drop the data could detect (80% power) */
	int64_t tests;             /* tests judged at both sides */
	int64_t base_runs, head_runs;  /* judged units used, per side */
	int64_t runs_per_test;     /* runs per test at the look that decided */
	int64_t rounds;            /* looks taken (1 for a fixed design) */
	enum sc_decision decision;
	/* the design (docs/evaluation.md, "The pass-rate decision"); NAN when absent */
	double drop, beta;         /* D and beta, fractions */
	double llr, info, i_max;   /* the log likelihood ratio and information at the look,
				    * and the information where the boundaries meet */
	int64_t reused;            /* units of the check taken from the store */
	int64_t evaluated;         /* units of the check evaluated by this run */
};

struct sc_results_check {
	char *skill, *model;
	enum sc_check_kind check;
	enum sc_check_status status;
	bool accepted;            /* unverified, and the trusted policy accepts it */
	char *rule;               /* the rule that failed; NULL otherwise */
	char *message;            /* what was compared, or why it failed or was skipped */
	char *file;
	int64_t line;
	struct sc_results_margin margin;  /* pass_rate checks that compared; else absent */
};

struct sc_results_gate {
	bool passed;              /* the run may merge: pass, or unverified all accepted */
	int64_t exit_code;
	enum sc_verdict verdict;
	int64_t unverified;       /* checks unverified (accepted or not) */
	struct sc_results_gate_failure *failures;
	size_t nfailures;
	double error_share;
	struct sc_results_check *checks;
	size_t nchecks;
};

struct sc_results_totals {
	int64_t units, evaluated, reused, cache_hits, requests;
	int64_t tokens_in, tokens_out;
	int64_t passed, failed, errors, skipped;
	int64_t wall_ms;
};

/*
 * A test's record in the store before this run (docs/results-json.md,
 * "history"): the judged units stored for the same skill content, test
 * and model, and how often two of its runs differ.
 */
struct sc_results_flips {
	char *skill;
	enum sc_variant variant;
	char *model, *test_id;
	int64_t runs, passes;      /* judged (pass or fail) stored units */
	double flip_rate;          /* 2 k (n - k) / (n (n - 1)); NAN below 2 runs */
};

/*
 * `skillci eval`'s sequential decision of one skill x model
 * (docs/results-json.md, "lift"): the skill against no skill, paired per
 * test, in pass-rate fractions (0.05 = 5 points).
 */
struct sc_results_lift {
	char *skill, *model;
	enum sc_lift_decision decision;
	enum sc_lift_stop stop;    /* why it stopped */
	double margin;             /* the lift that counts as none */
	double drop;               /* D: the lift the design rules out or shows */
	double lift, lo, hi;       /* with skill minus without, and its interval */
	double detectable;         /* the smallest lift the data could show (80% power) */
	int64_t tests;             /* tests judged on both sides */
	int64_t baseline_runs, skill_runs;  /* judged units used, per side */
	int64_t runs_per_test, rounds;      /* at the look that decided */
	int64_t first_runs, max_runs, max_rounds;  /* the design */
};

/* The flip rate of k passes in n runs: the chance two of the runs differ. */
double sc_results_flip_rate(int64_t passes, int64_t runs);

struct sc_results {
	char *schema;
	char *skillci_version;
	char *harness_version;
	struct sc_results_run run;
	struct sc_results_skill *skills;
	size_t nskills;
	struct sc_results_unit *units;
	size_t nunits;
	struct sc_results_aggregate *aggregates;
	size_t naggregates;
	struct sc_results_comparison *comparisons;
	size_t ncomparisons;
	struct sc_results_gate gate;
	struct sc_results_totals totals;
	struct sc_results_flips *flips;  /* "history", sorted by skill, variant, model, test */
	size_t nflips;
	struct sc_results_lift *lifts;   /* "lift": eval's sequential decisions, or none */
	size_t nlifts;
	/* True while skills, units, aggregates and comparisons are in the
	 * documented order (set by load and sc_results_sort); lookups then
	 * use binary search. Code that edits the arrays clears it or sorts. */
	bool sorted;
	/* Set by sc_results_sort (results_index.c): the gate's failures and
	 * the usage rows by skill, as indices; used while the counts hold. */
	struct sc_results_order { size_t *at, n; const void *of; } failure_order, usage_order;
	/* The strings of pooled units (NULL: none yet). Units moved from one
	 * results into another take their pool along: sc_results_adopt_pool. */
	struct sc_strpool *pool;
	/* Set by load and parse: what a file says is someone else's until
	 * sc_results_verify_text() vouches for it (the caller then clears
	 * it). A model with it set is written without a signature, so
	 * nothing unverified leaves this runner signed. */
	bool untrusted;
};

/* Sets every field to its empty/null value (no allocation). */
void sc_results_init(struct sc_results *r);
/* Sorts r->flips by skill, variant, model, test id. */
void sc_results_sort_flips(struct sc_results *r);
void sc_results_release(struct sc_results *r);
/* Same for the element types, for code that builds results by hand. */
void sc_results_unit_init(struct sc_results_unit *u);
void sc_results_aggregate_init(struct sc_results_aggregate *a);
void sc_results_comparison_init(struct sc_results_comparison *c);
void sc_results_kernel_init(struct sc_results_kernel *k);
/* The excerpt a failed unit keeps of an answer (unit.excerpt): a malloc'd
 * copy of its first SC_RESULTS_EXCERPT_MAX bytes, leading white space
 * skipped, cut at a UTF-8 boundary with "…" appended when cut; NULL for
 * NULL or an answer of white space only. */
char *sc_results_excerpt(const char *answer);
/* Frees what one unit holds (not the unit itself) and sets it empty. */
void sc_results_unit_release(struct sc_results_unit *u);
/*
 * Moves the strings of u (owned, not pooled yet) into r's string pool:
 * equal strings of many units are stored once, which keeps the model of
 * a run of tens of thousands of units small. u's fields then point into
 * the pool (do not free or replace them one by one; sc_results_unit_release
 * knows). u need not be in r yet.
 */
void sc_results_pool_unit(struct sc_results *r, struct sc_results_unit *u);
/* For units moved from from into into: into takes from's string pool. */
void sc_results_adopt_pool(struct sc_results *into, struct sc_results *from);

/*
 * Reads a results file into out (initialised here). Errors name the file
 * and the JSON path ("results 'r.json': $.units[3].verdict: expected a
 * string") and refuse another major version of the schema (SC_EINVAL).
 * Unknown fields are ignored; fields that are absent read as null. On
 * failure out is left released.
 */
int sc_results_load(struct sc_results *out, const char *path);
/*
 * sc_results_load, and the file's signature checked on the bytes read
 * (sc_results_verify_text): *sig is its result, 0 or SC_EUNSAFE with the
 * error set (the caller clears it). The file is read once. *sig is
 * SC_EUNSAFE when the load fails.
 */
int sc_results_load_signed(struct sc_results *out, const char *path, int *sig);
/* The same from memory; name is used in messages. */
int sc_results_parse(struct sc_results *out, const char *json, size_t len, const char *name);

/*
 * Serialises r as JSON into out (appended): every documented field, nulls
 * written out, arrays sorted in the documented order, numbers formatted
 * the same way on every run (integers plainly; other numbers with the
 * fewest digits that read back to the same double). r is not modified.
 */
void sc_results_format(struct sc_buf *out, const struct sc_results *r);
/* sc_results_format() written atomically to path. */
int sc_results_save(const struct sc_results *r, const char *path);

/*
 * Every results document written (sc_results_format, sc_results_save)
 * of a model that is not untrusted ends with the member
 *
 *   ,\n "signature": {\n  "key": "FPR",\n  "mac": "HEX"\n }\n}\n
 *
 * an HMAC under this runner's key (results/signing.h) of the exact bytes
 * of the document without it (the text before that member, then
 * "\n}\n"). sc_results_verify_text() checks the text of a file or a
 * stored shard: 0 when the signature holds under this runner's key or a
 * trusted one, else SC_EUNSAFE with a message about what (a label) that
 * says why and what to set.
 */
int sc_results_verify_text(const char *text, size_t len, const char *what);
/* The same for a file: reads it (capped) and checks it. */
int sc_results_verify_file(const char *path);

/* Puts every array in the documented order (stable) and sets r->sorted. */
void sc_results_sort(struct sc_results *r);

/*
 * The check a gate rule belongs to (docs/results-json.md, "gate"):
 * pass_rate_drop "pass_rate", tokens_rise "tokens", error_share "errors",
 * skill_invalid "validity", interrupted "run", verdict_unverified
 * "verdict_unverified", ... False for a rule of no known check.
 */
bool sc_results_rule_check(const char *rule, enum sc_check_kind *out);

/* Frees the strings of a finding, a check or a gate failure. */
void sc_results_finding_release(struct sc_results_finding *f);
void sc_results_check_release(struct sc_results_check *c);
void sc_results_failure_release(struct sc_results_gate_failure *f);

/*
 * Whether unit u of r decides anything: its skill's base and head, the
 * baseline of an added skill (its lift), every unit of an eval (the skill
 * against no skill). The baseline of a modified skill and the tests the
 * head adds (head_tests) are shown, never judged: their errors are
 * reported, not counted against the run (the gate's error share).
 */
bool sc_results_unit_decides(const struct sc_results *r, const struct sc_results_unit *u);

/* True when the skill's head changes its tests (added, changed or removed)
 * beside the base's, which decide; false for the first tests (first_tests),
 * which are the verdict's own. */
bool sc_results_tests_edited(const struct sc_results_skill *s);

/* Any variant, for sc_results_units_range. */
#define SC_VARIANT_ANY (-1)

/* Lookups (NULL when absent); pointers are borrowed from r. */
const struct sc_results_skill *sc_results_find_skill(const struct sc_results *r, const char *path);
const struct sc_results_aggregate *sc_results_find_aggregate(const struct sc_results *r,
		const char *skill, enum sc_variant variant, const char *model);
const struct sc_results_comparison *sc_results_find_comparison(const struct sc_results *r,
		const char *skill, const char *model, enum sc_variant from, enum sc_variant to);
/* The gate's check of skill, model ("" for the whole skill) and kind. */
const struct sc_results_check *sc_results_find_check(const struct sc_results *r, const char *skill,
		const char *model, enum sc_check_kind check);
/*
 * Ranges of a sorted r (r->sorted must be set): the units of skill (and
 * model, when not NULL, and variant, when not SC_VARIANT_ANY), and the
 * aggregates of skill. Return the count and set *first to the index of
 * the first.
 */
size_t sc_results_units_range(const struct sc_results *r, const char *skill, const char *model,
			      int variant, size_t *first);
size_t sc_results_aggregates_range(const struct sc_results *r, const char *skill, size_t *first);
/*
 * The units worth looking at for skill (and model, when not NULL): their
 * range when r is sorted, else every unit (so a caller still tests each
 * unit's skill and model). Lets a loop over one skill's units cost what
 * the skill has, not what the run has. Returns the count, sets *first.
 */
size_t sc_results_units_of(const struct sc_results *r, const char *skill, const char *model,
			   size_t *first);
/*
 * The same for the gate's checks of skill (and model, "" for the whole
 * skill's, when not NULL). The gate appends checks out of order and sorts
 * at its end: look up checks only after sc_gate_apply returned.
 */
size_t sc_results_checks_range(const struct sc_results *r, const char *skill, const char *model,
			       size_t *first);
/* The history rows of skill, variant and model (r->flips, always sorted). */
size_t sc_results_flips_range(const struct sc_results *r, const char *skill,
			      enum sc_variant variant, const char *model, size_t *first);
/*
 * The gate's failures and the run's usage rows of skill: positions k in
 * [*first, *first + count) whose rows are sc_results_failure_at(r, k) and
 * sc_results_usage_at(r, k), in the order of the arrays. Indexed when r
 * was sorted and the arrays did not grow since; else every row (so a
 * caller still tests each row's skill).
 */
size_t sc_results_failures_of(const struct sc_results *r, const char *skill, size_t *first);
const struct sc_results_gate_failure *sc_results_failure_at(const struct sc_results *r, size_t k);
size_t sc_results_usage_of(const struct sc_results *r, const char *skill, size_t *first);
const struct sc_results_usage *sc_results_usage_at(const struct sc_results *r, size_t k);
/* Builds and frees the indices above (sc_results_sort, sc_results_release). */
void sc_results_order_build(struct sc_results *r);
void sc_results_order_free(struct sc_results *r);

#endif
