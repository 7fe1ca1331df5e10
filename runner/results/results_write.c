/*
 * Writing a results file (results.h, sc_results_format and
 * sc_results_save): every documented member, arrays in the documented
 * order, the same bytes on every run, signed by this runner.
 */
#include "common.h"
#include "json.h"
#include "par.h"
#include "results/results.h"
#include "results/results_sort.h"
#include "results/signing.h"

#include <limits.h>
#include <math.h>
#include <cjson/cJSON.h>

static void add_str(cJSON *o, const char *key, const char *s)
{
	if (s)
		cJSON_AddStringToObject(o, key, s);
	else
		cJSON_AddNullToObject(o, key);
}

static void add_num(cJSON *o, const char *key, double d)
{
	if (isnan(d) || isinf(d))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, d);
}

static void add_int(cJSON *o, const char *key, int64_t v)
{
	if (v == SC_RESULTS_NULL_INT)
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, (double)v);
}

static void add_bool(cJSON *o, const char *key, bool b)
{
	cJSON_AddBoolToObject(o, key, b);
}

static void add_strv(cJSON *o, const char *key, char *const *v, size_t n)
{
	cJSON *arr = cJSON_AddArrayToObject(o, key);

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateString(v[i] ? v[i] : ""));
}

static void write_run(cJSON *root, const struct sc_results_run *run)
{
	cJSON *o = cJSON_AddObjectToObject(root, "run"), *shard, *gpu;

	add_str(o, "id", run->id);
	add_str(o, "kind", sc_run_kind_name(run->kind));
	add_str(o, "started_at", run->started_at);
	add_str(o, "finished_at", run->finished_at);
	add_bool(o, "complete", run->complete);
	add_str(o, "incomplete_reason", run->incomplete_reason);
	add_str(o, "repo", run->repo);
	add_str(o, "base_rev", run->base_rev);
	add_str(o, "head_rev", run->head_rev);
	add_strv(o, "models", run->models, run->nmodels);
	if (run->nresolved_models)
		add_strv(o, "resolved_models", run->resolved_models, run->nresolved_models);
	add_int(o, "runs", run->runs);
	shard = cJSON_AddObjectToObject(o, "shard");
	add_int(shard, "index", run->shard_index);
	add_int(shard, "count", run->shard_count);
	add_str(o, "plan_hash", run->plan_hash);
	if (run->prov.present) {
		const struct sc_results_provenance *p = &run->prov;
		cJSON *po = cJSON_AddObjectToObject(o, "provenance");
		add_str(po, "head", p->head);
		add_str(po, "base", p->base);
		add_str(po, "merge_base", p->merge_base);
		add_str(po, "judged", sc_judged_name(p->judged));
		add_str(po, "judged_tree", p->judged_tree);
		add_str(po, "config_hash", p->config_hash);
		add_str(po, "workflow_run_id", p->workflow_run_id);
		add_int(po, "workflow_run_attempt", p->workflow_run_attempt);
		add_int(po, "pull_request", p->pr_number);
		add_str(po, "pull_request_source", p->pr_source);
	}
	add_bool(o, "oracle", run->oracle);
	add_str(o, "mode", run->mode);
	if (run->has_gpu) {
		gpu = cJSON_AddObjectToObject(o, "gpu");
		add_str(gpu, "name", run->gpu.name);
		add_str(gpu, "driver", run->gpu.driver);
		add_str(gpu, "arch", run->gpu.arch);
		add_str(gpu, "cc", run->gpu.cc);
	} else {
		cJSON_AddNullToObject(o, "gpu");
	}
	add_str(o, "fixtures_lock", run->fixtures_lock);
	add_num(o, "alpha", run->alpha);
	{
		cJSON *t = cJSON_AddObjectToObject(o, "trust"), *arr;
		const struct sc_results_gate_policy *g = &run->trust.gate;
		add_str(t, "config", run->trust.config);
		if (g->present) {
			cJSON *go = cJSON_AddObjectToObject(t, "gate");
			add_num(go, "pass_rate_drop_points", g->pass_rate_drop_points);
			add_num(go, "alpha", g->alpha);
			add_num(go, "tokens_rise_pct", g->tokens_rise_pct);
			add_num(go, "speedup_drop_ratio", g->speedup_drop_ratio);
			add_num(go, "judge_drop", g->judge_drop);
			add_num(go, "error_share", g->error_share);
			add_bool(go, "require_lift", g->require_lift);
			add_bool(go, "deletions_allowed", g->deletions_allowed);
			add_num(go, "max_baseline_pass_rate", g->max_baseline_pass_rate);
			add_bool(go, "compile_only", g->compile_only);
			add_num(go, "regression_points", g->regression_points);
			add_num(go, "beta", g->beta);
			add_bool(go, "accept_unverified", g->accept_unverified);
			add_bool(go, "allow_untested", g->allow_untested);
			add_int(go, "first_runs", g->first_runs);
			add_int(go, "max_runs", g->max_runs);
			add_int(go, "planned_checks", g->planned_checks);
		} else {
			cJSON_AddNullToObject(t, "gate");
		}
		arr = cJSON_AddArrayToObject(t, "head_config_changes");
		for (size_t i = 0; i < run->trust.nchanges; i++) {
			cJSON *c = cJSON_CreateObject();
			cJSON_AddItemToArray(arr, c);
			add_str(c, "key", run->trust.changes[i].key);
			add_str(c, "base", run->trust.changes[i].base);
			add_str(c, "head", run->trust.changes[i].head);
		}
		add_bool(t, "head_config_applied", false);
		add_strv(t, "notes", run->trust.notes, run->trust.nnotes);
	}
	if (run->nusage) {
		cJSON *arr = cJSON_AddArrayToObject(o, "usage");
		for (size_t i = 0; i < run->nusage; i++) {
			const struct sc_results_usage *u = &run->usage[i];
			cJSON *c = cJSON_CreateObject();
			cJSON_AddItemToArray(arr, c);
			add_str(c, "skill", u->skill);
			add_str(c, "model", u->model);
			add_int(c, "tokens_in", u->tokens_in);
			add_int(c, "tokens_out", u->tokens_out);
			add_num(c, "cost_usd", u->cost_usd);
			add_str(c, "price_date", u->price_date);
		}
	}
}

