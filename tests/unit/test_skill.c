/* Unit tests for runner/skills/skill.c: name rules, SKILL.md parsing (front
 * matter, encodings, body, links) and discovery. */
#include "unit.h"
#include "diag.h"
#include "skills/skill.h"

#include <unistd.h>

/* The finding with this code, or NULL. */
static const struct sc_diag *find(const struct sc_diags *d, const char *code)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->items[i].code, code))
			return &d->items[i];
	return NULL;
}

/* Parses text as SKILL.md of a skill folder named folder. */
static void parse(struct sc_skill *s, struct sc_diags *d, const char *text, const char *folder,
		  unsigned flags)
{
	memset(s, 0, sizeof(*s));
	sc_skill_parse_md(s, text, strlen(text), "x/SKILL.md", folder, d, flags);
}

static void test_name_rules(void **state)
{
	struct sc_buf why = SC_BUF_INIT;
	struct sc_buf name = SC_BUF_INIT;
	(void)state;

	assert_true(sc_skill_name_valid("pdf-processing", NULL));
	assert_true(sc_skill_name_valid("a1-b2-c3", NULL));
	assert_true(sc_skill_name_valid("résumé-writer", NULL));
	assert_false(sc_skill_name_valid("PDF", &why));
	assert_non_null(strstr(why.ptr, "lowercase"));
	sc_buf_clear(&why);
	assert_false(sc_skill_name_valid(" Éa", NULL));
	assert_false(sc_skill_name_valid("éÉ", &why));
	assert_non_null(strstr(why.ptr, "'É'"));
	assert_false(sc_skill_name_valid("a--b", NULL));
	assert_false(sc_skill_name_valid("-a", NULL));
	assert_false(sc_skill_name_valid("a-", NULL));
	assert_false(sc_skill_name_valid("a_b", NULL));
	assert_false(sc_skill_name_valid("a b", NULL));
	assert_false(sc_skill_name_valid("", NULL));
	/* 64 characters in 128 bytes is fine; 65 characters is not. */
	for (int i = 0; i < 64; i++)
		sc_buf_puts(&name, "é");
	assert_true(sc_skill_name_valid(name.ptr, NULL));
	sc_buf_puts(&name, "é");
	sc_buf_clear(&why);
	assert_false(sc_skill_name_valid(name.ptr, &why));
	assert_non_null(strstr(why.ptr, "65 characters"));
	sc_buf_release(&name);
	sc_buf_release(&why);
}

static void test_token_estimate(void **state)
{
	(void)state;
	assert_int_equal(sc_skill_estimate_tokens("", 0), 0);
	assert_int_equal(sc_skill_estimate_tokens("abcd", 4), 1);
	assert_int_equal(sc_skill_estimate_tokens("abcde", 5), 2);
	/* characters, not bytes: 8 two-byte characters are 2 tokens */
	assert_int_equal(sc_skill_estimate_tokens("éééééééé", strlen("éééééééé")), 2);
}

static void test_parse_valid_fields(void **state)
{
	struct sc_skill s;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	parse(&s, &d,
	      "---\n"
	      "# comment\n"
	      "name: 'my-skill'\n"
	      "description: >\n"
	      "  Folded over\n"
	      "  two lines.\n"
	      "license: MIT\n"
	      "compatibility: |\n"
	      "  needs a GPU\n"
	      "metadata:\n"
	      "  author: \"me\"\n"
	      "  version: '1.0'\n"
	      "allowed-tools: Bash Read\n"
	      "---\n"
	      "# Title\n"
	      "\n"
	      "Body text.\n",
	      "my-skill", 0);
	assert_int_equal(d.n, 0);
	assert_string_equal(s.name, "my-skill");
	assert_string_equal(s.description, "Folded over two lines.\n");
	assert_string_equal(s.license, "MIT");
	assert_string_equal(s.compatibility, "needs a GPU\n");
	assert_string_equal(s.allowed_tools, "Bash Read");
	assert_int_equal(s.body_line, 15);
	assert_int_equal(s.body_lines, 3);
	assert_string_equal(s.body, "# Title\n\nBody text.\n");
	assert_int_equal(s.body_tokens, (strlen(s.body) + 3) / 4);
	sc_skill_release(&s);
	sc_diags_release(&d);
}

