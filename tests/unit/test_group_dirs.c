/*
 * Unit tests for plugins/mpi_pmixev/pmixbase/group_dirs.c: the directives
 * of a group construct as OpenPMIx 4.2 (one caller's) and 5.0 (every
 * local caller's, repeated) hand them to the host.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmixbase/group_dirs.h"

static void test_none(void **state)
{
	struct group_dirs d;
	const char *why = "x";

	(void)state;
	memset(&d, 0xff, sizeof(d));
	assert_int_equal(group_dirs_read(NULL, 0, &d, &why), PMIX_SUCCESS);
	assert_null(why);
	assert_false(d.assign_ctxid || d.notify_term || d.optional ||
		     d.leader || d.local_only || d.lost_local);
	assert_int_equal(d.timeout_sec, 0);
	assert_null(d.endpt);
	assert_int_equal(d.nendpt, 0);
}

/* 5.0.7 repeats each caller's directives: a flag set by any copy holds,
 * the shortest positive timeout wins. */
static void test_merged_copies(void **state)
{
	pmix_info_t in[8];
	bool no = false, yes = true;
	int t9 = 9, t0 = 0;
	uint32_t t4 = 4;
	struct group_dirs d;
	const char *why;

	(void)state;
	PMIX_INFO_LOAD(&in[0], PMIX_GROUP_ASSIGN_CONTEXT_ID, &no, PMIX_BOOL);
	PMIX_INFO_LOAD(&in[1], PMIX_TIMEOUT, &t9, PMIX_INT);
	PMIX_INFO_LOAD(&in[2], PMIX_GROUP_ASSIGN_CONTEXT_ID, &yes, PMIX_BOOL);
	PMIX_INFO_LOAD(&in[3], PMIX_TIMEOUT, &t0, PMIX_INT);
	PMIX_INFO_LOAD(&in[4], PMIX_TIMEOUT, &t4, PMIX_UINT32);
	PMIX_INFO_LOAD(&in[5], PMIX_GROUP_LEADER, NULL, PMIX_BOOL);
	PMIX_INFO_LOAD(&in[6], PMIX_GROUP_OPTIONAL, &no, PMIX_BOOL);
	PMIX_INFO_LOAD(&in[7], PMIX_SORTED_PROC_ARRAY, &yes, PMIX_BOOL);
	assert_int_equal(group_dirs_read(in, 8, &d, &why), PMIX_SUCCESS);
	assert_true(d.assign_ctxid);
	assert_true(d.leader);
	assert_false(d.optional);
	assert_false(d.notify_term);
	assert_int_equal(d.timeout_sec, 4);
	for (int i = 0; i < 8; i++)
		PMIX_INFO_DESTRUCT(&in[i]);
}

static void test_endpt_and_status(void **state)
{
	pmix_info_t in[4];
	pmix_byte_object_t bo = {.bytes = "abc", .size = 3}, empty = {0};
	pmix_status_t partial = PMIX_ERR_PARTIAL_SUCCESS;
	size_t huge = (size_t)1 << 40;
	struct group_dirs d;
	const char *why;

	(void)state;
	PMIX_INFO_LOAD(&in[0], PMIX_GROUP_ENDPT_DATA, &empty, PMIX_BYTE_OBJECT);
	PMIX_INFO_LOAD(&in[1], PMIX_GROUP_ENDPT_DATA, &bo, PMIX_BYTE_OBJECT);
	PMIX_INFO_LOAD(&in[2], PMIX_LOCAL_COLLECTIVE_STATUS, &partial,
		       PMIX_STATUS);
	PMIX_INFO_LOAD(&in[3], PMIX_TIMEOUT, &huge, PMIX_SIZE);
	assert_int_equal(group_dirs_read(in, 4, &d, &why), PMIX_SUCCESS);
	assert_int_equal(d.nendpt, 3);
	assert_memory_equal(d.endpt, "abc", 3);
	assert_true(d.lost_local);
	assert_int_equal(d.timeout_sec, GROUP_DIRS_TIMEOUT_MAX_SEC);
	for (int i = 0; i < 4; i++)
		PMIX_INFO_DESTRUCT(&in[i]);
}

/* A value of the wrong type is refused, naming its key. */
static void test_wrong_types(void **state)
{
	int one = 1;
	const char *keys[] = {PMIX_GROUP_NOTIFY_TERMINATION, PMIX_TIMEOUT,
			      PMIX_GROUP_ENDPT_DATA,
			      PMIX_LOCAL_COLLECTIVE_STATUS};
	struct group_dirs d;
	const char *why;

	(void)state;
	for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
		pmix_info_t in;

		if (!strcmp(keys[k], PMIX_TIMEOUT))
			PMIX_INFO_LOAD(&in, keys[k], "5", PMIX_STRING);
		else
			PMIX_INFO_LOAD(&in, keys[k], &one, PMIX_INT);
		assert_int_equal(group_dirs_read(&in, 1, &d, &why),
				 PMIX_ERR_BAD_PARAM);
		assert_string_equal(why, keys[k]);
		PMIX_INFO_DESTRUCT(&in);
	}
}

/* A required directive pmixev does not serve; the same not required. */
static void test_required(void **state)
{
	pmix_info_t in;
	pmix_proc_t p;
	struct group_dirs d;
	const char *why;

	(void)state;
	PMIX_LOAD_PROCID(&p, "ns", 3);
	PMIX_INFO_LOAD(&in, PMIX_GROUP_ADD_MEMBERS, &p, PMIX_PROC);
	assert_int_equal(group_dirs_read(&in, 1, &d, &why), PMIX_SUCCESS);
	PMIX_INFO_REQUIRED(&in);
	assert_int_equal(group_dirs_read(&in, 1, &d, &why),
			 PMIX_ERR_NOT_SUPPORTED);
	assert_string_equal(why, PMIX_GROUP_ADD_MEMBERS);
	PMIX_INFO_DESTRUCT(&in);
	/* a required timeout is served */
	PMIX_INFO_LOAD(&in, PMIX_TIMEOUT, &(int){3}, PMIX_INT);
	PMIX_INFO_REQUIRED(&in);
	assert_int_equal(group_dirs_read(&in, 1, &d, &why), PMIX_SUCCESS);
	assert_int_equal(d.timeout_sec, 3);
	PMIX_INFO_DESTRUCT(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_merged_copies),
		cmocka_unit_test(test_endpt_and_status),
		cmocka_unit_test(test_wrong_types),
		cmocka_unit_test(test_required),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
