/*
 * jobmgmt/ckpt.c - checkpoint requests to the step's ranks, and their
 * completions back to the requester's node.
 */
#include "config.h"

#include "jobmgmt/ckpt.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/agent.h"
#include "base/pending.h"
#include "base/step.h"
#include "overlay/overlay.h"
#include "events/inject.h"
#include "jobmgmt/ptable.h"
#include "jobmgmt/taskproc.h"
#include "pmixd/chan.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"

#define DEFAULT_SEC 60
#define WATCH_MAX   64 /* requests this node's ranks may answer */

/* A request made from this node, in the set until its target ranks
 * completed, a node with one that has not was lost, or its deadline
 * passed. */
struct request {
	struct ckpt *k;
	bool used;
	uint32_t serial;
	struct ckpt_req req;
	unsigned total, done;
	uint8_t *seen; /* [ntasks]: completed */
	struct pending *p;
	ckpt_fn fn;
	void *arg;
};

/* A request this node's ranks were given, until they complete. */
struct watch {
	bool used;
	uint32_t origin, serial, rank;
	char id[CKPT_ID_MAX];
	time_t expires;
};

struct ckpt {
	struct step *s;
	struct pending_set *requests;
	uint32_t next_serial;
	struct request rq[CKPT_MAX];
	struct watch w[WATCH_MAX];
};

/* --- the requester's node: one answer per request ----------------------- */

/* How a request ended, for the log (as PMIx 4.2's PMIx_Error_string). */
static const char *end_name(pmix_status_t st)
{
	switch (st) {
	case PMIX_SUCCESS:
		return "SUCCESS";
	case PMIX_ERR_TIMEOUT:
		return "TIMEOUT";
	case PMIX_ERR_UNREACH:
		return "UNREACHABLE";
	case PMIX_ERR_JOB_CANCELED:
		return "JOB CANCELED";
	case PMIX_ERR_NOMEM:
		return "NO-MEM";
	default:
		return "ERROR";
	}
}

static void finish(struct request *rq, pmix_status_t st)
{
	PMIXEV_INFO("job control: checkpoint '%s': %u of %u rank(s) "
		    "completed: %s",
		    rq->req.id, rq->done, rq->total, end_name(st));
	pending_end(rq->p);
	rq->p = NULL;
	free(rq->seen);
	rq->used = false;
	rq->fn(rq->arg, st, rq->done, rq->total);
}

/* Does `req` wait for a rank of `node` to complete? */
static bool request_waits(void *req, uint32_t node)
{
	const struct request *rq = req;
	const struct layout *lay = &rq->k->s->lay;

	if (rq->req.rank != CKPT_ALL)
		return lay->map.node_of[rq->req.rank] == node &&
		       !rq->seen[rq->req.rank];
	for (uint32_t i = 0; i < lay->map.count[node]; i++)
		if (!rq->seen[lay->map.ranks[node][i]])
			return true;
	return false;
}

/* The deadline passed, or a node with ranks yet to complete was lost:
 * they never will. */
static void request_fail(void *req, enum pmixev_result why, uint32_t lost)
{
	struct request *rq = req;

	if (why == PMIXEV_ERR_UNREACH) {
		PMIXEV_ERROR("checkpoint '%s': node %u lost before its ranks "
			     "completed",
			     rq->req.id, lost);
		finish(rq, PMIX_ERR_UNREACH);
		return;
	}
	finish(rq, PMIX_ERR_TIMEOUT);
}

/* Rank `rank` (on node `node`) completed request `serial`. */
static void origin_done(struct ckpt *k, uint32_t node, uint32_t serial,
			uint32_t rank)
{
	const struct layout *lay = &k->s->lay;

	if (rank >= lay->map.ntasks || lay->map.node_of[rank] != node)
		return;
	for (size_t i = 0; i < CKPT_MAX; i++) {
		struct request *rq = &k->rq[i];

		if (!rq->used || rq->serial != serial || rq->seen[rank] ||
		    (rq->req.rank != CKPT_ALL && rq->req.rank != rank))
			continue;
		rq->seen[rank] = 1;
		if (++rq->done == rq->total)
			finish(rq, PMIX_SUCCESS);
		return;
	}
}

/* --- every node: the request to its ranks, their completions ------------ */

