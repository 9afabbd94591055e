/*
 * events/events.h - Slurm-observed events turned into PMIx events on every
 * node.
 *
 * A task exit seen by this node's slurmstepd (through the SPANK plugin's
 * task_exit hook) is classified with the most specific standard PMIx code,
 * broadcast over the overlay, and injected into the local PMIx server on
 * every node, with the dead process as the event's source (so it never gets
 * its own death) and as PMIX_EVENT_AFFECTED_PROC:
 *
 *   killed by a signal                      PMIX_ERR_PROC_ABORTED_BY_SIG -402
 *   called PMIx_Abort                       PMIX_ERR_PROC_REQUESTED_ABORT -8
 *   exited without PMIx_Finalize            PMIX_ERR_PROC_TERM_WO_SYNC   -200
 *   exited non-zero (after finalize or
 *   never a PMIx client)                    PMIX_ERR_EXIT_NONZERO_TERM   -404 *
 *   exited 0 (after finalize or never a
 *   PMIx client)                            PMIX_EVENT_PROC_TERMINATED   -201 *
 *
 * (* informational: PMIX_EVENT_NON_DEFAULT, so catch-all handlers such as
 * Open MPI's never see them.) Each event carries PMIX_EXIT_CODE (exit
 * status or signal), PMIX_HOSTNAME, PMIX_EVENT_TEXT_MESSAGE,
 * PMIX_EVENT_TIMESTAMP, and pmixev's source and per-source sequence.
 *
 * A node lost (not a normal end), as this node learned from the overlay
 * (every node does, once), becomes PMIX_EVENT_NODE_DOWN (-231,
 * non-default) to this node's processes, from source {NSPACE.srv, node},
 * with PMIX_EVENT_AFFECTED_PROCS (the ranks it hosted), PMIX_NODEID and
 * PMIX_HOSTNAME; pmixev's source is this node's stepd. Then each of its
 * ranks whose end was not told yet becomes a process event of its own,
 * PMIX_ERR_PROC_TERM_WO_SYNC (-200, default handlers too) with the rank as
 * source and PMIX_EVENT_AFFECTED_PROC and PMIX_EXIT_CODE -1: fault-tolerant
 * MPI (ULFM) learns of failed processes one by one, never from a node.
 * All calls on the agent thread.
 */
#ifndef PMIXEV_PMIX_EVENTS_H_
#define PMIXEV_PMIX_EVENTS_H_

#include <stdint.h>

#include "base/step.h"

struct events;

/* Events reach the local PMIx server through the step's inject. */
struct events *events_create(struct step *s);

/* What the local PMIx server told us about a local rank. */
void events_client_connected(struct events *ev, uint32_t rank);
void events_client_finalized(struct events *ev, uint32_t rank);
void events_client_aborted(struct events *ev, uint32_t rank);

/* Local task `rank` ended with wait(2) status `status`. */
void events_task_exit(struct events *ev, uint32_t rank, int status);

/*
 * The site reported `code` with `text` about this node (pmixev-notify):
 * a node event as above, non-default, with source "site@NODE" and the
 * site's own sequence.
 */
void events_site(struct events *ev, int code, const char *text);

/*
 * The watcher saw a change of the job in slurmctld: a job event `code`
 * (include/pmixev_events.h) to every process of the step, with
 * PMIX_TIME_REMAINING = `value` seconds (when >= 0), `detail` (what
 * follows a preemption; whether the end time moved), source
 * "slurmctld-via-owner@NODE" (slurmctld's answer as the owner helper, a
 * process of the job owner, relayed it: the owner's word, no more) and its
 * own sequence.
 */
void events_job(struct events *ev, int code, int64_t value, uint32_t detail,
		const char *text);

/*
 * The watcher saw node `host` of the job taken out of service (`avail`:
 * enum pmixev_node_avail) for `reason`: PMIX_EVENT_NODE_OFFLINE to every
 * process of the step that registered for it (an environment event:
 * non-default), naming the node (PMIX_HOSTNAME; PMIX_NODEID and the ranks
 * it hosts when it is one of the step's), its state and the reason.
 */
void events_node_offline(struct events *ev, const char *host, uint8_t avail,
			 const char *reason, const char *text);

void events_destroy(struct events *ev);

#endif /* PMIXEV_PMIX_EVENTS_H_ */
