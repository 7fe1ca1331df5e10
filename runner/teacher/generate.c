/*
 * The teacher side of upskill (generate.h, docs/generate.md): prompts,
 * structured-output parsing, traces, staging and validation of each
 * version, test generation, the evaluate/refine loop and saving.
 */
#include "common.h"
#include "diag.h"
#include "escape.h"
#include "json.h"
#include "eval/eval.h"
#include "teacher/generate.h"
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

/* ---- prompts ---------------------------------------------------------------- */

static const char sc_gen_system_skill[] =
	"You generate \"skills\" - instruction documents that teach AI agents how to perform "
	"tasks.\n\n"
	"When given a task description, create a skill document with clear instructions, "
	"examples, and best practices that will help an AI agent complete that type of task "
	"reliably.\n\n"
	"## Output Format\n\n"
	"Output ONLY a JSON object with this exact structure:\n"
	"{\"name\": \"skill-name\", \"description\": \"What this skill teaches\", "
	"\"body\": \"Markdown instructions\", \"references\": {\"file.md\": \"optional longer "
	"reference material\"}}\n\n"
	"## Field Requirements\n\n"
	"- **name**: lowercase letters, digits and single hyphens, at most 64 characters "
	"(e.g. \"parse-yaml-files\", \"git-commit-messages\")\n"
	"- **description**: one sentence under 100 characters describing what the skill "
	"teaches and when to use it\n"
	"- **body**: 200-400 word Markdown guide including:\n"
	"  - Brief overview\n"
	"  - Step-by-step instructions or key principles\n"
	"  - 2-3 practical examples\n"
	"  - Best practices or common pitfalls\n"
	"- **references** (optional): files placed under references/; link them from the body "
	"as references/NAME\n\n"
	"## Important\n\n"
	"- Output ONLY the JSON object, no other text\n"
	"- Use \\n for newlines in string fields\n"
	"- Do NOT actually perform the task - create instructions FOR performing it\n"
	"- Focus on practical, actionable guidance with real examples\n";

static const char sc_gen_system_tests[] =
	"You generate test cases for evaluating AI agent skills. Output only valid JSON.\n";

static const char test_examples[] =
	"## Example Test Cases\n\n"
	"Task: \"Write good git commit messages\"\n\n"
	"Output:\n"
	"```json\n"
	"{\n"
	"  \"cases\": [\n"
	"    {\"input\": \"Write a commit message for adding a new login feature\",\n"
	"     \"expected\": {\"contains\": [\"feat\", \"login\"]}},\n"
	"    {\"input\": \"Write a commit message for fixing a null pointer bug in the user "
	"service\",\n"
	"     \"expected\": {\"contains\": [\"fix\", \"bug\"]}},\n"
	"    {\"input\": \"Write a commit message for updating the README documentation\",\n"
	"     \"expected\": {\"contains\": [\"docs\", \"readme\"]}}\n"
	"  ]\n"
	"}\n"
	"```\n";

void sc_gen_prompt_skill(struct sc_buf *out, const char *task, const char *const *examples,
			 size_t nexamples, const char *trace, const char *required_name)
{
	sc_buf_printf(out, "Create a skill document that teaches an AI agent how to: %s", task);
	if (nexamples) {
		sc_buf_puts(out, "\n\nExample input/output pairs for this task:\n");
		for (size_t i = 0; i < nexamples; i++)
			sc_buf_printf(out, "- %s\n", examples[i]);
	}
	if (trace) {
		sc_buf_puts(out, "\n\nBelow is a trace of an agent doing this task. Distil what "
				 "worked (the steps, commands, checks and fixes that led to success) "
				 "and what to avoid (dead ends, errors and their fixes) into the skill. "
				 "Do not copy the trace; teach the method.\n\n<trace>\n");
		sc_buf_puts(out, trace);
		sc_buf_puts(out, "\n</trace>");
	}
	if (required_name)
		sc_buf_printf(out, "\n\nThe skill's name must be \"%s\".", required_name);
}

static void sc_gen_prompt_improve(struct sc_buf *out, const struct sc_gen_draft *cur,
				  const char *instructions, const char *required_name)
{
	sc_buf_printf(out,
		      "You are improving an existing skill document for AI agents.\n\n"
		      "Given the current skill and improvement instructions, create an enhanced "
		      "version.\n\n## Current Skill\n\nName: %s\nDescription: %s\n\nBody:\n%s\n\n",
		      cur->name, cur->description, cur->body);
	for (size_t i = 0; i < cur->nrefs; i++)
		sc_buf_printf(out, "Reference references/%s:\n%s\n\n", cur->refs[i].name,
			      cur->refs[i].content);
	sc_buf_printf(out,
		      "## Improvement Instructions\n\n%s\n\n"
		      "## Guidelines\n\n"
		      "1. Preserve what works well in the original skill\n"
		      "2. Address the specific improvement requests\n"
		      "3. Maintain the same general structure and format\n"
		      "4. Add new examples or sections as needed\n"
		      "5. Keep the skill focused and actionable\n\n"
		      "Output the complete skill as the JSON object described in your instructions.",
		      instructions);
	if (required_name)
		sc_buf_printf(out, "\nThe skill's name must be \"%s\".", required_name);
}

static void sc_gen_prompt_refine(struct sc_buf *out, const struct sc_gen_draft *cur,
				 const struct sc_strlist *failures, const char *required_name)
{
	sc_buf_printf(out, "Improve this skill based on failures:\n\nName: %s\nDescription: %s\n"
			   "Body:\n%s\n\nFailures:\n", cur->name, cur->description, cur->body);
	for (size_t i = 0; i < failures->n; i++)
		sc_buf_printf(out, "- %s\n", failures->items[i]);
	sc_buf_puts(out, "\nOutput the complete improved skill as the JSON object described in "
			 "your instructions (name, description, body, optional references).");
	if (required_name)
		sc_buf_printf(out, "\nThe skill's name must be \"%s\".", required_name);
}

void sc_gen_prompt_tests(struct sc_buf *out, const char *task,
			 const struct sc_strlist *fixture_lines)
{
	sc_buf_puts(out, "Generate 3-5 test cases for evaluating if an AI agent can perform this "
			 "task well.\n\n");
	sc_buf_puts(out, test_examples);
	sc_buf_printf(out, "\n\n## Your Task\n\nTask: %s\n\n"
			   "Generate test cases that verify the agent can apply the skill "
			   "correctly.\n\n"
			   "Each TestCase MUST include at least a list of expected strings in the "
			   "expected field.\n"
			   "Focus on practical scenarios that test understanding of the core "
			   "concepts.\n", task);
	if (fixture_lines && fixture_lines->n) {
		sc_buf_puts(out, "\n## CUDA kernel fixtures\n\n"
				 "If the task is about writing CUDA kernels, also add one case per "
				 "fitting fixture from this list, as {\"fixture\": \"NAME\"} (no input "
				 "or expected needed; the fixture brings its own prompt and checks):\n");
		for (size_t i = 0; i < fixture_lines->n; i++)
			sc_buf_printf(out, "- %s\n", fixture_lines->items[i]);
	}
	sc_buf_puts(out, "\nOutput only the JSON object {\"cases\": [...]}.");
}

