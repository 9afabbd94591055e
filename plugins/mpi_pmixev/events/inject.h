/*
 * events/inject.h - root's door to this node's PMIx server: every event
 * for the local clients (Slurm's task exits and node losses, the
 * scheduler's and the site's events, checkpoint requests, clients' events
 * relayed from other nodes) goes to the pmix side as an INJECT frame,
 * which delivers and counts it (pmixside/inject_pmix.h). What root cannot
 * hand over (a malformed frame from a peer, the channel closed, no
 * memory) it counts here per source, logs when it happens (1st, 2nd, 4th,
 * ... time) and sums in the slurmd log at the step's end.
 *
 * Agent thread only. No PMIx here.
 */
#ifndef PMIXEV_EVENTS_INJECT_H_
#define PMIXEV_EVENTS_INJECT_H_

#include "base/step.h"
#include "pmixev_pmixd_msg.h"

struct inject;

/* For the step's channel to the pmix side; NULL when out of memory. */
struct inject *inject_create(const struct step *s);

/* Hand `m` to the pmix side; counted under `counted_as` if it cannot be. */
void inject_send(struct inject *in, const struct pmixev_pmixd_inject *m,
		 const char *counted_as);

/* An event from `source` will not reach this node's processes because of
 * `why`: counted and logged. */
void inject_undelivered(struct inject *in, const char *source, const char *why);

/* Log what root could not hand over, if anything, and free. NULL-safe. */
void inject_destroy(struct inject *in);

#endif /* PMIXEV_EVENTS_INJECT_H_ */
