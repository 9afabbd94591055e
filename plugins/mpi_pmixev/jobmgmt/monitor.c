/*
 * jobmgmt/monitor.c - monitor alerts to the whole step, and the step's policy.
 */
#include "config.h"

#include "jobmgmt/monitor.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>

#include <pmix.h>

#include "base/agent.h"
#include "base/step.h"
#include "pmixside/notify_pmix.h"
#include "pmixev_helper_msg.h"
#include "pmixev_log.h"
#include "ownerhelper/helper.h"
#include "ownerhelper/jobinfo.h"

struct monitor {
	struct step *s;
	/* Agent thread only: */
	unsigned alerts[2]; /* heartbeat, file */
	bool acted;	    /* the policy was applied on this node */
	/* PMIx thread, read at the end: */
	atomic_uint refused; /* monitor types Slurm does not offer */
};

/* An alert on its way to the agent thread. */
struct alert {
	struct monitor *m;
	pmix_status_t code;
	pmix_rank_t rank;
};

static const char *alert_name(pmix_status_t code)
{
	return code == PMIX_MONITOR_FILE_ALERT ? "file" : "heartbeat";
}

/* --- the policy (agent thread) ------------------------------------------ */

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
	struct helper *h;
	int rc;

	if (policy == PMIXEV_MONITOR_NOTIFY || m->acted)
		return;
	m->acted = true;
	PMIXEV_INFO("monitor: applying policy %s (PMIxevMonitorPolicy)",
		    pmixev_monitor_policy_name(policy));
	h = jobinfo_node_helper(m->s->jobinfo);
	if (policy == PMIXEV_MONITOR_KILL)
		rc = h ? helper_control(h, PMIXEV_CTL_KILL_STEP, st->job_id,
					st->step_id, SIGKILL, 0,
					on_policy_answer, m)
		       : -1;
	else
		rc = h ? helper_control(h, PMIXEV_CTL_REQUEUE_JOB, st->job_id,
					0, 0, 0, on_policy_answer, m)
		       : -1;
	if (rc < 0)
		on_policy_answer(m, NULL);
}

/* --- an alert: the handler (PMIx thread), its work (agent thread) ------- */

static void alert_agent(void *arg)
{
	struct alert *a = arg;
	struct monitor *m = a->m;

	m->alerts[a->code == PMIX_MONITOR_FILE_ALERT]++;
	PMIXEV_INFO("monitor: rank %u: %s alert, told to every process of "
		    "the step",
		    a->rank, alert_name(a->code));
	apply_policy(m);
	free(a);
}

/* The library's own alerts carry no info; a client's event carries the
 * server's marker; a relayed one comes from a rank of another node. */
static bool raised_by_library(const struct layout *lay,
			      const pmix_proc_t *source,
			      const pmix_info_t info[], size_t ninfo)
{
	if (!source || !PMIX_CHECK_NSPACE(source->nspace, lay->nspace) ||
	    !layout_is_local(lay, source->rank))
		return false;
	for (size_t i = 0; i < ninfo; i++)
		if (PMIX_CHECK_KEY(&info[i], NOTIFY_SERVER_MARK))
			return false;
	return true;
}

static void on_alert_pmix(size_t id, pmix_status_t code,
			  const pmix_proc_t *source, pmix_info_t info[],
			  size_t ninfo, pmix_info_t *results, size_t nresults,
			  pmix_event_notification_cbfunc_fn_t cbfunc,
			  void *cbdata)
{
	struct step *s = step_served();
	struct alert *a;

	(void)id;
	(void)results;
	(void)nresults;
	if (s && s->monitor &&
	    raised_by_library(&s->lay, source, info, ninfo)) {
		notify_upcall_event(code, source, PMIX_RANGE_NAMESPACE, NULL, 0,
				    NULL, NULL);
		if (!(a = calloc(1, sizeof(*a))))
			PMIXEV_ERROR("monitor: rank %u: %s alert not acted "
				     "on: out of memory",
				     source->rank, alert_name(code));
		else {
			*a = (struct alert){s->monitor, code, source->rank};
			if (agent_post(s->agent, alert_agent, a) < 0) {
				PMIXEV_ERROR("monitor: rank %u: %s alert not "
					     "acted on: the agent thread is "
					     "gone",
					     source->rank, alert_name(code));
				free(a);
			}
		}
	}
	if (cbfunc)
		cbfunc(PMIX_SUCCESS, NULL, 0, NULL, NULL, cbdata);
}

/* --- other monitor types (PMIx thread) ---------------------------------- */

pmix_status_t monitor_upcall(const pmix_proc_t *requestor,
			     const pmix_info_t *monitor, pmix_status_t error,
			     const pmix_info_t directives[], size_t ndirs,
			     pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	struct step *s = step_served();

	(void)error;
	(void)directives;
	(void)ndirs;
	(void)cbfunc;
	(void)cbdata;
	if (s && s->monitor && atomic_fetch_add(&s->monitor->refused, 1) == 0)
		PMIXEV_INFO("monitor: rank %u asked for %.*s: refused, Slurm "
			    "offers no such monitor (pmixev serves %s and %s "
			    "through the PMIx library); further refusals "
			    "are counted",
			    requestor ? requestor->rank : PMIX_RANK_UNDEF,
			    PMIX_MAX_KEYLEN,
			    monitor ? monitor->key : "(nothing)",
			    PMIX_MONITOR_HEARTBEAT, PMIX_MONITOR_FILE);
	return PMIX_ERR_NOT_SUPPORTED;
}

/* --- create, destroy (slurmstepd's thread) ------------------------------ */

struct monitor *monitor_create(struct step *s)
{
	pmix_status_t codes[] = {PMIX_MONITOR_HEARTBEAT_ALERT,
				 PMIX_MONITOR_FILE_ALERT};
	struct monitor *m = calloc(1, sizeof(*m));
	pmix_status_t rc;

	if (!m) {
		PMIXEV_ERROR("monitor: out of memory");
		return NULL;
	}
	m->s = s;
	/* Without a callback the call waits for the registration and returns
	 * the handler's reference, or a (negative) status. The handler lives
	 * as long as the server. */
	rc = PMIx_Register_event_handler(codes, 2, NULL, 0, on_alert_pmix, NULL,
					 NULL);
	if (rc < 0) {
		PMIXEV_ERROR("monitor: cannot watch for monitor alerts (they "
			     "stay on their node, no policy): %s",
			     PMIx_Error_string(rc));
		free(m);
		return NULL;
	}
	return m;
}

void monitor_destroy(struct monitor *m)
{
	unsigned refused;

	if (!m)
		return;
	refused = atomic_load(&m->refused);
	if (m->alerts[0] || m->alerts[1] || refused)
		PMIXEV_INFO(
			"monitor: %u heartbeat and %u file alert(s) on this "
			"node (policy %s%s); %u request(s) for other "
			"monitors refused",
			m->alerts[0], m->alerts[1],
			pmixev_monitor_policy_name(m->s->conf.monitor_policy),
			m->acted ? ", applied" : "", refused);
	free(m);
}
