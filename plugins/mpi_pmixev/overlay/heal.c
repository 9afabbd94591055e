/*
 * overlay/heal.c - the tree re-forms around nodes that left it. On the
 * agent thread.
 *
 * Every node keeps the set of nodes gone from the step (lost, ended, or
 * unreachable) and computes the same healed tree from it
 * (pmixev_tree_hparent): a node whose parent is gone dials its nearest
 * ancestor still there, or the healed root. The node that sees a loss
 * (liveness.c) tells everyone else with a GONE broadcast; whoever learns
 * of it heals its own links, passes it on and tells the step's components
 * (lost callback), so that each node raises node-down for a lost node
 * once.
 */
#include "config.h"

#include "overlay/heal.h"

#include <stdio.h>
#include <stdlib.h>

#include "pmixev_buf.h"
#include "pmixev_log.h"

struct heal {
	struct pmixev_tree tree;
	struct links *ls;
	struct handshake *hs;
	bool *gone;	/* [nnodes]: lost or ended, healed around */
	bool *reported; /* [nnodes]: reported lost (node-down) */
	uint32_t root;	/* the healed root */
	heal_lost_fn lost_fn;
	void *lost_ctx;
};

static const char *const kind_names[] = {"unreachable", "ended", "lost"};

static void gone(struct heal *h, uint32_t node, enum gone_kind kind,
		 const char *why, const struct link *from);

/* Close the link to a gone neighbour for good. */
static void close_link(struct link *l)
{
	link_cut(l);
	l->dead = true;
}

/*
 * Close links to gone children; find a new parent if ours is gone. A node
 * that ended is no news: the step is ending, so that is logged as debug.
 */
static void heal(struct heal *h, enum gone_kind kind)
{
	enum pmixev_log_level level =
		kind == GONE_LOST ? PMIXEV_LOG_INFO : PMIXEV_LOG_DEBUG;
	struct links *ls = h->ls;
	struct link *p = &ls->parent;
	uint32_t want;

	for (uint32_t i = 0; i < ls->nchildren; i++) {
		struct link *c = &ls->children[i];

		if (h->gone[c->peer] && !c->dead) {
			close_link(c);
			link_drop_queue(c);
		}
	}
	want = pmixev_tree_hparent(&h->tree, h->gone, h->root, ls->self);
	if (want == p->peer || ls->leaving)
		return;
	/* Frames queued for the old parent go to the new one. */
	close_link(p);
	p->peer = want;
	p->dead = false;
	p->bye = false;
	if (want == PMIXEV_TREE_NONE) {
		link_drop_queue(p);
		pmixev_log(level,
			   "overlay: node %u is now the root of the "
			   "step's tree",
			   ls->self);
		return;
	}
	p->adopting = true;
	pmixev_log(level, "overlay: joining node %u as its new parent", want);
	if (!handshake_has_table(h->hs)) {
		PMIXEV_ERROR("overlay: cannot dial new parent node %u: no "
			     "address table from srun yet",
			     want);
	} else if (handshake_connect_parent(h->hs) < 0) {
		PMIXEV_ERROR("overlay: cannot dial new parent node %u", want);
	} else {
		return;
	}
	close_link(p);
	gone(h, want, GONE_UNREACHABLE, "cannot dial", NULL);
}

static void tell_others(struct heal *h, uint32_t node, enum gone_kind kind,
			const struct link *from)
{
	struct pmixev_buf b;

	pmixev_buf_init(&b);
	if (pmixev_buf_put_u32(&b, node) == 0 &&
	    pmixev_buf_put_u8(&b, (uint8_t)kind) == 0)
		links_flood(h->ls, from, h->ls->self, PMIXEV_MSG_GONE, b.data,
			    b.len);
	pmixev_buf_release(&b);
}

/*
 * `node` left the tree (`kind`, because of `why`), as seen by this node or
 * reported over link `from` (NULL: seen here). Re-forms the tree around it
 * (a new parent is dialled, links to gone children closed), tells every
 * other node (GONE), and calls the lost callback. Repeats are ignored;
 * a loss reported after an UNREACHABLE or ENDED still counts.
 */
static void gone(struct heal *h, uint32_t node, enum gone_kind kind,
		 const char *why, const struct link *from)
{
	bool newly_gone = !h->gone[node];
	bool newly_lost = kind == GONE_LOST && !h->reported[node];

	if (node == h->ls->self || (!newly_gone && !newly_lost))
		return;
	h->gone[node] = true;
	h->reported[node] |= newly_lost;
	h->root = pmixev_tree_hroot(&h->tree, h->gone);
	PMIXEV_DEBUG(1, "overlay: node %u is gone (%s: %s)", node,
		     kind_names[kind], why);
	if (newly_gone)
		heal(h, kind);
	tell_others(h, node, kind, from);
	if (h->lost_fn)
		h->lost_fn(h->lost_ctx, node, why, !newly_lost);
}

