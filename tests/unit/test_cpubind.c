/*
 * Unit tests for common/pmixev_cpubind.c: which CPUs each local task of a
 * step is bound to, from Slurm's --cpu-bind type and list.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <slurm/slurm.h>

#include "pmixev_cpubind.h"

static struct pmixev_cpus c;

static int bound(uint32_t type, const char *list, uint32_t ltask)
{
	return pmixev_cpubind_task(type, list, ltask, &c);
}

static int has(unsigned cpu)
{
	return (c.bits[cpu / 64] >> (cpu % 64)) & 1;
}

static unsigned count(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < PMIXEV_CPUBIND_MAX; i++)
		n += (unsigned)has(i);
	return n;
}

static void test_masks_from_task_affinity(void **state)
{
	/* What task/affinity makes of an automatic core binding. */
	uint32_t t = CPU_BIND_MASK | CPU_BIND_TO_CORES;

	assert_int_equal(bound(t, "0x1,0x2", 0), 1);
	assert_true(has(0) && count() == 1);
	assert_int_equal(bound(t, "0x1,0x2", 1), 1);
	assert_true(has(1) && count() == 1);
	/* More tasks than masks: cycled. */
	assert_int_equal(bound(t, "0x1,0x2", 2), 1);
	assert_true(has(0) && count() == 1);
	assert_int_equal(bound(t, "0xF0,3", 0), 1);
	assert_true(has(4) && has(7) && count() == 4);
	assert_int_equal(bound(t, "0xF0,3", 1), 1);
	assert_true(has(0) && has(1) && count() == 2);
	/* A wide mask: CPU 65 and CPU 0. */
	assert_int_equal(bound(t, "0x00000000000000020000000000000001", 0), 1);
	assert_true(has(0) && has(65) && count() == 2);
}

static void test_map_cpu(void **state)
{
	assert_int_equal(bound(CPU_BIND_MAP, "3,1", 0), 1);
	assert_true(has(3) && count() == 1);
	assert_int_equal(bound(CPU_BIND_MAP, "3,1", 3), 1);
	assert_true(has(1) && count() == 1);
	/* Repeats: tasks 0 and 1 on CPU 2, task 2 on 0x10 = 16. */
	assert_int_equal(bound(CPU_BIND_MAP, "2*2,0x10", 1), 1);
	assert_true(has(2) && count() == 1);
	assert_int_equal(bound(CPU_BIND_MAP, "2*2,0x10", 2), 1);
	assert_true(has(16) && count() == 1);
	assert_int_equal(bound(CPU_BIND_MAP, "2*2,0x10", 3), 1);
	assert_true(has(2));
}

static void test_unbound_or_unknown(void **state)
{
	assert_int_equal(bound(0, NULL, 0), 0);
	assert_int_equal(bound(CPU_BIND_NONE, "0x1", 0), 0);
	assert_int_equal(bound(CPU_BIND_TO_CORES, NULL, 0), 0);
	assert_int_equal(bound(CPU_BIND_LDMAP, "0,1", 0), 0);
	assert_int_equal(bound(CPU_BIND_LDRANK, NULL, 0), 0);
}

static void test_malformed(void **state)
{
	assert_int_equal(bound(CPU_BIND_MASK, NULL, 0), -1);
	assert_int_equal(bound(CPU_BIND_MASK, "", 0), -1);
	assert_int_equal(bound(CPU_BIND_MASK, "0x1,", 0), -1);
	assert_int_equal(bound(CPU_BIND_MASK, "0xg", 0), -1);
	assert_int_equal(bound(CPU_BIND_MASK, "0x", 0), -1);
	assert_int_equal(bound(CPU_BIND_MASK, "0x0", 0), -1);
	assert_int_equal(bound(CPU_BIND_MAP, "1,,2", 0), -1);
	assert_int_equal(bound(CPU_BIND_MAP, "1*0", 0), -1);
	assert_int_equal(bound(CPU_BIND_MAP, "-1", 0), -1);
	assert_int_equal(bound(CPU_BIND_MAP, "1024", 0), -1);
	assert_int_equal(bound(CPU_BIND_MAP, "99999999999", 0), -1);
	/* CPU 1024 is beyond what a cpu_set_t holds. */
	char wide[300];

	memset(wide, '0', sizeof(wide));
	wide[0] = '1';
	wide[257] = '\0';
	assert_int_equal(bound(CPU_BIND_MASK, wide, 0), -1);
	wide[0] = '0';
	wide[256] = '1';
	assert_int_equal(bound(CPU_BIND_MASK, wide, 0), 1);
	assert_true(has(0) && count() == 1);
}

/* A step's cores as Slurm lists them. */
static void test_ranges(void **state)
{
	(void)state;
	assert_int_equal(pmixev_cpubind_ranges("0-3,8", &c), 1);
	assert_int_equal(c.bits[0], 0x10fULL);
	assert_int_equal(pmixev_cpubind_ranges("1023", &c), 1);
	assert_int_equal(c.bits[15], 1ULL << 63);
	assert_int_equal(pmixev_cpubind_ranges("2-2", &c), 1);
	assert_int_equal(c.bits[0], 4ULL);
	assert_int_equal(pmixev_cpubind_ranges("", &c), 0);
	assert_int_equal(c.bits[0], 0);
	assert_int_equal(pmixev_cpubind_ranges("1024", &c), -1);
	assert_int_equal(pmixev_cpubind_ranges("3-1", &c), -1);
	assert_int_equal(pmixev_cpubind_ranges("1-2-3", &c), -1);
	assert_int_equal(pmixev_cpubind_ranges("0x3", &c), -1);
	assert_int_equal(pmixev_cpubind_ranges("1,,2", &c), -1);
	assert_int_equal(pmixev_cpubind_ranges("1,", &c), -1);
	assert_int_equal(pmixev_cpubind_ranges("-1", &c), -1);
	assert_int_equal(pmixev_cpubind_ranges("1-", &c), -1);
	assert_int_equal(pmixev_cpubind_ranges("999999999", &c), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_masks_from_task_affinity),
		cmocka_unit_test(test_map_cpu),
		cmocka_unit_test(test_unbound_or_unknown),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_ranges),
	};

	return cmocka_run_group_tests_name("cpubind", tests, NULL, NULL);
}
