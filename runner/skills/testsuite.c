/*
 * Test files of a skill: upskill's skill_meta.json and {"cases"} suites,
 * bare test lists, Agent Skills evals/evals.json, and skillci's "fixture"
 * field (docs/tests-format.md). cJSON parses; because it keeps no
 * positions, a small scanner walks the same text in the same order and
 * records where each value starts, so every finding gets a line.
 */
#include "common.h"
#include "json.h"
#include "diag.h"
#include "sha256.h"
#include "format/yaml.h"
#include "skills/testsuite.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>

/* ---- positions of JSON values ----------------------------------------- */

struct json_pos {
	const cJSON *node;
	size_t offset;
	size_t line;
};

struct json_index {
	struct json_pos *items;
	size_t n, alloc;
};

static void skip_ws(const char *s, size_t len, size_t *i)
{
	while (*i < len && (s[*i] == ' ' || s[*i] == '\t' || s[*i] == '\n' || s[*i] == '\r'))
		(*i)++;
}

static void skip_string(const char *s, size_t len, size_t *i)
{
	(*i)++;  /* opening quote */
	while (*i < len && s[*i] != '"') {
		if (s[*i] == '\\')
			(*i)++;
		(*i)++;
	}
	if (*i < len)
		(*i)++;
}

/*
 * Records the start offset of the value at *i and of every value inside it,
 * in document order (parents before children), which is the order a
 * pre-order walk of cJSON's tree visits the nodes. Only called on text
 * cJSON accepted; depth is bounded by cJSON's own nesting limit.
 */
static void scan_value(struct json_index *ix, const char *s, size_t len, size_t *i)
{
	skip_ws(s, len, i);
	if (*i >= len)
		return;
	SC_GROW(ix->items, ix->alloc, ix->n + 1);
	ix->items[ix->n].node = NULL;
	ix->items[ix->n++].offset = *i;
	if (s[*i] == '{' || s[*i] == '[') {
		char close = s[*i] == '{' ? '}' : ']';
		bool object = s[*i] == '{';
		(*i)++;
		for (;;) {
			skip_ws(s, len, i);
			if (*i >= len || s[*i] == close)
				break;
			if (object) {
				skip_string(s, len, i);
				skip_ws(s, len, i);
				if (*i < len && s[*i] == ':')
					(*i)++;
			}
			scan_value(ix, s, len, i);
			skip_ws(s, len, i);
			if (*i < len && s[*i] == ',')
				(*i)++;
			else
				break;
		}
		skip_ws(s, len, i);
		if (*i < len)
			(*i)++;
	} else if (s[*i] == '"') {
		skip_string(s, len, i);
	} else {
		while (*i < len && !strchr(",]} \t\r\n", s[*i]))
			(*i)++;
	}
}

static void pair_nodes(struct json_index *ix, const cJSON *node, size_t *k)
{
	if (*k < ix->n)
		ix->items[(*k)++].node = node;
	for (const cJSON *c = node->child; c; c = c->next)
		pair_nodes(ix, c, k);
}

static int cmp_pos(const void *a, const void *b)
{
	const struct json_pos *x = a, *y = b;
	uintptr_t p = (uintptr_t)x->node, q = (uintptr_t)y->node;
	return p < q ? -1 : p > q;
}

static void index_build(struct json_index *ix, const cJSON *root, const char *s, size_t len,
			size_t start)
{
	size_t i = start, k = 0, line = 1, at = 0;

	scan_value(ix, s, len, &i);
	pair_nodes(ix, root, &k);
	ix->n = k;
	for (size_t j = 0; j < ix->n; j++) {  /* offsets increase with j */
		for (; at < ix->items[j].offset; at++)
			line += s[at] == '\n';
		ix->items[j].line = line;
	}
	qsort(ix->items, ix->n, sizeof(*ix->items), cmp_pos);
}

static size_t index_line(const struct json_index *ix, const cJSON *node)
{
	struct json_pos key = { node, 0, 0 }, *hit;
	if (!node || !ix->n)
		return 0;
	hit = bsearch(&key, ix->items, ix->n, sizeof(*ix->items), cmp_pos);
	return hit ? hit->line : 0;
}

static size_t offset_line(const char *s, size_t off)
{
	size_t line = 1;
	for (size_t i = 0; i < off; i++)
		line += s[i] == '\n';
	return line;
}

/* ---- loading ---------------------------------------------------------- */

struct loader {
	struct sc_test_set *set;
	struct sc_diags *diags;
	const char *skill_dir;
	char *skill_real;          /* realpath of skill_dir, or NULL */
	const char *display;       /* file name in findings */
	const char *source;        /* file name in ids */
	struct json_index ix;
	bool limit_reported;
};

static const char *json_type(const cJSON *v)
{
	if (!v)
		return "nothing";
	if (cJSON_IsString(v))
		return "string";
	if (cJSON_IsNumber(v))
		return "number";
	if (cJSON_IsBool(v))
		return "boolean";
	if (cJSON_IsNull(v))
		return "null";
	if (cJSON_IsArray(v))
		return "list";
	if (cJSON_IsObject(v))
		return "object";
	return "invalid value";
}

static void finding(struct loader *ld, enum sc_severity sev, const cJSON *at, const char *code,
		    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void finding(struct loader *ld, enum sc_severity sev, const cJSON *at, const char *code,
		    const char *fmt, ...)
{
	struct sc_buf msg = SC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	sc_diags_add(ld->diags, sev, ld->display, index_line(&ld->ix, at), code, "%s", msg.ptr);
	sc_buf_release(&msg);
}

/* "must be a string, found number" for the value at path. */
static void type_error(struct loader *ld, const cJSON *v, const char *path, const char *want)
{
	sc_diags_type_error(ld->diags, ld->display, index_line(&ld->ix, v), "test-schema", path,
			    false, want, json_type(v));
}

/* Optional string member: absent and null are fine (*out stays NULL). */
static int opt_string(struct loader *ld, const cJSON *obj, const char *key, const char *path,
		      char **out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	struct sc_buf p = SC_BUF_INIT;

	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsString(v)) {
		sc_diag_path_join(&p, path, key);
		type_error(ld, v, p.ptr, "a string");
		sc_buf_release(&p);
		return -1;
	}
	free(*out);
	*out = sc_xstrdup(v->valuestring);
	return 0;
}

/*
 * A list of strings (or, when allow_single, one string standing for a list
 * of one, as upskill's expected.contains allows) appended to out.
 */
static int string_list(struct loader *ld, const cJSON *v, const char *path, bool allow_single,
		       struct sc_strlist *out)
{
	const cJSON *item;
	size_t i = 0;

	if (allow_single && cJSON_IsString(v)) {
		sc_strlist_add(out, v->valuestring);
		return 0;
	}
	if (!cJSON_IsArray(v)) {
		type_error(ld, v, path, "a list of strings");
		return -1;
	}
	cJSON_ArrayForEach(item, v) {
		if (!cJSON_IsString(item)) {
			finding(ld, SC_SEV_ERROR, item, "test-schema",
				"%s must be a list of strings, found %s at [%zu]", path,
				json_type(item), i);
			return -1;
		}
		i++;
	}
	cJSON_ArrayForEach(item, v)
		sc_strlist_add(out, item->valuestring);
	return 0;
}

static bool fixture_name_ok(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > 64 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= '0' && s[0] <= '9')))
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_'))
			return false;
	}
	return true;
}

static bool is_text(const char *data, size_t len)
{
	return memchr(data, '\0', len) == NULL && sc_utf8_check(data, len, NULL);
}

static struct sc_test_file *add_file(struct sc_test *t, const char *name)
{
	struct sc_test_file *f;
	SC_GROW(t->files, t->files_alloc, t->nfiles + 1);
	f = &t->files[t->nfiles++];
	memset(f, 0, sizeof(*f));
	f->name = sc_xstrdup(name);
	return f;
}

/*
 * A context file named by path: it must be a safe relative path that,
 * symlinks resolved, stays inside the skill folder, and a regular file no
 * larger than SC_MAX_CONTEXT_FILE_BYTES. Nothing outside is ever opened.
 */
static int context_path(struct loader *ld, struct sc_test *t, const cJSON *v, const char *path)
{
	struct sc_buf full = SC_BUF_INIT, data = SC_BUF_INIT;
	char real[PATH_MAX];
	struct sc_test_file *f;
	size_t rl;
	int err = -1;

	if (!sc_path_is_safe_relative(v->valuestring)) {
		finding(ld, SC_SEV_ERROR, v, "test-path",
			"%s '%s' is not a relative path inside the skill folder; refused", path,
			v->valuestring);
		goto done;
	}
	sc_path_join(&full, ld->skill_dir, v->valuestring);
	if (!realpath(full.ptr, real)) {
		finding(ld, SC_SEV_ERROR, v, "test-file", "%s '%s' does not exist", path,
			v->valuestring);
		goto done;
	}
	rl = ld->skill_real ? strlen(ld->skill_real) : 0;
	if (!ld->skill_real || strncmp(real, ld->skill_real, rl) != 0 ||
	    (real[rl] != '/' && strcmp(ld->skill_real, "/") != 0)) {
		finding(ld, SC_SEV_ERROR, v, "test-path",
			"%s '%s' leads outside the skill folder (symlink); refused", path,
			v->valuestring);
		goto done;
	}
	if (sc_read_file(&data, real, SC_MAX_CONTEXT_FILE_BYTES) < 0) {
		finding(ld, SC_SEV_ERROR, v, "test-file", "%s: %s", path, sc_error_last());
		goto done;
	}
	f = add_file(t, v->valuestring);
	f->size = data.len;
	sc_sha256_hex(f->sha256, data.ptr, data.len);
	if (is_text(data.ptr, data.len))
		f->content = sc_buf_detach(&data, NULL);
	err = 0;
done:
	sc_buf_release(&full);
	sc_buf_release(&data);
	return err;
}

