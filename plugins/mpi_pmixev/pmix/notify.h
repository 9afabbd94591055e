/*
 * pmix/notify.h - a client's PMIx_Notify_event beyond its node.
 *
 * The PMIx server delivers a client's event to the other clients of its
 * node itself and hands it to the host (notify_event upcall) unless its
 * range is local. pmixev relays it along the tree to every other node,
 * where the local PMIx server delivers it with the original source and
 * range: each intended process gets it once, the sender never (it is the
 * source), and no server hands a relayed event back to the host (the
 * source is not the server), so it never loops. The server also hands up
 * the stepds' own node events (their source is the server itself); those
 * the stepds spread themselves, so they are not relayed. What a range reaches:
 *   PMIX_RANGE_NAMESPACE, _SESSION, _GLOBAL, _UNDEF: every process of the
 *     step (a pmixev step is one namespace; pmixev knows no wider session);
 *   PMIX_RANGE_CUSTOM: the processes listed in PMIX_EVENT_CUSTOM_RANGE;
 *   PMIX_RANGE_LOCAL, _PROC_LOCAL: the sender's node (PMIx alone).
 */
#ifndef PMIXEV_PMIX_NOTIFY_H_
#define PMIXEV_PMIX_NOTIFY_H_

#include <pmix_common.h>

#include "base/agent.h"
#include "pmix/inject.h"
#include "base/layout.h"
#include "overlay/overlay.h"

struct notify;

/* Relayed events reach the local PMIx server through `inject`, counted
 * under "rank@R". */
/* Events of more than `max_bytes` (packed infos) stay on their node. */
struct notify *notify_create(struct overlay *ov, struct agent *agent,
			     const struct layout *lay, struct inject *inject,
			     size_t max_bytes);

/*
 * The notify_event upcall (PMIx progress thread): copy the event and
 * relay it from the agent thread. Returns what the upcall must return.
 */
pmix_status_t notify_from_client(struct notify *n, pmix_status_t code,
				 const pmix_proc_t *source,
				 pmix_data_range_t range,
				 const pmix_info_t info[], size_t ninfo);

void notify_destroy(struct notify *n);

#endif /* PMIXEV_PMIX_NOTIFY_H_ */
