/*
 * overlay/overlay.c - the stepd tree: links, queues, routing, loss and
 * lifecycle (handshakes in overlay_handshake.c).
 */
#include "config.h"

#include "overlay/overlay.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "overlay/overlay_int.h"
#include "pmixev_log.h"

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

const char *overlay_role_name(enum role r)
{
	static const char *names[] = {"srun", "parent", "child"};
	return names[r];
}

void overlay_link_drop_queue(struct link *l)
{
	struct queued *q, *next;

	for (q = l->head; q; q = next) {
		next = q->next;
		free(q->data);
		free(q);
	}
	l->head = l->tail = NULL;
	l->queued = 0;
}

/* Forget the connection of a link (the conn itself is freed by its owner). */
void overlay_link_reset(struct link *l)
{
	l->conn = NULL;
	l->up = false;
}

static int link_send(struct link *l, uint8_t type, uint32_t src, uint32_t dst,
		     const void *data, size_t len)
{
	struct queued *q;
	size_t waiting = l->up ? conn_queued(l->conn) : l->queued;

	if (l->dead)
		return -1;
	/* A budget per link: a peer that cannot keep up (or a job sending
	 * more than the network takes) never makes the stepd hold more. */
	if (waiting > l->ov->cfg.max_queued ||
	    len > l->ov->cfg.max_queued - waiting) {
		if (!l->over)
			PMIXEV_ERROR("overlay: %s to %s node %u refused: %zu "
				     "bytes wait for that link already "
				     "(PMIxevOverlayMax=%zu MiB)",
				     pmixev_msg_type_name(type),
				     overlay_role_name(l->role), l->peer,
				     waiting, l->ov->cfg.max_queued >> 20);
		l->over = true;
		return -1;
	}
	l->over = false;
	if (l->up)
		return conn_send(l->conn, type, src, dst, data, len);
	if (!(q = calloc(1, sizeof(*q))) || (len && !(q->data = malloc(len)))) {
		free(q);
		return -1;
	}
	q->type = type;
	q->src = src;
	q->dst = dst;
	q->len = len;
	if (len)
		memcpy(q->data, data, len);
	l->queued += len;
	if (l->tail)
		l->tail->next = q;
	else
		l->head = q;
	l->tail = q;
	return 0;
}

void overlay_link_up(struct link *l)
{
	struct queued *q;

	l->up = true;
	if (l->role != ROLE_SRUN)
		conn_set_max_len(l->conn, l->ov->cfg.max_frame);
	l->last_rx_ms = now_ms();
	for (q = l->head; q; q = q->next)
		conn_send(l->conn, q->type, q->src, q->dst, q->data, q->len);
	overlay_link_drop_queue(l);
}

/* --- frames on established links --------------------------------------- */

static struct link *link_toward(struct overlay *ov, uint32_t dst)
{
	uint32_t hop;

	if (dst == PMIXEV_NODE_SRUN)
		return &ov->srun;
	hop = pmixev_tree_hnext_hop(&ov->tree, ov->gone, ov->root,
				    ov->cfg.nodeid, dst);
	if (hop == PMIXEV_TREE_NONE || hop == ov->cfg.nodeid)
		return NULL;
	if (hop == ov->parent.peer)
		return &ov->parent;
	for (uint32_t i = 0; i < ov->nchildren; i++)
		if (ov->children[i].peer == hop)
			return &ov->children[i];
	return NULL;
}

/*
 * A broadcast (dst PMIXEV_NODE_ANY) from `origin`: the links form a tree,
 * so passing it over every link but the one it came in on reaches each
 * node once, whatever the shape the tree healed into.
 */
void overlay_flood(struct overlay *ov, const struct link *from, uint32_t origin,
		   uint8_t type, const void *data, size_t len)
{
	if (ov->parent.peer != PMIXEV_TREE_NONE && &ov->parent != from &&
	    link_send(&ov->parent, type, origin, PMIXEV_NODE_ANY, data, len) <
		    0)
		PMIXEV_DEBUG(1,
			     "overlay: %s from node %u not passed to the "
			     "parent: it is gone",
			     pmixev_msg_type_name(type), origin);
	for (uint32_t i = 0; i < ov->nchildren; i++) {
		struct link *c = &ov->children[i];

		if (c != from && !c->dead &&
		    link_send(c, type, origin, PMIXEV_NODE_ANY, data, len) < 0)
			PMIXEV_DEBUG(1,
				     "overlay: %s from node %u not passed "
				     "to child node %u: it is gone",
				     pmixev_msg_type_name(type), origin,
				     c->peer);
	}
}

