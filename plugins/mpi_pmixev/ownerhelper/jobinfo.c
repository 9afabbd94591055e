/*
 * ownerhelper/jobinfo.c - the step's shared cache of Slurm's answers: the
 * root (the node with the watcher) asks its owner helper, the other nodes
 * ask the root.
 */
#include "config.h"

#include "ownerhelper/jobinfo.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event2/event.h>
#include <slurm/slurm.h>
#include <slurm/slurm_errno.h>

#include "base/agent.h"
#include "overlay/overlay.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "ownerhelper/helper.h"

#define ENTRIES		  16   /* jobs and partitions held at once */
#define WAITERS_MAX	  1024 /* requests waiting for one answer */
#define ROOT_DEADLINE_SEC 40   /* the helper's 30 s, and the way there */

struct waiter {
	jobinfo_fn fn;
	void *arg;
	struct waiter *next;
};

struct jobinfo;

struct entry {
	struct jobinfo *ji;
	uint8_t op; /* 0: free */
	uint32_t job_id;
	bool have;	     /* an answer is held */
	uint64_t fetched_ms; /* when slurmctld gave it */
	uint64_t used_ms;
	pmix_status_t st;
	struct jobinfo_answer a;
	bool asking;
	uint32_t req_id; /* asking the root */
	struct event *deadline;
	struct waiter *waiters, **tail;
	unsigned nwaiting;
};

struct jobinfo {
	struct step *s;
	uint32_t own_job, root, next_id;
	uint64_t interval_ms, floor_ms;
	bool *lost;	 /* per node */
	bool root_ended; /* its part of the step ended before ours */
	bool asks_here;	 /* ... so this node asks slurmctld (said) */
	bool outage;	 /* said that slurmctld does not answer */
	uint64_t rpcs, asked, served; /* to slurmctld, to the root, answers */
	struct entry e[ENTRIES];
};

/* A node's request the root answers. */
struct remote {
	struct jobinfo *ji;
	uint32_t src, id;
};

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static const char *what(const struct entry *e, char *buf, size_t len)
{
	if (e->op == PMIXEV_OWNER_PARTITIONS)
		snprintf(buf, len, "the partitions");
	else
		snprintf(buf, len, "job %u", (unsigned)e->job_id);
	return buf;
}

/* Every waiter gets the entry's answer (or `st`, without one). */
static void finish(struct jobinfo *ji, struct entry *e, pmix_status_t st)
{
	struct waiter *w = e->waiters;
	bool have = e->have && st == e->st;

	e->asking = false;
	e->waiters = NULL;
	e->tail = &e->waiters;
	e->nwaiting = 0;
	if (e->deadline)
		evtimer_del(e->deadline);
	if (have)
		e->a.age_ms = (uint32_t)(now_ms() - e->fetched_ms);
	while (w) {
		struct waiter *next = w->next;

		ji->served++;
		w->fn(w->arg, st, have ? &e->a : NULL);
		free(w);
		w = next;
	}
}

/* Slurm's error number as what a query gets; the outage is said once. */
static pmix_status_t from_slurm(struct jobinfo *ji, const struct entry *e,
				int32_t rc)
{
	pmix_status_t st = helper_pmix_status(rc);
	char buf[64];

	if (st == PMIX_SUCCESS && ji->outage)
		PMIXEV_INFO("query: slurmctld answers again");
	if (st == PMIX_SUCCESS)
		ji->outage = false;
	if (st != PMIX_ERR_UNREACH)
		return st;
	if (!ji->outage)
		PMIXEV_ERROR("query: slurmctld did not answer about %s: %s; "
			     "queries that need it fail with PMIX_ERR_UNREACH "
			     "until it does",
			     what(e, buf, sizeof(buf)), slurm_strerror(rc));
	ji->outage = true;
	return st;
}

/* Keep what slurmctld said `age_ms` ago (unless an error). */
static void store(struct entry *e, pmix_status_t st,
		  const struct pmixev_owner_resp *r, uint32_t age_ms)
{
	if (st == PMIX_ERR_UNREACH)
		return;
	e->have = true;
	e->st = st;
	e->fetched_ms = now_ms() - age_ms;
	e->a.op = e->op;
	if (e->op == PMIXEV_OWNER_PARTITIONS)
		e->a.parts = r->parts;
	else
		e->a.job = r->job;
}

