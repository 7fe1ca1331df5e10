/*
 * The teacher's answers read (generate.h): the JSON object in an answer,
 * a skill and its files, test cases; and what is written from them:
 * SKILL.md, skill_meta.json, JSON as upskill writes it.
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

/* ---- structured output ---------------------------------------------------- */

/* Parses text[0..len) as a JSON object; NULL when it is not one. */
static cJSON *parse_object(const char *text, size_t len)
{
	cJSON *j = cJSON_ParseWithLength(text, len);

	if (j && !cJSON_IsObject(j) && !cJSON_IsArray(j)) {
		cJSON_Delete(j);
		return NULL;
	}
	return j;
}

/*
 * The span of the first balanced {...} or [...] starting at or after s,
 * skipping braces inside JSON strings. Returns false when none closes.
 */
static bool balanced_span(const char *s, const char **start, size_t *len)
{
	const char *p = s;

	for (;;) {
		const char *open = strpbrk(p, "{[");
		int depth = 0;
		bool in_str = false;

		if (!open)
			return false;
		for (const char *q = open; *q; q++) {
			if (in_str) {
				if (*q == '\\' && q[1])
					q++;
				else if (*q == '"')
					in_str = false;
				continue;
			}
			if (*q == '"')
				in_str = true;
			else if (*q == '{' || *q == '[')
				depth++;
			else if ((*q == '}' || *q == ']') && --depth == 0) {
				*start = open;
				*len = (size_t)(q - open) + 1;
				return true;
			}
		}
		p = open + 1;
	}
}

int sc_gen_extract_json(struct sc_buf *out, const char *answer)
{
	const char *p = answer, *start;
	size_t len;

	if (strlen(answer) > SC_GEN_MAX_ANSWER_BYTES)
		return sc_error_set(SC_EPARSE, "the answer is larger than %d bytes",
				    SC_GEN_MAX_ANSWER_BYTES);
	/* fenced blocks first: ``` at a line start, up to the closing ``` line */
	while ((p = strstr(p, "```")) != NULL) {
		const char *body = strchr(p, '\n'), *end;
		cJSON *j;

		if (!body)
			break;
		body++;
		end = body;
		while ((end = strstr(end, "```")) != NULL && end > body && end[-1] != '\n')
			end += 3;
		if (!end)
			break;
		j = parse_object(body, (size_t)(end - body));
		if (j) {
			cJSON_Delete(j);
			sc_buf_put(out, body, (size_t)(end - body));
			return 0;
		}
		p = end + 3;
	}
	/* bare JSON, possibly with prose around it */
	p = answer;
	while (balanced_span(p, &start, &len)) {
		cJSON *j = parse_object(start, len);
		if (j) {
			cJSON_Delete(j);
			sc_buf_put(out, start, len);
			return 0;
		}
		p = start + 1;
	}
	{
		cJSON *j = cJSON_Parse(answer);
		const char *where = cJSON_GetErrorPtr();
		cJSON_Delete(j);
		if (strchr(answer, '{') && where && *where)
			return sc_error_set(SC_EPARSE, "the JSON object in the answer does not parse "
					    "(near \"%.30s\")", where);
	}
	return sc_error_set(SC_EPARSE, "no JSON object in the answer");
}

/*
 * The one rule for a file name a model chose (generate.h): components of
 * portable characters (A-Z a-z 0-9 . _ -), none empty or beginning with
 * '.' (so no ".", "..", ".git" or hidden file), at most
 * SC_GEN_MAX_NAME_DEPTH components and SC_GEN_MAX_NAME_BYTES bytes.
 */
