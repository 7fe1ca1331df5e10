/*
 * Reading skills: discovery (walk a tree, find SKILL.md folders, assign
 * files to the nearest skill) and SKILL.md parsing against the Agent
 * Skills rules. Every finding goes to a struct sc_diags with a stable code;
 * docs/skills.md lists them all.
 */
#include "common.h"
#include "diag.h"
#include "format/markdown.h"
#include "skills/prompt.h"
#include "skills/skill.h"
#include "format/yaml.h"

#include <dirent.h>
#include <limits.h>
#include <locale.h>
#include <pthread.h>
#include <sys/stat.h>
#include <unistd.h>
#include <wctype.h>

#define SKILL_MD "SKILL.md"
#define SKILL_MD_LOWER "skill.md"

/* ------------------------------------------------------------------ */
/* Names */

static locale_t utf8_locale;
static pthread_once_t utf8_once = PTHREAD_ONCE_INIT;

static void utf8_locale_init(void)
{
	utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

/* The code point at s (a NUL-terminated name) and its length; a byte that
 * does not start valid UTF-8 stands alone, as U+FFFD. */
static size_t name_cp(const char *s, uint32_t *cp)
{
	size_t n = sc_utf8_decode(s, strnlen(s, 4), cp);

	if (!n) {
		*cp = 0xFFFD;
		n = 1;
	}
	return n;
}

/*
 * Classifies one code point of a name: 0 allowed (lowercase letter, a letter
 * without case such as CJK, a digit), 1 an uppercase or titlecase letter, 2
 * anything else. Non-ASCII characters are classified with the C.UTF-8
 * locale's tables; without that locale only ASCII is allowed.
 */
static int name_char_class(uint32_t c)
{
	if (c < 0x80) {
		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
			return 0;
		return c >= 'A' && c <= 'Z' ? 1 : 2;
	}
	pthread_once(&utf8_once, utf8_locale_init);
	if (utf8_locale == (locale_t)0 || !iswalnum_l((wint_t)c, utf8_locale))
		return 2;
	return towlower_l((wint_t)c, utf8_locale) == (wint_t)c ? 0 : 1;
}

/* Writes c for a message: the character itself when printable, else U+XXXX. */
static void put_char_for_message(struct sc_buf *out, const char *at, size_t n, uint32_t c)
{
	if (c < 0x20 || c == 0x7F || (c >= 0x80 && c < 0xA0))
		sc_buf_printf(out, "U+%04X", (unsigned)c);
	else
		sc_buf_put(out, at, n);
}

/*
 * The first rule a name breaks, as a finding code ("name-empty",
 * "name-too-long", "name-invalid") with a message appended to why; NULL
 * when the name is valid.
 */
static const char *name_problem(const char *name, struct sc_buf *why)
{
	size_t len = strlen(name), chars = sc_utf8_count(name, len);

	if (!chars) {
		sc_buf_puts(why, "'name' is empty");
		return "name-empty";
	}
	if (chars > SC_NAME_MAX_CHARS) {
		sc_buf_printf(why, "'name' is %zu characters, more than %d", chars, SC_NAME_MAX_CHARS);
		return "name-too-long";
	}
	for (const char *p = name; *p;) {
		uint32_t c;
		size_t n = name_cp(p, &c);
		int cls = c == '-' ? 0 : name_char_class(c);

		if (cls == 1) {
			sc_buf_puts(why, "'name' must be lowercase; found '");
			sc_buf_put(why, p, n);
			sc_buf_puts(why, "'");
			return "name-invalid";
		}
		if (cls == 2) {
			sc_buf_puts(why, "'name' may contain only lowercase letters, digits and hyphens; found '");
			put_char_for_message(why, p, n, c);
			sc_buf_puts(why, "'");
			return "name-invalid";
		}
		p += n;
	}
	if (name[0] == '-' || name[len - 1] == '-') {
		sc_buf_puts(why, "'name' must not start or end with a hyphen");
		return "name-invalid";
	}
	if (strstr(name, "--")) {
		sc_buf_puts(why, "'name' must not contain consecutive hyphens ('--')");
		return "name-invalid";
	}
	return NULL;
}

bool sc_skill_name_valid(const char *name, struct sc_buf *why)
{
	struct sc_buf tmp = SC_BUF_INIT;
	const char *code = name_problem(name, why ? why : &tmp);

	sc_buf_release(&tmp);
	return code == NULL;
}

size_t sc_skill_estimate_tokens(const char *text, size_t len)
{
	size_t chars = sc_utf8_count(text, len);
	return (chars + 3) / 4;
}

/* ------------------------------------------------------------------ */
/* SKILL.md */

/* 1-based line of byte offset off in data. */
static size_t line_of(const char *data, size_t off)
{
	size_t line = 1;
	for (size_t i = 0; i < off; i++)
		line += data[i] == '\n';
	return line;
}

/* A front matter delimiter: "---" and nothing after it but blanks. */
static bool is_delimiter(const char *line, size_t len)
{
	if (len < 3 || memcmp(line, "---", 3) != 0)
		return false;
	for (size_t i = 3; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t')
			return false;
	return true;
}

static bool is_blank(const char *line, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (line[i] != ' ' && line[i] != '\t')
			return false;
	return true;
}

/* The lines of a text, as offsets; the last line may lack its '\n'. */
struct lines {
	size_t *start;  /* start[i] is the offset of line i+1 */
	size_t n, alloc;
	const char *text;
	size_t len;
};

static void lines_split(struct lines *l, const char *text, size_t len)
{
	memset(l, 0, sizeof(*l));
	l->text = text;
	l->len = len;
	for (size_t off = 0; off < len;) {
		const char *nl = memchr(text + off, '\n', len - off);
		SC_GROW(l->start, l->alloc, l->n + 1);
		l->start[l->n++] = off;
		off = nl ? (size_t)(nl - text) + 1 : len;
	}
}

/* Line i (1-based) without its newline. */
static const char *lines_get(const struct lines *l, size_t i, size_t *len)
{
	size_t s = l->start[i - 1];
	size_t e = i < l->n ? l->start[i] : l->len;
	if (e > s && l->text[e - 1] == '\n')
		e--;
	*len = e - s;
	return l->text + s;
}

/* A value that is a YAML string (not a number, bool, null or collection). */
static bool is_string(const struct sc_yaml_node *v)
{
	return v && v->kind == SC_YAML_SCALAR && !strcmp(sc_yaml_type_name(v), "string");
}

/* Records a front matter value that must be a string: returns it, or NULL
 * after a field-type finding. */
static const char *want_string(const struct sc_yaml_node *v, const char *key, const char *file,
			       struct sc_diags *diags)
{
	if (is_string(v))
		return v->value;
	sc_diags_add(diags, SC_SEV_ERROR, file, v->line, "field-type", "'%s' must be a string, found %s",
		     key, sc_yaml_type_name(v));
	return NULL;
}

/* Extension fields many tools read; warnings, or errors under --strict. */
static const char *const extension_fields[] = {
	"argument-hint", "user-invocable", "disable-model-invocation", "version",
};
static const char *const spec_fields[] = {
	"name", "description", "license", "compatibility", "metadata", "allowed-tools",
};

static bool in_list(const char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return true;
	return false;
}

static void check_name(struct sc_skill *skill, const struct sc_yaml_node *v, const char *file,
		       const char *folder, struct sc_diags *diags)
{
	struct sc_buf why = SC_BUF_INIT;
	const char *name, *code;

	if (sc_yaml_is_null(v)) {
		sc_diags_add(diags, SC_SEV_ERROR, file, v->line, "name-empty", "'name' is empty");
		return;
	}
	if (!(name = want_string(v, "name", file, diags)))
		return;
	free(skill->name);
	skill->name = sc_xstrdup(name);
	if ((code = name_problem(name, &why)))
		sc_diags_add(diags, SC_SEV_ERROR, file, v->line, code, "%s", why.ptr);
	if (folder && *name && strcmp(name, folder) != 0)
		sc_diags_add(diags, SC_SEV_ERROR, file, v->line, "name-mismatch",
			     "'name' is '%s' but the folder is '%s'; they must be equal", name, folder);
	sc_buf_release(&why);
}

static void check_description(struct sc_skill *skill, const struct sc_yaml_node *v,
			      const char *file, struct sc_diags *diags)
{
	const char *d;
	size_t chars;

	if (sc_yaml_is_null(v)) {
		sc_diags_add(diags, SC_SEV_ERROR, file, v->line, "description-empty", "'description' is empty");
		return;
	}
	if (!(d = want_string(v, "description", file, diags)))
		return;
	free(skill->description);
	skill->description = sc_xstrdup(d);
	chars = sc_utf8_count(d, strlen(d));
	if (strspn(d, " \t\r\n") == strlen(d))
		sc_diags_add(diags, SC_SEV_ERROR, file, v->line, "description-empty", "'description' is empty");
	else if (chars > SC_DESCRIPTION_MAX_CHARS)
		sc_diags_add(diags, SC_SEV_ERROR, file, v->line, "description-too-long",
			     "'description' is %zu characters, more than %d", chars,
			     SC_DESCRIPTION_MAX_CHARS);
}

static void check_metadata(const struct sc_yaml_node *v, const char *file, struct sc_diags *diags)
{
	size_t n;

	if (v->kind != SC_YAML_MAP) {
		if (sc_yaml_is_null(v))
			return;
		sc_diags_add(diags, SC_SEV_ERROR, file, v->line, "metadata-not-map",
			     "'metadata' must be a map of strings, found %s", sc_yaml_type_name(v));
		return;
	}
	n = sc_yaml_count(v);
	for (size_t i = 0; i < n; i++) {
		const struct sc_yaml_node *k = sc_yaml_map_key(v, i), *val = sc_yaml_map_value(v, i);
		if (k->kind != SC_YAML_SCALAR) {
			sc_diags_add(diags, SC_SEV_ERROR, file, k->line, "metadata-value",
				     "'metadata' keys must be strings, found %s", sc_yaml_type_name(k));
			continue;
		}
		if (!is_string(val))
			sc_diags_add(diags, SC_SEV_ERROR, file, val->line, "metadata-value",
				     "'metadata' key '%s' must be a string, found %s", k->value,
				     sc_yaml_type_name(val));
	}
}

/* Checks one top-level front matter field. */
static void check_field(struct sc_skill *skill, const struct sc_yaml_node *k,
			const struct sc_yaml_node *v, const char *file, const char *folder,
			struct sc_diags *diags, unsigned flags)
{
	enum sc_severity ext_sev = (flags & SC_SKILL_STRICT) ? SC_SEV_ERROR : SC_SEV_WARNING;
	const char *key = k->value, *s;

	if (!strcmp(key, "name")) {
		check_name(skill, v, file, folder, diags);
	} else if (!strcmp(key, "description")) {
		check_description(skill, v, file, diags);
	} else if (!strcmp(key, "license")) {
		if ((s = want_string(v, key, file, diags)))
			skill->license = (free(skill->license), sc_xstrdup(s));
	} else if (!strcmp(key, "compatibility")) {
		if ((s = want_string(v, key, file, diags))) {
			size_t chars = sc_utf8_count(s, strlen(s));
			skill->compatibility = (free(skill->compatibility), sc_xstrdup(s));
			if (chars > SC_COMPATIBILITY_MAX_CHARS)
				sc_diags_add(diags, SC_SEV_ERROR, file, v->line, "compatibility-too-long",
					     "'compatibility' is %zu characters, more than %d", chars,
					     SC_COMPATIBILITY_MAX_CHARS);
		}
	} else if (!strcmp(key, "metadata")) {
		check_metadata(v, file, diags);
	} else if (!strcmp(key, "allowed-tools")) {
		if (v->kind == SC_YAML_SEQ)
			sc_diags_add(diags, ext_sev, file, v->line, "allowed-tools-list",
				     "'allowed-tools' as a list is an extension; the Agent Skills format "
				     "wants one space-separated string");
		else if ((s = want_string(v, key, file, diags)))
			skill->allowed_tools = (free(skill->allowed_tools), sc_xstrdup(s));
	} else if (in_list(extension_fields, SC_ARRAY_SIZE(extension_fields), key)) {
		sc_diags_add(diags, ext_sev, file, k->line, "field-extension",
			     "'%s' is an extension field, not part of the Agent Skills format", key);
	} else {
		sc_diags_add(diags, ext_sev, file, k->line, "field-unknown", "unknown field '%s'", key);
	}
}

/* Checks the parsed front matter: its shape, each field, required ones. */
static void check_front_matter(struct sc_skill *skill, const struct sc_yaml_node *root,
			       const char *file, const char *folder, struct sc_diags *diags,
			       unsigned flags)
{
	size_t n = sc_yaml_count(root);
	bool has_name = false, has_desc = false;

	if (root->kind != SC_YAML_MAP && !sc_yaml_is_null(root)) {
		sc_diags_add(diags, SC_SEV_ERROR, file, root->line, "frontmatter-not-map",
			     "front matter must be a map of fields, found %s", sc_yaml_type_name(root));
		return;
	}
	for (size_t i = 0; i < n; i++) {
		const struct sc_yaml_node *k = sc_yaml_map_key(root, i), *v = sc_yaml_map_value(root, i);
		bool dup = false;

		if (k->kind != SC_YAML_SCALAR) {
			sc_diags_add(diags, SC_SEV_ERROR, file, k->line, "field-type",
				     "front matter keys must be strings, found %s", sc_yaml_type_name(k));
			continue;
		}
		/* Duplicates are checked for the known fields only, which keeps
		 * the check linear on a hostile file with many keys. */
		if (in_list(spec_fields, SC_ARRAY_SIZE(spec_fields), k->value) ||
		    in_list(extension_fields, SC_ARRAY_SIZE(extension_fields), k->value)) {
			for (size_t j = 0; j < i && !dup; j++) {
				const struct sc_yaml_node *pk = sc_yaml_map_key(root, j);
				if (pk->kind == SC_YAML_SCALAR && !strcmp(pk->value, k->value)) {
					sc_diags_add(diags, SC_SEV_ERROR, file, k->line, "field-duplicate",
						     "'%s' is given twice (first at line %zu)", k->value,
						     pk->line);
					dup = true;
				}
			}
		}
		if (dup)
			continue;
		has_name |= !strcmp(k->value, "name");
		has_desc |= !strcmp(k->value, "description");
		check_field(skill, k, v, file, folder, diags, flags);
	}
	if (!has_name)
		sc_diags_add(diags, SC_SEV_ERROR, file, 1, "name-missing",
			     "front matter has no 'name' (required)");
	if (!has_desc)
		sc_diags_add(diags, SC_SEV_ERROR, file, 1, "description-missing",
			     "front matter has no 'description' (required)");
}

/*
 * Splits a YAML wrapper error ("FILE:LINE:COL: problem" or "FILE:LINE:
 * problem") into its line, column (0 when none) and the problem text.
 */
static const char *split_yaml_error(const char *file, size_t *line, size_t *col)
{
	const char *msg = sc_error_last(), *p = msg;
	size_t flen = strlen(file);
	char *end;

	*line = *col = 0;
	if (strncmp(p, file, flen) != 0 || p[flen] != ':')
		return msg;
	p += flen + 1;
	*line = strtoul(p, &end, 10);
	p = end;
	if (*p == ':' && p[1] >= '0' && p[1] <= '9') {
		*col = strtoul(p + 1, &end, 10);
		p = end;
	}
	if (*p == ':')
		p++;
	while (*p == ' ')
		p++;
	return p;
}

/* Turns a YAML wrapper error into a finding at its line. */
static void add_yaml_error(struct sc_diags *diags, const char *file, int err)
{
	const char *code = err == SC_ELIMIT ? "yaml-limit" : "yaml-syntax";
	size_t line, col;
	const char *p = split_yaml_error(file, &line, &col);

	if (col)
		sc_diags_add(diags, SC_SEV_ERROR, file, line, code, "%s (column %zu)", p, col);
	else
		sc_diags_add(diags, SC_SEV_ERROR, file, line, code, "%s", p);
}

/* True when the last top-level value of the front matter is a block
 * scalar ('|' or '>'), which a '---' line would have cut short. */
static bool last_value_is_block(const struct sc_yaml_node *root)
{
	size_t n = sc_yaml_count(root);
	const struct sc_yaml_node *v;

	if (root->kind != SC_YAML_MAP || !n)
		return false;
	v = sc_yaml_map_value(root, n - 1);
	return v->kind == SC_YAML_SCALAR && (v->style == SC_YAML_LITERAL || v->style == SC_YAML_FOLDED);
}

/* Link checking: the body's relative links must name files in the skill. */
struct link_ctx {
	const char *dir;   /* skill folder, or NULL: existence not checked */
	const char *file;  /* SKILL.md for findings */
	struct sc_diags *diags;
};

static bool has_scheme(const char *url)
{
	const char *p = url;
	if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z')))
		return false;
	while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
	       *p == '+' || *p == '.' || *p == '-')
		p++;
	return *p == ':';
}

/*
 * Normalises a relative link path into out ("a/./b/../c" -> "a/c"):
 * returns false when a ".." climbs above the skill folder.
 */
static bool normalise_rel(struct sc_buf *out, const char *path)
{
	const char *p = path;

	sc_buf_clear(out);
	while (*p) {
		const char *slash = strchr(p, '/');
		size_t n = slash ? (size_t)(slash - p) : strlen(p);

		if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *last;
			if (!out->len)
				return false;
			last = strrchr(out->ptr, '/');
			sc_buf_truncate(out, last ? (size_t)(last - out->ptr) : 0);
		} else if (n && !(n == 1 && p[0] == '.')) {
			if (out->len)
				sc_buf_putc(out, '/');
			sc_buf_put(out, p, n);
		}
		p += n + (slash ? 1 : 0);
	}
	return true;
}

