/*
 * Unit tests for git.c, changed.c and ghevent.c. Each test builds a small
 * repository with the git command line in a scratch folder (fixed author,
 * committer and dates), then checks what skillci reads from it.
 */
#include "unit.h"
#include "git/changed.h"
#include "diag.h"
#include "git/ghevent.h"
#include "git/git.h"
#include "git/similarity.h"

#include <sys/stat.h>
#include <unistd.h>

#define GIT_ENV \
	"export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z " \
	"GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent; " \
	"g() { git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main " \
	"-c protocol.file.allow=always \"$@\"; }; " \
	"skill() { mkdir -p \"$1\" && printf -- '---\\nname: %%s\\ndescription: d\\n---\\nbody\\n' " \
	"\"$(basename \"$1\")\" > \"$1/SKILL.md\"; }; "

/* Runs a shell script in dir with the helpers above; fails the test on error. */
static void sh(const char *dir, const char *script)
{
	struct sc_buf cmd = SC_BUF_INIT;

	sc_buf_printf(&cmd, "cd '%s' && { " GIT_ENV "set -e; %s\n} >/dev/null 2>&1", dir, script);
	if (system(cmd.ptr) != 0)
		fail_msg("script failed: %s", script);
	sc_buf_release(&cmd);
}

/* The first line of a command's output (e.g. git rev-parse). */
static void sh_out(struct sc_buf *out, const char *dir, const char *script)
{
	struct sc_buf cmd = SC_BUF_INIT;
	FILE *p;
	char line[512];

	sc_buf_printf(&cmd, "cd '%s' && { " GIT_ENV "%s\n} 2>/dev/null", dir, script);
	p = popen(cmd.ptr, "r");
	assert_non_null(p);
	sc_buf_clear(out);
	if (fgets(line, sizeof(line), p))
		sc_buf_puts(out, line);
	pclose(p);
	sc_buf_rtrim(out);
	sc_buf_release(&cmd);
}

struct fx {
	char *dir;
	struct sc_git_repo *repo;
	struct sc_changed list;
};