static int deliver(struct link *l, const struct pmixev_frame_hdr *hdr,
		   const uint8_t *payload)
{
	struct overlay *ov = l->ov;
	struct link *next;

	if (hdr->src >= ov->cfg.nnodes ||
	    (hdr->dst >= ov->cfg.nnodes && hdr->dst != PMIXEV_NODE_ANY &&
	     hdr->dst != PMIXEV_NODE_SRUN)) {
		PMIXEV_ERROR("overlay: dropping %s from %s node %u (%s): "
			     "source %u or destination %u is not a node of "
			     "this step",
			     pmixev_msg_type_name(hdr->type),
			     overlay_role_name(l->role), l->peer,
			     conn_peer(l->conn), hdr->src, hdr->dst);
		return 0;
	}
	if (hdr->type == PMIXEV_MSG_BYE) {
		l->bye = true;
		return 0;
	}
	if (hdr->type == PMIXEV_MSG_HEARTBEAT)
		return 0;
	if (hdr->type == PMIXEV_MSG_GONE)
		return overlay_on_gone(l, payload, hdr->len);
	if (hdr->type <= PMIXEV_MSG_PEER_WELCOME) {
		PMIXEV_ERROR("overlay: unexpected %s from %s %s",
			     pmixev_msg_type_name(hdr->type),
			     overlay_role_name(l->role), conn_peer(l->conn));
		return -1;
	}
	if (hdr->dst != ov->cfg.nodeid && hdr->dst != PMIXEV_NODE_ANY) {
		next = link_toward(ov, hdr->dst);
		if (!next || next == l) {
			PMIXEV_ERROR("overlay: cannot route %s from node %u to "
				     "node %u",
				     pmixev_msg_type_name(hdr->type), hdr->src,
				     hdr->dst);
			return 0;
		}
		/* The sender is not at fault when the next hop is gone. */
		if (link_send(next, hdr->type, hdr->src, hdr->dst, payload,
			      hdr->len) < 0)
			PMIXEV_ERROR(
				"overlay: dropping %s from node %u: node %u "
				"is unreachable",
				pmixev_msg_type_name(hdr->type), hdr->src,
				hdr->dst);
		return 0;
	}
	if (hdr->dst == PMIXEV_NODE_ANY)
		overlay_flood(ov, l, hdr->src, hdr->type, payload, hdr->len);
	if (ov->handlers[hdr->type].fn)
		ov->handlers[hdr->type].fn(ov->handlers[hdr->type].ctx,
					   hdr->src, payload, hdr->len);
	else
		PMIXEV_DEBUG(1, "overlay: no handler for %s from node %u",
			     pmixev_msg_type_name(hdr->type), hdr->src);
	return 0;
}

/*
 * Link `l` (to `peer_addr`; `was_up`: past its handshake) broke or went
 * silent; its connection is already forgotten.
 */
static void lost(struct link *l, const char *why, const char *peer_addr,
		 bool was_up)
{
	struct overlay *ov = l->ov;
	enum gone_kind kind = l->bye		       ? GONE_ENDED
			      : l->adopting && !was_up ? GONE_UNREACHABLE
						       : GONE_LOST;

	l->dead = true;
	if (l->role != ROLE_PARENT) /* the next parent takes the queue */
		overlay_link_drop_queue(l);
	if (l->role == ROLE_SRUN) {
		PMIXEV_DEBUG(1, "overlay: srun connection closed: %s", why);
		return;
	}
	if (kind == GONE_LOST && ov->leaving)
		PMIXEV_DEBUG(1,
			     "overlay: %s node %u (%s) went as this node "
			     "left: %s",
			     overlay_role_name(l->role), l->peer, peer_addr,
			     why);
	else if (kind == GONE_LOST)
		PMIXEV_ERROR("overlay: lost %s node %u (%s): %s",
			     overlay_role_name(l->role), l->peer, peer_addr,
			     why);
	else
		PMIXEV_DEBUG(1, "overlay: %s node %u %s",
			     overlay_role_name(l->role), l->peer,
			     kind == GONE_ENDED ? "ended its part of the step"
						: "did not answer");
	overlay_gone(ov, l->peer, kind, why, NULL);
}

void overlay_on_close(struct conn *c, enum conn_close reason, const char *why,
		      void *ctx)
{
	struct link *l = ctx;
	bool was_up = l->up;
	char addr[128];

	snprintf(addr, sizeof(addr), "%s", conn_peer(c));
	overlay_link_reset(l);
	lost(l, why, addr, was_up);
}

/* --- bootstrap ------------------------------------------------------------ */

