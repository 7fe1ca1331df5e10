/*
 * The evaluation core (see eval.h and docs/evaluation.md). Units stream
 * through one provider client: a window of units is started (each reused
 * from the store, decided at once, or its first turn queued), and every
 * unit decided makes room for the next, so a request slot never waits for
 * a batch. Multi-turn kernel tests and the optional judge submit their
 * next request from the completion callbacks; kernel answers are checked
 * on a pool of threads (workpool.h), whose results come back to the
 * client's thread through sc_client_post. Finished units are committed to
 * the store in small transactions (by count or by time, from the client's
 * tick); the run row and the aggregates at the end.
 *
 * Everything below runs on the thread that runs the client, except
 * kcheck_run() (a pool thread), which touches only its own struct kcheck.
 */
#include "common.h"
#include "agent/agent.h"
#include "eval/eval.h"
#include "eval/grader.h"
#include "eval/workpool.h"
#include "providers/provider.h"
#include "results/compare.h"
#include "results/results.h"
#include "sha256.h"
#include "skills/prompt.h"
#include "skills/skill.h"
#include "stats.h"
#include "results/store.h"
#include "skills/testsuite.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const char default_rubric[] =
	"You grade an answer to a task. Judge whether the answer is correct, complete and "
	"follows the task's instructions. Give a short reason, then on the last line write "
	"SCORE: followed by a number from 0 (useless) to 1 (fully correct).";

#define TEST_NAME_MAX 80
/* An agent unit's trace in the reports of a failure (bytes). */
#define SC_EVAL_AGENT_EXCERPT_MAX 1500
/* Threads running agent units' jails, tools and verifiers, unless the
 * config's agent.jobs says otherwise: most of their time is a command's
 * or a jail's start, so more than the cores. */
#define SC_EVAL_AGENT_JOBS 16

/* ---- prompts and checks --------------------------------------------------- */

void sc_eval_user_message(struct sc_buf *out, const struct sc_test *test)
{
	sc_buf_puts(out, test->input ? test->input : "");
	for (size_t i = 0; i < test->nfiles; i++) {
		const struct sc_test_file *f = &test->files[i];
		if (!f->content)
			continue;  /* binary: hashed, never put in a prompt */
		sc_buf_printf(out, "\n\n```%s\n%s\n```", f->name, f->content);
	}
}

void sc_eval_unit_prompt(struct sc_buf *out, const struct sc_test *test,
			 const struct sc_eval_kernel_ops *kernel)
{
	struct sc_buf fx = SC_BUF_INIT;
	size_t start = out->len;

	sc_eval_user_message(out, test);
	/* A kernel test's own input says what to write; the fixture's prompt
	 * gives the exact signature, launch geometry, tolerance and
	 * environment (the model cannot pass without them). It is added
	 * unless the input already is that prompt (as generate writes it). */
	if (test->fixture && kernel && kernel->prompt &&
	    kernel->prompt(&fx, test->fixture, kernel->payload) == 0 && fx.len &&
	    !strstr(out->ptr + start, fx.ptr))
		sc_buf_printf(out, "\n\n%s", fx.ptr);
	sc_error_clear();
	sc_buf_release(&fx);
}

/* Case-insensitive substring search (ASCII case folding, as Python's
 * lower() does for the ASCII range). */
static bool contains_ci(const char *hay, const char *needle)
{
	size_t nl = strlen(needle);

	if (nl == 0)
		return true;
	for (const char *h = hay; *h; h++) {
		size_t i = 0;
		while (i < nl && h[i] &&
		       tolower((unsigned char)h[i]) == tolower((unsigned char)needle[i]))
			i++;
		if (i == nl)
			return true;
	}
	return false;
}

bool sc_eval_contains_all(const char *answer, const char *const *contains, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!contains_ci(answer, contains[i]))
			return false;
	return true;
}

double sc_eval_parse_score(const char *reply)
{
	const char *p, *last = NULL;
	char *end;
	double v;

	for (p = reply; p && *p; p++)
		if ((*p == 'S' || *p == 's') && !strncasecmp(p, "score:", 6))
			last = p;
	if (!last)
		return NAN;
	p = last + 6;
	while (*p == ' ' || *p == '\t' || *p == '*')
		p++;
	v = strtod(p, &end);
	if (end == p || isnan(v))
		return NAN;
	if (*end == '/' && end[1] == '1' && end[2] == '0' && !isdigit((unsigned char)end[3]))
		v /= 10.0;  /* "SCORE: 7/10" */
	return v < 0.0 ? 0.0 : v > 1.0 ? 1.0 : v;
}

/* ---- planning ----------------------------------------------------------- */

static void sha_hex(char out[65], const char *s)
{
	sc_sha256_hex(out, s, strlen(s));
}

/* First line of the input, trimmed to TEST_NAME_MAX bytes on a UTF-8 boundary. */
static char *test_name(const struct sc_test *t)
{
	const char *in = t->input ? t->input : "";
	size_t n = strcspn(in, "\r\n");

	while (*in == ' ' && n) {
		in++;
		n--;
	}
	if (n > TEST_NAME_MAX) {
		n = TEST_NAME_MAX;
		while (n && ((unsigned char)in[n] & 0xC0) == 0x80)
			n--;
	}
	return sc_xstrndup(in, n);
}


/* ---- options ------------------------------------------------------------ */

void sc_eval_options_init(struct sc_eval_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->runs = 1;
	opt->baseline = true;
	opt->max_turns = 3;
	opt->temperature = -1.0;
	opt->reuse = true;
	opt->kind = SC_RUN_KIND_EVAL;
	opt->store_aggregates = true;
	opt->alpha = SC_COMPARE_DEFAULT_ALPHA;
	opt->kernel_jobs = 1;
}

/* Frees a kernel check's strings and sets its numbers to "none" (NAN, -1). */
static void kernel_result_release(struct sc_eval_kernel_result *k)
{
	free(k->message);
	free(k->compile_log);
	free(k->strong_reference);
	memset(k, 0, sizeof(*k));
	k->max_abs_error = NAN;
	k->speedup = k->strong_speedup = k->pct_of_peak = NAN;
	k->registers = -1;
}

/* ---- units --------------------------------------------------------------- */

struct ctx;

/*
 * One work unit while it is evaluated: from the moment it starts until it
 * is decided. Its results entry (ru) is moved into the results when it is
 * decided; the working state (messages, transcript) is freed then.
 */
struct unit {
	struct ctx *ctx;
	const struct sc_eval_skill *es;
	const struct sc_test *test;
	const char *model;          /* canonical name */
	bool oracle_model;
	const char *system;         /* NULL for baseline */
	char **msgs;                /* alternating user, assistant, user, ... */
	size_t nmsgs, msgs_alloc;
	char *oracle;               /* reference answer for the oracle provider */
	char *answer;               /* last answer, for the judge */
	cJSON *transcript;
	char skill_hash[65], test_hash[65], fixture_hash[65];
	char *harness;
	int64_t t0;
	bool evaluated;             /* not reused */
	bool judging;
	bool grading;               /* the grader's request is out */
	bool asked;                 /* a model answered at least once */
	bool agent_mode;            /* runs as an agent (runner/agent) */
	bool agent_final;           /* its transcript moved into transcript above */
	struct sc_agent_run *agent; /* its session */
	/* its jail starts beside the first request: until it is up, a step
	 * the answer asks for waits here (0: none) */
	enum { JAIL_STARTING, JAIL_UP, JAIL_FAILED } jail;
	int waiting;                /* AJOB_TOOLS + 1 or AJOB_VERIFY + 1 */
	int agent_jobs;             /* its steps on the pool (they point at it) */
	bool done_pending;          /* decided (an error) while a step was out */
	int64_t waiting_since;
	char *jail_msg;             /* why the jail failed */
	char *turn_msg;             /* why a turn could not be submitted (NULL: it was) */
	struct sc_results_unit ru;
};

/* An evaluated unit waiting for the next store transaction. */
struct pending {
	size_t idx;                 /* into out->units */
	const char *skill_name;     /* borrowed from its skill */
	char *transcript;
	char *harness;
	char skill_hash[65], test_hash[65], fixture_hash[65];
};

/* A kernel check handed to the pool, and its outcome. */
struct kcheck {
	struct unit *u;
	char *fixture, *answer;
	struct sc_eval_kernel_result kr;
	int err;
	char *err_msg;
};

struct ctx {
	const struct sc_eval_options *opt;
	struct sc_results *out;
	size_t units_alloc;
	const struct sc_eval_skill *skills;
	size_t nskills;
	struct sc_model *models;
	size_t nmodels;
	char (*skill_hashes)[65];   /* per skill */
	struct sc_buf *systems;     /* per skill: its system prompt */
	const struct sc_eval_unit_ref *refs;
	size_t nrefs, next;
	size_t window, active, done;
	char prompt_hash[65];
	int64_t requests, cache_hits;
	size_t reused, evaluated;
	bool any_kernel;
	/* store transactions */
	struct pending *pend;
	size_t npend, pend_alloc;
	int64_t first_pend_ms;
	int commit_units;
	int64_t commit_ms;
	/* kernel checks */
	struct sc_workpool *pool;
	size_t kernels_busy;
	/* agent runs: their options, pool, the skills' copies the jails mount */
	struct sc_agent_options agent_opt;
	struct sc_workpool *agent_pool, *start_pool;
	char *stage;                /* NULL until an agent unit needs it */
	char (*mount_names)[65];    /* per skill: its name in the jail */
	char agent_hash[65];
	/* stopping */
	bool stopping, admitting;
	int err;                    /* first fatal error, 0 when none */
	char *err_msg;
	enum sc_cause err_cause;      /* its cause (error.h), kept with it */
	int64_t last_activity_ms;
};

static void add_msg(struct unit *u, const char *role, const char *text)
{
	cJSON *m = cJSON_CreateObject();

	SC_GROW(u->msgs, u->msgs_alloc, u->nmsgs + 1);
	u->msgs[u->nmsgs++] = sc_xstrdup(text);
	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddStringToObject(m, "content", text);
	cJSON_AddItemToArray(u->transcript, m);
}

/* The provider's usage fields and stop reason, raw, on the last transcript message. */
static void add_usage(struct unit *u, const struct sc_chat_response *resp)
{
	cJSON *m = cJSON_GetArrayItem(u->transcript, cJSON_GetArraySize(u->transcript) - 1);
	cJSON *raw = resp->usage_raw ? cJSON_Parse(resp->usage_raw) : NULL;

	if (!m)
		return;
	if (raw)
		cJSON_AddItemToObject(m, "usage_raw", raw);
	if (resp->stop_reason)
		cJSON_AddStringToObject(m, "stop_reason", resp->stop_reason);
	if (resp->error_class == SC_CHAT_TRUNCATED)
		cJSON_AddTrueToObject(m, "truncated");
}

static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? sc_xstrdup(s) : NULL;
}

static void set_verdict(struct unit *u, enum sc_unit_verdict verdict, const char *error_class,
			const char *message)
{
	u->ru.verdict = verdict;
	set_str(&u->ru.error_class, error_class);
	set_str(&u->ru.message, message);
	/* what the model wrote (an agent: what it did), for the reports of a failure */
	free(u->ru.excerpt);
	u->ru.excerpt = NULL;
	if (verdict == SC_UNIT_FAIL && u->agent) {
		struct sc_buf t = SC_BUF_INIT;
		sc_agent_run_excerpt(&t, u->agent, SC_EVAL_AGENT_EXCERPT_MAX);
		u->ru.excerpt = t.len ? sc_buf_detach(&t, NULL) : sc_results_excerpt(u->answer);
		sc_buf_release(&t);
	} else if (verdict == SC_UNIT_FAIL) {
		u->ru.excerpt = sc_results_excerpt(u->answer);
	}
}

static void unit_free(struct unit *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->nmsgs; i++)
		free(u->msgs[i]);
	free(u->msgs);
	free(u->oracle);
	free(u->answer);
	free(u->harness);
	cJSON_Delete(u->transcript);
	sc_agent_run_free(u->agent);
	free(u->jail_msg);
	free(u->turn_msg);
	free(u);
}

