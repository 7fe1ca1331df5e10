/* Helpers shared by the cmd-*.c files: error printing, exit codes, provider
 * settings and the report paths of run and merge. */
#include "common.h"
#include "cmd/cmd.h"
#include "diag.h"
#include "escape.h"
#include "output.h"
#include "net/github_api.h"
#include "pipeline/ghpr.h"
#include "pipeline/config.h"
#include "reporters/report_md.h"
#include "reporters/report_term.h"
#include "reporters/reports.h"
#include "results/results.h"
#include "results/store.h"

#include <signal.h>
#include <stdarg.h>
#include <unistd.h>

/* Messages name paths, revisions and server replies: each goes through
 * the escaping routine before it reaches the log (escape.h). */
int sc_cmd_fail(int err)
{
	const char *msg = sc_error_last();
	struct sc_buf line = SC_BUF_INIT;

	sc_escape_log(&line, *msg ? msg : sc_error_name(err));
	fprintf(stderr, "error: %s\n", line.ptr);
	sc_buf_release(&line);
	return sc_error_exit_code(err);
}

void sc_cmd_line(FILE *f, const char *fmt, ...)
{
	struct sc_buf msg = SC_BUF_INIT, line = SC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	sc_escape_log(&line, msg.ptr);
	sc_buf_putc(&line, '\n');
	fputs(line.ptr, f);
	sc_buf_release(&msg);
	sc_buf_release(&line);
}

void sc_cmd_text(FILE *f, const char *s)
{
	struct sc_buf t = SC_BUF_INIT;

	sc_escape_text(&t, s);
	fputs(t.ptr, f);
	sc_buf_release(&t);
}

int sc_cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	struct sc_buf msg = SC_BUF_INIT, line = SC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	sc_escape_log(&line, msg.ptr);
	fprintf(stderr, "error: %s\nsee 'skillci %s --help'\n", line.ptr, cmd);
	sc_buf_release(&msg);
	sc_buf_release(&line);
	return SC_EXIT_USAGE;
}

int sc_cmd_options(const struct sc_options *spec, void *opts, int argc, char **argv, int *nargs)
{
	struct sc_buf usage = SC_BUF_INIT;
	int err = sc_options_parse(spec, opts, argc, argv, nargs);

	if (err == SC_OPTIONS_HELP) {
		sc_options_usage(&usage, spec);
		fputs(usage.ptr, stdout);
		sc_buf_release(&usage);
		return SC_CMD_HELP;
	}
	if (err < 0)
		return sc_cmd_usage_error(spec->cmd, "%s", sc_error_last());
	return 0;
}

int sc_cmd_finish(int code)
{
	if (sc_output_flush() != 0 || ferror(stdout)) {
		/* The reader went away (skillci ... | head): end as any tool
		 * would, by SIGPIPE, which main() ignores only so that a dead
		 * kernel worker is an EPIPE. */
		if (errno == EPIPE) {
			signal(SIGPIPE, SIG_DFL);
			raise(SIGPIPE);
		}
		fprintf(stderr, "error: cannot write to standard output: %s\n", strerror(errno));
		return SC_EXIT_INFRA;
	}
	return code;
}

int sc_cmd_load_providers(struct sc_config *cfg, const char *config_path)
{
	struct sc_diags diags = SC_DIAGS_INIT;
	struct sc_buf line = SC_BUF_INIT;
	int err, rc = SC_EXIT_OK;

	err = sc_config_load(cfg, ".", config_path, &diags);
	for (size_t i = 0; i < diags.n; i++) {
		if (diags.items[i].sev != SC_SEV_ERROR)
			continue;
		sc_buf_clear(&line);
		sc_diag_format(&line, &diags.items[i]);
		sc_cmd_line(stderr, "%s", line.ptr);
	}
	if (err < 0)
		rc = sc_cmd_fail(err == SC_ENOTFOUND ? SC_EINVAL : err);
	else if (sc_diags_count(&diags, SC_SEV_ERROR))
		rc = SC_EXIT_USAGE;
	else if ((err = sc_config_apply_providers(cfg)) < 0)
		rc = sc_cmd_fail(err);
	sc_diags_release(&diags);
	sc_buf_release(&line);
	return rc;
}

