/*
 * srun/xroute.h - an srun's routing of the spawn family's XSTEP frames
 * (doc/spawn.md §3.2, §5): publish/lookup to the family root's node 0
 * and back (pmixev_xstep_pubsub_hop), and the cross-step collectives'
 * and direct modex' frames to any step of the family
 * (pmixev_xstep_route_hop). Reads headers only. Agent thread.
 */
#ifndef PMIXEV_SRUN_XROUTE_H_
#define PMIXEV_SRUN_XROUTE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pmixev_xstep.h"

struct rdv;
struct hub_up;
struct spawns;

/* The step whose srun routes, and its links (hub NULL when not spawned;
 * spawns set once the agent runs). */
struct xroute {
	const char *step_id;
	uint32_t job, step, nnodes;
	struct rdv *rdv;
	struct hub_up *hub;
	struct spawns *spawns;
	uint64_t dropped; /* routed frames with no way on */
};

/* An XSTEP payload this routing takes (a PUBSUB type or a routed one). */
bool xroute_takes(const uint8_t *data, size_t len);

/* Route an XSTEP payload that came `from` (node `node` for a stepd). */
void xroute_frame(struct xroute *r, enum pmixev_xstep_from from, uint32_t node,
		  const uint8_t *data, size_t len);

#endif /* PMIXEV_SRUN_XROUTE_H_ */
