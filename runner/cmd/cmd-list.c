/*
 * skillci list [-d DIR] [-v]
 *
 * A tree of the skills under DIR (default: skills/ when it exists, else
 * the current folder), each with its description shortened to one line, as
 * upskill's `list` shows them. With -v each skill also shows its body size
 * and the files it owns. Nested skills appear under the skill that holds
 * them. Problems in the skills are not listed here (see `skillci
 * validate`); only their count is noted on stderr.
 */
#include "common.h"
#include "cmd/cmd.h"
#include "escape.h"
#include "diag.h"
#include "skills/skill.h"

#include <sys/stat.h>

#define LIST_DESCRIPTION_CHARS 100

struct list_opts {
	const char *dir;
	bool verbose;
};

static const struct sc_option list_table[] = {
	SC_OPT_STRING("dir", 'd', struct list_opts, dir, "DIR",
		      "where to look (default: skills/ if it exists, else .)"),
	SC_OPT_FLAG("verbose", 'v', struct list_opts, verbose,
		    "also show each skill's body size and files"),
	SC_OPT_END,
};

static const struct sc_options list_spec = {
	"list", NULL, "Show the skills under DIR as a tree with their descriptions.", NULL,
	list_table, SC_OPTS_IN_ORDER,
};

/* Appends s with whitespace runs made one space, cut to max characters
 * (with "..." when cut). */
static void one_line(struct sc_buf *out, const char *s, size_t max)
{
	size_t chars = 0;
	bool space = false;

	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
			space = true;
			continue;
		}
		if ((c & 0xC0) != 0x80) {  /* a new character starts */
			if (chars + (space ? 1 : 0) >= max) {
				sc_buf_puts(out, "...");
				return;
			}
			if (space)
				sc_buf_putc(out, ' '), chars++;
			chars++;
			space = false;
		}
		if (c < 0x20)
			c = ' ';
		sc_buf_putc(out, (char)c);
	}
}

/* True when skill a's folder holds skill b's folder. */
static bool holds(const struct sc_skill *a, const struct sc_skill *b)
{
	size_t n = strlen(a->rel_dir);

	if (!strcmp(a->rel_dir, "."))
		return strcmp(b->rel_dir, ".") != 0;
	return !strncmp(b->rel_dir, a->rel_dir, n) && b->rel_dir[n] == '/';
}

/*
 * The tree: each skill's parent is the nearest skill whose folder holds
 * it. Skills come in walk order (a parent before what it holds), so a
 * stack of open ancestors finds every parent in one pass; children are
 * kept as first-child / next-sibling links (slot n is the top level).
 */
struct tree {
	const struct sc_skill_list *list;
	ssize_t *parent, *first, *next, *last;
	bool verbose;
};

static void tree_build(struct tree *t)
{
	size_t n = t->list->n, depth = 0;
	ssize_t *stack = sc_xcalloc(n + 1, sizeof(*stack));

	t->parent = sc_xcalloc(n + 1, sizeof(*t->parent));
	t->first = sc_xcalloc(n + 1, sizeof(*t->first));
	t->last = sc_xcalloc(n + 1, sizeof(*t->last));
	t->next = sc_xcalloc(n + 1, sizeof(*t->next));
	for (size_t i = 0; i <= n; i++)
		t->first[i] = t->last[i] = t->next[i] = -1;
	for (size_t i = 0; i < n; i++) {
		const struct sc_skill *s = &t->list->items[i];
		size_t slot;

		while (depth && !holds(&t->list->items[stack[depth - 1]], s))
			depth--;
		t->parent[i] = depth ? stack[depth - 1] : -1;
		slot = depth ? (size_t)stack[depth - 1] : n;
		if (t->last[slot] < 0)
			t->first[slot] = (ssize_t)i;
		else
			t->next[t->last[slot]] = (ssize_t)i;
		t->last[slot] = (ssize_t)i;
		stack[depth++] = (ssize_t)i;
	}
	free(stack);
}

static void tree_release(struct tree *t)
{
	free(t->parent);
	free(t->first);
	free(t->last);
	free(t->next);
}