/* The follow-up sent once when an answer could not be used. */
static void sc_gen_prompt_retry(struct sc_buf *out, const char *problem)
{
	sc_buf_printf(out, "Your answer could not be used: %s\n\n"
			   "Answer again with only the corrected JSON object, no other text.",
		      problem);
}

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

static void case_release(struct sc_gen_case *c)
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
			case_release(&c);
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
			case_release(&out->items[--out->n]);
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
static void py_json(struct sc_buf *out, const cJSON *v, int depth)
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
			py_json(out, it, depth + 1);
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
	py_json(out, root, 0);
	sc_buf_putc(out, '\n');
	cJSON_Delete(root);
}

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
		if (strcmp(u->variant, "head") || strcmp(u->model, model) ||
		    !strcmp(u->verdict, "pass") || !strcmp(u->verdict, "skipped"))
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

/* ---- lifecycle -------------------------------------------------------------- */

/*
 * upskill's max_refine_attempts counts evaluations, refinements between
 * them: max(1, attempts) evaluations, so one fewer refinement.
 */
int sc_gen_refinements(int max_refine_attempts)
{
	int n = (max_refine_attempts < 1 ? 1 : max_refine_attempts) - 1;

	return n > SC_GEN_MAX_REFINE ? SC_GEN_MAX_REFINE : n;
}

void sc_gen_options_init(struct sc_gen_options *opt)
{
	memset(opt, 0, sizeof(*opt));
	opt->fixtures_dir = "fixtures";
	opt->max_refine = sc_gen_refinements(SC_GEN_ATTEMPTS);
	opt->runs = 1;
}

static void files_release(struct sc_gen_file *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].name);
		free(f[i].content);
	}
	free(f);
}

void sc_gen_draft_release(struct sc_gen_draft *d)
{
	free(d->name);
	free(d->description);
	free(d->body);
	files_release(d->refs, d->nrefs);
	files_release(d->scripts, d->nscripts);
	memset(d, 0, sizeof(*d));
}

void sc_gen_cases_release(struct sc_gen_cases *c)
{
	for (size_t i = 0; i < c->n; i++)
		case_release(&c->items[i]);
	free(c->items);
	memset(c, 0, sizeof(*c));
}

static void attempt_release(struct sc_gen_attempt *a)
{
	for (size_t i = 0; i < a->nscores; i++)
		free(a->scores[i].model);
	free(a->scores);
	memset(a, 0, sizeof(*a));
}

void sc_gen_result_init(struct sc_gen_result *r)
{
	memset(r, 0, sizeof(*r));
	sc_results_init(&r->results);
}

void sc_gen_result_release(struct sc_gen_result *r)
{
	free(r->dir);
	sc_gen_draft_release(&r->skill);
	sc_gen_cases_release(&r->cases);
	for (size_t i = 0; i < r->nattempts; i++)
		attempt_release(&r->attempts[i]);
	free(r->attempts);
	sc_results_release(&r->results);
	sc_gen_result_init(r);
}

bool sc_gen_attempt_better(const struct sc_gen_attempt *a, const struct sc_gen_attempt *b)
{
	double ar = isnan(a->target_rate) ? -1 : a->target_rate;
	double br = isnan(b->target_rate) ? -1 : b->target_rate;

	if (a->beneficial != b->beneficial)
		return a->beneficial;
	return ar > br + 1e-12;
}

static void draft_copy(struct sc_gen_draft *dst, const struct sc_gen_draft *src)
{
	memset(dst, 0, sizeof(*dst));
	dst->name = sc_xstrdup(src->name);
	dst->description = sc_xstrdup(src->description);
	dst->body = sc_xstrdup(src->body);
	for (size_t i = 0; i < src->nrefs; i++) {
		SC_GROW(dst->refs, dst->refs_alloc, dst->nrefs + 1);
		dst->refs[dst->nrefs].name = sc_xstrdup(src->refs[i].name);
		dst->refs[dst->nrefs++].content = sc_xstrdup(src->refs[i].content);
	}
	for (size_t i = 0; i < src->nscripts; i++) {
		SC_GROW(dst->scripts, dst->scripts_alloc, dst->nscripts + 1);
		dst->scripts[dst->nscripts].name = sc_xstrdup(src->scripts[i].name);
		dst->scripts[dst->nscripts++].content = sc_xstrdup(src->scripts[i].content);
	}
}

/* ---- the teacher ------------------------------------------------------------ */

struct gen {
	const struct sc_gen_options *opt;
	struct sc_gen_result *out;
	const char *required_name;    /* basename of -o, or NULL */
	struct sc_strlist known_fixtures;
	char *stage;                  /* scratch folder for staged versions */
	unsigned stage_seq;
	const struct sc_gen_draft *base;  /* --from DIR: its references and scripts */
};

static void progress(struct gen *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void progress(struct gen *g, const char *fmt, ...)
{
	struct sc_buf line = SC_BUF_INIT;
	va_list ap;

	if (!g->opt->progress)
		return;
	va_start(ap, fmt);
	sc_buf_vprintf(&line, fmt, ap);
	va_end(ap);
	g->opt->progress(line.ptr, g->opt->payload);
	sc_buf_release(&line);
}

struct answer {
	char *text;
	int64_t in, out;
	enum sc_chat_error error_class;
	char *error;
	bool done;
};

static void on_answer(struct sc_chat_response *resp, void *payload)
{
	struct answer *a = payload;

	a->done = true;
	a->in = resp->input_tokens + resp->cache_read_tokens + resp->cache_creation_tokens;
	a->out = resp->output_tokens;
	a->error_class = resp->error_class;
	if (resp->text) {
		a->text = resp->text;
		resp->text = NULL;
	}
	if (resp->error) {
		a->error = resp->error;
		resp->error = NULL;
	}
}

/* One request to the teacher; *text is the answer (caller frees). */
static int ask(struct gen *g, char **text, const char *model, const char *system,
	       const struct sc_chat_message *msgs, size_t n)
{
	struct sc_chat_request req;
	struct answer a;
	int err;

	memset(&req, 0, sizeof(req));
	memset(&a, 0, sizeof(a));
	req.model = model;
	req.system = system;
	req.messages = msgs;
	req.nmessages = n;
	req.max_tokens = g->opt->max_tokens > 0 ? g->opt->max_tokens : SC_GEN_MAX_TOKENS;
	req.temperature = -1;
	req.label = "generate";
	if ((err = sc_client_submit(g->opt->client, &req, on_answer, &a)) < 0)
		return err;
	if ((err = sc_client_run(g->opt->client)) < 0)
		goto done;
	g->out->teacher_requests++;
	g->out->teacher_tokens_in += a.in;
	g->out->teacher_tokens_out += a.out;
	if (!a.done || !a.text) {
		int code = a.error_class == SC_CHAT_AUTH ? SC_EAUTH :
			   a.error_class == SC_CHAT_BAD_REQUEST || a.error_class == SC_CHAT_CONFIG ?
			   SC_EINVAL : SC_ENET;
		err = sc_error_set(code, "model '%s': %s", model,
				   a.error ? a.error : "no answer");
		goto done;
	}
	*text = a.text;
	a.text = NULL;
done:
	free(a.text);
	free(a.error);
	return err;
}

/*
 * Opens (creating it when create is set) the folder name below the folder
 * handle dfd without following a link: a symbolic link where a folder is
 * expected is refused (SC_EUNSAFE), so nothing is written through it.
 * shown names the folder in messages.
 */
static int open_dir_at(int *out, int dfd, const char *name, bool create, const char *shown)
{
	int fd;

	if (create && mkdirat(dfd, name, 0755) < 0 && errno != EEXIST)
		return sc_error_set(SC_EIO, "cannot create '%s': %s", shown, strerror(errno));
	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ELOOP || errno == ENOTDIR)
			return sc_error_set(SC_EUNSAFE, "refusing to write through '%s': it is a "
					    "symbolic link or not a folder", shown);
		return sc_error_set(SC_EIO, "cannot open '%s': %s", shown, strerror(errno));
	}
	*out = fd;
	return 0;
}