/* Remembers the first fatal error (store, client) and stops the run. */
static void fatal(struct ctx *c, int err)
{
	if (c->err)
		return;
	c->err = err;
	c->err_msg = sc_xstrdup(sc_error_last());
	c->err_cause = sc_error_cause();
	c->stopping = true;
}

/* ---- store --------------------------------------------------------------- */

static void key_of(struct sc_store_key *k, const struct unit *u, const char *prompt_hash)
{
	k->skill_hash = u->skill_hash;
	k->test_hash = u->test_hash;
	k->fixture_hash = u->fixture_hash;
	k->model = u->model;
	k->prompt_hash = prompt_hash;
	k->harness = u->harness;
	k->run_index = (int)u->ru.run_index;
}

/* The excerpt of what the model last wrote in a stored transcript (a JSON
 * array of {role, content}), NULL when there is none. The transcript is
 * covered by the unit's MAC, which holds for every unit reused. */
static char *transcript_excerpt(const char *transcript)
{
	cJSON *a = transcript ? cJSON_Parse(transcript) : NULL;
	char *out = NULL;

	for (int i = cJSON_IsArray(a) ? cJSON_GetArraySize(a) - 1 : -1; i >= 0; i--) {
		const cJSON *m = cJSON_GetArrayItem(a, i);
		const cJSON *role = cJSON_GetObjectItemCaseSensitive(m, "role");
		const cJSON *content = cJSON_GetObjectItemCaseSensitive(m, "content");
		if (cJSON_IsString(role) && !strcmp(role->valuestring, "assistant") &&
		    cJSON_IsString(content)) {
			out = sc_results_excerpt(content->valuestring);
			break;
		}
	}
	cJSON_Delete(a);
	return out;
}

/* A stored unit's states as this version reads them; false when one is a
 * state this version does not read (the unit is then evaluated again). */
static bool stored_states(const struct sc_store_unit *su, enum sc_unit_verdict *verdict,
			  enum sc_compile *compile, enum sc_kernel_verdict *kv)
{
	*compile = SC_COMPILE_NONE;
	*kv = SC_KV_NONE;
	return sc_unit_verdict_parse(su->verdict, verdict) &&
	       (!su->compile || sc_compile_parse(su->compile, compile)) &&
	       (!su->kernel_verdict || sc_kernel_verdict_parse(su->kernel_verdict, kv));
}

/* Copies a stored unit's outcome into a results unit: a failed one keeps
 * the excerpt of its answer, as when it was evaluated (set_verdict).
 * False, ru untouched, when the stored states are not ones this version
 * reads (stored_states). */
static bool from_store(struct sc_results_unit *ru, const struct sc_store_unit *su)
{
	enum sc_unit_verdict verdict;
	enum sc_compile compile;
	enum sc_kernel_verdict kv;

	if (!stored_states(su, &verdict, &compile, &kv))
		return false;
	ru->verdict = verdict;
	set_str(&ru->error_class, su->error_class);
	set_str(&ru->message, su->message);
	ru->tokens_in = su->tokens_in;
	ru->tokens_out = su->tokens_out;
	ru->turns = su->turns;
	ru->latency_ms = su->latency_ms;
	ru->judge_score = su->judge_score;
	ru->reused = true;
	free(ru->excerpt);
	ru->excerpt = verdict == SC_UNIT_FAIL ? transcript_excerpt(su->transcript) : NULL;
	if (ru->excerpt && (ru->kind == SC_KIND_AGENT || ru->kind == SC_KIND_TRIGGER)) {
		struct sc_buf t = SC_BUF_INIT;
		sc_agent_trace(&t, su->transcript, SC_EVAL_AGENT_EXCERPT_MAX);
		if (t.len) {
			free(ru->excerpt);
			ru->excerpt = sc_buf_detach(&t, NULL);
		}
		sc_buf_release(&t);
	}
	if (ru->kernel) {
		struct sc_results_kernel *k = ru->kernel;
		k->compile = compile;
		k->verdict = kv;
		set_str(&k->compile_log, su->compile_log);
		k->max_abs_error = su->max_abs_error;
		k->registers = su->registers >= 0 ? su->registers : SC_RESULTS_NULL_INT;
		k->speedup = su->speedup;
		set_str(&k->strong_reference, su->strong_reference);
		k->strong_speedup = su->strong_speedup;
		k->pct_of_peak = su->pct_of_peak;
	}
	return true;
}

/* A borrowed view of a decided unit for sc_store_put_unit(). */
static void to_store(struct sc_store_unit *su, const struct sc_results_unit *ru,
		     const struct pending *p, const char *prompt_hash)
{
	const struct sc_results_kernel *k = ru->kernel;

	sc_store_unit_init(su);
	su->skill = ru->skill;
	su->skill_name = p->skill_name;
	su->variant = sc_variant_name(ru->variant);
	su->model = ru->model;
	su->test_id = ru->test_id;
	su->test_name = ru->test_name;
	su->run_index = (int)ru->run_index;
	su->kind = sc_unit_kind_name(ru->kind);
	su->skill_hash = p->skill_hash;
	su->test_hash = p->test_hash;
	su->fixture_hash = p->fixture_hash;
	su->prompt_hash = prompt_hash;
	su->harness = p->harness;
	su->verdict = sc_unit_verdict_name(ru->verdict);
	su->error_class = ru->error_class;
	su->message = ru->message;
	su->tokens_in = ru->tokens_in;
	su->tokens_out = ru->tokens_out;
	su->turns = (int)ru->turns;
	su->latency_ms = ru->latency_ms;
	su->judge_score = ru->judge_score;
	if (k) {
		su->fixture = k->fixture;
		su->compile = sc_compile_name(k->compile);
		su->kernel_verdict = sc_kernel_verdict_name(k->verdict);
		su->compile_log = k->compile_log;
		su->max_abs_error = k->max_abs_error;
		su->registers = k->registers == SC_RESULTS_NULL_INT ? -1 : (int)k->registers;
		su->speedup = k->speedup;
		su->strong_reference = k->strong_reference;
		su->strong_speedup = k->strong_speedup;
		su->pct_of_peak = k->pct_of_peak;
	}
	su->transcript = p->transcript;
}

static void pending_release(struct pending *p)
{
	free(p->transcript);
	free(p->harness);
}

/*
 * Commits the evaluated units waiting for it in one transaction. A store
 * that fails is fatal: the run stops (nothing more would be kept).
 */
static void flush(struct ctx *c)
{
	struct sc_store *st = c->opt->store;
	int err = 0;

	if (!c->npend)
		return;
	if (!c->err) {
		if ((err = sc_store_begin(st)) == 0) {
			for (size_t i = 0; i < c->npend && err == 0; i++) {
				struct sc_store_unit su;
				to_store(&su, &c->out->units[c->pend[i].idx], &c->pend[i], c->prompt_hash);
				err = sc_store_put_unit(st, c->out->run.id, &su);
			}
			if (err == 0)
				err = sc_store_commit(st);
			if (err < 0)
				sc_store_rollback(st);
		}
		if (err < 0)
			fatal(c, err);
	}
	for (size_t i = 0; i < c->npend; i++)
		pending_release(&c->pend[i]);
	c->npend = 0;
}

static int store_put_run(struct sc_store *st, const struct sc_results *r, const char *kind,
			 const char *results_path)
{
	struct sc_store_run run;
	struct sc_buf models = SC_BUF_INIT;
	int err;

	for (size_t i = 0; i < r->run.nmodels; i++)
		sc_buf_printf(&models, "%s%s", i ? "," : "", r->run.models[i]);
	memset(&run, 0, sizeof(run));
	run.id = r->run.id;
	run.kind = kind ? kind : sc_run_kind_name(r->run.kind);
	run.started_at = r->run.started_at;
	run.finished_at = r->run.finished_at;
	run.complete = r->run.complete;
	run.models = models.ptr;
	run.runs = (int)r->run.runs;
	run.oracle = r->run.oracle;
	run.results_path = results_path;
	run.repo = r->run.repo;
	run.head_rev = r->run.head_rev;
	err = sc_store_put_run(st, &run);
	sc_buf_release(&models);
	return err;
}

static int store_put_aggregates(struct sc_store *st, const struct sc_results *r)
{
	for (size_t i = 0; i < r->naggregates; i++) {
		const struct sc_results_aggregate *a = &r->aggregates[i];
		const struct sc_results_skill *s = sc_results_find_skill(r, a->skill);
		struct sc_store_aggregate sa;
		int err;

		sc_store_aggregate_init(&sa);
		sa.skill = a->skill;
		sa.skill_name = s ? s->name : NULL;
		sa.variant = (char *)sc_variant_name(a->variant);  /* borrowed, as the rest */
		sa.model = a->model;
		sa.n = (int)a->n;
		sa.passed = (int)a->passed;
		sa.failed = (int)a->failed;
		sa.errors = (int)a->errors;
		sa.skipped = (int)a->skipped;
		sa.pass_rate = a->pass_rate;
		sa.ci_low = a->ci_low;
		sa.ci_high = a->ci_high;
		sa.mean_tokens = a->mean_tokens;
		sa.mean_turns = a->mean_turns;
		sa.speedup_geomean = a->speedup_geomean;
		sa.strong_speedup_geomean = a->strong_speedup_geomean;
		sa.fast_1 = a->fast_1;
		sa.fast_1_5 = a->fast_1_5;
		sa.fast_2 = a->fast_2;
		sa.judge_mean = a->judge_mean;
		if ((err = sc_store_put_aggregate(st, r->run.id, &sa)) < 0)
			return err;
	}
	return 0;
}

/* ---- the life of a unit -------------------------------------------------- */

static void admit(struct ctx *c);

static void report_activity(struct ctx *c)
{
	struct sc_eval_activity a;

	if (!c->opt->activity)
		return;
	a.done = c->done;
	a.total = c->nrefs;
	a.active = c->active;
	a.kernels_busy = c->kernels_busy;
	a.requests_in_flight = c->opt->client ? sc_client_in_flight(c->opt->client) : 0;
	a.reused = c->reused;
	a.cache_hits = c->cache_hits;
	a.requests = c->requests;
	c->last_activity_ms = sc_now_ms();
	c->opt->activity(&a, c->opt->payload);
}

/*
 * A unit is decided: its results entry joins the results, an evaluated one
 * waits for the next store transaction (committed now when enough wait),
 * and its working state is freed. Runs on the request loop's thread.
 */
static void unit_done(struct unit *u)
{
	struct ctx *c = u->ctx;
	struct sc_results *out = c->out;
	const struct sc_eval_options *opt = c->opt;
	size_t idx;

	if (u->agent_jobs) {
		/* an agent step on the pool points at it: done when it is back */
		u->done_pending = true;
		return;
	}
	if (u->evaluated)
		u->ru.latency_ms = sc_now_ms() - u->t0;
	/* equal strings of many units are kept once (results.h) */
	sc_results_pool_unit(out, &u->ru);
	SC_GROW(out->units, c->units_alloc, out->nunits + 1);
	idx = out->nunits++;
	out->units[idx] = u->ru;
	out->sorted = false;
	c->done++;
	if (u->ru.reused)
		c->reused++;
	else
		c->evaluated++;
	if (u->evaluated && opt->store) {
		struct pending *p;
		SC_GROW(c->pend, c->pend_alloc, c->npend + 1);
		p = &c->pend[c->npend++];
		p->idx = idx;
		p->skill_name = u->es->skill->name;
		/* an agent's own transcript, when it ended before its verdict took it */
		p->transcript = u->agent && !u->agent_final ? sc_agent_run_transcript(u->agent)
			       : cJSON_PrintUnformatted(u->transcript);
		p->harness = u->harness;
		u->harness = NULL;
		memcpy(p->skill_hash, u->skill_hash, sizeof(p->skill_hash));
		memcpy(p->test_hash, u->test_hash, sizeof(p->test_hash));
		memcpy(p->fixture_hash, u->fixture_hash, sizeof(p->fixture_hash));
		if (c->npend == 1)
			c->first_pend_ms = sc_now_ms();
		if (c->npend >= (size_t)c->commit_units)
			flush(c);
	}
	if (opt->progress) {
		const struct sc_results_unit *ru = &out->units[idx];
		opt->progress(c->done, c->nrefs, ru->skill, ru->variant, ru->model, ru->test_name,
			      ru->verdict, ru->reused, opt->payload);
	}
	if (u->evaluated)
		c->active--;
	unit_free(u);
	if (sc_now_ms() - c->last_activity_ms >= 100)
		report_activity(c);
}

