/*
 * skillci validate [--strict] [--json] [-v] PATH...
 *
 * Checks skills against the Agent Skills rules (runner/skills/skill.c) and their
 * test files (runner/skills/testsuite.c). PATH is a skill folder, a SKILL.md, or a
 * repository root to discover skills in. One line per finding on stdout,
 * "file:line: error|warning: message [code]", or a JSON document with
 * --json; the summary goes to stderr. Exit 0 when there are no errors, 1
 * when there are, 2 for bad usage or a path that does not exist.
 */
#include "common.h"
#include "cmd/cmd.h"
#include "escape.h"
#include "diag.h"
#include "skills/skill.h"
#include "skills/testsuite.h"

#include <cjson/cJSON.h>
#include <libgen.h>
#include <sys/stat.h>

struct validate_opts {
	bool strict, json, verbose;
};

static const struct sc_option validate_table[] = {
	SC_OPT_FLAG("strict", 0, struct validate_opts, strict,
		    "extension and unknown front matter fields are errors"),
	SC_OPT_FLAG("json", 0, struct validate_opts, json,
		    "print a JSON document instead of one line per finding"),
	SC_OPT_FLAG("verbose", 'v', struct validate_opts, verbose,
		    "also list what discovery skipped and why (stderr)"),
	SC_OPT_END,
};

static const struct sc_options validate_spec = {
	"validate", "PATH...",
	"Check skills against the Agent Skills rules: SKILL.md front matter\n"
	"(name, description, compatibility, metadata, ...), body size and links,\n"
	"and the skill's test files. PATH is a skill folder, a SKILL.md, or a\n"
	"folder to discover skills in (docs/skills.md); the options come first.",
	"exit: 0 no errors (warnings allowed), 1 errors found, 2 bad usage or a\n"
	"PATH that does not exist.\n",
	validate_table, SC_OPTS_IN_ORDER,
};

/* Every skill validated, in the order of the paths given. */
struct run {
	struct sc_skill_list skills;
	struct sc_diags diags;
	size_t *ntests;  /* tests loaded per skill */
	struct sc_skill_list skips;  /* only .skipped is used */
	bool verbose;
};

/* Moves the skills of one list into the run's list. */
static void take_skills(struct run *r, struct sc_skill_list *from)
{
	for (size_t i = 0; i < from->n; i++) {
		SC_GROW(r->skills.items, r->skills.alloc, r->skills.n + 1);
		r->skills.items[r->skills.n++] = from->items[i];
	}
	from->n = 0;
	for (size_t i = 0; i < from->nskipped; i++) {
		SC_GROW(r->skips.skipped, r->skips.skipped_alloc, r->skips.nskipped + 1);
		r->skips.skipped[r->skips.nskipped++] = from->skipped[i];
	}
	from->nskipped = 0;
	sc_skill_list_release(from);
}

/* Validates one PATH: a SKILL.md file, or a folder to discover in. */
static int validate_path(struct run *r, const char *path, unsigned flags)
{
	struct sc_skill_list found = SC_SKILL_LIST_INIT;
	struct stat st;
	int err;

	if (stat(path, &st) < 0)
		return sc_error_set(SC_ENOTFOUND, "'%s' does not exist", path);
	if (S_ISREG(st.st_mode)) {
		char *copy = sc_xstrdup(path), *base = basename(copy);
		struct sc_skill skill;

		if (strcmp(base, "SKILL.md") != 0 && strcmp(base, "skill.md") != 0) {
			free(copy);
			return sc_error_set(SC_EINVAL, "'%s' is not a SKILL.md or a folder", path);
		}
		free(copy);
		copy = sc_xstrdup(path);
		err = sc_skill_load(&skill, dirname(copy), &r->diags, flags);
		free(copy);
		if (err < 0) {
			sc_skill_release(&skill);
			return err;
		}
		SC_GROW(found.items, found.alloc, 1);
		found.items[found.n++] = skill;
	} else {
		if ((err = sc_skill_discover(&found, path, &r->diags, flags)) < 0) {
			sc_skill_list_release(&found);
			return err;
		}
		if (found.n == 0)
			sc_diags_add(&r->diags, SC_SEV_ERROR, path, 0, "no-skills",
				     "no SKILL.md found in '%s' or below it", path);
	}
	take_skills(r, &found);
	return 0;
}

/* Reads each skill's test files through the test loader; its findings go
 * to the same list. */