/*
 * Writes content to rel below the folder handle root (rel passes
 * sc_gen_name_ok, else SC_EUNSAFE), creating folders with mkdirat and
 * never following a link: each folder is opened with O_NOFOLLOW from its
 * parent's handle, the file is written to a fresh temporary name
 * (O_CREAT | O_EXCL | O_NOFOLLOW) and renamed over rel, which replaces a
 * link planted there rather than writing where it points. dir names root
 * in messages.
 */
static int write_rel(int root, const char *dir, const char *rel, const char *content)
{
	struct sc_buf why = SC_BUF_INIT, comp = SC_BUF_INIT, shown = SC_BUF_INIT;
	struct sc_buf tmp = SC_BUF_INIT;
	const char *p = rel, *slash;
	size_t len = strlen(content), done_bytes = 0;
	int dfd = root, fd = -1, err = 0;

	if (!sc_gen_name_ok(rel, &why)) {
		sc_escape_log(&shown, rel);
		err = sc_error_set(SC_EUNSAFE, "refusing to write '%s' in '%s': %s", shown.ptr,
				   dir, why.ptr);
		goto done;
	}
	while ((slash = strchr(p, '/'))) {
		int next;
		sc_buf_clear(&comp);
		sc_buf_put(&comp, p, (size_t)(slash - p));
		sc_buf_clear(&shown);
		sc_buf_printf(&shown, "%s/%.*s", dir, (int)(slash - rel), rel);
		if ((err = open_dir_at(&next, dfd, comp.ptr, true, shown.ptr)) < 0)
			goto done;
		if (dfd != root)
			close(dfd);
		dfd = next;
		p = slash + 1;
	}
	sc_buf_printf(&tmp, ".%s.tmp.%ld", p, (long)getpid());
	fd = openat(dfd, tmp.ptr, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0) {
		err = sc_error_set(SC_EIO, "cannot write '%s/%s': %s", dir, rel, strerror(errno));
		goto done;
	}
	while (done_bytes < len) {
		ssize_t w = write(fd, content + done_bytes, len - done_bytes);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			err = sc_error_set(SC_EIO, "cannot write '%s/%s': %s", dir, rel,
					   w < 0 ? strerror(errno) : "short write");
			break;
		}
		done_bytes += (size_t)w;
	}
	if (!err && fsync(fd) < 0)
		err = sc_error_set(SC_EIO, "cannot write '%s/%s': %s", dir, rel, strerror(errno));
	close(fd);
	if (!err && renameat(dfd, tmp.ptr, dfd, p) < 0)
		err = sc_error_set(SC_EIO, "cannot write '%s/%s': %s", dir, rel, strerror(errno));
	if (err)
		unlinkat(dfd, tmp.ptr, 0);
done:
	if (dfd != root && dfd >= 0)
		close(dfd);
	sc_buf_release(&why);
	sc_buf_release(&comp);
	sc_buf_release(&shown);
	sc_buf_release(&tmp);
	return err;
}

/*
 * Opens the skill folder dir, creating it and its parents (the user's
 * path), the last part without following a link.
 */
static int open_skill_dir(int *out, const char *dir)
{
	int err;

	if ((err = sc_mkdir_p(dir)) < 0)
		return err;
	return open_dir_at(out, AT_FDCWD, dir, false, dir);
}

/* Writes SKILL.md, references/, scripts/ and skill_meta.json into dir. */
static int write_skill(const char *dir, const struct sc_gen_draft *d,
		       const struct sc_gen_meta *meta, const struct sc_gen_cases *cases)
{
	struct sc_buf b = SC_BUF_INIT, rel = SC_BUF_INIT;
	int root = -1, err;

	if ((err = open_skill_dir(&root, dir)) < 0)
		return err;
	sc_gen_render_skill_md(&b, d);
	if ((err = write_rel(root, dir, "SKILL.md", b.ptr)) < 0)
		goto done;
	for (size_t i = 0; i < d->nrefs; i++) {
		sc_buf_clear(&rel);
		sc_buf_printf(&rel, "references/%s", d->refs[i].name);
		if ((err = write_rel(root, dir, rel.ptr, d->refs[i].content)) < 0)
			goto done;
	}
	for (size_t i = 0; i < d->nscripts; i++) {
		sc_buf_clear(&rel);
		sc_buf_printf(&rel, "scripts/%s", d->scripts[i].name);
		if ((err = write_rel(root, dir, rel.ptr, d->scripts[i].content)) < 0)
			goto done;
	}
	sc_buf_clear(&b);
	sc_gen_meta_json(&b, meta, cases);
	err = write_rel(root, dir, "skill_meta.json", b.ptr);
done:
	close(root);
	sc_buf_release(&b);
	sc_buf_release(&rel);
	return err;
}

/*
 * SC_EEXISTS when dir already holds something (a skill, a file, a link)
 * and the user did not ask to replace it (--force). An empty folder or
 * none at all is fine.
 */
static int check_free(const char *dir, bool force)
{
	struct stat st;
	DIR *d;
	const struct dirent *e;
	bool empty = true;

	if (force || lstat(dir, &st) < 0)
		return 0;
	if (S_ISDIR(st.st_mode) && (d = opendir(dir))) {
		while (empty && (e = readdir(d)))
			empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
		closedir(d);
		if (empty)
			return 0;
	}
	return sc_error_set(SC_EEXISTS, "'%s' already exists%s; --force replaces it, or choose "
			    "another folder with -o", dir,
			    S_ISDIR(st.st_mode) ? " and is not empty" : "");
}