static int check_link(const char *url, size_t line, int is_image, void *payload)
{
	struct link_ctx *ctx = payload;
	struct sc_buf path = SC_BUF_INIT, norm = SC_BUF_INIT, full = SC_BUF_INIT;
	const char *kind = is_image ? "image" : "link";
	struct stat st;

	if (!*url || *url == '#' || has_scheme(url) || (url[0] == '/' && url[1] == '/'))
		goto done;
	/* The path part, percent-decoded (cmark keeps the escapes). */
	for (const char *p = url; *p && *p != '#' && *p != '?'; p++) {
		if (*p == '%' && sc_hex_value(p[1]) >= 0 && sc_hex_value(p[2]) >= 0) {
			sc_buf_putc(&path, (char)(sc_hex_value(p[1]) * 16 + sc_hex_value(p[2])));
			p += 2;
		} else {
			sc_buf_putc(&path, *p);
		}
	}
	if (!path.len)
		goto done;
	if (path.ptr[0] == '/') {
		sc_diags_add(ctx->diags, SC_SEV_ERROR, ctx->file, line, "link-escape",
			     "%s '%s' is an absolute path; link to files in the skill with a relative path",
			     kind, url);
		goto done;
	}
	if (strlen(path.ptr) != path.len || !normalise_rel(&norm, path.ptr)) {
		sc_diags_add(ctx->diags, SC_SEV_ERROR, ctx->file, line, "link-escape",
			     "%s '%s' leads outside the skill folder", kind, url);
		goto done;
	}
	if (!ctx->dir || !norm.len)
		goto done;
	sc_path_join(&full, ctx->dir, norm.ptr);
	if (lstat(full.ptr, &st) < 0)
		sc_diags_add(ctx->diags, SC_SEV_ERROR, ctx->file, line, "link-missing",
			     "%s '%s' names a file that does not exist in the skill", kind, url);
done:
	sc_buf_release(&full);
	sc_buf_release(&norm);
	sc_buf_release(&path);
	return 0;
}