/* A unit started but taken back before anything was decided (a stop):
 * left out of the results, asked again by the next run. */
static void unit_drop(struct unit *u)
{
	struct ctx *c = u->ctx;

	c->active--;
	sc_results_unit_release(&u->ru);
	unit_free(u);
}

static const char *chat_error_class(enum sc_chat_error e)
{
	switch (e) {
	case SC_CHAT_RATE_LIMITED: return "rate_limited";
	case SC_CHAT_TRUNCATED: return "truncated";
	case SC_CHAT_QUOTA: return "quota";
	case SC_CHAT_NETWORK:
	case SC_CHAT_TIMEOUT: return "network";
	default: return "provider";
	}
}

static int submit_turn(struct unit *u);
static int submit_judge(struct unit *u);
static int submit_grader(struct unit *u);
static void grader_request(struct sc_chat_request *req, const struct sc_eval_options *opt);

/* Starts the judge when one is configured and the verdict is not an error;
 * otherwise the unit is done. */
static void after_verdict(struct unit *u)
{
	const struct sc_eval_options *opt = u->ctx->opt;

	if (opt->judge_model && u->ru.verdict != SC_UNIT_ERROR && u->answer) {
		if (submit_judge(u) == 0)
			return;
		/* the judge could not even be asked: the score stays null */
	}
	unit_done(u);
}

/* Maps the kernel harness's verdict to the unit's verdict and error class. */
static enum sc_unit_verdict kernel_verdict(enum sc_kernel_verdict kv, const char **error_class)
{
	*error_class = NULL;
	switch (kv) {
	case SC_KV_PASSED:
		return SC_UNIT_PASS;
	case SC_KV_COMPILED:
		return SC_UNIT_SKIPPED;
	case SC_KV_COMPILE_FAILED:
	case SC_KV_REFUSED:
		*error_class = "compile_error";
		break;
	case SC_KV_MISMATCH:
		*error_class = "mismatch";
		break;
	case SC_KV_TIMEOUT:
		*error_class = "timeout";
		break;
	case SC_KV_CRASHED:
		*error_class = "crash";
		break;
	case SC_KV_NO_CODE:
		*error_class = "no_code";
		break;
	case SC_KV_NONE:
		*error_class = "wrong_answer";
		break;
	}
	return SC_UNIT_FAIL;
}

/*
 * What the harness said about a kernel answer (err < 0: it could not
 * check, err_msg says why). On a failure with turns left, the harness's
 * message goes back to the model as the next user turn, into the queue.
 */
static void kernel_checked(struct unit *u, const struct sc_eval_kernel_result *kr, int err,
			   const char *err_msg)
{
	struct sc_results_kernel *k = u->ru.kernel;
	enum sc_unit_verdict verdict;
	const char *cls;

	if (err < 0) {
		set_verdict(u, SC_UNIT_ERROR, "gpu", err_msg);
		after_verdict(u);
		return;
	}
	k->verdict = kr->verdict != SC_KV_NONE ? kr->verdict : SC_KV_NO_CODE;
	k->compile = kr->compiled ? SC_COMPILE_OK : SC_COMPILE_FAILED;
	set_str(&k->compile_log, kr->compile_log);
	k->max_abs_error = kr->max_abs_error;
	k->registers = kr->registers >= 0 ? kr->registers : SC_RESULTS_NULL_INT;
	k->speedup = kr->speedup;
	set_str(&k->strong_reference, kr->strong_reference);
	k->strong_speedup = kr->strong_speedup;
	k->pct_of_peak = kr->pct_of_peak;
	verdict = kernel_verdict(k->verdict, &cls);
	if (verdict == SC_UNIT_FAIL && (int)u->ru.turns < u->ctx->opt->max_turns) {
		struct sc_buf next = SC_BUF_INIT;
		sc_buf_printf(&next, "Your kernel did not pass the check (%s).\n\n%s\n\n"
			      "Fix the problem and reply with the complete corrected kernel.",
			      sc_kernel_verdict_name(k->verdict), kr->message ? kr->message : "");
		add_msg(u, "user", next.ptr);
		sc_buf_release(&next);
		if (submit_turn(u) == 0)
			return;
		set_verdict(u, SC_UNIT_ERROR, "provider", sc_error_last());
		unit_done(u);
		return;
	}
	if (verdict == SC_UNIT_SKIPPED)
		set_verdict(u, verdict, NULL, kr->message ? kr->message
			    : "compile-only: no GPU, correctness and speed not checked");
	else
		set_verdict(u, verdict, cls, kr->message);
	after_verdict(u);
}

static void kcheck_done(void *payload);

/* On a pool thread: runs the check, then hands it back to the loop. */
static void kcheck_run(void *payload)
{
	struct kcheck *kc = payload;
	const struct sc_eval_kernel_ops *ops = kc->u->ctx->opt->kernel;

	kc->err = ops->check(&kc->kr, kc->fixture, kc->answer, ops->payload);
	if (kc->err < 0)
		kc->err_msg = sc_xstrdup(sc_error_last());
	sc_client_post(kc->u->ctx->opt->client, kcheck_done, kc);
}

/* On the loop's thread: the check is back. */
static void kcheck_done(void *payload)
{
	struct kcheck *kc = payload;
	struct unit *u = kc->u;
	struct ctx *c = u->ctx;

	c->kernels_busy--;
	kernel_checked(u, &kc->kr, kc->err, kc->err_msg);
	kernel_result_release(&kc->kr);
	free(kc->fixture);
	free(kc->answer);
	free(kc->err_msg);
	free(kc);
	admit(c);
}

/* Sends a kernel answer to the pool of checks; the request loop goes on. */
static void check_kernel(struct unit *u, const char *answer)
{
	struct ctx *c = u->ctx;
	struct kcheck *kc;
	int err;

	if (!c->pool && (err = sc_workpool_new(&c->pool, c->opt->kernel_jobs)) < 0) {
		set_verdict(u, SC_UNIT_ERROR, "gpu", sc_error_last());
		after_verdict(u);
		return;
	}
	kc = sc_xcalloc(1, sizeof(*kc));
	kc->u = u;
	kc->fixture = sc_xstrdup(u->test->fixture);
	kc->answer = sc_xstrdup(answer);
	kernel_result_release(&kc->kr);  /* NAN and -1 for absent numbers */
	c->kernels_busy++;
	sc_client_expect(c->opt->client);
	sc_workpool_push(c->pool, kcheck_run, kc);
}

/*
 * The answer met the test's "contains" strings; what else the test names
 * decides the unit. Workspace verifiers need the workspace an agent run
 * leaves: in a chat unit they cannot be checked, so the unit is
 * unverified (needs_agent). Expectations and an expected_output need the
 * grader: asked when one is configured (returns true: on_grader decides),
 * else the unit is unverified (no_grader). Otherwise it passes. Never a
 * pass for a check that was not made.
 */
static bool decide_beyond_answer(struct unit *u)
{
	const struct sc_eval_options *opt = u->ctx->opt;
	const struct sc_test *t = u->test;

	if (sc_test_has_workspace_verifier(t)) {
		struct sc_buf msg = SC_BUF_INIT;
		const struct sc_test_verifier *v = NULL;
		for (size_t i = 0; i < t->nverifiers && !v; i++)
			if (t->verifiers[i].type != SC_VERIFIER_CONTAINS)
				v = &t->verifiers[i];
		sc_buf_printf(&msg, "the test's %s verifier checks the workspace an agent run leaves "
			      "behind; this unit ran as one chat request, so it was not checked: run "
			      "the test as an agent", sc_verifier_type_name(v->type));
		set_verdict(u, SC_UNIT_UNVERIFIED, "needs_agent", msg.ptr);
		sc_buf_release(&msg);
		return false;
	}
	if (sc_test_needs_grader(t)) {
		if (!opt->grader_model) {
			set_verdict(u, SC_UNIT_UNVERIFIED, "no_grader",
				    "the test's expectations are statements a grader model judges, and "
				    "no grader is configured: set grader.model in the trusted config "
				    "(skillci.yml; `skillci eval --grader MODEL`)");
			return false;
		}
		if (submit_grader(u) == 0)
			return true;
		set_verdict(u, SC_UNIT_ERROR, "grader", sc_error_last());
		return false;
	}
	set_verdict(u, SC_UNIT_PASS, NULL, NULL);
	return false;
}

/* The grader's reply: each statement passed or failed with its evidence,
 * recorded in the transcript; the unit passes when every one passed. */
static void on_grader(struct sc_chat_response *resp, void *payload)
{
	struct unit *u = payload;
	struct ctx *c = u->ctx;
	struct sc_grading g;
	cJSON *m, *items;

	u->grading = false;
	if (resp->error_class == SC_CHAT_CANCELLED) {
		unit_drop(u);
		return;
	}
	if (resp->from_cache)
		c->cache_hits++;
	else if (resp->attempts > 0)
		c->requests++;
	if (resp->error_class != SC_CHAT_OK || !resp->text) {
		struct sc_buf msg = SC_BUF_INIT;
		sc_buf_printf(&msg, "the grader could not be asked: %s",
			      resp->error ? resp->error : sc_chat_error_name(resp->error_class));
		set_verdict(u, SC_UNIT_ERROR, "grader", msg.ptr);
		sc_buf_release(&msg);
		unit_done(u);
		admit(c);
		return;
	}
	m = cJSON_CreateObject();
	cJSON_AddStringToObject(m, "role", "grader");
	cJSON_AddStringToObject(m, "model", c->opt->grader_model);
	cJSON_AddStringToObject(m, "content", resp->text);
	cJSON_AddItemToArray(u->transcript, m);
	if (sc_grader_parse(&g, resp->text, u->test, u->answer) < 0) {
		set_verdict(u, SC_UNIT_ERROR, "grader", sc_error_last());
		sc_error_clear();
	} else {
		struct sc_buf msg = SC_BUF_INIT;
		items = cJSON_AddArrayToObject(m, "expectations");
		for (size_t i = 0; i < g.n; i++) {
			cJSON *it = cJSON_CreateObject();
			cJSON_AddStringToObject(it, "text", g.items[i].text);
			cJSON_AddBoolToObject(it, "passed", g.items[i].passed);
			cJSON_AddStringToObject(it, "evidence", g.items[i].evidence);
			if (g.items[i].unquoted)
				cJSON_AddTrueToObject(it, "evidence_not_in_answer");
			cJSON_AddItemToArray(items, it);
		}
		sc_grading_summary(&msg, &g);
		if (g.passed == g.n)
			set_verdict(u, SC_UNIT_PASS, NULL, msg.ptr);
		else
			set_verdict(u, SC_UNIT_FAIL, "expectation_failed", msg.ptr);
		sc_buf_release(&msg);
		sc_grading_release(&g);
	}
	after_verdict(u);
	admit(c);
}

/* Asks the grader about u's answer (grader.h): fixed instructions, the
 * test's statements, the answer quoted as data. */
static int submit_grader(struct unit *u)
{
	const struct sc_eval_options *opt = u->ctx->opt;
	struct sc_buf prompt = SC_BUF_INIT, oracle = SC_BUF_INIT;
	struct sc_chat_message m;
	struct sc_chat_request req;
	int err;

	sc_grader_prompt(&prompt, u->test, u->answer);
	sc_grader_oracle_reply(&oracle, u->test, u->answer);
	grader_request(&req, opt);
	m.role = SC_CHAT_USER;
	m.content = prompt.ptr;
	req.messages = &m;
	req.nmessages = 1;
	req.label = u->ru.test_name;
	req.oracle_answer = oracle.ptr;
	u->grading = true;
	err = sc_client_submit(opt->client, &req, on_grader, u);
	if (err < 0)
		u->grading = false;
	sc_buf_release(&prompt);
	sc_buf_release(&oracle);
	return err;
}