/* A fresh staging folder named after the skill: STAGE/N/NAME. */
static void stage_dir(struct gen *g, struct sc_buf *out, const char *name)
{
	sc_buf_clear(out);
	sc_buf_printf(out, "%s/%u/%s", g->stage, ++g->stage_seq, name);
}

/*
 * Checks a draft the way `skillci validate` does, by writing it to a
 * staging folder and loading it. Returns 0, or SC_EPARSE with the
 * findings (one per line) in problem.
 */
static int validate_draft(struct gen *g, const struct sc_gen_draft *d, struct sc_buf *problem)
{
	struct sc_buf dir = SC_BUF_INIT, why = SC_BUF_INIT, line = SC_BUF_INIT;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_skill skill;
	struct sc_gen_meta meta = { 0 };
	int err;

	memset(&skill, 0, sizeof(skill));
	if (!sc_utf8_check(d->name, strlen(d->name), NULL) || !sc_skill_name_valid(d->name, &why)) {
		sc_buf_printf(problem, "the name '%s' is not valid: %s", d->name,
			      why.len ? why.ptr : "invalid UTF-8");
		err = SC_EPARSE;
		goto done;
	}
	stage_dir(g, &dir, d->name);
	if ((err = write_skill(dir.ptr, d, &meta, NULL)) < 0)
		goto done;
	if ((err = sc_skill_load(&skill, dir.ptr, &diags, 0)) < 0)
		goto done;
	for (size_t i = 0; i < diags.n; i++) {
		const struct sc_diag *f = &diags.items[i];
		if (f->sev != SC_SEV_ERROR)
			continue;
		/* the staging path means nothing to the teacher */
		sc_buf_printf(problem, "%sSKILL.md", problem->len ? "\n" : "");
		if (f->line)
			sc_buf_printf(problem, ":%zu", f->line);
		sc_buf_printf(problem, ": %s", f->message);
		err = SC_EPARSE;
	}
done:
	sc_skill_release(&skill);
	sc_diags_release(&diags);
	sc_buf_release(&dir);
	sc_buf_release(&why);
	sc_buf_release(&line);
	return err;
}

enum want { WANT_SKILL, WANT_TESTS };

/* Parses and checks one answer; 0, SC_EPARSE (problem set) or another error. */
static int accept_answer(struct gen *g, enum want w, const char *answer, void *target,
			 struct sc_buf *problem)
{
	int err;

	if (w == WANT_TESTS) {
		err = sc_gen_parse_cases(target, answer,
					 g->known_fixtures.n ? &g->known_fixtures : NULL);
		if (err == SC_EPARSE)
			sc_buf_puts(problem, sc_error_last());
		return err;
	}
	{
		struct sc_gen_draft *d = target;
		sc_gen_draft_release(d);
		if ((err = sc_gen_parse_skill(d, answer)) < 0) {
			if (err == SC_EPARSE)
				sc_buf_puts(problem, sc_error_last());
			return err;
		}
		if (g->required_name && strcmp(d->name, g->required_name)) {
			free(d->name);
			d->name = sc_xstrdup(g->required_name);
		}
		/* an improved skill keeps the files the teacher did not rewrite */
		for (size_t i = 0; g->base && i < g->base->nrefs; i++) {
			bool have = false;
			for (size_t k = 0; k < d->nrefs; k++)
				have |= !strcmp(d->refs[k].name, g->base->refs[i].name);
			if (!have && d->nrefs < SC_GEN_MAX_REFERENCES) {
				SC_GROW(d->refs, d->refs_alloc, d->nrefs + 1);
				d->refs[d->nrefs].name = sc_xstrdup(g->base->refs[i].name);
				d->refs[d->nrefs++].content = sc_xstrdup(g->base->refs[i].content);
			}
		}
		for (size_t i = 0; g->base && i < g->base->nscripts; i++) {
			SC_GROW(d->scripts, d->scripts_alloc, d->nscripts + 1);
			d->scripts[d->nscripts].name = sc_xstrdup(g->base->scripts[i].name);
			d->scripts[d->nscripts++].content = sc_xstrdup(g->base->scripts[i].content);
		}
		return validate_draft(g, d, problem);
	}
}

/*
 * Asks the teacher for structured output: the prompt, and when the answer
 * cannot be used (it does not parse, or the skill fails validation), once
 * more with the problem. Then a clear SC_EPARSE.
 */
static int teacher_json(struct gen *g, enum want w, const char *model, const char *prompt,
			void *target)
{
	struct sc_chat_message msgs[3];
	struct sc_buf problem = SC_BUF_INIT, retry = SC_BUF_INIT;
	char *first = NULL, *second = NULL;
	const char *system = w == WANT_SKILL ? sc_gen_system_skill : sc_gen_system_tests;
	const char *what = w == WANT_SKILL ? "skill" : "test cases";
	int err;

	msgs[0].role = SC_CHAT_USER;
	msgs[0].content = prompt;
	if ((err = ask(g, &first, model, system, msgs, 1)) < 0)
		goto done;
	err = accept_answer(g, w, first, target, &problem);
	if (err != SC_EPARSE)
		goto done;
	g->out->teacher_retries++;
	progress(g, "  answer not usable (%s); asking again", problem.ptr);
	sc_gen_prompt_retry(&retry, problem.ptr);
	msgs[1].role = SC_CHAT_ASSISTANT;
	msgs[1].content = first;
	msgs[2].role = SC_CHAT_USER;
	msgs[2].content = retry.ptr;
	if ((err = ask(g, &second, model, system, msgs, 3)) < 0)
		goto done;
	sc_buf_clear(&problem);
	err = accept_answer(g, w, second, target, &problem);
	if (err == SC_EPARSE)
		err = sc_error_set(SC_EPARSE, "model '%s' did not return usable %s after one "
				   "retry: %s", model, what, problem.ptr);
done:
	free(first);
	free(second);
	sc_buf_release(&problem);
	sc_buf_release(&retry);
	return err;
}

/* ---- inputs: an existing skill, fixtures ----------------------------------- */

/* Loads the skill folder dir as a draft (references/ and scripts/ files
 * with it) and its tests as cases. */
