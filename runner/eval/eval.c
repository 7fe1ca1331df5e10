/*
 * The evaluation core (see eval.h and docs/evaluation.md). One pass plans
 * every work unit, reuses what the store already holds, submits the rest
 * to the provider client and drives them (multi-turn for kernel tests, an
 * optional judge request after the verdict) from the completion callbacks;
 * then the new units, aggregates and the run go to the store in one
 * transaction.
 */
#include "common.h"
#include "eval/eval.h"
#include "providers/provider.h"
#include "results/compare.h"
#include "results/results.h"
#include "sha256.h"
#include "skills/skill.h"
#include "eval/stats.h"
#include "results/store.h"
#include "skills/testsuite.h"

#include <cjson/cJSON.h>
#include <ctype.h>
#include <math.h>
#include <time.h>
#include <unistd.h>

const char sc_eval_prompt_template[] =
	"You have access to the following skill. Follow its instructions when the task "
	"calls for it.\n"
	"\n"
	"<skill name=\"{name}\">\n"
	"<description>{description}</description>\n"
	"\n"
	"{body}\n"
	"\n"
	"<references>\n"
	"{references}\n"
	"</references>\n"
	"</skill>\n";

static const char default_rubric[] =
	"You grade an answer to a task. Judge whether the answer is correct, complete and "
	"follows the task's instructions. Give a short reason, then on the last line write "
	"SCORE: followed by a number from 0 (useless) to 1 (fully correct).";

#define TEST_NAME_MAX 80

/* One work unit being evaluated. */
struct unit {
	struct ctx *ctx;
	size_t idx;                 /* into ctx->out->units */
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
};

struct ctx {
	const struct sc_eval_options *opt;
	struct sc_results *out;
	struct unit *units;
	size_t nunits, done;
	char prompt_hash[65];
	int64_t requests, cache_hits;
};

void sc_eval_options_init(struct sc_eval_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->runs = 1;
	opt->baseline = true;
	opt->max_turns = 3;
	opt->temperature = -1.0;
	opt->reuse = true;
	opt->kind = "eval";
	opt->store_aggregates = true;
	opt->alpha = SC_COMPARE_DEFAULT_ALPHA;
}

void sc_eval_kernel_result_release(struct sc_eval_kernel_result *k)
{
	free(k->verdict);
	free(k->message);
	free(k->compile_log);
	memset(k, 0, sizeof(*k));
	k->max_abs_error = NAN;
	k->speedup = NAN;
	k->registers = -1;
}

/* ---- prompts and checks --------------------------------------------------- */

/* Appends s with each "{key}" of the template replaced. */
static void fill_template(struct sc_buf *out, const char *tpl, const char *const *keys,
			  const char *const *vals, size_t n)
{
	const char *p = tpl;

	while (*p) {
		bool matched = false;
		if (*p == '{') {
			for (size_t i = 0; i < n; i++) {
				size_t kl = strlen(keys[i]);
				if (!strncmp(p + 1, keys[i], kl) && p[1 + kl] == '}') {
					sc_buf_puts(out, vals[i]);
					p += kl + 2;
					matched = true;
					break;
				}
			}
		}
		if (!matched)
			sc_buf_putc(out, *p++);
	}
}

void sc_eval_system_prompt(struct sc_buf *out, const struct sc_skill *skill)
{
	static const char *const keys[] = { "name", "description", "body", "references" };
	struct sc_buf refs = SC_BUF_INIT;
	const char *vals[4];

	for (size_t i = 0; i < skill->nfiles; i++)
		if (sc_starts_with(skill->files[i], "references/"))
			sc_buf_printf(&refs, "%s- %s", refs.len ? "\n" : "", skill->files[i]);
	if (!refs.len)
		sc_buf_puts(&refs, "(none)");
	vals[0] = skill->name ? skill->name : (skill->folder_name ? skill->folder_name : "");
	vals[1] = skill->description ? skill->description : "";
	vals[2] = skill->body ? skill->body : "";
	vals[3] = refs.ptr;
	fill_template(out, sc_eval_prompt_template, keys, vals, 4);
	sc_buf_release(&refs);
}

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

