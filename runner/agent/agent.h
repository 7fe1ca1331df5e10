#ifndef SC_AGENT_H
#define SC_AGENT_H
/*
 * Agent runs (docs/evaluation.md, "Agent runs"): a unit evaluated the way
 * agents use skills. The system prompt lists the available skills (name,
 * description, where the SKILL.md is), as Claude Code and fast-agent do;
 * the skills sit read-only in a fresh jail (jail.h) with the test's files
 * staged in its workspace; the student works through four tools until it
 * answers without calling one or reaches max_turns:
 *
 *   read_file {path}               a file of the workspace (or a skill's)
 *   list_files {path}              a folder's entries
 *   write_file {path, content}     a file of the workspace
 *   run {command}                  a shell command in the workspace
 *
 * Then the test's verifiers check the answer and the workspace, in the
 * same jail. A trigger test (should_trigger / should_not_trigger) asks
 * only whether the student opened this skill's SKILL.md.
 *
 * One struct sc_agent_run is one unit's session. It is driven by the
 * evaluation (eval.c): the calls marked "blocking" run on its work pool
 * (a jail starting, tools, verifiers), the others on the request loop's
 * thread; never two at once.
 *
 * Ownership: sc_agent_run owns its jail, messages and transcript; what
 * is passed in is copied, except the test, borrowed for the run's life.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/jail.h"
#include "buf.h"
#include "providers/provider.h"
#include "results/results.h"  /* enum sc_unit_verdict */

struct sc_test;

/* How a test is run, by the trusted config's agent.mode (docs/config.md). */
enum sc_agent_mode {
	SC_AGENT_AUTO,    /* tests whose checks need a workspace, and trigger tests (default) */
	SC_AGENT_ALWAYS,  /* every text test (kernel tests stay chat) */
	SC_AGENT_NEVER,   /* none: workspace verifiers are unverified, trigger tests skipped */
};

/* Settings of agent runs (the trusted config's "agent" block). */
struct sc_agent_options {
	enum sc_agent_mode mode;
	struct sc_jail_limits jail;
	size_t tool_output_max;     /* bytes of one tool result the model sees */
	int max_calls_per_turn;     /* tool calls executed of one answer (the rest refused) */
	int trigger_turns;          /* turns of a trigger test (reading SKILL.md decides) */
	int jobs;                   /* threads running jails, tools and verifiers */
};

#define SC_AGENT_TOOL_OUTPUT_MAX   (16 * 1024)
#define SC_AGENT_MAX_CALLS         8
#define SC_AGENT_TRIGGER_TURNS     3
#define SC_AGENT_MAX_WRITE         (1024 * 1024)   /* content of one write_file */
#define SC_AGENT_MAX_FILE_STAGE    (16 * 1024 * 1024) /* a test file staged */
/* The versions in every agent unit's harness key: a change to the tools,
 * the prompt or the jail re-evaluates the stored units. */
#define SC_AGENT_VERSION           "skillci-agent/1"

void sc_agent_options_init(struct sc_agent_options *opt);
/* Parses "auto", "always", "never"; SC_EINVAL otherwise. */
int sc_agent_mode_parse(enum sc_agent_mode *out, const char *s);
const char *sc_agent_mode_name(enum sc_agent_mode m);

/* Whether test t runs as an agent under mode (kernel tests never do). */
bool sc_agent_runs_test(const struct sc_test *t, enum sc_agent_mode mode);

/* The four tools, as a request offers them. */
extern const struct sc_tool_def sc_agent_tools[];
extern const size_t sc_agent_ntools;

/* A skill listed in the system prompt and mounted in the jail. */
struct sc_agent_skill {
	const char *name;
	const char *description;
	const char *stage_dir;      /* its files, readable by the jail (sc_agent_stage_skill) */
};

/*
 * The system prompt of an agent unit: the workspace, the tools, and the
 * skills listed (<available_skills>, each with its name, description and
 * location /workspace/.skills/NAME/SKILL.md); none for the baseline.
 * Appends to out. Its template is part of the harness key (hash below).
 */
void sc_agent_system_prompt(struct sc_buf *out, const struct sc_agent_skill *skills, size_t n);
/* SHA-256 hex of the prompt template and the tool definitions. */
void sc_agent_prompt_hash(char out[65]);

/*
 * Copies the files of a skill (relative paths files[0..n) under dir, no
 * symlink followed out of it) into stage/NAME, readable by the jail
 * (folders 0755, files 0644). Blocking.
 */
int sc_agent_stage_skill(const char *stage, const char *name, const char *dir,
			 char *const *files, size_t n);