/* "files": a list of paths, or upskill's {"name": "content"} map. */
static int context_files(struct loader *ld, struct sc_test *t, const cJSON *files,
			 const char *path)
{
	struct sc_buf p = SC_BUF_INIT;
	const cJSON *item;
	size_t i = 0;
	int err = 0;

	if (!files || cJSON_IsNull(files))
		return 0;
	if (!cJSON_IsArray(files) && !cJSON_IsObject(files)) {
		type_error(ld, files, path, "a list of paths or a map of name to content");
		return -1;
	}
	if ((size_t)cJSON_GetArraySize(files) > SC_MAX_TEST_CONTEXT_FILES) {
		finding(ld, SC_SEV_ERROR, files, "test-limit", "%s has %d files, more than %d",
			path, cJSON_GetArraySize(files), SC_MAX_TEST_CONTEXT_FILES);
		return -1;
	}
	cJSON_ArrayForEach(item, files) {
		if (cJSON_IsArray(files)) {
			sc_buf_clear(&p);
			sc_buf_printf(&p, "%s[%zu]", path, i);
			if (!cJSON_IsString(item)) {
				type_error(ld, item, p.ptr, "a path (string)");
				err = -1;
			} else if (context_path(ld, t, item, p.ptr) < 0) {
				err = -1;
			}
		} else {
			sc_diag_path_join(&p, path, item->string);
			if (!cJSON_IsString(item)) {
				type_error(ld, item, p.ptr, "a string (the file's content)");
				err = -1;
			} else if (!sc_path_is_safe_relative(item->string)) {
				finding(ld, SC_SEV_ERROR, item, "test-path",
					"%s: file name '%s' is not a safe relative path; refused",
					path, item->string);
				err = -1;
			} else if (strlen(item->valuestring) > SC_MAX_CONTEXT_FILE_BYTES) {
				finding(ld, SC_SEV_ERROR, item, "test-limit",
					"%s is larger than %d bytes", p.ptr,
					SC_MAX_CONTEXT_FILE_BYTES);
				err = -1;
			} else {
				struct sc_test_file *f = add_file(t, item->string);
				f->content = sc_xstrdup(item->valuestring);
				f->size = strlen(f->content);
				f->inline_content = true;
				sc_sha256_hex(f->sha256, f->content, f->size);
			}
		}
		i++;
	}
	sc_buf_release(&p);
	return err;
}

/* ---- verifiers ---------------------------------------------------------- */

static const char *const verifier_names[] = {
	[SC_VERIFIER_CONTAINS] = "contains",
	[SC_VERIFIER_FILE_EXISTS] = "file_exists",
	[SC_VERIFIER_FILE_CONTAINS] = "file_contains",
	[SC_VERIFIER_COMMAND] = "command",
	[SC_VERIFIER_VALIDATOR] = "validator",
};

const char *sc_verifier_type_name(enum sc_verifier_type type)
{
	return (size_t)type < SC_ARRAY_SIZE(verifier_names) ? verifier_names[type] : "unknown";
}

static struct sc_test_verifier *add_verifier(struct sc_test *t, enum sc_verifier_type type,
					     const char *json_path, size_t line)
{
	struct sc_test_verifier *v;
	SC_GROW(t->verifiers, t->verifiers_alloc, t->nverifiers + 1);
	v = &t->verifiers[t->nverifiers++];
	memset(v, 0, sizeof(*v));
	v->type = type;
	v->json_path = sc_xstrdup(json_path);
	v->line = line;
	return v;
}

static void verifier_release(struct sc_test_verifier *v)
{
	free(v->path);
	sc_strlist_release(&v->values);
	free(v->command);
	free(v->validator);
	free(v->config);
	free(v->json_path);
	memset(v, 0, sizeof(*v));
}

/*
 * The first member of obj named by one of keys (aliases of one field);
 * *which is set to the name found. A second alias present too is an
 * error: the file says one thing twice.
 */
static const cJSON *member(struct loader *ld, const cJSON *obj, const char *path,
			   const char *const *keys, size_t nkeys, const char **which, bool *bad)
{
	const cJSON *found = NULL;

	*which = keys[0];
	for (size_t k = 0; k < nkeys; k++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, keys[k]);
		if (!v || cJSON_IsNull(v))
			continue;
		if (found) {
			finding(ld, SC_SEV_ERROR, v, "test-schema",
				"%s has both '%s' and '%s'; give one", path, *which, keys[k]);
			*bad = true;
			continue;
		}
		found = v;
		*which = keys[k];
	}
	return found;
}

/* A workspace path of a verifier: a safe relative path (no "..", not absolute). */
static int verifier_path(struct loader *ld, const cJSON *v, const char *path, char **out)
{
	if (!cJSON_IsString(v)) {
		type_error(ld, v, path, "a string (a path in the workspace)");
		return -1;
	}
	if (!sc_path_is_safe_relative(v->valuestring)) {
		finding(ld, SC_SEV_ERROR, v, "test-path",
			"%s '%s' is not a relative path inside the workspace; refused", path,
			v->valuestring);
		return -1;
	}
	*out = sc_xstrdup(v->valuestring);
	return 0;
}

/* The validator's config: a flat object of strings, numbers or booleans
 * (upskill's validator_config), kept as compact JSON text in *out. */
static int validator_config_text(struct loader *ld, const cJSON *v, const char *path, char **out)
{
	const cJSON *item;
	struct sc_buf p = SC_BUF_INIT, text = SC_BUF_INIT;

	if (!v || cJSON_IsNull(v))
		return 0;
	if (!cJSON_IsObject(v)) {
		type_error(ld, v, path, "an object");
		return -1;
	}
	cJSON_ArrayForEach(item, v) {
		if (!cJSON_IsString(item) && !cJSON_IsNumber(item) && !cJSON_IsBool(item)) {
			sc_diag_path_join(&p, path, item->string);
			type_error(ld, item, p.ptr, "a string, number or boolean");
			sc_buf_release(&p);
			return -1;
		}
	}
	sc_json_print(&text, v, false);
	free(*out);
	*out = sc_buf_detach(&text, NULL);
	return 0;
}

/* A whole number member (exit_code) within [lo, hi]. */
static int int_member(struct loader *ld, const cJSON *v, const char *path, int lo, int hi,
		      int *out)
{
	if (!cJSON_IsNumber(v) || v->valuedouble != (double)(long long)v->valuedouble ||
	    v->valuedouble < lo || v->valuedouble > hi) {
		if (!cJSON_IsNumber(v))
			type_error(ld, v, path, "a whole number");
		else
			finding(ld, SC_SEV_ERROR, v, "test-schema",
				"%s must be a whole number from %d to %d, found %g", path, lo, hi,
				v->valuedouble);
		return -1;
	}
	*out = (int)v->valuedouble;
	return 0;
}

static int timeout_member(struct loader *ld, const cJSON *v, const char *path, double *out)
{
	if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || v->valuedouble > 3600) {
		if (!cJSON_IsNumber(v))
			type_error(ld, v, path, "a number of seconds");
		else
			finding(ld, SC_SEV_ERROR, v, "test-schema",
				"%s must be more than 0 and at most 3600 seconds, found %g", path,
				v->valuedouble);
		return -1;
	}
	*out = v->valuedouble;
	return 0;
}

static const char *const values_keys[] = { "values", "value", "contains", "text", "substring" };
static const char *const path_keys[] = { "path", "file" };
static const char *const command_keys[] = { "command", "cmd", "run" };
static const char *const exit_keys[] = { "exit_code", "expect_exit_code" };
static const char *const timeout_keys[] = { "timeout", "timeout_s" };
static const char *const validator_keys[] = { "validator", "name" };
static const char *const output_keys[] = { "output_file", "path", "file" };
static const char *const config_keys[] = { "config", "validator_config" };

/*
 * One entry of "verifiers" at path: its type, then the members that type
 * takes (aliases in the *_keys tables above; docs/tests-format.md). A type
 * skillci does not know is an error (test-verifier): upskill fails an
 * unknown verifier closed, and a check skipped would let the test pass
 * unchecked. Returns -1 after reporting any problem.
 */