static void write_skill(cJSON *arr, const struct sc_results_skill *s)
{
	cJSON *o = cJSON_CreateObject(), *gate, *findings;

	cJSON_AddItemToArray(arr, o);
	add_str(o, "path", s->path);
	add_str(o, "name", s->name);
	add_str(o, "status", sc_skill_status_name(s->status));
	add_str(o, "old_path", s->old_path);
	add_str(o, "skill_md", s->skill_md);
	add_str(o, "base_tree", s->base_tree);
	add_str(o, "head_tree", s->head_tree);
	add_int(o, "tests", s->tests);
	add_bool(o, "untested", s->untested);
	add_bool(o, "first_tests", s->first_tests);
	findings = cJSON_AddArrayToObject(o, "findings");
	for (size_t i = 0; i < s->nfindings; i++) {
		const struct sc_results_finding *f = &s->findings[i];
		cJSON *fo = cJSON_CreateObject();
		cJSON_AddItemToArray(findings, fo);
		add_str(fo, "state", sc_finding_state_name(f->state));
		add_str(fo, "severity", sc_severity_name(f->severity));
		add_str(fo, "code", f->code);
		add_str(fo, "file", f->file);
		add_int(fo, "line", f->line > 0 ? f->line : SC_RESULTS_NULL_INT);
		add_str(fo, "message", f->message);
	}
	if (s->has_test_changes) {
		cJSON *c = cJSON_AddObjectToObject(o, "test_changes");
		add_int(c, "added", s->tests_added);
		add_int(c, "changed", s->tests_changed);
		add_int(c, "removed", s->tests_removed);
	} else {
		cJSON_AddNullToObject(o, "test_changes");
	}
	gate = cJSON_AddObjectToObject(o, "gate");
	add_bool(gate, "passed", s->gate_passed);
	add_strv(gate, "reasons", s->gate_reasons, s->ngate_reasons);
}

static void write_gate(cJSON *root, const struct sc_results_gate *g, const char *checks_mark)
{
	cJSON *o = cJSON_AddObjectToObject(root, "gate"), *arr;

	add_bool(o, "passed", g->passed);
	add_int(o, "exit_code", g->exit_code);
	add_str(o, "verdict", sc_verdict_name(g->verdict));
	add_int(o, "unverified", g->unverified);
	arr = cJSON_AddArrayToObject(o, "failures");
	for (size_t i = 0; i < g->nfailures; i++) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddItemToArray(arr, f);
		add_str(f, "status", sc_check_status_name(g->failures[i].status));
		add_str(f, "skill", g->failures[i].skill);
		add_str(f, "model", g->failures[i].model);
		add_str(f, "rule", g->failures[i].rule);
		add_str(f, "message", g->failures[i].message);
		add_str(f, "check", sc_check_kind_name(g->failures[i].check));
		add_str(f, "file", g->failures[i].file);
		add_int(f, "line", g->failures[i].line > 0 ? g->failures[i].line : SC_RESULTS_NULL_INT);
	}
	add_num(o, "error_share", g->error_share);
	/* the checks (one per skill, model and check) are streamed in here */
	cJSON_AddStringToObject(o, "checks", checks_mark);
}