static int setup(void **state)
{
	struct fx *f = sc_xcalloc(1, sizeof(*f));

	f->dir = sc_test_mkdtemp();
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	sc_changed_release(&f->list);
	sc_git_free(f->repo);
	sc_rm_rf(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

/* Computes the changed skills of the repository in f->dir between two revisions. */
static int changed_between(struct fx *f, const char *base_rev, const char *head_rev,
			   bool merge_base, const struct sc_changed_opts *opts)
{
	char base[SC_GIT_HEX_SIZE] = "", head[SC_GIT_HEX_SIZE], mb[SC_GIT_HEX_SIZE];
	struct sc_git_tree *tb = NULL, *th = NULL;
	int err;

	sc_changed_release(&f->list);
	if (!f->repo)
		assert_int_equal(sc_git_open(&f->repo, f->dir), 0);
	if ((err = sc_git_resolve(head, f->repo, head_rev)) < 0)
		return err;
	if (base_rev && (err = sc_git_resolve(base, f->repo, base_rev)) < 0)
		return err;
	if (base_rev && merge_base) {
		if ((err = sc_git_merge_base(mb, f->repo, base, head)) < 0)
			return err;
		memcpy(base, mb, sizeof(mb));
	}
	assert_int_equal(sc_git_tree_open(&tb, f->repo, base_rev ? base : NULL), 0);
	assert_int_equal(sc_git_tree_open(&th, f->repo, head), 0);
	err = sc_changed_compute(&f->list, tb, th, sc_git_name(f->repo), opts);
	sc_git_tree_free(tb);
	sc_git_tree_free(th);
	return err;
}

static const struct sc_changed_skill *find(const struct fx *f, const char *path)
{
	for (size_t i = 0; i < f->list.n; i++)
		if (!strcmp(f->list.items[i].path, path))
			return &f->list.items[i];
	return NULL;
}

/* Asserts that path is listed with status (and, for a rename, old path). */
static void expect(const struct fx *f, const char *path, enum sc_change_status status,
		   const char *old_path)
{
	const struct sc_changed_skill *s = find(f, path);

	if (!s)
		fail_msg("'%s' is not listed (%zu listed)", path, f->list.n);
	if (s->status != status)
		fail_msg("'%s' is %s, expected %s", path, sc_change_status_name(s->status),
			 sc_change_status_name(status));
	if (old_path)
		assert_string_equal(s->old_path, old_path);
	else
		assert_null(s->old_path);
}

static void test_add_modify_delete(void **state)
{
	struct fx *f = *state;

	sh(f->dir, "g init -q; skill skills/a; skill skills/b; skill skills/c; g add -A; g commit -qm 1;"
		   "echo more >> skills/a/SKILL.md; g rm -rq skills/b; mkdir -p skills/d;"
		   "printf -- '---\\nname: d\\ndescription: something new entirely\\n---\\n# New\\nwords\\n' > skills/d/SKILL.md;"
		   "g add -A; g commit -qm 2");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	assert_int_equal(f->list.n, 3);
	expect(f, "skills/a", SC_CHANGE_MODIFIED, NULL);
	expect(f, "skills/b", SC_CHANGE_DELETED, NULL);
	expect(f, "skills/d", SC_CHANGE_ADDED, NULL);
	assert_null(find(f, "skills/c"));
	assert_string_equal(find(f, "skills/a")->name, "a");
	assert_string_equal(find(f, "skills/b")->head_tree, "");
	assert_int_equal(strlen(find(f, "skills/b")->base_tree), 40);
	assert_string_equal(find(f, "skills/d")->base_tree, "");
	assert_true(find(f, "skills/a")->reasons & SC_CHANGED_FILES);
}

static void test_tree_id_is_git_tree(void **state)
{
	struct fx *f = *state;
	struct sc_buf want = SC_BUF_INIT;

	sh(f->dir, "g init -q; skill skills/a; g add -A; g commit -qm 1; echo x > skills/a/n.md;"
		   "g add -A; g commit -qm 2");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	sh_out(&want, f->dir, "git rev-parse HEAD:skills/a");
	assert_string_equal(find(f, "skills/a")->head_tree, want.ptr);
	sh_out(&want, f->dir, "git rev-parse HEAD~1:skills/a");
	assert_string_equal(find(f, "skills/a")->base_tree, want.ptr);
	sc_buf_release(&want);
}

static void test_rename_is_one_change(void **state)
{
	struct fx *f = *state;
	const struct sc_changed_skill *s;

	sh(f->dir, "g init -q; skill skills/a; seq 1 100 > skills/a/data.txt; g add -A; g commit -qm 1;"
		   "g mv skills/a skills/moved; g commit -qm 2");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	assert_int_equal(f->list.n, 1);
	expect(f, "skills/moved", SC_CHANGE_RENAMED, "skills/a");
	s = find(f, "skills/moved");
	assert_string_equal(s->base_tree, s->head_tree);
	assert_string_equal(s->name, "moved");
}

static void test_rename_and_modify(void **state)
{
	struct fx *f = *state;
	const struct sc_changed_skill *s;

	sh(f->dir, "g init -q; skill skills/a; seq 1 100 > skills/a/data.txt; seq 1 80 > skills/a/more.txt;"
		   "g add -A; g commit -qm 1; mkdir -p other; g mv skills/a other/b;"
		   "echo edit >> other/b/data.txt; g add -A; g commit -qm 2");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	assert_int_equal(f->list.n, 1);
	expect(f, "other/b", SC_CHANGE_RENAMED, "skills/a");
	s = find(f, "other/b");
	assert_string_not_equal(s->base_tree, s->head_tree);
}

static void test_rename_counts_files_once(void **state)
{
	struct fx *f = *state;

	/* two files moved: two changed files, not four */
	sh(f->dir, "g init -q; skill skills/a; seq 1 100 > skills/a/data.txt; g add -A; g commit -qm 1;"
		   "g mv skills/a skills/moved; g commit -qm 2;"
		   "seq 1 90 > skills/moved/more.txt; g rm -q skills/moved/data.txt; mkdir -p other;"
		   "g add -A; g mv skills/moved other/b; echo edit >> other/b/SKILL.md; g add -A; g commit -qm 3");
	assert_int_equal(changed_between(f, "HEAD~2", "HEAD~1", true, NULL), 0);
	expect(f, "skills/moved", SC_CHANGE_RENAMED, "skills/a");
	assert_int_equal(find(f, "skills/moved")->files, 2);
	/* moved with SKILL.md edited, data.txt deleted, more.txt added: 3 files */
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	expect(f, "other/b", SC_CHANGE_RENAMED, "skills/moved");
	assert_int_equal(find(f, "other/b")->files, 3);
	/* a modified skill: a file edited, one deleted, one added */
	sh(f->dir, "echo x >> other/b/more.txt; echo y > other/b/new.txt; g rm -q other/b/SKILL.md;"
		   "printf -- '---\\nname: b\\ndescription: d\\n---\\nbody\\n' > other/b/SKILL.md;"
		   "echo z >> other/b/SKILL.md; g add -A; g commit -qm 4");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	expect(f, "other/b", SC_CHANGE_MODIFIED, NULL);
	assert_int_equal(find(f, "other/b")->files, 3);
}

/* git's own verdict on a commit: "R", "D" or "A" for path (first letter of --name-status -M). */
static char git_says(struct fx *f, const char *path)
{
	struct sc_buf cmd = SC_BUF_INIT, out = SC_BUF_INIT;
	char c;

	sc_buf_printf(&cmd, "git diff -M --name-status HEAD~1 HEAD | grep -F '%s' | head -n 1 | cut -c1", path);
	sh_out(&out, f->dir, cmd.ptr);
	c = out.len ? out.ptr[0] : '?';
	sc_buf_release(&cmd);
	sc_buf_release(&out);
	return c;
}

static void test_rename_follows_git_rules(void **state)
{
	struct fx *f = *state;

	/* Two small skills written from one template, one deleted and the other
	 * added: different skills, and git says delete + add. */
	sh(f->dir, "g init -q; mkdir -p skills/pdf-tools skills/keep;"
		   "printf -- '---\\nname: pdf-tools\\ndescription: Extract text and tables from PDF files.\\n"
		   "license: Apache-2.0\\n---\\n# PDF tools\\n\\nUse pdfplumber to read each page.\\n' > skills/pdf-tools/SKILL.md;"
		   "skill skills/keep; g add -A; g commit -qm 1; g rm -rq skills/pdf-tools; mkdir -p skills/slack-gif;"
		   "printf -- '---\\nname: slack-gif\\ndescription: Make animated GIFs sized for Slack messages.\\n"
		   "license: Apache-2.0\\n---\\n# Slack GIFs\\n\\nUse Pillow to draw each frame.\\n' > skills/slack-gif/SKILL.md;"
		   "g add -A; g commit -qm 2");
	assert_int_equal(git_says(f, "skills/pdf-tools/SKILL.md"), 'D');
	assert_int_equal(git_says(f, "skills/slack-gif/SKILL.md"), 'A');
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	expect(f, "skills/pdf-tools", SC_CHANGE_DELETED, NULL);
	expect(f, "skills/slack-gif", SC_CHANGE_ADDED, NULL);

	/* A skill moved with its SKILL.md edited but mostly the same: git says
	 * rename, and so does skillci. */
	sh(f->dir, "mkdir -p skills/docx; seq 1 60 | sed 's/^/Step: write paragraph /' > body.txt;"
		   "{ printf -- '---\\nname: docx\\ndescription: Write Word files.\\n---\\n'; cat body.txt; } > skills/docx/SKILL.md;"
		   "g add skills; g commit -qm 3; mkdir -p document-skills; g mv skills/docx document-skills/docx;"
		   "seq 1 8 | sed 's/^/Note: new line /' >> document-skills/docx/SKILL.md; g add -A; g commit -qm 4");
	assert_int_equal(git_says(f, "document-skills/docx/SKILL.md"), 'R');
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	expect(f, "document-skills/docx", SC_CHANGE_RENAMED, "skills/docx");

	/* Moved with a binary file edited (a font) and SKILL.md unchanged: the
	 * SKILL.md's exact rename pairs them; the binary is never compared. */
	sh(f->dir, "mkdir -p skills/canvas/fonts; skill skills/canvas;"
		   "head -c 300000 /dev/urandom > skills/canvas/fonts/a.ttf; g add -A; g commit -qm 5;"
		   "mkdir -p art; g mv skills/canvas art/canvas; printf 'x' | dd of=art/canvas/fonts/a.ttf bs=1 seek=100 conv=notrunc;"
		   "g add -A; g commit -qm 6");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	expect(f, "art/canvas", SC_CHANGE_RENAMED, "skills/canvas");
	assert_int_equal(find(f, "art/canvas")->files, 2);
}

/*
 * The similarity score against git's own (git diff -M10% --name-status
 * prints it): text with lines added, lines changed, long lines cut at 64
 * bytes, CRLF line ends, and a small template pair.
 */
static void test_similarity_matches_git_scores(void **state)
{
	static const char *const cases[] = { "grow", "every3", "long", "crlf", "template" };
	struct fx *f = *state;

	sh(f->dir, "g init -q; mkdir -p a b;"
		   "seq 1 100 > a/grow; { seq 1 100; seq 500 519; } > b/grow;"
		   "seq 1 90 | sed 's/^/line /' > a/every3; seq 1 90 | sed 's/^/line /; 0~3s/$/ changed/' > b/every3;"
		   "seq 1 40 | sed 's/$/ aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa/' > a/long;"
		   "seq 1 40 | sed 's/$/ aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaab/' > b/long;"
		   "seq 1 70 | sed 's/^/crlf /' > a/crlf; seq 1 70 | sed 's/^/crlf /; s/$/\\r/' > b/crlf;"
		   "printf -- '---\\nname: one\\ndescription: First.\\n---\\n# One\\n\\nDo one thing.\\n' > a/template;"
		   "printf -- '---\\nname: two\\ndescription: Second.\\n---\\n# Two\\n\\nDo two things.\\n' > b/template;"
		   "mkdir -p r; for n in grow every3 long crlf template; do cp a/$n r/$n.src; done;"
		   "g add r; g commit -qm 1; for n in grow every3 long crlf template; do g rm -q r/$n.src; cp b/$n r/$n.dst; done;"
		   "g add r; g commit -qm 2");
	for (size_t i = 0; i < SC_ARRAY_SIZE(cases); i++) {
		struct sc_buf cmd = SC_BUF_INIT, out = SC_BUF_INIT, x = SC_BUF_INIT, y = SC_BUF_INIT;
		struct sc_similarity_sig sa, sb;
		int want = 0, got;

		sc_buf_printf(&cmd, "git diff -M10%% --name-status HEAD~1 HEAD | grep 'r/%s.dst' | cut -f1", cases[i]);
		sh_out(&out, f->dir, cmd.ptr);
		if (out.len && out.ptr[0] == 'R')
			want = atoi(out.ptr + 1);
		sc_buf_clear(&cmd);
		sc_buf_printf(&cmd, "%s/a/%s", f->dir, cases[i]);
		assert_int_equal(sc_read_file(&x, cmd.ptr, 1 << 20), 0);
		sc_buf_clear(&cmd);
		sc_buf_printf(&cmd, "%s/b/%s", f->dir, cases[i]);
		assert_int_equal(sc_read_file(&y, cmd.ptr, 1 << 20), 0);
		sc_similarity_sig_init(&sa, x.ptr, x.len, !sc_similarity_is_binary(x.ptr, x.len));
		sc_similarity_sig_init(&sb, y.ptr, y.len, !sc_similarity_is_binary(y.ptr, y.len));
		got = sc_similarity_score(&sa, &sb);
		if (got < 10)
			got = 0;   /* under -M10% git prints no score */
		if (got != want)
			fail_msg("%s: skillci scores %d, git %d (%s)", cases[i], got, want, out.ptr);
		sc_similarity_sig_release(&sa);
		sc_similarity_sig_release(&sb);
		sc_buf_release(&cmd);
		sc_buf_release(&out);
		sc_buf_release(&x);
		sc_buf_release(&y);
	}
}

static void test_nested_skills(void **state)
{
	struct fx *f = *state;

	sh(f->dir, "g init -q; skill outer; skill outer/inner; echo a > outer/notes.md;"
		   "echo b > outer/inner/notes.md; g add -A; g commit -qm 1;"
		   "echo b2 >> outer/inner/notes.md; g commit -qam 2; echo a2 >> outer/notes.md; g commit -qam 3");
	assert_int_equal(changed_between(f, "HEAD~2", "HEAD~1", true, NULL), 0);
	assert_int_equal(f->list.n, 1);
	expect(f, "outer/inner", SC_CHANGE_MODIFIED, NULL);
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	assert_int_equal(f->list.n, 1);
	expect(f, "outer", SC_CHANGE_MODIFIED, NULL);
}

static void test_references_only(void **state)
{
	struct fx *f = *state;

	sh(f->dir, "g init -q; skill skills/a; skill skills/b; mkdir -p skills/a/references;"
		   "echo r > skills/a/references/deep.md; echo top > README.md; g add -A; g commit -qm 1;"
		   "echo r2 >> skills/a/references/deep.md; echo top2 >> README.md; g commit -qam 2");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	assert_int_equal(f->list.n, 1);
	expect(f, "skills/a", SC_CHANGE_MODIFIED, NULL);
	assert_int_equal(find(f, "skills/a")->files, 1);
}

static void test_config_marks_every_skill(void **state)
{
	struct fx *f = *state;

	sh(f->dir, "g init -q; skill skills/a; skill skills/b; skill skills/c/d; echo 'runs: 1' > skillci.yml;"
		   "g add -A; g commit -qm 1; echo 'runs: 3' > skillci.yml; echo x >> skills/a/SKILL.md;"
		   "g commit -qam 2; echo 'x: 1' > upskill.config.yaml; g add -A; g commit -qm 3");
	assert_int_equal(changed_between(f, "HEAD~2", "HEAD~1", true, NULL), 0);
	assert_int_equal(f->list.n, 3);
	expect(f, "skills/a", SC_CHANGE_MODIFIED, NULL);
	expect(f, "skills/b", SC_CHANGE_MODIFIED, NULL);
	expect(f, "skills/c/d", SC_CHANGE_MODIFIED, NULL);
	assert_int_equal(find(f, "skills/a")->reasons, SC_CHANGED_FILES | SC_CHANGED_CONFIG);
	assert_int_equal(find(f, "skills/b")->reasons, SC_CHANGED_CONFIG);
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	assert_int_equal(f->list.n, 3);
}

static void test_extra_prefix_marks_skill(void **state)
{
	struct fx *f = *state;
	static const struct sc_changed_extra extra[] = {
		{ "fixtures/softmax", "skills/b" },
		{ "fixtures/other/", "skills/a" },
	};
	struct sc_changed_opts opts = { NULL, 0, extra, 2, false };

	sh(f->dir, "g init -q; skill skills/a; skill skills/b; mkdir -p fixtures/softmax fixtures/softmax2;"
		   "echo s > fixtures/softmax/spec.json; echo t > fixtures/softmax2/spec.json; g add -A; g commit -qm 1;"
		   "echo s2 >> fixtures/softmax/spec.json; echo t2 >> fixtures/softmax2/spec.json; g commit -qam 2");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, &opts), 0);
	assert_int_equal(f->list.n, 1);
	expect(f, "skills/b", SC_CHANGE_MODIFIED, NULL);
	assert_int_equal(find(f, "skills/b")->reasons, SC_CHANGED_EXTRA);
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	assert_int_equal(f->list.n, 0);
}

