#include "common.h"
#include "json.h"

const cJSON *sc_json_member(const cJSON *obj, const char *key)
{
	return cJSON_IsObject(obj) ? cJSON_GetObjectItemCaseSensitive(obj, key) : NULL;
}

/* The member key of obj into *v when it is there and is (one of cJSON's type tests). */
static int typed(const cJSON **v, const cJSON *obj, const char *key,
		 cJSON_bool (*is)(const cJSON *item))
{
	*v = sc_json_member(obj, key);
	if (!*v)
		return SC_JSON_MISSING;
	return is(*v) ? SC_JSON_OK : SC_JSON_WRONG_TYPE;
}

int sc_json_get_str(const char **out, const cJSON *obj, const char *key)
{
	const cJSON *v;
	int st = typed(&v, obj, key, cJSON_IsString);

	if (st == SC_JSON_OK)
		*out = v->valuestring;
	return st;
}

int sc_json_get_num(double *out, const cJSON *obj, const char *key)
{
	const cJSON *v;
	int st = typed(&v, obj, key, cJSON_IsNumber);

	if (st == SC_JSON_OK)
		*out = v->valuedouble;
	return st;
}

int sc_json_get_bool(bool *out, const cJSON *obj, const char *key)
{
	const cJSON *v;
	int st = typed(&v, obj, key, cJSON_IsBool);

	if (st == SC_JSON_OK)
		*out = cJSON_IsTrue(v);
	return st;
}

/*
 * cJSON keeps every number as a double. One is converted only when it lies
 * in [-2^63, 2^63) (both bounds exact in a double), so the cast is defined;
 * infinities and NaN fail that test too.
 */
int sc_json_int(int64_t *out, const cJSON *v, int64_t min, int64_t max)
{
	double d;
	int64_t i;

	if (!v)
		return SC_JSON_MISSING;
	if (!cJSON_IsNumber(v))
		return SC_JSON_WRONG_TYPE;
	d = v->valuedouble;
	if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
		return SC_JSON_RANGE;
	i = (int64_t)d;
	if ((double)i != d)
		return SC_JSON_WRONG_TYPE;
	if (i < min || i > max)
		return SC_JSON_RANGE;
	*out = i;
	return SC_JSON_OK;
}

int sc_json_get_int(int64_t *out, const cJSON *obj, const char *key, int64_t min, int64_t max)
{
	return sc_json_int(out, sc_json_member(obj, key), min, max);
}

const char *sc_json_str_or(const cJSON *obj, const char *key, const char *def)
{
	const char *s = def;
	sc_json_get_str(&s, obj, key);
	return s;
}

double sc_json_num_or(const cJSON *obj, const char *key, double def)
{
	double d = def;
	sc_json_get_num(&d, obj, key);
	return d;
}

bool sc_json_bool_or(const cJSON *obj, const char *key, bool def)
{
	bool b = def;
	sc_json_get_bool(&b, obj, key);
	return b;
}

int64_t sc_json_int_or(const cJSON *obj, const char *key, int64_t min, int64_t max, int64_t def)
{
	int64_t i = def;
	sc_json_get_int(&i, obj, key, min, max);
	return i;
}

void sc_json_print(struct sc_buf *out, const cJSON *v, bool pretty)
{
	char *text;

	assert(v);
	text = pretty ? cJSON_Print(v) : cJSON_PrintUnformatted(v);
	if (!text)
		sc_die("out of memory formatting JSON");
	sc_buf_puts(out, text);
	cJSON_free(text);
}
