/*
 * pmixside/notify_pmix.h - a client's PMIx_Notify_event beyond its node:
 * the pmix side's half (root's is events/notify.h, which says what each
 * range reaches).
 *
 * The PMIx server delivers a client's event to the other clients of its
 * node itself and hands it to the host (notify_event upcall) unless its
 * range is local. The upcall packs its infos (without the server's own
 * marker) and sends them to root as a NOTIFY frame; root relays the bytes
 * along the tree without reading them, and every other node's pmix side
 * delivers them with the original source and range (inject_pmix.h): each
 * intended process gets it once, the sender never (it is the source), and
 * no server hands a relayed event back to the host (the source is not the
 * server), so it never loops. The server also hands up the stepds' own
 * node events (their source is the server itself); those the stepds spread
 * themselves, so they are not relayed.
 */
#ifndef PMIXEV_PMIXSIDE_NOTIFY_PMIX_H_
#define PMIXEV_PMIXSIDE_NOTIFY_PMIX_H_

#include <pmix_server.h>

/* The PMIx server's own marker on events from clients (src/event/). */
#define NOTIFY_SERVER_MARK "pmix.srvr.internal.notify"

/*
 * The upcalls (PMIx progress thread). notify_event counts the event
 * (inject_pmix.h) and sends it to root; it never calls back: it must
 * answer OPERATION_SUCCEEDED, the library mishandles anything else
 * (shared notes). Events of more than MAX_INFO infos or PMIxevEventMax
 * packed bytes stay on their node, counted as undelivered. Registrations
 * are accepted for every code.
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

#endif /* PMIXEV_PMIXSIDE_NOTIFY_PMIX_H_ */
