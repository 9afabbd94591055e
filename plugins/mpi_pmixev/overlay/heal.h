/*
 * overlay/heal.h - the step's tree without the nodes gone from it: the
 * gone set, the healed tree every node computes alike, new parents dialled
 * and GONE told to every node. Above liveness.h; on the agent thread.
 */
#ifndef PMIXEV_OVERLAY_HEAL_H_
#define PMIXEV_OVERLAY_HEAL_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "overlay/handshake.h"
#include "overlay/link.h"
#include "overlay/liveness.h"
#include "pmixev_tree.h"

struct heal;

/* Node `node` left the tree (overlay.h: overlay_lost_t). */
typedef void (*heal_lost_fn)(void *ctx, uint32_t node, const char *why,
			     bool ended);

struct heal *heal_create(const struct pmixev_tree *tree, struct links *ls,
			 struct handshake *hs, struct liveness *lv);
void heal_on_lost(struct heal *h, heal_lost_fn fn, void *ctx);

/* A GONE frame arrived over `l`. 0, or -1 if malformed (logged). */
int heal_on_gone(struct heal *h, struct link *l, const uint8_t *data,
		 size_t len);

/* The next hop from this node toward node `dst` in the healed tree
 * (PMIXEV_TREE_NONE: none). */
uint32_t heal_next_hop(const struct heal *h, uint32_t dst);

/* See overlay.h: overlay_children, overlay_in_subtree, overlay_is_child. */
size_t heal_children(const struct heal *h, uint32_t *out);
bool heal_in_subtree(const struct heal *h, uint32_t id, uint32_t d);
bool heal_is_child(const struct heal *h, uint32_t node);

void heal_destroy(struct heal *h);

#endif /* PMIXEV_OVERLAY_HEAL_H_ */
