/*
 * pmixside/query_procs.h - query answers from the step's process table,
 * as root's QUERY_DONE carries it (jobmgmt/ptable.h):
 *
 *   PMIX_QUERY_PROC_TABLE,       (data array of PMIX_PROC_INFO) per task,
 *   PMIX_QUERY_LOCAL_PROC_TABLE  by rank: namespace and rank, its node, its
 *                                name (/proc's, "" once gone), pid, state
 *                                (PMIX_PROC_STATE_RUNNING, _TERMINATED,
 *                                _LAUNCH_UNDERWAY) and exit code (the exit
 *                                status, or 128 + the signal; OpenPMIx
 *                                does not pack it: clients see 0)
 *   PMIX_QUERY_MEMORY_USAGE      of the running tasks (one rank with
 *                                PMIX_PROCID or PMIX_RANK): a data array of
 *                                PMIX_INFO, per task one keyed PMIX_PROCID
 *                                holding an info array of PMIX_PROCID,
 *                                PMIX_HOSTNAME, PMIX_PROC_PID, PMIXEV_MEM_RSS
 *                                (float, MiB); or with PMIX_QUERY_REPORT_AVG /
 *                                _MINMAX a data array of PMIX_INFO:
 *                                PMIX_QUERY_REPORT_AVG (float MiB) and
 *                                PMIX_QUERY_REPORT_MINMAX (data array of two
 *                                PMIX_FLOAT, MiB)
 * Each returns PMIX_SUCCESS with `out` loaded, PMIX_ERR_NOT_FOUND, or
 * PMIX_ERR_NOMEM.
 */
#ifndef PMIXEV_PMIXSIDE_QUERY_PROCS_H_
#define PMIXEV_PMIXSIDE_QUERY_PROCS_H_

#include <stdbool.h>
#include <stddef.h>

#include <pmix_common.h>

#include "base/layout.h"
#include "pmixev_ptable.h"

pmix_status_t qprocs_table(const struct layout *lay, const char *key,
			   const struct pmixev_ptable_entry *e, size_t n,
			   pmix_info_t *out);

/* `rank` PMIX_RANK_WILDCARD: every task. */
pmix_status_t qprocs_memory(const struct layout *lay,
			    const struct pmixev_ptable_entry *e, size_t n,
			    pmix_rank_t rank, bool avg, bool minmax,
			    pmix_info_t *out);

#endif /* PMIXEV_PMIXSIDE_QUERY_PROCS_H_ */
