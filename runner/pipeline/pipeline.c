/*
 * The PR check as a library (see pipeline.h and docs/run.md). The code of
 * each stage: the revisions and the trusted policy (open), the changed
 * skills' sides and the plan (prepare), one streaming evaluation
 * (evaluate), the results and the gate (finish).
 */
#include "common.h"
#include "diag.h"
#include "sha256.h"
#include "eval/eval.h"
#include "git/changed.h"
#include "pipeline/ghpr.h"
#include "git/git.h"
#include "kernelrun/kernelops.h"
#include "pipeline/budget.h"
#include "pipeline/config.h"
#include "pipeline/findings.h"
#include "pipeline/gate.h"
#include "pipeline/pipeline.h"
#include "pipeline/plan.h"
#include "pipeline/rounds.h"
#include "pipeline/sequential.h"
#include "pipeline/signals.h"
#include "pipeline/trust.h"
#include "pipeline/workdir.h"
#include "providers/provider.h"
#include "results/compare.h"
#include "results/results.h"
#include "results/store.h"
#include "skills/prompt.h"
#include "skills/skill.h"
#include "skills/testsuite.h"

#define MAX_MODELS 64
#define SC_RUN_WORK_ROOT ".skillci/work"  /* per-run work folders (workdir.h) */

/*
 * One side of a changed skill: its head (with the baseline), its base, or
 * the head skill on the head's own added or changed tests (head_tests).
 * sides[3 * i] is skill i's head, [3 * i + 1] its base, [3 * i + 2] its
 * head_tests.
 */
struct side {
	struct sc_eval_skill es;
	struct sc_skill skill;
	struct sc_test_set tests;   /* loaded at this side's revision (head_tests: copies) */
	char hash[65];
	bool baseline;      /* evaluate the baseline with this side (head) */
	bool loaded;
	struct sc_diags findings;  /* its own: SKILL.md, test files, writing it out; repo paths */
	bool unreadable;    /* the side could not be read at all (a finding says why) */
	bool has_changes;   /* head: changes compares the head's tests with the base's */
	bool first_tests;   /* head: the base had no tests; judged on the head's own */
	struct sc_test_changes changes;
};

struct sc_pipeline {
	struct sc_pipeline_options opt;
	struct sc_config cfg;
	struct sc_trust trust;
	struct sc_git_repo *repo;
	struct sc_git_tree *tbase, *thead;
	struct sc_git_tree *ttip;        /* the target's tip: policy and the verdict's tests */
	struct sc_git_tree *tjudged;     /* what is evaluated: the merge of the tip and the head */
	char base_rev[SC_GIT_HEX_SIZE], head_rev[SC_GIT_HEX_SIZE], tip_rev[SC_GIT_HEX_SIZE];
	char judged_tree[SC_GIT_HEX_SIZE];
	char config_hash[65];            /* the trusted policy as applied (provenance) */
	bool merged;                     /* the judged tree is a merge, not the head's own */
	bool has_merge_base;
	struct sc_ghpr pr;               /* the pull request: the job's event, or the API */
	char repo_real[4096];
	const char *repo_workdir;
	struct sc_workdir wd;
	bool wd_made;
	char *fixtures_dir;
	struct sc_buf fixtures_rel;      /* the fixtures folder as a repository path, or "" */
	struct sc_strlist model_names;
	struct sc_model *models;
	size_t nmodels;
	const char *cache_dir;
	const char *store_location;
	struct sc_store *store;          /* borrowed */
	struct sc_changed changed;
	struct side *sides;              /* 3 per changed skill: head, base, head_tests */
	struct sc_kernelops kops;
	bool kops_ready;
	const struct sc_eval_kernel_ops *kernel;
	struct sc_eval_unit_ref *refs;
	size_t nrefs, plan_units;
	int64_t need_requests;
	struct sc_budget_estimate cost;  /* tokens and dollars of the plan (budget.h) */
	char plan_hash[65];
	struct sc_eval_skill *es;
	struct sc_client *client;
	struct sc_eval_stats stats;      /* summed over the rounds */
	size_t sent;                     /* units handed to the evaluation */
	struct sc_results res;
	int64_t t0;
};

/* ---- revisions ----------------------------------------------------------- */

static bool in_actions(void)
{
	const char *v = getenv("GITHUB_ACTIONS");
	return v && !strcmp(v, "true");
}

/*
 * Resolves the commits of a check: flags first, then the GitHub event
 * (in Actions, kept in ev for its labels), then HEAD against the default
 * branch. tip_out is the target's tip, where policy and the verdict's
 * tests come from: the base as given (the event's base.sha, --base), or,
 * when none was given and the head is a merge commit, its first parent.
 * base_out is the merge base of the tip and the head when there is one:
 * it decides only what changed. Both are "" when there is no base (a
 * first push).
 */
static int resolve_revs(char base_out[SC_GIT_HEX_SIZE], char tip_out[SC_GIT_HEX_SIZE],
			char head_out[SC_GIT_HEX_SIZE], bool *has_mb, struct sc_ghpr *ev,
			struct sc_trust *trust, struct sc_git_repo *repo,
			const struct sc_pipeline_options *o)
{
	const char *base = o->base, *head = o->head;
	char b[SC_GIT_HEX_SIZE], mb[SC_GIT_HEX_SIZE], parent[SC_GIT_HEX_SIZE];
	struct sc_ghpr_env env;
	size_t nparents = 0;
	int err = 0;

	base_out[0] = tip_out[0] = '\0';
	sc_ghpr_env_from_environ(&env);
	if (in_actions() && env.event_path) {
		/* the job's own event; its labels count even when flags name
		 * both commits */
		if ((err = sc_ghpr_read_event(ev, &env)) < 0 && (!base || !head))
			return err;
		if (err < 0) {
			sc_error_clear();
			err = 0;
		}
		if (ev->ignored) {
			sc_log(SC_LOG_WARN, "%s", ev->ignored);
			sc_trust_note(trust, "%s", ev->ignored);
		}
	}
	if (in_actions() && sc_ghpr_is_workflow_run(&env)) {
		/* a workflow_run job: the pull request of the run's head (or
		 * --head's), its number, labels and base, from the GitHub API */
		const char *h = head ? head : ev->head;
		char hh[SC_GIT_HEX_SIZE];
		if (!h)
			return sc_error_set(SC_EINVAL, "a workflow_run job with no head to check: its "
					    "event is not readable; give --head");
		if ((err = sc_git_resolve(hh, repo, h)) < 0 ||
		    (err = sc_ghpr_from_api(ev, &env, hh)) < 0)
			return err;
		sc_trust_note(trust, "pull request #%lld, its labels, base %.12s and head %.12s come "
			      "from the GitHub API (a workflow_run job), checked against the "
			      "triggering run's head", ev->number, ev->base, ev->head);
	}
	if ((!base || !head) && ev->head) {
		if (!head)
			head = ev->head;
		if (!base && !ev->base)
			return sc_git_resolve(head_out, repo, head);  /* first push: every skill is new */
		if (!base)
			base = ev->base;
	}
	if (!head)
		head = "HEAD";
	if ((err = sc_git_resolve(head_out, repo, head)) < 0)
		return err;
	if (!base && sc_git_parents(parent, &nparents, repo, head_out) == 0 && nparents > 1 &&
	    parent[0])
		base = parent;  /* a merge-commit checkout: the target is its first parent */
	sc_error_clear();
	if (!base) {
		static const char *const tries[] = { "origin/HEAD", "origin/main", "main", "master" };
		for (size_t i = 0; i < SC_ARRAY_SIZE(tries) && !base; i++)
			if (sc_git_resolve(b, repo, tries[i]) == 0 && strcmp(b, head_out))
				base = tries[i];
		sc_error_clear();
		if (!base)
			return sc_error_cause_set(sc_error_set(SC_EINVAL, "no base revision: give "
						  "--base (the default branch was not found or is "
						  "the head itself)"), SC_CAUSE_REVISION);
	}
	if ((err = sc_git_resolve(b, repo, base)) < 0)
		return err;
	memcpy(tip_out, b, SC_GIT_HEX_SIZE);
	*has_mb = sc_git_merge_base(mb, repo, b, head_out) == 0;
	memcpy(base_out, *has_mb ? mb : b, SC_GIT_HEX_SIZE);
	sc_error_clear();
	return 0;
}

/* ---- skills and tests ---------------------------------------------------- */

/* s with every occurrence of the work folder dir replaced by shown. */
static void repo_text(struct sc_buf *out, const char *s, const char *dir, const char *shown)
{
	size_t n = strlen(dir);
	const char *hit;

	while ((hit = strstr(s, dir))) {
		sc_buf_put(out, s, (size_t)(hit - s));
		sc_buf_puts(out, shown);
		s = hit + n;
		if (*s == '/' && !*shown)
			s++;
	}
	sc_buf_puts(out, s);
}

/*
 * Moves findings about files written out under dir into diags with the
 * repository path shown_path in their place (file names and messages);
 * files under root2 (when not NULL: manifest files written out) get
 * their repository path too. Returns the first error as "file:line:
 * message" (a new string), or NULL when there is none.
 */