static int load_existing(struct sc_gen_draft *d, struct sc_gen_cases *cases, const char *dir)
{
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_skill skill;
	struct sc_test_set tests = SC_TEST_SET_INIT;
	struct sc_buf path = SC_BUF_INIT, text = SC_BUF_INIT;
	int err;

	memset(&skill, 0, sizeof(skill));
	memset(d, 0, sizeof(*d));
	if ((err = sc_skill_load(&skill, dir, &diags, 0)) < 0)
		goto done;
	if (!skill.name || !skill.description || !skill.body) {
		err = sc_error_set(SC_EINVAL, "skill '%s' has no name, description or body; "
				   "run 'skillci validate %s'", dir, dir);
		goto done;
	}
	d->name = sc_xstrdup(skill.name);
	d->description = sc_xstrdup(skill.description);
	d->body = sc_xstrdup(skill.body);
	for (size_t i = 0; i < skill.nfiles; i++) {
		const char *f = skill.files[i];
		bool ref = sc_starts_with(f, "references/"), scr = sc_starts_with(f, "scripts/");
		if (!ref && !scr)
			continue;
		sc_buf_clear(&path);
		sc_buf_clear(&text);
		sc_path_join(&path, dir, f);
		if ((err = sc_read_file(&text, path.ptr, SC_GEN_MAX_FILE_BYTES)) < 0)
			goto done;
		if (ref && d->nrefs < SC_GEN_MAX_REFERENCES) {
			SC_GROW(d->refs, d->refs_alloc, d->nrefs + 1);
			d->refs[d->nrefs].name = sc_xstrdup(f + strlen("references/"));
			d->refs[d->nrefs++].content = sc_xstrdup(text.ptr);
		} else if (scr) {
			SC_GROW(d->scripts, d->scripts_alloc, d->nscripts + 1);
			d->scripts[d->nscripts].name = sc_xstrdup(f + strlen("scripts/"));
			d->scripts[d->nscripts++].content = sc_xstrdup(text.ptr);
		}
	}
	if ((err = sc_tests_load_skill(&tests, dir, &diags)) < 0)
		goto done;
	for (size_t i = 0; i < tests.n && cases->n < SC_GEN_MAX_CASES; i++) {
		const struct sc_test *t = &tests.items[i];
		struct sc_gen_case c;
		if (!t->fixture && !t->contains.n)
			continue;
		memset(&c, 0, sizeof(c));
		c.input = t->input ? sc_xstrdup(t->input) : NULL;
		c.fixture = t->fixture ? sc_xstrdup(t->fixture) : NULL;
		for (size_t k = 0; k < t->contains.n; k++)
			sc_strlist_add(&c.contains, t->contains.items[k]);
		SC_GROW(cases->items, cases->alloc, cases->n + 1);
		cases->items[cases->n++] = c;
	}
done:
	sc_test_set_release(&tests);
	sc_skill_release(&skill);
	sc_diags_release(&diags);
	sc_buf_release(&path);
	sc_buf_release(&text);
	return err;
}

/* The first non-empty line of fixtures/NAME/prompt.md without '#' marks. */
static void fixture_title(struct sc_buf *out, const char *fixtures_dir, const char *name)
{
	struct sc_buf path = SC_BUF_INIT, text = SC_BUF_INIT;

	sc_buf_printf(&path, "%s/%s/prompt.md", fixtures_dir, name);
	if (sc_read_file(&text, path.ptr, SC_MAX_FILE_BYTES) == 0) {
		const char *p = text.ptr;
		while (*p == '\n' || *p == '#' || *p == ' ')
			p++;
		sc_buf_put(out, p, strcspn(p, "\n"));
	}
	sc_error_clear();
	sc_buf_release(&path);
	sc_buf_release(&text);
}

/*
 * The fixtures the teacher may pick (every folder of fixtures_dir with a
 * spec.json), as names and "NAME: title" lines; a missing folder is none.
 */
static void list_fixtures(struct gen *g, struct sc_strlist *lines)
{
	struct sc_buf p = SC_BUF_INIT, line = SC_BUF_INIT;
	struct sc_strlist names = { 0 };
	DIR *dir;
	struct dirent *e;

	dir = opendir(g->opt->fixtures_dir);
	if (!dir)
		return;
	while ((e = readdir(dir)) != NULL) {
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		sc_buf_clear(&p);
		sc_buf_printf(&p, "%s/%s/spec.json", g->opt->fixtures_dir, e->d_name);
		if (stat(p.ptr, &st) == 0 && S_ISREG(st.st_mode))
			sc_strlist_add(&names, e->d_name);
	}
	closedir(dir);
	sc_strlist_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		sc_strlist_add(&g->known_fixtures, names.items[i]);
		sc_buf_clear(&line);
		sc_buf_printf(&line, "%s: ", names.items[i]);
		fixture_title(&line, g->opt->fixtures_dir, names.items[i]);
		sc_strlist_add(lines, line.ptr);
	}
	sc_strlist_release(&names);
	sc_buf_release(&p);
	sc_buf_release(&line);
}

/* Reads fixtures_dir/NAME/prompt.md, the input of a kernel test. */
static int fixture_prompt(struct sc_buf *out, const char *fixtures_dir, const char *name)
{
	struct sc_buf path = SC_BUF_INIT;
	int err;

	sc_buf_printf(&path, "%s/%s/prompt.md", fixtures_dir, name);
	err = sc_read_file(out, path.ptr, SC_MAX_CONTEXT_FILE_BYTES);
	if (err == SC_ENOTFOUND)
		err = sc_error_set(SC_EINVAL, "no fixture '%s' in '%s' (no prompt.md)", name,
				   fixtures_dir);
	sc_buf_release(&path);
	return err;
}

/*
 * Kernel tests: with --fixture, exactly the forced fixtures (the
 * teacher's picks are dropped); otherwise the teacher's picks. Each gets
 * its fixture's prompt as input.
 */
static int settle_fixtures(struct gen *g, struct sc_gen_cases *cases)
{
	const struct sc_gen_options *opt = g->opt;
	struct sc_buf text = SC_BUF_INIT;
	int err = 0;

	if (opt->nfixtures) {
		size_t k = 0;
		for (size_t i = 0; i < cases->n; i++) {
			if (cases->items[i].fixture)
				case_release(&cases->items[i]);
			else
				cases->items[k++] = cases->items[i];
		}
		cases->n = k;
		for (size_t i = 0; i < opt->nfixtures; i++) {
			struct sc_gen_case c;
			memset(&c, 0, sizeof(c));
			c.fixture = sc_xstrdup(opt->fixtures[i]);
			SC_GROW(cases->items, cases->alloc, cases->n + 1);
			cases->items[cases->n++] = c;
		}
	}
	for (size_t i = 0; i < cases->n; i++) {
		struct sc_gen_case *c = &cases->items[i];
		if (!c->fixture || (c->input && *c->input))
			continue;
		sc_buf_clear(&text);
		if ((err = fixture_prompt(&text, opt->fixtures_dir, c->fixture)) < 0)
			break;
		free(c->input);
		c->input = sc_xstrdup(text.ptr);
	}
	sc_buf_release(&text);
	return err;
}

/* ---- evaluation ------------------------------------------------------------- */

/* Tokens of the non-error units of (variant, model). */
static int64_t tokens_of(const struct sc_results *r, const char *variant, const char *model)
{
	int64_t t = 0;

	for (size_t i = 0; i < r->nunits; i++) {
		const struct sc_results_unit *u = &r->units[i];
		if (!strcmp(u->variant, variant) && !strcmp(u->model, model) &&
		    strcmp(u->verdict, "error"))
			t += u->tokens_in + u->tokens_out;
	}
	return t;
}

