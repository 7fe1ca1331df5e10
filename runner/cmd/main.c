/*
 * skillci: continuous integration for agent skills. main() sets up every
 * library once, then dispatches to the subcommand named on the command
 * line through the table below.
 */
#include "common.h"
#include "output.h"
#include "cmd/cmd.h"
#include "git/git.h"
#include "net/http.h"

#include <signal.h>

static int cmd_help(int argc, char **argv);
static int cmd_version(int argc, char **argv);

static const struct sc_command commands[] = {
	{ "help", cmd_help, "show help for a command" },
	{ "version", cmd_version, "print the version" },
	{ "run", cmd_run, "the PR check: evaluate changed skills at base and head, report, gate" },
	{ "merge", cmd_merge, "merge shard results into one results JSON, reports and gate" },
	{ "changed", cmd_changed, "list the skills changed between two revisions" },
	{ "validate", cmd_validate, "check skills against the Agent Skills rules" },
	{ "list", cmd_list, "show a tree of skills with their descriptions" },
	{ "ask", cmd_ask, "send one prompt to a model; print the answer and token counts" },
	{ "report", cmd_report, "render JUnit, Markdown, HTML and GitHub reports from results JSON" },
	{ "eval", cmd_eval, "evaluate skills with and without the skill on models" },
	{ "runs", cmd_runs, "history of evaluations from the results store" },
	{ "store", cmd_store, "results store: info, copy between SQLite and PostgreSQL" },
	{ "kernel", cmd_kernel, "check one CUDA kernel against a fixture: compile, verify, time" },
	{ "fixtures", cmd_fixtures, "list, verify or re-pin the kernel fixtures" },
	{ "generate", cmd_generate, "a teacher model writes a skill and its tests, evaluates and refines it" },
	{ "tests", cmd_tests, "tests init: the teacher writes a skill's first tests; the test format" },
	{ "export", cmd_export, "stored transcripts as chat-format JSONL for fine-tuning" },
};

static void print_usage(FILE *f)
{
	fprintf(f, "usage: skillci [--version] [--help] <command> [<args>]\n\n"
		   "continuous integration for agent skills\n\ncommands:\n");
	for (size_t i = 0; i < SC_ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'skillci help <command>' or 'skillci <command> --help' for a command's options;\n"
		   "'skillci help models' for the providers and model aliases;\n"
		   "'skillci help tests' for the test format.\n"
		   "exit codes: 0 success, 1 a gate failed, 2 bad usage/config/input,\n"
		   "3 infrastructure failure.\n");
}

static const struct sc_command *find_command(const char *name)
{
	for (size_t i = 0; i < SC_ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

/*
 * "error: unknown command 'rnu'; did you mean 'run'?": the commands
 * nearest to name, at most 2 edits away (1 for names of up to 4
 * characters), or the pointer to --help when none is that near.
 */
static int unknown_command(const char *name)
{
	size_t best = SIZE_MAX, limit = strlen(name) <= 4 ? 1 : 2;
	struct sc_buf near = SC_BUF_INIT;

	for (size_t i = 0; i < SC_ARRAY_SIZE(commands); i++) {
		size_t dist = sc_edit_distance(name, commands[i].name);
		if (dist > limit || dist > best)
			continue;
		if (dist < best)
			sc_buf_clear(&near);
		best = dist;
		sc_buf_printf(&near, "%s'%s'", near.len ? " or " : "", commands[i].name);
	}
	if (near.len)
		sc_cmd_line(stderr, "error: unknown command '%s'; did you mean %s?", name, near.ptr);
	else
		sc_cmd_line(stderr, "error: unknown command '%s'; see 'skillci --help'", name);
	sc_buf_release(&near);
	return SC_EXIT_USAGE;
}

static int cmd_version(int argc, char **argv)
{
	SC_UNUSED(argc);
	SC_UNUSED(argv);
	printf("skillci %s\n", SC_VERSION);
	return 0;
}

static int cmd_help(int argc, char **argv)
{
	const struct sc_command *c;
	char *sub[3];

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		print_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "models"))
		return sc_cmd_help_models(argc - 1, argv + 1);
	c = find_command(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	sub[0] = argv[1];
	sub[1] = (char *)"--help";
	sub[2] = NULL;
	return c->fn(2, sub);
}

int main(int argc, char **argv)
{
	const struct sc_command *c;
	int rc;

	sc_log_init_from_env();
	/* the writer layer (output.h): every secret of the environment is
	 * registered before anything is written, and both streams redact */
	sc_output_add_env_secrets();
	sc_output_guard_stdio();
	/* A worker or server that closes its end while we write must be an
	 * EPIPE the caller handles (a kernel worker that died early), never a
	 * signal that kills the whole run. */
	signal(SIGPIPE, SIG_IGN);
	if (argc < 2) {
		print_usage(stderr);
		return SC_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return sc_cmd_finish(cmd_help(1, argv + 1));
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return sc_cmd_finish(cmd_version(1, argv + 1));
	c = find_command(argv[1]);
	if (!c)
		return unknown_command(argv[1]);
	if (sc_http_global_init() < 0) {
		fprintf(stderr, "error: %s\n", sc_error_last());
		return SC_EXIT_INFRA;
	}
	if (sc_git_global_init() < 0) { fprintf(stderr, "error: %s\n", sc_error_last()); return SC_EXIT_INFRA; }
	rc = c->fn(argc - 1, argv + 1);
	sc_git_global_shutdown();
	sc_http_global_shutdown();
	return sc_cmd_finish(rc);
}