static void test_merge_base_vs_two_dot(void **state)
{
	struct fx *f = *state;

	/* main changes skill a after the branch point; the branch changes b. */
	sh(f->dir, "g init -q; skill skills/a; skill skills/b; g add -A; g commit -qm 1;"
		   "g checkout -qb feature; echo f >> skills/b/SKILL.md; g commit -qam feat;"
		   "g checkout -q main; echo m >> skills/a/SKILL.md; g commit -qam main;"
		   "g checkout -q feature; g merge -q --no-edit main; echo f2 >> skills/b/SKILL.md; g commit -qam feat2;"
		   "g checkout -q main; echo m2 >> skills/a/SKILL.md; g commit -qam main2");
	assert_int_equal(changed_between(f, "main", "feature", true, NULL), 0);
	assert_int_equal(f->list.n, 1);
	expect(f, "skills/b", SC_CHANGE_MODIFIED, NULL);
	assert_int_equal(changed_between(f, "main", "feature", false, NULL), 0);
	assert_int_equal(f->list.n, 2);
	expect(f, "skills/a", SC_CHANGE_MODIFIED, NULL);
	expect(f, "skills/b", SC_CHANGE_MODIFIED, NULL);
}

static void test_type_changes(void **state)
{
	struct fx *f = *state;

	sh(f->dir, "g init -q; skill skills/a; skill skills/b; echo x > skills/b/tool.sh; mkdir shared;"
		   "cp skills/a/SKILL.md shared/a.md; g add -A; g commit -qm 1;"
		   "rm skills/a/SKILL.md; ln -s ../../shared/a.md skills/a/SKILL.md;"
		   "rm skills/b/tool.sh; ln -s SKILL.md skills/b/tool.sh; g add -A; g commit -qm 2");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	assert_int_equal(f->list.n, 2);
	expect(f, "skills/a", SC_CHANGE_TYPECHANGE, NULL);
	expect(f, "skills/b", SC_CHANGE_MODIFIED, NULL);
}

