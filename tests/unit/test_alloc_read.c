/*
 * Unit tests for plugins/mpi_pmixev/pmixside/alloc_read.c: a
 * PMIx_Allocation_request read into ALLOC: both types of PMIX_ALLOC_TIME,
 * counts, memory, the job id, and what is refused, by name.
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include <pmix.h>

#include "pmixside/alloc_read.h"

static void test_time_text(void **state)
{
	uint32_t s = 0;

	(void)state;
	assert_int_equal(alloc_read_time("2", &s), 0);
	assert_int_equal(s, 2);
	assert_int_equal(alloc_read_time("10:00", &s), 0);
	assert_int_equal(s, 600);
	assert_int_equal(alloc_read_time("1:2:3:4", &s), 0);
	assert_int_equal(s, 86400 + 7200 + 180 + 4);
	assert_int_equal(alloc_read_time("1:0:0:0:0", &s), 0);
	assert_int_equal(s, 2592000);
	assert_int_equal(alloc_read_time("", &s), -1);
	assert_int_equal(alloc_read_time("1::2", &s), -1);
	assert_int_equal(alloc_read_time("1:2:3:4:5:6", &s), -1);
	assert_int_equal(alloc_read_time("-1", &s), -1);
	assert_int_equal(alloc_read_time("5m", &s), -1);
	assert_int_equal(alloc_read_time("99999:0:0:0:0", &s), -1);
	assert_int_equal(alloc_read_time(NULL, &s), -1);
}

static void test_new(void **state)
{
	static struct alloc_req r;
	pmix_info_t in[8];
	uint64_t nodes = 2, cpus = 8;
	uint32_t sec = 90;
	float mem = 1.5f;
	int timeout = 7;

	(void)state;
	PMIX_INFO_LOAD(&in[0], PMIX_ALLOC_NUM_NODES, &nodes, PMIX_UINT64);
	PMIX_INFO_LOAD(&in[1], PMIX_ALLOC_NUM_CPUS, &cpus, PMIX_UINT64);
	PMIX_INFO_LOAD(&in[2], PMIX_ALLOC_TIME, &sec, PMIX_UINT32);
	PMIX_INFO_LOAD(&in[3], PMIX_ALLOC_MEM_SIZE, &mem, PMIX_FLOAT);
	PMIX_INFO_LOAD(&in[4], PMIX_ALLOC_QUEUE, "debug", PMIX_STRING);
	PMIX_INFO_LOAD(&in[5], PMIX_ALLOC_NODE_LIST, "n[1-2]", PMIX_STRING);
	PMIX_INFO_LOAD(&in[6], PMIX_TIMEOUT, &timeout, PMIX_INT);
	PMIX_INFO_LOAD(&in[7], PMIX_ALLOC_REQ_ID, "r1", PMIX_STRING);
	memset(&r, 0, sizeof(r));
	assert_int_equal(alloc_read(&r, PMIX_ALLOC_NEW, in, 8), PMIX_SUCCESS);
	assert_int_equal(r.m.directive, 1);
	assert_int_equal(r.m.nnodes, 2);
	assert_int_equal(r.m.ncpus, 8);
	assert_int_equal(r.m.seconds, 90);
	assert_true(r.m.mem_mb == 2);
	assert_string_equal(r.m.queue, "debug");
	assert_string_equal(r.m.nodes, "n[1-2]");
	assert_string_equal(r.m.reqid, "r1");
	assert_int_equal(r.m.timeout_ms, 7000);

	/* 5.x's time text, the job id. */
	PMIX_INFO_LOAD(&in[2], PMIX_ALLOC_TIME, "1:30", PMIX_STRING);
	PMIX_INFO_LOAD(&in[3], PMIX_ALLOC_ID, "1234", PMIX_STRING);
	memset(&r, 0, sizeof(r));
	assert_int_equal(alloc_read(&r, PMIX_ALLOC_RELEASE, in, 4),
			 PMIX_SUCCESS);
	assert_int_equal(r.m.seconds, 90);
	assert_int_equal(r.m.job, 1234);
	for (int i = 0; i < 8; i++)
		PMIX_INFO_DESTRUCT(&in[i]);
}

static void test_refused(void **state)
{
	static struct alloc_req r;
	pmix_info_t in;
	int neg = -1;

	(void)state;
	memset(&r, 0, sizeof(r));
	assert_int_equal(alloc_read(&r, 0, NULL, 0), PMIX_ERR_NOT_SUPPORTED);
	assert_int_equal(alloc_read(&r, 128, NULL, 0), PMIX_ERR_NOT_SUPPORTED);

	/* Every other PMIX_ALLOC_* key, required or not, by name. */
	PMIX_INFO_LOAD(&in, PMIX_ALLOC_CPU_LIST, "0-3", PMIX_STRING);
	assert_int_equal(alloc_read(&r, PMIX_ALLOC_NEW, &in, 1),
			 PMIX_ERR_NOT_SUPPORTED);
	assert_non_null(strstr(r.why, PMIX_ALLOC_CPU_LIST));
	PMIX_INFO_DESTRUCT(&in);
	/* Another key: refused only when required. */
	PMIX_INFO_LOAD(&in, "x.site.key", "v", PMIX_STRING);
	assert_int_equal(alloc_read(&r, PMIX_ALLOC_NEW, &in, 1), PMIX_SUCCESS);
	PMIX_INFO_REQUIRED(&in);
	assert_int_equal(alloc_read(&r, PMIX_ALLOC_NEW, &in, 1),
			 PMIX_ERR_NOT_SUPPORTED);
	assert_non_null(strstr(r.why, "x.site.key"));
	PMIX_INFO_DESTRUCT(&in);

	/* Bad values. */
	PMIX_INFO_LOAD(&in, PMIX_ALLOC_NUM_NODES, &neg, PMIX_INT);
	assert_int_equal(alloc_read(&r, PMIX_ALLOC_NEW, &in, 1),
			 PMIX_ERR_BAD_PARAM);
	PMIX_INFO_DESTRUCT(&in);
	PMIX_INFO_LOAD(&in, PMIX_ALLOC_ID, "12x", PMIX_STRING);
	assert_int_equal(alloc_read(&r, PMIX_ALLOC_RELEASE, &in, 1),
			 PMIX_ERR_BAD_PARAM);
	PMIX_INFO_DESTRUCT(&in);
	PMIX_INFO_LOAD(&in, PMIX_ALLOC_NODE_LIST, "n1;rm", PMIX_STRING);
	assert_int_equal(alloc_read(&r, PMIX_ALLOC_RELEASE, &in, 1),
			 PMIX_ERR_BAD_PARAM);
	assert_non_null(strstr(r.why, PMIX_ALLOC_NODE_LIST));
	PMIX_INFO_DESTRUCT(&in);
	/* A cancel names its request. */
	assert_int_equal(alloc_read(&r, 5, NULL, 0), PMIX_ERR_BAD_PARAM);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_text),
		cmocka_unit_test(test_new),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
