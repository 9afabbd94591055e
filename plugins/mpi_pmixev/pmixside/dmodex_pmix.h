/*
 * pmixside/dmodex_pmix.h - the pmix side of direct modex: the upcall of a
 * local client that wants a remote rank's data (a DMODEX frame to root,
 * answered by DMODEX_DONE), and serving a peer's request for a local
 * rank's data, which root passes on as DMODEX_SERVE: the library's
 * answer (PMIx_server_dmodex_request) goes back as DMODEX_SERVED. Root's
 * half, which routes both over the overlay, is wireup/dmodex.h.
 */
#ifndef PMIXEV_PMIXSIDE_DMODEX_PMIX_H_
#define PMIXEV_PMIXSIDE_DMODEX_PMIX_H_

#include <stddef.h>

#include <pmix_server.h>

#include "pmixside/side.h"

/* Serve root's DMODEX_SERVE frames on `p`'s channel. Before it starts. */
void dmodex_pmix_serve(struct pmixside *p);

/* The upcall (PMIx progress thread), for the server module's table. */
pmix_status_t dmodex_upcall_direct_modex(const pmix_proc_t *proc,
					 const pmix_info_t info[], size_t ninfo,
					 pmix_modex_cbfunc_t cbfunc,
					 void *cbdata);

#endif /* PMIXEV_PMIXSIDE_DMODEX_PMIX_H_ */
