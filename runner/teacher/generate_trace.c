/*
 * Traces and failures for the teacher (generate.h): a trace file's text
 * for the prompt, and the failed tests of an evaluation told back.
 */
#include "common.h"
#include "diag.h"
#include "escape.h"
#include "json.h"
#include "eval/eval.h"
#include "teacher/generate.h"
#include "teacher/generate_parts.h"
#include "providers/provider.h"
#include "skills/skill.h"
#include "skills/testsuite.h"
#include "results/store.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- traces --------------------------------------------------------------- */

/* Appends at most cap bytes of s (cut at a UTF-8 boundary, "..." marked). */
static void put_capped(struct sc_buf *out, const char *s, size_t cap)
{
	size_t n = strlen(s);

	if (n <= cap) {
		sc_buf_puts(out, s);
		return;
	}
	while (cap && ((unsigned char)s[cap] & 0xC0) == 0x80)
		cap--;
	sc_buf_put(out, s, cap);
	sc_buf_puts(out, "...");
}

/* Text of a message's content: a string, or a list of blocks. */
static void trace_content(struct sc_buf *out, const cJSON *content)
{
	const cJSON *b;

	if (cJSON_IsString(content)) {
		sc_buf_puts(out, content->valuestring);
		return;
	}
	if (!cJSON_IsArray(content))
		return;
	cJSON_ArrayForEach(b, content) {
		const char *type = sc_json_str_or(b, "type", NULL);
		if (cJSON_IsString(b)) {
			sc_buf_puts(out, b->valuestring);
		} else if (sc_json_str_or(b, "text", NULL)) {
			sc_buf_puts(out, sc_json_str_or(b, "text", NULL));
		} else if (type && !strcmp(type, "tool_use")) {
			char *in = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(b, "input"));
			sc_buf_printf(out, "[tool call %s: ", sc_json_str_or(b, "name", "?"));
			put_capped(out, in ? in : "", 4000);
			sc_buf_puts(out, "]");
			free(in);
		} else if (type && !strcmp(type, "tool_result")) {
			sc_buf_puts(out, "[tool result: ");
			{
				struct sc_buf r = SC_BUF_INIT;
				trace_content(&r, cJSON_GetObjectItemCaseSensitive(b, "content"));
				put_capped(out, r.ptr, 4000);
				sc_buf_release(&r);
			}
			sc_buf_puts(out, "]");
		} else {
			char *raw = cJSON_PrintUnformatted(b);
			put_capped(out, raw ? raw : "", 2000);
			free(raw);
		}
		sc_buf_putc(out, '\n');
	}
}

/* One message as a "### role" section. */
static void trace_message(struct sc_buf *out, const cJSON *m)
{
	const char *role = sc_json_str_or(m, "role", sc_json_str_or(m, "type", NULL));
	const cJSON *calls = cJSON_GetObjectItemCaseSensitive(m, "tool_calls");
	const cJSON *results = cJSON_GetObjectItemCaseSensitive(m, "tool_results");

	sc_buf_printf(out, "### %s\n\n", role ? role : "message");
	trace_content(out, cJSON_GetObjectItemCaseSensitive(m, "content"));
	if (!cJSON_GetObjectItemCaseSensitive(m, "content") && sc_json_str_or(m, "text", NULL))
		sc_buf_puts(out, sc_json_str_or(m, "text", NULL));
	for (int k = 0; k < 2; k++) {
		const cJSON *x = k ? results : calls;
		char *raw;
		if (!x || cJSON_IsNull(x))
			continue;
		raw = cJSON_PrintUnformatted(x);
		sc_buf_printf(out, "\n[%s: ", k ? "tool results" : "tool calls");
		put_capped(out, raw ? raw : "", 4000);
		sc_buf_puts(out, "]");
		free(raw);
	}
	sc_buf_rtrim(out);
	sc_buf_puts(out, "\n\n");
}

