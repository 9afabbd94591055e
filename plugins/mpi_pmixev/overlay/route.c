/*
 * overlay/route.c - every frame that arrives on a stepd's links: checked,
 * handed to the layer it is for, passed on toward its destination, or
 * delivered to its handler; and the messages this node sends. On the
 * agent thread.
 */
#include "config.h"

#include "overlay/route.h"

#include <stdlib.h>

#include "overlay/liveness.h"
#include "pmixev_log.h"

struct route {
	struct links *ls;
	struct handshake *hs;
	struct heal *heal;
	uint32_t nnodes;
	uint64_t srun_unserved; /* srun's frames nothing here serves */
	struct {
		route_handler_fn fn;
		void *ctx;
	} handlers[PMIXEV_MSG_TYPE_MAX + 1];
};

static struct link *link_toward(struct route *rt, uint32_t dst)
{
	struct links *ls = rt->ls;
	uint32_t hop;

	if (dst == PMIXEV_NODE_SRUN)
		return &ls->srun;
	hop = heal_next_hop(rt->heal, dst);
	if (hop == PMIXEV_TREE_NONE || hop == ls->self)
		return NULL;
	if (hop == ls->parent.peer)
		return &ls->parent;
	for (uint32_t i = 0; i < ls->nchildren; i++)
		if (ls->children[i].peer == hop)
			return &ls->children[i];
	return NULL;
}

/* Source and destination are nodes of this step (or "all", or srun). */
static bool known_ends(const struct route *rt,
		       const struct pmixev_frame_hdr *hdr)
{
	return hdr->src < rt->nnodes &&
	       (hdr->dst < rt->nnodes || hdr->dst == PMIXEV_NODE_ANY ||
		hdr->dst == PMIXEV_NODE_SRUN);
}

/* A message for another node: passed on. The sender is not at fault
 * when there is no way there. */
static void forward(struct route *rt, const struct link *from,
		    const struct pmixev_frame_hdr *hdr, const uint8_t *payload)
{
	struct link *next = link_toward(rt, hdr->dst);

	if (!next || next == from)
		PMIXEV_ERROR("overlay: cannot route %s from node %u to node %u",
			     pmixev_msg_type_name(hdr->type), hdr->src,
			     hdr->dst);
	else if (link_send(next, hdr->type, hdr->src, hdr->dst, payload,
			   hdr->len) < 0)
		PMIXEV_ERROR("overlay: dropping %s from node %u: node %u is "
			     "unreachable",
			     pmixev_msg_type_name(hdr->type), hdr->src,
			     hdr->dst);
}

/* A message for this node, or for all (passed on first). */
static void deliver(struct route *rt, const struct link *from,
		    const struct pmixev_frame_hdr *hdr, const uint8_t *payload)
{
	if (hdr->dst == PMIXEV_NODE_ANY)
		links_flood(rt->ls, from, hdr->src, hdr->type, payload,
			    hdr->len);
	if (rt->handlers[hdr->type].fn)
		rt->handlers[hdr->type].fn(rt->handlers[hdr->type].ctx,
					   hdr->src, payload, hdr->len);
	else
		PMIXEV_DEBUG(1, "overlay: no handler for %s from node %u",
			     pmixev_msg_type_name(hdr->type), hdr->src);
}

/*
 * A frame from srun once its table came: one of the spawn family's that
 * srun sends its stepds, for this node, to its handler (source
 * PMIXEV_NODE_SRUN); anything else ends the link.
 */
static int from_srun(struct route *rt, struct link *l,
		     const struct pmixev_frame_hdr *hdr, const uint8_t *payload)
{
	bool srun_sends = hdr->type == PMIXEV_MSG_SPAWN_STATUS ||
			  hdr->type == PMIXEV_MSG_FAMILY ||
			  hdr->type == PMIXEV_MSG_XSTEP;

	if (!srun_sends || hdr->src != PMIXEV_NODE_SRUN ||
	    hdr->dst != rt->ls->self) {
		PMIXEV_ERROR("overlay: unexpected %s from srun %s (to node %u)",
			     pmixev_msg_type_name(hdr->type),
			     conn_peer(l->conn), hdr->dst);
		return -1;
	}
	if (rt->handlers[hdr->type].fn)
		rt->handlers[hdr->type].fn(rt->handlers[hdr->type].ctx,
					   hdr->src, payload, hdr->len);
	else if (pmixev_log_worth(++rt->srun_unserved))
		PMIXEV_ERROR("overlay: dropping %s from srun: nothing here "
			     "serves it (%llu dropped so far)",
			     pmixev_msg_type_name(hdr->type),
			     (unsigned long long)rt->srun_unserved);
	return 0;
}

