/*
 * jobmgmt/tasksig.c - signals to the step's tasks on every node.
 */
#include "config.h"

#include "jobmgmt/tasksig.h"

#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>

#include <event2/event.h>

#include "base/agent.h"
#include "base/step.h"
#include "overlay/overlay.h"
#include "jobmgmt/ptable.h"
#include "jobmgmt/taskproc.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"

#define DEFAULT_SEC 10
#define PENDING_MAX 64

struct request {
	struct tasksig *ts;
	uint32_t id;
	unsigned waiting; /* nodes yet to answer */
	unsigned done, failed;
	int err;
	struct event *deadline;
	tasksig_fn fn;
	void *arg;
	struct request *next;
};

struct tasksig {
	struct step *s;
	uint32_t next_id;
	unsigned npending;
	struct request *pending;
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

static void request_end(struct request *rq)
{
	struct tasksig *ts = rq->ts;

	for (struct request **p = &ts->pending; *p; p = &(*p)->next)
		if (*p == rq) {
			*p = rq->next;
			break;
		}
	ts->npending--;
	if (rq->deadline)
		event_free(rq->deadline);
	rq->fn(rq->arg, rq->done, rq->failed, rq->err);
	free(rq);
}

static void add_outcome(struct request *rq, const struct outcome *o)
{
	rq->done += o->done;
	rq->failed += o->failed;
	if (!rq->err)
		rq->err = o->err;
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct request *rq = arg;

	PMIXEV_INFO("job control: %u node(s) did not say in time whether "
		    "they signalled their tasks",
		    rq->waiting);
	rq->failed += rq->waiting;
	if (!rq->err)
		rq->err = ETIMEDOUT;
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
	struct timeval tv = {(time_t)(timeout_sec ? timeout_sec : DEFAULT_SEC),
			     0};
	struct outcome local = {0};
	struct request *rq;

	if (rank != TASKSIG_ALL && rank >= lay->map.ntasks) {
		fn(arg, 0, 1, ESRCH);
		return;
	}
	if (ts->npending == PENDING_MAX || !(rq = calloc(1, sizeof(*rq)))) {
		fn(arg, 0, 1, EBUSY);
		return;
	}
	*rq = (struct request){.ts = ts,
			       .id = ++ts->next_id,
			       .fn = fn,
			       .arg = arg,
			       .next = ts->pending};
	ts->pending = rq;
	ts->npending++;
	for (uint32_t n = 0; n < lay->step.nnodes; n++) {
		if (rank != TASKSIG_ALL && lay->map.node_of[rank] != n)
			continue;
		if (n == lay->nodeid)
			signal_local(ts, rank, signo, &local);
		else if (ask_node(ts, rq, n, rank, signo) == 0)
			rq->waiting++;
		else
			add_outcome(rq, &(struct outcome){.failed = 1,
							  .err = EHOSTUNREACH});
	}
	add_outcome(rq, &local);
	if (rq->waiting && (rq->deadline = evtimer_new(agent_base(ts->s->agent),
						       on_deadline, rq))) {
		evtimer_add(rq->deadline, &tv);
		return;
	}
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
	for (rq = ts->pending; rq && rq->id != id; rq = rq->next)
		;
	if (!rq || !rq->waiting)
		return; /* answered after the deadline */
	add_outcome(rq, &(struct outcome){.done = done,
					  .failed = failed,
					  .err = (int)err});
	if (!--rq->waiting)
		request_end(rq);
}

struct tasksig *tasksig_create(struct step *s)
{
	struct tasksig *ts = calloc(1, sizeof(*ts));

	if (!ts)
		return NULL;
	ts->s = s;
	overlay_on(s->ov, PMIXEV_MSG_TASKSIG_REQ, on_req, ts);
	overlay_on(s->ov, PMIXEV_MSG_TASKSIG_RESP, on_resp, ts);
	return ts;
}

void tasksig_destroy(struct tasksig *ts)
{
	if (!ts)
		return;
	while (ts->pending) {
		struct request *rq = ts->pending;

		ts->pending = rq->next;
		if (rq->deadline)
			event_free(rq->deadline);
		free(rq);
	}
	free(ts);
}