int sc_gen_trace_text(struct sc_buf *out, const char *data, size_t len, const char *name,
		      size_t max)
{
	struct sc_buf text = SC_BUF_INIT;
	size_t i = 0;
	bool json = sc_ends_with(name, ".json"), jsonl = sc_ends_with(name, ".jsonl");
	int err = 0;

	if (!sc_utf8_check(data, len, &i))
		return sc_error_set(SC_EINVAL, "trace '%s': invalid UTF-8 at byte %zu", name, i);
	if (jsonl) {
		const char *p = data, *end = data + len;
		size_t line = 0;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
			cJSON *m;
			line++;
			if (n && strspn(p, " \t\r") < n) {
				m = cJSON_ParseWithLength(p, n);
				if (!cJSON_IsObject(m)) {
					cJSON_Delete(m);
					err = sc_error_set(SC_EINVAL, "trace '%s':%zu: not a JSON "
							   "message object", name, line);
					goto done;
				}
				trace_message(&text, m);
				cJSON_Delete(m);
			}
			p += n + 1;
		}
	} else if (json) {
		cJSON *j = cJSON_ParseWithLength(data, len);
		const cJSON *msgs = cJSON_IsArray(j) ? j : cJSON_GetObjectItemCaseSensitive(j, "messages");
		const cJSON *m;
		if (!cJSON_IsArray(msgs)) {
			cJSON_Delete(j);
			err = sc_error_set(SC_EINVAL, "trace '%s': not a JSON agent transcript (a list "
					   "of messages or {\"messages\": [...]})", name);
			goto done;
		}
		cJSON_ArrayForEach(m, msgs)
			if (cJSON_IsObject(m))
				trace_message(&text, m);
		cJSON_Delete(j);
	} else {
		sc_buf_put(&text, data, len);
	}
	sc_buf_rtrim(&text);
	if (!text.len) {
		err = sc_error_set(SC_EINVAL, "trace '%s' is empty", name);
		goto done;
	}
	if (text.len <= max) {
		sc_buf_put(out, text.ptr, text.len);
	} else {
		size_t head = max / 2, tail = max - head, from = text.len - tail;
		while (head && ((unsigned char)text.ptr[head] & 0xC0) == 0x80)
			head--;
		while (from < text.len && ((unsigned char)text.ptr[from] & 0xC0) == 0x80)
			from++;
		sc_buf_put(out, text.ptr, head);
		sc_buf_printf(out, "\n\n[... %zu bytes of the trace left out ...]\n\n",
			      from - head);
		sc_buf_put(out, text.ptr + from, text.len - from);
	}
done:
	sc_buf_release(&text);
	return err;
}

/* ---- failures ------------------------------------------------------------- */

static const struct sc_test *find_test(const struct sc_test_set *s, const char *id)
{
	for (size_t i = 0; s && i < s->n; i++)
		if (!strcmp(s->items[i].id, id))
			return &s->items[i];
	return NULL;
}

void sc_gen_failures(struct sc_strlist *out, const struct sc_results *r, const char *model,
		     const struct sc_test_set *tests)
{
	for (size_t i = 0; i < r->nunits && out->n < SC_GEN_MAX_FAILURES; i++) {
		const struct sc_results_unit *u = &r->units[i];
		const struct sc_test *t;
		struct sc_buf d = SC_BUF_INIT;
		if (u->variant != SC_VARIANT_HEAD || strcmp(u->model, model) ||
		    u->verdict == SC_UNIT_PASS || u->verdict == SC_UNIT_SKIPPED)
			continue;
		t = find_test(tests, u->test_id);
		sc_buf_puts(&d, "Input: ");
		put_capped(&d, t && t->input ? t->input : u->test_name ? u->test_name : u->test_id,
			   SC_GEN_FAILURE_TEXT);
		if (r->run.nmodels > 1)
			sc_buf_printf(&d, " | Model: %s", u->model);
		if (u->message) {
			sc_buf_puts(&d, " | Error: ");
			put_capped(&d, u->message, SC_GEN_FAILURE_TEXT);
		}
		if (t && t->contains.n) {
			sc_buf_puts(&d, " | Expected: contains [");
			for (size_t k = 0; k < t->contains.n; k++)
				sc_buf_printf(&d, "%s'%s'", k ? ", " : "", t->contains.items[k]);
			sc_buf_puts(&d, "]");
		} else if (t && t->fixture) {
			sc_buf_printf(&d, " | Expected: a correct kernel for fixture '%s'", t->fixture);
		}
		sc_strlist_add(out, d.ptr);
		sc_buf_release(&d);
	}
}
