/*
 * The owner helper's allocations: PMIx_Allocation_request's NEW (a new job
 * of the owner, slurm_allocate_resources without response ports, so no
 * InactiveLimit and no message to a port nobody listens on) and RELEASE
 * (the owner's job shrunk: slurm_update_job with the nodes it keeps).
 * slurmctld applies the owner's rights to both. EXTEND is the site's
 * command's to grant, run as the owner.
 */
#ifndef PMIXEV_OWNER_ALLOC_H_
#define PMIXEV_OWNER_ALLOC_H_

#include <stdint.h>

#include "pmixev_helper_msg.h"

/* A new job for `a`: its id into `*job` (pending or running), or Slurm's
 * error and text into `r`. */
void owner_alloc_new(const struct pmixev_owner_alloc *a, uint32_t *job,
		     struct pmixev_control_result *r);

/* Job `job_id` gives back what `a` says (pmixev_helper_msg.h); on success
 * r->reason names the nodes released. */
void owner_alloc_shrink(uint32_t job_id, const struct pmixev_owner_alloc *a,
			struct pmixev_control_result *r);

/* EXTEND of job `job_id` by a->minutes or a->nnodes: the site's command
 * a->cmd decides, run as the owner ("CMD JOB MINUTES NODES"). */
void owner_alloc_extend(uint32_t job_id, const struct pmixev_owner_alloc *a,
			struct pmixev_control_result *r);

#endif /* PMIXEV_OWNER_ALLOC_H_ */
