#ifndef SC_EXPORT_H
#define SC_EXPORT_H
/*
 * Stored transcripts as chat-format JSONL for fine-tuning (docs/generate.md,
 * "export"): one line per stored unit,
 *
 *   {"messages": [{"role": "system", ...}, {"role": "user", ...},
 *                 {"role": "assistant", ...}, ...],
 *    "metadata": {"verdict", "tokens", "speedup", "fixture_hash", "skill",
 *                 "model", ...}}
 *
 * The system message is the skill's system prompt (eval.h) rebuilt from
 * the skill folder when its content still hashes to the stored skill hash;
 * a baseline unit had none. Nothing here prints.
 *
 * A store is written by others too (docs/security.md): only units whose
 * MAC holds under this runner's key or a trusted one are exported
 * (sc_store_unit_verify), and of a transcript only the user and assistant
 * turns, after the system prompt skillci rebuilt itself: a stored
 * "system" turn, or any other role, is dropped. What was left out is
 * counted and the units named (SC_EXPORT_MAX_NAMED of them).
 *
 * Ownership: options are borrowed; lines are appended to the caller's buffer.
 */
#include <stdbool.h>
#include <stddef.h>

#include "strlist.h"

#define SC_EXPORT_MAX_NAMED 10

struct sc_buf;
struct sc_store;
struct sc_store_unit;

struct sc_export_options {
	const char *skill;     /* skill path or name; NULL: all */
	const char *model;     /* canonical model name; NULL: all */
	const char *run_id;    /* NULL: every run */
	bool passing;          /* verdict "pass" only */
	double min_speedup;    /* NAN: no bound; else kernel units with speedup >= it */
};

struct sc_export_stats {
	size_t read;           /* units matching skill, model, run and --passing */
	size_t written;        /* lines */
	size_t no_answer;      /* left out: the transcript has no assistant message */
	size_t below_speedup;  /* left out by min_speedup */
	size_t no_system;      /* written without the skill's system prompt (skill changed or gone) */
	size_t unverified;     /* left out: the MAC does not hold or names an unknown key */
	struct sc_strlist unverified_names;  /* "TEST_ID of run RUN: why", the first ones */
	size_t dropped_turns;  /* turns left out of written lines: not user or assistant */
	size_t units_dropped_turns;  /* written lines that lost turns */
};

/* Frees what stats holds (the names). */
void sc_export_stats_release(struct sc_export_stats *stats);

void sc_export_options_init(struct sc_export_options *opt);

/*
 * Appends a line for every stored unit that matches opt. Returns 0 or the
 * store's error; stats (optional) says what was left out.
 */
int sc_export_jsonl(struct sc_buf *out, struct sc_store *store, const struct sc_export_options *opt,
		    struct sc_export_stats *stats);

#endif
