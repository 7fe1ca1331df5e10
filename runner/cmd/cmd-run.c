/*
 * skillci run: the PR check (docs/run.md). Finds the skills changed
 * between two revisions, writes each one's base and head trees out of the
 * object database, loads their tests, plans the work units (baseline,
 * base, head × models × tests × runs), keeps this shard's units, reuses
 * what the results store holds and evaluates the rest in one stream
 * through one client (kernel checks on --jobs worker processes), then
 * aggregates, applies the gate and renders every report through `skillci
 * report`.
 *
 * SIGINT/SIGTERM: no new unit starts, the units in flight finish (they
 * reach the store), the reports are written marked incomplete and the
 * exit code is 3; a rerun reuses every finished unit.
 *
 * Exit codes: 0 the gate passed, 1 it failed, 2 bad usage, config or
 * input, 3 infrastructure (provider down, too many errors, interrupted).
 */
#include "common.h"
#include "git/changed.h"
#include "cmd/cmd.h"
#include "pipeline/config.h"
#include "diag.h"
#include "eval/eval.h"
#include "pipeline/findings.h"
#include "pipeline/gate.h"
#include "kernelrun/kernelops.h"
#include "git/ghevent.h"
#include "git/git.h"
#include "pipeline/plan.h"
#include "pipeline/progress.h"
#include "providers/provider.h"
#include "results/results.h"
#include "sha256.h"
#include "pipeline/signals.h"
#include "skills/skill.h"
#include "results/store.h"
#include "skills/testsuite.h"
#include "escape.h"
#include "pipeline/trust.h"
#include "pipeline/workdir.h"

#include <ctype.h>
#include <getopt.h>
#include <math.h>
#include <unistd.h>

#define MAX_MODELS 64
#define SC_RUN_WORK_ROOT ".skillci/work"  /* per-run work folders (workdir.h) */

static const char usage_text[] =
	"usage: skillci run [--repo R] [--base A] [--head B] [--config F] [-m MODEL...]\n"
	"                   [--runs N] [--fixtures DIR] [--junit F] [--markdown F] [--html DIR]\n"
	"                   [--json F] [--report-dir DIR] [--comment] [--shard K/N|auto]\n"
	"                   [--shard-count N] [--run-id ID]\n"
	"                   [--offline] [--jobs N] [--concurrency N] [--store LOCATION]\n"
	"                   [--cache DIR] [--no-cache]\n"
	"                   [--no-reuse] [--retries N] [--batch N] [--compile-only]\n"
	"                   [--allow-unpinned] [--max-units N] [--max-requests N] [-v]\n"
	"\n"
	"The PR check: evaluates the skills changed between two revisions without the\n"
	"skill (baseline), at the base and at the head revision, writes the reports and\n"
	"applies the gate.\n"
	"\n"
	"  --repo R          repository path or URL (default .)\n"
	"  --base A          base revision (default: the event's, else origin/HEAD, origin/main,\n"
	"                    main or master); the merge base of A and B is compared\n"
	"  --head B          head revision (default: the event's, else HEAD)\n"
	"  --config F        configuration (default skillci.yml in the repository)\n"
	"  -m, --model M     student model (repeat); default: models in skillci.yml\n"
	"  --runs N          runs per test (default: skillci.yml, else 1)\n"
	"  --fixtures DIR    kernel fixtures folder (default: skillci.yml, else fixtures)\n"
	"  --junit F, --markdown F, --html DIR, --json F\n"
	"                    report paths (default: skillci.yml reports:, else .skillci/report/)\n"
	"  --report-dir DIR  folder for the reports not named one by one\n"
	"  --comment         create or update the sticky PR comment (GitHub Actions)\n"
	"  --shard K/N       evaluate shard K of N (units split by a stable hash of their id);\n"
	"                    'auto' reads a Slurm array or Kubernetes Indexed Job index\n"
	"  --shard-count N   number of shards for --shard auto in an Indexed Job\n"
	"  --run-id ID       the run's id, shared by every shard of one sharded run so that\n"
	"                    'skillci merge --run ID' joins them from the store (default: new;\n"
	"                    a sharded run takes gh-$GITHUB_RUN_ID in GitHub Actions and\n"
	"                    slurm-$SLURM_ARRAY_JOB_ID in a Slurm array)\n"
	"  --offline         answer from the response cache only\n"
	"  --jobs N          kernel checks at once, each in its own worker process (default:\n"
	"                    one per GPU; without a GPU, one per CPU)\n"
	"  --concurrency N   model requests in flight, all providers together (default:\n"
	"                    skillci.yml concurrency, else 64)\n"
	"  --batch N         deprecated, no effect: units stream (docs/run.md)\n"
	"  --store LOCATION  results store: a SQLite file or postgresql://… (default:\n"
	"                    $SKILLCI_STORE, else skillci.yml, else .skillci/results.db)\n"
	"  --cache DIR       response cache (default: skillci.yml, else .skillci/cache); --no-cache\n"
	"  --no-reuse        evaluate every unit even when the store has it\n"
	"  --retries N       retries per model request after the first try (default 5)\n"
	"  --compile-only    check kernels without a GPU even when one is present\n"
	"  --allow-unpinned  accept fixtures missing from or changed since fixtures.lock\n"
	"  --max-units N     budget: most units this run may plan (default: skillci.yml, else 10000)\n"
	"  --max-requests N  budget: most model requests the plan may need (default: skillci.yml,\n"
	"                    else 20000); a plan over either exits 2 before any request\n"
	"  -v, --verbose     one line per unit\n"
	"\n"
	"Policy (models, runs, gate, budget, paths, fixtures) comes from these flags and\n"
	"the base revision's skillci.yml, never from the pull request: the head's\n"
	"skillci.yml is only compared and reported (docs/security.md).\n"
	"With GITHUB_ACTIONS=true the revisions come from $GITHUB_EVENT_PATH and the\n"
	"reports also go to the step summary, outputs and annotations.\n"
	"exit codes: 0 gate passed, 1 gate failed, 2 bad usage/config/input,\n"
	"3 infrastructure failure or interrupted (reports are then marked incomplete).\n";