bool sc_gen_name_ok(const char *rel, struct sc_buf *why)
{
	size_t len, depth = 1, comp = 0;

	if (!rel || !*rel) {
		sc_buf_sets(why, "it is empty");
		return false;
	}
	len = strlen(rel);
	if (len > SC_GEN_MAX_NAME_BYTES) {
		sc_buf_printf(why, "it is %zu bytes, more than %d", len, SC_GEN_MAX_NAME_BYTES);
		return false;
	}
	for (size_t i = 0; i <= len; i++) {
		unsigned char c = (unsigned char)rel[i];
		if (c == '/' || c == 0) {
			if (comp == 0) {
				sc_buf_sets(why, "it has an empty component");
				return false;
			}
			if (c == '/' && ++depth > SC_GEN_MAX_NAME_DEPTH) {
				sc_buf_printf(why, "it is more than %d folders deep",
					      SC_GEN_MAX_NAME_DEPTH);
				return false;
			}
			comp = 0;
			continue;
		}
		if (comp == 0 && c == '.') {
			sc_buf_sets(why, "a component begins with '.' (hidden, '.git', '..')");
			return false;
		}
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-')) {
			sc_buf_printf(why, "byte 0x%02x is not a portable file name character "
				      "(A-Z a-z 0-9 . _ -)", c);
			return false;
		}
		comp++;
	}
	return true;
}

/* Adds one reference file; SC_EPARSE for an unsafe name or one too large. */
static int add_ref(struct sc_gen_draft *d, const char *name, const char *content)
{
	struct sc_buf why = SC_BUF_INIT, shown = SC_BUF_INIT;
	int err;

	if (!name || !*name || !content)
		return sc_error_set(SC_EPARSE, "each reference needs a name and string content");
	if (sc_starts_with(name, "references/"))
		name += strlen("references/");
	if (!sc_gen_name_ok(name, &why)) {
		/* the message goes back to the teacher and to a terminal: escaped */
		sc_escape_log(&shown, name);
		err = sc_error_set(SC_EPARSE, "reference name '%s' is refused: %s", shown.ptr,
				   why.ptr);
		sc_buf_release(&why);
		sc_buf_release(&shown);
		return err;
	}
	sc_buf_release(&why);
	if (strlen(content) > SC_GEN_MAX_FILE_BYTES)
		return sc_error_set(SC_EPARSE, "reference '%s' is larger than %d bytes", name,
				    SC_GEN_MAX_FILE_BYTES);
	if (d->nrefs == SC_GEN_MAX_REFERENCES)
		return sc_error_set(SC_EPARSE, "more than %d references", SC_GEN_MAX_REFERENCES);
	for (size_t i = 0; i < d->nrefs; i++)
		if (!strcmp(d->refs[i].name, name))
			return sc_error_set(SC_EPARSE, "reference '%s' is given twice", name);
	SC_GROW(d->refs, d->refs_alloc, d->nrefs + 1);
	d->refs[d->nrefs].name = sc_xstrdup(name);
	d->refs[d->nrefs].content = sc_xstrdup(content);
	d->nrefs++;
	return 0;
}

int sc_gen_parse_skill(struct sc_gen_draft *out, const char *answer)
{
	struct sc_buf json = SC_BUF_INIT;
	cJSON *j = NULL, *refs;
	const char *name, *desc, *body;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = sc_gen_extract_json(&json, answer)) < 0)
		goto done;
	j = cJSON_ParseWithLength(json.ptr, json.len);
	if (!cJSON_IsObject(j)) {
		err = sc_error_set(SC_EPARSE, "expected a JSON object with name, description "
				   "and body");
		goto done;
	}
	name = sc_json_str_or(j, "name", NULL);
	desc = sc_json_str_or(j, "description", NULL);
	body = sc_json_str_or(j, "body", NULL);
	if (!name || !desc || !body) {
		err = sc_error_set(SC_EPARSE, "the JSON object lacks the string field '%s'",
				   !name ? "name" : !desc ? "description" : "body");
		goto done;
	}
	if (strlen(body) > SC_GEN_MAX_FILE_BYTES) {
		err = sc_error_set(SC_EPARSE, "the body is larger than %d bytes",
				   SC_GEN_MAX_FILE_BYTES);
		goto done;
	}
	out->name = sc_xstrdup(name);
	out->description = sc_xstrdup(desc);
	out->body = sc_xstrdup(body);
	refs = cJSON_GetObjectItemCaseSensitive(j, "references");
	if (cJSON_IsObject(refs)) {
		const cJSON *it;
		cJSON_ArrayForEach(it, refs) {
			if (!cJSON_IsString(it)) {
				err = sc_error_set(SC_EPARSE, "reference '%s' is not a string",
						   it->string);
				goto done;
			}
			if ((err = add_ref(out, it->string, it->valuestring)) < 0)
				goto done;
		}
	} else if (cJSON_IsArray(refs)) {
		const cJSON *it;
		cJSON_ArrayForEach(it, refs) {
			const char *path = sc_json_str_or(it, "path", NULL);
			const char *rn = sc_json_str_or(it, "name", path);
			if ((err = add_ref(out, rn, sc_json_str_or(it, "content", NULL))) < 0)
				goto done;
		}
	} else if (refs && !cJSON_IsNull(refs)) {
		err = sc_error_set(SC_EPARSE, "'references' must be an object of file names "
				   "to contents");
		goto done;
	}
