/*
 * jobmgmt/jobctl.c - PMIx_Job_control requests of the pmix side carried
 * out by slurmctld as the job owner, and by the stepds (agent thread).
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
#include <pmix_common.h>

#include "base/agent.h"
#include "base/step.h"
#include "jobmgmt/ckpt.h"
#include "jobmgmt/ckpt_cancel.h"
#include "jobmgmt/tasksig.h"
#include "jobmgmt/pmixstatus.h"
#include "pmixd/carry.h"
#include "pmixd/chan.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_ctl.h"
#include "pmixev_step.h"
#include "ownerhelper/helper.h"

struct jobctl {
	struct step *s;
	uint64_t requests, refused;
};

struct ctl_call;

/* A target of a request, until its verdict. */
struct target {
	const struct pmixev_pmixd_target *to; /* in c->m */
	struct ctl_call *c;
};

/* A request of the pmix side, until every target has its verdict. */
struct ctl_call {
	struct jobctl *jc;
	struct pmixev_pmixd_jobctl m; /* as the pmix side read it */
	struct target t[PMIXEV_PMIXD_TARGETS_MAX];
	unsigned outstanding;
	bool replied;
	pmix_status_t st;
	char reason[PMIXEV_PMIXD_REASON_MAX];
	struct event *deadline;
};

/* Answer the pmix side's request `id`: `st`, and `why` it failed. */
static void send_done(struct chan *l, uint64_t id, pmix_status_t st,
		      const char *why)
{
	struct pmixev_pmixd_status m = {.id = id, .status = st};
	struct pmixev_buf b;

	if (st != PMIX_SUCCESS)
		snprintf(m.why, sizeof(m.why), "%s", why);
	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if ((pmixev_pmixd_status_pack(&b, &m) < 0 ||
	     chan_send(l, PMIXEV_PMIXD_JOBCTL_DONE, &b) < 0) &&
	    chan_is_open(l))
		PMIXEV_ERROR("job control: cannot answer the pmix side's "
			     "request %llu (out of memory)",
			     (unsigned long long)id);
	pmixev_buf_release(&b);
}

static void call_free(struct ctl_call *c)
{
	if (c->deadline)
		event_free(c->deadline);
	pmixev_pmixd_budget_give(&c->jc->s->pmixd_budget, PMIXEV_PMIXD_JOBCTL);
	free(c);
}

static void reply(struct ctl_call *c, pmix_status_t st)
{
	if (c->replied)
		return;
	c->replied = true;
	if (c->deadline)
		evtimer_del(c->deadline);
	send_done(c->jc->s->chan, c->m.id, st, c->reason);
}

static void target_text(const struct ctl_call *c, const struct target *t,
			char *buf, size_t len)
{
	const struct pmixev_pmixd_target *to = t->to;

	if (to->tasks && to->rank == PMIXEV_PMIXD_ALL)
		snprintf(buf, len, "the tasks of step %u.%u", (unsigned)to->job,
			 (unsigned)to->step);
	else if (to->tasks)
		snprintf(buf, len, "rank %u", (unsigned)to->rank);
	else if (c->m.action == PMIXEV_PMIXD_PREEMPTIBLE)
		snprintf(buf, len, "%s job %u", c->m.preemptible ? "on" : "off",
			 (unsigned)to->job);
	else if (to->step == PMIXEV_STEP_ANY ||
		 c->m.action == PMIXEV_PMIXD_RESTART)
		snprintf(buf, len, "job %u", (unsigned)to->job);
	else
		snprintf(buf, len, "step %u.%u", (unsigned)to->job,
			 (unsigned)to->step);
}

