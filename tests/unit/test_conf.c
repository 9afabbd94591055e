/*
 * Unit tests for common/pmixev_conf.c: defaults, validation of mpi.conf
 * values and SLURM_PMIXEV_* overrides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pmixev_conf.h"

static void test_defaults(void **state)
{
	struct pmixev_conf c;

	pmixev_conf_defaults(&c);
	assert_int_equal(c.debug, 0);
	assert_int_equal(c.timeout_sec, 300);
	assert_int_equal(c.tree_width, 0);
	assert_int_equal(c.heartbeat_ms, 200);
	assert_int_equal(c.event_cache, 512);
	assert_int_equal(c.watch_sec, 5);
	assert_int_equal(c.warn_sec, 300);
	assert_string_equal(pmixev_conf_env(PMIXEV_CONF_EVENT_CACHE),
			    "SLURM_PMIXEV_EVENT_CACHE");
	assert_string_equal(pmixev_conf_key(PMIXEV_CONF_DEBUG), "PMIxevDebug");
	assert_string_equal(pmixev_conf_key(PMIXEV_CONF_HEARTBEAT),
			    "PMIxevHeartbeat");
	assert_string_equal(pmixev_conf_env(PMIXEV_CONF_TIMEOUT),
			    "SLURM_PMIXEV_TIMEOUT");
	assert_null(pmixev_conf_key(PMIXEV_CONF_NKEYS));
}

static void test_set_valid(void **state)
{
	struct pmixev_conf c;
	char err[128];

	pmixev_conf_defaults(&c);
	assert_int_equal(pmixev_conf_set(&c, PMIXEV_CONF_TIMEOUT, "45", err,
					 sizeof(err)),
			 0);
	assert_int_equal(c.timeout_sec, 45);
	assert_int_equal(
		pmixev_conf_set(&c, PMIXEV_CONF_DEBUG, "3", err, sizeof(err)),
		0);
	assert_int_equal(c.debug, 3);
	assert_int_equal(pmixev_conf_set(&c, PMIXEV_CONF_TIMEOUT, "86400", err,
					 sizeof(err)),
			 0);
	assert_int_equal(c.timeout_sec, 86400);
}

static void test_set_invalid_keeps_value(void **state)
{
	static const char *bad[] = {"",
				    "banana",
				    "-1",
				    "+5",
				    " 5",
				    "5 ",
				    "5s",
				    "0",
				    "86401",
				    "0x10",
				    "99999999999999999999999"};
	struct pmixev_conf c;
	char err[128];

	pmixev_conf_defaults(&c);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(pmixev_conf_set(&c, PMIXEV_CONF_TIMEOUT,
						 bad[i], err, sizeof(err)),
				 -1);
		assert_string_equal(err,
				    "expected an integer in 1..86400 seconds");
		assert_int_equal(c.timeout_sec, 300);
	}
	assert_int_equal(
		pmixev_conf_set(&c, PMIXEV_CONF_DEBUG, "4", err, sizeof(err)),
		-1);
	assert_string_equal(err, "expected an integer in 0..3");
	assert_int_equal(
		pmixev_conf_set(&c, PMIXEV_CONF_DEBUG, NULL, err, sizeof(err)),
		-1);
	assert_int_equal(
		pmixev_conf_set(&c, PMIXEV_CONF_NKEYS, "1", err, sizeof(err)),
		-1);
	assert_string_equal(err, "unknown option");
}

static void test_env_overrides(void **state)
{
	char *env[] = {"PATH=/bin", "SLURM_PMIXEV_TIMEOUT=12",
		       "SLURM_PMIXEV_DEBUGX=9", NULL};
	struct pmixev_conf c;
	char err[128] = "";

	pmixev_conf_defaults(&c);
	assert_int_equal(pmixev_conf_apply_env(&c, env, err, sizeof(err)), 0);
	assert_int_equal(c.timeout_sec, 12);
	assert_int_equal(c.debug, 0);
	assert_int_equal(pmixev_conf_apply_env(&c, NULL, err, sizeof(err)), 0);
}

static void test_env_invalid(void **state)
{
	char *env[] = {"SLURM_PMIXEV_DEBUG=loud", NULL};
	struct pmixev_conf c;
	char err[128] = "";

	pmixev_conf_defaults(&c);
	assert_int_equal(pmixev_conf_apply_env(&c, env, err, sizeof(err)), -1);
	assert_string_equal(err, "SLURM_PMIXEV_DEBUG='loud': expected an "
				 "integer in 0..3");
}

/* PMIxevLogSyslog: an absolute path or none; the site's alone. */
static void test_path_option(void **state)
{
	static const char *bad[] = {"",	     "dev/log",	   "/dev/ log",
				    "/a\tb", "/dev/log\n", NULL};
	char *env[] = {"SLURM_PMIXEV_LOG_SYSLOG=/tmp/x", NULL};
	struct pmixev_conf c;
	char err[128], buf[128], long_path[200];

	pmixev_conf_defaults(&c);
	assert_string_equal(c.log_syslog, "/dev/log");
	assert_int_equal(c.log_rate, 100);
	assert_null(pmixev_conf_env(PMIXEV_CONF_LOG_SYSLOG));
	assert_null(pmixev_conf_env(PMIXEV_CONF_LOG_MAIL));
	pmixev_conf_format(&c, PMIXEV_CONF_LOG_MAIL, buf, sizeof(buf));
	assert_string_equal(buf, "none"); /* no mail unless the site says */
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(pmixev_conf_set(&c, PMIXEV_CONF_LOG_SYSLOG,
						 bad[i], err, sizeof(err)),
				 -1);
		assert_string_equal(c.log_syslog, "/dev/log");
	}
	assert_string_equal(err, "expected an absolute path of at most 107 "
				 "printable characters, or none");
	memset(long_path, 'a', sizeof(long_path));
	long_path[0] = '/';
	long_path[108] = '\0';
	assert_int_equal(pmixev_conf_set(&c, PMIXEV_CONF_LOG_SYSLOG, long_path,
					 err, sizeof(err)),
			 -1);
	long_path[107] = '\0';
	assert_int_equal(pmixev_conf_set(&c, PMIXEV_CONF_LOG_SYSLOG, long_path,
					 err, sizeof(err)),
			 0);
	assert_string_equal(c.log_syslog, long_path);
	assert_int_equal(pmixev_conf_set(&c, PMIXEV_CONF_LOG_SYSLOG, "none",
					 err, sizeof(err)),
			 0);
	pmixev_conf_format(&c, PMIXEV_CONF_LOG_SYSLOG, buf, sizeof(buf));
	assert_string_equal(buf, "none");
	assert_int_equal(pmixev_conf_apply_env(&c, env, err, sizeof(err)), 0);
	assert_string_equal(c.log_syslog, "");
}

