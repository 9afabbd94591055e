/*
 * wireup/pubsub_xstep.c - publish/lookup across the steps of a spawn
 * family (doc/spawn.md §5.3): a spawned step's requests that leave the
 * step go as XSTEP PUBSUB_REQ to its srun, which passes them up the hub
 * to the family root's srun and node 0; the directory's answer comes
 * back as PUBSUB_RESP by the requester's step and node. Every frame is
 * read with XSTEP's codecs before anything is done. Agent thread only.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "pmixev_pmixd_coll.h"
#include "wireup/pubsub_dir_int.h"

static struct pmixev_xstep_hdr hdr_to(const struct pubsub *ps, uint32_t job,
				      uint32_t step, uint32_t node,
				      uint8_t inner)
{
	return (struct pmixev_xstep_hdr){.src_job = ps->lay->step.job_id,
					 .src_step = ps->lay->step.step_id,
					 .src_node = ps->lay->nodeid,
					 .dst_job = job,
					 .dst_step = step,
					 .dst_node = node,
					 .inner = inner};
}

enum pmixev_result pubsub_xstep_send(struct pubsub *ps,
				     const struct pubsub_req_msg *r)
{
	/* srun gives it to the family root's node 0 (the parent's here). */
	const struct pmixev_xstep_hdr h =
		hdr_to(ps, ps->parent_job, ps->parent_step, 0,
		       PMIXEV_XSTEP_PUBSUB_REQ);
	struct pmixev_xstep_pubsub m = {
		.id = r->id,
		.op = (enum pmixev_pmixd_pubsub_op)r->op,
		.rank = r->rank,
		.range = r->how.range,
		.persist = r->how.persist,
		.wait = r->how.wait,
		.timeout_sec = r->how.timeout_sec,
		.n = (uint32_t)r->n};
	enum pmixev_result rc = PMIXEV_OK;
	struct pmixev_buf b;

	if (!(m.e = calloc(r->n ? r->n : 1, sizeof(*m.e))))
		return PMIXEV_ERR_NOMEM;
	for (size_t i = 0; i < r->n; i++) {
		snprintf(m.e[i].key, sizeof(m.e[i].key), "%s", r->e[i].key);
		m.e[i].value = r->e[i].value;
		m.e[i].nvalue = r->e[i].nvalue;
	}
	pmixev_buf_init(&b);
	if (pmixev_xstep_hdr_pack(&b, &h) < 0 ||
	    pmixev_xstep_pubsub_pack(&b, &m) < 0)
		rc = PMIXEV_ERR_BAD_REQUEST;
	else if (overlay_send(ps->ov, PMIXEV_NODE_SRUN, PMIXEV_MSG_XSTEP,
			      b.data, b.len) < 0)
		rc = PMIXEV_ERR_UNREACH;
	if (rc != PMIXEV_OK)
		PMIXEV_ERROR("publish/lookup: step %s: cannot send rank %u's "
			     "request to the family's directory (%s)",
			     ps->lay->step.id, r->rank,
			     rc == PMIXEV_ERR_UNREACH ? "srun is gone"
						      : "malformed");
	pmixev_buf_release(&b);
	free(m.e);
	return rc;
}

void pubsub_xstep_reply(struct pubsub *ps, const struct asker *who, uint64_t id,
			enum pmixev_result result, const struct pubsub_entry *e,
			size_t n)
{
	const struct pmixev_xstep_hdr h = hdr_to(
		ps, who->job, who->step, who->node, PMIXEV_XSTEP_PUBSUB_RESP);
	struct pmixev_xstep_pubsub_resp m = {
		.id = id, .result = result, .n = result == PMIXEV_OK ? n : 0};
	struct pmixev_buf b;

	if (m.n && !(m.e = calloc(m.n, sizeof(*m.e)))) {
		m.result = PMIXEV_ERR_NOMEM;
		m.n = 0;
	}
	for (uint32_t i = 0; i < m.n; i++) {
		snprintf(m.e[i].key, sizeof(m.e[i].key), "%s", e[i].key);
		m.e[i].job = e[i].job;
		m.e[i].step = e[i].step;
		m.e[i].rank = e[i].rank;
		m.e[i].value = e[i].value;
		m.e[i].nvalue = e[i].nvalue;
	}
	pmixev_buf_init(&b);
	if (pmixev_xstep_hdr_pack(&b, &h) < 0 ||
	    pmixev_xstep_pubsub_resp_pack(&b, &m) < 0 ||
	    overlay_send(ps->ov, PMIXEV_NODE_SRUN, PMIXEV_MSG_XSTEP, b.data,
			 b.len) < 0)
		PMIXEV_ERROR(
			"publish/lookup: step %s: cannot answer rank %u of "
			"step %u.%u",
			ps->lay->step.id, who->rank, who->job, who->step);
	pmixev_buf_release(&b);
	free(m.e);
}

