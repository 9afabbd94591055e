/*
 * jobmgmt/alloc.c - PMIx_Allocation_request carried out by slurmctld as
 * the job owner, through this node's owner helper (agent thread; see
 * alloc.h).
 */
#include "config.h"

#include "jobmgmt/alloc.h"
#include "jobmgmt/alloc_int.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <pmix_common.h>
#include <slurm/slurm.h>

#include "base/agent.h"
#include "base/step.h"
#include "ownerhelper/helper.h"
#include "pmixd/carry.h"
#include "pmixd/chan.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_spawn.h"
#include "slurm_compat.h"

static const char *dir_name(enum pmixev_pmixd_alloc_dir d)
{
	switch (d) {
	case PMIXEV_PMIXD_ALLOC_NEW:
		return "new";
	case PMIXEV_PMIXD_ALLOC_EXTEND:
		return "extend";
	case PMIXEV_PMIXD_ALLOC_RELEASE:
		return "release";
	case PMIXEV_PMIXD_ALLOC_REAQUIRE:
		return "reacquire";
	default:
		return "cancel";
	}
}

static time_t now_sec(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec;
}

/* Send ALLOC_DONE `d` (its id set); logs its outcome for the step. */
static void send_done(struct allocs *al, const struct pmixev_pmixd_alloc *m,
		      struct pmixev_pmixd_alloc_done *d)
{
	const struct layout *lay = &al->s->lay;
	struct pmixev_buf b;

	d->id = m->id;
	if (d->status == PMIX_SUCCESS)
		PMIXEV_INFO("allocation: step %u.%u rank %u: %s: done (job "
			    "%u%s%s)",
			    lay->step.job_id, lay->step.step_id, m->rank,
			    dir_name(m->directive), d->job,
			    d->nodes[0] ? ", nodes " : "", d->nodes);
	else
		PMIXEV_INFO("allocation: step %u.%u rank %u: %s refused (PMIx "
			    "status %d): %s",
			    lay->step.job_id, lay->step.step_id, m->rank,
			    dir_name(m->directive), (int)d->status, d->reason);
	if (d->status != PMIX_SUCCESS)
		al->refused++;
	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if ((pmixev_pmixd_alloc_done_pack(&b, d) < 0 ||
	     chan_send(al->s->chan, PMIXEV_PMIXD_ALLOC_DONE, &b) < 0) &&
	    chan_is_open(al->s->chan))
		PMIXEV_ERROR("allocation: step %u.%u: cannot answer the pmix "
			     "side's request %llu (out of memory)",
			     lay->step.job_id, lay->step.step_id,
			     (unsigned long long)m->id);
	pmixev_buf_release(&b);
}

/* Answer `m` with `st` and `why` alone. */
static void refuse(struct allocs *al, const struct pmixev_pmixd_alloc *m,
		   pmix_status_t st, const char *why)
{
	struct pmixev_pmixd_alloc_done d = {.status = st};

	snprintf(d.reason, sizeof(d.reason), "%s", why);
	send_done(al, m, &d);
}

/* Forget `c` (answered); its budget is given back. */
static void call_free(struct alloc_call *c)
{
	struct alloc_call **p = &c->al->live;

	while (*p && *p != c)
		p = &(*p)->next;
	if (*p)
		*p = c->next;
	if (c->tick)
		event_free(c->tick);
	pmixev_pmixd_budget_give(&c->al->s->pmixd_budget, PMIXEV_PMIXD_ALLOC);
	free(c);
}

void alloc_finish(struct alloc_call *c, struct pmixev_pmixd_alloc_done *d)
{
	send_done(c->al, &c->m, d);
	call_free(c);
}

void alloc_finish_st(struct alloc_call *c, pmix_status_t st, const char *why)
{
	refuse(c->al, &c->m, st, why);
	call_free(c);
}

/* A cancel in flight: a helper killed with the step's tasks (its
 * process tracking) is replaced once, outside them. */
struct cancel {
	struct allocs *al;
	uint32_t job;
	unsigned tries;
};

static void ask_cancel(struct cancel *k);

