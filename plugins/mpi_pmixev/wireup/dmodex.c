/*
 * wireup/dmodex.c - direct modex over the overlay (see dmodex.h): root's
 * half, on the agent thread. The requests this node sends come from the
 * pmix side as DMODEX frames and are answered with DMODEX_DONE; those it
 * serves for peers go to the pmix side as DMODEX_SERVE and come back as
 * DMODEX_SERVED. The data stays opaque: no PMIx here.
 */
#include "config.h"

#include "wireup/dmodex.h"

#include <stdlib.h>
#include <string.h>

#include "overlay/overlay.h"
#include "pmixd/carry.h"
#include "pmixd/chan.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_coll.h"
#include "pmixev_proto.h"
#include "base/agent.h"
#include "base/step.h"
#include "base/pending.h"
#include "wireup/dmodex_int.h"

void dmodex_request_end(struct request *r, enum pmixev_result result,
			const uint8_t *data, size_t ndata)
{
	pending_end(r->p);
	r->done(result, data, ndata, r->arg);
	free(r);
}

/* Its deadline passed, or the hosting node is lost. */
static void request_fail(void *req, enum pmixev_result why, uint32_t lost)
{
	struct request *r = req;

	if (why == PMIXEV_ERR_TIMEOUT)
		PMIXEV_ERROR("direct modex from node %u: no answer within the "
			     "timeout",
			     r->node);
	dmodex_request_end(r, why, NULL, 0);
}

/* Ask for `rank`'s data; `done` runs exactly once. */
static void dmodex_request(struct dmodex *d, uint32_t rank,
			   unsigned timeout_sec, dmodex_done_fn done, void *arg)
{
	struct pmixev_dmdx_req m = {.rank = rank, .timeout_sec = timeout_sec};
	struct request *r = NULL;
	struct pmixev_buf b;
	int rc;

	if (rank >= d->lay->step.ntasks) {
		done(PMIXEV_ERR_BAD_REQUEST, NULL, 0, arg);
		return;
	}
	if (!(r = calloc(1, sizeof(*r))) ||
	    !(r->p = pending_add(d->requests, r, d->lay->map.node_of[rank],
				 timeout_sec ? timeout_sec : d->timeout_sec))) {
		free(r);
		done(PMIXEV_ERR_NOMEM, NULL, 0, arg);
		return;
	}
	m.id = pending_id(r->p);
	r->node = d->lay->map.node_of[rank];
	r->done = done;
	r->arg = arg;
	snprintf(m.nspace, sizeof(m.nspace), "%s", d->lay->nspace);
	pmixev_buf_init(&b);
	rc = pmixev_dmdx_req_pack(&b, &m);
	if (rc == 0)
		rc = overlay_send(d->ov, r->node, PMIXEV_MSG_DMDX_REQ, b.data,
				  b.len);
	pmixev_buf_release(&b);
	if (rc < 0)
		dmodex_request_end(r, PMIXEV_ERR_UNREACH, NULL, 0);
}

/* Answer a peer's request `s` served here, and forget it. */
static void serve_answer(struct dmodex *d, struct serving *s,
			 enum pmixev_result result, const uint8_t *data,
			 size_t ndata)
{
	struct pmixev_dmdx_resp m = {
		.id = s->id, .result = result, .data = data, .ndata = ndata};
	struct serving **pp;
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	if (s->job || s->step)
		dmodex_xstep_answer(d, s, result, data, ndata);
	else if (pmixev_dmdx_resp_pack(&b, &m) < 0 ||
		 overlay_send(d->ov, s->requester, PMIXEV_MSG_DMDX_RESP, b.data,
			      b.len) < 0)
		PMIXEV_ERROR("direct modex: cannot answer node %u",
			     s->requester);
	pmixev_buf_release(&b);
	for (pp = &d->serving; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			d->nserving--;
			break;
		}
	free(s);
}