static void test_parse_field_errors(void **state)
{
	struct sc_skill s;
	struct sc_diags d = SC_DIAGS_INIT;
	const struct sc_diag *x;
	(void)state;

	parse(&s, &d,
	      "---\n"
	      "name: 123\n"
	      "description: ok\n"
	      "metadata:\n"
	      "  n: 3\n"
	      "  b: true\n"
	      "  s: text\n"
	      "---\nbody\n",
	      "whatever", 0);
	x = find(&d, "field-type");
	assert_non_null(x);
	assert_int_equal(x->line, 2);
	assert_string_equal(x->message, "'name' must be a string, found number");
	assert_null(s.name);
	assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 3);
	x = find(&d, "metadata-value");
	assert_non_null(x);
	assert_int_equal(x->line, 5);
	assert_non_null(strstr(x->message, "'n'"));
	sc_skill_release(&s);
	sc_diags_release(&d);

	parse(&s, &d, "---\nname: good\ndescription: x\n---\nbody\n", "other", 0);
	x = find(&d, "name-mismatch");
	assert_non_null(x);
	assert_int_equal(x->line, 2);
	assert_int_equal(d.n, 1);
	sc_skill_release(&s);
	sc_diags_release(&d);
}

static void test_parse_strict_mode(void **state)
{
	static const char text[] = "---\nname: s\ndescription: x\nversion: 1\nfoo: bar\n"
				   "allowed-tools: [Bash]\n---\nbody\n";
	struct sc_skill s;
	struct sc_diags d = SC_DIAGS_INIT;
	(void)state;

	parse(&s, &d, text, "s", 0);
	assert_int_equal(sc_diags_count(&d, SC_SEV_WARNING), 3);
	assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 0);
	assert_int_equal(find(&d, "field-extension")->line, 4);
	assert_int_equal(find(&d, "field-unknown")->line, 5);
	assert_int_equal(find(&d, "allowed-tools-list")->line, 6);
	sc_skill_release(&s);
	sc_diags_release(&d);

	parse(&s, &d, text, "s", SC_SKILL_STRICT);
	assert_int_equal(sc_diags_count(&d, SC_SEV_ERROR), 3);
	assert_int_equal(sc_diags_count(&d, SC_SEV_WARNING), 0);
	sc_skill_release(&s);
	sc_diags_release(&d);
}

static void test_parse_encodings(void **state)
{
	struct sc_skill s;
	struct sc_diags d = SC_DIAGS_INIT;
	const struct sc_diag *x;
	(void)state;

	/* BOM: a warning, and the front matter is still found. */
	parse(&s, &d, "\xEF\xBB\xBF---\nname: b\ndescription: x\n---\nbody\n", "b", 0);
	assert_int_equal(d.n, 1);
	assert_string_equal(d.items[0].code, "bom");
	assert_int_equal(d.items[0].sev, SC_SEV_WARNING);
	assert_string_equal(s.name, "b");
	sc_skill_release(&s);
	sc_diags_release(&d);

	/* CRLF from line 3 on: reported at line 3, the values carry no '\r'. */
	parse(&s, &d, "---\nname: c\r\ndescription: x\r\n---\r\nbody\r\n", "c", 0);
	x = find(&d, "crlf");
	assert_non_null(x);
	assert_int_equal(x->line, 2);
	assert_non_null(strstr(x->message, "4 lines"));
	assert_string_equal(s.description, "x");
	assert_string_equal(s.body, "body\n");
	sc_skill_release(&s);
	sc_diags_release(&d);

	/* A NUL byte: its line, and nothing read past it. */
	memset(&s, 0, sizeof(s));
	sc_skill_parse_md(&s, "---\nname: n\ndescription: x\n---\nbo\0dy\n", 37, "x/SKILL.md", "n", &d, 0);
	x = find(&d, "nul-byte");
	assert_non_null(x);
	assert_int_equal(x->line, 5);
	assert_int_equal(d.n, 1);
	sc_skill_release(&s);
	sc_diags_release(&d);

	/* Invalid UTF-8 in the body: its line. */
	parse(&s, &d, "---\nname: u\ndescription: x\n---\nok\nbad \xC0\xAF\n", "u", 0);
	x = find(&d, "utf8-invalid");
	assert_non_null(x);
	assert_int_equal(x->line, 6);
	sc_skill_release(&s);
	sc_diags_release(&d);
}

