/*
 * Agent runs without a model server: the tool wire formats of both APIs
 * (bodies built, answers parsed), the cache's keys and entries with tool
 * calls, the prompt that lists the skills, trigger detection, the turn
 * limit, the trace, the trigger queries' loader, the budget's growth,
 * and the config's agent block and upskill keys.
 */
#include "unit.h"

#include "agent/agent.h"
#include "diag.h"
#include "pipeline/budget.h"
#include "pipeline/config.h"
#include "providers/cache.h"
#include "providers/provider.h"
#include "skills/testsuite.h"

#include <cjson/cJSON.h>

static cJSON *build(const struct sc_provider_wire *w, const char *name,
		    const struct sc_chat_request *req)
{
	struct sc_model m;
	struct sc_buf body = SC_BUF_INIT;
	cJSON *root;

	assert_int_equal(sc_model_parse(&m, name), 0);
	w->build_body(&body, &m, req);
	root = cJSON_Parse(body.ptr);
	assert_non_null(root);
	sc_model_release(&m);
	sc_buf_release(&body);
	return root;
}

/* A conversation: the task, an answer that calls two tools, their two
 * results (the second an error), a last user line. */
static const struct sc_tool_call two_calls[] = {
	{ "toolu_1", "read_file", "{\"path\":\"a.txt\"}" },
	{ "toolu_2", "run", "{\"command\":\"false\"}" },
};
static const struct sc_chat_message convo[] = {
	{ SC_CHAT_USER, "do the task" },
	{ SC_CHAT_ASSISTANT, "looking" },
	{ SC_CHAT_TOOL, "alpha" },
	{ SC_CHAT_TOOL, "exit 1" },
};
static const struct sc_chat_tool_msg convo_tools[] = {
	{ NULL, 0, NULL, false },
	{ two_calls, 2, NULL, false },
	{ NULL, 0, "toolu_1", false },
	{ NULL, 0, "toolu_2", true },
};

static void request(struct sc_chat_request *req)
{
	memset(req, 0, sizeof(*req));
	req->system = "sys";
	req->messages = convo;
	req->nmessages = 4;
	req->tool_msgs = convo_tools;
	req->tools = sc_agent_tools;
	req->ntools = sc_agent_ntools;
	req->max_tokens = 100;
	req->temperature = -1;
}

static void test_anthropic_tool_body(void **state)
{
	struct sc_chat_request req;
	cJSON *root, *msgs, *m, *b;
	(void)state;

	request(&req);
	root = build(&sc_wire_anthropic, "sonnet", &req);
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(root, "tools")), 4);
	b = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "tools"), 0);
	assert_string_equal(cJSON_GetObjectItem(b, "name")->valuestring, "read_file");
	assert_true(cJSON_IsObject(cJSON_GetObjectItem(b, "input_schema")));
	msgs = cJSON_GetObjectItem(root, "messages");
	/* user, assistant, one user message holding both results */
	assert_int_equal(cJSON_GetArraySize(msgs), 3);
	m = cJSON_GetArrayItem(msgs, 1);
	assert_string_equal(cJSON_GetObjectItem(m, "role")->valuestring, "assistant");
	b = cJSON_GetArrayItem(cJSON_GetObjectItem(m, "content"), 0);
	assert_string_equal(cJSON_GetObjectItem(b, "type")->valuestring, "text");
	b = cJSON_GetArrayItem(cJSON_GetObjectItem(m, "content"), 2);
	assert_string_equal(cJSON_GetObjectItem(b, "type")->valuestring, "tool_use");
	assert_string_equal(cJSON_GetObjectItem(b, "id")->valuestring, "toolu_2");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(b, "input"), "command")->valuestring,
			    "false");
	m = cJSON_GetArrayItem(msgs, 2);
	assert_string_equal(cJSON_GetObjectItem(m, "role")->valuestring, "user");
	assert_int_equal(cJSON_GetArraySize(cJSON_GetObjectItem(m, "content")), 2);
	b = cJSON_GetArrayItem(cJSON_GetObjectItem(m, "content"), 1);
	assert_string_equal(cJSON_GetObjectItem(b, "type")->valuestring, "tool_result");
	assert_string_equal(cJSON_GetObjectItem(b, "tool_use_id")->valuestring, "toolu_2");
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(b, "is_error")));
	assert_null(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(m, "content"), 0),
					"is_error"));
	cJSON_Delete(root);

	/* a request without tools is sent as it always was: string contents */
	req.tools = NULL;
	req.ntools = 0;
	req.tool_msgs = NULL;
	req.nmessages = 2;
	root = build(&sc_wire_anthropic, "sonnet", &req);
	assert_null(cJSON_GetObjectItem(root, "tools"));
	assert_true(cJSON_IsString(cJSON_GetObjectItem(cJSON_GetArrayItem(
		cJSON_GetObjectItem(root, "messages"), 1), "content")));
	cJSON_Delete(root);
}