void dmodex_serve(struct dmodex *d, uint64_t id, uint32_t job, uint32_t step,
		  uint32_t requester, uint32_t rank)
{
	struct pmixev_pmixd_serve q;
	struct serving *s;
	struct pmixev_buf b;

	if (!(s = calloc(1, sizeof(*s))))
		return; /* the requester's deadline fails it */
	s->sid = ++d->last_sid;
	s->id = id;
	s->requester = requester;
	s->job = job;
	s->step = step;
	s->next = d->serving;
	d->serving = s;
	d->nserving++;
	/* The pmix side is the job's: it may never answer. */
	if (d->nserving > SERVING_MAX) {
		if (!d->unserved++)
			PMIXEV_ERROR("direct modex: the PMIx server process "
				     "leaves %d requests of other nodes "
				     "unanswered: more fail at once "
				     "(PMIX_ERR_OUT_OF_RESOURCE) and are "
				     "counted",
				     SERVING_MAX);
		serve_answer(d, s, PMIXEV_ERR_OVER_BUDGET, NULL, 0);
		return;
	}
	if (!layout_is_local(d->lay, rank)) {
		serve_answer(d, s, PMIXEV_ERR_NOT_FOUND, NULL, 0);
		return;
	}
	q = (struct pmixev_pmixd_serve){.sid = s->sid, .rank = rank};
	pmixev_buf_init(&b);
	chan_frame_begin(&b);
	if (pmixev_pmixd_serve_pack(&b, &q) < 0 ||
	    chan_send(d->chan, PMIXEV_PMIXD_DMODEX_SERVE, &b) < 0)
		serve_answer(d, s, PMIXEV_ERR_NOT_FOUND, NULL, 0);
	pmixev_buf_release(&b);
}

/* A peer asks for a local rank's data: ask the pmix side. */
static void on_req(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct dmodex *d = ctx;
	struct pmixev_dmdx_req m;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, buf, len);
	if (pmixev_dmdx_req_unpack(&b, &m) < 0 || src >= d->lay->step.nnodes) {
		PMIXEV_ERROR("direct modex: malformed request from node %u",
			     src);
		return;
	}
	/* Another namespace: not a local rank (NOT_FOUND). */
	dmodex_serve(d, m.id, 0, 0, src,
		     strcmp(m.nspace, d->lay->nspace) ? d->lay->step.ntasks
						      : m.rank);
}

/* DMODEX_SERVED: the pmix side's answer to a DMODEX_SERVE of ours. */
static int on_served(void *ctx, struct pmixev_buf *body)
{
	struct dmodex *d = ctx;
	struct pmixev_pmixd_data m;
	struct serving *s;

	if (pmixev_pmixd_data_unpack(body, &m) < 0)
		return -1;
	for (s = d->serving; s && s->sid != m.id; s = s->next)
		;
	if (!s)
		return -1; /* a request root never sent */
	serve_answer(d, s, m.result, m.data, m.ndata);
	return 0;
}

void dmodex_pmix_gone(struct dmodex *d)
{
	while (d->serving)
		serve_answer(d, d->serving, PMIXEV_ERR_NOT_FOUND, NULL, 0);
}

static void on_resp(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct dmodex *d = ctx;
	struct pmixev_dmdx_resp m;
	struct request *r;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, buf, len);
	if (pmixev_dmdx_resp_unpack(&b, &m) < 0) {
		PMIXEV_ERROR("direct modex: malformed answer from node %u",
			     src);
		return;
	}
	if ((r = pending_get(d->requests, m.id, src)))
		dmodex_request_end(r, m.result, m.data, m.ndata);
}

/* A node left the tree, which heals around it: only requests to it fail. */
static void on_node_gone(void *ctx, uint32_t node, bool lost)
{
	struct dmodex *d = ctx;

	pending_lost(d->requests, node);
}

/* A request of the pmix side's, until its answer goes back. */
struct frame_call {
	struct chan *chan;
	struct pmixev_pmixd_budget *budget;
	uint64_t id;
};