/* What to do after an answer (sc_agent_on_answer). */
enum sc_agent_next {
	SC_AGENT_NEXT_TOOLS,       /* run the calls (sc_agent_run_tools), then ask again */
	SC_AGENT_NEXT_VERIFY,      /* the student answered: check it (sc_agent_verify) */
	SC_AGENT_NEXT_DECIDED,     /* a trigger test is decided: no more turns */
};

/* The outcome of a unit, for its results entry. Strings owned. */
struct sc_agent_outcome {
	enum sc_unit_verdict verdict;  /* pass, fail, error or unverified */
	const char *error_class;   /* static or NULL */
	char *message;
	bool triggered;            /* trigger tests: the skill's SKILL.md was opened */
};
void sc_agent_outcome_release(struct sc_agent_outcome *o);

struct sc_agent_run;

/*
 * A new session for test t (borrowed). skill_name: the evaluated skill
 * (NULL for the baseline: nothing is listed or mounted); listed[0..n):
 * the skills shown in the prompt and mounted (this one among them);
 * user: the first user message; validators_dir: where the test's
 * validators live (the folder its tests came from), or NULL.
 */
int sc_agent_run_new(struct sc_agent_run **out, const struct sc_agent_options *opt,
		     const struct sc_test *t, const char *skill_name,
		     const struct sc_agent_skill *listed, size_t n, const char *system,
		     const char *user, const char *validators_dir, int max_turns);
/* Ends its jail (if still up) and frees it. NULL is a no-op. Blocking. */
void sc_agent_run_free(struct sc_agent_run *ar);

/*
 * Starts the jail and stages the test's files into the workspace
 * (blocking). SC_ENOSYS "jail unavailable: ..." when no jail can run:
 * the unit is an error, nothing runs outside a jail.
 */
int sc_agent_run_start(struct sc_agent_run *ar);
/* Milliseconds from sc_agent_run_new to the first request's submit (set
 * by sc_agent_run_request the first time; 0 before), and of them the
 * jail's start. */
int64_t sc_agent_run_ready_ms(const struct sc_agent_run *ar);
int64_t sc_agent_run_jail_ms(const struct sc_agent_run *ar);

/*
 * Fills req for the next turn (model, temperature and the like are the
 * caller's): system, messages, tool parts and tools, pointing into ar
 * (valid until the next call on ar).
 */
void sc_agent_run_request(struct sc_agent_run *ar, struct sc_chat_request *req);

/*
 * Records an answer (its text, calls and tokens in the transcript) and
 * says what comes next. A trigger test is decided by the first call that
 * opens the skill's SKILL.md (read_file, or a command that reads it), or
 * by an answer without one. At max_turns with calls pending, the calls
 * are not run and the answer is checked as it stands.
 */
enum sc_agent_next sc_agent_on_answer(struct sc_agent_run *ar, const struct sc_chat_response *resp);

/*
 * Runs the pending calls in the jail (blocking): each result (capped,
 * an error marked) goes into the messages and the transcript. Returns 0,
 * or the jail's error (SC_EIO: the unit is an error).
 */
int sc_agent_run_tools(struct sc_agent_run *ar);

/*
 * Checks the unit (blocking): a trigger test by whether SKILL.md was
 * opened; else the test's verifiers in file order, the answer's
 * contains and the workspace's file_exists, file_contains, command and
 * validator, in the jail; the first that fails decides. Then the jail
 * ends. Fills out; returns 0 (an infrastructure failure is an outcome
 * "error").
 */
int sc_agent_verify(struct sc_agent_run *ar, struct sc_agent_outcome *out);

/* The last answer's text ("" when none). */
const char *sc_agent_run_answer(const struct sc_agent_run *ar);
/* The transcript: a JSON array of {role, content, tool_calls | tool,
 * usage ...}; the caller takes it (free it). */
char *sc_agent_run_transcript(struct sc_agent_run *ar);
/* Turns asked so far. */
int sc_agent_run_turns(const struct sc_agent_run *ar);
/* The run's trace (sc_agent_trace of its transcript), for a failed unit's excerpt. */
void sc_agent_run_excerpt(struct sc_buf *out, const struct sc_agent_run *ar, size_t max);

/*
 * A short account of an agent transcript (the JSON text a unit stores):
 * per turn its tokens, each tool call with its arguments and the start of
 * its result, then the last answer; at most max bytes, cut at a character
 * boundary. Appends nothing for a transcript without tool calls or one
 * that does not parse. Reports show it for failed agent units.
 */
void sc_agent_trace(struct sc_buf *out, const char *transcript, size_t max);

#endif