static void print_skill(const struct tree *t, size_t i, const char *prefix, bool last);

/* Prints the children of skill p (-1: top level) under prefix. */
static void print_children(const struct tree *t, ssize_t p, const char *prefix)
{
	size_t slot = p < 0 ? t->list->n : (size_t)p;

	for (ssize_t c = t->first[slot]; c >= 0; c = t->next[c])
		print_skill(t, (size_t)c, prefix, t->next[c] < 0);
}

static void print_skill(const struct tree *t, size_t i, const char *prefix, bool last)
{
	const struct sc_skill *s = &t->list->items[i];
	struct sc_buf line = SC_BUF_INIT, sub = SC_BUF_INIT;
	const char *label = s->rel_dir;
	ssize_t p = t->parent[i];

	/* The path shown is relative to the parent skill's folder. */
	if (p >= 0 && strcmp(t->list->items[p].rel_dir, "."))
		label += strlen(t->list->items[p].rel_dir) + 1;
	sc_buf_printf(&line, "%s%s %s", prefix, last ? "└──" : "├──",
		      s->name ? s->name : s->folder_name);
	if (!strcmp(label, "."))
		label = s->folder_name;
	if (!s->name || strcmp(s->name, label) != 0)
		sc_buf_printf(&line, " (%s)", label);
	sc_cmd_line(stdout, "%s", line.ptr);
	sc_buf_printf(&sub, "%s%s", prefix, last ? "    " : "│   ");
	sc_buf_clear(&line);
	if (s->description)
		one_line(&line, s->description, LIST_DESCRIPTION_CHARS);
	else
		sc_buf_puts(&line, s->loaded ? "(no description)" : "(SKILL.md not read)");
	sc_cmd_line(stdout, "%s%s", sub.ptr, line.ptr);
	if (t->verbose) {
		sc_cmd_line(stdout, "%sSKILL.md: %zu body lines, ~%zu tokens; %zu file%s", sub.ptr,
			    s->body_lines, s->body_tokens, s->nfiles, s->nfiles == 1 ? "" : "s");
		for (size_t f = 0; f < s->nfiles; f++)
			sc_cmd_line(stdout, "%s  %s", sub.ptr, s->files[f]);
	}
	print_children(t, (ssize_t)i, sub.ptr);
	sc_buf_release(&sub);
	sc_buf_release(&line);
}

int cmd_list(int argc, char **argv)
{
	struct list_opts o = { NULL, false };
	struct sc_skill_list list = SC_SKILL_LIST_INIT;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct tree t;
	const char *dir;
	struct stat st;
	size_t nerr;
	int nargs, err, rc = SC_EXIT_OK;

	memset(&t, 0, sizeof(t));
	if ((rc = sc_cmd_options(&list_spec, &o, argc, argv, &nargs)))
		return rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	if (nargs)
		return sc_cmd_usage_error("list", "unexpected argument '%s' (use -d DIR)", argv[1]);
	dir = o.dir;
	t.verbose = o.verbose;
	if (!dir)
		dir = stat("skills", &st) == 0 && S_ISDIR(st.st_mode) ? "skills" : ".";
	if (stat(dir, &st) < 0) {
		sc_cmd_line(stderr, "error: '%s' does not exist", dir);
		return SC_EXIT_USAGE;
	}
	if ((err = sc_skill_discover(&list, dir, &diags, 0)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	t.list = &list;
	tree_build(&t);
	sc_cmd_line(stdout, "%s (%zu skill%s)", dir, list.n, list.n == 1 ? "" : "s");
	/* A skill at DIR itself is the tree's single root. */
	if (list.n && !strcmp(list.items[0].rel_dir, "."))
		print_skill(&t, 0, "", true);
	else
		print_children(&t, -1, "");
	nerr = sc_diags_count(&diags, SC_SEV_ERROR);
	if (nerr)
		sc_cmd_line(stderr, "note: %zu error%s in these skills; see 'skillci validate %s'", nerr,
			    nerr == 1 ? "" : "s", dir);
done:
	tree_release(&t);
	sc_diags_release(&diags);
	sc_skill_list_release(&list);
	return rc;
}