static void test_openai_tool_body(void **state)
{
	struct sc_chat_request req;
	cJSON *root, *msgs, *m, *c;
	(void)state;

	request(&req);
	req.messages = convo;
	root = build(&sc_wire_openai, "openai.gpt-4.1", &req);
	c = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "tools"), 3);
	assert_string_equal(cJSON_GetObjectItem(c, "type")->valuestring, "function");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "function"), "name")->valuestring,
			    "run");
	msgs = cJSON_GetObjectItem(root, "messages");
	assert_int_equal(cJSON_GetArraySize(msgs), 5);  /* system + 4 */
	m = cJSON_GetArrayItem(msgs, 2);
	assert_string_equal(cJSON_GetObjectItem(m, "content")->valuestring, "looking");
	c = cJSON_GetArrayItem(cJSON_GetObjectItem(m, "tool_calls"), 0);
	assert_string_equal(cJSON_GetObjectItem(c, "id")->valuestring, "toolu_1");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(c, "function"), "arguments")->valuestring,
			    "{\"path\":\"a.txt\"}");
	m = cJSON_GetArrayItem(msgs, 4);
	assert_string_equal(cJSON_GetObjectItem(m, "role")->valuestring, "tool");
	assert_string_equal(cJSON_GetObjectItem(m, "tool_call_id")->valuestring, "toolu_2");
	assert_string_equal(cJSON_GetObjectItem(m, "content")->valuestring, "exit 1");
	cJSON_Delete(root);
}

static void test_answers_with_calls(void **state)
{
	struct sc_chat_response r;
	cJSON *calls;
	const char *anth = "{\"content\":[{\"type\":\"text\",\"text\":\"ok\"},{\"type\":\"tool_use\","
			   "\"id\":\"toolu_9\",\"name\":\"write_file\",\"input\":{\"path\":\"x\","
			   "\"content\":\"y\"}}],\"stop_reason\":\"tool_use\",\"usage\":{\"input_tokens\":5,"
			   "\"output_tokens\":2}}";
	const char *oai = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":null,"
			  "\"tool_calls\":[{\"id\":\"call_1\",\"type\":\"function\",\"function\":"
			  "{\"name\":\"run\",\"arguments\":\"{\\\"command\\\":\\\"ls\\\"}\"}}]},"
			  "\"finish_reason\":\"tool_calls\"}],\"usage\":{\"prompt_tokens\":3,"
			  "\"completion_tokens\":1}}";
	(void)state;

	memset(&r, 0, sizeof(r));
	assert_int_equal(sc_wire_anthropic.parse_ok(&r, anth, strlen(anth)), 0);
	assert_string_equal(r.text, "ok");
	calls = cJSON_Parse(r.tool_calls);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(calls, 0), "id")->valuestring, "toolu_9");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(calls, 0), "arguments")->valuestring,
			    "{\"path\":\"x\",\"content\":\"y\"}");
	cJSON_Delete(calls);
	free(r.text);
	free(r.tool_calls);
	free(r.usage_raw);
	free(r.stop_reason);

	memset(&r, 0, sizeof(r));
	assert_int_equal(sc_wire_openai.parse_ok(&r, oai, strlen(oai)), 0);
	assert_string_equal(r.text, "");
	calls = cJSON_Parse(r.tool_calls);
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(calls, 0), "name")->valuestring, "run");
	assert_string_equal(cJSON_GetObjectItem(cJSON_GetArrayItem(calls, 0), "arguments")->valuestring,
			    "{\"command\":\"ls\"}");
	assert_string_equal(r.stop_reason, "tool_calls");
	cJSON_Delete(calls);
	free(r.text);
	free(r.tool_calls);
	free(r.usage_raw);
	free(r.stop_reason);
}

/* The cache: tools and calls are part of the key; an answer that only
 * calls tools is stored with its calls under the MAC. */
