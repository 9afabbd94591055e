/*
 * Unit tests for common/pmixev_env.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pmixev_env.h"

static char *env[] = {
	"A=1",	 "AB=2",   "EMPTY=", "N=4294967295", "BIG=4294967296", "NEG=-1",
	"X=12x", "EQ=a=b", NULL};

static void test_get(void **state)
{
	assert_string_equal(pmixev_env_get(env, "A"), "1");
	assert_string_equal(pmixev_env_get(env, "AB"), "2");
	assert_string_equal(pmixev_env_get(env, "EMPTY"), "");
	assert_string_equal(pmixev_env_get(env, "EQ"), "a=b");
	assert_null(pmixev_env_get(env, "ABC"));
	assert_null(pmixev_env_get(env, ""));
	assert_null(pmixev_env_get(NULL, "A"));
	assert_null(pmixev_env_get(env, NULL));
}

static void test_get_u32(void **state)
{
	uint32_t v = 7;

	assert_int_equal(pmixev_env_get_u32(env, "N", &v), 0);
	assert_int_equal(v, UINT32_MAX);
	assert_int_equal(pmixev_env_get_u32(env, "MISSING", &v), -1);
	assert_int_equal(pmixev_env_get_u32(env, "BIG", &v), -2);
	assert_int_equal(pmixev_env_get_u32(env, "NEG", &v), -2);
	assert_int_equal(pmixev_env_get_u32(env, "X", &v), -2);
	assert_int_equal(pmixev_env_get_u32(env, "EMPTY", &v), -2);
	assert_int_equal(v, UINT32_MAX);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_get),
		cmocka_unit_test(test_get_u32),
	};

	return cmocka_run_group_tests_name("env", tests, NULL, NULL);
}