/* PMIxevMonitorPolicy: one word, the job's to choose among the site's
 * PMIxevMonitorAllowed (a comma list, the site's alone). */
static void test_monitor_policy(void **state)
{
	static const char *bad[] = {"",	     "Kill", "kill,notify",
				    "kill ", "stop", NULL};
	char *env[] = {"SLURM_PMIXEV_MONITOR_POLICY=requeue",
		       "SLURM_PMIXEV_MONITOR_ALLOWED=notify", NULL};
	struct pmixev_conf c;
	char err[128] = "", buf[64];

	pmixev_conf_defaults(&c);
	assert_int_equal(c.monitor_policy, PMIXEV_MONITOR_NOTIFY);
	assert_int_equal(pmixev_conf_monitor_check(&c, err, sizeof(err)), 0);
	pmixev_conf_format(&c, PMIXEV_CONF_MONITOR_ALLOWED, buf, sizeof(buf));
	assert_string_equal(buf, "notify,kill,requeue");
	for (size_t i = 0; bad[i]; i++) {
		assert_int_equal(pmixev_conf_set(&c, PMIXEV_CONF_MONITOR_POLICY,
						 bad[i], err, sizeof(err)),
				 -1);
		assert_string_equal(err, "expected one of notify kill requeue");
	}
	assert_int_equal(c.monitor_policy, PMIXEV_MONITOR_NOTIFY);
	assert_int_equal(pmixev_conf_set(&c, PMIXEV_CONF_MONITOR_ALLOWED,
					 "notify,,kill", err, sizeof(err)),
			 -1);
	assert_int_equal(pmixev_conf_set(&c, PMIXEV_CONF_MONITOR_ALLOWED,
					 "kill,notify", err, sizeof(err)),
			 0);
	assert_int_equal(pmixev_conf_apply_env(&c, env, err, sizeof(err)), 0);
	assert_int_equal(c.monitor_policy, PMIXEV_MONITOR_REQUEUE);
	pmixev_conf_format(&c, PMIXEV_CONF_MONITOR_POLICY, buf, sizeof(buf));
	assert_string_equal(buf, "requeue");
	pmixev_conf_format(&c, PMIXEV_CONF_MONITOR_ALLOWED, buf, sizeof(buf));
	assert_string_equal(buf, "notify,kill");
	assert_int_equal(pmixev_conf_monitor_check(&c, err, sizeof(err)), -1);
	assert_string_equal(err, "PMIxevMonitorPolicy=requeue is not among the "
				 "site's PMIxevMonitorAllowed=notify,kill");
	c.monitor_policy = PMIXEV_MONITOR_KILL;
	assert_int_equal(pmixev_conf_monitor_check(&c, err, sizeof(err)), 0);
}

