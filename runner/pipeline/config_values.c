/*
 * The reading of skillci.yml and upskill.config.yaml shared by their key
 * tables (config_parse.h): findings at a node's line, typed values (strings,
 * integers and numbers in a range, booleans, lists, safe paths) and the walk
 * of a map that dispatches each key to its handler. A wrong value is an
 * error and leaves the default in place; an unknown key is a warning.
 */
#include "common.h"
#include "pipeline/config_parse.h"

#include <errno.h>
#include <stdarg.h>

void sc_config_report(struct sc_config_ctx *c, enum sc_severity sev, const struct sc_yaml_node *at,
		      const char *code, const char *fmt, ...)
{
	struct sc_buf msg = SC_BUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	sc_buf_vprintf(&msg, fmt, ap);
	va_end(ap);
	sc_diags_add(c->diags, sev, c->file, at ? at->line : 0, code, "%s", msg.ptr);
	sc_buf_release(&msg);
}

void sc_config_type_error(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
			  const char *want)
{
	sc_diags_type_error(c->diags, c->file, v ? v->line : 0, "config-type", key, true, want,
			    sc_yaml_type_name(v));
}

/* ---- typed values ----------------------------------------------------- */

/* A string: a scalar that is not null, a number or a boolean unless quoted. */
bool sc_config_get_str(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
		       char **out)
{
	const char *t = sc_yaml_type_name(v);
	if (strcmp(t, "string") != 0 || !v->value[0]) {
		sc_config_type_error(c, v, key, "a non-empty string");
		return false;
	}
	free(*out);
	*out = sc_xstrdup(v->value);
	return true;
}

bool sc_config_get_int(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
		       long min, long max, int *out)
{
	const char *want = min == 1 ? "a positive integer" : "a non-negative integer";
	char *end;
	long n;

	if (!sc_yaml_is_number(v)) {
		sc_config_type_error(c, v, key, want);
		return false;
	}
	errno = 0;
	n = strtol(v->value, &end, 10);
	if (*end || errno) {
		sc_config_report(c, SC_SEV_ERROR, v, "config-type", "'%s' must be %s, found '%s'",
				 key, want, v->value);
		return false;
	}
	if (n < min || n > max) {
		sc_config_report(c, SC_SEV_ERROR, v, "config-value",
				 "'%s' must be between %ld and %ld, found %ld", key, min, max, n);
		return false;
	}
	*out = (int)n;
	return true;
}

/* A number in [min, max] (max < 0: no upper bound); strict_min excludes min. */
bool sc_config_get_num(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
		       double min, bool strict_min, double max, double *out)
{
	double x;

	if (!sc_yaml_is_number(v)) {
		sc_config_type_error(c, v, key, "a number");
		return false;
	}
	x = strtod(v->value, NULL);
	if (x != x || x < min || (strict_min && x == min) || (max >= 0 && x > max)) {
		if (max >= 0)
			sc_config_report(c, SC_SEV_ERROR, v, "config-value",
					 "'%s' must be %s %g and at most %g, found %s", key,
					 strict_min ? "above" : "at least", min, max, v->value);
		else
			sc_config_report(c, SC_SEV_ERROR, v, "config-value",
					 "'%s' must be %s %g, found %s", key, strict_min ? "above" : "at least", min, v->value);
		return false;
	}
	*out = x;
	return true;
}

bool sc_config_get_bool(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
			bool *out)
{
	int b;
	if (!sc_yaml_is_bool(v, &b)) {
		sc_config_type_error(c, v, key, "true or false");
		return false;
	}
	*out = b != 0;
	return true;
}

/* A list of strings; a single string stands for a list of one. */
bool sc_config_get_strlist(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
			   size_t max, struct sc_strlist *out)
{
	struct sc_strlist l = { 0 };
	struct sc_buf k = SC_BUF_INIT;

	if (v->kind == SC_YAML_SCALAR && !strcmp(sc_yaml_type_name(v), "string") && v->value[0]) {
		sc_strlist_release(out);
		sc_strlist_add(out, v->value);
		return true;
	}
	if (v->kind != SC_YAML_SEQ) {
		sc_config_type_error(c, v, key, "a list of strings");
		return false;
	}
	if (sc_yaml_count(v) > max) {
		sc_config_report(c, SC_SEV_ERROR, v, "config-value",
				 "'%s' has %zu items, more than %zu", key, sc_yaml_count(v), max);
		return false;
	}
	for (size_t i = 0; i < sc_yaml_count(v); i++) {
		const struct sc_yaml_node *item = sc_yaml_seq_item(v, i);
		char *s = NULL;
		sc_buf_clear(&k);
		sc_buf_printf(&k, "%s[%zu]", key, i);
		if (!sc_config_get_str(c, item, k.ptr, &s)) {
			sc_strlist_release(&l);
			sc_buf_release(&k);
			return false;
		}
		sc_strlist_add(&l, s);
		free(s);
	}
	sc_buf_release(&k);
	sc_strlist_release(out);
	*out = l;
	return true;
}

