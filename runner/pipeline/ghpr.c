/*
 * The pull request a GitHub Actions job checks: the job's own event, and
 * the REST API in a workflow_run job (ghpr.h).
 */
#include "common.h"
#include "git/ghevent.h"
#include "net/github_api.h"
#include "pipeline/ghpr.h"

void sc_ghpr_env_from_environ(struct sc_ghpr_env *env)
{
	env->actions = getenv("GITHUB_ACTIONS");
	env->event_name = getenv("GITHUB_EVENT_NAME");
	env->event_path = getenv("GITHUB_EVENT_PATH");
	env->repository = getenv("GITHUB_REPOSITORY");
	env->api_url = getenv("GITHUB_API_URL");
	env->token = getenv("GITHUB_TOKEN");
}

void sc_ghpr_release(struct sc_ghpr *pr)
{
	free(pr->kind);
	free(pr->head);
	free(pr->base);
	for (size_t i = 0; i < pr->nlabels; i++)
		free(pr->labels[i]);
	free(pr->labels);
	free(pr->ignored);
	memset(pr, 0, sizeof(*pr));
}

bool sc_ghpr_has_label(const struct sc_ghpr *pr, const char *name)
{
	for (size_t i = 0; name && *name && i < pr->nlabels; i++)
		if (!strcmp(pr->labels[i], name))
			return true;
	return false;
}

static bool set(const char *s)
{
	return s && *s;
}

bool sc_ghpr_is_workflow_run(const struct sc_ghpr_env *env)
{
	return set(env->event_name) && !strcmp(env->event_name, "workflow_run");
}

/* The event kind (ghevent.h) GitHub writes for an event name; NULL for
 * names whose events name no revisions ("" when the name is unset: the
 * file's own kind is taken). */
static const char *kind_of(const char *event_name)
{
	static const struct { const char *name, *kind; } map[] = {
		{ "pull_request", "pull_request" }, { "pull_request_target", "pull_request" },
		{ "push", "push" }, { "merge_group", "merge_group" },
		{ "workflow_run", "workflow_run" },
	};

	if (!set(event_name))
		return "";
	for (size_t i = 0; i < SC_ARRAY_SIZE(map); i++)
		if (!strcmp(map[i].name, event_name))
			return map[i].kind;
	return NULL;
}

int sc_ghpr_read_event(struct sc_ghpr *out, const struct sc_ghpr_env *env)
{
	struct sc_ghevent ev = SC_GHEVENT_INIT;
	const char *want;
	int err;

	memset(out, 0, sizeof(*out));
	if (!set(env->event_path))
		return 0;
	want = kind_of(env->event_name);
	if (!want) {
		/* an event with no revisions (workflow_dispatch, issue_comment):
		 * at most the pull request it is about */
		long long n = 0;
		if (sc_github_event_pr(&n, env->event_path) == 0) {
			out->number = n;
			out->source = "event";
		}
		sc_error_clear();
		out->event = true;
		out->kind = sc_xstrdup(env->event_name);
		return 0;
	}
	if ((err = sc_ghevent_read(&ev, env->event_path)) < 0) {
		if (!*want || !strcmp(want, "pull_request")) {
			/* no revisions in it (a file written by hand, a test): the
			 * number it names is still the job's own */
			long long n = 0;
			char *msg = sc_xstrdup(sc_error_last());
			if (sc_github_event_pr(&n, env->event_path) == 0) {
				out->number = n;
				out->source = "event";
				out->event = true;
			}
			sc_error_set(err, "%s", msg);
			free(msg);
			return err;
		}
		/* not even an event: not the one GitHub wrote for this job */
		struct sc_buf why = SC_BUF_INIT;
		sc_buf_printf(&why, "GITHUB_EVENT_PATH does not hold this job's %s event (%s); "
			      "nothing of it is used", env->event_name, sc_error_last());
		out->ignored = sc_buf_detach(&why, NULL);
		sc_error_clear();
		return 0;
	}
	if ((*want && strcmp(ev.kind, want)) ||
	    (!*want && !strcmp(ev.kind, "workflow_run"))) {
		struct sc_buf why = SC_BUF_INIT;
		sc_buf_printf(&why, "GITHUB_EVENT_PATH holds a %s event, but this job's event is %s: "
			      "the file is not the one GitHub wrote for this job (an artifact?), and "
			      "nothing of it is used%s", ev.kind,
			      set(env->event_name) ? env->event_name : "not named (GITHUB_EVENT_NAME)",
			      !strcmp(want, "workflow_run") ? "; the pull request comes from the GitHub "
			      "API" : "");
		out->ignored = sc_buf_detach(&why, NULL);
		sc_ghevent_release(&ev);
		return 0;
	}
	out->event = true;
	out->kind = sc_xstrdup(ev.kind);
	out->head = ev.head ? sc_xstrdup(ev.head) : NULL;
	if (strcmp(ev.kind, "workflow_run")) {
		out->base = ev.base ? sc_xstrdup(ev.base) : NULL;
		out->number = ev.number;
		out->labels = ev.labels;
		out->nlabels = ev.nlabels;
		ev.labels = NULL;
		ev.nlabels = 0;
		out->source = "event";
	} else {
		out->run_id = ev.run_id;
		out->run_attempt = ev.run_attempt;
	}
	sc_ghevent_release(&ev);
	return 0;
}

