/*
 * Unit tests for common/pmixev_multiprog.c: PMIx application numbers from
 * srun --multi-prog configurations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_multiprog.h"

static void expect_map(const char *conf, uint32_t ntasks, const char *map,
		       uint32_t napps)
{
	uint32_t n = 0;
	char err[128] = "";
	char *got = pmixev_multiprog_appmap(conf, ntasks, &n, err, sizeof(err));

	assert_non_null(got);
	assert_string_equal(got, map);
	assert_int_equal(n, napps);
	free(got);
}

static void expect_error(const char *conf, uint32_t ntasks, const char *why)
{
	uint32_t n = 77;
	char err[128] = "";

	assert_null(
		pmixev_multiprog_appmap(conf, ntasks, &n, err, sizeof(err)));
	assert_string_equal(err, why);
	assert_int_equal(n, 77);
}

static void test_lines_are_apps(void **state)
{
	expect_map("0 ./a\n1-3 ./b x\n4,5 ./c %t\n", 6, "0;1-3;4-5", 3);
	expect_map("# comment\n\n  0-1  ./a\n2 ./b", 3, "0-1;2", 2);
	expect_map("1,3 ./odd\n0,2 ./even\n", 4, "1,3;0,2", 2);
}

static void test_star_takes_the_rest(void **state)
{
	expect_map("2 ./two\n* ./rest\n", 4, "2;0-1,3", 2);
	expect_map("* ./all\n0 ./never\n", 3, "0-2", 1);
}

static void test_first_line_wins(void **state)
{
	expect_map("0-2 ./a\n1-3 ./b\n", 4, "0-2;3", 2);
}

static void test_errors(void **state)
{
	expect_error("0-1 ./a\n", 3, "no line names rank 2");
	expect_error("0-5 ./a\n", 3, "rank 5 is not below 3");
	expect_error("x ./a\n", 1, "malformed rank list 'x'");
	expect_error("2-1 ./a\n", 3, "malformed rank list '2-1'");
	expect_error("0,,1 ./a\n", 3, "malformed rank list ',1'");
	expect_error("0 ./a\n", 0, "steps of 0 tasks are not supported");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_are_apps),
		cmocka_unit_test(test_star_takes_the_rest),
		cmocka_unit_test(test_first_line_wins),
		cmocka_unit_test(test_errors),
	};

	return cmocka_run_group_tests_name("multiprog", tests, NULL, NULL);
}