done:
	cJSON_Delete(j);
	sc_buf_release(&json);
	return err;
}

/* Parses one case object into c; SC_EPARSE with the reason. */
static int parse_case(struct sc_gen_case *c, const cJSON *o, size_t idx,
		      const struct sc_strlist *known)
{
	const char *input = sc_json_str_or(o, "input", NULL);
	const char *fixture = sc_json_str_or(o, "fixture", NULL);
	const cJSON *exp = cJSON_GetObjectItemCaseSensitive(o, "expected"), *con;

	memset(c, 0, sizeof(*c));
	if (!cJSON_IsObject(o))
		return sc_error_set(SC_EPARSE, "cases[%zu] is not an object", idx);
	if (fixture) {
		if (known && !sc_strlist_has(known, fixture))
			return sc_error_set(SC_EPARSE, "cases[%zu]: '%s' is not one of the listed "
					    "fixtures", idx, fixture);
		c->fixture = sc_xstrdup(fixture);
		c->input = input ? sc_xstrdup(input) : NULL;
		return 0;
	}
	if (!input || !*input)
		return sc_error_set(SC_EPARSE, "cases[%zu] lacks a string 'input'", idx);
	con = cJSON_GetObjectItemCaseSensitive(exp, "contains");
	if (cJSON_IsString(con) && *con->valuestring) {
		sc_strlist_add(&c->contains, con->valuestring);
	} else if (cJSON_IsArray(con)) {
		const cJSON *it;
		cJSON_ArrayForEach(it, con)
			if (cJSON_IsString(it) && *it->valuestring)
				sc_strlist_add(&c->contains, it->valuestring);
	}
	if (!c->contains.n)
		return sc_error_set(SC_EPARSE, "cases[%zu] needs \"expected\": {\"contains\": "
				    "[...]} with at least one non-empty string", idx);
	c->input = sc_xstrdup(input);
	return 0;
}

void sc_gen_case_release(struct sc_gen_case *c)
{
	free(c->input);
	free(c->fixture);
	sc_strlist_release(&c->contains);
	memset(c, 0, sizeof(*c));
}

int sc_gen_parse_cases(struct sc_gen_cases *out, const char *answer,
		       const struct sc_strlist *known_fixtures)
{
	struct sc_buf json = SC_BUF_INIT;
	cJSON *j = NULL;
	const cJSON *cases, *it;
	size_t idx = 0, before = out->n;
	int err;

	if ((err = sc_gen_extract_json(&json, answer)) < 0)
		goto done;
	j = cJSON_ParseWithLength(json.ptr, json.len);
	cases = cJSON_IsArray(j) ? j : cJSON_GetObjectItemCaseSensitive(j, "cases");
	if (!cJSON_IsArray(cases)) {
		err = sc_error_set(SC_EPARSE, "expected {\"cases\": [...]}");
		goto done;
	}
	cJSON_ArrayForEach(it, cases) {
		struct sc_gen_case c;
		if (out->n - before == SC_GEN_MAX_CASES)
			break;
		if ((err = parse_case(&c, it, idx++, known_fixtures)) < 0) {
			sc_gen_case_release(&c);
			goto done;
		}
		SC_GROW(out->items, out->alloc, out->n + 1);
		out->items[out->n++] = c;
	}
	if (out->n == before)
		err = sc_error_set(SC_EPARSE, "the answer has no test case");
done:
	if (err < 0) {
		while (out->n > before)
			sc_gen_case_release(&out->items[--out->n]);
	}
	cJSON_Delete(j);
	sc_buf_release(&json);
	return err;
}

