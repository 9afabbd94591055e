/*
 * Unit tests for plugins/mpi_pmixev/jobmgmt/pmixstatus.c: PMIx statuses
 * without the library, held to the library's own (pmixbase/status.c's
 * errno conversion, and PMIx_Error_string on OpenPMIx 4).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <pmix.h>

#include "jobmgmt/pmixstatus.h"

/* Each errno maps to the status pmixstatus.h documents. */
static void test_from_errno(void **state)
{
	(void)state;
	assert_int_equal(pmixstatus_from_errno(ETIMEDOUT), PMIX_ERR_TIMEOUT);
	assert_int_equal(pmixstatus_from_errno(EHOSTUNREACH), PMIX_ERR_UNREACH);
	assert_int_equal(pmixstatus_from_errno(ESRCH), PMIX_ERR_NOT_FOUND);
	assert_int_equal(pmixstatus_from_errno(EBUSY),
			 PMIX_ERR_OUT_OF_RESOURCE);
	assert_int_equal(pmixstatus_from_errno(EPERM), PMIX_ERR_NO_PERMISSIONS);
	assert_int_equal(pmixstatus_from_errno(ENOMEM), PMIX_ERR_NOMEM);
	assert_int_equal(pmixstatus_from_errno(ENOSPC), PMIX_ERR_NOT_AVAILABLE);
}

/* The names the documentation and the tests read in the slurmd log. */
static void test_names(void **state)
{
	static const pmix_status_t named[] = {
		PMIX_ERROR,
		PMIX_ERR_BAD_PARAM,
		PMIX_ERR_NOMEM,
		PMIX_ERR_NO_PERMISSIONS,
		PMIX_ERR_NOT_SUPPORTED,
		PMIX_ERR_NOT_AVAILABLE,
		PMIX_ERR_OUT_OF_RESOURCE,
		PMIX_ERR_TIMEOUT,
		PMIX_ERR_UNREACH,
		PMIX_ERR_NOT_FOUND,
	};

	(void)state;
	assert_string_equal(pmixstatus_name(PMIX_ERR_NOT_SUPPORTED),
			    "NOT-SUPPORTED");
	assert_string_equal(pmixstatus_name(PMIX_ERR_BAD_PARAM), "BAD-PARAM");
	assert_string_equal(pmixstatus_name(-9999), "ERROR STRING NOT FOUND");
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++) {
		assert_string_not_equal(pmixstatus_name(named[i]),
					"ERROR STRING NOT FOUND");
#if PMIX_VERSION_MAJOR == 4
		/* The library this was built with says the same. */
		assert_string_equal(pmixstatus_name(named[i]),
				    PMIx_Error_string(named[i]));
#endif
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_errno),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