static void write_totals(cJSON *root, const struct sc_results_totals *t)
{
	cJSON *o = cJSON_AddObjectToObject(root, "totals");

	add_int(o, "units", t->units);
	add_int(o, "evaluated", t->evaluated);
	add_int(o, "reused", t->reused);
	add_int(o, "cache_hits", t->cache_hits);
	add_int(o, "requests", t->requests);
	add_int(o, "tokens_in", t->tokens_in);
	add_int(o, "tokens_out", t->tokens_out);
	add_int(o, "passed", t->passed);
	add_int(o, "failed", t->failed);
	add_int(o, "errors", t->errors);
	add_int(o, "skipped", t->skipped);
	add_int(o, "wall_ms", t->wall_ms);
}

/* Where formatted results go: a buffer, or a file (written in pieces by
 * its writing thread); with mac, the document is signed as it goes (the
 * file's tap hashes every byte written). The last three bytes given to a
 * file are held back: the document's ("\n}\n") are where the signature
 * member goes in. */
struct sink {
	struct sc_buf *buf;
	struct sc_atomic_file *file;
	struct sc_hmac *mac;
	char held[3];
	size_t nheld;
};

/* The signature's hash of the document's bytes, taken as they are written
 * (on the file's writing thread), until the signature itself. */
struct mac_tap {
	struct sc_hmac *mac;
	bool closed;
};

static void mac_tap(void *arg, const void *data, size_t len)
{
	struct mac_tap *t = arg;

	if (!t->closed)
		sc_hmac_update(t->mac, data, len);
}

static void emit(struct sink *k, const char *s, size_t n)
{
	size_t out, from_held, keep;
	char t[3];

	if (k->buf) {
		sc_buf_put(k->buf, s, n);
		return;
	}
	if (k->nheld + n <= sizeof(k->held)) {
		memcpy(k->held + k->nheld, s, n);
		k->nheld += n;
		return;
	}
	/* all but the last three of held and s go out, in that order */
	out = k->nheld + n - sizeof(k->held);
	from_held = out < k->nheld ? out : k->nheld;
	sc_atomic_write(k->file, k->held, from_held);
	sc_atomic_write(k->file, s, out - from_held);
	keep = k->nheld - from_held;
	memcpy(t, k->held + from_held, keep);
	memcpy(t + keep, s + (out - from_held), sizeof(t) - keep);
	memcpy(k->held, t, sizeof(t));
	k->nheld = sizeof(t);
}

/* text with `tabs` more tabs after each line break (an object printed
 * alone, shown deeper in the document; JSON strings hold no raw line
 * break) */
static void emit_indented(struct sink *k, const char *text, size_t tabs)
{
	static const char tab[] = "\t\t\t\t\t\t\t\t";
	const char *p = text, *nl;

	assert(tabs < sizeof(tab));
	while ((nl = strchr(p, '\n'))) {
		emit(k, p, (size_t)(nl - p) + 1);
		emit(k, tab, tabs);
		p = nl + 1;
	}
	emit(k, p, strlen(p));
}

/* ---- array elements printed directly -----------------------------------
 *
 * A unit, aggregate, comparison or check as cJSON_Print would write it as
 * an object, byte for byte, without building the object: members one a
 * line, indented by tabs, "key": TAB value; strings escaped as cJSON
 * escapes them; numbers as cJSON prints them (an int plainly, anything
 * else by cJSON itself). They are most of a results file; the rest is
 * built and printed by cJSON.
 */
static void p_tabs(struct sc_buf *b, size_t d)
{
	static const char tabs[] = "\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t\t";

	while (d) {
		size_t n = d < sizeof(tabs) - 1 ? d : sizeof(tabs) - 1;
		sc_buf_put(b, tabs, n);
		d -= n;
	}
}

/* s as cJSON's print_string_ptr writes it. */
static void p_string(struct sc_buf *b, const char *s)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *)s;

	sc_buf_putc(b, '"');
	for (;;) {
		const unsigned char *run = p;
		while (*p > 31 && *p != '"' && *p != '\\')
			p++;
		sc_buf_put(b, run, (size_t)(p - run));
		if (!*p)
			break;
		sc_buf_putc(b, '\\');
		switch (*p) {
		case '\\': sc_buf_putc(b, '\\'); break;
		case '"': sc_buf_putc(b, '"'); break;
		case '\b': sc_buf_putc(b, 'b'); break;
		case '\f': sc_buf_putc(b, 'f'); break;
		case '\n': sc_buf_putc(b, 'n'); break;
		case '\r': sc_buf_putc(b, 'r'); break;
		case '\t': sc_buf_putc(b, 't'); break;
		default:
			sc_buf_puts(b, "u00");
			sc_buf_putc(b, hex[*p >> 4]);
			sc_buf_putc(b, hex[*p & 15]);
			break;
		}
		p++;
	}
	sc_buf_putc(b, '"');
}

