/*
 * events/notify.h - a client's PMIx_Notify_event beyond its node.
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

#include <pmix_server.h>

#include "base/step.h"

struct notify;

/* The PMIx server's own marker on events from clients (src/event/). */
#define NOTIFY_SERVER_MARK "pmix.srvr.internal.notify"

/*
 * Relayed events reach the local PMIx server through the step's inject,
 * counted under "rank@R". Events of more than PMIxevEventMax (packed
 * infos) stay on their node.
 */
struct notify *notify_create(struct step *s);

/*
 * The upcalls (PMIx progress thread). notify_event copies the event and
 * relays it from the agent thread; it never calls back (see notify.c).
 * Registrations are accepted for every code.
 */
pmix_status_t notify_upcall_event(pmix_status_t code, const pmix_proc_t *source,
				  pmix_data_range_t range, pmix_info_t info[],
				  size_t ninfo, pmix_op_cbfunc_t cbfunc,
				  void *cbdata);
pmix_status_t notify_upcall_register(pmix_status_t *codes, size_t ncodes,
				     const pmix_info_t info[], size_t ninfo,
				     pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t notify_upcall_deregister(pmix_status_t *codes, size_t ncodes,
				       pmix_op_cbfunc_t cbfunc, void *cbdata);

void notify_destroy(struct notify *n);

#endif /* PMIXEV_PMIX_NOTIFY_H_ */
