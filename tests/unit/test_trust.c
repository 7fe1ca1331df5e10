/*
 * Unit tests for runner/pipeline/trust.c: the configuration comes from the
 * base revision and the head's is only compared; the oracle only from the
 * command line; output paths stay in the workspace; the budget; tests
 * compared by content.
 */
#include "unit.h"
#include "diag.h"
#include "git/git.h"
#include "pipeline/config.h"
#include "pipeline/trust.h"

#include <sys/stat.h>
#include <unistd.h>

/* Runs a shell script in dir (git with a fixed identity); fails the test on error. */
static void sh(const char *dir, const char *script)
{
	struct sc_buf cmd = SC_BUF_INIT;

	sc_buf_printf(&cmd, "cd '%s' && { export GIT_CONFIG_NOSYSTEM=1 HOME=/nonexistent; "
		      "g() { git -c user.name=t -c user.email=t@example.com -c init.defaultBranch=main "
		      "\"$@\"; }; set -e; %s\n} >/dev/null 2>&1", dir, script);
	if (system(cmd.ptr) != 0)
		fail_msg("script failed: %s", script);
	sc_buf_release(&cmd);
}

static const struct sc_trust_change *change(const struct sc_trust *t, const char *key)
{
	for (size_t i = 0; i < t->nchanges; i++)
		if (!strcmp(t->changes[i].key, key))
			return &t->changes[i];
	return NULL;
}

/*
 * A repository whose base commit has one skillci.yml and whose head
 * loosens the gate and breaks a value; the work tree holds a third,
 * uncommitted version. The applied policy is the base commit's; the
 * head's differences are listed; neither the work tree nor the head's
 * error is applied.
 */
static void test_config_from_the_base_revision(void **state)
{
	char *dir = sc_test_mkdtemp();
	struct sc_buf repo = SC_BUF_INIT, scratch = SC_BUF_INIT, real = SC_BUF_INIT;
	struct sc_git_repo *r = NULL;
	struct sc_git_tree *base = NULL, *head = NULL;
	struct sc_trust_config_in in;
	struct sc_diags d = SC_DIAGS_INIT;
	struct sc_config cfg;
	struct sc_trust t;
	char b[SC_GIT_HEX_SIZE], h[SC_GIT_HEX_SIZE];
	const struct sc_trust_change *c;
	(void)state;

	sc_path_join(&repo, dir, "repo");
	sc_path_join(&scratch, dir, "scratch");
	assert_int_equal(sc_mkdir_p(repo.ptr), 0);
	assert_int_equal(sc_mkdir_p(scratch.ptr), 0);
	sh(repo.ptr, "g init -q; printf 'runs: 2\\ngate: {alpha: 0.05}\\n' > skillci.yml; "
		     "g add -A; g commit -q -m base; g tag base; "
		     "printf 'runs: 500\\ngate: {alpha: 1e-10, pass_rate_drop_points: 100}\\n"
		     "max_turns: lots\\nproviders:\\n  evil: {wire: openai, base_url: "
		     "http://127.0.0.1:9/v1, api_key_env: HF_TOKEN}\\n' > skillci.yml; "
		     "g commit -q -am head; "
		     "printf 'runs: 9\\n' > skillci.yml");
	assert_int_equal(sc_git_open(&r, repo.ptr), 0);
	assert_int_equal(sc_git_resolve(b, r, "base"), 0);
	assert_int_equal(sc_git_resolve(h, r, "HEAD"), 0);
	assert_int_equal(sc_git_tree_open(&base, r, b), 0);
	assert_int_equal(sc_git_tree_open(&head, r, h), 0);
	{
		char buf[4096];
		assert_non_null(realpath(repo.ptr, buf));
		sc_buf_puts(&real, buf);
	}
	memset(&in, 0, sizeof(in));
	in.base = base;
	in.head = head;
	in.base_rev = b;
	in.head_rev = h;
	in.repo_workdir = real.ptr;
	in.scratch = scratch.ptr;
	sc_trust_init(&t);
	assert_int_equal(sc_trust_load_config(&cfg, &t, &in, &d), 0);
	assert_int_equal(d.n, 0);                  /* the head's error is not a finding */
	assert_int_equal(cfg.runs, 2);             /* neither the head's 500 nor the work tree's 9 */
	assert_true(cfg.gate.alpha == 0.05);
	assert_string_equal(cfg.path, "skillci.yml");
	assert_non_null(strstr(t.config_source, "skillci.yml at the base revision"));
	assert_non_null(c = change(&t, "runs"));
	assert_string_equal(c->base, "2");
	assert_string_equal(c->head, "500");
	assert_non_null(c = change(&t, "gate.alpha"));
	assert_string_equal(c->head, "1e-10");
	assert_non_null(change(&t, "gate.pass_rate_drop_points"));
	assert_null(change(&t, "max_turns"));      /* the bad value kept the default */
	assert_non_null(c = change(&t, "providers.evil"));  /* an endpoint of its own: not applied */
	assert_string_equal(c->base, "(unset)");
	assert_non_null(strstr(c->head, "http://127.0.0.1:9/v1"));
	assert_int_equal(cfg.nendpoints, 0);
	/* the head's two errors, noted and not applied: max_turns on line 3,
	 * and a margin of 100 points that leaves no drop D above it */
	assert_int_equal(t.notes.n, 2);
	assert_true(strstr(t.notes.items[0], "line 3") || strstr(t.notes.items[1], "line 3"));
	assert_true(strstr(t.notes.items[0], "regression_points") ||
		    strstr(t.notes.items[1], "regression_points"));
	sc_config_release(&cfg);
	sc_trust_release(&t);

	/* --config naming a file of the repository: read at the base too */
	sh(repo.ptr, "mkdir -p ci; printf 'runs: 7\\n' > ci/other.yml");
	{
		struct sc_buf ex = SC_BUF_INIT;
		sc_path_join(&ex, repo.ptr, "ci/other.yml");
		in.explicit_path = ex.ptr;
		sc_trust_init(&t);
		assert_int_equal(sc_trust_load_config(&cfg, &t, &in, &d), SC_ENOTFOUND);
		assert_non_null(strstr(sc_error_last(), "'ci/other.yml' is not in the base revision"));
		sc_config_release(&cfg);
		sc_trust_release(&t);
		/* a runner's own file, outside the repository, is read from disk */
		sc_test_write(dir, "runner.yml", "runs: 4\n");
		sc_buf_clear(&ex);
		sc_path_join(&ex, dir, "runner.yml");
		in.explicit_path = ex.ptr;
		sc_trust_init(&t);
		assert_int_equal(sc_trust_load_config(&cfg, &t, &in, &d), 0);
		assert_int_equal(cfg.runs, 4);
		assert_int_equal(t.nchanges, 0);
		assert_non_null(strstr(t.config_source, "a file of the runner"));
		sc_config_release(&cfg);
		sc_trust_release(&t);
		sc_buf_release(&ex);
	}
	sc_diags_release(&d);
	sc_git_tree_free(base);
	sc_git_tree_free(head);
	sc_git_free(r);
	sc_rm_rf(dir);
	free(dir);
	sc_buf_release(&repo);
	sc_buf_release(&scratch);
	sc_buf_release(&real);
}

