#ifndef SC_BUDGET_H
#define SC_BUDGET_H
/*
 * The cost bound of a run, decided before any request (docs/run.md,
 * "Budget"). For every planned unit the plan estimates its input tokens
 * (the prompt's bytes as it is sent: the system prompt the skill makes,
 * its references/ listing included, and the user message with the
 * test's input, context files and fixture prompt, all built at plan time;
 * resent on every turn, plus the answers of earlier turns) and its output
 * tokens (max_tokens per request), prices both from a dated table per
 * model, and compares the totals with the trusted configuration's budget:
 *
 *   budget: {max_input_tokens, max_output_tokens, max_usd, max_prompt_tokens}
 *   prices: {MODEL: {input, output, cache_read, cache_write, date}}
 *
 * (dollars per million tokens; MODEL matches a model's id or its full
 * name by prefix, the longest match winning; the configuration's entries
 * come before the built-in table). Only what is sent counts: a unit the
 * results store answers or the oracle answers adds no tokens or dollars.
 * A unit whose prompt alone is over
 * max_prompt_tokens is refused by name (a finding, never truncated), and
 * a plan over any total is refused with the numbers: no request is sent.
 *
 * Tokens are estimated as ceil(bytes / SC_BUDGET_BYTES_PER_TOKEN): close
 * for English and code, an underestimate for text that tokenizes densely,
 * which max_prompt_tokens and the totals leave room for.
 *
 * Ownership: struct sc_budget_config and sc_budget_estimate own their
 * strings and arrays; const char * parameters are borrowed.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_buf;

#define SC_BUDGET_BYTES_PER_TOKEN   4
#define SC_BUDGET_PROMPT_OVERHEAD   64      /* tokens per request: roles, framing */
#define SC_BUDGET_DEFAULT_MAX_TOKENS 4096   /* output per request when the model sets none */
#define SC_DEFAULT_MAX_INPUT_TOKENS  500000000
#define SC_DEFAULT_MAX_OUTPUT_TOKENS 100000000
#define SC_DEFAULT_MAX_PROMPT_TOKENS 200000

/* Dollars per million tokens, and the day they were taken. */
struct sc_price {
	char *model;          /* prefix of a model id or name */
	double input, output, cache_read, cache_write;
	char *date;           /* "2025-08-01" */
};

/* The trusted configuration's budget (0 / 0.0: no limit for that total). */
struct sc_budget_config {
	int64_t max_input_tokens;
	int64_t max_output_tokens;
	double max_usd;
	int64_t max_prompt_tokens;
	struct sc_price *prices;   /* the configuration's own, before the built-in table */
	size_t nprices, prices_alloc;
};

/* The totals of a plan, and the first unit over the prompt cap. */
struct sc_budget_estimate {
	int64_t input_tokens, output_tokens;
	double usd;                  /* over the priced units */
	size_t units, unpriced;      /* units counted; of them, with no price */
	size_t unsent;               /* of them, answered without a model (the oracle) */
	size_t reused;               /* of them, answered by the results store: nothing sent */
	char *unpriced_model;        /* the first model without a price */
	size_t over_cap;             /* units whose prompt is over max_prompt_tokens */
	char *over_cap_unit;         /* the first such unit's id */
	int64_t over_cap_tokens;     /* and its prompt's tokens */
	char *over_cap_note;         /* and what its prompt is made of, or NULL */
	char *price_date;            /* the oldest date of a price used */
};

/* Sets the defaults (no table entries of its own). */
void sc_budget_config_defaults(struct sc_budget_config *b);
/* Adds (a copy of) a price entry to the configuration's own table. */
void sc_budget_config_add_price(struct sc_budget_config *b, const struct sc_price *p);
void sc_budget_config_release(struct sc_budget_config *b);

/*
 * The price for a model (its provider id, e.g. "claude-haiku-4-5", and
 * canonical name, e.g. "anthropic.claude-haiku-4-5"): the configuration's
 * longest matching entry, else the built-in table's; NULL when none.
 */