static void test_first_push_all_added(void **state)
{
	struct fx *f = *state;

	sh(f->dir, "g init -q; skill skills/a; skill b; echo r > README.md; g add -A; g commit -qm 1");
	assert_int_equal(changed_between(f, NULL, "HEAD", true, NULL), 0);
	assert_int_equal(f->list.n, 2);
	expect(f, "skills/a", SC_CHANGE_ADDED, NULL);
	expect(f, "b", SC_CHANGE_ADDED, NULL);
}

static void test_all_lists_unchanged(void **state)
{
	struct fx *f = *state;
	struct sc_changed_opts opts = { NULL, 0, NULL, 0, true };

	sh(f->dir, "g init -q; skill skills/a; skill skills/b; g add -A; g commit -qm 1;"
		   "echo x >> skills/a/SKILL.md; g commit -qam 2");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, &opts), 0);
	assert_int_equal(f->list.n, 2);
	expect(f, "skills/a", SC_CHANGE_MODIFIED, NULL);
	expect(f, "skills/b", SC_CHANGE_UNCHANGED, NULL);
	assert_string_equal(find(f, "skills/b")->base_tree, find(f, "skills/b")->head_tree);
}

static void test_spaces_and_unicode(void **state)
{
	struct fx *f = *state;

	sh(f->dir, "g init -q; skill 'skills/my skill'; skill 'skills/\xc3\xbcn\xc3\xaf'; g add -A; g commit -qm 1;"
		   "echo x >> 'skills/my skill/SKILL.md'; echo y > 'skills/\xc3\xbcn\xc3\xaf/caf\xc3\xa9 notes.md';"
		   "g add -A; g commit -qm 2");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	assert_int_equal(f->list.n, 2);
	expect(f, "skills/my skill", SC_CHANGE_MODIFIED, NULL);
	expect(f, "skills/\xc3\xbcn\xc3\xaf", SC_CHANGE_MODIFIED, NULL);
	assert_string_equal(find(f, "skills/\xc3\xbcn\xc3\xaf")->name, "\xc3\xbcn\xc3\xaf");
}

static void test_lowercase_and_root_skill(void **state)
{
	struct fx *f = *state;

	sh(f->dir, "g init -q; mkdir -p low; echo '---' > low/skill.md; skill .; g add -A; g commit -qm 1;"
		   "echo x >> low/skill.md; echo y >> SKILL.md; g commit -qam 2");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	assert_int_equal(f->list.n, 2);
	expect(f, "low", SC_CHANGE_MODIFIED, NULL);
	expect(f, ".", SC_CHANGE_MODIFIED, NULL);
	assert_true(find(f, "low")->lowercase);
	assert_false(find(f, ".")->lowercase);
	assert_string_equal(find(f, ".")->name, sc_git_name(f->repo));
}

static void test_resolve_revision_forms(void **state)
{
	struct fx *f = *state;
	char id[SC_GIT_HEX_SIZE], other[SC_GIT_HEX_SIZE];
	struct sc_buf head = SC_BUF_INIT, shortid = SC_BUF_INIT;

	sh(f->dir, "g init -q; skill a; g add -A; g commit -qm 1; g tag -a v1 -m v1; g branch old;"
		   "echo x >> a/SKILL.md; g commit -qam 2");
	assert_int_equal(sc_git_open(&f->repo, f->dir), 0);
	sh_out(&head, f->dir, "git rev-parse HEAD");
	sh_out(&shortid, f->dir, "git rev-parse --short=7 HEAD~1");
	assert_int_equal(sc_git_resolve(id, f->repo, "HEAD"), 0);
	assert_string_equal(id, head.ptr);
	assert_int_equal(sc_git_resolve(id, f->repo, head.ptr), 0);
	assert_int_equal(sc_git_resolve(id, f->repo, "main"), 0);
	assert_string_equal(id, head.ptr);
	assert_int_equal(sc_git_resolve(id, f->repo, "HEAD~1"), 0);
	assert_int_equal(sc_git_resolve(other, f->repo, "v1"), 0);  /* annotated tag peeled */
	assert_string_equal(id, other);
	assert_int_equal(sc_git_resolve(other, f->repo, "old"), 0);
	assert_string_equal(id, other);
	assert_int_equal(sc_git_resolve(other, f->repo, shortid.ptr), 0);
	assert_string_equal(id, other);
	assert_int_equal(sc_git_resolve(id, f->repo, "no-such-branch"), SC_ENOTFOUND);
	assert_non_null(strstr(sc_error_last(), "'no-such-branch'"));
	assert_int_equal(sc_git_resolve(id, f->repo, "HEAD~9"), SC_ENOTFOUND);
	assert_int_equal(sc_git_resolve(id, f->repo, "HEAD:a"), SC_ENOTFOUND);  /* a tree */
	assert_int_equal(sc_error_exit_code(SC_ENOTFOUND), SC_EXIT_USAGE);
	sc_buf_release(&head);
	sc_buf_release(&shortid);
}

