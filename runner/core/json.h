#ifndef SC_JSON_H
#define SC_JSON_H
/*
 * Typed reads of cJSON members and printing into a struct sc_buf: the one
 * copy of the getters every JSON reader needs (a provider's answer, a
 * cache entry, a kernel job or result, a GitHub event).
 *
 * A getter says what it found: SC_JSON_OK (and sets *out), or why not,
 * leaving *out untouched: SC_JSON_MISSING (obj is NULL or not an object,
 * or has no such member), SC_JSON_WRONG_TYPE (present, JSON null included,
 * but of another type; a number with a fraction where a whole number is
 * wanted) or SC_JSON_RANGE (a whole number outside [min, max]; a number
 * past int64 is refused here, never cast). No error message is set: the
 * caller knows the file and the path and words its own. The _or forms
 * return def for anything but SC_JSON_OK.
 *
 * Strings returned are borrowed from the cJSON tree. Keys are compared
 * case-sensitively.
 */
#include <stdbool.h>
#include <stdint.h>

#include <cjson/cJSON.h>

struct sc_buf;

enum sc_json_status {
	SC_JSON_OK = 0,
	SC_JSON_MISSING,
	SC_JSON_WRONG_TYPE,
	SC_JSON_RANGE,
};

/* The member key of obj; NULL when obj is NULL, not an object, or has none. */
const cJSON *sc_json_member(const cJSON *obj, const char *key);

int sc_json_get_str(const char **out, const cJSON *obj, const char *key);
int sc_json_get_num(double *out, const cJSON *obj, const char *key);
int sc_json_get_bool(bool *out, const cJSON *obj, const char *key);
/* A whole number from min to max. */
int sc_json_get_int(int64_t *out, const cJSON *obj, const char *key, int64_t min, int64_t max);
/* The same for a value itself (an array element, a member already found). */
int sc_json_int(int64_t *out, const cJSON *v, int64_t min, int64_t max);

const char *sc_json_str_or(const cJSON *obj, const char *key, const char *def);
double sc_json_num_or(const cJSON *obj, const char *key, double def);
bool sc_json_bool_or(const cJSON *obj, const char *key, bool def);
int64_t sc_json_int_or(const cJSON *obj, const char *key, int64_t min, int64_t max, int64_t def);

/*
 * Appends v as JSON text to out: on one line, or indented with tabs as
 * cJSON_Print() does when pretty. v is not NULL. Running out of memory
 * aborts (sc_die).
 */
void sc_json_print(struct sc_buf *out, const cJSON *v, bool pretty);

#endif
