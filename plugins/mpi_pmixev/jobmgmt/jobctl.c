/*
 * jobmgmt/jobctl.c - PMIx_Job_control carried out by slurmctld as the job
 * owner: the upcall (PMIx progress thread) and the requests (agent
 * thread).
 */
#include "config.h"

#include "jobmgmt/jobctl.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <pmix.h>

#include "base/agent.h"
#include "base/step.h"
#include "jobmgmt/ckpt.h"
#include "jobmgmt/ckpt_cancel.h"
#include "jobmgmt/jobctl_call.h"
#include "pmixbase/confine.h"
#include "pmixbase/status.h"
#include "jobmgmt/tasksig.h"
#include "pmixev_events.h"
#include "pmixev_log.h"
#include "pmixev_step.h"
#include "ownerhelper/helper.h"
#include "ownerhelper/jobinfo.h"

struct jobctl {
	struct step *s;
	uint64_t requests, refused;
};

/* --- the agent thread ----------------------------------------------------- */

static void release_answer(void *cbdata)
{
	pmix_info_t *info = cbdata;

	PMIX_INFO_FREE(info, 1);
}

static void call_free(struct ctl_call *c)
{
	if (c->deadline)
		event_free(c->deadline);
	free(c);
}

static void reply(struct ctl_call *c, pmix_status_t st)
{
	pmix_info_t *info = NULL;

	if (c->replied)
		return;
	c->replied = true;
	if (c->deadline)
		evtimer_del(c->deadline);
	if (st != PMIX_SUCCESS && c->reason[0]) {
		PMIX_INFO_CREATE(info, 1);
		if (info)
			PMIX_INFO_LOAD(info, PMIXEV_JCTRL_REASON, c->reason,
				       PMIX_STRING);
	}
	c->cbfunc(st, info, info ? 1 : 0, c->cbdata,
		  info ? release_answer : NULL, info);
}

static void target_text(const struct ctl_call *c, const struct target *t,
			char *buf, size_t len)
{
	if (t->tasks && t->rank == TASKSIG_ALL)
		snprintf(buf, len, "the tasks of step %u.%u", (unsigned)t->job,
			 (unsigned)t->step);
	else if (t->tasks)
		snprintf(buf, len, "rank %u", (unsigned)t->rank);
	else if (c->action == A_PREEMPTIBLE)
		snprintf(buf, len, "%s job %u", c->preemptible ? "on" : "off",
			 (unsigned)t->job);
	else if (t->step == PMIXEV_STEP_ANY || c->action == A_RESTART)
		snprintf(buf, len, "job %u", (unsigned)t->job);
	else
		snprintf(buf, len, "step %u.%u", (unsigned)t->job,
			 (unsigned)t->step);
}

/* One answer less to wait for; the last one answers the request. */
static void settle(struct ctl_call *c)
{
	struct jobctl *jc = step_served()->jobctl;

	if (--c->outstanding)
		return;
	if (c->st != PMIX_SUCCESS)
		jc->refused++;
	reply(c, c->st);
	call_free(c);
}

/* The verdict on one target: `st`, and why if it failed. */
static void verdict(struct target *t, pmix_status_t st, const char *why)
{
	struct ctl_call *c = t->c;
	char what[64];
	size_t used = strlen(c->reason);

	target_text(c, t, what, sizeof(what));
	if (st == PMIX_SUCCESS) {
		PMIXEV_INFO("job control: rank %u: %s %s: done", c->rank,
			    jobctl_action_name(c->action), what);
	} else {
		PMIXEV_INFO("job control: rank %u: %s %s: refused: %s", c->rank,
			    jobctl_action_name(c->action), what, why);
		snprintf(c->reason + used, sizeof(c->reason) - used, "%s%s: %s",
			 used ? "; " : "", what, why);
		if (c->st == PMIX_SUCCESS)
			c->st = st;
	}
	settle(c);
}

/* Slurm's verdict on one target. */
static void on_answer(void *arg, const struct pmixev_owner_resp *r)
{
	verdict(arg, r ? helper_pmix_status(r->ctl.rc) : PMIX_ERR_UNREACH,
		r ? r->ctl.reason : "no answer from slurmctld");
}