static int load_verifier(struct loader *ld, struct sc_test *t, const cJSON *v, const char *path)
{
	const cJSON *type = cJSON_GetObjectItemCaseSensitive(v, "type"), *m;
	struct sc_buf q = SC_BUF_INIT;
	struct sc_test_verifier *ver;
	enum sc_verifier_type kind = SC_VERIFIER_CONTAINS;
	const char *which;
	bool bad = false, known = false;

	if (!cJSON_IsObject(v)) {
		type_error(ld, v, path, "an object");
		return -1;
	}
	sc_diag_path_join(&q, path, "type");
	if (!cJSON_IsString(type)) {
		type_error(ld, type, q.ptr, "a string");
		sc_buf_release(&q);
		return -1;
	}
	for (size_t k = 0; k < SC_ARRAY_SIZE(verifier_names); k++) {
		if (!strcmp(type->valuestring, verifier_names[k])) {
			kind = (enum sc_verifier_type)k;
			known = true;
		}
	}
	if (!known) {
		finding(ld, SC_SEV_ERROR, type, "test-verifier",
			"%s '%s' is not a verifier type skillci can run (contains, file_exists, "
			"file_contains, command, validator); the test is refused, as upskill "
			"refuses it", q.ptr, type->valuestring);
		sc_buf_release(&q);
		return -1;
	}
	ver = add_verifier(t, kind, path, index_line(&ld->ix, v));

	if (kind == SC_VERIFIER_CONTAINS || kind == SC_VERIFIER_FILE_CONTAINS) {
		m = member(ld, v, path, values_keys, SC_ARRAY_SIZE(values_keys), &which, &bad);
		sc_diag_path_join(&q, path, which);
		if (!m) {
			finding(ld, SC_SEV_ERROR, v, "test-schema",
				"%s of type '%s' has no 'values' or 'value'", path,
				type->valuestring);
			bad = true;
		} else if (string_list(ld, m, q.ptr, true, &ver->values) < 0) {
			bad = true;
		} else if (!ver->values.n) {
			finding(ld, SC_SEV_ERROR, m, "test-schema", "%s is an empty list", q.ptr);
			bad = true;
		}
	}
	if (kind == SC_VERIFIER_FILE_EXISTS || kind == SC_VERIFIER_FILE_CONTAINS) {
		m = member(ld, v, path, path_keys, SC_ARRAY_SIZE(path_keys), &which, &bad);
		sc_diag_path_join(&q, path, which);
		if (!m) {
			finding(ld, SC_SEV_ERROR, v, "test-schema",
				"%s of type '%s' has no 'path'", path, type->valuestring);
			bad = true;
		} else if (verifier_path(ld, m, q.ptr, &ver->path) < 0) {
			bad = true;
		}
	}
	if (kind == SC_VERIFIER_COMMAND) {
		m = member(ld, v, path, command_keys, SC_ARRAY_SIZE(command_keys), &which, &bad);
		sc_diag_path_join(&q, path, which);
		if (!m) {
			finding(ld, SC_SEV_ERROR, v, "test-schema", "%s of type 'command' has no "
				"'command'", path);
			bad = true;
		} else if (!cJSON_IsString(m)) {
			type_error(ld, m, q.ptr, "a string (a shell command line)");
			bad = true;
		} else if (!m->valuestring[0]) {
			finding(ld, SC_SEV_ERROR, m, "test-schema", "%s is empty", q.ptr);
			bad = true;
		} else {
			ver->command = sc_xstrdup(m->valuestring);
		}
		m = member(ld, v, path, exit_keys, SC_ARRAY_SIZE(exit_keys), &which, &bad);
		sc_diag_path_join(&q, path, which);
		if (m && int_member(ld, m, q.ptr, 0, 255, &ver->exit_code) < 0)
			bad = true;
	}
	if (kind == SC_VERIFIER_VALIDATOR) {
		m = member(ld, v, path, validator_keys, SC_ARRAY_SIZE(validator_keys), &which, &bad);
		sc_diag_path_join(&q, path, which);
		if (!m) {
			finding(ld, SC_SEV_ERROR, v, "test-schema",
				"%s of type 'validator' has no 'validator' (its name)", path);
			bad = true;
		} else if (!cJSON_IsString(m) || !m->valuestring[0]) {
			if (!cJSON_IsString(m))
				type_error(ld, m, q.ptr, "a string (the validator's name)");
			else
				finding(ld, SC_SEV_ERROR, m, "test-schema", "%s is empty", q.ptr);
			bad = true;
		} else {
			ver->validator = sc_xstrdup(m->valuestring);
		}
		m = member(ld, v, path, output_keys, SC_ARRAY_SIZE(output_keys), &which, &bad);
		sc_diag_path_join(&q, path, which);
		if (m && verifier_path(ld, m, q.ptr, &ver->path) < 0)
			bad = true;
		m = member(ld, v, path, config_keys, SC_ARRAY_SIZE(config_keys), &which, &bad);
		sc_diag_path_join(&q, path, which);
		if (m && validator_config_text(ld, m, q.ptr, &ver->config) < 0)
			bad = true;
	}
	if (kind == SC_VERIFIER_COMMAND || kind == SC_VERIFIER_VALIDATOR) {
		m = member(ld, v, path, timeout_keys, SC_ARRAY_SIZE(timeout_keys), &which, &bad);
		sc_diag_path_join(&q, path, which);
		if (m && timeout_member(ld, m, q.ptr, &ver->timeout_s) < 0)
			bad = true;
	}
	if (!bad && kind == SC_VERIFIER_CONTAINS) {
		for (size_t i = 0; i < ver->values.n; i++)
			sc_strlist_add(&t->contains, ver->values.items[i]);
	}
	sc_buf_release(&q);
	return bad ? -1 : 0;
}

/* upskill's "verifiers": a list of {"type": ..., ...} objects. */
static int verifiers(struct loader *ld, struct sc_test *t, const cJSON *list, const char *path)
{
	struct sc_buf p = SC_BUF_INIT;
	const cJSON *v;
	size_t i = 0;
	int err = 0;

	if (!list || cJSON_IsNull(list))
		return 0;
	if (!cJSON_IsArray(list)) {
		type_error(ld, list, path, "a list of verifiers");
		return -1;
	}
	cJSON_ArrayForEach(v, list) {
		sc_buf_clear(&p);
		sc_buf_printf(&p, "%s[%zu]", path, i++);
		if (load_verifier(ld, t, v, p.ptr) < 0)
			err = -1;
	}
	sc_buf_release(&p);
	return err;
}

static void test_release(struct sc_test *t)
{
	free(t->id);
	free(t->source);
	free(t->json_path);
	free(t->input);
	sc_strlist_release(&t->contains);
	sc_strlist_release(&t->expectations);
	for (size_t i = 0; i < t->nfiles; i++) {
		free(t->files[i].name);
		free(t->files[i].content);
	}
	free(t->files);
	for (size_t i = 0; i < t->nverifiers; i++)
		verifier_release(&t->verifiers[i]);
	free(t->verifiers);
	free(t->validator);
	free(t->output_file);
	free(t->validator_config);
	free(t->fixture);
	free(t->expected_output);
	memset(t, 0, sizeof(*t));
}

/* The validator_config object: flat, values strings, numbers or booleans. */
static int validator_config(struct loader *ld, struct sc_test *t, const cJSON *v,
			    const char *path)
{
	return validator_config_text(ld, v, path, &t->validator_config);
}

/* The id a test carries itself ("id" in cases and evals), as text. */
static int own_id(struct loader *ld, const cJSON *obj, const char *path, struct sc_buf *out)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, "id");
	struct sc_buf p = SC_BUF_INIT;

	if (!v || cJSON_IsNull(v))
		return 0;
	if (cJSON_IsString(v) && v->valuestring[0]) {
		sc_buf_sets(out, v->valuestring);
		return 1;
	}
	if (cJSON_IsNumber(v) && v->valuedouble > -9e15 && v->valuedouble < 9e15 &&
	    v->valuedouble == (double)(long long)v->valuedouble) {
		sc_buf_clear(out);
		sc_buf_printf(out, "%lld", (long long)v->valuedouble);
		return 1;
	}
	sc_diag_path_join(&p, path, "id");
	type_error(ld, v, p.ptr, "a non-empty string or an integer");
	sc_buf_release(&p);
	return -1;
}

/*
 * True when t names a check skillci can run: a non-empty "contains"
 * string, a workspace verifier, expectations or an expected_output (for
 * the grader), or a fixture. An empty contains string matches every
 * answer, so it is no check.
 */
static bool test_has_check(const struct sc_test *t)
{
	for (size_t i = 0; i < t->contains.n; i++)
		if (t->contains.items[i][0])
			return true;
	return t->fixture || sc_test_has_workspace_verifier(t) || sc_test_needs_grader(t);
}

/*
 * Reads one test object at json path `path` into a new test of the set.
 * Every problem is reported; a test with an error is dropped.
 */
