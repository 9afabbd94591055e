/*
 * overlay/link.c - a stepd's links to srun, its parent and its children:
 * their connections, the frames queued until a handshake is done, and the
 * budget of bytes waiting per link. On the agent thread.
 */
#include "config.h"

#include "overlay/link.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pmixev_log.h"

struct queued {
	uint8_t type;
	uint32_t src, dst;
	uint8_t *data;
	size_t len;
	struct queued *next;
};

uint64_t link_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

const char *link_role_name(enum link_role role)
{
	static const char *const names[] = {"srun", "parent", "child"};

	return names[role];
}

void link_init(struct link *l, struct links *ls, enum link_role role,
	       uint32_t peer)
{
	*l = (struct link){.set = ls, .role = role, .peer = peer};
}

struct links *links_create(struct event_base *base,
			   const struct pmixev_tree *tree, uint32_t self,
			   uint32_t max_frame, size_t max_queued)
{
	struct links *ls = calloc(1, sizeof(*ls));

	if (!ls)
		return NULL;
	ls->base = base;
	ls->self = self;
	ls->max_frame = max_frame;
	ls->max_queued = max_queued;
	link_init(&ls->srun, ls, LINK_SRUN, 0);
	link_init(&ls->parent, ls, LINK_PARENT, pmixev_tree_parent(tree, self));
	atomic_init(&ls->joined, ls->parent.peer == PMIXEV_TREE_NONE);
	ls->nchildren = pmixev_tree_nchildren(tree, self);
	/* Room for adopted children: any node with a higher id. */
	ls->cap_children = tree->n - 1 - self;
	if (ls->cap_children &&
	    !(ls->children = calloc(ls->cap_children, sizeof(*ls->children)))) {
		free(ls);
		return NULL;
	}
	for (uint32_t i = 0; i < ls->nchildren; i++)
		link_init(&ls->children[i], ls, LINK_CHILD,
			  pmixev_tree_child(tree, self, i));
	return ls;
}

void links_on_frame(struct links *ls, link_frame_fn fn, void *ctx)
{
	ls->on_frame = fn;
	ls->frame_ctx = ctx;
}

void links_on_down(struct links *ls, link_down_fn fn, void *ctx)
{
	ls->on_down = fn;
	ls->down_ctx = ctx;
}

/* Forget the connection (freed by its owner, or already closed). */
static void forget(struct link *l)
{
	l->conn = NULL;
	l->up = false;
}

static int on_conn_frame(struct conn *c, const struct pmixev_frame_hdr *hdr,
			 const uint8_t *payload, void *ctx)
{
	struct link *l = ctx;

	return l->set->on_frame(l->set->frame_ctx, l, hdr, payload);
}

/* Every close of a link's connection is the same news to the layers
 * above, whatever `reason`: the neighbour is gone. */
static void on_conn_close(struct conn *c, enum conn_close reason,
			  const char *why, void *ctx)
{
	struct link *l = ctx;
	bool was_up = l->up;
	char addr[128];

	snprintf(addr, sizeof(addr), "%s", conn_peer(c));
	forget(l);
	l->set->on_down(l->set->down_ctx, l, why, addr, was_up);
}

int link_dial(struct link *l, const char *host, uint16_t port, uint32_t max_len)
{
	char err[256];

	l->conn = conn_dial(l->set->base, host, port, max_len, on_conn_frame,
			    on_conn_close, l, err, sizeof(err));
	if (l->conn)
		return 0;
	PMIXEV_ERROR("overlay: cannot connect to %s %s:%u: %s",
		     link_role_name(l->role), host, port, err);
	return -1;
}

void link_attach(struct link *l, struct conn *c)
{
	l->conn = c;
	conn_set_owner(c, on_conn_frame, on_conn_close, l);
}

void link_drop_queue(struct link *l)
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

void link_up(struct link *l)
{
	struct queued *q;

	l->up = true;
	if (l->role == LINK_PARENT)
		atomic_store(&l->set->joined, true);
	if (l->role != LINK_SRUN)
		conn_set_max_len(l->conn, l->set->max_frame);
	l->last_rx_ms = link_now_ms();
	for (q = l->head; q; q = q->next)
		conn_send(l->conn, q->type, q->src, q->dst, q->data, q->len);
	link_drop_queue(l);
}

static int enqueue(struct link *l, uint8_t type, uint32_t src, uint32_t dst,
		   const void *data, size_t len)
{
	struct queued *q = calloc(1, sizeof(*q));

	if (!q || (len && !(q->data = malloc(len)))) {
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

int link_send(struct link *l, uint8_t type, uint32_t src, uint32_t dst,
	      const void *data, size_t len)
{
	size_t max = l->set->max_queued;
	size_t waiting = l->up ? conn_queued(l->conn) : l->queued;

	if (l->dead)
		return -1;
	/* A budget per link: a peer that cannot keep up (or a job sending
	 * more than the network takes) never makes the stepd hold more. */
	if (waiting > max || len > max - waiting) {
		if (!l->over)
			PMIXEV_ERROR("overlay: %s to %s node %u refused: %zu "
				     "bytes wait for that link already "
				     "(PMIxevOverlayMax=%zu MiB)",
				     pmixev_msg_type_name(type),
				     link_role_name(l->role), l->peer, waiting,
				     max >> 20);
		l->over = true;
		return -1;
	}
	l->over = false;
	if (l->up)
		return conn_send(l->conn, type, src, dst, data, len);
	return enqueue(l, type, src, dst, data, len);
}

unsigned links_flood(struct links *ls, const struct link *from, uint32_t origin,
		     uint8_t type, const void *data, size_t len)
{
	unsigned over = 0;

	if (ls->parent.peer != PMIXEV_TREE_NONE && &ls->parent != from &&
	    link_send(&ls->parent, type, origin, PMIXEV_NODE_ANY, data, len) <
		    0) {
		over += ls->parent.over;
		PMIXEV_DEBUG(1,
			     "overlay: %s from node %u not passed to the "
			     "parent: it is gone or over its budget",
			     pmixev_msg_type_name(type), origin);
	}
	for (uint32_t i = 0; i < ls->nchildren; i++) {
		struct link *c = &ls->children[i];

		if (c != from && !c->dead &&
		    link_send(c, type, origin, PMIXEV_NODE_ANY, data, len) <
			    0) {
			over += c->over;
			PMIXEV_DEBUG(1,
				     "overlay: %s from node %u not passed "
				     "to child node %u: it is gone or over "
				     "its budget",
				     pmixev_msg_type_name(type), origin,
				     c->peer);
		}
	}
	return over;
}

void link_cut(struct link *l)
{
	conn_destroy(l->conn);
	forget(l);
}

static void say_bye(struct link *l)
{
	if (!l->conn)
		return;
	conn_send(l->conn, PMIXEV_MSG_BYE, l->set->self, l->peer, NULL, 0);
	conn_finish(l->conn);
}

void links_leave(struct links *ls)
{
	ls->leaving = true;
	if (ls->parent.peer != PMIXEV_TREE_NONE)
		say_bye(&ls->parent);
	for (uint32_t i = 0; i < ls->nchildren; i++)
		say_bye(&ls->children[i]);
}

static void link_close(struct link *l)
{
	link_cut(l);
	link_drop_queue(l);
}

void links_destroy(struct links *ls)
{
	if (!ls)
		return;
	link_close(&ls->srun);
	link_close(&ls->parent);
	for (uint32_t i = 0; i < ls->nchildren; i++)
		link_close(&ls->children[i]);
	free(ls->children);
	free(ls);
}