static void test_parse_front_matter_shape(void **state)
{
	struct sc_skill s;
	struct sc_diags d = SC_DIAGS_INIT;
	const struct sc_diag *x;
	(void)state;

	parse(&s, &d, "", "e", 0);
	assert_non_null(find(&d, "frontmatter-missing"));
	sc_skill_release(&s);
	sc_diags_release(&d);

	parse(&s, &d, "---\nname: u\ndescription: x\n", "u", 0);
	x = find(&d, "frontmatter-unclosed");
	assert_non_null(x);
	assert_int_equal(x->line, 1);
	assert_int_equal(d.n, 1);
	sc_skill_release(&s);
	sc_diags_release(&d);

	/* A '---' inside a literal block closes the front matter at line 5. */
	parse(&s, &d, "---\nname: v\ndescription: |\n  part one\n---\n  part two\n---\nbody\n", "v", 0);
	x = find(&d, "frontmatter-dash-in-value");
	assert_non_null(x);
	assert_int_equal(x->line, 5);
	sc_skill_release(&s);
	sc_diags_release(&d);

	/* A '---' inside a double-quoted value: YAML fails, same finding. */
	parse(&s, &d, "---\nname: q\ndescription: \"part one\n---\npart two\"\n---\nbody\n", "q", 0);
	x = find(&d, "frontmatter-dash-in-value");
	assert_non_null(x);
	assert_int_equal(x->line, 4);
	assert_null(find(&d, "yaml-syntax"));
	sc_skill_release(&s);
	sc_diags_release(&d);

	/* A horizontal rule in a normal body is not mistaken for one. */
	parse(&s, &d, "---\nname: h\ndescription: x\n---\n# Body\n\n---\n\nmore\n", "h", 0);
	assert_int_equal(d.n, 0);
	sc_skill_release(&s);
	sc_diags_release(&d);

	/* YAML syntax error: the line from libyaml's mark. */
	parse(&s, &d, "---\nname: y\ndescription: 'unterminated\n\nlicense: x: y\n---\nbody\n", "y", 0);
	x = find(&d, "yaml-syntax");
	assert_non_null(x);
	assert_true(x->line >= 3 && x->line <= 6);
	sc_skill_release(&s);
	sc_diags_release(&d);

	/* A tab indenting a key is named as such; a tab inside a block
	 * scalar's text is fine. */
	parse(&s, &d, "---\nname: t\nmetadata:\n\tauthor: me\ndescription: x\n---\nbody\n", "t", 0);
	x = find(&d, "yaml-tab");
	assert_non_null(x);
	assert_int_equal(x->line, 4);
	assert_null(find(&d, "yaml-syntax"));
	sc_skill_release(&s);
	sc_diags_release(&d);
	parse(&s, &d, "---\nname: t\ndescription: |\n  code:\n  \tindented with a tab\n---\nbody\n", "t", 0);
	assert_int_equal(d.n, 0);
	assert_non_null(strstr(s.description, "\tindented"));
	sc_skill_release(&s);
	sc_diags_release(&d);

	/* Missing required fields. */
	parse(&s, &d, "---\nlicense: MIT\n---\nbody\n", "m", 0);
	assert_non_null(find(&d, "name-missing"));
	assert_non_null(find(&d, "description-missing"));
	sc_skill_release(&s);
	sc_diags_release(&d);
}

static void test_parse_body_links(void **state)
{
	struct sc_skill s;
	struct sc_diags d = SC_DIAGS_INIT;
	const struct sc_diag *x;
	char *dir = sc_test_mkdtemp();
	(void)state;

	sc_test_write(dir, "references/a b.md", "# A\n");
	memset(&s, 0, sizeof(s));
	s.dir = sc_xstrdup(dir);
	{
		static const char text[] =
			"---\nname: l\ndescription: x\n---\n"
			"[ok](references/a%20b.md#x) [web](https://e.com) [top](#t)\n"
			"\n"
			"[gone](references/gone.md)\n"
			"\n"
			"![up](../../etc/passwd) [abs](/etc/passwd)\n";
		sc_skill_parse_md(&s, text, strlen(text), "x/SKILL.md", "l", &d, 0);
	}
	assert_int_equal(d.n, 3);
	x = find(&d, "link-missing");
	assert_non_null(x);
	assert_int_equal(x->line, 7);
	assert_non_null(strstr(x->message, "references/gone.md"));
	sc_diags_sort(&d);
	assert_string_equal(d.items[1].code, "link-escape");
	assert_int_equal(d.items[1].line, 9);
	assert_string_equal(d.items[2].code, "link-escape");
	sc_skill_release(&s);
	sc_diags_release(&d);
	assert_int_equal(sc_rm_rf(dir), 0);
	free(dir);
}

