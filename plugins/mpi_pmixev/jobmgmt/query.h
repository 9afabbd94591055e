/*
 * jobmgmt/query.h - the query upcall (PMIx progress thread), answered on the
 * agent thread, key by key. About the step, from what it knows:
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
 *   PMIXEV_QUERY_EVENTS        lost events (pmixside/inject_pmix.h)
 *   PMIX_QUERY_PROC_TABLE, PMIX_QUERY_LOCAL_PROC_TABLE, PMIX_QUERY_MEMORY_USAGE
 *                              from the tasks' table (jobmgmt/query_procs.h;
 *                              the whole step's gathered from every node)
 *
 * About a job - the step's, or the one a PMIX_NSPACE ("slurm.pmixev.J.S"
 * or stock's "slurm.pmix.J.S"), PMIX_PROCID, PMIX_JOBID ("J" or "J.S") or
 * PMIX_ALLOC_ID ("J") qualifier names, as Slurm shows it to the job's
 * owner - and about the partitions (PMIX_ALLOC_QUEUE names one), from
 * slurmctld through ownerhelper/jobinfo.h: PMIX_QUERY_JOB_STATUS,
 * PMIXEV_QUERY_JOB_STATE, PMIX_TIME_REMAINING, PMIX_QUERY_ALLOC_STATUS,
 * PMIX_QUERY_QUEUE_LIST, PMIX_QUERY_QUEUE_STATUS (jobmgmt/query_slurm.h).
 * PMIX_QUERY_REFRESH_CACHE asks for Slurm's freshest answer the site
 * allows; PMIX_TIMEOUT (seconds) bounds the wait for Slurm: then the
 * request fails with PMIX_ERR_TIMEOUT.
 *
 * A step key about another step gets no answer; PMIX_PROCID together with
 * PMIX_NSPACE or PMIX_RANK is PMIX_ERR_BAD_PARAM. A key asked more than
 * once about the same thing is answered once, and a request gets at most
 * 32 distinct answers, so what it makes the stepd hold is bounded. The
 * result is PMIX_SUCCESS when everything was answered,
 * PMIX_ERR_PARTIAL_SUCCESS (with the answers) when some was,
 * PMIX_ERR_NOT_FOUND when nothing was.
 */
#ifndef PMIXEV_PMIX_QUERY_H_
#define PMIXEV_PMIX_QUERY_H_

#include <pmix_server.h>

pmix_status_t query_upcall(pmix_proc_t *proct, pmix_query_t *queries,
			   size_t nqueries, pmix_info_cbfunc_t cbfunc,
			   void *cbdata);

#endif /* PMIXEV_PMIX_QUERY_H_ */