int sc_eval_skill_hash(char out[65], const struct sc_skill *skill)
{
	struct sc_sha256 ctx;
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT, hex = SC_BUF_INIT;
	unsigned char digest[SC_SHA256_LEN];
	int err = 0;

	sc_sha256_init(&ctx);
	for (size_t i = 0; i < skill->nfiles; i++) {
		char len[32];
		sc_buf_clear(&path);
		sc_buf_clear(&data);
		sc_path_join(&path, skill->dir, skill->files[i]);
		if ((err = sc_read_file(&data, path.ptr, SC_MAX_FILE_BYTES)) < 0)
			goto done;
		snprintf(len, sizeof(len), "%zu:", strlen(skill->files[i]));
		sc_sha256_update(&ctx, len, strlen(len));
		sc_sha256_update(&ctx, skill->files[i], strlen(skill->files[i]));
		snprintf(len, sizeof(len), "%zu:", data.len);
		sc_sha256_update(&ctx, len, strlen(len));
		sc_sha256_update(&ctx, data.ptr, data.len);
	}
	sc_sha256_final(&ctx, digest);
	sc_hex(&hex, digest, sizeof(digest));
	memcpy(out, hex.ptr, 65);
done:
	sc_buf_release(&path);
	sc_buf_release(&data);
	sc_buf_release(&hex);
	return err;
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

static void add_msg(struct unit *u, const char *role, const char *text)
{
	cJSON *m = cJSON_CreateObject();

	SC_GROW(u->msgs, u->msgs_alloc, u->nmsgs + 1);
	u->msgs[u->nmsgs++] = sc_xstrdup(text);
	cJSON_AddStringToObject(m, "role", role);
	cJSON_AddStringToObject(m, "content", text);
	cJSON_AddItemToArray(u->transcript, m);
}

static struct sc_results_unit *ru_of(struct unit *u)
{
	return &u->ctx->out->units[u->idx];
}

/* ---- finishing a unit ----------------------------------------------------- */

static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? sc_xstrdup(s) : NULL;
}

static void unit_done(struct unit *u)
{
	struct ctx *c = u->ctx;
	struct sc_results_unit *ru = ru_of(u);

	if (u->evaluated)
		ru->latency_ms = sc_now_ms() - u->t0;
	c->done++;
	if (c->opt->progress)
		c->opt->progress(c->done, c->nunits, ru->skill, ru->variant, ru->model,
				 ru->test_name, ru->verdict, ru->reused, c->opt->payload);
}

static void set_verdict(struct unit *u, const char *verdict, const char *error_class,
			const char *message)
{
	struct sc_results_unit *ru = ru_of(u);

	set_str(&ru->verdict, verdict);
	set_str(&ru->error_class, error_class);
	set_str(&ru->message, message);
}

static const char *chat_error_class(enum sc_chat_error e)
{
	switch (e) {
	case SC_CHAT_RATE_LIMITED: return "rate_limited";
	case SC_CHAT_NETWORK:
	case SC_CHAT_TIMEOUT: return "network";
	default: return "provider";
	}
}

static int submit_turn(struct unit *u);
static int submit_judge(struct unit *u);
static void on_chat(struct sc_chat_response *resp, void *payload);

/* Starts the judge when one is configured and the verdict is not an error;
 * otherwise the unit is done. */
static void after_verdict(struct unit *u)
{
	const struct sc_eval_options *opt = u->ctx->opt;

	if (opt->judge_model && strcmp(ru_of(u)->verdict, "error") && u->answer) {
		if (submit_judge(u) == 0)
			return;
		/* the judge could not even be asked: the score stays null */
	}
	unit_done(u);
}

/* Maps the kernel harness's verdict to the unit's verdict and error class. */
static void kernel_verdict(const char *kv, const char **verdict, const char **error_class)
{
	static const struct { const char *kv, *cls; } fails[] = {
		{ "compile_failed", "compile_error" }, { "refused", "compile_error" },
		{ "mismatch", "mismatch" }, { "timeout", "timeout" },
		{ "crashed", "crash" }, { "no_code", "no_code" },
	};

	*error_class = NULL;
	if (!strcmp(kv, "passed")) {
		*verdict = "pass";
		return;
	}
	if (!strcmp(kv, "compiled")) {
		*verdict = "skipped";
		return;
	}
	*verdict = "fail";
	*error_class = "wrong_answer";
	for (size_t i = 0; i < SC_ARRAY_SIZE(fails); i++)
		if (!strcmp(kv, fails[i].kv))
			*error_class = fails[i].cls;
}

/* Checks a kernel answer; on a failure with turns left, sends the harness's
 * message back as the next user turn. */
static void check_kernel(struct unit *u, const char *answer)
{
	const struct sc_eval_kernel_ops *ops = u->ctx->opt->kernel;
	struct sc_results_unit *ru = ru_of(u);
	struct sc_results_kernel *k = ru->kernel;
	struct sc_eval_kernel_result kr;
	const char *verdict, *cls;
	int err;

	memset(&kr, 0, sizeof(kr));
	sc_eval_kernel_result_release(&kr);
	err = ops->check(&kr, u->test->fixture, answer, ops->payload);
	if (err < 0) {
		set_verdict(u, "error", "gpu", sc_error_last());
		goto done;
	}
	set_str(&k->verdict, kr.verdict ? kr.verdict : "no_code");
	set_str(&k->compile, kr.compiled ? "ok" : "failed");
	set_str(&k->compile_log, kr.compile_log);
	k->max_abs_error = kr.max_abs_error;
	k->registers = kr.registers >= 0 ? kr.registers : SC_RESULTS_NULL_INT;
	k->speedup = kr.speedup;
	kernel_verdict(k->verdict, &verdict, &cls);
	if (!strcmp(verdict, "fail") && (int)ru->turns < u->ctx->opt->max_turns) {
		struct sc_buf next = SC_BUF_INIT;
		sc_buf_printf(&next, "Your kernel did not pass the check (%s).\n\n%s\n\n"
			      "Fix the problem and reply with the complete corrected kernel.",
			      k->verdict, kr.message ? kr.message : "");
		add_msg(u, "user", next.ptr);
		sc_buf_release(&next);
		sc_eval_kernel_result_release(&kr);
		if (submit_turn(u) == 0)
			return;
		set_verdict(u, "error", "provider", sc_error_last());
		unit_done(u);
		return;
	}
	if (!strcmp(verdict, "skipped"))
		set_verdict(u, verdict, NULL, kr.message ? kr.message
			    : "compile-only: no GPU, correctness and speed not checked");
	else
		set_verdict(u, verdict, cls, kr.message);
done:
	sc_eval_kernel_result_release(&kr);
	after_verdict(u);
}