/* Whether a pull request read from the API is the one of head in repo. */
static bool is_ours(const struct sc_github_pr *p, const char *head, const char *repo)
{
	return p->state && !strcmp(p->state, "open") && p->head_sha && !strcmp(p->head_sha, head) &&
	       p->base_repo && !strcasecmp(p->base_repo, repo);
}

int sc_ghpr_from_api(struct sc_ghpr *pr, const struct sc_ghpr_env *env, const char *head)
{
	struct sc_github gh;
	struct sc_github_pr found, cur;
	struct sc_ghevent ev = SC_GHEVENT_INIT;
	long long *nums = NULL;
	size_t n = 0, nfound = 0;
	struct sc_buf which = SC_BUF_INIT;
	int err = 0;

	memset(&found, 0, sizeof(found));
	if (!sc_ghpr_is_workflow_run(env))
		return 0;
	if (head && pr->head && strcmp(head, pr->head))
		return sc_error_set(SC_EINVAL, "the head %.12s to check is not the head_sha %.12s of the "
				    "workflow run that started this job; check that run's head", head,
				    pr->head);
	if (!head)
		head = pr->head;
	if (!head)
		return sc_error_set(SC_EINVAL, "a workflow_run job with no head to check: its event is "
				    "not readable (%s); give --head", pr->ignored ? pr->ignored : "none");
	if (!set(env->token))
		return sc_error_set(SC_EINVAL, "a workflow_run job takes the pull request from the GitHub "
				    "API: set GITHUB_TOKEN (the job's token, pull-requests: read)");
	if (!set(env->repository))
		return sc_error_set(SC_EINVAL, "a workflow_run job needs GITHUB_REPOSITORY (owner/name)");
	gh.api_url = set(env->api_url) ? env->api_url : "https://api.github.com";
	gh.repo = env->repository;
	gh.token = env->token;
	if ((err = sc_github_commit_pulls(&nums, &n, &gh, head)) < 0)
		goto done;
	if (pr->event && env->event_path) {
		/* the numbers GitHub lists in the event (same-repository pull
		 * requests) are asked about too */
		if (sc_ghevent_read(&ev, env->event_path) == 0 && ev.nrun_prs) {
			nums = sc_xrealloc(nums, (n + ev.nrun_prs + 1) * sizeof(*nums));
			for (size_t i = 0; i < ev.nrun_prs; i++)
				nums[n++] = ev.run_prs[i];
		}
		sc_error_clear();
	}
	for (size_t i = 0; i < n && err >= 0; i++) {
		bool seen = false;
		for (size_t j = 0; j < i; j++)
			seen |= nums[j] == nums[i];
		if (seen)
			continue;
		if ((err = sc_github_get_pr(&cur, &gh, nums[i])) < 0) {
			if (err != SC_ENOTFOUND)
				goto done;
			sc_error_clear();
			err = 0;
			continue;
		}
		if (is_ours(&cur, head, gh.repo)) {
			sc_buf_printf(&which, "%s#%lld", which.len ? ", " : "", cur.number);
			if (!nfound++) {
				found = cur;
				continue;
			}
		}
		sc_github_pr_release(&cur);
	}
	if (nfound == 0) {
		err = sc_error_set(SC_EINVAL, "no open pull request of %s has the head %.12s (asked the "
				   "GitHub API): it was closed, or a newer push moved it on and a newer "
				   "run checks that; nothing to check here", gh.repo, head);
		goto done;
	}
	if (nfound > 1) {
		err = sc_error_set(SC_EINVAL, "several open pull requests of %s have the head %.12s (%s): "
				   "skillci cannot tell which one this run checks", gh.repo, head,
				   which.ptr);
		goto done;
	}
	free(pr->head);
	free(pr->base);
	for (size_t i = 0; i < pr->nlabels; i++)
		free(pr->labels[i]);
	free(pr->labels);
	pr->head = sc_xstrdup(found.head_sha);
	pr->base = sc_xstrdup(found.base_sha);
	pr->number = found.number;
	pr->labels = found.labels;
	pr->nlabels = found.nlabels;
	found.labels = NULL;
	found.nlabels = 0;
	pr->source = "api";
done:
	sc_github_pr_release(&found);
	sc_ghevent_release(&ev);
	free(nums);
	sc_buf_release(&which);
	return err;
}

int sc_ghpr_resolve(struct sc_ghpr *out, const struct sc_ghpr_env *env, const char *head)
{
	int err = sc_ghpr_read_event(out, env);

	if (err == 0)
		err = sc_ghpr_from_api(out, env, head);
	return err;
}
