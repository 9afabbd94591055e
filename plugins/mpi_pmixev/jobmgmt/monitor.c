/*
 * jobmgmt/monitor.c - monitor alerts of this node, and the step's policy
 * (see monitor.h).
 */
#include "config.h"

#include "jobmgmt/monitor.h"

#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include <pmix_common.h>

#include "base/step.h"
#include "pmixd/chan.h"
#include "pmixev_helper_msg.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_msg.h"
#include "ownerhelper/helper.h"

struct monitor {
	struct step *s;
	unsigned alerts[2]; /* heartbeat, file */
	bool acted;	    /* the policy was applied on this node */
	unsigned refused;   /* monitor types Slurm does not offer */
};

/* --- the policy ---------------------------------------------------------- */

static void on_policy_answer(void *arg, const struct pmixev_owner_resp *r)
{
	struct monitor *m = arg;
	const char *policy =
		pmixev_monitor_policy_name(m->s->conf.monitor_policy);

	if (r && r->ctl.rc == 0)
		PMIXEV_INFO("monitor: policy %s carried out by slurmctld",
			    policy);
	else
		PMIXEV_ERROR("monitor: policy %s refused: %s", policy,
			     r ? r->ctl.reason : "no answer from slurmctld");
}

/* Ask slurmctld, as the owner, to end the step or requeue the job. */
static void apply_policy(struct monitor *m)
{
	const struct pmixev_step *st = &m->s->lay.step;
	unsigned policy = m->s->conf.monitor_policy;
	int rc;

	if (policy == PMIXEV_MONITOR_NOTIFY || m->acted)
		return;
	m->acted = true;
	PMIXEV_INFO("monitor: applying policy %s (PMIxevMonitorPolicy)",
		    pmixev_monitor_policy_name(policy));
	if (policy == PMIXEV_MONITOR_KILL)
		rc = helper_control(m->s->helper, PMIXEV_CTL_KILL_STEP,
				    st->job_id, st->step_id, SIGKILL, 0,
				    on_policy_answer, m);
	else
		rc = helper_control(m->s->helper, PMIXEV_CTL_REQUEUE_JOB,
				    st->job_id, 0, 0, 0, on_policy_answer, m);
	if (rc < 0)
		on_policy_answer(m, NULL);
}

/* --- the pmix side's frames ---------------------------------------------- */

/* A request for a monitor Slurm does not offer, which the pmix side
 * refused. */
static void refused(struct monitor *m, const struct pmixev_pmixd_alert_msg *a)
{
	if (m->refused++ == 0)
		PMIXEV_INFO("monitor: rank %u asked for %s: refused, Slurm "
			    "offers no such monitor (pmixev serves %s and %s "
			    "through the PMIx library); further refusals "
			    "are counted",
			    a->rank, a->key, PMIX_MONITOR_HEARTBEAT,
			    PMIX_MONITOR_FILE);
}

static int on_frame(void *ctx, struct pmixev_buf *body)
{
	struct monitor *m = ctx;
	struct pmixev_pmixd_alert_msg a;

	if (pmixev_pmixd_alert_unpack(body, &m->s->pmixd_lim, &a) < 0)
		return -1;
	if (a.code == PMIXEV_PMIXD_MONITOR_OTHER) {
		refused(m, &a);
		return 0;
	}
	m->alerts[a.code == PMIXEV_PMIXD_FILE]++;
	PMIXEV_INFO("monitor: rank %u: %s alert, told to every process of "
		    "the step",
		    a.rank, a.code == PMIXEV_PMIXD_FILE ? "file" : "heartbeat");
	apply_policy(m);
	return 0;
}

/* --- create, destroy (slurmstepd's thread) ------------------------------ */

struct monitor *monitor_create(struct step *s)
{
	struct monitor *m = calloc(1, sizeof(*m));

	if (!m)
		return NULL;
	m->s = s;
	chan_on(s->chan, PMIXEV_PMIXD_MONITOR_ALERT, on_frame, m);
	return m;
}

void monitor_destroy(struct monitor *m)
{
	if (!m)
		return;
	if (m->alerts[0] || m->alerts[1] || m->refused)
		PMIXEV_INFO(
			"monitor: %u heartbeat and %u file alert(s) on this "
			"node (policy %s%s); %u request(s) for other "
			"monitors refused",
			m->alerts[0], m->alerts[1],
			pmixev_monitor_policy_name(m->s->conf.monitor_policy),
			m->acted ? ", applied" : "", m->refused);
	free(m);
}