static void load_test(struct loader *ld, const cJSON *obj, const char *path,
		      enum sc_test_format format)
{
	const char *input_key = format == SC_TESTS_EVALS ? "prompt" : "input";
	struct sc_test t;
	struct sc_buf p = SC_BUF_INIT, id = SC_BUF_INIT;
	const cJSON *v, *ctx, *exp;
	bool bad = false;
	int has_id;

	memset(&t, 0, sizeof(t));
	if (!cJSON_IsObject(obj)) {
		type_error(ld, obj, path, "an object");
		return;
	}
	if (ld->set->n >= SC_MAX_TESTS_PER_SKILL) {
		if (!ld->limit_reported)
			finding(ld, SC_SEV_ERROR, obj, "test-limit",
				"more than %d tests; the rest are ignored", SC_MAX_TESTS_PER_SKILL);
		ld->limit_reported = true;
		return;
	}
	t.format = format;
	t.line = index_line(&ld->ix, obj);
	t.source = sc_xstrdup(ld->source);
	t.json_path = sc_xstrdup(path);

	v = cJSON_GetObjectItemCaseSensitive(obj, input_key);
	sc_diag_path_join(&p, path, input_key);
	if (!v) {
		finding(ld, SC_SEV_ERROR, obj, "test-schema", "%s is missing", p.ptr);
		bad = true;
	} else if (!cJSON_IsString(v)) {
		type_error(ld, v, p.ptr, "a string");
		bad = true;
	} else if (!v->valuestring[0]) {
		finding(ld, SC_SEV_ERROR, v, "test-schema", "%s is empty", p.ptr);
		bad = true;
	} else {
		t.input = sc_xstrdup(v->valuestring);
	}

	/* upskill: context.files; evals.json: files */
	ctx = cJSON_GetObjectItemCaseSensitive(obj, "context");
	if (ctx && !cJSON_IsNull(ctx)) {
		sc_diag_path_join(&p, path, "context");
		if (!cJSON_IsObject(ctx)) {
			type_error(ld, ctx, p.ptr, "an object");
			bad = true;
		} else {
			sc_diag_path_join(&p, path, "context.files");
			if (context_files(ld, &t, cJSON_GetObjectItemCaseSensitive(ctx, "files"),
					  p.ptr) < 0)
				bad = true;
		}
	}
	sc_diag_path_join(&p, path, "files");
	if (context_files(ld, &t, cJSON_GetObjectItemCaseSensitive(obj, "files"), p.ptr) < 0)
		bad = true;

	exp = cJSON_GetObjectItemCaseSensitive(obj, "expected");
	if (exp && !cJSON_IsNull(exp)) {
		sc_diag_path_join(&p, path, "expected");
		if (!cJSON_IsObject(exp)) {
			type_error(ld, exp, p.ptr, "an object");
			bad = true;
		} else if ((v = cJSON_GetObjectItemCaseSensitive(exp, "contains")) &&
			   !cJSON_IsNull(v)) {
			sc_diag_path_join(&p, path, "expected.contains");
			if (string_list(ld, v, p.ptr, true, &t.contains) < 0)
				bad = true;
		}
	}
	sc_diag_path_join(&p, path, "verifiers");
	if (verifiers(ld, &t, cJSON_GetObjectItemCaseSensitive(obj, "verifiers"), p.ptr) < 0)
		bad = true;
	for (size_t i = 0; i < t.contains.n; i++) {
		if (!t.contains.items[i][0]) {
			finding(ld, SC_SEV_WARNING, obj, "test-empty-contains",
				"%s: an empty 'contains' string matches every answer", path);
			break;
		}
	}

	static const char *const list_keys[] = { "expectations", "assertions" };
	for (size_t k = 0; k < SC_ARRAY_SIZE(list_keys); k++) {
		v = cJSON_GetObjectItemCaseSensitive(obj, list_keys[k]);
		if (!v || cJSON_IsNull(v))
			continue;
		sc_diag_path_join(&p, path, list_keys[k]);
		if (string_list(ld, v, p.ptr, false, &t.expectations) < 0)
			bad = true;
	}

	if (opt_string(ld, obj, "validator", path, &t.validator) < 0 ||
	    opt_string(ld, obj, "output_file", path, &t.output_file) < 0 ||
	    opt_string(ld, obj, "expected_output", path, &t.expected_output) < 0 ||
	    opt_string(ld, obj, "fixture", path, &t.fixture) < 0)
		bad = true;
	sc_diag_path_join(&p, path, "validator_config");
	if (validator_config(ld, &t, cJSON_GetObjectItemCaseSensitive(obj, "validator_config"),
			     p.ptr) < 0)
		bad = true;
	if (t.output_file && !sc_path_is_safe_relative(t.output_file)) {
		sc_diag_path_join(&p, path, "output_file");
		finding(ld, SC_SEV_ERROR, cJSON_GetObjectItemCaseSensitive(obj, "output_file"),
			"test-path", "%s '%s' is not a safe relative path; refused", p.ptr,
			t.output_file);
		bad = true;
	}
	if (t.fixture && !fixture_name_ok(t.fixture)) {
		sc_diag_path_join(&p, path, "fixture");
		finding(ld, SC_SEV_ERROR, cJSON_GetObjectItemCaseSensitive(obj, "fixture"),
			"test-fixture",
			"%s '%s' is not a fixture name (lowercase letters, digits, '-' and '_')",
			p.ptr, t.fixture);
		bad = true;
	}
	if (!bad && t.validator) {  /* upskill's flat fields: one implied validator verifier */
		struct sc_test_verifier *ver = add_verifier(&t, SC_VERIFIER_VALIDATOR, path, t.line);
		ver->implied = true;
		ver->validator = sc_xstrdup(t.validator);
		ver->path = t.output_file ? sc_xstrdup(t.output_file) : NULL;
		ver->config = t.validator_config ? sc_xstrdup(t.validator_config) : NULL;
	}
	if (!bad && !test_has_check(&t)) {
		finding(ld, SC_SEV_ERROR, obj, "test-no-check",
			"%s names nothing skillci can check, so any answer would pass: give "
			"expected.contains, verifiers, a validator, expectations, an "
			"expected_output or a fixture (skillci help tests)", path);
		bad = true;
	}

	has_id = own_id(ld, obj, path, &id);
	if (has_id < 0)
		bad = true;
	if (has_id <= 0)
		sc_buf_sets(&id, path);
	sc_buf_clear(&p);
	sc_buf_printf(&p, "%s#%s", ld->source, id.ptr);
	t.id = sc_buf_detach(&p, NULL);
	sc_buf_release(&id);

	if (bad) {
		test_release(&t);
		return;
	}
	SC_GROW(ld->set->items, ld->set->alloc, ld->set->n + 1);
	ld->set->items[ld->set->n++] = t;
}

static void load_tests_array(struct loader *ld, const cJSON *arr, const char *key,
			     enum sc_test_format format)
{
	struct sc_buf p = SC_BUF_INIT;
	const cJSON *item;
	size_t i = 0;

	if (!arr || cJSON_IsNull(arr))
		return;
	if (!cJSON_IsArray(arr)) {
		type_error(ld, arr, key, "a list of tests");
		return;
	}
	cJSON_ArrayForEach(item, arr) {
		sc_buf_clear(&p);
		sc_buf_printf(&p, "%s[%zu]", key, i++);
		load_test(ld, item, p.ptr, format);
	}
	sc_buf_release(&p);
}

static void load_metadata(struct loader *ld, const cJSON *md)
{
	struct sc_skill_meta *m = &ld->set->meta;
	const cJSON *rate;

	if (!md || cJSON_IsNull(md))
		return;
	if (!cJSON_IsObject(md)) {
		type_error(ld, md, "metadata", "an object");
		return;
	}
	m->present = true;
	opt_string(ld, md, "version", "metadata", &m->version);
	opt_string(ld, md, "generated_by", "metadata", &m->generated_by);
	opt_string(ld, md, "generated_at", "metadata", &m->generated_at);
	opt_string(ld, md, "source_task", "metadata", &m->source_task);
	opt_string(ld, md, "license", "metadata", &m->license);
	opt_string(ld, md, "compatibility", "metadata", &m->compatibility);
	rate = cJSON_GetObjectItemCaseSensitive(md, "test_pass_rate");
	if (rate && !cJSON_IsNull(rate)) {
		if (!cJSON_IsNumber(rate)) {
			type_error(ld, rate, "metadata.test_pass_rate", "a number");
		} else if (rate->valuedouble < 0 || rate->valuedouble > 1) {
			finding(ld, SC_SEV_ERROR, rate, "test-schema",
				"metadata.test_pass_rate must be between 0 and 1, found %g",
				rate->valuedouble);
		} else {
			m->has_test_pass_rate = true;
			m->test_pass_rate = rate->valuedouble;
		}
	}
}

struct id_ref {
	const char *id;
	size_t index;
};