/* Body checks: size in lines and tokens, links. */
static void check_body(struct sc_skill *skill, const char *file, struct sc_diags *diags)
{
	struct link_ctx ctx = { skill->dir, file, diags };
	const char *b = skill->body;
	size_t len = skill->body_len;

	skill->body_lines = 0;
	for (size_t i = 0; i < len; i++)
		skill->body_lines += b[i] == '\n';
	if (len && b[len - 1] != '\n')
		skill->body_lines++;
	skill->body_tokens = sc_skill_estimate_tokens(b, len);
	if (len == strspn(b, " \t\n"))
		sc_diags_add(diags, SC_SEV_WARNING, file,
			     skill->body_lines ? skill->body_line : skill->body_line - 1, "body-empty",
			     "the body is empty; a skill needs instructions below the front matter");
	if (skill->body_lines > SC_BODY_WARN_LINES)
		sc_diags_add(diags, SC_SEV_WARNING, file, skill->body_line, "body-too-long",
			     "the body is %zu lines, more than %d; move detail into references/ files",
			     skill->body_lines, SC_BODY_WARN_LINES);
	if (skill->body_tokens > SC_BODY_WARN_TOKENS)
		sc_diags_add(diags, SC_SEV_WARNING, file, skill->body_line, "body-too-many-tokens",
			     "the body is about %zu tokens (characters / 4), more than %d; move detail "
			     "into references/ files", skill->body_tokens, SC_BODY_WARN_TOKENS);
	sc_markdown_links(b, len, skill->body_line - 1, check_link, &ctx);
}