/* The completion of one model turn. */
static void on_chat(struct sc_chat_response *resp, void *payload)
{
	struct unit *u = payload;
	struct ctx *c = u->ctx;
	struct sc_results_unit *ru = ru_of(u);

	if (resp->from_cache)
		c->cache_hits++;
	else if (resp->attempts > 0)
		c->requests++;  /* sent over HTTP (an offline miss sends nothing) */
	if (resp->error_class != SC_CHAT_OK || !resp->text) {
		set_verdict(u, "error", chat_error_class(resp->error_class),
			    resp->error ? resp->error : sc_chat_error_name(resp->error_class));
		unit_done(u);
		return;
	}
	ru->turns++;
	ru->tokens_in += resp->input_tokens + resp->cache_read_tokens + resp->cache_creation_tokens;
	ru->tokens_out += resp->output_tokens;
	add_msg(u, "assistant", resp->text);
	free(u->answer);
	u->answer = sc_xstrdup(resp->text);
	if (u->test->fixture) {
		check_kernel(u, resp->text);
		return;
	}
	if (sc_eval_contains_all(resp->text, (const char *const *)u->test->contains.items,
				 u->test->contains.n)) {
		set_verdict(u, "pass", NULL, NULL);
	} else {
		struct sc_buf msg = SC_BUF_INIT;
		for (size_t i = 0; i < u->test->contains.n; i++)
			if (!contains_ci(resp->text, u->test->contains.items[i])) {
				sc_buf_printf(&msg, "answer lacks '%s'", u->test->contains.items[i]);
				break;
			}
		set_verdict(u, "fail", "wrong_answer", msg.ptr);
		sc_buf_release(&msg);
	}
	after_verdict(u);
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
		ru_of(u)->judge_score = sc_eval_parse_score(resp->text);
	unit_done(u);
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
	req.run_index = (int)ru_of(u)->run_index;
	req.oracle_answer = u->oracle;
	req.label = ru_of(u)->test_name;
	err = sc_client_submit(u->ctx->opt->client, &req, on_chat, u);
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
	memset(&req, 0, sizeof(req));
	req.model = opt->judge_model;
	req.system = opt->judge_rubric ? opt->judge_rubric : default_rubric;
	req.messages = &m;
	req.nmessages = 1;
	req.max_tokens = 1024;
	req.temperature = 0.0;
	req.run_index = 0;
	req.oracle_answer = "SCORE: 1";
	req.label = ru_of(u)->test_name;
	u->judging = true;
	err = sc_client_submit(opt->client, &req, on_judge, u);
	sc_buf_release(&prompt);
	return err;
}

/* ---- store conversion ----------------------------------------------------- */

static void key_of(struct sc_store_key *k, const struct unit *u, const char *prompt_hash)
{
	k->skill_hash = u->skill_hash;
	k->test_hash = u->test_hash;
	k->fixture_hash = u->fixture_hash;
	k->model = u->model;
	k->prompt_hash = prompt_hash;
	k->harness = u->harness;
	k->run_index = (int)u->ctx->out->units[u->idx].run_index;
}

/* Copies a stored unit's outcome into a results unit. */
static void from_store(struct sc_results_unit *ru, const struct sc_store_unit *su)
{
	set_str(&ru->verdict, su->verdict);
	set_str(&ru->error_class, su->error_class);
	set_str(&ru->message, su->message);
	ru->tokens_in = su->tokens_in;
	ru->tokens_out = su->tokens_out;
	ru->turns = su->turns;
	ru->latency_ms = su->latency_ms;
	ru->judge_score = su->judge_score;
	ru->reused = true;
	if (ru->kernel) {
		struct sc_results_kernel *k = ru->kernel;
		set_str(&k->compile, su->compile);
		set_str(&k->verdict, su->kernel_verdict);
		set_str(&k->compile_log, su->compile_log);
		k->max_abs_error = su->max_abs_error;
		k->registers = su->registers >= 0 ? su->registers : SC_RESULTS_NULL_INT;
		k->speedup = su->speedup;
	}
}