static int cmp_id_ref(const void *a, const void *b)
{
	const struct id_ref *x = a, *y = b;
	int c = strcmp(x->id, y->id);
	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

/*
 * Tests first..n of the set came from one file: a test whose id an
 * earlier test of the file already has is reported and removed. Sorting
 * keeps this O(n log n) for files with thousands of tests.
 */
static void drop_duplicate_ids(struct loader *ld, size_t first)
{
	struct sc_test_set *set = ld->set;
	size_t n = set->n - first, kept = first;
	struct id_ref *refs;
	bool *dup;

	if (n < 2)
		return;
	refs = sc_xcalloc(n, sizeof(*refs));
	dup = sc_xcalloc(n, sizeof(*dup));
	for (size_t i = 0; i < n; i++) {
		refs[i].id = set->items[first + i].id;
		refs[i].index = first + i;
	}
	qsort(refs, n, sizeof(*refs), cmp_id_ref);
	for (size_t i = 1, run = 0; i < n; i++) {
		if (strcmp(refs[i].id, refs[run].id) != 0) {
			run = i;
			continue;
		}
		{
			const struct sc_test *t = &set->items[refs[i].index];
			const struct sc_test *o = &set->items[refs[run].index];
			sc_diags_add(ld->diags, SC_SEV_ERROR, ld->display, t->line, "test-duplicate-id",
				     "%s: id '%s' is used by %s too", t->json_path,
				     strchr(t->id, '#') + 1, o->json_path);
		}
		dup[refs[i].index - first] = true;
	}
	for (size_t i = first; i < set->n; i++) {
		if (dup[i - first])
			test_release(&set->items[i]);
		else
			set->items[kept++] = set->items[i];
	}
	set->n = kept;
	free(refs);
	free(dup);
}

enum expect { EXPECT_ANY, EXPECT_META, EXPECT_SUITE, EXPECT_EVALS };

static void load_root(struct loader *ld, cJSON *root, enum expect expect, const char *kind);

/*
 * Parses the JSON text of one file and loads what it holds. expect says
 * which file this is: skill_meta.json (tests are optional), a suite in
 * tests/ (a file with no tests in it is skipped with a warning), evals.json,
 * or anything (`--tests FILE`).
 */
static void load_text(struct loader *ld, const char *text, size_t len, enum expect expect)
{
	const char *end = NULL;
	cJSON *root = NULL;
	size_t start = 0, bad = 0;

	if (len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3))
		start = 3;
	if (!sc_utf8_check(text + start, len - start, &bad)) {
		sc_diags_add(ld->diags, SC_SEV_ERROR, ld->display, offset_line(text, start + bad),
			     "test-json", "invalid UTF-8 at byte %zu", start + bad);
		return;
	}
	if (memchr(text, '\0', len)) {
		size_t off = (size_t)((const char *)memchr(text, '\0', len) - text);
		sc_diags_add(ld->diags, SC_SEV_ERROR, ld->display, offset_line(text, off),
			     "test-json", "invalid JSON: NUL byte at byte %zu", off);
		return;
	}
	root = cJSON_ParseWithLengthOpts(text + start, len - start, &end, 0);
	if (root && end) {  /* only whitespace may follow the value */
		size_t i = (size_t)(end - text);
		skip_ws(text, len, &i);
		if (i < len) {
			cJSON_Delete(root);
			root = NULL;
			end = text + i;
		}
	}
	if (!root) {
		size_t off = end ? (size_t)(end - text) : len, rest;
		const char *what = "syntax error";
		if (off > len)
			off = len;
		rest = off;
		skip_ws(text, len, &rest);
		if (rest >= len) {
			what = "unexpected end of file";
			off = len;
		}
		sc_diags_add(ld->diags, SC_SEV_ERROR, ld->display, offset_line(text, off),
			     "test-json", "invalid JSON: %s", what);
		return;
	}
	index_build(&ld->ix, root, text, len, start);
	load_root(ld, root, expect, "JSON");
}

/*
 * Loads what the parsed document root holds (ld->ix indexes its nodes'
 * lines), then frees root and the index. kind names the document's
 * language in messages ("JSON", "YAML").
 */
static void load_root(struct loader *ld, cJSON *root, enum expect expect, const char *kind)
{
	size_t first = ld->set->n;

	if (cJSON_IsArray(root) && (expect == EXPECT_ANY || expect == EXPECT_SUITE)) {
		load_tests_array(ld, root, "", SC_TESTS_LIST);
	} else if (!cJSON_IsObject(root)) {
		finding(ld, SC_SEV_ERROR, root, "test-schema",
			"the file must hold a %s object%s, found %s", kind,
			expect == EXPECT_ANY || expect == EXPECT_SUITE ? " or a list of tests" : "",
			json_type(root));
	} else if (expect == EXPECT_META) {
		load_metadata(ld, cJSON_GetObjectItemCaseSensitive(root, "metadata"));
		load_tests_array(ld, cJSON_GetObjectItemCaseSensitive(root, "tests"), "tests",
				 SC_TESTS_SKILL_META);
	} else if (expect == EXPECT_EVALS ||
		   (expect == EXPECT_ANY && cJSON_HasObjectItem(root, "evals"))) {
		const cJSON *name = cJSON_GetObjectItemCaseSensitive(root, "skill_name");
		if (name && !cJSON_IsNull(name) && !cJSON_IsString(name))
			type_error(ld, name, "skill_name", "a string");
		else if (cJSON_IsString(name) && !ld->set->evals_skill_name)
			ld->set->evals_skill_name = sc_xstrdup(name->valuestring);
		if (!cJSON_HasObjectItem(root, "evals"))
			finding(ld, SC_SEV_ERROR, root, "test-schema", "evals is missing");
		load_tests_array(ld, cJSON_GetObjectItemCaseSensitive(root, "evals"), "evals",
				 SC_TESTS_EVALS);
	} else if (cJSON_HasObjectItem(root, "cases")) {
		load_tests_array(ld, cJSON_GetObjectItemCaseSensitive(root, "cases"), "cases",
				 SC_TESTS_CASES);
	} else if (cJSON_HasObjectItem(root, "tests")) {
		load_metadata(ld, cJSON_GetObjectItemCaseSensitive(root, "metadata"));
		load_tests_array(ld, cJSON_GetObjectItemCaseSensitive(root, "tests"), "tests",
				 SC_TESTS_SKILL_META);
	} else if (expect == EXPECT_SUITE) {
		finding(ld, SC_SEV_WARNING, root, "test-not-suite",
			"no \"cases\", \"tests\" or \"evals\" here: not a test suite, ignored");
	} else {
		finding(ld, SC_SEV_ERROR, root, "test-schema",
			"not a test file: expected \"tests\", \"cases\", \"evals\" or a list of tests");
	}
	drop_duplicate_ids(ld, first);
	cJSON_Delete(root);
	free(ld->ix.items);
	memset(&ld->ix, 0, sizeof(ld->ix));
}

/* ---- YAML suites ------------------------------------------------------ */

static void index_add(struct json_index *ix, const cJSON *node, size_t line)
{
	SC_GROW(ix->items, ix->alloc, ix->n + 1);
	ix->items[ix->n].node = node;
	ix->items[ix->n].offset = 0;
	ix->items[ix->n++].line = line;
}

/* A plain scalar that reads as a number: digits, sign, point and exponent
 * only (so "nan", "inf" and "0x10" stay strings) and finite. */
static bool yaml_number(const struct sc_yaml_node *n, double *out)
{
	char *end;
	if (!sc_yaml_is_number(n) || strspn(n->value, "0123456789+-.eE") != strlen(n->value))
		return false;
	*out = strtod(n->value, &end);
	return isfinite(*out);
}

/*
 * The YAML node n as a cJSON value, with the line of every value recorded
 * in ld->ix, as upskill's YAML loader (PyYAML's safe_load, YAML 1.1) reads
 * it: plain null, booleans (yes/no, on/off too) and numbers are typed,
 * quoted and block scalars and explicit tags are strings. A key that is not
 * a scalar or that a map repeats is an error (a repeated key would
 * silently replace the first); returns NULL after reporting it.
 */
static cJSON *yaml_to_json(struct loader *ld, const struct sc_yaml_node *n)
{
	cJSON *out;
	double num;
	int b;

	if (n->kind == SC_YAML_SCALAR) {
		if (sc_yaml_is_null(n))
			out = cJSON_CreateNull();
		else if (sc_yaml_is_bool(n, &b))
			out = cJSON_CreateBool(b);
		else if (yaml_number(n, &num))
			out = cJSON_CreateNumber(num);
		else
			out = cJSON_CreateString(n->value);
	} else if (n->kind == SC_YAML_SEQ) {
		out = cJSON_CreateArray();
		for (size_t i = 0; i < n->nchildren; i++) {
			cJSON *item = yaml_to_json(ld, n->children[i]);
			if (!item) {
				cJSON_Delete(out);
				return NULL;
			}
			cJSON_AddItemToArray(out, item);
		}
	} else {
		out = cJSON_CreateObject();
		for (size_t i = 0; i < sc_yaml_count(n); i++) {
			const struct sc_yaml_node *k = sc_yaml_map_key(n, i);
			cJSON *val;
			if (k->kind != SC_YAML_SCALAR) {
				sc_diags_add(ld->diags, SC_SEV_ERROR, ld->display, k->line,
					     "test-yaml", "a map key must be a plain string, found "
					     "a %s", sc_yaml_type_name(k));
				cJSON_Delete(out);
				return NULL;
			}
			if (cJSON_GetObjectItemCaseSensitive(out, k->value)) {
				sc_diags_add(ld->diags, SC_SEV_ERROR, ld->display, k->line,
					     "test-yaml", "key '%s' appears twice in one map",
					     k->value);
				cJSON_Delete(out);
				return NULL;
			}
			if (!(val = yaml_to_json(ld, sc_yaml_map_value(n, i)))) {
				cJSON_Delete(out);
				return NULL;
			}
			cJSON_AddItemToObject(out, k->value, val);
		}
	}
	if (!out)
		sc_die("out of memory");
	index_add(&ld->ix, out, n->line);
	return out;
}