static void set_body(struct sc_skill *skill, const char *text, size_t len, size_t line)
{
	free(skill->body);
	skill->body = sc_xstrndup(text, len);
	skill->body_len = len;
	skill->body_line = line;
}

/*
 * Parses SKILL.md in memory. The raw bytes are checked for UTF-8, a BOM and
 * CRLF first; the front matter is located line by line (line 1 "---", the
 * next "---" line closes it) and its inside parsed with libyaml; the rest
 * is the body.
 */
void sc_skill_parse_md(struct sc_skill *skill, const char *data, size_t len,
		       const char *md_path, const char *folder, struct sc_diags *diags,
		       unsigned flags)
{
	struct sc_buf text = SC_BUF_INIT;
	struct sc_yaml_node *root = NULL;
	struct lines lines;
	size_t bad = 0, bad_line = 0, close = 0, crlf = 0, crlf_first = 0, next = 0;
	size_t first_tab = 0, llen;
	const char *l;
	int err;

	skill->md_bytes = len;
	skill->loaded = true;
	if (!sc_utf8_check(data, len, &bad)) {
		size_t ls = bad;
		while (ls > 0 && data[ls - 1] != '\n')
			ls--;
		bad_line = line_of(data, bad);
		sc_diags_add(diags, SC_SEV_ERROR, md_path, bad_line, "utf8-invalid",
			     "invalid UTF-8 (byte 0x%02x at column %zu)", (unsigned char)data[bad],
			     bad - ls + 1);
	}
	/* A NUL byte makes it a binary file; nothing below can be trusted to
	 * see the whole text, so stop here. */
	if (memchr(data, '\0', len)) {
		size_t off = (size_t)((const char *)memchr(data, '\0', len) - data);
		sc_diags_add(diags, SC_SEV_ERROR, md_path, line_of(data, off), "nul-byte",
			     "NUL byte in the file (a text file has none); not read further");
		return;
	}
	if (len >= 3 && !memcmp(data, "\xEF\xBB\xBF", 3)) {
		sc_diags_add(diags, SC_SEV_WARNING, md_path, 1, "bom",
			     "byte order mark at the start of the file; save it as UTF-8 without one");
		data += 3;
		len -= 3;
	}
	/* A copy with CRLF turned into LF; line numbers stay the same. */
	sc_buf_grow(&text, len);
	for (size_t i = 0; i < len;) {
		const char *cr = memchr(data + i, '\r', len - i);
		size_t span = cr ? (size_t)(cr - data) - i : len - i;

		sc_buf_put(&text, data + i, span);
		i += span;
		if (i >= len)
			break;
		if (i + 1 < len && data[i + 1] == '\n') {
			if (!crlf++)
				crlf_first = line_of(data, i);
		} else {
			sc_buf_putc(&text, '\r');
		}
		i++;
	}
	if (crlf)
		sc_diags_add(diags, SC_SEV_WARNING, md_path, crlf_first, "crlf",
			     "CRLF line endings (%zu lines, the first here); use LF", crlf);

	lines_split(&lines, text.ptr, text.len);
	l = lines.n ? lines_get(&lines, 1, &llen) : "";
	if (!lines.n || !is_delimiter(l, llen)) {
		size_t first = 0;
		for (size_t i = 1; i <= lines.n && !first; i++) {
			l = lines_get(&lines, i, &llen);
			if (!is_blank(l, llen))
				first = i;
		}
		if (first > 1 && (l = lines_get(&lines, first, &llen), is_delimiter(l, llen)))
			sc_diags_add(diags, SC_SEV_ERROR, md_path, first, "frontmatter-missing",
				     "the front matter must start on line 1 ('---' found on line %zu)", first);
		else
			sc_diags_add(diags, SC_SEV_ERROR, md_path, 1, "frontmatter-missing",
				     "no front matter: SKILL.md must start with a '---' line, YAML with "
				     "'name' and 'description', and a closing '---' line");
		set_body(skill, text.ptr, text.len, 1);
		check_body(skill, md_path, diags);
		goto done;
	}
	for (size_t i = 2; i <= lines.n && !close; i++) {
		l = lines_get(&lines, i, &llen);
		if (is_delimiter(l, llen))
			close = i;
		else if (!first_tab && llen && (l[strspn(l, " ")] == '\t'))
			first_tab = i;
	}
	if (!close) {
		sc_diags_add(diags, SC_SEV_ERROR, md_path, 1, "frontmatter-unclosed",
			     "the front matter opened on line 1 is never closed by a '---' line");
		goto done;
	}
	for (size_t i = close + 1; i <= lines.n && !next; i++) {
		l = lines_get(&lines, i, &llen);
		if (is_delimiter(l, llen))
			next = i;
	}
	if (close < lines.n)
		set_body(skill, text.ptr + lines.start[close], text.len - lines.start[close], close + 1);
	else
		set_body(skill, "", 0, close + 1);

	if (bad_line > 1 && bad_line < close) {
		/* Already reported as utf8-invalid; libyaml would refuse it too. */
	} else {
		size_t ystart = lines.start[1], yend = lines.start[close - 1];
		bool continues = false, dash_in_value = false;
		size_t eline = 0, ecol = 0;

		if (close < lines.n) {
			l = lines_get(&lines, close + 1, &llen);
			continues = llen && (l[0] == ' ' || l[0] == '\t') && !is_blank(l, llen);
		}
		err = sc_yaml_parse(&root, text.ptr + ystart, yend - ystart, md_path, 1);
		/* A '---' line inside a value (a block scalar, a quoted string)
		 * closes the front matter early: the value goes on below it and
		 * another '---' line follows. */
		if (err == SC_EPARSE) {
			split_yaml_error(md_path, &eline, &ecol);
			dash_in_value = next && eline + 1 >= close;
		} else if (err == 0) {
			dash_in_value = next && continues && last_value_is_block(root);
		}
		if (dash_in_value)
			sc_diags_add(diags, SC_SEV_ERROR, md_path, close, "frontmatter-dash-in-value",
				     "this '---' line ends the front matter inside a value (the value "
				     "goes on below); indent it or quote the value");
		/* libyaml's message for a tab is "found character that cannot
		 * start any token", often lines later; name the tab instead. A tab
		 * inside a block scalar's text is fine, so only a failed parse
		 * with a tab-indented line at or before the error counts. */
		else if (err == SC_EPARSE && first_tab && first_tab <= eline)
			sc_diags_add(diags, SC_SEV_ERROR, md_path, first_tab, "yaml-tab",
				     "tab in the indentation; YAML allows only spaces there");
		else if (err < 0)
			add_yaml_error(diags, md_path, err);
		if (err == 0)
			check_front_matter(skill, root, md_path, folder, diags, flags);
	}
	check_body(skill, md_path, diags);
done:
	sc_yaml_free(root);
	free(lines.start);
	sc_buf_release(&text);
}