/* d as cJSON prints a number: an int plainly, else cJSON's own way. */
static void p_number(struct sc_buf *b, double d)
{
	if (isnan(d) || isinf(d)) {
		sc_buf_puts(b, "null");
	} else if (d > (double)INT_MIN && d < (double)INT_MAX && d == (double)(int)d &&
		   !(d == 0 && signbit(d))) {  /* cJSON prints -0 as "-0" */
		char t[16], *q = t + sizeof(t);
		long v = (int)d;
		bool neg = v < 0;
		if (neg)
			v = -v;
		do {
			*--q = (char)('0' + v % 10);
			v /= 10;
		} while (v);
		if (neg)
			*--q = '-';
		sc_buf_put(b, q, (size_t)(t + sizeof(t) - q));
	} else {
		cJSON *n = cJSON_CreateNumber(d);
		char *text = cJSON_PrintUnformatted(n);
		if (!text)
			sc_die("out of memory formatting JSON");
		sc_buf_puts(b, text);
		cJSON_free(text);
		cJSON_Delete(n);
	}
}

/* An object being printed at depth d: how many members so far. */
struct pobj {
	struct sc_buf *b;
	size_t d, n;
};

/* The keys are this file's own names (letters, digits, '_'): nothing in
 * them to escape, so the line is put together in place. */
static void p_key(struct pobj *o, const char *key)
{
	size_t k = strlen(key), tabs = o->d + 1;
	char *w;

	sc_buf_grow(o->b, 2 + tabs + 1 + k + 3);
	w = o->b->ptr + o->b->len;
	*w++ = o->n++ ? ',' : '{';
	*w++ = '\n';
	memset(w, '\t', tabs);
	w += tabs;
	*w++ = '"';
	memcpy(w, key, k);
	w += k;
	memcpy(w, "\":\t", 3);
	w += 3;
	*w = '\0';
	o->b->len = (size_t)(w - o->b->ptr);
}

static void p_close(struct pobj *o)
{
	if (!o->n)
		sc_buf_puts(o->b, "{\n");
	else
		sc_buf_putc(o->b, '\n');
	p_tabs(o->b, o->d);
	sc_buf_putc(o->b, '}');
}

/* The members as add_str, add_num, add_int and add_bool add them. */
static void p_str(struct pobj *o, const char *key, const char *s)
{
	p_key(o, key);
	if (s)
		p_string(o->b, s);
	else
		sc_buf_puts(o->b, "null");
}

static void p_num(struct pobj *o, const char *key, double d)
{
	p_key(o, key);
	p_number(o->b, d);
}

static void p_int(struct pobj *o, const char *key, int64_t v)
{
	p_key(o, key);
	if (v == SC_RESULTS_NULL_INT)
		sc_buf_puts(o->b, "null");
	else
		p_number(o->b, (double)v);
}

static void p_bool(struct pobj *o, const char *key, bool v)
{
	p_key(o, key);
	sc_buf_puts(o->b, v ? "true" : "false");
}

/* A unit's object, printed at depth d. */
static void print_unit(struct sc_buf *b, const struct sc_results_unit *u, size_t d)
{
	struct pobj o = { b, d, 0 };
	const struct sc_results_kernel *k = u->kernel;

	p_str(&o, "skill", u->skill);
	p_str(&o, "variant", sc_variant_name(u->variant));
	p_str(&o, "model", u->model);
	p_str(&o, "test_id", u->test_id);
	p_str(&o, "test_name", u->test_name);
	p_int(&o, "run_index", u->run_index);
	p_str(&o, "kind", sc_unit_kind_name(u->kind));
	if (u->trigger != SC_TRIGGER_NONE)
		p_str(&o, "trigger", sc_trigger_name(u->trigger));
	p_str(&o, "verdict", sc_unit_verdict_name(u->verdict));
	p_str(&o, "error_class", u->error_class);
	p_str(&o, "message", u->message);
	if (u->excerpt)
		p_str(&o, "excerpt", u->excerpt);
	p_int(&o, "tokens_in", u->tokens_in);
	p_int(&o, "tokens_out", u->tokens_out);
	p_int(&o, "turns", u->turns);
	p_int(&o, "latency_ms", u->latency_ms);
	p_num(&o, "judge_score", u->judge_score);
	p_bool(&o, "reused", u->reused);
	p_key(&o, "kernel");
	if (k) {
		struct pobj ko = { b, d + 1, 0 };
		p_str(&ko, "fixture", k->fixture);
		p_str(&ko, "fixture_hash", k->fixture_hash);
		p_str(&ko, "compile", sc_compile_name(k->compile));
		p_str(&ko, "compile_log", k->compile_log);
		p_str(&ko, "verdict", sc_kernel_verdict_name(k->verdict));
		p_num(&ko, "max_abs_error", k->max_abs_error);
		p_int(&ko, "worst_index", k->worst_index);
		p_int(&ko, "registers", k->registers);
		p_int(&ko, "spills", k->spills);
		p_int(&ko, "shared_bytes", k->shared_bytes);
		p_num(&ko, "candidate_ms", k->candidate_ms);
		p_num(&ko, "baseline_ms", k->baseline_ms);
		p_num(&ko, "candidate_iqr_ms", k->candidate_iqr_ms);
		p_num(&ko, "speedup", k->speedup);
		p_str(&ko, "strong_reference", k->strong_reference);
		p_num(&ko, "strong_speedup", k->strong_speedup);
		p_num(&ko, "pct_of_peak", k->pct_of_peak);
		p_bool(&ko, "suspect", k->suspect);
		p_key(&ko, "flags");
		sc_buf_putc(b, '[');
		for (size_t i = 0; i < k->nflags; i++) {
			if (i)
				sc_buf_put(b, ", ", 2);
			p_string(b, k->flags[i] ? k->flags[i] : "");
		}
		sc_buf_putc(b, ']');
		p_close(&ko);
	} else {
		sc_buf_puts(b, "null");
	}
	p_key(&o, "hashes");
	{
		struct pobj ho = { b, d + 1, 0 };
		p_str(&ho, "skill", u->hashes.skill);
		p_str(&ho, "test", u->hashes.test);
		p_str(&ho, "model", u->hashes.model);
		p_str(&ho, "prompt", u->hashes.prompt);
		p_str(&ho, "harness", u->hashes.harness);
		p_str(&ho, "fixture", u->hashes.fixture);
		p_close(&ho);
	}
	p_str(&o, "test_file", u->test_file);
	p_int(&o, "test_line", u->test_line);
	p_close(&o);
}

