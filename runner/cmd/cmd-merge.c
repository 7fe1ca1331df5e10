/*
 * skillci merge SHARD.json...: joins the results of the shards of one
 * sharded `skillci run` (docs/run.md, "Shards") into one results JSON,
 * renders the reports and applies the gate, as the unsharded run would
 * have. `skillci merge --run ID` takes the shards from the results store
 * instead (each shard stores its results there, docs/store.md), and
 * stores the merged run with its aggregates under ID.
 *
 * Every shard must carry a signature under this runner's key or a trusted
 * one (results/signing.h): an artifact anyone else wrote or edited is
 * refused, naming the key that signed it and what to set.
 *
 * It refuses files that do not make one whole plan: another plan hash or
 * shard count, a shard missing or given twice, a shard that was
 * interrupted, a unit that is not in the shard its id hashes to, a unit
 * given twice.
 *
 * Exit codes: 0 the gate passed, 1 it failed, 2 bad usage or shards that
 * do not belong together, 3 a report could not be written or too many
 * infrastructure errors.
 */
#include "common.h"
#include "cmd/cmd.h"
#include "pipeline/budget.h"
#include "pipeline/config.h"
#include "diag.h"
#include "eval/eval.h"
#include "pipeline/gate.h"
#include "pipeline/plan.h"
#include "results/results.h"
#include "results/store.h"
#include "pipeline/combine.h"

#include <getopt.h>
#include <unistd.h>

static const char usage_text[] =
	"usage: skillci merge SHARD.json... [--config F] [--junit F] [--markdown F] [--html DIR]\n"
	"                     [--json F] [--report-dir DIR] [--comment]\n"
	"       skillci merge --run ID [--store LOCATION] [options as above]\n"
	"\n"
	"Merges the results of every shard of one sharded run (skillci run --shard K/N)\n"
	"into one results JSON, renders the reports and applies the gate.\n"
	"\n"
	"  --run ID       take the shards of run ID (skillci run --run-id ID) from the results\n"
	"                 store instead of files, and store the merged run there\n"
	"  --store LOCATION  results store: a SQLite file or postgresql://… (default\n"
	"                 $SKILLCI_STORE, else skillci.yml, else .skillci/results.db)\n"
	"  --config F     gate thresholds and report paths (default: the gate the shards ran\n"
	"                 with, which `run` took from the base revision; the workspace's\n"
	"                 skillci.yml is the pull request's and is not read)\n"
	"  --junit F, --markdown F, --html DIR, --json F\n"
	"                 report paths (default: skillci.yml reports:, else .skillci/report/)\n"
	"  --report-dir DIR  folder for the reports not named one by one\n"
	"  --comment      create or update the sticky PR comment (GitHub Actions)\n"
	"\n"
	"exit codes: 0 gate passed, 1 gate failed, 2 bad usage or shards that are not one\n"
	"whole plan, 3 a report could not be written or too many infrastructure errors.\n";

struct merge_opts {
	const char *config, *run_id, *store;
	struct sc_cmd_reports reports;
	bool comment;
};

static int parse_args(struct merge_opts *o, int argc, char **argv)
{
	enum { O_CONFIG = 256, O_COMMENT, O_RUN, O_STORE };
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, O_CONFIG },
		SC_CMD_REPORT_OPTIONS,
		{ "comment", no_argument, NULL, O_COMMENT },
		{ "run", required_argument, NULL, O_RUN },
		{ "store", required_argument, NULL, O_STORE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (c) {
		case O_CONFIG: o->config = optarg; break;
		case O_COMMENT: o->comment = true; break;
		case O_RUN: o->run_id = optarg; break;
		case O_STORE: o->store = optarg; break;
		case 'h': fputs(usage_text, stdout); return 1;
		default:
			if (!sc_cmd_report_option(&o->reports, c, optarg))
				return sc_cmd_option_error("merge", c, argv, longopts);
		}
	}
	if (o->run_id && optind < argc)
		return sc_cmd_usage_error("merge", "give shard files or --run ID, not both");
	if (o->store && !o->run_id)
		return sc_cmd_usage_error("merge", "--store goes with --run ID");
	if (o->run_id)
		return 0;
	if (optind >= argc)
		return sc_cmd_usage_error("merge", "name the shard results files, or --run ID to "
					  "take them from the results store");
	if (argc - optind > SC_MAX_MERGE_FILES)
		return sc_cmd_usage_error("merge", "at most %d shard files", SC_MAX_MERGE_FILES);
	return 0;
}

