/*
 * wireup/dmodex.h - direct modex: fetch one remote rank's published data from
 * the stepd that hosts it, when a client asks for a key that no fence
 * distributed. Requests are routed over the overlay; the hosting stepd
 * asks its PMIx server (PMIx_server_dmodex_request) and routes the answer
 * back. Every request ends: with the data, an error, or PMIX_ERR_TIMEOUT.
 * The upcall (dmodex_upcall_direct_modex) runs on the PMIx progress
 * thread and posts to the agent; the rest is called on the agent thread.
 */
#ifndef PMIXEV_PMIX_DMODEX_H_
#define PMIXEV_PMIX_DMODEX_H_

#include <stddef.h>
#include <stdint.h>

#include <pmix_server.h>

#include "base/step.h"

struct dmodex;

/* `timeout_sec`: how long a request waits unless its call says. */
/* For step `s` (default timeout PMIxevTimeout); follows its node loss. */
struct dmodex *dmodex_create(struct step *s);

/* Free everything without answering any call. */
void dmodex_destroy(struct dmodex *d);

/* The upcall (PMIx progress thread), for the server module's table. */
pmix_status_t dmodex_upcall_direct_modex(const pmix_proc_t *proc,
					 const pmix_info_t info[], size_t ninfo,
					 pmix_modex_cbfunc_t cbfunc,
					 void *cbdata);

#endif /* PMIXEV_PMIX_DMODEX_H_ */
