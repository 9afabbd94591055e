/*
 * pmixside/invite_watch.h - open group invitations on this node, so that
 * the end of a process they wait for reaches the processes waiting.
 *
 * PMIx_Group_invite and PMIx_Group_join are client events only: the host
 * never sees the calls (doc/groups.md §1). Every node sees every such event
 * (its own clients' through the notify upcall, the others' relayed by
 * root), so every node keeps the same table:
 *   - PMIX_GROUP_INVITED from rank L with PMIX_GROUP_ID G opens (L, G) with
 *     the ranks of its PMIX_EVENT_CUSTOM_RANGE but L as invitees;
 *   - PMIX_GROUP_INVITE_ACCEPTED or _DECLINED from rank R answers R in the
 *     oldest open invitation of the leader it names (its custom range; any
 *     leader without one) that still waits for R: a join names no group;
 *   - PMIX_GROUP_CONSTRUCT_COMPLETE from L with G closes (L, G).
 * When a rank ends, whatever its exit (the library's own invite handler
 * listens for PMIX_PROC_TERMINATED, -111, which no host sends for an
 * exit: it never fails an invitation itself):
 *   - each invitation still waiting for it fails: the inviter's node
 *     notifies PMIX_GROUP_INVITE_FAILED to the inviter;
 *   - each invitation it made closes: every node notifies
 *     PMIX_GROUP_LEADER_FAILED to its invitees that have not answered.
 * Both come from this node's server proc ({NSPACE.srv, node}), custom
 * range, PMIX_EVENT_NON_DEFAULT, PMIX_EVENT_DO_NOT_CACHE (their targets
 * are waiting already), with PMIX_EVENT_AFFECTED_PROC (the rank that
 * ended), PMIX_GROUP_ID and PMIX_EVENT_TEXT_MESSAGE. Neither makes the
 * inviter's PMIx_Group_invite return: OpenPMIx 4.2.2 and 5.0.7 complete an
 * invite only when all have accepted, and fail it never.
 *
 * At most INVITE_WATCH_MAX invitations open and INVITE_WATCH_RANKS
 * invitees in them: beyond, an invitation is not watched, counted and
 * logged. The table goes with the step.
 *
 * Events may come on the PMIx progress thread and on the agent: the table
 * is under a lock, held only to read and update it. The notifications are
 * made on the agent (invite_watch_ended), after the lock is released.
 */
#ifndef PMIXEV_PMIXSIDE_INVITE_WATCH_H_
#define PMIXEV_PMIXSIDE_INVITE_WATCH_H_

#include <stddef.h>
#include <stdint.h>

#include <pmix_common.h>

#include "base/layout.h"

#define INVITE_WATCH_MAX   256
#define INVITE_WATCH_RANKS (1u << 18)

struct invite_watch;

/* For the step laid out in `lay` (borrowed). NULL when out of memory. */
struct invite_watch *invite_watch_create(const struct layout *lay);

/* A client's event `code` from `source` with `info`, as this node's server
 * delivers it: read when it is one of the four above. Any thread. */
void invite_watch_event(struct invite_watch *w, pmix_status_t code,
			const pmix_proc_t *source, const pmix_info_t info[],
			size_t ninfo);

/* Rank `rank` of the step ended (any exit): notify as above. Agent. */
void invite_watch_ended(struct invite_watch *w, uint32_t rank);

/* Log what was not watched or not delivered, if anything, and free.
 * NULL-safe. */
void invite_watch_destroy(struct invite_watch *w);

#endif /* PMIXEV_PMIXSIDE_INVITE_WATCH_H_ */