/* A member whose value is an object, opened at depth d + 1. */
static struct pobj p_obj(struct pobj *o, const char *key)
{
	struct pobj in = { o->b, o->d + 1, 0 };

	p_key(o, key);
	return in;
}

static void print_aggregate(struct sc_buf *b, const struct sc_results_aggregate *a, size_t d)
{
	struct pobj o = { b, d, 0 };

	p_str(&o, "skill", a->skill);
	p_str(&o, "variant", sc_variant_name(a->variant));
	p_str(&o, "model", a->model);
	p_int(&o, "n", a->n);
	p_int(&o, "passed", a->passed);
	p_int(&o, "failed", a->failed);
	p_int(&o, "errors", a->errors);
	p_int(&o, "skipped", a->skipped);
	p_num(&o, "pass_rate", a->pass_rate);
	p_num(&o, "ci_low", a->ci_low);
	p_num(&o, "ci_high", a->ci_high);
	p_num(&o, "mean_tokens", a->mean_tokens);
	p_num(&o, "mean_turns", a->mean_turns);
	p_num(&o, "speedup_geomean", a->speedup_geomean);
	p_num(&o, "strong_speedup_geomean", a->strong_speedup_geomean);
	p_num(&o, "fast_1", a->fast_1);
	p_num(&o, "fast_1_5", a->fast_1_5);
	p_num(&o, "fast_2", a->fast_2);
	p_num(&o, "judge_mean", a->judge_mean);
	if (a->trigger_should || a->trigger_should_not) {
		struct pobj tr = p_obj(&o, "triggers");
		p_int(&tr, "should", a->trigger_should);
		p_int(&tr, "opened", a->trigger_hits);
		p_int(&tr, "should_not", a->trigger_should_not);
		p_int(&tr, "opened_wrongly", a->trigger_false);
		p_num(&tr, "recall", a->trigger_should ? (double)a->trigger_hits /
		      (double)a->trigger_should : NAN);
		p_num(&tr, "false_trigger_rate", a->trigger_should_not ?
		      (double)a->trigger_false / (double)a->trigger_should_not : NAN);
		p_close(&tr);
	}
	p_close(&o);
}

static void print_comparison(struct sc_buf *b, const struct sc_results_comparison *c, size_t d)
{
	struct pobj o = { b, d, 0 };

	p_str(&o, "skill", c->skill);
	p_str(&o, "model", c->model);
	p_str(&o, "from", sc_variant_name(c->from));
	p_str(&o, "to", sc_variant_name(c->to));
	p_int(&o, "paired_n", c->paired_n);
	p_num(&o, "from_pass_rate", c->from_pass_rate);
	p_num(&o, "to_pass_rate", c->to_pass_rate);
	p_num(&o, "pass_rate_delta", c->pass_rate_delta);
	p_int(&o, "to_only", c->to_only);
	p_int(&o, "from_only", c->from_only);
	p_num(&o, "p_value", c->p_value);
	p_bool(&o, "significant", c->significant);
	p_num(&o, "tokens_delta_pct", c->tokens_delta_pct);
	p_num(&o, "speedup_ratio", c->speedup_ratio);
	p_num(&o, "judge_delta", c->judge_delta);
	p_num(&o, "skill_lift", c->skill_lift);
	p_num(&o, "token_savings", c->token_savings);
	if (c->is_beneficial < 0)
		p_str(&o, "is_beneficial", NULL);
	else
		p_bool(&o, "is_beneficial", c->is_beneficial != 0);
	p_close(&o);
}

