#ifndef SC_CMD_H
#define SC_CMD_H
/*
 * Subcommands: one file runner/cmd/cmd-<name>.c each, with
 *     int cmd_<name>(int argc, char **argv);
 * argv[0] is the subcommand's name. A command parses its options with
 * getopt_long (set optind = 0 first to reset it), prints its usage to
 * stdout on --help and returns 0, and returns an exit code (SC_EXIT_*).
 * Only cmd-* files print errors and choose exit codes.
 */

struct sc_command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;  /* one line for the command table */
};

/* One line per command, in runner/cmd/cmd-<name>.c. */
int cmd_changed(int argc, char **argv);
int cmd_ask(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_list(int argc, char **argv);
int cmd_eval(int argc, char **argv);
int cmd_runs(int argc, char **argv);
int cmd_kernel(int argc, char **argv);
int cmd_fixtures(int argc, char **argv);
int cmd_generate(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_store(int argc, char **argv);

/* Prints "error: MESSAGE" for the current sc_error_last() and returns the
 * exit code for err (2 for input errors, 3 for infrastructure). */
int sc_cmd_fail(int err);
/* Prints "usage: ..." hint for a bad option and returns SC_EXIT_USAGE. */
int sc_cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
struct sc_config;
/*
 * For commands that only need the folder's provider settings (ask,
 * generate, export): loads the configuration of the current folder (or
 * config_path), prints its errors, and registers its named endpoints and
 * fastagent.config.yaml providers. Returns 0 or an exit code. cfg is filled
 * (release it even on failure).
 */
int sc_cmd_load_providers(struct sc_config *cfg, const char *config_path);

/* Prints the provider table and the aliases (`skillci help models`). */
int sc_cmd_help_models(void);

struct sc_store;
/*
 * Opens the results store at location for command cmd (sc_store_open(),
 * or sc_store_open_existing() when existing) and returns 0, or prints the
 * error and returns the exit code: 2 for a missing store (existing), a
 * location with a password or a newer schema; 3 when the database fails
 * or cannot be reached.
 */
int sc_cmd_open_store(struct sc_store **out, const char *location, bool existing);
/* Flushes stdout; a failed write of results is an error (exit 3). */
int sc_cmd_finish(int code);

#endif
