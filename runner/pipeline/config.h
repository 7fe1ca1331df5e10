#ifndef SC_CONFIG_H
#define SC_CONFIG_H
/*
 * Configuration (docs/config.md): skillci.yml at the repository root (or
 * the file named by --config), plus the keys of upskill's
 * upskill.config.yaml that mean the same thing and the provider blocks of
 * fast-agent's fastagent.config.yaml (generic: {base_url, api_key}, ...).
 * Precedence, highest first: command-line flags (applied by each command
 * after loading), --config or skillci.yml, upskill.config.yaml, built-in
 * defaults; a provider's environment variables win over
 * fastagent.config.yaml.
 *
 * Named provider endpoints (skillci.yml "providers") and the fast-agent
 * provider settings reach the model layer only through
 * sc_config_apply_providers(), which a command calls with the trusted
 * configuration it loaded (in a PR check: the base revision's).
 *
 * Unknown keys are warnings, wrong types errors, both with file:line, in a
 * struct sc_diags. Values are checked here (ranges, names, safe paths) so a
 * command can use them as they are.
 *
 * Ownership: struct sc_config owns every string and array in it;
 * sc_config_release() frees them. const char * parameters are borrowed.
 */
#include <stdbool.h>
#include <stddef.h>

#include "agent/agent.h"
#include "pipeline/budget.h"
#include "providers/cache_mode.h"  /* the file sets use, refresh or off */
#include "strlist.h"

struct sc_diags;

/* Requests in flight for one provider ("anthropic", "openai", "generic", "oracle"). */
struct sc_config_limit {
	char *provider;
	int limit;
};

/* A named endpoint: providers: {NAME: {wire, base_url, api_key_env}}. */
struct sc_config_endpoint {
	char *name;
	char *wire;          /* "openai" or "anthropic" */
	char *base_url;
	char *api_key_env;   /* NULL: requests carry no key */
	size_t line;
};

/* A provider block of fastagent.config.yaml (generic:, openai:, hf:, ...). */
struct sc_config_provider_file {
	char *provider;      /* built-in provider name */
	char *base_url;      /* NULL when not set */
	char *api_key;       /* NULL when not set; a ${VAR} reference is resolved
				(kept as written by sc_config_load_data()) */
	struct sc_strlist settings;  /* KEY, VALUE pairs for sc_providers_set_file_setting() */
	size_t line;
};

/* One entry of the "skills" manifest: extra tests and fixtures for a skill. */
struct sc_config_skill {
	char *skill;                 /* folder, relative to the repository root */
	struct sc_strlist tests;     /* test files, relative to the repository root */
	struct sc_strlist fixtures;  /* fixture names */
	size_t line;                 /* where the entry starts in the config file */
};

/* Gate thresholds (DESIGN.md, Evaluation). */
struct sc_config_gate {
	/* the pass-rate decision (docs/evaluation.md): "no drop of
	 * regression_points or more" against "a drop beyond
	 * pass_rate_drop_points", at alpha and beta */
	double pass_rate_drop_points;  /* m: a drop up to this counts as none (points) */
	double regression_points;      /* D: a drop this size is caught with chance 1 - beta */
	double alpha;                  /* the chance a PR dropping m fails, over all its checks */
	double beta;                   /* the chance a drop of D passes a check */
	bool accept_unverified;        /* an unverified check does not fail the run */
	double tokens_rise_pct;        /* fail when mean tokens rise more than this, pass rate flat or worse */
	double speedup_drop_ratio;     /* fail when the speedup geomean falls by more than this ratio */
	double judge_drop;             /* fail when the judge score falls by more than this */
	double error_share;            /* exit 3 when infrastructure errors exceed this share */
	bool require_lift;             /* a new skill must beat no skill */
	bool fail_on_existing;         /* errors already at base fail too (default: only new ones) */
	/* docs/run.md, "Invariants of a green check" */
	bool allow_deletions;          /* a deleted skill passes its skill_deleted check */
	char deletion_label[64];       /* a PR label that allows deletions ("" none) */
	bool deletion_labelled;        /* set by the run: the event carries deletion_label */
	double max_baseline_pass_rate; /* an added skill whose baseline passes more fails */
	bool compile_only;             /* this runner runs no kernel: not unverified, reported */
	bool allow_untested;           /* a changed skill without tests skips skill_untested */
	/* sequential sampling (docs/evaluation.md, "Sequential sampling"):
	 * max_runs > 0 (default SC_CONFIG_MAX_RUNS) samples each skill x
	 * model in rounds of first_runs runs per test until the pass-rate
	 * check is decided, or max_runs (then unverified); 0: a fixed
	 * design of `runs` runs */
	int first_runs;                /* runs per test per round (default SC_CONFIG_FIRST_RUNS) */
	int max_runs;                  /* the cap of runs per test and side; 0: fixed */
	size_t planned_checks;         /* set by the run: the PR's pass-rate checks (Bonferroni) */
};