/*
 * Every shard of one plan lists the same skills, each with the same
 * status, trees and findings count: a shard that drops a skill, or marks
 * it unchanged or untested where the others do not, is refused
 * (SC_EINVAL naming both files and the skill).
 */
/* Equal strings, NULL equal only to NULL. */
static bool same_str(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int same_skills(const struct sc_results *a, const char *fa, const struct sc_results *b,
		       const char *fb)
{
	for (size_t i = 0; i < a->nskills || i < b->nskills; i++) {
		const struct sc_results_skill *x = i < a->nskills ? &a->skills[i] : NULL;
		const struct sc_results_skill *y = i < b->nskills ? &b->skills[i] : NULL;
		const struct sc_results_skill *one = x ? x : y;
		if (!x || !y || !same_str(x->path, y->path))
			return sc_error_set(SC_EINVAL, "'%s' and '%s' list different skills (%s '%s'): "
					    "the shards of one run list the same", fa, fb,
					    x ? "the first has" : "the second has", one->path);
		if (!same_str(x->status, y->status) || x->untested != y->untested ||
		    x->first_tests != y->first_tests ||
		    !same_str(x->head_tree, y->head_tree) || !same_str(x->base_tree, y->base_tree) ||
		    x->nfindings != y->nfindings)
			return sc_error_set(SC_EINVAL, "'%s' and '%s' disagree about skill '%s' (status "
					    "%s%s vs %s%s): the shards of one run agree", fa, fb,
					    x->path, x->status ? x->status : "none",
					    x->untested ? ", untested" : "",
					    y->status ? y->status : "none", y->untested ? ", untested" : "");
	}
	return 0;
}

/*
 * Checks that the shards make one whole plan (see the file comment) and
 * returns, in order[k-1], the index of the file holding shard k.
 * SC_EINVAL naming the file and what is wrong.
 */
static int check_shards(size_t *order, struct sc_results *sh, char *const *files, size_t n)
{
	int64_t count = sh[0].run.shard_count;
	struct sc_buf id = SC_BUF_INIT;
	char **ids = NULL;
	size_t nids = 0, total = 0;
	int err = 0;

	if (count < 1 || (size_t)count != n)
		return sc_error_set(SC_EINVAL, "'%s' is shard %lld of %lld, but %zu files were given: "
				    "merge needs every shard once", files[0],
				    (long long)sh[0].run.shard_index, (long long)count, n);
	for (size_t i = 0; i < n; i++)
		order[i] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		const struct sc_results_run *run = &sh[i].run;
		if ((err = same_skills(&sh[0], files[0], &sh[i], files[i])) < 0)
			return err;
		if (!sc_streq(run->kind, "run"))
			return sc_error_set(SC_EINVAL, "'%s' is not the results of skillci run", files[i]);
		if (!sc_streq(run->plan_hash, sh[0].run.plan_hash))
			return sc_error_set(SC_EINVAL, "'%s' belongs to another plan (plan_hash %.12s, "
					    "'%s' has %.12s)", files[i],
					    run->plan_hash ? run->plan_hash : "none", files[0],
					    sh[0].run.plan_hash ? sh[0].run.plan_hash : "none");
		if (run->shard_count != count)
			return sc_error_set(SC_EINVAL, "'%s' is one of %lld shards, '%s' one of %lld",
					    files[i], (long long)run->shard_count, files[0],
					    (long long)count);
		for (size_t j = 0; j < i; j++) {
			const struct sc_results_run *o = &sh[j].run;
			if (run->fixtures_lock && o->fixtures_lock &&
			    strcmp(run->fixtures_lock, o->fixtures_lock))
				return sc_error_set(SC_EINVAL, "'%s' and '%s' used different fixtures "
						    "(fixtures.lock %.12s vs %.12s): results compare only "
						    "on the same pinned fixtures", files[j], files[i],
						    o->fixtures_lock, run->fixtures_lock);
			if (run->has_gpu && o->has_gpu &&
			    (!sc_streq(run->gpu.name, o->gpu.name) || !sc_streq(run->gpu.driver, o->gpu.driver)))
				return sc_error_set(SC_EINVAL, "'%s' ran on %s (driver %s) but '%s' on %s "
						    "(driver %s): timings compare only on one GPU and driver",
						    files[j], o->gpu.name ? o->gpu.name : "?",
						    o->gpu.driver ? o->gpu.driver : "?", files[i],
						    run->gpu.name ? run->gpu.name : "?",
						    run->gpu.driver ? run->gpu.driver : "?");
		}
		if (run->shard_index < 1 || run->shard_index > count)
			return sc_error_set(SC_EINVAL, "'%s': shard index %lld is out of range", files[i],
					    (long long)run->shard_index);
		if (order[run->shard_index - 1] != SIZE_MAX)
			return sc_error_set(SC_EINVAL, "shard %lld is given twice ('%s' and '%s')",
					    (long long)run->shard_index,
					    files[order[run->shard_index - 1]], files[i]);
		order[run->shard_index - 1] = i;
		if (!run->complete && count > 1 && run->incomplete_reason &&
		    !sc_starts_with(run->incomplete_reason, "shard "))
			return sc_error_set(SC_EINVAL, "'%s' (shard %lld) is incomplete: %s; rerun that "
					    "shard (it resumes from its store)", files[i],
					    (long long)run->shard_index, run->incomplete_reason);
		total += sh[i].nunits;
	}
	ids = sc_xcalloc(total ? total : 1, sizeof(*ids));
	for (size_t i = 0; i < n; i++)
		for (size_t u = 0; u < sh[i].nunits; u++) {
			const struct sc_results_unit *un = &sh[i].units[u];
			int want;
			sc_buf_clear(&id);
			sc_plan_unit_id(&id, un->skill, un->variant, un->model, un->test_id,
					(int)un->run_index);
			/* a sequential run splits by skill (docs/run.md, "Shards") */
			want = sc_plan_shard_of(sh[i].run.trust.gate.max_runs > 0 ? un->skill : id.ptr,
						(int)count);
			if (want != sh[i].run.shard_index) {
				err = sc_error_set(SC_EINVAL, "'%s': unit '%s' belongs to shard %d, not %lld",
						   files[i], id.ptr, want,
						   (long long)sh[i].run.shard_index);
				goto done;
			}
			ids[nids++] = sc_buf_detach(&id, NULL);
		}
	qsort(ids, nids, sizeof(*ids), sc_strcmp_qsort);
	for (size_t i = 1; i < nids; i++)
		if (!strcmp(ids[i - 1], ids[i])) {
			err = sc_error_set(SC_EINVAL, "unit '%s' is in more than one shard file", ids[i]);
			goto done;
		}
done:
	for (size_t i = 0; i < nids; i++)
		free(ids[i]);
	free(ids);
	sc_buf_release(&id);
	return err;
}