/* ---- SKILL.md and skill_meta.json ---------------------------------------- */

/* True when s can be a plain YAML scalar on one line as upskill writes it. */
static bool plain_ok(const char *s)
{
	if (!*s || strchr("-?:,[]{}#&*!|>'\"%@`", s[0]) || s[0] == ' ')
		return false;
	if (strstr(s, ": ") || strstr(s, " #") || strchr(s, '\n') || strchr(s, '\r') ||
	    strchr(s, '\t'))
		return false;
	if (s[strlen(s) - 1] == ' ' || s[strlen(s) - 1] == ':')
		return false;
	return true;
}

static void yaml_quoted(struct sc_buf *out, const char *s)
{
	sc_buf_putc(out, '"');
	for (; *s; s++) {
		switch (*s) {
		case '"': sc_buf_puts(out, "\\\""); break;
		case '\\': sc_buf_puts(out, "\\\\"); break;
		case '\n': sc_buf_puts(out, "\\n"); break;
		case '\r': sc_buf_puts(out, "\\r"); break;
		case '\t': sc_buf_puts(out, "\\t"); break;
		default:
			if ((unsigned char)*s < 0x20)
				sc_buf_printf(out, "\\x%02x", (unsigned char)*s);
			else
				sc_buf_putc(out, *s);
		}
	}
	sc_buf_putc(out, '"');
}

void sc_gen_render_skill_md(struct sc_buf *out, const struct sc_gen_draft *d)
{
	sc_buf_printf(out, "---\nname: %s\ndescription: ", d->name);
	if (plain_ok(d->description))
		sc_buf_puts(out, d->description);
	else
		yaml_quoted(out, d->description);
	sc_buf_puts(out, "\n---\n\n");
	sc_buf_puts(out, d->body);
	if (d->body[0] && d->body[strlen(d->body) - 1] != '\n')
		sc_buf_putc(out, '\n');
}