/* The models to evaluate: the teacher, then each student not already named. */
static void eval_models(const struct sc_gen_options *opt, struct sc_strlist *out)
{
	const char *all[1 + 256];
	size_t n = 0;

	all[n++] = opt->teacher;
	for (size_t i = 0; i < opt->nstudents && n < SC_ARRAY_SIZE(all); i++)
		all[n++] = opt->students[i];
	for (size_t i = 0; i < n; i++) {
		struct sc_model m;
		if (sc_model_parse(&m, all[i]) < 0) {
			sc_error_clear();
			continue;
		}
		if (!sc_strlist_has(out, m.name))
			sc_strlist_add(out, m.name);
		sc_model_release(&m);
	}
}

/*
 * Stages version d with the tests, loads it as skillci would, and
 * evaluates it with and without the skill on every model. Fills att and
 * res (initialised here); tests receives the loaded tests.
 */
static int evaluate(struct gen *g, const struct sc_gen_draft *d, const struct sc_gen_meta *meta,
		    struct sc_gen_attempt *att, struct sc_results *res, struct sc_test_set *tests)
{
	const struct sc_gen_options *opt = g->opt;
	struct sc_buf dir = SC_BUF_INIT;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_skill skill;
	struct sc_strlist models = { 0 };
	struct sc_eval_options eo;
	struct sc_eval_skill es;
	size_t ntargets = 0;
	double sum = 0;
	int err;

	memset(&skill, 0, sizeof(skill));
	memset(att, 0, sizeof(*att));
	sc_results_init(res);
	stage_dir(g, &dir, d->name);
	if ((err = write_skill(dir.ptr, d, meta, &g->out->cases)) < 0)
		goto done;
	if ((err = sc_skill_load(&skill, dir.ptr, &diags, 0)) < 0 ||
	    (err = sc_tests_load_skill(tests, dir.ptr, &diags)) < 0)
		goto done;
	if (sc_diags_count(&diags, SC_SEV_ERROR)) {
		struct sc_buf line = SC_BUF_INIT;
		for (size_t i = 0; i < diags.n && !line.len; i++)
			if (diags.items[i].sev == SC_SEV_ERROR)
				sc_buf_puts(&line, diags.items[i].message);
		err = sc_error_set(SC_EINVAL, "the generated skill or its tests do not load: %s",
				   line.ptr);
		sc_buf_release(&line);
		goto done;
	}
	eval_models(opt, &models);
	sc_eval_options_init(&eo);
	eo.models = (const char *const *)models.items;
	eo.nmodels = models.n;
	eo.runs = opt->runs > 0 ? opt->runs : 1;
	eo.baseline = true;
	eo.client = opt->client;
	eo.store = opt->store;
	eo.reuse = true;
	eo.kernel = opt->kernel;
	eo.kernel_jobs = opt->kernel_jobs > 0 ? opt->kernel_jobs : 1;
	eo.kind = "generate";
	memset(&es, 0, sizeof(es));
	es.path = g->out->dir;
	es.variant = "head";
	es.skill = &skill;
	es.tests = tests;
	if ((err = sc_eval_run(res, &es, 1, &eo)) < 0)
		goto done;
	att->scores = sc_xcalloc(models.n, sizeof(*att->scores));
	att->nscores = models.n;
	att->beneficial = true;
	for (size_t m = 0; m < models.n; m++) {
		struct sc_gen_score *s = &att->scores[m];
		const char *name = models.items[m];
		const struct sc_results_aggregate *b = sc_results_find_aggregate(res, es.path,
										 "baseline", name);
		const struct sc_results_aggregate *h = sc_results_find_aggregate(res, es.path,
										 "head", name);
		const struct sc_results_comparison *c = sc_results_find_comparison(res, es.path,
						name, "baseline", "head");
		bool target = opt->nstudents ? m > 0 || models.n == 1 : true;
		s->model = sc_xstrdup(name);
		s->baseline_rate = b ? b->pass_rate : NAN;
		s->skill_rate = h ? h->pass_rate : NAN;
		s->lift = c ? c->skill_lift : NAN;
		s->is_beneficial = c ? c->is_beneficial : -1;
		s->baseline_tokens = tokens_of(res, "baseline", name);
		s->skill_tokens = tokens_of(res, "head", name);
		if (!target)
			continue;
		ntargets++;
		sum += isnan(s->skill_rate) ? 0 : s->skill_rate;
		if (s->is_beneficial != 1)
			att->beneficial = false;
	}
	att->target_rate = ntargets ? sum / (double)ntargets : NAN;
	if (!ntargets)
		att->beneficial = false;
done:
	sc_strlist_release(&models);
	sc_skill_release(&skill);
	sc_diags_release(&diags);
	sc_buf_release(&dir);
	return err;
}

/* "20% -> 90% (+70%)" as upskill prints an attempt. */
static void rate_line(struct sc_buf *out, const struct sc_gen_score *s)
{
	double lift = isnan(s->lift) ? 0 : s->lift;

	sc_buf_printf(out, "%.0f%% -> %.0f%% (%s%.0f%%)",
		      isnan(s->baseline_rate) ? 0 : s->baseline_rate * 100,
		      isnan(s->skill_rate) ? 0 : s->skill_rate * 100, lift > 0 ? "+" : "",
		      lift * 100);
}

/* ---- the whole command ------------------------------------------------------ */

/* The text of --from FILE for the teacher. */
static int read_trace(struct sc_buf *out, const char *path)
{
	struct sc_buf raw = SC_BUF_INIT;
	int err;

	err = sc_read_file(&raw, path, SC_GEN_MAX_TRACE_BYTES);
	if (err == SC_ELIMIT)
		err = sc_error_set(SC_EINVAL, "trace '%s' is larger than %d bytes", path,
				   SC_GEN_MAX_TRACE_BYTES);
	else if (err == SC_ENOTFOUND)
		err = sc_error_set(SC_EINVAL, "no trace or skill folder '%s'", path);
	if (err == 0)
		err = sc_gen_trace_text(out, raw.ptr, raw.len, path, SC_GEN_TRACE_PROMPT_BYTES);
	sc_buf_release(&raw);
	return err;
}

/* Last path component of p (trailing slashes ignored), into out. */
static void base_name(struct sc_buf *out, const char *p)
{
	size_t n = strlen(p);
	const char *s;

	while (n > 1 && p[n - 1] == '/')
		n--;
	s = p + n;
	while (s > p && s[-1] != '/')
		s--;
	sc_buf_put(out, s, (size_t)(p + n - s));
}

