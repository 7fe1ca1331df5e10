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

#include <getopt.h>
#include <math.h>
#include <sys/stat.h>

static void usage(FILE *f)
{
	fprintf(f,
		"usage: skillci export -o FILE.jsonl [--passing] [--min-speedup X] [-s SKILL]\n"
		"                      [-m MODEL] [--run ID] [--store LOCATION]\n"
		"\n"
		"Writes the stored transcripts as chat-format JSONL, one unit a line:\n"
		"{\"messages\": [system, user, assistant, ...], \"metadata\": {verdict, tokens,\n"
		"speedup, fixture_hash, skill, model, ...}}.\n"
		"\n"
		"  -o, --output FILE    the JSONL file (written atomically)\n"
		"  --passing            only units that passed\n"
		"  --min-speedup X      only kernel units at least X times faster than the baseline\n"
		"  -s, --skill SKILL    only this skill (path or name)\n"
		"  -m, --model MODEL    only this model\n"
		"  --run ID             only units evaluated by this run\n"
		"  --store LOCATION     results store: a SQLite file or postgresql://… (default\n"
		"                       $" SC_STORE_ENV ", else " SC_STORE_DEFAULT_PATH ")\n"
		"\n"
		"exit: 0 written, 2 bad usage or no store, 3 the store or the file failed.\n");
}

int cmd_export(int argc, char **argv)
{
	enum { O_PASSING = 256, O_MIN_SPEEDUP, O_RUN, O_STORE };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "passing", no_argument, NULL, O_PASSING },
		{ "min-speedup", required_argument, NULL, O_MIN_SPEEDUP },
		{ "skill", required_argument, NULL, 's' },
		{ "model", required_argument, NULL, 'm' },
		{ "run", required_argument, NULL, O_RUN },
		{ "store", required_argument, NULL, O_STORE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *out_path = NULL, *store_path = NULL, *model = NULL;
	struct sc_export_options opt;
	struct sc_export_stats st;
	struct sc_store *store = NULL;
	struct sc_model pm;
	struct sc_config cfg;
	struct sc_buf data = SC_BUF_INIT;
	int c, err, rc = SC_EXIT_OK;
	char *end;

	sc_export_options_init(&opt);
	memset(&st, 0, sizeof(st));
	memset(&pm, 0, sizeof(pm));
	memset(&cfg, 0, sizeof(cfg));
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:s:m:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out_path = optarg; break;
		case O_PASSING: opt.passing = true; break;
		case O_MIN_SPEEDUP:
			opt.min_speedup = strtod(optarg, &end);
			if (*end || !*optarg || !(opt.min_speedup > 0) || isinf(opt.min_speedup))
				return sc_cmd_usage_error("export", "--min-speedup needs a positive "
							  "number, not '%s'", optarg);
			break;
		case 's': opt.skill = optarg; break;
		case 'm': model = optarg; break;
		case O_RUN: opt.run_id = optarg; break;
		case O_STORE: store_path = optarg; break;
		case 'h': usage(stdout); return SC_EXIT_OK;
		default: return sc_cmd_option_error("export", c, argv, longopts);
		}
	}
	if (optind < argc)
		return sc_cmd_usage_error("export", "unexpected argument '%s'", argv[optind]);
	if (!out_path)
		return sc_cmd_usage_error("export", "name the output file with -o FILE.jsonl");
	if (model) {
		/* the folder's named endpoints, so their models' names parse */
		if ((rc = sc_cmd_load_providers(&cfg, NULL)) != SC_EXIT_OK)
			goto done;
		if (sc_model_parse(&pm, model) < 0) {
			rc = sc_cmd_usage_error("export", "%s", sc_error_last());
			goto done;
		}
		opt.model = pm.name;
	}
	/* export reads; it never creates an empty store by mistake */
	if ((rc = sc_cmd_open_store(&store, sc_store_location(store_path, NULL), true)))
		goto done;
	if ((err = sc_export_jsonl(&data, store, &opt, &st)) < 0) {
		rc = sc_cmd_fail(err == SC_ELIMIT ? SC_EINVAL : SC_EIO);
		goto done;
	}
	if ((err = sc_write_file_atomic(out_path, data.ptr, data.len)) < 0) {
		rc = sc_cmd_fail(SC_EIO);
		goto done;
	}
	sc_cmd_line(stdout, "exported %zu unit%s to %s", st.written, st.written == 1 ? "" : "s",
		    out_path);
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