static char *move_findings(struct sc_diags *diags, struct sc_diags *mine, const char *dir,
			   const char *shown_path, const char *root2)
{
	struct sc_buf file = SC_BUF_INIT, msg = SC_BUF_INIT, t = SC_BUF_INIT;
	char *first = NULL;

	sc_diags_sort(mine);
	for (size_t i = 0; i < mine->n; i++) {
		const struct sc_diag *d = &mine->items[i];
		sc_buf_clear(&file);
		sc_buf_clear(&msg);
		repo_text(&file, d->file, dir, shown_path);
		repo_text(&msg, d->message, dir, shown_path);
		if (root2) {
			sc_buf_clear(&t);
			repo_text(&t, file.ptr, root2, "");
			sc_buf_sets(&file, t.ptr);
			sc_buf_clear(&t);
			repo_text(&t, msg.ptr, root2, "");
			sc_buf_sets(&msg, t.ptr);
		}
		if (d->sev == SC_SEV_ERROR && !first) {
			struct sc_buf m = SC_BUF_INIT;
			sc_buf_printf(&m, "%s:%zu: %s", file.ptr, d->line, msg.ptr);
			first = sc_buf_detach(&m, NULL);
		}
		sc_diags_add(diags, d->sev, file.ptr, d->line, d->code, "%s", msg.ptr);
	}
	sc_buf_release(&file);
	sc_buf_release(&msg);
	sc_buf_release(&t);
	return first;
}

/*
 * upskill's evals manifest (SC_TESTS_EVALS_MANIFEST) at this side's
 * revision: the test files it maps to the skill at rel are written out
 * under mroot (made when needed: root/side_name-repo) and loaded. At head
 * a file the pull request deleted is a removed test, not an error. A
 * manifest that cannot be read is a finding.
 */
static int load_evals_manifest(struct side *s, struct sc_git_tree *tree, const char *rel,
			       const char *sub, const char *dir, const struct sc_config *cfg,
			       bool head, struct sc_diags *mine, struct sc_buf *mroot)
{
	struct sc_buf text = SC_BUF_INIT;
	struct sc_strlist files = { 0 }, present = { 0 };
	int err = sc_git_read_blob(&text, tree, SC_TESTS_EVALS_MANIFEST, SC_MAX_CONFIG_BYTES);

	if (err < 0) {
		if (err != SC_ENOTFOUND)
			sc_diags_add(mine, SC_SEV_ERROR, SC_TESTS_EVALS_MANIFEST, 0, "test-manifest",
				     "%s", sc_error_last());
		sc_error_clear();
		err = 0;
		goto done;
	}
	sc_tests_evals_manifest(&files, text.ptr, text.len, SC_TESTS_EVALS_MANIFEST,
				*rel ? rel : ".", s->skill.name, mine);
	if (!files.n)
		goto done;
	if (!mroot->len)
		sc_buf_printf(mroot, "%s-repo", sub);
	if ((err = sc_mkdir_p(mroot->ptr)) < 0 ||
	    (err = sc_trust_write_blobs(tree, &files, mroot->ptr, &present)) < 0)
		goto done;
	err = sc_tests_load_manifest(&s->tests, head ? &present : &files, NULL, mroot->ptr,
				     cfg->fixtures_dir, dir, SC_TESTS_EVALS_MANIFEST, 0, mine);
done:
	sc_buf_release(&text);
	sc_strlist_release(&files);
	sc_strlist_release(&present);
	return err;
}

/*
 * Writes one side of a changed skill (the folder at git_path in tree) to
 * root/side_name/git_path and loads the skill and its tests: the skill's
 * own test files, then the manifest's, read from the same revision (the
 * files are written out to root/side_name-repo). Findings go to the
 * side's own list with repository paths (the head's for both sides, so
 * the two sides compare); a test file the head cannot read is an error
 * finding there, which the gate's validity check fails: a pull request
 * cannot hide its tests by breaking them. Returns 0 or an error.
 */
static int load_side(struct side *s, struct sc_git_tree *tree, const char *git_path,
		     const char *root, const char *side_name, const char *shown_path,
		     const struct sc_config *cfg, bool head)
{
	struct sc_buf dir = SC_BUF_INIT, sub = SC_BUF_INIT, mroot = SC_BUF_INIT;
	struct sc_diags mine = SC_DIAGS_INIT;
	struct sc_strlist present = { 0 };
	const char *rel = strcmp(git_path, ".") ? git_path : "";
	const struct sc_config_skill *man;
	int err;

	sc_path_join(&sub, root, side_name);
	if (*rel)
		sc_path_join(&dir, sub.ptr, rel);
	else
		sc_buf_sets(&dir, sub.ptr);
	if ((err = sc_mkdir_p(dir.ptr)) < 0)
		goto done;
	if ((err = sc_git_materialize(tree, rel, dir.ptr, NULL, &mine)) < 0)
		goto done;
	if ((err = sc_skill_load(&s->skill, dir.ptr, &mine, 0)) < 0)
		goto done;
	if ((err = sc_tests_load_skill(&s->tests, dir.ptr, &mine)) < 0)
		goto done;
	man = sc_config_find_skill(cfg, *rel ? rel : ".");
	if (man) {
		/* the manifest's test files at this side's revision; at head a
		 * file the pull request deleted is a removed test, not an error */
		sc_buf_printf(&mroot, "%s-repo", sub.ptr);
		if ((err = sc_mkdir_p(mroot.ptr)) < 0 ||
		    (err = sc_trust_write_blobs(tree, &man->tests, mroot.ptr, &present)) < 0)
			goto done;
		if ((err = sc_tests_load_manifest(&s->tests, head ? &present : &man->tests,
						  &man->fixtures, mroot.ptr, cfg->fixtures_dir,
						  dir.ptr, cfg->path ? cfg->path : SC_CONFIG_FILE,
						  man->line, &mine)) < 0)
			goto done;
	}
	if ((err = load_evals_manifest(s, tree, rel, sub.ptr, dir.ptr, cfg, head, &mine, &mroot)) < 0)
		goto done;
	if ((err = sc_skill_content_hash(s->hash, &s->skill)) < 0)
		goto done;
	if (sc_skill_prompt_over(NULL, &s->skill)) {
		/* the skill-prompt-size finding says why: no unit is planned */
		s->unreadable = true;
		goto done;
	}
	s->es.path = shown_path;
	s->es.skill = &s->skill;
	s->es.tests = &s->tests;
	s->es.hash = s->hash;
	s->loaded = true;
done:
	/* findings name the written-out files: show repository paths */
	free(move_findings(&s->findings, &mine, dir.ptr, shown_path,
			   mroot.len ? mroot.ptr : NULL));
	sc_diags_release(&mine);
	sc_strlist_release(&present);
	sc_buf_release(&dir);
	sc_buf_release(&sub);
	sc_buf_release(&mroot);
	return err;
}

/*
 * A side the pull request made unreadable (an unsafe name in its git tree,
 * a file past a limit, a broken test file) fails that skill alone: the
 * reason is kept for the gate (head) or reported (base) and the other
 * skills are still checked. Returns 0 for such an input error, or err
 * itself for anything else (disk, git, memory), which stops the run.
 */
static int side_unreadable(struct side *s, int err, const char *path)
{
	if (err != SC_EUNSAFE && err != SC_ELIMIT && err != SC_EINVAL && err != SC_EPARSE &&
	    err != SC_ENOTFOUND)
		return err;
	sc_diags_add(&s->findings, SC_SEV_ERROR, path, 0, "skill-unreadable",
		     "the skill cannot be read, so it is not evaluated: %s", sc_error_last());
	s->loaded = false;
	s->unreadable = true;
	sc_error_clear();
	return 0;
}

/*
 * The first tests are evidence (docs/run.md, "First tests"): a skill the
 * base has without tests, whose head adds tests, cannot regress against
 * nothing; it is judged on the head's new tests as an added skill is
 * (against no skill), and those tests judge the pull requests after it.
 * True (and h marked) when that is the case.
 */
static bool first_tests(struct side *h, const struct side *b)
{
	h->first_tests = b->loaded && b->tests.n == 0 && h->tests.n > 0;
	return h->first_tests;
}

/*
 * Wires the three sides of one changed skill after loading: the head is
 * judged on the base's tests when the base was read (the tests already
 * reviewed and merged), else on its own (an added skill); the head's
 * added or changed tests go to the head_tests side, run with the head
 * skill beside the verdict. Fills the test changes of the skill.
 */
static void wire_sides(struct side *h, struct side *b, struct side *p)
{
	if (!h->loaded)
		return;
	if (b->loaded) {
		sc_trust_diff_tests(&p->tests, &h->changes, &b->tests, &h->tests);
		h->has_changes = true;
		if (first_tests(h, b)) {
			sc_test_set_release(&p->tests);  /* they are the verdict's tests */
			return;
		}
		h->es.tests = &b->tests;
		h->es.tests_dir = b->skill.dir;  /* their validators and binary files */
		if (p->tests.n) {
			p->es.path = h->es.path;
			p->es.variant = SC_VARIANT_HEAD_TESTS;
			p->es.skill = &h->skill;
			p->es.tests = &p->tests;
			memcpy(p->hash, h->hash, sizeof(p->hash));
			p->es.hash = p->hash;
			p->loaded = true;
		}
	}
}

/* The side (3 * skill index, + 1 for base, + 2 for head_tests) a planned
 * unit belongs to, by binary search in the changed list (sorted by path);
 * SIZE_MAX when none. The baseline belongs to the head. */
