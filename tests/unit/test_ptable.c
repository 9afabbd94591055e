/*
 * Unit tests for common/pmixev_ptable.c: the process-table message (round
 * trip, strict rejection of truncated, trailing or out-of-range bodies)
 * and the reading of /proc/PID/status.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_ptable.h"
#include "proto_strict.h"

static int unpack_ptable(const uint8_t *data, size_t len)
{
	struct pmixev_buf r;
	struct pmixev_ptable_msg m;
	int rc;

	pmixev_buf_reader(&r, data, len);
	rc = pmixev_ptable_unpack(&r, &m);
	if (rc == 0)
		free(m.e);
	return rc;
}

static void test_round_trip(void **state)
{
	struct pmixev_ptable_entry e[2] = {
		{.rank = 4,
		 .pid = 1234,
		 .run = PMIXEV_PROC_RUNNING,
		 .rss_kb = 5120,
		 .name = "mpi_ring"},
		{.rank = 7, .run = PMIXEV_PROC_EXITED, .status = 256},
	};
	struct pmixev_ptable_msg in = {.id = 9, .count = 2, .e = e}, out;
	struct pmixev_buf w, r;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_ptable_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_ptable_unpack(&r, &out), 0);
	assert_int_equal(out.id, 9);
	assert_int_equal(out.count, 2);
	assert_int_equal(out.e[0].pid, 1234);
	assert_int_equal(out.e[0].rss_kb, 5120);
	assert_string_equal(out.e[0].name, "mpi_ring");
	assert_int_equal(out.e[1].run, PMIXEV_PROC_EXITED);
	assert_int_equal(out.e[1].status, 256);
	free(out.e);
	assert_strict(&w, unpack_ptable);

	/* A request: no entries. */
	in.count = 0;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_ptable_pack(&w, &in), 0);
	pmixev_buf_reader(&r, w.data, w.len);
	assert_int_equal(pmixev_ptable_unpack(&r, &out), 0);
	assert_null(out.e);
	pmixev_buf_release(&w);
}

static void test_refused(void **state)
{
	struct pmixev_ptable_entry e = {.run = PMIXEV_PROC_EXITED + 1};
	struct pmixev_ptable_msg in = {.count = 1, .e = &e};
	struct pmixev_buf w;

	(void)state;
	pmixev_buf_init(&w);
	assert_int_equal(pmixev_ptable_pack(&w, &in), -1);
	pmixev_buf_release(&w);

	/* More entries announced than a node may have. */
	pmixev_buf_init(&w);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_u32(&w, PMIXEV_PTABLE_MAX + 1);
	assert_int_equal(unpack_ptable(w.data, w.len), -1);
	pmixev_buf_release(&w);

	/* A state that does not exist. */
	pmixev_buf_init(&w);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_u32(&w, 1);
	pmixev_buf_put_u32(&w, 0);
	pmixev_buf_put_u32(&w, 10);
	pmixev_buf_put_u8(&w, 7);
	pmixev_buf_put_i32(&w, 0);
	pmixev_buf_put_u64(&w, 0);
	pmixev_buf_put_str(&w, "x");
	assert_int_equal(unpack_ptable(w.data, w.len), -1);
	pmixev_buf_release(&w);
}

static void test_status(void **state)
{
	static const char running[] =
		"Name:\tmpi_ring\nUmask:\t0022\nState:\tS (sleeping)\n"
		"Uid:\t1001\t1001\t1001\t1001\nGid:\t1001\t1001\t1001\t1001\n"
		"VmPeak:\t  20000 kB\nVmRSS:\t    5120 kB\n";
	static const char zombie[] = "Name:\tsleep\nState:\tZ (zombie)\n"
				     "Uid:\t0\t0\t0\t0\n";
	static const char *const bad[] = {
		"Uid:\t1\n",
		"Name:\tx\n",
		"Name:\tx\nUid:\tabc\n",
		"Name:\t\nUid:\t1\n",
		"Name:\tthis-name-is-far-too-long\nUid:\t1\n",
		"Name:\tx\nUid:\t99999999999\n",
		NULL};
	struct pmixev_proc_status st;

	(void)state;
	assert_int_equal(
		pmixev_proc_status_parse(running, strlen(running), &st), 0);
	assert_string_equal(st.name, "mpi_ring");
	assert_int_equal(st.uid, 1001);
	assert_int_equal(st.rss_kb, 5120);
	assert_int_equal(pmixev_proc_status_parse(zombie, strlen(zombie), &st),
			 0);
	assert_int_equal(st.uid, 0);
	assert_int_equal(st.rss_kb, 0);
	for (size_t i = 0; bad[i]; i++)
		assert_int_equal(
			pmixev_proc_status_parse(bad[i], strlen(bad[i]), &st),
			-1);
	/* Only the first len bytes count. */
	assert_int_equal(pmixev_proc_status_parse(running, 14, &st), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_status),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
