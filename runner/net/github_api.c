/* GitHub REST calls for the sticky pull-request comment (github_api.h). */
#include "common.h"
#include "output.h"
#include "json.h"
#include "net/github_api.h"
#include "net/http.h"

/* True for "owner/name" made of letters, digits, '.', '_' and '-'. */
static bool sc_github_repo_ok(const char *repo)
{
	size_t slashes = 0, seg = 0;

	if (!repo || !*repo)
		return false;
	for (const char *p = repo; *p; p++) {
		if (*p == '/') {
			if (!seg || ++slashes > 1)
				return false;
			seg = 0;
			continue;
		}
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '_' || *p == '-'))
			return false;
		seg++;
	}
	return slashes == 1 && seg > 0;
}

/*
 * One call: method on api_url + path with the JSON body (or none). The
 * status lands in *status and the response body in out. 0 when any
 * response arrived. The body leaves through the writer layer: every
 * registered secret redacted (output.h), so no comment can carry one.
 */
static int call(struct sc_buf *out, long *status, const struct sc_github *gh, const char *method,
		const char *path, const char *body)
{
	struct sc_buf url = SC_BUF_INIT, auth = SC_BUF_INIT, red = SC_BUF_INIT;
	struct sc_http_result res;
	const char *headers[5];
	struct sc_http_spec spec;
	size_t base_len = strlen(gh->api_url);
	int err;

	while (base_len && gh->api_url[base_len - 1] == '/')
		base_len--;
	sc_buf_put(&url, gh->api_url, base_len);
	sc_buf_puts(&url, path);
	sc_buf_printf(&auth, "Authorization: Bearer %s", gh->token);
	headers[0] = auth.ptr;
	headers[1] = "Accept: application/vnd.github+json";
	headers[2] = "X-GitHub-Api-Version: 2022-11-28";
	headers[3] = "Content-Type: application/json";
	memset(&spec, 0, sizeof(spec));
	spec.url = url.ptr;
	spec.headers = headers;
	spec.nheaders = 4;
	spec.body = body;
	spec.body_len = body ? strlen(body) : 0;
	if (body && sc_output_redact_to(&red, body, spec.body_len)) {
		spec.body = red.ptr;
		spec.body_len = red.len;
	}
	spec.connect_timeout_ms = SC_GITHUB_TIMEOUT_MS;
	spec.timeout_ms = SC_GITHUB_TIMEOUT_MS;
	memset(&res, 0, sizeof(res));
	err = sc_http_request(&res, method, &spec);
	if (err == 0) {
		*status = res.status;
		sc_buf_put(out, res.body.ptr, res.body.len);
	}
	sc_buf_release(&res.body);
	/* The header held the token: clear it before freeing. */
	memset(auth.ptr, 0, auth.len);
	sc_buf_release(&auth);
	sc_buf_release(&url);
	sc_buf_release(&red);
	return err;
}

/* Turns an unexpected status into an error naming the call (never the token). */
static int status_error(long status, const char *method, const char *path, const struct sc_buf *body)
{
	cJSON *j = cJSON_ParseWithLength(body->ptr, body->len);
	const char *m = sc_json_str_or(j, "message", NULL);
	int code = (status == 401 || status == 403) ? SC_EAUTH : SC_ENET;

	sc_error_set(code, "GitHub API: %s %s returned HTTP %ld%s%s", method, path, status,
		     m ? ": " : "", m ? m : "");
	cJSON_Delete(j);
	return code;
}

static char *comment_json(const char *body)
{
	cJSON *o = cJSON_CreateObject();
	struct sc_buf s = SC_BUF_INIT;

	cJSON_AddStringToObject(o, "body", body);
	sc_json_print(&s, o, false);
	cJSON_Delete(o);
	return sc_buf_detach(&s, NULL);
}

/*
 * Looks for marker in one page of comments written by login; sets
 * *found_id, *count. A comment holding the marker that someone else
 * wrote is skipped (counted in *others): anyone can paste the marker.
 */
