/*
 * overlay/heal.c - the tree re-forms around nodes that left it.
 *
 * Every node keeps the set of nodes gone from the step (lost, ended, or
 * unreachable) and computes the same healed tree from it
 * (pmixev_tree_hparent): a node whose parent is gone dials its nearest
 * ancestor still there, or the healed root. The node that sees a loss
 * tells everyone else with a GONE broadcast; whoever learns of it heals
 * its own links, passes it on and tells the step's components (lost
 * callback), so that each node raises node-down for a lost node once.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "overlay/overlay_int.h"
#include "pmixev_buf.h"
#include "pmixev_log.h"

static const char *const kind_names[] = {"unreachable", "ended", "lost"};

int overlay_heal_init(struct overlay *ov)
{
	ov->gone = calloc(ov->cfg.nnodes, sizeof(*ov->gone));
	ov->reported = calloc(ov->cfg.nnodes, sizeof(*ov->reported));
	ov->root = 0;
	if (ov->gone && ov->reported)
		return 0;
	free(ov->gone);
	free(ov->reported);
	return -1;
}

static void close_link(struct link *l)
{
	if (l->conn)
		conn_destroy(l->conn);
	overlay_link_reset(l);
	l->dead = true;
}

/*
 * Close links to gone children; find a new parent if ours is gone. A node
 * that ended is no news: the step is ending, so that is logged as debug.
 */
static void heal(struct overlay *ov, enum gone_kind kind)
{
	enum pmixev_log_level level =
		kind == GONE_LOST ? PMIXEV_LOG_INFO : PMIXEV_LOG_DEBUG;
	uint32_t self = ov->cfg.nodeid, want;
	struct link *p = &ov->parent;

	for (uint32_t i = 0; i < ov->nchildren; i++) {
		struct link *c = &ov->children[i];

		if (ov->gone[c->peer] && !c->dead) {
			close_link(c);
			overlay_link_drop_queue(c);
		}
	}
	want = pmixev_tree_hparent(&ov->tree, ov->gone, ov->root, self);
	if (want == p->peer || ov->leaving)
		return;
	/* Frames queued for the old parent go to the new one. */
	close_link(p);
	p->peer = want;
	p->dead = false;
	p->bye = false;
	if (want == PMIXEV_TREE_NONE) {
		overlay_link_drop_queue(p);
		pmixev_log(level,
			   "overlay: node %u is now the root of the "
			   "step's tree",
			   self);
		return;
	}
	p->adopting = true;
	pmixev_log(level, "overlay: joining node %u as its new parent", want);
	if (!ov->table.nodes || overlay_connect_parent(ov) < 0) {
		PMIXEV_ERROR("overlay: cannot dial new parent node %u", want);
		close_link(p);
		overlay_gone(ov, want, GONE_UNREACHABLE, "cannot dial", NULL);
	}
}

static void tell_others(struct overlay *ov, uint32_t node, enum gone_kind kind,
			const struct link *from)
{
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	if (pmixev_buf_put_u32(&b, node) == 0 &&
	    pmixev_buf_put_u8(&b, (uint8_t)kind) == 0)
		overlay_flood(ov, from, ov->cfg.nodeid, PMIXEV_MSG_GONE, b.data,
			      b.len);
	pmixev_buf_release(&b);
}

void overlay_gone(struct overlay *ov, uint32_t node, enum gone_kind kind,
		  const char *why, const struct link *from)
{
	bool newly_gone = !ov->gone[node];
	bool newly_lost = kind == GONE_LOST && !ov->reported[node];

	if (node == ov->cfg.nodeid || (!newly_gone && !newly_lost))
		return;
	ov->gone[node] = true;
	ov->reported[node] |= newly_lost;
	ov->root = pmixev_tree_hroot(&ov->tree, ov->gone);
	PMIXEV_DEBUG(1, "overlay: node %u is gone (%s: %s)", node,
		     kind_names[kind], why);
	if (newly_gone)
		heal(ov, kind);
	tell_others(ov, node, kind, from);
	if (ov->lost_fn)
		ov->lost_fn(ov->lost_ctx, node, why, !newly_lost);
}

int overlay_on_gone(struct link *l, const uint8_t *data, size_t len)
{
	struct overlay *ov = l->ov;
	struct pmixev_buf b;
	char why[64];
	uint32_t node;
	uint8_t kind;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_buf_get_u32(&b, &node) < 0 ||
	    pmixev_buf_get_u8(&b, &kind) < 0 || pmixev_buf_remaining(&b) ||
	    node >= ov->cfg.nnodes || kind > GONE_LOST) {
		PMIXEV_ERROR("overlay: malformed GONE from node %u", l->peer);
		return -1;
	}
	snprintf(why, sizeof(why), "reported by node %u", l->peer);
	overlay_gone(ov, node, (enum gone_kind)kind, why, l);
	return 0;
}

struct link *overlay_child_slot(struct overlay *ov, uint32_t from,
				const char **why)
{
	struct link *c;

	for (uint32_t i = 0; i < ov->nchildren; i++) {
		c = &ov->children[i];
		if (c->peer != from)
			continue;
		*why = c->dead ? "already gone" : "already connected";
		return c->dead || c->conn ? NULL : c;
	}
	/* Adoption: parents have lower ids than their children. */
	if (from <= ov->cfg.nodeid || from >= ov->cfg.nnodes ||
	    ov->gone[from] || ov->nchildren == ov->cap_children) {
		*why = from <= ov->cfg.nodeid || from >= ov->cfg.nnodes
			       ? "not below us"
		       : ov->gone[from] ? "already gone"
					: "one too many";
		return NULL;
	}
	c = &ov->children[ov->nchildren++];
	*c = (struct link){.ov = ov, .role = ROLE_CHILD, .peer = from};
	PMIXEV_DEBUG(1, "overlay: adopting node %u as a child", from);
	return c;
}

uint32_t overlay_parent(const struct overlay *ov)
{
	return ov->parent.peer;
}

size_t overlay_children(const struct overlay *ov, uint32_t *out)
{
	size_t n = 0;

	for (uint32_t i = ov->cfg.nodeid + 1; i < ov->cfg.nnodes; i++)
		if (!ov->gone[i] &&
		    pmixev_tree_hparent(&ov->tree, ov->gone, ov->root, i) ==
			    ov->cfg.nodeid)
			out[n++] = i;
	return n;
}

bool overlay_in_subtree(const struct overlay *ov, uint32_t id, uint32_t d)
{
	return pmixev_tree_in_hsubtree(&ov->tree, ov->gone, ov->root, id, d);
}

bool overlay_is_child(const struct overlay *ov, uint32_t node)
{
	return node < ov->cfg.nnodes && !ov->gone[node] &&
	       pmixev_tree_hparent(&ov->tree, ov->gone, ov->root, node) ==
		       ov->cfg.nodeid;
}
