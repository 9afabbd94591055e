/*
 * pmix/jobctl.c - PMIx_Job_control carried out by slurmctld as the job
 * owner: the upcall (PMIx progress thread) and the requests (agent
 * thread).
 */
#include "config.h"

#include "pmix/jobctl.h"

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
#include "pmix/confine.h"
#include "pmix/status.h"
#include "pmix/tasksig.h"
#include "pmixev_events.h"
#include "pmixev_log.h"
#include "pmixev_step.h"
#include "slurmctld/helper.h"
#include "slurmctld/jobinfo.h"

#define TARGETS_MAX 16
#define REASON_MAX  1024

enum action {
	A_NONE,
	A_SIGNAL,
	A_TERMINATE,
	A_KILL,
	A_RESTART,
	A_PAUSE,
	A_RESUME
};

static const char *const action_names[] = {
	[A_SIGNAL] = "signal", [A_TERMINATE] = "terminate",
	[A_KILL] = "kill",     [A_RESTART] = "restart (requeue)",
	[A_PAUSE] = "pause",   [A_RESUME] = "resume",
};

struct jobctl {
	struct step *s;
	uint64_t requests, refused;
};

struct target {
	uint32_t job, step; /* step PMIXEV_STEP_ANY: the whole job */
	bool tasks;	    /* the own step's tasks, signalled by the stepds */
	uint32_t rank;	    /* ... this one, or TASKSIG_ALL */
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
		} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_PAUSE) &&
			   PMIX_INFO_TRUE(in)) {
			a = A_PAUSE;
		} else if (PMIX_CHECK_KEY(in, PMIX_JOB_CTRL_RESUME) &&
			   PMIX_INFO_TRUE(in)) {
			a = A_RESUME;
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

/* Whether the signal goes to the own step's tasks by the stepds (single
 * ranks; pause and resume), not through Slurm. PMIX_SUCCESS, or why not. */
static pmix_status_t task_route(struct ctl_call *c, struct target *t,
				pmix_rank_t rank)
{
	const struct step *s = step_served();
	bool own =
		t->job == s->lay.step.job_id && t->step == s->lay.step.step_id;
	bool stop = c->action == A_PAUSE || c->action == A_RESUME;

	if (rank == PMIX_RANK_WILDCARD && !stop)
		return PMIX_SUCCESS;
	if (!own || c->action == A_RESTART) {
		snprintf(c->reason, sizeof(c->reason),
			 "%s: the own step's processes only (a whole other "
			 "step or job: signal, terminate, kill, restart)",
			 rank == PMIX_RANK_WILDCARD ? action_names[c->action]
						    : "single ranks");
		return PMIX_ERR_NOT_SUPPORTED;
	}
	if (rank != PMIX_RANK_WILDCARD && rank >= s->lay.map.ntasks) {
		snprintf(c->reason, sizeof(c->reason),
			 "no rank %u in this step", rank);
		return PMIX_ERR_BAD_PARAM;
	}
	t->tasks = true;
	t->rank = rank == PMIX_RANK_WILDCARD ? TASKSIG_ALL : rank;
	return PMIX_SUCCESS;
}

/* One target: a whole step or job, or tasks of the own step.
 * PMIX_SUCCESS, or why not. */
static pmix_status_t add_target(struct ctl_call *c, const pmix_proc_t *p)
{
	struct target t = {.c = c};
	pmix_status_t rc;

	if (pmixev_job_ref_parse(p->nspace, &t.job, &t.step) < 0) {
		snprintf(c->reason, sizeof(c->reason),
			 "%.*s names no Slurm job or step", PMIX_MAX_NSLEN,
			 p->nspace);
		return PMIX_ERR_NOT_FOUND;
	}
	if ((rc = task_route(c, &t, p->rank)) != PMIX_SUCCESS)
		return rc;
	for (size_t i = 0; i < c->nt; i++)
		if (c->t[i].job == t.job && c->t[i].step == t.step &&
		    c->t[i].tasks == t.tasks && c->t[i].rank == t.rank)
			return PMIX_SUCCESS;
	if (c->nt == TARGETS_MAX) {
		snprintf(c->reason, sizeof(c->reason), "more than %d targets",
			 TARGETS_MAX);
		return PMIX_ERR_BAD_PARAM;
	}
	c->t[c->nt++] = t;
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
	if (t->tasks && t->rank == TASKSIG_ALL)
		snprintf(buf, len, "the tasks of step %u.%u", (unsigned)t->job,
			 (unsigned)t->step);
	else if (t->tasks)
		snprintf(buf, len, "rank %u", (unsigned)t->rank);
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
			    action_names[c->action], what);
	} else {
		PMIXEV_INFO("job control: rank %u: %s %s: refused: %s", c->rank,
			    action_names[c->action], what, why);
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
	for (size_t i = 0; i < c->nt; i++) {
		struct target *t = &c->t[i];
		uint32_t signo;
		enum pmixev_control_action a = slurm_action(c, t, &signo);

		c->outstanding++;
		if (t->tasks) {
			tasksig_send(s->tasksig, t->rank, task_signal(c),
				     c->timeout_sec, on_tasks, t);
			continue;
		}
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