struct run_opts {
	const char *repo, *base, *head, *config, *fixtures;
	const char *store, *cache, *shard, *run_id;
	struct sc_cmd_reports reports;
	const char *models[MAX_MODELS];
	size_t nmodels;
	int runs, jobs, batch, retries, shard_count, max_units, max_requests, concurrency;
	bool comment, offline, no_cache, no_reuse, verbose, compile_only, allow_unpinned;
};

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
	struct sc_test_changes changes;
};

/* What the progress callbacks of the evaluation share. */
struct run_progress {
	struct sc_progress *progress;
	bool verbose;
};

/* ---- options ------------------------------------------------------------- */

#define RUN_ID_MAX 128

/* A run id: it names the run in the store and in reports. */
static bool valid_run_id(const char *id)
{
	size_t n = strlen(id);

	if (n == 0 || n > RUN_ID_MAX)
		return false;
	for (const char *p = id; *p; p++)
		if (!isalnum((unsigned char)*p) && *p != '.' && *p != '_' && *p != '-')
			return false;
	return true;
}

static bool in_actions(void);

/* Returns 0 to go on, 1 after --help, or an exit code. */
static int parse_args(struct run_opts *o, int argc, char **argv)
{
	enum { O_REPO = 256, O_BASE, O_HEAD, O_CONFIG, O_RUNS, O_FIXTURES, O_JUNIT, O_MARKDOWN,
	       O_HTML, O_JSON, O_COMMENT, O_SHARD, O_SHARD_COUNT, O_OFFLINE, O_JOBS, O_STORE,
	       O_CACHE, O_NO_CACHE, O_NO_REUSE, O_RETRIES, O_BATCH, O_COMPILE_ONLY, O_UNPINNED,
	       O_REPORT_DIR, O_RUN_ID, O_MAX_UNITS, O_MAX_REQUESTS, O_CONCURRENCY };
	static const struct option longopts[] = {
		{ "repo", required_argument, NULL, O_REPO },
		{ "base", required_argument, NULL, O_BASE },
		{ "head", required_argument, NULL, O_HEAD },
		{ "config", required_argument, NULL, O_CONFIG },
		{ "model", required_argument, NULL, 'm' },
		{ "runs", required_argument, NULL, O_RUNS },
		{ "fixtures", required_argument, NULL, O_FIXTURES },
		SC_CMD_REPORT_OPTIONS,
		{ "comment", no_argument, NULL, O_COMMENT },
		{ "shard", required_argument, NULL, O_SHARD },
		{ "shard-count", required_argument, NULL, O_SHARD_COUNT },
		{ "run-id", required_argument, NULL, O_RUN_ID },
		{ "offline", no_argument, NULL, O_OFFLINE },
		{ "jobs", required_argument, NULL, O_JOBS },
		{ "concurrency", required_argument, NULL, O_CONCURRENCY },
		{ "store", required_argument, NULL, O_STORE },
		{ "cache", required_argument, NULL, O_CACHE },
		{ "no-cache", no_argument, NULL, O_NO_CACHE },
		{ "no-reuse", no_argument, NULL, O_NO_REUSE },
		{ "retries", required_argument, NULL, O_RETRIES },
		{ "batch", required_argument, NULL, O_BATCH },
		{ "compile-only", no_argument, NULL, O_COMPILE_ONLY },
		{ "allow-unpinned", no_argument, NULL, O_UNPINNED },
		{ "max-units", required_argument, NULL, O_MAX_UNITS },
		{ "max-requests", required_argument, NULL, O_MAX_REQUESTS },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c, rc, li;

	o->repo = ".";
	o->retries = SC_PROVIDER_MAX_ATTEMPTS - 1;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":m:vh", longopts, (li = -1, &li))) != -1) {
		rc = 0;
		/* an empty value would mean the current folder or nothing at all
		 * (--store '', --report-dir ''): say so rather than guess */
		if (optarg && !*optarg)
			return sc_cmd_usage_error("run", "%s%s needs a value, not an empty string",
						  li >= 0 ? "--" : "-", li >= 0 ? longopts[li].name : "m");
		switch (c) {
		case 'm':
			if (o->nmodels == MAX_MODELS)
				return sc_cmd_usage_error("run", "at most %d models", MAX_MODELS);
			o->models[o->nmodels++] = optarg;
			break;
		case O_REPO: o->repo = optarg; break;
		case O_BASE: o->base = optarg; break;
		case O_HEAD: o->head = optarg; break;
		case O_CONFIG: o->config = optarg; break;
		case O_RUNS:
			rc = sc_cmd_int_option(&o->runs, "run", "--runs", optarg, 1, 1000);
			break;
		case O_FIXTURES: o->fixtures = optarg; break;
		case O_COMMENT: o->comment = true; break;
		case O_SHARD: o->shard = optarg; break;
		case O_SHARD_COUNT:
			rc = sc_cmd_int_option(&o->shard_count, "run", "--shard-count", optarg, 1,
					       SC_MAX_SHARDS);
			break;
		case O_RUN_ID: o->run_id = optarg; break;
		case O_OFFLINE: o->offline = true; break;
		case O_JOBS: rc = parse_int_opt(&o->jobs, optarg, 1, SC_MAX_JOBS, "--jobs"); break;
		case O_CONCURRENCY:
			rc = parse_int_opt(&o->concurrency, optarg, 1, 10000, "--concurrency");
			break;
		case O_STORE: o->store = optarg; break;
		case O_CACHE: o->cache = optarg; break;
		case O_NO_CACHE: o->no_cache = true; break;
		case O_NO_REUSE: o->no_reuse = true; break;
		case O_RETRIES: rc = parse_int_opt(&o->retries, optarg, 0, 20, "--retries"); break;
		case O_BATCH:
			rc = parse_int_opt(&o->batch, optarg, 1, 100000, "--batch");
			if (!rc)
				fprintf(stderr, "warning: --batch is deprecated and has no effect: units "
					"stream, each starting when a request slot is free (docs/run.md)\n");
			break;
		case O_COMPILE_ONLY: o->compile_only = true; break;
		case O_UNPINNED: o->allow_unpinned = true; break;
		case O_MAX_UNITS:
			rc = sc_cmd_int_option(&o->max_units, "run", "--max-units", optarg, 1,
					       SC_MAX_RUN_UNITS);
			break;
		case O_MAX_REQUESTS:
			rc = sc_cmd_int_option(&o->max_requests, "run", "--max-requests", optarg, 1,
					       SC_MAX_RUN_UNITS);
			break;
		case 'v': o->verbose = true; break;
		case 'h': fputs(usage_text, stdout); return 1;
		default:
			if (!sc_cmd_report_option(&o->reports, c, optarg))
				return sc_cmd_option_error("run", c, argv, longopts);
		}
		if (rc)
			return rc;
	}
	if (optind < argc)
		return sc_cmd_usage_error("run", "unexpected argument '%s'", argv[optind]);
	if (o->offline && o->no_cache)
		return sc_cmd_usage_error("run", "--offline needs the response cache");
	if (o->run_id && !valid_run_id(o->run_id))
		return sc_cmd_usage_error("run", "--run-id '%s' must be 1 to %d letters, digits, '.', "
					  "'_' or '-'", o->run_id, RUN_ID_MAX);
	return 0;
}