static void dropped(struct pubsub *ps, const struct pmixev_xstep_hdr *h,
		    const char *why)
{
	if (pmixev_log_worth(++ps->dropped))
		PMIXEV_ERROR("publish/lookup: step %s: dropping a frame of "
			     "step %u.%u node %u: %s (%u dropped so far)",
			     ps->lay->step.id, h->src_job, h->src_step,
			     h->src_node, why, ps->dropped);
}

/* Another step's request, at the family root's node 0. */
static void serve_other(struct pubsub *ps, const struct pmixev_xstep_hdr *h,
			const struct pmixev_xstep_pubsub *m)
{
	struct asker who = {.job = h->src_job,
			    .step = h->src_step,
			    .node = h->src_node,
			    .rank = m->rank,
			    .range = m->range};
	struct pubsub_req_msg r = {.id = m->id,
				   .op = (uint8_t)m->op,
				   .rank = m->rank,
				   .how = {.wait = m->wait,
					   .timeout_sec = m->timeout_sec,
					   .range = m->range,
					   .persist = m->persist},
				   .n = m->n};

	if (!(r.e = calloc(m->n, sizeof(*r.e)))) {
		pubsub_xstep_reply(ps, &who, m->id, PMIXEV_ERR_NOMEM, NULL, 0);
		return;
	}
	for (uint32_t i = 0; i < m->n; i++) {
		snprintf(r.e[i].key, sizeof(r.e[i].key), "%s", m->e[i].key);
		r.e[i].rank = m->rank;
		r.e[i].value = (uint8_t *)m->e[i].value; /* copied by the dir */
		r.e[i].nvalue = m->e[i].nvalue;
	}
	if (!r.how.timeout_sec)
		r.how.timeout_sec = ps->timeout_sec;
	pubsub_serve(ps, &who, &r);
	free(r.e);
}

static void on_req(struct pubsub *ps, const struct pmixev_xstep_hdr *h,
		   struct pmixev_buf *b)
{
	const struct layout *lay = ps->lay;
	bool bounced = h->src_job == lay->step.job_id &&
		       h->src_step == lay->step.step_id &&
		       h->src_node == lay->nodeid;
	struct pmixev_xstep_pubsub m;

	if (!bounced && (ps->spawned || lay->nodeid != 0 ||
			 !pmixev_xstep_for_me(h, lay->step.job_id,
					      lay->step.step_id, 0, true) ||
			 h->dst_node != 0)) {
		dropped(ps, h, "a request for a directory not held here");
		return;
	}
	if (pmixev_xstep_pubsub_unpack(b, ps->max_bytes, &m) < 0) {
		dropped(ps, h, "a malformed request");
		return;
	}
	if (bounced) {
		PMIXEV_ERROR("publish/lookup: step %s: rank %u's request "
			     "cannot reach the family's directory: an srun "
			     "of the family is gone",
			     lay->step.id, m.rank);
		pubsub_answer(ps, PMIXEV_NODE_SRUN, m.id, PMIXEV_ERR_UNREACH,
			      NULL, 0);
	} else {
		serve_other(ps, h, &m);
	}
	pmixev_xstep_pubsub_release(&m);
}

static void on_resp(struct pubsub *ps, const struct pmixev_xstep_hdr *h,
		    struct pmixev_buf *b)
{
	const struct layout *lay = ps->lay;
	struct pmixev_xstep_pubsub_resp m;
	struct pubsub_entry *e = NULL;

	if (!ps->spawned || h->dst_job != lay->step.job_id ||
	    h->dst_step != lay->step.step_id || h->dst_node != lay->nodeid) {
		dropped(ps, h, "an answer for another node");
		return;
	}
	if (pmixev_xstep_pubsub_resp_unpack(b, ps->max_bytes, &m) < 0) {
		dropped(ps, h, "a malformed answer");
		return;
	}
	if (m.n && !(e = calloc(m.n, sizeof(*e)))) {
		m.result = PMIXEV_ERR_NOMEM;
		m.n = 0;
	}
	for (uint32_t i = 0; i < m.n; i++) {
		snprintf(e[i].key, sizeof(e[i].key), "%s", m.e[i].key);
		e[i].job = m.e[i].job;
		e[i].step = m.e[i].step;
		e[i].rank = m.e[i].rank;
		e[i].value = (uint8_t *)m.e[i].value;
		e[i].nvalue = m.e[i].nvalue;
	}
	pubsub_answer(ps, PMIXEV_NODE_SRUN, m.id, m.result, e, m.n);
	free(e);
	pmixev_xstep_pubsub_resp_release(&m);
}

void pubsub_xstep_frame(void *ctx, const struct pmixev_xstep_hdr *h,
			struct pmixev_buf *b, const uint8_t *frame, size_t len)
{
	struct pubsub *ps = ctx;

	(void)frame;
	(void)len;
	if (h->inner == PMIXEV_XSTEP_PUBSUB_REQ)
		on_req(ps, h, b);
	else
		on_resp(ps, h, b);
}
