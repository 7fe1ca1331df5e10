/*
 * skillci export -o FILE.jsonl: stored transcripts as chat-format JSONL
 * for fine-tuning (export.h, docs/generate.md), written atomically.
 */
#include "common.h"
#include "cmd/cmd.h"
#include "escape.h"
#include "pipeline/config.h"
#include "results/export.h"
#include "providers/provider.h"
#include "results/store.h"

#include <math.h>
#include <sys/stat.h>

struct export_opts {
	struct sc_export_options e;
	const char *output, *store, *model;
};

/* --min-speedup X: a positive, finite number. */
static int min_speedup_option(void *opts, const char *value)
{
	struct export_opts *o = opts;
	char *end;
	double v = strtod(value, &end);

	if (*end || !*value || !(v > 0) || isinf(v))
		return sc_error_set(SC_EINVAL, "needs a positive number, not '%s'", value);
	o->e.min_speedup = v;
	return 0;
}

static const struct sc_option export_table[] = {
	SC_OPT_STRING("output", 'o', struct export_opts, output, "FILE.jsonl",
		      "the JSONL file (written atomically)"),
	SC_OPT_FLAG("passing", 0, struct export_opts, e.passing, "only units that passed"),
	SC_OPT_CALLBACK("min-speedup", 0, min_speedup_option, "X",
			"only kernel units at least X times faster than the baseline"),
	SC_OPT_STRING("skill", 's', struct export_opts, e.skill, "SKILL",
		      "only this skill (path or name)"),
	SC_OPT_STRING("model", 'm', struct export_opts, model, "MODEL", "only this model"),
	SC_OPT_STRING("run", 0, struct export_opts, e.run_id, "ID",
		      "only units evaluated by this run"),
	SC_OPT_STRING("store", 0, struct export_opts, store, "LOCATION",
		      "results store: a SQLite file or postgresql://… (default\n"
		      "$" SC_STORE_ENV ", else " SC_STORE_DEFAULT_PATH ")"),
	SC_OPT_END,
};

static const struct sc_options export_spec = {
	"export", NULL,
	"Writes the stored transcripts as chat-format JSONL, one unit a line:\n"
	"{\"messages\": [system, user, assistant, ...], \"metadata\": {verdict, tokens,\n"
	"speedup, fixture_hash, skill, model, ...}}.",
	"exit: 0 written, 2 bad usage or no store, 3 the store or the file failed.\n",
	export_table, 0,
};

int cmd_export(int argc, char **argv)
{
	struct export_opts o;
	struct sc_export_options *opt = &o.e;
	struct sc_export_stats st;
	struct sc_store *store = NULL;
	struct sc_model pm;
	struct sc_config cfg;
	struct sc_buf data = SC_BUF_INIT;
	int nargs, err, rc = SC_EXIT_OK;

	memset(&o, 0, sizeof(o));
	sc_export_options_init(opt);
	memset(&st, 0, sizeof(st));
	memset(&pm, 0, sizeof(pm));
	memset(&cfg, 0, sizeof(cfg));
	if ((rc = sc_cmd_options(&export_spec, &o, argc, argv, &nargs)))
		return rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	if (nargs)
		return sc_cmd_usage_error("export", "unexpected argument '%s'", argv[1]);
	if (!o.output)
		return sc_cmd_usage_error("export", "name the output file with -o FILE.jsonl");
	if (o.model) {
		/* the folder's named endpoints, so their models' names parse */
		if ((rc = sc_cmd_load_providers(&cfg, NULL)) != SC_EXIT_OK)
			goto done;
		if (sc_model_parse(&pm, o.model) < 0) {
			rc = sc_cmd_usage_error("export", "%s", sc_error_last());
			goto done;
		}
		opt->model = pm.name;
	}
	/* export reads; it never creates an empty store by mistake */
	if ((rc = sc_cmd_open_store(&store, sc_store_location(o.store, NULL), true)))
		goto done;
	if ((err = sc_export_jsonl(&data, store, opt, &st)) < 0) {
		rc = sc_cmd_fail(err == SC_ELIMIT ? SC_EINVAL : SC_EIO);
		goto done;
	}
	if ((err = sc_write_file_atomic(o.output, data.ptr, data.len)) < 0) {
		rc = sc_cmd_fail(SC_EIO);
		goto done;
	}
	sc_cmd_line(stdout, "exported %zu unit%s to %s", st.written, st.written == 1 ? "" : "s",
		    o.output);
	if (st.no_answer || st.below_speedup)
		printf("left out: %zu without an answer, %zu below --min-speedup\n", st.no_answer,
		       st.below_speedup);
	if (st.no_system)
		fprintf(stderr, "warning: %zu unit%s written without the system prompt: the skill "
			"folder changed or is gone since they were evaluated\n", st.no_system,
			st.no_system == 1 ? "" : "s");
	if (st.unverified) {
		struct sc_buf line = SC_BUF_INIT;
		printf("left out: %zu unit%s whose integrity check fails (planted, edited, or "
		       "signed by a key this runner does not trust)\n", st.unverified,
		       st.unverified == 1 ? "" : "s");
		for (size_t i = 0; i < st.unverified_names.n; i++) {
			sc_buf_clear(&line);
			sc_escape_log(&line, st.unverified_names.items[i]);
			fprintf(stderr, "warning: not exported: %s\n", line.ptr);
		}
		if (st.unverified > st.unverified_names.n)
			fprintf(stderr, "warning: and %zu more not exported\n",
				st.unverified - st.unverified_names.n);
		sc_buf_release(&line);
	}
	if (st.dropped_turns)
		printf("left out: %zu turn%s of %zu unit%s that were neither user nor assistant "
		       "(the system prompt is rebuilt from the skill)\n", st.dropped_turns,
		       st.dropped_turns == 1 ? "" : "s", st.units_dropped_turns,
		       st.units_dropped_turns == 1 ? "" : "s");
done:
	sc_export_stats_release(&st);
	sc_buf_release(&data);
	sc_model_release(&pm);
	sc_store_free(store);
	sc_config_release(&cfg);
	return rc;
}