/*
 * The id of this run: --run-id, else for a sharded run the id its CI
 * system gives every shard of one job (GitHub Actions: the workflow run;
 * Slurm: the array job), else a new one. Returns a new string.
 */
static char *choose_run_id(const struct run_opts *o, int shard_n)
{
	const char *v;
	struct sc_buf b = SC_BUF_INIT;

	if (o->run_id)
		return sc_xstrdup(o->run_id);
	if (shard_n > 1 && in_actions() && (v = getenv("GITHUB_RUN_ID")) && *v)
		sc_buf_printf(&b, "gh-%s", v);
	else if (shard_n > 1 && (v = getenv("SLURM_ARRAY_JOB_ID")) && *v)
		sc_buf_printf(&b, "slurm-%s", v);
	if (b.len && valid_run_id(b.ptr))
		return sc_buf_detach(&b, NULL);
	sc_buf_release(&b);
	return sc_eval_new_run_id();
}

/* ---- revisions ----------------------------------------------------------- */

static bool in_actions(void)
{
	const char *v = getenv("GITHUB_ACTIONS");
	return v && !strcmp(v, "true");
}

/*
 * Resolves the two commits to compare: flags first, then the GitHub event
 * (in Actions), then HEAD against the default branch. The base is the
 * merge base of the two when there is one (what a pull request shows).
 * base_out is "" when there is no base (a first push).
 */
static int resolve_revs(char base_out[SC_GIT_HEX_SIZE], char head_out[SC_GIT_HEX_SIZE],
			struct sc_git_repo *repo, const struct run_opts *o)
{
	struct sc_ghevent ev = SC_GHEVENT_INIT;
	const char *base = o->base, *head = o->head;
	char b[SC_GIT_HEX_SIZE], mb[SC_GIT_HEX_SIZE];
	int err = 0;

	base_out[0] = '\0';
	if ((!base || !head) && in_actions() && getenv("GITHUB_EVENT_PATH")) {
		if ((err = sc_ghevent_read(&ev, getenv("GITHUB_EVENT_PATH"))) < 0)
			goto done;
		if (!head)
			head = ev.head;
		if (!base && !ev.base) {
			err = sc_git_resolve(head_out, repo, head);
			goto done;  /* first push: every skill is new */
		}
		if (!base)
			base = ev.base;
	}
	if (!head)
		head = "HEAD";
	if ((err = sc_git_resolve(head_out, repo, head)) < 0)
		goto done;
	if (!base) {
		static const char *const tries[] = { "origin/HEAD", "origin/main", "main", "master" };
		for (size_t i = 0; i < SC_ARRAY_SIZE(tries) && !base; i++)
			if (sc_git_resolve(b, repo, tries[i]) == 0 && strcmp(b, head_out))
				base = tries[i];
		sc_error_clear();
		if (!base) {
			err = sc_error_set(SC_EINVAL, "no base revision: give --base (the default "
					   "branch was not found or is the head itself)");
			goto done;
		}
	}
	if ((err = sc_git_resolve(b, repo, base)) < 0)
		goto done;
	if (sc_git_merge_base(mb, repo, b, head_out) == 0)
		memcpy(base_out, mb, SC_GIT_HEX_SIZE);
	else
		memcpy(base_out, b, SC_GIT_HEX_SIZE);
	sc_error_clear();
done:
	sc_ghevent_release(&ev);
	return err;
}

/* ---- skills and tests ---------------------------------------------------- */

/* Prints findings to stderr (an untrusted block: escape.h); returns the
 * number of errors. */
static size_t print_diags(struct sc_diags *d)
{
	struct sc_buf line = SC_BUF_INIT;
	size_t errors = sc_diags_count(d, SC_SEV_ERROR);

	if (!d->n)
		return 0;
	sc_diags_sort(d);
	sc_ci_block_begin(stderr);
	for (size_t i = 0; i < d->n; i++) {
		sc_buf_clear(&line);
		sc_diag_format(&line, &d->items[i]);
		fprintf(stderr, "%s\n", line.ptr);
	}
	sc_ci_block_end(stderr);
	sc_buf_release(&line);
	return errors;
}

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
	if ((err = sc_eval_skill_hash(s->hash, &s->skill)) < 0)
		goto done;
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
		h->es.tests = &b->tests;
		sc_trust_diff_tests(&p->tests, &h->changes, &b->tests, &h->tests);
		h->has_changes = true;
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
static size_t side_of(const struct sc_changed *changed, const char *skill, const char *variant)
{
	size_t lo = 0, hi = changed->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(changed->items[mid].path, skill);
		if (c == 0)
			return 3 * mid + (strcmp(variant, "base") == 0 ? 1
					  : strcmp(variant, SC_VARIANT_HEAD_TESTS) == 0 ? 2 : 0);
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return SIZE_MAX;
}

/* ---- evaluation -------------------------------------------------------- */

static void on_unit(size_t done, size_t total, const char *skill, const char *variant,
		    const char *model, const char *test_name, const char *verdict, bool reused,
		    void *payload)
{
	struct run_progress *rp = payload;

	SC_UNUSED(done);
	SC_UNUSED(total);
	sc_progress_unit(rp->progress, reused, !strcmp(verdict, "error"));
	if (rp->verbose)
		sc_log(SC_LOG_INFO, "%s %s %s '%s': %s%s", skill, variant, model, test_name, verdict,
		       reused ? " (reused)" : "");
}

static void on_activity(const struct sc_eval_activity *a, void *payload)
{
	struct run_progress *rp = payload;

	sc_progress_activity(rp->progress, a->active, a->kernels_busy, (size_t)a->cache_hits);
}