/* A path that must stay inside the repository (manifest entries). */
bool sc_config_get_rel_path(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
			    char **out)
{
	char *s = NULL;
	if (!sc_config_get_str(c, v, key, &s))
		return false;
	if (!sc_path_is_safe_relative(s)) {
		sc_config_report(c, SC_SEV_ERROR, v, "config-path",
				 "'%s' must be a relative path inside the repository, found '%s'", key, s);
		free(s);
		return false;
	}
	free(*out);
	*out = s;
	return true;
}

/*
 * A path skillci writes to (store, cache, reports): relative, without
 * "..", so it resolves inside the workspace (docs/config.md). A run
 * checks symbolic links on the way as well (trust.h).
 */
bool sc_config_get_out_path(struct sc_config_ctx *c, const struct sc_yaml_node *v, const char *key,
			    char **out)
{
	char *s = NULL;
	if (!sc_config_get_str(c, v, key, &s))
		return false;
	if (!sc_path_is_safe_relative(s)) {
		sc_config_report(c, SC_SEV_ERROR, v, "config-path",
				 "'%s' must be a relative path inside the workspace (no '..', not absolute), "
				 "found '%s'", key, s);
		free(s);
		return false;
	}
	free(*out);
	*out = s;
	return true;
}

/* ---- maps ------------------------------------------------------------- */

/*
 * Walks the pairs of map (a node at key `prefix`, "" for the top level),
 * calling each known key's handler with its full dotted name; unknown keys
 * warn, duplicate keys are errors.
 */
void sc_config_walk_map(struct sc_config_ctx *c, const struct sc_yaml_node *map, const char *prefix,
			const struct sc_config_key *keys, size_t nkeys)
{
	struct sc_buf full = SC_BUF_INIT;

	if (map->kind != SC_YAML_MAP) {
		if (!prefix[0] && sc_yaml_is_null(map))
			return;  /* an empty file */
		sc_config_type_error(c, map, prefix[0] ? prefix : "the file's top level", "a map");
		return;
	}
	for (size_t i = 0; i < sc_yaml_count(map); i++) {
		const struct sc_yaml_node *k = sc_yaml_map_key(map, i);
		const struct sc_yaml_node *v = sc_yaml_map_value(map, i);
		const struct sc_config_key *found = NULL;
		bool dup = false;

		if (k->kind != SC_YAML_SCALAR) {
			sc_config_report(c, SC_SEV_ERROR, k, "config-type",
					 "keys must be plain names, found a %s", sc_yaml_type_name(k));
			continue;
		}
		for (size_t j = 0; j < i && !dup; j++) {
			const struct sc_yaml_node *pk = sc_yaml_map_key(map, j);
			dup = pk->kind == SC_YAML_SCALAR && !strcmp(pk->value, k->value);
		}
		sc_diag_path_join(&full, prefix, k->value);
		if (dup) {
			sc_config_report(c, SC_SEV_ERROR, k, "config-duplicate-key",
					 "duplicate key '%s'", full.ptr);
			continue;
		}
		for (size_t j = 0; j < nkeys; j++)
			if (!strcmp(keys[j].name, k->value))
				found = &keys[j];
		if (!found) {
			const char *hint = sc_config_upskill_hint(prefix, keys, k->value);
			sc_config_report(c, SC_SEV_WARNING, k, "config-unknown-key",
					 "unknown key '%s'; ignored%s%s%s", full.ptr, hint ? " (" : "",
					 hint ? hint : "", hint ? ")" : "");
			continue;
		}
		if (found->fn)
			found->fn(c, v, full.ptr);
	}
	sc_buf_release(&full);
}
