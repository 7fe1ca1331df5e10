/* GitHub Actions event files (see ghevent.h), read with cJSON. */
#include "common.h"
#include "json.h"
#include "git/ghevent.h"
#include "git/git.h"

static bool is_hex_id(const char *s)
{
	size_t n = strlen(s);

	if (n != 40 && n != 64)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

static int take_id(char **out, const char *value, const char *path, const char *field)
{
	if (!value || !is_hex_id(value))
		return sc_error_set(SC_EINVAL, "'%s': %s is missing or not a commit id", path, field);
	*out = sc_xstrdup(value);
	return 0;
}

int sc_ghevent_read(struct sc_ghevent *out, const char *path)
{
	struct sc_buf data = SC_BUF_INIT;
	cJSON *root = NULL;
	const cJSON *pr, *mg, *wr;
	const char *before, *after;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = sc_read_file(&data, path, SC_MAX_JSON_BYTES)) < 0)
		goto done;
	root = cJSON_ParseWithLength(data.ptr, data.len);
	if (!cJSON_IsObject(root)) {
		err = sc_error_set(SC_EPARSE, "'%s': not a JSON object", path);
		goto done;
	}
	pr = sc_json_member(root, "pull_request");
	mg = sc_json_member(root, "merge_group");
	wr = sc_json_member(root, "workflow_run");
	before = sc_json_str_or(root, "before", NULL);
	after = sc_json_str_or(root, "after", NULL);
	if (cJSON_IsObject(wr)) {
		const cJSON *prs = sc_json_member(wr, "pull_requests"), *e;
		out->kind = sc_xstrdup("workflow_run");
		if ((err = take_id(&out->head, sc_json_str_or(wr, "head_sha", NULL), path,
				   "workflow_run.head_sha")) < 0)
			goto done;
		out->run_id = sc_json_int_or(wr, "id", 1, INT64_MAX, 0);
		out->run_attempt = sc_json_int_or(wr, "run_attempt", 1, INT64_MAX, 1);
		out->run_event = sc_xstrdup(sc_json_str_or(wr, "event", ""));
		if (cJSON_IsArray(prs)) {
			size_t n = (size_t)cJSON_GetArraySize(prs);
			out->run_prs = sc_xcalloc(n ? n : 1, sizeof(*out->run_prs));
			cJSON_ArrayForEach(e, prs) {
				long long num = sc_json_int_or(e, "number", 1, INT64_MAX, 0);
				if (num && out->nrun_prs < n)
					out->run_prs[out->nrun_prs++] = num;
			}
		}
	} else if (cJSON_IsObject(pr)) {
		const char *base = sc_json_str_or(sc_json_member(pr, "base"), "sha", NULL);
		const char *head = sc_json_str_or(sc_json_member(pr, "head"), "sha", NULL);
		out->kind = sc_xstrdup("pull_request");
		out->number = sc_json_int_or(pr, "number", 1, INT64_MAX, 0);
		if (!out->number)
			out->number = sc_json_int_or(root, "number", 1, INT64_MAX, 0);
		const cJSON *labels = sc_json_member(pr, "labels"), *l;
		if ((err = take_id(&out->base, base, path, "pull_request.base.sha")) < 0 ||
		    (err = take_id(&out->head, head, path, "pull_request.head.sha")) < 0)
			goto done;
		if (cJSON_IsArray(labels)) {
			size_t n = (size_t)cJSON_GetArraySize(labels);
			out->labels = sc_xcalloc(n ? n : 1, sizeof(char *));
			cJSON_ArrayForEach(l, labels) {
				const char *name = sc_json_str_or(l, "name", NULL);
				if (name && out->nlabels < n)
					out->labels[out->nlabels++] = sc_xstrdup(name);
			}
		}
	} else if (cJSON_IsObject(mg)) {
		const char *base = sc_json_str_or(mg, "base_sha", NULL);
		const char *head = sc_json_str_or(mg, "head_sha", NULL);
		out->kind = sc_xstrdup("merge_group");
		if ((err = take_id(&out->base, base, path, "merge_group.base_sha")) < 0 ||
		    (err = take_id(&out->head, head, path, "merge_group.head_sha")) < 0)
			goto done;
	} else if (before && after) {
		out->kind = sc_xstrdup("push");
		if ((err = take_id(&out->head, after, path, "after")) < 0 ||
		    (err = take_id(&out->base, before, path, "before")) < 0)
			goto done;
		if (sc_git_is_zero_id(out->base)) {
			free(out->base);
			out->base = NULL;
		}
		if (sc_git_is_zero_id(out->head)) {
			err = sc_error_set(SC_EINVAL, "'%s': the push deleted the branch; nothing to check", path);
			goto done;
		}
	} else {
		err = sc_error_set(SC_EINVAL,
				   "'%s': not a pull_request, push, merge_group or workflow_run event; "
				   "give --base and --head",
				   path);
	}
done:
	if (err < 0)
		sc_ghevent_release(out);
	cJSON_Delete(root);
	sc_buf_release(&data);
	return err;
}

void sc_ghevent_release(struct sc_ghevent *ev)
{
	free(ev->kind);
	free(ev->base);
	free(ev->head);
	for (size_t i = 0; i < ev->nlabels; i++)
		free(ev->labels[i]);
	free(ev->labels);
	free(ev->run_event);
	free(ev->run_prs);
	ev->labels = NULL;
	ev->nlabels = 0;
	ev->run_event = NULL;
	ev->run_prs = NULL;
	ev->nrun_prs = 0;
	ev->number = ev->run_id = ev->run_attempt = 0;
	ev->kind = ev->base = ev->head = NULL;
}

bool sc_ghevent_has_label(const struct sc_ghevent *ev, const char *name)
{
	for (size_t i = 0; name && *name && i < ev->nlabels; i++)
		if (!strcmp(ev->labels[i], name))
			return true;
	return false;
}