const struct sc_price *sc_budget_price(const struct sc_budget_config *b, const char *model_id,
				       const char *model_name);

/* Tokens of n bytes of prompt (ceil(n / SC_BUDGET_BYTES_PER_TOKEN)). */
int64_t sc_budget_tokens(size_t bytes);

void sc_budget_estimate_init(struct sc_budget_estimate *e);
void sc_budget_estimate_release(struct sc_budget_estimate *e);
/*
 * Adds one unit: its id (for messages), model id and name, the bytes of
 * its prompt (skill, input, context files), the most requests it makes
 * (turns, judge) and max_tokens per request (0: the default). Over
 * several turns each request resends the prompt and every earlier answer.
 */
void sc_budget_add_unit(struct sc_budget_estimate *e, const struct sc_budget_config *b,
			const char *unit_id, const char *model_id, const char *model_name,
			size_t prompt_bytes, int requests, int max_tokens);
/*
 * Says what the first unit over budget.max_prompt_tokens sends, for the
 * error (once: later calls do nothing): system_bytes of system prompt,
 * of which body_bytes the skill's body and listing_bytes the listing of
 * its listed files under references/, and user_bytes of user message.
 * Call it after sc_budget_add_unit() when over_cap became 1.
 */
void sc_budget_note_over_cap(struct sc_budget_estimate *e, size_t system_bytes, size_t body_bytes,
			     size_t listed, size_t listing_bytes, size_t user_bytes);
/*
 * The same for a unit whose every turn also adds growth tokens to the
 * prompt beyond its answer (an agent's tool results): request k sends
 * the prompt, the k earlier answers and k x growth tokens.
 */
void sc_budget_add_unit_growth(struct sc_budget_estimate *e, const struct sc_budget_config *b,
			       const char *unit_id, const char *model_id, const char *model_name,
			       size_t prompt_bytes, int requests, int max_tokens, int64_t growth);
/*
 * A unit answered without a model (the oracle): counted, no tokens, no
 * dollars; requests (its judge's and grader's, which go to a model) are
 * counted as sc_budget_add_unit's, none: it sends nothing.
 */
void sc_budget_add_unsent_unit(struct sc_budget_estimate *e, const struct sc_budget_config *b,
			       const char *unit_id, const char *model_id, const char *model_name,
			       size_t prompt_bytes, int requests, int max_tokens);
/*
 * A unit the results store answers (eval/eval.h, sc_eval_stored_units):
 * counted, and nothing else: no tokens, no dollars, no prompt cap, and
 * no judge or grader request (the stored unit holds their verdicts).
 */
void sc_budget_add_reused_unit(struct sc_budget_estimate *e);
/*
 * The most one agent turn adds to the prompt beside its answer: the
 * results of max_calls tool calls of at most tool_output bytes each,
 * with their framing (tokens). The agent's caps make it a bound.
 */
int64_t sc_budget_agent_growth(int max_calls, size_t tool_output);
/*
 * Appends the estimate to line ("; estimate ~1.2M input and ~65.5k output
 * tokens, ~$4.21 (prices of 2025-11-01) (12 units reused from the store:
 * nothing sent for them); token and dollar limits ...") and returns 0, or
 * SC_EINVAL with a message naming the unit or the total over its limit
 * and what to change.
 */
int sc_budget_check(const struct sc_budget_estimate *e, const struct sc_budget_config *b,
		    struct sc_buf *line);
struct sc_results;
/*
 * Fills res->run.usage (replacing it): per skill and model, the tokens
 * its units used in this run (reused units made no request and units
 * that used no token, such as the oracle's, are not counted) and their cost at the price table's list prices (NAN when the
 * model has none).
 */
void sc_budget_usage(struct sc_results *res, const struct sc_budget_config *b);
/*
 * Adds from's run.usage into to's (a shard's into the merged run), by
 * skill and model; a cost stays NAN when either side has no price.
 */
void sc_budget_usage_merge(struct sc_results *to, const struct sc_results *from);

#endif