static size_t side_of(const struct sc_changed *changed, const char *skill, enum sc_variant variant)
{
	size_t lo = 0, hi = changed->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(changed->items[mid].path, skill);
		if (c == 0)
			return 3 * mid + (variant == SC_VARIANT_BASE ? 1
					  : variant == SC_VARIANT_HEAD_TESTS ? 2 : 0);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/* The index of the test called id in set, or SIZE_MAX. */
static size_t test_index(const struct sc_test_set *set, const char *id)
{
	for (size_t t = 0; t < set->n; t++)
		if (!strcmp(set->items[t].id, id))
			return t;
	return SIZE_MAX;
}

/* ---- results ------------------------------------------------------------- */

static char *dup_or_null(const char *s)
{
	return s && *s ? sc_xstrdup(s) : NULL;
}

/* A change as the results name it. */
static enum sc_skill_status skill_status(enum sc_change_status status)
{
	switch (status) {
	case SC_CHANGE_ADDED: return SC_SKILL_ADDED;
	case SC_CHANGE_MODIFIED: return SC_SKILL_MODIFIED;
	case SC_CHANGE_DELETED: return SC_SKILL_DELETED;
	case SC_CHANGE_RENAMED: return SC_SKILL_RENAMED;
	case SC_CHANGE_TYPECHANGE: return SC_SKILL_TYPECHANGE;
	case SC_CHANGE_UNCHANGED: break;
	}
	return SC_SKILL_UNCHANGED;
}

/* The results entry of one changed skill. */
static void fill_skill(struct sc_results_skill *rs, const struct sc_changed_skill *cs,
		       const struct side *head, const struct side *base)
{
	const struct side *any = head->loaded ? head : base;
	struct sc_buf md = SC_BUF_INIT;

	rs->path = sc_xstrdup(cs->path);
	rs->name = sc_xstrdup(any && any->loaded && any->skill.name ? any->skill.name : cs->name);
	rs->status = skill_status(cs->status);
	rs->old_path = dup_or_null(cs->old_path);
	if (strcmp(cs->path, "."))
		sc_path_join(&md, cs->path, cs->lowercase ? "skill.md" : "SKILL.md");
	else
		sc_buf_puts(&md, cs->lowercase ? "skill.md" : "SKILL.md");
	rs->skill_md = sc_buf_detach(&md, NULL);
	rs->base_tree = dup_or_null(cs->base_tree);
	rs->head_tree = dup_or_null(cs->head_tree);
	/* the tests the verdict uses: the base's when there is a base */
	rs->tests = head->loaded ? (int64_t)head->es.tests->n : 0;
	/* an unreadable head is a gate failure, not an untested skill */
	rs->untested = cs->status != SC_CHANGE_DELETED && rs->tests == 0 && !head->unreadable;
	rs->first_tests = head->first_tests;
	if (head->has_changes) {
		rs->has_test_changes = true;
		rs->tests_added = (int64_t)head->changes.added;
		rs->tests_changed = (int64_t)head->changes.changed;
		rs->tests_removed = (int64_t)head->changes.removed;
	}
	rs->gate_passed = true;
}

/* The trust record of the run, copied into the results model. */
static void trust_to_results(struct sc_results_trust *out, const struct sc_trust *t)
{
	out->config = t->config_source ? sc_xstrdup(t->config_source) : NULL;
	out->changes = sc_xcalloc(t->nchanges + 1, sizeof(*out->changes));
	out->nchanges = t->nchanges;
	for (size_t i = 0; i < t->nchanges; i++) {
		out->changes[i].key = sc_xstrdup(t->changes[i].key);
		out->changes[i].base = sc_xstrdup(t->changes[i].base);
		out->changes[i].head = sc_xstrdup(t->changes[i].head);
	}
	out->notes = sc_xcalloc(t->notes.n + 1, sizeof(char *));
	out->nnotes = t->notes.n;
	for (size_t i = 0; i < t->notes.n; i++)
		out->notes[i] = sc_xstrdup(t->notes.items[i]);
}

/*
 * The SHA-256 of the policy a check runs under, after the flags: the
 * policy keys that decide a verdict (sc_config_policy: models, runs,
 * turns, arch, the judge, the gate, the manifest's skills and the
 * provider endpoints; not where this runner keeps its cache, store and
 * fixtures, nor its own concurrency, timeouts and budget) and the models
 * evaluated. Two shards with the same hash were decided by the same rules.
 */
static void policy_hash(char out[65], const struct sc_config *cfg, const struct sc_strlist *models)
{
	static const char *const decides[] = { "models", "runs", "max_turns", "arch", "judge.",
					       "gate.", "skills[", "providers." };
	struct sc_strlist keys = { 0 }, values = { 0 };
	struct sc_buf text = SC_BUF_INIT;

	sc_config_policy(cfg, &keys, &values);
	for (size_t i = 0; i < keys.n && i < values.n; i++) {
		bool use = false;
		for (size_t d = 0; d < SC_ARRAY_SIZE(decides) && !use; d++)
			use = sc_ends_with(decides[d], ".") || sc_ends_with(decides[d], "[")
			      ? sc_starts_with(keys.items[i], decides[d])
			      : !strcmp(keys.items[i], decides[d]);
		if (!use)
			continue;
		sc_buf_printf(&text, "%zu:%s=%zu:%s\n", strlen(keys.items[i]), keys.items[i],
			      strlen(values.items[i]), values.items[i]);
	}
	sc_buf_printf(&text, "runs=%d;max_turns=%d;judge=%s\n", cfg->runs, cfg->max_turns,
		      cfg->judge_model ? cfg->judge_model : "");
	for (size_t i = 0; i < models->n; i++)
		sc_buf_printf(&text, "model=%zu:%s\n", strlen(models->items[i]), models->items[i]);
	sc_sha256_hex(out, text.ptr, text.len);
	sc_strlist_release(&keys);
	sc_strlist_release(&values);
	sc_buf_release(&text);
}

/* ---- the stages ---------------------------------------------------------- */

struct sc_pipeline *sc_pipeline_new(void)
{
	struct sc_pipeline *p = sc_xcalloc(1, sizeof(*p));

	sc_config_defaults(&p->cfg);
	sc_trust_init(&p->trust);
	sc_results_init(&p->res);
	sc_buf_init(&p->fixtures_rel);
	memset(&p->pr, 0, sizeof(p->pr));
	p->wd.lock_fd = -1;
	p->t0 = sc_now_ms();
	return p;
}

int sc_pipeline_open(struct sc_pipeline *p, const struct sc_pipeline_options *opt,
		     struct sc_diags *diags)
{
	struct sc_config *cfg = &p->cfg;
	int err;

	p->opt = *opt;
	if (p->opt.shard_n < 1)
		p->opt.shard_k = p->opt.shard_n = 1;

	/* The repository and the two revisions. */
	if (sc_git_is_url(opt->repo)) {
		if ((err = sc_trust_check_output("the clone folder", ".skillci/repos",
						 opt->workspace)) < 0)
			return err;
		err = sc_git_clone_or_fetch(&p->repo, opt->repo, ".skillci/repos");
	} else {
		err = sc_git_open(&p->repo, opt->repo);
	}
	if (err < 0)
		return err;
	if (sc_git_workdir(p->repo) && realpath(sc_git_workdir(p->repo), p->repo_real))
		p->repo_workdir = p->repo_real;
	if ((err = resolve_revs(p->base_rev, p->tip_rev, p->head_rev, &p->has_merge_base, &p->pr,
				&p->trust, p->repo, opt)) < 0)
		return err;
	if ((err = sc_git_tree_open(&p->thead, p->repo, p->head_rev)) < 0 ||
	    (p->base_rev[0] && (err = sc_git_tree_open(&p->tbase, p->repo, p->base_rev)) < 0) ||
	    (p->tip_rev[0] && (err = sc_git_tree_open(&p->ttip, p->repo, p->tip_rev)) < 0))
		return err;
	/*
	 * The commit judged is what would land: the head merged into the
	 * target's tip (GitHub's merge ref), so a branch cut before the tip's
	 * latest changes is judged with them. What changed is still the
	 * head's own diff from the merge base (find_changed). A conflict
	 * stops the run: rebase or resolve.
	 */
	if (p->tip_rev[0] && p->has_merge_base) {
		if ((err = sc_git_merge_trees(&p->tjudged, p->judged_tree, p->repo, p->base_rev,
					      p->tip_rev, p->head_rev)) < 0)
			return err;
		p->merged = strcmp(p->base_rev, p->tip_rev) != 0;
	} else if ((err = sc_git_tree_open(&p->tjudged, p->repo, p->head_rev)) < 0 ||
		   (err = sc_git_commit_tree_id(p->judged_tree, p->repo, p->head_rev)) < 0) {
		return err;
	}
	if (p->merged)
		sc_trust_note(&p->trust, "the head %.12s is judged merged into the target's tip %.12s "
			      "(tree %.12s), what would land; what changed is the head's own diff "
			      "from the merge base", p->head_rev, p->tip_rev, p->judged_tree);
	if (p->tip_rev[0] && strcmp(p->tip_rev, p->base_rev))
		sc_trust_note(&p->trust, "policy and the verdict's tests come from the target's tip "
			      "%.12s; the merge base %.12s decides only what changed", p->tip_rev,
			      p->base_rev);
	else if (p->tip_rev[0])
		sc_trust_note(&p->trust, "policy and the verdict's tests come from the target's tip "
			      "%.12s (also the merge base)", p->tip_rev);
	if ((err = sc_trust_check_output("the work folder", SC_RUN_WORK_ROOT, opt->workspace)) < 0)
		return err;
	{
		/* The work folder is this process's own, even when shards on
		 * one machine share the run id. */
		char *mine_id = sc_eval_new_run_id();
		size_t cleaned = 0;
		err = sc_workdir_create(&p->wd, SC_RUN_WORK_ROOT, mine_id, &cleaned);
		free(mine_id);
		if (err < 0)
			return err;
		p->wd_made = true;
		if (cleaned)
			sc_log(SC_LOG_INFO, "removed %zu work folder%s left by runs that were killed",
			       cleaned, cleaned == 1 ? "" : "s");
	}

	/* The policy: the base revision's configuration, never the head's. */
	{
		struct sc_trust_config_in in;
		struct sc_buf scratch = SC_BUF_INIT;
		memset(&in, 0, sizeof(in));
		sc_path_join(&scratch, p->wd.path, "config");
		in.base = p->ttip;
		in.head = p->tjudged;  /* the head's own changes to it, merged */
		in.base_rev = p->tip_rev;
		in.head_rev = p->head_rev;
		in.repo_workdir = p->repo_workdir;
		in.explicit_path = opt->config;
		in.scratch = scratch.ptr;
		sc_config_release(cfg);
		err = sc_trust_load_config(cfg, &p->trust, &in, diags);
		sc_buf_release(&scratch);
	}
	if (err < 0)
		return err;
	if (sc_diags_count(diags, SC_SEV_ERROR))
		return sc_config_errors_fail(diags);
	/*
	 * Named endpoints and fast-agent's provider settings come from the
	 * configuration loaded above and from nothing else: the file the check
	 * trusts for policy decides which servers get requests and keys.
	 */
	if ((err = sc_config_apply_providers(cfg)) < 0)
		return err;
	cfg->gate.deletion_labelled = cfg->gate.deletion_label[0] &&
				      sc_ghpr_has_label(&p->pr, cfg->gate.deletion_label);

	/* Flags override the config. --compile-only is the workflow's own
	 * word (trusted) that this runner runs no kernel. */
	if (opt->compile_only)
		cfg->gate.compile_only = true;
	if (opt->runs) {
		cfg->runs = opt->runs;
		cfg->gate.max_runs = 0;  /* --runs N: a fixed design of N runs */
	}
	if (opt->concurrency)
		cfg->concurrency = opt->concurrency;
	if (opt->max_units)
		cfg->max_units = opt->max_units;
	if (opt->max_requests)
		cfg->max_requests = opt->max_requests;
	if (!opt->fixtures) {
		/* the manifest's fixtures mark their skills changed by repository path */
		const char *f = cfg->fixtures_dir;
		while (f[0] == '.' && f[1] == '/')
			f += 2;
		sc_buf_puts(&p->fixtures_rel, f);
	}
	if ((err = sc_trust_fixtures(&p->fixtures_dir, opt->fixtures ? opt->fixtures
							: cfg->fixtures_dir,
				     opt->fixtures != NULL, p->ttip, p->tjudged, p->repo_workdir,
				     p->wd.path, &p->trust, diags)) < 0)
		return err;
	free(cfg->fixtures_dir);
	cfg->fixtures_dir = sc_xstrdup(p->fixtures_dir);
	sc_trust_models(&p->model_names, opt->models, opt->nmodels, &cfg->models, &p->trust);
	if (p->model_names.n == 0)
		return sc_error_set(SC_EINVAL, "name a model with -m or list models: in the base "
				    "revision's skillci.yml");
	if (p->model_names.n > MAX_MODELS)
		return sc_error_set(SC_EINVAL, "at most %d models", MAX_MODELS);
	p->models = sc_xcalloc(p->model_names.n, sizeof(*p->models));
	for (size_t i = 0; i < p->model_names.n; i++) {
		if ((err = sc_model_parse(&p->models[i], p->model_names.items[i])) < 0)
			return err;
		p->nmodels++;
	}
	p->cache_dir = opt->no_cache || cfg->cache_mode == SC_CACHE_OFF ? NULL
		       : opt->cache ? opt->cache : cfg->cache_dir;
	policy_hash(p->config_hash, cfg, &p->model_names);
	return 0;
}

const struct sc_config *sc_pipeline_config(const struct sc_pipeline *p)
{
	return &p->cfg;
}

/* The changed skills: fixtures and test files named in the manifest mark
 * their skill. The configuration files mark nothing: the head's are not
 * applied, so changing them alone changes no skill. */
static int find_changed(struct sc_pipeline *p)
{
	const struct sc_config *cfg = &p->cfg;
	struct sc_changed_extra *extra;
	struct sc_strlist prefixes = { 0 };
	struct sc_buf tmp = SC_BUF_INIT;
	size_t nextra = 0;
	int err;

	for (size_t i = 0; i < cfg->nskills; i++)
		nextra += cfg->skills[i].fixtures.n + cfg->skills[i].tests.n;
	extra = sc_xcalloc(nextra ? nextra : 1, sizeof(*extra));
	for (size_t i = 0; i < cfg->nskills; i++)
		for (size_t f = 0; f < cfg->skills[i].fixtures.n && p->fixtures_rel.len; f++) {
			sc_buf_clear(&tmp);
			sc_path_join(&tmp, p->fixtures_rel.ptr, cfg->skills[i].fixtures.items[f]);
			sc_strlist_add(&prefixes, tmp.ptr);
		}
	nextra = 0;
	for (size_t i = 0, k = 0; i < cfg->nskills; i++) {
		for (size_t f = 0; f < cfg->skills[i].fixtures.n && p->fixtures_rel.len; f++) {
			extra[nextra].prefix = prefixes.items[k++];
			extra[nextra++].skill_path = cfg->skills[i].skill;
		}
		for (size_t f = 0; f < cfg->skills[i].tests.n; f++) {
			extra[nextra].prefix = cfg->skills[i].tests.items[f];
			extra[nextra++].skill_path = cfg->skills[i].skill;
		}
	}
	{
		static const char *const no_globals[1] = { NULL };
		struct sc_changed_opts copts;
		memset(&copts, 0, sizeof(copts));
		copts.extra = extra;
		copts.nextra = nextra;
		copts.global_files = no_globals;
		copts.nglobal = 0;
		err = sc_changed_compute(&p->changed, p->tbase, p->thead, sc_git_name(p->repo), &copts);
	}
	free(extra);
	sc_strlist_release(&prefixes);
	sc_buf_release(&tmp);
	return err;
}

/*
 * A skill deleted at head whose path holds something else (a file, a
 * symbolic link, a submodule, a folder without SKILL.md) gets an error
 * finding at head naming what stands there: a pull request cannot turn
 * a skill into a link to another and call it a deletion.
 */
static int what_stands(struct side *h, struct sc_git_tree *head, const char *path)
{
	enum sc_git_kind kind;
	const char *what = NULL;
	int err;

	if (!strcmp(path, ".") || (err = sc_git_path_kind(&kind, head, path)) < 0)
		return strcmp(path, ".") ? err : 0;
	switch (kind) {
	case SC_GIT_KIND_NONE: return 0;
	case SC_GIT_KIND_DIR: what = "a folder without SKILL.md"; break;
	case SC_GIT_KIND_FILE: what = "a file"; break;
	case SC_GIT_KIND_LINK: what = "a symbolic link"; break;
	case SC_GIT_KIND_GITLINK: what = "a submodule"; break;
	}
	sc_diags_add(&h->findings, SC_SEV_ERROR, path, 0, "skill-not-a-folder",
		     "the skill's path is %s at head, not a skill folder", what);
	return 0;
}

/*
 * A skill's name is unique in the repository at head: each changed skill
 * whose head is loaded gets an error finding when another skill at head
 * has the same name (a student could load either).
 */
static int duplicate_names(struct sc_pipeline *p)
{
	struct sc_git_skills all = SC_GIT_SKILLS_INIT;
	char **names = NULL;
	size_t nloaded = 0;
	int err;

	for (size_t i = 0; i < p->changed.n; i++)
		nloaded += p->sides[3 * i].loaded && p->sides[3 * i].skill.name;
	if (!nloaded)
		return 0;
	if ((err = sc_git_list_skills(&all, p->tjudged)) < 0)
		goto done;
	names = sc_xcalloc(all.n ? all.n : 1, sizeof(*names));
	for (size_t k = 0; k < all.n; k++)
		if ((err = sc_changed_skill_name(&names[k], p->tjudged, all.items[k].path,
						 all.items[k].lowercase)) < 0)
			goto done;
	for (size_t i = 0; i < p->changed.n; i++) {
		struct side *h = &p->sides[3 * i];
		const struct sc_changed_skill *cs = &p->changed.items[i];
		const char *mine = strcmp(cs->path, ".") ? cs->path : "";
		struct sc_buf others = SC_BUF_INIT, md = SC_BUF_INIT;
		if (!h->loaded || !h->skill.name)
			continue;
		for (size_t k = 0; k < all.n; k++)
			if (names[k] && !strcmp(names[k], h->skill.name) && strcmp(all.items[k].path, mine))
				sc_buf_printf(&others, "%s%s", others.len ? ", " : "",
					      *all.items[k].path ? all.items[k].path : ".");
		if (others.len) {
			if (*mine)
				sc_path_join(&md, mine, cs->lowercase ? "skill.md" : "SKILL.md");
			else
				sc_buf_puts(&md, cs->lowercase ? "skill.md" : "SKILL.md");
			sc_diags_add(&h->findings, SC_SEV_ERROR, md.ptr, 0, "skill-duplicate-name",
				     "the name '%s' is also the name of %s at head: a student could load "
				     "either; give each skill its own name", h->skill.name, others.ptr);
		}
		sc_buf_release(&others);
		sc_buf_release(&md);
	}
done:
	for (size_t k = 0; names && k < all.n; k++)
		free(names[k]);
	free(names);
	sc_git_skills_release(&all);
	return err;
}

/* Writes out and loads both sides of every changed skill; the results
 * entry of each, its findings compared across the sides. */
static int load_sides(struct sc_pipeline *p)
{
	const struct sc_changed *changed = &p->changed;
	int err;

	p->sides = sc_xcalloc(changed->n ? 3 * changed->n : 1, sizeof(*p->sides));
	for (size_t i = 0; i < changed->n; i++) {
		const struct sc_changed_skill *cs = &changed->items[i];
		struct side *h = &p->sides[3 * i], *b = &p->sides[3 * i + 1], *t = &p->sides[3 * i + 2];
		h->es.variant = SC_VARIANT_HEAD;
		h->baseline = true;
		b->es.variant = SC_VARIANT_BASE;
		t->es.variant = SC_VARIANT_HEAD_TESTS;
		if (cs->status != SC_CHANGE_DELETED && cs->head_tree[0] &&
		    (err = load_side(h, p->tjudged, cs->path, p->wd.path, "head", cs->path, &p->cfg,
				     true)) < 0 &&
		    (err = side_unreadable(h, err, cs->path)) < 0)
			return err;
		if (cs->status != SC_CHANGE_DELETED && cs->status != SC_CHANGE_ADDED &&
		    cs->base_tree[0]) {
			/* the verdict's tests: the target's tip, where the skill is there */
			const char *bp = cs->old_path ? cs->old_path : cs->path;
			struct sc_git_tree *bt = p->tbase;
			struct sc_git_probe pr;
			if (p->ttip && (err = sc_git_probe(&pr, p->ttip, strcmp(bp, ".") ? bp : "")) < 0)
				return err;
			if (p->ttip && pr.is_skill)
				bt = p->ttip;
			if ((err = load_side(b, bt, bp, p->wd.path, "base", cs->path, &p->cfg,
					     false)) < 0 &&
			    (err = side_unreadable(b, err, cs->path)) < 0)
				return err;
		}
		if (cs->status == SC_CHANGE_DELETED && (err = what_stands(h, p->tjudged, cs->path)) < 0)
			return err;
		wire_sides(h, b, t);
		/* the head's own kernel tests run only against fixtures the
		 * base revision has pinned */
		if (h->loaded && (!b->loaded || h->first_tests))
			sc_trust_drop_unknown_fixtures(&h->tests, p->cfg.fixtures_dir,
						       p->opt.allow_unpinned, cs->path, &p->trust);
		if (t->loaded &&
		    sc_trust_drop_unknown_fixtures(&t->tests, p->cfg.fixtures_dir,
						   p->opt.allow_unpinned, cs->path, &p->trust) &&
		    t->tests.n == 0)
			t->loaded = false;
	}
	if ((err = duplicate_names(p)) < 0)
		return err;
	p->res.skills = sc_xcalloc(changed->n ? changed->n : 1, sizeof(*p->res.skills));
	p->res.nskills = changed->n;
	for (size_t i = 0; i < changed->n; i++) {
		struct sc_results_skill *rs = &p->res.skills[i];
		const struct side *h = &p->sides[3 * i], *b = &p->sides[3 * i + 1];
		fill_skill(rs, &changed->items[i], h, b);
		sc_findings_compare(rs, b->loaded || b->unreadable ? &b->findings : NULL,
				    &h->findings);
	}
	return 0;
}

/* The kernel harness, when a side runs a kernel test. */
static int setup_kernels(struct sc_pipeline *p)
{
	size_t n3 = 3 * p->changed.n, nsets = 0;
	const struct sc_test_set **sets = sc_xcalloc(n3 ? n3 : 1, sizeof(*sets));
	int err;

	for (size_t i = 0; i < n3; i++)
		if (p->sides[i].loaded)
			sets[nsets++] = p->sides[i].es.tests;  /* the tests it runs */
	sc_kernelops_init(&p->kops, p->cfg.fixtures_dir, p->cfg.arch, p->opt.compile_only,
			  p->cfg.kernel_timeout_s > 0 ? (int)p->cfg.kernel_timeout_s : 300);
	p->kops_ready = true;
	err = sc_kernelops_setup(&p->kops, &p->kernel, sets, nsets, p->opt.allow_unpinned);
	free(sets);
	return err;
}

/*
 * The plan: every unit of every shard (so all shards compute the same
 * plan and hash), then this shard's units, in plan order (sorted by id, so
 * each skill's units are together), as references for the one streaming
 * evaluation: the sides are its skills, a baseline unit belongs to its
 * head side. The plan itself is freed: its hash and size are kept.
 */
/*
 * The PR's pass-rate checks, known before any unit runs: every changed
 * skill with tests at base and a readable head, times the models. The
 * sequential design splits its false-fail error over them.
 */
/*
 * The check the design decides for changed skill i (per model): a
 * modified or moved skill with tests at base and a readable head, base
 * against head (CHECK_PASS_RATE); an added skill with tests under
 * gate.require_lift, no skill against the skill (CHECK_LIFT); else none.
 */
enum check_kind { CHECK_NONE, CHECK_PASS_RATE, CHECK_LIFT };

static enum check_kind check_kind(const struct sc_pipeline *p, size_t i)
{
	const struct side *h = &p->sides[3 * i], *b = &p->sides[3 * i + 1];

	if (!h->loaded || !h->es.tests || !h->es.tests->n)
		return b->loaded && b->es.tests && b->es.tests->n && h->loaded ? CHECK_PASS_RATE
										: CHECK_NONE;
	if (b->loaded && b->es.tests && b->es.tests->n)
		return CHECK_PASS_RATE;
	/* an added skill, or the first tests of one (judged as new) */
	if ((p->changed.items[i].status == SC_CHANGE_ADDED || h->first_tests) &&
	    p->cfg.gate.require_lift)
		return CHECK_LIFT;
	return CHECK_NONE;
}

/* The tests of changed skill i's check: the base's (a modified skill is
 * judged on them), else the head's. */
static size_t check_tests(const struct sc_pipeline *p, size_t i)
{
	const struct side *h = &p->sides[3 * i], *b = &p->sides[3 * i + 1];

	if (b->loaded && b->es.tests && b->es.tests->n)
		return b->es.tests->n;
	return h->loaded && h->es.tests ? h->es.tests->n : 0;
}

static void cfg_gate_planned(struct sc_pipeline *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->changed.n; i++)
		if (check_kind(p, i) != CHECK_NONE)
			n += p->nmodels;
	p->cfg.gate.planned_checks = n;
}