static int on_frame(void *ctx, struct link *l,
		    const struct pmixev_frame_hdr *hdr, const uint8_t *payload)
{
	struct route *rt = ctx;

	/* srun's link carries its table, then the spawn family's frames; a
	 * parent's its welcome until it is up, or a BYE: it ended before it
	 * welcomed us. */
	if (l->role == LINK_SRUN && l->up)
		return from_srun(rt, l, hdr, payload);
	if (l->role == LINK_SRUN || (!l->up && hdr->type != PMIXEV_MSG_BYE))
		return handshake_frame(rt->hs, l, hdr, payload);
	if (hdr->type >= PMIXEV_MSG_XSTEP) {
		PMIXEV_ERROR("overlay: unexpected %s from %s node %u (%s): "
			     "it travels between stepds and srun only",
			     pmixev_msg_type_name(hdr->type),
			     link_role_name(l->role), l->peer,
			     conn_peer(l->conn));
		return -1;
	}
	if (l->up && !known_ends(rt, hdr)) {
		PMIXEV_ERROR("overlay: dropping %s from %s node %u (%s): "
			     "source %u or destination %u is not a node of "
			     "this step",
			     pmixev_msg_type_name(hdr->type),
			     link_role_name(l->role), l->peer,
			     conn_peer(l->conn), hdr->src, hdr->dst);
		return 0;
	}
	switch (hdr->type) {
	case PMIXEV_MSG_BYE:
		liveness_bye(l);
		return 0;
	case PMIXEV_MSG_HEARTBEAT: /* its bytes count (liveness.c) */
		return 0;
	case PMIXEV_MSG_GONE:
		return heal_on_gone(rt->heal, l, payload, hdr->len);
	case PMIXEV_MSG_RDV_HELLO:
	case PMIXEV_MSG_RDV_TABLE:
	case PMIXEV_MSG_PEER_HELLO:
	case PMIXEV_MSG_PEER_WELCOME:
		PMIXEV_ERROR("overlay: unexpected %s from %s %s",
			     pmixev_msg_type_name(hdr->type),
			     link_role_name(l->role), conn_peer(l->conn));
		return -1;
	}
	if (hdr->dst == rt->ls->self || hdr->dst == PMIXEV_NODE_ANY)
		deliver(rt, l, hdr, payload);
	else
		forward(rt, l, hdr, payload);
	return 0;
}

struct route *route_create(struct links *ls, struct handshake *hs,
			   struct heal *h, uint32_t nnodes)
{
	struct route *rt = calloc(1, sizeof(*rt));

	if (!rt)
		return NULL;
	rt->ls = ls;
	rt->hs = hs;
	rt->heal = h;
	rt->nnodes = nnodes;
	links_on_frame(ls, on_frame, rt);
	return rt;
}

void route_on(struct route *rt, uint8_t type, route_handler_fn fn, void *ctx)
{
	if (type <= PMIXEV_MSG_TYPE_MAX) {
		rt->handlers[type].fn = fn;
		rt->handlers[type].ctx = ctx;
	}
}

int route_send(struct route *rt, uint32_t dst, uint8_t type, const void *data,
	       size_t len)
{
	struct link *l = link_toward(rt, dst);

	if (!l)
		return -1;
	return link_send(l, type, rt->ls->self, dst, data, len);
}

unsigned route_broadcast(struct route *rt, uint8_t type, const void *data,
			 size_t len)
{
	return links_flood(rt->ls, NULL, rt->ls->self, type, data, len);
}

void route_destroy(struct route *rt)
{
	free(rt);
}