/* The defaults of the pass-rate decision (docs/run.md, "The gate"). */
#define SC_CONFIG_FIRST_RUNS 1
#define SC_CONFIG_MAX_RUNS 50
#define SC_CONFIG_MARGIN_POINTS 0
#define SC_CONFIG_REGRESSION_POINTS 15
#define SC_CONFIG_BETA 0.2

struct sc_config {
	char *path;              /* skillci.yml read, or NULL */
	char *upskill_path;      /* upskill.config.yaml read, or NULL */
	char *fastagent_path;    /* fastagent.config.yaml read, or NULL */

	struct sc_strlist models;  /* student models, in order; empty: the command decides */
	char *fast_agent_version;  /* whose model names are read (provider.h); NULL: the default */
	int runs;                /* runs per test (>= 1) */
	int max_turns;           /* turns per test, feedback turns included (>= 1) */
	char *fixtures_dir;      /* kernel fixtures folder */
	char *arch;              /* GPU arch for NVRTC, "sm_90" */
	char *skills_dir;        /* where skills live ("skills") */

	int concurrency;         /* requests in flight, all providers */
	struct sc_config_limit *provider_limits;
	size_t nprovider_limits, provider_limits_alloc;

	double request_timeout_s;  /* one model request */
	double kernel_timeout_s;   /* one candidate in the kernel worker */

	char *cache_dir;
	enum sc_cache_mode cache_mode;
	char *store_path;        /* results database */

	char *judge_model;       /* NULL: no judge */
	char *judge_rubric;      /* NULL: the built-in rubric */
	char *grader_model;      /* grades expectations; NULL: such tests are unverified */

	struct sc_config_gate gate;

	struct sc_agent_options agent;  /* "agent": agent runs and their jail (agent.h) */

	struct sc_config_endpoint *endpoints;  /* "providers" */
	size_t nendpoints, endpoints_alloc;
	struct sc_config_provider_file *provider_files;  /* fastagent.config.yaml */
	size_t nprovider_files, provider_files_alloc;

	struct sc_config_skill *skills;  /* manifest entries */
	size_t nskills, skills_alloc;

	int max_units;           /* budget: units one `run` may plan (this shard's) */
	int max_requests;        /* budget: model requests one `run` may need at most */
	struct sc_budget_config budget;  /* budget: tokens, dollars, prompt cap; prices: */

	char *report_junit;      /* report paths */
	char *report_markdown;
	char *report_html;
	char *report_json;

	/* upskill keys kept for `generate` */
	char *generate_model;     /* upskill "model" / "skill_generation_model" */
	char *test_gen_model;     /* upskill "test_gen_model" */
	int max_refine_attempts;  /* upskill "max_refine_attempts" */
	char *runs_dir;           /* upskill "runs_dir" */
	char *fastagent_config;   /* upskill "fastagent_config", relative to the root */
};