/* ---- history ------------------------------------------------------------- */

/* The stored units of one side and model, counted per test of its set. */
struct flip_acc {
	const struct sc_store *store;
	const char *hash;           /* the side's skill content hash */
	char (*th)[65];             /* sc_test_hash of each test */
	size_t ntests;
	int64_t *runs, *passes;
};

static int flip_unit(const struct sc_store_unit *u, void *payload)
{
	struct flip_acc *a = payload;
	enum sc_unit_verdict v;  /* as stored */
	bool pass;

	if (strcmp(u->skill_hash, a->hash) || !sc_unit_verdict_parse(u->verdict, &v) ||
	    (v != SC_UNIT_PASS && v != SC_UNIT_FAIL))
		return 0;
	pass = v == SC_UNIT_PASS;
	if (sc_store_unit_verify(a->store, u) < 0) {
		sc_error_clear();
		return 0;  /* a row this runner cannot vouch for is no history */
	}
	for (size_t t = 0; t < a->ntests; t++)
		if (!strcmp(u->test_hash, a->th[t])) {
			a->runs[t]++;
			a->passes[t] += pass;
			break;
		}
	return 0;
}

/*
 * Per-test flip rates from the store's history (docs/evaluation.md,
 * "History"): for every changed skill's base and head content, model and
 * test of the base's set, the judged units stored before this run with
 * the same skill content hash, test hash and model. Into res.flips.
 */