static int scan_page(long long *found_id, int *count, int *others, const struct sc_buf *page,
		     const char *marker, const char *login, const char *path)
{
	cJSON *arr = cJSON_ParseWithLength(page->ptr, page->len);
	const cJSON *c;

	*count = 0;
	if (!cJSON_IsArray(arr)) {
		cJSON_Delete(arr);
		return sc_error_set(SC_EPARSE, "GitHub API: GET %s: expected a JSON array of comments", path);
	}
	cJSON_ArrayForEach(c, arr) {
		const char *b, *who = sc_json_str_or(sc_json_member(c, "user"), "login", NULL);
		int64_t id;
		(*count)++;
		if (*found_id || sc_json_get_str(&b, c, "body") != SC_JSON_OK ||
		    sc_json_get_int(&id, c, "id", 1, INT64_MAX) != SC_JSON_OK || !strstr(b, marker))
			continue;
		if (!who || strcmp(who, login)) {
			(*others)++;
			continue;
		}
		*found_id = id;
	}
	cJSON_Delete(arr);
	return 0;
}

/*
 * The login the token writes comments as, looked up once per upsert:
 * SKILLCI_GITHUB_LOGIN when set (a GitHub App token of one's own), else
 * GET /user, else (403 or 404: an installation token such as the
 * workflow's GITHUB_TOKEN, which may not read /user) "github-actions[bot]".
 * *out is a new string. Errors (401, network) as sc_github_upsert_comment.
 */
static int sc_github_identity(char **out, const struct sc_github *gh)
{
	struct sc_buf resp = SC_BUF_INIT;
	const char *env = getenv("SKILLCI_GITHUB_LOGIN");
	long status = 0;
	int err;

	*out = NULL;
	if (env && *env) {
		*out = sc_xstrdup(env);
		return 0;
	}
	if ((err = call(&resp, &status, gh, "GET", "/user", NULL)) < 0)
		goto done;
	if (status == 200) {
		cJSON *o = cJSON_ParseWithLength(resp.ptr, resp.len);
		const char *login = sc_json_str_or(o, "login", "");
		if (*login)
			*out = sc_xstrdup(login);
		cJSON_Delete(o);
		if (!*out)
			err = sc_error_set(SC_EPARSE, "GitHub API: GET /user: no login in the answer");
	} else if (status == 403 || status == 404) {
		/* an installation token (the workflow's GITHUB_TOKEN) may not
		 * read /user; it writes as the Actions app's bot */
		*out = sc_xstrdup(SC_GITHUB_ACTIONS_LOGIN);
	} else {
		err = status_error(status, "GET", "/user", &resp);
	}
done:
	sc_buf_release(&resp);
	return err;
}

int sc_github_upsert_comment(enum sc_github_outcome *outcome, long long *comment_id,
			     const struct sc_github *gh, long long pr, const char *marker,
			     const char *body)
{
	struct sc_buf path = SC_BUF_INIT, resp = SC_BUF_INIT;
	char *json = NULL, *login = NULL;
	long long found = 0;
	long status = 0;
	int err = 0, count = 0, others = 0;

	*comment_id = 0;
	if (!sc_github_repo_ok(gh->repo))
		return sc_error_set(SC_EINVAL, "GITHUB_REPOSITORY '%s' is not owner/name", gh->repo ? gh->repo : "");
	if ((err = sc_github_identity(&login, gh)) < 0)
		goto done;
	for (int page = 1; page <= SC_GITHUB_MAX_PAGES && !found; page++) {
		sc_buf_clear(&path);
		sc_buf_clear(&resp);
		sc_buf_printf(&path, "/repos/%s/issues/%lld/comments?per_page=100&page=%d", gh->repo, pr, page);
		if ((err = call(&resp, &status, gh, "GET", path.ptr, NULL)) < 0)
			goto done;
		if (status == 403) {
			*outcome = SC_GITHUB_FORBIDDEN;
			goto done;
		}
		if (status != 200) {
			err = status_error(status, "GET", path.ptr, &resp);
			goto done;
		}
		if ((err = scan_page(&found, &count, &others, &resp, marker, login, path.ptr)) < 0)
			goto done;
		if (count < 100)
			break;
	}
	json = comment_json(body);
	sc_buf_clear(&path);
	sc_buf_clear(&resp);
	if (found)
		sc_buf_printf(&path, "/repos/%s/issues/comments/%lld", gh->repo, found);
	else
		sc_buf_printf(&path, "/repos/%s/issues/%lld/comments", gh->repo, pr);
	if ((err = call(&resp, &status, gh, found ? "PATCH" : "POST", path.ptr, json)) < 0)
		goto done;
	if (status == 403) {
		*outcome = SC_GITHUB_FORBIDDEN;
		goto done;
	}
	if (status != (found ? 200 : 201)) {
		err = status_error(status, found ? "PATCH" : "POST", path.ptr, &resp);
		goto done;
	}
	if (found) {
		*comment_id = found;
	} else {
		cJSON *o = cJSON_ParseWithLength(resp.ptr, resp.len);
		*comment_id = sc_json_int_or(o, "id", 1, INT64_MAX, 0);
		cJSON_Delete(o);
	}
	*outcome = found ? SC_GITHUB_UPDATED : SC_GITHUB_CREATED;
	if (others)
		sc_log(SC_LOG_WARN, "%d comment%s on pull request #%lld hold%s the skillci marker but "
		       "%s not written by '%s'; left alone", others, others == 1 ? "" : "s", pr,
		       others == 1 ? "s" : "", others == 1 ? "was" : "were", login);
done:
	free(login);
	free(json);
	sc_buf_release(&path);
	sc_buf_release(&resp);
	return err;
}