/* ------------------------------------------------------------------ */
/* Discovery */

struct walker {
	struct sc_skill_list *list;
	struct sc_diags *diags;
	unsigned flags;
	size_t root_len;      /* length of the root path as joined */
	char *root_real;      /* realpath of the root */
	bool single;          /* sc_skill_load: the root's skill only */
	bool stop;            /* a bound was hit */
};

static void add_skip(struct sc_skill_list *list, const char *path, const char *reason)
{
	struct sc_skip *s;
	SC_GROW(list->skipped, list->skipped_alloc, list->nskipped + 1);
	s = &list->skipped[list->nskipped++];
	s->path = sc_xstrdup(path);
	s->reason = sc_xstrdup(reason);
}

/* True when path (resolved) lies inside the root's real path. */
static bool inside_root(const struct walker *w, const char *real)
{
	size_t n = strlen(w->root_real);
	if (n == 1)  /* root is "/" */
		return true;
	return !strncmp(real, w->root_real, n) && (real[n] == '\0' || real[n] == '/');
}

/* True when path resolves to something inside the root. */
static bool resolves_inside(const struct walker *w, const char *path)
{
	char *real = realpath(path, NULL);
	bool in = real && inside_root(w, real);
	free(real);
	return in;
}

/*
 * Looks at a symlink: returns 1 when it resolves to a file inside the root,
 * 2 when to a folder inside the root, 0 when it must be ignored (a finding
 * has been added for one that escapes, dangles or loops).
 */
