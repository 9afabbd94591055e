/*
 * Unit tests for common/pmixev_jobwatch.c: which scheduler events
 * successive job states give, each once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <slurm/slurm.h>

#include "pmixev_jobwatch.h"

static struct pmixev_job_state running(int64_t now, int64_t end)
{
	return (struct pmixev_job_state){.state = JOB_RUNNING,
					 .time_limit = 10,
					 .end_time = end,
					 .now = now,
					 .preempt_mode = PREEMPT_MODE_REQUEUE};
}

static size_t look(struct pmixev_jobwatch *w, struct pmixev_job_state s,
		   struct pmixev_jobev *out)
{
	return pmixev_jobwatch_update(w, &s, out);
}

static void test_time_warning_once(void **state)
{
	struct pmixev_jobwatch w;
	struct pmixev_jobev out[PMIXEV_JOBEV_MAX];

	pmixev_jobwatch_init(&w, 60);
	assert_int_equal(look(&w, running(1000, 1600), out), 0);
	assert_int_equal(look(&w, running(1500, 1600), out), 0);
	assert_int_equal(look(&w, running(1545, 1600), out), 1);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_TIME_WARNING);
	assert_int_equal(out[0].value, 55);
	assert_int_equal(look(&w, running(1550, 1600), out), 0);
	/* Extended: a change event; near again later: a new warning. */
	assert_int_equal(look(&w, running(1555, 2200), out), 1);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_TIME_CHANGED);
	assert_int_equal(out[0].value, 645);
	assert_int_equal(look(&w, running(2150, 2200), out), 1);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_TIME_WARNING);
	/* Reduced into the lead time: the change says it, no warning. */
	assert_int_equal(look(&w, running(2160, 2180), out), 1);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_TIME_CHANGED);
	assert_int_equal(look(&w, running(2165, 2180), out), 0);
}

static void test_first_look_near_end(void **state)
{
	struct pmixev_jobwatch w;
	struct pmixev_jobev out[PMIXEV_JOBEV_MAX];

	pmixev_jobwatch_init(&w, 300);
	assert_int_equal(look(&w, running(1000, 1100), out), 1);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_TIME_WARNING);
	assert_int_equal(out[0].value, 100);
	/* No lead time: never. */
	pmixev_jobwatch_init(&w, 0);
	assert_int_equal(look(&w, running(1000, 1001), out), 0);
}

static void test_resume_and_end_move_no_limit(void **state)
{
	struct pmixev_jobwatch w;
	struct pmixev_jobev out[PMIXEV_JOBEV_MAX];
	struct pmixev_job_state s = running(1000, 2000);

	pmixev_jobwatch_init(&w, 60);
	assert_int_equal(look(&w, s, out), 0);
	s.state = JOB_SUSPENDED;
	s.now = 1010;
	assert_int_equal(look(&w, s, out), 1);
	/* Resumed 100 s later: Slurm adds the 100 s; 990 s are left, as
	 * when it was suspended. */
	s.state = JOB_RUNNING;
	s.now = 1110;
	s.end_time = 2100;
	assert_int_equal(look(&w, s, out), 1);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_RESUMED);
	/* Cancelled: the end time becomes now, which is no limit change. */
	s.state = JOB_CANCELLED | JOB_COMPLETING;
	s.now = 1120;
	s.end_time = 1120;
	assert_int_equal(look(&w, s, out), 1);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_CANCELLED);
}

static void test_suspend_between_looks(void **state)
{
	struct pmixev_jobwatch w;
	struct pmixev_jobev out[PMIXEV_JOBEV_MAX];
	struct pmixev_job_state s = running(1000, 2000);

	pmixev_jobwatch_init(&w, 60);
	assert_int_equal(look(&w, s, out), 0);
	/* Suspended at 1001 for 3 s, resumed at 1004: the end moved by 3 s. */
	s.now = 1005;
	s.suspend_time = 1004;
	s.end_time = 2003;
	assert_int_equal(look(&w, s, out), 2);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_SUSPENDED);
	assert_int_equal(out[1].kind, PMIXEV_JOBEV_RESUMED);
	/* But a real extension in the same window still shows. */
	s.now = 1010;
	s.suspend_time = 1008;
	s.end_time = 2600;
	assert_int_equal(look(&w, s, out), 3);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_TIME_CHANGED);
}

static void test_preemption(void **state)
{
	struct pmixev_jobwatch w;
	struct pmixev_jobev out[PMIXEV_JOBEV_MAX];
	struct pmixev_job_state s = running(1000, 5000);

	pmixev_jobwatch_init(&w, 60);
	assert_int_equal(look(&w, s, out), 0);
	/* Slurm sets preempt_time and pulls the end time in. */
	s.now = 1010;
	s.preempt_time = 1008;
	s.end_time = 1068;
	assert_int_equal(look(&w, s, out), 1);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_PREEMPT);
	assert_int_equal(out[0].value, 58);
	assert_int_equal(out[0].detail, PMIXEV_PREEMPT_REQUEUE);
	assert_string_equal(pmixev_preempt_after_name(out[0].detail),
			    "requeue");
	/* Told once; the moved end time is not a time-limit change. */
	s.now = 1020;
	assert_int_equal(look(&w, s, out), 0);
	s.preempt_mode = PREEMPT_MODE_CANCEL | PREEMPT_MODE_GANG;
	pmixev_jobwatch_init(&w, 60);
	assert_int_equal(look(&w, s, out), 1);
	assert_int_equal(out[0].detail, PMIXEV_PREEMPT_CANCEL);
}