static void print_check(struct sc_buf *b, const struct sc_results_check *c, size_t d)
{
	struct pobj o = { b, d, 0 };

	p_str(&o, "skill", c->skill);
	p_str(&o, "model", c->model);
	p_str(&o, "check", sc_check_kind_name(c->check));
	p_str(&o, "status", sc_check_status_name(c->status));
	if (c->accepted)
		p_bool(&o, "accepted", true);
	p_str(&o, "rule", c->rule);
	p_str(&o, "message", c->message);
	p_str(&o, "file", c->file);
	p_int(&o, "line", c->line > 0 ? c->line : SC_RESULTS_NULL_INT);
	if (c->margin.present) {
		struct pobj mo = p_obj(&o, "margin"), ro;
		p_num(&mo, "mean", c->margin.mean);
		p_num(&mo, "lo", c->margin.lo);
		p_num(&mo, "hi", c->margin.hi);
		p_num(&mo, "detectable", c->margin.detectable);
		p_int(&mo, "tests", c->margin.tests);
		ro = p_obj(&mo, "runs");
		p_int(&ro, "base", c->margin.base_runs);
		p_int(&ro, "head", c->margin.head_runs);
		p_close(&ro);
		p_int(&mo, "runs_per_test", c->margin.runs_per_test);
		p_int(&mo, "rounds", c->margin.rounds);
		p_str(&mo, "decision", sc_decision_name(c->margin.decision));
		p_num(&mo, "drop", c->margin.drop);
		p_num(&mo, "beta", c->margin.beta);
		p_num(&mo, "llr", c->margin.llr);
		p_num(&mo, "info", c->margin.info);
		p_num(&mo, "i_max", c->margin.i_max);
		p_int(&mo, "reused", c->margin.reused);
		p_int(&mo, "evaluated", c->margin.evaluated);
		p_close(&mo);
	}
	p_close(&o);
}

static void pr_unit(struct sc_buf *b, const void *item, size_t d) { print_unit(b, item, d); }

static void w_skill(cJSON *arr, const void *item) { write_skill(arr, item); }
static void pr_aggregate(struct sc_buf *b, const void *item, size_t d) { print_aggregate(b, item, d); }
static void pr_comparison(struct sc_buf *b, const void *item, size_t d) { print_comparison(b, item, d); }
static void pr_check(struct sc_buf *b, const void *item, size_t d) { print_check(b, item, d); }

/* A history entry (the store's flips of one test), printed at depth d. */
static void pr_flips(struct sc_buf *b, const void *item, size_t d)
{
	const struct sc_results_flips *f = item;
	struct pobj o = { b, d, 0 };

	p_str(&o, "skill", f->skill);
	p_str(&o, "variant", sc_variant_name(f->variant));
	p_str(&o, "model", f->model);
	p_str(&o, "test_id", f->test_id);
	p_int(&o, "runs", f->runs);
	p_int(&o, "passes", f->passes);
	p_num(&o, "flip_rate", f->flip_rate);
	p_close(&o);
}

/* An array of the document written element by element. */
struct streamed {
	const char *key;       /* its member name */
	const char *mark;      /* the string standing in its place */
	const void *items;
	size_t n, elem;
	int (*cmp)(const void *, const void *);
	void (*write)(cJSON *arr, const void *item);   /* builds an element; NULL with print */
	/* when set (instead of write): prints an element at a depth, as cJSON would */
	void (*print)(struct sc_buf *b, const void *item, size_t depth);
};

/* Elements [lo, hi) of a streamed array printed into a part's buffer
 * (core/par.h), each after ", " but the array's first. */
struct print_parts {
	const struct streamed *a;
	const struct sc_results_sorted *s;
	size_t from, tabs;
	struct sc_buf text[SC_PAR_MAX];
};

static void print_part(void *arg, size_t p, size_t lo, size_t hi)
{
	struct print_parts *pp = arg;
	const struct streamed *a = pp->a;

	sc_buf_clear(&pp->text[p]);
	for (size_t j = pp->from + lo; j < pp->from + hi; j++) {
		if (j)
			sc_buf_put(&pp->text[p], ", ", 2);
		a->print(&pp->text[p], pp->s ? pp->s[j].item : (const char *)a->items + j * a->elem,
			 pp->tabs + 1);
	}
}

/* Elements printed at a time by each part: enough to be worth a thread,
 * few enough to keep a file's text out of memory. */
#define PRINT_GROUP 2048

/* Writes one streamed array: "[", each element printed alone and indented
 * to its depth (tabs: those of its member's line, plus one), "]". Printed
 * elements are printed in groups over the cores, and go out in order. */
