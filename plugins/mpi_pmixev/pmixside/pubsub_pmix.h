/*
 * pmixside/pubsub_pmix.h - the publish, lookup and unpublish upcalls: the
 * pmix side's half of the step's directory (root's is wireup/pubsub.h).
 *
 * PMIx progress thread: each upcall packs its request as a PUBSUB frame
 * (published values packed by PMIx, opaque to root) and sends it; the
 * pmix side's agent answers PMIx when PUBSUB_DONE comes, unpacking the
 * values a lookup found. Only the step's local ranks publish and look up;
 * a request of more than PMIXEV_PMIXD_ENTRIES_MAX keys, an empty key,
 * values of more than PMIxevPublishMax in one request, a PMIX_RANGE or
 * PMIX_PERSISTENCE of another type, or a range the directory does not
 * serve (PMIX_RANGE_RM, _CUSTOM: PMIX_ERR_NOT_SUPPORTED) is refused here.
 */
#ifndef PMIXEV_PMIXSIDE_PUBSUB_PMIX_H_
#define PMIXEV_PMIXSIDE_PUBSUB_PMIX_H_

#include <pmix_server.h>

#include "pmixside/side.h"

/* Answer PUBSUB_DONE frames on `p`'s channel. Before it runs. */
void pubsub_pmix_listen(struct pmixside *p);

pmix_status_t pubsub_upcall_publish(const pmix_proc_t *proc,
				    const pmix_info_t info[], size_t ninfo,
				    pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t pubsub_upcall_lookup(const pmix_proc_t *proc, char **keys,
				   const pmix_info_t info[], size_t ninfo,
				   pmix_lookup_cbfunc_t cbfunc, void *cbdata);
pmix_status_t pubsub_upcall_unpublish(const pmix_proc_t *proc, char **keys,
				      const pmix_info_t info[], size_t ninfo,
				      pmix_op_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIXSIDE_PUBSUB_PMIX_H_ */