static int check_symlink(struct walker *w, const char *path)
{
	char target[PATH_MAX], *real;
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	struct stat st;
	int kind = 0;

	if (n < 0)
		n = 0;
	target[n] = '\0';
	real = realpath(path, NULL);
	if (!real) {
		if (errno == ELOOP)
			sc_diags_add(w->diags, SC_SEV_WARNING, path, 0, "symlink-loop",
				     "symlink '%s' -> '%s' is part of a loop; ignored", path, target);
		else
			sc_diags_add(w->diags, SC_SEV_WARNING, path, 0, "symlink-broken",
				     "symlink '%s' -> '%s' points at nothing; ignored", path, target);
		return 0;
	}
	if (!inside_root(w, real)) {
		sc_diags_add(w->diags, SC_SEV_ERROR, path, 0, "symlink-escape",
			     "symlink '%s' -> '%s' resolves outside the root; not followed", path, target);
	} else if (stat(real, &st) == 0) {
		kind = S_ISDIR(st.st_mode) ? 2 : 1;
	}
	free(real);
	return kind;
}

static void add_file(struct walker *w, ssize_t owner, const char *path)
{
	struct sc_skill *s;

	if (owner < 0)
		return;
	s = &w->list->items[owner];
	if (s->nfiles >= SC_MAX_FILES_PER_SKILL) {
		if (!s->files_truncated)
			sc_diags_add(w->diags, SC_SEV_WARNING, s->dir, 0, "files-limit",
				     "more than %d files in the skill; the rest are not listed",
				     SC_MAX_FILES_PER_SKILL);
		s->files_truncated = true;
		return;
	}
	SC_GROW(s->files, s->files_alloc, s->nfiles + 1);
	s->files[s->nfiles++] = sc_xstrdup(path + strlen(s->dir) + 1);
}

static ssize_t new_skill(struct walker *w, const char *path, const char *md_name)
{
	struct sc_skill *s;
	struct sc_buf b = SC_BUF_INIT;
	const char *slash;

	SC_GROW(w->list->items, w->list->alloc, w->list->n + 1);
	s = &w->list->items[w->list->n];
	memset(s, 0, sizeof(*s));
	s->dir = sc_xstrdup(path);
	s->rel_dir = sc_xstrdup(path[w->root_len] ? path + w->root_len + 1 : ".");
	sc_path_join(&b, path, md_name);
	s->md_path = sc_buf_detach(&b, NULL);
	if (path[w->root_len]) {
		slash = strrchr(s->rel_dir, '/');
		s->folder_name = sc_xstrdup(slash ? slash + 1 : s->rel_dir);
	} else {
		slash = strrchr(w->root_real, '/');
		s->folder_name = sc_xstrdup(slash && slash[1] ? slash + 1 : w->root_real);
	}
	return (ssize_t)w->list->n++;
}