/* Built-in defaults. */
#define SC_CONFIG_FILE          "skillci.yml"
#define SC_UPSKILL_CONFIG_FILE  "upskill.config.yaml"
#define SC_FASTAGENT_CONFIG_FILE "fastagent.config.yaml"
#define SC_DEFAULT_GENERATE_MODEL "sonnet"  /* upskill's default */
#define SC_DEFAULT_ARCH         "sm_90"
#define SC_DEFAULT_FIXTURES_DIR "fixtures"
#define SC_DEFAULT_SKILLS_DIR   "skills"
#define SC_DEFAULT_CACHE_DIR    ".skillci/cache"
#define SC_DEFAULT_STORE_PATH   ".skillci/results.db"
#define SC_DEFAULT_REPORT_DIR   ".skillci/report"
#define SC_DEFAULT_RUNS_DIR     "runs"
#define SC_DEFAULT_MAX_UNITS    50000
#define SC_DEFAULT_MAX_REQUESTS 100000

/* Fills out with the built-in defaults only (no files read). */
void sc_config_defaults(struct sc_config *out);

/*
 * Loads the configuration for the repository at repo_root: defaults, then
 * repo_root/upskill.config.yaml if it exists, then fastagent.config.yaml
 * (upskill's fastagent_config, else repo_root/fastagent.config.yaml) if it
 * exists, then explicit_path (when not NULL; it must exist) or
 * repo_root/skillci.yml if it exists. Findings go to
 * diags. Returns 0 (even with findings: check diags for errors),
 * SC_ENOTFOUND when explicit_path does not exist, or SC_EIO / SC_ELIMIT
 * when a file cannot be read. out is filled by the call; release it even
 * on error.
 */
int sc_config_load(struct sc_config *out, const char *repo_root, const char *explicit_path,
		   struct sc_diags *diags);

/*
 * The same for a pull request's copy of the files, read as data only: no
 * value is expanded (fast-agent's ${VAR} and ${VAR:default} stay as
 * written, never looked up in the environment), nothing is included or
 * executed, and a URL is not checked (it is never used). Such a config
 * only lists what the pull request tried to change (trust.c); never pass
 * it to sc_config_apply_providers().
 */
int sc_config_load_data(struct sc_config *out, const char *repo_root, const char *explicit_path,
			struct sc_diags *diags);

/* The manifest entry for the skill folder rel_dir (relative to the root), or NULL. */
const struct sc_config_skill *sc_config_find_skill(const struct sc_config *cfg, const char *rel_dir);

/*
 * Registers the configuration's named endpoints and fastagent.config.yaml
 * provider settings with the model layer (provider.h), so model names
 * such as lab.qwen3-coder resolve. Call it once, with the trusted
 * configuration only. SC_EINVAL with a message naming the file and line.
 */
int sc_config_apply_providers(const struct sc_config *cfg);

/*
 * The policy a PR check takes from its configuration (every key a pull
 * request must not set: docs/security.md), as parallel lists of dotted
 * keys and their values shown as text, in a fixed order; two configs
 * differ in policy where the lists differ. Appends to keys and values.
 */
void sc_config_policy(const struct sc_config *cfg, struct sc_strlist *keys, struct sc_strlist *values);

/* Per-provider limit, or the overall concurrency when none is set. */
int sc_config_provider_limit(const struct sc_config *cfg, const char *provider);

const char *sc_cache_mode_name(enum sc_cache_mode mode);

void sc_config_release(struct sc_config *cfg);

/*
 * The error of a configuration with findings of severity error: SC_EINVAL,
 * cause SC_CAUSE_CONFIG, the message quoting the first finding ("the
 * configuration has errors: skillci.yml:3: gate.alpha: ... (and 1 more)"),
 * so that wherever the message goes (a PR comment, an annotation) the
 * finding goes with it.
 */
int sc_config_errors_fail(const struct sc_diags *diags);

#endif