/* ---- agent units (runner/agent) ------------------------------------------ */

/* An agent unit's blocking step, run on the agent pool, and its outcome. */
enum ajob_kind { AJOB_START, AJOB_TOOLS, AJOB_VERIFY };

struct ajob {
	struct unit *u;
	enum ajob_kind kind;
	int err;
	char *msg;
	struct sc_agent_outcome out;
};

static void ajob_done(void *payload);
static int submit_agent_turn(struct unit *u);
static void on_chat(struct sc_chat_response *resp, void *payload);

/* On a pool thread: the step, then back to the loop. */
static void ajob_run(void *payload)
{
	struct ajob *j = payload;
	struct sc_agent_run *ar = j->u->agent;

	if (j->kind == AJOB_START)
		j->err = sc_agent_run_start(ar);
	else if (j->kind == AJOB_TOOLS)
		j->err = sc_agent_run_tools(ar);
	else
		j->err = sc_agent_verify(ar, &j->out);
	if (j->err < 0)
		j->msg = sc_xstrdup(sc_error_last());
	sc_client_post(j->u->ctx->opt->client, ajob_done, j);
}

/* Hands a unit's next blocking step to the agent pool; the requests go on. */
static void agent_push(struct unit *u, enum ajob_kind kind)
{
	struct ctx *c = u->ctx;
	struct ajob *j;
	int err;

	if (!c->agent_pool) {
		/* steps (tools, verifiers) and jails' starts on threads of their
		 * own: a unit's next turn waits on its step, never behind starts.
		 * Half as many starters as steps: a start waits on bubblewrap
		 * and the kernel more than it computes, and at 64 agents in
		 * flight with 100 ms turns fewer starters left most first
		 * answers waiting for their jails (docs/evaluation.md) */
		int n = c->agent_opt.jobs > 0 ? c->agent_opt.jobs : SC_EVAL_AGENT_JOBS;
		if ((err = sc_workpool_new(&c->agent_pool, n)) < 0 ||
		    (err = sc_workpool_new(&c->start_pool, n / 2 > 2 ? n / 2 : 2)) < 0) {
			set_verdict(u, SC_UNIT_ERROR, "jail", sc_error_last());
			unit_done(u);
			return;
		}
	}
	j = sc_xcalloc(1, sizeof(*j));
	j->u = u;
	j->kind = kind;
	u->agent_jobs++;
	sc_client_expect(c->opt->client);
	sc_workpool_push(kind == AJOB_START ? c->start_pool : c->agent_pool, ajob_run, j);
}

/* An agent's verdict: the outcome, then (for a pass with expectations)
 * the grader, then the judge. */
static void agent_decided(struct unit *u, const struct sc_agent_outcome *o)
{
	char *t = sc_agent_run_transcript(u->agent);

	if (u->turn_msg)
		set_verdict(u, SC_UNIT_ERROR, "provider", u->turn_msg);
	else
		set_verdict(u, o->verdict, o->error_class, o->message);
	cJSON_Delete(u->transcript);
	u->transcript = cJSON_Parse(t);
	if (!u->transcript)
		u->transcript = cJSON_CreateArray();
	u->agent_final = true;
	free(t);
	free(u->answer);
	u->answer = sc_xstrdup(sc_agent_run_answer(u->agent));
	if (!u->turn_msg && o->verdict == SC_UNIT_PASS && !u->test->trigger &&
	    sc_test_needs_grader(u->test)) {
		if (!u->ctx->opt->grader_model) {
			set_verdict(u, SC_UNIT_UNVERIFIED, "no_grader",
				    "the test's expectations are statements a grader model judges, and "
				    "no grader is configured: set grader.model in the trusted config "
				    "(skillci.yml; `skillci eval --grader MODEL`)");
		} else if (submit_grader(u) == 0) {
			return;  /* on_grader decides */
		} else {
			set_verdict(u, SC_UNIT_ERROR, "grader", sc_error_last());
		}
	}
	after_verdict(u);
}

/*
 * The jail is up or failed (the START step is back): the step an early
 * answer asked for runs now; a jail that failed makes the unit an error
 * once no request of it is out.
 */
static void agent_jail_ready(struct unit *u, int err, const char *msg)
{
	u->jail = err < 0 ? JAIL_FAILED : JAIL_UP;
	if (err < 0)
		u->jail_msg = sc_xstrdup(msg ? msg : "jail unavailable");
	/* the jail's start, and how long an answer that came first waited for it */
	sc_trace("agent", "jail %lld ms wait %lld ms: %s", (long long)sc_agent_run_jail_ms(u->agent),
		 (long long)(u->waiting ? sc_now_ms() - u->waiting_since : 0), u->ru.test_name);
	if (u->waiting || u->turn_msg) {
		int step = u->waiting - 1;
		u->waiting = 0;
		if (u->jail == JAIL_FAILED || u->turn_msg) {
			set_verdict(u, SC_UNIT_ERROR, u->jail == JAIL_FAILED ? "jail" : "provider",
				    u->jail == JAIL_FAILED ? u->jail_msg : u->turn_msg);
			unit_done(u);
		} else {
			agent_push(u, (enum ajob_kind)step);
		}
	}
}

/* On the loop's thread: a step is back. */
static void ajob_done(void *payload)
{
	struct ajob *j = payload;
	struct unit *u = j->u;
	struct ctx *c = u->ctx;

	u->agent_jobs--;
	if (u->done_pending) {
		/* its request failed while the jail started: the verdict is set */
		unit_done(u);
	} else if (j->kind == AJOB_START) {
		agent_jail_ready(u, j->err, j->msg);
	} else if (j->kind == AJOB_VERIFY) {
		agent_decided(u, &j->out);
	} else if (j->err < 0) {
		agent_push(u, AJOB_VERIFY);  /* the outcome says the jail failed */
	} else if (submit_agent_turn(u) < 0) {
		u->turn_msg = sc_xstrdup(sc_error_last());
		agent_push(u, AJOB_VERIFY);  /* ends the jail; the unit is an error */
	}
	sc_agent_outcome_release(&j->out);
	free(j->msg);
	free(j);
	admit(c);
}

/* One answer of an agent: run its tools, or check it (once its jail is up). */
static void agent_answer(struct unit *u, const struct sc_chat_response *resp)
{
	enum sc_agent_next next = sc_agent_on_answer(u->agent, resp);
	enum ajob_kind step = next == SC_AGENT_NEXT_TOOLS ? AJOB_TOOLS : AJOB_VERIFY;

	if (u->jail == JAIL_UP) {
		agent_push(u, step);
	} else if (u->jail == JAIL_FAILED) {
		set_verdict(u, SC_UNIT_ERROR, "jail", u->jail_msg);
		unit_done(u);
	} else {
		u->waiting = (int)step + 1;
		u->waiting_since = sc_now_ms();
	}
}

/* The mount name of skill s: its name when it is a safe one, else "skill-N". */
static void mount_name(char out[65], const struct sc_skill *sk, size_t s)
{
	const char *n = sk->name ? sk->name : sk->folder_name;
	bool ok = n && *n && strlen(n) <= 64 && *n != '.';

	for (const char *p = n; ok && *p; p++)
		ok = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '-' || *p == '_';
	if (ok)
		snprintf(out, 65, "%s", n);
	else
		snprintf(out, 65, "skill-%zu", s);
}

/*
 * A new agent session for u: the skills listed (none for the baseline;
 * else this variant and the run's other skills, one per name), the
 * prompt, the first user message (the input, and the files staged).
 */
static int agent_new(struct unit *u, size_t skill, bool baseline, int max_turns)
{
	struct ctx *c = u->ctx;
	struct sc_agent_skill *listed = sc_xcalloc(c->nskills + 1, sizeof(*listed));
	struct sc_buf sys = SC_BUF_INIT, user = SC_BUF_INIT, *dirs;
	const struct sc_eval_skill *es = &c->skills[skill];
	size_t n = 0;
	int err;

	dirs = sc_xcalloc(c->nskills + 1, sizeof(*dirs));
	for (size_t k = 0; !baseline && k <= c->nskills; k++) {
		/* k == 0: this skill; then the others, by name, each once */
		size_t s = k == 0 ? skill : k - 1;
		bool seen = false;
		if (k > 0 && (s == skill || !c->skills[s].skill))
			continue;
		for (size_t i = 0; i < n; i++)
			seen |= !strcmp(listed[i].name, c->mount_names[s]);
		if (seen)
			continue;
		sc_buf_init(&dirs[n]);
		sc_buf_printf(&dirs[n], "%s/%zu", c->stage, s);
		listed[n].name = c->mount_names[s];
		listed[n].description = c->skills[s].skill->description;
		listed[n].stage_dir = dirs[n].ptr;
		n++;
	}
	sc_agent_system_prompt(&sys, listed, n);
	sc_buf_puts(&user, u->test->input ? u->test->input : "");
	for (size_t i = 0; i < u->test->nfiles; i++)
		sc_buf_printf(&user, "%s%s", i ? ", " : "\n\nFiles in the workspace: ",
			      u->test->files[i].name);
	err = sc_agent_run_new(&u->agent, &c->agent_opt, u->test, baseline ? NULL
			       : c->mount_names[skill], listed, n, sys.ptr, user.ptr,
			       es->tests_dir ? es->tests_dir : es->skill->dir, max_turns);
	add_msg(u, "user", user.ptr);  /* the task, as the judge is shown it */
	for (size_t i = 0; i < n; i++)
		sc_buf_release(&dirs[i]);
	free(dirs);
	free(listed);
	sc_buf_release(&sys);
	sc_buf_release(&user);
	return err;
}

/*
 * The copies of the run's skills that the jails mount read-only (made
 * once, the first time an agent unit starts). Returns 0 or the error
 * ("jail unavailable" when no folder the jail can read exists).
 */
static int agent_stage(struct ctx *c)
{
	struct sc_buf stage = SC_BUF_INIT, dir = SC_BUF_INIT;
	int err;

	if (c->stage)
		return 0;
	if ((err = sc_jail_stage_dir(&stage)) < 0)
		return err;
	for (size_t s = 0; s < c->nskills && err == 0; s++) {
		const struct sc_skill *sk = c->skills[s].skill;
		if (!sk)
			continue;
		sc_buf_clear(&dir);
		sc_buf_printf(&dir, "%s/%zu", stage.ptr, s);
		err = sc_agent_stage_skill(dir.ptr, c->mount_names[s], sk->dir, sk->files, sk->nfiles);
	}
	if (err < 0) {
		sc_rm_rf(stage.ptr);
		sc_buf_release(&stage);
	} else {
		c->stage = sc_buf_detach(&stage, NULL);
	}
	sc_buf_release(&dir);
	return err;
}

/*
 * Starts an agent unit: its session, its first turn (which needs no
 * jail) into the client's queue, and its jail on the pool beside it, so
 * the jail's start costs the unit no time when it is up before the first
 * answer. A jail that cannot run makes the unit an error (the probe
 * says so before any request); nothing runs outside one.
 */
static void agent_start(struct unit *u, const struct sc_eval_unit_ref *ref)
{
	struct ctx *c = u->ctx;
	int err;

	if ((err = sc_jail_probe()) < 0 || (err = agent_stage(c)) < 0 ||
	    (err = agent_new(u, ref->skill, ref->baseline, c->opt->max_turns)) < 0) {
		set_verdict(u, SC_UNIT_ERROR, "jail", sc_error_last());
		unit_done(u);
		return;
	}
	u->jail = JAIL_STARTING;
	if (submit_agent_turn(u) < 0)
		u->turn_msg = sc_xstrdup(sc_error_last());  /* decided when the start is back */
	agent_push(u, AJOB_START);
}

static int submit_agent_turn(struct unit *u)
{
	const struct sc_eval_options *opt = u->ctx->opt;
	struct sc_chat_request req;

	memset(&req, 0, sizeof(req));
	sc_agent_run_request(u->agent, &req);
	if (!u->ru.turns)  /* the unit's start to its first request */
		sc_trace("agent", "ready %lld ms: %s", (long long)sc_agent_run_ready_ms(u->agent),
			 u->ru.test_name);
	req.model = u->model;
	req.max_tokens = opt->max_tokens;
	req.temperature = opt->temperature;
	req.run_index = (int)u->ru.run_index;
	req.oracle_answer = u->oracle;
	req.label = u->ru.test_name;
	return sc_client_submit(opt->client, &req, on_chat, u);
}

