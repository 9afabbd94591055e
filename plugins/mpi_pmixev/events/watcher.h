/*
 * events/watcher.h - the step's eye on slurmctld: preemption, time limit,
 * suspend/resume, requeue, cancel and end of the job become PMIx events
 * on every node.
 *
 * Slurm pushes none of these to slurmstepd, so the first node's stepd
 * (after its loss, the healed tree's new root) asks slurmctld for the job's
 * state every PMIxevWatchInterval seconds, through the owner helper (one
 * slurm_load_job RPC with the job owner's identity, whatever the number of
 * nodes), and turns what changed (common/pmixev_jobwatch.h) into job events
 * (events_job). Some looks are at the job's nodes instead (slurm_load_node,
 * common/pmixev_nodewatch.h): a node drained, failing or down becomes a
 * node-offline event (events_node_offline), still one request per
 * interval. While slurmctld does not answer it backs off (doubling, up to
 * 60 s), logs the outage once, and on recovery compares with the last state it
 * saw, so nothing that changed meanwhile is missed. Agent thread only.
 */
#ifndef PMIXEV_PMIX_WATCHER_H_
#define PMIXEV_PMIX_WATCHER_H_

#include "base/step.h"

struct watcher;

/*
 * Through the step's helper, to its events: poll every PMIxevWatchInterval;
 * warn PMIxevTimeWarning before the end (0: never); announce the kinds in
 * PMIxevSchedEvents only. About every PMIxevNodeInterval (0: never; at
 * most every other look) the look is at the job's nodes instead, for
 * drained, failing or down ones (node-offline events).
 */
struct watcher *watcher_create(const struct step *s);

/* Start polling (agent thread). 0, or -1 (logged). */
int watcher_start(struct watcher *w);

/* Log what it cost (requests to slurmctld) and free. */
void watcher_destroy(struct watcher *w);

#endif /* PMIXEV_PMIX_WATCHER_H_ */