void sc_github_pr_release(struct sc_github_pr *pr)
{
	free(pr->state);
	free(pr->head_sha);
	free(pr->base_sha);
	free(pr->head_ref);
	free(pr->base_ref);
	free(pr->head_repo);
	free(pr->base_repo);
	for (size_t i = 0; i < pr->nlabels; i++)
		free(pr->labels[i]);
	free(pr->labels);
	memset(pr, 0, sizeof(*pr));
}

static char *str_dup_or_null(const cJSON *o, const char *key)
{
	const char *v = sc_json_str_or(o, key, NULL);
	return v ? sc_xstrdup(v) : NULL;
}

int sc_github_commit_pulls(long long **out, size_t *n, const struct sc_github *gh, const char *sha)
{
	struct sc_buf path = SC_BUF_INIT, resp = SC_BUF_INIT;
	cJSON *arr = NULL;
	const cJSON *e;
	long status = 0;
	int err;

	*out = NULL;
	*n = 0;
	if (!sc_github_repo_ok(gh->repo))
		return sc_error_set(SC_EINVAL, "GITHUB_REPOSITORY '%s' is not owner/name", gh->repo ? gh->repo : "");
	for (const char *p = sha; *p; p++)
		if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
			return sc_error_set(SC_EINVAL, "'%s' is not a commit id", sha);
	sc_buf_printf(&path, "/repos/%s/commits/%s/pulls?per_page=100", gh->repo, sha);
	if ((err = call(&resp, &status, gh, "GET", path.ptr, NULL)) < 0)
		goto done;
	if (status == 404 || status == 422)
		goto done;  /* a commit GitHub does not know: no pull request */
	if (status != 200) {
		err = status_error(status, "GET", path.ptr, &resp);
		goto done;
	}
	arr = cJSON_ParseWithLength(resp.ptr, resp.len);
	if (!cJSON_IsArray(arr)) {
		err = sc_error_set(SC_EPARSE, "GitHub API: GET %s: expected a JSON array of pull requests",
				   path.ptr);
		goto done;
	}
	*out = sc_xcalloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(**out));
	cJSON_ArrayForEach(e, arr) {
		long long num = sc_json_int_or(e, "number", 1, INT64_MAX, 0);
		if (num)
			(*out)[(*n)++] = num;
	}
done:
	cJSON_Delete(arr);
	sc_buf_release(&path);
	sc_buf_release(&resp);
	return err;
}

