/*
 * Unit tests for plugins/mpi_pmixev/pmixbase/status.c: pmixev results as PMIx
 * statuses and back, and the answers through PMIx's callbacks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmixbase/status.h"

/* Every result becomes a distinct PMIx status and comes back as itself. */
static void test_round_trip(void **state)
{
	for (unsigned r = 0; r < PMIXEV_RESULT_COUNT; r++) {
		pmix_status_t s = status_to_pmix((enum pmixev_result)r);

		assert_int_equal(status_from_pmix(s), r);
		for (unsigned q = 0; q < r; q++)
			assert_int_not_equal(
				status_to_pmix((enum pmixev_result)q), s);
	}
}

/* The statuses the engines' callers rely on, and PMIx_server_dmodex_request's.
 */
static void test_known(void **state)
{
	assert_int_equal(status_to_pmix(PMIXEV_OK), PMIX_SUCCESS);
	assert_int_equal(status_to_pmix(PMIXEV_ERR_TIMEOUT), PMIX_ERR_TIMEOUT);
	assert_int_equal(status_to_pmix(PMIXEV_ERR_UNREACH), PMIX_ERR_UNREACH);
	assert_int_equal(status_to_pmix(PMIXEV_ERR_BAD_REQUEST),
			 PMIX_ERR_BAD_PARAM);
	assert_int_equal(status_to_pmix(PMIXEV_ERR_EXISTS),
			 PMIX_ERR_DUPLICATE_KEY);
	assert_int_equal(status_to_pmix(PMIXEV_ERR_OVER_BUDGET),
			 PMIX_ERR_OUT_OF_RESOURCE);
	assert_int_equal(status_from_pmix(PMIX_ERR_NOT_FOUND),
			 PMIXEV_ERR_NOT_FOUND);
	assert_int_equal(status_from_pmix(PMIX_ERR_INIT), PMIXEV_ERR_NOT_READY);
	assert_int_equal(status_from_pmix(PMIX_ERR_NOMEM), PMIXEV_ERR_NOMEM);
	assert_int_equal(status_to_pmix(PMIXEV_ERR_NO_PERMISSIONS),
			 PMIX_ERR_NO_PERMISSIONS);
}

static void test_unknown(void **state)
{
	assert_int_equal(status_from_pmix(PMIX_ERR_PACK_FAILURE),
			 PMIXEV_ERR_FAILED);
	assert_int_equal(status_from_pmix(12345), PMIXEV_ERR_FAILED);
	assert_int_equal(status_to_pmix(PMIXEV_RESULT_COUNT), PMIX_ERROR);
}

static pmix_status_t got_status;
static char *got_data;
static size_t got_ndata;
static pmix_release_cbfunc_t got_release;
static void *got_release_data;

static void modex_cb(pmix_status_t status, const char *data, size_t ndata,
		     void *cbdata, pmix_release_cbfunc_t release,
		     void *release_data)
{
	assert_ptr_equal(cbdata, &got_status);
	got_status = status;
	got_data = (char *)data;
	got_ndata = ndata;
	got_release = release;
	got_release_data = release_data;
}

static void op_cb(pmix_status_t status, void *cbdata)
{
	assert_ptr_equal(cbdata, &got_status);
	got_status = status;
}

/* The data is copied, and the copy is PMIx's to release. */
static void test_answer_modex(void **state)
{
	static const uint8_t data[] = {1, 2, 3};

	status_answer_modex(modex_cb, &got_status, PMIXEV_OK, data,
			    sizeof(data));
	assert_int_equal(got_status, PMIX_SUCCESS);
	assert_int_equal(got_ndata, sizeof(data));
	assert_ptr_not_equal(got_data, data);
	assert_memory_equal(got_data, data, sizeof(data));
	got_release(got_release_data);

	status_answer_modex(modex_cb, &got_status, PMIXEV_ERR_TIMEOUT, NULL, 0);
	assert_int_equal(got_status, PMIX_ERR_TIMEOUT);
	assert_null(got_data);
	assert_int_equal(got_ndata, 0);
	got_release(got_release_data);
}

static void test_answer_op(void **state)
{
	status_answer_op(op_cb, &got_status, PMIXEV_ERR_NOT_FOUND);
	assert_int_equal(got_status, PMIX_ERR_NOT_FOUND);
	status_answer_op(op_cb, &got_status, PMIXEV_OK);
	assert_int_equal(got_status, PMIX_SUCCESS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_known),
		cmocka_unit_test(test_unknown),
		cmocka_unit_test(test_answer_modex),
		cmocka_unit_test(test_answer_op),
	};

	return cmocka_run_group_tests_name("status", tests, NULL, NULL);
}
