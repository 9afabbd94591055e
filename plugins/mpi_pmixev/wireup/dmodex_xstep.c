/*
 * wireup/dmodex_xstep.c - direct modex across the steps of a spawn family
 * (doc/spawn.md §5.2): root's half, on the agent thread.
 *
 * A local client's request for a rank of a family member (DMODEX naming
 * its job and step) goes to the node that hosts the rank, found in the
 * member's layout (pmixd/nspaces.h), as XSTEP DMODEX_REQ through srun;
 * that step's stepd serves it as it serves its own nodes (DMODEX_SERVE
 * to its pmix side, under the same budget) and answers DMODEX_RESP to
 * the requester's step and node from the header. A request waits at most
 * its timeout; one for a step this node has no layout of fails at once.
 * A request from a step whose layout has not come here yet (a child's
 * rank may ask before its LAYOUT reached every parent node) waits for
 * it, at most its timeout, at most SERVING_MAX at once; its source is
 * checked then.
 * Only pmixev's XSTEP codecs read the frames; the data stays opaque.
 */
#include "config.h"

#include <stdlib.h>

#include "base/agent.h"
#include "pmixd/nspaces.h"
#include "pmixev_log.h"
#include "pmixev_xstep.h"
#include "wireup/dmodex_int.h"
#include "overlay/xstep.h"

static void dropped(struct dmodex *d, const struct pmixev_xstep_hdr *h,
		    const char *what, const char *why)
{
	if (pmixev_log_worth(++d->xdropped))
		PMIXEV_ERROR("direct modex: step %s: dropping a %s of step "
			     "%u.%u node %u: %s (%llu dropped so far)",
			     d->lay->step.id, what, h->src_job, h->src_step,
			     h->src_node, why, (unsigned long long)d->xdropped);
}

/* Its deadline passed: the other step did not answer. */
static void request_fail(void *req, enum pmixev_result why, uint32_t lost)
{
	struct request *r = req;

	(void)lost;
	PMIXEV_ERROR("direct modex: step %u.%u node %u did not answer within "
		     "the timeout",
		     r->job, r->step, r->node);
	dmodex_request_end(r, why, NULL, 0);
}

void dmodex_xstep_request(struct dmodex *d, uint32_t job, uint32_t step,
			  uint32_t rank, unsigned timeout_sec,
			  dmodex_done_fn done, void *arg)
{
	struct pmixev_xstep_dmodex_req m = {.rank = rank,
					    .timeout_sec = timeout_sec};
	struct request *r = NULL;
	enum pmixev_result rc;
	struct pmixev_buf b;
	uint32_t node = 0;

	rc = d->s->nspaces
		     ? nspaces_node_of(d->s->nspaces, job, step, rank, &node)
		     : PMIXEV_ERR_NOT_FOUND;
	if (rc != PMIXEV_OK) {
		PMIXEV_DEBUG(1,
			     "direct modex: step %s: rank %u of step %u.%u: "
			     "%s",
			     d->lay->step.id, rank, job, step,
			     rc == PMIXEV_ERR_NOT_FOUND
				     ? "no layout of that step here"
				     : "beyond that step's size");
		done(rc, NULL, 0, arg);
		return;
	}
	if (!(r = calloc(1, sizeof(*r))) ||
	    !(r->p = pending_add(d->xrequests, r, node,
				 timeout_sec ? timeout_sec : d->timeout_sec))) {
		free(r);
		done(PMIXEV_ERR_NOMEM, NULL, 0, arg);
		return;
	}
	*r = (struct request){.p = r->p,
			      .job = job,
			      .step = step,
			      .node = node,
			      .done = done,
			      .arg = arg};
	m.sid = pending_id(r->p);
	pmixev_buf_init(&b);
	rc = pmixev_xstep_dmodex_req_pack(&b, &m) < 0 ? PMIXEV_ERR_BAD_REQUEST
						      : PMIXEV_OK;
	if (rc == PMIXEV_OK)
		rc = xstep_send(d->s->xstep, job, step, node,
				PMIXEV_XSTEP_DMODEX_REQ, b.data, b.len);
	pmixev_buf_release(&b);
	if (rc != PMIXEV_OK) {
		PMIXEV_ERROR("direct modex: step %s: cannot ask step %u.%u "
			     "node %u for rank %u (%s)",
			     d->lay->step.id, job, step, node, rank,
			     rc == PMIXEV_ERR_UNREACH ? "srun is gone"
						      : "malformed");
		dmodex_request_end(r, rc, NULL, 0);
	}
}

void dmodex_xstep_answer(struct dmodex *d, const struct serving *sv,
			 enum pmixev_result result, const uint8_t *data,
			 size_t ndata)
{
	struct pmixev_xstep_dmodex_resp m = {.sid = sv->id, .result = result};
	struct pmixev_buf b;

	if (result == PMIXEV_OK) {
		m.data = data;
		m.ndata = ndata;
	}
	if (m.ndata > d->xdata_max) {
		m = (struct pmixev_xstep_dmodex_resp){
			.sid = sv->id, .result = PMIXEV_ERR_OVER_BUDGET};
		PMIXEV_ERROR("direct modex: step %s: a rank's data (%zu bytes) "
			     "passes PMIxevOverlayMax: step %u.%u's request "
			     "fails",
			     d->lay->step.id, ndata, sv->job, sv->step);
	}
	pmixev_buf_init(&b);
	if (pmixev_xstep_dmodex_resp_pack(&b, &m) < 0 ||
	    xstep_send(d->s->xstep, sv->job, sv->step, sv->requester,
		       PMIXEV_XSTEP_DMODEX_RESP, b.data, b.len) != PMIXEV_OK)
		PMIXEV_ERROR("direct modex: step %s: cannot answer step %u.%u "
			     "node %u",
			     d->lay->step.id, sv->job, sv->step, sv->requester);
	pmixev_buf_release(&b);
}