static void on_cancelled(void *arg, const struct pmixev_owner_resp *r)
{
	struct cancel *k = arg;

	if (!r && k->tries < 2) {
		ask_cancel(k);
		return;
	}
	if (!r || r->ctl.rc)
		PMIXEV_INFO("allocation: step %u.%u: cancelling job %u: %s",
			    k->al->s->lay.step.job_id,
			    k->al->s->lay.step.step_id, k->job,
			    r ? r->ctl.reason : "the owner helper failed");
	free(k);
}

static void ask_cancel(struct cancel *k)
{
	k->tries++;
	if (helper_control(k->al->s->helper, PMIXEV_CTL_CANCEL_JOB, k->job, 0,
			   0, 0, on_cancelled, k) < 0) {
		k->tries = 2;
		on_cancelled(k, NULL);
	}
}

/* Cancel job `job` as the owner (timeout, CANCEL, the step's end). */
static void cancel_job(struct allocs *al, uint32_t job)
{
	struct cancel *k = calloc(1, sizeof(*k));

	if (!k) {
		PMIXEV_ERROR("allocation: step %u.%u: cannot cancel job %u "
			     "(out of memory)",
			     al->s->lay.step.job_id, al->s->lay.step.step_id,
			     job);
		return;
	}
	k->al = al;
	k->job = job;
	ask_cancel(k);
}

static void remember(struct allocs *al, uint32_t job)
{
	if (al->njobs < JOBS_MAX)
		al->jobs[al->njobs++] = job;
	else
		PMIXEV_INFO("allocation: job %u: more than %d jobs granted to "
			    "the step here; it will not be cancelled at the "
			    "step's end",
			    job, JOBS_MAX);
}

void alloc_forget(struct allocs *al, uint32_t job)
{
	for (unsigned i = 0; i < al->njobs; i++)
		if (al->jobs[i] == job) {
			al->jobs[i] = al->jobs[--al->njobs];
			return;
		}
}

static void look(struct alloc_call *c);

static void on_tick(evutil_socket_t fd, short what, void *arg)
{
	look(arg);
}