int sc_cmd_open_store(struct sc_store **out, const char *location, bool existing)
{
	int err = existing ? sc_store_open_existing(out, location) : sc_store_open(out, location);

	if (err == SC_ENOTFOUND) {
		sc_cmd_line(stderr, "error: %s; evaluate first (skillci eval or run) or name one with "
			    "--store or $%s", sc_error_last(), SC_STORE_ENV);
		return SC_EXIT_USAGE;
	}
	if (err < 0)
		return sc_cmd_fail(err == SC_EINVAL ? SC_EINVAL : SC_EIO);
	return 0;
}

void sc_cmd_print_gate_failures(const struct sc_results *r)
{
	struct sc_buf line = SC_BUF_INIT;

	if (!r->gate.nfailures)
		return;
	sc_ci_block_begin(stderr);
	for (size_t i = 0; i < r->gate.nfailures; i++) {
		const struct sc_results_gate_failure *f = &r->gate.failures[i];
		sc_buf_clear(&line);
		sc_buf_puts(&line, "gate: ");
		sc_escape_log(&line, f->skill);
		if (f->model && *f->model) {
			sc_buf_putc(&line, ' ');
			sc_escape_log(&line, f->model);
		}
		sc_buf_puts(&line, ": ");
		sc_escape_log(&line, f->message);
		sc_buf_printf(&line, " [%s]", f->rule);
		fprintf(stderr, "%s\n", line.ptr);
	}
	sc_ci_block_end(stderr);
	sc_buf_release(&line);
}

/* The option, else NAME in --report-dir, else the configured path. */
static char *report_path(const char *opt, const char *dir, const char *name, const char *cfg)
{
	struct sc_buf b = SC_BUF_INIT;

	if (opt)
		return sc_xstrdup(opt);
	if (!dir)
		return cfg ? sc_xstrdup(cfg) : NULL;
	sc_path_join(&b, dir, name);
	return sc_buf_detach(&b, NULL);
}

/* The folder of a report path given as DIR/report.html (for `report --html DIR`). */
static char *html_dir(const char *path)
{
	const char *slash;

	if (!path)
		return NULL;
	if (!sc_ends_with(path, ".html"))
		return sc_xstrdup(path);
	slash = strrchr(path, '/');
	return slash ? sc_xstrndup(path, (size_t)(slash - path)) : sc_xstrdup(".");
}

void sc_cmd_reports_resolve(struct sc_cmd_reports *r, const struct sc_config *cfg)
{
	sc_cmd_reports_release(r);
	r->junit = report_path(r->opt_junit, r->opt_dir, "junit.xml", cfg->report_junit);
	r->markdown = report_path(r->opt_markdown, r->opt_dir, "report.md", cfg->report_markdown);
	r->json = report_path(r->opt_json, r->opt_dir, "results.json", cfg->report_json);
	r->html = html_dir(r->opt_html ? r->opt_html : r->opt_dir ? r->opt_dir : cfg->report_html);
}

void sc_cmd_reports_mkdirs(const struct sc_cmd_reports *r)
{
	const char *files[] = { r->junit, r->markdown, r->json };

	for (size_t i = 0; i < SC_ARRAY_SIZE(files); i++) {
		const char *slash = files[i] ? strrchr(files[i], '/') : NULL;
		char *dir;
		if (!slash)
			continue;
		dir = sc_xstrndup(files[i], (size_t)(slash - files[i]));
		sc_mkdir_p(dir);
		free(dir);
	}
}

