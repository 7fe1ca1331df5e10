#ifndef SC_GITHUB_API_H
#define SC_GITHUB_API_H
/*
 * The few GitHub REST calls skillci makes: find, create or update one
 * sticky pull-request comment, recognised by a hidden marker. Requests go
 * through runner/net/http.h. The token is borrowed, sent only in the
 * Authorization header, and never appears in a message.
 */
#include <stdbool.h>
#include <stddef.h>

struct sc_github {
	const char *api_url;  /* e.g. https://api.github.com (no trailing slash needed) */
	const char *repo;     /* "owner/name" */
	const char *token;
};

enum sc_github_outcome {
	SC_GITHUB_CREATED,
	SC_GITHUB_UPDATED,
	SC_GITHUB_FORBIDDEN,  /* 403: a fork's read-only token; not an error */
};

/* The marker that makes a skillci comment findable again. */
#define SC_GITHUB_MARKER "<!-- skillci-report -->"
/* The login of the workflow's own GITHUB_TOKEN (the GitHub Actions app). */
#define SC_GITHUB_ACTIONS_LOGIN "github-actions[bot]"

/*
 * Creates or updates the comment on pull request pr whose body contains
 * marker and whose author is the token's own identity
 * (sc_github_identity()): lists the comments page by page (100 a page)
 * and PATCHes the first such comment, or POSTs a new one. A comment with
 * the marker written by anyone else is never edited (a warning says how
 * many there were). body must already contain marker.
 * Sets *outcome and *comment_id (0 when forbidden). Errors (network,
 * 401, 404, 5xx, malformed JSON) return SC_ENET/SC_EAUTH/SC_EPARSE.
 */
int sc_github_upsert_comment(enum sc_github_outcome *outcome, long long *comment_id,
			     const struct sc_github *gh, long long pr, const char *marker,
			     const char *body);

/* A pull request as the REST API describes it (GET /repos/R/pulls/N). */
struct sc_github_pr {
	long long number;
	char *state;              /* "open", "closed" */
	char *head_sha, *base_sha;
	char *head_ref, *base_ref;
	char *head_repo, *base_repo;  /* "owner/name" of each side */
	char **labels;            /* label names */
	size_t nlabels;
};
void sc_github_pr_release(struct sc_github_pr *pr);

/*
 * The numbers of the pull requests GitHub associates with commit sha
 * (GET /repos/R/commits/SHA/pulls; for a commit not on the default
 * branch, the open ones whose head it is). *out is a new array of *n
 * numbers. Errors as sc_github_upsert_comment; a 404 or 422 (a commit
 * GitHub does not know) is an empty list.
 */
int sc_github_commit_pulls(long long **out, size_t *n, const struct sc_github *gh, const char *sha);
/* Reads pull request number (GET /repos/R/pulls/N) into out. SC_ENOTFOUND on 404. */
int sc_github_get_pr(struct sc_github_pr *out, const struct sc_github *gh, long long number);

/* Reads the pull request number from a GitHub event file
 * (pull_request.number, or number for issue_comment-like events).
 * SC_ENOTFOUND when the event is not about a pull request. */
int sc_github_event_pr(long long *out, const char *event_path);

#endif
