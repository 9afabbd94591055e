/*
 * overlay/liveness.h - whether a stepd's neighbours are still there:
 * heartbeats, the bootstrap deadline, and the loss of a link (closed,
 * silent, never up), told to the layer above as a node gone. Above
 * handshake.h; on the agent thread.
 */
#ifndef PMIXEV_OVERLAY_LIVENESS_H_
#define PMIXEV_OVERLAY_LIVENESS_H_

#include <stdint.h>

#include "overlay/handshake.h"
#include "overlay/link.h"

/* How a node left the tree, from the least to the most telling. */
enum gone_kind {
	GONE_UNREACHABLE, /* a node we tried to adopt us did not answer */
	GONE_ENDED,	  /* said BYE: its part of the step ended */
	GONE_LOST,	  /* an established link broke or went silent */
};

/* The neighbour `node` is gone (`kind`, because of `why`). */
typedef void (*liveness_gone_fn)(void *ctx, uint32_t node, enum gone_kind kind,
				 const char *why);

struct liveness;

/*
 * Watch the links of `ls` (node of a step of `nnodes`): the bootstrap
 * must be done within `timeout_sec`, and when srun's link closes before
 * its table came, every other node is lost at once; with `heartbeat_ms`,
 * a neighbour silent for three periods is lost.
 */
struct liveness *liveness_create(struct links *ls, struct handshake *hs,
				 uint32_t nnodes, unsigned timeout_sec,
				 unsigned heartbeat_ms);
void liveness_on_gone(struct liveness *lv, liveness_gone_fn fn, void *ctx);

/* Start the bootstrap deadline and the heartbeats. 0, or -1. */
int liveness_start(struct liveness *lv);

/* `l`'s peer said BYE: its part of the step ended normally. */
void liveness_bye(struct link *l);

/* No more timers or callbacks. NULL-safe. */
void liveness_destroy(struct liveness *lv);

#endif /* PMIXEV_OVERLAY_LIVENESS_H_ */