static int collect_history(struct sc_pipeline *p)
{
	size_t alloc = 0;
	int err = 0;

	if (!p->store)
		return 0;
	for (size_t i = 0; i < p->changed.n; i++) {
		for (int v = 1; v >= 0; v--) {  /* base, then head */
			const struct side *s = &p->sides[3 * i + (size_t)v];
			const struct sc_test_set *set = s->es.tests;
			struct flip_acc a;
			if (!s->loaded || !set || !set->n || !s->hash[0])
				continue;
			a.store = p->store;
			a.hash = s->hash;
			a.ntests = set->n;
			a.th = sc_xcalloc(set->n, sizeof(*a.th));
			a.runs = sc_xcalloc(set->n, sizeof(*a.runs));
			a.passes = sc_xcalloc(set->n, sizeof(*a.passes));
			for (size_t t = 0; t < set->n; t++)
				sc_test_hash(a.th[t], &set->items[t]);
			for (size_t m = 0; m < p->nmodels && err >= 0; m++) {
				struct sc_store_unit_filter f = { s->es.path, p->models[m].name, NULL, false };
				memset(a.runs, 0, set->n * sizeof(*a.runs));
				memset(a.passes, 0, set->n * sizeof(*a.passes));
				if ((err = sc_store_each_unit(p->store, &f, flip_unit, &a)) < 0)
					break;
				for (size_t t = 0; t < set->n; t++) {
					struct sc_results_flips *fl;
					if (!a.runs[t])
						continue;
					SC_GROW(p->res.flips, alloc, p->res.nflips + 1);
					fl = &p->res.flips[p->res.nflips++];
					fl->skill = sc_xstrdup(s->es.path);
					fl->variant = v ? SC_VARIANT_BASE : SC_VARIANT_HEAD;
					fl->model = sc_xstrdup(p->models[m].name);
					fl->test_id = sc_xstrdup(set->items[t].id);
					fl->runs = a.runs[t];
					fl->passes = a.passes[t];
					fl->flip_rate = sc_results_flip_rate(a.passes[t], a.runs[t]);
				}
			}
			free(a.th); free(a.runs); free(a.passes);
			if (err < 0)
				return err;
		}
	}
	sc_results_sort_flips(&p->res);
	return 0;
}