static void test_open_bare_and_non_repository(void **state)
{
	struct fx *f = *state;
	struct sc_buf path = SC_BUF_INIT;
	char id[SC_GIT_HEX_SIZE];

	sh(f->dir, "mkdir src plain; cd src; g init -q; skill a; g add -A; g commit -qm 1; cd ..;"
		   "g clone -q --bare src bare.git");
	sc_path_join(&path, f->dir, "bare.git");
	assert_int_equal(sc_git_open(&f->repo, path.ptr), 0);
	assert_int_equal(sc_git_resolve(id, f->repo, "main"), 0);
	assert_string_equal(sc_git_name(f->repo), "bare");
	sc_git_free(f->repo);
	f->repo = NULL;
	sc_path_join(&path, f->dir, "plain");
	assert_int_equal(sc_git_open(&f->repo, path.ptr), SC_ENOTFOUND);
	assert_non_null(strstr(sc_error_last(), "is not a git repository"));
	assert_non_null(strstr(sc_error_last(), path.ptr));
	sc_buf_release(&path);
}

static void test_clone_then_fetch(void **state)
{
	struct fx *f = *state;
	struct sc_buf url = SC_BUF_INIT, cache = SC_BUF_INIT, want = SC_BUF_INIT;
	char id[SC_GIT_HEX_SIZE];

	sh(f->dir, "mkdir src; cd src; g init -q; skill a; g add -A; g commit -qm 1");
	sc_buf_printf(&url, "file://%s/src", f->dir);
	sc_path_join(&cache, f->dir, "cache");
	assert_int_equal(sc_git_clone_or_fetch(&f->repo, url.ptr, cache.ptr), 0);
	assert_int_equal(sc_git_resolve(id, f->repo, "origin/main"), 0);
	sc_git_free(f->repo);
	f->repo = NULL;
	sh(f->dir, "cd src; echo x >> a/SKILL.md; g commit -qam 2");
	sh_out(&want, f->dir, "git -C src rev-parse HEAD");
	assert_int_equal(sc_git_clone_or_fetch(&f->repo, url.ptr, cache.ptr), 0);
	assert_int_equal(sc_git_resolve(id, f->repo, "origin/main"), 0);
	assert_string_equal(id, want.ptr);
	assert_int_equal(sc_git_resolve(id, f->repo, "main"), 0);
	assert_string_equal(id, want.ptr);
	sc_buf_release(&url);
	sc_buf_release(&cache);
	sc_buf_release(&want);
}

static void test_clone_error_hides_credentials(void **state)
{
	struct fx *f = *state;
	struct sc_buf cache = SC_BUF_INIT;
	char *old = getenv("GITHUB_TOKEN") ? sc_xstrdup(getenv("GITHUB_TOKEN")) : NULL;

	setenv("GITHUB_TOKEN", "ghp_tokenvalue123", 1);
	sc_path_join(&cache, f->dir, "cache");
	assert_int_not_equal(sc_git_clone_or_fetch(&f->repo, "https://user:s3cretpw@127.0.0.1:1/r.git",
						   cache.ptr), 0);
	assert_non_null(strstr(sc_error_last(), "127.0.0.1:1/r.git"));
	assert_null(strstr(sc_error_last(), "s3cretpw"));
	assert_null(strstr(sc_error_last(), "ghp_tokenvalue123"));
	assert_int_equal(sc_error_exit_code(sc_error_code()), SC_EXIT_INFRA);
	if (old)
		setenv("GITHUB_TOKEN", old, 1);
	else
		unsetenv("GITHUB_TOKEN");
	free(old);
	sc_buf_release(&cache);
}

/* Writes the skill at rev's dir into a fresh folder under f->dir; returns that folder. */
static int export_skill(struct fx *f, const char *dir, struct sc_git_export_opts *opts,
			struct sc_diags *diags, struct sc_buf *dest)
{
	char head[SC_GIT_HEX_SIZE];
	struct sc_git_tree *t = NULL;
	int err;

	if (!f->repo)
		assert_int_equal(sc_git_open(&f->repo, f->dir), 0);
	assert_int_equal(sc_git_resolve(head, f->repo, "HEAD"), 0);
	assert_int_equal(sc_git_tree_open(&t, f->repo, head), 0);
	sc_path_join(dest, f->dir, "out-XXXXXX");
	assert_non_null(mkdtemp(dest->ptr));
	err = sc_git_materialize(t, dir, dest->ptr, opts, diags);
	sc_git_tree_free(t);
	return err;
}

static bool diag_has(const struct sc_diags *d, const char *code, const char *file)
{
	for (size_t i = 0; i < d->n; i++)
		if (!strcmp(d->items[i].code, code) && !strcmp(d->items[i].file, file))
			return true;
	return false;
}

static void test_materialize_keeps_modes_and_refuses_escapes(void **state)
{
	struct fx *f = *state;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_buf dest = SC_BUF_INIT, p = SC_BUF_INIT, content = SC_BUF_INIT;
	struct stat st;
	char target[64];
	ssize_t n;

	sh(f->dir, "g init -q; skill s; mkdir -p s/scripts s/assets s/references/deep;"
		   "printf '#!/bin/sh\\necho hi\\n' > s/scripts/run.sh; chmod +x s/scripts/run.sh;"
		   "head -c 3000 /dev/urandom > s/assets/blob.bin; printf '\\000\\001\\002' >> s/assets/blob.bin;"
		   "echo r > s/references/r.md; ln -s ../r.md s/references/deep/up.md; ln -s references/r.md s/link.md;"
		   "ln -s ../../etc/passwd s/escape; ln -s /etc/passwd s/absolute; ln -s deep/../../.. s/sneaky;"
		   "ln -s deep/../r.md s/references/lexical;"
		   "g add -A; g update-index --add --cacheinfo 160000,1111111111111111111111111111111111111111,s/sub;"
		   "g commit -qm 1; cp s/assets/blob.bin expected.bin");
	assert_int_equal(export_skill(f, "s", NULL, &diags, &dest), 0);

	sc_path_join(&p, dest.ptr, "scripts/run.sh");
	assert_int_equal(stat(p.ptr, &st), 0);
	assert_true(st.st_mode & S_IXUSR);
	sc_path_join(&p, dest.ptr, "SKILL.md");
	assert_int_equal(stat(p.ptr, &st), 0);
	assert_false(st.st_mode & S_IXUSR);

	sc_path_join(&p, dest.ptr, "assets/blob.bin");
	assert_int_equal(sc_read_file(&content, p.ptr, 1 << 20), 0);
	{
		struct sc_buf want = SC_BUF_INIT, wp = SC_BUF_INIT;
		sc_path_join(&wp, f->dir, "expected.bin");
		assert_int_equal(sc_read_file(&want, wp.ptr, 1 << 20), 0);
		assert_int_equal(content.len, want.len);
		assert_memory_equal(content.ptr, want.ptr, want.len);
		sc_buf_release(&want);
		sc_buf_release(&wp);
	}

	sc_path_join(&p, dest.ptr, "link.md");
	n = readlink(p.ptr, target, sizeof(target) - 1);
	assert_true(n > 0);
	target[n] = '\0';
	assert_string_equal(target, "references/r.md");
	sc_path_join(&p, dest.ptr, "references/deep/up.md");
	assert_int_equal(lstat(p.ptr, &st), 0);
	assert_true(S_ISLNK(st.st_mode));

	sc_path_join(&p, dest.ptr, "escape");
	assert_int_equal(lstat(p.ptr, &st), -1);
	sc_path_join(&p, dest.ptr, "absolute");
	assert_int_equal(lstat(p.ptr, &st), -1);
	sc_path_join(&p, dest.ptr, "sneaky");
	assert_int_equal(lstat(p.ptr, &st), -1);
	sc_path_join(&p, dest.ptr, "sub");
	assert_int_equal(lstat(p.ptr, &st), -1);
	assert_true(diag_has(&diags, "symlink-escapes", "s/escape"));
	assert_true(diag_has(&diags, "symlink-escapes", "s/absolute"));
	assert_true(diag_has(&diags, "symlink-escapes", "s/sneaky"));
	/* Inside by its text, but ".." after "deep" would leave through "deep" if
	 * that were a symlink: refused as well. */
	assert_true(diag_has(&diags, "symlink-escapes", "s/references/lexical"));
	assert_true(diag_has(&diags, "submodule-skipped", "s/sub"));
	assert_int_equal(diags.n, 5);
	assert_int_equal(sc_diags_count(&diags, SC_SEV_ERROR), 0);

	sc_diags_release(&diags);
	sc_buf_release(&dest);
	sc_buf_release(&p);
	sc_buf_release(&content);
}

