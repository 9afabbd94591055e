/*
 * wireup/dmodex.c - direct modex over the overlay (see dmodex.h).
 *
 * PMIx progress thread: dmodex_upcall_direct_modex (at the end of the
 * file) copies its arguments and posts them to the agent; serve_done_upcall
 * takes PMIx's answer to a peer's request and posts it to the agent.
 * Agent thread: everything else, that is the requests this node sends,
 * those it serves for peers, and the answer through the upcall's PMIx
 * callback.
 */
#include "config.h"

#include "wireup/dmodex.h"

#include <stdlib.h>
#include <string.h>

#include <pmix_server.h>

#include "overlay/overlay.h"
#include "pmixev_buf.h"
#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_proto.h"
#include "base/agent.h"
#include "base/step.h"
#include "base/pending.h"
#include "pmixbase/directives.h"
#include "pmixbase/procs.h"
#include "pmixbase/status.h"

/* Result, and the rank's data (valid during the call). */
typedef void (*dmodex_done_fn)(enum pmixev_result result, const uint8_t *data,
			       size_t ndata, void *arg);

/* A request of ours, pending until the hosting node answers. */
struct request {
	struct pending *p;
	uint32_t node; /* hosting node */
	dmodex_done_fn done;
	void *arg;
};

/* A request served here for a peer: lives until PMIx answers. */
struct serving {
	struct agent *agent;
	struct dmodex *d; /* NULL once the dmodex is gone */
	uint64_t id;
	uint32_t requester;
	enum pmixev_result result;
	uint8_t *data;
	size_t ndata;
	struct serving *next;
};

struct dmodex {
	struct overlay *ov;
	struct agent *agent;
	const struct layout *lay;
	unsigned timeout_sec;
	struct pending_set *requests;
	struct serving *serving;
};

static void request_end(struct request *r, enum pmixev_result result,
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
	request_end(r, why, NULL, 0);
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
		request_end(r, PMIXEV_ERR_UNREACH, NULL, 0);
}

static void serving_unlink(struct serving *s)
{
	struct serving **pp;

	if (!s->d)
		return;
	for (pp = &s->d->serving; *pp; pp = &(*pp)->next)
		if (*pp == s) {
			*pp = s->next;
			break;
		}
}

/* Agent thread: send PMIx's answer back to the requester. */
static void serve_send_agent(void *arg)
{
	struct serving *s = arg;
	struct pmixev_dmdx_resp m = {.id = s->id,
				     .result = s->result,
				     .data = s->data,
				     .ndata = s->ndata};
	struct pmixev_buf b;

	if (s->d) {
		pmixev_buf_init(&b);
		if (pmixev_dmdx_resp_pack(&b, &m) < 0 ||
		    overlay_send(s->d->ov, s->requester, PMIXEV_MSG_DMDX_RESP,
				 b.data, b.len) < 0)
			PMIXEV_ERROR("direct modex: cannot answer node %u",
				     s->requester);
		pmixev_buf_release(&b);
		serving_unlink(s);
	}
	free(s->data);
	free(s);
}

/* PMIx progress thread: copy the data and hand it to the agent. */
static void serve_done_upcall(pmix_status_t status, char *data, size_t sz,
			      void *cbdata)
{
	struct serving *s = cbdata;

	s->result = status_from_pmix(status);
	if (status == PMIX_SUCCESS && sz) {
		if ((s->data = malloc(sz))) {
			memcpy(s->data, data, sz);
			s->ndata = sz;
		} else {
			s->result = PMIXEV_ERR_NOMEM;
		}
	}
	if (agent_post(s->agent, serve_send_agent, s) < 0) {
		free(s->data);
		free(s);
	}
}

