/*
 * pmix/jobctl.c - PMIx_Job_control carried out by slurmctld as the job
 * owner: the upcall (PMIx progress thread) and the requests (agent
 * thread).
 */
#include "config.h"

#include "pmix/jobctl.h"

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event2/event.h>
#include <pmix.h>

#include "base/agent.h"
#include "base/step.h"
#include "pmix/confine.h"
#include "pmixev_events.h"
#include "pmixev_log.h"
#include "pmixev_step.h"
#include "slurmctld/helper.h"
#include "slurmctld/jobinfo.h"

#define TARGETS_MAX 16
#define REASON_MAX  1024

enum action { A_NONE, A_SIGNAL, A_TERMINATE, A_KILL, A_RESTART };

static const char *const action_names[] = {
	[A_SIGNAL] = "signal",
	[A_TERMINATE] = "terminate",
	[A_KILL] = "kill",
	[A_RESTART] = "restart (requeue)",
};

struct jobctl {
	struct step *s;
	uint64_t requests, refused;
};

struct target {
	uint32_t job, step; /* step PMIXEV_STEP_ANY: the whole job */
	struct ctl_call *c;
};

struct ctl_call {
	enum action action;
	int signo;
	uint32_t rank; /* the requester's, for the log */
	struct target t[TARGETS_MAX];
	size_t nt;
	unsigned timeout_sec;
	unsigned outstanding;
	bool replied;
	pmix_status_t st;
	char reason[REASON_MAX];
	struct event *deadline;
	pmix_info_t *answer;
	pmix_info_cbfunc_t cbfunc;
	void *cbdata;
};

/* Directives the library handled itself, or added. */
static bool library_key(const pmix_info_t *in)
{
	return PMIX_CHECK_KEY(in, PMIX_REGISTER_CLEANUP) ||
	       PMIX_CHECK_KEY(in, PMIX_REGISTER_CLEANUP_DIR) ||
	       PMIX_CHECK_KEY(in, PMIX_CLEANUP_RECURSIVE) ||
	       PMIX_CHECK_KEY(in, PMIX_CLEANUP_IGNORE) ||
	       PMIX_CHECK_KEY(in, PMIX_CLEANUP_LEAVE_TOPDIR) ||
	       PMIX_CHECK_KEY(in, PMIX_USERID) ||
	       PMIX_CHECK_KEY(in, PMIX_GRPID) ||
	       PMIX_CHECK_KEY(in, PMIX_TIMEOUT);
}

/* The one action asked: PMIX_SUCCESS, or why it is refused. */
static pmix_status_t read_action(struct ctl_call *c, const pmix_info_t *dirs,
				 size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const pmix_info_t *in = &dirs[i];
		enum action a = A_NONE;

		if (PMIX_CHECK_KEY(in, PMIX_TIMEOUT) &&
		    in->value.type == PMIX_INT && in->value.data.integer > 0)
			c->timeout_sec = (unsigned)in->value.data.integer;
		if (library_key(in))
			continue;
		if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_SIGNAL)) {
			if (in->value.type != PMIX_INT ||
			    in->value.data.integer < 1 ||
			    in->value.data.integer > 64)
				return PMIX_ERR_BAD_PARAM;
			a = A_SIGNAL;
			c->signo = in->value.data.integer;
		} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_TERMINATE) &&
			   PMIX_INFO_TRUE(in)) {
			a = A_TERMINATE;
		} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_KILL) &&
			   PMIX_INFO_TRUE(in)) {
			a = A_KILL;
		} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_RESTART)) {
			a = A_RESTART;
		} else if (!strncmp(in->key, "pmix.jctrl.", 11)) {
			snprintf(c->reason, sizeof(c->reason),
				 "%s is not supported", in->key);
			return PMIX_ERR_NOT_SUPPORTED;
		}
		if (a != A_NONE && c->action != A_NONE) {
			snprintf(c->reason, sizeof(c->reason),
				 "more than one action");
			return PMIX_ERR_BAD_PARAM;
		}
		if (a != A_NONE)
			c->action = a;
	}
	if (c->action != A_NONE)
		return PMIX_SUCCESS;
	snprintf(c->reason, sizeof(c->reason), "no action (or a bad signal)");
	return PMIX_ERR_BAD_PARAM;
}

