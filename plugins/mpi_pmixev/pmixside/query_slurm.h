/*
 * pmixside/query_slurm.h - query answers from Slurm's view of a job and of
 * the partitions, as root's QUERY_DONE carries it (root asks Slurm through
 * ownerhelper/jobinfo.h), as PMIx values:
 *
 *   PMIX_QUERY_JOB_STATUS   (pmix_status_t) the job's state: PMIX_SUCCESS
 *                           running, PMIXEV_JOB_PENDING, ... (the table
 *                           in include/pmixev_events.h)
 *   PMIXEV_QUERY_JOB_STATE  (string) Slurm's name of it, and its reason
 *   PMIX_TIME_REMAINING     (uint32_t) seconds until the job's end time;
 *                           UINT32_MAX without a time limit; not found
 *                           while the job does not run
 *   PMIX_QUERY_ALLOC_STATUS (string) "job J: STATE on NODES, time limit
 *                           M min" (the allocation is the Slurm job)
 *   PMIX_JOB_CTRL_PREEMPTIBLE (bool) the job said it may be preempted
 *                           (pmixev_preempt.h: its comment is marked)
 *   PMIX_QUERY_QUEUE_LIST   (string) the partitions, comma-separated
 *   PMIX_QUERY_QUEUE_STATUS (data array of PMIX_INFO) per partition, or
 *                           the one named: key its name, value (string)
 *                           "up", "down", "drain" or "inactive"
 * Each returns PMIX_SUCCESS with `out` loaded, or PMIX_ERR_NOT_FOUND.
 */
#ifndef PMIXEV_PMIXSIDE_QUERY_SLURM_H_
#define PMIXEV_PMIXSIDE_QUERY_SLURM_H_

#include <stdint.h>
#include <time.h>

#include <pmix_common.h>

#include "pmixev_helper_msg.h"

pmix_status_t qslurm_job_status(const struct pmixev_job_state *j,
				pmix_info_t *out);
pmix_status_t qslurm_job_state(const struct pmixev_job_state *j,
			       pmix_info_t *out);
pmix_status_t qslurm_time_remaining(const struct pmixev_job_state *j,
				    time_t now, pmix_info_t *out);
pmix_status_t qslurm_alloc_status(uint32_t job_id,
				  const struct pmixev_job_state *j,
				  pmix_info_t *out);
pmix_status_t qslurm_preemptible(const struct pmixev_job_state *j,
				 pmix_info_t *out);
pmix_status_t qslurm_queue_list(const struct pmixev_parts_state *p,
				pmix_info_t *out);
/* `name` NULL: every partition. */
pmix_status_t qslurm_queue_status(const struct pmixev_parts_state *p,
				  const char *name, pmix_info_t *out);

#endif /* PMIXEV_PMIXSIDE_QUERY_SLURM_H_ */