static void emit_array(struct sink *k, const struct streamed *a, size_t tabs, bool presorted)
{
	struct sc_results_sorted *s = presorted ? NULL : sc_results_sort_items(a->items, a->n, a->elem, a->cmp);
	struct sc_buf text = SC_BUF_INIT;
	struct print_parts pp;
	size_t width = sc_par_width();

	emit(k, "[", 1);
	if (a->print) {
		pp.a = a;
		pp.s = s;
		pp.tabs = tabs;
		for (size_t p = 0; p < SC_PAR_MAX; p++)
			sc_buf_init(&pp.text[p]);
		for (pp.from = 0; pp.from < a->n; pp.from += PRINT_GROUP * width) {
			size_t n = a->n - pp.from < PRINT_GROUP * width ? a->n - pp.from : PRINT_GROUP * width;
			size_t parts = (n + PRINT_GROUP - 1) / PRINT_GROUP;
			sc_par_for(n, parts, print_part, &pp);
			for (size_t p = 0; p < parts; p++)
				emit(k, pp.text[p].ptr, pp.text[p].len);
		}
		for (size_t p = 0; p < SC_PAR_MAX; p++)
			sc_buf_release(&pp.text[p]);
	}
	for (size_t i = 0; i < a->n && !a->print; i++) {
		cJSON *one = cJSON_CreateArray();
		a->write(one, s ? s[i].item : (const char *)a->items + i * a->elem);
		sc_buf_clear(&text);
		sc_json_print(&text, cJSON_GetArrayItem(one, 0), true);
		if (i)
			emit(k, ", ", 2);
		emit_indented(k, text.ptr, tabs + 1);
		cJSON_Delete(one);
	}
	free(s);
	sc_buf_release(&text);
	emit(k, "]", 1);
}

/*
 * The document as cJSON_Print would write it, without ever holding its
 * large arrays (skills, units, aggregates, comparisons, gate checks) as
 * one tree: the rest (small) is printed with a mark in each array's place,
 * and each array is written element by element where its mark is. The
 * bytes are those of printing the whole tree. A mark is met only as a
 * member of its own name whose value is that string: no other member of
 * these names is a string, so a value from a results file cannot be taken
 * for one.
 */
static void format_results(struct sink *k, const struct sc_results *r)
{
	const struct streamed arrays[] = {
		{ "skills", "skillci:stream:skills", r->skills, r->nskills, sizeof(*r->skills),
		  sc_results_cmp_skill, w_skill, NULL },
		{ "units", "skillci:stream:units", r->units, r->nunits, sizeof(*r->units),
		  sc_results_cmp_unit, NULL, pr_unit },
		{ "aggregates", "skillci:stream:aggregates", r->aggregates, r->naggregates,
		  sizeof(*r->aggregates), sc_results_cmp_aggregate, NULL, pr_aggregate },
		{ "comparisons", "skillci:stream:comparisons", r->comparisons, r->ncomparisons,
		  sizeof(*r->comparisons), sc_results_cmp_comparison, NULL, pr_comparison },
		{ "checks", "skillci:stream:checks", r->gate.checks, r->gate.nchecks,
		  sizeof(*r->gate.checks), sc_results_cmp_check, NULL, pr_check },
		/* in the model's order */
		{ "history", "skillci:stream:history", r->flips, r->nflips, sizeof(*r->flips),
		  NULL, NULL, pr_flips },
	};
	size_t narrays = r->nflips ? 6 : 5;
	cJSON *root = cJSON_CreateObject();
	struct sc_buf pat = SC_BUF_INIT, doc = SC_BUF_INIT;
	const char *at, *text;

	add_str(root, "schema", r->schema ? r->schema : SC_RESULTS_SCHEMA);
	add_str(root, "skillci_version", r->skillci_version);
	add_str(root, "harness_version", r->harness_version);
	write_run(root, &r->run);
	cJSON_AddStringToObject(root, "skills", arrays[0].mark);
	cJSON_AddStringToObject(root, "units", arrays[1].mark);
	cJSON_AddStringToObject(root, "aggregates", arrays[2].mark);
	cJSON_AddStringToObject(root, "comparisons", arrays[3].mark);
	write_gate(root, &r->gate, arrays[4].mark);
	write_totals(root, &r->totals);
	if (r->nflips)
		/* written when the store had any: older readers ignore it */
		cJSON_AddStringToObject(root, "history", arrays[5].mark);
	if (r->nlifts) {
		/* eval's sequential decisions: older readers ignore it */
		cJSON *arr = cJSON_AddArrayToObject(root, "lift");
		for (size_t i = 0; i < r->nlifts; i++) {
			const struct sc_results_lift *l = &r->lifts[i];
			cJSON *lo = cJSON_CreateObject();
			cJSON_AddItemToArray(arr, lo);
			add_str(lo, "skill", l->skill);
			add_str(lo, "model", l->model);
			add_str(lo, "decision", sc_lift_decision_name(l->decision));
			add_str(lo, "stop", sc_lift_stop_name(l->stop));
			add_num(lo, "margin", l->margin);
			add_num(lo, "drop", l->drop);
			add_num(lo, "lift", l->lift);
			add_num(lo, "lo", l->lo);
			add_num(lo, "hi", l->hi);
			add_num(lo, "detectable", l->detectable);
			add_int(lo, "tests", l->tests);
			add_int(lo, "baseline_runs", l->baseline_runs);
			add_int(lo, "skill_runs", l->skill_runs);
			add_int(lo, "runs_per_test", l->runs_per_test);
			add_int(lo, "rounds", l->rounds);
			add_int(lo, "first_runs", l->first_runs);
			add_int(lo, "max_runs", l->max_runs);
			add_int(lo, "max_rounds", l->max_rounds);
		}
	}
	sc_json_print(&doc, root, true);
	cJSON_Delete(root);
	text = at = doc.ptr;
	for (size_t i = 0; i < narrays; i++) {
		const char *hit, *line;
		size_t tabs = 0;
		sc_buf_clear(&pat);
		sc_buf_printf(&pat, "\"%s\":\t\"%s\"", arrays[i].key, arrays[i].mark);
		hit = strstr(at, pat.ptr);
		assert(hit);
		for (line = hit; line > text && line[-1] == '\t'; line--)
			tabs++;
		hit += strlen(arrays[i].key) + 4;  /* past "key":TAB */
		emit(k, at, (size_t)(hit - at));
		/* units are usually in order already (the model keeps them sorted) */
		emit_array(k, &arrays[i], tabs, (i == 1 && r->sorted) || !arrays[i].cmp);
		at = hit + strlen(arrays[i].mark) + 2;
	}
	emit(k, at, strlen(at));
	emit(k, "\n", 1);
	sc_buf_release(&doc);
	sc_buf_release(&pat);
}