/* The stepds' verdict on the own step's tasks. */
static void on_tasks(void *arg, unsigned done, unsigned failed, int err)
{
	char why[160];
	pmix_status_t st = PMIX_SUCCESS;

	if (failed || !done) {
		snprintf(why, sizeof(why), "%u task(s) signalled, %u not: %s",
			 done, failed,
			 err == ESRCH ? "not running" : strerror(err));
		st = done ? PMIX_ERR_PARTIAL_SUCCESS
			  : status_from_errno(err ? err : ESRCH);
	}
	verdict(arg, st, why);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	reply(arg, PMIX_ERR_TIMEOUT);
}

/* How a checkpoint of target `arg` ended. */
static void on_ckpt(void *arg, pmix_status_t st, unsigned done, unsigned total)
{
	char why[96];

	snprintf(why, sizeof(why), "%u of %u rank(s) completed", done, total);
	verdict(arg, st, why);
}

/* PMIX_JOB_CTRL_CHECKPOINT of the own step's ranks (jobmgmt/ckpt.h). */
static void checkpoint(struct step *s, struct ctl_call *c, struct target *t)
{
	c->ckpt.rank = t->rank == TASKSIG_ALL ? CKPT_ALL : t->rank;
	c->ckpt.timeout_sec = c->timeout_sec;
	memcpy(c->ckpt.ctl_id, c->ctl_id, sizeof(c->ckpt.ctl_id));
	if (s->ckpt)
		ckpt_start(s->ckpt, &c->ckpt, on_ckpt, t);
	else
		verdict(t, PMIX_ERR_NOT_SUPPORTED,
			"checkpoints are off in this step (see the slurmd "
			"log)");
}

/* How the cancel of `arg` went on every node. */
static void on_cancelled(void *arg, unsigned n, unsigned unanswered)
{
	struct ctl_call *c = arg;

	PMIXEV_INFO("job control: rank %u: cancel '%s': %u request(s) in "
		    "progress in the step cancelled (%u node(s) did not "
		    "answer)",
		    c->rank, c->ckpt.ctl_id, n, unanswered);
	if (!n) {
		snprintf(c->reason, sizeof(c->reason),
			 "no request '%s' in progress in the step%s",
			 c->ckpt.ctl_id,
			 unanswered ? " (some nodes did not answer)" : "");
		c->st = unanswered ? PMIX_ERR_TIMEOUT : PMIX_ERR_NOT_FOUND;
	}
	settle(c);
}

/* PMIX_JOB_CTRL_CANCEL: the checkpoints in progress with that id, on
 * every node. */
static void cancel(struct step *s, struct ctl_call *c)
{
	if (!c->ckpt.ctl_id[0]) {
		snprintf(c->reason, sizeof(c->reason),
			 "an empty request id names no request");
		c->st = PMIX_ERR_BAD_PARAM;
		return;
	}
	c->outstanding++;
	ckpt_cancel_send(s->ckpt_cancel, c->ckpt.ctl_id, c->timeout_sec,
			 on_cancelled, c);
}

/* What `c`'s action is for target `t`: the helper's action and signal. */
static enum pmixev_control_action
slurm_action(const struct ctl_call *c, const struct target *t, uint32_t *signo)
{
	bool job = t->step == PMIXEV_STEP_ANY;

	*signo = (uint32_t)c->signo;
	switch (c->action) {
	case A_SIGNAL:
		return job ? PMIXEV_CTL_SIGNAL_JOB : PMIXEV_CTL_SIGNAL_STEP;
	case A_TERMINATE:
		*signo = SIGTERM;
		return job ? PMIXEV_CTL_SIGNAL_JOB : PMIXEV_CTL_KILL_STEP;
	case A_KILL:
		*signo = SIGKILL;
		return job ? PMIXEV_CTL_CANCEL_JOB : PMIXEV_CTL_KILL_STEP;
	case A_PAUSE:
	case A_RESUME:
		*signo = c->action == A_PAUSE ? SIGSTOP : SIGCONT;
		return job ? PMIXEV_CTL_SIGNAL_JOB : PMIXEV_CTL_SIGNAL_STEP;
	case A_PREEMPTIBLE:
		*signo = c->preemptible;
		return PMIXEV_CTL_PREEMPTIBLE;
	default:
		*signo = 0;
		return PMIXEV_CTL_REQUEUE_JOB;
	}
}