/* PMIxevGds: one word, the job's to choose (its own processes' store). */
static void test_gds(void **state)
{
	static const char *bad[] = {"",	      "Hash",	    "shm",   "ds21",
				    "shmem2", "hash,shmem", "hash ", NULL};
	char *env[] = {"SLURM_PMIXEV_GDS=hash", NULL};
	char *env_bad[] = {"SLURM_PMIXEV_GDS=ds12", NULL};
	struct pmixev_conf c, site;
	char err[128] = "", buf[16];

	pmixev_conf_defaults(&c);
	assert_int_equal(c.gds, PMIXEV_GDS_AUTO);
	assert_string_equal(pmixev_conf_key(PMIXEV_CONF_GDS), "PMIxevGds");
	pmixev_conf_format(&c, PMIXEV_CONF_GDS, buf, sizeof(buf));
	assert_string_equal(buf, "auto");
	for (size_t i = 0; bad[i]; i++) {
		assert_int_equal(pmixev_conf_set(&c, PMIXEV_CONF_GDS, bad[i],
						 err, sizeof(err)),
				 -1);
		assert_string_equal(err, "expected one of auto hash shmem");
	}
	assert_int_equal(c.gds, PMIXEV_GDS_AUTO);
	assert_int_equal(
		pmixev_conf_set(&c, PMIXEV_CONF_GDS, "hash", err, sizeof(err)),
		0);
	assert_int_equal(c.gds, PMIXEV_GDS_HASH);
	assert_int_equal(
		pmixev_conf_set(&c, PMIXEV_CONF_GDS, "shmem", err, sizeof(err)),
		0);
	assert_int_equal(c.gds, PMIXEV_GDS_SHMEM);
	assert_string_equal(pmixev_gds_name(PMIXEV_GDS_HASH), "hash");
	assert_string_equal(pmixev_gds_name(PMIXEV_GDS_SHMEM), "shmem");
	assert_string_equal(pmixev_gds_name(PMIXEV_GDS_AUTO), "auto");
	assert_string_equal(pmixev_gds_name(PMIXEV_GDS_NSTORES), "?");
	/* A job may choose any against the site's. */
	pmixev_conf_defaults(&site);
	pmixev_conf_defaults(&c);
	assert_int_equal(pmixev_conf_apply_env(&c, env, err, sizeof(err)), 0);
	assert_int_equal(pmixev_conf_bound(&c, &site, NULL, NULL), 0);
	assert_int_equal(c.gds, PMIXEV_GDS_HASH);
	assert_int_equal(pmixev_conf_apply_env(&c, env_bad, err, sizeof(err)),
			 -1);
	assert_string_equal(
		err,
		"SLURM_PMIXEV_GDS='ds12': expected one of auto hash shmem");
}