static void on_helper(void *arg, const struct pmixev_owner_resp *r)
{
	struct entry *e = arg;
	struct jobinfo *ji = e->ji;
	pmix_status_t st = PMIX_ERR_UNREACH;

	if (r)
		st = from_slurm(ji, e,
				e->op == PMIXEV_OWNER_PARTITIONS ? r->parts.rc
								 : r->job.rc);
	if (r)
		store(e, st, r, 0);
	finish(ji, e, st);
}

static void on_deadline(evutil_socket_t fd, short what_, void *arg)
{
	struct entry *e = arg;
	struct jobinfo *ji = e->ji;

	if (!e->asking)
		return;
	PMIXEV_ERROR("query: no answer from node %u (the tree's root) in "
		     "%d s",
		     ji->root, ROOT_DEADLINE_SEC);
	finish(ji, e, PMIX_ERR_UNREACH);
}

/* The helper that asks slurmctld from here: on the root (the node with
 * the watcher), or once the root's part of the step ended; NULL: ask the
 * root. */
static struct helper *asker(struct jobinfo *ji)
{
	if (ji->s->watcher)
		return ji->s->helper;
	if (!ji->root_ended)
		return NULL;
	if (!ji->asks_here)
		PMIXEV_INFO("query: node %u (the tree's root) ended its part "
			    "of the step; asking slurmctld from here",
			    ji->root);
	ji->asks_here = true;
	return ji->s->helper;
}

static void fetch(struct jobinfo *ji, struct entry *e, bool refresh);

static void ask_root(struct jobinfo *ji, struct entry *e, bool refresh)
{
	struct pmixev_jobinfo_req req = {
		.op = e->op, .job_id = e->job_id, .refresh = refresh};
	struct timeval tv = {ROOT_DEADLINE_SEC, 0};
	struct pmixev_buf b;
	char buf[64];
	int rc = -1;

	req.id = ++ji->next_id ? ji->next_id : ++ji->next_id;
	if (!e->deadline &&
	    !(e->deadline =
		      evtimer_new(agent_base(ji->s->agent), on_deadline, e))) {
		finish(ji, e, PMIX_ERR_NOMEM);
		return;
	}
	pmixev_buf_init(&b);
	if (pmixev_jobinfo_req_pack(&b, &req) == 0)
		rc = overlay_send(ji->s->ov, ji->root, PMIXEV_MSG_JOBINFO_REQ,
				  b.data, b.len);
	pmixev_buf_release(&b);
	if (rc < 0) {
		/* Its part of the step ended (or it is lost and the news
		 * is on its way): ask slurmctld from here. */
		PMIXEV_DEBUG(1,
			     "query: node %u (the tree's root) is unreachable "
			     "for a question about %s",
			     ji->root, what(e, buf, sizeof(buf)));
		ji->root_ended = true;
		if (asker(ji))
			fetch(ji, e, refresh);
		else
			finish(ji, e, PMIX_ERR_UNREACH);
		return;
	}
	e->req_id = req.id;
	evtimer_add(e->deadline, &tv);
	ji->asked++;
}

static void fetch(struct jobinfo *ji, struct entry *e, bool refresh)
{
	struct helper *h = asker(ji);

	e->asking = true;
	e->req_id = 0;
	if (!h) {
		ask_root(ji, e, refresh);
		return;
	}
	if (helper_request(h, (enum pmixev_owner_op)e->op, e->job_id, on_helper,
			   e) < 0) {
		finish(ji, e, PMIX_ERR_UNREACH);
		return;
	}
	ji->rpcs++;
}

/* The entry for (op, job), made if need be in a free or idle slot. */
static struct entry *entry_for(struct jobinfo *ji, uint8_t op, uint32_t job)
{
	struct entry *idle = NULL;

