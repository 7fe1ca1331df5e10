/*
 * skillci store: commands on the results store itself (docs/store.md).
 *
 *   skillci store info [LOCATION]   backend, schema version, row counts
 *   skillci store copy FROM TO      every run, unit, aggregate and shard
 *                                   result of FROM into TO
 *
 * A location is a SQLite file or a PostgreSQL URI; either side of copy
 * may be either backend, so history moves from one box's SQLite file to
 * the fleet's PostgreSQL and back.
 */
#include "common.h"
#include "cmd/cmd.h"
#include "results/store.h"


static const struct sc_option store_table[] = { SC_OPT_END };

static const struct sc_options store_spec = {
	"store", "info [LOCATION] | copy FROM TO",
	"Commands on the results store. A location is a SQLite file or a PostgreSQL URI\n"
	"(postgresql://host/db?sslmode=…); the password comes from PGPASSWORD, ~/.pgpass\n"
	"or a service file (PGSERVICE), never from the location.\n"
	"\n"
	"  info [LOCATION]  the backend, schema version and number of runs, units,\n"
	"                   aggregates and shard results (default: $" SC_STORE_ENV ", else\n"
	"                   " SC_STORE_DEFAULT_PATH ")\n"
	"  copy FROM TO     copies every run, unit, aggregate and shard result of FROM into\n"
	"                   TO (created, or brought to this skillci's schema); units whose\n"
	"                   key TO holds already are kept, so a second copy changes nothing",
	"exit codes: 0 done, 2 bad usage, a missing store, a location with a password or a\n"
	"newer schema, 3 the database failed or cannot be reached.\n",
	store_table, SC_OPTS_IN_ORDER,
};

static int store_info(const char *location)
{
	struct sc_store *st = NULL;
	struct sc_store_counts n;
	int rc, err, version = 0;

	if ((rc = sc_cmd_open_store(&st, location, true)))
		return rc;
	if ((err = sc_store_schema_version(st, &version)) < 0 ||
	    (err = sc_store_counts(st, &n)) < 0) {
		rc = sc_cmd_fail(SC_EIO);
		goto done;
	}
	sc_cmd_line(stdout, "store: %s", sc_store_path(st));
	printf("backend: %s\nschema version: %d\nruns: %lld\nunits: %lld\n"
	       "aggregates: %lld\nshard results: %lld\n", sc_store_backend(st),
	       version, (long long)n.runs, (long long)n.units, (long long)n.aggregates,
	       (long long)n.shards);
done:
	sc_store_free(st);
	return rc;
}

static int store_copy(const char *from_loc, const char *to_loc)
{
	struct sc_store *from = NULL, *to = NULL;
	struct sc_store_copy_stats stats;
	int rc, err;

	if (!strcmp(from_loc, to_loc))
		return sc_cmd_usage_error("store", "FROM and TO are the same store");
	if ((rc = sc_cmd_open_store(&from, from_loc, true)) ||
	    (rc = sc_cmd_open_store(&to, to_loc, false)))
		goto done;
	if ((err = sc_store_copy(to, from, &stats)) < 0) {
		rc = sc_cmd_fail(err == SC_EUNSAFE ? err : SC_EIO);
		goto done;
	}
	sc_cmd_line(stdout, "copied %lld runs, %lld units (%lld new), %lld aggregates and %lld "
		    "shard results from %s to %s", (long long)stats.runs, (long long)(stats.units - stats.skipped_units),
	       (long long)stats.new_units, (long long)stats.aggregates, (long long)stats.shards,
	       sc_store_path(from), sc_store_path(to));
	if (stats.skipped_units)
		sc_cmd_line(stderr, "warning: %lld of %lld units of %s not copied: their MAC does not "
			    "hold (planted, edited or unsigned)%s%s%s", (long long)stats.skipped_units,
			(long long)stats.units, sc_store_path(from),
			stats.unknown_key_units ? ", or they are signed by runner key " : "",
			stats.unknown_key_units ? stats.unknown_key : "",
			stats.unknown_key_units ? ", which this runner does not trust (add it to "
			"SKILLCI_TRUSTED_KEYS or SKILLCI_TRUSTED_KEY_FILES, or copy with that "
			"runner's key)" : "");
done:
	sc_store_free(from);
	sc_store_free(to);
	return rc;
}

int cmd_store(int argc, char **argv)
{
	int rc, n;

	/* the options end at the subcommand */
	if ((rc = sc_cmd_options(&store_spec, NULL, argc, argv, &n)))
		return rc == SC_CMD_HELP ? SC_EXIT_OK : rc;
	if (!n)
		return sc_cmd_usage_error("store", "name a subcommand: info or copy");
	if (!strcmp(argv[1], "info")) {
		if (n > 2)
			return sc_cmd_usage_error("store", "info takes at most one location");
		return store_info(sc_store_location(n == 2 ? argv[2] : NULL, NULL));
	}
	if (!strcmp(argv[1], "copy")) {
		if (n != 3)
			return sc_cmd_usage_error("store", "copy takes two locations: FROM TO");
		return store_copy(argv[2], argv[3]);
	}
	return sc_cmd_usage_error("store", "unknown subcommand '%s' (info, copy)", argv[1]);
}