static void test_materialize_bounds(void **state)
{
	struct fx *f = *state;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_buf dest = SC_BUF_INIT;
	struct sc_git_export_opts few = { 2, 0 }, small = { 0, 100 }, enough = { 3, 2000 };

	sh(f->dir, "g init -q; skill s; seq 1 100 > s/a.txt; seq 1 100 > s/b.txt; g add -A; g commit -qm 1");
	assert_int_equal(export_skill(f, "s", &few, &diags, &dest), SC_ELIMIT);
	assert_non_null(strstr(sc_error_last(), "more than 2 files"));
	assert_int_equal(export_skill(f, "s", &small, &diags, &dest), SC_ELIMIT);
	assert_int_equal(export_skill(f, "s", &enough, &diags, &dest), 0);
	assert_int_equal(export_skill(f, "missing", NULL, &diags, &dest), SC_ENOTFOUND);
	sc_diags_release(&diags);
	sc_buf_release(&dest);
}

static void test_materialize_refuses_unsafe_names(void **state)
{
	struct fx *f = *state;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_buf dest = SC_BUF_INIT, p = SC_BUF_INIT;
	struct stat st;

	/* A hand-made tree object with an entry named ".." next to SKILL.md. */
	sh(f->dir, "g init -q; skill s; g add -A; g commit -qm 1;"
		   "b=$(git rev-parse HEAD:s/SKILL.md);"
		   "t=$(perl -e 'print \"100644 ..\\0\" . pack(\"H*\", $ARGV[0]) . \"100644 SKILL.md\\0\" . pack(\"H*\", $ARGV[0])' $b"
		   " | git hash-object -t tree --literally -w --stdin);"
		   "top=$(printf '040000 tree %s\\tevil\\n040000 tree %s\\ts\\n' $t $(git rev-parse HEAD:s) | git mktree);"
		   "c=$(echo evil | g commit-tree $top -p HEAD); git update-ref refs/heads/main $c");
	assert_int_equal(export_skill(f, "evil", NULL, &diags, &dest), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "'..'"));
	sc_path_join(&p, f->dir, "SKILL.md");  /* nothing written above dest */
	assert_int_equal(lstat(p.ptr, &st), -1);
	sc_diags_release(&diags);
	sc_buf_release(&dest);
	sc_buf_release(&p);
}

static void test_ghevent_files(void **state)
{
	struct fx *f = *state;
	struct sc_ghevent ev = SC_GHEVENT_INIT;
	const char *a = "1111111111111111111111111111111111111111";
	const char *b = "2222222222222222222222222222222222222222";
	struct sc_buf path = SC_BUF_INIT, json = SC_BUF_INIT;

	sc_path_join(&path, f->dir, "event.json");

	sc_buf_printf(&json, "{\"action\":\"synchronize\",\"pull_request\":{\"base\":{\"sha\":\"%s\"},"
			     "\"head\":{\"sha\":\"%s\"}}}", a, b);
	sc_test_write(f->dir, "event.json", json.ptr);
	assert_int_equal(sc_ghevent_read(&ev, path.ptr), 0);
	assert_string_equal(ev.kind, "pull_request");
	assert_string_equal(ev.base, a);
	assert_string_equal(ev.head, b);
	sc_ghevent_release(&ev);

	sc_buf_clear(&json);
	sc_buf_printf(&json, "{\"ref\":\"refs/heads/main\",\"before\":\"%s\",\"after\":\"%s\"}", a, b);
	sc_test_write(f->dir, "event.json", json.ptr);
	assert_int_equal(sc_ghevent_read(&ev, path.ptr), 0);
	assert_string_equal(ev.kind, "push");
	assert_string_equal(ev.base, a);
	sc_ghevent_release(&ev);

	sc_buf_clear(&json);
	sc_buf_printf(&json, "{\"before\":\"0000000000000000000000000000000000000000\",\"after\":\"%s\"}", b);
	sc_test_write(f->dir, "event.json", json.ptr);
	assert_int_equal(sc_ghevent_read(&ev, path.ptr), 0);
	assert_null(ev.base);
	assert_string_equal(ev.head, b);
	sc_ghevent_release(&ev);

	/* a pull request's labels */
	sc_buf_clear(&json);
	sc_buf_printf(&json, "{\"pull_request\":{\"base\":{\"sha\":\"%s\"},\"head\":{\"sha\":\"%s\"},"
			     "\"labels\":[{\"name\":\"bug\"},{\"id\":3},{\"name\":\"remove-skill\"}]}}", a, b);
	sc_test_write(f->dir, "event.json", json.ptr);
	assert_int_equal(sc_ghevent_read(&ev, path.ptr), 0);
	assert_int_equal(ev.nlabels, 2);
	assert_true(sc_ghevent_has_label(&ev, "remove-skill"));
	assert_false(sc_ghevent_has_label(&ev, "remove"));
	assert_false(sc_ghevent_has_label(&ev, ""));
	sc_ghevent_release(&ev);

	sc_test_write(f->dir, "event.json", "{\"pull_request\":{\"base\":{\"sha\":\"main\"},\"head\":{}}}");
	assert_int_equal(sc_ghevent_read(&ev, path.ptr), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "pull_request.base.sha"));
	sc_test_write(f->dir, "event.json", "{\"inputs\":{}}");
	assert_int_equal(sc_ghevent_read(&ev, path.ptr), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "event.json"));
	sc_test_write(f->dir, "event.json", "{not json");
	assert_int_equal(sc_ghevent_read(&ev, path.ptr), SC_EPARSE);
	assert_null(ev.kind);

	sc_buf_release(&path);
	sc_buf_release(&json);
}