/*
 * Whether the store knows test of skill as stable at base for model: at
 * least SC_SEQ_STABLE_RUNS judged runs, all with one outcome. The
 * planner's first round then runs it once at head.
 */
static bool stable_at_base(const struct sc_pipeline *p, const char *skill, const char *model,
			   const char *test_id)
{
	size_t first, n = sc_results_flips_range(&p->res, skill, SC_VARIANT_BASE, model, &first);

	for (size_t i = first; i < first + n; i++) {
		const struct sc_results_flips *f = &p->res.flips[i];
		if (sc_streq(f->test_id, test_id))
			return f->runs >= SC_SEQ_STABLE_RUNS && (f->passes == 0 || f->passes == f->runs);
	}
	return false;
}

/* The requests of a unit of test that a judge and a grader make. */
static int grading_requests(const struct sc_config *cfg, const struct sc_test *test)
{
	return (cfg->judge_model ? 1 : 0) + (cfg->grader_model && sc_test_needs_grader(test) ? 1 : 0);
}

/*
 * The evaluation's options for this run: what decides a unit's store key
 * (models, turns, agent, judge, grader, kernel mode), reuse and the
 * store, and the client (NULL before sc_pipeline_evaluate). The plan's
 * look-up of stored units and the evaluation read the same options.
 */
static void eval_options(struct sc_eval_options *eopt, const struct sc_pipeline *p)
{
	const struct sc_config *cfg = &p->cfg;

	sc_eval_options_init(eopt);
	eopt->models = (const char *const *)p->model_names.items;
	eopt->nmodels = p->nmodels;
	eopt->runs = cfg->runs;
	eopt->max_turns = cfg->max_turns;
	eopt->agent = &cfg->agent;
	eopt->judge_model = cfg->judge_model;
	eopt->grader_model = cfg->grader_model;
	eopt->judge_rubric = cfg->judge_rubric;
	eopt->reuse = !p->opt.no_reuse;
	eopt->kernel = p->kernel;
	eopt->kernel_jobs = p->opt.jobs ? p->opt.jobs : sc_kernelops_default_jobs(&p->kops);
	eopt->run_id = p->opt.run_id;
	eopt->kind = SC_RUN_KIND_RUN;
	eopt->store = p->store;
	eopt->client = p->client;
	eopt->progress = p->opt.on_unit;
	eopt->activity = p->opt.on_activity;
	eopt->stop = p->opt.stop;
	eopt->payload = p->opt.payload;
}

/*
 * Which of the plan's refs the store answers (sc_eval_stored_units: the
 * key the evaluation looks each up by), in *out (one per ref; the caller
 * frees it). The sides go to p->es here, in the order side_of() numbers
 * them, for this and for the evaluation. Returns 0 or the store's error:
 * a store that cannot be read stops the run, as it would in eval.
 */
static int count_stored(struct sc_pipeline *p, bool **out)
{
	struct sc_eval_options eopt;
	size_t n3 = 3 * p->changed.n, nstored;

	p->es = sc_xcalloc(n3 ? n3 : 1, sizeof(*p->es));
	for (size_t i = 0; i < n3; i++) {
		p->es[i] = p->sides[i].es;
		if (!p->sides[i].loaded)
			p->es[i].skill = NULL;  /* no unit of it runs */
	}
	*out = sc_xcalloc(p->nrefs ? p->nrefs : 1, sizeof(**out));
	eval_options(&eopt, p);
	return sc_eval_stored_units(*out, &nstored, p->es, n3, p->refs, p->nrefs, &eopt);
}

static int make_plan(struct sc_pipeline *p)
{
	const struct sc_config *cfg = &p->cfg;
	struct sc_plan plan = SC_PLAN_INIT;
	struct sc_buf tmp = SC_BUF_INIT;
	size_t *user = NULL;  /* bytes of each test's user message, per side */
	size_t *unit_of = NULL;  /* per ref: its unit in plan */
	bool *stored = NULL;     /* per ref: the store answers it */
	int err = 0;

	bool seq = cfg->gate.max_runs > 0;
	struct sc_seq_design design;

	cfg_gate_planned(p);
	sc_gate_design(&design, &cfg->gate, cfg->gate.planned_checks);
	for (size_t i = 0; i < 3 * p->changed.n; i++) {
		const struct side *s = &p->sides[i], *h = &p->sides[i - i % 3];
		enum check_kind kind = check_kind(p, i / 3);
		/* the sides of a check up to the design's cap (a fixed design:
		 * runs); the head's own tests, which decide nothing, one round;
		 * the no-skill baseline of a modified skill, shown in the report
		 * and deciding nothing, one run */
		int round = seq ? cfg->gate.first_runs : 1;
		int runs = i % 3 == 2 || kind == CHECK_NONE ? round
			   : seq ? sc_seq_runs_needed(&design, check_tests(p, i / 3)) : cfg->runs;
		int base_runs = kind == CHECK_LIFT ? runs : kind == CHECK_PASS_RATE ? 1 : round;
		struct sc_skill_prompt_size sz;  /* the system prompt as it is sent */
		if (!s->loaded || !h->loaded || s->es.tests->n == 0)
			continue;  /* deleted, unreadable, or nothing to run */
		sc_skill_prompt_size(&sz, s->es.skill);
		/* each test's user message exactly as it is sent, built once */
		user = sc_xrealloc(user, (s->es.tests->n + 1) * sizeof(*user));
		for (size_t t = 0; t < s->es.tests->n; t++) {
			sc_buf_clear(&tmp);
			sc_eval_unit_prompt(&tmp, &s->es.tests->items[t], p->kernel);
			user[t] = tmp.len;
		}
		for (size_t m = 0; m < p->nmodels; m++)
			for (size_t t = 0; t < s->es.tests->n; t++) {
				const struct sc_test *test = &s->es.tests->items[t];
				/* the most requests a unit makes: its turns (kernel
				 * tests feed errors back), and one judge request */
				bool agent = sc_agent_runs_test(test, cfg->agent.mode);
				int cost = (sc_test_is_kernel(test) || agent ? cfg->max_turns : 1) +
					   grading_requests(cfg, test);
				/* an agent's turns grow the prompt by its tool results, bounded
				 * by the agent's caps (budget.h) */
				int64_t growth = agent ? sc_budget_agent_growth(cfg->agent.max_calls_per_turn,
										cfg->agent.tool_output_max) : 0;
				size_t bytes = user[t];
				char th[65];
				sc_test_hash(th, test);
				for (int r = 0; r < runs; r++) {
					sc_buf_clear(&tmp);
					sc_buf_printf(&tmp, "%s|%s", s->hash, th);
					sc_plan_add(&plan, s->es.path, s->es.variant, p->models[m].name,
						    test->id, r, tmp.ptr);
					plan.units[plan.n - 1].requests = cost;
					plan.units[plan.n - 1].growth = growth;
					plan.units[plan.n - 1].prompt_bytes = bytes + sz.total;
					plan.units[plan.n - 1].system_bytes = sz.total;
					if (s->baseline && r < base_runs) {
						sc_buf_clear(&tmp);
						sc_buf_printf(&tmp, "%s|%s", SC_STORE_NO_SKILL, th);
						sc_plan_add(&plan, s->es.path, SC_VARIANT_BASELINE, p->models[m].name,
							    test->id, r, tmp.ptr);
						plan.units[plan.n - 1].requests = cost;
						plan.units[plan.n - 1].growth = growth;
						plan.units[plan.n - 1].prompt_bytes = bytes;
					}
				}
			}
		if (plan.n > SC_MAX_RUN_UNITS) {
			err = sc_error_set(SC_EINVAL, "the plan has more than %d units; lower runs or "
					   "models", SC_MAX_RUN_UNITS);
			goto done;
		}
	}
	sc_buf_clear(&tmp);
	sc_buf_printf(&tmp, "runs=%d;turns=%d;harness=%s;judge=%s", cfg->runs, cfg->max_turns,
		      SC_EVAL_HARNESS_VERSION, cfg->judge_model ? cfg->judge_model : "");
	if (cfg->grader_model)
		sc_buf_printf(&tmp, ";grader=%s", cfg->grader_model);
	if (cfg->agent.mode != SC_AGENT_AUTO)
		sc_buf_printf(&tmp, ";agent=%s", sc_agent_mode_name(cfg->agent.mode));
	if (seq)
		sc_buf_printf(&tmp, ";first_runs=%d;max_runs=%d", cfg->gate.first_runs,
			      cfg->gate.max_runs);
	if ((err = sc_plan_finish(&plan, tmp.ptr)) < 0)
		goto done;
	p->refs = sc_xcalloc(plan.n ? plan.n : 1, sizeof(*p->refs));
	unit_of = sc_xcalloc(plan.n ? plan.n : 1, sizeof(*unit_of));
	for (size_t u = 0; u < plan.n; u++) {
		const struct sc_plan_unit *pu = &plan.units[u];
		size_t si = side_of(&p->changed, pu->skill, pu->variant), t;
		struct sc_eval_unit_ref *ref = &p->refs[p->nrefs];
		if (si == SIZE_MAX || !p->sides[si].loaded)
			continue;
		if (p->opt.shard_n > 1 &&
		    sc_plan_shard_of(seq ? pu->skill : pu->id, p->opt.shard_n) != p->opt.shard_k)
			continue;  /* sequential: every unit of a skill in one shard */
		t = test_index(p->sides[si].es.tests, pu->test_id);
		assert(t != SIZE_MAX);
		ref->skill = (uint32_t)si;
		ref->test = (uint32_t)t;
		ref->baseline = pu->variant == SC_VARIANT_BASELINE;
		ref->run = pu->run;
		for (size_t m = 0; m < p->nmodels; m++)
			if (!strcmp(p->models[m].name, pu->model))
				ref->model = (uint16_t)m;
		unit_of[p->nrefs++] = u;
	}
	if ((err = count_stored(p, &stored)) < 0)
		goto done;
	for (size_t r = 0; r < p->nrefs; r++) {
		const struct sc_plan_unit *pu = &plan.units[unit_of[r]];
		const struct sc_eval_unit_ref *ref = &p->refs[r];
		const struct sc_model *model = &p->models[ref->model];
		const struct sc_test *test = &p->sides[ref->skill].es.tests->items[ref->test];
		if (stored[r]) {
			/* the store answers it (the same key eval looks it up by): nothing sent */
			sc_budget_add_reused_unit(&p->cost);
			continue;
		}
		if (model->kind == SC_PROVIDER_ORACLE)
			/* the oracle answers here: only a judge or grader sends */
			sc_budget_add_unsent_unit(&p->cost, &cfg->budget, pu->id, model->id, pu->model,
						  pu->prompt_bytes, grading_requests(cfg, test),
						  model->max_tokens);
		else
			sc_budget_add_unit_growth(&p->cost, &cfg->budget, pu->id, model->id, pu->model,
						  pu->prompt_bytes, pu->requests, model->max_tokens,
						  pu->growth);
		if (p->cost.over_cap == 1 && !p->cost.over_cap_note) {
			struct sc_skill_prompt_size sz;
			memset(&sz, 0, sizeof(sz));
			if (!ref->baseline)
				sc_skill_prompt_size(&sz, p->sides[ref->skill].es.skill);
			sc_budget_note_over_cap(&p->cost, pu->system_bytes, sz.body, sz.listed,
						sz.listing, pu->prompt_bytes - pu->system_bytes);
		}
		p->need_requests += pu->requests;
	}
	memcpy(p->plan_hash, plan.hash, sizeof(p->plan_hash));
	p->plan_units = plan.n;
done:
	free(stored);
	free(unit_of);
	free(user);
	sc_plan_release(&plan);
	sc_buf_release(&tmp);
	return err;
}

