/* The plan's cost bound: tokens and dollars before any request (budget.h). */
#include "common.h"
#include "pipeline/budget.h"
#include "results/results.h"
#include "skills/testsuite.h"

#include <math.h>

/*
 * Published list prices, dollars per million tokens (input, output,
 * cache read, cache write), as the vendors' pricing pages gave them on
 * the date shown. A trusted skillci.yml "prices:" entry overrides or
 * extends them (docs/config.md).
 */
#define PRICE_DATE "2025-11-01"
static const struct sc_price builtin[] = {
	{ (char *)"claude-opus-4-5", 5, 25, 0.5, 6.25, (char *)PRICE_DATE },
	{ (char *)"claude-opus-4", 15, 75, 1.5, 18.75, (char *)PRICE_DATE },
	{ (char *)"claude-3-opus", 15, 75, 1.5, 18.75, (char *)PRICE_DATE },
	{ (char *)"claude-sonnet-4", 3, 15, 0.3, 3.75, (char *)PRICE_DATE },
	{ (char *)"claude-3-7-sonnet", 3, 15, 0.3, 3.75, (char *)PRICE_DATE },
	{ (char *)"claude-3-5-sonnet", 3, 15, 0.3, 3.75, (char *)PRICE_DATE },
	{ (char *)"claude-haiku-4-5", 1, 5, 0.1, 1.25, (char *)PRICE_DATE },
	{ (char *)"claude-3-5-haiku", 0.8, 4, 0.08, 1, (char *)PRICE_DATE },
	{ (char *)"claude-3-haiku", 0.25, 1.25, 0.03, 0.3, (char *)PRICE_DATE },
	{ (char *)"gpt-4o-mini", 0.15, 0.6, 0.075, 0, (char *)PRICE_DATE },
	{ (char *)"gpt-4o", 2.5, 10, 1.25, 0, (char *)PRICE_DATE },
	{ (char *)"gpt-4.1-nano", 0.1, 0.4, 0.025, 0, (char *)PRICE_DATE },
	{ (char *)"gpt-4.1-mini", 0.4, 1.6, 0.1, 0, (char *)PRICE_DATE },
	{ (char *)"gpt-4.1", 2, 8, 0.5, 0, (char *)PRICE_DATE },
	{ (char *)"gpt-5-nano", 0.05, 0.4, 0.005, 0, (char *)PRICE_DATE },
	{ (char *)"gpt-5-mini", 0.25, 2, 0.025, 0, (char *)PRICE_DATE },
	{ (char *)"gpt-5", 1.25, 10, 0.125, 0, (char *)PRICE_DATE },
	{ (char *)"o4-mini", 1.1, 4.4, 0.275, 0, (char *)PRICE_DATE },
	{ (char *)"o3-mini", 1.1, 4.4, 0.55, 0, (char *)PRICE_DATE },
	{ (char *)"o3", 2, 8, 0.5, 0, (char *)PRICE_DATE },
	{ (char *)"o1-mini", 1.1, 4.4, 0.55, 0, (char *)PRICE_DATE },
	{ (char *)"o1", 15, 60, 7.5, 0, (char *)PRICE_DATE },
	{ (char *)"gemini-2.5-pro", 1.25, 10, 0.31, 0, (char *)PRICE_DATE },
	{ (char *)"gemini-2.5-flash", 0.3, 2.5, 0.075, 0, (char *)PRICE_DATE },
	{ (char *)"gemini-2.0-flash", 0.1, 0.4, 0.025, 0, (char *)PRICE_DATE },
	{ (char *)"deepseek-chat", 0.27, 1.1, 0.07, 0, (char *)PRICE_DATE },
	{ (char *)"deepseek-reasoner", 0.55, 2.19, 0.14, 0, (char *)PRICE_DATE },
	{ (char *)"grok-4", 3, 15, 0.75, 0, (char *)PRICE_DATE },
	{ (char *)"grok-3-mini", 0.3, 0.5, 0.075, 0, (char *)PRICE_DATE },
	{ (char *)"grok-3", 3, 15, 0.75, 0, (char *)PRICE_DATE },
};

void sc_budget_config_defaults(struct sc_budget_config *b)
{
	memset(b, 0, sizeof(*b));
	b->max_input_tokens = SC_DEFAULT_MAX_INPUT_TOKENS;
	b->max_output_tokens = SC_DEFAULT_MAX_OUTPUT_TOKENS;
	b->max_prompt_tokens = SC_DEFAULT_MAX_PROMPT_TOKENS;
}