	for (size_t i = 0; i < ENTRIES; i++) {
		struct entry *e = &ji->e[i];

		if (e->op == op && e->job_id == job)
			return e;
		if (!e->asking && (!idle || !e->op ||
				   (idle->op && e->used_ms < idle->used_ms)))
			idle = e;
	}
	if (!idle)
		return NULL;
	idle->op = op;
	idle->job_id = job;
	idle->have = false;
	idle->waiters = NULL;
	idle->tail = &idle->waiters;
	idle->nwaiting = 0;
	return idle;
}

void jobinfo_get(struct jobinfo *ji, enum pmixev_owner_op op, uint32_t job_id,
		 bool refresh, jobinfo_fn fn, void *arg)
{
	uint64_t now = now_ms(), max = refresh ? ji->floor_ms : ji->interval_ms;
	struct entry *e;
	struct waiter *w;

	if (op == PMIXEV_OWNER_PARTITIONS)
		job_id = 0;
	else if (op == PMIXEV_OWNER_JOB_STATE || !job_id ||
		 job_id == ji->own_job)
		op = PMIXEV_OWNER_JOB_STATE, job_id = ji->own_job;
	if (!(e = entry_for(ji, (uint8_t)op, job_id))) {
		fn(arg, PMIX_ERR_OUT_OF_RESOURCE, NULL);
		return;
	}
	e->used_ms = now;
	if (e->have && now - e->fetched_ms < max) {
		ji->served++;
		e->a.age_ms = (uint32_t)(now - e->fetched_ms);
		fn(arg, e->st, &e->a);
		return;
	}
	if (e->nwaiting >= WAITERS_MAX || !(w = calloc(1, sizeof(*w)))) {
		fn(arg, PMIX_ERR_OUT_OF_RESOURCE, NULL);
		return;
	}
	w->fn = fn;
	w->arg = arg;
	*e->tail = w;
	e->tail = &w->next;
	e->nwaiting++;
	if (!e->asking)
		fetch(ji, e, refresh);
}

void jobinfo_feed(struct jobinfo *ji, const struct pmixev_owner_resp *resp)
{
	struct entry *e;

	if (!ji || resp->job.rc ||
	    !(e = entry_for(ji, PMIXEV_OWNER_JOB_STATE, ji->own_job)))
		return;
	if (!e->asking)
		store(e, PMIX_SUCCESS, resp, 0);
}

/* --- the root: a node's request ------------------------------------------ */

static void reply(void *arg, pmix_status_t st, const struct jobinfo_answer *a)
{
	struct remote *r = arg;
	static struct pmixev_jobinfo_resp m; /* agent thread only; large */
	struct pmixev_buf b;

	memset(&m, 0, sizeof(m));
	m.id = r->id;
	m.failed = st == PMIX_SUCCESS ? 0 : st;
	if (a) {
		m.age_ms = a->age_ms;
		m.resp.op = a->op;
		m.resp.job = a->job;
		m.resp.parts = a->parts;
	}
	pmixev_buf_init(&b);
	if (pmixev_jobinfo_resp_pack(&b, &m) < 0 ||
	    overlay_send(r->ji->s->ov, r->src, PMIXEV_MSG_JOBINFO_RESP, b.data,
			 b.len) < 0)
		PMIXEV_ERROR("query: cannot answer node %u (unreachable)",
			     r->src);
	pmixev_buf_release(&b);
	free(r);
}

static void on_req(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct jobinfo *ji = ctx;
	struct pmixev_jobinfo_req req;
	struct remote *r;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, buf, len);
	if (src >= ji->s->lay.step.nnodes ||
	    pmixev_jobinfo_req_unpack(&b, &req) < 0) {
		PMIXEV_ERROR("query: malformed request from node %u", src);
		return;
	}
	if (!(r = calloc(1, sizeof(*r)))) {
		PMIXEV_ERROR("query: cannot answer node %u: out of memory",
			     src);
		return;
	}
	*r = (struct remote){.ji = ji, .src = src, .id = req.id};
	jobinfo_get(ji, (enum pmixev_owner_op)req.op, req.job_id, req.refresh,
		    reply, r);
}

/* --- the other nodes: the root's answer ---------------------------------- */

