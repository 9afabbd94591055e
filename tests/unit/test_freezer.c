/*
 * Unit tests for plugins/mpi_pmixev/ownerhelper/freezer.c: the freezer
 * directory of a process from /proc/self/cgroup and /proc/self/mountinfo
 * texts: a v1 host with the freezer alone or beside other controllers, a
 * mount of a part of the hierarchy, and the cases without one (cgroup v2
 * only, no freezer line, a mount point with an escape, a path too long).
 */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "ownerhelper/freezer.h"

static const char v1_mounts[] =
	"25 1 0:22 / /sys rw - sysfs sysfs rw\n"
	"30 25 0:26 / /sys/fs/cgroup rw - tmpfs tmpfs rw,mode=755\n"
	"31 30 0:27 / /sys/fs/cgroup/cpu rw,relatime shared:9 - cgroup cgroup "
	"rw,cpu\n"
	"36 30 0:32 / /sys/fs/cgroup/freezer rw,relatime shared:14 - cgroup "
	"cgroup rw,freezer\n"
	"40 30 0:36 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n";

static void test_v1(void **state)
{
	const char cgroup[] = "7:cpuset:/\n"
			      "6:freezer:/slurm_n1/uid_999/job_2\n"
			      "0::/\n";
	char dir[256];

	(void)state;
	assert_int_equal(freezer_own_dir(cgroup, v1_mounts, dir, sizeof(dir)),
			 0);
	assert_string_equal(dir,
			    "/sys/fs/cgroup/freezer/slurm_n1/uid_999/job_2");
	/* The root cgroup (proctrack/linuxproc): the mount point itself. */
	assert_int_equal(
		freezer_own_dir("6:freezer:/\n", v1_mounts, dir, sizeof(dir)),
		0);
	assert_string_equal(dir, "/sys/fs/cgroup/freezer");
	/* Too long for `dir`. */
	assert_int_equal(freezer_own_dir(cgroup, v1_mounts, dir, 20), -1);
}

static void test_comounted(void **state)
{
	const char mounts[] =
		"36 30 0:32 / /cg/fz rw - cgroup cgroup rw,cpuacct,freezer\n";
	const char cgroup[] = "3:cpuacct,freezer:/a/job_7\n";
	char dir[256];

	(void)state;
	assert_int_equal(freezer_own_dir(cgroup, mounts, dir, sizeof(dir)), 0);
	assert_string_equal(dir, "/cg/fz/a/job_7");
}

static void test_part_mounted(void **state)
{
	const char mounts[] =
		"36 30 0:32 /slurm /fz rw - cgroup cgroup rw,freezer\n";
	char dir[256];

	(void)state;
	assert_int_equal(freezer_own_dir("6:freezer:/slurm/uid_1/job_7\n",
					 mounts, dir, sizeof(dir)),
			 0);
	assert_string_equal(dir, "/fz/uid_1/job_7");
	/* Outside the mounted part: not reachable. */
	assert_int_equal(freezer_own_dir("6:freezer:/other/job_7\n", mounts,
					 dir, sizeof(dir)),
			 -1);
	assert_int_equal(freezer_own_dir("6:freezer:/slurmx/job_7\n", mounts,
					 dir, sizeof(dir)),
			 -1);
}

static void test_none(void **state)
{
	const char v2_mounts[] =
		"30 25 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
	const char escaped[] =
		"36 30 0:32 / /sys/fs/cg\\040x rw - cgroup cgroup rw,freezer\n";
	char dir[256];

	(void)state;
	assert_int_equal(freezer_own_dir("0::/system.slice/x.scope\n",
					 v2_mounts, dir, sizeof(dir)),
			 -1);
	assert_int_equal(freezer_own_dir("7:cpuset:/\n0::/\n", v1_mounts, dir,
					 sizeof(dir)),
			 -1);
	assert_int_equal(freezer_own_dir("6:freezer:/job_1\n", escaped, dir,
					 sizeof(dir)),
			 -1);
	assert_int_equal(
		freezer_own_dir("6:freezer:\n", v1_mounts, dir, sizeof(dir)),
		-1);
	assert_int_equal(freezer_own_dir("", "", dir, sizeof(dir)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v1),
		cmocka_unit_test(test_comounted),
		cmocka_unit_test(test_part_mounted),
		cmocka_unit_test(test_none),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
