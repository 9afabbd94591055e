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
 *   PMIX_RANGE_NAMESPACE, _SESSION, _GLOBAL, _UNDEF: every process of the
 *     step (a pmixev step is one namespace; pmixev knows no wider session);
 *   PMIX_RANGE_CUSTOM: the processes listed in PMIX_EVENT_CUSTOM_RANGE;
 *   PMIX_RANGE_LOCAL, _PROC_LOCAL: the sender's node (PMIx alone).
 *
 * Agent thread only. No PMIx here.
 */
#ifndef PMIXEV_EVENTS_NOTIFY_H_
#define PMIXEV_EVENTS_NOTIFY_H_

#include "base/step.h"

struct notify;

/* Relays on the step's overlay; relayed events go through its inject. */
struct notify *notify_create(struct step *s);

void notify_destroy(struct notify *n);

#endif /* PMIXEV_EVENTS_NOTIFY_H_ */