/* Replaces *dst with a copy of s. */
static void set_str(char **dst, const char *s)
{
	free(*dst);
	*dst = s ? sc_xstrdup(s) : NULL;
}

/*
 * Builds the merged results in out from the shards (taken in shard order;
 * their units are moved out), with the id run_id (NULL: a new one): the
 * first shard's frame, every unit, the
 * earliest start and latest finish, summed request counts, then fresh
 * aggregates and comparisons (significance at alpha).
 */
/*
 * Moves s's per-test history into out: every shard computed it from the
 * store for the skills it saw, so an entry out already has is dropped.
 */
static void merge_flips(struct sc_results *out, struct sc_results *s)
{
	for (size_t i = 0; i < s->nflips; i++) {
		struct sc_results_flips *f = &s->flips[i];
		bool have = false;
		for (size_t j = 0; j < out->nflips && !have; j++)
			have = sc_streq(out->flips[j].skill, f->skill) &&
			       sc_streq(out->flips[j].variant, f->variant) &&
			       sc_streq(out->flips[j].model, f->model) &&
			       sc_streq(out->flips[j].test_id, f->test_id);
		if (have) {
			free(f->skill); free(f->variant); free(f->model); free(f->test_id);
			continue;
		}
		out->flips = sc_xrealloc(out->flips, (out->nflips + 1) * sizeof(*out->flips));
		out->flips[out->nflips++] = *f;
	}
	free(s->flips);
	s->flips = NULL;
	s->nflips = 0;
	sc_results_sort_flips(out);
}