int sc_github_get_pr(struct sc_github_pr *out, const struct sc_github *gh, long long number)
{
	struct sc_buf path = SC_BUF_INIT, resp = SC_BUF_INIT;
	cJSON *o = NULL;
	const cJSON *head, *base, *labels, *l;
	long status = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (!sc_github_repo_ok(gh->repo))
		return sc_error_set(SC_EINVAL, "GITHUB_REPOSITORY '%s' is not owner/name", gh->repo ? gh->repo : "");
	sc_buf_printf(&path, "/repos/%s/pulls/%lld", gh->repo, number);
	if ((err = call(&resp, &status, gh, "GET", path.ptr, NULL)) < 0)
		goto done;
	if (status == 404) {
		err = sc_error_set(SC_ENOTFOUND, "GitHub API: pull request #%lld of %s not found", number,
				   gh->repo);
		goto done;
	}
	if (status != 200) {
		err = status_error(status, "GET", path.ptr, &resp);
		goto done;
	}
	o = cJSON_ParseWithLength(resp.ptr, resp.len);
	head = sc_json_member(o, "head");
	base = sc_json_member(o, "base");
	if (!cJSON_IsObject(o) || !cJSON_IsObject(head) || !cJSON_IsObject(base)) {
		err = sc_error_set(SC_EPARSE, "GitHub API: GET %s: expected a pull request", path.ptr);
		goto done;
	}
	out->number = sc_json_int_or(o, "number", 1, INT64_MAX, 0);
	out->state = str_dup_or_null(o, "state");
	out->head_sha = str_dup_or_null(head, "sha");
	out->base_sha = str_dup_or_null(base, "sha");
	out->head_ref = str_dup_or_null(head, "ref");
	out->base_ref = str_dup_or_null(base, "ref");
	out->head_repo = str_dup_or_null(sc_json_member(head, "repo"), "full_name");
	out->base_repo = str_dup_or_null(sc_json_member(base, "repo"), "full_name");
	labels = sc_json_member(o, "labels");
	if (cJSON_IsArray(labels)) {
		out->labels = sc_xcalloc((size_t)cJSON_GetArraySize(labels) + 1, sizeof(char *));
		cJSON_ArrayForEach(l, labels) {
			const char *name = sc_json_str_or(l, "name", NULL);
			if (name)
				out->labels[out->nlabels++] = sc_xstrdup(name);
		}
	}
	if (out->number != number || !out->head_sha || !out->base_sha)
		err = sc_error_set(SC_EPARSE, "GitHub API: GET %s: the answer is not pull request #%lld "
				   "with a head and a base", path.ptr, number);
done:
	if (err < 0)
		sc_github_pr_release(out);
	cJSON_Delete(o);
	sc_buf_release(&path);
	sc_buf_release(&resp);
	return err;
}

int sc_github_event_pr(long long *out, const char *event_path)
{
	struct sc_buf data = SC_BUF_INIT;
	cJSON *root = NULL;
	const cJSON *pr, *issue, *num = NULL;
	int64_t number;
	int err;

	*out = 0;
	if ((err = sc_read_file(&data, event_path, SC_MAX_EVENT_BYTES)) < 0)
		goto done;
	root = cJSON_ParseWithLength(data.ptr, data.len);
	if (!cJSON_IsObject(root)) {
		err = sc_error_set(SC_EPARSE, "event file '%s': malformed JSON", event_path);
		goto done;
	}
	pr = cJSON_GetObjectItemCaseSensitive(root, "pull_request");
	if (cJSON_IsObject(pr))
		num = cJSON_GetObjectItemCaseSensitive(pr, "number");
	if (!cJSON_IsNumber(num) && cJSON_IsObject(pr))
		num = cJSON_GetObjectItemCaseSensitive(root, "number");
	/* issue_comment on a pull request: issue.number, issue.pull_request set. */
	issue = cJSON_GetObjectItemCaseSensitive(root, "issue");
	if (!cJSON_IsNumber(num) && cJSON_IsObject(issue) &&
	    cJSON_GetObjectItemCaseSensitive(issue, "pull_request"))
		num = cJSON_GetObjectItemCaseSensitive(issue, "number");
	if (sc_json_int(&number, num, 1, INT64_MAX) != SC_JSON_OK) {
		err = sc_error_set(SC_ENOTFOUND, "event file '%s' is not about a pull request", event_path);
		goto done;
	}
	*out = number;
done:
	cJSON_Delete(root);
	sc_buf_release(&data);
	return err;
}