static void test_cache_with_tools(void **state)
{
	struct sc_chat_request req;
	struct sc_model m;
	struct sc_chat_response r, back;
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT;
	char a[65], b[65];
	char *dir = sc_test_mkdtemp();
	(void)state;

	request(&req);
	assert_int_equal(sc_model_parse(&m, "sonnet"), 0);
	sc_cache_key(a, &m, &req, NULL);
	req.ntools = 3;
	sc_cache_key(b, &m, &req, NULL);
	assert_string_not_equal(a, b);
	req.ntools = sc_agent_ntools;
	req.tool_msgs = NULL;
	sc_cache_key(b, &m, &req, NULL);
	assert_string_not_equal(a, b);

	memset(&r, 0, sizeof(r));
	r.text = (char *)"";
	r.tool_calls = (char *)"[{\"id\":\"t\",\"name\":\"run\",\"arguments\":\"{}\"}]";
	r.input_tokens = 7;
	assert_int_equal(sc_cache_put(dir, a, &m, &r), 0);
	memset(&back, 0, sizeof(back));
	assert_int_equal(sc_cache_get(dir, a, &back), 0);
	assert_string_equal(back.text, "");
	assert_string_equal(back.tool_calls, r.tool_calls);
	free(back.text);
	free(back.tool_calls);
	/* a call rewritten in the file is a miss */
	sc_cache_path(&path, dir, a);
	assert_int_equal(sc_read_file(&data, path.ptr, 1 << 20), 0);
	{
		char *p = strstr(data.ptr, "\\\"run\\\"");
		assert_non_null(p);
		memcpy(p + 2, "xxx", 3);
	}
	assert_int_equal(sc_write_file_atomic(path.ptr, data.ptr, data.len), 0);
	memset(&back, 0, sizeof(back));
	assert_int_equal(sc_cache_get(dir, a, &back), SC_ENOTFOUND);
	sc_error_clear();
	sc_model_release(&m);
	sc_buf_release(&path);
	sc_buf_release(&data);
	sc_rm_rf(dir);
	free(dir);
}

static void test_prompt_lists_skills(void **state)
{
	struct sc_buf p = SC_BUF_INIT;
	struct sc_agent_skill s[2] = {
		{ "csv-tools", "Use <this> for CSV & TSV", "/x" },
		{ "other", "Something else", "/y" },
	};
	char h1[65], h2[65];
	(void)state;

	sc_agent_system_prompt(&p, s, 2);
	assert_non_null(strstr(p.ptr, "<available_skills>"));
	assert_non_null(strstr(p.ptr, "<name>csv-tools</name>"));
	assert_non_null(strstr(p.ptr, "<description>Use &lt;this&gt; for CSV &amp; TSV</description>"));
	assert_non_null(strstr(p.ptr, "<location>/workspace/.skills/csv-tools/SKILL.md</location>"));
	assert_non_null(strstr(p.ptr, "<name>other</name>"));
	sc_buf_clear(&p);
	sc_agent_system_prompt(&p, NULL, 0);
	assert_null(strstr(p.ptr, "<available_skills>"));  /* the baseline lists none */
	sc_agent_prompt_hash(h1);
	sc_agent_prompt_hash(h2);
	assert_string_equal(h1, h2);
	sc_buf_release(&p);
}

static void test_which_tests_run_as_agents(void **state)
{
	struct sc_test t;
	struct sc_test_verifier v;
	(void)state;

	memset(&t, 0, sizeof(t));
	memset(&v, 0, sizeof(v));
	assert_false(sc_agent_runs_test(&t, SC_AGENT_AUTO));   /* contains only: a chat */
	assert_true(sc_agent_runs_test(&t, SC_AGENT_ALWAYS));
	v.type = SC_VERIFIER_COMMAND;
	t.verifiers = &v;
	t.nverifiers = 1;
	assert_true(sc_agent_runs_test(&t, SC_AGENT_AUTO));
	assert_false(sc_agent_runs_test(&t, SC_AGENT_NEVER));
	t.nverifiers = 0;
	t.trigger = -1;
	assert_true(sc_agent_runs_test(&t, SC_AGENT_AUTO));
	t.trigger = 0;
	t.fixture = (char *)"softmax";
	assert_false(sc_agent_runs_test(&t, SC_AGENT_ALWAYS));  /* kernel tests stay chat */
}