static void merge_into(struct sc_results *out, struct sc_results *sh, const size_t *order, size_t n,
		       const char *run_id, double alpha)
{
	size_t total = 0, at = 0;
	int64_t requests = 0, cache_hits = 0, wall = 0;
	char *id = run_id ? sc_xstrdup(run_id) : sc_eval_new_run_id();

	for (size_t i = 0; i < n; i++) {
		total += sh[i].nunits;
		requests += sh[i].totals.requests;
		cache_hits += sh[i].totals.cache_hits;
		if (sh[i].totals.wall_ms > wall)
			wall = sh[i].totals.wall_ms;
	}
	*out = sh[order[0]];
	sc_results_init(&sh[order[0]]);
	sh[order[0]].nunits = 0;
	out->units = sc_xrealloc(out->units, (total ? total : 1) * sizeof(*out->units));
	at = out->nunits;
	for (size_t k = 1; k < n; k++) {
		struct sc_results *s = &sh[order[k]];
		memcpy(out->units + at, s->units, s->nunits * sizeof(*s->units));
		at += s->nunits;
		sc_budget_usage_merge(out, s);  /* tokens and cost, summed */
		merge_flips(out, s);
		s->nunits = 0;
		sc_results_adopt_pool(out, s);  /* the units moved keep their strings */
		if (s->run.started_at && out->run.started_at &&
		    strcmp(s->run.started_at, out->run.started_at) < 0)
			set_str(&out->run.started_at, s->run.started_at);
		if (s->run.finished_at && out->run.finished_at &&
		    strcmp(s->run.finished_at, out->run.finished_at) > 0)
			set_str(&out->run.finished_at, s->run.finished_at);
		if (s->run.mode && strcmp(s->run.mode, "none") &&
		    (!out->run.mode || !strcmp(out->run.mode, "none")))
			set_str(&out->run.mode, s->run.mode);
		if (!out->run.fixtures_lock && s->run.fixtures_lock)
			set_str(&out->run.fixtures_lock, s->run.fixtures_lock);
		if (!out->run.has_gpu && s->run.has_gpu) {
			out->run.has_gpu = true;
			out->run.gpu = s->run.gpu;
			memset(&s->run.gpu, 0, sizeof(s->run.gpu));
			s->run.has_gpu = false;
		}
	}
	out->nunits = at;
	free(out->run.id);
	out->run.id = id;
	out->run.complete = true;
	set_str(&out->run.incomplete_reason, NULL);
	out->run.shard_index = 1;
	out->run.shard_count = 1;
	out->sorted = false;
	sc_results_sort(out);
	sc_eval_aggregate(out, alpha);
	out->totals.requests = requests;
	out->totals.cache_hits = cache_hits;
	out->totals.wall_ms = wall;
}

/* The shards of one run read from the store, as results and labels. */
struct stored {
	struct sc_store *store;
	struct sc_results *sh;
	char **labels;
	size_t n, alloc, labels_alloc;
};

static int on_shard(const struct sc_store_shard *s, void *payload)
{
	struct stored *st = payload;
	struct sc_buf label = SC_BUF_INIT;
	int err;

	if (st->n == SC_MAX_MERGE_FILES)
		return sc_error_set(SC_ELIMIT, "run '%s' has more than %d shards", s->run_id,
				    SC_MAX_MERGE_FILES);
	SC_GROW(st->sh, st->alloc, st->n + 1);
	SC_GROW(st->labels, st->labels_alloc, st->n + 1);
	sc_buf_printf(&label, "store '%s' run '%s' shard %d/%d", sc_store_path(st->store), s->run_id,
		      s->shard_index, s->shard_count);
	sc_results_init(&st->sh[st->n]);
	err = sc_results_verify_text(s->results, strlen(s->results), label.ptr);
	if (err == 0)
		err = sc_results_parse(&st->sh[st->n], s->results, strlen(s->results), label.ptr);
	st->sh[st->n].untrusted = err < 0;
	st->labels[st->n++] = sc_buf_detach(&label, NULL);
	return err;
}