static bool stop_requested(void *payload)
{
	SC_UNUSED(payload);
	return sc_signals_stop_requested();
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

/* The results entry of one changed skill. */
static void fill_skill(struct sc_results_skill *rs, const struct sc_changed_skill *cs,
		       const struct side *head, const struct side *base)
{
	const struct side *any = head->loaded ? head : base;
	struct sc_buf md = SC_BUF_INIT;

	rs->path = sc_xstrdup(cs->path);
	rs->name = sc_xstrdup(any && any->loaded && any->skill.name ? any->skill.name : cs->name);
	rs->status = sc_xstrdup(sc_change_status_name(cs->status));
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
	if (head->has_changes) {
		rs->has_test_changes = true;
		rs->tests_added = (int64_t)head->changes.added;
		rs->tests_changed = (int64_t)head->changes.changed;
		rs->tests_removed = (int64_t)head->changes.removed;
	}
	rs->gate_passed = true;
}

/*
 * Writes, in one transaction, the run row and: for a whole finished run,
 * its aggregates; for one shard of a sharded run, the shard's results
 * JSON, so that `skillci merge --run ID` can join the shards from the
 * store.
 */
static int store_run(struct sc_store *st, const struct sc_results *r, const char *json_path)
{
	struct sc_buf doc = SC_BUF_INIT;
	int err;

	if ((err = sc_store_begin(st)) < 0)
		return err;
	if ((err = sc_eval_store_put_run(st, r, "run", json_path)) < 0)
		goto done;
	if (r->run.complete && (err = sc_eval_store_put_aggregates(st, r)) < 0)
		goto done;
	if (r->run.shard_count > 1) {
		struct sc_store_shard sh;
		sc_results_format(&doc, r);
		sh.run_id = r->run.id;
		sh.shard_index = (int)r->run.shard_index;
		sh.shard_count = (int)r->run.shard_count;
		sh.plan_hash = r->run.plan_hash;
		sh.results = doc.ptr;
		sh.stored_at = r->run.finished_at;
		if ((err = sc_store_put_shard(st, &sh)) < 0)
			goto done;
	}
	err = sc_store_commit(st);
done:
	if (err < 0)
		sc_store_rollback(st);
	sc_buf_release(&doc);
	return err;
}

/* The folder of a report path given as DIR/report.html (for `report --html DIR`). */
static char *html_dir(const char *path)
{
	const char *slash;

	if (!sc_ends_with(path, ".html"))
		return sc_xstrdup(path);
	slash = strrchr(path, '/');
	return slash ? sc_xstrndup(path, (size_t)(slash - path)) : sc_xstrdup(".");
}

/* The first infrastructure error among the units, as the cause to print. */
static const struct sc_results_unit *first_error(const struct sc_results *r)
{
	for (size_t i = 0; i < r->nunits; i++)
		if (!strcmp(r->units[i].verdict, "error"))
			return &r->units[i];
	return NULL;
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

/* ---- the command --------------------------------------------------------- */

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	struct sc_config cfg;
	struct sc_trust trust;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_git_repo *repo = NULL;
	struct sc_store *store = NULL;
	struct sc_git_tree *tbase = NULL, *thead = NULL;
	struct sc_changed changed = SC_CHANGED_INIT;
	struct sc_changed_extra *extra = NULL;  /* prefixes borrowed from cfg and from prefixes */
	struct sc_strlist prefixes = SC_STRLIST_INIT;
	struct side *sides = NULL;   /* 3 per changed skill: head, base, head_tests */
	struct sc_plan plan = SC_PLAN_INIT;
	struct sc_eval_unit_ref *refs = NULL;
	struct sc_eval_skill *es = NULL;
	struct sc_eval_stats estats;
	struct run_progress rprog;
	struct sc_client *client = NULL;
	size_t nrefs = 0, nextra = 0, mine = 0, plan_units = 0;
	char plan_hash[65] = "";
	int64_t need_requests = 0;
	struct sc_model *models = NULL;
	struct sc_strlist model_names = { 0 };
	struct sc_eval_options eopt;
	struct sc_client_options copt;
	struct sc_progress progress;
	struct sc_workdir wd;
	struct sc_results res;
	struct sc_buf tmp = SC_BUF_INIT, plan_extra = SC_BUF_INIT, fixtures_rel = SC_BUF_INIT;
	char base_rev[SC_GIT_HEX_SIZE], head_rev[SC_GIT_HEX_SIZE];
	char workspace[4096], repo_real[4096];
	const char *repo_workdir = NULL, *store_path, *cache_dir;
	char *run_id = NULL, *fixtures_dir = NULL;
	bool progress_ready = false, signals_on = false, stopped = false, kops_ready = false;
	struct sc_kernelops kops;
	const struct sc_eval_kernel_ops *kernel = NULL;
	int shard_k = 1, shard_n = 1, rc = 0, err = 0, gate_rc = 0;
	int64_t t0 = sc_now_ms();

	memset(&o, 0, sizeof(o));
	memset(&estats, 0, sizeof(estats));
	memset(&wd, 0, sizeof(wd));
	wd.lock_fd = -1;
	sc_config_defaults(&cfg);
	sc_trust_init(&trust);
	sc_results_init(&res);
	if ((rc = parse_args(&o, argc, argv))) {
		rc = rc == 1 ? 0 : rc;
		goto done;
	}
	if (o.verbose)
		sc_log_set_level(SC_LOG_DEBUG);
	if (o.shard && sc_plan_parse_shard(&shard_k, &shard_n, o.shard, o.shard_count) < 0) {
		rc = sc_cmd_usage_error("run", "%s", sc_error_last());
		goto done;
	}
	if (!realpath(".", workspace)) {
		err = sc_error_set(SC_EIO, "cannot resolve the current folder: %s", strerror(errno));
		goto fail;
	}

	/* The repository and the two revisions. */
	if (sc_git_is_url(o.repo)) {
		if ((err = sc_trust_check_output("the clone folder", ".skillci/repos", workspace)) < 0)
			goto fail;
		err = sc_git_clone_or_fetch(&repo, o.repo, ".skillci/repos");
	} else {
		err = sc_git_open(&repo, o.repo);
	}
	if (err < 0)
		goto fail;
	if (sc_git_workdir(repo) && realpath(sc_git_workdir(repo), repo_real))
		repo_workdir = repo_real;
	if ((err = resolve_revs(base_rev, head_rev, repo, &o)) < 0)
		goto fail;
	if ((err = sc_git_tree_open(&thead, repo, head_rev)) < 0 ||
	    (base_rev[0] && (err = sc_git_tree_open(&tbase, repo, base_rev)) < 0))
		goto fail;
	run_id = choose_run_id(&o, shard_n);
	if ((err = sc_trust_check_output("the work folder", SC_RUN_WORK_ROOT, workspace)) < 0)
		goto fail;
	{
		/* The work folder is this process's own, even when shards on
		 * one machine share the run id. */
		char *mine_id = sc_eval_new_run_id();
		size_t cleaned = 0;
		err = sc_workdir_create(&wd, SC_RUN_WORK_ROOT, mine_id, &cleaned);
		free(mine_id);
		if (err < 0)
			goto fail;
		if (cleaned)
			sc_log(SC_LOG_INFO, "removed %zu work folder%s left by runs that were killed",
			       cleaned, cleaned == 1 ? "" : "s");
	}

	/* The policy: the base revision's configuration, never the head's. */
	{
		struct sc_trust_config_in in;
		struct sc_buf scratch = SC_BUF_INIT;
		memset(&in, 0, sizeof(in));
		sc_path_join(&scratch, wd.path, "config");
		in.base = tbase;
		in.head = thead;
		in.base_rev = base_rev;
		in.head_rev = head_rev;
		in.repo_workdir = repo_workdir;
		in.explicit_path = o.config;
		in.scratch = scratch.ptr;
		sc_config_release(&cfg);
		err = sc_trust_load_config(&cfg, &trust, &in, &diags);
		sc_buf_release(&scratch);
	}
	if (print_diags(&diags) && err == 0) {
		rc = SC_EXIT_USAGE;
		fprintf(stderr, "error: the configuration has errors (above)\n");
		goto done;
	}
	sc_diags_release(&diags);
	if (err < 0)
		goto fail;
	/*
	 * Named endpoints and fast-agent's provider settings come from the
	 * configuration loaded above and from nothing else: the file the check
	 * trusts for policy decides which servers get requests and keys.
	 */
	if ((err = sc_config_apply_providers(&cfg)) < 0)
		goto fail;

	/* Flags override the config. */
	if (o.runs)
		cfg.runs = o.runs;
	if (o.concurrency)
		cfg.concurrency = o.concurrency;
	if (o.max_units)
		cfg.max_units = o.max_units;
	if (o.max_requests)
		cfg.max_requests = o.max_requests;
	if (!o.fixtures) {
		/* the manifest's fixtures mark their skills changed by repository path */
		const char *f = cfg.fixtures_dir;
		while (f[0] == '.' && f[1] == '/')
			f += 2;
		sc_buf_puts(&fixtures_rel, f);
	}
	if ((err = sc_trust_fixtures(&fixtures_dir, o.fixtures ? o.fixtures : cfg.fixtures_dir,
				     o.fixtures != NULL, tbase, thead, repo_workdir, wd.path, &trust,
				     &diags)) < 0)
		goto fail;
	print_diags(&diags);  /* what writing the base's fixtures out found */
	sc_diags_release(&diags);
	free(cfg.fixtures_dir);
	cfg.fixtures_dir = sc_xstrdup(fixtures_dir);
	sc_trust_models(&model_names, o.models, o.nmodels, &cfg.models, &trust);
	if (model_names.n == 0) {
		rc = sc_cmd_usage_error("run", "name a model with -m or list models: in the base "
					"revision's skillci.yml");
		goto done;
	}
	if (model_names.n > MAX_MODELS) {
		rc = sc_cmd_usage_error("run", "at most %d models", MAX_MODELS);
		goto done;
	}
	o.nmodels = model_names.n;
	for (size_t i = 0; i < model_names.n; i++)
		o.models[i] = model_names.items[i];
	models = sc_xcalloc(o.nmodels, sizeof(*models));
	for (size_t i = 0; i < o.nmodels; i++)
		if ((err = sc_model_parse(&models[i], o.models[i])) < 0)
			goto fail;
	store_path = sc_store_location(o.store, cfg.store_path);
	cache_dir = o.no_cache || cfg.cache_mode == SC_CACHE_OFF ? NULL
		    : o.cache ? o.cache : cfg.cache_dir;
	sc_cmd_reports_resolve(&o.reports, &cfg);

	/* Every path this run writes stays in the workspace (or where a flag
	 * says), and is writable before the first request is paid for. */
	{
		const struct sc_cmd_reports *r = &o.reports;
		const struct { const char *key, *path; bool dir; } outs[] = {
			{ o.store ? "--store" : "store",
			  sc_store_is_postgres(store_path) ? NULL : store_path, false },
			{ o.cache ? "--cache" : "cache.dir", cache_dir, true },
			{ r->opt_junit ? "--junit" : r->opt_dir ? "--report-dir" : "reports.junit",
			  r->junit, false },
			{ r->opt_markdown ? "--markdown"
					  : r->opt_dir ? "--report-dir" : "reports.markdown",
			  r->markdown, false },
			{ r->opt_json ? "--json" : r->opt_dir ? "--report-dir" : "reports.json",
			  r->json, false },
			{ r->opt_html ? "--html" : r->opt_dir ? "--report-dir" : "reports.html",
			  r->html, true },
		};
		for (size_t i = 0; i < SC_ARRAY_SIZE(outs); i++) {
			if (!outs[i].path)
				continue;
			if ((err = sc_trust_check_output(outs[i].key, outs[i].path, workspace)) < 0)
				goto fail;
			if (i >= 2 && (err = sc_trust_check_writable(outs[i].key, outs[i].path,
								    outs[i].dir)) < 0)
				goto fail;
		}
		if (cache_dir && (err = sc_mkdir_p(cache_dir)) < 0)
			goto fail;
	}
	/* The store is reached before any work: a database that is down or
	 * cannot be written fails the run now (exit 3), before a paid request. */
	if ((rc = sc_cmd_open_store(&store, store_path, false)))
		goto done;
	if ((err = sc_store_check_writable(store)) < 0)
		goto fail;

	/* Changed skills; fixtures and test files named in the manifest mark
	 * their skill. The configuration files mark nothing: the head's are
	 * not applied, so changing them alone changes no skill. */
	for (size_t i = 0; i < cfg.nskills; i++)
		nextra += cfg.skills[i].fixtures.n + cfg.skills[i].tests.n;
	extra = sc_xcalloc(nextra ? nextra : 1, sizeof(*extra));
	nextra = 0;
	for (size_t i = 0; i < cfg.nskills; i++) {
		for (size_t f = 0; f < cfg.skills[i].fixtures.n && fixtures_rel.len; f++) {
			sc_buf_clear(&tmp);
			sc_path_join(&tmp, fixtures_rel.ptr, cfg.skills[i].fixtures.items[f]);
			sc_strlist_add(&prefixes, tmp.ptr);
			extra[nextra].prefix = prefixes.items[prefixes.n - 1];
			extra[nextra++].skill_path = cfg.skills[i].skill;
		}
		for (size_t f = 0; f < cfg.skills[i].tests.n; f++) {
			extra[nextra].prefix = cfg.skills[i].tests.items[f];
			extra[nextra++].skill_path = cfg.skills[i].skill;
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
		if ((err = sc_changed_compute(&changed, tbase, thead, sc_git_name(repo), &copts)) < 0)
			goto fail;
	}

	/* Write out and load both sides of every changed skill. */
	sides = sc_xcalloc(changed.n ? 3 * changed.n : 1, sizeof(*sides));
	for (size_t i = 0; i < changed.n; i++) {
		const struct sc_changed_skill *cs = &changed.items[i];
		struct side *h = &sides[3 * i], *b = &sides[3 * i + 1], *p = &sides[3 * i + 2];
		h->es.variant = "head";
		h->baseline = true;
		b->es.variant = "base";
		p->es.variant = SC_VARIANT_HEAD_TESTS;
		if (cs->status != SC_CHANGE_DELETED && cs->head_tree[0] &&
		    (err = load_side(h, thead, cs->path, wd.path, "head", cs->path, &cfg, true)) < 0 &&
		    (err = side_unreadable(h, err, cs->path)) < 0)
			goto fail;
		if (cs->status != SC_CHANGE_DELETED && cs->status != SC_CHANGE_ADDED &&
		    cs->base_tree[0] &&
		    (err = load_side(b, tbase, cs->old_path ? cs->old_path : cs->path, wd.path,
				     "base", cs->path, &cfg, false)) < 0 &&
		    (err = side_unreadable(b, err, cs->path)) < 0)
			goto fail;
		wire_sides(h, b, p);
		/* the head's own kernel tests run only against fixtures the
		 * base revision has pinned */
		if (h->loaded && !b->loaded)
			sc_trust_drop_unknown_fixtures(&h->tests, cfg.fixtures_dir, o.allow_unpinned,
						       cs->path, &trust);
		if (p->loaded &&
		    sc_trust_drop_unknown_fixtures(&p->tests, cfg.fixtures_dir, o.allow_unpinned,
						   cs->path, &trust) && p->tests.n == 0)
			p->loaded = false;
	}
	/* The results entry of each changed skill, its findings compared
	 * across the sides and printed with their side and state. */
	res.skills = sc_xcalloc(changed.n ? changed.n : 1, sizeof(*res.skills));
	res.nskills = changed.n;
	for (size_t i = 0; i < changed.n; i++) {
		struct sc_results_skill *rs = &res.skills[i];
		const struct side *h = &sides[3 * i], *b = &sides[3 * i + 1];
		fill_skill(rs, &changed.items[i], h, b);
		sc_findings_compare(rs, b->loaded || b->unreadable ? &b->findings : NULL,
				    &h->findings);
		if (rs->nfindings)
			sc_ci_block_begin(stderr);  /* names and messages from the repository */
		for (size_t f = 0; f < rs->nfindings; f++) {
			struct sc_buf line = SC_BUF_INIT;
			sc_buf_clear(&tmp);
			sc_findings_format(&tmp, &rs->findings[f]);
			sc_escape_log(&line, tmp.ptr);
			fprintf(stderr, "%s\n", line.ptr);
			sc_buf_release(&line);
		}
		if (rs->nfindings)
			sc_ci_block_end(stderr);
	}
	{
		const struct sc_test_set **sets = sc_xcalloc(changed.n ? 3 * changed.n : 1, sizeof(*sets));
		size_t nsets = 0;
		for (size_t i = 0; i < 3 * changed.n; i++)
			if (sides[i].loaded)
				sets[nsets++] = sides[i].es.tests;  /* the tests it runs */
		sc_kernelops_init(&kops, cfg.fixtures_dir, cfg.arch, o.compile_only,
				  cfg.kernel_timeout_s > 0 ? (int)cfg.kernel_timeout_s : 300);
		kops_ready = true;
		err = sc_kernelops_setup(&kops, &kernel, sets, nsets, o.allow_unpinned);
		free(sets);
		if (err < 0)
			goto fail;
	}

	/* The plan: every unit of every shard, then this shard's units. */
	for (size_t i = 0; i < 3 * changed.n; i++) {
		const struct side *s = &sides[i], *h = &sides[i - i % 3];
		if (!s->loaded || !h->loaded || s->es.tests->n == 0)
			continue;  /* deleted, unreadable, or nothing to run */
		for (size_t m = 0; m < o.nmodels; m++)
			for (size_t t = 0; t < s->es.tests->n; t++) {
				const struct sc_test *test = &s->es.tests->items[t];
				/* the most requests a unit makes: its turns (kernel
				 * tests feed errors back), and one judge request */
				int cost = (sc_test_is_kernel(test) ? cfg.max_turns : 1) +
					   (cfg.judge_model ? 1 : 0);
				char th[65];
				sc_test_hash(th, test);
				for (int r = 0; r < cfg.runs; r++) {
					sc_buf_clear(&tmp);
					sc_buf_printf(&tmp, "%s|%s", s->hash, th);
					sc_plan_add(&plan, s->es.path, s->es.variant, models[m].name,
						    test->id, r, tmp.ptr);
					plan.units[plan.n - 1].requests = cost;
					if (s->baseline) {
						sc_buf_clear(&tmp);
						sc_buf_printf(&tmp, "%s|%s", SC_STORE_NO_SKILL, th);
						sc_plan_add(&plan, s->es.path, "baseline", models[m].name,
							    test->id, r, tmp.ptr);
						plan.units[plan.n - 1].requests = cost;
					}
				}
			}
		if (plan.n > SC_MAX_RUN_UNITS) {
			err = sc_error_set(SC_EINVAL, "the plan has more than %d units; lower runs or "
					   "models", SC_MAX_RUN_UNITS);
			goto fail;
		}
	}
	sc_buf_printf(&plan_extra, "runs=%d;turns=%d;harness=%s;judge=%s", cfg.runs, cfg.max_turns,
		      SC_EVAL_HARNESS_VERSION, cfg.judge_model ? cfg.judge_model : "");
	if ((err = sc_plan_finish(&plan, plan_extra.ptr)) < 0)
		goto fail;
	/* This shard's units, in plan order (sorted by id, so each skill's
	 * units are together), for the one streaming evaluation: the sides
	 * are its skills, a baseline unit belongs to its head side. */
	refs = sc_xcalloc(plan.n ? plan.n : 1, sizeof(*refs));
	for (size_t u = 0; u < plan.n; u++) {
		const struct sc_plan_unit *pu = &plan.units[u];
		size_t si = side_of(&changed, pu->skill, pu->variant), t;
		struct sc_eval_unit_ref *ref = &refs[nrefs];
		if (si == SIZE_MAX || !sides[si].loaded)
			continue;
		if (shard_n > 1 && sc_plan_shard_of(pu->id, shard_n) != shard_k)
			continue;
		t = test_index(sides[si].es.tests, pu->test_id);
		assert(t != SIZE_MAX);
		ref->skill = (uint32_t)si;
		ref->test = (uint32_t)t;
		ref->baseline = !strcmp(pu->variant, "baseline");
		ref->run = pu->run;
		for (size_t m = 0; m < o.nmodels; m++)
			if (!strcmp(models[m].name, pu->model))
				ref->model = (uint16_t)m;
		nrefs++;
		mine++;
		need_requests += pu->requests;
	}

	/* The plan's units are in refs now: only its hash and size are kept
	 * (a plan of tens of thousands of units holds each one's id). */
	memcpy(plan_hash, plan.hash, sizeof(plan_hash));
	plan_units = plan.n;
	sc_plan_release(&plan);

	/* The budget, before the first request. */
	{
		struct sc_trust_budget bud = { mine, need_requests, cfg.max_units, cfg.max_requests };
		sc_buf_clear(&tmp);
		err = sc_trust_budget_check(&bud, &tmp);
		fprintf(stderr, "%s\n", tmp.ptr);
		if (err < 0)
			goto fail;
	}

	/* Evaluate: one client for the whole run (its total and per-provider
	 * bounds and 429 limiter hold for every request), units streaming. */
	sc_eval_options_init(&eopt);
	eopt.models = o.models;
	eopt.nmodels = o.nmodels;
	eopt.runs = cfg.runs;
	eopt.max_turns = cfg.max_turns;
	eopt.judge_model = cfg.judge_model;
	eopt.judge_rubric = cfg.judge_rubric;
	eopt.reuse = !o.no_reuse;
	eopt.kernel = kernel;
	eopt.kernel_jobs = o.jobs ? o.jobs : sc_kernelops_default_jobs(&kops);
	eopt.run_id = run_id;
	eopt.kind = "run";
	eopt.store = store;
	eopt.progress = on_unit;
	eopt.activity = on_activity;
	eopt.stop = stop_requested;
	eopt.payload = &rprog;
	sc_client_options_init(&copt);
	copt.cache_dir = cache_dir;
	copt.cache_mode = o.offline ? SC_CACHE_OFFLINE : cfg.cache_mode;
	copt.max_total = cfg.concurrency;
	for (int k = 0; k < sc_provider_count(); k++)
		copt.per_provider[k] = sc_config_provider_limit(&cfg, sc_provider_name(k));
	copt.max_attempts = o.retries + 1;
	if (cfg.request_timeout_s > 0)
		copt.timeout_ms = (int64_t)(cfg.request_timeout_s * 1000);
	if ((err = sc_client_new(&client, &copt)) < 0)
		goto fail;
	eopt.client = client;
	sc_progress_init(&progress, stderr, isatty(STDERR_FILENO) && !in_actions(), mine);
	progress_ready = true;
	rprog.progress = &progress;
	rprog.verbose = o.verbose;
	{
		/* the sides, in the order side_of() numbers them */
		es = sc_xcalloc(changed.n ? 3 * changed.n : 1, sizeof(*es));
		for (size_t i = 0; i < 3 * changed.n; i++) {
			es[i] = sides[i].es;
			if (!sides[i].loaded)
				es[i].skill = NULL;  /* no unit of it runs */
		}
	}
	fprintf(stderr, "skillci run: %zu changed skill%s, %zu units in the plan%s", changed.n,
		changed.n == 1 ? "" : "s", plan_units, shard_n > 1 ? "" : "\n");
	if (shard_n > 1)
		fprintf(stderr, ", %zu in shard %d/%d\n", mine, shard_k, shard_n);
	sc_signals_install();
	signals_on = true;
	res.run.started_at = sc_eval_now_iso();
	res.run.id = sc_xstrdup(run_id);
	err = sc_eval_run_units(&res, &estats, es, 3 * changed.n, refs, nrefs, &eopt);
	sc_progress_finish(&progress);
	stopped = estats.stopped && res.nunits < mine;
	if (err < 0)
		goto fail;

	/* The results model. */
	res.schema = sc_xstrdup(SC_RESULTS_SCHEMA);
	res.skillci_version = sc_xstrdup(SC_VERSION);
	res.harness_version = sc_xstrdup(SC_EVAL_HARNESS_VERSION);
	res.run.kind = sc_xstrdup("run");
	res.run.finished_at = sc_eval_now_iso();
	res.run.complete = !stopped && shard_n == 1;
	if (stopped) {
		sc_buf_clear(&tmp);
		sc_buf_printf(&tmp, "interrupted by %s: %zu of %zu units evaluated",
			      sc_signals_name(sc_signals_which()), res.nunits, mine);
		res.run.incomplete_reason = sc_buf_detach(&tmp, NULL);
	} else if (shard_n > 1) {
		sc_buf_clear(&tmp);
		sc_buf_printf(&tmp, "shard %d/%d of a sharded run: merge every shard with skillci merge",
			      shard_k, shard_n);
		res.run.incomplete_reason = sc_buf_detach(&tmp, NULL);
	}
	res.run.repo = sc_xstrdup(o.repo);
	res.run.base_rev = dup_or_null(base_rev);
	res.run.head_rev = sc_xstrdup(head_rev);
	res.run.models = sc_xcalloc(o.nmodels, sizeof(char *));
	res.run.resolved_models = sc_xcalloc(o.nmodels, sizeof(char *));
	res.run.nmodels = res.run.nresolved_models = o.nmodels;
	for (size_t m = 0; m < o.nmodels; m++) {
		res.run.models[m] = sc_xstrdup(o.models[m]);
		res.run.resolved_models[m] = sc_xstrdup(models[m].name);
		res.run.oracle |= models[m].kind == SC_PROVIDER_ORACLE;
	}
	res.run.runs = cfg.runs;
	res.run.shard_index = shard_k;
	res.run.shard_count = shard_n;
	res.run.plan_hash = sc_xstrdup(plan_hash);
	res.run.mode = sc_xstrdup(!estats.any_kernel ? "none"
				  : kernel && kernel->mode ? kernel->mode : "compile-only");
	if (kops_ready)
		sc_kernelops_describe(&kops, &res.run);
	trust_to_results(&res.run.trust, &trust);
	res.run.trust.gate.present = true;
	res.run.trust.gate.pass_rate_drop_points = cfg.gate.pass_rate_drop_points;
	res.run.trust.gate.alpha = cfg.gate.alpha;
	res.run.trust.gate.tokens_rise_pct = cfg.gate.tokens_rise_pct;
	res.run.trust.gate.speedup_drop_ratio = cfg.gate.speedup_drop_ratio;
	res.run.trust.gate.judge_drop = cfg.gate.judge_drop;
	res.run.trust.gate.error_share = cfg.gate.error_share;
	res.run.trust.gate.require_lift = cfg.gate.require_lift;
	sc_eval_aggregate(&res, cfg.gate.alpha);
	res.totals.requests = estats.requests;
	res.totals.cache_hits = estats.cache_hits;
	res.totals.wall_ms = sc_now_ms() - t0;
	gate_rc = sc_gate_apply(&res, &cfg.gate);
	if (shard_n > 1 && gate_rc != SC_EXIT_INFRA) {
		/* a shard sees part of the units: merge decides the gate */
		sc_gate_clear(&res);
		gate_rc = SC_EXIT_OK;
	}

	/* Store, then the results JSON and every report, from the results in
	 * memory (reporters/reports.h). */
	sc_results_sort(&res);
	if ((err = store_run(store, &res, json)) < 0)
		goto fail;
	if ((rc = sc_cmd_write_reports(&res, junit, markdown, html, json, o.comment, store_path)))
		goto done;
	{
		struct sc_buf line = SC_BUF_INIT;
		sc_buf_puts(&line, "reports: ");
		sc_escape_log(&line, o.reports.junit);
		sc_buf_puts(&line, ", ");
		sc_escape_log(&line, o.reports.markdown);
		sc_buf_puts(&line, ", ");
		sc_escape_log(&line, o.reports.html);
		sc_buf_puts(&line, "/report.html, ");
		sc_escape_log(&line, o.reports.json);
		fprintf(stderr, "%s\n", line.ptr);
		sc_buf_release(&line);
	}

	if (stopped) {
		fprintf(stderr, "error: %s; the reports are marked incomplete and a rerun resumes "
			"from the store\n", res.run.incomplete_reason);
		rc = SC_EXIT_INFRA;
	} else if (gate_rc == SC_EXIT_INFRA) {
		const struct sc_results_unit *e = first_error(&res);
		struct sc_buf line = SC_BUF_INIT;
		sc_buf_puts(&line, "error: ");
		for (size_t i = 0; i < res.gate.nfailures; i++)
			if (!strcmp(res.gate.failures[i].rule, "error_share"))
				sc_escape_log(&line, res.gate.failures[i].message);
		if (e) {
			sc_buf_puts(&line, "\nerror: first failure: ");
			sc_escape_log(&line, e->skill);
			sc_buf_putc(&line, ' ');
			sc_escape_log(&line, e->model);
			sc_buf_puts(&line, " '");
			sc_escape_log(&line, e->test_name);
			sc_buf_puts(&line, "': ");
			sc_escape_log(&line, e->message ? e->message : "infrastructure error");
		}
		sc_ci_block_begin(stderr);
		fprintf(stderr, "%s\n", line.ptr);
		sc_ci_block_end(stderr);
		sc_buf_release(&line);
		rc = SC_EXIT_INFRA;
	} else if (shard_n > 1) {
		fprintf(stderr, "shard %d/%d done: the gate is decided by skillci merge\n", shard_k,
			shard_n);
		rc = SC_EXIT_OK;
	} else {
		sc_cmd_print_gate_failures(&res);
		rc = gate_rc;
	}
	goto done;

fail:
	rc = sc_cmd_fail(err == SC_ENOTFOUND ? SC_EINVAL : err);
done:
	if (signals_on)
		sc_signals_restore();
	if (progress_ready)
		sc_progress_release(&progress);
	if (kops_ready)
		sc_kernelops_release(&kops);
	sc_workdir_release(&wd);
	for (size_t i = 0; sides && i < 3 * changed.n; i++) {
		sc_skill_release(&sides[i].skill);
		sc_diags_release(&sides[i].findings);
		sc_test_set_release(&sides[i].tests);
	}
	free(sides);
	free(refs);
	free(es);
	sc_client_free(client);
	for (size_t i = 0; i < nextra; i++)
		free((char *)extra[i].prefix);
	free(extra);
	for (size_t i = 0; models && i < o.nmodels; i++)
		sc_model_release(&models[i]);
	free(models);
	sc_strlist_release(&model_names);
	sc_results_release(&res);
	sc_plan_release(&plan);
	sc_changed_release(&changed);
	sc_git_tree_free(tbase);
	sc_git_tree_free(thead);
	sc_git_free(repo);
	sc_store_free(store);
	sc_config_release(&cfg);
	sc_trust_release(&trust);
	sc_diags_release(&diags);
	sc_buf_release(&tmp);
	sc_buf_release(&plan_extra);
	sc_buf_release(&fixtures_rel);
	sc_cmd_reports_release(&o.reports);
	free(run_id);
	free(fixtures_dir);
	return rc;
}