/* A failure the root may report. */
static bool failure(int32_t st)
{
	return st == PMIX_ERR_NOT_FOUND || st == PMIX_ERR_NO_PERMISSIONS ||
	       st == PMIX_ERR_UNREACH || st == PMIX_ERR_OUT_OF_RESOURCE ||
	       st == PMIX_ERR_NOMEM;
}

static void on_resp(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct jobinfo *ji = ctx;
	static struct pmixev_jobinfo_resp m; /* agent thread only; large */
	struct pmixev_buf b;

	pmixev_buf_reader(&b, buf, len);
	if (pmixev_jobinfo_resp_unpack(&b, &m) < 0 ||
	    (m.failed && !failure(m.failed))) {
		PMIXEV_ERROR("query: malformed answer from node %u", src);
		return;
	}
	for (size_t i = 0; i < ENTRIES; i++) {
		struct entry *e = &ji->e[i];
		/* An answer of another kind than asked is no answer. */
		pmix_status_t st = m.failed		? m.failed
				   : m.resp.op == e->op ? PMIX_SUCCESS
							: PMIX_ERR_UNREACH;

		if (!e->asking || e->req_id != m.id || src != ji->root)
			continue;
		store(e, st, &m.resp, m.age_ms);
		finish(ji, e, st);
		return;
	}
	PMIXEV_DEBUG(1, "query: a late answer from node %u", src);
}

/*
 * The root is gone. Lost: the lowest node left is the new one (it takes
 * the watcher over). Ended: its tasks are done before ours, and so is its
 * helper; this node asks slurmctld itself from now on. Requests waiting
 * for the old root are asked again.
 */
static void on_gone(void *ctx, uint32_t node, bool lost)
{
	struct jobinfo *ji = ctx;

	if (node >= ji->s->lay.step.nnodes)
		return;
	ji->lost[node] |= lost;
	if (node != ji->root || ji->s->watcher)
		return;
	if (lost) {
		while (ji->root < ji->s->lay.step.nnodes && ji->lost[ji->root])
			ji->root++;
	} else {
		ji->root_ended = true;
	}
	for (size_t i = 0; i < ENTRIES; i++) {
		struct entry *e = &ji->e[i];

		if (!e->asking)
			continue;
		if (e->deadline)
			evtimer_del(e->deadline);
		fetch(ji, e, true);
	}
}

struct jobinfo *jobinfo_create(struct step *s)
{
	struct jobinfo *ji = calloc(1, sizeof(*ji));

	if (!ji || !(ji->lost = calloc(s->lay.step.nnodes, sizeof(bool))) ||
	    step_on_node_gone(s, on_gone, ji) < 0) {
		if (ji)
			free(ji->lost);
		free(ji);
		return NULL;
	}
	for (size_t i = 0; i < ENTRIES; i++)
		ji->e[i].ji = ji;
	ji->s = s;
	ji->own_job = s->lay.step.job_id;
	ji->interval_ms = (uint64_t)s->conf.watch_sec * 1000;
	ji->floor_ms = (uint64_t)s->conf.watch_min * 1000;
	overlay_on(s->ov, PMIXEV_MSG_JOBINFO_REQ, on_req, ji);
	overlay_on(s->ov, PMIXEV_MSG_JOBINFO_RESP, on_resp, ji);
	return ji;
}

void jobinfo_destroy(struct jobinfo *ji)
{
	if (!ji)
		return;
	if (ji->served)
		PMIXEV_INFO("query: %llu answer(s) from Slurm given here; "
			    "for them %llu request(s) to slurmctld, %llu to "
			    "the tree's root",
			    (unsigned long long)ji->served,
			    (unsigned long long)ji->rpcs,
			    (unsigned long long)ji->asked);
	for (size_t i = 0; i < ENTRIES; i++) {
		struct waiter *w = ji->e[i].waiters;

		while (w) {
			struct waiter *next = w->next;

			free(w);
			w = next;
		}
		if (ji->e[i].deadline)
			event_free(ji->e[i].deadline);
	}
	free(ji->lost);
	free(ji);
}
