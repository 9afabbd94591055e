/*
 * jobmgmt/tasksig.c - signals to the step's tasks on every node.
 */
#include "config.h"

#include "jobmgmt/tasksig.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/agent.h"
#include "base/pending.h"
#include "base/step.h"
#include "overlay/overlay.h"
#include "jobmgmt/ptable.h"
#include "jobmgmt/taskproc.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"

#define DEFAULT_SEC 10
#define PENDING_MAX 64

/* A request made from this node, in the set until every node asked has
 * answered or was lost, or its deadline passed. */
struct request {
	struct tasksig *ts;
	struct pending *p;
	uint32_t id, rank;
	bool *asked;	  /* per node: asked, not answered yet */
	unsigned waiting; /* nodes yet to answer */
	unsigned done, failed;
	int err;
	tasksig_fn fn;
	void *arg;
};

struct tasksig {
	struct step *s;
	unsigned npending;
	struct pending_set *requests;
};

/* What signalling this node's task(s) did. */
struct outcome {
	unsigned done, failed;
	int err;
};

static void signal_one(struct tasksig *ts, uint32_t rank, int signo,
		       struct outcome *o)
{
	int rc = taskproc_signal(ptable_pid(ts->s->ptable, rank), signo);

	if (rc == 0) {
		o->done++;
		return;
	}
	o->failed++;
	if (!o->err)
		o->err = -rc;
}

/* Signal `rank` (TASKSIG_ALL: every running task) of this node. */
static void signal_local(struct tasksig *ts, uint32_t rank, int signo,
			 struct outcome *o)
{
	const struct layout *lay = &ts->s->lay;

	if (rank != TASKSIG_ALL) {
		signal_one(ts, rank, signo, o);
		return;
	}
	for (uint32_t i = 0; i < layout_nlocal(lay); i++) {
		uint32_t r = lay->map.ranks[lay->nodeid][i];

		if (ptable_pid(ts->s->ptable, r))
			signal_one(ts, r, signo, o);
	}
}

static void request_free(void *req)
{
	struct request *rq = req;

	free(rq->asked);
	free(rq);
}

static void request_end(struct request *rq)
{
	rq->ts->npending--;
	pending_end(rq->p);
	rq->fn(rq->arg, rq->done, rq->failed, rq->err);
	request_free(rq);
}

static void add_outcome(struct request *rq, const struct outcome *o)
{
	rq->done += o->done;
	rq->failed += o->failed;
	if (!rq->err)
		rq->err = o->err;
}

/* The tasks `rq` targets on `node`, which cannot say it signalled them:
 * failed, with `err`. */
static void node_failed(struct request *rq, uint32_t node, int err)
{
	const struct layout *lay = &rq->ts->s->lay;

	add_outcome(rq,
		    &(struct outcome){.failed = rq->rank == TASKSIG_ALL
							? lay->map.count[node]
							: 1,
				      .err = err});
}

static bool request_waits(void *req, uint32_t node)
{
	return ((struct request *)req)->asked[node];
}

/* A node asked was lost (its tasks cannot be signalled: the request goes
 * on for the others), or the deadline passed (for all it still waits
 * on). */
static void request_fail(void *req, enum pmixev_result why, uint32_t lost)
{
	struct request *rq = req;
	const struct layout *lay = &rq->ts->s->lay;

	if (why == PMIXEV_ERR_UNREACH) {
		PMIXEV_INFO("job control: node %u lost before it said whether "
			    "it signalled its tasks; they count as not "
			    "signalled",
			    lost);
		rq->asked[lost] = false;
		rq->waiting--;
		node_failed(rq, lost, EHOSTUNREACH);
		if (rq->waiting)
			return;
		request_end(rq);
		return;
	}
	PMIXEV_INFO("job control: %u node(s) did not say in time whether "
		    "they signalled their tasks",
		    rq->waiting);
	for (uint32_t n = 0; n < lay->step.nnodes; n++)
		if (rq->asked[n])
			node_failed(rq, n, ETIMEDOUT);
	request_end(rq);
}

static int ask_node(struct tasksig *ts, struct request *rq, uint32_t node,
		    uint32_t rank, int signo)
{
	struct pmixev_buf b;
	int rc;

	pmixev_buf_init(&b);
	pmixev_buf_put_u32(&b, rq->id);
	pmixev_buf_put_u32(&b, (uint32_t)signo);
	pmixev_buf_put_u32(&b, rank);
	rc = pmixev_buf_ok(&b)
		     ? overlay_send(ts->s->ov, node, PMIXEV_MSG_TASKSIG_REQ,
				    b.data, b.len)
		     : -1;
	pmixev_buf_release(&b);
	return rc;
}