/* The sticky PR comment. 0 when posted or skipped with a warning. */
int sc_cmd_post_comment(const char *md, long long pr, const char *head)
{
	struct sc_github gh;
	struct sc_buf body = SC_BUF_INIT;
	struct sc_ghpr ctx = SC_GHPR_INIT;
	struct sc_ghpr_env env;
	enum sc_github_outcome outcome = SC_GITHUB_CREATED;
	long long id = 0;
	int err, rc = 0;

	gh.api_url = getenv("GITHUB_API_URL");
	if (!gh.api_url || !*gh.api_url)
		gh.api_url = "https://api.github.com";
	gh.repo = getenv("GITHUB_REPOSITORY");
	gh.token = getenv("GITHUB_TOKEN");
	if (!gh.token || !*gh.token) {
		fprintf(stderr, "error: --comment needs GITHUB_TOKEN\n");
		return SC_EXIT_USAGE;
	}
	if (!gh.repo || !*gh.repo) {
		fprintf(stderr, "error: --comment needs GITHUB_REPOSITORY (owner/name)\n");
		return SC_EXIT_USAGE;
	}
	if (pr <= 0) {
		/* the pull request of this job: its own event, or the API's
		 * pull request of the head in a workflow_run job */
		sc_ghpr_env_from_environ(&env);
		if (!env.event_path || !*env.event_path) {
			fprintf(stderr, "error: --comment needs GITHUB_EVENT_PATH (the job's event)\n");
			return SC_EXIT_USAGE;
		}
		err = sc_ghpr_read_event(&ctx, &env);
		if (ctx.ignored)
			sc_cmd_line(stderr, "warning: %s", ctx.ignored);
		if (err == 0 || ctx.number)
			err = sc_ghpr_from_api(&ctx, &env, head);
		if (err == SC_ENET || err == SC_EAUTH) {
			rc = sc_cmd_fail(err);
			rc = SC_EXIT_INFRA;
			goto done;
		}
		if (err < 0 || !ctx.number) {
			sc_cmd_line(stderr, "warning: %s; no comment posted",
				    err < 0 ? sc_error_last() : "the job's event is not about a pull request");
			goto done;
		}
		if (head && ctx.head && strcmp(head, ctx.head)) {
			sc_cmd_line(stderr, "warning: pull request #%lld's head is %.12s, not the %.12s "
				    "this report judged; no comment posted", ctx.number, ctx.head, head);
			goto done;
		}
		pr = ctx.number;
	}
	sc_buf_printf(&body, "%s\n%s", SC_GITHUB_MARKER, md);
	err = sc_github_upsert_comment(&outcome, &id, &gh, pr, SC_GITHUB_MARKER, body.ptr);
	if (err < 0) {
		rc = sc_cmd_fail(err);
		if (err == SC_EAUTH)
			rc = SC_EXIT_INFRA;
	} else if (outcome == SC_GITHUB_FORBIDDEN) {
		fprintf(stderr, "warning: GitHub refused the pull request comment (HTTP 403); a pull "
				"request from a fork gets a read-only token; the report is in the step summary\n");
		if (getenv("GITHUB_ACTIONS") && !strcmp(getenv("GITHUB_ACTIONS"), "true"))
			printf("::warning title=skillci::cannot comment on pull request #%lld (HTTP 403, read-only token)\n", pr);
	} else {
		fprintf(stderr, "%s pull request comment %lld on #%lld\n",
			outcome == SC_GITHUB_UPDATED ? "updated" : "created", id, pr);
	}
done:
	sc_ghpr_release(&ctx);
	sc_buf_release(&body);
	return rc;
}


int sc_cmd_reports_write(const struct sc_cmd_reports *r, const struct sc_results *res,
			 bool comment, long long pr, const char *store)
{
	struct sc_reports rep;
	struct sc_buf md = SC_BUF_INIT;
	const char *v = getenv("GITHUB_ACTIONS");
	int err, rc = 0;

	memset(&rep, 0, sizeof(rep));
	rep.junit = r->junit;
	rep.markdown = r->markdown;
	rep.html_dir = r->html;
	rep.json = r->json;
	rep.store = store;  /* the history charts of index.html come from the store */
	rep.term = stdout;
	rep.colour = sc_report_term_want_colour(STDOUT_FILENO);
	rep.github = v && !strcmp(v, "true");
	if (comment) {
		rep.comment_md = &md;
		rep.comment_max = SC_REPORT_MD_COMMENT_LIMIT - 1 - sizeof(SC_GITHUB_MARKER);
	}
	fflush(stdout);
	if ((err = sc_reports_write(res, &rep)) < 0)
		rc = sc_cmd_fail(err == SC_ENOTFOUND ? SC_EINVAL : err);
	else if (comment)
		rc = sc_cmd_post_comment(md.ptr, pr, res->run.prov.present ? res->run.prov.head
									  : res->run.head_rev);
	sc_buf_release(&md);
	return rc;
}

void sc_cmd_reports_release(struct sc_cmd_reports *r)
{
	free(r->junit);
	free(r->markdown);
	free(r->html);
	free(r->json);
	r->junit = r->markdown = r->html = r->json = NULL;
}