int sc_pipeline_prepare(struct sc_pipeline *p, struct sc_store *store, struct sc_buf *budget_line)
{
	int err;

	p->store = store;
	if ((err = find_changed(p)) < 0 || (err = load_sides(p)) < 0 ||
	    (err = setup_kernels(p)) < 0 || (err = make_plan(p)) < 0 ||
	    (err = collect_history(p)) < 0)
		return err;
	{
		/* the budget, before the first request */
		struct sc_trust_budget bud = { p->nrefs, p->need_requests, p->cfg.max_units,
					       p->cfg.max_requests };
		if ((err = sc_trust_budget_check(&bud, budget_line)) < 0)
			return err;
		return sc_budget_check(&p->cost, &p->cfg.budget, budget_line);
	}
}

/* The first round leaves out a head unit past run 0 of a test the store
 * knows as stable at base: once at head for now. */
static bool defer_stable(const struct sc_eval_unit_ref *ref, void *payload)
{
	const struct sc_pipeline *p = payload;

	return ref->run > 0 && !ref->baseline && ref->skill % 3 == 0 &&
	       stable_at_base(p, p->sides[ref->skill].es.path, p->models[ref->model].name,
			      p->sides[ref->skill].es.tests->items[ref->test].id);
}

/*
 * Sequential sampling (sequential.h) through the shared rounds stage
 * (rounds.h): a check per changed skill with tests at base and a readable
 * head, times the models, comparing base and head; its units are the
 * base and head units of the plan (the baseline and the head's own tests
 * belong to no check: one round). The first round is every unit of the
 * plan with a run index below gate.first_runs, except that a test the
 * store knows as stable at base runs once at head.
 */
static int evaluate_rounds(struct sc_pipeline *p, const struct sc_eval_options *eopt)
{
	const struct sc_config *cfg = &p->cfg;
	struct sc_seq_design d;
	struct sc_rounds rd;
	struct sc_rounds_stats st;
	struct sc_rounds_check *checks = sc_xcalloc(p->changed.n * p->nmodels + 1, sizeof(*checks));
	size_t *check_at = sc_xcalloc(p->changed.n * p->nmodels + 1, sizeof(*check_at));
	size_t *check_of = sc_xcalloc(p->nrefs ? p->nrefs : 1, sizeof(*check_of));
	size_t nchecks = 0;
	int err;

	sc_gate_design(&d, &cfg->gate, cfg->gate.planned_checks);  /* as the gate replays it */
	for (size_t i = 0; i < p->changed.n; i++) {
		const struct side *h = &p->sides[3 * i];
		enum check_kind kind = check_kind(p, i);
		for (size_t m = 0; m < p->nmodels; m++) {
			check_at[i * p->nmodels + m] = kind != CHECK_NONE ? nchecks : SC_ROUNDS_NONE;
			if (kind == CHECK_NONE)
				continue;
			checks[nchecks].skill = h->es.path;
			checks[nchecks].model = p->models[m].name;
			checks[nchecks].base = kind == CHECK_LIFT ? SC_VARIANT_BASELINE : SC_VARIANT_BASE;
			checks[nchecks].head = SC_VARIANT_HEAD;
			nchecks++;
		}
	}
	for (size_t u = 0; u < p->nrefs; u++) {
		const struct sc_eval_unit_ref *ref = &p->refs[u];
		size_t i = ref->skill / 3;
		bool lift = check_kind(p, i) == CHECK_LIFT;
		check_of[u] = (ref->baseline && !lift) || ref->skill % 3 == 2 ? SC_ROUNDS_NONE
			    : check_at[i * p->nmodels + ref->model];
	}
	memset(&rd, 0, sizeof(rd));
	rd.design = &d;
	rd.checks = checks;
	rd.nchecks = nchecks;
	rd.refs = p->refs;
	rd.nrefs = p->nrefs;
	rd.check_of = check_of;
	rd.defer = defer_stable;
	rd.payload = p;
	rd.skills = p->es;
	rd.nskills = 3 * p->changed.n;
	rd.eopt = eopt;
	err = sc_rounds_run(&p->res, &st, &rd);
	p->stats = st.eval;
	p->sent = st.sent;
	free(checks);
	free(check_at);
	free(check_of);
	return err;
}

void sc_pipeline_client_options(struct sc_client_options *copt, const struct sc_config *cfg,
				const char *cache_dir, bool offline, int retries)
{
	sc_client_options_init(copt);
	copt->cache_dir = cache_dir;
	copt->cache_mode = offline ? SC_CACHE_OFFLINE : cfg->cache_mode;
	copt->max_total = cfg->concurrency;
	for (int k = 0; k < sc_provider_count(); k++)
		copt->per_provider[k] = sc_config_provider_limit(cfg, sc_provider_name(k));
	copt->max_attempts = retries + 1;
	if (cfg->request_timeout_s > 0)
		copt->timeout_ms = (int64_t)(cfg->request_timeout_s * 1000);
}

int sc_pipeline_evaluate(struct sc_pipeline *p)
{
	const struct sc_config *cfg = &p->cfg;
	struct sc_eval_options eopt;
	struct sc_client_options copt;
	size_t n3 = 3 * p->changed.n;
	int err;

	/* One client for the whole run: its total and per-provider bounds and
	 * its 429 limiter hold for every request. */
	sc_pipeline_client_options(&copt, cfg, p->cache_dir, p->opt.offline, p->opt.retries);
	if (p->cache_dir && (err = sc_mkdir_p(p->cache_dir)) < 0)
		return err;
	if ((err = sc_client_new(&p->client, &copt)) < 0)
		return err;

	eval_options(&eopt, p);
	p->res.run.started_at = sc_eval_now_iso();
	free(p->res.run.id);
	p->res.run.id = sc_xstrdup(p->opt.run_id);
	if (cfg->gate.max_runs <= 0) {
		p->sent = p->nrefs;
		return sc_eval_run_units(&p->res, &p->stats, p->es, n3, p->refs, p->nrefs, &eopt);
	}
	return evaluate_rounds(p, &eopt);
}