/* The completion of one model turn. */
static void on_chat(struct sc_chat_response *resp, void *payload)
{
	struct unit *u = payload;
	struct ctx *c = u->ctx;

	if (resp->error_class == SC_CHAT_CANCELLED) {
		unit_drop(u);
		return;
	}
	if (resp->from_cache)
		c->cache_hits++;
	else if (resp->attempts > 0)
		c->requests++;  /* sent over HTTP (an offline miss sends nothing) */
	if (resp->error_class == SC_CHAT_TRUNCATED || resp->error_class == SC_CHAT_PROMPT_TOO_LONG) {
		/* An answer cut at the output limit, or a prompt over the model's
		 * context: what this side's skill made of the request, an
		 * outcome of the side (a failed test), never missing data
		 * (docs/evaluation.md, "Answers the skill caused") */
		bool cut = resp->error_class == SC_CHAT_TRUNCATED;
		if (cut && resp->text) {
			add_msg(u, "assistant", resp->text);
			add_usage(u, resp);
			u->ru.tokens_in += resp->input_tokens + resp->cache_read_tokens +
					   resp->cache_creation_tokens;
			u->ru.tokens_out += resp->output_tokens;
			u->ru.turns++;
			free(u->answer);
			u->answer = sc_xstrdup(resp->text);
		}
		u->asked = true;
		set_verdict(u, SC_UNIT_FAIL, cut ? "truncated" : "prompt_too_long",
			    resp->error ? resp->error : sc_chat_error_name(resp->error_class));
		unit_done(u);
		admit(c);
		return;
	}
	if (resp->error_class != SC_CHAT_OK || !resp->text) {
		set_verdict(u, SC_UNIT_ERROR, chat_error_class(resp->error_class),
			    resp->error ? resp->error : sc_chat_error_name(resp->error_class));
		unit_done(u);
		admit(c);
		return;
	}
	u->asked = true;
	u->ru.turns++;
	u->ru.tokens_in += resp->input_tokens + resp->cache_read_tokens + resp->cache_creation_tokens;
	u->ru.tokens_out += resp->output_tokens;
	if (u->agent) {
		agent_answer(u, resp);
		return;
	}
	add_msg(u, "assistant", resp->text);
	add_usage(u, resp);
	free(u->answer);
	u->answer = sc_xstrdup(resp->text);
	if (u->test->fixture) {
		check_kernel(u, resp->text);
		return;
	}
	if (sc_eval_contains_all(resp->text, (const char *const *)u->test->contains.items,
				 u->test->contains.n)) {
		if (decide_beyond_answer(u))
			return;  /* the grader was asked; on_grader decides */
	} else {
		struct sc_buf msg = SC_BUF_INIT;
		for (size_t i = 0; i < u->test->contains.n; i++)
			if (!contains_ci(resp->text, u->test->contains.items[i])) {
				sc_buf_printf(&msg, "answer lacks '%s'", u->test->contains.items[i]);
				break;
			}
		set_verdict(u, SC_UNIT_FAIL, "wrong_answer", msg.ptr);
		sc_buf_release(&msg);
	}
	after_verdict(u);
	admit(c);
}

static void on_judge(struct sc_chat_response *resp, void *payload)
{
	struct unit *u = payload;
	struct ctx *c = u->ctx;

	if (resp->from_cache)
		c->cache_hits++;
	else if (resp->attempts > 0)
		c->requests++;  /* sent over HTTP (an offline miss sends nothing) */
	if (resp->error_class == SC_CHAT_OK && resp->text)
		u->ru.judge_score = sc_eval_parse_score(resp->text);
	unit_done(u);
	admit(c);
}

/* The judge's request but its prompt, for the request and for check_judge(). */
static void judge_request(struct sc_chat_request *req, const struct sc_eval_options *opt)
{
	memset(req, 0, sizeof(*req));
	req->model = opt->judge_model;
	req->system = opt->judge_rubric ? opt->judge_rubric : default_rubric;
	req->max_tokens = 1024;
	req->temperature = 0.0;
	req->temperature_optional = true;  /* left out where the judge model takes none */
	req->oracle_answer = "SCORE: 1";
}

/* The grader's request but its prompt (grader.h). */
static void grader_request(struct sc_chat_request *req, const struct sc_eval_options *opt)
{
	memset(req, 0, sizeof(*req));
	req->model = opt->grader_model;
	req->system = sc_grader_system();
	req->max_tokens = 2048;
	req->temperature = 0.0;
	req->temperature_optional = true;
	req->oracle_answer = "{\"expectations\": []}";
}

/* A grader model that cannot take the grader's request is refused before
 * any unit runs, as the judge is. */
static int check_grader(const struct sc_eval_options *opt)
{
	struct sc_chat_request req;
	struct sc_request_shape sh;
	struct sc_model m;
	int err;

	if (!opt->grader_model)
		return 0;
	grader_request(&req, opt);
	if ((err = sc_model_parse(&m, opt->grader_model)) < 0)
		return sc_error_wrap(err, "grader");
	err = sc_model_shape(&sh, &m, &req);
	sc_model_release(&m);
	return err < 0 ? sc_error_wrap(err, "grader") : 0;
}

/* A judge model that cannot take the judge's request is refused before any unit runs. */
static int check_judge(const struct sc_eval_options *opt)
{
	struct sc_chat_request req;
	struct sc_request_shape sh;
	struct sc_model m;
	int err;

	if (!opt->judge_model)
		return 0;
	judge_request(&req, opt);
	if ((err = sc_model_parse(&m, opt->judge_model)) < 0)
		return sc_error_wrap(err, "judge");
	err = sc_model_shape(&sh, &m, &req);
	sc_model_release(&m);
	return err < 0 ? sc_error_wrap(err, "judge") : 0;
}

static int submit_turn(struct unit *u)
{
	const struct sc_eval_options *opt = u->ctx->opt;
	struct sc_chat_message *m = sc_xcalloc(u->nmsgs, sizeof(*m));
	struct sc_chat_request req;
	int err;

	for (size_t i = 0; i < u->nmsgs; i++) {
		m[i].role = i % 2 ? SC_CHAT_ASSISTANT : SC_CHAT_USER;
		m[i].content = u->msgs[i];
	}
	memset(&req, 0, sizeof(req));
	req.model = u->model;
	req.system = u->system;
	req.messages = m;
	req.nmessages = u->nmsgs;
	req.max_tokens = opt->max_tokens;
	req.temperature = opt->temperature;
	req.run_index = (int)u->ru.run_index;
	req.oracle_answer = u->oracle;
	req.label = u->ru.test_name;
	err = sc_client_submit(opt->client, &req, on_chat, u);
	free(m);
	return err;
}

static int submit_judge(struct unit *u)
{
	const struct sc_eval_options *opt = u->ctx->opt;
	struct sc_buf prompt = SC_BUF_INIT;
	struct sc_chat_message m;
	struct sc_chat_request req;
	int err;

	sc_buf_printf(&prompt, "Task:\n%s\n\nAnswer:\n%s\n", u->msgs[0], u->answer);
	if (u->test->expectations.n) {
		sc_buf_puts(&prompt, "\nExpectations:\n");
		for (size_t i = 0; i < u->test->expectations.n; i++)
			sc_buf_printf(&prompt, "- %s\n", u->test->expectations.items[i]);
	}
	m.role = SC_CHAT_USER;
	m.content = prompt.ptr;
	judge_request(&req, opt);
	req.messages = &m;
	req.nmessages = 1;
	req.label = u->ru.test_name;
	u->judging = true;
	err = sc_client_submit(opt->client, &req, on_judge, u);
	sc_buf_release(&prompt);
	return err;
}

/* ---- starting units ------------------------------------------------------ */

char *sc_eval_now_iso(void)
{
	struct sc_buf b = SC_BUF_INIT;
	sc_time_iso8601(&b, (int64_t)time(NULL));
	return sc_buf_detach(&b, NULL);
}