/* PMIxevSpawn and PMIxevAlloc: yes or no; a job may turn them off only. */
static void test_switches(void **state)
{
	char *off[] = {"SLURM_PMIXEV_SPAWN=no", "SLURM_PMIXEV_ALLOC=no", NULL};
	char *on[] = {"SLURM_PMIXEV_SPAWN=yes", "SLURM_PMIXEV_ALLOC=yes", NULL};
	char *bad[] = {"SLURM_PMIXEV_SPAWN=off", NULL};
	struct pmixev_conf c, site;
	char err[128] = "", buf[8];

	pmixev_conf_defaults(&c);
	assert_int_equal(c.spawn, 1);
	assert_int_equal(c.alloc, 1);
	assert_string_equal(pmixev_conf_key(PMIXEV_CONF_SPAWN), "PMIxevSpawn");
	assert_string_equal(pmixev_conf_key(PMIXEV_CONF_ALLOC), "PMIxevAlloc");
	pmixev_conf_format(&c, PMIXEV_CONF_ALLOC, buf, sizeof(buf));
	assert_string_equal(buf, "yes");
	assert_int_equal(pmixev_conf_apply_env(&c, bad, err, sizeof(err)), -1);
	assert_string_equal(err,
			    "SLURM_PMIXEV_SPAWN='off': expected one of no yes");
	/* The job turns both off under a site that serves them. */
	pmixev_conf_defaults(&site);
	assert_int_equal(pmixev_conf_apply_env(&c, off, err, sizeof(err)), 0);
	assert_int_equal(pmixev_conf_bound(&c, &site, NULL, NULL), 0);
	assert_int_equal(c.spawn, 0);
	assert_int_equal(c.alloc, 0);
	/* A site that turned them off keeps them off. */
	assert_int_equal(pmixev_conf_set(&site, PMIXEV_CONF_SPAWN, "no", err,
					 sizeof(err)),
			 0);
	assert_int_equal(pmixev_conf_set(&site, PMIXEV_CONF_ALLOC, "no", err,
					 sizeof(err)),
			 0);
	pmixev_conf_defaults(&c);
	assert_int_equal(pmixev_conf_apply_env(&c, on, err, sizeof(err)), 0);
	assert_int_equal(pmixev_conf_bound(&c, &site, NULL, NULL), 2);
	assert_int_equal(c.spawn, 0);
	assert_int_equal(c.alloc, 0);
}

static void test_format(void **state)
{
	struct pmixev_conf c;
	char buf[32];

	pmixev_conf_defaults(&c);
	c.timeout_sec = 77;
	pmixev_conf_format(&c, PMIXEV_CONF_TIMEOUT, buf, sizeof(buf));
	assert_string_equal(buf, "77");
	pmixev_conf_format(&c, PMIXEV_CONF_NKEYS, buf, sizeof(buf));
	assert_string_equal(buf, "?");
}

/* Every option has a rule; budgets and caches are site maximums,
 * intervals that bound CPU site minimums, the site's own options its
 * alone. */
static void test_rules(void **state)
{
	static const size_t lower[] = {
		PMIXEV_CONF_EVENT_CACHE, PMIXEV_CONF_EVENT_CACHE_MAX,
		PMIXEV_CONF_EVENT_MAX,	 PMIXEV_CONF_PUBLISH_MAX,
		PMIXEV_CONF_OVERLAY_MAX, PMIXEV_CONF_FENCE_MAX};
	static const size_t raise[] = {PMIXEV_CONF_HEARTBEAT};

	for (size_t i = 0; i < sizeof(lower) / sizeof(lower[0]); i++)
		assert_int_equal(pmixev_conf_rule(lower[i]), PMIXEV_RULE_LOWER);
	for (size_t i = 0; i < sizeof(raise) / sizeof(raise[0]); i++)
		assert_int_equal(pmixev_conf_rule(raise[i]), PMIXEV_RULE_RAISE);
	for (size_t i = 0; i < PMIXEV_CONF_NKEYS; i++)
		if (!pmixev_conf_env(i))
			assert_int_equal(pmixev_conf_rule(i), PMIXEV_RULE_SITE);
	assert_int_equal(pmixev_conf_rule(PMIXEV_CONF_WATCH_MIN),
			 PMIXEV_RULE_SITE);
	assert_int_equal(pmixev_conf_rule(PMIXEV_CONF_DEBUG), PMIXEV_RULE_FREE);
	/* A node look takes the place of a job look: no request added. */
	assert_int_equal(pmixev_conf_rule(PMIXEV_CONF_NODE_INTERVAL),
			 PMIXEV_RULE_FREE);
	assert_int_equal(pmixev_conf_rule(PMIXEV_CONF_NKEYS), PMIXEV_RULE_SITE);
}