static void test_discover_tree(void **state)
{
	struct sc_skill_list list = SC_SKILL_LIST_INIT;
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_buf p = SC_BUF_INIT, t = SC_BUF_INIT;
	char *dir = sc_test_mkdtemp();
	bool saw_git = false, saw_nm = false;
	(void)state;

	sc_test_write(dir, "b-skill/SKILL.md", "---\nname: b-skill\ndescription: x\n---\nbody\n");
	sc_test_write(dir, "b-skill/scripts/run.sh", "echo\n");
	sc_test_write(dir, "b-skill/inner/SKILL.md", "---\nname: inner\ndescription: x\n---\nbody\n");
	sc_test_write(dir, "b-skill/inner/ref.md", "r\n");
	sc_test_write(dir, "a-skill/skill.md", "---\nname: a-skill\ndescription: x\n---\nbody\n");
	sc_test_write(dir, ".hidden/h/SKILL.md", "---\nname: h\ndescription: x\n---\nbody\n");
	sc_test_write(dir, ".git/x/SKILL.md", "---\nname: x\ndescription: x\n---\nbody\n");
	sc_test_write(dir, "node_modules/y/SKILL.md", "---\nname: y\ndescription: x\n---\nbody\n");
	sc_test_write(dir, "loose.txt", "not in a skill\n");
	sc_test_write(dir, "outside/secret", "s\n");
	sc_path_join(&p, dir, "b-skill/leak");
	sc_path_join(&t, dir, "outside/secret");
	assert_int_equal(symlink("/etc/hostname", p.ptr), 0);

	assert_int_equal(sc_skill_discover(&list, dir, &d, 0), 0);
	assert_int_equal(list.n, 4);
	assert_string_equal(list.items[0].rel_dir, ".hidden/h");
	assert_string_equal(list.items[1].rel_dir, "a-skill");
	assert_string_equal(list.items[2].rel_dir, "b-skill");
	assert_string_equal(list.items[3].rel_dir, "b-skill/inner");
	/* b-skill owns its files but not inner's, nor the escaping link. */
	assert_int_equal(list.items[2].nfiles, 2);
	assert_string_equal(list.items[2].files[0], "SKILL.md");
	assert_string_equal(list.items[2].files[1], "scripts/run.sh");
	assert_int_equal(list.items[3].nfiles, 2);
	assert_string_equal(list.items[2].name, "b-skill");
	assert_non_null(find(&d, "skill-md-lowercase"));
	assert_non_null(find(&d, "symlink-escape"));
	assert_non_null(strstr(find(&d, "symlink-escape")->message, "/etc/hostname"));
	for (size_t i = 0; i < list.nskipped; i++) {
		saw_git |= sc_ends_with(list.skipped[i].path, "/.git");
		saw_nm |= sc_ends_with(list.skipped[i].path, "/node_modules");
	}
	assert_true(saw_git);
	assert_true(saw_nm);
	sc_skill_list_release(&list);
	sc_diags_release(&d);

	/* Loading one skill stops at the nested one. */
	{
		struct sc_skill s;
		sc_path_join(&p, dir, "b-skill");
		assert_int_equal(sc_skill_load(&s, p.ptr, &d, 0), 0);
		assert_string_equal(s.rel_dir, ".");
		assert_string_equal(s.folder_name, "b-skill");
		assert_int_equal(s.nfiles, 2);
		assert_true(s.loaded);
		sc_skill_release(&s);
		sc_path_join(&p, dir, "outside");
		assert_int_equal(sc_skill_load(&s, p.ptr, &d, 0), SC_ENOTFOUND);
		sc_skill_release(&s);
		sc_path_join(&p, dir, "nope");
		assert_int_equal(sc_skill_load(&s, p.ptr, &d, 0), SC_ENOTFOUND);
		sc_skill_release(&s);
	}
	sc_diags_release(&d);
	assert_int_equal(sc_rm_rf(dir), 0);
	sc_buf_release(&p);
	sc_buf_release(&t);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_rules),
		cmocka_unit_test(test_token_estimate),
		cmocka_unit_test(test_parse_valid_fields),
		cmocka_unit_test(test_parse_field_errors),
		cmocka_unit_test(test_parse_strict_mode),
		cmocka_unit_test(test_parse_encodings),
		cmocka_unit_test(test_parse_front_matter_shape),
		cmocka_unit_test(test_parse_body_links),
		cmocka_unit_test(test_discover_tree),
	};
	return cmocka_run_group_tests_name("skill", tests, NULL, NULL);
}