/* A skill that left its folder and one new at head with the same name are
 * one skill moved, however different their content; a name two new
 * skills share pairs neither. */
static void test_rename_by_name(void **state)
{
	struct fx *f = *state;

	sh(f->dir, "g init -q; skill skills/a; seq 1 100 > skills/a/data.txt; skill skills/b;"
		   "g add -A; g commit -qm 1; g rm -q -r skills/a;"
		   "mkdir -p pack/x; printf -- '---\\nname: \"a\"\\ndescription: other\\n---\\nnew\\n' > pack/x/SKILL.md;"
		   "echo unrelated > pack/x/notes.txt; g add -A; g commit -qm 2");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	assert_int_equal(f->list.n, 1);
	expect(f, "pack/x", SC_CHANGE_RENAMED, "skills/a");

	sh(f->dir, "g rm -q -r pack/x; mkdir -p one two;"
		   "printf -- '---\\nname: b\\n---\\n1\\n' > one/SKILL.md;"
		   "printf -- '---\\nname: b\\n---\\n2\\n' > two/SKILL.md; g rm -q -r skills/b;"
		   "g add -A; g commit -qm 3");
	assert_int_equal(changed_between(f, "HEAD~1", "HEAD", true, NULL), 0);
	expect(f, "skills/b", SC_CHANGE_DELETED, NULL);
	expect(f, "one", SC_CHANGE_ADDED, NULL);
	expect(f, "two", SC_CHANGE_ADDED, NULL);
}

/* The name of a skill is its front matter's "name:", quoted or not; none
 * outside the front matter, none for a SKILL.md that is not a file. */
static void test_skill_name_and_path_kinds(void **state)
{
	struct fx *f = *state;
	struct sc_git_tree *t = NULL;
	char head[SC_GIT_HEX_SIZE], first[SC_GIT_HEX_SIZE];
	enum sc_git_kind kind;
	size_t n;
	char *name = NULL;

	sh(f->dir, "g init -q; mkdir -p q n l d; printf -- \"---\\nname: 'quoted name'\\n---\\n\" > q/SKILL.md;"
		   "printf -- '---\\ndescription: x\\n---\\nname: late\\n' > n/SKILL.md;"
		   "ln -s ../q/SKILL.md l/SKILL.md; echo file > f.txt; ln -s q link; touch d/x;"
		   "g add -A; g commit -qm 1; g checkout -q -b side; echo s > s.txt; g add -A;"
		   "g commit -qm side; g checkout -q -; echo m > m.txt; g add -A; g commit -qm main;"
		   "g merge -q --no-ff -m merge side");
	assert_int_equal(sc_git_open(&f->repo, f->dir), 0);
	assert_int_equal(sc_git_resolve(head, f->repo, "HEAD"), 0);
	assert_int_equal(sc_git_tree_open(&t, f->repo, head), 0);
	assert_int_equal(sc_changed_skill_name(&name, t, "q", false), 0);
	assert_string_equal(name, "quoted name");
	free(name);
	assert_int_equal(sc_changed_skill_name(&name, t, "n", false), 0);
	assert_null(name);
	assert_int_equal(sc_changed_skill_name(&name, t, "l", false), 0);
	assert_null(name);
	assert_int_equal(sc_git_path_kind(&kind, t, "f.txt"), 0);
	assert_int_equal(kind, SC_GIT_KIND_FILE);
	assert_int_equal(sc_git_path_kind(&kind, t, "link"), 0);
	assert_int_equal(kind, SC_GIT_KIND_LINK);
	assert_int_equal(sc_git_path_kind(&kind, t, "d"), 0);
	assert_int_equal(kind, SC_GIT_KIND_DIR);
	assert_int_equal(sc_git_path_kind(&kind, t, "nothing/here"), 0);
	assert_int_equal(kind, SC_GIT_KIND_NONE);
	/* a merge commit: two parents, the first is the branch merged into */
	assert_int_equal(sc_git_parents(first, &n, f->repo, head), 0);
	assert_int_equal(n, 2);
	{
		char main_tip[SC_GIT_HEX_SIZE];
		assert_int_equal(sc_git_resolve(main_tip, f->repo, "HEAD^1"), 0);
		assert_string_equal(first, main_tip);
	}
	assert_false(sc_git_is_shallow(f->repo));
	sc_git_tree_free(t);
}