static int load_tests(struct run *r)
{
	r->ntests = sc_xcalloc(r->skills.n + 1, sizeof(*r->ntests));
	for (size_t i = 0; i < r->skills.n; i++) {
		struct sc_test_set set = SC_TEST_SET_INIT;
		int err = sc_tests_load_skill(&set, r->skills.items[i].dir, &r->diags);

		r->ntests[i] = set.n;
		sc_test_set_release(&set);
		if (err < 0)
			return err;
	}
	return 0;
}

/* Skill index sorted by folder, to attribute findings to skills. */
struct by_dir {
	const char *dir;
	size_t index;
};

static int cmp_by_dir(const void *a, const void *b)
{
	return strcmp(((const struct by_dir *)a)->dir, ((const struct by_dir *)b)->dir);
}

/* The skill a finding's file belongs to: the longest skill folder that is
 * the file or a parent of it; -1 when none. */
static ssize_t owner_of(const struct by_dir *idx, size_t n, const char *file)
{
	struct sc_buf p = SC_BUF_INIT;
	ssize_t found = -1;

	sc_buf_puts(&p, file);
	for (;;) {
		struct by_dir key = { p.ptr, 0 };
		const struct by_dir *hit = bsearch(&key, idx, n, sizeof(*idx), cmp_by_dir);
		char *slash;

		if (hit) {
			found = (ssize_t)hit->index;
			break;
		}
		if (!(slash = strrchr(p.ptr, '/')))
			break;
		sc_buf_truncate(&p, (size_t)(slash - p.ptr));
	}
	sc_buf_release(&p);
	return found;
}

static cJSON *finding_json(const struct sc_diag *d)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "file", d->file);
	cJSON_AddNumberToObject(o, "line", (double)d->line);
	cJSON_AddStringToObject(o, "severity", d->sev == SC_SEV_ERROR ? "error" : "warning");
	cJSON_AddStringToObject(o, "code", d->code);
	cJSON_AddStringToObject(o, "message", d->message);
	return o;
}

/* Prints the JSON document: skills with their findings, findings outside
 * any skill, what was skipped, and the totals. */
static int print_json(const struct run *r, size_t nerr, size_t nwarn)
{
	struct by_dir *idx = sc_xcalloc(r->skills.n + 1, sizeof(*idx));
	cJSON *root = cJSON_CreateObject(), *skills, *loose, *skipped, *sum;
	cJSON **findings = sc_xcalloc(r->skills.n + 1, sizeof(*findings));
	size_t *errs = sc_xcalloc(r->skills.n + 1, sizeof(*errs));
	size_t *warns = sc_xcalloc(r->skills.n + 1, sizeof(*warns));
	char *text;
	int rc = 0;

	for (size_t i = 0; i < r->skills.n; i++) {
		idx[i].dir = r->skills.items[i].dir;
		idx[i].index = i;
		findings[i] = cJSON_CreateArray();
	}
	qsort(idx, r->skills.n, sizeof(*idx), cmp_by_dir);
	cJSON_AddNumberToObject(root, "version", 1);
	skills = cJSON_AddArrayToObject(root, "skills");
	loose = cJSON_AddArrayToObject(root, "findings");
	for (size_t i = 0; i < r->diags.n; i++) {
		const struct sc_diag *d = &r->diags.items[i];
		ssize_t k = owner_of(idx, r->skills.n, d->file);
		if (k < 0) {
			cJSON_AddItemToArray(loose, finding_json(d));
			continue;
		}
		cJSON_AddItemToArray(findings[k], finding_json(d));
		if (d->sev == SC_SEV_ERROR)
			errs[k]++;
		else
			warns[k]++;
	}
	for (size_t i = 0; i < r->skills.n; i++) {
		const struct sc_skill *s = &r->skills.items[i];
		cJSON *o = cJSON_CreateObject(), *files;

		cJSON_AddStringToObject(o, "dir", s->dir);
		cJSON_AddStringToObject(o, "skill_md", s->md_path);
		if (s->name)
			cJSON_AddStringToObject(o, "name", s->name);
		else
			cJSON_AddNullToObject(o, "name");
		if (s->description)
			cJSON_AddStringToObject(o, "description", s->description);
		else
			cJSON_AddNullToObject(o, "description");
		cJSON_AddBoolToObject(o, "valid", errs[i] == 0);
		cJSON_AddNumberToObject(o, "errors", (double)errs[i]);
		cJSON_AddNumberToObject(o, "warnings", (double)warns[i]);
		cJSON_AddNumberToObject(o, "body_lines", (double)s->body_lines);
		cJSON_AddNumberToObject(o, "body_tokens", (double)s->body_tokens);
		cJSON_AddNumberToObject(o, "tests", (double)(r->ntests ? r->ntests[i] : 0));
		files = cJSON_AddArrayToObject(o, "files");
		for (size_t f = 0; f < s->nfiles; f++)
			cJSON_AddItemToArray(files, cJSON_CreateString(s->files[f]));
		cJSON_AddItemToObject(o, "findings", findings[i]);
		findings[i] = NULL;
		cJSON_AddItemToArray(skills, o);
	}
	skipped = cJSON_AddArrayToObject(root, "skipped");
	for (size_t i = 0; i < r->skips.nskipped; i++) {
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", r->skips.skipped[i].path);
		cJSON_AddStringToObject(o, "reason", r->skips.skipped[i].reason);
		cJSON_AddItemToArray(skipped, o);
	}
	sum = cJSON_AddObjectToObject(root, "summary");
	cJSON_AddNumberToObject(sum, "skills", (double)r->skills.n);
	cJSON_AddNumberToObject(sum, "errors", (double)nerr);
	cJSON_AddNumberToObject(sum, "warnings", (double)nwarn);
	text = cJSON_Print(root);
	if (!text)
		sc_die("out of memory printing JSON");
	{
		struct sc_buf esc = SC_BUF_INIT;  /* names and paths are the skills' */
		sc_escape_json(&esc, text, strlen(text));
		if (printf("%s\n", esc.ptr) < 0)
			rc = -1;
		sc_buf_release(&esc);
	}
	free(text);
	cJSON_Delete(root);
	free(warns);
	free(errs);
	free(findings);
	free(idx);
	return rc;
}