/* The document as formatted without its signature. */
static void format_unsigned(struct sc_buf *out, const struct sc_results *r)
{
	struct sink k = { out, NULL, NULL, "", 0 };

	format_results(&k, r);
}

void sc_results_format(struct sc_buf *out, const struct sc_results *r)
{
	struct sc_buf doc = SC_BUF_INIT;

	format_unsigned(&doc, r);
	if (r->untrusted) {
		sc_buf_put(out, doc.ptr, doc.len);
		sc_buf_release(&doc);
		return;
	}
	/* the document ends "\n}\n": the signature goes in as the last member */
	assert(doc.len >= 3 && !strcmp(doc.ptr + doc.len - 3, "\n}\n"));
	sc_buf_put(out, doc.ptr, doc.len - 3);
	sc_buf_printf(out, SC_RESULTS_SIGN_HEAD "%s" SC_RESULTS_SIGN_MID, sc_sign_own_fingerprint());
	sc_sign_mac(out, SC_RESULTS_SIGN_DOMAIN, doc.ptr, doc.len);
	sc_buf_puts(out, SC_RESULTS_SIGN_TAIL);
	sc_buf_release(&doc);
}

/*
 * sc_results_format() streamed into the file as it is formatted (the
 * document is never held whole), signed on the way: the same bytes.
 */
int sc_results_save(const struct sc_results *r, const char *path)
{
	struct sc_atomic_file f;
	struct sc_hmac mac;
	struct mac_tap tap = { &mac, false };
	struct sink k = { NULL, &f, NULL, "", 0 };
	int err;

	if (sc_atomic_open(&f, path) < 0) {
		err = f.err;
		sc_atomic_abort(&f);
		return err;
	}
	if (!r->untrusted) {
		sc_sign_mac_init(&mac, SC_RESULTS_SIGN_DOMAIN);
		k.mac = &mac;
	}
	/* hashed, redacted and written while the rest is formatted */
	sc_atomic_background(&f, k.mac ? mac_tap : NULL, &tap);
	format_results(&k, r);
	if (!k.mac)
		sc_atomic_write(&f, k.held, k.nheld);
	if (k.mac) {
		struct sc_buf sig = SC_BUF_INIT;
		/* the document ends "\n}\n": the signature goes in as the last member */
		assert(k.nheld == 3 && !memcmp(k.held, "\n}\n", 3));
		sc_atomic_sync_tap(&f);
		tap.closed = true;
		sc_hmac_update(&mac, k.held, 3);  /* hashed, never written */
		sc_buf_printf(&sig, SC_RESULTS_SIGN_HEAD "%s" SC_RESULTS_SIGN_MID,
			      sc_sign_own_fingerprint());
		sc_sign_mac_final(&mac, &sig);
		sc_buf_puts(&sig, SC_RESULTS_SIGN_TAIL);
		sc_atomic_write(&f, sig.ptr, sig.len);
		sc_buf_release(&sig);
	}
	return sc_atomic_commit(&f);
}