/* One answer less to wait for; the last one answers the request. */
static void settle(struct ctl_call *c)
{
	if (--c->outstanding)
		return;
	if (c->st != PMIX_SUCCESS)
		c->jc->refused++;
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
		PMIXEV_INFO("job control: rank %u: %s %s: done", c->m.rank,
			    pmixev_pmixd_action_name(c->m.action), what);
	} else {
		PMIXEV_INFO("job control: rank %u: %s %s: refused: %s",
			    c->m.rank, pmixev_pmixd_action_name(c->m.action),
			    what, why);
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
			  : pmixstatus_from_errno(err ? err : ESRCH);
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
static void checkpoint(struct step *s, struct target *t)
{
	const struct pmixev_pmixd_jobctl *m = &t->c->m;
	struct ckpt_req req = {
		.rank = t->to->rank == PMIXEV_PMIXD_ALL ? CKPT_ALL
							: t->to->rank,
		.signo = (int)m->ckpt.signo,
		.timeout_sec = m->timeout_sec,
	};

	snprintf(req.id, sizeof(req.id), "%s", m->ckpt.id);
	snprintf(req.ctl_id, sizeof(req.ctl_id), "%s", m->ctl_id);
	ckpt_start(s->ckpt, &req, on_ckpt, t);
}

/* How the cancel of `arg` went on every node. */
static void on_cancelled(void *arg, unsigned n, unsigned unanswered)
{
	struct ctl_call *c = arg;

	PMIXEV_INFO("job control: rank %u: cancel '%s': %u request(s) in "
		    "progress in the step cancelled (%u node(s) did not "
		    "answer)",
		    c->m.rank, c->m.ckpt.ctl_id, n, unanswered);
	if (!n) {
		snprintf(c->reason, sizeof(c->reason),
			 "no request '%s' in progress in the step%s",
			 c->m.ckpt.ctl_id,
			 unanswered ? " (some nodes did not answer)" : "");
		c->st = unanswered ? PMIX_ERR_TIMEOUT : PMIX_ERR_NOT_FOUND;
	}
	settle(c);
}

/* PMIX_JOB_CTRL_CANCEL: the checkpoints in progress with that id, on
 * every node. */
static void cancel(struct step *s, struct ctl_call *c)
{
	if (!c->m.ckpt.ctl_id[0]) {
		snprintf(c->reason, sizeof(c->reason),
			 "an empty request id names no request");
		c->st = PMIX_ERR_BAD_PARAM;
		return;
	}
	c->outstanding++;
	ckpt_cancel_send(s->ckpt_cancel, c->m.ckpt.ctl_id, c->m.timeout_sec,
			 on_cancelled, c);
}

/* What `c`'s action is for target `to`: the helper's action and signal. */
static enum pmixev_control_action
slurm_action(const struct ctl_call *c, const struct pmixev_pmixd_target *to,
	     uint32_t *signo)
{
	bool job = to->step == PMIXEV_STEP_ANY;

	*signo = c->m.signo;
	switch (c->m.action) {
	case PMIXEV_PMIXD_SIGNAL:
		return job ? PMIXEV_CTL_SIGNAL_JOB : PMIXEV_CTL_SIGNAL_STEP;
	case PMIXEV_PMIXD_TERMINATE:
		*signo = SIGTERM;
		return job ? PMIXEV_CTL_SIGNAL_JOB : PMIXEV_CTL_KILL_STEP;
	case PMIXEV_PMIXD_KILL:
		*signo = SIGKILL;
		return job ? PMIXEV_CTL_CANCEL_JOB : PMIXEV_CTL_KILL_STEP;
	case PMIXEV_PMIXD_PAUSE:
	case PMIXEV_PMIXD_RESUME:
		*signo = c->m.action == PMIXEV_PMIXD_PAUSE ? SIGSTOP : SIGCONT;
		return job ? PMIXEV_CTL_SIGNAL_JOB : PMIXEV_CTL_SIGNAL_STEP;
	case PMIXEV_PMIXD_PREEMPTIBLE:
		*signo = c->m.preemptible;
		return PMIXEV_CTL_PREEMPTIBLE;
	default:
		*signo = 0;
		return PMIXEV_CTL_REQUEUE_JOB;
	}
}

/* The signal `c`'s action sends to tasks. */
static int task_signal(const struct ctl_call *c)
{
	switch (c->m.action) {
	case PMIXEV_PMIXD_SIGNAL:
		return (int)c->m.signo;
	case PMIXEV_PMIXD_TERMINATE:
		return SIGTERM;
	case PMIXEV_PMIXD_PAUSE:
		return SIGSTOP;
	case PMIXEV_PMIXD_RESUME:
		return SIGCONT;
	default:
		return SIGKILL;
	}
}

/* Ask for each target's verdict; answer when all came, or the deadline. */
static void carry_out(struct ctl_call *c)
{
	struct step *s = c->jc->s;
	struct timeval tv = {(time_t)c->m.timeout_sec, 0};

	c->outstanding = 1; /* until every target is asked */
	if (c->m.action == PMIXEV_PMIXD_CANCEL)
		cancel(s, c);
	for (uint32_t i = 0; i < c->m.nt; i++) {
		struct target *t = &c->t[i];
		uint32_t signo;
		enum pmixev_control_action a;

		*t = (struct target){.to = &c->m.t[i], .c = c};
		a = slurm_action(c, t->to, &signo);
		c->outstanding++;
		if (t->to->tasks && c->m.action == PMIXEV_PMIXD_CHECKPOINT) {
			checkpoint(s, t);
			continue;
		}
		if (t->to->tasks) {
			tasksig_send(
				s->tasksig,
				t->to->rank == PMIXEV_PMIXD_ALL ? TASKSIG_ALL
								: t->to->rank,
				task_signal(c), c->m.timeout_sec, on_tasks, t);
			continue;
		}
		if (helper_control(s->helper, a, t->to->job,
				   t->to->step == PMIXEV_STEP_ANY ? 0
								  : t->to->step,
				   signo, c->m.timeout_sec, on_answer, t) < 0)
			on_answer(t, NULL);
	}
	/* A checkpoint keeps its own time, and says how far it got. */
	if (c->m.timeout_sec && c->m.action != PMIXEV_PMIXD_CHECKPOINT &&
	    c->outstanding > 1 &&
	    (c->deadline = evtimer_new(agent_base(s->agent), on_deadline, c)))
		evtimer_add(c->deadline, &tv);
	settle(c);
}

/*
 * What the pmix side's reading never lets through, yet the codec cannot
 * know: NULL, or why root will not carry `m` out.
 */
static const char *incoherent(const struct layout *lay,
			      const struct pmixev_pmixd_jobctl *m)
{
	if (m->action == PMIXEV_PMIXD_CANCEL && m->nt)
		return "a cancel names a request, not targets";
	for (uint32_t i = 0; i < m->nt; i++) {
		const struct pmixev_pmixd_target *to = &m->t[i];

		if (to->tasks && (to->job != lay->step.job_id ||
				  to->step != lay->step.step_id))
			return "tasks of another step";
		if (to->tasks && (m->action == PMIXEV_PMIXD_RESTART ||
				  m->action == PMIXEV_PMIXD_PREEMPTIBLE))
			return "single ranks for a whole job's action";
		if (!to->tasks && m->action == PMIXEV_PMIXD_CHECKPOINT)
			return "a checkpoint of a whole step or job";
	}
	return NULL;
}

/* A JOBCTL frame of the pmix side. */
static int on_frame(void *ctx, struct pmixev_buf *body)
{
	struct jobctl *jc = ctx;
	struct pmixev_pmixd_jobctl m;
	struct ctl_call *c;
	const char *why;

	if (pmixev_pmixd_jobctl_unpack(body, &jc->s->pmixd_lim, &m) < 0)
		return -1;
	jc->requests++;
	if ((why = incoherent(&jc->s->lay, &m))) {
		PMIXEV_ERROR("job control: rank %u: %s refused: the pmix side "
			     "asks for %s",
			     m.rank, pmixev_pmixd_action_name(m.action), why);
		jc->refused++;
		send_done(jc->s->chan, m.id, PMIX_ERR_BAD_PARAM, why);
		return 0;
	}
	if (!carry_take(&jc->s->pmixd_budget, PMIXEV_PMIXD_JOBCTL)) {
		jc->refused++;
		send_done(jc->s->chan, m.id, PMIX_ERR_OUT_OF_RESOURCE,
			  "too many job-control requests in flight");
		return 0;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		pmixev_pmixd_budget_give(&jc->s->pmixd_budget,
					 PMIXEV_PMIXD_JOBCTL);
		jc->refused++;
		send_done(jc->s->chan, m.id, PMIX_ERR_NOMEM, "out of memory");
		return 0;
	}
	c->jc = jc;
	c->m = m;
	c->st = PMIX_SUCCESS;
	carry_out(c);
	return 0;
}

struct jobctl *jobctl_create(struct step *s)
{
	struct jobctl *jc = calloc(1, sizeof(*jc));

	if (!jc)
		return NULL;
	jc->s = s;
	chan_on(s->chan, PMIXEV_PMIXD_JOBCTL, on_frame, jc);
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
