/*
 * wireup/pubsub.h - the publish, lookup and unpublish upcalls (PMIx progress
 * thread): PMIx values become the directory's packed entries
 * (wireup/pubsub_dir.h) and back.
 */
#ifndef PMIXEV_PMIX_PUBSUB_H_
#define PMIXEV_PMIX_PUBSUB_H_

#include <pmix_server.h>

pmix_status_t pubsub_upcall_publish(const pmix_proc_t *proc,
				    const pmix_info_t info[], size_t ninfo,
				    pmix_op_cbfunc_t cbfunc, void *cbdata);
pmix_status_t pubsub_upcall_lookup(const pmix_proc_t *proc, char **keys,
				   const pmix_info_t info[], size_t ninfo,
				   pmix_lookup_cbfunc_t cbfunc, void *cbdata);
pmix_status_t pubsub_upcall_unpublish(const pmix_proc_t *proc, char **keys,
				      const pmix_info_t info[], size_t ninfo,
				      pmix_op_cbfunc_t cbfunc, void *cbdata);

#endif /* PMIXEV_PMIX_PUBSUB_H_ */
