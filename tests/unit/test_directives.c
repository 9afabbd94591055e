/*
 * Unit tests for plugins/mpi_pmixev/pmixbase/directives.c: PMIX_TIMEOUT,
 * PMIX_COLLECT_DATA, PMIX_WAIT, PMIX_RANGE and PMIX_PERSISTENCE as fence,
 * direct modex and publish/lookup read them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "pmixbase/directives.h"

static void test_none(void **state)
{
	struct directives d = {.timeout_sec = 9, .collect = true, .wait = true};

	directives_read(NULL, 0, &d);
	assert_int_equal(d.timeout_sec, 0);
	assert_false(d.collect);
	assert_false(d.wait);
	assert_int_equal(d.range, PMIX_RANGE_UNDEF);
	assert_int_equal(d.persist, PMIX_PERSIST_INDEF);
}

/* The first PMIX_RANGE and PMIX_PERSISTENCE count, by their own type or
 * as a uint8; any other type makes them invalid, not the default. */
static void test_scope(void **state)
{
	pmix_data_range_t local = PMIX_RANGE_LOCAL, global = PMIX_RANGE_GLOBAL;
	pmix_persistence_t first = PMIX_PERSIST_FIRST_READ;
	uint8_t proc_local = PMIX_RANGE_PROC_LOCAL, app = PMIX_PERSIST_APP;
	int four = 4;
	pmix_info_t info[4];
	struct directives d;

	PMIX_INFO_LOAD(&info[0], PMIX_RANGE, &local, PMIX_DATA_RANGE);
	PMIX_INFO_LOAD(&info[1], PMIX_PERSISTENCE, &first, PMIX_PERSIST);
	PMIX_INFO_LOAD(&info[2], PMIX_RANGE, &global, PMIX_DATA_RANGE);
	PMIX_INFO_LOAD(&info[3], PMIX_PERSISTENCE, &app, PMIX_UINT8);
	directives_read(info, 4, &d);
	assert_int_equal(d.range, PMIX_RANGE_LOCAL);
	assert_int_equal(d.persist, PMIX_PERSIST_FIRST_READ);
	directives_read(&info[2], 2, &d);
	assert_int_equal(d.range, PMIX_RANGE_GLOBAL);
	assert_int_equal(d.persist, PMIX_PERSIST_APP);
	PMIX_INFO_LOAD(&info[0], PMIX_RANGE, &proc_local, PMIX_UINT8);
	PMIX_INFO_LOAD(&info[1], PMIX_PERSISTENCE, &four, PMIX_INT);
	directives_read(info, 2, &d);
	assert_int_equal(d.range, PMIX_RANGE_PROC_LOCAL);
	assert_int_equal(d.persist, PMIX_PERSIST_INVALID);
	PMIX_INFO_LOAD(&info[0], PMIX_RANGE, &four, PMIX_INT);
	directives_read(info, 1, &d);
	assert_int_equal(d.range, PMIX_RANGE_INVALID);
}

/* The first positive PMIX_TIMEOUT of type int counts. */
static void test_timeout(void **state)
{
	pmix_info_t info[4];
	int zero = 0, seven = 7, eight = 8;
	uint32_t u = 5;
	struct directives d;

	PMIX_INFO_LOAD(&info[0], PMIX_TIMEOUT, &zero, PMIX_INT);
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &u, PMIX_UINT32);
	PMIX_INFO_LOAD(&info[2], PMIX_TIMEOUT, &seven, PMIX_INT);
	PMIX_INFO_LOAD(&info[3], PMIX_TIMEOUT, &eight, PMIX_INT);
	directives_read(info, 4, &d);
	assert_int_equal(d.timeout_sec, 7);
	assert_false(d.collect);
	assert_false(d.wait);
}

/* The first PMIX_COLLECT_DATA decides; PMIX_WAIT counts by its presence. */
static void test_flags(void **state)
{
	pmix_info_t info[4];
	bool no = false, yes = true;
	int count = 0;
	struct directives d;

	PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &no, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[1], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[2], "pmixev.test.key", &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&info[3], PMIX_WAIT, &count, PMIX_INT);
	directives_read(info, 4, &d);
	assert_false(d.collect);
	assert_true(d.wait);
	directives_read(&info[1], 1, &d);
	assert_true(d.collect);
	assert_false(d.wait);
}

static void test_is_directive(void **state)
{
	assert_true(directives_is_directive(PMIX_TIMEOUT));
	assert_true(directives_is_directive("pmix.anything"));
	assert_false(directives_is_directive("pmixev.test.key"));
	assert_false(directives_is_directive("pmix"));
	assert_false(directives_is_directive("mykey"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_scope),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_flags),
		cmocka_unit_test(test_is_directive),
	};

	return cmocka_run_group_tests_name("directives", tests, NULL, NULL);
}