/* A borrowed view of a results unit for sc_store_put_unit(). */
static void to_store(struct sc_store_unit *su, const struct unit *u, const char *skill_name,
		     const char *prompt_hash, const char *transcript)
{
	const struct sc_results_unit *ru = &u->ctx->out->units[u->idx];
	const struct sc_results_kernel *k = ru->kernel;

	sc_store_unit_init(su);
	su->skill = ru->skill;
	su->skill_name = skill_name;
	su->variant = ru->variant;
	su->model = ru->model;
	su->test_id = ru->test_id;
	su->test_name = ru->test_name;
	su->run_index = (int)ru->run_index;
	su->kind = ru->kind;
	su->skill_hash = u->skill_hash;
	su->test_hash = u->test_hash;
	su->fixture_hash = u->fixture_hash;
	su->prompt_hash = prompt_hash;
	su->harness = u->harness;
	su->verdict = ru->verdict;
	su->error_class = ru->error_class;
	su->message = ru->message;
	su->tokens_in = ru->tokens_in;
	su->tokens_out = ru->tokens_out;
	su->turns = (int)ru->turns;
	su->latency_ms = ru->latency_ms;
	su->judge_score = ru->judge_score;
	if (k) {
		su->fixture = k->fixture;
		su->compile = k->compile;
		su->kernel_verdict = k->verdict;
		su->compile_log = k->compile_log;
		su->max_abs_error = k->max_abs_error;
		su->registers = k->registers == SC_RESULTS_NULL_INT ? -1 : (int)k->registers;
		su->speedup = k->speedup;
	}
	su->transcript = transcript;
}

int sc_eval_store_put_run(struct sc_store *st, const struct sc_results *r, const char *kind,
			  const char *results_path)
{
	struct sc_store_run run;
	struct sc_buf models = SC_BUF_INIT;
	int err;

	for (size_t i = 0; i < r->run.nmodels; i++)
		sc_buf_printf(&models, "%s%s", i ? "," : "", r->run.models[i]);
	memset(&run, 0, sizeof(run));
	run.id = r->run.id;
	run.kind = kind ? kind : r->run.kind;
	run.started_at = r->run.started_at;
	run.finished_at = r->run.finished_at;
	run.complete = r->run.complete;
	run.models = models.ptr;
	run.runs = (int)r->run.runs;
	run.oracle = r->run.oracle;
	run.results_path = results_path;
	err = sc_store_put_run(st, &run);
	sc_buf_release(&models);
	return err;
}

int sc_eval_store_put_aggregates(struct sc_store *st, const struct sc_results *r)
{
	for (size_t i = 0; i < r->naggregates; i++) {
		const struct sc_results_aggregate *a = &r->aggregates[i];
		const struct sc_results_skill *s = sc_results_find_skill(r, a->skill);
		struct sc_store_aggregate sa;
		int err;

		sc_store_aggregate_init(&sa);
		sa.skill = a->skill;
		sa.skill_name = s ? s->name : NULL;
		sa.variant = a->variant;
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
		sa.fast_1 = a->fast_1;
		sa.fast_1_5 = a->fast_1_5;
		sa.fast_2 = a->fast_2;
		sa.judge_mean = a->judge_mean;
		if ((err = sc_store_put_aggregate(st, r->run.id, &sa)) < 0)
			return err;
	}
	return 0;
}

/* Writes the run, its new units and its aggregates in one transaction. */
static int save_to_store(struct ctx *c)
{
	struct sc_store *st = c->opt->store;
	struct sc_results *r = c->out;
	int err;

	if ((err = sc_store_begin(st)) < 0)
		goto done;
	if ((err = sc_eval_store_put_run(st, r, NULL, NULL)) < 0)
		goto done;
	for (size_t i = 0; i < c->nunits; i++) {
		struct unit *u = &c->units[i];
		struct sc_store_unit su;
		char *tr;
		if (!u->evaluated)
			continue;
		tr = cJSON_PrintUnformatted(u->transcript);
		to_store(&su, u, u->es->skill->name, c->prompt_hash, tr);
		err = sc_store_put_unit(st, r->run.id, &su);
		free(tr);
		if (err < 0)
			goto done;
	}
	if (c->opt->store_aggregates && (err = sc_eval_store_put_aggregates(st, r)) < 0)
		goto done;
	err = sc_store_commit(st);
done:
	if (err < 0)
		sc_store_rollback(st);
	return err;
}

/* ---- the run ------------------------------------------------------------- */

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
	FILE *f = fopen("/dev/urandom", "rb");
	time_t t = time(NULL);
	struct tm tm;
	uint32_t v;

	if (!f || fread(rnd, 1, sizeof(rnd), f) != sizeof(rnd)) {
		v = (uint32_t)sc_now_ns() ^ ((uint32_t)getpid() << 16);
		memcpy(rnd, &v, sizeof(rnd));
	}
	if (f)
		fclose(f);
	gmtime_r(&t, &tm);
	sc_buf_printf(&b, "%04d%02d%02dT%02d%02d%02dZ-", tm.tm_year + 1900, tm.tm_mon + 1,
		      tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
	sc_hex(&b, rnd, sizeof(rnd));
	return sc_buf_detach(&b, NULL);
}