/* A request from a step whose layout has not come here yet (a child's
 * ranks run before its LAYOUT reaches every parent node). */
struct parked {
	struct pending *p;
	struct dmodex *d;
	struct pmixev_xstep_hdr h;
	struct pmixev_xstep_dmodex_req m;
};

static void unpark(struct parked *k)
{
	pending_end(k->p);
	k->d->nparked--;
	free(k);
}

/* Its step's layout did not come within the request's timeout. */
static void parked_fail(void *req, enum pmixev_result why, uint32_t lost)
{
	struct parked *k = req;

	(void)why;
	(void)lost;
	dropped(k->d, &k->h, "request",
		"its step's layout did not come within its timeout");
	unpark(k);
}

static void serve_if_known(void *req, void *ctx)
{
	struct parked *k = req;
	struct dmodex *d = k->d;

	(void)ctx;
	if (!nspaces_member(d->s->nspaces, k->h.src_job, k->h.src_step))
		return;
	dmodex_serve(d, k->m.sid, k->h.src_job, k->h.src_step, k->h.src_node,
		     k->m.rank);
	unpark(k);
}

/* A family member's layout came: serve the requests that waited for it. */
static void on_added(void *ctx, const char *nspace, int32_t status)
{
	struct dmodex *d = ctx;

	(void)nspace;
	(void)status;
	pending_each(d->xparked, serve_if_known, NULL);
}

/* Hold `m` from `h` until its step is known here, at most its timeout. */
static void park(struct dmodex *d, const struct pmixev_xstep_hdr *h,
		 const struct pmixev_xstep_dmodex_req *m)
{
	struct parked *k = NULL;

	if (!d->xsubscribed &&
	    nspaces_on_added(d->s->nspaces, on_added, d) == 0)
		d->xsubscribed = true;
	if (!d->xsubscribed) {
		dropped(d, h, "request", "not a family member known here");
		return;
	}
	if (d->nparked == SERVING_MAX) {
		dropped(d, h, "request",
			"too many requests of steps not known here yet");
		return;
	}
	if (!(k = calloc(1, sizeof(*k))) ||
	    !(k->p = pending_add(d->xparked, k, h->src_node,
				 m->timeout_sec ? m->timeout_sec
						: d->timeout_sec))) {
		free(k);
		dropped(d, h, "request", "out of memory");
		return;
	}
	k->d = d;
	k->h = *h;
	k->m = *m;
	d->nparked++;
}

/* DMODEX_REQ: a family member's node asks for a local rank's data. */
static void on_req(void *ctx, const struct pmixev_xstep_hdr *h,
		   struct pmixev_buf *body, const uint8_t *frame, size_t len)
{
	struct dmodex *d = ctx;
	struct pmixev_xstep_dmodex_req m;

	(void)frame;
	(void)len;
	if (!pmixev_xstep_for_me(h, d->lay->step.job_id, d->lay->step.step_id,
				 d->lay->nodeid, false))
		dropped(d, h, "request", "not for this node");
	else if (!d->s->nspaces)
		dropped(d, h, "request", "this step knows no family member");
	else if (pmixev_xstep_dmodex_req_unpack(body, d->lay->step.ntasks, &m) <
		 0)
		dropped(d, h, "request", "malformed");
	else if (!nspaces_member(d->s->nspaces, h->src_job, h->src_step))
		park(d, h, &m);
	else
		dmodex_serve(d, m.sid, h->src_job, h->src_step, h->src_node,
			     m.rank);
}

/* DMODEX_RESP: the answer to a request of ours. */
static void on_resp(void *ctx, const struct pmixev_xstep_hdr *h,
		    struct pmixev_buf *body, const uint8_t *frame, size_t len)
{
	struct dmodex *d = ctx;
	struct pmixev_xstep_dmodex_resp m;
	struct request *r;

	(void)frame;
	(void)len;
	if (!pmixev_xstep_for_me(h, d->lay->step.job_id, d->lay->step.step_id,
				 d->lay->nodeid, false))
		dropped(d, h, "answer", "not for this node");
	else if (pmixev_xstep_dmodex_resp_unpack(body, d->xdata_max, &m) < 0)
		dropped(d, h, "answer", "malformed");
	else if (!(r = pending_get(d->xrequests, m.sid, h->src_node)) ||
		 r->job != h->src_job || r->step != h->src_step)
		dropped(d, h, "answer", "to no request of this node");
	else
		dmodex_request_end(r, m.result, m.data, m.ndata);
}

int dmodex_xstep_create(struct dmodex *d)
{
	if (!(d->xrequests = pending_set_create(agent_base(d->s->agent),
						request_fail, NULL)) ||
	    !(d->xparked = pending_set_create(agent_base(d->s->agent),
					      parked_fail, NULL)))
		return -1;
	if (xstep_on(d->s->xstep, PMIXEV_XSTEP_DMODEX_REQ, on_req, d) < 0 ||
	    xstep_on(d->s->xstep, PMIXEV_XSTEP_DMODEX_RESP, on_resp, d) < 0)
		return -1;
	return 0;
}

void dmodex_xstep_destroy(struct dmodex *d)
{
	if (d->xdropped)
		PMIXEV_INFO("direct modex: step %s: %llu frame(s) of other "
			    "steps dropped",
			    d->lay->step.id, (unsigned long long)d->xdropped);
	pending_set_destroy(d->xrequests, free);
	pending_set_destroy(d->xparked, free);
	d->xrequests = NULL;
	d->xparked = NULL;
}
