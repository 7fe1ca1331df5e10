#ifndef SC_VERDICT_H
#define SC_VERDICT_H
/*
 * What a results model means, decided once (docs/reports.md, "One
 * verdict"): the run, each skill and each skill x model row, each with its
 * state (pass, fail, unverified, error: "could not check"), the checks
 * behind it, its counts and the sentence that says it; for a run that
 * could not check, its cause. The terminal, Markdown, HTML, JUnit and
 * GitHub reporters and `skillci eval` render this model and decide
 * nothing themselves, so they cannot disagree (tests/unit/test_verdict.c
 * renders random results through every one of them and holds them to it).
 *
 * A PR check (run.kind "run") means what its gate recorded: the run's
 * verdict and exit code are r->gate's (pipeline/gate.c sets them with
 * sc_verdict_of_checks), a row's state is the worst of its checks (fail,
 * then could not check, then unverified). An eval means what its lift
 * decisions say, per skill x model: pass when a lift is shown (a fixed
 * design: upskill's "beneficial"), fail when none is ("no lift"),
 * unverified when neither is decided, could not check when its units
 * failed for infrastructure reasons over the share; an eval's exit code is
 * 3 for could not check and 0 otherwise (it judges no pull request).
 *
 * Ownership: the model borrows every string and struct from r, which must
 * outlive it and stay unchanged; sc_verdict_release() frees what it
 * allocated.
 */
#include <stdbool.h>
#include <stddef.h>

#include "results/results.h"

/* One row: a skill and a model, or a skill with no model results. */
struct sc_verdict_row {
	const struct sc_results_skill *skill;
	const char *model;                   /* NULL: no model results (deleted, untested, ...) */
	bool first;                          /* the skill's first row */
	enum sc_verdict state;
	/* The row's checks that are not a pass (failed, error, unverified,
	 * accepted or not), in report order: the row's reasons. */
	const struct sc_results_check **open;
	size_t nopen;
	/* Failures of the row with no check behind them (files written before
	 * every failure had a check): reasons too. */
	const struct sc_results_gate_failure **loose;
	size_t nloose;
	/* eval: what decided the row (the sequential lift, else the paired
	 * comparison of no skill with the skill), and the words for it:
	 * "keep skill: a lift is shown ...", "no lift ...". NULL for a run. */
	const struct sc_results_lift *lift;
	const struct sc_results_comparison *compare;
	char *why;
};

/* One changed skill (every skill of an eval). */
struct sc_verdict_skill {
	const struct sc_results_skill *skill;
	enum sc_verdict state;               /* the worst of its rows */
	bool unverified;                     /* a check unverified (accepted or not), or no tests */
	size_t first_row, nrows;
};

/* An annotation a reporter writes (GitHub ::error / ::warning), in order. */
struct sc_verdict_note {
	const struct sc_results_skill *skill;  /* NULL: the run as a whole */
	const char *skill_path;              /* "" for the run */
	const char *model;                   /* NULL or "": the whole skill */
	enum sc_check_status status;         /* failed (an ::error), unverified, error */
	bool accepted;                       /* unverified and accepted by the trusted config */
	const char *rule;                    /* NULL: none */
	const char *file;                    /* NULL: the skill's SKILL.md */
	int64_t line;
	const char *message;                 /* borrowed, or the model's own (cause, reasons) */
};

struct sc_verdicts {
	enum sc_run_kind kind;
	enum sc_verdict state;               /* the run's */
	int exit_code;                       /* run: the gate's; eval: 3 could not check, else 0 */
	bool blocking;                       /* exit_code != 0: the JUnit fails, passed=false */
	bool shard;                          /* one shard of a sharded run: merge decides */
	/* could not check: why, said once and first on every surface: the
	 * first infrastructure error of the units ("N of M units failed for
	 * infrastructure reasons; the first: SKILL on MODEL, test 'T':
	 * MESSAGE"), else the first failure of status error; NULL otherwise */
	char *cause;
	const struct sc_results_unit *cause_unit;  /* the first erred unit it names, or NULL */
	/* counts of the changed skills (every skill of an eval) */
	size_t changed, evaluated, untested, deleted, moved, added, first_tests;
	size_t judged;                       /* judged on the base's tests */
	size_t deleted_allowed, deleted_refused;
	size_t failed, unverified, errored;  /* skills by state */
	size_t flagged_unverified;           /* skills with an unverified check or no tests (the
					      * checked line's "unverified") */
	size_t failed_checks, unverified_checks, error_checks;  /* checks by status */
	/* eval rows by state: a lift shown, no lift, undecided, could not check */
	size_t rows_pass, rows_fail, rows_unverified, rows_error;
	bool no_kernel_run;                  /* a kernel check skipped on a compile-only runner */
	struct sc_verdict_skill *skills;     /* by path */
	size_t nskills;
	struct sc_verdict_row *rows;         /* by skill path, then model */
	size_t nrows;
	/* failures of the run as a whole (no listed skill holds them) */
	const struct sc_results_gate_failure **run_failures;
	size_t nrun_failures;
	/* every annotation, in the order written (at most
	 * SC_REPORT_MAX_ANNOTATIONS are written: nnotes_written) */
	struct sc_verdict_note *notes;
	size_t nnotes, nnotes_written;
	char **reasons;                      /* the notes' own messages */
	size_t nreasons;
	/* the sentences every surface says */
	char *headline;                      /* "gate failed: 1 of 2 changed skills failed (skills/x)" */
	char *checked;                       /* "3 changed skills: judged on the base's tests 1, ..." */
};

/* Builds the model of r (sorted or not). */
void sc_verdict_build(struct sc_verdicts *out, const struct sc_results *r);
void sc_verdict_release(struct sc_verdicts *v);

/*
 * The verdict a PR check's gate records from its checks and failures: fail
 * when one failed, else error (could not check) when one could not be
 * made, else unverified, else pass. pipeline/gate.c stores it in
 * r->gate.verdict; every surface reads it from there.
 */
enum sc_verdict sc_verdict_of_checks(const struct sc_results *r);

/* A row's state from one check's status: passed and skipped are a pass. */
enum sc_verdict sc_verdict_of_status(enum sc_check_status status);

/*
 * The word a surface says a state with: "pass", "fail", "unverified",
 * "could not check"; for eval rows "lift", "no lift", "unverified",
 * "could not check".
 */
const char *sc_verdict_word(enum sc_verdict v, enum sc_run_kind kind);

/* The rows of skill path (a pointer into v->rows and a count); 0 when none. */
size_t sc_verdict_rows_of(const struct sc_verdicts *v, const char *path,
			  const struct sc_verdict_row **first);

#endif
