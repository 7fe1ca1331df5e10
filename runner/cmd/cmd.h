#ifndef SC_CMD_H
#define SC_CMD_H
/*
 * Subcommands: one file runner/cmd/cmd-<name>.c each, with
 *     int cmd_<name>(int argc, char **argv);
 * argv[0] is the subcommand's name. A command declares its options once,
 * in a table (core/options.h) that names each option, its value's kind,
 * where it goes in the command's options struct (the library's own, where
 * there is one: struct sc_pipeline_options for run) and its help line;
 * sc_cmd_options() parses argv with it, prints the usage made from it on
 * --help, and gives every bad option one error line and exit 2. A command
 * returns an exit code (SC_EXIT_*). Only cmd-* files print errors and
 * choose exit codes.
 */

#include <stdbool.h>
#include <stdio.h>

#include "options.h"

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
int cmd_tests(int argc, char **argv);

/* Prints "error: MESSAGE" for the current sc_error_last() and returns the
 * exit code for err (2 for input errors, 3 for infrastructure). */
int sc_cmd_fail(int err);
/*
 * Prints one line to f: fmt formatted, the whole line escaped for a
 * terminal or the CI log (sc_escape_log: values name paths, skills, tests,
 * answers and server replies, any of which may hold control bytes), then
 * a line feed. fmt holds no line feed of its own.
 */
void sc_cmd_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints s (a block of lines: an answer, a log) escaped with sc_escape_text. */
void sc_cmd_text(FILE *f, const char *s);
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

/* `skillci help models`: the provider table and the aliases, or --parse. argv[0] is "models". */
int sc_cmd_help_models(int argc, char **argv);

struct sc_store;
/*
 * Opens the results store at location for command cmd (sc_store_open(),
 * or sc_store_open_existing() when existing) and returns 0, or prints the
 * error and returns the exit code: 2 for a missing store (existing), a
 * location with a password or a newer schema; 3 when the database fails
 * or cannot be reached.
 */
int sc_cmd_open_store(struct sc_store **out, const char *location, bool existing);
/*
 * Parses the command's options with its table (core/options.h) into opts:
 * 0 to go on, the arguments in order in argv[1..*nargs]; SC_CMD_HELP after
 * printing the usage on stdout (the command exits 0); SC_EXIT_USAGE after
 * printing the one error line and the usage hint.
 */
#define SC_CMD_HELP (-1)
struct sc_options;
int sc_cmd_options(const struct sc_options *spec, void *opts, int argc, char **argv, int *nargs);
/* Flushes stdout; a failed write of results is an error (exit 3). */
int sc_cmd_finish(int code);

/* Prints each gate failure of r to stderr, "gate: SKILL MODEL: message [rule]",
 * untrusted text escaped, the lines framed as one untrusted block (escape.h). */
struct sc_results;
void sc_cmd_print_gate_failures(const struct sc_results *r);

/*
 * The report paths of run and merge: --junit F, --markdown F, --html DIR,
 * --json F and --report-dir DIR. A command lists SC_CMD_REPORT_OPTIONS(T,
 * r) in its option table (r: its struct sc_cmd_reports in T);
 * sc_cmd_reports_resolve() then sets every path: the option, else the file
 * in --report-dir (junit.xml, report.md, results.json; the folder itself
 * for HTML), else the configuration's reports:. html is the folder `report
 * --html` takes (a configured DIR/report.html gives DIR). A zeroed struct
 * is ready; sc_cmd_reports_release() frees the resolved paths.
 */
#define SC_CMD_REPORT_OPTIONS(T, r) \
	SC_OPT_STRING("junit", 0, T, r.opt_junit, "F", \
		      "report paths (default: skillci.yml reports:, else .skillci/report/):\n" \
		      "JUnit XML"), \
	SC_OPT_STRING("markdown", 0, T, r.opt_markdown, "F", \
		      "the Markdown report"), \
	SC_OPT_STRING("html", 0, T, r.opt_html, "DIR", \
		      "DIR/report.html and DIR/index.html"), \
	SC_OPT_STRING("json", 0, T, r.opt_json, "F", \
		      "the results JSON"), \
	SC_OPT_STRING("report-dir", 0, T, r.opt_dir, "DIR", \
		      "folder for the reports not named one by one")

struct sc_config;

struct sc_cmd_reports {
	/* as given; borrowed from argv, NULL when not given */
	const char *opt_junit, *opt_markdown, *opt_html, *opt_json, *opt_dir;
	/* set by sc_cmd_reports_resolve(); owned */
	char *junit, *markdown, *html, *json;
};

void sc_cmd_reports_resolve(struct sc_cmd_reports *r, const struct sc_config *cfg);
/* Creates the folders the JUnit, Markdown and JSON files go in. */
void sc_cmd_reports_mkdirs(const struct sc_cmd_reports *r);
/*
 * Writes every report of res to the resolved paths (reporters/reports.h):
 * JUnit, Markdown, HTML and the results JSON (each when its path is set),
 * the terminal summary on stdout, GitHub Actions' outputs when
 * GITHUB_ACTIONS=true, and with comment the sticky pull-request comment;
 * store (a location, or NULL) feeds the history charts of index.html.
 * Returns 0 or the exit code after printing the error.
 */
int sc_cmd_reports_write(const struct sc_cmd_reports *r, const struct sc_results *res,
			 bool comment, long long pr, const char *store);
/*
 * Creates or updates the sticky pull-request comment with md (GITHUB_TOKEN,
 * GITHUB_REPOSITORY) on pull request pr, or when pr is 0 on the one this
 * job is about (pipeline/ghpr.h: the job's own event, or in a workflow_run
 * job the GitHub API's pull request of head). head (may be NULL) is the
 * commit the report judged: a pull request whose head is another commit
 * gets no comment (a warning says so). Returns 0 when posted or skipped
 * with a warning, or an exit code.
 */
int sc_cmd_post_comment(const char *md, long long pr, const char *head);
void sc_cmd_reports_release(struct sc_cmd_reports *r);

#endif