void sc_budget_config_add_price(struct sc_budget_config *b, const struct sc_price *p)
{
	struct sc_price *x;

	SC_GROW(b->prices, b->prices_alloc, b->nprices + 1);
	x = &b->prices[b->nprices++];
	*x = *p;
	x->model = sc_xstrdup(p->model);
	x->date = p->date ? sc_xstrdup(p->date) : NULL;
}

void sc_budget_config_release(struct sc_budget_config *b)
{
	for (size_t i = 0; i < b->nprices; i++) {
		free(b->prices[i].model);
		free(b->prices[i].date);
	}
	free(b->prices);
	memset(b, 0, sizeof(*b));
}

/* The longest entry of table[0..n) that is a prefix of id or name. */
static const struct sc_price *longest(const struct sc_price *table, size_t n, const char *id,
				      const char *name)
{
	const struct sc_price *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(table[i].model);
		bool hit = (id && !strncmp(id, table[i].model, len)) ||
			   (name && !strncmp(name, table[i].model, len));
		if (hit && len > best_len) {
			best = &table[i];
			best_len = len;
		}
	}
	return best;
}

const struct sc_price *sc_budget_price(const struct sc_budget_config *b, const char *model_id,
				       const char *model_name)
{
	const struct sc_price *p;
	const char *dot = model_name ? strchr(model_name, '.') : NULL;

	/* without an id, the name less its provider: "anthropic.claude-x" */
	if (!model_id && dot)
		model_id = dot + 1;
	p = b ? longest(b->prices, b->nprices, model_id, model_name) : NULL;
	return p ? p : longest(builtin, SC_ARRAY_SIZE(builtin), model_id, model_name);
}

int64_t sc_budget_tokens(size_t bytes)
{
	return (int64_t)((bytes + SC_BUDGET_BYTES_PER_TOKEN - 1) / SC_BUDGET_BYTES_PER_TOKEN);
}

static double sc_budget_cost(const struct sc_price *p, int64_t input, int64_t cache_read,
			     int64_t output)
{
	if (!p)
		return 0;
	return ((double)input * p->input + (double)cache_read * p->cache_read +
		(double)output * p->output) / 1e6;
}

void sc_budget_estimate_init(struct sc_budget_estimate *e)
{
	memset(e, 0, sizeof(*e));
}

void sc_budget_estimate_release(struct sc_budget_estimate *e)
{
	free(e->unpriced_model);
	free(e->over_cap_unit);
	free(e->over_cap_note);
	free(e->price_date);
	memset(e, 0, sizeof(*e));
}

void sc_budget_add_unit(struct sc_budget_estimate *e, const struct sc_budget_config *b,
			const char *unit_id, const char *model_id, const char *model_name,
			size_t prompt_bytes, int requests, int max_tokens)
{
	sc_budget_add_unit_growth(e, b, unit_id, model_id, model_name, prompt_bytes, requests,
				  max_tokens, 0);
}

void sc_budget_add_unsent_unit(struct sc_budget_estimate *e, const struct sc_budget_config *b,
			       const char *unit_id, const char *model_id, const char *model_name,
			       size_t prompt_bytes, int requests, int max_tokens)
{
	e->unsent++;
	if (requests > 0) {
		/* the judge and grader still send: counted as a unit of theirs */
		sc_budget_add_unit_growth(e, b, unit_id, model_id, model_name, prompt_bytes, requests,
					  max_tokens, 0);
		return;
	}
	e->units++;
}

void sc_budget_add_reused_unit(struct sc_budget_estimate *e)
{
	e->units++;
	e->reused++;
}

int64_t sc_budget_agent_growth(int max_calls, size_t tool_output)
{
	/* each result: its text (capped), and its call's id, name and framing */
	return (int64_t)(max_calls > 0 ? max_calls : 1) *
	       (sc_budget_tokens(tool_output) + SC_BUDGET_PROMPT_OVERHEAD);
}

