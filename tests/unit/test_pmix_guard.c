/*
 * Unit tests for plugins/pmix_guard/pmix_guard.c: PMIx_Query_info_nb in
 * front of a stand-in for the PMIx library's, which answers attribute
 * queries the way OpenPMIx 4.2 does (its own data as the callback data)
 * or the way a mended library does (the data it was given).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <pmix.h>

#include "pmix_guard.h"

/* The stand-in library: what it was given, kept for answering later. */
static struct {
	unsigned calls;
	pmix_info_cbfunc_t cbfunc[4];
	void *cbdata[4];
	pmix_status_t rc; /* what it returns */
} lib;

static int library_own_data; /* what a 4.2 library passes back instead */

static pmix_status_t stand_in(pmix_query_t queries[], size_t nqueries,
			      pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	if (lib.calls < 4) {
		lib.cbfunc[lib.calls] = cbfunc;
		lib.cbdata[lib.calls] = cbdata;
	}
	lib.calls++;
	return lib.rc;
}

/* Answer call `i` as OpenPMIx 4.2 does (`buggy`) or with its data. */
static void answer(unsigned i, bool buggy, pmix_release_cbfunc_t rel)
{
	lib.cbfunc[i](PMIX_SUCCESS, NULL, 0,
		      buggy ? (void *)&library_own_data : lib.cbdata[i], rel,
		      &library_own_data);
}

/* The caller: which data its callback got, and the release it must call. */
static void *got_data[4];
static unsigned ngot;
static unsigned released;

static void caller_cb(pmix_status_t status, pmix_info_t *info, size_t ninfo,
		      void *cbdata, pmix_release_cbfunc_t release_fn,
		      void *release_cbdata)
{
	got_data[ngot++] = cbdata;
	if (release_fn)
		release_fn(release_cbdata);
}

static void release(void *cbdata)
{
	assert_ptr_equal(cbdata, &library_own_data);
	released++;
}

static char *attr_keys[] = {PMIX_QUERY_ATTRIBUTE_SUPPORT, NULL};
static char *job_keys[] = {PMIX_QUERY_JOB_STATUS, NULL};
static char *no_keys[] = {NULL};

static int setup(void **state)
{
	memset(&lib, 0, sizeof(lib));
	memset(got_data, 0, sizeof(got_data));
	ngot = released = 0;
	pmixev_guard_arm(stand_in);
	return 0;
}

static void test_unarmed(void **state)
{
	pmix_query_t q = {.keys = job_keys};

	pmixev_guard_arm(NULL);
	assert_int_equal(PMIx_Query_info_nb(&q, 1, caller_cb, NULL),
			 PMIX_ERR_NOT_SUPPORTED);
	assert_int_equal(lib.calls, 0);
}

/* A query without keys never reaches the library (4.2 reads keys[0]). */
static void test_no_keys(void **state)
{
	pmix_query_t q[2] = {{.keys = job_keys}, {.keys = NULL}};

	assert_int_equal(PMIx_Query_info_nb(q, 2, caller_cb, NULL),
			 PMIX_ERR_BAD_PARAM);
	q[1].keys = no_keys;
	assert_int_equal(PMIx_Query_info_nb(q, 2, caller_cb, NULL),
			 PMIX_ERR_BAD_PARAM);
	assert_int_equal(PMIx_Query_info_nb(NULL, 1, caller_cb, NULL),
			 PMIX_ERR_BAD_PARAM);
	assert_int_equal(PMIx_Query_info_nb(q, 0, caller_cb, NULL),
			 PMIX_ERR_BAD_PARAM);
	assert_int_equal(lib.calls, 0);
}

/* Other queries pass unchanged: the caller's own callback and data. */
static void test_other_query(void **state)
{
	pmix_query_t q = {.keys = job_keys};
	int mine;

	assert_int_equal(PMIx_Query_info_nb(&q, 1, caller_cb, &mine),
			 PMIX_SUCCESS);
	assert_int_equal(lib.calls, 1);
	assert_ptr_equal(lib.cbfunc[0], caller_cb);
	assert_ptr_equal(lib.cbdata[0], &mine);
}

/* OpenPMIx 4.2 answers two attribute queries with its own data, in the
 * order it got them: each caller gets its own data, and the library's
 * release is handed on. */
static void test_attrs_buggy_library(void **state)
{
	pmix_query_t q = {.keys = attr_keys};
	int first, second;
	unsigned long carried, mended;

	assert_int_equal(PMIx_Query_info_nb(&q, 1, caller_cb, &first),
			 PMIX_SUCCESS);
	assert_int_equal(PMIx_Query_info_nb(&q, 1, caller_cb, &second),
			 PMIX_SUCCESS);
	assert_int_equal(lib.calls, 2);
	assert_ptr_not_equal(lib.cbfunc[0], caller_cb);
	answer(0, true, release);
	answer(1, true, release);
	assert_int_equal(ngot, 2);
	assert_ptr_equal(got_data[0], &first);
	assert_ptr_equal(got_data[1], &second);
	assert_int_equal(released, 2);
	pmixev_guard_counts(&carried, &mended);
	assert_true(mended >= 2 && carried >= mended);
}

/* A mended library passes the guard's data back: found by it, whatever
 * the order of the answers. */
static void test_attrs_mended_library(void **state)
{
	pmix_query_t q = {.keys = attr_keys};
	int first, second;

	PMIx_Query_info_nb(&q, 1, caller_cb, &first);
	PMIx_Query_info_nb(&q, 1, caller_cb, &second);
	answer(1, false, release);
	answer(0, false, NULL);
	assert_ptr_equal(got_data[0], &second);
	assert_ptr_equal(got_data[1], &first);
	assert_int_equal(released, 1);
}

/* A query the library refuses at once leaves nothing behind: the next
 * answer goes to the next caller. */
static void test_attrs_refused(void **state)
{
	pmix_query_t q = {.keys = attr_keys};
	int refused, next;

	lib.rc = PMIX_ERR_NOMEM;
	assert_int_equal(PMIx_Query_info_nb(&q, 1, caller_cb, &refused),
			 PMIX_ERR_NOMEM);
	lib.rc = PMIX_SUCCESS;
	PMIx_Query_info_nb(&q, 1, caller_cb, &next);
	answer(1, true, NULL);
	assert_int_equal(ngot, 1);
	assert_ptr_equal(got_data[0], &next);
}

/* An answer nobody waits for is released, not handed to anyone. */
static void test_unasked_answer(void **state)
{
	pmix_query_t q = {.keys = attr_keys};

	PMIx_Query_info_nb(&q, 1, caller_cb, NULL);
	answer(0, true, release);
	answer(0, true, release);
	assert_int_equal(ngot, 1);
	assert_int_equal(released, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_unarmed, setup),
		cmocka_unit_test_setup(test_no_keys, setup),
		cmocka_unit_test_setup(test_other_query, setup),
		cmocka_unit_test_setup(test_attrs_buggy_library, setup),
		cmocka_unit_test_setup(test_attrs_mended_library, setup),
		cmocka_unit_test_setup(test_attrs_refused, setup),
		cmocka_unit_test_setup(test_unasked_answer, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
