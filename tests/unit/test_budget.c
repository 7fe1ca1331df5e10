/*
 * Unit tests for the plan's cost bound (runner/pipeline/budget.c): the
 * price table's longest-prefix match and the configuration's entries
 * before it, the estimate of a multi-turn unit, each limit's refusal, and
 * the actual cost per skill and model from results units.
 */
#include "unit.h"
#include "pipeline/budget.h"
#include "results/results.h"

#include <math.h>

static void test_price_lookup(void **state)
{
	struct sc_budget_config b;
	struct sc_price mine = { (char *)"claude-haiku-4-5", 9, 99, 0, 0, (char *)"2026-02-01" };
	const struct sc_price *p;
	(void)state;

	sc_budget_config_defaults(&b);
	/* the longest prefix wins: gpt-4o-mini, not gpt-4o */
	p = sc_budget_price(&b, "gpt-4o-mini-2024-07-18", NULL);
	assert_non_null(p);
	assert_string_equal(p->model, "gpt-4o-mini");
	p = sc_budget_price(&b, NULL, "anthropic.claude-sonnet-4-5-20250929");
	assert_non_null(p);
	assert_string_equal(p->model, "claude-sonnet-4");
	assert_null(sc_budget_price(&b, "fake-student", "anthropic.fake-student"));
	/* the configuration's entry comes first */
	sc_budget_config_add_price(&b, &mine);
	p = sc_budget_price(&b, NULL, "anthropic.claude-haiku-4-5");
	assert_non_null(p);
	assert_true(p->input == 9 && p->output == 99);
	assert_string_equal(p->date, "2026-02-01");
	sc_budget_config_release(&b);
}

static void test_estimate_and_limits(void **state)
{
	struct sc_budget_config b;
	struct sc_budget_estimate e;
	struct sc_buf line = SC_BUF_INIT;
	int64_t prompt = sc_budget_tokens(4000) + SC_BUDGET_PROMPT_OVERHEAD;
	(void)state;

	assert_int_equal(sc_budget_tokens(0), 0);
	assert_int_equal(sc_budget_tokens(1), 1);
	assert_int_equal(sc_budget_tokens(4001), 1001);
	sc_budget_config_defaults(&b);
	sc_budget_estimate_init(&e);
	/* 3 turns of 100 output tokens: 3 prompts + 0 + 1 + 2 earlier answers */
	sc_budget_add_unit(&e, &b, "u1", "claude-opus-4-1", "anthropic.claude-opus-4-1", 4000, 3, 100);
	assert_int_equal(e.input_tokens, 3 * prompt + 3 * 100);
	assert_int_equal(e.output_tokens, 300);
	assert_true(fabs(e.usd - ((double)(3 * prompt + 300) * 15 + 300.0 * 75) / 1e6) < 1e-12);
	assert_int_equal(sc_budget_check(&e, &b, &line), 0);
	assert_non_null(strstr(line.ptr, "prices of 2025-11-01"));
	/* dollars refuse what tokens allow */
	b.max_usd = 0.01;
	sc_buf_clear(&line);
	assert_int_equal(sc_budget_check(&e, &b, &line), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "budget.max_usd ($0.01)"));
	/* tokens */
	b.max_usd = 0;
	b.max_input_tokens = 100;
	assert_int_equal(sc_budget_check(&e, &b, &line), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "budget.max_input_tokens (100)"));
	b.max_input_tokens = 0;
	b.max_output_tokens = 299;
	assert_int_equal(sc_budget_check(&e, &b, &line), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "budget.max_output_tokens (299)"));
	b.max_output_tokens = 0;
	/* the prompt cap names the unit */
	b.max_prompt_tokens = 500;
	sc_budget_add_unit(&e, &b, "big-unit", NULL, "anthropic.fake", 1 << 20, 1, 0);
	assert_int_equal(e.unpriced, 1);
	assert_int_equal(sc_budget_check(&e, &b, &line), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "unit 'big-unit' has a prompt of ~262208 tokens"));
	/* and says what the prompt is made of, once */
	sc_budget_note_over_cap(&e, 1000000, 1000, 4000, 998000, 48576);
	sc_budget_note_over_cap(&e, 1, 1, 1, 1, 1);
	assert_int_equal(sc_budget_check(&e, &b, &line), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "its system prompt is 1000000 bytes (the skill's body "
				"1000, the listing of its 4000 files under references/ 998000), its "
				"user message 48576 bytes"));
	sc_budget_estimate_release(&e);
	sc_budget_config_release(&b);
	sc_buf_release(&line);
}