int overlay_on_frame(struct conn *c, const struct pmixev_frame_hdr *hdr,
		     const uint8_t *payload, void *ctx)
{
	struct link *l = ctx;

	l->last_rx_ms = now_ms();
	switch (l->role) {
	case ROLE_SRUN:
		if (hdr->type == PMIXEV_MSG_RDV_TABLE)
			return overlay_on_table(l->ov, c, payload, hdr->len);
		break;
	case ROLE_PARENT:
		if (hdr->type == PMIXEV_MSG_BYE) {
			l->bye = true;
			return 0;
		}
		if (!l->up) {
			if (hdr->type == PMIXEV_MSG_PEER_WELCOME)
				return overlay_on_welcome(l, payload, hdr->len);
			break;
		}
		return deliver(l, hdr, payload);
	case ROLE_CHILD:
		return deliver(l, hdr, payload);
	}
	PMIXEV_ERROR("overlay: unexpected %s from %s %s",
		     pmixev_msg_type_name(hdr->type),
		     overlay_role_name(l->role), conn_peer(c));
	return -1;
}

static void boot_lost(struct link *l)
{
	if (l->conn)
		conn_destroy(l->conn);
	overlay_link_reset(l);
	lost(l, "not connected within the timeout", "?", false);
}

static void on_boot_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct overlay *ov = arg;

	if (!ov->table.nodes)
		PMIXEV_ERROR("overlay: no address table from srun after %u s",
			     ov->cfg.timeout_sec);
	if (ov->parent.peer != PMIXEV_TREE_NONE && !ov->parent.up &&
	    !ov->parent.dead)
		boot_lost(&ov->parent);
	for (uint32_t i = 0; i < ov->nchildren; i++)
		if (!ov->children[i].up && !ov->children[i].dead)
			boot_lost(&ov->children[i]);
}

/*
 * Every heartbeat period: a neighbour that sent nothing for three periods
 * (a cut network, a frozen node) is lost; the others get a heartbeat.
 */
static void heartbeat_link(struct overlay *ov, struct link *l, uint64_t now)
{
	char why[64], addr[128];

	if (!l->up || l->dead || !l->conn)
		return;
	if (conn_rx_bytes(l->conn) != l->rx_bytes) {
		l->rx_bytes = conn_rx_bytes(l->conn);
		l->last_rx_ms = now;
	}
	if (now - l->last_rx_ms > 3ull * ov->cfg.heartbeat_ms) {
		snprintf(why, sizeof(why), "no heartbeat for %llu ms",
			 (unsigned long long)(now - l->last_rx_ms));
		snprintf(addr, sizeof(addr), "%s", conn_peer(l->conn));
		conn_destroy(l->conn);
		overlay_link_reset(l);
		lost(l, why, addr, true);
		return;
	}
	conn_send(l->conn, PMIXEV_MSG_HEARTBEAT, ov->cfg.nodeid, l->peer, NULL,
		  0);
}

static void on_heartbeat(evutil_socket_t fd, short what, void *arg)
{
	struct overlay *ov = arg;
	uint64_t now = now_ms();

	if (ov->parent.peer != PMIXEV_TREE_NONE)
		heartbeat_link(ov, &ov->parent, now);
	for (uint32_t i = 0; i < ov->nchildren; i++)
		heartbeat_link(ov, &ov->children[i], now);
}

int overlay_start(struct overlay *ov)
{
	struct timeval tv = {(time_t)ov->cfg.timeout_sec, 0};
	struct pmixev_ident id = {.job_id = ov->cfg.job_id,
				  .step_id = ov->cfg.step_id,
				  .from = ov->cfg.nodeid,
				  .to = PMIXEV_NODE_SRUN};

	if (overlay_listen(ov) < 0) {
		PMIXEV_ERROR("overlay: cannot listen: %m");
		return -1;
	}
	if (!overlay_dial(ov, &ov->srun, ov->cfg.srun_host, ov->cfg.srun_port))
		return -1;
	/* Our address: the one that routes to srun. */
	if (conn_local_host(ov->srun.conn, ov->host, sizeof(ov->host)) < 0) {
		PMIXEV_ERROR("overlay: cannot determine the local address");
		return -1;
	}
	snprintf(id.host, sizeof(id.host), "%s", ov->host);
	id.port = ov->port;
	ov->boot_timer =
		evtimer_new(agent_base(ov->agent), on_boot_timeout, ov);
	if (!ov->boot_timer || evtimer_add(ov->boot_timer, &tv) < 0)
		return -1;
	if (ov->cfg.heartbeat_ms) {
		struct timeval hb = {ov->cfg.heartbeat_ms / 1000,
				     (ov->cfg.heartbeat_ms % 1000) * 1000};

		ov->hb_timer = event_new(agent_base(ov->agent), -1, EV_PERSIST,
					 on_heartbeat, ov);
		if (!ov->hb_timer || evtimer_add(ov->hb_timer, &hb) < 0)
			return -1;
	}
	PMIXEV_DEBUG(1, "overlay: listening on %s:%u, node %u of %u", ov->host,
		     ov->port, ov->cfg.nodeid, ov->cfg.nnodes);
	return overlay_send_cred(ov, ov->srun.conn, PMIXEV_MSG_RDV_HELLO, &id);
}