/* How many nodes hostlist text `nodes` names (0 if it cannot tell). */
uint32_t alloc_count_nodes(const char *nodes)
{
	char **names = NULL;
	uint32_t n = 0;

	if (!nodes[0] ||
	    pmixev_slurm_expand_nodelist(nodes, 65536, &names, &n) < 0)
		return 0;
	for (uint32_t i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return n;
}

/* The new job's state: granted, over, or wait a second more. */
static void on_state(void *arg, const struct pmixev_owner_resp *r)
{
	struct alloc_call *c = arg;
	struct pmixev_pmixd_alloc_done d = {.job = c->job};
	uint32_t base = r ? r->job.state & JOB_STATE_BASE : JOB_PENDING;
	struct timeval sec = {1, 0};

	c->asking = false;
	if (c->cancelled) {
		cancel_job(c->al, c->job);
		alloc_forget(c->al, c->job);
		alloc_finish_st(
			c, PMIX_ERR_JOB_CANCELED,
			"cancelled: its PMIX_ALLOC_REQ_ID was cancelled");
		return;
	}
	if (r && !r->job.rc && base == JOB_RUNNING) {
		snprintf(d.nodes, sizeof(d.nodes), "%s", r->job.nodes);
		d.nnodes = alloc_count_nodes(r->job.nodes);
		d.ncpus = c->m.ncpus;
		d.seconds = r->job.time_limit < UINT32_MAX / 60
				    ? r->job.time_limit * 60
				    : 0;
		snprintf(d.queue, sizeof(d.queue), "%s", c->m.queue);
		alloc_finish(c, &d);
		return;
	}
	if (r && !r->job.rc && base > JOB_SUSPENDED) {
		alloc_forget(c->al, c->job);
		snprintf(d.reason, sizeof(d.reason),
			 "job %u ended before it ran%s%s", c->job,
			 r->job.reason[0] ? ": " : "", r->job.reason);
		d.status = PMIX_ERR_JOB_ALLOC_FAILED;
		alloc_finish(c, &d);
		return;
	}
	if (now_sec() >= c->deadline) {
		cancel_job(c->al, c->job);
		alloc_forget(c->al, c->job);
		snprintf(d.reason, sizeof(d.reason),
			 "job %u did not start within the request's timeout "
			 "(cancelled)%s%s",
			 c->job, r && r->job.reason[0] ? ": " : "",
			 r ? r->job.reason : "");
		d.status = PMIX_ERR_TIMEOUT;
		d.job = 0;
		alloc_finish(c, &d);
		return;
	}
	if (!c->tick &&
	    !(c->tick = evtimer_new(agent_base(c->al->s->agent), on_tick, c))) {
		cancel_job(c->al, c->job);
		alloc_forget(c->al, c->job);
		alloc_finish_st(c, PMIX_ERR_NOMEM, "out of memory");
		return;
	}
	evtimer_add(c->tick, &sec);
}

/* Ask for the new job's state (at most once a second). */
static void look(struct alloc_call *c)
{
	c->asking = true;
	if (helper_request(c->al->s->helper, PMIXEV_OWNER_OTHER_JOB, c->job,
			   on_state, c) < 0)
		on_state(c, NULL);
}

static void on_new(void *arg, const struct pmixev_owner_resp *r)
{
	struct alloc_call *c = arg;
	char why[PMIXEV_MSG_TEXT_MAX];
	pmix_status_t st = r ? helper_pmix_status(r->ctl.rc) : PMIX_ERR_UNREACH;

	c->asking = false;
	if (!r || r->ctl.rc || !r->new_job) {
		snprintf(why, sizeof(why), "Slurm refused the allocation: %s",
			 r ? r->ctl.reason : "the owner helper failed");
		/* Whatever Slurm's reason, unless it could not be asked. */
		alloc_finish_st(
			c,
			st == PMIX_ERR_UNREACH ? st : PMIX_ERR_JOB_ALLOC_FAILED,
			why);
		return;
	}
	c->job = r->new_job;
	/* 5.x's PMIX_ALLOC_CHILD_SEP: the job outlives the step. */
	if (!(c->m.flags & PMIXEV_PMIXD_ALLOC_CHILD_SEP))
		remember(c->al, c->job);
	look(c);
}

/* PMIX_ALLOC_NEW: the helper's request from `m`. 0, or -1 with `why`. */
static int new_req(const struct step *s, const struct pmixev_pmixd_alloc *m,
		   struct pmixev_owner_alloc *a, char *why, size_t len)
{
	a->nnodes = m->nnodes;
	a->ncpus = m->ncpus;
	a->mem_mb = m->mem_mb;
	a->minutes = m->seconds ? (m->seconds + 59) / 60 : 0;
	snprintf(a->name, sizeof(a->name), "%u.pmixev-alloc",
		 s->lay.step.job_id);
	if (snprintf(a->partition, sizeof(a->partition), "%s", m->queue) >=
		    (int)sizeof(a->partition) ||
	    snprintf(a->nodes, sizeof(a->nodes), "%s", m->nodes) >=
		    (int)sizeof(a->nodes) ||
	    snprintf(a->exclude, sizeof(a->exclude), "%s", m->exclude) >=
		    (int)sizeof(a->exclude)) {
		snprintf(why, len, "a queue name or node list too long");
		return -1;
	}
	/* The helper's codec takes Slurm names only (a refused request
	 * would cost the helper its channel). */
	if (strspn(a->partition, "abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-") !=
	    strlen(a->partition)) {
		snprintf(why, len,
			 "PMIX_ALLOC_QUEUE names no Slurm partition (letters, "
			 "digits and \"._-\")");
		return -1;
	}
	if (!m->nnodes && !m->ncpus)
		a->nnodes = 1;
	return 0;
}

static void start_new(struct alloc_call *c)
{
	struct step *s = c->al->s;
	struct pmixev_owner_alloc a = {0};
	unsigned sec = c->m.timeout_ms ? (c->m.timeout_ms + 999) / 1000
				       : s->conf.timeout_sec;
	char why[PMIXEV_MSG_TEXT_MAX];

	if (new_req(s, &c->m, &a, why, sizeof(why)) < 0) {
		alloc_finish_st(c, PMIX_ERR_BAD_PARAM, why);
		return;
	}
	c->deadline = now_sec() + (time_t)(sec ? sec : 1);
	c->asking = true;
	if (helper_alloc(s->helper, PMIXEV_OWNER_ALLOC_NEW, 0, &a, on_new, c) <
	    0)
		on_new(c, NULL);
}

unsigned allocs_cancel_local(struct allocs *al, const char *reqid)
{
	unsigned n = 0;

	if (!reqid[0])
		return 0;
	for (struct alloc_call *c = al->live; c; c = c->next)
		if (c->m.directive == PMIXEV_PMIXD_ALLOC_NEW &&
		    !strcmp(c->m.reqid, reqid) && !c->cancelled) {
			c->cancelled = true;
			n++;
			/* Waiting for its next look: end it now. */
			if (!c->asking && c->tick) {
				evtimer_del(c->tick);
				look(c);
			}
		}
	return n;
}

/* PMIX_ALLOC_REQ_CANCEL: this node's NEW requests with that id. */
static void cancel_reqs(struct allocs *al, const struct pmixev_pmixd_alloc *m)
{
	if (allocs_cancel_local(al, m->reqid))
		refuse(al, m, PMIX_SUCCESS, "");
	else
		refuse(al, m, PMIX_ERR_NOT_FOUND,
		       "no allocation request with that PMIX_ALLOC_REQ_ID is "
		       "pending on this node");
}

static void carry_out(struct allocs *al, const struct pmixev_pmixd_alloc *m)
{
	struct alloc_call *c;

	if (!al->s->conf.alloc) {
		refuse(al, m, PMIX_ERR_NOT_SUPPORTED,
		       "allocation requests are turned off for this step "
		       "(PMIxevAlloc=no)");
		return;
	}
	if (m->directive == PMIXEV_PMIXD_ALLOC_REAQUIRE) {
		refuse(al, m, PMIX_ERR_NOT_SUPPORTED,
		       "Slurm cannot lend resources, so none can be "
		       "reacquired");
		return;
	}
	if (m->directive == PMIXEV_PMIXD_ALLOC_CANCEL) {
		cancel_reqs(al, m);
		return;
	}
	if (!carry_take(&al->s->pmixd_budget, PMIXEV_PMIXD_ALLOC)) {
		refuse(al, m, PMIX_ERR_OUT_OF_RESOURCE,
		       "too many allocation requests in flight on this node");
		return;
	}
	if (!(c = calloc(1, sizeof(*c)))) {
		pmixev_pmixd_budget_give(&al->s->pmixd_budget,
					 PMIXEV_PMIXD_ALLOC);
		refuse(al, m, PMIX_ERR_NOMEM, "out of memory");
		return;
	}
	c->al = al;
	c->m = *m;
	c->next = al->live;
	al->live = c;
	if (m->directive == PMIXEV_PMIXD_ALLOC_NEW)
		start_new(c);
	else if (m->directive == PMIXEV_PMIXD_ALLOC_EXTEND)
		alloc_extend_start(c);
	else
		alloc_release_start(c);
}

/* An ALLOC frame of the pmix side. */
static int on_frame(void *ctx, struct pmixev_buf *body)
{
	struct allocs *al = ctx;
	struct pmixev_pmixd_alloc *m = malloc(sizeof(*m));

	if (!m)
		return 0; /* the request stays unanswered: its timeout */
	if (pmixev_pmixd_alloc_unpack(body, &al->s->pmixd_lim, m) < 0) {
		free(m);
		return -1;
	}
	al->requests++;
	carry_out(al, m);
	free(m);
	return 0;
}

struct allocs *allocs_create(struct step *s)
{
	struct allocs *al = calloc(1, sizeof(*al));

	if (!al)
		return NULL;
	al->s = s;
	chan_on(s->chan, PMIXEV_PMIXD_ALLOC, on_frame, al);
	return al;
}

void allocs_step_ended(struct allocs *al)
{
	if (!al)
		return;
	for (unsigned i = 0; i < al->njobs; i++) {
		PMIXEV_INFO("allocation: step %u.%u ended: cancelling job %u "
			    "it was granted",
			    al->s->lay.step.job_id, al->s->lay.step.step_id,
			    al->jobs[i]);
		cancel_job(al, al->jobs[i]);
	}
	al->njobs = 0;
}

void allocs_destroy(struct allocs *al)
{
	if (!al)
		return;
	while (al->live)
		call_free(al->live);
	if (al->requests)
		PMIXEV_INFO("allocation: %llu request(s), %llu of them refused "
			    "or failed",
			    (unsigned long long)al->requests,
			    (unsigned long long)al->refused);
	free(al);
}