/* An answer, as a provider would give it. */
static enum sc_agent_next answer(struct sc_agent_run *ar, const char *text, const char *calls)
{
	struct sc_chat_response r;

	memset(&r, 0, sizeof(r));
	r.text = (char *)text;
	r.tool_calls = (char *)calls;
	r.input_tokens = 11;
	r.output_tokens = 3;
	return sc_agent_on_answer(ar, &r);
}

static struct sc_agent_run *session(struct sc_test *t, int max_turns)
{
	struct sc_agent_options o;
	struct sc_agent_run *ar = NULL;
	struct sc_agent_skill s = { "demo", "A demo.", "/nonexistent" };

	sc_agent_options_init(&o);
	assert_int_equal(sc_agent_run_new(&ar, &o, t, "demo", &s, 1, "sys", "task", NULL, max_turns), 0);
	return ar;
}

/* Trigger tests are decided by the first call that opens SKILL.md, however
 * its path is written, or by an answer without one. */
static void test_trigger_detection(void **state)
{
	static const char *const opens[] = {
		"[{\"id\":\"a\",\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\".skills/demo/SKILL.md\\\"}\"}]",
		"[{\"id\":\"a\",\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"/workspace/.skills/demo/SKILL.md\\\"}\"}]",
		"[{\"id\":\"a\",\"name\":\"read_file\",\"arguments\":\"{\\\"path\\\":\\\"./.skills//demo/SKILL.md\\\"}\"}]",
		"[{\"id\":\"a\",\"name\":\"run\",\"arguments\":\"{\\\"command\\\":\\\"head -50 .skills/demo/SKILL.md\\\"}\"}]",
	};
	struct sc_test t;
	struct sc_agent_outcome o;
	struct sc_agent_run *ar;
	(void)state;

	memset(&t, 0, sizeof(t));
	t.trigger = 1;
	for (size_t i = 0; i < SC_ARRAY_SIZE(opens); i++) {
		ar = session(&t, 3);
		assert_int_equal(answer(ar, "", opens[i]), SC_AGENT_NEXT_DECIDED);
		assert_int_equal(sc_agent_verify(ar, &o), 0);
		assert_int_equal(o.verdict, SC_UNIT_PASS);
		assert_true(o.triggered);
		sc_agent_outcome_release(&o);
		sc_agent_run_free(ar);
	}
	/* another skill's SKILL.md, then an answer: not triggered */
	ar = session(&t, 3);
	assert_int_equal(answer(ar, "", "[{\"id\":\"a\",\"name\":\"read_file\",\"arguments\":"
				"\"{\\\"path\\\":\\\".skills/other/SKILL.md\\\"}\"}]"), SC_AGENT_NEXT_TOOLS);
	assert_int_equal(answer(ar, "the answer", NULL), SC_AGENT_NEXT_DECIDED);
	assert_int_equal(sc_agent_verify(ar, &o), 0);
	assert_int_equal(o.verdict, SC_UNIT_FAIL);
	assert_string_equal(o.error_class, "not_triggered");
	sc_agent_outcome_release(&o);
	sc_agent_run_free(ar);
	/* should not trigger, and opened: a false trigger */
	t.trigger = -1;
	ar = session(&t, 3);
	assert_int_equal(answer(ar, "", opens[0]), SC_AGENT_NEXT_DECIDED);
	assert_int_equal(sc_agent_verify(ar, &o), 0);
	assert_string_equal(o.error_class, "false_trigger");
	sc_agent_outcome_release(&o);
	sc_agent_run_free(ar);
}

/* The turn limit: calls pending at max_turns are not run; the answer is
 * checked as it stands, and a failure says where it stopped. */
