/*
 * pmix/query.h - the query upcall. Answered so far: PMIX_QUERY_NAMESPACES
 * (the step's namespace) and PMIXEV_QUERY_EVENTS (pmix/inject.h); a query
 * with neither gets PMIX_ERR_NOT_FOUND. PMIx progress thread.
 */
#ifndef PMIXEV_PMIX_QUERY_H_
#define PMIXEV_PMIX_QUERY_H_

#include <pmix_server.h>

pmix_status_t query_upcall(pmix_proc_t *proct, pmix_query_t *queries,
			   size_t nqueries, pmix_info_cbfunc_t cbfunc,
			   void *cbdata);

#endif /* PMIXEV_PMIX_QUERY_H_ */
