/*
 * Trigger queries (testsuite.h, sc_tests_load_triggers): the Agent Skills
 * guide "Optimizing skill descriptions" keeps them as a JSON list,
 *
 *   [{"query": "I've got a spreadsheet ...", "should_trigger": true},
 *    {"query": "convert this json file to yaml", "should_trigger": false}]
 *
 * in eval_queries.json (or split into train_queries.json and
 * validation_queries.json). Each entry becomes a test whose input is the
 * query and whose check is whether the student opens the skill's
 * SKILL.md (runner/agent). Problems are findings naming the file, the
 * line and the entry ("[3].should_trigger"); a bad entry is left out.
 */
#include "common.h"
#include "diag.h"
#include "json.h"
#include "skills/testsuite.h"

#include <cjson/cJSON.h>
#include <sys/stat.h>

static const char *const trigger_files[] = {
	"evals/eval_queries.json",
	"evals/train_queries.json",
	"evals/validation_queries.json",
};

/* The line of the k-th (0-based) "query" key in text, or 0. */
static size_t query_line(const char *text, size_t len, size_t k)
{
	const char *p = text, *end = text + len;
	size_t line = 1, seen = 0;

	while (p < end) {
		const char *hit = memmem(p, (size_t)(end - p), "\"query\"", 7);
		if (!hit)
			return 0;
		for (; p < hit; p++)
			line += *p == '\n';
		if (seen++ == k)
			return line;
		p = hit + 7;
	}
	return 0;
}

static void add_trigger(struct sc_test_set *out, const char *rel, size_t idx, size_t line,
			const char *query, bool should)
{
	struct sc_test *t;
	struct sc_buf b = SC_BUF_INIT;

	SC_GROW(out->items, out->alloc, out->n + 1);
	t = &out->items[out->n++];
	memset(t, 0, sizeof(*t));
	sc_buf_printf(&b, "%s#%zu", rel, idx);
	t->id = sc_buf_detach(&b, NULL);
	t->source = sc_xstrdup(rel);
	sc_buf_printf(&b, "[%zu]", idx);
	t->json_path = sc_buf_detach(&b, NULL);
	t->line = line;
	t->format = SC_TESTS_TRIGGERS;
	t->input = sc_xstrdup(query);
	t->trigger = should ? 1 : -1;
}

/* One file of queries; findings name it as shown. */
static int load_one(struct sc_test_set *out, const char *path, const char *shown, const char *rel,
		    struct sc_diags *diags)
{
	struct sc_buf text = SC_BUF_INIT;
	cJSON *root = NULL;
	const cJSON *e;
	size_t idx = 0;
	int err;

	if ((err = sc_read_file(&text, path, SC_MAX_JSON_BYTES)) < 0) {
		sc_diags_add(diags, SC_SEV_ERROR, shown, 0, "test-read", "%s", sc_error_last());
		sc_error_clear();
		goto done;
	}
	root = cJSON_ParseWithLength(text.ptr, text.len);
	if (!cJSON_IsArray(root)) {
		sc_diags_add(diags, SC_SEV_ERROR, shown, root ? 1 : 0, "test-schema",
			     "%s must be a list of {\"query\": TEXT, \"should_trigger\": true or false}",
			     root ? "the file" : "malformed JSON: the file");
		goto done;
	}
	cJSON_ArrayForEach(e, root) {
		size_t line = query_line(text.ptr, text.len, idx);
		const char *q = NULL;
		bool should = false;
		if (out->n >= SC_MAX_TESTS_PER_SKILL) {
			sc_diags_add(diags, SC_SEV_ERROR, shown, line, "test-limit",
				     "more than %d tests for one skill; the rest are left out",
				     SC_MAX_TESTS_PER_SKILL);
			break;
		}
		if (!cJSON_IsObject(e) || sc_json_get_str(&q, e, "query") != SC_JSON_OK || !*q) {
			sc_diags_add(diags, SC_SEV_ERROR, shown, line, "test-schema",
				     "[%zu].query must be a non-empty string", idx);
		} else if (sc_json_get_bool(&should, e, "should_trigger") != SC_JSON_OK) {
			sc_diags_add(diags, SC_SEV_ERROR, shown, line, "test-schema",
				     "[%zu].should_trigger must be true or false", idx);
		} else {
			add_trigger(out, rel, idx, line, q, should);
		}
		idx++;
	}
done:
	cJSON_Delete(root);
	sc_buf_release(&text);
	return 0;
}

int sc_tests_load_triggers(struct sc_test_set *out, const char *skill_dir, struct sc_diags *diags)
{
	struct sc_buf path = SC_BUF_INIT;

	for (size_t i = 0; i < SC_ARRAY_SIZE(trigger_files); i++) {
		struct stat st;
		sc_buf_clear(&path);
		sc_path_join(&path, skill_dir, trigger_files[i]);
		if (lstat(path.ptr, &st) < 0)
			continue;
		if (!S_ISREG(st.st_mode)) {
			sc_diags_add(diags, SC_SEV_ERROR, path.ptr, 0, "test-read",
				     "'%s' is not a regular file", trigger_files[i]);
			continue;
		}
		sc_strlist_add(&out->sources, trigger_files[i]);
		load_one(out, path.ptr, path.ptr, trigger_files[i], diags);
	}
	sc_buf_release(&path);
	return 0;
}