/*
 * Reads the shards of run_id from the store. SC_ENOTFOUND when it has
 * none; SC_EINVAL naming the missing shards when some are not there.
 */
static int load_stored(struct stored *st, const char *run_id)
{
	struct sc_buf missing = SC_BUF_INIT;
	int64_t count;
	int err;

	if ((err = sc_store_each_shard(st->store, run_id, on_shard, st)) < 0)
		return err == SC_ENOTFOUND || err == SC_EPARSE ? SC_EINVAL : err;
	if (st->n == 0)
		return sc_error_set(SC_ENOTFOUND, "store '%s' holds no shard of run '%s': run each "
				    "shard with --shard K/N --run-id %s and this store",
				    sc_store_path(st->store), run_id, run_id);
	count = st->sh[0].run.shard_count;
	if (count >= 1 && (size_t)count != st->n) {
		size_t listed = 0;
		for (int64_t k = 1; k <= count && listed < 10; k++) {
			bool have = false;
			for (size_t i = 0; i < st->n && !have; i++)
				have = st->sh[i].run.shard_index == k;
			if (!have) {
				sc_buf_printf(&missing, "%s%lld", listed ? ", " : "", (long long)k);
				listed++;
			}
		}
		err = sc_error_set(SC_EINVAL, "store '%s' holds %zu of the %lld shards of run '%s'%s%s; "
				   "run the missing ones (--run-id %s) and merge again",
				   sc_store_path(st->store), st->n, (long long)count, run_id,
				   missing.len ? ": missing " : "", missing.ptr, run_id);
	}
	sc_buf_release(&missing);
	return err;
}

static bool same_gate(const struct sc_results_gate_policy *a, const struct sc_results_gate_policy *b)
{
	return a->present == b->present && (!a->present ||
	       (a->pass_rate_drop_points == b->pass_rate_drop_points && a->alpha == b->alpha &&
		a->tokens_rise_pct == b->tokens_rise_pct &&
		a->speedup_drop_ratio == b->speedup_drop_ratio && a->judge_drop == b->judge_drop &&
		a->error_share == b->error_share && a->require_lift == b->require_lift &&
		a->deletions_allowed == b->deletions_allowed &&
		a->max_baseline_pass_rate == b->max_baseline_pass_rate &&
		a->compile_only == b->compile_only &&
		a->fail_inconclusive == b->fail_inconclusive &&
		a->allow_untested == b->allow_untested && a->first_runs == b->first_runs &&
		a->max_runs == b->max_runs && a->planned_checks == b->planned_checks));
}