int sc_pipeline_finish(struct sc_pipeline *p, int *gate_rc)
{
	const struct sc_config *cfg = &p->cfg;
	struct sc_results *res = &p->res;
	bool stopped = p->stats.stopped && res->nunits < p->sent;
	struct sc_buf tmp = SC_BUF_INIT;
	int shard_k = p->opt.shard_k, shard_n = p->opt.shard_n;

	res->schema = sc_xstrdup(SC_RESULTS_SCHEMA);
	res->skillci_version = sc_xstrdup(SC_VERSION);
	res->harness_version = sc_xstrdup(SC_EVAL_HARNESS_VERSION);
	if (!res->run.id)
		res->run.id = sc_xstrdup(p->opt.run_id);
	if (!res->run.started_at)
		res->run.started_at = sc_eval_now_iso();
	res->run.kind = SC_RUN_KIND_RUN;
	res->run.finished_at = sc_eval_now_iso();
	res->run.complete = !stopped && shard_n == 1;
	if (stopped) {
		sc_buf_printf(&tmp, "interrupted by %s: %zu of %zu units evaluated",
			      sc_signals_which() ? sc_signals_name(sc_signals_which()) : "a stop request",
			      res->nunits, p->nrefs);
		res->run.incomplete_reason = sc_buf_detach(&tmp, NULL);
	} else if (shard_n > 1) {
		sc_buf_printf(&tmp, "shard %d/%d of a sharded run: merge every shard with skillci merge",
			      shard_k, shard_n);
		res->run.incomplete_reason = sc_buf_detach(&tmp, NULL);
	}
	/* In Actions a checkout given as a folder is GITHUB_REPOSITORY
	 * (owner/name): what the history page links a run's commit in */
	{
		const char *gh = in_actions() ? getenv("GITHUB_REPOSITORY") : NULL;
		bool url = strstr(p->opt.repo, "://") != NULL;
		res->run.repo = sc_xstrdup(!url && gh && strchr(gh, '/') && !strpbrk(gh, " :\"'<>")
					   ? gh : p->opt.repo);
	}
	res->run.base_rev = dup_or_null(p->base_rev);
	res->run.head_rev = sc_xstrdup(p->head_rev);
	res->run.models = sc_xcalloc(p->nmodels ? p->nmodels : 1, sizeof(char *));
	res->run.resolved_models = sc_xcalloc(p->nmodels ? p->nmodels : 1, sizeof(char *));
	res->run.nmodels = res->run.nresolved_models = p->nmodels;
	for (size_t m = 0; m < p->nmodels; m++) {
		res->run.models[m] = sc_xstrdup(p->model_names.items[m]);
		res->run.resolved_models[m] = sc_xstrdup(p->models[m].name);
		res->run.oracle |= p->models[m].kind == SC_PROVIDER_ORACLE;
	}
	res->run.runs = cfg->runs;
	res->run.shard_index = shard_k;
	res->run.shard_count = shard_n;
	res->run.plan_hash = sc_xstrdup(p->plan_hash);
	{
		/* what the verdict rests on: every shard records the same */
		struct sc_results_provenance *pv = &res->run.prov;
		pv->present = true;
		pv->head = sc_xstrdup(p->head_rev);
		pv->base = dup_or_null(p->tip_rev);
		pv->merge_base = p->has_merge_base ? dup_or_null(p->base_rev) : NULL;
		pv->judged = p->merged ? SC_JUDGED_MERGE : SC_JUDGED_HEAD;
		pv->judged_tree = dup_or_null(p->judged_tree);
		pv->config_hash = sc_xstrdup(p->config_hash);
		pv->workflow_run_id = dup_or_null(p->opt.workflow_run_id);
		pv->workflow_run_attempt = p->opt.workflow_run_id ? p->opt.workflow_run_attempt : 0;
		pv->pr_number = p->pr.number;
		pv->pr_source = p->pr.number && p->pr.source ? sc_xstrdup(p->pr.source) : NULL;
	}
	res->run.mode = sc_xstrdup(!p->stats.any_kernel ? "none"
				   : p->kernel && p->kernel->mode ? p->kernel->mode : "compile-only");
	if (p->kops_ready)
		sc_kernelops_describe(&p->kops, &res->run);
	trust_to_results(&res->run.trust, &p->trust);
	res->run.trust.gate.present = true;
	res->run.trust.gate.pass_rate_drop_points = cfg->gate.pass_rate_drop_points;
	res->run.trust.gate.alpha = cfg->gate.alpha;
	res->run.trust.gate.tokens_rise_pct = cfg->gate.tokens_rise_pct;
	res->run.trust.gate.speedup_drop_ratio = cfg->gate.speedup_drop_ratio;
	res->run.trust.gate.judge_drop = cfg->gate.judge_drop;
	res->run.trust.gate.error_share = cfg->gate.error_share;
	res->run.trust.gate.require_lift = cfg->gate.require_lift;
	res->run.trust.gate.deletions_allowed = cfg->gate.allow_deletions ||
						cfg->gate.deletion_labelled;
	res->run.trust.gate.max_baseline_pass_rate = cfg->gate.max_baseline_pass_rate;
	res->run.trust.gate.compile_only = cfg->gate.compile_only;
	res->run.trust.gate.regression_points = cfg->gate.regression_points;
	res->run.trust.gate.beta = cfg->gate.beta;
	res->run.trust.gate.accept_unverified = cfg->gate.accept_unverified;
	res->run.trust.gate.allow_untested = cfg->gate.allow_untested;
	res->run.trust.gate.first_runs = cfg->gate.max_runs > 0 ? cfg->gate.first_runs : 0;
	res->run.trust.gate.max_runs = cfg->gate.max_runs;
	res->run.trust.gate.planned_checks = (int64_t)cfg->gate.planned_checks;
	sc_eval_aggregate(res, cfg->gate.alpha);
	sc_budget_usage(res, &cfg->budget);
	res->totals.requests = p->stats.requests;
	res->totals.cache_hits = p->stats.cache_hits;
	res->totals.wall_ms = sc_now_ms() - p->t0;
	*gate_rc = sc_gate_apply(res, &cfg->gate);
	if (stopped) {
		/* what was not evaluated was not checked: the runner's stop, not
		 * the pull request's doing (exit 3, "could not check") */
		sc_gate_add_run_failure(res, "interrupted", SC_CHECK_RUN, SC_STATUS_ERROR,
					res->run.incomplete_reason);
		res->gate.verdict = SC_VERDICT_ERROR;
		res->gate.passed = false;
		res->gate.exit_code = SC_EXIT_INFRA;
		*gate_rc = SC_EXIT_INFRA;
	}
	if (shard_n > 1 && *gate_rc != SC_EXIT_INFRA) {
		/* a shard sees part of the units: merge decides the gate */
		sc_gate_clear(res);
		*gate_rc = SC_EXIT_OK;
	}
	sc_results_sort(res);
	sc_buf_release(&tmp);
	return 0;
}

struct sc_results *sc_pipeline_results(struct sc_pipeline *p)
{
	return &p->res;
}

void sc_pipeline_info(const struct sc_pipeline *p, struct sc_pipeline_info *out)
{
	memset(out, 0, sizeof(*out));
	out->changed = p->changed.n;
	out->plan_units = p->plan_units;
	out->units = p->nrefs;
	out->max_requests = p->need_requests;
	out->evaluated = p->stats.decided;
	out->stopped = p->stats.stopped && p->res.nunits < p->sent;
	out->cache_dir = p->cache_dir;
}

long long sc_pipeline_pr_number(const struct sc_pipeline *p)
{
	return p ? p->pr.number : 0;
}

bool sc_pipeline_shallow(const struct sc_pipeline *p)
{
	return p->repo && sc_git_is_shallow(p->repo);
}

void sc_pipeline_free(struct sc_pipeline *p)
{
	if (!p)
		return;
	sc_budget_estimate_release(&p->cost);
	if (p->kops_ready)
		sc_kernelops_release(&p->kops);
	if (p->wd_made)
		sc_workdir_release(&p->wd);
	for (size_t i = 0; p->sides && i < 3 * p->changed.n; i++) {
		sc_skill_release(&p->sides[i].skill);
		sc_diags_release(&p->sides[i].findings);
		sc_test_set_release(&p->sides[i].tests);
	}
	free(p->sides);
	free(p->refs);
	free(p->es);
	sc_client_free(p->client);
	for (size_t i = 0; i < p->nmodels; i++)
		sc_model_release(&p->models[i]);
	free(p->models);
	sc_strlist_release(&p->model_names);
	sc_results_release(&p->res);
	sc_changed_release(&p->changed);
	sc_git_tree_free(p->tbase);
	sc_git_tree_free(p->ttip);
	sc_git_tree_free(p->tjudged);
	sc_git_tree_free(p->thead);
	sc_ghpr_release(&p->pr);
	sc_git_free(p->repo);
	sc_config_release(&p->cfg);
	sc_trust_release(&p->trust);
	sc_buf_release(&p->fixtures_rel);
	free(p->fixtures_dir);
	free(p);
}
