/*
 * pmixev_xstep_hop.c - where an srun sends an XSTEP frame (see
 * pmixev_xstep.h): pure decisions on the header, unit-tested.
 */
#include "config.h"

#include "pmixev_xstep.h"

enum pmixev_xstep_hop pmixev_xstep_pubsub_hop(const struct pmixev_xstep_hdr *h,
					      enum pmixev_xstep_from from,
					      uint32_t node, uint32_t job,
					      uint32_t step, bool spawned)
{
	bool src_own = h->src_job == job && h->src_step == step;
	bool dst_own = h->dst_job == job && h->dst_step == step;

	if (!pmixev_xstep_hdr_ok(h))
		return PMIXEV_XSTEP_HOP_DROP;
	if (h->inner == PMIXEV_XSTEP_PUBSUB_REQ) {
		if (from == PMIXEV_XSTEP_FROM_NODE)
			return spawned && src_own && h->src_node == node
				       ? PMIXEV_XSTEP_HOP_UP
				       : PMIXEV_XSTEP_HOP_DROP;
		if (from == PMIXEV_XSTEP_FROM_PARENT) /* bounced: no way up */
			return src_own ? PMIXEV_XSTEP_HOP_NODE
				       : PMIXEV_XSTEP_HOP_CHILD;
		if (src_own)
			return PMIXEV_XSTEP_HOP_DROP;
		return spawned ? PMIXEV_XSTEP_HOP_UP : PMIXEV_XSTEP_HOP_NODE;
	}
	if (h->inner != PMIXEV_XSTEP_PUBSUB_RESP ||
	    from == PMIXEV_XSTEP_FROM_CHILD)
		return PMIXEV_XSTEP_HOP_DROP;
	if (from == PMIXEV_XSTEP_FROM_NODE)
		return !spawned && src_own && h->src_node == 0 && node == 0
			       ? PMIXEV_XSTEP_HOP_CHILD
			       : PMIXEV_XSTEP_HOP_DROP;
	if (src_own)
		return PMIXEV_XSTEP_HOP_DROP;
	return dst_own ? PMIXEV_XSTEP_HOP_NODE : PMIXEV_XSTEP_HOP_CHILD;
}

bool pmixev_xstep_routed(const struct pmixev_xstep_hdr *h)
{
	return h->inner == PMIXEV_XSTEP_COLL_PART ||
	       h->inner == PMIXEV_XSTEP_COLL_RESULT ||
	       h->inner == PMIXEV_XSTEP_LEFT ||
	       h->inner == PMIXEV_XSTEP_DMODEX_REQ ||
	       h->inner == PMIXEV_XSTEP_DMODEX_RESP ||
	       (h->inner == PMIXEV_XSTEP_EVENT &&
		h->dst_node == PMIXEV_XSTEP_ALL);
}

enum pmixev_xstep_hop pmixev_xstep_route_hop(const struct pmixev_xstep_hdr *h,
					     enum pmixev_xstep_from from,
					     uint32_t node, uint32_t job,
					     uint32_t step)
{
	bool src_own = h->src_job == job && h->src_step == step;
	bool dst_own = h->dst_job == job && h->dst_step == step;

	if (!pmixev_xstep_hdr_ok(h) || !pmixev_xstep_routed(h))
		return PMIXEV_XSTEP_HOP_DROP;
	switch (from) {
	case PMIXEV_XSTEP_FROM_NODE:
		return src_own && h->src_node == node ? PMIXEV_XSTEP_HOP_AWAY
						      : PMIXEV_XSTEP_HOP_DROP;
	case PMIXEV_XSTEP_FROM_CHILD:
		if (src_own)
			return PMIXEV_XSTEP_HOP_DROP;
		return dst_own ? PMIXEV_XSTEP_HOP_NODE : PMIXEV_XSTEP_HOP_AWAY;
	default: /* the parent: never back up */
		if (src_own)
			return PMIXEV_XSTEP_HOP_DROP;
		return dst_own ? PMIXEV_XSTEP_HOP_NODE : PMIXEV_XSTEP_HOP_CHILD;
	}
}