/* "20261130T150000Z-1a2b3c4d": the start time and 32 random bits. */
char *sc_eval_new_run_id(void)
{
	struct sc_buf b = SC_BUF_INIT;
	unsigned char rnd[4] = { 0 };
	time_t t = time(NULL);
	struct tm tm;

	sc_random_bytes(rnd, sizeof(rnd));
	gmtime_r(&t, &tm);
	sc_buf_printf(&b, "%04d%02d%02dT%02d%02d%02dZ-", tm.tm_year + 1900, tm.tm_mon + 1,
		      tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	sc_hex(&b, rnd, sizeof(rnd));
	return sc_buf_detach(&b, NULL);
}

/*
 * What a planned unit is stored under (key_of): its model's canonical
 * name, run index, skill hash (SC_STORE_NO_SKILL for the baseline), test
 * and fixture hashes (a fixture the kernel ops cannot hash: none), and
 * its harness string (owned by u: the version, the kernel mode and turns,
 * an agent run's tools and limits, the judge and the grader). The one
 * place a unit's key is made: the evaluation looks units up with it
 * (decide_early), and so does sc_eval_stored_units for the budget.
 */
static void unit_key(struct unit *u, const struct ctx *c, const struct sc_eval_unit_ref *ref)
{
	const struct sc_eval_options *opt = c->opt;
	const struct sc_test *t = &c->skills[ref->skill].tests->items[ref->test];
	struct sc_buf tmp = SC_BUF_INIT;

	u->model = c->models[ref->model].name;
	u->ru.run_index = ref->run;
	snprintf(u->skill_hash, sizeof(u->skill_hash), "%s",
		 ref->baseline ? SC_STORE_NO_SKILL : c->skill_hashes[ref->skill]);
	sc_test_hash(u->test_hash, t);
	u->fixture_hash[0] = '\0';
	u->agent_mode = sc_agent_runs_test(t, c->agent_opt.mode);
	if (t->fixture) {
		if (opt->kernel && opt->kernel->fixture_hash &&
		    opt->kernel->fixture_hash(u->fixture_hash, t->fixture, opt->kernel->payload) < 0) {
			u->fixture_hash[0] = '\0';
			sc_error_clear();
		}
		sc_buf_printf(&tmp, "%s+%s+turns%d", SC_EVAL_HARNESS_VERSION,
			      opt->kernel && opt->kernel->mode ? opt->kernel->mode : "none",
			      opt->max_turns);
	} else {
		sc_buf_puts(&tmp, SC_EVAL_HARNESS_VERSION);
	}
	if (u->agent_mode)  /* the tools, prompt, jail limits and turns decide it too */
		sc_buf_printf(&tmp, "+agent:%.16s:turns%d", c->agent_hash, opt->max_turns);
	if (opt->judge_model) {
		char rh[65];
		sha_hex(rh, opt->judge_rubric ? opt->judge_rubric : default_rubric);
		sc_buf_printf(&tmp, "+judge:%s:%.12s", opt->judge_model, rh);
	}
	if (opt->grader_model && sc_test_needs_grader(t)) {
		char gh[65];
		sha_hex(gh, sc_grader_system());
		sc_buf_printf(&tmp, "+grader:%s:%s:%.12s", opt->grader_model, SC_GRADER_VERSION, gh);
	}
	free(u->harness);
	u->harness = sc_buf_detach(&tmp, NULL);
}

/* A new unit for one planned reference, its results entry filled. */
static struct unit *plan_unit(struct ctx *c, const struct sc_eval_unit_ref *ref)
{
	const struct sc_eval_options *opt = c->opt;
	const struct sc_eval_skill *es = &c->skills[ref->skill];
	const struct sc_test *t = &es->tests->items[ref->test];
	const struct sc_model *model = &c->models[ref->model];
	enum sc_variant variant = ref->baseline ? SC_VARIANT_BASELINE : es->variant;
	struct unit *u = sc_xcalloc(1, sizeof(*u));
	struct sc_results_unit *ru = &u->ru;
	struct sc_buf user = SC_BUF_INIT, tmp = SC_BUF_INIT;
	char mh[65];

	u->ctx = c;
	u->es = es;
	u->test = t;
	u->oracle_model = model->kind == SC_PROVIDER_ORACLE;
	u->system = ref->baseline ? NULL : c->systems[ref->skill].ptr;
	u->transcript = cJSON_CreateArray();
	sc_results_unit_init(ru);
	unit_key(u, c, ref);
	ru->skill = sc_xstrdup(es->path);
	ru->variant = variant;
	ru->model = sc_xstrdup(model->name);
	ru->test_id = sc_xstrdup(t->id);
	ru->test_name = test_name(t);
	ru->kind = t->fixture ? SC_KIND_KERNEL : t->trigger ? SC_KIND_TRIGGER
		   : u->agent_mode ? SC_KIND_AGENT : SC_KIND_TEXT;
	if (t->trigger)
		ru->trigger = t->trigger > 0 ? SC_TRIGGER_SHOULD : SC_TRIGGER_SHOULD_NOT;
	ru->test_file = t->source ? sc_xstrdup(t->source) : NULL;
	ru->test_line = t->line ? (int64_t)t->line : SC_RESULTS_NULL_INT;
	if (t->fixture) {
		ru->kernel = sc_xcalloc(1, sizeof(*ru->kernel));
		sc_results_kernel_init(ru->kernel);
		ru->kernel->fixture = sc_xstrdup(t->fixture);
		if (u->fixture_hash[0])
			ru->kernel->fixture_hash = sc_xstrdup(u->fixture_hash);
	}
	ru->hashes.skill = strcmp(u->skill_hash, SC_STORE_NO_SKILL) ? sc_xstrdup(u->skill_hash)
								      : NULL;
	ru->hashes.test = sc_xstrdup(u->test_hash);
	sha_hex(mh, model->name);
	ru->hashes.model = sc_xstrdup(mh);
	ru->hashes.prompt = sc_xstrdup(c->prompt_hash);
	sha_hex(mh, u->harness);
	ru->hashes.harness = sc_xstrdup(mh);
	ru->hashes.fixture = u->fixture_hash[0] ? sc_xstrdup(u->fixture_hash) : NULL;
	ru->verdict = SC_UNIT_ERROR;

	sc_eval_unit_prompt(&user, t, opt->kernel);
	add_msg(u, "user", user.ptr);
	if (u->oracle_model) {
		if (t->fixture) {
			if (opt->kernel && opt->kernel->reference &&
			    opt->kernel->reference(&tmp, t->fixture, opt->kernel->payload) == 0)
				u->oracle = sc_buf_detach(&tmp, NULL);
		} else if (sc_tests_oracle_answer(t, &tmp) == 0) {
			u->oracle = sc_buf_detach(&tmp, NULL);
		}
		sc_error_clear();
	}
	sc_buf_release(&user);
	sc_buf_release(&tmp);
	return u;
}

/*
 * Whether the store answers unit u (opt->store, with opt->reuse): 1 when
 * it holds a unit under u's key (key_of) in states this version reads,
 * its outcome then copied into ru (NULL: only asked); 0 when it does not
 * (or there is no store, or no reuse); or the store's error.
 */
static int store_answers(const struct ctx *c, const struct unit *u, struct sc_results_unit *ru)
{
	const struct sc_eval_options *opt = c->opt;
	struct sc_store_key key;
	struct sc_store_unit su;
	enum sc_unit_verdict verdict;
	enum sc_compile compile;
	enum sc_kernel_verdict kv;
	int err;

	if (!opt->store || !opt->reuse)
		return 0;
	key_of(&key, u, c->prompt_hash);
	err = sc_store_lookup_unit(opt->store, &su, &key);
	if (err == 0 && (ru ? from_store(ru, &su) : stored_states(&su, &verdict, &compile, &kv))) {
		sc_store_unit_release(&su);
		return 1;
	}
	if (err == 0)
		err = SC_ENOTFOUND;  /* states this version does not read: ask again */
	sc_store_unit_release(&su);
	if (err != SC_ENOTFOUND)
		return err;
	sc_error_clear();
	return 0;
}

/*
 * Decides a unit without asking a model: reused from the store, or a
 * kernel test with no harness to check it. Returns 1 when decided, 0 when
 * a model must be asked, or the store's error (a store that cannot be
 * read must not turn into paid requests).
 */
static int decide_early(struct ctx *c, struct unit *u)
{
	const struct sc_eval_options *opt = c->opt;
	int err;

	if ((err = store_answers(c, u, &u->ru)) != 0)
		return err;
	if (u->test->trigger && u->ru.variant == SC_VARIANT_BASELINE) {
		set_verdict(u, SC_UNIT_SKIPPED, NULL, "a trigger test asks whether the skill is opened; "
			    "the baseline lists no skill");
		return 1;
	}
	if (u->test->trigger && !u->agent_mode) {
		set_verdict(u, SC_UNIT_UNVERIFIED, "needs_agent", "a trigger test runs as an agent, and "
			    "agent.mode is never: set agent.mode to auto in the trusted config");
		return 1;
	}
	if (u->test->fixture && (!opt->kernel || !opt->kernel->check)) {
		set_verdict(u, SC_UNIT_SKIPPED, NULL, "kernel harness not available in this build");
		return 1;
	}
	return 0;
}

static bool stop_asked(struct ctx *c)
{
	if (!c->stopping && c->opt->stop && c->opt->stop(c->opt->payload))
		c->stopping = true;
	return c->stopping;
}

/* sc_client_cancel: a unit whose first turn has not been sent yet. */
static bool not_started(void *payload, void *arg)
{
	struct unit *u = payload;

	/* an agent unit whose jail is starting stays: its job points at it */
	return u->ctx == arg && !u->asked && !u->judging && !u->grading && !u->agent_jobs;
}

/*
 * Starts units while the window has room: each is reused from the store,
 * decided at once, or its first turn goes into the client's queue (the
 * client starts it the moment a request slot is free). Reentrant calls
 * (from a callback of a unit it decided) return at once.
 */
static void admit(struct ctx *c)
{
	int err;

	if (c->admitting)
		return;
	c->admitting = true;
	while (c->next < c->nrefs && c->active < c->window && !stop_asked(c)) {
		const struct sc_eval_unit_ref *ref = &c->refs[c->next++];
		struct unit *u = plan_unit(c, ref);
		int decided = decide_early(c, u);
		if (decided < 0) {
			fatal(c, decided);
			sc_results_unit_release(&u->ru);
			unit_free(u);
			break;
		}
		if (decided) {
			unit_done(u);
			continue;
		}
		if (!c->opt->client) {
			fatal(c, sc_error_set(SC_EINVAL, "no model client for the evaluation"));
			sc_results_unit_release(&u->ru);
			unit_free(u);
			break;
		}
		u->evaluated = true;
		u->t0 = sc_now_ms();
		c->active++;
		if (u->agent_mode) {
			agent_start(u, ref);
			continue;
		}
		if ((err = submit_turn(u)) < 0) {
			/* a bad model or a missing key: every unit would fail alike */
			fatal(c, err);
			unit_drop(u);
			break;
		}
	}
	if (c->stopping && c->opt->client)
		sc_client_cancel(c->opt->client, not_started, c);
	c->admitting = false;
}

/* The client's tick: a stop, a due transaction, the activity line. */
static void tick(void *payload)
{
	struct ctx *c = payload;
	int64_t now = sc_now_ms();

	if (c->npend && now - c->first_pend_ms >= c->commit_ms)
		flush(c);
	admit(c);
	if (now - c->last_activity_ms >= 100)
		report_activity(c);
}

/*
 * What every unit's store key shares (unit_key): the prompt template's
 * hash, the agent's options and their hash, and each skill's content
 * hash (its own when the caller gave it). Returns 0 or the error of a
 * skill that cannot be hashed.
 */
static int prepare_keys(struct ctx *c)
{
	int err;

	sha_hex(c->prompt_hash, sc_skill_prompt_template);
	c->skill_hashes = sc_xcalloc(c->nskills ? c->nskills : 1, sizeof(*c->skill_hashes));
	if (c->opt->agent)
		c->agent_opt = *c->opt->agent;
	else
		sc_agent_options_init(&c->agent_opt);
	{
		/* the agent's part of the harness key: tools, prompt, jail limits */
		struct sc_buf k = SC_BUF_INIT;
		const struct sc_jail_limits *l = &c->agent_opt.jail;
		char ph[65];
		sc_agent_prompt_hash(ph);
		sc_buf_printf(&k, "%s|%lld|%d|%lld|%d|%lld|%d|%lld|%lld|%zu|%zu|%d|%d", ph,
			      (long long)l->command_timeout_ms, l->cpu_s, (long long)l->memory_bytes,
			      l->processes, (long long)l->file_bytes, l->open_files,
			      (long long)l->workspace_bytes, (long long)l->tmp_bytes, l->output_bytes,
			      c->agent_opt.tool_output_max, c->agent_opt.max_calls_per_turn,
			      c->agent_opt.trigger_turns);
		sha_hex(c->agent_hash, k.ptr);
		sc_buf_release(&k);
	}
	for (size_t s = 0; s < c->nskills; s++) {
		const struct sc_eval_skill *es = &c->skills[s];
		if (!es->skill)
			continue;  /* not evaluated */
		if (es->hash)
			snprintf(c->skill_hashes[s], sizeof(c->skill_hashes[s]), "%s", es->hash);
		else if ((err = sc_skill_content_hash(c->skill_hashes[s], es->skill)) < 0)
			return err;
	}
	return 0;
}

/* Per skill: the key's parts (prepare_keys) and its system prompt. */
static int prepare_skills(struct ctx *c)
{
	int err;

	if ((err = prepare_keys(c)) < 0)
		return err;
	c->systems = sc_xcalloc(c->nskills ? c->nskills : 1, sizeof(*c->systems));
	c->mount_names = sc_xcalloc(c->nskills ? c->nskills : 1, sizeof(*c->mount_names));
	for (size_t s = 0; s < c->nskills; s++) {
		const struct sc_eval_skill *es = &c->skills[s];
		sc_buf_init(&c->systems[s]);
		if (!es->skill)
			continue;  /* not evaluated */
		sc_skill_system_prompt(&c->systems[s], es->skill);
		mount_name(c->mount_names[s], es->skill, s);
	}
	return 0;
}

/* Parses every model name (and the judge's) before anything is asked. */
static int parse_models(struct ctx *c, const char *const *names, size_t n)
{
	int err;

	c->models = sc_xcalloc(n ? n : 1, sizeof(*c->models));
	for (size_t m = 0; m < n; m++) {
		if ((err = sc_model_parse(&c->models[m], names[m])) < 0)
			return err;
		c->nmodels++;
	}
	if (c->opt->judge_model) {
		struct sc_model jm;
		if ((err = sc_model_parse(&jm, c->opt->judge_model)) < 0)
			return err;
		sc_model_release(&jm);
	}
	return 0;
}

static void ctx_release(struct ctx *c)
{
	for (size_t i = 0; i < c->npend; i++)
		pending_release(&c->pend[i]);
	free(c->pend);
	for (size_t m = 0; m < c->nmodels; m++)
		sc_model_release(&c->models[m]);
	free(c->models);
	for (size_t s = 0; c->systems && s < c->nskills; s++)
		sc_buf_release(&c->systems[s]);
	free(c->systems);
	free(c->skill_hashes);
	free(c->mount_names);
	if (c->stage)
		sc_rm_rf(c->stage);
	free(c->stage);
	free(c->err_msg);
}

/*
 * Each agent unit in flight holds its jail's two descriptors: the soft
 * limit on open files (often 1,024) is raised to the hard one, up to
 * 65,536, so a wide window of them does not run out.
 */
static void raise_open_files(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max && rl.rlim_cur < 65536) {
		rl.rlim_cur = rl.rlim_max < 65536 ? rl.rlim_max : 65536;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

static int64_t tv_ms(struct timeval tv)
{
	return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/*
 * Drives the planned units (c->refs) to the end: admission, the client
 * loop (requests, kernel checks, ticks), the last transaction. Returns 0
 * or the first fatal error (its message set again).
 */
static int drive(struct ctx *c)
{
	const struct sc_eval_options *opt = c->opt;
	bool any_agent = false;
	int err = 0;

	/* room for every planned unit at once: no doubling slack */
	c->units_alloc = c->out->nunits + c->nrefs;
	c->out->units = sc_xrealloc(c->out->units, (c->units_alloc ? c->units_alloc : 1) *
				    sizeof(*c->out->units));
	c->commit_units = opt->commit_units > 0 ? opt->commit_units : SC_EVAL_COMMIT_UNITS;
	c->commit_ms = opt->commit_ms > 0 ? opt->commit_ms : SC_EVAL_COMMIT_MS;
	for (size_t i = 0; i < c->nrefs; i++) {
		const struct sc_test *t = &c->skills[c->refs[i].skill].tests->items[c->refs[i].test];
		c->any_kernel |= t->fixture != NULL;
		any_agent |= sc_agent_runs_test(t, c->agent_opt.mode);
	}
	if (opt->window > 0)
		c->window = (size_t)opt->window;
	else
		/* an agent unit is off the wire while its tools run: twice as
		 * many more units keep the request slots busy */
		c->window = (any_agent ? 4 : 2) * (size_t)(opt->client ? sc_client_capacity(opt->client) : 1) +
			    4 * (size_t)(opt->kernel_jobs > 0 ? opt->kernel_jobs : 1);
	if (any_agent)
		raise_open_files();
	admit(c);
	if (opt->client && (c->active || c->next < c->nrefs)) {
		sc_client_set_tick(opt->client, 50, tick, c);
		while (c->active || (c->next < c->nrefs && !c->stopping)) {
			if ((err = sc_client_run(opt->client)) < 0) {
				fatal(c, err);
				break;
			}
			/* the loop ends only when every request and check came back */
			assert(c->active == 0);
			admit(c);  /* every unit in the window decided: start more */
			if (c->active == 0 && c->next < c->nrefs && c->stopping)
				break;
		}
		sc_client_set_tick(opt->client, 0, NULL, NULL);
	}
	sc_workpool_free(c->pool);  /* every check was posted back and run */
	c->pool = NULL;
	sc_workpool_free(c->agent_pool);
	sc_workpool_free(c->start_pool);
	c->agent_pool = c->start_pool = NULL;
	if (any_agent) {
		/* the jails' CPU (bubblewrap, the helper, the commands: all
		 * reaped children by now) beside skillci's own, for the
		 * benchmark's bound of the machine */
		struct rusage self, kids;
		getrusage(RUSAGE_SELF, &self);
		getrusage(RUSAGE_CHILDREN, &kids);
		sc_trace("agent", "cpu skillci %lld ms children %lld ms",
			 (long long)(tv_ms(self.ru_utime) + tv_ms(self.ru_stime)),
			 (long long)(tv_ms(kids.ru_utime) + tv_ms(kids.ru_stime)));
	}
	flush(c);
	report_activity(c);
	if (c->err) {
		sc_error_set(c->err, "%s", c->err_msg ? c->err_msg : "evaluation failed");
		return sc_error_cause_set(c->err, c->err_cause);
	}
	return 0;
}

/* Every planned reference names a skill that is evaluated, one of its
 * tests and a model: 0, or SC_EINVAL naming the first that does not. */
static int check_refs(const struct ctx *c)
{
	for (size_t i = 0; i < c->nrefs; i++) {
		const struct sc_eval_unit_ref *r = &c->refs[i];
		if (r->skill >= c->nskills || r->model >= c->nmodels || !c->skills[r->skill].skill ||
		    r->test >= c->skills[r->skill].tests->n)
			return sc_error_set(SC_EINVAL, "unit %zu of the plan names no skill, model or "
					    "test", i);
	}
	return 0;
}

int sc_eval_stored_units(bool *stored, size_t *nstored, const struct sc_eval_skill *skills,
			 size_t nskills, const struct sc_eval_unit_ref *refs, size_t nrefs,
			 const struct sc_eval_options *opt)
{
	struct ctx c;
	struct unit u;
	int err;

	memset(&c, 0, sizeof(c));
	memset(&u, 0, sizeof(u));
	memset(stored, 0, nrefs * sizeof(*stored));
	*nstored = 0;
	c.opt = opt;
	c.skills = skills;
	c.nskills = nskills;
	c.refs = refs;
	c.nrefs = nrefs;
	if (!opt->store || !opt->reuse || !nrefs)
		return 0;
	if ((err = parse_models(&c, opt->models, opt->nmodels)) < 0 ||
	    (err = prepare_keys(&c)) < 0 || (err = check_refs(&c)) < 0)
		goto done;
	for (size_t i = 0; i < nrefs; i++) {
		unit_key(&u, &c, &refs[i]);
		if ((err = store_answers(&c, &u, NULL)) < 0)
			goto done;
		stored[i] = err == 1;
		*nstored += stored[i];
	}
	err = 0;
done:
	free(u.harness);
	ctx_release(&c);
	return err;
}

int sc_eval_run_units(struct sc_results *out, struct sc_eval_stats *stats,
		      const struct sc_eval_skill *skills, size_t nskills,
		      const struct sc_eval_unit_ref *refs, size_t nrefs,
		      const struct sc_eval_options *opt)
{
	struct ctx c;
	int err;

	memset(&c, 0, sizeof(c));
	memset(stats, 0, sizeof(*stats));
	c.opt = opt;
	c.out = out;
	c.skills = skills;
	c.nskills = nskills;
	c.refs = refs;
	c.nrefs = nrefs;
	if (opt->max_turns < 1)
		return sc_error_set(SC_EINVAL, "evaluation needs at least one turn");
	if ((err = parse_models(&c, opt->models, opt->nmodels)) < 0 ||
	    (err = check_judge(opt)) < 0 || (err = check_grader(opt)) < 0 ||
	    (err = prepare_skills(&c)) < 0 || (err = check_refs(&c)) < 0)
		goto done;
	err = drive(&c);
done:
	stats->decided = c.done;
	stats->evaluated = c.evaluated;
	stats->reused = c.reused;
	stats->requests = c.requests;
	stats->cache_hits = c.cache_hits;
	stats->stopped = c.next < c.nrefs || c.done < c.nrefs;
	stats->any_kernel = c.any_kernel;
	ctx_release(&c);
	return err;
}

int sc_eval_store_run(struct sc_store *st, const struct sc_results *r, const char *kind,
		      const char *results_path, unsigned what)
{
	struct sc_buf doc = SC_BUF_INIT;
	int err;

	if ((err = sc_store_begin(st)) < 0)
		return err;
	if ((err = store_put_run(st, r, kind, results_path)) < 0)
		goto done;
	if ((what & SC_EVAL_STORE_AGGREGATES) && (err = store_put_aggregates(st, r)) < 0)
		goto done;
	if (what & SC_EVAL_STORE_SHARD) {
		struct sc_store_shard sh;
		sc_results_format(&doc, r);
		sh.run_id = r->run.id;
		sh.shard_index = (int)r->run.shard_index;
		sh.shard_count = (int)r->run.shard_count;
		sh.plan_hash = r->run.plan_hash;
		sh.results = doc.ptr;
		sh.stored_at = r->run.finished_at;
		if ((err = sc_store_put_shard(st, &sh)) < 0)
			goto done;
	}
	err = sc_store_commit(st);
done:
	if (err < 0)
		sc_store_rollback(st);
	sc_buf_release(&doc);
	return err;
}

int sc_eval_plan(struct sc_results *out, struct sc_eval_unit_ref **refs_out, size_t *nrefs_out,
		 const struct sc_eval_skill *skills, size_t nskills, const struct sc_eval_options *opt)
{
	struct ctx c;
	struct sc_eval_unit_ref *refs = NULL;
	struct sc_sha256 plan;
	unsigned char digest[SC_SHA256_LEN];
	struct sc_buf hex = SC_BUF_INIT;
	size_t total = 0, n = 0, nvariants = opt->baseline ? 2 : 1;
	bool any_kernel = false;
	int err = 0;

	sc_results_init(out);
	*refs_out = NULL;
	*nrefs_out = 0;
	memset(&c, 0, sizeof(c));
	c.opt = opt;
	if (opt->runs < 1 || opt->max_turns < 1 || opt->nmodels == 0)
		return sc_error_set(SC_EINVAL, "evaluation needs at least one model, one run and one turn");
	if ((err = parse_models(&c, opt->models, opt->nmodels)) < 0 || (err = check_judge(opt)) < 0 ||
	    (err = check_grader(opt)) < 0)
		goto done;

	/* The results frame: run, skills. */
	out->schema = sc_xstrdup(SC_RESULTS_SCHEMA);
	out->skillci_version = sc_xstrdup(SC_VERSION);
	out->harness_version = sc_xstrdup(SC_EVAL_HARNESS_VERSION);
	out->run.id = opt->run_id ? sc_xstrdup(opt->run_id) : sc_eval_new_run_id();
	out->run.kind = opt->kind;
	out->run.started_at = sc_eval_now_iso();
	out->run.models = sc_xcalloc(opt->nmodels, sizeof(char *));
	out->run.resolved_models = sc_xcalloc(opt->nmodels, sizeof(char *));
	out->run.nmodels = out->run.nresolved_models = opt->nmodels;
	for (size_t m = 0; m < opt->nmodels; m++) {
		out->run.models[m] = sc_xstrdup(opt->models[m]);
		out->run.resolved_models[m] = sc_xstrdup(c.models[m].name);
		if (c.models[m].kind == SC_PROVIDER_ORACLE)
			out->run.oracle = true;
	}
	out->run.runs = opt->runs;
	out->skills = sc_xcalloc(nskills ? nskills : 1, sizeof(*out->skills));
	out->nskills = nskills;
	for (size_t s = 0; s < nskills; s++) {
		const struct sc_eval_skill *es = &skills[s];
		struct sc_results_skill *rs = &out->skills[s];
		rs->path = sc_xstrdup(es->path);
		rs->name = sc_xstrdup(es->skill->name ? es->skill->name : es->skill->folder_name);
		rs->status = SC_SKILL_UNCHANGED;
		rs->skill_md = es->skill->md_path ? sc_xstrdup(es->skill->md_path) : NULL;
		rs->tests = (int64_t)es->tests->n;
		rs->untested = es->tests->n == 0;
		rs->gate_passed = true;
		total += es->tests->n * opt->nmodels * nvariants * (size_t)opt->runs;
		for (size_t t = 0; t < es->tests->n; t++)
			any_kernel |= es->tests->items[t].fixture != NULL;
	}

	/* The plan: every unit, in a fixed order (the plan hash covers every
	 * unit, so all shards of one plan share it); select leaves units out. */
	refs = sc_xcalloc(total ? total : 1, sizeof(*refs));
	sc_sha256_init(&plan);
	for (size_t s = 0; s < nskills; s++) {
		const struct sc_eval_skill *es = &skills[s];
		for (size_t m = 0; m < c.nmodels; m++) {
			for (size_t v = 0; v < nvariants; v++) {
				bool base = opt->baseline && v == 0;
				for (size_t t = 0; t < es->tests->n; t++) {
					char th[65];
					sc_test_hash(th, &es->tests->items[t]);
					for (int r = 0; r < opt->runs; r++) {
						sc_sha256_update(&plan, th, 64);
						sc_sha256_update(&plan, base ? "b" : "s", 1);
						sc_sha256_update(&plan, c.models[m].name,
								 strlen(c.models[m].name) + 1);
						if (opt->select &&
						    !opt->select(es->path, base ? SC_VARIANT_BASELINE : es->variant,
								 c.models[m].name, es->tests->items[t].id, r,
								 opt->select_payload))
							continue;
						refs[n].skill = (uint32_t)s;
						refs[n].test = (uint32_t)t;
						refs[n].model = (uint16_t)m;
						refs[n].baseline = base;
						refs[n].run = r;
						n++;
					}
				}
			}
		}
	}
	sc_sha256_final(&plan, digest);
	sc_hex(&hex, digest, sizeof(digest));
	out->run.plan_hash = sc_buf_detach(&hex, NULL);
	out->run.mode = sc_xstrdup(!any_kernel ? "none"
				   : opt->kernel && opt->kernel->mode ? opt->kernel->mode
				   : "compile-only");
	*refs_out = refs;
	*nrefs_out = n;
	refs = NULL;
done:
	free(refs);
	ctx_release(&c);
	sc_buf_release(&hex);
	return err;
}

int sc_eval_close(struct sc_results *out, const struct sc_eval_stats *stats, bool complete,
		  int64_t t_start, const struct sc_eval_options *opt)
{
	out->run.finished_at = sc_eval_now_iso();
	out->run.complete = complete;
	sc_eval_aggregate(out, opt->alpha);
	out->totals.requests = stats->requests;
	out->totals.cache_hits = stats->cache_hits;
	out->totals.wall_ms = sc_now_ms() - t_start;
	if (opt->store)
		return sc_eval_store_run(opt->store, out, NULL, NULL,
					 opt->store_aggregates ? SC_EVAL_STORE_AGGREGATES : 0);
	return 0;
}

int sc_eval_run(struct sc_results *out, const struct sc_eval_skill *skills, size_t nskills,
		const struct sc_eval_options *opt)
{
	struct ctx c;
	struct sc_eval_unit_ref *refs = NULL;
	struct sc_eval_stats stats;
	size_t n = 0;
	int64_t t_start = sc_now_ms();
	int err = 0;

	memset(&c, 0, sizeof(c));
	if ((err = sc_eval_plan(out, &refs, &n, skills, nskills, opt)) < 0)
		goto done;
	c.opt = opt;
	c.out = out;
	c.skills = skills;
	c.nskills = nskills;
	if ((err = parse_models(&c, opt->models, opt->nmodels)) < 0 ||
	    (err = prepare_skills(&c)) < 0)
		goto done;
	c.refs = refs;
	c.nrefs = n;
	if ((err = drive(&c)) < 0)
		goto done;
	memset(&stats, 0, sizeof(stats));
	stats.requests = c.requests;
	stats.cache_hits = c.cache_hits;
	err = sc_eval_close(out, &stats, c.done == n, t_start, opt);
done:
	free(refs);
	ctx_release(&c);
	return err;
}

/* ---- aggregation ---------------------------------------------------------- */

static bool counted(const struct sc_results_unit *u)
{
	return u->verdict == SC_UNIT_PASS || u->verdict == SC_UNIT_FAIL;
}

static bool same_group(const struct sc_results_unit *a, const struct sc_results_unit *b)
{
	return !strcmp(a->skill, b->skill) && a->variant == b->variant &&
	       !strcmp(a->model, b->model);
}

/* Fills one aggregate from the n units of its group, u[0..n). */
static void aggregate_one(struct sc_results_aggregate *a, const struct sc_results_unit *units,
			  size_t n)
{
	size_t nk = 0, nsp = 0, nst = 0, nj = 0, nt = 0;
	double tokens = 0, turns = 0, judge = 0;
	bool *correct = sc_xcalloc(n + 1, sizeof(*correct));
	double *speed = sc_xcalloc(n + 1, sizeof(*speed));
	double *passed_speed = sc_xcalloc(n + 1, sizeof(*passed_speed));
	double *passed_strong = sc_xcalloc(n + 1, sizeof(*passed_strong));

	for (size_t i = 0; i < n; i++) {
		const struct sc_results_unit *u = &units[i];
		if (u->verdict == SC_UNIT_PASS)
			a->passed++;
		else if (u->verdict == SC_UNIT_FAIL)
			a->failed++;
		else if (u->verdict == SC_UNIT_ERROR)
			a->errors++;
		else
			a->skipped++;
		if (u->verdict != SC_UNIT_ERROR) {
			tokens += (double)(u->tokens_in + u->tokens_out);
			turns += (double)u->turns;
			nt++;
		}
		if (!isnan(u->judge_score)) {
			judge += u->judge_score;
			nj++;
		}
		if (u->trigger != SC_TRIGGER_NONE && counted(u)) {
			/* a trigger test passes when the skill was opened as it should */
			bool pass = u->verdict == SC_UNIT_PASS;
			if (u->trigger == SC_TRIGGER_SHOULD) {
				a->trigger_should++;
				a->trigger_hits += pass;
			} else {
				a->trigger_should_not++;
				a->trigger_false += !pass;
			}
		}
		if (u->kernel && counted(u)) {
			bool ok = u->verdict == SC_UNIT_PASS;
			correct[nk] = ok;
			speed[nk++] = u->kernel->speedup;
			if (ok && !isnan(u->kernel->speedup))
				passed_speed[nsp++] = u->kernel->speedup;
			if (ok && !isnan(u->kernel->strong_speedup))
				passed_strong[nst++] = u->kernel->strong_speedup;
		}
	}
	a->n = a->passed + a->failed;
	if (a->n) {
		a->pass_rate = (double)a->passed / (double)a->n;
		sc_stats_wilson(&a->ci_low, &a->ci_high, (unsigned long)a->passed,
				(unsigned long)a->n, SC_STATS_Z95);
	}
	if (nt) {
		a->mean_tokens = tokens / (double)nt;
		a->mean_turns = turns / (double)nt;
	}
	if (nj)
		a->judge_mean = judge / (double)nj;
	a->speedup_geomean = sc_stats_geomean(passed_speed, nsp);
	a->strong_speedup_geomean = sc_stats_geomean(passed_strong, nst);
	if (nk) {
		a->fast_1 = sc_stats_fast_p(correct, speed, nk, 1.0);
		a->fast_1_5 = sc_stats_fast_p(correct, speed, nk, 1.5);
		a->fast_2 = sc_stats_fast_p(correct, speed, nk, 2.0);
	}
	free(correct);
	free(speed);
	free(passed_speed);
	free(passed_strong);
}

/* Units of one group in sorted order: by test id, then run index. */
static int cmp_pair_key(const struct sc_results_unit *a, const struct sc_results_unit *b)
{
	int c = strcmp(a->test_id, b->test_id);
	return c ? c : (a->run_index > b->run_index) - (a->run_index < b->run_index);
}

/*
 * Pairs the counted units of two groups by (test_id, run_index) and fills
 * c through the one comparison code path (results/compare.h) at alpha.
 * Both ranges are sorted by test id and run (sc_results_sort), so one
 * merge pass pairs them.
 */
static void compare_one(struct sc_results_comparison *c, const struct sc_results_aggregate *from,
			const struct sc_results_unit *fu, size_t fn,
			const struct sc_results_aggregate *to, const struct sc_results_unit *tu,
			size_t tn, double alpha)
{
	struct sc_compare_pairs pairs = { 0, 0, 0, 0, 0 };
	size_t j = 0;

	for (size_t i = 0; i < fn; i++) {
		const struct sc_results_unit *a = &fu[i];
		if (!counted(a))
			continue;
		while (j < tn && cmp_pair_key(&tu[j], a) < 0)
			j++;
		for (size_t k = j; k < tn && !cmp_pair_key(&tu[k], a); k++) {
			const struct sc_results_unit *b = &tu[k];
			bool ap, bp;
			if (!counted(b))
				continue;
			ap = a->verdict == SC_UNIT_PASS;
			bp = b->verdict == SC_UNIT_PASS;
			pairs.n++;
			pairs.from_pass += ap;
			pairs.to_pass += bp;
			pairs.from_only += ap && !bp;
			pairs.to_only += bp && !ap;
			break;
		}
	}
	sc_compare_fill(c, from, to, &pairs, alpha);
}

void sc_eval_aggregate(struct sc_results *r, double alpha)
{
	static const enum sc_variant pairs[][2] = {
		{ SC_VARIANT_BASELINE, SC_VARIANT_HEAD }, { SC_VARIANT_BASE, SC_VARIANT_HEAD },
		{ SC_VARIANT_BASELINE, SC_VARIANT_BASE },
	};
	size_t alloc = 0, calloc_ = 0, *first = NULL, *count = NULL, ranges_alloc = 0;
	struct sc_results_totals *t = &r->totals;

	r->run.alpha = sc_compare_alpha(alpha);
	alpha = r->run.alpha;

	/* The aggregates and comparisons are rebuilt in the order the units
	 * name them: lookups must scan until the caller sorts again. */
	r->sorted = false;
	for (size_t i = 0; i < r->naggregates; i++) {
		free(r->aggregates[i].skill);
		free(r->aggregates[i].model);
	}
	free(r->aggregates);
	r->aggregates = NULL;
	r->naggregates = 0;
	for (size_t i = 0; i < r->ncomparisons; i++) {
		free(r->comparisons[i].skill);
		free(r->comparisons[i].model);
	}
	free(r->comparisons);
	r->comparisons = NULL;
	r->ncomparisons = 0;
	/* units by skill, model, variant, test id, run: each group is a range */
	sc_results_sort(r);

	t->units = (int64_t)r->nunits;
	t->evaluated = t->reused = t->tokens_in = t->tokens_out = 0;
	t->passed = t->failed = t->errors = t->skipped = 0;
	for (size_t i = 0, j; i < r->nunits; i = j) {
		struct sc_results_aggregate *a;
		for (j = i; j < r->nunits && same_group(&r->units[j], &r->units[i]); j++) {
			const struct sc_results_unit *u = &r->units[j];
			if (u->reused)
				t->reused++;
			else
				t->evaluated++;
			t->tokens_in += u->tokens_in;
			t->tokens_out += u->tokens_out;
			t->passed += u->verdict == SC_UNIT_PASS;
			t->failed += u->verdict == SC_UNIT_FAIL;
			t->errors += u->verdict == SC_UNIT_ERROR;
			/* unverified units count as skipped: never a pass (contract 1) */
			t->skipped += u->verdict == SC_UNIT_SKIPPED || u->verdict == SC_UNIT_UNVERIFIED;
		}
		SC_GROW(r->aggregates, alloc, r->naggregates + 1);
		SC_GROW(first, ranges_alloc, r->naggregates + 1);
		count = sc_xrealloc(count, ranges_alloc * sizeof(*count));
		first[r->naggregates] = i;
		count[r->naggregates] = j - i;
		a = &r->aggregates[r->naggregates++];
		sc_results_aggregate_init(a);
		a->skill = sc_xstrdup(r->units[i].skill);
		a->variant = r->units[i].variant;
		a->model = sc_xstrdup(r->units[i].model);
		aggregate_one(a, &r->units[i], j - i);
	}

	/* Comparisons within each (skill, model): its aggregates are adjacent. */
	for (size_t i = 0; i < r->naggregates; i++) {
		for (size_t p = 0; p < SC_ARRAY_SIZE(pairs); p++) {
			const struct sc_results_aggregate *to = &r->aggregates[i], *from = NULL;
			struct sc_results_comparison *c;
			size_t fi = 0;
			if (to->variant != pairs[p][1])
				continue;
			for (size_t k = i; k-- > 0;) {
				const struct sc_results_aggregate *b = &r->aggregates[k];
				if (strcmp(b->skill, to->skill) || strcmp(b->model, to->model))
					break;
				if (b->variant == pairs[p][0]) {
					from = b;
					fi = k;
				}
			}
			for (size_t k = i + 1; !from && k < r->naggregates; k++) {
				const struct sc_results_aggregate *b = &r->aggregates[k];
				if (strcmp(b->skill, to->skill) || strcmp(b->model, to->model))
					break;
				if (b->variant == pairs[p][0]) {
					from = b;
					fi = k;
				}
			}
			if (!from)
				continue;
			SC_GROW(r->comparisons, calloc_, r->ncomparisons + 1);
			c = &r->comparisons[r->ncomparisons++];
			sc_results_comparison_init(c);
			c->skill = sc_xstrdup(to->skill);
			c->model = sc_xstrdup(to->model);
			c->from = from->variant;
			c->to = to->variant;
			compare_one(c, from, &r->units[first[fi]], count[fi], to, &r->units[first[i]],
				    count[i], alpha);
		}
	}
	free(first);
	free(count);
	if (t->units)
		r->gate.error_share = (double)t->errors / (double)t->units;
	/* the comparisons were made per aggregate: put them in their order */
	sc_results_sort(r);
}