int cmd_merge(int argc, char **argv)
{
	struct merge_opts o;
	struct sc_config cfg;
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_results *sh = NULL, res;
	struct stored stored;
	struct sc_store *store = NULL;
	const char *store_at;
	char *const *labels;
	size_t n = 0, *order = NULL;
	int rc, err, gate_rc;

	memset(&o, 0, sizeof(o));
	memset(&stored, 0, sizeof(stored));
	sc_config_defaults(&cfg);
	sc_results_init(&res);
	if ((rc = parse_args(&o, argc, argv))) {
		sc_config_release(&cfg);
		return rc == 1 ? 0 : rc;
	}
	sc_config_release(&cfg);
	if (o.config) {
		err = sc_config_load(&cfg, ".", o.config, &diags);
	} else {
		sc_config_defaults(&cfg);
		err = 0;
	}
	if (diags.n) {
		struct sc_buf line = SC_BUF_INIT;
		for (size_t i = 0; i < diags.n; i++) {
			sc_buf_clear(&line);
			sc_diag_format(&line, &diags.items[i]);
			fprintf(stderr, "%s\n", line.ptr);
		}
		sc_buf_release(&line);
	}
	if (err < 0) {
		rc = sc_cmd_fail(err == SC_ENOTFOUND ? SC_EINVAL : err);
		goto done;
	}
	if (sc_diags_count(&diags, SC_SEV_ERROR)) {
		fprintf(stderr, "error: the configuration has errors (above)\n");
		rc = SC_EXIT_USAGE;
		goto done;
	}
	if (o.run_id) {
		/* the shards' results from the store */
		if ((rc = sc_cmd_open_store(&store, sc_store_location(o.store, cfg.store_path), true)))
			goto done;
		stored.store = store;
		err = load_stored(&stored, o.run_id);
		n = stored.n;
		sh = stored.sh;
		labels = stored.labels;
		if (err < 0) {
			rc = sc_cmd_fail(err == SC_ENOTFOUND ? SC_EINVAL : err);
			goto done;
		}
	} else {
		n = (size_t)(argc - optind);
		sh = sc_xcalloc(n, sizeof(*sh));
		for (size_t i = 0; i < n; i++)
			sc_results_init(&sh[i]);
		for (size_t i = 0; i < n; i++) {
			/* an artifact is someone else's until its signature holds */
			if ((err = sc_results_verify_file(argv[optind + (int)i])) < 0 ||
			    (err = sc_results_load(&sh[i], argv[optind + (int)i])) < 0) {
				rc = sc_cmd_fail(err == SC_ENOTFOUND || err == SC_EIO ? SC_EINVAL : err);
				goto done;
			}
			sh[i].untrusted = false;
		}
		labels = argv + optind;
	}
	order = sc_xcalloc(n ? n : 1, sizeof(*order));
	if ((err = check_shards(order, sh, labels, n)) < 0) {
		rc = sc_cmd_fail(err);
		goto done;
	}
	if (!o.config) {
		/* the thresholds the shards ran with, the same in every shard */
		const struct sc_results_gate_policy *g = &sh[0].run.trust.gate;
		for (size_t i = 1; i < n; i++)
			if (!same_gate(&sh[i].run.trust.gate, g)) {
				rc = sc_cmd_usage_error("merge", "'%s' and '%s' ran with different gate "
							"thresholds; give them with --config",
							labels[0], labels[i]);
				goto done;
			}
		if (g->present) {
			sc_gate_policy_to_config(&cfg.gate, g);
		}
	}
	merge_into(&res, sh, order, n, o.run_id, cfg.gate.alpha);
	/* a status the units contradict is not taken (docs/security.md) */
	sc_report_distrust_statuses(&res, "a shard");
	/* The skills' findings come with every shard: the validity check is
	 * decided again from them, like every other check. */
	gate_rc = sc_gate_apply(&res, &cfg.gate);

	sc_cmd_reports_resolve(&o.reports, &cfg);
	sc_cmd_reports_mkdirs(&o.reports);
	if ((err = sc_results_save(&res, o.reports.json)) < 0) {
		rc = sc_cmd_fail(SC_EIO);
		goto done;
	}
	if (store) {
		/* the merged run joins the history: its row and aggregates */
		if ((err = sc_store_begin(store)) < 0 ||
		    (err = sc_eval_store_put_run(store, &res, "run", o.reports.json)) < 0 ||
		    (err = sc_eval_store_put_aggregates(store, &res)) < 0 ||
		    (err = sc_store_commit(store)) < 0) {
			sc_store_rollback(store);
			rc = sc_cmd_fail(SC_EIO);
			goto done;
		}
	}
	store_at = store ? sc_store_location(o.store, cfg.store_path) : NULL;
	sc_results_sort(&res);
	{
		/* the results JSON is written above, before the store */
		struct sc_cmd_reports rest = o.reports;
		rest.json = NULL;
		if ((rc = sc_cmd_reports_write(&rest, &res, o.comment, store_at)))
			goto done;
	}
	fprintf(stderr, "merged %zu shards (%zu units): %s, %s, %s/report.html, %s\n", n, res.nunits,
		o.reports.junit, o.reports.markdown, o.reports.html, o.reports.json);
	sc_cmd_print_gate_failures(&res);
	rc = gate_rc;
done:
	for (size_t i = 0; sh && i < n; i++)
		sc_results_release(&sh[i]);
	free(sh);
	for (size_t i = 0; i < stored.n; i++)
		free(stored.labels[i]);
	free(stored.labels);
	sc_store_free(store);
	free(order);
	sc_results_release(&res);
	sc_config_release(&cfg);
	sc_diags_release(&diags);
	sc_cmd_reports_release(&o.reports);
	return rc;
}