/* "FILE:LINE:COL: problem" (sc_yaml_parse's message) split into line and
 * problem; line 0 when the message has no position. */
static size_t yaml_error_line(const char *msg, const char *file, const char **problem)
{
	size_t n = strlen(file), line = 0;
	const char *p = msg;

	*problem = msg;
	if (strncmp(msg, file, n) != 0 || msg[n] != ':')
		return 0;
	p = msg + n + 1;
	while (*p >= '0' && *p <= '9')
		line = line * 10 + (size_t)(*p++ - '0');
	if (*p == ':') {
		p++;
		while (*p >= '0' && *p <= '9')
			p++;
		if (*p == ':')
			p++;
		while (*p == ' ')
			p++;
		*problem = p;
	}
	return line;
}

/* The YAML counterpart of load_text(): parse with libyaml (format/yaml),
 * convert to the JSON model, load. */
static void load_yaml_text(struct loader *ld, const char *text, size_t len, enum expect expect)
{
	struct sc_yaml_node *doc = NULL;
	size_t bad = 0;
	cJSON *root;

	if (!sc_utf8_check(text, len, &bad)) {
		sc_diags_add(ld->diags, SC_SEV_ERROR, ld->display, offset_line(text, bad),
			     "test-yaml", "invalid UTF-8 at byte %zu", bad);
		return;
	}
	if (sc_yaml_parse(&doc, text, len, ld->display, 0) < 0) {
		const char *problem;
		size_t line = yaml_error_line(sc_error_last(), ld->display, &problem);
		sc_diags_add(ld->diags, SC_SEV_ERROR, ld->display, line, "test-yaml",
			     "invalid YAML: %s", problem);
		return;
	}
	root = yaml_to_json(ld, doc);
	sc_yaml_free(doc);
	if (!root) {
		free(ld->ix.items);
		memset(&ld->ix, 0, sizeof(ld->ix));
		return;
	}
	qsort(ld->ix.items, ld->ix.n, sizeof(*ld->ix.items), cmp_pos);
	load_root(ld, root, expect, "YAML");
}

/* True for a file name that holds YAML (.yaml, .yml). */
static bool yaml_name(const char *name)
{
	return sc_ends_with(name, ".yaml") || sc_ends_with(name, ".yml");
}

/* True when path, symlinks resolved, lies inside the skill folder. */
static bool inside_skill(const struct loader *ld, const char *path)
{
	char real[PATH_MAX];
	size_t rl;

	if (!ld->skill_real || !realpath(path, real))
		return false;
	rl = strlen(ld->skill_real);
	return !strncmp(real, ld->skill_real, rl) &&
	       (real[rl] == '/' || !strcmp(ld->skill_real, "/"));
}

/*
 * Reads and loads the test file at full. A file of the skill itself
 * (inside) that is a symlink leading out of the skill folder is refused
 * unread; a file named on the command line is read where it is.
 */
static int load_path(struct loader *ld, const char *full, const char *display,
		     const char *source, enum expect expect, bool inside)
{
	struct sc_buf data = SC_BUF_INIT;
	struct stat st;
	int err;

	ld->display = display;
	ld->source = source;
	if (inside && lstat(full, &st) == 0 && !inside_skill(ld, full)) {
		sc_diags_add(ld->diags, SC_SEV_ERROR, display, 0, "test-path",
			     "'%s' leads outside the skill folder (symlink); not read", source);
		return SC_EUNSAFE;
	}
	err = sc_read_file(&data, full, SC_MAX_JSON_BYTES);
	if (err < 0) {
		if (err != SC_ENOTFOUND)
			sc_diags_add(ld->diags, SC_SEV_ERROR, display, 0,
				     err == SC_ELIMIT ? "test-limit" : "test-file", "%s",
				     sc_error_last());
		sc_buf_release(&data);
		return err;
	}
	sc_strlist_add(&ld->set->sources, source);
	if (yaml_name(full))
		load_yaml_text(ld, data.ptr, data.len, expect);
	else
		load_text(ld, data.ptr, data.len, expect);
	sc_buf_release(&data);
	return 0;
}

/* The names of the JSON and YAML files in skill_dir/tests, sorted. */
static void list_suites(struct loader *ld, const char *skill_dir, struct sc_strlist *out)
{
	struct sc_buf dir = SC_BUF_INIT, full = SC_BUF_INIT;
	struct dirent *de;
	DIR *d;

	sc_path_join(&dir, skill_dir, "tests");
	d = opendir(dir.ptr);
	if (!d)
		goto done;
	while ((de = readdir(d))) {
		struct stat st;
		if (de->d_name[0] == '.' ||
		    (!sc_ends_with(de->d_name, ".json") && !yaml_name(de->d_name)))
			continue;
		sc_path_join(&full, dir.ptr, de->d_name);
		if (lstat(full.ptr, &st) < 0 || !S_ISREG(st.st_mode))
			continue;  /* symlinks to suites are not followed */
		if (out->n >= SC_MAX_TEST_SUITE_FILES) {
			sc_diags_add(ld->diags, SC_SEV_WARNING, dir.ptr, 0, "test-limit",
				     "more than %d test suites; the rest are ignored",
				     SC_MAX_TEST_SUITE_FILES);
			break;
		}
		sc_strlist_add(out, de->d_name);
	}
	closedir(d);
	if (out->n > 1)
		qsort(out->items, out->n, sizeof(*out->items), sc_strcmp_qsort);
done:
	sc_buf_release(&dir);
	sc_buf_release(&full);
}

static void loader_init(struct loader *ld, struct sc_test_set *set, const char *skill_dir,
			struct sc_diags *diags)
{
	char real[PATH_MAX];
	memset(ld, 0, sizeof(*ld));
	ld->set = set;
	ld->diags = diags;
	ld->skill_dir = skill_dir;
	ld->skill_real = realpath(skill_dir, real) ? sc_xstrdup(real) : NULL;
}