static void test_suspend_resume_requeue_cancel(void **state)
{
	struct pmixev_jobwatch w;
	struct pmixev_jobev out[PMIXEV_JOBEV_MAX];
	struct pmixev_job_state s = running(1000, 9000);

	pmixev_jobwatch_init(&w, 60);
	assert_int_equal(look(&w, s, out), 0);
	s.state = JOB_SUSPENDED;
	assert_int_equal(look(&w, s, out), 1);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_SUSPENDED);
	assert_int_equal(look(&w, s, out), 0);
	s.state = JOB_RUNNING;
	assert_int_equal(look(&w, s, out), 1);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_RESUMED);
	/* Requeue: flagged while completing, then pending: once. */
	s.state = JOB_COMPLETING | JOB_REQUEUE | JOB_RUNNING;
	assert_int_equal(look(&w, s, out), 1);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_REQUEUED);
	s.state = JOB_PENDING;
	s.restarts = 1;
	assert_int_equal(look(&w, s, out), 0);
	/* Running again, then cancelled with a reason. */
	s.state = JOB_RUNNING;
	assert_int_equal(look(&w, s, out), 0);
	s.state = JOB_CANCELLED | JOB_COMPLETING;
	snprintf(s.reason, sizeof(s.reason), "by the user");
	assert_int_equal(look(&w, s, out), 1);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_CANCELLED);
	assert_string_equal(out[0].text, "the job was cancelled: by the user");
	s.state = JOB_CANCELLED;
	assert_int_equal(look(&w, s, out), 0);
}

static void test_errors_change_nothing(void **state)
{
	struct pmixev_jobwatch w;
	struct pmixev_jobev out[PMIXEV_JOBEV_MAX];
	struct pmixev_job_state s = running(1000, 9000), bad = {.rc = 1};

	pmixev_jobwatch_init(&w, 60);
	assert_int_equal(look(&w, s, out), 0);
	/* slurmctld away: nothing; back, with the job suspended and its
	 * limit moved meanwhile: both are reported. */
	assert_int_equal(look(&w, bad, out), 0);
	s.state = JOB_SUSPENDED;
	s.end_time = 9500;
	assert_int_equal(look(&w, s, out), 2);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_TIME_CHANGED);
	assert_int_equal(out[1].kind, PMIXEV_JOBEV_SUSPENDED);
	s.state = JOB_TIMEOUT;
	assert_int_equal(look(&w, s, out), 1);
	assert_int_equal(out[0].kind, PMIXEV_JOBEV_ENDED);
}

static void test_parse_lists(void **state)
{
	unsigned m = 7;
	char err[160];

	assert_int_equal(pmixev_jobev_parse("all", &m, err, sizeof(err)), 0);
	assert_int_equal(m, PMIXEV_JOBEV_ALL);
	assert_int_equal(pmixev_jobev_parse("none", &m, err, sizeof(err)), 0);
	assert_int_equal(m, 0);
	assert_int_equal(
		pmixev_jobev_parse("preempt,time", &m, err, sizeof(err)), 0);
	assert_int_equal(m,
			 PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_PREEMPT) |
				 PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_TIME_WARNING) |
				 PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_TIME_CHANGED));
	assert_int_equal(pmixev_jobev_parse("suspend", &m, err, sizeof(err)),
			 0);
	assert_int_equal(m, PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_SUSPENDED) |
				    PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_RESUMED));
	assert_int_equal(pmixev_jobev_parse("end,node", &m, err, sizeof(err)),
			 0);
	assert_int_equal(m,
			 PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_ENDED) |
				 PMIXEV_JOBEV_BIT(PMIXEV_JOBEV_NODE_OFFLINE));
	/* Refused, the mask untouched. */
	m = 7;
	assert_int_equal(pmixev_jobev_parse("", &m, err, sizeof(err)), -1);
	assert_int_equal(pmixev_jobev_parse("preempt,", &m, err, sizeof(err)),
			 -1);
	assert_int_equal(
		pmixev_jobev_parse("preempt,,time", &m, err, sizeof(err)), -1);
	assert_int_equal(pmixev_jobev_parse("PREEMPT", &m, err, sizeof(err)),
			 -1);
	assert_int_equal(pmixev_jobev_parse("all,time", &m, err, sizeof(err)),
			 -1);
	assert_int_equal(pmixev_jobev_parse(NULL, &m, err, sizeof(err)), -1);
	assert_int_equal(m, 7);
	assert_non_null(strstr(err, "comma list"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_warning_once),
		cmocka_unit_test(test_first_look_near_end),
		cmocka_unit_test(test_resume_and_end_move_no_limit),
		cmocka_unit_test(test_suspend_between_looks),
		cmocka_unit_test(test_preemption),
		cmocka_unit_test(test_suspend_resume_requeue_cancel),
		cmocka_unit_test(test_errors_change_nothing),
		cmocka_unit_test(test_parse_lists),
	};

	return cmocka_run_group_tests_name("jobwatch", tests, NULL, NULL);
}
