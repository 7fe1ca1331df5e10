/* GitHub Actions event files (see ghevent.h), read with cJSON. */
#include "common.h"
#include "git/ghevent.h"
#include "git/git.h"

#include <cjson/cJSON.h>

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

/* The string at obj.key (obj.a.b for a dotted path), or NULL. */
static const char *get_str(const cJSON *obj, const char *k1, const char *k2)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, k1);

	if (k2)
		v = cJSON_GetObjectItemCaseSensitive(v, k2);
	return cJSON_IsString(v) ? v->valuestring : NULL;
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
	const cJSON *pr, *mg;
	int err;

	memset(out, 0, sizeof(*out));
	if ((err = sc_read_file(&data, path, SC_MAX_JSON_BYTES)) < 0)
		goto done;
	root = cJSON_ParseWithLength(data.ptr, data.len);
	if (!cJSON_IsObject(root)) {
		err = sc_error_set(SC_EPARSE, "'%s': not a JSON object", path);
		goto done;
	}
	pr = cJSON_GetObjectItemCaseSensitive(root, "pull_request");
	mg = cJSON_GetObjectItemCaseSensitive(root, "merge_group");
	if (cJSON_IsObject(pr)) {
		out->kind = sc_xstrdup("pull_request");
		if ((err = take_id(&out->base, get_str(pr, "base", "sha"), path, "pull_request.base.sha")) < 0 ||
		    (err = take_id(&out->head, get_str(pr, "head", "sha"), path, "pull_request.head.sha")) < 0)
			goto done;
	} else if (cJSON_IsObject(mg)) {
		out->kind = sc_xstrdup("merge_group");
		if ((err = take_id(&out->base, get_str(mg, "base_sha", NULL), path, "merge_group.base_sha")) < 0 ||
		    (err = take_id(&out->head, get_str(mg, "head_sha", NULL), path, "merge_group.head_sha")) < 0)
			goto done;
	} else if (get_str(root, "before", NULL) && get_str(root, "after", NULL)) {
		out->kind = sc_xstrdup("push");
		if ((err = take_id(&out->head, get_str(root, "after", NULL), path, "after")) < 0 ||
		    (err = take_id(&out->base, get_str(root, "before", NULL), path, "before")) < 0)
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
				   "'%s': not a pull_request, push or merge_group event; give --base and --head",
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
	ev->kind = ev->base = ev->head = NULL;
}