struct overlay *overlay_create(struct agent *agent, struct auth *auth,
			       const struct overlay_cfg *cfg)
{
	struct overlay *ov = calloc(1, sizeof(*ov));

	if (!ov)
		return NULL;
	ov->cfg = *cfg;
	ov->agent = agent;
	ov->auth = auth;
	ov->tree.n = cfg->nnodes;
	ov->tree.width = cfg->width ? cfg->width : 1;
	ov->srun = (struct link){.ov = ov, .role = ROLE_SRUN};
	ov->parent = (struct link){
		.ov = ov,
		.role = ROLE_PARENT,
		.peer = pmixev_tree_parent(&ov->tree, cfg->nodeid)};
	ov->nchildren = pmixev_tree_nchildren(&ov->tree, cfg->nodeid);
	/* Room for adopted children: any node with a higher id. */
	ov->cap_children = cfg->nnodes - 1 - cfg->nodeid;
	if ((ov->cap_children &&
	     !(ov->children =
		       calloc(ov->cap_children, sizeof(*ov->children)))) ||
	    overlay_heal_init(ov) < 0) {
		free(ov->children);
		free(ov);
		return NULL;
	}
	for (uint32_t i = 0; i < ov->nchildren; i++)
		ov->children[i] = (struct link){
			.ov = ov,
			.role = ROLE_CHILD,
			.peer = pmixev_tree_child(&ov->tree, cfg->nodeid, i)};
	return ov;
}

void overlay_on(struct overlay *ov, uint8_t type, overlay_handler_t fn,
		void *ctx)
{
	if (type <= PMIXEV_MSG_TYPE_MAX) {
		ov->handlers[type].fn = fn;
		ov->handlers[type].ctx = ctx;
	}
}

void overlay_on_lost(struct overlay *ov, overlay_lost_t fn, void *ctx)
{
	ov->lost_fn = fn;
	ov->lost_ctx = ctx;
}

void overlay_broadcast(struct overlay *ov, uint8_t type, const void *data,
		       size_t len)
{
	overlay_flood(ov, NULL, ov->cfg.nodeid, type, data, len);
}

int overlay_send(struct overlay *ov, uint32_t dst, uint8_t type,
		 const void *data, size_t len)
{
	struct link *l = link_toward(ov, dst);

	if (!l)
		return -1;
	return link_send(l, type, ov->cfg.nodeid, dst, data, len);
}

/* Also before the handshake completed: the BYE follows our hello. */
static void say_bye(struct overlay *ov, struct link *l)
{
	if (!l->conn)
		return;
	conn_send(l->conn, PMIXEV_MSG_BYE, ov->cfg.nodeid, l->peer, NULL, 0);
	conn_finish(l->conn);
}

static void bye_pending(struct conn *c, void *arg)
{
	struct overlay *ov = arg;

	conn_send(c, PMIXEV_MSG_BYE, ov->cfg.nodeid, 0, NULL, 0);
	conn_finish(c);
}

void overlay_leave(struct overlay *ov)
{
	ov->leaving = true;
	if (ov->parent.peer != PMIXEV_TREE_NONE)
		say_bye(ov, &ov->parent);
	for (uint32_t i = 0; i < ov->nchildren; i++)
		say_bye(ov, &ov->children[i]);
	if (ov->door)
		admit_each(ov->door, bye_pending, ov);
}

uint32_t overlay_self(const struct overlay *ov)
{
	return ov->cfg.nodeid;
}

static void link_close(struct link *l)
{
	conn_destroy(l->conn);
	overlay_link_drop_queue(l);
	overlay_link_reset(l);
}

void overlay_destroy(struct overlay *ov)
{
	if (!ov)
		return;
	link_close(&ov->srun);
	link_close(&ov->parent);
	for (uint32_t i = 0; i < ov->nchildren; i++)
		link_close(&ov->children[i]);
	admit_destroy(ov->door);
	if (ov->boot_timer)
		event_free(ov->boot_timer);
	if (ov->hb_timer)
		event_free(ov->hb_timer);
	free(ov->children);
	free(ov->gone);
	free(ov->reported);
	free(ov->table.nodes);
	free(ov);
}