static void test_turn_limit_and_trace(void **state)
{
	struct sc_test t;
	struct sc_agent_run *ar;
	struct sc_agent_outcome o;
	struct sc_buf tr = SC_BUF_INIT;
	char *json;
	const char *call = "[{\"id\":\"c1\",\"name\":\"write_file\",\"arguments\":"
			   "\"{\\\"path\\\":\\\"out.txt\\\",\\\"content\\\":\\\"hello\\\"}\"}]";
	(void)state;

	memset(&t, 0, sizeof(t));
	sc_strlist_add(&t.contains, "FINAL");
	ar = session(&t, 2);
	assert_int_equal(answer(ar, "step", call), SC_AGENT_NEXT_TOOLS);
	assert_int_equal(answer(ar, "again", call), SC_AGENT_NEXT_VERIFY);  /* turn 2 of 2 */
	assert_int_equal(sc_agent_run_turns(ar), 2);
	assert_int_equal(sc_agent_verify(ar, &o), 0);
	assert_int_equal(o.verdict, SC_UNIT_FAIL);
	assert_non_null(strstr(o.message, "answer lacks 'FINAL'"));
	assert_non_null(strstr(o.message, "stopped at max_turns"));
	sc_agent_outcome_release(&o);
	json = sc_agent_run_transcript(ar);
	assert_non_null(strstr(json, "\"tool_calls\""));
	assert_non_null(strstr(json, "\"input_tokens\":11"));
	/* a transcript whose calls were answered: the trace of each */
	free(json);
	json = sc_xstrdup("[{\"role\":\"user\",\"content\":\"task\"},"
			  "{\"role\":\"assistant\",\"content\":\"\",\"usage\":{\"input_tokens\":9,"
			  "\"output_tokens\":2},\"tool_calls\":[{\"id\":\"c1\",\"name\":\"write_file\","
			  "\"arguments\":\"{}\"}]},"
			  "{\"role\":\"tool\",\"name\":\"write_file\",\"arguments\":\"{\\\"path\\\":"
			  "\\\"out.txt\\\",\\\"content\\\":\\\"hello\\\"}\",\"content\":\"wrote 5 bytes\"},"
			  "{\"role\":\"assistant\",\"content\":\"done\",\"usage\":{\"input_tokens\":20,"
			  "\"output_tokens\":1}}]");
	sc_agent_trace(&tr, json, 1000);
	assert_string_equal(tr.ptr, "turn 1 (9 in, 2 out):\n- write_file(out.txt, 5 bytes) → wrote 5 "
			    "bytes\nturn 2 (20 in, 1 out): answered\nanswer: done");
	sc_buf_clear(&tr);
	sc_agent_trace(&tr, json, 20);
	assert_int_equal(strlen(tr.ptr), 20 + strlen("…"));
	sc_buf_clear(&tr);
	sc_agent_trace(&tr, "[{\"role\":\"assistant\",\"content\":\"plain\"}]", 1000);
	assert_int_equal(tr.len, 0);  /* no tool calls: no trace */
	free(json);
	sc_buf_release(&tr);
	sc_agent_run_free(ar);
	sc_strlist_release(&t.contains);
}

static void test_trigger_queries_loaded(void **state)
{
	struct sc_test_set set = SC_TEST_SET_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	char *dir = sc_test_mkdtemp(), h1[65], h2[65];
	(void)state;

	sc_test_write(dir, "evals/eval_queries.json",
		      "[\n {\"query\": \"make a csv chart\", \"should_trigger\": true},\n"
		      " {\"query\": \"\", \"should_trigger\": true},\n"
		      " {\"query\": \"weather today\", \"should_trigger\": \"no\"},\n"
		      " {\"query\": \"weather today\", \"should_trigger\": false}\n]\n");
	sc_test_write(dir, "evals/train_queries.json", "{\"not\": \"a list\"}");
	assert_int_equal(sc_tests_load_triggers(&set, dir, &d), 0);
	assert_int_equal(set.n, 2);
	assert_string_equal(set.items[0].id, "evals/eval_queries.json#0");
	assert_int_equal(set.items[0].trigger, 1);
	assert_int_equal(set.items[0].line, 2);
	assert_string_equal(set.items[1].id, "evals/eval_queries.json#3");
	assert_int_equal(set.items[1].trigger, -1);
	assert_int_equal(d.n, 3);
	assert_non_null(strstr(d.items[0].message, "[1].query"));
	assert_int_equal(d.items[0].line, 3);
	assert_non_null(strstr(d.items[1].message, "[2].should_trigger"));
	assert_non_null(strstr(d.items[2].file, "train_queries.json"));
	/* the expectation is part of the test's hash */
	sc_test_hash(h1, &set.items[1]);
	set.items[1].trigger = 1;
	sc_test_hash(h2, &set.items[1]);
	assert_string_not_equal(h1, h2);
	sc_test_set_release(&set);
	sc_diags_release(&d);
	sc_rm_rf(dir);
	free(dir);
}

/* An agent's turns grow the prompt by its tool results: the budget counts
 * max_turns requests, each with every earlier answer and result. */