static void send_done(struct chan *l, uint64_t id, enum pmixev_result result,
		      const uint8_t *data, size_t ndata)
{
	struct pmixev_pmixd_data m = {
		.id = id, .result = result, .data = data, .ndata = ndata};

	if (chan_send_data(l, PMIXEV_PMIXD_DMODEX_DONE, &m) < 0 &&
	    chan_is_open(l))
		PMIXEV_ERROR(
			"direct modex: cannot answer the pmix side's call %llu "
			"(out of memory)",
			(unsigned long long)id);
}

/* The rank's data came (or the request failed): answer the pmix side. */
static void answer(enum pmixev_result result, const uint8_t *data, size_t ndata,
		   void *arg)
{
	struct frame_call *c = arg;

	send_done(c->chan, c->id, result, data, ndata);
	pmixev_pmixd_budget_give(c->budget, PMIXEV_PMIXD_DMODEX);
	free(c);
}

/* DMODEX: a local client wants a rank's data. */
static int on_dmodex(void *ctx, struct pmixev_buf *body)
{
	struct dmodex *d = ctx;
	struct pmixev_pmixd_dmodex m;
	struct frame_call *c;

	if (pmixev_pmixd_dmodex_unpack(body, d->lim, &m) < 0)
		return -1;
	if (!carry_take(d->budget, PMIXEV_PMIXD_DMODEX)) {
		send_done(d->chan, m.id, PMIXEV_ERR_OVER_BUDGET, NULL, 0);
		return 0;
	}
	if (!(c = malloc(sizeof(*c)))) {
		pmixev_pmixd_budget_give(d->budget, PMIXEV_PMIXD_DMODEX);
		send_done(d->chan, m.id, PMIXEV_ERR_NOMEM, NULL, 0);
		return 0;
	}
	c->chan = d->chan;
	c->budget = d->budget;
	c->id = m.id;
	if (pmixev_pmixd_dmodex_foreign(&m))
		dmodex_xstep_request(d, m.job, m.step, m.rank, m.timeout_sec,
				     answer, c);
	else
		dmodex_request(d, m.rank, m.timeout_sec, answer, c);
	return 0;
}

struct dmodex *dmodex_create(struct step *s)
{
	struct dmodex *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->s = s;
	d->xdata_max = (size_t)s->conf.overlay_mib << 20;
	if (!(d->requests = pending_set_create(agent_base(s->agent),
					       request_fail, NULL)) ||
	    dmodex_xstep_create(d) < 0 ||
	    step_on_node_gone(s, on_node_gone, d) < 0) {
		dmodex_xstep_destroy(d);
		if (d->requests)
			pending_set_destroy(d->requests, NULL);
		free(d);
		return NULL;
	}
	d->ov = s->ov;
	d->chan = s->chan;
	d->lim = &s->pmixd_lim;
	d->budget = &s->pmixd_budget;
	d->lay = &s->lay;
	d->timeout_sec = s->conf.timeout_sec;
	overlay_on(s->ov, PMIXEV_MSG_DMDX_REQ, on_req, d);
	overlay_on(s->ov, PMIXEV_MSG_DMDX_RESP, on_resp, d);
	chan_on(s->chan, PMIXEV_PMIXD_DMODEX, on_dmodex, d);
	chan_on(s->chan, PMIXEV_PMIXD_DMODEX_SERVED, on_served, d);
	return d;
}

void dmodex_destroy(struct dmodex *d)
{
	struct serving *s, *next;

	if (!d)
		return;
	if (d->unserved)
		PMIXEV_ERROR("direct modex: %llu request(s) of other nodes "
			     "refused: the PMIx server process left %d "
			     "unanswered",
			     (unsigned long long)d->unserved, SERVING_MAX);
	dmodex_xstep_destroy(d);
	pending_set_destroy(d->requests, free);
	for (s = d->serving; s; s = next) {
		next = s->next;
		free(s);
	}
	free(d);
}
