/*
 * Unit tests for common/pmixev_step.c: the step identity slurmstepd puts
 * into the prefork environment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_step.h"

static void test_from_env(void **state)
{
	char *env[] = {"SLURM_JOB_ID=42",	 "SLURM_STEP_ID=3",
		       "SLURM_STEP_NUM_NODES=3", "SLURM_STEP_NUM_TASKS=6",
		       "SLURM_TOPOLOGY_ADDR=n2", NULL};
	struct pmixev_step s;
	char err[128];

	assert_int_equal(pmixev_step_from_env(&s, env, err, sizeof(err)), 0);
	assert_int_equal(s.job_id, 42);
	assert_int_equal(s.step_id, 3);
	assert_int_equal(s.nnodes, 3);
	assert_int_equal(s.ntasks, 6);
	assert_string_equal(s.node, "n2");
	assert_string_equal(s.id, "42.3");
}

static void test_topology_tree(void **state)
{
	assert_string_equal(pmixev_topology_node("s0.s1.node7"), "node7");
	assert_string_equal(pmixev_topology_node("n1"), "n1");
	assert_string_equal(pmixev_topology_node("s0."), "");
}

static void test_missing_or_bad(void **state)
{
	char *no_step[] = {"SLURM_JOB_ID=42", NULL};
	char *bad_nodes[] = {"SLURM_JOB_ID=42", "SLURM_STEP_ID=0",
			     "SLURM_STEP_NUM_NODES=three", NULL};
	char *no_topo[] = {"SLURM_JOB_ID=1", "SLURM_STEP_ID=0",
			   "SLURM_STEP_NUM_NODES=1", "SLURM_STEP_NUM_TASKS=1",
			   NULL};
	char *empty_node[] = {
		"SLURM_JOB_ID=1",	   "SLURM_STEP_ID=0",
		"SLURM_STEP_NUM_NODES=1",  "SLURM_STEP_NUM_TASKS=1",
		"SLURM_TOPOLOGY_ADDR=s0.", NULL};
	struct pmixev_step s;
	char err[128];

	assert_int_equal(pmixev_step_from_env(&s, no_step, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "SLURM_STEP_ID is not set");
	assert_int_equal(pmixev_step_from_env(&s, bad_nodes, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "SLURM_STEP_NUM_NODES is not a number");
	assert_int_equal(pmixev_step_from_env(&s, no_topo, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "SLURM_TOPOLOGY_ADDR is not set");
	assert_int_equal(pmixev_step_from_env(&s, empty_node, err, sizeof(err)),
			 -1);
	assert_string_equal(err, "SLURM_TOPOLOGY_ADDR='s0.' names no node");
}

static void test_id_format(void **state)
{
	char buf[32];

	pmixev_step_id_format(9, 0, buf, sizeof(buf));
	assert_string_equal(buf, "9.0");
	pmixev_step_id_format(9, 0xfffffffb, buf, sizeof(buf));
	assert_string_equal(buf, "9.batch");
	pmixev_step_id_format(9, 0xfffffffc, buf, sizeof(buf));
	assert_string_equal(buf, "9.extern");
	pmixev_step_id_format(9, 0xfffffffa, buf, sizeof(buf));
	assert_string_equal(buf, "9.interactive");
	/* A step's run directory, and one that does not fit. */
	assert_int_equal(
		pmixev_step_dir_name(buf, sizeof(buf), "c", 9, 0, "n1"), 0);
	assert_string_equal(buf, "c.9.0.n1");
	assert_int_equal(pmixev_step_dir_name(buf, 8, "c", 9, 0, "n1"), -1);
}

static void test_job_ref(void **state)
{
	static const char *const bad[] = {"",
					  "slurm.pmixev.",
					  "slurm.pmixev.12",
					  "slurm.pmix.12.",
					  "12.",
					  ".3",
					  "12.3.4",
					  "x12",
					  "12x",
					  "-1",
					  "4294967295",
					  "99999999999",
					  "slurm.other.12.0",
					  "12.4294967294",
					  NULL};
	uint32_t job = 0, step = 0;

	(void)state;
	assert_int_equal(pmixev_job_ref_parse("slurm.pmixev.12.3", &job, &step),
			 0);
	assert_int_equal(job, 12);
	assert_int_equal(step, 3);
	assert_int_equal(pmixev_job_ref_parse("slurm.pmix.7.0", &job, &step),
			 0);
	assert_int_equal(job, 7);
	assert_int_equal(step, 0);
	assert_int_equal(pmixev_job_ref_parse("4000000000", &job, &step), 0);
	assert_int_equal(job, 4000000000u);
	assert_int_equal(step, PMIXEV_STEP_ANY);
	assert_int_equal(pmixev_job_ref_parse("5.1", &job, &step), 0);
	assert_int_equal(step, 1);
	for (size_t i = 0; bad[i]; i++)
		assert_int_equal(pmixev_job_ref_parse(bad[i], &job, &step), -1);
	assert_int_equal(pmixev_job_ref_parse(NULL, &job, &step), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_from_env),
		cmocka_unit_test(test_topology_tree),
		cmocka_unit_test(test_missing_or_bad),
		cmocka_unit_test(test_id_format),
		cmocka_unit_test(test_job_ref),
	};

	return cmocka_run_group_tests_name("step", tests, NULL, NULL);
}