/* Units the oracle answers send nothing: a budget the same plan's model
 * units are over does not stop them; their judge's requests still count. */
static void test_oracle_units_send_nothing(void **state)
{
	struct sc_budget_config b;
	struct sc_budget_estimate e;
	struct sc_buf line = SC_BUF_INIT;
	(void)state;

	sc_budget_config_defaults(&b);
	b.max_output_tokens = 1000;
	b.max_input_tokens = 1000;
	sc_budget_estimate_init(&e);
	for (int i = 0; i < 5000; i++)
		sc_budget_add_unsent_unit(&e, &b, "u", "", "oracle.self", 4000, 0, 4096);
	assert_int_equal(e.units, 5000);
	assert_int_equal(e.unsent, 5000);
	assert_int_equal(e.input_tokens, 0);
	assert_int_equal(e.output_tokens, 0);
	assert_int_equal(sc_budget_check(&e, &b, &line), 0);
	assert_non_null(strstr(line.ptr, "5000 units answered by the oracle: nothing sent for them"));
	/* a judge's request does send: counted */
	sc_budget_add_unsent_unit(&e, &b, "judged", "", "oracle.self", 400, 1, 4096);
	assert_int_equal(e.output_tokens, 4096);
	assert_int_equal(sc_budget_check(&e, &b, &line), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "budget.max_output_tokens (1000)"));
	sc_budget_estimate_release(&e);
	/* the same plan answered by a model is stopped */
	sc_budget_estimate_init(&e);
	sc_budget_add_unit(&e, &b, "u", "fake-student", "anthropic.fake-student", 4000, 1, 4096);
	assert_int_equal(e.unsent, 0);
	assert_int_equal(e.output_tokens, 4096);
	assert_int_equal(sc_budget_check(&e, &b, &line), SC_EINVAL);
	sc_budget_estimate_release(&e);
	sc_budget_config_release(&b);
	sc_buf_release(&line);
}

/* Units the store answers send nothing: a plan of 10 units of which 6
 * are reused counts the tokens and dollars of the other 4 only, a
 * budget the whole plan is over lets it through, and the line says how
 * many were reused. */