void sc_budget_add_unit_growth(struct sc_budget_estimate *e, const struct sc_budget_config *b,
			       const char *unit_id, const char *model_id, const char *model_name,
			       size_t prompt_bytes, int requests, int max_tokens, int64_t growth)
{
	int64_t prompt = sc_budget_tokens(prompt_bytes) + SC_BUDGET_PROMPT_OVERHEAD;
	int64_t out = max_tokens > 0 ? max_tokens : SC_BUDGET_DEFAULT_MAX_TOKENS;
	int64_t r = requests > 0 ? requests : 1, in;
	const struct sc_price *price = sc_budget_price(b, model_id, model_name);

	/* request k (0-based) sends the prompt, the k earlier answers and
	 * what each earlier turn added (an agent's tool results) */
	in = r * prompt + (out + (growth > 0 ? growth : 0)) * (r * (r - 1) / 2);
	e->units++;
	e->input_tokens += in;
	e->output_tokens += r * out;
	if (b->max_prompt_tokens > 0 && prompt > b->max_prompt_tokens) {
		if (!e->over_cap++) {
			e->over_cap_unit = sc_xstrdup(unit_id ? unit_id : "");
			e->over_cap_tokens = prompt;
		}
	}
	if (!price) {
		if (!e->unpriced++)
			e->unpriced_model = sc_xstrdup(model_name ? model_name : model_id ? model_id : "");
		return;
	}
	e->usd += sc_budget_cost(price, in, 0, r * out);
	if (price->date && (!e->price_date || strcmp(price->date, e->price_date) < 0)) {
		free(e->price_date);
		e->price_date = sc_xstrdup(price->date);
	}
}

void sc_budget_note_over_cap(struct sc_budget_estimate *e, size_t system_bytes, size_t body_bytes,
			     size_t listed, size_t listing_bytes, size_t user_bytes)
{
	struct sc_buf b = SC_BUF_INIT;

	if (!e->over_cap || e->over_cap_note)
		return;
	sc_buf_printf(&b, "its system prompt is %zu bytes", system_bytes);
	if (system_bytes)
		sc_buf_printf(&b, " (the skill's body %zu, the listing of its %zu file%s under "
			      "references/ %zu)", body_bytes, listed, listed == 1 ? "" : "s",
			      listing_bytes);
	sc_buf_printf(&b, ", its user message %zu bytes", user_bytes);
	e->over_cap_note = sc_buf_detach(&b, NULL);
}

/* "1.2M", "65.5k", "812": a token count for the budget line. */
static void human(struct sc_buf *out, int64_t n)
{
	if (n >= 1000000)
		sc_buf_printf(out, "%.1fM", (double)n / 1e6);
	else if (n >= 1000)
		sc_buf_printf(out, "%.1fk", (double)n / 1e3);
	else
		sc_buf_printf(out, "%lld", (long long)n);
}

int sc_budget_check(const struct sc_budget_estimate *e, const struct sc_budget_config *b,
		    struct sc_buf *line)
{
	sc_buf_puts(line, "; estimate ~");
	human(line, e->input_tokens);
	sc_buf_puts(line, " input and ~");
	human(line, e->output_tokens);
	sc_buf_printf(line, " output tokens, ~$%.2f", e->usd);
	if (e->price_date)
		sc_buf_printf(line, " (prices of %s)", e->price_date);
	if (e->unpriced)
		sc_buf_printf(line, " (%zu unit%s of models without a price, such as '%s', not counted)",
			      e->unpriced, e->unpriced == 1 ? "" : "s", e->unpriced_model);
	if (e->unsent)
		sc_buf_printf(line, " (%zu unit%s answered by the oracle: nothing sent for %s)",
			      e->unsent, e->unsent == 1 ? "" : "s", e->unsent == 1 ? "it" : "them");
	if (e->reused)
		sc_buf_printf(line, " (%zu unit%s reused from the store: nothing sent for %s)",
			      e->reused, e->reused == 1 ? "" : "s", e->reused == 1 ? "it" : "them");
	sc_buf_puts(line, "; token and dollar limits ");
	if (b->max_input_tokens > 0)
		human(line, b->max_input_tokens);
	else
		sc_buf_puts(line, "no");
	sc_buf_puts(line, " input, ");
	if (b->max_output_tokens > 0)
		human(line, b->max_output_tokens);
	else
		sc_buf_puts(line, "no");
	sc_buf_puts(line, " output tokens, ");
	if (b->max_usd > 0)
		sc_buf_printf(line, "$%.2f", b->max_usd);
	else
		sc_buf_puts(line, "no dollar limit");
	if (e->over_cap)
		return sc_error_set(SC_EINVAL, "unit '%s' has a prompt of ~%lld tokens, more than "
				    "budget.max_prompt_tokens (%lld)%s%s%s; nothing was sent. Make the "
				    "skill (its body, the files under references/ it lists), the test's "
				    "input or its context files smaller, or raise the limit in the base "
				    "branch's skillci.yml", e->over_cap_unit,
				    (long long)e->over_cap_tokens, (long long)b->max_prompt_tokens,
				    e->over_cap_note ? ": " : "", e->over_cap_note ? e->over_cap_note : "",
				    e->over_cap > 1 ? " (and other units too)" : "");
	if (b->max_input_tokens > 0 && e->input_tokens > b->max_input_tokens)
		return sc_error_set(SC_EINVAL, "the plan may send ~%lld input tokens, more than "
				    "budget.max_input_tokens (%lld); nothing was sent. Lower runs, "
				    "max_turns or models, or raise the limit in the base branch's "
				    "skillci.yml", (long long)e->input_tokens,
				    (long long)b->max_input_tokens);
	if (b->max_output_tokens > 0 && e->output_tokens > b->max_output_tokens)
		return sc_error_set(SC_EINVAL, "the plan may receive ~%lld output tokens, more than "
				    "budget.max_output_tokens (%lld); nothing was sent. Lower runs, "
				    "max_turns, models or max_tokens, or raise the limit in the base "
				    "branch's skillci.yml", (long long)e->output_tokens,
				    (long long)b->max_output_tokens);
	if (b->max_usd > 0 && e->usd > b->max_usd)
		return sc_error_set(SC_EINVAL, "the plan may cost ~$%.2f at list prices%s%s, more than "
				    "budget.max_usd ($%.2f); nothing was sent. Lower runs, max_turns or "
				    "models, or raise the limit in the base branch's skillci.yml", e->usd,
				    e->price_date ? " of " : "", e->price_date ? e->price_date : "",
				    b->max_usd);
	return 0;
}

