/*
 * overlay/route.h - frames on a stepd's links: each is checked, then
 * taken by the layer it is for (handshake, liveness, heal), passed on
 * toward its destination, or delivered to the handler of its type. Above
 * heal.h; on the agent thread.
 */
#ifndef PMIXEV_OVERLAY_ROUTE_H_
#define PMIXEV_OVERLAY_ROUTE_H_

#include <stddef.h>
#include <stdint.h>

#include "overlay/handshake.h"
#include "overlay/heal.h"
#include "overlay/link.h"

struct route;

/* A message for this node from node `src` (overlay.h: overlay_handler_t). */
typedef void (*route_handler_fn)(void *ctx, uint32_t src, const uint8_t *data,
				 size_t len);

/* Take every frame that arrives on the links of `ls`. NULL on failure. */
struct route *route_create(struct links *ls, struct handshake *hs,
			   struct heal *h, uint32_t nnodes);

/* The handler of messages of `type` (one per type). */
void route_on(struct route *rt, uint8_t type, route_handler_fn fn, void *ctx);

/* To node `dst` or srun (PMIXEV_NODE_SRUN): 0, or -1 if unreachable. */
int route_send(struct route *rt, uint32_t dst, uint8_t type, const void *data,
	       size_t len);

/* To every other node, each once; links_flood's count of refusals. */
unsigned route_broadcast(struct route *rt, uint8_t type, const void *data,
			 size_t len);

void route_destroy(struct route *rt);

#endif /* PMIXEV_OVERLAY_ROUTE_H_ */