int sc_tests_load_skill(struct sc_test_set *out, const char *skill_dir, struct sc_diags *diags)
{
	struct sc_buf full = SC_BUF_INIT, rel = SC_BUF_INIT, shown = SC_BUF_INIT;
	struct sc_strlist suites = { 0 };
	struct loader ld;
	struct stat st;
	int err = 0;

	if (stat(skill_dir, &st) < 0)
		return sc_error_set(errno == ENOENT ? SC_ENOTFOUND : SC_EIO,
				    "cannot open skill folder '%s': %s", skill_dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sc_error_set(SC_EINVAL, "'%s' is not a folder", skill_dir);
	loader_init(&ld, out, skill_dir, diags);

	sc_path_join(&full, skill_dir, "skill_meta.json");
	load_path(&ld, full.ptr, full.ptr, "skill_meta.json", EXPECT_META, true);

	list_suites(&ld, skill_dir, &suites);
	for (size_t i = 0; i < suites.n; i++) {
		sc_buf_clear(&rel);
		sc_buf_printf(&rel, "tests/%s", suites.items[i]);
		sc_path_join(&full, skill_dir, rel.ptr);
		sc_buf_sets(&shown, full.ptr);
		load_path(&ld, full.ptr, shown.ptr, rel.ptr, EXPECT_SUITE, true);
	}

	sc_path_join(&full, skill_dir, "evals/evals.json");
	load_path(&ld, full.ptr, full.ptr, "evals/evals.json", EXPECT_EVALS, true);
	err = sc_tests_load_triggers(out, skill_dir, diags);

	sc_strlist_release(&suites);
	sc_buf_release(&full);
	sc_buf_release(&rel);
	sc_buf_release(&shown);
	free(ld.skill_real);
	return err;
}

int sc_tests_load_file(struct sc_test_set *out, const char *path, const char *skill_dir,
		       struct sc_diags *diags)
{
	struct sc_buf base = SC_BUF_INIT;
	const char *source = path;
	struct loader ld;
	struct stat st;
	size_t n;
	int err;

	if (stat(path, &st) < 0)
		return sc_error_set(errno == ENOENT ? SC_ENOTFOUND : SC_EIO,
				    "cannot open test file '%s': %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		return sc_error_set(SC_EINVAL, "test file '%s' is not a regular file", path);
	if ((uint64_t)st.st_size > SC_MAX_JSON_BYTES)
		return sc_error_set(SC_ELIMIT, "test file '%s' is %lld bytes, more than the limit of %d",
				    path, (long long)st.st_size, SC_MAX_JSON_BYTES);
	if (!skill_dir) {  /* context files are then resolved beside the test file */
		const char *slash = strrchr(path, '/');
		if (slash)
			sc_buf_put(&base, path, (size_t)(slash - path) + (slash == path));
		else
			sc_buf_puts(&base, ".");
		skill_dir = base.ptr;
	}
	n = strlen(skill_dir);
	while (n > 1 && skill_dir[n - 1] == '/')
		n--;
	if (!strncmp(path, skill_dir, n) && path[n] == '/' && strcmp(skill_dir, "."))
		source = path + n + 1;
	loader_init(&ld, out, skill_dir, diags);
	err = load_path(&ld, path, path, source, EXPECT_ANY, false);
	free(ld.skill_real);
	sc_buf_release(&base);
	return err == SC_ENOTFOUND ? err : 0;
}

/* ---- upskill's evals manifest ------------------------------------------ */

/* One path or a list of paths (node at key), appended to out when safe. */
static void manifest_paths(struct sc_strlist *out, const struct sc_yaml_node *v, const char *key,
			   const char *display, struct sc_diags *diags)
{
	size_t n = v && v->kind == SC_YAML_SEQ ? sc_yaml_count(v) : 1;

	if (!v || (v->kind == SC_YAML_MAP) || (v->kind == SC_YAML_SCALAR && sc_yaml_is_null(v))) {
		sc_diags_add(diags, SC_SEV_ERROR, display, v ? v->line : 0, "test-manifest",
			     "%s must be a path or a list of paths", key);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sc_yaml_node *p = v->kind == SC_YAML_SEQ ? sc_yaml_seq_item(v, i) : v;
		if (p->kind != SC_YAML_SCALAR || sc_yaml_is_null(p)) {
			sc_diags_add(diags, SC_SEV_ERROR, display, p->line, "test-manifest",
				     "%s must be a path or a list of paths, found a %s", key,
				     sc_yaml_type_name(p));
			continue;
		}
		if (!sc_path_is_safe_relative(p->value)) {
			sc_diags_add(diags, SC_SEV_ERROR, display, p->line, "test-path",
				     "%s '%s' is not a relative path inside the repository; refused",
				     key, p->value);
			continue;
		}
		if (!sc_strlist_has(out, p->value))
			sc_strlist_add(out, p->value);
	}
}

/* True when the manifest's skill key names the skill: its folder or name. */
static bool manifest_skill(const char *key, const char *skill_path, const char *skill_name)
{
	size_t n = strlen(key);

	while (n > 1 && key[n - 1] == '/')
		n--;
	if (skill_path && strlen(skill_path) == n && !strncmp(key, skill_path, n))
		return true;
	return skill_name && !strcmp(key, skill_name);
}

int sc_tests_evals_manifest(struct sc_strlist *out, const char *text, size_t len,
			    const char *display, const char *skill_path, const char *skill_name,
			    struct sc_diags *diags)
{
	static const char *const file_keys[] = { "suites", "suite", "tests" };
	struct sc_yaml_node *doc = NULL;
	const struct sc_yaml_node *evals, *skills;

	if (sc_yaml_parse(&doc, text, len, display, 0) < 0) {
		const char *problem;
		size_t line = yaml_error_line(sc_error_last(), display, &problem);
		sc_diags_add(diags, SC_SEV_ERROR, display, line, "test-manifest", "invalid YAML: %s",
			     problem);
		sc_error_clear();
		return 0;
	}
	if (doc->kind != SC_YAML_MAP) {
		if (!sc_yaml_is_null(doc))
			sc_diags_add(diags, SC_SEV_ERROR, display, doc->line, "test-manifest",
				     "the manifest must be a map with 'evals' or 'skills', found a %s",
				     sc_yaml_type_name(doc));
		sc_yaml_free(doc);
		return 0;
	}
	evals = sc_yaml_map_get(doc, "evals");
	skills = sc_yaml_map_get(doc, "skills");
	if (evals && evals->kind != SC_YAML_SEQ)
		sc_diags_add(diags, SC_SEV_ERROR, display, evals->line, "test-manifest",
			     "evals must be a list of {skill, suites}");
	for (size_t i = 0; evals && evals->kind == SC_YAML_SEQ && i < sc_yaml_count(evals); i++) {
		const struct sc_yaml_node *e = sc_yaml_seq_item(evals, i), *sk, *files = NULL;
		const char *key = "suites";
		if (e->kind != SC_YAML_MAP || !(sk = sc_yaml_map_get(e, "skill")) ||
		    sk->kind != SC_YAML_SCALAR || sc_yaml_is_null(sk)) {
			sc_diags_add(diags, SC_SEV_ERROR, display, e->line, "test-manifest",
				     "evals[%zu] must be a map with 'skill' (a folder or a name)", i);
			continue;
		}
		for (size_t k = 0; k < SC_ARRAY_SIZE(file_keys) && !files; k++)
			if ((files = sc_yaml_map_get(e, file_keys[k])))
				key = file_keys[k];
		if (!files) {
			sc_diags_add(diags, SC_SEV_ERROR, display, e->line, "test-manifest",
				     "evals[%zu] names no test file: give 'suites' (or 'suite', 'tests')",
				     i);
			continue;
		}
		if (manifest_skill(sk->value, skill_path, skill_name))
			manifest_paths(out, files, key, display, diags);
	}
	if (skills && skills->kind != SC_YAML_MAP)
		sc_diags_add(diags, SC_SEV_ERROR, display, skills->line, "test-manifest",
			     "skills must be a map of skill (folder or name) to test files");
	for (size_t i = 0; skills && skills->kind == SC_YAML_MAP && i < sc_yaml_count(skills); i++) {
		const struct sc_yaml_node *k = sc_yaml_map_key(skills, i);
		if (k->kind == SC_YAML_SCALAR && manifest_skill(k->value, skill_path, skill_name))
			manifest_paths(out, sc_yaml_map_value(skills, i), k->value, display, diags);
	}
	if (!evals && !skills)
		sc_diags_add(diags, SC_SEV_WARNING, display, doc->line, "test-manifest",
			     "neither 'evals' nor 'skills' here: no test files mapped");
	sc_yaml_free(doc);
	return 0;
}

/* fixtures_dir/name/prompt.md, with fixtures_dir under repo_root unless absolute. */
static void fixture_prompt_path(struct sc_buf *out, const char *repo_root,
				const char *fixtures_dir, const char *name)
{
	struct sc_buf rel = SC_BUF_INIT;

	sc_buf_printf(&rel, "%s/prompt.md", name);
	if (fixtures_dir[0] == '/' || !repo_root || !strcmp(repo_root, "."))
		sc_path_join(out, fixtures_dir, rel.ptr);
	else {
		struct sc_buf dir = SC_BUF_INIT;
		sc_path_join(&dir, repo_root, fixtures_dir);
		sc_path_join(out, dir.ptr, rel.ptr);
		sc_buf_release(&dir);
	}
	sc_buf_release(&rel);
}

int sc_tests_load_manifest(struct sc_test_set *out, const struct sc_strlist *test_files,
			   const struct sc_strlist *fixtures, const char *repo_root,
			   const char *fixtures_dir, const char *skill_dir,
			   const char *config_file, size_t line, struct sc_diags *diags)
{
	struct sc_buf full = SC_BUF_INIT, prompt = SC_BUF_INIT, id = SC_BUF_INIT;

	for (size_t i = 0; test_files && i < test_files->n; i++) {
		const char *rel = test_files->items[i];
		if (!sc_path_is_safe_relative(rel)) {
			sc_diags_add(diags, SC_SEV_ERROR, config_file, line, "test-path",
				     "manifest test file '%s' is not a relative path inside the "
				     "repository; refused", rel);
			continue;
		}
		sc_path_join(&full, repo_root ? repo_root : ".", rel);
		if (sc_tests_load_file(out, full.ptr, skill_dir, diags) == SC_ENOTFOUND)
			sc_diags_add(diags, SC_SEV_ERROR, config_file, line, "test-file",
				     "manifest test file '%s' does not exist", rel);
	}
	for (size_t i = 0; fixtures && i < fixtures->n; i++) {
		const char *name = fixtures->items[i];
		struct sc_test t;
		bool used = false;
		int err;

		for (size_t k = 0; k < out->n && !used; k++)
			used = out->items[k].fixture && !strcmp(out->items[k].fixture, name);
		if (used)
			continue;
		if (!fixture_name_ok(name)) {
			sc_diags_add(diags, SC_SEV_ERROR, config_file, line, "test-fixture",
				     "'%s' is not a fixture name", name);
			continue;
		}
		if (out->n >= SC_MAX_TESTS_PER_SKILL)
			break;
		fixture_prompt_path(&full, repo_root, fixtures_dir ? fixtures_dir : "fixtures", name);
		sc_buf_clear(&prompt);
		err = sc_read_file(&prompt, full.ptr, SC_MAX_CONTEXT_FILE_BYTES);
		if (err < 0 || !prompt.len || !is_text(prompt.ptr, prompt.len)) {
			sc_diags_add(diags, SC_SEV_ERROR, config_file, line, "test-fixture",
				     "fixture '%s' has no usable prompt: %s", name,
				     err < 0 ? sc_error_last() : "empty or not UTF-8 text");
			continue;
		}
		memset(&t, 0, sizeof(t));
		sc_buf_clear(&id);
		sc_buf_printf(&id, "%s#fixture:%s", config_file, name);
		t.id = sc_xstrdup(id.ptr);
		t.source = sc_xstrdup(config_file);
		sc_buf_clear(&id);
		sc_buf_printf(&id, "fixtures[%s]", name);
		t.json_path = sc_xstrdup(id.ptr);
		t.line = line;
		t.format = SC_TESTS_CASES;
		t.input = sc_xstrdup(prompt.ptr);
		t.fixture = sc_xstrdup(name);
		SC_GROW(out->items, out->alloc, out->n + 1);
		out->items[out->n++] = t;
	}
	sc_buf_release(&full);
	sc_buf_release(&prompt);
	sc_buf_release(&id);
	return 0;
}

static char *dup0(const char *s)
{
	return s ? sc_xstrdup(s) : NULL;
}

static void strlist_copy(struct sc_strlist *out, const struct sc_strlist *in)
{
	for (size_t i = 0; i < in->n; i++)
		sc_strlist_add(out, in->items[i]);
}

void sc_test_set_remove(struct sc_test_set *set, size_t i)
{
	assert(i < set->n);
	test_release(&set->items[i]);
	memmove(&set->items[i], &set->items[i + 1], (set->n - i - 1) * sizeof(*set->items));
	set->n--;
}

void sc_test_set_add_copy(struct sc_test_set *set, const struct sc_test *t)
{
	struct sc_test *c;

	SC_GROW(set->items, set->alloc, set->n + 1);
	c = &set->items[set->n++];
	memset(c, 0, sizeof(*c));
	c->id = dup0(t->id);
	c->source = dup0(t->source);
	c->json_path = dup0(t->json_path);
	c->line = t->line;
	c->format = t->format;
	c->input = dup0(t->input);
	strlist_copy(&c->contains, &t->contains);
	strlist_copy(&c->expectations, &t->expectations);
	if (t->nfiles) {
		c->files = sc_xcalloc(t->nfiles, sizeof(*c->files));
		c->nfiles = c->files_alloc = t->nfiles;
		for (size_t i = 0; i < t->nfiles; i++) {
			c->files[i] = t->files[i];
			c->files[i].name = dup0(t->files[i].name);
			c->files[i].content = dup0(t->files[i].content);
		}
	}
	for (size_t i = 0; i < t->nverifiers; i++) {
		const struct sc_test_verifier *v = &t->verifiers[i];
		struct sc_test_verifier *w = add_verifier(c, v->type, v->json_path, v->line);
		w->path = dup0(v->path);
		strlist_copy(&w->values, &v->values);
		w->command = dup0(v->command);
		w->exit_code = v->exit_code;
		w->timeout_s = v->timeout_s;
		w->validator = dup0(v->validator);
		w->config = dup0(v->config);
		w->implied = v->implied;
	}
	c->validator = dup0(t->validator);
	c->output_file = dup0(t->output_file);
	c->validator_config = dup0(t->validator_config);
	c->fixture = dup0(t->fixture);
	c->expected_output = dup0(t->expected_output);
	c->trigger = t->trigger;
}

void sc_test_set_release(struct sc_test_set *set)
{
	struct sc_skill_meta *m = &set->meta;

	for (size_t i = 0; i < set->n; i++)
		test_release(&set->items[i]);
	free(set->items);
	free(m->version);
	free(m->generated_by);
	free(m->generated_at);
	free(m->source_task);
	free(m->license);
	free(m->compatibility);
	free(set->evals_skill_name);
	sc_strlist_release(&set->sources);
	memset(set, 0, sizeof(*set));
}

bool sc_test_is_kernel(const struct sc_test *t)
{
	return t->fixture != NULL;
}

bool sc_test_has_workspace_verifier(const struct sc_test *t)
{
	for (size_t i = 0; i < t->nverifiers; i++)
		if (t->verifiers[i].type != SC_VERIFIER_CONTAINS)
			return true;
	return false;
}

bool sc_test_needs_workspace(const struct sc_test *t)
{
	return t->nfiles > 0 || sc_test_has_workspace_verifier(t);
}

bool sc_test_needs_grader(const struct sc_test *t)
{
	for (size_t i = 0; i < t->expectations.n; i++)
		if (t->expectations.items[i][0])
			return true;
	return t->expected_output && t->expected_output[0];
}

/* ---- hashing and the oracle answer ------------------------------------ */

static void hash_field(struct sc_sha256 *ctx, const char *tag, const char *s)
{
	char head[64];
	int n;

	if (!s)
		n = snprintf(head, sizeof(head), "%s:-;", tag);
	else
		n = snprintf(head, sizeof(head), "%s:%zu:", tag, strlen(s));
	sc_sha256_update(ctx, head, (size_t)n);
	if (s)
		sc_sha256_update(ctx, s, strlen(s));
}

static void hash_list(struct sc_sha256 *ctx, const char *tag, const struct sc_strlist *l)
{
	char head[64];
	int n = snprintf(head, sizeof(head), "%s#%zu;", tag, l->n);

	sc_sha256_update(ctx, head, (size_t)n);
	for (size_t i = 0; i < l->n; i++)
		hash_field(ctx, "item", l->items[i]);
}

void sc_test_hash(char out[65], const struct sc_test *t)
{
	unsigned char digest[SC_SHA256_LEN];
	struct sc_buf hex = SC_BUF_INIT;
	struct sc_sha256 ctx;
	char head[64];
	int n;

	sc_sha256_init(&ctx);
	hash_field(&ctx, "skillci-test", "1");
	hash_field(&ctx, "input", t->input);
	hash_list(&ctx, "contains", &t->contains);
	hash_list(&ctx, "expectations", &t->expectations);
	n = snprintf(head, sizeof(head), "files#%zu;", t->nfiles);
	sc_sha256_update(&ctx, head, (size_t)n);
	for (size_t i = 0; i < t->nfiles; i++) {
		hash_field(&ctx, "name", t->files[i].name);
		hash_field(&ctx, "sha256", t->files[i].sha256);
	}
	hash_field(&ctx, "validator", t->validator);
	hash_field(&ctx, "output_file", t->output_file);
	hash_field(&ctx, "validator_config", t->validator_config);
	hash_field(&ctx, "fixture", t->fixture);
	hash_field(&ctx, "expected_output", t->expected_output);
	/* The workspace verifiers a "verifiers" list names (contains values are
	 * hashed above, implied validators as the flat fields), only when there
	 * are any, so the hash of every test without them is what it was. */
	for (size_t i = 0; i < t->nverifiers; i++) {
		const struct sc_test_verifier *v = &t->verifiers[i];
		char num[64];
		if (v->implied || v->type == SC_VERIFIER_CONTAINS)
			continue;
		hash_field(&ctx, "verifier", sc_verifier_type_name(v->type));
		hash_field(&ctx, "path", v->path);
		hash_list(&ctx, "values", &v->values);
		hash_field(&ctx, "command", v->command);
		snprintf(num, sizeof(num), "%d/%.17g", v->exit_code, v->timeout_s);
		hash_field(&ctx, "exit_timeout", num);
		hash_field(&ctx, "validator", v->validator);
		hash_field(&ctx, "config", v->config);
	}
	/* a trigger query's expectation, only for those (older hashes stay) */
	if (t->trigger)
		hash_field(&ctx, "trigger", t->trigger > 0 ? "should_trigger" : "should_not_trigger");
	sc_sha256_final(&ctx, digest);
	sc_hex(&hex, digest, sizeof(digest));
	memcpy(out, hex.ptr, SC_SHA256_HEX_LEN + 1);
	sc_buf_release(&hex);
}

int sc_tests_oracle_answer(const struct sc_test *t, struct sc_buf *out)
{
	if (t->fixture)
		return sc_error_set(SC_EINVAL,
				    "test '%s' is a kernel test: its answer is the reference "
				    "solution of fixture '%s'", t->id, t->fixture);
	if (t->expected_output) {
		sc_buf_puts(out, t->expected_output);
		return 0;
	}
	if (!t->contains.n) {
		sc_buf_puts(out, "This test defines no reference answer.");
		return 0;
	}
	sc_buf_puts(out, "This reference answer contains ");
	for (size_t i = 0; i < t->contains.n; i++) {
		if (i)
			sc_buf_puts(out, i + 1 == t->contains.n ? " and " : ", ");
		sc_buf_printf(out, "\"%s\"", t->contains.items[i]);
	}
	sc_buf_putc(out, '.');
	return 0;
}