static void test_budget_growth(void **state)
{
	struct sc_budget_config b;
	struct sc_budget_estimate e1, e2;
	int64_t g = sc_budget_agent_growth(8, 16384);
	(void)state;

	assert_int_equal(g, 8 * (4096 + SC_BUDGET_PROMPT_OVERHEAD));
	sc_budget_config_defaults(&b);
	sc_budget_estimate_init(&e1);
	sc_budget_estimate_init(&e2);
	sc_budget_add_unit(&e1, &b, "u", "m", "p.m", 4000, 5, 100);
	sc_budget_add_unit_growth(&e2, &b, "u", "m", "p.m", 4000, 5, 100, g);
	/* prompt 1000 + 64 tokens, 5 requests: 5 x 1064 + (100 + g) x 10 */
	assert_int_equal(e1.input_tokens, 5 * 1064 + 100 * 10);
	assert_int_equal(e2.input_tokens, 5 * 1064 + (100 + g) * 10);
	assert_int_equal(e2.output_tokens, 500);
	sc_budget_estimate_release(&e1);
	sc_budget_estimate_release(&e2);
	sc_budget_config_release(&b);
}

static void test_config_agent_and_upskill_keys(void **state)
{
	struct sc_config cfg;
	struct sc_diags d = SC_DIAGS_INIT;
	char *dir = sc_test_mkdtemp();
	(void)state;

	sc_test_write(dir, "upskill.config.yaml", "num_runs: 4\nmax_parallel: 12\n");
	sc_test_write(dir, "skillci.yml",
		      "agent:\n  mode: always\n  jobs: 8\n  max_calls: 3\n  tool_output: 4096\n"
		      "  trigger_turns: 2\n  limits:\n    command_timeout: 2.5\n    cpu: 9\n"
		      "    memory: 512\n    processes: 16\n    file_size: 4\n    workspace: 32\n"
		      "    tmp: 8\n");
	assert_int_equal(sc_config_load(&cfg, dir, NULL, &d), 0);
	assert_int_equal(d.n, 0);  /* no "unknown key" warnings */
	assert_int_equal(cfg.runs, 4);
	assert_int_equal(cfg.concurrency, 12);
	assert_int_equal(cfg.agent.mode, SC_AGENT_ALWAYS);
	assert_int_equal(cfg.agent.jobs, 8);
	assert_int_equal(cfg.agent.max_calls_per_turn, 3);
	assert_int_equal(cfg.agent.tool_output_max, 4096);
	assert_int_equal(cfg.agent.trigger_turns, 2);
	assert_int_equal(cfg.agent.jail.command_timeout_ms, 2500);
	assert_int_equal(cfg.agent.jail.cpu_s, 9);
	assert_int_equal(cfg.agent.jail.memory_bytes, 512LL << 20);
	assert_int_equal(cfg.agent.jail.processes, 16);
	assert_int_equal(cfg.agent.jail.file_bytes, 4LL << 20);
	assert_int_equal(cfg.agent.jail.workspace_bytes, 32LL << 20);
	assert_int_equal(cfg.agent.jail.tmp_bytes, 8LL << 20);
	sc_config_release(&cfg);
	/* skillci.yml wins over upskill.config.yaml; a bad mode is an error at its line */
	sc_test_write(dir, "skillci.yml", "runs: 2\nagent:\n  mode: sometimes\n");
	assert_int_equal(sc_config_load(&cfg, dir, NULL, &d), 0);
	assert_int_equal(cfg.runs, 2);
	assert_int_equal(cfg.concurrency, 12);
	assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 1);
	assert_non_null(strstr(d.items[0].message, "auto, always, never"));
	assert_int_equal(d.items[0].line, 3);
	sc_config_release(&cfg);
	sc_diags_release(&d);
	sc_rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_anthropic_tool_body),
		cmocka_unit_test(test_openai_tool_body),
		cmocka_unit_test(test_answers_with_calls),
		cmocka_unit_test(test_cache_with_tools),
		cmocka_unit_test(test_prompt_lists_skills),
		cmocka_unit_test(test_which_tests_run_as_agents),
		cmocka_unit_test(test_trigger_detection),
		cmocka_unit_test(test_turn_limit_and_trace),
		cmocka_unit_test(test_trigger_queries_loaded),
		cmocka_unit_test(test_budget_growth),
		cmocka_unit_test(test_config_agent_and_upskill_keys),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