/* Writes cases as the "tests" of dir/skill_meta.json, keeping the rest of an existing file. */
static int save_tests(const char *dir, const struct sc_gen_cases *cases, const char *model,
		      const char *task)
{
	struct sc_buf path = SC_BUF_INIT, data = SC_BUF_INIT, gen = SC_BUF_INIT, when = SC_BUF_INIT;
	cJSON *root = NULL, *fresh = NULL;
	struct sc_gen_meta meta;
	int err;

	sc_path_join(&path, dir, "skill_meta.json");
	memset(&meta, 0, sizeof(meta));
	sc_time_iso8601(&when, (int64_t)time(NULL));
	meta.generated_by = model;
	meta.generated_at = when.ptr;
	meta.source_task = task;
	sc_gen_meta_json(&gen, &meta, cases);
	err = sc_read_file(&data, path.ptr, SC_MAX_JSON_BYTES);
	if (err == SC_ENOTFOUND) {
		sc_error_clear();
		err = sc_write_file_atomic(path.ptr, gen.ptr, gen.len);
		goto done;
	}
	if (err < 0)
		goto done;
	root = cJSON_ParseWithLength(data.ptr, data.len);
	fresh = cJSON_Parse(gen.ptr);
	if (!cJSON_IsObject(root)) {
		err = sc_error_set(SC_EINVAL, "'%s' is not a JSON object; the generated tests were not "
				   "saved (fix or remove it)", path.ptr);
		goto done;
	}
	cJSON_DeleteItemFromObjectCaseSensitive(root, "tests");
	cJSON_AddItemToObject(root, "tests", cJSON_DetachItemFromObjectCaseSensitive(fresh, "tests"));
	sc_buf_clear(&data);
	py_json(&data, root, 0);
	sc_buf_putc(&data, '\n');
	err = sc_write_file_atomic(path.ptr, data.ptr, data.len);
done:
	cJSON_Delete(root);
	cJSON_Delete(fresh);
	sc_buf_release(&path);
	sc_buf_release(&data);
	sc_buf_release(&gen);
	sc_buf_release(&when);
	return err;
}

int sc_gen_ask_tests(struct sc_gen_result *out, const struct sc_gen_options *opt,
		     const char *what, const char *task, char **model_name)
{
	struct gen g;
	struct sc_strlist fixture_lines = { 0 };
	struct sc_buf prompt = SC_BUF_INIT;
	struct sc_model tm;
	const char *model = opt->test_gen_model ? opt->test_gen_model : opt->teacher;
	int err;

	memset(&g, 0, sizeof(g));
	g.opt = opt;
	g.out = out;
	if (!model || (err = sc_model_parse(&tm, model)) < 0)
		return model ? err : sc_error_set(SC_EINVAL, "no model to write tests with");
	if (!task || !*task) {
		sc_model_release(&tm);
		return sc_error_set(SC_EINVAL, "skill '%s' has no description to write tests from",
				    what);
	}
	list_fixtures(&g, &fixture_lines);
	progress(&g, "Generating test cases for %s with %s...", what, tm.name);
	sc_gen_prompt_tests(&prompt, task, &fixture_lines);
	if ((err = teacher_json(&g, WANT_TESTS, model, prompt.ptr, &out->cases)) < 0)
		goto done;
	err = settle_fixtures(&g, &out->cases);
	if (err == 0 && model_name)
		*model_name = sc_xstrdup(tm.name);
done:
	sc_strlist_release(&g.known_fixtures);
	sc_strlist_release(&fixture_lines);
	sc_buf_release(&prompt);
	sc_model_release(&tm);
	return err;
}

int sc_gen_tests_for_skill(struct sc_gen_result *out, const struct sc_gen_options *opt,
			   const char *skill_dir, const char *task)
{
	char *model = NULL;
	int err;

	sc_gen_result_init(out);
	out->dir = sc_xstrdup(skill_dir);
	if ((err = sc_gen_ask_tests(out, opt, skill_dir, task, &model)) < 0)
		goto done;
	if ((err = save_tests(skill_dir, &out->cases, model, task)) < 0)
		goto done;
	if (opt->progress) {
		struct sc_buf line = SC_BUF_INIT;
		sc_buf_printf(&line, "Generated %zu test cases; saved in %s/skill_meta.json",
			      out->cases.n, skill_dir);
		opt->progress(line.ptr, opt->payload);
		sc_buf_release(&line);
	}
done:
	free(model);
	return err;
}