static void test_models_leave_out_the_oracle(void **state)
{
	struct sc_strlist cfgm = { 0 }, out = { 0 };
	const char *cli[] = { "oracle.self" };
	struct sc_trust t;
	(void)state;

	sc_trust_init(&t);
	sc_strlist_add(&cfgm, "oracle.self");
	sc_strlist_add(&cfgm, "anthropic.m1");
	sc_trust_models(&out, NULL, 0, &cfgm, &t);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.items[0], "anthropic.m1");
	assert_int_equal(t.notes.n, 1);
	assert_non_null(strstr(t.notes.items[0], "only when named with -m"));
	sc_strlist_release(&out);
	/* named on the command line, it runs */
	sc_trust_models(&out, cli, 1, &cfgm, &t);
	assert_int_equal(out.n, 1);
	assert_string_equal(out.items[0], "oracle.self");
	sc_strlist_release(&out);
	sc_strlist_release(&cfgm);
	sc_trust_release(&t);
}

/* Paths in the workspace may not leave it through a link; paths a flag
 * names outside it are the workflow's own. */
static void test_output_paths(void **state)
{
	char *dir = sc_test_mkdtemp(), ws[4096];
	struct sc_buf w = SC_BUF_INIT, link = SC_BUF_INIT, p = SC_BUF_INIT;
	(void)state;

	sc_path_join(&w, dir, "ws");
	assert_int_equal(sc_mkdir_p(w.ptr), 0);
	sc_test_write(dir, "elsewhere/x", "x");
	assert_non_null(realpath(w.ptr, ws));
	assert_int_equal(sc_trust_check_output("store", "a/b/results.db", ws), 0);
	sc_path_join(&link, w.ptr, "out");
	sc_buf_printf(&p, "%s/elsewhere", dir);
	assert_int_equal(symlink(p.ptr, link.ptr), 0);
	assert_int_equal(sc_trust_check_output("--junit", "out/junit.xml", ws), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "leads out of the workspace"));
	assert_non_null(strstr(sc_error_last(), "--junit"));
	sc_buf_clear(&p);
	sc_buf_printf(&p, "%s/out/junit.xml", ws);
	assert_int_equal(sc_trust_check_output("--junit", p.ptr, ws), SC_EUNSAFE);
	/* a link inside the workspace is fine; a dangling one is refused */
	sc_buf_clear(&link);
	sc_path_join(&link, w.ptr, "in");
	assert_int_equal(symlink("a", link.ptr), 0);
	assert_int_equal(sc_trust_check_output("store", "in/results.db", ws), SC_EUNSAFE);
	sc_buf_clear(&p);
	sc_path_join(&p, w.ptr, "a");
	assert_int_equal(sc_mkdir_p(p.ptr), 0);
	assert_int_equal(sc_trust_check_output("store", "in/results.db", ws), 0);
	/* an absolute path elsewhere: the flag's own choice */
	sc_buf_clear(&p);
	sc_buf_printf(&p, "%s/elsewhere/report.md", dir);
	assert_int_equal(sc_trust_check_output("--markdown", p.ptr, ws), 0);
	/* ".." is followed before the link check: out of the workspace by
	 * "..", a path elsewhere (no link on the way); "a/./../b" stays in */
	assert_int_equal(sc_trust_check_output("--store", "../x.db", ws), 0);
	assert_int_equal(sc_trust_check_output("--store", "a/./../b/x.db", ws), 0);
	assert_int_equal(sc_trust_check_output("--store", "a/../../ws/in/x.db", ws), 0);
	/* ".." after a link is the link target's parent: still a way out */
	assert_int_equal(sc_trust_check_output("--junit", "out/../junit.xml", ws), SC_EUNSAFE);
	assert_non_null(strstr(sc_error_last(), "leads out of the workspace"));
	assert_int_equal(sc_trust_check_output("--junit", "../ws/out/junit.xml", ws), SC_EUNSAFE);
	sc_rm_rf(dir);
	free(dir);
	sc_buf_release(&w);
	sc_buf_release(&link);
	sc_buf_release(&p);
}