/* One target: a whole step or job. PMIX_SUCCESS, or why not. */
static pmix_status_t add_target(struct ctl_call *c, const pmix_proc_t *p)
{
	uint32_t job, step;

	if (pmixev_job_ref_parse(p->nspace, &job, &step) < 0) {
		snprintf(c->reason, sizeof(c->reason),
			 "%.*s names no Slurm job or step", PMIX_MAX_NSLEN,
			 p->nspace);
		return PMIX_ERR_NOT_FOUND;
	}
	if (p->rank != PMIX_RANK_WILDCARD) {
		snprintf(c->reason, sizeof(c->reason),
			 "single ranks are not supported (rank %u): whole "
			 "steps and jobs only",
			 p->rank);
		return PMIX_ERR_NOT_SUPPORTED;
	}
	for (size_t i = 0; i < c->nt; i++)
		if (c->t[i].job == job && c->t[i].step == step)
			return PMIX_SUCCESS;
	if (c->nt == TARGETS_MAX) {
		snprintf(c->reason, sizeof(c->reason), "more than %d targets",
			 TARGETS_MAX);
		return PMIX_ERR_BAD_PARAM;
	}
	c->t[c->nt++] = (struct target){.job = job, .step = step, .c = c};
	return PMIX_SUCCESS;
}

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
	if (t->step == PMIXEV_STEP_ANY || c->action == A_RESTART)
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

/* Slurm's verdict on one target. */
static void on_answer(void *arg, const struct pmixev_owner_resp *r)
{
	struct target *t = arg;
	struct ctl_call *c = t->c;
	pmix_status_t st = r ? helper_pmix_status(r->ctl.rc) : PMIX_ERR_UNREACH;
	char what[48];
	size_t used = strlen(c->reason);

	target_text(c, t, what, sizeof(what));
	if (st == PMIX_SUCCESS) {
		PMIXEV_INFO("job control: rank %u: %s %s: done", c->rank,
			    action_names[c->action], what);
	} else {
		const char *why =
			r ? r->ctl.reason : "no answer from slurmctld";

		PMIXEV_INFO("job control: rank %u: %s %s: refused: %s", c->rank,
			    action_names[c->action], what, why);
		snprintf(c->reason + used, sizeof(c->reason) - used, "%s%s: %s",
			 used ? "; " : "", what, why);
		if (c->st == PMIX_SUCCESS)
			c->st = st;
	}
	settle(c);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	reply(arg, PMIX_ERR_TIMEOUT);
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
	default:
		*signo = 0;
		return PMIXEV_CTL_REQUEUE_JOB;
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
	for (size_t i = 0; i < c->nt; i++) {
		struct target *t = &c->t[i];
		uint32_t signo;
		enum pmixev_control_action a = slurm_action(c, t, &signo);

		c->outstanding++;
		if (!h ||
		    helper_control(h, a, t->job,
				   t->step == PMIXEV_STEP_ANY ? 0 : t->step,
				   signo, on_answer, t) < 0)
			on_answer(t, NULL);
	}
	if (c->timeout_sec && c->outstanding > 1 &&
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
	pmix_proc_t own;
	pmix_status_t rc;

	/* The library may carry out cleanups on this thread later. */
	if (!confine_pmix_thread(s->lay.uid, s->lay.gid))
		return PMIX_ERR_NO_PERMISSIONS;
	if (!(c = calloc(1, sizeof(*c))))
		return PMIX_ERR_NOMEM;
	c->rank = requestor ? requestor->rank : PMIX_RANK_UNDEF;
	c->st = PMIX_SUCCESS;
	rc = read_action(c, directives, ndirs);
	if (rc == PMIX_SUCCESS && (!targets || !ntargets)) {
		PMIX_LOAD_PROCID(&own, s->lay.nspace, PMIX_RANK_WILDCARD);
		rc = add_target(c, &own);
	}
	for (size_t i = 0; rc == PMIX_SUCCESS && targets && i < ntargets; i++)
		rc = add_target(c, &targets[i]);
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