int sc_generate(struct sc_gen_result *out, const struct sc_gen_options *opt)
{
	struct gen g;
	struct sc_gen_draft existing, cur, next;
	struct sc_gen_cases old_cases = { 0 };
	struct sc_buf prompt = SC_BUF_INIT, trace = SC_BUF_INIT, req = SC_BUF_INIT;
	struct sc_buf when = SC_BUF_INIT, tmp = SC_BUF_INIT, src = SC_BUF_INIT;
	struct sc_strlist fixture_lines = { 0 };
	struct sc_model teacher;
	struct sc_gen_meta meta;
	bool from_dir = false;
	int err;

	sc_gen_result_init(out);
	memset(&g, 0, sizeof(g));
	memset(&existing, 0, sizeof(existing));
	memset(&cur, 0, sizeof(cur));
	memset(&next, 0, sizeof(next));
	memset(&teacher, 0, sizeof(teacher));
	g.opt = opt;
	g.out = out;
	if (!opt->task || !*opt->task)
		return sc_error_set(SC_EINVAL, "name the task to write a skill for");
	if ((err = sc_model_parse(&teacher, opt->teacher)) < 0)
		return err;
	if (!opt->no_eval && !opt->store) {
		err = sc_error_set(SC_EINVAL, "evaluation needs a results store");
		goto done;
	}
	if (opt->out_dir) {
		base_name(&req, opt->out_dir);
		if (!sc_skill_name_valid(req.ptr, &tmp)) {
			err = sc_error_set(SC_EINVAL, "output folder '%s' cannot hold a skill: its "
					   "name '%s' %s", opt->out_dir, req.ptr, tmp.ptr);
			goto done;
		}
		g.required_name = req.ptr;
		/* before anything is asked: the teacher's time is not wasted */
		if ((err = check_free(opt->out_dir, opt->force)) < 0)
			goto done;
	}
	{
		const char *tdir = getenv("TMPDIR");
		sc_buf_clear(&tmp);
		sc_buf_printf(&tmp, "%s/skillci-generate.XXXXXX", tdir && *tdir ? tdir : "/tmp");
		if (!mkdtemp(tmp.ptr)) {
			err = sc_error_set(SC_EIO, "cannot create a staging folder in '%s': %s",
					   tdir && *tdir ? tdir : "/tmp", strerror(errno));
			goto done;
		}
		g.stage = sc_xstrdup(tmp.ptr);
	}
	if (opt->from) {
		struct stat st;
		if (stat(opt->from, &st) == 0 && S_ISDIR(st.st_mode)) {
			from_dir = true;
			if ((err = load_existing(&existing, &old_cases, opt->from)) < 0) {
				if (err == SC_ENOTFOUND)
					err = sc_error_set(SC_EINVAL, "'%s' holds no SKILL.md",
							   opt->from);
				goto done;
			}
			g.base = &existing;
		} else if ((err = read_trace(&trace, opt->from)) < 0) {
			goto done;
		}
	}

	/* the skill */
	sc_buf_clear(&prompt);
	if (from_dir) {
		progress(&g, "Improving %s with %s...", existing.name, teacher.name);
		sc_gen_prompt_improve(&prompt, &existing, opt->task, g.required_name);
	} else {
		progress(&g, "Generating skill with %s...", teacher.name);
		sc_gen_prompt_skill(&prompt, opt->task, opt->examples, opt->nexamples,
				    opt->from ? trace.ptr : NULL, g.required_name);
	}
	if ((err = teacher_json(&g, WANT_SKILL, opt->teacher, prompt.ptr, &cur)) < 0)
		goto done;
	if (!opt->out_dir) {
		sc_buf_clear(&tmp);
		sc_path_join(&tmp, opt->skills_dir ? opt->skills_dir : "skills", cur.name);
		out->dir = sc_xstrdup(tmp.ptr);
		/* the teacher's name picks the folder: never over another skill */
		if ((err = check_free(out->dir, opt->force)) < 0)
			goto done;
		/* refinements keep the name, so the folder stays right */
		sc_buf_sets(&req, cur.name);
		g.required_name = req.ptr;
	} else {
		out->dir = sc_xstrdup(opt->out_dir);
	}

	/* the tests */
	if (from_dir && old_cases.n) {
		out->cases = old_cases;
		memset(&old_cases, 0, sizeof(old_cases));
		progress(&g, "Using the %zu tests of %s", out->cases.n, opt->from);
	} else if (!opt->no_eval) {
		const char *tg = opt->test_gen_model ? opt->test_gen_model : opt->teacher;
		if (!opt->nfixtures)
			list_fixtures(&g, &fixture_lines);
		progress(&g, "Generating test cases...");
		sc_buf_clear(&prompt);
		sc_gen_prompt_tests(&prompt, opt->task, &fixture_lines);
		if ((err = teacher_json(&g, WANT_TESTS, tg, prompt.ptr, &out->cases)) < 0)
			goto done;
		progress(&g, "Generated %zu test cases", out->cases.n);
	}
	if ((err = settle_fixtures(&g, &out->cases)) < 0)
		goto done;

	sc_time_iso8601(&when, opt->now ? opt->now : (int64_t)time(NULL));
	memset(&meta, 0, sizeof(meta));
	meta.generated_by = teacher.name;
	meta.generated_at = when.ptr;
	meta.source_task = opt->task;
	if (from_dir) {
		sc_buf_printf(&src, "Improved from %s: %s", existing.name, opt->task);
		meta.source_task = src.ptr;
	}

	if (!opt->no_eval && out->cases.n) {
		int limit = opt->max_refine < 0 ? 0 : opt->max_refine;
		struct sc_strlist names = { 0 };
		eval_models(opt, &names);
		for (int attempt = 0;; attempt++) {
			struct sc_gen_attempt att;
			struct sc_results res;
			struct sc_test_set tests = SC_TEST_SET_INIT;
			struct sc_buf line = SC_BUF_INIT;
			struct sc_strlist failures = { 0 };
			bool best;

			sc_buf_clear(&tmp);
			for (size_t i = 0; i < names.n; i++)
				sc_buf_printf(&tmp, "%s%s", i ? ", " : "", names.items[i]);
			progress(&g, "Evaluating on %s... (attempt %d)", tmp.ptr, attempt + 1);
			err = evaluate(&g, &cur, &meta, &att, &res, &tests);
			if (err < 0) {
				attempt_release(&att);
				sc_results_release(&res);
				sc_test_set_release(&tests);
				break;
			}
			out->evaluated = true;
			for (size_t m = 0; m < att.nscores; m++) {
				sc_buf_clear(&line);
				rate_line(&line, &att.scores[m]);
				progress(&g, "  %s: %s%s", att.scores[m].model, line.ptr,
					 att.scores[m].is_beneficial == 1 ? " OK" : " not good enough");
			}
			/* the failures, while res is still this version's */
			for (size_t m = 0; m < att.nscores; m++) {
				bool target = opt->nstudents ? m > 0 || att.nscores == 1 : true;
				if (target && att.scores[m].is_beneficial != 1)
					sc_gen_failures(&failures, &res, att.scores[m].model, &tests);
			}
			best = out->nattempts == 0 ||
			       sc_gen_attempt_better(&att, &out->attempts[out->kept]);
			out->attempts = sc_xrealloc(out->attempts,
						    (out->nattempts + 1) * sizeof(*out->attempts));
			out->attempts[out->nattempts++] = att;
			if (best) {
				out->kept = out->nattempts - 1;
				sc_gen_draft_release(&out->skill);
				draft_copy(&out->skill, &cur);
				sc_results_release(&out->results);
				out->results = res;
				sc_results_init(&res);
			}
			if (att.beneficial || attempt >= limit) {
				sc_strlist_release(&failures);
				if (!att.beneficial)
					progress(&g, "  stopping after %d refinement%s", attempt,
						 attempt == 1 ? "" : "s");
				if (out->kept != out->nattempts - 1)
					progress(&g, "  keeping version %zu, the best", out->kept + 1);
				sc_results_release(&res);
				sc_test_set_release(&tests);
				sc_buf_release(&line);
				break;
			}
			if (!failures.n)
				sc_strlist_add(&failures, "The skill gave no lift over no skill on these "
					       "tests; make it more specific and actionable.");
			progress(&g, "Refining...");
			sc_buf_clear(&prompt);
			sc_gen_prompt_refine(&prompt, &cur, &failures,
					     g.required_name ? g.required_name : cur.name);
			sc_strlist_release(&failures);
			sc_results_release(&res);
			sc_test_set_release(&tests);
			sc_buf_release(&line);
			err = teacher_json(&g, WANT_SKILL, opt->teacher, prompt.ptr, &next);
			if (err < 0)
				break;
			sc_gen_draft_release(&cur);
			cur = next;
			memset(&next, 0, sizeof(next));
		}
		sc_strlist_release(&names);
		if (err < 0)
			goto done;
		{
			const struct sc_gen_attempt *k = &out->attempts[out->kept];
			meta.has_test_pass_rate = k->nscores > 0 && !isnan(k->scores[0].skill_rate);
			meta.test_pass_rate = meta.has_test_pass_rate ? k->scores[0].skill_rate : NAN;
		}
	} else {
		draft_copy(&out->skill, &cur);
	}

	/* checked again: the folder may have appeared while the teacher worked */
	if ((err = check_free(out->dir, opt->force)) < 0 ||
	    (err = write_skill(out->dir, &out->skill, &meta, &out->cases)) < 0)
		goto done;
done:
	if (g.stage)
		sc_rm_rf(g.stage);
	free(g.stage);
	sc_strlist_release(&g.known_fixtures);
	sc_strlist_release(&fixture_lines);
	sc_gen_draft_release(&existing);
	sc_gen_draft_release(&cur);
	sc_gen_draft_release(&next);
	sc_gen_cases_release(&old_cases);
	sc_model_release(&teacher);
	sc_buf_release(&prompt);
	sc_buf_release(&trace);
	sc_buf_release(&req);
	sc_buf_release(&when);
	sc_buf_release(&tmp);
	sc_buf_release(&src);
	return err;
}