/* Sets up unit u (results entry idx) for a test; returns 0 or an error. */
static int plan_unit(struct ctx *c, struct unit *u, size_t idx, const struct sc_eval_skill *es,
		     const char *variant, const struct sc_model *model, const struct sc_test *t,
		     int run, const char *system, const char *skill_hash)
{
	const struct sc_eval_options *opt = c->opt;
	struct sc_results_unit *ru = &c->out->units[idx];
	struct sc_buf user = SC_BUF_INIT, tmp = SC_BUF_INIT;
	char mh[65];
	int err = 0;

	u->ctx = c;
	u->idx = idx;
	u->es = es;
	u->test = t;
	u->model = model->name;
	u->oracle_model = model->kind == SC_PROVIDER_ORACLE;
	u->system = system;
	u->transcript = cJSON_CreateArray();
	snprintf(u->skill_hash, sizeof(u->skill_hash), "%s", skill_hash);
	sc_test_hash(u->test_hash, t);
	u->fixture_hash[0] = '\0';
	sc_results_unit_init(ru);
	ru->skill = sc_xstrdup(es->path);
	ru->variant = sc_xstrdup(variant);
	ru->model = sc_xstrdup(model->name);
	ru->test_id = sc_xstrdup(t->id);
	ru->test_name = test_name(t);
	ru->run_index = run;
	ru->kind = sc_xstrdup(t->fixture ? "kernel" : "text");
	ru->test_file = t->source ? sc_xstrdup(t->source) : NULL;
	ru->test_line = t->line ? (int64_t)t->line : SC_RESULTS_NULL_INT;
	if (t->fixture) {
		ru->kernel = sc_xcalloc(1, sizeof(*ru->kernel));
		sc_results_kernel_init(ru->kernel);
		ru->kernel->fixture = sc_xstrdup(t->fixture);
		if (opt->kernel && opt->kernel->fixture_hash &&
		    opt->kernel->fixture_hash(u->fixture_hash, t->fixture, opt->kernel->payload) < 0)
			u->fixture_hash[0] = '\0';
		if (u->fixture_hash[0])
			ru->kernel->fixture_hash = sc_xstrdup(u->fixture_hash);
		sc_buf_printf(&tmp, "%s+%s+turns%d", SC_EVAL_HARNESS_VERSION,
			      opt->kernel && opt->kernel->mode ? opt->kernel->mode : "none",
			      opt->max_turns);
	} else {
		sc_buf_puts(&tmp, SC_EVAL_HARNESS_VERSION);
	}
	if (opt->judge_model) {
		char rh[65];
		sha_hex(rh, opt->judge_rubric ? opt->judge_rubric : default_rubric);
		sc_buf_printf(&tmp, "+judge:%s:%.12s", opt->judge_model, rh);
	}
	u->harness = sc_buf_detach(&tmp, NULL);
	ru->hashes.skill = strcmp(skill_hash, SC_STORE_NO_SKILL) ? sc_xstrdup(skill_hash) : NULL;
	ru->hashes.test = sc_xstrdup(u->test_hash);
	sha_hex(mh, model->name);
	ru->hashes.model = sc_xstrdup(mh);
	ru->hashes.prompt = sc_xstrdup(c->prompt_hash);
	sha_hex(mh, u->harness);
	ru->hashes.harness = sc_xstrdup(mh);
	ru->hashes.fixture = u->fixture_hash[0] ? sc_xstrdup(u->fixture_hash) : NULL;
	ru->verdict = sc_xstrdup("error");

	sc_eval_user_message(&user, t);
	/* A kernel test's own input says what to write; the fixture's prompt
	 * gives the exact signature, launch geometry, tolerance and
	 * environment (the model cannot pass without them). It is added
	 * unless the input already is that prompt (as generate writes it). */
	if (t->fixture && opt->kernel && opt->kernel->prompt &&
	    opt->kernel->prompt(&tmp, t->fixture, opt->kernel->payload) == 0 && tmp.len &&
	    !strstr(user.ptr, tmp.ptr))
		sc_buf_printf(&user, "\n\n%s", tmp.ptr);
	sc_buf_clear(&tmp);
	add_msg(u, "user", user.ptr);
	if (u->oracle_model) {
		if (t->fixture) {
			if (opt->kernel && opt->kernel->reference &&
			    opt->kernel->reference(&tmp, t->fixture, opt->kernel->payload) == 0)
				u->oracle = sc_buf_detach(&tmp, NULL);
		} else if (sc_tests_oracle_answer(t, &tmp) == 0) {
			u->oracle = sc_buf_detach(&tmp, NULL);
		}
	}
	sc_buf_release(&user);
	sc_buf_release(&tmp);
	return err;
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
	struct sc_results_unit *ru = ru_of(u);

	if (opt->store && opt->reuse) {
		struct sc_store_key key;
		struct sc_store_unit su;
		int err;
		key_of(&key, u, c->prompt_hash);
		err = sc_store_lookup_unit(opt->store, &su, &key);
		if (err == 0) {
			from_store(ru, &su);
			sc_store_unit_release(&su);
			unit_done(u);
			return 1;
		}
		sc_store_unit_release(&su);
		if (err != SC_ENOTFOUND)
			return err;
		sc_error_clear();
	}
	if (u->test->fixture && (!opt->kernel || !opt->kernel->check)) {
		set_verdict(u, "skipped", NULL, "kernel harness not available in this build");
		unit_done(u);
		return 1;
	}
	return 0;
}