/* The signal `c`'s action sends to tasks. */
static int task_signal(const struct ctl_call *c)
{
	switch (c->action) {
	case A_SIGNAL:
		return c->signo;
	case A_TERMINATE:
		return SIGTERM;
	case A_PAUSE:
		return SIGSTOP;
	case A_RESUME:
		return SIGCONT;
	default:
		return SIGKILL;
	}
}

static void jobctl_agent(void *arg)
{
	struct ctl_call *c = arg;
	struct step *s = step_served();
	struct jobctl *jc = s->jobctl;
	struct helper *h = jobinfo_node_helper(s->jobinfo);
	struct timeval tv = {(time_t)c->timeout_sec, 0};

	jc->requests++;
	c->outstanding = 1; /* until every target is asked */
	if (c->action == A_CANCEL)
		cancel(s, c);
	for (size_t i = 0; i < c->nt; i++) {
		struct target *t = &c->t[i];
		uint32_t signo;
		enum pmixev_control_action a = slurm_action(c, t, &signo);

		c->outstanding++;
		if (t->tasks && c->action == A_CHECKPOINT) {
			checkpoint(s, c, t);
			continue;
		}
		if (t->tasks) {
			tasksig_send(s->tasksig, t->rank, task_signal(c),
				     c->timeout_sec, on_tasks, t);
			continue;
		}
		if (!h ||
		    helper_control(h, a, t->job,
				   t->step == PMIXEV_STEP_ANY ? 0 : t->step,
				   signo, c->timeout_sec, on_answer, t) < 0)
			on_answer(t, NULL);
	}
	/* A checkpoint keeps its own time, and says how far it got. */
	if (c->timeout_sec && c->action != A_CHECKPOINT && c->outstanding > 1 &&
	    (c->deadline = evtimer_new(agent_base(s->agent), on_deadline, c)))
		evtimer_add(c->deadline, &tv);
	settle(c);
}

/* --- the upcall (PMIx progress thread) ---------------------------------- */

pmix_status_t jobctl_upcall(const pmix_proc_t *requestor,
			    const pmix_proc_t targets[], size_t ntargets,
			    const pmix_info_t directives[], size_t ndirs,
			    pmix_info_cbfunc_t cbfunc, void *cbdata)
{
	const struct step *s = step_served();
	struct ctl_call *c;
	pmix_status_t rc;

	/* The library may carry out cleanups on this thread later. */
	if (!confine_pmix_thread(s->lay.uid, s->lay.gid))
		return PMIX_ERR_NO_PERMISSIONS;
	if (!(c = calloc(1, sizeof(*c))))
		return PMIX_ERR_NOMEM;
	c->rank = requestor ? requestor->rank : PMIX_RANK_UNDEF;
	c->st = PMIX_SUCCESS;
	rc = jobctl_read(c, s->lay.nspace, targets, ntargets, directives,
			 ndirs);
	if (rc != PMIX_SUCCESS) {
		PMIXEV_INFO("job control: a request from rank %u refused (%s): "
			    "%s",
			    c->rank, PMIx_Error_string(rc), c->reason);
		free(c);
		return rc;
	}
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(s->agent, jobctl_agent, c) == 0)
		return PMIX_SUCCESS;
	free(c);
	return PMIX_ERR_UNREACH;
}

struct jobctl *jobctl_create(struct step *s)
{
	struct jobctl *jc = calloc(1, sizeof(*jc));

	if (jc)
		jc->s = s;
	return jc;
}

void jobctl_destroy(struct jobctl *jc)
{
	if (!jc)
		return;
	if (jc->requests)
		PMIXEV_INFO("job control: %llu request(s) carried out through "
			    "slurmctld, %llu of them refused or failed",
			    (unsigned long long)jc->requests,
			    (unsigned long long)jc->refused);
	free(jc);
}