static void on_req(void *ctx, uint32_t src, const uint8_t *buf, size_t len)
{
	struct dmodex *d = ctx;
	struct pmixev_dmdx_req m;
	struct serving *s;
	struct pmixev_buf b;
	pmix_proc_t proc;
	pmix_status_t rc;

	pmixev_buf_reader(&b, buf, len);
	if (pmixev_dmdx_req_unpack(&b, &m) < 0 || src >= d->lay->step.nnodes) {
		PMIXEV_ERROR("direct modex: malformed request from node %u",
			     src);
		return;
	}
	if (!(s = calloc(1, sizeof(*s))))
		return;
	s->agent = d->agent;
	s->d = d;
	s->id = m.id;
	s->requester = src;
	s->next = d->serving;
	d->serving = s;
	if (strcmp(m.nspace, d->lay->nspace) != 0 ||
	    m.rank >= d->lay->step.ntasks ||
	    d->lay->map.node_of[m.rank] != d->lay->nodeid) {
		s->result = PMIXEV_ERR_NOT_FOUND;
		serve_send_agent(s);
		return;
	}
	PMIX_LOAD_PROCID(&proc, m.nspace, m.rank);
	rc = PMIx_server_dmodex_request(&proc, serve_done_upcall, s);
	if (rc != PMIX_SUCCESS) {
		s->result = status_from_pmix(rc);
		serve_send_agent(s);
	}
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
		request_end(r, m.result, m.data, m.ndata);
}

/* A node left the tree, which heals around it: only requests to it fail. */
static void on_node_gone(void *ctx, uint32_t node, bool lost)
{
	struct dmodex *d = ctx;

	pending_lost(d->requests, node);
}

struct dmodex *dmodex_create(struct step *s)
{
	struct dmodex *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	if (!(d->requests = pending_set_create(agent_base(s->agent),
					       request_fail, NULL)) ||
	    step_on_node_gone(s, on_node_gone, d) < 0) {
		if (d->requests)
			pending_set_destroy(d->requests, NULL);
		free(d);
		return NULL;
	}
	d->ov = s->ov;
	d->agent = s->agent;
	d->lay = &s->lay;
	d->timeout_sec = s->conf.timeout_sec;
	overlay_on(s->ov, PMIXEV_MSG_DMDX_REQ, on_req, d);
	overlay_on(s->ov, PMIXEV_MSG_DMDX_RESP, on_resp, d);
	return d;
}

void dmodex_destroy(struct dmodex *d)
{
	if (!d)
		return;
	pending_set_destroy(d->requests, free);
	/* Answers still in PMIx's hands free themselves when they come. */
	for (struct serving *s = d->serving; s; s = s->next)
		s->d = NULL;
	free(d);
}

/* --- the upcall ----------------------------------------------------------- */

/* A direct modex, copied for the agent. */
struct dmodex_call {
	uint32_t rank;
	unsigned timeout_sec;
	pmix_modex_cbfunc_t cbfunc;
	void *cbdata;
};

/* Agent thread: the rank's data came (or the request failed). */
static void direct_modex_answer_agent(enum pmixev_result result,
				      const uint8_t *data, size_t ndata,
				      void *arg)
{
	struct dmodex_call *c = arg;

	status_answer_modex(c->cbfunc, c->cbdata, result, data, ndata);
	free(c);
}

/* Agent thread: ask the rank's node. */
static void direct_modex_agent(void *arg)
{
	struct dmodex_call *c = arg;

	dmodex_request(step_served()->dmodex, c->rank, c->timeout_sec,
		       direct_modex_answer_agent, c);
}

pmix_status_t dmodex_upcall_direct_modex(const pmix_proc_t *proc,
					 const pmix_info_t info[], size_t ninfo,
					 pmix_modex_cbfunc_t cbfunc,
					 void *cbdata)
{
	const struct step *s = step_served();
	struct dmodex_call *c = NULL;
	struct directives dir;
	uint32_t *ranks = NULL;
	enum pmixev_result rc;
	bool all;

	rc = procs_to_ranks(&s->lay, proc, 1, &all, &ranks);
	if (rc == PMIXEV_OK && all)
		rc = PMIXEV_ERR_BAD_REQUEST;
	else if (rc == PMIXEV_OK && !(c = calloc(1, sizeof(*c))))
		rc = PMIXEV_ERR_NOMEM;
	if (rc != PMIXEV_OK)
		goto out;
	directives_read(info, ninfo, &dir);
	c->rank = ranks[0];
	c->timeout_sec = dir.timeout_sec;
	c->cbfunc = cbfunc;
	c->cbdata = cbdata;
	if (agent_post(s->agent, direct_modex_agent, c) < 0) {
		rc = PMIXEV_ERR_UNREACH;
		free(c);
	}
out:
	free(ranks);
	return status_to_pmix(rc);
}
