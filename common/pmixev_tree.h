/*
 * pmixev_tree.h - the overlay's k-ary tree over node ids 0..n-1.
 *
 * Node 0 is the root; the children of node i are k*i+1 .. k*i+k (those
 * below n). Routing: a message for node d goes to the child whose subtree
 * holds d, else to the parent. Pure code, unit-tested.
 */
#ifndef PMIXEV_TREE_H_
#define PMIXEV_TREE_H_

#include <stdbool.h>
#include <stdint.h>

#define PMIXEV_TREE_NONE UINT32_MAX

struct pmixev_tree {
	uint32_t n;	/* nodes, >= 1 */
	uint32_t width; /* fan-out k, >= 1 */
};

/* Parent of `id`, or PMIXEV_TREE_NONE for the root. */
uint32_t pmixev_tree_parent(const struct pmixev_tree *t, uint32_t id);
/* Number of children of `id` (0..width). */
uint32_t pmixev_tree_nchildren(const struct pmixev_tree *t, uint32_t id);
/* The i-th child of `id` (i < nchildren). */
uint32_t pmixev_tree_child(const struct pmixev_tree *t, uint32_t id,
			   uint32_t i);
/* Is `d` in the subtree rooted at `id` (including id itself)? */
bool pmixev_tree_in_subtree(const struct pmixev_tree *t, uint32_t id,
			    uint32_t d);
/*
 * Next hop from `id` toward `d`: `id` itself when d == id, a child of id
 * when d is below it, else the parent. PMIXEV_TREE_NONE if d >= n.
 */
uint32_t pmixev_tree_next_hop(const struct pmixev_tree *t, uint32_t id,
			      uint32_t d);
/* Depth of `id` (root: 0). */
uint32_t pmixev_tree_depth(const struct pmixev_tree *t, uint32_t id);

/*
 * The tree healed around gone nodes (gone[i]: node i was lost or ended).
 * A node's parent is its nearest ancestor still there; a node with none
 * hangs from the lowest node still there, the healed root (ancestors have
 * lower ids, so the healed root's are all gone). Parents always have
 * lower ids than their children: the healed tree has no cycle, and every
 * node that knows the same gone set computes the same tree.
 */

/* The healed root: the lowest node not gone, or NONE if all are. */
uint32_t pmixev_tree_hroot(const struct pmixev_tree *t, const bool *gone);
/* Healed parent of `id` (not gone) given the healed root `root`; NONE for
 * the root itself. */
uint32_t pmixev_tree_hparent(const struct pmixev_tree *t, const bool *gone,
			     uint32_t root, uint32_t id);
/* Is `d` in the healed subtree of `id`? False when either is gone. */
bool pmixev_tree_in_hsubtree(const struct pmixev_tree *t, const bool *gone,
			     uint32_t root, uint32_t id, uint32_t d);
/* Next hop from `id` toward `d` in the healed tree (as next_hop); NONE
 * when either is gone. */
uint32_t pmixev_tree_hnext_hop(const struct pmixev_tree *t, const bool *gone,
			       uint32_t root, uint32_t id, uint32_t d);

#endif /* PMIXEV_TREE_H_ */