static void on_gone(void *ctx, uint32_t node, enum gone_kind kind,
		    const char *why)
{
	gone(ctx, node, kind, why, NULL);
}

int heal_on_gone(struct heal *h, struct link *l, const uint8_t *data,
		 size_t len)
{
	struct pmixev_buf b;
	char why[64];
	uint32_t node;
	uint8_t kind;

	pmixev_buf_reader(&b, data, len);
	if (pmixev_buf_get_u32(&b, &node) < 0 ||
	    pmixev_buf_get_u8(&b, &kind) < 0 || pmixev_buf_remaining(&b) ||
	    node >= h->tree.n || kind > GONE_LOST) {
		PMIXEV_ERROR("overlay: malformed GONE from node %u", l->peer);
		return -1;
	}
	/* A neighbour never reports itself: healing would close the link
	 * this frame is being read from. Its link is dropped instead (and
	 * then reported gone the usual way). */
	if (node == l->peer) {
		PMIXEV_ERROR("overlay: node %u reported itself gone; dropping "
			     "its link",
			     l->peer);
		return -1;
	}
	snprintf(why, sizeof(why), "reported by node %u", l->peer);
	gone(h, node, (enum gone_kind)kind, why, l);
	return 0;
}

/* The child link for node `from` saying hello, or NULL with the reason:
 * one of our children in the tree, or a node we adopt (handshake.c). */
static struct link *child_slot(void *ctx, uint32_t from, const char **why)
{
	struct heal *h = ctx;
	struct links *ls = h->ls;
	struct link *c;

	for (uint32_t i = 0; i < ls->nchildren; i++) {
		c = &ls->children[i];
		if (c->peer != from)
			continue;
		*why = c->dead ? "already gone" : "already connected";
		return c->dead || c->conn ? NULL : c;
	}
	/* Adoption: parents have lower ids than their children. */
	if (from <= ls->self || from >= h->tree.n) {
		*why = "not below us";
		return NULL;
	}
	if (h->gone[from]) {
		*why = "already gone";
		return NULL;
	}
	if (ls->nchildren == ls->cap_children) {
		*why = "one too many";
		return NULL;
	}
	c = &ls->children[ls->nchildren++];
	link_init(c, ls, LINK_CHILD, from);
	PMIXEV_DEBUG(1, "overlay: adopting node %u as a child", from);
	return c;
}

struct heal *heal_create(const struct pmixev_tree *tree, struct links *ls,
			 struct handshake *hs, struct liveness *lv)
{
	struct heal *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->tree = *tree;
	h->ls = ls;
	h->hs = hs;
	h->gone = calloc(tree->n, sizeof(*h->gone));
	h->reported = calloc(tree->n, sizeof(*h->reported));
	if (!h->gone || !h->reported) {
		heal_destroy(h);
		return NULL;
	}
	liveness_on_gone(lv, on_gone, h);
	handshake_on_child(hs, child_slot, h);
	return h;
}

void heal_on_lost(struct heal *h, heal_lost_fn fn, void *ctx)
{
	h->lost_fn = fn;
	h->lost_ctx = ctx;
}

uint32_t heal_next_hop(const struct heal *h, uint32_t dst)
{
	return pmixev_tree_hnext_hop(&h->tree, h->gone, h->root, h->ls->self,
				     dst);
}

size_t heal_children(const struct heal *h, uint32_t *out)
{
	size_t n = 0;

	for (uint32_t i = h->ls->self + 1; i < h->tree.n; i++)
		if (heal_is_child(h, i))
			out[n++] = i;
	return n;
}

bool heal_in_subtree(const struct heal *h, uint32_t id, uint32_t d)
{
	return pmixev_tree_in_hsubtree(&h->tree, h->gone, h->root, id, d);
}

bool heal_is_child(const struct heal *h, uint32_t node)
{
	return node < h->tree.n && !h->gone[node] &&
	       pmixev_tree_hparent(&h->tree, h->gone, h->root, node) ==
		       h->ls->self;
}

void heal_destroy(struct heal *h)
{
	if (!h)
		return;
	free(h->gone);
	free(h->reported);
	free(h);
}