static int cmp_usage(const void *pa, const void *pb)
{
	const struct sc_results_usage *a = pa, *b = pb;
	int c = strcmp(a->skill, b->skill);

	return c ? c : strcmp(a->model, b->model);
}

/* The entry of run for (skill, model), added when missing. */
static struct sc_results_usage *usage_slot(struct sc_results_run *run, const char *skill,
					   const char *model)
{
	struct sc_results_usage *x;

	for (size_t k = 0; k < run->nusage; k++)
		if (!strcmp(run->usage[k].skill, skill) && !strcmp(run->usage[k].model, model))
			return &run->usage[k];
	run->usage = sc_xrealloc(run->usage, (run->nusage + 1) * sizeof(*run->usage));
	x = &run->usage[run->nusage++];
	memset(x, 0, sizeof(*x));
	x->skill = sc_xstrdup(skill);
	x->model = sc_xstrdup(model);
	return x;
}

void sc_budget_usage_merge(struct sc_results *to, const struct sc_results *from)
{
	for (size_t i = 0; i < from->run.nusage; i++) {
		const struct sc_results_usage *u = &from->run.usage[i];
		struct sc_results_usage *x = usage_slot(&to->run, u->skill, u->model);
		bool fresh = x->tokens_in == 0 && x->tokens_out == 0 && !x->price_date && x->cost_usd == 0;
		x->tokens_in += u->tokens_in;
		x->tokens_out += u->tokens_out;
		x->cost_usd = fresh ? u->cost_usd : x->cost_usd + u->cost_usd;
		if (!x->price_date && u->price_date)
			x->price_date = sc_xstrdup(u->price_date);
	}
	if (to->run.nusage)
		qsort(to->run.usage, to->run.nusage, sizeof(*to->run.usage), cmp_usage);
}

void sc_budget_usage(struct sc_results *res, const struct sc_budget_config *b)
{
	struct sc_results_run *run = &res->run;

	for (size_t i = 0; i < run->nusage; i++) {
		free(run->usage[i].skill);
		free(run->usage[i].model);
		free(run->usage[i].price_date);
	}
	free(run->usage);
	run->usage = NULL;
	run->nusage = 0;
	for (size_t i = 0; i < res->nunits; i++) {
		const struct sc_results_unit *u = &res->units[i];
		struct sc_results_usage *x;
		if (u->reused || !u->skill || !u->model || u->tokens_in + u->tokens_out <= 0)
			continue;  /* no request made, or none that used a token (the oracle) */
		x = usage_slot(run, u->skill, u->model);
		x->tokens_in += u->tokens_in > 0 ? u->tokens_in : 0;
		x->tokens_out += u->tokens_out > 0 ? u->tokens_out : 0;
	}
	for (size_t k = 0; k < run->nusage; k++) {
		struct sc_results_usage *x = &run->usage[k];
		const struct sc_price *p = sc_budget_price(b, NULL, x->model);
		x->cost_usd = p ? sc_budget_cost(p, x->tokens_in, 0, x->tokens_out) : NAN;
		x->price_date = p && p->date ? sc_xstrdup(p->date) : NULL;
	}
	if (run->nusage)
		qsort(run->usage, run->nusage, sizeof(*run->usage), cmp_usage);
}