struct seen {
	unsigned n;
	size_t idx[8];
	char asked[8][32], site[8][32];
};

static void note(size_t idx, const char *asked, const char *site, void *arg)
{
	struct seen *s = arg;

	assert_true(s->n < 8);
	s->idx[s->n] = idx;
	strcpy(s->asked[s->n], asked);
	strcpy(s->site[s->n], site);
	s->n++;
}

static void test_bound(void **state)
{
	char *env[] = {"SLURM_PMIXEV_EVENT_CACHE=65536",
		       "SLURM_PMIXEV_PUBLISH_MAX=8",
		       "SLURM_PMIXEV_HEARTBEAT=1",
		       "SLURM_PMIXEV_NODE_INTERVAL=0",
		       "SLURM_PMIXEV_WATCH_INTERVAL_MIN=1",
		       "SLURM_PMIXEV_DEBUG=3",
		       "SLURM_PMIXEV_TIMEOUT=9000",
		       NULL};
	struct pmixev_conf site, job;
	struct seen seen = {0};
	char err[128];

	pmixev_conf_defaults(&site);
	site.watch_min = 5;
	job = site;
	assert_int_equal(pmixev_conf_apply_env(&job, env, err, sizeof(err)), 0);
	assert_int_equal(pmixev_conf_bound(&job, &site, note, &seen), 3);
	/* Raised past a maximum, shortened below a minimum, the site's own:
	 * refused, the site's value kept, in table order. */
	assert_int_equal(seen.idx[0], PMIXEV_CONF_HEARTBEAT);
	assert_string_equal(seen.asked[0], "1");
	assert_string_equal(seen.site[0], "200");
	assert_int_equal(seen.idx[1], PMIXEV_CONF_EVENT_CACHE);
	assert_string_equal(seen.asked[1], "65536");
	assert_string_equal(seen.site[1], "512");
	assert_int_equal(seen.idx[2], PMIXEV_CONF_WATCH_MIN);
	assert_int_equal(job.heartbeat_ms, 200);
	assert_int_equal(job.event_cache, 512);
	assert_int_equal(job.watch_min, 5);
	/* Lowered, off (the longest interval), free: kept. */
	assert_int_equal(job.publish_mib, 8);
	assert_int_equal(job.node_sec, 0);
	assert_int_equal(job.debug, 3);
	assert_int_equal(job.timeout_sec, 9000);
	/* Nothing to refuse, no callback needed. */
	assert_int_equal(pmixev_conf_bound(&job, &site, NULL, NULL), 0);
	/* A site that turned an interval off keeps it off. */
	site.heartbeat_ms = 0;
	job.heartbeat_ms = 100;
	assert_int_equal(pmixev_conf_bound(&job, &site, NULL, NULL), 1);
	assert_int_equal(job.heartbeat_ms, 0);
}

static void test_event_slots(void **state)
{
	struct pmixev_conf c;

	pmixev_conf_defaults(&c);
	assert_int_equal(c.event_cache_mib, 64);
	/* 64 MiB of events of at most 1024 KiB: 64 of the 512. */
	assert_int_equal(pmixev_conf_event_slots(&c), 64);
	c.event_kib = 16;
	assert_int_equal(pmixev_conf_event_slots(&c), 512);
	c.event_kib = 65536;
	c.event_cache_mib = 1;
	assert_int_equal(pmixev_conf_event_slots(&c), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_set_valid),
		cmocka_unit_test(test_set_invalid_keeps_value),
		cmocka_unit_test(test_env_overrides),
		cmocka_unit_test(test_env_invalid),
		cmocka_unit_test(test_path_option),
		cmocka_unit_test(test_monitor_policy),
		cmocka_unit_test(test_gds),
		cmocka_unit_test(test_switches),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_rules),
		cmocka_unit_test(test_bound),
		cmocka_unit_test(test_event_slots),
	};

	return cmocka_run_group_tests_name("conf", tests, NULL, NULL);
}
