#ifndef SC_GHEVENT_H
#define SC_GHEVENT_H
/*
 * The GitHub Actions event file ($GITHUB_EVENT_PATH): the two revisions a
 * check compares. A pull_request (or pull_request_target) event gives
 * base.sha and head.sha; a push gives before and after, where an all-zero
 * "before" means the branch's first push (no base); a merge_group gives
 * base_sha and head_sha. A pull request's labels (pull_request.labels[].name,
 * which only people with triage rights set) are kept too. The strings are
 * owned by the struct.
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_ghevent {
	char *kind;   /* "pull_request", "push" or "merge_group" */
	char *base;   /* hex id; NULL on a first push */
	char *head;   /* hex id */
	char **labels;  /* a pull request's label names */
	size_t nlabels;
};
#define SC_GHEVENT_INIT { NULL, NULL, NULL, NULL, 0 }

/* Reads path; SC_EINVAL naming the file when it has no usable revisions. */
int sc_ghevent_read(struct sc_ghevent *out, const char *path);
void sc_ghevent_release(struct sc_ghevent *ev);
/* Whether the event carries the label name (exact match). */
bool sc_ghevent_has_label(const struct sc_ghevent *ev, const char *name);

#endif