static void add_watch(struct ckpt *k, uint32_t origin, uint32_t serial,
		      uint32_t rank, const char *id, unsigned timeout_sec)
{
	time_t now = time(NULL);
	struct watch *w = &k->w[0];

	for (size_t i = 0; i < WATCH_MAX; i++) {
		if (!k->w[i].used || k->w[i].expires < now) {
			w = &k->w[i];
			break;
		}
		if (k->w[i].expires < w->expires)
			w = &k->w[i];
	}
	if (w->used && w->expires >= now)
		PMIXEV_INFO("job control: more than %d checkpoints at once "
			    "on this node: completions of the oldest are no "
			    "longer counted",
			    WATCH_MAX);
	*w = (struct watch){.used = true,
			    .origin = origin,
			    .serial = serial,
			    .rank = rank,
			    .expires = now + (time_t)timeout_sec + 5};
	snprintf(w->id, sizeof(w->id), "%s", id);
}

/* Give this node's target ranks the request: the event, or the signal. */
static void deliver(struct ckpt *k, uint32_t origin, uint32_t serial,
		    uint32_t rank, int signo, const char *id,
		    unsigned timeout_sec)
{
	const struct layout *lay = &k->s->lay;
	struct pmixev_pmixd_inject in = {.kind = PMIXEV_PMIXD_INJECT_CKPT,
					 .origin = lay->nodeid};
	char source[PMIXEV_NODENAME_MAX + 8];

	add_watch(k, origin, serial, rank, id, timeout_sec);
	if (signo) {
		unsigned sent = 0;

		for (uint32_t i = 0; i < layout_nlocal(lay); i++) {
			uint32_t r = lay->map.ranks[lay->nodeid][i];

			if ((rank == CKPT_ALL || rank == r) &&
			    taskproc_signal(ptable_pid(k->s->ptable, r),
					    signo) == 0)
				sent++;
		}
		PMIXEV_DEBUG(1, "checkpoint '%s': signal %d to %u task(s)", id,
			     signo, sent);
		return;
	}
	in.ev.rank = rank == CKPT_ALL ? PMIXEV_EVENT_NO_RANK : rank;
	snprintf(in.ev.text, sizeof(in.ev.text), "%s", id);
	snprintf(source, sizeof(source), "stepd@%s", lay->nodes[lay->nodeid]);
	inject_send(k->s->inject, &in, source);
}

/* A CKPT_COMPLETE frame: a local rank completed a checkpoint (the one it
 * names, or any it was given): to each request's node. */
static int on_complete(void *ctx, struct pmixev_buf *body)
{
	struct ckpt *k = ctx;
	const struct layout *lay = &k->s->lay;
	struct pmixev_pmixd_ckpt_done c;
	time_t now = time(NULL);

	if (pmixev_pmixd_ckpt_done_unpack(body, &k->s->pmixd_lim, &c) < 0)
		return -1;
	for (size_t i = 0; i < WATCH_MAX; i++) {
		struct watch *w = &k->w[i];
		struct pmixev_buf b;

		if (!w->used || w->expires < now ||
		    (w->rank != CKPT_ALL && w->rank != c.rank) ||
		    (c.has_id && strcmp(w->id, c.id)))
			continue;
		if (w->origin == lay->nodeid) {
			origin_done(k, w->origin, w->serial, c.rank);
			continue;
		}
		pmixev_buf_init(&b);
		pmixev_buf_put_u32(&b, w->serial);
		pmixev_buf_put_u32(&b, c.rank);
		if (!pmixev_buf_ok(&b) ||
		    overlay_send(k->s->ov, w->origin, PMIXEV_MSG_CKPT_DONE,
				 b.data, b.len) < 0)
			PMIXEV_ERROR("checkpoint '%s': cannot tell node %u "
				     "that rank %u completed",
				     w->id, w->origin, c.rank);
		pmixev_buf_release(&b);
	}
	return 0;
}

/* --- the overlay -------------------------------------------------------- */

static void on_req(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct ckpt *k = ctx;
	const struct layout *lay = &k->s->lay;
	uint32_t serial, rank, signo, timeout;
	char id[CKPT_ID_MAX];
	struct pmixev_buf b;

	pmixev_buf_reader(&b, buf, len);
	pmixev_buf_get_u32(&b, &serial);
	pmixev_buf_get_u32(&b, &rank);
	pmixev_buf_get_u32(&b, &signo);
	pmixev_buf_get_u32(&b, &timeout);
	pmixev_buf_get_str(&b, id, sizeof(id));
	if (src >= lay->step.nnodes || !pmixev_buf_ok(&b) ||
	    pmixev_buf_remaining(&b) || signo > 64 || timeout > 86400 ||
	    (rank != CKPT_ALL && !layout_is_local(lay, rank))) {
		PMIXEV_ERROR("job control: malformed checkpoint request from "
			     "node %u",
			     src);
		return;
	}
	deliver(k, src, serial, rank, (int)signo, id, timeout);
}