/* Reads the names in folder path, sorted; NULL (and a finding, or an error
 * for the root) when it cannot be opened. */
static int read_names(struct walker *w, const char *path, char ***names_out, size_t *n_out)
{
	DIR *d = opendir(path);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0, alloc = 0;

	*names_out = NULL;
	*n_out = 0;
	if (!d)
		return sc_error_set(errno == ENOENT ? SC_ENOTFOUND : SC_EIO, "cannot open folder '%s': %s",
				    path, strerror(errno));
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		if (++w->list->entries > SC_MAX_WALK_ENTRIES) {
			sc_diags_add(w->diags, SC_SEV_ERROR, path, 0, "walk-limit",
				     "more than %d entries under the root; the walk stopped here",
				     SC_MAX_WALK_ENTRIES);
			w->stop = true;
			break;
		}
		SC_GROW(names, alloc, n + 1);
		names[n++] = sc_xstrdup(e->d_name);
	}
	closedir(d);
	if (n > 1)
		qsort(names, n, sizeof(*names), sc_strcmp_qsort);
	*names_out = names;
	*n_out = n;
	return 0;
}

static bool has_entry(char **names, size_t n, const char *name)
{
	return n && bsearch(&name, names, n, sizeof(*names), sc_strcmp_qsort) != NULL;
}

/*
 * Walks folder path (depth levels below the root). owner is the index of
 * the skill that owns files here, or -1. A folder with SKILL.md (or
 * skill.md) starts a new skill that owns what lies below it.
 */
