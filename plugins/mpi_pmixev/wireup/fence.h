/*
 * wireup/fence.h - PMIx fences (with or without data) and the barriers
 * behind connect/disconnect: three kinds of collective on the engine
 * (wireup/coll.h), root's half, on the agent thread. The calls come from
 * the pmix side as FENCE frames (the upcalls are in pmixside/fence_pmix.c),
 * and so does their data: opaque bytes here, gathered end to end and
 * handed back whole with FENCE_DONE.
 */
#ifndef PMIXEV_PMIX_FENCE_H_
#define PMIXEV_PMIX_FENCE_H_

#include "base/step.h"

/*
 * Set the fence, connect and disconnect kinds on `s->coll`, and take the
 * pmix side's FENCE frames on `s->chan` (checked against `s->pmixd_lim`)
 * to it, each answered with FENCE_DONE. Before the agent runs. 0, or -1
 * (a kind was set already).
 */
int fence_listen(struct step *s);

#endif /* PMIXEV_PMIX_FENCE_H_ */