static void test_budget(void **state)
{
	struct sc_trust_budget b = { 12, 14, 10000, 20000 };
	struct sc_buf line = SC_BUF_INIT;
	(void)state;

	assert_int_equal(sc_trust_budget_check(&b, &line), 0);
	assert_string_equal(line.ptr, "budget: 12 units, at most 14 model requests; limits 10000 "
				      "units, 20000 requests");
	b.max_units = 11;
	sc_buf_clear(&line);
	assert_int_equal(sc_trust_budget_check(&b, &line), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "12 units, more than the budget's 11"));
	b.max_units = 12;
	b.max_requests = 13;
	assert_int_equal(sc_trust_budget_check(&b, &line), SC_EINVAL);
	assert_non_null(strstr(sc_error_last(), "14 model requests, more than the budget's 13"));
	sc_buf_release(&line);
}

static void add_test(struct sc_test_set *s, const char *id, const char *input, const char *want)
{
	SC_GROW(s->items, s->alloc, s->n + 1);
	memset(&s->items[s->n], 0, sizeof(s->items[s->n]));
	s->items[s->n].id = sc_xstrdup(id);
	s->items[s->n].input = sc_xstrdup(input);
	sc_strlist_add(&s->items[s->n].contains, want);
	s->n++;
}

/* Tests are compared by content: moved is no change, a new id is added,
 * new content under an old id is changed, a base test gone is removed. */
static void test_diff_tests(void **state)
{
	struct sc_test_set base = SC_TEST_SET_INIT, head = SC_TEST_SET_INIT, own = SC_TEST_SET_INIT;
	struct sc_test_changes c;
	(void)state;

	add_test(&base, "m#0", "q0", "a");
	add_test(&base, "m#1", "q1", "b");
	add_test(&base, "m#2", "q2", "c");
	add_test(&head, "m#0", "q1", "b");     /* test 1 moved to id 0: unchanged */
	add_test(&head, "m#1", "q1", "weak");  /* changed */
	add_test(&head, "m#9", "q9", "z");     /* added */
	sc_trust_diff_tests(&own, &c, &base, &head);
	assert_int_equal(c.changed, 1);
	assert_int_equal(c.added, 1);
	assert_int_equal(c.removed, 1);        /* q2 is gone (q0's id is still used) */
	assert_int_equal(own.n, 2);
	assert_string_equal(own.items[0].id, "m#1");
	assert_string_equal(own.items[0].contains.items[0], "weak");
	assert_string_equal(own.items[1].id, "m#9");
	sc_test_set_release(&base);
	sc_test_set_release(&head);
	sc_test_set_release(&own);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_from_the_base_revision),
		cmocka_unit_test(test_models_leave_out_the_oracle),
		cmocka_unit_test(test_output_paths),
		cmocka_unit_test(test_budget),
		cmocka_unit_test(test_diff_tests),
	};
	sc_git_global_init();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
