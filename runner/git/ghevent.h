#ifndef SC_GHEVENT_H
#define SC_GHEVENT_H
/*
 * The GitHub Actions event file ($GITHUB_EVENT_PATH): the two revisions a
 * check compares. A pull_request (or pull_request_target) event gives
 * base.sha and head.sha; a push gives before and after, where an all-zero
 * "before" means the branch's first push (no base); a merge_group gives
 * base_sha and head_sha. A pull request's labels (pull_request.labels[].name,
 * which only people with triage rights set) are kept too, with its number.
 *
 * A workflow_run event (the job that runs after another workflow, with
 * the base repository's secrets) names the run that triggered it: its
 * head_sha, id, attempt, event and the pull requests GitHub lists for it
 * (none for a fork's). It carries no base and no labels: those come from
 * the GitHub API (pipeline/ghpr.h), never from an artifact the triggering
 * run uploaded. The strings are owned by the struct.
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_ghevent {
	char *kind;   /* "pull_request", "push", "merge_group" or "workflow_run" */
	char *base;   /* hex id; NULL on a first push and for workflow_run */
	char *head;   /* hex id (workflow_run: the triggering run's head_sha) */
	char **labels;  /* a pull request's label names */
	size_t nlabels;
	long long number;      /* pull_request.number; 0 when none */
	/* workflow_run only: the triggering run */
	long long run_id, run_attempt;
	char *run_event;       /* what triggered it: "pull_request", ... */
	long long *run_prs;    /* workflow_run.pull_requests[].number (same-repository ones) */
	size_t nrun_prs;
};
#define SC_GHEVENT_INIT { NULL, NULL, NULL, NULL, 0, 0, 0, 0, NULL, NULL, 0 }

/* Reads path; SC_EINVAL naming the file when it has no usable revisions. */
int sc_ghevent_read(struct sc_ghevent *out, const char *path);
void sc_ghevent_release(struct sc_ghevent *ev);
/* Whether the event carries the label name (exact match). */
bool sc_ghevent_has_label(const struct sc_ghevent *ev, const char *name);

#endif
