/* Unit tests for the JSON helpers (runner/core/json.c): typed getters that
 * tell missing, wrong type and out of range apart, and printing. */
#include "unit.h"
#include "json.h"

#include <limits.h>

static cJSON *parse(const char *text)
{
	cJSON *j = cJSON_Parse(text);
	assert_non_null(j);
	return j;
}

static void test_str_num_bool(void **state)
{
	cJSON *j = parse("{\"s\": \"x\", \"n\": 2.5, \"b\": false, \"z\": null, \"S\": 1}");
	const char *s = "untouched";
	double d = -1;
	bool b = true;
	(void)state;

	assert_int_equal(sc_json_get_str(&s, j, "s"), SC_JSON_OK);
	assert_string_equal(s, "x");
	s = "untouched";
	assert_int_equal(sc_json_get_str(&s, j, "n"), SC_JSON_WRONG_TYPE);
	assert_int_equal(sc_json_get_str(&s, j, "z"), SC_JSON_WRONG_TYPE);  /* null is present */
	assert_int_equal(sc_json_get_str(&s, j, "none"), SC_JSON_MISSING);
	assert_int_equal(sc_json_get_str(&s, j, "S"), SC_JSON_WRONG_TYPE);  /* case-sensitive: "S" is the number */
	assert_string_equal(s, "untouched");

	assert_int_equal(sc_json_get_num(&d, j, "n"), SC_JSON_OK);
	assert_true(d == 2.5);
	assert_int_equal(sc_json_get_num(&d, j, "s"), SC_JSON_WRONG_TYPE);
	assert_int_equal(sc_json_get_bool(&b, j, "b"), SC_JSON_OK);
	assert_false(b);
	assert_int_equal(sc_json_get_bool(&b, j, "n"), SC_JSON_WRONG_TYPE);

	assert_string_equal(sc_json_str_or(j, "s", "d"), "x");
	assert_string_equal(sc_json_str_or(j, "n", "d"), "d");
	assert_null(sc_json_str_or(j, "none", NULL));
	assert_true(sc_json_num_or(j, "s", 7) == 7);
	assert_true(sc_json_bool_or(j, "none", true));
	cJSON_Delete(j);
}

/* Not an object, or no tree at all: everything is missing. */
static void test_not_an_object(void **state)
{
	cJSON *j = parse("[1, 2]");
	int64_t i = 5;
	(void)state;

	assert_null(sc_json_member(j, "0"));
	assert_null(sc_json_member(NULL, "x"));
	assert_int_equal(sc_json_get_int(&i, j, "x", 0, 10), SC_JSON_MISSING);
	assert_int_equal(sc_json_get_int(&i, NULL, "x", 0, 10), SC_JSON_MISSING);
	assert_int_equal(sc_json_int(&i, NULL, 0, 10), SC_JSON_MISSING);
	assert_int_equal(sc_json_int(&i, cJSON_GetArrayItem(j, 1), 0, 10), SC_JSON_OK);
	assert_int_equal(i, 2);
	cJSON_Delete(j);
}

/* Whole numbers: a fraction is the wrong type, a number outside the range
 * or past int64 (1e19, 1e400 = infinity) is refused, never cast. */
static void test_int_range(void **state)
{
	cJSON *j = parse("{\"a\": 42, \"neg\": -3, \"frac\": 1.5, \"huge\": 1e19, \"inf\": 1e400,"
			 " \"ninf\": -1e400, \"max\": 9007199254740992, \"edge\": 9223372036854775807,"
			 " \"low\": -9223372036854775808, \"str\": \"42\"}");
	int64_t i = 7;
	(void)state;

	assert_int_equal(sc_json_get_int(&i, j, "a", 0, 100), SC_JSON_OK);
	assert_int_equal(i, 42);
	i = 7;
	assert_int_equal(sc_json_get_int(&i, j, "a", 0, 41), SC_JSON_RANGE);
	assert_int_equal(sc_json_get_int(&i, j, "neg", 0, INT64_MAX), SC_JSON_RANGE);
	assert_int_equal(sc_json_get_int(&i, j, "frac", 0, 100), SC_JSON_WRONG_TYPE);
	assert_int_equal(sc_json_get_int(&i, j, "huge", INT64_MIN, INT64_MAX), SC_JSON_RANGE);
	assert_int_equal(sc_json_get_int(&i, j, "inf", INT64_MIN, INT64_MAX), SC_JSON_RANGE);
	assert_int_equal(sc_json_get_int(&i, j, "ninf", INT64_MIN, INT64_MAX), SC_JSON_RANGE);
	/* 2^63 - 1 is not a double: it reads as 2^63, one past int64. */
	assert_int_equal(sc_json_get_int(&i, j, "edge", INT64_MIN, INT64_MAX), SC_JSON_RANGE);
	assert_int_equal(sc_json_get_int(&i, j, "str", 0, 100), SC_JSON_WRONG_TYPE);
	assert_int_equal(i, 7);
	assert_int_equal(sc_json_get_int(&i, j, "low", INT64_MIN, INT64_MAX), SC_JSON_OK);
	assert_true(i == INT64_MIN);
	assert_int_equal(sc_json_get_int(&i, j, "max", 0, INT64_MAX), SC_JSON_OK);
	assert_true(i == 9007199254740992LL);

	assert_int_equal(sc_json_int_or(j, "a", 0, INT_MAX, 5), 42);
	assert_int_equal(sc_json_int_or(j, "huge", 0, INT64_MAX, 5), 5);
	assert_int_equal(sc_json_int_or(j, "frac", 0, INT64_MAX, 5), 5);
	assert_int_equal(sc_json_int_or(j, "none", 0, INT64_MAX, 5), 5);
	cJSON_Delete(j);
}

static void test_print(void **state)
{
	cJSON *j = parse("{\"a\": [1, \"x\"]}");
	struct sc_buf b = SC_BUF_INIT;
	(void)state;

	sc_buf_puts(&b, ">");
	sc_json_print(&b, j, false);
	assert_string_equal(b.ptr, ">{\"a\":[1,\"x\"]}");
	sc_buf_clear(&b);
	sc_json_print(&b, j, true);
	assert_string_equal(b.ptr, "{\n\t\"a\":\t[1, \"x\"]\n}");
	sc_buf_release(&b);
	cJSON_Delete(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_str_num_bool),
		cmocka_unit_test(test_not_an_object),
		cmocka_unit_test(test_int_range),
		cmocka_unit_test(test_print),
	};
	return cmocka_run_group_tests_name("json", tests, NULL, NULL);
}