static void test_reused_units_send_nothing(void **state)
{
	struct sc_budget_config b;
	struct sc_budget_estimate all, some;
	struct sc_buf line = SC_BUF_INIT;
	(void)state;

	sc_budget_config_defaults(&b);
	b.max_output_tokens = 20000;
	sc_budget_estimate_init(&all);
	sc_budget_estimate_init(&some);
	for (int i = 0; i < 10; i++) {
		sc_budget_add_unit(&all, &b, "u", "claude-haiku-4-5", "anthropic.claude-haiku-4-5",
				   400, 1, 0);
		if (i < 6)
			sc_budget_add_reused_unit(&some);
		else
			sc_budget_add_unit(&some, &b, "u", "claude-haiku-4-5",
					   "anthropic.claude-haiku-4-5", 400, 1, 0);
	}
	/* each request: 100 + 64 input tokens, 4096 output (the default) */
	assert_int_equal(all.units, 10);
	assert_int_equal(all.output_tokens, 10 * 4096);
	assert_int_equal(all.input_tokens, 10 * 164);
	assert_int_equal(sc_budget_check(&all, &b, &line), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "budget.max_output_tokens (20000)"));
	assert_null(strstr(line.ptr, "reused"));
	sc_buf_clear(&line);
	assert_int_equal(some.units, 10);
	assert_int_equal(some.reused, 6);
	assert_int_equal(some.unsent, 0);
	assert_int_equal(some.output_tokens, 4 * 4096);
	assert_int_equal(some.input_tokens, 4 * 164);
	/* dollars of the 4 sent only: $1 and $5 per million */
	assert_true(fabs(some.usd - 4 * (164 * 1.0 + 4096 * 5.0) / 1e6) < 1e-12);
	assert_true(fabs(all.usd - 10 * (164 * 1.0 + 4096 * 5.0) / 1e6) < 1e-12);
	assert_int_equal(sc_budget_check(&some, &b, &line), 0);
	assert_non_null(strstr(line.ptr, "(6 units reused from the store: nothing sent for them)"));
	sc_budget_estimate_release(&some);
	/* one reused unit, said in the singular; a plan of only reused units
	 * costs nothing and passes a budget of one token */
	b.max_input_tokens = b.max_output_tokens = 1;
	sc_budget_estimate_init(&some);
	sc_budget_add_reused_unit(&some);
	sc_buf_clear(&line);
	assert_int_equal(sc_budget_check(&some, &b, &line), 0);
	assert_non_null(strstr(line.ptr, "(1 unit reused from the store: nothing sent for it)"));
	assert_non_null(strstr(line.ptr, "estimate ~0 input and ~0 output tokens, ~$0.00"));
	sc_budget_estimate_release(&some);
	sc_budget_estimate_release(&all);
	sc_budget_config_release(&b);
	sc_buf_release(&line);
}

static void test_usage_per_skill_and_model(void **state)
{
	struct sc_results r;
	struct sc_budget_config b;
	struct sc_results_unit u[3];
	(void)state;

	sc_results_init(&r);
	sc_budget_config_defaults(&b);
	for (int i = 0; i < 3; i++) {
		sc_results_unit_init(&u[i]);
		u[i].skill = (char *)"skills/a";
		u[i].model = (char *)(i < 2 ? "openai.gpt-4.1" : "anthropic.fake");
		u[i].tokens_in = 1000;
		u[i].tokens_out = 10;
	}
	u[1].reused = false;
	r.units = u;
	r.nunits = 3;
	sc_budget_usage(&r, &b);
	/* sorted by skill, then model */
	assert_int_equal(r.run.nusage, 2);
	assert_string_equal(r.run.usage[0].model, "anthropic.fake");
	assert_true(isnan(r.run.usage[0].cost_usd));
	assert_string_equal(r.run.usage[1].model, "openai.gpt-4.1");
	assert_int_equal(r.run.usage[1].tokens_in, 2000);
	assert_int_equal(r.run.usage[1].tokens_out, 20);
	assert_true(fabs(r.run.usage[1].cost_usd - (2000.0 * 2 + 20.0 * 8) / 1e6) < 1e-12);
	/* a reused unit made no request */
	u[0].reused = true;
	sc_budget_usage(&r, &b);
	assert_int_equal(r.run.usage[1].tokens_in, 1000);
	/* a shard's usage adds to the merged run's */
	{
		struct sc_results other;
		sc_results_init(&other);
		other.units = u;
		other.nunits = 3;
		u[0].reused = false;
		sc_budget_usage(&other, &b);
		sc_budget_usage_merge(&r, &other);
		assert_int_equal(r.run.nusage, 2);
		assert_int_equal(r.run.usage[1].tokens_in, 3000);
		assert_true(fabs(r.run.usage[1].cost_usd - (3000.0 * 2 + 30.0 * 8) / 1e6) < 1e-12);
		assert_true(isnan(r.run.usage[0].cost_usd));
		other.units = NULL;
		other.nunits = 0;
		sc_results_release(&other);
	}
	r.units = NULL;
	r.nunits = 0;
	sc_results_release(&r);
	sc_budget_config_release(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_price_lookup),
		cmocka_unit_test(test_estimate_and_limits),
		cmocka_unit_test(test_oracle_units_send_nothing),
		cmocka_unit_test(test_reused_units_send_nothing),
		cmocka_unit_test(test_usage_per_skill_and_model),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