static void unit_release(struct unit *u)
{
	for (size_t i = 0; i < u->nmsgs; i++)
		free(u->msgs[i]);
	free(u->msgs);
	free(u->oracle);
	free(u->answer);
	free(u->harness);
	cJSON_Delete(u->transcript);
}

int sc_eval_run(struct sc_results *out, const struct sc_eval_skill *skills, size_t nskills,
		const struct sc_eval_options *opt)
{
	struct ctx c;
	struct sc_model *models = NULL;
	char (*skill_hashes)[65] = NULL;
	struct sc_buf *systems = NULL;
	struct sc_sha256 plan;
	unsigned char digest[SC_SHA256_LEN];
	struct sc_buf hex = SC_BUF_INIT;
	size_t total = 0, idx = 0, nvariants = opt->baseline ? 2 : 1;
	int64_t t_start = sc_now_ms();
	bool any_kernel = false;
	int err = 0;

	sc_results_init(out);
	memset(&c, 0, sizeof(c));
	c.opt = opt;
	c.out = out;
	if (opt->runs < 1 || opt->max_turns < 1 || opt->nmodels == 0)
		return sc_error_set(SC_EINVAL, "evaluation needs at least one model, one run and one turn");
	models = sc_xcalloc(opt->nmodels, sizeof(*models));
	for (size_t m = 0; m < opt->nmodels; m++)
		if ((err = sc_model_parse(&models[m], opt->models[m])) < 0)
			goto done;
	if (opt->judge_model) {
		struct sc_model jm;
		if ((err = sc_model_parse(&jm, opt->judge_model)) < 0)
			goto done;
		sc_model_release(&jm);
	}
	sha_hex(c.prompt_hash, sc_eval_prompt_template);

	/* The results frame: run, skills. */
	out->schema = sc_xstrdup(SC_RESULTS_SCHEMA);
	out->skillci_version = sc_xstrdup(SC_VERSION);
	out->harness_version = sc_xstrdup(SC_EVAL_HARNESS_VERSION);
	out->run.id = sc_xstrdup(opt->run_id ? opt->run_id : "");
	if (!opt->run_id) {
		free(out->run.id);
		out->run.id = sc_eval_new_run_id();
	}
	out->run.kind = sc_xstrdup(opt->kind ? opt->kind : "eval");
	out->run.started_at = sc_eval_now_iso();
	out->run.models = sc_xcalloc(opt->nmodels, sizeof(char *));
	out->run.resolved_models = sc_xcalloc(opt->nmodels, sizeof(char *));
	out->run.nmodels = out->run.nresolved_models = opt->nmodels;
	for (size_t m = 0; m < opt->nmodels; m++) {
		out->run.models[m] = sc_xstrdup(opt->models[m]);
		out->run.resolved_models[m] = sc_xstrdup(models[m].name);
		if (models[m].kind == SC_PROVIDER_ORACLE)
			out->run.oracle = true;
	}
	out->run.runs = opt->runs;
	out->skills = sc_xcalloc(nskills ? nskills : 1, sizeof(*out->skills));
	out->nskills = nskills;
	skill_hashes = sc_xcalloc(nskills ? nskills : 1, sizeof(*skill_hashes));
	systems = sc_xcalloc(nskills ? nskills : 1, sizeof(*systems));
	for (size_t s = 0; s < nskills; s++) {
		const struct sc_eval_skill *es = &skills[s];
		struct sc_results_skill *rs = &out->skills[s];
		rs->path = sc_xstrdup(es->path);
		rs->name = sc_xstrdup(es->skill->name ? es->skill->name : es->skill->folder_name);
		rs->status = sc_xstrdup("unchanged");
		rs->skill_md = es->skill->md_path ? sc_xstrdup(es->skill->md_path) : NULL;
		rs->tests = (int64_t)es->tests->n;
		rs->untested = es->tests->n == 0;
		rs->gate_passed = true;
		if ((err = sc_eval_skill_hash(skill_hashes[s], es->skill)) < 0)
			goto done;
		sc_buf_init(&systems[s]);
		sc_eval_system_prompt(&systems[s], es->skill);
		total += es->tests->n * opt->nmodels * nvariants * (size_t)opt->runs;
		for (size_t t = 0; t < es->tests->n; t++)
			any_kernel |= es->tests->items[t].fixture != NULL;
	}

	/* Plan every unit. */
	out->units = sc_xcalloc(total ? total : 1, sizeof(*out->units));
	out->nunits = total;
	c.units = sc_xcalloc(total ? total : 1, sizeof(*c.units));
	c.nunits = total;
	sc_sha256_init(&plan);
	for (size_t s = 0; s < nskills; s++) {
		const struct sc_eval_skill *es = &skills[s];
		for (size_t m = 0; m < opt->nmodels; m++) {
			for (size_t v = 0; v < nvariants; v++) {
				bool base = opt->baseline && v == 0;
				for (size_t t = 0; t < es->tests->n; t++) {
					for (int r = 0; r < opt->runs; r++) {
						/* the plan hash covers every unit, so all
						 * shards of one plan share it */
						char th[65];
						sc_test_hash(th, &es->tests->items[t]);
						sc_sha256_update(&plan, th, 64);
						sc_sha256_update(&plan, base ? "b" : "s", 1);
						sc_sha256_update(&plan, models[m].name, strlen(models[m].name) + 1);
						if (opt->select &&
						    !opt->select(es->path, base ? "baseline" : es->variant,
								 models[m].name, es->tests->items[t].id, r,
								 opt->select_payload))
							continue;
						plan_unit(&c, &c.units[idx], idx, es,
							  base ? "baseline" : es->variant, &models[m],
							  &es->tests->items[t], r,
							  base ? NULL : systems[s].ptr,
							  base ? SC_STORE_NO_SKILL : skill_hashes[s]);
						idx++;
					}
				}
			}
		}
	}
	out->nunits = idx;  /* fewer than total when opt->select left units out */
	c.nunits = idx;
	sc_sha256_final(&plan, digest);
	sc_hex(&hex, digest, sizeof(digest));
	out->run.plan_hash = sc_buf_detach(&hex, NULL);
	out->run.mode = sc_xstrdup(!any_kernel ? "none"
				   : opt->kernel && opt->kernel->mode ? opt->kernel->mode
				   : "compile-only");

	/* Reuse (every lookup before the first request), then ask. */
	for (size_t i = 0; i < c.nunits; i++) {
		int decided = decide_early(&c, &c.units[i]);
		if (decided < 0) {
			err = decided;
			goto done;
		}
		c.units[i].evaluated = decided == 0;
	}
	for (size_t i = 0; i < c.nunits; i++) {
		struct unit *u = &c.units[i];
		if (!u->evaluated)
			continue;
		u->t0 = sc_now_ms();
		if (!opt->client) {
			err = sc_error_set(SC_EINVAL, "no model client for the evaluation");
			goto done;
		}
		if ((err = submit_turn(u)) < 0)
			goto done;  /* a bad model or a missing key: every unit would fail alike */
	}
	if (opt->client && (err = sc_client_run(opt->client)) < 0)
		goto done;

	out->run.finished_at = sc_eval_now_iso();
	sc_eval_aggregate(out, opt->alpha);
	out->totals.requests = c.requests;
	out->totals.cache_hits = c.cache_hits;
	out->totals.wall_ms = sc_now_ms() - t_start;
	if (opt->store && (err = save_to_store(&c)) < 0)
		goto done;
done:
	for (size_t i = 0; i < c.nunits; i++)
		unit_release(&c.units[i]);
	free(c.units);
	for (size_t m = 0; models && m < opt->nmodels; m++)
		sc_model_release(&models[m]);
	free(models);
	for (size_t s = 0; systems && s < nskills; s++)
		sc_buf_release(&systems[s]);
	free(systems);
	free(skill_hashes);
	sc_buf_release(&hex);
	return err;
}

