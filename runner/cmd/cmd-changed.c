/*
 * skillci changed: the skills that changed between two revisions, as text
 * lines or a JSON list. Revisions come from --base/--head, or from the
 * GitHub Actions event file when no --base is given.
 */
#include "common.h"
#include "cmd/cmd.h"
#include "escape.h"
#include "git/changed.h"
#include "git/ghevent.h"
#include "git/git.h"

#include <cjson/cJSON.h>

struct changed_args {
	const char *repo, *base, *head, *event, *cache_dir;
	bool two_dot, json, all;
};

/* --merge-base and --two-dot: the last one given wins. */
static int merge_base_option(void *opts, const char *value)
{
	SC_UNUSED(value);
	((struct changed_args *)opts)->two_dot = false;
	return 0;
}

static int two_dot_option(void *opts, const char *value)
{
	SC_UNUSED(value);
	((struct changed_args *)opts)->two_dot = true;
	return 0;
}

static const struct sc_option changed_table[] = {
	SC_OPT_STRING("repo", 0, struct changed_args, repo, "R",
		      "repository folder (bare or not; default .) or a URL\n"
		      "(file://, https://) cloned into the cache, fetched later"),
	SC_OPT_STRING("base", 0, struct changed_args, base, "A",
		      "base revision: SHA, branch, tag, HEAD~N, origin/main"),
	SC_OPT_STRING("head", 0, struct changed_args, head, "B", "head revision (default HEAD)"),
	SC_OPT_CALLBACK("merge-base", 0, merge_base_option, NULL,
			"compare B with the merge base of A and B (default), as a\n"
			"GitHub pull request does"),
	SC_OPT_CALLBACK("two-dot", 0, two_dot_option, NULL, "compare A and B directly"),
	SC_OPT_FLAG("json", 0, struct changed_args, json,
		    "a JSON list of {path, name, status, old_path, base_tree,\n"
		    "head_tree, reasons, files}"),
	SC_OPT_FLAG("all", 0, struct changed_args, all,
		    "list every skill at head, unchanged ones too"),
	SC_OPT_STRING("event", 0, struct changed_args, event, "FILE",
		      "GitHub Actions event (default $GITHUB_EVENT_PATH, read\n"
		      "when no --base is given): pull_request, push, merge_group"),
	SC_OPT_STRING("cache-dir", 0, struct changed_args, cache_dir, "DIR",
		      "where URLs are cloned (default $SKILLCI_CACHE_DIR or\n"
		      "~/.cache/skillci)"),
	SC_OPT_END,
};

static const struct sc_options changed_spec = {
	"changed", NULL,
	"List the skills that changed between two revisions (trees are compared,\n"
	"never the work tree).",
	"Statuses: added, modified, deleted, renamed, typechange, unchanged.\n"
	"https clones use the token in SKILLCI_GIT_TOKEN or GITHUB_TOKEN.\n"
	"Exit: 0 listed, 2 bad revision, repository or usage, 3 clone/fetch failure.\n",
	changed_table, 0,
};

static void default_cache_dir(struct sc_buf *out)
{
	const char *v;

	if ((v = getenv("SKILLCI_CACHE_DIR")) && *v)
		sc_buf_puts(out, v);
	else if ((v = getenv("XDG_CACHE_HOME")) && *v)
		sc_buf_printf(out, "%s/skillci", v);
	else if ((v = getenv("HOME")) && *v)
		sc_buf_printf(out, "%s/.cache/skillci", v);
	else
		sc_buf_puts(out, ".skillci-cache");
}

static cJSON *str_or_null(const char *s)
{
	return s && *s ? cJSON_CreateString(s) : cJSON_CreateNull();
}

static int print_json(const struct sc_changed *list)
{
	cJSON *arr = cJSON_CreateArray();
	char *text;

	for (size_t i = 0; i < list->n; i++) {
		const struct sc_changed_skill *s = &list->items[i];
		cJSON *o = cJSON_CreateObject(), *why = cJSON_CreateArray();
		cJSON_AddItemToObject(o, "path", cJSON_CreateString(s->path));
		cJSON_AddItemToObject(o, "name", cJSON_CreateString(s->name));
		cJSON_AddItemToObject(o, "status", cJSON_CreateString(sc_change_status_name(s->status)));
		cJSON_AddItemToObject(o, "old_path", str_or_null(s->old_path));
		cJSON_AddItemToObject(o, "base_tree", str_or_null(s->base_tree));
		cJSON_AddItemToObject(o, "head_tree", str_or_null(s->head_tree));
		if (s->reasons & SC_CHANGED_FILES)
			cJSON_AddItemToArray(why, cJSON_CreateString("files"));
		if (s->reasons & SC_CHANGED_CONFIG)
			cJSON_AddItemToArray(why, cJSON_CreateString("config"));
		if (s->reasons & SC_CHANGED_EXTRA)
			cJSON_AddItemToArray(why, cJSON_CreateString("extra"));
		cJSON_AddItemToObject(o, "reasons", why);
		cJSON_AddItemToObject(o, "files", cJSON_CreateNumber((double)s->files));
		cJSON_AddItemToArray(arr, o);
	}
	text = cJSON_Print(arr);
	cJSON_Delete(arr);
	if (!text)
		sc_die("out of memory");
	{
		/* paths are the pull request's: no raw control reaches a terminal */
		struct sc_buf esc = SC_BUF_INIT;
		sc_escape_json(&esc, text, strlen(text));
		puts(esc.ptr);
		sc_buf_release(&esc);
	}
	free(text);
	return 0;
}

