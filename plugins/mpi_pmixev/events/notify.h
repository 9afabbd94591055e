/*
 * events/notify.h - a client's PMIx_Notify_event beyond its node: root's
 * half (the pmix side's is pmixside/notify_pmix.h).
 *
 * The pmix side sends a client's event as a NOTIFY frame; root checks it
 * with its bounds (the source is one of the step's processes or tools, the
 * range known, the packed infos at most PMIxevEventMax) and relays it
 * along the tree to every other node without reading the infos; each
 * node's root hands it to its pmix side (INJECT), which delivers it with
 * the original source and range. What a range reaches:
 *   PMIX_RANGE_NAMESPACE: every process of the step (one namespace);
 *   PMIX_RANGE_SESSION, _GLOBAL, _UNDEF: every process of the step and of
 *     the spawn family's steps this node registered (its parent and its
 *     children, doc/spawn.md §5.4): the origin node sends it to every
 *     node of each (XSTEP EVENT for ALL, through srun), where root checks
 *     that it names the sending step's namespace and hands it to its pmix
 *     side, which delivers it to its clients; it is not relayed further;
 *   PMIX_RANGE_CUSTOM: the processes listed in PMIX_EVENT_CUSTOM_RANGE;
 *   PMIX_RANGE_LOCAL, _PROC_LOCAL: the sender's node (PMIx alone).
 *
 * Agent thread only. No PMIx here.
 */
#ifndef PMIXEV_EVENTS_NOTIFY_H_
#define PMIXEV_EVENTS_NOTIFY_H_

#include "base/step.h"
#include "pmixev_buf.h"
#include "pmixev_xstep.h"

struct notify;

/* Relays on the step's overlay; relayed events go through its inject. */
struct notify *notify_create(struct step *s);

void notify_destroy(struct notify *n);

/* srun's XSTEP EVENT for every node (header `h`, checked, the body in
 * `b`): a family step's client event for this node's clients. */
void notify_from_step(struct notify *n, const struct pmixev_xstep_hdr *h,
		      struct pmixev_buf *b);

#endif /* PMIXEV_EVENTS_NOTIFY_H_ */
