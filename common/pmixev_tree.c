/*
 * pmixev_tree.c - k-ary tree arithmetic and routing for the overlay.
 *
 * Ids are below n <= UINT32_MAX - 2, so they never collide with
 * PMIXEV_TREE_NONE; child ids are computed in 64 bits. Every function
 * treats an id >= n (or a zero width) as not in the tree.
 */
#include "config.h"

#include "pmixev_tree.h"

static bool valid(const struct pmixev_tree *t, uint32_t id)
{
	return t->width >= 1 && id < t->n;
}

/* Parent of a valid, non-root id. */
static uint32_t up(const struct pmixev_tree *t, uint32_t id)
{
	return (id - 1) / t->width;
}

/*
 * For d > id: the ancestor c of d (d itself included) with c > id and
 * parent(c) <= id. d is below id exactly when parent(c) == id, and then c
 * is the child of id on the way to d. Width 1 is a chain: c is id + 1.
 */
static uint32_t climb(const struct pmixev_tree *t, uint32_t id, uint32_t d)
{
	if (t->width == 1)
		return id + 1;
	while (up(t, d) > id)
		d = up(t, d);
	return d;
}

uint32_t pmixev_tree_parent(const struct pmixev_tree *t, uint32_t id)
{
	if (!valid(t, id) || id == 0)
		return PMIXEV_TREE_NONE;
	return up(t, id);
}

uint32_t pmixev_tree_nchildren(const struct pmixev_tree *t, uint32_t id)
{
	uint64_t first;

	if (!valid(t, id))
		return 0;
	first = (uint64_t)t->width * id + 1;
	if (first >= t->n)
		return 0;
	if (t->n - first < t->width)
		return (uint32_t)(t->n - first);
	return t->width;
}

uint32_t pmixev_tree_child(const struct pmixev_tree *t, uint32_t id, uint32_t i)
{
	if (i >= pmixev_tree_nchildren(t, id))
		return PMIXEV_TREE_NONE;
	return (uint32_t)((uint64_t)t->width * id + 1 + i);
}

bool pmixev_tree_in_subtree(const struct pmixev_tree *t, uint32_t id,
			    uint32_t d)
{
	if (!valid(t, id) || !valid(t, d) || d < id)
		return false;
	return d == id || up(t, climb(t, id, d)) == id;
}

uint32_t pmixev_tree_next_hop(const struct pmixev_tree *t, uint32_t id,
			      uint32_t d)
{
	uint32_t c;

	if (!valid(t, id) || !valid(t, d))
		return PMIXEV_TREE_NONE;
	if (d == id)
		return id;
	if (d > id) {
		c = climb(t, id, d);
		if (up(t, c) == id)
			return c;
	}
	return up(t, id);
}

uint32_t pmixev_tree_depth(const struct pmixev_tree *t, uint32_t id)
{
	uint32_t depth = 0;

	if (!valid(t, id))
		return PMIXEV_TREE_NONE;
	if (t->width == 1)
		return id;
	while (id != 0) {
		id = up(t, id);
		depth++;
	}
	return depth;
}

uint32_t pmixev_tree_hroot(const struct pmixev_tree *t, const bool *gone)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (!gone[i])
			return i;
	return PMIXEV_TREE_NONE;
}

uint32_t pmixev_tree_hparent(const struct pmixev_tree *t, const bool *gone,
			     uint32_t root, uint32_t id)
{
	uint32_t p;

	if (!valid(t, id) || id == root)
		return PMIXEV_TREE_NONE;
	for (p = pmixev_tree_parent(t, id); p != PMIXEV_TREE_NONE;
	     p = pmixev_tree_parent(t, p))
		if (!gone[p])
			return p;
	return root;
}

bool pmixev_tree_in_hsubtree(const struct pmixev_tree *t, const bool *gone,
			     uint32_t root, uint32_t id, uint32_t d)
{
	if (!valid(t, id) || !valid(t, d) || gone[id] || gone[d])
		return false;
	for (; d != PMIXEV_TREE_NONE && d >= id;
	     d = pmixev_tree_hparent(t, gone, root, d))
		if (d == id)
			return true;
	return false;
}

uint32_t pmixev_tree_hnext_hop(const struct pmixev_tree *t, const bool *gone,
			       uint32_t root, uint32_t id, uint32_t d)
{
	uint32_t prev = d;

	if (!valid(t, id) || !valid(t, d) || gone[id] || gone[d])
		return PMIXEV_TREE_NONE;
	if (d == id)
		return id;
	/* Climb from d: reaching id means d is below it, via `prev`. */
	for (uint32_t u = pmixev_tree_hparent(t, gone, root, d);
	     u != PMIXEV_TREE_NONE && u >= id;
	     u = pmixev_tree_hparent(t, gone, root, u)) {
		if (u == id)
			return prev;
		prev = u;
	}
	return pmixev_tree_hparent(t, gone, root, id);
}
