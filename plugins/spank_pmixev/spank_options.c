/*
 * spank_options.c - user options to environment variables.
 */
#include "config.h"

#include "spank_options.h"

#include <stdio.h>
#include <stdlib.h>

#include "pmixev_conf.h"
#include "pmixev_jobwatch.h"
#include "pmixev_log.h"

static int on_option(int val, const char *optarg, int remote);

static struct spank_option options[] = {
	{"pmixev-time-warning", "SECONDS",
	 "[pmixev] PMIx event this many seconds before the job's time limit "
	 "(0: none; default: the site's PMIxevTimeWarning)",
	 1, PMIXEV_CONF_TIME_WARNING, on_option},
	{"pmixev-watch-interval", "SECONDS",
	 "[pmixev] how often the job's state is read from slurmctld (not "
	 "below the site's PMIxevWatchIntervalMin)",
	 1, PMIXEV_CONF_WATCH_INTERVAL, on_option},
	{"pmixev-sched-events", "LIST",
	 "[pmixev] scheduler events to receive as PMIx events: all, none, or "
	 "a comma list of preempt,time,suspend,requeue,cancel,end,node",
	 1, PMIXEV_CONF_SCHED_EVENTS, on_option},
	{"pmixev-monitor", "POLICY",
	 "[pmixev] what a PMIx monitor alert (missed heartbeats, a stalled "
	 "file) does besides telling every process: notify, kill (the step) "
	 "or requeue (the job), among those the site allows",
	 1, PMIXEV_CONF_MONITOR_POLICY, on_option},
	SPANK_OPTIONS_TABLE_END};

static const char *name_of(int val)
{
	for (const struct spank_option *o = options; o->name; o++)
		if (o->val == val)
			return o->name;
	return "?";
}

static int on_option(int val, const char *optarg, int remote)
{
	struct pmixev_conf conf;
	char err[200], value[16];
	unsigned mask;

	/* The stepds get the values through the job's environment. */
	if (remote)
		return ESPANK_SUCCESS;
	pmixev_conf_defaults(&conf);
	if (val == PMIXEV_CONF_SCHED_EVENTS) {
		if (pmixev_jobev_parse(optarg, &mask, err, sizeof(err)) < 0)
			goto bad;
		snprintf(value, sizeof(value), "%u", mask);
		optarg = value;
	}
	if (pmixev_conf_set(&conf, (size_t)val, optarg, err, sizeof(err)) < 0)
		goto bad;
	setenv(pmixev_conf_env((size_t)val), optarg, 1);
	return ESPANK_SUCCESS;
bad:
	fprintf(stderr, "spank/pmixev: invalid --%s=%s: %s\n", name_of(val),
		optarg ? optarg : "", err);
	return ESPANK_BAD_ARG;
}

int spank_options_register(spank_t sp)
{
	for (struct spank_option *o = options; o->name; o++) {
		spank_err_t rc = spank_option_register(sp, o);

		if (rc != ESPANK_SUCCESS) {
			PMIXEV_ERROR("cannot register --%s: %s", o->name,
				     spank_strerror(rc));
			return rc;
		}
	}
	return ESPANK_SUCCESS;
}
