/*
 * pmixside/query_pmix.h - the query upcall: the pmix side's half of
 * PMIx_Query_info (root's is jobmgmt/query.h). Key by key, about the
 * step, from what the pmix side knows:
 *
 *   PMIX_QUERY_NAMESPACES      (string) the step's namespace
 *   PMIX_QUERY_NAMESPACE_INFO  (data array of PMIX_INFO) per namespace an
 *                              info array: PMIX_NSPACE, PMIX_JOBID
 *                              ("JOB.STEP"), PMIX_JOB_SIZE, PMIX_NUM_NODES
 *   PMIX_QUERY_SPAWN_SUPPORT   (string) the spawn keys served, "" when
 *                              PMIxevSpawn is no
 *   PMIX_QUERY_DEBUG_SUPPORT   (string) "": pmixev launches no debugger
 *   PMIX_SERVER_URI            (string) this node's PMIx server
 *   PMIX_QUERY_NUM_PSETS       (size_t), PMIX_QUERY_PSET_NAMES (string),
 *   PMIX_QUERY_PSET_MEMBERSHIP the step's process sets, one per
 *                              application (slurm://app/N)
 *   PMIXEV_QUERY_EVENTS        lost events (pmixside/inject_pmix.h)
 *
 * and from root: PMIX_QUERY_PROC_TABLE, PMIX_QUERY_LOCAL_PROC_TABLE,
 * PMIX_QUERY_MEMORY_USAGE from the tasks' table (pmixside/query_procs.h;
 * the whole step's gathered from every node), and about a job - the
 * step's, or the one a PMIX_NSPACE ("slurm.pmixev.J.S" or stock's
 * "slurm.pmix.J.S"), PMIX_PROCID, PMIX_JOBID ("J" or "J.S") or
 * PMIX_ALLOC_ID ("J") qualifier names, as Slurm shows it to the job's
 * owner - and about the partitions (PMIX_ALLOC_QUEUE names one):
 * PMIX_QUERY_JOB_STATUS, PMIXEV_QUERY_JOB_STATE, PMIX_TIME_REMAINING,
 * PMIX_QUERY_ALLOC_STATUS, PMIX_JOB_CTRL_PREEMPTIBLE,
 * PMIX_QUERY_QUEUE_LIST, PMIX_QUERY_QUEUE_STATUS
 * (pmixside/query_slurm.h). PMIX_QUERY_REFRESH_CACHE asks for Slurm's
 * freshest answer the site allows; PMIX_TIMEOUT (seconds) bounds the wait
 * for root: then the request fails with PMIX_ERR_TIMEOUT.
 *
 * A step key about another step gets no answer; PMIX_PROCID together with
 * PMIX_NSPACE or PMIX_RANK is PMIX_ERR_BAD_PARAM. A key asked more than
 * once about the same thing is answered once, and a request gets at most
 * 32 distinct answers. The result is PMIX_SUCCESS when everything was
 * answered, PMIX_ERR_PARTIAL_SUCCESS (with the answers) when some was,
 * PMIX_ERR_NOT_FOUND when nothing was (or why root could not answer).
 *
 * PMIx progress thread: the upcall reads the request (query_read.h) and,
 * when root must answer something, sends one QUERY frame for all of it,
 * each thing asked once; otherwise it posts the request to the pmix
 * side's agent. The agent answers PMIx once: when QUERY_DONE comes (the
 * pmix_info_t answers are built there from its typed data), at
 * PMIX_TIMEOUT, or when the channel closes (root's items then fail with
 * PMIX_ERR_UNREACH).
 */
#ifndef PMIXEV_PMIXSIDE_QUERY_PMIX_H_
#define PMIXEV_PMIXSIDE_QUERY_PMIX_H_

#include <pmix_server.h>

#include "pmixside/side.h"

/* Answer QUERY_DONE frames on `p`'s channel. Before it runs. */
void query_pmix_listen(struct pmixside *p);

pmix_status_t query_upcall(pmix_proc_t *proct, pmix_query_t *queries,
			   size_t nqueries, pmix_info_cbfunc_t cbfunc,
			   void *cbdata);

#endif /* PMIXEV_PMIXSIDE_QUERY_PMIX_H_ */