static cJSON *str_or_null(const char *s)
{
	return s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

/* A JSON string as Python's json.dumps writes it (ensure_ascii). */
static void py_string(struct sc_buf *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	sc_buf_putc(out, '"');
	while (*p) {
		uint32_t cp = *p;
		int extra = 0;
		if (cp == '"' || cp == '\\') {
			sc_buf_putc(out, '\\');
			sc_buf_putc(out, (char)cp);
			p++;
			continue;
		}
		if (cp < 0x80) {
			if (cp == '\n') sc_buf_puts(out, "\\n");
			else if (cp == '\r') sc_buf_puts(out, "\\r");
			else if (cp == '\t') sc_buf_puts(out, "\\t");
			else if (cp == '\b') sc_buf_puts(out, "\\b");
			else if (cp == '\f') sc_buf_puts(out, "\\f");
			else if (cp < 0x20 || cp == 0x7f) sc_buf_printf(out, "\\u%04x", (unsigned)cp);
			else sc_buf_putc(out, (char)cp);
			p++;
			continue;
		}
		/* valid UTF-8 (cJSON checked nothing, the callers did) */
		if ((cp & 0xE0) == 0xC0) { cp &= 0x1F; extra = 1; }
		else if ((cp & 0xF0) == 0xE0) { cp &= 0x0F; extra = 2; }
		else { cp &= 0x07; extra = 3; }
		p++;
		for (int i = 0; i < extra && (*p & 0xC0) == 0x80; i++)
			cp = (cp << 6) | (*p++ & 0x3F);
		if (cp >= 0x10000) {
			cp -= 0x10000;
			sc_buf_printf(out, "\\u%04x\\u%04x", (unsigned)(0xD800 + (cp >> 10)),
				      (unsigned)(0xDC00 + (cp & 0x3FF)));
		} else {
			sc_buf_printf(out, "\\u%04x", (unsigned)cp);
		}
	}
	sc_buf_putc(out, '"');
}

/* A float as Python's repr: the shortest form that reads back, with ".0" when whole. */
static void py_float(struct sc_buf *out, double v)
{
	char tmp[64];

	for (int prec = 1; prec <= 17; prec++) {
		snprintf(tmp, sizeof(tmp), "%.*g", prec, v);
		if (strtod(tmp, NULL) == v)
			break;
	}
	sc_buf_puts(out, tmp);
	if (!strpbrk(tmp, ".eEn"))
		sc_buf_puts(out, ".0");
}

/* JSON as Python's json.dumps(obj, indent=2): "key": value, one item a line. */
void sc_gen_py_json(struct sc_buf *out, const cJSON *v, int depth)
{
	const cJSON *it;
	bool obj = cJSON_IsObject(v);

	if (cJSON_IsString(v)) {
		py_string(out, v->valuestring);
	} else if (cJSON_IsNumber(v)) {
		py_float(out, v->valuedouble);
	} else if (cJSON_IsBool(v)) {
		sc_buf_puts(out, cJSON_IsTrue(v) ? "true" : "false");
	} else if (obj || cJSON_IsArray(v)) {
		if (!v->child) {
			sc_buf_puts(out, obj ? "{}" : "[]");
			return;
		}
		sc_buf_putc(out, obj ? '{' : '[');
		cJSON_ArrayForEach(it, v) {
			sc_buf_printf(out, "\n%*s", (depth + 1) * 2, "");
			if (obj) {
				py_string(out, it->string);
				sc_buf_puts(out, ": ");
			}
			sc_gen_py_json(out, it, depth + 1);
			if (it->next)
				sc_buf_putc(out, ',');
		}
		sc_buf_printf(out, "\n%*s%c", depth * 2, "", obj ? '}' : ']');
	} else {
		sc_buf_puts(out, "null");
	}
}

void sc_gen_meta_json(struct sc_buf *out, const struct sc_gen_meta *m,
		      const struct sc_gen_cases *cases)
{
	cJSON *root = cJSON_CreateObject(), *meta = cJSON_CreateObject();
	cJSON *tests = cJSON_CreateArray();

	cJSON_AddStringToObject(meta, "version", "1.0");
	cJSON_AddItemToObject(meta, "generated_by", str_or_null(m->generated_by));
	cJSON_AddItemToObject(meta, "generated_at", str_or_null(m->generated_at));
	cJSON_AddItemToObject(meta, "source_task", str_or_null(m->source_task));
	if (m->has_test_pass_rate && !isnan(m->test_pass_rate))
		cJSON_AddNumberToObject(meta, "test_pass_rate", m->test_pass_rate);
	else
		cJSON_AddNullToObject(meta, "test_pass_rate");
	cJSON_AddNullToObject(meta, "license");
	cJSON_AddNullToObject(meta, "compatibility");
	cJSON_AddItemToObject(root, "metadata", meta);
	for (size_t i = 0; cases && i < cases->n; i++) {
		const struct sc_gen_case *c = &cases->items[i];
		cJSON *t = cJSON_CreateObject(), *exp = cJSON_CreateObject();
		cJSON *con = cJSON_CreateArray();
		cJSON_AddStringToObject(t, "input", c->input ? c->input : "");
		cJSON_AddNullToObject(t, "context");
		for (size_t k = 0; k < c->contains.n; k++)
			cJSON_AddItemToArray(con, cJSON_CreateString(c->contains.items[k]));
		cJSON_AddItemToObject(exp, "contains", con);
		cJSON_AddItemToObject(t, "expected", exp);
		cJSON_AddNullToObject(t, "output_file");
		cJSON_AddNullToObject(t, "validator");
		cJSON_AddNullToObject(t, "validator_config");
		if (c->fixture)
			cJSON_AddStringToObject(t, "fixture", c->fixture);
		cJSON_AddItemToArray(tests, t);
	}
	cJSON_AddItemToObject(root, "tests", tests);
	sc_gen_py_json(out, root, 0);
	sc_buf_putc(out, '\n');
	cJSON_Delete(root);
}