/* ---- aggregation ---------------------------------------------------------- */

static bool counted(const struct sc_results_unit *u)
{
	return !strcmp(u->verdict, "pass") || !strcmp(u->verdict, "fail");
}

static bool same_group(const struct sc_results_unit *u, const char *skill, const char *variant,
		       const char *model)
{
	return !strcmp(u->skill, skill) && !strcmp(u->variant, variant) && !strcmp(u->model, model);
}

/* Fills one aggregate from the units of its group. */
static void aggregate_one(struct sc_results_aggregate *a, const struct sc_results *r)
{
	size_t nk = 0, nsp = 0, nj = 0, nt = 0;
	double tokens = 0, turns = 0, judge = 0;
	bool *correct = NULL;
	double *speed = NULL, *passed_speed = NULL;

	correct = sc_xcalloc(r->nunits + 1, sizeof(*correct));
	speed = sc_xcalloc(r->nunits + 1, sizeof(*speed));
	passed_speed = sc_xcalloc(r->nunits + 1, sizeof(*passed_speed));
	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (!same_group(u, a->skill, a->variant, a->model))
			continue;
		if (!strcmp(u->verdict, "pass"))
			a->passed++;
		else if (!strcmp(u->verdict, "fail"))
			a->failed++;
		else if (!strcmp(u->verdict, "error"))
			a->errors++;
		else
			a->skipped++;
		if (strcmp(u->verdict, "error")) {
			tokens += (double)(u->tokens_in + u->tokens_out);
			turns += (double)u->turns;
			nt++;
		}
		if (!isnan(u->judge_score)) {
			judge += u->judge_score;
			nj++;
		}
		if (u->kernel && counted(u)) {
			bool ok = !strcmp(u->verdict, "pass");
			correct[nk] = ok;
			speed[nk++] = u->kernel->speedup;
			if (ok && !isnan(u->kernel->speedup))
				passed_speed[nsp++] = u->kernel->speedup;
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
	if (nk) {
		a->fast_1 = sc_stats_fast_p(correct, speed, nk, 1.0);
		a->fast_1_5 = sc_stats_fast_p(correct, speed, nk, 1.5);
		a->fast_2 = sc_stats_fast_p(correct, speed, nk, 2.0);
	}
	free(correct);
	free(speed);
	free(passed_speed);
}

/*
 * Pairs the units of from and to by (test_id, run_index) and fills c
 * through the one comparison code path (results/compare.h) at alpha.
 */
static void compare_one(struct sc_results_comparison *c, const struct sc_results *r,
			const struct sc_results_aggregate *from,
			const struct sc_results_aggregate *to, double alpha)
{
	struct sc_compare_pairs pairs = { 0, 0, 0, 0, 0 };

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *a = &r->units[i];
		if (!same_group(a, from->skill, from->variant, from->model) || !counted(a))
			continue;
		for (size_t j = 0; j < r->nunits; j++) {
			const struct sc_results_unit *b = &r->units[j];
			bool ap, bp;
			if (b->run_index != a->run_index || strcmp(b->test_id, a->test_id) ||
			    !same_group(b, to->skill, to->variant, to->model) || !counted(b))
				continue;
			ap = !strcmp(a->verdict, "pass");
			bp = !strcmp(b->verdict, "pass");
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
	static const char *const pairs[][2] = {
		{ "baseline", "head" }, { "base", "head" }, { "baseline", "base" },
	};
	size_t alloc = 0, calloc_ = 0;
	struct sc_results_totals *t = &r->totals;

	r->run.alpha = sc_compare_alpha(alpha);
	alpha = r->run.alpha;

	/* The aggregates and comparisons are rebuilt in the order the units
	 * name them: lookups must scan until the caller sorts again. */
	r->sorted = false;
	for (size_t i = 0; i < r->naggregates; i++) {
		free(r->aggregates[i].skill);
		free(r->aggregates[i].variant);
		free(r->aggregates[i].model);
	}
	free(r->aggregates);
	r->aggregates = NULL;
	r->naggregates = 0;
	for (size_t i = 0; i < r->ncomparisons; i++) {
		free(r->comparisons[i].skill);
		free(r->comparisons[i].model);
		free(r->comparisons[i].from);
		free(r->comparisons[i].to);
	}
	free(r->comparisons);
	r->comparisons = NULL;
	r->ncomparisons = 0;

	t->units = (int64_t)r->nunits;
	t->evaluated = t->reused = t->tokens_in = t->tokens_out = 0;
	t->passed = t->failed = t->errors = t->skipped = 0;
	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		struct sc_results_aggregate *a;
		if (u->reused)
			t->reused++;
		else
			t->evaluated++;
		t->tokens_in += u->tokens_in;
		t->tokens_out += u->tokens_out;
		t->passed += !strcmp(u->verdict, "pass");
		t->failed += !strcmp(u->verdict, "fail");
		t->errors += !strcmp(u->verdict, "error");
		t->skipped += !strcmp(u->verdict, "skipped");
		if (sc_results_find_aggregate(r, u->skill, u->variant, u->model))
			continue;
		SC_GROW(r->aggregates, alloc, r->naggregates + 1);
		a = &r->aggregates[r->naggregates++];
		sc_results_aggregate_init(a);
		a->skill = sc_xstrdup(u->skill);
		a->variant = sc_xstrdup(u->variant);
		a->model = sc_xstrdup(u->model);
	}
	for (size_t i = 0; i < r->naggregates; i++)
		aggregate_one(&r->aggregates[i], r);

	for (size_t i = 0; i < r->naggregates; i++) {
		const struct sc_results_aggregate *to = &r->aggregates[i];
		for (size_t p = 0; p < SC_ARRAY_SIZE(pairs); p++) {
			const struct sc_results_aggregate *from;
			struct sc_results_comparison *c;
			if (strcmp(to->variant, pairs[p][1]))
				continue;
			from = sc_results_find_aggregate(r, to->skill, pairs[p][0], to->model);
			if (!from)
				continue;
			SC_GROW(r->comparisons, calloc_, r->ncomparisons + 1);
			c = &r->comparisons[r->ncomparisons++];
			sc_results_comparison_init(c);
			c->skill = sc_xstrdup(to->skill);
			c->model = sc_xstrdup(to->model);
			c->from = sc_xstrdup(from->variant);
			c->to = sc_xstrdup(to->variant);
			compare_one(c, r, from, to, alpha);
			/* the array may have moved: re-find 'to' for the next pair */
			to = &r->aggregates[i];
		}
	}
	if (t->units)
		r->gate.error_share = (double)t->errors / (double)t->units;
}