static void print_lines(const struct run *r)
{
	struct sc_buf line = SC_BUF_INIT;

	for (size_t i = 0; i < r->diags.n; i++) {
		sc_buf_clear(&line);
		sc_diag_format(&line, &r->diags.items[i]);
		sc_cmd_line(stdout, "%s", line.ptr);
	}
	sc_buf_release(&line);
}

int cmd_validate(int argc, char **argv)
{
	struct validate_opts o = { false, false, false };
	struct run r;
	unsigned flags;
	size_t nerr, nwarn;
	int nargs, rc = SC_EXIT_OK, err = 0;

	memset(&r, 0, sizeof(r));
	if ((rc = sc_cmd_options(&validate_spec, &o, argc, argv, &nargs)))
		return rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	flags = o.strict ? SC_SKILL_STRICT : 0;
	r.verbose = o.verbose;
	if (!nargs)
		return sc_cmd_usage_error("validate", "give at least one PATH (a skill folder, a SKILL.md or a folder to search)");
	for (int i = 1; i <= nargs; i++) {
		struct stat st;
		if (stat(argv[i], &st) < 0) {
			sc_cmd_line(stderr, "error: '%s' does not exist", argv[i]);
			return SC_EXIT_USAGE;
		}
	}
	for (int i = 1; i <= nargs && err == 0; i++)
		err = validate_path(&r, argv[i], flags);
	if (err == 0)
		err = load_tests(&r);
	if (err < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	sc_diags_sort(&r.diags);
	nerr = sc_diags_count(&r.diags, SC_SEV_ERROR);
	nwarn = sc_diags_count(&r.diags, SC_SEV_WARNING);
	if (r.verbose)
		for (size_t i = 0; i < r.skips.nskipped; i++)
			sc_cmd_line(stderr, "skipped %s: %s", r.skips.skipped[i].path,
				    r.skips.skipped[i].reason);
	if (o.json) {
		if (print_json(&r, nerr, nwarn) < 0) {
			rc = SC_EXIT_INFRA;
			goto done;
		}
	} else {
		print_lines(&r);
	}
	fprintf(stderr, "%zu skill%s, %zu error%s, %zu warning%s\n", r.skills.n,
		r.skills.n == 1 ? "" : "s", nerr, nerr == 1 ? "" : "s", nwarn, nwarn == 1 ? "" : "s");
	rc = nerr ? SC_EXIT_GATE : SC_EXIT_OK;
done:
	free(r.ntests);
	sc_skill_list_release(&r.skills);
	sc_skill_list_release(&r.skips);
	sc_diags_release(&r.diags);
	return rc;
}