static void print_text(const struct sc_changed *list)
{
	for (size_t i = 0; i < list->n; i++) {
		const struct sc_changed_skill *s = &list->items[i];
		if (s->old_path)
			sc_cmd_line(stdout, "%-9s %s -> %s", sc_change_status_name(s->status), s->old_path,
				    s->path);
		else
			sc_cmd_line(stdout, "%-9s %s", sc_change_status_name(s->status), s->path);
	}
}

int cmd_changed(int argc, char **argv)
{
	struct changed_args a = { ".", NULL, NULL, NULL, NULL, false, false, false };
	struct sc_ghevent ev = SC_GHEVENT_INIT;
	struct sc_git_repo *repo = NULL;
	struct sc_git_tree *tb = NULL, *th = NULL;
	struct sc_changed list = SC_CHANGED_INIT;
	struct sc_changed_opts opts = { 0 };
	struct sc_buf cache = SC_BUF_INIT;
	char base[SC_GIT_HEX_SIZE] = "", head[SC_GIT_HEX_SIZE] = "", mb[SC_GIT_HEX_SIZE];
	const char *base_rev = NULL, *head_rev;
	bool no_base = false;
	int err = 0, rc, nargs;

	if ((rc = sc_cmd_options(&changed_spec, &a, argc, argv, &nargs)) != 0)
		return rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	if (nargs)
		return sc_cmd_usage_error("changed", "unexpected argument '%s'", argv[1]);
	if (!a.base && !a.event && getenv("GITHUB_EVENT_PATH") && *getenv("GITHUB_EVENT_PATH"))
		a.event = getenv("GITHUB_EVENT_PATH");
	head_rev = a.head ? a.head : "HEAD";
	if (a.base) {
		base_rev = a.base;
	} else if (a.event) {
		if ((err = sc_ghevent_read(&ev, a.event)) < 0)
			goto done;
		if (!strcmp(ev.kind, "workflow_run")) {
			/* its base is the pull request's, which only the API knows */
			rc = sc_cmd_usage_error("changed", "a workflow_run event names no base: give "
						"--base REV");
			goto out;
		}
		base_rev = ev.base;
		no_base = !ev.base;
		if (!a.head)
			head_rev = ev.head;
	} else if (!a.all) {
		rc = sc_cmd_usage_error("changed", "no base revision: give --base REV (or run in "
					"GitHub Actions with GITHUB_EVENT_PATH)");
		goto out;
	}

	if (sc_git_is_url(a.repo)) {
		if (a.cache_dir)
			sc_buf_puts(&cache, a.cache_dir);
		else
			default_cache_dir(&cache);
		err = sc_git_clone_or_fetch(&repo, a.repo, cache.ptr);
	} else {
		err = sc_git_open(&repo, a.repo);
	}
	if (err < 0)
		goto done;
	if ((err = sc_git_resolve(head, repo, head_rev)) < 0)
		goto done;
	if (base_rev && sc_git_is_zero_id(base_rev))
		no_base = true;
	else if (base_rev && (err = sc_git_resolve(base, repo, base_rev)) < 0)
		goto done;
	if (!base_rev && !no_base)
		memcpy(base, head, sizeof(base));  /* --all alone: nothing changed */
	if (*base && !a.two_dot) {
		if ((err = sc_git_merge_base(mb, repo, base, head)) < 0)
			goto done;
		memcpy(base, mb, sizeof(base));
	}
	sc_trace("git", "comparing %s..%s", *base ? base : "(empty tree)", head);
	if ((err = sc_git_tree_open(&tb, repo, *base ? base : NULL)) < 0 ||
	    (err = sc_git_tree_open(&th, repo, head)) < 0)
		goto done;
	opts.all = a.all;
	if ((err = sc_changed_compute(&list, tb, th, sc_git_name(repo), &opts)) < 0)
		goto done;
	for (size_t i = 0; i < list.n; i++)
		if (list.items[i].lowercase && list.items[i].status != SC_CHANGE_DELETED)
			sc_cmd_line(stderr, "warning: '%s/skill.md': lowercase skill file accepted; "
				    "rename it to SKILL.md", list.items[i].path);
	if (a.json)
		print_json(&list);
	else
		print_text(&list);
done:
	rc = err < 0 ? sc_cmd_fail(err) : SC_EXIT_OK;
out:
	sc_changed_release(&list);
	sc_git_tree_free(tb);
	sc_git_tree_free(th);
	sc_git_free(repo);
	sc_ghevent_release(&ev);
	sc_buf_release(&cache);
	return rc;
}
