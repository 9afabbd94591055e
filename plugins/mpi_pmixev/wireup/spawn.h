/*
 * wireup/spawn.h - root's part of a PMIx_Spawn on the requester's node
 * (doc/spawn.md §2.1 step 2): the pmix side's SPAWN, checked with its
 * codec and counted against PMIXEV_PMIXD_BUDGET_SPAWN, goes to the step's
 * srun as SPAWN_REQ (root starts nothing itself); srun's SPAWN_STATUS
 * answers it (SPAWN_DONE): the child step's namespace once every child
 * registered, or the failure with srun's reason. A spawn srun does not
 * answer within twice its timeout (PMIxevTimeout when it has none) and
 * five seconds fails with PMIX_ERR_TIMEOUT, and its child srun is asked
 * to end. Agent thread.
 */
#ifndef PMIXEV_WIREUP_SPAWN_H_
#define PMIXEV_WIREUP_SPAWN_H_

#include "base/step.h"

struct spawn;

/* Serving the step's channel and srun link; NULL when out of memory. */
struct spawn *spawn_create(struct step *s);

/* NULL-safe; the agent thread stopped first. */
void spawn_destroy(struct spawn *sp);

#endif /* PMIXEV_WIREUP_SPAWN_H_ */
