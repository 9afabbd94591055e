/*
 * events/spawned.h - a spawned step's node tells its srun when its ranks
 * registered (doc/spawn.md §4.2, per node): NODE_READY once every local
 * rank connected to the PMIx server, or at once with the failure when a
 * local rank ends first. The step's srun passes the whole step's answer
 * to the parent srun (srun/hub_up.h), which answers the spawn. Nothing
 * for a step no PMIx_Spawn started. Each local rank's end goes the same
 * way to the parent step (an XSTEP EVENT), whose spawner gets it as an
 * event. Agent thread.
 */
#ifndef PMIXEV_EVENTS_SPAWNED_H_
#define PMIXEV_EVENTS_SPAWNED_H_

#include <stdint.h>

#include "base/step.h"
#include "pmixev_proto.h"

struct spawned;

/* NULL when out of memory; a placeholder when the step is not spawned. */
struct spawned *spawned_create(struct step *s);

/* A local rank ended (its event `m`): told to the parent step, whose
 * spawner's PMIx server passes it on (NULL-safe). */
void spawned_rank_ended(struct spawned *sd, const struct pmixev_event_msg *m);

/*
 * A local rank ended abnormally (its event `m`; a normal end is not
 * sent): told to every child step registered here (dst ALL), whose nodes'
 * PMIx servers pass it to their ranks connected to this step (NULL-safe).
 */
void spawned_tell_children(struct spawned *sd,
			   const struct pmixev_event_msg *m);

/* Local rank `rank` connected to the PMIx server (NULL-safe). */
void spawned_connected(struct spawned *sd, uint32_t rank);

void spawned_destroy(struct spawned *sd);

#endif /* PMIXEV_EVENTS_SPAWNED_H_ */
