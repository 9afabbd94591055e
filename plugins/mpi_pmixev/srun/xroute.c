/*
 * srun/xroute.c - an srun's routing of the spawn family's XSTEP frames
 * (see xroute.h). Agent thread.
 */
#include "config.h"

#include "srun/xroute.h"

#include "pmixev_frame.h"
#include "pmixev_log.h"
#include "srun/hub_up.h"
#include "srun/rendezvous.h"
#include "srun/spawn.h"

static bool is_pubsub(uint8_t inner)
{
	return inner == PMIXEV_XSTEP_PUBSUB_REQ ||
	       inner == PMIXEV_XSTEP_PUBSUB_RESP;
}

bool xroute_takes(const uint8_t *data, size_t len)
{
	struct pmixev_xstep_hdr h;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, data, len);
	return pmixev_xstep_hdr_unpack(&b, &h) == 0 &&
	       (is_pubsub(h.inner) || pmixev_xstep_routed(&h));
}

static const char *from_name(enum pmixev_xstep_from from)
{
	return from == PMIXEV_XSTEP_FROM_NODE	  ? "a node"
	       : from == PMIXEV_XSTEP_FROM_PARENT ? "the parent srun"
						  : "a child srun";
}

static int to_node(struct xroute *r, uint32_t node, const uint8_t *data,
		   size_t len)
{
	int rc = 0;

	if (node == PMIXEV_XSTEP_ALL) {
		for (uint32_t n = 0; n < r->nnodes; n++)
			if (rdv_send(r->rdv, n, PMIXEV_MSG_XSTEP, data, len) <
			    0)
				rc = -1;
		return rc;
	}
	if (node == PMIXEV_XSTEP_ROOT)
		node = 0;
	return node < r->nnodes
		       ? rdv_send(r->rdv, node, PMIXEV_MSG_XSTEP, data, len)
		       : -1;
}

/* --- publish/lookup: up to the family root's node 0 and back --------- */

/* The family root's node 0 gets a request with itself as destination. */
static int to_node0(struct xroute *r, const struct pmixev_xstep_hdr *h,
		    const uint8_t *data, size_t len)
{
	struct pmixev_xstep_hdr t = *h;
	struct pmixev_buf b;
	int rc;

	t.dst_job = r->job;
	t.dst_step = r->step;
	t.dst_node = 0;
	pmixev_buf_init(&b);
	rc = pmixev_xstep_hdr_pack(&b, &t);
	pmixev_buf_put_raw(&b, data + PMIXEV_XSTEP_HDR_LEN,
			   len - PMIXEV_XSTEP_HDR_LEN);
	if (rc == 0 && pmixev_buf_ok(&b))
		rc = to_node(r, 0, b.data, b.len);
	else
		rc = -1;
	pmixev_buf_release(&b);
	return rc;
}

/* A request with no way on goes back to its source unchanged, which
 * fails it at once (PMIXEV_ERR_UNREACH). */
static void bounce(struct xroute *r, const struct pmixev_xstep_hdr *h,
		   const uint8_t *data, size_t len)
{
	int rc;

	if (h->src_job == r->job && h->src_step == r->step)
		rc = to_node(r, h->src_node, data, len);
	else
		rc = spawns_pass_down(r->spawns, h->src_job, h->src_step, data,
				      len);
	if (rc < 0)
		PMIXEV_ERROR("step %s: a publish/lookup request of step %u.%u "
			     "node %u is lost: no way on nor back",
			     r->step_id, h->src_job, h->src_step, h->src_node);
}

static void pubsub(struct xroute *r, enum pmixev_xstep_from from,
		   const struct pmixev_xstep_hdr *h, uint32_t node,
		   const uint8_t *data, size_t len)
{
	bool req = h->inner == PMIXEV_XSTEP_PUBSUB_REQ;
	bool back = from == PMIXEV_XSTEP_FROM_PARENT;

	switch (pmixev_xstep_pubsub_hop(h, from, node, r->job, r->step,
					r->hub != NULL)) {
	case PMIXEV_XSTEP_HOP_UP:
		if (hub_up_pass(r->hub, data, len) < 0)
			bounce(r, h, data, len);
		return;
	case PMIXEV_XSTEP_HOP_NODE:
		if (req && (back || to_node0(r, h, data, len) < 0))
			bounce(r, h, data, len);
		else if (!req && to_node(r, h->dst_node, data, len) < 0)
			PMIXEV_ERROR("step %s: a publish/lookup answer for "
				     "node %u is lost",
				     r->step_id, h->dst_node);
		return;
	case PMIXEV_XSTEP_HOP_CHILD:
		if (req)
			bounce(r, h, data, len);
		else if (spawns_pass_down(r->spawns, h->dst_job, h->dst_step,
					  data, len) < 0)
			PMIXEV_ERROR("step %s: a publish/lookup answer for "
				     "step %u.%u is lost: no child srun leads "
				     "there",
				     r->step_id, h->dst_job, h->dst_step);
		return;
	default:
		PMIXEV_ERROR("step %s: a publish/lookup frame from %s dropped: "
			     "not one this srun passes",
			     r->step_id, from_name(from));
	}
}

/* --- collectives and direct modex: anywhere in the family ----------- */

static void routed(struct xroute *r, enum pmixev_xstep_from from,
		   const struct pmixev_xstep_hdr *h, uint32_t node,
		   const uint8_t *data, size_t len)
{
	int rc = -1;

	switch (pmixev_xstep_route_hop(h, from, node, r->job, r->step)) {
	case PMIXEV_XSTEP_HOP_NODE:
		rc = to_node(r, h->dst_node, data, len);
		break;
	case PMIXEV_XSTEP_HOP_AWAY:
		rc = spawns_pass_down(r->spawns, h->dst_job, h->dst_step, data,
				      len);
		if (rc < 0 && r->hub)
			rc = hub_up_pass(r->hub, data, len);
		break;
	case PMIXEV_XSTEP_HOP_CHILD:
		rc = spawns_pass_down(r->spawns, h->dst_job, h->dst_step, data,
				      len);
		break;
	default:
		break;
	}
	/* The sender's deadline fails what it waits for. */
	if (rc < 0 && pmixev_log_worth(++r->dropped))
		PMIXEV_ERROR("step %s: a frame (type %u) from step %u.%u node "
			     "%u for step %u.%u dropped, from %s: no way there "
			     "(%llu dropped so far)",
			     r->step_id, h->inner, h->src_job, h->src_step,
			     h->src_node, h->dst_job, h->dst_step,
			     from_name(from), (unsigned long long)r->dropped);
}

void xroute_frame(struct xroute *r, enum pmixev_xstep_from from, uint32_t node,
		  const uint8_t *data, size_t len)
{
	struct pmixev_xstep_hdr h;
	struct pmixev_buf b;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_xstep_hdr_unpack(&b, &h) < 0) {
		if (pmixev_log_worth(++r->dropped))
			PMIXEV_ERROR("step %s: a frame from %s dropped: not a "
				     "valid XSTEP header (%llu dropped so far)",
				     r->step_id, from_name(from),
				     (unsigned long long)r->dropped);
		return;
	}
	if (is_pubsub(h.inner))
		pubsub(r, from, &h, node, data, len);
	else
		routed(r, from, &h, node, data, len);
}
