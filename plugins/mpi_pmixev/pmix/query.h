/*
 * pmix/query.h - the query upcall (PMIx progress thread), answered on the
 * agent thread from what the step itself knows, key by key:
 *
 *   PMIX_QUERY_NAMESPACES      (string) the step's namespace
 *   PMIX_QUERY_NAMESPACE_INFO  (data array of PMIX_INFO) per namespace an
 *                              info array: PMIX_NSPACE, PMIX_JOBID
 *                              ("JOB.STEP"), PMIX_JOB_SIZE, PMIX_NUM_NODES
 *   PMIX_QUERY_SPAWN_SUPPORT   (string) "": pmixev spawns nothing yet
 *   PMIX_QUERY_DEBUG_SUPPORT   (string) "": nor launches debuggers
 *   PMIX_SERVER_URI            (string) this node's PMIx server
 *   PMIX_QUERY_NUM_PSETS       (size_t) 0, PMIX_QUERY_PSET_NAMES (string)
 *                              "": no process sets
 *   PMIXEV_QUERY_EVENTS        lost events (pmix/inject.h)
 *
 * A query whose PMIX_NSPACE or PMIX_PROCID qualifier names another
 * namespace gets no answer from the step; PMIX_PROCID together with
 * PMIX_NSPACE or PMIX_RANK is PMIX_ERR_BAD_PARAM. A key asked more than
 * once is answered once, so what a request makes the stepd hold does not
 * grow with its length. The result is
 * PMIX_SUCCESS when every key was answered, PMIX_ERR_PARTIAL_SUCCESS (with
 * the answers) when some were, PMIX_ERR_NOT_FOUND when none was.
 */
#ifndef PMIXEV_PMIX_QUERY_H_
#define PMIXEV_PMIX_QUERY_H_

#include <pmix_server.h>

pmix_status_t query_upcall(pmix_proc_t *proct, pmix_query_t *queries,
			   size_t nqueries, pmix_info_cbfunc_t cbfunc,
			   void *cbdata);

#endif /* PMIXEV_PMIX_QUERY_H_ */