static void on_done(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct ckpt *k = ctx;
	uint32_t serial, rank;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, buf, len);
	pmixev_buf_get_u32(&b, &serial);
	pmixev_buf_get_u32(&b, &rank);
	if (src >= k->s->lay.step.nnodes || !pmixev_buf_ok(&b) ||
	    pmixev_buf_remaining(&b)) {
		PMIXEV_ERROR("job control: malformed checkpoint completion "
			     "from node %u",
			     src);
		return;
	}
	origin_done(k, src, serial, rank);
}

static int ask_node(struct ckpt *k, const struct request *rq, uint32_t node)
{
	struct pmixev_buf b;
	int rc;

	pmixev_buf_init(&b);
	pmixev_buf_put_u32(&b, rq->serial);
	pmixev_buf_put_u32(&b, rq->req.rank);
	pmixev_buf_put_u32(&b, (uint32_t)rq->req.signo);
	pmixev_buf_put_u32(&b, rq->req.timeout_sec);
	pmixev_buf_put_str(&b, rq->req.id);
	rc = pmixev_buf_ok(&b)
		     ? overlay_send(k->s->ov, node, PMIXEV_MSG_CKPT_REQ, b.data,
				    b.len)
		     : -1;
	pmixev_buf_release(&b);
	return rc;
}

void ckpt_start(struct ckpt *k, const struct ckpt_req *req, ckpt_fn fn,
		void *arg)
{
	const struct layout *lay = &k->s->lay;
	struct request *rq = NULL;

	for (size_t i = 0; i < CKPT_MAX && !rq; i++)
		if (!k->rq[i].used)
			rq = &k->rq[i];
	if (!rq) {
		fn(arg, PMIX_ERR_OUT_OF_RESOURCE, 0, 0);
		return;
	}
	*rq = (struct request){.k = k,
			       .used = true,
			       .serial = ++k->next_serial,
			       .req = *req,
			       .total = req->rank == CKPT_ALL ? lay->map.ntasks
							      : 1,
			       .fn = fn,
			       .arg = arg};
	if (!rq->req.timeout_sec)
		rq->req.timeout_sec = DEFAULT_SEC;
	if (!(rq->seen = calloc(lay->map.ntasks, 1)) ||
	    !(rq->p = pending_add(k->requests, rq, PENDING_NO_NODE,
				  rq->req.timeout_sec))) {
		finish(rq, PMIX_ERR_NOMEM);
		return;
	}
	for (uint32_t n = 0; n < lay->step.nnodes; n++) {
		if (req->rank == CKPT_ALL ? !lay->map.count[n]
					  : lay->map.node_of[req->rank] != n)
			continue;
		if (n == lay->nodeid)
			deliver(k, n, rq->serial, req->rank, req->signo,
				req->id, rq->req.timeout_sec);
		else if (ask_node(k, rq, n) < 0) {
			PMIXEV_ERROR("checkpoint '%s': node %u unreachable",
				     req->id, n);
			finish(rq, PMIX_ERR_UNREACH);
			return;
		}
	}
}

unsigned ckpt_cancel_local(struct ckpt *k, const char *ctl_id)
{
	unsigned n = 0;

	for (size_t i = 0; i < CKPT_MAX; i++)
		if (k->rq[i].used && ctl_id[0] &&
		    !strcmp(k->rq[i].req.ctl_id, ctl_id)) {
			finish(&k->rq[i], PMIX_ERR_JOB_CANCELED);
			n++;
		}
	return n;
}

/* --- create, destroy (slurmstepd's thread) ------------------------------ */

/* A node left the tree: the requests waiting on its ranks fail. */
static void on_node_gone(void *ctx, uint32_t node, bool lost)
{
	struct ckpt *k = ctx;

	pending_lost(k->requests, node);
}

struct ckpt *ckpt_create(struct step *s)
{
	struct ckpt *k = calloc(1, sizeof(*k));

	if (!k ||
	    !(k->requests = pending_set_create(agent_base(s->agent),
					       request_fail, request_waits)) ||
	    step_on_node_gone(s, on_node_gone, k) < 0) {
		if (k)
			pending_set_destroy(k->requests, NULL);
		free(k);
		return NULL;
	}
	k->s = s;
	overlay_on(s->ov, PMIXEV_MSG_CKPT_REQ, on_req, k);
	overlay_on(s->ov, PMIXEV_MSG_CKPT_DONE, on_done, k);
	chan_on(s->chan, PMIXEV_PMIXD_CKPT_COMPLETE, on_complete, k);
	return k;
}

void ckpt_destroy(struct ckpt *k)
{
	if (!k)
		return;
	pending_set_destroy(k->requests, NULL);
	for (size_t i = 0; i < CKPT_MAX; i++)
		if (k->rq[i].used)
			free(k->rq[i].seen);
	free(k);
}