void tasksig_send(struct tasksig *ts, uint32_t rank, int signo,
		  unsigned timeout_sec, tasksig_fn fn, void *arg)
{
	const struct layout *lay = &ts->s->lay;
	struct outcome local = {0};
	struct request *rq = NULL;

	if (rank != TASKSIG_ALL && rank >= lay->map.ntasks) {
		fn(arg, 0, 1, ESRCH);
		return;
	}
	if (ts->npending == PENDING_MAX || !(rq = calloc(1, sizeof(*rq))) ||
	    !(rq->asked = calloc(lay->step.nnodes, sizeof(*rq->asked))) ||
	    !(rq->p = pending_add(ts->requests, rq, PENDING_NO_NODE,
				  timeout_sec ? timeout_sec : DEFAULT_SEC))) {
		if (rq)
			request_free(rq);
		fn(arg, 0, 1, EBUSY);
		return;
	}
	rq->ts = ts;
	rq->id = (uint32_t)pending_id(rq->p);
	rq->rank = rank;
	rq->fn = fn;
	rq->arg = arg;
	ts->npending++;
	for (uint32_t n = 0; n < lay->step.nnodes; n++) {
		if (rank != TASKSIG_ALL && lay->map.node_of[rank] != n)
			continue;
		if (n == lay->nodeid) {
			signal_local(ts, rank, signo, &local);
		} else if (ask_node(ts, rq, n, rank, signo) == 0) {
			rq->asked[n] = true;
			rq->waiting++;
		} else {
			node_failed(rq, n, EHOSTUNREACH);
		}
	}
	add_outcome(rq, &local);
	if (!rq->waiting)
		request_end(rq);
}

/* A node asks this one to signal its task(s). */
static void on_req(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct tasksig *ts = ctx;
	const struct layout *lay = &ts->s->lay;
	struct outcome o = {0};
	uint32_t id, signo, rank;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, buf, len);
	pmixev_buf_get_u32(&b, &id);
	pmixev_buf_get_u32(&b, &signo);
	pmixev_buf_get_u32(&b, &rank);
	if (src >= lay->step.nnodes || !pmixev_buf_ok(&b) ||
	    pmixev_buf_remaining(&b) || signo < 1 || signo > 64 ||
	    (rank != TASKSIG_ALL && (rank >= lay->map.ntasks ||
				     lay->map.node_of[rank] != lay->nodeid))) {
		PMIXEV_ERROR("job control: malformed task signal request from "
			     "node %u",
			     src);
		return;
	}
	signal_local(ts, rank, (int)signo, &o);
	pmixev_buf_init(&b);
	pmixev_buf_put_u32(&b, id);
	pmixev_buf_put_u32(&b, o.done);
	pmixev_buf_put_u32(&b, o.failed);
	pmixev_buf_put_u32(&b, (uint32_t)o.err);
	if (!pmixev_buf_ok(&b) ||
	    overlay_send(ts->s->ov, src, PMIXEV_MSG_TASKSIG_RESP, b.data,
			 b.len) < 0)
		PMIXEV_ERROR("job control: cannot tell node %u that %u task(s) "
			     "were signalled",
			     src, o.done);
	pmixev_buf_release(&b);
}

static bool same_id(void *req, const void *id)
{
	return ((struct request *)req)->id == *(const uint32_t *)id;
}

/* A node says how its part went. */
static void on_resp(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct tasksig *ts = ctx;
	uint32_t id, done, failed, err;
	struct pmixev_buf b;
	struct request *rq;

	pmixev_buf_reader(&b, buf, len);
	pmixev_buf_get_u32(&b, &id);
	pmixev_buf_get_u32(&b, &done);
	pmixev_buf_get_u32(&b, &failed);
	pmixev_buf_get_u32(&b, &err);
	if (src >= ts->s->lay.step.nnodes || !pmixev_buf_ok(&b) ||
	    pmixev_buf_remaining(&b) || done > ts->s->lay.map.ntasks ||
	    failed > ts->s->lay.map.ntasks || err > 4095) {
		PMIXEV_ERROR("job control: malformed task signal answer from "
			     "node %u",
			     src);
		return;
	}
	if (!(rq = pending_find(ts->requests, same_id, &id)) || !rq->asked[src])
		return; /* answered after the deadline, or not asked */
	rq->asked[src] = false;
	add_outcome(rq, &(struct outcome){.done = done,
					  .failed = failed,
					  .err = (int)err});
	if (!--rq->waiting)
		request_end(rq);
}

/* A node left the tree: the requests waiting on it go on without it. */
static void on_node_gone(void *ctx, uint32_t node, bool lost)
{
	struct tasksig *ts = ctx;

	pending_lost(ts->requests, node);
}

struct tasksig *tasksig_create(struct step *s)
{
	struct tasksig *ts = calloc(1, sizeof(*ts));

	if (!ts)
		return NULL;
	if (!(ts->requests = pending_set_create(agent_base(s->agent),
						request_fail, request_waits)) ||
	    step_on_node_gone(s, on_node_gone, ts) < 0) {
		pending_set_destroy(ts->requests, NULL);
		free(ts);
		return NULL;
	}
	ts->s = s;
	overlay_on(s->ov, PMIXEV_MSG_TASKSIG_REQ, on_req, ts);
	overlay_on(s->ov, PMIXEV_MSG_TASKSIG_RESP, on_resp, ts);
	return ts;
}

void tasksig_destroy(struct tasksig *ts)
{
	if (!ts)
		return;
	pending_set_destroy(ts->requests, request_free);
	free(ts);
}