/* Lines "S\tpath" (S = A, D, M, T) for every file change, sorted, as git prints them. */
static void format_changes(struct sc_buf *out, const struct sc_git_changes *c)
{
	struct sc_buf lines = SC_BUF_INIT;
	char **v = sc_xcalloc(c->n + 1, sizeof(*v));

	for (size_t i = 0; i < c->n; i++) {
		const struct sc_git_change *x = &c->items[i];
		const char *code = x->status == SC_GIT_ADDED ? "A" : x->status == SC_GIT_DELETED ? "D"
				 : x->status == SC_GIT_TYPECHANGE ? "T" : "M";
		sc_buf_clear(&lines);
		sc_buf_printf(&lines, "%s\t%s", code, x->new_path ? x->new_path : x->old_path);
		v[i] = sc_buf_detach(&lines, NULL);
	}
	for (size_t i = 1; i < c->n; i++)  /* insertion sort: a handful of lines */
		for (size_t j = i; j > 0 && strcmp(v[j - 1], v[j]) > 0; j--) {
			char *t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	sc_buf_clear(out);
	for (size_t i = 0; i < c->n; i++) {
		sc_buf_printf(out, "%s\n", v[i]);
		free(v[i]);
	}
	free(v);
	sc_buf_release(&lines);
}

static void test_tree_walk_matches_git_diff(void **state)
{
	struct fx *f = *state;
	struct sc_git_changes changes = SC_GIT_CHANGES_INIT;
	struct sc_git_tree *ta = NULL, *tb = NULL;
	char a[SC_GIT_HEX_SIZE], b[SC_GIT_HEX_SIZE];
	struct sc_buf got = SC_BUF_INIT, want = SC_BUF_INIT, cmd = SC_BUF_INIT;
	FILE *p;
	char line[512];

	/* Names that sort differently as files and folders ("a", "a.txt", "a-b",
	 * "a/"), a file that becomes a folder, a symlink, a mode change. */
	sh(f->dir, "g init -q; mkdir -p a a-b x/y; echo 1 > a.txt; echo 2 > a/b; echo 3 > a-b/c; echo 4 > x/y/z;"
		   "echo 5 > f; echo 6 > m.sh; echo 7 > l; g add -A; g commit -qm 1;"
		   "echo 2b > a/b; rm -r a-b; echo 3 > a-b; rm f; mkdir f; echo 8 > f/inner; chmod +x m.sh;"
		   "rm l; ln -s a.txt l; echo 9 > x/y/new; g add -A; g commit -qm 2");
	assert_int_equal(sc_git_open(&f->repo, f->dir), 0);
	assert_int_equal(sc_git_resolve(a, f->repo, "HEAD~1"), 0);
	assert_int_equal(sc_git_resolve(b, f->repo, "HEAD"), 0);
	assert_int_equal(sc_git_tree_open(&ta, f->repo, a), 0);
	assert_int_equal(sc_git_tree_open(&tb, f->repo, b), 0);
	assert_int_equal(sc_git_diff(&changes, ta, tb), 0);
	format_changes(&got, &changes);

	sc_buf_printf(&cmd, "cd '%s' && git diff --no-renames --name-status HEAD~1 HEAD | LC_ALL=C sort", f->dir);
	p = popen(cmd.ptr, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		sc_buf_puts(&want, line);
	pclose(p);
	assert_true(want.len > 0);
	assert_string_equal(got.ptr, want.ptr);

	sc_git_changes_release(&changes);
	sc_git_tree_free(ta);
	sc_git_tree_free(tb);
	sc_buf_release(&got);
	sc_buf_release(&want);
	sc_buf_release(&cmd);
}

/*
 * The merge of a pull request's head into the target's tip, in memory: a
 * stale branch gets the tip's later change and its own; a conflict is an
 * error saying "rebase or resolve"; no object is written to the
 * repository on disk.
 */
static void test_merge_trees_in_memory(void **state)
{
	struct fx *f = *state;
	struct sc_buf base = SC_BUF_INIT, tip = SC_BUF_INIT, head = SC_BUF_INIT, bad = SC_BUF_INIT;
	struct sc_buf blob = SC_BUF_INIT, before = SC_BUF_INIT, after = SC_BUF_INIT;
	struct sc_git_tree *t = NULL;
	char id[SC_GIT_HEX_SIZE], head_tree[SC_GIT_HEX_SIZE];

	sh(f->dir, "g init -q && skill skills/a && printf 'line 1\\nline 2\\n' > skills/a/notes.txt && "
		   "g add -A && g commit -qm base && g branch pr && g branch bad && "
		   "printf -- '---\\nname: a\\ndescription: better\\n---\\nbody\\n' > skills/a/SKILL.md && "
		   "g commit -qam tip && g checkout -q pr && echo n > skills/a/NOTES.md && g add -A && "
		   "g commit -qm pr && g checkout -q bad && "
		   "printf -- '---\\nname: a\\ndescription: other\\n---\\nbody\\n' > skills/a/SKILL.md && "
		   "g commit -qam bad && g checkout -q main");
	sh_out(&base, f->dir, "g rev-parse main~1");
	sh_out(&tip, f->dir, "g rev-parse main");
	sh_out(&head, f->dir, "g rev-parse pr");
	sh_out(&bad, f->dir, "g rev-parse bad");
	sh_out(&before, f->dir, "find .git/objects -type f | wc -l");
	assert_int_equal(sc_git_open(&f->repo, f->dir), 0);
	/* the stale branch: the tip's SKILL.md and the head's NOTES.md */
	assert_int_equal(sc_git_merge_trees(&t, id, f->repo, base.ptr, tip.ptr, head.ptr), 0);
	assert_int_equal(strlen(id), 40);
	assert_int_equal(sc_git_read_blob(&blob, t, "skills/a/SKILL.md", 4096), 0);
	assert_non_null(strstr(blob.ptr, "description: better"));
	sc_buf_clear(&blob);
	assert_int_equal(sc_git_read_blob(&blob, t, "skills/a/NOTES.md", 4096), 0);
	assert_string_equal(blob.ptr, "n\n");
	sc_git_tree_free(t);
	t = NULL;
	/* a head that is the tip's descendant: the head's own tree */
	assert_int_equal(sc_git_merge_trees(&t, id, f->repo, tip.ptr, tip.ptr, head.ptr), 0);
	assert_int_equal(sc_git_commit_tree_id(head_tree, f->repo, head.ptr), 0);
	assert_string_equal(id, head_tree);
	sc_git_tree_free(t);
	t = NULL;
	/* both changed SKILL.md's same line: a conflict, named, no tree */
	assert_int_equal(sc_git_merge_trees(&t, id, f->repo, base.ptr, tip.ptr, bad.ptr), SC_EINVAL);
	assert_null(t);
	assert_non_null(strstr(sc_error_last(), "conflicts in skills/a/SKILL.md"));
	assert_non_null(strstr(sc_error_last(), "rebase or resolve"));
	/* nothing was written to the repository */
	sh_out(&after, f->dir, "find .git/objects -type f | wc -l");
	assert_string_equal(before.ptr, after.ptr);
	sc_buf_release(&base);
	sc_buf_release(&tip);
	sc_buf_release(&head);
	sc_buf_release(&bad);
	sc_buf_release(&blob);
	sc_buf_release(&before);
	sc_buf_release(&after);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
#define T(fn) cmocka_unit_test_setup_teardown(fn, setup, teardown)
		T(test_add_modify_delete),
		T(test_tree_walk_matches_git_diff),
		T(test_tree_id_is_git_tree),
		T(test_rename_is_one_change),
		T(test_rename_and_modify),
		T(test_rename_counts_files_once),
		T(test_rename_follows_git_rules),
		T(test_similarity_matches_git_scores),
		T(test_nested_skills),
		T(test_references_only),
		T(test_config_marks_every_skill),
		T(test_extra_prefix_marks_skill),
		T(test_merge_base_vs_two_dot),
		T(test_type_changes),
		T(test_first_push_all_added),
		T(test_all_lists_unchanged),
		T(test_spaces_and_unicode),
		T(test_lowercase_and_root_skill),
		T(test_resolve_revision_forms),
		T(test_open_bare_and_non_repository),
		T(test_clone_then_fetch),
		T(test_clone_error_hides_credentials),
		T(test_materialize_keeps_modes_and_refuses_escapes),
		T(test_materialize_bounds),
		T(test_materialize_refuses_unsafe_names),
		T(test_ghevent_files),
		T(test_rename_by_name),
		T(test_skill_name_and_path_kinds),
		T(test_merge_trees_in_memory),
#undef T
	};
	int rc;

	if (sc_git_global_init() < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sc_git_global_shutdown();
	return rc;
}
