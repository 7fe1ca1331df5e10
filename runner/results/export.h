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
 * Ownership: options are borrowed; lines are appended to the caller's buffer.
 */
#include <stdbool.h>
#include <stddef.h>

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
};

void sc_export_options_init(struct sc_export_options *opt);

/*
 * Appends one JSONL line (with its newline) for unit u. system is the
 * system prompt to put first, or NULL (then metadata.system says why:
 * "none" for a baseline, "unavailable" otherwise). Returns 0, or
 * SC_EPARSE when the stored transcript is not a JSON list of messages,
 * SC_ENOTFOUND when it has no assistant message.
 */
int sc_export_unit_line(struct sc_buf *out, const struct sc_store_unit *u, const char *system);

/*
 * Appends a line for every stored unit that matches opt. Returns 0 or the
 * store's error; stats (optional) says what was left out.
 */
int sc_export_jsonl(struct sc_buf *out, struct sc_store *store, const struct sc_export_options *opt,
		    struct sc_export_stats *stats);

#endif
