#ifndef SC_GHPR_H
#define SC_GHPR_H
/*
 * The pull request a GitHub Actions job checks, from places the pull
 * request cannot write (docs/ci.md, "Pull requests from forks"):
 *
 *   - the job's own event file ($GITHUB_EVENT_PATH), which GitHub wrote,
 *     and only when it is the event GITHUB_EVENT_NAME names: a
 *     pull_request event's number, labels, base and head; a push's or a
 *     merge_group's revisions; a workflow_run event's head_sha and run.
 *     A file of another kind (an artifact put in its place) is not read:
 *     a warning says so and nothing of it is used;
 *   - in a workflow_run job, the GitHub REST API with the job's token:
 *     the open pull requests of the triggering run's head (GET
 *     /repos/R/commits/SHA/pulls, with the numbers the event lists), each
 *     read again (GET /repos/R/pulls/N); the one whose head is that commit
 *     and whose base is this repository gives the number, labels and
 *     base. The event's head_sha, a --head given and the pull request's
 *     head must be one commit.
 *
 * Ownership: struct sc_ghpr owns its strings; the environment's are
 * borrowed.
 */
#include <stdbool.h>
#include <stddef.h>

/* The variables GitHub Actions sets that this reads (NULL: unset). */
struct sc_ghpr_env {
	const char *actions;      /* GITHUB_ACTIONS ("true") */
	const char *event_name;   /* GITHUB_EVENT_NAME */
	const char *event_path;   /* GITHUB_EVENT_PATH */
	const char *repository;   /* GITHUB_REPOSITORY, owner/name */
	const char *api_url;      /* GITHUB_API_URL (default https://api.github.com) */
	const char *token;        /* GITHUB_TOKEN */
};
void sc_ghpr_env_from_environ(struct sc_ghpr_env *env);

struct sc_ghpr {
	bool event;               /* the job's event was read */
	char *kind;               /* the event's kind (ghevent.h), NULL when none */
	char *head, *base;        /* hex commits; NULL where the event names none */
	long long number;         /* the pull request; 0 when none */
	char **labels;            /* its labels (triage rights set them) */
	size_t nlabels;
	const char *source;       /* where number, labels and base came from: "event" or "api" */
	long long run_id, run_attempt;  /* workflow_run: the run that triggered the job */
	char *ignored;            /* why the event file was not read, or NULL */
};
#define SC_GHPR_INIT { false, NULL, NULL, NULL, 0, NULL, 0, NULL, 0, 0, NULL }
void sc_ghpr_release(struct sc_ghpr *pr);
bool sc_ghpr_has_label(const struct sc_ghpr *pr, const char *name);
/* Whether the job is a workflow_run job (GITHUB_EVENT_NAME). */
bool sc_ghpr_is_workflow_run(const struct sc_ghpr_env *env);

/*
 * Reads the job's own event into out (see above); callers decide whether
 * they run in GitHub Actions. Without an event file: nothing (out->event
 * false), 0. A file of
 * another kind than GITHUB_EVENT_NAME: nothing, out->ignored says why, 0.
 * A file that is not an event skillci can use: SC_EINVAL naming it (the
 * pull request number it names, if any, is still set).
 */
int sc_ghpr_read_event(struct sc_ghpr *out, const struct sc_ghpr_env *env);

/*
 * In a workflow_run job: the pull request whose head is head (a full hex
 * id; NULL: the event's head_sha), from the API as above, into pr
 * (number, labels, base, head; source "api"). head must be the event's
 * head_sha when the event was read. SC_EINVAL when no open pull request
 * of this repository has that head, when several do, or when the heads
 * disagree; SC_ENET/SC_EAUTH when the API cannot be asked. Does nothing
 * (0) in another job.
 */
int sc_ghpr_from_api(struct sc_ghpr *pr, const struct sc_ghpr_env *env, const char *head);

/* sc_ghpr_read_event() then sc_ghpr_from_api() with head (may be NULL). */
int sc_ghpr_resolve(struct sc_ghpr *out, const struct sc_ghpr_env *env, const char *head);

#endif