static int walk(struct walker *w, struct sc_buf *path, size_t depth, ssize_t owner)
{
	char **names = NULL;
	size_t n = 0, base = path->len;
	const char *md = NULL;
	struct stat st;
	int err;

	if ((err = read_names(w, path->ptr, &names, &n)) < 0) {
		if (depth == 0)
			return err;
		sc_diags_add(w->diags, SC_SEV_WARNING, path->ptr, 0, "walk-unreadable", "%s",
			     sc_error_last());
		return 0;
	}
	for (int k = 0; k < 2 && !md; k++) {
		const char *cand = k ? SKILL_MD_LOWER : SKILL_MD;
		struct sc_buf p = SC_BUF_INIT;
		if (has_entry(names, n, cand)) {
			sc_path_join(&p, path->ptr, cand);
			if (lstat(p.ptr, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
				md = cand;
		}
		sc_buf_release(&p);
	}
	if (md && w->single && depth > 0) {
		add_skip(w->list, path->ptr, "nested skill (a separate skill)");
		goto done;
	}
	if (md) {
		if (w->list->n >= SC_MAX_SKILLS) {
			sc_diags_add(w->diags, SC_SEV_ERROR, path->ptr, 0, "walk-limit",
				     "more than %d skills under the root; the walk stopped here",
				     SC_MAX_SKILLS);
			w->stop = true;
			goto done;
		}
		owner = new_skill(w, path->ptr, md);
	}
	for (size_t i = 0; i < n && !w->stop; i++) {
		sc_buf_truncate(path, base);
		sc_buf_putc(path, '/');
		sc_buf_puts(path, names[i]);
		if (lstat(path->ptr, &st) < 0)
			continue;
		if (S_ISLNK(st.st_mode)) {
			int kind = check_symlink(w, path->ptr);
			if (kind == 1)
				add_file(w, owner, path->ptr);
			else if (kind == 2)
				add_skip(w->list, path->ptr, "symlink to a folder (not followed)");
		} else if (S_ISDIR(st.st_mode)) {
			struct sc_buf dotgit = SC_BUF_INIT;
			struct stat gst;
			bool sub;

			if (!strcmp(names[i], ".git")) {
				add_skip(w->list, path->ptr, "version control folder");
				continue;
			}
			if (!strcmp(names[i], "node_modules")) {
				add_skip(w->list, path->ptr, "node_modules");
				continue;
			}
			sc_path_join(&dotgit, path->ptr, ".git");
			sub = lstat(dotgit.ptr, &gst) == 0;
			sc_buf_release(&dotgit);
			if (sub) {
				add_skip(w->list, path->ptr, "submodule or nested repository (has .git)");
				continue;
			}
			if (depth + 1 > SC_MAX_DISCOVERY_DEPTH) {
				sc_diags_add(w->diags, SC_SEV_WARNING, path->ptr, 0, "walk-depth",
					     "more than %d folder levels below the root; not walked",
					     SC_MAX_DISCOVERY_DEPTH);
				continue;
			}
			if ((err = walk(w, path, depth + 1, owner)) < 0)
				break;
		} else if (S_ISREG(st.st_mode)) {
			add_file(w, owner, path->ptr);
		} else {
			add_skip(w->list, path->ptr, "not a regular file");
		}
	}
	sc_buf_truncate(path, base);
done:
	for (size_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err < 0 ? err : 0;
}

/* Reads and checks one discovered skill's SKILL.md. */
static void load_md(struct walker *w, struct sc_skill *s)
{
	struct sc_buf data = SC_BUF_INIT;
	struct stat st;
	int err;

	/* A SKILL.md symlink out of the root was reported by the walk; one
	 * that points at nothing leaves the skill unread, which is an error. */
	if (lstat(s->md_path, &st) == 0 && S_ISLNK(st.st_mode) && !resolves_inside(w, s->md_path)) {
		if (stat(s->md_path, &st) < 0)
			sc_diags_add(w->diags, SC_SEV_ERROR, s->md_path, 0, "file-unreadable",
				     "the file is a symlink that points at nothing");
		return;
	}
	if (stat(s->md_path, &st) < 0)
		st.st_size = 0;
	if (sc_ends_with(s->md_path, "/" SKILL_MD_LOWER))
		sc_diags_add(w->diags, SC_SEV_WARNING, s->md_path, 0, "skill-md-lowercase",
			     "the file is named 'skill.md'; the Agent Skills format names it 'SKILL.md'");
	err = sc_read_file(&data, s->md_path, SC_MAX_SKILL_MD_BYTES);
	if (err == SC_ELIMIT) {
		sc_diags_add(w->diags, SC_SEV_ERROR, s->md_path, 0, "file-too-large",
			     "the file is %lld bytes, more than the limit of %d; not read",
			     (long long)st.st_size, SC_MAX_SKILL_MD_BYTES);
	} else if (err < 0) {
		sc_diags_add(w->diags, SC_SEV_ERROR, s->md_path, 0, "file-unreadable", "%s",
			     sc_error_last());
	} else {
		sc_skill_parse_md(s, data.ptr, data.len, s->md_path, s->folder_name, w->diags, w->flags);
	}
	sc_buf_release(&data);
}

/* Shared by discover and load: walks root, then reads each SKILL.md. */
static int run_walk(struct sc_skill_list *out, const char *root, struct sc_diags *diags,
		    unsigned flags, bool single)
{
	struct walker w;
	struct sc_buf path = SC_BUF_INIT;
	struct stat st;
	int err;

	memset(&w, 0, sizeof(w));
	w.list = out;
	w.diags = diags;
	w.flags = flags;
	w.single = single;
	if (stat(root, &st) < 0)
		return sc_error_set(errno == ENOENT ? SC_ENOTFOUND : SC_EIO, "cannot open '%s': %s",
				    root, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return sc_error_set(SC_EINVAL, "'%s' is not a folder", root);
	if (!(w.root_real = realpath(root, NULL)))
		return sc_error_set(SC_EIO, "cannot resolve '%s': %s", root, strerror(errno));
	sc_buf_puts(&path, root);
	while (path.len > 1 && path.ptr[path.len - 1] == '/')
		sc_buf_truncate(&path, path.len - 1);
	w.root_len = path.len;
	err = walk(&w, &path, 0, -1);
	for (size_t i = 0; i < out->n; i++) {
		struct sc_skill *s = &out->items[i];
		if (s->nfiles > 1)
			qsort(s->files, s->nfiles, sizeof(*s->files), sc_strcmp_qsort);
		if (err == 0 && !(flags & SC_SKILL_NO_PARSE)) {
			struct sc_buf why = SC_BUF_INIT;
			load_md(&w, s);
			/* what the skill puts into a prompt is bounded, its file
			 * listing included (docs/skills.md) */
			if (s->loaded && sc_skill_prompt_over(&why, s))
				sc_diags_add(diags, SC_SEV_ERROR, s->md_path, 0, "skill-prompt-size",
					     "%s", why.ptr);
			sc_buf_release(&why);
		}
	}
	free(w.root_real);
	sc_buf_release(&path);
	return err;
}

int sc_skill_discover(struct sc_skill_list *out, const char *root, struct sc_diags *diags,
		      unsigned flags)
{
	return run_walk(out, root, diags, flags, false);
}

int sc_skill_load(struct sc_skill *out, const char *dir, struct sc_diags *diags, unsigned flags)
{
	struct sc_skill_list list = SC_SKILL_LIST_INIT;
	int err;

	memset(out, 0, sizeof(*out));
	err = run_walk(&list, dir, diags, flags, true);
	if (err == 0 && (list.n == 0 || strcmp(list.items[0].rel_dir, ".") != 0))
		err = sc_error_set(SC_ENOTFOUND, "no SKILL.md in '%s'", dir);
	if (err == 0) {
		*out = list.items[0];
		memmove(list.items, list.items + 1, (list.n - 1) * sizeof(*list.items));
		list.n--;
	}
	sc_skill_list_release(&list);
	return err;
}

void sc_skill_release(struct sc_skill *skill)
{
	if (!skill)
		return;
	free(skill->dir);
	free(skill->rel_dir);
	free(skill->md_path);
	free(skill->folder_name);
	free(skill->name);
	free(skill->description);
	free(skill->license);
	free(skill->compatibility);
	free(skill->allowed_tools);
	free(skill->body);
	for (size_t i = 0; i < skill->nfiles; i++)
		free(skill->files[i]);
	free(skill->files);
	memset(skill, 0, sizeof(*skill));
}

void sc_skill_list_release(struct sc_skill_list *list)
{
	for (size_t i = 0; i < list->n; i++)
		sc_skill_release(&list->items[i]);
	free(list->items);
	for (size_t i = 0; i < list->nskipped; i++) {
		free(list->skipped[i].path);
		free(list->skipped[i].reason);
	}
	free(list->skipped);
	memset(list, 0, sizeof(*list));
}
