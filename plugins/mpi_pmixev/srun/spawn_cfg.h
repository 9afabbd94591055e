/*
 * srun/spawn_cfg.h - what srun's spawns (spawn.h) need of the step: its
 * ids, ranks and limits, and how to reach its stepds.
 */
#ifndef PMIXEV_SRUN_SPAWN_CFG_H_
#define PMIXEV_SRUN_SPAWN_CFG_H_

#include <stddef.h>
#include <stdint.h>

#include "pmixev_buf.h"
#include "pmixev_taskmap.h"

/* Send a frame of `type` to the step's node `node` (its stepd). */
typedef int (*spawns_send_fn)(void *ctx, uint32_t node, uint8_t type,
			      const struct pmixev_buf *body);

/* An XSTEP payload from a child srun that the family routes (a PUBSUB
 * request, pmixev_xstep_routed), for the caller to route. */
typedef void (*spawns_route_fn)(void *ctx, const uint8_t *data, size_t len);

struct spawns_cfg {
	uint32_t job_id, step_id;	  /* this step */
	const char *job_name;		  /* the child's is NAME.spawn */
	const struct pmixev_taskmap *map; /* this step's ranks */
	uint32_t timeout_max;		  /* PMIxevTimeout, seconds */
	uint32_t kill_wait;		  /* KillWait, seconds */
	spawns_send_fn send;
	void *send_ctx;
	spawns_route_fn route; /* called with send_ctx */
};

#endif /* PMIXEV_SRUN_SPAWN_CFG_H_ */
