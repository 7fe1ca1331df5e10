#ifndef SC_ROUNDS_H
#define SC_ROUNDS_H
/*
 * Sequential sampling as a stage (docs/evaluation.md, "Sequential
 * sampling"), shared by `skillci run` and `skillci eval`: the units the
 * design may run, evaluated round after round, where only the checks
 * still open get the next round.
 *
 * A check is one skill x model and the two variants it compares (run:
 * base against head; eval: the skill against no skill). Every unit of
 * the plan belongs to one check or to none (run's baseline and the head's
 * own tests: they run in the first round only). The first round is every
 * unit with a run index below the first look's runs, less those the
 * caller defers (a test the store knows as stable at base runs once at
 * head); after round k each check is decided on the units so far
 * (sc_seq_replay_of, as the gate replays it), and the next round is the
 * units of the checks that are open at look k, with no unit of a later
 * run yet, and a run index below look k + 1's runs, not sent yet (so a
 * deferred unit comes back with the second round). Stops when no unit is
 * left to send, at the last look, on an error, or when the evaluation
 * was stopped.
 *
 * The caller owns everything; the stage borrows it for the call.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "eval/eval.h"

struct sc_results;
struct sc_seq_design;

#define SC_ROUNDS_NONE SIZE_MAX   /* check_of: a unit of no check */

struct sc_rounds_check {
	const char *skill;        /* the units' skill path */
	const char *model;        /* the units' (canonical) model name */
	enum sc_variant base, head;  /* the variants compared (sc_seq_replay_of) */
};

struct sc_rounds {
	const struct sc_seq_design *design;
	const struct sc_rounds_check *checks;
	size_t nchecks;
	const struct sc_eval_unit_ref *refs;   /* every unit the design may run */
	size_t nrefs;
	const size_t *check_of;   /* per ref: its check, or SC_ROUNDS_NONE */
	/* the first round leaves out a ref for which it returns true (NULL: none) */
	bool (*defer)(const struct sc_eval_unit_ref *ref, void *payload);
	void *payload;
	/* the evaluation (sc_eval_run_units) */
	const struct sc_eval_skill *skills;
	size_t nskills;
	const struct sc_eval_options *eopt;
};

/* What the rounds did. */
struct sc_rounds_stats {
	struct sc_eval_stats eval;  /* summed over the rounds (stopped: any round) */
	size_t sent;                /* units handed to the evaluation */
	int rounds;                 /* rounds evaluated */
};

/*
 * The first round: fills round (room for rd->nrefs) with the refs of run
 * index below look 1's runs that defer leaves in, marks them in sent
 * (rd->nrefs flags), and returns their number.
 */
size_t sc_rounds_first(const struct sc_rounds *rd, bool *sent, struct sc_eval_unit_ref *round);

/*
 * The round after look k (1-based) on the units of res: the unsent refs
 * of every check open at look k with no later unit, run index below look
 * k + 1's runs, in the order of the checks, then of the refs; marked in
 * sent. 0 at the last look.
 */
size_t sc_rounds_next(const struct sc_rounds *rd, const struct sc_results *res, int k, bool *sent,
		      struct sc_eval_unit_ref *round);

/*
 * Evaluates the rounds into res (initialised, its frame the caller's):
 * each round through sc_eval_run_units. Returns 0 (also when stopped:
 * see out->eval.stopped) or the evaluation's error.
 */
int sc_rounds_run(struct sc_results *res, struct sc_rounds_stats *out, const struct sc_rounds *rd);

#endif
